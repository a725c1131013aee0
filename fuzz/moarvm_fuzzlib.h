/* moarvm_fuzzlib.h: what the MoarVM harnesses run above the bytes (moarvm_fuzzlib.c). */
#ifndef MOARVM_FUZZLIB_H
#define MOARVM_FUZZLIB_H

#include "formats/moarvm/snapshot.h"

/* Figures a harness expects for the snapshots it wrote (NULL: none known). */
typedef struct moarvm_fuzz_expect {
    size_t snapshots;
    uint64_t collectables[4], references[4], heap_size[4], kinds[4][12], refkinds[4][4];
} moarvm_fuzz_expect;

/* Reads data with the collector (graph mode), info and every conversion; aborts when an
 * invariant breaks or what was read differs from `expect`. */
void moarvm_fuzz_above(const uint8_t *data, size_t size, const moarvm_fuzz_expect *expect);

#endif
