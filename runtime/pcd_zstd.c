/* pcd_zstd.c: zstd streaming with the caller's allocator and an output limit. */
#define ZSTD_STATIC_LINKING_ONLY
#include "pcd_zstd.h"

#include <pthread.h>
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

/* ---- the helper thread ------------------------------------------------------------------- */

struct pcd_zstd_worker {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    ZSTD_DStream *ds;         /* a static context in ws: the helper allocates nothing */
    void *ws;
    size_t ws_size;
    uint8_t *ring;            /* PCD_ZSTD_RING blocks of PCD_ZSTD_BLOCK bytes */
    size_t len[PCD_ZSTD_RING];
    uint64_t head, tail;      /* blocks filled by the helper / given back by the reader */
    size_t cur;               /* the reader's position in block tail */
    bool done;                /* the helper has stopped */
    bool ok;                  /* ... at the end of the input, the last frame complete */
    bool stop;                /* the reader asks it to stop */
    const uint8_t *in;
    size_t in_len;
    size_t in_done;           /* input the helper has taken, published with each block */
    uint64_t max_out;
};

static void *worker_main(void *arg)
{
    pcd_zstd_worker *w = arg;
    ZSTD_inBuffer in = { w->in, w->in_len, 0 };
    uint64_t total = 0;
    size_t pending = 1;
    bool ok = false;
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (!w->stop && w->head - w->tail == PCD_ZSTD_RING) pthread_cond_wait(&w->cv, &w->mu);
        bool stop = w->stop;
        uint64_t head = w->head;
        pthread_mutex_unlock(&w->mu);
        if (stop) break;
        /* block head is the helper's until it is published */
        ZSTD_outBuffer out = { w->ring + (size_t)(head % PCD_ZSTD_RING) * PCD_ZSTD_BLOCK, PCD_ZSTD_BLOCK, 0 };
        bool fail = false, exhausted = false;
        while (out.pos < out.size) {
            size_t before_in = in.pos, before_out = out.pos;
            size_t r = ZSTD_decompressStream(w->ds, &out, &in);
            if (ZSTD_isError(r)) {
                fail = true;
                break;
            }
            if (in.pos == before_in && out.pos == before_out) {
                /* nothing more: all input taken and all output given, or stuck */
                exhausted = in.pos == in.size;
                fail = !exhausted;
                break;
            }
            pending = r;
        }
        /* the output limit: what goes past it is the reader's to report */
        if (!fail && out.pos > w->max_out - total) fail = true;
        pthread_mutex_lock(&w->mu);
        if (!fail && out.pos) {
            total += out.pos;
            w->len[head % PCD_ZSTD_RING] = out.pos;
            w->head = head + 1;
        }
        w->in_done = in.pos;
        bool end = fail || exhausted;
        if (end) {
            ok = !fail && pending == 0;
            w->ok = ok;
            w->done = true;
        }
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
        if (end) return NULL;
    }
    pthread_mutex_lock(&w->mu);
    w->done = true;
    w->ok = false;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Stops the helper thread; its ring and context stay with the reader for the next region
 * (z->idle), freed by worker_release. */
static void worker_free(pcd_zstd_reader *z)
{
    pcd_zstd_worker *w = z->w;
    if (!w) return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    z->w = NULL;
    if (!z->idle) {
        z->idle = w;
        return;
    }
    /* one is kept: the one with the larger context */
    if (w->ws_size > z->idle->ws_size) {
        pcd_zstd_worker *t = z->idle;
        z->idle = w;
        w = t;
    }
    pcd_alloc_free(z->al, w->ring, PCD_ZSTD_RING * PCD_ZSTD_BLOCK);
    pcd_alloc_free(z->al, w->ws, w->ws_size);
    pcd_alloc_free(z->al, w, sizeof *w);
}

static void worker_release(pcd_zstd_reader *z)
{
    worker_free(z);
    pcd_zstd_worker *w = z->idle;
    if (!w) return;
    pcd_alloc_free(z->al, w->ring, PCD_ZSTD_RING * PCD_ZSTD_BLOCK);
    pcd_alloc_free(z->al, w->ws, w->ws_size);
    pcd_alloc_free(z->al, w, sizeof *w);
    z->idle = NULL;
}

/* Starts the helper on the whole input, if it is allowed and worth it; false: read alone. */
static bool worker_start(pcd_zstd_reader *z)
{
    z->worker_tried = true;
    ZSTD_frameHeader h;
    uint64_t room = (uint64_t)z->in_len * 64;
    if (room < PCD_ZSTD_MIN_WINDOW) room = PCD_ZSTD_MIN_WINDOW;
    /* the first frame's window, within the reader's own rule (else the reader reports it) */
    if (!z->allow_thread || !z->closed || z->in_pos != 0 || z->in_len < PCD_ZSTD_THREAD_MIN ||
        ZSTD_getFrameHeader(&h, z->in, z->in_len) != 0 || h.frameType != ZSTD_frame || h.windowSize > room ||
        h.windowSize > SIZE_MAX / 2) {
        /* read alone: the reader's own context takes a window, so a kept helper's goes (the
         * peak stays what it was without keeping one) */
        worker_release(z);
        return false;
    }
    size_t need = ZSTD_estimateDStreamSize((size_t)h.windowSize);
    pcd_zstd_worker *w = z->idle;
    if (w && w->ws_size >= need) {
        /* the last region's ring and context (initStaticDStream starts it afresh) */
        z->idle = NULL;
        void *ws = w->ws;
        uint8_t *ring = w->ring;
        size_t ws_size = w->ws_size;
        memset(w, 0, sizeof *w);
        w->ws = ws;
        w->ring = ring;
        w->ws_size = ws_size;
    } else {
        w = pcd_alloc_get(z->al, sizeof *w);
        if (!w) return false;
        memset(w, 0, sizeof *w);
        w->ws_size = need;
        w->ws = pcd_alloc_get(z->al, w->ws_size);
        w->ring = pcd_alloc_get(z->al, PCD_ZSTD_RING * PCD_ZSTD_BLOCK);
    }
    w->ds = w->ws ? ZSTD_initStaticDStream(w->ws, w->ws_size) : NULL;
    if (!w->ring || !w->ds) goto undo;
    w->in = z->in;
    w->in_len = z->in_len;
    w->max_out = z->max_out;
    if (pthread_mutex_init(&w->mu, NULL) != 0) goto undo;
    if (pthread_cond_init(&w->cv, NULL) != 0) {
        pthread_mutex_destroy(&w->mu);
        goto undo;
    }
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        pthread_cond_destroy(&w->cv);
        pthread_mutex_destroy(&w->mu);
        goto undo;
    }
    z->w = w;
    return true;
undo:
    pcd_alloc_free(z->al, w->ring, PCD_ZSTD_RING * PCD_ZSTD_BLOCK);
    pcd_alloc_free(z->al, w->ws, w->ws_size);
    pcd_alloc_free(z->al, w, sizeof *w);
    return false;
}

/* Reads from the helper: PCD_OK (*got bytes), PCD_END, or PCD_SHORT_READ when it stopped
 * short and the reader must carry on by itself. */
static pcd_status worker_read(pcd_zstd_reader *z, uint8_t *dst, size_t cap, size_t *got)
{
    pcd_zstd_worker *w = z->w;
    while (*got < cap) {
        pthread_mutex_lock(&w->mu);
        if (*got == 0) {
            while (w->head == w->tail && !w->done) pthread_cond_wait(&w->cv, &w->mu);
        }
        bool have = w->head != w->tail;
        bool done = w->done, ok = w->ok;
        pthread_mutex_unlock(&w->mu);
        if (!have) {
            if (*got) return PCD_OK;
            if (!done) continue;
            return ok ? PCD_END : PCD_SHORT_READ;
        }
        /* block tail is the reader's until it is given back */
        size_t idx = (size_t)(w->tail % PCD_ZSTD_RING);
        size_t n = w->len[idx] - w->cur;
        if (n > cap - *got) n = cap - *got;
        memcpy(dst + *got, w->ring + idx * PCD_ZSTD_BLOCK + w->cur, n);
        *got += n;
        w->cur += n;
        if (w->cur == w->len[idx]) {
            w->cur = 0;
            pthread_mutex_lock(&w->mu);
            w->tail++;
            pthread_cond_broadcast(&w->cv);
            pthread_mutex_unlock(&w->mu);
        }
    }
    return PCD_OK;
}

void pcd_zstd_reader_allow_thread(pcd_zstd_reader *z, bool allow) { z->allow_thread = allow; }

size_t pcd_zstd_reader_taken(pcd_zstd_reader *z)
{
    pcd_zstd_worker *w = z->w;
    if (!w) return z->in_pos;
    pthread_mutex_lock(&w->mu);
    size_t n = w->in_done;
    pthread_mutex_unlock(&w->mu);
    return n;
}

void pcd_zstd_reader_reset(pcd_zstd_reader *z, uint64_t max_out)
{
    worker_free(z);
    pcd_zstd_dctx *d = z->d;
    pcd_alloc *al = z->al;
    bool allow = z->allow_thread;
    pcd_zstd_worker *idle = z->idle;
    ZSTD_DCtx_reset(d, ZSTD_reset_session_only);
    memset(z, 0, sizeof *z);
    z->d = d;
    z->al = al;
    z->max_out = max_out;
    z->allow_thread = allow;
    z->idle = idle;
}

void pcd_zstd_reader_free(pcd_zstd_reader *z)
{
    worker_release(z);
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

static pcd_status serial_read(pcd_zstd_reader *z, uint8_t *dst, size_t cap, size_t *got,
                              pcd_error *e, const char *name);

pcd_status pcd_zstd_reader_read(pcd_zstd_reader *z, uint8_t *dst, size_t cap, size_t *got,
                                pcd_error *e, const char *name)
{
    *got = 0;
    if (!z->worker_tried && cap) worker_start(z);
    if (z->w) {
        pcd_status st = worker_read(z, dst, cap, got);
        if (st == PCD_OK || st == PCD_END) {
            z->delivered += *got;
            if (st == PCD_END) {
                /* as the reader would be after the last frame */
                z->in_pos = z->in_len;
                z->started = true;
                z->pending = 0;
                z->out_total = z->delivered;
            }
            return st;
        }
        /* the helper stopped short: start again alone, dropping what it gave */
        worker_free(z);
        ZSTD_DCtx_reset(z->d, ZSTD_reset_session_only);
        z->in_pos = 0;
        z->out_total = 0;
        z->pending = 0;
        z->started = false;
        z->skip = z->delivered;
    }
    while (z->skip) {
        size_t n = cap < z->skip ? cap : (size_t)z->skip;
        pcd_status st = serial_read(z, dst, n, got, e, name);
        if (st != PCD_OK) return st == PCD_END ? PCD_E_INTERNAL : st;
        z->skip -= *got;
        *got = 0;
    }
    pcd_status st = serial_read(z, dst, cap, got, e, name);
    if (st == PCD_OK) z->delivered += *got;
    return st;
}

static pcd_status serial_read(pcd_zstd_reader *z, uint8_t *dst, size_t cap, size_t *got,
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
    /* (the parameters are reset only when pcd_zstd_writer_small changed them) */
    size_t r = ZSTD_CCtx_reset(w->c, w->small ? ZSTD_reset_session_and_parameters : ZSTD_reset_session_only);
    w->small = false;
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
        if (ZSTD_isError(r) && ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
            /* (zstd makes its tables on the first call: the caller's memory limit refused them) */
            return pcd_sink_fail(s, PCD_E_NOMEM, NULL, "memory for zstd compression within the limit (raise --max-memory)",
                                 PCD_FOUND_NONE, 0);
        if (ZSTD_isError(r))
            return pcd_sink_fail(s, PCD_E_ZSTD, NULL, "zstd compression", PCD_FOUND_NONE, 0);
        s->len = out.pos;
        if (mode == ZSTD_e_continue ? in->pos == in->size : r == 0) return PCD_OK;
        /* a memory sink keeps its bytes: full, nothing more can go out (else this loops for ever) */
        if (!s->write && out.pos == out.size)
            return pcd_sink_fail(s, PCD_E_LIMIT, NULL, "room in the output buffer", PCD_FOUND_UINT, s->cap);
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

pcd_status pcd_zstd_writer_small(pcd_zstd_writer *w)
{
    size_t r = ZSTD_CCtx_setParameter(w->c, ZSTD_c_windowLog, 17);
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(w->c, ZSTD_c_hashLog, 6);
    if (!ZSTD_isError(r)) r = ZSTD_CCtx_setParameter(w->c, ZSTD_c_chainLog, 6);
    w->small = true;
    return ZSTD_isError(r) ? PCD_E_ZSTD : PCD_OK;
}
