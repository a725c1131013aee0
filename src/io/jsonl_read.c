/* io/jsonl_read.c: fills generated structs from parsed JSON, walking the descriptor tables. */
#include "io/jsonl_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool pcd_jsonr_kind(const pcd_format *f, const char *kind, pcd_jkind *out)
{
    for (uint32_t i = 0; i < f->n_regions; i++) {
        const pcd_region_desc *rd = f->regions[i];
        const pcd_type *t = rd->record;
        if (t->is_union && t->tag_key) {
            for (uint32_t c = 0; c < t->n_fields; c++) {
                if (strcmp(t->fields[c].name, kind) == 0) {
                    *out = (pcd_jkind){ rd, t, (int32_t)c };
                    return true;
                }
            }
        } else if (strcmp(t->name, kind) == 0) {
            *out = (pcd_jkind){ rd, t, -1 };
            return true;
        }
    }
    if (strcmp(f->root->name, kind) == 0) {
        *out = (pcd_jkind){ NULL, f->root, -1 };
        return true;
    }
    return false;
}

typedef struct jr {
    pcd_arena *arena;
    char *err;
    size_t errcap;
    char path[256];
} jr;

static bool fail(jr *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(jr *r, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->path[0]) snprintf(r->err, r->errcap, "%s: %s", r->path, msg);
    else snprintf(r->err, r->errcap, "%s", msg);
    return false;
}

/* path push/pop */
static size_t push(jr *r, const char *name, long idx)
{
    size_t n = strlen(r->path);
    if (idx >= 0) snprintf(r->path + n, sizeof r->path - n, "[%ld]", idx);
    else snprintf(r->path + n, sizeof r->path - n, "%s%s", n ? "." : "", name ? name : "");
    return n;
}
static void pop(jr *r, size_t n) { r->path[n] = 0; }

static bool get_u64(jr *r, json_t *v, uint64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t i = json_integer_value(v);
        if (i < 0) return fail(r, "expected a number >= 0, found %lld", (long long)i);
        *out = (uint64_t)i;
        return true;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        unsigned long long u = strtoull(s, &end, 0);
        if (*s && *s != '-' && !*end && errno == 0) {
            *out = u;
            return true;
        }
        return fail(r, "expected an unsigned integer, found \"%s\"", s);
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d >= 0 && d < 18446744073709551616.0 && floor(d) == d) {
            *out = (uint64_t)d;
            return true;
        }
    }
    return fail(r, "expected an unsigned integer");
}

static bool get_i64(jr *r, json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = (int64_t)json_integer_value(v);
        return true;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            /* hex is the 64-bit pattern (as dumped for hex fields), negative values included */
            unsigned long long u = strtoull(s, &end, 16);
            if (s[2] && !*end && errno == 0) {
                *out = (int64_t)u;
                return true;
            }
            return fail(r, "expected an integer, found \"%s\"", s);
        }
        long long i = strtoll(s, &end, 0);
        if (*s && !*end && errno == 0) {
            *out = i;
            return true;
        }
        return fail(r, "expected an integer, found \"%s\"", s);
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d >= -9223372036854775808.0 && d < 9223372036854775808.0 && floor(d) == d) {
            *out = (int64_t)d;
            return true;
        }
    }
    return fail(r, "expected an integer");
}

static bool get_f64(jr *r, json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return true;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "NaN") == 0) { *out = pcd_f64_from_bits(UINT64_C(0x7ff8000000000000)); return true; }
        if (strcmp(s, "Infinity") == 0) { *out = INFINITY; return true; }
        if (strcmp(s, "-Infinity") == 0) { *out = -INFINITY; return true; }
        if (strncmp(s, "NaN:0x", 6) == 0) {
            char *end;
            unsigned long long b = strtoull(s + 4, &end, 16);
            if (!*end) { *out = pcd_f64_from_bits((uint64_t)b); return true; }
        }
        return fail(r, "expected a number, \"NaN\", \"Infinity\" or \"-Infinity\", found \"%s\"", s);
    }
    return fail(r, "expected a number");
}

static bool get_f32(jr *r, json_t *v, float *out)
{
    if (json_is_string(v) && strncmp(json_string_value(v), "NaN:0x", 6) == 0) {
        char *end;
        unsigned long b = strtoul(json_string_value(v) + 4, &end, 16);
        if (!*end) { *out = pcd_f32_from_bits((uint32_t)b); return true; }
    }
    if (json_is_string(v) && strcmp(json_string_value(v), "NaN") == 0) {
        *out = pcd_f32_from_bits(UINT32_C(0x7fc00000));
        return true;
    }
    double d;
    if (!get_f64(r, v, &d)) return false;
    *out = (float)d;
    return true;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static bool get_bytes(jr *r, json_t *v, pcd_bytes *out, bool text)
{
    const char *src;
    size_t n;
    if (json_is_string(v)) {
        src = json_string_value(v);
        n = json_string_length(v);
        uint8_t *p = pcd_arena_alloc(r->arena, n ? n : 1);
        if (!p) return fail(r, "out of memory");
        memcpy(p, src, n);
        out->ptr = p;
        out->len = n;
        return true;
    }
    json_t *h = json_is_object(v) ? json_object_get(v, "hex") : NULL;
    if (h && json_is_string(h)) {
        src = json_string_value(h);
        n = json_string_length(h);
        if (n % 2) return fail(r, "hex string of odd length");
        uint8_t *p = pcd_arena_alloc(r->arena, n / 2 ? n / 2 : 1);
        if (!p) return fail(r, "out of memory");
        for (size_t i = 0; i < n / 2; i++) {
            int a = hexval(src[2 * i]), b = hexval(src[2 * i + 1]);
            if (a < 0 || b < 0) return fail(r, "bad hex digit in \"%s\"", src);
            p[i] = (uint8_t)(a << 4 | b);
        }
        out->ptr = p;
        out->len = n / 2;
        return true;
    }
    return fail(r, text ? "expected a string or {\"hex\": \"...\"}" : "expected {\"hex\": \"...\"}");
}

static bool fill_type(jr *r, const pcd_type *t, json_t *obj, uint8_t *dst, const void *owner);
static bool fill_union_tagged(jr *r, const pcd_type *t, json_t *obj, uint8_t *dst, int32_t which);

static bool store_int(jr *r, uint8_t kind, const pcd_field *fd, json_t *v, void *p)
{
    /* null = the sentinel; enum names */
    if (json_is_null(v) && fd && (fd->flags & PCD_F_SENTINEL)) {
        int64_t s = fd->sentinel;
        json_t *tmp = json_integer(s);
        bool ok = store_int(r, kind, NULL, tmp, p);
        json_decref(tmp);
        return ok;
    }
    if (json_is_string(v) && fd && fd->enumt) {
        const char *s = json_string_value(v);
        for (uint32_t i = 0; i < fd->enumt->n_items; i++) {
            if (strcmp(fd->enumt->items[i].name, s) == 0) {
                json_t *tmp = json_integer(fd->enumt->items[i].value);
                bool ok = store_int(r, kind, NULL, tmp, p);
                json_decref(tmp);
                return ok;
            }
        }
        char *end;
        strtoll(s, &end, 0);
        if (*end) return fail(r, "\"%s\" is not a name of %s", s, fd->enumt->name);
    }
    if (kind == PCD_K_BOOL && json_is_boolean(v)) {
        *(bool *)p = json_is_true(v);
        return true;
    }
    switch (kind) {
    case PCD_K_U8: case PCD_K_U16: case PCD_K_U32: case PCD_K_U64: case PCD_K_BOOL: {
        uint64_t u;
        if (!get_u64(r, v, &u)) return false;
        uint64_t max = kind == PCD_K_U8 ? UINT8_MAX : kind == PCD_K_U16 ? UINT16_MAX
                     : kind == PCD_K_U32 ? UINT32_MAX : kind == PCD_K_BOOL ? 1 : UINT64_MAX;
        if (u > max) return fail(r, "%llu does not fit", (unsigned long long)u);
        switch (kind) {
        case PCD_K_U8: *(uint8_t *)p = (uint8_t)u; break;
        case PCD_K_U16: *(uint16_t *)p = (uint16_t)u; break;
        case PCD_K_U32: *(uint32_t *)p = (uint32_t)u; break;
        case PCD_K_BOOL: *(bool *)p = u != 0; break;
        default: *(uint64_t *)p = u;
        }
        return true;
    }
    default: {
        int64_t i = 0;
        if (!get_i64(r, v, &i)) return false;
        int64_t lo = kind == PCD_K_S8 ? INT8_MIN : kind == PCD_K_S16 ? INT16_MIN : kind == PCD_K_S32 ? INT32_MIN : INT64_MIN;
        int64_t hi = kind == PCD_K_S8 ? INT8_MAX : kind == PCD_K_S16 ? INT16_MAX : kind == PCD_K_S32 ? INT32_MAX : INT64_MAX;
        if (i < lo || i > hi) return fail(r, "%lld does not fit", (long long)i);
        switch (kind) {
        case PCD_K_S8: *(int8_t *)p = (int8_t)i; break;
        case PCD_K_S16: *(int16_t *)p = (int16_t)i; break;
        case PCD_K_S32: *(int32_t *)p = (int32_t)i; break;
        default: *(int64_t *)p = i;
        }
        return true;
    }
    }
}

static size_t elem_size(uint8_t k, const pcd_type *t)
{
    if (t) return t->size;
    switch (k) {
    case PCD_K_U8: case PCD_K_S8: case PCD_K_BOOL: return 1;
    case PCD_K_U16: case PCD_K_S16: return 2;
    case PCD_K_U32: case PCD_K_S32: case PCD_K_F32: return 4;
    case PCD_K_U64: case PCD_K_S64: case PCD_K_F64: return 8;
    case PCD_K_BYTES: case PCD_K_STRING: return sizeof(pcd_bytes);
    case PCD_K_MOJO: return sizeof(pcd_mojo_int);
    }
    return 0;
}

static bool store_kind(jr *r, uint8_t kind, const pcd_field *fd, const pcd_type *t, json_t *v,
                       uint8_t *p, const void *owner)
{
    switch (kind) {
    case PCD_K_U8: case PCD_K_U16: case PCD_K_U32: case PCD_K_U64:
    case PCD_K_S8: case PCD_K_S16: case PCD_K_S32: case PCD_K_S64: case PCD_K_BOOL:
        return store_int(r, kind, fd, v, p);
    case PCD_K_F32: return get_f32(r, v, (float *)p);
    case PCD_K_F64: return get_f64(r, v, (double *)p);
    case PCD_K_STRING: return get_bytes(r, v, (pcd_bytes *)p, true);
    case PCD_K_BYTES: return get_bytes(r, v, (pcd_bytes *)p, false);
    case PCD_K_MOJO: {
        pcd_mojo_int *m = (pcd_mojo_int *)p;
        int64_t i = 0;
        if (json_is_string(v)) {
            const char *s = json_string_value(v);
            bool neg = s[0] == '-';
            char *end;
            errno = 0;
            unsigned long long u = strtoull(s + neg, &end, 10);
            if (!s[neg] || *end || errno) return fail(r, "expected an integer, found \"%s\"", s);
            m->mag = u;
            m->neg = neg;
            return true;
        }
        if (json_is_integer(v)) {
            i = (int64_t)json_integer_value(v);
            m->neg = i < 0;
            m->mag = i < 0 ? (uint64_t)0 - (uint64_t)i : (uint64_t)i;
            return true;
        }
        return fail(r, "expected an integer");
    }
    case PCD_K_STRUCT:
    case PCD_K_UNION:
        return fill_type(r, t, v, p, t->named ? (const void *)p : owner);
    }
    return fail(r, "unsupported field kind %u", kind);
}

static bool fill_field(jr *r, const pcd_field *fd, json_t *v, uint8_t *base, const void *owner)
{
    uint8_t *p = base + fd->offset;
    if (fd->kind == PCD_K_ARRAY) {
        if (!json_is_array(v)) return fail(r, "expected an array");
        size_t n = json_array_size(v);
        size_t es = elem_size(fd->elem_kind, fd->type);
        uint8_t *items = NULL;
        if (n) {
            if (n > SIZE_MAX / es) return fail(r, "array too large");
            items = pcd_arena_alloc(r->arena, n * es);
            if (!items) return fail(r, "out of memory for %zu elements", n);
            memset(items, 0, n * es);
        }
        for (size_t i = 0; i < n; i++) {
            size_t m = push(r, NULL, (long)i);
            if (!store_kind(r, fd->elem_kind, NULL, fd->type, json_array_get(v, i), items + i * es, owner))
                return false;
            pop(r, m);
        }
        *(uint8_t **)p = items;
        *(size_t *)(base + fd->aux) = n;
        return true;
    }
    return store_kind(r, fd->kind, fd, fd->type, v, p, owner);
}

/* A protobuf field the schema does not name: {"field": N, "varint" | "i64" | "i32": V} or
 * {"field": N, "len": {"hex": ...}}. */
static bool fill_pb_field(jr *r, json_t *obj, pcd_pb_field *f)
{
    if (!json_is_object(obj)) return fail(r, "expected an object {\"field\": N, \"varint\": V} (or i64, i32, len)");
    json_t *n = json_object_get(obj, "field");
    uint64_t number = 0;
    if (!n) return fail(r, "missing \"field\" (the field number)");
    if (!get_u64(r, n, &number)) return false;
    if (number == 0 || number > PCD_PB_MAX_NUMBER) return fail(r, "field number %llu is not 1 .. 2^29 - 1", (unsigned long long)number);
    f->number = (uint32_t)number;
    static const struct { const char *key; uint8_t wire; } kinds[] = {
        { "varint", PCD_PB_VARINT }, { "i64", PCD_PB_I64 }, { "i32", PCD_PB_I32 }, { "len", PCD_PB_LEN } };
    for (size_t k = 0; k < PCD_COUNTOF(kinds); k++) {
        json_t *v = json_object_get(obj, kinds[k].key);
        if (!v) continue;
        f->wire = kinds[k].wire;
        if (f->wire == PCD_PB_LEN) return get_bytes(r, v, &f->bytes, false);
        if (!get_u64(r, v, &f->value)) return false;
        if (f->wire == PCD_PB_I32 && f->value > UINT32_MAX) return fail(r, "an i32 value above 2^32 - 1");
        return true;
    }
    return fail(r, "expected one of \"varint\", \"i64\", \"i32\", \"len\" with the field's value");
}

/* A protobuf message's or field record's "_layout", when there is one. */
static bool fill_layout(jr *r, const pcd_type *t, json_t *obj, uint8_t *dst)
{
    if (!t->layout_at) return true;
    json_t *v = json_object_get(obj, "_layout");
    if (!v) return true;
    if (!json_is_string(v)) return fail(r, "_layout: expected a string of runs (\"N\", \"N*K\", \"NpK\")");
    const char *why = pcd_pb_layout_parse(json_string_value(v), json_string_length(v), r->arena,
                                          (pcd_pb_layout *)(dst + t->layout_at - 1));
    if (why) return fail(r, "_layout: %s", why);
    return true;
}

static bool fill_struct(jr *r, const pcd_type *t, json_t *obj, uint8_t *dst, const void *owner)
{
    if (!json_is_object(obj)) return fail(r, "expected an object");
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *fd = &t->fields[i];
        if (fd->flags & (PCD_F_HIDDEN | PCD_F_DERIVED)) continue;
        if (fd->kind == PCD_K_REGION) continue;
        json_t *v = json_object_get(obj, fd->name);
        size_t m = push(r, fd->name, -1);
        if (fd->kind == PCD_K_PB_OTHER) {
            if (v) {
                if (!json_is_array(v)) return fail(r, "expected an array");
                size_t n = json_array_size(v);
                pcd_pb_field *items = n ? pcd_arena_alloc(r->arena, n * sizeof *items) : NULL;
                if (n && !items) return fail(r, "out of memory for %zu fields", n);
                for (size_t k = 0; k < n; k++) {
                    size_t mk = push(r, NULL, (long)k);
                    memset(&items[k], 0, sizeof items[k]);
                    if (!fill_pb_field(r, json_array_get(v, k), &items[k])) return false;
                    pop(r, mk);
                }
                *(pcd_pb_field **)(dst + fd->offset) = items;
                *(size_t *)(dst + fd->aux) = n;
            }
            pop(r, m);
            continue;
        }
        if (!v) {
            if (fd->flags & (PCD_F_OPTIONAL | PCD_F_OMIT_EMPTY)) {
                pop(r, m);
                continue;
            }
            /* a union chosen by other fields whose case has no fields needs no key */
            if (!(fd->kind == PCD_K_UNION && fd->type && !fd->type->tag_key))
                return fail(r, "missing");
            v = json_null();
        }
        if (fd->flags & PCD_F_OPTIONAL) *(bool *)(dst + fd->present) = true;
        if (!fill_field(r, fd, v, dst, owner)) return false;
        pop(r, m);
    }
    return fill_layout(r, t, obj, dst);
}

/* A union whose case is named by tag_key in obj (or given as which >= 0). */
static bool fill_union_tagged(jr *r, const pcd_type *t, json_t *obj, uint8_t *dst, int32_t which)
{
    if (!json_is_object(obj)) return fail(r, "expected an object");
    if (which < 0) {
        json_t *k = json_object_get(obj, t->tag_key);
        if (!k || !json_is_string(k)) return fail(r, "missing \"%s\" naming the case", t->tag_key);
        for (uint32_t c = 0; c < t->n_fields; c++)
            if (strcmp(t->fields[c].name, json_string_value(k)) == 0) which = (int32_t)c;
        if (which < 0) return fail(r, "\"%s\" is not a case of %s", json_string_value(k), t->name);
    }
    *(uint32_t *)dst = (uint32_t)which;
    const pcd_field *cf = &t->fields[which];
    if (cf->flags & PCD_F_TAG_MULTI) {
        json_t *tg = json_object_get(obj, "_tag");
        uint64_t u;
        if (!tg) return fail(r, "missing \"_tag\"");
        if (!get_u64(r, tg, &u)) return false;
        *(uint64_t *)(dst + 8) = u;
    }
    if (cf->kind == PCD_K_STRUCT && cf->type && !cf->type->is_union)
        return fill_struct(r, cf->type, obj, dst + cf->offset, cf->type->named ? dst + cf->offset : dst);
    if (cf->kind == PCD_K_UNION && cf->type && cf->type->tag_key)
        return fill_union_tagged(r, cf->type, obj, dst + cf->offset, -1);
    if (cf->kind == PCD_K_PB_FIELD) return fill_pb_field(r, obj, (pcd_pb_field *)(dst + cf->offset));
    json_t *v = json_object_get(obj, "_value");
    if (!v) return fail(r, "missing \"_value\"");
    return fill_field(r, cf, v, dst, dst) && fill_layout(r, t, obj, dst);
}

static bool fill_type(jr *r, const pcd_type *t, json_t *obj, uint8_t *dst, const void *owner)
{
    if (!t->is_union) return fill_struct(r, t, obj, dst, owner);
    if (t->tag_key) return fill_union_tagged(r, t, obj, dst, -1);
    /* chosen by the owner's fields */
    int32_t which = t->select ? t->select(owner) : -1;
    if (which < 0 || (uint32_t)which >= t->n_fields)
        return fail(r, "no case of %s matches the fields before it", t->name);
    *(uint32_t *)dst = (uint32_t)which;
    const pcd_field *cf = &t->fields[which];
    if (cf->kind == PCD_K_STRUCT && cf->type && cf->type->n_fields == 0) return true;
    return fill_field(r, cf, obj, dst, owner);
}

bool pcd_jsonr_record(const pcd_jkind *k, json_t *obj, void *dst, pcd_arena *arena, char *err,
                      size_t errcap)
{
    jr r = { arena, err, errcap, { 0 } };
    memset(dst, 0, k->type->size);
    if (k->type->is_union && k->type->tag_key)
        return fill_union_tagged(&r, k->type, obj, dst, k->which);
    return fill_struct(&r, k->type, obj, dst, dst);
}

/* Is p[i] the start of a -0 number token: '-', '0', then no more number characters? */
static bool negzero_at(const char *p, size_t i, size_t len)
{
    if (p[i] != '-' || i + 1 >= len || p[i + 1] != '0') return false;
    char n = i + 2 < len ? p[i + 2] : ' ';
    return !(n == '.' || n == 'e' || n == 'E' || (n >= '0' && n <= '9'));
}

char *pcd_jsonr_negzero(pcd_alloc *al, const char *line, size_t len, size_t *out_len)
{
    if (!memmem(line, len, "-0", 2)) return NULL;
    size_t count = 0;
    bool in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = line[i];
        if (in_str) {
            if (ch == '\\') i++;
            else if (ch == '"') in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (negzero_at(line, i, len)) {
            count++;
        }
    }
    if (count == 0) return NULL;
    char *out = pcd_alloc_sized(al, len + 2 * count + 1);
    if (!out) return NULL;
    size_t o = 0;
    in_str = false;
    for (size_t i = 0; i < len; i++) {
        char ch = line[i];
        out[o++] = ch;
        if (in_str) {
            if (ch == '\\' && i + 1 < len) out[o++] = line[++i];
            else if (ch == '"') in_str = false;
        } else if (ch == '"') {
            in_str = true;
        } else if (negzero_at(line, i, len)) {
            out[o++] = line[++i];
            out[o++] = '.';
            out[o++] = '0';
        }
    }
    out[o] = 0;
    *out_len = o;
    return out;
}
