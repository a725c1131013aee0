/* formats/moarvm/dom.c: convert --to collapsed: one snapshot's heap as folded stacks of its dominator
 * tree. Collectable d dominates x when every path from the root to x goes through d, so a
 * frame's width in a flame graph (the sum of the weights below it) is what its collectable
 * keeps alive: its retained size (--metric size, the default) or the number of collectables
 * it retains (--metric count). Stacks are the chains of immediate dominators from the root,
 * labelled by type (objects; type objects and STables are marked), by static frame
 * ("name (file:line)") or by root kind; a collectable with the same label as its dominator's
 * frame is merged into it (chains of one type read as one frame), and stacks deeper than
 * 128 frames end in a "..." frame that holds the rest. Dominators: Lengauer-Tarjan with path
 * compression, iterative (heaps are deep). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/moarvm/snapshot.h"
#include "formats/registry.h"
#include "common/hmap.h"

#define NONE UINT32_MAX
#define MAX_DEPTH 128

typedef struct graph_copy {
    bool have;
    uint64_t index;
    uint64_t n, nrefs;
    uint8_t *kind;
    uint64_t *self;              /* colsize + colusize */
    uint32_t *tofi;
    uint64_t *rfstr;
    uint32_t *rfcnt;
    uint32_t *target;
    pcd_alloc *al;
} graph_copy;

typedef struct collapsed {
    const pcd_conv_args *a;
    bool by_count;
    bool want_index;
    uint64_t index;
    graph_copy g;
    bool too_big, oom;
    uint64_t seen;
} collapsed;

/* Everything the dominator tree needs comes from the caller's allocator, so that
 * --max-memory bounds it (blocks that remember their size: pcd_alloc_sized). */
static void *dget(pcd_alloc *al, size_t n) { return pcd_alloc_sized(al, n); }

static void *dzero(pcd_alloc *al, size_t n)
{
    void *p = pcd_alloc_sized(al, n);
    if (p) memset(p, 0, n);
    return p;
}

static void dfree(pcd_alloc *al, void *q) { pcd_alloc_sized_free(al, q); }

static void *dgrow(pcd_alloc *al, void *q, size_t n) { return pcd_alloc_sized_resize(al, q, n); }

static void graph_free(graph_copy *g)
{
    pcd_alloc *al = g->al;
    if (al) {
        dfree(al, g->kind);
        dfree(al, g->self);
        dfree(al, g->tofi);
        dfree(al, g->rfstr);
        dfree(al, g->rfcnt);
        dfree(al, g->target);
    }
    memset(g, 0, sizeof *g);
    g->al = al;
}

static void on_snapshot(void *ud, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *s, const pcd_moarvm_stats *st, const pcd_moarvm_graph *g)
{
    (void)c;
    (void)st;
    collapsed *x = ud;
    x->seen++;
    if (x->want_index && s->index != x->index) return;
    graph_free(&x->g);
    if (!g) return; /* its references are out of bounds: the checks said so */
    if (g->n >= NONE || g->nrefs >= NONE) {
        x->too_big = true;
        return;
    }
    graph_copy *d = &x->g;
    size_t n = (size_t)g->n, m = (size_t)g->nrefs;
    d->kind = dget(d->al, n);
    d->self = dget(d->al, n * sizeof *d->self);
    d->tofi = dget(d->al, n * sizeof *d->tofi);
    d->rfstr = dget(d->al, n * sizeof *d->rfstr);
    d->rfcnt = dget(d->al, n * sizeof *d->rfcnt);
    d->target = dget(d->al, (m ? m : 1) * sizeof *d->target);
    if (!d->kind || !d->self || !d->tofi || !d->rfstr || !d->rfcnt || !d->target) {
        graph_free(d);
        x->oom = true;
        return;
    }
    memcpy(d->kind, g->kind, n);
    memcpy(d->tofi, g->tofi, n * sizeof *d->tofi);
    memcpy(d->rfstr, g->rfstr, n * sizeof *d->rfstr);
    memcpy(d->rfcnt, g->rfcnt, n * sizeof *d->rfcnt);
    for (size_t i = 0; i < n; i++) d->self[i] = (uint64_t)g->size[i] + g->usize[i];
    for (size_t i = 0; i < m; i++) d->target[i] = (uint32_t)g->target[i];
    d->n = g->n;
    d->nrefs = g->nrefs;
    d->index = s->index;
    d->have = true;
}

/* Immediate dominators (as node indexes; NONE for the root and the unreachable). */
static uint32_t *dominators(const graph_copy *g)
{
    pcd_alloc *al = g->al;
    uint32_t n = (uint32_t)g->n;
    /* the edges: every collectable's range (ranges may share references) */
    uint64_t m = 0;
    for (uint32_t v = 0; v < n; v++) m += g->rfcnt[v];
    if (m >= NONE) return NULL;
    uint32_t *pre = dget(al, n * sizeof *pre);       /* node -> preorder number, NONE: unreachable */
    uint32_t *vert = dget(al, n * sizeof *vert);      /* preorder number -> node */
    uint32_t *par = dget(al, n * sizeof *par);        /* DFS parent (preorder numbers) */
    uint32_t *semi = dget(al, n * sizeof *semi);
    uint32_t *idom = dget(al, n * sizeof *idom);
    uint32_t *anc = dget(al, n * sizeof *anc);
    uint32_t *lab = dget(al, n * sizeof *lab);
    uint32_t *bhead = dget(al, n * sizeof *bhead);
    uint32_t *bnext = dget(al, n * sizeof *bnext);
    uint32_t *pstart = dzero(al, ((size_t)n + 1) * sizeof *pstart); /* predecessors (CSR) */
    uint32_t *preds = dget(al, (m ? m : 1) * sizeof *preds);
    uint32_t *stack = dget(al, n * sizeof *stack);
    uint64_t *edge = dget(al, n * sizeof *edge);     /* DFS: next edge of each node on the stack */
    uint32_t *out = NULL;
    if (!pre || !vert || !par || !semi || !idom || !anc || !lab || !bhead || !bnext || !pstart || !preds || !stack ||
        !edge)
        goto done;
    /* predecessors */
    for (uint32_t v = 0; v < n; v++)
        for (uint64_t e = g->rfstr[v]; e < g->rfstr[v] + g->rfcnt[v]; e++) pstart[g->target[e] + 1]++;
    for (uint32_t v = 0; v < n; v++) pstart[v + 1] += pstart[v];
    {
        uint32_t *fill = dget(al, (size_t)n * sizeof *fill);
        if (!fill) goto done;
        memcpy(fill, pstart, (size_t)n * sizeof *fill);
        for (uint32_t v = 0; v < n; v++)
            for (uint64_t e = g->rfstr[v]; e < g->rfstr[v] + g->rfcnt[v]; e++) preds[fill[g->target[e]]++] = v;
        dfree(al, fill);
    }
    /* depth-first numbering from the root (collectable 0) */
    for (uint32_t v = 0; v < n; v++) pre[v] = NONE;
    uint32_t cnt = 0, sp = 0;
    pre[0] = cnt;
    vert[cnt] = 0;
    par[cnt] = NONE;
    cnt++;
    stack[sp] = 0;
    edge[sp] = g->rfstr[0];
    sp++;
    while (sp) {
        uint32_t v = stack[sp - 1];
        uint64_t end = g->rfstr[v] + g->rfcnt[v];
        if (edge[sp - 1] >= end) {
            sp--;
            continue;
        }
        uint32_t w = g->target[edge[sp - 1]++];
        if (pre[w] != NONE) continue;
        pre[w] = cnt;
        vert[cnt] = w;
        par[cnt] = pre[v];
        cnt++;
        stack[sp] = w;
        edge[sp] = g->rfstr[w];
        sp++;
    }
    /* Lengauer-Tarjan over preorder numbers 0..cnt-1 */
    for (uint32_t i = 0; i < cnt; i++) {
        semi[i] = i;
        anc[i] = NONE;
        lab[i] = i;
        bhead[i] = NONE;
        idom[i] = NONE;
    }
    for (uint32_t w = cnt - 1; w >= 1; w--) {
        uint32_t node = vert[w];
        for (uint32_t k = pstart[node]; k < pstart[node + 1]; k++) {
            uint32_t pv = pre[preds[k]];
            if (pv == NONE) continue;
            /* eval(pv) with path compression */
            uint32_t u = pv;
            if (anc[pv] != NONE) {
                uint32_t top = 0;
                uint32_t x = pv;
                while (anc[anc[x]] != NONE) {
                    stack[top++] = x;
                    x = anc[x];
                }
                while (top) {
                    x = stack[--top];
                    if (semi[lab[anc[x]]] < semi[lab[x]]) lab[x] = lab[anc[x]];
                    anc[x] = anc[anc[x]];
                }
                u = lab[pv];
            }
            if (semi[u] < semi[w]) semi[w] = semi[u];
        }
        bnext[w] = bhead[semi[w]];
        bhead[semi[w]] = w;
        uint32_t p = par[w];
        anc[w] = p;
        for (uint32_t v = bhead[p]; v != NONE; v = bnext[v]) {
            uint32_t u = v;
            if (anc[v] != NONE) {
                uint32_t top = 0;
                uint32_t x = v;
                while (anc[anc[x]] != NONE) {
                    stack[top++] = x;
                    x = anc[x];
                }
                while (top) {
                    x = stack[--top];
                    if (semi[lab[anc[x]]] < semi[lab[x]]) lab[x] = lab[anc[x]];
                    anc[x] = anc[anc[x]];
                }
                u = lab[v];
            }
            idom[v] = semi[u] < semi[v] ? u : p;
        }
        bhead[p] = NONE;
    }
    for (uint32_t w = 1; w < cnt; w++)
        if (idom[w] != semi[w]) idom[w] = idom[idom[w]];
    out = dget(al, n * sizeof *out);
    if (out) {
        for (uint32_t v = 0; v < n; v++) out[v] = NONE;
        for (uint32_t w = 1; w < cnt; w++) out[vert[w]] = vert[idom[w]];
    }
done:
    dfree(al, pre);
    dfree(al, vert);
    dfree(al, par);
    dfree(al, semi);
    dfree(al, idom);
    dfree(al, anc);
    dfree(al, lab);
    dfree(al, bhead);
    dfree(al, bnext);
    dfree(al, pstart);
    dfree(al, preds);
    dfree(al, stack);
    dfree(al, edge);
    return out;
}

/* A frame of the folded output: a label under a parent frame. */
typedef struct tnode {
    uint32_t parent;
    uint64_t label;              /* kind << 32 | type or frame index; see label_text */
    uint64_t weight;
    uint32_t depth;
} tnode;

#define LABEL_DEEPER ((uint64_t)0xFF << 32)
#define LABEL_UNREACHABLE ((uint64_t)0xFE << 32)

static uint64_t label_of(const graph_copy *g, uint32_t v)
{
    uint64_t k = g->kind[v];
    if (k >= 1 && k <= 4) return k << 32 | g->tofi[v];
    return k << 32;
}

static size_t label_text(const pcd_moarvm_col *c, uint64_t label, char *buf, size_t cap)
{
    static const char *const roots[12] = {
        "<unknown kind>", "", "", "", "", "Permanent Roots", "VM Instance Roots", "C Stack Roots",
        "Thread Roots", "root", "Inter-generational Roots", "Thread Call Stack Roots",
    };
    uint64_t k = label >> 32, i = label & 0xFFFFFFFFu;
    size_t n;
    if (label == LABEL_DEEPER) return (size_t)snprintf(buf, cap, "...");
    if (label == LABEL_UNREACHABLE) return (size_t)snprintf(buf, cap, "(unreachable from the root)");
    if (k == 4) n = pcd_moarvm_col_frame_name(c, i, buf, cap);
    else if (k >= 1 && k <= 3) {
        n = pcd_moarvm_col_type_name(c, i, buf, cap);
        if (k == 2 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " (type object)");
        if (k == 3 && n < cap) n += (size_t)snprintf(buf + n, cap - n, " (STable)");
    } else {
        n = (size_t)snprintf(buf, cap, "%s", roots[k < 12 ? k : 0]);
    }
    if (n >= cap) n = cap - 1;
    /* ';' separates frames in the folded format */
    for (size_t j = 0; j < n; j++)
        if (buf[j] == ';') buf[j] = ':';
    return n;
}

static int write_folded(collapsed *x, const pcd_moarvm_col *c, pcd_sink *s)
{
    const graph_copy *g = &x->g;
    pcd_alloc *al = g->al;
    uint32_t n = (uint32_t)g->n;
    uint32_t *idom = dominators(g);
    uint32_t *chead = dget(al, (size_t)n * sizeof *chead), *cnext = dget(al, (size_t)n * sizeof *cnext);
    uint32_t *tn_of = dget(al, (size_t)n * sizeof *tn_of);
    uint32_t *stack = dget(al, (size_t)n * sizeof *stack);
    tnode *t = NULL;
    size_t nt = 0, tcap = 0;
    pcd_hmap kids;
    pcd_hmap_init(&kids);
    int rc = 0;
    if (!idom || !chead || !cnext || !tn_of || !stack) {
        rc = 2;
        goto done;
    }
    /* children in the dominator tree */
    for (uint32_t v = 0; v < n; v++) chead[v] = NONE;
    for (uint32_t v = n; v-- > 1;) {
        if (idom[v] == NONE) continue;
        cnext[v] = chead[idom[v]];
        chead[idom[v]] = v;
    }
#define NEW_TNODE(par, lab, dep)                                                     \
    do {                                                                             \
        if (nt == tcap) {                                                            \
            size_t nc = tcap ? tcap * 2 : 1024;                                      \
            tnode *p_ = dgrow(al, t, nc * sizeof *t);                                  \
            if (!p_) {                                                               \
                rc = 2;                                                              \
                goto done;                                                           \
            }                                                                        \
            t = p_;                                                                  \
            tcap = nc;                                                               \
        }                                                                            \
        t[nt] = (tnode){ (par), (lab), 0, (dep) };                                   \
        nt++;                                                                        \
    } while (0)
    /* frame 0: the root */
    NEW_TNODE(NONE, label_of(g, 0), 0);
    tn_of[0] = 0;
    uint32_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t v = stack[--sp];
        uint32_t pt = tn_of[v];
        t[pt].weight += x->by_count ? 1 : g->self[v];
        for (uint32_t w = chead[v]; w != NONE; w = cnext[w]) {
            uint64_t lab = label_of(g, w);
            uint32_t into;
            if (lab == t[pt].label || t[pt].label == LABEL_DEEPER) {
                into = pt;                                /* same label: merged into the frame */
            } else {
                if (t[pt].depth + 1 >= MAX_DEPTH) lab = LABEL_DEEPER;
                bool fresh;
                pcd_hslot *sl = pcd_hmap_put(&kids, (pcd_hkey){ pt, lab, 0 }, &fresh);
                if (!sl) {
                    rc = 2;
                    goto done;
                }
                if (fresh) {
                    sl->v0 = nt;
                    NEW_TNODE(pt, lab, t[pt].depth + 1);
                }
                into = (uint32_t)sl->v0;
            }
            tn_of[w] = into;
            stack[sp++] = w;
        }
    }
    /* what the root does not reach */
    {
        uint32_t un = NONE;
        for (uint32_t v = 1; v < n; v++) {
            if (idom[v] != NONE) continue;
            if (un == NONE) {
                un = (uint32_t)nt;
                NEW_TNODE(NONE, LABEL_UNREACHABLE, 0);
            }
            t[un].weight += x->by_count ? 1 : g->self[v];
        }
    }
#undef NEW_TNODE
    /* one line per frame with weight of its own: the labels from the top, then the weight */
    {
        char *line = dget(al, (size_t)MAX_DEPTH * 260 + 32);
        uint32_t path[MAX_DEPTH + 1];
        if (!line) {
            rc = 2;
            goto done;
        }
        for (size_t i = 0; i < nt && rc == 0; i++) {
            if (!t[i].weight) continue;
            uint32_t depth = 0;
            for (uint32_t k = (uint32_t)i; k != NONE && depth <= MAX_DEPTH; k = t[k].parent) path[depth++] = k;
            size_t len = 0;
            for (uint32_t d = depth; d-- > 0;) {
                len += label_text(c, t[path[d]].label, line + len, 256);
                if (d) line[len++] = ';';
            }
            len += (size_t)snprintf(line + len, 32, " %" PRIu64 "\n", t[i].weight);
            if (pcd_sink_put(s, line, len) != PCD_OK) rc = 2;
        }
        dfree(al, line);
    }
done:
    if (rc) fprintf(x->a->err, "%s: %s\n", x->a->input_name, "out of memory for the folded stacks (raise --max-memory), or cannot write them");
    pcd_hmap_free(&kids);
    dfree(al, t);
    dfree(al, idom);
    dfree(al, chead);
    dfree(al, cnext);
    dfree(al, tn_of);
    dfree(al, stack);
    return rc;
}

static void conv_report(void *ud, bool is_error, const pcd_error *e)
{
    collapsed *x = ud;
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    fprintf(x->a->err, "%s: %s%s\n", x->a->input_name, is_error ? "" : "warning: ", msg);
}

int mvm_collapsed_run(const pcd_conv_args *a);
int mvm_collapsed_run(const pcd_conv_args *a)
{
    collapsed x;
    memset(&x, 0, sizeof x);
    x.a = a;
    x.g.al = a->al;
    if (a->metric) {
        const char *m = a->metric;
        const char *at = strchr(m, '@');
        size_t len = at ? (size_t)(at - m) : strlen(m);
        if (len == 5 && strncmp(m, "count", 5) == 0) x.by_count = true;
        else if (!(len == 4 && strncmp(m, "size", 4) == 0)) {
            fprintf(a->err, "%s: --metric for --to collapsed is size or count, optionally @N for snapshot N\n",
                    a->input_name);
            return 2;
        }
        if (at) {
            char *end;
            x.index = strtoull(at + 1, &end, 10);
            if (!at[1] || *end) {
                fprintf(a->err, "%s: --metric %s: a snapshot number after @\n", a->input_name, m);
                return 2;
            }
            x.want_index = true;
        }
    }
    pcd_moarvm_opts o = { true, true, conv_report, &x, on_snapshot, &x };
    pcd_moarvm_col *c = pcd_moarvm_col_new(a->al, &o);
    if (!c) {
        fprintf(a->err, "%s: out of memory\n", a->input_name);
        return 2;
    }
    int rc = 0;
    pcd_record rec;
    for (;;) {
        pcd_status st = pcd_reader_next(a->r, &rec);
        if (st == PCD_END) {
            pcd_moarvm_col_finish(c);
            break;
        }
        if (st != PCD_OK) {
            pcd_report(a->err, a->input_name, pcd_reader_error(a->r));
            rc = 1;
            if (a->all && pcd_reader_recover(a->r, NULL) == PCD_OK) continue;
            break;
        }
        if (a->progress && rec.depth == 1) a->progress(a->progress_ud, rec.offset);
        pcd_moarvm_col_record(c, &rec);
    }
    if (x.too_big || x.oom) {
        fprintf(a->err, "%s: the snapshot is too large for the dominator tree (%s)\n", a->input_name,
                x.oom ? "out of memory: raise --max-memory" : "2^32 collectables or references");
        rc = 2;
    } else if (x.g.have) {
        int w = write_folded(&x, c, a->out);
        if (w) rc = w;
    } else {
        if (x.want_index)
            fprintf(a->err, "%s: no complete snapshot %" PRIu64 " with sound references (%" PRIu64 " complete)\n",
                    a->input_name, x.index, x.seen);
        else
            fprintf(a->err, "%s: no complete snapshot with sound references\n", a->input_name);
        if (!rc) rc = 1;
    }
    graph_free(&x.g);
    pcd_moarvm_col_free(c);
    return rc;
}
