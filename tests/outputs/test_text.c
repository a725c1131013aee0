/* test_text.c: the number writers every text output uses (src/common/text.c) against printf,
 * at every length and at the edges, through a sink with and without room; and the table
 * keys' hash and equality (src/common/hash.h) on bytes of every length. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/hash.h"
#include "common/text.h"

static uint64_t rng = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A value of about `bits` bits (every digit count comes up). */
static uint64_t sized(unsigned bits) { return bits >= 64 ? rnd() : rnd() & ((UINT64_C(1) << bits) - 1); }

static void check_u64(uint64_t v)
{
    char want[32], got[32];
    snprintf(want, sizeof want, "%" PRIu64, v);
    size_t n = pcd_text_u64_digits(got, v);
    got[n] = 0;
    assert_string_equal(got, want);
}

static void check_i64(int64_t v)
{
    char want[32], got[32];
    snprintf(want, sizeof want, "%" PRId64, v);
    size_t n = pcd_text_i64_digits(got, v);
    got[n] = 0;
    assert_string_equal(got, want);
}

static void test_digits(void **state)
{
    (void)state;
    static const uint64_t edges[] = { 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 9999, 10000, 99999, 100000,
                                      4294967295u, 4294967296u, UINT64_C(9999999999999999999),
                                      UINT64_C(10000000000000000000), UINT64_MAX, UINT64_MAX - 1,
                                      (uint64_t)INT64_MAX, (uint64_t)INT64_MAX + 1 };
    for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++) {
        check_u64(edges[i]);
        check_i64((int64_t)edges[i]);
        check_i64(-(int64_t)(edges[i] & (uint64_t)INT64_MAX));
    }
    check_i64(INT64_MIN);
    uint64_t p = 1;
    for (int k = 0; k < 20; k++, p *= 10) {
        check_u64(p - 1);
        check_u64(p);
        check_u64(p + 1);
    }
    for (int i = 0; i < 200000; i++) {
        uint64_t v = sized((unsigned)(rnd() % 65));
        check_u64(v);
        check_i64((int64_t)v);
    }
}

/* pcd_text_u64 / _i64 into a sink: straight into its buffer when there is room, through
 * pcd_sink_put near its end; the bytes are the same either way. */
static uint8_t flushed[1 << 16];
static size_t n_flushed;
static pcd_status to_mem(void *ud, const uint8_t *p, size_t n)
{
    (void)ud;
    assert_true(n_flushed + n <= sizeof flushed);
    memcpy(flushed + n_flushed, p, n);
    n_flushed += n;
    return PCD_OK;
}

static void test_sink(void **state)
{
    (void)state;
    char want[1 << 16];
    size_t wn = 0;
    uint8_t buf[37]; /* small and odd: every number meets the end of the buffer somewhere */
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, to_mem, NULL, NULL, &x);
    n_flushed = 0;
    for (int i = 0; i < 2000; i++) {
        uint64_t v = sized((unsigned)(rnd() % 65));
        if (i % 2) {
            assert_int_equal(pcd_text_u64(&s, v), PCD_OK);
            wn += (size_t)snprintf(want + wn, sizeof want - wn, "%" PRIu64 ",", v);
        } else {
            assert_int_equal(pcd_text_i64(&s, (int64_t)v), PCD_OK);
            wn += (size_t)snprintf(want + wn, sizeof want - wn, "%" PRId64 ",", (int64_t)v);
        }
        assert_int_equal(pcd_sink_put(&s, ",", 1), PCD_OK);
    }
    assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    assert_int_equal(n_flushed, wn);
    assert_memory_equal(flushed, want, wn);
}

/* pcd_key_equal is memcmp's answer at every length (the words it compares overlap), and
 * pcd_hash_key gives equal bytes equal hashes and tells one changed byte apart. */
static void test_keys(void **state)
{
    (void)state;
    uint8_t a[80], b[80];
    for (size_t n = 0; n <= 64; n++) {
        for (int t = 0; t < 300; t++) {
            for (size_t i = 0; i < n; i++) a[i] = b[i] = (uint8_t)rnd();
            assert_true(pcd_key_equal(a, b, n));
            assert_true(pcd_hash_key(a, n) == pcd_hash_key(b, n));
            if (!n) continue;
            size_t at = (size_t)(rnd() % n);
            b[at] ^= (uint8_t)(1u << (rnd() % 8));
            assert_false(pcd_key_equal(a, b, n));
            assert_true(pcd_key_equal(a, b, n) == (memcmp(a, b, n) == 0));
        }
    }
    /* the length is part of the key: "a" and "a\0" differ */
    memset(a, 0, sizeof a);
    a[0] = 'a';
    assert_true(pcd_hash_key(a, 1) != pcd_hash_key(a, 2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digits),
        cmocka_unit_test(test_sink),
        cmocka_unit_test(test_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
