/* formats/tachyon/tachyon.h: what the Tachyon pieces above the bytes share: the records, the
 * header's words, CPython's view of the string table, and what the registration (tachyon.c)
 * puts together. */
#ifndef PCD_TACHYON_H
#define PCD_TACHYON_H

#include "pipeline/job.h"
#include "formats/tachyon/replay.h"
#include "model/profile.h"

struct pcd_profile;

/* The root (header and footer) or a sample record, or NULL. */
PCD_INLINE const pcd_tachyon_v1_file *pcd_tachyon_as_root(const pcd_record *rec)
{
    if (rec->depth != 0 || rec->type != &pcd_tachyon_v1_file_type || !rec->data) return NULL;
    return rec->data;
}
PCD_INLINE const pcd_tachyon_v1_sample *pcd_tachyon_as_sample(const pcd_record *rec)
{
    if (rec->type != &pcd_tachyon_v1_sample_type || !rec->data) return NULL;
    return rec->data;
}

/* "wall, features: gc" */
size_t pcd_tachyon_config_text(char *buf, size_t cap, uint32_t config);

/* ---- strings as CPython sees them --------------------------------------------------------
 * Each string of the table decoded with errors="replace" (and written back as UTF-8), with a
 * canonical id shared by strings whose text is equal (CPython compares text, not indexes). */
typedef struct pcd_tachyon_names {
    uint8_t *text;                   /* all texts, back to back */
    size_t text_len, text_cap;
    uint64_t *off;
    uint32_t *len, *canon;
    uint32_t n;
    pcd_alloc *al;
} pcd_tachyon_names;

pcd_status pcd_tachyon_names_build(pcd_tachyon_names *nm, const pcd_tachyon_tables *t, pcd_alloc *al);
void pcd_tachyon_names_free(pcd_tachyon_names *nm);
PCD_INLINE const uint8_t *pcd_tachyon_name(const pcd_tachyon_names *nm, uint32_t i, size_t *len)
{
    *len = nm->len[i];
    return nm->text + nm->off[i];
}
/* Is this (decoded) file name one of CPython's own bootstrap frames (it ends in
 * _sync_coordinator.py)? CPython's outputs leave those frames out. */
bool pcd_tachyon_internal_file(const uint8_t *p, size_t n);

/* ---- reading through a job ----------------------------------------------------------------
 * As CPython's reader: the root and the tables first (pcd_tachyon_read_head, from j->r at its
 * start; the sample records are skipped, not decompressed), then the samples through a replay,
 * in file order, from a second reader over the same input with the same options, whose records
 * the pipeline pushes (pcd_model_importer, pcd_format_output). Damage (the reader's, or the
 * first error the replay finds, or a sample count that is not the header's) is reported through
 * the job and ends the reading with PCD_OK and j->damaged set; other statuses come with j->msg.
 * pcd_tachyon_samples_open opens the second reader on r2 past the root (PCD_OK; PCD_END: damage
 * reported and r2 closed, nothing to read; another status with j->msg, r2 closed). When the
 * samples were read from r2 into rp and r2 was closed, pcd_tachyon_samples_done takes the
 * reader loop's status st and whether a record past the samples stopped it, and returns the
 * reading's status (the replay finished when every sample was read). */
pcd_status pcd_tachyon_read_head(pcd_job *j, pcd_tachyon_v1_file *root, pcd_tachyon_tables *t);
pcd_status pcd_tachyon_samples_open(pcd_job *j, pcd_reader *r2);
pcd_status pcd_tachyon_samples_done(pcd_job *j, pcd_tachyon_replay *rp, pcd_status st, bool past);
/* The thread id of the first sample flagged MAIN_THREAD, by a look at the samples from the
 * start that ends there, or when every thread the header counts has had a sample (CPython
 * samples the main thread first: one record); false when there is none, or damage came first
 * (reading the samples reports it). */
bool pcd_tachyon_find_main(pcd_job *j, const pcd_tachyon_v1_file *root, uint64_t *tid);

/* ---- what tachyon.c registers --------------------------------------------------------------- */

extern const pcd_info_ops pcd_tachyon_info_ops;        /* info.c */
extern const pcd_check_ops pcd_tachyon_check_ops;      /* check.c */
extern const pcd_model_importer pcd_tachyon_model;     /* import.c */
/* The format's own outputs: `convert --to samples`, the per-sample text of CPython's reader
 * (samples.c). */
extern const pcd_format_output pcd_tachyon_own[1];
/* `encode --from samples` (samples_import.c): an importer on the model, written by the tachyon
 * output. */
struct pcd_profile;
pcd_status pcd_tachyon_import_samples(pcd_import_args *a, struct pcd_profile *p);

/* The model's thread-state flags (PCD_SAMPLE_STATE, ...) of a sample's status byte. UNKNOWN
 * says the profiler could not tell whether the thread was on a CPU (its GIL mode does not
 * look): then ON_CPU is left out, the other bits stand. */
PCD_INLINE uint32_t pcd_tachyon_state_flags(uint8_t status)
{
    bool cpu = !(status & PCD_TACHYON_V1_THREAD_STATUS_UNKNOWN_MASK) && (status & PCD_TACHYON_V1_THREAD_STATUS_ON_CPU_MASK);
    return PCD_SAMPLE_STATE | (cpu ? PCD_SAMPLE_ON_CPU : 0) |
           (status & PCD_TACHYON_V1_THREAD_STATUS_HAS_GIL_MASK ? PCD_SAMPLE_HOLDS_LOCK : 0) |
           (status & PCD_TACHYON_V1_THREAD_STATUS_GIL_REQUESTED_MASK ? PCD_SAMPLE_WANTS_LOCK : 0) |
           (status & PCD_TACHYON_V1_THREAD_STATUS_HAS_EXCEPTION_MASK ? PCD_SAMPLE_EXCEPTION : 0);
}

#endif
