/* pcd_writer.c: record-by-record encoding with region bookkeeping and back-patching. */
#include "pcd_writer.h"

static pcd_status wfail(pcd_writer *w, pcd_status st, const char *name, const char *expected)
{
    w->failed = true;
    return pcd_sink_fail(w->s, st, name, expected, PCD_FOUND_NONE, 0);
}

/* An old file offset -> where it is now: the record with the largest old start at or
 * before it, moved by as much as that record moved. */
static bool relocate(void *ud, uint64_t old, uint64_t *now)
{
    const pcd_writer *w = ud;
    size_t lo = 0, hi = w->nrel;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->rel[2 * mid] <= old) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return false;
    const uint64_t *e = &w->rel[2 * (lo - 1)];
    *now = e[1] + (old - e[0]);
    return true;
}

static pcd_status note_origin(pcd_writer *w, uint64_t now)
{
    if (!w->has_origin) return PCD_OK;
    w->has_origin = false;
    if (w->nrel && w->rel[2 * (w->nrel - 1)] >= w->origin)
        return wfail(w, PCD_E_INVALID, "_offset", "records in the order of their original offsets");
    if (w->nrel == w->crel) {
        size_t cap = w->crel ? w->crel * 2 : 64;
        uint64_t *p = pcd_alloc_resize(w->al, w->rel, w->crel * 2 * sizeof *p, cap * 2 * sizeof *p);
        if (!p) return wfail(w, PCD_E_NOMEM, NULL, "memory for relocations (raise --max-memory)");
        w->rel = p;
        w->crel = cap;
    }
    w->rel[2 * w->nrel] = w->origin;
    w->rel[2 * w->nrel + 1] = now;
    w->nrel++;
    return PCD_OK;
}

pcd_status pcd_writer_set_origin(pcd_writer *w, uint64_t old_offset)
{
    if (!(w->f->flags & PCD_FMT_RELOCATES)) return PCD_OK;
    w->has_origin = true;
    w->origin = old_offset;
    return PCD_OK;
}

pcd_status pcd_writer_open(pcd_writer *w, const pcd_format *f, pcd_sink *s, pcd_alloc *al)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->s = s;
    w->cur = s;
    w->al = al;
    pcd_ctx_init(&w->x, NULL);
    w->x.version = f->version_num;
    if (f->flags & PCD_FMT_RELOCATES) {
        w->x.reloc = relocate;
        w->x.reloc_ud = w;
    }
    s->x = &w->x;
    return PCD_OK;
}

void pcd_writer_set_big(pcd_writer *w, bool big) { w->x.big = big; }

const pcd_error *pcd_writer_error(const pcd_writer *w) { return &w->x.err; }

/* Position (1-based) of rd among the root's regions; 0 if it is not one. */
static uint32_t root_ordinal(const pcd_format *f, const pcd_region_desc *rd)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->root->n_fields; i++) {
        if (f->root->fields[i].kind != PCD_K_REGION) continue;
        k++;
        if (f->root->fields[i].region == rd) return k;
    }
    return 0;
}

static uint32_t root_regions(const pcd_format *f)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->root->n_fields; i++)
        if (f->root->fields[i].kind == PCD_K_REGION) k++;
    return k;
}

static const pcd_region_desc *root_region(const pcd_format *f, uint32_t ordinal)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < f->root->n_fields; i++) {
        if (f->root->fields[i].kind != PCD_K_REGION) continue;
        if (++k == ordinal) return f->root->fields[i].region;
    }
    return NULL;
}

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

#define PCD_WRITER_IBUF (256u << 10)

static pcd_status zfeed(void *ud, const uint8_t *p, size_t n)
{
    pcd_wlevel *L = ud;
    if (L->w && L->w->region_bytes) {
        pcd_status st = L->w->region_bytes(L->w->region_bytes_ud, L->rd, L->ordinal, &p, &n);
        if (st != PCD_OK) return st;
    }
    return pcd_zstd_writer_write(&L->zw, p, n);
}

/* The sink records of level k go to. */
static pcd_sink *level_sink(pcd_writer *w, int k)
{
    for (int i = k; i >= 0; i--)
        if (w->lv[i].compressed) return &w->lv[i].inner;
    return w->s;
}

static pcd_status close_level(pcd_writer *w)
{
    pcd_wlevel *L = &w->lv[w->depth - 1];
    if (L->compressed) {
        pcd_status st = pcd_sink_flush(&L->inner);
        if (st == PCD_OK) st = pcd_zstd_writer_end(&L->zw);
        if (!w->has_spare) {
            /* kept for the next compressed region */
            w->spare_zw = L->zw;
            w->spare_ibuf = L->ibuf;
            w->has_spare = true;
        } else {
            pcd_zstd_writer_free(&L->zw);
            pcd_alloc_free(w->al, L->ibuf, PCD_WRITER_IBUF);
        }
        L->compressed = false;
        if (st != PCD_OK) {
            w->failed = true;
            return st;
        }
    }
    if (L->rd->finish) {
        pcd_sink *outer = level_sink(w, (int)w->depth - 2);
        uint64_t size = pcd_sink_tell(outer) - L->start;
        pcd_status st = L->rd->finish(outer, NULL, L->parent_offset, L->start, size, L->count);
        if (st != PCD_OK) {
            w->failed = true;
            return st;
        }
    }
    const pcd_region_desc *rd = L->rd;
    uint64_t start = L->start, count = L->count;
    if (L->state) pcd_alloc_free(w->al, L->state, L->rd->state_size);
    memset(L, 0, sizeof *L);
    w->depth--;
    w->cur = level_sink(w, (int)w->depth - 1);
    if (w->depth == 0) {
        /* a region of the root: note where it went, then write what follows it */
        uint32_t k = root_ordinal(w->f, rd);
        if (k >= 1 && k <= 8) {
            w->x.rstat[k - 1].start = start;
            w->x.rstat[k - 1].size = pcd_sink_tell(w->s) - start;
            w->x.rstat[k - 1].count = count;
        }
        if (k > w->root_next) w->root_next = k;
        if (w->f->root_segment) {
            pcd_status st = w->f->root_segment(w->s, w->x.root, k);
            if (st != PCD_OK) {
                w->failed = true;
                return st;
            }
        }
    }
    return PCD_OK;
}

static pcd_status start_compression(pcd_writer *w, pcd_wlevel *L)
{
    /* the compressed bytes land in the enclosing sink (itself maybe compressed) */
    pcd_sink *outer = level_sink(w, (int)(L - w->lv) - 1);
    if (w->has_spare) {
        w->has_spare = false;
        L->zw = w->spare_zw;
        L->ibuf = w->spare_ibuf;
        if (pcd_zstd_writer_restart(&L->zw, w->zstd_level ? w->zstd_level : L->rd->zstd_level, outer) != PCD_OK) {
            pcd_zstd_writer_free(&L->zw);
            pcd_alloc_free(w->al, L->ibuf, PCD_WRITER_IBUF);
            return wfail(w, PCD_E_ZSTD, L->rd->name, "a zstd context that can be reused");
        }
    } else {
        if (pcd_zstd_writer_init(&L->zw, w->al, w->zstd_level ? w->zstd_level : L->rd->zstd_level, outer) != PCD_OK)
            return wfail(w, PCD_E_NOMEM, L->rd->name, "memory for zstd (raise --max-memory)");
        L->ibuf = pcd_alloc_get(w->al, PCD_WRITER_IBUF);
        if (!L->ibuf) {
            pcd_zstd_writer_free(&L->zw);
            return wfail(w, PCD_E_NOMEM, L->rd->name, "memory for zstd (raise --max-memory)");
        }
    }
    if (w->zstd_small && pcd_zstd_writer_small(&L->zw) != PCD_OK) {
        pcd_zstd_writer_free(&L->zw);
        pcd_alloc_free(w->al, L->ibuf, PCD_WRITER_IBUF);
        return wfail(w, PCD_E_ZSTD, L->rd->name, "zstd parameters it accepts");
    }
    pcd_sink_init(&L->inner, L->ibuf, PCD_WRITER_IBUF, zfeed, NULL, L, &w->x);
    L->w = w;
    L->ordinal = ++w->compressed_opened;
    L->compressed = true;
    return PCD_OK;
}

/* Announces the regions of a record just written (the first one). */
static pcd_status announce(pcd_writer *w, const pcd_type *t, const void *rec, uint64_t off)
{
    if (t && t->is_union) {
        /* a case that is a struct of its own may open regions; it starts after the tag */
        uint32_t which = *(const uint32_t *)rec;
        if (which >= t->n_fields) return PCD_OK;
        const pcd_field *cf = &t->fields[which];
        if (cf->kind != PCD_K_STRUCT || !cf->type || cf->type->is_union) return PCD_OK;
        return announce(w, cf->type, (const uint8_t *)rec + cf->offset, off + t->tag_wire);
    }
    uint32_t at;
    size_t h = ((uintptr_t)t >> 6) & 7;
    const pcd_field *fd;
    if (t && w->ann_type[h] == t) {
        fd = w->ann_field[h];
    } else {
        fd = region_field(t, 0, &at);
        w->ann_type[h] = t;
        w->ann_field[h] = fd;
    }
    if (!fd) return PCD_OK;
    if (w->depth == PCD_READER_MAX_DEPTH) return wfail(w, PCD_E_LIMIT, fd->name, "regions nested at most 8 deep");
    pcd_wlevel *L = &w->lv[w->depth++];
    memset(L, 0, sizeof *L);
    L->rd = fd->region;
    L->parent_offset = off;
    L->start = pcd_sink_tell(level_sink(w, (int)w->depth - 2));
    if (L->rd->compression && L->rd->compression(rec) != 0) PCD_TRY(start_compression(w, L));
    if (L->rd->state_size) {
        L->state = pcd_alloc_get(w->al, L->rd->state_size);
        if (!L->state) return wfail(w, PCD_E_NOMEM, fd->name, "memory for stream state");
        memset(L->state, 0, L->rd->state_size);
        if (L->rd->state_init) L->rd->state_init(L->state, rec, &w->x);
    }
    return PCD_OK;
}

static pcd_status open_root_region(pcd_writer *w, uint32_t k)
{
    const pcd_region_desc *rd = root_region(w->f, k);
    if (!rd) return wfail(w, PCD_E_INTERNAL, NULL, "a root region");
    pcd_wlevel *L = &w->lv[w->depth++];
    memset(L, 0, sizeof *L);
    L->rd = rd;
    L->start = pcd_sink_tell(w->s);
    if (rd->compression && rd->compression(w->x.root) != 0) PCD_TRY(start_compression(w, L));
    if (rd->state_size) {
        L->state = pcd_alloc_get(w->al, rd->state_size);
        if (!L->state) return wfail(w, PCD_E_NOMEM, rd->name, "memory for stream state");
        memset(L->state, 0, rd->state_size);
        if (rd->state_init) rd->state_init(L->state, w->x.root, &w->x);
    }
    return PCD_OK;
}

pcd_status pcd_writer_root(pcd_writer *w, const void *root)
{
    if (w->root_done || w->failed) return wfail(w, PCD_E_ARG, NULL, "one root record, first");
    uint64_t off = pcd_sink_tell(w->s);
    w->x.root = root;
    w->cur = w->s;
    if (w->f->flags & PCD_FMT_RELOCATES) {
        if (!w->has_origin) pcd_writer_set_origin(w, 0);
        PCD_TRY(note_origin(w, off));
    }
    pcd_status st = w->f->root_encode(w->s, root);
    if (st != PCD_OK) {
        w->failed = true;
        return st;
    }
    w->root_done = true;
    w->records++;
    w->root_offset = off;
    w->root_size = pcd_sink_tell(w->s) - off;
    return announce(w, w->f->root, root, off);
}

pcd_status pcd_writer_update_root(pcd_writer *w, const void *root)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    if (!w->root_done) return wfail(w, PCD_E_ARG, NULL, "the root record written first");
    uint8_t buf[4096];
    if (w->root_size > sizeof buf) return wfail(w, PCD_E_LIMIT, NULL, "a root record of at most 4096 bytes to rewrite");
    pcd_sink tmp;
    pcd_sink_init(&tmp, buf, sizeof buf, NULL, NULL, NULL, &w->x);
    tmp.pos = w->root_offset;
    pcd_status st = w->f->root_encode(&tmp, root);
    if (st != PCD_OK) {
        w->failed = true;
        return st;
    }
    if (tmp.len != w->root_size) return wfail(w, PCD_E_SIZE, NULL, "a root record of the size it had");
    st = pcd_sink_patch(w->s, w->root_offset, buf, tmp.len);
    if (st != PCD_OK) w->failed = true;
    return st;
}

/* The level of region rd, the inner ones closed (a later region of the root opened); -1 on failure. */
static int level_of(pcd_writer *w, const pcd_region_desc *rd)
{
    int k = (int)w->depth - 1;
    while (k >= 0 && w->lv[k].rd != rd) k--;
    if (k < 0) {
        /* not open: a later region of the root (whole-file formats); close what is
         * open, pass the ones in between (empty), open it */
        uint32_t j = root_ordinal(w->f, rd);
        if (j == 0 || j <= w->root_next) {
            wfail(w, PCD_E_INVALID, rd->name, "a record of a region that is open here");
            return -1;
        }
        while (w->depth)
            if (close_level(w) != PCD_OK) return -1;
        for (uint32_t m = w->root_next + 1; m < j; m++)
            if (open_root_region(w, m) != PCD_OK || close_level(w) != PCD_OK) return -1;
        if (open_root_region(w, j) != PCD_OK) return -1;
        k = 0;
    }
    while ((int)w->depth - 1 > k)
        if (close_level(w) != PCD_OK) return -1;
    return k;
}

pcd_status pcd_writer_raw_region(pcd_writer *w, const pcd_region_desc *rd, const uint8_t *p, size_t n,
                                 uint64_t records)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    if (!w->root_done) return wfail(w, PCD_E_ARG, NULL, "the root record first");
    int k = level_of(w, rd);
    if (k < 0) return w->x.err.status ? w->x.err.status : PCD_E_INVALID;
    pcd_wlevel *L = &w->lv[k];
    if (L->count) return wfail(w, PCD_E_ARG, rd->name, "a region without records yet");
    if (L->compressed) {
        /* nothing went into its frame: the context is kept for the next one */
        if (!w->has_spare) {
            w->spare_zw = L->zw;
            w->spare_ibuf = L->ibuf;
            w->has_spare = true;
        } else {
            pcd_zstd_writer_free(&L->zw);
            pcd_alloc_free(w->al, L->ibuf, PCD_WRITER_IBUF);
        }
        L->compressed = false;
    }
    w->cur = level_sink(w, k);
    pcd_status st = pcd_put_bytes(w->cur, p, n);
    if (st != PCD_OK) {
        w->failed = true;
        return st;
    }
    L->count = records;
    w->records += records;
    return PCD_OK;
}

pcd_status pcd_writer_record(pcd_writer *w, const pcd_region_desc *rd, const void *rec)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    if (!w->root_done) return wfail(w, PCD_E_ARG, NULL, "the root record first");
    /* find the level of rd, closing inner ones */
    int k = (int)w->depth - 1;
    while (k >= 0 && w->lv[k].rd != rd) k--;
    if (k < 0) {
        /* not open: a later region of the root (whole-file formats); close what is
         * open, pass the ones in between (empty), open it */
        uint32_t j = root_ordinal(w->f, rd);
        if (j == 0 || j <= w->root_next)
            return wfail(w, PCD_E_INVALID, rd->name, "a record of a region that is open here");
        while (w->depth) PCD_TRY(close_level(w));
        for (uint32_t m = w->root_next + 1; m < j; m++) {
            PCD_TRY(open_root_region(w, m));
            PCD_TRY(close_level(w));
        }
        PCD_TRY(open_root_region(w, j));
        k = 0;
    }
    while ((int)w->depth - 1 > k) PCD_TRY(close_level(w));
    pcd_wlevel *L = &w->lv[k];
    pcd_sink *s = level_sink(w, k);
    s->x = &w->x;
    uint64_t off = pcd_sink_tell(s);
    if (s == w->s) PCD_TRY(note_origin(w, off));   /* offsets in compressed data are not file offsets */
    w->has_origin = false;
    w->x.state = L->state;
    pcd_status st = rd->encode(s, rec);
    if (st != PCD_OK) {
        w->failed = true;
        return st;
    }
    L->count++;
    w->records++;
    return announce(w, rd->record, rec, off);
}

pcd_status pcd_writer_record_bytes(pcd_writer *w, const pcd_region_desc *rd, const uint8_t *p, size_t n,
                                   uint64_t records)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    if (!w->root_done) return wfail(w, PCD_E_ARG, NULL, "the root record first");
    if (rd->state_size || w->has_origin) return wfail(w, PCD_E_ARG, rd->name, "records without stream state or origin");
    int k = level_of(w, rd);
    if (k < 0) return w->x.err.status ? w->x.err.status : PCD_E_INVALID;
    pcd_sink *s = level_sink(w, k);
    s->x = &w->x;
    pcd_status st = pcd_put_bytes(s, p, n);
    if (st != PCD_OK) {
        w->failed = true;
        return st;
    }
    w->lv[k].count += records;
    w->records += records;
    return PCD_OK;
}

pcd_status pcd_writer_close_to(pcd_writer *w, uint32_t depth)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    while (w->depth > depth) PCD_TRY(close_level(w));
    return PCD_OK;
}

pcd_status pcd_writer_finish(pcd_writer *w)
{
    if (w->failed) return w->x.err.status ? w->x.err.status : PCD_E_ARG;
    while (w->depth) PCD_TRY(close_level(w));
    /* regions of the root that got no record still have their place (and segments) */
    for (uint32_t m = w->root_next + 1; m <= root_regions(w->f); m++) {
        PCD_TRY(open_root_region(w, m));
        PCD_TRY(close_level(w));
    }
    return pcd_sink_flush(w->s);
}

void pcd_writer_close(pcd_writer *w)
{
    if (w->has_spare) {
        pcd_zstd_writer_free(&w->spare_zw);
        pcd_alloc_free(w->al, w->spare_ibuf, PCD_WRITER_IBUF);
        w->has_spare = false;
    }
    if (w->rel) pcd_alloc_free(w->al, w->rel, w->crel * 2 * sizeof *w->rel);
    w->rel = NULL;
    w->nrel = w->crel = 0;
    while (w->depth) {
        pcd_wlevel *L = &w->lv[w->depth - 1];
        if (L->compressed) {
            pcd_zstd_writer_free(&L->zw);
            pcd_alloc_free(w->al, L->ibuf, PCD_WRITER_IBUF);
        }
        if (L->state) pcd_alloc_free(w->al, L->state, L->rd->state_size);
        w->depth--;
    }
}

bool pcd_writer_take_spare(pcd_writer *w, pcd_writer_spare *out)
{
    /* a writer that failed inside a compressed region: that region's context (its frame is
     * started again by the next writer) */
    for (uint32_t i = w->depth; i-- > 0 && !w->has_spare;) {
        pcd_wlevel *L = &w->lv[i];
        if (!L->compressed) continue;
        w->spare_zw = L->zw;
        w->spare_ibuf = L->ibuf;
        w->has_spare = true;
        L->compressed = false;
    }
    if (!w->has_spare) return false;
    out->zw = w->spare_zw;
    out->ibuf = w->spare_ibuf;
    w->has_spare = false;
    return true;
}

void pcd_writer_give_spare(pcd_writer *w, const pcd_writer_spare *sp)
{
    if (w->has_spare) {
        pcd_zstd_writer_free(&w->spare_zw);
        pcd_alloc_free(w->al, w->spare_ibuf, PCD_WRITER_IBUF);
    }
    w->spare_zw = sp->zw;
    w->spare_ibuf = sp->ibuf;
    w->has_spare = true;
}

void pcd_writer_spare_free(pcd_alloc *al, pcd_writer_spare *sp)
{
    pcd_zstd_writer_free(&sp->zw);
    pcd_alloc_free(al, sp->ibuf, PCD_WRITER_IBUF);
    sp->ibuf = NULL;
}
