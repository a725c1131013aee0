/* test_pb_fixtures.c: the code generated from the protobuf fixture schemas (tests/gen/ok/fx_pb_*):
 * every scalar type's wire form, packed and unpacked runs, nested and repeated messages, unknown
 * fields, singular fields written twice, the layout that keeps a writer's order and packing
 * (dump -> read -> encode gives the same bytes), limits (lengths, counts, nesting depth), the
 * errors with their field paths, and detection by structure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fx_pb_nested_v1.h"
#include "fx_pb_recursive_v1.h"
#include "fx_pb_scalars_v1.h"
#include "fuzzlib.h"
#include "io/jsonl_read.h"

/* ---- building protobuf bytes ---------------------------------------------------------- */

typedef struct pb {
    uint8_t b[1 << 14];
    size_t n;
} pb;

static void put(pb *p, const void *bytes, size_t n)
{
    assert_true(p->n + n <= sizeof p->b);
    memcpy(p->b + p->n, bytes, n);
    p->n += n;
}

static void varint(pb *p, uint64_t v)
{
    uint8_t t[10];
    put(p, t, pcd_enc_uleb128(t, v));
}

static void key(pb *p, uint32_t number, unsigned wire) { varint(p, (uint64_t)number << 3 | wire); }

static void vfield(pb *p, uint32_t number, uint64_t v)
{
    key(p, number, 0);
    varint(p, v);
}

static void lfield(pb *p, uint32_t number, const void *bytes, size_t n)
{
    key(p, number, 2);
    varint(p, n);
    put(p, bytes, n);
}

/* ---- reading ------------------------------------------------------------------------------- */

typedef void (*check_fn)(size_t index, const pcd_record *rec, void *ud);

/* Reads every record (decoding, or validating only); returns the status that ended it, *err the
 * error. (Streaming in chunks is pcd_fuzz_one's, which every test runs too.) */
static pcd_status read_all(const pcd_format *f, const uint8_t *p, size_t n, bool validate,
                           const pcd_limits *lim, check_fn fn, void *ud, size_t *count, pcd_error *err)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, lim, 16, validate };
    assert_int_equal(pcd_reader_open_buffer(&r, f, p, n, &o), PCD_OK);
    pcd_record rec;
    pcd_status st;
    size_t k = 0;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        if (fn && rec.depth > 0) fn(k, &rec, ud);
        if (rec.depth > 0) k++;
    }
    if (count) *count = k;
    if (err) *err = r.x.err;
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
    return st;
}

static const char *path_of(const pcd_error *e)
{
    static char b[256];
    pcd_error_path(e, b, sizeof b);
    return b;
}

/* The dump of a file, one JSON line per record. */
static char *dump(const pcd_format *f, const uint8_t *p, size_t n)
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
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) assert_int_equal(pcd_json_record(&js, f, &rec), PCD_OK);
    assert_int_equal(st, PCD_END);
    pcd_reader_close(&r);
    jl[js.len] = 0;
    return jl;
}

/* Encodes JSON Lines (as dump writes them) into out; returns the status of the first failure
 * (err: the reader's or the writer's message). */
static pcd_status encode_jsonl(const pcd_format *f, const char *jsonl, uint8_t *outp, size_t cap, size_t *len,
                               char *err, size_t errcap)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, outp, cap, NULL, NULL, NULL, &x);
    pcd_writer w;
    pcd_writer_open(&w, f, &s, &al);
    pcd_arena a;
    pcd_arena_init(&a, NULL, 0, &al, 0);
    uint8_t *root = calloc(1, f->root_size), *recbuf = calloc(1, 4096);
    char *copy = strdup(jsonl);
    pcd_status st = PCD_OK;
    bool first = true;
    err[0] = 0;
    for (char *line = strtok(copy, "\n"); line && st == PCD_OK; line = strtok(NULL, "\n")) {
        json_error_t je;
        json_t *j = json_loads(line, JSON_ALLOW_NUL, &je);
        assert_non_null(j);
        pcd_jkind k;
        assert_true(pcd_jsonr_kind(f, json_string_value(json_object_get(j, "_kind")), &k));
        if (first) {
            assert_true(pcd_jsonr_record(&k, j, root, &a, err, errcap));
            st = pcd_writer_root(&w, root);
            first = false;
        } else if (!pcd_jsonr_record(&k, j, recbuf, &a, err, errcap)) {
            st = PCD_E_INVALID;
        } else {
            st = pcd_writer_record(&w, k.rd, recbuf);
        }
        json_decref(j);
    }
    if (st == PCD_OK) st = pcd_writer_finish(&w);
    if (st != PCD_OK && !err[0]) pcd_error_format(pcd_writer_error(&w), err, errcap);
    pcd_writer_close(&w);
    *len = s.len;
    free(copy);
    free(root);
    free(recbuf);
    pcd_arena_free(&a);
    assert_int_equal(al.in_use, 0);
    return st;
}

/* dump -> read -> encode gives the same bytes, and every fuzz invariant holds. */
static void roundtrip(const pcd_format *f, const uint8_t *p, size_t n)
{
    static uint8_t again[1 << 14];
    size_t len = 0;
    char err[256];
    const char *jl = dump(f, p, n);
    pcd_status st = encode_jsonl(f, jl, again, sizeof again, &len, err, sizeof err);
    if (st != PCD_OK) fail_msg("%s\n%s", err, jl);
    if (len != n || memcmp(again, p, n) != 0) fail_msg("re-encoded differently from:\n%s", jl);
    pcd_fuzz_one(f, p, n);
}

/* The first error reading p (decoding, streaming and validating agree on it). */
static pcd_status first_error(const pcd_format *f, const uint8_t *p, size_t n, pcd_error *e)
{
    pcd_error ev;
    pcd_status st = read_all(f, p, n, false, NULL, NULL, NULL, NULL, e);
    pcd_status sv = read_all(f, p, n, true, NULL, NULL, NULL, NULL, &ev);
    assert_int_equal(st, sv);
    assert_int_equal(e->offset, ev.offset);
    pcd_fuzz_one(f, p, n);
    return st;
}

/* ---- scalars ------------------------------------------------------------------------------- */

static void scalar_bytes(pb *p)
{
    static const uint8_t i32[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }; /* -1 */
    put(p, i32, sizeof i32);
    vfield(p, 2, (uint64_t)-2);      /* i64 */
    vfield(p, 3, UINT32_MAX);        /* u32 */
    vfield(p, 4, 300);               /* u64 */
    vfield(p, 5, 1);                 /* s32 = -1 */
    vfield(p, 6, 5);                 /* s64 = -3 */
    vfield(p, 7, 1);                 /* flag */
    vfield(p, 8, 2);                 /* color = blue */
    static const uint8_t f32[] = { 0x4d, 0x44, 0x33, 0x22, 0x11 };
    put(p, f32, sizeof f32);
    static const uint8_t f64[] = { 0x51, 1, 2, 3, 4, 5, 6, 7, 8 };
    put(p, f64, sizeof f64);
    static const uint8_t sf32[] = { 0x5d, 0xff, 0xff, 0xff, 0xff };
    put(p, sf32, sizeof sf32);
    static const uint8_t sf64[] = { 0x61, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    put(p, sf64, sizeof sf64);
    static const uint8_t fl[] = { 0x6d, 0x00, 0x00, 0xc0, 0x3f };   /* 1.5f */
    put(p, fl, sizeof fl);
    static const uint8_t db[] = { 0x71, 0, 0, 0, 0, 0, 0, 0, 0x80 }; /* -0.0 */
    put(p, db, sizeof db);
    static const uint8_t many[] = { 0x02, 0x01, 0x04 };              /* 1, -1, 2 zigzag */
    lfield(p, 15, many, sizeof many);
    vfield(p, 16, 1);                /* flags: one per occurrence */
    vfield(p, 16, 0);
    static const uint8_t fx[] = { 1, 0, 0, 0, 2, 0, 0, 0 };
    lfield(p, 17, fx, sizeof fx);
    vfield(p, 2000, 7);              /* big: a two-byte key */
    vfield(p, 99, 5);                /* a field the schema does not name */
}

static void check_scalar(size_t i, const pcd_record *rec, void *ud)
{
    (void)ud;
    const pcd_fx_pb_scalars_v1_all_field *r = rec->data;
    switch (i) {
    case 0: assert_int_equal(r->which, PCD_FX_PB_SCALARS_V1_ALL_FIELD_I32); assert_int_equal(r->u.i32, -1); break;
    case 1: assert_int_equal(r->u.i64, -2); break;
    case 2: assert_int_equal(r->u.u32, UINT32_MAX); break;
    case 3: assert_int_equal(r->u.u64, 300); break;
    case 4: assert_int_equal(r->u.s32, -1); break;
    case 5: assert_int_equal(r->u.s64, -3); break;
    case 6: assert_true(r->u.flag); break;
    case 7: assert_int_equal(r->u.color, 2); break;
    case 8: assert_int_equal(r->u.f32, 0x11223344); break;
    case 9: assert_int_equal(r->u.f64, 0x0807060504030201ull); break;
    case 10: assert_int_equal(r->u.sf32, -1); break;
    case 11: assert_int_equal(r->u.sf64, -2); break;
    case 12: assert_true(r->u.fl == 1.5f); break;
    case 13: assert_true(r->u.db == 0.0); break;
    case 14:
        assert_int_equal(r->which, PCD_FX_PB_SCALARS_V1_ALL_FIELD_MANY);
        assert_int_equal(r->u.many.n_items, 3);
        assert_int_equal(r->u.many.items[1], -1);
        assert_int_equal(r->layout_.n, 0); /* packed: canonical */
        break;
    case 15: assert_true(r->u.flags.n_items == 1 && r->u.flags.items[0]); assert_int_equal(r->layout_.n, 0); break;
    case 17: assert_true(r->u.fixed.n_items == 2 && r->u.fixed.items[1] == 2); break;
    case 18: assert_int_equal(r->u.big, 7); break;
    case 19:
        assert_int_equal(r->which, PCD_FX_PB_SCALARS_V1_ALL_FIELD_UNKNOWN_);
        assert_int_equal(r->u.unknown_.number, 99);
        assert_int_equal(r->u.unknown_.wire, PCD_PB_VARINT);
        assert_int_equal(r->u.unknown_.value, 5);
        break;
    }
}

/* The whole message decoded at once (pcd_fx_pb_scalars_v1_all_decode), into an arena on the
 * caller's block. */
static void decode_all(const uint8_t *p, size_t n, pcd_fx_pb_scalars_v1_all *out, uint8_t *block, size_t size)
{
    pcd_arena a;
    pcd_arena_init(&a, block, size, NULL, 0);
    pcd_ctx x;
    pcd_ctx_init(&x, &a);
    pcd_cursor c = pcd_cursor_make(&x, p, n, 0, true);
    pcd_status st = pcd_fx_pb_scalars_v1_all_decode(&c, out);
    if (st != PCD_OK) {
        char msg[256];
        pcd_error_format(&x.err, msg, sizeof msg);
        print_error("%s\n", msg);
    }
    assert_int_equal(st, PCD_OK);
    assert_ptr_equal(c.p, p + n);
}

static void check_all(const pcd_fx_pb_scalars_v1_all *m)
{
    assert_true(m->has_i32 && m->i32 == -1 && m->has_i64 && m->i64 == -2 && m->has_u32 && m->u32 == UINT32_MAX);
    assert_true(m->has_u64 && m->u64 == 300 && m->has_s32 && m->s32 == -1 && m->has_s64 && m->s64 == -3);
    assert_true(m->has_flag && m->flag && m->has_color && m->color == 2);
    assert_true(m->has_f32 && m->f32 == 0x11223344 && m->has_f64 && m->f64 == 0x0807060504030201ull);
    assert_true(m->has_sf32 && m->sf32 == -1 && m->has_sf64 && m->sf64 == -2);
    assert_true(m->has_fl && m->fl == 1.5f && m->has_db && m->db == 0.0);
    assert_int_equal(m->n_many, 3);
    assert_true(m->many[0] == 1 && m->many[1] == -1 && m->many[2] == 2);
    assert_int_equal(m->n_flags, 2);
    assert_true(m->flags[0] && !m->flags[1]);
    assert_int_equal(m->n_fixed, 2);
    assert_true(m->fixed[0] == 1 && m->fixed[1] == 2);
    assert_true(m->has_big && m->big == 7);
}

/* The filler's one pass (every field a known one, singular ones once: issue 26, i26aa) and its
 * general two passes (after a field it does not name, or a singular field written twice) give
 * the same message, the same layout where the order is the schema's and where it is not. */
static void test_pb_fill_paths(void **state)
{
    (void)state;
    static uint8_t b1[4096], b2[4096];
    pb p = { .n = 0 };
    scalar_bytes(&p);
    size_t known = p.n - 3;   /* without field 99 (its two-byte key and its value, last) */
    pcd_fx_pb_scalars_v1_all fast, general;
    decode_all(p.b, known, &fast, b1, sizeof b1);
    check_all(&fast);
    assert_int_equal(fast.n_unknown_, 0);
    assert_int_equal(fast.layout_.n, 0);
    decode_all(p.b, p.n, &general, b2, sizeof b2);
    check_all(&general);
    assert_int_equal(general.n_unknown_, 1);
    assert_int_equal(general.unknown_[0].number, 99);
    assert_int_equal(general.layout_.n, 0);   /* unknown fields last: still canonical */

    /* big (field 2000) first: not the schema's order, the layout kept, by both paths */
    pb q = { .n = 0 };
    vfield(&q, 2000, 7);
    put(&q, p.b, known - 3);   /* every field but big (its two-byte key and value, last) */
    decode_all(q.b, q.n, &fast, b1, sizeof b1);
    check_all(&fast);
    assert_int_equal(fast.layout_.n, 18);   /* 2000, then 1 .. 14, 15 packed, 16 twice, 17 packed */
    assert_int_equal(fast.layout_.runs[0].field, PCD_PB_RUN(2000, 0));
    assert_int_equal(fast.layout_.runs[1].field, PCD_PB_RUN(1, 0));
    assert_int_equal(fast.layout_.runs[15].field, PCD_PB_RUN(15, 1));
    assert_int_equal(fast.layout_.runs[15].count, 3);
    assert_int_equal(fast.layout_.runs[16].field, PCD_PB_RUN(16, 0));
    assert_int_equal(fast.layout_.runs[16].count, 2);
    vfield(&q, 2000, 7);   /* big again: the first one is kept raw, by the general path */
    decode_all(q.b, q.n, &general, b2, sizeof b2);
    check_all(&general);
    assert_int_equal(general.n_unknown_, 1);
    assert_int_equal(general.unknown_[0].number, 2000);
    assert_int_equal(general.layout_.n, 19);
    for (size_t i = 0; i < 18; i++) {
        assert_int_equal(general.layout_.runs[i].field, fast.layout_.runs[i].field);
        assert_int_equal(general.layout_.runs[i].count, fast.layout_.runs[i].count);
    }
}

static void test_pb_scalars(void **state)
{
    (void)state;
    const pcd_format *f = &pcd_fx_pb_scalars_v1_format;
    pb p = { .n = 0 };
    scalar_bytes(&p);
    size_t count = 0;
    assert_int_equal(read_all(f, p.b, p.n, false, NULL, check_scalar, NULL, &count, NULL), PCD_END);
    assert_int_equal(count, 20);
    const char *jl = dump(f, p.b, p.n);
    assert_non_null(strstr(jl, "{\"_kind\":\"color\",\"_offset\":37,\"_value\":\"blue\"}"));
    assert_non_null(strstr(jl, "\"_kind\":\"u64\",\"_offset\":28,\"_value\":\"0x12c\""));
    assert_non_null(strstr(jl, "{\"_kind\":\"_unknown\",\"_offset\":"));
    assert_non_null(strstr(jl, "\"field\":99,\"varint\":5}"));
    roundtrip(f, p.b, p.n);
    /* detection: these are fields of `all`; other bytes are not */
    assert_int_equal(f->detect(p.b, p.n), 2);
    assert_int_equal(f->detect(p.b, 13), 2); /* the second field cut by the end of what was peeked */
    assert_int_equal(f->detect(p.b, 5), 0);  /* not one whole field yet */
    assert_int_equal(f->detect((const uint8_t *)"MOJ\x03", 4), 0);
    assert_int_equal(f->detect(p.b, 0), 0);
    assert_true(f->flags & PCD_FMT_NO_MAGIC);

    /* the other packings: flags packed, many one value unpacked: the records keep them */
    pb q = { .n = 0 };
    static const uint8_t two[] = { 1, 0 };
    lfield(&q, 16, two, 2);
    vfield(&q, 15, 4);
    static const uint8_t empty[1] = { 0 };
    lfield(&q, 17, empty, 0);
    jl = dump(f, q.b, q.n);
    assert_non_null(strstr(jl, "\"_value\":[true,false],\"_layout\":\"16p2\""));
    assert_non_null(strstr(jl, "\"_value\":[2],\"_layout\":\"15\""));
    assert_non_null(strstr(jl, "\"_kind\":\"fixed\",\"_offset\":7,\"_value\":[]}"));
    roundtrip(f, q.b, q.n);

    /* errors: a number it names with another wire type, an int32 that is not one, a group,
     * field number 0, a packed run cut short, wire type 7 */
    pcd_error e;
    static const uint8_t wrong_wire[] = { 0x0d, 1, 2, 3, 4 };
    assert_int_equal(first_error(f, wrong_wire, sizeof wrong_wire, &e), PCD_E_BAD_TAG);
    assert_string_equal(path_of(&e), "i32");
    char msg[256];
    pcd_error_format(&e, msg, sizeof msg);
    assert_string_equal(msg, "offset 0: i32: expected varint (wire type 0), found wire type 5 (i32)");
    static const uint8_t not_int32[] = { 0x08, 0xff, 0xff, 0xff, 0xff, 0x0f };
    assert_int_equal(first_error(f, not_int32, sizeof not_int32, &e), PCD_E_RANGE);
    assert_string_equal(path_of(&e), "i32");
    static const uint8_t group[] = { 0x9b, 0x06, 0x9c, 0x06 }; /* field 99, wire types 3 and 4 */
    assert_int_equal(first_error(f, group, sizeof group, &e), PCD_E_BAD_TAG);
    assert_string_equal(path_of(&e), "_unknown");
    static const uint8_t zero[] = { 0x00, 0x01 };
    assert_int_equal(first_error(f, zero, sizeof zero, &e), PCD_E_RANGE);
    static const uint8_t cut[] = { 0x7a, 0x05, 0x01 };
    assert_int_equal(first_error(f, cut, sizeof cut, &e), PCD_E_TRUNCATED);
    static const uint8_t unended[] = { 0x7a, 0x02, 0x01, 0x81 };
    assert_int_equal(first_error(f, unended, sizeof unended, &e), PCD_E_TRUNCATED);
    static const uint8_t wire7[] = { 0x0f, 0x01 };
    assert_int_equal(first_error(f, wire7, sizeof wire7, &e), PCD_E_BAD_TAG);
    static const uint8_t odd_fixed[] = { 0x8a, 0x01, 0x03, 1, 2, 3 };
    assert_int_equal(first_error(f, odd_fixed, sizeof odd_fixed, &e), PCD_E_SIZE);
    assert_string_equal(path_of(&e), "fixed");
}

/* ---- nested messages, unknown fields, the layout -------------------------------------------- */

static void part_bytes(pb *p, bool canonical)
{
    pb m = { .n = 0 };
    if (canonical) {
        lfield(&m, 1, "x", 1);
        static const uint8_t ids[] = { 1, 2, 3 };
        lfield(&m, 2, ids, 3); /* three values: packed (pack_min 3) */
        lfield(&m, 3, "a", 1);
        vfield(&m, 4, 5);
    } else {
        vfield(&m, 4, 4);      /* weight, then weight again: the last one wins */
        vfield(&m, 2, 1);      /* ids one by one */
        lfield(&m, 1, "x", 1);
        vfield(&m, 2, 2);
        lfield(&m, 3, "a", 1);
        lfield(&m, 3, "b", 1);
        vfield(&m, 4, 5);
        lfield(&m, 9, "zz", 2); /* unknown */
    }
    lfield(p, 2, m.b, m.n);
}

static void check_nested(size_t i, const pcd_record *rec, void *ud)
{
    (void)ud;
    const pcd_fx_pb_nested_v1_doc_field *r = rec->data;
    if (i == 1) {
        assert_int_equal(r->which, PCD_FX_PB_NESTED_V1_DOC_FIELD_PART);
        const pcd_fx_pb_nested_v1_part *pt = &r->u.part;
        assert_true(pt->has_weight && pt->weight == 5);
        assert_int_equal(pt->n_ids, 2);
        assert_int_equal(pt->ids[1], 2);
        assert_int_equal(pt->n_tags, 2);
        assert_int_equal(pt->n_unknown_, 2); /* the first weight, and field 9 */
        assert_int_equal(pt->unknown_[0].number, 4);
        assert_int_equal(pt->unknown_[0].value, 4);
        assert_int_equal(pt->unknown_[1].number, 9);
        assert_int_equal(pt->unknown_[1].bytes.len, 2);
        assert_int_equal(pt->layout_.n, 7); /* 4 2 1 2 3*2 4 9 */
    }
    if (i == 2) assert_int_equal(r->u.part.layout_.n, 0);
}

static void test_pb_nested(void **state)
{
    (void)state;
    const pcd_format *f = &pcd_fx_pb_nested_v1_format;
    pb p = { .n = 0 };
    lfield(&p, 1, "Title", 5);
    part_bytes(&p, false);
    part_bytes(&p, true);
    pb h = { .n = 0 };
    lfield(&h, 1, "h", 1);
    lfield(&p, 3, h.b, h.n);
    static const uint8_t ids[] = { 7, 8 };
    lfield(&p, 4, ids, 2);
    lfield(&p, 5, "\x00\xff", 2);
    size_t count = 0;
    assert_int_equal(read_all(f, p.b, p.n, false, NULL, check_nested, NULL, &count, NULL), PCD_END);
    assert_int_equal(count, 6);
    const char *jl = dump(f, p.b, p.n);
    assert_non_null(strstr(jl, "\"weight\":5,\"_unknown\":[{\"field\":4,\"varint\":4},{\"field\":9,\"len\":{\"hex\":\"7a7a\"}}],"
                               "\"_layout\":\"4 2 1 2 3*2 4 9\"}"));
    assert_non_null(strstr(jl, "{\"_kind\":\"part\",\"_offset\":30,\"name\":\"x\",\"ids\":[1,2,3],\"tags\":[\"a\"],\"weight\":5}"));
    /* a record holds one run: two values can only be packed, so that is canonical for it */
    assert_non_null(strstr(jl, "{\"_kind\":\"ids\",\"_offset\":50,\"_value\":[7,8]}"));
    assert_non_null(strstr(jl, "\"_value\":{\"hex\":\"00ff\"}"));
    roundtrip(f, p.b, p.n);

    /* limits: a title over max_len, a part with more tags than max_count */
    pcd_error e;
    pb t = { .n = 0 };
    char long_title[65];
    memset(long_title, 't', sizeof long_title);
    lfield(&t, 1, long_title, sizeof long_title);
    assert_int_equal(first_error(f, t.b, t.n, &e), PCD_E_LIMIT);
    assert_string_equal(path_of(&e), "title");
    pb m = { .n = 0 }, u = { .n = 0 };
    for (int k = 0; k < 5; k++) lfield(&m, 3, "t", 1);
    lfield(&u, 2, m.b, m.n);
    assert_int_equal(first_error(f, u.b, u.n, &e), PCD_E_LIMIT);
    assert_string_equal(path_of(&e), "part.tags");
    /* inside a message: its errors name the path down to the field */
    pb bad = { .n = 0 }, inner = { .n = 0 };
    vfield(&inner, 4, 1);
    key(&inner, 2, 5); /* ids with wire type 5 */
    put(&inner, "abcd", 4);
    lfield(&bad, 2, inner.b, inner.n);
    assert_int_equal(first_error(f, bad.b, bad.n, &e), PCD_E_BAD_TAG);
    assert_string_equal(path_of(&e), "part.ids");
    assert_int_equal(e.offset, 4);

    /* encoding what a writer builds: no layout, the canonical form */
    pcd_fx_pb_nested_v1_part pt = { 0 };
    static const uint64_t pids[] = { 9, 10 };
    static const pcd_bytes tags[] = { { (const uint8_t *)"q", 1 } };
    pt.ids = (uint64_t *)pids;
    pt.n_ids = 2;
    pt.tags = (pcd_bytes *)tags;
    pt.n_tags = 1;
    pt.has_weight = true;
    pt.weight = -1;
    uint8_t buf[128];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, NULL, NULL, NULL, &x);
    assert_int_equal(pcd_fx_pb_nested_v1_part_encode(&s, &pt), PCD_OK);
    static const uint8_t want[] = { 0x10, 9, 0x10, 10, 0x1a, 1, 'q', 0x20, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    assert_int_equal(s.len, sizeof want);
    assert_memory_equal(buf, want, sizeof want);
    assert_int_equal(pcd_fx_pb_nested_v1_part_size(&x, &pt), sizeof want);

    /* layouts from JSON: text that is not one, runs that leave a value out or name too many */
    uint8_t enc[256];
    size_t len;
    char err[256];
    const char *head = "{\"_kind\":\"file\",\"_format\":\"fx_pb_nested\",\"_version\":\"1\"}\n";
    char jl2[512];
    snprintf(jl2, sizeof jl2, "%s{\"_kind\":\"part\",\"ids\":[1,2],\"_layout\":\"2 x\"}\n", head);
    assert_int_equal(encode_jsonl(f, jl2, enc, sizeof enc, &len, err, sizeof err), PCD_E_INVALID);
    assert_non_null(strstr(err, "_layout: a run starts with a field number 1 .. 2^29 - 1"));
    snprintf(jl2, sizeof jl2, "%s{\"_kind\":\"part\",\"ids\":[1,2],\"_layout\":\"2x\"}\n", head);
    assert_int_equal(encode_jsonl(f, jl2, enc, sizeof enc, &len, err, sizeof err), PCD_E_INVALID);
    assert_non_null(strstr(err, "_layout: runs \"N\", \"N*K\" or \"NpK\" separated by spaces"));
    snprintf(jl2, sizeof jl2, "%s{\"_kind\":\"part\",\"ids\":[1,2],\"_layout\":\"2\"}\n", head);
    assert_int_equal(encode_jsonl(f, jl2, enc, sizeof enc, &len, err, sizeof err), PCD_E_INVALID);
    assert_non_null(strstr(err, "runs that place every value of the message"));
    snprintf(jl2, sizeof jl2, "%s{\"_kind\":\"part\",\"ids\":[1,2],\"_layout\":\"2*3\"}\n", head);
    assert_int_equal(encode_jsonl(f, jl2, enc, sizeof enc, &len, err, sizeof err), PCD_E_INVALID);
    assert_non_null(strstr(err, "runs of ids no longer than the values left"));
    /* ... and one that reorders them */
    snprintf(jl2, sizeof jl2, "%s{\"_kind\":\"part\",\"ids\":[1,2],\"weight\":3,\"_layout\":\"2 4 2p1\"}\n", head);
    assert_int_equal(encode_jsonl(f, jl2, enc, sizeof enc, &len, err, sizeof err), PCD_OK);
    static const uint8_t want2[] = { 0x12, 7, 0x10, 1, 0x20, 3, 0x12, 1, 2 };
    assert_int_equal(len, sizeof want2);
    assert_memory_equal(enc, want2, sizeof want2);
}

/* ---- a message that contains itself: the depth limit -------------------------------------- */

static size_t nest(pb *out, unsigned depth)
{
    /* node { value: depth, child { ... } } from the inside out */
    pb a = { .n = 0 }, b = { .n = 0 };
    vfield(&a, 1, 0);
    for (unsigned d = 1; d < depth; d++) {
        b.n = 0;
        vfield(&b, 1, d);
        lfield(&b, 2, a.b, a.n);
        memcpy(a.b, b.b, b.n);
        a.n = b.n;
    }
    out->n = 0;
    lfield(out, 1, a.b, a.n);
    return out->n;
}

static void test_pb_recursive(void **state)
{
    (void)state;
    const pcd_format *f = &pcd_fx_pb_recursive_v1_format;
    static pb p;
    nest(&p, 20);
    size_t count = 0;
    assert_int_equal(read_all(f, p.b, p.n, false, NULL, NULL, NULL, &count, NULL), PCD_END);
    assert_int_equal(count, 1);
    roundtrip(f, p.b, p.n);
    pcd_error e;
    nest(&p, 150); /* the node message 150 deep: the default limit is 100 */
    assert_int_equal(first_error(f, p.b, p.n, &e), PCD_E_LIMIT);
    /* a tighter limit */
    pcd_limits lim = pcd_default_limits;
    lim.max_depth = 5;
    nest(&p, 5);
    assert_int_equal(read_all(f, p.b, p.n, false, &lim, NULL, NULL, NULL, NULL), PCD_END);
    nest(&p, 7);
    assert_int_equal(read_all(f, p.b, p.n, false, &lim, NULL, NULL, NULL, &e), PCD_E_LIMIT);
    assert_int_equal(read_all(f, p.b, p.n, true, &lim, NULL, NULL, NULL, &e), PCD_E_LIMIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pb_scalars),
        cmocka_unit_test(test_pb_fill_paths),
        cmocka_unit_test(test_pb_nested),
        cmocka_unit_test(test_pb_recursive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
