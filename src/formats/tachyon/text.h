/* formats/tachyon/text.h: text the way CPython's profiler prints it (UTF-8 decoding with
 * errors="replace", os.path.basename, float repr), for outputs that must match it byte
 * for byte. */
#ifndef TACHYON_TEXT_H
#define TACHYON_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bytes needed to hold tach_utf8_replace of n input bytes. */
#define TACH_REPLACED_MAX(n) ((n) * 3)

/* Decodes UTF-8 as Python's bytes.decode("utf-8", "replace") does and writes the result
 * back as UTF-8: every maximal ill-formed subsequence (Unicode 3.9, "U+FFFD substitution of
 * maximal subparts"), encoded surrogates included, becomes U+FFFD. out must hold
 * TACH_REPLACED_MAX(n) bytes. Returns the output length. */
size_t tach_utf8_replace(const uint8_t *p, size_t n, uint8_t *out);

/* True when p is well-formed UTF-8 (no replacement needed). */
bool tach_utf8_ok(const uint8_t *p, size_t n);

/* posixpath.basename: what follows the last '/'. */
const uint8_t *tach_basename(const uint8_t *p, size_t n, size_t *out_len);

/* Python's repr() of a float: the shortest digits that read back exactly, fixed notation
 * for exponents -4..15, else d.ddde+XX; "inf", "-inf", "nan". Returns the length. */
size_t tach_py_float_repr(char *buf, size_t cap, double v);

/* Python's repr() of a str given as well-formed UTF-8 (as tach_utf8_replace leaves it):
 * quotes chosen as Python does, \\ \t \n \r and the quote escaped, control and other
 * non-printable characters as \xNN, \uNNNN or \UNNNNNNNN. Python's notion of printable comes
 * from the Unicode database; this uses its general categories for the blocks in use
 * (controls, format characters, separators, private use, surrogates, noncharacters) and
 * counts every other code point as printable. Returns the bytes written (no NUL);
 * out must hold 10 * n + 2 bytes. */
size_t tach_py_str_repr(const uint8_t *p, size_t n, char *out);

#endif
