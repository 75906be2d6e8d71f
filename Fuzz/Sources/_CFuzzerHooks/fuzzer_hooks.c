/* Declarations only (see include/fuzzer_hooks.h): libFuzzer defines them at link time. */
#include "fuzzer_hooks.h"
