/* io/zstdin.c: zstd input for the CLI (libzstd's streaming decoder): frame after frame, bounded. */
#include "io/zstdin.h"

#include <string.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDStream_advanced: zstd's memory through ours */
#include <zstd.h>
#include <zstd_errors.h>

#define PCD_ZSTDIN_HARD_LIMIT ((uint64_t)1 << 40)

bool pcd_zstdin_is_zstd(const uint8_t *p, size_t n)
{
    if (n < 4) return false;
    if (p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) return true;
    /* a skippable frame: 0x184D2A50..0x184D2A5F, little-endian */
    return (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18;
}

static void *z_alloc(void *opaque, size_t size) { return pcd_alloc_sized(opaque, size); }
static void z_free(void *opaque, void *p) { pcd_alloc_sized_free(opaque, p); }

int pcd_zstdin_open(pcd_zstdin *z, pcd_read_fn read, void *ud, uint64_t limit, pcd_alloc *al)
{
    memset(z, 0, sizeof *z);
    z->read = read;
    z->ud = ud;
    z->al = al;
    z->limit = limit && limit < PCD_ZSTDIN_HARD_LIMIT ? limit : PCD_ZSTDIN_HARD_LIMIT;
    ZSTD_customMem mem = { z_alloc, z_free, al };
    ZSTD_DStream *ds = ZSTD_createDStream_advanced(mem);
    if (!ds) return -1;
    /* the window is what a frame says, up to zstd's largest (2 GiB, --long=31); its memory comes
     * from al, so --max-memory refuses a window it cannot hold */
    ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, 31);
    z->ds = ds;
    return 0;
}

static pcd_status fail(pcd_zstdin *z, const char *why)
{
    z->error = why;
    return PCD_E_IO;
}

/* Decompresses into dst; *got = 0 only at the real end. */
static pcd_status decompress_some(pcd_zstdin *z, uint8_t *dst, size_t cap, size_t *got)
{
    *got = 0;
    if (z->error) return PCD_E_IO;
    if (z->end || cap == 0) return PCD_OK;
    if (z->out_total >= z->limit) {
        z->over_limit = true;
        return fail(z, "decompressed data larger than the limit (a zstd bomb, or raise --max-memory)");
    }
    uint64_t room = z->limit - z->out_total;
    if (cap > room) cap = (size_t)room;
    for (;;) {
        if (z->ipos == z->ilen) {
            size_t n = 0;
            if (z->read(z->ud, z->ibuf, sizeof z->ibuf, &n) != PCD_OK) return fail(z, "cannot read the compressed input");
            z->ipos = 0;
            z->ilen = n;
            if (n == 0) {
                if (z->in_frame) return fail(z, "the zstd stream ends early (its last frame is cut)");
                z->end = true;
                return PCD_OK;
            }
        }
        ZSTD_inBuffer in = { z->ibuf, z->ilen, z->ipos };
        ZSTD_outBuffer out = { dst, cap, 0 };
        size_t r = ZSTD_decompressStream(z->ds, &out, &in);
        z->in_total += in.pos - z->ipos;
        z->ipos = in.pos;
        if (ZSTD_isError(r)) {
            ZSTD_ErrorCode code = ZSTD_getErrorCode(r);
            if (code == ZSTD_error_memory_allocation) {
                z->nomem = true;
                return fail(z, "no memory for zstd's window within the limit (raise --max-memory)");
            }
            if (code == ZSTD_error_frameParameter_windowTooLarge)
                return fail(z, "a zstd frame whose window is larger than 2 GiB");
            return fail(z, "damaged zstd data");
        }
        z->in_frame = r != 0;
        z->out_total += out.pos;
        if (out.pos > 0) {
            *got = out.pos;
            return PCD_OK;
        }
        if (cap == 0) {
            z->over_limit = true;
            return fail(z, "decompressed data larger than the limit (a zstd bomb, or raise --max-memory)");
        }
    }
}

size_t pcd_zstdin_peek(pcd_zstdin *z, uint8_t *dst, size_t n)
{
    while (z->head_len < n && z->head_len < sizeof z->head && !z->end) {
        size_t got = 0;
        if (decompress_some(z, z->head + z->head_len, sizeof z->head - z->head_len, &got) != PCD_OK) break;
        z->head_len += got;
        if (got == 0) break;
    }
    size_t k = n < z->head_len ? n : z->head_len;
    memcpy(dst, z->head, k);
    return k;
}

pcd_status pcd_zstdin_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    pcd_zstdin *z = ud;
    if (z->head_pos < z->head_len) {
        size_t k = z->head_len - z->head_pos < cap ? z->head_len - z->head_pos : cap;
        memcpy(dst, z->head + z->head_pos, k);
        z->head_pos += k;
        *got = k;
        return PCD_OK;
    }
    return decompress_some(z, dst, cap, got);
}

int pcd_zstdin_load(pcd_zstdin *z, const uint8_t **out, size_t *len)
{
    size_t cap = z->buf_cap ? z->buf_cap : (size_t)1 << 20, n = 0;
    if (!z->buf && !(z->buf = pcd_alloc_get(z->al, cap))) {
        z->nomem = true;
        return -1;
    }
    z->buf_cap = cap;
    for (;;) {
        if (n == z->buf_cap) {
            uint8_t *nb = z->buf_cap <= SIZE_MAX / 2 ? pcd_alloc_resize(z->al, z->buf, z->buf_cap, z->buf_cap * 2) : NULL;
            if (!nb) {
                z->nomem = true;
                return -1;
            }
            z->buf = nb;
            z->buf_cap *= 2;
        }
        size_t got = 0;
        if (pcd_zstdin_read(z, z->buf + n, z->buf_cap - n, &got) != PCD_OK) return -1;
        if (got == 0) break;
        n += got;
    }
    *out = z->buf;
    *len = n;
    return 0;
}

void pcd_zstdin_close(pcd_zstdin *z)
{
    if (z->ds) ZSTD_freeDStream(z->ds);
    z->ds = NULL;
    pcd_alloc_free(z->al, z->buf, z->buf_cap);
    z->buf = NULL;
    z->buf_cap = 0;
}
