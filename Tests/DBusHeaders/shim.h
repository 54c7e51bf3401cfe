#include <dbus/dbus.h>
#include <stddef.h>

// libdbus's own headers, for the test that checks lockr's declarations (Sources/CDBus) against them.

static inline size_t lockr_test_dbus_error_size(void) { return sizeof(DBusError); }
static inline size_t lockr_test_dbus_error_alignment(void) { return _Alignof(DBusError); }
static inline size_t lockr_test_dbus_error_message_offset(void) { return offsetof(DBusError, message); }
static inline size_t lockr_test_dbus_iter_size(void) { return sizeof(DBusMessageIter); }
static inline size_t lockr_test_dbus_iter_alignment(void) { return _Alignof(DBusMessageIter); }

/// The type codes and bus number lockr uses, in the order of `LOCKR_DBUS_*` in Sources/CDBus.
static inline void lockr_test_dbus_codes(int codes[8]) {
    codes[0] = DBUS_BUS_SESSION;
    codes[1] = DBUS_TYPE_ARRAY;
    codes[2] = DBUS_TYPE_BYTE;
    codes[3] = DBUS_TYPE_DICT_ENTRY;
    codes[4] = DBUS_TYPE_INT32;
    codes[5] = DBUS_TYPE_STRING;
    codes[6] = DBUS_TYPE_UINT32;
    codes[7] = DBUS_TYPE_VARIANT;
}
