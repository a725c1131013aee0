/* common/vec.c: the slow path of growable arrays. */
#include "common/vec.h"

pcd_status pcd_vec_grow(pcd_alloc *al, void **p, size_t *cap, size_t elem, size_t need)
{
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return PCD_E_NOMEM;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem) return PCD_E_NOMEM;
    void *q = pcd_alloc_resize(al, *p, *cap * elem, ncap * elem);
    if (!q) return PCD_E_NOMEM;
    *p = q;
    *cap = ncap;
    return PCD_OK;
}
