/* formats/mojo/import.c: Austin MOJO into the profile model.
 *
 * The assembler (asm.c) turns events into samples; each becomes a model sample:
 *  - the thread is (pid, iid, tid): the tid as Austin's text shows it (a decimal number when
 *    the hexadecimal one parses, else its bytes), told apart by its bytes;
 *  - frames are code frames (scope as function, file, line, end line, columns; MOJO's 0, "not
 *    available", is the model's PCD_POS_NONE); the markers are frames of their kind: invalid, GC, kernel (the symbol
 *    as function), a string reference (a label);
 *  - values, one per sample type: time (µs; the first time metric, negative read as 0),
 *    cpu-time in full mode (the time unless the sample is idle), memory and memory-released
 *    (the first memory metric's positive and negative parts), samples (1). The flags say
 *    which metrics the sample had, which came first, and whether it was idle, so that
 *    Austin's text can be written back byte for byte.
 * MOJO 4's asyncio tasks are lanes (model/profile.h) of the thread within whose sample they
 * first appear, one per (pid, task id), named by the task's name: each task stack says where
 * the task is now and how long it spent at its previous suspension point, so it gives the lane
 * a sample of that time on the previous point's stack (a task's first stack has none; a time
 * without a previous point goes to the lane's empty stack; a task stack without frames, the
 * task gone, ends it). Waiter edges are links "awaited-by" from the task to its waiter. Version 4
 * files are austin-python 2.2.0's: its mojo2austin is their text (the austin2 dialect).
 * Metadata goes on in file order. Sample types are set up at the first sample (or the end),
 * when the mode metadata has been seen: their titles follow it ("CPU time", "Wall time"). The
 * default metric is memory when the last mode seen is memory, else time. The sampling period
 * is the latest "interval" metadata (µs, in the time type) when it is a decimal number, else
 * Austin's default, 100 µs. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "common/hmap.h"
#include "common/text.h"
#include "common/vec.h"
#include "formats/mojo/asm.h"
#include "model/profile.h"

enum { T_TIME, T_CPU, T_MEMORY, T_RELEASED, T_SAMPLES, T_N };

typedef struct mimport {
    pcd_job *j;
    pcd_profile *p;
    mojo_asm as;
    pcd_status st;                 /* the first error from the model or its consumer */
    bool begun;
    int types[T_N];                /* model type index of each, -1 absent */
    /* metadata before the first sample, handed on at the begin */
    struct { pcd_str k, v; } *pending;
    size_t n_pending, pending_cap;
    uint32_t mode_id;              /* string id of the latest "mode" value, UINT32_MAX none */
    int64_t interval;              /* the sampling period (µs) */
    /* asm ids -> model ids (+1, 0 not yet) */
    uint32_t *smap, *fmap;
    size_t smap_cap, fmap_cap;
    /* asm string ids -> the model's kernel frame and label frame of that text (+1, 0 not yet) */
    uint32_t *kmap, *lmap;
    size_t kmap_cap, lmap_cap;
    pcd_frame_id gc, invalid;      /* + 1 */
    /* Each thread's previous sample: its items and the model stack after each, so that a
     * sample makes only what changed since its thread's last one (Austin's samples mostly go on
     * as the thread's last one went, with threads taking turns). Found by the sample's thread
     * id string: the (pid, iid) it came with last and the model thread (+1, 0 none). */
    struct tid_seen {
        pcd_mojo_int pid, iid;
        bool has_iid;
        pcd_thread_id thread1;
    } *tids;
    size_t tids_cap;
    struct thread_prev {
        mojo_item *items;
        pcd_stack_id *st;
        size_t n, items_cap, st_cap;
    } *prev;
    size_t prev_cap;
    /* MOJO 4's tasks: (pid, sign, task id) -> lane + 1 (v0), its current point's stack + 1 (v1) */
    pcd_hmap tasks;
    pcd_frame_id *tfr;
    size_t tfr_cap;
    pcd_str awaited_by;
} mimport;

static int64_t clamp(pcd_mojo_int v)
{
    if (v.neg) return v.mag > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)v.mag;
    return v.mag > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v.mag;
}

#define DEFAULT_INTERVAL 100        /* Austin's sampling interval (µs) when none is given */

/* The sampling interval an "interval" value says (µs): a decimal number (held at 2^63-1), else
 * Austin's default. */
static int64_t interval_of(pcd_bytes b)
{
    if (!b.len) return DEFAULT_INTERVAL;
    uint64_t v = 0;
    for (size_t i = 0; i < b.len; i++) {
        if (b.ptr[i] < '0' || b.ptr[i] > '9') return DEFAULT_INTERVAL;
        unsigned d = (unsigned)(b.ptr[i] - '0');
        if (v > ((uint64_t)INT64_MAX - d) / 10) v = (uint64_t)INT64_MAX;
        else v = v * 10 + d;
    }
    return (int64_t)v;
}

/* A line or column: MOJO writes 0 when there is none (columns are 1-based, as the model's). */
static int64_t pos(pcd_mojo_int v) { return v.mag == 0 ? PCD_POS_NONE : clamp(v); }

/* The model string of an assembler string id. */
static pcd_str str_of(mimport *m, uint32_t id)
{
    if (id >= m->smap_cap || !m->smap[id]) {
        if (id >= m->smap_cap) {
            size_t old = m->smap_cap;
            if (PCD_VEC_RESERVE(m->j->al, m->smap, m->smap_cap, (size_t)id + 1) != PCD_OK) {
                m->p->oom = PCD_E_NOMEM;
                return 0;
            }
            memset(m->smap + old, 0, (m->smap_cap - old) * sizeof *m->smap);
        }
        pcd_bytes b = pcd_mojo_str(&m->as, id);
        m->smap[id] = pcd_profile_str(m->p, b.ptr, b.len) + 1;
    }
    return m->smap[id] - 1;
}

/* An assembler frame's model frame, made at its first use (frame_of: the common case inline,
 * on the hot path of every sample's new frames). */
PCD_COLD static pcd_frame_id frame_make(mimport *m, uint32_t id)
{
    if (id >= m->fmap_cap) {
        size_t old = m->fmap_cap;
        if (PCD_VEC_RESERVE(m->j->al, m->fmap, m->fmap_cap, (size_t)id + 1) != PCD_OK) {
            m->p->oom = PCD_E_NOMEM;
            return 0;
        }
        memset(m->fmap + old, 0, (m->fmap_cap - old) * sizeof *m->fmap);
    }
    const mojo_frame *fr = &m->as.fr[id];
    pcd_frame f = pcd_frame_blank(PCD_FRAME_CODE);
    f.function = str_of(m, fr->scope);
    f.file = str_of(m, fr->file);
    f.line = pos(fr->line);
    f.end_line = pos(fr->line_end);
    f.column = pos(fr->column);
    f.end_column = pos(fr->column_end);
    m->fmap[id] = pcd_profile_frame(m->p, &f) + 1;
    return m->fmap[id] - 1;
}

PCD_INLINE pcd_frame_id frame_of(mimport *m, uint32_t id)
{
    if (PCD_LIKELY(id < m->fmap_cap && m->fmap[id])) return m->fmap[id] - 1;
    return frame_make(m, id);
}

/* The model frame of kind `kind` named by assembler string id (a kernel symbol, a label),
 * found once per id through *map. */
static pcd_frame_id named_of(mimport *m, uint32_t **map, size_t *cap, pcd_frame_kind kind, uint32_t id)
{
    if (PCD_LIKELY(id < *cap && (*map)[id])) return (*map)[id] - 1;
    if (id >= *cap) {
        size_t old = *cap;
        if (PCD_VEC_RESERVE(m->j->al, *map, *cap, (size_t)id + 1) != PCD_OK) {
            m->p->oom = PCD_E_NOMEM;
            return 0;
        }
        memset(*map + old, 0, (*cap - old) * sizeof **map);
    }
    pcd_frame_id f = pcd_profile_frame_named(m->p, kind, str_of(m, id));
    if (m->p->oom) return 0;
    (*map)[id] = f + 1;
    return f;
}

static bool mode_is(const mimport *m, const char *z)
{
    return m->mode_id != UINT32_MAX && pcd_bytes_is(pcd_mojo_str(&m->as, m->mode_id), z);
}

/* The sample types (at the first sample or the end), then the metadata held back. */
static pcd_status begin(mimport *m)
{
    if (m->begun) return PCD_OK;
    m->begun = true;
    pcd_profile *p = m->p;
    bool full = mode_is(m, "full");
    for (int i = 0; i < T_N; i++) m->types[i] = -1;
    /* in Austin's order: CPU time first in full mode */
    if (full) m->types[T_CPU] = pcd_profile_add_type(p, "cpu-time", "microseconds", "CPU time");
    m->types[T_TIME] = pcd_profile_add_type(p, "time", "microseconds",
                                            mode_is(m, "cpu") ? "CPU time" : mode_is(m, "wall") || full ? "Wall time" : "Time");
    m->types[T_MEMORY] = pcd_profile_add_type(p, "memory", "bytes", "Memory allocation");
    m->types[T_RELEASED] = pcd_profile_add_type(p, "memory-released", "bytes", "Memory deallocation");
    m->types[T_SAMPLES] = pcd_profile_add_type(p, "samples", "count", "Samples");
    p->types[m->types[T_SAMPLES]].secondary = true;
    p->default_type = mode_is(m, "memory") ? m->types[T_MEMORY] : m->types[T_TIME];
    p->period = m->interval;
    p->period_type = m->types[T_TIME];
    PCD_TRY(pcd_profile_begin(p));
    for (size_t i = 0; i < m->n_pending; i++) PCD_TRY(pcd_profile_meta(p, m->pending[i].k, m->pending[i].v));
    return PCD_OK;
}

static void on_meta(void *ud, uint32_t key, uint32_t value, uint64_t offset)
{
    (void)offset;
    mimport *m = ud;
    if (m->st != PCD_OK) return;
    pcd_str k = str_of(m, key), v = str_of(m, value);
    pcd_bytes kb = pcd_mojo_str(&m->as, key);
    if (pcd_bytes_is(kb, "mode")) {
        m->mode_id = value;
        if (m->begun) m->p->default_type = mode_is(m, "memory") ? m->types[T_MEMORY] : m->types[T_TIME];
    } else if (pcd_bytes_is(kb, "interval")) {
        m->interval = interval_of(pcd_mojo_str(&m->as, value));
        if (m->begun) m->p->period = m->interval;
    } else if (pcd_bytes_is(kb, "duration")) {
        /* how long Austin sampled (µs, written at the end): the profile's duration, in ns, when it
         * is a decimal number that fits */
        pcd_bytes b = pcd_mojo_str(&m->as, value);
        uint64_t us = 0;
        size_t i = 0;
        while (i < b.len && b.ptr[i] >= '0' && b.ptr[i] <= '9' && us <= (uint64_t)INT64_MAX / 10000)
            us = us * 10 + (uint64_t)(b.ptr[i++] - '0');
        if (b.len && i == b.len && us <= (uint64_t)INT64_MAX / 1000) m->p->duration = (int64_t)us * 1000;
    }
    if (!m->begun) {
        if (PCD_VEC_RESERVE(m->j->al, m->pending, m->pending_cap, m->n_pending + 1) != PCD_OK) {
            m->st = PCD_E_NOMEM;
            return;
        }
        m->pending[m->n_pending].k = k;
        m->pending[m->n_pending].v = v;
        m->n_pending++;
        return;
    }
    m->st = pcd_profile_meta(m->p, k, v);
}

static bool same_int(pcd_mojo_int x, pcd_mojo_int y) { return x.mag == y.mag && x.neg == y.neg; }

/* The model thread of a sample: (pid, iid, tid), the tid as Austin's text shows it (thread_of:
 * the thread of the latest sample with this tid, inline; thread_make: a new one). */
PCD_COLD static pcd_thread_id thread_make(mimport *m, const mojo_sample *sm)
{
    if (sm->tid >= m->tids_cap) {
        size_t old = m->tids_cap;
        if (PCD_VEC_RESERVE(m->j->al, m->tids, m->tids_cap, (size_t)sm->tid + 1) != PCD_OK) {
            m->p->oom = PCD_E_NOMEM;
            return 0;
        }
        memset(m->tids + old, 0, (m->tids_cap - old) * sizeof *m->tids);
    }
    pcd_thread th = pcd_thread_blank();
    th.pid = clamp(sm->pid);
    if (sm->has_iid) th.iid = clamp(sm->iid);
    pcd_bytes tt = pcd_mojo_tid_text(&m->as, sm->tid);
    th.tid_text = pcd_profile_str(m->p, tt.ptr, tt.len);
    th.key = (uint64_t)sm->tid + 1;  /* the raw thread string, as the file has it */
    /* a negative zero pid or iid is a thread of its own in the file */
    if (sm->pid.neg) th.key |= UINT64_C(1) << 62;
    if (sm->has_iid && sm->iid.neg) th.key |= UINT64_C(1) << 61;
    pcd_thread_id t = pcd_profile_thread(m->p, &th);
    if (m->p->oom) return 0;
    struct tid_seen *ts = &m->tids[sm->tid];
    ts->pid = sm->pid;
    ts->iid = sm->iid;
    ts->has_iid = sm->has_iid;
    ts->thread1 = t + 1;
    return t;
}

PCD_INLINE pcd_thread_id thread_of(mimport *m, const mojo_sample *sm)
{
    if (PCD_LIKELY(sm->tid < m->tids_cap)) {
        const struct tid_seen *ts = &m->tids[sm->tid];
        if (PCD_LIKELY(ts->thread1 && same_int(ts->pid, sm->pid) && ts->has_iid == sm->has_iid && same_int(ts->iid, sm->iid)))
            return ts->thread1 - 1;
    }
    return thread_make(m, sm);
}

static void on_sample(void *ud, const mojo_sample *sm)
{
    mimport *m = ud;
    if (m->st != PCD_OK) return;
    if (!m->begun && (m->st = begin(m)) != PCD_OK) return;
    pcd_profile *p = m->p;
    pcd_sample s;
    memset(&s, 0, sizeof s);
    s.thread = thread_of(m, sm);
    if (p->oom) {
        m->st = p->oom;
        return;
    }
    if (s.thread >= m->prev_cap) {
        size_t old = m->prev_cap;
        if (PCD_VEC_RESERVE(m->j->al, m->prev, m->prev_cap, (size_t)s.thread + 1) != PCD_OK) {
            m->st = PCD_E_NOMEM;
            return;
        }
        memset(m->prev + old, 0, (m->prev_cap - old) * sizeof *m->prev);
    }
    struct thread_prev *tp = &m->prev[s.thread];
    /* the items the thread's previous sample had too keep its stack */
    size_t c = 0;
    while (c < tp->n && c < sm->n_items && tp->items[c].kind == sm->items[c].kind && tp->items[c].id == sm->items[c].id) c++;
    if (PCD_UNLIKELY(sm->n_items > tp->items_cap || sm->n_items > tp->st_cap) &&
        (PCD_VEC_RESERVE(m->j->al, tp->items, tp->items_cap, sm->n_items) != PCD_OK ||
         PCD_VEC_RESERVE(m->j->al, tp->st, tp->st_cap, sm->n_items) != PCD_OK)) {
        m->st = PCD_E_NOMEM;
        return;
    }
    pcd_stack_id st = c ? tp->st[c - 1] : PCD_STACK_EMPTY;
    for (size_t i = c; i < sm->n_items; i++) {
        const mojo_item *it = &sm->items[i];
        pcd_frame_id f;
        switch (it->kind) {
        case MOJO_IT_FRAME: f = frame_of(m, it->id); break;
        case MOJO_IT_GC:
            if (!m->gc) m->gc = pcd_profile_frame_named(p, PCD_FRAME_GC, 0) + 1;
            f = m->gc - 1;
            break;
        case MOJO_IT_INVALID:
            if (!m->invalid) m->invalid = pcd_profile_frame_named(p, PCD_FRAME_INVALID, 0) + 1;
            f = m->invalid - 1;
            break;
        case MOJO_IT_KERNEL: f = named_of(m, &m->kmap, &m->kmap_cap, PCD_FRAME_KERNEL, it->id); break;
        default: f = named_of(m, &m->lmap, &m->lmap_cap, PCD_FRAME_LABEL, it->id); break;
        }
        st = pcd_profile_push(p, st, f);
        tp->items[i] = *it;
        tp->st[i] = st;
    }
    tp->n = sm->n_items;
    if (p->oom) {
        m->st = p->oom;
        return;
    }
    uint64_t v[T_N] = { 0 };
    uint64_t time = sm->n_time && !sm->time.neg ? sm->time.mag : 0;
    v[m->types[T_TIME]] = time;
    if (m->types[T_CPU] >= 0) v[m->types[T_CPU]] = sm->idle ? 0 : time;
    v[m->types[T_MEMORY]] = sm->n_memory && !sm->memory.neg ? sm->memory.mag : 0;
    v[m->types[T_RELEASED]] = sm->n_memory && sm->memory.neg ? sm->memory.mag : 0;
    v[m->types[T_SAMPLES]] = 1;
    s.stack = st;
    s.time = PCD_TIME_NONE;
    s.count = 1;
    s.values = v;
    s.offset = sm->offset;
    if (sm->idle) s.flags |= PCD_SAMPLE_IDLE;
    if (sm->n_time) s.flags |= PCD_SAMPLE_HAS(m->types[T_TIME]);
    if (sm->n_memory) s.flags |= PCD_SAMPLE_HAS(m->types[T_MEMORY]);
    if (sm->first_metric == MOJO_METRIC_TIME) s.flags |= (uint32_t)(1 + m->types[T_TIME]) << PCD_SAMPLE_FIRST_SHIFT;
    if (sm->first_metric == MOJO_METRIC_MEMORY) s.flags |= (uint32_t)(1 + m->types[T_MEMORY]) << PCD_SAMPLE_FIRST_SHIFT;
    m->st = pcd_profile_sample(p, &s);
}

/* ---- MOJO 4's tasks ---------------------------------------------------------------------- */

#define LANE_KEY (UINT64_C(1) << 63)  /* a lane's thread key: never a MOJO thread's */

/* The state of task (pid, id), its lane made (on the thread of `owner`) when new. */
static pcd_hslot *task_of(mimport *m, pcd_mojo_int pid, pcd_mojo_int task, const mojo_sample *owner)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&m->tasks, (pcd_hkey){ pid.mag, pid.neg, task.mag | (uint64_t)task.neg << 63 }, &fresh);
    if (!sl) {
        m->st = PCD_E_NOMEM;
        return NULL;
    }
    if (fresh) {
        pcd_thread th = pcd_thread_blank();
        th.pid = clamp(pid);
        if (owner && owner->has_iid) th.iid = clamp(owner->iid);
        th.tid = task.mag;
        th.has_tid = true;
        th.key = LANE_KEY | task.neg;
        th.lane_of = owner ? thread_of(m, owner) + 1 : 0;
        /* its name until the task's own is known (outputs show a lane by its name) */
        char nm[40];
        int k = snprintf(nm, sizeof nm, "task 0x%llx", (unsigned long long)task.mag);
        th.name = pcd_profile_str(m->p, nm, (size_t)k);
        sl->v0 = pcd_profile_thread(m->p, &th) + 1;
    }
    return sl;
}

static pcd_status lane_sample(mimport *m, pcd_thread_id lane, pcd_stack_id st, pcd_mojo_int elapsed, uint64_t offset)
{
    uint64_t v[T_N] = { 0 };
    v[m->types[T_TIME]] = elapsed.neg ? 0 : elapsed.mag;
    v[m->types[T_SAMPLES]] = 1;
    pcd_sample s;
    memset(&s, 0, sizeof s);
    s.thread = lane;
    s.stack = st;
    s.time = PCD_TIME_NONE;
    s.count = 1;
    s.values = v;
    s.offset = offset;
    s.flags = PCD_SAMPLE_HAS(m->types[T_TIME]) | (uint32_t)(1 + m->types[T_TIME]) << PCD_SAMPLE_FIRST_SHIFT;
    return pcd_profile_sample(m->p, &s);
}

static void on_task(void *ud, const mojo_task *t)
{
    mimport *m = ud;
    if (m->st != PCD_OK) return;
    if (!m->begun && (m->st = begin(m)) != PCD_OK) return;
    pcd_profile *p = m->p;
    pcd_hslot *sl = task_of(m, t->owner->pid, t->task, t->owner);
    if (!sl) return;
    pcd_thread_id lane = (pcd_thread_id)sl->v0 - 1;
    if (t->name != UINT32_MAX) pcd_profile_thread_name(p, lane, str_of(m, t->name), 0);
    if (sl->v1 || t->elapsed.mag) {
        m->st = lane_sample(m, lane, sl->v1 ? (pcd_stack_id)sl->v1 - 1 : PCD_STACK_EMPTY, t->elapsed, t->offset);
        if (m->st != PCD_OK) return;
    }
    sl->v1 = 0;
    if (!t->n_frames) return; /* the task is gone */
    if (PCD_VEC_RESERVE(m->j->al, m->tfr, m->tfr_cap, t->n_frames) != PCD_OK) {
        m->st = PCD_E_NOMEM;
        return;
    }
    for (size_t i = 0; i < t->n_frames; i++) m->tfr[i] = frame_of(m, t->frames[i]);
    pcd_stack_id st = pcd_profile_stack(p, m->tfr, t->n_frames);
    if (p->oom) {
        m->st = p->oom;
        return;
    }
    sl->v1 = (uint64_t)st + 1;
}

static void on_waiter(void *ud, pcd_mojo_int pid, pcd_mojo_int task, pcd_mojo_int waiter, uint64_t offset)
{
    mimport *m = ud;
    if (m->st != PCD_OK) return;
    if (!m->begun && (m->st = begin(m)) != PCD_OK) return;
    /* a task first named here belongs to the thread whose sample this is in */
    const mojo_sample *owner = m->as.open ? &m->as.s : NULL;
    pcd_hslot *a = task_of(m, pid, task, owner);
    if (!a) return;
    pcd_thread_id from = (pcd_thread_id)a->v0 - 1;
    pcd_hslot *b = task_of(m, pid, waiter, owner);
    if (!b) return;
    if (!m->awaited_by) m->awaited_by = pcd_profile_strz(m->p, "awaited-by");
    pcd_link l = { m->awaited_by, from, (pcd_thread_id)b->v0 - 1, offset };
    m->st = m->p->oom ? m->p->oom : pcd_profile_link(m->p, &l);
}

static pcd_status on_record(void *ud, const pcd_record *rec)
{
    mimport *m = ud;
    pcd_status st = mojo_asm_record(&m->as, rec);
    if (st != PCD_OK) return st;
    return m->st;
}

static pcd_status mojo_begin(void *ctx, pcd_job *j, pcd_profile *p, pcd_reader **from)
{
    (void)from;
    static const mojo_asm_ops ops = { on_sample, on_meta, on_task, on_waiter };
    mimport *m = ctx;
    m->j = j;
    m->p = p;
    m->mode_id = UINT32_MAX;
    m->interval = DEFAULT_INTERVAL;
    pcd_hmap_init(&m->tasks, j->al);
    p->dialect = j->f->version_num >= 4 ? PCD_DIALECT_AUSTIN2 : PCD_DIALECT_AUSTIN;
    pcd_status st = pcd_mojo_asm_init(&m->as, j->al, (int)j->f->version_num, &ops, m, NULL, NULL);
    /* austin-python 2.2.0's text of any version: its reading of samples too */
    m->as.py2 = j->dialect && strcmp(j->dialect, pcd_dialect_names[PCD_DIALECT_AUSTIN2]) == 0;
    return st;
}

static pcd_status mojo_end(void *ctx, pcd_status st)
{
    mimport *m = ctx;
    pcd_job *j = m->j;
    if (st == PCD_OK) st = pcd_mojo_asm_finish(&m->as);
    if (st == PCD_OK) st = m->st;
    if (st == PCD_OK) st = begin(m);
    if (st == PCD_E_NOMEM && m->as.oom)
        pcd_job_fail(j, st, "out of memory for the strings and frames (raise --max-memory)");
    if (st == PCD_OK) {
        uint64_t us = m->as.problems[MOJO_P_UNDEF_STRING], uf = m->as.problems[MOJO_P_UNDEF_FRAME];
        if (us || uf)
            pcd_job_note(j,
                         "warning: %llu references to undefined string keys and %llu to undefined frame keys, "
                         "rendered as <unknown> (profcodec validate shows where)",
                         (unsigned long long)us, (unsigned long long)uf);
    }
    PCD_VEC_FREE(j->al, m->pending, m->pending_cap);
    PCD_VEC_FREE(j->al, m->smap, m->smap_cap);
    PCD_VEC_FREE(j->al, m->fmap, m->fmap_cap);
    PCD_VEC_FREE(j->al, m->kmap, m->kmap_cap);
    PCD_VEC_FREE(j->al, m->lmap, m->lmap_cap);
    for (size_t i = 0; i < m->prev_cap; i++) {
        PCD_VEC_FREE(j->al, m->prev[i].items, m->prev[i].items_cap);
        PCD_VEC_FREE(j->al, m->prev[i].st, m->prev[i].st_cap);
    }
    PCD_VEC_FREE(j->al, m->prev, m->prev_cap);
    PCD_VEC_FREE(j->al, m->tids, m->tids_cap);
    PCD_VEC_FREE(j->al, m->tfr, m->tfr_cap);
    pcd_hmap_free(&m->tasks);
    pcd_mojo_asm_free(&m->as);
    return st;
}

const pcd_model_importer pcd_mojo_model = { PCD_HAS_SAMPLES | PCD_HAS_CODE | PCD_HAS_ORDER, sizeof(mimport), mojo_begin,
                                            on_record, mojo_end };
