/* pipeline/pipeline.c: the registration table of formats and outputs, the matrix of
 * conversions, the one reader loop that pushes an input's records into a format's importer
 * (pcd_model_import) or own output, and pcd_convert. */
#include "pipeline/pipeline.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "model/pathtrim.h"
#include "model/profile.h"
#include "model/transform.h"
#include "outputs/outputs.h"

extern const pcd_ext pcd_heph_ext;
extern const pcd_ext pcd_moarvm_ext;
extern const pcd_ext pcd_mojo_ext;
extern const pcd_ext pcd_mono_ext;
extern const pcd_ext pcd_pprof_ext;
extern const pcd_ext pcd_tachyon_ext;

const pcd_ext *const pcd_exts[] = {
    &pcd_heph_ext,
    &pcd_moarvm_ext,
    &pcd_mojo_ext,
    &pcd_mono_ext,
    &pcd_pprof_ext,
    &pcd_tachyon_ext,
    NULL,
};

/* In the order `profcodec formats` lists them. */
const pcd_exporter *const pcd_exporters[] = {
    &pcd_out_austin, &pcd_out_collapsed, &pcd_out_speedscope, &pcd_out_chrome, &pcd_out_html, &pcd_out_svg,
    &pcd_out_mojo, &pcd_out_tachyon, &pcd_out_pprof,
    /* issue 27: the two viewers people use daily, and the query engines' tables */
    &pcd_out_firefox, &pcd_out_perfetto, &pcd_out_table, &pcd_out_ndjson,
    NULL,
};

const pcd_ext *pcd_ext_find(const char *format)
{
    for (size_t i = 0; pcd_exts[i]; i++)
        if (strcmp(pcd_exts[i]->format, format) == 0) return pcd_exts[i];
    return NULL;
}

static const pcd_exporter *find_exporter(const char *to);

bool pcd_exporter_fits(uint32_t has, const pcd_exporter *x)
{
    return (has & x->needs) == x->needs && (!x->needs_any || (has & x->needs_any));
}

static bool fits_has(uint32_t has, const pcd_exporter *x)
{
    return (has & x->needs) == x->needs && (!x->needs_any || (has & x->needs_any));
}

static bool fits(const pcd_ext *ext, const pcd_exporter *x)
{
    if (!ext->model) return false;
    return fits_has(ext->model->has, x);
}

/* ---- text inputs (issue 25) ------------------------------------------------------------------ */

extern const pcd_text_format pcd_text_collapsed_format;
extern const pcd_text_format pcd_text_austin_format;
extern const pcd_text_format pcd_text_speedscope_format;

/* In the order detection tries them: speedscope (a JSON object naming its schema), Austin (its
 * "# key: value" header or P<pid>;T lines), then collapsed stacks (every line "stack count"). */
const pcd_text_format *const pcd_text_formats[] = {
    &pcd_text_speedscope_format, &pcd_text_austin_format, &pcd_text_collapsed_format, NULL,
};

const pcd_text_format *pcd_text_find(const char *name)
{
    for (size_t i = 0; pcd_text_formats[i]; i++)
        if (strcmp(pcd_text_formats[i]->name, name) == 0) return pcd_text_formats[i];
    return NULL;
}

bool pcd_text_is_text(const uint8_t *head, size_t n, bool whole)
{
    /* UTF-8 (a sequence cut at the end of a head that is not the whole input is let be), and no
     * control byte but tab, CR and LF: every binary format has one of them in its first bytes */
    size_t i = 0;
    if (n >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf) i = 3; /* a BOM */
    while (i < n) {
        uint8_t b = head[i];
        if (b < 0x80) {
            if (b < 0x20 && b != '\t' && b != '\n' && b != '\r') return false;
            if (b == 0x7f) return false;
            i++;
            continue;
        }
        size_t k = b >= 0xf0 && b <= 0xf4 ? 4 : b >= 0xe0 ? 3 : b >= 0xc2 && b <= 0xdf ? 2 : 0;
        if (!k || b > 0xf4) return false;
        if (i + k > n) return !whole;
        for (size_t m = 1; m < k; m++)
            if ((head[i + m] & 0xc0) != 0x80) return false;
        i += k;
    }
    return n > 0;
}

const pcd_text_format *pcd_text_detect(const uint8_t *head, size_t n, bool whole)
{
    if (!pcd_text_is_text(head, n, whole)) return NULL;
    for (size_t i = 0; pcd_text_formats[i]; i++)
        if (pcd_text_formats[i]->detect(head, n, whole)) return pcd_text_formats[i];
    return NULL;
}

bool pcd_text_can_convert(const pcd_text_format *t, const char *to)
{
    const pcd_exporter *x = NULL;
    for (size_t i = 0; pcd_exporters[i]; i++)
        if (strcmp(pcd_exporters[i]->to, to) == 0) x = pcd_exporters[i];
    return x && fits_has(t->has, x);
}

const pcd_exporter *pcd_exporter_find(const char *to) { return find_exporter(to); }

static const pcd_exporter *find_exporter(const char *to)
{
    for (size_t i = 0; pcd_exporters[i]; i++)
        if (strcmp(pcd_exporters[i]->to, to) == 0) return pcd_exporters[i];
    return NULL;
}

uint32_t pcd_output_wants(const char *to)
{
    const pcd_exporter *x = find_exporter(to);
    return x ? x->wants : 0;
}

const char *pcd_convert_target(const pcd_ext *ext, size_t i, const char **help)
{
    for (size_t k = 0; k < ext->n_own; k++, i--)
        if (i == 0) {
            *help = ext->own[k].help;
            return ext->own[k].to;
        }
    for (size_t k = 0; pcd_exporters[k]; k++) {
        const pcd_exporter *x = pcd_exporters[k];
        bool shadowed = false; /* a format's own output of the same name comes first */
        for (size_t m = 0; m < ext->n_own; m++) shadowed |= strcmp(ext->own[m].to, x->to) == 0;
        if (shadowed || !fits(ext, x)) continue;
        if (i-- == 0) {
            *help = x->help;
            return x->to;
        }
    }
    return NULL;
}

bool pcd_can_convert(const pcd_ext *ext, const char *to)
{
    const char *h;
    for (size_t i = 0;; i++) {
        const char *t = pcd_convert_target(ext, i, &h);
        if (!t) return false;
        if (strcmp(t, to) == 0) return true;
    }
}

pcd_job_result pcd_job_result_of(const pcd_job *j, pcd_status st)
{
    if (st == PCD_OK) return j->damaged ? PCD_JOB_INVALID : PCD_JOB_DONE;
    if (st == PCD_E_ARG || st == PCD_E_NOMEM || st == PCD_E_IO || st == PCD_E_LIMIT) return PCD_JOB_FAILED;
    return PCD_JOB_INVALID;
}

/* ---- the one reader loop ------------------------------------------------------------------- */

/* Every record of r (job->r, or a second reader an importer opened over the job's input) to
 * fn, in batches through the decoding fast path; damage is reported (and, with --all, skipped).
 * Returns PCD_OK at the end of the input (job->damaged tells whether something was skipped or
 * the rest was lost) or the first status other than PCD_OK that fn returned. */
static pcd_status pump(pcd_job *j, pcd_reader *r, pcd_record_fn fn, void *ud)
{
    pcd_record rec;
    for (;;) {
        uint64_t k = 0;
        /* batches of 1024 records through the fast path, straight to fn (no wrapper: it is a
         * call a record), then one on its own; a run that stopped without the reader failing
         * was stopped by fn (the reader is never done here: next() said so first) */
        pcd_status st = pcd_reader_decode_run(r, 1024, &k, fn, ud);
        if (st == PCD_OK) {
            st = pcd_reader_next(r, &rec);
            if (st == PCD_OK) {
                if (j->progress) j->progress(j->progress_ud, rec.offset);
                st = fn(ud, &rec);
                if (st == PCD_OK) continue;
                return st;
            }
        } else if (!r->failed) {
            return st;
        }
        if (st == PCD_END) return PCD_OK;
        pcd_job_damage(j, pcd_reader_error(r));
        if (j->all && pcd_reader_recover(r, NULL) == PCD_OK) continue;
        return PCD_OK;
    }
}

/* The context of an importer or own output, zeroed (NULL: out of memory, said in job->msg). */
static void *ctx_new(pcd_job *j, size_t n)
{
    void *ctx = pcd_alloc_get(j->al, n ? n : 1);
    if (!ctx) {
        pcd_job_fail(j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
        return NULL;
    }
    memset(ctx, 0, n ? n : 1);
    return ctx;
}

/* After begin returned st: the records of from pushed into record (the reader's callback
 * itself, no call in between), then end; the context freed. */
static pcd_status push(pcd_job *j, pcd_status st, pcd_reader *from, pcd_record_fn record,
                       pcd_status (*end)(void *, pcd_status), void *ctx, size_t n)
{
    if (st == PCD_OK) st = pump(j, from, record, ctx);
    else if (st == PCD_END) st = PCD_OK; /* nothing to read (begin met damage first) */
    st = end(ctx, st);
    pcd_alloc_free(j->al, ctx, n ? n : 1);
    return st;
}

pcd_status pcd_model_import(pcd_job *j, const pcd_model_importer *im, pcd_profile *p)
{
    void *ctx = ctx_new(j, im->ctx_size);
    if (!ctx) return PCD_E_NOMEM;
    pcd_reader *from = j->r;
    pcd_status st = im->begin(ctx, j, p, &from);
    return push(j, st, from, im->record, im->end, ctx, im->ctx_size);
}

/* A format's own output, its records pushed as into an importer. */
static pcd_status own_output(pcd_job *j, const pcd_format_output *o, pcd_sink *out)
{
    void *ctx = ctx_new(j, o->ctx_size);
    if (!ctx) return PCD_E_NOMEM;
    pcd_reader *from = j->r;
    pcd_status st = o->begin(ctx, j, out, &from);
    return push(j, st, from, o->record, o->end, ctx, o->ctx_size);
}

/* An input the importer found invalid after the profile began (a Tachyon sample whose frame
 * is beyond the tables): damage, as the reader's. Its reason is said, and the profile ends, so
 * that the output holds what came before, closed properly. */
static pcd_status invalid_as_damage(pcd_job *j, pcd_profile *p, pcd_status st)
{
    if (st != PCD_E_INVALID || !p->begun || !j->msg[0]) return st;
    pcd_job_note(j, "%s", j->msg);
    j->damaged = true; /* j->msg stays: why the output ends there */
    return pcd_profile_end(p);
}

/* ---- the input of a job: a format's importer, or a text format's -------------------------- */

typedef struct text_stream {
    pcd_read_fn read;
    void *ud;
    bool failed;                   /* the stream itself could not be read on (a cut compressed file) */
} text_stream;

static pcd_status text_stream_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    text_stream *t = ud;
    pcd_status st = t->read(t->ud, dst, cap, got);
    if (st != PCD_OK) t->failed = true;
    return st;
}

/* A text importer's message ("NAME:LINE: ...") as the job says it ("line LINE: ...": the caller
 * prints the name). */
static void text_msg(pcd_job *j, pcd_status st, const char *msg)
{
    size_t n = strlen(j->input_name);
    if (strncmp(msg, j->input_name, n) == 0 && msg[n] == ':') {
        msg += n + 1;
        if (*msg >= '0' && *msg <= '9') {
            pcd_job_fail(j, st, "line %s", msg);
            return;
        }
        while (*msg == ' ') msg++;
    }
    pcd_job_fail(j, st, "%s", msg);
}

uint32_t pcd_job_has(const pcd_job *j)
{
    if (j->text) return j->text->has;
    const pcd_ext *ext = pcd_ext_find(j->f->name);
    return ext && ext->model ? ext->model->has : 0;
}

pcd_status pcd_job_import(pcd_job *j, pcd_profile *p)
{
    if (!j->text) {
        const pcd_ext *ext = pcd_ext_find(j->f->name);
        if (!ext || !ext->model) return pcd_job_fail(j, PCD_E_ARG, "a %s file holds no profile", j->f->name);
        return pcd_model_import(j, ext->model, p);
    }
    text_stream ts = { j->text_read, j->text_read_ud, false };
    pcd_import_args a;
    memset(&a, 0, sizeof a);
    a.read = text_stream_read;
    a.read_ud = &ts;
    a.input_name = j->input_name;
    a.al = j->al;
    pcd_status st = j->text->model(&a, p);
    if (st == PCD_E_IO && ts.failed) {
        /* the stream stopped (a cut or damaged compressed file): damage after what came before */
        st = pcd_job_fail(j, PCD_E_INVALID, "the input cannot be read to its end (what came before is kept)");
    } else if (st != PCD_OK && a.msg[0]) {
        text_msg(j, st, a.msg);
    }
    return st;
}

/* ---- nothing to show ------------------------------------------------------------------------ */

pcd_status pcd_shown_check(void *ud, pcd_profile *p)
{
    const pcd_shown *k = ud;
    pcd_job *j = k->j;
    const pcd_exporter *x = k->x;
    pcd_profile_settle_default(p);
    if (k->base && !j->no_auto_trim) {
        /* both sides whole, nothing written yet: paths that differ by a prefix meet */
        pcd_path_trim pt;
        pcd_status st = pcd_path_trim_auto(j->al, p, k->base, &pt);
        if (st != PCD_OK) return pcd_job_fail(j, st, "out of memory for the paths' trim (raise --max-memory)");
        if (pt.votes) {
            char sa[PCD_PATH_TRIM_SHOWN + 16], sb[PCD_PATH_TRIM_SHOWN + 16];
            snprintf(sa, sizeof sa, "'%s%s'", pt.a, pt.len_a >= sizeof pt.a ? "..." : "");
            snprintf(sb, sizeof sb, "'%s%s'", pt.b, pt.len_b >= sizeof pt.b ? "..." : "");
            if (!pt.len_a) snprintf(sa, sizeof sa, "nothing");
            if (!pt.len_b) snprintf(sb, sizeof sb, "nothing");
            pcd_job_note(j, "--base: paths trimmed, %s off this input's and %s off the base's: %" PRIu32
                         " function%s (--no-auto-trim keeps the paths)", sa, sb, pt.votes,
                         pt.votes == 1 ? " meets" : "s meet");
        }
    }
    /* a differential output shows the base beside the input: what only the base has is there */
    if (k->base && k->base->valued) return PCD_OK;
    bool spans = ((x->needs | x->needs_any) & PCD_HAS_SLICES) != 0;
    if (spans && p->n_slices) return PCD_OK;
    /* a time range on an input whose samples only may have times, and had none (a Mono log
     * without sample hits): refused as an input whose samples never have times */
    if (k->tr && pcd_transform_untimed(k->tr) && !(pcd_job_has(j) & PCD_HAS_TIMES))
        return pcd_job_fail(j, PCD_E_ARG, "--from/--until: the samples of a %s file have no times",
                            j->text ? j->text->name : j->f->name);
    /* the filters left nothing (they say which, and of how many samples) */
    if (k->tr && pcd_transform_why(k->tr)[0]) return pcd_job_fail(j, PCD_E_EMPTY, "%s", pcd_transform_why(k->tr));
    bool samples = ((x->needs | x->needs_any) & (PCD_HAS_SAMPLES | PCD_HAS_TIMES | PCD_HAS_ORDER)) != 0;
    const char *what = samples && spans ? "no samples and no spans" : spans ? "no spans" : "no samples";
    if (!p->n_samples || !samples) {
        if (j->damaged) return pcd_job_fail(j, PCD_E_EMPTY, "nothing to convert before the damage (%s before it)", what);
        /* spans this output does not show (a Mono log of GCs or calls and no sample hits):
         * the outputs that show them are named */
        if (p->n_slices && !spans) {
            char to[160] = "";
            size_t n = 0;
            for (size_t i = 0; pcd_exporters[i]; i++) {
                const pcd_exporter *y = pcd_exporters[i];
                if (!((y->needs | y->needs_any) & PCD_HAS_SLICES)) continue;
                int w = snprintf(to + n, sizeof to - n, "%s%s", n ? ", " : "", y->to);
                if (w < 0 || (size_t)w >= sizeof to - n) break;
                n += (size_t)w;
            }
            return pcd_job_fail(j, PCD_E_EMPTY, "nothing to show: the input has %s, but %" PRIu64
                                " span%s (--to %s show%s them)", what, p->n_slices, p->n_slices == 1 ? "" : "s", to,
                                strchr(to, ',') ? "" : "s");
        }
        return pcd_job_fail(j, PCD_E_EMPTY, "nothing to show: the input has %s", what);
    }
    if (!p->n_types) return pcd_job_fail(j, PCD_E_EMPTY, "nothing to show: the samples have no values");
    int t = p->default_type;
    if (j->metric) {
        t = pcd_profile_find_metric(p, j->metric);
        if (t < 0) return PCD_OK; /* the output refused the name at its begin */
    }
    if (t < 0 || (size_t)t >= p->n_types) return PCD_OK;
    pcd_bytes name = pcd_profile_text(p, p->types[t].name);
    char list[256];
    if (!(p->valued >> t & 1)) {
        if (!p->valued)
            return pcd_job_fail(j, PCD_E_EMPTY, "nothing to show: %s%" PRIu64 " samples have no value other than 0 (of %s)",
                                j->damaged ? "before the damage, the " : "the ", p->n_samples,
                                pcd_profile_type_names(list, sizeof list, p, p->all_types));
        return pcd_job_fail(j, PCD_E_EMPTY,
                            "nothing to show: no sample has a value of %.*s%s (the samples have values of %s: --metric "
                            "takes them)",
                            (int)(name.len > 64 ? 64 : name.len), (const char *)name.ptr,
                            j->damaged ? " before the damage" : "", pcd_profile_type_names(list, sizeof list, p, p->valued));
    }
    if ((x->wants & PCD_WANTS_AMOUNTS) && (p->negative >> t & 1))
        return pcd_job_fail(j, PCD_E_EMPTY,
                            "%.*s has negative values (a difference of profiles), which %s cannot draw as widths: "
                            "--to collapsed and --to pprof show them%s%s",
                            (int)(name.len > 64 ? 64 : name.len), (const char *)name.ptr, x->to,
                            p->valued & ~p->negative ? ", and --metric takes " : "",
                            p->valued & ~p->negative ? pcd_profile_type_names(list, sizeof list, p, p->valued & ~p->negative) : "");
    return PCD_OK;
}

/* ---- grouping and filters (issue 25: model/transform.h) -------------------------------------- */

/* The stage between an importer and the output's consumer c, when the options (or the output's
 * default granularity) ask for anything: *tr set and *c replaced by the stage's consumer; else
 * nothing is installed and *tr stays NULL (the default path costs nothing). */
pcd_status pcd_filters_install(pcd_job *j, const pcd_exporter *x, uint32_t has, pcd_consumer *c, pcd_transform **tr)
{
    *tr = NULL;
    pcd_filter_opts fo;
    if (j->filters) fo = *j->filters;
    else memset(&fo, 0, sizeof fo);
    fo.dialect = -1;
    fo.dialect_bytes = (x->wants & PCD_WANTS_DIALECT_BYTES) != 0;
    if (j->dialect)
        for (int d = 0; d < PCD_DIALECT_N; d++)
            if (strcmp(j->dialect, pcd_dialect_names[d]) == 0) fo.dialect = d;
    pcd_granularity g = pcd_granularity_for(&fo, (x->wants & PCD_WANTS_GROUPED) != 0);
    if (!pcd_transform_wanted(&fo, g)) return PCD_OK;
    if ((fo.has_from || fo.has_until) && !(has & (PCD_HAS_TIMES | PCD_HAS_SOME_TIMES)))
        return pcd_job_fail(j, PCD_E_ARG, "--from/--until: the samples of a %s file have no times",
                            j->text ? j->text->name : j->f->name);
    pcd_consumer inner = *c;
    pcd_status st = pcd_transform_open(tr, j->al, &fo, g, &inner, c, j->msg, sizeof j->msg);
    if (st == PCD_E_NOMEM && !j->msg[0]) pcd_job_fail(j, st, "out of memory (raise --max-memory)");
    return st;
}

/* The profile the output sees: the stage's, or the importer's own. */
static pcd_profile *shown_profile(pcd_transform *tr, pcd_profile *p) { return tr ? pcd_transform_profile(tr) : p; }

static void name_profile(pcd_profile *p, const pcd_job *j)
{
    p->input_name = j->input_name;
    p->format = j->text ? j->text->name : j->f->name;
    p->version = j->text ? "1" : j->f->version;
    p->has = pcd_job_has(j);
}

pcd_status pcd_convert(pcd_job *j, const char *to, pcd_sink *out)
{
    const pcd_ext *ext = j->text ? NULL : pcd_ext_find(j->f->name);
    const char *fname = j->text ? j->text->name : j->f->name;
    if (!ext && !j->text) return pcd_job_fail(j, PCD_E_ARG, "a %s file cannot be converted", fname);
    for (size_t k = 0; ext && k < ext->n_own; k++)
        if (strcmp(ext->own[k].to, to) == 0) {
            if (j->base) return pcd_job_fail(j, PCD_E_ARG, "--base: --to %s has no differential form", to);
            if (pcd_filter_opts_any(j->filters) ||
                (j->filters && j->filters->granularity != PCD_GRAN_DEFAULT && j->filters->granularity != PCD_GRAN_ADDRESS))
                return pcd_job_fail(j, PCD_E_ARG, "--to %s is the format's own output: its records as read (grouping "
                                    "and filters are for outputs of the profile)", to);
            return own_output(j, &ext->own[k], out);
        }
    const pcd_exporter *x = find_exporter(to);
    if (!x || (ext ? !fits(ext, x) : !fits_has(j->text->has, x)))
        return pcd_job_fail(j, PCD_E_ARG, "a %s file cannot be converted to '%s'", fname, to);
    return pcd_convert_output(j, x, out);
}

pcd_status pcd_convert_output(pcd_job *j, const pcd_exporter *x, pcd_sink *out)
{
    const char *to = x->to;
    const pcd_ext *ext = j->text ? NULL : pcd_ext_find(j->f->name);
    const char *fname = j->text ? j->text->name : j->f->name;
    if (ext ? !fits(ext, x) : !j->text || !fits_has(j->text->has, x))
        return pcd_job_fail(j, PCD_E_ARG, "a %s file cannot be converted to '%s'", fname, to);
    j->every_part = (x->wants & PCD_WANTS_EVERY_PART) != 0;
    if (j->base) j->base->every_part = j->every_part;
    const pcd_ext *bext = NULL;
    if (j->base) {
        if (!x->open_base) return pcd_job_fail(j, PCD_E_ARG, "--base: --to %s has no differential form", to);
        bext = j->base->text ? NULL : pcd_ext_find(j->base->f->name);
        if (j->base->text ? !fits_has(j->base->text->has, x) : !bext || !fits(bext, x))
            return pcd_job_fail(j, PCD_E_ARG, "--base: a %s file cannot be converted to '%s'",
                                j->base->text ? j->base->text->name : j->base->f->name, to);
    }
    void *state = pcd_alloc_get(j->al, x->state_size ? x->state_size : 1);
    if (!state) return pcd_job_fail(j, PCD_E_NOMEM, "out of memory (raise --max-memory)");
    memset(state, 0, x->state_size ? x->state_size : 1);
    pcd_consumer c;
    memset(&c, 0, sizeof c);
    pcd_status st = x->open(state, j, out, &c);
    /* the base profile first, to its end; kept until the output is closed */
    pcd_profile bp;
    pcd_transform *btr = NULL;
    bool have_base = false;
    if (st == PCD_OK && j->base) {
        pcd_job *b = j->base;
        pcd_consumer bc;
        memset(&bc, 0, sizeof bc);
        st = x->open_base(state, b, &bc);
        if (st == PCD_OK) {
            b->filters = j->filters; /* the same grouping and filters on both sides */
            st = pcd_filters_install(b, x, pcd_job_has(b), &bc, &btr);
        }
        if (st == PCD_OK) {
            pcd_profile_init(&bp, j->al, &bc);
            have_base = true;
            name_profile(&bp, b);
            if (btr) name_profile(pcd_transform_profile(btr), b);
            st = invalid_as_damage(b, &bp, pcd_job_import(b, &bp));
            if (st == PCD_OK) st = pcd_profile_end(&bp);
            if (st == PCD_E_NOMEM && !b->msg[0]) pcd_job_fail(b, st, "out of memory for the profile's tables (raise --max-memory)");
        }
        if (b->damaged) j->damaged = true;
        if (st != PCD_OK && b->msg[0] && !j->msg[0]) pcd_job_fail(j, st, "--base %s: %s", b->input_name, b->msg);
    }
    pcd_transform *tr = NULL;
    if (st == PCD_OK) st = pcd_filters_install(j, x, pcd_job_has(j), &c, &tr);
    if (st == PCD_OK) {
        pcd_profile p;
        pcd_profile_init(&p, j->al, &c);
        pcd_shown k = { j, x, have_base ? shown_profile(btr && !pcd_transform_passthrough(btr) ? btr : NULL, &bp) : NULL,
                        tr };
        pcd_profile *sp = shown_profile(tr, &p);
        sp->before_end = pcd_shown_check;
        sp->before_end_ud = &k;
        name_profile(&p, j);
        if (tr) name_profile(sp, j);
        j->transform = tr;
        st = invalid_as_damage(j, &p, pcd_job_import(j, &p));
        if (st == PCD_OK) st = pcd_profile_end(&p);
        if (st == PCD_E_NOMEM && !j->msg[0])
            pcd_job_fail(j, st, "out of memory for the profile's tables (raise --max-memory)");
        else if (st == PCD_E_IO && !j->msg[0])
            pcd_job_fail(j, st, "cannot write the output");
        pcd_profile_free(&p);
    }
    if (x->close) x->close(state);
    j->transform = NULL;
    pcd_transform_close(tr);
    if (have_base) pcd_profile_free(&bp);
    pcd_transform_close(btr);
    pcd_alloc_free(j->al, state, x->state_size ? x->state_size : 1);
    return st;
}

pcd_status pcd_import(const pcd_importer *im, pcd_import_args *a)
{
    if (!im->model) return im->run(a);
    const pcd_exporter *x = find_exporter(im->to);
    if (!x) {
        snprintf(a->msg, sizeof a->msg, "%s: no output '%s' to write through", a->input_name, im->to);
        return PCD_E_INTERNAL;
    }
    pcd_job j;
    memset(&j, 0, sizeof j);
    j.input_name = a->input_name;
    j.al = a->al;
    j.first_use_keys = im->first_use_keys;
    j.endian = a->endian;
    void *state = pcd_alloc_get(a->al, x->state_size ? x->state_size : 1);
    if (!state) {
        snprintf(a->msg, sizeof a->msg, "%s: out of memory (raise --max-memory)", a->input_name);
        return PCD_E_NOMEM;
    }
    memset(state, 0, x->state_size ? x->state_size : 1);
    pcd_consumer c;
    memset(&c, 0, sizeof c);
    pcd_status st = x->open(state, &j, a->out, &c);
    if (st == PCD_OK) {
        pcd_profile p;
        pcd_profile_init(&p, a->al, &c);
        p.input_name = a->input_name;
        p.format = im->from;
        st = im->model(a, &p);
        if (st == PCD_OK) st = pcd_profile_end(&p);
        pcd_profile_free(&p);
    }
    /* what the output said went wrong, unless the importer said it first */
    if (st != PCD_OK && !a->msg[0]) {
        if (j.msg[0]) snprintf(a->msg, sizeof a->msg, "%s: %s", a->input_name, j.msg);
        else if (st == PCD_E_NOMEM) snprintf(a->msg, sizeof a->msg, "%s: out of memory (raise --max-memory)", a->input_name);
        else snprintf(a->msg, sizeof a->msg, "%s: cannot write the output", a->input_name);
    }
    if (x->close) x->close(state);
    pcd_alloc_free(a->al, state, x->state_size ? x->state_size : 1);
    return st;
}
