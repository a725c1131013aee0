/* formats/moarvm/write.c: a v3 heap snapshot file from snapshot data, laid out as MoarVM does
 * (see moarvm_write.h). The bytes of every block come from the generated encoders. */
#include "formats/moarvm/write.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/moarvm/snapshot.h"
#include "moarvm_v3.h"

#define ENTRY_COUNT 40

typedef struct tocent {
    const char *kind;
    uint64_t start, end;
} tocent;

static pcd_status wfail(pcd_moarvm_writer *mw, pcd_status st, const char *what)
{
    mw->failed = true;
    if (!mw->x.err.status) {
        mw->x.err.status = st;
        mw->x.err.expected = what;
    }
    return st;
}

const pcd_error *pcd_moarvm_write_error(const pcd_moarvm_writer *mw)
{
    return mw->w.x.err.status ? &mw->w.x.err : &mw->x.err;
}

/* Closes the block before and returns where the next one starts. */
static pcd_status next_start(pcd_moarvm_writer *mw, uint64_t *start)
{
    PCD_TRY(pcd_writer_close_to(&mw->w, 1));
    *start = pcd_sink_tell(mw->s);
    return PCD_OK;
}

static pcd_status put_block(pcd_moarvm_writer *mw, const pcd_moarvm_v3_block *b)
{
    pcd_status st = pcd_writer_record(&mw->w, &pcd_moarvm_v3_region_blocks, b);
    if (st != PCD_OK) mw->failed = true;
    return st;
}

static pcd_status json_block(pcd_moarvm_writer *mw, uint32_t which, const char *text, tocent *e)
{
    pcd_moarvm_v3_block b;
    memset(&b, 0, sizeof b);
    b.which = which;
    pcd_moarvm_v3_json_block *j = which == PCD_MOARVM_V3_BLOCK_FILEMETA ? &b.u.filemeta : &b.u.snapmeta;
    j->json = (pcd_bytes){ (const uint8_t *)text, strlen(text) };
    PCD_TRY(next_start(mw, &e->start));
    PCD_TRY(put_block(mw, &b));
    e->end = pcd_sink_tell(mw->s);
    e->kind = which == PCD_MOARVM_V3_BLOCK_FILEMETA ? PCD_MOARVM_V3_BLOCK_FILEMETA_TAG : PCD_MOARVM_V3_BLOCK_SNAPMETA_TAG;
    return PCD_OK;
}

/* A column block and its entries (one zstd frame). width: 2, 4 or 8 bytes. */
static pcd_status column_block(pcd_moarvm_writer *mw, uint32_t which, const char *kind, const void *vals, uint64_t n,
                               int width, tocent **ents, size_t *ne)
{
    pcd_moarvm_v3_block b;
    memset(&b, 0, sizeof b);
    b.which = which;
    /* every column case is a column16/32/64 struct at the same place in the union */
    if (width == 2) b.u.colkind.entry_size = 2;
    else if (width == 4) b.u.coltofi.entry_size = 4;
    else b.u.colrfstr.entry_size = 8;
    tocent *e = &(*ents)[(*ne)++];
    e->kind = kind;
    PCD_TRY(next_start(mw, &e->start));
    PCD_TRY(put_block(mw, &b));
    if (n) {
        pcd_status st;
        if (width == 2) {
            pcd_moarvm_v3_u16_entries r = { (uint16_t *)vals, (size_t)n };
            st = pcd_writer_record(&mw->w, &pcd_moarvm_v3_region_column16_entries, &r);
        } else if (width == 4) {
            pcd_moarvm_v3_u32_entries r = { (uint32_t *)vals, (size_t)n };
            st = pcd_writer_record(&mw->w, &pcd_moarvm_v3_region_column32_entries, &r);
        } else {
            pcd_moarvm_v3_u64_entries r = { (uint64_t *)vals, (size_t)n };
            st = pcd_writer_record(&mw->w, &pcd_moarvm_v3_region_column64_entries, &r);
        }
        if (st != PCD_OK) {
            mw->failed = true;
            return st;
        }
    }
    PCD_TRY(pcd_writer_close_to(&mw->w, 1));
    e->end = pcd_sink_tell(mw->s);
    return PCD_OK;
}

static pcd_status toc_block(pcd_moarvm_writer *mw, const tocent *ents, size_t n, uint64_t *start, uint64_t *end)
{
    size_t tn = n ? n : 1;
    pcd_moarvm_v3_toc_entry *te = pcd_alloc_get(mw->al, tn * sizeof *te);
    if (!te) return wfail(mw, PCD_E_NOMEM, "memory for a TOC");
    for (size_t i = 0; i < n; i++)
        te[i] = (pcd_moarvm_v3_toc_entry){ { (const uint8_t *)ents[i].kind, strlen(ents[i].kind) }, ents[i].start,
                                           ents[i].end };
    pcd_moarvm_v3_block b;
    memset(&b, 0, sizeof b);
    b.which = PCD_MOARVM_V3_BLOCK_TOC;
    b.u.toc.entries = te;
    b.u.toc.n_entries = n;
    pcd_status st = next_start(mw, start);
    if (st == PCD_OK) {
        b.u.toc.self = *start;
        st = put_block(mw, &b);
    }
    pcd_alloc_free(mw->al, te, tn * sizeof *te);
    /* its end: before its self pointer (a kind name, the count, the entries) */
    if (end)
        *end = *start + PCD_MOARVM_V3_BLOCK_TAG_SIZE + PCD_MOARVM_V3_TOC_BLOCK_ENTRIES_AT +
               PCD_MOARVM_V3_TOC_ENTRY_SIZE * (uint64_t)n;
    return st;
}

static pcd_status outer_toc(pcd_moarvm_writer *mw)
{
    size_t n = 1 + mw->ninner;
    tocent *e = pcd_alloc_get(mw->al, n * sizeof *e);
    if (!e) return wfail(mw, PCD_E_NOMEM, "memory for a TOC");
    e[0] = (tocent){ PCD_MOARVM_V3_BLOCK_FILEMETA_TAG, mw->filemeta_start, mw->filemeta_end };
    for (size_t i = 0; i < mw->ninner; i++) e[1 + i] = (tocent){ PCD_MOARVM_V3_BLOCK_TOC_TAG, mw->inner[2 * i], mw->inner[2 * i + 1] };
    uint64_t start;
    pcd_status st = toc_block(mw, e, n, &start, NULL);
    pcd_alloc_free(mw->al, e, n * sizeof *e);
    return st;
}

static pcd_status inner_toc(pcd_moarvm_writer *mw, const tocent *ents, size_t n)
{
    if (mw->ninner == mw->cap) {
        size_t cap = mw->cap ? mw->cap * 2 : 16;
        uint64_t *p = pcd_alloc_resize(mw->al, mw->inner, mw->cap * 2 * sizeof *p, cap * 2 * sizeof *p);
        if (!p) return wfail(mw, PCD_E_NOMEM, "memory for the TOCs");
        mw->inner = p;
        mw->cap = cap;
    }
    uint64_t start, end;
    PCD_TRY(toc_block(mw, ents, n, &start, &end));
    mw->inner[2 * mw->ninner] = start;
    mw->inner[2 * mw->ninner + 1] = end;
    mw->ninner++;
    return outer_toc(mw);
}

pcd_status pcd_moarvm_write_open(pcd_moarvm_writer *mw, pcd_sink *s, pcd_alloc *al, uint64_t start_time, int64_t pid)
{
    memset(mw, 0, sizeof *mw);
    mw->s = s;
    mw->al = al;
    pcd_ctx_init(&mw->x, NULL);
    pcd_writer_open(&mw->w, &pcd_moarvm_v3_format, s, al);
    pcd_moarvm_v3_file root;
    memset(&root, 0, sizeof root);
    pcd_status st = pcd_writer_root(&mw->w, &root);
    if (st != PCD_OK) {
        mw->failed = true;
        return st;
    }
    char meta[512];
    snprintf(meta, sizeof meta,
             "{ \"subversion\": 1, \"start_time\": %" PRIu64 ", \"pid\": %" PRId64 ", \"highscore_structure\": "
             "{ \"entry_count\": %d, \"data_order\": [\"types_by_count\", \"frames_by_count\", \"types_by_size\", "
             "\"frames_by_size\"]}}",
             start_time, pid, ENTRY_COUNT);
    tocent e;
    PCD_TRY(json_block(mw, PCD_MOARVM_V3_BLOCK_FILEMETA, meta, &e));
    mw->filemeta_start = e.start;
    mw->filemeta_end = e.end;
    return PCD_OK;
}

typedef struct score {
    uint64_t id, value;
} score;

static int cmp_score(const void *a, const void *b)
{
    const score *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? 1 : -1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* topIDs and topscore as MoarVM computes them: objects (kind 1) per type and frames (kind 4)
 * per static frame, by count and by size, best 40 of each, zero-padded. */
static pcd_status highscores(pcd_moarvm_writer *mw, const pcd_moarvm_snapdata *d, uint64_t *ids, uint64_t *scores)
{
    uint64_t nt = mw->ntypes, nf = mw->nframes;
    pcd_alloc *al = mw->al;
    size_t ntmp = (size_t)(nt > nf ? nt : nf) + ENTRY_COUNT;
    uint64_t *tc = pcd_alloc_get(al, (nt + 1) * sizeof *tc), *ts = pcd_alloc_get(al, (nt + 1) * sizeof *ts);
    uint64_t *fc = pcd_alloc_get(al, (nf + 1) * sizeof *fc), *fs = pcd_alloc_get(al, (nf + 1) * sizeof *fs);
    score *tmp = pcd_alloc_get(al, ntmp * sizeof *tmp);
    pcd_status st = PCD_OK;
    if (!tc || !ts || !fc || !fs || !tmp) {
        st = wfail(mw, PCD_E_NOMEM, "memory for the highscores");
        goto done;
    }
    memset(tc, 0, (nt + 1) * sizeof *tc);
    memset(ts, 0, (nt + 1) * sizeof *ts);
    memset(fc, 0, (nf + 1) * sizeof *fc);
    memset(fs, 0, (nf + 1) * sizeof *fs);
    for (uint64_t i = 0; i < d->n; i++) {
        uint64_t sz = (uint64_t)d->size[i] + d->usize[i];
        if (d->kind[i] == PCD_MOARVM_K_OBJECT && d->tofi[i] < nt) {
            tc[d->tofi[i]]++;
            ts[d->tofi[i]] += sz;
        } else if (d->kind[i] == PCD_MOARVM_K_FRAME && d->tofi[i] < nf) {
            fc[d->tofi[i]]++;
            fs[d->tofi[i]] += sz;
        }
    }
    for (int part = 0; part < 4; part++) {
        bool frames = part & 1;
        const uint64_t *v = part == 0 ? tc : part == 1 ? fc : part == 2 ? ts : fs;
        uint64_t len = frames ? nf : nt;
        for (uint64_t i = 0; i < len; i++) tmp[i] = (score){ i, v[i] };
        for (uint64_t i = len; i < len + ENTRY_COUNT; i++) tmp[i] = (score){ i, 0 };
        qsort(tmp, len, sizeof *tmp, cmp_score);
        for (int i = 0; i < ENTRY_COUNT; i++) {
            ids[part * ENTRY_COUNT + i] = tmp[i].id;
            scores[part * ENTRY_COUNT + i] = tmp[i].value;
        }
    }
done:
    pcd_alloc_free(al, tc, (nt + 1) * sizeof *tc);
    pcd_alloc_free(al, ts, (nt + 1) * sizeof *ts);
    pcd_alloc_free(al, fc, (nf + 1) * sizeof *fc);
    pcd_alloc_free(al, fs, (nf + 1) * sizeof *fs);
    pcd_alloc_free(al, tmp, ntmp * sizeof *tmp);
    return st;
}

pcd_status pcd_moarvm_write_snapshot(pcd_moarvm_writer *mw, const pcd_moarvm_snapdata *d)
{
    if (mw->failed) return pcd_moarvm_write_error(mw)->status ? pcd_moarvm_write_error(mw)->status : PCD_E_ARG;
    tocent ents[24];
    tocent *ep = ents;
    size_t ne = 0;
    /* snapmeta, as MoarVM prints it */
    uint64_t kinds[12] = { 0 }, heap = 0;
    for (uint64_t i = 0; i < d->n; i++) {
        if (d->kind[i] < 12) kinds[d->kind[i]]++;
        heap += (uint64_t)d->size[i] + d->usize[i];
    }
    uint64_t m[PCD_MOARVM_NMETA] = { d->snap_time, d->gc_seq_num, heap, kinds[1], kinds[2], kinds[3], kinds[4], d->nrefs };
    if (d->stated) memcpy(m, d->stated, sizeof m);
    char meta[512];
    snprintf(meta, sizeof meta,
             "{ \"snap_time\": %" PRIu64 ", \"gc_seq_num\": %" PRIu64 ", \"total_heap_size\": %" PRIu64
             ", \"total_objects\": %" PRIu64 ", \"total_typeobjects\": %" PRIu64 ", \"total_stables\": %" PRIu64
             ", \"total_frames\": %" PRIu64 ", \"total_refs\": %" PRIu64 " }",
             m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7]);
    PCD_TRY(json_block(mw, PCD_MOARVM_V3_BLOCK_SNAPMETA, meta, &ents[ne]));
    ne++;
    /* the columns */
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_COLKIND, PCD_MOARVM_V3_BLOCK_COLKIND_TAG, d->kind, d->n, 2, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_COLSIZE, PCD_MOARVM_V3_BLOCK_COLSIZE_TAG, d->size, d->n, 2, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_COLTOFI, PCD_MOARVM_V3_BLOCK_COLTOFI_TAG, d->tofi, d->n, 4, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_COLRFCNT, PCD_MOARVM_V3_BLOCK_COLRFCNT_TAG, d->rfcnt, d->n, 4, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_COLRFSTR, PCD_MOARVM_V3_BLOCK_COLRFSTR_TAG, d->rfstr, d->n, 8, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_COLUSIZE, PCD_MOARVM_V3_BLOCK_COLUSIZE_TAG, d->usize, d->n, 8, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_REFDESCR, PCD_MOARVM_V3_BLOCK_REFDESCR_TAG, d->descr, d->nrefs, 8, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_REFTRGET, PCD_MOARVM_V3_BLOCK_REFTRGET_TAG, d->target, d->nrefs, 8, &ep, &ne));
    /* what the tables gained */
    if (d->nstrings) {
        pcd_moarvm_v3_block b;
        memset(&b, 0, sizeof b);
        b.which = PCD_MOARVM_V3_BLOCK_STRINGS;
        tocent *e = &ents[ne++];
        e->kind = PCD_MOARVM_V3_BLOCK_STRINGS_TAG;
        PCD_TRY(next_start(mw, &e->start));
        PCD_TRY(put_block(mw, &b));
        for (size_t i = 0; i < d->nstrings; i++) {
            pcd_moarvm_v3_string_entry se = { { (const uint8_t *)d->strings[i], strlen(d->strings[i]) } };
            pcd_status st = pcd_writer_record(&mw->w, &pcd_moarvm_v3_region_strings, &se);
            if (st != PCD_OK) {
                mw->failed = true;
                return st;
            }
        }
        PCD_TRY(pcd_writer_close_to(&mw->w, 1));
        e->end = pcd_sink_tell(mw->s);
    }
    if (d->ntypes) {
        PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_REPRNAME, PCD_MOARVM_V3_BLOCK_REPRNAME_TAG, d->repr, d->ntypes, 4, &ep, &ne));
        PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_TYPENAME, PCD_MOARVM_V3_BLOCK_TYPENAME_TAG, d->tname, d->ntypes, 4, &ep, &ne));
        mw->ntypes += d->ntypes;
    }
    if (d->nframes) {
        PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_SFNAME, PCD_MOARVM_V3_BLOCK_SFNAME_TAG, d->fname, d->nframes, 4, &ep, &ne));
        PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_SFCUID, PCD_MOARVM_V3_BLOCK_SFCUID_TAG, d->fcuid, d->nframes, 4, &ep, &ne));
        PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_SFLINE, PCD_MOARVM_V3_BLOCK_SFLINE_TAG, d->fline, d->nframes, 4, &ep, &ne));
        PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_SFFILE, PCD_MOARVM_V3_BLOCK_SFFILE_TAG, d->ffile, d->nframes, 4, &ep, &ne));
        mw->nframes += d->nframes;
    }
    /* highscores */
    uint64_t ids[4 * ENTRY_COUNT], scores[4 * ENTRY_COUNT];
    PCD_TRY(highscores(mw, d, ids, scores));
    if (d->top_ids) memcpy(ids, d->top_ids, sizeof ids);
    if (d->top_scores) memcpy(scores, d->top_scores, sizeof scores);
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_TOP_IDS, PCD_MOARVM_V3_BLOCK_TOP_IDS_TAG, ids, 4 * ENTRY_COUNT, 8, &ep, &ne));
    PCD_TRY(column_block(mw, PCD_MOARVM_V3_BLOCK_TOPSCORE, PCD_MOARVM_V3_BLOCK_TOPSCORE_TAG, scores, 4 * ENTRY_COUNT, 8, &ep, &ne));
    return inner_toc(mw, ents, ne);
}

pcd_status pcd_moarvm_write_finish(pcd_moarvm_writer *mw, bool ended)
{
    if (mw->failed) return pcd_moarvm_write_error(mw)->status ? pcd_moarvm_write_error(mw)->status : PCD_E_ARG;
    if (ended) PCD_TRY(inner_toc(mw, NULL, 0));
    pcd_status st = pcd_writer_finish(&mw->w);
    if (st != PCD_OK) mw->failed = true;
    return st;
}

void pcd_moarvm_write_close(pcd_moarvm_writer *mw)
{
    pcd_writer_close(&mw->w);
    pcd_alloc_free(mw->al, mw->inner, mw->cap * 2 * sizeof *mw->inner);
    mw->inner = NULL;
}
