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

#endif
