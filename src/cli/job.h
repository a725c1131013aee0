/* cli/job.h: conversion jobs as the tool runs them: problems printed the tool's way. */
#ifndef PCD_CLI_JOB_H
#define PCD_CLI_JOB_H

#include <stdio.h>

#include "pipeline/pipeline.h"

struct cli;

/* A job on reader r with the tool's defaults: damage and warnings printed to err as
 * "NAME: offset N: path: message" and "NAME: warning: ...", notes as "NAME: text". */
void cli_job_init(pcd_job *j, const pcd_format *f, pcd_reader *r, const char *name, pcd_alloc *al, FILE *err);
/* The tool whose inputs the job reads (c->report_src: what a gzip input adds to a report);
 * without it, reports are the reader's alone. Call after cli_job_init. */
void cli_job_tool(pcd_job *j, const struct cli *c);
/* The job of the base input of a differential output (--base) beside job j: j's allocator,
 * options and error stream, its own name in messages; sets j->base. Call after setting j's
 * options. */
void cli_job_init_base(pcd_job *j, pcd_job *base, const pcd_format *f, pcd_reader *r, const char *name);
/* The exit status of a finished job (cli_job_outcome), after printing job->msg to err. */
int cli_job_exit(const pcd_job *j, pcd_status st, FILE *err);
/* What a job came to, as the tool's exit status: 0 done, 1 invalid or damaged input (the
 * output holds what came before), 2 a usage, memory or output error. */
int cli_job_outcome(const pcd_job *j, pcd_status st);

/* ---- text inputs and merge (issue 25) --------------------------------------------------------- */

struct cli_src;
/* A text input's job: its text format and stream (src->text; nothing when it is a schema format). */
void cli_job_text(pcd_job *j, const struct cli_src *src);
/* After a job on a text input: when its compressed stream stopped (a cut gzip or zstd file), why
 * and where, as cli_report says it for the schema formats. */
void cli_text_stream_note(const struct cli_src *src, const char *name);

/* Where one job of several (merge) prints: each its own name. */
typedef struct cli_job_out {
    const struct cli *c;
    FILE *err;
    const char *name;
} cli_job_out;
/* cli_job_init and cli_job_tool for one input of several, printing through o (which outlives j). */
void cli_job_init_at(pcd_job *j, cli_job_out *o, const pcd_format *f, pcd_reader *r, const char *name,
                     const struct cli *c, FILE *err);

/* Binary bytes (a format's, compressed ones) and whole pages are not for a terminal: when the
 * output `to` (or --compression other than none) would go to standard output (outname NULL or
 * "-") and that is a terminal, says so as "profcodec CMD: ..." and returns true. */
bool cli_not_for_terminal(const char *cmd, const char *to, const char *compression, const char *outname);

#endif
