/* formats/tachyon/text.h: text the way CPython's profiler prints it (Python's repr() of floats
 * and strings), for outputs that must match it byte for byte. (Its UTF-8 decoding with
 * errors="replace" is common/text.h's pcd_utf8_replace.) */
#ifndef PCD_TACHYON_TEXT_H
#define PCD_TACHYON_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Python's repr() of a float: the shortest digits that read back exactly, fixed notation
 * for exponents -4..15, else d.ddde+XX; "inf", "-inf", "nan". Returns the length. */
size_t pcd_tachyon_py_float_repr(char *buf, size_t cap, double v);

/* Python's repr() of a str given as well-formed UTF-8 (as common/text.h's pcd_utf8_replace leaves it):
 * quotes chosen as Python does, \\ \t \n \r and the quote escaped, control and other
 * non-printable characters as \xNN, \uNNNN or \UNNNNNNNN. Python's notion of printable comes
 * from the Unicode database; this uses its general categories for the blocks in use
 * (controls, format characters, separators, private use, surrogates, noncharacters) and
 * counts every other code point as printable. Returns the bytes written (no NUL);
 * out must hold 10 * n + 2 bytes. */
size_t pcd_tachyon_py_str_repr(const uint8_t *p, size_t n, char *out);

#endif
