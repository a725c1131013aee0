/* formats/tachyon/conv.c: reading steps of the converters that are not on the profile model
 * yet (Chrome here, Tachyon to MOJO in formats/xformat): they take pcd_conv_args and print
 * their problems themselves. The tables come after the samples in the file: these converters
 * read the tables first (skipping the sample records) and then the samples with a second
 * reader over the same input. */
#include <stdio.h>
#include <string.h>

#include "formats/tachyon/tachyon.h"

/* Reports a reader error and returns the exit code for damaged input. */
static int damaged(const pcd_conv_args *a, const pcd_error *e)
{
    pcd_report(a->err, a->input_name, e);
    return 1;
}

int pcd_tachyon_conv_say(const pcd_conv_args *a, const char *msg)
{
    fprintf(a->err, "%s: %s\n", a->input_name, msg);
    return 1;
}

int pcd_tachyon_conv_write_error(const pcd_conv_args *a, pcd_status st)
{
    fprintf(a->err, "%s: cannot write the output: %s\n", a->input_name, pcd_status_name(st));
    return 2;
}

int pcd_tachyon_conv_root(const pcd_conv_args *a, pcd_reader *r, pcd_tachyon_v1_file *root)
{
    pcd_record rec;
    pcd_status st = pcd_reader_next(r, &rec);
    if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
    const pcd_tachyon_v1_file *h = pcd_tachyon_as_root(&rec);
    if (!h) return pcd_tachyon_conv_say(a, "not a Tachyon file");
    *root = *h;
    return 0;
}

int pcd_tachyon_conv_tables(const pcd_conv_args *a, pcd_reader *r, pcd_tachyon_tables *t)
{
    pcd_status st = pcd_reader_skip_region(r);
    if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
    pcd_record rec;
    for (;;) {
        st = pcd_reader_next(r, &rec);
        if (st == PCD_END) return 0;
        if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
        if (pcd_tachyon_tables_add(t, &rec) != PCD_OK) return pcd_tachyon_conv_say(a, "out of memory for the tables (raise --max-memory)");
    }
}

int pcd_tachyon_conv_open_samples(const pcd_conv_args *a, pcd_reader *r2, bool *opened)
{
    const uint8_t *data;
    size_t size;
    *opened = false;
    if (!pcd_reader_input(a->r, &data, &size)) return pcd_tachyon_conv_say(a, "the input must be a whole file");
    pcd_reader_opts o = { a->al, NULL, 0, false };
    if (pcd_reader_open_buffer(r2, a->f, data, size, &o) != PCD_OK) return pcd_tachyon_conv_say(a, "cannot start a second reader");
    *opened = true;
    pcd_record rec;
    pcd_status st = pcd_reader_next(r2, &rec);
    if (st != PCD_OK) return damaged(a, pcd_reader_error(r2));
    return 0;
}

typedef struct replay_feed {
    const pcd_conv_args *a;
    pcd_tachyon_replay *rp;
    pcd_record *next;
    bool other, bad;          /* stopped at a record that is not a sample / by the replay */
} replay_feed;

/* One record of a decoding run: a sample goes through the replay; anything else stops the
 * run and is kept in *next (its data stays valid until the reader's next call). */
static pcd_status replay_one(void *ud, const pcd_record *rec)
{
    replay_feed *f = ud;
    const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(rec);
    if (!s) {
        *f->next = *rec;
        f->other = true;
        return PCD_END;
    }
    if (f->a->progress && (rec->index & 4095) == 0) f->a->progress(f->a->progress_ud, rec->offset);
    pcd_status st = pcd_tachyon_replay_record(f->rp, s, rec);
    if (st != PCD_OK) f->bad = true;
    return st;
}

int pcd_tachyon_conv_replay(const pcd_conv_args *a, pcd_reader *r, pcd_tachyon_replay *rp, pcd_record *next, bool *have_next)
{
    *have_next = false;
    replay_feed f = { a, rp, next, false, false };
    for (;;) {
        /* runs of samples through the decoding fast path; next() does the rest */
        uint64_t k;
        pcd_status st = pcd_reader_decode_run(r, 1u << 16, &k, replay_one, &f);
        if (f.bad) return damaged(a, &rp->err);
        if (f.other) {
            *have_next = true;
            break;
        }
        if (st == PCD_OK) st = pcd_reader_next(r, next);
        if (st == PCD_END) break;
        if (st != PCD_OK) return damaged(a, pcd_reader_error(r));
        const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(next);
        if (!s) {
            *have_next = true;
            break;
        }
        if (a->progress && (next->index & 4095) == 0) a->progress(a->progress_ud, next->offset);
        if (pcd_tachyon_replay_record(rp, s, next) != PCD_OK) return damaged(a, &rp->err);
    }
    if (pcd_tachyon_replay_finish(rp) != PCD_OK) return damaged(a, &rp->err);
    return 0;
}
