/* test_runtime.c: cursors, errors, strings, arena, sink, zstd regions and the JSON writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "pcd.h"

static void test_take_and_errors(void **state)
{
    (void)state;
    static const uint8_t in[] = { 1, 2, 3, 4, 5, 6 };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_cursor c = pcd_cursor_make(&x, in, sizeof in, 1000, true);
    pcd_cursor sub;
    assert_int_equal(pcd_take(&c, 4, &sub, "body", "body bytes"), PCD_OK);
    assert_int_equal(pcd_left(&sub), 4);
    assert_int_equal(pcd_left(&c), 2);
    uint32_t v;
    assert_int_equal(pcd_read_u32be(&sub, &v, "word"), PCD_OK);
    assert_int_equal(v, 0x01020304);
    /* the sub-cursor's end is hard: running into it is truncation, at the right offset */
    assert_int_equal(pcd_read_u8(&sub, (uint8_t *)&v, "extra"), PCD_E_TRUNCATED);
    assert_int_equal(x.err.offset, 1004);
    assert_int_equal(x.err.found_kind, PCD_FOUND_END);
    /* taking more than is left on closed input */
    assert_int_equal(pcd_take(&c, 3, &sub, "body", "body bytes"), PCD_E_TRUNCATED);
    assert_int_equal(x.err.offset, 1004);
    /* the path grows outwards as the error travels */
    pcd_error_push(&x.err, "attributes", 2);
    pcd_error_push(&x.err, "event", -1);
    char buf[256];
    pcd_error_path(&x.err, buf, sizeof buf);
    assert_string_equal(buf, "event.attributes[2].body");
    pcd_error_format(&x.err, buf, sizeof buf);
    assert_string_equal(buf, "offset 1004: event.attributes[2].body: expected body bytes, found end of data (2 bytes left)");
}

static void test_strings(void **state)
{
    (void)state;
    static const uint8_t in[] = { 'a', 'b', 0, 'c', 'd', 'e', 'f' };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_cursor c = pcd_cursor_make(&x, in, sizeof in, 0, true);
    pcd_bytes b;
    assert_int_equal(pcd_read_cstring(&c, 0, &b, "s"), PCD_OK);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.ptr, "ab", 2);
    /* no NUL before the end: truncated on closed input, short read on open input */
    assert_int_equal(pcd_read_cstring(&c, 0, &b, "s"), PCD_E_TRUNCATED);
    c = pcd_cursor_make(&x, in + 3, 4, 3, false);
    assert_int_equal(pcd_read_cstring(&c, 0, &b, "s"), PCD_SHORT_READ);
    /* a length limit turns "no NUL yet" into a limit error */
    c = pcd_cursor_make(&x, in + 3, 4, 3, false);
    assert_int_equal(pcd_read_cstring(&c, 2, &b, "s"), PCD_E_LIMIT);
}

static void test_utf8(void **state)
{
    (void)state;
    static const struct { const char *s; size_t n; bool ok; } cases[] = {
        { "plain ascii text that is long enough for the fast path", 55, true },
        { "h\xc3\xa9ph", 5, true },
        { "\xe2\x9a\x92", 3, true },
        { "\xf0\x9f\x94\xa5", 4, true },
        { "\xfc", 1, false },
        { "\xc3", 1, false },
        { "\xc0\xaf", 2, false },          /* overlong */
        { "\xed\xa0\x80", 3, false },      /* surrogate */
        { "\xf4\x90\x80\x80", 4, false },  /* above U+10FFFF */
        { "nul\0inside", 10, true },
    };
    for (size_t i = 0; i < PCD_COUNTOF(cases); i++)
        assert_int_equal(pcd_utf8_valid((const uint8_t *)cases[i].s, cases[i].n), cases[i].ok);
}

static void test_arena(void **state)
{
    (void)state;
    uint8_t block[64];
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 4096);
    pcd_arena a;
    pcd_arena_init(&a, block, sizeof block, &al, 0);
    void *p = pcd_arena_alloc(&a, 10);
    assert_non_null(p);
    assert_true(((uintptr_t)p & 7) == 0);
    /* beyond the block: chunks from the allocator, within its limit */
    assert_non_null(pcd_arena_alloc(&a, 1000));
    assert_null(pcd_arena_alloc(&a, 100000));
    pcd_arena_reset(&a);
    assert_non_null(pcd_arena_alloc(&a, 500));
    pcd_arena_free(&a);
    assert_int_equal(al.in_use, 0);
    /* a capped arena refuses past its cap */
    pcd_arena_init(&a, block, sizeof block, NULL, 32);
    assert_non_null(pcd_arena_alloc(&a, 16));
    assert_null(pcd_arena_alloc(&a, 24));
    /* a hostile count cannot size an allocation beyond the input */
    static const uint8_t tiny[4] = { 0 };
    pcd_ctx x;
    pcd_ctx_init(&x, &a);
    pcd_cursor c = pcd_cursor_make(&x, tiny, sizeof tiny, 0, true);
    void *arr;
    assert_int_equal(pcd_alloc_array(&c, c.p, UINT64_C(1) << 32, 8, 8, &arr, "frames"), PCD_E_TRUNCATED);
}

static uint8_t sink_store[256];
static size_t sink_len;
static pcd_status store_write(void *ud, const uint8_t *p, size_t n)
{
    (void)ud;
    if (sink_len + n > sizeof sink_store) return PCD_E_IO;
    memcpy(sink_store + sink_len, p, n);
    sink_len += n;
    return PCD_OK;
}
static pcd_status store_patch(void *ud, uint64_t off, const uint8_t *p, size_t n)
{
    (void)ud;
    memcpy(sink_store + off, p, n);
    return PCD_OK;
}

static void test_sink(void **state)
{
    (void)state;
    uint8_t buf[8];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    sink_len = 0;
    pcd_sink_init(&s, buf, sizeof buf, store_write, store_patch, NULL, &x);
    assert_int_equal(pcd_put_u32be(&s, 0), PCD_OK);
    assert_int_equal(pcd_put_u64le(&s, 0x0807060504030201u), PCD_OK);
    assert_int_equal(pcd_put_uleb128(&s, 300), PCD_OK);
    assert_int_equal(pcd_sink_put(&s, "0123456789abcdef", 16), PCD_OK); /* larger than the buffer */
    uint8_t patch[4] = { 0xde, 0xad, 0xbe, 0xef };
    assert_int_equal(pcd_sink_patch(&s, 0, patch, 4), PCD_OK); /* already flushed */
    assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    static const uint8_t want[] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 0xac, 0x02,
                                    '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'a', 'b', 'c', 'd', 'e', 'f' };
    assert_int_equal(sink_len, sizeof want);
    assert_memory_equal(sink_store, want, sizeof want);
    /* a fixed memory sink fails cleanly when full */
    pcd_sink_init(&s, buf, 2, NULL, NULL, NULL, &x);
    assert_int_equal(pcd_put_u32le(&s, 1), PCD_E_LIMIT);
}

static void test_zstd(void **state)
{
    (void)state;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 64 << 20);
    uint8_t plain[20000];
    for (size_t i = 0; i < sizeof plain; i++) plain[i] = (uint8_t)(i * 7 % 251);
    /* compress through the writer into memory */
    static uint8_t comp[40000];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, comp, sizeof comp, NULL, NULL, NULL, &x);
    pcd_zstd_writer w;
    assert_int_equal(pcd_zstd_writer_init(&w, &al, 5, &s), PCD_OK);
    assert_int_equal(pcd_zstd_writer_write(&w, plain, sizeof plain), PCD_OK);
    assert_int_equal(pcd_zstd_writer_end(&w), PCD_OK);
    pcd_zstd_writer_free(&w);
    size_t clen = s.len;
    size_t fsz;
    assert_int_equal(pcd_zstd_frame_size(comp, clen, &fsz), PCD_OK);
    assert_int_equal(fsz, clen);
    assert_int_equal(pcd_zstd_frame_size(comp, clen - 1, &fsz), PCD_E_TRUNCATED);

    /* decompress in small pieces of output, fed in small pieces of input */
    uint8_t out[30000], piece[333];
    pcd_zstd_reader z;
    assert_int_equal(pcd_zstd_reader_init(&z, &al, 1 << 20), PCD_OK);
    size_t have = 0, fed = 0;
    pcd_error e;
    for (;;) {
        size_t got;
        pcd_status st = pcd_zstd_reader_read(&z, piece, sizeof piece, &got, &e, "samples");
        memcpy(out + have, piece, got);
        have += got;
        if (st == PCD_END) break;
        if (st == PCD_SHORT_READ) {
            size_t k = clen - fed < 100 ? clen - fed : 100;
            pcd_zstd_reader_feed(&z, comp + fed, k, fed, fed + k == clen);
            fed += k;
            continue;
        }
        assert_int_equal(st, PCD_OK);
    }
    assert_int_equal(have, sizeof plain);
    assert_memory_equal(out, plain, sizeof plain);
    pcd_zstd_reader_free(&z);

    /* two concatenated frames read as one region */
    static uint8_t two[80000];
    memcpy(two, comp, clen);
    memcpy(two + clen, comp, clen);
    assert_int_equal(pcd_zstd_reader_init(&z, &al, 1 << 20), PCD_OK);
    pcd_zstd_reader_feed(&z, two, 2 * clen, 0, true);
    have = 0;
    for (;;) {
        size_t got;
        pcd_status st = pcd_zstd_reader_read(&z, out, sizeof out, &got, &e, "samples");
        have += got;
        if (st == PCD_END) break;
        assert_int_equal(st, PCD_OK);
    }
    assert_int_equal(have, 2 * sizeof plain);
    pcd_zstd_reader_free(&z);

    /* an output limit stops a decompression bomb */
    assert_int_equal(pcd_zstd_reader_init(&z, &al, 1000), PCD_OK);
    pcd_zstd_reader_feed(&z, comp, clen, 64, true);
    size_t got;
    pcd_status st;
    do st = pcd_zstd_reader_read(&z, out, sizeof out, &got, &e, "samples");
    while (st == PCD_OK);
    assert_int_equal(st, PCD_E_LIMIT);
    pcd_zstd_reader_free(&z);

    /* a cut frame is an error at the end of the data, not silence */
    assert_int_equal(pcd_zstd_reader_init(&z, &al, 1 << 20), PCD_OK);
    pcd_zstd_reader_feed(&z, comp, clen - 5, 64, true);
    do st = pcd_zstd_reader_read(&z, out, sizeof out, &got, &e, "samples");
    while (st == PCD_OK);
    assert_int_equal(st, PCD_E_ZSTD);
    pcd_zstd_reader_free(&z);

    /* garbage after a frame */
    memcpy(two, comp, clen);
    memcpy(two + clen, "garbage!", 8);
    assert_int_equal(pcd_zstd_reader_init(&z, &al, 1 << 20), PCD_OK);
    pcd_zstd_reader_feed(&z, two, clen + 8, 0, true);
    do st = pcd_zstd_reader_read(&z, out, sizeof out, &got, &e, "samples");
    while (st == PCD_OK);
    assert_int_equal(st, PCD_E_ZSTD);
    assert_true(e.offset >= clen);
    pcd_zstd_reader_free(&z);
    assert_int_equal(al.in_use, 0);
}

/* ---- zstd with the helper thread ------------------------------------------------------- */

typedef struct zrun {
    pcd_status st;
    size_t len;              /* bytes delivered before st */
    uint64_t err_offset, err_found;
} zrun;

/* Reads comp[0..clen) whole, pieces of `cap` bytes, into out (ocap); the final status. */
static zrun zread(const uint8_t *comp, size_t clen, uint64_t max_out, bool threads, size_t cap, uint8_t *out,
                  size_t ocap, bool *used_thread)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 256 << 20);
    pcd_zstd_reader z;
    assert_int_equal(pcd_zstd_reader_init(&z, &al, max_out), PCD_OK);
    pcd_zstd_reader_allow_thread(&z, threads);
    pcd_zstd_reader_feed(&z, comp, clen, 64, true);
    zrun r = { PCD_OK, 0, 0, 0 };
    pcd_error e;
    memset(&e, 0, sizeof e);
    *used_thread = false;
    for (;;) {
        size_t got = 0, want = cap < ocap - r.len ? cap : ocap - r.len;
        assert_true(want > 0);
        r.st = pcd_zstd_reader_read(&z, out + r.len, want, &got, &e, "samples");
        if (z.w) *used_thread = true;
        if (r.st != PCD_OK) break;
        r.len += got;
    }
    if (r.st != PCD_END) {
        r.err_offset = e.offset;
        r.err_found = e.found;
    }
    pcd_zstd_reader_free(&z);
    assert_int_equal(al.in_use, 0);
    return r;
}

/* Two frames of `plain`: the first with a 1 MiB window, the second with a 16 MiB one. */
static size_t zcompress2(const uint8_t *plain, size_t n, uint8_t *comp, size_t cap)
{
    size_t len = 0;
    for (int f = 0; f < 2; f++) {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        assert_non_null(c);
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
        ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, f == 0 ? 20 : 24);
        ZSTD_CCtx_setParameter(c, ZSTD_c_contentSizeFlag, 0);
        ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1); /* so that damage shows */
        size_t r = ZSTD_compress2(c, comp + len, cap - len, plain, n);
        assert_false(ZSTD_isError(r));
        len += r;
        ZSTD_freeCCtx(c);
    }
    return len;
}

static void test_zstd_thread(void **state)
{
    (void)state;
    /* 3 MiB of 6-bit noise: well over PCD_ZSTD_THREAD_MIN compressed */
    size_t n = (size_t)3 << 20;
    uint8_t *plain = malloc(n), *comp = malloc(2 * n + 1024), *a = malloc(2 * n + 4096), *b = malloc(2 * n + 4096);
    assert_true(plain && comp && a && b);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        plain[i] = (uint8_t)(x & 0x3F);
    }
    size_t clen = zcompress2(plain, n, comp, 2 * n + 1024);
    assert_true(clen >= PCD_ZSTD_THREAD_MIN * 2);
    bool ta, tb;
    /* whole: the same bytes either way, read in window-sized and odd-sized pieces (the helper
     * decompresses the first frame, stops at the second's larger window, and the reader goes
     * on alone) */
    static const size_t caps[] = { (size_t)1 << 18, 100003 };
    for (size_t k = 0; k < 2; k++) {
        zrun s = zread(comp, clen, UINT64_MAX, false, caps[k], a, 2 * n + 4096, &ta);
        zrun t = zread(comp, clen, UINT64_MAX, true, caps[k], b, 2 * n + 4096, &tb);
        assert_false(ta);
        assert_true(tb);
        assert_int_equal(s.st, PCD_END);
        assert_int_equal(t.st, PCD_END);
        assert_int_equal(s.len, 2 * n);
        assert_int_equal(t.len, 2 * n);
        assert_memory_equal(a, plain, n);
        assert_memory_equal(a + n, plain, n);
        assert_memory_equal(b, a, 2 * n);
    }
    /* the first frame alone: the helper does it all */
    size_t f1;
    assert_int_equal(pcd_zstd_frame_size(comp, clen, &f1), PCD_OK);
    {
        zrun t = zread(comp, f1, UINT64_MAX, true, (size_t)1 << 18, b, 2 * n + 4096, &tb);
        assert_true(tb);
        assert_int_equal(t.st, PCD_END);
        assert_int_equal(t.len, n);
        assert_memory_equal(b, plain, n);
    }
    /* damage and limits: the same status, the same offset, the same bytes before it */
    struct {
        size_t len;
        size_t flip;         /* byte to corrupt (0: none) */
        uint64_t max_out;
    } cases[] = {
        { 0, 0, 0 }, /* filled below */
        { 0, 0, 0 },
        { 0, 0, 0 },
        { 0, 0, 0 },
        { 0, 0, 0 },
    };
    cases[0].len = f1 - 7, cases[0].max_out = UINT64_MAX;            /* cut in the first frame */
    cases[1].len = clen - 3, cases[1].max_out = UINT64_MAX;          /* cut in the second */
    cases[2].len = f1, cases[2].flip = f1 / 2, cases[2].max_out = UINT64_MAX; /* damage */
    cases[3].len = f1, cases[3].max_out = n / 2 + 12345;             /* a bomb guard */
    cases[4].len = f1 + 5, cases[4].max_out = UINT64_MAX;            /* garbage after a frame */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        uint8_t *c = malloc(cases[k].len + 8);
        assert_non_null(c);
        memcpy(c, comp, cases[k].len < clen ? cases[k].len : clen);
        if (k == 4) memcpy(c + f1, "junk!", 5);
        if (cases[k].flip) c[cases[k].flip] ^= 0x5A;
        zrun s = zread(c, cases[k].len, cases[k].max_out, false, (size_t)1 << 18, a, 2 * n + 4096, &ta);
        zrun t = zread(c, cases[k].len, cases[k].max_out, true, (size_t)1 << 18, b, 2 * n + 4096, &tb);
        assert_true(tb);
        assert_int_not_equal(s.st, PCD_END);
        assert_int_equal(t.st, s.st);
        assert_int_equal(t.err_offset, s.err_offset);
        assert_int_equal(t.err_found, s.err_found);
        /* the helper may have given more good bytes before the damage; never others */
        size_t common = s.len < t.len ? s.len : t.len;
        assert_memory_equal(a, b, common);
        if (!cases[k].flip) assert_memory_equal(b, plain, common < n ? common : n);
        free(c);
    }
    free(plain);
    free(comp);
    free(a);
    free(b);
}

static const char *json_of(void (*fn)(pcd_sink *))
{
    static char out[512];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, (uint8_t *)out, sizeof out - 1, NULL, NULL, NULL, &x);
    fn(&s);
    out[s.len] = 0;
    return out;
}

static void j_floats(pcd_sink *s)
{
    pcd_json_f64(s, 0.1); pcd_json_raw(s, " ");
    pcd_json_f64(s, 1.0); pcd_json_raw(s, " ");
    pcd_json_f64(s, -0.0); pcd_json_raw(s, " ");
    pcd_json_f64(s, 123.456); pcd_json_raw(s, " ");
    pcd_json_f64(s, (double)0.1f); pcd_json_raw(s, " ");
    pcd_json_f64(s, NAN); pcd_json_raw(s, " ");
    pcd_json_f64(s, -INFINITY); pcd_json_raw(s, " ");
    pcd_json_f64(s, 1e300);
}

static void j_ints(pcd_sink *s)
{
    pcd_json_u64(s, 0); pcd_json_raw(s, " ");
    pcd_json_u64(s, UINT64_MAX); pcd_json_raw(s, " ");
    pcd_json_i64(s, INT64_MIN); pcd_json_raw(s, " ");
    pcd_json_u64(s, (uint64_t)INT64_MAX);
}

static void j_strings(pcd_sink *s)
{
    pcd_json_text(s, (const uint8_t *)"q\"b\\n\n\x07", 7); pcd_json_raw(s, " ");
    pcd_json_text(s, (const uint8_t *)"\xfc\x01", 2);
}

static void test_json_writer(void **state)
{
    (void)state;
    assert_string_equal(json_of(j_floats), "0.1 1.0 -0.0 123.456 0.10000000149011612 \"NaN\" \"-Infinity\" 1e+300");
    assert_string_equal(json_of(j_ints), "0 \"18446744073709551615\" -9223372036854775808 9223372036854775807");
    assert_string_equal(json_of(j_strings), "\"q\\\"b\\\\n\\n\\u0007\" {\"hex\":\"fc01\"}");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_take_and_errors), cmocka_unit_test(test_strings),
        cmocka_unit_test(test_utf8),            cmocka_unit_test(test_arena),
        cmocka_unit_test(test_sink),            cmocka_unit_test(test_zstd),
        cmocka_unit_test(test_zstd_thread),
        cmocka_unit_test(test_json_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
