/* formats/mono/import.c: Mono log profiler files into the profile model.
 *
 * A Mono file names its methods, classes and unmanaged symbols apart from the events that use
 * them, and a name may come after its first use (a JIT event after the sample hits in the
 * method's code, a class after its allocations): mprof-report resolves names at the end of the
 * file, and so does this importer. While it reads, it builds a call tree whose nodes are
 * (parent, kind, pointer) with one value per sample type, and keeps the summary's tables
 * (summary.c) for the names; at the end it resolves every node to a frame and hands the model
 * one sample per distinct stack, in the order the stacks were first seen, with its values:
 *
 *   alloc-bytes, alloc-count  an allocation's backtrace (outermost first, as the writer emits
 *                 it), else the thread's enter/leave stack, ending in the allocated class (a
 *                 heap-type frame); the object's size in bytes, and 1;
 *   calls, time   the enter/leave stack of each thread; a call counts when its leave matches
 *                 the top of the stack (mprof-report's pop_method), with its self time in ns;
 *   samples       a sample hit's managed frames (innermost first on the wire), ending in the
 *                 frame of the instruction pointer: the method whose code holds it (left out
 *                 when it is the innermost frame's own method), else the unmanaged symbol at or
 *                 before it (a native frame), else "unresolved 0x..." (native, with the address).
 *
 * Method frames are code frames named as mprof-report names them ("unknown method 0x..." when
 * no JIT event named the method). Threads are merged (one blank thread), as the summary's
 * tables are; the default metric is alloc-bytes.
 *
 * The timeline (log:calls), when the consumer takes slices: every enter event opens a call on
 * its thread, kept (32 bytes) until
 * the end, when the names are known; then one slice per call (so as many slices as enter
 * events), in enter order, on a track per thread (docs/design.md, "Mono timelines"). A leave
 * closes the innermost open call of its method and, above it, the calls an exception unwound
 * (Mono writes an exception leave for each frame it unwinds, so this only happens when events
 * are missing); calls still open at the end of the file, or before damage, close at the
 * thread's last time. Times are ns since the file's first time.
 *
 * GC events (log:gc), when the consumer takes slices: a collection (start to end, per thread and
 * generation, as mprof-report pairs them), the mark and reclaim phases the 2010 format writes, and
 * the world stopped for a collection (pre-stop to post-start), each a slice of kind PCD_SLICE_GC on
 * one "GC" track of the process, kept (48 bytes) until the end as the calls are; a heap resize and
 * object moves during a collection are its arguments (docs/design.md, "Mono timelines"). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/vec.h"
#include "formats/mono/mono.h"
#include "pipeline/job.h"
#include "model/aggregate.h"
#include "model/profile.h"

enum { T_ALLOC_BYTES, T_ALLOC_COUNT, T_CALLS, T_TIME, T_SAMPLES, T_N };
enum { NK_ROOT, NK_METHOD, NK_CLASS, NK_IP };

typedef struct node {
    uint32_t parent;
    uint32_t kid;             /* the child found last (0: none), tried before the map */
    uint64_t ptr;
    uint8_t kind;
    uint64_t v[T_N];
} node;

/* A call (enter/leave events): its thread (an index of s.thr), method and times (the file's
 * clock); kept until the end, when the names are known. */
typedef struct mcall {
    uint64_t method, start, end;
    uint32_t thr;
    uint8_t closed;           /* CLOSED_* */
} mcall;
enum { OPEN, CLOSED_LEAVE, CLOSED_UNWOUND, CLOSED_EOF, CLOSED_RESTARTED };

/* What a GC slice is: from which event to which (MonoProfilerGCEvent's numbers, the same in
 * both versions: events.c asserts start and end). */
enum { GC_COLLECTION, GC_MARK, GC_RECLAIM, GC_WORLD, GC_WHAT_N };
#define GC_GENS 4             /* generations 0, 1, 2 and any other (a slot each) */

/* A GC slice: kept until the end (the file's first time, the profile's origin, is known then). */
typedef struct mgc {
    uint64_t start, end;      /* the file's clock */
    uint64_t heap;            /* the heap's size after a resize during it (0: none) */
    uint64_t moves;           /* objects moved during it */
    uint32_t thr;             /* the thread that ran it (an index of s.thr) */
    uint8_t what;             /* GC_* */
    uint8_t gen;              /* the generation, as the event gives it */
    uint8_t closed;           /* OPEN, CLOSED_LEAVE (its end event), CLOSED_EOF, CLOSED_RESTARTED */
} mgc;

/* A sample hit (log:sample), kept until the end when the output shows times: its time (the
 * file's clock), the call tree's node of its stack (the same as the summed hits'), and its
 * sampled thread (an index of s.thr). 16 bytes. */
typedef struct mhit {
    uint64_t time;
    uint32_t node;
    uint32_t thr;
} mhit;
PCD_STATIC_ASSERT(sizeof(mhit) == 16, "a hit is 16 bytes");

/* A thread's calls still open (indexes into calls, outermost first) and its last time. */
typedef struct mthr {
    size_t *open;
    size_t n_open, cap_open;
    uint64_t last;
    size_t gc_open[GC_WHAT_N][GC_GENS]; /* 1 + the index in gcs of the open GC slice (0: none) */
    size_t gc_last;           /* 1 + the index in gcs of the thread's last collection (0: none) */
} mthr;

typedef struct mimport {
    pcd_job *j;
    pcd_profile *p;
    pcd_alloc *al;
    pcd_mono_sum s;           /* names, vtables, methods, threads and their stacks */
    node *nodes;
    size_t n_nodes, cap_nodes;
    pcd_hmap index;           /* (parent, kind, ptr) -> v0 node */
    pcd_mono_ev ev;
    /* the timeline: every call, in enter order, and per thread what is open */
    mcall *calls;
    size_t n_calls, cap_calls;
    mthr *th;                 /* by index of s.thr */
    size_t cap_th;
    uint64_t stray_leaves;    /* leaves of a method no open call of the thread has */
    mgc *gcs;                 /* GC slices, in the order of their start events */
    size_t n_gcs, cap_gcs;
    bool want_calls;          /* the consumer takes slices: the calls are kept (else nothing is) */
    /* the sample hits as timed samples, when the consumer shows times (else they are summed per
     * stack in the call tree, as the other metrics) */
    mhit *hits;
    size_t n_hits, cap_hits;
    bool want_hits;
} mimport;

/* The child (kind, ptr) of node parent, made if new; 0 (with s.oom) when out of memory. */
static uint32_t child_slow(mimport *k, uint32_t parent, uint8_t kind, uint64_t ptr)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&k->index, (pcd_hkey){ parent, kind, ptr }, &fresh);
    if (!sl) {
        k->s.oom = true;
        return 0;
    }
    if (fresh) {
        if (k->n_nodes >= UINT32_MAX || PCD_VEC_RESERVE(k->al, k->nodes, k->cap_nodes, k->n_nodes + 1) != PCD_OK) {
            k->s.oom = true;
            sl->v0 = 0;
            return 0;
        }
        node *n = &k->nodes[k->n_nodes];
        memset(n, 0, sizeof *n);
        n->parent = parent;
        n->kind = kind;
        n->ptr = ptr;
        sl->v0 = k->n_nodes++;
    }
    k->nodes[parent].kid = (uint32_t)sl->v0;
    return (uint32_t)sl->v0;
}

static inline uint32_t child(mimport *k, uint32_t parent, uint8_t kind, uint64_t ptr)
{
    uint32_t c = k->nodes[parent].kid;
    if (PCD_LIKELY(c && k->nodes[c].ptr == ptr && k->nodes[c].kind == kind)) return c;
    return child_slow(k, parent, kind, ptr);
}

/* The node of a thread's current call stack (enter/leave events). */
static uint32_t stack_node(const pcd_mono_thread *t) { return t->depth ? t->stack[t->depth - 1].node : 0; }

/* The timeline state of thread t (of s.thr), grown to hold it; NULL (with s.oom) when out of memory. */
static mthr *thr_of(mimport *k, const pcd_mono_thread *t)
{
    size_t i = (size_t)(t - k->s.thr);
    if (i >= k->cap_th) {
        size_t old = k->cap_th;
        if (PCD_VEC_RESERVE(k->al, k->th, k->cap_th, i + 1) != PCD_OK) {
            k->s.oom = true;
            return NULL;
        }
        memset(k->th + old, 0, (k->cap_th - old) * sizeof *k->th);
    }
    return &k->th[i];
}

/* An enter: a call opens on the thread. */
static void call_enter(mimport *k, const pcd_mono_thread *t, uint64_t method, uint64_t time)
{
    mthr *h = thr_of(k, t);
    if (!h || PCD_VEC_RESERVE(k->al, k->calls, k->cap_calls, k->n_calls + 1) != PCD_OK ||
        PCD_VEC_RESERVE(k->al, h->open, h->cap_open, h->n_open + 1) != PCD_OK) {
        k->s.oom = true;
        return;
    }
    k->calls[k->n_calls] = (mcall){ method, time, time, (uint32_t)(t - k->s.thr), OPEN };
    h->open[h->n_open++] = k->n_calls++;
    h->last = time;
}

/* A leave (or an exception's leave): closes the innermost open call of the method, and the
 * calls opened above it, which left without a leave event of their own (unwound). A leave of
 * a method with no open call (entered before the profiler started) closes nothing. */
static void call_leave(mimport *k, const pcd_mono_thread *t, uint64_t method, uint64_t time)
{
    mthr *h = thr_of(k, t);
    if (!h) return;
    h->last = time;
    size_t i = h->n_open;
    while (i > 0 && k->calls[h->open[i - 1]].method != method) i--;
    if (i == 0) {
        k->stray_leaves++;
        return;
    }
    for (size_t d = h->n_open; d-- > i;) {
        mcall *c = &k->calls[h->open[d]];
        c->end = time;
        c->closed = CLOSED_UNWOUND;
    }
    mcall *c = &k->calls[h->open[i - 1]];
    c->end = time;
    c->closed = CLOSED_LEAVE;
    h->n_open = i - 1;
}

/* A sample hit kept as timed samples (one per instruction pointer, as the summary counts them)
 * on its sampled thread; `at` is the node of its managed frames. */
static void hit(mimport *k, const pcd_mono_ev *m, uint32_t at)
{
    pcd_mono_sum *s = &k->s;
    pcd_mono_sum_time(s, m->time);
    pcd_mono_thread *t = pcd_mono_thread_at(s, m->p1);
    if (!t) return; /* (s.oom) */
    for (size_t i = 0; i < m->n_ips; i++) {
        uint32_t leaf = child(k, at, NK_IP, (uint64_t)m->ips[i]);
        if (!leaf) return; /* (s.oom) */
        if (PCD_VEC_RESERVE(k->al, k->hits, k->cap_hits, k->n_hits + 1) != PCD_OK) {
            k->s.oom = true;
            return;
        }
        k->hits[k->n_hits++] = (mhit){ m->time, leaf, (uint32_t)(t - s->thr) };
    }
}

/* A GC event (what the timeline shows of it): a start opens a GC slice on the thread, an end
 * closes the thread's open one of the same kind and generation (an end with none open, from
 * before the profiler started or after damage, closes nothing); a resize or moves are arguments
 * of the thread's collection that is open, or that ended in the world stop still open (Mono 6.8
 * resizes the heap after a collection's end, before the world starts again). */
static void gc_event(mimport *k, const pcd_mono_thread *t, const pcd_mono_ev *m)
{
    mthr *h = thr_of(k, t);
    if (!h) return;
    if (m->time > h->last) h->last = m->time;
    size_t g = m->n2 < GC_GENS - 1 ? (size_t)m->n2 : GC_GENS - 1;
    if (m->kind != PCD_MONO_EV_GC_EVENT) { /* a resize or moves */
        mgc *c = h->gc_last ? &k->gcs[h->gc_last - 1] : NULL;
        bool in = c && c->closed == OPEN;
        for (size_t i = 0; c && !in && i < GC_GENS; i++) {
            size_t w = h->gc_open[GC_WORLD][i];
            in = w && k->gcs[w - 1].start <= c->start;
        }
        if (!in) return;
        if (m->kind == PCD_MONO_EV_GC_RESIZE) c->heap = m->n1;
        else c->moves = pcd_sat_add(c->moves, m->n1 / 2); /* (the count counts addresses) */
        return;
    }
    int what = -1;
    bool start = false;
    switch (m->n1) {
    case PCD_MONO_V3_0_GC_EVENT_START: what = GC_COLLECTION, start = true; break;
    case PCD_MONO_V3_0_GC_EVENT_END: what = GC_COLLECTION; break;
    case PCD_MONO_V3_0_GC_EVENT_MARK_START: what = GC_MARK, start = true; break;
    case PCD_MONO_V3_0_GC_EVENT_MARK_END: what = GC_MARK; break;
    case PCD_MONO_V3_0_GC_EVENT_RECLAIM_START: what = GC_RECLAIM, start = true; break;
    case PCD_MONO_V3_0_GC_EVENT_RECLAIM_END: what = GC_RECLAIM; break;
    case PCD_MONO_V3_0_GC_EVENT_PRE_STOP_WORLD: what = GC_WORLD, start = true; break;
    case PCD_MONO_V3_0_GC_EVENT_POST_START_WORLD: what = GC_WORLD; break;
    default: return; /* the locks around a stop (6.x), other events */
    }
    size_t *open = &h->gc_open[what][g];
    if (*open) { /* an end or a second start: the open slice ends here */
        mgc *c = &k->gcs[*open - 1];
        c->end = m->time;
        c->closed = start ? CLOSED_RESTARTED : CLOSED_LEAVE;
        *open = 0;
    }
    if (!start) return;
    if (PCD_VEC_RESERVE(k->al, k->gcs, k->cap_gcs, k->n_gcs + 1) != PCD_OK) {
        k->s.oom = true;
        return;
    }
    k->gcs[k->n_gcs] = (mgc){ m->time, m->time, 0, 0, (uint32_t)(t - k->s.thr), (uint8_t)what,
                              (uint8_t)(m->n2 > UINT8_MAX ? UINT8_MAX : m->n2), OPEN };
    *open = ++k->n_gcs;
    if (what == GC_COLLECTION) h->gc_last = k->n_gcs;
}

static void event(mimport *k, const pcd_mono_ev *m)
{
    pcd_mono_sum *s = &k->s;
    pcd_mono_thread *t;
    switch (m->kind) {
    case PCD_MONO_EV_ENTER: {
        if (!(t = pcd_mono_cur_thread(s))) return;
        pcd_mono_sum_time(s, m->time);
        if (k->want_calls) call_enter(k, t, m->p1, m->time);
        pcd_mono_method_at(s, m->p1);
        uint32_t nd = child(k, stack_node(t), NK_METHOD, m->p1);
        pcd_mono_push_frame(s, t, m->p1, m->time, nd);
        return;
    }
    case PCD_MONO_EV_LEAVE: {
        if (!(t = pcd_mono_cur_thread(s))) return;
        pcd_mono_sum_time(s, m->time);
        if (k->want_calls) call_leave(k, t, m->p1, m->time);
        pcd_mono_method_at(s, m->p1);
        uint32_t nd = 0;
        uint64_t self = pcd_mono_pop_frame(s, t, m->p1, m->time, &nd);
        if (self != UINT64_MAX) {
            k->nodes[nd].v[T_TIME] = pcd_sat_add(k->nodes[nd].v[T_TIME], self);
            k->nodes[nd].v[T_CALLS] = pcd_sat_add(k->nodes[nd].v[T_CALLS], 1);
        }
        return;
    }
    case PCD_MONO_EV_ALLOC: {
        if (!(t = pcd_mono_cur_thread(s))) return;
        uint32_t at = 0;
        if (m->has_bt)
            for (size_t i = 0; i < m->n_bt; i++) at = child(k, at, NK_METHOD, (uint64_t)m->bt[i]);
        else
            at = stack_node(t);
        size_t ci = m->vtable ? pcd_mono_vtable_class(s, m->p1) : pcd_mono_class_at(s, m->p1);
        if (ci == SIZE_MAX) return;
        uint32_t leaf = child(k, at, NK_CLASS, s->cls[ci].ptr);
        k->nodes[leaf].v[T_ALLOC_BYTES] = pcd_sat_add(k->nodes[leaf].v[T_ALLOC_BYTES], m->n1);
        k->nodes[leaf].v[T_ALLOC_COUNT] = pcd_sat_add(k->nodes[leaf].v[T_ALLOC_COUNT], 1);
        return;
    }
    case PCD_MONO_EV_SAMPLE: {
        uint32_t at = 0;
        for (size_t i = m->n_bt; i-- > 0;) at = child(k, at, NK_METHOD, (uint64_t)m->bt[i]);
        if (k->want_hits) {
            hit(k, m, at);
            return;
        }
        for (size_t i = 0; i < m->n_ips; i++) {
            uint32_t leaf = child(k, at, NK_IP, (uint64_t)m->ips[i]);
            k->nodes[leaf].v[T_SAMPLES] = pcd_sat_add(k->nodes[leaf].v[T_SAMPLES], 1);
        }
        return;
    }
    default:
        /* names, vtables, JIT events, unmanaged symbols: the tables; a timed event is the
         * thread's last time so far (where its calls still open at the end close) */
        pcd_mono_sum_event(s, m);
        if (k->want_calls && (m->kind == PCD_MONO_EV_GC_EVENT || m->kind == PCD_MONO_EV_GC_RESIZE ||
                              m->kind == PCD_MONO_EV_GC_MOVE)) {
            if ((t = pcd_mono_cur_thread(s))) gc_event(k, t, m);
            return;
        }
        if (m->has_time && (k->n_calls || k->n_gcs) && (t = pcd_mono_cur_thread(s))) {
            mthr *h = thr_of(k, t);
            if (h && m->time > h->last) h->last = m->time;
        }
        return;
    }
}

static pcd_status on_record(void *ud, const pcd_record *rec)
{
    mimport *k = ud;
    const pcd_type *t = rec->type;
    if (t == &pcd_mono_v3_0_event_type && rec->data) {
        pcd_mono_norm_v3_0(rec->data, &k->ev);
        event(k, &k->ev);
    } else if (t == &pcd_mono_v0_1_event_type && rec->data) {
        pcd_mono_norm_v0_1(rec->data, &k->ev);
        event(k, &k->ev);
    } else {
        pcd_mono_sum_record(&k->s, rec, &k->ev); /* the header, a buffer */
    }
    return PCD_UNLIKELY(k->s.oom) ? PCD_E_NOMEM : PCD_OK;
}

/* ---- the end: names, frames, samples -------------------------------------------------------- */

typedef struct resolver {
    mimport *k;
    pcd_profile *p;
    pcd_hmap memo;            /* (kind, ptr, 0) -> v0 frame + 1 */
} resolver;

static pcd_frame_id named_frame(pcd_profile *p, pcd_frame_kind kind, const char *name, uint64_t address)
{
    pcd_frame f = pcd_frame_blank(kind);
    f.function = pcd_profile_strz(p, name);
    f.address = address;
    return pcd_profile_frame(p, &f);
}

/* The frame of a method, class or instruction pointer; *managed: an ip in a method's code. */
static pcd_frame_id frame_of(resolver *r, uint8_t kind, uint64_t ptr, bool *managed)
{
    const pcd_mono_sum *s = &r->k->s;
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&r->memo, (pcd_hkey){ kind, ptr, 0 }, &fresh);
    if (!sl) {
        r->p->oom = PCD_E_NOMEM;
        return 0;
    }
    if (!fresh) {
        *managed = sl->v1 != 0;
        return (pcd_frame_id)(sl->v0 - 1);
    }
    char tmp[64];
    pcd_frame_id f;
    *managed = false;
    switch (kind) {
    case NK_METHOD: f = named_frame(r->p, PCD_FRAME_CODE, pcd_mono_method_name(s, ptr, tmp, sizeof tmp), 0); break;
    case NK_CLASS: f = named_frame(r->p, PCD_FRAME_TYPE, pcd_mono_class_name(s, ptr, tmp, sizeof tmp), 0); break;
    default: {
        const char *nm = pcd_mono_ip_name(s, ptr, managed);
        if (nm) {
            f = named_frame(r->p, *managed ? PCD_FRAME_CODE : PCD_FRAME_NATIVE, nm, 0);
        } else {
            snprintf(tmp, sizeof tmp, "unresolved 0x%" PRIx64, ptr);
            f = named_frame(r->p, PCD_FRAME_NATIVE, tmp, ptr);
        }
        break;
    }
    }
    sl->v0 = (uint64_t)f + 1;
    sl->v1 = *managed;
    return f;
}

/* The sample types (the same for every file), then the consumer's begin: a --metric that names
 * none of them is refused before the file is read. */
static pcd_status begin(pcd_profile *p)
{
    int types[T_N];
    types[T_ALLOC_BYTES] = pcd_profile_add_type(p, "alloc-bytes", "bytes", "Allocated bytes");
    types[T_ALLOC_COUNT] = pcd_profile_add_type(p, "alloc-count", "count", "Allocations");
    types[T_CALLS] = pcd_profile_add_type(p, "calls", "count", "Calls");
    types[T_TIME] = pcd_profile_add_type(p, "time", "nanoseconds", "Self time");
    types[T_SAMPLES] = pcd_profile_add_type(p, "samples", "count", "Sample hits");
    for (int i = 0; i < T_N; i++)
        if (types[i] != i) return PCD_E_INTERNAL;
    /* counts kept beside an amount (objects beside bytes, calls beside time) */
    p->types[T_ALLOC_COUNT].secondary = true;
    p->types[T_CALLS].secondary = true;
    p->default_type = T_ALLOC_BYTES;
    p->sample_noun = PCD_NOUN_STACKS; /* the call tree summed per distinct stack */
    p->dialect = PCD_DIALECT_DEFAULT;
    return pcd_profile_begin(p);
}

/* ns since the first time of the file (the profile's time origin is not known: Mono's clock is
 * the system's monotonic one) */
static int64_t rel_time(const pcd_mono_sum *s, uint64_t t)
{
    uint64_t d = s->have_time && t >= s->first_time ? t - s->first_time : 0;
    return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
}

/* The timeline: a slice per call, in enter order, on its thread's track (the header's process
 * id, the thread's id and name), named by its method as the call tree names it. Calls still
 * open at the end of the file (or of what could be read before damage) close at the thread's
 * last time; a slice closed other than by its own leave says how in its argument "closed". */
/* The model thread of Mono thread i (of s.thr): its track (the header's process id, the thread's
 * id and name), apart from the call tree's blank thread; made on first use (track[i]). */
static uint32_t track_new(mimport *k, pcd_profile *p, uint32_t *track, uint32_t i)
{
    const pcd_mono_sum *s = &k->s;
    const pcd_mono_thread *mt = &s->thr[i];
    pcd_thread th = pcd_thread_blank();
    th.pid = s->version == 3 ? (int64_t)(s->pid & INT64_MAX) : PCD_ID_NONE;
    th.tid = mt->id;
    th.has_tid = true;
    th.key = 1; /* apart from the call tree's blank thread */
    const char *nm = pcd_mono_name(&s->names, mt->name);
    if (nm) th.name = pcd_profile_strz(p, nm);
    return track[i] = pcd_profile_thread(p, &th);
}

/* (inline: once per call and per hit) */
PCD_INLINE uint32_t track_of(mimport *k, pcd_profile *p, uint32_t *track, uint32_t i)
{
    if (PCD_LIKELY(track[i] != UINT32_MAX)) return track[i];
    return track_new(k, p, track, i);
}

static pcd_status emit_calls(mimport *k, pcd_profile *p, uint32_t *track)
{
    const pcd_mono_sum *s = &k->s;
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < k->cap_th && i < s->n_thr; i++) {
        mthr *h = &k->th[i];
        for (size_t d = h->n_open; d-- > 0;) {
            mcall *c = &k->calls[h->open[d]];
            c->end = h->last;
            c->closed = CLOSED_EOF;
        }
        h->n_open = 0;
    }
    pcd_str cat = pcd_profile_strz(p, "mono"), key = pcd_profile_strz(p, "closed");
    /* begun before the texts are taken (the outputs' begin interns strings: the pool may move) */
    if (st == PCD_OK) st = pcd_profile_begin(p);
    static const char *const how[] = { "", "", "unwound", "end of input" };
    for (size_t i = 0; i < k->n_calls && st == PCD_OK; i++) {
        const mcall *c = &k->calls[i];
        uint32_t tr = track_of(k, p, track, c->thr);
        char tmp[64];
        const char *name = pcd_mono_method_name(s, c->method, tmp, sizeof tmp);
        pcd_slice sl;
        memset(&sl, 0, sizeof sl);
        sl.track = tr;
        sl.start = rel_time(s, c->start);
        sl.end = rel_time(s, c->end);
        if (sl.end < sl.start) sl.end = sl.start; /* a clock that went back (a damaged file) */
        sl.name = (pcd_bytes){ (const uint8_t *)name, strlen(name) };
        sl.category = pcd_profile_text(p, cat);
        pcd_arg a;
        if (c->closed == CLOSED_UNWOUND || c->closed == CLOSED_EOF) {
            a.key = pcd_profile_text(p, key);
            a.type = PCD_ARG_STR;
            a.v.s = (pcd_bytes){ (const uint8_t *)how[c->closed], strlen(how[c->closed]) };
            sl.args = &a;
            sl.n_args = 1;
        }
        sl.offset = 0;
        st = p->oom ? p->oom : pcd_profile_slice(p, &sl);
    }
    return st;
}

/* Hits by time (stable: hits of one time keep their file order), merged bottom-up through tmp. */
static void sort_hits(mhit *a, mhit *tmp, size_t n)
{
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) tmp[o++] = a[j].time < a[i].time ? a[j++] : a[i++];
            while (i < mid) tmp[o++] = a[i++];
            while (j < hi) tmp[o++] = a[j++];
        }
        memcpy(a, tmp, n * sizeof *a);
    }
}

/* The sample hits: one timed sample each (samples 1), in time order, on its sampled thread's
 * track, with the stack the call tree gives its node (ms). */
static pcd_status emit_hits(mimport *k, pcd_profile *p, uint32_t *track, const uint32_t *ms)
{
    bool sorted = true;
    for (size_t i = 1; i < k->n_hits && sorted; i++) sorted = k->hits[i - 1].time <= k->hits[i].time;
    if (!sorted) {
        mhit *tmp = pcd_alloc_get(k->al, k->n_hits * sizeof *tmp);
        if (!tmp) return PCD_E_NOMEM;
        sort_hits(k->hits, tmp, k->n_hits);
        pcd_alloc_free(k->al, tmp, k->n_hits * sizeof *tmp);
    }
    uint64_t one[T_N] = { 0 };
    one[T_SAMPLES] = 1;
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < k->n_hits && st == PCD_OK; i++) {
        const mhit *h = &k->hits[i];
        pcd_sample sm;
        memset(&sm, 0, sizeof sm);
        sm.thread = track_of(k, p, track, h->thr);
        sm.stack = ms[h->node];
        sm.time = rel_time(&k->s, h->time);
        sm.count = 1;
        sm.values = one;
        sm.flags = PCD_SAMPLE_HAS(T_SAMPLES);
        st = p->oom ? p->oom : pcd_profile_sample(p, &sm);
    }
    return st;
}

/* The GC slices, in the order of their start events, on one track of the process named "GC"
 * (the thread that ran each is its argument "thread"): a collection named by its generation
 * ("Gen1 collection", as mprof-report counts them), "Mark", "Reclaim" (the 2010 format's phases)
 * and "World stopped"; each with its generation, a collection with the heap's size after a
 * resize and the objects moved during it. A slice whose end event never came closes at its
 * thread's last time ("closed": "end of input"), or where the next start of its kind came
 * ("closed": "restarted"). */
static pcd_status emit_gcs(mimport *k, pcd_profile *p)
{
    const pcd_mono_sum *s = &k->s;
    static const char *const what[GC_WHAT_N] = { "collection", "Mark", "Reclaim", "World stopped" };
    static const char *const how[] = { "", "", "unwound", "end of input", "restarted" };
    pcd_thread th = pcd_thread_blank();
    th.pid = s->version == 3 ? (int64_t)(s->pid & INT64_MAX) : PCD_ID_NONE;
    th.key = 2; /* apart from the call tree's thread and the calls' tracks */
    th.name = pcd_profile_strz(p, "GC");
    pcd_thread_id track = pcd_profile_thread(p, &th);
    /* (texts of our own, not the profile's strings: a consumer that interns a string may move those) */
#define LIT(x) ((pcd_bytes){ (const uint8_t *)(x), sizeof(x) - 1 })
    pcd_status st = p->oom;
    for (size_t i = 0; i < k->n_gcs && st == PCD_OK; i++) {
        mgc *c = &k->gcs[i];
        if (c->closed == OPEN) {
            c->end = c->thr < k->cap_th ? k->th[c->thr].last : c->start;
            c->closed = CLOSED_EOF;
        }
        char name[48], tid[24];
        if (c->what == GC_COLLECTION) snprintf(name, sizeof name, "Gen%u collection", (unsigned)c->gen);
        else snprintf(name, sizeof name, "%s", what[c->what]);
        snprintf(tid, sizeof tid, "0x%" PRIx64, s->thr[c->thr].id);
        pcd_arg a[5];
        size_t n = 0;
        a[n].key = LIT("generation"), a[n].type = PCD_ARG_U64, a[n++].v.u = c->gen;
        a[n].key = LIT("thread"), a[n].type = PCD_ARG_STR;
        a[n++].v.s = (pcd_bytes){ (const uint8_t *)tid, strlen(tid) };
        if (c->heap) a[n].key = LIT("heap_size"), a[n].type = PCD_ARG_U64, a[n++].v.u = c->heap;
        if (c->moves) a[n].key = LIT("moved_objects"), a[n].type = PCD_ARG_U64, a[n++].v.u = c->moves;
        if (c->closed != CLOSED_LEAVE) {
            a[n].key = LIT("closed"), a[n].type = PCD_ARG_STR;
            a[n++].v.s = (pcd_bytes){ (const uint8_t *)how[c->closed], strlen(how[c->closed]) };
        }
        pcd_slice sl;
        memset(&sl, 0, sizeof sl);
        sl.kind = PCD_SLICE_GC;
        sl.track = track;
        sl.start = rel_time(s, c->start);
        sl.end = rel_time(s, c->end);
        if (sl.end < sl.start) sl.end = sl.start; /* a clock that went back (a damaged file) */
        sl.name = (pcd_bytes){ (const uint8_t *)name, strlen(name) };
        sl.category = LIT("gc");
        sl.args = a;
        sl.n_args = n;
        st = p->oom ? p->oom : pcd_profile_slice(p, &sl);
    }
#undef LIT
    return st;
}

static pcd_status finish(mimport *k, pcd_profile *p)
{
    pcd_alloc *al = k->al;
    pcd_mono_sort_usyms(&k->s);

    /* the model stack of every node, in node order (a parent comes before its children) */
    resolver r = { k, p, { 0 } };
    pcd_hmap_init(&r.memo, al);
    uint32_t *ms = pcd_alloc_get(al, k->n_nodes * sizeof *ms);
    pcd_agg agg;
    pcd_agg_init(&agg, al, T_N);
    pcd_thread blank = pcd_thread_blank();
    pcd_thread_id th = pcd_profile_thread(p, &blank);
    pcd_status st = !ms ? PCD_E_NOMEM : p->oom;
    if (st == PCD_OK) ms[0] = PCD_STACK_EMPTY;
    for (size_t i = 1; i < k->n_nodes && st == PCD_OK; i++) {
        const node *n = &k->nodes[i];
        bool managed;
        pcd_frame_id f = frame_of(&r, n->kind, n->ptr, &managed);
        pcd_stack_id parent = ms[n->parent];
        /* a managed hit in the innermost frame's own method adds nothing */
        if (n->kind == NK_IP && managed && k->nodes[n->parent].kind == NK_METHOD && parent != PCD_STACK_EMPTY &&
            pcd_stack_frame(p, parent) == f)
            ms[i] = parent;
        else
            ms[i] = pcd_profile_push(p, parent, f);
        if (p->oom) {
            st = p->oom;
            break;
        }
        bool any = false;
        for (int t = 0; t < T_N; t++) any |= n->v[t] != 0;
        if (any) st = pcd_agg_add(&agg, th, ms[i], n->v, 1);
    }
    /* which types have values, before the first sample (so that the default is one of them) */
    uint32_t valued = k->n_hits ? 1u << T_SAMPLES : 0;
    for (size_t i = 0; i < agg.n; i++)
        for (int t = 0; t < T_N; t++)
            if (pcd_agg_value(&agg, i, t)) valued |= 1u << t;
    if (st == PCD_OK) pcd_profile_values_ahead(p, valued);
    /* a sampling log whose hits are timed samples: its samples are the hits, not stacks' sums */
    if (k->n_hits && !agg.n) p->sample_noun = PCD_NOUN_SAMPLES;
    /* one sample per distinct stack, with its sums */
    uint64_t vals[T_N];
    for (size_t i = 0; i < agg.n && st == PCD_OK; i++) {
        pcd_sample sm;
        memset(&sm, 0, sizeof sm);
        sm.thread = th;
        sm.stack = agg.e[i].stack;
        sm.time = PCD_TIME_NONE;
        sm.count = 1;
        pcd_agg_get(&agg, i, vals);
        sm.values = vals;
        for (int t = 0; t < T_N; t++)
            if (sm.values[t]) sm.flags |= PCD_SAMPLE_HAS(t);
        st = pcd_profile_sample(p, &sm);
    }
    /* then the timeline: the calls (slices), the hits (timed samples), on a track per thread,
     * made in the order of its first call, then of its first hit */
    uint32_t *track = NULL;
    size_t n_track = k->s.n_thr ? k->s.n_thr : 1;
    if (st == PCD_OK && (k->n_calls || k->n_hits)) {
        track = pcd_alloc_get(al, n_track * sizeof *track);
        if (!track) st = PCD_E_NOMEM;
        else memset(track, 0xff, n_track * sizeof *track);
    }
    if (st == PCD_OK && k->n_calls) st = emit_calls(k, p, track);
    if (st == PCD_OK && k->n_hits) st = emit_hits(k, p, track, ms);
    if (track) pcd_alloc_free(al, track, n_track * sizeof *track);
    if (st == PCD_OK && k->n_gcs) st = emit_gcs(k, p);
    pcd_agg_free(&agg);
    if (ms) pcd_alloc_free(al, ms, k->n_nodes * sizeof *ms);
    pcd_hmap_free(&r.memo);
    return st;
}

static pcd_status mono_begin(void *ctx, pcd_job *j, pcd_profile *p, pcd_reader **from)
{
    (void)from;
    mimport *k = ctx;
    k->j = j;
    k->p = p;
    k->al = j->al;
    pcd_mono_sum_init(&k->s, j->al);
    pcd_hmap_init(&k->index, j->al);
    /* an output that takes no slices (collapsed, pprof, the pictures...) costs no memory per call */
    k->want_calls = p->consumer.slice != NULL;
    /* an output that shows times (chrome, perfetto, firefox, the page's time order, the tables)
     * gets the sample hits as timed samples; the others get them summed per stack */
    k->want_hits = (p->consumer.needs & PCD_NEEDS_TIMELINE) != 0;
    pcd_status st = begin(p);
    if (st == PCD_OK) st = PCD_VEC_RESERVE(j->al, k->nodes, k->cap_nodes, 1);
    if (st == PCD_OK) {
        memset(&k->nodes[0], 0, sizeof k->nodes[0]);
        k->nodes[0].kind = NK_ROOT;
        k->n_nodes = 1;
    }
    return st;
}

static pcd_status mono_end(void *ctx, pcd_status st)
{
    mimport *k = ctx;
    pcd_job *j = k->j;
    if (st == PCD_OK) st = finish(k, k->p);
    if (st == PCD_E_NOMEM && !j->msg[0])
        pcd_job_fail(j, st, "out of memory for the names, the call tree, the calls, the sample hits and GC events (raise --max-memory)");
    PCD_VEC_FREE(j->al, k->nodes, k->cap_nodes);
    for (size_t i = 0; i < k->cap_th; i++) PCD_VEC_FREE(j->al, k->th[i].open, k->th[i].cap_open);
    PCD_VEC_FREE(j->al, k->th, k->cap_th);
    PCD_VEC_FREE(j->al, k->calls, k->cap_calls);
    PCD_VEC_FREE(j->al, k->hits, k->cap_hits);
    PCD_VEC_FREE(j->al, k->gcs, k->cap_gcs);
    pcd_hmap_free(&k->index);
    pcd_mono_sum_fini(&k->s);
    return st;
}

const pcd_model_importer pcd_mono_model = { PCD_HAS_SAMPLES | PCD_HAS_CODE | PCD_HAS_SLICES | PCD_HAS_SOME_TIMES, sizeof(mimport), mono_begin, on_record,
                                            mono_end };
