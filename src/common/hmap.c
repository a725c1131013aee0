/* common/hmap.c: linear probing, power-of-two capacity, grows at 70% load. */
#include "common/hmap.h"

#include <string.h>

static uint64_t mix(pcd_hkey k)
{
    uint64_t h = k.a * UINT64_C(0x9E3779B97F4A7C15);
    h ^= (k.b + UINT64_C(0xBF58476D1CE4E5B9)) * UINT64_C(0x94D049BB133111EB);
    h ^= (k.c + UINT64_C(0x2545F4914F6CDD1D)) * UINT64_C(0xD6E8FEB86659FD93);
    return h ^ (h >> 31);
}

void pcd_hmap_init(pcd_hmap *m, pcd_alloc *al)
{
    memset(m, 0, sizeof *m);
    m->al = al;
}

void pcd_hmap_free(pcd_hmap *m)
{
    pcd_alloc *al = m->al;
    if (m->slots) pcd_alloc_free(al, m->slots, m->cap * sizeof *m->slots);
    memset(m, 0, sizeof *m);
    m->al = al;
}

static bool keq(pcd_hkey x, pcd_hkey y) { return x.a == y.a && x.b == y.b && x.c == y.c; }

pcd_hslot *pcd_hmap_get(const pcd_hmap *m, pcd_hkey k)
{
    if (!m->cap) return NULL;
    for (size_t i = mix(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->slots[i].used) return NULL;
        if (keq(m->slots[i].k, k)) return &m->slots[i];
    }
}

pcd_hslot *pcd_hmap_put(pcd_hmap *m, pcd_hkey k, bool *fresh)
{
    if ((m->len + 1) * 10 > m->cap * 7) {
        size_t ncap = m->cap ? m->cap * 2 : 64;
        if (ncap > SIZE_MAX / sizeof(pcd_hslot)) return NULL;
        pcd_hslot *ns = pcd_alloc_get(m->al, ncap * sizeof *ns);
        if (!ns) return NULL;
        memset(ns, 0, ncap * sizeof *ns);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->slots[i].used) continue;
            size_t j = mix(m->slots[i].k) & (ncap - 1);
            while (ns[j].used) j = (j + 1) & (ncap - 1);
            ns[j] = m->slots[i];
        }
        if (m->slots) pcd_alloc_free(m->al, m->slots, m->cap * sizeof *m->slots);
        m->slots = ns;
        m->cap = ncap;
    }
    size_t i = mix(k) & (m->cap - 1);
    while (m->slots[i].used) {
        if (keq(m->slots[i].k, k)) {
            *fresh = false;
            return &m->slots[i];
        }
        i = (i + 1) & (m->cap - 1);
    }
    memset(&m->slots[i], 0, sizeof m->slots[i]);
    m->slots[i].k = k;
    m->slots[i].used = true;
    m->len++;
    *fresh = true;
    return &m->slots[i];
}
