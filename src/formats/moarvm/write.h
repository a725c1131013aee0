/* formats/moarvm/write.h: writes a MoarVM heap snapshot file (v3) from snapshot data, laid out as
 * MoarVM lays it out: filemeta; per snapshot snapmeta, the eight columns, the rows added
 * to the string, type and frame tables, the highscores, an inner TOC and an outer TOC;
 * at the end a final empty inner TOC and the last outer TOC. Every block goes through the
 * generated encoders (zstd level 9, one frame per block, no content size); TOC offsets are
 * where the blocks landed. */
#ifndef MOARVM_WRITE_H
#define MOARVM_WRITE_H

#include "pcd.h"

typedef struct pcd_moarvm_snapdata {
    uint64_t snap_time, gc_seq_num;
    /* collectables */
    uint64_t n;
    const uint16_t *kind, *size;
    const uint32_t *tofi, *rfcnt;
    const uint64_t *rfstr, *usize;
    /* references */
    uint64_t nrefs;
    const uint64_t *descr, *target;
    /* rows added to the tables since the last snapshot */
    size_t nstrings;
    const char *const *strings;
    size_t ntypes;
    const uint32_t *repr, *tname;
    size_t nframes;
    const uint32_t *fname, *fcuid, *fline, *ffile;
    /* totals as snapmeta states them; NULL: computed from the columns */
    const uint64_t *stated;        /* PCD_MOARVM_NMETA values (snapshot.h order) */
    /* highscores (4 x 40 each); NULL: computed from the columns as MoarVM does */
    const uint64_t *top_ids, *top_scores;
} pcd_moarvm_snapdata;

typedef struct pcd_moarvm_writer {
    pcd_alloc *al;                 /* every byte the writer takes (the caller's) */
    pcd_writer w;
    pcd_sink *s;
    pcd_ctx x;
    uint64_t filemeta_start, filemeta_end;
    uint64_t *inner;               /* start, end of every inner TOC */
    size_t ninner, cap;
    uint64_t ntypes, nframes;      /* rows so far (highscore tables are sized by them) */
    bool failed;
} pcd_moarvm_writer;

/* Writes the identification and filemeta (entry_count 40). al must outlive the writer. */
pcd_status pcd_moarvm_write_open(pcd_moarvm_writer *mw, pcd_sink *s, pcd_alloc *al, uint64_t start_time, int64_t pid);
pcd_status pcd_moarvm_write_snapshot(pcd_moarvm_writer *mw, const pcd_moarvm_snapdata *d);
/* The final empty inner TOC and the outer TOC, as when profiling ends; ended = false stops
 * after the last snapshot's TOCs (as a killed process leaves it). */
pcd_status pcd_moarvm_write_finish(pcd_moarvm_writer *mw, bool ended);
void pcd_moarvm_write_close(pcd_moarvm_writer *mw);
const pcd_error *pcd_moarvm_write_error(const pcd_moarvm_writer *mw);

#endif
