/* outputs/chrome.c: Chrome's Trace Event JSON (Perfetto UI, chrome://tracing, speedscope's
 * importer), written as the events come, from
 *  - slices (span traces: Heph's events, Mono's calls): one complete ("X") event each, on its
 *    track;
 *  - samples with times (PCD_NEEDS_TIMES), or without times in the order they were taken
 *    (PCD_HAS_ORDER: Austin's, on each thread's clock as outputs.h lays them out): a timeline
 *    per thread, one X event per frame for as long as it stays on the stack at its depth
 *    (frames compared by (file, function), so a change of line does not cut the slice), closed
 *    when the stack changes below it or, at the end, at the thread's last sample time plus the
 *    sampling period. Samples with neither times nor an order (Mono's call tree, summed per
 *    stack beside the calls' slices) are left out: with nothing else, nothing to show. Levels closing at
 *    the same time come innermost first. Its name is the function (a marker's text for
 *    frames that are not code), its category the frame's kind ("code", "native", "kernel",
 *    "gc", ...), its only argument the source file.
 *
 * Default dialect (profcodec's):
 *   {"displayTimeUnit":"ns","otherData":{"converter":"profcodec","source_format":"<format> <version>"
 *   [,"epoch_ns":"<ns>","epoch_utc":"<UTC>","ts_origin":"epoch"]},"traceEvents":[
 *   {"ph":"X","pid":P,"tid":T,"ts":US,"dur":US,"name":N,"cat":C[,"args":{K:V,...}]},
 *   ...
 *   then metadata events: per process (sorted by pid) "process_name" and "process_sort_index"
 *   (the pid), then per thread (sorted by pid and tid) "thread_name"; a placeholder
 *   "trace_config" event first when there was no X event; then "\n]}\n".
 *   ts and dur are microseconds with exactly three decimals, exact to the nanosecond: ts from
 *   the profile's time origin (whose Unix time is epoch_ns when known), dur at least 0. pid is
 *   the thread's process id (else its interpreter id, else 0), tid its thread id (else the
 *   decimal id the source wrote, else 0), both written in full (never rounded for
 *   JavaScript). Argument values: integers in full, floats as the shortest decimal that
 *   reads back to the same double (-0.0 keeps its sign; NaN and the infinities as the
 *   strings "NaN", "Infinity", "-Infinity"); strings through pcd_text_json (always valid
 *   JSON and UTF-8). Names: the thread's and its process's names from the model, else
 *   "Thread <tid>" and "process <pid>" ("interpreter <iid>").
 *
 * Heph dialect (Heph's tools/src/bin/convert_trace.rs, byte for byte):
 *   {\n\t"displayTimeUnit": "ns",\n\t"traceEvents": [\n
 *   \t\t{"pid": P, "tid": T, "ts": U, "dur": D, "name": "N"[, "args": {"K": V, ...}], "ph": "X", "cat": ""}
 *   separated by ",\n", then "\n\t]\n}" (no newline at the end), no metadata events. ts is
 *   the Unix time in whole microseconds (floor), from the time origin or, when the profile
 *   has none, from the time of the conversion (as Heph does); dur is the end minus the start
 *   as Heph subtracts them (u64, wrapping when the end is earlier), in whole microseconds.
 *   Heph's overlap fix: while another event of the same (pid, tid) was written at the same
 *   ts, the event moves one microsecond later and one shorter when that event's dur is
 *   larger, else one earlier and one longer (Heph's walk can cycle forever; ours stops after
 *   4096 steps with a warning). Names, keys and strings are written as raw bytes, unescaped
 *   (invalid JSON where Heph's is), floats as Rust's Display writes them ("-0", "NaN",
 *   "inf", no exponent), arrays as [a, b].
 *
 * Memory: per thread of a sample timeline its open frames; the Heph dialect's overlap table
 * keeps one entry (24 bytes) per event written, as Heph's does: a later event of a track may
 * start at any earlier time (a parent span is written after its children, and Heph's actor
 * spans reach back across runs), and the walk compares it with every timestamp written on
 * that track before, so no entry can be dropped without changing where a later event lands. */
#include <stdlib.h>
#include <time.h>

#include "common/hash.h"
#include "common/text.h"
#include "common/vec.h"
#include "outputs/outputs.h"
#include "outputs/render.h"

typedef unsigned __int128 u128;
typedef __int128 i128;

/* One open frame of a thread's timeline. */
typedef struct copen {
    pcd_frame_id frame;
    int64_t start;
} copen;

typedef struct cthread {
    bool seen;                     /* had an event: gets metadata */
    bool have_last;
    int64_t pid;
    uint64_t tid;
    pcd_stack_id stack;            /* the stack of the open frames */
    int64_t last;                  /* the time of the last sample */
    uint64_t clock;                /* samples without times: the thread's clock (µs) */
    copen *open;
    size_t n_open, open_cap;
} cthread;

/* The Heph dialect's overlap table: (track, ts) -> dur. ts is the low 64 bits of Heph's
 * 128-bit timestamp (what it compares), dur is held as int64: it starts below 2^54 and moves
 * by one a step (4096 steps at most), so its 128-bit value is that int64 sign-extended. */
/* The overlap table: (track, ts) -> the event's duration, an entry per event kept until
 * the end; 24 bytes a slot against common/hmap.c's 48 (docs/design.md, "One hash, one
 * table"). */
typedef struct ovl {
    uint64_t ts;
    int64_t dur;
    uint32_t track;                /* + 1; 0 empty */
} ovl;

typedef struct chrome {
    pcd_job *j;
    pcd_sink *out;
    pcd_dialect d;
    pcd_out_pace pace;             /* how long a sample without a time lasts */
    bool begun;
    uint64_t events;               /* X events written */
    uint64_t untimed;              /* samples left out: no time and no order (Mono's call tree) */
    int64_t now;                   /* the Heph dialect's origin without one: the conversion time */
    bool warned_cycle;
    cthread *th;
    size_t th_cap;
    ovl *ov;
    size_t ov_n, ov_cap;
    pcd_frame_id *fr;
    size_t fr_cap;
    pcd_memsink name;              /* marker texts */
    bool name_open;
} chrome;

/* ---- numbers ------------------------------------------------------------------------------- */

static pcd_status put_u128(pcd_sink *s, u128 v)
{
    char b[48];
    if (v <= UINT64_MAX) return pcd_sink_put(s, b, pcd_text_u64_digits(b, (uint64_t)v));
    char t[48];
    int k = 0;
    do {
        t[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    for (int i = 0; i < k; i++) b[i] = t[k - 1 - i];
    return pcd_sink_put(s, b, (size_t)k);
}

/* ns as microseconds with three decimals: -12.345 (|ns| < 2^66: the difference of two int64) */
static pcd_status put_us3(pcd_sink *s, i128 ns)
{
    char b[48];
    size_t n = 0;
    u128 a = ns < 0 ? (u128)0 - (u128)ns : (u128)ns;
    if (ns < 0) b[n++] = '-';
    uint64_t whole, f;
    if (a <= UINT64_MAX) {
        whole = (uint64_t)a / 1000;
        f = (uint64_t)a % 1000;
    } else {
        whole = (uint64_t)(a / 1000);
        f = (uint64_t)(a % 1000);
    }
    n += pcd_text_u64_digits(b + n, whole);
    b[n++] = '.';
    b[n++] = (char)('0' + f / 100);
    b[n++] = (char)('0' + f / 10 % 10);
    b[n++] = (char)('0' + f % 10);
    return pcd_sink_put(s, b, n);
}

static pcd_status put_rust_f64(pcd_sink *s, double v)
{
    char b[400];
    size_t n = pcd_fmt_rust_f64(b, sizeof b, v);
    return pcd_sink_put(s, b, n);
}

/* ---- threads ----------------------------------------------------------------------------- */

/* The decimal number the text is, if it is one that fits in 64 bits. */
static bool decimal_u64(pcd_bytes b, uint64_t *out)
{
    if (!b.len || b.len > 20) return false;
    uint64_t v = 0;
    for (size_t i = 0; i < b.len; i++) {
        if (b.ptr[i] < '0' || b.ptr[i] > '9') return false;
        uint64_t d = (uint64_t)(b.ptr[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static pcd_status thread_of(chrome *c, const pcd_profile *p, pcd_thread_id t, cthread **out)
{
    if (t >= c->th_cap) {
        size_t old = c->th_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->th, c->th_cap, (size_t)t + 1));
        memset(c->th + old, 0, (c->th_cap - old) * sizeof *c->th);
    }
    cthread *ct = &c->th[t];
    if (!ct->seen) {
        const pcd_thread *th = &p->threads[t];
        ct->seen = true;
        ct->pid = th->pid != PCD_ID_NONE ? th->pid : th->iid != PCD_ID_NONE ? th->iid : 0;
        if (th->has_tid) ct->tid = th->tid;
        else if (!th->tid_text || !decimal_u64(pcd_profile_text(p, th->tid_text), &ct->tid)) ct->tid = 0;
    }
    *out = ct;
    return PCD_OK;
}

/* ---- the header --------------------------------------------------------------------------- */

static pcd_status c_begin(void *ud, pcd_profile *p)
{
    chrome *c = ud;
    PCD_TRY(pcd_out_dialect(c->j, p, &c->d));
    pcd_out_pace_init(&c->pace, p);
    c->begun = true;
    pcd_sink *o = c->out;
    if (c->d == PCD_DIALECT_HEPH) {
        /* Heph takes the time of the conversion when the trace has no epoch */
        if (p->time_origin == PCD_TIME_NONE) {
            time_t now = time(NULL);
            c->now = now > 0 && now < INT64_MAX / 1000000000 ? (int64_t)now * 1000000000 : 0;
        }
        return pcd_text_z(o, "{\n\t\"displayTimeUnit\": \"ns\",\n\t\"traceEvents\": [\n");
    }
    PCD_TRY(pcd_text_z(o, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"converter\":\"profcodec\",\"source_format\":"));
    pcd_memsink m;
    pcd_memsink_init(&m, c->j->al);
    pcd_status st = pcd_text_printf(&m.sink, "%s %s", p->format ? p->format : "", p->version ? p->version : "");
    if (st == PCD_OK) st = pcd_memsink_flush(&m);
    if (st == PCD_OK) st = pcd_text_json(o, m.data, m.len);
    pcd_memsink_free(&m);
    PCD_TRY(st);
    if (p->time_origin != PCD_TIME_NONE && p->time_origin >= 0) {
        char utc[64];
        pcd_text_utc_ns(utc, sizeof utc, (uint64_t)p->time_origin);
        PCD_TRY(pcd_text_z(o, ",\"epoch_ns\":\""));
        PCD_TRY(pcd_text_i64(o, p->time_origin));
        PCD_TRY(pcd_text_z(o, "\",\"epoch_utc\":"));
        PCD_TRY(pcd_text_json_z(o, utc));
        PCD_TRY(pcd_text_z(o, ",\"ts_origin\":\"epoch\""));
    }
    return pcd_text_z(o, "},\"traceEvents\":[\n");
}

/* ---- X events --------------------------------------------------------------------------- */

static pcd_status put_raw_str(pcd_sink *o, pcd_bytes b)
{
    PCD_TRY(pcd_sink_put(o, "\"", 1));
    if (b.len) PCD_TRY(pcd_sink_put(o, b.ptr, b.len));
    return pcd_sink_put(o, "\"", 1);
}

static pcd_status put_str(chrome *c, pcd_bytes b)
{
    return c->d == PCD_DIALECT_HEPH ? put_raw_str(c->out, b) : pcd_text_json(c->out, b.ptr, b.len);
}

static pcd_status put_f64(chrome *c, double v)
{
    return c->d == PCD_DIALECT_HEPH ? put_rust_f64(c->out, v) : pcd_json_f64(c->out, v);
}

static pcd_status put_arg_value(chrome *c, const pcd_arg *a)
{
    pcd_sink *o = c->out;
    const char *sep = c->d == PCD_DIALECT_HEPH ? ", " : ",";
    size_t n = 0;
    switch (a->type) {
    case PCD_ARG_U64: return pcd_json_u64_plain(o, a->v.u);
    case PCD_ARG_I64: return pcd_text_i64(o, a->v.i);
    case PCD_ARG_F64: return put_f64(c, a->v.f);
    case PCD_ARG_STR: return put_str(c, a->v.s);
    case PCD_ARG_U64_ARRAY: n = a->v.u_arr.n; break;
    case PCD_ARG_I64_ARRAY: n = a->v.i_arr.n; break;
    case PCD_ARG_F64_ARRAY: n = a->v.f_arr.n; break;
    case PCD_ARG_STR_ARRAY: n = a->v.s_arr.n; break;
    }
    PCD_TRY(pcd_sink_put(o, "[", 1));
    for (size_t i = 0; i < n; i++) {
        if (i) PCD_TRY(pcd_text_z(o, sep));
        switch (a->type) {
        case PCD_ARG_U64_ARRAY: PCD_TRY(pcd_json_u64_plain(o, a->v.u_arr.items[i])); break;
        case PCD_ARG_I64_ARRAY: PCD_TRY(pcd_text_i64(o, a->v.i_arr.items[i])); break;
        case PCD_ARG_F64_ARRAY: PCD_TRY(put_f64(c, a->v.f_arr.items[i])); break;
        default: PCD_TRY(put_str(c, a->v.s_arr.items[i])); break;
        }
    }
    return pcd_sink_put(o, "]", 1);
}

static pcd_status put_args(chrome *c, const pcd_slice *s)
{
    if (!s->n_args) return PCD_OK;
    pcd_sink *o = c->out;
    bool heph = c->d == PCD_DIALECT_HEPH;
    PCD_TRY(pcd_text_z(o, heph ? ", \"args\": {" : ",\"args\":{"));
    for (size_t i = 0; i < s->n_args; i++) {
        if (i) PCD_TRY(pcd_text_z(o, heph ? ", " : ","));
        PCD_TRY(put_str(c, s->args[i].key));
        PCD_TRY(pcd_text_z(o, heph ? ": " : ":"));
        PCD_TRY(put_arg_value(c, &s->args[i]));
    }
    return pcd_sink_put(o, "}", 1);
}

static pcd_status ovl_grow(chrome *c)
{
    size_t ncap = c->ov_cap ? c->ov_cap * 2 : 1024;
    if (ncap > SIZE_MAX / sizeof(ovl)) return PCD_E_NOMEM;
    ovl *q = pcd_alloc_get(c->j->al, ncap * sizeof *q);
    if (!q) return PCD_E_NOMEM;
    memset(q, 0, ncap * sizeof *q);
    for (size_t i = 0; i < c->ov_cap; i++) {
        if (!c->ov[i].track) continue;
        size_t k = pcd_hash2(c->ov[i].track, c->ov[i].ts) & (ncap - 1);
        while (q[k].track) k = (k + 1) & (ncap - 1);
        q[k] = c->ov[i];
    }
    if (c->ov) pcd_alloc_free(c->j->al, c->ov, c->ov_cap * sizeof *c->ov);
    c->ov = q;
    c->ov_cap = ncap;
    return PCD_OK;
}

/* The slot of (track, ts): the entry, or the empty slot where it would go. */
static ovl *ovl_slot(chrome *c, uint32_t track, uint64_t ts)
{
    size_t mask = c->ov_cap - 1, k = pcd_hash2(track, ts) & mask;
    while (c->ov[k].track && (c->ov[k].track != track || c->ov[k].ts != ts)) k = (k + 1) & mask;
    return &c->ov[k];
}

/* An X event in Heph's layout, after Heph's overlap fix. */
static pcd_status heph_event(chrome *c, const pcd_profile *p, const pcd_slice *s, const cthread *ct)
{
    pcd_sink *o = c->out;
    int64_t origin = p->time_origin != PCD_TIME_NONE ? p->time_origin : c->now;
    u128 ts = (u128)((i128)origin + s->start) / 1000;
    /* Heph subtracts the u64 times (the shift of a later epoch cancels out) */
    u128 dur = (u128)((uint64_t)s->end - (uint64_t)s->start) / 1000;
    if ((c->ov_n + 1) * 4 > c->ov_cap * 3 && ovl_grow(c) != PCD_OK)
        return pcd_job_fail(c->j, PCD_E_NOMEM,
                            "out of memory for Heph's overlap table, an entry per event (raise --max-memory)");
    uint32_t track = s->track + 1;
    ovl *e;
    for (unsigned steps = 0;; steps++) {
        e = ovl_slot(c, track, (uint64_t)ts);
        if (!e->track) break;
        if (steps == 4096) {
            if (!c->warned_cycle)
                pcd_job_note(c->j,
                             "warning: Heph's overlap fix does not settle for an event at %lld ns (Heph's converter "
                             "would loop forever); it is written where the walk stopped",
                             (long long)s->start);
            c->warned_cycle = true;
            e = NULL;
            break;
        }
        u128 earlier = (u128)(i128)e->dur;
        if (earlier > dur) {
            ts += 1;
            dur -= 1;
        } else {
            ts -= 1;
            dur += 1;
        }
    }
    if (e) {
        e->track = track;
        e->ts = (uint64_t)ts;
        e->dur = (int64_t)(uint64_t)dur;
        c->ov_n++;
    } else {
        /* where the walk stopped: Heph's map would take this (ts, dur) over */
        ovl *x = ovl_slot(c, track, (uint64_t)ts);
        x->dur = (int64_t)(uint64_t)dur;
    }
    PCD_TRY(pcd_text_z(o, c->events ? ",\n\t\t{\"pid\": " : "\t\t{\"pid\": "));
    PCD_TRY(pcd_text_i64(o, ct->pid));
    PCD_TRY(pcd_text_z(o, ", \"tid\": "));
    PCD_TRY(pcd_text_u64(o, ct->tid));
    PCD_TRY(pcd_text_z(o, ", \"ts\": "));
    PCD_TRY(put_u128(o, ts));
    PCD_TRY(pcd_text_z(o, ", \"dur\": "));
    PCD_TRY(put_u128(o, dur));
    PCD_TRY(pcd_text_z(o, ", \"name\": "));
    PCD_TRY(put_raw_str(o, s->name));
    PCD_TRY(put_args(c, s));
    return pcd_text_z(o, ", \"ph\": \"X\", \"cat\": \"\"}");
}

static pcd_status x_event(chrome *c, const pcd_profile *p, const pcd_slice *s)
{
    cthread *ct;
    PCD_TRY(thread_of(c, p, s->track, &ct));
    pcd_status st;
    if (c->d == PCD_DIALECT_HEPH) {
        st = heph_event(c, p, s, ct);
    } else {
        pcd_sink *o = c->out;
        i128 dur = (i128)s->end - (i128)s->start;
        PCD_TRY(pcd_text_z(o, c->events ? ",\n{\"ph\":\"X\",\"pid\":" : "{\"ph\":\"X\",\"pid\":"));
        PCD_TRY(pcd_text_i64(o, ct->pid));
        PCD_TRY(pcd_text_z(o, ",\"tid\":"));
        PCD_TRY(pcd_text_u64(o, ct->tid));
        PCD_TRY(pcd_text_z(o, ",\"ts\":"));
        PCD_TRY(put_us3(o, s->start));
        PCD_TRY(pcd_text_z(o, ",\"dur\":"));
        PCD_TRY(put_us3(o, dur < 0 ? 0 : dur));
        PCD_TRY(pcd_text_z(o, ",\"name\":"));
        PCD_TRY(pcd_text_json(o, s->name.ptr, s->name.len));
        PCD_TRY(pcd_text_z(o, ",\"cat\":"));
        PCD_TRY(pcd_text_json(o, s->category.ptr, s->category.len));
        PCD_TRY(put_args(c, s));
        st = pcd_sink_put(o, "}", 1);
    }
    c->events++;
    return st;
}

static pcd_status c_slice(void *ud, pcd_profile *p, const pcd_slice *s)
{
    return x_event(ud, p, s);
}

/* ---- sample timelines ---------------------------------------------------------------------- */

static const char *const kind_names[PCD_FRAME_KIND_N] = {
    "code", "native", "kernel", "gc", "idle", "invalid", "label", "type", "root",
};

/* Frames on one slice of a timeline: the same function in the same file. */
static bool same_slice(const pcd_profile *p, pcd_frame_id a, pcd_frame_id b)
{
    if (a == b) return true;
    const pcd_frame *x = pcd_profile_frame_at(p, a), *y = pcd_profile_frame_at(p, b);
    return x->function == y->function && x->file == y->file && x->kind == y->kind &&
           (!pcd_frame_nameless(x) || (x->address == y->address && x->module == y->module));
}

/* The X event of an open frame, from its start to `end`. */
static pcd_status close_frame(chrome *c, const pcd_profile *p, pcd_thread_id t, const copen *op, int64_t end)
{
    const pcd_frame *f = pcd_profile_frame_at(p, op->frame);
    pcd_bytes fn = pcd_profile_text(p, f->function), file = pcd_profile_text(p, f->file);
    bool code = f->kind == PCD_FRAME_CODE || f->kind == PCD_FRAME_NATIVE;
    pcd_slice s;
    memset(&s, 0, sizeof s);
    s.track = t;
    s.start = op->start;
    s.end = end;
    if ((code || (f->kind == PCD_FRAME_KERNEL && fn.len)) && !pcd_frame_nameless(f)) {
        s.name = fn;
    } else { /* (a nameless frame of code: the default dialect names it by its address) */
        if (!c->name_open) {
            pcd_memsink_init(&c->name, c->j->al);
            c->name_open = true;
        }
        c->name.len = 0;
        PCD_TRY(pcd_render_frame(&c->name.sink, p, op->frame, PCD_DIALECT_DEFAULT, PCD_COLLAPSED_RAW));
        PCD_TRY(pcd_memsink_flush(&c->name));
        s.name.ptr = c->name.data;
        s.name.len = c->name.len;
    }
    s.category.ptr = (const uint8_t *)kind_names[f->kind < PCD_FRAME_KIND_N ? f->kind : 0];
    s.category.len = strlen((const char *)s.category.ptr);
    pcd_arg a;
    if (code && file.len && !(c->d == PCD_DIALECT_CPYTHON && file.len == 1 && file.ptr[0] == '~')) {
        a.key.ptr = (const uint8_t *)"file";
        a.key.len = 4;
        a.type = PCD_ARG_STR;
        a.v.s = file;
        s.args = &a;
        s.n_args = 1;
    }
    return x_event(c, p, &s);
}

/* Closes the frames of thread t above depth keep (innermost first) at `at`. */
static pcd_status close_above(chrome *c, const pcd_profile *p, pcd_thread_id t, size_t keep, int64_t at)
{
    cthread *ct = &c->th[t];
    while (ct->n_open > keep) {
        PCD_TRY(close_frame(c, p, t, &ct->open[ct->n_open - 1], at));
        ct->n_open--;
    }
    return PCD_OK;
}

static pcd_status c_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    chrome *c = ud;
    cthread *ct;
    /* a sample that is neither timed nor in order (Mono's call tree beside its calls' slices)
     * has no place on a timeline */
    if (s->time == PCD_TIME_NONE && !(p->has & PCD_HAS_ORDER)) {
        c->untimed++;
        return PCD_OK;
    }
    PCD_TRY(thread_of(c, p, s->thread, &ct));
    int64_t at = s->time != PCD_TIME_NONE ? s->time : ct->have_last ? ct->last : 0;
    if (s->time == PCD_TIME_NONE && (p->has & PCD_HAS_ORDER)) {
        uint64_t us;
        pcd_out_pace_us(&c->pace, p, s, &us);
        ct->clock += us; /* wraps as Tachyon's deltas do */
        at = ct->clock > (uint64_t)INT64_MAX / 1000 ? INT64_MAX : (int64_t)ct->clock * 1000;
    }
    ct->last = at;
    ct->have_last = true;
    if (s->stack == ct->stack && ct->n_open == pcd_stack_depth(p, s->stack)) return PCD_OK;
    size_t n = pcd_stack_depth(p, s->stack);
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->fr, c->fr_cap, n));
    pcd_stack_frames(p, s->stack, c->fr);
    size_t keep = 0;
    while (keep < n && keep < ct->n_open && same_slice(p, ct->open[keep].frame, c->fr[keep])) keep++;
    PCD_TRY(close_above(c, p, s->thread, keep, at));
    ct = &c->th[s->thread];
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, ct->open, ct->open_cap, n));
    for (size_t i = keep; i < n; i++) {
        ct->open[i].frame = c->fr[i];
        ct->open[i].start = at;
    }
    ct->n_open = n;
    ct->stack = s->stack;
    return PCD_OK;
}

/* The sampling period in ns (0 unknown). */
static int64_t period_ns(const pcd_profile *p)
{
    int64_t k = pcd_out_unit_ns(p, p->period_type);
    if (p->period <= 0 || !k) return 0;
    return p->period > INT64_MAX / k ? INT64_MAX : p->period * k;
}

/* ---- the end: what is still open, names, the footer -------------------------------------------- */

typedef struct mrow {
    int64_t pid;
    uint64_t tid;
    pcd_thread_id t;
} mrow;

static int mrow_cmp(const void *x, const void *y)
{
    const mrow *a = x, *b = y;
    if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    return a->t < b->t ? -1 : a->t > b->t;
}

static pcd_status put_meta_head(pcd_sink *o, int64_t pid, uint64_t tid, const char *name)
{
    PCD_TRY(pcd_text_z(o, ",\n{\"ph\":\"M\",\"pid\":"));
    PCD_TRY(pcd_text_i64(o, pid));
    PCD_TRY(pcd_text_z(o, ",\"tid\":"));
    PCD_TRY(pcd_text_u64(o, tid));
    PCD_TRY(pcd_text_z(o, ",\"name\":\""));
    PCD_TRY(pcd_text_z(o, name));
    return pcd_text_z(o, "\",\"args\":{");
}

/* The process_name and process_sort_index of the process of row r. */
static pcd_status put_process(chrome *c, const pcd_profile *p, const mrow *rows, size_t n, size_t r)
{
    pcd_sink *o = c->out;
    const pcd_thread *th = &p->threads[rows[r].t];
    pcd_str name = 0;
    for (size_t k = r; k < n && rows[k].pid == rows[r].pid && !name; k++) name = p->threads[rows[k].t].process_name;
    if (!name && th->pid == PCD_ID_NONE && th->iid == PCD_ID_NONE) return PCD_OK;
    PCD_TRY(put_meta_head(o, rows[r].pid, 0, "process_name"));
    PCD_TRY(pcd_text_z(o, "\"name\":"));
    if (name) {
        pcd_bytes b = pcd_profile_text(p, name);
        PCD_TRY(pcd_text_json(o, b.ptr, b.len));
    } else {
        PCD_TRY(pcd_text_printf(o, "\"%s %lld\"", th->pid != PCD_ID_NONE ? "process" : "interpreter",
                                (long long)rows[r].pid));
    }
    PCD_TRY(pcd_text_z(o, "}}"));
    PCD_TRY(put_meta_head(o, rows[r].pid, 0, "process_sort_index"));
    PCD_TRY(pcd_text_z(o, "\"sort_index\":"));
    PCD_TRY(pcd_text_i64(o, rows[r].pid));
    return pcd_text_z(o, "}}");
}

static pcd_status put_thread(chrome *c, const pcd_profile *p, const mrow *row)
{
    pcd_sink *o = c->out;
    const pcd_thread *th = &p->threads[row->t];
    if (!th->name && !th->has_tid && !th->tid_text) return PCD_OK;
    PCD_TRY(put_meta_head(o, row->pid, row->tid, "thread_name"));
    PCD_TRY(pcd_text_z(o, "\"name\":"));
    if (th->name) {
        pcd_bytes b = pcd_profile_text(p, th->name);
        PCD_TRY(pcd_text_json(o, b.ptr, b.len));
    } else {
        pcd_memsink m;
        pcd_memsink_init(&m, c->j->al);
        pcd_status st = pcd_text_z(&m.sink, "Thread ");
        if (st == PCD_OK && th->tid_text) st = pcd_text_bytes(&m.sink, pcd_profile_text(p, th->tid_text));
        else if (st == PCD_OK) st = pcd_text_u64(&m.sink, th->tid);
        if (st == PCD_OK) st = pcd_memsink_flush(&m);
        if (st == PCD_OK) st = pcd_text_json(o, m.data, m.len);
        pcd_memsink_free(&m);
        PCD_TRY(st);
    }
    return pcd_text_z(o, "}}");
}

static pcd_status metadata_events(chrome *c, const pcd_profile *p)
{
    size_t n = 0;
    for (size_t t = 0; t < c->th_cap && t < p->n_threads; t++) n += c->th[t].seen;
    if (!n) return PCD_OK;
    mrow *rows = pcd_alloc_get(c->j->al, n * sizeof *rows);
    if (!rows) return PCD_E_NOMEM;
    n = 0;
    for (size_t t = 0; t < c->th_cap && t < p->n_threads; t++)
        if (c->th[t].seen) rows[n++] = (mrow){ c->th[t].pid, c->th[t].tid, (pcd_thread_id)t };
    qsort(rows, n, sizeof *rows, mrow_cmp);
    pcd_status st = PCD_OK;
    for (size_t r = 0; r < n && st == PCD_OK; r++)
        if (r == 0 || rows[r].pid != rows[r - 1].pid) st = put_process(c, p, rows, n, r);
    for (size_t r = 0; r < n && st == PCD_OK; r++)
        if (r == 0 || rows[r].pid != rows[r - 1].pid || rows[r].tid != rows[r - 1].tid) st = put_thread(c, p, &rows[r]);
    pcd_alloc_free(c->j->al, rows, n * sizeof *rows);
    return st;
}

static pcd_status c_end(void *ud, pcd_profile *p)
{
    chrome *c = ud;
    if (!c->begun) return PCD_OK; /* begin failed: nothing to close */
    int64_t period = period_ns(p);
    for (size_t t = 0; t < c->th_cap && t < p->n_threads; t++) {
        cthread *ct = &c->th[t];
        if (!ct->n_open) continue;
        int64_t end = ct->last > INT64_MAX - period ? INT64_MAX : ct->last + period;
        PCD_TRY(close_above(c, p, (pcd_thread_id)t, 0, end));
    }
    if (!c->events && c->untimed)
        return pcd_job_fail(c->j, PCD_E_EMPTY,
                            "nothing to show: the input has no spans, and its %llu samples have no times (a timeline "
                            "needs calls or timed samples)",
                            (unsigned long long)c->untimed);
    pcd_sink *o = c->out;
    if (c->d == PCD_DIALECT_HEPH) return pcd_text_z(o, "\n\t]\n}");
    /* metadata events follow a comma: without X events, start with a harmless one */
    if (!c->events) PCD_TRY(pcd_text_z(o, "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"trace_config\",\"args\":{}}"));
    PCD_TRY(metadata_events(c, p));
    return pcd_text_z(o, "\n]}\n");
}

static pcd_status c_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *cs)
{
    chrome *c = state;
    c->j = j;
    c->out = out;
    cs->ud = c;
    cs->needs = PCD_NEEDS_TIMES | PCD_NEEDS_TIMELINE;
    cs->begin = c_begin;
    cs->sample = c_sample;
    cs->slice = c_slice;
    cs->end = c_end;
    return PCD_OK;
}

static void c_close(void *state)
{
    chrome *c = state;
    pcd_alloc *al = c->j->al;
    for (size_t t = 0; t < c->th_cap; t++) PCD_VEC_FREE(al, c->th[t].open, c->th[t].open_cap);
    PCD_VEC_FREE(al, c->th, c->th_cap);
    PCD_VEC_FREE(al, c->fr, c->fr_cap);
    if (c->ov) pcd_alloc_free(al, c->ov, c->ov_cap * sizeof *c->ov);
    c->ov = NULL;
    if (c->name_open) pcd_memsink_free(&c->name);
}

const pcd_exporter pcd_out_chrome = {
    "chrome",
    "Chrome Trace Event JSON for Perfetto UI and chrome://tracing: spans as they are, samples as a timeline per "
    "thread (--heph-compat or --dialect heph: byte-identical to Heph's convert_trace)",
    0, PCD_HAS_SLICES | PCD_HAS_TIMES | PCD_HAS_ORDER, sizeof(chrome), c_open, c_close, NULL,
};
