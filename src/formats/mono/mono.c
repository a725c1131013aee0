/* formats/mono/mono.c: Mono log profiler files above the bytes: the info summary (what mprof-report
 * prints, as data) and collapsed-stack / speedscope output. Both versions (0.1 of 2010,
 * 3.0 / data 17 of Mono 6.x) are first turned into one neutral event (mono_ev). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mono_v0_1.h"
#include "mono_v3_0.h"
#include "formats/registry.h"
#include "common/hmap.h"

/* ---- one neutral event ------------------------------------------------------------ */

enum {
    MK_NONE, MK_ALLOC, MK_GC_EVENT, MK_GC_RESIZE, MK_GC_MOVE, MK_HANDLE_NEW, MK_HANDLE_FREE, MK_META,
    MK_ENTER, MK_LEAVE, MK_JIT, MK_THROW, MK_CLAUSE, MK_MONITOR, MK_SAMPLE, MK_USYM, MK_HELPER, MK_OTHER
};
enum { MT_CLASS = 1, MT_IMAGE, MT_ASSEMBLY, MT_DOMAIN, MT_THREAD, MT_CONTEXT, MT_VTABLE };
enum { META_NAME, META_LOAD, META_UNLOAD, META_START, META_ERR };

typedef struct mono_ev {
    int kind;
    bool has_time;
    uint64_t time;
    uint64_t p1, p2;          /* alloc: class or vtable; meta: pointer, class (vtable); jit: method, code */
    uint64_t n1, n2;          /* sizes, kinds, generations, counts */
    bool vtable;              /* alloc: p1 is a MonoVTable* (data 15+), not a MonoClass* */
    int mtype, msub;
    pcd_bytes name;
    bool has_bt;
    const int64_t *bt;        /* innermost first */
    size_t n_bt;
    const int64_t *ips;
    size_t n_ips;
} mono_ev;

#define SET_BT(ev, b, n) ((ev)->has_bt = true, (ev)->bt = (b), (ev)->n_bt = (n))

static void norm_v0_1(const pcd_mono_v0_1_event *e, mono_ev *m)
{
    memset(m, 0, sizeof *m);
    m->has_time = true;
    switch (e->which) {
    case PCD_MONO_V0_1_EVENT_ALLOC:
        m->kind = MK_ALLOC, m->time = e->u.alloc.time, m->p1 = (uint64_t)e->u.alloc.class, m->n1 = e->u.alloc.size;
        break;
    case PCD_MONO_V0_1_EVENT_ALLOC_BT: {
        const pcd_mono_v0_1_event_alloc_bt *a = &e->u.alloc_bt;
        m->kind = MK_ALLOC, m->time = a->time, m->p1 = (uint64_t)a->class, m->n1 = a->size;
        SET_BT(m, a->backtrace.frames, a->backtrace.n_frames);
        break;
    }
    case PCD_MONO_V0_1_EVENT_GC_EVENT:
        m->kind = MK_GC_EVENT, m->time = e->u.gc_event.time, m->n1 = e->u.gc_event.event, m->n2 = e->u.gc_event.generation;
        break;
    case PCD_MONO_V0_1_EVENT_GC_RESIZE:
        m->kind = MK_GC_RESIZE, m->time = e->u.gc_resize.time, m->n1 = e->u.gc_resize.heap_size;
        break;
    case PCD_MONO_V0_1_EVENT_GC_MOVE:
        m->kind = MK_GC_MOVE, m->time = e->u.gc_move.time, m->n1 = e->u.gc_move.n_objects;
        break;
#define META01(C, M, SUB)                                                                          \
    case C: {                                                                                      \
        const __typeof__(e->u.M) *x = &e->u.M;                                                     \
        m->kind = MK_META, m->time = x->time, m->mtype = x->mtype, m->msub = SUB, m->p1 = (uint64_t)x->pointer; \
        if (x->mtype == MT_CLASS) m->name = x->detail.u.class.name;                                \
        else m->name = x->detail.u.image.name;                                                     \
        break;                                                                                     \
    }
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_LOAD, metadata_start_load, META_START)
        META01(PCD_MONO_V0_1_EVENT_METADATA_LOAD, metadata_load, META_LOAD)
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_UNLOAD, metadata_start_unload, META_START)
        META01(PCD_MONO_V0_1_EVENT_METADATA_UNLOAD, metadata_unload, META_UNLOAD)
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_LOAD_ERR, metadata_start_load_err, META_ERR)
        META01(PCD_MONO_V0_1_EVENT_METADATA_LOAD_ERR, metadata_load_err, META_ERR)
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_UNLOAD_ERR, metadata_start_unload_err, META_ERR)
        META01(PCD_MONO_V0_1_EVENT_METADATA_UNLOAD_ERR, metadata_unload_err, META_ERR)
    case PCD_MONO_V0_1_EVENT_METHOD_ENTER:
        m->kind = MK_ENTER, m->time = e->u.method_enter.time, m->p1 = (uint64_t)e->u.method_enter.method;
        break;
    case PCD_MONO_V0_1_EVENT_METHOD_LEAVE:
        m->kind = MK_LEAVE, m->time = e->u.method_leave.time, m->p1 = (uint64_t)e->u.method_leave.method;
        break;
    case PCD_MONO_V0_1_EVENT_METHOD_EXC_LEAVE:
        m->kind = MK_LEAVE, m->time = e->u.method_exc_leave.time, m->p1 = (uint64_t)e->u.method_exc_leave.method;
        break;
    case PCD_MONO_V0_1_EVENT_JIT:
        m->kind = MK_JIT, m->time = e->u.jit.time, m->p1 = (uint64_t)e->u.jit.method, m->p2 = (uint64_t)e->u.jit.code;
        m->n1 = e->u.jit.code_size, m->name = e->u.jit.name;
        break;
    case PCD_MONO_V0_1_EVENT_THROW:
        m->kind = MK_THROW, m->time = e->u.throw.time;
        break;
    case PCD_MONO_V0_1_EVENT_THROW_BT:
        m->kind = MK_THROW, m->time = e->u.throw_bt.time;
        SET_BT(m, e->u.throw_bt.backtrace.frames, e->u.throw_bt.backtrace.n_frames);
        break;
    case PCD_MONO_V0_1_EVENT_CLAUSE:
        m->kind = MK_CLAUSE, m->time = e->u.clause.time, m->n1 = e->u.clause.clause_type, m->p1 = (uint64_t)e->u.clause.method;
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_CONTENTION:
        m->kind = MK_MONITOR, m->time = e->u.monitor_contention.time, m->n1 = 1;
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_CONTENTION_BT:
        m->kind = MK_MONITOR, m->time = e->u.monitor_contention_bt.time, m->n1 = 1;
        SET_BT(m, e->u.monitor_contention_bt.backtrace.frames, e->u.monitor_contention_bt.backtrace.n_frames);
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_DONE:
        m->kind = MK_MONITOR, m->time = e->u.monitor_done.time, m->n1 = 2;
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_FAIL:
        m->kind = MK_MONITOR, m->time = e->u.monitor_fail.time, m->n1 = 3;
        break;
    case PCD_MONO_V0_1_EVENT_HEAP_START:
        m->kind = MK_OTHER, m->time = e->u.heap_start.time;
        break;
    case PCD_MONO_V0_1_EVENT_HEAP_END:
        m->kind = MK_OTHER, m->time = e->u.heap_end.time;
        break;
    default:
        m->kind = MK_OTHER, m->has_time = false; /* heap objects carry no time in 0.1 */
        break;
    }
}

static void norm_v3_0(const pcd_mono_v3_0_event *e, mono_ev *m)
{
    memset(m, 0, sizeof *m);
    m->has_time = true;
    /* every case of this version starts with its time */
    memcpy(&m->time, &e->u, sizeof m->time);
    m->kind = MK_OTHER;
    switch (e->which) {
    case PCD_MONO_V3_0_EVENT_ALLOC:
        m->kind = MK_ALLOC, m->vtable = true, m->p1 = (uint64_t)e->u.alloc.vtable, m->n1 = e->u.alloc.size;
        break;
    case PCD_MONO_V3_0_EVENT_ALLOC_BT:
        m->kind = MK_ALLOC, m->vtable = true, m->p1 = (uint64_t)e->u.alloc_bt.vtable, m->n1 = e->u.alloc_bt.size;
        SET_BT(m, e->u.alloc_bt.backtrace, e->u.alloc_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_GC_EVENT:
        m->kind = MK_GC_EVENT, m->n1 = e->u.gc_event.event, m->n2 = e->u.gc_event.generation;
        break;
    case PCD_MONO_V3_0_EVENT_GC_RESIZE:
        m->kind = MK_GC_RESIZE, m->n1 = e->u.gc_resize.heap_size;
        break;
    case PCD_MONO_V3_0_EVENT_GC_MOVE:
        m->kind = MK_GC_MOVE, m->n1 = e->u.gc_move.n_objects;
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_CREATED:
        m->kind = MK_HANDLE_NEW, m->n1 = e->u.gc_handle_created.handle_type;
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_CREATED_BT:
        m->kind = MK_HANDLE_NEW, m->n1 = e->u.gc_handle_created_bt.handle_type;
        SET_BT(m, e->u.gc_handle_created_bt.backtrace, e->u.gc_handle_created_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_DESTROYED:
        m->kind = MK_HANDLE_FREE, m->n1 = e->u.gc_handle_destroyed.handle_type;
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_DESTROYED_BT:
        m->kind = MK_HANDLE_FREE, m->n1 = e->u.gc_handle_destroyed_bt.handle_type;
        SET_BT(m, e->u.gc_handle_destroyed_bt.backtrace, e->u.gc_handle_destroyed_bt.n_backtrace);
        break;
#define META30(C, M, SUB, PFX)                                                                     \
    case C: {                                                                                      \
        const __typeof__(e->u.M) *x = &e->u.M;                                                     \
        m->kind = MK_META, m->mtype = x->mtype, m->msub = SUB, m->p1 = (uint64_t)x->pointer;      \
        switch (x->detail.which) {                                                                 \
        case PFX##_CLASS: m->name = x->detail.u.class.name; break;                                \
        case PFX##_IMAGE: m->name = x->detail.u.image.name; break;                                \
        case PFX##_ASSEMBLY: m->name = x->detail.u.assembly.name; break;                          \
        case PFX##_VTABLE: m->p2 = (uint64_t)x->detail.u.vtable.class; break;                     \
        case PFX##_CONTEXT: m->p2 = (uint64_t)x->detail.u.context.domain; break;                  \
        default: break;                                                                            \
        }                                                                                          \
        break;                                                                                     \
    }
        META30(PCD_MONO_V3_0_EVENT_METADATA_LOAD, metadata_load, META_LOAD, PCD_MONO_V3_0_EVENT_METADATA_LOAD_DETAIL)
        META30(PCD_MONO_V3_0_EVENT_METADATA_UNLOAD, metadata_unload, META_UNLOAD, PCD_MONO_V3_0_EVENT_METADATA_UNLOAD_DETAIL)
    case PCD_MONO_V3_0_EVENT_METADATA_NAME: {
        const pcd_mono_v3_0_event_metadata_name *x = &e->u.metadata_name;
        m->kind = MK_META, m->mtype = x->mtype, m->msub = META_NAME, m->p1 = (uint64_t)x->pointer;
        switch (x->detail.which) {
        case PCD_MONO_V3_0_EVENT_METADATA_NAME_DETAIL_CLASS: m->name = x->detail.u.class.name; break;
        case PCD_MONO_V3_0_EVENT_METADATA_NAME_DETAIL_IMAGE: m->name = x->detail.u.image.name; break;
        case PCD_MONO_V3_0_EVENT_METADATA_NAME_DETAIL_ASSEMBLY: m->name = x->detail.u.assembly.name; break;
        case PCD_MONO_V3_0_EVENT_METADATA_NAME_DETAIL_DOMAIN: m->name = x->detail.u.domain.name; break;
        case PCD_MONO_V3_0_EVENT_METADATA_NAME_DETAIL_THREAD: m->name = x->detail.u.thread.name; break;
        case PCD_MONO_V3_0_EVENT_METADATA_NAME_DETAIL_VTABLE: m->p2 = (uint64_t)x->detail.u.vtable.class; break;
        case PCD_MONO_V3_0_EVENT_METADATA_NAME_DETAIL_CONTEXT: m->p2 = (uint64_t)x->detail.u.context.domain; break;
        default: break;
        }
        break;
    }
    case PCD_MONO_V3_0_EVENT_METHOD_ENTER:
        m->kind = MK_ENTER, m->p1 = (uint64_t)e->u.method_enter.method;
        break;
    case PCD_MONO_V3_0_EVENT_METHOD_LEAVE:
        m->kind = MK_LEAVE, m->p1 = (uint64_t)e->u.method_leave.method;
        break;
    case PCD_MONO_V3_0_EVENT_METHOD_EXC_LEAVE:
        m->kind = MK_LEAVE, m->p1 = (uint64_t)e->u.method_exc_leave.method;
        break;
    case PCD_MONO_V3_0_EVENT_JIT:
        m->kind = MK_JIT, m->p1 = (uint64_t)e->u.jit.method, m->p2 = (uint64_t)e->u.jit.code;
        m->n1 = e->u.jit.code_size, m->name = e->u.jit.name;
        break;
    case PCD_MONO_V3_0_EVENT_THROW:
        m->kind = MK_THROW;
        break;
    case PCD_MONO_V3_0_EVENT_THROW_BT:
        m->kind = MK_THROW;
        SET_BT(m, e->u.throw_bt.backtrace, e->u.throw_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_CLAUSE:
        m->kind = MK_CLAUSE, m->n1 = e->u.clause.clause_type, m->p1 = (uint64_t)e->u.clause.method;
        break;
    case PCD_MONO_V3_0_EVENT_MONITOR:
        m->kind = MK_MONITOR, m->n1 = e->u.monitor.event;
        break;
    case PCD_MONO_V3_0_EVENT_MONITOR_BT:
        m->kind = MK_MONITOR, m->n1 = e->u.monitor_bt.event;
        SET_BT(m, e->u.monitor_bt.backtrace, e->u.monitor_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_SAMPLE_HIT:
        m->kind = MK_SAMPLE, m->ips = e->u.sample_hit.ips, m->n_ips = e->u.sample_hit.n_ips;
        SET_BT(m, e->u.sample_hit.frames, e->u.sample_hit.n_frames);
        break;
    case PCD_MONO_V3_0_EVENT_SAMPLE_USYM:
        m->kind = MK_USYM, m->p1 = (uint64_t)e->u.sample_usym.address, m->n1 = e->u.sample_usym.size;
        m->name = e->u.sample_usym.name;
        break;
    case PCD_MONO_V3_0_EVENT_JIT_HELPER:
        m->kind = MK_HELPER, m->n1 = e->u.jit_helper.size;
        break;
    default: break;
    }
}

/* ---- names (copied: records are valid until the next one) ------------------------- */

typedef struct strpool {
    char *buf;
    size_t len, cap;
} strpool;

/* The stored name ref if it already holds these bytes, else a new one (names repeat: a
 * file whose buffers repeat would otherwise grow the pool with every copy). */
static uint64_t sp_add(strpool *s, const uint8_t *p, size_t n);
static uint64_t sp_keep(strpool *s, uint64_t ref, const uint8_t *p, size_t n)
{
    if (ref && strlen(s->buf + ref - 1) == n && (n == 0 || memcmp(s->buf + ref - 1, p, n) == 0)) return ref;
    return sp_add(s, p, n);
}

/* Appends and returns an offset + 1 (0 means "no name"). */
static uint64_t sp_add(strpool *s, const uint8_t *p, size_t n)
{
    if (s->len + n + 1 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1 << 16;
        while (nc < s->len + n + 1) nc *= 2;
        char *nb = realloc(s->buf, nc);
        if (!nb) return 0;
        s->buf = nb;
        s->cap = nc;
    }
    size_t at = s->len;
    if (n) memcpy(s->buf + at, p, n);
    s->buf[at + n] = 0;
    s->len += n + 1;
    return at + 1;
}
static const char *sp_get(const strpool *s, uint64_t ref) { return ref ? s->buf + ref - 1 : NULL; }

/* ---- what mprof-report keeps -------------------------------------------------------- */

typedef struct frame {
    uint64_t method, start, callee;
    uint32_t node;            /* converters: the call-tree node of this frame */
} frame;

typedef struct thread_st {
    uint64_t id;
    uint64_t name;            /* strpool ref */
    frame *stack;
    size_t depth, cap;
    uint64_t gc_start[3];
    uint32_t root;            /* converters: this thread's call-tree root */
} thread_st;

typedef struct usym {
    uint64_t addr, size, name;
} usym;

#define VT_CACHE 1024

typedef struct mono_sum {
    int version;              /* 1 (0.1) or 3 (3.0) */
    strpool names;
    /* header */
    uint8_t major, minor, data_version, ptr_size;
    uint64_t startup_ms, pid, port, timer_overhead;
    uint64_t args, arch, os;  /* strpool refs */
    uint64_t buffers, events;
    uint64_t first_time, last_time;
    bool have_time;
    /* current buffer */
    uint64_t cur_thread;
    size_t cur_index;
    /* tables keyed by pointer: classes (v0 name, v1 allocs, c: bytes in a second map),
     * vtables -> class, methods, threads */
    pcd_hmap classes;         /* (class,0,0) -> v0 name ref, v1 index into cls[] */
    struct { uint64_t ptr, name, allocs, bytes; } *cls;
    size_t n_cls, cap_cls;
    pcd_hmap vtables;         /* (vtable,1,0) -> v0 class, v1 its cls[] index (UINT64_MAX: not yet) */
    struct { uint64_t vt; size_t cls; bool valid; } vt_cache[VT_CACHE];
    pcd_hmap methods;         /* (method,2,0) -> v1 index into mth[] */
    struct { uint64_t ptr, name, code, len, calls, seq; bool jitted; } *mth;
    size_t n_mth, cap_mth;
    pcd_hmap thr_index;       /* (thread,3,0) -> v0 index into thr[] */
    thread_st *thr;
    size_t n_thr, cap_thr;
    /* counters */
    uint64_t images, assemblies;
    uint64_t helpers, helpers_size;
    uint64_t gc_resizes, max_heap, moves;
    struct { uint64_t count, total, max; } gc[3];
    struct { uint64_t created, destroyed, live, max_live; } handles[4];
    uint64_t throws, clauses[5];
    uint64_t contentions, acquired, failures;
    uint64_t *ips;
    size_t n_ips, cap_ips;
    usym *usyms;
    size_t n_usyms, cap_usyms;
    /* mprof-report's domain and context lists: a domain per id seen in any domain event,
     * named by its last name event; a context per id seen in a load, with the domain of its
     * last load */
    struct { uint64_t id, name; } *dom;
    size_t n_dom, cap_dom;
    struct { uint64_t id, domain; } *ctx;
    size_t n_ctx, cap_ctx;
    bool oom;
} mono_sum;

#define GROW(arr, n, cap)                                                                 \
    ((n) < (cap) ? true : grow_((void **)&(arr), &(cap), sizeof *(arr)))

static bool grow_(void **p, size_t *cap, size_t elem)
{
    size_t nc = *cap ? *cap * 2 : 64;
    void *q = realloc(*p, nc * elem);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

static void sum_init(mono_sum *s, pcd_alloc *al)
{
    memset(s, 0, sizeof *s);
    pcd_hmap_init(&s->classes, al);
    pcd_hmap_init(&s->vtables, al);
    pcd_hmap_init(&s->methods, al);
    pcd_hmap_init(&s->thr_index, al);
}

static void sum_fini(mono_sum *s)
{
    pcd_hmap_free(&s->classes);
    pcd_hmap_free(&s->vtables);
    pcd_hmap_free(&s->methods);
    pcd_hmap_free(&s->thr_index);
    for (size_t i = 0; i < s->n_thr; i++) free(s->thr[i].stack);
    free(s->thr);
    free(s->cls);
    free(s->mth);
    free(s->ips);
    free(s->usyms);
    free(s->dom);
    free(s->ctx);
    free(s->names.buf);
}

/* The domain (or context) entry of an id, created on first sight (the lists are short:
 * a program has a few application domains). */
static size_t domain_at(mono_sum *s, uint64_t id)
{
    for (size_t i = 0; i < s->n_dom; i++)
        if (s->dom[i].id == id) return i;
    if (!GROW(s->dom, s->n_dom, s->cap_dom)) {
        s->oom = true;
        return SIZE_MAX;
    }
    s->dom[s->n_dom] = (__typeof__(*s->dom)){ id, 0 };
    return s->n_dom++;
}

static size_t context_at(mono_sum *s, uint64_t id)
{
    for (size_t i = 0; i < s->n_ctx; i++)
        if (s->ctx[i].id == id) return i;
    if (!GROW(s->ctx, s->n_ctx, s->cap_ctx)) {
        s->oom = true;
        return SIZE_MAX;
    }
    s->ctx[s->n_ctx] = (__typeof__(*s->ctx)){ id, 0 };
    return s->n_ctx++;
}

/* mprof-report's lookup_class/add_class: a class entry, created on first sight. */
static size_t class_at(mono_sum *s, uint64_t ptr)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->classes, (pcd_hkey){ ptr, 0, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return SIZE_MAX;
    }
    if (fresh) {
        if (!GROW(s->cls, s->n_cls, s->cap_cls)) {
            s->oom = true;
            return SIZE_MAX;
        }
        sl->v1 = s->n_cls;
        s->cls[s->n_cls++] = (__typeof__(*s->cls)){ ptr, 0, 0, 0 };
    }
    return (size_t)sl->v1;
}

/* lookup_vtable: an unknown vtable is bound, for good, to the class at address 0 */
static uint64_t vtable_class(mono_sum *s, uint64_t vt, uint64_t klass, bool from_load)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->vtables, (pcd_hkey){ vt, 1, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return 0;
    }
    if (fresh) {
        sl->v0 = from_load ? klass : 0;
        sl->v1 = UINT64_MAX;
        uint64_t k = sl->v0;
        class_at(s, k);
        return k;
    }
    return sl->v0;
}

/* The class entry an allocation's vtable counts under (the vtable's slot keeps it). */
static size_t vtable_class_index(mono_sum *s, uint64_t vt)
{
    /* a small direct-mapped cache in front of the map: allocations repeat vtables */
    size_t ce = (size_t)((vt >> 3) ^ (vt >> 13)) & (VT_CACHE - 1);
    if (s->vt_cache[ce].valid && s->vt_cache[ce].vt == vt) return s->vt_cache[ce].cls;
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->vtables, (pcd_hkey){ vt, 1, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return SIZE_MAX;
    }
    if (fresh) {
        sl->v0 = 0; /* unknown so far: the class at address 0, for good */
        sl->v1 = UINT64_MAX;
    }
    if (sl->v1 == UINT64_MAX) {
        uint64_t klass = sl->v0;
        size_t ci = class_at(s, klass);
        /* class_at may have grown the vtable map: look the slot up again */
        sl = pcd_hmap_get(&s->vtables, (pcd_hkey){ vt, 1, 0 });
        if (!sl || ci == SIZE_MAX) return SIZE_MAX;
        sl->v1 = ci;
    }
    s->vt_cache[ce].vt = vt;
    s->vt_cache[ce].cls = (size_t)sl->v1;
    s->vt_cache[ce].valid = true;
    return (size_t)sl->v1;
}

static size_t method_at(mono_sum *s, uint64_t ptr)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->methods, (pcd_hkey){ ptr, 2, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return SIZE_MAX;
    }
    if (fresh) {
        if (!GROW(s->mth, s->n_mth, s->cap_mth)) {
            s->oom = true;
            return SIZE_MAX;
        }
        sl->v1 = s->n_mth;
        s->mth[s->n_mth] = (__typeof__(*s->mth)){ ptr, 0, 0, 0, 0, s->n_mth, false };
        s->n_mth++;
    }
    return (size_t)sl->v1;
}

static thread_st *thread_at(mono_sum *s, uint64_t id)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->thr_index, (pcd_hkey){ id, 3, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return NULL;
    }
    if (fresh) {
        if (!GROW(s->thr, s->n_thr, s->cap_thr)) {
            s->oom = true;
            return NULL;
        }
        sl->v0 = s->n_thr;
        memset(&s->thr[s->n_thr], 0, sizeof s->thr[0]);
        s->thr[s->n_thr].id = id;
        s->thr[s->n_thr].root = UINT32_MAX;
        s->n_thr++;
    }
    return &s->thr[sl->v0];
}

/* The thread of the current buffer (looked up once per buffer). */
static thread_st *cur_thread(mono_sum *s)
{
    if (s->cur_index < s->n_thr && s->thr[s->cur_index].id == s->cur_thread) return &s->thr[s->cur_index];
    thread_st *t = thread_at(s, s->cur_thread);
    if (t) s->cur_index = (size_t)(t - s->thr);
    return t;
}

/* A method's name as mprof-report spells it. */
static const char *method_name(const mono_sum *s, uint64_t ptr, char *tmp, size_t cap)
{
    pcd_hslot *sl = pcd_hmap_get(&s->methods, (pcd_hkey){ ptr, 2, 0 });
    if (sl && s->mth[sl->v1].name) return sp_get(&s->names, s->mth[sl->v1].name);
    if (ptr) snprintf(tmp, cap, "unknown method 0x%" PRIx64, ptr);
    else snprintf(tmp, cap, "unknown method (nil)");
    return tmp;
}

static const char *class_name(const mono_sum *s, uint64_t ptr, char *tmp, size_t cap)
{
    pcd_hslot *sl = pcd_hmap_get(&s->classes, (pcd_hkey){ ptr, 0, 0 });
    if (sl && s->cls[sl->v1].name) return sp_get(&s->names, s->cls[sl->v1].name);
    if (ptr) snprintf(tmp, cap, "unresolved class 0x%" PRIx64, ptr);
    else snprintf(tmp, cap, "unresolved class (nil)");
    return tmp;
}

static void push_frame(mono_sum *s, thread_st *t, uint64_t method, uint64_t time, uint32_t node)
{
    if (!GROW(t->stack, t->depth, t->cap)) {
        s->oom = true;
        return;
    }
    t->stack[t->depth++] = (frame){ method, time, 0, node };
}

/* mprof-report's pop_method: counts the call only when the method is on top.
 * Returns the popped frame's self time (or UINT64_MAX when unmatched). */
static uint64_t pop_frame(mono_sum *s, thread_st *t, uint64_t method, uint64_t time, uint32_t *node)
{
    if (t->depth == 0 || t->stack[t->depth - 1].method != method) return UINT64_MAX;
    frame *f = &t->stack[--t->depth];
    size_t mi = method_at(s, method);
    if (mi != SIZE_MAX) s->mth[mi].calls++;
    uint64_t total = time - f->start;
    uint64_t self = total - f->callee;
    if (t->depth) t->stack[t->depth - 1].callee += total;
    if (node) *node = f->node;
    return self;
}

/* Feeds one neutral event (of the buffer's thread) into the summary. */
static void sum_event(mono_sum *s, const mono_ev *m)
{
    s->events++;
    if (m->has_time) {
        if (!s->have_time || m->time < s->first_time) s->first_time = m->time;
        if (!s->have_time || m->time > s->last_time) s->last_time = m->time;
        s->have_time = true;
    }
    thread_st *t = cur_thread(s);
    if (!t) return;
    switch (m->kind) {
    case MK_ALLOC: {
        size_t ci = m->vtable ? vtable_class_index(s, m->p1) : class_at(s, m->p1);
        if (ci != SIZE_MAX) {
            s->cls[ci].allocs++;
            s->cls[ci].bytes += m->n1;
        }
        break;
    }
    case MK_GC_EVENT:
        if (m->n2 > 2) break;
        if (m->n1 == 0) {
            t->gc_start[m->n2] = m->time;
            s->gc[m->n2].count++;
        } else if (m->n1 == 5) {
            uint64_t d = m->time - t->gc_start[m->n2];
            s->gc[m->n2].total += d;
            if (d > s->gc[m->n2].max) s->gc[m->n2].max = d;
        }
        break;
    case MK_GC_RESIZE:
        s->gc_resizes++;
        if (m->n1 > s->max_heap) s->max_heap = m->n1;
        break;
    case MK_GC_MOVE: s->moves += m->n1 / 2; break;
    case MK_HANDLE_NEW:
        if (m->n1 < 4) {
            s->handles[m->n1].created++;
            if (++s->handles[m->n1].live > s->handles[m->n1].max_live) s->handles[m->n1].max_live = s->handles[m->n1].live;
        }
        break;
    case MK_HANDLE_FREE:
        if (m->n1 < 4) {
            s->handles[m->n1].destroyed++;
            s->handles[m->n1].live--;
        }
        break;
    case MK_META:
        switch (m->mtype) {
        case MT_CLASS:
            if (m->msub != META_ERR) {
                size_t ci = class_at(s, m->p1);
                if (ci != SIZE_MAX) s->cls[ci].name = sp_keep(&s->names, s->cls[ci].name, m->name.ptr, m->name.len);
            }
            break;
        case MT_IMAGE: if (m->msub == META_LOAD) s->images++; break;
        case MT_ASSEMBLY: if (m->msub == META_LOAD) s->assemblies++; break;
        case MT_THREAD: {
            thread_st *nt = thread_at(s, m->p1);
            if (nt && m->msub == META_NAME) nt->name = sp_keep(&s->names, nt->name, m->name.ptr, m->name.len);
            break;
        }
        case MT_VTABLE: vtable_class(s, m->p1, m->p2, true); break;
        case MT_DOMAIN: {
            size_t di = domain_at(s, m->p1);
            if (di != SIZE_MAX && m->msub == META_NAME)
                s->dom[di].name = sp_keep(&s->names, s->dom[di].name, m->name.ptr, m->name.len);
            break;
        }
        case MT_CONTEXT:
            if (m->msub == META_LOAD) {
                size_t ci = context_at(s, m->p1);
                if (ci != SIZE_MAX) s->ctx[ci].domain = m->p2;
            }
            break;
        default: break;
        }
        break;
    case MK_JIT: {
        size_t mi = method_at(s, m->p1);
        if (mi != SIZE_MAX) {
            s->mth[mi].name = sp_keep(&s->names, s->mth[mi].name, m->name.ptr, m->name.len);
            s->mth[mi].code = m->p2;
            s->mth[mi].len = m->n1;
            s->mth[mi].jitted = true;
        }
        break;
    }
    case MK_ENTER:
        method_at(s, m->p1);
        push_frame(s, t, m->p1, m->time, 0);
        break;
    case MK_LEAVE:
        method_at(s, m->p1);
        pop_frame(s, t, m->p1, m->time, NULL);
        break;
    case MK_THROW: s->throws++; break;
    case MK_CLAUSE:
        if (m->n1 < 5) s->clauses[m->n1]++;
        break;
    case MK_MONITOR:
        if (m->n1 == 1) s->contentions++;
        else if (m->n1 == 2) s->acquired++;
        else if (m->n1 == 3) s->failures++;
        break;
    case MK_SAMPLE:
        for (size_t i = 0; i < m->n_ips; i++) {
            if (!GROW(s->ips, s->n_ips, s->cap_ips)) {
                s->oom = true;
                break;
            }
            s->ips[s->n_ips++] = (uint64_t)m->ips[i];
        }
        break;
    case MK_USYM:
        if (!GROW(s->usyms, s->n_usyms, s->cap_usyms)) {
            s->oom = true;
            break;
        }
        s->usyms[s->n_usyms++] = (usym){ m->p1, m->n1, sp_add(&s->names, m->name.ptr, m->name.len) };
        break;
    case MK_HELPER:
        s->helpers++;
        s->helpers_size += m->n1;
        break;
    default: break;
    }
}

/* Takes a record: the header, a buffer (its thread), or an event. */
static bool sum_record(mono_sum *s, const pcd_record *rec, mono_ev *out)
{
    if (!rec->data) return false;
    const pcd_type *t = rec->type;
    if (t == &pcd_mono_v0_1_file_type) {
        const pcd_mono_v0_1_file *h = rec->data;
        s->version = 1;
        s->major = h->major, s->minor = h->minor, s->data_version = h->data_version, s->ptr_size = h->ptr_size;
        s->startup_ms = h->startup_ms, s->timer_overhead = h->timer_overhead, s->pid = h->pid;
        return false;
    }
    if (t == &pcd_mono_v3_0_file_type) {
        const pcd_mono_v3_0_file *h = rec->data;
        s->version = 3;
        s->major = h->major, s->minor = h->minor, s->data_version = h->data_version, s->ptr_size = h->ptr_size;
        s->startup_ms = h->startup_ms, s->timer_overhead = h->timer_overhead, s->pid = h->pid, s->port = h->port;
        s->args = sp_add(&s->names, h->args.ptr, h->args.len);
        s->arch = sp_add(&s->names, h->arch.ptr, h->arch.len);
        s->os = sp_add(&s->names, h->os.ptr, h->os.len);
        return false;
    }
    if (t == &pcd_mono_v0_1_buffer_type || t == &pcd_mono_v3_0_buffer_type) {
        s->buffers++;
        s->cur_thread = t == &pcd_mono_v0_1_buffer_type ? ((const pcd_mono_v0_1_buffer *)rec->data)->thread_id
                                                        : ((const pcd_mono_v3_0_buffer *)rec->data)->thread_id;
        cur_thread(s); /* created if new; the index is kept for the events */
        return false;
    }
    if (t == &pcd_mono_v0_1_event_type) norm_v0_1(rec->data, out);
    else if (t == &pcd_mono_v3_0_event_type) norm_v3_0(rec->data, out);
    else return false;
    sum_event(s, out);
    return true;
}

/* ---- sample resolution, as mprof-report does it ---------------------------------------- */

static int cmp_usym(const void *a, const void *b)
{
    const usym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* mprof-report walks its method hash (slot ((ptr >> 2) & 0xffff) % 9371, newest first)
 * and takes the first method whose code holds ip. */
static size_t method_by_ip(const mono_sum *s, uint64_t ip)
{
    size_t best = SIZE_MAX;
    uint64_t best_slot = 0;
    for (size_t i = 0; i < s->n_mth; i++) {
        const __typeof__(*s->mth) *m = &s->mth[i];
        if (!m->code || ip < m->code || ip - m->code >= m->len) continue;
        uint64_t slot = ((m->ptr >> 2) & 0xffff) % 9371;
        if (best == SIZE_MAX || slot < best_slot || (slot == best_slot && m->seq > s->mth[best].seq)) {
            best = i;
            best_slot = slot;
        }
    }
    return best;
}

/* The unmanaged symbol at or before ip, within 4096 bytes (usyms sorted by address). */
static const usym *usym_by_ip(const mono_sum *s, uint64_t ip)
{
    size_t lo = 0, hi = s->n_usyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->usyms[mid].addr <= ip) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    const usym *u = &s->usyms[lo - 1];
    if (u->addr == ip || ip - u->addr < 4096) return u;
    return NULL;
}

/* The name a sample at ip is counted under, or NULL (unresolved). */
static const char *ip_name(const mono_sum *s, uint64_t ip, bool *managed)
{
    size_t mi = method_by_ip(s, ip);
    if (mi != SIZE_MAX) {
        *managed = true;
        return sp_get(&s->names, s->mth[mi].name);
    }
    *managed = false;
    const usym *u = usym_by_ip(s, ip);
    return u ? sp_get(&s->names, u->name) : NULL;
}

/* ---- name -> count maps for the JSON (mprof-report lists entries by pointer; we merge
 * entries whose names are equal) ------------------------------------------------------- */

typedef struct named {
    const char *name;
    uint64_t a, b;
} named;

static int cmp_named(const void *x, const void *y) { return strcmp(((const named *)x)->name, ((const named *)y)->name); }

/* Sorts and merges equal names (summing a and b); returns the new count. */
static size_t merge_named(named *v, size_t n)
{
    if (!n) return 0;
    qsort(v, n, sizeof *v, cmp_named);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (strcmp(v[i].name, v[k].name) == 0) {
            v[k].a += v[i].a;
            v[k].b += v[i].b;
        } else {
            v[++k] = v[i];
        }
    }
    return k + 1;
}

/* ---- info ---------------------------------------------------------------------------- */

typedef struct mono_info {
    mono_sum s;
    uint64_t by_type[16];
} mono_info;

static void info_init(void *ctx, pcd_alloc *al)
{
    mono_info *m = ctx;
    sum_init(&m->s, al);
    memset(m->by_type, 0, sizeof m->by_type);
}

static void info_record(void *ctx, const pcd_record *rec)
{
    mono_info *m = ctx;
    if (rec->type == &pcd_mono_v3_0_event_type && rec->data) {
        /* allocations, most events by far: what sum_event does for them, without the
         * neutral form (the same counts, in the same order) */
        const pcd_mono_v3_0_event *e = rec->data;
        bool alloc = true;
        uint64_t time = 0, vtable = 0, size = 0;
        if (e->which == PCD_MONO_V3_0_EVENT_ALLOC)
            time = e->u.alloc.time, vtable = (uint64_t)e->u.alloc.vtable, size = e->u.alloc.size;
        else if (e->which == PCD_MONO_V3_0_EVENT_ALLOC_BT)
            time = e->u.alloc_bt.time, vtable = (uint64_t)e->u.alloc_bt.vtable, size = e->u.alloc_bt.size;
        else
            alloc = false;
        if (alloc) {
            mono_sum *s = &m->s;
            s->events++;
            if (!s->have_time || time < s->first_time) s->first_time = time;
            if (!s->have_time || time > s->last_time) s->last_time = time;
            s->have_time = true;
            if (cur_thread(s)) {
                size_t ci = vtable_class_index(s, vtable);
                if (ci != SIZE_MAX) {
                    s->cls[ci].allocs++;
                    s->cls[ci].bytes += size;
                }
            }
            m->by_type[e->tag & 0x0f]++;
            return;
        }
    }
    mono_ev ev;
    if (sum_record(&m->s, rec, &ev)) {
        const pcd_mono_v3_0_event *e = rec->data; /* the tag sits at the same place in both versions */
        m->by_type[e->tag & 0x0f]++;
    }
}

static void fmt_time(char *buf, size_t cap, uint64_t ms)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char d[32];
    strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%03" PRIu64 "Z", d, ms % 1000);
}

static const char *const type_names[16] = { "alloc", "gc", "metadata", "method", "exception", "monitor", "heap",
                                            "sample", "runtime", "coverage", "meta", "11", "12", "13", "14", "15" };

/* Sample hits by name (caller frees); *n entries; totals through the pointers. */
static named *sample_table(const mono_sum *s, size_t *n, uint64_t *managed_hits, uint64_t *unmanaged_hits,
                           uint64_t *unresolved_hits)
{
    *n = 0;
    *managed_hits = *unmanaged_hits = *unresolved_hits = 0;
    named *v = malloc((s->n_ips + 1) * sizeof *v);
    if (!v) return NULL;
    for (size_t i = 0; i < s->n_ips; i++) {
        bool managed;
        const char *nm = ip_name(s, s->ips[i], &managed);
        if (managed) ++*managed_hits;
        else ++*unmanaged_hits;
        if (!nm) {
            ++*unresolved_hits;
            continue;
        }
        v[(*n)++] = (named){ nm, 1, 0 };
    }
    *n = merge_named(v, *n);
    return v;
}

static void info_text(void *ctx, FILE *out)
{
    mono_info *m = ctx;
    mono_sum *s = &m->s;
    if (s->n_usyms > 1) qsort(s->usyms, s->n_usyms, sizeof *s->usyms, cmp_usym);
    char t[64];
    fmt_time(t, sizeof t, s->startup_ms);
    fprintf(out, "profiler:    %u.%u, data version %u, %u-byte pointers\n", s->major, s->minor, s->data_version,
            s->ptr_size);
    if (s->args) fprintf(out, "arguments:   %s\n", sp_get(&s->names, s->args));
    if (s->arch) fprintf(out, "system:      %s, %s\n", sp_get(&s->names, s->arch), sp_get(&s->names, s->os));
    fprintf(out, "startup:     %s (%" PRIu64 " ms since the Unix epoch)\n", t, s->startup_ms);
    fprintf(out, "process:     %" PRIu64 "%s", s->pid, s->port ? "" : "\n");
    if (s->port) fprintf(out, ", command server on port %" PRIu64 "\n", s->port);
    fprintf(out, "buffers:     %" PRIu64 " (%zu threads)\n", s->buffers, s->n_thr);
    if (s->have_time)
        fprintf(out, "time span:   %.6f s\n", (double)(s->last_time - s->first_time) / 1e9);
    fprintf(out, "events:      %" PRIu64 " (", s->events);
    bool first = true;
    for (int i = 0; i < 16; i++) {
        if (!m->by_type[i]) continue;
        fprintf(out, "%s%s %" PRIu64, first ? "" : ", ", type_names[i], m->by_type[i]);
        first = false;
    }
    fprintf(out, ")\n");
    uint64_t jm = 0, jsz = 0, calls = 0, allocs = 0, bytes = 0;
    for (size_t i = 0; i < s->n_mth; i++) {
        if (s->mth[i].code) jm++, jsz += s->mth[i].len;
        calls += s->mth[i].calls;
    }
    for (size_t i = 0; i < s->n_cls; i++) allocs += s->cls[i].allocs, bytes += s->cls[i].bytes;
    fprintf(out, "jit:         %" PRIu64 " methods, %" PRIu64 " bytes of code; %" PRIu64 " helpers, %" PRIu64 " bytes\n",
            jm, jsz, s->helpers, s->helpers_size);
    fprintf(out, "gc:          %" PRIu64 " resizes, max heap %" PRIu64 ", %" PRIu64 " moves", s->gc_resizes, s->max_heap,
            s->moves);
    for (int g = 0; g < 3; g++)
        if (s->gc[g].count) fprintf(out, ", gen%d %" PRIu64 " collections", g, s->gc[g].count);
    fprintf(out, "\n");
    fprintf(out, "allocations: %" PRIu64 " objects, %" PRIu64 " bytes\n", allocs, bytes);
    fprintf(out, "calls:       %" PRIu64 "\n", calls);
    fprintf(out, "exceptions:  %" PRIu64 " throws; clauses: %" PRIu64 " catch, %" PRIu64 " filter, %" PRIu64
                 " finally, %" PRIu64 " fault\n",
            s->throws, s->clauses[0], s->clauses[1], s->clauses[2], s->clauses[4]);
    fprintf(out, "monitors:    %" PRIu64 " contentions, %" PRIu64 " acquired, %" PRIu64 " failures\n", s->contentions,
            s->acquired, s->failures);
    if (s->n_ips) fprintf(out, "samples:     %zu hits, %zu unmanaged symbols\n", s->n_ips, s->n_usyms);
    fprintf(out, "threads:     ");
    first = true;
    for (size_t i = 0; i < s->n_thr; i++) {
        if (!s->thr[i].id) continue;
        const char *nm = sp_get(&s->names, s->thr[i].name);
        fprintf(out, "%s0x%" PRIx64 "%s%s%s", first ? "" : ", ", s->thr[i].id, nm ? " \"" : "", nm ? nm : "",
                nm ? "\"" : "");
        first = false;
    }
    fprintf(out, "\n");
    if (s->n_dom) {
        fprintf(out, "domains:     ");
        for (size_t i = 0; i < s->n_dom; i++) {
            const char *nm = sp_get(&s->names, s->dom[i].name);
            fprintf(out, "%s0x%" PRIx64 "%s%s%s", i ? ", " : "", s->dom[i].id, nm ? " \"" : "", nm ? nm : "",
                    nm ? "\"" : "");
        }
        fprintf(out, "\n");
    }
}

#define PUT(...)                                                                        \
    do {                                                                                \
        int n_ = snprintf(buf, sizeof buf, __VA_ARGS__);                                \
        PCD_TRY(pcd_sink_put(sk, buf, (size_t)n_ < sizeof buf ? (size_t)n_ : sizeof buf - 1)); \
    } while (0)

static pcd_status put_name(pcd_sink *sk, const char *nm)
{
    return pcd_json_text(sk, (const uint8_t *)nm, strlen(nm));
}

static pcd_status info_json(void *ctx, pcd_sink *sk)
{
    mono_info *m = ctx;
    mono_sum *s = &m->s;
    char buf[512], tmp[64];
    if (s->n_usyms > 1) qsort(s->usyms, s->n_usyms, sizeof *s->usyms, cmp_usym);
    uint64_t jm = 0, jsz = 0;
    for (size_t i = 0; i < s->n_mth; i++)
        if (s->mth[i].code) jm++, jsz += s->mth[i].len;
    PUT("\"header\":{\"major\":%u,\"minor\":%u,\"data_version\":%u,\"ptr_size\":%u,\"startup_ms\":%" PRIu64
        ",\"timer_overhead\":%" PRIu64 ",\"pid\":%" PRIu64 ",\"port\":%" PRIu64,
        s->major, s->minor, s->data_version, s->ptr_size, s->startup_ms, s->timer_overhead, s->pid, s->port);
    if (s->args) {
        PCD_TRY(pcd_json_raw(sk, ",\"args\":"));
        PCD_TRY(put_name(sk, sp_get(&s->names, s->args)));
        PCD_TRY(pcd_json_raw(sk, ",\"arch\":"));
        PCD_TRY(put_name(sk, sp_get(&s->names, s->arch)));
        PCD_TRY(pcd_json_raw(sk, ",\"os\":"));
        PCD_TRY(put_name(sk, sp_get(&s->names, s->os)));
    }
    PUT("},\"buffers\":%" PRIu64 ",\"events\":%" PRIu64 ",\"events_by_type\":{", s->buffers, s->events);
    bool first = true;
    for (int i = 0; i < 16; i++) {
        if (!m->by_type[i]) continue;
        PUT("%s\"%s\":%" PRIu64, first ? "" : ",", type_names[i], m->by_type[i]);
        first = false;
    }
    PUT("},\"jit\":{\"methods\":%" PRIu64 ",\"code_size\":%" PRIu64 ",\"helpers\":%" PRIu64
        ",\"helpers_code_size\":%" PRIu64 "}",
        jm, jsz, s->helpers, s->helpers_size);
    PUT(",\"gc\":{\"resizes\":%" PRIu64 ",\"max_heap_size\":%" PRIu64 ",\"moves\":%" PRIu64 ",\"collections\":{",
        s->gc_resizes, s->max_heap, s->moves);
    for (int g = 0; g < 3; g++)
        PUT("%s\"gen%d\":{\"count\":%" PRIu64 ",\"max_us\":%" PRIu64 ",\"total_us\":%" PRIu64 "}", g ? "," : "", g,
            s->gc[g].count, s->gc[g].max / 1000, s->gc[g].total / 1000);
    PCD_TRY(pcd_json_raw(sk, "},\"handles\":{"));
    static const char *const hn[4] = { "weak", "weaktrack", "normal", "pinned" };
    for (int h = 0; h < 4; h++)
        PUT("%s\"%s\":{\"created\":%" PRIu64 ",\"destroyed\":%" PRIu64 ",\"max_live\":%" PRIu64 "}", h ? "," : "",
            hn[h], s->handles[h].created, s->handles[h].destroyed, s->handles[h].max_live);
    PCD_TRY(pcd_json_raw(sk, "}},\"allocations\":{"));
    /* allocations by class name */
    named *v = malloc((s->n_cls + s->n_mth + 1) * sizeof *v);
    char (*tmps)[64] = malloc((s->n_cls + s->n_mth + 1) * sizeof *tmps);
    if (!v || !tmps) {
        free(v);
        free(tmps);
        return PCD_E_NOMEM;
    }
    size_t n = 0;
    uint64_t total_allocs = 0, total_bytes = 0;
    for (size_t i = 0; i < s->n_cls; i++) {
        if (!s->cls[i].allocs) continue;
        v[n] = (named){ class_name(s, s->cls[i].ptr, tmps[n], sizeof tmps[n]), s->cls[i].bytes, s->cls[i].allocs };
        total_allocs += s->cls[i].allocs;
        total_bytes += s->cls[i].bytes;
        n++;
    }
    n = merge_named(v, n);
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        if (i) st = pcd_json_raw(sk, ",");
        if (st == PCD_OK) st = put_name(sk, v[i].name);
        if (st == PCD_OK) {
            int k = snprintf(buf, sizeof buf, ":{\"bytes\":%" PRIu64 ",\"count\":%" PRIu64 "}", v[i].a, v[i].b);
            st = pcd_sink_put(sk, buf, (size_t)k);
        }
    }
    /* calls by method name */
    uint64_t total_calls = 0;
    if (st == PCD_OK) st = pcd_json_raw(sk, "},\"calls\":{");
    n = 0;
    for (size_t i = 0; i < s->n_mth; i++) {
        if (!s->mth[i].calls) continue;
        v[n] = (named){ method_name(s, s->mth[i].ptr, tmps[n], sizeof tmps[n]), s->mth[i].calls, 0 };
        total_calls += s->mth[i].calls;
        n++;
    }
    n = merge_named(v, n);
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        if (i) st = pcd_json_raw(sk, ",");
        if (st == PCD_OK) st = put_name(sk, v[i].name);
        if (st == PCD_OK) {
            int k = snprintf(buf, sizeof buf, ":%" PRIu64, v[i].a);
            st = pcd_sink_put(sk, buf, (size_t)k);
        }
    }
    free(v);
    free(tmps);
    PCD_TRY(st);
    PUT("},\"totals\":{\"allocated_bytes\":%" PRIu64 ",\"allocated_objects\":%" PRIu64 ",\"calls\":%" PRIu64 "}",
        total_bytes, total_allocs, total_calls);
    PUT(",\"exceptions\":{\"throws\":%" PRIu64 ",\"clauses\":{\"catch\":%" PRIu64 ",\"finally\":%" PRIu64
        ",\"filter\":%" PRIu64 ",\"fault\":%" PRIu64 "}}",
        s->throws, s->clauses[0], s->clauses[2], s->clauses[1], s->clauses[4]);
    PUT(",\"monitors\":{\"contentions\":%" PRIu64 ",\"acquired\":%" PRIu64 ",\"failures\":%" PRIu64 "}",
        s->contentions, s->acquired, s->failures);
    PUT(",\"metadata\":{\"images\":%" PRIu64 ",\"assemblies\":%" PRIu64 "}", s->images, s->assemblies);
    PCD_TRY(pcd_json_raw(sk, ",\"threads\":{"));
    first = true;
    for (size_t i = 0; i < s->n_thr; i++) {
        if (!s->thr[i].id) continue;
        const char *nm = sp_get(&s->names, s->thr[i].name);
        PUT("%s\"0x%" PRIx64 "\":", first ? "" : ",", s->thr[i].id);
        PCD_TRY(put_name(sk, nm ? nm : ""));
        first = false;
    }
    /* domains by id: their names (null when never named); contexts by id: their domains */
    PCD_TRY(pcd_json_raw(sk, "},\"domains\":{"));
    for (size_t i = 0; i < s->n_dom; i++) {
        PUT("%s\"0x%" PRIx64 "\":", i ? "," : "", s->dom[i].id);
        const char *nm = sp_get(&s->names, s->dom[i].name);
        if (nm) PCD_TRY(put_name(sk, nm));
        else PCD_TRY(pcd_json_raw(sk, "null"));
    }
    PCD_TRY(pcd_json_raw(sk, "},\"contexts\":{"));
    for (size_t i = 0; i < s->n_ctx; i++) PUT("%s\"0x%" PRIx64 "\":\"0x%" PRIx64 "\"", i ? "," : "", s->ctx[i].id, s->ctx[i].domain);
    PCD_TRY(pcd_json_raw(sk, "},\"samples\":{"));
    size_t ns;
    uint64_t mh, uh, rh;
    named *sv = sample_table(s, &ns, &mh, &uh, &rh);
    if (!sv) return PCD_E_NOMEM;
    for (size_t i = 0; i < ns && st == PCD_OK; i++) {
        if (i) st = pcd_json_raw(sk, ",");
        if (st == PCD_OK) st = put_name(sk, sv[i].name);
        if (st == PCD_OK) {
            int k = snprintf(buf, sizeof buf, ":%" PRIu64, sv[i].a);
            st = pcd_sink_put(sk, buf, (size_t)k);
        }
    }
    free(sv);
    PCD_TRY(st);
    PUT("},\"sample_hits\":{\"total\":%zu,\"managed\":%" PRIu64 ",\"unmanaged\":%" PRIu64 ",\"unresolved\":%" PRIu64
        "}",
        s->n_ips, mh, uh, rh);
    (void)tmp;
    return s->oom ? PCD_E_NOMEM : PCD_OK;
}

static void info_fini(void *ctx)
{
    mono_info *m = ctx;
    sum_fini(&m->s);
}

static const pcd_info_ops mono_info_ops = {
    sizeof(mono_info), info_init, info_record, info_text, info_json, info_fini,
};

/* ---- stacks: collapsed and speedscope ------------------------------------------------- */

/* A call tree: nodes keyed by (parent, kind, pointer); names are resolved at the end. */
enum { NK_ROOT, NK_METHOD, NK_CLASS, NK_IP };

typedef struct node {
    uint32_t parent;
    uint8_t kind;
    uint64_t ptr;
    uint64_t weight;
} node;

typedef struct stacks {
    const pcd_conv_args *a;
    mono_sum s;
    int metric;               /* M_* */
    node *nodes;
    size_t n_nodes, cap_nodes;
    pcd_hmap index;           /* (parent, kind << 56 ^ ..., ptr) -> node */
} stacks;

enum { M_ALLOC_BYTES, M_ALLOC_COUNT, M_CALLS, M_TIME, M_SAMPLES };

static uint32_t child(stacks *k, uint32_t parent, uint8_t kind, uint64_t ptr)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&k->index, (pcd_hkey){ parent, kind, ptr }, &fresh);
    if (!sl) {
        k->s.oom = true;
        return 0;
    }
    if (fresh) {
        if (!GROW(k->nodes, k->n_nodes, k->cap_nodes)) {
            k->s.oom = true;
            return 0;
        }
        sl->v0 = k->n_nodes;
        k->nodes[k->n_nodes++] = (node){ parent, kind, ptr, 0 };
    }
    return (uint32_t)sl->v0;
}

/* The node of a backtrace (innermost first on the wire), outermost frame at the top. */
static uint32_t bt_node(stacks *k, const int64_t *bt, size_t n)
{
    uint32_t at = 0;
    for (size_t i = n; i-- > 0;) at = child(k, at, NK_METHOD, (uint64_t)bt[i]);
    return at;
}

/* The node of a thread's current call stack (enter/leave events). */
static uint32_t stack_node(thread_st *t)
{
    return t->depth ? t->stack[t->depth - 1].node : 0;
}

static void stacks_event(stacks *k, const mono_ev *m)
{
    mono_sum *s = &k->s;
    thread_st *t = thread_at(s, s->cur_thread);
    if (!t) return;
    switch (m->kind) {
    case MK_ENTER: {
        uint32_t parent = stack_node(t);
        uint32_t nd = child(k, parent, NK_METHOD, m->p1);
        push_frame(s, t, m->p1, m->time, nd);
        return;
    }
    case MK_LEAVE: {
        uint32_t nd = 0;
        uint64_t self = pop_frame(s, t, m->p1, m->time, &nd);
        /* a call counts, as in mprof-report, when its leave matches the top of the stack */
        if (self != UINT64_MAX && k->metric == M_TIME) k->nodes[nd].weight += self;
        if (self != UINT64_MAX && k->metric == M_CALLS) k->nodes[nd].weight++;
        return;
    }
    case MK_ALLOC: {
        if (k->metric != M_ALLOC_BYTES && k->metric != M_ALLOC_COUNT) break;
        uint32_t at = m->has_bt ? bt_node(k, m->bt, m->n_bt) : stack_node(t);
        uint64_t klass = m->vtable ? vtable_class(s, m->p1, 0, false) : m->p1;
        uint32_t leaf = child(k, at, NK_CLASS, klass);
        k->nodes[leaf].weight += k->metric == M_ALLOC_BYTES ? m->n1 : 1;
        break;
    }
    case MK_SAMPLE: {
        if (k->metric != M_SAMPLES) break;
        uint32_t at = bt_node(k, m->bt, m->n_bt);
        for (size_t i = 0; i < m->n_ips; i++) {
            uint32_t leaf = child(k, at, NK_IP, (uint64_t)m->ips[i]);
            k->nodes[leaf].weight++;
        }
        break;
    }
    default: break;
    }
    /* everything else (names, vtables, JIT) goes to the summary tables */
    if (m->kind != MK_ENTER && m->kind != MK_LEAVE) sum_event(s, m);
}

typedef struct line {
    char *path;               /* names joined by ';' */
    uint64_t weight;
} line;

static int cmp_line(const void *x, const void *y) { return strcmp(((const line *)x)->path, ((const line *)y)->path); }

/* Appends a frame name, with ';' and line breaks (which collapsed stacks cannot hold)
 * replaced by spaces. */
static bool path_add(char **p, size_t *len, size_t *cap, const char *name)
{
    size_t n = strlen(name);
    if (*len + n + 2 > *cap) {
        size_t nc = (*cap ? *cap : 256) * 2;
        while (nc < *len + n + 2) nc *= 2;
        char *q = realloc(*p, nc);
        if (!q) return false;
        *p = q;
        *cap = nc;
    }
    if (*len) (*p)[(*len)++] = ';';
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        (*p)[(*len)++] = (c == ';' || c == '\n' || c == '\r') ? ' ' : c;
    }
    (*p)[*len] = 0;
    return true;
}

static const char *node_name(const stacks *k, const node *nd, char *tmp, size_t cap, bool *skip)
{
    const mono_sum *s = &k->s;
    *skip = false;
    switch (nd->kind) {
    case NK_METHOD: return method_name(s, nd->ptr, tmp, cap);
    case NK_CLASS: return class_name(s, nd->ptr, tmp, cap);
    case NK_IP: {
        bool managed;
        const char *nm = ip_name(s, nd->ptr, &managed);
        if (!nm) {
            snprintf(tmp, cap, "unresolved 0x%" PRIx64, nd->ptr);
            return tmp;
        }
        /* a managed hit in the innermost frame's own method adds nothing */
        if (managed && nd->parent && k->nodes[nd->parent].kind == NK_METHOD) {
            char t2[64];
            if (strcmp(method_name(s, k->nodes[nd->parent].ptr, t2, sizeof t2), nm) == 0) *skip = true;
        }
        return nm;
    }
    default: return "";
    }
}

/* Every weighted node as a path; sorted and merged. */
static line *collect_lines(stacks *k, size_t *n_out)
{
    line *v = malloc((k->n_nodes + 1) * sizeof *v);
    uint32_t *chain = malloc((k->n_nodes + 1) * sizeof *chain);
    if (!v || !chain) {
        free(v);
        free(chain);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 1; i < k->n_nodes; i++) {
        if (!k->nodes[i].weight) continue;
        size_t d = 0;
        for (uint32_t at = (uint32_t)i; at; at = k->nodes[at].parent) chain[d++] = at;
        char *p = NULL;
        size_t len = 0, cap = 0;
        bool ok = true;
        for (size_t j = d; j-- > 0 && ok;) {
            char tmp[64];
            bool skip;
            const char *nm = node_name(k, &k->nodes[chain[j]], tmp, sizeof tmp, &skip);
            if (!skip) ok = path_add(&p, &len, &cap, nm);
        }
        if (!ok || !p) {
            free(p);
            continue;
        }
        v[n++] = (line){ p, k->nodes[i].weight };
    }
    free(chain);
    if (n) {
        qsort(v, n, sizeof *v, cmp_line);
        size_t w = 0;
        for (size_t i = 1; i < n; i++) {
            if (strcmp(v[i].path, v[w].path) == 0) {
                v[w].weight += v[i].weight;
                free(v[i].path);
            } else {
                v[++w] = v[i];
            }
        }
        n = w + 1;
    }
    *n_out = n;
    return v;
}

static pcd_status write_collapsed(const line *v, size_t n, pcd_sink *sk)
{
    char buf[32];
    for (size_t i = 0; i < n; i++) {
        PCD_TRY(pcd_sink_put(sk, v[i].path, strlen(v[i].path)));
        int k = snprintf(buf, sizeof buf, " %" PRIu64 "\n", v[i].weight);
        PCD_TRY(pcd_sink_put(sk, buf, (size_t)k));
    }
    return PCD_OK;
}

/* speedscope's file format: one sampled profile, frames shared by index. */
static pcd_status write_speedscope(const line *v, size_t n, pcd_sink *sk, const char *title, const char *unit,
                                   pcd_alloc *al)
{
    pcd_hmap idx;
    pcd_hmap_init(&idx, al);
    /* frames: every distinct name, in order of first appearance */
    const char **frames = NULL;
    size_t nf = 0, capf = 0;
    pcd_status st = pcd_json_raw(sk, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                                     "\"exporter\":\"profcodec\",\"name\":");
    if (st == PCD_OK) st = put_name(sk, title);
    if (st == PCD_OK) st = pcd_json_raw(sk, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
    /* a name's index is found by hashing its bytes */
    char *names_copy = NULL;
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += strlen(v[i].path) + 1;
    names_copy = malloc(total + 1);
    uint32_t **samples = malloc((n + 1) * sizeof *samples);
    size_t *depths = malloc((n + 1) * sizeof *depths);
    if (!names_copy || !samples || !depths) st = PCD_E_NOMEM;
    size_t off = 0;
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        size_t len = strlen(v[i].path);
        memcpy(names_copy + off, v[i].path, len + 1);
        char *p = names_copy + off;
        off += len + 1;
        size_t parts = 1;
        for (char *q = p; *q; q++) parts += *q == ';';
        samples[i] = malloc(parts * sizeof **samples);
        depths[i] = 0;
        if (!samples[i]) {
            st = PCD_E_NOMEM;
            break;
        }
        for (char *tok = p;;) {
            char *semi = strchr(tok, ';');
            if (semi) *semi = 0;
            uint64_t h = 1469598103934665603ull;
            for (const char *c = tok; *c; c++) h = (h ^ (uint8_t)*c) * 1099511628211ull;
            uint32_t fi = UINT32_MAX;
            for (uint64_t probe = 0;; probe++) {
                pcd_hslot *sl = pcd_hmap_get(&idx, (pcd_hkey){ h, probe, 0 });
                if (!sl) break;
                if (strcmp(frames[sl->v0], tok) == 0) {
                    fi = (uint32_t)sl->v0;
                    break;
                }
            }
            if (fi == UINT32_MAX) {
                if (!GROW(frames, nf, capf)) {
                    st = PCD_E_NOMEM;
                    break;
                }
                uint64_t probe = 0;
                while (pcd_hmap_get(&idx, (pcd_hkey){ h, probe, 0 })) probe++;
                bool fresh;
                pcd_hslot *sl = pcd_hmap_put(&idx, (pcd_hkey){ h, probe, 0 }, &fresh);
                if (!sl) {
                    st = PCD_E_NOMEM;
                    break;
                }
                sl->v0 = nf;
                fi = (uint32_t)nf;
                frames[nf++] = tok;
                if (fi) st = pcd_json_raw(sk, ",");
                if (st == PCD_OK) st = pcd_json_raw(sk, "{\"name\":");
                if (st == PCD_OK) st = put_name(sk, tok);
                if (st == PCD_OK) st = pcd_json_raw(sk, "}");
            }
            samples[i][depths[i]++] = fi;
            if (!semi) break;
            tok = semi + 1;
        }
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum += v[i].weight;
    char buf[160];
    if (st == PCD_OK) st = pcd_json_raw(sk, "]},\"profiles\":[{\"type\":\"sampled\",\"name\":");
    if (st == PCD_OK) st = put_name(sk, title);
    if (st == PCD_OK) {
        int k = snprintf(buf, sizeof buf, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":%" PRIu64 ",\"samples\":[", unit,
                         sum);
        st = pcd_sink_put(sk, buf, (size_t)k);
    }
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        st = pcd_json_raw(sk, i ? ",[" : "[");
        for (size_t j = 0; j < depths[i] && st == PCD_OK; j++) {
            int k = snprintf(buf, sizeof buf, "%s%u", j ? "," : "", samples[i][j]);
            st = pcd_sink_put(sk, buf, (size_t)k);
        }
        if (st == PCD_OK) st = pcd_json_raw(sk, "]");
    }
    if (st == PCD_OK) st = pcd_json_raw(sk, "],\"weights\":[");
    for (size_t i = 0; i < n && st == PCD_OK; i++) {
        int k = snprintf(buf, sizeof buf, "%s%" PRIu64, i ? "," : "", v[i].weight);
        st = pcd_sink_put(sk, buf, (size_t)k);
    }
    if (st == PCD_OK) st = pcd_json_raw(sk, "]}]}\n");
    for (size_t i = 0; samples && depths && i < n; i++) free(samples[i]);
    free(samples);
    free(depths);
    free(frames);
    free(names_copy);
    pcd_hmap_free(&idx);
    return st;
}

static int stacks_run(const pcd_conv_args *a, bool speedscope)
{
    const char *metric = a->metric ? a->metric : "alloc-bytes";
    static const char *const metrics[] = { "alloc-bytes", "alloc-count", "calls", "time", "samples" };
    int mi = -1;
    for (int i = 0; i < 5; i++)
        if (strcmp(metric, metrics[i]) == 0) mi = i;
    if (mi < 0) {
        fprintf(a->err, "%s: --metric takes alloc-bytes, alloc-count, calls, time or samples, not '%s'\n",
                a->input_name, metric);
        return 2;
    }
    stacks k;
    memset(&k, 0, sizeof k);
    k.a = a;
    k.metric = mi;
    sum_init(&k.s, a->al);
    pcd_hmap_init(&k.index, a->al);
    int rc = 0;
    if (!GROW(k.nodes, k.n_nodes, k.cap_nodes)) {
        fprintf(a->err, "%s: out of memory\n", a->input_name);
        return 2;
    }
    k.nodes[k.n_nodes++] = (node){ 0, NK_ROOT, 0, 0 };
    pcd_record rec;
    for (;;) {
        pcd_status rs = pcd_reader_next(a->r, &rec);
        if (rs == PCD_END) break;
        if (rs != PCD_OK) {
            pcd_report(a->err, a->input_name, pcd_reader_error(a->r));
            rc = 1;
            if (a->all && pcd_reader_recover(a->r, NULL) == PCD_OK) continue;
            break;
        }
        if (a->progress) a->progress(a->progress_ud, rec.offset);
        mono_ev ev;
        const pcd_type *t = rec.type;
        if (t == &pcd_mono_v0_1_event_type || t == &pcd_mono_v3_0_event_type) {
            if (t == &pcd_mono_v0_1_event_type) norm_v0_1(rec.data, &ev);
            else norm_v3_0(rec.data, &ev);
            stacks_event(&k, &ev);
        } else {
            sum_record(&k.s, &rec, &ev);
        }
        if (k.s.oom) break;
    }
    if (k.s.n_usyms > 1) qsort(k.s.usyms, k.s.n_usyms, sizeof *k.s.usyms, cmp_usym);
    size_t n = 0;
    line *v = k.s.oom ? NULL : collect_lines(&k, &n);
    pcd_status st = PCD_OK;
    if (!v) {
        fprintf(a->err, "%s: out of memory\n", a->input_name);
        rc = 2;
    } else {
        static const char *const units[] = { "bytes", "none", "none", "nanoseconds", "none" };
        char title[128];
        snprintf(title, sizeof title, "%s (%s)", a->input_name, metric);
        st = speedscope ? write_speedscope(v, n, a->out, title, units[mi], a->al) : write_collapsed(v, n, a->out);
        for (size_t i = 0; i < n; i++) free(v[i].path);
        free(v);
        if (st != PCD_OK) {
            fprintf(a->err, "%s: cannot write the output: %s\n", a->input_name, pcd_status_name(st));
            rc = 2;
        }
    }
    free(k.nodes);
    pcd_hmap_free(&k.index);
    sum_fini(&k.s);
    return rc;
}

static int collapsed_run(const pcd_conv_args *a) { return stacks_run(a, false); }
static int speedscope_run(const pcd_conv_args *a) { return stacks_run(a, true); }

static const pcd_converter mono_conv[] = {
    { "collapsed", "collapsed stacks (flamegraph.pl, speedscope, inferno); --metric alloc-bytes (default), "
                   "alloc-count, calls, time or samples", collapsed_run },
    { "speedscope", "a speedscope profile (https://www.speedscope.app); --metric as for collapsed", speedscope_run },
};

const pcd_ext pcd_mono_ext = { "mono", &mono_info_ops, mono_conv, 2, NULL, NULL, 0 };
