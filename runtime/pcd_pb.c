/* pcd_pb.c: protobuf's wire format: failures, unknown fields, packed runs, layouts as text. */
#include "pcd_pb.h"

#include <stdio.h>
#include <string.h>

pcd_status pcd_pb_fail_key(const pcd_cursor *c, const uint8_t *at, const char *name, uint64_t key)
{
    if (key > UINT32_MAX)
        return pcd_fail(c, at, PCD_E_RANGE, name, "a field key (number << 3 | wire type) below 2^32", PCD_FOUND_HEX, key);
    return pcd_fail(c, at, PCD_E_RANGE, name, "a field number of at least 1 (the key's bits above its wire type)",
                    PCD_FOUND_UINT, key >> 3);
}

pcd_status pcd_pb_fail_wire(const pcd_cursor *c, const uint8_t *at, const char *name, const char *expected,
                            uint32_t key)
{
    pcd_fail(c, at, PCD_E_BAD_TAG, name, expected, PCD_FOUND_TEXT, 0);
    static const char *const wt[8] = { "wire type 0 (varint)", "wire type 1 (i64)", "wire type 2 (len)",
                                       "wire type 3 (a group's start)", "wire type 4 (a group's end)",
                                       "wire type 5 (i32)", "wire type 6", "wire type 7" };
    c->x->err.found_text = wt[key & 7];
    return PCD_E_BAD_TAG;
}

pcd_status pcd_pb_fail_32(const pcd_cursor *c, const uint8_t *at, const char *name, bool is_signed, uint64_t v)
{
    if (is_signed)
        return pcd_fail(c, at, PCD_E_RANGE, name, "an int32 (sign-extended to 64 bits when negative)",
                        PCD_FOUND_INT, v);
    return pcd_fail(c, at, PCD_E_RANGE, name, "a uint32 (at most 4294967295)", PCD_FOUND_UINT, v);
}

pcd_status pcd_pb_fail_depth(const pcd_cursor *c)
{
    uint32_t lim = c->x->lim->max_depth ? c->x->lim->max_depth : 100;
    return pcd_fail(c, c->p, PCD_E_LIMIT, NULL, "messages nested at most as deep as the limit", PCD_FOUND_UINT, lim);
}

/* The value after a key of wire type 0, 1, 2 or 5, into out (NULL: skipped). */
static pcd_status read_value(pcd_cursor *c, const uint8_t *at, uint32_t key, pcd_pb_field *out, const char *name)
{
    pcd_pb_field f = { key >> 3, (uint8_t)(key & 7), 0, { NULL, 0 } };
    switch (key & 7) {
    case PCD_PB_VARINT:
        PCD_TRY(pcd_read_uleb128(c, &f.value, name));
        break;
    case PCD_PB_I64:
        if (PCD_UNLIKELY(pcd_left(c) < 8)) {
            c->p = at;
            return pcd_fail_short(c, c->p, name, "8 bytes (wire type i64)");
        }
        f.value = pcd_ld_u64le(c->p);
        c->p += 8;
        break;
    case PCD_PB_I32:
        if (PCD_UNLIKELY(pcd_left(c) < 4)) {
            c->p = at;
            return pcd_fail_short(c, c->p, name, "4 bytes (wire type i32)");
        }
        f.value = pcd_ld_u32le(c->p);
        c->p += 4;
        break;
    case PCD_PB_LEN: {
        pcd_cursor sub = { NULL, NULL, NULL, false };
        PCD_TRY(pcd_pb_len(c, &sub, name));
        f.bytes.ptr = sub.p;
        f.bytes.len = (size_t)(sub.end - sub.p);
        break;
    }
    case PCD_PB_SGROUP:
    case PCD_PB_EGROUP:
        c->p = at;
        return pcd_fail_text(c, at, PCD_E_BAD_TAG, name, "wire type 0, 1, 2 or 5 (groups, wire types 3 and 4, are not read)",
                             "a group");
    default:
        c->p = at;
        return pcd_fail(c, at, PCD_E_BAD_TAG, name, "wire type 0, 1, 2 or 5", PCD_FOUND_UINT, key & 7);
    }
    if (out) *out = f;
    return PCD_OK;
}

pcd_status pcd_pb_read_other(pcd_cursor *c, uint32_t key, pcd_pb_field *out, const char *name)
{
    return read_value(c, c->p, key, out, name);
}

pcd_status pcd_pb_count_varints(const pcd_cursor *sub, uint64_t *n, const char *name)
{
    uint64_t k = 0;
    for (const uint8_t *p = sub->p; p < sub->end; p++) k += *p < 0x80;
    if (sub->p < sub->end && sub->end[-1] >= 0x80)
        return pcd_fail(sub, sub->end - 1, PCD_E_TRUNCATED, name, "a packed run whose last varint ends in it",
                        PCD_FOUND_HEX, sub->end[-1]);
    *n = k;
    return PCD_OK;
}

pcd_status pcd_pb_skip_varints(pcd_cursor *sub, const char *name)
{
    while (sub->p < sub->end) {
        if (PCD_LIKELY(sub->end - sub->p >= 8 && pcd_leb_skip8(sub))) continue;
        PCD_TRY(pcd_skip_uleb128(sub, name));
    }
    return PCD_OK;
}

pcd_status pcd_pb_count_fixed(const pcd_cursor *sub, unsigned width, uint64_t *n, const char *name)
{
    size_t len = (size_t)(sub->end - sub->p);
    if (len % width)
        return pcd_fail(sub, sub->p, PCD_E_SIZE, name,
                        width == 4 ? "a packed run of whole 4-byte values" : "a packed run of whole 8-byte values",
                        PCD_FOUND_UINT, len);
    *n = len / width;
    return PCD_OK;
}

bool pcd_pb_canon_other(const pcd_pb_run *runs, size_t n, size_t *i, const pcd_pb_field *f, size_t nf)
{
    size_t k = 0;
    while (k < nf) {
        /* consecutive unknown fields of one number are one run */
        size_t j = k + 1;
        while (j < nf && f[j].number == f[k].number && j - k < UINT32_MAX) j++;
        if (!pcd_pb_canon(runs, n, i, PCD_PB_RUN(f[k].number, 0), j - k)) return false;
        k = j;
    }
    return true;
}

uint64_t pcd_pb_other_size(const pcd_pb_field *f)
{
    uint64_t n = pcd_size_uleb128((uint64_t)f->number << 3 | f->wire);
    switch (f->wire) {
    case PCD_PB_VARINT: return n + pcd_size_uleb128(f->value);
    case PCD_PB_I64: return n + 8;
    case PCD_PB_I32: return n + 4;
    default: return n + pcd_size_uleb128(f->bytes.len) + f->bytes.len;
    }
}

pcd_status pcd_pb_put_other(pcd_sink *s, const pcd_pb_field *f)
{
    if (f->number == 0 || f->number > PCD_PB_MAX_NUMBER)
        return pcd_sink_fail(s, PCD_E_RANGE, "_unknown", "a field number 1 .. 2^29 - 1", PCD_FOUND_UINT, f->number);
    PCD_TRY(pcd_put_uleb128(s, (uint64_t)f->number << 3 | f->wire));
    switch (f->wire) {
    case PCD_PB_VARINT: return pcd_put_uleb128(s, f->value);
    case PCD_PB_I64: return pcd_put_u64le(s, f->value);
    case PCD_PB_I32:
        if (f->value > UINT32_MAX)
            return pcd_sink_fail(s, PCD_E_RANGE, "_unknown", "an i32 value (at most 2^32 - 1)", PCD_FOUND_UINT, f->value);
        return pcd_put_u32le(s, (uint32_t)f->value);
    case PCD_PB_LEN:
        PCD_TRY(pcd_put_uleb128(s, f->bytes.len));
        return pcd_sink_put(s, f->bytes.ptr, f->bytes.len);
    }
    return pcd_sink_fail(s, PCD_E_RANGE, "_unknown", "wire type 0, 1, 2 or 5", PCD_FOUND_UINT, f->wire);
}

pcd_status pcd_pb_fail_layout(pcd_sink *s, const char *name, const char *expected, uint64_t found)
{
    return pcd_sink_fail(s, PCD_E_INVALID, name, expected, PCD_FOUND_UINT, found);
}

size_t pcd_pb_layout_format(const pcd_pb_layout *l, char *buf, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < l->n; i++) {
        char t[40];
        uint32_t number = l->runs[i].field >> 1, count = l->runs[i].count;
        int k;
        if (l->runs[i].field & 1) k = snprintf(t, sizeof t, "%s%up%u", i ? " " : "", number, count);
        else if (count == 1) k = snprintf(t, sizeof t, "%s%u", i ? " " : "", number);
        else k = snprintf(t, sizeof t, "%s%u*%u", i ? " " : "", number, count);
        if (k > 0 && len + (size_t)k < cap) memcpy(buf + len, t, (size_t)k);
        len += k > 0 ? (size_t)k : 0;
    }
    if (len < cap) buf[len] = 0;
    else if (cap) buf[cap - 1] = 0;
    return len;
}

/* A decimal number of at most max at *p; moves p past it. */
static bool number_at(const char **p, const char *end, uint64_t max, uint64_t *out)
{
    const char *q = *p;
    uint64_t v = 0;
    if (q >= end || *q < '0' || *q > '9') return false;
    while (q < end && *q >= '0' && *q <= '9') {
        v = v * 10 + (uint64_t)(*q - '0');
        if (v > max) return false;
        q++;
    }
    *p = q;
    *out = v;
    return true;
}

const char *pcd_pb_layout_parse(const char *text, size_t len, pcd_arena *a, pcd_pb_layout *out)
{
    const char *end = text + len;
    size_t runs = 0;
    bool in_run = false;
    for (const char *p = text; p < end; p++) {
        if (*p == ' ') in_run = false;
        else if (!in_run) {
            in_run = true;
            runs++;
        }
    }
    out->n = 0;
    out->runs = NULL;
    if (!runs) return NULL;
    out->runs = pcd_arena_alloc(a, runs * sizeof *out->runs);
    if (!out->runs) return "out of memory";
    const char *p = text;
    while (p < end) {
        while (p < end && *p == ' ') p++;
        if (p == end) break;
        uint64_t number, count = 1;
        bool packed = false;
        if (!number_at(&p, end, PCD_PB_MAX_NUMBER, &number) || number == 0)
            return "a run starts with a field number 1 .. 2^29 - 1 (\"N\", \"N*K\" or \"NpK\")";
        if (p < end && (*p == '*' || *p == 'p')) {
            packed = *p == 'p';
            p++;
            if (!number_at(&p, end, UINT32_MAX, &count)) return "a count after * or p (at most 2^32 - 1)";
            if (!packed && count == 0) return "a run of 0 occurrences (N*0)";
        }
        if (p < end && *p != ' ') return "runs \"N\", \"N*K\" or \"NpK\" separated by spaces";
        out->runs[out->n].field = PCD_PB_RUN(number, packed);
        out->runs[out->n].count = (uint32_t)count;
        out->n++;
    }
    return NULL;
}

/* ---- detection ------------------------------------------------------------------------ */

/* A varint at *p (at most 10 bytes, before end); false when it does not end there. */
static bool det_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 10 && *p + i < end; i++) {
        x |= (uint64_t)((*p)[i] & 0x7F) << (7 * i);
        if (!((*p)[i] & 0x80)) {
            *p += i + 1;
            *v = x;
            return true;
        }
    }
    return false;
}

/* Fields of shapes[s] in [p, end): -1 against, else the number of whole fields. A field of a
 * number the shape names must have one of its wire types; other numbers only a valid wire type;
 * first_known: the first field must be one the shape names; cut: the bytes may end inside the
 * last field. */
static long det_fields(const pcd_pb_shape *shapes, int s, const uint8_t *p, const uint8_t *end, bool first_known,
                       bool cut, unsigned depth)
{
    const pcd_pb_shape *sh = &shapes[s];
    long whole = 0;
    while (p < end) {
        uint64_t key, v;
        if (!det_varint(&p, end, &key)) return cut ? whole : -1;
        if (key < 8 || key > UINT32_MAX) return -1;
        int nested = -1;
        bool known = false, number = false;
        for (uint32_t i = 0; i < sh->n_keys && !known; i++) {
            if ((sh->keys[i] >> 3) == (key >> 3)) number = true;
            if (sh->keys[i] == key) {
                known = true;
                nested = sh->nested[i];
            }
        }
        if (!known && (number || (first_known && whole == 0))) return -1;
        switch (key & 7) {
        case PCD_PB_VARINT:
            if (!det_varint(&p, end, &v)) return cut ? whole : -1;
            break;
        case PCD_PB_I64:
        case PCD_PB_I32: {
            size_t w = (key & 7) == PCD_PB_I64 ? 8 : 4;
            if ((size_t)(end - p) < w) return cut ? whole : -1;
            p += w;
            break;
        }
        case PCD_PB_LEN:
            if (!det_varint(&p, end, &v)) return cut ? whole : -1;
            if (v > (uint64_t)(end - p)) return cut ? whole : -1;
            if (nested >= 0 && depth < 4 && det_fields(shapes, nested, p, p + v, false, false, depth + 1) < 0) return -1;
            p += v;
            break;
        default:
            return -1;
        }
        whole++;
    }
    return whole;
}

int pcd_pb_detect(const pcd_pb_shape *shapes, const uint8_t *p, size_t n)
{
    long whole = det_fields(shapes, 0, p, p + n, true, true, 0);
    return whole > 0 ? 2 : 0;
}
