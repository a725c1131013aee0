/* formats/mono/mono.h: Mono log profiler files above the bytes, shared by the summary (info.c)
 * and the importer into the profile model (import.c).
 *
 *   events.c   both versions' events (0.1 of 2010, 3.0 / data 17 of Mono 6.x) turned into one
 *              neutral event (pcd_mono_ev);
 *   summary.c  what mprof-report keeps while it reads (names, classes, vtables, methods,
 *              threads with their enter/leave stacks, sample hits, unmanaged symbols, counters)
 *              and how it resolves names at the end of the file;
 *   info.c     the info summary (text and JSON), from those tables;
 *   import.c   allocations, calls and sample hits into the profile model.
 *
 * All memory comes from the caller's allocator (pcd_alloc), so --max-memory covers it. */
#ifndef PCD_FORMATS_MONO_H
#define PCD_FORMATS_MONO_H

#include "pcd.h"
#include "common/hmap.h"
#include "pipeline/job.h"
#include "mono_v0_1.h"
#include "mono_v3_0.h"

/* ---- one neutral event (events.c) --------------------------------------------------------- */

enum {
    PCD_MONO_EV_NONE, PCD_MONO_EV_ALLOC, PCD_MONO_EV_GC_EVENT, PCD_MONO_EV_GC_RESIZE, PCD_MONO_EV_GC_MOVE,
    PCD_MONO_EV_HANDLE_NEW, PCD_MONO_EV_HANDLE_FREE, PCD_MONO_EV_META, PCD_MONO_EV_ENTER, PCD_MONO_EV_LEAVE,
    PCD_MONO_EV_JIT, PCD_MONO_EV_THROW, PCD_MONO_EV_CLAUSE, PCD_MONO_EV_MONITOR, PCD_MONO_EV_SAMPLE,
    PCD_MONO_EV_USYM, PCD_MONO_EV_HELPER, PCD_MONO_EV_OTHER
};
/* what a metadata event says about its object */
enum { PCD_MONO_META_NAME, PCD_MONO_META_LOAD, PCD_MONO_META_UNLOAD, PCD_MONO_META_START, PCD_MONO_META_ERR };

typedef struct pcd_mono_ev {
    int kind;                 /* PCD_MONO_EV_* */
    bool has_time;
    uint64_t time;
    uint64_t p1, p2;          /* alloc: class or vtable; meta: pointer, class (vtable); jit: method, code;
                                 sample: the sampled thread */
    uint64_t n1, n2;          /* sizes, kinds, generations, counts */
    bool vtable;              /* alloc: p1 is a MonoVTable* (data 15+), not a MonoClass* */
    int mtype, msub;          /* mtype as the files number it (PCD_MONO_V3_0_METADATA_TYPE_*: 0.1
                                 numbers its two, class and image, the same way); msub PCD_MONO_META_* */
    pcd_bytes name;
    bool has_bt;
    /* the backtrace as the writer emits it: for allocations, throws, monitors and GC handles
     * outermost first (the frames collected innermost first, written last-collected first:
     * log.c's emit_bt); for sample hits innermost first (written in the order collected) */
    const int64_t *bt;
    size_t n_bt;
    const int64_t *ips;
    size_t n_ips;
} pcd_mono_ev;

void pcd_mono_norm_v0_1(const pcd_mono_v0_1_event *e, pcd_mono_ev *m);
void pcd_mono_norm_v3_0(const pcd_mono_v3_0_event *e, pcd_mono_ev *m);

/* ---- names (copied: records are valid until the next one) ---------------------------------- */

/* NUL-terminated copies in one pool; a reference is an offset + 1 (0: no name). */
typedef struct pcd_mono_names {
    pcd_alloc *al;
    char *buf;
    size_t len, cap;
} pcd_mono_names;

PCD_INLINE const char *pcd_mono_name(const pcd_mono_names *s, uint64_t ref) { return ref ? s->buf + ref - 1 : NULL; }

/* ---- what mprof-report keeps (summary.c) ----------------------------------------------------- */

typedef struct pcd_mono_frame {
    uint64_t method, start, callee;
    uint32_t node;            /* the importer's call-tree node of this frame */
} pcd_mono_frame;

typedef struct pcd_mono_thread {
    uint64_t id;
    uint64_t name;            /* names ref */
    pcd_mono_frame *stack;
    size_t depth, cap;
    uint64_t gc_start[3];
} pcd_mono_thread;

typedef struct pcd_mono_usym {
    uint64_t addr, size, name;
} pcd_mono_usym;

typedef struct pcd_mono_class {
    uint64_t ptr, name, allocs, bytes;
} pcd_mono_class;

typedef struct pcd_mono_method {
    uint64_t ptr, name, code, len, calls, seq;
    bool jitted;
} pcd_mono_method;

#define PCD_MONO_VT_CACHE 1024

typedef struct pcd_mono_sum {
    pcd_alloc *al;
    int version;              /* 1 (0.1) or 3 (3.0) */
    pcd_mono_names names;
    /* header */
    uint8_t major, minor, data_version, ptr_size;
    uint64_t startup_ms, pid, port, timer_overhead;
    uint64_t args, arch, os;  /* names refs */
    uint64_t buffers, events;
    uint64_t first_time, last_time;
    bool have_time;
    /* current buffer */
    uint64_t cur_thread;
    size_t cur_index;
    /* tables keyed by pointer: classes, vtables -> class, methods, threads */
    pcd_hmap classes;         /* (class,0,0) -> v1 index into cls[] */
    pcd_mono_class *cls;
    size_t n_cls, cap_cls;
    pcd_hmap vtables;         /* (vtable,1,0) -> v0 class, v1 its cls[] index (UINT64_MAX: not yet) */
    struct { uint64_t vt; size_t cls; bool valid; } vt_cache[PCD_MONO_VT_CACHE];
    pcd_hmap methods;         /* (method,2,0) -> v1 index into mth[] */
    pcd_mono_method *mth;
    size_t n_mth, cap_mth;
    pcd_hmap thr_index;       /* (thread,3,0) -> v0 index into thr[] */
    pcd_mono_thread *thr;
    size_t n_thr, cap_thr;
    /* counters */
    uint64_t images, assemblies;
    uint64_t helpers, helpers_size;
    uint64_t gc_resizes, max_heap, moves;
    struct { uint64_t count, total, max; } gc[3];
    struct { uint64_t created, destroyed, live, max_live; } handles[4];
    uint64_t throws, clauses[5];
    uint64_t contentions, acquired, failures;
    bool keep_ips;            /* keep every sample hit's ip (the summary's sample table) */
    uint64_t *ips;
    size_t n_ips, cap_ips;
    pcd_mono_usym *usyms;
    size_t n_usyms, cap_usyms;
    /* mprof-report's domain and context lists: a domain per id seen in any domain event,
     * named by its last name event; a context per id seen in a load, with the domain of its
     * last load */
    struct { uint64_t id, name; } *dom;
    size_t n_dom, cap_dom;
    struct { uint64_t id, domain; } *ctx;
    size_t n_ctx, cap_ctx;
    bool oom;                 /* a table could not grow: what follows is incomplete */
} pcd_mono_sum;

void pcd_mono_sum_init(pcd_mono_sum *s, pcd_alloc *al);
void pcd_mono_sum_fini(pcd_mono_sum *s);

/* Takes a record: the header, a buffer (its thread), or an event, which is normalised into
 * *out and fed to pcd_mono_sum_event. Returns true for an event. */
bool pcd_mono_sum_record(pcd_mono_sum *s, const pcd_record *rec, pcd_mono_ev *out);
/* Feeds one neutral event (of the current buffer's thread) into the tables. */
void pcd_mono_sum_event(pcd_mono_sum *s, const pcd_mono_ev *m);
/* Counts the time of an event towards the file's time span. */
PCD_INLINE void pcd_mono_sum_time(pcd_mono_sum *s, uint64_t t)
{
    if (!s->have_time || t < s->first_time) s->first_time = t;
    if (!s->have_time || t > s->last_time) s->last_time = t;
    s->have_time = true;
}

/* Table entries, created on first sight (SIZE_MAX / NULL, with s->oom set, when out of memory). */
size_t pcd_mono_class_at(pcd_mono_sum *s, uint64_t ptr);
size_t pcd_mono_method_at(pcd_mono_sum *s, uint64_t ptr);
pcd_mono_thread *pcd_mono_thread_at(pcd_mono_sum *s, uint64_t id);

/* The class entry an allocation's vtable counts under: mprof-report's lookup_vtable, which
 * binds an unknown vtable for good to the class at address 0. */
size_t pcd_mono_vtable_class_slow(pcd_mono_sum *s, uint64_t vt, size_t ce);
PCD_INLINE size_t pcd_mono_vtable_class(pcd_mono_sum *s, uint64_t vt)
{
    /* a small direct-mapped cache in front of the map: allocations repeat vtables */
    size_t ce = (size_t)((vt >> 3) ^ (vt >> 13)) & (PCD_MONO_VT_CACHE - 1);
    if (PCD_LIKELY(s->vt_cache[ce].valid && s->vt_cache[ce].vt == vt)) return s->vt_cache[ce].cls;
    return pcd_mono_vtable_class_slow(s, vt, ce);
}

/* The thread of the current buffer (looked up once per buffer). */
PCD_INLINE pcd_mono_thread *pcd_mono_cur_thread(pcd_mono_sum *s)
{
    if (PCD_LIKELY(s->cur_index < s->n_thr && s->thr[s->cur_index].id == s->cur_thread)) return &s->thr[s->cur_index];
    pcd_mono_thread *t = pcd_mono_thread_at(s, s->cur_thread);
    if (t) s->cur_index = (size_t)(t - s->thr);
    return t;
}

/* A thread's enter/leave stack: push a frame; pop one (mprof-report's pop_method, which
 * counts the call only when the method is on top). pop returns the popped call's self time
 * and its node, or UINT64_MAX when the leave does not match. */
void pcd_mono_push_frame(pcd_mono_sum *s, pcd_mono_thread *t, uint64_t method, uint64_t time, uint32_t node);
uint64_t pcd_mono_pop_frame(pcd_mono_sum *s, pcd_mono_thread *t, uint64_t method, uint64_t time, uint32_t *node);

/* ---- names as mprof-report resolves them, at the end of the file ------------------------------ */

/* A method's name ("unknown method 0x..." / "(nil)" when no JIT event named it), a class's
 * ("unresolved class 0x..." / "(nil)"); tmp (at least 64 bytes) holds made-up names. */
const char *pcd_mono_method_name(const pcd_mono_sum *s, uint64_t ptr, char *tmp, size_t cap);
const char *pcd_mono_class_name(const pcd_mono_sum *s, uint64_t ptr, char *tmp, size_t cap);
/* Sorts the unmanaged symbols by address (before pcd_mono_ip_*). */
void pcd_mono_sort_usyms(pcd_mono_sum *s);
/* The method whose code holds ip, chosen as mprof-report's hash walk would (SIZE_MAX none). */
size_t pcd_mono_method_by_ip(const pcd_mono_sum *s, uint64_t ip);
/* The name a sample at ip is counted under (a method's, else an unmanaged symbol's at or
 * before ip within 4096 bytes), or NULL (unresolved); *managed tells which. */
const char *pcd_mono_ip_name(const pcd_mono_sum *s, uint64_t ip, bool *managed);

/* ---- registration (mono.c) ------------------------------------------------------------------ */

extern const pcd_info_ops pcd_mono_info_ops;      /* info.c */
extern const pcd_model_importer pcd_mono_model;   /* import.c */

#endif
