/* pipeline/job.h: what a format and an output plug into (the lowest part of the pipeline,
 * below src/formats and src/outputs, which implement it): per format, what sits above the
 * bytes (info summaries, checks, the profile model importer, the format's own outputs,
 * `encode --from`); per output, the exporter; and the job they all run in. The table of
 * formats and outputs, the conversions between them and the one reader loop, which pushes an
 * input's records into a format's importer or own output, are above both, in
 * pipeline/pipeline.h: nothing below it reads an input through the pipeline. Nothing here
 * prints, exits or keeps global state. */
#ifndef PCD_PIPELINE_JOB_H
#define PCD_PIPELINE_JOB_H

#include <stdio.h>

#include "pcd.h"

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
    /* The arrays whose elements info never reads, only their count (the format's generated
     * ..._COUNT_ONLY_<NAME> bits): decoded checked, not stored (pcd_reader_opts.count_only). */
    uint32_t count_only;
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
    /* Optional, the fast path: where the reports go, given once (bind), then each record as
     * `record` takes it, through a pcd_record_fn that validate hands straight to the reader's
     * decoding runs (no call in between a record). Both or neither. */
    void (*bind)(void *ctx, pcd_report_fn report, void *ud);
    pcd_status (*run)(void *ctx, const pcd_record *rec);
    /* The arrays whose elements the checks never read, only their count (the format's
     * generated ..._COUNT_ONLY_<NAME> bits): validate decodes them checked, not stored
     * (pcd_reader_opts.count_only). 0: every array stored. */
    uint32_t count_only;
} pcd_check_ops;

/* `encode --from NAME`: another text or binary form turned into this format. Everything goes
 * through al (--max-memory covers it); nothing is printed: what went wrong is a->msg. */
typedef struct pcd_import_args {
    pcd_read_fn read;         /* the input as a stream */
    void *read_ud;
    /* or the whole input in memory, for an importer that reads it twice (a file mapped, a pipe
     * read to its end within the memory cap): PCD_OK with *p, *n; else a status */
    pcd_status (*load)(void *ud, const uint8_t **p, size_t *n);
    const char *input_name;
    pcd_sink *out;            /* output (atomic file) */
    pcd_alloc *al;
    const char *endian;       /* --endian, or NULL */
    char msg[4096];           /* why a status other than PCD_OK was returned (a line for the user;
                               * empty: nothing to add) */
} pcd_import_args;

struct pcd_profile;

typedef struct pcd_importer {
    const char *from;         /* "austin" */
    const char *help;
    /* Writes the format itself. PCD_OK done; PCD_E_INVALID the input is invalid; PCD_E_NOMEM,
     * PCD_E_LIMIT over the memory cap; PCD_E_IO cannot read or write */
    pcd_status (*run)(pcd_import_args *a);
    /* Or (run NULL) an importer on the model: reads a->read into p, whose events go to the
     * output `to` (pcd_import, pipeline/pipeline.h, sets that up and ends the profile); the
     * same statuses, a->msg as for run. */
    pcd_status (*model)(pcd_import_args *a, struct pcd_profile *p);
    const char *to;           /* the output of the model (pcd_exporter) it writes through */
    bool first_use_keys;      /* the output numbers keys as the source's own writer does
                               * (pcd_job.first_use_keys) */
} pcd_importer;

/* ---- text inputs (issue 25): formats read by a grammar, not a schema ----------------------
 *
 * Collapsed stacks, Austin's text and speedscope's JSON are what other tools hand our users.
 * They have no byte layout for a schema to declare (a line grammar, a JSON document), so they
 * are not pcd_formats with readers: each is an importer on the model that reads the input as a
 * stream (pcd_import_args.read) into a profile, and a detector that tells it by its first
 * bytes. The pipeline runs them as it runs a format's model importer (pcd_convert, pcd_merge);
 * `encode --from` runs the same functions (one parser per grammar). */
typedef struct pcd_text_format {
    const char *name;         /* "collapsed" */
    const char *title;        /* "collapsed stacks (flamegraph.pl)" */
    const char *rule;         /* how it is detected, for `formats` and the docs */
    uint32_t has;             /* PCD_HAS_* (below) */
    /* Is head[0..n) the start of this format? (whole: head is the whole input.) Called only on
     * a head that no schema format claims and that is text (pcd_text_detect). */
    bool (*detect)(const uint8_t *head, size_t n, bool whole);
    /* Reads a->read into p (the importer's damage: PCD_E_INVALID with a->msg "NAME:LINE: ...",
     * every sample before it handed on); the caller ends the profile. */
    pcd_status (*model)(pcd_import_args *a, struct pcd_profile *p);
} pcd_text_format;

/* ---- conversions through the profile model ------------------------------------------------
 *
 * A conversion is a job: the input (a reader on it), the user's options, and where problems
 * go. Code above the bytes never prints and never picks an exit code: it reports damage and
 * warnings through job->report, says what went wrong in job->msg, and returns a status; the
 * caller (the CLI, the Python module) turns that into messages and exit codes. */

struct pcd_consumer;
struct pcd_filter_opts;
struct pcd_transform;

typedef struct pcd_job {
    const pcd_format *f;
    pcd_reader *r;
    const char *input_name;
    pcd_alloc *al;
    /* options */
    bool all;                 /* --all: go on past damaged records */
    const char *metric;       /* --metric, or NULL */
    const char *dialect;      /* --dialect, or NULL: the input format's own */
    bool compat;              /* --heph-compat */
    const char *compression;  /* --compression, or NULL */
    const char *endian;       /* encode's --endian ("big", "little"), or NULL: the output's own */
    bool first_use_keys;      /* outputs that number what they define (MOJO's string and frame
                               * keys): per process, in order of first use, outermost frame first,
                               * with the format's reserved key for "<unknown>" (Austin's own
                               * writer: encode --from austin); false: the model's ids */
    const char *version;      /* --version: the version of the output's format to write (MOJO: 3 or
                               * 4), or NULL: the output's default */
    /* differential outputs (--base): the job of the profile to compare with (any format with
     * a model importer; same allocator and options), or NULL */
    struct pcd_job *base;
    bool force;               /* --force: compare metrics of different kinds or units */
    bool raw;                 /* --raw: differential values as they are, not per total */
    bool no_auto_trim;        /* --no-auto-trim: the files' paths of the two sides as they are (else
                               * the automatic common-prefix trim, model/pathtrim.h) */
    /* grouping and filters (issue 25; model/transform.h), or NULL: none given. pcd_convert installs
     * the stage between the importer and the output when they ask for anything */
    const struct pcd_filter_opts *filters;
    struct pcd_transform *transform;  /* set by pcd_convert while the stage runs (NULL: not
                                       * installed): an output may read what went in (top's
                                       * percentages of the whole, as pprof's) */
    const void *output_opts;  /* the options of an output outside the table (top's pcd_top_opts) */
    bool every_part;          /* the output shows every part of the input side by side (set by
                               * pcd_convert from the exporter's PCD_WANTS_EVERY_PART): every heap
                               * snapshot of a MoarVM file as a thread of its own */
    /* a text input (pcd_text_format; then f and r are NULL): the format and its stream */
    const pcd_text_format *text;
    pcd_read_fn text_read;
    void *text_read_ud;
    /* an output of several files (PCD_WANTS_PARTS: --to table's directory): opens the part NAME
     * ("samples.ndjson") and gives its sink, which stays valid until the caller commits or drops
     * the whole; NULL: the caller takes no such output (the output says so) */
    pcd_status (*open_part)(void *ud, const char *name, pcd_sink **out);
    void *part_ud;
    /* reports: damage (is_error) and warnings with where they are; plain warnings as text */
    pcd_report_fn report;
    void *report_ud;
    void (*note)(void *ud, const char *text);
    void (*progress)(void *ud, uint64_t bytes);
    void *progress_ud;
    /* results */
    bool damaged;             /* damage was reported; the output holds what came before it */
    char msg[512];            /* why a status other than PCD_OK was returned */
} pcd_job;

/* Sets job->msg (printf-style) and returns st. */
pcd_status pcd_job_fail(pcd_job *j, pcd_status st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A warning line for the user (through job->note). */
void pcd_job_note(pcd_job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports the reader's error as damage and marks the job damaged. */
void pcd_job_damage(pcd_job *j, const pcd_error *e);


/* What a format's records give the model (importer) and what an output needs (exporter). */
#define PCD_HAS_SAMPLES 1u        /* samples with stacks and values */
#define PCD_HAS_TIMES 2u          /* samples carry times, in time order */
#define PCD_HAS_SLICES 4u         /* timed spans on tracks */
#define PCD_HAS_CODE 8u           /* frames are code (function, file, line): MOJO, Tachyon and
                                   * Austin text can hold them */
#define PCD_HAS_ORDER 16u         /* samples come in the order they were taken, per thread, even
                                   * without times (Austin's): a timeline can be drawn from them */
#define PCD_HAS_SOME_TIMES 32u    /* some samples may carry times, the others none (Mono: its
                                   * sample hits, timed when the consumer asks PCD_NEEDS_TIMELINE;
                                   * the call tree's sums untimed): --from/--until keep the timed
                                   * ones in the range, and refuse an input that had none */

/* A format's importer into the model: the pipeline (pcd_model_import, pipeline/pipeline.h)
 * opens the input, pushes its records into the importer, and the importer hands what they
 * mean on to the profile. The importer never reads on its own through the pipeline: it is
 * called, once begin, then each record, then end, with its context (ctx_size bytes, zeroed by
 * the pipeline, which keeps it for the input's time). */
typedef struct pcd_model_importer {
    uint32_t has;
    size_t ctx_size;
    /* Sets up ctx to read job j into p (which hands the events on). *from is the reader whose
     * records the pipeline pushes next: j->r, unless the importer must read part of the input
     * before its records can be understood (Tachyon: the tables at the file's end before the
     * samples) and gives a reader of its own over the same input, which it closes in end.
     * PCD_OK: records follow; PCD_END: none do (damage came first, reported), end gets
     * PCD_OK; another status goes to end without records. */
    pcd_status (*begin)(void *ctx, pcd_job *j, struct pcd_profile *p, pcd_reader **from);
    /* One record (a pcd_record_fn: the reader's fast path calls it straight, no call in
     * between). PCD_OK for more; PCD_END: the importer wants no more records; another status
     * stops the input with that status. */
    pcd_status (*record)(void *ctx, const pcd_record *rec);
    /* After the last record, after damage too (job->damaged), or after begin or record
     * returned st, a status other than PCD_OK: finishes what the records built (an importer
     * that needs the whole input first emits here), frees everything begin took, and returns
     * the import's status. Called once after every begin. The pipeline ends the profile. */
    pcd_status (*end)(void *ctx, pcd_status st);
} pcd_model_importer;

/* A conversion that is not an output of the model (a format's own summary or text): the
 * pipeline pushes the input's records into it as into a model importer (pcd_model_importer:
 * the same begin / record / end with a context, the same statuses), and it writes to out. */
typedef struct pcd_format_output {
    const char *to;
    const char *help;
    size_t ctx_size;
    pcd_status (*begin)(void *ctx, pcd_job *j, pcd_sink *out, pcd_reader **from);
    pcd_status (*record)(void *ctx, const pcd_record *rec);
    pcd_status (*end)(void *ctx, pcd_status st);
} pcd_format_output;

typedef struct pcd_ext {
    const char *format;       /* format name, every version */
    const pcd_info_ops *info;
    const pcd_check_ops *check;   /* NULL: the schema's checks are all there is */
    const pcd_importer *import;
    size_t n_import;
    const pcd_model_importer *model;  /* NULL: no profile in it */
    const pcd_format_output *own;     /* the format's own outputs */
    size_t n_own;
} pcd_ext;

/* An output written from the model (src/outputs). */
typedef struct pcd_exporter {
    const char *to;
    const char *help;
    uint32_t needs;           /* every one of these PCD_HAS_* */
    uint32_t needs_any;       /* and at least one of these (0: none needed) */
    size_t state_size;
    /* Sets up the consumer on a zeroed state; options that need no profile are checked here. */
    pcd_status (*open)(void *state, pcd_job *j, pcd_sink *out, struct pcd_consumer *c);
    void (*close)(void *state);
    /* Differential outputs (--base; NULL: the output has none): sets up the consumer of the
     * base profile (job->base), which pcd_convert imports first, to its end, and keeps (tables
     * and all) until the main profile has ended and the output is closed. Called after open. */
    pcd_status (*open_base)(void *state, pcd_job *base, struct pcd_consumer *c);
    uint32_t wants;           /* PCD_WANTS_*: what the output would rather have of an importer */
} pcd_exporter;

/* pcd_exporter.wants: every part of an input (all heap snapshots, not the last one), each as
 * a thread, where the input has several and the user named none (--metric TYPE@N) */
#define PCD_WANTS_EVERY_PART 1u
/* pcd_exporter.wants: the output draws values as widths (flame graphs), so it cannot show a
 * negative value (a difference of profiles): the metric it shows must have none */
#define PCD_WANTS_AMOUNTS 2u
/* pcd_exporter.wants: a picture or a table for people: frames grouped by function unless
 * --granularity says otherwise (format writers keep frames as read; docs/design.md) */
#define PCD_WANTS_GROUPED 4u
/* pcd_exporter.wants: in a reference tool's dialect the output is that tool's bytes (collapsed as
 * austin-python or CPython write it), which keep frames as read: no grouping by default there */
#define PCD_WANTS_DIALECT_BYTES 8u
/* pcd_exporter.wants: the output is binary (a format's bytes, gzip) or a whole page: a tool does
 * not write it to a terminal (the CLI asks for -o or a redirection) */
#define PCD_WANTS_FILE 16u
/* pcd_exporter.wants: the output is several files (a directory of tables), opened through
 * pcd_job.open_part; the sink pcd_convert is given is not written */
#define PCD_WANTS_PARTS 32u

#endif
