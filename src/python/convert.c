/* python/convert.c: profcodec.convert() and profcodec.formats(): conversions run as the CLI
 * runs them, as a job through pcd_convert (src/pipeline/pipeline.h), so that outputs are the
 * CLI's bytes; the GIL released while the job runs. What the CLI prints to standard error
 * comes back as exceptions (damage: DamagedInput, after the output is complete) and warnings. */
#include "internal.h"

#include "pipeline/pipeline.h"
#include "model/transform.h"
#include "outputs/top.h"

#include <stdio.h>

/* ---- what a job reports ------------------------------------------------------------------------- */

typedef struct jmsg {
    pcdpy_err e;
    bool is_error, has_error;
    char *text;                    /* a note */
    const char *name;              /* the input it is about */
} jmsg;

typedef struct jlog {
    jmsg *m;
    size_t n, cap;
    bool oom;
} jlog;

typedef struct jctx {
    jlog *log;
    const char *name;
} jctx;

static jmsg *jlog_add(jlog *l)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        jmsg *m = realloc(l->m, cap * sizeof *m);
        if (!m) {
            l->oom = true;
            return NULL;
        }
        l->m = m;
        l->cap = cap;
    }
    jmsg *m = &l->m[l->n++];
    memset(m, 0, sizeof *m);
    return m;
}

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    jctx *c = ud;
    jmsg *m = jlog_add(c->log);
    if (!m) return;
    pcdpy_err_capture(&m->e, e);
    m->is_error = is_error;
    m->has_error = true;
    m->name = c->name;
}

static void on_note(void *ud, const char *text)
{
    jctx *c = ud;
    jmsg *m = jlog_add(c->log);
    if (!m) return;
    size_t n = strlen(text);
    m->text = malloc(n + 1);
    if (m->text) memcpy(m->text, text, n + 1);
    m->name = c->name;
}

static void jlog_free(jlog *l)
{
    for (size_t i = 0; i < l->n; i++) free(l->m[i].text);
    free(l->m);
}

/* Warnings for what is not damage (and for damage too, with all=True); returns the first
 * damage's exception (new reference, NULL: none), and with errors the list of every one.
 * -1 in *rc when a warning was turned into an error. */
static PyObject *jlog_emit(jlog *l, bool all, uint64_t records, PyObject **errors, int *rc)
{
    PyObject *first = NULL;
    *rc = 0;
    for (size_t i = 0; i < l->n && *rc == 0; i++) {
        jmsg *m = &l->m[i];
        if (m->has_error && m->is_error) {
            PyObject *exc = pcdpy_damage_exc(&m->e, m->name, records);
            if (!exc) {
                *rc = -1;
                break;
            }
            if (*errors) PyList_Append(*errors, exc);
            if (all) {
                if (pcdpy_warn_obj(exc) < 0) *rc = -1;
            }
            if (!first) first = exc;
            else Py_DECREF(exc);
        } else if (m->has_error) {
            if (pcdpy_warn("%s: warning: %s", m->name, m->e.message) < 0) *rc = -1;
        } else if (m->text && !m->name) {
            if (pcdpy_warn("%s", m->text) < 0) *rc = -1;
        } else if (m->text) {
            if (pcdpy_warn("%s: %s", m->name, m->text) < 0) *rc = -1;
        }
    }
    if (*rc < 0) Py_CLEAR(first);
    return first;
}

static void job_init(pcd_job *j, pcdpy_src *src, pcd_alloc *al, jctx *ctx)
{
    memset(j, 0, sizeof *j);
    j->f = pcdpy_src_format(src);
    j->r = j->f ? pcdpy_src_reader(src) : NULL;
    if ((j->text = pcdpy_src_text(src))) pcdpy_src_text_stream(src, &j->text_read, &j->text_read_ud);
    j->input_name = pcdpy_src_name(src);
    j->al = al;
    j->report = on_report;
    j->note = on_note;
    j->report_ud = ctx;
}

/* ---- convert ------------------------------------------------------------------------------------ */

static PyObject *convert_impl(PyObject *args, PyObject *kw, const pcd_filter_opts *fo);

PyObject *pcdpy_convert(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    /* the grouping and filter keywords first (filters.c), then convert's own */
    PyObject *keep = PyList_New(0), *rest = NULL;
    pcd_filter_opts fo;
    PyObject *res = NULL;
    if (keep && pcdpy_filters_take(kw, &rest, &fo, keep) == 0) res = convert_impl(args, rest, &fo);
    Py_XDECREF(rest);
    Py_XDECREF(keep);
    return res;
}


/* The end of a conversion: damage raised (exc, unless all=True), with what was written and the
 * errors reported attached to it; else the output returned. Takes the references of exc (or
 * NULL), output and errors. */
static PyObject *raise_or_return(PyObject *exc, PyObject *output, PyObject *errors, bool all)
{
    PyObject *res = NULL;
    if (exc && !all) {
        PyObject_SetAttrString(exc, "output", output);
        PyObject_SetAttrString(exc, "errors", errors);
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
        Py_DECREF(output);
    } else {
        Py_XDECREF(exc);
        res = output;
    }
    Py_DECREF(errors);
    return res;
}

static PyObject *convert_impl(PyObject *args, PyObject *kw, const pcd_filter_opts *fo)
{
    static char *kwlist[] = { "source", "to", "output", "format", "all", "metric", "dialect", "heph_compat", "compat",
                              "compression", "base", "force", "raw", "max_memory", "threads", "version", "n", "cum",
                              "auto_trim", NULL };
    PyObject *what, *target = Py_None, *base = Py_None, *mm = NULL;
    const char *to, *format = NULL, *metric = NULL, *dialect = NULL, *compression = NULL, *version = NULL;
    int all = 0, heph_compat = 0, compat = 0, force = 0, raw = 0, threads = 1, cum = 0, auto_trim = 1;
    Py_ssize_t top_n = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Os|O$zpzzppzOppOpznpp:convert", kwlist, &what, &to, &target, &format,
                                     &all, &metric, &dialect, &heph_compat, &compat, &compression, &base, &force, &raw,
                                     &mm, &threads, &version, &top_n, &cum, &auto_trim))
        return NULL;
    /* to="top": pprof's -top table as JSON (outputs/top.c), not a conversion of the table */
    bool top = strcmp(to, "top") == 0;
    pcd_top_opts topts = { cum != 0, top_n > 0 ? (size_t)top_n : 0, true };
    if (top && base != Py_None) return pcdpy_fail(pcdpy.UsageError, "top has no base=");
    size_t max_memory = 0;
    if (pcdpy_parse_size(mm, &max_memory) < 0) return NULL;
    if ((force || raw || !auto_trim) && base == Py_None)
        return pcdpy_fail(pcdpy.UsageError, "force, raw and auto_trim go with base=OTHER");
    if (format && base != Py_None)
        return pcdpy_fail(pcdpy.UsageError, "format= and base= do not go together (each input's format is detected)");
    pcdpy_open_opts o = { format, max_memory, threads != 0, false, true };
    pcdpy_src *bsrc = NULL, *src = NULL;
    if (base != Py_None) {
        bsrc = pcdpy_src_open(base, &o);
        if (!bsrc) return NULL;
        const pcd_text_format *bt = pcdpy_src_text(bsrc);
        const pcd_ext *bext = bt ? NULL : pcd_ext_find(pcdpy_src_format(bsrc)->name);
        if (bt ? !pcd_text_can_convert(bt, to) : !bext || !pcd_can_convert(bext, to)) {
            pcdpy_fail(pcdpy.UsageError, "%s: a %s file cannot be converted to '%s', so it cannot be the base of one",
                       pcdpy_src_name(bsrc), bt ? bt->name : pcdpy_src_format(bsrc)->name, to);
            pcdpy_src_close(bsrc);
            return NULL;
        }
    }
    src = pcdpy_src_open(what, &o);
    if (!src) {
        pcdpy_src_close(bsrc);
        return NULL;
    }
    const pcd_format *f = pcdpy_src_format(src);
    const pcd_text_format *tf = pcdpy_src_text(src);
    const pcd_ext *ext = tf ? NULL : pcd_ext_find(f->name);
    if (tf && !top && !pcd_text_can_convert(tf, to)) {
        pcdpy_fail(pcdpy.UsageError, "%s: a %s file cannot be converted to '%s'", pcdpy_src_name(src), tf->name, to);
        pcdpy_src_close(src);
        pcdpy_src_close(bsrc);
        return NULL;
    }
    if (!tf && (!ext || (top ? !ext->model : !pcd_can_convert(ext, to)))) {
        char targets[512] = "";
        size_t n = 0;
        const char *h, *t;
        for (size_t k = 0; ext && (t = pcd_convert_target(ext, k, &h)) && n < sizeof targets - 1; k++)
            n += (size_t)snprintf(targets + n, sizeof targets - n, "%s%s", k ? ", " : "", t);
        pcdpy_fail(pcdpy.UsageError, "%s: a %s file cannot be converted to '%s'%s%s%s", pcdpy_src_name(src), f->name, to,
                   n ? " (it can be converted to: " : "", targets, n ? ")" : "");
        pcdpy_src_close(src);
        pcdpy_src_close(bsrc);
        return NULL;
    }
    pcdpy_out out;
    bool parts = !top && (pcd_output_wants(to) & PCD_WANTS_PARTS) != 0;
    if ((parts ? pcdpy_out_open_parts(&out, target) : pcdpy_out_open(&out, target)) < 0) {
        pcdpy_src_close(src);
        pcdpy_src_close(bsrc);
        return NULL;
    }
    jlog log;
    memset(&log, 0, sizeof log);
    jctx mctx = { &log, pcdpy_src_name(src) }, bctx = { &log, bsrc ? pcdpy_src_name(bsrc) : NULL };
    pcd_job j, bj;
    job_init(&j, src, pcdpy_src_alloc(src), &mctx);
    j.all = all;
    j.metric = metric;
    j.dialect = dialect;
    j.compat = heph_compat || compat;
    j.compression = compression;
    j.version = version;
    j.force = force;
    j.raw = raw;
    j.no_auto_trim = !auto_trim;
    j.filters = fo;
    if (top) j.output_opts = &topts;
    if (parts) {
        j.open_part = pcdpy_out_part;
        j.part_ud = &out;
    }
    if (bsrc) {
        /* the base: the same allocator and options, its own name in messages */
        job_init(&bj, bsrc, j.al, &bctx);
        bj.all = j.all;
        bj.metric = j.metric;
        bj.dialect = j.dialect;
        bj.compat = j.compat;
        bj.force = j.force;
        bj.raw = j.raw;
        j.base = &bj;
    }
    pcdpy_src_release(src);
    pcd_status st = top ? pcd_convert_output(&j, &pcd_out_top, &out.sink) : pcd_convert(&j, to, parts ? NULL : &out.sink);
    pcdpy_src_acquire(src);
    pcd_job_result rc = pcd_job_result_of(&j, st);
    PyObject *res = NULL;
    if (pcdpy_src_reraise(src) || (bsrc && pcdpy_src_reraise(bsrc))) {
        pcdpy_out_abort(&out);
        goto done;
    }
    if (log.oom) {
        pcdpy_out_abort(&out);
        PyErr_NoMemory();
        goto done;
    }
    if (st == PCD_E_EMPTY && !j.damaged) {
        /* nothing to show (j.msg says what is missing): nothing written */
        pcdpy_out_abort(&out);
        pcdpy_fail(pcdpy.NothingToShow, "%s: %s", j.input_name, j.msg);
        goto done;
    }
    if (rc == PCD_JOB_FAILED) {
        pcdpy_out_abort(&out);
        const char *msg = j.msg[0] ? j.msg : pcd_status_name(st);
        if (st == PCD_E_NOMEM || st == PCD_E_LIMIT) pcdpy_fail(pcdpy.LimitError, "%s: %s", j.input_name, msg);
        else if (st == PCD_E_IO) pcdpy_fail(PyExc_OSError, "%s: %s", j.input_name, msg);
        else pcdpy_fail(pcdpy.UsageError, "%s: %s", j.input_name, msg);
        goto done;
    }
    uint64_t written = pcdpy_out_tell(&out);
    PyObject *output = NULL;
    if (st == PCD_E_EMPTY || (rc == PCD_JOB_INVALID && written == 0 && out.is_path)) {
        /* damage before anything could be converted: no empty (or, for JSON, invalid) file, and
         * no output at all (DamagedInput says where) */
        pcdpy_out_abort(&out);
        output = Py_None;
        Py_INCREF(output);
    } else {
        output = pcdpy_out_commit(&out);
        if (!output) goto done;
    }
    PyObject *errors = PyList_New(0);
    int wrc = 0;
    PyObject *exc = errors ? jlog_emit(&log, all != 0, j.r ? j.r->records : 0, &errors, &wrc) : NULL;
    if (!errors || wrc < 0) {
        Py_XDECREF(exc);
        Py_XDECREF(errors);
        Py_DECREF(output);
        goto done;
    }
    if (rc == PCD_JOB_INVALID && !exc && !all) {
        /* invalid input that no damage report named (an importer's own check) */
        exc = pcdpy_damage_text(j.msg[0] ? j.msg : "the input is invalid", mctx.name, j.r ? j.r->records : 0);
    } else if (rc == PCD_JOB_INVALID && !exc && all && j.msg[0]) {
        pcdpy_warn("%s: %s", j.input_name, j.msg);
    }
    res = raise_or_return(exc, output, errors, all);
done:
    jlog_free(&log);
    pcdpy_src_close(src);
    pcdpy_src_close(bsrc);
    return res;
}

/* ---- merge (issue 25) --------------------------------------------------------------------------- */

PyObject *pcdpy_merge(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "sources", "to", "output", "all", "metric", "dialect", "force", "max_memory", "threads", NULL };
    PyObject *seq, *target = Py_None, *mm = NULL;
    const char *to, *metric = NULL, *dialect = NULL;
    int all = 0, force = 0, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Os|O$pzzpOp:merge", kwlist, &seq, &to, &target, &all, &metric, &dialect,
                                     &force, &mm, &threads))
        return NULL;
    size_t max_memory = 0;
    if (pcdpy_parse_size(mm, &max_memory) < 0) return NULL;
    PyObject *list = PySequence_List(seq); /* (sources: a sequence of paths, bytes or binary files) */
    if (!list) return NULL;
    Py_ssize_t n = PyList_Size(list);
    if (n < 1) {
        Py_DECREF(list);
        return pcdpy_fail(pcdpy.UsageError, "merge: no source given");
    }
    pcdpy_src **src = calloc((size_t)n, sizeof *src);
    pcd_job *jobs = calloc((size_t)n, sizeof *jobs);
    jctx *ctx = calloc((size_t)n, sizeof *ctx);
    jlog log;
    memset(&log, 0, sizeof log);
    PyObject *res = NULL;
    pcdpy_out out;
    if (!src || !jobs || !ctx) {
        PyErr_NoMemory();
        goto done;
    }
    pcdpy_open_opts o = { NULL, max_memory, threads != 0, false, true };
    for (Py_ssize_t i = 0; i < n; i++) {
        src[i] = pcdpy_src_open(PyList_GetItem(list, i), &o);
        if (!src[i]) goto done;
        ctx[i].log = &log;
        ctx[i].name = pcdpy_src_name(src[i]);
        /* one allocator for the merge: the first source's (its memory cap) */
        job_init(&jobs[i], src[i], pcdpy_src_alloc(src[0]), &ctx[i]);
        jobs[i].all = all;
        jobs[i].metric = metric;
        jobs[i].dialect = dialect;
        jobs[i].force = force;
    }
    bool parts = (pcd_output_wants(to) & PCD_WANTS_PARTS) != 0;
    if ((parts ? pcdpy_out_open_parts(&out, target) : pcdpy_out_open(&out, target)) < 0) goto done;
    if (parts) {
        jobs[0].open_part = pcdpy_out_part;
        jobs[0].part_ud = &out;
    }
    pcdpy_src_release(src[0]);
    pcd_status st = pcd_merge(jobs, (size_t)n, to, parts ? NULL : &out.sink);
    pcdpy_src_acquire(src[0]);
    bool damaged = false;
    for (Py_ssize_t i = 0; i < n; i++) {
        damaged |= jobs[i].damaged;
        if (pcdpy_src_reraise(src[i])) {
            pcdpy_out_abort(&out);
            goto done;
        }
    }
    if (log.oom) {
        pcdpy_out_abort(&out);
        PyErr_NoMemory();
        goto done;
    }
    pcd_job_result rc = pcd_job_result_of(&jobs[0], st);
    if (st == PCD_E_EMPTY) {
        pcdpy_out_abort(&out);
        pcdpy_fail(pcdpy.NothingToShow, "merge: %s", jobs[0].msg);
        goto done;
    }
    if (rc == PCD_JOB_FAILED) {
        pcdpy_out_abort(&out);
        const char *msg = jobs[0].msg[0] ? jobs[0].msg : pcd_status_name(st);
        if (st == PCD_E_NOMEM || st == PCD_E_LIMIT) pcdpy_fail(pcdpy.LimitError, "merge: %s", msg);
        else if (st == PCD_E_IO) pcdpy_fail(PyExc_OSError, "merge: %s", msg);
        else pcdpy_fail(pcdpy.UsageError, "merge: %s", msg);
        goto done;
    }
    PyObject *output = pcdpy_out_commit(&out);
    if (!output) goto done;
    PyObject *errors = PyList_New(0);
    int wrc = 0;
    PyObject *exc = errors ? jlog_emit(&log, all != 0, 0, &errors, &wrc) : NULL;
    if (!errors || wrc < 0) {
        Py_XDECREF(exc);
        Py_XDECREF(errors);
        Py_DECREF(output);
        goto done;
    }
    if ((rc == PCD_JOB_INVALID || damaged) && !exc && !all)
        exc = pcdpy_damage_text(jobs[0].msg[0] ? jobs[0].msg : "an input is damaged", ctx[0].name, 0);
    res = raise_or_return(exc, output, errors, all);
done:
    jlog_free(&log);
    if (src)
        for (Py_ssize_t i = n - 1; i >= 0; i--) pcdpy_src_close(src[i]);
    free(src);
    free(jobs);
    free(ctx);
    Py_DECREF(list);
    return res;
}

/* ---- formats ------------------------------------------------------------------------------------ */

PyObject *pcdpy_formats(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    PyObject *list = PyList_New(0);
    if (!list) return NULL;
    for (size_t i = 0; i < pcdpy.n_fmts; i++) {
        const pcd_format *f = pcdpy.formats[i];
        const pcd_ext *e = pcd_ext_find(f->name);
        PyObject *to = PyList_New(0);
        if (!to) goto fail;
        const char *h, *t;
        for (size_t k = 0; e && (t = pcd_convert_target(e, k, &h)); k++) {
            PyObject *s = PyUnicode_FromString(t);
            if (!s || PyList_Append(to, s) < 0) {
                Py_XDECREF(s);
                Py_DECREF(to);
                goto fail;
            }
            Py_DECREF(s);
        }
        PyObject *d = Py_BuildValue("{s:s,s:s,s:s,s:s,s:O,s:N,s:s,s:O}", "name", f->name, "version", f->version, "title",
                                    f->title, "schema", f->schema, "streamable",
                                    (f->flags & PCD_FMT_STREAMABLE) ? Py_True : Py_False, "convert_to", to, "module",
                                    pcdpy.fmts[i].gen->module, "profile",
                                    (e && e->model) ? Py_True : Py_False);
        if (!d || PyList_Append(list, d) < 0) {
            Py_XDECREF(d);
            goto fail;
        }
        Py_DECREF(d);
    }
    return list;
fail:
    Py_DECREF(list);
    return NULL;
}

/* ---- profile ------------------------------------------------------------------------------------ */

#include "model/profile.h"

/* The samples and the slices as columns, each a bytearray the memoryviews handed out will be
 * over (no copy at the end): rows are written without the GIL, straight into the arrays; the
 * GIL is taken back only to grow them (doubling: a few dozen times at most). */
typedef struct col {
    PyObject *ba;                  /* the bytearray */
    uint8_t *p;                    /* its bytes */
    size_t width;                  /* bytes per row */
} col;

typedef struct table {
    col *cols;
    size_t n_cols;
    uint64_t n, cap;               /* rows written, rows there is room for */
} table;

enum { S_THREAD, S_STACK, S_TIME, S_COUNT, S_FLAGS, S_VALUES, S_N };
enum { L_TRACK, L_START, L_END, L_NAME, L_CAT, L_N };

typedef struct pcols {
    pcdpy_src *src;
    size_t n_types;
    col s[S_N], l[L_N];
    table samples, slices;
    bool oom;
} pcols;

/* Room for one more row. Called without the GIL (from the model's callbacks). */
static bool table_room(pcols *c, table *t)
{
    if (t->n < t->cap) return true;
    uint64_t cap = t->cap ? t->cap * 2 : 16384;
    bool ok = true;
    pcdpy_src_acquire(c->src);
    for (size_t i = 0; i < t->n_cols && ok; i++) {
        col *k = &t->cols[i];
        if (k->width && cap > (uint64_t)PY_SSIZE_T_MAX / k->width) ok = false;
        else if (PyByteArray_Resize(k->ba, (Py_ssize_t)(cap * k->width)) < 0) ok = false;
        else k->p = (uint8_t *)PyByteArray_AsString(k->ba);
    }
    if (!ok) PyErr_Clear();
    pcdpy_src_release(c->src);
    if (!ok) return c->oom = true, false;
    t->cap = cap;
    return true;
}

static pcd_status pc_begin(void *ud, pcd_profile *p)
{
    pcols *c = ud;
    c->n_types = p->n_types;
    c->s[S_VALUES].width = 8 * p->n_types;
    return PCD_OK;
}

static pcd_status pc_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    (void)p;
    pcols *c = ud;
    table *t = &c->samples;
    if (t->n == t->cap && !table_room(c, t)) return PCD_E_NOMEM;
    uint64_t i = t->n++;
    ((uint32_t *)(void *)c->s[S_THREAD].p)[i] = s->thread;
    ((uint32_t *)(void *)c->s[S_STACK].p)[i] = s->stack;
    ((int64_t *)(void *)c->s[S_TIME].p)[i] = s->time;
    ((uint64_t *)(void *)c->s[S_COUNT].p)[i] = s->count;
    ((uint32_t *)(void *)c->s[S_FLAGS].p)[i] = s->flags;
    if (c->n_types) memcpy(c->s[S_VALUES].p + i * c->s[S_VALUES].width, s->values, c->s[S_VALUES].width);
    return PCD_OK;
}

static pcd_status pc_slice(void *ud, pcd_profile *p, const pcd_slice *s)
{
    pcols *c = ud;
    table *t = &c->slices;
    /* a text the importer took from the profile's own strings moves when interning the other
     * grows them: such a one is interned first (it is there already: nothing grows) */
    const pcd_strtab *st = &p->strings;
    uintptr_t c0 = (uintptr_t)s->category.ptr, p0 = (uintptr_t)st->pool;
    bool cat_first = st->pool && c0 >= p0 && c0 < p0 + st->pool_len;
    pcd_str name = 0, cat = 0;
    if (cat_first) cat = pcd_profile_str(p, s->category.ptr, s->category.len);
    name = pcd_profile_str(p, s->name.ptr, s->name.len);
    if (!cat_first) cat = pcd_profile_str(p, s->category.ptr, s->category.len);
    if (p->oom) return PCD_E_NOMEM;
    if (t->n == t->cap && !table_room(c, t)) return PCD_E_NOMEM;
    uint64_t i = t->n++;
    ((uint32_t *)(void *)c->l[L_TRACK].p)[i] = s->track;
    ((int64_t *)(void *)c->l[L_START].p)[i] = s->start;
    ((int64_t *)(void *)c->l[L_END].p)[i] = s->end;
    ((uint32_t *)(void *)c->l[L_NAME].p)[i] = name;
    ((uint32_t *)(void *)c->l[L_CAT].p)[i] = cat;
    return PCD_OK;
}

/* The columns, empty (with the GIL). */
static int pcols_init(pcols *c, pcdpy_src *src)
{
    memset(c, 0, sizeof *c);
    c->src = src;
    static const size_t sw[S_N] = { 4, 4, 8, 8, 4, 0 }, lw[L_N] = { 4, 8, 8, 4, 4 };
    for (size_t i = 0; i < S_N; i++) {
        c->s[i].width = sw[i];
        if (!(c->s[i].ba = PyByteArray_FromStringAndSize(NULL, 0))) return -1;
    }
    for (size_t i = 0; i < L_N; i++) {
        c->l[i].width = lw[i];
        if (!(c->l[i].ba = PyByteArray_FromStringAndSize(NULL, 0))) return -1;
    }
    c->samples = (table){ c->s, S_N, 0, 0 };
    c->slices = (table){ c->l, L_N, 0, 0 };
    return 0;
}

static void pcols_free(pcols *c)
{
    for (size_t i = 0; i < S_N; i++) Py_XDECREF(c->s[i].ba);
    for (size_t i = 0; i < L_N; i++) Py_XDECREF(c->l[i].ba);
}

/* A memoryview of format fmt over a column, cut to its rows (shape: rows x k, when k > 0). */
static PyObject *col_view(col *k, uint64_t rows, const char *fmt, Py_ssize_t per_row)
{
    if (PyByteArray_Resize(k->ba, (Py_ssize_t)(rows * k->width)) < 0) return NULL;
    PyObject *mv = PyMemoryView_FromObject(k->ba);
    if (!mv) return NULL;
    /* (a memoryview has no shape with a zero in it: an empty table is a 1-D view) */
    PyObject *res = per_row > 0 && rows > 0
                        ? PyObject_CallMethod(mv, "cast", "s[nn]", fmt, (Py_ssize_t)rows, per_row)
                        : PyObject_CallMethod(mv, "cast", "s", fmt);
    Py_DECREF(mv);
    return res;
}

/* A memoryview of format fmt over a copy of n bytes at p (the frames' and stacks' columns). */
static PyObject *view(const void *p, size_t n, const char *fmt)
{
    PyObject *ba = PyByteArray_FromStringAndSize(p ? (const char *)p : "", (Py_ssize_t)(p ? n : 0));
    if (!ba) return NULL;
    PyObject *mv = PyMemoryView_FromObject(ba);
    Py_DECREF(ba);
    if (!mv) return NULL;
    PyObject *res = PyObject_CallMethod(mv, "cast", "s", fmt);
    Py_DECREF(mv);
    return res;
}

static PyObject *str_of(const pcd_profile *p, pcd_str s)
{
    pcd_bytes b = pcd_profile_text(p, s);
    return PyUnicode_DecodeUTF8((const char *)b.ptr, (Py_ssize_t)b.len, "surrogateescape");
}

static PyObject *id_or_none(int64_t v, int64_t none)
{
    if (v == none) Py_RETURN_NONE;
    return PyLong_FromLongLong(v);
}

static int put(PyObject *d, const char *k, PyObject *v)
{
    if (!v) return -1;
    int rc = PyDict_SetItemString(d, k, v);
    Py_DECREF(v);
    return rc;
}


/* A thread's id as a number: the model's where the source gives one, else its text when that is
 * a decimal number (MOJO's threads: the file's hexadecimal text, which the model keeps as
 * Austin's text shows it, in decimal), else None. */
static PyObject *thread_tid(const pcd_profile *p, const pcd_thread *t)
{
    if (t->has_tid) return PyLong_FromUnsignedLongLong(t->tid);
    pcd_bytes b = pcd_profile_text(p, t->tid_text);
    uint64_t v = 0;
    size_t i = 0;
    while (i < b.len && i < 19 && b.ptr[i] >= '0' && b.ptr[i] <= '9') v = v * 10 + (uint64_t)(b.ptr[i++] - '0');
    if (b.len && i == b.len && (b.len == 1 || b.ptr[0] != '0')) return PyLong_FromUnsignedLongLong(v);
    Py_RETURN_NONE;
}

static PyObject *profile_dict(const pcd_profile *p, pcols *c)
{
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    size_t nf = p->n_frames, ns = p->n_stacks;
    PyObject *strings = PyList_New((Py_ssize_t)p->strings.n);
    if (!strings || put(d, "strings", strings) < 0) goto fail;
    Py_INCREF(strings); /* (put took one) */
    for (size_t i = 0; i < p->strings.n; i++) {
        PyObject *s = str_of(p, (pcd_str)i);
        if (!s) {
            Py_DECREF(strings);
            goto fail;
        }
        PyList_SetItem(strings, (Py_ssize_t)i, s);
    }
    Py_DECREF(strings);
    /* frames, as columns */
    {
        uint32_t *u32 = malloc((nf ? nf : 1) * 8);
        if (!u32) goto nomem;
        PyObject *fr = PyDict_New();
        if (!fr || put(d, "frames", fr) < 0) {
            free(u32);
            goto fail;
        }
        Py_INCREF(fr);
#define FCOL(name, ctype, fmt, expr)                                                    \
    do {                                                                                \
        ctype *col_ = (ctype *)(void *)u32;                                             \
        for (size_t i = 0; i < nf; i++) col_[i] = (ctype)(p->frames[i].expr);           \
        if (put(fr, name, view(col_, nf * sizeof(ctype), fmt)) < 0) goto frfail; \
    } while (0)
        FCOL("function", uint32_t, "I", function);
        FCOL("file", uint32_t, "I", file);
        FCOL("line", int64_t, "q", line);
        FCOL("end_line", int64_t, "q", end_line);
        FCOL("column", int64_t, "q", column);
        FCOL("end_column", int64_t, "q", end_column);
        FCOL("module", uint32_t, "I", module);
        FCOL("address", uint64_t, "Q", address);
        FCOL("kind", uint16_t, "H", kind);
        FCOL("flags", uint16_t, "H", flags);
        FCOL("key", uint32_t, "I", key);
#undef FCOL
        Py_DECREF(fr);
        /* stacks */
        PyObject *stk = PyDict_New();
        if (!stk || put(d, "stacks", stk) < 0) {
            free(u32);
            goto fail;
        }
        Py_INCREF(stk);
        uint32_t *s32 = realloc(u32, (ns ? ns : 1) * 4);
        if (!s32) {
            Py_DECREF(stk);
            free(u32);
            goto nomem;
        }
        u32 = s32;
#define SCOL(name, field)                                                                 \
    do {                                                                                  \
        for (size_t i = 0; i < ns; i++) u32[i] = p->st[i].field;                          \
        if (put(stk, name, view(u32, ns * 4, "I")) < 0) goto stfail;               \
    } while (0)
        SCOL("parent", parent);
        SCOL("frame", frame);
        SCOL("depth", depth);
#undef SCOL
        Py_DECREF(stk);
        free(u32);
        goto tables_done;
    frfail:
        Py_DECREF(fr);
        free(u32);
        goto fail;
    stfail:
        Py_DECREF(stk);
        free(u32);
        goto fail;
    }
tables_done:;
    PyObject *threads = PyList_New(0);
    if (!threads || put(d, "threads", threads) < 0) goto fail;
    for (size_t i = 0; i < p->n_threads; i++) {
        const pcd_thread *t = &p->threads[i];
        PyObject *td = PyDict_New();
        if (!td || PyList_Append(threads, td) < 0) {
            Py_XDECREF(td);
            goto fail;
        }
        Py_DECREF(td);
        if (put(td, "pid", id_or_none(t->pid, PCD_ID_NONE)) < 0 || put(td, "iid", id_or_none(t->iid, PCD_ID_NONE)) < 0 ||
            put(td, "tid", thread_tid(p, t)) < 0 ||
            put(td, "tid_text", str_of(p, t->tid_text)) < 0 || put(td, "key", PyLong_FromUnsignedLongLong(t->key)) < 0 ||
            put(td, "name", str_of(p, t->name)) < 0 || put(td, "process_name", str_of(p, t->process_name)) < 0)
            goto fail;
    }
    PyObject *types = PyList_New(0);
    if (!types || put(d, "sample_types", types) < 0) goto fail;
    for (size_t i = 0; i < p->n_types; i++) {
        const pcd_sample_type *t = &p->types[i];
        PyObject *td = PyDict_New();
        if (!td || PyList_Append(types, td) < 0) {
            Py_XDECREF(td);
            goto fail;
        }
        Py_DECREF(td);
        if (put(td, "name", str_of(p, t->name)) < 0 || put(td, "unit", str_of(p, t->unit)) < 0 ||
            put(td, "title", str_of(p, t->title)) < 0 || put(td, "secondary", PyBool_FromLong(t->secondary)) < 0 ||
            put(td, "signed", PyBool_FromLong(t->is_signed)) < 0)
            goto fail;
    }
    PyObject *meta = PyList_New(0);
    if (!meta || put(d, "metadata", meta) < 0) goto fail;
    for (size_t i = 0; i < p->n_meta; i++) {
        PyObject *kv = Py_BuildValue("(NN)", str_of(p, p->meta[i].key), str_of(p, p->meta[i].value));
        if (!kv || PyList_Append(meta, kv) < 0) {
            Py_XDECREF(kv);
            goto fail;
        }
        Py_DECREF(kv);
    }
    PyObject *sm = PyDict_New();
    if (!sm || put(d, "samples", sm) < 0) goto fail;
    uint64_t n = c->samples.n, nl = c->slices.n;
    if (put(sm, "thread", col_view(&c->s[S_THREAD], n, "I", 0)) < 0 ||
        put(sm, "stack", col_view(&c->s[S_STACK], n, "I", 0)) < 0 ||
        put(sm, "time", col_view(&c->s[S_TIME], n, "q", 0)) < 0 ||
        put(sm, "count", col_view(&c->s[S_COUNT], n, "Q", 0)) < 0 ||
        put(sm, "flags", col_view(&c->s[S_FLAGS], n, "I", 0)) < 0 ||
        put(sm, "values", col_view(&c->s[S_VALUES], n, "Q", (Py_ssize_t)c->n_types)) < 0)
        goto fail;
    PyObject *sl = PyDict_New();
    if (!sl || put(d, "slices", sl) < 0) goto fail;
    if (put(sl, "track", col_view(&c->l[L_TRACK], nl, "I", 0)) < 0 ||
        put(sl, "start", col_view(&c->l[L_START], nl, "q", 0)) < 0 ||
        put(sl, "end", col_view(&c->l[L_END], nl, "q", 0)) < 0 ||
        put(sl, "name", col_view(&c->l[L_NAME], nl, "I", 0)) < 0 ||
        put(sl, "category", col_view(&c->l[L_CAT], nl, "I", 0)) < 0)
        goto fail;
    if (put(d, "format", PyUnicode_FromString(p->format)) < 0 || put(d, "version", PyUnicode_FromString(p->version)) < 0 ||
        put(d, "dialect", PyUnicode_FromString(pcd_dialect_names[p->dialect])) < 0 ||
        put(d, "time_origin", id_or_none(p->time_origin, PCD_TIME_NONE)) < 0 ||
        put(d, "duration", id_or_none(p->duration, PCD_TIME_NONE)) < 0 ||
        put(d, "period", PyLong_FromLongLong(p->period)) < 0 ||
        put(d, "period_type", p->period_type >= 0 ? PyLong_FromLong(p->period_type) : (Py_INCREF(Py_None), Py_None)) < 0 ||
        put(d, "default_type", PyLong_FromLong(p->default_type)) < 0)
        goto fail;
    return d;
nomem:
    PyErr_NoMemory();
fail:
    Py_DECREF(d);
    return NULL;
}

PyObject *pcdpy_profile_of(pcdpy_src *src, PyObject *kw_times, bool all, const char *metric, const pcd_filter_opts *fo)
{
    const pcd_format *f = pcdpy_src_format(src);
    const pcd_ext *ext = pcd_ext_find(f->name);
    if (!ext || !ext->model)
        return pcdpy_fail(pcdpy.UsageError, "%s: a %s file is not imported into the profile model (yet)",
                          pcdpy_src_name(src), f->name);
    int times = kw_times ? PyObject_IsTrue(kw_times) : 0;
    if (times < 0) return NULL;
    jlog log;
    memset(&log, 0, sizeof log);
    jctx ctx = { &log, pcdpy_src_name(src) };
    pcd_job j;
    job_init(&j, src, pcdpy_src_alloc(src), &ctx);
    j.all = all;
    j.metric = metric;
    pcols cols;
    if (pcols_init(&cols, src) < 0) {
        pcols_free(&cols);
        return NULL;
    }
    pcd_consumer c;
    memset(&c, 0, sizeof c);
    c.ud = &cols;
    c.needs = times ? PCD_NEEDS_TIMES | PCD_NEEDS_TIMELINE : 0; /* (Mono: its sample hits, each a row) */
    c.begin = pc_begin;
    c.sample = pc_sample;
    c.slice = pc_slice;
    /* grouping and filters (model/transform.h): frames as read unless granularity= says */
    pcd_filter_opts o2 = *fo;
    o2.dialect = -1;
    pcd_granularity g = o2.granularity ? o2.granularity : PCD_GRAN_ADDRESS;
    pcd_transform *tr = NULL;
    if (pcd_transform_wanted(&o2, g)) {
        if ((o2.has_from || o2.has_until) && !(ext->model->has & (PCD_HAS_TIMES | PCD_HAS_SOME_TIMES))) {
            pcols_free(&cols);
            return pcdpy_fail(pcdpy.UsageError, "%s: from_/until: the samples of a %s file have no times",
                              pcdpy_src_name(src), f->name);
        }
        pcd_consumer inner = c;
        if (pcd_transform_open(&tr, j.al, &o2, g, &inner, &c, j.msg, sizeof j.msg) != PCD_OK) {
            pcols_free(&cols);
            return pcdpy_fail(pcdpy.UsageError, "%s", j.msg[0] ? j.msg : "out of memory");
        }
    }
    pcd_profile p;
    pcd_profile_init(&p, j.al, &c);
    p.input_name = j.input_name;
    p.format = f->name;
    p.version = f->version;
    p.has = ext->model->has;
    pcd_profile *sp = tr ? pcd_transform_profile(tr) : &p;
    if (tr) {
        sp->input_name = j.input_name;
        sp->format = f->name;
        sp->version = f->version;
        sp->has = ext->model->has;
    }
    pcdpy_src_release(src);
    pcd_status st = pcd_model_import(&j, ext->model, &p);
    if (st == PCD_OK) st = pcd_profile_end(&p);
    pcdpy_src_acquire(src);
    PyObject *res = NULL, *d = NULL;
    if (st == PCD_E_NOMEM && !j.msg[0]) pcd_job_fail(&j, st, "out of memory for the profile (raise max_memory)");
    pcd_job_result rc = pcd_job_result_of(&j, st);
    if (pcdpy_src_reraise(src)) goto done;
    if (log.oom || cols.oom) {
        PyErr_NoMemory();
        goto done;
    }
    if (rc == PCD_JOB_FAILED) {
        const char *msg = j.msg[0] ? j.msg : pcd_status_name(st);
        pcdpy_fail(st == PCD_E_NOMEM || st == PCD_E_LIMIT ? pcdpy.LimitError : pcdpy.UsageError, "%s: %s",
                   j.input_name, msg);
        goto done;
    }
    /* a time range on an input whose samples only may have times, and had none (a Mono log
     * without sample hits): refused as the CLI refuses it (pipeline.c, pcd_shown_check) */
    if (tr && pcd_transform_untimed(tr) && !(ext->model->has & PCD_HAS_TIMES)) {
        pcdpy_fail(pcdpy.UsageError, "%s: from_/until: the samples of a %s file have no times", j.input_name, f->name);
        goto done;
    }
    d = profile_dict(sp, &cols);
    if (!d) goto done;
    /* the package's Profile class wraps the dict (the extension alone: the dict) */
    PyObject *pkg = PyImport_ImportModule(pcdpy.reg->package);
    PyObject *cls = pkg ? PyObject_GetAttrString(pkg, "Profile") : NULL;
    Py_XDECREF(pkg);
    if (cls) {
        res = PyObject_CallFunctionObjArgs(cls, d, NULL);
        Py_DECREF(cls);
        if (!res) goto done;
    } else {
        PyErr_Clear();
        res = d;
        Py_INCREF(res);
    }
    PyObject *errors = PyList_New(0);
    int wrc = 0;
    PyObject *exc = errors ? jlog_emit(&log, all, j.r->records, &errors, &wrc) : NULL;
    if (!errors || wrc < 0) {
        Py_XDECREF(exc);
        Py_XDECREF(errors);
        Py_CLEAR(res);
        goto done;
    }
    if (rc == PCD_JOB_INVALID && !exc && !all) exc = pcdpy_damage_text(j.msg[0] ? j.msg : "the input is invalid", ctx.name, j.r->records);
    if (exc && !all) {
        PyObject_SetAttrString(exc, "profile", res);
        PyObject_SetAttrString(exc, "errors", errors);
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_CLEAR(res);
    }
    Py_XDECREF(exc);
    Py_DECREF(errors);
done:
    Py_XDECREF(d);
    pcd_profile_free(&p);
    pcd_transform_close(tr);
    pcols_free(&cols);
    jlog_free(&log);
    return res;
}
