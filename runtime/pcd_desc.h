/* pcd_desc.h: descriptor tables emitted by the generator, for reflection only
 * (the generic JSON dumper and encoder, the stream driver); never on a field's hot path. */
#ifndef PCD_DESC_H
#define PCD_DESC_H

#include "pcd_cursor.h"
#include "pcd_sink.h"
#include "pcd_pb.h"

/* How a field's value is held in its C struct. */
typedef enum pcd_kind {
    PCD_K_U8 = 1, PCD_K_U16, PCD_K_U32, PCD_K_U64,
    PCD_K_S8, PCD_K_S16, PCD_K_S32, PCD_K_S64,
    PCD_K_F32, PCD_K_F64,
    PCD_K_BOOL,
    PCD_K_BYTES,      /* pcd_bytes; binary: JSON {"hex": "..."} */
    PCD_K_STRING,     /* pcd_bytes; text: a JSON string when UTF-8, else {"hex": "..."} */
    PCD_K_STRUCT,     /* a nested struct by value (type) */
    PCD_K_UNION,      /* a nested union by value (type) */
    PCD_K_ARRAY,      /* pointer at offset, size_t count at aux (element: elem_kind / type) */
    PCD_K_MOJO,       /* pcd_mojo_int: 64-bit magnitude and a sign flag */
    PCD_K_REGION,     /* pcd_region: a nested stream of records (regions[]) */
    PCD_K_PB_OTHER,   /* protobuf: a message's unknown fields, pcd_pb_field pointer at offset, size_t
                       * count at aux; JSON "_unknown": [{"field": N, "varint": V}, ...], left out when empty */
    PCD_K_PB_FIELD    /* protobuf: one unknown field (pcd_pb_field), the case of a field record that
                       * the schema does not name */
} pcd_kind;

enum {
    PCD_F_DERIVED = 1u << 0,   /* computed by the encoder (sizes, counts, offsets); dumped, not read back */
    PCD_F_OPTIONAL = 1u << 1,  /* present only when the bool at `present` is true */
    PCD_F_HIDDEN = 1u << 2,    /* not dumped (magic constants) */
    PCD_F_SENTINEL = 1u << 3,  /* `sentinel` means "absent": dumped as null */
    PCD_F_HEX = 1u << 4,       /* dump integers as "0x..." strings */
    PCD_F_ENUM_OPEN = 1u << 5, /* values outside the enum are allowed */
    PCD_F_TAG_MULTI = 1u << 6, /* a union case with several tags, or the default case of a union
                                  * that reads its tag: the tag is dumped too */
    PCD_F_OMIT_EMPTY = 1u << 7, /* an array left out of JSON when empty (a message's repeated field) */
    PCD_F_INDEX_KEY = 1u << 8   /* each occurrence is the next target of the key space `key` (0, 1, ...) */
};

/* Sign and magnitude (Austin's MOJO varint). */
typedef struct pcd_mojo_int {
    uint64_t mag;
    bool neg;
} pcd_mojo_int;

typedef struct pcd_enum_item {
    int64_t value;
    const char *name;
} pcd_enum_item;

typedef struct pcd_enum {
    const char *name;
    const pcd_enum_item *items;
    uint32_t n_items;
} pcd_enum;

struct pcd_type;
struct pcd_region_desc;

/* Warnings: what the real program's reader accepts but a schema flags (warn = ...). e is a
 * warning (status PCD_OK) with the field's offset and path, what is expected and found. */
typedef void (*pcd_warn_fn)(void *ud, const pcd_error *e);
/* A record type's warnings, on a decoded record: offset is where the record starts,
 * input_size the whole input's size (0 when unknown). */
typedef void (*pcd_type_warn_fn)(const void *rec, uint64_t offset, uint64_t input_size, pcd_warn_fn warn, void *ud);

typedef struct pcd_field {
    const char *name;
    uint8_t kind;             /* pcd_kind */
    uint8_t elem_kind;        /* for arrays: the element's kind */
    uint16_t flags;
    uint32_t offset;          /* offsetof the value */
    uint32_t aux;             /* arrays: offsetof the count (size_t) */
    uint32_t present;         /* optional fields: offsetof the has_ flag (bool) */
    const struct pcd_type *type;   /* struct, union, or array element of those */
    const pcd_enum *enumt;    /* integer names, or NULL */
    int64_t sentinel;         /* with PCD_F_SENTINEL */
    const char *doc;
    const struct pcd_region_desc *region;  /* PCD_K_REGION */
    uint32_t number;          /* protobuf: the field's number (0: not a message's field) */
    /* References (schema: key = / index_key = / ref = "space"): the key space whose targets
     * this field defines (key; with PCD_F_INDEX_KEY by its position), or points at (ref);
     * NULL: neither. For the mutators; no decoder reads them. */
    const char *key;
    const char *ref;
} pcd_field;

/* Unions are C structs { uint32_t which; union {...} u; }; `fields` are the cases
 * in schema order, `which` is the index of the case that is present. */
typedef struct pcd_type {
    const char *name;
    uint8_t is_union;
    uint8_t named;            /* a schema type of its own (not inline in another) */
    uint32_t size;            /* sizeof the C struct */
    const pcd_field *fields;
    uint32_t n_fields;
    const char *doc;
    /* Unions: tag_key is the JSON key naming the case of a union that carries its own
     * tag ("kind"); NULL when the tag is elsewhere (then the case's value is written
     * bare and `select` tells from the owner's other fields which case it is). */
    const char *tag_key;
    /* owner: the named type the union belongs to (its fields before the union set) */
    int32_t (*select)(const void *owner);
    /* Named unions with a tag of their own: the tag's bytes before a case's fields
     * (a case that opens regions has its sizes patched relative to where it starts). */
    uint32_t tag_wire;
    /* The warnings its schema declares (warn = ...); NULL when it declares none. */
    pcd_type_warn_fn warn;
    /* Protobuf messages and field records: 1 + offsetof a pcd_pb_layout (the order and packing
     * the writer chose; JSON "_layout", left out when canonical); 0: none. */
    uint32_t layout_at;
} pcd_type;

/* Where a records region sits in its parent record; filled by the parent's decoder. */
typedef struct pcd_region {
    uint64_t offset;          /* stream offset of the first byte */
    uint64_t size;            /* bytes, when sized */
    uint64_t count;           /* records, when counted */
    bool sized;               /* false: until the end of the enclosing data */
    bool counted;             /* ends after `count` records */
    uint8_t compression;      /* 0 none, 1 zstd, PCD_REGION_ZSTD_FRAME */
    bool absent;              /* a conditional region whose condition is false: not there */
} pcd_region;

/* pcd_region.compression: one zstd frame whose compressed size is stored nowhere; the
 * region ends where the frame ends (found by parsing the frame's block headers). */
#define PCD_REGION_ZSTD_FRAME 2

typedef pcd_status (*pcd_decode_fn)(pcd_cursor *c, void *out);
typedef pcd_status (*pcd_validate_fn)(pcd_cursor *c);
typedef pcd_status (*pcd_encode_fn)(pcd_sink *s, const void *in);
typedef void (*pcd_state_init_fn)(void *state, const void *parent, const pcd_ctx *x);
/* Validates records back to back until the cursor's end or max records; returns how many
 * passed, *st the status that stopped it (PCD_OK at the end), *start where the last began. */
typedef uint64_t (*pcd_validate_run_fn)(pcd_cursor *c, uint64_t max, pcd_status *st, const uint8_t **start);
/* Decoding fast path: receives each record a decode run decoded (valid during the call);
 * anything but PCD_OK stops the run and is returned by it. */
struct pcd_record;
typedef pcd_status (*pcd_record_fn)(void *ud, const struct pcd_record *rec);
/* Decodes records back to back into rec->data (filling rec's offset, size, index) and calls
 * fn for each, until the cursor's end or max records; returns how many decoded, *st the
 * status that stopped it (PCD_OK at the end), *start where the failing record began, or
 * NULL when fn stopped the run. */
typedef uint64_t (*pcd_decode_run_fn)(pcd_cursor *c, uint64_t max, pcd_status *st, const uint8_t **start,
                                      struct pcd_record *rec, pcd_record_fn fn, void *ud);
/* Back-patches derived fields of a parent after its region was written. */
typedef pcd_status (*pcd_finish_fn)(pcd_sink *s, void *parent, uint64_t parent_offset,
                                    uint64_t region_start, uint64_t region_size, uint64_t region_records);
/* Writes the fields of a record that come after its k-th region (k >= 1). */
typedef pcd_status (*pcd_segment_fn)(pcd_sink *s, const void *in, uint32_t k);

/* A region of records nested in a record: what the records are and how to recover. */
typedef struct pcd_region_desc {
    const char *name;
    const pcd_type *record;
    size_t record_size;
    pcd_decode_fn decode;
    pcd_validate_fn validate;     /* NULL when records must be decoded (they open regions) */
    pcd_validate_run_fn validate_run; /* the same in a generated loop (no call per record) */
    pcd_encode_fn encode;
    size_t state_size;
    pcd_state_init_fn state_init; /* NULL when there is no state */
    pcd_finish_fn finish;         /* NULL when nothing in the parent depends on the region */
    uint32_t region_field;        /* offsetof the pcd_region in the parent */
    /* recovery after a damaged record */
    int8_t size_off;              /* offset of a size field in the record, -1 none */
    uint8_t size_width;           /* 1, 2, 4 or 8 */
    uint8_t size_big;
    uint8_t size_native;          /* byte order follows the file */
    uint32_t size_add;            /* bytes before the region the size counts (0: counts from record start) */
    uint32_t size_min;            /* smallest sane size */
    const uint8_t *const *sync;   /* magics to resynchronise on (NULL-terminated), or NULL */
    const uint8_t *sync_len;
    /* compressed regions: which compression the parent record asks for (0 none, 1 zstd,
     * PCD_REGION_ZSTD_FRAME), and the zstd level the encoder uses; NULL when the region is
     * never compressed */
    uint8_t (*compression)(const void *parent);
    int zstd_level;
    uint32_t record_min;          /* the smallest record's bytes: a count must fit in the data */
    pcd_decode_run_fn decode_run; /* NULL when records open regions */
    /* Records that are batches of fixed-width elements: each record is decoded within the
     * next batch_bytes of the region (the last one within what is left); 0: not batched. */
    uint32_t batch_bytes;
    /* explain: decode that also records where each field lies (pcd_span.h); NULL for
     * protobuf records, whose fields the runtime finds by their keys (pcd_pb_spans) */
    pcd_decode_fn explain;
} pcd_region_desc;

/* A format version: what `formats` lists and what the stream driver runs. */
typedef struct pcd_format {
    const char *name;             /* "heph" */
    const char *version;          /* "0.1" */
    const char *title;
    const char *schema;           /* "schemas/heph/v0_1.lua" */
    const pcd_type *root;
    size_t root_size;
    pcd_decode_fn root_decode;
    pcd_encode_fn root_encode;
    pcd_segment_fn root_segment;  /* NULL when no field follows a region of the root */
    const pcd_region_desc *const *regions;  /* every region, by index (root's first) */
    uint32_t n_regions;
    /* Recognises the format from the first bytes; returns 0 (no), 1 (maybe: too
     * few bytes to say) or 2 (yes). */
    int (*detect)(const uint8_t *p, size_t n);
    uint32_t detect_min;          /* bytes detect() wants */
    uint64_t version_num;         /* dispatch key */
    uint32_t flags;
    pcd_decode_fn root_explain;   /* the root's decode that records its spans (pcd_span.h) */
} pcd_format;

enum {
    PCD_FMT_STREAMABLE = 1u << 0,  /* can be read front to back from a pipe */
    PCD_FMT_NATIVE_ORDER = 1u << 1, /* byte order detected from a magic */
    PCD_FMT_PADDED_NAMES = 1u << 2, /* NUL-padded strings: what follows a NUL is not kept
                                       (re-encoding writes zeros there) */
    PCD_FMT_RELOCATES = 1u << 3,    /* fields hold file offsets the encoder relocates */
    PCD_FMT_NO_MAGIC = 1u << 4,     /* detected by the structure of its first bytes (protobuf), not
                                     * by a magic: tried after the formats that have one */
    PCD_FMT_WARNS = 1u << 5         /* record types declare warnings (warn = ...): checking them
                                       takes decoded records (pcd_record_warnings) */
};

/* Every format this build knows (generated/pcd_formats.c). */
extern const pcd_format *const pcd_formats[];
extern const size_t pcd_n_formats;

const pcd_format *pcd_format_find(const char *name, const char *version);

#endif
