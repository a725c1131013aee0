/* cli/commands.h: what the commands (cmd_*.c) share: their option ids, and the output sink
 * that writes OUT atomically (a temporary file renamed into place, or standard output). */
#ifndef PCD_CLI_COMMANDS_H
#define PCD_CLI_COMMANDS_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* The ids of the long options that have no short form. */
enum { OPT_FORMAT = 1000, OPT_JSON, OPT_ALL, OPT_TO, OPT_COMPAT, OPT_METRIC, OPT_ENDIAN, OPT_MAXMEM, OPT_STRICT,
       OPT_FROM, OPT_COMPRESSION, OPT_PARTIAL, OPT_DIALECT, OPT_BASE, OPT_FORCE, OPT_RAW,
       OPT_VERSION, OPT_FROM_OFFSET, OPT_RECORDS, OPT_COLOR };

static inline int out_to_stdout_ok(const char *name) { return !name || strcmp(name, "-") == 0; }

/* ---- output sinks ------------------------------------------------------------- */

typedef struct outbuf {
    pcd_output out;
    pcd_sink sink;
    pcd_ctx x;
    uint8_t *buf;
    size_t cap;
    cli *c;
} outbuf;

static inline int outbuf_open(cli *c, outbuf *o, const char *name)
{
    memset(o, 0, sizeof *o);
    o->c = c;
    if (pcd_output_open(&o->out, name, &c->pending, &c->al) != 0) {
        if (errno == ENOMEM) fprintf(stderr, "%s: cannot create: out of memory (raise --max-memory)\n", name);
        else fprintf(stderr, "%s: cannot create: %s\n", name, strerror(errno));
        return EXIT_USAGE;
    }
    /* 1 MiB, smaller under a small memory cap (as the reader's window) */
    o->cap = (size_t)1 << 20;
    while (o->cap > 4096 && o->cap > c->max_memory / 8) o->cap /= 2;
    o->buf = pcd_alloc_get(&c->al, o->cap);
    if (!o->buf) {
        pcd_output_abort(&o->out);
        fprintf(stderr, "profcodec: out of memory (raise --max-memory)\n");
        return EXIT_USAGE;
    }
    pcd_ctx_init(&o->x, NULL);
    pcd_sink_init(&o->sink, o->buf, o->cap, pcd_output_write, pcd_output_patch, &o->out, &o->x);
    return 0;
}

/* Flushes and commits (rename into place); returns 0 or EXIT_USAGE. */
static inline int outbuf_commit(outbuf *o)
{
    int rc = 0;
    if (pcd_sink_flush(&o->sink) != PCD_OK || pcd_output_commit(&o->out) != 0) {
        fprintf(stderr, "%s: cannot write: %s\n", o->out.to_stdout ? "(stdout)" : o->out.name, strerror(errno));
        pcd_output_abort(&o->out);
        rc = EXIT_USAGE;
    }
    pcd_alloc_free(&o->c->al, o->buf, o->cap);
    o->buf = NULL;
    return rc;
}

static inline void outbuf_abort(outbuf *o)
{
    pcd_output_abort(&o->out);
    pcd_alloc_free(&o->c->al, o->buf, o->cap);
    o->buf = NULL;
}

#endif
