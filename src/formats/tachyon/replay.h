/* formats/tachyon/replay.h: Tachyon samples above the bytes: stack reconstruction from the four
 * encodings against each (thread, interpreter)'s previous stack, per-thread timestamps, and
 * the checks CPython 3.15.2's reader makes while it replays (thread count, shared count,
 * depth 256, frame indexes, sample count). Records come in file order from pcd_reader. */
#ifndef PCD_TACHYON_REPLAY_H
#define PCD_TACHYON_REPLAY_H

#include "pcd.h"
#include "common/hmap.h"
#include "tachyon_v1.h"
#include "writers/tachyon.h"

/* One (thread_id, interpreter_id) and its current stack: its depth and, when the replay
 * keeps stacks, the frames (outermost first), a hash of every prefix of them, and the id of
 * the whole stack in the replay's stack set (without stacks no check needs the frames). */
typedef struct pcd_tachyon_thread {
    uint64_t tid;
    uint32_t interp;
    uint32_t index;                  /* order of first appearance: 0, 1, ... */
    uint64_t ts;                     /* timestamp of its last sample (the start time before) */
    uint64_t samples;                /* samples so far */
    uint64_t first_ts, last_ts;      /* of its samples (valid when samples > 0) */
    uint32_t depth;
    uint32_t node;                   /* id of the current stack (with stacks; 0: empty) */
    /* with stacks only (the struct is allocated without them otherwise) */
    uint64_t hash[PCD_TACHYON_MAX_DEPTH + 1]; /* hash[d]: of frames[0..d) */
    uint32_t frames[PCD_TACHYON_MAX_DEPTH];
} pcd_tachyon_thread;

/* Every distinct stack the samples had, once: its frames (outermost first) back to back in
 * one array, found again by hash. Id 0 is the empty stack. A record's new stack costs a hash
 * step per frame pushed and one look-up, whatever its depth; or none, when the thread's stack
 * went the same way from the same stack before (pcd_tachyon_stack.next). */
typedef struct pcd_tachyon_stacks {
    uint32_t *frames;                /* every stack's frames, back to back */
    size_t len, cap;
    struct pcd_tachyon_stack {
        uint64_t hash;               /* pcd_tachyon_thread.hash[depth] */
        uint32_t off;                /* where its frames start (all stacks' frames: below 2^32) */
        uint32_t user;               /* the caller's, for this stack (0 when made): the Tachyon
                                      * importer's model stack + 1, in the line the replay
                                      * just read to find the stack (not an array of its own) */
        uint32_t next;               /* the stack a record made from this one last, keeping
                                      * next_keep of its frames (0: none): the next record that
                                      * keeps as many compares its new frames with that
                                      * stack's, without a look-up */
        uint16_t depth;
        uint16_t next_keep;
    } *ids;                          /* by id */
    uint32_t n, cap_ids;
    uint32_t *h;                     /* open addressing of ids (0: empty) by hash */
    size_t hcap;
    unsigned hshift;
    pcd_alloc *al;
} pcd_tachyon_stacks;

/* Called once per sample, in file order (a REPEAT record gives one call per entry). */
typedef void (*pcd_tachyon_sample_fn)(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status);
/* When set, a REPEAT record of n samples gives this one call instead (for callers that
 * count samples and need neither their times nor statuses). */
typedef void (*pcd_tachyon_repeat_fn)(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t n);

typedef struct pcd_tachyon_replay {
    /* from the header and footer */
    uint64_t start_time, declared_samples;
    uint32_t declared_threads, frame_count;
    /* threads, by first appearance */
    pcd_tachyon_thread **threads;
    uint32_t n_threads, threads_cap;
    pcd_hmap th_map;                 /* (tid, interp): thread index (v0); looked up only when a
                                      * record's thread is not the previous record's */
    pcd_tachyon_thread *last;               /* the thread of the previous record */
    /* the distinct stacks, when asked for */
    bool with_tree;
    pcd_tachyon_stacks stacks;
    /* frame indexes that samples used (for the string-index checks at the end) */
    bool track_used;
    uint32_t *used;                  /* open addressing set of index + 1 */
    size_t used_cap, used_len;
    uint8_t *used_bytes;             /* or a byte per frame of the footer's count (small ones) */
    uint64_t *used_bits;             /* or a bit per frame (larger ones) */
    size_t used_words;
    /* counters (the names of CPython's get_stats()) */
    uint64_t records[4];             /* repeat, full, suffix, pop_push */
    uint64_t repeat_samples, total_samples, total_records;
    uint64_t offset;                 /* of the record being replayed (for the callbacks) */
    /* who gets the samples */
    bool no_times;                   /* nobody needs timestamps (without on_sample): REPEAT
                                      * runs are counted, their deltas not summed (their
                                      * entries may come unstored: count_only) */
    pcd_tachyon_sample_fn on_sample;
    pcd_tachyon_repeat_fn on_repeat;
    void *ud;
    /* the first error */
    pcd_error err;
    char expected[160];
    bool failed;
    pcd_alloc *al;
} pcd_tachyon_replay;

/* Starts a replay of the file whose root record (header and footer) is given. */
pcd_status pcd_tachyon_replay_init(pcd_tachyon_replay *rp, const pcd_tachyon_v1_file *root, pcd_alloc *al, bool with_tree,
                            bool track_used);
/* One sample record (rec is where it came from, for error offsets). PCD_OK, or an error
 * described by rp->err (the replay cannot go on after one). */
pcd_status pcd_tachyon_replay_record(pcd_tachyon_replay *rp, const pcd_tachyon_v1_sample *s, const pcd_record *rec);
/* After the last sample record: the sample count must match the header. */
pcd_status pcd_tachyon_replay_finish(pcd_tachyon_replay *rp);
void pcd_tachyon_replay_free(pcd_tachyon_replay *rp);
/* Did a sample use frame idx (with track_used)? */
bool pcd_tachyon_replay_used(const pcd_tachyon_replay *rp, uint32_t idx);
/* The frames of stack `id` (with stacks), outermost first; *depth gets their count. */
PCD_INLINE const uint32_t *pcd_tachyon_replay_stack(const pcd_tachyon_replay *rp, uint32_t id, uint32_t *depth)
{
    *depth = rp->stacks.ids[id].depth;
    return rp->stacks.frames + rp->stacks.ids[id].off;
}
/* The frames of stack `id`, innermost first, into out (PCD_TACHYON_MAX_DEPTH); returns the depth. */
uint32_t pcd_tachyon_replay_stack_inner(const pcd_tachyon_replay *rp, uint32_t id, uint32_t *out);

/* ---- the file's tables, for resolving frames --------------------------------------------- */

typedef struct pcd_tachyon_tables {
    pcd_bytes *strings;              /* as read (views into the input) */
    uint32_t n_strings, strings_cap;
    pcd_tachyon_v1_frame *frames;
    uint32_t n_frames, frames_cap;
    bool have_stats;
    pcd_tachyon_v1_stats stats;
    pcd_alloc *al;
} pcd_tachyon_tables;

void pcd_tachyon_tables_init(pcd_tachyon_tables *t, pcd_alloc *al);
/* Keeps a string, frame or stats record; other records are ignored. */
pcd_status pcd_tachyon_tables_add(pcd_tachyon_tables *t, const pcd_record *rec);
void pcd_tachyon_tables_free(pcd_tachyon_tables *t);

/* A frame's location as CPython's reader returns it: lineno -1 means no location (None);
 * the end parts are -1 when their start is. */
typedef struct pcd_tachyon_loc {
    bool none;
    int32_t lineno, end_lineno, column, end_column;
} pcd_tachyon_loc;

pcd_tachyon_loc pcd_tachyon_frame_loc(const pcd_tachyon_v1_frame *f);

/* Decoded mode (-1: not recorded) and capture features (-1: not recorded) of the config word. */
int pcd_tachyon_config_mode(uint32_t config);
int pcd_tachyon_config_features(uint32_t config);

#endif
