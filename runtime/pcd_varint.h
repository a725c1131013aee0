/* pcd_varint.h: ULEB128, SLEB128, zigzag and Austin's MOJO varint, in both directions. */
#ifndef PCD_VARINT_H
#define PCD_VARINT_H

#include "pcd_cursor.h"

#define PCD_VARINT_MAX 10   /* bytes in the longest 64-bit varint of any kind */

/* Slow paths (more than one byte); the cursor moves only on success. */
pcd_status pcd_read_uleb128_slow(pcd_cursor *c, uint64_t *out, const char *name);
pcd_status pcd_read_sleb128_slow(pcd_cursor *c, int64_t *out, const char *name);
pcd_status pcd_read_mojo_slow(pcd_cursor *c, uint64_t *mag, bool *neg, const char *name);

/* The length of a LEB128 of at most 8 bytes at p (8 bytes readable), 0 for a longer one.
 * A loop over the bytes: where lengths repeat, branch prediction runs ahead of the loads,
 * which a length computed from the loaded word would have to wait for. */
PCD_INLINE unsigned pcd_leb_len8(const uint8_t *p)
{
    for (unsigned k = 0; k < 8; k++)
        if (!(p[k] & 0x80)) return k + 1;
    return 0;
}

/* A LEB128 of up to 8 bytes with 8 bytes readable at p, without end checks: its length
 * (0: longer than 8 bytes) and its 7-bit groups put together in *v (7 * length bits). */
PCD_INLINE unsigned pcd_leb_word8(const uint8_t *p, uint64_t *v)
{
    /* byte by byte, unrolled: the length comes from predicted branches (so what follows need
     * not wait for the loads), the value from a few operations a byte */
    uint64_t x = 0;
    for (unsigned k = 0; k < 8; k++) {
        x |= (uint64_t)(p[k] & 0x7F) << (7 * k);
        if (!(p[k] & 0x80)) {
            *v = x;
            return k + 1;
        }
    }
    return 0;
}

/* A LEB128 of 1 to 8 bytes with 8 bytes readable at p: its length (0: longer) and its
 * 7-bit groups in *v; one and two bytes (the common sizes) take no arithmetic. */
PCD_INLINE unsigned pcd_leb_fast(const uint8_t *p, uint64_t *v)
{
    if (PCD_LIKELY(p[0] < 0x80)) {
        *v = p[0];
        return 1;
    }
    if (PCD_LIKELY(p[1] < 0x80)) {
        *v = (uint64_t)(p[0] & 0x7F) | (uint64_t)p[1] << 7;
        return 2;
    }
    return pcd_leb_word8(p, v);
}

/* A signed LEB128 of 1 to 8 bytes with 8 bytes readable at p: its length (0: longer) and its
 * value, sign-extended, in *v. One to three bytes (Mono's running method deltas are three
 * bytes nine times in ten) take constant shifts; longer ones the loop of pcd_leb_word8. */
PCD_INLINE unsigned pcd_sleb_fast(const uint8_t *p, int64_t *v)
{
    if (PCD_LIKELY(p[0] < 0x80)) {
        *v = (int64_t)((uint64_t)p[0] << 57) >> 57;
        return 1;
    }
    if (PCD_LIKELY(p[1] < 0x80)) {
        *v = (int64_t)(((uint64_t)(p[0] & 0x7F) | (uint64_t)p[1] << 7) << 50) >> 50;
        return 2;
    }
    if (PCD_LIKELY(p[2] < 0x80)) {
        *v = (int64_t)(((uint64_t)(p[0] & 0x7F) | (uint64_t)(p[1] & 0x7F) << 7 | (uint64_t)p[2] << 14) << 43) >> 43;
        return 3;
    }
    uint64_t x;
    unsigned len = pcd_leb_word8(p, &x);
    if (len) {
        unsigned sh = 64 - 7 * len;
        *v = (int64_t)(x << sh) >> sh;
    }
    return len;
}

/* Unsigned LEB128, at most 10 bytes and 64 bits. Non-minimal forms are accepted. */
PCD_INLINE pcd_status pcd_read_uleb128(pcd_cursor *c, uint64_t *out, const char *name)
{
    if (PCD_LIKELY(c->p < c->end && c->p[0] < 0x80)) {
        *out = c->p[0];
        c->p++;
        return PCD_OK;
    }
    if (PCD_LIKELY(c->end - c->p >= 2 && c->p[1] < 0x80)) {
        /* two bytes: timestamps deltas, counts and indexes of a few thousand */
        *out = (uint64_t)(c->p[0] & 0x7F) | (uint64_t)c->p[1] << 7;
        c->p += 2;
        return PCD_OK;
    }
    if (PCD_LIKELY(c->end - c->p >= 8)) {
        uint64_t v;
        unsigned len = pcd_leb_word8(c->p, &v);
        if (PCD_LIKELY(len)) {
            *out = v;
            c->p += len;
            return PCD_OK;
        }
    }
    return pcd_read_uleb128_slow(c, out, name);
}

/* The same, but the 10th byte's bits past bit 63 are dropped instead of being an error
 * (what CPython's Tachyon reader does): ff ff ff ff ff ff ff ff ff 7f reads as 2^64 - 1. */
pcd_status pcd_read_uleb128_wrap_slow(pcd_cursor *c, uint64_t *out, const char *name);
PCD_INLINE pcd_status pcd_read_uleb128_wrap(pcd_cursor *c, uint64_t *out, const char *name)
{
    if (PCD_LIKELY(c->p < c->end && c->p[0] < 0x80)) {
        *out = c->p[0];
        c->p++;
        return PCD_OK;
    }
    if (PCD_LIKELY(c->end - c->p >= 2 && c->p[1] < 0x80)) {
        *out = (uint64_t)(c->p[0] & 0x7F) | (uint64_t)c->p[1] << 7;
        c->p += 2;
        return PCD_OK;
    }
    if (PCD_LIKELY(c->end - c->p >= 8)) {
        uint64_t v;
        unsigned len = pcd_leb_word8(c->p, &v);
        if (PCD_LIKELY(len)) {
            *out = v;
            c->p += len;
            return PCD_OK;
        }
    }
    return pcd_read_uleb128_wrap_slow(c, out, name);
}

/* Signed LEB128 (two's complement, sign-extended from the last byte's bit 6). */
PCD_INLINE pcd_status pcd_read_sleb128(pcd_cursor *c, int64_t *out, const char *name)
{
    /* the sign (bit 7 * len - 1) is extended by a shift up to bit 63 and an arithmetic shift
     * back, not by a branch: deltas (Mono's pointers) change sign unpredictably */
    if (PCD_LIKELY(c->p < c->end && c->p[0] < 0x80)) {
        *out = (int64_t)((uint64_t)c->p[0] << 57) >> 57;
        c->p++;
        return PCD_OK;
    }
    if (PCD_LIKELY(c->end - c->p >= 2 && c->p[1] < 0x80)) {
        /* two bytes: 14 bits, sign in the second byte's bit 6 */
        uint64_t v = (uint64_t)(c->p[0] & 0x7F) | ((uint64_t)c->p[1] << 7);
        *out = (int64_t)(v << 50) >> 50;
        c->p += 2;
        return PCD_OK;
    }
    if (PCD_LIKELY(c->end - c->p >= 3 && c->p[2] < 0x80)) {
        /* three bytes: 21 bits (Mono's pointer and object deltas, mostly) */
        uint64_t v = (uint64_t)(c->p[0] & 0x7F) | ((uint64_t)(c->p[1] & 0x7F) << 7) | ((uint64_t)c->p[2] << 14);
        *out = (int64_t)(v << 43) >> 43;
        c->p += 3;
        return PCD_OK;
    }
    if (PCD_LIKELY(c->end - c->p >= 8)) {
        uint64_t v;
        unsigned len = pcd_leb_word8(c->p, &v);
        if (PCD_LIKELY(len)) {
            /* sign: bit 6 of the last byte, extended from bit 7 * len */
            unsigned sh = 64 - 7 * len;
            *out = (int64_t)(v << sh) >> sh;
            c->p += len;
            return PCD_OK;
        }
    }
    return pcd_read_sleb128_slow(c, out, name);
}

PCD_INLINE int64_t pcd_unzigzag64(uint64_t z) { return (int64_t)((z >> 1) ^ (~(z & 1) + 1)); }
PCD_INLINE uint64_t pcd_zigzag64(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
PCD_INLINE int32_t pcd_unzigzag32(uint32_t z) { return (int32_t)((z >> 1) ^ (~(z & 1) + 1)); }
PCD_INLINE uint32_t pcd_zigzag32(int32_t v) { return ((uint32_t)v << 1) ^ (uint32_t)(v >> 31); }

/* Zigzag over ULEB128, 64-bit value. */
PCD_INLINE pcd_status pcd_read_zigzag64(pcd_cursor *c, int64_t *out, const char *name)
{
    uint64_t z;
    PCD_TRY(pcd_read_uleb128(c, &z, name));
    *out = pcd_unzigzag64(z);
    return PCD_OK;
}

/* Zigzag over ULEB128 of a 32-bit value: the ULEB128 must not exceed UINT32_MAX. */
PCD_INLINE pcd_status pcd_read_zigzag32(pcd_cursor *c, int32_t *out, const char *name)
{
    const uint8_t *at = c->p;
    uint64_t z;
    PCD_TRY(pcd_read_uleb128(c, &z, name));
    if (PCD_UNLIKELY(z > UINT32_MAX)) {
        c->p = at;
        return pcd_fail(c, at, PCD_E_OVERFLOW, name, "zigzag varint of a 32-bit value",
                        PCD_FOUND_UINT, z);
    }
    *out = pcd_unzigzag32((uint32_t)z);
    return PCD_OK;
}

/* MOJO varint: first byte = more(7) sign(6) low 6 bits; then 7 bits a byte.
 * The value is sign and magnitude: a 64-bit magnitude and a separate sign flag,
 * so "negative zero" (0x40) is representable. At most 10 bytes.
 * With 10 bytes in the window the whole varint is read inline (the common case:
 * frame keys take up to 10 bytes); near the window's end, and for errors, the slow
 * path decides. The results go through locals so that the caller's own variables
 * never have their address taken (they stay in registers). */
PCD_INLINE pcd_status pcd_read_mojo(pcd_cursor *c, uint64_t *mag, bool *neg, const char *name)
{
    const uint8_t *p = c->p;
    if (PCD_LIKELY(c->end - p >= PCD_VARINT_MAX)) {
        /* up to 8 bytes from one load: the length from the first byte without the "more" bit,
         * the 7-bit groups put together in three steps (no branch on the length) */
        uint64_t w = pcd_ld_u64le(p);
        uint64_t stop = ~w & UINT64_C(0x8080808080808080);
        if (PCD_LIKELY(stop != 0)) {
            unsigned bits = (unsigned)__builtin_ctzll(stop) + 1; /* 8 * length */
            uint64_t x = bits == 64 ? w : w & ((UINT64_C(1) << bits) - 1);
            uint64_t v = x & 0x3F;
            bool n = (x & 0x40) != 0;
            x = (x >> 8) & UINT64_C(0x007F7F7F7F7F7F7F);
            x = (x & UINT64_C(0x007F007F007F007F)) | ((x & UINT64_C(0x7F007F007F007F00)) >> 1);
            x = (x & UINT64_C(0x00003FFF00003FFF)) | ((x & UINT64_C(0x3FFF00003FFF0000)) >> 2);
            x = (x & UINT64_C(0x000000000FFFFFFF)) | ((x & UINT64_C(0x0FFFFFFF00000000)) >> 4);
            c->p = p + bits / 8;
            *mag = v | x << 6;
            *neg = n;
            return PCD_OK;
        }
        /* 9 or 10 bytes: byte by byte */
        uint8_t b = p[0];
        uint64_t v = b & 0x3F;
        bool n = (b & 0x40) != 0;
        size_t i = 1;
        unsigned shift = 6;
        while (b & 0x80) {
            b = p[i];
            if (PCD_UNLIKELY(i == 9 && b > 3)) goto slow; /* past 64 bits: the slow path reports it */
            v |= (uint64_t)(b & 0x7F) << shift;
            shift += 7;
            i++;
        }
        c->p = p + i;
        *mag = v;
        *neg = n;
        return PCD_OK;
    }
slow:;
    uint64_t m = 0;
    bool ng = false;
    pcd_status st = pcd_read_mojo_slow(c, &m, &ng, name);
    *mag = m;
    *neg = ng;
    return st;
}

/* Compares a MOJO value (sign and magnitude) with an integer: -1, 0 or 1. Negative
 * zero equals zero. Used by the checks a schema declares (equals, min, max). */
PCD_INLINE int pcd_mojo_cmp(uint64_t mag, bool neg, int64_t v)
{
    if (!neg || mag == 0) {
        if (v < 0) return 1;
        return mag < (uint64_t)v ? -1 : mag > (uint64_t)v;
    }
    if (v >= 0) return -1;
    uint64_t m = (uint64_t)0 - (uint64_t)v; /* |v|, also for INT64_MIN */
    return mag > m ? -1 : mag < m;
}

/* How an error shows a MOJO value: its magnitude, and the kind that prints the sign. */
#define PCD_MOJO_FOUND(v) ((v).neg && (v).mag ? PCD_FOUND_NEG : PCD_FOUND_UINT), (v).mag

/* Skips (for validate functions). A LEB128 of at most 8 bytes is valid whatever its bytes
 * (only the 10th byte has rules), so with 8 bytes in the window only its length is found;
 * longer ones and the window's end go through the full read, which reports errors. */
PCD_INLINE bool pcd_leb_skip8(pcd_cursor *c)
{
    if (PCD_LIKELY(c->end - c->p >= 8)) {
        unsigned len = pcd_leb_len8(c->p);
        if (PCD_LIKELY(len != 0)) {
            c->p += len;
            return true;
        }
    }
    return false;
}

PCD_INLINE pcd_status pcd_skip_uleb128(pcd_cursor *c, const char *name)
{
    if (PCD_LIKELY(pcd_leb_skip8(c))) return PCD_OK;
    uint64_t v;
    return pcd_read_uleb128(c, &v, name);
}

PCD_INLINE pcd_status pcd_skip_uleb128_wrap(pcd_cursor *c, const char *name)
{
    if (PCD_LIKELY(pcd_leb_skip8(c))) return PCD_OK;
    uint64_t v;
    return pcd_read_uleb128_wrap(c, &v, name);
}

PCD_INLINE pcd_status pcd_skip_sleb128(pcd_cursor *c, const char *name)
{
    if (PCD_LIKELY(pcd_leb_skip8(c))) return PCD_OK;
    int64_t v;
    return pcd_read_sleb128(c, &v, name);
}

/* Encoders: write into dst (room for PCD_VARINT_MAX bytes), return the length. */
PCD_INLINE size_t pcd_enc_uleb128(uint8_t *dst, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        dst[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    dst[n++] = (uint8_t)v;
    return n;
}

PCD_INLINE size_t pcd_enc_sleb128(uint8_t *dst, int64_t v)
{
    size_t n = 0;
    for (;;) {
        uint8_t b = (uint8_t)(v & 0x7F);
        int64_t rest = v >> 7; /* arithmetic shift on every supported compiler */
        bool done = (rest == 0 && !(b & 0x40)) || (rest == -1 && (b & 0x40));
        dst[n++] = done ? b : (uint8_t)(b | 0x80);
        if (done) return n;
        v = rest;
    }
}

PCD_INLINE size_t pcd_enc_mojo(uint8_t *dst, uint64_t mag, bool neg)
{
    size_t n = 0;
    uint8_t b = (uint8_t)((mag & 0x3F) | (neg ? 0x40 : 0));
    mag >>= 6;
    if (mag) b |= 0x80;
    dst[n++] = b;
    while (mag) {
        b = (uint8_t)(mag & 0x7F);
        mag >>= 7;
        if (mag) b |= 0x80;
        dst[n++] = b;
    }
    return n;
}

PCD_INLINE size_t pcd_size_uleb128(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) { v >>= 7; n++; }
    return n;
}

PCD_INLINE size_t pcd_size_sleb128(int64_t v)
{
    uint8_t tmp[PCD_VARINT_MAX];
    return pcd_enc_sleb128(tmp, v);
}

PCD_INLINE size_t pcd_size_mojo(uint64_t mag)
{
    size_t n = 1;
    mag >>= 6;
    while (mag) { mag >>= 7; n++; }
    return n;
}

#endif
