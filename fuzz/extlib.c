/* extlib.c: the checks and every conversion of a format on any input (extlib.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/job.h"
#include "extlib.h"
#include "common/lines.h"
#include "model/profile.h"
#include "model/transform.h"
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

/* `profcodec info` on the input: the summary record by record, its text and JSON. */
static void info(const char *name, const pcd_ext *ext, const pcd_format *f, const uint8_t *data, size_t size,
                 pcd_alloc *al, FILE *devnull)
{
    if (!ext->info) return;
    void *ctx = calloc(1, ext->info->ctx_size);
    CHECK(ctx != NULL, "memory");
    ext->info->init(ctx, al);
    pcd_reader r;
    pcd_reader_opts o = { al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, f, data, size, &o) == PCD_OK, "open");
    pcd_record rec;
    pcd_status st;
    while ((st = pcd_reader_next(&r, &rec)) == PCD_OK) ext->info->record(ctx, &rec);
    CHECK(st != PCD_E_INTERNAL, "an internal error");
    pcd_error e;
    if (st == PCD_END && ext->info->damaged) (void)ext->info->damaged(ctx, &e);
    pcd_reader_close(&r);
    uint8_t buf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, discard, discard_patch, NULL, &x);
    CHECK(ext->info->json(ctx, &s) == PCD_OK, "info json");
    pcd_sink_flush(&s);
    ext->info->text(ctx, devnull);
    ext->info->fini(ctx);
    free(ctx);
    CHECK(al->in_use == 0, "info leaked");
}

/* The options of one more conversion, drawn from the input's own bytes (a hash of them, so the
 * same input always runs the same way, in both arms of a comparison): what a user can ask for
 * beside the plain conversion (docs/fuzzing.md, "What each harness reaches"). */
typedef struct drawn {
    uint64_t h;
} drawn;

static unsigned draw(drawn *d, unsigned n)
{
    unsigned v = (unsigned)(d->h % n);
    d->h /= n;
    if (!d->h) d->h = UINT64_C(0x9e3779b97f4a7c15);
    return v;
}

static uint64_t input_hash(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603) ^ n;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * UINT64_C(1099511628211);
    return h ^ h >> 29;
}

static void with_options(const char *name, const pcd_ext *ext, const pcd_format *f, const uint8_t *data, size_t size,
                         bool ok, pcd_alloc *al, FILE *devnull)
{
    static const char *const metrics[] = { "samples", "cpu", "count", "size", "alloc_space", "inuse_space", "time",
                                           "wall", "nonesuch" };
    static const char *const regexes[] = { "main", ".", "^runtime", "[a-z]+\\.c$", "py", "x|y", "^$", "0" };
    static const char *const tags[] = { "thread=main", "bytes=1kb:64kb", "bytes=:64kb", "pid=1", "a=.*",
                                        "bytes=32kb", "gc=true" };
    static const char *const threads[] = { "1", "main", "0", "MainThread", "2" };
    static const char *const trims[] = { "/usr/", "/home/", "/", "src/", "C:\\" };
    static const char *const compress[] = { "none", "gzip", "zstd" };
    static const char *const versions[] = { "3", "4", "2" };
    drawn d = { input_hash(data, size) };
    size_t nt = 0;
    const char *to, *help;
    while (pcd_convert_target(ext, nt, &help)) nt++;
    if (!nt) return;
    to = pcd_convert_target(ext, draw(&d, (unsigned)nt), &help);
    pcd_filter_opts fo;
    memset(&fo, 0, sizeof fo);
    fo.granularity = (pcd_granularity)draw(&d, 4);
    const char **rx[] = { &fo.focus, &fo.ignore, &fo.hide, &fo.show, &fo.prune_from, &fo.show_from };
    for (size_t i = 0; i < sizeof rx / sizeof *rx; i++)
        if (draw(&d, 6) == 0) *rx[i] = regexes[draw(&d, sizeof regexes / sizeof *regexes)];
    if (draw(&d, 5) == 0) fo.tags[fo.n_tags++] = tags[draw(&d, sizeof tags / sizeof *tags)];
    if (draw(&d, 5) == 0) fo.threads[fo.n_threads++] = threads[draw(&d, sizeof threads / sizeof *threads)];
    if (draw(&d, 4) == 0) fo.trim_paths[fo.n_trim_paths++] = trims[draw(&d, sizeof trims / sizeof *trims)];
    if (draw(&d, 6) == 0) {
        fo.has_from = draw(&d, 2);
        fo.has_until = !fo.has_from || draw(&d, 2);
        fo.from = draw(&d, 4) * 0.5;
        fo.until = fo.from + draw(&d, 8) * 0.25;
    }
    char msg[256];
    bool filters_ok = pcd_filter_opts_check(&fo, msg, sizeof msg) == PCD_OK;   /* (the CLI's own check) */
    pcd_reader r, br;
    pcd_reader_opts o = { al, NULL, 0, false };
    CHECK(pcd_reader_open_buffer(&r, f, data, size, &o) == PCD_OK, "open");
    uint8_t buf[4096];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, discard, discard_patch, NULL, &x);
    pcd_job j, bj;
    cli_job_init(&j, f, &r, "fuzz", al, devnull);
    static parts ps;
    ps.n = 0;
    j.open_part = open_part;
    j.part_ud = &ps;
    j.all = draw(&d, 2);
    if (draw(&d, 3) == 0) j.metric = metrics[draw(&d, sizeof metrics / sizeof *metrics)];
    if (draw(&d, 3) == 0) j.dialect = pcd_dialect_names[draw(&d, PCD_DIALECT_N)];
    if (draw(&d, 3) == 0) j.compression = compress[draw(&d, sizeof compress / sizeof *compress)];
    if (draw(&d, 3) == 0) j.version = versions[draw(&d, sizeof versions / sizeof *versions)];
    if (filters_ok) j.filters = &fo;
    bool base = draw(&d, 3) == 0;
    if (base) {   /* a differential output against the same input (--base FILE FILE) */
        j.force = draw(&d, 2);
        j.raw = draw(&d, 2);
        j.no_auto_trim = draw(&d, 2);
        CHECK(pcd_reader_open_buffer(&br, f, data, size, &o) == PCD_OK, "open");
        cli_job_init_base(&j, &bj, f, &br, "base");
    }
    pcd_status st = pcd_convert(&j, to, &s);
    CHECK(st != PCD_E_INTERNAL, "an internal error");
    int rc = cli_job_exit(&j, st, devnull);
    /* an option the output or the input does not take is a usage error (exit 2, PCD_E_ARG) */
    CHECK(rc == 0 || rc == 1 || st == PCD_E_ARG, "a conversion with options failed for a reason other than the input");
    CHECK(!ok || rc != 1 || st == PCD_E_EMPTY, "a valid file did not convert");
    pcd_reader_close(&r);
    if (base) pcd_reader_close(&br);
    CHECK(al->in_use == 0, "a conversion with options leaked");
}

void pcd_fuzz_ext(const char *name, const pcd_format *f, const uint8_t *data, size_t size)
{
    pcd_fuzz_ext_some(name, f, data, size, NULL);
}

void pcd_fuzz_ext_some(const char *name, const pcd_format *f, const uint8_t *data, size_t size,
                       const char *const *done)
{
    static FILE *devnull;
    if (!devnull) devnull = fopen("/dev/null", "w");
    const pcd_ext *ext = pcd_ext_find(name);
    CHECK(ext != NULL, "no such format");
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)256 << 20);
    bool ok = valid(name, ext, f, data, size, &al);
    CHECK(al.in_use == 0, "the checks leaked");
    if (!done) info(name, ext, f, data, size, &al, devnull);
    with_options(name, ext, f, data, size, ok, &al, devnull);
    const char *to, *help;
    for (size_t i = 0; (to = pcd_convert_target(ext, i, &help)) != NULL; i++) {
        bool skip = false;
        for (size_t k = 0; done && done[k] && !skip; k++) skip = strcmp(done[k], to) == 0;
        if (skip) continue;
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
