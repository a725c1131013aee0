/* formats/heph/import.c: Heph traces into the profile model.
 *
 * Every event is a slice:
 *  - on a track, a model thread: the stream id as its process (pid), the substream id as its
 *    thread (tid), named "substream N". Process names are given at the end, when the
 *    "Building runtime" event's worker_threads (the last one, wherever it is) is known:
 *    "stream 0 (coordinator)", "stream N (worker N)" up to worker_threads, "stream N (sync
 *    actor)" above it, or "stream N" when no event said how many workers there were;
 *  - named by its description, category "heph", with the attributes as typed arguments
 *    (arrays included), in file order;
 *  - start and end in ns since the profile's time origin, the trace's first epoch. An event
 *    after a later epoch packet is shifted by (that epoch - the first epoch), as its times are
 *    relative to the latest epoch. Before the first epoch packet the origin is not known:
 *    those events keep their ns, and the origin is set when the first epoch comes. Times that
 *    int64 cannot hold (further than 292 years from the first epoch: no real trace) are
 *    held at its limits, and a note says how many events had them.
 * Metadata: each epoch packet as "epoch" (ns since the Unix epoch, in decimal), in file order;
 * other options are not (info counts them). The profile begins at the first epoch or the
 * first event, whichever comes first, so that the time origin is known at the begin when the
 * epoch comes first (as Heph writes it). Dialect: Heph's own with --heph-compat (Chrome JSON
 * as Heph's convert_trace writes it), else profcodec's. */
#include "heph_v0_1.h"

#include "common/text.h"
#include "common/vec.h"
#include "formats/heph/heph.h"
#include "model/profile.h"

typedef __int128 i128;

typedef struct himport {
    pcd_job *j;
    pcd_profile *p;
    bool have_epoch;
    uint64_t first_epoch, epoch;
    uint64_t worker_threads;
    bool have_workers;
    uint64_t clamped;             /* events with a time int64 cannot hold */
    pcd_str k_epoch, cat;
    /* the track of the previous event */
    bool have_last;
    uint32_t last_stream;
    uint64_t last_sub;
    pcd_thread_id last_track;
    pcd_arg *args;
    size_t args_cap;
} himport;

static int64_t clamp64(i128 v, bool *clamped)
{
    if (v > INT64_MAX) {
        *clamped = true;
        return INT64_MAX;
    }
    if (v < -INT64_MAX) { /* INT64_MIN is PCD_TIME_NONE */
        *clamped = true;
        return -INT64_MAX;
    }
    return (int64_t)v;
}

static pcd_status on_epoch(himport *h, uint64_t ep)
{
    pcd_profile *p = h->p;
    if (!h->have_epoch) {
        h->have_epoch = true;
        h->first_epoch = ep;
        bool clamped = false;
        p->time_origin = clamp64(ep, &clamped);
    }
    h->epoch = ep;
    char buf[24];
    pcd_str v = pcd_profile_str(p, buf, pcd_text_u64_digits(buf, ep));
    if (p->oom) return p->oom;
    return pcd_profile_meta(p, h->k_epoch, v);
}

/* The track of (stream, substream), named when new. */
static pcd_thread_id track_of(himport *h, uint32_t stream, uint64_t sub)
{
    if (h->have_last && h->last_stream == stream && h->last_sub == sub) return h->last_track;
    pcd_profile *p = h->p;
    pcd_thread th = pcd_thread_blank();
    th.pid = stream;
    th.tid = sub;
    th.has_tid = true;
    size_t before = p->n_threads;
    pcd_thread_id t = pcd_profile_thread(p, &th);
    if (p->n_threads != before) {
        char buf[48];
        size_t n = 10;
        memcpy(buf, "substream ", n);
        n += pcd_text_u64_digits(buf + n, sub);
        pcd_profile_thread_name(p, t, pcd_profile_str(p, buf, n), 0);
    }
    h->have_last = true;
    h->last_stream = stream;
    h->last_sub = sub;
    h->last_track = t;
    return t;
}

static void attr_arg(pcd_arg *a, const pcd_heph_v0_1_attribute *at)
{
    const pcd_heph_v0_1_attribute_value *v = &at->value;
    a->key = at->name;
    switch (v->which) {
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_U64: a->type = PCD_ARG_U64; a->v.u = v->u.u64; break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_I64: a->type = PCD_ARG_I64; a->v.i = v->u.i64; break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_F64: a->type = PCD_ARG_F64; a->v.f = v->u.f64; break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_STRING: a->type = PCD_ARG_STR; a->v.s = v->u.string; break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_U64_ARRAY:
        a->type = PCD_ARG_U64_ARRAY;
        a->v.u_arr.items = v->u.u64_array.items;
        a->v.u_arr.n = v->u.u64_array.n_items;
        break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_I64_ARRAY:
        a->type = PCD_ARG_I64_ARRAY;
        a->v.i_arr.items = v->u.i64_array.items;
        a->v.i_arr.n = v->u.i64_array.n_items;
        break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_F64_ARRAY:
        a->type = PCD_ARG_F64_ARRAY;
        a->v.f_arr.items = v->u.f64_array.items;
        a->v.f_arr.n = v->u.f64_array.n_items;
        break;
    default:
        a->type = PCD_ARG_STR_ARRAY;
        a->v.s_arr.items = v->u.string_array.items;
        a->v.s_arr.n = v->u.string_array.n_items;
        break;
    }
}

static pcd_status on_event(himport *h, const pcd_heph_v0_1_event_packet *e, uint64_t offset)
{
    pcd_profile *p = h->p;
    /* begun before the texts below are taken: the outputs' begin interns strings, which may move
     * the pool the category's view points into (a trace whose first packet is an event) */
    PCD_TRY(pcd_profile_begin(p));
    pcd_slice s;
    s.kind = PCD_SLICE_SPAN;
    s.track = track_of(h, e->stream_id, e->substream_id);
    i128 shift = h->have_epoch ? (i128)h->epoch - (i128)h->first_epoch : 0;
    bool clamped = false;
    s.start = clamp64((i128)e->start_ns + shift, &clamped);
    s.end = clamp64((i128)e->end_ns + shift, &clamped);
    h->clamped += clamped;
    s.name = e->description;
    s.category = pcd_profile_text(p, h->cat);
    PCD_TRY(PCD_VEC_RESERVE(h->j->al, h->args, h->args_cap, e->n_attributes));
    bool building = pcd_bytes_is(e->description, "Building runtime");
    for (size_t i = 0; i < e->n_attributes; i++) {
        const pcd_heph_v0_1_attribute *at = &e->attributes[i];
        attr_arg(&h->args[i], at);
        if (building && at->type == PCD_HEPH_V0_1_ATTRIBUTE_TYPE_U64 && pcd_bytes_is(at->name, "worker_threads")) {
            h->worker_threads = at->value.u.u64;
            h->have_workers = true;
        }
    }
    s.args = h->args;
    s.n_args = e->n_attributes;
    s.offset = offset;
    if (p->oom) return p->oom;
    return pcd_profile_slice(p, &s);
}

static pcd_status on_record(void *ud, const pcd_record *rec)
{
    himport *h = ud;
    const pcd_heph_v0_1_packet *pk = pcd_heph_packet(rec);
    if (!pk) return PCD_OK;
    if (pk->which == PCD_HEPH_V0_1_PACKET_METADATA) {
        if (pk->u.metadata.value.which != PCD_HEPH_V0_1_METADATA_PACKET_VALUE_EPOCH) return PCD_OK;
        return on_epoch(h, pk->u.metadata.value.u.epoch);
    }
    return on_event(h, &pk->u.event, rec->offset);
}

/* The process names, now that the number of workers is known. */
static void name_processes(himport *h)
{
    pcd_profile *p = h->p;
    for (size_t t = 0; t < p->n_threads; t++) {
        uint64_t pid = (uint64_t)p->threads[t].pid;
        char buf[96];
        size_t n = 7;
        memcpy(buf, "stream ", n);
        n += pcd_text_u64_digits(buf + n, pid);
        const char *what = NULL;
        if (pid == 0) what = " (coordinator)";
        else if (h->have_workers && pid <= h->worker_threads) what = " (worker ";
        else if (h->have_workers) what = " (sync actor)";
        if (what) {
            memcpy(buf + n, what, strlen(what));
            n += strlen(what);
        }
        if (pid && h->have_workers && pid <= h->worker_threads) {
            n += pcd_text_u64_digits(buf + n, pid);
            buf[n++] = ')';
        }
        pcd_profile_thread_name(p, (pcd_thread_id)t, 0, pcd_profile_str(p, buf, n));
    }
}

static pcd_status heph_begin(void *ctx, pcd_job *j, pcd_profile *p, pcd_reader **from)
{
    (void)from;
    himport *h = ctx;
    h->j = j;
    h->p = p;
    p->dialect = j->compat ? PCD_DIALECT_HEPH : PCD_DIALECT_DEFAULT;
    p->default_type = -1; /* spans carry no sample values */
    h->k_epoch = pcd_profile_strz(p, "epoch");
    h->cat = pcd_profile_strz(p, "heph");
    return p->oom;
}

static pcd_status heph_end(void *ctx, pcd_status st)
{
    himport *h = ctx;
    pcd_job *j = h->j;
    pcd_profile *p = h->p;
    if (st == PCD_OK) {
        name_processes(h);
        st = p->oom;
    }
    if (st == PCD_OK) st = pcd_profile_begin(p);
    if (st == PCD_OK && h->clamped)
        pcd_job_note(j,
                     "warning: %llu events have times further than 292 years from the first epoch; they are "
                     "written at the nearest time the profile model holds",
                     (unsigned long long)h->clamped);
    PCD_VEC_FREE(j->al, h->args, h->args_cap);
    return st;
}

const pcd_model_importer pcd_heph_model = { PCD_HAS_SLICES, sizeof(himport), heph_begin, on_record, heph_end };
