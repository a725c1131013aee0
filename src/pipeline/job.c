/* pipeline/job.c: jobs (what went wrong, warnings, damage). */
#include "pipeline/job.h"

#include <stdarg.h>
#include <stdio.h>

pcd_status pcd_job_fail(pcd_job *j, pcd_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->msg, sizeof j->msg, fmt, ap);
    va_end(ap);
    return st;
}

void pcd_job_note(pcd_job *j, const char *fmt, ...)
{
    if (!j->note) return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    j->note(j->report_ud, buf);
}

void pcd_job_damage(pcd_job *j, const pcd_error *e)
{
    j->damaged = true;
    if (j->report) j->report(j->report_ud, true, e);
}
