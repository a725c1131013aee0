/* outputs/view.h: what the pictures (html, svg) and the differential outputs share.
 *
 * A view shows one profile, or two (a differential picture: side 0 the input, side 1 the
 * base, --base), by display frames: the name a picture shows (the function; a marker's text,
 * "[GC]"), the file, the line, the kind and the module; columns, end positions and addresses
 * are left out, as collapsed stacks leave them out. While the events come, each side only
 * aggregates (source thread, source stack) -> values, as collapsed stacks do. At the end the
 * view maps every source frame to its display frame, interned in its own tables (a
 * pcd_profile used for its interning only, so that two sides' frames meet by content), and
 * finds the nodes, a trie of display frames (node 0 the root, a parent before its children):
 *
 *   - one side whose source frames all have display frames of their own: the nodes are the
 *     source's stacks themselves (no copy of the trie: a profile of one deep stack costs
 *     nothing more than its own tables);
 *   - otherwise every side's stacks are projected into the view's own trie (source stack ->
 *     node arrays), where stacks that differ only in what display frames leave out meet. */
#ifndef PCD_OUTPUTS_VIEW_H
#define PCD_OUTPUTS_VIEW_H

#include "common/text.h"
#include "pipeline/job.h"
#include "model/aggregate.h"
#include "model/profile.h"

typedef struct pcd_view_side {
    pcd_profile *src;              /* the profile (valid until the output is closed) */
    pcd_agg agg;                   /* (source thread, source stack) -> values, source's types */
    bool agg_open;
    uint64_t samples;              /* the sum of the samples' counts */
    uint32_t *fmap;                /* at the end: source frame -> display frame */
    size_t fmap_cap;
    uint32_t *node;                /* at the end: source stack -> node (NULL: the same id) */
    size_t node_cap;
} pcd_view_side;

typedef struct pcd_view {
    pcd_alloc *al;
    pcd_profile t;                 /* the view's tables: strings, display frames (and nodes) */
    pcd_view_side side[2];
    int sides;                     /* after pcd_view_finish: 1 or 2 */
    bool identity;                 /* the nodes are side 0's source stacks */
    pcd_memsink name;              /* scratch: a display name */
} pcd_view;

void pcd_view_init(pcd_view *w, pcd_alloc *al);
void pcd_view_free(pcd_view *w);
/* Starts side k on its source profile (at the source's begin: its sample types are known). */
pcd_status pcd_view_begin(pcd_view *w, int k, pcd_profile *src);
/* Aggregates a sample of side k. */
PCD_INLINE pcd_status pcd_view_sample(pcd_view *w, int k, const pcd_sample *s)
{
    w->side[k].samples = pcd_sat_add(w->side[k].samples, s->count);
    return pcd_agg_sample(&w->side[k].agg, s);
}
/* After the last event of every side: display frames and nodes (sides: 1, or 2 with a base). */
pcd_status pcd_view_finish(pcd_view *w, int sides);

/* The nodes, after pcd_view_finish: how many, and each one's parent and display frame. */
PCD_INLINE size_t pcd_view_nodes(const pcd_view *w) { return w->identity ? w->side[0].src->n_stacks : w->t.n_stacks; }
PCD_INLINE uint32_t pcd_view_parent(const pcd_view *w, uint32_t n)
{
    return w->identity ? w->side[0].src->st[n].parent : w->t.st[n].parent;
}
PCD_INLINE uint32_t pcd_view_frame(const pcd_view *w, uint32_t n)
{
    return w->identity ? w->side[0].fmap[w->side[0].src->st[n].frame] : w->t.st[n].frame;
}
/* The node of source stack s of side k. */
PCD_INLINE uint32_t pcd_view_node(const pcd_view *w, int k, pcd_stack_id s)
{
    return w->side[k].node ? w->side[k].node[s] : s;
}

/* The name a picture shows for frame f: the function of code, native and kernel frames that
 * have one; otherwise the default dialect's text ("[GC]", a label's text); "[unknown]" for
 * nothing at all. */
pcd_status pcd_view_frame_name(pcd_sink *s, const pcd_profile *p, pcd_frame_id f);

/* The sample type of the base profile b to compare with type `type` of profile p (--metric
 * when the base has it, else the type of the same name, else one of the same kind, else b's
 * default) into *btype, and the factor that turns b's unit into p's (time units: 1000 from
 * microseconds to nanoseconds) into *scale. Two types compare when their units measure the
 * same thing (time, bytes, counts) and they are the same clock: names or titles that say
 * "cpu" or "wall" must agree, and types that say neither must have the same name or title.
 * Otherwise PCD_E_ARG with job->msg saying what differs, unless job->force. */
pcd_status pcd_view_base_type(pcd_job *j, const pcd_profile *p, int type, const pcd_profile *b, int *btype,
                              double *scale);

/* Text for HTML and XML (element content and attribute values): '&', '<', '>', '"' and '\''
 * escaped, control characters other than tab, LF and CR as U+FFFD, invalid UTF-8 replaced as
 * pcd_text_json replaces it. */
pcd_status pcd_text_xml(pcd_sink *s, const uint8_t *p, size_t n);

/* A JSON string that is also safe inside an HTML <script> element ('<' written \u003c). */
pcd_status pcd_text_json_html(pcd_sink *s, pcd_memsink *scratch, const uint8_t *p, size_t n);

#endif
