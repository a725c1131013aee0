/* formats/tachyon/samples.c: `convert --to samples`, the per-sample text of CPython's reader
 * (the corpus's dump_samples.py: BinaryReader.get_info(), then replay() with a collector that
 * prints every sample, then get_stats()), byte for byte. It is the format's own output, not
 * a view of the profile model: it shows what only a Tachyon file has (statuses, opcodes, the
 * record counts) the way CPython names them, and `encode --from samples` reads it back.
 *
 *   # info KEY=VALUE      the sorted keys of get_info()
 *   S tid interp status timestamp_us ids...   frame ids innermost first, or "=" when the
 *                         thread's previous sample had the same ones
 *   F id lineno end_lineno col end_col opcode 'filename' 'funcname'   (Python reprs)
 *   # stats KEY=VALUE     get_stats(), when the samples replayed without an error
 *   # replayed=N emitted_samples=N
 *
 * Frames are numbered by content (file and function texts, location, opcode) in order of
 * first appearance, as the dump's frame cache does. */
#include <inttypes.h>
#include <string.h>

#include "common/hash.h"
#include "common/text.h"
#include "common/vec.h"
#include "formats/tachyon/tachyon.h"
#include "formats/tachyon/text.h"

typedef struct sm_thread {
    uint32_t ids[PCD_TACHYON_MAX_DEPTH];
    uint32_t n;
    bool valid;
} sm_thread;

/* A frame's content: (file, function) canonical ids, location, opcode. */
typedef struct sm_key {
    uint64_t w[4];
} sm_key;

typedef struct samples_out {
    pcd_job *j;
    pcd_sink *out;
    pcd_alloc *al;
    pcd_tachyon_replay rp;
    pcd_tachyon_tables t;
    pcd_tachyon_names nm;
    size_t nf;                       /* frames in the table (at least 1, for the sizes) */
    uint32_t *frame_id;              /* frame index -> dump id + 1 */
    sm_key *keys;                    /* open addressing */
    uint32_t *kvals;                 /* dump id + 1 */
    size_t kcap;
    uint32_t *id_frame;              /* dump id -> a frame with that content */
    uint32_t n_ids;
    sm_thread **th;                  /* by the replay's thread index */
    size_t n_th, th_cap;
    pcd_status st;                   /* the first error of the sample callback */
    pcd_reader r2;                   /* the samples' reader (pcd_tachyon_samples_open) */
    bool r2_open;
    bool reading;                    /* the samples were to be read: the frames follow them */
    bool past;                       /* a record that is not a sample: the samples are over */
} samples_out;

static sm_key frame_content(const samples_out *o, uint32_t f)
{
    const pcd_tachyon_v1_frame *fr = &o->t.frames[f];
    pcd_tachyon_loc l = pcd_tachyon_frame_loc(fr);
    sm_key k;
    k.w[0] = (uint64_t)o->nm.canon[fr->filename] << 32 | o->nm.canon[fr->funcname];
    k.w[1] = (uint64_t)(uint32_t)l.lineno << 32 | (uint32_t)l.end_lineno;
    k.w[2] = (uint64_t)(uint32_t)l.column << 32 | (uint32_t)l.end_column;
    k.w[3] = fr->opcode;
    return k;
}

/* The dump id of frame f. keys/kvals: a frame's content (four words: names, location,
 * opcode) to its dump id. Not common/hmap.c (docs/design.md, "One hash, one table"): the key
 * is one word wider than the hmap's three. */
static uint32_t dump_id(samples_out *o, uint32_t f)
{
    if (o->frame_id[f]) return o->frame_id[f] - 1;
    sm_key k = frame_content(o, f);
    uint64_t h = pcd_mix64(k.w[0] ^ pcd_mix64(k.w[1] ^ pcd_mix64(k.w[2] ^ pcd_mix64(k.w[3]))));
    size_t i = h & (o->kcap - 1);
    while (o->kvals[i]) {
        if (memcmp(&o->keys[i], &k, sizeof k) == 0) {
            o->frame_id[f] = o->kvals[i];
            return o->kvals[i] - 1;
        }
        i = (i + 1) & (o->kcap - 1);
    }
    uint32_t id = o->n_ids++;
    o->keys[i] = k;
    o->kvals[i] = id + 1;
    o->id_frame[id] = f;
    o->frame_id[f] = id + 1;
    return id;
}

static sm_thread *thread_of(samples_out *o, uint32_t index)
{
    if (index >= o->n_th) {
        if (PCD_VEC_RESERVE(o->al, o->th, o->th_cap, (size_t)index + 1) != PCD_OK) return NULL;
        for (size_t i = o->n_th; i <= index; i++) o->th[i] = NULL;
        o->n_th = (size_t)index + 1;
    }
    if (!o->th[index]) {
        sm_thread *t = pcd_alloc_get(o->al, sizeof *t);
        if (!t) return NULL;
        memset(t, 0, sizeof *t);
        o->th[index] = t;
    }
    return o->th[index];
}

static void sm_sample(void *ud, const pcd_tachyon_thread *th, uint32_t node, uint64_t ts, uint8_t status)
{
    samples_out *o = ud;
    if (o->st != PCD_OK) return;
    sm_thread *st = thread_of(o, th->index);
    if (!st) {
        o->st = pcd_job_fail(o->j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
        return;
    }
    uint32_t frames[PCD_TACHYON_MAX_DEPTH], ids[PCD_TACHYON_MAX_DEPTH];
    uint32_t d = pcd_tachyon_replay_stack_inner(&o->rp, node, frames);
    for (uint32_t i = 0; i < d; i++) {
        /* CPython's words for a frame or string index beyond the tables */
        if (frames[i] >= o->t.n_frames) {
            o->st = pcd_job_fail(o->j, PCD_E_INVALID, "Invalid frame index: %u", frames[i]);
            return;
        }
        const pcd_tachyon_v1_frame *fr = &o->t.frames[frames[i]];
        if (fr->filename >= o->nm.n || fr->funcname >= o->nm.n) {
            o->st = pcd_job_fail(o->j, PCD_E_INVALID, "Invalid string index in frame %u", frames[i]);
            return;
        }
        ids[i] = dump_id(o, frames[i]);
    }
    bool same = st->valid && st->n == d && memcmp(st->ids, ids, d * sizeof ids[0]) == 0;
    st->valid = true;
    st->n = d;
    memcpy(st->ids, ids, d * sizeof ids[0]);
    char buf[96];
    int n = snprintf(buf, sizeof buf, "S %" PRIu64 " %u %u %" PRIu64 " ", th->tid, th->interp, status, ts);
    pcd_sink *s = o->out;
    o->st = pcd_sink_put(s, buf, (size_t)n);
    if (same) {
        if (o->st == PCD_OK) o->st = pcd_sink_put(s, "=", 1);
    } else {
        for (uint32_t i = 0; o->st == PCD_OK && i < d; i++) {
            if (i) o->st = pcd_sink_put(s, " ", 1);
            if (o->st == PCD_OK) o->st = pcd_text_u64(s, ids[i]);
        }
    }
    if (o->st == PCD_OK) o->st = pcd_sink_put(s, "\n", 1);
}

/* "# info" lines: the sorted keys of BinaryReader.get_info(). */
static pcd_status info_lines(pcd_sink *s, const pcd_tachyon_v1_file *h, const pcd_tachyon_tables *t)
{
    int feat = pcd_tachyon_config_features(h->config), mode = pcd_tachyon_config_mode(h->config);
    if (feat < 0) {
        PCD_TRY(pcd_text_z(s, "# info capture_config=None\n"));
    } else {
        PCD_TRY(pcd_text_z(s, "# info capture_config={"));
        for (int i = 0; i < 5; i++)
            PCD_TRY(pcd_text_printf(s, "%s'%s': %s", i ? ", " : "", pcd_tachyon_feature_names[i],
                                    (feat & (1 << i)) ? "True" : "False"));
        PCD_TRY(pcd_text_z(s, "}\n"));
    }
    PCD_TRY(pcd_text_printf(s, "# info compression_type=%u\n", h->compression));
    /* CPython reads the statistics block only in version 1 */
    bool stats = t->have_stats && h->stats_version == 1;
    char f[40];
    if (stats) pcd_tachyon_py_float_repr(f, sizeof f, t->stats.duration_sec);
    PCD_TRY(pcd_text_printf(s, "# info duration_sec=%s\n", stats ? f : "None"));
    bool er = stats && t->stats.has_present && pcd_tachyon_v1_stats_present_error_rate(t->stats.present);
    if (er) pcd_tachyon_py_float_repr(f, sizeof f, t->stats.error_rate);
    PCD_TRY(pcd_text_printf(s, "# info error_rate=%s\n", er ? f : "None"));
    PCD_TRY(pcd_text_printf(s, "# info frame_count=%u\n", h->frame_count));
    bool ms = stats && t->stats.has_present && pcd_tachyon_v1_stats_present_missed_samples(t->stats.present);
    if (ms) pcd_tachyon_py_float_repr(f, sizeof f, t->stats.missed_samples);
    PCD_TRY(pcd_text_printf(s, "# info missed_samples=%s\n", ms ? f : "None"));
    if (mode < 0) PCD_TRY(pcd_text_z(s, "# info mode=None\n"));
    else PCD_TRY(pcd_text_printf(s, "# info mode=%d\n", mode));
    PCD_TRY(pcd_text_printf(s, "# info python_version=(%u, %u, %u)\n", h->python_version.major,
                            h->python_version.minor, h->python_version.micro));
    PCD_TRY(pcd_text_printf(s, "# info sample_count=%" PRIu64 "\n", h->sample_count));
    PCD_TRY(pcd_text_printf(s, "# info sample_interval_us=%" PRIu64 "\n", h->sample_interval_us));
    if (stats) pcd_tachyon_py_float_repr(f, sizeof f, t->stats.sample_rate);
    PCD_TRY(pcd_text_printf(s, "# info sample_rate=%s\n", stats ? f : "None"));
    PCD_TRY(pcd_text_printf(s, "# info start_time_us=%" PRIu64 "\n", h->start_time_us));
    PCD_TRY(pcd_text_printf(s, "# info string_count=%u\n", h->string_count));
    PCD_TRY(pcd_text_printf(s, "# info thread_count=%u\n", h->thread_count));
    return pcd_text_printf(s, "# info version=%u\n", h->version);
}

/* The "F" lines: every frame the samples used, by dump id. */
static pcd_status frame_lines(samples_out *o)
{
    size_t cap = 0;
    for (uint32_t i = 0; i < o->nm.n; i++)
        if (o->nm.len[i] > cap) cap = o->nm.len[i];
    size_t rcap = 10 * cap + 2;
    char *repr = pcd_alloc_get(o->al, rcap);
    if (!repr) return pcd_job_fail(o->j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
    pcd_status st = PCD_OK;
    pcd_sink *s = o->out;
    for (uint32_t id = 0; st == PCD_OK && id < o->n_ids; id++) {
        const pcd_tachyon_v1_frame *fr = &o->t.frames[o->id_frame[id]];
        pcd_tachyon_loc l = pcd_tachyon_frame_loc(fr);
        st = pcd_text_printf(s, "F %u %d %d %d %d %d ", id, l.lineno, l.end_lineno, l.column, l.end_column,
                             fr->opcode == PCD_TACHYON_V1_FRAME_OPCODE_ABSENT ? -1 : fr->opcode);
        size_t len;
        const uint8_t *p = pcd_tachyon_name(&o->nm, fr->filename, &len);
        if (st == PCD_OK) st = pcd_sink_put(s, repr, pcd_tachyon_py_str_repr(p, len, repr));
        if (st == PCD_OK) st = pcd_sink_put(s, " ", 1);
        p = pcd_tachyon_name(&o->nm, fr->funcname, &len);
        if (st == PCD_OK) st = pcd_sink_put(s, repr, pcd_tachyon_py_str_repr(p, len, repr));
        if (st == PCD_OK) st = pcd_sink_put(s, "\n", 1);
    }
    pcd_alloc_free(o->al, repr, rcap);
    return st;
}

static pcd_status stats_lines(pcd_sink *s, const pcd_tachyon_replay *rp)
{
    PCD_TRY(pcd_text_printf(s,
                            "# stats full_records=%" PRIu64 "\n# stats pop_push_records=%" PRIu64
                            "\n# stats repeat_records=%" PRIu64 "\n# stats repeat_samples=%" PRIu64
                            "\n# stats stack_reconstructions=%" PRIu64 "\n# stats suffix_records=%" PRIu64
                            "\n# stats total_records=%" PRIu64 "\n# stats total_samples=%" PRIu64 "\n",
                            rp->records[1], rp->records[3], rp->records[0], rp->repeat_samples,
                            rp->records[1] + rp->records[2] + rp->records[3], rp->records[2], rp->total_records,
                            rp->total_samples));
    return pcd_text_printf(s, "# replayed=%" PRIu64 " emitted_samples=%" PRIu64 "\n", rp->total_samples,
                           rp->total_samples);
}

/* The header and the tables (at the file's end) from the job's reader, the first lines, then
 * a second reader the pipeline pushes the samples from, as into the importer (import.c). */
static pcd_status setup(samples_out *o, pcd_reader **from)
{
    pcd_job *j = o->j;
    pcd_tachyon_v1_file root;
    PCD_TRY(pcd_tachyon_read_head(j, &root, &o->t));
    if (j->damaged) return PCD_END;
    o->nf = o->t.n_frames ? o->t.n_frames : 1;
    o->kcap = 16;
    while (o->kcap < o->nf * 2) o->kcap *= 2;
    o->frame_id = pcd_alloc_get(o->al, o->nf * sizeof *o->frame_id);
    o->id_frame = pcd_alloc_get(o->al, o->nf * sizeof *o->id_frame);
    o->keys = pcd_alloc_get(o->al, o->kcap * sizeof *o->keys);
    o->kvals = pcd_alloc_get(o->al, o->kcap * sizeof *o->kvals);
    if (!o->frame_id || !o->id_frame || !o->keys || !o->kvals || pcd_tachyon_names_build(&o->nm, &o->t, o->al) != PCD_OK ||
        pcd_tachyon_replay_init(&o->rp, &root, o->al, true, false) != PCD_OK)
        return pcd_job_fail(j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
    memset(o->frame_id, 0, o->nf * sizeof *o->frame_id);
    memset(o->kvals, 0, o->kcap * sizeof *o->kvals);
    o->rp.on_sample = sm_sample;
    o->rp.ud = o;
    PCD_TRY(info_lines(o->out, &root, &o->t));
    pcd_status st = pcd_tachyon_samples_open(j, &o->r2);
    if (st == PCD_OK) {
        o->r2_open = true;
        *from = &o->r2;
    }
    if (st == PCD_OK || st == PCD_END) o->reading = true;
    return st;
}

static pcd_status samples_begin(void *ctx, pcd_job *j, pcd_sink *out, pcd_reader **from)
{
    samples_out *o = ctx;
    o->j = j;
    o->out = out;
    o->al = j->al;
    pcd_tachyon_tables_init(&o->t, j->al);
    return setup(o, from);
}

static pcd_status samples_record(void *ctx, const pcd_record *rec)
{
    samples_out *o = ctx;
    const pcd_tachyon_v1_sample *s = pcd_tachyon_as_sample(rec);
    if (PCD_UNLIKELY(!s)) {
        o->past = true;
        return PCD_END;
    }
    pcd_status st = pcd_tachyon_replay_record(&o->rp, s, rec);
    if (PCD_UNLIKELY(st != PCD_OK)) return st;
    return o->st;
}

static pcd_status samples_end(void *ctx, pcd_status st)
{
    samples_out *o = ctx;
    pcd_job *j = o->j;
    if (o->r2_open) {
        pcd_reader_close(&o->r2);
        st = pcd_tachyon_samples_done(j, &o->rp, st, o->past);
    }
    /* the frames, also after damage (CPython's dump prints them from its cache); the counts
     * only when every sample was read */
    if (st == PCD_OK && o->reading) {
        st = frame_lines(o);
        if (st == PCD_OK && !j->damaged) st = stats_lines(o->out, &o->rp);
    }
    if (st == PCD_E_IO && !j->msg[0]) pcd_job_fail(j, st, "cannot write the output");
    else if (st == PCD_E_NOMEM && !j->msg[0]) pcd_job_fail(j, st, "out of memory (raise --max-memory)");
    if (o->frame_id) pcd_alloc_free(o->al, o->frame_id, o->nf * sizeof *o->frame_id);
    if (o->id_frame) pcd_alloc_free(o->al, o->id_frame, o->nf * sizeof *o->id_frame);
    if (o->keys) pcd_alloc_free(o->al, o->keys, o->kcap * sizeof *o->keys);
    if (o->kvals) pcd_alloc_free(o->al, o->kvals, o->kcap * sizeof *o->kvals);
    for (size_t i = 0; i < o->n_th; i++)
        if (o->th[i]) pcd_alloc_free(o->al, o->th[i], sizeof *o->th[i]);
    PCD_VEC_FREE(o->al, o->th, o->th_cap);
    pcd_tachyon_replay_free(&o->rp);
    pcd_tachyon_names_free(&o->nm);
    pcd_tachyon_tables_free(&o->t);
    return st;
}

const pcd_format_output pcd_tachyon_own[1] = { {
    "samples", "one line per sample, frames resolved: the text of CPython's reader (dump_samples.py)",
    sizeof(samples_out), samples_begin, samples_record, samples_end,
} };
