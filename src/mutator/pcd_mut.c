/* pcd_mut.c: the mutator engine: sessions, loading a file into records (through gzip),
 * encoding them again with the stream writer, mutating, crossover, the seed-less
 * generator, structural shrinking. The kinds themselves are at the end of this file, the
 * walks over descriptors in pcd_mut_walk.c; each schema's part is generated
 * (generated/<fmt>_v<N>_mut.c). */
#include "pcd_mut_int.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char *const kind_names[PCD_MUT_N_KINDS] = {
    "int_near", "int_boundary", "int_evil", "tag", "str_length", "str_copy", "str_nul", "str_utf8",
    "array_insert", "array_delete", "array_dup", "rec_insert", "rec_delete", "rec_dup", "rec_swap",
    "rec_splice", "ref_real", "ref_stale", "ref_missing", "key_redefine", "inner_bytes", "gzip_drop",
    "rec_shrink", "pb_wire", "layer_size",
    "layer_truncate", "layer_zstd", "layer_gzip", "layer_trailing",
};

const uint8_t pcd_mut_zeros[4096];

/* centry.off: no bytes kept for the record (encoded as usual); its bytes still to be made */
#define NO_BYTES UINT32_MAX
#define TO_ENCODE (UINT32_MAX - 1)

const char *pcd_mut_kind_name(pcd_mut_kind k) { return (unsigned)k < PCD_MUT_N_KINDS ? kind_names[k] : "?"; }

bool pcd_mut_kind_layer(pcd_mut_kind k) { return k >= PCD_MUT_LAYER_SIZE && k < PCD_MUT_N_KINDS; }

bool pcd_mut_kind_keeps(pcd_mut_kind k)
{
    switch (k) {
    case PCD_MUT_INT_EVIL: case PCD_MUT_STR_NUL: case PCD_MUT_STR_UTF8: case PCD_MUT_REF_STALE:
    case PCD_MUT_REF_MISSING: case PCD_MUT_KEY_REDEFINE: case PCD_MUT_INNER_BYTES:
        return false;
    default:
        return !pcd_mut_kind_layer(k) && (unsigned)k < PCD_MUT_N_KINDS;
    }
}

void pcd_mut_opts_default(pcd_mut_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->evil = true;
    o->layer_break = 0.03;
    o->max_stack = 3;
    o->max_output = (size_t)1 << 20;
    /* every kind but rec_shrink: at equal CPU time it gained no coverage on pprof (0.98 x with
     * and without, bench/RESULTS.md) and its reference walks cost pprof about a tenth of its
     * mutations/s; a caller asks for it with kinds (pcd_mut_apply takes it always) */
    o->kinds = (((uint64_t)1 << PCD_MUT_N_KINDS) - 1) & ~((uint64_t)1 << PCD_MUT_REC_SHRINK);
}

/* ---- schemas ---- */

const pcd_format *pcd_mutator_format(const pcd_mutator *mu) { return mu->format; }
const char *pcd_mutator_name(const pcd_mutator *mu) { return mu->name; }

const pcd_mutator *pcd_mutator_find(const char *name, const char *version)
{
    char nm[64], ver[32];
    const char *sep = strchr(name, ':');
    if (!sep) sep = strstr(name, "_v");
    if (sep && !version) {
        size_t k = (size_t)(sep - name);
        if (k >= sizeof nm) return NULL;
        memcpy(nm, name, k);
        nm[k] = 0;
        snprintf(ver, sizeof ver, "%s", sep + (*sep == ':' ? 1 : 2));
        for (char *c = ver; *c; c++)
            if (*c == '_') *c = '.';   /* mono_v3_0 -> 3.0 */
        name = nm;
        version = ver;
    }
    const pcd_mutator *best = NULL;
    for (size_t i = 0; i < pcd_n_mutators; i++) {
        const pcd_format *f = pcd_mutators[i]->format;
        if (strcmp(f->name, name) != 0) continue;
        if (version && strcmp(f->version, version) != 0) continue;
        best = pcd_mutators[i];
    }
    return best;
}

static bool is_gzip(const uint8_t *p, size_t n) { return n >= 10 && p[0] == 0x1f && p[1] == 0x8b; }

static void *z_alloc(void *ud, unsigned items, unsigned size)
{
    return pcd_alloc_sized(ud, (size_t)items * size);
}
static void z_free(void *ud, void *p) { pcd_alloc_sized_free(ud, p); }

/* gunzip into *buf (grown through al, up to limit bytes). */
static pcd_status gunzip(pcd_alloc *al, const uint8_t *in, size_t n, uint8_t **buf, size_t *cap, size_t limit,
                         size_t *len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    z.zalloc = z_alloc;
    z.zfree = z_free;
    z.opaque = al;
    if (inflateInit2(&z, 31) != Z_OK) return PCD_E_NOMEM;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    size_t have = 0;
    pcd_status st = PCD_OK;
    for (;;) {
        if (have == *cap) {
            size_t nc = *cap ? *cap * 2 : 65536;
            if (nc > limit) nc = limit;
            if (nc <= have) { st = PCD_E_LIMIT; break; }
            uint8_t *q = pcd_alloc_resize(al, *buf, *cap, nc);
            if (!q) { st = PCD_E_NOMEM; break; }
            *buf = q;
            *cap = nc;
        }
        z.next_out = *buf + have;
        z.avail_out = (uInt)(*cap - have);
        int r = inflate(&z, Z_NO_FLUSH);
        have = *cap - z.avail_out;
        if (r == Z_STREAM_END) break;
        if (r != Z_OK && r != Z_BUF_ERROR) { st = PCD_E_GZIP; break; }
        if (r == Z_BUF_ERROR && z.avail_out != 0) { st = PCD_E_GZIP; break; }   /* input ended */
    }
    inflateEnd(&z);
    *len = have;
    return st;
}

static pcd_status gzip(pcd_alloc *al, int level, const uint8_t *in, size_t n, uint8_t *out, size_t cap, size_t *len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    z.zalloc = z_alloc;
    z.zfree = z_free;
    z.opaque = al;
    if (deflateInit2(&z, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) return PCD_E_NOMEM;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    *len = cap - z.avail_out;
    deflateEnd(&z);
    return r == Z_STREAM_END ? PCD_OK : PCD_E_LIMIT;
}

/* Does f's root record decode from these bytes (or need more than there are)? */
static bool root_fits(const pcd_format *f, const uint8_t *p, size_t n, bool whole)
{
    uint8_t tmp[4096], block[4096];
    if (f->root_size > sizeof tmp) return true;
    pcd_arena a;
    pcd_arena_init(&a, block, sizeof block, NULL, 0);
    pcd_ctx x;
    pcd_ctx_init(&x, &a);
    x.version = f->version_num;
    pcd_cursor cur = pcd_cursor_make(&x, p, n, 0, whole);
    pcd_status st = f->root_decode(&cur, tmp);
    return st == PCD_OK || st == PCD_SHORT_READ;
}

const pcd_mutator *pcd_mutator_detect(const uint8_t *data, size_t size)
{
    uint8_t head[4096];
    bool whole = true;
    if (is_gzip(data, size)) {
        /* the first bytes inside */
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, 31) != Z_OK) return NULL;
        z.next_in = (Bytef *)(uintptr_t)data;
        z.avail_in = (uInt)size;
        z.next_out = head;
        z.avail_out = sizeof head;
        inflate(&z, Z_NO_FLUSH);
        size = sizeof head - z.avail_out;
        whole = z.avail_out != 0;
        inflateEnd(&z);
        data = head;
    }
    const pcd_mutator *maybe = NULL;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < pcd_n_mutators; i++) {
            const pcd_format *f = pcd_mutators[i]->format;
            /* formats with a magic first, then those known by their structure */
            if (((f->flags & PCD_FMT_NO_MAGIC) != 0) != (pass == 1) || !f->detect) continue;
            int d = f->detect(data, size);
            if (d == 0 || !root_fits(f, data, size, whole)) continue;
            if (d == 2) return pcd_mutators[i];
            if (d == 1 && !maybe) maybe = pcd_mutators[i];
        }
    return maybe;
}

/* ---- sessions ---- */

void pcd_mut_reseed(pcd_mut *m, uint64_t seed)
{
    /* splitmix64 of the seed: never zero */
    uint64_t z = seed + UINT64_C(0x9E3779B97F4A7C15);
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    m->rng = (z ^ (z >> 31)) | 1;
}

pcd_status pcd_mut_new(pcd_mut **out, const pcd_mutator *mu, const pcd_mut_opts *o, pcd_alloc *al)
{
    *out = NULL;
    if (!mu || !al) return PCD_E_ARG;
    pcd_mut *m = pcd_alloc_get(al, sizeof *m);
    if (!m) return PCD_E_NOMEM;
    memset(m, 0, sizeof *m);
    m->mu = mu;
    m->f = mu->format;
    m->al = al;
    if (o) m->o = *o;
    else pcd_mut_opts_default(&m->o);
    if (!m->o.max_stack) m->o.max_stack = 1;
    if (!m->o.max_output) m->o.max_output = (size_t)1 << 20;
    if (!m->o.evil) {
        for (int k = 0; k < PCD_MUT_N_KINDS; k++)
            if (!pcd_mut_kind_keeps((pcd_mut_kind)k)) m->o.kinds &= ~((uint64_t)1 << k);
        m->o.layer_break = 0;
    }
    pcd_mut_reseed(m, m->o.seed);
    pcd_arena_init(&m->pristine.arena, NULL, 0, al, 0);
    pcd_arena_init(&m->other.arena, NULL, 0, al, 0);
    pcd_arena_init(&m->ma, NULL, 0, al, 0);
    pcd_arena_init(&m->chk, NULL, 0, al, 0);
    pcd_arena_init(&m->next, NULL, 0, al, 0);
    m->max_rec = m->f->root_size;
    for (uint32_t i = 0; i < m->f->n_regions; i++)
        if (m->f->regions[i]->record_size > m->max_rec) m->max_rec = m->f->regions[i]->record_size;
    m->chkrec = pcd_alloc_get(al, m->max_rec);
    m->buf_cap = m->o.max_output + 4096;
    m->buf = pcd_alloc_get(al, m->buf_cap);
    if (!m->chkrec || !m->buf) {
        pcd_mut_free(m);
        return PCD_E_NOMEM;
    }
    m->layer = -1;
    m->inner = -1;
    m->gz_drop = false;
    m->wire = false;
    m->dlo = 0;
    m->dhi = SIZE_MAX;
    *out = m;
    return PCD_OK;
}

static void set_free(pcd_alloc *al, mset *s)
{
    pcd_alloc_free(al, s->spans, s->cspans * sizeof *s->spans);
    s->spans = NULL;
    s->nspans = s->cspans = 0;
    pcd_alloc_free(al, s->r, s->cap * sizeof *s->r);
    s->r = NULL;
    s->n = s->cap = 0;
    pcd_arena_free(&s->arena);
}

void pcd_mut_free(pcd_mut *m)
{
    if (!m) return;
    pcd_alloc *al = m->al;
    set_free(al, &m->pristine);
    set_free(al, &m->other);
    pcd_arena_free(&m->ma);
    pcd_arena_free(&m->chk);
    pcd_arena_free(&m->next);
    pcd_alloc_free(al, m->span_at, m->span_cap * sizeof *m->span_at);
    pcd_alloc_free(al, m->cbytes, m->cbcap);
    pcd_alloc_free(al, m->cent, m->ccap * sizeof *m->cent);
    if (m->has_spare) pcd_writer_spare_free(al, &m->spare);
    pcd_alloc_free(al, m->w, m->wcap * sizeof *m->w);
    pcd_alloc_free(al, m->defs, m->cdefs * sizeof *m->defs);
    pcd_alloc_free(al, m->buf, m->buf_cap);
    pcd_alloc_free(al, m->buf2, m->buf2_cap);
    pcd_alloc_free(al, m->ibytes, m->ibytes_cap);
    pcd_alloc_free(al, m->wbuf, m->wbuf_cap);
    pcd_alloc_free(al, m->chkrec, m->max_rec);
    pcd_alloc_free(al, m, sizeof *m);
}

const char *pcd_mut_describe(const pcd_mut *m) { return m->dlen ? m->desc : "(no mutation)"; }

size_t pcd_mut_records(const pcd_mut *m) { return m->wn; }

static bool set_push(pcd_alloc *al, mset *s, mrec r)
{
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 64;
        mrec *q = pcd_alloc_resize(al, s->r, s->cap * sizeof *q, nc * sizeof *q);
        if (!q) return false;
        s->r = q;
        s->cap = nc;
    }
    r.pidx = (uint32_t)s->n;
    s->r[s->n++] = r;
    return true;
}

bool pcd_mut_reserve(pcd_mut *m, size_t n)
{
    if (n <= m->wcap) return true;
    size_t nc = m->wcap ? m->wcap : 64;
    while (nc < n) nc *= 2;
    mrec *q = pcd_alloc_resize(m->al, m->w, m->wcap * sizeof *q, nc * sizeof *q);
    if (!q) return false;
    m->w = q;
    m->wcap = nc;
    return true;
}

/* The working copy made the pristine records again: only the window that may differ is
 * copied back (all from its start when the number of records changed). */
static bool restore(pcd_mut *m)
{
    /* the working copy is no longer the records of the last output: an input equal to that
     * output is decoded again, not promoted (it was the records of whatever was loaded since:
     * an output O, another input B loaded, then O loaded gave B's records) */
    m->out_valid = false;
    pcd_arena_reset(&m->ma);
    size_t pn = m->pristine.n;
    if (!pcd_mut_reserve(m, pn)) return false;
    if (m->dlo != SIZE_MAX && pn) {
        size_t lo = m->dlo < pn ? m->dlo : pn, hi = pn;
        if (m->wn == pn) {
            if (m->dhi < pn) hi = m->dhi;
        } else if (m->dhi <= m->wn && m->wn - m->dhi <= pn - lo) {
            /* the count changed: the records after the window are pristine's last ones, moved;
             * moved back within w (whose lines the mutation just used) rather than copied
             * again from pristine's */
            size_t tail = m->wn - m->dhi;
            hi = pn - tail;
            memmove(m->w + hi, m->w + m->dhi, tail * sizeof *m->w);
        }
        if (hi > lo) memcpy(m->w + lo, m->pristine.r + lo, (hi - lo) * sizeof *m->w);
    }
    /* the points (never in the window): before it at their index, after it moved with the
     * records after the window */
    for (uint32_t i = 0; i < m->npts; i++) {
        size_t p = m->pts[i];
        if (m->dlo != SIZE_MAX && p >= m->dlo) p = p - m->wn + pn;
        if (p < pn) m->w[p] = m->pristine.r[p];
    }
    m->dlo = SIZE_MAX;
    m->dhi = 0;
    m->npts = 0;
    m->wn = pn;
    m->layer = -1;
    m->inner = -1;
    m->gz_drop = false;
    m->wire = false;
    m->dlen = 0;
    return true;
}

/* The compressed regions of record k (of type t, data d) whose bytes are in the file. */
static bool spans_of(pcd_mut *m, mset *s, size_t k, const pcd_type *t, const uint8_t *d, const uint8_t *data,
                     size_t size)
{
    if (t->is_union) {
        uint32_t w = *(const uint32_t *)d;
        if (w >= t->n_fields || t->fields[w].kind != PCD_K_STRUCT || !t->fields[w].type) return true;
        return spans_of(m, s, k, t->fields[w].type, d + t->fields[w].offset, data, size);
    }
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *f = &t->fields[i];
        if (f->kind != PCD_K_REGION || !f->region) continue;
        const pcd_region *rg = (const pcd_region *)(d + f->offset);
        if (!rg->compression || rg->absent || rg->offset >= size) continue;
        size_t n;
        if (rg->compression == PCD_REGION_ZSTD_FRAME || !rg->sized) {
            if (pcd_zstd_frame_size(data + rg->offset, size - (size_t)rg->offset, &n) != PCD_OK) continue;
        } else {
            if (rg->size > size - rg->offset) continue;
            n = (size_t)rg->size;
        }
        /* its records: the parent's descendants of that region */
        size_t first = SIZE_MAX, end = 0;
        uint64_t count = 0;
        for (size_t j = k + 1; j < s->n && s->r[j].depth > s->r[k].depth; j++)
            if (s->r[j].depth == s->r[k].depth + 1 && s->r[j].rd == f->region) {
                if (first == SIZE_MAX) first = j;
                end = pcd_mut_subtree_end(s->r, s->n, j);
                count++;
            }
        if (first == SIZE_MAX) first = end = k + 1;
        uint8_t *q = pcd_arena_alloc(&s->arena, n);
        if (!q) return false;
        memcpy(q, data + rg->offset, n);
        if (s->nspans == s->cspans) {
            size_t nc = s->cspans ? s->cspans * 2 : 16;
            mspan *ns = pcd_alloc_resize(m->al, s->spans, s->cspans * sizeof *ns, nc * sizeof *ns);
            if (!ns) return false;
            s->spans = ns;
            s->cspans = nc;
        }
        s->spans[s->nspans++] = (mspan){ k, first, end, count, f->region, q, n };
    }
    return true;
}

static pcd_status find_spans(pcd_mut *m, mset *s, const uint8_t *data, size_t size)
{
    s->nspans = 0;
    for (size_t k = 0; k < s->n; k++) {
        if (s->r[k].origin == UINT64_MAX && k) continue;   /* in decompressed data */
        if (!spans_of(m, s, k, s->r[k].type, s->r[k].data, data, size)) return PCD_E_NOMEM;
    }
    return PCD_END;
}

/* Reads data (gzip taken off) into the set s: every record up to the end or the damage. */
static pcd_status read_set(pcd_mut *m, mset *s, const uint8_t *data, size_t size)
{
    s->n = 0;
    s->nspans = 0;
    pcd_arena_reset(&s->arena);
    s->gz = is_gzip(data, size);
    if (s->gz) {
        size_t len;
        pcd_status st = gunzip(m->al, data, size, &m->buf2, &m->buf2_cap, m->o.max_output * 16, &len);
        if (st != PCD_OK && st != PCD_E_GZIP) return st;
        data = m->buf2;
        size = len;
    }
    pcd_reader r;
    pcd_reader_opts ro = { m->al, NULL, 0, false, false };
    pcd_status st = pcd_reader_open_buffer(&r, m->f, data, size, &ro);
    if (st != PCD_OK) return st;
    pcd_record rec;
    if (!set_push(m->al, s, (mrec){ NULL, m->f->root, NULL, 0, false, 0 })) st = PCD_E_NOMEM;
    bool root = false;
    while (st == PCD_OK) {
        st = pcd_reader_next(&r, &rec);
        if (st != PCD_OK) break;
        if (rec.depth == 0) {
            root = true;
            s->big = rec.big;
            continue;
        }
        if (!rec.data || !rec.region) continue;
        void *q = pcd_arena_alloc(&s->arena, rec.type->size);
        if (!q || !pcd_mut_copy(&s->arena, rec.type, q, rec.data) ||
            !set_push(m->al, s, (mrec){ rec.region, rec.type, q, rec.depth, false,
                                        rec.decompressed ? UINT64_MAX : rec.offset })) {
            st = PCD_E_NOMEM;
            break;
        }
    }
    const void *rt = pcd_reader_root(&r);
    if (root && rt) {
        void *q = pcd_arena_alloc(&s->arena, m->f->root_size);
        if (q && pcd_mut_copy(&s->arena, m->f->root, q, rt)) s->r[0].data = q;
        else st = PCD_E_NOMEM;
    }
    pcd_reader_close(&r);
    if (st == PCD_END && s->r[0].data) st = find_spans(m, s, data, size);
    if (st == PCD_E_NOMEM) return st;
    if (!s->r[0].data) return st == PCD_END ? PCD_E_TRUNCATED : st;
    return PCD_OK;   /* (the records before any damage) */
}

/* A hash of the input (is it the one loaded last?): four lanes of 8 bytes a step (each input
 * and each output is hashed: a 48 KB one took a tenth of a mutation with one lane). */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603) ^ n;
    size_t i = 0;
    if (n >= 32) {
        uint64_t l[4] = { h, h ^ UINT64_C(0x243F6A8885A308D3), h ^ UINT64_C(0x13198A2E03707344),
                          h ^ UINT64_C(0xA4093822299F31D0) };
        for (; i + 32 <= n; i += 32)
            for (int j = 0; j < 4; j++) {
                uint64_t w;
                memcpy(&w, p + i + 8 * j, 8);
                l[j] = (l[j] ^ w) * UINT64_C(0x9E3779B97F4A7C15);
                l[j] ^= l[j] >> 29;
            }
        h = l[0] ^ (l[1] * 3) ^ (l[2] * 5) ^ (l[3] * 7);
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * UINT64_C(0x9E3779B97F4A7C15);
        h ^= h >> 29;
    }
    for (; i < n; i++) h = (h ^ p[i]) * UINT64_C(1099511628211);
    return h;
}

/* The working copy (just written as the file now being loaded) made the loaded records:
 * copied into the spare arena, with the compressed regions that went out as they were. */
static bool promote(pcd_mut *m, uint64_t h, size_t size)
{
    mset *s = &m->pristine;
    pcd_arena_reset(&m->next);
    size_t n = m->wn;
    centry *ce = NULL;
    mrec *r = pcd_alloc_get(m->al, (n ? n : 1) * sizeof *r);
    mspan *sp = s->nspans ? pcd_alloc_get(m->al, s->nspans * sizeof *sp) : NULL;
    if (!r || (s->nspans && !sp)) goto fail;
    for (size_t i = 0; i < n; i++) {
        r[i] = m->w[i];
        void *q = pcd_arena_alloc(&m->next, r[i].type->size);
        if (!q || !pcd_mut_copy(&m->next, r[i].type, q, r[i].data)) goto fail;
        r[i].data = q;
        r[i].owned = false;
        r[i].pidx = (uint32_t)i;
    }
    /* the encoded bytes kept for records still unchanged stay theirs (the root unchanged) */
    if (m->cache_built && m->cache_ok && n && m->w[0].data == s->r[0].data) {
        ce = pcd_alloc_get(m->al, n * sizeof *ce);
        for (size_t i = 0; ce && i < n; i++) {
            const mrec *x = &m->w[i];
            ce[i].off = i && !x->owned && x->pidx != UINT32_MAX && x->pidx < s->n && m->cent[x->pidx].off < TO_ENCODE
                            ? m->cent[x->pidx].off
                            : TO_ENCODE;
            ce[i].len = ce[i].off < TO_ENCODE ? m->cent[x->pidx].len : 0;
            ce[i].end = 0;
        }
    }
    size_t ns = 0;
    for (size_t k = 0; k < s->nspans && k < m->span_cap; k++) {
        if (m->span_at[k] == SIZE_MAX) continue;
        mspan x = s->spans[k];
        size_t len = x.end - x.first;
        x.parent = m->span_at[k];
        x.first = x.parent + 1;
        x.end = x.first + len;
        uint8_t *q = pcd_arena_alloc(&m->next, x.n);
        if (!q) goto fail;
        memcpy(q, x.p, x.n);
        x.p = q;
        sp[ns++] = x;
    }
    /* swap: the records and spans, and the arena behind them */
    pcd_alloc_free(m->al, s->r, s->cap * sizeof *s->r);
    s->r = r;
    s->n = s->cap = n ? n : 1;
    s->n = n;
    if (sp) {   /* (none when the loaded records had no compressed region) */
        memcpy(s->spans, sp, ns * sizeof *sp);
        pcd_alloc_free(m->al, sp, s->nspans * sizeof *sp);
    }
    s->nspans = ns;
    if (m->gz_drop) s->gz = false;   /* it went out without its gzip layer */
    pcd_arena t = s->arena;
    s->arena = m->next;
    m->next = t;
    pcd_arena_reset(&m->next);
    pcd_mut_scan_keys(m, s);
    m->load_hash = h;
    m->load_size = size;
    m->loaded = true;
    m->fast_zstd = true;
    m->cache_built = false;
    m->cache_remap = ce != NULL;
    m->encodes = 0;
    if (ce) {
        pcd_alloc_free(m->al, m->cent, m->ccap * sizeof *m->cent);
        m->cent = ce;
        m->ccap = n;
    }
    pcd_mut_edit_all(m);
    return restore(m);
fail:
    if (ce) pcd_alloc_free(m->al, ce, n * sizeof *ce);
    if (r) pcd_alloc_free(m->al, r, (n ? n : 1) * sizeof *r);
    if (sp) pcd_alloc_free(m->al, sp, s->nspans * sizeof *sp);
    return false;
}

pcd_status pcd_mut_load(pcd_mut *m, const uint8_t *data, size_t size)
{
    uint64_t h = hash_bytes(data, size);
    if (m->loaded && h == m->load_hash && size == m->load_size) return restore(m) ? PCD_OK : PCD_E_NOMEM;
    if (m->out_valid && m->loaded && h == m->out_hash && size == m->out_len && m->wn) {
        m->out_valid = false;
        if (promote(m, h, size)) return PCD_OK;
    }
    m->loaded = false;
    m->fast_zstd = false;
    m->cache_built = m->cache_remap = false;
    m->encodes = 0;
    pcd_mut_edit_all(m);
    pcd_status st = read_set(m, &m->pristine, data, size);
    if (st != PCD_OK) {
        m->pristine.n = 0;
        m->wn = 0;
        return st;
    }
    pcd_mut_scan_keys(m, &m->pristine);
    m->loaded = true;
    m->load_hash = h;
    m->load_size = size;
    return restore(m) ? PCD_OK : PCD_E_NOMEM;
}

size_t pcd_mut_subtree_end(const mrec *r, size_t n, size_t k)
{
    size_t e = k + 1;
    while (e < n && r[e].depth > r[k].depth) e++;
    return e;
}

/* ---- encoding ---- */

/* The bytes of a compressed region on their way into zstd: inner_bytes' target region has
 * its first chunk changed byte by byte. The target is the next region of its kind to get
 * bytes once raw_spans has passed over it (armed), or else the inner_fed-th region to get any. */
static pcd_status inner_region(void *ud, const pcd_region_desc *rd, uint32_t ordinal, const uint8_t **p, size_t *n)
{
    pcd_mut *m = ud;
    if (ordinal != m->fed_last) {
        m->fed_last = ordinal;
        m->fed++;
    }
    if (m->inner_done) return PCD_OK;
    if (m->inner_armed ? rd != m->inner_rd : (!m->inner_fed || m->fed != m->inner_fed)) return PCD_OK;
    m->inner_done = true;
    size_t need = *n + *n / 4 + 1024;
    if (m->ibytes_cap < need) {
        uint8_t *q = pcd_alloc_resize(m->al, m->ibytes, m->ibytes_cap, need);
        if (!q) return PCD_E_NOMEM;
        m->ibytes = q;
        m->ibytes_cap = need;
    }
    memcpy(m->ibytes, *p, *n);
    size_t k = pcd_mut_bytes(m, m->ibytes, *n, need);
    pcd_mut_note(m, "inner_bytes in %s (zstd region %u): %zu -> %zu bytes", rd->name, ordinal, *n, k);
    *p = m->ibytes;
    *n = k;
    return PCD_OK;
}

/* After record i was written: the compressed regions it opens whose records are all there
 * unchanged, written as the bytes they had. Returns the index of the last record passed over. */
static size_t raw_spans(pcd_mut *m, pcd_writer *w, const mrec *r, size_t n, size_t i, pcd_status *st)
{
    const mset *p = &m->pristine;
    if (r != m->w || r[i].owned || r[i].pidx == UINT32_MAX) return i;
    size_t at = i;
    for (size_t k = 0; k < p->nspans; k++) {
        const mspan *sp = &p->spans[k];
        if (sp->parent != r[i].pidx) continue;
        if (m->inner > 0 && k == m->inner_span) {
            /* inner_bytes' region: written from its records, the next bytes of its kind */
            if (!m->inner_fed) {
                m->inner_armed = true;
                m->inner_rd = sp->rd;
            }
            return at;
        }
        /* the loaded records [first, end) next, unchanged, and no record of the region after them */
        size_t len = sp->end - sp->first;
        if (at + 1 + len > n) return at;
        for (size_t j = 0; j < len; j++) {
            const mrec *x = &r[at + 1 + j];
            if (x->owned || x->pidx != sp->first + j) return at;
        }
        size_t after = at + 1 + len;
        if (after < n && r[after].rd == sp->rd && r[after].depth == r[i].depth + 1) return at;
        *st = pcd_writer_raw_region(w, sp->rd, sp->p, sp->n, sp->count);
        if (*st != PCD_OK) return at;
        if (k < m->span_cap) m->span_at[k] = i;
        at = after - 1;
    }
    return at;
}

/* Does a record of type t (data d) open a region (as the writer announces them)? */
static bool opens_region(const pcd_type *t, const uint8_t *d)
{
    if (t->is_union) {
        uint32_t w = *(const uint32_t *)d;
        if (w >= t->n_fields) return false;
        const pcd_field *cf = &t->fields[w];
        if (cf->kind != PCD_K_STRUCT || !cf->type || cf->type->is_union) return false;
        return opens_region(cf->type, d + cf->offset);
    }
    for (uint32_t i = 0; i < t->n_fields; i++)
        if (t->fields[i].kind == PCD_K_REGION) return true;
    return false;
}

/* The encoded bytes of the pristine records that can be written again as they are: those
 * that open no region (nothing patched into them later), of a region without stream state,
 * in a format that relocates no offsets; each encoded by itself, as the writer would (their
 * encoding depends on their values, the root, the byte order and the version only). */
static void cache_build(pcd_mut *m)
{
    const mset *s = &m->pristine;
    bool remap = m->cache_remap;
    m->cache_built = true;
    m->cache_remap = false;
    m->cache_ok = false;
    if (m->cache_off || (m->f->flags & PCD_FMT_RELOCATES) || s->n < 2 || !s->r[0].data) return;
    if (remap) {
        /* promoted records: the bytes of those unchanged are kept, the others encoded (all
         * again when the bytes no longer kept would be most of them) */
        size_t live = 0;
        for (size_t p = 1; p < s->n; p++)
            if (m->cent[p].off < TO_ENCODE) live += m->cent[p].len;
        if (m->cblen > 2 * live + 65536) remap = false;
    }
    if (!remap) m->cblen = 0;
    if (s->n > m->ccap && !remap) {
        centry *q = pcd_alloc_resize(m->al, m->cent, m->ccap * sizeof *q, s->n * sizeof *q);
        if (!q) return;
        m->cent = q;
        m->ccap = s->n;
    }
    centry *c = m->cent;
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    x.big = s->big;
    x.root = s->r[0].data;
    x.version = m->f->version_num;
    size_t limit = m->o.max_output * 4;
    c[0].off = NO_BYTES;
    for (size_t p = 1; p < s->n; p++) {
        const mrec *r = &s->r[p];
        if (remap && c[p].off != TO_ENCODE) continue;
        c[p].off = NO_BYTES;
        if (!r->rd || !r->rd->encode || r->rd->state_size || opens_region(r->type, r->data)) continue;
        for (;;) {
            pcd_sink sk;
            pcd_status st = PCD_E_LIMIT;
            if (m->cbcap > m->cblen) {
                pcd_sink_init(&sk, m->cbytes + m->cblen, m->cbcap - m->cblen, NULL, NULL, NULL, &x);
                st = r->rd->encode(&sk, r->data);
            }
            if (st == PCD_OK && m->cblen + sk.len < NO_BYTES) {
                c[p].off = (uint32_t)m->cblen;
                c[p].len = (uint32_t)sk.len;
                m->cblen += sk.len;
                break;
            }
            if (st != PCD_E_LIMIT || m->cbcap >= limit) break;   /* not kept: encoded as usual */
            size_t nc = m->cbcap ? m->cbcap * 2 : 65536;
            if (nc > limit) nc = limit;
            uint8_t *q = pcd_alloc_resize(m->al, m->cbytes, m->cbcap, nc);
            if (!q) break;
            m->cbytes = q;
            m->cbcap = nc;
        }
    }
    /* runs: records of the same region, their bytes one after the other */
    size_t kept = 0;
    for (size_t p = s->n - 1; p >= 1; p--) {
        if (c[p].off == NO_BYTES) {
            c[p].end = (uint32_t)p;
            continue;
        }
        kept++;
        const mrec *a = &s->r[p], *b = &s->r[p + 1];
        c[p].end = p + 1 < s->n && c[p + 1].off != NO_BYTES && b->rd == a->rd && b->depth == a->depth &&
                           c[p + 1].off == c[p].off + c[p].len
                       ? c[p + 1].end
                         : (uint32_t)(p + 1);
    }
    m->cache_ok = kept && s->n < NO_BYTES;   /* (none kept: the encode looks at no record for them) */
}

pcd_status pcd_mut_encode_records(pcd_mut *m, const mrec *r, size_t n, uint8_t *out, size_t cap, size_t *len,
                              size_t size_rec, uint64_t *size_at)
{
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, out, cap, NULL, NULL, NULL, &x);
    pcd_writer w;
    *len = 0;
    if (size_at) *size_at = UINT64_MAX;
    pcd_status st = pcd_writer_open(&w, m->f, &s, m->al);
    if (st != PCD_OK) return st;
    if (m->has_spare) {
        pcd_writer_give_spare(&w, &m->spare);
        m->has_spare = false;
    }
    pcd_writer_set_big(&w, m->pristine.big);
    if (m->inner > 0 && r == m->w) {
        w.region_bytes = inner_region;
        w.region_bytes_ud = m;
    }
    /* a mutated file is compressed fast; an unmutated one as the schema says (the same bytes) */
    if (m->dlen || m->fast_zstd || m->inner >= 0) {
        w.zstd_level = 1;
        w.zstd_small = true;
    }
    bool reloc = (m->f->flags & PCD_FMT_RELOCATES) != 0;
    st = n && r[0].data ? pcd_writer_root(&w, r[0].data) : PCD_E_ARG;
    if (r == m->w) {
        if (m->span_cap < m->pristine.nspans) {
            size_t *q = pcd_alloc_resize(m->al, m->span_at, m->span_cap * sizeof *q, m->pristine.nspans * sizeof *q);
            if (q) {
                m->span_at = q;
                m->span_cap = m->pristine.nspans;
            }
        }
        for (size_t k = 0; k < m->span_cap; k++) m->span_at[k] = SIZE_MAX;
    }
    /* records the working copy has as loaded, written as the bytes they had (a run of them
     * at once): outside the window that may differ without looking at them */
    bool cached = false;
    size_t lo = 0, hi = 0, pn = m->pristine.n;
    if (r == m->w && !m->cache_off) {
        /* built at the second encode of the same loaded records (an input loaded to be
         * mutated once pays nothing for it), at the first for promoted ones (few to encode) */
        if (!m->cache_built && (m->cache_remap || m->encodes++ >= 1)) cache_build(m);
        cached = m->cache_built && m->cache_ok && n && r[0].data == m->pristine.r[0].data;
        lo = m->dlo < n ? m->dlo : n;
        hi = m->dlo == SIZE_MAX ? n : m->dhi < n ? m->dhi : n;
        if (lo > pn) lo = pn;           /* (cannot be: the window is kept right) */
        if (n - hi > pn) hi = n - pn;
        if (hi < lo) hi = lo;
    }
    const centry *c = m->cent;
    size_t from = st == PCD_OK ? raw_spans(m, &w, r, n, 0, &st) + 1 : 1;
    for (size_t i = from; i < n && st == PCD_OK; i++) {
        if (i == size_rec) {
            st = pcd_writer_close_to(&w, r[i].depth);
            if (st != PCD_OK) break;
            if (w.cur == w.s && size_at) *size_at = pcd_sink_tell(&s);
        }
        if (cached) {
            size_t p, run, pt = SIZE_MAX;   /* the first point at or after i */
            for (uint32_t j = 0; j < m->npts; j++)
                if (m->pts[j] >= i && m->pts[j] < pt) pt = m->pts[j];
            if (pt != i && i < lo) {
                p = i;
                run = (pt < lo ? pt : lo) - i;
            } else if (pt != i && i >= hi) {
                p = i - (n - pn);
                run = (pt < n ? pt : n) - i;
            } else if (!r[i].owned && r[i].pidx != UINT32_MAX) {
                /* in the window (or a point): the loaded records that follow it there unchanged */
                p = r[i].pidx;
                run = 1;
                if (pt != i && c[p].off != NO_BYTES) {
                    size_t most = c[p].end - p < hi - i ? c[p].end - p : hi - i;
                    while (run < most && !r[i + run].owned && r[i + run].pidx == p + run) run++;
                }
            } else {
                p = SIZE_MAX;
                run = 0;
            }
            if (p != SIZE_MAX && c[p].off != NO_BYTES) {
                if (run > c[p].end - p) run = c[p].end - p;
                if (size_rec > i && size_rec - i < run) run = size_rec - i;
                size_t e = p + run - 1;
                st = pcd_writer_record_bytes(&w, r[i].rd, m->cbytes + c[p].off,
                                             c[e].off + c[e].len - c[p].off, run);
                i += run - 1;
                continue;
            }
        }
        if (reloc && r[i].origin != UINT64_MAX) pcd_writer_set_origin(&w, r[i].origin);
        st = pcd_writer_record(&w, r[i].rd, r[i].data);
        if (st == PCD_OK) i = raw_spans(m, &w, r, n, i, &st);
    }
    if (st == PCD_OK) st = pcd_writer_finish(&w);
    m->has_spare = pcd_writer_take_spare(&w, &m->spare);
    pcd_writer_close(&w);
    if (st == PCD_OK) *len = s.len;
    return st;
}

bool pcd_mut_check_record(pcd_mut *m, size_t k) { return pcd_mut_check_record_as(m, k, false); }

bool pcd_mut_check_record_as(pcd_mut *m, size_t k, bool encode_only)
{
    const mrec *r = &m->w[k];
    if (!r->rd || !r->rd->decode || !r->rd->encode) return true;
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    x.big = m->pristine.big;
    x.root = m->w[0].data;
    x.version = m->f->version_num;
    pcd_arena_reset(&m->chk);
    void *st_enc = NULL, *st_dec = NULL;
    if (r->rd->state_size) {
        /* a stream state as its region starts (from the record that opens it): values that
         * depend on what came before in the region are checked against that */
        size_t p = k;
        while (p > 0 && m->w[p].depth >= r->depth) p--;
        st_enc = pcd_arena_alloc(&m->chk, r->rd->state_size);
        st_dec = pcd_arena_alloc(&m->chk, r->rd->state_size);
        if (!st_enc || !st_dec) return true;
        memset(st_enc, 0, r->rd->state_size);
        if (r->rd->state_init) r->rd->state_init(st_enc, m->w[p].data, &x);
        memcpy(st_dec, st_enc, r->rd->state_size);
        x.state = st_enc;
    }
    uint8_t tmp[8192];
    pcd_sink s;
    pcd_sink_init(&s, tmp, sizeof tmp, NULL, NULL, NULL, &x);
    pcd_status st = r->rd->encode(&s, r->data);
    if (st == PCD_E_LIMIT) return true;   /* too big to check here: the whole file is checked by who needs it */
    if (st != PCD_OK) return false;
    if (encode_only) return true;
    pcd_ctx y;
    pcd_ctx_init(&y, &m->chk);
    y.big = x.big;
    y.root = x.root;
    y.version = x.version;
    y.state = st_dec;
    pcd_cursor c = pcd_cursor_make(&y, tmp, s.len, 0, true);
    st = r->rd->decode(&c, m->chkrec);
    return st == PCD_OK && c.p == tmp + s.len;
}

static pcd_status encode(pcd_mut *m, uint8_t *out, size_t cap, size_t *len);

pcd_status pcd_mut_encode(pcd_mut *m, uint8_t *out, size_t cap, size_t *len)
{
    m->out_valid = false;
    pcd_status st = encode(m, out, cap, len);
    if (st == PCD_OK && m->layer < 0 && m->inner < 0 && !m->wire && m->dlen) {
        /* a file written from these records: loaded next (a fuzzer's next mutation of it), it
         * is made the loaded one from them */
        m->out_hash = hash_bytes(out, *len);
        m->out_len = *len;
        m->out_valid = true;
    }
    return st;
}

static pcd_status encode(pcd_mut *m, uint8_t *out, size_t cap, size_t *len)
{
    *len = 0;
    if (!m->wn) return PCD_E_ARG;
    size_t lim = cap < m->o.max_output ? cap : m->o.max_output;
    size_t size_rec = SIZE_MAX;
    uint64_t size_at = UINT64_MAX;
    if (m->layer == PCD_MUT_LAYER_SIZE) {
        /* a record with a size field of its own, written where it can be found */
        for (int t = 0; t < 16 && size_rec == SIZE_MAX && m->wn > 1; t++) {
            size_t k = 1 + (size_t)pcd_mut_below(m, m->wn - 1);
            if (m->w[k].rd->size_off >= 0) size_rec = k;
        }
    }
    pcd_status st;
    size_t n;
    if (m->pristine.gz && !m->gz_drop) {
        if (m->buf2_cap < m->o.max_output * 2) {
            uint8_t *q = pcd_alloc_resize(m->al, m->buf2, m->buf2_cap, m->o.max_output * 2);
            if (!q) return PCD_E_NOMEM;
            m->buf2 = q;
            m->buf2_cap = m->o.max_output * 2;
        }
        st = pcd_mut_encode_records(m, m->w, m->wn, m->buf2, m->buf2_cap, &n, size_rec, &size_at);
        if (st != PCD_OK) return st;
        if (m->wire) pcd_mut_pb_wire(m, m->buf2, &n, m->buf2_cap);
        if (m->layer >= 0 && m->layer != PCD_MUT_LAYER_GZIP)
            pcd_mut_layer(m, m->layer, m->buf2, m->buf2_cap, &n, size_at, size_rec);
        if (m->inner == 0) {
            /* what the gzip layer holds, changed byte by byte (the gzip layer made right around it) */
            size_t cap2 = n + n / 4 + 1024;
            if (cap2 > m->buf2_cap) cap2 = m->buf2_cap;
            size_t k = pcd_mut_bytes(m, m->buf2, n, cap2);
            pcd_mut_note(m, "inner_bytes in the gzip layer: %zu -> %zu bytes", n, k);
            n = k;
        }
        /* a mutated file: mostly stored blocks (fast; the reader's inflate still runs), now
         * and then compressed; an unmutated one compressed as most writers do */
        int level = !m->dlen ? 6 : pcd_mut_below(m, 4) ? 0 : 1;
        st = gzip(m->al, level, m->buf2, n, out, lim, len);
        if (st == PCD_E_LIMIT && level < 6) st = gzip(m->al, 6, m->buf2, n, out, lim, len);   /* to fit */
        if (st != PCD_OK) return st;
        if (m->layer == PCD_MUT_LAYER_GZIP) pcd_mut_layer(m, m->layer, out, lim, len, UINT64_MAX, SIZE_MAX);
        return PCD_OK;
    }
    m->inner_done = m->inner_armed = false;
    m->inner_fed = m->fed = m->fed_last = 0;
    st = pcd_mut_encode_records(m, m->w, m->wn, out, lim, len, size_rec, &size_at);
    if (st != PCD_OK) return st;
    if (m->inner > 0 && !m->inner_done && m->fed > 0) {
        /* its region not passed over as such (its parent changed, say): one of the compressed
         * regions that got bytes (the same ones again: the encoding is deterministic) */
        m->inner_fed = 1 + (uint32_t)pcd_mut_below(m, m->fed);
        m->inner_armed = false;
        m->fed = m->fed_last = 0;
        st = pcd_mut_encode_records(m, m->w, m->wn, out, lim, len, size_rec, &size_at);
        if (st != PCD_OK) return st;
    }
    if (m->inner > 0 && !m->inner_done) pcd_mut_note(m, "inner_bytes: no zstd region written");
    if (m->wire) pcd_mut_pb_wire(m, out, len, lim);
    if (m->inner == 0) {
        /* inner_bytes in a gzip layer that gzip_drop then took off: on the bytes as they are */
        size_t k = pcd_mut_bytes(m, out, *len, lim);
        pcd_mut_note(m, "inner_bytes in what the gzip layer held: %zu -> %zu bytes", *len, k);
        *len = k;
    }
    if (m->layer >= 0) pcd_mut_layer(m, m->layer, out, lim, len, size_at, size_rec);
    return PCD_OK;
}

/* ---- mutating ---- */

static int pick_kind(pcd_mut *m, bool layer)
{
    int cand[PCD_MUT_N_KINDS], n = 0;
    for (int k = 0; k < PCD_MUT_N_KINDS; k++)
        if ((m->o.kinds >> k & 1) && pcd_mut_kind_layer((pcd_mut_kind)k) == layer) cand[n++] = k;
    return n ? cand[pcd_mut_below(m, (uint64_t)n)] : -1;
}

void pcd_mut_set_bytes(pcd_mut *m, pcd_mut_bytes_fn fn, void *ud)
{
    m->bytes_fn = fn;
    m->bytes_ud = ud;
}

/* inner_bytes: a compressed layer of the file to change inside, at encode time */
static pcd_status inner_pick(pcd_mut *m)
{
    if (m->inner >= 0) return PCD_END;   /* one a call */
    if (m->pristine.gz) m->inner = 0;
    else {
        /* the compressed regions the writer will open: those with records (an empty one is
         * written without compressing anything) */
        size_t n = 0;
        for (size_t k = 0; k < m->pristine.nspans; k++) n += m->pristine.spans[k].count > 0;
        if (!n) return PCD_END;
        size_t j = (size_t)pcd_mut_below(m, n), k = 0;
        for (;; k++)
            if (m->pristine.spans[k].count > 0 && j-- == 0) break;
        m->inner = 1;
        m->inner_span = k;
    }
    return PCD_OK;
}

/* gzip_drop: the next encode writes what the gzip layer holds, without the layer */
static pcd_status gz_drop(pcd_mut *m)
{
    if (!m->pristine.gz || m->gz_drop) return PCD_END;
    m->gz_drop = true;
    pcd_mut_note(m, "gzip_drop: the gzip layer taken off");
    return PCD_OK;
}

/* pb_wire on an input's own bytes, not on what its records write: the forms an earlier call
 * wrote stay, and this one adds one (a fuzzer's corpus entry made by pb_wire, mutated again) */
pcd_status pcd_mut_wire_input(pcd_mut *m, const uint8_t *in, size_t size, uint8_t *out, size_t cap, size_t *len)
{
    *len = 0;
    if (!(m->f->flags & PCD_FMT_NO_MAGIC)) return PCD_END;
    m->dlen = 0;
    m->desc[0] = 0;
    size_t lim = cap < m->o.max_output ? cap : m->o.max_output, n;
    bool gz = is_gzip(in, size);
    if (m->buf2_cap < m->o.max_output * 2) {
        uint8_t *q = pcd_alloc_resize(m->al, m->buf2, m->buf2_cap, m->o.max_output * 2);
        if (!q) return PCD_E_NOMEM;
        m->buf2 = q;
        m->buf2_cap = m->o.max_output * 2;
    }
    if (gz) {
        pcd_status st = gunzip(m->al, in, size, &m->buf2, &m->buf2_cap, m->o.max_output, &n);
        if (st != PCD_OK) return st == PCD_E_NOMEM ? st : PCD_END;
    } else {
        if (size > m->buf2_cap) return PCD_E_LIMIT;
        memcpy(m->buf2, in, size);
        n = size;
    }
    if (!pcd_mut_pb_wire(m, m->buf2, &n, gz ? m->buf2_cap : lim)) return PCD_END;
    m->out_valid = false;
    if (!gz) {
        memcpy(out, m->buf2, n);
        *len = n;
        return PCD_OK;
    }
    pcd_status st = gzip(m->al, pcd_mut_below(m, 4) ? 0 : 1, m->buf2, n, out, lim, len);
    if (st == PCD_E_LIMIT) st = gzip(m->al, 6, m->buf2, n, out, lim, len);
    return st;
}

/* pb_wire: the next encode writes one message of a protobuf file in another form */
static pcd_status wire_pick(pcd_mut *m)
{
    if (!(m->f->flags & PCD_FMT_NO_MAGIC) || m->wire) return PCD_END;   /* (the protobuf formats) */
    m->wire = true;
    return PCD_OK;
}

static pcd_status apply_kind(pcd_mut *m, pcd_mut_kind k)
{
    switch (k) {
    case PCD_MUT_INNER_BYTES: return inner_pick(m);
    case PCD_MUT_GZIP_DROP: return gz_drop(m);
    case PCD_MUT_PB_WIRE: return wire_pick(m);
    default: return pcd_mut_apply_kind(m, k);
    }
}

pcd_status pcd_mut_apply(pcd_mut *m, pcd_mut_kind k)
{
    if (!m->wn) return PCD_E_ARG;
    if ((unsigned)k >= PCD_MUT_N_KINDS) return PCD_E_ARG;
    if (pcd_mut_kind_layer(k)) {
        if (k == PCD_MUT_LAYER_GZIP && (!m->pristine.gz || m->gz_drop)) return PCD_END;
        m->layer = (int)k;
        return PCD_OK;
    }
    return apply_kind(m, k);
}

pcd_status pcd_mut_mutate(pcd_mut *m, uint32_t *applied)
{
    uint32_t want = 1 + (uint32_t)pcd_mut_below(m, m->o.max_stack), done = 0;
    for (uint32_t i = 0; i < want; i++) {
        for (int t = 0; t < 24; t++) {
            int k = pick_kind(m, false);
            if (k < 0) break;
            pcd_status st = apply_kind(m, (pcd_mut_kind)k);
            if (st == PCD_OK) {
                done++;
                break;
            }
            if (st == PCD_E_NOMEM) return st;
        }
    }
    if (m->o.evil && m->o.layer_break > 0 && pcd_mut_chance(m, m->o.layer_break)) {
        int k = pick_kind(m, true);
        if (k == PCD_MUT_LAYER_GZIP && (!m->pristine.gz || m->gz_drop)) k = PCD_MUT_LAYER_TRUNCATE;
        if (k >= 0) {
            m->layer = k;
            done++;
        }
    }
    if (applied) *applied = done;
    return done ? PCD_OK : PCD_END;
}

pcd_status pcd_mut_crossover(pcd_mut *m, const uint8_t *other, size_t size)
{
    if (!m->wn) return PCD_E_ARG;
    pcd_status st = read_set(m, &m->other, other, size);
    if (st != PCD_OK) return st;
    if (m->other.n < 2) return PCD_END;
    /* a record of the other file (and what it holds) after a record of the same region here */
    for (int t = 0; t < 16; t++) {
        size_t j = 1 + (size_t)pcd_mut_below(m, m->other.n - 1);
        size_t je = pcd_mut_subtree_end(m->other.r, m->other.n, j);
        size_t cand[64], nc = 0;
        for (size_t k = 1; k < m->wn && nc < 64; k++)
            if (m->w[k].rd == m->other.r[j].rd && m->w[k].depth == m->other.r[j].depth) cand[nc++] = k;
        if (!nc) continue;
        size_t k = cand[pcd_mut_below(m, nc)];
        size_t at = pcd_mut_subtree_end(m->w, m->wn, k), cnt = je - j;
        if (!pcd_mut_reserve(m, m->wn + cnt)) return PCD_E_NOMEM;
        memmove(m->w + at + cnt, m->w + at, (m->wn - at) * sizeof *m->w);
        pcd_mut_edit(m, at, at, cnt);
        for (size_t i = 0; i < cnt; i++) {
            mrec r = m->other.r[j + i];
            void *q = pcd_arena_alloc(&m->ma, r.type->size);
            if (!q || !pcd_mut_copy(&m->ma, r.type, q, r.data)) return PCD_E_NOMEM;
            r.data = q;
            r.owned = true;
            r.origin = UINT64_MAX;
            r.pidx = UINT32_MAX;
            m->w[at + i] = r;
        }
        m->wn += cnt;
        pcd_mut_note(m, "rec_splice %s[%zu]+%zu from the other input", m->w[at].rd->name, at, cnt);
        return PCD_OK;
    }
    return PCD_END;
}

pcd_status pcd_mut_fuzz(pcd_mut *m, const uint8_t *in, size_t size, uint8_t *out, size_t cap, size_t *len)
{
    *len = 0;
    pcd_status st = pcd_mut_load(m, in, size);
    if (st != PCD_OK) {
        st = pcd_mut_generate(m);
        if (st != PCD_OK) return st;
        return pcd_mut_encode(m, out, cap, len);
    }
    for (int t = 0; t < 4; t++) {
        if (t && !restore(m)) return PCD_E_NOMEM;
        uint32_t n;
        st = pcd_mut_mutate(m, &n);
        if (st == PCD_E_NOMEM) return st;
        st = pcd_mut_encode(m, out, cap, len);
        if (st == PCD_OK) return st;
    }
    if (!restore(m)) return PCD_E_NOMEM;
    return pcd_mut_encode(m, out, cap, len);
}

/* ---- the seed-less generator ---- */

/* A new record of region rd (a random case of a union), made valid by its schema's
 * starting values. */
void *pcd_mut_new_record(pcd_mut *m, const pcd_region_desc *rd)
{
    const pcd_type *t = rd->record;
    uint8_t *q = pcd_arena_alloc(&m->ma, t->size);
    if (!q) return NULL;
    memset(q, 0, t->size);
    if (t->is_union && t->n_fields) {
        const pcd_mut_init *in = pcd_mut_init_of(m->mu, t);
        if (!in || !in->set_case) {
            /* without a tag of its own (protobuf field records): a case whose value is
             * a number or a message */
            *(uint32_t *)q = (uint32_t)pcd_mut_below(m, t->n_fields);
            if (t->fields[*(uint32_t *)q].kind == PCD_K_PB_FIELD) *(uint32_t *)q = 0;
        } else {
            *(uint32_t *)q = (uint32_t)pcd_mut_below(m, t->n_fields);
        }
    }
    pcd_mut_init_type(m->mu, t, q);
    return q;
}

/* Records for the regions of a new record (of type t, at depth): some regions may only be
 * there under a condition, so each attempt leaves some out (`keep` in 8: how likely one is
 * filled), the later attempts more of them. */
static bool gen_region(pcd_mut *m, const pcd_type *t, const void *data, uint32_t depth, unsigned keep)
{
    (void)data;
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *f = &t->fields[i];
        if (f->kind != PCD_K_REGION || !f->region) continue;
        if (pcd_mut_below(m, 8) >= keep) continue;
        uint32_t n = depth >= 2 ? (uint32_t)pcd_mut_below(m, 3) : 1 + (uint32_t)pcd_mut_below(m, 24);
        for (uint32_t j = 0; j < n; j++) {
            void *q = pcd_mut_new_record(m, f->region);
            if (!q || !pcd_mut_reserve(m, m->wn + 1)) return false;
            pcd_mut_edit(m, m->wn, m->wn, 1);
            m->w[m->wn++] = (mrec){ f->region, f->region->record, q, depth + 1, true, UINT64_MAX, UINT32_MAX };
            if (!pcd_mut_check_record(m, m->wn - 1)) {
                pcd_mut_edit(m, m->wn - 1, m->wn, 0);
                m->wn--;   /* a case whose starting values do not make it valid */
                continue;
            }
            const pcd_type *rt = f->region->record;
            if (rt->is_union) {
                uint32_t w = *(uint32_t *)q;
                if (w < rt->n_fields && rt->fields[w].kind == PCD_K_STRUCT && rt->fields[w].type &&
                    depth < 4 && !gen_region(m, rt->fields[w].type, q, depth + 1, keep))
                    return false;
            } else if (depth < 4 && !gen_region(m, rt, q, depth + 1, keep)) {
                return false;
            }
        }
    }
    return true;
}

pcd_status pcd_mut_generate(pcd_mut *m)
{
    /* an empty set to start from */
    m->pristine.n = 0;
    m->pristine.nspans = 0;
    pcd_arena_reset(&m->pristine.arena);
    m->pristine.gz = false;
    m->pristine.big = false;
    m->loaded = false;
    m->cache_built = m->cache_remap = false;
    m->encodes = 0;
    pcd_mut_edit_all(m);
    void *root = pcd_arena_alloc(&m->pristine.arena, m->f->root_size);
    if (!root) return PCD_E_NOMEM;
    memset(root, 0, m->f->root_size);
    pcd_mut_init_type(m->mu, m->f->root, root);
    if (!set_push(m->al, &m->pristine, (mrec){ NULL, m->f->root, root, 0, false, UINT64_MAX })) return PCD_E_NOMEM;
    m->ndefs = 0;
    memset(m->index_count, 0, sizeof m->index_count);
    for (int attempt = 0; attempt < 8; attempt++) {
        pcd_mut_edit_all(m);
        if (!restore(m)) return PCD_E_NOMEM;
        if (!gen_region(m, m->f->root, root, 0, attempt < 2 ? 8 : attempt < 5 ? 5 : 3)) return PCD_E_NOMEM;
        /* values made different, then references pointed at what is there */
        uint32_t n = (uint32_t)m->wn;
        for (uint32_t i = 0; i < n; i++) {
            static const pcd_mut_kind valid[] = { PCD_MUT_INT_NEAR, PCD_MUT_INT_BOUNDARY, PCD_MUT_STR_LENGTH,
                                                  PCD_MUT_ARRAY_INSERT };
            pcd_mut_apply_kind(m, valid[pcd_mut_below(m, 4)]);
        }
        mset cur = { m->w, m->wn, m->wn, m->pristine.arena, false, false };
        pcd_mut_scan_keys(m, &cur);
        for (uint32_t i = 0; i < n; i++) pcd_mut_apply_kind(m, PCD_MUT_REF_REAL);
        size_t len;
        pcd_status st = pcd_mut_encode_records(m, m->w, m->wn, m->buf, m->buf_cap, &len, SIZE_MAX, NULL);
        if (st == PCD_OK && pcd_mut_decodes(m, m->buf, len)) break;
        if (attempt == 7) {
            /* the root alone */
            pcd_mut_edit_all(m);
            if (!restore(m)) return PCD_E_NOMEM;
        }
    }
    /* what was made becomes what is loaded */
    mset *s = &m->pristine;
    size_t n = m->wn;
    mrec *made = m->w;
    s->n = 1;
    for (size_t i = 1; i < n; i++) {
        mrec r = made[i];
        void *q = pcd_arena_alloc(&s->arena, r.type->size);
        if (!q || !pcd_mut_copy(&s->arena, r.type, q, r.data) || !set_push(m->al, s, r)) return PCD_E_NOMEM;
        s->r[s->n - 1].data = q;
        s->r[s->n - 1].owned = false;
    }
    void *q = pcd_arena_alloc(&s->arena, m->f->root_size);
    if (!q || !pcd_mut_copy(&s->arena, m->f->root, q, made[0].data)) return PCD_E_NOMEM;
    s->r[0].data = q;
    pcd_mut_scan_keys(m, s);
    m->cache_built = m->cache_remap = false;
    m->encodes = 0;
    pcd_mut_edit_all(m);
    if (!restore(m)) return PCD_E_NOMEM;
    pcd_mut_note(m, "generated %zu records", m->wn);
    return PCD_OK;
}

/* ---- shrinking ---- */

uint32_t pcd_mut_shrink_steps(pcd_mut *m)
{
    if (!m->wn || !restore(m)) return 0;
    m->det = true;
    size_t total = 0;
    for (size_t k = 0; k < m->wn; k++) {
        pcd_mut_sites(m, m->w[k].type, m->w[k].data, false, "r", -1);
        total += m->nsites;
    }
    m->det = false;
    return (uint32_t)(m->wn - 1 + total);
}

/* Applies step to the working copy (restored first); PCD_END when it does nothing. */
static pcd_status shrink_step(pcd_mut *m, uint32_t step)
{
    if (!m->wn || !restore(m)) return PCD_E_ARG;
    if (step < m->wn - 1) {
        size_t k = m->wn - 1 - step;
        size_t e = pcd_mut_subtree_end(m->w, m->wn, k);
        snprintf(m->sdesc, sizeof m->sdesc, "drop %s[%zu] (%zu records)", m->w[k].rd->name, k, e - k);
        memmove(m->w + k, m->w + e, (m->wn - e) * sizeof *m->w);
        pcd_mut_edit(m, k, e, 0);
        m->wn -= e - k;
        return PCD_OK;
    }
    size_t j = step - (m->wn - 1);
    for (size_t k = 0; k < m->wn; k++) {
        pcd_mut_sites(m, m->w[k].type, m->w[k].data, false, "r", -1);
        if (j >= m->nsites) {
            j -= m->nsites;
            continue;
        }
        void *d = pcd_mut_own(m, k);
        if (!d) return PCD_E_NOMEM;
        pcd_mut_sites(m, m->w[k].type, d, true, m->w[k].rd ? m->w[k].rd->name : m->f->root->name, k ? (int32_t)k : -1);
        if (j >= m->nsites) return PCD_END;
        msite *s = &m->sites[j];
        char path[160];
        pcd_mut_site_path(s, path, sizeof path);
        if (pcd_mut_is_int(s->kind) || s->kind == PCD_K_MOJO) {
            if (pcd_mut_get_int(s->kind, s->p) == 0) return PCD_END;
            pcd_mut_set_int(s->kind, s->p, 0);
            snprintf(m->sdesc, sizeof m->sdesc, "shrink %s to 0", path);
        } else if (s->kind == PCD_K_BYTES || s->kind == PCD_K_STRING) {
            pcd_bytes *b = s->p;
            if (!b->len) return PCD_END;
            b->len = b->len > 1 ? b->len / 2 : 0;
            snprintf(m->sdesc, sizeof m->sdesc, "shrink %s to %zu bytes", path, b->len);
        } else if (s->kind == PCD_K_ARRAY) {
            size_t *n = (size_t *)((uint8_t *)s->owner + s->f->aux);
            if (!*n) return PCD_END;
            *n = *n > 1 ? *n / 2 : 0;
            if (s->owner_t->layout_at) ((pcd_pb_layout *)((uint8_t *)s->owner + s->owner_t->layout_at - 1))->n = 0;
            snprintf(m->sdesc, sizeof m->sdesc, "shrink %s to %zu elements", path, *n);
        } else {
            return PCD_END;
        }
        return PCD_OK;
    }
    return PCD_END;
}

pcd_status pcd_mut_shrink(pcd_mut *m, uint32_t step, uint8_t *out, size_t cap, size_t *len)
{
    *len = 0;
    m->det = true;
    pcd_status st = shrink_step(m, step);
    m->det = false;
    if (st == PCD_OK) {
        int layer = m->layer;
        m->layer = -1;
        st = pcd_mut_encode(m, out, cap, len);
        m->layer = layer;
        if (st != PCD_OK) st = PCD_END;   /* a step the encoder refuses is no step */
    }
    restore(m);
    return st;
}

const char *pcd_mut_shrink_describe(pcd_mut *m, uint32_t step)
{
    m->sdesc[0] = 0;
    m->det = true;
    pcd_status st = shrink_step(m, step);
    m->det = false;
    if (st != PCD_OK) snprintf(m->sdesc, sizeof m->sdesc, "step %u: nothing", step);
    restore(m);
    return m->sdesc;
}

/* ---- the mutation kinds (pcd_mut.h lists them): each changes the working
 * copy of the loaded records, and notes what it did. A kind that keeps the file valid
 * checks the record it changed (encoded and decoded alone) and undoes a change that
 * fails; the layer-breaking kinds change encoded bytes. (One file with the engine above,
 * which they call and which calls them.) */

/* What a change overwrote, to undo it. */
typedef struct undo {
    void *at[2];
    size_t n[2];
    uint8_t b[2][1024];
    int k;
} undo;

static void save(undo *u, void *p, size_t n)
{
    if (u->k >= 2 || n > sizeof u->b[0]) return;
    u->at[u->k] = p;
    u->n[u->k] = n;
    memcpy(u->b[u->k], p, n);
    u->k++;
}

static void undo_all(undo *u)
{
    while (u->k > 0) {
        u->k--;
        memcpy(u->at[u->k], u->b[u->k], u->n[u->k]);
    }
}

static size_t value_size(uint8_t kind)
{
    switch (kind) {
    case PCD_K_U8: case PCD_K_S8: return 1;
    case PCD_K_U16: case PCD_K_S16: return 2;
    case PCD_K_U32: case PCD_K_S32: case PCD_K_F32: return 4;
    case PCD_K_MOJO: return sizeof(pcd_mojo_int);
    case PCD_K_BYTES: case PCD_K_STRING: return sizeof(pcd_bytes);
    default: return 8;
    }
}

static const char *rec_name(const pcd_mut *m, size_t k)
{
    return m->w[k].rd ? m->w[k].rd->name : m->f->root->name;
}

typedef bool (*site_filter)(const msite *s);

static bool is_num(const msite *s) { return pcd_mut_is_int(s->kind) || s->kind == PCD_K_MOJO; }
static bool is_numf(const msite *s) { return is_num(s) || s->kind == PCD_K_F32 || s->kind == PCD_K_F64; }
static bool is_str(const msite *s) { return s->kind == PCD_K_BYTES || s->kind == PCD_K_STRING; }
static bool is_arr(const msite *s) { return s->kind == PCD_K_ARRAY && pcd_mut_elem_size(s->f); }
static bool is_union(const msite *s) { return s->kind == PCD_K_UNION; }
static bool is_ref(const msite *s) { return is_num(s) && s->f->ref; }
static bool is_key(const msite *s) { return is_num(s) && s->f->key && !(s->f->flags & PCD_F_INDEX_KEY); }

/* A site that passes filter in a random record (made the working copy's own); NULL when
 * none is found in a few tries. */
static msite *pick_site(pcd_mut *m, site_filter filter, size_t *rec)
{
    bool root_ok = m->o.evil && m->wn == 1;
    for (int t = 0; t < 12; t++) {
        size_t k;
        if (m->wn > 1) k = 1 + (size_t)pcd_mut_below(m, m->wn - 1);
        else if (root_ok) k = 0;
        else return NULL;
        /* look first, then copy the record that has one */
        pcd_mut_sites(m, m->w[k].type, m->w[k].data, false, rec_name(m, k), k ? (int32_t)k : -1);
        size_t hits = 0;
        for (size_t i = 0; i < m->nsites; i++) hits += filter(&m->sites[i]);
        if (!hits) continue;
        void *d = pcd_mut_own(m, k);
        if (!d) return NULL;
        pcd_mut_sites(m, m->w[k].type, d, true, rec_name(m, k), k ? (int32_t)k : -1);
        size_t cand[MUT_MAX_SITES], n = 0;
        for (size_t i = 0; i < m->nsites; i++)
            if (filter(&m->sites[i])) cand[n++] = i;
        if (!n) continue;
        *rec = k;
        return &m->sites[cand[pcd_mut_below(m, n)]];
    }
    return NULL;
}

/* A present flag of an optional (protobuf) field set with its value. */
static void set_present(undo *u, msite *s)
{
    if (!(s->f->flags & PCD_F_OPTIONAL) || !s->f->present || s->f->kind == PCD_K_ARRAY) return;
    bool *p = (bool *)((uint8_t *)s->owner + s->f->present);
    save(u, p, sizeof *p);
    *p = true;
}

static pcd_status finish(pcd_mut *m, pcd_mut_kind kind, size_t k, undo *u)
{
    if (!pcd_mut_check_record_as(m, k, !pcd_mut_kind_keeps(kind))) {
        undo_all(u);
        return PCD_E_RANGE;
    }
    return PCD_OK;
}

static unsigned width_bits(uint8_t kind)
{
    switch (kind) {
    case PCD_K_U8: case PCD_K_S8: return 8;
    case PCD_K_U16: case PCD_K_S16: return 16;
    case PCD_K_U32: case PCD_K_S32: return 32;
    default: return 64;
    }
}

static bool is_signed(uint8_t kind) { return kind >= PCD_K_S8 && kind <= PCD_K_S64; }

/* Boundary values of an integer kind: the width's edges and the varint length edges. */
static uint64_t boundary(pcd_mut *m, uint8_t kind, bool evil)
{
    unsigned w = width_bits(kind);
    uint64_t max = w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
    if (evil) {
        uint64_t smax = max >> 1;
        const uint64_t v[] = { max, smax, smax + 1, (uint64_t)-1, UINT64_C(1) << 63, (UINT64_C(1) << 63) - 1,
                               max - 1, UINT64_C(0xffffffff), UINT64_C(0x100000000), UINT64_C(0x7fffffff),
                               UINT64_C(0x80000000), (uint64_t)-2 };
        return v[pcd_mut_below(m, sizeof v / sizeof v[0])];
    }
    static const uint64_t edges[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xffff,
                                      0x10000, 0x1fffff, 0x200000, 0xfffffff, 0x10000000, 0x7fffffff };
    for (int t = 0; t < 8; t++) {
        uint64_t v = edges[pcd_mut_below(m, sizeof edges / sizeof edges[0])];
        if (is_signed(kind) && pcd_mut_chance(m, 0.3)) v = (uint64_t)0 - v;
        if (v <= max || is_signed(kind)) return v;
    }
    return 0;
}

static pcd_status k_int(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    msite *s = pick_site(m, kind == PCD_MUT_INT_NEAR ? is_num : is_numf, &k);
    if (!s) return PCD_END;
    undo u = { .k = 0 };
    save(&u, s->p, value_size(s->kind));
    set_present(&u, s);
    char path[160], val[48];
    pcd_mut_site_path(s, path, sizeof path);
    if (s->kind == PCD_K_F32 || s->kind == PCD_K_F64) {
        /* (a float's own range: a double beyond it does not convert) */
        static const double dv[] = { 0.0, -0.0, 1.0, -1.0, 1e308, -1e308, 5e-324, 3.4e38 };
        static const double fv[] = { 0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1.4e-45, 1.17549435e-38 };
        double d = s->kind == PCD_K_F32 ? fv[pcd_mut_below(m, 8)] : dv[pcd_mut_below(m, 8)];
        if (kind == PCD_MUT_INT_EVIL) {
            const double ev[] = { __builtin_nan(""), __builtin_inf(), -__builtin_inf() };
            d = ev[pcd_mut_below(m, 3)];
        }
        if (s->kind == PCD_K_F32) *(float *)s->p = (float)d;
        else *(double *)s->p = d;
        snprintf(val, sizeof val, "%g", d);
    } else if (kind == PCD_MUT_INT_NEAR) {
        uint64_t d = 1 + pcd_mut_below(m, 16);
        uint64_t v = pcd_mut_get_int(s->kind, s->p);
        v = pcd_mut_chance(m, 0.5) ? v + d : v - d;
        pcd_mut_set_int(s->kind, s->p, v);
        snprintf(val, sizeof val, "%" PRId64, (int64_t)pcd_mut_get_int(s->kind, s->p));
    } else if (s->kind == PCD_K_MOJO && kind == PCD_MUT_INT_EVIL && pcd_mut_chance(m, 0.4)) {
        pcd_mojo_int *v = s->p;
        static const uint64_t mags[] = { 0, UINT64_MAX, UINT64_C(1) << 63, UINT64_MAX >> 1 };
        v->mag = mags[pcd_mut_below(m, 4)];
        v->neg = true;   /* minus zero, and magnitudes no int64 holds */
        snprintf(val, sizeof val, "-%" PRIu64, v->mag);
    } else {
        pcd_mut_set_int(s->kind, s->p, boundary(m, s->kind, kind == PCD_MUT_INT_EVIL));
        snprintf(val, sizeof val, "%" PRId64, (int64_t)pcd_mut_get_int(s->kind, s->p));
    }
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) pcd_mut_note(m, "%s %s=%s", pcd_mut_kind_name(kind), path, val);
    return st;
}

static pcd_status k_tag(pcd_mut *m)
{
    size_t k;
    msite *s = pick_site(m, is_union, &k);
    if (!s) return PCD_END;
    const pcd_type *ut = s->union_t;
    uint32_t cur = *(uint32_t *)s->p;
    uint32_t c = (uint32_t)pcd_mut_below(m, ut->n_fields - 1);
    if (c >= cur) c++;
    if (c >= ut->n_fields || ut->fields[c].kind == PCD_K_PB_FIELD) return PCD_END;
    undo u = { .k = 0 };
    save(&u, s->p, ut->size);
    /* a payload from a record that has that case, else the case's starting values */
    const void *donor = NULL;
    for (int t = 0; t < 32 && !donor; t++) {
        size_t j = (size_t)pcd_mut_below(m, m->wn);
        if (m->w[j].type == ut && *(const uint32_t *)m->w[j].data == c) donor = m->w[j].data;
    }
    if (donor) {
        memcpy(s->p, donor, ut->size);
    } else {
        const pcd_mut_init *in = pcd_mut_init_of(m->mu, ut);
        if (!in || !in->set_case) {
            undo_all(&u);
            return PCD_END;
        }
        memset(s->p, 0, ut->size);
        *(uint32_t *)s->p = c;
        pcd_mut_init_type(m->mu, ut, s->p);
    }
    pcd_status st = finish(m, PCD_MUT_TAG, k, &u);
    if (st == PCD_OK) {
        char path[160];
        pcd_mut_site_path(s, path, sizeof path);
        pcd_mut_note(m, "tag %s: %s -> %s%s", path, ut->fields[cur < ut->n_fields ? cur : 0].name, ut->fields[c].name,
                 donor ? " (payload of another)" : "");
    }
    return st;
}

static uint8_t *new_bytes(pcd_mut *m, size_t n) { return pcd_arena_alloc(&m->ma, n ? n : 1); }

static pcd_status k_str(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    pcd_bytes from = { NULL, 0 };
    if (kind == PCD_MUT_STR_COPY) {
        /* the value of another string first (the sites are found again below) */
        size_t j = (size_t)pcd_mut_below(m, m->wn);
        pcd_mut_sites(m, m->w[j].type, m->w[j].data, false, "x", -1);
        size_t cand[MUT_MAX_SITES], n = 0;
        for (size_t i = 0; i < m->nsites; i++)
            if (is_str(&m->sites[i])) cand[n++] = i;
        if (!n) return PCD_END;
        from = *(pcd_bytes *)m->sites[cand[pcd_mut_below(m, n)]].p;
    }
    msite *s = pick_site(m, is_str, &k);
    if (!s) return PCD_END;
    undo u = { .k = 0 };
    save(&u, s->p, sizeof(pcd_bytes));
    set_present(&u, s);
    pcd_bytes *b = s->p;
    char path[160], what[64];
    pcd_mut_site_path(s, path, sizeof path);
    if (kind == PCD_MUT_STR_COPY) {
        *b = from;
        snprintf(what, sizeof what, "copied (%zu bytes)", b->len);
    } else if (kind == PCD_MUT_STR_LENGTH) {
        size_t n;
        switch (pcd_mut_below(m, 5)) {
        case 0: n = 0; break;
        case 1: n = b->len / 2; break;
        case 2: n = b->len + 1 + (size_t)pcd_mut_below(m, 16); break;
        case 3: n = b->len * 2 + 1; break;
        default: { static const size_t big[] = { 127, 128, 255, 256, 1023, 4096 }; n = big[pcd_mut_below(m, 6)]; }
        }
        if (n > 4096) n = 4096;
        uint8_t *q = new_bytes(m, n);
        if (!q) return PCD_E_NOMEM;
        for (size_t i = 0; i < n; i++)
            q[i] = b->len ? b->ptr[i % b->len] : (uint8_t)('a' + pcd_mut_below(m, 26));
        if (n > b->len && b->len) /* a few letters of its own at the end */
            for (size_t i = b->len; i < n && i < b->len + 4; i++) q[i] = (uint8_t)('a' + pcd_mut_below(m, 26));
        b->ptr = q;
        b->len = n;
        snprintf(what, sizeof what, "%zu bytes", n);
    } else {
        static const uint8_t bad[][5] = { { 0xff }, { 0xc0, 0x80 }, { 0xed, 0xa0, 0x80 }, { 0xe2, 0x82 },
                                          { 0xf8, 0x88, 0x80, 0x80, 0x80 }, { 0x80 }, { 0xf4, 0x90, 0x80, 0x80 } };
        static const uint8_t badlen[] = { 1, 2, 3, 2, 5, 1, 4 };
        size_t pick = kind == PCD_MUT_STR_NUL ? 0 : (size_t)pcd_mut_below(m, 7);
        const uint8_t *ins = kind == PCD_MUT_STR_NUL ? (const uint8_t *)"\0" : bad[pick];
        size_t il = kind == PCD_MUT_STR_NUL ? 1 : badlen[pick];
        size_t at = (size_t)pcd_mut_below(m, b->len + 1);
        uint8_t *q = new_bytes(m, b->len + il);
        if (!q) return PCD_E_NOMEM;
        if (at) memcpy(q, b->ptr, at);
        memcpy(q + at, ins, il);
        if (b->len > at) memcpy(q + at + il, b->ptr + at, b->len - at);
        b->ptr = q;
        b->len += il;
        snprintf(what, sizeof what, "%zu bytes inserted at %zu", il, at);
    }
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) pcd_mut_note(m, "%s %s: %s", pcd_mut_kind_name(kind), path, what);
    return st;
}

static pcd_status k_array(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    msite *s = pick_site(m, is_arr, &k);
    if (!s) return PCD_END;
    uint8_t *owner = s->owner;
    void **pp = (void **)(owner + s->f->offset);
    size_t *pn = (size_t *)(owner + s->f->aux), n = *pn, es = pcd_mut_elem_size(s->f);
    if (kind != PCD_MUT_ARRAY_INSERT && !n) return PCD_END;
    if (n > (1u << 20)) return PCD_END;
    undo u = { .k = 0 };
    save(&u, pp, sizeof *pp);
    save(&u, pn, sizeof *pn);
    size_t nn = kind == PCD_MUT_ARRAY_DELETE ? n - 1 : n + 1;
    uint8_t *q = pcd_arena_alloc(&m->ma, (nn ? nn : 1) * es);
    if (!q) return PCD_E_NOMEM;
    const uint8_t *old = *pp;
    size_t i = (size_t)pcd_mut_below(m, n + (kind == PCD_MUT_ARRAY_INSERT));
    if (kind == PCD_MUT_ARRAY_DELETE) {
        memcpy(q, old, i * es);
        memcpy(q + i * es, old + (i + 1) * es, (n - i - 1) * es);
    } else {
        if (i) memcpy(q, old, i * es);
        if (n > i) memcpy(q + (i + 1) * es, old + i * es, (n - i) * es);
        if (n) {
            size_t from = kind == PCD_MUT_ARRAY_DUP ? (i < n ? i : n - 1) : (size_t)pcd_mut_below(m, n);
            memcpy(q + i * es, old + from * es, es);
        } else {
            memset(q + i * es, 0, es);
            if ((s->f->elem_kind == PCD_K_STRUCT || s->f->elem_kind == PCD_K_UNION) && s->f->type)
                pcd_mut_init_type(m->mu, s->f->type, q + i * es);
        }
    }
    *pp = q;
    *pn = nn;
    if (s->owner_t->layout_at) {
        /* the layout told how the fields stood: they are written canonically now */
        size_t *ln = &((pcd_pb_layout *)(owner + s->owner_t->layout_at - 1))->n;
        if (u.k < 2) save(&u, ln, sizeof *ln);
        *ln = 0;
    }
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) {
        char path[160];
        pcd_mut_site_path(s, path, sizeof path);
        pcd_mut_note(m, "%s %s[%zu] (now %zu)", pcd_mut_kind_name(kind), path, i, nn);
    }
    return st;
}

/* ---- records ---- */

static bool insert_recs(pcd_mut *m, size_t at, const mrec *r, size_t cnt)
{
    if (!pcd_mut_reserve(m, m->wn + cnt)) return false;
    memmove(m->w + at + cnt, m->w + at, (m->wn - at) * sizeof *m->w);
    memcpy(m->w + at, r, cnt * sizeof *r);
    pcd_mut_edit(m, at, at, cnt);
    m->wn += cnt;
    return true;
}

static pcd_status k_rec_insert(pcd_mut *m)
{
    const pcd_region_desc *rd = NULL;
    size_t at = 1;
    uint32_t depth = 1;
    if (m->wn > 1) {
        size_t k = 1 + (size_t)pcd_mut_below(m, m->wn - 1);
        rd = m->w[k].rd;
        depth = m->w[k].depth;
        at = pcd_mut_subtree_end(m->w, m->wn, k);
    } else {
        const pcd_type *t = m->f->root;
        for (uint32_t i = 0; i < t->n_fields && !rd; i++)
            if (t->fields[i].kind == PCD_K_REGION) rd = t->fields[i].region;
    }
    if (!rd) return PCD_END;
    void *q = pcd_mut_new_record(m, rd);
    if (!q) return PCD_E_NOMEM;
    mrec r = { rd, rd->record, q, depth, true, UINT64_MAX, UINT32_MAX };
    if (!insert_recs(m, at, &r, 1)) return PCD_E_NOMEM;
    if (!pcd_mut_check_record(m, at)) {
        memmove(m->w + at, m->w + at + 1, (m->wn - at - 1) * sizeof *m->w);
        pcd_mut_edit(m, at, at + 1, 0);
        m->wn--;
        return PCD_E_RANGE;
    }
    const pcd_type *t = rd->record;
    uint32_t w = t->is_union ? *(uint32_t *)q : 0;
    pcd_mut_note(m, "rec_insert %s[%zu] (new%s%s)", rd->name, at, t->is_union ? " " : "",
             t->is_union && w < t->n_fields ? t->fields[w].name : "");
    return PCD_OK;
}

static pcd_status k_rec(pcd_mut *m, pcd_mut_kind kind)
{
    if (m->wn < 2) return PCD_END;
    size_t k = 1 + (size_t)pcd_mut_below(m, m->wn - 1);
    size_t e = pcd_mut_subtree_end(m->w, m->wn, k), cnt = e - k;
    if (kind == PCD_MUT_REC_DELETE) {
        pcd_mut_note(m, "rec_delete %s[%zu] (%zu records)", m->w[k].rd->name, k, cnt);
        memmove(m->w + k, m->w + e, (m->wn - e) * sizeof *m->w);
        pcd_mut_edit(m, k, e, 0);
        m->wn -= cnt;
        return PCD_OK;
    }
    if (cnt > 4096) return PCD_END;
    mrec *tmp = pcd_arena_alloc(&m->ma, cnt * sizeof *tmp);
    if (!tmp) return PCD_E_NOMEM;
    memcpy(tmp, m->w + k, cnt * sizeof *tmp);
    for (size_t i = 0; i < cnt; i++) {
        /* shared with the original from now on: copied before a change; a changed one is
         * no longer what was loaded */
        if (m->w[k + i].owned) tmp[i].pidx = m->w[k + i].pidx = UINT32_MAX;
        tmp[i].owned = m->w[k + i].owned = false;
        if (kind != PCD_MUT_REC_SWAP) tmp[i].pidx = UINT32_MAX;
    }
    pcd_mut_edit(m, k, e, cnt);
    if (kind == PCD_MUT_REC_DUP) {
        for (size_t i = 0; i < cnt; i++) tmp[i].origin = UINT64_MAX;
        if (!insert_recs(m, e, tmp, cnt)) return PCD_E_NOMEM;
        pcd_mut_note(m, "rec_dup %s[%zu] (%zu records)", m->w[k].rd->name, k, cnt);
        return PCD_OK;
    }
    if (kind == PCD_MUT_REC_SWAP) {
        /* with the next record of the same region */
        if (e >= m->wn || m->w[e].depth != m->w[k].depth || m->w[e].rd != m->w[k].rd) return PCD_END;
        size_t e2 = pcd_mut_subtree_end(m->w, m->wn, e), cnt2 = e2 - e;
        memmove(m->w + k, m->w + e, cnt2 * sizeof *m->w);
        memcpy(m->w + k + cnt2, tmp, cnt * sizeof *tmp);
        pcd_mut_edit(m, k, e2, cnt + cnt2);
        pcd_mut_note(m, "rec_swap %s[%zu] with the next", m->w[k].rd->name, k);
        return PCD_OK;
    }
    /* splice: a copy after another record of the same region, elsewhere */
    for (int t = 0; t < 16; t++) {
        size_t j = 1 + (size_t)pcd_mut_below(m, m->wn - 1);
        if (m->w[j].rd != m->w[k].rd || m->w[j].depth != m->w[k].depth || j == k) continue;
        size_t at = pcd_mut_subtree_end(m->w, m->wn, j);
        for (size_t i = 0; i < cnt; i++) tmp[i].origin = UINT64_MAX;
        if (!insert_recs(m, at, tmp, cnt)) return PCD_E_NOMEM;
        pcd_mut_note(m, "rec_splice %s[%zu] copied after [%zu]", m->w[k].rd->name, k, j);
        return PCD_OK;
    }
    return PCD_END;
}

/* ---- references ---- */

static pcd_status k_ref(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    msite *s = pick_site(m, kind == PCD_MUT_KEY_REDEFINE ? is_key : is_ref, &k);
    if (!s) return PCD_END;
    const char *space = kind == PCD_MUT_KEY_REDEFINE ? s->f->key : s->f->ref;
    int sp = pcd_mut_space(m, space);
    if (sp < 0) return PCD_END;
    bool index = sp < 16 && m->index_count[sp] > 0;
    size_t nd = 0, cand[256];
    uint64_t maxv = 0;
    for (size_t i = 0; i < m->ndefs; i++)
        if (m->defs[i].space == (uint32_t)sp) {
            if (nd < 256) cand[nd] = i;
            nd++;
            if (m->defs[i].value > maxv) maxv = m->defs[i].value;
        }
    if (nd > 256) nd = 256;
    undo u = { .k = 0 };
    save(&u, s->p, value_size(s->kind));
    set_present(&u, s);
    uint64_t v;
    const char *why;
    if (kind == PCD_MUT_REF_REAL) {
        if (index) v = pcd_mut_below(m, m->index_count[sp]);
        else if (nd) v = m->defs[cand[pcd_mut_below(m, nd)]].value;
        else return PCD_END;
        why = "a target that exists";
    } else if (kind == PCD_MUT_REF_STALE) {
        if (index) {
            v = m->index_count[sp];
            why = "one past the last target";
        } else {
            /* a target defined only after the reference */
            size_t later[256], nl = 0;
            for (size_t i = 0; i < nd; i++)
                if (m->defs[cand[i]].rec > k) later[nl++] = cand[i];
            if (!nl) return PCD_END;
            v = m->defs[later[pcd_mut_below(m, nl)]].value;
            why = "a target defined only later";
        }
    } else if (kind == PCD_MUT_REF_MISSING) {
        static const uint64_t far[] = { UINT64_C(0x7fffffff), UINT64_C(0x80000000), UINT64_C(0xffffffff),
                                        UINT64_MAX, UINT64_C(1) << 63 };
        uint64_t top = index ? m->index_count[sp] : maxv + 1;
        v = pcd_mut_chance(m, 0.6) ? top + pcd_mut_below(m, 1000) : far[pcd_mut_below(m, 5)];
        why = "no target";
    } else {
        if (nd < 2) return PCD_END;
        v = m->defs[cand[pcd_mut_below(m, nd)]].value;
        why = "the key of another definition";
    }
    pcd_mut_set_int(s->kind, s->p, v);
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) {
        char path[160];
        pcd_mut_site_path(s, path, sizeof path);
        pcd_mut_note(m, "%s %s=%" PRIu64 " (%s %s)", pcd_mut_kind_name(kind), path, v, space, why);
    }
    return st;
}

/* ---- rec_shrink: many records of one kind dropped at once, references kept sound ---- */

/* A walk over every value of a record (array elements one by one, into structs and the present
 * case of unions), as the key scan walks them. */
typedef struct shwalk {
    pcd_mut *m;
    const char *want;            /* refs: the key space whose references are collected */
    uint64_t *refs;              /* NULL: counting them */
    size_t nrefs;
    const char *key;             /* keys: the first key the record defines (NULL: none) */
    bool index;                  /* ... by its position (index_key) */
    uint64_t keyval;
    size_t nindex;               /* index_key occurrences of `want` */
} shwalk;

typedef void (*shvisit)(shwalk *w, const pcd_field *f, uint8_t kind, const uint8_t *p);

static void sh_type(shwalk *w, const pcd_type *t, const uint8_t *d, shvisit fn);

static void sh_value(shwalk *w, const pcd_field *f, uint8_t kind, const uint8_t *p, shvisit fn)
{
    fn(w, f, kind, p);
    if ((kind == PCD_K_STRUCT || kind == PCD_K_UNION) && f->type) sh_type(w, f->type, p, fn);
}

static void sh_field(shwalk *w, const pcd_field *f, const uint8_t *d, shvisit fn)
{
    if (f->kind == PCD_K_ARRAY) {
        const uint8_t *a = *(const uint8_t *const *)(d + f->offset);
        size_t n = *(const size_t *)(d + f->aux), es = pcd_mut_elem_size(f);
        /* an array of numbers only when it defines keys or refers into the space wanted */
        if (!f->key && f->elem_kind != PCD_K_STRUCT && f->elem_kind != PCD_K_UNION &&
            !(f->ref && w->want && strcmp(f->ref, w->want) == 0))
            return;
        for (size_t i = 0; a && i < n; i++) sh_value(w, f, f->elem_kind, a + i * es, fn);
    } else if (f->kind != PCD_K_REGION && f->kind != PCD_K_PB_OTHER && f->kind != PCD_K_PB_FIELD) {
        sh_value(w, f, f->kind, d + f->offset, fn);
    }
}

static void sh_type(shwalk *w, const pcd_type *t, const uint8_t *d, shvisit fn)
{
    if (t->is_union) {
        uint32_t c = *(const uint32_t *)d;
        if (c < t->n_fields) sh_field(w, &t->fields[c], d, fn);
        return;
    }
    for (uint32_t i = 0; i < t->n_fields; i++) sh_field(w, &t->fields[i], d, fn);
}

static bool sh_int(uint8_t kind) { return pcd_mut_is_int(kind) || kind == PCD_K_MOJO; }

static void visit_ref(shwalk *w, const pcd_field *f, uint8_t kind, const uint8_t *p)
{
    if (f->key && (f->flags & PCD_F_INDEX_KEY) && strcmp(f->key, w->want) == 0) w->nindex++;
    if (!f->ref || !sh_int(kind) || strcmp(f->ref, w->want) != 0) return;
    if (w->refs) w->refs[w->nrefs] = pcd_mut_get_int(kind, p);
    w->nrefs++;
}

static void visit_key(shwalk *w, const pcd_field *f, uint8_t kind, const uint8_t *p)
{
    if (!f->key || w->key) return;
    if (f->flags & PCD_F_INDEX_KEY) {
        w->key = f->key;
        w->index = true;
    } else if (sh_int(kind)) {
        w->key = f->key;
        w->keyval = pcd_mut_get_int(kind, p);
    }
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The references of the working copy into the key space `space`, sorted (in m->ma). */
static bool sh_refs(pcd_mut *m, const char *space, shwalk *w)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->want = space;
    for (size_t k = 0; k < m->wn; k++) sh_type(w, m->w[k].type, m->w[k].data, visit_ref);
    size_t n = w->nrefs;
    w->nrefs = 0;
    w->nindex = 0;
    w->refs = pcd_arena_alloc(&m->ma, (n ? n : 1) * sizeof *w->refs);
    if (!w->refs) return false;
    for (size_t k = 0; k < m->wn; k++) sh_type(w, m->w[k].type, m->w[k].data, visit_ref);
    qsort(w->refs, w->nrefs, sizeof *w->refs, cmp_u64);
    return true;
}

static bool sh_referenced(const shwalk *w, uint64_t v)
{
    return bsearch(&v, w->refs, w->nrefs, sizeof v, cmp_u64) != NULL;
}

static bool same_kind(const mrec *a, const mrec *b)
{
    if (a->rd != b->rd || a->depth != b->depth || a->type != b->type) return false;
    return !a->type->is_union || *(const uint32_t *)a->data == *(const uint32_t *)b->data;
}

static const char *kind_of(const mrec *r)
{
    if (r->type->is_union) {
        uint32_t c = *(const uint32_t *)r->data;
        if (c < r->type->n_fields) return r->type->fields[c].name;
    }
    return r->rd ? r->rd->name : r->type->name;
}

/* The records of one kind (a record picked at random gives it: the more records a kind has, the
 * likelier): without keys, about half of them; defining keys, about half of those whose key
 * nothing refers to; an index_key table (pprof's string_table), the second half of its end past
 * the last index referred to. A record goes with the records it holds, and is only dropped when
 * none of those defines a key. */
static pcd_status k_rec_shrink(pcd_mut *m)
{
    if (m->wn < 2) return PCD_END;
    const mrec *pick = &m->w[1 + (size_t)pcd_mut_below(m, m->wn - 1)];
    mrec proto = *pick;
    shwalk kw = { .m = m };
    sh_type(&kw, proto.type, proto.data, visit_key);
    shwalk rw;
    if (kw.key && !sh_refs(m, kw.key, &rw)) return PCD_E_NOMEM;
    bool *drop = pcd_arena_alloc(&m->ma, m->wn * sizeof *drop);
    if (!drop) return PCD_E_NOMEM;
    memset(drop, 0, m->wn * sizeof *drop);
    size_t members = 0, cand = 0, dropped = 0;
    if (kw.key && kw.index) {
        /* positions: each occurrence is the next index; what the file refers to stays */
        uint64_t need = 0;
        for (size_t i = 0; i < rw.nrefs; i++)
            if (rw.refs[i] < UINT64_MAX && rw.refs[i] + 1 > need) need = rw.refs[i] + 1;
        size_t total = rw.nindex;
        if (need >= total) return PCD_END;
        size_t cut = (size_t)need + (total - (size_t)need) / 2;   /* keep [0, cut) */
        shwalk ow = { .m = m, .want = kw.key };
        for (size_t k = 0; k < m->wn; k++) {
            size_t before = ow.nindex;
            sh_type(&ow, m->w[k].type, m->w[k].data, visit_ref);
            if (ow.nindex <= cut || ow.nindex == before) continue;
            /* an occurrence past the cut: its record must be one of the kind, holding one */
            if (!same_kind(&m->w[k], &proto) || ow.nindex - before != 1 || pcd_mut_subtree_end(m->w, m->wn, k) != k + 1)
                return PCD_END;
            drop[k] = true;
            dropped++;
        }
        members = total;
        cand = total - (size_t)need;
    } else {
        for (size_t k = 1; k < m->wn; k++) {
            if (!same_kind(&m->w[k], &proto)) continue;
            members++;
            size_t e = pcd_mut_subtree_end(m->w, m->wn, k);
            shwalk sw = { .m = m };
            sh_type(&sw, m->w[k].type, m->w[k].data, visit_key);
            if (kw.key && (!sw.key || sh_referenced(&rw, sw.keyval))) continue;
            bool inner = false;
            for (size_t j = k + 1; j < e && !inner; j++) {
                shwalk iw = { .m = m };
                sh_type(&iw, m->w[j].type, m->w[j].data, visit_key);
                inner = iw.key != NULL;
            }
            if (inner) continue;
            cand++;
            if (pcd_mut_chance(m, 0.5)) {
                drop[k] = true;
                dropped++;
            }
        }
        if (!cand) return PCD_END;
        if (!dropped) {
            /* at least one: the first candidate */
            for (size_t k = 1; k < m->wn && !dropped; k++) {
                if (!same_kind(&m->w[k], &proto)) continue;
                shwalk sw = { .m = m };
                sh_type(&sw, m->w[k].type, m->w[k].data, visit_key);
                if (kw.key && (!sw.key || sh_referenced(&rw, sw.keyval))) continue;
                bool inner = false;
                size_t e = pcd_mut_subtree_end(m->w, m->wn, k);
                for (size_t j = k + 1; j < e && !inner; j++) {
                    shwalk iw = { .m = m };
                    sh_type(&iw, m->w[j].type, m->w[j].data, visit_key);
                    inner = iw.key != NULL;
                }
                if (inner) continue;
                drop[k] = true;
                dropped++;
            }
        }
    }
    if (!dropped) return PCD_END;
    const char *what = kind_of(&proto), *rd = proto.rd ? proto.rd->name : "file";
    size_t o = 0, first = SIZE_MAX;
    for (size_t k = 0; k < m->wn;) {
        if (drop[k]) {
            if (first == SIZE_MAX) first = k;
            k = pcd_mut_subtree_end(m->w, m->wn, k);
            continue;
        }
        m->w[o++] = m->w[k++];
    }
    if (first != SIZE_MAX) pcd_mut_edit(m, first, m->wn, o - first);
    m->wn = o;
    pcd_mut_note(m, "rec_shrink %s %s: %zu of %zu dropped (%s)", rd, what, dropped, members,
                 kw.key ? (kw.index ? "the unreferenced end of the table" : "keys nothing refers to")
                        : "defining no key");
    (void)cand;
    return PCD_OK;
}

pcd_status pcd_mut_apply_kind(pcd_mut *m, pcd_mut_kind k)
{
    switch (k) {
    case PCD_MUT_REC_SHRINK: return k_rec_shrink(m);
    case PCD_MUT_INT_NEAR: case PCD_MUT_INT_BOUNDARY: case PCD_MUT_INT_EVIL: return k_int(m, k);
    case PCD_MUT_TAG: return k_tag(m);
    case PCD_MUT_STR_LENGTH: case PCD_MUT_STR_COPY: case PCD_MUT_STR_NUL: case PCD_MUT_STR_UTF8: return k_str(m, k);
    case PCD_MUT_ARRAY_INSERT: case PCD_MUT_ARRAY_DELETE: case PCD_MUT_ARRAY_DUP: return k_array(m, k);
    case PCD_MUT_REC_INSERT: return k_rec_insert(m);
    case PCD_MUT_REC_DELETE: case PCD_MUT_REC_DUP: case PCD_MUT_REC_SWAP: case PCD_MUT_REC_SPLICE: return k_rec(m, k);
    case PCD_MUT_REF_REAL: case PCD_MUT_REF_STALE: case PCD_MUT_REF_MISSING: case PCD_MUT_KEY_REDEFINE:
        return k_ref(m, k);
    default: return PCD_E_ARG;
    }
}

/* ---- layers ---- */

static size_t find_zstd(const uint8_t *p, size_t n, size_t from)
{
    for (size_t i = from; i + 4 <= n; i++)
        if (p[i] == 0x28 && p[i + 1] == 0xb5 && p[i + 2] == 0x2f && p[i + 3] == 0xfd) return i;
    return SIZE_MAX;
}

void pcd_mut_layer(pcd_mut *m, int kind, uint8_t *out, size_t cap, size_t *len, uint64_t size_at, size_t size_rec)
{
    size_t n = *len;
    if (kind == PCD_MUT_LAYER_SIZE && size_at != UINT64_MAX && size_rec < m->wn) {
        const pcd_region_desc *rd = m->w[size_rec].rd;
        size_t at = (size_t)size_at + (size_t)rd->size_off, w = rd->size_width;
        if (at + w <= n) {
            bool big = rd->size_native ? m->pristine.big : rd->size_big;
            uint64_t v = 0;
            for (size_t i = 0; i < w; i++) v |= (uint64_t)out[at + (big ? i : w - 1 - i)] << (8 * (w - 1 - i));
            static const int64_t d[] = { 1, -1, 2, -2, 8, -8, 4096, -4096 };
            uint64_t nv = pcd_mut_chance(m, 0.8) ? v + (uint64_t)d[pcd_mut_below(m, 8)] : (uint64_t)-1;
            for (size_t i = 0; i < w; i++) out[at + (big ? i : w - 1 - i)] = (uint8_t)(nv >> (8 * (w - 1 - i)));
            pcd_mut_note(m, "layer_size %s[%zu] size %" PRIu64 " -> %" PRIu64 " (byte %zu)", rd->name, size_rec, v,
                     nv & (w == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * w)) - 1), at);
            return;
        }
        kind = PCD_MUT_LAYER_TRUNCATE;
    }
    if (kind == PCD_MUT_LAYER_SIZE) kind = PCD_MUT_LAYER_TRUNCATE;
    if (kind == PCD_MUT_LAYER_ZSTD) {
        size_t z = find_zstd(out, n, 0), nz = 0;
        for (size_t i = z; i != SIZE_MAX; i = find_zstd(out, n, i + 1)) nz++;
        if (nz) {
            size_t pick = (size_t)pcd_mut_below(m, nz);
            for (size_t i = 0; i < pick; i++) z = find_zstd(out, n, z + 1);
            /* the frame header, a block header, or a byte further in (data, checksum) */
            size_t span = n - z, at;
            switch (pcd_mut_below(m, 3)) {
            case 0: at = z + 4 + (size_t)pcd_mut_below(m, span > 6 ? 2 : 1); break;
            case 1: at = z + 4 + (size_t)pcd_mut_below(m, span > 16 ? 12 : span - 4 > 0 ? span - 4 : 1); break;
            default: at = z + (size_t)pcd_mut_below(m, span);
            }
            if (at >= n) at = n - 1;
            uint8_t was = out[at];
            out[at] ^= (uint8_t)(1u << pcd_mut_below(m, 8));
            pcd_mut_note(m, "layer_zstd byte %zu of a zstd frame at %zu: 0x%02x -> 0x%02x", at - z, z, was, out[at]);
            return;
        }
        kind = PCD_MUT_LAYER_TRUNCATE;
    }
    if (kind == PCD_MUT_LAYER_GZIP && n >= 18) {
        size_t at;
        const char *what;
        switch (pcd_mut_below(m, 3)) {
        case 0: at = n - 8 + (size_t)pcd_mut_below(m, 4); what = "CRC"; break;
        case 1: at = n - 4 + (size_t)pcd_mut_below(m, 4); what = "size"; break;
        default: at = 10 + (size_t)pcd_mut_below(m, n - 18); what = "deflate data";
        }
        out[at] ^= (uint8_t)(1u << pcd_mut_below(m, 8));
        pcd_mut_note(m, "layer_gzip %s byte %zu flipped", what, at);
        return;
    }
    if (kind == PCD_MUT_LAYER_TRAILING) {
        size_t add = 1 + (size_t)pcd_mut_below(m, 64);
        if (n + add <= cap) {
            for (size_t i = 0; i < add; i++) out[n + i] = (uint8_t)pcd_mut_rand(m);
            *len = n + add;
            pcd_mut_note(m, "layer_trailing %zu bytes after the end", add);
            return;
        }
    }
    /* truncate */
    if (n) {
        *len = (size_t)pcd_mut_below(m, n);
        pcd_mut_note(m, "layer_truncate to %zu of %zu bytes", *len, n);
    }
}

/* ---- inner_bytes ---- */

/* The engine's own byte-level mutation, for sessions given none (AFL++, profcodec fuzz): one to
 * four changes of a bit, a byte, an interesting value, or bytes inserted, erased or copied. */
size_t pcd_mut_bytes(pcd_mut *m, uint8_t *buf, size_t n, size_t cap)
{
    if (m->bytes_fn && n) return m->bytes_fn(m->bytes_ud, buf, n, cap);
    static const uint8_t interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x10, 0x40, 0xfe };
    uint32_t steps = 1 + (uint32_t)pcd_mut_below(m, 4);
    for (uint32_t i = 0; i < steps; i++) {
        switch (n ? pcd_mut_below(m, 6) : 3) {
        case 0: buf[pcd_mut_below(m, n)] ^= (uint8_t)(1u << pcd_mut_below(m, 8)); break;
        case 1: buf[pcd_mut_below(m, n)] = (uint8_t)pcd_mut_rand(m); break;
        case 2: buf[pcd_mut_below(m, n)] = interesting[pcd_mut_below(m, sizeof interesting)]; break;
        case 3: {   /* insert 1..8 bytes */
            size_t k = 1 + (size_t)pcd_mut_below(m, 8), at = (size_t)pcd_mut_below(m, n + 1);
            if (n + k > cap) break;
            memmove(buf + at + k, buf + at, n - at);
            for (size_t j = 0; j < k; j++) buf[at + j] = (uint8_t)pcd_mut_rand(m);
            n += k;
            break;
        }
        case 4: {   /* erase 1..16 bytes */
            size_t at = (size_t)pcd_mut_below(m, n), k = 1 + (size_t)pcd_mut_below(m, 16);
            if (k > n - at) k = n - at;
            memmove(buf + at, buf + at + k, n - at - k);
            n -= k;
            break;
        }
        default: {   /* copy 1..32 bytes over other bytes */
            size_t k = 1 + (size_t)pcd_mut_below(m, 32);
            if (k > n) k = n;
            size_t from = (size_t)pcd_mut_below(m, n - k + 1), to = (size_t)pcd_mut_below(m, n - k + 1);
            memmove(buf + to, buf + from, k);
        }
        }
    }
    return n;
}
