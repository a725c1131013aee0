/* pcd_pb.h: protobuf's wire format, for the generated codecs of messages (schemas' `message`):
 * keys, wire types, length-delimited payloads, packed runs, unknown fields, and the layout
 * that keeps the order and the packing a writer chose, so that re-encoding is lossless.
 *
 * A message's layout is its fields as they stood on the wire, as runs: (field number, packed
 * or not, element count), consecutive unpacked occurrences of one field merged into one run.
 * A decoder records it and keeps it only when it differs from the canonical form (the fields
 * in schema order, each once: a repeated scalar packed when it has at least `pack_min`
 * elements, one element per occurrence otherwise; unknown fields last, in the order read), so
 * that what most writers produce needs none. An encoder given a layout follows it. */
#ifndef PCD_PB_H
#define PCD_PB_H

#include "pcd_sink.h"

/* Wire types (the key's low 3 bits). */
enum { PCD_PB_VARINT = 0, PCD_PB_I64 = 1, PCD_PB_LEN = 2, PCD_PB_SGROUP = 3, PCD_PB_EGROUP = 4, PCD_PB_I32 = 5 };

#define PCD_PB_MAX_NUMBER 0x1FFFFFFFu   /* field numbers are 1 .. 2^29 - 1 */

/* One run of a layout: field is number << 1 | packed. */
typedef struct pcd_pb_run {
    uint32_t field;
    uint32_t count;   /* elements: occurrences of an unpacked run, values of a packed one */
} pcd_pb_run;

#define PCD_PB_RUN(number, packed) ((uint32_t)(number) << 1 | (uint32_t)(packed))

/* The runs of a message as written; n == 0: the canonical form. */
typedef struct pcd_pb_layout {
    pcd_pb_run *runs;
    size_t n;
} pcd_pb_layout;

/* A field the schema does not name (kept so that re-encoding loses nothing), or an earlier
 * occurrence of a singular field that a later one replaced (the last one wins). */
typedef struct pcd_pb_field {
    uint32_t number;
    uint8_t wire;     /* PCD_PB_VARINT, _I64, _LEN or _I32 */
    uint64_t value;   /* varint, i64, i32 */
    pcd_bytes bytes;  /* len */
} pcd_pb_field;

/* ---- decoding ------------------------------------------------------------------------- */

PCD_COLD pcd_status pcd_pb_fail_key(const pcd_cursor *c, const uint8_t *at, const char *name, uint64_t key);

/* A field's key: number << 3 | wire type, the number 1 .. 2^29 - 1. */
PCD_INLINE pcd_status pcd_pb_read_key(pcd_cursor *c, uint32_t *key, const char *name)
{
    const uint8_t *at = c->p;
    if (PCD_LIKELY(c->p < c->end && c->p[0] < 0x80 && c->p[0] >= 8)) {
        *key = c->p[0];
        c->p++;
        return PCD_OK;
    }
    uint64_t k;
    PCD_TRY(pcd_read_uleb128(c, &k, name));
    if (PCD_UNLIKELY(k < 8 || k > UINT32_MAX)) {
        c->p = at;
        return pcd_pb_fail_key(c, at, name, k);
    }
    *key = (uint32_t)k;
    return PCD_OK;
}

/* A length-delimited payload: its length, then a cursor over it (the parent moves past it). */
PCD_INLINE pcd_status pcd_pb_len(pcd_cursor *c, pcd_cursor *sub, const char *name)
{
    const uint8_t *at = c->p;
    uint64_t n;
    PCD_TRY(pcd_read_uleb128(c, &n, name));
    if (PCD_UNLIKELY(n > (uint64_t)(c->end - c->p))) {
        c->p = at;
        return pcd_fail_short(c, at, name, "a length-delimited field inside its message");
    }
    sub->p = c->p;
    sub->end = c->p + n;
    sub->x = c->x;
    sub->hard = true;
    c->p += n;
    return PCD_OK;
}

/* A field of the schema's number with a wire type it does not take. */
PCD_COLD pcd_status pcd_pb_fail_wire(const pcd_cursor *c, const uint8_t *at, const char *name,
                                     const char *expected, uint32_t key);
/* The value after a key the schema does not name (or an earlier occurrence of a singular
 * field, kept raw), into out (NULL: skipped). Wire types 3 and 4 (groups) are refused, as
 * are 6 and 7. */
pcd_status pcd_pb_read_other(pcd_cursor *c, uint32_t key, pcd_pb_field *out, const char *name);

/* Counts the varints of a packed run (the bytes that end one); the last must end. */
pcd_status pcd_pb_count_varints(const pcd_cursor *sub, uint64_t *n, const char *name);
/* Checks every varint of a packed run (at most 10 bytes, 64 bits each). */
pcd_status pcd_pb_skip_varints(pcd_cursor *sub, const char *name);
/* A packed run of fixed-width values: a whole number of them. */
pcd_status pcd_pb_count_fixed(const pcd_cursor *sub, unsigned width, uint64_t *n, const char *name);
/* A 32-bit varint kind: uint32 (at most 2^32 - 1) or int32 (sign-extended to 64 bits, as
 * protobuf writes a negative int32). */
PCD_COLD pcd_status pcd_pb_fail_32(const pcd_cursor *c, const uint8_t *at, const char *name, bool is_signed,
                                   uint64_t v);
PCD_INLINE pcd_status pcd_pb_read_uint32(pcd_cursor *c, uint32_t *out, const char *name)
{
    const uint8_t *at = c->p;
    uint64_t v;
    PCD_TRY(pcd_read_uleb128(c, &v, name));
    if (PCD_UNLIKELY(v > UINT32_MAX)) return pcd_pb_fail_32(c, at, name, false, v);
    *out = (uint32_t)v;
    return PCD_OK;
}
PCD_INLINE pcd_status pcd_pb_read_int32(pcd_cursor *c, int32_t *out, const char *name)
{
    const uint8_t *at = c->p;
    uint64_t v;
    PCD_TRY(pcd_read_uleb128(c, &v, name));
    if (PCD_UNLIKELY((int64_t)v < INT32_MIN || (int64_t)v > INT32_MAX)) return pcd_pb_fail_32(c, at, name, true, v);
    *out = (int32_t)(int64_t)v;
    return PCD_OK;
}

/* Messages that contain themselves: one level deeper, up to the limit (pcd_limits.max_depth). */
PCD_COLD pcd_status pcd_pb_fail_depth(const pcd_cursor *c);
PCD_INLINE pcd_status pcd_pb_enter(pcd_cursor *c)
{
    uint32_t lim = c->x->lim->max_depth ? c->x->lim->max_depth : 100;
    if (PCD_UNLIKELY(c->x->depth >= lim)) return pcd_pb_fail_depth(c);
    c->x->depth++;
    return PCD_OK;
}

/* Counting runs (a decoder's first pass): the same merging as pcd_pb_runs_add. */
typedef struct pcd_pb_runc {
    uint32_t last;    /* the last run's field when it is unpacked and may grow, else UINT32_MAX */
    uint32_t count;
    size_t n;
} pcd_pb_runc;

#define PCD_PB_RUNC_INIT { UINT32_MAX, 0, 0 }

PCD_INLINE void pcd_pb_runc_add(pcd_pb_runc *rc, uint32_t field)
{
    if (field == rc->last && rc->count < UINT32_MAX) {
        rc->count++;
        return;
    }
    rc->n++;
    rc->last = (field & 1) ? UINT32_MAX : field;
    rc->count = 1;
}

/* Records one occurrence (unpacked: count 1) or one packed run of count values. */
PCD_INLINE void pcd_pb_runs_add(pcd_pb_run *runs, size_t *n, uint32_t field, uint32_t count)
{
    if (!(field & 1) && *n && runs[*n - 1].field == field && runs[*n - 1].count < UINT32_MAX) {
        runs[*n - 1].count++;
        return;
    }
    runs[*n].field = field;
    runs[*n].count = count;
    (*n)++;
}

/* pcd_pb_runs_add into a buffer of cap runs: false when it is full. */
PCD_INLINE bool pcd_pb_runs_push(pcd_pb_run *runs, size_t *n, size_t cap, uint32_t field, uint32_t count)
{
    if (!(field & 1) && *n && runs[*n - 1].field == field && runs[*n - 1].count < UINT32_MAX) {
        runs[*n - 1].count++;
        return true;
    }
    if (*n == cap) return false;
    runs[*n].field = field;
    runs[*n].count = count;
    (*n)++;
    return true;
}

/* The canonical form, run by run: does the recorded run at *i say (field, count)? A count of
 * 0 expects nothing. */
PCD_INLINE bool pcd_pb_canon(const pcd_pb_run *runs, size_t n, size_t *i, uint32_t field, uint64_t count)
{
    if (!count) return true;
    if (*i >= n || runs[*i].field != field || runs[*i].count != count) return false;
    (*i)++;
    return true;
}
/* ... and the unknown fields last, in the order read. */
bool pcd_pb_canon_other(const pcd_pb_run *runs, size_t n, size_t *i, const pcd_pb_field *f, size_t nf);

/* ---- encoding -------------------------------------------------------------------------- */

pcd_status pcd_pb_put_other(pcd_sink *s, const pcd_pb_field *f);
uint64_t pcd_pb_other_size(const pcd_pb_field *f);

/* Where the encoder of a message with a layout stands in one repeated field. */
PCD_COLD pcd_status pcd_pb_fail_layout(pcd_sink *s, const char *name, const char *expected, uint64_t found);

/* ---- detection ------------------------------------------------------------------------ */

/* What a message's fields look like, for detection: the keys it takes (number << 3 | wire
 * type) and, per key, the shape of the message a len field holds (-1: none). */
typedef struct pcd_pb_shape {
    const uint32_t *keys;
    const int16_t *nested;
    uint32_t n_keys;
} pcd_pb_shape;

/* Do the first n bytes look like fields of shapes[0]? The first field must be one it names,
 * with its wire type; after it, a field of a number it names must have one of that field's
 * wire types, other numbers (newer fields) only a valid wire type; messages inside that lie
 * wholly in the bytes are looked into the same way. 2: at least one whole field and nothing
 * against it; 0: no. */
int pcd_pb_detect(const pcd_pb_shape *shapes, const uint8_t *p, size_t n);

/* ---- the layout as text: runs separated by spaces, "N" one occurrence of field N, "N*K" K
 * occurrences in a row, "NpK" a packed run of K values ---------------------------------------- */

/* Writes the layout's text (without quotes) into buf; returns the length it needed. */
size_t pcd_pb_layout_format(const pcd_pb_layout *l, char *buf, size_t cap);
/* Parses text into runs allocated in the arena; NULL, or why not. */
const char *pcd_pb_layout_parse(const char *text, size_t len, pcd_arena *a, pcd_pb_layout *out);

#endif
