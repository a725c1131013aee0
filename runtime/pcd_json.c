/* pcd_json.c: descriptor-driven JSON writer (no allocation; output goes to a sink). */
#include "pcd_json.h"
#include "pcd_kind.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

pcd_status pcd_json_raw(pcd_sink *s, const char *z) { return pcd_sink_put(s, z, strlen(z)); }

static const char hexd[] = "0123456789abcdef";

pcd_status pcd_json_string(pcd_sink *s, const uint8_t *p, size_t n)
{
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = p[i];
        if (ch >= 0x20 && ch != '"' && ch != '\\') continue;
        PCD_TRY(pcd_sink_put(s, p + run, i - run));
        run = i + 1;
        char esc[6];
        switch (ch) {
        case '"': PCD_TRY(pcd_sink_put(s, "\\\"", 2)); break;
        case '\\': PCD_TRY(pcd_sink_put(s, "\\\\", 2)); break;
        case '\n': PCD_TRY(pcd_sink_put(s, "\\n", 2)); break;
        case '\r': PCD_TRY(pcd_sink_put(s, "\\r", 2)); break;
        case '\t': PCD_TRY(pcd_sink_put(s, "\\t", 2)); break;
        case '\b': PCD_TRY(pcd_sink_put(s, "\\b", 2)); break;
        case '\f': PCD_TRY(pcd_sink_put(s, "\\f", 2)); break;
        default:
            esc[0] = '\\'; esc[1] = 'u'; esc[2] = '0'; esc[3] = '0';
            esc[4] = hexd[ch >> 4]; esc[5] = hexd[ch & 15];
            PCD_TRY(pcd_sink_put(s, esc, 6));
        }
    }
    PCD_TRY(pcd_sink_put(s, p + run, n - run));
    return pcd_sink_put(s, "\"", 1);
}

static pcd_status json_hex(pcd_sink *s, const uint8_t *p, size_t n)
{
    PCD_TRY(pcd_json_raw(s, "{\"hex\":\""));
    for (size_t i = 0; i < n; i++) {
        char h[2] = { hexd[p[i] >> 4], hexd[p[i] & 15] };
        PCD_TRY(pcd_sink_put(s, h, 2));
    }
    return pcd_json_raw(s, "\"}");
}

pcd_status pcd_json_text(pcd_sink *s, const uint8_t *p, size_t n)
{
    if (pcd_utf8_valid(p, n)) return pcd_json_string(s, p, n);
    return json_hex(s, p, n);
}

pcd_status pcd_json_u64_plain(pcd_sink *s, uint64_t v)
{
    /* hand-rolled: this is the dumper's hottest path */
    char t[21], b[21];
    int k = 0;
    do {
        t[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (int i = 0; i < k; i++) b[i] = t[k - 1 - i];
    return pcd_sink_put(s, b, (size_t)k);
}

pcd_status pcd_json_u64(pcd_sink *s, uint64_t v)
{
    if (v <= (uint64_t)INT64_MAX) return pcd_json_u64_plain(s, v);
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    PCD_TRY(pcd_json_u64_plain(s, v));
    return pcd_sink_put(s, "\"", 1);
}

pcd_status pcd_json_i64(pcd_sink *s, int64_t v)
{
    if (v >= 0) return pcd_json_u64(s, (uint64_t)v);
    PCD_TRY(pcd_sink_put(s, "-", 1));
    return pcd_json_u64_plain(s, (uint64_t)0 - (uint64_t)v);
}

size_t pcd_fmt_f64(char *buf, double v)
{
    int n = 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) break;
    }
    /* make it read back as a real, not an integer (keeps -0.0 and the type) */
    if (!strpbrk(buf, ".eEn")) {
        buf[n++] = '.';
        buf[n++] = '0';
        buf[n] = 0;
    }
    return (size_t)n;
}

pcd_status pcd_json_f64(pcd_sink *s, double v)
{
    if (isnan(v)) {
        uint64_t bits = pcd_f64_bits(v);
        if (bits == UINT64_C(0x7ff8000000000000)) return pcd_json_raw(s, "\"NaN\"");
        char b[40];
        int n = snprintf(b, sizeof b, "\"NaN:0x%016llx\"", (unsigned long long)bits);
        return pcd_sink_put(s, b, (size_t)n);
    }
    if (isinf(v)) return pcd_json_raw(s, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    char b[40];
    size_t n = pcd_fmt_f64(b, v);
    return pcd_sink_put(s, b, n);
}

static pcd_status json_f32(pcd_sink *s, float v)
{
    if (isnan(v)) {
        uint32_t bits = pcd_f32_bits(v);
        if (bits == UINT32_C(0x7fc00000)) return pcd_json_raw(s, "\"NaN\"");
        char b[32];
        int n = snprintf(b, sizeof b, "\"NaN:0x%08lx\"", (unsigned long)bits);
        return pcd_sink_put(s, b, (size_t)n);
    }
    if (isinf(v)) return pcd_json_raw(s, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    char b[40];
    int n = 0;
    for (int prec = 6; prec <= 9; prec++) {
        n = snprintf(b, 32, "%.*g", prec, (double)v);
        if (strtof(b, NULL) == v) break;
    }
    if (!strpbrk(b, ".eEn")) { b[n++] = '.'; b[n++] = '0'; }
    return pcd_sink_put(s, b, (size_t)n);
}

static int64_t load_int(uint8_t kind, const void *p, bool *is_signed)
{
    *is_signed = false;
    switch (kind) {
    case PCD_K_U8: return *(const uint8_t *)p;
    case PCD_K_U16: return *(const uint16_t *)p;
    case PCD_K_U32: return *(const uint32_t *)p;
    case PCD_K_U64: return (int64_t)*(const uint64_t *)p;
    case PCD_K_BOOL: return *(const bool *)p;
    }
    *is_signed = true;
    switch (kind) {
    case PCD_K_S8: return *(const int8_t *)p;
    case PCD_K_S16: return *(const int16_t *)p;
    case PCD_K_S32: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

static bool is_int_kind(uint8_t k) { return (k >= PCD_K_U8 && k <= PCD_K_S64) || k == PCD_K_BOOL; }

static pcd_status json_type(pcd_sink *s, const pcd_type *t, const void *base, bool open_brace);

/* A scalar or nested value of kind k at p. */
static pcd_status json_kind(pcd_sink *s, uint8_t k, const pcd_field *fd, const pcd_type *t,
                            const void *p)
{
    if (k == PCD_K_BOOL) return pcd_json_raw(s, *(const bool *)p ? "true" : "false");
    if (is_int_kind(k)) {
        bool sg;
        int64_t v = load_int(k, p, &sg);
        if (fd && (fd->flags & PCD_F_SENTINEL) && v == fd->sentinel) return pcd_json_raw(s, "null");
        if (fd && fd->enumt) {
            for (uint32_t i = 0; i < fd->enumt->n_items; i++)
                if (fd->enumt->items[i].value == v)
                    return pcd_json_string(s, (const uint8_t *)fd->enumt->items[i].name,
                                           strlen(fd->enumt->items[i].name));
        }
        if (fd && (fd->flags & PCD_F_HEX)) {
            char b[24];
            int n = snprintf(b, sizeof b, "\"0x%llx\"", (unsigned long long)v);
            return pcd_sink_put(s, b, (size_t)n);
        }
        return sg ? pcd_json_i64(s, v) : pcd_json_u64(s, (uint64_t)v);
    }
    switch (k) {
    case PCD_K_F32: return json_f32(s, *(const float *)p);
    case PCD_K_F64: return pcd_json_f64(s, *(const double *)p);
    case PCD_K_STRING: {
        const pcd_bytes *b = p;
        return pcd_json_text(s, b->ptr, b->len);
    }
    case PCD_K_BYTES: {
        const pcd_bytes *b = p;
        return json_hex(s, b->ptr, b->len);
    }
    case PCD_K_MOJO: {
        const pcd_mojo_int *m = p;
        if (m->neg && m->mag == 0) return pcd_json_raw(s, "\"-0\"");
        if (m->neg) {
            if (m->mag > (uint64_t)INT64_MAX) {
                char b[26];
                int n = snprintf(b, sizeof b, "\"-%llu\"", (unsigned long long)m->mag);
                return pcd_sink_put(s, b, (size_t)n);
            }
            return pcd_json_i64(s, -(int64_t)m->mag);
        }
        return pcd_json_u64(s, m->mag);
    }
    case PCD_K_STRUCT:
    case PCD_K_UNION:
        return json_type(s, t, p, true);
    }
    return pcd_json_raw(s, "null");
}

pcd_status pcd_json_value(pcd_sink *s, const pcd_field *fd, const void *base)
{
    const uint8_t *p = (const uint8_t *)base + fd->offset;
    if (fd->kind == PCD_K_ARRAY) {
        const uint8_t *items = *(const uint8_t *const *)p;
        size_t n = *(const size_t *)((const uint8_t *)base + fd->aux);
        size_t es = fd->type ? fd->type->size : pcd_kind_size(fd->elem_kind);
        PCD_TRY(pcd_sink_put(s, "[", 1));
        for (size_t i = 0; i < n; i++) {
            if (i) PCD_TRY(pcd_sink_put(s, ",", 1));
            PCD_TRY(json_kind(s, fd->elem_kind, NULL, fd->type, items + i * es));
        }
        return pcd_sink_put(s, "]", 1);
    }
    return json_kind(s, fd->kind, fd, fd->type, p);
}

pcd_status pcd_json_elements(pcd_sink *s, const pcd_field *fd, const void *base, uint64_t first, uint64_t count)
{
    if (fd->kind != PCD_K_ARRAY) return pcd_json_value(s, fd, base);
    const uint8_t *items = *(const uint8_t *const *)((const uint8_t *)base + fd->offset);
    size_t n = *(const size_t *)((const uint8_t *)base + fd->aux);
    size_t es = fd->type ? fd->type->size : pcd_kind_size(fd->elem_kind);
    PCD_TRY(pcd_sink_put(s, "[", 1));
    for (uint64_t i = first; i < first + count && i < n; i++) {
        if (i > first) PCD_TRY(pcd_sink_put(s, ",", 1));
        PCD_TRY(json_kind(s, fd->elem_kind, NULL, fd->type, items + i * es));
    }
    return pcd_sink_put(s, "]", 1);
}

static pcd_status json_key(pcd_sink *s, const char *k, bool *first)
{
    if (!*first) PCD_TRY(pcd_sink_put(s, ",", 1));
    *first = false;
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    PCD_TRY(pcd_json_raw(s, k));
    return pcd_sink_put(s, "\":", 2);
}

/* A protobuf field the schema does not name: "field": N and its value by wire type. */
static pcd_status json_pb_field(pcd_sink *s, const pcd_pb_field *f, bool *first)
{
    PCD_TRY(json_key(s, "field", first));
    PCD_TRY(pcd_json_u64(s, f->number));
    switch (f->wire) {
    case PCD_PB_VARINT: PCD_TRY(json_key(s, "varint", first)); return pcd_json_u64(s, f->value);
    case PCD_PB_I64: PCD_TRY(json_key(s, "i64", first)); return pcd_json_u64(s, f->value);
    case PCD_PB_I32: PCD_TRY(json_key(s, "i32", first)); return pcd_json_u64(s, f->value);
    default: PCD_TRY(json_key(s, "len", first)); return json_hex(s, f->bytes.ptr, f->bytes.len);
    }
}

/* A protobuf message's layout, when it is not the canonical one. */
static pcd_status json_layout(pcd_sink *s, const pcd_type *t, const void *base, bool *first)
{
    if (!t->layout_at) return PCD_OK;
    const pcd_pb_layout *l = (const pcd_pb_layout *)((const uint8_t *)base + t->layout_at - 1);
    if (!l->n) return PCD_OK;
    PCD_TRY(json_key(s, "_layout", first));
    char small[256];
    size_t n = pcd_pb_layout_format(l, small, sizeof small);
    if (n < sizeof small) return pcd_json_string(s, (const uint8_t *)small, n);
    /* long: run by run */
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    for (size_t i = 0; i < l->n; i++) {
        pcd_pb_layout one = { l->runs + i, 1 };
        n = pcd_pb_layout_format(&one, small, sizeof small);
        if (i) PCD_TRY(pcd_sink_put(s, " ", 1));
        PCD_TRY(pcd_sink_put(s, small, n));
    }
    return pcd_sink_put(s, "\"", 1);
}

/* The fields of a struct (without braces when open_brace is false). */
static pcd_status json_fields(pcd_sink *s, const pcd_type *t, const void *base, bool *first)
{
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *fd = &t->fields[i];
        if (fd->flags & PCD_F_HIDDEN) continue;
        if (fd->kind == PCD_K_REGION) continue;
        if ((fd->flags & PCD_F_OPTIONAL) && !*(const bool *)((const uint8_t *)base + fd->present)) continue;
        if ((fd->kind == PCD_K_PB_OTHER || (fd->flags & PCD_F_OMIT_EMPTY)) &&
            *(const size_t *)((const uint8_t *)base + fd->aux) == 0)
            continue;
        PCD_TRY(json_key(s, fd->name, first));
        if (fd->kind == PCD_K_PB_OTHER) {
            const pcd_pb_field *u = *(const pcd_pb_field *const *)((const uint8_t *)base + fd->offset);
            size_t n = *(const size_t *)((const uint8_t *)base + fd->aux);
            PCD_TRY(pcd_sink_put(s, "[", 1));
            for (size_t k = 0; k < n; k++) {
                bool f1 = true;
                PCD_TRY(pcd_sink_put(s, k ? ",{" : "{", k ? 2 : 1));
                PCD_TRY(json_pb_field(s, &u[k], &f1));
                PCD_TRY(pcd_sink_put(s, "}", 1));
            }
            PCD_TRY(pcd_sink_put(s, "]", 1));
            continue;
        }
        PCD_TRY(pcd_json_value(s, fd, base));
    }
    return json_layout(s, t, base, first);
}

static pcd_status json_union_inner(pcd_sink *s, const pcd_type *t, const void *base, bool *first,
                                   const uint64_t *offset)
{
    uint32_t which = *(const uint32_t *)base;
    if (which >= t->n_fields) return PCD_E_INTERNAL;
    const pcd_field *cf = &t->fields[which];
    PCD_TRY(json_key(s, t->tag_key, first));
    PCD_TRY(pcd_json_string(s, (const uint8_t *)cf->name, strlen(cf->name)));
    if (offset) {
        PCD_TRY(json_key(s, "_offset", first));
        PCD_TRY(pcd_json_u64(s, *offset));
    }
    if (cf->flags & PCD_F_TAG_MULTI) {
        PCD_TRY(json_key(s, "_tag", first));
        PCD_TRY(pcd_json_u64(s, *(const uint64_t *)((const uint8_t *)base + 8)));
    }
    if (cf->kind == PCD_K_STRUCT && cf->type && !cf->type->is_union)
        return json_fields(s, cf->type, (const uint8_t *)base + cf->offset, first);
    if (cf->kind == PCD_K_UNION && cf->type && cf->type->tag_key)
        return json_union_inner(s, cf->type, (const uint8_t *)base + cf->offset, first, NULL);
    if (cf->kind == PCD_K_PB_FIELD)
        return json_pb_field(s, (const pcd_pb_field *)((const uint8_t *)base + cf->offset), first);
    PCD_TRY(json_key(s, "_value", first));
    PCD_TRY(pcd_json_value(s, cf, base));
    return json_layout(s, t, base, first);
}

static pcd_status json_type(pcd_sink *s, const pcd_type *t, const void *base, bool braces)
{
    bool first = true;
    if (t->is_union && !t->tag_key) {
        /* chosen by its owner's fields: the case's value stands alone */
        uint32_t which = *(const uint32_t *)base;
        if (which >= t->n_fields) return PCD_E_INTERNAL;
        return pcd_json_value(s, &t->fields[which], base);
    }
    if (braces) PCD_TRY(pcd_sink_put(s, "{", 1));
    if (t->is_union) PCD_TRY(json_union_inner(s, t, base, &first, NULL));
    else PCD_TRY(json_fields(s, t, base, &first));
    if (braces) PCD_TRY(pcd_sink_put(s, "}", 1));
    return PCD_OK;
}

pcd_status pcd_json_record(pcd_sink *s, const pcd_format *f, const pcd_record *rec)
{
    bool first = false;
    PCD_TRY(pcd_sink_put(s, "{", 1));
    if (rec->depth == 0) {
        PCD_TRY(pcd_json_raw(s, "\"_kind\":"));
        PCD_TRY(pcd_json_string(s, (const uint8_t *)f->root->name, strlen(f->root->name)));
        PCD_TRY(pcd_json_raw(s, ",\"_format\":"));
        PCD_TRY(pcd_json_string(s, (const uint8_t *)f->name, strlen(f->name)));
        PCD_TRY(pcd_json_raw(s, ",\"_version\":"));
        PCD_TRY(pcd_json_string(s, (const uint8_t *)f->version, strlen(f->version)));
        /* formats written in the writer's own byte order: which one this input has
         * (encode reads it back) */
        if (f->flags & PCD_FMT_NATIVE_ORDER)
            PCD_TRY(pcd_json_raw(s, rec->big ? ",\"_byte_order\":\"big\"" : ",\"_byte_order\":\"little\""));
        if (rec->data) PCD_TRY(json_fields(s, f->root, rec->data, &first));
    } else if (rec->type->is_union && rec->type->tag_key) {
        first = true;
        PCD_TRY(json_union_inner(s, rec->type, rec->data, &first, &rec->offset));
    } else {
        PCD_TRY(pcd_json_raw(s, "\"_kind\":"));
        PCD_TRY(pcd_json_string(s, (const uint8_t *)rec->type->name, strlen(rec->type->name)));
        PCD_TRY(pcd_json_raw(s, ",\"_offset\":"));
        PCD_TRY(pcd_json_u64(s, rec->offset));
        if (rec->data) PCD_TRY(json_fields(s, rec->type, rec->data, &first));
    }
    return pcd_sink_put(s, "}\n", 2);
}
