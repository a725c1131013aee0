/* pcd_mut_int.h: the mutator engine's inside (pcd_mut.c, pcd_mut_base.c, pcd_mut_walk.c, pcd_mut_wire.c). */
#ifndef PCD_MUT_INT_H
#define PCD_MUT_INT_H

#include "pcd_mut_gen.h"

/* One record of the loaded file, in file order (the root first): the flat sequence the
 * reader gave and the writer takes. */
typedef struct mrec {
    const pcd_region_desc *rd;   /* NULL: the root */
    const pcd_type *type;
    void *data;
    uint32_t depth;
    bool owned;                  /* data belongs to the working copy (may be changed in place) */
    uint64_t origin;             /* offset in the file it was read from; UINT64_MAX: none */
    uint32_t pidx;               /* its index in the loaded records; UINT32_MAX: made since */
} mrec;

/* A compressed region as it was in the file: written again as these bytes while its records
 * and its parent are unchanged (no recompression, and the same bytes). */
typedef struct mspan {
    size_t parent;               /* the record that opens it (loaded index) */
    size_t first, end;           /* its records [first, end) (loaded indexes) */
    uint64_t count;              /* records of the region itself */
    const pcd_region_desc *rd;
    const uint8_t *p;
    size_t n;
} mspan;

/* A set of records and the memory behind them. */
typedef struct mset {
    mrec *r;
    size_t n, cap;
    pcd_arena arena;
    bool gz, big;
    mspan *spans;
    size_t nspans, cspans;
} mset;

#define MUT_MAX_PATH 6
#define MUT_MAX_SITES 512
#define MUT_MAX_POINTS 8

/* A value (or an array, or a union) inside one record. */
typedef struct msite {
    const pcd_field *f;
    uint8_t kind;                /* pcd_kind of the value; PCD_K_ARRAY / PCD_K_UNION for those */
    void *p;                     /* the value, the union, or the array's owner struct */
    void *owner;                 /* the struct (or message) that holds it */
    const pcd_type *owner_t;
    const pcd_type *union_t;     /* PCD_K_UNION: the union's type */
    const char *path[MUT_MAX_PATH];
    int32_t idx[MUT_MAX_PATH];   /* element index after path[i], -1 none */
    uint8_t np;
} msite;

typedef struct centry {
    uint32_t off, len, end;
} centry;

typedef struct keydef {
    uint32_t space;
    uint64_t value;
    size_t rec;                  /* the record defining it */
} keydef;

struct pcd_mut {
    const pcd_mutator *mu;
    const pcd_format *f;
    pcd_mut_opts o;
    pcd_alloc *al;
    uint64_t rng;
    mset pristine;               /* as loaded */
    mset other;                  /* crossover donor */
    mrec *w;                     /* the working copy of pristine.r */
    size_t wn, wcap;
    pcd_arena ma;                /* what mutations made since the last restore */
    bool loaded;
    bool det;                    /* sites in a fixed order (shrinking): no random picks */
    uint64_t load_hash;
    size_t load_size;
    /* key definitions of the pristine records, by space */
    keydef *defs;
    size_t ndefs, cdefs;
    uint32_t nspaces;
    uint64_t index_count[16];    /* index_key spaces: how many targets */
    /* sites of the record being mutated */
    msite sites[MUT_MAX_SITES];
    size_t nsites;
    /* scratch */
    uint8_t *buf;                /* encode output / gunzip output */
    size_t buf_cap;
    uint8_t *buf2;
    size_t buf2_cap;
    int layer;                   /* a pending layer-breaking kind, -1 none */
    int inner;                   /* a pending inner_bytes: -1 none, 0 the gzip layer, 1 a zstd
                                  * region: the loaded span inner_span, which the encode writes
                                  * from its records (the others raw as usual) */
    size_t inner_span;
    const pcd_region_desc *inner_rd;
    bool inner_armed;            /* inner_span passed over: the next bytes of inner_rd are its */
    uint32_t inner_fed;          /* else the inner_fed-th region that gets bytes (0: none) */
    uint32_t fed, fed_last;      /* regions that got bytes in this encode; the last one's ordinal */
    bool inner_done;
    bool gz_drop;                /* a pending gzip_drop: the encode writes no gzip layer */
    bool wire;                   /* a pending pb_wire: the encode rewrites one message's form */
    uint8_t *wbuf;               /* pb_wire's scratch (its fields, then its output) */
    size_t wbuf_cap;
    uint32_t wire_forms;         /* bit f: pb_wire wrote form f (pcd_mut_wire_form_name) */
    pcd_mut_bytes_fn bytes_fn;
    void *bytes_ud;
    uint8_t *ibytes;             /* inner_bytes' scratch */
    size_t ibytes_cap;
    pcd_writer_spare spare;      /* the writers' zstd context, from one encode to the next */
    bool has_spare;
    pcd_arena chk;               /* the check of a changed record: decoded arrays */
    uint8_t *chkrec;             /* ... and the record it decodes to */
    size_t max_rec;              /* the largest record struct of the format */
    /* the last output (an input equal to it is the working copy again: no decoding) */
    uint64_t out_hash;
    size_t out_len;
    bool out_valid;
    bool fast_zstd;              /* the loaded records were promoted: regions they did not keep
                                  * as bytes were compressed fast, and are again (the same bytes) */
    size_t *span_at;             /* per loaded span: where the last encode wrote it raw (its
                                  * parent's index in the working copy), SIZE_MAX: not raw */
    size_t span_cap;
    pcd_arena next;              /* the arena a promoted working copy is copied into */
    /* How the working copy stands against pristine: w[0, dlo) are pristine.r[0, dlo), and
     * w[dhi, wn) are pristine's last records (w[i] is pristine.r[i - wn + pristine.n]); only
     * w[dlo, dhi) may differ. dlo == SIZE_MAX: w is pristine.r whole; dhi == SIZE_MAX: all
     * from dlo on may differ. Every change to w (not to the data of an owned record) goes
     * through pcd_mut_edit: the restore copies back only that window, the encode writes the
     * records outside it from cbytes without looking at them. */
    size_t dlo, dhi;
    /* ... and single records changed in place outside that window (pcd_mut_own), up to
     * MUT_MAX_POINTS: two records far apart make no window of everything between them */
    size_t pts[MUT_MAX_POINTS];
    uint32_t npts;
    /* The encoded bytes of pristine records (record p: cbytes + cent[p].off, cent[p].len bytes;
     * off == UINT32_MAX: not kept), for those that open no region and whose encoding depends on
     * their values alone (no stream state, no relocated offset; the root as loaded); cent[p].end:
     * the end of the run of records from p of the same region whose kept bytes follow each other. */
    uint8_t *cbytes;
    size_t cblen, cbcap;
    centry *cent;
    size_t ccap;
    bool cache_built;            /* for the pristine records as they are (else built at the next encode) */
    bool cache_ok;               /* ... and usable */
    uint32_t encodes;            /* encodes of the working copy since the records were loaded */
    bool cache_remap;            /* cent holds the promoted records' kept bytes (TO_ENCODE: the others) */
    bool cache_off;              /* never used (tests: the outputs must be the same without it) */
    char desc[2048];
    size_t dlen;
    char sdesc[256];
};

/* random numbers (xorshift64*; pcd_mut_reseed sets the state, never to zero); pcd_mut_base.c: the
 * description, whether bytes decode */
PCD_INLINE uint64_t pcd_mut_rand(pcd_mut *m)
{
    uint64_t x = m->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    m->rng = x;
    return x * UINT64_C(2685821657736338717);
}
PCD_INLINE uint64_t pcd_mut_below(pcd_mut *m, uint64_t n) { return n ? pcd_mut_rand(m) % n : 0; }
PCD_INLINE bool pcd_mut_chance(pcd_mut *m, double p) { return (double)(pcd_mut_rand(m) >> 11) * 0x1.0p-53 < p; }
/* a part of the one-line description of what the mutation did ("; " between parts) */
void pcd_mut_note(pcd_mut *m, const char *fmt, ...);
/* does our own decoder read these bytes whole (every record, validated)? */
bool pcd_mut_decodes(pcd_mut *m, const uint8_t *p, size_t n);

/* pcd_mut_walk.c */
size_t pcd_mut_elem_size(const pcd_field *f);
bool pcd_mut_copy(pcd_arena *a, const pcd_type *t, void *dst, const void *src);
void *pcd_mut_own(pcd_mut *m, size_t k);   /* the working record k's data, made its own */
/* the sites of one record (owned: arrays on the way are copied so they can be changed) */
void pcd_mut_sites(pcd_mut *m, const pcd_type *t, void *data, bool owned, const char *name, int32_t index);
uint64_t pcd_mut_get_int(uint8_t kind, const void *p);
void pcd_mut_set_int(uint8_t kind, void *p, uint64_t v);
bool pcd_mut_is_int(uint8_t kind);
void pcd_mut_site_path(const msite *s, char *buf, size_t cap);
const pcd_mut_init *pcd_mut_init_of(const pcd_mutator *mu, const pcd_type *t);
void pcd_mut_init_type(const pcd_mutator *mu, const pcd_type *t, void *data);
/* the key definitions of a set (defs, index counts) */
void pcd_mut_scan_keys(pcd_mut *m, const mset *s);
int pcd_mut_space(const pcd_mut *m, const char *name);

/* pcd_mut.c */
pcd_status pcd_mut_encode_records(pcd_mut *m, const mrec *r, size_t n, uint8_t *out, size_t cap, size_t *len,
                              size_t size_rec, uint64_t *size_at);
size_t pcd_mut_subtree_end(const mrec *r, size_t n, size_t k);
/* w[a, b) (indexes before the change) was replaced by c records: called by everything that
 * changes the array w (pcd_mut_own included; not for changes inside an owned record's data).
 * pcd_mut_edit_all: every record of w may differ from pristine's. */
void pcd_mut_edit(pcd_mut *m, size_t a, size_t b, size_t c);
PCD_INLINE void pcd_mut_edit_all(pcd_mut *m)
{
    m->dlo = 0;
    m->dhi = SIZE_MAX;
    m->npts = 0;
}

bool pcd_mut_reserve(pcd_mut *m, size_t n);
void *pcd_mut_new_record(pcd_mut *m, const pcd_region_desc *rd);

/* Does record k of the working copy still encode and decode by itself? */
bool pcd_mut_check_record(pcd_mut *m, size_t k);
/* ... or only that it still encodes (evil kinds: what the encoder cannot write is no output) */
bool pcd_mut_check_record_as(pcd_mut *m, size_t k, bool encode_only);

/* the kinds (end of pcd_mut.c) */
pcd_status pcd_mut_apply_kind(pcd_mut *m, pcd_mut_kind k);
/* inner_bytes on n bytes in buf (room for cap): the session's byte mutation, or the engine's own */
size_t pcd_mut_bytes(pcd_mut *m, uint8_t *buf, size_t n, size_t cap);
void pcd_mut_layer(pcd_mut *m, int kind, uint8_t *out, size_t cap, size_t *len, uint64_t size_at, size_t size_rec);

/* pcd_mut_wire.c: pb_wire on the protobuf in buf[0..*n) (room for cap); false: unchanged */
bool pcd_mut_pb_wire(pcd_mut *m, uint8_t *buf, size_t *n, size_t cap);
const char *pcd_mut_wire_form_name(int form);

#endif
