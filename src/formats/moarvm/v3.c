/* formats/moarvm/v3.c: format 3's blocks into the collector: filemeta and snapmeta (JSON),
 * columns and table rows, highscores, and the TOCs checked against the blocks they list. */
#include "formats/moarvm/collector.h"

#include "common/json_mem.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "moarvm_v3.h"

#define report pcd_moarvm_col_report
#define vec_push pcd_moarvm_col_push
#define vec_reserve pcd_moarvm_col_reserve

/* ---- JSON metadata ------------------------------------------------------------------ */

static json_t *parse_json(pcd_moarvm_col *c, const pcd_bytes *text, uint64_t offset, const char *what)
{
    json_error_t je;
    pcd_json_mem_scope js;
    pcd_json_mem_enter(&js, c->al);
    json_t *j = json_loadb((const char *)text->ptr, text->len, 0, &je);
    if (pcd_json_mem_leave(&js)) {
        json_decref(j);  /* the cap refused jansson: out of memory, not bad JSON */
        c->oom = true;
        return NULL;
    }
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

static void on_filemeta(pcd_moarvm_col *c, const pcd_moarvm_v3_json_block *b, uint64_t offset)
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
            if (ec == 0 || ec > COL_MAX_TOP / 4)
                report(c, true, offset, "filemeta.highscore_structure.entry_count", -1, PCD_FOUND_UINT, ec,
                       "1 to %d", COL_MAX_TOP / 4);
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

static void on_snapmeta(pcd_moarvm_col *c, const pcd_moarvm_v3_json_block *b, uint64_t offset)
{
    json_t *j = parse_json(c, &b->json, offset, "snapmeta");
    if (!j) return;
    for (int k = 0; k < PCD_MOARVM_NMETA; k++) {
        if (json_u64(j, pcd_moarvm_meta_keys[k], &c->s.meta[k])) c->s.have_meta |= 1u << k;
        else {
            report(c, true, offset, "snapmeta", -1, PCD_FOUND_NONE, 0, "the key \"%s\" with a number >= 0",
                   pcd_moarvm_meta_keys[k]);
        }
    }
    json_decref(j);
}

static void check_toc_entries(pcd_moarvm_col *c, const pcd_moarvm_v3_toc_block *t, uint64_t offset,
                              const col_block *want, size_t nwant, const char *what)
{
    if (t->n_entries != nwant) {
        report(c, true, offset, "toc.count", -1, PCD_FOUND_UINT, t->n_entries, "%zu entries (%s)", nwant, what);
        return;
    }
    for (size_t i = 0; i < nwant; i++) {
        const pcd_moarvm_v3_toc_entry *e = &t->entries[i];
        const pcd_field *cf = &pcd_moarvm_v3_block_type.fields[want[i].which];
        /* the name a block of this kind carries (the case's tag) */
#define KIND(C) [PCD_MOARVM_V3_BLOCK_##C] = PCD_MOARVM_V3_BLOCK_##C##_TAG
        static const char *const kind_names[] = {
            KIND(FILEMETA), KIND(SNAPMETA), KIND(TOC), KIND(STRINGS), KIND(COLKIND), KIND(COLSIZE), KIND(COLTOFI),
            KIND(COLRFCNT), KIND(COLRFSTR), KIND(COLUSIZE), KIND(REFDESCR), KIND(REFTRGET), KIND(REPRNAME),
            KIND(TYPENAME), KIND(SFNAME), KIND(SFCUID), KIND(SFLINE), KIND(SFFILE), KIND(TOP_IDS), KIND(TOPSCORE),
        };
#undef KIND
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
static int column_of(uint32_t which)
{
    switch (which) {
    case PCD_MOARVM_V3_BLOCK_COLKIND: return PCD_MOARVM_COLKIND;
    case PCD_MOARVM_V3_BLOCK_COLSIZE: return PCD_MOARVM_COLSIZE;
    case PCD_MOARVM_V3_BLOCK_COLTOFI: return PCD_MOARVM_COLTOFI;
    case PCD_MOARVM_V3_BLOCK_COLRFCNT: return PCD_MOARVM_COLRFCNT;
    case PCD_MOARVM_V3_BLOCK_COLRFSTR: return PCD_MOARVM_COLRFSTR;
    case PCD_MOARVM_V3_BLOCK_COLUSIZE: return PCD_MOARVM_COLUSIZE;
    case PCD_MOARVM_V3_BLOCK_REFDESCR: return PCD_MOARVM_REFDESCR;
    case PCD_MOARVM_V3_BLOCK_REFTRGET: return PCD_MOARVM_REFTRGET;
    }
    return -1;
}

/* The columns are read as they come, each with the ones before it in the order MoarVM writes
 * them: colkind gives the number of collectables (and colsize, coltofi and colusize's checks
 * go by kind), colrfstr's ranges take colrfcnt's counts, colusize's per-type totals take
 * colsize and coltofi. The first such column not yet seen, or -1. */
static int column_needs(const pcd_moarvm_col *c, int col)
{
    static const int needs[][3] = {
        [PCD_MOARVM_COLSIZE] = { PCD_MOARVM_COLKIND, -1, -1 },
        [PCD_MOARVM_COLTOFI] = { PCD_MOARVM_COLKIND, -1, -1 },
        [PCD_MOARVM_COLRFCNT] = { PCD_MOARVM_COLKIND, -1, -1 },
        [PCD_MOARVM_COLRFSTR] = { PCD_MOARVM_COLKIND, PCD_MOARVM_COLRFCNT, -1 },
        [PCD_MOARVM_COLUSIZE] = { PCD_MOARVM_COLKIND, PCD_MOARVM_COLSIZE, PCD_MOARVM_COLTOFI },
    };
    if (col <= PCD_MOARVM_COLKIND || col > PCD_MOARVM_COLUSIZE) return -1;
    for (int i = 0; i < 3 && needs[col][i] >= 0; i++)
        if (!c->col_seen[needs[col][i]]) return needs[col][i];
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

static void on_toc(pcd_moarvm_col *c, const pcd_moarvm_v3_toc_block *t, uint64_t offset, uint64_t size)
{
    if (t->self != offset)
        report(c, true, offset, "toc.self", -1, PCD_FOUND_UINT, t->self, "%" PRIu64 " (where this TOC starts)", offset);
    /* the TOC's entries end where its self pointer starts */
    col_block me = { PCD_MOARVM_V3_BLOCK_TOC, offset, offset + size - PCD_MOARVM_V3_TOC_BLOCK_SELF_FROM_END };
    bool outer = false;
    for (size_t i = 0; i < t->n_entries && !outer; i++)
        outer = pcd_bytes_eq(t->entries[i].kind, PCD_MOARVM_V3_BLOCK_FILEMETA_TAG, sizeof PCD_MOARVM_V3_BLOCK_FILEMETA_TAG - 1) ||
                pcd_bytes_eq(t->entries[i].kind, PCD_MOARVM_V3_BLOCK_TOC_TAG, sizeof PCD_MOARVM_V3_BLOCK_TOC_TAG - 1);
    const col_block *pend = c->pend.p;
    bool has_meta = false;
    for (size_t i = 0; i < c->pend.n; i++) has_meta = has_meta || pend[i].which == PCD_MOARVM_V3_BLOCK_SNAPMETA;
    if (outer) {
        /* filemeta and every inner TOC so far */
        if (c->pend.n) {
            report(c, true, offset, "toc", -1, PCD_FOUND_NONE, 0,
                   "an inner TOC listing the %zu blocks before it, not an outer one", c->pend.n);
            if (c->in_snap) pcd_moarvm_col_reset_snapshot(c);
            c->pend.n = 0;
        }
        col_vec want = { 0 };
        col_block fm = { PCD_MOARVM_V3_BLOCK_FILEMETA, c->filemeta_start, c->filemeta_end };
        if (c->seen_filemeta) vec_push(c, &want, &fm, sizeof fm);
        for (size_t i = 0; i < c->inner.n; i++) vec_push(c, &want, (const col_block *)c->inner.p + i, sizeof fm);
        check_toc_entries(c, t, offset, want.p, want.n, "filemeta and every inner TOC so far");
        pcd_moarvm_col_vec_free(c, &want, sizeof fm);
        c->last_was_outer = true;
        c->last_was_inner = false;
        return;
    }
    /* an inner TOC: the blocks since the last TOC */
    check_toc_entries(c, t, offset, pend, c->pend.n,
                      has_meta ? "the snapshot's blocks" : "the blocks since the last TOC");
    vec_push(c, &c->inner, &me, sizeof me);
    if (c->in_snap) pcd_moarvm_col_finish_snapshot(c, offset);
    else c->ended = true; /* the TOC written when profiling ends (with any leftover tables) */
    c->pend.n = 0;
    c->last_was_inner = true;
    c->last_was_outer = false;
}

void pcd_moarvm_col_v3_block(pcd_moarvm_col *c, const pcd_record *rec)
{
    const pcd_moarvm_v3_block *b = rec->data;
    uint64_t off = rec->offset;
    /* the block before ends where this one starts */
    if (c->pend.n) {
        col_block *last = (col_block *)c->pend.p + c->pend.n - 1;
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
            pcd_moarvm_col_reset_snapshot(c);
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
                report(c, true, off, pcd_moarvm_col_names[col], -1, PCD_FOUND_NONE, 0,
                       "a snapmeta block before the snapshot's columns");
            else if (c->col_seen[col])
                report(c, true, off, pcd_moarvm_col_names[col], -1, PCD_FOUND_NONE, 0, "one %s block per snapshot",
                       pcd_moarvm_col_names[col]);
            else {
                c->col_seen[col] = true;
                c->col_offset[col] = off;
                int need = column_needs(c, col);
                if (need >= 0 && !c->early) {
                    c->early = true;
                    c->early_col = col;
                    c->early_need = need;
                }
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
    col_block me = { b->which, off, 0 };
    vec_push(c, &c->pend, &me, sizeof me);
}

void pcd_moarvm_col_v3_entries(pcd_moarvm_col *c, const pcd_record *rec)
{
    if (c->cur < 0) return;
    uint32_t which = (uint32_t)c->cur;
    if (which == PCD_MOARVM_V3_BLOCK_STRINGS) {
        const pcd_moarvm_v3_string_entry *e = rec->data;
        size_t len = e->text.len;
        pcd_moarvm_col_add_string(c, e->text.ptr, len);
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
        if (c->in_snap && c->col_offset[col] == c->cur_start) pcd_moarvm_col_column_values(c, col, vals, n);
        return;
    }
    int t = table_of(which);
    if (t >= 0) {
        col_vec *v = &c->tbl[t];
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
        col_vec *v = &c->top[which == PCD_MOARVM_V3_BLOCK_TOPSCORE];
        size_t keep = n;
        if (v->n + keep > COL_MAX_TOP) keep = v->n < COL_MAX_TOP ? COL_MAX_TOP - v->n : 0;
        if (keep && vec_reserve(c, v, sizeof(uint64_t), v->n + keep)) {
            memcpy((uint64_t *)v->p + v->n, vals, keep * sizeof(uint64_t));
            v->n += keep;
        }
        if (keep < n) v->n = COL_MAX_TOP + 1; /* more than any highscore structure allows */
    }
}

void pcd_moarvm_col_v3_finish(pcd_moarvm_col *c)
{
    const col_block *pend = c->pend.p;
    if (!c->seen_filemeta && c->seen_root)
        report(c, true, PCD_MOARVM_V3_FILE_BLOCKS_AT, "filemeta", -1, PCD_FOUND_NONE, 0,
               "a filemeta block (the file has none)");
    if (c->in_snap) {
        const col_block *last = c->pend.n ? &pend[c->pend.n - 1] : NULL;
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

