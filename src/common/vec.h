/* common/vec.h: growable arrays on the caller's allocator (the one growth idiom). */
#ifndef PCD_COMMON_VEC_H
#define PCD_COMMON_VEC_H

#include "pcd.h"

/* Makes room for `need` elements of `elem` bytes in *p (capacity *cap, in elements), at
 * least doubling; PCD_E_NOMEM when the allocator refuses or the size would overflow. */
pcd_status pcd_vec_grow(pcd_alloc *al, void **p, size_t *cap, size_t elem, size_t need);

PCD_INLINE pcd_status pcd_vec_reserve(pcd_alloc *al, void **p, size_t *cap, size_t elem, size_t need)
{
    if (PCD_LIKELY(need <= *cap)) return PCD_OK;
    return pcd_vec_grow(al, p, cap, elem, need);
}

/* PCD_VEC_RESERVE(al, arr, cap, need): for a typed pointer `arr` and a size_t `cap`. */
#define PCD_VEC_RESERVE(al, arr, cap, need) \
    pcd_vec_reserve((al), (void **)&(arr), &(cap), sizeof *(arr), (need))

/* Frees what pcd_vec_grow allocated (cap elements of elem bytes). */
PCD_INLINE void pcd_vec_free(pcd_alloc *al, void *p, size_t cap, size_t elem)
{
    if (p) pcd_alloc_free(al, p, cap * elem);
}
#define PCD_VEC_FREE(al, arr, cap)                      \
    do {                                                \
        pcd_vec_free((al), (arr), (cap), sizeof *(arr)); \
        (arr) = NULL;                                   \
        (cap) = 0;                                      \
    } while (0)

#endif
