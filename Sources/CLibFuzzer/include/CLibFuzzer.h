#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver entry (compiler-rt, linked by -sanitize=fuzzer): runs the fuzzing loop
/// with the command-line flags in argv, calling UserCb once per input.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

#endif
