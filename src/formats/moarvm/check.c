/* formats/moarvm/check.c: a snapshot's checks once its TOC is read (format 2: its last table
 * block): every column against colkind or refdescr, snapmeta's totals against the columns,
 * reference ranges and targets, type and frame indexes, the highscores recomputed from the
 * columns, the table rows it added; then it is handed on (with its graph when that is sound)
 * and kept. */
#include "formats/moarvm/collector.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moarvm_v3.h"

#define report pcd_moarvm_col_report

static int cmp_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* topIDs / topscore against the same lists recomputed from the columns. */
static void check_highscores(pcd_moarvm_col *c)
{
    const col_vec *ids = &c->top[0], *scores = &c->top[1];
    uint64_t ec = c->entry_count;
    if (!ids->n && !scores->n) return;   /* MoarVM writes none without statistics */
    if (c->st_partial) {
        report(c, false, c->top_offset[1], "topscore", -1, PCD_FOUND_NONE, 0,
               "type and frame indexes below %" PRIu64 " and within the collectables and tables so far (the "
               "highscores were not checked)", COL_MAX_STAT_INDEX);
        return;
    }
    if (ids->n != 4 * ec || scores->n != 4 * ec) {
        report(c, true, ids->n != 4 * ec ? c->top_offset[0] : c->top_offset[1],
               ids->n != 4 * ec ? "top_ids" : "topscore", -1, PCD_FOUND_UINT, ids->n != 4 * ec ? ids->n : scores->n,
               "4 x %" PRIu64 " entries (filemeta's highscore_structure)", ec);
        return;
    }
    const uint64_t *id = ids->p, *sc = scores->p;
    pcd_alloc *al = c->al;
    uint64_t *want = pcd_alloc_get(al, ec * sizeof *want);
    uint64_t *all = NULL;
    size_t all_len = 0;
    if (!want) {
        c->oom = true;
        return;
    }
    static const char *const lists[4] = { "types_by_count", "frames_by_count", "types_by_size", "frames_by_size" };
    for (int part = 0; part < 4; part++) {
        int what = c->order[part];
        int k = (what & 1) ? PCD_MOARVM_K_FRAME : PCD_MOARVM_K_OBJECT;
        bool by_size = what >= 2;
        size_t len = c->st.len[k];
        const pcd_moarvm_stat *rows = c->st.by_kind[k];
        /* the recomputed scores, best first, padded with zeros */
        pcd_alloc_free(al, all, all_len * sizeof *all);
        all_len = len ? len : 1;
        all = pcd_alloc_get(al, all_len * sizeof *all);
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
    pcd_alloc_free(al, all, all_len * sizeof *all);
    pcd_alloc_free(al, want, ec * sizeof *want);
}

/* Compares a TOC's entries with the blocks it should list. */

void pcd_moarvm_col_finish_snapshot(pcd_moarvm_col *c, uint64_t toc_offset)
{
    pcd_moarvm_snapshot *s = &c->s;
    s->toc_offset = toc_offset;
    s->strings = nstrings(c);
    s->types = ntypes(c);
    s->frames = nframes(c);
    uint64_t ncoll = s->n[PCD_MOARVM_COLKIND], nrefs = s->n[PCD_MOARVM_REFDESCR];
    bool full = c->o.full;
    /* columns */
    for (int k = 0; k < PCD_MOARVM_NCOLS; k++) {
        if (!c->col_seen[k]) {
            report(c, true, s->offset, pcd_moarvm_col_names[k], -1, PCD_FOUND_NONE, 0, "a %s block in the snapshot",
                   pcd_moarvm_col_names[k]);
            continue;
        }
        uint64_t want = k < PCD_MOARVM_REFDESCR ? ncoll : nrefs;
        if (k != PCD_MOARVM_COLKIND && k != PCD_MOARVM_REFDESCR && s->n[k] != want)
            report(c, true, c->col_offset[k], pcd_moarvm_col_names[k], -1, PCD_FOUND_UINT, s->n[k],
                   "%" PRIu64 " entries (as many as %s)", want, k < PCD_MOARVM_REFDESCR ? "colkind" : "refdescr");
    }
    if (c->early)
        report(c, true, c->col_offset[c->early_col], pcd_moarvm_col_names[c->early_col], -1, PCD_FOUND_NONE, 0,
               "the %s block before it (MoarVM writes colkind, colsize, coltofi, colrfcnt, colrfstr, colusize "
               "in this order, and each is read with the ones before it)",
               pcd_moarvm_col_names[c->early_need]);
    const col_bad *b = c->bad;
    if (b[B_KIND].n)
        report(c, true, c->col_offset[PCD_MOARVM_COLKIND], "colkind", (int64_t)b[B_KIND].idx, PCD_FOUND_UINT,
               b[B_KIND].val, "a collectable kind 1..11 (%" PRIu64 " entr%s break this)", b[B_KIND].n,
               b[B_KIND].n == 1 ? "y" : "ies");
    if (ncoll && c->kind0 != PCD_MOARVM_K_ROOT)
        report(c, true, c->col_offset[PCD_MOARVM_COLKIND], "colkind", 0, PCD_FOUND_UINT, c->kind0,
               "9 (collectable 0 is the root)");
    /* what snapmeta says against the columns */
    struct { int key; uint64_t have; bool warn; const char *from; } meta[] = {
        { PCD_MOARVM_M_TOTAL_OBJECTS, s->kinds[PCD_MOARVM_K_OBJECT], false, "kind-1 collectables in colkind" },
        { PCD_MOARVM_M_TOTAL_TYPEOBJECTS, s->kinds[PCD_MOARVM_K_TYPEOBJ], false, "kind-2 collectables in colkind" },
        { PCD_MOARVM_M_TOTAL_STABLES, s->kinds[PCD_MOARVM_K_STABLE], false, "kind-3 collectables in colkind" },
        { PCD_MOARVM_M_TOTAL_FRAMES, s->kinds[PCD_MOARVM_K_FRAME], true,
          "kind-4 collectables in colkind; MoarVM does not count frames reached only from call-stack roots" },
        { PCD_MOARVM_M_TOTAL_REFS, nrefs, false, "references in refdescr" },
        { PCD_MOARVM_M_TOTAL_HEAP_SIZE, s->heap_size, false, "the sum of colsize and colusize" },
    };
    for (size_t i = 0; i < sizeof meta / sizeof *meta; i++) {
        int k = meta[i].key;
        if (!(s->have_meta & (1u << k)) || s->meta[k] == meta[i].have) continue;
        if ((k == PCD_MOARVM_M_TOTAL_HEAP_SIZE && c->heap_ovf)) continue;
        char path[40];
        snprintf(path, sizeof path, "snapmeta.%s", pcd_moarvm_meta_keys[k]);
        /* a path segment must outlive the report only */
        report(c, !meta[i].warn, s->offset, path, -1, PCD_FOUND_UINT, s->meta[k], "%" PRIu64 " (%s)", meta[i].have,
               meta[i].from);
    }
    if (c->heap_ovf)
        report(c, true, c->col_offset[PCD_MOARVM_COLUSIZE], "colusize", -1, PCD_FOUND_NONE, 0,
               "sizes whose sum fits in 64 bits");
    /* references */
    if (c->col_seen[PCD_MOARVM_COLRFCNT] && c->rfcnt_sum != nrefs)
        report(c, true, c->col_offset[PCD_MOARVM_COLRFCNT], "colrfcnt", -1, PCD_FOUND_UINT, c->rfcnt_sum,
               "counts that add up to the %" PRIu64 " references", nrefs);
    if (b[B_RANGE_OVF].n)
        report(c, true, c->col_offset[PCD_MOARVM_COLRFSTR], "colrfstr", (int64_t)b[B_RANGE_OVF].idx, PCD_FOUND_UINT,
               b[B_RANGE_OVF].val, "a first reference whose range fits in 64 bits");
    if (c->ref_end.any && c->ref_end.val > nrefs)
        report(c, true, c->col_offset[PCD_MOARVM_COLRFSTR], "colrfstr", (int64_t)c->ref_end.idx, PCD_FOUND_UINT,
               c->ref_end.val - c->rfcnt[c->ref_end.idx],
               "a range of references within the %" PRIu64 " there are (with colrfcnt %" PRIu32 ")", nrefs,
               c->rfcnt[c->ref_end.idx]);
    if (b[B_UNKNOWN_REF].n)
        report(c, true, c->col_offset[PCD_MOARVM_REFDESCR], "refdescr", (int64_t)b[B_UNKNOWN_REF].idx, PCD_FOUND_HEX,
               b[B_UNKNOWN_REF].val, "0 for a description of kind 0 (unknown)");
    if (b[B_REF_KIND3].n)
        report(c, true, c->col_offset[PCD_MOARVM_REFDESCR], "refdescr", (int64_t)b[B_REF_KIND3].idx, PCD_FOUND_HEX,
               b[B_REF_KIND3].val, "a description kind 0, 1 or 2 in the low 2 bits");
    if (c->str_ref.any && c->str_ref.val >= s->strings)
        report(c, true, c->col_offset[PCD_MOARVM_REFDESCR], "refdescr", (int64_t)c->str_ref.idx, PCD_FOUND_UINT,
               c->str_ref.val, "a string index below %" PRIu64 " (the strings written so far)", s->strings);
    if (s->strings > 65535 && s->refkinds[PCD_MOARVM_V3_REFDESCR_KIND_STRING])
        report(c, false, c->col_offset[PCD_MOARVM_REFDESCR], "refdescr", -1, PCD_FOUND_UINT, s->strings,
               "at most 65535 strings: MoarVM keeps the string index of references it adds from a GC "
               "worklist in 16 bits, so some of these descriptions may name the wrong string");
    if (c->max_target.any && c->max_target.val >= ncoll)
        report(c, true, c->col_offset[PCD_MOARVM_REFTRGET], "reftrget", (int64_t)c->max_target.idx, PCD_FOUND_UINT,
               c->max_target.val, "a collectable index below %" PRIu64, ncoll);
    /* type and frame indexes */
    if (full) {
        if (c->type_tofi.any && c->type_tofi.val >= s->types)
            report(c, true, c->col_offset[PCD_MOARVM_COLTOFI], "coltofi", (int64_t)c->type_tofi.idx, PCD_FOUND_UINT,
                   c->type_tofi.val, "a type index below %" PRIu64 " (the types written so far)", s->types);
        if (c->frame_tofi.any && c->frame_tofi.val >= s->frames)
            report(c, true, c->col_offset[PCD_MOARVM_COLTOFI], "coltofi", (int64_t)c->frame_tofi.idx, PCD_FOUND_UINT,
                   c->frame_tofi.val, "a frame index below %" PRIu64 " (the frames written so far)", s->frames);
        if (b[B_ROOT_TOFI].n)
            report(c, true, c->col_offset[PCD_MOARVM_COLTOFI], "coltofi", (int64_t)b[B_ROOT_TOFI].idx, PCD_FOUND_UINT,
                   b[B_ROOT_TOFI].val, "0 for a root (kinds 5-11)");
        if (b[B_ROOT_SIZE].n)
            report(c, false, c->col_offset[PCD_MOARVM_COLSIZE], "colsize", (int64_t)b[B_ROOT_SIZE].idx, PCD_FOUND_UINT,
                   b[B_ROOT_SIZE].val, "0 for a root (kinds 5-11)");
        if (b[B_ROOT_USIZE].n)
            report(c, false, c->col_offset[PCD_MOARVM_COLUSIZE], "colusize", (int64_t)b[B_ROOT_USIZE].idx,
                   PCD_FOUND_UINT, b[B_ROOT_USIZE].val, "0 for a root (kinds 5-11)");
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
    if (c->oom)
        report(c, true, toc_offset, NULL, -1, PCD_FOUND_NONE, 0, "memory for the snapshot's checks (raise --max-memory)");
    /* done: hand it on */
    if (c->o.on_snapshot) {
        pcd_moarvm_graph g, *gp = NULL;
        bool sound = c->o.graph && !c->oom && !c->early && ncoll && s->n[PCD_MOARVM_REFTRGET] == nrefs &&
                     s->n[PCD_MOARVM_COLRFSTR] == ncoll && s->n[PCD_MOARVM_COLRFCNT] == ncoll &&
                     s->n[PCD_MOARVM_COLUSIZE] == ncoll && s->n[PCD_MOARVM_COLSIZE] == ncoll &&
                     s->n[PCD_MOARVM_COLTOFI] == ncoll && !b[B_RANGE_OVF].n &&
                     (!c->ref_end.any || c->ref_end.val <= nrefs) && !c->rfcnt_sum_ovf && c->rfcnt_sum == nrefs &&
                     (!c->max_target.any || c->max_target.val < ncoll);
        if (sound) {
            g = (pcd_moarvm_graph){ ncoll, nrefs, c->kind, c->size, c->usize, c->tofi, c->rfstr, c->rfcnt, c->target };
            gp = &g;
        }
        c->o.on_snapshot(c->o.snapshot_ud, c, s, full ? &c->st : NULL, gp);
    }
    pcd_moarvm_col_push(c, &c->snaps, s, sizeof *s);
    pcd_moarvm_col_reset_snapshot(c);
}

