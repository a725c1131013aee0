/* pcd_json.h: JSON Lines output of decoded records, driven by the descriptor tables. */
#ifndef PCD_JSON_H
#define PCD_JSON_H

#include "pcd_reader.h"

/* Writes one record as a JSON object and a newline. The root record names the
 * format and version. Strings that are not UTF-8 and byte fields become
 * {"hex": "..."}; integers above 2^63-1 become decimal strings; NaN and the
 * infinities become strings. Never allocates. */
pcd_status pcd_json_record(pcd_sink *s, const pcd_format *f, const pcd_record *rec);

/* Low-level pieces, also used by the converters. */
pcd_status pcd_json_string(pcd_sink *s, const uint8_t *p, size_t n);  /* quoted, escaped */
pcd_status pcd_json_text(pcd_sink *s, const uint8_t *p, size_t n);    /* string or {"hex"} */
pcd_status pcd_json_u64(pcd_sink *s, uint64_t v);       /* a string above 2^63-1 (lossless via jansson) */
pcd_status pcd_json_u64_plain(pcd_sink *s, uint64_t v); /* always a bare number */
pcd_status pcd_json_i64(pcd_sink *s, int64_t v);
pcd_status pcd_json_f64(pcd_sink *s, double v);
pcd_status pcd_json_raw(pcd_sink *s, const char *z);
/* Shortest text that reads back as the same double ("1.5", "1e+300"); buf >= 32. */
size_t pcd_fmt_f64(char *buf, double v);

/* Writes the value of one described field (used by the dumper and converters). */
pcd_status pcd_json_value(pcd_sink *s, const pcd_field *fd, const void *base);
/* The elements [first, first + count) of an array field, as a JSON array (explain: the values
 * of one occurrence of a repeated protobuf field). */
pcd_status pcd_json_elements(pcd_sink *s, const pcd_field *fd, const void *base, uint64_t first, uint64_t count);

#endif
