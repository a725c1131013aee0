/* formats/moarvm/dom.c: the dominator tree of a snapshot's heap, folded (see dom.h).
 * Dominators: Lengauer-Tarjan with path compression, iterative (heaps are deep). Everything
 * comes from the caller's allocator, so that --max-memory bounds it (blocks that remember their
 * size: pcd_alloc_sized). */
#include "formats/moarvm/dom.h"

#include <string.h>

#include "common/hash.h"

#define NONE UINT32_MAX

static void *dget(pcd_alloc *al, size_t n) { return pcd_alloc_sized(al, n); }

static void *dzero(pcd_alloc *al, size_t n)
{
    void *p = pcd_alloc_sized(al, n);
    if (p) memset(p, 0, n);
    return p;
}

static void dfree(pcd_alloc *al, void *q) { pcd_alloc_sized_free(al, q); }

/* ---- the copy of one snapshot's graph ------------------------------------------------------ */

void pcd_moarvm_heap_free(pcd_moarvm_heap *h)
{
    pcd_alloc *al = h->al;
    if (al) {
        dfree(al, h->kind);
        dfree(al, h->self);
        dfree(al, h->tofi);
        dfree(al, h->rfstr);
        dfree(al, h->rfcnt);
        dfree(al, h->target);
    }
    memset(h, 0, sizeof *h);
}

pcd_status pcd_moarvm_heap_copy(pcd_moarvm_heap *h, pcd_alloc *al, const pcd_moarvm_snapshot *s,
                                const pcd_moarvm_graph *g)
{
    pcd_moarvm_heap_free(h);
    h->al = al;
    if (g->n >= NONE || g->nrefs >= NONE) return PCD_E_LIMIT;
    size_t n = (size_t)g->n, m = (size_t)g->nrefs;
    h->kind = dget(al, n);
    h->self = dget(al, n * sizeof *h->self);
    h->tofi = dget(al, n * sizeof *h->tofi);
    h->rfstr = dget(al, n * sizeof *h->rfstr);
    h->rfcnt = dget(al, n * sizeof *h->rfcnt);
    h->target = dget(al, (m ? m : 1) * sizeof *h->target);
    if (!h->kind || !h->self || !h->tofi || !h->rfstr || !h->rfcnt || !h->target) {
        pcd_moarvm_heap_free(h);
        return PCD_E_NOMEM;
    }
    memcpy(h->kind, g->kind, n);
    memcpy(h->tofi, g->tofi, n * sizeof *h->tofi);
    memcpy(h->rfstr, g->rfstr, n * sizeof *h->rfstr);
    memcpy(h->rfcnt, g->rfcnt, n * sizeof *h->rfcnt);
    for (size_t i = 0; i < n; i++) h->self[i] = (uint64_t)g->size[i] + g->usize[i];
    for (size_t i = 0; i < m; i++) h->target[i] = (uint32_t)g->target[i];
    h->n = (uint32_t)g->n;
    h->nrefs = (uint32_t)g->nrefs;
    h->snap = *s;
    return PCD_OK;
}

/* ---- dominators ------------------------------------------------------------------------------ */

/* Immediate dominators (as node indexes; NONE for the root and the unreachable). */
static uint32_t *dominators(const pcd_moarvm_heap *g)
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

/* ---- the folded tree -------------------------------------------------------------------------- */

static uint64_t label_of(const pcd_moarvm_heap *g, uint32_t v)
{
    uint64_t k = g->kind[v];
    if (k >= 1 && k <= 4) return k << 32 | g->tofi[v];
    return k << 32;
}

/* The children of the nodes: (parent node, label) -> node, open addressing (node + 1, 0 empty). */
/* Each node's children by label: 4-byte node ids into the folded tree, which holds (parent,
 * label) already. Not common/hmap.c (docs/design.md, "One hash, one table"): a slot a node of
 * the heap's tree (millions), 4 bytes against 48, as the model's stack index. */
typedef struct kids {
    pcd_alloc *al;
    uint32_t *slot;
    size_t cap, n;
} kids;

static uint64_t kid_hash(uint32_t parent, uint64_t label) { return pcd_hash2(parent, label); }

/* The node under `parent` with `label` (*found), or the slot where it goes. */
static uint32_t *kid_slot(const kids *k, const pcd_moarvm_fold_node *t, uint32_t parent, uint64_t label)
{
    size_t mask = k->cap - 1, i = kid_hash(parent, label) & mask;
    for (; k->slot[i]; i = (i + 1) & mask) {
        const pcd_moarvm_fold_node *x = &t[k->slot[i] - 1];
        if (x->parent == parent && x->label == label) break;
    }
    return &k->slot[i];
}

/* Room for one more (load at most 1/2). */
static pcd_status kid_room(kids *k, const pcd_moarvm_fold_node *t)
{
    if ((k->n + 1) * 2 <= k->cap) return PCD_OK;
    size_t ncap = k->cap ? k->cap * 2 : 1024;
    uint32_t *q = dzero(k->al, ncap * sizeof *q);
    if (!q) return PCD_E_NOMEM;
    for (size_t i = 0; i < k->cap; i++) {
        uint32_t v = k->slot[i];
        if (!v) continue;
        size_t j = kid_hash(t[v - 1].parent, t[v - 1].label) & (ncap - 1);
        while (q[j]) j = (j + 1) & (ncap - 1);
        q[j] = v;
    }
    dfree(k->al, k->slot);
    k->slot = q;
    k->cap = ncap;
    return PCD_OK;
}

static pcd_status new_node(pcd_moarvm_fold *f, uint32_t parent, uint64_t label, uint32_t depth)
{
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 1024;
        pcd_moarvm_fold_node *q = pcd_alloc_sized_resize(f->al, f->node, nc * sizeof *q);
        if (!q) return PCD_E_NOMEM;
        f->node = q;
        f->cap = nc;
    }
    f->node[f->n++] = (pcd_moarvm_fold_node){ parent, depth, label, 0, 0 };
    return PCD_OK;
}

void pcd_moarvm_fold_free(pcd_moarvm_fold *f)
{
    if (f->al) dfree(f->al, f->node);
    f->node = NULL;
    f->n = f->cap = 0;
}

pcd_status pcd_moarvm_fold_heap(const pcd_moarvm_heap *g, pcd_moarvm_fold *f)
{
    pcd_alloc *al = g->al;
    memset(f, 0, sizeof *f);
    f->al = al;
    uint32_t n = g->n;
    if (!n) return PCD_OK;
    uint32_t *idom = dominators(g);
    uint32_t *chead = dget(al, (size_t)n * sizeof *chead), *cnext = dget(al, (size_t)n * sizeof *cnext);
    uint32_t *tn_of = dget(al, (size_t)n * sizeof *tn_of);
    uint32_t *stack = dget(al, (size_t)n * sizeof *stack);
    kids k = { al, NULL, 0, 0 };
    pcd_status st = PCD_E_NOMEM;
    if (!idom || !chead || !cnext || !tn_of || !stack) goto done;
    /* children in the dominator tree, in ascending order */
    for (uint32_t v = 0; v < n; v++) chead[v] = NONE;
    for (uint32_t v = n; v-- > 1;) {
        if (idom[v] == NONE) continue;
        cnext[v] = chead[idom[v]];
        chead[idom[v]] = v;
    }
    /* node 0: the root */
    if ((st = new_node(f, NONE, label_of(g, 0), 0)) != PCD_OK) goto done;
    tn_of[0] = 0;
    uint32_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t v = stack[--sp];
        uint32_t pt = tn_of[v];
        f->node[pt].size += g->self[v];
        f->node[pt].count++;
        for (uint32_t w = chead[v]; w != NONE; w = cnext[w]) {
            uint64_t lab = label_of(g, w);
            const pcd_moarvm_fold_node *p = &f->node[pt];
            uint32_t into;
            if (lab == p->label || p->label == PCD_MOARVM_LABEL_DEEPER) {
                into = pt; /* same label: folded into the node */
            } else {
                if (p->depth + 1 >= PCD_MOARVM_FOLD_DEPTH) lab = PCD_MOARVM_LABEL_DEEPER;
                if ((st = kid_room(&k, f->node)) != PCD_OK) goto done;
                uint32_t *slot = kid_slot(&k, f->node, pt, lab);
                if (!*slot) {
                    if ((st = new_node(f, pt, lab, f->node[pt].depth + 1)) != PCD_OK) goto done;
                    *slot = (uint32_t)f->n;
                    k.n++;
                }
                into = *slot - 1;
            }
            tn_of[w] = into;
            stack[sp++] = w;
        }
    }
    /* what the root does not reach */
    uint32_t un = NONE;
    for (uint32_t v = 1; v < n; v++) {
        if (idom[v] != NONE) continue;
        if (un == NONE) {
            un = (uint32_t)f->n;
            if ((st = new_node(f, NONE, PCD_MOARVM_LABEL_UNREACHABLE, 0)) != PCD_OK) goto done;
        }
        f->node[un].size += g->self[v];
        f->node[un].count++;
    }
    st = PCD_OK;
done:
    if (st != PCD_OK) pcd_moarvm_fold_free(f);
    dfree(al, k.slot);
    dfree(al, idom);
    dfree(al, chead);
    dfree(al, cnext);
    dfree(al, tn_of);
    dfree(al, stack);
    return st;
}
