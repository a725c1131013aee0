/* test_outputs_timeline.c: the outputs of timed events on profiles built by hand:
 *  - chrome from samples with times (MOJO-like threads: a pid, an interpreter, the thread id
 *    as text): one slice per frame while it stays on the stack, frames compared by (file,
 *    function), closed at a change or at the end (last time + the period); exact bytes;
 *  - chrome from slices: every argument type, JSON strings made safe (control characters,
 *    invalid UTF-8) in the default dialect, raw in Heph's;
 *  - speedscope from slices that overlap without nesting, zero-length, equal and reversed:
 *    evented profiles that speedscope can read (every close closes the frame on top, times
 *    never go back), split into nesting lanes, exact bytes for a small case and the stack
 *    discipline checked on thousands of random spans (more than 32 lanes included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job.h"
#include "model/profile.h"
#include "outputs/outputs.h"

typedef struct mbuf {
    char *p;
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

typedef void (*build_fn)(pcd_profile *p, void *ud);

/* Runs exporter x on the profile `build` makes; the output (NUL-terminated) in *out. */
static void run_export(const pcd_exporter *x, const char *dialect, build_fn build, void *ud, mbuf *out)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    uint8_t sb[256];
    pcd_ctx cx;
    pcd_ctx_init(&cx, NULL);
    pcd_sink s;
    memset(out, 0, sizeof *out);
    mbuf_write(out, (const uint8_t *)"", 0);
    pcd_sink_init(&s, sb, sizeof sb, mbuf_write, NULL, out, &cx);
    pcd_job j;
    cli_job_init(&j, NULL, NULL, "synthetic", &al, stderr);
    j.dialect = dialect;
    void *state = calloc(1, x->state_size);
    pcd_consumer c;
    memset(&c, 0, sizeof c);
    assert_int_equal(x->open(state, &j, &s, &c), PCD_OK);
    pcd_profile p;
    pcd_profile_init(&p, &al, &c);
    p.input_name = "synthetic";
    p.format = "mojo";
    p.version = "3";
    build(&p, ud);
    assert_int_equal(pcd_profile_end(&p), PCD_OK);
    pcd_profile_free(&p);
    x->close(state);
    free(state);
    assert_int_equal(pcd_sink_flush(&s), PCD_OK);
    assert_int_equal(al.in_use, 0);
}

/* ---- chrome: sample timelines -------------------------------------------------------------- */

static pcd_frame_id code(pcd_profile *p, const char *fn, const char *file, int64_t line)
{
    pcd_frame f = pcd_frame_blank(PCD_FRAME_CODE);
    f.function = pcd_profile_strz(p, fn);
    f.file = pcd_profile_strz(p, file);
    f.line = line;
    return pcd_profile_frame(p, &f);
}

static void sample(pcd_profile *p, pcd_thread_id t, int64_t time, const pcd_frame_id *fr, size_t n)
{
    uint64_t v[1] = { 1000 };
    pcd_sample s;
    memset(&s, 0, sizeof s);
    s.thread = t;
    s.stack = pcd_profile_stack(p, fr, n);
    s.time = time;
    s.count = 1;
    s.values = v;
    assert_int_equal(pcd_profile_sample(p, &s), PCD_OK);
}

static void build_timeline(pcd_profile *p, void *ud)
{
    (void)ud;
    p->period_type = pcd_profile_add_type(p, "time", "microseconds", "Wall time");
    p->period = 1000;
    p->time_origin = INT64_C(1700000000000000000);
    assert_int_equal(pcd_profile_begin(p), PCD_OK);
    pcd_thread ta = pcd_thread_blank(), tb = pcd_thread_blank();
    ta.pid = tb.pid = 10;
    ta.iid = tb.iid = 1;
    ta.tid_text = pcd_profile_strz(p, "42");
    tb.tid_text = pcd_profile_strz(p, "43");
    pcd_thread_id a = pcd_profile_thread(p, &ta), b = pcd_profile_thread(p, &tb);
    pcd_frame_id main_ = code(p, "main", "/src/a.py", 1), f5 = code(p, "f", "/src/a.py", 5),
                 f7 = code(p, "f", "/src/a.py", 7), g = code(p, "g", "/src/b.py", 3),
                 gc = pcd_profile_frame_named(p, PCD_FRAME_GC, 0);
    sample(p, a, 0, (pcd_frame_id[]){ main_, f5 }, 2);
    sample(p, b, 500000, (pcd_frame_id[]){ main_, f5 }, 2);
    sample(p, a, 1000000, (pcd_frame_id[]){ main_, f7 }, 2); /* another line: the same slice */
    sample(p, a, 2000000, (pcd_frame_id[]){ main_, g }, 2);
    sample(p, a, 3000000, (pcd_frame_id[]){ main_, g, gc }, 3);
    sample(p, a, 4000000, NULL, 0);                           /* nothing on the stack */
    sample(p, a, 5000000, (pcd_frame_id[]){ main_ }, 1);
}

static void test_chrome_timeline(void **state)
{
    (void)state;
    mbuf out;
    run_export(&pcd_out_chrome, NULL, build_timeline, NULL, &out);
    const char *want =
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"converter\":\"profcodec\",\"source_format\":\"mojo 3\","
        "\"epoch_ns\":\"1700000000000000000\",\"epoch_utc\":\"2023-11-14T22:13:20.000000000Z\",\"ts_origin\":\"epoch\"},"
        "\"traceEvents\":[\n"
        "{\"ph\":\"X\",\"pid\":10,\"tid\":42,\"ts\":0.000,\"dur\":2000.000,\"name\":\"f\",\"cat\":\"code\",\"args\":{\"file\":\"/src/a.py\"}},\n"
        "{\"ph\":\"X\",\"pid\":10,\"tid\":42,\"ts\":3000.000,\"dur\":1000.000,\"name\":\"[GC]\",\"cat\":\"gc\"},\n"
        "{\"ph\":\"X\",\"pid\":10,\"tid\":42,\"ts\":2000.000,\"dur\":2000.000,\"name\":\"g\",\"cat\":\"code\",\"args\":{\"file\":\"/src/b.py\"}},\n"
        "{\"ph\":\"X\",\"pid\":10,\"tid\":42,\"ts\":0.000,\"dur\":4000.000,\"name\":\"main\",\"cat\":\"code\",\"args\":{\"file\":\"/src/a.py\"}},\n"
        "{\"ph\":\"X\",\"pid\":10,\"tid\":42,\"ts\":5000.000,\"dur\":1000.000,\"name\":\"main\",\"cat\":\"code\",\"args\":{\"file\":\"/src/a.py\"}},\n"
        "{\"ph\":\"X\",\"pid\":10,\"tid\":43,\"ts\":500.000,\"dur\":1000.000,\"name\":\"f\",\"cat\":\"code\",\"args\":{\"file\":\"/src/a.py\"}},\n"
        "{\"ph\":\"X\",\"pid\":10,\"tid\":43,\"ts\":500.000,\"dur\":1000.000,\"name\":\"main\",\"cat\":\"code\",\"args\":{\"file\":\"/src/a.py\"}},\n"
        "{\"ph\":\"M\",\"pid\":10,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"process 10\"}},\n"
        "{\"ph\":\"M\",\"pid\":10,\"tid\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":10}},\n"
        "{\"ph\":\"M\",\"pid\":10,\"tid\":42,\"name\":\"thread_name\",\"args\":{\"name\":\"Thread 42\"}},\n"
        "{\"ph\":\"M\",\"pid\":10,\"tid\":43,\"name\":\"thread_name\",\"args\":{\"name\":\"Thread 43\"}}\n"
        "]}\n";
    assert_string_equal(out.p, want);
    json_error_t e;
    json_t *doc = json_loads(out.p, 0, &e);
    assert_non_null(doc);
    json_decref(doc);
    free(out.p);
    /* Heph's layout: whole microseconds of Unix time, no metadata events, no final newline */
    run_export(&pcd_out_chrome, "heph", build_timeline, NULL, &out);
    const char *head = "{\n\t\"displayTimeUnit\": \"ns\",\n\t\"traceEvents\": [\n"
                       "\t\t{\"pid\": 10, \"tid\": 42, \"ts\": 1700000000000000, \"dur\": 2000, \"name\": \"f\", "
                       "\"args\": {\"file\": \"/src/a.py\"}, \"ph\": \"X\", \"cat\": \"\"},\n";
    assert_memory_equal(out.p, head, strlen(head));
    assert_string_equal(out.p + out.len - 5, "\n\t]\n}");
    assert_null(strstr(out.p, "\"ph\": \"M\""));
    free(out.p);
}

/* a profile without samples: the placeholder metadata event keeps the JSON valid */
static void build_empty(pcd_profile *p, void *ud)
{
    (void)ud;
    pcd_profile_add_type(p, "time", "microseconds", NULL);
}

static void test_chrome_empty(void **state)
{
    (void)state;
    mbuf out;
    run_export(&pcd_out_chrome, NULL, build_empty, NULL, &out);
    assert_string_equal(out.p, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"converter\":\"profcodec\",\"source_format\":"
                               "\"mojo 3\"},\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"trace_config\","
                               "\"args\":{}}\n]}\n");
    free(out.p);
}

/* ---- chrome: slices ----------------------------------------------------------------------- */

static void build_slices(pcd_profile *p, void *ud)
{
    (void)ud;
    pcd_thread t = pcd_thread_blank();
    t.pid = 3;
    t.tid = UINT64_MAX;
    t.has_tid = true;
    pcd_thread_id tr = pcd_profile_thread(p, &t);
    pcd_profile_thread_name(p, tr, pcd_profile_strz(p, "substream max"), pcd_profile_strz(p, "stream 3"));
    static const uint64_t us[] = { 1, UINT64_MAX };
    static const int64_t is[] = { INT64_MIN, -1 };
    static const double fs[] = { -0.0, 0.5 };
    static const pcd_bytes ss[] = { { (const uint8_t *)"q\"", 2 }, { (const uint8_t *)"\xff", 1 } };
    pcd_arg a[8];
    memset(a, 0, sizeof a);
    const char *keys[] = { "u", "i", "f", "s", "ua", "ia", "fa", "sa" };
    for (int k = 0; k < 8; k++) a[k].key = (pcd_bytes){ (const uint8_t *)keys[k], strlen(keys[k]) };
    a[0].type = PCD_ARG_U64, a[0].v.u = UINT64_MAX;
    a[1].type = PCD_ARG_I64, a[1].v.i = INT64_MIN;
    a[2].type = PCD_ARG_F64, a[2].v.f = -0.0;
    a[3].type = PCD_ARG_STR, a[3].v.s = (pcd_bytes){ (const uint8_t *)"a\x01\b\xe2\x82z", 6 };
    a[4].type = PCD_ARG_U64_ARRAY, a[4].v.u_arr.items = us, a[4].v.u_arr.n = 2;
    a[5].type = PCD_ARG_I64_ARRAY, a[5].v.i_arr.items = is, a[5].v.i_arr.n = 2;
    a[6].type = PCD_ARG_F64_ARRAY, a[6].v.f_arr.items = fs, a[6].v.f_arr.n = 2;
    a[7].type = PCD_ARG_STR_ARRAY, a[7].v.s_arr.items = ss, a[7].v.s_arr.n = 2;
    pcd_slice s;
    memset(&s, 0, sizeof s);
    s.track = tr;
    s.start = -1500;
    s.end = -2000; /* ends before it starts: dur 0 (Heph's u64 subtraction wraps) */
    s.name = (pcd_bytes){ (const uint8_t *)"n\xc3\xa9", 3 };
    s.category = (pcd_bytes){ (const uint8_t *)"heph", 4 };
    s.args = a;
    s.n_args = 8;
    p->time_origin = 1000000;
    assert_int_equal(pcd_profile_slice(p, &s), PCD_OK);
}

static void test_chrome_slices(void **state)
{
    (void)state;
    mbuf out;
    run_export(&pcd_out_chrome, NULL, build_slices, NULL, &out);
    const char *x = "{\"ph\":\"X\",\"pid\":3,\"tid\":18446744073709551615,\"ts\":-1.500,\"dur\":0.000,\"name\":\"n\xc3\xa9\","
                    "\"cat\":\"heph\",\"args\":{\"u\":18446744073709551615,\"i\":-9223372036854775808,\"f\":-0.0,"
                    "\"s\":\"a\\u0001\\b\\ufffdz\",\"ua\":[1,18446744073709551615],\"ia\":[-9223372036854775808,-1],"
                    "\"fa\":[-0.0,0.5],\"sa\":[\"q\\\"\",\"\\ufffd\"]}}";
    assert_non_null(strstr(out.p, x));
    assert_non_null(strstr(out.p, "{\"ph\":\"M\",\"pid\":3,\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"stream 3\"}}"));
    assert_non_null(strstr(out.p, "\"tid\":18446744073709551615,\"name\":\"thread_name\",\"args\":{\"name\":\"substream max\"}}"));
    json_error_t e;
    json_t *doc = json_loads(out.p, JSON_DECODE_INT_AS_REAL, &e);
    assert_non_null(doc);
    json_decref(doc);
    free(out.p);
    run_export(&pcd_out_chrome, "heph", build_slices, NULL, &out);
    const char *h = "\t\t{\"pid\": 3, \"tid\": 18446744073709551615, \"ts\": 998, \"dur\": 18446744073709551, \"name\": "
                    "\"n\xc3\xa9\", \"args\": {\"u\": 18446744073709551615, \"i\": -9223372036854775808, \"f\": -0, "
                    "\"s\": \"a\x01\b\xe2\x82z\", \"ua\": [1, 18446744073709551615], \"ia\": [-9223372036854775808, -1], "
                    "\"fa\": [-0, 0.5], \"sa\": [\"q\"\", \"\xff\"]}, \"ph\": \"X\", \"cat\": \"\"}\n\t]\n}";
    assert_non_null(strstr(out.p, h));
    free(out.p);
}

/* ---- speedscope: nesting lanes --------------------------------------------------------------- */

typedef struct span {
    int64_t start, end;
    const char *name;
    int track;
} span;

typedef struct spans {
    const span *s;
    size_t n;
} spans;

static void build_spans(pcd_profile *p, void *ud)
{
    const spans *sp = ud;
    for (size_t i = 0; i < sp->n; i++) {
        pcd_thread t = pcd_thread_blank();
        t.pid = 1;
        t.tid = (uint64_t)sp->s[i].track;
        t.has_tid = true;
        pcd_slice s;
        memset(&s, 0, sizeof s);
        s.track = pcd_profile_thread(p, &t);
        s.start = sp->s[i].start;
        s.end = sp->s[i].end;
        s.name = (pcd_bytes){ (const uint8_t *)sp->s[i].name, strlen(sp->s[i].name) };
        assert_int_equal(pcd_profile_slice(p, &s), PCD_OK);
    }
}

/* Every evented profile as speedscope reads it: closes close the frame on top, times never
 * go back, nothing left open. Returns the number of open events. */
static size_t check_evented(const char *text, size_t *profiles)
{
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    assert_non_null(doc);
    json_t *prs = json_object_get(doc, "profiles"), *pr;
    size_t i, opens = 0;
    *profiles = json_array_size(prs);
    json_array_foreach(prs, i, pr) {
        assert_string_equal(json_string_value(json_object_get(pr, "type")), "evented");
        json_t *evs = json_object_get(pr, "events"), *ev;
        size_t k, n = 0;
        json_int_t stack[4096], last = INT64_MIN;
        json_array_foreach(evs, k, ev) {
            json_int_t at = json_integer_value(json_object_get(ev, "at"));
            json_int_t fr = json_integer_value(json_object_get(ev, "frame"));
            assert_true(at >= last);
            last = at;
            if (strcmp(json_string_value(json_object_get(ev, "type")), "O") == 0) {
                assert_true(n < 4096);
                stack[n++] = fr;
                opens++;
            } else {
                assert_true(n > 0);
                assert_int_equal(stack[n - 1], fr);
                n--;
            }
        }
        assert_int_equal(n, 0);
    }
    json_decref(doc);
    return opens;
}

static void test_speedscope_lanes(void **state)
{
    (void)state;
    static const span s[] = {
        { 0, 100, "A", 0 }, { 10, 20, "B", 0 }, { 15, 30, "C", 0 }, { 20, 20, "D", 0 },
        { 0, 100, "E", 0 }, { 50, 40, "F", 1 },
    };
    spans sp = { s, sizeof s / sizeof s[0] };
    mbuf out;
    run_export(&pcd_out_speedscope, NULL, build_spans, &sp, &out);
    const char *want =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":["
        "{\"name\":\"A\"},{\"name\":\"E\"},{\"name\":\"B\"},{\"name\":\"D\"},{\"name\":\"C\"},{\"name\":\"F\"}]},"
        "\"profiles\":["
        "{\"type\":\"evented\",\"name\":\"Spans profile for Thread 0 (process 1)\",\"unit\":\"nanoseconds\","
        "\"startValue\":0,\"endValue\":100,\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,"
        "\"at\":0},{\"type\":\"O\",\"frame\":2,\"at\":10},{\"type\":\"C\",\"frame\":2,\"at\":20},{\"type\":\"O\",\"frame\":3,"
        "\"at\":20},{\"type\":\"C\",\"frame\":3,\"at\":20},{\"type\":\"C\",\"frame\":1,\"at\":100},{\"type\":\"C\",\"frame\":0,"
        "\"at\":100}]},"
        "{\"type\":\"evented\",\"name\":\"Spans profile for Thread 0 (process 1) (lane 2)\",\"unit\":\"nanoseconds\","
        "\"startValue\":0,\"endValue\":100,\"events\":[{\"type\":\"O\",\"frame\":4,\"at\":15},{\"type\":\"C\",\"frame\":4,"
        "\"at\":30}]},"
        "{\"type\":\"evented\",\"name\":\"Spans profile for Thread 1 (process 1)\",\"unit\":\"nanoseconds\","
        "\"startValue\":50,\"endValue\":50,\"events\":[{\"type\":\"O\",\"frame\":5,\"at\":50},{\"type\":\"C\",\"frame\":5,"
        "\"at\":50}]}],"
        "\"name\":\"synthetic\",\"activeProfileIndex\":0,\"exporter\":\"profcodec\"}\n";
    assert_string_equal(out.p, want);
    size_t profiles;
    assert_int_equal(check_evented(out.p, &profiles), sp.n);
    free(out.p);
}

static void test_speedscope_random(void **state)
{
    (void)state;
    enum { N = 6000 };
    static span s[N];
    static char names[N][8];
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        snprintf(names[i], sizeof names[i], "s%u", (unsigned)(x % 50));
        if (x % 50 == 7) names[i][0] = 0; /* empty names too */
        if (i < 1000) { /* a staircase: each overlaps the one before without nesting: many lanes */
            s[i] = (span){ (int64_t)i, (int64_t)i + 500, names[i], 0 };
        } else {
            int64_t st = (int64_t)(x >> 20) % 100000;
            int64_t len = (int64_t)(x >> 40) % 3000 - 100; /* some end before they start */
            s[i] = (span){ st, st + len, names[i], (int)(x % 3) + 1 };
        }
    }
    spans sp = { s, N };
    mbuf out;
    run_export(&pcd_out_speedscope, NULL, build_spans, &sp, &out);
    size_t profiles;
    assert_int_equal(check_evented(out.p, &profiles), N);
    assert_true(profiles > 40); /* the staircase alone needs hundreds of lanes */
    free(out.p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chrome_timeline), cmocka_unit_test(test_chrome_empty),
        cmocka_unit_test(test_chrome_slices),   cmocka_unit_test(test_speedscope_lanes),
        cmocka_unit_test(test_speedscope_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
