/* extlib.c: the checks and every conversion of a format on any input (extlib.h). */
#include <stdio.h>
#include <stdlib.h>

#include "cli/job.h"
#include "extlib.h"
#include "common/lines.h"
#include "pipeline/pipeline.h"

#define CHECK(cond, msg)                                                                     \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s ext invariant broken at %s:%d: %s\n", name, __FILE__, __LINE__, msg); \
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

/* A patch of bytes already written (an output's header totals), discarded too. */
static pcd_status discard_patch(void *ud, uint64_t at, const uint8_t *p, size_t n)
{
    (void)at;
    return discard(ud, p, n);
}

/* An output of several files (--to table): each part a sink that discards, as the one sink. */
typedef struct parts {
    pcd_sink s[16];
    pcd_ctx x[16];
    uint8_t buf[16][1024];
    size_t n;
} parts;

static pcd_status open_part(void *ud, const char *name, pcd_sink **out)
{
    parts *ps = ud;
    (void)name;
    if (ps->n == 16) return PCD_E_INTERNAL;
    pcd_ctx_init(&ps->x[ps->n], NULL);
    pcd_sink_init(&ps->s[ps->n], ps->buf[ps->n], sizeof ps->buf[ps->n], discard, discard_patch, NULL, &ps->x[ps->n]);
    *out = &ps->s[ps->n++];
    return PCD_OK;
}

typedef struct verdict {
    unsigned errors;
} verdict;

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    (void)e;
    if (is_error) ((verdict *)ud)->errors++;
}

/* The whole file read, and the format's checks on every record: valid or not. */
static bool valid(const char *name, const pcd_ext *ext, const pcd_format *f, const uint8_t *data, size_t size,
                  pcd_alloc *al)
{
    pcd_reader r;
    pcd_reader_opts o = { al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, f, data, size, &o) == PCD_OK, "open");
    void *ctx = NULL;
    if (ext->check) {
        ctx = calloc(1, ext->check->ctx_size);
        CHECK(ctx != NULL, "memory");
        ext->check->init(ctx, al);
    }
    verdict v = { 0 };
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK)
        if (ext->check) ext->check->record(ctx, &rec, on_report, &v);
    if (ext->check) {
        if (st == PCD_END) ext->check->finish(ctx, on_report, &v);
        ext->check->fini(ctx);
        free(ctx);
    }
    pcd_reader_close(&r);
    return st == PCD_END && v.errors == 0;
}

void pcd_fuzz_ext(const char *name, const pcd_format *f, const uint8_t *data, size_t size)
{
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    const pcd_ext *ext = pcd_ext_find(name);
    CHECK(ext != NULL, "no such format");
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)256 << 20);
    bool ok = valid(name, ext, f, data, size, &al);
    CHECK(al.in_use == 0, "the checks leaked");
    const char *to, *help;
    for (size_t i = 0; (to = pcd_convert_target(ext, i, &help)) != NULL; i++) {
        pcd_reader r;
        pcd_reader_opts o = { &al, NULL, 0, false };
        CHECK(pcd_reader_open_buffer(&r, f, data, size, &o) == PCD_OK, "open");
        uint8_t buf[4096];
        pcd_ctx x;
        pcd_ctx_init(&x, NULL);
        pcd_sink s;
        pcd_sink_init(&s, buf, sizeof buf, discard, discard_patch, NULL, &x);
        pcd_job j;
        cli_job_init(&j, f, &r, "fuzz", &al, devnull);
        static parts ps;
        ps.n = 0;
        j.open_part = open_part;
        j.part_ud = &ps;
        pcd_status st = pcd_convert(&j, to, &s);
        CHECK(st != PCD_E_INTERNAL, "an internal error");
        int rc = cli_job_exit(&j, st, devnull);
        CHECK(rc == 0 || rc == 1, "a conversion failed for a reason other than the input");
        /* (a valid file of no samples has nothing to show: exit 1, said) */
        CHECK(!ok || rc == 0 || st == PCD_E_EMPTY, "a valid file did not convert");
        pcd_reader_close(&r);
        CHECK(al.in_use == 0, "a conversion leaked");
    }
}

/* ---- text inputs (issue 25) ------------------------------------------------------------------ */

void pcd_fuzz_text(const uint8_t *data, size_t size)
{
    const char *name = "text";
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    /* detection on any head: never a crash, and text only when the bytes are text */
    const pcd_text_format *d = pcd_text_detect(data, size < 4096 ? size : 4096, size <= 4096);
    CHECK(!d || pcd_text_is_text(data, size < 4096 ? size : 4096, size <= 4096), "a text format for bytes that are not text");
    /* every text format's importer on the bytes (detected or not: the importers must hold on any
     * input), into every output it gives */
    for (size_t t = 0; pcd_text_formats[t]; t++) {
        const pcd_text_format *tf = pcd_text_formats[t];
        for (size_t k = 0; pcd_exporters[k]; k++) {
            const char *to = pcd_exporters[k]->to;
            if (!pcd_text_can_convert(tf, to)) continue;
            pcd_alloc al;
            pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)256 << 20);
            pcd_memread mr = { data, size, 0 };
            uint8_t buf[4096];
            pcd_ctx x;
            pcd_ctx_init(&x, NULL);
            pcd_sink s;
            pcd_sink_init(&s, buf, sizeof buf, discard, discard_patch, NULL, &x);
            pcd_job j;
            cli_job_init(&j, NULL, NULL, "fuzz", &al, devnull);
            j.text = tf;
            j.text_read = pcd_memread_read;
            j.text_read_ud = &mr;
            static parts ps;
            ps.n = 0;
            j.open_part = open_part;
            j.part_ud = &ps;
            pcd_status st = pcd_convert(&j, to, &s);
            CHECK(st != PCD_E_INTERNAL, "an internal error");
            int rc = cli_job_exit(&j, st, devnull);
            CHECK(rc == 0 || rc == 1, "a conversion failed for a reason other than the input");
            CHECK(al.in_use == 0, "a conversion leaked");
        }
    }
}
