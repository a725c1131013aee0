/* common/hash.h: the hashes code above the bytes uses (one of each kind). */
#ifndef PCD_COMMON_HASH_H
#define PCD_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "pcd_port.h"

/* A 64-bit finaliser (murmur3's): every input bit changes every output bit. */
PCD_INLINE uint64_t pcd_mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 33;
    h *= UINT64_C(0xc4ceb9fe1a85ec53);
    h ^= h >> 33;
    return h;
}

/* Two words into one hash (keys of pairs: parent and child, thread and stack). */
PCD_INLINE uint64_t pcd_hash2(uint64_t a, uint64_t b)
{
    return pcd_mix64(a * UINT64_C(0x9E3779B97F4A7C15) ^ (b + UINT64_C(0xBF58476D1CE4E5B9)));
}

/* Bytes (FNV-1a, then mixed so that the low bits are usable as a table index). */
PCD_INLINE uint64_t pcd_hash_bytes(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= UINT64_C(1099511628211);
    }
    return pcd_mix64(h ^ n);
}

#endif
