/* moarvm_fuzzlib.c: the MoarVM harnesses' checks above the bytes (see moarvm_fuzzlib.h). */
#include "cli/job.h"
#include "moarvm_fuzzlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "moarvm_v3.h"
#include "pipeline/pipeline.h"

#define CHECK(cond, ...)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "moarvm fuzz invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

#define MEM_CAP ((size_t)256 << 20)
#define OUT_CAP ((size_t)64 << 20)

static FILE *devnull(void)
{
    static FILE *f;
    if (!f) f = fopen("/dev/null", "w");
    return f;
}

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    uint64_t *n = ud;
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    CHECK(e->status != PCD_E_INTERNAL, "internal error: %s", msg);
    if (is_error) n[0]++;
    else n[1]++;
}

typedef struct got {
    size_t snapshots;
    pcd_moarvm_snapshot last;
    pcd_moarvm_snapshot first[4];
} got;

static void on_snapshot(void *ud, const pcd_moarvm_col *c, const pcd_moarvm_snapshot *s, const pcd_moarvm_stats *st,
                        const pcd_moarvm_graph *g)
{
    (void)c;
    got *gt = ud;
    CHECK(st != NULL, "full mode gives per-type totals");
    /* the graph is given only when it is sound */
    if (g) {
        for (uint64_t i = 0; i < g->n; i++) {
            CHECK(g->rfcnt[i] == 0 || g->rfstr[i] + g->rfcnt[i] <= g->nrefs, "a reference range out of bounds");
        }
        for (uint64_t r = 0; r < g->nrefs; r++) CHECK(g->target[r] < g->n, "a target out of bounds");
    }
    if (gt->snapshots < 4) gt->first[gt->snapshots] = *s;
    gt->last = *s;
    gt->snapshots++;
}

typedef struct membuf {
    char *p;
    size_t n, cap;
    bool over;
} membuf;

static pcd_status mem_write(void *ud, const uint8_t *p, size_t n)
{
    membuf *m = ud;
    if (m->over || m->n + n > OUT_CAP) {
        m->over = true;
        return PCD_OK;
    }
    if (m->n + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->n + n) cap *= 2;
        char *q = realloc(m->p, cap);
        CHECK(q != NULL, "out of memory");
        m->p = q;
        m->cap = cap;
    }
    memcpy(m->p + m->n, p, n);
    m->n += n;
    return PCD_OK;
}

/* Runs one conversion; returns its exit status and its output in m. */
static int convert(const char *to, const char *metric, const uint8_t *data, size_t size, membuf *m)
{
    const pcd_ext *e = pcd_ext_find("moarvm");
    CHECK(e != NULL, "no moarvm extension");
    CHECK(pcd_can_convert(e, to), "no conversion to %s", to);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, &pcd_moarvm_v3_format, data, size, &o) == PCD_OK, "open");
    static uint8_t buf[1 << 16];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, mem_write, NULL, m, &x);
    pcd_job j;
    cli_job_init(&j, &pcd_moarvm_v3_format, &r, "fuzz", &al, devnull());
    j.all = (size & 2) != 0;
    j.metric = metric;
    int rc = cli_job_exit(&j, pcd_convert(&j, to, &s), devnull());
    pcd_sink_flush(&s);
    pcd_reader_close(&r);
    CHECK(al.in_use == 0, "the reader leaked %zu bytes", al.in_use);
    return rc;
}

void moarvm_fuzz_above(const uint8_t *data, size_t size, const moarvm_fuzz_expect *expect)
{
    /* 1. the collector with every check and the graph */
    got gt;
    memset(&gt, 0, sizeof gt);
    uint64_t reports[2] = { 0, 0 };
    pcd_moarvm_opts o = { true, true, on_report, reports, on_snapshot, &gt };
    pcd_alloc cal;
    pcd_alloc_init(&cal, pcd_alloc_libc, NULL, MEM_CAP);
    pcd_moarvm_col *c = pcd_moarvm_col_new(&cal, &o);
    CHECK(c != NULL, "out of memory");
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
    pcd_reader r;
    pcd_reader_opts ro = { &al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, &pcd_moarvm_v3_format, data, size, &ro) == PCD_OK, "open");
    pcd_record rec;
    pcd_status st;
    for (;;) {
        st = pcd_reader_next(&r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            CHECK(st != PCD_E_INTERNAL, "internal error");
            if ((size & 2) && pcd_reader_recover(&r, NULL) == PCD_OK) continue;
            break;
        }
        pcd_moarvm_col_record(c, &rec);
    }
    if (st == PCD_END) pcd_moarvm_col_finish(c);
    pcd_reader_close(&r);
    CHECK(al.in_use == 0, "the reader leaked %zu bytes", al.in_use);
    const pcd_moarvm_snapshot *sn;
    size_t ns = pcd_moarvm_col_snapshots(c, &sn);
    CHECK(ns == gt.snapshots, "%zu snapshots kept, %zu handed on", ns, gt.snapshots);
    for (size_t i = 0; i < ns; i++) {
        CHECK(sn[i].index >= i, "snapshot numbers go up");
        uint64_t k = 0;
        for (int j = 0; j < 12; j++) k += sn[i].kinds[j];
        CHECK(k == sn[i].n[PCD_MOARVM_COLKIND], "kinds add up to the collectables");
        CHECK(sn[i].refkinds[0] + sn[i].refkinds[1] + sn[i].refkinds[2] + sn[i].refkinds[3] ==
                  sn[i].n[PCD_MOARVM_REFDESCR],
              "description kinds add up to the references");
    }
    if (expect) {
        CHECK(st == PCD_END, "a file the harness wrote reads to its end: %s", pcd_status_name(st));
        CHECK(ns == expect->snapshots, "%zu snapshots, %zu written", ns, expect->snapshots);
        for (size_t i = 0; i < ns && i < 4; i++) {
            CHECK(sn[i].n[PCD_MOARVM_COLKIND] == expect->collectables[i], "collectables of snapshot %zu", i);
            CHECK(sn[i].n[PCD_MOARVM_REFDESCR] == expect->references[i], "references of snapshot %zu", i);
            CHECK(sn[i].heap_size == expect->heap_size[i], "heap size of snapshot %zu", i);
            for (int j = 0; j < 12; j++) CHECK(sn[i].kinds[j] == expect->kinds[i][j], "kind %d in snapshot %zu", j, i);
            for (int j = 0; j < 4; j++)
                CHECK(sn[i].refkinds[j] == expect->refkinds[i][j], "description kind %d in snapshot %zu", j, i);
        }
    }
    pcd_moarvm_col_free(c);
    CHECK(cal.in_use == 0, "the collector leaked %zu bytes", cal.in_use);

    /* 2. info, as the CLI runs it */
    const pcd_ext *e = pcd_ext_find("moarvm");
    void *ictx = calloc(1, e->info->ctx_size);
    CHECK(ictx != NULL, "out of memory");
    pcd_alloc ial;
    pcd_alloc_init(&ial, pcd_alloc_libc, NULL, MEM_CAP);
    e->info->init(ictx, &ial);
    CHECK(pcd_reader_open_buffer(&r, &pcd_moarvm_v3_format, data, size, &ro) == PCD_OK, "open");
    while (pcd_reader_next(&r, &rec) == PCD_OK) e->info->record(ictx, &rec);
    pcd_reader_close(&r);
    membuf jm = { 0 };
    static uint8_t jbuf[4096];
    pcd_ctx jx;
    pcd_ctx_init(&jx, NULL);
    pcd_sink js;
    pcd_sink_init(&js, jbuf, sizeof jbuf, mem_write, NULL, &jm, &jx);
    CHECK(e->info->json(ictx, &js) == PCD_OK, "info json");
    pcd_sink_flush(&js);
    e->info->text(ictx, devnull());
    e->info->fini(ictx);
    CHECK(ial.in_use == 0, "info leaked %zu bytes", ial.in_use);
    free(ictx);
    free(jm.p);

    /* 3. the conversions; the folded stacks weigh the last snapshot's heap (unless its references
     * are not sound: then the last sound one's, and the exit status is 1) */
    membuf m = { 0 };
    convert("summary", NULL, data, size, &m);
    free(m.p);
    memset(&m, 0, sizeof m);
    convert("speedscope", (size & 4) ? "count" : NULL, data, size, &m);
    free(m.p);
    memset(&m, 0, sizeof m);
    int rc = convert("collapsed", (size & 4) ? "count" : NULL, data, size, &m);
    if (rc == 0 && !m.over && gt.snapshots && gt.last.heap_size < ((uint64_t)1 << 62)) {
        uint64_t sum = 0;
        for (size_t i = 0; i < m.n;) {
            size_t j = i;
            while (j < m.n && m.p[j] != '\n') j++;
            size_t k = j;
            while (k > i && m.p[k - 1] != ' ') k--;
            sum += strtoull(m.p + k, NULL, 10);
            i = j + 1;
        }
        /* (a heap of no size: the default metric is one with values, the count) */
        uint64_t want = (size & 4) || !gt.last.heap_size ? gt.last.n[PCD_MOARVM_COLKIND] : gt.last.heap_size;
        CHECK(sum == want, "collapsed stacks weigh %llu, the snapshot %llu", (unsigned long long)sum,
              (unsigned long long)want);
    }
    free(m.p);
}
