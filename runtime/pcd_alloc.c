/* pcd_alloc.c: allocator budget and the record arena. */
#include "pcd_alloc.h"

#include <stdlib.h>
#include <string.h>

void *pcd_alloc_libc(void *ud, void *ptr, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

void pcd_alloc_init(pcd_alloc *a, pcd_alloc_fn fn, void *ud, size_t limit)
{
    a->fn = fn;
    a->ud = ud;
    a->limit = limit;
    a->in_use = 0;
    a->peak = 0;
}

void *pcd_alloc_resize(pcd_alloc *a, void *p, size_t old, size_t n)
{
    if (!a || !a->fn) return NULL;
    if (n > old && a->limit && (n - old > a->limit || a->in_use + (n - old) > a->limit))
        return NULL;
    void *q = a->fn(a->ud, p, old, n);
    if (!q && n) return NULL;
    a->in_use = a->in_use - old + n;
    if (a->in_use > a->peak) a->peak = a->in_use;
    return q;
}

void *pcd_alloc_get(pcd_alloc *a, size_t n) { return pcd_alloc_resize(a, NULL, 0, n); }

#define PCD_SIZED_HDR 16

void *pcd_alloc_sized(pcd_alloc *a, size_t n) { return pcd_alloc_sized_resize(a, NULL, n); }

void *pcd_alloc_sized_resize(pcd_alloc *a, void *p, size_t n)
{
    if (n > SIZE_MAX - PCD_SIZED_HDR) return NULL;
    uint8_t *b = p ? (uint8_t *)p - PCD_SIZED_HDR : NULL;
    size_t old = 0;
    if (b) memcpy(&old, b, sizeof old);
    uint8_t *q = pcd_alloc_resize(a, b, b ? old + PCD_SIZED_HDR : 0, n + PCD_SIZED_HDR);
    if (!q) return NULL;
    memcpy(q, &n, sizeof n);
    return q + PCD_SIZED_HDR;
}

void pcd_alloc_sized_free(pcd_alloc *a, void *p)
{
    if (!p) return;
    uint8_t *b = (uint8_t *)p - PCD_SIZED_HDR;
    size_t n;
    memcpy(&n, b, sizeof n);
    pcd_alloc_free(a, b, n + PCD_SIZED_HDR);
}

void pcd_alloc_free(pcd_alloc *a, void *p, size_t n)
{
    if (!p || !a || !a->fn) return;
    a->fn(a->ud, p, n, 0);
    a->in_use -= n;
}

struct pcd_arena_chunk {
    pcd_arena_chunk *next;
    size_t size;               /* whole allocation, header included */
    _Alignas(8) uint8_t data[];
};

void pcd_arena_init(pcd_arena *a, void *block, size_t size, pcd_alloc *al, size_t limit)
{
    uint8_t *b = block;
    size_t skip = (size_t)(-(uintptr_t)b & 7);
    if (!b || size < skip) size = skip = 0;
    a->first = a->p = b ? b + skip : NULL;
    a->first_end = a->end = b ? b + size : NULL;
    a->chunks = NULL;
    a->al = al;
    a->used = 0;
    a->limit = limit;
    a->base = a->first;
    a->base_end = a->first_end;
    a->base_chunk = NULL;
}

void *pcd_arena_alloc_slow(pcd_arena *a, size_t n)
{
    size_t r = (n + 7) & ~(size_t)7;
    if (r < n) return NULL;
    if (a->limit && (r > a->limit || a->used + r > a->limit)) return NULL;
    if ((size_t)(a->end - a->p) >= r) {
        void *q = a->p;
        a->p += r;
        a->used += r;
        return q;
    }
    if (!a->al) return NULL;
    size_t want = r + sizeof(pcd_arena_chunk);
    size_t last = a->chunks ? a->chunks->size : 4096;
    if (want < 2 * last) want = 2 * last;
    if (want < r) return NULL;
    pcd_arena_chunk *c = pcd_alloc_get(a->al, want);
    if (!c) {
        want = r + sizeof(pcd_arena_chunk);
        c = pcd_alloc_get(a->al, want);
        if (!c) return NULL;
    }
    c->size = want;
    c->next = a->chunks;
    a->chunks = c;
    a->p = c->data + r;
    a->end = (uint8_t *)c + want;
    a->used += r;
    return c->data;
}

void pcd_arena_reset_slow(pcd_arena *a)
{
    /* keep only the newest (largest) chunk so steady state needs no allocation */
    pcd_arena_chunk *keep = a->chunks;
    if (keep) {
        pcd_arena_chunk *c = keep->next;
        while (c) {
            pcd_arena_chunk *n = c->next;
            pcd_alloc_free(a->al, c, c->size);
            c = n;
        }
        keep->next = NULL;
        if ((size_t)((uint8_t *)keep + keep->size - keep->data) >=
            (size_t)(a->first_end - a->first)) {
            a->p = a->base = keep->data;
            a->end = a->base_end = (uint8_t *)keep + keep->size;
            a->base_chunk = keep;
            a->used = 0;
            return;
        }
        pcd_alloc_free(a->al, keep, keep->size);
        a->chunks = NULL;
    }
    a->p = a->base = a->first;
    a->end = a->base_end = a->first_end;
    a->base_chunk = NULL;
    a->used = 0;
}

void pcd_arena_free(pcd_arena *a)
{
    pcd_arena_chunk *c = a->chunks;
    while (c) {
        pcd_arena_chunk *n = c->next;
        pcd_alloc_free(a->al, c, c->size);
        c = n;
    }
    a->chunks = NULL;
    a->p = a->base = a->first;
    a->end = a->base_end = a->first_end;
    a->base_chunk = NULL;
    a->used = 0;
}
