#ifndef LOCKR_CLDNS_SHIM_H
#define LOCKR_CLDNS_SHIM_H
#include <ldns/ldns.h>
#include <stdlib.h>
#endif
