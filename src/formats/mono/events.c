/* formats/mono/events.c: the events of both versions (0.1 of 2010, 3.0 / data 17 of Mono 6.x)
 * turned into one neutral event (pcd_mono_ev), which the summary and the importer read. */
#include <string.h>

#include "formats/mono/mono.h"

#define SET_BT(ev, b, n) ((ev)->has_bt = true, (ev)->bt = (b), (ev)->n_bt = (n))

/* The neutral event carries 3.0's numbers; 0.1's that it keeps are the same. */
PCD_STATIC_ASSERT(PCD_MONO_V0_1_GC_EVENT_START == PCD_MONO_V3_0_GC_EVENT_START &&
                      PCD_MONO_V0_1_GC_EVENT_END == PCD_MONO_V3_0_GC_EVENT_END,
                  "GC events");
PCD_STATIC_ASSERT(PCD_MONO_V0_1_GC_EVENT_MARK_START == PCD_MONO_V3_0_GC_EVENT_MARK_START &&
                      PCD_MONO_V0_1_GC_EVENT_MARK_END == PCD_MONO_V3_0_GC_EVENT_MARK_END &&
                      PCD_MONO_V0_1_GC_EVENT_RECLAIM_START == PCD_MONO_V3_0_GC_EVENT_RECLAIM_START &&
                      PCD_MONO_V0_1_GC_EVENT_RECLAIM_END == PCD_MONO_V3_0_GC_EVENT_RECLAIM_END &&
                      PCD_MONO_V0_1_GC_EVENT_PRE_STOP_WORLD == PCD_MONO_V3_0_GC_EVENT_PRE_STOP_WORLD &&
                      PCD_MONO_V0_1_GC_EVENT_POST_START_WORLD == PCD_MONO_V3_0_GC_EVENT_POST_START_WORLD,
                  "GC phases and world stops");
PCD_STATIC_ASSERT(PCD_MONO_V0_1_METADATA_TYPE_CLASS == PCD_MONO_V3_0_METADATA_TYPE_CLASS &&
                      PCD_MONO_V0_1_METADATA_TYPE_IMAGE == PCD_MONO_V3_0_METADATA_TYPE_IMAGE,
                  "metadata types");
PCD_STATIC_ASSERT(PCD_MONO_V0_1_CLAUSE_TYPE_FAULT == PCD_MONO_V3_0_CLAUSE_TYPE_FAULT, "clause types");

void pcd_mono_norm_v0_1(const pcd_mono_v0_1_event *e, pcd_mono_ev *m)
{
    memset(m, 0, sizeof *m);
    m->has_time = true;
    switch (e->which) {
    case PCD_MONO_V0_1_EVENT_ALLOC:
        m->kind = PCD_MONO_EV_ALLOC, m->time = e->u.alloc.time, m->p1 = (uint64_t)e->u.alloc.class, m->n1 = e->u.alloc.size;
        break;
    case PCD_MONO_V0_1_EVENT_ALLOC_BT: {
        const pcd_mono_v0_1_event_alloc_bt *a = &e->u.alloc_bt;
        m->kind = PCD_MONO_EV_ALLOC, m->time = a->time, m->p1 = (uint64_t)a->class, m->n1 = a->size;
        SET_BT(m, a->backtrace.frames, a->backtrace.n_frames);
        break;
    }
    case PCD_MONO_V0_1_EVENT_GC_EVENT:
        m->kind = PCD_MONO_EV_GC_EVENT, m->time = e->u.gc_event.time, m->n1 = e->u.gc_event.event, m->n2 = e->u.gc_event.generation;
        break;
    case PCD_MONO_V0_1_EVENT_GC_RESIZE:
        m->kind = PCD_MONO_EV_GC_RESIZE, m->time = e->u.gc_resize.time, m->n1 = e->u.gc_resize.heap_size;
        break;
    case PCD_MONO_V0_1_EVENT_GC_MOVE:
        m->kind = PCD_MONO_EV_GC_MOVE, m->time = e->u.gc_move.time, m->n1 = e->u.gc_move.n_objects;
        break;
#define META01(C, M, SUB)                                                                          \
    case C: {                                                                                      \
        const __typeof__(e->u.M) *x = &e->u.M;                                                     \
        m->kind = PCD_MONO_EV_META, m->time = x->time, m->mtype = x->mtype, m->msub = SUB, m->p1 = (uint64_t)x->pointer; \
        if (x->mtype == PCD_MONO_V0_1_METADATA_TYPE_CLASS) m->name = x->detail.u.class.name;                     \
        else m->name = x->detail.u.image.name;                                                     \
        break;                                                                                     \
    }
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_LOAD, metadata_start_load, PCD_MONO_META_START)
        META01(PCD_MONO_V0_1_EVENT_METADATA_LOAD, metadata_load, PCD_MONO_META_LOAD)
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_UNLOAD, metadata_start_unload, PCD_MONO_META_START)
        META01(PCD_MONO_V0_1_EVENT_METADATA_UNLOAD, metadata_unload, PCD_MONO_META_UNLOAD)
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_LOAD_ERR, metadata_start_load_err, PCD_MONO_META_ERR)
        META01(PCD_MONO_V0_1_EVENT_METADATA_LOAD_ERR, metadata_load_err, PCD_MONO_META_ERR)
        META01(PCD_MONO_V0_1_EVENT_METADATA_START_UNLOAD_ERR, metadata_start_unload_err, PCD_MONO_META_ERR)
        META01(PCD_MONO_V0_1_EVENT_METADATA_UNLOAD_ERR, metadata_unload_err, PCD_MONO_META_ERR)
    case PCD_MONO_V0_1_EVENT_METHOD_ENTER:
        m->kind = PCD_MONO_EV_ENTER, m->time = e->u.method_enter.time, m->p1 = (uint64_t)e->u.method_enter.method;
        break;
    case PCD_MONO_V0_1_EVENT_METHOD_LEAVE:
        m->kind = PCD_MONO_EV_LEAVE, m->time = e->u.method_leave.time, m->p1 = (uint64_t)e->u.method_leave.method;
        break;
    case PCD_MONO_V0_1_EVENT_METHOD_EXC_LEAVE:
        m->kind = PCD_MONO_EV_LEAVE, m->time = e->u.method_exc_leave.time, m->p1 = (uint64_t)e->u.method_exc_leave.method;
        break;
    case PCD_MONO_V0_1_EVENT_JIT:
        m->kind = PCD_MONO_EV_JIT, m->time = e->u.jit.time, m->p1 = (uint64_t)e->u.jit.method, m->p2 = (uint64_t)e->u.jit.code;
        m->n1 = e->u.jit.code_size, m->name = e->u.jit.name;
        break;
    case PCD_MONO_V0_1_EVENT_THROW:
        m->kind = PCD_MONO_EV_THROW, m->time = e->u.throw.time;
        break;
    case PCD_MONO_V0_1_EVENT_THROW_BT:
        m->kind = PCD_MONO_EV_THROW, m->time = e->u.throw_bt.time;
        SET_BT(m, e->u.throw_bt.backtrace.frames, e->u.throw_bt.backtrace.n_frames);
        break;
    case PCD_MONO_V0_1_EVENT_CLAUSE:
        m->kind = PCD_MONO_EV_CLAUSE, m->time = e->u.clause.time, m->n1 = e->u.clause.clause_type, m->p1 = (uint64_t)e->u.clause.method;
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_CONTENTION:
        m->kind = PCD_MONO_EV_MONITOR, m->time = e->u.monitor_contention.time, m->n1 = PCD_MONO_V3_0_MONITOR_EVENT_CONTENTION;
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_CONTENTION_BT:
        m->kind = PCD_MONO_EV_MONITOR, m->time = e->u.monitor_contention_bt.time,
        m->n1 = PCD_MONO_V3_0_MONITOR_EVENT_CONTENTION;
        SET_BT(m, e->u.monitor_contention_bt.backtrace.frames, e->u.monitor_contention_bt.backtrace.n_frames);
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_DONE:
        m->kind = PCD_MONO_EV_MONITOR, m->time = e->u.monitor_done.time, m->n1 = PCD_MONO_V3_0_MONITOR_EVENT_DONE;
        break;
    case PCD_MONO_V0_1_EVENT_MONITOR_FAIL:
        m->kind = PCD_MONO_EV_MONITOR, m->time = e->u.monitor_fail.time, m->n1 = PCD_MONO_V3_0_MONITOR_EVENT_FAIL;
        break;
    case PCD_MONO_V0_1_EVENT_HEAP_START:
        m->kind = PCD_MONO_EV_OTHER, m->time = e->u.heap_start.time;
        break;
    case PCD_MONO_V0_1_EVENT_HEAP_END:
        m->kind = PCD_MONO_EV_OTHER, m->time = e->u.heap_end.time;
        break;
    default:
        m->kind = PCD_MONO_EV_OTHER, m->has_time = false; /* heap objects carry no time in 0.1 */
        break;
    }
}

void pcd_mono_norm_v3_0(const pcd_mono_v3_0_event *e, pcd_mono_ev *m)
{
    memset(m, 0, sizeof *m);
    m->has_time = true;
    /* every case of this version starts with its time */
    memcpy(&m->time, &e->u, sizeof m->time);
    m->kind = PCD_MONO_EV_OTHER;
    switch (e->which) {
    case PCD_MONO_V3_0_EVENT_ALLOC:
        m->kind = PCD_MONO_EV_ALLOC, m->vtable = true, m->p1 = (uint64_t)e->u.alloc.vtable, m->n1 = e->u.alloc.size;
        break;
    case PCD_MONO_V3_0_EVENT_ALLOC_BT:
        m->kind = PCD_MONO_EV_ALLOC, m->vtable = true, m->p1 = (uint64_t)e->u.alloc_bt.vtable, m->n1 = e->u.alloc_bt.size;
        SET_BT(m, e->u.alloc_bt.backtrace, e->u.alloc_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_GC_EVENT:
        m->kind = PCD_MONO_EV_GC_EVENT, m->n1 = e->u.gc_event.event, m->n2 = e->u.gc_event.generation;
        break;
    case PCD_MONO_V3_0_EVENT_GC_RESIZE:
        m->kind = PCD_MONO_EV_GC_RESIZE, m->n1 = e->u.gc_resize.heap_size;
        break;
    case PCD_MONO_V3_0_EVENT_GC_MOVE:
        m->kind = PCD_MONO_EV_GC_MOVE, m->n1 = e->u.gc_move.n_objects;
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_CREATED:
        m->kind = PCD_MONO_EV_HANDLE_NEW, m->n1 = e->u.gc_handle_created.handle_type;
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_CREATED_BT:
        m->kind = PCD_MONO_EV_HANDLE_NEW, m->n1 = e->u.gc_handle_created_bt.handle_type;
        SET_BT(m, e->u.gc_handle_created_bt.backtrace, e->u.gc_handle_created_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_DESTROYED:
        m->kind = PCD_MONO_EV_HANDLE_FREE, m->n1 = e->u.gc_handle_destroyed.handle_type;
        break;
    case PCD_MONO_V3_0_EVENT_GC_HANDLE_DESTROYED_BT:
        m->kind = PCD_MONO_EV_HANDLE_FREE, m->n1 = e->u.gc_handle_destroyed_bt.handle_type;
        SET_BT(m, e->u.gc_handle_destroyed_bt.backtrace, e->u.gc_handle_destroyed_bt.n_backtrace);
        break;
#define META30(C, M, SUB, PFX)                                                                     \
    case C: {                                                                                      \
        const __typeof__(e->u.M) *x = &e->u.M;                                                     \
        m->kind = PCD_MONO_EV_META, m->mtype = x->mtype, m->msub = SUB, m->p1 = (uint64_t)x->pointer;      \
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
        META30(PCD_MONO_V3_0_EVENT_METADATA_LOAD, metadata_load, PCD_MONO_META_LOAD, PCD_MONO_V3_0_EVENT_METADATA_LOAD_DETAIL)
        META30(PCD_MONO_V3_0_EVENT_METADATA_UNLOAD, metadata_unload, PCD_MONO_META_UNLOAD, PCD_MONO_V3_0_EVENT_METADATA_UNLOAD_DETAIL)
    case PCD_MONO_V3_0_EVENT_METADATA_NAME: {
        const pcd_mono_v3_0_event_metadata_name *x = &e->u.metadata_name;
        m->kind = PCD_MONO_EV_META, m->mtype = x->mtype, m->msub = PCD_MONO_META_NAME, m->p1 = (uint64_t)x->pointer;
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
        m->kind = PCD_MONO_EV_ENTER, m->p1 = (uint64_t)e->u.method_enter.method;
        break;
    case PCD_MONO_V3_0_EVENT_METHOD_LEAVE:
        m->kind = PCD_MONO_EV_LEAVE, m->p1 = (uint64_t)e->u.method_leave.method;
        break;
    case PCD_MONO_V3_0_EVENT_METHOD_EXC_LEAVE:
        m->kind = PCD_MONO_EV_LEAVE, m->p1 = (uint64_t)e->u.method_exc_leave.method;
        break;
    case PCD_MONO_V3_0_EVENT_JIT:
        m->kind = PCD_MONO_EV_JIT, m->p1 = (uint64_t)e->u.jit.method, m->p2 = (uint64_t)e->u.jit.code;
        m->n1 = e->u.jit.code_size, m->name = e->u.jit.name;
        break;
    case PCD_MONO_V3_0_EVENT_THROW:
        m->kind = PCD_MONO_EV_THROW;
        break;
    case PCD_MONO_V3_0_EVENT_THROW_BT:
        m->kind = PCD_MONO_EV_THROW;
        SET_BT(m, e->u.throw_bt.backtrace, e->u.throw_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_CLAUSE:
        m->kind = PCD_MONO_EV_CLAUSE, m->n1 = e->u.clause.clause_type, m->p1 = (uint64_t)e->u.clause.method;
        break;
    case PCD_MONO_V3_0_EVENT_MONITOR:
        m->kind = PCD_MONO_EV_MONITOR, m->n1 = e->u.monitor.event;
        break;
    case PCD_MONO_V3_0_EVENT_MONITOR_BT:
        m->kind = PCD_MONO_EV_MONITOR, m->n1 = e->u.monitor_bt.event;
        SET_BT(m, e->u.monitor_bt.backtrace, e->u.monitor_bt.n_backtrace);
        break;
    case PCD_MONO_V3_0_EVENT_SAMPLE_HIT:
        m->kind = PCD_MONO_EV_SAMPLE, m->ips = e->u.sample_hit.ips, m->n_ips = e->u.sample_hit.n_ips;
        m->p1 = (uint64_t)e->u.sample_hit.thread;
        SET_BT(m, e->u.sample_hit.frames, e->u.sample_hit.n_frames);
        break;
    case PCD_MONO_V3_0_EVENT_SAMPLE_USYM:
        m->kind = PCD_MONO_EV_USYM, m->p1 = (uint64_t)e->u.sample_usym.address, m->n1 = e->u.sample_usym.size;
        m->name = e->u.sample_usym.name;
        break;
    case PCD_MONO_V3_0_EVENT_JIT_HELPER:
        m->kind = PCD_MONO_EV_HELPER, m->n1 = e->u.jit_helper.size;
        break;
    default: break;
    }
}
