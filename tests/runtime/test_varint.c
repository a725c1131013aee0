/* test_varint.c: table-driven vectors for the four varint kinds, both directions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pcd.h"

typedef struct vcase {
    const char *name;
    uint8_t in[12];
    size_t len;
    pcd_status want;
    uint64_t value;      /* unsigned result, or two's complement of the signed one */
    bool neg;            /* MOJO sign flag */
    size_t used;         /* bytes consumed */
} vcase;

static pcd_status run_uleb(const vcase *t, uint64_t *v, size_t *used, pcd_ctx *x)
{
    pcd_cursor c = pcd_cursor_make(x, t->in, t->len, 0, true);
    pcd_status s = pcd_read_uleb128(&c, v, "v");
    *used = (size_t)(c.p - t->in);
    return s;
}

static const vcase uleb_cases[] = {
    { "zero", { 0x00 }, 1, PCD_OK, 0, false, 1 },
    { "one byte max", { 0x7f }, 1, PCD_OK, 127, false, 1 },
    { "two bytes", { 0x80, 0x01 }, 2, PCD_OK, 128, false, 2 },
    { "300", { 0xac, 0x02 }, 2, PCD_OK, 300, false, 2 },
    { "non-minimal zero", { 0x80, 0x00 }, 2, PCD_OK, 0, false, 2 },
    { "u64 max", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, PCD_OK, UINT64_MAX, false, 10 },
    { "65 bits", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02 }, 10, PCD_E_OVERFLOW, 0, false, 0 },
    { "11 bytes", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 11, PCD_E_OVERFLOW, 0, false, 0 },
    { "truncated", { 0x80, 0x80 }, 2, PCD_E_TRUNCATED, 0, false, 0 },
    { "empty", { 0 }, 0, PCD_E_TRUNCATED, 0, false, 0 },
};

static void test_uleb128(void **state)
{
    (void)state;
    for (size_t i = 0; i < PCD_COUNTOF(uleb_cases); i++) {
        const vcase *t = &uleb_cases[i];
        pcd_ctx x;
        pcd_ctx_init(&x, NULL);
        uint64_t v = 12345;
        size_t used;
        print_message("uleb128: %s\n", t->name);
        assert_int_equal(run_uleb(t, &v, &used, &x), t->want);
        assert_int_equal(used, t->used);
        if (t->want == PCD_OK) {
            assert_true(v == t->value);
            /* and back: minimal encodings come out identical */
            uint8_t out[PCD_VARINT_MAX];
            size_t n = pcd_enc_uleb128(out, v);
            assert_int_equal(n, pcd_size_uleb128(v));
            if (!(t->len == 2 && t->in[0] == 0x80 && t->in[1] == 0)) {
                assert_int_equal(n, t->len);
                assert_memory_equal(out, t->in, n);
            }
        } else {
            assert_int_equal(x.err.status, t->want);
            assert_int_equal(x.err.offset, 0);
        }
    }
}

static void test_uleb128_open_input(void **state)
{
    (void)state;
    /* on open input a cut varint is a short read, and nothing is consumed */
    static const uint8_t in[] = { 0x80, 0x80 };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_cursor c = pcd_cursor_make(&x, in, sizeof in, 0, false);
    uint64_t v;
    assert_int_equal(pcd_read_uleb128(&c, &v, "v"), PCD_SHORT_READ);
    assert_ptr_equal(c.p, in);
}

static const vcase sleb_cases[] = {
    { "zero", { 0x00 }, 1, PCD_OK, 0, false, 1 },
    { "-1", { 0x7f }, 1, PCD_OK, (uint64_t)-1, false, 1 },
    { "63", { 0x3f }, 1, PCD_OK, 63, false, 1 },
    { "64", { 0xc0, 0x00 }, 2, PCD_OK, 64, false, 2 },
    { "-64", { 0x40 }, 1, PCD_OK, (uint64_t)-64, false, 1 },
    { "-65", { 0xbf, 0x7f }, 2, PCD_OK, (uint64_t)-65, false, 2 },
    { "-123456", { 0xc0, 0xbb, 0x78 }, 3, PCD_OK, (uint64_t)-123456, false, 3 },
    { "i64 min", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f }, 10, PCD_OK, (uint64_t)INT64_MIN, false, 10 },
    { "i64 max", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 }, 10, PCD_OK, (uint64_t)INT64_MAX, false, 10 },
    { "bad 10th byte", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, PCD_E_OVERFLOW, 0, false, 0 },
    { "truncated", { 0xff }, 1, PCD_E_TRUNCATED, 0, false, 0 },
};

static void test_sleb128(void **state)
{
    (void)state;
    for (size_t i = 0; i < PCD_COUNTOF(sleb_cases); i++) {
        const vcase *t = &sleb_cases[i];
        pcd_ctx x;
        pcd_ctx_init(&x, NULL);
        pcd_cursor c = pcd_cursor_make(&x, t->in, t->len, 0, true);
        int64_t v;
        print_message("sleb128: %s\n", t->name);
        assert_int_equal(pcd_read_sleb128(&c, &v, "v"), t->want);
        if (t->want == PCD_OK) {
            assert_true((uint64_t)v == t->value);
            assert_int_equal((size_t)(c.p - t->in), t->used);
            uint8_t out[PCD_VARINT_MAX];
            size_t n = pcd_enc_sleb128(out, v);
            assert_int_equal(n, t->len);
            assert_memory_equal(out, t->in, n);
        }
    }
}

static void test_zigzag(void **state)
{
    (void)state;
    static const struct { int64_t v; uint64_t z; } z64[] = {
        { 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 2, 4 }, { INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX },
    };
    for (size_t i = 0; i < PCD_COUNTOF(z64); i++) {
        assert_true(pcd_zigzag64(z64[i].v) == z64[i].z);
        assert_true(pcd_unzigzag64(z64[i].z) == z64[i].v);
    }
    static const struct { int32_t v; uint32_t z; } z32[] = {
        { 0, 0 }, { -1, 1 }, { 1, 2 }, { INT32_MAX, UINT32_MAX - 1 }, { INT32_MIN, UINT32_MAX },
    };
    for (size_t i = 0; i < PCD_COUNTOF(z32); i++) {
        assert_true(pcd_zigzag32(z32[i].v) == z32[i].z);
        assert_true(pcd_unzigzag32(z32[i].z) == z32[i].v);
    }
    /* a zigzag32 whose LEB128 exceeds 32 bits is an overflow at the field start */
    static const uint8_t big[] = { 0x80, 0x80, 0x80, 0x80, 0x10 };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_cursor c = pcd_cursor_make(&x, big, sizeof big, 100, true);
    int32_t v;
    assert_int_equal(pcd_read_zigzag32(&c, &v, "lineno"), PCD_E_OVERFLOW);
    assert_int_equal(x.err.offset, 100);
    assert_ptr_equal(c.p, big);
    /* -1 is one byte */
    static const uint8_t m1[] = { 0x01 };
    c = pcd_cursor_make(&x, m1, 1, 0, true);
    assert_int_equal(pcd_read_zigzag32(&c, &v, "lineno"), PCD_OK);
    assert_int_equal(v, -1);
}

static const vcase mojo_cases[] = {
    { "zero", { 0x00 }, 1, PCD_OK, 0, false, 1 },
    { "negative zero", { 0x40 }, 1, PCD_OK, 0, true, 1 },
    { "63", { 0x3f }, 1, PCD_OK, 63, false, 1 },
    { "64", { 0x80, 0x01 }, 2, PCD_OK, 64, false, 2 },
    { "spec: C3 02 = -131", { 0xc3, 0x02 }, 2, PCD_OK, 131, true, 2 },
    { "2^64-1", { 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03 }, 10, PCD_OK, UINT64_MAX, false, 10 },
    { "10th byte too big", { 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x04 }, 10, PCD_E_OVERFLOW, 0, false, 0 },
    { "11 bytes", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 11, PCD_E_OVERFLOW, 0, false, 0 },
    { "truncated", { 0x80 }, 1, PCD_E_TRUNCATED, 0, false, 0 },
};

static void test_mojo(void **state)
{
    (void)state;
    for (size_t i = 0; i < PCD_COUNTOF(mojo_cases); i++) {
        const vcase *t = &mojo_cases[i];
        pcd_ctx x;
        pcd_ctx_init(&x, NULL);
        pcd_cursor c = pcd_cursor_make(&x, t->in, t->len, 0, true);
        uint64_t mag;
        bool neg;
        print_message("mojo: %s\n", t->name);
        assert_int_equal(pcd_read_mojo(&c, &mag, &neg, "v"), t->want);
        if (t->want == PCD_OK) {
            assert_true(mag == t->value);
            assert_int_equal(neg, t->neg);
            assert_int_equal((size_t)(c.p - t->in), t->used);
            uint8_t out[PCD_VARINT_MAX];
            size_t n = pcd_enc_mojo(out, mag, neg);
            assert_int_equal(n, t->len);
            assert_int_equal(n, pcd_size_mojo(mag));
            assert_memory_equal(out, t->in, n);
        } else {
            assert_int_equal(x.err.status, t->want);
            assert_ptr_equal(c.p, t->in);
        }
    }
}

static void test_roundtrip_many(void **state)
{
    (void)state;
    /* every power of two and its neighbours through every encoder and decoder */
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    for (int b = 0; b < 64; b++) {
        for (int d = -1; d <= 1; d++) {
            uint64_t u = (UINT64_C(1) << b) + (uint64_t)d;
            uint8_t buf[PCD_VARINT_MAX];
            size_t n = pcd_enc_uleb128(buf, u);
            pcd_cursor c = pcd_cursor_make(&x, buf, n, 0, true);
            uint64_t v;
            assert_int_equal(pcd_read_uleb128(&c, &v, "u"), PCD_OK);
            assert_true(v == u);
            int64_t s = (int64_t)u, sv;
            n = pcd_enc_sleb128(buf, s);
            c = pcd_cursor_make(&x, buf, n, 0, true);
            assert_int_equal(pcd_read_sleb128(&c, &sv, "s"), PCD_OK);
            assert_true(sv == s);
            n = pcd_enc_mojo(buf, u, b & 1);
            c = pcd_cursor_make(&x, buf, n, 0, true);
            bool neg;
            assert_int_equal(pcd_read_mojo(&c, &v, &neg, "m"), PCD_OK);
            assert_true(v == u);
            assert_int_equal(neg, b & 1);
        }
    }
}

/* The inline paths (one, two and (signed) three bytes, 3-8 bytes without a branch per byte, the skips
 * validation uses) against the slow paths, which read byte by byte: random varints of 1 to
 * 11 bytes, in windows of every size around them, with random continuation bits. */
static void test_fast_paths_agree(void **state)
{
    (void)state;
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    uint64_t seed = 0x9E3779B97F4A7C15u;
    for (int it = 0; it < 200000; it++) {
        uint8_t buf[24];
        for (int i = 0; i < 24; i++) {
            seed = seed * 6364136223846793005u + 1442695040888963407u;
            buf[i] = (uint8_t)(seed >> 56);
        }
        int len = 1 + (int)((seed >> 20) % 11);
        for (int i = 0; i < len - 1; i++) buf[i] |= 0x80;
        buf[len - 1] &= 0x7f;
        if ((seed >> 40) % 7 == 0) buf[len - 1] |= 0x80; /* sometimes no end in sight */
        size_t n = (size_t)((seed >> 8) % 20);
        for (int kind = 0; kind < 3; kind++) {
            pcd_cursor a = pcd_cursor_make(&x, buf, n, 0, true), b = a, k = a;
            uint64_t ua = 0, ub = 0;
            int64_t sa = 0, sb = 0;
            pcd_status ra, rb, rk;
            if (kind == 0) {
                ra = pcd_read_uleb128(&a, &ua, "v");
                rb = pcd_read_uleb128_slow(&b, &ub, "v");
                rk = pcd_skip_uleb128(&k, "v");
            } else if (kind == 1) {
                ra = pcd_read_uleb128_wrap(&a, &ua, "v");
                rb = pcd_read_uleb128_wrap_slow(&b, &ub, "v");
                rk = pcd_skip_uleb128_wrap(&k, "v");
            } else {
                ra = pcd_read_sleb128(&a, &sa, "v");
                rb = pcd_read_sleb128_slow(&b, &sb, "v");
                rk = pcd_skip_sleb128(&k, "v");
            }
            assert_int_equal(ra, rb);
            assert_int_equal(rk, rb);
            if (rb == PCD_OK) {
                assert_ptr_equal(a.p, b.p);
                assert_ptr_equal(k.p, b.p);
                assert_true(ua == ub && sa == sb);
            }
            if (n >= 8) {
                /* the helpers the generated array loops use */
                uint64_t v = 0, w = 0;
                unsigned l8 = pcd_leb_word8(buf, &v), lf = pcd_leb_fast(buf, &w);
                if (len <= 8 && !(buf[len - 1] & 0x80)) {
                    assert_int_equal(l8, (unsigned)len);
                    assert_int_equal(lf, (unsigned)len);
                    pcd_cursor s = pcd_cursor_make(&x, buf, n, 0, true);
                    uint64_t slow = 0;
                    assert_int_equal(pcd_read_uleb128_slow(&s, &slow, "v"), PCD_OK);
                    assert_true(v == slow && w == slow);
                }
                /* the signed one (Mono's running deltas): length and value as the slow path's */
                int64_t sf = 0;
                unsigned ls = pcd_sleb_fast(buf, &sf);
                if (len <= 8 && !(buf[len - 1] & 0x80)) {
                    assert_int_equal(ls, (unsigned)len);
                    pcd_cursor s = pcd_cursor_make(&x, buf, n, 0, true);
                    int64_t slow = 0;
                    assert_int_equal(pcd_read_sleb128_slow(&s, &slow, "v"), PCD_OK);
                    assert_true(sf == slow);
                } else if (len > 8) {
                    assert_int_equal(ls, 0); /* longer than 8 bytes: the caller's slow path */
                }
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uleb128),       cmocka_unit_test(test_uleb128_open_input),
        cmocka_unit_test(test_sleb128),       cmocka_unit_test(test_zigzag),
        cmocka_unit_test(test_mojo),          cmocka_unit_test(test_roundtrip_many),
        cmocka_unit_test(test_fast_paths_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
