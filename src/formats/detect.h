/* formats/detect.h: which format an input is, from its first bytes (the CLI and the Python
 * module both open inputs this way). */
#ifndef PCD_FORMATS_DETECT_H
#define PCD_FORMATS_DETECT_H

#include "pcd.h"

/* Why no format was found. */
typedef struct pcd_detect_why {
    bool unknown;             /* no format's magic matches: "cannot tell the format" */
    bool has_error;           /* a format's magic matched and its root failed: err says where */
    pcd_error err;
    char msg[640];            /* what to tell the user (without the input's name) */
} pcd_detect_why;

/* The format among fmts[0..n_fmts) whose magic matches head[0..n) and whose root record
 * decodes from it (whole: head is the whole input), or NULL with *why filled. */
const pcd_format *pcd_detect(const pcd_format *const *fmts, size_t n_fmts, const uint8_t *head, size_t n,
                             bool whole, pcd_detect_why *why);

/* Does some format's magic match head and its root record end within it? (A pipe still being
 * written is peeked at until its start names a format.) */
bool pcd_detect_known_start(const pcd_format *const *fmts, size_t n_fmts, const uint8_t *head, size_t n);

/* A format named NAME or NAME:VERSION among fmts (the newest version when none is named). */
const pcd_format *pcd_detect_find(const pcd_format *const *fmts, size_t n_fmts, const char *spec);

#endif
