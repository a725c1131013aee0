/* model/aggregate.h: the aggregated view of a profile: (thread, stack) -> summed values, in
 * the order each pair was first seen. Memory grows with the distinct pairs, not the samples. */
#ifndef PCD_MODEL_AGGREGATE_H
#define PCD_MODEL_AGGREGATE_H

#include "model/profile.h"

typedef struct pcd_agg_entry {
    pcd_thread_id thread;
    pcd_stack_id stack;
    uint64_t count;                /* samples */
} pcd_agg_entry;

typedef struct pcd_agg {
    pcd_alloc *al;
    size_t n_types;
    pcd_agg_entry *e;
    uint64_t *values;              /* n_types per entry: sums, saturating */
    size_t n, cap, vcap;
    uint32_t *idx;                 /* open addressing of entries: index + 1 */
    size_t idx_cap;
    size_t last;                   /* the entry of the previous sample (+1, 0 none) */
} pcd_agg;

void pcd_agg_init(pcd_agg *a, pcd_alloc *al, size_t n_types);
void pcd_agg_free(pcd_agg *a);
/* Adds count samples of `values` (one sample's values) to (thread, stack). */
pcd_status pcd_agg_add(pcd_agg *a, pcd_thread_id thread, pcd_stack_id stack, const uint64_t *values, uint64_t count);
PCD_INLINE pcd_status pcd_agg_sample(pcd_agg *a, const pcd_sample *s)
{
    return pcd_agg_add(a, s->thread, s->stack, s->values, s->count);
}
PCD_INLINE const uint64_t *pcd_agg_values(const pcd_agg *a, size_t i) { return a->values + i * a->n_types; }

/* v + w and v * n, held at 2^64-1 instead of wrapping. */
PCD_INLINE uint64_t pcd_sat_add(uint64_t v, uint64_t w) { return v + w < v ? UINT64_MAX : v + w; }
PCD_INLINE uint64_t pcd_sat_mul(uint64_t v, uint64_t n)
{
    uint64_t r;
    return __builtin_mul_overflow(v, n, &r) ? UINT64_MAX : r;
}

#endif
