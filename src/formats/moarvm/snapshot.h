/* formats/moarvm/snapshot.h: MoarVM heap snapshots (formats 3 and 2) above the bytes: the
 * collector. Fed the records of the generated block stream in file order, it groups blocks
 * into snapshots by their tables of contents, keeps the incremental string, type and frame
 * tables (a snapshot sees what was written up to its own TOC), works out each snapshot's
 * figures, and checks the invariants real files keep, reporting what breaks them as errors or
 * warnings. All its memory comes from the caller's allocator: when that refuses, the
 * collector goes on with what it has and says so (pcd_moarvm_col_oom, and a problem at the
 * snapshot's TOC). Format 2 is read as format 3 (v2.c). */
#ifndef PCD_MOARVM_SNAPSHOT_H
#define PCD_MOARVM_SNAPSHOT_H

#include "pcd.h"
#include "pipeline/job.h"

/* The columns of a snapshot, in MoarVM's order. */
enum {
    PCD_MOARVM_COLKIND, PCD_MOARVM_COLSIZE, PCD_MOARVM_COLTOFI, PCD_MOARVM_COLRFCNT, PCD_MOARVM_COLRFSTR,
    PCD_MOARVM_COLUSIZE, PCD_MOARVM_REFDESCR, PCD_MOARVM_REFTRGET, PCD_MOARVM_NCOLS
};

/* snapmeta keys, in MoarVM's order. */
enum {
    PCD_MOARVM_M_SNAP_TIME, PCD_MOARVM_M_GC_SEQ_NUM, PCD_MOARVM_M_TOTAL_HEAP_SIZE, PCD_MOARVM_M_TOTAL_OBJECTS,
    PCD_MOARVM_M_TOTAL_TYPEOBJECTS, PCD_MOARVM_M_TOTAL_STABLES, PCD_MOARVM_M_TOTAL_FRAMES, PCD_MOARVM_M_TOTAL_REFS,
    PCD_MOARVM_NMETA
};
extern const char *const pcd_moarvm_meta_keys[PCD_MOARVM_NMETA];

/* Collectable kinds (colkind values). */
enum {
    PCD_MOARVM_K_OBJECT = 1, PCD_MOARVM_K_TYPEOBJ = 2, PCD_MOARVM_K_STABLE = 3, PCD_MOARVM_K_FRAME = 4,
    PCD_MOARVM_K_PERM_ROOTS = 5, PCD_MOARVM_K_INSTANCE_ROOTS = 6, PCD_MOARVM_K_CSTACK_ROOTS = 7,
    PCD_MOARVM_K_THREAD_ROOTS = 8, PCD_MOARVM_K_ROOT = 9, PCD_MOARVM_K_INTERGEN_ROOTS = 10,
    PCD_MOARVM_K_CALLSTACK_ROOTS = 11
};

/* The figures of one complete snapshot. */
typedef struct pcd_moarvm_snapshot {
    uint64_t index;                /* 0-based, in file order */
    uint64_t offset;               /* its snapmeta block */
    uint64_t toc_offset;           /* its inner TOC */
    uint64_t meta[PCD_MOARVM_NMETA];      /* what snapmeta states */
    uint32_t have_meta;            /* bit k: meta[k] was given */
    uint64_t n[PCD_MOARVM_NCOLS];         /* entries of each column */
    uint64_t kinds[12];            /* collectables of kind k (1..11); [0]: other values */
    uint64_t heap_size;            /* sum of colsize + colusize */
    uint64_t refkinds[4];          /* references by description kind (0 unknown, 1 index, 2 string) */
    uint64_t strings, types, frames; /* table rows visible at its TOC */
} pcd_moarvm_snapshot;

/* Objects of one type or frames of one static frame in one snapshot. */
typedef struct pcd_moarvm_stat {
    uint64_t count, size;          /* size: colsize + colusize */
} pcd_moarvm_stat;

/* Per-type and per-frame totals of the snapshot being finished (full mode only). */
typedef struct pcd_moarvm_stats {
    /* [1] objects, [2] type objects, [3] STables by type index; [4] frames by frame index */
    pcd_moarvm_stat *by_kind[5];
    size_t len[5];
} pcd_moarvm_stats;

/* The heap graph of the snapshot being finished (graph mode only): collectable i has
 * kind[i], size[i] + usize[i] bytes, its type or frame tofi[i], and its references are
 * target[rfstr[i] .. rfstr[i] + rfcnt[i]). Given only when every range and target is in
 * bounds and the counts add up to nrefs. */
typedef struct pcd_moarvm_graph {
    uint64_t n, nrefs;
    const uint8_t *kind;
    const uint16_t *size;
    const uint64_t *usize;
    const uint32_t *tofi;
    const uint64_t *rfstr;
    const uint32_t *rfcnt;
    const uint64_t *target;
} pcd_moarvm_graph;

typedef struct pcd_moarvm_col pcd_moarvm_col;
typedef void (*pcd_moarvm_snapshot_fn)(void *ud, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *s,
                                       const pcd_moarvm_stats *st, const pcd_moarvm_graph *g);

typedef struct pcd_moarvm_opts {
    bool full;                     /* keep per-collectable columns: every check, per-type totals */
    bool graph;                    /* also keep the references (implies full) */
    pcd_report_fn report;          /* problems (errors and warnings); may be NULL */
    void *report_ud;
    pcd_moarvm_snapshot_fn on_snapshot; /* each complete snapshot, when its TOC is read; may be NULL */
    void *snapshot_ud;
} pcd_moarvm_opts;

/* A collector on al (which must outlive it). Returns NULL when out of memory. */
pcd_moarvm_col *pcd_moarvm_col_new(pcd_alloc *al, const pcd_moarvm_opts *o);
/* Where problems go from now on. */
void pcd_moarvm_col_set_report(pcd_moarvm_col *c, pcd_report_fn report, void *ud);
void pcd_moarvm_col_free(pcd_moarvm_col *c);
/* Every record of the file, in order (depth 0 the file, 1 blocks, 2 their entries). */
void pcd_moarvm_col_record(pcd_moarvm_col *c, const pcd_record *rec);
/* The file was read to its end (not called after damage): what is still open is reported. */
void pcd_moarvm_col_finish(pcd_moarvm_col *c);

/* The allocator refused something: figures and checks may be incomplete, graphs are not given. */
bool pcd_moarvm_col_oom(const pcd_moarvm_col *c);

/* What was read so far. */
size_t pcd_moarvm_col_snapshots(const pcd_moarvm_col *c, const pcd_moarvm_snapshot **out);
uint64_t pcd_moarvm_col_strings(const pcd_moarvm_col *c);
uint64_t pcd_moarvm_col_types(const pcd_moarvm_col *c);
uint64_t pcd_moarvm_col_frames(const pcd_moarvm_col *c);
/* filemeta: subversion, start_time, pid (false when absent). */
bool pcd_moarvm_col_filemeta(const pcd_moarvm_col *c, int64_t *subversion, int64_t *start_time, int64_t *pid);
/* The file ended with the final (empty) TOC MoarVM writes when profiling ends. */
bool pcd_moarvm_col_ended(const pcd_moarvm_col *c);
/* Where the last block read starts. */
uint64_t pcd_moarvm_col_last_block(const pcd_moarvm_col *c);
/* A snapshot was started but its TOC is missing (the file ends or breaks inside it). */
bool pcd_moarvm_col_incomplete(const pcd_moarvm_col *c, uint64_t *index, uint64_t *offset);

/* After the pipeline pushed every record of r into c (pcd_moarvm_col_record) and its reader
 * loop returned PCD_OK: c is finished when r was read to its end (not after damage). */
void pcd_moarvm_col_after(pcd_moarvm_col *c, pcd_reader *r);

/* A conversion with no complete snapshot to take: PCD_E_EMPTY (nothing to show, or nothing before
 * the damage when j is marked damaged) when the input has no complete snapshot at all; with
 * `complete` complete snapshots whose references are all unsound, PCD_E_INVALID. The job's
 * message says which. */
pcd_status pcd_moarvm_no_snapshot(pcd_job *j, uint64_t complete);

/* The rows of the type and frame tables read so far: a type's name; a static frame's name,
 * file and line (a string whose index is past the strings has ptr NULL). False when the row
 * is past its table. */
bool pcd_moarvm_col_type_row(const pcd_moarvm_col *c, uint64_t type, pcd_bytes *name);
bool pcd_moarvm_col_frame_row(const pcd_moarvm_col *c, uint64_t frame, pcd_bytes *name, pcd_bytes *file,
                              uint32_t *line);

/* Names: a string of the heap (NULL if out of range), a type's name, a frame's
 * "name (file:line)" as the reference analyzer prints it. */
const char *pcd_moarvm_col_string(const pcd_moarvm_col *c, uint64_t i, size_t *len);
size_t pcd_moarvm_col_type_name(const pcd_moarvm_col *c, uint64_t type, char *buf, size_t cap);
size_t pcd_moarvm_col_frame_name(const pcd_moarvm_col *c, uint64_t frame, char *buf, size_t cap);

#endif
