/* pcd_writer.h: the encode side of the stream driver: a root record, then records
 * region by region; sizes and counts that depend on a region are patched after it. */
#ifndef PCD_WRITER_H
#define PCD_WRITER_H

#include "pcd_reader.h"
#include "pcd_zstd.h"

typedef struct pcd_wlevel {
    const pcd_region_desc *rd;
    uint64_t start;           /* output offset of the region's first byte */
    uint64_t parent_offset;   /* output offset of the record that opened it */
    uint64_t count;
    void *state;
    /* compressed regions: records go through `inner` into a zstd frame in the real sink */
    bool compressed;
    pcd_zstd_writer zw;
    pcd_sink inner;
    uint8_t *ibuf;
    struct pcd_writer *w;     /* (for region_bytes) */
    uint32_t ordinal;         /* compressed regions: which one opened, from 1 */
} pcd_wlevel;

typedef struct pcd_writer {
    const pcd_format *f;
    pcd_sink *s;              /* the real output */
    pcd_sink *cur;            /* where records go now (s, or a compressing level's inner sink) */
    pcd_alloc *al;
    pcd_ctx x;
    pcd_wlevel lv[PCD_READER_MAX_DEPTH];
    uint32_t depth;
    uint32_t root_next;       /* root regions closed so far (their segments written) */
    bool root_done;
    bool failed;
    uint64_t records;
    uint64_t root_offset, root_size;  /* where the root record's first bytes went */
    /* relocation (formats with PCD_FMT_RELOCATES): where records stood in the original file
     * (old) and where they were written (now), in file order */
    uint64_t *rel;
    size_t nrel, crel;
    bool has_origin;
    uint64_t origin;
    /* a closed compressed level's zstd context and buffer, for the next one */
    bool has_spare;
    pcd_zstd_writer spare_zw;
    uint8_t *spare_ibuf;
    /* the zstd level of every compressed region instead of the schema's (0: the schema's);
     * set after pcd_writer_open (mutators: fast for files nobody keeps) */
    int zstd_level;
    bool zstd_small;          /* ... and with the smallest window and tables (pcd_zstd_writer_small) */
    /* Set after pcd_writer_open (mutators; NULL otherwise): the bytes of every compressed region
     * on their way into zstd, in chunks, which the hook may replace (*p, *n: bytes of its own,
     * valid until the next call) to damage what is inside a layer and not the layer itself.
     * `ordinal` counts the compressed regions opened, from 1. */
    pcd_status (*region_bytes)(void *ud, const pcd_region_desc *rd, uint32_t ordinal, const uint8_t **p, size_t *n);
    void *region_bytes_ud;
    uint32_t compressed_opened;
    /* the region field a record type opens first (NULL: none), for the last types written:
     * announce looks each type's fields through once, not once a record */
    const pcd_type *ann_type[8];
    const pcd_field *ann_field[8];
} pcd_writer;

/* The sink's ctx is replaced by the writer's. `al` gives state memory. */
pcd_status pcd_writer_open(pcd_writer *w, const pcd_format *f, pcd_sink *s, pcd_alloc *al);
/* Byte order for formats whose order is the writer's own (native). */
void pcd_writer_set_big(pcd_writer *w, bool big);
pcd_status pcd_writer_root(pcd_writer *w, const void *root);
/* Writes the root record again over its first bytes, with the values it has now (same
 * size required): for formats whose header holds totals known only at the end. Fields
 * the writer patches after a region (offsets, sizes, counts) are still patched then, so
 * call it before the regions they depend on are closed. */
pcd_status pcd_writer_update_root(pcd_writer *w, const void *root);
/* A record of region rd; rd must be a region of the last record written, the
 * current region, or a region of a record further out (which closes the inner ones). */
pcd_status pcd_writer_record(pcd_writer *w, const pcd_region_desc *rd, const void *rec);
/* A compressed region written as the bytes it had in the file it was read from (its zstd
 * frame(s), untouched), instead of its records: rd is a region of the last record written (or
 * a later region of the root), with no record of it written yet. `records` is how many
 * records (of rd itself) those bytes hold, for the counts patched after the region. The
 * writer goes on after the region as after its last record. */
pcd_status pcd_writer_raw_region(pcd_writer *w, const pcd_region_desc *rd, const uint8_t *p, size_t n,
                                 uint64_t records);
/* `records` records of region rd given as their encoded bytes (p, n), one after another:
 * the same as that many pcd_writer_record calls that wrote these bytes. For records that
 * open no region and whose encoding depends on nothing but their own values (no stream
 * state, no relocated offsets): a caller that keeps the bytes of unchanged records (the
 * structure-aware mutators) writes them again without encoding them. */
pcd_status pcd_writer_record_bytes(pcd_writer *w, const pcd_region_desc *rd, const uint8_t *p, size_t n,
                                   uint64_t records);
/* Closes the open regions nested deeper than `depth` (0: every one), as the next record at
 * that depth would: afterwards pcd_sink_tell of the output is where that record starts. */
pcd_status pcd_writer_close_to(pcd_writer *w, uint32_t depth);
/* The record written next stood at old_offset in the file it was read from (a dump's
 * _offset). Formats whose fields hold file offsets (relocate = true) then have those offsets
 * moved to where the records they point into were written; records of file-level regions
 * must come in the order of their old offsets. */
pcd_status pcd_writer_set_origin(pcd_writer *w, uint64_t old_offset);
/* Closes every open region (patching sizes and counts) and flushes the sink. */
pcd_status pcd_writer_finish(pcd_writer *w);
void pcd_writer_close(pcd_writer *w);
/* Callers that write many small files (mutators): the zstd context a writer keeps for its next
 * compressed region (or, after a failure, the one of a region left open), taken out before
 * pcd_writer_close (false: it has none) and handed to the
 * next writer on the same allocator right after pcd_writer_open. Reusing it keeps zstd from
 * clearing its tables for every file. A context taken and never handed on is freed with
 * pcd_writer_spare_free. */
typedef struct pcd_writer_spare {
    pcd_zstd_writer zw;
    uint8_t *ibuf;
} pcd_writer_spare;
bool pcd_writer_take_spare(pcd_writer *w, pcd_writer_spare *out);
void pcd_writer_give_spare(pcd_writer *w, const pcd_writer_spare *sp);
void pcd_writer_spare_free(pcd_alloc *al, pcd_writer_spare *sp);
const pcd_error *pcd_writer_error(const pcd_writer *w);

#endif
