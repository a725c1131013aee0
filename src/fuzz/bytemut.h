/* fuzz/bytemut.h: byte-level mutations (bit flips, interesting values, chunks inserted,
 * deleted, copied or spliced from another input), each named in a one-line description; and
 * the random numbers `profcodec fuzz` draws (a state that is saved and resumed). The
 * structure-aware mutators are src/mutator's; these are for inputs no schema reads, and for
 * comparing the two. */
#ifndef PCD_FUZZ_BYTEMUT_H
#define PCD_FUZZ_BYTEMUT_H

#include <stddef.h>
#include <stdint.h>

typedef struct pcd_fz_rng {
    uint64_t s;
} pcd_fz_rng;

/* splitmix64: the next number */
uint64_t pcd_fz_rand(pcd_fz_rng *r);
/* 0 .. n-1 (n > 0) */
uint64_t pcd_fz_below(pcd_fz_rng *r, uint64_t n);

/* 1..4 byte-level edits of buf[0..*len) in place (cap bytes of room; *len stays at most cap);
 * other[0..other_n) (may be NULL) is spliced from. Appends to desc (NUL-terminated, desc_cap
 * bytes) a line like "bytes: flip bit 3 of byte 120; u32le 0xffffffff at 64". */
void pcd_fz_mutate_bytes(pcd_fz_rng *r, uint8_t *buf, size_t *len, size_t cap, const uint8_t *other, size_t other_n,
                         char *desc, size_t desc_cap);

#endif
