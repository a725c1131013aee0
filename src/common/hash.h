/* common/hash.h: the hashes code above the bytes uses (one of each kind). */
#ifndef PCD_COMMON_HASH_H
#define PCD_COMMON_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* FNV-1a a step at a time, for what is hashed where it lies (bytes, or words: a label's
 * fields, a location's frames): h = PCD_FNV_SEED, then h = pcd_fnv_step(h, v) for each. */
#define PCD_FNV_SEED UINT64_C(1469598103934665603)
PCD_INLINE uint64_t pcd_fnv_step(uint64_t h, uint64_t v) { return (h ^ v) * UINT64_C(1099511628211); }

/* Bytes (FNV-1a, then mixed so that the low bits are usable as a table index). */
PCD_INLINE uint64_t pcd_hash_bytes(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = PCD_FNV_SEED;
    for (size_t i = 0; i < n; i++) h = pcd_fnv_step(h, b[i]);
    return pcd_mix64(h ^ n);
}

/* Bytes for a table's index: eight bytes a step. Its values may change between versions,
 * so nothing written may depend on them (SVG colours take pcd_hash_bytes). */
PCD_INLINE uint64_t pcd_hash_key(const void *p, size_t n)
{
    const uint8_t *b = p;
    uint64_t h = UINT64_C(0x9E3779B97F4A7C15) * (n + 1), w = 0;
    for (; n >= 8; b += 8, n -= 8) {
        memcpy(&w, b, 8);
        h = (h ^ w) * UINT64_C(0xff51afd7ed558ccd);
        h ^= h >> 32;
    }
    if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, b, 4);
        memcpy(&y, b + n - 4, 4);
        w = (uint64_t)x << 32 | y;
    } else if (n) {
        w = (uint64_t)b[0] << 16 | (uint64_t)b[n >> 1] << 8 | b[n - 1];
    } else {
        w = 0;
    }
    return pcd_mix64(h ^ w);
}

/* Are n bytes at a and b equal? For table keys: short ones a few words at a time. */
PCD_INLINE bool pcd_key_equal(const void *a, const void *b, size_t n)
{
    const uint8_t *x = a, *y = b;
    uint64_t u, v, s, t;
    if (n >= 8 && n <= 16) {
        memcpy(&u, x, 8), memcpy(&v, y, 8), memcpy(&s, x + n - 8, 8), memcpy(&t, y + n - 8, 8);
        return ((u ^ v) | (s ^ t)) == 0;
    }
    if (n > 16) return memcmp(x, y, n) == 0;
    if (n >= 4) {
        uint32_t u4, v4, s4, t4;
        memcpy(&u4, x, 4), memcpy(&v4, y, 4), memcpy(&s4, x + n - 4, 4), memcpy(&t4, y + n - 4, 4);
        return ((u4 ^ v4) | (s4 ^ t4)) == 0;
    }
    return n == 0 || (x[0] == y[0] && x[n >> 1] == y[n >> 1] && x[n - 1] == y[n - 1]);
}

#endif
