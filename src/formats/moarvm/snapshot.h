/* formats/moarvm/snapshot.h: MoarVM heap snapshots (v3) above the bytes. Fed the records of the
 * generated block stream in file order, it groups blocks into snapshots by their tables of
 * contents, keeps the incremental string, type and frame tables (a snapshot sees what was
 * written up to its own TOC), works out each snapshot's figures, and checks the invariants
 * real files keep, reporting what breaks them as errors or warnings. */
#ifndef MOARVM_SNAP_H
#define MOARVM_SNAP_H

#include "pcd.h"
#include "formats/registry.h"

/* The columns of a snapshot, in MoarVM's order. */
enum {
    MVM_COLKIND, MVM_COLSIZE, MVM_COLTOFI, MVM_COLRFCNT, MVM_COLRFSTR, MVM_COLUSIZE,
    MVM_REFDESCR, MVM_REFTRGET, MVM_NCOLS
};

/* snapmeta keys, in MoarVM's order. */
enum {
    MVM_M_SNAP_TIME, MVM_M_GC_SEQ_NUM, MVM_M_TOTAL_HEAP_SIZE, MVM_M_TOTAL_OBJECTS,
    MVM_M_TOTAL_TYPEOBJECTS, MVM_M_TOTAL_STABLES, MVM_M_TOTAL_FRAMES, MVM_M_TOTAL_REFS, MVM_NMETA
};
extern const char *const mvm_meta_keys[MVM_NMETA];

/* Collectable kinds (colkind values). */
enum {
    MVM_K_OBJECT = 1, MVM_K_TYPEOBJ = 2, MVM_K_STABLE = 3, MVM_K_FRAME = 4, MVM_K_PERM_ROOTS = 5,
    MVM_K_INSTANCE_ROOTS = 6, MVM_K_CSTACK_ROOTS = 7, MVM_K_THREAD_ROOTS = 8, MVM_K_ROOT = 9,
    MVM_K_INTERGEN_ROOTS = 10, MVM_K_CALLSTACK_ROOTS = 11
};

/* The figures of one complete snapshot. */
typedef struct mvm_snapshot {
    uint64_t index;                /* 0-based, in file order */
    uint64_t offset;               /* its snapmeta block */
    uint64_t toc_offset;           /* its inner TOC */
    uint64_t meta[MVM_NMETA];      /* what snapmeta states */
    uint32_t have_meta;            /* bit k: meta[k] was given */
    uint64_t n[MVM_NCOLS];         /* entries of each column */
    uint64_t kinds[12];            /* collectables of kind k (1..11); [0]: other values */
    uint64_t heap_size;            /* sum of colsize + colusize */
    uint64_t refkinds[4];          /* references by description kind (0 unknown, 1 index, 2 string) */
    uint64_t strings, types, frames; /* table rows visible at its TOC */
} mvm_snapshot;

/* Objects of one type or frames of one static frame in one snapshot. */
typedef struct mvm_stat {
    uint64_t count, size;          /* size: colsize + colusize */
} mvm_stat;

/* Per-type and per-frame totals of the snapshot being finished (full mode only). */
typedef struct mvm_stats {
    mvm_stat *by_kind[5];          /* [1] objects, [2] type objects, [3] STables by type index; [4] frames by frame index */
    size_t len[5];
} mvm_stats;

/* The heap graph of the snapshot being finished (graph mode only): collectable i has
 * kind[i], size[i] + usize[i] bytes, its type or frame tofi[i], and its references are
 * target[rfstr[i] .. rfstr[i] + rfcnt[i]). Given only when every range and target is in
 * bounds and the counts add up to nrefs. */
typedef struct mvm_graph {
    uint64_t n, nrefs;
    const uint8_t *kind;
    const uint16_t *size;
    const uint64_t *usize;
    const uint32_t *tofi;
    const uint64_t *rfstr;
    const uint32_t *rfcnt;
    const uint64_t *target;
} mvm_graph;

typedef struct mvm_col mvm_col;
typedef void (*mvm_snapshot_fn)(void *ud, const mvm_col *c, const mvm_snapshot *s, const mvm_stats *st,
                                const mvm_graph *g);

typedef struct mvm_opts {
    bool full;                     /* keep per-collectable columns: every check, per-type totals */
    bool graph;                    /* also keep the references (implies full) */
    pcd_report_fn report;          /* problems (errors and warnings); may be NULL */
    void *report_ud;
    mvm_snapshot_fn on_snapshot;   /* each complete snapshot, when its TOC is read; may be NULL */
    void *snapshot_ud;
} mvm_opts;

/* Returns NULL when out of memory. */
mvm_col *mvm_col_new(const mvm_opts *o);
/* Where problems go from now on. */
void mvm_col_set_report(mvm_col *c, pcd_report_fn report, void *ud);
void mvm_col_free(mvm_col *c);
/* Every record of the file, in order (depth 0 the file, 1 blocks, 2 their entries). */
void mvm_col_record(mvm_col *c, const pcd_record *rec);
/* The file was read to its end (not called after damage): what is still open is reported. */
void mvm_col_finish(mvm_col *c);

/* What was read so far. */
size_t mvm_col_snapshots(const mvm_col *c, const mvm_snapshot **out);
uint64_t mvm_col_strings(const mvm_col *c);
uint64_t mvm_col_types(const mvm_col *c);
uint64_t mvm_col_frames(const mvm_col *c);
/* filemeta: subversion, start_time, pid (false when absent). */
bool mvm_col_filemeta(const mvm_col *c, int64_t *subversion, int64_t *start_time, int64_t *pid);
/* The file ended with the final (empty) TOC MoarVM writes when profiling ends. */
bool mvm_col_ended(const mvm_col *c);
/* Where the last block read starts. */
uint64_t mvm_col_last_block(const mvm_col *c);
/* A snapshot was started but its TOC is missing (the file ends or breaks inside it). */
bool mvm_col_incomplete(const mvm_col *c, uint64_t *index, uint64_t *offset);

/* Names: a string of the heap (NULL if out of range), a type's name, a frame's
 * "name (file:line)" as the reference analyzer prints it. */
const char *mvm_col_string(const mvm_col *c, uint64_t i, size_t *len);
size_t mvm_col_type_name(const mvm_col *c, uint64_t type, char *buf, size_t cap);
size_t mvm_col_frame_name(const mvm_col *c, uint64_t frame, char *buf, size_t cap);

#endif
