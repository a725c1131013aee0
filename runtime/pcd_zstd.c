/* pcd_zstd.c: zstd streaming with the caller's allocator and an output limit. */
#define ZSTD_STATIC_LINKING_ONLY
#include "pcd_zstd.h"

#include <zstd.h>
#include <zstd_errors.h>

/* The largest zstd window accepted whatever the compressed size (see pcd_zstd_reader_read). */
#define PCD_ZSTD_MIN_WINDOW ((uint64_t)8 << 20)

/* zstd's free callback gets no size: its blocks carry theirs (pcd_alloc_sized). */
static void *zalloc(void *opaque, size_t size) { return pcd_alloc_sized(opaque, size); }

static void zfree(void *opaque, void *addr) { pcd_alloc_sized_free(opaque, addr); }

static void zerr(pcd_error *e, pcd_status st, uint64_t off, const char *name, const char *expected,
                 const char *found)
{
    e->status = st;
    e->offset = off;
    e->expected = expected;
    e->found_kind = found ? PCD_FOUND_TEXT : PCD_FOUND_NONE;
    e->found_text = found;
    e->found = 0;
    e->n_seg = 0;
    e->path_truncated = false;
    e->region = NULL;
    if (name) pcd_error_push(e, name, -1);
}

pcd_status pcd_zstd_reader_init(pcd_zstd_reader *z, pcd_alloc *al, uint64_t max_out)
{
    memset(z, 0, sizeof *z);
    if (!al) return PCD_E_ARG;
    ZSTD_customMem mem = { zalloc, zfree, al };
    z->d = ZSTD_createDCtx_advanced(mem);
    if (!z->d) return PCD_E_NOMEM;
    z->al = al;
    z->max_out = max_out;
    return PCD_OK;
}

void pcd_zstd_reader_reset(pcd_zstd_reader *z, uint64_t max_out)
{
    pcd_zstd_dctx *d = z->d;
    pcd_alloc *al = z->al;
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    memset(z, 0, sizeof *z);
    z->d = d;
    z->al = al;
    z->max_out = max_out;
}

void pcd_zstd_reader_free(pcd_zstd_reader *z)
{
    if (z->d) ZSTD_freeDCtx(z->d);
    z->d = NULL;
}

void pcd_zstd_reader_feed(pcd_zstd_reader *z, const uint8_t *in, size_t len, uint64_t base,
                          bool closed)
{
    z->in = in;
    z->in_len = len;
    z->in_pos = 0;
    z->in_base = base;
    z->closed = closed;
}

pcd_status pcd_zstd_reader_read(pcd_zstd_reader *z, uint8_t *dst, size_t cap, size_t *got,
                                pcd_error *e, const char *name)
{
    *got = 0;
    for (;;) {
        if (z->in_pos == z->in_len) {
            if (!z->closed) return PCD_SHORT_READ;
            if (z->started && z->pending != 0) {
                zerr(e, PCD_E_ZSTD, z->in_base + z->in_pos, name, "a complete zstd frame",
                     "the end of the compressed data inside a frame");
                return PCD_E_ZSTD;
            }
            if (!z->started) {
                zerr(e, PCD_E_ZSTD, z->in_base, name, "a zstd frame", "no data");
                return PCD_E_ZSTD;
            }
            if (*got) return PCD_OK;
            return PCD_END;
        }
        if (cap == *got) return PCD_OK;
        if (z->pending == 0 && z->closed) {
            /* A frame starts here. zstd allocates the window its header asks for before it
             * has produced a byte; a header field must not drive allocation, so the window
             * may be at most 8 MiB (what any level up to 19 uses) or 64 times the compressed
             * bytes that are left (a frame that small could not fill a bigger one), whichever
             * is larger. */
            ZSTD_frameHeader h;
            size_t left = z->in_len - z->in_pos;
            if (ZSTD_getFrameHeader(&h, z->in + z->in_pos, left) == 0 && h.frameType == ZSTD_frame) {
                uint64_t room = (uint64_t)left * 64;
                if (room < PCD_ZSTD_MIN_WINDOW) room = PCD_ZSTD_MIN_WINDOW;
                if (h.windowSize > room) {
                    zerr(e, PCD_E_LIMIT, z->in_base + z->in_pos, name,
                         "a zstd window of at most 8 MiB or 64 times the compressed bytes left", NULL);
                    e->found_kind = PCD_FOUND_UINT;
                    e->found = h.windowSize;
                    return PCD_E_LIMIT;
                }
            }
        }
        ZSTD_inBuffer in = { z->in, z->in_len, z->in_pos };
        ZSTD_outBuffer out = { dst, cap, *got };
        size_t r = ZSTD_decompressStream(z->d, &out, &in);
        if (ZSTD_isError(r)) {
            if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) {
                /* the caller's memory limit, not damage */
                zerr(e, PCD_E_NOMEM, z->in_base + z->in_pos, name,
                     "memory for zstd's window within the limit (raise --max-memory)", NULL);
                return PCD_E_NOMEM;
            }
            zerr(e, PCD_E_ZSTD, z->in_base + z->in_pos, name, "valid zstd data", ZSTD_getErrorName(r));
            return PCD_E_ZSTD;
        }
        uint64_t produced = out.pos - *got;
        if (produced > z->max_out - z->out_total) {
            zerr(e, PCD_E_LIMIT, z->in_base + z->in_pos, name,
                 "decompressed size within the limit (raise --max-memory)", "more data");
            e->found_kind = PCD_FOUND_UINT;
            e->found = z->out_total + produced;
            return PCD_E_LIMIT;
        }
        if (in.pos > z->in_pos) z->started = true;
        bool progress = in.pos != z->in_pos || out.pos != *got;
        z->in_pos = in.pos;
        z->out_total += produced;
        *got = out.pos;
        z->pending = r;
        if (*got && (out.pos == out.size || r == 0)) return PCD_OK;
        if (!progress && out.pos < out.size) {
            /* zstd wants more input it does not have yet */
            if (z->in_pos == z->in_len) continue;
            zerr(e, PCD_E_ZSTD, z->in_base + z->in_pos, name, "valid zstd data", "no progress");
            return PCD_E_ZSTD;
        }
    }
}

pcd_status pcd_zstd_frame_size(const uint8_t *p, size_t n, size_t *size)
{
    size_t r = ZSTD_findFrameCompressedSize(p, n);
    if (ZSTD_isError(r)) return ZSTD_getErrorCode(r) == ZSTD_error_srcSize_wrong ? PCD_E_TRUNCATED : PCD_E_ZSTD;
    *size = r;
    return PCD_OK;
}

pcd_status pcd_zstd_writer_init(pcd_zstd_writer *w, pcd_alloc *al, int level, pcd_sink *out)
{
    memset(w, 0, sizeof *w);
    if (!al) return PCD_E_ARG;
    ZSTD_customMem mem = { zalloc, zfree, al };
    w->c = ZSTD_createCCtx_advanced(mem);
    if (!w->c) return PCD_E_NOMEM;
    w->al = al;
    w->out = out;
    size_t r = ZSTD_CCtx_setParameter(w->c, ZSTD_c_compressionLevel, level);
    if (ZSTD_isError(r)) return PCD_E_ZSTD;
    return PCD_OK;
}

pcd_status pcd_zstd_writer_restart(pcd_zstd_writer *w, int level, pcd_sink *out)
{
    size_t r = ZSTD_CCtx_reset(w->c, ZSTD_reset_session_only);
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(w->c, ZSTD_c_compressionLevel, level);
    if (ZSTD_isError(r)) return PCD_E_ZSTD;
    w->out = out;
    w->in_total = 0;
    return PCD_OK;
}

static pcd_status zpump(pcd_zstd_writer *w, ZSTD_inBuffer *in, ZSTD_EndDirective mode)
{
    pcd_sink *s = w->out;
    for (;;) {
        if (s->cap - s->len < ZSTD_CStreamOutSize() / 4) PCD_TRY(pcd_sink_flush(s));
        ZSTD_outBuffer out = { s->buf, s->cap, s->len };
        size_t r = ZSTD_compressStream2(w->c, &out, in, mode);
        if (ZSTD_isError(r))
            return pcd_sink_fail(s, PCD_E_ZSTD, NULL, "zstd compression", PCD_FOUND_NONE, 0);
        s->len = out.pos;
        if (mode == ZSTD_e_continue ? in->pos == in->size : r == 0) return PCD_OK;
        if (out.pos == out.size || out.pos > 0) PCD_TRY(pcd_sink_flush(s));
    }
}

pcd_status pcd_zstd_writer_write(pcd_zstd_writer *w, const uint8_t *p, size_t n)
{
    ZSTD_inBuffer in = { p, n, 0 };
    w->in_total += n;
    return zpump(w, &in, ZSTD_e_continue);
}

pcd_status pcd_zstd_writer_end(pcd_zstd_writer *w)
{
    ZSTD_inBuffer in = { NULL, 0, 0 };
    return zpump(w, &in, ZSTD_e_end);
}

void pcd_zstd_writer_free(pcd_zstd_writer *w)
{
    if (w->c) ZSTD_freeCCtx(w->c);
    w->c = NULL;
}
