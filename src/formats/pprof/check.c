/* formats/pprof/check.c: pprof's checks above the bytes, record by record and at the end
 * (a Profile's fields come in any order, so references are resolved when it has been read):
 *  - string_table[0] is "" (and there is a string table);
 *  - mapping, location and function ids are nonzero and unique;
 *  - every id referenced exists: a sample's location ids (0 is none of them), a location's
 *    mapping id and a line's function id (0 there means none);
 *  - string indexes are not negative and below the table's size;
 *  - each sample has one value per sample type.
 * Memory grows with the distinct ids and references, not with the samples. */
#include <stdlib.h>

#include "common/hash.h"
#include "common/hmap.h"
#include "common/problem.h"
#include "formats/pprof/pprof.h"

enum { K_MAPPING = 1, K_LOCATION, K_FUNCTION };

#define MAX_REPORTS 20   /* reference errors reported one by one; then a count */

/* The ids referenced: (kind, id) keys in one compact open-addressing table (8 bytes a key: a
 * sample's location ids are looked up one by one, millions of times), the first record naming
 * each beside it. Ids of 2^61 and more, which no writer makes, go to the hmap. Kept beside
 * common/hmap.c for speed, measured (issue 23): every reference through the hmap instead made
 * `validate` of a 10 MB pprof (bench/pprof.sh's input, 3000 copies) 857,411,712 -> 999,006,887
 * instructions (callgrind), +16.5 %. */
typedef struct refset {
    uint64_t *k;           /* kind << 61 | id, 0 empty */
    uint64_t *off;         /* the first record naming it, and (top 2 bits) its path */
    size_t cap, len;
} refset;

typedef struct pcheck {
    pcd_alloc *al;
    pcd_hmap ids;          /* (kind, id) -> v0: offset of its definition */
    refset rs;
    uint64_t recent[256];  /* keys found in rs lately (direct-mapped): most references repeat */
    /* A bit per id of each kind already in rs, for ids below bits_n[kind] (a power of two):
     * writers number their ids 1, 2, 3, ..., so a reference is one bit test, the hash table
     * reached once per distinct id, in the same order as without it (the errors at the end
     * walk rs, whose contents and order do not change). Kept no larger than rs itself. */
    uint64_t *bits[4];
    uint64_t bits_n[4];
    pcd_hmap refs;         /* (kind, id) of ids >= 2^61 -> v0: offset, v1: its path */
    uint64_t n_strings;
    bool first_string_seen;
    /* the largest string index any field names, and where */
    bool any_index;
    uint64_t max_index, max_offset;
    const char *max_path;
    uint64_t n_sample_types;
    /* the distinct value counts of samples, with the first sample of each */
    struct { uint64_t n, offset; } counts[8];
    size_t n_counts;
    bool oom;
} pcheck;

/* The paths a reference or an index may be reported at (static strings). */
static const char *const ref_paths[] = { "", "location.mapping_id", "sample.location_id", "location.line.function_id" };

static void report(pcd_report_fn fn, void *ud, uint64_t offset, const char *path, const char *path2,
                   const char *expected, pcd_found_kind fk, uint64_t found)
{
    pcd_error e;
    pcd_problem(&e, PCD_E_INVALID, offset, expected, fk, found);
    if (path2) pcd_error_push(&e, path2, -1);
    pcd_error_push(&e, path, -1);
    fn(ud, true, &e);
}

static void c_init(void *ctx, pcd_alloc *al)
{
    pcheck *c = ctx;
    memset(c, 0, sizeof *c);
    c->al = al;
    pcd_hmap_init(&c->ids, al);
    pcd_hmap_init(&c->refs, al);
}

static void c_fini(void *ctx)
{
    pcheck *c = ctx;
    pcd_hmap_free(&c->ids);
    pcd_hmap_free(&c->refs);
    if (c->rs.k) pcd_alloc_free(c->al, c->rs.k, c->rs.cap * sizeof *c->rs.k);
    if (c->rs.off) pcd_alloc_free(c->al, c->rs.off, c->rs.cap * sizeof *c->rs.off);
    for (int k = 0; k < 4; k++)
        if (c->bits[k]) pcd_alloc_free(c->al, c->bits[k], c->bits_n[k] / 8);
}

static size_t rs_slot(const refset *r, uint64_t k)
{
    size_t i = (size_t)pcd_mix64(k) & (r->cap - 1);
    while (r->k[i] && r->k[i] != k) i = (i + 1) & (r->cap - 1);
    return i;
}

static bool rs_grow(pcheck *c)
{
    refset *r = &c->rs;
    size_t nc = r->cap ? r->cap * 2 : 1024;
    uint64_t *nk = pcd_alloc_get(c->al, nc * sizeof *nk), *no = pcd_alloc_get(c->al, nc * sizeof *no);
    if (!nk || !no) {
        if (nk) pcd_alloc_free(c->al, nk, nc * sizeof *nk);
        if (no) pcd_alloc_free(c->al, no, nc * sizeof *no);
        return false;
    }
    memset(nk, 0, nc * sizeof *nk);
    refset n = { nk, no, nc, r->len };
    for (size_t i = 0; i < r->cap; i++) {
        if (!r->k[i]) continue;
        size_t j = rs_slot(&n, r->k[i]);
        nk[j] = r->k[i];
        no[j] = r->off[i];
    }
    if (r->k) pcd_alloc_free(c->al, r->k, r->cap * sizeof *r->k);
    if (r->off) pcd_alloc_free(c->al, r->off, r->cap * sizeof *r->off);
    *r = n;
    return true;
}

/* A string index some field holds (has: the field is there). */
static void index_of(pcheck *c, bool has, int64_t v, uint64_t offset, const char *path, pcd_report_fn fn, void *ud)
{
    if (!has) return;
    if (v < 0) {
        report(fn, ud, offset, path, NULL, "a string index (0 or more)", PCD_FOUND_INT, (uint64_t)v);
        return;
    }
    if (!c->any_index || (uint64_t)v > c->max_index) {
        c->any_index = true;
        c->max_index = (uint64_t)v;
        c->max_offset = offset;
        c->max_path = path;
    }
}

static void define(pcheck *c, int kind, bool has, uint64_t id, uint64_t offset, const char *path, pcd_report_fn fn,
                   void *ud)
{
    if (!has || id == 0) {
        report(fn, ud, offset, path, "id", "a nonzero id", PCD_FOUND_UINT, 0);
        return;
    }
    bool fresh;
    pcd_hslot *s = pcd_hmap_put(&c->ids, (pcd_hkey){ (uint64_t)kind, id, 0 }, &fresh);
    if (!s) {
        c->oom = true;
        return;
    }
    if (!fresh) {
        report(fn, ud, offset, path, "id", "an id no other one of its kind has", PCD_FOUND_UINT, id);
        return;
    }
    s->v0 = offset;
}

/* Makes the bitmap of kind cover id when it stays no larger than rs's keys would be for the
 * ids it covers; false when it does not (the hash table then takes the reference). The caller
 * has ruled out the ids that cannot fit (id / 64 at least rs's slots), cheaply: writers that
 * use addresses or hashes as ids (Julia's PProf.jl) reach the hash table on every reference. */
static PCD_NOINLINE bool bits_grow(pcheck *c, int kind, uint64_t id)
{
    uint64_t n = c->bits_n[kind] ? c->bits_n[kind] : 512;
    while (n <= id) n *= 2;
    uint64_t room = c->rs.cap > 64 ? c->rs.cap : 64;   /* bits: 64 per slot of rs (8 bytes) */
    if (n / 64 > room) return false;
    uint64_t *b = pcd_alloc_get(c->al, (size_t)(n / 8));
    if (!b) return false;
    memset(b, 0, (size_t)(n / 8));
    if (c->bits[kind]) {
        memcpy(b, c->bits[kind], (size_t)(c->bits_n[kind] / 8));
        pcd_alloc_free(c->al, c->bits[kind], (size_t)(c->bits_n[kind] / 8));
    }
    c->bits[kind] = b;
    c->bits_n[kind] = n;
    return true;
}

/* The reference into rs (or, for ids of 2^61 and more, the hmap): the first record naming it. */
static PCD_NOINLINE void refer_slow(pcheck *c, int kind, uint64_t id, uint64_t offset, int path)
{
    if (PCD_LIKELY(id < (UINT64_C(1) << 61) && offset < (UINT64_C(1) << 62))) {
        refset *r = &c->rs;
        uint64_t k = (uint64_t)kind << 61 | id;
        uint64_t *hot = &c->recent[(k ^ k >> 8 ^ k >> 61) & 255];
        if (id < c->bits_n[kind] || ((id >> 6) < (c->rs.cap > 64 ? c->rs.cap : 64) && bits_grow(c, kind, id)))
            c->bits[kind][id >> 6] |= UINT64_C(1) << (id & 63);   /* in rs below, or oom */
        if (PCD_LIKELY(*hot == k)) return;
        *hot = k;
        if (PCD_LIKELY(r->cap)) {
            size_t i = rs_slot(r, k);
            if (PCD_LIKELY(r->k[i] == k)) return;
        }
        if ((r->len + 1) * 2 > r->cap && !rs_grow(c)) {
            c->oom = true;
            return;
        }
        size_t i = rs_slot(r, k);
        r->k[i] = k;
        r->off[i] = (uint64_t)path << 62 | offset;
        r->len++;
        return;
    }
    bool fresh;
    pcd_hslot *s = pcd_hmap_put(&c->refs, (pcd_hkey){ (uint64_t)kind, id, 0 }, &fresh);
    if (!s) {
        c->oom = true;
        return;
    }
    if (fresh) {
        s->v0 = offset;
        s->v1 = (uint64_t)path;
    }
}

static inline void refer(pcheck *c, int kind, uint64_t id, uint64_t offset, int path)
{
    if (PCD_LIKELY(id < c->bits_n[kind] && (c->bits[kind][id >> 6] >> (id & 63) & 1))) return;
    refer_slow(c, kind, id, offset, path);
}

static void c_record(void *ctx, const pcd_record *rec, pcd_report_fn fn, void *ud)
{
    pcheck *c = ctx;
    if (!rec->data || rec->type != &pcd_pprof_v1_profile_field_type) return;
    const pcd_pprof_v1_profile_field *r = rec->data;
    uint64_t off = rec->offset;
    switch (r->which) {
    case PCD_PPROF_V1_PROFILE_FIELD_STRING_TABLE:
        if (c->n_strings == 0 && r->u.string_table.len != 0)
            report(fn, ud, off, "string_table", NULL, "\"\" (string_table[0] is the empty string)", PCD_FOUND_UINT,
                   r->u.string_table.len);
        c->n_strings++;
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE_TYPE:
        c->n_sample_types++;
        index_of(c, r->u.sample_type.has_type, r->u.sample_type.type, off, "sample_type.type", fn, ud);
        index_of(c, r->u.sample_type.has_unit, r->u.sample_type.unit, off, "sample_type.unit", fn, ud);
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_PERIOD_TYPE:
        index_of(c, r->u.period_type.has_type, r->u.period_type.type, off, "period_type.type", fn, ud);
        index_of(c, r->u.period_type.has_unit, r->u.period_type.unit, off, "period_type.unit", fn, ud);
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE: {
        const pcd_pprof_v1_sample *s = &r->u.sample;
        /* refer()'s bit test with the bitmap held in registers (id 0's bit is never set) */
        const uint64_t *bits = c->bits[K_LOCATION];
        uint64_t nbits = c->bits_n[K_LOCATION];
        for (size_t i = 0; i < s->n_location_id; i++) {
            uint64_t id = s->location_id[i];
            if (PCD_LIKELY(id < nbits && (bits[id >> 6] >> (id & 63) & 1))) continue;
            if (id == 0) {
                report(fn, ud, off, "sample", "location_id", "a location id (nonzero)", PCD_FOUND_UINT, 0);
            } else {
                refer_slow(c, K_LOCATION, id, off, 2);
                bits = c->bits[K_LOCATION];
                nbits = c->bits_n[K_LOCATION];
            }
        }
        for (size_t i = 0; i < s->n_label; i++) {
            index_of(c, s->label[i].has_key, s->label[i].key, off, "sample.label.key", fn, ud);
            index_of(c, s->label[i].has_str, s->label[i].str, off, "sample.label.str", fn, ud);
            index_of(c, s->label[i].has_num_unit, s->label[i].num_unit, off, "sample.label.num_unit", fn, ud);
        }
        size_t k = 0;
        while (k < c->n_counts && c->counts[k].n != s->n_value) k++;
        if (k == c->n_counts && k < PCD_COUNTOF(c->counts)) {
            c->counts[k].n = s->n_value;
            c->counts[k].offset = off;
            c->n_counts++;
        }
        break;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_MAPPING: {
        const pcd_pprof_v1_mapping *m = &r->u.mapping;
        define(c, K_MAPPING, m->has_id, m->id, off, "mapping", fn, ud);
        index_of(c, m->has_filename, m->filename, off, "mapping.filename", fn, ud);
        index_of(c, m->has_build_id, m->build_id, off, "mapping.build_id", fn, ud);
        break;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_LOCATION: {
        const pcd_pprof_v1_location *l = &r->u.location;
        define(c, K_LOCATION, l->has_id, l->id, off, "location", fn, ud);
        if (l->has_mapping_id && l->mapping_id) refer(c, K_MAPPING, l->mapping_id, off, 1);
        for (size_t i = 0; i < l->n_line; i++)
            if (l->line[i].has_function_id && l->line[i].function_id) refer(c, K_FUNCTION, l->line[i].function_id, off, 3);
        break;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_FUNCTION: {
        const pcd_pprof_v1_function *f = &r->u.function;
        define(c, K_FUNCTION, f->has_id, f->id, off, "function", fn, ud);
        index_of(c, f->has_name, f->name, off, "function.name", fn, ud);
        index_of(c, f->has_system_name, f->system_name, off, "function.system_name", fn, ud);
        index_of(c, f->has_filename, f->filename, off, "function.filename", fn, ud);
        break;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_DROP_FRAMES: index_of(c, true, r->u.drop_frames, off, "drop_frames", fn, ud); break;
    case PCD_PPROF_V1_PROFILE_FIELD_KEEP_FRAMES: index_of(c, true, r->u.keep_frames, off, "keep_frames", fn, ud); break;
    case PCD_PPROF_V1_PROFILE_FIELD_DEFAULT_SAMPLE_TYPE:
        index_of(c, true, r->u.default_sample_type, off, "default_sample_type", fn, ud);
        break;
    case PCD_PPROF_V1_PROFILE_FIELD_DOC_URL: index_of(c, true, r->u.doc_url, off, "doc_url", fn, ud); break;
    case PCD_PPROF_V1_PROFILE_FIELD_COMMENT:
        for (size_t i = 0; i < r->u.comment.n_items; i++) index_of(c, true, r->u.comment.items[i], off, "comment", fn, ud);
        break;
    default:
        break;
    }
}

static void c_finish(void *ctx, pcd_report_fn fn, void *ud)
{
    pcheck *c = ctx;
    if (c->oom) {
        report(fn, ud, 0, "(file)", NULL, "memory for the ids (raise --max-memory): the references were not checked",
               PCD_FOUND_NONE, 0);
        return;
    }
    if (c->n_strings == 0)
        report(fn, ud, 0, "string_table", NULL, "a string table (string_table[0] is \"\")", PCD_FOUND_NONE, 0);
    else if (c->any_index && c->max_index >= c->n_strings)
        report(fn, ud, c->max_offset, c->max_path, NULL, "an index into the string table (below its size)",
               PCD_FOUND_UINT, c->max_index);
    size_t n = 0;
    for (size_t i = 0; i < c->rs.cap; i++) {
        uint64_t k = c->rs.k[i];
        if (!k || pcd_hmap_get(&c->ids, (pcd_hkey){ k >> 61, k & ((UINT64_C(1) << 61) - 1), 0 })) continue;
        if (n++ < MAX_REPORTS)
            report(fn, ud, c->rs.off[i] & ((UINT64_C(1) << 62) - 1), ref_paths[c->rs.off[i] >> 62], NULL,
                   k >> 61 == K_LOCATION ? "the id of a location the profile has"
                   : k >> 61 == K_MAPPING ? "the id of a mapping the profile has"
                                          : "the id of a function the profile has",
                   PCD_FOUND_UINT, k & ((UINT64_C(1) << 61) - 1));
    }
    for (size_t i = 0; i < c->refs.cap; i++) {
        const pcd_hslot *s = &c->refs.slots[i];
        if (!s->used || pcd_hmap_get(&c->ids, s->k)) continue;
        if (n++ < MAX_REPORTS)
            report(fn, ud, s->v0, ref_paths[s->v1], NULL,
                   s->k.a == K_LOCATION ? "the id of a location the profile has"
                   : s->k.a == K_MAPPING ? "the id of a mapping the profile has"
                                         : "the id of a function the profile has",
                   PCD_FOUND_UINT, s->k.b);
    }
    if (n > MAX_REPORTS)
        report(fn, ud, 0, "(file)", NULL, "ids that exist (more references to missing ones than reported)",
               PCD_FOUND_UINT, n);
    for (size_t i = 0; i < c->n_counts; i++)
        if (c->counts[i].n != c->n_sample_types)
            report(fn, ud, c->counts[i].offset, "sample", "value", "one value per sample type", PCD_FOUND_UINT,
                   c->counts[i].n);
}

const pcd_check_ops pcd_pprof_check_ops = { sizeof(pcheck), c_init, c_record, c_finish, c_fini };
