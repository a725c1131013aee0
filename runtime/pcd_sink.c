/* pcd_sink.c: flushing, large writes and back-patching for pcd_sink. */
#include "pcd_sink.h"

void pcd_sink_init(pcd_sink *s, uint8_t *buf, size_t cap, pcd_write_fn write, pcd_patch_fn patch,
                   void *ud, pcd_ctx *x)
{
    s->buf = buf;
    s->cap = cap;
    s->len = 0;
    s->pos = 0;
    s->write = write;
    s->patch = patch;
    s->ud = ud;
    s->x = x;
}

pcd_status pcd_sink_fail(pcd_sink *s, pcd_status st, const char *name, const char *expected,
                         pcd_found_kind fk, uint64_t found)
{
    pcd_error *e = &s->x->err;
    e->status = st;
    e->offset = pcd_sink_tell(s);
    e->expected = expected;
    e->found_kind = fk;
    e->found = found;
    e->found_text = NULL;
    e->region = NULL;
    e->n_seg = 0;
    e->path_truncated = false;
    if (name) pcd_error_push(e, name, -1);
    return st;
}

/* The write callback refused: memory (a compressing layer's tables under the caller's limit) or
 * the write itself. */
static pcd_status write_failed(pcd_sink *s, pcd_status st)
{
    return pcd_sink_fail(s, st, NULL,
                         st == PCD_E_NOMEM ? "memory within the limit (raise --max-memory)" : "a successful write",
                         PCD_FOUND_NONE, 0);
}

pcd_status pcd_sink_flush(pcd_sink *s)
{
    if (s->len == 0 || !s->write) return PCD_OK; /* a memory sink keeps its bytes */
    pcd_status st = s->write(s->ud, s->buf, s->len);
    if (st != PCD_OK) return write_failed(s, st);
    s->pos += s->len;
    s->len = 0;
    return PCD_OK;
}

pcd_status pcd_sink_put_slow(pcd_sink *s, const void *p, size_t n)
{
    const uint8_t *q = p;
    if (!s->write)
        return pcd_sink_fail(s, PCD_E_LIMIT, NULL, "room in the output buffer", PCD_FOUND_UINT, n);
    /* note: a memory sink is full here; a writing one flushes and goes on */
    PCD_TRY(pcd_sink_flush(s));
    if (n >= s->cap) {
        /* too big to buffer: hand it straight to the writer */
        pcd_status st = s->write(s->ud, q, n);
        if (st != PCD_OK) return write_failed(s, st);
        s->pos += n;
        return PCD_OK;
    }
    memcpy(s->buf, q, n);
    s->len = n;
    return PCD_OK;
}

pcd_status pcd_sink_patch(pcd_sink *s, uint64_t off, const void *p, size_t n)
{
    if (off >= s->pos && off + n <= s->pos + s->len) {
        memcpy(s->buf + (off - s->pos), p, n);
        return PCD_OK;
    }
    if (off + n > s->pos + s->len)
        return pcd_sink_fail(s, PCD_E_INTERNAL, NULL, "a patch inside written data", PCD_FOUND_UINT, off);
    if (off < s->pos && off + n > s->pos) {
        /* straddles the flushed part and the buffer */
        size_t head = (size_t)(s->pos - off);
        PCD_TRY(pcd_sink_patch(s, off, p, head));
        return pcd_sink_patch(s, s->pos, (const uint8_t *)p + head, n - head);
    }
    if (!s->patch)
        return pcd_sink_fail(s, PCD_E_LIMIT, NULL, "a seekable output to patch sizes and offsets",
                             PCD_FOUND_NONE, 0);
    pcd_status st = s->patch(s->ud, off, p, n);
    if (st != PCD_OK) return write_failed(s, st);
    return PCD_OK;
}
