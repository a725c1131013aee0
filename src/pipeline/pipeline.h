/* pipeline/pipeline.h: conversions, above src/formats and src/outputs: the table of formats
 * (their extensions) and of outputs, the matrix of conversions computed from what importers
 * have and exporters need, and pcd_convert. Nothing here prints or keeps global state: the
 * caller (the CLI, the Python module) says what a job came to (pcd_job_result). */
#ifndef PCD_PIPELINE_H
#define PCD_PIPELINE_H

#include "pipeline/job.h"

/* The registration table: every format with an extension, and every output of the model, in
 * the order `profcodec formats` lists them (NULL-terminated). */
extern const pcd_ext *const pcd_exts[];
extern const pcd_exporter *const pcd_exporters[];

const pcd_ext *pcd_ext_find(const char *format);

/* Can format `ext` be converted to `to`: its own output, or a model output it fits? */
bool pcd_can_convert(const pcd_ext *ext, const char *to);
/* The PCD_WANTS_* of the output of the model named `to` (0: none, or no such output). */
uint32_t pcd_output_wants(const char *to);
/* The outputs of a format, in order (its own, then the model's): the i-th, or NULL after the
 * last. *help gets its help line. */
const char *pcd_convert_target(const pcd_ext *ext, size_t i, const char **help);
/* Runs the conversion of job->r to `to` into out (with job->base: the base profile first).
 *
 * Nothing to show, one rule for every output: when the profile has ended (after damage too),
 * before the output's end, the default metric is settled (pcd_profile_settle_default: one with
 * values) and the profile must hold something the output shows: a span for an output of spans,
 * else a sample with a value other than 0 of the metric shown (--metric, else the default), and,
 * for an output that draws widths (PCD_WANTS_AMOUNTS), no negative one (with --base, a base with
 * values is something to show: what only it has). Otherwise PCD_E_EMPTY,
 * with job->msg naming what is missing, and the output's end is not called (the caller writes no
 * output). */
pcd_status pcd_convert(pcd_job *j, const char *to, pcd_sink *out);
/* The same with an output that is not in the table (`profcodec top`'s: outputs/top.c). Grouping
 * and filters (job->filters, model/transform.h) apply to every output of the model, installed
 * between the importer and the output only when asked for (docs/design.md). */
pcd_status pcd_convert_output(pcd_job *j, const pcd_exporter *x, pcd_sink *out);

/* Reads job->r into p through the format's importer im: begin, every record of the input
 * pushed into im->record (damage reported and, with --all, skipped), then im->end. The caller
 * ends the profile (pcd_profile_end) when this returns PCD_OK. */
struct pcd_profile;
pcd_status pcd_model_import(pcd_job *j, const pcd_model_importer *im, struct pcd_profile *p);

/* `encode --from`: runs importer im on a (a->out the output, a->msg what went wrong). An
 * importer on the model (im->model) goes through the output im->to, one writer for the format
 * whichever way it is reached, with im->first_use_keys; the profile is ended here. No "nothing to
 * show" rule: an input without samples is the format's file without them, as its writer makes it. */
pcd_status pcd_import(const pcd_importer *im, pcd_import_args *a);

/* What a finished job came to, for the caller to say its own way (the CLI's exit statuses 0, 1
 * and 2; the Python module's exceptions). */
/* ---- text inputs (issue 25: pcd_text_format, pipeline/job.h) --------------------------------- */

/* The text formats, in the order detection tries them (NULL-terminated). */
extern const pcd_text_format *const pcd_text_formats[];
const pcd_text_format *pcd_text_find(const char *name);
/* Is head[0..n) text: UTF-8 without control bytes other than tab, CR and LF (a character cut at
 * the end of a head that is not the whole input is let be)? No binary format's start is. */
bool pcd_text_is_text(const uint8_t *head, size_t n, bool whole);
/* The text format whose rule head[0..n) meets (whole: head is the whole input), or NULL. Only
 * for a head no schema format claimed (pcd_detect first). */
const pcd_text_format *pcd_text_detect(const uint8_t *head, size_t n, bool whole);
bool pcd_text_can_convert(const pcd_text_format *t, const char *to);

/* What job j's input gives the model (PCD_HAS_*), and the input read into p through its
 * importer (a format's model importer over j->r, or j->text over j->text_read); the caller ends
 * the profile. */
uint32_t pcd_job_has(const pcd_job *j);
struct pcd_profile;
pcd_status pcd_job_import(pcd_job *j, struct pcd_profile *p);

/* ---- merge (issue 25) ------------------------------------------------------------------------ */

/* `merge`: the inputs jobs[0..n) (each a job as for pcd_convert, on one allocator; jobs[0]'s
 * options are the merge's: --metric, --dialect, --force) imported one after the other into one
 * profile whose events go to output `to` (pipeline/merge.c says how tables, threads, times and
 * sample types are merged). Damage in one input is reported in its job (jobs[i].damaged) and
 * the merge goes on with the next. What stopped a merge is jobs[0].msg, starting with the name
 * of the input it is about when it is one input's ("b.pprof: its sample types ..."). */
pcd_status pcd_merge(pcd_job *jobs, size_t n, const char *to, pcd_sink *out);

/* What pcd_convert and pcd_merge share: the output named `to` (NULL none); whether an input
 * that has `has` (PCD_HAS_*) gives it; the one "nothing to show" rule (pcd_convert's comment),
 * as a profile's before_end with a pcd_shown. */
const pcd_exporter *pcd_exporter_find(const char *to);
bool pcd_exporter_fits(uint32_t has, const pcd_exporter *x);
typedef struct pcd_shown {
    pcd_job *j;
    const pcd_exporter *x;
    struct pcd_profile *base;       /* --base: the base profile (a differential output shows it too;
                                     * the automatic common-prefix trim rewrites both sides' files) */
    const struct pcd_transform *tr; /* the grouping and filters, when installed (model/transform.h) */
} pcd_shown;
pcd_status pcd_shown_check(void *ud, struct pcd_profile *p);
/* The grouping-and-filters stage (model/transform.h) between an input of kind `has` (PCD_HAS_*:
 * the merged inputs' in common for merge) and the output's consumer *c, when the job's options
 * or the output's default granularity ask for it: *tr set and *c replaced by the stage's
 * consumer; else nothing installed, *tr NULL. The caller closes *tr after the output. */
struct pcd_transform;
pcd_status pcd_filters_install(pcd_job *j, const pcd_exporter *x, uint32_t has, struct pcd_consumer *c,
                               struct pcd_transform **tr);

typedef enum pcd_job_result {
    PCD_JOB_DONE,             /* done, nothing damaged */
    PCD_JOB_INVALID,          /* invalid or damaged input (the output holds what came before) */
    PCD_JOB_FAILED,           /* a usage, memory, limit or output error */
} pcd_job_result;

pcd_job_result pcd_job_result_of(const pcd_job *j, pcd_status st);

#endif
