/* test_mono_view.c: the generated view of a Mono event (generated/mono_view.h, declared in
 * schemas/mono/_common.lua) across versions 0.1 and 3.0 holds what the hand-written
 * flattening (mono_ext.c's norm_v0_1 and norm_v3_0) takes: the time of every 3.0 event (which
 * norm_v3_0 copies from the start of the union), of every 0.1 event but heap objects; an
 * allocation's class or vtable and size; backtraces with their lengths; the names of
 * metadata and JIT events. On every plain .mlpd of the test data and the shared corpus. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mono_view.h"

static size_t events, by_version[2], allocs, backtraces, names;

static void check(const pcd_record *rec)
{
    pcd_mono_event_view v;
    if (!pcd_mono_event_view_of(rec, &v)) return;
    events++;
    if (rec->type == &pcd_mono_v3_0_event_type) {
        const pcd_mono_v3_0_event *e = rec->data;
        by_version[1]++;
        uint64_t t;
        memcpy(&t, &e->u, sizeof t);
        assert_true(v.has_time);
        assert_true(v.time == t);
        assert_int_equal(v.version, 3017);
        if (e->which == PCD_MONO_V3_0_EVENT_ALLOC_BT) {
            assert_true(v.has_vtable && v.vtable == e->u.alloc_bt.vtable && v.size == e->u.alloc_bt.size);
            assert_true(v.has_backtrace && v.n_backtrace == e->u.alloc_bt.n_backtrace);
            backtraces++;
        }
        if (e->which == PCD_MONO_V3_0_EVENT_ALLOC) {
            assert_true(v.has_vtable && v.vtable == e->u.alloc.vtable && v.size == e->u.alloc.size);
            assert_false(v.has_backtrace);
            allocs++;
        }
        if (e->which == PCD_MONO_V3_0_EVENT_JIT) {
            assert_true(v.has_name && v.name.len == e->u.jit.name.len && v.has_code_size);
            names++;
        }
        if (e->which == PCD_MONO_V3_0_EVENT_METADATA_LOAD &&
            e->u.metadata_load.detail.which == PCD_MONO_V3_0_EVENT_METADATA_LOAD_DETAIL_CLASS) {
            assert_true(v.has_name && v.name.ptr == e->u.metadata_load.detail.u.class.name.ptr);
            assert_true(v.has_image && v.image == e->u.metadata_load.detail.u.class.image);
            names++;
        }
        /* the event byte's type nibble, through the generated accessor */
        assert_int_equal(pcd_mono_v3_0_event_tag_type((uint8_t)v.tag), e->tag & 0x0f);
    } else {
        const pcd_mono_v0_1_event *e = rec->data;
        by_version[0]++;
        assert_int_equal(v.version, 1);
        assert_int_equal(v.has_time, e->which != PCD_MONO_V0_1_EVENT_HEAP_OBJECT);
        if (e->which == PCD_MONO_V0_1_EVENT_ALLOC_BT) {
            assert_true(v.has_class && v.class == e->u.alloc_bt.class && v.size == e->u.alloc_bt.size);
            assert_true(v.has_backtrace && v.backtrace == e->u.alloc_bt.backtrace.frames &&
                        v.n_backtrace == e->u.alloc_bt.backtrace.n_frames);
            backtraces++;
        }
        if (e->which == PCD_MONO_V0_1_EVENT_METADATA_LOAD) {
            assert_true(v.has_name && v.has_mtype && v.mtype == e->u.metadata_load.mtype);
            names++;
        }
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
        if (l < 6 || strcmp(de->d_name + l - 5, ".mlpd") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
        size_t got = fread(p, 1, (size_t)n, f);
        fclose(f);
        const pcd_format *fm = got > 6 && p[4] == 0 ? &pcd_mono_v0_1_format : &pcd_mono_v3_0_format;
        if (got > 8 && memcmp(p, "\1ZPM", 4) == 0) {
            pcd_alloc al;
            pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
            pcd_reader r;
            pcd_reader_opts o = { &al, NULL, 0, false };
            assert_int_equal(pcd_reader_open_buffer(&r, fm, p, got, &o), PCD_OK);
            pcd_record rec;
            while (pcd_reader_next(&r, &rec) == PCD_OK) check(&rec);
            pcd_reader_close(&r);
        }
        free(p);
    }
    closedir(d);
}

static void test_view(void **state)
{
    (void)state;
    each_file(PCD_TESTDATA "/mono");
    each_file(PCD_CORPUS "/mono");
    print_message("%zu events (0.1: %zu, 3.0: %zu), %zu allocations, %zu backtraces, %zu names\n", events, by_version[0],
                  by_version[1], allocs, backtraces, names);
    assert_true(by_version[0] > 0 && by_version[1] > 1000 && backtraces > 0 && names > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_view) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
