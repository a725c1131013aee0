/* formats/moarvm/v2.c: format 2 read as format 3: a coll block's records become the six
 * collectable columns, a refs block's the two reference columns, strs/type/fram the table
 * rows; the fram block completes a snapshot; the index at the end is checked against the
 * blocks' sizes. */
#include "formats/moarvm/collector.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "moarvm_v2.h"
#include "moarvm_v3.h"
#include "moarvm_view.h"

#define report pcd_moarvm_col_report
#define vec_push pcd_moarvm_col_push

/* ---- format 2 ------------------------------------------------------------------------ */

/* The file record: the sizes its footer states. */
void pcd_moarvm_col_v2_root(pcd_moarvm_col *c, const pcd_record *rec)
{
    const pcd_moarvm_v2_file *f = rec->data;
    c->v2 = true;
    c->v2_cur = -1;
    c->v2_footer[0] = f->stringheap_size;
    c->v2_footer[1] = f->types_size;
    c->v2_footer[2] = f->staticframes_size;
}

/* The block before ends where this one (or the index) starts. */
static void v2_close_block(pcd_moarvm_col *c, uint64_t off)
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

static void v2_table_rows(pcd_moarvm_col *c, int t, uint32_t u)
{
    vec_push(c, &c->tbl[t], &u, sizeof u);
    if (t != 4 && (!c->tbl_any_str || u > c->tbl_max_str)) {
        c->tbl_any_str = true;
        c->tbl_max_str = u;
        c->tbl_str_block = c->v2_cur_start;
    }
}

static void v2_finish_snapshot(pcd_moarvm_col *c)
{
    uint64_t sizes[3] = { c->v2_coll_size, c->v2_refs_size, c->v2_middle };
    vec_push(c, &c->v2_index, sizes, sizeof sizes);
    /* format 2 has no snapmeta: the sum of sizes is the heap size */
    pcd_moarvm_col_finish_snapshot(c, c->s.offset);
}

/* The collectables and references batched so far into the columns. */
static void v2_flush(pcd_moarvm_col *c)
{
    size_t n = c->v2_coll.n;
    if (n) {
        c->v2_coll.n = 0;
        pcd_moarvm_col_column_values(c, PCD_MOARVM_COLKIND, c->v2_coll.kind, n);
        pcd_moarvm_col_column_values(c, PCD_MOARVM_COLSIZE, c->v2_coll.size, n);
        pcd_moarvm_col_column_values(c, PCD_MOARVM_COLTOFI, c->v2_coll.tofi, n);
        pcd_moarvm_col_column_values(c, PCD_MOARVM_COLRFCNT, c->v2_coll.rfcnt, n);
        pcd_moarvm_col_column_values(c, PCD_MOARVM_COLRFSTR, c->v2_coll.rfstr, n);
        pcd_moarvm_col_column_values(c, PCD_MOARVM_COLUSIZE, c->v2_coll.usize, n);
    }
    n = c->v2_refs.n;
    if (n) {
        c->v2_refs.n = 0;
        pcd_moarvm_col_column_values(c, PCD_MOARVM_REFDESCR, c->v2_refs.descr, n);
        pcd_moarvm_col_column_values(c, PCD_MOARVM_REFTRGET, c->v2_refs.target, n);
    }
}

void pcd_moarvm_col_v2_block(pcd_moarvm_col *c, const pcd_record *rec)
{
    const pcd_moarvm_v2_block *b = rec->data;
    uint64_t off = rec->offset;
    v2_flush(c);
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
            pcd_moarvm_col_reset_snapshot(c);
        }
        c->in_snap = true;
        c->s.index = c->nstarted++;
        c->s.offset = off;
        c->col_seen[PCD_MOARVM_COLKIND] = c->col_seen[PCD_MOARVM_COLSIZE] = c->col_seen[PCD_MOARVM_COLTOFI] = true;
        c->col_seen[PCD_MOARVM_COLRFCNT] = c->col_seen[PCD_MOARVM_COLRFSTR] = c->col_seen[PCD_MOARVM_COLUSIZE] = true;
        for (int k = 0; k < PCD_MOARVM_REFDESCR; k++) c->col_offset[k] = off;
        c->v2_coll_size = c->v2_refs_size = c->v2_middle = 0;
        break;
    case PCD_MOARVM_V2_BLOCK_REFS:
        if (!c->in_snap || c->col_seen[PCD_MOARVM_REFDESCR]) {
            report(c, true, off, "refs", -1, PCD_FOUND_NONE, 0, "one refs block after each coll block");
            break;
        }
        c->col_seen[PCD_MOARVM_REFDESCR] = c->col_seen[PCD_MOARVM_REFTRGET] = true;
        c->col_offset[PCD_MOARVM_REFDESCR] = c->col_offset[PCD_MOARVM_REFTRGET] = off;
        c->v2_refs_count = b->u.refs.count;
        break;
    case PCD_MOARVM_V2_BLOCK_STRS:
        if (b->u.strs.first != nstrings(c))
            report(c, true, off, "strs.first", -1, PCD_FOUND_UINT, b->u.strs.first,
                   "%" PRIu64 " (the strings written before)", nstrings(c));
        for (size_t i = 0; i < b->u.strs.n_strings; i++) {
            const pcd_bytes *t = &b->u.strs.strings[i];
            pcd_moarvm_col_add_string(c, t->ptr, t->len);
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

void pcd_moarvm_col_v2_entry(pcd_moarvm_col *c, const pcd_record *rec)
{
    if (rec->type == &pcd_moarvm_v2_collectable_type) {
        if (!c->in_snap) return;
        const pcd_moarvm_v2_collectable *e = rec->data;
        size_t k = c->v2_coll.n;
        c->v2_coll.kind[k] = e->kind;
        c->v2_coll.size[k] = e->size;
        c->v2_coll.tofi[k] = e->tofi;
        c->v2_coll.rfcnt[k] = e->refs_count;
        c->v2_coll.rfstr[k] = e->refs_start;
        c->v2_coll.usize[k] = e->unmanaged_size;
        if (++c->v2_coll.n == V2_BATCH) v2_flush(c);
    } else if (rec->type == &pcd_moarvm_v2_ref_type) {
        if (!c->in_snap || c->col_offset[PCD_MOARVM_REFDESCR] == 0) return;
        /* whatever the width of its fields (the generated view) */
        pcd_moarvm_ref_view r;
        pcd_moarvm_v2_ref_view(rec->data, &r);
        uint64_t d = r.descr;
        uint64_t i = c->s.n[PCD_MOARVM_REFDESCR] + c->v2_refs.n;
        if (d > PCD_MOARVM_V3_REFDESCR_KIND_MASK) {
            report(c, true, rec->offset, "refs", (int64_t)i, PCD_FOUND_UINT, d, "a description kind 0, 1 or 2");
            d = pcd_moarvm_v3_refdescr_kind(d);
        }
        /* as format 3's refdescr column holds it */
        size_t k = c->v2_refs.n;
        c->v2_refs.descr[k] = pcd_moarvm_v3_refdescr_make((uint8_t)d, r.index);
        c->v2_refs.target[k] = r.target;
        if (++c->v2_refs.n == V2_BATCH) v2_flush(c);
        /* MoarVM notes where the refs block's second half starts */
        if (c->v2_refs_count / 2 - 1 == i) c->v2_middle = rec->offset + rec->size - c->col_offset[PCD_MOARVM_REFDESCR];
    }
}

void pcd_moarvm_col_v2_index(pcd_moarvm_col *c, const pcd_record *rec)
{
    v2_flush(c);
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

void pcd_moarvm_col_v2_finish(pcd_moarvm_col *c)
{
    v2_flush(c);
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
                   "%" PRIu64 " (the size of the last %s block)", c->v2_last[i],
                   i == 0 ? "strs" : i == 1 ? "type" : "fram");
}

