/* outputs/html.c: one self-contained HTML file that shows a profile (the viewer of
 * src/outputs/html/, embedded at build time: outputs/viewer_assets.h), with the profile's data
 * inline as JSON. Nothing is fetched when it is opened; the same input gives the same bytes.
 *
 * The data (docs/design.md, "The HTML viewer", has the whole layout): the view's strings,
 * display frames and node trie (outputs/view.h); per thread, the aggregated values of each
 * node (self values, a node possibly more than once: the viewer adds them and sums them up
 * the trie) and, where the samples come in the
 * order they were taken (PCD_HAS_TIMES or PCD_HAS_ORDER), the timeline: consecutive samples
 * on the same node merged into runs (node, values, and the start time where samples have
 * times). With --base, the base profile's aggregates beside them (a differential view; no
 * timeline). Integer columns are written as strings of base-64 digits, 5 bits each, least
 * significant first, the 6th bit set on every digit but the last (varints); signed ones
 * zigzagged; values above 2^53-1 clamped to it, so that JavaScript holds them exactly. */
#include <stdlib.h>

#include "common/vec.h"
#include "outputs/outputs.h"
#include "outputs/render.h"
#include "outputs/view.h"
#include "outputs/viewer_assets.h"

#define JS_MAX ((UINT64_C(1) << 53) - 1)

/* a column of varints */
typedef struct vcol {
    uint8_t *p;
    size_t n, cap;
} vcol;

static const char digits64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static pcd_status vcol_put(pcd_alloc *al, vcol *c, uint64_t v)
{
    if (v > JS_MAX) v = JS_MAX;
    PCD_TRY(PCD_VEC_RESERVE(al, c->p, c->cap, c->n + 11));
    while (v >= 32) {
        c->p[c->n++] = (uint8_t)digits64[32 | (v & 31)];
        v >>= 5;
    }
    c->p[c->n++] = (uint8_t)digits64[v];
    return PCD_OK;
}

static uint64_t zigzag(int64_t v) { return v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1; }

/* A call open on a track (slices: Mono's calls), innermost last. */
typedef struct sopen {
    int64_t end;
    pcd_stack_id stack;
} sopen;

/* The timeline of one source thread: its runs, and the run being built. */
typedef struct tline {
    pcd_thread_id thread;
    sopen *so;                     /* slices: the calls open at the run being built */
    size_t n_so, so_cap;
    bool written;                  /* put_threads wrote it with its thread's samples */
    bool calls;                    /* made of slices (Mono's calls): its timed samples stay off it */
    vcol node, time, v[PCD_MAX_SAMPLE_TYPES];
    uint64_t runs, samples;
    uint64_t cur_v[PCD_MAX_SAMPLE_TYPES];
    uint32_t cur_node;
    bool open;
    int64_t cur_t, prev_t, first_t, last_t;
} tline;

typedef struct html {
    pcd_job *j;
    pcd_sink *out;
    pcd_view w;
    bool view_open;
    pcd_profile *p[2];             /* the input, the base */
    int type;                      /* the metric shown first (--metric, else the default) */
    bool ordered;                  /* a timeline is kept */
    bool timed;                    /* every sample so far had a time */
    bool sliced;                   /* the timeline is made of slices (an input whose samples have
                                    * neither times nor order: Mono's calls) */
    bool hits;                     /* timed samples of an input whose samples are not all timed
                                    * (Mono's sample hits beside its call tree's sums): the time
                                    * order of their threads */
    tline *tl;                     /* by source thread */
    size_t n_tl, tl_cap;
    uint32_t *tl_of;               /* source thread -> timeline + 1 */
    size_t tl_of_cap;
    pcd_memsink scratch;
} html;

/* ---- samples ---------------------------------------------------------------------------- */

static pcd_status h_begin(void *ud, pcd_profile *p)
{
    html *h = ud;
    h->p[0] = p;
    PCD_TRY(pcd_out_metric(h->j, p, &h->type));
    h->ordered = !h->j->base && (p->has & (PCD_HAS_TIMES | PCD_HAS_ORDER));
    h->timed = true;
    return pcd_view_begin(&h->w, 0, p);
}

static pcd_status flush_run(html *h, tline *t, size_t n_types)
{
    pcd_alloc *al = h->j->al;
    PCD_TRY(vcol_put(al, &t->node, t->cur_node));
    for (size_t i = 0; i < n_types; i++) PCD_TRY(vcol_put(al, &t->v[i], t->cur_v[i]));
    if (h->timed) {
        PCD_TRY(vcol_put(al, &t->time, zigzag(t->runs ? t->cur_t - t->prev_t : t->cur_t)));
        t->prev_t = t->cur_t;
    }
    t->runs++;
    t->open = false;
    return PCD_OK;
}

/* (inline: h_sample's per-sample path; h_slice calls it too) */
PCD_INLINE pcd_status timeline_of(html *h, pcd_thread_id th, tline **out)
{
    if (th >= h->tl_of_cap) {
        size_t old = h->tl_of_cap;
        PCD_TRY(PCD_VEC_RESERVE(h->j->al, h->tl_of, h->tl_of_cap, (size_t)th + 1));
        memset(h->tl_of + old, 0, (h->tl_of_cap - old) * sizeof *h->tl_of);
    }
    if (!h->tl_of[th]) {
        PCD_TRY(PCD_VEC_RESERVE(h->j->al, h->tl, h->tl_cap, h->n_tl + 1));
        memset(&h->tl[h->n_tl], 0, sizeof h->tl[h->n_tl]);
        h->tl[h->n_tl].thread = th;
        h->tl_of[th] = (uint32_t)++h->n_tl;
    }
    *out = &h->tl[h->tl_of[th] - 1];
    return PCD_OK;
}

static pcd_status h_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    html *h = ud;
    PCD_TRY(pcd_view_sample(&h->w, 0, s));
    tline *t;
    if (PCD_UNLIKELY(!h->ordered)) {
        /* an input whose samples are not all timed (Mono's): its timed ones (the sample hits)
         * are their threads' time order, its sums are on no timeline */
        if (PCD_LIKELY(s->time == PCD_TIME_NONE) || h->j->base) return PCD_OK;
        h->hits = true;
        PCD_TRY(timeline_of(h, s->thread, &t));
        if (t->calls) return PCD_OK; /* (a thread with calls: they are its time order) */
    } else {
        if (s->time == PCD_TIME_NONE) h->timed = false;
        PCD_TRY(timeline_of(h, s->thread, &t));
    }
    uint32_t node = s->stack; /* a source stack; its node at the end */
    if (t->open && t->cur_node != node) PCD_TRY(flush_run(h, t, p->n_types));
    if (!t->open) {
        t->open = true;
        t->cur_node = node;
        t->cur_t = s->time;
        memset(t->cur_v, 0, sizeof t->cur_v);
    }
    for (size_t i = 0; i < p->n_types; i++) t->cur_v[i] = pcd_sat_add(t->cur_v[i], pcd_sat_mul(s->values[i], s->count));
    if (!t->samples) t->first_t = s->time;
    t->last_t = s->time;
    t->samples = pcd_sat_add(t->samples, s->count);
    return PCD_OK;
}

static pcd_status b_begin(void *ud, pcd_profile *p)
{
    html *h = ud;
    h->p[1] = p;
    return pcd_view_begin(&h->w, 1, p);
}

static pcd_status b_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    (void)p;
    html *h = ud;
    return pcd_view_sample(&h->w, 1, s);
}

/* ---- slices: Mono's calls as the time order ------------------------------------------------- */

/* The stack on thread t changes to `node` at time `at`: a new run (a run of no length is
 * replaced, a run of the same node goes on). */
static pcd_status boundary(html *h, tline *t, int64_t at, pcd_stack_id node, size_t n_types)
{
    if (!t->samples) t->first_t = at;
    t->samples = 1; /* (the last run ends at the last boundary: no mean interval is added) */
    t->last_t = at;
    if (t->open && t->cur_t == at) {
        t->cur_node = node;
        return PCD_OK;
    }
    if (t->open && t->cur_node == node) return PCD_OK;
    if (t->open) PCD_TRY(flush_run(h, t, n_types));
    t->open = true;
    t->cur_node = node;
    t->cur_t = at;
    memset(t->cur_v, 0, sizeof t->cur_v);
    return PCD_OK;
}

/* Closes the calls of t that ended by `at` (all: INT64_MAX), innermost first. */
static pcd_status close_calls(html *h, tline *t, int64_t at, size_t n_types)
{
    while (t->n_so && t->so[t->n_so - 1].end <= at) {
        int64_t e = t->so[t->n_so - 1].end;
        t->n_so--;
        PCD_TRY(boundary(h, t, e, t->n_so ? t->so[t->n_so - 1].stack : PCD_STACK_EMPTY, n_types));
    }
    return PCD_OK;
}

/* A slice: a call on its track, nested in the calls still open there (the importer hands them
 * on in enter order per track). Its stack is the open calls' methods as frames of the profile
 * (code frames named as the call tree names them: the call tree's own stacks, found again). */
static pcd_status h_slice(void *ud, pcd_profile *p, const pcd_slice *s)
{
    html *h = ud;
    if (h->ordered || h->j->base) return PCD_OK; /* (timed samples are the time order; a diff has none) */
    tline *t;
    PCD_TRY(timeline_of(h, s->track, &t));
    if (PCD_UNLIKELY(!t->calls)) {
        if (t->samples) return PCD_OK; /* (its timed samples came first: they are its time order) */
        t->calls = true;
    }
    h->sliced = true;
    PCD_TRY(close_calls(h, t, s->start, p->n_types));
    pcd_stack_id parent = t->n_so ? t->so[t->n_so - 1].stack : PCD_STACK_EMPTY;
    pcd_frame_id f = pcd_profile_frame_named(p, PCD_FRAME_CODE, pcd_profile_str(p, s->name.ptr, s->name.len));
    pcd_stack_id st = pcd_profile_push(p, parent, f);
    PCD_TRY(p->oom);
    PCD_TRY(PCD_VEC_RESERVE(h->j->al, t->so, t->so_cap, t->n_so + 1));
    int64_t end = s->end < s->start ? s->start : s->end;
    if (t->n_so && end > t->so[t->n_so - 1].end) end = t->so[t->n_so - 1].end; /* (nested: within its caller) */
    t->so[t->n_so++] = (sopen){ end, st };
    return boundary(h, t, s->start, st, p->n_types);
}

/* ---- writing ------------------------------------------------------------------------------- */

static pcd_status put_json(html *h, pcd_bytes b) { return pcd_text_json_html(h->out, &h->scratch, b.ptr, b.len); }
static pcd_status put_jsonz(html *h, const char *z) { return put_json(h, (pcd_bytes){ (const uint8_t *)z, strlen(z) }); }
static pcd_status put_str(html *h, const pcd_profile *p, pcd_str s) { return put_json(h, pcd_profile_text(p, s)); }

static pcd_status put_col(html *h, const vcol *c)
{
    PCD_TRY(pcd_sink_put(h->out, "\"", 1));
    if (c->n) PCD_TRY(pcd_sink_put(h->out, c->p, c->n));
    return pcd_sink_put(h->out, "\"", 1);
}

static void vcol_free(pcd_alloc *al, vcol *c) { PCD_VEC_FREE(al, c->p, c->cap); }

/* "key":"column", the column written from n values of fn(i) */
static pcd_status put_col_of(html *h, const char *key, size_t n, uint64_t (*fn)(const html *h, size_t i))
{
    vcol c = { 0 };
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < n && st == PCD_OK; i++) st = vcol_put(h->j->al, &c, fn(h, i));
    if (st == PCD_OK) st = pcd_text_printf(h->out, "\"%s\":", key);
    if (st == PCD_OK) st = put_col(h, &c);
    vcol_free(h->j->al, &c);
    return st;
}

/* the frames and nodes columns */
static uint64_t f_name(const html *h, size_t i) { return h->w.t.frames[i].function; }
static uint64_t f_file(const html *h, size_t i) { return h->w.t.frames[i].file; }
static uint64_t f_module(const html *h, size_t i) { return h->w.t.frames[i].module; }
static uint64_t f_kind(const html *h, size_t i) { return h->w.t.frames[i].kind; }
static uint64_t f_line(const html *h, size_t i)
{
    int64_t l = h->w.t.frames[i].line;
    return l == PCD_POS_NONE ? 0 : zigzag(l) + 1;
}
static uint64_t n_parent(const html *h, size_t i) { return i + 1 - pcd_view_parent(&h->w, (uint32_t)i + 1); }
static uint64_t n_frame(const html *h, size_t i) { return pcd_view_frame(&h->w, (uint32_t)i + 1); }

static pcd_status put_id(pcd_sink *o, const char *key, int64_t v)
{
    PCD_TRY(pcd_text_printf(o, ",\"%s\":", key));
    if (v == PCD_ID_NONE) return pcd_text_z(o, "null");
    return pcd_text_json_int(o, v);
}

static pcd_status put_types(html *h, const pcd_profile *p)
{
    pcd_sink *o = h->out;
    PCD_TRY(pcd_text_z(o, "\"types\":["));
    for (size_t i = 0; i < p->n_types; i++) {
        const pcd_sample_type *t = &p->types[i];
        PCD_TRY(pcd_text_z(o, i ? ",{\"name\":" : "{\"name\":"));
        PCD_TRY(put_str(h, p, t->name));
        PCD_TRY(pcd_text_z(o, ",\"unit\":"));
        PCD_TRY(put_str(h, p, t->unit));
        PCD_TRY(pcd_text_z(o, ",\"title\":"));
        PCD_TRY(put_str(h, p, t->title ? t->title : t->name));
        PCD_TRY(pcd_text_z(o, t->secondary ? ",\"secondary\":true}" : ",\"secondary\":false}"));
    }
    return pcd_text_z(o, "]");
}

/* The thread's description (ids and names). */
static pcd_status put_thread_head(html *h, const pcd_profile *p, pcd_thread_id t)
{
    pcd_sink *o = h->out;
    const pcd_thread *th = &p->threads[t];
    PCD_TRY(pcd_text_z(o, "{\"tid\":"));
    if (pcd_thread_id_text(th)) PCD_TRY(put_str(h, p, pcd_thread_id_text(th))); /* (a lane: its name) */
    else if (th->has_tid) PCD_TRY(pcd_text_printf(o, "\"%llu\"", (unsigned long long)th->tid));
    else PCD_TRY(pcd_text_z(o, "null"));
    PCD_TRY(put_id(o, "pid", th->pid));
    PCD_TRY(put_id(o, "iid", th->iid));
    PCD_TRY(pcd_text_z(o, ",\"name\":"));
    PCD_TRY(th->name ? put_str(h, p, th->name) : pcd_text_z(o, "null"));
    PCD_TRY(pcd_text_z(o, ",\"process\":"));
    return th->process_name ? put_str(h, p, th->process_name) : pcd_text_z(o, "null");
}

typedef struct ent_order {
    const pcd_agg *a;
    const pcd_view *w;
    int k;
} ent_order;

/* by thread, then node (then source stack: entries of one node stay in a fixed order) */
static int ent_cmp(const void *x, const void *y, void *ud)
{
    const ent_order *o = ud;
    const pcd_agg_entry *e = &o->a->e[*(const uint32_t *)x], *f = &o->a->e[*(const uint32_t *)y];
    if (e->thread != f->thread) return e->thread < f->thread ? -1 : 1;
    uint32_t m = pcd_view_node(o->w, o->k, e->stack), n = pcd_view_node(o->w, o->k, f->stack);
    if (m != n) return m < n ? -1 : 1;
    return e->stack < f->stack ? -1 : e->stack > f->stack;
}

/* A timeline's column of source stacks as nodes (the same column when they are the nodes). */
static pcd_status run_nodes(html *h, const vcol *src, vcol *out)
{
    memset(out, 0, sizeof *out);
    uint64_t v = 0, mul = 1;
    for (size_t i = 0; i < src->n; i++) {
        uint64_t d = (uint64_t)(strchr(digits64, src->p[i]) - digits64);
        if (d >= 32) {
            v += (d - 32) * mul;
            mul *= 32;
            continue;
        }
        v += d * mul;
        PCD_TRY(vcol_put(h->j->al, out, pcd_view_node(&h->w, 0, (pcd_stack_id)v)));
        v = 0;
        mul = 1;
    }
    return PCD_OK;
}

/* ,"runs":{...}: a timeline's runs (node, values of the metrics the thread has, times). */
static pcd_status put_runs(html *h, tline *tl, const uint64_t *total, size_t nt)
{
    pcd_alloc *al = h->j->al;
    pcd_sink *o = h->out;
    pcd_status st;
    st = pcd_text_printf(o, ",\"runs\":{\"n\":%llu,\"node\":", (unsigned long long)tl->runs);
    if (st == PCD_OK && h->w.identity) {
        st = put_col(h, &tl->node);
    } else if (st == PCD_OK) {
        vcol mapped;
        st = run_nodes(h, &tl->node, &mapped);
        if (st == PCD_OK) st = put_col(h, &mapped);
        vcol_free(al, &mapped);
    }
    if (st == PCD_OK) st = pcd_text_z(o, ",\"v\":[");
    for (size_t t = 0; t < nt && st == PCD_OK; t++) {
        static const vcol none = { 0 };
        if (t) st = pcd_sink_put(o, ",", 1);
        if (st == PCD_OK) st = put_col(h, total[t] ? &tl->v[t] : &none);
    }
    if (st == PCD_OK) st = pcd_text_z(o, "]");
    if (st == PCD_OK && h->timed) {
        /* the last run lasts as long as the thread's mean interval */
        int64_t span = tl->last_t - tl->first_t;
        int64_t gap = tl->samples > 1 ? span / (int64_t)(tl->samples - 1) : 0;
        st = pcd_text_z(o, ",\"t\":");
        if (st == PCD_OK) st = put_col(h, &tl->time);
        if (st == PCD_OK) st = pcd_text_z(o, ",\"end\":");
        if (st == PCD_OK) st = pcd_text_json_int(o, tl->last_t + gap);
    }
    if (st == PCD_OK) st = pcd_text_z(o, "}");
    return st;
}

/* "threads":[...] of side k: per thread its self values (and timeline on side 0). */
static pcd_status put_threads(html *h, int k)
{
    pcd_alloc *al = h->j->al;
    pcd_sink *o = h->out;
    const pcd_profile *p = h->p[k];
    const pcd_agg *a = &h->w.side[k].agg;
    size_t nt = p->n_types;
    uint32_t *ord = NULL;
    size_t ord_cap = 0;
    vcol node = { 0 }, v[PCD_MAX_SAMPLE_TYPES];
    memset(v, 0, sizeof v);
    ent_order eo = { a, &h->w, k };
    pcd_status st = PCD_VEC_RESERVE(al, ord, ord_cap, a->n + 1);
    if (st == PCD_OK) {
        for (size_t i = 0; i < a->n; i++) ord[i] = (uint32_t)i;
        qsort_r(ord, a->n, sizeof *ord, ent_cmp, &eo);
        st = pcd_text_z(o, "\"threads\":[");
    }
    size_t i = 0;
    bool first = true;
    while (st == PCD_OK && i < a->n) {
        pcd_thread_id th = a->e[ord[i]].thread;
        uint64_t samples = 0, total[PCD_MAX_SAMPLE_TYPES] = { 0 };
        uint32_t prev = 0;
        size_t n = 0;
        node.n = 0;
        for (size_t t = 0; t < nt; t++) v[t].n = 0;
        for (; i < a->n && a->e[ord[i]].thread == th && st == PCD_OK; i++, n++) {
            const pcd_agg_entry *e = &a->e[ord[i]];
            uint64_t val[PCD_MAX_SAMPLE_TYPES];
            pcd_agg_get(a, ord[i], val);
            samples = pcd_sat_add(samples, e->count);
            uint32_t nd = pcd_view_node(&h->w, k, e->stack);
            st = vcol_put(al, &node, nd - prev); /* (a node may come twice: its values add up) */
            prev = nd;
            for (size_t t = 0; t < nt && st == PCD_OK; t++) {
                if (p->negative >> t & 1) continue; /* (left out: h_end said so) */
                st = vcol_put(al, &v[t], val[t]);
                total[t] = pcd_sat_add(total[t], val[t]);
            }
        }
        if (st != PCD_OK) break;
        if (!first) st = pcd_sink_put(o, ",", 1);
        first = false;
        if (st == PCD_OK) st = put_thread_head(h, p, th);
        if (st == PCD_OK) st = pcd_text_z(o, ",\"samples\":");
        if (st == PCD_OK) st = pcd_text_json_uint(o, samples);
        if (st == PCD_OK) st = pcd_text_printf(o, ",\"self\":{\"n\":%zu,\"node\":", n);
        if (st == PCD_OK) st = put_col(h, &node);
        if (st == PCD_OK) st = pcd_text_z(o, ",\"v\":[");
        for (size_t t = 0; t < nt && st == PCD_OK; t++) {
            static const vcol none = { 0 };
            if (t) st = pcd_sink_put(o, ",", 1);
            /* a metric that is 0 throughout the thread: "" */
            if (st == PCD_OK) st = put_col(h, total[t] ? &v[t] : &none);
        }
        if (st == PCD_OK) st = pcd_text_z(o, "]}");
        /* the timeline */
        tline *tl = k == 0 && th < h->tl_of_cap && h->tl_of[th] ? &h->tl[h->tl_of[th] - 1] : NULL;
        if (tl) tl->written = true;
        if (st == PCD_OK && tl && tl->runs) st = put_runs(h, tl, total, nt);
        if (st == PCD_OK) st = pcd_text_z(o, "}");
    }
    /* threads with a timeline and no samples (slices' tracks: Mono's calls per thread) */
    for (size_t i2 = 0; k == 0 && i2 < h->n_tl && st == PCD_OK; i2++) {
        tline *tl = &h->tl[i2];
        if (tl->written || !tl->runs) continue;
        static const uint64_t zero[PCD_MAX_SAMPLE_TYPES] = { 0 };
        if (!first) st = pcd_sink_put(o, ",", 1);
        first = false;
        if (st == PCD_OK) st = put_thread_head(h, p, tl->thread);
        if (st == PCD_OK) st = pcd_text_z(o, ",\"samples\":0,\"self\":{\"n\":0,\"node\":\"\",\"v\":[");
        for (size_t t = 0; t < nt && st == PCD_OK; t++) st = pcd_text_z(o, t ? ",\"\"" : "\"\"");
        if (st == PCD_OK) st = pcd_text_z(o, "]}");
        if (st == PCD_OK) st = put_runs(h, tl, zero, nt);
        if (st == PCD_OK) st = pcd_text_z(o, "}");
    }
    if (st == PCD_OK) st = pcd_text_z(o, "]");
    PCD_VEC_FREE(al, ord, ord_cap);
    vcol_free(al, &node);
    for (size_t t = 0; t < PCD_MAX_SAMPLE_TYPES; t++) vcol_free(al, &v[t]);
    return st;
}

/* The header fields of a side: where it comes from. */
static pcd_status put_source(html *h, const pcd_profile *p, const pcd_job *j)
{
    pcd_sink *o = h->out;
    const char *base = strrchr(j->input_name, '/');
    base = base ? base + 1 : j->input_name;
    PCD_TRY(pcd_text_z(o, "\"source\":"));
    PCD_TRY(put_jsonz(h, j->input_name));
    PCD_TRY(pcd_text_z(o, ",\"name\":"));
    PCD_TRY(put_jsonz(h, base));
    PCD_TRY(pcd_text_z(o, ",\"format\":"));
    /* a text input (collapsed, Austin, speedscope) or a merge has no schema format: the profile's */
    PCD_TRY(put_jsonz(h, j->f ? j->f->name : p->format ? p->format : ""));
    PCD_TRY(pcd_text_z(o, ",\"version\":"));
    PCD_TRY(put_jsonz(h, j->f ? j->f->version : p->version ? p->version : ""));
    PCD_TRY(pcd_text_z(o, ",\"formatTitle\":"));
    PCD_TRY(put_jsonz(h, j->f ? j->f->title : j->text ? j->text->title : p->format ? p->format : ""));
    /* what one of its samples is (the header counts them): samples taken, distinct stacks, records */
    static const char *const nouns[] = { "samples", "stacks", "records" };
    PCD_TRY(pcd_text_printf(o, ",\"noun\":\"%s\"", nouns[p->sample_noun < 3 ? p->sample_noun : 0]));
    PCD_TRY(pcd_text_z(o, ",\"duration\":"));
    PCD_TRY(p->duration == PCD_TIME_NONE ? pcd_text_z(o, "null") : pcd_text_json_int(o, p->duration));
    PCD_TRY(pcd_text_z(o, ",\"meta\":["));
    for (size_t i = 0; i < p->n_meta; i++) {
        PCD_TRY(pcd_text_z(o, i ? ",[" : "["));
        PCD_TRY(put_str(h, p, p->meta[i].key));
        PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_str(h, p, p->meta[i].value));
        PCD_TRY(pcd_sink_put(o, "]", 1));
    }
    PCD_TRY(pcd_text_z(o, "],"));
    return put_types(h, p);
}

static pcd_status put_data(html *h, int btype, double scale)
{
    pcd_sink *o = h->out;
    const pcd_profile *p = h->p[0];
    const pcd_profile *t = &h->w.t;
    PCD_TRY(pcd_text_z(o, "{\"profcodec\":1,"));
    PCD_TRY(put_source(h, p, h->j));
    PCD_TRY(pcd_text_printf(o, ",\"type\":%d,\"timeline\":", h->type));
    PCD_TRY(pcd_text_z(o, h->sliced || h->hits ? "\"time\"" : !h->ordered ? "null" : h->timed ? "\"time\"" : "\"order\""));
    /* the view's tables */
    PCD_TRY(pcd_text_z(o, ",\"strings\":["));
    for (size_t i = 0; i < t->strings.n; i++) {
        if (i) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(put_str(h, t, (pcd_str)i));
    }
    PCD_TRY(pcd_text_printf(o, "],\"frames\":{\"n\":%zu,", t->n_frames));
    PCD_TRY(put_col_of(h, "name", t->n_frames, f_name));
    PCD_TRY(pcd_sink_put(o, ",", 1));
    PCD_TRY(put_col_of(h, "file", t->n_frames, f_file));
    PCD_TRY(pcd_sink_put(o, ",", 1));
    PCD_TRY(put_col_of(h, "line", t->n_frames, f_line));
    PCD_TRY(pcd_sink_put(o, ",", 1));
    PCD_TRY(put_col_of(h, "kind", t->n_frames, f_kind));
    PCD_TRY(pcd_sink_put(o, ",", 1));
    PCD_TRY(put_col_of(h, "module", t->n_frames, f_module));
    /* node 0 is the root; nodes 1.. as (i - parent, frame) */
    size_t nodes = pcd_view_nodes(&h->w);
    PCD_TRY(pcd_text_printf(o, "},\"nodes\":{\"n\":%zu,", nodes));
    PCD_TRY(put_col_of(h, "parent", nodes - 1, n_parent));
    PCD_TRY(pcd_sink_put(o, ",", 1));
    PCD_TRY(put_col_of(h, "frame", nodes - 1, n_frame));
    PCD_TRY(pcd_text_z(o, "},"));
    PCD_TRY(put_threads(h, 0));
    if (!h->p[1]) return pcd_text_z(o, ",\"base\":null}");
    PCD_TRY(pcd_text_z(o, ",\"base\":{"));
    PCD_TRY(put_source(h, h->p[1], h->j->base));
    char sc[40];
    pcd_fmt_rust_f64(sc, sizeof sc, scale);
    PCD_TRY(pcd_text_printf(o, ",\"type\":%d,\"scale\":%s,\"raw\":%s,", btype, sc, h->j->raw ? "true" : "false"));
    PCD_TRY(put_threads(h, 1));
    return pcd_text_z(o, "}}");
}

static pcd_status put_parts(pcd_sink *o, const pcd_viewer_part *part)
{
    for (size_t i = 0; i < part->n; i++) PCD_TRY(pcd_text_z(o, part->lines[i]));
    return PCD_OK;
}

static pcd_status h_end(void *ud, pcd_profile *p)
{
    html *h = ud;
    pcd_sink *o = h->out;
    int btype = -1;
    double scale = 1;
    /* the metric the page opens on: the default is settled now (one with values) */
    PCD_TRY(pcd_out_metric(h->j, p, &h->type));
    /* a flame graph cannot draw a negative width: other metrics with negative values are left
     * out of the page (the one it opens on has none: the pipeline refused it) */
    for (size_t t = 0; t < p->n_types; t++)
        if (p->negative >> t & 1) {
            pcd_bytes n = pcd_profile_text(p, p->types[t].name);
            pcd_job_note(h->j, "warning: the page leaves out %.*s: it has negative values (a difference of profiles), "
                               "which a flame graph cannot draw as widths (--to collapsed shows them)",
                         (int)(n.len > 64 ? 64 : n.len), (const char *)n.ptr);
        }
    if (h->p[1]) PCD_TRY(pcd_view_base_type(h->j, p, h->type, h->p[1], &btype, &scale));
    for (size_t i = 0; h->sliced && i < h->n_tl; i++) {
        tline *t = &h->tl[i];
        PCD_TRY(close_calls(h, t, INT64_MAX, p->n_types));
        if (t->open && t->cur_node == PCD_STACK_EMPTY) t->open = false; /* (the end: no run after it) */
    }
    for (size_t i = 0; i < h->n_tl; i++)
        if (h->tl[i].open) PCD_TRY(flush_run(h, &h->tl[i], p->n_types));
    PCD_TRY(pcd_view_finish(&h->w, h->p[1] ? 2 : 1));
    /* the page: the viewer's parts around the title and the data */
    PCD_TRY(put_parts(o, &pcd_viewer_parts[0]));
    const char *base = strrchr(h->j->input_name, '/');
    base = base ? base + 1 : h->j->input_name;
    PCD_TRY(pcd_text_xml(o, (const uint8_t *)base, strlen(base)));
    if (h->p[1]) {
        const char *b = strrchr(h->j->base->input_name, '/');
        b = b ? b + 1 : h->j->base->input_name;
        PCD_TRY(pcd_text_z(o, " vs "));
        PCD_TRY(pcd_text_xml(o, (const uint8_t *)b, strlen(b)));
    }
    PCD_TRY(put_parts(o, &pcd_viewer_parts[1]));
    PCD_TRY(put_data(h, btype, scale));
    return put_parts(o, &pcd_viewer_parts[2]);
}

static pcd_status h_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *cs)
{
    html *h = state;
    h->j = j;
    h->out = out;
    pcd_view_init(&h->w, j->al);
    pcd_memsink_init(&h->scratch, j->al);
    h->view_open = true;
    cs->ud = h;
    cs->needs = j->base ? 0 : PCD_NEEDS_TIMELINE; /* the time order (a diff has none) */
    cs->begin = h_begin;
    cs->sample = h_sample;
    cs->slice = h_slice;
    cs->end = h_end;
    return PCD_OK;
}

static pcd_status h_open_base(void *state, pcd_job *base, pcd_consumer *cs)
{
    (void)base;
    cs->ud = state;
    cs->begin = b_begin;
    cs->sample = b_sample;
    return PCD_OK;
}

static void h_close(void *state)
{
    html *h = state;
    pcd_alloc *al = h->j->al;
    for (size_t i = 0; i < h->n_tl; i++) {
        tline *t = &h->tl[i];
        vcol_free(al, &t->node);
        vcol_free(al, &t->time);
        for (size_t k = 0; k < PCD_MAX_SAMPLE_TYPES; k++) vcol_free(al, &t->v[k]);
    }
    for (size_t i = 0; i < h->n_tl; i++) PCD_VEC_FREE(al, h->tl[i].so, h->tl[i].so_cap);
    PCD_VEC_FREE(al, h->tl, h->tl_cap);
    PCD_VEC_FREE(al, h->tl_of, h->tl_of_cap);
    if (h->view_open) {
        pcd_view_free(&h->w);
        pcd_memsink_free(&h->scratch);
    }
}

const pcd_exporter pcd_out_html = {
    "html",
    "one self-contained HTML file to open in a browser: flame graph, icicle, timeline, sandwich, search, "
    "threads and metrics, heap types (--base OTHER: a differential view)",
    PCD_HAS_SAMPLES, 0, sizeof(html), h_open, h_close, h_open_base,
    PCD_WANTS_EVERY_PART | PCD_WANTS_AMOUNTS | PCD_WANTS_FILE,
};
