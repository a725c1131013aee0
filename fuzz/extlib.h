/* extlib.h: what a user runs on a file, for the hand-written harnesses that go above the
 * bytes: the format's checks (replayed as `profcodec validate` does), then every conversion
 * `profcodec formats` lists for it, each on a fresh reader, with the tool's memory limit. */
#ifndef PCD_FUZZ_EXTLIB_H
#define PCD_FUZZ_EXTLIB_H

#include "pcd.h"

/* Runs the checks, `info`, every conversion of format `name` (schema f) on data, and one
 * conversion more with options drawn from the input's own bytes (output, --all, --metric,
 * --dialect, --compression, --version, --base the same input, grouping and filters). Aborts on a
 * broken invariant: a leak, an internal error, a conversion failing for a reason other than
 * the input, or a file the checks find valid that does not convert. */
void pcd_fuzz_ext(const char *name, const pcd_format *f, const uint8_t *data, size_t size);
/* The same for a harness that ran some conversions its own way already: the checks, one
 * conversion with options drawn from the input's bytes (any output), and every conversion not
 * in done (NULL-ended); `info` only when done is NULL (pcd_fuzz_ext: info runs too). */
void pcd_fuzz_ext_some(const char *name, const pcd_format *f, const uint8_t *data, size_t size,
                       const char *const *done);

/* The text formats (collapsed, Austin, speedscope): detection on the bytes, then every text
 * format's importer into every output it gives, on the bytes as they are. Aborts on a broken
 * invariant: a text format told for bytes that are not text, a leak, an internal error, a
 * conversion failing for a reason other than the input. */
void pcd_fuzz_text(const uint8_t *data, size_t size);

#endif
