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
       OPT_FROM, OPT_COMPRESSION, OPT_PARTIAL, OPT_DIALECT, OPT_BASE, OPT_FORCE, OPT_RAW, OPT_NO_AUTO_TRIM,
       OPT_VERSION, OPT_FROM_OFFSET, OPT_RECORDS, OPT_COLOR };

static inline int out_to_stdout_ok(const char *name) { return !name || strcmp(name, "-") == 0; }

/* ---- output sinks ------------------------------------------------------------- */

/* An output named OUT: a file (or standard output), or a directory of files for an output that
 * wants parts (outbuf_open_dir; pcd_job.open_part = outbuf_part, part_ud = the outbuf). */

typedef struct outbuf {
    pcd_output out;
    pcd_sink sink;
    pcd_ctx x;
    uint8_t *buf;
    size_t cap;
    cli *c;
    /* or a directory of files (an output that wants parts: --to table), each with its sink */
    bool is_dir;
    pcd_outdir dir;
    struct outbuf_part { pcd_sink sink; pcd_ctx x; uint8_t *buf; size_t cap; } part[PCD_OUTDIR_MAX_PARTS];
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

/* The directory name (an output of several files), written into a temporary directory renamed
 * into place on commit; returns 0 or EXIT_USAGE (said). */
static inline int outbuf_open_dir(cli *c, outbuf *o, const char *name)
{
    memset(o, 0, sizeof *o);
    o->c = c;
    o->is_dir = true;
    if (!name || strcmp(name, "-") == 0) {
        fprintf(stderr, "profcodec: this output is a directory of files: name it with -o DIR\n");
        return EXIT_USAGE;
    }
    if (pcd_outdir_open(&o->dir, name, &c->pending, &c->al) != 0) {
        if (errno == EEXIST) fprintf(stderr, "%s: exists and is not an empty directory: not writing into it\n", name);
        else if (errno == ENOMEM) fprintf(stderr, "%s: cannot create: out of memory (raise --max-memory)\n", name);
        else fprintf(stderr, "%s: cannot create: %s\n", name, strerror(errno));
        return EXIT_USAGE;
    }
    return 0;
}

/* pcd_job.open_part over the directory (o is part_ud): a file with a sink of its own, whose
 * buffer is 256 KiB (smaller under a small memory cap). */
static inline pcd_status outbuf_part(void *ud, const char *name, pcd_sink **out)
{
    outbuf *o = ud;
    pcd_output *f;
    if (!o->is_dir || o->dir.n_parts == PCD_OUTDIR_MAX_PARTS) return PCD_E_INTERNAL;
    struct outbuf_part *b = &o->part[o->dir.n_parts];
    b->cap = (size_t)1 << 18;
    while (b->cap > 4096 && b->cap > o->c->max_memory / 64) b->cap /= 2;
    b->buf = pcd_alloc_get(&o->c->al, b->cap);
    if (!b->buf) return PCD_E_NOMEM;
    if (pcd_outdir_part(&o->dir, name, &f) != 0) {
        pcd_alloc_free(&o->c->al, b->buf, b->cap);
        b->buf = NULL;
        return errno == ENOMEM ? PCD_E_NOMEM : PCD_E_IO;
    }
    pcd_ctx_init(&b->x, NULL);
    pcd_sink_init(&b->sink, b->buf, b->cap, pcd_output_write, NULL, f, &b->x);
    *out = &b->sink;
    return PCD_OK;
}

/* What was written so far (every part's bytes for a directory). */
static inline uint64_t outbuf_tell(const outbuf *o)
{
    if (!o->is_dir) return pcd_sink_tell(&o->sink);
    uint64_t n = 0;
    for (size_t i = 0; i < o->dir.n_parts; i++) n += pcd_sink_tell(&o->part[i].sink);
    return n;
}

static inline void outbuf_free_parts(outbuf *o)
{
    for (size_t i = 0; i < PCD_OUTDIR_MAX_PARTS; i++)
        if (o->part[i].buf) {
            pcd_alloc_free(&o->c->al, o->part[i].buf, o->part[i].cap);
            o->part[i].buf = NULL;
        }
}

/* Flushes and commits (rename into place); returns 0 or EXIT_USAGE. */
static inline int outbuf_commit(outbuf *o)
{
    int rc = 0;
    if (o->is_dir) {
        for (size_t i = 0; i < o->dir.n_parts && !rc; i++)
            if (pcd_sink_flush(&o->part[i].sink) != PCD_OK) rc = EXIT_USAGE;
        const char *name = o->dir.name ? o->dir.name : "(output)";
        char shown[512];
        snprintf(shown, sizeof shown, "%s", name);
        if (rc) {
            fprintf(stderr, "%s: cannot write: %s\n", shown, strerror(errno));
            pcd_outdir_abort(&o->dir);
        } else if (pcd_outdir_commit(&o->dir) != 0) {
            fprintf(stderr, "%s: cannot write: %s\n", shown, strerror(errno));
            rc = EXIT_USAGE;
        }
        outbuf_free_parts(o);
        return rc;
    }
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
    if (o->is_dir) {
        pcd_outdir_abort(&o->dir);
        outbuf_free_parts(o);
        return;
    }
    pcd_output_abort(&o->out);
    pcd_alloc_free(&o->c->al, o->buf, o->cap);
    o->buf = NULL;
}

#endif
