/* formats/moarvm/dom.h: a snapshot's heap as its dominator tree, folded for flame graphs.
 *
 * Collectable d dominates x when every path from the root to x goes through d, so the sum of
 * what lies below a collectable in the dominator tree is what it keeps alive: its retained
 * size. The tree is folded into nodes labelled by type (objects; type objects and STables
 * apart), by static frame or by root kind: a collectable with the same label as the node of
 * its immediate dominator is folded into that node (a chain of one type is one node), and
 * paths deeper than PCD_MOARVM_FOLD_DEPTH nodes end in a "..." node that holds the rest. What
 * the root does not reach is one node of its own, the last. Each node has the size and the
 * number of the collectables folded into it (their own, not what they retain); the nodes are
 * in the order a depth-first walk of the dominator tree made them (children in ascending
 * collectable order), the order of the lines of collapsed output. */
#ifndef PCD_MOARVM_DOM_H
#define PCD_MOARVM_DOM_H

#include "formats/moarvm/snapshot.h"

/* One snapshot's graph, copied out of the collector (which forgets it after its TOC). */
typedef struct pcd_moarvm_heap {
    pcd_alloc *al;
    pcd_moarvm_snapshot snap;      /* its figures */
    uint32_t n, nrefs;
    uint8_t *kind;
    uint64_t *self;                /* colsize + colusize */
    uint32_t *tofi;
    uint64_t *rfstr;
    uint32_t *rfcnt;
    uint32_t *target;
} pcd_moarvm_heap;

/* Copies g (a sound graph) into h, freeing what h held. PCD_E_LIMIT when it has 2^32 - 1
 * collectables or references or more; PCD_E_NOMEM when the allocator refuses (h is then
 * empty). */
pcd_status pcd_moarvm_heap_copy(pcd_moarvm_heap *h, pcd_alloc *al, const pcd_moarvm_snapshot *s,
                                const pcd_moarvm_graph *g);
void pcd_moarvm_heap_free(pcd_moarvm_heap *h);

#define PCD_MOARVM_FOLD_DEPTH 128

/* A node's label: kind << 32 | index for objects, type objects, STables (the type index) and
 * frames (the static frame index); kind << 32 for roots (kind 0: a kind out of range); or
 * one of these. */
#define PCD_MOARVM_LABEL_DEEPER ((uint64_t)0xFF << 32)      /* "...": the rest of a deep path */
#define PCD_MOARVM_LABEL_UNREACHABLE ((uint64_t)0xFE << 32) /* what the root does not reach */

typedef struct pcd_moarvm_fold_node {
    uint32_t parent;               /* UINT32_MAX: a top node */
    uint32_t depth;                /* 0 for top nodes */
    uint64_t label;
    uint64_t size, count;          /* of the collectables folded into it */
} pcd_moarvm_fold_node;

typedef struct pcd_moarvm_fold {
    pcd_alloc *al;
    pcd_moarvm_fold_node *node;
    size_t n, cap;
} pcd_moarvm_fold;

/* The folded dominator tree of h. PCD_E_NOMEM when the allocator refuses. */
pcd_status pcd_moarvm_fold_heap(const pcd_moarvm_heap *h, pcd_moarvm_fold *out);
void pcd_moarvm_fold_free(pcd_moarvm_fold *f);

#endif
