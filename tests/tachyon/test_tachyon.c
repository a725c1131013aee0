/* test_tachyon.c: Tachyon (CPython sampling profiles) above the bytes: every real profile
 * against CPython 3.15.2's own outputs (collapsed stacks, the per-sample dump of its reader),
 * CPython's verdicts on damaged files, both byte orders, the writer's choices (re-encoding
 * CPython's files byte for byte from their samples), the text rules, and sampled damage
 * sweeps through the checks and converters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/transform.h"
#include "common/lines.h"
#include "cli/job.h"
#include "pipeline/pipeline.h"
#include "model/profile.h"
#include "outputs/render.h"
#include "formats/tachyon/tachyon.h"
#include "common/text.h"
#include "formats/tachyon/text.h"
#include "writers/tachyon.h"
#include "../runtime/count_only.h"

static const pcd_format *F = &pcd_tachyon_v1_format;

/* ---- helpers --------------------------------------------------------------------------- */

static uint8_t *load(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)len + 1);
    if (len > 0 && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    if (b) b[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return b;
}

/* A profile: the bundled copy (tests/data/tachyon) or the shared corpus. */
static char *path_of(const char *name, const char *ext)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/tachyon/%s%s", PCD_TESTDATA, name, ext);
    FILE *f = fopen(path, "rb");
    if (f) {
        fclose(f);
        return path;
    }
    snprintf(path, sizeof path, "%s/tachyon/%s%s", PCD_CORPUS, name, ext);
    return path;
}

static uint8_t *load_named(const char *name, const char *ext, size_t *n) { return load(path_of(name, ext), n); }

/* A growing memory output. */
typedef struct membuf {
    uint8_t *p;
    size_t len, cap;
} membuf;

static pcd_status mem_write(void *ud, const uint8_t *p, size_t n)
{
    membuf *m = ud;
    if (m->len + n > m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 1 << 16;
        while (ncap < m->len + n) ncap *= 2;
        m->p = realloc(m->p, ncap);
        m->cap = ncap;
    }
    memcpy(m->p + m->len, p, n);
    m->len += n;
    return PCD_OK;
}

static pcd_status mem_patch(void *ud, uint64_t off, const uint8_t *p, size_t n)
{
    membuf *m = ud;
    if (off + n > m->len) return PCD_E_IO;
    memcpy(m->p + off, p, n);
    return PCD_OK;
}

/* Converts a buffer as `profcodec convert --to TO` does (pcd_convert, the CLI's messages and
 * exit statuses); returns the exit status, output in *out. */
static int convert(const char *to, const uint8_t *data, size_t n, membuf *out)
{
    memset(out, 0, sizeof *out);
    assert_true(pcd_can_convert(pcd_ext_find("tachyon"), to));
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, F, data, n, &o), PCD_OK);
    uint8_t buf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, mem_write, mem_patch, out, &x);
    FILE *err = fopen("/dev/null", "w");
    pcd_job j;
    cli_job_init(&j, F, &r, "test.bin", &al, err);
    /* frames as read (--granularity address): these tests check what the format's importer makes
     * of each frame (lines, columns, runs of equal stacks); the default grouping by function of
     * pictures and text is tested in tests/outputs (outputs_filters) and tests/pprof (top) */
    pcd_filter_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.granularity = PCD_GRAN_ADDRESS;
    j.filters = &fo;
    int rc = cli_job_exit(&j, pcd_convert(&j, to, &s), err);
    assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    fclose(err);
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
    mem_write(out, (const uint8_t *)"", 1); /* a NUL for strstr */
    out->len--;
    return rc;
}

typedef struct verdict {
    unsigned errors, warnings;
    pcd_error first;
    bool decoded;                    /* the reader got to the end */
    char msg[512];
} verdict;

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    verdict *v = ud;
    if (is_error) {
        if (!v->errors) {
            v->first = *e;
            pcd_error_format(e, v->msg, sizeof v->msg);
        }
        v->errors++;
    } else {
        v->warnings++;
    }
}

static void on_warn(void *ud, const pcd_error *e) { on_report(ud, false, e); }

/* What `profcodec validate` says: the reader's errors, the schema's warnings and the checks
 * above the bytes. */
static verdict validate(const uint8_t *data, size_t n)
{
    verdict v;
    memset(&v, 0, sizeof v);
    const pcd_ext *ext = pcd_ext_find("tachyon");
    assert_non_null(ext);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, F, data, n, &o), PCD_OK);
    void *ctx = calloc(1, ext->check->ctx_size);
    ext->check->init(ctx, &al);
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        pcd_record_warnings(&rec, on_warn, &v); /* the schema's, as validate reports them */
        ext->check->record(ctx, &rec, on_report, &v);
    }
    if (st == PCD_END) {
        v.decoded = true;
        ext->check->finish(ctx, on_report, &v);
    } else {
        on_report(&v, true, pcd_reader_error(&r));
    }
    ext->check->fini(ctx);
    free(ctx);
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
    return v;
}

static void assert_same_text(const membuf *got, const uint8_t *want, size_t want_len, const char *what)
{
    if (got->len != want_len || memcmp(got->p, want, want_len) != 0) {
        size_t i = 0;
        while (i < got->len && i < want_len && got->p[i] == want[i]) i++;
        fail_msg("%s differs at byte %zu (got %zu bytes, want %zu)", what, i, got->len, want_len);
    }
}

/* Profiles written by CPython 3.15.2, with its collapsed output and per-sample dump. The
 * first ones are in the shared corpus (skipped when absent), the others in tests/data. */
static const char *const k_real[] = {
    "deep_none", "recursion_wall_none", "recursion_wall_zstd", "sleepy_wall_none", "sleepy_wall_none.be",
    "threads_all_none", "threads_all_zstd", "unicode_exception_opcodes_none",
    "deep_zstd", "gc_native_opcodes_zstd", "recursion_nogc_blocking_none", "sleepy_cpu_zstd", "threads_gil_none",
    "workload_all_zstd",
    /* made by profcodec from real ones, edited; CPython's outputs */
    "crafted/locations", "crafted/utf8_dups", "crafted/stats_legacy", "crafted/stats_v2_nan",
    "crafted/stats_nan_not_present", "crafted/stats_missed_negative", "crafted/unused_frame_bad_string",
};

/* ---- CPython's outputs ---------------------------------------------------------------------- */

static void test_real_profiles(void **state)
{
    (void)state;
    unsigned seen = 0;
    for (size_t i = 0; i < sizeof k_real / sizeof k_real[0]; i++) {
        size_t n, cn, sn;
        uint8_t *bin = load_named(k_real[i], ".bin", &n);
        if (!bin) {
            printf("note: %s not found (shared corpus absent?), skipped\n", k_real[i]);
            continue;
        }
        seen++;
        const char *base = strncmp(k_real[i], "sleepy_wall_none.be", 19) == 0 ? "sleepy_wall_none" : k_real[i];
        uint8_t *col = load_named(base, ".collapsed.txt", &cn);
        uint8_t *smp = load_named(k_real[i], ".samples.txt", &sn);
        assert_non_null(col);
        membuf out;
        assert_int_equal(convert("collapsed", bin, n, &out), 0);
        assert_same_text(&out, col, cn, k_real[i]);
        free(out.p);
        if (smp) {
            assert_int_equal(convert("samples", bin, n, &out), 0);
            assert_same_text(&out, smp, sn, k_real[i]);
            free(out.p);
        }
        verdict v = validate(bin, n);
        if (v.errors) fail_msg("%s: %s", k_real[i], v.msg);
        if (strncmp(k_real[i], "crafted/", 8) != 0) assert_int_equal(v.warnings, 0);
        free(bin);
        free(col);
        free(smp);
    }
    assert_true(seen >= 7); /* the bundled ones at least */
}

/* ---- CPython's verdicts ------------------------------------------------------------------- */

static bool ours_accepts(const uint8_t *p, size_t n)
{
    verdict v = validate(p, n);
    return v.decoded && v.errors == 0;
}

static void verdicts_from(const char *dir, unsigned *checked)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/EXPECTED.tsv", dir);
    size_t n;
    char *tsv = (char *)load(path, &n);
    if (!tsv) {
        printf("note: %s not found, skipped\n", path);
        return;
    }
    for (char *line = strtok(tsv, "\n"); line; line = strtok(NULL, "\n")) {
        char *tab1 = strchr(line, '\t');
        if (!tab1 || strncmp(line, "file\t", 5) == 0) continue;
        *tab1 = 0;
        char *tab2 = strchr(tab1 + 1, '\t');
        const char *verdict_text = tab2 ? tab2 + 1 : "";
        bool cpython_accepts = strncmp(verdict_text, "ACCEPTED", 8) == 0;
        snprintf(path, sizeof path, "%s/%s", dir, line);
        size_t fn;
        uint8_t *f = load(path, &fn);
        if (!f) {
            printf("note: %s not found, skipped\n", path);
            continue;
        }
        /* a file whose magic is wrong is not a Tachyon file at all */
        bool accepts = fn >= 4 && (memcmp(f, "HCAT", 4) == 0 || memcmp(f, "TACH", 4) == 0) && ours_accepts(f, fn);
        if (accepts != cpython_accepts) fail_msg("%s: CPython says \"%s\", we %s it", line, verdict_text, accepts ? "accept" : "reject");
        (*checked)++;
        free(f);
    }
    free(tsv);
}

static void test_cpython_verdicts(void **state)
{
    (void)state;
    unsigned checked = 0;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tachyon/invalid", PCD_CORPUS);
    verdicts_from(dir, &checked);
    snprintf(dir, sizeof dir, "%s/tachyon/crafted", PCD_TESTDATA);
    verdicts_from(dir, &checked);
    assert_true(checked >= 8);
}

/* Errors name the place: offset and field path. */
static void test_error_places(void **state)
{
    (void)state;
    static const struct { const char *file, *want; } cases[] = {
        { "invalid/suffix_shared_too_big.bin", "offset 11402: samples[460].stack.suffix.shared_count: expected a shared_count of at most the current stack depth (9), found 200" },
        { "invalid/thread_count_0.bin", "offset 64: samples[0].thread_id:" },
        { "invalid/sample_count_plus1.bin", "offset 28: sample_count: expected 1459 samples" },
        { "invalid/frame_index_out_of_range.bin", "offset 11402: samples[460].stack.full.frames: expected a frame index below 22" },
        { "invalid/stats_nan.bin", "stats[0].duration_sec: expected a finite, non-negative value" },
        { "invalid/mode_6.bin", "offset 60: config: expected a profiling mode 0..5 in bits 0-2, found 0x4e" },
        { "invalid/string_count_huge.bin", "offset 11402: strings: expected a record count that fits in the data left, found 4294967295" },
        { "invalid/zstd_truncated.bin", "samples: expected a complete zstd frame" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tachyon/%s", PCD_CORPUS, cases[i].file);
        size_t n;
        uint8_t *f = load(path, &n);
        if (!f) continue;
        verdict v = validate(f, n);
        assert_true(v.errors > 0);
        if (!strstr(v.msg, cases[i].want)) fail_msg("%s: got \"%s\", want \"%s\"", cases[i].file, v.msg, cases[i].want);
        free(f);
    }
    /* a frame a sample uses with a string index out of range: CPython's error, at the frame */
    size_t n;
    uint8_t *f = load_named("crafted/used_frame_bad_string", ".bin", &n);
    assert_non_null(f);
    verdict v = validate(f, n);
    assert_int_equal(v.errors, 1);
    assert_non_null(strstr(v.msg, "frames[5].funcname: expected string indexes below 12"));
    membuf out;
    assert_int_equal(convert("collapsed", f, n, &out), 1);
    free(out.p);
    free(f);
    /* the same, unused: only a warning */
    f = load_named("crafted/unused_frame_bad_string", ".bin", &n);
    v = validate(f, n);
    assert_int_equal(v.errors, 0);
    assert_int_equal(v.warnings, 1);
    free(f);
}

/* ---- byte orders -------------------------------------------------------------------------- */

/* Re-encodes every record of a file with the generated encoders in the given byte order. */
static membuf reencode(const uint8_t *p, size_t n, bool big)
{
    membuf m = { 0 };
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, F, p, n, &o), PCD_OK);
    uint8_t buf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, mem_write, mem_patch, &m, &x);
    pcd_writer w;
    pcd_writer_open(&w, F, &s, &al);
    pcd_writer_set_big(&w, big);
    pcd_tachyon_v1_file root;
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        if (rec.depth == 0) {
            root = *(const pcd_tachyon_v1_file *)rec.data;
            assert_int_equal(pcd_writer_root(&w, &root), PCD_OK);
        } else {
            assert_int_equal(pcd_writer_record(&w, rec.region, rec.data), PCD_OK);
        }
    }
    assert_int_equal(st, PCD_END);
    assert_int_equal(pcd_writer_finish(&w), PCD_OK);
    pcd_writer_close(&w);
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
    return m;
}

static void test_byte_orders(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof k_real / sizeof k_real[0]; i++) {
        size_t n;
        uint8_t *bin = load_named(k_real[i], ".bin", &n);
        if (!bin) continue;
        bool big = memcmp(bin, "TACH", 4) == 0;
        membuf same = reencode(bin, n, big);
        bool compressed = bin[56 + (big ? 3 : 0)] == 1;
        /* raw files come back byte for byte; zstd ones too with the libzstd that wrote them */
        if (!compressed) {
            assert_int_equal(same.len, n);
            assert_memory_equal(same.p, bin, n);
        }
        membuf other = reencode(same.p, same.len, !big);
        assert_memory_equal(other.p, big ? "HCAT" : "TACH", 4);
        /* the other order says the same */
        membuf a, b;
        assert_int_equal(convert("samples", bin, n, &a), 0);
        assert_int_equal(convert("samples", other.p, other.len, &b), 0);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.p, b.p, a.len);
        verdict v = validate(other.p, other.len);
        assert_int_equal(v.errors, 0);
        /* and back */
        membuf back = reencode(other.p, other.len, big);
        assert_int_equal(back.len, same.len);
        assert_memory_equal(back.p, same.p, same.len);
        free(a.p);
        free(b.p);
        free(same.p);
        free(other.p);
        free(back.p);
        free(bin);
    }
}

/* ---- the writer ---------------------------------------------------------------------------- */

/* Every real profile, re-encoded from its per-sample text through the writer that makes
 * CPython's choices, gives back CPython's bytes (zstd ones: the same samples; the bytes too
 * when this libzstd compresses as CPython's did). */
static void test_writer_reproduces_cpython(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof k_real / sizeof k_real[0]; i++) {
        if (strncmp(k_real[i], "crafted/", 8) == 0) continue;
        size_t n;
        uint8_t *bin = load_named(k_real[i], ".bin", &n);
        if (!bin) continue;
        membuf text;
        assert_int_equal(convert("samples", bin, n, &text), 0);
        pcd_memread in = { (const uint8_t *)text.p, text.len, 0 };
        membuf m = { 0 };
        uint8_t buf[4096];
        pcd_ctx x;
        pcd_ctx_init(&x, NULL);
        pcd_sink s;
        pcd_sink_init(&s, buf, sizeof buf, mem_write, mem_patch, &m, &x);
        pcd_alloc al;
        pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
        bool big = memcmp(bin, "TACH", 4) == 0;
        pcd_import_args a;
        memset(&a, 0, sizeof a);
        a.read = pcd_memread_read;
        a.read_ud = &in;
        a.load = pcd_memread_load;
        a.input_name = "samples";
        a.out = &s;
        a.al = &al;
        a.endian = big ? "big" : NULL;
        assert_int_equal(pcd_import(&pcd_ext_find("tachyon")->import[0], &a), PCD_OK);
        assert_int_equal(pcd_sink_flush(&s), PCD_OK);
        assert_int_equal(al.in_use, 0);
        bool compressed = bin[56 + (big ? 3 : 0)] == 1;
        if (!compressed || (m.len == n && memcmp(m.p, bin, n) == 0)) {
            if (m.len != n || memcmp(m.p, bin, n) != 0) fail_msg("%s: the writer's bytes differ from CPython's", k_real[i]);
        } else {
            membuf again;
            assert_int_equal(convert("samples", m.p, m.len, &again), 0);
            assert_int_equal(again.len, text.len);
            assert_memory_equal(again.p, text.p, text.len);
            printf("note: %s re-encodes to the same samples; its zstd bytes differ (libzstd %s here)\n", k_real[i],
                   "version");
            free(again.p);
        }
        free(m.p);
        free(text.p);
        free(bin);
    }
}

/* Decodes a file's sample records into (encoding, thread, count/frames). */
typedef struct rec_summary {
    uint32_t which;
    uint64_t tid;
    size_t n;                        /* REPEAT entries, or frames */
    uint32_t aux;                    /* shared_count / pop_count */
} rec_summary;

static size_t summarize(const uint8_t *p, size_t n, rec_summary *out, size_t cap, pcd_tachyon_v1_file *root)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, F, p, n, &o), PCD_OK);
    pcd_record rec;
    size_t k = 0;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) {
        if (rec.depth == 0) *root = *(const pcd_tachyon_v1_file *)rec.data;
        const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(&rec);
        if (!s || k == cap) continue;
        rec_summary *rs = &out[k++];
        memset(rs, 0, sizeof *rs);
        rs->which = s->stack.which;
        rs->tid = s->thread_id;
        switch (s->stack.which) {
        case PCD_TACHYON_V1_SAMPLE_STACK_REPEAT: rs->n = s->stack.u.repeat.n_samples; break;
        case PCD_TACHYON_V1_SAMPLE_STACK_FULL: rs->n = s->stack.u.full.n_frames; break;
        case PCD_TACHYON_V1_SAMPLE_STACK_SUFFIX:
            rs->n = s->stack.u.suffix.n_frames;
            rs->aux = s->stack.u.suffix.shared_count;
            break;
        default:
            rs->n = s->stack.u.pop_push.n_frames;
            rs->aux = s->stack.u.pop_push.pop_count;
        }
    }
    assert_int_equal(st, PCD_END);
    pcd_reader_close(&r);
    return k;
}

static pcd_tachyon_wframe fr(int i)
{
    static char names[300][16];
    snprintf(names[i], sizeof names[i], "f%d", i);
    return (pcd_tachyon_wframe){ (const uint8_t *)"/x.py", 5, (const uint8_t *)names[i], strlen(names[i]), i + 1, i + 1, 0, 4, -1 };
}

/* Stacks given outermost first, as call paths: {a, b, c} is a calling b calling c. */
static void sample(pcd_tachyon_writer *tw, uint64_t tid, uint64_t ts, const int *path, size_t d)
{
    pcd_tachyon_wframe f[300] = { 0 };
    assert_true(d <= sizeof f / sizeof f[0]);
    for (size_t i = 0; i < d; i++) f[i] = fr(path[d - 1 - i]);
    assert_int_equal(pcd_tachyon_writer_sample(tw, tid, 0, 0x24, ts, f, d), PCD_OK);
}

static void test_writer_choices(void **state)
{
    (void)state;
    membuf m = { 0 };
    uint8_t buf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, mem_write, mem_patch, &m, &x);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_tachyon_writer_opts o = { 1000, 1000, { 3, 15, 2 }, 0, 4, 0, false, true, 1.0, 1000.0, 0, 0, 1 };
    pcd_tachyon_writer tw;
    assert_int_equal(pcd_tachyon_writer_open(&tw, &s, &al, &o), PCD_OK);
    static const int p1[] = { 0, 1, 2 }, p2[] = { 0, 1, 2, 3, 4 }, p3[] = { 0, 1, 5 }, p4[] = { 7, 8 },
                     p5[] = { 0, 1, 2, 3, 9, 10, 11 }, p6[] = { 0, 12, 13, 14, 15, 16, 17 };
    uint64_t t = 2000;
    sample(&tw, 1, t += 1000, NULL, 0);   /* empty first stack: REPEAT */
    sample(&tw, 1, t += 1000, p1, 3);     /* FULL */
    sample(&tw, 1, t += 1000, p1, 3);     /* REPEAT x2 */
    sample(&tw, 1, t += 1000, p1, 3);
    sample(&tw, 1, t += 1000, p2, 5);     /* pushed only: SUFFIX shared 3 */
    sample(&tw, 1, t += 1000, p3, 3);     /* popped 3, pushed 1, shared 2 >= 3/2: POP_PUSH */
    sample(&tw, 1, t += 1000, p4, 2);     /* nothing shared: FULL */
    sample(&tw, 1, t += 1000, p5, 7);     /* FULL again (nothing shared) */
    sample(&tw, 1, t += 1000, p6, 7);     /* shared 1 < 7/2: FULL */
    sample(&tw, 2, t, p1, 3);             /* another thread: FULL */
    sample(&tw, 1, t += 1000, NULL, 0);   /* everything popped: POP_PUSH pop 7 push 0 */
    /* a deep stack keeps its innermost 256 frames */
    int deep[300];
    for (int i = 0; i < 300; i++) deep[i] = i;
    sample(&tw, 3, t += 1000, deep, 300);
    /* 16 KiB of REPEAT entries: deltas of 1000 take 2 bytes, 3 with the status: the buffer
     * holds (16384 - 11) / 3 + 1 = 5458 entries before it flushes */
    for (int i = 0; i < 6000; i++) sample(&tw, 2, t += 1000, p1, 3);
    sample(&tw, 1, t += 1000, p1, 3);     /* thread 1 ends with a pending REPEAT */
    assert_int_equal(pcd_tachyon_writer_finish(&tw), PCD_OK);
    pcd_tachyon_writer_close(&tw);
    assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    assert_int_equal(al.in_use, 0);
    rec_summary r[64];
    pcd_tachyon_v1_file root;
    size_t k = summarize(m.p, m.len, r, 64, &root);
    static const struct { uint32_t which; uint64_t tid; size_t n; uint32_t aux; } want[] = {
        { PCD_TACHYON_V1_SAMPLE_STACK_REPEAT, 1, 1, 0 },  /* flushed by the next record of thread 1 */
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 1, 3, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_REPEAT, 1, 2, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_SUFFIX, 1, 2, 3 },
        { PCD_TACHYON_V1_SAMPLE_STACK_POP_PUSH, 1, 1, 3 },
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 1, 2, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 1, 7, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 1, 7, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 2, 3, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 1, 0, 0 },    /* nothing shared with the empty stack */
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 3, 256, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_REPEAT, 2, 5458, 0 }, /* the buffer was full */
        { PCD_TACHYON_V1_SAMPLE_STACK_FULL, 1, 3, 0 },
        { PCD_TACHYON_V1_SAMPLE_STACK_REPEAT, 2, 542, 0 },  /* at the end, threads in order */
    };
    size_t nw = sizeof want / sizeof want[0];
    assert_int_equal(k, nw);
    for (size_t i = 0; i < k; i++) {
        if (r[i].which != want[i].which || r[i].tid != want[i].tid || r[i].n != want[i].n || r[i].aux != want[i].aux)
            fail_msg("record %zu: got (%u, tid %llu, n %zu, aux %u), want (%u, tid %llu, n %zu, aux %u)", i, r[i].which,
                     (unsigned long long)r[i].tid, r[i].n, r[i].aux, want[i].which, (unsigned long long)want[i].tid,
                     want[i].n, want[i].aux);
    }
    assert_int_equal(root.sample_count, 6013);
    assert_int_equal(root.thread_count, 3);
    assert_int_equal(root.config, 1u | 8u | (4u << 4));
    /* and it is a valid file, whose deep stack kept the innermost frames */
    verdict v = validate(m.p, m.len);
    if (v.errors) fail_msg("%s", v.msg);
    assert_int_equal(v.warnings, 0);
    membuf col;
    assert_int_equal(convert("collapsed", m.p, m.len, &col), 0);
    assert_non_null(strstr((char *)col.p, "tid:3;x.py:f44:45;x.py:f45:46;"));
    assert_non_null(strstr((char *)col.p, ";x.py:f299:300 1\n"));
    assert_null(strstr((char *)col.p, "x.py:f43:44;"));
    free(col.p);
    free(m.p);
}

/* ---- text rules ------------------------------------------------------------------------------- */

static void test_text(void **state)
{
    (void)state;
    /* bytes.decode("utf-8", "replace"), checked against CPython */
    static const struct { const char *in; size_t n; const char *out; } u[] = {
        { "na\xffp", 4, "na\xef\xbf\xbdp" },
        { "\xed\xa0\x80" "ase", 6, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "ase" }, /* a surrogate: three */
        { "\xe2\x82", 2, "\xef\xbf\xbd" },                                       /* a cut sequence: one */
        { "\xf0\x9f\x98\x80!", 5, "\xf0\x9f\x98\x80!" },
        { "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd" },                             /* overlong: two */
        { "\xf4\x90\x80\x80", 4, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
        { "\xe1\x80\xe1\x80\x80", 5, "\xef\xbf\xbd\xe1\x80\x80" },
    };
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        uint8_t out[64];
        size_t k = pcd_utf8_replace((const uint8_t *)u[i].in, u[i].n, out);
        assert_int_equal(k, strlen(u[i].out));
        assert_memory_equal(out, u[i].out, k);
    }
    /* repr(float) */
    static const struct { double v; const char *s; } f[] = {
        { 1.4830310199999985, "1.4830310199999985" }, { 0.0, "0.0" }, { 1000.0, "1000.0" }, { 1e16, "1e+16" },
        { 1.5e-5, "1.5e-05" }, { 0.0001, "0.0001" }, { 123456789012345678.0, "1.2345678901234568e+17" },
        { -2.5, "-2.5" }, { 1e22, "1e+22" }, { 999999999999999.9, "999999999999999.9" },
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        char b[64];
        pcd_tachyon_py_float_repr(b, sizeof b, f[i].v);
        assert_string_equal(b, f[i].s);
    }
    char b[64];
    pcd_tachyon_py_float_repr(b, sizeof b, NAN);
    assert_string_equal(b, "nan");
    /* repr(str) */
    static const struct { const char *in, *out; } r[] = {
        { "abc", "'abc'" }, { "it's", "\"it's\"" }, { "a'b\"c", "'a\\'b\"c'" }, { "t\tn\nx\\", "'t\\tn\\nx\\\\'" },
        { "\x01\x7f", "'\\x01\\x7f'" }, { "g\xc3\xa9n\xc3\xa9rer", "'g\xc3\xa9n\xc3\xa9rer'" },
        { "\xc2\xa0\xe2\x80\x8b", "'\\xa0\\u200b'" }, { "\xef\xbf\xbd", "'\xef\xbf\xbd'" },
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++) {
        char o[128];
        size_t k = pcd_tachyon_py_str_repr((const uint8_t *)r[i].in, strlen(r[i].in), o);
        o[k] = 0;
        assert_string_equal(o, r[i].out);
    }
    /* os.path.basename, as the CPython dialect of the outputs names files */
    pcd_bytes bn = pcd_basename((pcd_bytes){ (const uint8_t *)"/a/b/c.py", 9 });
    assert_int_equal(bn.len, 4);
    assert_memory_equal(bn.ptr, "c.py", 4);
    bn = pcd_basename((pcd_bytes){ (const uint8_t *)"<frozen runpy>", 14 });
    assert_int_equal(bn.len, 14);
}

/* ---- damage sweeps ------------------------------------------------------------------------------- */

/* Sampled byte changes and truncations of real files (raw and zstd, both orders): the checks
 * and every converter run to the end without a crash, and a file the checks find valid
 * converts. */
/* Sized for CI: 30 damages of each file in each byte order in make test (each kind of damage 10
 * times), 60 under PCD_TEST_LONG=1 (the sweep was a third of the test's CPU under ASan, i26u of
 * s12). */
static void test_damage_sweep(void **state)
{
    (void)state;
    const char *long_env = getenv("PCD_TEST_LONG");
    const int damages = long_env && strcmp(long_env, "0") != 0 ? 60 : 30;
    static const char *const files[] = { "sleepy_cpu_zstd", "crafted/stats_legacy", "deep_zstd" };
    static const char *const convs[] = { "collapsed", "samples", "speedscope", "chrome", "austin" };
    uint64_t seed = 0x9E3779B97F4A7C15u;
    unsigned runs = 0;
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        size_t n;
        uint8_t *orig = load_named(files[fi], ".bin", &n);
        assert_non_null(orig);
        for (int big = 0; big < 2; big++) {
            membuf base = reencode(orig, n, big);
            uint8_t *p = malloc(base.len);
            for (int k = 0; k < damages; k++) {
                memcpy(p, base.p, base.len);
                seed = seed * 6364136223846793005u + 1442695040888963407u;
                size_t at = (size_t)(seed >> 33) % base.len, len = base.len;
                switch (k % 3) {
                case 0: p[at] ^= (uint8_t)(1u << ((seed >> 20) % 8)); break;
                case 1: p[at] = (uint8_t)(seed >> 40); break;
                default: len = at > 64 ? at : 64; /* truncated */
                }
                verdict v = validate(p, len);
                for (size_t c = 0; c < sizeof convs / sizeof convs[0]; c++) {
                    membuf out;
                    int rc = convert(convs[c], p, len, &out);
                    if (v.decoded && v.errors == 0 && rc != 0)
                        fail_msg("%s: valid after damage at %zu, but converter %zu failed", files[fi], at, c);
                    free(out.p);
                    runs++;
                }
            }
            free(p);
            free(base.p);
        }
        free(orig);
    }
    assert_true(runs == 3 * 2 * (unsigned)damages * 5);
}

/* ---- REPEAT entries counted, not stored (count_only) --------------------------------------- */

static bool repeat_entries(const pcd_record *rec, const void **elems, size_t *n)
{
    const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(rec);
    if (!s || s->stack.which != PCD_TACHYON_V1_SAMPLE_STACK_REPEAT) return false;
    *elems = s->stack.u.repeat.samples;
    *n = s->stack.u.repeat.n_samples;
    return true;
}

/* The REPEAT records of a file, from a first decode: offsets and sizes (at most cap). */
static size_t repeat_records(const uint8_t *p, size_t n, uint64_t *off, uint64_t *size, size_t cap)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts o = { .al = &al };
    assert_int_equal(pcd_reader_open_buffer(&r, F, p, n, &o), PCD_OK);
    size_t k = 0;
    pcd_record rec;
    const void *e;
    size_t ne;
    while (k < cap && pcd_reader_next(&r, &rec) == PCD_OK)
        if (repeat_entries(&rec, &e, &ne) && ne > 1) {
            off[k] = rec.offset;
            size[k++] = rec.size;
        }
    pcd_reader_close(&r);
    return k;
}

/* The validate and collapsed paths decode a REPEAT record's entries for their count only
 * (PCD_TACHYON_V1_COUNT_ONLY_REPEAT_SAMPLES): every check and error must stay those of the
 * stored entries. Damage planted in REPEAT records (cut at each byte, an entry's delta made
 * an overlong LEB128 or left open into the next record, the count raised), the two decodes
 * in lockstep (tests/runtime/count_only.h; a Tachyon file is read whole). */
static void test_count_only_same_errors(void **state)
{
    (void)state;
    const uint32_t bit = PCD_TACHYON_V1_COUNT_ONLY_REPEAT_SAMPLES;
    co_result all = { 0, 0, 0 };
    /* undamaged, raw and zstd (the records in decompressed data) */
    static const char *const files[] = { "threads_gil_none", "recursion_nogc_blocking_none", "sleepy_cpu_zstd" };
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        size_t n;
        uint8_t *p = load_named(files[fi], ".bin", &n);
        assert_non_null(p);
        co_result r = co_same(F, p, n, bit, repeat_entries, 0);
        assert_int_equal(r.errors, 0);
        assert_true(r.arrays > 0);
        all.records += r.records;
        all.arrays += r.arrays;
        free(p);
    }
    /* damaged REPEAT records of a raw file */
    size_t n;
    uint8_t *orig = load_named("threads_gil_none", ".bin", &n);
    assert_non_null(orig);
    uint8_t *p = malloc(n);
    uint64_t off[4], size[4];
    size_t nrep = repeat_records(orig, n, off, size, 4);
    assert_int_equal(nrep, 4);
    /* the samples end where the string table starts (the header's string_table_offset, a
     * little-endian u64 in this file): moved into a REPEAT record, it cuts the record there */
    uint8_t sto[8];
    size_t sto_at = 0;
    {
        pcd_tachyon_v1_file root;
        memset(&root, 0, sizeof root);
        summarize(orig, n, NULL, 0, &root);
        for (int b = 0; b < 8; b++) sto[b] = (uint8_t)(root.string_table_offset >> (8 * b));
        for (sto_at = 8; sto_at + 8 <= 64 && memcmp(orig + sto_at, sto, 8) != 0; sto_at++) {}
        assert_true(sto_at + 8 <= 64);
    }
    for (size_t i = 0; i < nrep; i++) {
        /* thread_id, interpreter_id, the tag, the count: the entries start after */
        size_t at = (size_t)off[i] + 13, end = (size_t)(off[i] + size[i]);
        while (orig[at] & 0x80) at++;
        at++;
        for (size_t cut = (size_t)off[i] + 1; cut < end; cut++) {
            memcpy(p, orig, n);
            for (int b = 0; b < 8; b++) p[sto_at + b] = (uint8_t)((uint64_t)cut >> (8 * b));
            co_result r = co_same(F, p, n, bit, repeat_entries, 0);
            assert_true(r.errors > 0);
            all.errors += r.errors;
        }
        for (int kind = 0; kind < 3; kind++) {
            memcpy(p, orig, n);
            if (kind == 0) memset(p + at, 0xff, end - at);        /* an overlong delta */
            else if (kind == 1) memset(p + at, 0x80, end - at);   /* deltas that run into the next record */
            else p[(size_t)off[i] + 13] += 1;                      /* one entry more than there are */
            co_result r = co_same(F, p, n, bit, repeat_entries, 0);
            assert_true(r.errors > 0);
            all.errors += r.errors;
        }
    }
    free(p);
    free(orig);
    assert_true(all.arrays > 100);
    assert_true(all.errors > 50);
}

/* ---- the profile model ------------------------------------------------------------------- */

/* What a consumer of the imported profile saw. */
typedef struct seen {
    bool begun, ended;
    uint64_t samples, calls, runs;   /* samples (counts summed), calls, calls with a count above 1 */
    const char *want;                /* with times: the S lines of CPython's dump, to walk */
    uint64_t start_us;
    int64_t last_time[64];           /* per model thread */
    int64_t main_pid;                /* the first main thread's id (0: none yet) */
    unsigned bad;
    char why[256];
} seen;

static pcd_status seen_begin(void *ud, pcd_profile *p)
{
    (void)p;
    ((seen *)ud)->begun = true;
    return PCD_OK;
}

static pcd_status seen_end(void *ud, pcd_profile *p)
{
    (void)p;
    ((seen *)ud)->ended = true;
    return PCD_OK;
}

static pcd_status seen_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    seen *v = ud;
    v->calls++;
    v->samples += s->count;
    if (s->count > 1) v->runs++;
    const pcd_thread *th = &p->threads[s->thread];
    if (!v->want) {
        if (s->time != PCD_TIME_NONE && !v->bad++) snprintf(v->why, sizeof v->why, "a time without PCD_NEEDS_TIMES");
        return PCD_OK;
    }
    /* the next S line: thread, interpreter, status and timestamp */
    const char *l = strstr(v->want, "\nS ");
    if (!l) {
        if (!v->bad++) snprintf(v->why, sizeof v->why, "more samples than S lines");
        return PCD_OK;
    }
    unsigned long long tid, ts;
    unsigned interp, status;
    if (sscanf(l + 3, "%llu %u %u %llu", &tid, &interp, &status, &ts) != 4) return PCD_E_INTERNAL;
    v->want = l + 1;
    int64_t t = (int64_t)(ts - v->start_us) * 1000;
    if ((th->tid != tid || th->iid != interp || s->status != status || s->time != t || s->count != 1) && !v->bad++)
        snprintf(v->why, sizeof v->why, "sample %llu: tid %llu iid %lld status %u time %lld, want %llu %u %u %lld",
                 (unsigned long long)v->calls, (unsigned long long)th->tid, (long long)th->iid, s->status,
                 (long long)s->time, tid, interp, status, (long long)t);
    /* the main thread's id is its process's id, and the other threads' process */
    if ((status & 32) && !v->main_pid) v->main_pid = (int64_t)tid;
    if (th->pid != (v->main_pid ? v->main_pid : PCD_ID_NONE) && !v->bad++)
        snprintf(v->why, sizeof v->why, "sample %llu: thread %llu of process %lld, want %lld", (unsigned long long)v->calls,
                 tid, (long long)th->pid, (long long)v->main_pid);
    if (s->thread < 64) {
        if (v->last_time[s->thread] > s->time && !v->bad++)
            snprintf(v->why, sizeof v->why, "sample %llu: a thread's times go back", (unsigned long long)v->calls);
        v->last_time[s->thread] = s->time;
    }
    return PCD_OK;
}

/* Imports a buffer into the model for a consumer that needs times or not. */
static void import_into(const uint8_t *data, size_t n, bool times, seen *v, bool check_header)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, F, data, n, &o), PCD_OK);
    FILE *err = fopen("/dev/null", "w");
    pcd_job j;
    cli_job_init(&j, F, &r, "test.bin", &al, err);
    pcd_consumer c = { v, times ? PCD_NEEDS_TIMES : 0, seen_begin, NULL, seen_sample, NULL, seen_end };
    pcd_profile p;
    pcd_profile_init(&p, &al, &c);
    const pcd_ext *ext = pcd_ext_find("tachyon");
    assert_int_equal(pcd_model_import(&j, ext->model, &p), PCD_OK);
    assert_int_equal(pcd_profile_end(&p), PCD_OK);
    assert_false(j.damaged);
    fclose(err);
    if (check_header) {
        /* what the header says, as metadata */
        assert_int_equal(p.dialect, PCD_DIALECT_CPYTHON);
        assert_int_equal(p.time_origin, PCD_TIME_NONE);
        int t = pcd_profile_find_type(&p, "time"), s = pcd_profile_find_type(&p, "samples");
        assert_true(t >= 0 && s >= 0);
        assert_int_equal(p.default_type, s);
        assert_true(p.types[s].secondary);
        assert_false(p.types[t].secondary);
        pcd_bytes b = pcd_profile_text(&p, pcd_profile_meta_get(&p, "python_version"));
        assert_true(b.len == 6 && memcmp(b.ptr, "3.15.2", 6) == 0);
        b = pcd_profile_text(&p, pcd_profile_meta_get(&p, "start_time_us"));
        char want[32];
        snprintf(want, sizeof want, "%llu", (unsigned long long)v->start_us);
        assert_true(b.len == strlen(want) && memcmp(b.ptr, want, b.len) == 0);
        /* every frame is code with a file, or CPython's "~" / "<GC>" or "<native>" frame; none of
         * CPython's own */
        for (size_t i = 0; i < p.n_frames; i++) {
            const pcd_frame *f = pcd_profile_frame_at(&p, (pcd_frame_id)i);
            b = pcd_profile_text(&p, f->file);
            if (f->kind != PCD_FRAME_CODE) {
                pcd_bytes fn = pcd_profile_text(&p, f->function);
                assert_true(b.len == 1 && b.ptr[0] == '~' && f->line == PCD_POS_NONE);
                if (f->kind == PCD_FRAME_GC) assert_true(fn.len == 4 && memcmp(fn.ptr, "<GC>", 4) == 0);
                else assert_true(f->kind == PCD_FRAME_NATIVE && fn.len == 8 && memcmp(fn.ptr, "<native>", 8) == 0);
            }
            assert_true(b.len > 0);
            assert_false(b.len >= 20 && memcmp(b.ptr + b.len - 20, "_sync_coordinator.py", 20) == 0);
            if (f->column != PCD_POS_NONE) assert_true(f->column >= 1 && f->line != PCD_POS_NONE);
        }
    }
    pcd_profile_free(&p);
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
}

/* Every real profile into the model: with times, each sample as CPython's reader gives it
 * (thread, interpreter, status, timestamp, in the file's order); without, the same samples
 * with REPEAT runs as counts. */
static void test_model_import(void **state)
{
    (void)state;
    unsigned seen_files = 0;
    for (size_t i = 0; i < sizeof k_real / sizeof k_real[0]; i++) {
        size_t n, sn;
        uint8_t *bin = load_named(k_real[i], ".bin", &n);
        char *smp = (char *)load_named(k_real[i], ".samples.txt", &sn);
        if (!bin || !smp) {
            free(bin);
            free(smp);
            continue;
        }
        seen_files++;
        const char *st = strstr(smp, "# info start_time_us=");
        assert_non_null(st);
        const char *sc = strstr(smp, "# info sample_count=");
        assert_non_null(sc);
        uint64_t count = strtoull(sc + 20, NULL, 10);
        seen a;
        memset(&a, 0, sizeof a);
        a.want = smp;
        a.start_us = strtoull(st + 21, NULL, 10);
        import_into(bin, n, true, &a, false);
        if (a.bad) fail_msg("%s: %s", k_real[i], a.why);
        assert_true(a.begun && a.ended);
        assert_int_equal(a.samples, count);
        assert_int_equal(a.calls, count);
        assert_null(strstr(a.want + 1, "\nS "));
        seen b;
        memset(&b, 0, sizeof b);
        b.start_us = a.start_us;
        import_into(bin, n, false, &b, true);
        if (b.bad) fail_msg("%s: %s", k_real[i], b.why);
        assert_int_equal(b.samples, count);
        assert_true(b.calls <= count);
        if (strstr(smp, "# stats repeat_samples=0\n") == NULL) assert_true(b.runs > 0);
        free(bin);
        free(smp);
    }
    assert_true(seen_files >= 7);
}

/* ---- converters' shapes ----------------------------------------------------------------------- */

static void test_speedscope_chrome(void **state)
{
    (void)state;
    size_t n;
    uint8_t *bin = load_named("threads_gil_none", ".bin", &n);
    assert_non_null(bin);
    membuf out;
    assert_int_equal(convert("speedscope", bin, n, &out), 0);
    json_error_t je;
    json_t *j = json_loadb((const char *)out.p, out.len, 0, &je);
    assert_non_null(j);
    json_t *profiles = json_object_get(j, "profiles");
    assert_int_equal(json_array_size(profiles), 5); /* thread_count 5 */
    /* a time profile per thread (runs of equal stacks merged): the weights are the samples
     * times the interval, 1304 samples of 1000 us, none with an empty stack */
    size_t runs = 0;
    json_int_t total = 0;
    for (size_t i = 0; i < json_array_size(profiles); i++) {
        json_t *pr = json_array_get(profiles, i);
        json_t *w = json_object_get(pr, "weights");
        assert_string_equal(json_string_value(json_object_get(pr, "unit")), "microseconds");
        assert_int_equal(json_array_size(json_object_get(pr, "samples")), json_array_size(w));
        runs += json_array_size(w);
        for (size_t k = 0; k < json_array_size(w); k++) total += json_integer_value(json_array_get(w, k));
    }
    assert_true(runs > 500);
    assert_int_equal(total, 1304000);
    /* no frame of CPython's own bootstrap */
    assert_null(strstr((const char *)out.p, "_sync_coordinator"));
    json_decref(j);
    free(out.p);
    assert_int_equal(convert("chrome", bin, n, &out), 0);
    j = json_loadb((const char *)out.p, out.len, 0, &je);
    assert_non_null(j);
    json_t *ev = json_object_get(j, "traceEvents");
    size_t slices = 0, names = 0;
    for (size_t i = 0; i < json_array_size(ev); i++) {
        json_t *e = json_array_get(ev, i);
        const char *ph = json_string_value(json_object_get(e, "ph"));
        if (strcmp(ph, "X") == 0) {
            slices++;
            assert_true(json_number_value(json_object_get(e, "dur")) > 0); /* µs, to the ns */
        } else if (strcmp(json_string_value(json_object_get(e, "name")), "thread_name") == 0) {
            names++;
        }
    }
    assert_true(slices > 100);
    assert_int_equal(names, 5);
    json_decref(j);
    free(out.p);
    free(bin);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_profiles),        cmocka_unit_test(test_cpython_verdicts),
        cmocka_unit_test(test_error_places),         cmocka_unit_test(test_byte_orders),
        cmocka_unit_test(test_writer_reproduces_cpython), cmocka_unit_test(test_writer_choices),
        cmocka_unit_test(test_text),                 cmocka_unit_test(test_damage_sweep),
        cmocka_unit_test(test_speedscope_chrome),    cmocka_unit_test(test_model_import),
        cmocka_unit_test(test_count_only_same_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
