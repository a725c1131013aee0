/* test_mojo_view.c: the generated view of a MOJO event (generated/mojo_view.h, declared in
 * schemas/mojo/_common.lua), which the sample assembler (src/formats/mojo/asm.c) reads,
 * holds what the assembler's hand-written flattening of the versions took from each event
 * before issue 14 (kept here, as it was, as the reference: ref_from), on every MOJO file of
 * the test data and the shared corpus, all three versions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/pipeline.h"
#include "mojo_view.h"

/* ---- the reference: src/lib/mojo_asm.c's mojo_ev_from, as it was -------------------------- */

/* One decoded event, whatever the version: metadata s1 s2; stack v0 pid, v1 iid (has_iid),
 * s1 tid; frame v0 key, v1 filename, v2 scope, v3 line, v4 line_end, v5 column, v6
 * column_end; frame_ref, string_ref, time, memory v0; kernel s1; string v0 key, s1 value. */
typedef struct ref_ev {
    uint8_t id;
    bool has_iid;
    pcd_bytes s1, s2;
    pcd_mojo_int v[7];
} ref_ev;

#define REF_COMMON(V, ev, e)                                                                       \
    switch ((ev)->which) {                                                                         \
    case PCD_MOJO_##V##_EVENT_METADATA:                                                            \
        (e)->s1 = (ev)->u.metadata.key;                                                            \
        (e)->s2 = (ev)->u.metadata.value;                                                          \
        break;                                                                                     \
    case PCD_MOJO_##V##_EVENT_FRAME_REF: (e)->v[0] = (ev)->u.frame_ref.key; break;                 \
    case PCD_MOJO_##V##_EVENT_KERNEL: (e)->s1 = (ev)->u.kernel.symbol; break;                      \
    case PCD_MOJO_##V##_EVENT_TIME: (e)->v[0] = (ev)->u.time.value; break;                         \
    case PCD_MOJO_##V##_EVENT_MEMORY: (e)->v[0] = (ev)->u.memory.value; break;                     \
    case PCD_MOJO_##V##_EVENT_STRING:                                                              \
        (e)->v[0] = (ev)->u.string.key;                                                            \
        (e)->s1 = (ev)->u.string.value;                                                            \
        break;                                                                                     \
    case PCD_MOJO_##V##_EVENT_STRING_REF: (e)->v[0] = (ev)->u.string_ref.key; break;               \
    case PCD_MOJO_##V##_EVENT_FRAME:                                                               \
        (e)->v[0] = (ev)->u.frame.key;                                                             \
        (e)->v[1] = (ev)->u.frame.filename;                                                        \
        (e)->v[2] = (ev)->u.frame.scope;                                                           \
        (e)->v[3] = (ev)->u.frame.line;                                                            \
        break;                                                                                     \
    case PCD_MOJO_##V##_EVENT_STACK:                                                               \
        (e)->v[0] = (ev)->u.stack.pid;                                                             \
        (e)->s1 = (ev)->u.stack.tid;                                                               \
        break;                                                                                     \
    default: break;                                                                                \
    }

static bool ref_from(const pcd_record *rec, ref_ev *e)
{
    if (!rec->data || rec->depth != 1) return false;
    memset(e, 0, sizeof *e);
    if (rec->type == &pcd_mojo_v3_event_type) {
        const pcd_mojo_v3_event *ev = rec->data;
        e->id = (uint8_t)ev->tag;
        REF_COMMON(V3, ev, e)
        if (ev->which == PCD_MOJO_V3_EVENT_STACK) {
            e->v[1] = ev->u.stack.iid;
            e->has_iid = true;
        } else if (ev->which == PCD_MOJO_V3_EVENT_FRAME) {
            e->v[4] = ev->u.frame.line_end;
            e->v[5] = ev->u.frame.column;
            e->v[6] = ev->u.frame.column_end;
        }
        return true;
    }
    if (rec->type == &pcd_mojo_v2_event_type) {
        const pcd_mojo_v2_event *ev = rec->data;
        e->id = (uint8_t)ev->tag;
        REF_COMMON(V2, ev, e)
        if (ev->which == PCD_MOJO_V2_EVENT_FRAME) {
            e->v[4] = ev->u.frame.line_end;
            e->v[5] = ev->u.frame.column;
            e->v[6] = ev->u.frame.column_end;
        }
        return true;
    }
    if (rec->type == &pcd_mojo_v1_event_type) {
        const pcd_mojo_v1_event *ev = rec->data;
        e->id = (uint8_t)ev->tag;
        REF_COMMON(V1, ev, e)
        return true;
    }
    return false;
}

/* ---- the comparison ------------------------------------------------------------------------- */

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
    ref_ev e;
    pcd_mojo_event_view v;
    bool a = ref_from(rec, &e), b = rec->depth == 1 && pcd_mojo_event_view_of(rec, &v);
    if (b && !a) {
        /* a version after the reference's (it knows 1 to 3) */
        assert_true(v.version > 3);
        return;
    }
    assert_int_equal(a, b);
    if (!a) return;
    events++;
    versions_seen[v.version]++;
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
        assert_int_equal(v.has_column, v.has_line_end);
        assert_int_equal(v.has_column_end, v.has_line_end);
        if (v.has_line_end) {
            same_int(v.line_end, true, e.v[4]);
            same_int(v.column, true, e.v[5]);
            same_int(v.column_end, true, e.v[6]);
        } else {
            /* version 1: none, where the reference has zeros */
            assert_true(e.v[4].mag == 0 && e.v[5].mag == 0 && e.v[6].mag == 0);
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
    case PCD_MOJO_EVENT_STACK_REPEAT:
    case PCD_MOJO_EVENT_TASK_STACK:
    case PCD_MOJO_EVENT_TASK_WAITER: fail_msg("an event of version 4 read as one of version %u", v.version); break;
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

static void test_view_holds_what_mojo_asm_took(void **state)
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
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_view_holds_what_mojo_asm_took) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
