/* cli/job.c: conversion jobs as the tool runs them. */
#include "cli/job.h"

#include <string.h>

typedef struct job_out {
    FILE *err;
    const char *name;
} job_out;

/* Jobs of one thread at a time: where the current job prints. */
static job_out current;

static void job_report(void *ud, bool is_error, const pcd_error *e)
{
    const job_out *o = ud;
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    if (is_error) pcd_report(o->err, o->name, e);
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
    current.err = err;
    current.name = name;
    j->report = job_report;
    j->note = job_note;
    j->report_ud = &current;
}

int cli_job_exit(const pcd_job *j, pcd_status st, FILE *err)
{
    if (st != PCD_OK && j->msg[0]) fprintf(err, "%s: %s\n", j->input_name, j->msg);
    return pcd_job_outcome(j, st);
}
