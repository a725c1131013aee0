/* formats/moarvm/snapshot.c: MoarVM heap snapshots above the bytes (see snapshot.h): the
 * collector's tables and names, the columns of the snapshot being read (figures, the
 * per-collectable arrays of full and graph mode, per-type totals), and what was read (records
 * are handed to the part of each format, v3.c and v2.c, by collect.c). Every byte through the caller's
 * allocator. */
#include "formats/moarvm/collector.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/problem.h"
#include "common/vec.h"
#include "moarvm_v3.h"

const char *const pcd_moarvm_meta_keys[PCD_MOARVM_NMETA] = {
    "snap_time", "gc_seq_num", "total_heap_size", "total_objects",
    "total_typeobjects", "total_stables", "total_frames", "total_refs",
};

const char *const pcd_moarvm_col_names[PCD_MOARVM_NCOLS] = {
    PCD_MOARVM_V3_BLOCK_COLKIND_TAG, PCD_MOARVM_V3_BLOCK_COLSIZE_TAG, PCD_MOARVM_V3_BLOCK_COLTOFI_TAG,
    PCD_MOARVM_V3_BLOCK_COLRFCNT_TAG, PCD_MOARVM_V3_BLOCK_COLRFSTR_TAG, PCD_MOARVM_V3_BLOCK_COLUSIZE_TAG,
    PCD_MOARVM_V3_BLOCK_REFDESCR_TAG, PCD_MOARVM_V3_BLOCK_REFTRGET_TAG,
};

/* ---- helpers ------------------------------------------------------------------ */

bool pcd_moarvm_col_reserve(pcd_moarvm_col *c, col_vec *v, size_t elem, size_t need)
{
    if (PCD_LIKELY(need <= v->cap)) return true;
    if (pcd_vec_grow(c->al, &v->p, &v->cap, elem, need) != PCD_OK) {
        c->oom = true;
        return false;
    }
    return true;
}

bool pcd_moarvm_col_push(pcd_moarvm_col *c, col_vec *v, const void *item, size_t elem)
{
    if (!pcd_moarvm_col_reserve(c, v, elem, v->n + 1)) return false;
    memcpy((uint8_t *)v->p + v->n * elem, item, elem);
    v->n++;
    return true;
}

void pcd_moarvm_col_vec_free(pcd_moarvm_col *c, col_vec *v, size_t elem)
{
    pcd_vec_free(c->al, v->p, v->cap, elem);
    memset(v, 0, sizeof *v);
}

void pcd_moarvm_col_add_string(pcd_moarvm_col *c, const uint8_t *p, size_t len)
{
    if (!pcd_moarvm_col_reserve(c, &c->sbuf, 1, c->sbuf.n + len)) return;
    if (len) memcpy((uint8_t *)c->sbuf.p + c->sbuf.n, p, len);
    c->sbuf.n += len;
    uint64_t end = c->sbuf.n;
    pcd_moarvm_col_push(c, &c->soff, &end, sizeof end);
}

void pcd_moarvm_col_report(pcd_moarvm_col *c, bool is_error, uint64_t offset, const char *field, int64_t index,
                           pcd_found_kind fk, uint64_t found, const char *fmt, ...)
{
    if (!c->o.report) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->msg, sizeof c->msg, fmt, ap);
    va_end(ap);
    pcd_error e;
    pcd_problem(&e, PCD_E_INVALID, offset, c->msg, fk, found);
    if (fk == PCD_FOUND_TEXT) e.found_text = c->found;
    if (field) pcd_error_push(&e, field, index);
    if (c->in_snap) pcd_error_push(&e, "snapshot", (int64_t)c->s.index);
    c->o.report(c->o.report_ud, is_error, &e);
}

/* ---- names ---------------------------------------------------------------------- */

const char *pcd_moarvm_col_string(const pcd_moarvm_col *c, uint64_t i, size_t *len)
{
    if (i >= nstrings(c)) return NULL;
    const uint64_t *off = c->soff.p;
    *len = (size_t)(off[i + 1] - off[i]);
    if (!c->sbuf.p) return ""; /* every string so far is empty */
    return (const char *)c->sbuf.p + off[i];
}

static pcd_bytes string_bytes(const pcd_moarvm_col *c, uint64_t i)
{
    size_t len = 0;
    const char *t = pcd_moarvm_col_string(c, i, &len);
    pcd_bytes b = { (const uint8_t *)t, t ? len : 0 };
    return b;
}

bool pcd_moarvm_col_type_row(const pcd_moarvm_col *c, uint64_t type, pcd_bytes *name)
{
    if (type >= c->tbl[1].n) return false;
    *name = string_bytes(c, ((const uint32_t *)c->tbl[1].p)[type]);
    return name->ptr != NULL;
}

bool pcd_moarvm_col_frame_row(const pcd_moarvm_col *c, uint64_t frame, pcd_bytes *name, pcd_bytes *file, uint32_t *line)
{
    if (frame >= nframes(c)) return false;
    *name = string_bytes(c, ((const uint32_t *)c->tbl[2].p)[frame]);
    *file = string_bytes(c, ((const uint32_t *)c->tbl[5].p)[frame]);
    *line = ((const uint32_t *)c->tbl[4].p)[frame];
    return true;
}

size_t pcd_moarvm_col_type_name(const pcd_moarvm_col *c, uint64_t type, char *buf, size_t cap)
{
    size_t len = 0;
    const char *s = type < c->tbl[1].n ? pcd_moarvm_col_string(c, ((const uint32_t *)c->tbl[1].p)[type], &len) : NULL;
    if (!s) return (size_t)snprintf(buf, cap, "<type %" PRIu64 ">", type);
    return (size_t)snprintf(buf, cap, "%.*s", (int)len, s);
}

size_t pcd_moarvm_col_frame_name(const pcd_moarvm_col *c, uint64_t frame, char *buf, size_t cap)
{
    if (frame >= nframes(c)) return (size_t)snprintf(buf, cap, "<frame %" PRIu64 ">", frame);
    size_t nlen = 0, flen = 0;
    const char *name = pcd_moarvm_col_string(c, ((const uint32_t *)c->tbl[2].p)[frame], &nlen);
    const char *file = pcd_moarvm_col_string(c, ((const uint32_t *)c->tbl[5].p)[frame], &flen);
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

/* ---- snapshots ------------------------------------------------------------------ */

static void free_snapshot_arrays(pcd_moarvm_col *c)
{
    pcd_alloc *al = c->al;
    pcd_alloc_free(al, c->kind, c->acap[A_KIND] * sizeof *c->kind);
    pcd_alloc_free(al, c->size, c->acap[A_SIZE] * sizeof *c->size);
    pcd_alloc_free(al, c->tofi, c->acap[A_TOFI] * sizeof *c->tofi);
    pcd_alloc_free(al, c->rfcnt, c->acap[A_RFCNT] * sizeof *c->rfcnt);
    pcd_alloc_free(al, c->rfstr, c->acap[A_RFSTR] * sizeof *c->rfstr);
    pcd_alloc_free(al, c->usize, c->acap[A_USIZE] * sizeof *c->usize);
    pcd_alloc_free(al, c->target, c->tcap * sizeof *c->target);
    c->kind = NULL;
    c->size = NULL;
    c->tofi = NULL;
    c->rfcnt = NULL;
    c->rfstr = NULL;
    c->usize = NULL;
    c->target = NULL;
    memset(c->acap, 0, sizeof c->acap);
    c->ccap = c->tcap = 0;
    for (int k = 1; k < 5; k++) {
        pcd_alloc_free(al, c->st.by_kind[k], c->st_cap[k] * sizeof *c->st.by_kind[k]);
        c->st.by_kind[k] = NULL;
        c->st.len[k] = 0;
        c->st_cap[k] = 0;
    }
}

void pcd_moarvm_col_reset_snapshot(pcd_moarvm_col *c)
{
    c->coll_before += c->s.n[PCD_MOARVM_COLKIND];
    free_snapshot_arrays(c);
    memset(&c->s, 0, sizeof c->s);
    memset(c->col_offset, 0, sizeof c->col_offset);
    memset(c->col_seen, 0, sizeof c->col_seen);
    c->early = false;
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

/* Grows one per-collectable array (*have elements) to cap elements, the new ones zero. */
static bool grow_array(pcd_moarvm_col *c, void **p, size_t *have, size_t elem, size_t cap)
{
    if (*have >= cap) return true;
    uint8_t *q = pcd_alloc_resize(c->al, *p, *have * elem, cap * elem);
    if (!q) {
        c->oom = true;
        return false;
    }
    memset(q + *have * elem, 0, (cap - *have) * elem);
    *p = q;
    *have = cap;
    return true;
}

/* Grows the per-collectable arrays of full mode to hold entry i. */
static bool coll_room(pcd_moarvm_col *c, uint64_t i)
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
    bool ok = grow_array(c, (void **)&c->kind, &c->acap[A_KIND], sizeof *c->kind, cap) &&
              grow_array(c, (void **)&c->size, &c->acap[A_SIZE], sizeof *c->size, cap) &&
              grow_array(c, (void **)&c->tofi, &c->acap[A_TOFI], sizeof *c->tofi, cap) &&
              grow_array(c, (void **)&c->rfcnt, &c->acap[A_RFCNT], sizeof *c->rfcnt, cap);
    if (ok && c->o.graph)
        ok = grow_array(c, (void **)&c->rfstr, &c->acap[A_RFSTR], sizeof *c->rfstr, cap) &&
             grow_array(c, (void **)&c->usize, &c->acap[A_USIZE], sizeof *c->usize, cap);
    if (!ok) return false;
    c->ccap = cap;
    return true;
}

static pcd_moarvm_stat *stat_row(pcd_moarvm_col *c, int k, uint64_t idx)
{
    if (idx >= COL_MAX_STAT_INDEX) return NULL;
    /* The rows follow the bytes read, not the index a column claims: MoarVM adds a type or a
     * static frame to its tables for a collectable that has it, so a written index is below the
     * collectables of the snapshots so far, and below the rows of the file's tables. (One that
     * is not gets no row, as one past COL_MAX_STAT_INDEX.) */
    uint64_t room = c->coll_before + c->s.n[PCD_MOARVM_COLKIND];
    size_t trows = c->tbl[1].n > c->tbl[2].n ? c->tbl[1].n : c->tbl[2].n;
    if (idx >= room && idx >= trows) return NULL;
    if (idx >= c->st_cap[k]) {
        size_t cap = c->st_cap[k] ? c->st_cap[k] : 512;
        while (cap <= idx) cap *= 2;
        pcd_moarvm_stat *p = pcd_alloc_resize(c->al, c->st.by_kind[k], c->st_cap[k] * sizeof *p, cap * sizeof *p);
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

void pcd_moarvm_col_column_values(pcd_moarvm_col *c, int col, const void *vals, size_t n)
{
    pcd_moarvm_snapshot *s = &c->s;
    uint64_t base = s->n[col];
    uint64_t ncoll = s->n[PCD_MOARVM_COLKIND];
    bool full = c->o.full;
    switch (col) {
    case PCD_MOARVM_COLKIND: {
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
    case PCD_MOARVM_COLSIZE: {
        const uint16_t *v = vals;
        if (!full) {
            /* info: the sum only. The piece's sum cannot overflow (n 16-bit values); added to
             * the heap size once, it saturates and sets heap_ovf exactly as adding them one by
             * one would (every value is >= 0) */
            uint64_t sum = 0;
            for (size_t i = 0; i < n; i++) sum += v[i];
            s->heap_size = add_sat(s->heap_size, sum, &c->heap_ovf);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            s->heap_size = add_sat(s->heap_size, v[i], &c->heap_ovf);
            uint64_t at = base + i;
            if (full && at < ncoll) {
                c->size[at] = v[i];
                if (c->kind[at] >= PCD_MOARVM_K_PERM_ROOTS && v[i] != 0) bad(&c->bad[B_ROOT_SIZE], at, v[i]);
            }
        }
        break;
    }
    case PCD_MOARVM_COLTOFI: {
        const uint32_t *v = vals;
        for (size_t i = 0; i < n && full; i++) {
            uint64_t at = base + i;
            if (at >= ncoll) break;
            c->tofi[at] = v[i];
            uint8_t k = c->kind[at];
            if (k >= PCD_MOARVM_K_OBJECT && k <= PCD_MOARVM_K_STABLE) track_max(&c->type_tofi, at, v[i]);
            else if (k == PCD_MOARVM_K_FRAME) track_max(&c->frame_tofi, at, v[i]);
            else if (k >= PCD_MOARVM_K_PERM_ROOTS && v[i] != 0) bad(&c->bad[B_ROOT_TOFI], at, v[i]);
        }
        break;
    }
    case PCD_MOARVM_COLRFCNT: {
        const uint32_t *v = vals;
        for (size_t i = 0; i < n; i++) {
            c->rfcnt_sum = add_sat(c->rfcnt_sum, v[i], &c->rfcnt_sum_ovf);
            if (full && base + i < ncoll) c->rfcnt[base + i] = v[i];
        }
        break;
    }
    case PCD_MOARVM_COLRFSTR: {
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
    case PCD_MOARVM_COLUSIZE: {
        const uint64_t *v = vals;
        if (!full) {
            /* info: the sum only, kept in a register (the one-by-one saturating add) */
            uint64_t h = s->heap_size;
            bool ovf = false;
            for (size_t i = 0; i < n; i++) h = add_sat(h, v[i], &ovf);
            s->heap_size = h;
            if (ovf) c->heap_ovf = true;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            s->heap_size = add_sat(s->heap_size, v[i], &c->heap_ovf);
            uint64_t at = base + i;
            if (!full || at >= ncoll) continue;
            if (c->o.graph) c->usize[at] = v[i];
            uint8_t k = c->kind[at];
            if (k >= PCD_MOARVM_K_PERM_ROOTS) {
                if (v[i] != 0) bad(&c->bad[B_ROOT_USIZE], at, v[i]);
            } else if (k >= PCD_MOARVM_K_OBJECT) {
                pcd_moarvm_stat *row = stat_row(c, k, c->tofi[at]);
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
    case PCD_MOARVM_REFDESCR: {
        const uint64_t *v = vals;
        /* counts and the largest string index in registers (a counter in memory per kind
         * would make each reference wait for the last one's store); the rare bad ones again
         * one by one */
        /* kind 3 has no name: none is written */
        enum { UNKNOWN = PCD_MOARVM_V3_REFDESCR_KIND_UNKNOWN, STRING = PCD_MOARVM_V3_REFDESCR_KIND_STRING, NONE = 3 };
        /* the kinds counted by the two bits of their number (1 index, 2 string, 3 none): the
         * low bits add up to n1 + n3, the high ones to n2 + n3; a kind-0 word with a payload
         * leaves bits in the OR of the kind-0 words */
        _Static_assert(PCD_MOARVM_V3_REFDESCR_KIND_INDEX == 1 && STRING == 2 && UNKNOWN == 0,
                       "refdescr kinds numbered 0 unknown, 1 index, 2 string, 3 none");
        uint64_t lo = 0, hi = 0, n3 = 0, z = 0, m2 = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t d = v[i], k = pcd_moarvm_v3_refdescr_kind(d);
            lo += k & 1;
            hi += k >> 1;
            n3 += k == NONE;
            z |= k == UNKNOWN ? d : 0;
            uint64_t sv = k == STRING ? pcd_moarvm_v3_refdescr_index(d) : 0;
            m2 = sv > m2 ? sv : m2;
        }
        uint64_t n2 = hi - n3, n0 = n - (lo - n3) - n2 - n3;
        bool odd = z != 0 || n3 != 0;
        /* a new largest string index (rarely any after the first piece): where it first is,
         * the scan stopping there (a string reference with index m2 is among the n) */
        col_max *sr = &c->str_ref;
        if (n2 && (!sr->any || m2 > sr->val)) {
            size_t i = 0;
            while (pcd_moarvm_v3_refdescr_kind(v[i]) != STRING || pcd_moarvm_v3_refdescr_index(v[i]) != m2) i++;
            sr->any = true;
            sr->val = m2;
            sr->idx = base + i;
        }
        s->refkinds[UNKNOWN] += n0;
        s->refkinds[PCD_MOARVM_V3_REFDESCR_KIND_INDEX] += n - n0 - n2 - n3;
        s->refkinds[STRING] += n2;
        s->refkinds[NONE] += n3;
        for (size_t i = 0; odd && i < n; i++) {
            uint64_t d = v[i];
            unsigned k = pcd_moarvm_v3_refdescr_kind(d);
            if (k == UNKNOWN && d != 0) bad(&c->bad[B_UNKNOWN_REF], base + i, d);
            else if (k == NONE) bad(&c->bad[B_REF_KIND3], base + i, d);
        }
        break;
    }
    case PCD_MOARVM_REFTRGET: {
        const uint64_t *v = vals;
        if (c->o.graph && n) {
            uint64_t need = base + n;
            if (need > c->tcap) {
                size_t cap = c->tcap ? c->tcap : 4096;
                while (cap < need) cap *= 2;
                uint64_t *p = pcd_alloc_resize(c->al, c->target, c->tcap * sizeof *p, cap * sizeof *p);
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
        col_max *mt = &c->max_target;
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

/* ---- records ------------------------------------------------------------------------ */

pcd_moarvm_col *pcd_moarvm_col_new(pcd_alloc *al, const pcd_moarvm_opts *o)
{
    pcd_moarvm_col *c = pcd_alloc_get(al, sizeof *c);
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->al = al;
    c->o = *o;
    if (c->o.graph) c->o.full = true;
    c->cur = -1;
    c->entry_count = 40;
    for (int i = 0; i < 4; i++) c->order[i] = i;
    uint64_t zero = 0;
    if (!pcd_moarvm_col_push(c, &c->soff, &zero, sizeof zero)) {
        pcd_alloc_free(al, c, sizeof *c);
        return NULL;
    }
    return c;
}

void pcd_moarvm_col_set_report(pcd_moarvm_col *c, pcd_report_fn report, void *ud)
{
    c->o.report = report;
    c->o.report_ud = ud;
}

void pcd_moarvm_col_free(pcd_moarvm_col *c)
{
    if (!c) return;
    free_snapshot_arrays(c);
    pcd_moarvm_col_vec_free(c, &c->sbuf, 1);
    pcd_moarvm_col_vec_free(c, &c->soff, sizeof(uint64_t));
    for (int k = 0; k < 6; k++) pcd_moarvm_col_vec_free(c, &c->tbl[k], sizeof(uint32_t));
    pcd_moarvm_col_vec_free(c, &c->pend, sizeof(col_block));
    pcd_moarvm_col_vec_free(c, &c->inner, sizeof(col_block));
    pcd_moarvm_col_vec_free(c, &c->top[0], sizeof(uint64_t));
    pcd_moarvm_col_vec_free(c, &c->top[1], sizeof(uint64_t));
    pcd_moarvm_col_vec_free(c, &c->snaps, sizeof(pcd_moarvm_snapshot));
    pcd_moarvm_col_vec_free(c, &c->v2_index, 3 * sizeof(uint64_t));
    pcd_alloc_free(c->al, c, sizeof *c);
}

/* ---- what was read ---------------------------------------------------------------------- */

size_t pcd_moarvm_col_snapshots(const pcd_moarvm_col *c, const pcd_moarvm_snapshot **out)
{
    *out = c->snaps.p;
    return c->snaps.n;
}

uint64_t pcd_moarvm_col_strings(const pcd_moarvm_col *c) { return nstrings(c); }
uint64_t pcd_moarvm_col_types(const pcd_moarvm_col *c) { return ntypes(c); }
uint64_t pcd_moarvm_col_frames(const pcd_moarvm_col *c) { return nframes(c); }
bool pcd_moarvm_col_ended(const pcd_moarvm_col *c) { return c->ended; }

bool pcd_moarvm_col_filemeta(const pcd_moarvm_col *c, int64_t *subversion, int64_t *start_time, int64_t *pid)
{
    *subversion = c->subversion;
    *start_time = c->start_time;
    *pid = c->pid;
    return c->seen_filemeta;
}

bool pcd_moarvm_col_incomplete(const pcd_moarvm_col *c, uint64_t *index, uint64_t *offset)
{
    if (!c->in_snap) return false;
    *index = c->s.index;
    *offset = c->s.offset;
    return true;
}

uint64_t pcd_moarvm_col_last_block(const pcd_moarvm_col *c) { return c->last_block_start; }
bool pcd_moarvm_col_oom(const pcd_moarvm_col *c) { return c->oom; }

pcd_status pcd_moarvm_no_snapshot(pcd_job *j, uint64_t complete)
{
    if (complete) return pcd_job_fail(j, PCD_E_INVALID, "no complete snapshot with sound references");
    if (j->damaged)
        return pcd_job_fail(j, PCD_E_EMPTY, "nothing to convert before the damage (no complete heap snapshot before it)");
    return pcd_job_fail(j, PCD_E_EMPTY, "nothing to show: the input has no complete heap snapshot");
}
