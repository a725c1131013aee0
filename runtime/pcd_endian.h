/* pcd_endian.h: unaligned little/big-endian loads and stores, and byte swaps. */
#ifndef PCD_ENDIAN_H
#define PCD_ENDIAN_H

#include <string.h>
#include "pcd_port.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PCD_HOST_BIG 1
#else
#define PCD_HOST_BIG 0
#endif

PCD_INLINE uint16_t pcd_bswap16(uint16_t v) { return (uint16_t)((v >> 8) | (v << 8)); }
PCD_INLINE uint32_t pcd_bswap32(uint32_t v) { return __builtin_bswap32(v); }
PCD_INLINE uint64_t pcd_bswap64(uint64_t v) { return __builtin_bswap64(v); }

#define PCD_DEF_LOAD(bits)                                                            \
    PCD_INLINE uint##bits##_t pcd_ld_u##bits##le(const uint8_t *p)                    \
    {                                                                                 \
        uint##bits##_t v;                                                             \
        memcpy(&v, p, sizeof v);                                                      \
        return PCD_HOST_BIG ? pcd_bswap##bits(v) : v;                                 \
    }                                                                                 \
    PCD_INLINE uint##bits##_t pcd_ld_u##bits##be(const uint8_t *p)                    \
    {                                                                                 \
        uint##bits##_t v;                                                             \
        memcpy(&v, p, sizeof v);                                                      \
        return PCD_HOST_BIG ? v : pcd_bswap##bits(v);                                 \
    }                                                                                 \
    PCD_INLINE uint##bits##_t pcd_ld_u##bits##x(const uint8_t *p, bool big)           \
    {                                                                                 \
        return big ? pcd_ld_u##bits##be(p) : pcd_ld_u##bits##le(p);                   \
    }                                                                                 \
    PCD_INLINE void pcd_st_u##bits##le(uint8_t *p, uint##bits##_t v)                  \
    {                                                                                 \
        if (PCD_HOST_BIG) v = pcd_bswap##bits(v);                                     \
        memcpy(p, &v, sizeof v);                                                      \
    }                                                                                 \
    PCD_INLINE void pcd_st_u##bits##be(uint8_t *p, uint##bits##_t v)                  \
    {                                                                                 \
        if (!PCD_HOST_BIG) v = pcd_bswap##bits(v);                                    \
        memcpy(p, &v, sizeof v);                                                      \
    }                                                                                 \
    PCD_INLINE void pcd_st_u##bits##x(uint8_t *p, uint##bits##_t v, bool big)         \
    {                                                                                 \
        if (big) pcd_st_u##bits##be(p, v); else pcd_st_u##bits##le(p, v);            \
    }

PCD_DEF_LOAD(16)
PCD_DEF_LOAD(32)
PCD_DEF_LOAD(64)
#undef PCD_DEF_LOAD

PCD_INLINE uint8_t pcd_ld_u8(const uint8_t *p) { return p[0]; }
PCD_INLINE void pcd_st_u8(uint8_t *p, uint8_t v) { p[0] = v; }

PCD_INLINE float pcd_f32_from_bits(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
PCD_INLINE double pcd_f64_from_bits(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }
PCD_INLINE uint32_t pcd_f32_bits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
PCD_INLINE uint64_t pcd_f64_bits(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }

#endif
