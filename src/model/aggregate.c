/* model/aggregate.c: (thread, stack) -> values, by open addressing; the shortcuts (each
 * thread's previous entry, recent entries by stack) are inline in aggregate.h. */
#include "model/aggregate.h"

#include "common/hash.h"
#include "common/vec.h"

void pcd_agg_init(pcd_agg *a, pcd_alloc *al, size_t n_types)
{
    memset(a, 0, sizeof *a);
    a->al = al;
    a->n_types = n_types ? n_types : 1;
    a->mixed = a->n_types > PCD_MAX_SAMPLE_TYPES; /* (no room in per[]: summed from the start) */
}

void pcd_agg_init_types(pcd_agg *a, pcd_alloc *al, const pcd_profile *p)
{
    pcd_agg_init(a, al, p->n_types);
    a->signed_mask = p->signed_types;
}

void pcd_agg_add_mixed(const pcd_agg *a, uint64_t *v, const uint64_t *values, uint64_t count)
{
    for (size_t t = 0; t < a->n_types; t++)
        v[t] = (a->signed_mask >> t & 1) ? pcd_sat_add_i(v[t], count == 1 ? values[t] : pcd_sat_mul_i(values[t], count))
                                         : pcd_sat_add(v[t], count == 1 ? values[t] : pcd_sat_mul(values[t], count));
}

void pcd_agg_free(pcd_agg *a)
{
    PCD_VEC_FREE(a->al, a->e, a->cap);
    PCD_VEC_FREE(a->al, a->values, a->vcap);
    PCD_VEC_FREE(a->al, a->idx, a->idx_cap);
    PCD_VEC_FREE(a->al, a->last, a->last_cap);
    PCD_VEC_FREE(a->al, a->recent, a->recent_cap);
}

pcd_status pcd_agg_mix(pcd_agg *a)
{
    if (a->mixed) return PCD_OK;
    size_t nt = a->n_types;
    if (a->cap > SIZE_MAX / sizeof *a->values / nt) return PCD_E_NOMEM;
    PCD_TRY(PCD_VEC_RESERVE(a->al, a->values, a->vcap, (a->cap ? a->cap : 1) * nt));
    for (size_t i = 0; i < a->n; i++)
        for (size_t t = 0; t < nt; t++) a->values[i * nt + t] = pcd_agg_value(a, i, t);
    a->mixed = true;
    return PCD_OK;
}

pcd_status pcd_agg_add_mix(pcd_agg *a, size_t k, const uint64_t *values, uint64_t count)
{
    if (!a->have_per && a->n == 1 && a->e[0].count == 0) {
        /* the first sample (nothing counted yet): its values are the ones the others are
         * compared with (while they were 0s, samples of 0s were counted against them) */
        memcpy(a->per, values, a->n_types * sizeof *values);
        a->have_per = true;
        a->e[k].count = count; /* (k is 0) */
        return PCD_OK;
    }
    PCD_TRY(pcd_agg_mix(a));
    return pcd_agg_add_to(a, k, values, count);
}

static uint64_t key_hash(pcd_thread_id t, pcd_stack_id s) { return pcd_hash2(t, s); }

static pcd_status rehash(pcd_agg *a)
{
    size_t ncap = a->idx_cap ? a->idx_cap * 2 : 1024;
    uint32_t *q = pcd_alloc_get(a->al, ncap * sizeof *q);
    if (!q) return PCD_E_NOMEM;
    memset(q, 0, ncap * sizeof *q);
    for (size_t i = 0; i < a->n; i++) {
        size_t j = key_hash(a->e[i].thread, a->e[i].stack) & (ncap - 1);
        while (q[j]) j = (j + 1) & (ncap - 1);
        q[j] = (uint32_t)i + 1;
    }
    PCD_VEC_FREE(a->al, a->idx, a->idx_cap);
    a->idx = q;
    a->idx_cap = ncap;
    return PCD_OK;
}

/* A larger cache of recent entries by stack, filled from the entries (the later ones win). */
static pcd_status grow_recent(pcd_agg *a)
{
    size_t ncap = a->recent_cap ? a->recent_cap * 2 : 1024;
    uint32_t *r = pcd_alloc_get(a->al, ncap * sizeof *r);
    if (!r) return PCD_E_NOMEM;
    memset(r, 0, ncap * sizeof *r);
    PCD_VEC_FREE(a->al, a->recent, a->recent_cap);
    a->recent = r;
    a->recent_cap = ncap;
    for (size_t i = 0; i < a->n; i++) a->recent[pcd_agg_slot(a, a->e[i].stack)] = (uint32_t)i + 1;
    return PCD_OK;
}

pcd_status pcd_agg_add_slow(pcd_agg *a, pcd_thread_id thread, pcd_stack_id stack, const uint64_t *values, uint64_t count)
{
    if (PCD_UNLIKELY(a->n + 1 > a->recent_cap)) PCD_TRY(grow_recent(a));
    if (PCD_UNLIKELY(thread >= a->last_cap)) {
        size_t old = a->last_cap;
        PCD_TRY(PCD_VEC_RESERVE(a->al, a->last, a->last_cap, (size_t)thread + 1));
        memset(a->last + old, 0, (a->last_cap - old) * sizeof *a->last);
    }
    if ((a->n + 1) * 2 > a->idx_cap) PCD_TRY(rehash(a));
    size_t mask = a->idx_cap - 1, i = key_hash(thread, stack) & mask;
    for (;; i = (i + 1) & mask) {
        uint32_t v = a->idx[i];
        if (!v) break;
        if (a->e[v - 1].thread == thread && a->e[v - 1].stack == stack) break;
    }
    size_t k;
    if (a->idx[i]) {
        k = a->idx[i] - 1;
    } else {
        if (a->n >= UINT32_MAX - 1 || PCD_VEC_RESERVE(a->al, a->e, a->cap, a->n + 1) != PCD_OK ||
            (a->mixed && PCD_VEC_RESERVE(a->al, a->values, a->vcap, (a->n + 1) * a->n_types) != PCD_OK))
            return PCD_E_NOMEM;
        k = a->n++;
        a->e[k] = (pcd_agg_entry){ .thread = thread, .stack = stack };
        if (a->mixed)
            for (size_t t = 0; t < a->n_types; t++) a->values[k * a->n_types + t] = 0;
        a->idx[i] = (uint32_t)k + 1;
    }
    a->last[thread] = a->recent[pcd_agg_slot(a, stack)] = (uint32_t)k + 1;
    return pcd_agg_add_to(a, k, values, count);
}
