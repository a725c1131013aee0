/* formats/tachyon/read.c: reading a Tachyon file through a job, as CPython's reader does: the
 * header, then the tables (they come after the samples in the file: the sample records are
 * skipped, not decompressed), then a second reader over the same input, whose samples the
 * pipeline pushes into the importer or the own output, which replay them in file order. */
#include <string.h>

#include "common/hmap.h"
#include "formats/tachyon/tachyon.h"

pcd_status pcd_tachyon_read_head(pcd_job *j, pcd_tachyon_v1_file *root, pcd_tachyon_tables *t)
{
    pcd_record rec;
    pcd_status st = pcd_reader_next(j->r, &rec);
    if (st != PCD_OK) {
        pcd_job_damage(j, pcd_reader_error(j->r));
        return PCD_OK;
    }
    const pcd_tachyon_v1_file *h = pcd_tachyon_as_root(&rec);
    if (!h) return pcd_job_fail(j, PCD_E_INVALID, "not a Tachyon file");
    *root = *h;
    if (pcd_reader_skip_region(j->r) != PCD_OK) {
        pcd_job_damage(j, pcd_reader_error(j->r));
        return PCD_OK;
    }
    for (;;) {
        st = pcd_reader_next(j->r, &rec);
        if (st == PCD_END) return PCD_OK;
        if (st != PCD_OK) {
            pcd_job_damage(j, pcd_reader_error(j->r));
            return PCD_OK;
        }
        if (pcd_tachyon_tables_add(t, &rec) != PCD_OK)
            return pcd_job_fail(j, PCD_E_NOMEM, "out of memory for the tables (raise --max-memory)");
    }
}

pcd_status pcd_tachyon_samples_open(pcd_job *j, pcd_reader *r2)
{
    const uint8_t *data;
    size_t size;
    if (!pcd_reader_input(j->r, &data, &size))
        return pcd_job_fail(j, PCD_E_ARG, "a Tachyon file is read whole (the input must be a buffer)");
    /* the same options as the job's reader: limits, and the zstd helper thread */
    pcd_reader_opts o = { j->al, j->r->x.lim, 0, false, j->r->threads, j->r->release, j->r->release_ud };
    pcd_status st = pcd_reader_open_buffer(r2, j->f, data, size, &o);
    if (st != PCD_OK) {
        pcd_reader_close(r2);
        return pcd_job_fail(j, st, "cannot start a second reader over the input: %s", pcd_status_name(st));
    }
    pcd_record rec;
    st = pcd_reader_next(r2, &rec); /* the root, read once already */
    if (st != PCD_OK) {
        pcd_job_damage(j, pcd_reader_error(r2));
        pcd_reader_close(r2);
        return PCD_END;
    }
    return PCD_OK;
}

pcd_status pcd_tachyon_samples_done(pcd_job *j, pcd_tachyon_replay *rp, pcd_status st, bool past)
{
    if (st == PCD_END && past) st = PCD_OK;
    if (rp->failed) {
        if (rp->err.status == PCD_E_NOMEM) {
            char msg[512];
            pcd_error_format(&rp->err, msg, sizeof msg);
            return pcd_job_fail(j, PCD_E_NOMEM, "%s", msg);
        }
        /* CPython's reader stops at the first error the replay finds: damage, as the reader's */
        pcd_job_damage(j, &rp->err);
        return PCD_OK;
    }
    if (st != PCD_OK || j->damaged) return st;
    if (pcd_tachyon_replay_finish(rp) != PCD_OK) pcd_job_damage(j, &rp->err);
    return PCD_OK;
}

/* The status of a sample record (a REPEAT record's first). */
static bool record_status(const pcd_tachyon_v1_sample *s, uint8_t *status)
{
    const pcd_tachyon_v1_sample_stack *k = &s->stack;
    switch (k->which) {
    case PCD_TACHYON_V1_SAMPLE_STACK_REPEAT:
        if (!k->u.repeat.n_samples) return false;
        *status = k->u.repeat.samples[0].status;
        return true;
    case PCD_TACHYON_V1_SAMPLE_STACK_FULL: *status = k->u.full.status; return true;
    case PCD_TACHYON_V1_SAMPLE_STACK_SUFFIX: *status = k->u.suffix.status; return true;
    case PCD_TACHYON_V1_SAMPLE_STACK_POP_PUSH: *status = k->u.pop_push.status; return true;
    }
    return false;
}

bool pcd_tachyon_find_main(pcd_job *j, const pcd_tachyon_v1_file *root, uint64_t *tid)
{
    const uint8_t *data;
    size_t size;
    if (!pcd_reader_input(j->r, &data, &size)) return false;
    pcd_reader_opts o = { j->al, j->r->x.lim, 0, false, 0, j->r->release, j->r->release_ud };
    pcd_reader r;
    bool found = false;
    pcd_hmap seen;
    pcd_hmap_init(&seen, j->al);
    pcd_record rec;
    if (pcd_reader_open_buffer(&r, j->f, data, size, &o) == PCD_OK && pcd_reader_next(&r, &rec) == PCD_OK) {
        while (!found && seen.len < root->thread_count && pcd_reader_next(&r, &rec) == PCD_OK) {
            const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(&rec);
            if (!s) break;
            uint8_t status;
            bool fresh;
            if (!pcd_hmap_put(&seen, (pcd_hkey){ s->thread_id, s->interpreter_id, 0 }, &fresh)) break;
            if (record_status(s, &status) && (status & PCD_TACHYON_V1_THREAD_STATUS_MAIN_THREAD_MASK)) {
                *tid = s->thread_id;
                found = true;
            }
        }
    }
    pcd_reader_close(&r);
    pcd_hmap_free(&seen);
    return found;
}
