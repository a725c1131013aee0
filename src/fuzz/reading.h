/* fuzz/reading.h: profcodec's own reading of an input, for differential runs (`profcodec fuzz
 * --diff`): whether it accepts the file as `profcodec validate` does (every record decodes to
 * the end, the checks above the bytes find no error; the schemas' warnings do not reject),
 * why not, and the totals of the profile it imports (samples, and the sum of each sample
 * type). Nothing is printed; memory comes from the caller's allocator. */
#ifndef PCD_FUZZ_READING_H
#define PCD_FUZZ_READING_H

#include "pcd.h"
#include "model/profile.h"

typedef struct pcd_fz_reading {
    const pcd_format *f;      /* the format read (given, or detected); NULL: none */
    bool accepted;
    char why[640];            /* when not accepted: "offset N: path: message", or why not read */
    uint64_t records;         /* records decoded (the root counts) */
    bool has_totals;          /* the format imports into the model, and did to its end */
    uint64_t samples;         /* samples, each counted as many times as it stands for */
    size_t n_types;
    char type_name[PCD_MAX_SAMPLE_TYPES][64];  /* NUL bytes as '?' */
    bool type_name_cut[PCD_MAX_SAMPLE_TYPES];  /* longer than type_name holds */
    uint64_t total[PCD_MAX_SAMPLE_TYPES];  /* per sample type, summed (saturating) */
} pcd_fz_reading;

/* Reads data[0..n) (gzip around it is taken off, up to the allocator's limit) as format f, or
 * the format it is detected as (f NULL). PCD_OK with *out filled (accepted or not); PCD_E_NOMEM
 * when the allocator refused. */
pcd_status pcd_fz_read(const pcd_format *f, const uint8_t *data, size_t n, pcd_alloc *al, pcd_fz_reading *out);

/* The index of the total named `name` (a sample type; "@samples", the number of samples, is -1),
 * or -2 when the reading has none. */
int pcd_fz_total_index(const pcd_fz_reading *r, const char *name);

#endif
