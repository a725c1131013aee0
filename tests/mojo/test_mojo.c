/* test_mojo.c: Austin MOJO: the varint's edge cases on both read paths, Python's int(tid, 16)
 * as austin-python uses it, the sample assembler's semantics (per-process keys, redefinition,
 * key 1, definitions before the first stack, undefined keys with their offsets, where a
 * sample ends), speedscope output, and the austin-text importer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/transform.h"
#include "common/lines.h"
#include "formats/mojo/asm.h"
#include "mojo_v1.h"
#include "mojo_v3.h"
#include "cli/job.h"
#include "pipeline/pipeline.h"

/* ---- helpers --------------------------------------------------------------------------- */

typedef struct mbuf {
    uint8_t *p;
    size_t len, cap;
} mbuf;

static pcd_status mbuf_write(void *ud, const uint8_t *p, size_t n)
{
    mbuf *m = ud;
    if (m->len + n + 1 > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 4096;
        while (nc < m->len + n + 1) nc *= 2;
        m->p = realloc(m->p, nc);
        assert_non_null(m->p);
        m->cap = nc;
    }
    memcpy(m->p + m->len, p, n);
    m->len += n;
    m->p[m->len] = 0;
    return PCD_OK;
}

static uint8_t *slurp(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/mojo/%s", PCD_TESTDATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)len + 1);
    assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    p[len] = 0;
    *n = (size_t)len;
    return p;
}

static const pcd_format *mojo(const char *v) { return pcd_format_find("mojo", v); }

/* Converts with the named converter; returns the exit code, output in *out, stderr in *err. */
static int convert(const pcd_format *f, const uint8_t *data, size_t n, const char *to, const char *metric, mbuf *out,
                   char **err)
{
    const pcd_ext *ext = pcd_ext_find("mojo");
    assert_true(pcd_can_convert(ext, to));
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, f, data, n, &o), PCD_OK);
    uint8_t sb[256];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    memset(out, 0, sizeof *out);
    mbuf_write(out, (const uint8_t *)"", 0);
    pcd_sink_init(&s, sb, sizeof sb, mbuf_write, NULL, out, &x);
    size_t elen = 0;
    char *etext = NULL;
    FILE *ef = open_memstream(&etext, &elen);
    pcd_job j;
    cli_job_init(&j, f, &r, "in.mojo", &al, ef);
    /* frames as read (--granularity address): these tests check what the format's importer makes
     * of each frame (lines, columns, runs of equal stacks); the default grouping by function of
     * pictures and text is tested in tests/outputs (outputs_filters) and tests/pprof (top) */
    pcd_filter_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.granularity = PCD_GRAN_ADDRESS;
    j.filters = &fo;
    j.metric = metric;
    int rc = cli_job_exit(&j, pcd_convert(&j, to, &s), ef);
    fclose(ef);
    assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
    if (err) *err = etext;
    else free(etext);
    return rc;
}

/* ---- the varint: both read paths, every edge -------------------------------------------- */

typedef struct vcase {
    const char *name;
    uint8_t in[12];
    size_t len;
    pcd_status want;
    uint64_t mag;
    bool neg;
} vcase;

static const vcase vcases[] = {
    { "zero", { 0x00 }, 1, PCD_OK, 0, false },
    { "negative zero", { 0x40 }, 1, PCD_OK, 0, true },
    { "-63", { 0x7f }, 1, PCD_OK, 63, true },
    { "non-minimal zero", { 0x80, 0x00 }, 2, PCD_OK, 0, false },
    { "-131 (the spec's C3 02)", { 0xc3, 0x02 }, 2, PCD_OK, 131, true },
    { "2^27-1 (a masked string key, 4 bytes)", { 0xbf, 0xff, 0xff, 0x7f }, 4, PCD_OK, 134217727, false },
    { "2^64-1 (lasti = -1 frame key, 10 bytes)", { 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03 }, 10,
      PCD_OK, UINT64_MAX, false },
    { "-(2^64-1)", { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03 }, 10, PCD_OK, UINT64_MAX, true },
    { "65 bits", { 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x04 }, 10, PCD_E_OVERFLOW, 0, false },
    { "11 bytes", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 11, PCD_E_OVERFLOW, 0, false },
    { "11 bytes of zero payload", { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x83, 0x00 }, 11,
      PCD_E_OVERFLOW, 0, false },
    { "cut after the first byte", { 0x80 }, 1, PCD_E_TRUNCATED, 0, false },
    { "cut after nine bytes", { 0xbf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, 9, PCD_E_TRUNCATED, 0, false },
};

static void test_varint_paths(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof vcases / sizeof vcases[0]; i++) {
        const vcase *t = &vcases[i];
        /* exact window (the slow path when shorter than 10 bytes), then padded (the inline path) */
        for (int pad = 0; pad < 2; pad++) {
            uint8_t buf[32];
            memset(buf, 0xAA, sizeof buf);
            memcpy(buf, t->in, t->len);
            pcd_ctx x;
            pcd_ctx_init(&x, NULL);
            pcd_cursor c = pcd_cursor_make(&x, buf, t->len + (pad ? 16 : 0), 0, true);
            uint64_t mag = 7;
            bool neg = false;
            print_message("mojo varint: %s (%s)\n", t->name, pad ? "padded" : "exact");
            pcd_status st = pcd_read_mojo(&c, &mag, &neg, "v");
            if (t->want == PCD_E_TRUNCATED && pad) {
                /* with more bytes after it, a cut varint is just a longer one */
                continue;
            }
            assert_int_equal(st, t->want);
            if (st == PCD_OK) {
                assert_true(mag == t->mag);
                assert_int_equal(neg, t->neg);
                assert_ptr_equal(c.p, buf + t->len);
            } else {
                assert_ptr_equal(c.p, buf);
                assert_int_equal(x.err.offset, 0);
            }
        }
    }
    /* the comparison the schema's checks use: sign and magnitude as a number */
    assert_int_equal(pcd_mojo_cmp(0, true, 0), 0);
    assert_int_equal(pcd_mojo_cmp(3, false, 3), 0);
    assert_int_equal(pcd_mojo_cmp(3, true, 3), -1);
    assert_int_equal(pcd_mojo_cmp(3, true, -3), 0);
    assert_int_equal(pcd_mojo_cmp(UINT64_MAX, false, INT64_MAX), 1);
    assert_int_equal(pcd_mojo_cmp(UINT64_MAX, true, INT64_MIN), -1);
    assert_int_equal(pcd_mojo_cmp((uint64_t)1 << 63, true, INT64_MIN), 0);
    char b[32];
    assert_int_equal(pcd_mojo_int_text(b, (pcd_mojo_int){ 0, true }), 1);
    assert_memory_equal(b, "0", 1);
    assert_int_equal(pcd_mojo_int_text(b, (pcd_mojo_int){ UINT64_MAX, true }), 21);
    assert_memory_equal(b, "-18446744073709551615", 21);
}

/* ---- Python's int(tid, 16), for thread ids ------------------------------------------------- */

static void hexcase(const char *in, const char *want)
{
    char out[4400];
    size_t n = pcd_mojo_py_hex_to_dec((const uint8_t *)in, strlen(in), out, sizeof out);
    print_message("int(%s, 16)\n", in);
    if (!want) {
        assert_int_equal(n, 0);
        return;
    }
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
}

static void test_python_hex(void **state)
{
    (void)state;
    /* vectors checked against CPython 3.11 */
    hexcase("1092", "4242");
    hexcase("ffffffffffffffff", "18446744073709551615");
    hexcase("10000000000000000", "18446744073709551616");
    hexcase("000", "0");
    hexcase("-0", "0");
    hexcase("-ff", "-255");
    hexcase("+ff", "255");
    hexcase(" ff\t\n", "255");
    hexcase("0x1f", "31");
    hexcase("0X1F", "31");
    hexcase("0x_1f", "31");
    hexcase("f_f", "255");
    hexcase("0b1", "177");
    hexcase("\xc2\xa0" "ff" "\xe3\x80\x80", "255"); /* U+00A0 and U+3000 are whitespace */
    hexcase("\xe2\x80\xa8" "a", "10");               /* U+2028 too */
    hexcase("f__f", NULL);
    hexcase("_f", NULL);
    hexcase("f_", NULL);
    hexcase("0x", NULL);
    hexcase("", NULL);
    hexcase("- 1", NULL);
    hexcase("main thread", NULL);
    hexcase("12 34", NULL);
    hexcase("\x1c" "ff", NULL);                       /* ASCII separators are not stripped */
    hexcase("\xe2\x80\x8b" "f", NULL);               /* U+200B is not whitespace */
    hexcase("\xfc", NULL);
    /* Python prints at most 4300 digits: 3571 f's give 4300, 3572 are too many */
    static char big[3600];
    memset(big, 'f', 3571);
    big[3571] = 0;
    char out[4400];
    size_t n = pcd_mojo_py_hex_to_dec((const uint8_t *)big, 3571, out, sizeof out);
    assert_int_equal(n, 4300);
    assert_memory_equal(out, "81744410132094422503", 20);
    assert_memory_equal(out + 4280, "47391660265823010815", 20);
    big[3571] = 'f';
    assert_int_equal(pcd_mojo_py_hex_to_dec((const uint8_t *)big, 3572, out, sizeof out), 0);
    /* leading zeros do not count */
    static char zeros[5000];
    memset(zeros, '0', 4000);
    memcpy(zeros + 4000, "ff", 3);
    hexcase(zeros, "255");
}

/* ---- the assembler ------------------------------------------------------------------------- */

typedef struct got {
    mojo_asm *as;
    char lines[16][256];
    int n;
    int meta;
    char errors[16][256];
    int n_err, n_warn;
} got;

static void got_sample(void *ud, const mojo_sample *s)
{
    got *g = ud;
    if (g->n >= 16) return;
    char *l = g->lines[g->n++];
    size_t k = 0;
    char num[24];
    memcpy(l + k, num, pcd_mojo_int_text(num, s->pid));
    k += pcd_mojo_int_text(num, s->pid);
    l[k++] = '/';
    pcd_bytes t = pcd_mojo_tid_text(g->as, s->tid);
    memcpy(l + k, t.ptr, t.len);
    k += t.len;
    for (size_t i = 0; i < s->n_items && k < 200; i++) {
        const mojo_item *it = &s->items[i];
        l[k++] = ' ';
        if (it->kind == MOJO_IT_FRAME) {
            const mojo_frame *f = &g->as->fr[it->id];
            pcd_bytes a = pcd_mojo_str(g->as, f->file), b = pcd_mojo_str(g->as, f->scope);
            k += (size_t)snprintf(l + k, 256 - k, "%.*s:%.*s:%llu", (int)a.len, (const char *)a.ptr, (int)b.len,
                                  (const char *)b.ptr, (unsigned long long)f->line.mag);
        } else {
            k += (size_t)snprintf(l + k, 256 - k, "<%u>", it->kind);
        }
    }
    l[k] = 0;
}

static void got_meta(void *ud, uint32_t key, uint32_t value, uint64_t offset)
{
    (void)key;
    (void)value;
    (void)offset;
    ((got *)ud)->meta++;
}

static void got_report(void *ud, bool is_error, const pcd_error *e)
{
    got *g = ud;
    if (is_error) {
        if (g->n_err < 16) pcd_error_format(e, g->errors[g->n_err], sizeof g->errors[0]);
        g->n_err++;
    } else {
        g->n_warn++;
    }
}

/* Runs a file through the reader and the assembler. */
static void assemble(const char *name, got *g)
{
    size_t n;
    uint8_t *data = slurp(name, &n);
    static const mojo_asm_ops ops = { got_sample, got_meta };
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    mojo_asm as;
    memset(g, 0, sizeof *g);
    g->as = &as;
    assert_int_equal(pcd_mojo_asm_init(&as, &al, 0, &ops, g, got_report, g), PCD_OK);
    const pcd_format *f = NULL;
    for (size_t i = 0; i < pcd_n_formats && !f; i++) {
        const pcd_format *c = pcd_formats[i];
        if (strcmp(c->name, "mojo") == 0 && c->version_num == data[3]) f = c;
    }
    assert_non_null(f);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, f, data, n, &o), PCD_OK);
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) assert_int_equal(mojo_asm_record(&as, &rec), PCD_OK);
    assert_int_equal(st, PCD_END);
    assert_int_equal(as.version, data[3]);
    assert_int_equal(pcd_mojo_asm_finish(&as), PCD_OK);
    pcd_reader_close(&r);
    pcd_mojo_asm_free(&as);
    assert_int_equal(al.in_use, 0);
    free(data);
}

static void test_assembler(void **state)
{
    (void)state;
    got g;
    /* keys are per process; a process redefines its own; key 1 is <unknown> even when defined */
    assemble("v3_multiproc.mojo", &g);
    assert_int_equal(g.n, 4);
    assert_string_equal(g.lines[0], "100/100 parent.py:main:10 parent.py:<unknown>:11");
    assert_string_equal(g.lines[1], "101/101 child.py:work:20");
    assert_string_equal(g.lines[2], "100/100 parent.py:main:10");
    assert_string_equal(g.lines[3], "100/100 parent.py:main_again:30 parent.py:<unknown>:11");
    assert_int_equal(g.n_err, 0);
    assert_int_equal(g.meta, 5);
    /* definitions before the first stack belong to the process that follows (a warning) */
    assemble("v1_early_defs.mojo", &g);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.lines[0], "44633/44633 native@4f28b6:_Py_HashBytes:4166");
    assert_string_equal(g.lines[1], "44633/44633 native@4f28b6:_Py_HashBytes:4166 x.py:f:2");
    assert_int_equal(g.n_err, 0);
    assert_int_equal(g.n_warn, 1);
    /* undefined keys: errors with their offsets, rendered as <unknown> */
    assemble("v3_undefined.mojo", &g);
    assert_int_equal(g.n_err, 3);
    assert_string_equal(g.errors[0], "offset 27: frame.scope: expected a string key defined in this process, found 3");
    assert_string_equal(g.errors[1], "offset 37: frame_ref.key: expected a frame key defined in this process, found 10");
    assert_string_equal(g.errors[2], "offset 46: frame_ref.key: expected a frame key defined in this process, found 9");
    assert_string_equal(g.lines[0], "1/1 a.py:<unknown>:1 <unknown>:<unknown>:0");
    assert_string_equal(g.lines[1], "2/2 <unknown>:<unknown>:0");
    /* markers keep their place; thread ids are Python's int(tid, 16) or the text as it is */
    assemble("v3_full.mojo", &g);
    assert_int_equal(g.n, 3);
    assert_string_equal(g.lines[0], "10/10 <1> gc.py:collect:3 <3> <2>");
    assemble("v3_basic.mojo", &g);
    assert_string_equal(g.lines[1], "4242/4256");
    assert_string_equal(g.lines[3], "4242/main thread fi\xfc.py:<unknown>:7");
}

/* Events outside a sample and a metadata event inside one. */
static void test_sample_bounds(void **state)
{
    (void)state;
    static const mojo_asm_ops ops = { got_sample, got_meta };
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    mojo_asm as;
    got g;
    memset(&g, 0, sizeof g);
    g.as = &as;
    assert_int_equal(pcd_mojo_asm_init(&as, &al, 3, &ops, &g, got_report, &g), PCD_OK);
    pcd_mojo_event_view e;
    memset(&e, 0, sizeof e);
    e.kind = PCD_MOJO_EVENT_TIME;
    e.has_value = true;
    assert_int_equal(pcd_mojo_asm_event(&as, &e, 4), PCD_OK); /* before any stack: a warning */
    assert_int_equal(as.problems[MOJO_P_OUTSIDE], 1);
    memset(&e, 0, sizeof e);
    e.kind = PCD_MOJO_EVENT_STACK;
    e.has_pid = e.has_tid = e.has_iid = true;
    e.pid.mag = 5;
    e.tid = (pcd_bytes){ (const uint8_t *)"5", 1 };
    assert_int_equal(pcd_mojo_asm_event(&as, &e, 4), PCD_OK);
    memset(&e, 0, sizeof e);
    e.kind = PCD_MOJO_EVENT_METADATA;
    e.has_meta_key = e.has_text = true;
    e.meta_key = (pcd_bytes){ (const uint8_t *)"k", 1 };
    e.text = (pcd_bytes){ (const uint8_t *)"v", 1 };
    assert_int_equal(pcd_mojo_asm_event(&as, &e, 4), PCD_OK); /* ends the sample */
    assert_int_equal(g.n, 1);
    memset(&e, 0, sizeof e);
    e.kind = PCD_MOJO_EVENT_GC;
    assert_int_equal(pcd_mojo_asm_event(&as, &e, 4), PCD_OK); /* outside again */
    assert_int_equal(as.problems[MOJO_P_OUTSIDE], 2);
    assert_int_equal(pcd_mojo_asm_finish(&as), PCD_OK);
    assert_int_equal(g.n, 1);
    assert_int_equal(g.n_err, 0);
    pcd_mojo_asm_free(&as);
    assert_int_equal(al.in_use, 0);
    /* a memory limit is an error, not a crash */
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 2048);
    pcd_status st = pcd_mojo_asm_init(&as, &al, 3, &ops, &g, NULL, NULL);
    char s[64];
    for (int i = 0; st == PCD_OK && i < 10000; i++) {
        memset(&e, 0, sizeof e);
        e.kind = PCD_MOJO_EVENT_STRING;
        e.has_key = e.has_text = true;
        e.key.mag = (uint64_t)i;
        int k = snprintf(s, sizeof s, "string number %d", i);
        e.text = (pcd_bytes){ (const uint8_t *)s, (size_t)k };
        st = pcd_mojo_asm_event(&as, &e, 4);
    }
    assert_int_equal(st, PCD_E_NOMEM);
    pcd_mojo_asm_free(&as);
    assert_int_equal(al.in_use, 0);
}

/* ---- converters ------------------------------------------------------------------------------ */

static void test_golden_austin(void **state)
{
    (void)state;
    static const char *const files[] = { "v1_early_defs", "v2_columns", "v3_basic", "v3_full", "v3_multiproc",
                                         "v3_undefined" };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char name[64];
        size_t n, m;
        snprintf(name, sizeof name, "%s.mojo", files[i]);
        uint8_t *data = slurp(name, &n);
        snprintf(name, sizeof name, "%s.austin.txt", files[i]);
        uint8_t *want = slurp(name, &m);
        char v[2] = { (char)('0' + data[3]), 0 };
        mbuf out;
        char *err;
        print_message("convert --to austin %s\n", files[i]);
        assert_int_equal(convert(mojo(v), data, n, "austin", NULL, &out, &err), 0);
        assert_int_equal(out.len, m);
        assert_memory_equal(out.p, want, m);
        /* undefined references are said on stderr */
        assert_int_equal(strstr(err, "undefined") != NULL, strcmp(files[i], "v3_undefined") == 0);
        free(err);
        free(out.p);
        free(data);
        free(want);
    }
}

static void test_collapsed(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = slurp("v3_multiproc.mojo", &n);
    mbuf out;
    assert_int_equal(convert(mojo("3"), data, n, "collapsed", NULL, &out, NULL), 0);
    assert_string_equal((char *)out.p,
                        "P100;T0:100;parent.py:main:10;parent.py:<unknown>:11 500\n"
                        "P101;T0:101;child.py:work:20 600\n"
                        "P100;T0:100;parent.py:main:10 700\n"
                        "P100;T0:100;parent.py:main_again:30;parent.py:<unknown>:11 800\n");
    free(out.p);
    free(data);
    /* identical stacks merge; memory files default to allocations; samples count */
    data = slurp("v2_columns.mojo", &n);
    assert_int_equal(convert(mojo("2"), data, n, "collapsed", NULL, &out, NULL), 0);
    assert_string_equal((char *)out.p, "P7;T7;/tmp/column.py:<listcomp>:15 65536\n");
    free(out.p);
    assert_int_equal(convert(mojo("2"), data, n, "collapsed", "samples", &out, NULL), 0);
    assert_string_equal((char *)out.p, "P7;T7;/tmp/column.py:<listcomp>:15 2\n");
    free(out.p);
    assert_int_equal(convert(mojo("2"), data, n, "collapsed", "bogus", &out, NULL), 2);
    free(out.p);
    free(data);
}

static void test_speedscope(void **state)
{
    (void)state;
    size_t n;
    uint8_t *data = slurp("v3_full.mojo", &n);
    mbuf out;
    assert_int_equal(convert(mojo("3"), data, n, "speedscope", NULL, &out, NULL), 0);
    json_error_t je;
    json_t *j = json_loads((char *)out.p, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "$schema")),
                        "https://www.speedscope.app/file-format-schema.json");
    json_t *frames = json_object_get(json_object_get(j, "shared"), "frames");
    json_t *profiles = json_object_get(j, "profiles");
    assert_true(json_is_array(frames) && json_is_array(profiles));
    /* full mode: CPU time, wall time, allocations, deallocations, per thread */
    size_t i;
    json_t *p;
    int seen = 0;
    json_array_foreach(profiles, i, p) {
        /* what speedscope's file-format schema requires of a sampled profile */
        assert_string_equal(json_string_value(json_object_get(p, "type")), "sampled");
        assert_true(json_is_string(json_object_get(p, "name")) && json_is_number(json_object_get(p, "startValue")) &&
                    json_is_number(json_object_get(p, "endValue")) && json_is_array(json_object_get(p, "samples")) &&
                    json_is_array(json_object_get(p, "weights")));
        const char *unit = json_string_value(json_object_get(p, "unit"));
        assert_true(unit && (strcmp(unit, "microseconds") == 0 || strcmp(unit, "bytes") == 0));
        const char *name = json_string_value(json_object_get(p, "name"));
        json_t *w = json_object_get(p, "weights"), *s = json_object_get(p, "samples");
        assert_int_equal(json_array_size(w), json_array_size(s));
        json_int_t total = 0;
        size_t k;
        json_t *x;
        json_array_foreach(w, k, x) total += json_integer_value(x);
        assert_int_equal(total, json_integer_value(json_object_get(p, "endValue")));
        assert_int_equal(json_integer_value(json_object_get(p, "startValue")), 0);
        if (strcmp(name, "Wall time profile for 10:0:10") == 0) {
            seen |= 1;
            assert_int_equal(total, 2000); /* the third sample has no frames */
            assert_string_equal(json_string_value(json_object_get(p, "unit")), "microseconds");
        } else if (strcmp(name, "CPU time profile for 10:0:11") == 0) {
            seen |= 2; /* idle: no CPU time, so no profile... */
        } else if (strcmp(name, "Memory deallocation profile for 10:0:10") == 0) {
            seen |= 4;
            assert_int_equal(total, 4096);
            assert_string_equal(json_string_value(json_object_get(p, "unit")), "bytes");
        }
    }
    assert_int_equal(seen, 1 | 4);
    /* the frame with columns carries them */
    json_t *fr;
    bool col = false;
    json_array_foreach(frames, i, fr) {
        assert_true(json_is_string(json_object_get(fr, "name")));
        assert_true(!json_object_get(fr, "file") || json_is_string(json_object_get(fr, "file")));
        assert_true(!json_object_get(fr, "line") || json_is_integer(json_object_get(fr, "line")));
        if (json_object_get(fr, "col")) {
            col = true;
            assert_string_equal(json_string_value(json_object_get(fr, "name")), "collect");
            assert_string_equal(json_string_value(json_object_get(fr, "file")), "gc.py");
            assert_int_equal(json_integer_value(json_object_get(fr, "line")), 3);
            assert_int_equal(json_integer_value(json_object_get(fr, "col")), 1);
        }
    }
    assert_true(col);
    json_decref(j);
    free(out.p);
    free(data);
    /* a file name that is not UTF-8 still gives valid JSON */
    data = slurp("v3_basic.mojo", &n);
    assert_int_equal(convert(mojo("3"), data, n, "speedscope", NULL, &out, NULL), 0);
    j = json_loads((char *)out.p, 0, &je);
    assert_non_null(j);
    assert_non_null(strstr((char *)out.p, "\"fi\\ufffd.py\""));
    json_decref(j);
    free(out.p);
    free(data);
}

/* ---- encode --from austin ------------------------------------------------------------------- */

static int import(const char *text, mbuf *out)
{
    const pcd_ext *ext = pcd_ext_find("mojo");
    pcd_memread in = { (const uint8_t *)text, strlen(text), 0 };
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    uint8_t sb[256];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    memset(out, 0, sizeof *out);
    pcd_sink_init(&s, sb, sizeof sb, mbuf_write, NULL, out, &x);
    pcd_import_args a;
    memset(&a, 0, sizeof a);
    a.read = pcd_memread_read;
    a.read_ud = &in;
    a.load = pcd_memread_load;
    a.input_name = "in.austin";
    a.out = &s;
    a.al = &al;
    pcd_status st = pcd_import(&ext->import[0], &a);
    if (a.msg[0]) fprintf(stderr, "%s\n", a.msg);
    int rc = st == PCD_OK ? 0 : st == PCD_E_INVALID ? 1 : 2;
    if (rc == 0) assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    assert_int_equal(al.in_use, 0);
    return rc;
}

static void test_import(void **state)
{
    (void)state;
    static const char text[] =
        "# austin: 3.7.0\n"
        "# interval: 1000\n"
        "# mode: full\n"
        "P10;T0:10;:INVALID:;gc.py:collect:3;kernel:do_syscall_64:0;:GC: 2000,0,-4096\n"
        "P10;T0:11;C:\\app\\x.py:<unknown>:3 1001,1,0\n"
        "P11;T2:main thread 999,0,8192\n"
        "# duration: 4000\n";
    mbuf m, t;
    assert_int_equal(import(text, &m), 0);
    assert_memory_equal(m.p, "MOJ\x03", 4);
    assert_int_equal(convert(mojo("3"), m.p, m.len, "austin", NULL, &t, NULL), 0);
    assert_string_equal((char *)t.p, text);
    free(t.p);
    /* <unknown> is key 1, never defined; thread ids are written back in hex */
    assert_null(memmem(m.p, m.len, "<unknown>", 9));
    assert_non_null(memmem(m.p, m.len, "\x02\x0a\x00" "a", 4));
    free(m.p);
    /* Austin 3.4 lines (no interpreter id) and the alternative ";L<line>" form */
    assert_int_equal(import("# mode: wall\nP5;T5;a.py:f;L7 3\n", &m), 0);
    assert_int_equal(convert(mojo("3"), m.p, m.len, "austin", NULL, &t, NULL), 0);
    assert_string_equal((char *)t.p, "# mode: wall\nP5;T0:5;a.py:f:7 3\n");
    free(t.p);
    free(m.p);
    /* thread ids above 2^64 go back to hex too (Python prints them in decimal) */
    static const char big[] = "# mode: wall\nP1;T0:1208925819614629174706175;a.py:f:1 5\nP1;T0:-255 6\n";
    assert_int_equal(import(big, &m), 0);
    assert_non_null(memmem(m.p, m.len, "ffffffffffffffffffff", 21));
    assert_non_null(memmem(m.p, m.len, "-ff", 4));
    assert_int_equal(convert(mojo("3"), m.p, m.len, "austin", NULL, &t, NULL), 0);
    assert_string_equal((char *)t.p, big);
    free(t.p);
    free(m.p);
    /* memory mode: the one metric is memory */
    assert_int_equal(import("# mode: memory\nP5;T0:5;a.py:f:1 -64\n", &m), 0);
    assert_non_null(memmem(m.p, m.len, "\x0a\xc0\x01", 3)); /* memory event, -64 */
    free(m.p);
    /* errors name the line */
    assert_int_equal(import("# mode: wall\nP5;T0:5;a.py:f 3\n", &m), 1);
    free(m.p);
    assert_int_equal(import("# mode: wall\nhello\n", &m), 1);
    free(m.p);
    assert_int_equal(import("P5;T0:5;a.py:f:1 1,2,3\n", &m), 1);
    free(m.p);
    assert_int_equal(import("P5;T0:5;a.py:f:1\n", &m), 1);
    free(m.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint_paths), cmocka_unit_test(test_python_hex),
        cmocka_unit_test(test_assembler),    cmocka_unit_test(test_sample_bounds),
        cmocka_unit_test(test_golden_austin), cmocka_unit_test(test_collapsed),
        cmocka_unit_test(test_speedscope),   cmocka_unit_test(test_import),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
