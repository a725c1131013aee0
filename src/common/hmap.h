/* common/hmap.h: a small open-addressing hash map from three u64s to two u64s, on the caller's
 * allocator (so that --max-memory covers it). */
#ifndef PCD_HMAP_H
#define PCD_HMAP_H

#include "pcd.h"

typedef struct pcd_hkey {
    uint64_t a, b, c;
} pcd_hkey;

typedef struct pcd_hslot {
    pcd_hkey k;
    uint64_t v0, v1;
    bool used;
} pcd_hslot;

typedef struct pcd_hmap {
    pcd_alloc *al;
    pcd_hslot *slots;
    size_t cap, len;
} pcd_hmap;

/* An empty map whose slots come from al. */
void pcd_hmap_init(pcd_hmap *m, pcd_alloc *al);
void pcd_hmap_free(pcd_hmap *m);
/* The slot for k, inserted (zeroed, *fresh = true) if absent; NULL when the allocator refuses. */
pcd_hslot *pcd_hmap_put(pcd_hmap *m, pcd_hkey k, bool *fresh);
pcd_hslot *pcd_hmap_get(const pcd_hmap *m, pcd_hkey k);

#endif
