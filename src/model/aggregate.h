/* model/aggregate.h: the aggregated view of a profile: (thread, stack) -> summed values, in
 * the order each pair was first seen. Memory grows with the distinct pairs, not the samples.
 *
 * Adding is a hash look-up, with two shortcuts that are array look-ups, inline: each thread
 * remembers the entry of its previous sample (threads interleave, but a thread's consecutive
 * samples mostly repeat a stack), and a direct-mapped cache by stack id the entries added to
 * last (a stack is mostly one thread's). Their memory is 4 bytes a thread and 8 to 16 bytes
 * an entry.
 *
 * Uniform values: while every sample added has had the same values (a sampling profiler's
 * samples: one interval and one sample each; Tachyon's), an entry's sums are those values
 * times its count, and an entry is its key and count alone, 16 bytes. The first sample whose
 * values differ writes every entry's sums out (8 bytes a type an entry, in a second array),
 * and from then on the sums are added. Read the sums with pcd_agg_value / pcd_agg_get. */
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
    bool mixed;                    /* the samples' values differed: the sums are in `values` */
    bool have_per;                 /* per[] holds the first sample's values (else 0s) */
    uint64_t per[PCD_MAX_SAMPLE_TYPES]; /* while !mixed: every sample's values */
    uint64_t *values;              /* once mixed: n_types per entry, sums, saturating (signed
                                    * types' as int64_t) */
    uint32_t signed_mask;          /* bit t: type t is signed (pcd_sample_type.is_signed) */
    size_t n, cap, vcap;
    uint32_t *idx;                 /* open addressing of entries: index + 1. Not a common/hmap.c
                                    * map, measured (issue 23): the hmap cost +1.09 %
                                    * instructions on Tachyon 9.4 MB -> collapsed, +0.39 % on
                                    * pprof 10 MB -> collapsed (callgrind), and 48 bytes a slot
                                    * against 4 for an index that grows with the entries */
    size_t idx_cap;
    uint32_t *last;                /* per thread id: the entry of its previous sample (+1, 0 none) */
    size_t last_cap;
    uint32_t *recent;              /* [pcd_agg_slot(stack)]: an entry of that stack added to last
                                    * (+1, 0 none; its stack may be another) */
    size_t recent_cap;             /* a power of two, at least the entries */
} pcd_agg;

void pcd_agg_init(pcd_agg *a, pcd_alloc *al, size_t n_types);
/* The same for the sample types of profile p (their number, and which are signed). */
void pcd_agg_init_types(pcd_agg *a, pcd_alloc *al, const pcd_profile *p);
void pcd_agg_free(pcd_agg *a);
/* v + w and v * n, held at 2^64-1 instead of wrapping. */
PCD_INLINE uint64_t pcd_sat_add(uint64_t v, uint64_t w) { return v + w < v ? UINT64_MAX : v + w; }
PCD_INLINE uint64_t pcd_sat_mul(uint64_t v, uint64_t n)
{
    uint64_t r;
    return __builtin_mul_overflow(v, n, &r) ? UINT64_MAX : r;
}

/* The same for int64_t values in uint64_t slots: held at -2^63 and 2^63-1. */
PCD_INLINE uint64_t pcd_sat_add_i(uint64_t v, uint64_t w)
{
    int64_t r;
    if (__builtin_add_overflow((int64_t)v, (int64_t)w, &r)) r = (int64_t)w < 0 ? INT64_MIN : INT64_MAX;
    return (uint64_t)r;
}
PCD_INLINE uint64_t pcd_sat_mul_i(uint64_t v, uint64_t n)
{
    int64_t r;
    if (n > (uint64_t)INT64_MAX || __builtin_mul_overflow((int64_t)v, (int64_t)n, &r))
        r = (int64_t)v < 0 ? INT64_MIN : (int64_t)v > 0 ? INT64_MAX : 0;
    return (uint64_t)r;
}

/* Adds count samples of signed and unsigned types to v (the slow path of pcd_agg_add_to). */
void pcd_agg_add_mixed(const pcd_agg *a, uint64_t *v, const uint64_t *values, uint64_t count);

/* Writes every entry's sums out (the values differ from now on). */
pcd_status pcd_agg_mix(pcd_agg *a);
/* pcd_agg_mix, then adds count samples of `values` to entry k (out of line: the inline add
 * stays small where it is inlined). */
pcd_status pcd_agg_add_mix(pcd_agg *a, size_t k, const uint64_t *values, uint64_t count);

/* Adds count samples of `values` (one sample's values) to entry k. */
PCD_INLINE pcd_status pcd_agg_add_to(pcd_agg *a, size_t k, const uint64_t *values, uint64_t count)
{
    if (PCD_LIKELY(!a->mixed)) {
        size_t t = 0;
        while (t < a->n_types && values[t] == a->per[t]) t++;
        bool same = t == a->n_types;
        uint64_t c;
        /* (a count that would wrap: its sums are written out first, as the mixed add keeps them) */
        if (PCD_LIKELY(same && !__builtin_add_overflow(a->e[k].count, count, &c))) {
            a->e[k].count = c;
            return PCD_OK;
        }
        return pcd_agg_add_mix(a, k, values, count);
    }
    a->e[k].count += count;
    uint64_t *v = a->values + k * a->n_types;
    if (PCD_UNLIKELY(a->signed_mask)) {
        pcd_agg_add_mixed(a, v, values, count);
    } else if (PCD_LIKELY(count == 1)) {
        for (size_t t = 0; t < a->n_types; t++) v[t] = pcd_sat_add(v[t], values[t]);
    } else {
        for (size_t t = 0; t < a->n_types; t++) v[t] = pcd_sat_add(v[t], pcd_sat_mul(values[t], count));
    }
    return PCD_OK;
}

PCD_INLINE size_t pcd_agg_slot(const pcd_agg *a, pcd_stack_id stack)
{
    /* the id itself: stacks made about the same time have near ids and are sampled about the
     * same time, so that the slots in use stay close together */
    return stack & (a->recent_cap - 1);
}

/* The same as pcd_agg_add, without the shortcuts. */
pcd_status pcd_agg_add_slow(pcd_agg *a, pcd_thread_id thread, pcd_stack_id stack, const uint64_t *values, uint64_t count);

/* Adds count samples of `values` (one sample's values) to (thread, stack). */
PCD_INLINE pcd_status pcd_agg_add(pcd_agg *a, pcd_thread_id thread, pcd_stack_id stack, const uint64_t *values,
                                  uint64_t count)
{
    if (PCD_LIKELY(thread < a->last_cap)) {
        uint32_t k = a->last[thread];
        if (PCD_LIKELY(k && a->e[k - 1].stack == stack)) return pcd_agg_add_to(a, k - 1, values, count);
        k = a->recent[pcd_agg_slot(a, stack)];
        if (k && a->e[k - 1].thread == thread && a->e[k - 1].stack == stack) {
            a->last[thread] = k;
            return pcd_agg_add_to(a, k - 1, values, count);
        }
    }
    return pcd_agg_add_slow(a, thread, stack, values, count);
}
PCD_INLINE pcd_status pcd_agg_sample(pcd_agg *a, const pcd_sample *s)
{
    return pcd_agg_add(a, s->thread, s->stack, s->values, s->count);
}
/* Entry i's sum of type t. */
PCD_INLINE uint64_t pcd_agg_value(const pcd_agg *a, size_t i, size_t t)
{
    if (a->mixed) return a->values[i * a->n_types + t];
    return (a->signed_mask >> t & 1) ? pcd_sat_mul_i(a->per[t], a->e[i].count) : pcd_sat_mul(a->per[t], a->e[i].count);
}
/* Entry i's sums, n_types of them, into out. */
PCD_INLINE void pcd_agg_get(const pcd_agg *a, size_t i, uint64_t *out)
{
    for (size_t t = 0; t < a->n_types; t++) out[t] = pcd_agg_value(a, i, t);
}

#endif
