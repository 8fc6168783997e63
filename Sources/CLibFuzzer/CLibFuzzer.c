// The declaration of LLVMFuzzerRunDriver for Swift; libFuzzer itself provides the definition.
#include "CLibFuzzer.h"
