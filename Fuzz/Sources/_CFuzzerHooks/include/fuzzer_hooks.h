/*
 * _CFuzzerHooks: libFuzzer's functions a fuzz target may call. No stable API.
 */
#ifndef IMGQUALITY_FUZZER_HOOKS_H
#define IMGQUALITY_FUZZER_HOOKS_H

#include <stddef.h>
#include <stdint.h>

/* libFuzzer's own mutation of data[0..<size] in place, at most max_size bytes; returns the new
   size. Defined by libclang_rt.fuzzer, for a target's LLVMFuzzerCustomMutator. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#endif
