/* test_aggregate.c: the aggregate (model/aggregate.c) against a plain reference: every
 * (thread, stack) pair's count and sums, added sample by sample with the saturating rules
 * (unsigned held at 2^64-1, signed at -2^63 and 2^63-1), in the order the pairs came.
 *  - uniform values (every sample the same values): the sums are values x count, and the
 *    first sample with other values writes them out, after thousands of entries (the second
 *    array grown at once) or at the very first entries, also after samples of 0s;
 *  - 1, 2, 3 and 16 types, signed and unsigned, counts of 1 and more, values that saturate;
 *  - a count that would wrap (2^64 samples): the sums stay those of the sample-by-sample add. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "model/aggregate.h"

#define MAX_E 20000

typedef struct ref {
    size_t n, n_types;
    uint32_t signed_mask;
    pcd_thread_id th[MAX_E];
    pcd_stack_id st[MAX_E];
    uint64_t count[MAX_E];
    uint64_t v[MAX_E][PCD_MAX_SAMPLE_TYPES];
    uint32_t stacks;
    uint32_t at[MAX_E];            /* thread * stacks + stack -> entry + 1 */
} ref;

static void ref_add(ref *r, pcd_thread_id th, pcd_stack_id st, const uint64_t *values, uint64_t count)
{
    uint32_t *at = &r->at[th * r->stacks + st];
    size_t k = *at ? *at - 1 : r->n;
    if (k == r->n) {
        assert_true(r->n < MAX_E);
        *at = (uint32_t)k + 1;
        r->th[k] = th;
        r->st[k] = st;
        r->count[k] = 0;
        memset(r->v[k], 0, sizeof r->v[k]);
        r->n++;
    }
    r->count[k] += count;
    for (size_t t = 0; t < r->n_types; t++) {
        bool sg = r->signed_mask >> t & 1;
        uint64_t x = count == 1 ? values[t] : sg ? pcd_sat_mul_i(values[t], count) : pcd_sat_mul(values[t], count);
        r->v[k][t] = sg ? pcd_sat_add_i(r->v[k][t], x) : pcd_sat_add(r->v[k][t], x);
    }
}

static void check_same(const pcd_agg *a, const ref *r)
{
    assert_int_equal(a->n, r->n);
    uint64_t out[PCD_MAX_SAMPLE_TYPES];
    for (size_t k = 0; k < r->n; k++) {
        assert_int_equal(a->e[k].thread, r->th[k]);
        assert_int_equal(a->e[k].stack, r->st[k]);
        assert_int_equal(a->e[k].count, r->count[k]);
        pcd_agg_get(a, k, out);
        for (size_t t = 0; t < r->n_types; t++) {
            assert_int_equal(pcd_agg_value(a, k, t), r->v[k][t]);
            assert_int_equal(out[t], r->v[k][t]);
        }
    }
}

static uint64_t rnd_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* n samples over `threads` threads and `stacks` stacks; the values the same for the first
 * `uniform` samples (base), then random; counts 1 mostly, sometimes more. */
static void run(size_t n_types, uint32_t signed_mask, const uint64_t *base, size_t n, size_t uniform, uint32_t threads,
                uint32_t stacks, bool big)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_agg a;
    pcd_agg_init(&a, &al, n_types);
    a.signed_mask = signed_mask;
    static ref r;
    memset(&r, 0, sizeof r);
    r.n_types = n_types;
    r.signed_mask = signed_mask;
    r.stacks = stacks;
    assert_true((size_t)threads * stacks <= MAX_E);
    uint64_t v[PCD_MAX_SAMPLE_TYPES];
    pcd_thread_id th = 0;
    pcd_stack_id st = 0;
    for (size_t i = 0; i < n; i++) {
        /* a thread's samples mostly repeat its stack (the aggregate's shortcuts) */
        if (rnd() % 4 == 0) th = (pcd_thread_id)(rnd() % threads);
        if (rnd() % 3 == 0) st = (pcd_stack_id)(rnd() % stacks);
        for (size_t t = 0; t < n_types; t++) {
            if (i < uniform) v[t] = base[t];
            else if (big) v[t] = rnd() % 2 ? rnd() : (uint64_t)INT64_MAX - rnd() % 8;
            else v[t] = rnd() % 1000 - (signed_mask >> t & 1 ? 500 : 0);
        }
        uint64_t count = rnd() % 8 == 0 ? 1 + rnd() % 100 : 1;
        if (big && rnd() % 16 == 0) count = UINT64_MAX / 2 + rnd() % 1000;
        assert_int_equal(pcd_agg_add(&a, th, st, v, count), PCD_OK);
        ref_add(&r, th, st, v, count);
    }
    check_same(&a, &r);
    assert_int_equal(a.mixed, uniform < n);
    pcd_agg_free(&a);
    assert_int_equal(al.in_use, 0);
}

static void uniform_then_mixed(void **state)
{
    (void)state;
    static const uint64_t two[2] = { 1000, 1 }, one[1] = { 7 }, three[3] = { 5, 0, 9 };
    uint64_t sixteen[PCD_MAX_SAMPLE_TYPES];
    for (int t = 0; t < PCD_MAX_SAMPLE_TYPES; t++) sixteen[t] = (uint64_t)t * 3;
    /* all uniform; the change after thousands of entries; at once; after one */
    run(2, 0, two, 40000, 40000, 4, 5000, false);
    run(2, 0, two, 40000, 30000, 4, 5000, false);
    run(2, 0, two, 2000, 0, 3, 300, false);
    run(2, 0, two, 2000, 1, 3, 300, false);
    run(1, 0, one, 20000, 15000, 2, 2000, false);
    run(3, 0, three, 20000, 15000, 5, 1000, false);
    run(PCD_MAX_SAMPLE_TYPES, 0, sixteen, 5000, 4000, 3, 500, false);
    /* samples of 0s first (counted against the 0s the aggregate starts with), then others */
    static const uint64_t zeros[2] = { 0, 0 };
    run(2, 0, zeros, 5000, 100, 3, 300, false);
    run(2, 1, zeros, 5000, 1, 3, 300, false);
}

static void signed_and_saturating(void **state)
{
    (void)state;
    /* negative uniform values of a signed type, then values of both signs */
    const uint64_t neg[2] = { (uint64_t)-4096, 1 };
    run(2, 1, neg, 30000, 20000, 4, 3000, false);
    run(2, 3, neg, 30000, 20000, 4, 3000, false);
    /* values and counts that saturate, uniform first */
    const uint64_t huge[2] = { UINT64_MAX / 3, (uint64_t)INT64_MAX / 5 };
    run(2, 0, huge, 10000, 8000, 2, 500, true);
    run(2, 2, huge, 10000, 8000, 2, 500, true);
    const uint64_t hneg[2] = { (uint64_t)(INT64_MIN / 7), 3 };
    run(2, 1, hneg, 10000, 9000, 2, 500, true);
}

static void count_that_wraps(void **state)
{
    (void)state;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_agg a;
    pcd_agg_init(&a, &al, 2);
    const uint64_t v[2] = { 3, 1 };
    assert_int_equal(pcd_agg_add(&a, 0, 1, v, UINT64_MAX - 1), PCD_OK);
    assert_false(a.mixed);
    assert_int_equal(pcd_agg_value(&a, 0, 0), UINT64_MAX);
    assert_int_equal(pcd_agg_value(&a, 0, 1), UINT64_MAX - 1);
    /* the count wraps (as the add always kept it); the sums stay saturated */
    assert_int_equal(pcd_agg_add(&a, 0, 1, v, 5), PCD_OK);
    assert_true(a.mixed);
    assert_int_equal(a.e[0].count, 3);
    assert_int_equal(pcd_agg_value(&a, 0, 0), UINT64_MAX);
    assert_int_equal(pcd_agg_value(&a, 0, 1), UINT64_MAX);
    pcd_agg_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uniform_then_mixed),
        cmocka_unit_test(signed_and_saturating),
        cmocka_unit_test(count_that_wraps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
