// The fuzzing program's entry point, under the name SwiftPM gives an executable's main: hands the
// command line to libFuzzer with lockr's target (LLVMFuzzerTestOneInput, in Swift).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int lockr_fuzz_main(int argc, char **argv) {
    return LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput);
}
