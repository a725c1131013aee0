/* outputs/outputs.h: the outputs written from the profile model, each once, for every format
 * whose profile fits (pipeline/job.h: pcd_exporter), and what they share. */
#ifndef PCD_OUTPUTS_H
#define PCD_OUTPUTS_H

#include "pipeline/job.h"
#include "model/profile.h"

extern const pcd_exporter pcd_out_austin;
extern const pcd_exporter pcd_out_collapsed;
extern const pcd_exporter pcd_out_speedscope;
extern const pcd_exporter pcd_out_chrome;
extern const pcd_exporter pcd_out_mojo;
extern const pcd_exporter pcd_out_tachyon;
extern const pcd_exporter pcd_out_html;
extern const pcd_exporter pcd_out_svg;
extern const pcd_exporter pcd_out_pprof;
extern const pcd_exporter pcd_out_table;
extern const pcd_exporter pcd_out_ndjson;
/* issue 27: Perfetto's protobuf trace (outputs/perfetto.c) */
extern const pcd_exporter pcd_out_perfetto;
/* issue 27: the Firefox Profiler's processed format (outputs/firefox.c) */
extern const pcd_exporter pcd_out_firefox;

/* The sample type --metric names (else the profile's default) into *type; with type NULL
 * only checks the name. PCD_E_ARG with job->msg listing the names when it names none. */
pcd_status pcd_out_metric(pcd_job *j, const pcd_profile *p, int *type);

/* ---- samples on a clock ------------------------------------------------------------------
 * Outputs that lay samples out in time (chrome, tachyon) take a sample's own time when it has
 * one. Samples without times that come in the order they were taken (PCD_HAS_ORDER: Austin's)
 * are laid end to end on a clock per thread, each as long as its value of the profile's time
 * type: Austin's time metric is the time since the thread's previous sample. */

/* Nanoseconds per unit of sample type `type` when its unit is one of time, else 0. */
int64_t pcd_out_unit_ns(const pcd_profile *p, int type);
/* The sampling period in microseconds (0: unknown). */
uint64_t pcd_out_period_us(const pcd_profile *p);

/* What a clock needs of a profile's sample types, found once (at the consumer's begin). */
typedef struct pcd_out_pace {
    int type;                      /* the type that says how long a sample lasts: "time" when its
                                    * unit is one of time, else the first type in a unit of time;
                                    * -1 none */
    int64_t unit_ns[PCD_MAX_SAMPLE_TYPES]; /* ns per unit of each type (0: not a time) */
} pcd_out_pace;

void pcd_out_pace_init(pcd_out_pace *c, const pcd_profile *p);
/* How many microseconds sample s lasts on its thread's clock: its value of the time type;
 * without one, a sampling period when the profile's metric is not a time (Austin's memory
 * mode). False (and 0) when the sample has no time value where the profile's metric is one. */
bool pcd_out_pace_us(const pcd_out_pace *c, const pcd_profile *p, const pcd_sample *s, uint64_t *us);

#endif
