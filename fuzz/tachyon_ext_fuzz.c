/* tachyon_ext_fuzz.c: libFuzzer harness for Tachyon above the bytes: the checks (replay with
 * per-thread stacks, frame and string indexes) and every conversion `profcodec formats` lists
 * for it (through pcd_convert: the profile model's outputs and the format's own per-sample
 * text) on any input. Invariants: no crash or leak,
 * bounded memory, exit status 0 or 1 (never a usage, memory or internal error), and a file
 * the checks find valid converts without error. Also builds as a corpus replay program. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job.h"
#include "pipeline/pipeline.h"
#include "fuzzlib.h"
#include "formats/tachyon/tachyon.h"

#define CHECK(cond, msg)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "tachyon ext invariant broken at %s:%d: %s\n", __FILE__, __LINE__, msg); \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

static pcd_status discard(void *ud, const uint8_t *p, size_t n)
{
    (void)ud;
    (void)p;
    (void)n;
    return PCD_OK;
}

/* A patch of bytes already written (the Tachyon output's header totals), discarded too. */
static pcd_status discard_patch(void *ud, uint64_t at, const uint8_t *p, size_t n)
{
    (void)at;
    return discard(ud, p, n);
}

typedef struct verdict {
    unsigned errors;
} verdict;

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    (void)e;
    if (is_error) ((verdict *)ud)->errors++;
}

static bool valid(const uint8_t *data, size_t size, pcd_alloc *al)
{
    const pcd_ext *ext = pcd_ext_find("tachyon");
    pcd_reader r;
    pcd_reader_opts o = { al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, &pcd_tachyon_v1_format, data, size, &o) == PCD_OK, "open");
    void *ctx = calloc(1, ext->check->ctx_size);
    CHECK(ctx != NULL, "memory");
    ext->check->init(ctx, al);
    verdict v = { 0 };
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) ext->check->record(ctx, &rec, on_report, &v);
    if (st == PCD_END) ext->check->finish(ctx, on_report, &v);
    ext->check->fini(ctx);
    free(ctx);
    pcd_reader_close(&r);
    return st == PCD_END && v.errors == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)256 << 20);
    bool ok = valid(data, size, &al);
    CHECK(al.in_use == 0, "the checks leaked");
    const pcd_ext *ext = pcd_ext_find("tachyon");
    const char *to, *help;
    for (size_t i = 0; (to = pcd_convert_target(ext, i, &help)) != NULL; i++) {
        pcd_reader r;
        pcd_reader_opts o = { &al, NULL, 0, false };
        CHECK(pcd_reader_open_buffer(&r, &pcd_tachyon_v1_format, data, size, &o) == PCD_OK, "open");
        uint8_t buf[4096];
        pcd_ctx x;
        pcd_ctx_init(&x, NULL);
        pcd_sink s;
        pcd_sink_init(&s, buf, sizeof buf, discard, discard_patch, NULL, &x);
        pcd_job j;
        cli_job_init(&j, &pcd_tachyon_v1_format, &r, "fuzz", &al, devnull);
        pcd_status st = pcd_convert(&j, to, &s);
        CHECK(st != PCD_E_INTERNAL, "an internal error");
        int rc = cli_job_exit(&j, st, devnull);
        CHECK(rc == 0 || rc == 1, "a conversion failed for a reason other than the input");
        /* (a valid file of no samples has nothing to show: exit 1, said) */
        CHECK(!ok || rc == 0 || st == PCD_E_EMPTY, "a valid file did not convert");
        pcd_reader_close(&r);
        CHECK(al.in_use == 0, "a conversion leaked");
    }
    return 0;
}
