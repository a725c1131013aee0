/* pcd_reader.c: windows, refills, nested regions, zstd regions and damage recovery. */
#include "pcd_reader.h"
#include "pcd_span.h"

#include <string.h>

/* ---- windows ------------------------------------------------------------ */

/* A window over one byte stream: the file, or a decompressed region. */
typedef struct pcd_win {
    uint8_t *buf;
    size_t cap, hi, pos;
    uint64_t base;            /* stream offset of buf[0] */
    bool eof;                 /* no more bytes after buf[hi] */
    bool owned;
} pcd_win;

/* Per-level extra data for compressed regions. */
typedef struct pcd_zlevel {
    pcd_win w;
    pcd_zstd_reader z;
} pcd_zlevel;

static pcd_status rfail(pcd_reader *r, pcd_status st, uint64_t off, const char *name,
                        const char *expected, pcd_found_kind fk, uint64_t found)
{
    pcd_error *e = &r->x.err;
    memset(e, 0, sizeof *e);
    e->status = st;
    e->offset = off;
    e->expected = expected;
    e->found_kind = fk;
    e->found = found;
    if (name) pcd_error_push(e, name, -1);
    return st;
}

static pcd_win *file_win(pcd_reader *r);

/* Reads more input into the file window, compacting and growing it as needed.
 * PCD_OK: bytes were added or eof is now known. */
static pcd_status win_fill(pcd_reader *r, pcd_win *w)
{
    if (w->eof) return PCD_OK;
    if (w->pos > 0) {
        memmove(w->buf, w->buf + w->pos, w->hi - w->pos);
        w->base += w->pos;
        w->hi -= w->pos;
        w->pos = 0;
    }
    if (w->hi == w->cap) {
        size_t ncap = w->cap ? w->cap * 2 : 1 << 20;
        uint8_t *nb = ncap > w->cap ? pcd_alloc_resize(r->al, w->buf, w->cap, ncap) : NULL;
        if (!nb)
            return rfail(r, PCD_E_NOMEM, w->base + w->hi, NULL,
                         "a record that fits in the memory limit (raise --max-memory)",
                         PCD_FOUND_UINT, w->cap);
        w->buf = nb;
        w->cap = ncap;
    }
    size_t got = 0;
    pcd_status st = r->read(r->ud, w->buf + w->hi, w->cap - w->hi, &got);
    if (st == PCD_WOULD_BLOCK && r->suspendable) return st;
    if (st != PCD_OK)
        return rfail(r, PCD_E_IO, w->base + w->hi, NULL, "readable input", PCD_FOUND_NONE, 0);
    if (got == 0) w->eof = true;
    w->hi += got;
    return PCD_OK;
}

/* Refills a decompressed window from its zstd reader. */
static pcd_status zwin_fill(pcd_reader *r, pcd_zlevel *zl, const char *name)
{
    pcd_win *w = &zl->w;
    if (w->eof) return PCD_OK;
    if (w->pos > 0) {
        memmove(w->buf, w->buf + w->pos, w->hi - w->pos);
        w->base += w->pos;
        w->hi -= w->pos;
        w->pos = 0;
    }
    if (w->hi == w->cap) {
        size_t ncap = w->cap * 2;
        uint8_t *nb = pcd_alloc_resize(r->al, w->buf, w->cap, ncap);
        if (!nb)
            return rfail(r, PCD_E_NOMEM, w->base + w->hi, name,
                         "a record that fits in the memory limit (raise --max-memory)",
                         PCD_FOUND_UINT, w->cap);
        w->buf = nb;
        w->cap = ncap;
    }
    size_t got = 0;
    pcd_status st = pcd_zstd_reader_read(&zl->z, w->buf + w->hi, w->cap - w->hi, &got, &r->x.err, name);
    if (st == PCD_END) {
        w->eof = true;
        return PCD_OK;
    }
    if (st != PCD_OK) return st;
    w->hi += got;
    return PCD_OK;
}

static pcd_win *file_win(pcd_reader *r) { return (pcd_win *)r->win; }

static pcd_win *level_win(pcd_reader *r, uint32_t d)
{
    for (int i = (int)d; i >= 1; i--)
        if (r->lv[i - 1].compression) return &((pcd_zlevel *)r->lv[i - 1].zl)->w;
    return file_win(r);
}

static pcd_status fill(pcd_reader *r, uint32_t d)
{
    for (int i = (int)d; i >= 1; i--) {
        if (r->lv[i - 1].compression)
            return zwin_fill(r, (pcd_zlevel *)r->lv[i - 1].zl, r->lv[i - 1].rd->name);
    }
    if (r->whole) {
        file_win(r)->eof = true;
        return PCD_OK;
    }
    return win_fill(r, file_win(r));
}

/* fill where nothing of the record at hand was consumed: the read callback may answer
 * PCD_WOULD_BLOCK, returned as it is (not under a compressed level, whose decompressor has
 * taken its input already). */
static pcd_status fill_resumable(pcd_reader *r, uint32_t d)
{
    for (int i = (int)d; i >= 1; i--)
        if (r->lv[i - 1].compression) return fill(r, d);
    r->suspendable = true;
    pcd_status st = fill(r, d);
    r->suspendable = false;
    return st;
}

/* ---- open / close ----------------------------------------------------- */

static size_t max_record_size(const pcd_format *f)
{
    size_t m = f->root_size;
    for (uint32_t i = 0; i < f->n_regions; i++)
        if (f->regions[i]->record_size > m) m = f->regions[i]->record_size;
    return m;
}

static void zlevel_free(pcd_alloc *al, pcd_zlevel *zl)
{
    pcd_zstd_reader_free(&zl->z);
    pcd_alloc_free(al, zl->w.buf, zl->w.cap);
    pcd_alloc_free(al, zl, sizeof *zl);
}

void pcd_reader_keep_free(pcd_reader_keep *k)
{
    if (k->zl) zlevel_free(k->al, k->zl);
    k->zl = NULL;
}

/* At the end of an open that succeeded: what the last reader left (pcd_reader_opts.keep), taken
 * when it came from this allocator. */
static void take_keep(pcd_reader *r)
{
    if (!r->keep || !r->keep->zl) return;
    if (r->keep->al != r->al) {
        pcd_reader_keep_free(r->keep);
        return;
    }
    r->spare_zl = r->keep->zl;
    r->keep->zl = NULL;
}

static pcd_status common_open(pcd_reader *r, const pcd_format *f, const pcd_reader_opts *o)
{
    memset(r, 0, sizeof *r);
    if (!o || !o->al || !f) return PCD_E_ARG;
    r->f = f;
    r->al = o->al;
    r->validate_only = o->validate_only;
    r->threads = o->threads;
    r->release = o->release;
    r->release_ud = o->release_ud;
    r->keep = o->keep;
    pcd_arena_init(&r->arena, NULL, 0, r->al, 0);
    pcd_ctx_init(&r->x, &r->arena);
    r->x.spans = o->spans;
    r->x.count_only = o->count_only;
    if (o->lim) r->x.lim = o->lim;
    r->x.version = f->version_num;
    r->rec_cap = max_record_size(f);
    r->rec = pcd_alloc_get(r->al, r->rec_cap + f->root_size);
    pcd_win *w = pcd_alloc_get(r->al, sizeof(pcd_win));
    if (!r->rec || !w) return PCD_E_NOMEM;
    memset(w, 0, sizeof *w);
    r->win = (uint8_t *)w;
    return PCD_OK;
}

pcd_status pcd_reader_open(pcd_reader *r, const pcd_format *f, pcd_read_fn read, void *ud,
                           const pcd_reader_opts *o)
{
    PCD_TRY(common_open(r, f, o));
    r->read = read;
    r->ud = ud;
    pcd_win *w = file_win(r);
    w->cap = o->window ? o->window : (size_t)1 << 20;
    w->buf = pcd_alloc_get(r->al, w->cap);
    w->owned = true;
    if (!w->buf) return PCD_E_NOMEM;
    take_keep(r);
    return PCD_OK;
}

pcd_status pcd_reader_open_buffer(pcd_reader *r, const pcd_format *f, const uint8_t *data,
                                  size_t size, const pcd_reader_opts *o)
{
    PCD_TRY(common_open(r, f, o));
    pcd_win *w = file_win(r);
    w->buf = (uint8_t *)data;
    w->cap = w->hi = size;
    w->eof = true;
    r->whole = true;
    take_keep(r);
    return PCD_OK;
}

static void pop_level(pcd_reader *r)
{
    pcd_level *L = &r->lv[r->depth - 1];
    if (L->compression && L->zl) {
        pcd_zlevel *zl = L->zl;
        if (!r->spare_zl && zl->z.d && zl->w.buf) {
            r->spare_zl = zl;   /* kept for the next compressed region */
        } else {
            zlevel_free(r->al, zl);
        }
    }
    if (L->state) pcd_alloc_free(r->al, L->state, L->rd->state_size);
    memset(L, 0, sizeof *L);
    r->depth--;
}

void pcd_reader_close(pcd_reader *r)
{
    if (!r->f) return;
    while (r->depth) pop_level(r);
    if (r->spare_zl && r->keep && !r->keep->zl) {
        r->keep->zl = r->spare_zl;
        r->keep->al = r->al;
        r->spare_zl = NULL;
    }
    if (r->spare_zl) {
        zlevel_free(r->al, r->spare_zl);
        r->spare_zl = NULL;
    }
    pcd_win *w = file_win(r);
    if (w) {
        if (w->owned) pcd_alloc_free(r->al, w->buf, w->cap);
        pcd_alloc_free(r->al, w, sizeof *w);
    }
    pcd_alloc_free(r->al, r->rec, r->rec_cap + r->f->root_size);
    pcd_arena_free(&r->arena);
    r->f = NULL;
}

const pcd_error *pcd_reader_error(const pcd_reader *r) { return &r->x.err; }

const char *pcd_record_kind(const pcd_record *rec)
{
    const pcd_type *t = rec->type;
    if (t->is_union && rec->data) {
        uint32_t w = *(const uint32_t *)rec->data;
        if (w < t->n_fields) return t->fields[w].name;
    }
    return t->name;
}

void pcd_record_warnings(const pcd_record *rec, pcd_warn_fn warn, void *ud)
{
    if (rec->data && rec->type && rec->type->warn) rec->type->warn(rec->data, rec->offset, rec->input_size, warn, ud);
}

const void *pcd_reader_root(const pcd_reader *r)
{
    return r->root_done ? r->rec + r->rec_cap : NULL;
}

/* ---- regions ------------------------------------------------------------ */

/* The size of the zstd frame a PCD_REGION_ZSTD_FRAME region is: its end is where the frame
 * ends, found by walking the frame's block headers (the data bounds the walk). */
static pcd_status frame_region_size(pcd_reader *r, const pcd_region_desc *rd, const pcd_region *reg,
                                    uint64_t *size)
{
    pcd_win *fw = file_win(r);
    if (!r->whole)
        return rfail(r, PCD_E_ARG, reg->offset, rd->name, "compressed regions only in whole-file reading",
                     PCD_FOUND_NONE, 0);
    uint64_t lim = fw->hi;
    for (int i = (int)r->depth - 1; i >= 0; i--) {
        if (r->lv[i].compression) break;
        if (r->lv[i].sized) {
            if (r->lv[i].end < lim) lim = r->lv[i].end;
            break;
        }
    }
    if (reg->offset > lim)
        return rfail(r, PCD_E_RANGE, reg->offset, rd->name, "a region that starts inside its parent",
                     PCD_FOUND_UINT, reg->offset);
    size_t n = 0;
    pcd_status st = pcd_zstd_frame_size(fw->buf + reg->offset, (size_t)(lim - reg->offset), &n);
    if (st == PCD_E_TRUNCATED)
        return rfail(r, st, reg->offset, rd->name, "a complete zstd frame", PCD_FOUND_END, lim - reg->offset);
    if (st != PCD_OK) {
        rfail(r, PCD_E_ZSTD, reg->offset, rd->name, "a zstd frame", PCD_FOUND_TEXT, 0);
        r->x.err.found_text = "bytes that are not one";
        return PCD_E_ZSTD;
    }
    *size = n;
    return PCD_OK;
}

static pcd_status push_level(pcd_reader *r, const pcd_region_desc *rd, const pcd_region *reg,
                             const void *parent)
{
    if (r->depth == PCD_READER_MAX_DEPTH)
        return rfail(r, PCD_E_LIMIT, reg->offset, rd->name, "regions nested at most 8 deep",
                     PCD_FOUND_NONE, 0);
    pcd_region framed;
    if (reg->compression == PCD_REGION_ZSTD_FRAME) {
        /* from here on it is a sized zstd region */
        framed = *reg;
        PCD_TRY(frame_region_size(r, rd, reg, &framed.size));
        framed.sized = true;
        framed.compression = 1;
        reg = &framed;
    }
    pcd_level *L = &r->lv[r->depth];
    memset(L, 0, sizeof *L);
    L->rd = rd;
    L->file_end = reg->sized ? reg->offset + reg->size : UINT64_MAX;
    /* an unsized region runs to the end of what encloses it */
    uint64_t end = UINT64_MAX;
    bool sized = false;
    for (int i = (int)r->depth - 1; i >= 0; i--) {
        if (r->lv[i].compression) break;
        if (r->lv[i].sized) { end = r->lv[i].end; sized = true; break; }
    }
    if (reg->sized) {
        if (reg->offset + reg->size < reg->offset || (sized && reg->offset + reg->size > end))
            return rfail(r, PCD_E_RANGE, reg->offset, rd->name, "a region inside its parent",
                         PCD_FOUND_UINT, reg->size);
        end = reg->offset + reg->size;
        sized = true;
    }
    L->end = end;
    L->sized = sized;
    L->counted = reg->counted;
    L->limit = reg->count;
    if (reg->counted && rd->record_min && reg->compression != 1 && (sized || r->whole)) {
        /* a count read from the input must fit in the bytes its records can have */
        uint64_t lim = sized ? end : file_win(r)->hi;
        uint64_t room = lim > reg->offset ? lim - reg->offset : 0;
        /* (a region that starts past the end is reported as such below) */
        if (reg->offset <= lim && reg->count > room / rd->record_min)
            return rfail(r, PCD_E_TRUNCATED, reg->offset, rd->name, "a record count that fits in the data left",
                         PCD_FOUND_UINT, reg->count);
    }
    if (rd->state_size) {
        L->state = pcd_alloc_get(r->al, rd->state_size);
        if (!L->state) return rfail(r, PCD_E_NOMEM, reg->offset, rd->name, "memory within the limit (raise --max-memory)", PCD_FOUND_NONE, 0);
        memset(L->state, 0, rd->state_size);
        if (rd->state_init) rd->state_init(L->state, parent, &r->x);
    }
    r->depth++;
    if (reg->compression == 1) {
        if (!r->whole || !reg->sized)
            return rfail(r, PCD_E_ARG, reg->offset, rd->name,
                         "compressed regions only in whole-file reading", PCD_FOUND_NONE, 0);
        pcd_zlevel *zl = r->spare_zl;
        if (zl) {
            /* the last compressed region's context and window */
            r->spare_zl = NULL;
            pcd_zstd_reader_reset(&zl->z, r->x.lim->max_inflate);
            pcd_zstd_reader_allow_thread(&zl->z, r->threads);
            uint8_t *buf = zl->w.buf;
            size_t cap = zl->w.cap;
            memset(&zl->w, 0, sizeof zl->w);
            zl->w.buf = buf;
            zl->w.cap = cap;
            L->zl = zl;
            L->compression = 1;
        } else {
            zl = pcd_alloc_get(r->al, sizeof *zl);
            if (!zl) return rfail(r, PCD_E_NOMEM, reg->offset, rd->name, "memory within the limit (raise --max-memory)", PCD_FOUND_NONE, 0);
            memset(zl, 0, sizeof *zl);
            L->zl = zl;
            L->compression = 1;
            if (pcd_zstd_reader_init(&zl->z, r->al, r->x.lim->max_inflate) != PCD_OK)
                return rfail(r, PCD_E_NOMEM, reg->offset, rd->name, "memory for zstd within the limit (raise --max-memory)", PCD_FOUND_NONE, 0);
            pcd_zstd_reader_allow_thread(&zl->z, r->threads);
            zl->w.cap = (size_t)1 << 18;
            zl->w.buf = pcd_alloc_get(r->al, zl->w.cap);
            if (!zl->w.buf) return rfail(r, PCD_E_NOMEM, reg->offset, rd->name, "memory within the limit (raise --max-memory)", PCD_FOUND_NONE, 0);
        }
        pcd_win *fw = file_win(r);
        if (reg->offset > fw->hi || reg->size > fw->hi - reg->offset)
            return rfail(r, PCD_E_TRUNCATED, reg->offset, rd->name, "the compressed region inside the file",
                         PCD_FOUND_UINT, reg->size);
        pcd_zstd_reader_feed(&zl->z, fw->buf + reg->offset, (size_t)reg->size, reg->offset, true);
        L->end = UINT64_MAX;
        L->sized = false;
        L->file_end = reg->offset + reg->size;
    } else if (r->whole) {
        pcd_win *fw = file_win(r);
        if (reg->offset > fw->hi)
            return rfail(r, PCD_E_RANGE, reg->offset, rd->name, "a region that starts inside the file",
                         PCD_FOUND_UINT, reg->offset);
        fw->pos = (size_t)reg->offset;
    }
    return PCD_OK;
}

/* Opens the regions of a record that was just decoded (in field order; the
 * first one now, the next ones when it ends). */
static pcd_status open_regions(pcd_reader *r, const pcd_type *t, const void *data, uint32_t from)
{
    if (!data) return PCD_OK;
    if (t->is_union) {
        /* a case that is a struct of its own may open regions */
        uint32_t which = *(const uint32_t *)data;
        if (which >= t->n_fields) return PCD_OK;
        const pcd_field *cf = &t->fields[which];
        if (cf->kind != PCD_K_STRUCT || !cf->type || cf->type->is_union) return PCD_OK;
        return open_regions(r, cf->type, (const uint8_t *)data + cf->offset, from);
    }
    for (uint32_t i = from; i < t->n_fields; i++) {
        const pcd_field *fd = &t->fields[i];
        if (fd->kind != PCD_K_REGION) continue;
        const pcd_region *reg = (const pcd_region *)((const uint8_t *)data + fd->offset);
        if (reg->absent) continue; /* a conditional region that is not there */
        return push_level(r, fd->region, reg, data);
    }
    return PCD_OK;
}

static pcd_status seek_to(pcd_reader *r, uint32_t d, uint64_t to);

/* ---- decoding ------------------------------------------------------------ */

static pcd_status decode_in(pcd_reader *r, uint32_t d, pcd_decode_fn dec, pcd_validate_fn val,
                            void *out, void *state, size_t state_size, uint64_t *off, size_t *used)
{
    uint8_t saved[256];
    if (state_size > sizeof saved) state_size = 0; /* large states are not restored */
    for (;;) {
        pcd_win *w = level_win(r, d);
        size_t end = w->hi;
        bool hard = w->eof;
        if (d > 0 && r->lv[d - 1].sized) {
            uint64_t le = r->lv[d - 1].end;
            if (le < w->base + w->pos)
                return rfail(r, PCD_E_INTERNAL, le, NULL, "position inside region", PCD_FOUND_NONE, 0);
            if (le - w->base <= w->hi) {
                end = (size_t)(le - w->base);
                hard = true;
            }
        }
        if (d > 0 && r->lv[d - 1].rd->batch_bytes) {
            /* a batch: the next batch_bytes, or what is left at the end */
            size_t bb = r->lv[d - 1].rd->batch_bytes;
            if (end - w->pos >= bb) {
                end = w->pos + bb;
                hard = true;
            } else if (!hard) {
                PCD_TRY(fill_resumable(r, d));
                continue;
            }
        }
        pcd_cursor c = pcd_cursor_make(&r->x, w->buf + w->pos, end - w->pos, w->base + w->pos, hard);
        if (d == 0) {
            /* the root sees the whole input, for fields a header or footer locates */
            r->x.win_start = w->buf;
            r->x.win_base = w->base;
            r->x.win_end = w->buf + w->hi;
            r->x.win_closed = w->eof;
        }
        r->x.state = state;
        if (state_size) memcpy(saved, state, state_size);
        if (r->arena.used) pcd_arena_reset(&r->arena);
        if (r->x.spans) pcd_spans_reset(r->x.spans);
        pcd_status st = val ? val(&c) : dec(&c, out);
        if (st == PCD_OK) {
            *off = w->base + w->pos;
            *used = (size_t)(c.p - (w->buf + w->pos));
            w->pos += *used;
            return PCD_OK;
        }
        if (state_size) memcpy(state, saved, state_size);
        if (st != PCD_SHORT_READ) {
            if (d > 0 && r->lv[d - 1].compression) {
                r->x.err.region = r->lv[d - 1].rd->name;
                r->x.err.region_offset = ((pcd_zlevel *)r->lv[d - 1].zl)->z.in_base;
            }
            return st;
        }
        if (hard)
            return rfail(r, PCD_E_INTERNAL, w->base + w->pos, NULL, "no short read at a hard end",
                         PCD_FOUND_NONE, 0);
        PCD_TRY(fill_resumable(r, d));
    }
}

/* True when level d has no bytes (or no records) left. */
static pcd_status at_end(pcd_reader *r, uint32_t d, bool *end)
{
    if (d > 0 && r->lv[d - 1].counted && r->lv[d - 1].count >= r->lv[d - 1].limit) {
        *end = true;
        return PCD_OK;
    }
    for (;;) {
        pcd_win *w = level_win(r, d);
        uint64_t pos = w->base + w->pos;
        if (d > 0 && r->lv[d - 1].sized) {
            *end = pos >= r->lv[d - 1].end;
            return PCD_OK;
        }
        if (w->pos < w->hi) {
            *end = false;
            return PCD_OK;
        }
        if (w->eof) {
            *end = true;
            return PCD_OK;
        }
        PCD_TRY(fill_resumable(r, d));
    }
}

/* Closes the innermost level and moves to what follows it: the root's next region, or
 * the end of the region in its parent's stream. */
static pcd_status close_level(pcd_reader *r)
{
    pcd_level *L = &r->lv[r->depth - 1];
    const pcd_region_desc *rd = L->rd;
    uint64_t resume = L->file_end;
    pcd_status st = PCD_OK;
    uint32_t depth = r->depth;
    pop_level(r);
    if (r->n_closed < PCD_READER_MAX_DEPTH) {
        /* where it ended in its parent's stream (explain: pcd_reader_closed) */
        const pcd_win *pw = level_win(r, r->depth);
        r->closed[r->n_closed].depth = depth;
        r->closed[r->n_closed++].end = resume != UINT64_MAX ? resume : pw->base + pw->pos;
    }
    if (r->depth == 0 && r->whole) {
        /* the root may have further regions */
        const pcd_type *t = r->f->root;
        uint32_t k = 0;
        for (; k < t->n_fields; k++)
            if (t->fields[k].kind == PCD_K_REGION && t->fields[k].region == rd) break;
        st = open_regions(r, t, r->rec + r->rec_cap, k + 1);
    } else if (r->depth > 0 && resume != UINT64_MAX) {
        pcd_win *w = level_win(r, r->depth);
        if (resume >= w->base + w->pos) st = seek_to(r, r->depth, resume);
    }
    if (st != PCD_OK) r->failed = true;
    return st;
}

pcd_status pcd_reader_skip_region(pcd_reader *r)
{
    if (r->failed) return r->x.err.status;
    if (r->done || r->depth == 0) return PCD_E_ARG;
    pcd_level *L = &r->lv[r->depth - 1];
    if (L->file_end == UINT64_MAX && !(r->depth == 1 && r->whole)) {
        /* an unsized region: only reading it finds its end */
        return PCD_E_ARG;
    }
    return close_level(r);
}

bool pcd_reader_input(const pcd_reader *r, const uint8_t **data, size_t *size)
{
    if (!r->whole) return false;
    const pcd_win *w = (const pcd_win *)r->win;
    *data = w->buf;
    *size = w->hi;
    return true;
}

bool pcd_reader_stream(const pcd_reader *r, uint32_t depth, const uint8_t **p, uint64_t *base, size_t *n)
{
    if (depth > r->depth || !r->win) return false;
    const pcd_win *w = level_win((pcd_reader *)r, depth);
    if (!w || !w->buf) return false;
    *p = w->buf;
    *base = w->base;
    *n = w->hi;
    return true;
}

bool pcd_reader_failed_record(const pcd_reader *r, pcd_record *rec)
{
    if (!r->failed) return false;
    uint32_t d = r->fail_depth;
    memset(rec, 0, sizeof *rec);
    if (d == 0) {
        if (r->root_done) return false;
        rec->type = r->f->root;
        rec->data = r->rec + r->rec_cap;
        rec->offset = 0;
    } else {
        if (d > r->depth) return false;
        const pcd_region_desc *rd = r->lv[d - 1].rd;
        rec->type = rd->record;
        rec->data = r->rec;
        rec->region = rd;
        rec->offset = r->fail_offset;
        rec->depth = d;
        for (uint32_t i = 0; i < d; i++) rec->decompressed = rec->decompressed || r->lv[i].compression;
    }
    rec->big = r->x.big;
    return true;
}

size_t pcd_reader_closed(const pcd_reader *r, uint32_t *depths, uint64_t *ends, size_t max)
{
    size_t n = 0;
    for (; n < r->n_closed && n < max; n++) {
        depths[n] = r->closed[n].depth;
        ends[n] = r->closed[n].end;
    }
    return n;
}

/* Whole-buffer readers: tells the release hook how far the input has been read, every
 * RELEASE_STEP bytes: the file window's position, or, inside a compressed region, how much of
 * its compressed bytes the zstd reader (or its helper) has taken. */
#define RELEASE_STEP ((uint64_t)8 << 20)
static void release_behind(pcd_reader *r)
{
    if (!r->release || !r->whole) return;
    uint64_t at = file_win(r)->pos;
    for (uint32_t i = 0; i < r->depth; i++) {
        pcd_level *L = &r->lv[i];
        if (L->compression && L->zl) {
            pcd_zlevel *zl = L->zl;
            at = zl->z.in_base + pcd_zstd_reader_taken(&zl->z);
            break;
        }
    }
    if (at >= r->released + RELEASE_STEP) {
        r->release(r->release_ud, at);
        r->released = at;
    }
}

/* (inlined into pcd_reader_next, its one caller: a call per record cost MoarVM 2's validate
 * 1.5 % of its instructions) */
PCD_INLINE pcd_status next_record(pcd_reader *r, pcd_record *rec);

pcd_status pcd_reader_next(pcd_reader *r, pcd_record *rec)
{
    pcd_status st = next_record(r, rec);
    if (PCD_UNLIKELY(r->release != NULL) && (r->records & 1023) == 0) release_behind(r);
    return st;
}

PCD_INLINE pcd_status next_record(pcd_reader *r, pcd_record *rec)
{
    r->n_closed = 0;
    if (r->failed) return r->x.err.status;
    if (r->done) return PCD_END;
    uint8_t *root = r->rec + r->rec_cap;
    if (!r->root_done) {
        uint64_t off;
        size_t used;
        pcd_decode_fn rdec = r->x.spans && r->f->root_explain ? r->f->root_explain : r->f->root_decode;
        pcd_status st = decode_in(r, 0, rdec, NULL, root, NULL, 0, &off, &used);
        if (st == PCD_WOULD_BLOCK) return st;
        if (st != PCD_OK) {
            r->failed = true;
            r->fail_depth = 0;
            r->fail_offset = 0;
            return st;
        }
        r->root_done = true;
        r->x.root = root;
        *rec = (pcd_record){ r->f->root, root, NULL, off, used, 0, 0, false, r->x.big,
                             r->whole ? file_win(r)->hi : 0 };
        r->records++;
        st = open_regions(r, r->f->root, root, 0);
        if (st != PCD_OK) {
            r->failed = true;
            return st;
        }
        return PCD_OK;
    }
    for (;;) {
        if (r->depth == 0) {
            r->done = true;
            return PCD_END;
        }
        pcd_level *L = &r->lv[r->depth - 1];
        bool end;
        pcd_status st = at_end(r, r->depth, &end);
        if (st == PCD_WOULD_BLOCK) return st;
        if (st != PCD_OK) {
            r->failed = true;
            r->fail_depth = r->depth;
            return st;
        }
        if (end) {
            st = close_level(r);
            if (st != PCD_OK) return st;
            continue;
        }
        const pcd_region_desc *rd = L->rd;
        bool val = r->validate_only && rd->validate;
        uint64_t off;
        size_t used;
        st = decode_in(r, r->depth, r->x.spans && rd->explain ? rd->explain : rd->decode, val ? rd->validate : NULL,
                       r->rec, L->state, rd->state_size, &off, &used);
        if (st == PCD_WOULD_BLOCK) return st;
        if (st != PCD_OK) {
            r->failed = true;
            r->fail_depth = r->depth;
            pcd_win *w = level_win(r, r->depth);
            r->fail_offset = w->base + w->pos;
            return st;
        }
        bool dz = false;
        for (uint32_t i = 0; i < r->depth; i++) dz = dz || r->lv[i].compression;
        *rec = (pcd_record){ rd->record, val ? NULL : r->rec, rd, off, used, r->depth, L->count++, dz, r->x.big,
                             r->whole ? file_win(r)->hi : 0 };
        r->records++;
        if (!val && !rd->validate) {
            /* (records that open regions have no validate function) */
            st = open_regions(r, rd->record, r->rec, 0);
            if (st != PCD_OK) {
                r->failed = true;
                r->fail_depth = r->depth;
                r->fail_offset = off;
                return st;
            }
        }
        return PCD_OK;
    }
}

/* ---- recovery ------------------------------------------------------------ */

/* Moves level d's window to absolute offset `to`, reading and dropping bytes. */
static pcd_status seek_to(pcd_reader *r, uint32_t d, uint64_t to)
{
    for (;;) {
        pcd_win *w = level_win(r, d);
        if (to <= w->base + w->hi) {
            w->pos = (size_t)(to - w->base);
            return PCD_OK;
        }
        w->pos = w->hi;
        if (w->eof) return PCD_OK;
        PCD_TRY(fill(r, d));
    }
}

static uint64_t load_size(const uint8_t *p, unsigned width, bool big)
{
    switch (width) {
    case 1: return p[0];
    case 2: return big ? pcd_ld_u16be(p) : pcd_ld_u16le(p);
    case 4: return big ? pcd_ld_u32be(p) : pcd_ld_u32le(p);
    default: return big ? pcd_ld_u64be(p) : pcd_ld_u64le(p);
    }
}

/* Makes [at, at+len) of level d's stream available in its window (without dropping
 * anything from the current position on). False at the end of the data. */
static bool ensure(pcd_reader *r, uint32_t d, uint64_t at, size_t len)
{
    for (;;) {
        pcd_win *w = level_win(r, d);
        if (at + len <= w->base + w->hi) return true;
        if (w->eof) return false;
        if (fill(r, d) != PCD_OK) return false;
    }
}

static bool sync_at(pcd_reader *r, uint32_t d, const pcd_region_desc *rd, uint64_t at)
{
    for (size_t k = 0; rd->sync[k]; k++) {
        size_t n = rd->sync_len[k];
        if (!ensure(r, d, at, n)) continue;
        pcd_win *w = level_win(r, d);
        if (at >= w->base && memcmp(w->buf + (at - w->base), rd->sync[k], n) == 0) return true;
    }
    return false;
}

/* The furthest a size field is trusted without a magic to confirm where it lands. */
#define PCD_RECOVER_READAHEAD ((uint64_t)64 << 20)

pcd_status pcd_reader_recover(pcd_reader *r, uint64_t *resume_offset)
{
    if (!r->failed) return PCD_E_ARG;
    pcd_status err = r->x.err.status;
    uint32_t d = r->fail_depth;
    if (d == 0 || d > r->depth || err == PCD_E_NOMEM || err == PCD_E_IO || err == PCD_E_INTERNAL)
        return err;
    /* keep the original error for the caller; recovery works on copies */
    pcd_error keep = r->x.err;
    pcd_level *L = &r->lv[d - 1];
    const pcd_region_desc *rd = L->rd;
    uint64_t start = r->fail_offset;
    uint64_t lend = L->sized ? L->end : UINT64_MAX;
    /* nested levels opened by the failed record are gone with it */
    while (r->depth > d) pop_level(r);
    uint64_t target = UINT64_MAX;
    bool starts_synced = !rd->sync || sync_at(r, d, rd, start);

    if (rd->size_off >= 0 && starts_synced) {
        /* 1. the record's own size field, when it is sane and lands on a record */
        uint64_t at = start + (uint64_t)rd->size_off;
        if (ensure(r, d, at, rd->size_width)) {
            pcd_win *w = level_win(r, d);
            bool big = rd->size_native ? r->x.big : rd->size_big;
            uint64_t sz = load_size(w->buf + (at - w->base), rd->size_width, big) + rd->size_add;
            uint64_t t = start + sz;
            bool sane = sz >= rd->size_min && sz > 0 && t > start && t <= lend &&
                        (r->whole || sz <= PCD_RECOVER_READAHEAD);
            if (sane) {
                bool at_end = t == lend || !ensure(r, d, t, 1);
                if (at_end) {
                    /* it lands exactly on the end of the data */
                    pcd_win *w2 = level_win(r, d);
                    sane = t == lend || (w2->eof && t == w2->base + w2->hi);
                } else if (rd->sync) {
                    sane = sync_at(r, d, rd, t);
                }
            }
            if (sane) target = t;
        }
    }
    if (target == UINT64_MAX && rd->sync) {
        /* 2. scan for the next magic */
        uint64_t from = start + 1;
        for (;;) {
            pcd_win *w = level_win(r, d);
            uint64_t lim = w->base + w->hi;
            if (lim > lend) lim = lend;
            uint64_t found = UINT64_MAX;
            for (uint64_t q = from; q < lim && found == UINT64_MAX; q++) {
                for (size_t k = 0; rd->sync[k]; k++) {
                    size_t n = rd->sync_len[k];
                    if (q + n <= lim && memcmp(w->buf + (q - w->base), rd->sync[k], n) == 0) {
                        found = q;
                        break;
                    }
                }
            }
            if (found != UINT64_MAX) {
                target = found;
                break;
            }
            if (w->eof || w->base + w->hi >= lend) {
                target = L->sized ? lend : w->base + w->hi;
                break;
            }
            /* keep the last few bytes: a magic may straddle the refill */
            from = lim > 15 ? lim - 15 : 0;
            if (from <= start) from = start + 1;
            if (from > w->base + w->hi) from = w->base + w->hi;
            w->pos = (size_t)(from - w->base);
            if (fill(r, d) != PCD_OK) break;
        }
    }
    if (target == UINT64_MAX && L->sized) target = lend;   /* 3. drop the rest of the region */
    if (target == UINT64_MAX && L->compression && L->file_end != UINT64_MAX) {
        /* 3'. the same for a compressed region: its decoded data ends here; the parent
         * goes on after the compressed bytes when the level closes */
        pcd_zlevel *zl = L->zl;
        zl->w.pos = zl->w.hi;
        zl->w.eof = true;
        r->x.err = keep;
        r->failed = false;
        if (resume_offset) *resume_offset = L->file_end;
        return PCD_OK;
    }
    if (target == UINT64_MAX) {
        r->x.err = keep;
        return err;
    }
    pcd_status st = seek_to(r, d, target);
    r->x.err = keep;
    if (st != PCD_OK) return err;
    {
        /* a sized region that runs past the end of the data ends where the data does */
        pcd_win *w = level_win(r, d);
        uint64_t at = w->base + w->pos;
        if (at < target && w->eof && w->pos == w->hi) {
            if (L->sized && L->end > at) L->end = at;
            target = at;
        }
    }
    /* a region that runs past the end of the input: nothing follows it to resume at */
    pcd_win *tw = level_win(r, d);
    if (tw->base + tw->pos < target) return err;
    r->skipped_bytes += target - start;
    r->failed = false;
    if (resume_offset) *resume_offset = target;
    return PCD_OK;
}

/* ---- validation fast path ---------------------------------------------------- */

/* Refills level d's window for a fast path; a failure (damaged compressed data, a read
 * error) is recorded as next() records it, so that recovery sees the same state. */
static pcd_status run_fill(pcd_reader *r)
{
    pcd_status st = fill_resumable(r, r->depth);
    if (st != PCD_OK && st != PCD_WOULD_BLOCK) {
        pcd_win *w = level_win(r, r->depth);
        r->failed = true;
        r->fail_depth = r->depth;
        r->fail_offset = w->base + w->pos;
    }
    return st;
}

static pcd_status validate_run(pcd_reader *r, uint64_t max, uint64_t *n);

pcd_status pcd_reader_validate_run(pcd_reader *r, uint64_t max, uint64_t *n)
{
    pcd_status st = validate_run(r, max, n);
    if (PCD_UNLIKELY(r->release != NULL)) release_behind(r);
    return st;
}

static pcd_status validate_run(pcd_reader *r, uint64_t max, uint64_t *n)
{
    *n = 0;
    if (r->failed) return r->x.err.status;
    if (r->done) return PCD_END;
    while (*n < max) {
        /* only plain levels: records that open no regions, no compression (validators do
         * not run stream state on; they see the level's initial state, as in next()) */
        if (!r->root_done || r->depth == 0) break;
        pcd_level *L = &r->lv[r->depth - 1];
        const pcd_region_desc *rd = L->rd;
        if (!rd->validate || L->compression || L->counted || rd->batch_bytes) break;
        pcd_win *w = level_win(r, r->depth);
        size_t end = w->hi;
        bool hard = w->eof;
        if (L->sized && L->end - w->base <= w->hi) {
            end = (size_t)(L->end - w->base);
            hard = true;
        }
        r->x.win_start = w->buf + w->pos;
        r->x.win_base = w->base + w->pos;
        r->x.state = L->state;
        pcd_cursor c = { w->buf + w->pos, w->buf + end, &r->x, hard };
        pcd_status st = PCD_OK;
        const uint8_t *start = c.p;
        uint64_t k = *n;
        if (rd->validate_run) {
            k += rd->validate_run(&c, max - k, &st, &start);
        } else {
            pcd_validate_fn val = rd->validate;
            while (c.p < c.end && k < max) {
                start = c.p;
                st = val(&c);
                if (PCD_UNLIKELY(st != PCD_OK)) break;
                k++;
            }
        }
        L->count += k - *n;
        r->records += k - *n;
        *n = k;
        w->pos = (size_t)((st == PCD_OK ? c.p : start) - w->buf);
        if (st == PCD_SHORT_READ) {
            PCD_TRY(run_fill(r));
            continue;
        }
        if (st != PCD_OK) {
            r->failed = true;
            r->fail_depth = r->depth;
            r->fail_offset = w->base + w->pos;
            return st;
        }
        if (c.p == c.end) {
            /* the window or the region is used up: let next() refill or close it */
            if (!hard) {
                PCD_TRY(run_fill(r));
                continue;
            }
            break;
        }
    }
    return PCD_OK;
}

/* ---- decoding fast path ---------------------------------------------------------- */

static pcd_status decode_run(pcd_reader *r, uint64_t max, uint64_t *n, pcd_record_fn fn, void *ud);

/* Can a run start here: a batch decoder for the region the reader is in? (Where it cannot, a
 * caller that asks before each record, as validate does, gets its answer before the run's setup:
 * MoarVM 2's refs, in counted regions, asked 252 k times for 0 records, at 71 instructions each.) */
static inline bool run_starts(const pcd_reader *r, uint64_t max)
{
    if (r->failed || r->done || r->validate_only || max == 0 || !r->root_done || r->depth == 0) return false;
    const pcd_level *L = &r->lv[r->depth - 1];
    return L->rd->decode_run && !L->counted && !L->rd->batch_bytes;
}

pcd_status pcd_reader_decode_run(pcd_reader *r, uint64_t max, uint64_t *n, pcd_record_fn fn, void *ud)
{
    if (!run_starts(r, max)) {
        *n = 0;
        return r->failed ? r->x.err.status : r->done ? PCD_END : PCD_OK;
    }
    pcd_status st = decode_run(r, max, n, fn, ud);
    if (PCD_UNLIKELY(r->release != NULL)) release_behind(r);
    return st;
}

static pcd_status decode_run(pcd_reader *r, uint64_t max, uint64_t *n, pcd_record_fn fn, void *ud)
{
    *n = 0;
    if (r->failed) return r->x.err.status;
    if (r->done) return PCD_END;
    if (r->validate_only) return PCD_OK;
    while (*n < max) {
        if (!r->root_done || r->depth == 0) break;
        pcd_level *L = &r->lv[r->depth - 1];
        const pcd_region_desc *rd = L->rd;
        if (!rd->decode_run || L->counted || rd->batch_bytes) break;
        pcd_win *w = level_win(r, r->depth);
        size_t end = w->hi;
        bool hard = w->eof;
        if (L->sized && L->end - w->base <= w->hi) {
            end = (size_t)(L->end - w->base);
            hard = true;
        }
        r->x.win_start = w->buf + w->pos;
        r->x.win_base = w->base + w->pos;
        r->x.win_end = w->buf + w->hi;
        r->x.win_closed = w->eof;
        r->x.state = L->state; /* stream state moves on as in next() (the run restores it on failure) */
        if (r->arena.used) pcd_arena_reset(&r->arena);
        pcd_cursor c = { w->buf + w->pos, w->buf + end, &r->x, hard };
        pcd_status st = PCD_OK;
        const uint8_t *start = c.p;
        bool dz = false;
        for (uint32_t i = 0; i < r->depth; i++) dz = dz || r->lv[i].compression;
        pcd_record rec = { rd->record, r->rec, rd, 0, 0, r->depth, L->count, dz, r->x.big,
                           r->whole ? file_win(r)->hi : 0 };
        uint64_t k = rd->decode_run(&c, max - *n, &st, &start, &rec, fn, ud);
        L->count += k;
        r->records += k;
        *n += k;
        if (st != PCD_OK && !start) {
            /* fn stopped the run after a record that decoded: not damage */
            w->pos = (size_t)(c.p - w->buf);
            return st;
        }
        w->pos = (size_t)((st == PCD_OK ? c.p : start) - w->buf);
        if (st == PCD_OK) {
            if (c.p == c.end) {
                /* the window or the region is used up: let next() refill or close it */
                if (!hard) {
                    PCD_TRY(run_fill(r));
                    continue;
                }
                break;
            }
            continue;
        }
        if (st == PCD_SHORT_READ) {
            PCD_TRY(run_fill(r));
            continue;
        }
        if (L->compression) {
            /* as decode_in says where decompressed data came from */
            r->x.err.region = rd->name;
            r->x.err.region_offset = ((pcd_zlevel *)L->zl)->z.in_base;
        }
        r->failed = true;
        r->fail_depth = r->depth;
        r->fail_offset = w->base + w->pos;
        return st;
    }
    return PCD_OK;
}
