/* cli.h: shared state and helpers of the profcodec command-line tool. */
#ifndef PCD_CLI_H
#define PCD_CLI_H

#include <stdio.h>

#include "pcd.h"
#include "pipeline/pipeline.h"
#include "io/io.h"

#define EXIT_INVALID 1   /* the input is invalid or damaged */
#define EXIT_USAGE 2     /* bad usage, or an I/O error */

struct cli_src;

typedef struct cli {
    size_t max_memory;
    unsigned threads;         /* --threads: 1, or more to let zstd regions use a helper */
    const char *format;       /* --format NAME[:VERSION] */
    bool quiet;
    bool tty;                 /* stderr is a terminal: show progress */
    pcd_alloc al;             /* everything the tool allocates, capped at max_memory (cli_start) */
    /* progress */
    uint64_t total;           /* input size when known */
    double last_progress;
    unsigned progress_tick;
    bool progress_shown;
    /* the input whose gzip layer explains a report (cli_report): the one opened last, until
     * an input is closed */
    const struct cli_src *report_src;
    /* the command reads text inputs too (convert, merge): collapsed, Austin, speedscope */
    bool text_ok;
    /* the temporary files of outputs not yet committed, which a fatal signal removes */
    pcd_output_pending pending;
} cli;

/* An opened input and a reader positioned before its first record. */
typedef struct cli_src {
    pcd_input in;
    pcd_reader r;
    const pcd_format *f;
    bool opened;
    struct pcd_gzin *gz;      /* gzip-compressed input, read through zlib; NULL if plain */
    struct pcd_zstdin *zs;    /* zstd-compressed input (io/zstdin.h); NULL if not */
    /* a text input (c->text_ok; then f is NULL and there is no reader): its format, and the
     * stream of its (decompressed) bytes */
    const pcd_text_format *text;
    pcd_read_fn text_read;
    void *text_read_ud;
    cli *c;                   /* the tool that opened it */
} cli_src;

void cli_init(cli *c);
/* After the options: the tool's allocator, capped at max_memory (c lives until the process
 * ends). jansson's allocations go through it where a scope says so (common/json_mem.h). */
void cli_start(cli *c);
/* The tool's own memory, through c->al (so --max-memory covers it): blocks that remember their
 * size; NULL when the cap or the system refuses. cli_zalloc zeroes (and checks n * size). */
void *cli_alloc(cli *c, size_t n);
void *cli_zalloc(cli *c, size_t n, size_t size);
void cli_free(cli *c, void *p);
/* Makes SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE and SIGXFSZ remove the temporary files of
 * c's outputs not yet committed (c->pending) before the process dies of them (call once,
 * early; c lives until the process ends). */
void cli_cleanup_on_signals(cli *c);
/* The end of a run: forgets c in the process-wide state (the signal handlers' tool, getopt's
 * place), so that a next pcd_cli_main in the same process starts as a new process does. */
void cli_end(cli *c);
/* The whole tool: main.c's main, and the sanitize tree's test server's (tests/serve), which
 * runs many command lines in one process. Returns the exit status; never exits. */
int pcd_cli_main(int argc, char **argv);
/* Parses --max-memory values like 512M, 2G. */
bool cli_parse_size(const char *s, size_t *out);
const pcd_format *cli_find_format(const char *spec);
/* Opens path, detects (or takes --format) and starts a reader. Returns an exit code (0 ok). */
int cli_open(cli *c, cli_src *src, const char *path, bool validate_only);
/* The same for explain: the whole input read into memory, decoded by the explain functions,
 * which record where each field lies in spans (initialised here, on c's allocator). */
int cli_open_explain(cli *c, cli_src *src, const char *path, pcd_spans *spans);
void cli_close(cli_src *src);
void cli_progress(void *ud, uint64_t bytes);
void cli_progress_done(cli *c);
/* Prints "FILE: offset N: path: message" to stderr (to err), with what only the CLI knows of a
 * gzip input: that its gzip stream stopped, and where in the compressed file. */
void cli_report(const cli *c, const char *file, const pcd_error *e);
void cli_report_to(const cli *c, FILE *err, const char *file, const pcd_error *e);

int cmd_formats(cli *c, int argc, char **argv);
int cmd_info(cli *c, int argc, char **argv);
int cmd_validate(cli *c, int argc, char **argv);
int cmd_dump(cli *c, int argc, char **argv);
int cmd_encode(cli *c, int argc, char **argv);
int cmd_convert(cli *c, int argc, char **argv);
int cmd_merge(cli *c, int argc, char **argv);
int cmd_fuzz(cli *c, int argc, char **argv);
int cmd_explain(cli *c, int argc, char **argv);
/* issue 25: pprof's -top table (cmd_top.c) */
int cmd_top(cli *c, int argc, char **argv);

#endif
