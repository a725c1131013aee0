/* outputs/collapsed.c: collapsed stacks (Brendan Gregg's folded format: one line per distinct
 * stack, frames outermost first separated by ';', then a space and the value), for
 * flamegraph.pl, inferno and speedscope.
 *
 * Lines come in the order their stack was first seen, one per text: (thread, stack) pairs that
 * print the same (frames that differ only where the text does not show, a column or an address)
 * are one line, their values summed; a line whose sum for the chosen sample type (--metric, else
 * the input's default) is 0 is left out. A signed type's values print with their sign (a
 * difference of profiles: "stack -4096", as go tool pprof -traces and flamegraph.pl's difference
 * users read them). In the
 * CPython dialect they are CPython's `replay --collapsed` lines byte for byte: frames as
 * basename:function:line compared by (file, function, line), the interpreters of a thread
 * merged, empty stacks left out, sorted by count (then text, then first appearance).
 *
 * With a base profile (--base OTHER) it writes flamegraph.pl's differential form (its
 * difffolded.pl's output): "frames BASE NEW", one line per distinct stack of either profile,
 * threads merged and empty stacks left out, the input's lines in their order then the base's
 * own; the base's values are scaled to the input's total (rounded) unless --raw, then only to
 * the input's unit (outputs/view.h says which metrics compare). */
#include <stdlib.h>

#include "common/vec.h"
#include "model/aggregate.h"
#include "outputs/outputs.h"
#include "outputs/render.h"
#include "outputs/view.h"

typedef struct collapsed {
    pcd_job *j;
    pcd_sink *out;
    pcd_dialect d;
    pcd_agg agg;
    bool agg_open;
    pcd_profile *base;             /* --base: its profile and aggregate */
    pcd_agg bagg;
    bool bagg_open;
} collapsed;

static pcd_status c_begin(void *ud, pcd_profile *p)
{
    collapsed *c = ud;
    PCD_TRY(pcd_out_dialect(c->j, p, &c->d));
    PCD_TRY(pcd_out_metric(c->j, p, NULL));
    pcd_agg_init_types(&c->agg, c->j->al, p);
    c->agg_open = true;
    return PCD_OK;
}

static pcd_status c_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    (void)p;
    collapsed *c = ud;
    return pcd_agg_sample(&c->agg, s);
}

/* A value of type `type` as text: with its sign when the type is signed. */
static pcd_status put_value(pcd_sink *o, const pcd_profile *p, int type, uint64_t v)
{
    return p->types[type].is_signed ? pcd_text_i64(o, pcd_value_i64(v)) : pcd_text_u64(o, v);
}

/* A line's text: the thread (unless blank), the frames. */
static pcd_status put_text(collapsed *c, pcd_sink *o, const pcd_profile *p, pcd_thread_id t, pcd_stack_id s,
                           pcd_frame_id *fr, pcd_collapsed_escape esc)
{
    bool sep = false;
    if (c->d == PCD_DIALECT_AUSTIN || c->d == PCD_DIALECT_AUSTIN2 || c->d == PCD_DIALECT_CPYTHON || !pcd_thread_is_blank(p, t)) {
        PCD_TRY(pcd_render_thread_prefix(o, p, t, c->d, esc));
        sep = true;
    }
    size_t n = pcd_stack_frames(p, s, fr);
    for (size_t i = 0; i < n; i++) {
        if (sep) PCD_TRY(pcd_sink_put(o, ";", 1));
        sep = true;
        PCD_TRY(pcd_render_frame(o, p, fr[i], c->d, esc));
    }
    return PCD_OK;
}

/* ---- the CPython dialect ---------------------------------------------------------------- */

typedef struct cline {
    uint64_t off;                  /* of its text in the pool */
    uint32_t len;
    uint32_t order;
    uint64_t count;
} cline;

typedef struct cline_order {
    const uint8_t *pool;
    bool sgn;                      /* counts are int64_t */
} cline_order;

static int cline_cmp(const void *x, const void *y, void *ud)
{
    const cline *a = x, *b = y;
    const cline_order *o = ud;
    const uint8_t *pool = o->pool;
    if (a->count != b->count)
        return (o->sgn ? pcd_value_i64(a->count) > pcd_value_i64(b->count) : a->count > b->count) ? -1 : 1;
    size_t n = a->len < b->len ? a->len : b->len;
    int r = memcmp(pool + a->off, pool + b->off, n);
    if (r) return r;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static pcd_status write_cpython(collapsed *c, pcd_profile *p, int type)
{
    pcd_alloc *al = c->j->al;
    pcd_status st = PCD_OK;
    /* the key of a line: the thread id alone, and the stack of (file, function, line) frames */
    size_t nf = p->n_frames, ns = p->n_stacks, nt = p->n_threads;
    uint32_t *fmap = pcd_alloc_get(al, (nf + 1) * sizeof *fmap), *smap = pcd_alloc_get(al, (ns + 1) * sizeof *smap);
    uint32_t *tmap = pcd_alloc_get(al, (nt + 1) * sizeof *tmap); /* thread -> its line thread + 1 */
    pcd_agg lines;
    pcd_agg_init(&lines, al, 1);
    bool sgn = p->types[type].is_signed;
    lines.signed_mask = sgn;
    cline *cl = NULL;
    size_t cl_cap = 0, n_lines = 0;
    const uint8_t *pool = NULL;
    pcd_memsink text;
    pcd_memsink_init(&text, al);
    pcd_frame_id *fr = NULL;
    size_t fr_cap = 0;
    if (!fmap || !smap || !tmap) {
        st = PCD_E_NOMEM;
        goto out;
    }
    memset(fmap, 0, (nf + 1) * sizeof *fmap);
    memset(tmap, 0, (nt + 1) * sizeof *tmap);
    memset(smap, 0, (ns + 1) * sizeof *smap);
    smap[0] = 1; /* the empty stack is itself */
    for (size_t i = 0; i < c->agg.n && st == PCD_OK; i++) {
        const pcd_agg_entry *e = &c->agg.e[i];
        uint64_t v = pcd_agg_value(&c->agg, i, type);
        if (!v) continue;
        /* project the stack, reusing the projections of its prefixes: up the parents to one
         * projected already, then down again, pushing the projected frames */
        pcd_stack_id s = e->stack;
        if (!smap[s]) {
            if ((st = PCD_VEC_RESERVE(al, fr, fr_cap, pcd_stack_depth(p, s))) != PCD_OK) break;
            size_t n = 0;
            pcd_stack_id up = s;
            while (!smap[up]) {
                fr[n++] = up; /* stack ids, innermost first */
                up = pcd_stack_parent(p, up);
            }
            pcd_stack_id dst = smap[up] - 1;
            while (n > 0) {
                pcd_stack_id node = fr[--n];
                pcd_frame_id f = pcd_stack_frame(p, node);
                if (!fmap[f]) {
                    const pcd_frame *o = pcd_profile_frame_at(p, f);
                    pcd_frame k2 = pcd_frame_blank(PCD_FRAME_CODE);
                    k2.function = o->function;
                    k2.file = o->file;
                    k2.line = o->line == PCD_POS_NONE ? 0 : o->line;
                    fmap[f] = pcd_profile_frame(p, &k2) + 1;
                }
                dst = pcd_profile_push(p, dst, fmap[f] - 1);
                smap[node] = dst + 1;
            }
            if (p->oom) {
                st = p->oom;
                break;
            }
        }
        pcd_stack_id ps = smap[s] - 1;
        if (ps == PCD_STACK_EMPTY) continue;
        if (!tmap[e->thread]) {
            pcd_thread key = pcd_thread_blank();
            const pcd_thread *th = &p->threads[e->thread];
            key.has_tid = th->has_tid;
            key.tid = th->tid;
            key.tid_text = th->tid_text;
            key.key = UINT64_C(0xC0117A95ED); /* apart from the input's own threads */
            tmap[e->thread] = pcd_profile_thread(p, &key) + 1;
            if (p->oom) {
                st = p->oom;
                break;
            }
        }
        st = pcd_agg_add(&lines, tmap[e->thread] - 1, ps, &v, 1);
    }
    /* the lines' texts (without their counts), then sort */
    for (size_t i = 0; i < lines.n && st == PCD_OK; i++) {
        pcd_stack_id s = lines.e[i].stack;
        if ((st = PCD_VEC_RESERVE(al, fr, fr_cap, pcd_stack_depth(p, s))) != PCD_OK) break;
        if ((st = PCD_VEC_RESERVE(al, cl, cl_cap, n_lines + 1)) != PCD_OK) break;
        uint64_t at = pcd_sink_tell(&text.sink);
        st = pcd_render_thread_prefix(&text.sink, p, lines.e[i].thread, PCD_DIALECT_CPYTHON, PCD_COLLAPSED_RAW);
        size_t n = pcd_stack_frames(p, s, fr);
        for (size_t k = 0; k < n && st == PCD_OK; k++) {
            st = pcd_sink_put(&text.sink, ";", 1);
            if (st == PCD_OK) st = pcd_render_frame(&text.sink, p, fr[k], PCD_DIALECT_CPYTHON, PCD_COLLAPSED_RAW);
        }
        cl[n_lines].off = at;
        cl[n_lines].len = (uint32_t)(pcd_sink_tell(&text.sink) - at);
        cl[n_lines].order = (uint32_t)i;
        cl[n_lines].count = pcd_agg_value(&lines, i, 0);
        n_lines++;
    }
    if (st == PCD_OK) st = pcd_memsink_flush(&text);
    pool = text.data;
    cline_order co = { pool, sgn };
    if (st == PCD_OK && n_lines) qsort_r(cl, n_lines, sizeof *cl, cline_cmp, &co); /* cl is NULL without lines */
    for (size_t i = 0; i < n_lines && st == PCD_OK; i++) {
        if (!cl[i].count) continue; /* (signed values that came to 0) */
        st = pcd_sink_put(c->out, pool + cl[i].off, cl[i].len);
        if (st == PCD_OK) st = pcd_sink_put(c->out, " ", 1);
        if (st == PCD_OK) st = put_value(c->out, p, type, cl[i].count);
        if (st == PCD_OK) st = pcd_sink_put(c->out, "\n", 1);
    }
out:
    if (fmap) pcd_alloc_free(al, fmap, (nf + 1) * sizeof *fmap);
    if (smap) pcd_alloc_free(al, smap, (ns + 1) * sizeof *smap);
    if (tmap) pcd_alloc_free(al, tmap, (nt + 1) * sizeof *tmap);
    pcd_agg_free(&lines);
    PCD_VEC_FREE(al, cl, cl_cap);
    pcd_memsink_free(&text);
    PCD_VEC_FREE(al, fr, fr_cap);
    return st;
}

/* ---- the differential form ------------------------------------------------------------------- */

/* The frames of stack s of p as text, interned in `lines`. */
static pcd_status line_of(collapsed *c, pcd_profile *lines, pcd_memsink *m, const pcd_profile *p, pcd_stack_id s,
                          pcd_frame_id **fr, size_t *fr_cap, pcd_str *out)
{
    size_t n = pcd_stack_depth(p, s);
    PCD_TRY(PCD_VEC_RESERVE(c->j->al, *fr, *fr_cap, n));
    pcd_stack_frames(p, s, *fr);
    m->len = 0;
    m->sink.len = 0;
    m->sink.pos = 0;
    for (size_t i = 0; i < n; i++) {
        if (i) PCD_TRY(pcd_sink_put(&m->sink, ";", 1));
        PCD_TRY(pcd_render_frame(&m->sink, p, (*fr)[i], c->d, PCD_COLLAPSED_SAFE));
    }
    PCD_TRY(pcd_memsink_flush(m));
    *out = pcd_profile_str(lines, m->data, m->len);
    return lines->oom;
}

static pcd_status write_diff(collapsed *c, pcd_profile *p, int type)
{
    pcd_alloc *al = c->j->al;
    int btype;
    double scale;
    PCD_TRY(pcd_view_base_type(c->j, p, type, c->base, &btype, &scale));
    pcd_profile lines;             /* its strings: the lines' texts, in order */
    pcd_profile_init(&lines, al, NULL);
    pcd_memsink m;
    pcd_memsink_init(&m, al);
    pcd_frame_id *fr = NULL;
    size_t fr_cap = 0, v_cap = 0;
    uint64_t *v = NULL;            /* per line: base, new */
    uint64_t total[2] = { 0, 0 };
    pcd_status st = lines.oom;
    for (int side = 0; side < 2 && st == PCD_OK; side++) {
        const pcd_agg *a = side ? &c->bagg : &c->agg;
        const pcd_profile *q = side ? c->base : p;
        int t = side ? btype : type;
        for (size_t i = 0; i < a->n && st == PCD_OK; i++) {
            uint64_t x = pcd_agg_value(a, i, t);
            bool sg = q->types[t].is_signed;
            total[side] = sg ? pcd_sat_add_i(total[side], x) : pcd_sat_add(total[side], x);
            if (!x || a->e[i].stack == PCD_STACK_EMPTY) continue;
            pcd_str id;
            if ((st = line_of(c, &lines, &m, q, a->e[i].stack, &fr, &fr_cap, &id)) != PCD_OK) break;
            if ((size_t)id * 2 + 2 > v_cap) {
                size_t old = v_cap;
                if ((st = PCD_VEC_RESERVE(al, v, v_cap, (size_t)id * 2 + 2)) != PCD_OK) break;
                memset(v + old, 0, (v_cap - old) * sizeof *v);
            }
            uint64_t *slot = &v[id * 2 + (side ? 0 : 1)];
            *slot = sg ? pcd_sat_add_i(*slot, x) : pcd_sat_add(*slot, x);
        }
    }
    /* the base per the input's total (or only in the input's unit); signed types' values as
     * int64_t, with their sign */
    bool nsg = p->types[type].is_signed, bsg = c->base->types[btype].is_signed;
    double tn = nsg ? (double)pcd_value_i64(total[0]) : (double)total[0];
    double tb = bsg ? (double)pcd_value_i64(total[1]) : (double)total[1];
    double f = c->j->raw ? scale : tb ? tn / tb : 0;
    for (size_t id = 1; id < lines.strings.n && st == PCD_OK; id++) {
        double b = (bsg ? (double)pcd_value_i64(v[id * 2]) : (double)v[id * 2]) * f;
        uint64_t nv = v[id * 2 + 1];
        bool neg = b < 0;
        b = (neg ? -b : b) + 0.5;
        uint64_t bv = b >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)b;
        if (!bv && !nv) continue;
        pcd_bytes t = pcd_profile_text(&lines, (pcd_str)id);
        st = pcd_sink_put(c->out, t.ptr, t.len);
        if (st == PCD_OK) st = pcd_sink_put(c->out, neg && bv ? " -" : " ", neg && bv ? 2 : 1);
        if (st == PCD_OK) st = pcd_text_u64(c->out, bv);
        if (st == PCD_OK) st = pcd_sink_put(c->out, " ", 1);
        if (st == PCD_OK) st = nsg ? pcd_text_i64(c->out, pcd_value_i64(nv)) : pcd_text_u64(c->out, nv);
        if (st == PCD_OK) st = pcd_sink_put(c->out, "\n", 1);
    }
    PCD_VEC_FREE(al, v, v_cap);
    PCD_VEC_FREE(al, fr, fr_cap);
    pcd_memsink_free(&m);
    pcd_profile_free(&lines);
    return st;
}

static pcd_status c_end(void *ud, pcd_profile *p)
{
    collapsed *c = ud;
    int type;
    PCD_TRY(pcd_out_metric(c->j, p, &type));
    if (c->base) return write_diff(c, p, type);
    if (c->d == PCD_DIALECT_CPYTHON) return write_cpython(c, p, type);
    /* each line's text interned (in first-seen order), its values summed per text */
    pcd_alloc *al = c->j->al;
    bool sgn = p->types[type].is_signed;
    pcd_profile lines;             /* its strings: the lines' texts, in order */
    pcd_profile_init(&lines, al, NULL);
    pcd_memsink m;
    pcd_memsink_init(&m, al);
    pcd_frame_id *fr = NULL;
    size_t fr_cap = 0, v_cap = 0, ord_cap = 0, n_ord = 0;
    struct tsum { uint64_t v; bool seen; } *v = NULL; /* per text id */
    pcd_str *ord = NULL;           /* text ids in the order first seen ("" is id 0 wherever it came) */
    pcd_status st = lines.oom;
    for (size_t i = 0; i < c->agg.n && st == PCD_OK; i++) {
        uint64_t x = pcd_agg_value(&c->agg, i, type);
        if (!x) continue;
        const pcd_agg_entry *e = &c->agg.e[i];
        st = PCD_VEC_RESERVE(al, fr, fr_cap, pcd_stack_depth(p, e->stack));
        m.len = 0;
        m.sink.len = 0;
        m.sink.pos = 0;
        if (st == PCD_OK) st = put_text(c, &m.sink, p, e->thread, e->stack, fr, PCD_COLLAPSED_SAFE);
        if (st == PCD_OK) st = pcd_memsink_flush(&m);
        if (st != PCD_OK) break;
        pcd_str id = pcd_profile_str(&lines, m.data, m.len);
        if ((st = lines.oom) != PCD_OK) break;
        if ((size_t)id + 1 > v_cap) {
            size_t old = v_cap;
            if ((st = PCD_VEC_RESERVE(al, v, v_cap, (size_t)id + 1)) != PCD_OK) break;
            memset(v + old, 0, (v_cap - old) * sizeof *v);
        }
        if (!v[id].seen) {
            if ((st = PCD_VEC_RESERVE(al, ord, ord_cap, n_ord + 1)) != PCD_OK) break;
            ord[n_ord++] = id;
            v[id].seen = true;
        }
        v[id].v = sgn ? pcd_sat_add_i(v[id].v, x) : pcd_sat_add(v[id].v, x);
    }
    for (size_t i = 0; i < n_ord && st == PCD_OK; i++) {
        pcd_str id = ord[i];
        if (!v[id].v) continue;
        pcd_bytes t = pcd_profile_text(&lines, id);
        st = pcd_sink_put(c->out, t.ptr, t.len);
        if (st == PCD_OK) st = pcd_sink_put(c->out, " ", 1);
        if (st == PCD_OK) st = put_value(c->out, p, type, v[id].v);
        if (st == PCD_OK) st = pcd_sink_put(c->out, "\n", 1);
    }
    PCD_VEC_FREE(al, v, v_cap);
    PCD_VEC_FREE(al, ord, ord_cap);
    PCD_VEC_FREE(al, fr, fr_cap);
    pcd_memsink_free(&m);
    pcd_profile_free(&lines);
    return st;
}

static pcd_status c_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *cs)
{
    collapsed *c = state;
    c->j = j;
    c->out = out;
    cs->ud = c;
    cs->begin = c_begin;
    cs->sample = c_sample;
    cs->end = c_end;
    return PCD_OK;
}

static pcd_status b_begin(void *ud, pcd_profile *p)
{
    collapsed *c = ud;
    c->base = p;
    pcd_agg_init_types(&c->bagg, c->j->al, p);
    c->bagg_open = true;
    return PCD_OK;
}

static pcd_status b_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    (void)p;
    collapsed *c = ud;
    return pcd_agg_sample(&c->bagg, s);
}

static pcd_status c_open_base(void *state, pcd_job *base, pcd_consumer *cs)
{
    (void)base;
    cs->ud = state;
    cs->begin = b_begin;
    cs->sample = b_sample;
    return PCD_OK;
}

static void c_close(void *state)
{
    collapsed *c = state;
    if (c->agg_open) pcd_agg_free(&c->agg);
    if (c->bagg_open) pcd_agg_free(&c->bagg);
}

const pcd_exporter pcd_out_collapsed = {
    "collapsed",
    "collapsed stacks for flamegraph.pl, inferno and speedscope (--metric: the sample type; "
    "--dialect cpython: CPython's replay --collapsed; --base OTHER: flamegraph.pl's differential form)",
    PCD_HAS_SAMPLES, 0, sizeof(collapsed), c_open, c_close, c_open_base, PCD_WANTS_GROUPED | PCD_WANTS_DIALECT_BYTES,
};
