/* outputs/speedscope.c: speedscope's JSON file format (https://www.speedscope.app,
 * file-format-schema.json), one line:
 *
 *   {"$schema":...,"shared":{"frames":[...]},"profiles":[...],"name":...,
 *    "activeProfileIndex":0,"exporter":"profcodec"}
 *
 * Samples give "sampled" profiles, one per thread and sample type that has a value other
 * than 0 (the --metric one only when it is given; counts kept beside a time are left out),
 * named "<type> profile for <thread>", in the order they first had one. Their samples are in
 * the input's order, consecutive equal stacks merged into one weighted sample, so that
 * speedscope's time-order view shows the profile as it ran; memory grows with those runs.
 * Slices give "evented" profiles, one per track, with open and close events in time order.
 * Weights and values are clamped to 2^53-1 so that JavaScript reads them exactly. */
#include <stdlib.h>

#include "common/text.h"
#include "common/vec.h"
#include "model/aggregate.h"
#include "outputs/outputs.h"
#include "outputs/render.h"

typedef struct run {
    pcd_stack_id stack;
    uint64_t weight;
} run;

typedef struct sprofile {
    pcd_thread_id thread;
    int type;
    run *runs;
    size_t n, cap;
    uint64_t total;
} sprofile;

typedef struct sslice_ev {
    int64_t at;
    uint32_t frame;                /* model frame of the slice's name */
    bool open;
} sslice_ev;

typedef struct strack {
    pcd_thread_id track;
    sslice_ev *ev;
    size_t n, cap;
    int64_t first, last;
} strack;

typedef struct speedscope {
    pcd_job *j;
    pcd_sink *out;
    pcd_dialect d;
    int only;                      /* --metric's type, -1 every shown type */
    sprofile *pr;
    size_t n_pr, pr_cap;
    uint32_t *pr_idx;              /* (thread * PCD_MAX_SAMPLE_TYPES + type) -> profile + 1 */
    size_t pr_idx_cap;
    strack *tr;
    size_t n_tr, tr_cap;
    uint32_t *fidx;                /* model frame -> speedscope frame + 1 */
    size_t fidx_cap;
    uint32_t n_frames;
    pcd_frame_id *fr;
    size_t fr_cap;
} speedscope;

static pcd_status s_begin(void *ud, pcd_profile *p)
{
    speedscope *c = ud;
    PCD_TRY(pcd_out_dialect(c->j, p, &c->d));
    c->only = -1;
    if (c->j->metric) PCD_TRY(pcd_out_metric(c->j, p, &c->only));
    return PCD_OK;
}

/* The profile of (thread, type), made when first needed. */
static pcd_status profile_of(speedscope *c, pcd_thread_id t, int type, sprofile **out)
{
    size_t key = (size_t)t * PCD_MAX_SAMPLE_TYPES + (size_t)type;
    if (key >= c->pr_idx_cap) {
        size_t old = c->pr_idx_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->pr_idx, c->pr_idx_cap, key + 1));
        memset(c->pr_idx + old, 0, (c->pr_idx_cap - old) * sizeof *c->pr_idx);
    }
    if (!c->pr_idx[key]) {
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->pr, c->pr_cap, c->n_pr + 1));
        memset(&c->pr[c->n_pr], 0, sizeof c->pr[c->n_pr]);
        c->pr[c->n_pr].thread = t;
        c->pr[c->n_pr].type = type;
        c->pr_idx[key] = (uint32_t)++c->n_pr;
    }
    *out = &c->pr[c->pr_idx[key] - 1];
    return PCD_OK;
}

static pcd_status s_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    speedscope *c = ud;
    if (s->stack == PCD_STACK_EMPTY) return PCD_OK; /* speedscope has no use for empty stacks */
    for (size_t t = 0; t < p->n_types; t++) {
        if (c->only >= 0 ? (int)t != c->only : p->types[t].secondary) continue;
        uint64_t w = pcd_sat_mul(s->values[t], s->count);
        if (!w) continue;
        sprofile *pr;
        PCD_TRY(profile_of(c, s->thread, (int)t, &pr));
        if (pr->n && pr->runs[pr->n - 1].stack == s->stack) {
            pr->runs[pr->n - 1].weight = pcd_sat_add(pr->runs[pr->n - 1].weight, w);
        } else {
            PCD_TRY(PCD_VEC_RESERVE(c->j->al, pr->runs, pr->cap, pr->n + 1));
            pr->runs[pr->n].stack = s->stack;
            pr->runs[pr->n].weight = w;
            pr->n++;
        }
        pr->total = pcd_sat_add(pr->total, w);
    }
    return PCD_OK;
}

static pcd_status s_slice(void *ud, pcd_profile *p, const pcd_slice *sl)
{
    speedscope *c = ud;
    size_t i = 0;
    while (i < c->n_tr && c->tr[i].track != sl->track) i++;
    if (i == c->n_tr) {
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->tr, c->tr_cap, c->n_tr + 1));
        memset(&c->tr[i], 0, sizeof c->tr[i]);
        c->tr[i].track = sl->track;
        c->n_tr++;
    }
    strack *t = &c->tr[i];
    pcd_frame f = pcd_frame_blank(PCD_FRAME_LABEL);
    f.function = pcd_profile_str(p, sl->name.ptr, sl->name.len);
    pcd_frame_id fid = pcd_profile_frame(p, &f);
    if (p->oom) return p->oom;
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, t->ev, t->cap, t->n + 2));
    int64_t end = sl->end < sl->start ? sl->start : sl->end;
    t->ev[t->n++] = (sslice_ev){ sl->start, fid, true };
    t->ev[t->n++] = (sslice_ev){ end, fid, false };
    if (t->n == 2 || sl->start < t->first) t->first = sl->start;
    if (t->n == 2 || end > t->last) t->last = end;
    return PCD_OK;
}

/* A frame object: name, then file, line and column when known. */
static pcd_status put_frame(speedscope *c, const pcd_profile *p, pcd_frame_id id)
{
    pcd_sink *o = c->out;
    const pcd_frame *f = pcd_profile_frame_at(p, id);
    pcd_bytes fn = pcd_profile_text(p, f->function), file = pcd_profile_text(p, f->file);
    bool code = f->kind == PCD_FRAME_CODE || f->kind == PCD_FRAME_NATIVE;
    PCD_TRY(pcd_text_z(o, "{\"name\":"));
    if (code || (f->kind == PCD_FRAME_KERNEL && fn.len)) {
        PCD_TRY(pcd_text_json(o, fn.ptr, fn.len));
    } else {
        pcd_memsink m;
        pcd_memsink_init(&m, c->j->al);
        pcd_status st = pcd_render_frame(&m.sink, p, id, c->d, PCD_COLLAPSED_RAW);
        if (st == PCD_OK) st = pcd_memsink_flush(&m);
        if (st == PCD_OK) st = pcd_text_json(o, m.data, m.len);
        pcd_memsink_free(&m);
        PCD_TRY(st);
    }
    if (f->kind == PCD_FRAME_KERNEL) return pcd_text_z(o, ",\"file\":\"kernel\"}");
    if (code && file.len && !(c->d == PCD_DIALECT_CPYTHON && file.len == 1 && file.ptr[0] == '~')) {
        PCD_TRY(pcd_text_z(o, ",\"file\":"));
        PCD_TRY(pcd_text_json(o, file.ptr, file.len));
    }
    if (code && f->line != PCD_POS_NONE) {
        PCD_TRY(pcd_text_z(o, ",\"line\":"));
        PCD_TRY(pcd_text_json_int(o, f->line));
    }
    if (code && f->column != PCD_POS_NONE && f->column > 0) {
        PCD_TRY(pcd_text_z(o, ",\"col\":"));
        PCD_TRY(pcd_text_json_int(o, f->column));
    }
    return pcd_sink_put(o, "}", 1);
}

/* The speedscope index of a model frame, written into the frame list when new. */
static pcd_status frame_index(speedscope *c, const pcd_profile *p, pcd_frame_id f, uint32_t *out)
{
    if (f >= c->fidx_cap) {
        size_t old = c->fidx_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->fidx, c->fidx_cap, (size_t)f + 1));
        memset(c->fidx + old, 0, (c->fidx_cap - old) * sizeof *c->fidx);
    }
    if (!c->fidx[f]) {
        if (c->n_frames) PCD_TRY(pcd_sink_put(c->out, ",", 1));
        PCD_TRY(put_frame(c, p, f));
        c->fidx[f] = ++c->n_frames;
    }
    *out = c->fidx[f] - 1;
    return PCD_OK;
}

static pcd_status put_unit(pcd_sink *o, const pcd_profile *p, int type)
{
    pcd_bytes u = pcd_profile_text(p, p->types[type].unit);
    static const char *const known[] = { "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes" };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (u.len == strlen(known[i]) && memcmp(u.ptr, known[i], u.len) == 0) return pcd_text_json(o, u.ptr, u.len);
    return pcd_text_z(o, "\"none\"");
}

static pcd_status put_name(speedscope *c, const pcd_profile *p, pcd_str title, pcd_thread_id t)
{
    pcd_memsink m;
    pcd_memsink_init(&m, c->j->al);
    pcd_status st = pcd_text_bytes(&m.sink, pcd_profile_text(p, title));
    if (st == PCD_OK && !pcd_thread_is_blank(p, t)) {
        st = pcd_text_z(&m.sink, " profile for ");
        if (st == PCD_OK) st = pcd_render_thread_title(&m.sink, p, t, c->d);
    }
    if (st == PCD_OK) st = pcd_memsink_flush(&m);
    if (st == PCD_OK) st = pcd_text_json(c->out, m.data, m.len);
    pcd_memsink_free(&m);
    return st;
}

static int ev_cmp(const void *x, const void *y)
{
    const sslice_ev *a = x, *b = y;
    if (a->at != b->at) return a->at < b->at ? -1 : 1;
    return (int)a->open - (int)b->open; /* closes before opens at the same time */
}

static pcd_status s_end(void *ud, pcd_profile *p)
{
    speedscope *c = ud;
    pcd_sink *o = c->out;
    PCD_TRY(pcd_text_z(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":["));
    /* frames: numbered as the profiles first use them */
    for (size_t i = 0; i < c->n_pr; i++) {
        const sprofile *pr = &c->pr[i];
        for (size_t r = 0; r < pr->n; r++) {
            size_t n = pcd_stack_depth(p, pr->runs[r].stack);
            PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->fr, c->fr_cap, n));
            pcd_stack_frames(p, pr->runs[r].stack, c->fr);
            uint32_t ix;
            for (size_t k = 0; k < n; k++) PCD_TRY(frame_index(c, p, c->fr[k], &ix));
        }
    }
    for (size_t i = 0; i < c->n_tr; i++) {
        strack *t = &c->tr[i];
        qsort(t->ev, t->n, sizeof *t->ev, ev_cmp);
        uint32_t ix;
        for (size_t k = 0; k < t->n; k++) PCD_TRY(frame_index(c, p, t->ev[k].frame, &ix));
    }
    PCD_TRY(pcd_text_z(o, "]},\"profiles\":["));
    for (size_t i = 0; i < c->n_pr; i++) {
        const sprofile *pr = &c->pr[i];
        PCD_TRY(pcd_text_z(o, i ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":"));
        const pcd_sample_type *ty = &p->types[pr->type];
        PCD_TRY(put_name(c, p, ty->title ? ty->title : ty->name, pr->thread));
        PCD_TRY(pcd_text_z(o, ",\"unit\":"));
        PCD_TRY(put_unit(o, p, pr->type));
        PCD_TRY(pcd_text_z(o, ",\"startValue\":0,\"endValue\":"));
        PCD_TRY(pcd_text_json_uint(o, pr->total));
        PCD_TRY(pcd_text_z(o, ",\"samples\":["));
        for (size_t r = 0; r < pr->n; r++) {
            size_t n = pcd_stack_frames(p, pr->runs[r].stack, c->fr);
            PCD_TRY(pcd_sink_put(o, r ? ",[" : "[", r ? 2 : 1));
            for (size_t k = 0; k < n; k++) {
                if (k) PCD_TRY(pcd_sink_put(o, ",", 1));
                PCD_TRY(pcd_text_u64(o, c->fidx[c->fr[k]] - 1));
            }
            PCD_TRY(pcd_sink_put(o, "]", 1));
        }
        PCD_TRY(pcd_text_z(o, "],\"weights\":["));
        for (size_t r = 0; r < pr->n; r++) {
            if (r) PCD_TRY(pcd_sink_put(o, ",", 1));
            PCD_TRY(pcd_text_json_uint(o, pr->runs[r].weight));
        }
        PCD_TRY(pcd_text_z(o, "]}"));
    }
    for (size_t i = 0; i < c->n_tr; i++) {
        const strack *t = &c->tr[i];
        PCD_TRY(pcd_text_z(o, c->n_pr || i ? ",{\"type\":\"evented\",\"name\":" : "{\"type\":\"evented\",\"name\":"));
        PCD_TRY(put_name(c, p, pcd_profile_strz(p, "Spans"), t->track));
        PCD_TRY(pcd_text_z(o, ",\"unit\":\"nanoseconds\",\"startValue\":"));
        PCD_TRY(pcd_text_json_int(o, t->first));
        PCD_TRY(pcd_text_z(o, ",\"endValue\":"));
        PCD_TRY(pcd_text_json_int(o, t->last));
        PCD_TRY(pcd_text_z(o, ",\"events\":["));
        for (size_t k = 0; k < t->n; k++) {
            PCD_TRY(pcd_text_z(o, k ? ",{\"type\":\"" : "{\"type\":\""));
            PCD_TRY(pcd_text_z(o, t->ev[k].open ? "O\",\"frame\":" : "C\",\"frame\":"));
            PCD_TRY(pcd_text_u64(o, c->fidx[t->ev[k].frame] - 1));
            PCD_TRY(pcd_text_z(o, ",\"at\":"));
            PCD_TRY(pcd_text_json_int(o, t->ev[k].at));
            PCD_TRY(pcd_sink_put(o, "}", 1));
        }
        PCD_TRY(pcd_text_z(o, "]}"));
    }
    PCD_TRY(pcd_text_z(o, "],\"name\":"));
    const char *base = strrchr(c->j->input_name, '/');
    base = base ? base + 1 : c->j->input_name;
    PCD_TRY(pcd_text_json_z(o, base));
    if (c->n_pr || c->n_tr) PCD_TRY(pcd_text_z(o, ",\"activeProfileIndex\":0"));
    return pcd_text_z(o, ",\"exporter\":\"profcodec\"}\n");
}

static pcd_status s_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *cs)
{
    speedscope *c = state;
    c->j = j;
    c->out = out;
    cs->ud = c;
    cs->begin = s_begin;
    cs->sample = s_sample;
    cs->slice = s_slice;
    cs->end = s_end;
    return PCD_OK;
}

static void s_close(void *state)
{
    speedscope *c = state;
    pcd_alloc *al = c->j->al;
    for (size_t i = 0; i < c->n_pr; i++) PCD_VEC_FREE(al, c->pr[i].runs, c->pr[i].cap);
    for (size_t i = 0; i < c->n_tr; i++) PCD_VEC_FREE(al, c->tr[i].ev, c->tr[i].cap);
    PCD_VEC_FREE(al, c->pr, c->pr_cap);
    PCD_VEC_FREE(al, c->tr, c->tr_cap);
    PCD_VEC_FREE(al, c->pr_idx, c->pr_idx_cap);
    PCD_VEC_FREE(al, c->fidx, c->fidx_cap);
    PCD_VEC_FREE(al, c->fr, c->fr_cap);
}

const pcd_exporter pcd_out_speedscope = {
    "speedscope", "speedscope's JSON file format (https://www.speedscope.app): a sampled profile per thread and "
                  "metric, an evented one per track of spans",
    0, PCD_HAS_SAMPLES | PCD_HAS_SLICES, sizeof(speedscope), s_open, s_close,
};
