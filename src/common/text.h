/* common/text.h: text and JSON written to a sink: numbers, formatted lines, and the one JSON
 * string writer every output uses. */
#ifndef PCD_COMMON_TEXT_H
#define PCD_COMMON_TEXT_H

#include <stdarg.h>

#include "pcd.h"

/* printf into the sink (any length). */
pcd_status pcd_text_printf(pcd_sink *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
pcd_status pcd_text_vprintf(pcd_sink *s, const char *fmt, va_list ap);

/* Are the bytes exactly the C string z? */
PCD_INLINE bool pcd_bytes_is(pcd_bytes b, const char *z) { return b.len == strlen(z) && memcmp(b.ptr, z, b.len) == 0; }

PCD_INLINE pcd_status pcd_text_z(pcd_sink *s, const char *z) { return pcd_sink_put(s, z, strlen(z)); }
PCD_INLINE pcd_status pcd_text_bytes(pcd_sink *s, pcd_bytes b) { return pcd_sink_put(s, b.ptr, b.len); }

/* Decimal digits of v into buf (at least 21 bytes); returns the length. */
size_t pcd_text_u64_digits(char *buf, uint64_t v);
size_t pcd_text_i64_digits(char *buf, int64_t v);
pcd_status pcd_text_u64(pcd_sink *s, uint64_t v);
pcd_status pcd_text_i64(pcd_sink *s, int64_t v);

/* ns since the Unix epoch as UTC with nanoseconds, "2026-11-22T06:43:50.430572552Z", into
 * buf (at least 64 bytes); returns the length. */
size_t pcd_text_utc_ns(char *buf, size_t cap, uint64_t ns);
/* The one float formatter's core: the shortest decimal digits of v (finite, not 0) that read
 * back exactly, without the point and trailing zeros (at least one); *exp is the exponent of
 * the first digit (v = d.ddd * 10^exp) and *neg the sign. Returns the number of digits. The
 * notations below (and Python's repr, formats/tachyon/text.h) write them. */
int pcd_fmt_shortest(double v, char digits[24], int *exp, bool *neg);
/* Writes a double the way Rust's Display does (shortest digits, never an exponent). */
size_t pcd_fmt_rust_f64(char *buf, size_t cap, double v);

/* A JSON string, quoted: '"', '\' and control characters escaped (\b \f \n \r \t, else
 * \u00XX), valid UTF-8 as it is, and each maximal invalid part of the bytes replaced by
 * U+FFFD (the way Python's bytes.decode("utf-8", "replace") does; written \ufffd), so the
 * output is always valid JSON and valid UTF-8 whatever the input bytes are. */
pcd_status pcd_text_json(pcd_sink *s, const uint8_t *p, size_t n);
PCD_INLINE pcd_status pcd_text_json_z(pcd_sink *s, const char *z)
{
    return pcd_text_json(s, (const uint8_t *)z, strlen(z));
}
/* A number JavaScript reads back exactly: magnitudes above 2^53-1 are clamped to it. */
pcd_status pcd_text_json_int(pcd_sink *s, int64_t v);
pcd_status pcd_text_json_uint(pcd_sink *s, uint64_t v);

/* How a name is made safe inside a collapsed-stack line (frames separated by ';', the value
 * after the last space, one stack a line). */
typedef enum pcd_collapsed_escape {
    PCD_COLLAPSED_RAW = 0,        /* nothing replaced (CPython's own collapsed output) */
    PCD_COLLAPSED_SAFE = 1        /* ';' -> ':', '\r' and '\n' -> ' ' */
} pcd_collapsed_escape;
pcd_status pcd_text_collapsed(pcd_sink *s, const uint8_t *p, size_t n, pcd_collapsed_escape esc);

/* A sink into memory that grows on an allocator: what was written is data[0..len) after
 * pcd_memsink_flush (or pcd_sink_tell bytes from the start at any time). */
typedef struct pcd_memsink {
    pcd_sink sink;
    pcd_ctx x;
    pcd_alloc *al;
    uint8_t *data;
    size_t len, cap;
    uint8_t buf[4096];
} pcd_memsink;

void pcd_memsink_init(pcd_memsink *m, pcd_alloc *al);
PCD_INLINE pcd_status pcd_memsink_flush(pcd_memsink *m) { return pcd_sink_flush(&m->sink); }
void pcd_memsink_free(pcd_memsink *m);

/* The bytes of the longest valid UTF-8 prefix of p[0..n) (how far it is valid). */
size_t pcd_utf8_valid_prefix(const uint8_t *p, size_t n);
/* Decodes UTF-8 as Python's bytes.decode("utf-8", "replace") does and writes the result back
 * as UTF-8: every maximal ill-formed subsequence (Unicode 3.9, "U+FFFD substitution of
 * maximal subparts"), encoded surrogates included, becomes U+FFFD. out must hold
 * PCD_UTF8_REPLACED_MAX(n) bytes. Returns the output length. */
#define PCD_UTF8_REPLACED_MAX(n) ((n) * 3)
size_t pcd_utf8_replace(const uint8_t *p, size_t n, uint8_t *out);

#endif
