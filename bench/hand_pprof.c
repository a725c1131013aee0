/* hand_pprof.c: the baseline for `make bench`: a plain hand-written protobuf walking loop over a
 * raw (not gzip-compressed) pprof, as a careful C programmer would write it: read() into a
 * buffer, then every field of the Profile: its key (number and wire type), its varints (at most
 * 10 bytes, 64 bits), lengths that fit, and the messages inside (ValueType, Sample and its
 * Labels, Mapping, Location and its Lines, Function) field by field the same way; unknown
 * fields skipped by wire type. And the same checks as `profcodec validate` does above the bytes:
 * string_table[0] is "", ids nonzero and unique, every id referenced exists, string indexes in
 * range, one value per sample type. `hand_pprof --bytes-only FILE` leaves those checks out.
 * Exit 0 valid, 1 invalid, 2 usage or I/O. */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a set of (kind, id) ---------------------------------------------------------------- */

typedef struct iset {
    uint64_t *k;                 /* kind << 61 | id (ids below 2^61 here), 0 empty */
    size_t cap, len;
} iset;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* Adds k; false when it was there. */
static bool iset_add(iset *s, uint64_t k)
{
    if ((s->len + 1) * 2 > s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 1024;
        uint64_t *nk = calloc(nc, sizeof *nk);
        if (!nk) exit(2);
        for (size_t i = 0; i < s->cap; i++) {
            if (!s->k[i]) continue;
            size_t j = mix(s->k[i]) & (nc - 1);
            while (nk[j]) j = (j + 1) & (nc - 1);
            nk[j] = s->k[i];
        }
        free(s->k);
        s->k = nk;
        s->cap = nc;
    }
    size_t i = mix(k) & (s->cap - 1);
    for (; s->k[i]; i = (i + 1) & (s->cap - 1))
        if (s->k[i] == k) return false;
    s->k[i] = k;
    s->len++;
    return true;
}

static bool iset_has(const iset *s, uint64_t k)
{
    if (!s->cap) return false;
    for (size_t i = mix(k) & (s->cap - 1); s->k[i]; i = (i + 1) & (s->cap - 1))
        if (s->k[i] == k) return true;
    return false;
}

/* ---- the checks --------------------------------------------------------------------------- */

enum { K_MAPPING = 1, K_LOCATION = 2, K_FUNCTION = 3 };

static bool checks = true;
static iset ids, refs;
static uint64_t n_strings, n_sample_types, max_index;
static bool any_index, first_value_count_set;
static uint64_t value_count;
static const char *bad;          /* why the file is invalid */

static void index_of(uint64_t v)
{
    if ((int64_t)v < 0) bad = "a negative string index";
    if (!any_index || v > max_index) max_index = v;
    any_index = true;
}

static void define(int kind, uint64_t id)
{
    if (id == 0 || id >= (1ULL << 61)) bad = "an id of 0 (or too large for this loop)";
    else if (!iset_add(&ids, (uint64_t)kind << 61 | id)) bad = "an id used twice";
}

static void refer(int kind, uint64_t id)
{
    if (id >= (1ULL << 61)) bad = "an id too large for this loop";
    else iset_add(&refs, (uint64_t)kind << 61 | id);
}

/* ---- reading ------------------------------------------------------------------------------- */

/* A varint at *p (before end): false when cut off, too long or past 64 bits. */
static bool varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    const uint8_t *q = *p;
    if (q < end && *q < 0x80) {
        *v = *q;
        *p = q + 1;
        return true;
    }
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (q == end) return false;
        uint8_t b = *q++;
        if (i == 9 && b > 1) return false;
        x |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            *p = q;
            return true;
        }
    }
    return false;
}

/* One field's key and, for wire type 2, its payload [*s, *e). */
typedef struct field {
    uint32_t number, wire;
    uint64_t v;                  /* varint, i32, i64 */
    const uint8_t *s, *e;        /* len */
} field;

static bool next_field(const uint8_t **p, const uint8_t *end, field *f)
{
    uint64_t key;
    if (!varint(p, end, &key) || key < 8 || key > UINT32_MAX) return false;
    f->number = (uint32_t)(key >> 3);
    f->wire = (uint32_t)(key & 7);
    switch (f->wire) {
    case 0: return varint(p, end, &f->v);
    case 1:
        if (end - *p < 8) return false;
        memcpy(&f->v, *p, 8);
        *p += 8;
        return true;
    case 5:
        if (end - *p < 4) return false;
        f->v = 0;
        memcpy(&f->v, *p, 4);
        *p += 4;
        return true;
    case 2: {
        uint64_t n;
        if (!varint(p, end, &n) || n > (uint64_t)(end - *p)) return false;
        f->s = *p;
        f->e = *p + n;
        *p += n;
        return true;
    }
    default: return false;   /* groups, wire types 6 and 7 */
    }
}

/* A repeated varint field, one value or a packed run: fn on each. */
static bool each_varint(const field *f, void (*fn)(uint64_t), uint64_t *count)
{
    if (f->wire == 0) {
        if (fn) fn(f->v);
        (*count)++;
        return true;
    }
    if (f->wire != 2) return false;
    for (const uint8_t *q = f->s; q < f->e;) {
        uint64_t v;
        if (!varint(&q, f->e, &v)) return false;
        if (fn) fn(v);
        (*count)++;
    }
    return true;
}

static void ref_location(uint64_t id)
{
    if (!checks) return;
    if (id == 0) bad = "a location id of 0 in a sample";
    else refer(K_LOCATION, id);
}

static void str_index(uint64_t v)
{
    if (checks) index_of(v);
}

/* A message whose fields numbered in `strings` (a bit per number) are string indexes. */
static bool message(const uint8_t *p, const uint8_t *end, uint32_t strings, uint32_t varints)
{
    field f;
    while (p < end) {
        if (!next_field(&p, end, &f)) return false;
        if (f.number < 32 && ((strings | varints) >> f.number & 1)) {
            if (f.wire != 0) return false;
            if (strings >> f.number & 1) str_index(f.v);
        }
    }
    return true;
}

static bool sample(const uint8_t *p, const uint8_t *end)
{
    field f;
    uint64_t nloc = 0, nval = 0;
    while (p < end) {
        if (!next_field(&p, end, &f)) return false;
        switch (f.number) {
        case 1: if (!each_varint(&f, ref_location, &nloc)) return false; break;
        case 2: if (!each_varint(&f, NULL, &nval)) return false; break;
        case 3: /* label: key 1, str 2, num 3, num_unit 4 */
            if (f.wire != 2 || !message(f.s, f.e, 1u << 1 | 1u << 2 | 1u << 4, 1u << 3)) return false;
            break;
        }
    }
    if (checks) {
        if (!first_value_count_set) {
            first_value_count_set = true;
            value_count = nval;
        } else if (nval != value_count) {
            bad = "samples with different numbers of values";
        }
    }
    return true;
}

static bool location(const uint8_t *p, const uint8_t *end)
{
    field f;
    bool has_id = false;
    while (p < end) {
        if (!next_field(&p, end, &f)) return false;
        switch (f.number) {
        case 1: if (f.wire != 0) return false; if (checks) define(K_LOCATION, f.v); has_id = true; break;
        case 2: if (f.wire != 0) return false; if (checks && f.v) refer(K_MAPPING, f.v); break;
        case 3: case 5: if (f.wire != 0) return false; break;
        case 4: { /* line: function_id 1, line 2, column 3 */
            if (f.wire != 2) return false;
            const uint8_t *q = f.s;
            field g;
            while (q < f.e) {
                if (!next_field(&q, f.e, &g)) return false;
                if (g.number >= 1 && g.number <= 3 && g.wire != 0) return false;
                if (g.number == 1 && checks && g.v) refer(K_FUNCTION, g.v);
            }
            break;
        }
        }
    }
    if (checks && !has_id) bad = "a location without an id";
    return true;
}

static bool with_id(const uint8_t *p, const uint8_t *end, int kind, uint32_t strings, uint32_t varints)
{
    field f;
    bool has_id = false;
    while (p < end) {
        if (!next_field(&p, end, &f)) return false;
        if (f.number == 1) {
            if (f.wire != 0) return false;
            if (checks) define(kind, f.v);
            has_id = true;
        } else if (f.number < 32 && ((strings | varints) >> f.number & 1)) {
            if (f.wire != 0) return false;
            if (strings >> f.number & 1) str_index(f.v);
        }
    }
    if (checks && !has_id) bad = "a mapping or function without an id";
    return true;
}

static bool profile_field(const field *f)
{
    switch (f->number) {
    case 1: case 11: /* sample_type, period_type */
        if (f->wire != 2 || !message(f->s, f->e, 1u << 1 | 1u << 2, 0)) return false;
        if (f->number == 1) n_sample_types++;
        return true;
    case 2: return f->wire == 2 && sample(f->s, f->e);
    case 3: /* mapping: strings filename 5, build_id 6; numbers 2 3 4 7..10 */
        return f->wire == 2 && with_id(f->s, f->e, K_MAPPING, 1u << 5 | 1u << 6, 0x79Cu);
    case 4: return f->wire == 2 && location(f->s, f->e);
    case 5: /* function: name 2, system_name 3, filename 4; start_line 5 */
        return f->wire == 2 && with_id(f->s, f->e, K_FUNCTION, 1u << 2 | 1u << 3 | 1u << 4, 1u << 5);
    case 6:
        if (f->wire != 2) return false;
        if (checks && n_strings == 0 && f->e != f->s) bad = "string_table[0] is not \"\"";
        n_strings++;
        return true;
    case 7: case 8: case 14: case 15:
        if (f->wire != 0) return false;
        str_index(f->v);
        return true;
    case 9: case 10: case 12: return f->wire == 0;
    case 13: {
        uint64_t n = 0;
        return each_varint(f, str_index, &n);
    }
    default: return true;   /* unknown: skipped */
    }
}

int main(int argc, char **argv)
{
    int a = 1;
    if (argc > 1 && strcmp(argv[1], "--bytes-only") == 0) {
        checks = false;
        a++;
    }
    if (a >= argc) {
        fprintf(stderr, "usage: hand_pprof [--bytes-only] FILE\n");
        return 2;
    }
    int fd = open(argv[a], O_RDONLY);
    if (fd < 0) {
        perror(argv[a]);
        return 2;
    }
    size_t cap = 1 << 20, have = 0;
    uint8_t *buf = malloc(cap);
    uint64_t fields = 0;
    bool eof = false;
    if (!buf) return 2;
    for (;;) {
        if (!eof && have < cap) {
            ssize_t n = read(fd, buf + have, cap - have);
            if (n < 0) return 2;
            if (n == 0) eof = true;
            have += (size_t)n;
        }
        const uint8_t *p = buf, *end = buf + have;
        while (p < end) {
            const uint8_t *s = p;
            field f;
            if (!next_field(&p, end, &f)) {
                p = s;
                break;   /* cut off at the buffer's end (or bad: decided below) */
            }
            if (!profile_field(&f)) {
                fprintf(stderr, "%s: invalid field at a field's start\n", argv[a]);
                return 1;
            }
            fields++;
        }
        size_t used = (size_t)(p - buf);
        if (used == 0 && have == cap) {
            /* one field larger than the buffer */
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) return 2;
            buf = nb;
            cap *= 2;
        }
        memmove(buf, buf + used, have - used);
        have -= used;
        if (eof && (used == 0 || have == 0)) break;
    }
    close(fd);
    if (have) {
        fprintf(stderr, "%s: a field cut off at the end\n", argv[a]);
        return 1;
    }
    if (checks) {
        if (n_strings == 0) bad = "no string table";
        else if (any_index && max_index >= n_strings) bad = "a string index past the table";
        for (size_t i = 0; i < refs.cap && !bad; i++)
            if (refs.k[i] && !iset_has(&ids, refs.k[i])) bad = "a reference to an id that does not exist";
        if (first_value_count_set && value_count != n_sample_types) bad = "not one value per sample type";
    }
    if (bad) {
        fprintf(stderr, "%s: %s\n", argv[a], bad);
        return 1;
    }
    printf("%s: valid, %llu fields\n", argv[a], (unsigned long long)fields);
    return 0;
}
