/* outputs/perfetto.c: Perfetto's protobuf trace (ui.perfetto.dev, trace_processor), written as the
 * events come through the generated encoder of schemas/perfetto/v1.lua (generated/perfetto_v1.h:
 * one record per packet of the Trace), from
 *  - slices (Heph's spans, Mono's calls): a TrackEvent SLICE_BEGIN at the start and a SLICE_END
 *    at the end, on the slice's thread track, back to back (readers sort packets by time);
 *    the name interned (event_names), the category inline;
 *  - samples with times (PCD_NEEDS_TIMES): a PerfSample of the thread (pid, tid) whose stack is
 *    an interned callstack: its frames (outermost first), each frame's function name. Samples
 *    without times are left out (as chrome does for those without order): with nothing else,
 *    nothing to show.
 *
 * One packet sequence (trusted_packet_sequence_id 1): the first packet clears its interned
 * state (sequence_flags 1, first_packet_on_sequence); every packet that uses interned ids says
 * so (sequence_flags 2) and carries the entries it is the first to use. Tracks: per process a
 * process track (uuid 2^40 + its order of first use; pid, process name), per thread a thread
 * track under it (uuid: the model thread + 1; pid, tid, thread name), described before the first
 * event on them. Perfetto's pid and tid are 32-bit: an id that does not fit (Mono's thread ids
 * are pointers) is replaced by 2^30 + the thread's order of first use, its name kept ("Thread
 * <id>" when it has none, as chrome names it). Names as chrome writes them: the thread's and
 * process's names from the model, else "Thread <tid>" and "process <pid>".
 *
 * Timestamps are ns since the profile's time origin (as chrome's ts), held at 0 below it. The
 * same input gives the same bytes. Memory: per thread and process a few words; per distinct
 * slice name, frame, function name and stack an id (arrays indexed by the model's ids). */
#include <inttypes.h>
#include <stdio.h>

#include "common/text.h"
#include "common/vec.h"
#include "outputs/outputs.h"
#include "outputs/render.h"
#include "perfetto_v1.h"

#define SEQ 1u
#define FLAG_CLEARED 1u
#define FLAG_NEEDS 2u
#define TYPE_SLICE_BEGIN 1
#define TYPE_SLICE_END 2
#define PROC_UUID0 (UINT64_C(1) << 40)
#define SYNTH_ID0 (1 << 30)

typedef struct pthread_ {
    bool seen;
    int32_t pid, tid;
    uint64_t uuid;
    size_t proc;                    /* its process (index of pr) */
    pcd_str name;                   /* the name its descriptor gave */
} pthread_;

typedef struct pproc {
    int64_t pid;
    int32_t pid32;
    uint64_t uuid;
    pcd_str name;                   /* the name its descriptor gave (0: made up) */
    pcd_thread_id first;            /* its first thread */
} pproc;

typedef struct perfetto_out {
    pcd_job *j;
    pcd_sink *out;
    pcd_writer w;
    bool open;
    pcd_status wst;
    uint64_t slices, samples, untimed;
    pthread_ *th;
    size_t th_cap;
    uint32_t n_seen;                /* threads described */
    pproc *pr;
    size_t n_pr, pr_cap;
    /* interned ids (0: not yet), indexed by the model's ids */
    uint64_t *name_iid;             /* pcd_str -> event name iid */
    size_t name_cap;
    uint64_t n_names;
    uint64_t *fn_iid;               /* pcd_str -> function name iid */
    size_t fn_cap;
    uint64_t n_fns;
    uint64_t *frame_iid;            /* pcd_frame_id -> frame iid */
    size_t frame_cap;
    uint64_t n_frames;
    uint64_t *stack_iid;            /* pcd_stack_id -> callstack iid */
    size_t stack_cap;
    uint64_t n_stacks;
    /* a packet's new interned entries */
    pcd_perfetto_v1_interned_string *new_fns;
    size_t new_fns_cap;
    pcd_perfetto_v1_frame *new_frames;
    size_t new_frames_cap;
    pcd_frame_id *fr;
    size_t fr_cap;
    uint64_t *frame_ids;
    size_t frame_ids_cap;
    pcd_memsink scratch;            /* names copied before they are interned */
    bool scratch_open;
} perfetto_out;

static pcd_status oom(perfetto_out *o)
{
    return pcd_job_fail(o->j, PCD_E_NOMEM, "out of memory for the Perfetto output's tracks and interned ids (raise --max-memory)");
}

/* Room for index i in a uint64_t array of ids, zeroed. */
static pcd_status ids_room(perfetto_out *o, uint64_t **arr, size_t *cap, size_t i)
{
    if (i < *cap) return PCD_OK;
    size_t old = *cap;
    if (pcd_vec_reserve(o->j->al, (void **)arr, cap, sizeof **arr, i + 1) != PCD_OK) return oom(o);
    memset(*arr + old, 0, (*cap - old) * sizeof **arr);
    return PCD_OK;
}

static pcd_status packet(perfetto_out *o, pcd_perfetto_v1_trace_packet *pk)
{
    if (o->wst != PCD_OK) return o->wst;
    pk->has_trusted_packet_sequence_id = true;
    pk->trusted_packet_sequence_id = SEQ;
    pcd_perfetto_v1_trace_field r;
    memset(&r, 0, sizeof r);
    r.which = PCD_PERFETTO_V1_TRACE_FIELD_PACKET;
    r.u.packet = *pk;
    pcd_status st = pcd_writer_record(&o->w, &pcd_perfetto_v1_region_trace, &r);
    if (st != PCD_OK) {
        char msg[256];
        pcd_error_format(pcd_writer_error(&o->w), msg, sizeof msg);
        o->wst = pcd_job_fail(o->j, st == PCD_E_IO ? PCD_E_IO : PCD_E_INTERNAL, "cannot encode the Perfetto output: %s", msg);
        return o->wst;
    }
    return PCD_OK;
}

static uint64_t clamp_ts(int64_t t) { return t < 0 || t == PCD_TIME_NONE ? 0 : (uint64_t)t; }

/* ---- the header ------------------------------------------------------------------------------ */

static pcd_status f_begin(void *ud, pcd_profile *p)
{
    (void)p;
    perfetto_out *o = ud;
    pcd_status st = pcd_writer_open(&o->w, &pcd_perfetto_v1_format, o->out, o->j->al);
    if (st != PCD_OK) return oom(o);
    o->open = true;
    pcd_perfetto_v1_file root;
    memset(&root, 0, sizeof root);
    if (pcd_writer_root(&o->w, &root) != PCD_OK) return oom(o);
    /* the sequence's first packet: its interned state starts here */
    pcd_perfetto_v1_trace_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.has_sequence_flags = true;
    pk.sequence_flags = FLAG_CLEARED;
    pk.has_first_packet_on_sequence = true;
    pk.first_packet_on_sequence = true;
    return packet(o, &pk);
}

/* ---- tracks ----------------------------------------------------------------------------------- */

/* An id as Perfetto's int32 holds it, else a made-up one. */
static int32_t id32(int64_t v, bool have, uint32_t order)
{
    if (have && v >= 0 && v <= INT32_MAX) return (int32_t)v;
    return (int32_t)(SYNTH_ID0 + (order & (SYNTH_ID0 - 1)));
}

static pcd_status text_of(perfetto_out *o, pcd_bytes *out, const char *fmt, const char *what, int64_t id)
{
    if (!o->scratch_open) {
        pcd_memsink_init(&o->scratch, o->j->al);
        o->scratch_open = true;
    }
    o->scratch.len = 0;
    PCD_TRY(pcd_text_printf(&o->scratch.sink, fmt, what, (long long)id));
    PCD_TRY(pcd_memsink_flush(&o->scratch));
    out->ptr = o->scratch.data;
    out->len = o->scratch.len;
    return PCD_OK;
}

/* The process track's descriptor: its pid and name (the model's process name, else "process
 * <pid>", "interpreter <iid>"). */
static pcd_status put_process(perfetto_out *o, const pcd_profile *p, size_t k, const pcd_thread *th, int32_t pid32)
{
    pcd_perfetto_v1_trace_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.has_track_descriptor = true;
    pcd_perfetto_v1_track_descriptor *td = &pk.track_descriptor;
    td->has_uuid = true;
    td->uuid = o->pr[k].uuid;
    td->has_process = true;
    td->process.has_pid = true;
    td->process.pid = pid32;
    td->process.has_process_name = true;
    o->pr[k].name = o->pr[k].name ? o->pr[k].name : th->process_name;
    if (o->pr[k].name) td->process.process_name = pcd_profile_text(p, o->pr[k].name);
    else PCD_TRY(text_of(o, &td->process.process_name, "%s %lld", th->pid == PCD_ID_NONE && th->iid != PCD_ID_NONE ? "interpreter" : "process", o->pr[k].pid));
    return packet(o, &pk);
}

/* A thread track's descriptor: under its process's, its pid, tid and name (the model's, else
 * "Thread <id>"). */
static pcd_status put_thread(perfetto_out *o, const pcd_profile *p, pcd_thread_id t)
{
    const pcd_thread *th = &p->threads[t];
    pthread_ *pt = &o->th[t];
    pt->name = th->name;
    pcd_perfetto_v1_trace_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.has_track_descriptor = true;
    pcd_perfetto_v1_track_descriptor *td = &pk.track_descriptor;
    td->has_uuid = true;
    td->uuid = pt->uuid;
    td->has_parent_uuid = true;
    td->parent_uuid = o->pr[pt->proc].uuid;
    td->has_thread = true;
    td->thread.has_pid = td->thread.has_tid = td->thread.has_thread_name = true;
    td->thread.pid = pt->pid;
    td->thread.tid = pt->tid;
    if (th->name) {
        td->thread.thread_name = pcd_profile_text(p, th->name);
    } else {
        if (!o->scratch_open) {
            pcd_memsink_init(&o->scratch, o->j->al);
            o->scratch_open = true;
        }
        o->scratch.len = 0;
        PCD_TRY(pcd_text_z(&o->scratch.sink, "Thread "));
        if (th->tid_text) PCD_TRY(pcd_text_bytes(&o->scratch.sink, pcd_profile_text(p, th->tid_text)));
        else PCD_TRY(pcd_text_u64(&o->scratch.sink, th->has_tid ? th->tid : 0));
        PCD_TRY(pcd_memsink_flush(&o->scratch));
        td->thread.thread_name = (pcd_bytes){ o->scratch.data, o->scratch.len };
    }
    return packet(o, &pk);
}

/* The thread track of model thread t, described (with its process's track) the first time. */
static pcd_status track_of(perfetto_out *o, const pcd_profile *p, pcd_thread_id t, pthread_ **out)
{
    if (t >= o->th_cap) {
        size_t old = o->th_cap;
        if (PCD_VEC_RESERVE(o->j->al, o->th, o->th_cap, (size_t)t + 1) != PCD_OK) return oom(o);
        memset(o->th + old, 0, (o->th_cap - old) * sizeof *o->th);
    }
    pthread_ *pt = &o->th[t];
    *out = pt;
    if (pt->seen) return PCD_OK;
    const pcd_thread *th = &p->threads[t];
    uint32_t order = o->n_seen++;
    pt->seen = true;
    pt->uuid = (uint64_t)t + 1;
    int64_t pid = th->pid != PCD_ID_NONE ? th->pid : th->iid != PCD_ID_NONE ? th->iid : 0;
    pt->pid = id32(pid, true, order);
    pt->tid = id32((int64_t)th->tid, th->has_tid && th->tid <= INT32_MAX, order);
    /* the process's track, once */
    size_t k = 0;
    while (k < o->n_pr && o->pr[k].pid != pid) k++;
    pt->proc = k;
    if (k == o->n_pr) {
        if (PCD_VEC_RESERVE(o->j->al, o->pr, o->pr_cap, o->n_pr + 1) != PCD_OK) return oom(o);
        memset(&o->pr[k], 0, sizeof o->pr[k]);
        o->pr[k].pid = pid;
        o->pr[k].pid32 = pt->pid;
        o->pr[k].uuid = PROC_UUID0 + k;
        o->pr[k].first = t;
        o->n_pr++;
        PCD_TRY(put_process(o, p, k, th, pt->pid));
    }
    return put_thread(o, p, t);
}

/* At the end: the tracks whose names the importer gave after their first event (Heph names its
 * processes at the end) are described again, with the same uuid (the later descriptor's name
 * is the track's). A process's name: the first of its threads' that has one, as chrome's. */
static pcd_status rename_tracks(perfetto_out *o, const pcd_profile *p)
{
    for (size_t k = 0; k < o->n_pr; k++) {
        pcd_str name = 0;
        for (size_t t = 0; t < o->th_cap && t < p->n_threads && !name; t++)
            if (o->th[t].seen && o->th[t].proc == k) name = p->threads[t].process_name;
        if (name && name != o->pr[k].name) {
            o->pr[k].name = name;
            PCD_TRY(put_process(o, p, k, &p->threads[o->pr[k].first], o->pr[k].pid32));
        }
    }
    for (size_t t = 0; t < o->th_cap && t < p->n_threads; t++)
        if (o->th[t].seen && p->threads[t].name != o->th[t].name) PCD_TRY(put_thread(o, p, (pcd_thread_id)t));
    return PCD_OK;
}

/* ---- slices ----------------------------------------------------------------------------------- */

static pcd_status f_slice(void *ud, pcd_profile *p, const pcd_slice *s)
{
    perfetto_out *o = ud;
    pthread_ *pt;
    /* the name and category are views the importer owns (or into the string pool, which
     * interning may move): copied first */
    if (!o->scratch_open) {
        pcd_memsink_init(&o->scratch, o->j->al);
        o->scratch_open = true;
    }
    o->scratch.len = 0;
    PCD_TRY(pcd_text_bytes(&o->scratch.sink, s->name));
    PCD_TRY(pcd_text_bytes(&o->scratch.sink, s->category));
    PCD_TRY(pcd_memsink_flush(&o->scratch));
    pcd_str name = pcd_profile_str(p, o->scratch.data, s->name.len);
    pcd_str cat = pcd_profile_str(p, o->scratch.data + s->name.len, s->category.len);
    if (p->oom) return oom(o);
    PCD_TRY(track_of(o, p, s->track, &pt));
    PCD_TRY(ids_room(o, &o->name_iid, &o->name_cap, name));
    pcd_perfetto_v1_event_name en;
    pcd_perfetto_v1_trace_packet pk;
    memset(&pk, 0, sizeof pk);
    pk.has_timestamp = true;
    pk.timestamp = clamp_ts(s->start);
    pk.has_sequence_flags = true;
    pk.sequence_flags = FLAG_NEEDS;
    if (!o->name_iid[name]) {
        o->name_iid[name] = ++o->n_names;
        memset(&en, 0, sizeof en);
        en.has_iid = en.has_name = true;
        en.iid = o->name_iid[name];
        en.name = pcd_profile_text(p, name);
        pk.has_interned_data = true;
        pk.interned_data.event_names = &en;
        pk.interned_data.n_event_names = 1;
    }
    pk.has_track_event = true;
    pcd_perfetto_v1_track_event *te = &pk.track_event;
    te->has_type = te->has_track_uuid = te->has_name_iid = true;
    te->type = TYPE_SLICE_BEGIN;
    te->track_uuid = pt->uuid;
    te->name_iid = o->name_iid[name];
    pcd_bytes cb = pcd_profile_text(p, cat);
    if (cat) {
        te->categories = &cb;
        te->n_categories = 1;
    }
    PCD_TRY(packet(o, &pk));
    memset(&pk, 0, sizeof pk);
    pk.has_timestamp = true;
    pk.timestamp = clamp_ts(s->end < s->start ? s->start : s->end);
    pk.has_sequence_flags = true;
    pk.sequence_flags = FLAG_NEEDS;
    pk.has_track_event = true;
    pk.track_event.has_type = pk.track_event.has_track_uuid = true;
    pk.track_event.type = TYPE_SLICE_END;
    pk.track_event.track_uuid = pt->uuid;
    o->slices++;
    return packet(o, &pk);
}

/* ---- samples ---------------------------------------------------------------------------------- */

/* The function name a frame is shown by (as chrome names its slices). */
static pcd_status frame_name(perfetto_out *o, pcd_profile *p, pcd_frame_id f, pcd_str *out)
{
    const pcd_frame *fr = pcd_profile_frame_at(p, f);
    bool code = fr->kind == PCD_FRAME_CODE || fr->kind == PCD_FRAME_NATIVE;
    if ((code || (fr->kind == PCD_FRAME_KERNEL && fr->function)) && !pcd_frame_nameless(fr)) {
        *out = fr->function;
        return PCD_OK;
    }
    if (!o->scratch_open) {
        pcd_memsink_init(&o->scratch, o->j->al);
        o->scratch_open = true;
    }
    o->scratch.len = 0;
    PCD_TRY(pcd_render_frame(&o->scratch.sink, p, f, PCD_DIALECT_DEFAULT, PCD_COLLAPSED_RAW));
    PCD_TRY(pcd_memsink_flush(&o->scratch));
    *out = pcd_profile_str(p, o->scratch.data, o->scratch.len);
    return p->oom ? oom(o) : PCD_OK;
}

static pcd_status f_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    perfetto_out *o = ud;
    if (s->time == PCD_TIME_NONE) {
        o->untimed++;
        return PCD_OK;
    }
    pthread_ *pt;
    PCD_TRY(track_of(o, p, s->thread, &pt));
    PCD_TRY(ids_room(o, &o->stack_iid, &o->stack_cap, s->stack));
    pcd_perfetto_v1_trace_packet pk;
    memset(&pk, 0, sizeof pk);
    pcd_perfetto_v1_callstack cs;
    if (!o->stack_iid[s->stack]) {
        /* a new stack: its frames and their names first, then the stack */
        size_t n = pcd_stack_depth(p, s->stack), n_fns = 0, n_frames = 0;
        if (PCD_VEC_RESERVE(o->j->al, o->fr, o->fr_cap, n + 1) != PCD_OK ||
            PCD_VEC_RESERVE(o->j->al, o->frame_ids, o->frame_ids_cap, n + 1) != PCD_OK ||
            PCD_VEC_RESERVE(o->j->al, o->new_fns, o->new_fns_cap, n + 1) != PCD_OK ||
            PCD_VEC_RESERVE(o->j->al, o->new_frames, o->new_frames_cap, n + 1) != PCD_OK)
            return oom(o);
        pcd_stack_frames(p, s->stack, o->fr);
        for (size_t i = 0; i < n; i++) {
            pcd_frame_id f = o->fr[i];
            PCD_TRY(ids_room(o, &o->frame_iid, &o->frame_cap, f));
            if (!o->frame_iid[f]) {
                pcd_str fn;
                PCD_TRY(frame_name(o, p, f, &fn));
                PCD_TRY(ids_room(o, &o->fn_iid, &o->fn_cap, fn));
                if (!o->fn_iid[fn]) {
                    o->fn_iid[fn] = ++o->n_fns;
                    pcd_perfetto_v1_interned_string *is = &o->new_fns[n_fns++];
                    memset(is, 0, sizeof *is);
                    is->has_iid = true;
                    is->iid = o->fn_iid[fn];
                    is->has_str = true; /* (a view: set below, once the pool stops moving) */
                    is->str.len = fn;   /* the string id, for now */
                }
                o->frame_iid[f] = ++o->n_frames;
                pcd_perfetto_v1_frame *nf = &o->new_frames[n_frames++];
                memset(nf, 0, sizeof *nf);
                nf->has_iid = nf->has_function_name_id = true;
                nf->iid = o->frame_iid[f];
                nf->function_name_id = o->fn_iid[fn];
            }
            o->frame_ids[i] = o->frame_iid[f];
        }
        for (size_t i = 0; i < n_fns; i++) o->new_fns[i].str = pcd_profile_text(p, (pcd_str)o->new_fns[i].str.len);
        o->stack_iid[s->stack] = ++o->n_stacks;
        memset(&cs, 0, sizeof cs);
        cs.has_iid = true;
        cs.iid = o->stack_iid[s->stack];
        cs.frame_ids = o->frame_ids;
        cs.n_frame_ids = n;
        pk.has_interned_data = true;
        pk.interned_data.function_names = o->new_fns;
        pk.interned_data.n_function_names = n_fns;
        pk.interned_data.frames = o->new_frames;
        pk.interned_data.n_frames = n_frames;
        pk.interned_data.callstacks = &cs;
        pk.interned_data.n_callstacks = 1;
    }
    pk.has_timestamp = true;
    pk.timestamp = clamp_ts(s->time);
    pk.has_sequence_flags = true;
    pk.sequence_flags = FLAG_NEEDS;
    pk.has_perf_sample = true;
    pcd_perfetto_v1_perf_sample *ps = &pk.perf_sample;
    ps->has_pid = ps->has_tid = ps->has_callstack_iid = true;
    ps->pid = (uint32_t)pt->pid;
    ps->tid = (uint32_t)pt->tid;
    ps->callstack_iid = o->stack_iid[s->stack];
    o->samples++;
    return packet(o, &pk);
}

/* ---- the end ---------------------------------------------------------------------------------- */

static pcd_status f_end(void *ud, pcd_profile *p)
{
    perfetto_out *o = ud;
    if (!o->open) return PCD_OK;
    if (!o->slices && !o->samples)
        return pcd_job_fail(o->j, PCD_E_EMPTY,
                            "nothing to show: the input has no spans, and its %llu samples have no times (a trace "
                            "needs spans or timed samples)",
                            (unsigned long long)o->untimed);
    PCD_TRY(rename_tracks(o, p));
    if (o->wst != PCD_OK) return o->wst;
    if (pcd_writer_finish(&o->w) != PCD_OK) return pcd_job_fail(o->j, PCD_E_IO, "cannot write the output");
    return PCD_OK;
}

static pcd_status f_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *c)
{
    perfetto_out *o = state;
    o->j = j;
    o->out = out;
    c->ud = o;
    c->needs = PCD_NEEDS_TIMES | PCD_NEEDS_TIMELINE;
    c->begin = f_begin;
    c->slice = f_slice;
    c->sample = f_sample;
    c->end = f_end;
    return PCD_OK;
}

static void f_close(void *state)
{
    perfetto_out *o = state;
    pcd_alloc *al = o->j->al;
    if (o->open) pcd_writer_close(&o->w);
    PCD_VEC_FREE(al, o->th, o->th_cap);
    PCD_VEC_FREE(al, o->pr, o->pr_cap);
    PCD_VEC_FREE(al, o->name_iid, o->name_cap);
    PCD_VEC_FREE(al, o->fn_iid, o->fn_cap);
    PCD_VEC_FREE(al, o->frame_iid, o->frame_cap);
    PCD_VEC_FREE(al, o->stack_iid, o->stack_cap);
    PCD_VEC_FREE(al, o->new_fns, o->new_fns_cap);
    PCD_VEC_FREE(al, o->new_frames, o->new_frames_cap);
    PCD_VEC_FREE(al, o->fr, o->fr_cap);
    PCD_VEC_FREE(al, o->frame_ids, o->frame_ids_cap);
    if (o->scratch_open) pcd_memsink_free(&o->scratch);
}

const pcd_exporter pcd_out_perfetto = {
    "perfetto",
    "Perfetto's protobuf trace for ui.perfetto.dev and trace_processor: spans as slices on thread tracks, timed "
    "samples as interned callstacks",
    0, PCD_HAS_SLICES | PCD_HAS_TIMES, sizeof(perfetto_out), f_open, f_close, NULL,
};
