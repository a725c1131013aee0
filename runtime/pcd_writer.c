/* pcd_writer.c: record-by-record encoding with region bookkeeping and back-patching. */
#include "pcd_writer.h"

static pcd_status wfail(pcd_writer *w, pcd_status st, const char *name, const char *expected)
{
    w->failed = true;
    return pcd_sink_fail(w->s, st, name, expected, PCD_FOUND_NONE, 0);
}

pcd_status pcd_writer_open(pcd_writer *w, const pcd_format *f, pcd_sink *s, pcd_alloc *al)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->s = s;
    w->al = al;
    pcd_ctx_init(&w->x, NULL);
    w->x.version = f->version_num;
    s->x = &w->x;
    return PCD_OK;
}

void pcd_writer_set_big(pcd_writer *w, bool big) { w->x.big = big; }

const pcd_error *pcd_writer_error(const pcd_writer *w) { return &w->x.err; }

/* The regions a record type opens, in field order. */
static const pcd_field *region_field(const pcd_type *t, uint32_t from, uint32_t *at)
{
    if (!t || t->is_union) return NULL;
    for (uint32_t i = from; i < t->n_fields; i++) {
        if (t->fields[i].kind == PCD_K_REGION) {
            *at = i;
            return &t->fields[i];
        }
    }
    return NULL;
}

static pcd_status close_level(pcd_writer *w)
{
    pcd_wlevel *L = &w->lv[w->depth - 1];
    if (L->rd->finish) {
        uint64_t size = pcd_sink_tell(w->s) - L->start;
        pcd_status st = L->rd->finish(w->s, NULL, L->parent_offset, size, L->count);
        if (st != PCD_OK) {
            w->failed = true;
            return st;
        }
    }
    if (L->state) pcd_alloc_free(w->al, L->state, L->rd->state_size);
    memset(L, 0, sizeof *L);
    w->depth--;
    return PCD_OK;
}

/* Announces the regions of a record just written (the first one). */
static pcd_status announce(pcd_writer *w, const pcd_type *t, const void *rec, uint64_t off)
{
    uint32_t at;
    const pcd_field *fd = region_field(t, 0, &at);
    if (!fd) return PCD_OK;
    if (w->depth == PCD_READER_MAX_DEPTH) return wfail(w, PCD_E_LIMIT, fd->name, "regions nested at most 8 deep");
    pcd_wlevel *L = &w->lv[w->depth++];
    memset(L, 0, sizeof *L);
    L->rd = fd->region;
    L->parent_offset = off;
    L->start = pcd_sink_tell(w->s);
    if (L->rd->state_size) {
        L->state = pcd_alloc_get(w->al, L->rd->state_size);
        if (!L->state) return wfail(w, PCD_E_NOMEM, fd->name, "memory for stream state");
        memset(L->state, 0, L->rd->state_size);
        if (L->rd->state_init) L->rd->state_init(L->state, rec, &w->x);
    }
    return PCD_OK;
}

pcd_status pcd_writer_root(pcd_writer *w, const void *root)
{
    if (w->root_done || w->failed) return wfail(w, PCD_E_ARG, NULL, "one root record, first");
    uint64_t off = pcd_sink_tell(w->s);
    w->x.root = root;
    pcd_status st = w->f->root_encode(w->s, root);
    if (st != PCD_OK) {
        w->failed = true;
        return st;
    }
    w->root_done = true;
    w->records++;
    return announce(w, w->f->root, root, off);
}

pcd_status pcd_writer_record(pcd_writer *w, const pcd_region_desc *rd, const void *rec)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    if (!w->root_done) return wfail(w, PCD_E_ARG, NULL, "the root record first");
    /* find the level of rd, closing inner ones */
    int k = (int)w->depth - 1;
    while (k >= 0 && w->lv[k].rd != rd) k--;
    if (k < 0) {
        /* not open: maybe the next region of the root (whole-file formats) */
        if (w->depth == 0) {
            uint32_t at;
            for (const pcd_field *fd = region_field(w->f->root, 0, &at); fd;
                 fd = region_field(w->f->root, at + 1, &at)) {
                if (fd->region == rd) {
                    pcd_wlevel *L = &w->lv[w->depth++];
                    memset(L, 0, sizeof *L);
                    L->rd = rd;
                    L->start = pcd_sink_tell(w->s);
                    k = 0;
                    break;
                }
            }
        }
        if (k < 0) return wfail(w, PCD_E_INVALID, rd->name, "a record of a region that is open here");
    }
    while ((int)w->depth - 1 > k) PCD_TRY(close_level(w));
    pcd_wlevel *L = &w->lv[k];
    uint64_t off = pcd_sink_tell(w->s);
    w->x.state = L->state;
    pcd_status st = rd->encode(w->s, rec);
    if (st != PCD_OK) {
        w->failed = true;
        return st;
    }
    L->count++;
    w->records++;
    return announce(w, rd->record, rec, off);
}

pcd_status pcd_writer_finish(pcd_writer *w)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    while (w->depth) PCD_TRY(close_level(w));
    return pcd_sink_flush(w->s);
}

void pcd_writer_close(pcd_writer *w)
{
    while (w->depth) {
        pcd_wlevel *L = &w->lv[w->depth - 1];
        if (L->state) pcd_alloc_free(w->al, L->state, L->rd->state_size);
        w->depth--;
    }
}
