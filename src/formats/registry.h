/* formats/registry.h: what sits above the bytes, per format: info summaries and converters. */
#ifndef PCD_EXT_H
#define PCD_EXT_H

#include <stdio.h>

#include "pcd.h"

/* Everything a converter gets from the CLI. */
typedef struct pcd_conv_args {
    const pcd_format *f;
    pcd_reader *r;            /* opened on the input; the converter pulls records */
    pcd_sink *out;            /* output (atomic file or stdout) */
    const char *input_name;
    bool compat;              /* --heph-compat and the like: byte-compatible with the reference tool */
    bool all;                 /* skip damaged records instead of stopping */
    const char *metric;       /* --metric, when the converter has one */
    pcd_alloc *al;
    FILE *err;                /* where to report problems (stderr) */
    void (*progress)(void *ud, uint64_t bytes);
    void *progress_ud;
    const char *compression;  /* --compression, when the converter writes a format that has one */
} pcd_conv_args;

/* Returns the process exit code: 0 ok, 1 invalid input (output holds what came before), 2 other. */
typedef int (*pcd_conv_fn)(const pcd_conv_args *a);

typedef struct pcd_converter {
    const char *to;           /* "chrome" */
    const char *help;         /* one line */
    pcd_conv_fn run;
} pcd_converter;

/* An info summary accumulated record by record. */
typedef struct pcd_info_ops {
    size_t ctx_size;
    void (*init)(void *ctx, pcd_alloc *al);
    void (*record)(void *ctx, const pcd_record *rec);
    void (*text)(void *ctx, FILE *out);
    /* writes the members of the "summary" object (without braces) */
    pcd_status (*json)(void *ctx, pcd_sink *s);
    void (*fini)(void *ctx);
    /* after the last record: true when the records that were read show the file damaged
     * although each one decoded (a file cut between two records of a unit that needs them
     * all), with that damage in *e; NULL: never */
    bool (*damaged)(void *ctx, pcd_error *e);
} pcd_info_ops;

/* Checks above the bytes (references, counts, invariants), run by `validate` and `info`
 * on decoded records. Problems are reported through `report`: errors make the file
 * invalid; warnings do not, unless `validate --strict`. */
typedef void (*pcd_report_fn)(void *ud, bool is_error, const pcd_error *e);

typedef struct pcd_check_ops {
    size_t ctx_size;
    void (*init)(void *ctx, pcd_alloc *al);
    void (*record)(void *ctx, const pcd_record *rec, pcd_report_fn report, void *ud);
    /* after the last record (only called when the file decoded to its end) */
    void (*finish)(void *ctx, pcd_report_fn report, void *ud);
    void (*fini)(void *ctx);
} pcd_check_ops;

/* `encode --from NAME`: another text or binary form turned into this format. */
typedef struct pcd_import_args {
    FILE *in;
    const char *input_name;
    pcd_sink *out;            /* output (atomic file) */
    pcd_alloc *al;
    FILE *err;
    const char *endian;       /* --endian, or NULL */
} pcd_import_args;

typedef struct pcd_importer {
    const char *from;         /* "austin" */
    const char *help;
    int (*run)(const pcd_import_args *a);  /* exit code as for converters */
} pcd_importer;

typedef struct pcd_ext {
    const char *format;       /* format name, every version */
    const pcd_info_ops *info;
    const pcd_converter *conv;
    size_t n_conv;
    const pcd_check_ops *check;   /* NULL: the schema's checks are all there is */
    const pcd_importer *import;
    size_t n_import;
} pcd_ext;

const pcd_ext *pcd_ext_find(const char *format);
extern const pcd_ext *const pcd_exts[];

/* Report helper shared by converters: "FILE: offset N: path: message". */
void pcd_report(FILE *err, const char *file, const pcd_error *e);
/* Called after each pcd_report, to add what only the caller knows (the CLI: why a gzip
 * stream stopped, in the compressed file's offsets). */
typedef void (*pcd_report_hook)(FILE *err, const char *file, const pcd_error *e, void *ud);
void pcd_report_set_hook(pcd_report_hook fn, void *ud);

/* Writes a double the way Rust's Display does (shortest digits, never an exponent). */
size_t pcd_fmt_rust_f64(char *buf, size_t cap, double v);

#endif
