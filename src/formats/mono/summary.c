/* formats/mono/summary.c: what mprof-report keeps while it reads a file (names, classes,
 * vtables, methods, threads with their enter/leave stacks, sample hits, unmanaged symbols,
 * counters), and how it resolves names at the end of the file. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vec.h"
#include "formats/mono/mono.h"

/* ---- names ---------------------------------------------------------------------------------- */

/* Appends a copy and returns its ref (offset + 1); 0 (with s->oom) when out of memory. */
static uint64_t name_add(pcd_mono_sum *s, const uint8_t *p, size_t n)
{
    pcd_mono_names *nm = &s->names;
    if (n > SIZE_MAX / 2 - nm->len || PCD_VEC_RESERVE(nm->al, nm->buf, nm->cap, nm->len + n + 1) != PCD_OK) {
        s->oom = true;
        return 0;
    }
    size_t at = nm->len;
    if (n) memcpy(nm->buf + at, p, n);
    nm->buf[at + n] = 0;
    nm->len += n + 1;
    return at + 1;
}

/* The stored name ref if it already holds these bytes, else a new one (names repeat: a
 * file whose buffers repeat would otherwise grow the pool with every copy). */
static uint64_t name_keep(pcd_mono_sum *s, uint64_t ref, const uint8_t *p, size_t n)
{
    const char *old = pcd_mono_name(&s->names, ref);
    if (old && strlen(old) == n && (n == 0 || memcmp(old, p, n) == 0)) return ref;
    return name_add(s, p, n);
}

/* ---- tables --------------------------------------------------------------------------------- */

void pcd_mono_sum_init(pcd_mono_sum *s, pcd_alloc *al)
{
    memset(s, 0, sizeof *s);
    s->al = al;
    s->names.al = al;
    pcd_hmap_init(&s->classes, al);
    pcd_hmap_init(&s->vtables, al);
    pcd_hmap_init(&s->methods, al);
    pcd_hmap_init(&s->thr_index, al);
}

void pcd_mono_sum_fini(pcd_mono_sum *s)
{
    pcd_alloc *al = s->al;
    pcd_hmap_free(&s->classes);
    pcd_hmap_free(&s->vtables);
    pcd_hmap_free(&s->methods);
    pcd_hmap_free(&s->thr_index);
    for (size_t i = 0; i < s->n_thr; i++) PCD_VEC_FREE(al, s->thr[i].stack, s->thr[i].cap);
    PCD_VEC_FREE(al, s->thr, s->cap_thr);
    PCD_VEC_FREE(al, s->cls, s->cap_cls);
    PCD_VEC_FREE(al, s->mth, s->cap_mth);
    PCD_VEC_FREE(al, s->ips, s->cap_ips);
    PCD_VEC_FREE(al, s->usyms, s->cap_usyms);
    PCD_VEC_FREE(al, s->dom, s->cap_dom);
    PCD_VEC_FREE(al, s->ctx, s->cap_ctx);
    PCD_VEC_FREE(al, s->names.buf, s->names.cap);
}

/* Room for one more element in a table (s->oom when refused). */
#define ROOM(s, arr, n, cap) (PCD_VEC_RESERVE((s)->al, arr, cap, (n) + 1) == PCD_OK ? true : ((s)->oom = true, false))

/* The domain (or context) entry of an id, created on first sight (the lists are short:
 * a program has a few application domains). */
static size_t domain_at(pcd_mono_sum *s, uint64_t id)
{
    for (size_t i = 0; i < s->n_dom; i++)
        if (s->dom[i].id == id) return i;
    if (!ROOM(s, s->dom, s->n_dom, s->cap_dom)) return SIZE_MAX;
    s->dom[s->n_dom].id = id;
    s->dom[s->n_dom].name = 0;
    return s->n_dom++;
}

static size_t context_at(pcd_mono_sum *s, uint64_t id)
{
    for (size_t i = 0; i < s->n_ctx; i++)
        if (s->ctx[i].id == id) return i;
    if (!ROOM(s, s->ctx, s->n_ctx, s->cap_ctx)) return SIZE_MAX;
    s->ctx[s->n_ctx].id = id;
    s->ctx[s->n_ctx].domain = 0;
    return s->n_ctx++;
}

/* mprof-report's lookup_class/add_class. */
size_t pcd_mono_class_at(pcd_mono_sum *s, uint64_t ptr)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->classes, (pcd_hkey){ ptr, 0, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return SIZE_MAX;
    }
    if (fresh) {
        if (!ROOM(s, s->cls, s->n_cls, s->cap_cls)) {
            /* keep the map and the array in step: the slot names no entry yet */
            sl->v1 = SIZE_MAX;
            return SIZE_MAX;
        }
        sl->v1 = s->n_cls;
        s->cls[s->n_cls++] = (pcd_mono_class){ ptr, 0, 0, 0 };
    }
    return sl->v1 == SIZE_MAX ? SIZE_MAX : (size_t)sl->v1;
}

/* lookup_vtable for a vtable load event: an unknown vtable is bound, for good, to its class */
static void vtable_load(pcd_mono_sum *s, uint64_t vt, uint64_t klass)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->vtables, (pcd_hkey){ vt, 1, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return;
    }
    if (fresh) {
        sl->v0 = klass;
        sl->v1 = UINT64_MAX;
        pcd_mono_class_at(s, klass);
    }
}

size_t pcd_mono_vtable_class_slow(pcd_mono_sum *s, uint64_t vt, size_t ce)
{
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
        size_t ci = pcd_mono_class_at(s, klass);
        /* class_at grows another map, but look the slot up again all the same */
        sl = pcd_hmap_get(&s->vtables, (pcd_hkey){ vt, 1, 0 });
        if (!sl || ci == SIZE_MAX) return SIZE_MAX;
        sl->v1 = ci;
    }
    s->vt_cache[ce].vt = vt;
    s->vt_cache[ce].cls = (size_t)sl->v1;
    s->vt_cache[ce].valid = true;
    return (size_t)sl->v1;
}

size_t pcd_mono_method_at(pcd_mono_sum *s, uint64_t ptr)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->methods, (pcd_hkey){ ptr, 2, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return SIZE_MAX;
    }
    if (fresh) {
        if (!ROOM(s, s->mth, s->n_mth, s->cap_mth)) {
            sl->v1 = SIZE_MAX;
            return SIZE_MAX;
        }
        sl->v1 = s->n_mth;
        s->mth[s->n_mth] = (pcd_mono_method){ ptr, 0, 0, 0, 0, s->n_mth, false };
        s->n_mth++;
    }
    return sl->v1 == SIZE_MAX ? SIZE_MAX : (size_t)sl->v1;
}

pcd_mono_thread *pcd_mono_thread_at(pcd_mono_sum *s, uint64_t id)
{
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&s->thr_index, (pcd_hkey){ id, 3, 0 }, &fresh);
    if (!sl) {
        s->oom = true;
        return NULL;
    }
    if (fresh) {
        if (!ROOM(s, s->thr, s->n_thr, s->cap_thr)) {
            sl->v0 = SIZE_MAX;
            return NULL;
        }
        sl->v0 = s->n_thr;
        memset(&s->thr[s->n_thr], 0, sizeof s->thr[0]);
        s->thr[s->n_thr].id = id;
        s->n_thr++;
    }
    return sl->v0 == SIZE_MAX ? NULL : &s->thr[sl->v0];
}

void pcd_mono_push_frame(pcd_mono_sum *s, pcd_mono_thread *t, uint64_t method, uint64_t time, uint32_t node)
{
    if (!ROOM(s, t->stack, t->depth, t->cap)) return;
    t->stack[t->depth++] = (pcd_mono_frame){ method, time, 0, node };
}

uint64_t pcd_mono_pop_frame(pcd_mono_sum *s, pcd_mono_thread *t, uint64_t method, uint64_t time, uint32_t *node)
{
    if (t->depth == 0 || t->stack[t->depth - 1].method != method) return UINT64_MAX;
    pcd_mono_frame *f = &t->stack[--t->depth];
    size_t mi = pcd_mono_method_at(s, method);
    if (mi != SIZE_MAX) s->mth[mi].calls++;
    uint64_t total = time - f->start;
    uint64_t self = total - f->callee;
    if (t->depth) t->stack[t->depth - 1].callee += total;
    if (node) *node = f->node;
    return self;
}

/* ---- events --------------------------------------------------------------------------------- */

void pcd_mono_sum_event(pcd_mono_sum *s, const pcd_mono_ev *m)
{
    s->events++;
    if (m->has_time) pcd_mono_sum_time(s, m->time);
    pcd_mono_thread *t = pcd_mono_cur_thread(s);
    if (!t) return;
    switch (m->kind) {
    case PCD_MONO_EV_ALLOC: {
        size_t ci = m->vtable ? pcd_mono_vtable_class(s, m->p1) : pcd_mono_class_at(s, m->p1);
        if (ci != SIZE_MAX) {
            s->cls[ci].allocs++;
            s->cls[ci].bytes += m->n1;
        }
        break;
    }
    case PCD_MONO_EV_GC_EVENT:
        if (m->n2 > 2) break;
        if (m->n1 == PCD_MONO_V3_0_GC_EVENT_START) {
            t->gc_start[m->n2] = m->time;
            s->gc[m->n2].count++;
        } else if (m->n1 == PCD_MONO_V3_0_GC_EVENT_END) {
            uint64_t d = m->time - t->gc_start[m->n2];
            s->gc[m->n2].total += d;
            if (d > s->gc[m->n2].max) s->gc[m->n2].max = d;
        }
        break;
    case PCD_MONO_EV_GC_RESIZE:
        s->gc_resizes++;
        if (m->n1 > s->max_heap) s->max_heap = m->n1;
        break;
    case PCD_MONO_EV_GC_MOVE: s->moves += m->n1 / 2; break;
    case PCD_MONO_EV_HANDLE_NEW:
        if (m->n1 < sizeof s->handles / sizeof s->handles[0]) { /* the gc_handle_type values */
            s->handles[m->n1].created++;
            if (++s->handles[m->n1].live > s->handles[m->n1].max_live) s->handles[m->n1].max_live = s->handles[m->n1].live;
        }
        break;
    case PCD_MONO_EV_HANDLE_FREE:
        if (m->n1 < sizeof s->handles / sizeof s->handles[0]) {
            s->handles[m->n1].destroyed++;
            s->handles[m->n1].live--;
        }
        break;
    case PCD_MONO_EV_META:
        switch (m->mtype) {
        case PCD_MONO_V3_0_METADATA_TYPE_CLASS:
            if (m->msub != PCD_MONO_META_ERR) {
                size_t ci = pcd_mono_class_at(s, m->p1);
                if (ci != SIZE_MAX) s->cls[ci].name = name_keep(s, s->cls[ci].name, m->name.ptr, m->name.len);
            }
            break;
        case PCD_MONO_V3_0_METADATA_TYPE_IMAGE: if (m->msub == PCD_MONO_META_LOAD) s->images++; break;
        case PCD_MONO_V3_0_METADATA_TYPE_ASSEMBLY: if (m->msub == PCD_MONO_META_LOAD) s->assemblies++; break;
        case PCD_MONO_V3_0_METADATA_TYPE_THREAD: {
            pcd_mono_thread *nt = pcd_mono_thread_at(s, m->p1);
            if (nt && m->msub == PCD_MONO_META_NAME) nt->name = name_keep(s, nt->name, m->name.ptr, m->name.len);
            break;
        }
        case PCD_MONO_V3_0_METADATA_TYPE_VTABLE: vtable_load(s, m->p1, m->p2); break;
        case PCD_MONO_V3_0_METADATA_TYPE_DOMAIN: {
            size_t di = domain_at(s, m->p1);
            if (di != SIZE_MAX && m->msub == PCD_MONO_META_NAME)
                s->dom[di].name = name_keep(s, s->dom[di].name, m->name.ptr, m->name.len);
            break;
        }
        case PCD_MONO_V3_0_METADATA_TYPE_CONTEXT:
            if (m->msub == PCD_MONO_META_LOAD) {
                size_t ci = context_at(s, m->p1);
                if (ci != SIZE_MAX) s->ctx[ci].domain = m->p2;
            }
            break;
        default: break;
        }
        break;
    case PCD_MONO_EV_JIT: {
        size_t mi = pcd_mono_method_at(s, m->p1);
        if (mi != SIZE_MAX) {
            s->mth[mi].name = name_keep(s, s->mth[mi].name, m->name.ptr, m->name.len);
            s->mth[mi].code = m->p2;
            s->mth[mi].len = m->n1;
            s->mth[mi].jitted = true;
        }
        break;
    }
    case PCD_MONO_EV_ENTER:
        pcd_mono_method_at(s, m->p1);
        pcd_mono_push_frame(s, t, m->p1, m->time, 0);
        break;
    case PCD_MONO_EV_LEAVE:
        pcd_mono_method_at(s, m->p1);
        pcd_mono_pop_frame(s, t, m->p1, m->time, NULL);
        break;
    case PCD_MONO_EV_THROW: s->throws++; break;
    case PCD_MONO_EV_CLAUSE:
        if (m->n1 < sizeof s->clauses / sizeof s->clauses[0]) s->clauses[m->n1]++;
        break;
    case PCD_MONO_EV_MONITOR:
        if (m->n1 == PCD_MONO_V3_0_MONITOR_EVENT_CONTENTION) s->contentions++;
        else if (m->n1 == PCD_MONO_V3_0_MONITOR_EVENT_DONE) s->acquired++;
        else if (m->n1 == PCD_MONO_V3_0_MONITOR_EVENT_FAIL) s->failures++;
        break;
    case PCD_MONO_EV_SAMPLE:
        if (!s->keep_ips) break;
        for (size_t i = 0; i < m->n_ips; i++) {
            if (!ROOM(s, s->ips, s->n_ips, s->cap_ips)) break;
            s->ips[s->n_ips++] = (uint64_t)m->ips[i];
        }
        break;
    case PCD_MONO_EV_USYM: {
        if (!ROOM(s, s->usyms, s->n_usyms, s->cap_usyms)) break;
        uint64_t nm = name_add(s, m->name.ptr, m->name.len);
        s->usyms[s->n_usyms++] = (pcd_mono_usym){ m->p1, m->n1, nm };
        break;
    }
    case PCD_MONO_EV_HELPER:
        s->helpers++;
        s->helpers_size += m->n1;
        break;
    default: break;
    }
}

bool pcd_mono_sum_record(pcd_mono_sum *s, const pcd_record *rec, pcd_mono_ev *out)
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
        s->args = name_add(s, h->args.ptr, h->args.len);
        s->arch = name_add(s, h->arch.ptr, h->arch.len);
        s->os = name_add(s, h->os.ptr, h->os.len);
        return false;
    }
    if (t == &pcd_mono_v0_1_buffer_type || t == &pcd_mono_v3_0_buffer_type) {
        s->buffers++;
        s->cur_thread = t == &pcd_mono_v0_1_buffer_type ? ((const pcd_mono_v0_1_buffer *)rec->data)->thread_id
                                                        : ((const pcd_mono_v3_0_buffer *)rec->data)->thread_id;
        pcd_mono_cur_thread(s); /* created if new; the index is kept for the events */
        return false;
    }
    if (t == &pcd_mono_v0_1_event_type) pcd_mono_norm_v0_1(rec->data, out);
    else if (t == &pcd_mono_v3_0_event_type) pcd_mono_norm_v3_0(rec->data, out);
    else return false;
    pcd_mono_sum_event(s, out);
    return true;
}

/* ---- names, resolved at the end ------------------------------------------------------------- */

const char *pcd_mono_method_name(const pcd_mono_sum *s, uint64_t ptr, char *tmp, size_t cap)
{
    pcd_hslot *sl = pcd_hmap_get(&s->methods, (pcd_hkey){ ptr, 2, 0 });
    if (sl && sl->v1 != SIZE_MAX && s->mth[sl->v1].name) return pcd_mono_name(&s->names, s->mth[sl->v1].name);
    if (ptr) snprintf(tmp, cap, "unknown method 0x%" PRIx64, ptr);
    else snprintf(tmp, cap, "unknown method (nil)");
    return tmp;
}

const char *pcd_mono_class_name(const pcd_mono_sum *s, uint64_t ptr, char *tmp, size_t cap)
{
    pcd_hslot *sl = pcd_hmap_get(&s->classes, (pcd_hkey){ ptr, 0, 0 });
    if (sl && sl->v1 != SIZE_MAX && s->cls[sl->v1].name) return pcd_mono_name(&s->names, s->cls[sl->v1].name);
    if (ptr) snprintf(tmp, cap, "unresolved class 0x%" PRIx64, ptr);
    else snprintf(tmp, cap, "unresolved class (nil)");
    return tmp;
}

static int cmp_usym(const void *a, const void *b)
{
    const pcd_mono_usym *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void pcd_mono_sort_usyms(pcd_mono_sum *s)
{
    if (s->n_usyms > 1) qsort(s->usyms, s->n_usyms, sizeof *s->usyms, cmp_usym);
}

/* mprof-report walks its method hash (slot ((ptr >> 2) & 0xffff) % 9371, newest first)
 * and takes the first method whose code holds ip. */
size_t pcd_mono_method_by_ip(const pcd_mono_sum *s, uint64_t ip)
{
    size_t best = SIZE_MAX;
    uint64_t best_slot = 0;
    for (size_t i = 0; i < s->n_mth; i++) {
        const pcd_mono_method *m = &s->mth[i];
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
static const pcd_mono_usym *usym_by_ip(const pcd_mono_sum *s, uint64_t ip)
{
    size_t lo = 0, hi = s->n_usyms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->usyms[mid].addr <= ip) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return NULL;
    const pcd_mono_usym *u = &s->usyms[lo - 1];
    if (u->addr == ip || ip - u->addr < 4096) return u;
    return NULL;
}

const char *pcd_mono_ip_name(const pcd_mono_sum *s, uint64_t ip, bool *managed)
{
    size_t mi = pcd_mono_method_by_ip(s, ip);
    if (mi != SIZE_MAX) {
        *managed = true;
        return pcd_mono_name(&s->names, s->mth[mi].name);
    }
    *managed = false;
    const pcd_mono_usym *u = usym_by_ip(s, ip);
    return u ? pcd_mono_name(&s->names, u->name) : NULL;
}
