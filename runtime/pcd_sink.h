/* pcd_sink.h: buffered output over a caller buffer, with a write callback and back-patching. */
#ifndef PCD_SINK_H
#define PCD_SINK_H

#include "pcd_cursor.h"
#include "pcd_varint.h"

typedef pcd_status (*pcd_write_fn)(void *ud, const uint8_t *p, size_t n);
/* Overwrites bytes already written at absolute offset off (e.g. with pwrite). */
typedef pcd_status (*pcd_patch_fn)(void *ud, uint64_t off, const uint8_t *p, size_t n);

typedef struct pcd_sink {
    uint8_t *buf;
    size_t cap, len;
    uint64_t pos;          /* stream offset of buf[0] */
    pcd_write_fn write;    /* NULL: a fixed memory sink that fails when full */
    pcd_patch_fn patch;    /* NULL: patches must land in the buffer */
    void *ud;
    pcd_ctx *x;            /* error record, byte order and stream state for encoders */
} pcd_sink;

void pcd_sink_init(pcd_sink *s, uint8_t *buf, size_t cap, pcd_write_fn write, pcd_patch_fn patch,
                   void *ud, pcd_ctx *x);
pcd_status pcd_sink_flush(pcd_sink *s);
pcd_status pcd_sink_put_slow(pcd_sink *s, const void *p, size_t n);
pcd_status pcd_sink_patch(pcd_sink *s, uint64_t off, const void *p, size_t n);
/* Records an encode failure at the current output position. */
PCD_COLD pcd_status pcd_sink_fail(pcd_sink *s, pcd_status st, const char *name,
                                  const char *expected, pcd_found_kind fk, uint64_t found);

PCD_INLINE uint64_t pcd_sink_tell(const pcd_sink *s) { return s->pos + s->len; }

PCD_INLINE pcd_status pcd_sink_put(pcd_sink *s, const void *p, size_t n)
{
    if (PCD_LIKELY(s->cap - s->len >= n)) {
        if (n) memcpy(s->buf + s->len, p, n);
        s->len += n;
        return PCD_OK;
    }
    return pcd_sink_put_slow(s, p, n);
}

#define PCD_DEF_PUT(bits, sfx)                                                      \
    PCD_INLINE pcd_status pcd_put_##sfx(pcd_sink *s, uint##bits##_t v)              \
    {                                                                               \
        uint8_t b[(bits) / 8];                                                      \
        pcd_st_##sfx(b, v);                                                         \
        return pcd_sink_put(s, b, sizeof b);                                        \
    }
PCD_DEF_PUT(8, u8)
PCD_DEF_PUT(16, u16le)
PCD_DEF_PUT(16, u16be)
PCD_DEF_PUT(32, u32le)
PCD_DEF_PUT(32, u32be)
PCD_DEF_PUT(64, u64le)
PCD_DEF_PUT(64, u64be)
#undef PCD_DEF_PUT

PCD_INLINE pcd_status pcd_put_uleb128(pcd_sink *s, uint64_t v)
{
    if (PCD_LIKELY(v < 0x80 && s->len < s->cap)) {
        s->buf[s->len++] = (uint8_t)v;
        return PCD_OK;
    }
    uint8_t b[PCD_VARINT_MAX];
    return pcd_sink_put(s, b, pcd_enc_uleb128(b, v));
}

PCD_INLINE pcd_status pcd_put_sleb128(pcd_sink *s, int64_t v)
{
    uint8_t b[PCD_VARINT_MAX];
    return pcd_sink_put(s, b, pcd_enc_sleb128(b, v));
}

PCD_INLINE pcd_status pcd_put_zigzag64(pcd_sink *s, int64_t v)
{
    return pcd_put_uleb128(s, pcd_zigzag64(v));
}

PCD_INLINE pcd_status pcd_put_zigzag32(pcd_sink *s, int32_t v)
{
    return pcd_put_uleb128(s, pcd_zigzag32(v));
}

PCD_INLINE pcd_status pcd_put_mojo(pcd_sink *s, uint64_t mag, bool neg)
{
    uint8_t b[PCD_VARINT_MAX];
    return pcd_sink_put(s, b, pcd_enc_mojo(b, mag, neg));
}

PCD_INLINE pcd_status pcd_put_bytes(pcd_sink *s, const uint8_t *p, size_t n)
{
    return pcd_sink_put(s, p, n);
}

#endif
