/* outputs/svg.c: a static flame graph in SVG, with flamegraph.pl's conventions: the picture
 * flamegraph.pl draws from `convert --to collapsed --dialect default` of the same input and
 * metric (every element of a line a frame, thread parts included; siblings merged by their
 * text and sorted by it, byte order; width proportional to the value; frames narrower than
 * 0.1 px left out; the root "all" at the bottom), 1200 px wide, 16 px a frame, a title, and
 * a <title> tooltip on every frame ("text (value unit, percent)"), and under the title what the
 * widths measure (the metric, its unit, the total). Colours are flamegraph.pl's "hot" palette
 * for code, hashed from the text (its --hash), other hues for native, kernel, GC, idle, label,
 * heap and thread frames. The same input gives the same bytes.
 *
 * Opened in a browser, one inline script (flamegraph.pl's, written anew: no event-handler
 * attributes, no eval, so a Content-Security-Policy that allows the script and the style by
 * their hashes runs it) zooms into the frame clicked ("Reset Zoom", Esc or a click on "all"
 * zooms out), searches frames by regular expression ("Search", Ctrl-F or /, or the page's
 * ?s=REGEX; the share of the total matched, each stack counted once) and shows the frame under
 * the pointer at the bottom. Where scripts do not run (an <img>), it is the same picture
 * without them: nothing depends on the script to be seen.
 *
 * The layout is a trie of texts. When every source frame has a text of its own (and the
 * threads' parts end where the frames begin), the source's own stack trie is that trie below
 * each thread: its frames are drawn from it directly, a thread group at a time (totals by
 * walking up from the group's stacks), and nothing the size of the trie is copied. Otherwise
 * the lines are put into a trie of their own texts, as flamegraph.pl does. The frames are
 * written as they are laid out, in two passes (the height first). */
#include <stdlib.h>

#include "common/hash.h"
#include "common/vec.h"
#include "model/aggregate.h"
#include "outputs/outputs.h"
#include "outputs/render.h"
#include "outputs/view.h"

#define IMAGE_WIDTH 1200.0
#define FRAME_HEIGHT 16.0
#define FONT_SIZE 12.0
#define FONT_WIDTH 0.59
#define MIN_WIDTH 0.1
#define XPAD 10.0
#define YPAD1 (FONT_SIZE * 3 + 16) /* the title, and under it what the widths measure */
#define YPAD2 (FONT_SIZE * 2 + 10)
#define KIND_THREAD PCD_FRAME_KIND_N /* a thread part of a line */

/* ---- colours and numbers ----------------------------------------------------------------------- */

/* A fill colour for a frame: flamegraph.pl's palettes, varied by a hash of the text. */
static void colour(uint16_t kind, pcd_bytes t, int rgb[3])
{
    uint64_t h = pcd_hash_bytes(t.ptr, t.len);
    double v1 = (double)(h & 0xFFFF) / 65535.0, v2 = (double)((h >> 16) & 0xFFFF) / 65535.0;
    double v3 = (double)((h >> 32) & 0xFFFF) / 65535.0;
    switch (kind) {
    case PCD_FRAME_NATIVE: /* flamegraph.pl's yellow (C++) */
        rgb[0] = 175 + (int)(55 * v2); rgb[1] = 175 + (int)(55 * v2); rgb[2] = 50 + (int)(20 * v3);
        break;
    case PCD_FRAME_KERNEL: /* orange */
        rgb[0] = 190 + (int)(65 * v1); rgb[1] = 90 + (int)(65 * v1); rgb[2] = 0;
        break;
    case PCD_FRAME_GC: rgb[0] = 80 + (int)(40 * v1); rgb[1] = 140 + (int)(40 * v1); rgb[2] = 220; break;
    case PCD_FRAME_IDLE: rgb[0] = rgb[1] = rgb[2] = 200 + (int)(20 * v1); break;
    case PCD_FRAME_INVALID: rgb[0] = 220; rgb[1] = 130 + (int)(30 * v1); rgb[2] = 130 + (int)(30 * v1); break;
    case PCD_FRAME_LABEL: rgb[0] = 190 + (int)(40 * v1); rgb[1] = 120 + (int)(40 * v2); rgb[2] = 220; break;
    case PCD_FRAME_TYPE: /* aqua */
        rgb[0] = 50 + (int)(60 * v1); rgb[1] = 165 + (int)(55 * v1); rgb[2] = 165 + (int)(55 * v1);
        break;
    case PCD_FRAME_ROOT: rgb[0] = 60 + (int)(40 * v1); rgb[1] = 180 + (int)(40 * v1); rgb[2] = 80; break;
    case KIND_THREAD: rgb[0] = rgb[1] = 170 + (int)(30 * v1); rgb[2] = 190 + (int)(30 * v1); break;
    default: /* hot */
        rgb[0] = 205 + (int)(50 * v3); rgb[1] = (int)(230 * v1); rgb[2] = (int)(55 * v2);
        break;
    }
}

/* 12345678 -> "12,345,678" */
static pcd_status put_grouped(pcd_sink *o, uint64_t v)
{
    char d[24];
    size_t n = pcd_text_u64_digits(d, v);
    for (size_t i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) PCD_TRY(pcd_sink_put(o, ",", 1));
        PCD_TRY(pcd_sink_put(o, d + i, 1));
    }
    return PCD_OK;
}

typedef struct svg {
    pcd_job *j;
    pcd_sink *out;
    pcd_agg agg;
    bool agg_open;
    const pcd_profile *p;
    int type;
    /* the texts (labels whose function is the text) and the trie of the threads' parts (or of
     * whole lines, when not direct) */
    pcd_profile l;
    bool l_open;
    uint16_t *kind;                /* layout frame -> the kind it is drawn as */
    size_t kind_cap;
    uint32_t *rank;                /* layout frame -> its place in text order */
    size_t rank_cap;
    uint64_t *ltot;                /* layout node -> value, then total */
    size_t ltot_cap;
    uint32_t *lstart, *lkids;      /* layout node -> children, by text */
    size_t lstart_cap, lkids_cap;
    uint32_t *tf;                  /* source frame -> layout frame + 1 */
    size_t tf_cap;
    bool direct;                   /* frames drawn from the source's trie */
    /* direct: the source trie's children by text, the totals of the group being drawn, and
     * the entries of each group (a group: a layout node that ends the threads' parts) */
    uint32_t *sstart, *skids;
    size_t sstart_cap, skids_cap;
    uint64_t *tot;
    size_t tot_cap;
    uint32_t *group_of;            /* entry -> its group's layout node */
    size_t group_of_cap;
    uint32_t *gstart, *gents;      /* layout node -> its entries */
    size_t gstart_cap, gents_cap;
    uint32_t cur_group;            /* + 1: the group whose totals tot holds */
    pcd_memsink text;
} svg;

static pcd_status s_begin(void *ud, pcd_profile *p)
{
    svg *c = ud;
    PCD_TRY(pcd_out_metric(c->j, p, NULL));
    pcd_agg_init_types(&c->agg, c->j->al, p);
    c->agg_open = true;
    return PCD_OK;
}

static pcd_status s_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    (void)p;
    svg *c = ud;
    return pcd_agg_sample(&c->agg, s);
}

static void text_reset(svg *c)
{
    c->text.len = 0;
    c->text.sink.len = 0;
    c->text.sink.pos = 0;
}

/* The layout frame of a text, drawn as `kind` (the first kind seen for it). */
static pcd_status layout_frame(svg *c, const uint8_t *t, size_t n, uint16_t kind, pcd_frame_id *out)
{
    pcd_frame_id id = pcd_profile_frame_named(&c->l, PCD_FRAME_LABEL, pcd_profile_str(&c->l, t, n));
    if (c->l.oom) return c->l.oom;
    if (id >= c->kind_cap) {
        size_t old = c->kind_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->kind, c->kind_cap, (size_t)id + 1));
        for (size_t i = old; i < c->kind_cap; i++) c->kind[i] = UINT16_MAX;
    }
    if (c->kind[id] == UINT16_MAX) c->kind[id] = kind;
    *out = id;
    return PCD_OK;
}

/* The layout frame of source frame f (its default-dialect text). */
static pcd_status text_frame(svg *c, pcd_frame_id f, pcd_frame_id *out)
{
    if (f >= c->tf_cap) {
        size_t old = c->tf_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->tf, c->tf_cap, (size_t)f + 1));
        memset(c->tf + old, 0, (c->tf_cap - old) * sizeof *c->tf);
    }
    if (!c->tf[f]) {
        text_reset(c);
        PCD_TRY(pcd_render_frame(&c->text.sink, c->p, f, PCD_DIALECT_DEFAULT, PCD_COLLAPSED_SAFE));
        PCD_TRY(pcd_memsink_flush(&c->text));
        pcd_frame_id t;
        PCD_TRY(layout_frame(c, c->text.data, c->text.len, pcd_profile_frame_at(c->p, f)->kind, &t));
        c->tf[f] = t + 1;
    }
    *out = c->tf[f] - 1;
    return PCD_OK;
}

static pcd_status push(svg *c, pcd_stack_id *node, pcd_frame_id f)
{
    *node = pcd_profile_push(&c->l, *node, f);
    if (c->l.oom) return c->l.oom;
    if (c->l.n_stacks > c->ltot_cap) {
        size_t old = c->ltot_cap;
        PCD_TRY(PCD_VEC_RESERVE(c->j->al, c->ltot, c->ltot_cap, c->l.n_stacks));
        memset(c->ltot + old, 0, (c->ltot_cap - old) * sizeof *c->ltot);
    }
    return PCD_OK;
}

/* The layout node of a thread's parts (its collapsed line's first elements). */
static pcd_status thread_node(svg *c, pcd_thread_id th, pcd_stack_id *node)
{
    *node = PCD_STACK_EMPTY;
    if (pcd_thread_is_blank(c->p, th)) return PCD_OK;
    text_reset(c);
    PCD_TRY(pcd_render_thread_prefix(&c->text.sink, c->p, th, PCD_DIALECT_DEFAULT, PCD_COLLAPSED_SAFE));
    PCD_TRY(pcd_memsink_flush(&c->text));
    size_t a = 0;
    for (size_t i = 0; i <= c->text.len; i++) {
        if (i < c->text.len && c->text.data[i] != ';') continue;
        pcd_frame_id f;
        PCD_TRY(layout_frame(c, c->text.data + a, i - a, KIND_THREAD, &f));
        PCD_TRY(push(c, node, f));
        a = i + 1;
    }
    return PCD_OK;
}

static int by_text(const void *x, const void *y, void *ud)
{
    const pcd_profile *l = ud;
    pcd_bytes a = pcd_profile_text(l, pcd_profile_frame_at(l, *(const uint32_t *)x)->function);
    pcd_bytes b = pcd_profile_text(l, pcd_profile_frame_at(l, *(const uint32_t *)y)->function);
    int r = memcmp(a.ptr, b.ptr, a.len < b.len ? a.len : b.len);
    if (r) return r;
    return a.len < b.len ? -1 : a.len > b.len;
}

typedef struct kid_order {
    const struct pcd_stack_node *st;
    const uint32_t *rank;          /* per layout frame */
    const uint32_t *frame_map;     /* source frame -> layout frame + 1, or NULL */
} kid_order;

static int by_kid_rank(const void *x, const void *y, void *ud)
{
    const kid_order *o = ud;
    uint32_t fa = o->st[*(const uint32_t *)x].frame, fb = o->st[*(const uint32_t *)y].frame;
    uint32_t a = o->rank[o->frame_map ? o->frame_map[fa] - 1 : fa], b = o->rank[o->frame_map ? o->frame_map[fb] - 1 : fb];
    return a < b ? -1 : a > b;
}

/* An array of exactly n elements (no growth reserve: these are sized once). */
#define EXACT(al, arr, cap, n) pcd_exact((al), (void **)&(arr), &(cap), sizeof *(arr), (n))
static pcd_status pcd_exact(pcd_alloc *al, void **p, size_t *cap, size_t elem, size_t n)
{
    if (*cap >= n) return PCD_OK;
    if (n > SIZE_MAX / elem) return PCD_E_NOMEM;
    void *q = pcd_alloc_resize(al, *p, *cap * elem, n * elem);
    if (!q) return PCD_E_NOMEM;
    *p = q;
    *cap = n;
    return PCD_OK;
}

/* Children lists (CSR) of a trie of n nodes, each list in text order. */
static pcd_status children(pcd_alloc *al, size_t n, const struct pcd_stack_node *st, const uint32_t *rank,
                           const uint32_t *frame_map, uint32_t **start, size_t *start_cap, uint32_t **kids,
                           size_t *kids_cap)
{
    PCD_TRY(EXACT(al, *start, *start_cap, n + 1));
    PCD_TRY(EXACT(al, *kids, *kids_cap, n ? n : 1));
    uint32_t *s = *start, *k = *kids;
    memset(s, 0, (n + 1) * sizeof *s);
    for (size_t i = 1; i < n; i++) s[st[i].parent + 1]++;
    for (size_t i = 0; i < n; i++) s[i + 1] += s[i];
    /* place each child at its parent's next free slot: s[p] counts up, then is put back */
    for (size_t i = 1; i < n; i++) k[s[st[i].parent]++] = (uint32_t)i;
    for (size_t i = n; i > 0; i--) s[i] = s[i - 1];
    s[0] = 0;
    kid_order o = { st, rank, frame_map };
    for (size_t i = 0; i < n; i++)
        if (s[i + 1] - s[i] > 1) qsort_r(k + s[i], s[i + 1] - s[i], sizeof *k, by_kid_rank, &o);
    return PCD_OK;
}

/* ---- laying out ------------------------------------------------------------------------------- */

typedef struct item {
    uint32_t id;
    bool src;                      /* a source stack (direct), else a layout node */
    uint32_t depth;
    double x;                      /* value before it (a double: saturated sums do not wrap) */
} item;

/* Adds (or, with sign -1, removes) the values of group g's entries to tot, up their stacks. */
static void group_totals(svg *c, uint32_t g, int sign)
{
    const pcd_profile *p = c->p;
    for (uint32_t e = c->gstart[g]; e < c->gstart[g + 1]; e++) {
        uint32_t i = c->gents[e];
        uint64_t v = pcd_agg_value(&c->agg, i, c->type);
        for (pcd_stack_id a = c->agg.e[i].stack; a != PCD_STACK_EMPTY; a = p->st[a].parent)
            c->tot[a] = sign > 0 ? pcd_sat_add(c->tot[a], v) : 0;
    }
}

static uint64_t value_of(const svg *c, const item *it) { return it->src ? c->tot[it->id] : c->ltot[it->id]; }

static pcd_status put_frame(svg *c, const item *it, uint64_t total, double wpv, double height)
{
    pcd_sink *o = c->out;
    const pcd_profile *l = &c->l;
    uint64_t v = value_of(c, it);
    pcd_bytes t;
    uint16_t kind = PCD_FRAME_LABEL;
    if (!it->src && it->id == PCD_STACK_EMPTY) {
        t = (pcd_bytes){ (const uint8_t *)"all", 3 };
    } else {
        pcd_frame_id f = it->src ? c->tf[c->p->st[it->id].frame] - 1 : pcd_stack_frame(l, it->id);
        t = pcd_profile_text(l, pcd_profile_frame_at(l, f)->function);
        kind = c->kind[f];
    }
    double x1 = XPAD + it->x * wpv, x2 = x1 + (double)v * wpv;
    double y1 = height - YPAD2 - (double)(it->depth + 1) * FRAME_HEIGHT + 1, y2 = height - YPAD2 - (double)it->depth * FRAME_HEIGHT;
    PCD_TRY(pcd_text_z(o, "<g><title>"));
    PCD_TRY(pcd_text_xml(o, t.ptr, t.len));
    PCD_TRY(pcd_text_z(o, " ("));
    PCD_TRY(put_grouped(o, v));
    pcd_bytes unit = pcd_profile_text(c->p, c->p->types[c->type].unit);
    PCD_TRY(pcd_sink_put(o, " ", 1));
    PCD_TRY(pcd_text_xml(o, unit.ptr, unit.len));
    PCD_TRY(pcd_text_printf(o, ", %.2f%%)</title>", total ? 100.0 * (double)v / (double)total : 0.0));
    int rgb[3];
    if (!it->src && it->id == PCD_STACK_EMPTY) rgb[0] = 230, rgb[1] = 90, rgb[2] = 40;
    else colour(kind, t, rgb);
    /* (x and width to 0.01 px: the script finds a frame's descendants by where they are) */
    PCD_TRY(pcd_text_printf(o, "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" rx=\"2\" ry=\"2\"/>",
                            x1, y1, x2 - x1, y2 - y1, rgb[0], rgb[1], rgb[2]));
    /* the text when three characters fit, cut with ".." as flamegraph.pl cuts it */
    size_t chars = (size_t)((x2 - x1) / (FONT_SIZE * FONT_WIDTH));
    PCD_TRY(pcd_text_printf(o, "<text x=\"%.2f\" y=\"%.1f\">", x1 + 3, 3 + (y1 + y2) / 2));
    if (chars >= 3) {
        /* count characters, not bytes: cut at a UTF-8 boundary */
        size_t cut = t.len, cp = 0;
        for (size_t i = 0; i < t.len; i++)
            if ((t.ptr[i] & 0xC0) != 0x80) {
                if (cp == chars - 2 && cut == t.len) cut = i;
                cp++;
            }
        if (cp <= chars) {
            PCD_TRY(pcd_text_xml(o, t.ptr, t.len));
        } else {
            PCD_TRY(pcd_text_xml(o, t.ptr, cut));
            PCD_TRY(pcd_text_z(o, ".."));
        }
    }
    return pcd_text_z(o, "</text></g>\n");
}

/* Depth first in text order, every frame at least MIN_WIDTH wide: with write false, the
 * deepest level into *max_depth; with write true, each frame written. */
static pcd_status walk(svg *c, bool write, uint32_t *max_depth, uint64_t total, double wpv, double height)
{
    pcd_alloc *al = c->j->al;
    item *todo = NULL;
    size_t todo_cap = 0, n = 0;
    pcd_status st = PCD_VEC_RESERVE(al, todo, todo_cap, 1);
    if (st != PCD_OK) return st;
    todo[n++] = (item){ PCD_STACK_EMPTY, false, 0, 0 };
    *max_depth = 0;
    while (n && st == PCD_OK) {
        item it = todo[--n];
        if (!it.src && c->cur_group) { /* a group's frames are done */
            group_totals(c, c->cur_group - 1, -1);
            c->cur_group = 0;
        }
        uint64_t v = value_of(c, &it);
        if ((it.src || it.id != PCD_STACK_EMPTY) && (double)v * wpv < MIN_WIDTH) continue;
        if (it.depth > *max_depth) *max_depth = it.depth;
        if (write) st = put_frame(c, &it, total, wpv, height);
        /* the children, pushed last first so that they come out in order */
        const uint32_t *ks = NULL;
        size_t nk = 0;
        bool src = it.src;
        if (it.src) {
            ks = c->skids + c->sstart[it.id];
            nk = c->sstart[it.id + 1] - c->sstart[it.id];
        } else if (c->direct && c->gstart[it.id + 1] > c->gstart[it.id]) {
            group_totals(c, it.id, 1);
            c->cur_group = it.id + 1;
            ks = c->skids + c->sstart[PCD_STACK_EMPTY];
            nk = c->sstart[1] - c->sstart[0];
            src = true;
        } else {
            ks = c->lkids + c->lstart[it.id];
            nk = c->lstart[it.id + 1] - c->lstart[it.id];
        }
        if (st == PCD_OK) st = PCD_VEC_RESERVE(al, todo, todo_cap, n + nk);
        double x = it.x;
        for (size_t k = 0; k < nk; k++) x += (double)(src ? c->tot[ks[k]] : c->ltot[ks[k]]);
        for (size_t k = nk; k-- > 0 && st == PCD_OK;) {
            uint64_t kv = src ? c->tot[ks[k]] : c->ltot[ks[k]];
            x -= (double)kv;
            if (kv) todo[n++] = (item){ ks[k], src, it.depth + 1, x };
        }
    }
    if (c->cur_group) {
        group_totals(c, c->cur_group - 1, -1);
        c->cur_group = 0;
    }
    PCD_VEC_FREE(al, todo, todo_cap);
    return st;
}

/* The layout: texts, thread parts and groups (direct), or the trie of every line's texts. */
static pcd_status lay_out(svg *c)
{
    pcd_alloc *al = c->j->al;
    const pcd_profile *p = c->p;
    PCD_TRY(PCD_VEC_RESERVE(al, c->ltot, c->ltot_cap, 1));
    memset(c->ltot, 0, c->ltot_cap * sizeof *c->ltot);
    /* texts of every frame: one each? */
    for (size_t f = 0; f < p->n_frames; f++) {
        pcd_frame_id t;
        PCD_TRY(text_frame(c, (pcd_frame_id)f, &t));
    }
    c->direct = c->l.n_frames == p->n_frames;
    /* every entry's thread parts (a group), and whether groups end where the parts end */
    PCD_TRY(PCD_VEC_RESERVE(al, c->group_of, c->group_of_cap, c->agg.n + 1));
    for (size_t i = 0; i < c->agg.n; i++) {
        pcd_stack_id g;
        PCD_TRY(thread_node(c, c->agg.e[i].thread, &g));
        c->group_of[i] = g;
    }
    size_t nl = c->l.n_stacks;
    PCD_TRY(PCD_VEC_RESERVE(al, c->gstart, c->gstart_cap, nl + 1));
    memset(c->gstart, 0, (nl + 1) * sizeof *c->gstart);
    for (size_t i = 0; i < c->agg.n; i++)
        if (pcd_agg_value(&c->agg, i, c->type)) c->gstart[c->group_of[i] + 1]++;
    for (size_t g = 1; g < nl && c->direct; g++) /* a group with thread parts below it */
        if (c->gstart[c->l.st[g].parent + 1]) c->direct = false;
    if (c->direct && c->gstart[1] && nl > 1) c->direct = false; /* a blank thread beside others */
    for (size_t g = 0; g < nl; g++) c->gstart[g + 1] += c->gstart[g];
    PCD_TRY(PCD_VEC_RESERVE(al, c->gents, c->gents_cap, c->agg.n + 1));
    {
        uint32_t *fill = NULL;
        size_t fill_cap = 0;
        PCD_TRY(PCD_VEC_RESERVE(al, fill, fill_cap, nl + 1));
        memcpy(fill, c->gstart, (nl + 1) * sizeof *fill);
        for (size_t i = 0; i < c->agg.n; i++)
            if (pcd_agg_value(&c->agg, i, c->type)) c->gents[fill[c->group_of[i]]++] = (uint32_t)i;
        PCD_VEC_FREE(al, fill, fill_cap);
    }
    /* values: on the layout nodes (every line's, or the groups'), and totals up the layout */
    for (size_t i = 0; i < c->agg.n; i++) {
        uint64_t v = pcd_agg_value(&c->agg, i, c->type);
        if (!v) continue;
        pcd_stack_id node = c->group_of[i];
        if (!c->direct) {
            size_t depth = pcd_stack_depth(p, c->agg.e[i].stack);
            pcd_frame_id *fr = NULL;
            size_t fr_cap = 0;
            pcd_status st = PCD_VEC_RESERVE(al, fr, fr_cap, depth + 1);
            if (st == PCD_OK) {
                pcd_stack_frames(p, c->agg.e[i].stack, fr);
                for (size_t k = 0; k < depth && st == PCD_OK; k++) st = push(c, &node, c->tf[fr[k]] - 1);
            }
            PCD_VEC_FREE(al, fr, fr_cap);
            PCD_TRY(st);
        }
        c->ltot[node] = pcd_sat_add(c->ltot[node], v);
    }
    nl = c->l.n_stacks;
    PCD_TRY(PCD_VEC_RESERVE(al, c->ltot, c->ltot_cap, nl));
    if (c->direct) { /* (a group's node holds its whole value: its stacks hang below it) */
        PCD_TRY(EXACT(al, c->tot, c->tot_cap, p->n_stacks));
        memset(c->tot, 0, p->n_stacks * sizeof *c->tot);
    }
    for (size_t i = nl; i-- > 1;)
        c->ltot[c->l.st[i].parent] = pcd_sat_add(c->ltot[c->l.st[i].parent], c->ltot[i]);
    /* text order: a rank per layout frame, then the children lists */
    size_t nf = c->l.n_frames;
    uint32_t *ord = NULL;
    size_t ord_cap = 0;
    PCD_TRY(PCD_VEC_RESERVE(al, ord, ord_cap, nf + 1));
    for (size_t f = 0; f < nf; f++) ord[f] = (uint32_t)f;
    qsort_r(ord, nf, sizeof *ord, by_text, &c->l);
    pcd_status st = PCD_VEC_RESERVE(al, c->rank, c->rank_cap, nf + 1);
    if (st == PCD_OK)
        for (size_t r = 0; r < nf; r++) c->rank[ord[r]] = (uint32_t)r;
    PCD_VEC_FREE(al, ord, ord_cap);
    PCD_TRY(st);
    PCD_TRY(children(al, nl, c->l.st, c->rank, NULL, &c->lstart, &c->lstart_cap, &c->lkids, &c->lkids_cap));
    if (c->direct)
        PCD_TRY(children(al, p->n_stacks, p->st, c->rank, c->tf, &c->sstart, &c->sstart_cap, &c->skids, &c->skids_cap));
    return PCD_OK;
}

/* A value with its unit for people: time in s, ms, µs or ns, bytes in KiB, MiB or GiB, 3
 * significant digits; "" for other units (the exact value says it all). */
static void human(char *buf, size_t cap, uint64_t v, pcd_bytes unit)
{
    static const struct { const char *unit; double ns; } times[] = {
        { "nanoseconds", 1 }, { "microseconds", 1e3 }, { "milliseconds", 1e6 }, { "seconds", 1e9 },
    };
    static const char *const tnames[] = { "ns", "\xC2\xB5s", "ms", "s" };
    static const char *const bnames[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double x = (double)v;
    const char *name = NULL;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof times / sizeof times[0]; i++)
        if (pcd_bytes_is(unit, times[i].unit)) {
            x *= times[i].ns;
            size_t k = 0;
            while (k < 3 && x >= 1000) x /= 1000, k++;
            name = tnames[k];
        }
    if (pcd_bytes_is(unit, "bytes")) {
        size_t k = 0;
        while (k < 4 && x >= 1024) x /= 1024, k++;
        if (k == 0) return; /* (a few bytes: the exact value) */
        name = bnames[k];
    }
    if (!name) return;
    snprintf(buf, cap, x >= 100 ? "%.0f %s" : x >= 10 ? "%.1f %s" : "%.2f %s", x, name);
}

/* The script of an SVG opened in a browser (see the top of this file): flamegraph.pl's zoom,
 * search and details, on the frames as written (x, width and y of each <rect>; the name and
 * value from its <title>). */
static const char *const script[] = {
    "(function () {\n",
    "  'use strict';\n",
    "  var W = 1200, PAD = 10, CHAR = 12 * 0.59, EPS = 0.02, MATCH = 'rgb(230,0,230)';\n",
    "  var $ = function (id) { return document.getElementById(id); };\n",
    "  var frames = [], byG = new Map(), root = null;\n",
    "  var gs = $('frames').children;\n",
    "  for (var i = 0; i < gs.length; i++) {\n",
    "    var g = gs[i], r = g.querySelector('rect'), t = g.querySelector('text'), title = g.querySelector('title').textContent;\n",
    "    var cut = title.lastIndexOf(' (');\n",
    "    var f = { g: g, r: r, t: t, title: title, name: title.slice(0, cut), value: Number(title.slice(cut + 2).split(' ')[0].replace(/,/g, '')),\n",
    "      x: Number(r.getAttribute('x')), w: Number(r.getAttribute('width')), y: Number(r.getAttribute('y')), fill: r.getAttribute('fill'), text: t.textContent };\n",
    "    frames.push(f);\n",
    "    byG.set(g, f);\n",
    "    if (!root || f.y > root.y) root = f;\n",
    "  }\n",
    "  if (!root) return;\n",
    "  var details = $('details'), matched = $('matched'), unzoom = $('unzoom'), find = $('search');\n",
    "  var hint = 'Click a frame to zoom in; Search (or Ctrl-F) finds frames by regular expression; Esc resets.';\n",
    "  details.textContent = hint;\n",
    "  unzoom.classList.add('hide');\n",
    "  find.classList.remove('hide');\n",
    "  /* the name cut to w pixels as flamegraph.pl cuts it: 3 characters at least, '..' at the end */\n",
    "  function fit(name, w) {\n",
    "    var n = Math.floor(w / CHAR);\n",
    "    if (n < 3) return '';\n",
    "    var cs = Array.from(name);\n",
    "    return cs.length <= n ? name : cs.slice(0, n - 2).join('') + '..';\n",
    "  }\n",
    "  function place(f, x, w) {\n",
    "    f.r.setAttribute('x', x.toFixed(2));\n",
    "    f.r.setAttribute('width', w.toFixed(2));\n",
    "    f.t.setAttribute('x', (x + 3).toFixed(2));\n",
    "    f.t.textContent = fit(f.name, w);\n",
    "  }\n",
    "  var zoomed = null;\n",
    "  /* frame z across the width, its descendants with it, its ancestors under it (faded) */\n",
    "  function zoom(z) {\n",
    "    if (z === root) { reset(); return; }\n",
    "    zoomed = z;\n",
    "    var k = (W - 2 * PAD) / z.w, x0 = z.x, x1 = z.x + z.w;\n",
    "    frames.forEach(function (f) {\n",
    "      var under = f.y > z.y, inside = under ? f.x <= x0 + EPS && f.x + f.w >= x1 - EPS : f.x >= x0 - EPS && f.x + f.w <= x1 + EPS;\n",
    "      f.g.classList.toggle('hide', !inside);\n",
    "      f.g.classList.toggle('parent', inside && under);\n",
    "      if (inside) place(f, under ? PAD : PAD + (f.x - x0) * k, under ? W - 2 * PAD : f.w * k);\n",
    "    });\n",
    "    unzoom.classList.remove('hide');\n",
    "  }\n",
    "  function reset() {\n",
    "    zoomed = null;\n",
    "    frames.forEach(function (f) {\n",
    "      f.g.classList.remove('hide', 'parent');\n",
    "      f.r.setAttribute('x', f.x.toFixed(2));\n",
    "      f.r.setAttribute('width', f.w.toFixed(2));\n",
    "      f.t.setAttribute('x', (f.x + 3).toFixed(2));\n",
    "      f.t.textContent = f.text;\n",
    "    });\n",
    "    unzoom.classList.add('hide');\n",
    "  }\n",
    "  /* frames whose name matches: coloured; the share of the total they cover, a frame inside\n",
    "   * one that matches (a recursion) not counted again */\n",
    "  var term = '';\n",
    "  function search(text) {\n",
    "    term = text || '';\n",
    "    var re = null;\n",
    "    matched.classList.remove('err');\n",
    "    try { re = term ? new RegExp(term) : null; } catch (e) {\n",
    "      matched.textContent = 'Not a regular expression: ' + String(e.message).replace(/^.*: /, '').toLowerCase();\n",
    "      matched.classList.add('err');\n",
    "    }\n",
    "    var hits = [];\n",
    "    frames.forEach(function (f) {\n",
    "      var on = re !== null && f !== root && re.test(f.name);\n",
    "      f.r.setAttribute('fill', on ? MATCH : f.fill);\n",
    "      if (on) hits.push(f);\n",
    "    });\n",
    "    find.textContent = re ? 'Search: ' + term : 'Search';\n",
    "    if (!re) { if (!matched.classList.contains('err')) matched.textContent = ''; delete matched.dataset.percent; return; }\n",
    "    hits.sort(function (a, b) { return a.x - b.x || b.y - a.y; });\n",
    "    var end = -Infinity, sum = 0;\n",
    "    hits.forEach(function (f) {\n",
    "      if (f.x + f.w <= end + EPS) return;\n",
    "      sum += f.value;\n",
    "      end = f.x + f.w;\n",
    "    });\n",
    "    var p = root.value > 0 ? (100 * sum / root.value).toFixed(2) + '%' : '0.00%';\n",
    "    matched.dataset.percent = p;\n",
    "    matched.dataset.count = String(hits.length);\n",
    "    matched.textContent = 'Matched: ' + p + ' of the total (' + hits.length + (hits.length === 1 ? ' frame)' : ' frames)');\n",
    "  }\n",
    "  function ask() {\n",
    "    var text = window.prompt('Search frames (a regular expression; empty: clear)', term);\n",
    "    if (text !== null) search(text);\n",
    "  }\n",
    "  var box = $('frames');\n",
    "  box.addEventListener('click', function (e) {\n",
    "    var g = e.target.closest('g'), f = g && byG.get(g);\n",
    "    if (f) zoom(f);\n",
    "  });\n",
    "  box.addEventListener('mouseover', function (e) {\n",
    "    var g = e.target.closest('g'), f = g && byG.get(g);\n",
    "    if (f) details.textContent = f.title;\n",
    "  });\n",
    "  box.addEventListener('mouseout', function () { details.textContent = hint; });\n",
    "  unzoom.addEventListener('click', reset);\n",
    "  find.addEventListener('click', ask);\n",
    "  window.addEventListener('keydown', function (e) {\n",
    "    if ((e.key === 'f' && (e.ctrlKey || e.metaKey)) || e.key === '/') { e.preventDefault(); ask(); }\n",
    "    else if (e.key === 'Escape') { reset(); search(''); }\n",
    "  });\n",
    "  window.pcdSvg = { zoom: function (name) { var f = frames.find(function (x) { return x.name === name; }); if (f) zoom(f); return !!f; },\n",
    "    reset: reset, search: search, frames: frames, zoomed: function () { return zoomed && zoomed.name; } };\n",
    "  var s = new URLSearchParams(window.location.search).get('s');\n",
    "  if (s) search(s);\n",
    "})();\n",
};

static pcd_status draw(svg *c)
{
    pcd_sink *o = c->out;
    const pcd_profile *p = c->p;
    uint64_t total = c->ltot[PCD_STACK_EMPTY];
    double wpv = total ? (IMAGE_WIDTH - 2 * XPAD) / (double)total : 0;
    uint32_t max_depth;
    PCD_TRY(walk(c, false, &max_depth, total, wpv, 0));
    double height = (double)(max_depth + 1) * FRAME_HEIGHT + YPAD1 + YPAD2;
    const pcd_sample_type *ty = &p->types[c->type];
    pcd_bytes tt = pcd_profile_text(p, ty->title ? ty->title : ty->name);
    const char *base = strrchr(c->j->input_name, '/');
    base = base ? base + 1 : c->j->input_name;
    /* (pieces of at most a few hundred bytes: pcd_text_printf formats into the sink's buffer) */
    PCD_TRY(pcd_text_printf(o,
                            "<?xml version=\"1.0\" standalone=\"no\"?>\n"
                            "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                            "xmlns=\"http://www.w3.org/2000/svg\">\n",
                            IMAGE_WIDTH, height, IMAGE_WIDTH, height));
    PCD_TRY(pcd_text_z(o, "<!-- a flame graph written by profcodec (convert to svg) with the conventions of flamegraph.pl -->\n"
                          "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
                          "<stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/>"
                          "</linearGradient></defs>\n"
                          "<style type=\"text/css\">text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }"
                          " #title { text-anchor: middle; font-size: 17px; } #what { text-anchor: middle; fill: rgb(90,90,90); }"
                          " g:hover rect { stroke: rgb(40,40,40); stroke-width: 0.5; } #frames g, .ctl { cursor: pointer; }"
                          " .ctl:hover { text-decoration: underline; } .hide { display: none; } .parent { opacity: 0.5; }"
                          " #matched { text-anchor: end; } #search { text-anchor: end; } .err { fill: rgb(185,28,28); }</style>\n"));
    PCD_TRY(pcd_text_printf(o, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"url(#background)\"/>\n"
                               "<text id=\"title\" x=\"%.1f\" y=\"%.0f\">",
                            IMAGE_WIDTH, height, IMAGE_WIDTH / 2, FONT_SIZE * 2));
    PCD_TRY(pcd_text_xml(o, (const uint8_t *)base, strlen(base)));
    PCD_TRY(pcd_text_z(o, ": "));
    PCD_TRY(pcd_text_xml(o, tt.ptr, tt.len));
    /* what the widths measure: the metric in its unit, the total (for people too) */
    PCD_TRY(pcd_text_printf(o, "</text>\n<text id=\"what\" x=\"%.1f\" y=\"%.0f\">widths: ", IMAGE_WIDTH / 2, FONT_SIZE * 2 + 18));
    PCD_TRY(pcd_text_xml(o, tt.ptr, tt.len));
    pcd_bytes unit = pcd_profile_text(p, ty->unit);
    bool counted = !unit.len || pcd_bytes_is(unit, "count");
    if (!counted) {
        PCD_TRY(pcd_text_z(o, " in "));
        PCD_TRY(pcd_text_xml(o, unit.ptr, unit.len));
    }
    PCD_TRY(pcd_text_z(o, ", "));
    PCD_TRY(put_grouped(o, total));
    PCD_TRY(pcd_text_z(o, " in total"));
    char hv[48];
    human(hv, sizeof hv, total, unit);
    if (hv[0]) PCD_TRY(pcd_text_printf(o, " (%s)", hv));
    /* what was counted: the samples the profiler took, or distinct stacks with their sums (Mono's
     * call tree, a heap's folded tree), or pprof's sample records */
    uint64_t n = 0;
    for (size_t i = 0; i < c->agg.n; i++) n = pcd_sat_add(n, c->agg.e[i].count);
    static const char *const nouns[] = { "samples", "distinct stacks", "sample records" };
    PCD_TRY(pcd_text_z(o, " from "));
    PCD_TRY(put_grouped(o, n));
    PCD_TRY(pcd_text_printf(o, " %s", nouns[p->sample_noun < 3 ? p->sample_noun : 0]));
    /* the controls (shown by the script), the frame under the pointer and the search's share */
    PCD_TRY(pcd_text_printf(o, "</text>\n<text id=\"unzoom\" class=\"ctl hide\" x=\"%.1f\" y=\"%.0f\">Reset Zoom</text>\n"
                               "<text id=\"search\" class=\"ctl hide\" x=\"%.1f\" y=\"%.0f\">Search</text>\n",
                            XPAD, FONT_SIZE * 2, IMAGE_WIDTH - XPAD, FONT_SIZE * 2));
    PCD_TRY(pcd_text_printf(o, "<text id=\"details\" x=\"%.1f\" y=\"%.0f\"> </text>\n<text id=\"matched\" x=\"%.1f\" y=\"%.0f\"> </text>\n"
                               "<g id=\"frames\">\n",
                            XPAD, height - YPAD2 / 2, IMAGE_WIDTH - XPAD, height - YPAD2 / 2));
    PCD_TRY(walk(c, true, &max_depth, total, wpv, height));
    PCD_TRY(pcd_text_z(o, "</g>\n<script type=\"text/ecmascript\"><![CDATA[\n"));
    for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) PCD_TRY(pcd_text_z(o, script[i]));
    return pcd_text_z(o, "]]></script>\n</svg>\n");
}

static pcd_status s_end(void *ud, pcd_profile *p)
{
    svg *c = ud;
    PCD_TRY(pcd_out_metric(c->j, p, &c->type));
    c->p = p;
    pcd_profile_trim(p); /* room for the layout's arrays, as large as the trie */
    pcd_profile_init(&c->l, c->j->al, NULL);
    c->l_open = true;
    PCD_TRY(lay_out(c));
    return draw(c);
}

static pcd_status s_open(void *state, pcd_job *j, pcd_sink *out, pcd_consumer *cs)
{
    svg *c = state;
    c->j = j;
    c->out = out;
    pcd_memsink_init(&c->text, j->al);
    cs->ud = c;
    cs->begin = s_begin;
    cs->sample = s_sample;
    cs->end = s_end;
    return PCD_OK;
}

static void s_close(void *state)
{
    svg *c = state;
    pcd_alloc *al = c->j->al;
    if (c->agg_open) pcd_agg_free(&c->agg);
    if (c->l_open) pcd_profile_free(&c->l);
    PCD_VEC_FREE(al, c->kind, c->kind_cap);
    PCD_VEC_FREE(al, c->rank, c->rank_cap);
    PCD_VEC_FREE(al, c->ltot, c->ltot_cap);
    PCD_VEC_FREE(al, c->lstart, c->lstart_cap);
    PCD_VEC_FREE(al, c->lkids, c->lkids_cap);
    PCD_VEC_FREE(al, c->tf, c->tf_cap);
    PCD_VEC_FREE(al, c->sstart, c->sstart_cap);
    PCD_VEC_FREE(al, c->skids, c->skids_cap);
    PCD_VEC_FREE(al, c->tot, c->tot_cap);
    PCD_VEC_FREE(al, c->group_of, c->group_of_cap);
    PCD_VEC_FREE(al, c->gstart, c->gstart_cap);
    PCD_VEC_FREE(al, c->gents, c->gents_cap);
    pcd_memsink_free(&c->text);
}

const pcd_exporter pcd_out_svg = {
    "svg",
    "a static flame graph in SVG with flamegraph.pl's conventions (--metric: the sample type)",
    PCD_HAS_SAMPLES, 0, sizeof(svg), s_open, s_close, NULL, PCD_WANTS_AMOUNTS | PCD_WANTS_GROUPED,
};
