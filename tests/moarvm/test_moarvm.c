/* test_moarvm.c: MoarVM heap snapshots (v3): synthetic files written the way MoarVM lays
 * them out, read back with every figure and check; every invariant breaking where it
 * should; files cut at every point; TOCs tampered with; the dominator view; and, when the
 * shared corpus is there, every real file against its independent facts (NAME.facts.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/transform.h"
#include "cli/job.h"
#include "fuzzlib.h"
#include "formats/moarvm/snapshot.h"
#include "moarvm_v2.h"
#include "moarvm_v3.h"
#include "formats/moarvm/write.h"
#include "pipeline/pipeline.h"

/* ---- a synthetic heap --------------------------------------------------------------------- */

typedef struct heap {
    uint64_t n, nrefs;
    uint16_t kind[4096], size[4096];
    uint32_t tofi[4096], rfcnt[4096];
    uint64_t rfstr[4096], usize[4096];
    uint64_t descr[16384], target[16384];
} heap;

static uint64_t rng_state;
static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005u + 1442695040888963407u;
    return rng_state >> 33;
}

/* Strings 0..5: the root descriptions; then type names, frame names, files, attribute names. */
static const char *strings0[] = {
    "Permanent Roots", "VM Instance Roots", "C Stack Roots", "Thread Roots", "Inter-generational Roots",
    "Thread Call Stack Roots", "VMArray", "BOOTArray", "VMHash", "BOOTHash", "P6opaque", "Point", "MVMString",
    "VMString", "<STable>", "frame_a", "frame_b", "/usr/share/nqp/lib/x.nqp", "gen/y.nqp", "$!x", "$!y",
};
#define NSTR0 (sizeof strings0 / sizeof *strings0)
static const char *strings1[] = { "Tree", "children", "frame_c" };
/* types: (repr, name) string indexes */
static const uint32_t trepr0[] = { 6, 8, 10, 12 }, tname0[] = { 7, 9, 11, 13 };
static const uint32_t trepr1[] = { 10 }, tname1[] = { 21 }; /* Tree, added by snapshot 1 */
static const uint32_t fname0[] = { 15, 16 }, fcuid0[] = { 19, 20 }, fline0[] = { 12, 34 }, ffile0[] = { 17, 18 };
static const uint32_t fname1[] = { 23 }, fcuid1[] = { 22 }, fline1[] = { 56 }, ffile1[] = { 17 };

/* A heap: the root, its six root groups, then objects, type objects, STables and frames that
 * the groups and each other reference. ntypes/nframes: the table rows the snapshot sees. */
static void make_heap(heap *h, uint64_t n, uint32_t ntypes, uint32_t nframes, uint32_t nstrings, uint64_t seed)
{
    rng_state = seed;
    memset(h, 0, sizeof *h);
    h->n = n;
    static const uint16_t rk[6] = { 5, 6, 7, 8, 10, 11 };
    h->kind[0] = 9;
    for (int i = 1; i <= 6; i++) h->kind[i] = rk[i - 1];
    for (uint64_t i = 7; i < n; i++) {
        uint64_t r = rnd() % 20;
        h->kind[i] = r < 15 ? 1 : r < 16 ? 2 : r < 17 ? 3 : 4;
        h->tofi[i] = h->kind[i] == 4 ? (uint32_t)(rnd() % nframes) : (uint32_t)(rnd() % ntypes);
        h->size[i] = (uint16_t)(16 + 8 * (rnd() % 12));
        h->usize[i] = rnd() % 3 == 0 ? rnd() % 5000 : 0;
    }
    /* references: the root to its groups (string descriptions), each group to some
     * collectables, each collectable to a few later ones (LIFO order of the ranges) */
    uint64_t nr = 0;
    for (uint64_t i = n; i-- > 0;) {
        uint64_t cnt = i == 0 ? 6 : i <= 6 ? 1 + rnd() % 8 : rnd() % 4;
        h->rfstr[i] = nr;
        h->rfcnt[i] = (uint32_t)cnt;
        for (uint64_t k = 0; k < cnt; k++, nr++) {
            if (i == 0) {
                h->target[nr] = 1 + k;
                h->descr[nr] = (k << 2) | 2;
            } else {
                h->target[nr] = i <= 6 ? 7 + rnd() % (n - 7) : 7 + rnd() % (n - 7);
                uint64_t d = rnd() % 3;
                h->descr[nr] = d == 0 ? 0 : d == 1 ? ((rnd() % 100) << 2) | 1 : ((rnd() % nstrings) << 2) | 2;
            }
        }
    }
    h->nrefs = nr;
}

static pcd_moarvm_snapdata snapdata(const heap *h, uint64_t t, uint64_t seq)
{
    pcd_moarvm_snapdata d;
    memset(&d, 0, sizeof d);
    d.snap_time = t;
    d.gc_seq_num = seq;
    d.n = h->n;
    d.kind = h->kind;
    d.size = h->size;
    d.tofi = h->tofi;
    d.rfcnt = h->rfcnt;
    d.rfstr = h->rfstr;
    d.usize = h->usize;
    d.nrefs = h->nrefs;
    d.descr = h->descr;
    d.target = h->target;
    return d;
}

static uint8_t *file_buf;
static size_t file_len;

static pcd_status grow_write(void *ud, const uint8_t *p, size_t n)
{
    (void)ud;
    uint8_t *q = realloc(file_buf, file_len + n);
    if (!q) return PCD_E_NOMEM;
    file_buf = q;
    memcpy(file_buf + file_len, p, n);
    file_len += n;
    return PCD_OK;
}

static heap heaps[3];

/* Three snapshots: the first adds every table row, the second a few more, the third none.
 * mutate(k, d) may spoil snapshot k's data before it is written. */
static void write_file(bool ended, void (*mutate)(int k, pcd_moarvm_snapdata *d))
{
    free(file_buf);
    file_buf = NULL;
    file_len = 0;
    static uint8_t sbuf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, sbuf, sizeof sbuf, grow_write, NULL, NULL, &x);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_moarvm_writer mw;
    assert_int_equal(pcd_moarvm_write_open(&mw, &s, &al, 1000, 4242), PCD_OK);
    make_heap(&heaps[0], 300, 4, 2, NSTR0, 1);
    make_heap(&heaps[1], 400, 5, 3, NSTR0 + 3, 2);
    make_heap(&heaps[2], 350, 5, 3, NSTR0 + 3, 3);
    for (int k = 0; k < 3; k++) {
        pcd_moarvm_snapdata d = snapdata(&heaps[k], 2000 + 100 * (uint64_t)k, 1 + (uint64_t)k);
        if (k == 0) {
            d.nstrings = NSTR0;
            d.strings = strings0;
            d.ntypes = 4;
            d.repr = trepr0;
            d.tname = tname0;
            d.nframes = 2;
            d.fname = fname0;
            d.fcuid = fcuid0;
            d.fline = fline0;
            d.ffile = ffile0;
        } else if (k == 1) {
            d.nstrings = 3;
            d.strings = strings1;
            d.ntypes = 1;
            d.repr = trepr1;
            d.tname = tname1;
            d.nframes = 1;
            d.fname = fname1;
            d.fcuid = fcuid1;
            d.fline = fline1;
            d.ffile = ffile1;
        }
        if (mutate) mutate(k, &d);
        assert_int_equal(pcd_moarvm_write_snapshot(&mw, &d), PCD_OK);
    }
    assert_int_equal(pcd_moarvm_write_finish(&mw, ended), PCD_OK);
    pcd_moarvm_write_close(&mw);
    assert_int_equal(al.in_use, 0);
    assert_int_equal(al.in_use, 0);
}

/* ---- reading with the collector ------------------------------------------------------------ */

#define MAXP 64
typedef struct seen {
    size_t nerr, nwarn;
    char msg[MAXP][512];
    bool is_err[MAXP];
    size_t n;
    pcd_status end;
    uint64_t snapshots;
    /* per snapshot: objects of type 1 (count), frames of frame 2 (size) */
    uint64_t t1_count[8], f2_size[8];
    uint64_t graph_n[8];
} seen;

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    seen *s = ud;
    if (is_error) s->nerr++;
    else s->nwarn++;
    if (s->n < MAXP) {
        pcd_error_format(e, s->msg[s->n], sizeof s->msg[0]);
        s->is_err[s->n++] = is_error;
    }
}

static void on_snap(void *ud, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *sn, const pcd_moarvm_stats *st,
                    const pcd_moarvm_graph *g)
{
    (void)c;
    seen *s = ud;
    if (sn->index < 8) {
        s->t1_count[sn->index] = st && st->len[1] > 1 ? st->by_kind[1][1].count : 0;
        s->f2_size[sn->index] = st && st->len[4] > 2 ? st->by_kind[4][2].size : 0;
        s->graph_n[sn->index] = g ? g->n : 0;
    }
    s->snapshots++;
}

static bool has_msg(const seen *s, bool is_error, const char *needle)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->is_err[i] == is_error && strstr(s->msg[i], needle)) return true;
    return false;
}

static void dump_msgs(const seen *s)
{
    for (size_t i = 0; i < s->n; i++) print_message("%s %s\n", s->is_err[i] ? "E" : "W", s->msg[i]);
}

/* The collectors' allocator: every byte they take is given back when they are freed. */
static pcd_alloc col_al;
static int col_live;

static pcd_moarvm_col *col_new(const pcd_moarvm_opts *o)
{
    if (!col_al.fn) pcd_alloc_init(&col_al, pcd_alloc_libc, NULL, 0);
    pcd_moarvm_col *c = pcd_moarvm_col_new(&col_al, o);
    if (c) col_live++;
    return c;
}

static void col_free(pcd_moarvm_col *c)
{
    pcd_moarvm_col_free(c);
    if (c && --col_live == 0) assert_int_equal(col_al.in_use, 0);
}

/* Reads p[0..n) with the collector; returns it (caller frees) with what was seen. */
static bool g_full = true; /* read_file's collector in full mode (false: info's mode) */

static pcd_moarvm_col *read_file(const uint8_t *p, size_t n, seen *s, bool graph)
{
    memset(s, 0, sizeof *s);
    pcd_moarvm_opts o = { g_full, graph, on_report, s, on_snap, s };
    pcd_moarvm_col *c = col_new(&o);
    assert_non_null(c);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts ro = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, &pcd_moarvm_v3_format, p, n, &ro), PCD_OK);
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) pcd_moarvm_col_record(c, &rec);
    if (st == PCD_END) pcd_moarvm_col_finish(c);
    s->end = st;
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
    return c;
}

/* ---- tests ----------------------------------------------------------------------------------- */

static void test_synthetic(void **state)
{
    (void)state;
    write_file(true, NULL);
    seen s;
    pcd_moarvm_col *c = read_file(file_buf, file_len, &s, true);
    if (s.nerr || s.nwarn) dump_msgs(&s);
    assert_int_equal(s.end, PCD_END);
    assert_int_equal(s.nerr, 0);
    assert_int_equal(s.nwarn, 0);
    assert_true(pcd_moarvm_col_ended(c));
    const pcd_moarvm_snapshot *sn;
    assert_int_equal(pcd_moarvm_col_snapshots(c, &sn), 3);
    assert_int_equal(pcd_moarvm_col_strings(c), NSTR0 + 3);
    assert_int_equal(pcd_moarvm_col_types(c), 5);
    assert_int_equal(pcd_moarvm_col_frames(c), 3);
    for (int k = 0; k < 3; k++) {
        const heap *h = &heaps[k];
        uint64_t kinds[12] = { 0 }, heapsz = 0, t1 = 0, f2 = 0;
        for (uint64_t i = 0; i < h->n; i++) {
            kinds[h->kind[i]]++;
            heapsz += h->size[i] + h->usize[i];
            if (h->kind[i] == 1 && h->tofi[i] == 1) t1++;
            if (h->kind[i] == 4 && h->tofi[i] == 2) f2 += h->size[i] + h->usize[i];
        }
        assert_int_equal(sn[k].index, k);
        assert_int_equal(sn[k].n[PCD_MOARVM_COLKIND], h->n);
        assert_int_equal(sn[k].n[PCD_MOARVM_REFTRGET], h->nrefs);
        assert_int_equal(sn[k].heap_size, heapsz);
        assert_int_equal(sn[k].meta[PCD_MOARVM_M_GC_SEQ_NUM], k + 1);
        assert_int_equal(sn[k].meta[PCD_MOARVM_M_SNAP_TIME], 2000 + 100 * k);
        for (int j = 1; j < 12; j++) assert_int_equal(sn[k].kinds[j], kinds[j]);
        assert_int_equal(s.t1_count[k], t1);
        assert_int_equal(s.f2_size[k], f2);
        assert_int_equal(s.graph_n[k], h->n);
        /* each snapshot sees the tables as they were at its own TOC */
        assert_int_equal(sn[k].strings, k == 0 ? NSTR0 : NSTR0 + 3);
        assert_int_equal(sn[k].types, k == 0 ? 4 : 5);
        assert_int_equal(sn[k].frames, k == 0 ? 2 : 3);
    }
    char name[128];
    pcd_moarvm_col_type_name(c, 4, name, sizeof name);
    assert_string_equal(name, "Tree");
    pcd_moarvm_col_frame_name(c, 0, name, sizeof name);
    assert_string_equal(name, "frame_a (x.nqp:12)");
    pcd_moarvm_col_frame_name(c, 2, name, sizeof name);
    assert_string_equal(name, "frame_c (x.nqp:56)");
    col_free(c);
    /* the generated layer's own invariants on it (streaming, validate-only, re-encoding) */
    pcd_fuzz_one(&pcd_moarvm_v3_format, file_buf, file_len);
}

/* The file a killed process leaves: every snapshot, its TOCs, no final TOC: a warning. */
static void test_killed(void **state)
{
    (void)state;
    write_file(false, NULL);
    seen s;
    pcd_moarvm_col *c = read_file(file_buf, file_len, &s, false);
    const pcd_moarvm_snapshot *sn;
    assert_int_equal(pcd_moarvm_col_snapshots(c, &sn), 3);
    assert_int_equal(s.nerr, 0);
    assert_int_equal(s.nwarn, 1);
    assert_true(has_msg(&s, false, "final empty TOC"));
    assert_false(pcd_moarvm_col_ended(c));
    col_free(c);
}

/* Cut anywhere: every snapshot whose TOC is complete is there, and the cut is reported
 * (as damage, or as a missing TOC), except where a killed process could have stopped. */
static void test_cut_sweep(void **state)
{
    (void)state;
    write_file(true, NULL);
    uint8_t *full = malloc(file_len);
    size_t n = file_len;
    memcpy(full, file_buf, n);
    /* where each snapshot's inner TOC ends, and where the outer TOCs end */
    seen s;
    pcd_moarvm_col *c = read_file(full, n, &s, false);
    const pcd_moarvm_snapshot *sn;
    size_t ns = pcd_moarvm_col_snapshots(c, &sn);
    assert_int_equal(ns, 3);
    uint64_t inner_end[3], outer_end[4];
    for (size_t k = 0; k < 3; k++) {
        inner_end[k] = sn[k].toc_offset + 16 + 24 * 18 + 8 - (k == 2 ? 24 * 7 : 0);
        /* the outer TOC follows it: filemeta and k+1 inner TOCs */
        outer_end[k] = inner_end[k] + 16 + 24 * (k + 2) + 8;
    }
    outer_end[3] = n;
    /* the final (empty) inner TOC, before the last outer one (filemeta and 4 inner TOCs) */
    uint64_t final_inner_end = n - (16 + 24 * 5 + 8);
    uint64_t filemeta_end = 32 + pcd_ld_u64le(full + 24);
    col_free(c);
    /* Sized for CI: every cut in the first 64 bytes and within 2 bytes of a TOC's or the filemeta's
     * end (where the verdict changes), every 10th elsewhere (each read decodes the whole prefix;
     * every 5th: the test took 54 s of CPU under ASan, 43 s now); every cut under PCD_TEST_LONG=1
     * (make test-long). */
    const char *long_env = getenv("PCD_TEST_LONG");
    size_t step = long_env && strcmp(long_env, "0") != 0 ? 1 : 10;
    for (size_t cut = 0; cut <= n; cut++) {
        bool near = cut < 64 || cut + 2 >= n;
        for (size_t k = 0; k < 3; k++) near = near || (cut + 2 >= inner_end[k] && cut <= inner_end[k] + 2);
        for (size_t k = 0; k < 4; k++) near = near || (cut + 2 >= outer_end[k] && cut <= outer_end[k] + 2);
        near = near || (cut + 2 >= final_inner_end && cut <= final_inner_end + 2) ||
               (cut + 2 >= filemeta_end && cut <= filemeta_end + 2);
        if (!near && cut % step != 0 && cut % 97 != 0) continue;
        c = read_file(full, cut, &s, false);
        size_t got = pcd_moarvm_col_snapshots(c, &sn);
        size_t want = 0;
        for (size_t k = 0; k < 3; k++)
            if (inner_end[k] <= cut) want++;
        if (got != want) print_message("cut at %zu: %zu snapshots, want %zu\n", cut, got, want);
        assert_int_equal(got, want);
        bool at_outer = false;
        for (size_t k = 0; k < 4; k++) at_outer = at_outer || cut == outer_end[k];
        bool reported = s.end != PCD_END || s.nerr > 0;
        if (cut < 16) assert_true(s.end != PCD_END);
        else if (at_outer) {
            /* a valid file (the last one ended; the others as a killed process leaves them) */
            assert_int_equal(s.end, PCD_END);
            assert_int_equal(s.nerr, 0);
            assert_int_equal(s.nwarn, cut == n ? 0 : 1);
        } else if (!reported) {
            /* only right after an inner TOC: its outer TOC is missing, a warning */
            bool after_inner = cut == final_inner_end;
            for (size_t k = 0; k < 3; k++) after_inner = after_inner || cut == inner_end[k];
            if (cut == filemeta_end) {
                /* stopped before the first snapshot */
                assert_true(has_msg(&s, false, "final empty TOC"));
                col_free(c);
                continue;
            }
            if (!after_inner) {
                print_message("cut at %zu: nothing reported\n", cut);
                dump_msgs(&s);
            }
            assert_true(after_inner);
            assert_true(has_msg(&s, false, "outer TOC"));
        }
        col_free(c);
        if (cut % 97 == 0) pcd_fuzz_one(&pcd_moarvm_v3_format, full, cut);
    }
    free(full);
}

/* ---- every invariant breaks where it should ---------------------------------------------------- */

static int g_break;
static int g_spoil_at = 1;          /* the snapshot spoil() spoils */
static uint64_t g_stated[PCD_MOARVM_NMETA];
static uint64_t g_top_ids[160], g_top_scores[160];
static uint16_t g_kind[4096];
static uint32_t g_u32[4096];
static uint64_t g_u64[16384];

static void spoil(int k, pcd_moarvm_snapdata *d)
{
    if (k != g_spoil_at) return;
    const heap *h = &heaps[k];
    switch (g_break) {
    case 0: /* snapmeta states other totals */
        for (int i = 0; i < PCD_MOARVM_NMETA; i++) g_stated[i] = 0;
        g_stated[PCD_MOARVM_M_SNAP_TIME] = 1;
        g_stated[PCD_MOARVM_M_TOTAL_OBJECTS] = 5;
        g_stated[PCD_MOARVM_M_TOTAL_FRAMES] = 1;
        g_stated[PCD_MOARVM_M_TOTAL_REFS] = h->nrefs;
        d->stated = g_stated;
        break;
    case 1: /* a target past the collectables */
        memcpy(g_u64, h->target, h->nrefs * 8);
        g_u64[5] = h->n + 3;
        d->target = g_u64;
        break;
    case 2: /* an unknown kind */
        memcpy(g_kind, h->kind, h->n * 2);
        g_kind[17] = 12;
        d->kind = g_kind;
        break;
    case 3: /* a type index past the types */
        memcpy(g_u32, h->tofi, h->n * 4);
        for (uint64_t i = 7; i < h->n; i++)
            if (h->kind[i] == 1) {
                g_u32[i] = 77;
                break;
            }
        d->tofi = g_u32;
        break;
    case 4: /* a reference range past the references */
        memcpy(g_u64, h->rfstr, h->n * 8);
        for (uint64_t i = 7; i < h->n; i++)
            if (h->rfcnt[i]) {
                g_u64[i] = h->nrefs;
                break;
            }
        d->rfstr = g_u64;
        break;
    case 5: /* a string description past the strings */
        memcpy(g_u64, h->descr, h->nrefs * 8);
        g_u64[2] = (uint64_t)1000 << 2 | 2;
        d->descr = g_u64;
        break;
    case 6: /* an unknown description with a payload */
        memcpy(g_u64, h->descr, h->nrefs * 8);
        g_u64[2] = (uint64_t)7 << 2;
        d->descr = g_u64;
        break;
    case 7: /* highscores that are not what the columns say */
        d->top_ids = g_top_ids;
        d->top_scores = g_top_scores;
        memset(g_top_ids, 0, sizeof g_top_ids);
        memset(g_top_scores, 0, sizeof g_top_scores);
        g_top_scores[0] = 999999;
        break;
    case 8: /* the root is not collectable 0 */
        memcpy(g_kind, h->kind, h->n * 2);
        g_kind[0] = 5;
        g_kind[1] = 9;
        d->kind = g_kind;
        break;
    case 10: /* the largest string index twice, a smaller one past the strings before it */
        memcpy(g_u64, h->descr, h->nrefs * 8);
        g_u64[1] = (uint64_t)500 << 2 | 2;
        g_u64[3] = (uint64_t)1000 << 2 | 2;
        g_u64[6] = (uint64_t)1000 << 2 | 2;
        d->descr = g_u64;
        break;
    case 12: /* a kind-3 description and a kind-0 one with a payload, each twice */
        memcpy(g_u64, h->descr, h->nrefs * 8);
        g_u64[4] = (uint64_t)9 << 2 | 3;
        g_u64[8] = 3;
        g_u64[5] = (uint64_t)6 << 2;
        g_u64[9] = (uint64_t)7 << 2;
        d->descr = g_u64;
        break;
    case 11: /* sizes whose sum does not fit in 64 bits */
        memcpy(g_u64, h->usize, h->n * 8);
        g_u64[4] = UINT64_MAX - 3;
        d->usize = g_u64;
        break;
    case 9: /* a column shorter than colkind */
        d->n = h->n; /* colkind as is */
        memcpy(g_u64, h->usize, h->n * 8);
        d->usize = g_u64;
        break;
    }
}

static void test_invariants(void **state)
{
    (void)state;
    static const struct {
        bool error;
        const char *needle;
    } want[] = {
        { true, "snapshot[1].snapmeta.total_objects" },
        { true, "snapshot[1].reftrget[5]" },
        { true, "snapshot[1].colkind[17]: expected a collectable kind 1..11" },
        { true, "a type index below 5" },
        { true, "a range of references within" },
        { true, "a string index below 24" },
        { true, "0 for a description of kind 0" },
        { true, "recomputed from the columns" },
        { true, "snapshot[1].colkind[0]: expected 9" },
        { false, NULL },
    };
    for (g_break = 0; g_break < 10; g_break++) {
        write_file(true, spoil);
        seen s;
        pcd_moarvm_col *c = read_file(file_buf, file_len, &s, false);
        assert_int_equal(s.end, PCD_END);
        if (!want[g_break].needle) {
            assert_int_equal(s.nerr, 0);
        } else {
            if (!has_msg(&s, want[g_break].error, want[g_break].needle)) {
                print_message("case %d: no \"%s\" among:\n", g_break, want[g_break].needle);
                dump_msgs(&s);
            }
            assert_true(has_msg(&s, want[g_break].error, want[g_break].needle));
        }
        if (g_break == 0) {
            /* total_frames lower than the frames in the heap: a warning (MoarVM does that) */
            assert_true(has_msg(&s, false, "total_frames"));
            assert_false(has_msg(&s, true, "total_frames"));
        }
        col_free(c);
    }
}

/* info's mode (no per-collectable columns) sums colsize and colusize a piece at a time and
 * finds the largest string index with a scan that stops at its first place: the same sizes,
 * overflow and positions as full mode, and as the heaps written. */
static void test_info_mode(void **state)
{
    (void)state;
    for (int full = 0; full < 2; full++) {
        g_full = full;
        write_file(true, NULL);
        seen s;
        pcd_moarvm_col *c = read_file(file_buf, file_len, &s, false);
        if (s.nerr || s.nwarn) dump_msgs(&s);
        assert_int_equal(s.nerr + s.nwarn, 0);
        const pcd_moarvm_snapshot *sn;
        assert_int_equal(pcd_moarvm_col_snapshots(c, &sn), 3);
        for (int k = 0; k < 3; k++) {
            uint64_t heapsz = 0, refkinds[4] = { 0 };
            for (uint64_t i = 0; i < heaps[k].n; i++) heapsz += heaps[k].size[i] + heaps[k].usize[i];
            for (uint64_t i = 0; i < heaps[k].nrefs; i++) refkinds[heaps[k].descr[i] & 3]++;
            assert_int_equal(sn[k].heap_size, heapsz);
            for (int j = 0; j < 4; j++) assert_int_equal(sn[k].refkinds[j], refkinds[j]);
        }
        assert_true(sn[0].refkinds[0] && sn[0].refkinds[1] && sn[0].refkinds[2]);
        col_free(c);
        static const char *const want[3] = {
            "snapshot[1].refdescr[3]: expected a string index below 24 (the strings written so far), found 1000",
            "snapshot[1].colusize: expected sizes whose sum fits in 64 bits",
            "snapshot[1].refdescr[4]: expected a description kind 0, 1 or 2 in the low 2 bits, found 0x27",
        };
        for (g_break = 10; g_break < 13; g_break++) {
            write_file(true, spoil);
            c = read_file(file_buf, file_len, &s, false);
            if (!has_msg(&s, true, want[g_break - 10])) {
                print_message("case %d, full %d: no \"%s\" among:\n", g_break, full, want[g_break - 10]);
                dump_msgs(&s);
            }
            assert_true(has_msg(&s, true, want[g_break - 10]));
            assert_false(has_msg(&s, true, "refdescr[1]"));
            assert_false(has_msg(&s, true, "refdescr[6]"));
            if (g_break == 12) {
                assert_true(has_msg(&s, true, "snapshot[1].refdescr[5]: expected 0 for a description of kind 0 (unknown)"));
                /* the kinds as written: the two kind-3 words among them */
                uint64_t refkinds[4] = { 0 };
                for (uint64_t i = 0; i < heaps[1].nrefs; i++) refkinds[g_u64[i] & 3]++;
                assert_int_equal(refkinds[3], 2);
                assert_int_equal(pcd_moarvm_col_snapshots(c, &sn), 3);
                for (int j = 0; j < 4; j++) assert_int_equal(sn[1].refkinds[j], refkinds[j]);
            }
            if (g_break == 11) {
                assert_int_equal(pcd_moarvm_col_snapshots(c, &sn), 3);
                assert_true(sn[1].heap_size == UINT64_MAX);
                assert_true(sn[0].heap_size != UINT64_MAX && sn[2].heap_size != UINT64_MAX);
            }
            col_free(c);
        }
    }
    g_full = true;
}

/* Column entries are decoded in place (schemas/moarvm/v3.lua: in_place) where they lie aligned
 * on a little-endian host, else copied into the arena: the same count and values either way,
 * and the same error for a piece that is not whole entries. */
static void test_entries_in_place(void **state)
{
    (void)state;
    static uint64_t store[12];
    for (size_t shift = 0; shift < 8; shift += 3) {
        uint8_t *src = (uint8_t *)store + shift;
        for (int i = 0; i < 9; i++) pcd_st_u64le(src + 8 * i, UINT64_C(0x0102030405060708) * (uint64_t)(i + 1) + 3);
        uint8_t block[256];
        pcd_arena a;
        pcd_arena_init(&a, block, sizeof block, NULL, 0);
        pcd_ctx x;
        pcd_ctx_init(&x, &a);
        pcd_moarvm_v3_u64_entries e;
        pcd_cursor c = pcd_cursor_make(&x, src, 72, 0, true);
        assert_int_equal(pcd_moarvm_v3_u64_entries_decode(&c, &e), PCD_OK);
        assert_int_equal(e.n_values, 9);
        assert_ptr_equal(c.p, src + 72);
        for (int i = 0; i < 9; i++) assert_true(e.values[i] == UINT64_C(0x0102030405060708) * (uint64_t)(i + 1) + 3);
        /* aligned on this (little-endian) host: the input's own bytes; else a copy */
        assert_true(((const uint8_t *)e.values == src) == (shift == 0 && !PCD_HOST_BIG));
        c = pcd_cursor_make(&x, src, 0, 0, true);
        assert_int_equal(pcd_moarvm_v3_u64_entries_decode(&c, &e), PCD_OK);
        assert_int_equal(e.n_values, 0);
        c = pcd_cursor_make(&x, src, 71, 100, true);
        assert_int_equal(pcd_moarvm_v3_u64_entries_decode(&c, &e), PCD_E_SIZE);
        assert_int_equal(x.err.offset, 100);
        /* the limit on elements holds in place too */
        pcd_limits lim = *x.lim;
        lim.max_array = 8;
        x.lim = &lim;
        c = pcd_cursor_make(&x, src, 72, 0, true);
        assert_int_equal(pcd_moarvm_v3_u64_entries_decode(&c, &e), PCD_E_LIMIT);
        /* u16 entries likewise (colkind, colsize) */
        x.lim = &pcd_default_limits;
        pcd_moarvm_v3_u16_entries h;
        c = pcd_cursor_make(&x, src, 18, 0, true);
        assert_int_equal(pcd_moarvm_v3_u16_entries_decode(&c, &h), PCD_OK);
        assert_int_equal(h.n_values, 9);
        for (int i = 0; i < 9; i++) assert_int_equal(h.values[i], pcd_ld_u16le(src + 2 * i));
        assert_true(((const uint8_t *)h.values == src) == (shift % 2 == 0 && !PCD_HOST_BIG));
    }
}

/* Tampered TOCs: wrong offsets and wrong self pointers are errors. */
static void test_toc_tampering(void **state)
{
    (void)state;
    write_file(true, NULL);
    seen s;
    pcd_moarvm_col *c = read_file(file_buf, file_len, &s, false);
    const pcd_moarvm_snapshot *sn;
    pcd_moarvm_col_snapshots(c, &sn);
    uint64_t toc = sn[0].toc_offset;
    col_free(c);
    uint8_t *p = malloc(file_len);
    memcpy(p, file_buf, file_len);
    assert_memory_equal(p + toc, "toc\0\0\0\0\0", 8);
    /* the start of its third entry (coltofi) */
    uint64_t v = pcd_ld_u64le(p + toc + 16 + 2 * 24 + 8);
    pcd_st_u64le(p + toc + 16 + 2 * 24 + 8, v + 1);
    c = read_file(p, file_len, &s, false);
    assert_true(has_msg(&s, true, "snapshot[0].toc.entries[2]: expected start"));
    col_free(c);
    /* the self pointer at its end */
    memcpy(p, file_buf, file_len);
    pcd_st_u64le(p + toc + 16 + 18 * 24, 12345);
    c = read_file(p, file_len, &s, false);
    assert_true(has_msg(&s, true, "toc.self: expected"));
    col_free(c);
    /* the last 8 bytes (the trailing pointer) */
    memcpy(p, file_buf, file_len);
    pcd_st_u64le(p + file_len - 8, 7);
    c = read_file(p, file_len, &s, false);
    assert_true(has_msg(&s, true, "toc.self"));
    assert_int_equal(pcd_moarvm_col_snapshots(c, &sn), 3);
    col_free(c);
    free(p);
}

/* ---- converters on a hand-made heap ------------------------------------------------------------ */

/* Converts p[0..n) to `to` through pcd_convert as the CLI does, on an allocator with `limit`
 * bytes (0: none), into out (NUL-terminated); what the job printed goes to err (when not
 * NULL). Returns the exit status; the conversion must give back every byte it took. */
static int convert_rc(const char *to, const char *metric, const uint8_t *p, size_t n, size_t limit, char *out,
                      size_t cap, char *err, size_t err_cap)
{
    const pcd_ext *e = pcd_ext_find("moarvm");
    assert_non_null(e);
    assert_true(pcd_can_convert(e, to));
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, limit);
    pcd_reader r;
    pcd_reader_opts ro = { &al, NULL, 0, false };
    if (pcd_reader_open_buffer(&r, &pcd_moarvm_v3_format, p, n, &ro) != PCD_OK) {
        assert_true(limit != 0);
        return -1;
    }
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, (uint8_t *)out, cap - 1, NULL, NULL, NULL, &x);
    FILE *ef = tmpfile();
    assert_non_null(ef);
    pcd_job j;
    cli_job_init(&j, &pcd_moarvm_v3_format, &r, "test", &al, ef);
    /* frames as read (--granularity address): these tests check what the format's importer makes
     * of each frame (lines, columns, runs of equal stacks); the default grouping by function of
     * pictures and text is tested in tests/outputs (outputs_filters) and tests/pprof (top) */
    pcd_filter_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.granularity = PCD_GRAN_ADDRESS;
    j.filters = &fo;
    j.metric = metric;
    int rc = cli_job_exit(&j, pcd_convert(&j, to, &s), ef);
    pcd_reader_close(&r);
    assert_int_equal(al.in_use, 0);
    out[s.len] = 0;
    if (err) {
        rewind(ef);
        size_t got = fread(err, 1, err_cap - 1, ef);
        err[got] = 0;
    }
    fclose(ef);
    return rc;
}

static size_t run_converter(const char *to, const char *metric, const uint8_t *p, size_t n, char *out, size_t cap)
{
    static char err[4096];
    int rc = convert_rc(to, metric, p, n, 0, out, cap, err, sizeof err);
    if (rc != 0) print_message("%s", err);
    assert_int_equal(rc, 0);
    return strlen(out);
}

/* Writes one snapshot (d) as a whole file into file_buf, and checks it reads without errors
 * (unless errors are expected). */
static void write_one(const pcd_moarvm_snapdata *d, bool errors_expected)
{
    free(file_buf);
    file_buf = NULL;
    file_len = 0;
    static uint8_t sbuf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, sbuf, sizeof sbuf, grow_write, NULL, NULL, &x);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_moarvm_writer mw;
    assert_int_equal(pcd_moarvm_write_open(&mw, &s, &al, 1, 2), PCD_OK);
    assert_int_equal(pcd_moarvm_write_snapshot(&mw, d), PCD_OK);
    assert_int_equal(pcd_moarvm_write_finish(&mw, true), PCD_OK);
    pcd_moarvm_write_close(&mw);
    assert_int_equal(al.in_use, 0);
    seen sn;
    col_free(read_file(file_buf, file_len, &sn, false));
    if (sn.nerr && !errors_expected) dump_msgs(&sn);
    assert_true(errors_expected ? sn.nerr > 0 : sn.nerr == 0);
}

static void test_collapsed(void **state)
{
    (void)state;
    /* root -> permanent roots -> A (type 0, 10 bytes) -> two B (type 1, 20 and 30 bytes),
     * and a frame (frame 0, 100 bytes) reached from two roots: dominated by the root */
    static uint16_t kind[] = { 9, 5, 8, 1, 1, 1, 4 }, size[] = { 0, 0, 0, 10, 20, 30, 100 };
    static uint32_t tofi[] = { 0, 0, 0, 0, 1, 1, 0 }, rfcnt[] = { 2, 2, 1, 2, 0, 0, 0 };
    static uint64_t rfstr[] = { 0, 2, 4, 5, 7, 7, 7 }, usize[7] = { 0 };
    static uint64_t target[] = { 1, 2, 3, 6, 6, 4, 5 }, descr[7] = { 2, 6, 0, 0, 0, 0, 0 };
    static const char *strs[] = { "Permanent Roots", "Thread Roots", "A", "B", "f", "x.nqp" };
    static const uint32_t repr[] = { 0, 0 }, tname[] = { 2, 3 };
    static const uint32_t fn[] = { 4 }, fc[] = { 4 }, fl[] = { 7 }, ff[] = { 5 };
    pcd_moarvm_snapdata d = { 5, 1, 7, kind, size, tofi, rfcnt, rfstr, usize, 7, descr, target, 6, strs, 2, repr, tname,
                              1, fn, fc, fl, ff, NULL, NULL, NULL };
    write_one(&d, false);
    static char out[1 << 16];
    run_converter("collapsed", NULL, file_buf, file_len, out, sizeof out);
    assert_string_equal(out, "root;f (x.nqp:7) 100\nroot;Permanent Roots;A 10\nroot;Permanent Roots;A;B 50\n");
    run_converter("collapsed", "count@0", file_buf, file_len, out, sizeof out);
    assert_string_equal(out, "root 1\nroot;Permanent Roots 1\nroot;Thread Roots 1\nroot;f (x.nqp:7) 1\n"
                             "root;Permanent Roots;A 1\nroot;Permanent Roots;A;B 2\n");
    run_converter("summary", "2", file_buf, file_len, out, sizeof out);
    assert_non_null(strstr(out, "Top 2 objects by count\n  Name  Count\n  B     2\n  A     1\n"));
    assert_non_null(strstr(out, "Top 2 objects by size\n  Name  Total bytes\n  B     50\n  A     10\n"));
    assert_non_null(strstr(out, "Top 2 frames by size\n  Name         Total bytes\n  f (x.nqp:7)  100\n"));
    /* speedscope: the same tree, one sampled profile of retained bytes (the count only when asked) */
    run_converter("speedscope", NULL, file_buf, file_len, out, sizeof out);
    assert_string_equal(
        out, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{\"frames\":["
             "{\"name\":\"root\"},{\"name\":\"f\",\"file\":\"x.nqp\",\"line\":7},{\"name\":\"Permanent Roots\"},"
             "{\"name\":\"A\"},{\"name\":\"B\"}]},\"profiles\":[{\"type\":\"sampled\",\"name\":\"Retained size, "
             "snapshot 0\",\"unit\":\"bytes\",\"startValue\":0,\"endValue\":160,\"samples\":[[0,1],[0,2,3],[0,2,3,4]],"
             "\"weights\":[100,10,50]}],\"name\":\"test\",\"activeProfileIndex\":0,\"exporter\":\"profcodec\"}\n");
    run_converter("speedscope", "count", file_buf, file_len, out, sizeof out);
    assert_non_null(strstr(out, "\"name\":\"Retained collectables, snapshot 0\",\"unit\":\"none\",\"startValue\":0,"
                                "\"endValue\":7,\"samples\":[[0],[0,1],[0,2],[0,3],[0,1,4],[0,1,4,5]],"
                                "\"weights\":[1,1,1,1,1,2]}"));
    /* the metric is size or count, optionally @N */
    static char err[4096];
    assert_int_equal(convert_rc("collapsed", "bytes", file_buf, file_len, 0, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "--metric takes size or count"));
    assert_int_equal(convert_rc("speedscope", "size@x", file_buf, file_len, 0, out, sizeof out, err, sizeof err), 2);
    assert_non_null(strstr(err, "a snapshot number after @"));
    assert_int_equal(convert_rc("collapsed", "count@1", file_buf, file_len, 0, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "no complete snapshot 1 with sound references (1 complete)"));
}

/* How frames are named: two types of one name stay two frames (two nodes of the folded tree,
 * and of speedscope's frames), which collapsed stacks, texts, show as one line of their sum
 * (issue 21: lines that print the same are merged); ';' and line breaks are made safe; MoarVM's conventions for frames (<anon>, ?,
 * the file's name after '/' or '\'); a type with an empty name (an empty JSON string). */
static void test_labels(void **state)
{
    (void)state;
    static uint16_t kind[] = { 9, 5, 1, 1, 1, 4, 4, 1 }, size[] = { 0, 0, 10, 20, 30, 40, 50, 60 };
    static uint32_t tofi[] = { 0, 0, 0, 1, 2, 0, 1, 3 }, rfcnt[] = { 1, 6, 0, 0, 0, 0, 0, 0 };
    static uint64_t rfstr[] = { 0, 1, 7, 7, 7, 7, 7, 7 }, usize[8] = { 0 };
    static uint64_t target[] = { 1, 2, 3, 4, 5, 6, 7 }, descr[7] = { 2, 0, 0, 0, 0, 0, 0 };
    static const char *strs[] = { "Permanent Roots", "A", "x;y\nz", "", "C:\\src\\m.nqp", "g" };
    static const uint32_t repr[] = { 1, 1, 1, 1 }, tname[] = { 1, 1, 2, 3 };
    static const uint32_t fn[] = { 3, 5 }, fc[] = { 3, 3 }, fl[] = { 3, 9 }, ff[] = { 4, 99 };
    pcd_moarvm_snapdata d = { 5, 1, 8, kind, size, tofi, rfcnt, rfstr, usize, 7, descr, target, 6, strs, 4, repr, tname,
                              2, fn, fc, fl, ff, NULL, NULL, NULL };
    write_one(&d, true); /* frame 1's file is no string */
    static char out[1 << 16];
    run_converter("collapsed", NULL, file_buf, file_len, out, sizeof out);
    assert_string_equal(out, "root;Permanent Roots;A 30\nroot;Permanent Roots;x:y z 30\n"
                             "root;Permanent Roots;<anon> (m.nqp:3) 40\nroot;Permanent Roots;g (?:9) 50\n"
                             "root;Permanent Roots; 60\n");
    run_converter("speedscope", NULL, file_buf, file_len, out, sizeof out);
    assert_non_null(strstr(out,
                           "\"frames\":[{\"name\":\"root\"},{\"name\":\"Permanent Roots\"},{\"name\":\"A\"},"
                           "{\"name\":\"A\"},{\"name\":\"x;y\\nz\"},{\"name\":\"<anon>\",\"file\":\"C:/src/m.nqp\","
                           "\"line\":3},{\"name\":\"g\",\"file\":\"?\",\"line\":9},{\"name\":\"\"}]"));
}

/* "The last complete snapshot with sound references": when the last one's references are not
 * sound, the one before it that is, with a note, and the exit status of damaged input. */
static void test_fallback(void **state)
{
    (void)state;
    static char out[1 << 17], want[1 << 17], err[8192];
    g_break = 1; /* a reference target past the collectables */
    g_spoil_at = 2;
    write_file(true, spoil);
    assert_int_equal(convert_rc("collapsed", "size@1", file_buf, file_len, 0, want, sizeof want, NULL, 0), 0);
    assert_int_equal(convert_rc("collapsed", NULL, file_buf, file_len, 0, out, sizeof out, err, sizeof err), 1);
    assert_string_equal(out, want);
    assert_non_null(strstr(err, "snapshot[2].reftrget[5]"));
    assert_non_null(strstr(err, "snapshot 2's references are not sound (see above): the heap is snapshot 1's"));
    assert_int_equal(convert_rc("speedscope", NULL, file_buf, file_len, 0, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(out, "\"name\":\"Retained size, snapshot 1\""));
    assert_int_equal(convert_rc("collapsed", "count@2", file_buf, file_len, 0, out, sizeof out, err, sizeof err), 1);
    assert_non_null(strstr(err, "no complete snapshot 2 with sound references (3 complete)"));
    /* an unsound snapshot before the last one changes nothing */
    g_spoil_at = 1;
    write_file(true, spoil);
    assert_int_equal(convert_rc("collapsed", "size@2", file_buf, file_len, 0, want, sizeof want, NULL, 0), 0);
    assert_int_equal(convert_rc("collapsed", NULL, file_buf, file_len, 0, out, sizeof out, err, sizeof err), 0);
    assert_string_equal(out, want);
    g_break = 0;
}

/* --max-memory covers the conversions: at every limit they end with their output or out of
 * memory ("raise --max-memory"), and give back every byte. */
static void test_memory_limit(void **state)
{
    (void)state;
    static char out[1 << 18], err[8192];
    write_file(true, NULL);
    static const char *const tos[] = { "collapsed", "speedscope", "summary" };
    for (size_t t = 0; t < 3; t++) {
        bool done = false;
        for (size_t limit = 4096; limit <= ((size_t)64 << 20); limit = limit * 5 / 4) {
            int rc = convert_rc(tos[t], NULL, file_buf, file_len, limit, out, sizeof out, err, sizeof err);
            if (rc < 0) continue; /* the reader could not start */
            if (rc == 0) {
                done = true;
                break;
            }
            /* 2, or 1 when the reader's own memory (zstd's window) ran out: damage for it */
            if (!(rc == 2 || rc == 1) || !strstr(err, "raise --max-memory"))
                print_message("--to %s with %zu bytes: exit %d: %s\n", tos[t], limit, rc, err);
            assert_true(rc == 2 || rc == 1);
            assert_non_null(strstr(err, "raise --max-memory"));
        }
        assert_true(done);
    }
}

/* ---- the shared corpus against its facts ---------------------------------------------------------- */

typedef struct factsnap {
    uint64_t collectables, references, strings, types, frames;
    uint64_t kinds[12];
    char meta[512];
    char tops[4][512];
} factsnap;

static uint64_t num_after(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : UINT64_MAX;
}

typedef struct corpus_seen {
    uint64_t n;
    /* per snapshot: every type's and frame's (name, count, size), to find the facts' top 5 */
    char *names[16];
    size_t len[16];
} corpus_seen;

typedef struct topn {
    char name[160];
    uint64_t count, size;
    int kind;
} topn;

static topn *tops[16];
static size_t ntops[16];

static void corpus_snap(void *ud, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *s, const pcd_moarvm_stats *st,
                        const pcd_moarvm_graph *g)
{
    (void)ud;
    (void)g;
    if (s->index >= 16 || !st) return;
    size_t n = st->len[1] + st->len[4];
    topn *t = calloc(n ? n : 1, sizeof *t);
    size_t k = 0;
    for (int kind = 1; kind <= 4; kind += 3)
        for (size_t i = 0; i < st->len[kind]; i++) {
            if (!st->by_kind[kind][i].count) continue;
            if (kind == 1) pcd_moarvm_col_type_name(c, i, t[k].name, sizeof t[k].name);
            else {
                /* the facts write frames as name@line */
                char buf[256];
                pcd_moarvm_col_frame_name(c, i, buf, sizeof buf);
                char *paren = strrchr(buf, '(');
                char *colon = strrchr(buf, ':');
                if (paren && colon && paren > buf) {
                    paren[-1] = 0;
                    snprintf(t[k].name, sizeof t[k].name, "%.100s@%llu", buf, strtoull(colon + 1, NULL, 10));
                }
            }
            t[k].count = st->by_kind[kind][i].count;
            t[k].size = st->by_kind[kind][i].size;
            t[k].kind = kind;
            k++;
        }
    tops[s->index] = t;
    ntops[s->index] = k;
}

/* "top5: VMString=18093, NQPArray=7537, ..." : each must be a row with that value. */
static void check_top5(size_t snap, const char *line, int kind, bool by_size)
{
    const char *p = strstr(line, "top5: ");
    assert_non_null(p);
    p += 6;
    char item[256];
    while (*p) {
        size_t len = strcspn(p, ",\n");
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        char *eq = strrchr(item, '=');
        assert_non_null(eq);
        *eq = 0;
        uint64_t v = strtoull(eq + 1, NULL, 10);
        bool found = false;
        for (size_t i = 0; i < ntops[snap] && !found; i++)
            found = tops[snap][i].kind == kind && strcmp(tops[snap][i].name, item) == 0 &&
                    (by_size ? tops[snap][i].size : tops[snap][i].count) == v;
        if (!found)
            print_message("snapshot %zu: no %s with %s %" PRIu64 "\n", snap, item, by_size ? "size" : "count", v);
        assert_true(found);
        p += len;
        while (*p == ',' || *p == ' ') p++;
        if (*p == '\n') break;
    }
}

static void check_corpus_file(const char *path, const char *facts_path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n);
    assert_int_equal(fread(p, 1, n, f), n);
    fclose(f);
    const pcd_format *fmt = NULL;
    if (n >= 16 && memcmp(p, "MoarHeapDumpv003", 16) == 0) fmt = &pcd_moarvm_v3_format;
    if (n >= 16 && memcmp(p, "MoarHeapDumpv002", 16) == 0) fmt = &pcd_moarvm_v2_format;
    if (!fmt) {
        free(p);
        return;
    }
    memset(tops, 0, sizeof tops);
    seen s;
    memset(&s, 0, sizeof s);
    pcd_moarvm_opts o = { true, false, on_report, &s, corpus_snap, NULL };
    pcd_moarvm_col *c = col_new(&o);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_reader r;
    pcd_reader_opts ro = { &al, NULL, 0, false };
    assert_int_equal(pcd_reader_open_buffer(&r, fmt, p, n, &ro), PCD_OK);
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) pcd_moarvm_col_record(c, &rec);
    if (st == PCD_END) pcd_moarvm_col_finish(c);
    pcd_reader_close(&r);
    assert_int_equal(st, PCD_END);
    const pcd_moarvm_snapshot *sn;
    size_t ns = pcd_moarvm_col_snapshots(c, &sn);
    if (fmt == &pcd_moarvm_v2_format) {
        /* no facts for format 2: what its own index says was checked (block sizes) */
        assert_true(ns >= 1);
        assert_true(pcd_moarvm_col_ended(c));
        for (size_t i = 0; i < ns; i++) assert_true(sn[i].n[PCD_MOARVM_COLKIND] > 0);
    }
    print_message("%s: %zu snapshots, %zu errors, %zu warnings\n", path, ns, s.nerr, s.nwarn);
    FILE *ff = fopen(facts_path, "r");
    if (ff) {
        char line[4096];
        long cur = -1;
        size_t complete = 0;
        while (fgets(line, sizeof line, ff)) {
            if (strncmp(line, "totals:", 7) == 0) {
                assert_int_equal(num_after(line, "strings="), pcd_moarvm_col_strings(c));
                assert_int_equal(num_after(line, "types="), pcd_moarvm_col_types(c));
                assert_int_equal(num_after(line, "frames="), pcd_moarvm_col_frames(c));
            } else if (strncmp(line, "--- inner toc ", 14) == 0) {
                cur = strstr(line, "(empty)") || !strstr(line, "snapmeta") ? -1 : (long)complete++;
            } else if (cur >= 0 && (size_t)cur < ns) {
                const pcd_moarvm_snapshot *x = &sn[cur];
                if (strstr(line, "  collectables=")) {
                    assert_int_equal(num_after(line, "collectables="), x->n[PCD_MOARVM_COLKIND]);
                    assert_int_equal(num_after(line, "references="), x->n[PCD_MOARVM_REFDESCR]);
                    assert_int_equal(num_after(line, "strings_visible="), x->strings);
                    assert_int_equal(num_after(line, "types_visible="), x->types);
                    assert_int_equal(num_after(line, "frames_visible="), x->frames);
                } else if (strstr(line, "  colkind_hist:")) {
                    for (int k = 1; k < 12; k++) {
                        char key[8];
                        snprintf(key, sizeof key, " %d=", k);
                        uint64_t v = num_after(line, key);
                        assert_int_equal(v == UINT64_MAX ? 0 : v, x->kinds[k]);
                    }
                } else if (strstr(line, "  snapmeta: {")) {
                    for (int k = 0; k < PCD_MOARVM_NMETA; k++) {
                        char key[48];
                        snprintf(key, sizeof key, "\"%s\": ", pcd_moarvm_meta_keys[k]);
                        assert_int_equal(num_after(line, key), x->meta[k]);
                    }
                } else if (strstr(line, "  types_by_count:")) check_top5((size_t)cur, line, 1, false);
                else if (strstr(line, "  types_by_size:")) check_top5((size_t)cur, line, 1, true);
                else if (strstr(line, "  frames_by_count:")) check_top5((size_t)cur, line, 4, false);
                else if (strstr(line, "  frames_by_size:")) check_top5((size_t)cur, line, 4, true);
            }
        }
        fclose(ff);
        assert_int_equal(complete, ns);
    }
    if (s.nerr) dump_msgs(&s);
    assert_int_equal(s.nerr, 0);
    for (int i = 0; i < 16; i++) free(tops[i]);
    if (fmt == &pcd_moarvm_v3_format && ns <= 16) {
        /* cut at sampled points (and around every snapshot's TOC end): the snapshots whose
         * TOC is complete are there, and the cut is reported. Sized for CI: the cuts around
         * the TOCs' ends (where the verdict changes) and 12 random ones; random ones up to 96
         * cuts in all under PCD_TEST_LONG=1 (each cut reads the file up to it: the 96 were most
         * of the test's CPU under ASan, i26u of s12) */
        uint64_t inner_end[16];
        for (size_t k = 0; k < ns; k++)
            inner_end[k] = sn[k].toc_offset + 16 + 24 * pcd_ld_u64le(p + sn[k].toc_offset + 8) + 8;
        uint64_t cuts[96];
        size_t ncut = 0;
        for (size_t k = 0; k < ns && ncut + 3 <= 48; k++) {
            cuts[ncut++] = inner_end[k] - 1;
            cuts[ncut++] = inner_end[k];
            cuts[ncut++] = inner_end[k] + 1;
        }
        rng_state = n;
        const char *long_env = getenv("PCD_TEST_LONG");
        size_t upto = long_env && strcmp(long_env, "0") != 0 ? 96 : ncut + 12;
        while (ncut < upto) cuts[ncut++] = rnd() % n;
        for (size_t i = 0; i < ncut; i++) {
            seen cs;
            pcd_moarvm_col *cc = read_file(p, (size_t)cuts[i], &cs, false);
            const pcd_moarvm_snapshot *csn;
            size_t got = pcd_moarvm_col_snapshots(cc, &csn), want = 0;
            for (size_t k = 0; k < ns; k++) want += inner_end[k] <= cuts[i];
            if (got != want)
                print_message("%s cut at %" PRIu64 ": %zu snapshots, want %zu\n", path, cuts[i], got, want);
            assert_int_equal(got, want);
            assert_true(cs.end != PCD_END || cs.nerr + cs.nwarn > 0);
            col_free(cc);
        }
    }
    col_free(c);
    free(p);
}

static void test_corpus(void **state)
{
    (void)state;
    DIR *d = opendir(PCD_CORPUS "/moarvm");
    if (!d) {
        print_message("no shared corpus at %s: skipped\n", PCD_CORPUS "/moarvm");
        skip();
    }
    struct dirent *e;
    int files = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 9 || strcmp(e->d_name + len - 8, ".mvmheap") != 0) continue;
        char path[1024], facts[1024];
        snprintf(path, sizeof path, "%s/moarvm/%s", PCD_CORPUS, e->d_name);
        snprintf(facts, sizeof facts, "%s/moarvm/%.*s.facts.txt", PCD_CORPUS, (int)(len - 8), e->d_name);
        check_corpus_file(path, facts);
        files++;
    }
    closedir(d);
    assert_true(files > 0);
}

static int teardown(void **state)
{
    (void)state;
    free(file_buf);
    file_buf = NULL;
    return 0;
}

/* test_moarvm --write-sample FILE [killed]: writes the synthetic three-snapshot file (the one
 * in tests/data/moarvm/ and the fuzz seeds come from here). */
static int write_sample(const char *path, bool ended)
{
    write_file(ended, NULL);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(file_buf, 1, file_len, f) != file_len || fclose(f) != 0) {
        perror(path);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "--write-sample") == 0)
        return write_sample(argv[2], !(argc == 4 && strcmp(argv[3], "killed") == 0));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_synthetic), cmocka_unit_test(test_killed),  cmocka_unit_test(test_cut_sweep),
        cmocka_unit_test(test_invariants), cmocka_unit_test(test_info_mode), cmocka_unit_test(test_entries_in_place), cmocka_unit_test(test_toc_tampering), cmocka_unit_test(test_collapsed),
        cmocka_unit_test(test_labels), cmocka_unit_test(test_fallback), cmocka_unit_test(test_memory_limit),
        cmocka_unit_test(test_corpus),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    teardown(NULL);
    return rc;
}
