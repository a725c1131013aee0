/* outputs/tachyon.c: CPython 3.15's sampling profiles (Tachyon 1), written through the Tachyon
 * writer (writers/tachyon.h: CPython's writer rules, the generated encoders) from any
 * profile whose frames are code and whose samples come in time order (with times, or in the
 * order taken: Austin's). CPython's `python -m profiling.sampling replay` reads the result.
 *
 *  - the header, when the profile says how it was captured (pcd_profile.capture: `encode
 *    --from samples`, whose text carries a Tachyon header): its start time, interval, Python
 *    version, mode, capture features, compression and statistics block, as given, in the byte
 *    order of encode's --endian, and the frames' positions as given (negative ones too); else:
 *    start time 0; the sampling interval (the profile's period in µs); the Python version of
 *    the "python" or "python_version" metadata ("X.Y.Z"); the mode of the "mode" metadata:
 *    wall, cpu, gil, all and exception as they are, Austin's memory and full as wall, none or
 *    another as not recorded; the capture features all_threads (Austin samples every thread),
 *    and gc when a sample has a GC frame; --compression zstd (the default, as CPython's "auto")
 *    or none;
 *  - threads: the thread id (a decimal thread id text as that number: Austin's hex thread ids
 *    are Python's int(tid, 16); another text gets 2^63, 2^63 + 1, ... in order of first
 *    appearance), the interpreter id (0 when there is none or it does not fit 32 bits);
 *  - a sample's time: its own (µs from the time origin), else the thread's clock
 *    (outputs.h: the sum of the thread's time values, Austin's time since the thread's previous
 *    sample; a sampling interval each when the metric is not a time);
 *  - its status: the source's own status bits in the CPython dialect (Tachyon input), else
 *    ON_CPU in cpu mode, in full mode ON_CPU unless the sample is idle, else UNKNOWN; and
 *    MAIN_THREAD when the thread id is the process id (a Linux main thread);
 *  - frames, innermost first, at most 256 (the innermost, as CPython keeps them): code frames
 *    as (file, function, line, end line, column - 1, end column - 1: Tachyon's columns are
 *    0-based; none as -1), the opcode the frame holds (pcd_frame.instr; only the samples text
 *    gives one) or none; GC frames as CPython's "~" / "<GC>"; invalid frames as
 *    "~" / ":INVALID:"; kernel frames as "kernel" / symbol at line 0; labels as "~" / text.
 * What Tachyon cannot hold is said once per kind at the end, with a count (memory values,
 * several processes, deeper stacks, samples without a time, thread ids that are not numbers,
 * interpreter ids beyond 32 bits, positions beyond 32 bits, an unknown mode, header metadata
 * that comes after the first sample). */
#include <inttypes.h>
#include <stdio.h>

#include "common/hmap.h"
#include "common/text.h"
#include "common/vec.h"
#include "writers/tachyon.h"
#include "outputs/outputs.h"
#include "outputs/render.h"

enum { W_MEMORY, W_PROCESSES, W_DEEP, W_NOTIME, W_TID, W_IID, W_LOC, W_MODE, W_META, W_N };

/* Tachyon's status bits and the gc capture feature (the index of its name). */
#define ST_ON_CPU PCD_TACHYON_V1_THREAD_STATUS_ON_CPU_MASK
#define ST_UNKNOWN PCD_TACHYON_V1_THREAD_STATUS_UNKNOWN_MASK
#define ST_MAIN PCD_TACHYON_V1_THREAD_STATUS_MAIN_THREAD_MASK
#define FEATURE_ALL_THREADS 0
#define FEATURE_GC 2

/* Modes beyond Tachyon's (pcd_tachyon_mode_names): Austin's. */
enum { MODE_MEMORY = 5, MODE_FULL = 6 };

/* A model thread as Tachyon sees it, found at its first sample. */
typedef struct tthread {
    uint64_t tid;
    uint32_t interp;
    uint32_t clock;                /* index + 1 into clocks (0: not found yet) */
    bool main;                     /* its id is its process's */
    bool bad_iid;                  /* an interpreter id beyond 32 bits (written as 0) */
} tthread;

/* A thread's last stack of at most 256 frames: its nodes and frame indexes, slot 256 - depth
 * for the node at each depth (so that the frames from a depth up are innermost first), valid
 * from depth 1 to `depth`: a sample walks up only to where its stack meets its thread's last
 * one. One per model thread, so that samples of threads that take turns still meet their own
 * (the frames a walk does not reach were interned before: the bytes are those of a full walk).
 * Bounded: thread i uses slot i % PATH_SLOTS (2,056 bytes each), and a slot that changes
 * thread starts empty; the slots grow with the threads' ids through pcd_alloc (room for 16 at
 * the first sample, 33 KB; 32; then 64, 132 KB at most, however many threads). */
#define PATH_SLOTS 64
#define NO_THREAD UINT32_MAX /* no model thread (their ids + 1 fit 32 bits: profile.c th_idx) */
typedef struct tpath {
    pcd_stack_id node[PCD_TACHYON_MAX_DEPTH];
    uint32_t ids[PCD_TACHYON_MAX_DEPTH];
    uint32_t depth;
    pcd_thread_id owner;           /* the model thread whose stack it is */
} tpath;

typedef struct tachyon_out {
    pcd_job *j;
    pcd_sink *out;
    pcd_tachyon_writer tw;
    bool open;                     /* the writer is open (the header written) */
    bool cpython;                  /* the CPython dialect: the samples' status bits are CPython's */
    pcd_out_pace pace;
    uint32_t bytes_mask;           /* PCD_SAMPLE_HAS of the types in bytes (memory) */
    int mode;                      /* of the latest mode metadata: 0..4 Tachyon's, MODE_*, -1 none */
    uint32_t *fmap;                /* model frame -> Tachyon frame index + 1 */
    size_t fmap_cap;
    tpath *paths;                  /* the threads' last stacks: model thread % PATH_SLOTS */
    size_t n_paths, paths_cap;
    tpath *cur;                    /* the slot of the latest sample's thread, cur_thread */
    pcd_thread_id cur_thread;      /* (NO_THREAD: none yet) */
    uint32_t deep_ids[PCD_TACHYON_MAX_DEPTH]; /* a deeper stack's innermost 256 */
    tthread *th;                   /* by model thread */
    size_t n_th, th_cap;
    uint64_t *clocks;              /* per Tachyon thread (tid, interp): its clock (µs) */
    size_t n_clocks, clocks_cap;
    pcd_hmap clock_of;             /* (tid, interp) -> index into clocks */
    pcd_hmap tids;                 /* thread id text -> a synthetic thread id */
    uint64_t next_synthetic;
    pcd_hmap pids;                 /* the distinct process ids */
    bool any_gc;
    uint64_t warn[W_N];
} tachyon_out;

/* ---- the header --------------------------------------------------------------------------- */

/* A decimal number that fits 64 bits. */
static bool dec_u64(pcd_bytes b, uint64_t *out)
{
    if (!b.len || b.len > 20) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < b.len; i++) {
        if (b.ptr[i] < '0' || b.ptr[i] > '9') return false;
        unsigned d = (unsigned)(b.ptr[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static int mode_of(pcd_bytes v)
{
    for (int i = 0; i < 5; i++)
        if (pcd_bytes_is(v, pcd_tachyon_mode_names[i])) return i;
    return pcd_bytes_is(v, "memory") ? MODE_MEMORY : pcd_bytes_is(v, "full") ? MODE_FULL : -1;
}

static pcd_status t_meta(void *ud, pcd_profile *p, pcd_str key, pcd_str value)
{
    tachyon_out *t = ud;
    pcd_bytes k = pcd_profile_text(p, key), v = pcd_profile_text(p, value);
    bool header = pcd_bytes_is(k, "interval") || pcd_bytes_is(k, "python") || pcd_bytes_is(k, "python_version");
    if (pcd_bytes_is(k, "mode")) {
        header = true;
        t->mode = mode_of(v);
        if (t->mode < 0 && !pcd_bytes_is(v, "unknown")) t->warn[W_MODE]++;
    }
    if (header && t->open) t->warn[W_META]++;
    return PCD_OK;
}

/* The header as the source stated it (p->capture: `encode --from samples`). */
static pcd_status open_captured(tachyon_out *t, const pcd_capture *c)
{
    pcd_tachyon_writer_opts o;
    memset(&o, 0, sizeof o);
    o.start_time_us = c->start_time_us;
    o.sample_interval_us = c->interval_us;
    memcpy(o.python, c->version, sizeof o.python);
    o.mode = c->mode;
    o.features = c->features;
    o.compression = c->compression;
    o.big = t->j->endian && strcmp(t->j->endian, "big") == 0;
    o.have_stats = c->have_stats;
    o.duration_sec = c->duration_sec;
    o.sample_rate = c->sample_rate;
    o.error_rate = c->error_rate;
    o.missed_samples = c->missed_samples;
    o.stats_present = c->stats_present;
    pcd_status st = pcd_tachyon_writer_open(&t->tw, t->out, t->j->al, &o);
    t->open = true;
    return st;
}

static pcd_status open_writer(tachyon_out *t, pcd_profile *p)
{
    if (p->capture.set) return open_captured(t, &p->capture);
    pcd_tachyon_writer_opts o;
    memset(&o, 0, sizeof o);
    o.start_time_us = 0;
    o.sample_interval_us = pcd_out_period_us(p);
    /* "X.Y.Z" (Z may be "?"): a part that is not a number below 256 is 0 */
    pcd_str py = pcd_profile_meta_get(p, "python");
    if (!py) py = pcd_profile_meta_get(p, "python_version");
    pcd_bytes v = pcd_profile_text(p, py);
    size_t i = 0;
    for (int part = 0; part < 3; part++) {
        size_t e = i;
        while (e < v.len && v.ptr[e] != '.') e++;
        uint64_t x;
        o.python[part] = i < v.len && dec_u64((pcd_bytes){ v.ptr + i, e - i }, &x) && x <= 255 ? (uint8_t)x : 0;
        i = e + 1;
    }
    o.mode = t->mode < 0 ? -1 : t->mode >= MODE_MEMORY ? 0 : t->mode;
    o.features = 1 << FEATURE_ALL_THREADS; /* gc is added at the end */
    o.compression = t->j->compression && strcmp(t->j->compression, "none") == 0 ? 0 : 1;
    pcd_status st = pcd_tachyon_writer_open(&t->tw, t->out, t->j->al, &o);
    t->open = true;
    return st;
}

/* ---- frames and threads ------------------------------------------------------------------- */

/* A model position as Tachyon's int32 (none: -1; shift: columns are 0-based in Tachyon); *bad
 * when it does not fit. */
static int32_t loc(int64_t v, int shift, bool *bad)
{
    if (v == PCD_POS_NONE) return -1;
    if (v - shift < 0 || v - shift > INT32_MAX) {
        *bad = true;
        return -1;
    }
    return (int32_t)(v - shift);
}

/* The same for a profile that states its capture (p->capture: Tachyon's own text): a negative
 * position is the source's, written back as it was (only none is -1). */
static int32_t loc_given(int64_t v, int shift, bool *bad)
{
    if (v == PCD_POS_NONE) return -1;
    if (v - shift < INT32_MIN || v - shift > INT32_MAX) {
        *bad = true;
        return -1;
    }
    return (int32_t)(v - shift);
}

static pcd_status frame_slow(tachyon_out *t, const pcd_profile *p, pcd_frame_id id, uint32_t *out)
{
    if (id >= t->fmap_cap) {
        size_t old = t->fmap_cap;
        PCD_TRY(PCD_VEC_RESERVE(t->j->al, t->fmap, t->fmap_cap, (size_t)id + 1));
        memset(t->fmap + old, 0, (t->fmap_cap - old) * sizeof *t->fmap);
    }
    const pcd_frame *f = pcd_profile_frame_at(p, id);
    pcd_bytes fn = pcd_profile_text(p, f->function), file = pcd_profile_text(p, f->file);
    pcd_tachyon_wframe w;
    memset(&w, 0, sizeof w);
    w.lineno = w.end_lineno = w.column = w.end_column = w.opcode = -1;
    switch (f->kind) {
    case PCD_FRAME_GC:
        t->any_gc = true;
        file = (pcd_bytes){ (const uint8_t *)"~", 1 };
        fn = (pcd_bytes){ (const uint8_t *)"<GC>", 4 };
        break;
    case PCD_FRAME_INVALID:
        file = (pcd_bytes){ (const uint8_t *)"~", 1 };
        fn = (pcd_bytes){ (const uint8_t *)":INVALID:", 9 };
        break;
    case PCD_FRAME_KERNEL:
        file = (pcd_bytes){ (const uint8_t *)"kernel", 6 };
        w.lineno = 0;
        break;
    case PCD_FRAME_LABEL:
    case PCD_FRAME_IDLE:
        file = (pcd_bytes){ (const uint8_t *)"~", 1 };
        break;
    default: {
        bool bad = false;
        int32_t (*pos)(int64_t, int, bool *) = p->capture.set ? loc_given : loc;
        w.lineno = pos(f->line, 0, &bad);
        w.end_lineno = pos(f->end_line, 0, &bad);
        w.column = pos(f->column, 1, &bad);
        w.end_column = pos(f->end_column, 1, &bad);
        if (bad) t->warn[W_LOC]++;
        break;
    }
    }
    if (f->instr) w.opcode = (int)f->instr - 1;
    w.filename = file.ptr;
    w.filename_len = file.len;
    w.funcname = fn.ptr;
    w.funcname_len = fn.len;
    PCD_TRY(pcd_tachyon_writer_intern(&t->tw, &w, out));
    t->fmap[id] = *out + 1;
    return PCD_OK;
}

/* The Tachyon frame index of model frame id, interned when new. */
PCD_INLINE pcd_status frame_of(tachyon_out *t, const pcd_profile *p, pcd_frame_id id, uint32_t *out)
{
    if (PCD_LIKELY(id < t->fmap_cap && t->fmap[id])) {
        *out = t->fmap[id] - 1;
        return PCD_OK;
    }
    return frame_slow(t, p, id, out);
}

/* The Tachyon thread id: the number the source gave, else a synthetic one from 2^63 (for the
 * text that stands for the thread: a lane, an asyncio task, is shown by its name). */
static pcd_status thread_id(tachyon_out *t, const pcd_profile *p, const pcd_thread *th, uint64_t *out)
{
    pcd_str text = pcd_thread_id_text(th);
    if ((th->has_tid && !th->lane_of) || !text) {
        *out = th->tid;
        return PCD_OK;
    }
    if (dec_u64(pcd_profile_text(p, text), out)) return PCD_OK;
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&t->tids, (pcd_hkey){ text, 0, 0 }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    if (fresh) {
        sl->v0 = (UINT64_C(1) << 63) + t->next_synthetic++;
        t->warn[W_TID]++;
    }
    *out = sl->v0;
    return PCD_OK;
}

/* ---- samples ------------------------------------------------------------------------------- */

/* Model thread `id` as Tachyon sees it: its ids, its clock, whether it is its process's main
 * thread; found at its first sample. */
static pcd_status thread_slow(tachyon_out *t, const pcd_profile *p, pcd_thread_id id)
{
    if (id >= t->th_cap) PCD_TRY(PCD_VEC_RESERVE(t->j->al, t->th, t->th_cap, (size_t)id + 1));
    for (; t->n_th <= id; t->n_th++) memset(&t->th[t->n_th], 0, sizeof *t->th);
    tthread *tt = &t->th[id];
    const pcd_thread *th = &p->threads[id];
    PCD_TRY(thread_id(t, p, th, &tt->tid));
    if (th->iid != PCD_ID_NONE && (th->iid < 0 || th->iid > (int64_t)UINT32_MAX)) tt->bad_iid = true;
    else if (th->iid != PCD_ID_NONE) tt->interp = (uint32_t)th->iid;
    tt->main = th->pid >= 0 && tt->tid == (uint64_t)th->pid;
    bool fresh;
    if (!pcd_hmap_put(&t->pids, (pcd_hkey){ (uint64_t)th->pid, 0, 0 }, &fresh)) return PCD_E_NOMEM;
    if (fresh && t->pids.len == 2) t->warn[W_PROCESSES]++;
    pcd_hslot *c = pcd_hmap_put(&t->clock_of, (pcd_hkey){ tt->tid, tt->interp, 0 }, &fresh);
    if (!c) return PCD_E_NOMEM;
    if (fresh) {
        PCD_TRY(PCD_VEC_RESERVE(t->j->al, t->clocks, t->clocks_cap, t->n_clocks + 1));
        t->clocks[t->n_clocks] = 0;
        c->v0 = t->n_clocks++;
    }
    tt->clock = (uint32_t)c->v0 + 1;
    return PCD_OK;
}

/* The slot of model thread `id` as t->cur (made when new; emptied when it was another's). */
static pcd_status path_slot(tachyon_out *t, pcd_thread_id id)
{
    size_t slot = id % PATH_SLOTS;
    if (slot >= t->n_paths) {
        PCD_TRY(PCD_VEC_RESERVE(t->j->al, t->paths, t->paths_cap, slot + 1));
        for (; t->n_paths <= slot; t->n_paths++) {
            t->paths[t->n_paths].depth = 0;
            t->paths[t->n_paths].owner = id;
        }
    }
    tpath *pc = &t->paths[slot];
    if (pc->owner != id) {
        pc->owner = id;
        pc->depth = 0;
    }
    t->cur = pc;
    t->cur_thread = id;
    return PCD_OK;
}

static pcd_status t_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    tachyon_out *t = ud;
    if (PCD_UNLIKELY(!t->open)) PCD_TRY(open_writer(t, p));
    if (PCD_UNLIKELY(s->thread >= t->n_th || !t->th[s->thread].clock)) PCD_TRY(thread_slow(t, p, s->thread));
    const tthread *tt = &t->th[s->thread];
    if (PCD_UNLIKELY(tt->bad_iid)) t->warn[W_IID]++;
    /* the stack, innermost first: up the trie to where it meets the thread's last one */
    uint32_t depth = pcd_stack_depth(p, s->stack), n;
    const uint32_t *ids;
    if (PCD_LIKELY(depth <= PCD_TACHYON_MAX_DEPTH)) {
        if (PCD_UNLIKELY(s->thread != t->cur_thread)) PCD_TRY(path_slot(t, s->thread));
        tpath *pc = t->cur;
        uint32_t k = depth;
        for (pcd_stack_id at = s->stack; k > 0; at = pcd_stack_parent(p, at), k--) {
            uint32_t r = PCD_TACHYON_MAX_DEPTH - k;
            if (k <= pc->depth && pc->node[r] == at) break;
            pc->node[r] = at;
            pc->depth = pc->depth < k ? pc->depth : k - 1; /* slots k.. are written */
            PCD_TRY(frame_of(t, p, pcd_stack_frame(p, at), &pc->ids[r]));
        }
        pc->depth = depth;
        ids = pc->ids + (PCD_TACHYON_MAX_DEPTH - depth);
        n = depth;
    } else {
        t->warn[W_DEEP]++;
        n = 0;
        for (pcd_stack_id at = s->stack; n < PCD_TACHYON_MAX_DEPTH; at = pcd_stack_parent(p, at))
            PCD_TRY(frame_of(t, p, pcd_stack_frame(p, at), &t->deep_ids[n++]));
        ids = t->deep_ids;
    }
    if (s->flags & t->bytes_mask) t->warn[W_MEMORY]++;
    uint8_t status;
    if (t->cpython) {
        status = (uint8_t)s->status;
    } else {
        status = t->mode == 1 ? ST_ON_CPU : t->mode == MODE_FULL ? ((s->flags & PCD_SAMPLE_IDLE) ? 0 : ST_ON_CPU) : ST_UNKNOWN;
        if (tt->main) status |= ST_MAIN;
    }
    for (uint64_t k = 0; k < s->count; k++) {
        uint64_t ts;
        if (s->time != PCD_TIME_NONE) {
            ts = (uint64_t)(s->time / 1000) + p->capture.time_base_us; /* 0 unless stated */
        } else {
            uint64_t us;
            if (!pcd_out_pace_us(&t->pace, p, s, &us)) t->warn[W_NOTIME]++;
            ts = t->clocks[tt->clock - 1] += us; /* wraps as Tachyon's deltas do */
        }
        PCD_TRY(pcd_tachyon_writer_sample_ids(&t->tw, tt->tid, tt->interp, status, ts, ids, n));
    }
    return PCD_OK;
}

/* ---- the output ------------------------------------------------------------------------------ */

static pcd_status t_begin(void *ud, pcd_profile *p)
{
    tachyon_out *t = ud;
    pcd_dialect d;
    PCD_TRY(pcd_out_dialect(t->j, p, &d));
    t->cpython = d == PCD_DIALECT_CPYTHON;
    pcd_out_pace_init(&t->pace, p);
    for (size_t i = 0; i < p->n_types; i++)
        if (pcd_bytes_is(pcd_profile_text(p, p->types[i].unit), "bytes")) t->bytes_mask |= PCD_SAMPLE_HAS(i);
    return PCD_OK;
}

static void warnings(tachyon_out *t, const pcd_profile *p)
{
    pcd_job *j = t->j;
    const uint64_t *w = t->warn;
    if (w[W_MEMORY])
        pcd_job_note(j, "warning: memory metrics of %" PRIu64 " samples dropped (Tachyon has no memory metric)",
                     w[W_MEMORY]);
    if (w[W_PROCESSES])
        pcd_job_note(j,
                     "warning: %zu processes written as one (Tachyon has no process id; threads keep their ids, "
                     "each process's main thread is flagged)",
                     t->pids.len);
    if (w[W_DEEP])
        pcd_job_note(j, "warning: %" PRIu64 " stacks deeper than 256 frames cut to their innermost 256 (as CPython does)",
                     w[W_DEEP]);
    if (w[W_NOTIME])
        pcd_job_note(j, "warning: %" PRIu64 " samples without a time metric written with the time of the one before",
                     w[W_NOTIME]);
    if (w[W_TID])
        pcd_job_note(j, "warning: %" PRIu64 " thread ids that are not 64-bit hex numbers given ids from 2^63 on", w[W_TID]);
    if (w[W_IID])
        pcd_job_note(j, "warning: %" PRIu64 " samples with an interpreter id beyond 32 bits written with interpreter 0",
                     w[W_IID]);
    if (w[W_LOC])
        pcd_job_note(j, "warning: %" PRIu64 " frames with lines or columns beyond Tachyon's 32-bit range written without them",
                     w[W_LOC]);
    if (w[W_MODE]) pcd_job_note(j, "warning: an unknown mode: the profile's mode is not recorded");
    if (w[W_META])
        pcd_job_note(j, "warning: mode, interval or python metadata after the first sample ignored (the header was written)");
    (void)p;
}

static pcd_status t_end(void *ud, pcd_profile *p)
{
    tachyon_out *t = ud;
    if (!t->open) PCD_TRY(open_writer(t, p)); /* no samples: an empty profile */
    /* the gc feature: the header is rewritten with the totals */
    if (t->any_gc && !p->capture.set) t->tw.root.config |= (uint32_t)(1 << FEATURE_GC) << PCD_TACHYON_V1_FILE_CONFIG_FEATURES_SHIFT;
    pcd_status st = pcd_tachyon_writer_finish(&t->tw);
    if (st != PCD_OK) {
        if (st == PCD_E_NOMEM) return st;
        char msg[400];
        const pcd_error *e = pcd_tachyon_writer_error(&t->tw);
        if (e->status) pcd_error_format(e, msg, sizeof msg);
        else snprintf(msg, sizeof msg, "%s", pcd_status_name(st));
        return pcd_job_fail(t->j, st, "cannot write the Tachyon output: %s", msg);
    }
    warnings(t, p);
    return PCD_OK;
}

static pcd_status t_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *c)
{
    tachyon_out *t = state;
    if (j->compression && strcmp(j->compression, "zstd") != 0 && strcmp(j->compression, "none") != 0)
        return pcd_job_fail(j, PCD_E_ARG, "--compression takes zstd or none");
    t->j = j;
    t->out = out;
    t->mode = -1;
    t->pace.type = -1;
    t->cur_thread = NO_THREAD;
    pcd_hmap_init(&t->clock_of, j->al);
    pcd_hmap_init(&t->tids, j->al);
    pcd_hmap_init(&t->pids, j->al);
    c->ud = t;
    c->needs = PCD_NEEDS_TIMES; /* a Tachyon sample per sample, with its time and status */
    c->begin = t_begin;
    c->meta = t_meta;
    c->sample = t_sample;
    c->end = t_end;
    return PCD_OK;
}

static void t_close(void *state)
{
    tachyon_out *t = state;
    if (!t->j) return;
    if (t->open) pcd_tachyon_writer_close(&t->tw);
    PCD_VEC_FREE(t->j->al, t->fmap, t->fmap_cap);
    PCD_VEC_FREE(t->j->al, t->th, t->th_cap);
    PCD_VEC_FREE(t->j->al, t->paths, t->paths_cap);
    PCD_VEC_FREE(t->j->al, t->clocks, t->clocks_cap);
    pcd_hmap_free(&t->clock_of);
    pcd_hmap_free(&t->tids);
    pcd_hmap_free(&t->pids);
}

const pcd_exporter pcd_out_tachyon = {
    "tachyon",
    "CPython's Tachyon profile (--compression zstd|none), read by CPython 3.15's profiling.sampling replay",
    PCD_HAS_SAMPLES | PCD_HAS_CODE, PCD_HAS_TIMES | PCD_HAS_ORDER, sizeof(tachyon_out), t_open, t_close, NULL,
    PCD_WANTS_FILE,
};
