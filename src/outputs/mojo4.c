/* outputs/mojo4.c: what only MOJO 4 writes (outputs/mojo.c says how): stack repeats where Austin
 * 4's writer would use them, and asyncio tasks (lanes) as task stacks and task waiters. */
#include <string.h>

#include "common/vec.h"
#include "outputs/mojo_out.h"
#include "outputs/render.h"

/* austin-python's native frame: a file that neither ends in ".py" nor is "<...>". */
static bool is_native(const pcd_profile *p, const pcd_frame *f)
{
    pcd_bytes b = pcd_profile_text(p, f->file);
    if (b.len >= 3 && memcmp(b.ptr + b.len - 3, ".py", 3) == 0) return false;
    return !(b.len >= 1 && b.ptr[0] == '<' && b.ptr[b.len - 1] == '>');
}

/* The thread as readers tell threads apart (pid and the thread text written), made if new. */
static pcd_status rthread_of(mojo_out *m, pcd_thread_id t, const pcd_mojo_v4_event *stack, rthread **out)
{
    if (t >= m->rt_of_cap) {
        size_t old = m->rt_of_cap;
        PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->rt_of, m->rt_of_cap, (size_t)t + 1));
        memset(m->rt_of + old, 0, (m->rt_of_cap - old) * sizeof *m->rt_of);
    }
    if (!m->rt_of[t]) {
        pcd_mojo_int pid = stack->u.stack.pid;
        pcd_bytes text = stack->u.stack.tid;
        size_t i = 0;
        for (; i < m->n_rt; i++) {
            const rthread *r = &m->rt[i];
            if (r->pid.mag == pid.mag && r->pid.neg == pid.neg && r->text_len == text.len &&
                (!text.len || memcmp(m->texts + r->text_off, text.ptr, text.len) == 0))
                break;
        }
        if (i == m->n_rt) {
            PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->rt, m->rt_cap, m->n_rt + 1));
            PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->texts, m->texts_cap, m->texts_len + text.len));
            rthread *r = &m->rt[m->n_rt++];
            memset(r, 0, sizeof *r);
            r->pid = pid;
            r->text_off = m->texts_len;
            r->text_len = text.len;
            if (text.len) memcpy(m->texts + m->texts_len, text.ptr, text.len);
            m->texts_len += text.len;
        }
        m->rt_of[t] = (uint32_t)i + 1;
    }
    *out = &m->rt[m->rt_of[t] - 1];
    return PCD_OK;
}

/* Whether this sample (m->fr, n frames) repeats its thread's previous one as Austin 4's writer
 * would say it: *from is where its references go on after a stack repeat, 0 when there is none.
 * The thread's previous frames become this sample's. */
pcd_status mojo_repeat_of(mojo_out *m, const pcd_profile *p, pcd_thread_id t, const pcd_mojo_v4_event *stack,
                            size_t n, size_t *from)
{
    rthread *r;
    PCD_TRY(rthread_of(m, t, stack, &r));
    size_t k = r->n_fr;
    while (k && is_native(p, pcd_profile_frame_at(p, r->fr[k - 1]))) k--;
    *from = 0;
    if (k && k <= n) {
        bool same = memcmp(r->fr, m->fr, k * sizeof *m->fr) == 0;
        for (size_t i = k; same && i < n; i++) {
            const pcd_frame *f = pcd_profile_frame_at(p, m->fr[i]);
            if (mojo_is_ref(f) && !is_native(p, f)) same = false; /* a Python frame more: not the same stack */
        }
        if (same) *from = k;
    }
    /* what a reader keeps of this sample for the next repeat: its frame references */
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, r->fr, r->fr_cap, n));
    r->n_fr = 0;
    for (size_t i = 0; i < n; i++)
        if (mojo_is_ref(pcd_profile_frame_at(p, m->fr[i]))) r->fr[r->n_fr++] = m->fr[i];
    return PCD_OK;
}

static pcd_status put_task_stack(mojo_out *m, pcd_profile *p, const pcd_thread *lane, pcd_stack_id st,
                                 uint64_t us)
{
    pcd_mojo_int pid = mint(lane->pid == PCD_ID_NONE ? 0 : lane->pid);
    /* (m->fr holds the sample being written) */
    size_t n = pcd_stack_depth(p, st);
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->tfr, m->tfr_cap, n));
    n = pcd_stack_frames(p, st, m->tfr);
    PCD_TRY(mojo_define_stack(m, pid, p, st, m->tfr, n));
    if (lane->name) PCD_TRY(mojo_define_string(m, pid, p, lane->name));
    pcd_mojo_v4_event ev;
    memset(&ev, 0, sizeof ev);
    ev.which = PCD_MOJO_V4_EVENT_TASK_STACK;
    ev.tag = PCD_MOJO_V4_EVENT_TASK_STACK_TAG;
    ev.u.task_stack.task = (pcd_mojo_int){ lane->tid, false };
    ev.u.task_stack.name = lane->name ? mint((int64_t)lane->name + 2) : mint(0);
    PCD_TRY(mojo_put(m, &ev));
    for (size_t i = 0; i < n; i++) {
        if (!mojo_is_ref(pcd_profile_frame_at(p, m->tfr[i]))) continue; /* a task's stack is its frames */
        memset(&ev, 0, sizeof ev);
        ev.which = PCD_MOJO_V4_EVENT_FRAME_REF;
        ev.tag = PCD_MOJO_V4_EVENT_FRAME_REF_TAG;
        ev.u.frame_ref.key = mint(m->tfr[i]);
        PCD_TRY(mojo_put(m, &ev));
    }
    return mojo_put_time(m, us);
}

/* The task events waiting for a sample of thread t (all of them: t UINT32_MAX), in order. */
pcd_status mojo_flush_tasks(mojo_out *m, pcd_profile *p, pcd_thread_id t)
{
    size_t keep = 0;
    for (size_t i = 0; i < m->n_tev; i++) {
        task_ev e = m->tev[i];
        const pcd_thread *lane = &p->threads[e.lane];
        if (t != UINT32_MAX && lane->lane_of - 1 != t) {
            m->tev[keep++] = e;
            continue;
        }
        if (e.waiter != UINT32_MAX) {
            pcd_mojo_v4_event ev;
            memset(&ev, 0, sizeof ev);
            ev.which = PCD_MOJO_V4_EVENT_TASK_WAITER;
            ev.tag = PCD_MOJO_V4_EVENT_TASK_WAITER_TAG;
            ev.u.task_waiter.task = (pcd_mojo_int){ lane->tid, false };
            ev.u.task_waiter.waiter = (pcd_mojo_int){ p->threads[e.waiter].tid, false };
            PCD_TRY(mojo_put(m, &ev));
            continue;
        }
        /* this point now, the time at the one before (0 for the task's first) */
        bool fresh;
        pcd_hslot *sl = pcd_hmap_put(&m->tasks, (pcd_hkey){ e.lane, 0, 0 }, &fresh);
        if (!sl) return PCD_E_NOMEM;
        PCD_TRY(put_task_stack(m, p, lane, e.stack, fresh ? 0 : sl->v1));
        sl->v0 = (uint64_t)e.stack + 1;
        sl->v1 = e.us;
    }
    m->n_tev = keep;
    return PCD_OK;
}

/* The end: each task's last time on a task stack without frames. */
pcd_status mojo_close_tasks(mojo_out *m, pcd_profile *p)
{
    if (!m->any_stack) {
        /* nothing to put them in */
        m->warn[W_LANES] += m->n_tev;
        m->n_tev = 0;
        return PCD_OK;
    }
    PCD_TRY(mojo_flush_tasks(m, p, UINT32_MAX));
    for (size_t i = 0; i < m->tasks.cap; i++) {
        const pcd_hslot *sl = &m->tasks.slots[i];
        if (!sl->used || !sl->v0) continue;
        const pcd_thread *lane = &p->threads[sl->k.a];
        pcd_mojo_int pid = mint(lane->pid == PCD_ID_NONE ? 0 : lane->pid);
        if (lane->name) PCD_TRY(mojo_define_string(m, pid, p, lane->name));
        pcd_mojo_v4_event ev;
        memset(&ev, 0, sizeof ev);
        ev.which = PCD_MOJO_V4_EVENT_TASK_STACK;
        ev.tag = PCD_MOJO_V4_EVENT_TASK_STACK_TAG;
        ev.u.task_stack.task = (pcd_mojo_int){ lane->tid, false };
        ev.u.task_stack.name = lane->name ? mint((int64_t)lane->name + 2) : mint(0);
        PCD_TRY(mojo_put(m, &ev));
        PCD_TRY(mojo_put_time(m, sl->v1));
    }
    return PCD_OK;
}

pcd_status mojo_add_task_ev(mojo_out *m, task_ev e)
{
    PCD_TRY(PCD_VEC_RESERVE(m->j->al, m->tev, m->tev_cap, m->n_tev + 1));
    m->tev[m->n_tev++] = e;
    return PCD_OK;
}

pcd_status mojo_link(void *ud, pcd_profile *p, const pcd_link *l)
{
    mojo_out *m = ud;
    const pcd_thread *a = &p->threads[l->from], *b = &p->threads[l->to];
    if (m->version != 4 || !pcd_bytes_is(pcd_profile_text(p, l->kind), "awaited-by") || !a->lane_of ||
        !b->lane_of || !a->has_tid || !b->has_tid) {
        m->warn[W_LINKS]++;
        return PCD_OK;
    }
    return mojo_add_task_ev(m, (task_ev){ l->from, l->to, 0, 0 });
}
