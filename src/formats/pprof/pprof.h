/* formats/pprof/pprof.h: pprof above the bytes: its checks (check.c), its importer into the
 * profile model (import.c), and its summary (pprof.c). The bytes are the schema's
 * (schemas/pprof/v1.lua, generated/pprof_v1.h). */
#ifndef PCD_FORMATS_PPROF_H
#define PCD_FORMATS_PPROF_H

#include "pipeline/job.h"
#include "pprof_v1.h"

extern const pcd_check_ops pcd_pprof_check_ops;
extern const pcd_model_importer pcd_pprof_model;

#endif
