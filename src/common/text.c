/* common/text.c: numbers, formatted text and JSON strings into a sink. */
#include "common/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

pcd_status pcd_text_vprintf(pcd_sink *s, const char *fmt, va_list ap)
{
    char buf[512];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return PCD_E_ARG;
    }
    if ((size_t)n < sizeof buf) {
        va_end(ap2);
        return pcd_sink_put(s, buf, (size_t)n);
    }
    /* longer than the stack buffer: format straight into the sink's buffer when it fits,
     * else in pieces through a flush */
    pcd_status st = pcd_sink_flush(s);
    if (st == PCD_OK && s->cap - s->len > (size_t)n) {
        vsnprintf((char *)s->buf + s->len, (size_t)n + 1, fmt, ap2);
        s->len += (size_t)n;
    } else if (st == PCD_OK) {
        st = PCD_E_LIMIT; /* a single formatted piece larger than the sink's buffer */
    }
    va_end(ap2);
    return st;
}

pcd_status pcd_text_printf(pcd_sink *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pcd_status st = pcd_text_vprintf(s, fmt, ap);
    va_end(ap);
    return st;
}

/* "00" .. "99": two digits a division */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

size_t pcd_text_u64_digits(char *buf, uint64_t v)
{
    if (v < 10) {
        buf[0] = (char)('0' + v);
        return 1;
    }
    char t[24];
    size_t k = sizeof t;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        k -= 2;
        memcpy(t + k, digit_pairs + 2 * r, 2);
    }
    if (v >= 10) {
        k -= 2;
        memcpy(t + k, digit_pairs + 2 * v, 2);
    } else {
        t[--k] = (char)('0' + v);
    }
    memcpy(buf, t + k, sizeof t - k);
    return sizeof t - k;
}

size_t pcd_text_i64_digits(char *buf, int64_t v)
{
    if (v >= 0) return pcd_text_u64_digits(buf, (uint64_t)v);
    buf[0] = '-';
    return 1 + pcd_text_u64_digits(buf + 1, (uint64_t)0 - (uint64_t)v);
}

pcd_status pcd_text_u64(pcd_sink *s, uint64_t v)
{
    /* straight into the sink's buffer when 20 digits fit */
    if (PCD_LIKELY(s->cap - s->len >= 24)) {
        s->len += pcd_text_u64_digits((char *)s->buf + s->len, v);
        return PCD_OK;
    }
    char b[24];
    return pcd_sink_put(s, b, pcd_text_u64_digits(b, v));
}

pcd_status pcd_text_i64(pcd_sink *s, int64_t v)
{
    if (PCD_LIKELY(s->cap - s->len >= 24)) {
        s->len += pcd_text_i64_digits((char *)s->buf + s->len, v);
        return PCD_OK;
    }
    char b[24];
    return pcd_sink_put(s, b, pcd_text_i64_digits(b, v));
}

#define JS_MAX_SAFE ((UINT64_C(1) << 53) - 1)

pcd_status pcd_text_json_uint(pcd_sink *s, uint64_t v) { return pcd_text_u64(s, v > JS_MAX_SAFE ? JS_MAX_SAFE : v); }

pcd_status pcd_text_json_int(pcd_sink *s, int64_t v)
{
    if (v > (int64_t)JS_MAX_SAFE) v = (int64_t)JS_MAX_SAFE;
    if (v < -(int64_t)JS_MAX_SAFE) v = -(int64_t)JS_MAX_SAFE;
    return pcd_text_i64(s, v);
}

size_t pcd_text_utc_ns(char *buf, size_t cap, uint64_t ns)
{
    time_t sec = (time_t)(ns / 1000000000u);
    struct tm tm;
    char d[32] = "";
    if (gmtime_r(&sec, &tm)) strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    int n = snprintf(buf, cap, "%s.%09" PRIu64 "Z", d, ns % 1000000000u);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

/* ---- memory sinks ---------------------------------------------------------------------- */

int pcd_fmt_shortest(double v, char digits[24], int *exp, bool *neg)
{
    char e[40];
    int prec;
    for (prec = 1; prec <= 17; prec++) {
        snprintf(e, sizeof e, "%.*e", prec - 1, v);
        if (strtod(e, NULL) == v) break;
    }
    /* e = [-]d.ddddde[+-]xx */
    int nd = 0;
    const char *p = e;
    *neg = false;
    if (*p == '-') {
        *neg = true;
        p++;
    }
    for (; *p && *p != 'e'; p++)
        if (*p != '.') digits[nd++] = *p;
    *exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    return nd;
}

size_t pcd_fmt_rust_f64(char *buf, size_t cap, double v)
{
    if (isnan(v)) return (size_t)snprintf(buf, cap, "NaN");
    if (isinf(v)) return (size_t)snprintf(buf, cap, v > 0 ? "inf" : "-inf");
    if (v == 0) return (size_t)snprintf(buf, cap, signbit(v) ? "-0" : "0");
    char digits[24];
    int exp;
    bool neg;
    int nd = pcd_fmt_shortest(v, digits, &exp, &neg);
    char out[400];
    size_t n = 0;
    if (neg) out[n++] = '-';
    int point = exp + 1; /* digits before the decimal point */
    if (point <= 0) {
        out[n++] = '0';
        out[n++] = '.';
        for (int i = 0; i < -point; i++) out[n++] = '0';
        for (int i = 0; i < nd; i++) out[n++] = digits[i];
    } else if (point >= nd) {
        for (int i = 0; i < nd; i++) out[n++] = digits[i];
        for (int i = nd; i < point; i++) out[n++] = '0';
    } else {
        for (int i = 0; i < point; i++) out[n++] = digits[i];
        out[n++] = '.';
        for (int i = point; i < nd; i++) out[n++] = digits[i];
    }
    out[n] = 0;
    return (size_t)snprintf(buf, cap, "%s", out);
}

static pcd_status memsink_write(void *ud, const uint8_t *p, size_t n)
{
    pcd_memsink *m = ud;
    if (n > m->cap - m->len) {
        size_t ncap = m->cap ? m->cap : 4096;
        while (ncap - m->len < n) {
            if (ncap > SIZE_MAX / 2) return PCD_E_NOMEM;
            ncap *= 2;
        }
        uint8_t *q = pcd_alloc_resize(m->al, m->data, m->cap, ncap);
        if (!q) return PCD_E_NOMEM;
        m->data = q;
        m->cap = ncap;
    }
    memcpy(m->data + m->len, p, n);
    m->len += n;
    return PCD_OK;
}

void pcd_memsink_init(pcd_memsink *m, pcd_alloc *al)
{
    m->al = al;
    m->data = NULL;
    m->len = m->cap = 0;
    pcd_ctx_init(&m->x, NULL);
    pcd_sink_init(&m->sink, m->buf, sizeof m->buf, memsink_write, NULL, m, &m->x);
}

void pcd_memsink_free(pcd_memsink *m)
{
    if (m->data) pcd_alloc_free(m->al, m->data, m->cap);
    m->data = NULL;
    m->len = m->cap = 0;
}

/* ---- UTF-8 ------------------------------------------------------------------------- */

/* Length of the well-formed sequence at p (1..4), or 0 when there is none; *subpart gets
 * the length of the maximal ill-formed subpart then (>= 1). */
static size_t utf8_seq(const uint8_t *p, size_t n, size_t *subpart)
{
    uint8_t b = p[0];
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) len = 2;
    else if (b == 0xE0) { len = 3; lo = 0xA0; }
    else if (b >= 0xE1 && b <= 0xEC) len = 3;
    else if (b == 0xED) { len = 3; hi = 0x9F; } /* no surrogates */
    else if (b >= 0xEE && b <= 0xEF) len = 3;
    else if (b == 0xF0) { len = 4; lo = 0x90; }
    else if (b >= 0xF1 && b <= 0xF3) len = 4;
    else if (b == 0xF4) { len = 4; hi = 0x8F; }
    else {
        *subpart = 1;
        return 0;
    }
    size_t k = 1;
    for (; k < len && k < n; k++) {
        uint8_t c = p[k];
        uint8_t l = k == 1 ? lo : 0x80, h = k == 1 ? hi : 0xBF;
        if (c < l || c > h) break;
    }
    if (k == len) return len;
    *subpart = k; /* the lead byte and the continuation bytes that were right so far */
    return 0;
}

size_t pcd_utf8_valid_prefix(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t sub = 0, k = utf8_seq(p + i, n - i, &sub);
        if (!k) break;
        i += k;
    }
    return i;
}

size_t pcd_utf8_replace(const uint8_t *p, size_t n, uint8_t *out)
{
    size_t i = 0, o = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            out[o++] = p[i++];
            continue;
        }
        size_t sub = 0, k = utf8_seq(p + i, n - i, &sub);
        if (k) {
            memcpy(out + o, p + i, k);
            o += k;
            i += k;
        } else {
            out[o++] = 0xEF;
            out[o++] = 0xBF;
            out[o++] = 0xBD;
            i += sub;
        }
    }
    return o;
}

/* ---- JSON strings --------------------------------------------------------------------- */

static const char hexd[] = "0123456789abcdef";

static pcd_status json_escape(pcd_sink *s, uint8_t ch)
{
    switch (ch) {
    case '"': return pcd_sink_put(s, "\\\"", 2);
    case '\\': return pcd_sink_put(s, "\\\\", 2);
    case '\n': return pcd_sink_put(s, "\\n", 2);
    case '\r': return pcd_sink_put(s, "\\r", 2);
    case '\t': return pcd_sink_put(s, "\\t", 2);
    case '\b': return pcd_sink_put(s, "\\b", 2);
    case '\f': return pcd_sink_put(s, "\\f", 2);
    default: {
        char esc[6] = { '\\', 'u', '0', '0', hexd[ch >> 4], hexd[ch & 15] };
        return pcd_sink_put(s, esc, 6);
    }
    }
}

pcd_status pcd_text_json(pcd_sink *s, const uint8_t *p, size_t n)
{
    if (!n) return pcd_sink_put(s, "\"\"", 2); /* p may be NULL (an empty memory sink) */
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    size_t run = 0, i = 0;
    while (i < n) {
        uint8_t ch = p[i];
        if (PCD_LIKELY(ch >= 0x20 && ch < 0x80 && ch != '"' && ch != '\\')) {
            i++;
            continue;
        }
        if (ch >= 0x80) {
            size_t sub = 0, k = utf8_seq(p + i, n - i, &sub);
            if (k) {
                i += k;
                continue;
            }
            PCD_TRY(pcd_sink_put(s, p + run, i - run));
            PCD_TRY(pcd_sink_put(s, "\\ufffd", 6));
            i += sub;
            run = i;
            continue;
        }
        PCD_TRY(pcd_sink_put(s, p + run, i - run));
        PCD_TRY(json_escape(s, ch));
        run = ++i;
    }
    PCD_TRY(pcd_sink_put(s, p + run, n - run));
    return pcd_sink_put(s, "\"", 1);
}

/* ---- collapsed stacks ---------------------------------------------------------------- */

pcd_status pcd_text_collapsed(pcd_sink *s, const uint8_t *p, size_t n, pcd_collapsed_escape esc)
{
    if (esc == PCD_COLLAPSED_RAW) return pcd_sink_put(s, p, n);
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && p[j] != ';' && p[j] != '\n' && p[j] != '\r') j++;
        PCD_TRY(pcd_sink_put(s, p + i, j - i));
        if (j < n) PCD_TRY(pcd_sink_put(s, p[j] == ';' ? ":" : " ", 1));
        i = j + 1;
    }
    return PCD_OK;
}
