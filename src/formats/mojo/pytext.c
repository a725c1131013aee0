/* formats/mojo/pytext.c: numbers as Python writes them, for Austin's text output: a thread
 * id's int(text, 16) in decimal (austin-python's conversion, with Python's whitespace, sign,
 * prefix, underscore and digit-count rules), and sign-and-magnitude values as Python prints
 * an int. */
#include "formats/mojo/asm.h"

#include <stdio.h>
#include <string.h>

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Length of a non-ASCII whitespace character (as Python's str.isspace() sees it) at p, or 0. */
static size_t uni_space(const uint8_t *p, size_t n)
{
    if (n >= 2 && p[0] == 0xC2 && (p[1] == 0x85 || p[1] == 0xA0)) return 2;
    if (n >= 3 && p[0] == 0xE1 && p[1] == 0x9A && p[2] == 0x80) return 3;             /* U+1680 */
    if (n >= 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] <= 0x8A || p[2] == 0xA8 || p[2] == 0xA9 || p[2] == 0xAF))
        return 3;                                                                     /* U+2000-200A, 2028, 2029, 202F */
    if (n >= 3 && p[0] == 0xE2 && p[1] == 0x81 && p[2] == 0x9F) return 3;             /* U+205F */
    if (n >= 3 && p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) return 3;             /* U+3000 */
    return 0;
}

static size_t space_at(const uint8_t *p, size_t n)
{
    if (!n) return 0;
    uint8_t c = p[0];
    if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
    return c >= 0x80 ? uni_space(p, n) : 0;
}

size_t pcd_mojo_py_hex_to_dec(const uint8_t *p, size_t n, char *out, size_t cap)
{
    size_t i = 0, j = n;
    while (i < j) {
        size_t k = space_at(p + i, j - i);
        if (!k) break;
        i += k;
    }
    /* trailing whitespace: scan forwards for the last non-space character */
    {
        size_t last = i, q = i;
        while (q < j) {
            size_t k = space_at(p + q, j - q);
            if (k) q += k;
            else last = ++q;
        }
        j = last;
    }
    bool neg = false;
    if (i < j && (p[i] == '+' || p[i] == '-')) neg = p[i++] == '-';
    if (j - i >= 2 && p[i] == '0' && (p[i + 1] == 'x' || p[i + 1] == 'X')) {
        i += 2;
        if (i < j && p[i] == '_') i++; /* 0x_ff */
    }
    if (i >= j) return 0;
    /* digits with single underscores between them */
    size_t sig = 0;
    bool leading = true, prev_us = true;
    for (size_t q = i; q < j; q++) {
        if (p[q] == '_') {
            if (prev_us) return 0;
            prev_us = true;
            continue;
        }
        int v = hexval(p[q]);
        if (v < 0) return 0;
        prev_us = false;
        if (leading && v == 0) continue;
        leading = false;
        sig++;
    }
    if (prev_us) return 0;
    /* 16^3572 > 10^4300: surely too many digits for Python to print */
    if (sig > 3572) return 0;
    /* base 10^9 limbs, most significant last */
    uint32_t limb[512];
    size_t nl = 0;
    for (size_t q = i; q < j; q++) {
        int v = p[q] == '_' ? -1 : hexval(p[q]);
        if (v < 0) continue;
        uint64_t carry = (uint64_t)v;
        for (size_t k = 0; k < nl; k++) {
            uint64_t t = (uint64_t)limb[k] * 16 + carry;
            limb[k] = (uint32_t)(t % 1000000000u);
            carry = t / 1000000000u;
        }
        if (carry) limb[nl++] = (uint32_t)carry;
    }
    char tmp[MOJO_PY_MAX_STR_DIGITS + 16];
    size_t len = 0;
    if (nl == 0) {
        tmp[len++] = '0';
        neg = false;
    } else {
        len = (size_t)snprintf(tmp, sizeof tmp, "%u", limb[nl - 1]);
        for (size_t k = nl - 1; k-- > 0;) {
            if (len + 9 > MOJO_PY_MAX_STR_DIGITS + 1) return 0;
            len += (size_t)snprintf(tmp + len, sizeof tmp - len, "%09u", limb[k]);
        }
    }
    if (len > MOJO_PY_MAX_STR_DIGITS) return 0;
    if (len + neg > cap) return 0;
    size_t o = 0;
    if (neg) out[o++] = '-';
    memcpy(out + o, tmp, len);
    return o + len;
}

size_t pcd_mojo_int_text(char *buf, pcd_mojo_int v)
{
    char t[24];
    size_t k = 0;
    uint64_t m = v.mag;
    do {
        t[k++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    size_t n = 0;
    if (v.neg && v.mag) buf[n++] = '-';
    while (k) buf[n++] = t[--k];
    return n;
}
