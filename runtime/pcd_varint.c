/* pcd_varint.c: multi-byte varint decoding with overflow and truncation checks. */
#include "pcd_varint.h"

pcd_status pcd_read_uleb128_slow(pcd_cursor *c, uint64_t *out, const char *name)
{
    const uint8_t *q = c->p, *end = c->end;
    if (end - q >= 9) {
        /* at least nine bytes left: no end checks before the 9th byte */
        uint64_t v = 0;
        for (unsigned i = 0; i < 9; i++) {
            uint8_t b = q[i];
            v |= (uint64_t)(b & 0x7F) << (7 * i);
            if (!(b & 0x80)) {
                c->p = q + i + 1;
                *out = v;
                return PCD_OK;
            }
        }
        /* ten bytes or more: the careful loop below */
    }
    uint64_t v = 0;
    for (unsigned i = 0;; i++) {
        if (q == end) return pcd_fail_short(c, c->p, name, "ULEB128 varint");
        uint8_t b = *q++;
        if (i == 9) {
            /* the 10th byte holds bit 63 only, and must be the last */
            if (b > 1) {
                return pcd_fail_text(c, c->p, PCD_E_OVERFLOW, name, "ULEB128 varint of at most 64 bits",
                                 "a longer or larger varint");
            }
            v |= (uint64_t)b << 63;
            break;
        }
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) break;
    }
    c->p = q;
    *out = v;
    return PCD_OK;
}

pcd_status pcd_read_uleb128_wrap_slow(pcd_cursor *c, uint64_t *out, const char *name)
{
    const uint8_t *q = c->p, *end = c->end;
    uint64_t v = 0;
    for (unsigned i = 0;; i++) {
        if (q == end) return pcd_fail_short(c, c->p, name, "ULEB128 varint");
        uint8_t b = *q++;
        v |= (uint64_t)(b & 0x7F) << (7 * i); /* at i == 9, bits past 63 fall off */
        if (!(b & 0x80)) break;
        if (i == 9)
            return pcd_fail_text(c, c->p, PCD_E_OVERFLOW, name, "ULEB128 varint of at most 10 bytes",
                                 "a longer varint");
    }
    c->p = q;
    *out = v;
    return PCD_OK;
}

pcd_status pcd_read_sleb128_slow(pcd_cursor *c, int64_t *out, const char *name)
{
    const uint8_t *q = c->p, *end = c->end;
    if (end - q >= 9) {
        /* at least nine bytes left: no end checks before the 9th byte */
        uint64_t v = 0;
        unsigned shift = 0;
        for (unsigned i = 0; i < 9; i++) {
            uint8_t b = q[i];
            v |= (uint64_t)(b & 0x7F) << shift;
            shift += 7;
            if (!(b & 0x80)) {
                if (shift < 64 && (b & 0x40)) v |= ~UINT64_C(0) << shift;
                c->p = q + i + 1;
                *out = (int64_t)v;
                return PCD_OK;
            }
        }
        /* ten bytes or more: the careful loop below */
    }
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b;
    for (unsigned i = 0;; i++) {
        if (q == end) return pcd_fail_short(c, c->p, name, "SLEB128 varint");
        b = *q++;
        if (i == 9) {
            /* bit 63 plus sign extension only: 0x00 or 0x7F */
            if (b != 0x00 && b != 0x7F) {
                return pcd_fail_text(c, c->p, PCD_E_OVERFLOW, name, "SLEB128 varint of at most 64 bits",
                                 "a longer or larger varint");
            }
            v |= (uint64_t)(b & 1) << 63;
            *out = (int64_t)v;
            c->p = q;
            return PCD_OK;
        }
        v |= (uint64_t)(b & 0x7F) << shift;
        shift += 7;
        if (!(b & 0x80)) break;
    }
    if (shift < 64 && (b & 0x40)) v |= ~UINT64_C(0) << shift;
    c->p = q;
    *out = (int64_t)v;
    return PCD_OK;
}

pcd_status pcd_read_mojo_slow(pcd_cursor *c, uint64_t *mag, bool *neg, const char *name)
{
    const uint8_t *q = c->p, *end = c->end;
    if (q == end) return pcd_fail_short(c, c->p, name, "MOJO varint");
    uint8_t b = *q++;
    uint64_t v = b & 0x3F;
    bool n = (b & 0x40) != 0;
    unsigned shift = 6;
    for (unsigned i = 1; b & 0x80; i++) {
        if (q == end) return pcd_fail_short(c, c->p, name, "MOJO varint");
        b = *q++;
        if (i == 9) {
            /* the 10th byte carries bits 62 and 63 only, and must be the last */
            if (b > 3) {
                return pcd_fail_text(c, c->p, PCD_E_OVERFLOW, name, "MOJO varint of at most 10 bytes and 64 bits",
                                 "a longer or larger varint");
            }
        }
        v |= (uint64_t)(b & 0x7F) << shift;
        shift += 7;
    }
    c->p = q;
    *mag = v;
    *neg = n;
    return PCD_OK;
}
