/* outputs/top.h: `profcodec top`'s output (pprof's -top table), an output of the model that is
 * not in the conversion table (pipeline/pipeline.h: pcd_convert_output). */
#ifndef PCD_OUTPUTS_TOP_H
#define PCD_OUTPUTS_TOP_H

#include "outputs/outputs.h"

/* top's options, as pcd_job.output_opts */
typedef struct pcd_top_opts {
    bool cum;                      /* sort by cum (else flat) */
    size_t n;                      /* rows shown (0: all) */
    bool json;                     /* JSON (docs/top.md) instead of pprof's text */
} pcd_top_opts;

extern const pcd_exporter pcd_out_top;

#endif
