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
 * speedscope reads an evented profile as one stack: every close event must close the frame on
 * top, and times never go back. Spans of a track need not nest (Heph's actor spans overlap
 * the runtime's), so each track's spans are split into nesting lanes: sorted by start (the
 * longer first, then in input order), each goes to the first lane where it nests inside the
 * span open there, or where nothing is open, else to a new lane; every lane is a profile of
 * its own, the first named "Spans profile for <track>", the others "... (lane N)". Lanes
 * past the first 32 only take a span when nothing is open in them (found with a heap), so
 * the split stays O(n log n) whatever the spans are. A span that ends before it starts is
 * taken as ending at its start.
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

typedef struct sspan {
    int64_t start, end;
    uint32_t frame;                /* model frame of the slice's name */
    uint32_t lane;
    size_t seq;                    /* input order */
} sspan;

typedef struct strack {
    pcd_thread_id track;
    sspan *sp;
    size_t n, cap;
    int64_t first, last;
    uint32_t n_lanes;
    size_t *lane_at;               /* lane i's spans are sp[lane_at[i] .. lane_at[i + 1]) */
    size_t lane_at_cap;
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
    uint32_t *tr_idx;              /* model thread -> track + 1 */
    size_t tr_idx_cap;
    uint32_t *fidx;                /* model frame -> speedscope frame + 1 */
    size_t fidx_cap;
    uint32_t n_frames;
    pcd_frame_id *fr;
    size_t fr_cap;
    size_t *open;                  /* a lane's open spans (indexes into its track's spans) */
    size_t open_cap;
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
    if (sl->track >= c->tr_idx_cap) {
        size_t old = c->tr_idx_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->tr_idx, c->tr_idx_cap, (size_t)sl->track + 1));
        memset(c->tr_idx + old, 0, (c->tr_idx_cap - old) * sizeof *c->tr_idx);
    }
    if (!c->tr_idx[sl->track]) {
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->tr, c->tr_cap, c->n_tr + 1));
        memset(&c->tr[c->n_tr], 0, sizeof c->tr[c->n_tr]);
        c->tr[c->n_tr].track = sl->track;
        c->tr_idx[sl->track] = (uint32_t)++c->n_tr;
    }
    strack *t = &c->tr[c->tr_idx[sl->track] - 1];
    pcd_frame f = pcd_frame_blank(PCD_FRAME_LABEL);
    f.function = pcd_profile_str(p, sl->name.ptr, sl->name.len);
    pcd_frame_id fid = pcd_profile_frame(p, &f);
    if (p->oom) return p->oom;
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, t->sp, t->cap, t->n + 1));
    int64_t end = sl->end < sl->start ? sl->start : sl->end;
    t->sp[t->n] = (sspan){ sl->start, end, fid, 0, t->n };
    t->n++;
    if (t->n == 1 || sl->start < t->first) t->first = sl->start;
    if (t->n == 1 || end > t->last) t->last = end;
    return PCD_OK;
}

/* ---- nesting lanes ------------------------------------------------------------------------ */

#define FIT_LANES 32               /* lanes where a span may nest; past them, only empty lanes */

static int span_cmp(const void *x, const void *y)
{
    const sspan *a = x, *b = y;
    if (a->start != b->start) return a->start < b->start ? -1 : 1;
    if (a->end != b->end) return a->end > b->end ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int lane_cmp(const void *x, const void *y)
{
    const sspan *a = x, *b = y;
    if (a->lane != b->lane) return a->lane < b->lane ? -1 : 1;
    return span_cmp(x, y);
}

/* A min-heap of (end of the lane's open span, lane) for the lanes past FIT_LANES. */
typedef struct lheap {
    struct lent { int64_t end; uint32_t lane; } *h;
    size_t n, cap;
} lheap;

static void heap_down(lheap *q, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < q->n && q->h[l].end < q->h[m].end) m = l;
        if (l + 1 < q->n && q->h[l + 1].end < q->h[m].end) m = l + 1;
        if (m == i) return;
        struct lent x = q->h[i];
        q->h[i] = q->h[m];
        q->h[m] = x;
        i = m;
    }
}

static pcd_status heap_push(pcd_alloc *al, lheap *q, int64_t end, uint32_t lane)
{
    PCD_TRY(PCD_VEC_RESERVE(al, q->h, q->cap, q->n + 1));
    size_t i = q->n++;
    q->h[i].end = end;
    q->h[i].lane = lane;
    while (i && q->h[(i - 1) / 2].end > q->h[i].end) {
        struct lent x = q->h[i];
        q->h[i] = q->h[(i - 1) / 2];
        q->h[(i - 1) / 2] = x;
        i = (i - 1) / 2;
    }
    return PCD_OK;
}

/* Splits the track's spans into lanes where they nest; sorts them by lane, then by start. */
static pcd_status split_lanes(speedscope *c, strack *t)
{
    pcd_alloc *al = c->j->al;
    qsort(t->sp, t->n, sizeof *t->sp, span_cmp);
    struct fit { int64_t *end; size_t n, cap; } fit[FIT_LANES];
    memset(fit, 0, sizeof fit);
    lheap q = { NULL, 0, 0 };
    uint32_t lanes = 0;
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < t->n && st == PCD_OK; i++) {
        sspan *s = &t->sp[i];
        uint32_t k;
        for (k = 0; k < lanes && k < FIT_LANES; k++) {
            struct fit *l = &fit[k];
            while (l->n && l->end[l->n - 1] <= s->start) l->n--; /* closed before s opens */
            if (!l->n || l->end[l->n - 1] >= s->end) break;
        }
        if (k < FIT_LANES && (k < lanes || lanes < FIT_LANES)) {
            if (k == lanes) lanes++;
            st = PCD_VEC_RESERVE(al, fit[k].end, fit[k].cap, fit[k].n + 1);
            if (st == PCD_OK) fit[k].end[fit[k].n++] = s->end;
        } else if (q.n && q.h[0].end <= s->start) {
            k = q.h[0].lane; /* a lane past the first ones where nothing is open any more */
            q.h[0].end = s->end;
            heap_down(&q, 0);
        } else {
            k = lanes++;
            st = heap_push(al, &q, s->end, k);
        }
        s->lane = k;
    }
    for (size_t k = 0; k < FIT_LANES; k++) PCD_VEC_FREE(al, fit[k].end, fit[k].cap);
    PCD_VEC_FREE(al, q.h, q.cap);
    PCD_TRY(st);
    if (lanes > 1) qsort(t->sp, t->n, sizeof *t->sp, lane_cmp);
    t->n_lanes = lanes;
    PCD_TRY(PCD_VEC_RESERVE(al, t->lane_at, t->lane_at_cap, (size_t)lanes + 1));
    size_t i = 0;
    for (uint32_t k = 0; k <= lanes; k++) {
        while (i < t->n && t->sp[i].lane < k) i++;
        t->lane_at[k] = i;
    }
    return PCD_OK;
}

/* The open and close events of one lane, properly nested (fn gets each: open, frame, at). */
typedef pcd_status (*lane_ev_fn)(speedscope *c, const pcd_profile *p, bool open, uint32_t frame, int64_t at, bool first);

static pcd_status lane_events(speedscope *c, const pcd_profile *p, const strack *t, uint32_t lane, lane_ev_fn fn)
{
    size_t n = 0, from = t->lane_at[lane], to = t->lane_at[lane + 1];
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->open, c->open_cap, to - from));
    bool first = true;
    for (size_t i = from; i < to; i++) {
        const sspan *s = &t->sp[i];
        while (n && t->sp[c->open[n - 1]].end <= s->start) {
            const sspan *o = &t->sp[c->open[--n]];
            PCD_TRY(fn(c, p, false, o->frame, o->end, first));
            first = false;
        }
        PCD_TRY(fn(c, p, true, s->frame, s->start, first));
        first = false;
        c->open[n++] = i;
    }
    while (n) {
        const sspan *o = &t->sp[c->open[--n]];
        PCD_TRY(fn(c, p, false, o->frame, o->end, first));
        first = false;
    }
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
    if ((code || (f->kind == PCD_FRAME_KERNEL && fn.len)) && !pcd_frame_nameless(f)) {
        PCD_TRY(pcd_text_json(o, fn.ptr, fn.len));
    } else {
        pcd_memsink m;
        pcd_memsink_init(&m, c->j->al);
        /* a nameless frame of code: named by its address and module, as go tool pprof names it */
        pcd_status st = pcd_frame_nameless(f) ? pcd_render_function(&m.sink, p, id, PCD_COLLAPSED_RAW)
                                              : pcd_render_frame(&m.sink, p, id, c->d, PCD_COLLAPSED_RAW);
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

/* "<title> profile for <thread>", and " (lane N)" for a track's lanes after the first. */
static pcd_status put_name(speedscope *c, const pcd_profile *p, pcd_str title, pcd_thread_id t, uint32_t lane)
{
    pcd_memsink m;
    pcd_memsink_init(&m, c->j->al);
    pcd_status st = pcd_text_bytes(&m.sink, pcd_profile_text(p, title));
    if (st == PCD_OK && !pcd_thread_is_blank(p, t)) {
        st = pcd_text_z(&m.sink, " profile for ");
        if (st == PCD_OK) st = pcd_render_thread_title(&m.sink, p, t, c->d);
    }
    if (st == PCD_OK && lane) st = pcd_text_printf(&m.sink, " (lane %u)", (unsigned)lane + 1);
    if (st == PCD_OK) st = pcd_memsink_flush(&m);
    if (st == PCD_OK) st = pcd_text_json(c->out, m.data, m.len);
    pcd_memsink_free(&m);
    return st;
}

static pcd_status ev_frame(speedscope *c, const pcd_profile *p, bool open, uint32_t frame, int64_t at, bool first)
{
    (void)open, (void)at, (void)first;
    uint32_t ix;
    return frame_index(c, p, frame, &ix);
}

static pcd_status ev_write(speedscope *c, const pcd_profile *p, bool open, uint32_t frame, int64_t at, bool first)
{
    (void)p;
    pcd_sink *o = c->out;
    PCD_TRY(pcd_text_z(o, first ? "{\"type\":\"" : ",{\"type\":\""));
    PCD_TRY(pcd_text_z(o, open ? "O\",\"frame\":" : "C\",\"frame\":"));
    PCD_TRY(pcd_text_u64(o, c->fidx[frame] - 1));
    PCD_TRY(pcd_text_z(o, ",\"at\":"));
    PCD_TRY(pcd_text_json_int(o, at));
    return pcd_sink_put(o, "}", 1);
}

static pcd_status s_end(void *ud, pcd_profile *p)
{
    speedscope *c = ud;
    pcd_sink *o = c->out;
    /* Nothing to write: the only types with values are ones left out without --metric (counts
     * kept beside a time, a heap's collectables beside its bytes) or have negative values.
     * Said, exit 1, rather than a file with no profile in it. */
    size_t to_show = 0;
    for (size_t i = 0; i < c->n_pr; i++) to_show += !(p->negative >> c->pr[i].type & 1);
    if (!to_show && !c->n_tr) {
        char shown[160], valued[160];
        uint32_t primary = 0, usable = p->valued & ~p->negative;
        if (!usable)
            return pcd_job_fail(c->j, PCD_E_EMPTY, "nothing to show: %sno sample type has values speedscope can weigh",
                                c->j->damaged ? "before the damage, " : "");
        for (size_t t = 0; t < p->n_types; t++)
            if (!p->types[t].secondary) primary |= (uint32_t)1 << t;
        return pcd_job_fail(c->j, PCD_E_EMPTY,
                            "nothing to show: no sample has a value of %s%s (the samples have values of %s: "
                            "--metric takes them)",
                            pcd_profile_type_names(shown, sizeof shown, p, c->only >= 0 ? (uint32_t)1 << c->only : primary),
                            c->j->damaged ? " before the damage" : "", pcd_profile_type_names(valued, sizeof valued, p, usable));
    }
    PCD_TRY(pcd_text_z(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":["));
    /* a type with negative values (a difference of profiles) cannot be weights: left out, said */
    for (size_t t = 0; t < p->n_types; t++)
        if (p->negative >> t & 1) {
            pcd_bytes n = pcd_profile_text(p, p->types[t].name);
            pcd_job_note(c->j, "warning: speedscope leaves out %.*s: it has negative values (a difference of profiles), "
                               "which cannot be weights (--to collapsed shows them)",
                         (int)(n.len > 64 ? 64 : n.len), (const char *)n.ptr);
        }
    /* frames: numbered as the profiles first use them */
    for (size_t i = 0; i < c->n_pr; i++) {
        const sprofile *pr = &c->pr[i];
        if (p->negative >> pr->type & 1) continue;
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
        PCD_TRY(split_lanes(c, t));
        for (uint32_t k = 0; k < t->n_lanes; k++) PCD_TRY(lane_events(c, p, t, k, ev_frame));
    }
    PCD_TRY(pcd_text_z(o, "]},\"profiles\":["));
    size_t shown = 0;
    for (size_t i = 0; i < c->n_pr; i++) {
        const sprofile *pr = &c->pr[i];
        if (p->negative >> pr->type & 1) continue;
        PCD_TRY(pcd_text_z(o, shown++ ? ",{\"type\":\"sampled\",\"name\":" : "{\"type\":\"sampled\",\"name\":"));
        const pcd_sample_type *ty = &p->types[pr->type];
        PCD_TRY(put_name(c, p, ty->title ? ty->title : ty->name, pr->thread, 0));
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
    bool any = shown > 0;
    for (size_t i = 0; i < c->n_tr; i++) {
        const strack *t = &c->tr[i];
        for (uint32_t k = 0; k < t->n_lanes; k++) {
            PCD_TRY(pcd_text_z(o, any ? ",{\"type\":\"evented\",\"name\":" : "{\"type\":\"evented\",\"name\":"));
            any = true;
            PCD_TRY(put_name(c, p, pcd_profile_strz(p, "Spans"), t->track, k));
            PCD_TRY(pcd_text_z(o, ",\"unit\":\"nanoseconds\",\"startValue\":"));
            PCD_TRY(pcd_text_json_int(o, t->first));
            PCD_TRY(pcd_text_z(o, ",\"endValue\":"));
            PCD_TRY(pcd_text_json_int(o, t->last));
            PCD_TRY(pcd_text_z(o, ",\"events\":["));
            PCD_TRY(lane_events(c, p, t, k, ev_write));
            PCD_TRY(pcd_text_z(o, "]}"));
        }
    }
    PCD_TRY(pcd_text_z(o, "],\"name\":"));
    const char *base = strrchr(c->j->input_name, '/');
    base = base ? base + 1 : c->j->input_name;
    PCD_TRY(pcd_text_json_z(o, base));
    if (any) PCD_TRY(pcd_text_z(o, ",\"activeProfileIndex\":0"));
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
    for (size_t i = 0; i < c->n_tr; i++) {
        PCD_VEC_FREE(al, c->tr[i].sp, c->tr[i].cap);
        PCD_VEC_FREE(al, c->tr[i].lane_at, c->tr[i].lane_at_cap);
    }
    PCD_VEC_FREE(al, c->tr_idx, c->tr_idx_cap);
    PCD_VEC_FREE(al, c->pr, c->pr_cap);
    PCD_VEC_FREE(al, c->tr, c->tr_cap);
    PCD_VEC_FREE(al, c->pr_idx, c->pr_idx_cap);
    PCD_VEC_FREE(al, c->fidx, c->fidx_cap);
    PCD_VEC_FREE(al, c->fr, c->fr_cap);
    PCD_VEC_FREE(al, c->open, c->open_cap);
}

const pcd_exporter pcd_out_speedscope = {
    "speedscope", "speedscope's JSON file format (https://www.speedscope.app): a sampled profile per thread and "
                  "metric, evented ones per track of spans (one per nesting lane)",
    0, PCD_HAS_SAMPLES | PCD_HAS_SLICES, sizeof(speedscope), s_open, s_close, NULL, PCD_WANTS_AMOUNTS | PCD_WANTS_GROUPED,
};
