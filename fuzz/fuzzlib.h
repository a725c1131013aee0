/* fuzzlib.h: invariants every generated harness checks, and the replay driver. */
#ifndef PCD_FUZZLIB_H
#define PCD_FUZZLIB_H

#include "pcd.h"

/* Decodes data through every path and checks that they agree; aborts on a broken
 * invariant (libFuzzer and the replay build both report that as a crash). */
int pcd_fuzz_one(const pcd_format *f, const uint8_t *data, size_t size);

/* The libFuzzer entry point every harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
