/* formats/moarvm/collect.c: the collector's records, handed to the part of each format version
 * (v3.c, v2.c), which build on the tables and columns of snapshot.c and check.c. */
#include "formats/moarvm/collector.h"

#include "moarvm_v2.h"
#include "moarvm_v3.h"

void pcd_moarvm_col_record(pcd_moarvm_col *c, const pcd_record *rec)
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
        if (rec->type == &pcd_moarvm_v2_file_type) pcd_moarvm_col_v2_root(c, rec);
        return;
    }
    if (c->v2) {
        if (rec->depth == 1 && rec->type == &pcd_moarvm_v2_block_type) pcd_moarvm_col_v2_block(c, rec);
        else if (rec->depth == 1 && rec->type == &pcd_moarvm_v2_index_entry_type) pcd_moarvm_col_v2_index(c, rec);
        else if (rec->depth == 2) pcd_moarvm_col_v2_entry(c, rec);
        return;
    }
    if (rec->depth == 1 && rec->type == &pcd_moarvm_v3_block_type) pcd_moarvm_col_v3_block(c, rec);
    else if (rec->depth == 2) pcd_moarvm_col_v3_entries(c, rec);
}

void pcd_moarvm_col_finish(pcd_moarvm_col *c)
{
    if (c->v2) pcd_moarvm_col_v2_finish(c);
    else pcd_moarvm_col_v3_finish(c);
}

void pcd_moarvm_col_after(pcd_moarvm_col *c, pcd_reader *r)
{
    /* read to its end (else the reader holds its error): what is still open is a problem */
    pcd_record tail;
    if (pcd_reader_next(r, &tail) == PCD_END) pcd_moarvm_col_finish(c);
}
