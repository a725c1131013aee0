/* outputs/outputs.h: the outputs written from the profile model, each once, for every format
 * whose profile fits (formats/registry.h: pcd_exporter), and what they share. */
#ifndef PCD_OUTPUTS_H
#define PCD_OUTPUTS_H

#include "formats/registry.h"
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

/* The sample type --metric names (else the profile's default) into *type; with type NULL
 * only checks the name. PCD_E_ARG with job->msg listing the names when it names none. */
pcd_status pcd_out_metric(pcd_job *j, const pcd_profile *p, int *type);

#endif
