/* pipeline/job.c: jobs (what went wrong, warnings, damage) and the one reader loop. */
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

pcd_status pcd_pump(pcd_job *j, pcd_reader *r, pcd_record_fn fn, void *ud)
{
    pcd_record rec;
    for (;;) {
        uint64_t k = 0;
        /* batches of 1024 records through the fast path, straight to fn (no wrapper: it is a
         * call a record), then one on its own; a run that stopped without the reader failing
         * was stopped by fn (the reader is never done here: next() said so first) */
        pcd_status st = pcd_reader_decode_run(r, 1024, &k, fn, ud);
        if (st == PCD_OK) {
            st = pcd_reader_next(r, &rec);
            if (st == PCD_OK) {
                if (j->progress) j->progress(j->progress_ud, rec.offset);
                st = fn(ud, &rec);
                if (st == PCD_OK) continue;
                return st;
            }
        } else if (!r->failed) {
            return st;
        }
        if (st == PCD_END) return PCD_OK;
        pcd_job_damage(j, pcd_reader_error(r));
        if (j->all && pcd_reader_recover(r, NULL) == PCD_OK) continue;
        return PCD_OK;
    }
}
