/* pipeline/merge.c: `profcodec merge`: any number of inputs of any formats into one profile.
 *
 * Each input is read by its own importer (a format's model importer over its reader, or a text
 * format's) into a profile of its own, whose events are translated as they come into the one
 * merged profile, whose consumer is the output:
 *
 *     input i --importer--> profile i --translate--> merged profile --[filters]--> output
 *
 * Nothing keeps samples: memory is the tables (each input's, freed after it, and the merged
 * one's), so a merge streams wherever each input's format streams. Translating:
 *  - strings, frames and stacks are interned again in the merged tables (memoised per input);
 *  - threads stay apart per input (their key says which input; a thread's name and ids are
 *    kept), so each thread's samples keep their input's order;
 *  - every sample gets the label source=<the input's name as given>, after its own labels
 *    (pprof writes labels; the other outputs do not show them);
 *  - sample types are the first input's. Every later input must have the same types (name and
 *    unit, in any order); otherwise the merge is refused, unless --force: then a type of a later
 *    input counts as the first input's type of the same name (whatever its unit), else as the
 *    first input's type at the same position, else it is dropped (said once per input);
 *  - times: an input's sample times are moved onto the first input's time origin when both
 *    inputs have one (Unix time), else kept as they are;
 *  - metadata: the first input's (an output that writes a header writes that input's);
 *    dialect, period, default metric and what a sample stands for: the first input's.
 * Order: the output sees input 1's samples, then input 2's, and so on. No output needs them in
 * one global time order: a timeline (chrome, the page) is drawn per thread, and every thread
 * belongs to one input, whose samples are in time order (a k-way merge by time would need all
 * inputs open at once, and buy nothing for these outputs). What the merged inputs give the
 * outputs (PCD_HAS_*) is what every input gives. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/vec.h"
#include "model/profile.h"
#include "model/transform.h"
#include "pipeline/pipeline.h"

typedef struct merge merge;

typedef struct msrc {
    merge *g;
    pcd_job *j;
    size_t idx;
    pcd_profile *q;
    int tmap[PCD_MAX_SAMPLE_TYPES]; /* input type -> merged type (-1: dropped) */
    uint32_t *fmap;                /* input frame -> merged frame + 1 (0: not yet) */
    size_t fmap_cap;
    uint32_t *smap;                /* input stack -> merged stack + 1 */
    size_t smap_cap;
    uint32_t *thmap;               /* input thread -> merged thread + 1 */
    size_t thmap_cap;
    int64_t shift;                 /* added to the input's times */
    pcd_str source;                /* the input's name, in the merged strings */
} msrc;

struct merge {
    pcd_profile P;
    pcd_job *jobs;
    size_t n;
    bool typed;                    /* the merged profile has its types (an input began) */
    bool first_meta;               /* metadata still comes from the first input that began */
    size_t typed_by;
    pcd_label *labels;
    size_t labels_cap;
    uint64_t vals[PCD_MAX_SAMPLE_TYPES];
    pcd_stack_id *chain;
    size_t chain_cap;
    pcd_str source_key;
    uint32_t needs;                /* the output's PCD_NEEDS_* */
};

static pcd_str str_of(msrc *m, pcd_str s)
{
    if (!s) return 0;
    pcd_bytes b = pcd_profile_text(m->q, s);
    return pcd_profile_str(&m->g->P, b.ptr, b.len);
}

/* A map slot for id (grown zeroed), or NULL when out of memory. */
static uint32_t *slot(pcd_alloc *al, uint32_t **map, size_t *cap, uint32_t id)
{
    if (id >= *cap) {
        size_t old = *cap;
        if (PCD_VEC_RESERVE(al, *map, *cap, (size_t)id + 1) != PCD_OK) return NULL;
        memset(*map + old, 0, (*cap - old) * sizeof **map);
    }
    return &(*map)[id];
}

static bool frame_of(msrc *m, pcd_frame_id f, pcd_frame_id *out)
{
    uint32_t *e = slot(m->g->P.al, &m->fmap, &m->fmap_cap, f);
    if (!e) return false;
    if (!*e) {
        pcd_frame fr = *pcd_profile_frame_at(m->q, f);
        fr.function = str_of(m, fr.function);
        fr.file = str_of(m, fr.file);
        fr.module = str_of(m, fr.module);
        *e = pcd_profile_frame(&m->g->P, &fr) + 1;
    }
    *out = *e - 1;
    return true;
}

static bool stack_of(msrc *m, pcd_stack_id s, pcd_stack_id *out)
{
    merge *g = m->g;
    /* up to the first stack already translated, then pushed back down */
    size_t n = 0;
    pcd_stack_id at = s;
    uint32_t *e;
    for (;;) {
        if (at == PCD_STACK_EMPTY) break;
        if (!(e = slot(g->P.al, &m->smap, &m->smap_cap, at))) return false;
        if (*e) break;
        if (PCD_VEC_RESERVE(g->P.al, g->chain, g->chain_cap, n + 1) != PCD_OK) return false;
        g->chain[n++] = at;
        at = pcd_stack_parent(m->q, at);
    }
    pcd_stack_id top = at == PCD_STACK_EMPTY ? PCD_STACK_EMPTY : m->smap[at] - 1;
    while (n) {
        pcd_stack_id x = g->chain[--n];
        pcd_frame_id f;
        if (!frame_of(m, pcd_stack_frame(m->q, x), &f)) return false;
        top = pcd_profile_push(&g->P, top, f);
        m->smap[x] = top + 1;
    }
    *out = top;
    return true;
}

static bool thread_of(msrc *m, pcd_thread_id t, pcd_thread_id *out)
{
    uint32_t *e = slot(m->g->P.al, &m->thmap, &m->thmap_cap, t);
    if (!e) return false;
    if (!*e) {
        pcd_thread th = m->q->threads[t];
        th.tid_text = str_of(m, th.tid_text);
        th.name = str_of(m, th.name);
        th.process_name = str_of(m, th.process_name);
        th.key = th.key * (uint64_t)(m->g->n + 1) + m->idx; /* apart per input (0 for the first: as it was) */
        if (th.lane_of) {
            pcd_thread_id owner;
            if (!thread_of(m, th.lane_of - 1, &owner)) return false;
            th.lane_of = owner + 1;
        }
        *e = pcd_profile_thread(&m->g->P, &th) + 1;
        e = &m->thmap[t]; /* (the map may have moved) */
    }
    *out = *e - 1;
    return true;
}

static pcd_status nomem(msrc *m)
{
    return pcd_job_fail(m->j, PCD_E_NOMEM, "out of memory for the merged tables (raise --max-memory)");
}

static bool text_eq(const pcd_profile *a, pcd_str x, const pcd_profile *b, pcd_str y)
{
    pcd_bytes u = pcd_profile_text(a, x), v = pcd_profile_text(b, y);
    return u.len == v.len && memcmp(u.ptr, v.ptr, u.len) == 0;
}

/* "name/unit, name/unit" of a profile's types. */
static void type_list(char *buf, size_t cap, const pcd_profile *p)
{
    size_t o = 0;
    buf[0] = 0;
    for (size_t t = 0; t < p->n_types && o + 1 < cap; t++) {
        pcd_bytes n = pcd_profile_text(p, p->types[t].name), u = pcd_profile_text(p, p->types[t].unit);
        int k = snprintf(buf + o, cap - o, "%s%.*s/%.*s", t ? ", " : "", (int)(n.len > 40 ? 40 : n.len), (const char *)n.ptr,
                         (int)(u.len > 20 ? 20 : u.len), (const char *)u.ptr);
        if (k < 0) break;
        o += (size_t)k;
    }
}

/* The first input to begin gives the merged profile its types and header; a later one's types
 * are matched to them. */
static pcd_status m_begin(void *ud, pcd_profile *q)
{
    msrc *m = ud;
    merge *g = m->g;
    pcd_profile *P = &g->P;
    m->source = pcd_profile_strz(P, m->j->input_name);
    if (!g->typed) {
        g->typed = true;
        g->typed_by = m->idx;
        g->first_meta = true;
        for (size_t t = 0; t < q->n_types; t++) {
            const pcd_sample_type *ty = &q->types[t];
            int k = pcd_profile_add_type_str(P, str_of(m, ty->name), str_of(m, ty->unit), str_of(m, ty->title));
            if (k < 0) return nomem(m);
            P->types[k].secondary = ty->secondary;
            P->types[k].listed = ty->listed;
            if (ty->is_signed) pcd_profile_type_signed(P, k), P->types[k].listed = ty->listed;
            m->tmap[t] = k;
        }
        for (size_t a = 0; a < q->n_aliases; a++) {
            pcd_bytes al = pcd_profile_text(q, q->aliases[a].alias);
            char z[64];
            snprintf(z, sizeof z, "%.*s", (int)(al.len > 63 ? 63 : al.len), (const char *)al.ptr);
            pcd_profile_alias(P, z, q->aliases[a].type);
        }
        P->dialect = q->dialect;
        P->time_origin = q->time_origin;
        P->duration = g->n == 1 ? q->duration : PCD_TIME_NONE;
        P->period = q->period;
        P->period_type = q->period_type;
        P->default_type = q->default_type;
        P->sample_noun = q->sample_noun;
        m->shift = 0;
        if (P->oom) return nomem(m);
        return pcd_profile_begin(P);
    }
    g->first_meta = false;
    /* the same types (name and unit), in any order, or --force */
    bool same = q->n_types == P->n_types;
    for (size_t t = 0; t < q->n_types; t++) {
        m->tmap[t] = -1;
        for (size_t k = 0; k < P->n_types; k++)
            if (text_eq(q, q->types[t].name, P, P->types[k].name) && text_eq(q, q->types[t].unit, P, P->types[k].unit))
                m->tmap[t] = (int)k;
        same &= m->tmap[t] >= 0;
    }
    if (!same) {
        char mine[300], first[300];
        type_list(mine, sizeof mine, q);
        type_list(first, sizeof first, P);
        if (!g->jobs[0].force)
            return pcd_job_fail(m->j, PCD_E_ARG,
                                "its sample types (%s) are not those of %s (%s): --force merges them (by name, else by "
                                "position)", mine, g->jobs[g->typed_by].input_name, first);
        size_t dropped = 0;
        for (size_t t = 0; t < q->n_types; t++) {
            if (m->tmap[t] >= 0) continue;
            for (size_t k = 0; k < P->n_types; k++)
                if (text_eq(q, q->types[t].name, P, P->types[k].name)) m->tmap[t] = (int)k;
            if (m->tmap[t] < 0 && t < P->n_types) m->tmap[t] = (int)t;
            dropped += m->tmap[t] < 0;
        }
        pcd_job_note(m->j, "warning: --force: its sample types (%s) are counted as %s's (%s) by name, else by "
                           "position%s", mine, g->jobs[g->typed_by].input_name, first,
                     dropped ? "; the types beyond those are left out" : "");
    }
    m->shift = 0;
    if (q->time_origin != PCD_TIME_NONE && P->time_origin != PCD_TIME_NONE) m->shift = q->time_origin - P->time_origin;
    return PCD_OK;
}

static pcd_status m_meta(void *ud, pcd_profile *q, pcd_str key, pcd_str value)
{
    msrc *m = ud;
    (void)q;
    if (!m->g->first_meta || m->idx != m->g->typed_by) return PCD_OK;
    pcd_str k = str_of(m, key), v = str_of(m, value);
    if (m->g->P.oom) return nomem(m);
    return pcd_profile_meta(&m->g->P, k, v);
}

static pcd_status m_sample(void *ud, pcd_profile *q, const pcd_sample *s)
{
    msrc *m = ud;
    merge *g = m->g;
    pcd_sample o = *s;
    if (!thread_of(m, s->thread, &o.thread) || !stack_of(m, s->stack, &o.stack)) return nomem(m);
    memset(g->vals, 0, sizeof g->vals);
    uint32_t flags = s->flags & PCD_SAMPLE_STATE_BITS;
    unsigned first = (s->flags >> PCD_SAMPLE_FIRST_SHIFT) & 31;
    for (size_t t = 0; t < q->n_types; t++) {
        int k = m->tmap[t];
        if (k < 0) continue;
        g->vals[k] += s->values[t];
        if (s->flags & PCD_SAMPLE_HAS(t)) flags |= PCD_SAMPLE_HAS(k);
        if (first == t + 1) flags |= (uint32_t)(1 + k) << PCD_SAMPLE_FIRST_SHIFT;
    }
    o.values = g->vals;
    o.flags = flags;
    if (o.time != PCD_TIME_NONE && m->shift) {
        int64_t t = o.time;
        if ((m->shift > 0 && t > INT64_MAX - m->shift) || (m->shift < 0 && t < INT64_MIN + 1 - m->shift)) o.time = PCD_TIME_NONE;
        else o.time = t + m->shift;
    }
    /* its labels, then source=<input> */
    if (PCD_VEC_RESERVE(g->P.al, g->labels, g->labels_cap, s->n_labels + 1) != PCD_OK) return nomem(m);
    for (size_t i = 0; i < s->n_labels; i++) {
        g->labels[i] = s->labels[i];
        g->labels[i].key = str_of(m, s->labels[i].key);
        g->labels[i].str = str_of(m, s->labels[i].str);
        g->labels[i].unit = str_of(m, s->labels[i].unit);
    }
    memset(&g->labels[s->n_labels], 0, sizeof g->labels[0]);
    g->labels[s->n_labels].key = g->source_key;
    g->labels[s->n_labels].str = m->source;
    o.labels = g->labels;
    o.n_labels = s->n_labels + 1;
    if (g->P.oom) return nomem(m);
    return pcd_profile_sample(&g->P, &o);
}

static pcd_status m_slice(void *ud, pcd_profile *q, const pcd_slice *s)
{
    msrc *m = ud;
    (void)q;
    pcd_slice o = *s;
    if (!thread_of(m, s->track, &o.track)) return nomem(m);
    o.start += m->shift;
    o.end += m->shift;
    return pcd_profile_slice(&m->g->P, &o);
}

static pcd_status m_link(void *ud, pcd_profile *q, const pcd_link *l)
{
    msrc *m = ud;
    (void)q;
    pcd_link o = *l;
    o.kind = str_of(m, l->kind);
    if (!thread_of(m, l->from, &o.from) || !thread_of(m, l->to, &o.to)) return nomem(m);
    return pcd_profile_link(&m->g->P, &o);
}

/* One input into the merged profile. Damage is the input's (its job says it); a refusal
 * (mismatched types) or the output's failure stops the merge. */
static pcd_status merge_one(merge *g, size_t i)
{
    pcd_job *j = &g->jobs[i];
    msrc m;
    memset(&m, 0, sizeof m);
    m.g = g;
    m.j = j;
    m.idx = i;
    for (size_t t = 0; t < PCD_MAX_SAMPLE_TYPES; t++) m.tmap[t] = -1;
    pcd_consumer c = { &m, g->needs, m_begin, m_meta, m_sample, m_slice, NULL, m_link };
    pcd_profile q;
    pcd_profile_init(&q, j->al, &c);
    m.q = &q;
    q.input_name = j->input_name;
    q.format = j->text ? j->text->name : j->f->name;
    q.version = j->text ? "1" : j->f->version;
    q.has = pcd_job_has(j);
    pcd_status st = pcd_job_import(j, &q);
    if (st == PCD_E_INVALID && q.begun && j->msg[0]) {
        /* the input's own damage: said, and the merge goes on with what came before it */
        pcd_job_note(j, "%s", j->msg);
        j->damaged = true;
        st = PCD_OK;
    }
    if (st == PCD_OK) st = pcd_profile_end(&q);
    if (st == PCD_E_NOMEM && !j->msg[0]) pcd_job_fail(j, st, "out of memory for the profile's tables (raise --max-memory)");
    pcd_profile_free(&q);
    /* (the maps are on the merged profile's allocator, which may not be this input's) */
    PCD_VEC_FREE(g->P.al, m.fmap, m.fmap_cap);
    PCD_VEC_FREE(g->P.al, m.smap, m.smap_cap);
    PCD_VEC_FREE(g->P.al, m.thmap, m.thmap_cap);
    return st;
}

pcd_status pcd_merge(pcd_job *jobs, size_t n, const char *to, pcd_sink *out)
{
    pcd_job *j = &jobs[0];
    const pcd_exporter *x = pcd_exporter_find(to);
    if (!x) return pcd_job_fail(j, PCD_E_ARG, "there is no output '%s' of a profile (see profcodec formats)", to);
    uint32_t has = ~0u;
    for (size_t i = 0; i < n; i++) {
        uint32_t h = pcd_job_has(&jobs[i]);
        if (!pcd_exporter_fits(h, x))
            return pcd_job_fail(&jobs[i], PCD_E_ARG, "a %s file cannot be converted to '%s'",
                                jobs[i].text ? jobs[i].text->name : jobs[i].f->name, to);
        has &= h;
        jobs[i].every_part = (x->wants & PCD_WANTS_EVERY_PART) != 0;
    }
    merge *g = pcd_alloc_get(j->al, sizeof *g);
    void *state = pcd_alloc_get(j->al, x->state_size ? x->state_size : 1);
    if (!g || !state) {
        if (g) pcd_alloc_free(j->al, g, sizeof *g);
        if (state) pcd_alloc_free(j->al, state, x->state_size ? x->state_size : 1);
        return pcd_job_fail(j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
    }
    memset(g, 0, sizeof *g);
    memset(state, 0, x->state_size ? x->state_size : 1);
    g->jobs = jobs;
    g->n = n;
    pcd_consumer c;
    memset(&c, 0, sizeof c);
    pcd_status st = x->open(state, j, out, &c);
    /* the merged profile's events go to the output through the grouping and filters (the first
     * job's options), when they are asked for or the output groups by default */
    pcd_transform *tr = NULL;
    if (st == PCD_OK) st = pcd_filters_install(j, x, has, &c, &tr);
    if (st == PCD_OK) {
        const pcd_consumer *to_output = &c;
        g->needs = to_output->needs;
        pcd_profile_init(&g->P, j->al, to_output);
        pcd_shown k = { j, x, NULL, tr };
        pcd_profile *sp = tr ? pcd_transform_profile(tr) : &g->P;
        sp->before_end = pcd_shown_check;
        sp->before_end_ud = &k;
        for (pcd_profile *q = &g->P;; q = sp) {
            q->input_name = j->input_name;
            q->format = "merge";
            q->version = "1";
            q->has = has;
            if (q == sp) break;
        }
        j->transform = tr;
        g->source_key = pcd_profile_strz(&g->P, "source");
        for (size_t i = 0; i < n && st == PCD_OK; i++) {
            st = merge_one(g, i);
            if (jobs[i].damaged) j->damaged = true;
            if (st != PCD_OK && jobs[i].msg[0]) {
                /* what stopped the merge, with the input it is about */
                char why[sizeof j->msg];
                snprintf(why, sizeof why, "%s", jobs[i].msg);
                pcd_job_fail(j, st, "%s: %s", jobs[i].input_name, why);
            }
        }
        if (st == PCD_OK) st = pcd_profile_end(&g->P);
        if (st == PCD_E_NOMEM && !j->msg[0]) pcd_job_fail(j, st, "out of memory for the profile's tables (raise --max-memory)");
        else if (st == PCD_E_IO && !j->msg[0]) pcd_job_fail(j, st, "cannot write the output");
        pcd_profile_free(&g->P);
    }
    if (x->close) x->close(state);
    j->transform = NULL;
    pcd_transform_close(tr);
    PCD_VEC_FREE(j->al, g->labels, g->labels_cap);
    PCD_VEC_FREE(j->al, g->chain, g->chain_cap);
    pcd_alloc_free(j->al, state, x->state_size ? x->state_size : 1);
    pcd_alloc_free(j->al, g, sizeof *g);
    return st;
}
