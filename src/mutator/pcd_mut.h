/* pcd_mut.h: structure-aware mutators and generators of valid files, one per schema.
 *
 * Each schema's mutator is generated beside its codec (generated/<fmt>_v<N>_mut.c, the
 * object pcd_<fmt>_v<N>_mutator); this engine runs any of them. An input is decoded into
 * its records (gzip around it is taken off and put back), mutated at the level of the
 * schema (integers, union tags, strings, arrays, records of a region, references), then
 * encoded again with every derived field recomputed (sizes, counts, offsets, footers,
 * zstd layers, varint widths). A few named kinds break one layer on purpose (a wrong
 * size, a bad zstd frame, a truncation); they are chosen with a small probability.
 *
 * Memory: everything comes from the pcd_alloc handed to pcd_mut_new (nothing else is
 * allocated); output goes to the caller's buffer. Deterministic: the same seed, options
 * and inputs give the same outputs. Not thread-safe per session; use a session a thread. */
#ifndef PCD_MUT_H
#define PCD_MUT_H

#include "pcd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A schema's mutator (generated). */
typedef struct pcd_mutator pcd_mutator;

/* Every schema's mutator in this build, in the order of pcd_formats. */
extern const pcd_mutator *const pcd_mutators[];
extern const size_t pcd_n_mutators;

/* "mojo" with version "3" (or NULL: the newest), or name "mojo:3" / "mojo_v3" alone. */
const pcd_mutator *pcd_mutator_find(const char *name, const char *version);
/* The mutator whose format recognises these bytes (through a gzip layer too); NULL: none. */
const pcd_mutator *pcd_mutator_detect(const uint8_t *data, size_t size);
const pcd_format *pcd_mutator_format(const pcd_mutator *mu);
/* "mojo_v3" */
const char *pcd_mutator_name(const pcd_mutator *mu);

/* The mutation kinds. A kind "keeps" when the file it writes is still accepted by our own
 * decoder (the engine checks the record it changed and tries again otherwise). */
typedef enum pcd_mut_kind {
    PCD_MUT_INT_NEAR = 0,     /* an integer moved by a small delta (keeps) */
    PCD_MUT_INT_BOUNDARY,     /* 0, 1, the width's max/min, varint length edges (keeps) */
    PCD_MUT_INT_EVIL,         /* boundary values that need not be valid: -1, 2^63, max+1 ... (evil) */
    PCD_MUT_TAG,              /* a union to another case, with a valid payload (keeps) */
    PCD_MUT_STR_LENGTH,       /* a string/bytes made shorter, longer, empty (keeps) */
    PCD_MUT_STR_COPY,         /* a string made equal to another string of the file (keeps) */
    PCD_MUT_STR_NUL,          /* a NUL inside a string (evil) */
    PCD_MUT_STR_UTF8,         /* invalid UTF-8 in a string: 0xff, overlong, surrogate, cut (evil) */
    PCD_MUT_ARRAY_INSERT,     /* an element inserted in an array of a record (keeps) */
    PCD_MUT_ARRAY_DELETE,     /* an element removed (keeps) */
    PCD_MUT_ARRAY_DUP,        /* an element duplicated (keeps) */
    PCD_MUT_REC_INSERT,       /* a new record (any case of its region), default-valid (keeps) */
    PCD_MUT_REC_DELETE,       /* a record and the records it holds removed (keeps) */
    PCD_MUT_REC_DUP,          /* a record and the records it holds duplicated (keeps) */
    PCD_MUT_REC_SWAP,         /* two neighbouring records of a region swapped (keeps) */
    PCD_MUT_REC_SPLICE,       /* a record copied from another input (crossover) or elsewhere (keeps) */
    PCD_MUT_REF_REAL,         /* a reference pointed at another target that exists (keeps) */
    PCD_MUT_REF_STALE,        /* a reference pointed at a target defined only later, or elsewhere (evil) */
    PCD_MUT_REF_MISSING,      /* a reference pointed at no target (evil) */
    PCD_MUT_KEY_REDEFINE,     /* a key definition given the key of another definition (evil) */
    PCD_MUT_INNER_BYTES,      /* the bytes inside a compressed layer (what the gzip layer holds, or
                               * one zstd region's records) changed byte by byte, then compressed
                               * again: everything outside stays consistent (evil) */
    PCD_MUT_GZIP_DROP,        /* the gzip layer taken off: what it holds written as it is, a file
                               * every reader of a gzip'd format also takes; the inputs stay small
                               * and quick to run (keeps) */
    PCD_MUT_REC_SHRINK,       /* about half the records of one kind dropped at once (samples,
                               * events), of those that define keys only the ones nothing refers
                               * to, of an indexed table only its unreferenced end: a valid file
                               * gets small (keeps; not in the default mix: opts.kinds) */
    PCD_MUT_PB_WIRE,          /* protobuf: one message written in another form the wire format
                               * allows (a longer varint, a field twice, an unknown field, fields
                               * out of order, packed <-> unpacked), kept only when our decoder
                               * reads the file whole (keeps) */
    /* layer-breaking kinds: one layer broken on purpose, after encoding */
    PCD_MUT_LAYER_SIZE,       /* a record's size field off by a little or a lot */
    PCD_MUT_LAYER_TRUNCATE,   /* the file cut short */
    PCD_MUT_LAYER_ZSTD,       /* a byte of a zstd frame changed (header, block, checksum) */
    PCD_MUT_LAYER_GZIP,       /* the gzip layer's CRC, size or deflate data damaged */
    PCD_MUT_LAYER_TRAILING,   /* bytes after the end of the file */
    PCD_MUT_N_KINDS
} pcd_mut_kind;

const char *pcd_mut_kind_name(pcd_mut_kind k);     /* "int_boundary", "layer_zstd" ... */
bool pcd_mut_kind_keeps(pcd_mut_kind k);           /* see above */
bool pcd_mut_kind_layer(pcd_mut_kind k);           /* a layer-breaking kind */

typedef struct pcd_mut_opts {
    uint64_t seed;
    bool evil;                /* the evil kinds too (default true); off: every output decodes */
    double layer_break;       /* probability that a call ends with a layer-breaking kind
                               * (default 0.03; 0: never; ignored when evil is off) */
    uint32_t max_stack;       /* mutations stacked in one call: 1..max_stack (default 3) */
    size_t max_output;        /* outputs larger than this are not written (default 1 MiB) */
    uint64_t kinds;           /* bit k: kind k may be chosen (default all but rec_shrink) */
} pcd_mut_opts;

void pcd_mut_opts_default(pcd_mut_opts *o);

/* One session: a schema, options, the records of the input loaded last, a random state. */
typedef struct pcd_mut pcd_mut;

pcd_status pcd_mut_new(pcd_mut **out, const pcd_mutator *mu, const pcd_mut_opts *o, pcd_alloc *al);
void pcd_mut_free(pcd_mut *m);
void pcd_mut_reseed(pcd_mut *m, uint64_t seed);

/* The byte-level mutation inner_bytes uses: data holds size bytes with room for max_size,
 * changed in place; returns the new size (the shape of libFuzzer's LLVMFuzzerMutate). NULL
 * (the default): a small one of the engine's own (bits, bytes, interesting values, bytes
 * inserted, erased, copied). */
typedef size_t (*pcd_mut_bytes_fn)(void *ud, uint8_t *data, size_t size, size_t max_size);
void pcd_mut_set_bytes(pcd_mut *m, pcd_mut_bytes_fn fn, void *ud);

/* Decodes an input into records (gzip taken off). An input that does not decode whole keeps
 * the records before the damage (PCD_OK as long as the root decoded) and is then mutated
 * from those. */
pcd_status pcd_mut_load(pcd_mut *m, const uint8_t *data, size_t size);
/* Replaces the records with a new valid file made from nothing (the seed-less generator). */
pcd_status pcd_mut_generate(pcd_mut *m);
/* Records loaded (the root counts as one). */
size_t pcd_mut_records(const pcd_mut *m);

/* Applies 1..max_stack mutations to the loaded records (then, with probability layer_break,
 * a layer-breaking kind at encode time). PCD_OK with *applied set, or PCD_END when no kind
 * applies to this input. */
pcd_status pcd_mut_mutate(pcd_mut *m, uint32_t *applied);
/* Applies one mutation of kind k (tests, and callers that pick kinds themselves). PCD_END:
 * the kind has nothing to work on in this input. */
pcd_status pcd_mut_apply(pcd_mut *m, pcd_mut_kind k);
/* pb_wire on the input's own bytes (through its gzip layer), not on what its records write:
 * the forms earlier calls wrote stay, and one more is added. PCD_END: not a protobuf format,
 * or no other form that our decoder reads whole was found. */
pcd_status pcd_mut_wire_input(pcd_mut *m, const uint8_t *in, size_t size, uint8_t *out, size_t cap, size_t *len);
/* Crossover: records of another input of the same format spliced in. */
pcd_status pcd_mut_crossover(pcd_mut *m, const uint8_t *other, size_t size);

/* Encodes the records as they are now (gzip put back when the input had it; a pending
 * layer-breaking kind applied). PCD_E_LIMIT: more than cap or max_output bytes. */
pcd_status pcd_mut_encode(pcd_mut *m, uint8_t *out, size_t cap, size_t *len);

/* One line naming every mutation applied since the last load/generate, e.g.
 * "mojo_v3: int_boundary event[12].frame.line=2147483647; ref_missing event[40].frame_ref.key=99991".
 * Valid until the next call on m. */
const char *pcd_mut_describe(const pcd_mut *m);

/* load + mutate + encode in one call (what the engine plugins do). On PCD_E_LIMIT or an
 * input that does not decode, nothing is written and *len is 0. */
pcd_status pcd_mut_fuzz(pcd_mut *m, const uint8_t *in, size_t size, uint8_t *out, size_t cap, size_t *len);

/* ---- structural shrinking (minimisers) ----
 * Steps over the loaded records: first "drop record i" (i from the last to the first;
 * the records it holds go with it), then "shrink value j" (an integer to 0, a string or
 * an array halved, a single byte or element emptied). A step never changes the loaded records:
 * it writes a candidate. Reload a candidate that still shows the finding and start
 * over; stop when no step is taken. */
uint32_t pcd_mut_shrink_steps(pcd_mut *m);
/* PCD_END: that step does nothing on these records (skip it). */
pcd_status pcd_mut_shrink(pcd_mut *m, uint32_t step, uint8_t *out, size_t cap, size_t *len);
/* "drop event[12] (frame_ref)" / "shrink event[3].stack.tid"; valid until the next call. */
const char *pcd_mut_shrink_describe(pcd_mut *m, uint32_t step);

#ifdef __cplusplus
}
#endif

#endif
