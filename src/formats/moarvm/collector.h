/* formats/moarvm/collector.h: the inside of the snapshot collector (snapshot.h), shared by its
 * files: snapshot.c (tables, names, columns, what was read), check.c (a snapshot's checks when
 * its TOC is read), v3.c (format 3's blocks and TOCs) and v2.c (format 2's blocks, adapted).
 * Nothing outside src/formats/moarvm includes it. */
#ifndef PCD_MOARVM_COLLECTOR_H
#define PCD_MOARVM_COLLECTOR_H

#include "formats/moarvm/snapshot.h"

/* Type and frame indexes above this are not given a row of per-type totals (no real heap
 * has a million types; the highscores are then not checked). */
#define COL_MAX_STAT_INDEX ((uint64_t)1 << 20)
/* topIDs / topscore values kept (MoarVM writes 4 x 40). */
#define COL_MAX_TOP 65536
/* Format-2 collectables and references handed to the columns at once. */
#define V2_BATCH 256

/* The first entry that breaks a per-entry check, and how many do. */
typedef struct col_bad {
    uint64_t n, idx, val;
} col_bad;

enum {
    B_KIND, B_ROOT_SIZE, B_ROOT_USIZE, B_ROOT_TOFI, B_UNKNOWN_REF, B_REF_KIND3, B_RANGE_OVF,
    B_COUNT
};

/* The per-collectable arrays, for their capacities. */
enum { A_KIND, A_SIZE, A_TOFI, A_RFCNT, A_RFSTR, A_USIZE };

/* The largest value a column holds where it matters, and where. */
typedef struct col_max {
    bool any;
    uint64_t val, idx;
} col_max;

typedef struct col_block {
    uint32_t which;
    uint64_t start, end;
} col_block;

typedef struct col_vec {
    void *p;
    size_t n, cap;
} col_vec;

struct pcd_moarvm_col {
    pcd_alloc *al;
    pcd_moarvm_opts o;
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
    col_vec sbuf;                 /* string bytes */
    col_vec soff;                 /* uint64_t: start of string k (and one past the last) */
    col_vec tbl[6];               /* uint32_t rows: reprname, typename, sfname, sfcuid, sfline, sffile */
    uint64_t tbl_max_str;         /* largest string index the table rows since the last TOC use */
    bool tbl_any_str;
    uint64_t tbl_str_block;       /* the block that holds it */
    /* blocks since the last TOC, and TOCs so far */
    col_vec pend;                 /* col_block */
    col_vec inner;                /* col_block: inner TOCs */
    bool last_was_inner, last_was_outer, ended;
    uint64_t last_block_end;      /* the last block's header (its frame not included) */
    uint64_t last_block_start;
    /* the block being read */
    int32_t cur;                  /* PCD_MOARVM_V3_BLOCK_*, or -1 */
    uint64_t cur_start;
    uint64_t cur_n;               /* entries (strings) so far */
    /* the snapshot being read */
    bool in_snap;
    pcd_moarvm_snapshot s;
    uint64_t col_offset[PCD_MOARVM_NCOLS];
    bool col_seen[PCD_MOARVM_NCOLS];
    /* The first per-collectable column that came before a column it is read with (colsize after
     * colkind, ...): its values could not be placed, so the snapshot's figures are not sound.
     */
    bool early;
    int early_col, early_need;
    col_bad bad[B_COUNT];
    col_max type_tofi, frame_tofi, ref_end, str_ref, max_target;
    uint64_t rfcnt_sum;
    bool rfcnt_sum_ovf, heap_ovf;
    uint16_t kind0;               /* collectable 0's kind */
    uint8_t *kind;                /* full mode: per collectable */
    uint16_t *size;
    uint32_t *tofi, *rfcnt;
    uint64_t *rfstr, *usize;      /* graph mode */
    size_t ccap;                  /* entries all of them hold */
    size_t acap[6];               /* entries each holds (A_KIND...) */
    uint64_t *target;             /* graph mode: per reference */
    size_t tcap;
    pcd_moarvm_stats st;
    size_t st_cap[5];
    bool st_partial;              /* an index had no row (stat_row: beyond COL_MAX_STAT_INDEX, or
                                   * beyond the collectables and the tables so far) */
    uint64_t coll_before;         /* collectables of the snapshots before this one */
    col_vec top[2];               /* uint64_t: topIDs, topscore */
    uint64_t top_offset[2];
    /* done */
    col_vec snaps;                /* pcd_moarvm_snapshot */
    uint64_t nstarted;
    /* format 2: blocks by size (for the index at the end) */
    bool v2;
    uint64_t v2_footer[3];        /* sizes of the last strs, type and fram blocks, as the footer states */
    int32_t v2_cur;               /* the block being read, PCD_MOARVM_V2_BLOCK_*, or -1 */
    uint64_t v2_cur_start;
    uint64_t v2_last[3];          /* sizes of the last strs, type and fram blocks read */
    uint64_t v2_coll_size, v2_refs_size, v2_refs_count, v2_middle;
    col_vec v2_index;             /* uint64_t x 3 per snapshot: coll size, refs size, middle point */
    uint64_t v2_index_seen;
    /* format 2 has a record per collectable and per reference: they go to the columns in
     * batches (column by column, as format 3's entries do) */
    struct {
        uint16_t kind[V2_BATCH], size[V2_BATCH];
        uint32_t tofi[V2_BATCH], rfcnt[V2_BATCH];
        uint64_t rfstr[V2_BATCH], usize[V2_BATCH];
        size_t n;
    } v2_coll;
    struct {
        uint64_t descr[V2_BATCH], target[V2_BATCH];
        size_t n;
    } v2_refs;
};

extern const char *const pcd_moarvm_col_names[PCD_MOARVM_NCOLS];

/* ---- helpers (snapshot.c) ---------------------------------------------------------------- */

/* Room for `need` elements of `elem` bytes in v; false (and c->oom) when the allocator refuses. */
bool pcd_moarvm_col_reserve(pcd_moarvm_col *c, col_vec *v, size_t elem, size_t need);
bool pcd_moarvm_col_push(pcd_moarvm_col *c, col_vec *v, const void *item, size_t elem);
void pcd_moarvm_col_vec_free(pcd_moarvm_col *c, col_vec *v, size_t elem);
/* A problem at offset, with the field (and index, -1 none) it is about; the text is printf-style. */
void pcd_moarvm_col_report(pcd_moarvm_col *c, bool is_error, uint64_t offset, const char *field, int64_t index,
                           pcd_found_kind fk, uint64_t found, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
/* Forgets the snapshot being read (its columns and figures). */
void pcd_moarvm_col_reset_snapshot(pcd_moarvm_col *c);
/* n entries of column col (PCD_MOARVM_COLKIND..REFTRGET) for the snapshot being read. */
void pcd_moarvm_col_column_values(pcd_moarvm_col *c, int col, const void *vals, size_t n);
/* Adds the text of a string table row. */
void pcd_moarvm_col_add_string(pcd_moarvm_col *c, const uint8_t *p, size_t len);

/* ---- checks (check.c) ---------------------------------------------------------------------- */

/* The snapshot's TOC was read (format 2: its last table block): it is checked, handed on and kept. */
void pcd_moarvm_col_finish_snapshot(pcd_moarvm_col *c, uint64_t toc_offset);

/* ---- the formats' blocks (v3.c, v2.c) -------------------------------------------------------- */

void pcd_moarvm_col_v3_block(pcd_moarvm_col *c, const pcd_record *rec);
void pcd_moarvm_col_v3_entries(pcd_moarvm_col *c, const pcd_record *rec);
void pcd_moarvm_col_v3_finish(pcd_moarvm_col *c);
void pcd_moarvm_col_v2_root(pcd_moarvm_col *c, const pcd_record *rec);
void pcd_moarvm_col_v2_block(pcd_moarvm_col *c, const pcd_record *rec);
void pcd_moarvm_col_v2_entry(pcd_moarvm_col *c, const pcd_record *rec);
void pcd_moarvm_col_v2_index(pcd_moarvm_col *c, const pcd_record *rec);
void pcd_moarvm_col_v2_finish(pcd_moarvm_col *c);

/* ---- small things every part uses ------------------------------------------------------------ */

static inline void bad(col_bad *b, uint64_t idx, uint64_t val)
{
    if (b->n++ == 0) {
        b->idx = idx;
        b->val = val;
    }
}

static inline void track_max(col_max *m, uint64_t idx, uint64_t val)
{
    if (!m->any || val > m->val) {
        m->any = true;
        m->val = val;
        m->idx = idx;
    }
}

static inline uint64_t add_sat(uint64_t a, uint64_t b, bool *ovf)
{
    if (a > UINT64_MAX - b) {
        *ovf = true;
        return UINT64_MAX;
    }
    return a + b;
}

static inline uint64_t nstrings(const pcd_moarvm_col *c) { return c->soff.n ? c->soff.n - 1 : 0; }

static inline uint64_t ntypes(const pcd_moarvm_col *c)
{
    return c->tbl[0].n < c->tbl[1].n ? c->tbl[0].n : c->tbl[1].n;
}

static inline uint64_t nframes(const pcd_moarvm_col *c)
{
    uint64_t n = c->tbl[2].n;
    for (int k = 3; k < 6; k++)
        if (c->tbl[k].n < n) n = c->tbl[k].n;
    return n;
}

#endif
