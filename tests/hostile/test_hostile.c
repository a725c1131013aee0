/* test_hostile.c: the limits and linear-time parts of the reliability gate, for every
 * format this build knows. Inputs are built from each format's own seed file through the
 * CLI (`dump`, edit the records as JSON, `encode`), so nothing here knows a format's bytes:
 *
 *   claims   A small file (at most two records of each kind, arrays cut to four items;
 *            about 1 KB) with, at every byte position in turn, a field forced to claim
 *            2^32 - 1 (u32 either byte order), 2^32 (u64 either order) or 2^32 as a ULEB128.
 *            Read in process through a counting allocator: no out-of-memory status (the
 *            claim must be refused by a check, not by the allocator) and no more memory than
 *            the clean file needed plus 64 bytes per input byte. A sample also goes through
 *            the CLI (validate, info, every converter) under --max-memory 64M (and a 1 GiB
 *            address-space limit outside sanitizer builds): exit 0 or 1 within seconds, no
 *            memory-limit error, small peak RSS.
 *   tiny     The format's most frequent kind of record, its smallest copy repeated: a long
 *            run of tiny records (in MOJO a frame run: a deep stack).
 *   deep     The record with the longest array (stack, backtrace, attributes...), the array
 *            stretched.
 *   maxint   The tiny record with every integer field at the largest value its encoding
 *            takes (maximal varints).
 *            Each is built at two sizes 16x apart (16x the copies: in a format that compresses,
 *            such as MoarVM's zstd columns, the files' bytes grow far less); every command
 *            (validate, info, dump, each converter) must spend at most 40x the CPU time on the
 *            larger (linear: 16x; quadratic: 256x), counted above the start-up's: the CPU time of
 *            validate on the seed alone (the least of two runs) is taken off the smaller input's
 *            before it is multiplied, then added back, with 0.3 s and half the start-up of slack
 *            for noise; a command over that is timed again (the least of three runs of the
 *            smaller input and of the start-up, two of the larger) before it fails. Under the
 *            sanitizers the start-up (about 0.2 s) was most of the smaller input's time, and 40x
 *            of it let a quadratic command pass (CPU time, not wall time: a machine busy with
 *            other work does not make a command look slower). They run under
 *            --max-memory 1G: the larger inputs hold millions of records, and what a format
 *            keeps per record of a unit (a heap snapshot's collectables) is legitimately more
 *            than 64 MB there; the memory of claims is what the claims part bounds.
 *
 * Sizes: make test runs the sweep sized for CI (claims read in process with every command but
 * the converters, which take turns, one a mutated input; half the CLI runs; linear-time inputs
 * of 256 KB, 48 KB in sanitizer builds, the larger of at most 196,608 copies of the record there
 * (a format that compresses needs far more copies than its bytes: copies()), each kind timed with validate, info, dump and a third of
 * the converters, in turns); PCD_TEST_LONG=1 (make test-long) runs the full sweep
 * (every converter on every mutated input, 48 CLI runs a format, 24 in sanitizer builds, and
 * 512 KB, 96 KB). Every kind of input and every command is checked either way.
 *
 * Converters through the CLI: a format has up to MAX_CONVS of them (Tachyon 14). Until issue 27's
 * rest only the first eight were ever run there (firefox, perfetto, table and ndjson never for
 * Tachyon, MOJO or Mono). Sized for CI, linear time times the first CI_CONVS, as before; the live
 * pipes (after it) convert to every converter of a format with CI_CONVS or fewer, as before, and
 * of one with more to those linear time did not time (past CI_CONVS, and the third of a kind that
 * could not be built: MOJO's deep input); the seed is converted once to any converter still not
 * run (table, a directory, which the live pipes leave out; a whole-file format's, which has no
 * live pipes). Every output is reached under the sanitizers with fewer runs than before over the
 * formats (each run here costs about 0.25 s of CPU under ASan: Tachyon, with no live pipes to
 * trade, takes six more, MOJO, Mono and pprof 5, 9 and 13 fewer). The full sweep runs every
 * converter in the live pipes and linear time.
 *
 * usage: test_hostile [FORMAT]   (PCD_HOSTILE_VERBOSE=1 prints every timing) */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_estimateCStreamSize */
#include <zstd.h>

#include "cli/cli.h"
#include "cli/job.h"
#include "pcd.h"
#include "pipeline/pipeline.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

static int g_failures;
static int g_verbose;
static bool g_long; /* PCD_TEST_LONG: the full sweep */
static const char *g_tag = "all"; /* scratch files of runs side by side stay apart */

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;
    fputs("FAIL ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    g_failures++;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- running the CLI ------------------------------------------------------------------ */

typedef struct runres {
    double wall;
    double cpu;      /* user + system time of the command */
    long rss_kb;
    int code;        /* exit status, or 128 + signal */
    char err[2048];  /* the start of stderr */
} runres;

/* Paths of scratch files: each name has its own slot, so a path stays valid. */
static const char *tmp_path(const char *name)
{
    static char bufs[256][512];
    static int n;
    char want[512];
    snprintf(want, sizeof want, "%s/hostile-%s-%s", PCD_BINDIR, g_tag, name);
    for (int i = 0; i < n; i++)
        if (strcmp(bufs[i], want) == 0) return bufs[i];
    if (n == 256) return "/dev/null";
    memcpy(bufs[n], want, sizeof want);
    return bufs[n++];
}

/* PCD_MEASURE (measure.c, not instrumented) runs a command in a fresh small process and writes
 * its exit status, peak RSS and CPU time. */

/* argv[0] is the CLI; `in` becomes stdin when not NULL, stdout goes to `out` or /dev/null. */
static void run(const char *const *args, const char *in, const char *out, unsigned limit_s, runres *r)
{
    const char *errf = tmp_path("stderr.txt"), *mf = tmp_path("measure.txt");
    char lim[16];
    snprintf(lim, sizeof lim, "%u", limit_s);
    const char *margs[32] = { PCD_MEASURE, mf, lim };
    size_t k = 3;
    for (size_t i = 0; args[i] && k < 31; i++) margs[k++] = args[i];
    margs[k] = NULL;
    remove(mf);
    double t0 = now();
#if SANITIZED
    /* posix_spawn, not fork: a fork copies this process's page tables, and under ASan (its
     * shadow, its allocator's regions, the quarantine) that was a tenth of this program's own CPU
     * (copy_page_range, perf record of hostile_mono); glibc's posix_spawn shares the memory until
     * the exec (CLONE_VM | CLONE_VFORK). The child's setup is the file actions; no address-space
     * limit under the sanitizers (below). */
    pid_t pid = -1;
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) == 0) {
        int bad = 0;
        if (in) bad |= posix_spawn_file_actions_addopen(&fa, 0, in, O_RDONLY, 0);
        bad |= posix_spawn_file_actions_addopen(&fa, 1, out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        bad |= posix_spawn_file_actions_addopen(&fa, 2, errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (bad || posix_spawn(&pid, PCD_MEASURE, &fa, NULL, (char *const *)margs, environ) != 0) pid = -1;
        posix_spawn_file_actions_destroy(&fa);
    }
#else
    pid_t pid = fork();
#endif
    if (pid == 0) {
        if (in) {
            int fd = open(in, O_RDONLY);
            if (fd < 0 || dup2(fd, 0) < 0) _exit(126);
        }
        int fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0 || fe < 0 || dup2(fd, 1) < 0 || dup2(fe, 2) < 0) _exit(126);
        if (!SANITIZED) {
            struct rlimit rl = { (rlim_t)1 << 30, (rlim_t)1 << 30 };
            setrlimit(RLIMIT_AS, &rl);
        }
        execv(PCD_MEASURE, (char *const *)margs);
        _exit(127);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    r->wall = now() - t0;
    r->code = 127;
    r->rss_kb = 0;
    r->cpu = r->wall;
    FILE *m = fopen(mf, "r");
    if (m) {
        if (fscanf(m, "%d %ld %lf", &r->code, &r->rss_kb, &r->cpu) != 3) r->code = 127;
        fclose(m);
    }
    r->err[0] = 0;
    FILE *e = fopen(errf, "r");
    if (e) {
        size_t n = fread(r->err, 1, sizeof r->err - 1, e);
        r->err[n] = 0;
        fclose(e);
    }
}

/* The inputs' making (dump of the seed, encode of each edited JSON Lines file) runs the CLI in this
 * process (pcd_cli_main), not as a process of its own: it is not what is measured, and in the
 * sanitizer build each process cost its start and LeakSanitizer's exit scan (about 0.1 s of CPU,
 * some 70 runs a format). A leak in those runs shows at this program's exit; the commands whose
 * time, memory and exit are checked still run as processes (run()). Their stderr is dropped, as
 * run()'s is (maximise() tries values the encoder refuses); the signal dispositions the CLI sets
 * are put back (this program ignores SIGPIPE: the live part writes into pipes), and so are
 * jansson's allocation functions (the CLI's count its memory; this program's JSON is malloc's). */
static int cli_here(const char *a1, const char *a2, const char *a3, const char *a4, const char *a5, const char *a6)
{
    static char prog[] = PCD_CLI, quiet[] = "-q";
    char *argv[8] = { prog, quiet };
    const char *a[] = { a1, a2, a3, a4, a5, a6 };
    int argc = 2;
    for (int i = 0; i < 6 && a[i]; i++) argv[argc++] = (char *)a[i];
    argv[argc] = NULL;
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ };
    struct sigaction old[6];
    for (int i = 0; i < 6; i++) sigaction(sigs[i], NULL, &old[i]);
    json_malloc_t jm;
    json_free_t jf;
    json_get_alloc_funcs(&jm, &jf);
    fflush(stdout);
    fflush(stderr);
    int saved = dup(2), dn = open("/dev/null", O_WRONLY);
    if (saved >= 0 && dn >= 0) dup2(dn, 2);
    if (dn >= 0) close(dn);
    int rc = pcd_cli_main(argc, argv);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, 2);
        close(saved);
    }
    for (int i = 0; i < 6; i++) sigaction(sigs[i], &old[i], NULL);
    json_set_alloc_funcs(jm, jf);
    return rc;
}

/* ---- files and JSON --------------------------------------------------------------------- */

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc((size_t)len + 1);
    *n = fread(p, 1, (size_t)len, f);
    fclose(f);
    return p;
}

static void spit(const char *path, const uint8_t *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(p, 1, n, f);
    fclose(f);
}

/* The records of a JSON Lines dump (line 0 is the file header). */
static json_t *load_jsonl(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    json_t *a = json_array();
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0) {
        json_t *v = json_loadb(line, (size_t)len, 0, NULL);
        if (v) json_array_append_new(a, v);
    }
    free(line);
    fclose(f);
    return a;
}

/* Writes recs, with `copies` copies of `extra` inserted after record `at`. */
static void write_jsonl(const char *path, json_t *recs, size_t at, json_t *extra, size_t copies)
{
    FILE *f = fopen(path, "w");
    char *ex = extra ? json_dumps(extra, JSON_COMPACT) : NULL;
    for (size_t i = 0; i < json_array_size(recs); i++) {
        char *s = json_dumps(json_array_get(recs, i), JSON_COMPACT);
        fprintf(f, "%s\n", s);
        free(s);
        if (i == at && ex)
            for (size_t k = 0; k < copies; k++) fprintf(f, "%s\n", ex);
    }
    free(ex);
    fclose(f);
}

static const char *kind_of(json_t *rec)
{
    const char *k = json_string_value(json_object_get(rec, "_kind"));
    return k ? k : "";
}

static size_t json_len(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT);
    size_t n = s ? strlen(s) : 0;
    free(s);
    return n;
}

/* Cuts every array in v to at most `max` items, keeping the last (which may be a
 * terminator). */
static void cut_arrays(json_t *v, size_t max)
{
    if (json_is_array(v)) {
        while (json_array_size(v) > max && max > 1) json_array_remove(v, max - 1);
        for (size_t i = 0; i < json_array_size(v); i++) cut_arrays(json_array_get(v, i), max);
    } else if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) cut_arrays(x, max);
    }
}

/* Drops every "_layout" in v: protobuf's record of how a message's elements were written (order,
 * packing) counts them, so records whose arrays are cut or stretched are taken in their
 * canonical form. */
static void drop_layouts(json_t *v)
{
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) drop_layouts(json_array_get(v, i));
    } else if (json_is_object(v)) {
        json_object_del(v, "_layout");
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) drop_layouts(x);
    }
}

/* The longest array inside v. */
static json_t *longest_array(json_t *v, json_t *best)
{
    if (json_is_array(v)) {
        if (!best || json_array_size(v) > json_array_size(best)) best = v;
        for (size_t i = 0; i < json_array_size(v); i++) best = longest_array(json_array_get(v, i), best);
    } else if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) best = longest_array(x, best);
    }
    return best;
}

/* Makes a n items long, repeating its items before the last one (which may be a
 * terminator); shrink() undoes it. */
static void stretch(json_t *a, size_t n)
{
    size_t m = json_array_size(a);
    if (m < 2) return;
    for (size_t i = m; i < n; i++) json_array_insert(a, json_array_size(a) - 1, json_array_get(a, i % (m - 1)));
}

static void shrink(json_t *a, size_t m)
{
    while (json_array_size(a) > m) json_array_remove(a, json_array_size(a) - 2);
}

/* ---- one format -------------------------------------------------------------------------- */

#define MAX_CONVS 24       /* converters of a format (fmt_ctx.convs) */
#define CI_CONVS 8         /* sized for CI: the converters the live pipes and linear time take */
#define MAX_CMDS (3 + MAX_CONVS)

typedef struct fmt_ctx {
    const char *name;
    char spec[64];        /* name:version for --format */
    const pcd_format *f;
    const char *seed;
    json_t *recs;         /* the seed's records */
    char convs[MAX_CONVS][32]; /* converter targets */
    int n_convs;
    bool reached[MAX_CONVS]; /* run through the CLI on a whole file (a live pipe, linear time) */
} fmt_ctx;

static bool encode(fmt_ctx *x, const char *jsonl, const char *out)
{
    (void)x;
    remove(out);
    return cli_here("encode", jsonl, "-o", out, NULL, NULL) == 0 && access(out, R_OK) == 0;
}

static size_t file_size(const char *p)
{
    struct stat s;
    return stat(p, &s) == 0 ? (size_t)s.st_size : 0;
}

/* The commands a user runs on a file of this format, under --max-memory max_memory. */
static int commands(fmt_ctx *x, const char *file, const char *max_memory, const char *cmds[][12])
{
    int n = 0;
    static char fmtopt[64];
    snprintf(fmtopt, sizeof fmtopt, "%s", x->spec);
    const char *base[][4] = { { "validate", NULL }, { "info", NULL }, { "dump", "-o", "/dev/null", NULL } };
    for (int i = 0; i < 3; i++) {
        int k = 0;
        cmds[n][k++] = PCD_CLI;
        cmds[n][k++] = "-q";
        cmds[n][k++] = "--max-memory";
        cmds[n][k++] = max_memory;
        cmds[n][k++] = "--format";
        cmds[n][k++] = fmtopt;
        for (int j = 0; base[i][j]; j++) cmds[n][k++] = base[i][j];
        cmds[n][k++] = file;
        cmds[n][k] = NULL;
        n++;
    }
    for (int c = 0; c < x->n_convs; c++) {
        int k = 0;
        cmds[n][k++] = PCD_CLI;
        cmds[n][k++] = "-q";
        cmds[n][k++] = "--max-memory";
        cmds[n][k++] = max_memory;
        cmds[n][k++] = "convert";
        cmds[n][k++] = "--to";
        cmds[n][k++] = x->convs[c];
        cmds[n][k++] = file;
        cmds[n][k++] = "-o";
        cmds[n][k++] = "/dev/null";
        cmds[n][k] = NULL;
        n++;
    }
    return n;
}

static void cmd_name(const char *const *c, char *buf, size_t cap)
{
    buf[0] = 0;
    for (int i = 4; c[i]; i++) {
        if (strcmp(c[i], "--format") == 0) { i++; continue; }
        if (strcmp(c[i], "-o") == 0) break;
        if (c[i][0] == '/') continue;
        strncat(buf, c[i], cap - strlen(buf) - 2);
        strncat(buf, " ", cap - strlen(buf) - 1);
    }
}

/* -- claims -- */

static size_t g_claim_cases, g_claim_cli;

static pcd_status null_write(void *ud, const uint8_t *p, size_t n)
{
    (void)ud, (void)p, (void)n;
    return PCD_OK;
}

static pcd_status null_patch(void *ud, uint64_t off, const uint8_t *p, size_t n)
{
    (void)ud, (void)off, (void)p, (void)n;
    return PCD_OK;
}

/* --to table's files (an output of several files): each a sink that discards, as `out` */
typedef struct null_parts {
    pcd_sink s[16];
    pcd_ctx x[16];
    uint8_t buf[16][1024];
    size_t n;
} null_parts;

static pcd_status null_part(void *ud, const char *name, pcd_sink **out)
{
    null_parts *ps = ud;
    (void)name;
    if (ps->n == 16) return PCD_E_INTERNAL;
    pcd_ctx_init(&ps->x[ps->n], NULL);
    pcd_sink_init(&ps->s[ps->n], ps->buf[ps->n], sizeof ps->buf[ps->n], null_write, null_patch, NULL, &ps->x[ps->n]);
    *out = &ps->s[ps->n++];
    return PCD_OK;
}

static void null_report(void *ud, bool is_error, const pcd_error *e)
{
    (void)ud, (void)is_error, (void)e;
}

static FILE *g_devnull;

/* Reads p through the generic reader, then through the format's info summary and checks
 * (what `info` and `validate` run above the bytes) and every converter into a null sink,
 * all on one counting allocator: its peak is what the claim could make us allocate. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads p[0..n) in process: every record with info and the checks, then each converter (conv <
 * 0), or only converter number conv % (their number); *secs is the CPU time it took. All on the
 * counting allocator al, whose keep holds what the last read left (a zstd context and its window:
 * pcd_reader_opts.keep), as a program that reads many inputs would; *peak counts it, as the clean
 * file's own peak counted the one it took. */
static void decode_budget(pcd_alloc *alp, pcd_reader_keep *keep, const pcd_format *f, const uint8_t *p, size_t n,
                          long conv, pcd_status *end, size_t *peak, double *secs)
{
    pcd_alloc *al = alp;
    size_t held = al->in_use;
    al->peak = held;
    pcd_reader rd;
    pcd_reader_opts o = { al, NULL, 0, false };
    o.keep = keep;
    double t0 = cpu_now();
    *end = PCD_E_NOMEM;
    const pcd_ext *ext = pcd_ext_find(f->name);
    if (pcd_reader_open_buffer(&rd, f, p, n, &o) == PCD_OK) {
        void *ictx = ext && ext->info ? calloc(1, ext->info->ctx_size) : NULL;
        void *cctx = ext && ext->check ? calloc(1, ext->check->ctx_size) : NULL;
        if (ictx) ext->info->init(ictx, al);
        if (cctx) ext->check->init(cctx, al);
        pcd_record rec;
        pcd_status st;
        while ((st = pcd_reader_next(&rd, &rec)) == PCD_OK) {
            if (ictx) ext->info->record(ictx, &rec);
            if (cctx) ext->check->record(cctx, &rec, null_report, NULL);
        }
        if (cctx && st == PCD_END) ext->check->finish(cctx, null_report, NULL);
        *end = st == PCD_END ? PCD_OK : rd.x.err.status;
        if (ictx) ext->info->fini(ictx);
        if (cctx) ext->check->fini(cctx);
        free(ictx);
        free(cctx);
        pcd_reader_close(&rd);
    }
    const char *to, *help;
    size_t nconv = 0;
    while (ext && pcd_convert_target(ext, nconv, &help)) nconv++;
    for (size_t i = 0; ext && (to = pcd_convert_target(ext, i, &help)); i++) {
        if (conv >= 0 && i != (size_t)conv % nconv) continue;
        if (pcd_reader_open_buffer(&rd, f, p, n, &o) != PCD_OK) continue;
        uint8_t buf[4096];
        pcd_ctx x;
        pcd_arena a;
        pcd_arena_init(&a, NULL, 0, NULL, 0);
        pcd_ctx_init(&x, &a);
        pcd_sink out;
        pcd_sink_init(&out, buf, sizeof buf, null_write, null_patch, NULL, &x);
        pcd_job j;
        cli_job_init(&j, f, &rd, "claim", al, g_devnull);
        static null_parts ps;
        ps.n = 0;
        j.open_part = null_part;
        j.part_ud = &ps;
        pcd_convert(&j, to, &out);
        pcd_reader_close(&rd);
        pcd_arena_free(&a);
    }
    *secs = cpu_now() - t0;
    *peak = al->peak;
    if (held && al->in_use != held) {
        /* the kept context changed, or something was not freed: from zero again (what the read
         * that filled the keep did not free shows here, or in the check at the end of claims) */
        pcd_reader_keep_free(keep);
        if (al->in_use != 0) fail("%s: %zu bytes not freed after reading %zu bytes", f->name, al->in_use, n);
    }
}

static void claims(fmt_ctx *x)
{
    json_t *small = json_array();
    json_t *seen = json_object();
    for (size_t i = 0; i < json_array_size(x->recs); i++) {
        json_t *r = json_array_get(x->recs, i);
        const char *k = kind_of(r);
        json_int_t c = json_integer_value(json_object_get(seen, k));
        if (i > 0 && c >= 2) continue;
        json_object_set_new(seen, k, json_integer(c + 1));
        json_t *d = json_deep_copy(r);
        cut_arrays(d, 4);
        json_array_append_new(small, d);
    }
    const char *jl = tmp_path("small.jsonl"), *bin = tmp_path("small.bin");
    write_jsonl(jl, small, 0, NULL, 0);
    json_decref(small);
    json_decref(seen);
    if (!encode(x, jl, bin)) {
        fail("%s: claims: cannot encode the small file (%s)", x->name, jl);
        return;
    }
    size_t n = 0;
    uint8_t *p = slurp(bin, &n);
    if (!p) {
        fail("%s: claims: cannot read %s", x->name, bin);
        return;
    }
    if (n > 4096) fail("%s: claims: the small file has %zu bytes (expected about 1 KB)", x->name, n);
    pcd_status st;
    size_t base_peak;
    double secs;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 30);
    pcd_reader_keep keep = { NULL, NULL };
    decode_budget(&al, &keep, x->f, p, n, -1, &st, &base_peak, &secs);
    /* a decompression context and window may come with a flag, not with a count */
    size_t budget = base_peak + 64 * (n + 16) + ((size_t)1 << 20);
    /* and a compression context with a first sample, where the clean file has none whole: the
     * Tachyon output's zstd stream (the schema's level 5) */
    const pcd_ext *ext = pcd_ext_find(x->f->name);
    if (ext && pcd_can_convert(ext, "tachyon")) budget += ZSTD_estimateCStreamSize(5);
    uint8_t *q = malloc(n + 16);
    const char *mut = tmp_path("claim.bin");
    const char *cmds[MAX_CMDS][12];
    int ncmd = commands(x, mut, "64M", cmds);
    /* about 48 CLI runs per format (24 under sanitizers; half of that sized for CI), spread over
     * the positions */
    size_t cli_runs = (SANITIZED ? 24 : 48) / (g_long ? 1 : 2);
    size_t cli_every = n * 7 / cli_runs + 1, cases = 0;
    static const char *what[] = { "u32 le 2^32-1", "u32 be 2^32-1", "u64 le 2^32", "u64 be 2^32", "uleb 2^32",
                                  "u32 le 2^28-1", "u32 be 2^28-1" };
    /* what each command needs on the clean file: a claim may add 16 MB at most */
    long base_rss[MAX_CMDS];
    spit(mut, p, n);
    for (int c = 0; c < ncmd; c++) {
        runres r;
        run(cmds[c], NULL, NULL, 60, &r);
        base_rss[c] = r.rss_kb;
    }
    for (size_t pos = 0; pos < n; pos++) {
        for (int m = 0; m < 7; m++) {
            size_t len = n;
            memcpy(q, p, n);
            switch (m) {
            case 1:
                /* 2^32-1 is the same four bytes in either order: read once, as case 0 */
                continue;
            case 0:
                if (pos + 4 > n) continue;
                memset(q + pos, 0xFF, 4);
                break;
            case 5: case 6:
                if (pos + 4 > n) continue;
                memset(q + pos, 0xFF, 4);
                q[pos + (m == 5 ? 3 : 0)] = 0x0F;
                break;
            case 2: case 3:
                if (pos + 8 > n) continue;
                memset(q + pos, 0, 8);
                q[pos + (m == 2 ? 4 : 3)] = 1;
                break;
            default: {
                static const uint8_t uleb[5] = { 0x80, 0x80, 0x80, 0x80, 0x10 };
                /* replaces the byte at pos (a one-byte varint, usually) */
                memmove(q + pos + 5, p + pos + 1, n - pos - 1);
                memcpy(q + pos, uleb, 5);
                len = n + 4;
            }
            }
            size_t peak;
            /* sized for CI, the converters take turns: each still reads every kind of claim */
            decode_budget(&al, &keep, x->f, q, len, g_long ? -1 : (long)cases, &st, &peak, &secs);
            cases++;
            if (st == PCD_E_NOMEM)
                fail("%s: %s at %zu: the reader ran out of memory instead of refusing the claim", x->name, what[m], pos);
            if (peak > budget)
                fail("%s: %s at %zu: the reader used %zu bytes (the clean file %zu; budget %zu)", x->name, what[m],
                     pos, peak, base_peak, budget);
            if (secs > (SANITIZED ? 2.0 : 0.5))
                fail("%s: %s at %zu: the reader took %.3f s on %zu bytes", x->name, what[m], pos, secs, len);
            if (cases % cli_every == 0) {
                spit(mut, q, len);
                size_t ci = (cases / cli_every) % (size_t)ncmd;
                const char *const *c = cmds[ci];
                runres r;
                run(c, NULL, NULL, 60, &r);
                g_claim_cli++;
                char nm[128];
                cmd_name(c, nm, sizeof nm);
                if (r.code != 0 && r.code != 1)
                    fail("%s: %s at %zu: `%s` exited %d: %.300s", x->name, what[m], pos, nm, r.code, r.err);
                if (strstr(r.err, "max-memory") || strstr(r.err, "out of memory") || strstr(r.err, "NOMEM"))
                    fail("%s: %s at %zu: `%s` hit the memory limit: %.300s", x->name, what[m], pos, nm, r.err);
                if (r.cpu > (SANITIZED ? 10.0 : 2.0))
                    fail("%s: %s at %zu: `%s` took %.2f s of CPU on %zu bytes", x->name, what[m], pos, nm, r.cpu, len);
                if (r.rss_kb > base_rss[ci] + 16 * 1024)
                    fail("%s: %s at %zu: `%s` peaked at %ld KB on %zu bytes (%ld KB on the clean file)", x->name,
                         what[m], pos, nm, r.rss_kb, len, base_rss[ci]);
            }
        }
    }
    pcd_reader_keep_free(&keep);
    if (al.in_use != 0) fail("%s: claims: %zu bytes not freed at the end", x->name, al.in_use);
    g_claim_cases += cases;
    printf("%-8s claims: %zu-byte file, %zu mutated inputs read in process (clean peak %zu B, budget %zu B)\n",
           x->name, n, cases, base_peak, budget);
    free(q);
    free(p);
}

/* -- linear time -- */

static json_t *pick_tiny(fmt_ctx *x, size_t *at)
{
    json_t *counts = json_object();
    const char *best_kind = NULL;
    json_int_t best_n = 0;
    for (size_t i = 1; i < json_array_size(x->recs); i++) {
        const char *k = kind_of(json_array_get(x->recs, i));
        json_int_t c = json_integer_value(json_object_get(counts, k)) + 1;
        json_object_set_new(counts, k, json_integer(c));
        if (c > best_n) best_n = c, best_kind = k;
    }
    json_t *best = NULL;
    size_t best_len = 0;
    for (size_t i = 1; best_kind && i < json_array_size(x->recs); i++) {
        json_t *r = json_array_get(x->recs, i);
        if (strcmp(kind_of(r), best_kind) != 0) continue;
        size_t l = json_len(r);
        if (!best || l < best_len) best = r, best_len = l, *at = i;
    }
    json_decref(counts);
    return best ? json_deep_copy(best) : NULL;
}

/* The record with the longest array, preferring the format's most frequent kind (a sample's
 * stack, an allocation's backtrace) when its records have arrays. */
static json_t *pick_deep(fmt_ctx *x, const char *prefer, size_t *at, json_t **arr)
{
    json_t *best = NULL, *ba = NULL;
    for (int pass = 0; pass < 2 && !best; pass++) {
        for (size_t i = 1; i < json_array_size(x->recs); i++) {
            json_t *r = json_array_get(x->recs, i);
            if (pass == 0 && (!prefer || strcmp(kind_of(r), prefer) != 0)) continue;
            json_t *a = longest_array(r, NULL);
            if (a && json_array_size(a) >= 2 && (!ba || json_array_size(a) > json_array_size(ba)))
                best = r, ba = a, *at = i;
        }
    }
    if (!best) return NULL;
    json_t *c = json_deep_copy(best);
    *arr = longest_array(c, NULL);
    return c;
}

/* Every integer leaf (and decimal or 0x string leaf) of rec, raised to the largest value
 * the encoder takes, one at a time. */
static int g_leaves;

static void maximise(fmt_ctx *x, json_t *rec, json_t *v, size_t at)
{
    static const char *ints[] = { "9223372036854775807", "4294967295", "2147483647", "65535", "32767", "255", "127" };
    static const char *strs[] = { "18446744073709551615", "0xffffffffffffffff", "9223372036854775807", "4294967295",
                                  "0xffffffff", "65535", "0xffff" };
    if (json_is_object(v)) {
        const char *k;
        json_t *c;
        void *tmp;
        json_object_foreach_safe(v, tmp, k, c) {
            if (k[0] == '_' || g_leaves >= 8) continue;
            if (json_is_integer(c) || (json_is_string(c) && strspn(json_string_value(c), "0123456789x") ==
                                                              strlen(json_string_value(c)) && json_string_length(c) > 0)) {
                g_leaves++;
                bool is_int = json_is_integer(c);
                json_t *old = json_incref(c);
                bool hex = !is_int && strncmp(json_string_value(c), "0x", 2) == 0;
                bool done = false;
                for (int i = 0; i < 7 && !done; i++) {
                    const char *cand = is_int ? ints[i] : strs[i];
                    if (!is_int && (strncmp(cand, "0x", 2) == 0) != hex) continue;
                    json_object_set_new(v, k, is_int ? json_integer(strtoll(cand, NULL, 10)) : json_string(cand));
                    const char *jl = tmp_path("max.jsonl"), *bin = tmp_path("max.bin");
                    write_jsonl(jl, x->recs, at, rec, 1);
                    done = encode(x, jl, bin);
                }
                if (!done) json_object_set(v, k, old);
                json_decref(old);
            } else {
                maximise(x, rec, c, at);
            }
        }
    } else if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v) && i < 2; i++) maximise(x, rec, json_array_get(v, i), at);
    }
}

/* Sized for CI (not PCD_TEST_LONG), the converters take turns over the kinds of input: kind
 * number `turn` times validate, info, dump and every third converter from `turn` on, so that the
 * three kinds together time every converter once. */
static double g_start; /* CPU time of validate on the format's seed alone: a run's start-up */
static const char *g_start_cmd[12];

/* 40x the smaller input's CPU time above the start-up, plus the start-up and slack for noise */
static double allowed_for(double small_cpu)
{
    return g_start + 2.5 * 16 * (small_cpu > g_start ? small_cpu - g_start : 0) + 0.3 + 0.5 * g_start;
}

static double least_cpu(const char **cmd, int n, double have)
{
    for (int k = 0; k < n; k++) {
        runres r;
        run(cmd, NULL, NULL, 300, &r);
        if (r.cpu < have) have = r.cpu;
    }
    return have;
}

static void timed_pair(fmt_ctx *x, const char *kind, const char *small, const char *big, int turn)
{
    const char *c1[MAX_CMDS][12], *c2[MAX_CMDS][12];
    int n = commands(x, small, "1G", c1);
    commands(x, big, "1G", c2);
    size_t s1 = file_size(small), s2 = file_size(big);
    for (int i = 0; i < n; i++) {
        if (!g_long && i >= 3 && (i - 3 >= CI_CONVS || (i - 3) % 3 != turn % 3)) continue;
        if (i >= 3) x->reached[i - 3] = true;
        runres a, b;
        char nm[128];
        cmd_name(c1[i], nm, sizeof nm);
        run(c1[i], NULL, NULL, 120, &a);
        run(c2[i], NULL, NULL, 300, &b);
        /* the larger input holds 16 times the copies (compressed formats grow less) */
        double allowed = allowed_for(a.cpu);
        if (g_verbose)
            printf("  %-8s %-6s %-22s %8zu B %.4f s (exit %d)  %9zu B %.4f s (exit %d)  x%.1f above start-up %.4f s "
                   "(allowed %.4f s)\n", x->name, kind, nm, s1, a.cpu, a.code, s2, b.cpu, b.code,
                   a.cpu > g_start ? (b.cpu - g_start) / (a.cpu - g_start) : 0, g_start, allowed);
        if (a.code > 1 || b.code > 1)
            fail("%s %s: `%s` exited %d / %d: %.300s%.300s", x->name, kind, nm, a.code, b.code, a.err, b.err);
        if (b.cpu > allowed) {
            /* again, to rule out a hiccup of the machine: the least of more runs (noise only adds) */
            if (g_start_cmd[0]) g_start = least_cpu(g_start_cmd, 1, g_start);
            a.cpu = least_cpu(c1[i], 2, a.cpu);
            b.cpu = least_cpu(c2[i], 1, b.cpu);
            allowed = allowed_for(a.cpu);
            if (b.cpu > allowed)
                fail("%s %s: `%s` is not linear: %zu bytes in %.4f s of CPU, %zu bytes (16x the copies) in %.4f s "
                     "(allowed %.4f s; start-up %.4f s)", x->name, kind, nm, s1, a.cpu, s2, b.cpu, allowed, g_start);
        }
    }
}

/* Sized for CI (not PCD_TEST_LONG), the larger input holds at most this many copies of the record
 * (tiny and maxint; deep's arrays keep their length, whose runs stay near the start-up under ASan
 * in MoarVM's, so that fewer items would leave a quadratic command under the allowance): a format
 * that compresses (MoarVM's zstd columns: a 1-byte unit) reached the target
 * size only with 786,432 copies, whose encode (in this process, through JSON Lines) and runs under
 * ASan were most of hostile_moarvm's time; 196,608 still make the smaller input's runs (12,288)
 * take several times the start-up, so that a quadratic command (256x) is still far over the 40x
 * allowed. */
static size_t copies(size_t want)
{
    size_t cap = SANITIZED ? 196608 : 1048576;
    return g_long || want <= cap ? want : cap;
}

/* Builds `kind` at two sizes from rec (inserted after record at) and times every command. */
static bool build_pair(fmt_ctx *x, const char *kind, json_t *rec, size_t at, json_t *arr, size_t target, int turn)
{
    char n1[64], n2[64], j1[64], j2[64];
    snprintf(n1, sizeof n1, "%s-%s-1.bin", x->name, kind);
    snprintf(n2, sizeof n2, "%s-%s-16.bin", x->name, kind);
    snprintf(j1, sizeof j1, "%s-%s.jsonl", x->name, kind);
    snprintf(j2, sizeof j2, "%s-%s-probe.bin", x->name, kind);
    const char *p1 = tmp_path(n1), *p2 = tmp_path(n2), *jl = tmp_path(j1), *probe = tmp_path(j2);
    /* measure what one copy costs */
    size_t base, one;
    write_jsonl(jl, x->recs, at, NULL, 0);
    if (!encode(x, jl, probe)) return false;
    base = file_size(probe);
    size_t unit = 0;
    if (arr) {
        size_t m0 = json_array_size(arr);
        stretch(arr, m0 + 64);
        write_jsonl(jl, x->recs, at, rec, 1);
        if (!encode(x, jl, probe)) return false;
        one = file_size(probe);
        shrink(arr, m0);
        write_jsonl(jl, x->recs, at, rec, 1);
        if (!encode(x, jl, probe)) return false;
        unit = (one - file_size(probe)) / 64;
        if (unit == 0) unit = 1;
        /* sixteen records with a long array each; the larger file's arrays are 16 times as
         * long (halved until the format's own element limit takes them) */
        size_t d2 = 16 * target / 16 / unit;
        for (;;) {
            shrink(arr, m0);
            stretch(arr, d2);
            write_jsonl(jl, x->recs, at, rec, 16);
            if (encode(x, jl, p2)) break;
            if (d2 < 1024) return false;
            d2 /= 2;
        }
        shrink(arr, m0);
        stretch(arr, d2 / 16);
        write_jsonl(jl, x->recs, at, rec, 16);
        if (!encode(x, jl, p1)) return false;
    } else {
        write_jsonl(jl, x->recs, at, rec, 100);
        if (!encode(x, jl, probe)) return false;
        one = file_size(probe);
        unit = one > base ? (one - base) / 100 : 1;
        if (unit == 0) unit = 1;
        size_t big = copies(16 * (target / unit));
        write_jsonl(jl, x->recs, at, rec, big / 16);
        if (!encode(x, jl, p1)) return false;
        write_jsonl(jl, x->recs, at, rec, big);
        if (!encode(x, jl, p2)) return false;
    }
    printf("%-8s %-6s %s records, %zu-byte unit: %zu and %zu bytes\n", x->name, kind, kind_of(rec), unit, file_size(p1),
           file_size(p2));
    timed_pair(x, kind, p1, p2, turn);
    remove(jl);
    remove(probe);
    remove(p1);
    remove(p2);
    return true;
}

static void linear(fmt_ctx *x)
{
    size_t target = (SANITIZED ? (size_t)96 << 10 : (size_t)512 << 10) / (g_long ? 1 : 2);
    int built = 0;
    size_t at = 0;
    /* the start-up: validate of the seed's records alone, the least of two runs */
    const char *bj = tmp_path("start.jsonl"), *bb = tmp_path("start.bin");
    g_start = 0;
    g_start_cmd[0] = NULL;
    write_jsonl(bj, x->recs, 0, NULL, 0);
    if (encode(x, bj, bb)) {
        static const char *c0[MAX_CMDS][12];
        commands(x, bb, "1G", c0);
        memcpy(g_start_cmd, c0[0], sizeof g_start_cmd);
        g_start = least_cpu(g_start_cmd, 2, 1e9);
        printf("%-8s start-up (validate of the seed): %.4f s of CPU\n", x->name, g_start);
    }
    json_t *tiny = pick_tiny(x, &at);
    char kind[64] = "";
    if (tiny) snprintf(kind, sizeof kind, "%s", kind_of(tiny));
    if (tiny && build_pair(x, "tiny", tiny, at, NULL, target, 0)) built++;
    else printf("%-8s tiny: not buildable\n", x->name);
    if (tiny) {
        g_leaves = 0;
        maximise(x, tiny, tiny, at);
        if (build_pair(x, "maxint", tiny, at, NULL, target, 1)) built++;
        else printf("%-8s maxint: not buildable\n", x->name);
        json_decref(tiny);
    }
    json_t *arr = NULL;
    json_t *deep = pick_deep(x, kind, &at, &arr);
    if (deep && build_pair(x, "deep", deep, at, arr, target, 2)) built++;
    else printf("%-8s deep: no record with an array that encodes\n", x->name);
    json_decref(deep);
    if (built < 2) fail("%s: only %d of the adversarial inputs could be built", x->name, built);
    remove(bj);
    remove(bb);
}


/* -- live pipes -- */

static size_t split_lines(char *buf, size_t n, char **lines, size_t max)
{
    size_t k = 0;
    char *s = buf;
    for (size_t i = 0; i < n && k < max; i++)
        if (buf[i] == '\n') {
            buf[i] = 0;
            lines[k++] = s;
            s = buf + i + 1;
        }
    return k;
}

/* `convert --to T -` fed in two halves with a pause between them gives what it gives on the file. */
static void live_convert(fmt_ctx *x, const char *to)
{
    /* (--to table is a directory, renamed into place at the end: its rows are --to ndjson's
     * rows' parts, which stream and are checked here) */
    if (strcmp(to, "table") == 0) return;
    const char *want = tmp_path("live-conv-file.txt"), *got = tmp_path("live-conv-pipe.txt");
    /* the reference reads the file as stdin, so that names in the output ("-") agree */
    const char *args[] = { PCD_CLI, "-q", "convert", "--to", to, "-", "-o", want, NULL };
    runres rr;
    run(args, x->seed, NULL, 120, &rr);
    if (rr.code > 1) {
        fail("%s: live convert --to %s of the file failed", x->name, to);
        return;
    }
    size_t n = 0;
    uint8_t *p = slurp(x->seed, &n);
    int in[2];
    if (!p || pipe(in)) {
        free(p);
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        close(in[1]);
        int dn = open("/dev/null", O_WRONLY);
        dup2(dn, 2);
        alarm(120);
        execl(PCD_CLI, PCD_CLI, "-q", "convert", "--to", to, "-", "-o", got, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    size_t half = n / 2;
    bool ok = write(in[1], p, half) == (ssize_t)half;
    usleep(200000);
    ok = ok && write(in[1], p + half, n - half) == (ssize_t)(n - half);
    close(in[1]);
    int st;
    waitpid(pid, &st, 0);
    size_t a = 0, b = 0;
    uint8_t *pa = slurp(want, &a), *pb = slurp(got, &b);
    if (!ok || !pa || !pb || a != b || memcmp(pa, pb, a) != 0)
        fail("%s: convert --to %s - through a pipe written in two halves differs from the file's (%zu vs %zu bytes)",
             x->name, to, b, a);
    else
        printf("%-8s live: convert --to %s - through a pipe written in two halves: %zu bytes, as from the file\n",
               x->name, to, b);
    free(pa);
    free(pb);
    free(p);
}

/* The seed written into a pipe a few bytes at a time (a writer that flushes tiny pieces):
 * `dump -` gives what it gives on the file, without decoding a big record again after every
 * piece (the time bound). */
static void live_dribble(fmt_ctx *x, const char *clean_path)
{
    size_t n = 0;
    uint8_t *p = slurp(x->seed, &n);
    const char *outp = tmp_path("dribble.jsonl");
    int in[2];
    if (!p || pipe(in)) {
        free(p);
        return;
    }
    double t0 = now();
    pid_t cl = fork();
    if (cl == 0) {
        dup2(in[0], 0);
        close(in[1]);
        int fo = open(outp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fo, 1);
        alarm(120);
        execl(PCD_CLI, PCD_CLI, "-q", "dump", "-", (char *)NULL);
        _exit(127);
    }
    pid_t fe = fork();
    if (fe == 0) {
        close(in[0]);
        for (size_t i = 0; i < n; i += 3) {
            size_t k = n - i < 3 ? n - i : 3;
            if (write(in[1], p + i, k) != (ssize_t)k) _exit(1);
        }
        _exit(0);
    }
    close(in[0]);
    close(in[1]);
    int st1, st2;
    waitpid(fe, &st2, 0);
    waitpid(cl, &st1, 0);
    double secs = now() - t0;
    size_t a = 0, b = 0;
    uint8_t *pa = slurp(clean_path, &a), *pb = slurp(outp, &b);
    if (!pa || !pb || a != b || memcmp(pa, pb, a) != 0)
        fail("%s: dump - of a pipe written 3 bytes at a time differs from the file's dump", x->name);
    else if (secs > (SANITIZED ? 30.0 : 5.0))
        fail("%s: dump - of a pipe written 3 bytes at a time took %.2f s for %zu bytes", x->name, secs, n);
    else
        printf("%-8s live: a pipe written 3 bytes at a time: %zu bytes in %.2f s, as from the file\n", x->name, n,
               secs);
    free(pa);
    free(pb);
    free(p);
}

/* Feeds the seed through a pipe in two halves to `dump -`: the records of the first half must
 * come out while the writer still holds the pipe open, and the whole output must equal the
 * dump of the file. */
static void live(fmt_ctx *x)
{
    if (!(x->f->flags & PCD_FMT_STREAMABLE)) return;
    const char *jl = tmp_path("live.jsonl");
    if (cli_here("dump", x->seed, "-o", jl, NULL, NULL) != 0) {
        fail("%s: live: cannot dump the seed", x->name);
        return;
    }
    size_t cn = 0, n = 0;
    char *clean = (char *)slurp(jl, &cn);
    uint8_t *p = slurp(x->seed, &n);
    if (!clean || !p) {
        fail("%s: live: cannot read the seed", x->name);
        free(clean);
        free(p);
        return;
    }
    size_t maxl = json_array_size(x->recs) + 16;
    char **cl = calloc(maxl, sizeof *cl);
    size_t ncl = split_lines(clean, cn, cl, maxl);
    /* cut at the start of the middle record: records that end before it are complete */
    size_t mid = ncl / 2, cut = 0, complete = 0;
    json_t *m = json_loads(cl[mid], 0, NULL);
    if (m) cut = (size_t)json_integer_value(json_object_get(m, "_offset"));
    json_decref(m);
    for (size_t i = 1; i < ncl; i++) {
        json_t *r = json_loads(cl[i], 0, NULL);
        json_t *o = r ? json_object_get(r, "_offset") : NULL;
        if (o && (size_t)json_integer_value(o) < cut) complete = i; /* record i ends by the cut */
        json_decref(r);
    }
    if (cut == 0 || cut >= n || complete < 2) {
        fail("%s: live: no cut point in the seed", x->name);
        goto out;
    }
    int in[2], outp[2];
    if (pipe(in) || pipe(outp)) {
        fail("%s: live: pipe", x->name);
        goto out;
    }
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(outp[1], 1);
        int dn = open("/dev/null", O_WRONLY);
        dup2(dn, 2);
        close(in[1]);
        close(outp[0]);
        alarm(120);
        execl(PCD_CLI, PCD_CLI, "-q", "dump", "-", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(outp[1]);
    size_t cap = cn + 4096, got = 0;
    char *buf = malloc(cap + 1);
    size_t lines = 0, sent = 0, early = 0;
    size_t want = complete + 1; /* the file line, then records 1..complete */
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    /* phase 1: the bytes before the cut, reading the output as it comes, until the first
     * half's records are out (10 s at most) while the pipe stays open; phase 2: the rest */
    double t0 = now();
    bool phase2 = false, closed = false;
    for (;;) {
        size_t limit = phase2 ? n : cut;
        if (!phase2 && sent == cut && (lines >= want || now() - t0 > 10.0)) {
            early = lines;
            phase2 = true;
            continue;
        }
        if (phase2 && sent == n && !closed) {
            close(in[1]);
            closed = true;
        }
        fd_set rs, ws;
        FD_ZERO(&rs);
        FD_ZERO(&ws);
        FD_SET(outp[0], &rs);
        if (!closed && sent < limit) FD_SET(in[1], &ws);
        struct timeval tv = { 0, 100000 };
        int k = select((outp[0] > in[1] ? outp[0] : in[1]) + 1, &rs, closed ? NULL : &ws, NULL, &tv);
        if (k < 0 && errno != EINTR) break;
        if (k <= 0) {
            if (now() - t0 > 100.0) break;
            continue;
        }
        if (!closed && FD_ISSET(in[1], &ws)) {
            ssize_t w = write(in[1], p + sent, limit - sent);
            if (w > 0) sent += (size_t)w;
        }
        if (FD_ISSET(outp[0], &rs)) {
            if (got == cap) {
                cap *= 2;
                buf = realloc(buf, cap + 1);
            }
            ssize_t r = read(outp[0], buf + got, cap - got);
            if (r <= 0) break; /* EOF: the dump is done */
            for (ssize_t i = 0; i < r; i++) lines += buf[got + (size_t)i] == '\n';
            got += (size_t)r;
        }
    }
    if (!closed) close(in[1]);
    close(outp[0]);
    int st;
    waitpid(pid, &st, 0);
    printf("%-8s live: %zu of %zu lines out while the pipe held the first %zu bytes (the file line and %zu records)\n",
           x->name, early, ncl, cut, complete);
    if (early < want)
        fail("%s: live: `dump -` gave %zu lines while the pipe held the first %zu bytes (%zu records start there)",
             x->name, early, cut, complete);
    buf[got] = 0;
    /* (clean's newlines were cut into NULs; compare line by line) */
    char **gl = calloc(maxl, sizeof *gl);
    size_t ngl = split_lines(buf, got, gl, maxl);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) fail("%s: live: `dump -` exited %d", x->name, st);
    if (ngl != ncl) fail("%s: live: %zu lines through the pipe, %zu from the file", x->name, ngl, ncl);
    for (size_t i = 0; i < ngl && i < ncl; i++)
        if (strcmp(gl[i], cl[i]) != 0) {
            fail("%s: live: line %zu differs from the file's dump", x->name, i + 1);
            break;
        }
    free(gl);
    free(buf);
    /* (sized for CI, a format with more than CI_CONVS converters: those linear time did not time) */
    for (int c = 0; c < x->n_convs; c++) {
        if (!g_long && x->n_convs > CI_CONVS && x->reached[c]) continue;
        live_convert(x, x->convs[c]);
        x->reached[c] |= strcmp(x->convs[c], "table") != 0; /* (live_convert leaves table out) */
    }
    live_dribble(x, jl);
out:
    free(cl);
    free(clean);
    free(p);
}

/* The seed converted to every converter that neither the live pipes nor linear time ran (sized
 * for CI): every output runs through the CLI under the sanitizers. */
static void convert_rest(fmt_ctx *x)
{
    int n = 0;
    for (int c = 0; c < x->n_convs; c++) {
        if (x->reached[c]) continue;
        const char *args[] = { PCD_CLI, "-q", "convert", "--to", x->convs[c], x->seed, "-o", "/dev/null", NULL };
        runres r;
        run(args, NULL, NULL, 120, &r);
        n++;
        if (r.code != 0 && r.code != 1)
            fail("%s: convert --to %s of the seed exited %d: %.300s", x->name, x->convs[c], r.code, r.err);
    }
    printf("%-8s %d converters through the CLI: %d by the live pipes or linear time, the seed converted to the other %d\n",
           x->name, x->n_convs, x->n_convs - n, n);
}

/* ---- main ------------------------------------------------------------------------------- */

/* CPU time (user + system) of this process and of the commands it ran, so far: each part's cost
 * is printed (make test's budget is CPU time) */
static double all_cpu(void)
{
    double t = 0;
    const int who[2] = { RUSAGE_SELF, RUSAGE_CHILDREN };
    for (int i = 0; i < 2; i++) {
        struct rusage ru;
        if (getrusage(who[i], &ru) != 0) continue;
        t += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
             (double)ru.ru_stime.tv_usec / 1e6;
    }
    return t;
}

static const char *seed_for(const char *name)
{
    static char buf[512];
    static const char *seeds[][2] = {
        { "heph", PCD_TESTDATA "/heph/scalar_attributes.bin.log" },
        { "mojo", PCD_TESTDATA "/mojo/v3_basic.mojo" },
        { "mono", PCD_CORPUS "/mono/alloc.mlpd" },
        { "mono", PCD_TESTDATA "/mono/sample.mlpd" },
        { "tachyon", PCD_TESTDATA "/tachyon/threads_gil_none.bin" },
        /* (14 KB with three snapshots: the linear-time inputs grow from it, not from a 640 KB
         * heap, and its claims reach the statistics of a second and third snapshot) */
        { "moarvm", PCD_TESTDATA "/moarvm/synthetic-three.mvmheap" },
        { "moarvm", PCD_CORPUS "/moarvm/nqp-killed.mvmheap" },
        { "pprof", PCD_TESTDATA "/pprof/labels.cpu.pprof" },
        { "perfetto", PCD_TESTDATA "/perfetto/heph_scalar_attributes.pftrace" },
    };
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        if (strcmp(seeds[i][0], name) == 0) {
            snprintf(buf, sizeof buf, "%s", seeds[i][1]);
            if (access(buf, R_OK) == 0) return buf;
        }
    return NULL;
}

int main(int argc, char **argv)
{
    g_verbose = getenv("PCD_HOSTILE_VERBOSE") != NULL;
    g_long = getenv("PCD_TEST_LONG") && strcmp(getenv("PCD_TEST_LONG"), "0") != 0;
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGPIPE, SIG_IGN);
    g_devnull = fopen("/dev/null", "w");
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only) g_tag = only;
    int formats = 0;
    const char *done[16];
    int ndone = 0;
    for (size_t i = 0; pcd_formats[i]; i++) {
        const pcd_format *f = pcd_formats[i];
        bool again = false;
        for (int k = 0; k < ndone; k++) again |= strcmp(done[k], f->name) == 0;
        if (again || (only && strcmp(only, f->name) != 0)) continue;
        done[ndone++] = f->name;
        fmt_ctx x;
        memset(&x, 0, sizeof x);
        x.name = f->name;
        x.seed = seed_for(f->name);
        if (!x.seed) {
            fail("%s: no seed file (tests/data or the shared corpus)", f->name);
            continue;
        }
        const char *jl = tmp_path("seed.jsonl");
        if (cli_here("dump", x.seed, "-o", jl, NULL, NULL) != 0 || !(x.recs = load_jsonl(jl))) {
            fail("%s: cannot dump %s", f->name, x.seed);
            continue;
        }
        drop_layouts(x.recs);
        json_t *h = json_array_get(x.recs, 0);
        const char *ver = json_string_value(json_object_get(h, "_version"));
        x.f = pcd_format_find(f->name, ver);
        snprintf(x.spec, sizeof x.spec, "%s:%s", f->name, ver ? ver : "");
        if (!x.f) {
            fail("%s: version %s of the seed is unknown", f->name, ver ? ver : "?");
            continue;
        }
        /* converter targets, from `profcodec formats` */
        const char *fl = tmp_path("formats.txt");
        const char *args[] = { PCD_CLI, "formats", NULL };
        runres r;
        run(args, NULL, fl, 30, &r);
        FILE *ff = fopen(fl, "r");
        char line[512];
        while (ff && fgets(line, sizeof line, ff)) {
            char nm[32], vv[32];
            if (sscanf(line, "%31s %31s", nm, vv) != 2 || strcmp(nm, f->name) || strcmp(vv, ver ? ver : "")) continue;
            char *t = strstr(line, "convert to:");
            if (!t) continue;
            for (char *tok = strtok(t + 11, " \n"); tok; tok = strtok(NULL, " \n")) {
                if (x.n_convs == MAX_CONVS) {
                    fail("%s: more than %d converters: raise MAX_CONVS", f->name, MAX_CONVS);
                    break;
                }
                snprintf(x.convs[x.n_convs++], 32, "%s", tok);
            }
        }
        if (ff) fclose(ff);
        formats++;
        /* (the live pipes after linear time: sized for CI, they take what it did not time) */
        double t0 = all_cpu();
        claims(&x);
        double t1 = all_cpu();
        linear(&x);
        double t2 = all_cpu();
        live(&x);
        convert_rest(&x);
        printf("%-8s CPU time (with the commands run): claims %.1f s, linear time %.1f s, live and the rest %.1f s\n",
               x.name, t1 - t0, t2 - t1, all_cpu() - t2);
        json_decref(x.recs);
    }
    printf("hostile: %d formats, %zu claim inputs in process, %zu through the CLI, %d failures%s%s\n", formats,
           g_claim_cases, g_claim_cli, g_failures, SANITIZED ? " (sanitizer build)" : "",
           g_long ? " (the full sweep)" : " (sized for CI; PCD_TEST_LONG=1: the full sweep)");
    return g_failures || formats == 0 ? 1 : 0;
}
