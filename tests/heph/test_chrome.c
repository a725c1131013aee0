/* test_chrome.c: `convert --to chrome` gives valid JSON whose complete events match
 * Heph's converter (pid, tid, name, args) with exact times: ts and dur in microseconds
 * to the nanosecond, ts relative to the first epoch, which sits in otherData. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdbool.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *load_json(const char *path, int flags)
{
    json_error_t e;
    json_t *j = json_load_file(path, flags | JSON_ALLOW_NUL, &e);
    return j;
}

static bool file_exists(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static const char *find(const char *name, const char *ext)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/heph/%s%s", PCD_TESTDATA, name, ext);
    if (file_exists(path)) return path;
    snprintf(path, sizeof path, "%s/heph/%s%s", PCD_CORPUS, name, ext);
    if (file_exists(path)) return path;
    return NULL;
}

/* Numbers compare by value (Heph prints 1 where we print 1.0). */
static bool same(json_t *a, json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) return json_number_value(a) == json_number_value(b);
    if (json_is_array(a) && json_is_array(b)) {
        if (json_array_size(a) != json_array_size(b)) return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same(json_array_get(a, i), json_array_get(b, i))) return false;
        return true;
    }
    if (json_is_object(a) && json_is_object(b)) {
        if (json_object_size(a) != json_object_size(b)) return false;
        const char *k;
        json_t *v;
        json_object_foreach(a, k, v) {
            if (!same(v, json_object_get(b, k))) return false;
        }
        return true;
    }
    return json_equal(a, b);
}

static json_t *x_events(json_t *doc)
{
    json_t *out = json_array();
    json_t *evs = json_object_get(doc, "traceEvents");
    size_t i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "X") == 0) json_array_append(out, e);
    }
    return out;
}

static void convert(const char *in, const char *out)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' -q convert --to chrome '%s' -o '%s'", PCD_CLI, in, out);
    assert_int_equal(system(cmd), 0);
}

/* "33.073" for 33073 ns */
static double us3(long long ns)
{
    char b[64];
    snprintf(b, sizeof b, "%s%lld.%03lld", ns < 0 ? "-" : "", llabs(ns) / 1000, llabs(ns) % 1000);
    return strtod(b, NULL);
}

static void check_trace(const char *name)
{
    const char *p = find(name, ".bin.log");
    if (!p) {
        print_message("skip %s (not available)\n", name);
        return;
    }
    char trace[1024], ours[1024], dec[1024], ref[1024];
    snprintf(trace, sizeof trace, "%s", p);
    const char *d = find(name, ".decoded.jsonl");
    assert_non_null(d);
    snprintf(dec, sizeof dec, "%s", d);
    const char *r = find(name, ".chrome.json");
    snprintf(ref, sizeof ref, "%s", r ? r : "");
    snprintf(ours, sizeof ours, "%s/%s.ours.chrome.json", PCD_BINDIR, name);
    print_message("chrome: %s\n", name);
    convert(trace, ours);
    /* valid JSON, read exactly */
    json_t *doc = load_json(ours, JSON_DECODE_INT_AS_REAL);
    assert_non_null(doc);
    json_t *od = json_object_get(doc, "otherData");
    assert_non_null(od);
    json_t *mine = x_events(doc);
    /* times: exact, relative to the first epoch, from the independent decoder's view */
    FILE *f = fopen(dec, "r");
    assert_non_null(f);
    char line[1 << 16];
    long long first_epoch = -1, epoch = 0;
    size_t k = 0;
    while (fgets(line, sizeof line, f)) {
        json_error_t e;
        json_t *j = json_loads(line, JSON_ALLOW_NUL | JSON_DECODE_INT_AS_REAL, &e);
        assert_non_null(j);
        const char *kind = json_string_value(json_object_get(j, "kind"));
        if (strcmp(kind, "metadata") == 0) {
            /* exact epoch from the text (a double cannot hold it) */
            const char *s = strstr(line, "\"epoch_ns\":");
            long long ep = strtoll(s + 11, NULL, 10);
            if (first_epoch < 0) {
                first_epoch = ep;
                char want[32];
                snprintf(want, sizeof want, "%lld", ep);
                assert_string_equal(json_string_value(json_object_get(od, "epoch_ns")), want);
            }
            epoch = ep;
        } else if (strcmp(kind, "event") == 0) {
            json_t *ev = json_array_get(mine, k++);
            assert_non_null(ev);
            const char *ss = strstr(line, "\"start_ns\":"), *es = strstr(line, "\"end_ns\":");
            long long start = strtoll(ss + 11, NULL, 10), end = strtoll(es + 9, NULL, 10);
            long long rel = (epoch - (first_epoch < 0 ? 0 : first_epoch)) + start;
            assert_true(json_number_value(json_object_get(ev, "ts")) == us3(rel));
            assert_true(json_number_value(json_object_get(ev, "dur")) == us3(end - start));
        }
        json_decref(j);
    }
    fclose(f);
    assert_int_equal(k, json_array_size(mine));
    /* against Heph's own output, where it exists and is valid JSON */
    json_t *theirs_doc = ref[0] ? load_json(ref, JSON_DECODE_INT_AS_REAL) : NULL;
    if (theirs_doc) {
        json_t *theirs = x_events(theirs_doc);
        assert_int_equal(json_array_size(theirs), json_array_size(mine));
        for (size_t i = 0; i < json_array_size(mine); i++) {
            json_t *a = json_array_get(mine, i), *b = json_array_get(theirs, i);
            assert_true(same(json_object_get(a, "pid"), json_object_get(b, "pid")));
            assert_true(same(json_object_get(a, "tid"), json_object_get(b, "tid")));
            assert_true(json_equal(json_object_get(a, "name"), json_object_get(b, "name")));
            json_t *aa = json_object_get(a, "args"), *ba = json_object_get(b, "args");
            assert_true((aa == NULL) == (ba == NULL));
            if (aa) assert_true(same(aa, ba));
        }
        json_decref(theirs);
        json_decref(theirs_doc);
    } else {
        print_message("  (Heph's converter output is missing or not valid JSON: checked times only)\n");
    }
    /* every process and thread is named */
    json_t *evs = json_object_get(doc, "traceEvents");
    size_t names = 0, i;
    json_t *e;
    json_array_foreach(evs, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), "M") == 0) names++;
    }
    assert_true(names >= 2);
    json_decref(mine);
    json_decref(doc);
}

static void test_runtime_example(void **s) { (void)s; check_trace("runtime_example"); }
static void test_scalar_attributes(void **s) { (void)s; check_trace("scalar_attributes"); }
static void test_array_attributes(void **s) { (void)s; check_trace("array_attributes"); }
static void test_json_escaping(void **s) { (void)s; check_trace("json_escaping"); }
static void test_stress(void **s) { (void)s; check_trace("stress"); }
static void test_substreams(void **s) { (void)s; check_trace("substreams"); }

/* Arrays, NaN and escapes survive as valid JSON with the right values. */
static void test_values(void **state)
{
    (void)state;
    char ours[1024];
    const char *p = find("array_attributes", ".bin.log");
    assert_non_null(p);
    snprintf(ours, sizeof ours, "%s/arrays.chrome.json", PCD_BINDIR);
    convert(p, ours);
    json_t *doc = load_json(ours, 0);
    assert_non_null(doc);
    json_t *xs0 = x_events(doc);
    json_t *ev = json_array_get(xs0, 0);
    json_t *arr = json_object_get(json_object_get(ev, "args"), "u64 array");
    assert_int_equal(json_array_size(arr), 3);
    assert_int_equal(json_integer_value(json_array_get(arr, 2)), 3);
    json_decref(xs0);
    json_decref(doc);
    p = find("json_escaping", ".bin.log");
    snprintf(ours, sizeof ours, "%s/escaping.chrome.json", PCD_BINDIR);
    convert(p, ours);
    doc = load_json(ours, 0);
    assert_non_null(doc);
    json_t *xs = x_events(doc);
    json_t *e1 = json_array_get(xs, 1);
    assert_string_equal(json_string_value(json_object_get(e1, "name")), "quote \" backslash \\ newline \n tab \t");
    json_t *e2 = json_array_get(xs, 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(e2, "args"), "nan")), "NaN");
    assert_string_equal(json_string_value(json_object_get(json_object_get(e2, "args"), "neg inf")), "-Infinity");
    json_decref(xs);
    json_decref(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runtime_example), cmocka_unit_test(test_scalar_attributes),
        cmocka_unit_test(test_array_attributes), cmocka_unit_test(test_json_escaping),
        cmocka_unit_test(test_stress), cmocka_unit_test(test_substreams),
        cmocka_unit_test(test_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
