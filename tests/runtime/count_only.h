/* count_only.h: for the format tests (included by tests/<format>/test_<format>.c): an input
 * decoded twice in lockstep, once with every array stored and once with some arrays decoded
 * for their count only (pcd_reader_opts.count_only), must give the same records (type,
 * offset, size, the arrays' counts), the same stream state after each record, the same
 * errors field for field (status, offset, path, expected, found) and the same recoveries;
 * the counted arrays come with no elements, the stored ones with theirs. */
#ifndef PCD_TEST_COUNT_ONLY_H
#define PCD_TEST_COUNT_ONLY_H

#include <stdio.h>
#include <string.h>

#include "pcd.h"

/* The array of rec that a count_only bit covers: its elements (NULL when not stored) and,
 * in *n, its count; false when rec has none. */
typedef bool (*co_array_fn)(const pcd_record *rec, const void **elems, size_t *n);

typedef struct co_result {
    uint64_t records;  /* records each run read */
    uint64_t arrays;   /* of them, records with a covered array of at least one element */
    uint64_t errors;   /* errors each run met (the same ones) */
} co_result;

typedef struct co_src {
    const uint8_t *p;
    size_t n, pos, chunk;
} co_src;

static pcd_status co_read(void *ud, uint8_t *buf, size_t cap, size_t *got)
{
    co_src *s = ud;
    size_t k = s->n - s->pos;
    if (k > cap) k = cap;
    if (k > s->chunk) k = s->chunk;
    memcpy(buf, s->p + s->pos, k);
    s->pos += k;
    *got = k;
    return PCD_OK;
}

static void co_same_error(const pcd_error *a, const pcd_error *b, uint64_t record)
{
    char pa[256], pb[256];
    pcd_error_path(a, pa, sizeof pa);
    pcd_error_path(b, pb, sizeof pb);
    if (a->status != b->status || a->offset != b->offset || strcmp(pa, pb) != 0 ||
        strcmp(a->expected ? a->expected : "", b->expected ? b->expected : "") != 0 ||
        a->found_kind != b->found_kind || a->found != b->found ||
        strcmp(a->found_text ? a->found_text : "", b->found_text ? b->found_text : "") != 0 ||
        strcmp(a->region ? a->region : "", b->region ? b->region : "") != 0 || a->region_offset != b->region_offset)
        fail_msg("after record %llu: stored: %s at %llu %s (expected %s, found %llu); count only: %s at %llu %s "
                 "(expected %s, found %llu)",
                 (unsigned long long)record, pcd_status_name(a->status), (unsigned long long)a->offset, pa,
                 a->expected ? a->expected : "-", (unsigned long long)a->found, pcd_status_name(b->status),
                 (unsigned long long)b->offset, pb, b->expected ? b->expected : "-", (unsigned long long)b->found);
}

/* chunk 0: the input as one buffer; else streamed chunk bytes a read (short reads, retries), for
 * a format that can be streamed (PCD_FMT_STREAMABLE) */
static co_result co_same(const pcd_format *f, const uint8_t *p, size_t n, uint32_t bits, co_array_fn arr,
                         size_t chunk)
{
    co_result res = { 0, 0, 0 };
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader r[2];
    co_src src[2] = { { p, n, 0, chunk }, { p, n, 0, chunk } };
    for (int k = 0; k < 2; k++) {
        pcd_reader_opts o = { .al = &al, .window = chunk ? 4096 : 0, .count_only = k ? bits : 0 };
        pcd_status st = chunk && (f->flags & PCD_FMT_STREAMABLE) ? pcd_reader_open(&r[k], f, co_read, &src[k], &o) : pcd_reader_open_buffer(&r[k], f, p, n, &o);
        assert_int_equal(st, PCD_OK);
    }
    for (unsigned guard = 0; guard < 1000000; guard++) {
        pcd_record a, b;
        pcd_status sa = pcd_reader_next(&r[0], &a), sb = pcd_reader_next(&r[1], &b);
        if (sa != sb) fail_msg("after record %llu: stored %s, count only %s", (unsigned long long)res.records,
                               pcd_status_name(sa), pcd_status_name(sb));
        if (sa == PCD_END) break;
        if (sa != PCD_OK) {
            co_same_error(pcd_reader_error(&r[0]), pcd_reader_error(&r[1]), res.records);
            res.errors++;
            uint64_t ra = 0, rb = 0;
            sa = pcd_reader_recover(&r[0], &ra);
            sb = pcd_reader_recover(&r[1], &rb);
            assert_int_equal(sa, sb);
            if (sa != PCD_OK) break;
            assert_int_equal(ra, rb);
            continue;
        }
        res.records++;
        assert_ptr_equal(a.type, b.type);
        assert_int_equal(a.offset, b.offset);
        assert_int_equal(a.size, b.size);
        assert_int_equal(a.depth, b.depth);
        assert_int_equal(a.index, b.index);
        const void *ea = NULL, *eb = NULL;
        size_t na = 0, nb = 0;
        bool ha = a.data && arr(&a, &ea, &na), hb = b.data && arr(&b, &eb, &nb);
        assert_int_equal(ha, hb);
        if (ha) {
            assert_int_equal(na, nb);
            if (na) {
                res.arrays++;
                assert_non_null(ea);   /* stored */
                assert_null(eb);       /* counted only */
            }
        }
        /* the stream state moved on the same (running values that the counted elements carry) */
        if (a.region && a.region->state_size && r[0].x.state && r[1].x.state &&
            memcmp(r[0].x.state, r[1].x.state, a.region->state_size) != 0)
            fail_msg("record %llu at %llu: the stream state differs", (unsigned long long)res.records,
                     (unsigned long long)a.offset);
    }
    pcd_reader_close(&r[0]);
    pcd_reader_close(&r[1]);
    assert_int_equal(al.in_use, 0);
    return res;
}

#endif
