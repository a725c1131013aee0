/* pcd_alloc.h: the caller's allocator hook, a memory budget, and a bump arena on top. */
#ifndef PCD_ALLOC_H
#define PCD_ALLOC_H

#include "pcd_port.h"
#include "pcd_status.h"

/* One function does everything (the lua_Alloc shape): nsize 0 frees, ptr NULL
 * allocates, otherwise it resizes. The library only ever allocates through a
 * pcd_alloc the caller handed in, and stops at `limit` bytes in use. */
typedef void *(*pcd_alloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct pcd_alloc {
    pcd_alloc_fn fn;
    void *ud;
    size_t limit;   /* bytes this allocator may hand out at once; 0 = no limit */
    size_t in_use;
    size_t peak;
} pcd_alloc;

/* A malloc/realloc/free based allocator function for callers that want one. */
void *pcd_alloc_libc(void *ud, void *ptr, size_t osize, size_t nsize);

void pcd_alloc_init(pcd_alloc *a, pcd_alloc_fn fn, void *ud, size_t limit);
void *pcd_alloc_get(pcd_alloc *a, size_t n);
void *pcd_alloc_resize(pcd_alloc *a, void *p, size_t old, size_t n);
void pcd_alloc_free(pcd_alloc *a, void *p, size_t n);
/* Blocks that remember their size (a 16-byte header in front), for callers that free
 * without knowing it (zstd's free callback, tables that grow): NULL when refused. */
void *pcd_alloc_sized(pcd_alloc *a, size_t n);
void *pcd_alloc_sized_resize(pcd_alloc *a, void *p, size_t n);   /* p may be NULL */
void pcd_alloc_sized_free(pcd_alloc *a, void *p);                /* p may be NULL */

typedef struct pcd_arena_chunk pcd_arena_chunk;

/* Bump allocator for one record's arrays. Starts on a caller block (may be NULL)
 * and adds chunks from `al` (may be NULL: then the block is all there is). */
typedef struct pcd_arena {
    uint8_t *p, *end;
    uint8_t *first, *first_end;
    pcd_arena_chunk *chunks;   /* extra chunks, newest first */
    pcd_alloc *al;
    size_t used;               /* bytes handed out since the last reset */
    size_t limit;              /* cap on `used`; 0 = no cap */
    /* where a reset starts again while no chunk was added since the last one: the caller's
     * block, or the chunk kept by that reset (base_chunk) */
    uint8_t *base, *base_end;
    pcd_arena_chunk *base_chunk;
} pcd_arena;

void pcd_arena_init(pcd_arena *a, void *block, size_t size, pcd_alloc *al, size_t limit);
/* Forgets every allocation; keeps the largest chunk for reuse. */
void pcd_arena_reset_slow(pcd_arena *a);
PCD_INLINE void pcd_arena_reset(pcd_arena *a)
{
    if (PCD_LIKELY(a->chunks == a->base_chunk)) {
        /* no chunk was added: start the same block again */
        a->p = a->base;
        a->end = a->base_end;
        a->used = 0;
        return;
    }
    pcd_arena_reset_slow(a);
}
void pcd_arena_free(pcd_arena *a);

void *pcd_arena_alloc_slow(pcd_arena *a, size_t n);

/* 8-byte aligned; NULL when the cap or the allocator refuses. n may be 0. */
PCD_INLINE void *pcd_arena_alloc(pcd_arena *a, size_t n)
{
    size_t r = (n + 7) & ~(size_t)7;
    if (r < n) return NULL;
    if (PCD_LIKELY((size_t)(a->end - a->p) >= r && (a->limit == 0 || a->used + r <= a->limit))) {
        void *q = a->p;
        a->p += r;
        a->used += r;
        return q;
    }
    return pcd_arena_alloc_slow(a, n);
}

#endif
