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
} outbuf;

static inline int outbuf_open(cli *c, outbuf *o, const char *name)
{
    memset(o, 0, sizeof *o);
    if (pcd_output_open(&o->out, name, &c->pending) != 0) {
        fprintf(stderr, "%s: cannot create: %s\n", name, strerror(errno));
        return EXIT_USAGE;
    }
    o->buf = malloc((size_t)1 << 20);
    if (!o->buf) {
        pcd_output_abort(&o->out);
        fprintf(stderr, "profcodec: out of memory\n");
        return EXIT_USAGE;
    }
    pcd_ctx_init(&o->x, NULL);
    pcd_sink_init(&o->sink, o->buf, (size_t)1 << 20, pcd_output_write, pcd_output_patch, &o->out, &o->x);
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
    free(o->buf);
    o->buf = NULL;
    return rc;
}

static inline void outbuf_abort(outbuf *o)
{
    pcd_output_abort(&o->out);
    free(o->buf);
    o->buf = NULL;
}

#endif
