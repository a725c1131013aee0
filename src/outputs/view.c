/* outputs/view.c: the per-side aggregates, display frames and nodes of the pictures; which
 * base metric a differential output compares; HTML/XML text. */
#include "outputs/view.h"

#include <ctype.h>

#include "common/vec.h"
#include "outputs/render.h"

void pcd_view_init(pcd_view *w, pcd_alloc *al)
{
    memset(w, 0, sizeof *w);
    w->al = al;
    pcd_profile_init(&w->t, al, NULL);
    pcd_memsink_init(&w->name, al);
}

void pcd_view_free(pcd_view *w)
{
    for (int k = 0; k < 2; k++) {
        pcd_view_side *d = &w->side[k];
        PCD_VEC_FREE(w->al, d->fmap, d->fmap_cap);
        PCD_VEC_FREE(w->al, d->node, d->node_cap);
        if (d->agg_open) pcd_agg_free(&d->agg);
    }
    pcd_memsink_free(&w->name);
    pcd_profile_free(&w->t);
}

pcd_status pcd_view_begin(pcd_view *w, int k, pcd_profile *src)
{
    pcd_view_side *d = &w->side[k];
    d->src = src;
    if (!d->agg_open) pcd_agg_init_types(&d->agg, w->al, src);
    d->agg_open = true;
    return PCD_OK;
}

pcd_status pcd_view_frame_name(pcd_sink *s, const pcd_profile *p, pcd_frame_id id)
{
    const pcd_frame *f = pcd_profile_frame_at(p, id);
    pcd_bytes fn = pcd_profile_text(p, f->function);
    uint64_t at = pcd_sink_tell(s);
    if (fn.len && (f->kind == PCD_FRAME_CODE || f->kind == PCD_FRAME_NATIVE || f->kind == PCD_FRAME_KERNEL))
        PCD_TRY(pcd_text_bytes(s, fn));
    else
        PCD_TRY(pcd_render_frame(s, p, id, PCD_DIALECT_DEFAULT, PCD_COLLAPSED_RAW));
    if (pcd_sink_tell(s) == at) PCD_TRY(pcd_text_z(s, "[unknown]"));
    return PCD_OK;
}

/* Empties a memory sink for its next text. */
static void memsink_reset(pcd_memsink *m)
{
    m->len = 0;
    m->sink.len = 0;
    m->sink.pos = 0;
}

static pcd_str copy_str(pcd_view *w, const pcd_profile *p, pcd_str s)
{
    pcd_bytes b = pcd_profile_text(p, s);
    return pcd_profile_str(&w->t, b.ptr, b.len);
}

/* The display frames of every source frame of side k. */
static pcd_status display_frames(pcd_view *w, int k)
{
    pcd_view_side *d = &w->side[k];
    const pcd_profile *p = d->src;
    PCD_TRY(PCD_VEC_RESERVE(w->al, d->fmap, d->fmap_cap, p->n_frames + 1));
    for (size_t f = 0; f < p->n_frames; f++) {
        const pcd_frame *sf = pcd_profile_frame_at(p, (pcd_frame_id)f);
        pcd_memsink *m = &w->name;
        memsink_reset(m);
        PCD_TRY(pcd_view_frame_name(&m->sink, p, (pcd_frame_id)f));
        PCD_TRY(pcd_memsink_flush(m));
        pcd_frame v = pcd_frame_blank((pcd_frame_kind)sf->kind);
        v.function = pcd_profile_str(&w->t, m->data, m->len);
        v.file = copy_str(w, p, sf->file);
        v.module = copy_str(w, p, sf->module);
        v.line = sf->line;
        d->fmap[f] = pcd_profile_frame(&w->t, &v);
        if (w->t.oom) return w->t.oom;
    }
    return PCD_OK;
}

/* Side k's stacks projected into the view's trie: node[s], parents first. */
static pcd_status project(pcd_view *w, int k)
{
    pcd_view_side *d = &w->side[k];
    const pcd_profile *p = d->src;
    PCD_TRY(PCD_VEC_RESERVE(w->al, d->node, d->node_cap, p->n_stacks + 1));
    d->node[PCD_STACK_EMPTY] = PCD_STACK_EMPTY;
    for (size_t s = 1; s < p->n_stacks; s++) {
        d->node[s] = pcd_profile_push(&w->t, d->node[p->st[s].parent], d->fmap[p->st[s].frame]);
        if (w->t.oom) return w->t.oom;
    }
    return PCD_OK;
}

pcd_status pcd_view_finish(pcd_view *w, int sides)
{
    w->sides = sides;
    for (int k = 0; k < sides; k++)
        if (w->side[k].src) PCD_TRY(display_frames(w, k));
    /* one side, each source frame a display frame of its own: the source's trie as it is */
    w->identity = sides == 1 && w->side[0].src && w->t.n_frames == w->side[0].src->n_frames;
    if (w->identity) return PCD_OK;
    for (int k = 0; k < sides; k++)
        if (w->side[k].src) PCD_TRY(project(w, k));
    return PCD_OK;
}

/* ---- comparing metrics ---------------------------------------------------------------------- */

/* What a unit measures, and its size in the smallest unit of that kind. */
typedef enum { DIM_TIME, DIM_BYTES, DIM_COUNT, DIM_OTHER } dim;

static dim unit_dim(pcd_bytes u, double *size)
{
    static const struct { const char *name; dim d; double size; } units[] = {
        { "nanoseconds", DIM_TIME, 1 }, { "microseconds", DIM_TIME, 1e3 }, { "milliseconds", DIM_TIME, 1e6 },
        { "seconds", DIM_TIME, 1e9 }, { "bytes", DIM_BYTES, 1 }, { "count", DIM_COUNT, 1 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (pcd_bytes_is(u, units[i].name)) {
            *size = units[i].size;
            return units[i].d;
        }
    *size = 1;
    return DIM_OTHER;
}

static bool has_word(pcd_bytes b, const char *w)
{
    size_t n = strlen(w);
    for (size_t i = 0; i + n <= b.len; i++) {
        size_t k = 0;
        while (k < n && tolower(b.ptr[i + k]) == w[k]) k++;
        if (k == n) return true;
    }
    return false;
}

/* 'c' CPU time, 'w' wall time, 0 neither */
static char clock_of(const pcd_profile *p, int t)
{
    pcd_bytes n = pcd_profile_text(p, p->types[t].name), ti = pcd_profile_text(p, p->types[t].title);
    if (has_word(n, "cpu") || has_word(ti, "cpu")) return 'c';
    if (has_word(n, "wall") || has_word(ti, "wall")) return 'w';
    return 0;
}

static bool same_text(const pcd_profile *p, pcd_str a, const pcd_profile *b, pcd_str c)
{
    pcd_bytes x = pcd_profile_text(p, a), y = pcd_profile_text(b, c);
    return x.len && x.len == y.len && memcmp(x.ptr, y.ptr, x.len) == 0;
}

/* NULL when type t of p and type u of b compare; else what differs */
static const char *differs(const pcd_profile *p, int t, const pcd_profile *b, int u)
{
    double s1, s2;
    dim d1 = unit_dim(pcd_profile_text(p, p->types[t].unit), &s1);
    dim d2 = unit_dim(pcd_profile_text(b, b->types[u].unit), &s2);
    if (d1 != d2 || (d1 == DIM_OTHER && !same_text(p, p->types[t].unit, b, b->types[u].unit))) return "units";
    char c1 = clock_of(p, t), c2 = clock_of(b, u);
    if (c1 != c2) return "clocks";
    if (!c1 && !same_text(p, p->types[t].name, b, b->types[u].name) &&
        !same_text(p, p->types[t].title, b, b->types[u].title))
        return "metrics";
    return NULL;
}

static void describe(char *buf, size_t cap, const pcd_profile *p, int t)
{
    pcd_bytes n = pcd_profile_text(p, p->types[t].name), ti = pcd_profile_text(p, p->types[t].title);
    pcd_bytes u = pcd_profile_text(p, p->types[t].unit);
    snprintf(buf, cap, "'%.*s' (%.*s%sin %.*s)", (int)n.len, (const char *)n.ptr, (int)ti.len, (const char *)ti.ptr,
             ti.len ? ", " : "", (int)u.len, (const char *)u.ptr);
}

pcd_status pcd_view_base_type(pcd_job *j, const pcd_profile *p, int type, const pcd_profile *b, int *btype,
                              double *scale)
{
    if (!b->n_types) return pcd_job_fail(j, PCD_E_ARG, "--base %s has no sample values", b->input_name);
    int u = -1;
    if (j->metric) u = pcd_profile_find_metric(b, j->metric);
    for (size_t i = 0; u < 0 && i < b->n_types; i++)
        if (same_text(p, p->types[type].name, b, b->types[i].name)) u = (int)i;
    for (size_t i = 0; u < 0 && i < b->n_types; i++)
        if (!b->types[i].secondary && !differs(p, type, b, (int)i)) u = (int)i;
    if (u < 0) u = b->default_type >= 0 && (size_t)b->default_type < b->n_types ? b->default_type : 0;
    const char *why = differs(p, type, b, u);
    if (why && !j->force) {
        char x[160], y[160];
        describe(x, sizeof x, p, type);
        describe(y, sizeof y, b, u);
        return pcd_job_fail(j, PCD_E_ARG,
                            "--base: cannot compare %s with the base's %s: different %s (pick another with "
                            "--metric, or --force to compare them anyway)",
                            x, y, why);
    }
    double s1, s2;
    dim d1 = unit_dim(pcd_profile_text(p, p->types[type].unit), &s1);
    dim d2 = unit_dim(pcd_profile_text(b, b->types[u].unit), &s2);
    *scale = d1 == d2 ? s2 / s1 : 1;
    *btype = u;
    return PCD_OK;
}

/* ---- HTML and XML text ---------------------------------------------------------------------- */

pcd_status pcd_text_xml(pcd_sink *s, const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t ok = pcd_utf8_valid_prefix(p + i, n - i), run = i, end = i + ok;
        for (; i < end; i++) {
            uint8_t ch = p[i];
            const char *e = NULL;
            switch (ch) {
            case '&': e = "&amp;"; break;
            case '<': e = "&lt;"; break;
            case '>': e = "&gt;"; break;
            case '"': e = "&quot;"; break;
            case '\'': e = "&#39;"; break;
            default:
                if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r') e = "\xEF\xBF\xBD";
                break;
            }
            if (!e) continue;
            PCD_TRY(pcd_sink_put(s, p + run, i - run));
            PCD_TRY(pcd_text_z(s, e));
            run = i + 1;
        }
        PCD_TRY(pcd_sink_put(s, p + run, i - run));
        if (i < n) { /* an invalid byte */
            PCD_TRY(pcd_sink_put(s, "\xEF\xBF\xBD", 3));
            i++;
        }
    }
    return PCD_OK;
}

pcd_status pcd_text_json_html(pcd_sink *s, pcd_memsink *scratch, const uint8_t *p, size_t n)
{
    if (!memchr(p, '<', n)) return pcd_text_json(s, p, n);
    memsink_reset(scratch);
    PCD_TRY(pcd_text_json(&scratch->sink, p, n));
    PCD_TRY(pcd_memsink_flush(scratch));
    size_t run = 0;
    for (size_t i = 0; i < scratch->len; i++)
        if (scratch->data[i] == '<') {
            PCD_TRY(pcd_sink_put(s, scratch->data + run, i - run));
            PCD_TRY(pcd_text_z(s, "\\u003c"));
            run = i + 1;
        }
    return pcd_sink_put(s, scratch->data + run, scratch->len - run);
}
