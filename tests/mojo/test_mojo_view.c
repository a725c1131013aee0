/* test_mojo_view.c: the generated view of a MOJO event (generated/mojo_view.h, declared in
 * schemas/mojo/_common.lua) holds what the hand-written flattening of the versions
 * (src/lib/mojo_asm.c, mojo_ev_from) takes from each event, on every MOJO file of the test
 * data and the shared corpus, all three versions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/mojo/asm.h"
#include "mojo_view.h"

static size_t events, versions_seen[4];

static void same_int(pcd_mojo_int a, bool has, pcd_mojo_int b)
{
    assert_true(has);
    assert_true(a.mag == b.mag && a.neg == b.neg);
}

static void same_bytes(pcd_bytes a, bool has, pcd_bytes b)
{
    assert_true(has);
    assert_true(a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0));
}

static void compare(const pcd_record *rec)
{
    mojo_ev e;
    pcd_mojo_event_view v;
    bool a = mojo_ev_from(rec, &e), b = pcd_mojo_event_view_of(rec, &v);
    assert_int_equal(a, b);
    if (!a) return;
    events++;
    versions_seen[v.version & 3]++;
    assert_int_equal(v.tag, e.id);
    switch (v.kind) {
    case PCD_MOJO_EVENT_METADATA:
        same_bytes(v.meta_key, v.has_meta_key, e.s1);
        same_bytes(v.text, v.has_text, e.s2);
        break;
    case PCD_MOJO_EVENT_STACK:
        same_int(v.pid, v.has_pid, e.v[0]);
        same_bytes(v.tid, v.has_tid, e.s1);
        assert_int_equal(v.has_iid, e.has_iid);
        if (e.has_iid) same_int(v.iid, v.has_iid, e.v[1]);
        break;
    case PCD_MOJO_EVENT_FRAME:
        same_int(v.key, v.has_key, e.v[0]);
        same_int(v.filename, v.has_filename, e.v[1]);
        same_int(v.scope, v.has_scope, e.v[2]);
        same_int(v.line, v.has_line, e.v[3]);
        assert_int_equal(v.has_line_end, v.version >= 2);
        if (v.has_line_end) {
            same_int(v.line_end, true, e.v[4]);
            same_int(v.column, v.has_column, e.v[5]);
            same_int(v.column_end, v.has_column_end, e.v[6]);
        }
        break;
    case PCD_MOJO_EVENT_FRAME_REF:
    case PCD_MOJO_EVENT_STRING_REF: same_int(v.key, v.has_key, e.v[0]); break;
    case PCD_MOJO_EVENT_TIME:
    case PCD_MOJO_EVENT_MEMORY: same_int(v.value, v.has_value, e.v[0]); break;
    case PCD_MOJO_EVENT_KERNEL: same_bytes(v.symbol, v.has_symbol, e.s1); break;
    case PCD_MOJO_EVENT_STRING:
        same_int(v.key, v.has_key, e.v[0]);
        same_bytes(v.text, v.has_text, e.s1);
        break;
    case PCD_MOJO_EVENT_INVALID:
    case PCD_MOJO_EVENT_GC:
    case PCD_MOJO_EVENT_IDLE: break;
    }
}

static void each_file(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    char path[4096];
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 6 || strcmp(de->d_name + l - 5, ".mojo") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
        size_t got = fread(p, 1, (size_t)n, f);
        fclose(f);
        const pcd_format *fm = NULL;
        for (size_t i = 0; i < pcd_n_formats; i++) {
            const pcd_format *c = pcd_formats[i];
            if (strcmp(c->name, "mojo") == 0 && c->detect(p, got) == 2) {
                /* the version: decode the root of each until one fits */
                pcd_alloc al;
                pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
                pcd_reader r;
                pcd_reader_opts o = { &al, NULL, 0, false };
                pcd_record rec;
                bool ok = pcd_reader_open_buffer(&r, c, p, got, &o) == PCD_OK && pcd_reader_next(&r, &rec) == PCD_OK;
                pcd_reader_close(&r);
                if (ok) fm = c;
            }
        }
        if (fm) {
            pcd_alloc al;
            pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
            pcd_reader r;
            pcd_reader_opts o = { &al, NULL, 0, false };
            assert_int_equal(pcd_reader_open_buffer(&r, fm, p, got, &o), PCD_OK);
            pcd_record rec;
            while (pcd_reader_next(&r, &rec) == PCD_OK) compare(&rec);
            pcd_reader_close(&r);
        }
        free(p);
    }
    closedir(d);
}

static void test_view_holds_what_mojo_asm_takes(void **state)
{
    (void)state;
    each_file(PCD_TESTDATA "/mojo");
    each_file(PCD_CORPUS "/mojo");
    print_message("%zu events compared (version 1: %zu, 2: %zu, 3: %zu)\n", events, versions_seen[1], versions_seen[2],
                  versions_seen[3]);
    assert_true(events > 100);
    assert_true(versions_seen[1] && versions_seen[2] && versions_seen[3]);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_view_holds_what_mojo_asm_takes) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
