/* formats/tachyon/tachyon.h: what the Tachyon pieces above the bytes share (tachyon_ext.c, tachyon_convert.c,
 * tachyon_writer.c). */
#ifndef TACHYON_EXT_H
#define TACHYON_EXT_H

#include "formats/registry.h"
#include "formats/tachyon/replay.h"

/* The root (header and footer) or a sample record, or NULL. */
PCD_INLINE const tach_file *tach_as_root(const pcd_record *rec)
{
    if (rec->depth != 0 || rec->type != &pcd_tachyon_v1_file_type || !rec->data) return NULL;
    return rec->data;
}
PCD_INLINE const tach_sample *tach_as_sample(const pcd_record *rec)
{
    if (rec->type != &pcd_tachyon_v1_sample_type || !rec->data) return NULL;
    return rec->data;
}

/* "wall, features: gc" */
size_t tach_config_text(char *buf, size_t cap, uint32_t config);

/* Converters (pcd_conv_fn) and the importer (encode --from samples). */
int tach_collapsed_run(const pcd_conv_args *a);
int tach_speedscope_run(const pcd_conv_args *a);
int tach_chrome_run(const pcd_conv_args *a);
int tach_samples_run(const pcd_conv_args *a);
int tach_import_samples_run(const pcd_import_args *a);

/* Reading steps the converters share (tachyon_convert.c): each returns 0, or the exit code
 * after reporting the problem. The root record; the tables (after the root, skipping the
 * samples); a second reader over the same input positioned on the first sample record
 * (*opened: it needs closing); the sample records of r through the replay, up to the first
 * record that is not a sample (*next, *have_next). */
int tach_read_root(const pcd_conv_args *a, pcd_reader *r, tach_file *root);
int tach_read_tables(const pcd_conv_args *a, pcd_reader *r, tach_tables *t);
int tach_open_samples(const pcd_conv_args *a, pcd_reader *r2, bool *opened);
int tach_replay_samples(const pcd_conv_args *a, pcd_reader *r, tach_replay *rp, pcd_record *next, bool *have_next);

/* ---- strings as CPython sees them --------------------------------------------------------
 * Each string of the table decoded with errors="replace" (and written back as UTF-8), with a
 * canonical id shared by strings whose text is equal (CPython compares text, not indexes). */
typedef struct tach_names {
    uint8_t *text;                   /* all texts, back to back */
    size_t text_len, text_cap;
    uint64_t *off;
    uint32_t *len, *canon;
    uint32_t n;
    pcd_alloc *al;
} tach_names;

pcd_status tach_names_build(tach_names *nm, const tach_tables *t, pcd_alloc *al);
void tach_names_free(tach_names *nm);
static inline const uint8_t *tach_name(const tach_names *nm, uint32_t i, size_t *len)
{
    *len = nm->len[i];
    return nm->text + nm->off[i];
}

#endif
