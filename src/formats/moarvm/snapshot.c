/* formats/moarvm/snapshot.c: MoarVM heap snapshots (v3) above the bytes: snapshots assembled from the
 * block stream, incremental tables, figures and invariants (see moarvm_snap.h). */
#include "formats/moarvm/snapshot.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moarvm_v2.h"
#include "moarvm_v3.h"

const char *const mvm_meta_keys[MVM_NMETA] = {
    "snap_time", "gc_seq_num", "total_heap_size", "total_objects",
    "total_typeobjects", "total_stables", "total_frames", "total_refs",
};

static const char *const col_names[MVM_NCOLS] = {
    "colkind", "colsize", "coltofi", "colrfcnt", "colrfstr", "colusize", "refdescr", "reftrget",
};

/* Type and frame indexes above this are not given a row of per-type totals (no real heap
 * has a million types; the highscores are then not checked). */
#define MVM_MAX_STAT_INDEX ((uint64_t)1 << 20)
/* topIDs / topscore values kept (MoarVM writes 4 x 40). */
#define MVM_MAX_TOP 65536

/* The first entry that breaks a per-entry check, and how many do. */
typedef struct mvm_bad {
    uint64_t n, idx, val;
} mvm_bad;

enum {
    B_KIND, B_ROOT_SIZE, B_ROOT_USIZE, B_ROOT_TOFI, B_UNKNOWN_REF, B_REF_KIND3, B_RANGE_OVF,
    B_COUNT
};

/* The largest value a column holds where it matters, and where. */
typedef struct mvm_max {
    bool any;
    uint64_t val, idx;
} mvm_max;

typedef struct mvm_block {
    uint32_t which;
    uint64_t start, end;
} mvm_block;

typedef struct mvm_vec {
    void *p;
    size_t n, cap;
} mvm_vec;

struct mvm_col {
    mvm_opts o;
    bool oom;
    char msg[512], found[160];
    /* file */
    bool seen_root, seen_filemeta;
    uint64_t filemeta_start, filemeta_end;
    int64_t subversion, start_time, pid;
    bool have_subversion, have_start_time, have_pid;
    uint64_t entry_count;
    int order[4];                 /* data_order: 0 types_by_count, 1 frames_by_count, 2 types_by_size, 3 frames_by_size */
    /* incremental tables */
    mvm_vec sbuf;                 /* string bytes */
    mvm_vec soff;                 /* uint64_t: start of string k (and one past the last) */
    mvm_vec tbl[6];               /* uint32_t rows: reprname, typename, sfname, sfcuid, sfline, sffile */
    uint64_t tbl_max_str;         /* largest string index the table rows since the last TOC use */
    bool tbl_any_str;
    uint64_t tbl_str_block;       /* the block that holds it */
    /* blocks since the last TOC, and TOCs so far */
    mvm_vec pend;                 /* mvm_block */
    mvm_vec inner;                /* mvm_block: inner TOCs */
    bool last_was_inner, last_was_outer, ended;
    uint64_t last_block_end;      /* the last block's header (its frame not included) */
    uint64_t last_block_start;
    /* the block being read */
    int32_t cur;                  /* PCD_MOARVM_V3_BLOCK_*, or -1 */
    uint64_t cur_start;
    uint64_t cur_n;               /* entries (strings) so far */
    /* the snapshot being read */
    bool in_snap;
    mvm_snapshot s;
    uint64_t col_offset[MVM_NCOLS];
    bool col_seen[MVM_NCOLS];
    mvm_bad bad[B_COUNT];
    mvm_max type_tofi, frame_tofi, ref_end, str_ref, max_target;
    uint64_t rfcnt_sum;
    bool rfcnt_sum_ovf, heap_ovf;
    uint16_t kind0;               /* collectable 0's kind */
    uint8_t *kind;                /* full mode: per collectable */
    uint16_t *size;
    uint32_t *tofi, *rfcnt;
    uint64_t *rfstr, *usize;      /* graph mode */
    size_t ccap;
    uint64_t *target;             /* graph mode: per reference */
    size_t tcap;
    mvm_stats st;
    size_t st_cap[5];
    bool st_partial;              /* an index beyond MVM_MAX_STAT_INDEX had no row */
    mvm_vec top[2];               /* uint64_t: topIDs, topscore */
    uint64_t top_offset[2];
    /* done */
    mvm_vec snaps;                /* mvm_snapshot */
    uint64_t nstarted;
    /* format 2: blocks by size (for the index at the end) */
    bool v2;
    uint64_t v2_footer[3];        /* sizes of the last strs, type and fram blocks, as the footer states */
    int32_t v2_cur;               /* the block being read, PCD_MOARVM_V2_BLOCK_*, or -1 */
    uint64_t v2_cur_start;
    uint64_t v2_last[3];          /* sizes of the last strs, type and fram blocks read */
    uint64_t v2_coll_size, v2_refs_size, v2_refs_count, v2_middle;
    mvm_vec v2_index;             /* uint64_t x 3 per snapshot: coll size, refs size, middle point */
    uint64_t v2_index_seen;
};

/* ---- helpers ------------------------------------------------------------------ */

static bool vec_reserve(mvm_col *c, mvm_vec *v, size_t elem, size_t need)
{
    if (need <= v->cap) return true;
    size_t cap = v->cap ? v->cap : 16;
    while (cap < need) {
        if (cap > SIZE_MAX / 2 / elem) {
            c->oom = true;
            return false;
        }
        cap *= 2;
    }
    void *p = realloc(v->p, cap * elem);
    if (!p) {
        c->oom = true;
        return false;
    }
    v->p = p;
    v->cap = cap;
    return true;
}

static bool vec_push(mvm_col *c, mvm_vec *v, const void *item, size_t elem)
{
    if (!vec_reserve(c, v, elem, v->n + 1)) return false;
    memcpy((uint8_t *)v->p + v->n * elem, item, elem);
    v->n++;
    return true;
}

static void report(mvm_col *c, bool is_error, uint64_t offset, const char *field, int64_t index,
                   pcd_found_kind fk, uint64_t found, const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void report(mvm_col *c, bool is_error, uint64_t offset, const char *field, int64_t index,
                   pcd_found_kind fk, uint64_t found, const char *fmt, ...)
{
    if (!c->o.report) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    pcd_error e;
    memset(&e, 0, sizeof e);
    e.status = PCD_E_INVALID;
    e.offset = offset;
    e.expected = c->msg;
    e.found_kind = fk;
    e.found = found;
    if (fk == PCD_FOUND_TEXT) e.found_text = c->found;
    if (field) pcd_error_push(&e, field, index);
    if (c->in_snap) pcd_error_push(&e, "snapshot", (int64_t)c->s.index);
    c->o.report(c->o.report_ud, is_error, &e);
}

static void bad(mvm_bad *b, uint64_t idx, uint64_t val)
{
    if (b->n++ == 0) {
        b->idx = idx;
        b->val = val;
    }
}

static void track_max(mvm_max *m, uint64_t idx, uint64_t val)
{
    if (!m->any || val > m->val) {
        m->any = true;
        m->val = val;
        m->idx = idx;
    }
}

static uint64_t add_sat(uint64_t a, uint64_t b, bool *ovf)
{
    if (a > UINT64_MAX - b) {
        *ovf = true;
        return UINT64_MAX;
    }
    return a + b;
}

static uint64_t nstrings(const mvm_col *c) { return c->soff.n ? c->soff.n - 1 : 0; }

static uint64_t ntypes(const mvm_col *c)
{
    return c->tbl[0].n < c->tbl[1].n ? c->tbl[0].n : c->tbl[1].n;
}

static uint64_t nframes(const mvm_col *c)
{
    uint64_t n = c->tbl[2].n;
    for (int k = 3; k < 6; k++)
        if (c->tbl[k].n < n) n = c->tbl[k].n;
    return n;
}

/* ---- names ---------------------------------------------------------------------- */

const char *mvm_col_string(const mvm_col *c, uint64_t i, size_t *len)
{
    if (i >= nstrings(c)) return NULL;
    const uint64_t *off = c->soff.p;
    *len = (size_t)(off[i + 1] - off[i]);
    if (!c->sbuf.p) return ""; /* every string so far is empty */
    return (const char *)c->sbuf.p + off[i];
}

size_t mvm_col_type_name(const mvm_col *c, uint64_t type, char *buf, size_t cap)
{
    size_t len = 0;
    const char *s = type < c->tbl[1].n ? mvm_col_string(c, ((const uint32_t *)c->tbl[1].p)[type], &len) : NULL;
    if (!s) return (size_t)snprintf(buf, cap, "<type %" PRIu64 ">", type);
    return (size_t)snprintf(buf, cap, "%.*s", (int)len, s);
}

size_t mvm_col_frame_name(const mvm_col *c, uint64_t frame, char *buf, size_t cap)
{
    if (frame >= nframes(c)) return (size_t)snprintf(buf, cap, "<frame %" PRIu64 ">", frame);
    size_t nlen = 0, flen = 0;
    const char *name = mvm_col_string(c, ((const uint32_t *)c->tbl[2].p)[frame], &nlen);
    const char *file = mvm_col_string(c, ((const uint32_t *)c->tbl[5].p)[frame], &flen);
    uint32_t line = ((const uint32_t *)c->tbl[4].p)[frame];
    if (!name || nlen == 0) {
        name = "<anon>";
        nlen = 6;
    }
    if (!file) {
        file = "?";
        flen = 1;
    }
    /* the file's last path component, as the analyzer shows it */
    for (size_t i = flen; i > 0; i--) {
        if (file[i - 1] == '/' || file[i - 1] == '\\') {
            file += i;
            flen -= i;
            break;
        }
    }
    return (size_t)snprintf(buf, cap, "%.*s (%.*s:%" PRIu32 ")", (int)nlen, name, (int)flen, file, line);
}

/* ---- JSON metadata ------------------------------------------------------------------ */

static json_t *parse_json(mvm_col *c, const pcd_bytes *text, uint64_t offset, const char *what)
{
    json_error_t je;
    json_t *j = json_loadb((const char *)text->ptr, text->len, 0, &je);
    if (!j || !json_is_object(j)) {
        snprintf(c->found, sizeof c->found, "%s", j ? "JSON that is not an object" : je.text);
        report(c, true, offset, what, -1, PCD_FOUND_TEXT, 0, "a JSON object");
        json_decref(j);
        return NULL;
    }
    return j;
}

static bool json_u64(json_t *j, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(j, key);
    if (!v || !json_is_integer(v) || json_integer_value(v) < 0) return false;
    *out = (uint64_t)json_integer_value(v);
    return true;
}

static void on_filemeta(mvm_col *c, const pcd_moarvm_v3_json_block *b, uint64_t offset)
{
    if (c->seen_filemeta) {
        report(c, true, offset, "filemeta", -1, PCD_FOUND_NONE, 0, "one filemeta block, the first");
        return;
    }
    c->seen_filemeta = true;
    if (c->pend.n || c->inner.n)
        report(c, true, offset, "filemeta", -1, PCD_FOUND_NONE, 0, "the filemeta block first");
    json_t *j = parse_json(c, &b->json, offset, "filemeta");
    if (!j) return;
    json_t *v;
    if ((v = json_object_get(j, "subversion")) && json_is_integer(v)) {
        c->subversion = json_integer_value(v);
        c->have_subversion = true;
        if (c->subversion != 1)
            report(c, false, offset, "filemeta.subversion", -1, PCD_FOUND_INT, (uint64_t)c->subversion,
                   "subversion 1 (the only one MoarVM has written)");
    }
    if ((v = json_object_get(j, "start_time")) && json_is_integer(v)) {
        c->start_time = json_integer_value(v);
        c->have_start_time = true;
    }
    if ((v = json_object_get(j, "pid")) && json_is_integer(v)) {
        c->pid = json_integer_value(v);
        c->have_pid = true;
    }
    json_t *hs = json_object_get(j, "highscore_structure");
    if (hs && json_is_object(hs)) {
        uint64_t ec;
        if (json_u64(hs, "entry_count", &ec)) {
            if (ec == 0 || ec > MVM_MAX_TOP / 4)
                report(c, true, offset, "filemeta.highscore_structure.entry_count", -1, PCD_FOUND_UINT, ec,
                       "1 to %d", MVM_MAX_TOP / 4);
            else
                c->entry_count = ec;
        }
        json_t *order = json_object_get(hs, "data_order");
        if (order && json_is_array(order)) {
            static const char *const names[4] = { "types_by_count", "frames_by_count", "types_by_size",
                                                  "frames_by_size" };
            bool ok = json_array_size(order) == 4;
            int got[4];
            for (size_t i = 0; ok && i < 4; i++) {
                json_t *e = json_array_get(order, i);
                got[i] = -1;
                for (int k = 0; k < 4 && e && json_is_string(e); k++)
                    if (strcmp(json_string_value(e), names[k]) == 0) got[i] = k;
                ok = got[i] >= 0;
                for (size_t m = 0; ok && m < i; m++) ok = got[m] != got[i];
            }
            if (ok) memcpy(c->order, got, sizeof got);
            else
                report(c, true, offset, "filemeta.highscore_structure.data_order", -1, PCD_FOUND_NONE, 0,
                       "the four lists types_by_count, frames_by_count, types_by_size, frames_by_size");
        }
    }
    json_decref(j);
}

static void on_snapmeta(mvm_col *c, const pcd_moarvm_v3_json_block *b, uint64_t offset)
{
    json_t *j = parse_json(c, &b->json, offset, "snapmeta");
    if (!j) return;
    for (int k = 0; k < MVM_NMETA; k++) {
        if (json_u64(j, mvm_meta_keys[k], &c->s.meta[k])) c->s.have_meta |= 1u << k;
        else {
            report(c, true, offset, "snapmeta", -1, PCD_FOUND_NONE, 0, "the key \"%s\" with a number >= 0",
                   mvm_meta_keys[k]);
        }
    }
    json_decref(j);
}

/* ---- snapshots ------------------------------------------------------------------ */

static void free_snapshot_arrays(mvm_col *c)
{
    free(c->kind);
    free(c->size);
    free(c->tofi);
    free(c->rfcnt);
    free(c->rfstr);
    free(c->usize);
    free(c->target);
    c->kind = NULL;
    c->size = NULL;
    c->tofi = NULL;
    c->rfcnt = NULL;
    c->rfstr = NULL;
    c->usize = NULL;
    c->target = NULL;
    c->ccap = c->tcap = 0;
    for (int k = 1; k < 5; k++) {
        free(c->st.by_kind[k]);
        c->st.by_kind[k] = NULL;
        c->st.len[k] = 0;
        c->st_cap[k] = 0;
    }
}

static void reset_snapshot(mvm_col *c)
{
    free_snapshot_arrays(c);
    memset(&c->s, 0, sizeof c->s);
    memset(c->col_offset, 0, sizeof c->col_offset);
    memset(c->col_seen, 0, sizeof c->col_seen);
    memset(c->bad, 0, sizeof c->bad);
    memset(&c->type_tofi, 0, sizeof c->type_tofi);
    memset(&c->frame_tofi, 0, sizeof c->frame_tofi);
    memset(&c->ref_end, 0, sizeof c->ref_end);
    memset(&c->str_ref, 0, sizeof c->str_ref);
    memset(&c->max_target, 0, sizeof c->max_target);
    c->rfcnt_sum = 0;
    c->rfcnt_sum_ovf = c->heap_ovf = false;
    c->kind0 = 0;
    c->top[0].n = c->top[1].n = 0;
    c->top_offset[0] = c->top_offset[1] = 0;
    c->st_partial = false;
    c->in_snap = false;
}

/* Grows the per-collectable arrays of full mode to hold entry i. */
static bool coll_room(mvm_col *c, uint64_t i)
{
    if (i < c->ccap) return true;
    size_t cap = c->ccap ? c->ccap : 4096;
    while (cap <= i) {
        if (cap > SIZE_MAX / 16) {
            c->oom = true;
            return false;
        }
        cap *= 2;
    }
#define GROW(f, T)                                                            \
    do {                                                                      \
        T *p_ = realloc(c->f, cap * sizeof(T));                               \
        if (!p_) {                                                            \
            c->oom = true;                                                    \
            return false;                                                     \
        }                                                                     \
        memset(p_ + c->ccap, 0, (cap - c->ccap) * sizeof(T));                 \
        c->f = p_;                                                            \
    } while (0)
    GROW(kind, uint8_t);
    GROW(size, uint16_t);
    GROW(tofi, uint32_t);
    GROW(rfcnt, uint32_t);
    if (c->o.graph) {
        GROW(rfstr, uint64_t);
        GROW(usize, uint64_t);
    }
#undef GROW
    c->ccap = cap;
    return true;
}

static mvm_stat *stat_row(mvm_col *c, int k, uint64_t idx)
{
    if (idx >= MVM_MAX_STAT_INDEX) return NULL;
    if (idx >= c->st_cap[k]) {
        size_t cap = c->st_cap[k] ? c->st_cap[k] : 512;
        while (cap <= idx) cap *= 2;
        mvm_stat *p = realloc(c->st.by_kind[k], cap * sizeof *p);
        if (!p) {
            c->oom = true;
            return NULL;
        }
        memset(p + c->st_cap[k], 0, (cap - c->st_cap[k]) * sizeof *p);
        c->st.by_kind[k] = p;
        c->st_cap[k] = cap;
    }
    if (idx >= c->st.len[k]) c->st.len[k] = (size_t)idx + 1;
    return &c->st.by_kind[k][idx];
}

static void column_values(mvm_col *c, int col, const void *vals, size_t n)
{
    mvm_snapshot *s = &c->s;
    uint64_t base = s->n[col];
    uint64_t ncoll = s->n[MVM_COLKIND];
    bool full = c->o.full;
    switch (col) {
    case MVM_COLKIND: {
        const uint16_t *v = vals;
        if (full && n && !coll_room(c, base + n - 1)) return;
        if (base == 0 && n) c->kind0 = v[0];
        for (size_t i = 0; i < n; i++) {
            uint16_t k = v[i];
            if (k == 0 || k > 11) {
                bad(&c->bad[B_KIND], base + i, k);
                s->kinds[0]++;
                k = 0;
            } else {
                s->kinds[k]++;
            }
            if (full) c->kind[base + i] = (uint8_t)k;
        }
        break;
    }
    case MVM_COLSIZE: {
        const uint16_t *v = vals;
        for (size_t i = 0; i < n; i++) {
            s->heap_size = add_sat(s->heap_size, v[i], &c->heap_ovf);
            uint64_t at = base + i;
            if (full && at < ncoll) {
                c->size[at] = v[i];
                if (c->kind[at] >= MVM_K_PERM_ROOTS && v[i] != 0) bad(&c->bad[B_ROOT_SIZE], at, v[i]);
            }
        }
        break;
    }
    case MVM_COLTOFI: {
        const uint32_t *v = vals;
        for (size_t i = 0; i < n && full; i++) {
            uint64_t at = base + i;
            if (at >= ncoll) break;
            c->tofi[at] = v[i];
            uint8_t k = c->kind[at];
            if (k >= MVM_K_OBJECT && k <= MVM_K_STABLE) track_max(&c->type_tofi, at, v[i]);
            else if (k == MVM_K_FRAME) track_max(&c->frame_tofi, at, v[i]);
            else if (k >= MVM_K_PERM_ROOTS && v[i] != 0) bad(&c->bad[B_ROOT_TOFI], at, v[i]);
        }
        break;
    }
    case MVM_COLRFCNT: {
        const uint32_t *v = vals;
        for (size_t i = 0; i < n; i++) {
            c->rfcnt_sum = add_sat(c->rfcnt_sum, v[i], &c->rfcnt_sum_ovf);
            if (full && base + i < ncoll) c->rfcnt[base + i] = v[i];
        }
        break;
    }
    case MVM_COLRFSTR: {
        const uint64_t *v = vals;
        for (size_t i = 0; i < n && full; i++) {
            uint64_t at = base + i;
            if (at >= ncoll) break;
            if (c->o.graph) c->rfstr[at] = v[i];
            uint32_t cnt = c->rfcnt[at];
            if (cnt == 0) continue;
            if (v[i] > UINT64_MAX - cnt) bad(&c->bad[B_RANGE_OVF], at, v[i]);
            else track_max(&c->ref_end, at, v[i] + cnt);
        }
        break;
    }
    case MVM_COLUSIZE: {
        const uint64_t *v = vals;
        for (size_t i = 0; i < n; i++) {
            s->heap_size = add_sat(s->heap_size, v[i], &c->heap_ovf);
            uint64_t at = base + i;
            if (!full || at >= ncoll) continue;
            if (c->o.graph) c->usize[at] = v[i];
            uint8_t k = c->kind[at];
            if (k >= MVM_K_PERM_ROOTS) {
                if (v[i] != 0) bad(&c->bad[B_ROOT_USIZE], at, v[i]);
            } else if (k >= MVM_K_OBJECT) {
                mvm_stat *row = stat_row(c, k, c->tofi[at]);
                if (!row) c->st_partial = true;
                if (row) {
                    row->count++;
                    bool ovf = false;
                    row->size = add_sat(row->size, add_sat(c->size[at], v[i], &ovf), &ovf);
                }
            }
        }
        break;
    }
    case MVM_REFDESCR: {
        const uint64_t *v = vals;
        /* counts and the largest string index in registers (a counter in memory per kind
         * would make each reference wait for the last one's store); the rare bad ones again
         * one by one */
        uint64_t n0 = 0, n2 = 0, n3 = 0, odd = 0, m2 = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t d = v[i], k = d & 3;
            n0 += k == 0;
            n2 += k == 2;
            n3 += k == 3;
            odd |= (uint64_t)(k == 0 && d != 0) | (uint64_t)(k == 3);
            uint64_t sv = k == 2 ? d >> 2 : 0;
            m2 = sv > m2 ? sv : m2;
        }
        /* the first string reference past the largest so far (rarely any after the first) */
        mvm_max *sr = &c->str_ref;
        if (n2 && (!sr->any || m2 > sr->val)) {
            for (size_t i = 0; i < n; i++) {
                if ((v[i] & 3) == 2 && (!sr->any || (v[i] >> 2) > sr->val)) {
                    sr->any = true;
                    sr->val = v[i] >> 2;
                    sr->idx = base + i;
                }
            }
        }
        s->refkinds[0] += n0;
        s->refkinds[1] += n - n0 - n2 - n3;
        s->refkinds[2] += n2;
        s->refkinds[3] += n3;
        for (size_t i = 0; odd && i < n; i++) {
            uint64_t d = v[i];
            if ((d & 3) == 0 && d != 0) bad(&c->bad[B_UNKNOWN_REF], base + i, d);
            else if ((d & 3) == 3) bad(&c->bad[B_REF_KIND3], base + i, d);
        }
        break;
    }
    case MVM_REFTRGET: {
        const uint64_t *v = vals;
        if (c->o.graph && n) {
            uint64_t need = base + n;
            if (need > c->tcap) {
                size_t cap = c->tcap ? c->tcap : 4096;
                while (cap < need) cap *= 2;
                uint64_t *p = realloc(c->target, cap * sizeof *p);
                if (!p) {
                    c->oom = true;
                    return;
                }
                c->target = p;
                c->tcap = cap;
            }
            memcpy(c->target + base, v, n * sizeof *v);
        }
        uint64_t m = 0;
        for (size_t i = 0; i < n; i++) m = v[i] > m ? v[i] : m;
        mvm_max *mt = &c->max_target;
        if (n && (!mt->any || m > mt->val)) {
            /* where the new largest first is */
            size_t i = 0;
            while (v[i] != m) i++;
            mt->any = true;
            mt->val = m;
            mt->idx = base + i;
        }
        break;
    }
    }
    s->n[col] = base + n;
}

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* topIDs / topscore against the same lists recomputed from the columns. */
static void check_highscores(mvm_col *c)
{
    const mvm_vec *ids = &c->top[0], *scores = &c->top[1];
    uint64_t ec = c->entry_count;
    if (!ids->n && !scores->n) return;   /* MoarVM writes none without statistics */
    if (c->st_partial) {
        report(c, false, c->top_offset[1], "topscore", -1, PCD_FOUND_NONE, 0,
               "type and frame indexes below %" PRIu64 " (the highscores were not checked)", MVM_MAX_STAT_INDEX);
        return;
    }
    if (ids->n != 4 * ec || scores->n != 4 * ec) {
        report(c, true, ids->n != 4 * ec ? c->top_offset[0] : c->top_offset[1],
               ids->n != 4 * ec ? "top_ids" : "topscore", -1, PCD_FOUND_UINT, ids->n != 4 * ec ? ids->n : scores->n,
               "4 x %" PRIu64 " entries (filemeta's highscore_structure)", ec);
        return;
    }
    const uint64_t *id = ids->p, *sc = scores->p;
    uint64_t *want = malloc(ec * sizeof *want);
    uint64_t *all = NULL;
    if (!want) {
        c->oom = true;
        return;
    }
    static const char *const lists[4] = { "types_by_count", "frames_by_count", "types_by_size", "frames_by_size" };
    for (int part = 0; part < 4; part++) {
        int what = c->order[part];
        int k = (what & 1) ? MVM_K_FRAME : MVM_K_OBJECT;
        bool by_size = what >= 2;
        size_t len = c->st.len[k];
        const mvm_stat *rows = c->st.by_kind[k];
        /* the recomputed scores, best first, padded with zeros */
        free(all);
        all = malloc((len ? len : 1) * sizeof *all);
        if (!all) {
            c->oom = true;
            break;
        }
        /* rows with a score, best first (the rest are zeros) */
        size_t nz = 0;
        for (size_t i = 0; i < len; i++)
            if (rows[i].count) all[nz++] = by_size ? rows[i].size : rows[i].count;
        qsort(all, nz, sizeof *all, cmp_desc);
        for (uint64_t i = 0; i < ec; i++) want[i] = i < nz ? all[i] : 0;
        /* with no objects (or frames) at all, MoarVM writes whatever its buffer held */
        bool empty = nz == 0;
        const uint64_t *psc = sc + part * ec, *pid = id + part * ec;
        for (uint64_t i = 0; i < ec; i++) {
            if (psc[i] != want[i]) {
                report(c, !empty, c->top_offset[1], "topscore", (int64_t)(part * ec + i), PCD_FOUND_UINT, psc[i],
                       "%" PRIu64 " (place %" PRIu64 " of %s, recomputed from the columns%s)", want[i], i + 1,
                       lists[what], empty ? "; there are none, so MoarVM wrote stale memory" : "");
                break;
            }
            if (psc[i] == 0) continue;    /* padding: its ID means nothing */
            uint64_t got = pid[i] < len ? (by_size ? rows[pid[i]].size : rows[pid[i]].count) : 0;
            if (got != psc[i]) {
                report(c, true, c->top_offset[0], "top_ids", (int64_t)(part * ec + i), PCD_FOUND_UINT, pid[i],
                       "the index of a %s whose %s is %" PRIu64 " (place %" PRIu64 " of %s)",
                       (what & 1) ? "frame" : "type", by_size ? "size" : "count", psc[i], i + 1, lists[what]);
                break;
            }
        }
    }
    free(all);
    free(want);
}

/* Compares a TOC's entries with the blocks it should list. */
static void check_toc_entries(mvm_col *c, const pcd_moarvm_v3_toc_block *t, uint64_t offset,
                              const mvm_block *want, size_t nwant, const char *what)
{
    if (t->n_entries != nwant) {
        report(c, true, offset, "toc.count", -1, PCD_FOUND_UINT, t->n_entries, "%zu entries (%s)", nwant, what);
        return;
    }
    for (size_t i = 0; i < nwant; i++) {
        const pcd_moarvm_v3_toc_entry *e = &t->entries[i];
        const pcd_field *cf = &pcd_moarvm_v3_block_type.fields[want[i].which];
        /* the name a block of this kind carries (the case's tag) */
        static const char *const kind_names[] = {
            "filemeta", "snapmeta", "toc", "strings", "colkind", "colsize", "coltofi", "colrfcnt", "colrfstr",
            "colusize", "refdescr", "reftrget", "reprname", "typename", "sfname", "sfcuid", "sfline", "sffile",
            "topIDs", "topscore",
        };
        const char *kn = want[i].which < sizeof kind_names / sizeof *kind_names ? kind_names[want[i].which] : cf->name;
        if (!pcd_bytes_eq(e->kind, kn, strlen(kn))) {
            snprintf(c->found, sizeof c->found, "\"%.*s\"", (int)(e->kind.len < 8 ? e->kind.len : 8),
                     (const char *)e->kind.ptr);
            report(c, true, offset, "toc.entries", (int64_t)i, PCD_FOUND_TEXT, 0, "\"%s\" (%s)", kn, what);
            return;
        }
        if (e->start != want[i].start) {
            report(c, true, offset, "toc.entries", (int64_t)i, PCD_FOUND_UINT, e->start,
                   "start %" PRIu64 " (where that %s block is)", want[i].start, kn);
            return;
        }
        if (e->end != want[i].end) {
            report(c, true, offset, "toc.entries", (int64_t)i, PCD_FOUND_UINT, e->end,
                   "end %" PRIu64 " (where that %s block ends)", want[i].end, kn);
            return;
        }
    }
}

/* The snapshot's TOC was read: everything about it can be checked now. */
static void finish_snapshot(mvm_col *c, uint64_t toc_offset)
{
    mvm_snapshot *s = &c->s;
    s->toc_offset = toc_offset;
    s->strings = nstrings(c);
    s->types = ntypes(c);
    s->frames = nframes(c);
    uint64_t ncoll = s->n[MVM_COLKIND], nrefs = s->n[MVM_REFDESCR];
    bool full = c->o.full;
    /* columns */
    for (int k = 0; k < MVM_NCOLS; k++) {
        if (!c->col_seen[k]) {
            report(c, true, s->offset, col_names[k], -1, PCD_FOUND_NONE, 0, "a %s block in the snapshot", col_names[k]);
            continue;
        }
        uint64_t want = k < MVM_REFDESCR ? ncoll : nrefs;
        if (k != MVM_COLKIND && k != MVM_REFDESCR && s->n[k] != want)
            report(c, true, c->col_offset[k], col_names[k], -1, PCD_FOUND_UINT, s->n[k],
                   "%" PRIu64 " entries (as many as %s)", want, k < MVM_REFDESCR ? "colkind" : "refdescr");
    }
    const mvm_bad *b = c->bad;
    if (b[B_KIND].n)
        report(c, true, c->col_offset[MVM_COLKIND], "colkind", (int64_t)b[B_KIND].idx, PCD_FOUND_UINT, b[B_KIND].val,
               "a collectable kind 1..11 (%" PRIu64 " entr%s break this)", b[B_KIND].n, b[B_KIND].n == 1 ? "y" : "ies");
    if (ncoll && c->kind0 != MVM_K_ROOT)
        report(c, true, c->col_offset[MVM_COLKIND], "colkind", 0, PCD_FOUND_UINT, c->kind0,
               "9 (collectable 0 is the root)");
    /* what snapmeta says against the columns */
    struct { int key; uint64_t have; bool warn; const char *from; } meta[] = {
        { MVM_M_TOTAL_OBJECTS, s->kinds[MVM_K_OBJECT], false, "kind-1 collectables in colkind" },
        { MVM_M_TOTAL_TYPEOBJECTS, s->kinds[MVM_K_TYPEOBJ], false, "kind-2 collectables in colkind" },
        { MVM_M_TOTAL_STABLES, s->kinds[MVM_K_STABLE], false, "kind-3 collectables in colkind" },
        { MVM_M_TOTAL_FRAMES, s->kinds[MVM_K_FRAME], true,
          "kind-4 collectables in colkind; MoarVM does not count frames reached only from call-stack roots" },
        { MVM_M_TOTAL_REFS, nrefs, false, "references in refdescr" },
        { MVM_M_TOTAL_HEAP_SIZE, s->heap_size, false, "the sum of colsize and colusize" },
    };
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        int k = meta[i].key;
        if (!(s->have_meta & (1u << k)) || s->meta[k] == meta[i].have) continue;
        if ((k == MVM_M_TOTAL_HEAP_SIZE && c->heap_ovf)) continue;
        char path[40];
        snprintf(path, sizeof path, "snapmeta.%s", mvm_meta_keys[k]);
        /* a path segment must outlive the report only */
        report(c, !meta[i].warn, s->offset, path, -1, PCD_FOUND_UINT, s->meta[k], "%" PRIu64 " (%s)", meta[i].have,
               meta[i].from);
    }
    if (c->heap_ovf)
        report(c, true, c->col_offset[MVM_COLUSIZE], "colusize", -1, PCD_FOUND_NONE, 0,
               "sizes whose sum fits in 64 bits");
    /* references */
    if (c->col_seen[MVM_COLRFCNT] && c->rfcnt_sum != nrefs)
        report(c, true, c->col_offset[MVM_COLRFCNT], "colrfcnt", -1, PCD_FOUND_UINT, c->rfcnt_sum,
               "counts that add up to the %" PRIu64 " references", nrefs);
    if (b[B_RANGE_OVF].n)
        report(c, true, c->col_offset[MVM_COLRFSTR], "colrfstr", (int64_t)b[B_RANGE_OVF].idx, PCD_FOUND_UINT,
               b[B_RANGE_OVF].val, "a first reference whose range fits in 64 bits");
    if (c->ref_end.any && c->ref_end.val > nrefs)
        report(c, true, c->col_offset[MVM_COLRFSTR], "colrfstr", (int64_t)c->ref_end.idx, PCD_FOUND_UINT,
               c->ref_end.val - c->rfcnt[c->ref_end.idx],
               "a range of references within the %" PRIu64 " there are (with colrfcnt %" PRIu32 ")", nrefs,
               c->rfcnt[c->ref_end.idx]);
    if (b[B_UNKNOWN_REF].n)
        report(c, true, c->col_offset[MVM_REFDESCR], "refdescr", (int64_t)b[B_UNKNOWN_REF].idx, PCD_FOUND_HEX,
               b[B_UNKNOWN_REF].val, "0 for a description of kind 0 (unknown)");
    if (b[B_REF_KIND3].n)
        report(c, true, c->col_offset[MVM_REFDESCR], "refdescr", (int64_t)b[B_REF_KIND3].idx, PCD_FOUND_HEX,
               b[B_REF_KIND3].val, "a description kind 0, 1 or 2 in the low 2 bits");
    if (c->str_ref.any && c->str_ref.val >= s->strings)
        report(c, true, c->col_offset[MVM_REFDESCR], "refdescr", (int64_t)c->str_ref.idx, PCD_FOUND_UINT,
               c->str_ref.val, "a string index below %" PRIu64 " (the strings written so far)", s->strings);
    if (s->strings > 65535 && s->refkinds[2])
        report(c, false, c->col_offset[MVM_REFDESCR], "refdescr", -1, PCD_FOUND_UINT, s->strings,
               "at most 65535 strings: MoarVM keeps the string index of references it adds from a GC "
               "worklist in 16 bits, so some of these descriptions may name the wrong string");
    if (c->max_target.any && c->max_target.val >= ncoll)
        report(c, true, c->col_offset[MVM_REFTRGET], "reftrget", (int64_t)c->max_target.idx, PCD_FOUND_UINT,
               c->max_target.val, "a collectable index below %" PRIu64, ncoll);
    /* type and frame indexes */
    if (full) {
        if (c->type_tofi.any && c->type_tofi.val >= s->types)
            report(c, true, c->col_offset[MVM_COLTOFI], "coltofi", (int64_t)c->type_tofi.idx, PCD_FOUND_UINT,
                   c->type_tofi.val, "a type index below %" PRIu64 " (the types written so far)", s->types);
        if (c->frame_tofi.any && c->frame_tofi.val >= s->frames)
            report(c, true, c->col_offset[MVM_COLTOFI], "coltofi", (int64_t)c->frame_tofi.idx, PCD_FOUND_UINT,
                   c->frame_tofi.val, "a frame index below %" PRIu64 " (the frames written so far)", s->frames);
        if (b[B_ROOT_TOFI].n)
            report(c, true, c->col_offset[MVM_COLTOFI], "coltofi", (int64_t)b[B_ROOT_TOFI].idx, PCD_FOUND_UINT,
                   b[B_ROOT_TOFI].val, "0 for a root (kinds 5-11)");
        if (b[B_ROOT_SIZE].n)
            report(c, false, c->col_offset[MVM_COLSIZE], "colsize", (int64_t)b[B_ROOT_SIZE].idx, PCD_FOUND_UINT,
                   b[B_ROOT_SIZE].val, "0 for a root (kinds 5-11)");
        if (b[B_ROOT_USIZE].n)
            report(c, false, c->col_offset[MVM_COLUSIZE], "colusize", (int64_t)b[B_ROOT_USIZE].idx, PCD_FOUND_UINT,
                   b[B_ROOT_USIZE].val, "0 for a root (kinds 5-11)");
        check_highscores(c);
    }
    /* the tables this snapshot added */
    if (c->tbl[0].n != c->tbl[1].n)
        report(c, true, toc_offset, "typename", -1, PCD_FOUND_UINT, c->tbl[1].n,
               "%zu types (as many as reprname has)", c->tbl[0].n);
    for (int k = 3; k < 6; k++)
        if (c->tbl[k].n != c->tbl[2].n) {
            static const char *const tn[6] = { "reprname", "typename", "sfname", "sfcuid", "sfline", "sffile" };
            report(c, true, toc_offset, tn[k], -1, PCD_FOUND_UINT, c->tbl[k].n, "%zu frames (as many as sfname has)",
                   c->tbl[2].n);
            break;
        }
    if (c->tbl_any_str && c->tbl_max_str >= s->strings)
        report(c, true, c->tbl_str_block, "table", -1, PCD_FOUND_UINT, c->tbl_max_str,
               "a string index below %" PRIu64 " (the strings written so far)", s->strings);
    c->tbl_any_str = false;
    c->tbl_max_str = 0;
    if (c->oom) report(c, true, toc_offset, NULL, -1, PCD_FOUND_NONE, 0, "memory for the snapshot's checks");
    /* done: hand it on */
    if (c->o.on_snapshot) {
        mvm_graph g, *gp = NULL;
        bool sound = c->o.graph && !c->oom && ncoll && s->n[MVM_REFTRGET] == nrefs && s->n[MVM_COLRFSTR] == ncoll &&
                     s->n[MVM_COLRFCNT] == ncoll && s->n[MVM_COLUSIZE] == ncoll && s->n[MVM_COLSIZE] == ncoll &&
                     s->n[MVM_COLTOFI] == ncoll && !b[B_RANGE_OVF].n && (!c->ref_end.any || c->ref_end.val <= nrefs) &&
                     !c->rfcnt_sum_ovf && c->rfcnt_sum == nrefs &&
                     (!c->max_target.any || c->max_target.val < ncoll);
        if (sound) {
            g = (mvm_graph){ ncoll, nrefs, c->kind, c->size, c->usize, c->tofi, c->rfstr, c->rfcnt, c->target };
            gp = &g;
        }
        c->o.on_snapshot(c->o.snapshot_ud, c, s, full ? &c->st : NULL, gp);
    }
    vec_push(c, &c->snaps, s, sizeof *s);
    reset_snapshot(c);
}

/* ---- records ------------------------------------------------------------------------ */

mvm_col *mvm_col_new(const mvm_opts *o)
{
    mvm_col *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->o = *o;
    if (c->o.graph) c->o.full = true;
    c->cur = -1;
    c->entry_count = 40;
    for (int i = 0; i < 4; i++) c->order[i] = i;
    uint64_t zero = 0;
    if (!vec_push(c, &c->soff, &zero, sizeof zero)) {
        free(c);
        return NULL;
    }
    return c;
}

void mvm_col_set_report(mvm_col *c, pcd_report_fn report, void *ud)
{
    c->o.report = report;
    c->o.report_ud = ud;
}

void mvm_col_free(mvm_col *c)
{
    if (!c) return;
    free_snapshot_arrays(c);
    free(c->sbuf.p);
    free(c->soff.p);
    for (int k = 0; k < 6; k++) free(c->tbl[k].p);
    free(c->pend.p);
    free(c->inner.p);
    free(c->top[0].p);
    free(c->top[1].p);
    free(c->snaps.p);
    free(c->v2_index.p);
    free(c);
}

static int column_of(uint32_t which)
{
    switch (which) {
    case PCD_MOARVM_V3_BLOCK_COLKIND: return MVM_COLKIND;
    case PCD_MOARVM_V3_BLOCK_COLSIZE: return MVM_COLSIZE;
    case PCD_MOARVM_V3_BLOCK_COLTOFI: return MVM_COLTOFI;
    case PCD_MOARVM_V3_BLOCK_COLRFCNT: return MVM_COLRFCNT;
    case PCD_MOARVM_V3_BLOCK_COLRFSTR: return MVM_COLRFSTR;
    case PCD_MOARVM_V3_BLOCK_COLUSIZE: return MVM_COLUSIZE;
    case PCD_MOARVM_V3_BLOCK_REFDESCR: return MVM_REFDESCR;
    case PCD_MOARVM_V3_BLOCK_REFTRGET: return MVM_REFTRGET;
    }
    return -1;
}

static int table_of(uint32_t which)
{
    switch (which) {
    case PCD_MOARVM_V3_BLOCK_REPRNAME: return 0;
    case PCD_MOARVM_V3_BLOCK_TYPENAME: return 1;
    case PCD_MOARVM_V3_BLOCK_SFNAME: return 2;
    case PCD_MOARVM_V3_BLOCK_SFCUID: return 3;
    case PCD_MOARVM_V3_BLOCK_SFLINE: return 4;
    case PCD_MOARVM_V3_BLOCK_SFFILE: return 5;
    }
    return -1;
}

static void on_toc(mvm_col *c, const pcd_moarvm_v3_toc_block *t, uint64_t offset, uint64_t size)
{
    if (t->self != offset)
        report(c, true, offset, "toc.self", -1, PCD_FOUND_UINT, t->self, "%" PRIu64 " (where this TOC starts)", offset);
    mvm_block me = { PCD_MOARVM_V3_BLOCK_TOC, offset, offset + size - 8 };
    bool outer = false;
    for (size_t i = 0; i < t->n_entries && !outer; i++)
        outer = pcd_bytes_eq(t->entries[i].kind, "filemeta", 8) || pcd_bytes_eq(t->entries[i].kind, "toc", 3);
    const mvm_block *pend = c->pend.p;
    bool has_meta = false;
    for (size_t i = 0; i < c->pend.n; i++) has_meta = has_meta || pend[i].which == PCD_MOARVM_V3_BLOCK_SNAPMETA;
    if (outer) {
        /* filemeta and every inner TOC so far */
        if (c->pend.n) {
            report(c, true, offset, "toc", -1, PCD_FOUND_NONE, 0,
                   "an inner TOC listing the %zu blocks before it, not an outer one", c->pend.n);
            if (c->in_snap) reset_snapshot(c);
            c->pend.n = 0;
        }
        mvm_vec want = { 0 };
        mvm_block fm = { PCD_MOARVM_V3_BLOCK_FILEMETA, c->filemeta_start, c->filemeta_end };
        if (c->seen_filemeta) vec_push(c, &want, &fm, sizeof fm);
        for (size_t i = 0; i < c->inner.n; i++) vec_push(c, &want, (const mvm_block *)c->inner.p + i, sizeof fm);
        check_toc_entries(c, t, offset, want.p, want.n, "filemeta and every inner TOC so far");
        free(want.p);
        c->last_was_outer = true;
        c->last_was_inner = false;
        return;
    }
    /* an inner TOC: the blocks since the last TOC */
    check_toc_entries(c, t, offset, pend, c->pend.n,
                      has_meta ? "the snapshot's blocks" : "the blocks since the last TOC");
    vec_push(c, &c->inner, &me, sizeof me);
    if (c->in_snap) finish_snapshot(c, offset);
    else c->ended = true; /* the TOC written when profiling ends (with any leftover tables) */
    c->pend.n = 0;
    c->last_was_inner = true;
    c->last_was_outer = false;
}

static void on_block(mvm_col *c, const pcd_record *rec)
{
    const pcd_moarvm_v3_block *b = rec->data;
    uint64_t off = rec->offset;
    /* the block before ends where this one starts */
    if (c->pend.n) {
        mvm_block *last = (mvm_block *)c->pend.p + c->pend.n - 1;
        if (last->end == 0) last->end = off;
    }
    if (c->cur == PCD_MOARVM_V3_BLOCK_FILEMETA) c->filemeta_end = off;
    c->cur = (int32_t)b->which;
    c->cur_start = off;
    c->cur_n = 0;
    c->last_block_start = off;
    c->last_block_end = off + rec->size;
    if (b->which != PCD_MOARVM_V3_BLOCK_TOC) c->last_was_inner = c->last_was_outer = false;
    switch (b->which) {
    case PCD_MOARVM_V3_BLOCK_FILEMETA:
        c->filemeta_start = off;
        c->filemeta_end = off + rec->size;
        on_filemeta(c, &b->u.filemeta, off);
        return;
    case PCD_MOARVM_V3_BLOCK_TOC:
        on_toc(c, &b->u.toc, off, rec->size);
        return;
    case PCD_MOARVM_V3_BLOCK_SNAPMETA:
        if (c->in_snap) {
            report(c, true, off, "snapmeta", -1, PCD_FOUND_NONE, 0,
                   "the TOC of the snapshot before (snapshot %" PRIu64 " has none)", c->s.index);
            reset_snapshot(c);
        }
        if (!c->seen_filemeta)
            report(c, true, off, "snapmeta", -1, PCD_FOUND_NONE, 0, "a filemeta block before the first snapshot");
        c->in_snap = true;
        c->ended = false;
        c->s.index = c->nstarted++;
        c->s.offset = off;
        on_snapmeta(c, &b->u.snapmeta, off);
        break;
    default: {
        int col = column_of(b->which);
        if (col >= 0) {
            if (!c->in_snap)
                report(c, true, off, col_names[col], -1, PCD_FOUND_NONE, 0, "a snapmeta block before the snapshot's columns");
            else if (c->col_seen[col])
                report(c, true, off, col_names[col], -1, PCD_FOUND_NONE, 0, "one %s block per snapshot", col_names[col]);
            else {
                c->col_seen[col] = true;
                c->col_offset[col] = off;
            }
        } else if (b->which == PCD_MOARVM_V3_BLOCK_TOP_IDS || b->which == PCD_MOARVM_V3_BLOCK_TOPSCORE) {
            int k = b->which == PCD_MOARVM_V3_BLOCK_TOPSCORE;
            c->top[k].n = 0;
            c->top_offset[k] = off;
            if (!c->in_snap)
                report(c, true, off, k ? "topscore" : "top_ids", -1, PCD_FOUND_NONE, 0, "a snapmeta block before it");
        }
        break;
    }
    }
    mvm_block me = { b->which, off, 0 };
    vec_push(c, &c->pend, &me, sizeof me);
}

static void on_entries(mvm_col *c, const pcd_record *rec)
{
    if (c->cur < 0) return;
    uint32_t which = (uint32_t)c->cur;
    if (which == PCD_MOARVM_V3_BLOCK_STRINGS) {
        const pcd_moarvm_v3_string_entry *e = rec->data;
        size_t len = e->text.len;
        if (!vec_reserve(c, &c->sbuf, 1, c->sbuf.n + len)) return;
        if (len) memcpy((uint8_t *)c->sbuf.p + c->sbuf.n, e->text.ptr, len);
        c->sbuf.n += len;
        uint64_t end = c->sbuf.n;
        vec_push(c, &c->soff, &end, sizeof end);
        return;
    }
    /* entries of a column: u16, u32 or u64 */
    const void *vals = NULL;
    size_t n = 0;
    if (rec->type == &pcd_moarvm_v3_u16_entries_type) {
        const pcd_moarvm_v3_u16_entries *e = rec->data;
        vals = e->values;
        n = e->n_values;
    } else if (rec->type == &pcd_moarvm_v3_u32_entries_type) {
        const pcd_moarvm_v3_u32_entries *e = rec->data;
        vals = e->values;
        n = e->n_values;
    } else if (rec->type == &pcd_moarvm_v3_u64_entries_type) {
        const pcd_moarvm_v3_u64_entries *e = rec->data;
        vals = e->values;
        n = e->n_values;
    } else {
        return;
    }
    int col = column_of(which);
    if (col >= 0) {
        if (c->in_snap && c->col_offset[col] == c->cur_start) column_values(c, col, vals, n);
        return;
    }
    int t = table_of(which);
    if (t >= 0) {
        mvm_vec *v = &c->tbl[t];
        if (!vec_reserve(c, v, sizeof(uint32_t), v->n + n)) return;
        if (n) memcpy((uint32_t *)v->p + v->n, vals, n * sizeof(uint32_t));
        v->n += n;
        if (t != 4) {
            const uint32_t *u = vals;
            for (size_t i = 0; i < n; i++) {
                if (!c->tbl_any_str || u[i] > c->tbl_max_str) {
                    c->tbl_any_str = true;
                    c->tbl_max_str = u[i];
                    c->tbl_str_block = c->cur_start;
                }
            }
        }
        return;
    }
    if (which == PCD_MOARVM_V3_BLOCK_TOP_IDS || which == PCD_MOARVM_V3_BLOCK_TOPSCORE) {
        mvm_vec *v = &c->top[which == PCD_MOARVM_V3_BLOCK_TOPSCORE];
        size_t keep = n;
        if (v->n + keep > MVM_MAX_TOP) keep = v->n < MVM_MAX_TOP ? MVM_MAX_TOP - v->n : 0;
        if (keep && vec_reserve(c, v, sizeof(uint64_t), v->n + keep)) {
            memcpy((uint64_t *)v->p + v->n, vals, keep * sizeof(uint64_t));
            v->n += keep;
        }
        if (keep < n) v->n = MVM_MAX_TOP + 1; /* more than any highscore structure allows */
    }
}

/* ---- format 2 ------------------------------------------------------------------------ */

/* The block before ends where this one (or the index) starts. */
static void v2_close_block(mvm_col *c, uint64_t off)
{
    if (c->v2_cur < 0) return;
    uint64_t size = off - c->v2_cur_start;
    switch (c->v2_cur) {
    case PCD_MOARVM_V2_BLOCK_COLL: c->v2_coll_size = size; break;
    case PCD_MOARVM_V2_BLOCK_REFS: c->v2_refs_size = size; break;
    case PCD_MOARVM_V2_BLOCK_STRS: c->v2_last[0] = size; break;
    case PCD_MOARVM_V2_BLOCK_TYPE: c->v2_last[1] = size; break;
    case PCD_MOARVM_V2_BLOCK_FRAM: c->v2_last[2] = size; break;
    }
    c->v2_cur = -1;
}

static void v2_table_rows(mvm_col *c, int t, uint32_t u)
{
    vec_push(c, &c->tbl[t], &u, sizeof u);
    if (t != 4 && (!c->tbl_any_str || u > c->tbl_max_str)) {
        c->tbl_any_str = true;
        c->tbl_max_str = u;
        c->tbl_str_block = c->v2_cur_start;
    }
}

static void v2_finish_snapshot(mvm_col *c)
{
    uint64_t sizes[3] = { c->v2_coll_size, c->v2_refs_size, c->v2_middle };
    vec_push(c, &c->v2_index, sizes, sizeof sizes);
    /* format 2 has no snapmeta: the sum of sizes is the heap size */
    finish_snapshot(c, c->s.offset);
}

static void v2_block(mvm_col *c, const pcd_record *rec)
{
    const pcd_moarvm_v2_block *b = rec->data;
    uint64_t off = rec->offset;
    v2_close_block(c, off);
    c->v2_cur = (int32_t)b->which;
    c->v2_cur_start = off;
    c->last_block_start = off;
    c->last_block_end = off + rec->size;
    switch (b->which) {
    case PCD_MOARVM_V2_BLOCK_COLL:
        if (c->in_snap) {
            report(c, true, off, "coll", -1, PCD_FOUND_NONE, 0,
                   "the strs, type and fram blocks of the snapshot before (snapshot %" PRIu64 " has none)", c->s.index);
            reset_snapshot(c);
        }
        c->in_snap = true;
        c->s.index = c->nstarted++;
        c->s.offset = off;
        c->col_seen[MVM_COLKIND] = c->col_seen[MVM_COLSIZE] = c->col_seen[MVM_COLTOFI] = true;
        c->col_seen[MVM_COLRFCNT] = c->col_seen[MVM_COLRFSTR] = c->col_seen[MVM_COLUSIZE] = true;
        for (int k = 0; k < MVM_REFDESCR; k++) c->col_offset[k] = off;
        c->v2_coll_size = c->v2_refs_size = c->v2_middle = 0;
        break;
    case PCD_MOARVM_V2_BLOCK_REFS:
        if (!c->in_snap || c->col_seen[MVM_REFDESCR]) {
            report(c, true, off, "refs", -1, PCD_FOUND_NONE, 0, "one refs block after each coll block");
            break;
        }
        c->col_seen[MVM_REFDESCR] = c->col_seen[MVM_REFTRGET] = true;
        c->col_offset[MVM_REFDESCR] = c->col_offset[MVM_REFTRGET] = off;
        c->v2_refs_count = b->u.refs.count;
        break;
    case PCD_MOARVM_V2_BLOCK_STRS:
        if (b->u.strs.first != nstrings(c))
            report(c, true, off, "strs.first", -1, PCD_FOUND_UINT, b->u.strs.first,
                   "%" PRIu64 " (the strings written before)", nstrings(c));
        for (size_t i = 0; i < b->u.strs.n_strings; i++) {
            const pcd_bytes *t = &b->u.strs.strings[i];
            if (!vec_reserve(c, &c->sbuf, 1, c->sbuf.n + t->len)) return;
            if (t->len) memcpy((uint8_t *)c->sbuf.p + c->sbuf.n, t->ptr, t->len);
            c->sbuf.n += t->len;
            uint64_t end = c->sbuf.n;
            vec_push(c, &c->soff, &end, sizeof end);
        }
        break;
    case PCD_MOARVM_V2_BLOCK_TYPE:
        for (size_t i = 0; i < b->u.type.n_types; i++) {
            const pcd_moarvm_v2_type_row *t = &b->u.type.types[i];
            v2_table_rows(c, 0, t->repr_name);
            v2_table_rows(c, 1, t->type_name);
            if (t->type_name_again != t->type_name)
                report(c, true, off, "type.types", (int64_t)i, PCD_FOUND_UINT, t->type_name_again,
                       "type_name twice (%" PRIu32 ")", t->type_name);
        }
        break;
    case PCD_MOARVM_V2_BLOCK_FRAM:
        for (size_t i = 0; i < b->u.fram.n_frames; i++) {
            const pcd_moarvm_v2_frame_row *f = &b->u.fram.frames[i];
            v2_table_rows(c, 2, f->name);
            v2_table_rows(c, 3, f->cuid);
            v2_table_rows(c, 4, f->line);
            v2_table_rows(c, 5, f->file);
            if (f->cuid_again != f->cuid || f->line_again != f->line || f->file_again != f->file)
                report(c, true, off, "fram.frames", (int64_t)i, PCD_FOUND_NONE, 0,
                       "cuid, line and file twice each (MoarVM writes 8 bytes from each 32-bit field)");
        }
        /* a snapshot's tables come after its references: it is complete */
        if (c->in_snap) v2_finish_snapshot(c);
        else c->ended = true; /* the tables written when profiling ends */
        break;
    }
}

static void v2_entry(mvm_col *c, const pcd_record *rec)
{
    if (rec->type == &pcd_moarvm_v2_collectable_type) {
        if (!c->in_snap) return;
        const pcd_moarvm_v2_collectable *e = rec->data;
        uint16_t kind = e->kind, size = e->size;
        uint32_t tofi = e->tofi, cnt = e->refs_count;
        uint64_t start = e->refs_start, usize = e->unmanaged_size;
        column_values(c, MVM_COLKIND, &kind, 1);
        column_values(c, MVM_COLSIZE, &size, 1);
        column_values(c, MVM_COLTOFI, &tofi, 1);
        column_values(c, MVM_COLRFCNT, &cnt, 1);
        column_values(c, MVM_COLRFSTR, &start, 1);
        column_values(c, MVM_COLUSIZE, &usize, 1);
    } else if (rec->type == &pcd_moarvm_v2_ref_type) {
        if (!c->in_snap || c->col_offset[MVM_REFDESCR] == 0) return;
        const pcd_moarvm_v2_ref *r = rec->data;
        uint64_t d, idx, t;
        switch (r->which) {
        case PCD_MOARVM_V2_REF_REF8: d = r->u.ref8.descr; idx = r->u.ref8.index; t = r->u.ref8.target; break;
        case PCD_MOARVM_V2_REF_REF16: d = r->u.ref16.descr; idx = r->u.ref16.index; t = r->u.ref16.target; break;
        case PCD_MOARVM_V2_REF_REF32: d = r->u.ref32.descr; idx = r->u.ref32.index; t = r->u.ref32.target; break;
        default: d = r->u.ref64.descr; idx = r->u.ref64.index; t = r->u.ref64.target; break;
        }
        uint64_t i = c->s.n[MVM_REFDESCR];
        if (d > 3) {
            report(c, true, rec->offset, "refs", (int64_t)i, PCD_FOUND_UINT, d, "a description kind 0, 1 or 2");
            d &= 3;
        }
        uint64_t descr = idx << 2 | d;
        column_values(c, MVM_REFDESCR, &descr, 1);
        column_values(c, MVM_REFTRGET, &t, 1);
        /* MoarVM notes where the refs block's second half starts */
        if (c->v2_refs_count / 2 - 1 == i) c->v2_middle = rec->offset + rec->size - c->col_offset[MVM_REFDESCR];
    }
}

static void v2_index(mvm_col *c, const pcd_record *rec)
{
    v2_close_block(c, rec->offset);
    const pcd_moarvm_v2_index_entry *e = rec->data;
    uint64_t k = c->v2_index_seen++;
    const uint64_t *want = c->v2_index.p;
    if (k >= c->v2_index.n) {
        report(c, true, rec->offset, "index", (int64_t)k, PCD_FOUND_UINT, k + 1,
               "as many entries as snapshots (%zu)", c->v2_index.n);
        return;
    }
    static const char *const what[3] = { "collectables_size", "full_refs_size", "refs_middlepoint" };
    uint64_t got[3] = { e->collectables_size, e->full_refs_size, e->refs_middlepoint };
    for (int i = 0; i < 3; i++)
        if (got[i] != want[3 * k + i]) {
            report(c, true, rec->offset, "index", (int64_t)k, PCD_FOUND_UINT, got[i], "%s %" PRIu64 " (%s)", what[i],
                   want[3 * k + i], i == 2 ? "where the refs block's second half starts" : "the block's size");
            break;
        }
    if (e->incremental_data != 0)
        report(c, false, rec->offset, "index", (int64_t)k, PCD_FOUND_UINT, e->incremental_data,
               "incremental_data 0 (MoarVM never sets it)");
}

void mvm_col_record(mvm_col *c, const pcd_record *rec)
{
    if (!rec->data) return;
    if (rec->depth == 1 && !c->v2 && !c->seen_root &&
        (rec->type == &pcd_moarvm_v2_block_type || rec->type == &pcd_moarvm_v2_index_entry_type)) {
        /* a caller that does not hand on the root (info): format 2 by its records */
        c->v2 = true;
        c->v2_cur = -1;
    }
    if (rec->depth == 0) {
        c->seen_root = true;
        if (rec->type == &pcd_moarvm_v2_file_type) {
            const pcd_moarvm_v2_file *f = rec->data;
            c->v2 = true;
            c->v2_cur = -1;
            c->v2_footer[0] = f->stringheap_size;
            c->v2_footer[1] = f->types_size;
            c->v2_footer[2] = f->staticframes_size;
        }
        return;
    }
    if (c->v2) {
        if (rec->depth == 1 && rec->type == &pcd_moarvm_v2_block_type) v2_block(c, rec);
        else if (rec->depth == 1 && rec->type == &pcd_moarvm_v2_index_entry_type) v2_index(c, rec);
        else if (rec->depth == 2) v2_entry(c, rec);
        return;
    }
    if (rec->depth == 1 && rec->type == &pcd_moarvm_v3_block_type) on_block(c, rec);
    else if (rec->depth == 2) on_entries(c, rec);
}

static void v2_finish(mvm_col *c)
{
    if (c->in_snap) {
        report(c, true, c->last_block_start, NULL, -1, PCD_FOUND_NONE, 0,
               "the strs, type and fram blocks of this snapshot, which starts at offset %" PRIu64
               " (the file ends after the block here)", c->s.offset);
        return;
    }
    static const char *const what[3] = { "stringheap_size", "types_size", "staticframes_size" };
    for (int i = 0; i < 3 && c->seen_root; i++)
        if (c->v2_footer[i] != c->v2_last[i])
            report(c, true, c->last_block_end, what[i], -1, PCD_FOUND_UINT, c->v2_footer[i],
                   "%" PRIu64 " (the size of the last %s block)", c->v2_last[i], i == 0 ? "strs" : i == 1 ? "type" : "fram");
}

void mvm_col_finish(mvm_col *c)
{
    if (c->v2) {
        v2_finish(c);
        return;
    }
    const mvm_block *pend = c->pend.p;
    if (!c->seen_filemeta && c->seen_root)
        report(c, true, PCD_MOARVM_V3_FILE_BLOCKS_AT, "filemeta", -1, PCD_FOUND_NONE, 0, "a filemeta block (the file has none)");
    if (c->in_snap) {
        const mvm_block *last = c->pend.n ? &pend[c->pend.n - 1] : NULL;
        const pcd_field *cf = last ? &pcd_moarvm_v3_block_type.fields[last->which] : NULL;
        report(c, true, c->last_block_start, NULL, -1, PCD_FOUND_NONE, 0,
               "the TOC of this snapshot, which starts at offset %" PRIu64 "; the file ends after its %s block "
               "here (the writer was stopped in the middle of it)", c->s.offset, cf ? cf->name : "snapmeta");
    } else if (c->pend.n) {
        report(c, true, c->last_block_start, NULL, -1, PCD_FOUND_NONE, 0,
               "a TOC after the %zu block%s that follow the last one (the file ends after the block here)",
               c->pend.n, c->pend.n == 1 ? "" : "s");
    } else if (c->last_was_inner) {
        report(c, false, c->last_block_end, "toc", -1, PCD_FOUND_NONE, 0,
               "an outer TOC after the last inner one (the file's last 8 bytes point at an inner TOC)");
    } else if (c->seen_filemeta && !c->ended) {
        report(c, false, c->last_block_end, NULL, -1, PCD_FOUND_NONE, 0,
               "the final empty TOC MoarVM writes when profiling ends (the process was stopped before; "
               "every snapshot before it is complete)");
    }
}

/* ---- what was read ---------------------------------------------------------------------- */

size_t mvm_col_snapshots(const mvm_col *c, const mvm_snapshot **out)
{
    *out = c->snaps.p;
    return c->snaps.n;
}

uint64_t mvm_col_strings(const mvm_col *c) { return nstrings(c); }
uint64_t mvm_col_types(const mvm_col *c) { return ntypes(c); }
uint64_t mvm_col_frames(const mvm_col *c) { return nframes(c); }
bool mvm_col_ended(const mvm_col *c) { return c->ended; }

bool mvm_col_filemeta(const mvm_col *c, int64_t *subversion, int64_t *start_time, int64_t *pid)
{
    *subversion = c->subversion;
    *start_time = c->start_time;
    *pid = c->pid;
    return c->seen_filemeta;
}

bool mvm_col_incomplete(const mvm_col *c, uint64_t *index, uint64_t *offset)
{
    if (!c->in_snap) return false;
    *index = c->s.index;
    *offset = c->s.offset;
    return true;
}

uint64_t mvm_col_last_block(const mvm_col *c) { return c->last_block_start; }
