/* common.c: format detection, opening inputs, progress and error reporting for the CLI. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common/json_mem.h"
#include "io/gzin.h"
#include "io/zstdin.h"
#include "formats/detect.h"

void cli_init(cli *c)
{
    memset(c, 0, sizeof *c);
    c->max_memory = (size_t)2 << 30;
    c->threads = 2;
    c->tty = isatty(2);
}

void cli_start(cli *c)
{
    pcd_alloc_init(&c->al, pcd_alloc_libc, NULL, c->max_memory);
    pcd_json_mem_install(); /* the process is the tool's: jansson's memory goes through scopes */
}

void *cli_alloc(cli *c, size_t n) { return pcd_alloc_sized(&c->al, n); }

void *cli_zalloc(cli *c, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = pcd_alloc_sized(&c->al, n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void cli_free(cli *c, void *p) { pcd_alloc_sized_free(&c->al, p); }

/* The process's tool, for its signal handler (signals take no argument). */
static cli *signal_cli;

static void on_fatal_signal(int sig)
{
    if (signal_cli) pcd_output_pending_unlink(&signal_cli->pending);
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_cleanup_on_signals(cli *c)
{
    signal_cli = c;
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXFSZ };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        /* an ignored signal (nohup) stays ignored */
        struct sigaction old;
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN) continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

void cli_end(cli *c)
{
    /* the handlers stay (a signal now ends the process as it would have); they no longer point
     * at c, which dies with the caller's frame */
    if (signal_cli == c) signal_cli = NULL;
    /* jansson's memory needs nothing here: its scopes (common/json_mem.h) end with the calls
     * that entered them */
    /* getopt: a command that returned in the middle of an option cluster ("-hx") left getopt
     * pointing into this run's argv; optind = 0 makes glibc's getopt start afresh (its next
     * chars forgotten), and an empty parse leaves it so for the next run's optind = 1 */
    static char prog[] = "profcodec";
    char *none[] = { prog, NULL };
    int err = opterr;
    opterr = 0;
    optind = 0;
    (void)getopt(1, none, "");
    optind = 1;
    opterr = err;
}

bool cli_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || errno) return false;
    unsigned long long mul = 1;
    switch (*end) {
    case 0: break;
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    case 't': case 'T': mul = 1ull << 40; end++; break;
    default: return false;
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end || (mul > 1 && v > ~0ull / mul)) return false;
    *out = (size_t)(v * mul);
    return true;
}

const pcd_format *cli_find_format(const char *spec)
{
    char name[64];
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n >= sizeof name) return NULL;
    memcpy(name, spec, n);
    name[n] = 0;
    return pcd_format_find(name, colon ? colon + 1 : NULL);
}

/* An error on a gzip input. When the gzip layer itself stopped (the reader only saw that its
 * input could not be read), the gzip layer's own error is the report, with where it stopped in
 * the compressed file; after any other error, a note that offsets are in the decompressed data. */
static bool zstd_note(FILE *err, const char *file, const pcd_error *e, const cli_src *src, bool after)
{
    if (src->zs->error && e->status == PCD_E_IO) {
        if (!after)
            fprintf(err, "%s: zstd: %s at byte %llu of the compressed file (after %llu bytes decompressed)\n", file,
                    src->zs->error, (unsigned long long)src->zs->in_total, (unsigned long long)src->zs->out_total);
        return true;
    }
    if (after) fprintf(err, "%s: (a zstd file: the offset is in the decompressed data)\n", file);
    return false;
}

static bool gzip_note(FILE *err, const char *file, const pcd_error *e, const cli_src *src, bool after)
{
    if (src && src->zs) return zstd_note(err, file, e, src, after);
    if (!src || !src->gz) return false;
    if (src->gz->error && e->status == PCD_E_IO) {
        if (!after)
            fprintf(err, "%s: gzip: %s at byte %llu of the compressed file (after %llu bytes decompressed)\n", file,
                    src->gz->error, (unsigned long long)src->gz->z.total_in, (unsigned long long)src->gz->out_total);
        return true;
    }
    if (after) fprintf(err, "%s: (a gzip file: the offset is in the decompressed data)\n", file);
    return false;
}

void cli_report_to(const cli *c, FILE *err, const char *file, const pcd_error *e)
{
    const cli_src *src = c ? c->report_src : NULL;
    if (gzip_note(err, file, e, src, false)) return;
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    fprintf(err, "%s: %s\n", file, msg);
    gzip_note(err, file, e, src, true);
}

void cli_report(const cli *c, const char *file, const pcd_error *e) { cli_report_to(c, stderr, file, e); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress(void *ud, uint64_t bytes)
{
    cli *c = ud;
    if (!c->tty || c->quiet) return;
    if ((++c->progress_tick & 1023) != 0) return;
    double t = now_s();
    if (t - c->last_progress < 0.25) return;
    c->last_progress = t;
    c->progress_shown = true;
    if (c->total)
        fprintf(stderr, "\rprofcodec: %.1f / %.1f MB (%.0f%%)   ", (double)bytes / 1e6, (double)c->total / 1e6,
                100.0 * (double)bytes / (double)c->total);
    else
        fprintf(stderr, "\rprofcodec: %.1f MB   ", (double)bytes / 1e6);
}

void cli_progress_done(cli *c)
{
    if (c->progress_shown) fprintf(stderr, "\r%60s\r", "");
    c->progress_shown = false;
}

static int open_input(cli *c, cli_src *src, const char *path, bool validate_only, pcd_spans *spans);

/* ---- text inputs (issue 25) ------------------------------------------------------------------ */

/* What `convert` reads, for a message about an input it cannot tell. */
static void say_readable(FILE *err)
{
    fputs(" (profcodec reads", err);
    for (size_t i = 0; i < pcd_n_formats; i++) {
        bool dup = false;
        for (size_t k = 0; k < i; k++) dup |= strcmp(pcd_formats[k]->name, pcd_formats[i]->name) == 0;
        if (!dup) fprintf(err, " %s,", pcd_formats[i]->name);
    }
    fputs(" and the text formats", err);
    for (size_t i = 0; pcd_text_formats[i]; i++) fprintf(err, "%s %s", i ? "," : "", pcd_text_formats[i]->name);
    fputs(", gzip- or zstd-compressed or not: see profcodec formats)", err);
}

/* The text of a detected input as a stream: its decompressor, or the input itself. */
static void text_stream(cli_src *src)
{
    if (src->zs) src->text_read = pcd_zstdin_read, src->text_read_ud = src->zs;
    else if (src->gz) src->text_read = pcd_gzin_read, src->text_read_ud = src->gz;
    else src->text_read = pcd_input_read, src->text_read_ud = &src->in;
}

/* A text input: named by --format, or told by its first 4 KiB when no schema format claims them.
 * Returns 1 when the input is for the schema formats, 0 when it is text (src->text set), or
 * minus an exit code. */
static int cli_open_text(cli *c, cli_src *src, const char *path, const uint8_t *head0, size_t n0, bool whole0)
{
    if (c->format) {
        src->text = pcd_text_find(c->format);
        text_stream(src);
        return 0;
    }
    pcd_detect_why why;
    const pcd_format *bf = pcd_detect(pcd_formats, pcd_n_formats, head0, n0, whole0, &why);
    /* a format with a magic, or one's damaged header: binary. A format told only by the structure
     * of its first bytes (protobuf: a line of 'x' decodes as varints) yields to a text format whose
     * rule the first 4 KiB meet (a protobuf's start has control bytes: it is never text) */
    if ((bf && !(bf->flags & PCD_FMT_NO_MAGIC)) || (!bf && !why.unknown)) return 1;
    uint8_t head[4096];
    size_t n;
    bool whole;
    if (src->zs) n = pcd_zstdin_peek(src->zs, head, sizeof head), whole = n < sizeof head;
    else if (src->gz) n = pcd_gzin_peek(src->gz, head, sizeof head), whole = n < sizeof head;
    else {
        n = pcd_input_peek(&src->in, head, sizeof head);
        whole = src->in.is_regular ? src->in.size <= n : n < sizeof head;
    }
    src->text = pcd_text_detect(head, n, whole);
    if (!src->text && bf && !pcd_text_is_text(head, n, whole)) return 1;
    if (!src->text && bf) {
        /* text that only a format without a magic took (a protobuf's start is never text) */
        snprintf(why.msg, sizeof why.msg, "cannot tell the format from its first bytes (text, but none of the text "
                 "formats' rules fits them, and a %s file does not start with text)", bf->name);
    }
    if (!src->text) {
        fprintf(stderr, "%s: %s", path, why.msg);
        say_readable(stderr);
        fputs("; name it with --format\n", stderr);
        return -EXIT_INVALID;
    }
    text_stream(src);
    return 0;
}

int cli_open(cli *c, cli_src *src, const char *path, bool validate_only)
{
    return open_input(c, src, path, validate_only, NULL);
}

int cli_open_explain(cli *c, cli_src *src, const char *path, pcd_spans *spans)
{
    return open_input(c, src, path, false, spans);
}

/* spans: explain: the whole input in memory (offsets in every record, bytes for the hex), read
 * by the explain decoders into spans. */
static int open_input(cli *c, cli_src *src, const char *path, bool validate_only, pcd_spans *spans)
{
    memset(src, 0, sizeof *src);
    if (pcd_input_open(&src->in, path, &c->al) != 0) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    src->opened = true;
    src->c = c;
    c->report_src = src;
    c->total = src->in.is_regular ? src->in.size : 0;
    const pcd_format *f = NULL;
    uint8_t head[512];
    size_t n, want = sizeof head;
    if (!src->in.is_regular) {
        /* a pipe may still be being written (austin -b ... | profcodec dump -): look at what
         * has come so far and stop as soon as its start names the format, rather than wait
         * for a full head */
        for (want = 16;; want *= 2) {
            n = pcd_input_peek(&src->in, head, want);
            if (n < want || want == sizeof head ||
                (c->format ? n >= 2 : pcd_detect_known_start(pcd_formats, pcd_n_formats, head, n))) break;
        }
    } else {
        n = pcd_input_peek(&src->in, head, sizeof head);
    }
    bool whole = src->in.is_regular ? src->in.size <= n : n < want;
    if (pcd_gzin_is_gzip(head, n)) {
        /* gzip (e.g. Mono's zip option): everything below reads the decompressed stream */
        src->gz = cli_alloc(c, sizeof *src->gz);
        if (!src->gz) {
            fprintf(stderr, "%s: out of memory (raise --max-memory)\n", path);
            return EXIT_USAGE;
        }
        if (pcd_gzin_open(src->gz, pcd_input_read, &src->in, 0, &c->al) != 0) {
            fprintf(stderr, "%s: cannot start decompressing\n", path);
            return EXIT_USAGE;
        }
        n = pcd_gzin_peek(src->gz, head, sizeof head);
        whole = n < sizeof head;
        if (src->gz->error && n < sizeof head) {
            fprintf(stderr, "%s: gzip: %s\n", path, src->gz->error);
            return EXIT_INVALID;
        }
    }
    if (!src->gz && pcd_zstdin_is_zstd(head, n)) {
        /* zstd (a .mojo.zst, a .collapsed.zst): read as gzip is, the decompressed bytes capped at
         * --max-memory (as the runtime's zstd regions are): a zstd bomb stops there */
        src->zs = cli_alloc(c, sizeof *src->zs);
        if (!src->zs) {
            fprintf(stderr, "%s: out of memory (raise --max-memory)\n", path);
            return EXIT_USAGE;
        }
        if (pcd_zstdin_open(src->zs, pcd_input_read, &src->in, c->max_memory, &c->al) != 0) {
            fprintf(stderr, "%s: cannot start decompressing (out of memory: raise --max-memory)\n", path);
            return EXIT_USAGE;
        }
        n = pcd_zstdin_peek(src->zs, head, sizeof head);
        whole = n < sizeof head;
        if (src->zs->error && n < sizeof head) {
            fprintf(stderr, "%s: zstd: %s\n", path, src->zs->error);
            return src->zs->nomem ? EXIT_USAGE : EXIT_INVALID;
        }
    }
    /* text inputs (convert, merge): --format names one, or no schema format claims the head */
    if (c->text_ok && (c->format ? pcd_text_find(c->format) != NULL : true)) {
        int trc = cli_open_text(c, src, path, head, n, whole);
        if (trc <= 0) return -trc;
    }
    if (c->format) {
        f = cli_find_format(c->format);
        if (!f) {
            fprintf(stderr, "%s: unknown format '%s' (see profcodec formats)\n", path, c->format);
            return EXIT_USAGE;
        }
    } else {
        pcd_detect_why why;
        f = pcd_detect(pcd_formats, pcd_n_formats, head, n, whole, &why);
        if (!f) {
            const pcd_text_format *t = why.unknown ? pcd_text_detect(head, n, whole) : NULL;
            if (t) {
                fprintf(stderr, "%s: %s: profcodec convert and merge read it (this command reads the formats of "
                        "schemas)\n", path, t->title);
                return EXIT_USAGE;
            }
            if (why.unknown) {
                fprintf(stderr, "%s: %s", path, why.msg);
                say_readable(stderr);
                fputs("; name it with --format\n", stderr);
            }
            else
                fprintf(stderr, "%s: %s\n", path, why.msg);
            return EXIT_INVALID;
        }
    }
    src->f = f;
    /* a 1 MiB window, smaller under a small memory cap (it grows when a record needs it) */
    size_t window = (size_t)1 << 20;
    while (window > 4096 && window > c->max_memory / 8) window /= 2;
    pcd_reader_opts o = { &c->al, NULL, window, validate_only, c->threads > 1 };
    o.spans = spans;
    if (spans) pcd_spans_init(spans, &c->al);
    pcd_status st;
    if (src->zs && (f->flags & PCD_FMT_STREAMABLE) && !spans) {
        st = pcd_reader_open(&src->r, f, pcd_zstdin_read, src->zs, &o);
    } else if (src->zs) {
        size_t len = 0;
        const uint8_t *buf = NULL;
        if (pcd_zstdin_load(src->zs, &buf, &len) != 0) {
            if (src->zs->nomem) {
                fprintf(stderr, "%s: zstd: the decompressed %s file is read whole, and it does not fit in memory: "
                        "out of memory (raise --max-memory)\n", path, f->name);
                return EXIT_USAGE;
            }
            fprintf(stderr, "%s: zstd: %s\n", path, src->zs->error ? src->zs->error : "out of memory");
            return EXIT_INVALID;
        }
        st = pcd_reader_open_buffer(&src->r, f, buf, len, &o);
    } else if (src->gz && (f->flags & PCD_FMT_STREAMABLE) && !spans) {
        st = pcd_reader_open(&src->r, f, pcd_gzin_read, src->gz, &o);
    } else if (src->gz) {
        size_t len = 0;
        const uint8_t *buf = NULL;
        src->gz->limit = c->max_memory;
        if (pcd_gzin_load(src->gz, &buf, &len) != 0) {
            if (src->gz->nomem) {
                fprintf(stderr, "%s: gzip: the decompressed %s file is read whole, and it does not fit in memory: "
                        "out of memory (raise --max-memory)\n", path, f->name);
                return EXIT_USAGE;
            }
            fprintf(stderr, "%s: gzip: %s\n", path, src->gz->error ? src->gz->error : "out of memory");
            return EXIT_INVALID;
        }
        st = pcd_reader_open_buffer(&src->r, f, buf, len, &o);
    } else if ((f->flags & PCD_FMT_STREAMABLE) && !spans) {
        st = pcd_reader_open(&src->r, f, pcd_input_read, &src->in, &o);
    } else {
        if (pcd_input_load(&src->in, c->max_memory) != 0) {
            if (errno == EFBIG)
                fprintf(stderr, "%s: a %s file is read whole, and this input is larger than --max-memory "
                        "(raise --max-memory)\n", path, f->name);
            else if (errno == ENOMEM)
                fprintf(stderr, "%s: a %s file is read whole, and this input does not fit in memory: "
                        "out of memory (raise --max-memory)\n", path, f->name);
            else
                fprintf(stderr, "%s: cannot read: %s\n", path, strerror(errno));
            return EXIT_USAGE;
        }
        if (src->in.mapped) {
            o.release = pcd_input_release;
            o.release_ud = &src->in;
        }
        st = pcd_reader_open_buffer(&src->r, f, src->in.map, src->in.map_len, &o);
    }
    if (st != PCD_OK) {
        fprintf(stderr, "%s: cannot start reading: %s%s\n", path, pcd_status_name(st),
                st == PCD_E_NOMEM ? " (raise --max-memory)" : "");
        return EXIT_USAGE;
    }
    return 0;
}

void cli_close(cli_src *src)
{
    if (src->c) src->c->report_src = NULL;
    if (src->f) pcd_reader_close(&src->r);
    if (src->gz) {
        pcd_gzin_close(src->gz);
        cli_free(src->c, src->gz);
        src->gz = NULL;
    }
    if (src->zs) {
        pcd_zstdin_close(src->zs);
        cli_free(src->c, src->zs);
        src->zs = NULL;
    }
    src->text = NULL;
    if (src->opened) pcd_input_close(&src->in);
    src->f = NULL;
    src->opened = false;
}
