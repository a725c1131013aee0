/* test_fixtures.c: the code generated from each one-feature fixture schema (the checked-in
 * tests/gen/expected/ copies) works: values survive encode -> decode, streaming agrees
 * with whole-buffer reading, JSON dump -> JSON read -> encode gives the same bytes,
 * and every check the schema declares fires with the right field path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_arrays_v1.h"
#include "fx_mojo_v2.h"
#include "fx_blocks_v1.h"
#include "fx_footer_v1.h"
#include "fx_scalars_v1.h"
#include "fx_elems_v1.h"
#include "fx_stream_v2.h"
#include "fx_tables_v1.h"
#include "fx_trailer_v1.h"
#include "fx_strings_v1.h"
#include "fx_unions_v1.h"
#include "fx_zstd_v1.h"
#include "fx_cases_v1.h"
#include "fx_bits_v1.h"
#include "fx_relative_v1.h"
#include "fx_warn_v1.h"
#include "fx_views_view.h"
#include "fuzzlib.h"
#include "io/jsonl_read.h"
#include "../runtime/count_only.h"

#include <zstd.h>

static uint8_t out[1 << 16];

/* ---- generic helpers ----------------------------------------------------------- */

typedef struct rec_in {
    const pcd_region_desc *rd;
    const void *data;
} rec_in;

static size_t encode_file(const pcd_format *f, const void *root, const rec_in *recs, size_t n, bool big,
                          pcd_status want)
{
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, out, sizeof out, NULL, NULL, NULL, &x);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_writer w;
    pcd_writer_open(&w, f, &s, &al);
    pcd_writer_set_big(&w, big);
    pcd_status st = pcd_writer_root(&w, root);
    for (size_t i = 0; st == PCD_OK && i < n; i++) st = pcd_writer_record(&w, recs[i].rd, recs[i].data);
    if (st == PCD_OK) st = pcd_writer_finish(&w);
    pcd_writer_close(&w);
    assert_int_equal(st, want);
    assert_int_equal(al.in_use, 0);
    return s.len;
}

typedef struct got {
    size_t n;
    uint8_t *data[64];
    const pcd_type *type[64];
    pcd_status end;
    pcd_error err;
} got;

static void got_free(got *g)
{
    for (size_t i = 0; i < g->n; i++) free(g->data[i]);
    g->n = 0;
}

typedef struct feed {
    const uint8_t *p;
    size_t n, pos, chunk;
} feed;

static pcd_status feed_read(void *ud, uint8_t *dst, size_t cap, size_t *gotn)
{
    feed *f = ud;
    size_t k = f->n - f->pos;
    if (k > f->chunk) k = f->chunk;
    if (k > cap) k = cap;
    memcpy(dst, f->p + f->pos, k);
    f->pos += k;
    *gotn = k;
    return PCD_OK;
}

/* Checks a record while it is valid (arrays live in the reader's arena until the next record). */
typedef void (*check_fn)(size_t index, const void *rec);
static check_fn g_check;

/* Decodes everything (records copied out shallowly: their byte views stay valid in
 * whole-buffer mode, their arrays do not; g_check sees each record while it is whole). */
static void decode_file(const pcd_format *f, const uint8_t *p, size_t n, got *g, size_t chunk)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 16, false };
    feed fd = { p, n, 0, chunk };
    if (chunk && (f->flags & PCD_FMT_STREAMABLE)) assert_int_equal(pcd_reader_open(&r, f, feed_read, &fd, &o), PCD_OK);
    else assert_int_equal(pcd_reader_open_buffer(&r, f, p, n, &o), PCD_OK);
    memset(g, 0, sizeof *g);
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        if (g_check) g_check(g->n, rec.data);
        if (g->n < 64) {
            g->data[g->n] = malloc(rec.type->size);
            memcpy(g->data[g->n], rec.data, rec.type->size);
            g->type[g->n] = rec.type;
            g->n++;
        }
    }
    g->end = st;
    g->err = r.x.err;
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
}

/* dump -> parse -> encode must give the same bytes (the CLI's dump | encode). */
static void json_roundtrip(const pcd_format *f, const uint8_t *p, size_t n)
{
    static char jl[1 << 16];
    pcd_ctx jx;
    pcd_ctx_init(&jx, NULL);
    pcd_sink js;
    pcd_sink_init(&js, (uint8_t *)jl, sizeof jl - 1, NULL, NULL, NULL, &jx);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, f, p, n, &o), PCD_OK);
    pcd_record rec;
    pcd_status st;
    bool big = false;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) assert_int_equal(pcd_json_record(&js, f, &rec), PCD_OK);
    big = r.x.big;
    assert_int_equal(st, PCD_END);
    pcd_reader_close(&r);
    jl[js.len] = 0;
    static char jl_copy[1 << 16];
    memcpy(jl_copy, jl, js.len + 1);
    /* read it back */
    static uint8_t again[1 << 16];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, again, sizeof again, NULL, NULL, NULL, &x);
    pcd_writer w;
    pcd_writer_open(&w, f, &s, &al);
    pcd_writer_set_big(&w, big);
    pcd_arena a;
    pcd_arena_init(&a, NULL, 0, &al, 0);
    uint8_t *root = calloc(1, f->root_size), *recbuf = calloc(1, 4096);
    char err[256];
    bool first = true;
    for (char *line = strtok(jl, "\n"); line; line = strtok(NULL, "\n")) {
        json_error_t je;
        json_t *j = json_loads(line, JSON_ALLOW_NUL, &je);
        assert_non_null(j);
        pcd_jkind k;
        assert_true(pcd_jsonr_kind(f, json_string_value(json_object_get(j, "_kind")), &k));
        if (first) {
            assert_null(k.rd);
            assert_true(pcd_jsonr_record(&k, j, root, &a, err, sizeof err));
            assert_int_equal(pcd_writer_root(&w, root), PCD_OK);
            first = false;
        } else {
            if (!pcd_jsonr_record(&k, j, recbuf, &a, err, sizeof err)) fail_msg("%s in %s", err, line);
            assert_int_equal(pcd_writer_record(&w, k.rd, recbuf), PCD_OK);
        }
        json_decref(j);
    }
    assert_int_equal(pcd_writer_finish(&w), PCD_OK);
    pcd_writer_close(&w);
    if (s.len != n) print_message("JSON was:\n%s\n", jl_copy);
    assert_int_equal(s.len, n);
    assert_memory_equal(again, p, n);
    free(root);
    free(recbuf);
    pcd_arena_free(&a);
    assert_int_equal(al.in_use, 0);
    /* and every fuzz invariant holds on it */
    pcd_fuzz_one(f, p, n);
}

/* Decodes one record type from bytes and returns the status (for error checks). */
static pcd_status decode_one(pcd_decode_fn dec, const uint8_t *p, size_t n, void *outp, pcd_error *e)
{
    uint8_t block[4096];
    pcd_arena a;
    pcd_arena_init(&a, block, sizeof block, NULL, 0);
    pcd_ctx x;
    pcd_ctx_init(&x, &a);
    pcd_cursor c = pcd_cursor_make(&x, p, n, 0, true);
    pcd_status st = dec(&c, outp);
    *e = x.err;
    return st;
}

static const char *path_of(const pcd_error *e)
{
    static char b[256];
    pcd_error_path(e, b, sizeof b);
    return b;
}

/* ---- scalars ---------------------------------------------------------------------- */

static pcd_fx_scalars_v1_rec sample_scalars(void)
{
    pcd_fx_scalars_v1_rec r = { 0 };
    r.a = 7;
    r.b = 1000;
    r.c = 0xdeadbeef;
    r.d = -5;
    r.e = 1.5f;
    r.f = -0.0;
    r.g = 0x11223344;
    r.h = -1;
    r.kind = 2;
    r.open_kind = 9;
    r.u = UINT64_MAX;
    r.u32v = UINT32_MAX;
    r.s = INT64_MIN;
    r.z32 = -1;
    r.z64 = INT64_MAX;
    r.m.mag = 0;
    r.m.neg = true;
    return r;
}

static void test_scalars(void **state)
{
    (void)state;
    pcd_fx_scalars_v1_file root = { { 0 } };
    pcd_fx_scalars_v1_rec r = sample_scalars();
    rec_in recs[] = { { &pcd_fx_scalars_v1_region_recs, &r } };
    for (int big = 0; big < 2; big++) {
        size_t n = encode_file(&pcd_fx_scalars_v1_format, &root, recs, 1, big, PCD_OK);
        /* the byte-order mark and the native field follow the chosen order */
        assert_int_equal(out[0], big ? 0x01 : 0x04);
        size_t g_at = 4 + 1 + 2 + 4 + 8 + 4 + 8;
        assert_int_equal(out[g_at], big ? 0x11 : 0x44);
        got g;
        decode_file(&pcd_fx_scalars_v1_format, out, n, &g, 3);
        assert_int_equal(g.end, PCD_END);
        assert_int_equal(g.n, 2);
        const pcd_fx_scalars_v1_rec *d = (const void *)g.data[1];
        assert_int_equal(d->a, 7);
        assert_int_equal(d->b, 1000);
        assert_true(d->c == 0xdeadbeef && d->d == -5 && d->e == 1.5f);
        assert_true(d->f == 0.0 && signbit(d->f));
        assert_true(d->g == 0x11223344);
        assert_int_equal(d->h, -1);
        assert_true(d->u == UINT64_MAX && d->u32v == UINT32_MAX && d->s == INT64_MIN);
        assert_true(d->z32 == -1 && d->z64 == INT64_MAX);
        assert_true(d->m.mag == 0 && d->m.neg);
        got_free(&g);
        json_roundtrip(&pcd_fx_scalars_v1_format, out, n);
    }
    /* every declared check fires, at the field, with its path */
    size_t n = encode_file(&pcd_fx_scalars_v1_format, &root, recs, 1, false, PCD_OK);
    static uint8_t bad[256];
    pcd_fx_scalars_v1_rec d;
    pcd_error e;
    memcpy(bad, out + 4, n - 4);
    bad[0] = 8; /* a must equal 7 */
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_scalars_v1_rec_decode, bad, n - 4, &d, &e), PCD_E_RANGE);
    assert_string_equal(path_of(&e), "a");
    assert_int_equal(e.offset, 0);
    memcpy(bad, out + 4, n - 4);
    bad[1] = 0, bad[2] = 0; /* b at least 1 */
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_scalars_v1_rec_decode, bad, n - 4, &d, &e), PCD_E_RANGE);
    assert_string_equal(path_of(&e), "b");
    assert_int_equal(e.offset, 1);
    memcpy(bad, out + 4, n - 4);
    bad[33] = 5; /* kind is a closed enum */
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_scalars_v1_rec_decode, bad, n - 4, &d, &e), PCD_E_RANGE);
    assert_string_equal(path_of(&e), "kind");
    /* the encoder refuses what the decoder would */
    r.b = 0;
    encode_file(&pcd_fx_scalars_v1_format, &root, recs, 1, false, PCD_E_RANGE);
}

/* ---- MOJO varints with checks, and the decode-run fast path ---------------------------- */

static pcd_mojo_int M(uint64_t mag, bool neg) { return (pcd_mojo_int){ mag, neg }; }

typedef struct drun_seen {
    uint64_t n, offsets[8];
    int64_t a[8];
    uint64_t stop_after;
} drun_seen;

static pcd_status drun_cb(void *ud, const pcd_record *rec)
{
    drun_seen *s = ud;
    const pcd_fx_mojo_v2_rec *r = rec->data;
    assert_int_equal(rec->index, s->n);
    if (s->n < 8) {
        s->offsets[s->n] = rec->offset;
        s->a[s->n] = r->a.neg ? -(int64_t)r->a.mag : (int64_t)r->a.mag;
    }
    s->n++;
    return s->n == s->stop_after ? PCD_E_IO : PCD_OK;
}

static void test_mojo(void **state)
{
    (void)state;
    pcd_fx_mojo_v2_file root = { M(2, false), { 0 } };
    pcd_fx_mojo_v2_rec r[3] = { { M(5, true), M(3, true), false, M(0, false), M(0, true) },
                                { M(1000, false), M(3, true), true, M(UINT64_MAX, true), M(131, true) },
                                { M(11, false), M(3, true), true, M(0, false), M(64, false) } };
    rec_in recs[] = { { &pcd_fx_mojo_v2_region_recs, &r[0] }, { &pcd_fx_mojo_v2_region_recs, &r[1] },
                      { &pcd_fx_mojo_v2_region_recs, &r[2] } };
    size_t n = encode_file(&pcd_fx_mojo_v2_format, &root, recs, 3, false, PCD_OK);
    /* "MJX", version 2, then a=-5 (0x45), b=-3 (0x43), d=-0 (0x40) */
    assert_memory_equal(out, "MJX\x02\x45\x43\x40", 7);
    /* -131 is C3 02 (the spec's example); 2^64-1 with the sign takes 10 bytes */
    assert_memory_equal(out + 7 + 3, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x03\xc3\x02", 12);
    got g;
    decode_file(&pcd_fx_mojo_v2_format, out, n, &g, 2);
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 4);
    const pcd_fx_mojo_v2_rec *d = (const void *)g.data[1];
    assert_true(d->a.mag == 5 && d->a.neg && !d->has_c && d->d.mag == 0 && d->d.neg);
    d = (const void *)g.data[2];
    assert_true(d->has_c && d->c.mag == UINT64_MAX && d->c.neg && d->d.mag == 131 && d->d.neg);
    got_free(&g);
    json_roundtrip(&pcd_fx_mojo_v2_format, out, n);

    /* the decode-run fast path sees the same records, with offsets and indexes */
    for (int stop = 0; stop < 2; stop++) {
        pcd_alloc al;
        pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
        pcd_reader rd;
        pcd_reader_opts o = { &al, NULL, 0, false };
        assert_int_equal(pcd_reader_open_buffer(&rd, &pcd_fx_mojo_v2_format, out, n, &o), PCD_OK);
        pcd_record rec;
        assert_int_equal(pcd_reader_next(&rd, &rec), PCD_OK); /* the root */
        drun_seen seen = { 0 };
        seen.stop_after = stop ? 2 : 0;
        uint64_t k = 0;
        pcd_status st = pcd_reader_decode_run(&rd, 100, &k, drun_cb, &seen);
        if (stop) {
            /* the callback's status stops the run; the reader is not failed */
            assert_int_equal(st, PCD_E_IO);
            assert_int_equal(k, 2);
            assert_int_equal(pcd_reader_next(&rd, &rec), PCD_OK);
            assert_int_equal(rec.index, 2);
            assert_int_equal(rec.offset, seen.offsets[1] + 2 + 1 + 10 + 2); /* a, b, c, d of the 2nd */
        } else {
            assert_int_equal(st, PCD_OK);
            assert_int_equal(k, 3);
            assert_true(seen.a[0] == -5 && seen.a[1] == 1000 && seen.a[2] == 11);
            assert_int_equal(seen.offsets[0], 4);
            assert_int_equal(seen.offsets[1], 7);
            assert_int_equal(pcd_reader_next(&rd, &rec), PCD_END);
        }
        pcd_reader_close(&rd);
        assert_int_equal(al.in_use, 0);
    }

    /* checks compare sign and magnitude as numbers, and say what they found */
    static uint8_t bad[64];
    pcd_fx_mojo_v2_rec dr;
    pcd_error e;
    char msg[256];
    const uint8_t b_pos3[] = { 0x01, 0x03, 0x00 };       /* b = 3, not -3 */
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_mojo_v2_rec_decode, b_pos3, 3, &dr, &e), PCD_E_RANGE);
    assert_string_equal(path_of(&e), "b");
    assert_int_equal(e.offset, 1);
    pcd_error_format(&e, msg, sizeof msg);
    assert_string_equal(msg, "offset 1: b: expected -3, found 3");
    const uint8_t a_low[] = { 0x46, 0x43, 0x00 };        /* a = -6 < -5 */
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_mojo_v2_rec_decode, a_low, 3, &dr, &e), PCD_E_RANGE);
    pcd_error_format(&e, msg, sizeof msg);
    assert_string_equal(msg, "offset 0: a: expected at least -5, found -6");
    const uint8_t a_high[] = { 0xA9, 0x0F, 0x43, 0x00 }; /* a = 1001 > 1000 */
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_mojo_v2_rec_decode, a_high, 4, &dr, &e), PCD_E_RANGE);
    pcd_error_format(&e, msg, sizeof msg);
    assert_string_equal(msg, "offset 0: a: expected at most 1000, found 1001");
    const uint8_t a_negzero[] = { 0x40, 0x43, 0x00 };    /* a = -0 is within -5..1000 */
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_mojo_v2_rec_decode, a_negzero, 3, &dr, &e), PCD_OK);
    /* the root's version picks the schema: version 3 is not this one's */
    memcpy(bad, "MJX\x03", 4);
    pcd_fx_mojo_v2_file fr;
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_mojo_v2_file_decode, bad, 4, &fr, &e), PCD_E_RANGE);
    assert_string_equal(path_of(&e), "version");
    /* the encoder refuses what the decoder would */
    r[0].b = M(3, false);
    encode_file(&pcd_fx_mojo_v2_format, &root, recs, 3, false, PCD_E_RANGE);
    r[0].b = M(3, true);
    root.version = M(2, true);
    encode_file(&pcd_fx_mojo_v2_format, &root, recs, 3, false, PCD_E_RANGE);
}

/* ---- strings ------------------------------------------------------------------------- */

static pcd_bytes B(const char *s) { return (pcd_bytes){ (const uint8_t *)s, strlen(s) }; }

static void test_strings(void **state)
{
    (void)state;
    pcd_fx_strings_v1_file root = { { 0 } };
    pcd_fx_strings_v1_rec r = { 0 };
    r.c = B("c-string");
    r.p16 = B("prefixed \"16\"");
    r.pv = (pcd_bytes){ (const uint8_t *)"\xff\x00\x01", 3 };
    r.n = 5;
    r.sized = B("fiver");
    r.name8 = B("abc");
    r.raw4 = (pcd_bytes){ (const uint8_t *)"\x00\x01\x02\x03", 4 };
    r.text = B("json");
    r.tail = B("the tail");
    rec_in recs[] = { { &pcd_fx_strings_v1_region_recs, &r }, { &pcd_fx_strings_v1_region_recs, &r } };
    size_t n = encode_file(&pcd_fx_strings_v1_format, &root, recs, 2, false, PCD_OK);
    got g;
    decode_file(&pcd_fx_strings_v1_format, out, n, &g, 1);
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 3);
    const pcd_fx_strings_v1_rec *d = (const void *)g.data[2];
    assert_int_equal(d->name8.len, 3);
    assert_memory_equal(d->name8.ptr, "abc", 3);
    assert_int_equal(d->tail.len, 8);
    assert_memory_equal(d->tail.ptr, "the tail", 8);
    assert_int_equal(d->pv.len, 3);
    assert_int_equal(d->text_size, 5);
    assert_int_equal(d->text.len, 4);
    assert_memory_equal(d->text.ptr, "json", 4);
    got_free(&g);
    json_roundtrip(&pcd_fx_strings_v1_format, out, n);
    /* a sized C string must end (with its NUL) exactly where its size says */
    static uint8_t bad[256];
    memcpy(bad, out, n);
    assert_int_equal(pcd_ld_u16be(bad + 49), 5);
    bad[49 + 1] = 4;
    decode_file(&pcd_fx_strings_v1_format, bad, n, &g, 0);
    assert_true(PCD_IS_ERROR(g.end));
    got_free(&g);
    memcpy(bad, out, n);
    bad[49 + 1] = 6;
    decode_file(&pcd_fx_strings_v1_format, bad, n, &g, 0);
    assert_int_equal(g.end, PCD_E_SIZE);
    assert_string_equal(path_of(&g.err), "text_size");
    got_free(&g);
    /* limits: a C string longer than its max, a sized string that is too short */
    r.c = B("a string longer than sixteen");
    encode_file(&pcd_fx_strings_v1_format, &root, recs, 1, false, PCD_E_LIMIT);
    r.c = B("ok");
    r.sized = B("four");
    encode_file(&pcd_fx_strings_v1_format, &root, recs, 1, false, PCD_E_SIZE);
}

/* ---- unions --------------------------------------------------------------------------- */

static void check_unions(size_t i, const void *rec)
{
    const pcd_fx_unions_v1_rec *d = rec;
    if (i != 1) return;
    assert_int_equal(d->u.a.body.u.alloc.n_bt, 3);
    assert_true(d->u.a.body.u.alloc.bt[2] == -300);
}

static void test_unions(void **state)
{
    (void)state;
    pcd_fx_unions_v1_file root = { { 0 } };
    static int64_t bt[] = { -1, 2, -300 };
    pcd_fx_unions_v1_rec a1 = { 0 }, a2 = { 0 }, a3 = { 0 }, a4 = { 0 }, a5 = { 0 }, b1 = { 0 }, b2 = { 0 }, b3 = { 0 };
    a1.which = PCD_FX_UNIONS_V1_REC_A;
    a1.u.a.ev = 0x81;
    a1.u.a.body.which = PCD_FX_UNIONS_V1_REC_A_BODY_ALLOC;
    a1.u.a.body.u.alloc.size = 1234;
    a1.u.a.body.u.alloc.has_bt = true;
    a1.u.a.body.u.alloc.bt = bt;
    a1.u.a.body.u.alloc.n_bt = 3;
    a2 = a1;
    a2.u.a.ev = 0x01;
    a2.u.a.body.u.alloc.has_bt = false;
    a3.which = PCD_FX_UNIONS_V1_REC_A;
    a3.u.a.ev = 0x03;
    a3.u.a.body.which = PCD_FX_UNIONS_V1_REC_A_BODY_GC;
    a3.u.a.body.u.gc.has_gen = true;
    a3.u.a.body.u.gc.gen = 2;
    a4 = a3;
    a4.u.a.ev = 0x02;
    a4.u.a.body.u.gc.has_gen = false;
    a5.which = PCD_FX_UNIONS_V1_REC_A;
    a5.u.a.ev = 0x0f;
    a5.u.a.body.which = PCD_FX_UNIONS_V1_REC_A_BODY_OTHER;
    a5.u.a.body.u.other = B("opaque");
    b1.which = PCD_FX_UNIONS_V1_REC_B;
    b1.u.b.item.which = PCD_FX_UNIONS_V1_REC_B_ITEM_NUM;
    b1.u.b.item.u.num = 77;
    b2.which = PCD_FX_UNIONS_V1_REC_B;
    b2.u.b.item.which = PCD_FX_UNIONS_V1_REC_B_ITEM_PAIR;
    b2.u.b.item.tag = 3;
    b2.u.b.item.u.pair.x = 1;
    b2.u.b.item.u.pair.y = 2;
    b3.which = PCD_FX_UNIONS_V1_REC_B;
    b3.u.b.item.which = PCD_FX_UNIONS_V1_REC_B_ITEM_EMPTY;
    const pcd_region_desc *R = &pcd_fx_unions_v1_region_recs;
    rec_in recs[] = { { R, &a1 }, { R, &a2 }, { R, &a3 }, { R, &a4 }, { R, &a5 }, { R, &b1 }, { R, &b2 }, { R, &b3 } };
    size_t n = encode_file(&pcd_fx_unions_v1_format, &root, recs, 8, false, PCD_OK);
    got g;
    g_check = check_unions;
    decode_file(&pcd_fx_unions_v1_format, out, n, &g, 2);
    g_check = NULL;
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 9);
    const pcd_fx_unions_v1_rec *d = (const void *)g.data[2];
    assert_false(d->u.a.body.u.alloc.has_bt);
    d = (const void *)g.data[3];
    assert_true(d->u.a.body.u.gc.has_gen && d->u.a.body.u.gc.gen == 2);
    d = (const void *)g.data[7];
    assert_int_equal(d->u.b.item.which, PCD_FX_UNIONS_V1_REC_B_ITEM_PAIR);
    assert_int_equal(d->u.b.item.tag, 3);
    got_free(&g);
    json_roundtrip(&pcd_fx_unions_v1_format, out, n);
    /* a struct field present although its condition is false is refused */
    a2.u.a.body.u.alloc.has_bt = true;
    rec_in one[] = { { R, &a2 } };
    encode_file(&pcd_fx_unions_v1_format, &root, one, 1, false, PCD_E_INVALID);
    /* a case that does not match the tag it depends on */
    a3.u.a.ev = 0x01;
    rec_in two[] = { { R, &a3 } };
    encode_file(&pcd_fx_unions_v1_format, &root, two, 1, false, PCD_E_BAD_TAG);
}

/* ---- arrays ------------------------------------------------------------------------------ */

static size_t g_arrays_size;

static void check_arrays(size_t i, const void *rec)
{
    const pcd_fx_arrays_v1_rec *d = rec;
    if (i != 1) return;
    assert_int_equal(d->size, g_arrays_size);
    assert_int_equal(d->n, 2);
    assert_int_equal(d->n_pfx, 3);
    assert_int_equal(d->pfx[2], 65535);
    assert_int_equal(d->n_twice, 4);
    assert_int_equal(d->n_counters, 3);
    assert_int_equal(d->counters[1].value, 9);
    assert_false(d->counters[2].has_value);
    assert_int_equal(d->n_rest, 2);
    assert_int_equal(d->rest[1].y, -2);
}

static void test_arrays(void **state)
{
    (void)state;
    pcd_fx_arrays_v1_file root = { { 0 } };
    static uint16_t pfx[] = { 1, 2, 65535 };
    static pcd_fx_arrays_v1_point pts[] = { { 1, -1 }, { 2, -2 } };
    static uint8_t twice[] = { 9, 8, 7, 6 };
    static pcd_bytes strs[2];
    strs[0] = B("x");
    strs[1] = B("");
    static pcd_fx_arrays_v1_counter ctr[3];
    ctr[0] = (pcd_fx_arrays_v1_counter){ 5, true, -9 };
    ctr[1] = (pcd_fx_arrays_v1_counter){ 6, true, 9 };
    ctr[2] = (pcd_fx_arrays_v1_counter){ 0, false, 0 };
    pcd_fx_arrays_v1_rec r = { 0 };
    r.pfx = pfx, r.n_pfx = 3;
    r.counted = pts, r.n_counted = 2;
    r.k = 2;
    r.twice = twice, r.n_twice = 4;
    r.strs = strs, r.n_strs = 2;
    static uint8_t grid[6] = { 1, 2, 3, 4, 5, 6 };
    r.dims.w = 3, r.dims.h = 2;
    r.grid = grid, r.n_grid = 6;
    r.counters = ctr, r.n_counters = 3;
    r.rest = pts, r.n_rest = 2;
    rec_in recs[] = { { &pcd_fx_arrays_v1_region_recs, &r } };
    size_t n = encode_file(&pcd_fx_arrays_v1_format, &root, recs, 1, false, PCD_OK);
    got g;
    g_check = check_arrays;
    g_arrays_size = n;
    decode_file(&pcd_fx_arrays_v1_format, out, n, &g, 5);
    g_check = NULL;
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 2);
    got_free(&g);
    json_roundtrip(&pcd_fx_arrays_v1_format, out, n);
    /* the count expression must hold when encoding */
    r.n_twice = 3;
    encode_file(&pcd_fx_arrays_v1_format, &root, recs, 1, false, PCD_E_SIZE);
    r.n_twice = 4;
    /* the terminator must be last */
    r.n_counters = 2;
    encode_file(&pcd_fx_arrays_v1_format, &root, recs, 1, false, PCD_E_INVALID);
}

/* ---- stream state, deltas, bases, nested sized regions, recovery ------------------------ */

static void test_stream(void **state)
{
    (void)state;
    pcd_fx_stream_v2_file root = { 0 };
    root.version = 2;
    pcd_fx_stream_v2_buffer b1 = { 0 }, b2 = { 0 };
    b1.time_base = 1000;
    b1.obj_base = 0x100;
    b2.time_base = 5000;
    b2.obj_base = 0x200;
    pcd_fx_stream_v2_event e1 = { 0 }, e2 = { 0 }, e3 = { 0 };
    e1.type = 1;
    e1.time = 1005;
    e2.type = 2;
    e2.time = 1010;
    e2.has_obj = true;
    e2.obj = 0x880;
    e3.type = 2;
    e3.time = 6000;
    e3.has_obj = true;
    e3.obj = 0x1000;
    const pcd_region_desc *B_ = &pcd_fx_stream_v2_region_buffers, *E = &pcd_fx_stream_v2_region_events;
    rec_in recs[] = { { B_, &b1 }, { E, &e1 }, { E, &e2 }, { B_, &b2 }, { E, &e3 } };
    size_t n = encode_file(&pcd_fx_stream_v2_format, &root, recs, 5, false, PCD_OK);
    /* deltas on the wire: 5, then 5 after 1005; the object as (0x880>>3) - 0x100 */
    got g;
    decode_file(&pcd_fx_stream_v2_format, out, n, &g, 4);
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 6);
    const pcd_fx_stream_v2_buffer *bd = (const void *)g.data[1];
    assert_int_equal(bd->len, 2 + 3);
    const pcd_fx_stream_v2_event *ev = (const void *)g.data[3];
    assert_int_equal(ev->time, 1010);
    assert_int_equal(ev->obj, 0x880);
    ev = (const void *)g.data[5];
    assert_int_equal(ev->time, 6000);
    assert_int_equal(ev->obj, 0x1000);
    got_free(&g);
    json_roundtrip(&pcd_fx_stream_v2_format, out, n);
    /* an address that is not a multiple of 8 cannot be stored */
    e2.obj = 0x881;
    encode_file(&pcd_fx_stream_v2_format, &root, recs, 5, false, PCD_E_RANGE);
    e2.obj = 0x880;
    /* damage inside the first buffer's events: the rest of that buffer is dropped,
     * the second buffer is still read */
    n = encode_file(&pcd_fx_stream_v2_format, &root, recs, 5, false, PCD_OK);
    size_t ev1 = 4 + 24; /* "FXS" + version, buffer header */
    out[ev1] = 9;        /* not an event type */
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_fx_stream_v2_format, out, n, &o), PCD_OK);
    pcd_record rec;
    size_t events = 0, buffers = 0, errors = 0;
    for (;;) {
        pcd_status st = pcd_reader_next(&r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            errors++;
            assert_int_equal(pcd_reader_error(&r)->offset, ev1);
            assert_int_equal(pcd_reader_recover(&r, NULL), PCD_OK);
            continue;
        }
        if (rec.type == &pcd_fx_stream_v2_event_type) events++;
        if (rec.type == &pcd_fx_stream_v2_buffer_type) buffers++;
    }
    assert_int_equal(errors, 1);
    assert_int_equal(buffers, 2);
    assert_int_equal(events, 1);
    pcd_reader_close(&r);
}

/* ---- stream transforms on array elements; a size that counts a string's NUL ------------ */

static bool elems_frames(const pcd_record *rec, const void **elems, size_t *n)
{
    if (rec->type != &pcd_fx_elems_v1_event_type) return false;
    const pcd_fx_elems_v1_event *e = rec->data;
    *elems = e->frames;
    *n = e->n_frames;
    return true;
}

/* test_elems's run loop check: each event as pcd_reader_decode_run hands it over */
typedef struct {
    uint32_t bits;
    size_t events;
} elems_run;

static pcd_status elems_run_event(void *ud, const pcd_record *rec)
{
    elems_run *er = ud;
    if (rec->region != &pcd_fx_elems_v1_region_events) return PCD_OK;
    const pcd_fx_elems_v1_event *ed = rec->data;
    bool fr = (er->bits & PCD_FX_ELEMS_V1_COUNT_ONLY_FRAMES) != 0, ob = (er->bits & PCD_FX_ELEMS_V1_COUNT_ONLY_OBJS) != 0;
    switch (er->events++) {
    case 0: /* e1: 3 frames, 2 objects, the method relative to the last frame */
        assert_int_equal(ed->n_frames, 3);
        assert_int_equal(ed->n_objs, 2);
        if (fr) assert_null(ed->frames);
        else {
            assert_int_equal(ed->frames[0], 0x1010);
            assert_int_equal(ed->frames[2], 0x2000);
        }
        if (ob) assert_null(ed->objs);
        else assert_int_equal(ed->objs[1], 0x1080);
        assert_int_equal(ed->method, 0x2004);
        break;
    case 1:
        assert_int_equal(ed->method, 0x1fff);
        break;
    case 2: /* e3: one frame, one pair (the pairs share the frames' name) */
        assert_int_equal(ed->n_frames, 1);
        assert_int_equal(ed->n_pairs, 1);
        if (fr) {
            assert_null(ed->frames);
            assert_null(ed->pairs);
        } else {
            assert_int_equal(ed->frames[0], 0x4ff0);
            assert_int_equal(ed->pairs[0].offset, 24);
        }
        break;
    case 3:
        assert_int_equal(ed->n_pairs, 2);
        if (fr) assert_null(ed->pairs);
        else assert_int_equal(ed->pairs[1].obj, 0x1808);
        assert_int_equal(ed->method, 0x5000);
        break;
    default:
        fail_msg("more events than written");
    }
    return PCD_OK;
}

static void elems_drun(const uint8_t *data, size_t n, uint32_t bits)
{
    pcd_alloc al0;
    pcd_alloc_init(&al0, pcd_alloc_libc, NULL, 0);
    pcd_reader r0;
    pcd_reader_opts o0 = { .al = &al0, .count_only = bits };
    assert_int_equal(pcd_reader_open_buffer(&r0, &pcd_fx_elems_v1_format, data, n, &o0), PCD_OK);
    elems_run er = { bits, 0 };
    uint64_t in_runs = 0;
    for (;;) {
        uint64_t k = 0;
        assert_int_equal(pcd_reader_decode_run(&r0, UINT64_MAX, &k, elems_run_event, &er), PCD_OK);
        in_runs += k;
        pcd_record rec0;
        pcd_status st = pcd_reader_next(&r0, &rec0);
        if (st == PCD_END) break;
        assert_int_equal(st, PCD_OK);
        assert_int_equal(elems_run_event(&er, &rec0), PCD_OK);
    }
    assert_int_equal(er.events, 4);
    assert_true(in_runs >= 3); /* the events went through the run loop, not record by record */
    pcd_reader_close(&r0);
}

static void test_elems(void **state)
{
    (void)state;
    pcd_fx_elems_v1_file root = { 0 };
    root.name = (pcd_bytes){ (const uint8_t *)"abc", 3 };
    pcd_fx_elems_v1_block b1 = { 0 }, b2 = { 0 };
    b1.method_base = 0x1000;
    b1.obj_base = 0x200;
    b2.method_base = 0x5000;
    b2.obj_base = 0x300;
    int64_t fr1[] = { 0x1010, 0x1008, 0x2000 }, ob1[] = { 0x1000, 0x1080 }, fr2[] = { 0x4ff0 };
    pcd_fx_elems_v1_event e1 = { 0 }, e2 = { 0 }, e3 = { 0 }, e4 = { 0 };
    e1.frames = fr1;
    e1.n_frames = 3;
    e1.objs = ob1;
    e1.n_objs = 2;
    e1.method = 0x2004;
    e2.method = 0x1fff;
    e3.frames = fr2;
    e3.n_frames = 1;
    e3.method = 0x5000;
    pcd_fx_elems_v1_event_pairs pr[2] = { { 8, 0x1800 }, { 16, 0x1808 } }, pr2[1] = { { 24, 0x1000 } };
    e3.pairs = pr2;
    e3.n_pairs = 1;
    e4.pairs = pr;
    e4.n_pairs = 2;
    e4.method = 0x5000;
    const pcd_region_desc *B_ = &pcd_fx_elems_v1_region_blocks, *E = &pcd_fx_elems_v1_region_events;
    rec_in recs[] = { { B_, &b1 }, { E, &e1 }, { E, &e2 }, { B_, &b2 }, { E, &e3 }, { E, &e4 } };
    size_t n = encode_file(&pcd_fx_elems_v1_format, &root, recs, 6, false, PCD_OK);
    /* "FXE", the size 4 (3 bytes and the NUL), "abc\0" */
    assert_int_equal(out[3], 4);
    assert_memory_equal(out + 7, "abc", 4);
    /* frames run on from the block's method base: +0x10, -8, +0xff8 */
    size_t ev = 3 + 4 + 4 + 24;
    assert_int_equal(out[ev], 3);
    assert_int_equal(out[ev + 1], 0x10);
    assert_int_equal(out[ev + 2], 0x78); /* -8 */
    /* objects: (address >> 3) - obj_base: 0x200 - 0x200 = 0, 0x210 - 0x200 = 0x10 */
    assert_int_equal(out[ev + 5], 2);
    assert_int_equal(out[ev + 6], 0);
    assert_int_equal(out[ev + 7], 0x10);
    /* pair offsets run from 0 in each event (reset), not on from e3's 24: e4 ends with
     * count 2, offset +8, obj 0, offset +8, obj 1 */
    static const uint8_t tail[] = { 2, 8, 0, 8, 1 };
    assert_true(n >= sizeof tail);
    assert_memory_equal(out + n - sizeof tail, tail, sizeof tail);
    got g;
    decode_file(&pcd_fx_elems_v1_format, out, n, &g, 0);
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 7);
    const pcd_fx_elems_v1_file *rd = (const void *)g.data[0];
    assert_int_equal(rd->name_size, 4);
    assert_int_equal(rd->name.len, 3);
    got_free(&g);
    /* arrays live in the reader's arena until the next record: check them as they come */
    {
        pcd_alloc al0;
        pcd_alloc_init(&al0, pcd_alloc_libc, NULL, 0);
        pcd_reader r0;
        pcd_reader_opts o0 = { &al0, NULL, 0, false };
        assert_int_equal(pcd_reader_open_buffer(&r0, &pcd_fx_elems_v1_format, out, n, &o0), PCD_OK);
        pcd_record rec0;
        size_t k = 0;
        while (pcd_reader_next(&r0, &rec0) == PCD_OK) {
            const pcd_fx_elems_v1_event *ed = rec0.data;
            if (k == 2) {
                assert_int_equal(ed->n_frames, 3);
                assert_int_equal(ed->frames[0], 0x1010);
                assert_int_equal(ed->frames[1], 0x1008);
                assert_int_equal(ed->frames[2], 0x2000);
                assert_int_equal(ed->objs[1], 0x1080);
                assert_int_equal(ed->method, 0x2004);
            } else if (k == 3) {
                assert_int_equal(ed->method, 0x1fff);
            } else if (k == 5) {
                assert_int_equal(ed->frames[0], 0x4ff0);
                assert_int_equal(ed->n_pairs, 1);
                assert_int_equal(ed->pairs[0].offset, 24);
            } else if (k == 6) {
                assert_int_equal(ed->n_pairs, 2);
                assert_int_equal(ed->pairs[0].offset, 8);
                assert_int_equal(ed->pairs[1].offset, 16);
                assert_int_equal(ed->pairs[1].obj, 0x1808);
            }
            k++;
        }
        assert_int_equal(k, 7);
        pcd_reader_close(&r0);
    }
    /* count only (both names): no elements, the same counts, and the running method moved on
     * by the frames as when they are stored (e1's method, 0x2004, is relative to its last frame;
     * the pairs' running offsets likewise) */
    {
        pcd_alloc al0;
        pcd_alloc_init(&al0, pcd_alloc_libc, NULL, 0);
        pcd_reader r0;
        pcd_reader_opts o0 = { .al = &al0, .count_only = PCD_FX_ELEMS_V1_COUNT_ONLY_FRAMES | PCD_FX_ELEMS_V1_COUNT_ONLY_OBJS };
        assert_int_equal(pcd_reader_open_buffer(&r0, &pcd_fx_elems_v1_format, out, n, &o0), PCD_OK);
        pcd_record rec0;
        size_t k = 0;
        while (pcd_reader_next(&r0, &rec0) == PCD_OK) {
            const pcd_fx_elems_v1_event *ed = rec0.data;
            if (k == 2) {
                assert_int_equal(ed->n_frames, 3);
                assert_null(ed->frames);
                assert_int_equal(ed->n_objs, 2);
                assert_null(ed->objs);
                assert_int_equal(ed->method, 0x2004);
            } else if (k == 3) {
                assert_int_equal(ed->method, 0x1fff);
            } else if (k == 6) {
                assert_int_equal(ed->n_pairs, 2);
                assert_null(ed->pairs);
                assert_int_equal(ed->method, 0x5000);
            }
            k++;
        }
        assert_int_equal(k, 7);
        pcd_reader_close(&r0);
    }
    /* the run loop (pcd_reader_decode_run: the region's _drun, a copy of its loop per choice of
     * bits) under each choice, both names, each alone, none: an event's arrays stored or counted
     * as its bits say, the running values as when stored */
    for (uint32_t bits = 0; bits < 4; bits++)
        elems_drun(out, n, (bits & 1 ? PCD_FX_ELEMS_V1_COUNT_ONLY_FRAMES : 0) |
                               (bits & 2 ? PCD_FX_ELEMS_V1_COUNT_ONLY_OBJS : 0));
    /* cut at every length, whole and streamed: the same records, state and errors with the
     * arrays counted as stored (tests/runtime/count_only.h) */
    for (size_t cut = 1; cut <= n; cut++)
        for (size_t chunk = 0; chunk <= 3; chunk += 3)
            co_same(&pcd_fx_elems_v1_format, out, cut, PCD_FX_ELEMS_V1_COUNT_ONLY_FRAMES | PCD_FX_ELEMS_V1_COUNT_ONLY_OBJS,
                    elems_frames, chunk);
    json_roundtrip(&pcd_fx_elems_v1_format, out, n);
    /* an object address that is not a multiple of 8 cannot be stored */
    ob1[1] = 0x1081;
    encode_file(&pcd_fx_elems_v1_format, &root, recs, 5, false, PCD_E_RANGE);
    ob1[1] = 0x1080;
    /* a size that does not end at the NUL */
    n = encode_file(&pcd_fx_elems_v1_format, &root, recs, 5, false, PCD_OK);
    out[3] = 5;
    decode_file(&pcd_fx_elems_v1_format, out, n, &g, 0);
    assert_int_equal(g.end, PCD_E_SIZE);
    got_free(&g);
    out[3] = 4;
    /* a damaged block header: recovery skips the block by its len (which counts the bytes
     * after the 24-byte header) and reads the next one */
    out[7 + 4] = 'X';
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_fx_elems_v1_format, out, n, &o), PCD_OK);
    pcd_record rec;
    size_t events = 0, blocks = 0, errors = 0;
    uint64_t resume = 0;
    for (;;) {
        pcd_status st = pcd_reader_next(&r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            errors++;
            assert_int_equal(pcd_reader_recover(&r, &resume), PCD_OK);
            continue;
        }
        if (rec.type == &pcd_fx_elems_v1_event_type) events++;
        if (rec.type == &pcd_fx_elems_v1_block_type) blocks++;
    }
    assert_int_equal(errors, 1);
    assert_int_equal(blocks, 1);
    assert_int_equal(events, 1);
    assert_int_equal(resume, 11 + 24 + out[11 + 4]);
    pcd_reader_close(&r);
}

/* ---- zstd regions ---------------------------------------------------------------------- */

static void test_zstd(void **state)
{
    (void)state;
    static pcd_fx_zstd_v1_sample samples[200];
    rec_in recs[200];
    for (int i = 0; i < 200; i++) {
        samples[i].tid = (uint32_t)(i % 3);
        samples[i].value = (uint64_t)i * 1000;
        recs[i] = (rec_in){ &pcd_fx_zstd_v1_region_samples, &samples[i] };
    }
    for (int comp = 0; comp < 2; comp++) {
        pcd_fx_zstd_v1_file root = { 0 };
        root.compression = (uint8_t)comp;
        size_t n = encode_file(&pcd_fx_zstd_v1_format, &root, recs, 200, false, PCD_OK);
        if (comp) assert_true(n < 4 + 4 + 200 * 5); /* it really is compressed */
        got g;
        decode_file(&pcd_fx_zstd_v1_format, out, n, &g, 0);
        assert_int_equal(g.end, PCD_END);
        assert_int_equal(g.n, 64);
        const pcd_fx_zstd_v1_sample *s = (const void *)g.data[63];
        assert_int_equal(s->value, 62000);
        got_free(&g);
        json_roundtrip(&pcd_fx_zstd_v1_format, out, n);
        if (comp) {
            /* a cut compressed region is an error, and nothing after the damage is invented */
            static uint8_t cut[1 << 16];
            memcpy(cut, out, n);
            cut[4] -= 3; /* size: 3 bytes short */
            decode_file(&pcd_fx_zstd_v1_format, cut, n - 3, &g, 0);
            assert_int_equal(g.end, PCD_E_ZSTD);
            got_free(&g);
        }
    }
}

/* ---- whole-file layout: header offsets, footer from the end, counted table --------------- */

static size_t g_tables_names;

static void check_tables(size_t i, const void *rec)
{
    (void)i;
    (void)rec;
    g_tables_names++;
}

static void test_tables(void **state)
{
    (void)state;
    static pcd_fx_tables_v1_value vals[100];
    static pcd_fx_tables_v1_name names[3];
    rec_in recs[103];
    for (int i = 0; i < 100; i++) {
        vals[i].v = (i % 2 ? -1 : 1) * (int64_t)i * 1000;
        recs[i] = (rec_in){ &pcd_fx_tables_v1_region_values, &vals[i] };
    }
    static const char *nm[3] = { "alpha", "", "gamma" };
    for (int i = 0; i < 3; i++) {
        names[i].s = B(nm[i]);
        recs[100 + i] = (rec_in){ &pcd_fx_tables_v1_region_names, &names[i] };
    }
    for (int comp = 0; comp < 2; comp++) {
        for (int big = 0; big < 2; big++) {
            pcd_fx_tables_v1_file root = { 0 };
            root.compression = (uint16_t)comp;
            root.flags = 7;
            size_t n = encode_file(&pcd_fx_tables_v1_format, &root, recs, 103, big, PCD_OK);
            /* the footer: name count and file size, and the magic at the very end */
            assert_memory_equal(out + n - 4, "END!", 4);
            uint64_t fsz = big ? pcd_ld_u64be(out + n - 12) : pcd_ld_u64le(out + n - 12);
            assert_int_equal(fsz, n);
            assert_int_equal(big ? pcd_ld_u32be(out + n - 16) : pcd_ld_u32le(out + n - 16), 3);
            got g;
            g_tables_names = 0;
            decode_file(&pcd_fx_tables_v1_format, out, n, &g, 0);
            assert_int_equal(g.end, PCD_END);
            const pcd_fx_tables_v1_file *rt = (const void *)g.data[0];
            assert_int_equal(rt->flags, 7);
            assert_int_equal(rt->name_count, 3);
            assert_int_equal(rt->values.compression, comp);
            assert_int_equal(g.n, 64); /* capped by the helper; the count below is exact */
            got_free(&g);
            g_check = check_tables;
            g_tables_names = 0;
            decode_file(&pcd_fx_tables_v1_format, out, n, &g, 0);
            g_check = NULL;
            assert_int_equal(g_tables_names, 1 + 100 + 3);
            got_free(&g);
            json_roundtrip(&pcd_fx_tables_v1_format, out, n);
            /* a header offset past the end of the file is an error, not a wild read */
            static uint8_t bad[1 << 16];
            memcpy(bad, out, n);
            if (big) pcd_st_u64be(bad + 8, (uint64_t)n + 100);
            else pcd_st_u64le(bad + 8, (uint64_t)n + 100);
            decode_file(&pcd_fx_tables_v1_format, bad, n, &g, 0);
            assert_int_equal(g.end, PCD_E_RANGE);
            got_free(&g);
            /* a footer count beyond the table stops at the footer, with an error */
            memcpy(bad, out, n);
            if (big) pcd_st_u32be(bad + n - 16, 1000);
            else pcd_st_u32le(bad + n - 16, 1000);
            decode_file(&pcd_fx_tables_v1_format, bad, n, &g, 0);
            assert_true(PCD_IS_ERROR(g.end));
            got_free(&g);
            /* a file too short for its footer */
            decode_file(&pcd_fx_tables_v1_format, out, 10, &g, 0);
            assert_true(PCD_IS_ERROR(g.end));
            got_free(&g);
        }
    }
}

/* An optional trailer found from the end, a conditional region it sizes, bounds and checks
 * computed from fields and from the input's size, conditions decided by presence. */
static void test_trailer(void **state)
{
    (void)state;
    static pcd_fx_trailer_v1_item items[5];
    rec_in recs[6];
    for (int i = 0; i < 5; i++) {
        items[i].v = (uint64_t)i * 300;
        items[i].w = i == 4 ? UINT64_MAX : (uint64_t)i << 40;
        recs[i] = (rec_in){ &pcd_fx_trailer_v1_region_items, &items[i] };
    }
    for (int kind = 0; kind < 4; kind++) {
        /* 0: no extra block; 1: a; 2: a, b; 3: a, b, rest */
        pcd_fx_trailer_v1_extra ex;
        memset(&ex, 0, sizeof ex);
        ex.a = 7;
        ex.has_b = kind >= 2;
        ex.b = 9;
        ex.has_rest = kind == 3;
        ex.rest = B("zz");
        recs[5] = (rec_in){ &pcd_fx_trailer_v1_region_extra, &ex };
        for (int big = 0; big < 2; big++) {
            pcd_fx_trailer_v1_file root;
            memset(&root, 0, sizeof root);
            root.mode = 0x12;
            root.extra_tag = kind > 0;
            size_t n = encode_file(&pcd_fx_trailer_v1_format, &root, recs, kind ? 6 : 5, big, PCD_OK);
            got g;
            decode_file(&pcd_fx_trailer_v1_format, out, n, &g, 0);
            assert_int_equal(g.end, PCD_END);
            const pcd_fx_trailer_v1_file *rt = (const void *)g.data[0];
            assert_int_equal(rt->mode, 0x12);
            assert_int_equal(rt->item_count, 5);
            assert_int_equal(rt->extra_tag, kind > 0);
            assert_int_equal(rt->extra.absent, kind == 0);
            static const uint32_t sizes[4] = { 0, 10, 12, 14 };
            assert_int_equal(rt->has_extra_size, kind > 0);
            assert_int_equal(rt->extra_size, sizes[kind]);
            assert_int_equal(g.n, kind ? 7 : 6);
            if (kind) {
                const pcd_fx_trailer_v1_extra *e = (const void *)g.data[6];
                assert_int_equal(e->a, 7);
                assert_int_equal(e->has_b, kind >= 2);
                assert_int_equal(e->has_rest, kind == 3);
                if (kind == 3) assert_memory_equal(e->rest.ptr, "zz", 2);
            }
            got_free(&g);
            json_roundtrip(&pcd_fx_trailer_v1_format, out, n);
            if (kind == 0) {
                /* the last item's w is ff x9 01; with the 10th byte's high bits set it reads
                 * the same (wrap), where a plain uleb128 would refuse it */
                static uint8_t wide[1 << 12];
                memcpy(wide, out, n);
                size_t at = n - 4 - 1;
                assert_int_equal(wide[at], 0x01);
                wide[at] = 0x7F;
                decode_file(&pcd_fx_trailer_v1_format, wide, n, &g, 0);
                assert_int_equal(g.end, PCD_END);
                assert_true(((const pcd_fx_trailer_v1_item *)(const void *)g.data[5])->w == UINT64_MAX);
                got_free(&g);
            }
            static uint8_t bad[1 << 12];
            /* a check over bits: mode 6 */
            memcpy(bad, out, n);
            bad[big ? 5 : 4] = 6;
            decode_file(&pcd_fx_trailer_v1_format, bad, n, &g, 0);
            assert_int_equal(g.end, PCD_E_RANGE);
            assert_int_equal(g.err.offset, 4);
            got_free(&g);
            /* a bound from the input's size */
            memcpy(bad, out, n);
            if (big) pcd_st_u32be(bad + 6, (uint32_t)n + 1);
            else pcd_st_u32le(bad + 6, (uint32_t)n + 1);
            decode_file(&pcd_fx_trailer_v1_format, bad, n, &g, 0);
            assert_int_equal(g.end, PCD_E_RANGE);
            assert_int_equal(g.err.offset, 6);
            got_free(&g);
            if (kind) {
                /* a trailer size below its own 8 bytes, and one past the start of the file */
                for (int t = 0; t < 2; t++) {
                    memcpy(bad, out, n);
                    uint32_t v = t ? (uint32_t)n : 7;
                    if (big) pcd_st_u32be(bad + n - 8, v);
                    else pcd_st_u32le(bad + n - 8, v);
                    decode_file(&pcd_fx_trailer_v1_format, bad, n, &g, 0);
                    assert_int_equal(g.end, PCD_E_RANGE);
                    assert_int_equal(g.err.offset, n - 8);
                    got_free(&g);
                }
                /* without its tag the block is not there (the bytes stay as they are) */
                memcpy(bad, out, n);
                bad[n - 12] = 'Y';
                decode_file(&pcd_fx_trailer_v1_format, bad, n, &g, 0);
                assert_int_equal(g.end, PCD_END);
                assert_int_equal(((const pcd_fx_trailer_v1_file *)(const void *)g.data[0])->extra_tag, false);
                assert_int_equal(g.n, 6);
                got_free(&g);
            }
        }
    }
    /* records for a region whose condition is false are refused */
    pcd_fx_trailer_v1_extra ex;
    memset(&ex, 0, sizeof ex);
    recs[5] = (rec_in){ &pcd_fx_trailer_v1_region_extra, &ex };
    pcd_fx_trailer_v1_file root;
    memset(&root, 0, sizeof root);
    encode_file(&pcd_fx_trailer_v1_format, &root, recs, 6, false, PCD_E_INVALID);
    /* the encoder checks the bits too */
    root.mode = 7;
    encode_file(&pcd_fx_trailer_v1_format, &root, recs, 5, false, PCD_E_RANGE);
}

/* ---- named blocks: name tags, regions opened by union cases, zstd frames of batches ------- */


static void count_batches(pcd_reader *r, size_t *b16, size_t *b64, uint64_t *sum, size_t *batches, pcd_status *end,
                          uint64_t *err_off)
{
    pcd_record rec;
    pcd_status st;
    *b16 = *b64 = *batches = 0;
    *sum = 0;
    while ((st = pcd_reader_next(r, &rec)) == PCD_OK || (st != PCD_END && pcd_reader_recover(r, NULL) == PCD_OK)) {
        if (st != PCD_OK) continue;
        if (rec.type == &pcd_fx_blocks_v1_u16_batch_type) {
            const pcd_fx_blocks_v1_u16_batch *b = rec.data;
            assert_true(b->n_v >= 1 && b->n_v <= 4);
            *b16 += b->n_v;
            for (size_t k = 0; k < b->n_v; k++) *sum += b->v[k];
            (*batches)++;
        } else if (rec.type == &pcd_fx_blocks_v1_u64_batch_type) {
            const pcd_fx_blocks_v1_u64_batch *b = rec.data;
            assert_true(b->n_v >= 1 && b->n_v <= 1000);
            *b64 += b->n_v;
            for (size_t k = 0; k < b->n_v; k++) *sum += b->v[k];
            (*batches)++;
        }
    }
    *end = st;
    *err_off = pcd_reader_error(r)->offset;
}

static void test_blocks(void **state)
{
    (void)state;
    static uint16_t v16[10];
    static uint64_t v64[2500];
    uint64_t want = 0;
    for (int i = 0; i < 10; i++) want += v16[i] = (uint16_t)(i * 3 + 1);
    for (int i = 0; i < 2500; i++) want += v64[i] = (uint64_t)i * 7919u;
    pcd_fx_blocks_v1_block note = { 0 }, c16 = { 0 }, more = { 0 }, c64 = { 0 }, e8 = { 0 };
    note.which = PCD_FX_BLOCKS_V1_BLOCK_NOTE;
    note.u.note.text = B("hello");
    c16.which = PCD_FX_BLOCKS_V1_BLOCK_U16S;
    c16.u.u16s.width = 2;
    more.which = PCD_FX_BLOCKS_V1_BLOCK_U16_MORE;
    more.u.u16_more.width = 2;
    c64.which = PCD_FX_BLOCKS_V1_BLOCK_U64S;
    e8.which = PCD_FX_BLOCKS_V1_BLOCK_EXACTLY8;
    /* how the writer is handed the entries does not matter: one frame per block */
    pcd_fx_blocks_v1_u16_batch b16a = { v16, 3 }, b16b = { v16 + 3, 7 };
    pcd_fx_blocks_v1_u64_batch b64 = { v64, 2500 };
    const pcd_region_desc *BL = &pcd_fx_blocks_v1_region_blocks, *E16 = &pcd_fx_blocks_v1_region_column16_entries,
                          *E64 = &pcd_fx_blocks_v1_region_column64_entries;
    rec_in recs[] = { { BL, &note }, { BL, &c16 }, { E16, &b16a }, { E16, &b16b }, { BL, &more },
                      { BL, &c64 },  { E64, &b64 }, { BL, &e8 } };
    pcd_fx_blocks_v1_file root = { 0 };
    size_t n = encode_file(&pcd_fx_blocks_v1_format, &root, recs, 8, false, PCD_OK);
    /* the kind names, NUL-padded; the first frame right after the u16s header, with no
     * content size in its header (the size is stored nowhere, not even there) */
    assert_memory_equal(out + 8, "note\0\0\0\0", 8);
    size_t f16 = 8 + 8 + 2 + 5 + 8 + 2;
    assert_memory_equal(out + f16 - 10, "u16s\0\0\0\0", 8);
    assert_int_equal(pcd_ld_u32le(out + f16), 0xFD2FB528u);
    assert_int_equal(out[f16 + 4] & 0xC0, 0);
    got g;
    decode_file(&pcd_fx_blocks_v1_format, out, n, &g, 0);
    assert_int_equal(g.end, PCD_END);
    /* root, note, u16s, 3 batches (4+4+2), u16more (no entries), u64s, 3 batches, exactly8 */
    assert_int_equal(g.n, 12);
    assert_ptr_equal(g.type[3], &pcd_fx_blocks_v1_u16_batch_type);
    assert_ptr_equal(g.type[6], &pcd_fx_blocks_v1_block_type);
    const pcd_fx_blocks_v1_block *bm = (const void *)g.data[6];
    assert_int_equal(bm->which, PCD_FX_BLOCKS_V1_BLOCK_U16_MORE);
    assert_int_equal(((const pcd_fx_blocks_v1_block *)g.data[11])->which, PCD_FX_BLOCKS_V1_BLOCK_EXACTLY8);
    got_free(&g);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    size_t n16, n64, batches;
    uint64_t sum, eoff;
    pcd_status end;
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_fx_blocks_v1_format, out, n, &o), PCD_OK);
    count_batches(&r, &n16, &n64, &sum, &batches, &end, &eoff);
    pcd_reader_close(&r);
    assert_int_equal(end, PCD_END);
    assert_int_equal(n16, 10);
    assert_int_equal(n64, 2500);
    assert_int_equal(batches, 6);
    assert_int_equal(sum, want);
    json_roundtrip(&pcd_fx_blocks_v1_format, out, n);

    /* cut anywhere: every record before the cut, then an error (never a crash or a hang) */
    static uint8_t cut[1 << 16];
    size_t ends[6], ne = 0, at = 8;
    ends[ne++] = at;
    ends[ne++] = at += 8 + 2 + 5;
    ends[ne++] = at += 10 + ZSTD_findFrameCompressedSize(out + at + 10, n - at - 10);
    ends[ne++] = at += 10 + ZSTD_findFrameCompressedSize(out + at + 10, n - at - 10);
    ends[ne++] = at += 8 + ZSTD_findFrameCompressedSize(out + at + 8, n - at - 8);
    ends[ne++] = at += 8;
    assert_int_equal(at, n);
    /* Sized for CI (each read of a cut opens its zstd frames again, a fresh window: under the
     * sanitizers most of this program's time): every cut within 2 bytes of a record's end and
     * in the first 64 bytes, every 5th elsewhere, the fuzz invariants on every 35th; every cut,
     * and the invariants on every 7th, under PCD_TEST_LONG=1 (make test-long) */
    const char *long_env = getenv("PCD_TEST_LONG");
    size_t step = long_env && strcmp(long_env, "0") != 0 ? 1 : 5;
    for (size_t k = 0; k < n; k++) {
        bool near = k < 64;
        for (size_t e = 0; e < ne; e++) near = near || (k + 2 >= ends[e] && k <= ends[e] + 2);
        if (!near && k % step != 0) continue;
        memcpy(cut, out, k);
        decode_file(&pcd_fx_blocks_v1_format, cut, k, &g, 0);
        bool boundary = false;
        for (size_t e = 0; e < ne; e++) boundary = boundary || ends[e] == k;
        if (boundary) assert_int_equal(g.end, PCD_END);
        else assert_true(PCD_IS_ERROR(g.end));
        got_free(&g);
        if (k % (7 * step) == 0) pcd_fuzz_one(&pcd_fx_blocks_v1_format, cut, k);
    }
    /* cut inside the u64s frame: the error is at the frame's start, and names the region */
    size_t f64 = f16;
    while (memcmp(out + f64, "u64s\0\0\0\0", 8) != 0) f64++;
    f64 += 8;
    decode_file(&pcd_fx_blocks_v1_format, out, f64 + 20, &g, 0);
    assert_int_equal(g.end, PCD_E_TRUNCATED);
    assert_int_equal(g.err.offset, f64);
    assert_string_equal(path_of(&g.err), "entries");
    got_free(&g);

    /* junk after the NUL of a name is not part of it (older MoarVM writers left some) */
    memcpy(cut, out, n);
    cut[8 + 6] = 'X';
    decode_file(&pcd_fx_blocks_v1_format, cut, n, &g, 0);
    assert_int_equal(g.end, PCD_END);
    got_free(&g);
    /* an unknown name: a bad tag, with the name's bytes as what was found */
    memcpy(cut + 8, "nope\0\0\0\0", 8);
    decode_file(&pcd_fx_blocks_v1_format, cut, n, &g, 0);
    assert_int_equal(g.end, PCD_E_BAD_TAG);
    assert_int_equal(g.err.offset, 8);
    assert_int_equal(g.err.found, 0x6e6f706500000000u);
    got_free(&g);

    /* damage inside the u16s frame: recovery resynchronises on the next block name */
    memcpy(cut, out, n);
    for (size_t k = f16 + 6; k < f16 + 12; k++) cut[k] ^= 0x5a;
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_fx_blocks_v1_format, cut, n, &o), PCD_OK);
    count_batches(&r, &n16, &n64, &sum, &batches, &end, &eoff);
    pcd_reader_close(&r);
    assert_int_equal(end, PCD_END);
    assert_int_equal(n64, 2500);
    assert_true(n16 < 10);
    assert_int_equal(al.in_use, 0);

    /* a frame whose decoded length is not a whole number of entries */
    static uint8_t odd[256];
    memcpy(odd, "FXBLOCKSu16s\0\0\0\0\2\0", 18);
    size_t zn = ZSTD_compress(odd + 18, sizeof odd - 18, "\1\2\3\4\5", 5, 3);
    assert_false(ZSTD_isError(zn));
    decode_file(&pcd_fx_blocks_v1_format, odd, 18 + zn, &g, 0);
    assert_int_equal(g.end, PCD_E_SIZE);
    assert_string_equal(path_of(&g.err), "v");
    assert_non_null(g.err.region);
    got_free(&g);
    /* and bytes that are not a zstd frame at all */
    memset(odd + 18, 0x41, 16);
    decode_file(&pcd_fx_blocks_v1_format, odd, 18 + 16, &g, 0);
    assert_int_equal(g.end, PCD_E_ZSTD);
    assert_int_equal(g.err.offset, 18);
    got_free(&g);
}

/* ---- a footer that sizes the sections before it; strings up to the next section's name ----- */

static void test_footer(void **state)
{
    (void)state;
    pcd_fx_footer_v1_file root = { 0 };
    root.total = 99;
    static pcd_bytes strs[3];
    strs[0] = B("a");
    strs[1] = B("bb");
    strs[2] = B("");
    pcd_fx_footer_v1_section s1 = { 0 }, s2 = { 0 }, s3 = { 0 };
    s1.which = PCD_FX_FOOTER_V1_SECTION_STRS;
    s1.u.strs.first = 3;
    s1.u.strs.strings = strs;
    s1.u.strs.n_strings = 3;
    s2.which = PCD_FX_FOOTER_V1_SECTION_DONE;
    s2.u.done.x = 7;
    s3.which = PCD_FX_FOOTER_V1_SECTION_STRS; /* no strings, then the index */
    pcd_fx_footer_v1_index_entry i1 = { 1, 2 }, i2 = { 3, 4 };
    const pcd_region_desc *S = &pcd_fx_footer_v1_region_sections, *I = &pcd_fx_footer_v1_region_index;
    rec_in recs[] = { { S, &s1 }, { S, &s2 }, { I, &i1 }, { I, &i2 } };
    size_t n = encode_file(&pcd_fx_footer_v1_format, &root, recs, 4, false, PCD_OK);
    assert_int_equal(n, 4 + (4 + 8 + 4 + 1 + 4 + 2 + 4) + (4 + 1) + 2 * 16 + 16);
    assert_int_equal(pcd_ld_u64le(out + n - 8), 2);
    got g;
    decode_file(&pcd_fx_footer_v1_format, out, n, &g, 0);
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 5);
    const pcd_fx_footer_v1_section *d = (const void *)g.data[1];
    assert_int_equal(d->which, PCD_FX_FOOTER_V1_SECTION_STRS);
    assert_int_equal(d->u.strs.n_strings, 3);
    const pcd_fx_footer_v1_index_entry *ie = (const void *)g.data[4];
    assert_int_equal(ie->b, 4);
    got_free(&g);
    json_roundtrip(&pcd_fx_footer_v1_format, out, n);
    /* the strings need their terminator: a strs section last is cut short */
    rec_in recs2[] = { { S, &s1 }, { S, &s2 }, { S, &s3 }, { I, &i1 } };
    n = encode_file(&pcd_fx_footer_v1_format, &root, recs2, 4, false, PCD_OK);
    decode_file(&pcd_fx_footer_v1_format, out, n, &g, 0);
    assert_int_equal(g.end, PCD_E_TRUNCATED);
    assert_string_equal(path_of(&g.err), "strs.strings");
    got_free(&g);
    /* an index count the file cannot hold: an error, not a wild region */
    n = encode_file(&pcd_fx_footer_v1_format, &root, recs, 4, false, PCD_OK);
    static uint8_t bad[256];
    memcpy(bad, out, n);
    pcd_st_u64le(bad + n - 8, UINT64_C(1) << 62);
    decode_file(&pcd_fx_footer_v1_format, bad, n, &g, 0);
    assert_true(PCD_IS_ERROR(g.end));
    got_free(&g);
    for (size_t k = 0; k < n; k++) pcd_fuzz_one(&pcd_fx_footer_v1_format, out, k);
}

/* ---- relocated offsets: an index of earlier blocks moves with them ------------------------------ */

static void test_relocate(void **state)
{
    (void)state;
    static uint16_t v16[5] = { 1, 2, 3, 4, 5 };
    pcd_fx_blocks_v1_block note = { 0 }, c16 = { 0 }, idx = { 0 };
    note.which = PCD_FX_BLOCKS_V1_BLOCK_NOTE;
    note.u.note.text = B("hi");
    c16.which = PCD_FX_BLOCKS_V1_BLOCK_U16S;
    c16.u.u16s.width = 2;
    pcd_fx_blocks_v1_u16_batch b16 = { v16, 5 };
    idx.which = PCD_FX_BLOCKS_V1_BLOCK_INDEX;
    /* the note starts at 8, the u16s block after it (8 + 8 + 2 + 2) */
    idx.u.index.first = 8;
    idx.u.index.last = 20;
    const pcd_region_desc *BL = &pcd_fx_blocks_v1_region_blocks, *E16 = &pcd_fx_blocks_v1_region_column16_entries;
    rec_in recs[] = { { BL, &note }, { BL, &c16 }, { E16, &b16 }, { BL, &idx } };
    pcd_fx_blocks_v1_file root = { 0 };
    size_t n = encode_file(&pcd_fx_blocks_v1_format, &root, recs, 4, false, PCD_OK);
    uint64_t idx_at = n - 8 - 16;
    assert_int_equal(pcd_ld_u64le(out + idx_at + 8), 8);
    assert_int_equal(pcd_ld_u64le(out + idx_at + 16), 20);
    /* written again from where each record stood, with a longer note: the offsets move */
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    static uint8_t again[4096];
    pcd_sink s;
    pcd_sink_init(&s, again, sizeof again, NULL, NULL, NULL, &x);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_writer w;
    pcd_writer_open(&w, &pcd_fx_blocks_v1_format, &s, &al);
    assert_int_equal(pcd_writer_root(&w, &root), PCD_OK);
    note.u.note.text = B("a longer note");
    uint64_t origins[] = { 8, 20, 0, idx_at };
    for (int i = 0; i < 4; i++) {
        pcd_writer_set_origin(&w, origins[i]);
        assert_int_equal(pcd_writer_record(&w, recs[i].rd, recs[i].data), PCD_OK);
    }
    assert_int_equal(pcd_writer_finish(&w), PCD_OK);
    pcd_writer_close(&w);
    size_t m = s.len;
    assert_int_equal(m, n + 11);
    assert_int_equal(pcd_ld_u64le(again + m - 16), 8);
    assert_int_equal(pcd_ld_u64le(again + m - 8), 20 + 11);
    assert_memory_equal(again + 20 + 11, "u16s", 4);
    assert_int_equal(al.in_use, 0);
    /* records out of their original order cannot be relocated */
    pcd_sink_init(&s, again, sizeof again, NULL, NULL, NULL, &x);
    pcd_writer_open(&w, &pcd_fx_blocks_v1_format, &s, &al);
    assert_int_equal(pcd_writer_root(&w, &root), PCD_OK);
    pcd_writer_set_origin(&w, 20);
    assert_int_equal(pcd_writer_record(&w, BL, &note), PCD_OK);
    pcd_writer_set_origin(&w, 8);
    assert_int_equal(pcd_writer_record(&w, BL, &note), PCD_E_INVALID);
    pcd_writer_close(&w);
    assert_int_equal(al.in_use, 0);
}

/* ---- a union of many cases: one function per case --------------------------------------- */

static void check_cases(size_t i, const void *rec)
{
    const pcd_fx_cases_v1_ev *d = rec;
    if (i == 3) assert_memory_equal(d->u.name.s.ptr, "second tag", 10); /* valid while it is read */
}

static void test_cases(void **state)
{
    (void)state;
    pcd_fx_cases_v1_file root = { { 0 } };
    static uint16_t xs[] = { 1, 2, 0xffff };
    pcd_fx_cases_v1_ev e[7];
    memset(e, 0, sizeof e);
    e[0].which = PCD_FX_CASES_V1_EV_TICK;
    e[0].u.tick.t = 1000;
    e[0].u.tick.a = 100;
    e[1].which = PCD_FX_CASES_V1_EV_LIST;
    e[1].u.list.t = 1003; /* a delta of 3 from the tick before */
    e[1].u.list.xs = xs;
    e[1].u.list.n_xs = 3;
    e[2].which = PCD_FX_CASES_V1_EV_NAME;
    e[2].tag = 0x13;
    e[2].u.name.s = B("second tag");
    e[3].which = PCD_FX_CASES_V1_EV_NONE;
    e[4].which = PCD_FX_CASES_V1_EV_C16;
    e[4].u.c16.v = 1016;
    e[5].which = PCD_FX_CASES_V1_EV_OTHER;
    e[5].tag = 0x7f;
    e[5].u.other.b = 9;
    e[6].which = PCD_FX_CASES_V1_EV_C05;
    e[6].u.c05.v = 5;
    const pcd_region_desc *R = &pcd_fx_cases_v1_region_evs;
    rec_in recs[7];
    for (size_t i = 0; i < 7; i++) recs[i] = (rec_in){ R, &e[i] };
    size_t n = encode_file(&pcd_fx_cases_v1_format, &root, recs, 7, false, PCD_OK);
    /* tick: tag, delta 1000 (2 bytes), a; list: tag, delta 3, count, 3 x u16 */
    static const uint8_t head[] = { 0x01, 0xe8, 0x07, 100, 0x02, 0x03, 3, 1, 0, 2, 0, 0xff, 0xff, 0x13, 10 };
    assert_memory_equal(out, head, sizeof head);
    got g;
    g_check = check_cases;
    decode_file(&pcd_fx_cases_v1_format, out, n, &g, 3);
    g_check = NULL;
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 8);
    const pcd_fx_cases_v1_ev *d = (const void *)g.data[2];
    assert_int_equal(d->which, PCD_FX_CASES_V1_EV_LIST);
    assert_int_equal(d->u.list.t, 1003); /* the stream state ran through the case functions */
    d = (const void *)g.data[3];
    assert_int_equal(d->tag, 0x13);
    d = (const void *)g.data[5];
    assert_int_equal(d->u.c16.v, 1016);
    d = (const void *)g.data[6];
    assert_int_equal(d->which, PCD_FX_CASES_V1_EV_OTHER);
    assert_int_equal(d->tag, 0x7f);
    got_free(&g);
    json_roundtrip(&pcd_fx_cases_v1_format, out, n);
    /* a check inside a case fails with the case's path, decoding and encoding alike */
    static const uint8_t bad[] = { 0x01, 0x05, 101 };
    pcd_fx_cases_v1_ev one;
    pcd_error err;
    pcd_fx_cases_v1_evs_state t0 = { 0 };
    uint8_t block[256];
    pcd_arena a;
    pcd_arena_init(&a, block, sizeof block, NULL, 0);
    pcd_ctx x;
    pcd_ctx_init(&x, &a);
    x.state = &t0;
    pcd_cursor c = pcd_cursor_make(&x, bad, sizeof bad, 0, true);
    assert_int_equal(pcd_fx_cases_v1_ev_decode(&c, &one), PCD_E_RANGE);
    err = x.err;
    assert_string_equal(path_of(&err), "tick.a");
    assert_int_equal(err.offset, 2);
    c = pcd_cursor_make(&x, bad, sizeof bad, 0, true);
    assert_int_equal(pcd_fx_cases_v1_ev_validate(&c), PCD_E_RANGE);
    e[4].u.c16.v = 1017;
    rec_in over[] = { { R, &e[4] } };
    encode_file(&pcd_fx_cases_v1_format, &root, over, 1, false, PCD_E_RANGE);
}

/* ---- bits words: sub-fields read and built through the generated accessors ------------ */

static void test_bits(void **state)
{
    (void)state;
    /* accessors, make, pack and unpack agree; masks and shifts say where each sits */
    uint8_t st = pcd_fx_bits_v1_status_make(1, 5, 2, 0);
    assert_int_equal(st, 1 | 5 << 1 | 2 << 4);
    assert_int_equal(pcd_fx_bits_v1_status_level(st), 5);
    assert_int_equal(st & PCD_FX_BITS_V1_STATUS_MODE_MASK, 2 << PCD_FX_BITS_V1_STATUS_MODE_SHIFT);
    pcd_fx_bits_v1_status_bits sb = pcd_fx_bits_v1_status_unpack(st);
    assert_true(sb.busy == 1 && sb.level == 5 && sb.mode == 2 && sb.reserved == 0);
    assert_int_equal(pcd_fx_bits_v1_status_pack(sb), st);
    uint64_t h = pcd_fx_bits_v1_handle_make(2, UINT64_C(0x3fffffffffffffff));
    assert_int_equal(pcd_fx_bits_v1_handle_kind(h), 2);
    assert_true(pcd_fx_bits_v1_handle_index(h) == UINT64_C(0x3fffffffffffffff));
    assert_int_equal(pcd_fx_bits_v1_spare_hi(pcd_fx_bits_v1_spare_make(1, 0xabcd)), 0xabcd);
    assert_int_equal(pcd_fx_bits_v1_rec_tag_sub(0x12), 1);
    /* records keep the words as read; an expression reads a sub-field (n is there when flags.a != 0) */
    pcd_fx_bits_v1_file root = { { 0 } };
    static uint64_t handles[] = { 5, 7 << 2 | 1 };
    pcd_fx_bits_v1_rec r1 = { 0 }, r2 = { 0 }, r3 = { 0 };
    r1.which = PCD_FX_BITS_V1_REC_PLAIN;
    r1.u.plain.flags = pcd_fx_bits_v1_rec_plain_flags_make(3, 0xabc);
    r1.u.plain.st = st;
    r1.u.plain.handles = handles;
    r1.u.plain.n_handles = 2;
    r1.u.plain.has_n = true;
    r1.u.plain.n = 42;
    static pcd_fx_bits_v1_pair pairs[] = { { 300, UINT64_C(0xffffffffffffffff) }, { 1, 6 } };
    r1.u.plain.pairs = pairs;
    r1.u.plain.n_pairs = 2;
    r2 = r1;
    r2.u.plain.flags = pcd_fx_bits_v1_rec_plain_flags_make(0, 1);
    r2.u.plain.has_n = false;
    r3.which = PCD_FX_BITS_V1_REC_OTHER;
    const pcd_region_desc *R = &pcd_fx_bits_v1_region_recs;
    rec_in recs[] = { { R, &r1 }, { R, &r2 }, { R, &r3 } };
    size_t n = encode_file(&pcd_fx_bits_v1_format, &root, recs, 3, false, PCD_OK);
    assert_int_equal(n, (1 + 2 + 1 + 1 + 16 + 1 + 1 + (2 + 8) + (1 + 8)) + (1 + 2 + 1 + 1 + 16 + 1 + (2 + 8) + (1 + 8)) + 1);
    got g;
    decode_file(&pcd_fx_bits_v1_format, out, n, &g, 2);
    assert_int_equal(g.end, PCD_END);
    assert_int_equal(g.n, 4);
    const pcd_fx_bits_v1_rec *d = (const void *)g.data[1];
    assert_int_equal(pcd_fx_bits_v1_rec_plain_flags_b(d->u.plain.flags), 0xabc);
    assert_true(d->u.plain.has_n && d->u.plain.n == 42);
    assert_int_equal(d->u.plain.n_pairs, 2); /* read by the elements' fast path */
    d = (const void *)g.data[2];
    assert_false(d->u.plain.has_n);
    got_free(&g);
    json_roundtrip(&pcd_fx_bits_v1_format, out, n);
    /* a sub-field's check, with its path, decoding and encoding alike */
    uint8_t bad[] = { 0x01, 0x00, 0x00, (uint8_t)(6 << 1), 0 };
    pcd_fx_bits_v1_rec one;
    pcd_error err;
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_bits_v1_rec_decode, bad, sizeof bad, &one, &err), PCD_E_RANGE);
    assert_string_equal(path_of(&err), "plain.st.level");
    assert_int_equal(err.offset, 3);
    assert_int_equal(err.found, 6);
    bad[3] = (uint8_t)(1 << 6);
    assert_int_equal(decode_one((pcd_decode_fn)pcd_fx_bits_v1_rec_decode, bad, sizeof bad, &one, &err), PCD_E_RANGE);
    assert_string_equal(path_of(&err), "plain.st.reserved");
    r2.u.plain.st = pcd_fx_bits_v1_status_make(0, 0, 3, 0); /* mode 3 is no value of its enum */
    rec_in over[] = { { R, &r2 } };
    encode_file(&pcd_fx_bits_v1_format, &root, over, 1, false, PCD_E_RANGE);
}

/* ---- fields relative to a sibling: the value and the stored field, both ways ----------- */

static void test_relative(void **state)
{
    (void)state;
    pcd_fx_relative_v1_span sp = { 0 };
    sp.line = 10;
    sp.end_delta = pcd_fx_relative_v1_span_end_delta_of(10, 14);
    assert_int_equal(sp.end_delta, 4);
    assert_int_equal(pcd_fx_relative_v1_span_end_line(&sp), 14);
    /* none: -1 either side gives -1 and stores 0 */
    assert_int_equal(pcd_fx_relative_v1_span_end_delta_of(-1, 14), 0);
    assert_int_equal(pcd_fx_relative_v1_span_end_delta_of(10, -1), 0);
    sp.line = -1;
    sp.end_delta = 0;
    assert_int_equal(pcd_fx_relative_v1_span_end_line(&sp), -1);
    /* wraps in the base's width, as readers that add in 32 bits do */
    sp.line = INT32_MAX;
    sp.end_delta = 1;
    assert_int_equal(pcd_fx_relative_v1_span_end_line(&sp), INT32_MIN);
    assert_int_equal(pcd_fx_relative_v1_span_end_delta_of(INT32_MAX, INT32_MIN), 1);
    sp.start = UINT64_C(1) << 40;
    sp.length = pcd_fx_relative_v1_span_length_of(sp.start, sp.start + 4096);
    assert_int_equal(sp.length, 4096);
    assert_true(pcd_fx_relative_v1_span_stop(&sp) == (UINT64_C(1) << 40) + 4096);
    /* stored as it is: the dump shows the delta, encode writes it back */
    pcd_fx_relative_v1_file root = { { 0 } };
    sp.line = 3;
    sp.end_delta = -2;
    const pcd_region_desc *R = &pcd_fx_relative_v1_region_spans;
    rec_in recs[] = { { R, &sp } };
    size_t n = encode_file(&pcd_fx_relative_v1_format, &root, recs, 1, false, PCD_OK);
    assert_int_equal(out[0], 6);  /* zigzag(3) */
    assert_int_equal(out[1], 3);  /* zigzag(-2) */
    json_roundtrip(&pcd_fx_relative_v1_format, out, n);
}

/* ---- warnings: what a reader accepts but the schema flags, on decoded records --------- */

typedef struct warns {
    size_t n;
    char text[8][160];
} warns;

static void on_warn(void *ud, const pcd_error *e)
{
    warns *w = ud;
    assert_int_equal(e->status, PCD_OK);
    if (w->n < 8) pcd_error_format(e, w->text[w->n++], sizeof w->text[0]);
}

static void read_warnings(const uint8_t *p, size_t n, warns *w)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_fx_warn_v1_format, p, n, &o), PCD_OK);
    memset(w, 0, sizeof *w);
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) pcd_record_warnings(&rec, on_warn, w);
    assert_int_equal(st, PCD_END);
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
}

static void test_warn(void **state)
{
    (void)state;
    /* magic, header (major, reserved), mode u32, [extra u16 when mode >= 2], recs, size u64 */
    uint8_t f[64];
    size_t n = 0;
    memcpy(f, "FXW1", 4);
    n = 4;
    f[n++] = 1;
    f[n++] = 0;
    pcd_st_u32le(f + n, 1);
    n += 4;
    f[n++] = 1;
    f[n++] = 'a';
    f[n++] = 3; /* rec: name "a", level 3 */
    pcd_st_u64le(f + n, n + 8);
    n += 8;
    warns w;
    read_warnings(f, n, &w);
    assert_int_equal(w.n, 0); /* nothing to say */
    f[5] = 7;              /* header.reserved */
    pcd_st_u32le(f + 6, 0); /* mode 0: the first warning of mode, not the second */
    f[12] = 12;            /* rec.level */
    pcd_st_u64le(f + n - 8, 99);
    read_warnings(f, n, &w);
    assert_int_equal(w.n, 4);
    assert_string_equal(w.text[0], "offset 5: header.reserved: expected 0 (reserved), found 7");
    assert_string_equal(w.text[1], "offset 6: mode: expected a mode other than 0 (readers treat 0 as 1), found 0x00");
    assert_string_equal(w.text[2], "offset 13: size: expected the input's size, found 99");
    assert_string_equal(w.text[3], "offset 10: level: expected a level below 10, found 12"); /* the record's start */
    /* mode 9: its second warning; extra is there (mode >= 2), and warns too */
    uint8_t g[64];
    memcpy(g, f, 10);
    g[5] = 0;
    pcd_st_u32le(g + 6, 9);
    pcd_st_u16le(g + 10, 500);
    g[12] = 1;
    g[13] = 'a';
    g[14] = 3;
    pcd_st_u64le(g + 15, 23);
    read_warnings(g, 23, &w);
    assert_int_equal(w.n, 2);
    assert_string_equal(w.text[0], "offset 6: mode: expected a mode 1..3, found 0x09");
    assert_string_equal(w.text[1], "offset 10: extra: expected below 100, found 500");
}

/* ---- views: one struct for an event of either version -------------------------------- */

static void test_views(void **state)
{
    (void)state;
    pcd_fx_views_ev_view v;
    pcd_fx_views_v1_ev a = { 0 };
    a.which = PCD_FX_VIEWS_V1_EV_TICK;
    a.tag = 1;
    a.u.tick.t = 77;
    a.u.tick.code = 9;
    pcd_fx_views_v1_ev_view(&a, &v);
    assert_int_equal(v.kind, PCD_FX_VIEWS_EV_TICK);
    assert_int_equal(v.version, 1);
    assert_int_equal(v.tag, 1);
    assert_true(v.has_t && v.t == 77 && v.has_code && v.code == 9);
    assert_false(v.has_name || v.has_xs);
    pcd_fx_views_v2_ev b = { 0 };
    b.which = PCD_FX_VIEWS_V2_EV_TICK;
    b.u.tick.t = 78;
    b.u.tick.status.code = 10; /* v2 keeps it in a struct */
    pcd_fx_views_v2_ev_view(&b, &v);
    assert_int_equal(v.version, 2);
    assert_true(v.has_code && v.code == 10 && v.t == 78);
    /* a conditional field: set only when it is there */
    static uint16_t xs[] = { 4, 5 };
    memset(&b, 0, sizeof b);
    b.which = PCD_FX_VIEWS_V2_EV_LIST;
    b.u.list.xs = xs;
    b.u.list.n_xs = 2;
    pcd_fx_views_v2_ev_view(&b, &v);
    assert_int_equal(v.kind, PCD_FX_VIEWS_EV_LIST);
    assert_true(v.has_xs && v.n_xs == 2 && v.xs[1] == 5);
    assert_false(v.has_t);
    b.u.list.flag = 1;
    b.u.list.has_t = true;
    b.u.list.t = 5;
    pcd_fx_views_v2_ev_view(&b, &v);
    assert_true(v.has_t && v.t == 5);
    /* through an inline union: the name of detail's case a, none in case b */
    memset(&b, 0, sizeof b);
    b.which = PCD_FX_VIEWS_V2_EV_META;
    b.u.meta.kind = 1;
    b.u.meta.detail.which = PCD_FX_VIEWS_V2_EV_META_DETAIL_A;
    b.u.meta.detail.u.a.name = B("nm");
    pcd_fx_views_v2_ev_view(&b, &v);
    assert_int_equal(v.kind, PCD_FX_VIEWS_EV_META);
    assert_true(v.has_name && v.name.len == 2);
    b.u.meta.detail.which = PCD_FX_VIEWS_V2_EV_META_DETAIL_B;
    pcd_fx_views_v2_ev_view(&b, &v);
    assert_false(v.has_name);
    /* from a decoded record of either version */
    pcd_record rec = { 0 };
    rec.type = &pcd_fx_views_v1_ev_type;
    rec.data = &a;
    assert_true(pcd_fx_views_ev_view_of(&rec, &v));
    assert_int_equal(v.code, 9);
    rec.type = &pcd_fx_views_v2_file_type;
    assert_false(pcd_fx_views_ev_view_of(&rec, &v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars), cmocka_unit_test(test_mojo), cmocka_unit_test(test_strings), cmocka_unit_test(test_unions),
        cmocka_unit_test(test_arrays),  cmocka_unit_test(test_stream),  cmocka_unit_test(test_zstd),
        cmocka_unit_test(test_elems),
        cmocka_unit_test(test_tables),  cmocka_unit_test(test_trailer),
        cmocka_unit_test(test_blocks),  cmocka_unit_test(test_footer),
        cmocka_unit_test(test_relocate), cmocka_unit_test(test_cases), cmocka_unit_test(test_bits),
        cmocka_unit_test(test_relative), cmocka_unit_test(test_warn),
        cmocka_unit_test(test_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
