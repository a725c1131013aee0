/* model/transform.h: grouping and filters, a stage on the model between an importer and an
 * output (issue 25).
 *
 * The stage is a pcd_consumer: the importer's profile hands its events to it, and it hands them
 * on, mapped, to a profile of its own (pcd_transform_profile), whose consumer is the output's.
 * Frames are mapped to grouped frames (--granularity, --trim-path), stacks to filtered stacks
 * (--hide, --show, --prune-from), and samples are kept or dropped (--focus, --ignore, --tag,
 * --thread, --from, --until) as they come: every map is a memo indexed by the input's ids, so
 * memory grows with what is distinct, and no sample is kept (streaming stays streaming). The
 * output sees a profile made only of what passed: its tables hold no frame it is not shown.
 *
 * The meanings are pprof's (docs/design.md, "Grouping and filters"); regexes are POSIX extended
 * (regcomp's REG_EXTENDED), matched against a frame's function name, its file (after
 * --trim-path) and its module, as pprof matches name, file and mapping.
 *
 * When neither an option nor the output's default granularity asks for anything (a format
 * writer, html, chrome, a reference dialect's collapsed) the stage is not installed at all
 * (pcd_transform_wanted), or steps out at the profile's begin (pcd_transform_passthrough). */
#ifndef PCD_MODEL_TRANSFORM_H
#define PCD_MODEL_TRANSFORM_H

#include "model/profile.h"

/* What one frame of an output stands for. */
typedef enum pcd_granularity {
    PCD_GRAN_DEFAULT = 0,          /* the output's own: function for pictures and text, as read
                                    * (address) for format writers */
    PCD_GRAN_FUNCTION,             /* name and file (and kind, module); positions dropped */
    PCD_GRAN_LINE,                 /* name, file and line */
    PCD_GRAN_ADDRESS,              /* every field, as the importer made the frame */
} pcd_granularity;

extern const char *const pcd_granularity_names[4];
/* "function", "line", "address" (also pprof's "functions", "lines", "addresses"); -1 if none */
int pcd_granularity_parse(const char *s);

#define PCD_FILTER_MAX 16          /* of each repeatable option */

/* The user's options (views of the caller's strings, valid while the stage runs). */
typedef struct pcd_filter_opts {
    pcd_granularity granularity;
    const char *focus, *ignore, *hide, *show, *prune_from;   /* regexes, or NULL */
    const char *show_from;         /* a regex, or NULL: each stack starts at its outermost frame
                                    * that matches (pprof's -show_from); samples without one go */
    const char *tags[PCD_FILTER_MAX];     /* KEY=VALUE: a label KEY whose text matches the regex
                                           * VALUE (anchored), or whose number equals VALUE; or
                                           * pprof's -tagfocus range of numbers with units
                                           * (1kb:2kb, :64kb, 1mb:, 32kb) on KEY's numbers */
    size_t n_tags;
    const char *threads[PCD_FILTER_MAX];  /* a thread id (decimal, or as the source writes it)
                                           * or name: samples of any of them are kept */
    size_t n_threads;
    const char *trim_paths[PCD_FILTER_MAX]; /* prefixes taken off file paths (the first that fits) */
    size_t n_trim_paths;
    bool has_from, has_until;
    double from, until;            /* seconds after the profile's time 0 */
    /* set by the pipeline: the dialect the user asked for (-1: the input's own). Where the
     * granularity is the output's default and the dialect is a reference tool's (collapsed as
     * austin-python or CPython write it), frames stay as read: that tool's bytes are the
     * output's */
    int dialect;
    bool dialect_bytes;            /* set by the pipeline: the output has a reference tool's bytes
                                    * in such a dialect (PCD_WANTS_DIALECT_BYTES) */
} pcd_filter_opts;

/* Is there a filter (anything but the granularity)? */
bool pcd_filter_opts_any(const pcd_filter_opts *o);
/* The granularity an output gets: the option, else function for outputs that group (pictures
 * and text) and address (as read) for the others. */
pcd_granularity pcd_granularity_for(const pcd_filter_opts *o, bool output_groups);
/* Is the stage needed at all (a filter, or a granularity other than address)? */
bool pcd_transform_wanted(const pcd_filter_opts *o, pcd_granularity g);
/* Checks the options without a profile (regexes compile, KEY=VALUE, the time range): PCD_OK,
 * or PCD_E_ARG with the reason in msg. */
pcd_status pcd_filter_opts_check(const pcd_filter_opts *o, char *msg, size_t cap);
/* Formats the options the user gave, for messages ("--focus sha256 --thread 1"). */
void pcd_filter_opts_describe(const pcd_filter_opts *o, char *buf, size_t cap);

typedef struct pcd_transform pcd_transform;

/* Opens the stage: *outer is the consumer the importer's profile hands its events to, inner the
 * output's (whose profile is pcd_transform_profile). PCD_OK, or a status with msg (an invalid
 * regex: PCD_E_ARG). */
pcd_status pcd_transform_open(pcd_transform **t, pcd_alloc *al, const pcd_filter_opts *o, pcd_granularity g,
                              const pcd_consumer *inner, pcd_consumer *outer, char *msg, size_t cap);
/* The profile the output sees (the caller sets its before_end and names). */
pcd_profile *pcd_transform_profile(pcd_transform *t);
/* What went in and what passed: samples, and the sums of every type over all samples read
 * (saturating; signed types as int64_t), for percentages of the whole as pprof prints them. */
uint64_t pcd_transform_samples_in(const pcd_transform *t);
const uint64_t *pcd_transform_totals_in(const pcd_transform *t);
/* A time range was asked (--from/--until) and no sample that came in had a time (an input
 * whose samples only may have times, PCD_HAS_SOME_TIMES: a Mono log without sample hits). */
bool pcd_transform_untimed(const pcd_transform *t);
/* Why a profile with samples may pass none: "" when no filter drops samples. */
const char *pcd_transform_why(const pcd_transform *t);
/* The stage found at the profile's begin that it had nothing to do (a reference tool's dialect
 * with the default granularity, and no filter): the importer's profile was handed to the output
 * itself (its consumer and before_end), and the stage's own profile stays empty. */
bool pcd_transform_passthrough(const pcd_transform *t);
void pcd_transform_close(pcd_transform *t);

#endif
