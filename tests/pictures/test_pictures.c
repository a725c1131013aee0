/* test_pictures.c: the html and svg outputs (and the differential collapsed form) on profiles
 * built here, shaped as the importers still to come will shape theirs:
 *
 *   heap    MoarVM-like: every snapshot a thread, dominator-tree paths of heap roots and
 *           heap types, object counts and sizes;
 *   alloc   Mono-like: allocating stacks that end in a class frame (heap type), bytes and
 *           objects;
 *   timed   Tachyon-like: samples with times on three threads of two processes;
 *   diff    the timed profile (nanoseconds, as Tachyon) against a MOJO-like base
 *           (microseconds): a cross-format differential page.
 *
 * Each page is checked here (its data parsed back: totals per thread and metric, the same
 * bytes when written twice, no memory left behind) and written with what the browser test
 * (test_browser.mjs) must find on it into PCD_BINDIR/synthetic/. Differential outputs refuse
 * metrics of different clocks unless forced, and scale units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pipeline/pipeline.h"
#include "model/profile.h"
#include "outputs/outputs.h"

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

/* A profile builder: sets the header (types, has), then hands on samples; `e` gets what the
 * page must show (may be NULL). */
typedef void (*builder)(pcd_profile *p, json_t *e);

typedef struct run_opts {
    const pcd_exporter *x;
    const pcd_format *f;
    const char *name;
    builder main;
    const pcd_format *bf;          /* with a base: */
    const char *bname;
    builder base;
    bool force, raw;
    const char *metric;
} run_opts;

/* Runs the exporter as pcd_convert does (the base first); the status, output in out, the
 * job's message in msg. */
static pcd_status run(const run_opts *o, mbuf *out, json_t *e, char *msg, size_t msg_cap)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_job j, bj;
    memset(&j, 0, sizeof j);
    memset(&bj, 0, sizeof bj);
    j.f = o->f;
    j.input_name = o->name;
    j.al = &al;
    j.metric = o->metric;
    j.force = o->force;
    j.raw = o->raw;
    if (o->base) {
        bj.f = o->bf;
        bj.input_name = o->bname;
        bj.al = &al;
        bj.metric = o->metric;
        j.base = &bj;
    }
    uint8_t sb[512];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    memset(out, 0, sizeof *out);
    mbuf_write(out, (const uint8_t *)"", 0);
    pcd_sink_init(&s, sb, sizeof sb, mbuf_write, NULL, out, &x);
    void *state = calloc(1, o->x->state_size);
    assert_non_null(state);
    pcd_consumer c, bc;
    memset(&c, 0, sizeof c);
    memset(&bc, 0, sizeof bc);
    pcd_status st = o->x->open(state, &j, &s, &c);
    pcd_profile bp, p;
    bool have_base = false;
    if (st == PCD_OK && o->base) {
        assert_non_null(o->x->open_base);
        st = o->x->open_base(state, &bj, &bc);
        pcd_profile_init(&bp, &al, &bc);
        have_base = true;
        bp.input_name = o->bname;
        if (st == PCD_OK) {
            o->base(&bp, NULL);
            st = pcd_profile_end(&bp);
        }
    }
    if (st == PCD_OK) {
        pcd_profile_init(&p, &al, &c);
        p.input_name = o->name;
        o->main(&p, e);
        st = pcd_profile_end(&p);
        pcd_profile_free(&p);
    }
    if (o->x->close) o->x->close(state);
    if (have_base) pcd_profile_free(&bp);
    free(state);
    assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    assert_int_equal(al.in_use, 0);
    if (msg) snprintf(msg, msg_cap, "%s", j.msg);
    return st;
}

/* ---- building profiles ------------------------------------------------------------------------ */

static pcd_frame_id frame(pcd_profile *p, pcd_frame_kind kind, const char *fn, const char *file, int64_t line,
                          const char *module)
{
    pcd_frame f = pcd_frame_blank(kind);
    f.function = pcd_profile_strz(p, fn);
    if (file) f.file = pcd_profile_strz(p, file);
    if (module) f.module = pcd_profile_strz(p, module);
    f.line = line;
    return pcd_profile_frame(p, &f);
}

static void sample(pcd_profile *p, pcd_thread_id t, const pcd_frame_id *fr, size_t n, int64_t time, const uint64_t *v)
{
    pcd_sample s;
    memset(&s, 0, sizeof s);
    s.thread = t;
    s.stack = pcd_profile_stack(p, fr, n);
    s.time = time;
    s.count = 1;
    s.values = v;
    assert_int_equal(pcd_profile_sample(p, &s), PCD_OK);
}

static void add_to(json_t *o, const char *key, uint64_t v)
{
    json_t *old = json_object_get(o, key);
    json_object_set_new(o, key, json_integer((json_int_t)(v + (old ? (uint64_t)json_integer_value(old) : 0))));
}

/* expect: {"threads":[{"title", "totals":{metric: n}}], "process": {pid: {metric: n}},
 *          "types": {metric: {type: [per thread]}}} */
static json_t *expect_thread(json_t *e, size_t i, const char *title)
{
    json_t *th = json_object_get(e, "threads");
    if (!th) json_object_set_new(e, "threads", th = json_array());
    while (json_array_size(th) <= i) json_array_append_new(th, json_pack("{s:o}", "totals", json_object()));
    json_t *t = json_array_get(th, i);
    if (title) json_object_set_new(t, "title", json_string(title));
    return t;
}

static void expect_type(json_t *e, const char *metric, const char *type, size_t thread, size_t n_threads, uint64_t v)
{
    json_t *ty = json_object_get(e, "types");
    if (!ty) json_object_set_new(e, "types", ty = json_object());
    json_t *m = json_object_get(ty, metric);
    if (!m) json_object_set_new(ty, metric, m = json_object());
    json_t *a = json_object_get(m, type);
    if (!a) {
        json_object_set_new(m, type, a = json_array());
        for (size_t i = 0; i < n_threads; i++) json_array_append_new(a, json_integer(0));
    }
    json_array_set_new(a, thread, json_integer(json_integer_value(json_array_get(a, thread)) + (json_int_t)v));
}

/* MoarVM-like: three snapshots; dominator paths from heap roots through heap types. */
static void build_heap(pcd_profile *p, json_t *e)
{
    int count = pcd_profile_add_type(p, "count", "count", "Objects");
    int size = pcd_profile_add_type(p, "size", "bytes", "Size");
    p->default_type = size;
    p->has = PCD_HAS_SAMPLES;
    pcd_profile_meta(p, pcd_profile_strz(p, "snapshots"), pcd_profile_strz(p, "3"));
    pcd_frame_id perm = frame(p, PCD_FRAME_ROOT, "Permanent roots", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id stk = frame(p, PCD_FRAME_ROOT, "Stack roots", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id arr = frame(p, PCD_FRAME_TYPE, "BOOTArray", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id hash = frame(p, PCD_FRAME_TYPE, "BOOTHash", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id str = frame(p, PCD_FRAME_TYPE, "Str", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id num = frame(p, PCD_FRAME_TYPE, "Int", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id cache = frame(p, PCD_FRAME_TYPE, "MyApp::Cache", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id entry = frame(p, PCD_FRAME_TYPE, "MyApp::Entry", NULL, PCD_POS_NONE, NULL);
    for (uint64_t s = 0; s < 3; s++) {
        pcd_thread t = pcd_thread_blank();
        t.key = s + 1;
        char name[32];
        snprintf(name, sizeof name, "Snapshot %llu", (unsigned long long)s);
        t.name = pcd_profile_strz(p, name);
        pcd_thread_id th = pcd_profile_thread(p, &t);
        struct { pcd_frame_id fr[4]; size_t n; uint64_t count, each; const char *type; } rows[] = {
            { { perm, hash }, 2, 10, 400, "BOOTHash" },
            { { perm, hash, str }, 3, 200, 64, "Str" },
            { { stk, arr }, 2, 5, 160, "BOOTArray" },
            { { stk, arr, num }, 3, 50 + 10 * s, 32, "Int" },
            { { stk, cache }, 2, 1, 96, "MyApp::Cache" },
            { { stk, cache, entry }, 3, 100 * (s + 1), 64, "MyApp::Entry" },
            { { stk, cache, entry, str }, 4, 100 * (s + 1), 48, "Str" },
        };
        for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
            uint64_t v[2];
            v[count] = rows[r].count;
            v[size] = rows[r].count * rows[r].each;
            sample(p, th, rows[r].fr, rows[r].n, PCD_TIME_NONE, v);
            if (!e) continue;
            json_t *et = json_object_get(expect_thread(e, s, name), "totals");
            add_to(et, "count", v[count]);
            add_to(et, "size", v[size]);
            expect_type(e, "count", rows[r].type, s, 3, v[count]);
            expect_type(e, "size", rows[r].type, s, 3, v[size]);
        }
    }
    if (e) json_object_set_new(e, "default", json_string("size"));
}

/* Mono-like: allocating stacks ending in the allocated class. */
static void build_alloc(pcd_profile *p, json_t *e)
{
    int bytes = pcd_profile_add_type(p, "alloc-bytes", "bytes", "Allocated bytes");
    int count = pcd_profile_add_type(p, "alloc-count", "count", "Allocated objects");
    p->default_type = bytes;
    p->has = PCD_HAS_SAMPLES;
    pcd_frame_id m = frame(p, PCD_FRAME_CODE, "Program:Main (string[])", NULL, PCD_POS_NONE, "app.exe");
    pcd_frame_id load = frame(p, PCD_FRAME_CODE, "Loader:Load (string)", NULL, PCD_POS_NONE, "app.exe");
    pcd_frame_id parse = frame(p, PCD_FRAME_CODE, "Loader:Parse (byte[])", NULL, PCD_POS_NONE, "app.exe");
    pcd_frame_id add = frame(p, PCD_FRAME_CODE, "Cache:Add (string,object)", NULL, PCD_POS_NONE, "app.exe");
    pcd_frame_id run = frame(p, PCD_FRAME_CODE, "Worker:Run ()", NULL, PCD_POS_NONE, "app.exe");
    pcd_frame_id fmt = frame(p, PCD_FRAME_CODE, "string:Format (string,object[])", NULL, PCD_POS_NONE, "mscorlib.dll");
    pcd_frame_id s = frame(p, PCD_FRAME_TYPE, "System.String", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id b = frame(p, PCD_FRAME_TYPE, "System.Byte[]", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id ce = frame(p, PCD_FRAME_TYPE, "Cache/Entry", NULL, PCD_POS_NONE, NULL);
    pcd_thread_id th[2];
    const char *names[2] = { "Main Thread", "Worker" };
    for (int i = 0; i < 2; i++) {
        pcd_thread t = pcd_thread_blank();
        t.pid = 4242;
        t.has_tid = true;
        t.tid = (uint64_t)i + 1;
        t.name = pcd_profile_strz(p, names[i]);
        th[i] = pcd_profile_thread(p, &t);
    }
    struct { int t; pcd_frame_id fr[4]; size_t n; uint64_t bytes, count; const char *type; } rows[] = {
        { 0, { m, load, b }, 3, 1000000, 10, "System.Byte[]" },
        { 0, { m, load, parse, s }, 4, 200000, 5000, "System.String" },
        { 0, { m, add, ce }, 3, 64000, 1000, "Cache/Entry" },
        { 1, { run, add, ce }, 3, 32000, 500, "Cache/Entry" },
        { 1, { run, fmt, s }, 3, 50000, 1250, "System.String" },
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        uint64_t v[2];
        v[bytes] = rows[r].bytes;
        v[count] = rows[r].count;
        sample(p, th[rows[r].t], rows[r].fr, rows[r].n, PCD_TIME_NONE, v);
        if (!e) continue;
        json_t *et = json_object_get(expect_thread(e, (size_t)rows[r].t, NULL), "totals");
        add_to(et, "alloc-bytes", v[bytes]);
        add_to(et, "alloc-count", v[count]);
        expect_type(e, "alloc-bytes", rows[r].type, (size_t)rows[r].t, 2, v[bytes]);
        expect_type(e, "alloc-count", rows[r].type, (size_t)rows[r].t, 2, v[count]);
    }
    if (e) json_object_set_new(e, "default", json_string("alloc-bytes"));
}

/* Tachyon-like: 300 samples a thread, 1 ms apart, on three threads of two processes; the
 * main thread loads, computes, then saves. */
static void build_timed_as(pcd_profile *p, json_t *e, int only_thread, int variant, const char *name, const char *unit,
                           const char *title)
{
    int time = pcd_profile_add_type(p, name, unit, title);
    int samples = pcd_profile_add_type(p, "samples", "count", "Samples");
    p->types[samples].secondary = true;
    p->default_type = time;
    p->has = PCD_HAS_SAMPLES | PCD_HAS_TIMES | PCD_HAS_CODE;
    p->duration = 300000000;
    pcd_frame_id mainf = frame(p, PCD_FRAME_CODE, "main", "/srv/app/main.py", 10, NULL);
    pcd_frame_id load = frame(p, PCD_FRAME_CODE, "load", "/srv/app/io.py", 20, NULL);
    pcd_frame_id read = frame(p, PCD_FRAME_CODE, "read_file", "/srv/app/io.py", 25, NULL);
    pcd_frame_id comp = frame(p, PCD_FRAME_CODE, "compute", "/srv/app/calc.py", 5, NULL);
    pcd_frame_id fib = frame(p, PCD_FRAME_CODE, "fib", "/srv/app/calc.py", 12, NULL);
    pcd_frame_id save = frame(p, PCD_FRAME_CODE, "save", "/srv/app/io.py", 40, NULL);
    pcd_frame_id wr = frame(p, variant ? PCD_FRAME_CODE : PCD_FRAME_NATIVE, variant ? "write_cache" : "write",
                            variant ? "/srv/app/io.py" : "libc.so.6", variant ? 44 : PCD_POS_NONE, NULL);
    pcd_frame_id clean = frame(p, PCD_FRAME_CODE, "cleanup", "/srv/app/main.py", 30, NULL);
    pcd_frame_id work = frame(p, PCD_FRAME_CODE, "worker_loop", "/srv/app/worker.py", 3, NULL);
    pcd_frame_id idle = frame(p, PCD_FRAME_IDLE, "", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id gc = frame(p, PCD_FRAME_GC, "", NULL, PCD_POS_NONE, NULL);
    pcd_frame_id serve = frame(p, PCD_FRAME_CODE, "serve", "/srv/web/server.py", 50, NULL);
    pcd_frame_id handle = frame(p, PCD_FRAME_CODE, "handle_request", "/srv/web/server.py", 61, NULL);
    struct { int64_t pid; uint64_t tid; const char *name; } ths[3] = {
        { 100, 1, "MainThread" }, { 100, 2, "worker-1" }, { 200, 3, "MainThread" } };
    pcd_thread_id th[3];
    for (int i = 0; i < 3; i++) {
        pcd_thread t = pcd_thread_blank();
        t.pid = ths[i].pid;
        t.has_tid = true;
        t.tid = ths[i].tid;
        t.name = pcd_profile_strz(p, ths[i].name);
        th[i] = pcd_profile_thread(p, &t);
    }
    for (int64_t ms = 0; ms < 300; ms++) {
        for (int i = 0; i < 3; i++) {
            if (only_thread >= 0 && i != only_thread) continue;
            pcd_frame_id fr[8];
            size_t n = 0;
            if (i == 0) {
                fr[n++] = mainf;
                int64_t load_end = variant ? 80 : 100, comp_end = variant ? 220 : 200;
                if (ms < load_end) { fr[n++] = load; fr[n++] = read; }
                else if (ms < comp_end) {
                    fr[n++] = comp;
                    for (int64_t d = 0; d <= ms % 3; d++) fr[n++] = fib;
                } else if (variant == 1 && ms >= 290) { fr[n++] = clean; }
                else { fr[n++] = save; fr[n++] = wr; }
            } else if (i == 1) {
                if (ms % 10 < 6) fr[n++] = idle;
                else { fr[n++] = work; if (ms % 10 == 9) fr[n++] = gc; }
            } else {
                fr[n++] = serve;
                if (ms % 4) fr[n++] = handle;
            }
            uint64_t v[2];
            v[time] = variant ? 1000 : 1000000; /* the MOJO-like base in microseconds */
            v[samples] = 1;
            sample(p, th[i], fr, n, ms * 1000000 + i * 1000, v);
            if (!e) continue;
            json_t *et = json_object_get(expect_thread(e, (size_t)i, NULL), "totals");
            add_to(et, "wall-time", v[time]);
            add_to(et, "samples", 1);
        }
    }
    if (e) json_object_set_new(e, "default", json_string("wall-time"));
}

static void build_timed(pcd_profile *p, json_t *e)
{
    build_timed_as(p, e, -1, 0, "wall-time", "nanoseconds", "Wall time");
}
static void build_timed_main(pcd_profile *p, json_t *e)
{
    build_timed_as(p, e, 0, 0, "wall-time", "nanoseconds", "Wall time");
}
/* the base of the differential page: thread 0 only, in microseconds, as a MOJO file has it;
 * it loads shorter, computes longer, saves through another function and cleans up at the end */
static void build_base_us(pcd_profile *p, json_t *e) { build_timed_as(p, e, 0, 1, "time", "microseconds", "Wall time"); }
static void build_base_cpu(pcd_profile *p, json_t *e) { build_timed_as(p, e, 0, 1, "cpu-time", "microseconds", "CPU time"); }

/* ---- reading a page back ----------------------------------------------------------------------- */

static json_t *page_data(const mbuf *m)
{
    const char *open = strstr((const char *)m->p, "<script type=\"application/json\" id=\"pcd-data\">");
    assert_non_null(open);
    open = strchr(open, '>') + 1;
    const char *close = strstr(open, "</script>");
    assert_non_null(close);
    json_error_t err;
    json_t *d = json_loadb(open, (size_t)(close - open), 0, &err);
    if (!d) fail_msg("the page's data is not JSON: %s at %d", err.text, err.position);
    return d;
}

static const char DIGITS[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* the sum of a varint column's values, and how many */
static uint64_t column_sum(const char *s, size_t *n)
{
    uint64_t sum = 0, v = 0, mul = 1;
    *n = 0;
    for (; *s; s++) {
        const char *d = strchr(DIGITS, *s);
        assert_non_null(d);
        uint64_t x = (uint64_t)(d - DIGITS);
        if (x >= 32) {
            v += (x - 32) * mul;
            mul *= 32;
        } else {
            sum += v + x * mul;
            v = 0;
            mul = 1;
            (*n)++;
        }
    }
    return sum;
}

/* Every thread's self values add up to what was sampled. */
static void check_totals(json_t *d, json_t *e)
{
    json_t *types = json_object_get(d, "types"), *threads = json_object_get(d, "threads");
    json_t *et = json_object_get(e, "threads");
    assert_int_equal(json_array_size(threads), json_array_size(et));
    for (size_t i = 0; i < json_array_size(threads); i++) {
        json_t *self = json_object_get(json_array_get(threads, i), "self");
        size_t n_self = (size_t)json_integer_value(json_object_get(self, "n"));
        for (size_t t = 0; t < json_array_size(types); t++) {
            const char *name = json_string_value(json_object_get(json_array_get(types, t), "name"));
            size_t n;
            uint64_t sum = column_sum(json_string_value(json_array_get(json_object_get(self, "v"), t)), &n);
            json_t *want = json_object_get(json_object_get(json_array_get(et, i), "totals"), name);
            assert_non_null(want);
            assert_int_equal(sum, (uint64_t)json_integer_value(want));
            assert_true(n == n_self || n == 0);
        }
    }
}

static void write_file(const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/synthetic", PCD_BINDIR);
    mkdir(path, 0777);
    snprintf(path, sizeof path, "%s/synthetic/%s", PCD_BINDIR, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
}

/* Writes the page of builder b (twice: the same bytes), checks its totals, and saves it with
 * its expectations for the browser test. */
static void page(const char *file, const pcd_format *f, builder b, json_t *extra)
{
    run_opts o = { &pcd_out_html, f, file, b, NULL, NULL, NULL, false, false, NULL };
    mbuf a, c;
    json_t *e = json_object();
    assert_int_equal(run(&o, &a, e, NULL, 0), PCD_OK);
    assert_int_equal(run(&o, &c, NULL, NULL, 0), PCD_OK);
    assert_int_equal(a.len, c.len);
    assert_memory_equal(a.p, c.p, a.len);
    json_t *d = page_data(&a);
    check_totals(d, e);
    json_decref(d);
    if (extra) json_object_update(e, extra);
    char name[256];
    snprintf(name, sizeof name, "%s.html", file);
    write_file(name, a.p, a.len);
    snprintf(name, sizeof name, "%s.expect.json", file);
    char *text = json_dumps(e, JSON_SORT_KEYS | JSON_INDENT(1));
    write_file(name, text, strlen(text));
    free(text);
    json_decref(e);
    json_decref(extra);
    free(a.p);
    free(c.p);
}

static void test_heap(void **st)
{
    (void)st;
    /* it opens on the last snapshot */
    page("synthetic-heap", pcd_format_find("moarvm", "3"), build_heap, json_pack("{s:s,s:i}", "view", "icicle", "first_thread", 2));
}

static void test_alloc(void **st)
{
    (void)st;
    page("synthetic-alloc", pcd_format_find("mono", "3.0"), build_alloc, json_pack("{s:s}", "view", "flame"));
}

static void test_timed(void **st)
{
    (void)st;
    /* the time order view: thread 0's top frame is one box; its children three */
    page("synthetic-timed", pcd_format_find("tachyon", "1"), build_timed,
         json_pack("{s:s,s:s,s:i,s:i}", "view", "flame", "timeline", "time", "lanes", 3, "main_children", 3));
}

/* The timed profile (ns) against the MOJO-like base (µs): values scaled, one-sided stacks. */
static void test_diff_units(void **st)
{
    (void)st;
    run_opts o = { &pcd_out_html, pcd_format_find("tachyon", "1"), "new.bin", build_timed_main,
                   pcd_format_find("mojo", "3"), "base.mojo", build_base_us, false, false, NULL };
    mbuf a;
    assert_int_equal(run(&o, &a, NULL, NULL, 0), PCD_OK);
    json_t *d = page_data(&a);
    json_t *b = json_object_get(d, "base");
    assert_non_null(b);
    assert_string_equal(json_string_value(json_object_get(b, "format")), "mojo");
    assert_true(json_number_value(json_object_get(b, "scale")) == 1000.0);
    assert_true(json_is_null(json_object_get(d, "timeline")));
    json_decref(d);
    write_file("synthetic-diff.html", a.p, a.len);
    json_t *e = json_pack("{s:s,s:[s,s,s],s:[s,s,s],s:[s],s:[s,s]}", "view", "diff", "grew", "load", "save", "write",
                          "shrank", "compute", "cleanup", "write_cache", "only_new", "write", "only_base", "cleanup",
                          "write_cache");
    char *text = json_dumps(e, JSON_SORT_KEYS);
    write_file("synthetic-diff.expect.json", text, strlen(text));
    free(text);
    json_decref(e);
    free(a.p);

    /* the collapsed differential form: raw, the base in the input's unit */
    o.x = &pcd_out_collapsed;
    o.raw = true;
    assert_int_equal(run(&o, &a, NULL, NULL, 0), PCD_OK);
    uint64_t sum_base = 0, sum_new = 0;
    for (char *line = (char *)a.p; *line;) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = 0;
        char *sp2 = strrchr(line, ' ');
        *sp2 = 0;
        char *sp1 = strrchr(line, ' ');
        sum_base += strtoull(sp1 + 1, NULL, 10);
        sum_new += strtoull(sp2 + 1, NULL, 10);
        line = end + 1;
    }
    assert_int_equal(sum_new, 300 * UINT64_C(1000000));
    assert_int_equal(sum_base, 300 * UINT64_C(1000000)); /* 300 samples of 1000 µs */
    free(a.p);
}

static void test_diff_refuses(void **st)
{
    (void)st;
    char msg[512];
    run_opts o = { &pcd_out_html, pcd_format_find("tachyon", "1"), "new.bin", build_timed_main,
                   pcd_format_find("mojo", "3"), "base.mojo", build_base_cpu, false, false, NULL };
    mbuf a;
    assert_int_equal(run(&o, &a, NULL, msg, sizeof msg), PCD_E_ARG);
    assert_non_null(strstr(msg, "different clocks"));
    assert_non_null(strstr(msg, "--force"));
    free(a.p);
    o.x = &pcd_out_collapsed;
    assert_int_equal(run(&o, &a, NULL, msg, sizeof msg), PCD_E_ARG);
    free(a.p);
    o.force = true;
    assert_int_equal(run(&o, &a, NULL, msg, sizeof msg), PCD_OK);
    assert_true(a.len > 0);
    free(a.p);
    o.x = &pcd_out_html;
    assert_int_equal(run(&o, &a, NULL, msg, sizeof msg), PCD_OK);
    free(a.p);
    /* a count against bytes: different units */
    o.force = false;
    o.metric = "samples";
    o.base = build_base_us;
    assert_int_equal(run(&o, &a, NULL, msg, sizeof msg), PCD_OK); /* samples exists on both sides */
    free(a.p);
}

/* Frames that differ only in what display frames leave out (columns) meet in one node: the
 * view projects the stacks into its own trie, and a node's values come twice. */
static void build_columns(pcd_profile *p, json_t *e)
{
    (void)e;
    int time = pcd_profile_add_type(p, "time", "microseconds", "Wall time");
    p->default_type = time;
    p->has = PCD_HAS_SAMPLES | PCD_HAS_ORDER;
    pcd_frame a = pcd_frame_blank(PCD_FRAME_CODE), b;
    a.function = pcd_profile_strz(p, "main");
    a.file = pcd_profile_strz(p, "app.py");
    a.line = 3;
    a.column = 5;
    b = a;
    b.column = 17;
    pcd_frame_id fa = pcd_profile_frame(p, &a), fb = pcd_profile_frame(p, &b);
    /* (a name that would end the page's script element, were '<' not escaped) */
    pcd_frame_id leaf = frame(p, PCD_FRAME_CODE, "work</script><!--", "app.py", 9, NULL);
    pcd_thread t = pcd_thread_blank();
    t.pid = 1;
    t.has_tid = true;
    t.tid = 1;
    pcd_thread_id th = pcd_profile_thread(p, &t);
    uint64_t v = 10;
    pcd_frame_id s1[2] = { fa, leaf }, s2[2] = { fb, leaf };
    sample(p, th, s1, 2, PCD_TIME_NONE, &v);
    sample(p, th, s2, 2, PCD_TIME_NONE, &v);
    sample(p, th, s1, 1, PCD_TIME_NONE, &v);
}

static void test_merge(void **st)
{
    (void)st;
    run_opts o = { &pcd_out_html, pcd_format_find("mojo", "3"), "columns.mojo", build_columns, NULL, NULL, NULL, false, false, NULL };
    mbuf a;
    assert_int_equal(run(&o, &a, NULL, NULL, 0), PCD_OK);
    size_t scripts = 0;
    for (const char *q = (const char *)a.p; (q = strstr(q, "</script")); q++) scripts++;
    assert_int_equal(scripts, 2); /* the data's and the viewer's */
    assert_null(strstr((const char *)a.p, "<!--"));
    json_t *d = page_data(&a);
    /* the root, main, work: 3 nodes (the source has 5 stacks) */
    assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "nodes"), "n")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "frames"), "n")), 2);
    json_t *th = json_array_get(json_object_get(d, "threads"), 0);
    size_t n;
    assert_int_equal(column_sum(json_string_value(json_array_get(json_object_get(json_object_get(th, "self"), "v"), 0)), &n), 30);
    assert_int_equal(n, 3); /* main/work twice (a node may come twice), main once */
    /* the timeline's runs name nodes too (three runs: the first two on the same node) */
    json_t *runs = json_object_get(th, "runs");
    assert_non_null(runs);
    size_t rn;
    column_sum(json_string_value(json_object_get(runs, "node")), &rn);
    assert_int_equal(rn, (size_t)json_integer_value(json_object_get(runs, "n")));
    json_decref(d);
    free(a.p);
}

/* The SVG of the heap profile: every frame a <g>, the root "all" the total. */
static void test_svg(void **st)
{
    (void)st;
    run_opts o = { &pcd_out_svg, pcd_format_find("moarvm", "3"), "heap", build_heap, NULL, NULL, NULL, false, false, NULL };
    mbuf a, c;
    assert_int_equal(run(&o, &a, NULL, NULL, 0), PCD_OK);
    assert_int_equal(run(&o, &c, NULL, NULL, 0), PCD_OK);
    assert_int_equal(a.len, c.len);
    assert_memory_equal(a.p, c.p, a.len);
    size_t frames = 0;
    for (const char *s = (const char *)a.p; (s = strstr(s, "<g><title>")); s++) frames++;
    /* all, 3 snapshots (the thread part of a line), and in each 2 roots and 7 types */
    assert_int_equal(frames, 1 + 3 + 3 * (2 + 7));
    /* sizes: 30496 + 42016 + 53536 */
    assert_non_null(strstr((const char *)a.p, "<title>all (126,048 bytes, 100.00%)</title>"));
    assert_non_null(strstr((const char *)a.p, "<title>Snapshot 2 (53,536 bytes, 42.47%)</title>"));
    free(a.p);
    free(c.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap),          cmocka_unit_test(test_alloc),
        cmocka_unit_test(test_timed),         cmocka_unit_test(test_diff_units),
        cmocka_unit_test(test_diff_refuses),  cmocka_unit_test(test_svg),
        cmocka_unit_test(test_merge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
