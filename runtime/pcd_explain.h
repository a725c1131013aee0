/* pcd_explain.h: profcodec explain: where each field of a record lies, its value as `dump`
 * writes it, and the schema's doc string, from the generated descriptors alone (so a new schema
 * has it for free).
 *
 * A reader opened with a span list (pcd_reader_opts.spans) decodes each record through the
 * generated explain functions, which record a tree of spans (pcd_span.h). pcd_explain_record
 * turns them into fields: each span's descriptor, found by name from the record's type down, and
 * the data it describes, so that its value is written by the same code as dump's. Protobuf
 * records have no explain functions: their fields are found by their keys, numbers mapped to
 * names by the descriptors. The regions a record opens are fields too (their records follow). */
#ifndef PCD_EXPLAIN_H
#define PCD_EXPLAIN_H

#include "pcd_desc.h"
#include "pcd_reader.h"
#include "pcd_span.h"

typedef enum pcd_xkind {
    PCD_X_FIELD = 0,          /* a field of a struct, or a union's case (fd: the case) */
    PCD_X_ELEMENT,            /* an element of an array (index) */
    PCD_X_TAG,                /* the bytes that choose a union's case ("_tag") */
    PCD_X_COUNT,              /* an array's element count ("_count") */
    PCD_X_REGION,             /* records inside the record: they come after it, as records */
    PCD_X_KEY                 /* protobuf: a field's key, and the length of a length-delimited one ("_key") */
} pcd_xkind;

typedef struct pcd_xfield {
    uint8_t kind;             /* pcd_xkind */
    const char *name;         /* the field, case or region; "_tag", "_count", "_key"; NULL: an element */
    int64_t index;            /* an element's index, a repeated protobuf field's occurrence; else -1 */
    uint64_t start, end;      /* [start, end) in the record's stream (a region: in its parent's) */
    uint32_t parent;          /* 1 + the enclosing field in the record's list; 0: the record */
    uint32_t depth;           /* 1: a field of the record itself */
    bool leaf;                /* nothing inside: its bytes are its own */
    bool closed;              /* false: the field the decoding failed in (end: where it stopped) */
    bool is_case;             /* a union's case (dump writes its fields with the union's) */
    const char *doc;          /* the schema's doc string, or NULL */
    /* what its value is made from */
    const pcd_field *fd;      /* its descriptor, or NULL */
    const void *base;         /* what fd->offset counts from */
    const pcd_type *type;     /* the struct or union inside (its fields' descriptors) */
    const void *data;         /* that struct's or union's data */
    const char *case_name;    /* PCD_X_TAG: the case it chooses */
    uint64_t count;           /* PCD_X_COUNT: the elements; protobuf packed runs: how many */
    uint64_t first;           /* protobuf repeated fields: the first element this occurrence holds */
    bool compressed;          /* PCD_X_REGION: its records are in decompressed data */
    bool sized;               /* PCD_X_REGION: end is known (else: up to the enclosing data's end) */
} pcd_xfield;

typedef struct pcd_xrecord {
    pcd_alloc *al;
    pcd_xfield *f;
    size_t n, cap;
    bool lost;                /* spans were dropped (out of memory): the tree is not whole */
} pcd_xrecord;

void pcd_xrecord_init(pcd_xrecord *x, pcd_alloc *al);
void pcd_xrecord_free(pcd_xrecord *x);

/* The fields of rec (data may be a record whose decoding failed: only the spans that closed
 * have values): from the spans sp its explain decoding recorded, or for a protobuf record
 * from the keys in bytes[0 .. rec->size). PCD_E_NOMEM when the allocator refuses. */
pcd_status pcd_explain_record(pcd_xrecord *x, const pcd_record *rec, const pcd_spans *sp, const uint8_t *bytes);

/* The field's value as dump writes it; *written false (nothing written) when it has none of its
 * own (a struct, a union's case with fields, an element with fields, a region). */
pcd_status pcd_explain_value(pcd_sink *s, const pcd_xfield *f, bool *written);

/* What dump calls the record ("_kind": the root type, or a union's case, or the record type). */
const char *pcd_explain_kind(const pcd_record *rec);

#endif
