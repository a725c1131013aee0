/* cli/job.c: conversion jobs as the tool runs them. */
#include "cli/job.h"

#include "cli.h"

#include <string.h>
#include <unistd.h>

#include "io/gzin.h"
#include "io/zstdin.h"

typedef cli_job_out job_out; /* (cli/job.h: one per job of a merge) */

/* Jobs of one thread at a time: where the current job (and its base, --base) prints. */
static job_out current, current_base;

static void job_report(void *ud, bool is_error, const pcd_error *e)
{
    const job_out *o = ud;
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    if (is_error) cli_report_to(o->c, o->err, o->name, e);
    else fprintf(o->err, "%s: warning: %s\n", o->name, msg);
}

static void job_note(void *ud, const char *text)
{
    const job_out *o = ud;
    fprintf(o->err, "%s: %s\n", o->name, text);
}

void cli_job_init(pcd_job *j, const pcd_format *f, pcd_reader *r, const char *name, pcd_alloc *al, FILE *err)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->r = r;
    j->input_name = name;
    j->al = al;
    current.c = NULL;
    current.err = err;
    current.name = name;
    j->report = job_report;
    j->note = job_note;
    j->report_ud = &current;
}

void cli_job_tool(pcd_job *j, const cli *c)
{
    ((job_out *)j->report_ud)->c = c;
}

void cli_job_init_base(pcd_job *j, pcd_job *base, const pcd_format *f, pcd_reader *r, const char *name)
{
    memset(base, 0, sizeof *base);
    base->f = f;
    base->r = r;
    base->input_name = name;
    base->al = j->al;
    base->all = j->all;
    base->metric = j->metric;
    base->dialect = j->dialect;
    base->compat = j->compat;
    current_base.c = current.c;
    current_base.err = current.err;
    current_base.name = name;
    base->report = job_report;
    base->note = job_note;
    base->report_ud = &current_base;
    j->base = base;
}

int cli_job_exit(const pcd_job *j, pcd_status st, FILE *err)
{
    if (st != PCD_OK && j->msg[0]) fprintf(err, "%s: %s\n", j->input_name, j->msg);
    return cli_job_outcome(j, st);
}

int cli_job_outcome(const pcd_job *j, pcd_status st)
{
    switch (pcd_job_result_of(j, st)) {
    case PCD_JOB_DONE: return 0;
    case PCD_JOB_INVALID: return EXIT_INVALID;
    case PCD_JOB_FAILED: break;
    }
    return EXIT_USAGE;
}

/* ---- text inputs and merge (issue 25) --------------------------------------------------------- */

void cli_job_text(pcd_job *j, const cli_src *src)
{
    if (!src->text) return;
    j->text = src->text;
    j->text_read = src->text_read;
    j->text_read_ud = src->text_read_ud;
}

void cli_text_stream_note(const cli_src *src, const char *name)
{
    if (!src->text) return;
    if (src->zs && src->zs->error)
        fprintf(stderr, "%s: zstd: %s at byte %llu of the compressed file (after %llu bytes decompressed)\n", name,
                src->zs->error, (unsigned long long)src->zs->in_total, (unsigned long long)src->zs->out_total);
    else if (src->gz && src->gz->error)
        fprintf(stderr, "%s: gzip: %s at byte %llu of the compressed file (after %llu bytes decompressed)\n", name,
                src->gz->error, (unsigned long long)src->gz->z.total_in, (unsigned long long)src->gz->out_total);
}

void cli_job_init_at(pcd_job *j, cli_job_out *o, const pcd_format *f, pcd_reader *r, const char *name, const cli *c,
                     FILE *err)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->r = r;
    j->input_name = name;
    j->al = (pcd_alloc *)&c->al;
    o->c = c;
    o->err = err;
    o->name = name;
    j->report = job_report;
    j->note = job_note;
    j->report_ud = o;
}

bool cli_not_for_terminal(const char *cmd, const char *to, const char *compression, const char *outname)
{
    bool file = (pcd_output_wants(to) & PCD_WANTS_FILE) != 0;
    if ((outname && strcmp(outname, "-") != 0) || !isatty(1) || !(file || (compression && strcmp(compression, "none") != 0)))
        return false;
    fprintf(stderr, "profcodec %s: --to %s writes %s; not writing it to a terminal (use -o FILE, or redirect the output)\n",
            cmd, to, file ? "a file, not text" : "compressed bytes");
    return true;
}
