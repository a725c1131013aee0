/* pcd_span.c: the span list of profcodec explain (see pcd_span.h). */
#include "pcd_span.h"

#include <string.h>

void pcd_spans_init(pcd_spans *s, pcd_alloc *al)
{
    memset(s, 0, sizeof *s);
    s->al = al;
}

void pcd_spans_reset(pcd_spans *s)
{
    s->n = 0;
    s->cur = 0;
    s->oom = false;
}

void pcd_spans_free(pcd_spans *s)
{
    pcd_alloc_free(s->al, s->v, s->cap * sizeof *s->v);
    memset(s, 0, sizeof *s);
}

static pcd_span *push(pcd_spans *s)
{
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        pcd_span *q = s->oom ? NULL : pcd_alloc_resize(s->al, s->v, s->cap * sizeof *q, ncap * sizeof *q);
        if (!q) {
            s->oom = true;
            return NULL;
        }
        s->v = q;
        s->cap = ncap;
    }
    return &s->v[s->n++];
}

void pcd_span_open(const pcd_cursor *c, const char *name, int64_t index)
{
    pcd_spans *s = c->x->spans;
    if (!s || s->oom) return; /* (once one is lost the tree is not whole: explain says so) */
    pcd_span *sp = push(s);
    if (!sp) return;
    uint64_t at = pcd_offset(c, c->p);
    *sp = (pcd_span){ name, index, at, at, s->cur, false };
    s->cur = (uint32_t)s->n;
}

void pcd_span_close(const pcd_cursor *c)
{
    pcd_spans *s = c->x->spans;
    if (!s || !s->cur || s->oom) return;
    pcd_span *sp = &s->v[s->cur - 1];
    sp->end = pcd_offset(c, c->p);
    sp->closed = true;
    s->cur = sp->parent;
}

void pcd_span_at(const pcd_cursor *c, const char *name, const uint8_t *at, size_t n)
{
    pcd_spans *s = c->x->spans;
    if (!s || s->oom) return;
    pcd_span *sp = push(s);
    if (!sp) return;
    uint64_t o = pcd_offset(c, at);
    *sp = (pcd_span){ name, -1, o, o + n, s->cur, true };
}

void pcd_span_offset(const pcd_cursor *c, const char *name, uint64_t offset, uint64_t n)
{
    pcd_spans *s = c->x->spans;
    if (!s || s->oom) return;
    pcd_span *sp = push(s);
    if (!sp) return;
    *sp = (pcd_span){ name, -1, offset, offset + n, s->cur, true };
}
