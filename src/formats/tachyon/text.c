/* formats/tachyon/text.c: text the way CPython's profiler prints it: Python's repr() of floats
 * and strings. */
#include "formats/tachyon/text.h"

#include "common/text.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t pcd_tachyon_py_float_repr(char *buf, size_t cap, double v)
{
    if (isnan(v)) return (size_t)snprintf(buf, cap, "nan");
    if (isinf(v)) return (size_t)snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    if (v == 0) return (size_t)snprintf(buf, cap, signbit(v) ? "-0.0" : "0.0");
    char digits[24];
    int exp;
    bool neg;
    int nd = pcd_fmt_shortest(v, digits, &exp, &neg);
    char out[64];
    size_t n = 0;
    if (neg) out[n++] = '-';
    if (exp < -4 || exp >= 16) {
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            for (int i = 1; i < nd; i++) out[n++] = digits[i];
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    } else if (exp < 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -exp - 1; i++) out[n++] = '0';
        for (int i = 0; i < nd; i++) out[n++] = digits[i];
    } else {
        int point = exp + 1; /* digits before the decimal point */
        for (int i = 0; i < point; i++) out[n++] = i < nd ? digits[i] : '0';
        out[n++] = '.';
        if (nd > point)
            for (int i = point; i < nd; i++) out[n++] = digits[i];
        else
            out[n++] = '0';
    }
    out[n] = 0;
    return (size_t)snprintf(buf, cap, "%s", out);
}

/* Python's str.isprintable() for one code point, from the general categories that are not
 * printable: Cc, Cf, Cs, Co, Cn (noncharacters), Zl, Zp, and Zs other than the space. */
static bool py_printable(uint32_t c)
{
    if (c < 0x20 || c == 0x7F) return false;
    if (c < 0x7F) return true;
    if (c <= 0x9F || c == 0xA0 || c == 0xAD) return false;
    if (c == 0x600 || (c >= 0x600 && c <= 0x605) || c == 0x61C || c == 0x6DD || c == 0x70F || c == 0x8E2) return false;
    if (c == 0x1680 || c == 0x180E) return false;
    if (c >= 0x2000 && c <= 0x200F) return false;
    if (c >= 0x2028 && c <= 0x202F) return false;
    if (c >= 0x205F && c <= 0x2064) return false;
    if (c >= 0x2066 && c <= 0x206F) return false;
    if (c == 0x3000) return false;
    if (c >= 0xD800 && c <= 0xF8FF) return false; /* surrogates, private use */
    if (c >= 0xFDD0 && c <= 0xFDEF) return false;
    if (c == 0xFEFF) return false;
    if (c >= 0xFFF9 && c <= 0xFFFB) return false;
    if ((c & 0xFFFE) == 0xFFFE) return false;   /* U+xFFFE, U+xFFFF */
    if (c == 0x110BD || c == 0x110CD) return false;
    if (c >= 0x1BCA0 && c <= 0x1BCA3) return false;
    if (c >= 0x1D173 && c <= 0x1D17A) return false;
    if (c == 0xE0001 || (c >= 0xE0020 && c <= 0xE007F)) return false;
    if (c >= 0xF0000) return false;             /* private use planes */
    return true;
}

size_t pcd_tachyon_py_str_repr(const uint8_t *p, size_t n, char *out)
{
    bool sq = memchr(p, '\'', n) != NULL, dq = memchr(p, '"', n) != NULL;
    char quote = (sq && !dq) ? '"' : '\'';
    size_t o = 0, i = 0;
    out[o++] = quote;
    while (i < n) {
        uint8_t b = p[i];
        uint32_t c;
        size_t k;
        if (b < 0x80) { c = b; k = 1; }
        else if (b < 0xE0) { c = b & 0x1F; k = 2; }
        else if (b < 0xF0) { c = b & 0x0F; k = 3; }
        else { c = b & 0x07; k = 4; }
        if (i + k > n) k = n - i; /* not expected: the input is well-formed */
        for (size_t j = 1; j < k; j++) c = (c << 6) | (p[i + j] & 0x3F);
        if (c == (uint32_t)quote || c == '\\') {
            out[o++] = '\\';
            out[o++] = (char)c;
        } else if (c == '\t') {
            out[o++] = '\\';
            out[o++] = 't';
        } else if (c == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if (c == '\r') {
            out[o++] = '\\';
            out[o++] = 'r';
        } else if (py_printable(c)) {
            memcpy(out + o, p + i, k);
            o += k;
        } else if (c < 0x100) {
            o += (size_t)sprintf(out + o, "\\x%02x", c);
        } else if (c < 0x10000) {
            o += (size_t)sprintf(out + o, "\\u%04x", c);
        } else {
            o += (size_t)sprintf(out + o, "\\U%08x", c);
        }
        i += k;
    }
    out[o++] = quote;
    return o;
}
