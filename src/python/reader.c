/* python/reader.c: profcodec.open() and its Reader: the records of an input, one at a time,
 * in bounded memory. Records are decoded in batches without the GIL: the decoding fast path
 * (pcd_reader_decode_run) and the reader loop, each record copied with what it points to
 * into a staging buffer (at most BATCH records, about STAGE_MAX bytes); the iterator then
 * makes one object per record from it with the GIL held. Damage ends the records before it,
 * then raises DamagedInput (all=True: a warning, and reading goes on where it can). */
#include "internal.h"

#include "model/transform.h"

#include "pipeline/pipeline.h"

#define BATCH 4096
#define STAGE_MAX ((size_t)1 << 20)
#define PCDPY_STOP PCD_SHORT_WRITE   /* the staging buffer is full: the decode run stops */

typedef struct entry {
    const pcdpy_cls *cls;
    const pcd_type *dt;
    const pcd_region_desc *rd;
    uint64_t offset;
    size_t rsize, bytes;
    const uint8_t *copy;           /* in a staging chunk */
    uint32_t flags;
} entry;

/* Staging memory: chunks that never move (a copy's pointers point into itself), the first
 * kept from batch to batch. */
typedef struct chunk {
    struct chunk *next;
    size_t cap, len;
    _Alignas(16) uint8_t data[];
} chunk;

typedef struct Reader {
    PyObject_HEAD
    pcdpy_src *src;
    PyObject *what;                /* what was opened (to open it again for profile, validate) */
    pcdpy_open_opts opts;
    char format_spec[64];
    bool all;
    bool busy;                     /* a thread is reading it without the GIL */
    bool touched;                  /* records were read */
    bool stopped;                  /* damage was raised, or close() */
    PyObject *pending;             /* the root, read for .header before iteration got it */
    PyObject *header;              /* the root, once read */
    /* .metadata: the records after the root read ahead for it (handed out by iteration
     * before the batch's), and the key-value pairs of the metadata records that follow the root
     * (the schema's metadata = { key, value }) until the first other record (meta_done) */
    PyObject *ahead;               /* a list, or NULL */
    Py_ssize_t ahead_pos;
    PyObject *meta_pairs;          /* a list of (key, value), or NULL */
    bool meta_done;
    entry *ents;
    size_t n_ents, pos;
    chunk *chunks;                 /* the current one first */
    size_t stage_len;              /* bytes staged in this batch */
    bool ended, failed;
    pcdpy_err err;
    pcd_status stage_err;          /* staging failed (memory, a kind it cannot copy) */
    uint64_t records;              /* records handed out (the root too, as dump counts them) */
    PyObject *damage;              /* DamagedInput of each place skipped (all=True) */
} Reader;

static bool reader_busy(Reader *R)
{
    if (R->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Reader is being read by another thread");
        return true;
    }
    if (!R->src) {
        PyErr_SetString(PyExc_ValueError, "this Reader is closed");
        return true;
    }
    return false;
}

/* ---- staging ------------------------------------------------------------------------------------ */

static pcd_status stage_one(Reader *R, const pcd_record *rec)
{
    const pcdpy_cls *cls = pcdpy_record_class(rec);
    if (!cls || !rec->data) return R->stage_err = PCD_E_INTERNAL;
    size_t rsize;
    if (rec->type == cls->rtype) rsize = cls->rsize;
    else rsize = pcdpy_record_size(rec->type, rec->type->is_union ? (int32_t) * (const uint32_t *)rec->data : -1);
    size_t bytes = pcdpy_copy_size(rec->type, rec->data, rsize);
    if (bytes == (size_t)-1) return R->stage_err = PCD_E_ARG;
    chunk *c = R->chunks;
    size_t at = c ? (c->len + 15) & ~(size_t)15 : 0;
    if (!c || at > c->cap || bytes > c->cap - at) {
        size_t cap = bytes > STAGE_MAX ? bytes : STAGE_MAX;
        if (cap > SIZE_MAX - sizeof(chunk)) return R->stage_err = PCD_E_NOMEM;
        chunk *n = malloc(sizeof(chunk) + cap);
        if (!n) return R->stage_err = PCD_E_NOMEM;
        n->next = c;
        n->cap = cap;
        n->len = 0;
        R->chunks = c = n;
        at = 0;
    }
    uint8_t *copy = c->data + at;
    pcdpy_copy(rec->type, rec->data, rsize, copy);
    c->len = at + bytes;
    entry *e = &R->ents[R->n_ents++];
    e->cls = cls;
    e->dt = rec->type;
    e->rd = rec->region;
    e->offset = rec->offset;
    e->rsize = rsize;
    e->bytes = bytes;
    e->copy = copy;
    e->flags = PCDPY_HAS_OFFSET | (rec->big ? PCDPY_BIG : 0) | (rec->decompressed ? PCDPY_DECOMPRESSED : 0);
    R->stage_len += bytes;
    pcdpy_src_nonblock(R->src, true);
    return PCD_OK;
}

static pcd_status stage_cb(void *ud, const pcd_record *rec)
{
    Reader *R = ud;
    pcd_status st = stage_one(R, rec);
    if (st != PCD_OK) return st;
    if (R->stage_len >= STAGE_MAX || R->n_ents >= BATCH) return PCDPY_STOP;
    return PCD_OK;
}

/* A batch: without the GIL (a Python file object's reads take it back). */
static void fill(Reader *R, size_t max)
{
    pcd_reader *r = pcdpy_src_reader(R->src);
    pcd_record rec;
    R->n_ents = R->pos = 0;
    R->stage_len = 0;
    /* the last batch's records are objects now: keep one chunk of the usual size */
    while (R->chunks && (R->chunks->next || R->chunks->cap != STAGE_MAX)) {
        chunk *c = R->chunks;
        R->chunks = c->next;
        free(c);
    }
    if (R->chunks) R->chunks->len = 0;
    if (max > BATCH) max = BATCH;
    pcdpy_src_nonblock(R->src, false);
    while (R->n_ents < max && R->stage_len < STAGE_MAX) {
        uint64_t k = 0;
        pcd_status st = pcd_reader_decode_run(r, max - R->n_ents, &k, stage_cb, R);
        if (st == PCDPY_STOP) break;
        if (R->stage_err) break;
        if (st == PCD_OK) {
            st = pcd_reader_next(r, &rec);
            if (st == PCD_OK) {
                if (stage_one(R, &rec) != PCD_OK) break;
                continue;
            }
        }
        /* a stream with nothing more yet: the records staged go out first (then it waits) */
        if (st == PCD_WOULD_BLOCK) break;
        if (st == PCD_END) {
            R->ended = true;
            break;
        }
        pcdpy_err_capture(&R->err, pcd_reader_error(r));
        R->failed = true;
        break;
    }
    pcdpy_src_nonblock(R->src, false);
}

/* The next batch, the GIL released while it is read. 0, or -1 with an exception. */
static int next_batch(Reader *R, size_t max)
{
    R->busy = true;
    pcdpy_src_release(R->src);
    fill(R, max);
    pcdpy_src_acquire(R->src);
    R->busy = false;
    R->touched = true;
    if (pcdpy_src_reraise(R->src)) return -1;
    if (R->stage_err) {
        pcd_status st = R->stage_err;
        R->stage_err = PCD_OK;
        R->stopped = true;
        if (st == PCD_E_NOMEM) return PyErr_NoMemory(), -1;
        pcdpy_fail(pcdpy.UsageError, "%s: a record this binding cannot hold (a field of a kind it does not know)",
                   pcdpy_src_name(R->src));
        return -1;
    }
    return 0;
}

/* The metadata pair of o, a record of a metadata class, kept for .metadata. 0, or -1 with an
 * exception. */
static int keep_pair(Reader *R, const pcdpy_cls *cls, PyObject *o)
{
    if (!R->meta_pairs && !(R->meta_pairs = PyList_New(0))) return -1;
    PyObject *k = PyObject_GetAttrString(o, cls->names[cls->gen->meta_key]);
    PyObject *v = k ? PyObject_GetAttrString(o, cls->names[cls->gen->meta_value]) : NULL;
    PyObject *kv = v ? PyTuple_Pack(2, k, v) : NULL;
    int rc = kv ? PyList_Append(R->meta_pairs, kv) : -1;
    Py_XDECREF(k);
    Py_XDECREF(v);
    Py_XDECREF(kv);
    return rc;
}

static PyObject *make(Reader *R, const entry *e)
{
    PyObject *o = pcdpy_rec_from_copy(e->cls, e->dt, e->copy, e->bytes, e->rsize, e->rd, e->offset, e->flags);
    if (!o) return NULL;
    R->records++;
    if (e->cls->root && !R->header) {
        Py_INCREF(o);
        R->header = o;
    } else if (!R->meta_done) {
        /* the metadata records right after the root (a record before the root ends them too) */
        if (!R->header || e->cls->gen->meta_key < 0 || e->cls->gen->meta_value < 0) R->meta_done = true;
        else if (keep_pair(R, e->cls, o) < 0) return Py_DECREF(o), NULL;
    }
    return o;
}

/* Damage where reading stopped: raised (all=False), or warned about and passed (all=True).
 * Returns 1 when reading goes on, 0 at the end, -1 with an exception. */
static int on_damage(Reader *R)
{
    R->failed = false;
    const char *name = pcdpy_src_name(R->src);
    PyObject *exc = pcdpy_damage_exc(&R->err, name, R->records);
    if (!exc) return -1;
    if (R->err.status == PCD_E_IO && pcdpy_src_gzip_error(R->src)) {
        PyObject *note = PyUnicode_FromFormat("%s: gzip: %s", name, pcdpy_src_gzip_error(R->src));
        if (note) PyObject_SetAttrString(exc, "gzip", note);
        Py_XDECREF(note);
    }
    if (!R->all) {
        R->stopped = true;
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
        return -1;
    }
    if (!R->damage && !(R->damage = PyList_New(0))) return Py_DECREF(exc), -1;
    PyList_Append(R->damage, exc);
    int w = pcdpy_warn_obj(exc);
    Py_DECREF(exc);
    if (w < 0) return -1;
    uint64_t resume = 0;
    if (pcd_reader_recover(pcdpy_src_reader(R->src), &resume) == PCD_OK) return 1;
    R->ended = true;
    return 0;
}

static PyObject *reader_next(PyObject *self)
{
    Reader *R = (Reader *)self;
    if (reader_busy(R)) return NULL;
    if (R->pending) {
        PyObject *o = R->pending;
        R->pending = NULL;
        R->records++;
        return o;
    }
    if (R->ahead) {
        if (R->ahead_pos < PyList_Size(R->ahead)) {
            PyObject *o = PyList_GetItem(R->ahead, R->ahead_pos++);
            Py_INCREF(o);
            R->records++;
            return o;
        }
        Py_CLEAR(R->ahead);
    }
    for (;;) {
        if (R->pos < R->n_ents) return make(R, &R->ents[R->pos++]);
        if (R->stopped) return NULL;
        if (R->failed) {
            int rc = on_damage(R);
            if (rc <= 0) return NULL;
            continue;
        }
        if (R->ended) return NULL;
        if (next_batch(R, BATCH) < 0) return NULL;
    }
}

/* The root, for .header and .metadata: read now when iteration has not got it yet. */
static PyObject *root_record(Reader *R)
{
    if (R->header) return R->header;
    if (R->records == 0 && !R->touched) {
        if (reader_busy(R)) return NULL;
        if (next_batch(R, 1) < 0) return NULL;
        if (R->pos < R->n_ents && R->ents[R->pos].cls->root) {
            R->pending = make(R, &R->ents[R->pos++]);
            R->records--; /* counted when iteration hands it out */
            return R->pending;
        }
        if (R->failed && !R->all) {
            R->failed = false;
            R->stopped = true;
            return pcdpy_raise_damage(&R->err, pcdpy_src_name(R->src), 0);
        }
    }
    return pcdpy_fail(pcdpy.UsageError, "no header: reading stopped before it");
}

/* ---- opening ------------------------------------------------------------------------------------ */

static PyObject *reader_new(PyObject *what, const char *format, bool all, size_t max_memory, bool threads)
{
    Reader *R = PyObject_New(Reader, pcdpy.reader_type);
    if (!R) return NULL;
    R->src = NULL;
    R->what = what;
    Py_INCREF(what);
    memset(&R->opts, 0, sizeof R->opts);
    R->format_spec[0] = 0;
    if (format) snprintf(R->format_spec, sizeof R->format_spec, "%s", format);
    R->opts.format = format ? R->format_spec : NULL;
    R->opts.max_memory = max_memory;
    R->opts.threads = threads;
    R->all = all;
    R->busy = R->touched = R->stopped = false;
    R->pending = NULL;
    R->header = NULL;
    R->ahead = R->meta_pairs = NULL;
    R->ahead_pos = 0;
    R->meta_done = false;
    R->ents = NULL;
    R->n_ents = R->pos = 0;
    R->chunks = NULL;
    R->stage_len = 0;
    R->ended = R->failed = false;
    memset(&R->err, 0, sizeof R->err);
    R->stage_err = PCD_OK;
    R->records = 0;
    R->damage = NULL;
    R->ents = malloc(BATCH * sizeof *R->ents);
    if (!R->ents) {
        Py_DECREF(R);
        return PyErr_NoMemory();
    }
    R->src = pcdpy_src_open(what, &R->opts);
    if (!R->src) {
        Py_DECREF(R);
        return NULL;
    }
    return (PyObject *)R;
}

/* Options of open(), validate(), convert(): format, all, max_memory, threads. */
typedef struct common_opts {
    const char *format;
    int all, strict, threads;
    size_t max_memory;
} common_opts;

PyObject *pcdpy_open(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "source", "format", "all", "max_memory", "threads", NULL };
    PyObject *what, *mm = NULL;
    const char *format = NULL;
    int all = 0, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z$pOp:open", kwlist, &what, &format, &all, &mm, &threads))
        return NULL;
    size_t max_memory = 0;
    if (pcdpy_parse_size(mm, &max_memory) < 0) return NULL;
    return reader_new(what, format, all, max_memory, threads);
}

/* ---- validate ---------------------------------------------------------------------------------------- */

typedef struct problem {
    pcdpy_err e;
    bool is_error;
} problem;

typedef struct vstate {
    problem *p;
    size_t n, cap;
    bool oom;
    const pcd_check_ops *ops;
    void *cctx;
} vstate;

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    vstate *v = ud;
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        problem *q = realloc(v->p, cap * sizeof *q);
        if (!q) {
            v->oom = true;
            return;
        }
        v->p = q;
        v->cap = cap;
    }
    pcdpy_err_capture(&v->p[v->n].e, e);
    v->p[v->n].is_error = is_error;
    v->n++;
}

static pcd_status check_one(void *ud, const pcd_record *rec)
{
    vstate *v = ud;
    v->ops->record(v->cctx, rec, on_report, v);
    return PCD_OK;
}

/* The CLI's validate loop over a fresh source (GIL released). */
static void validate_run(pcdpy_src *src, bool all, vstate *v, uint64_t *records, bool *reached_end)
{
    pcd_reader *r = pcdpy_src_reader(src);
    pcd_record rec;
    for (;;) {
        uint64_t k = 0;
        pcd_status st = v->cctx ? pcd_reader_decode_run(r, 1u << 16, &k, check_one, v)
                                : pcd_reader_validate_run(r, 1u << 16, &k);
        *records += k;
        if (st == PCD_OK) st = pcd_reader_next(r, &rec);
        if (st == PCD_END) {
            *reached_end = true;
            break;
        }
        if (st != PCD_OK) {
            on_report(v, true, pcd_reader_error(r));
            if (all && pcd_reader_recover(r, NULL) == PCD_OK) continue;
            break;
        }
        if (rec.depth > 0) (*records)++;
        if (v->cctx) v->ops->record(v->cctx, &rec, on_report, v);
    }
}

static PyObject *do_validate(PyObject *what, const common_opts *co)
{
    pcdpy_open_opts o = { co->format, co->max_memory, co->threads != 0, true };
    pcdpy_src *src = pcdpy_src_open(what, &o);
    if (!src) return NULL;
    const pcd_format *f = pcdpy_src_format(src);
    const pcd_ext *ext = pcd_ext_find(f->name);
    vstate v;
    memset(&v, 0, sizeof v);
    if (ext && ext->check) {
        /* the checks read the records' values: decode instead (nothing was read yet) */
        pcdpy_src_reader(src)->validate_only = false;
        pcd_reader_set_count_only(pcdpy_src_reader(src), ext->check->count_only); /* what they only count */
        v.ops = ext->check;
        v.cctx = calloc(1, ext->check->ctx_size ? ext->check->ctx_size : 1);
        if (!v.cctx) {
            pcdpy_src_close(src);
            return PyErr_NoMemory();
        }
        ext->check->init(v.cctx, pcdpy_src_alloc(src));
    }
    uint64_t records = 0;
    bool reached_end = false;
    pcdpy_src_release(src);
    validate_run(src, co->all != 0, &v, &records, &reached_end);
    if (v.cctx) {
        if (reached_end && v.ops->finish) v.ops->finish(v.cctx, on_report, &v);
        if (v.ops->fini) v.ops->fini(v.cctx);
        free(v.cctx);
    }
    pcdpy_src_acquire(src);
    PyObject *res = NULL, *errors = PyList_New(0), *warnings = PyList_New(0);
    const char *name = pcdpy_src_name(src);
    if (pcdpy_src_reraise(src) || !errors || !warnings) goto done;
    if (v.oom) {
        PyErr_NoMemory();
        goto done;
    }
    for (size_t i = 0; i < v.n; i++) {
        bool err = v.p[i].is_error || co->strict;
        PyObject *x;
        if (err) {
            x = pcdpy_damage_exc(&v.p[i].e, name, records);
        } else {
            x = PyUnicode_FromFormat("%s: warning: %s", name, v.p[i].e.message);
        }
        if (!x || PyList_Append(err ? errors : warnings, x) < 0) {
            Py_XDECREF(x);
            goto done;
        }
        Py_DECREF(x);
    }
    bool valid = PyList_Size(errors) == 0;
    if (!valid && !co->all) {
        PyObject *first = PyList_GetItem(errors, 0);
        PyObject_SetAttrString(first, "errors", errors);
        PyObject_SetAttrString(first, "warnings", warnings);
        PyErr_SetObject((PyObject *)Py_TYPE(first), first);
        goto done;
    }
    PyObject *types = PyImport_ImportModule("types");
    PyObject *ns = types ? PyObject_GetAttrString(types, "SimpleNamespace") : NULL;
    Py_XDECREF(types);
    if (!ns) goto done;
    PyObject *kw = Py_BuildValue("{s:O,s:K,s:O,s:O,s:s,s:s}", "valid", valid ? Py_True : Py_False, "records",
                                 (unsigned long long)records, "errors", errors, "warnings", warnings, "format",
                                 f->name, "version", f->version);
    if (kw) res = PyObject_Call(ns, pcdpy.empty_tuple, kw);
    Py_XDECREF(kw);
    Py_DECREF(ns);
done:
    Py_XDECREF(errors);
    Py_XDECREF(warnings);
    free(v.p);
    pcdpy_src_close(src);
    return res;
}

PyObject *pcdpy_validate(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "source", "format", "all", "strict", "max_memory", "threads", NULL };
    PyObject *what, *mm = NULL;
    common_opts co = { NULL, 0, 0, 1, 0 };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z$ppOp:validate", kwlist, &what, &co.format, &co.all, &co.strict,
                                     &mm, &co.threads))
        return NULL;
    if (pcdpy_parse_size(mm, &co.max_memory) < 0) return NULL;
    return do_validate(what, &co);
}

/* A fresh source on what this Reader opened (for validate and profile): its own, when nothing
 * was read yet; else the path again, or the file object from its start. */
static pcdpy_src *fresh_source(Reader *R, bool validate_only)
{
    if (reader_busy(R)) return NULL;
    if (!R->touched && !R->pending && !R->ahead && !validate_only) {
        pcdpy_src *s = R->src;
        R->src = NULL;
        R->stopped = R->ended = true;
        return s;
    }
    bool is_path = PyUnicode_Check(R->what) || PyBytes_Check(R->what) || PyObject_HasAttrString(R->what, "__fspath__");
    if (!is_path) {
        PyObject *r = PyObject_CallMethod(R->what, "seek", "i", 0);
        if (!r) {
            PyErr_Clear();
            pcdpy_fail(pcdpy.UsageError, "%s: this file object was read already and cannot seek to its start: "
                                         "open it again", pcdpy_src_name(R->src));
            return NULL;
        }
        Py_DECREF(r);
    }
    pcdpy_open_opts o = R->opts;
    o.validate_only = validate_only;
    return pcdpy_src_open(R->what, &o);
}

static PyObject *reader_validate(PyObject *self, PyObject *args, PyObject *kw)
{
    Reader *R = (Reader *)self;
    static char *kwlist[] = { "all", "strict", NULL };
    common_opts co = { R->opts.format, R->all, 0, R->opts.threads, R->opts.max_memory };
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pp:validate", kwlist, &co.all, &co.strict)) return NULL;
    if (reader_busy(R)) return NULL;
    bool is_path = PyUnicode_Check(R->what) || PyBytes_Check(R->what) || PyObject_HasAttrString(R->what, "__fspath__");
    if (!is_path) {
        if (R->touched || R->pending || R->ahead) {
            PyObject *r = PyObject_CallMethod(R->what, "seek", "i", 0);
            if (!r) return NULL;
            Py_DECREF(r);
        } else {
            /* nothing read: the bytes the detection peeked at are in our source; use a new one
             * from the start if the object can seek, else this one's reader as it is */
            PyObject *r = PyObject_CallMethod(R->what, "seek", "i", 0);
            if (!r) return PyErr_Clear(), pcdpy_fail(pcdpy.UsageError, "validate() of a file object that "
                                                                        "cannot seek: use profcodec.validate(f)");
            Py_DECREF(r);
        }
    }
    pcdpy_src_close(R->src);
    R->src = NULL;
    R->stopped = R->ended = true;
    Py_CLEAR(R->pending);
    Py_CLEAR(R->ahead);
    PyObject *res = do_validate(R->what, &co);
    return res;
}

static PyObject *profile_with(Reader *R, PyObject *args, PyObject *kw, const pcd_filter_opts *fo)
{
    static char *kwlist[] = { "times", "metric", NULL };
    PyObject *times = NULL;
    const char *metric = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$z:profile", kwlist, &times, &metric)) return NULL;
    pcdpy_src *src = fresh_source(R, false);
    if (!src) return NULL;
    Py_CLEAR(R->pending);
    Py_CLEAR(R->ahead);
    PyObject *p = pcdpy_profile_of(src, times, R->all, metric, fo);
    pcdpy_src_close(src);
    /* what it was read from, for Profile.filter() and Profile.top() */
    if (p && !PyDict_Check(p) && PyObject_SetAttrString(p, "_source", R->what) < 0) Py_CLEAR(p);
    return p;
}

static PyObject *reader_profile(PyObject *self, PyObject *args, PyObject *kw)
{
    /* the grouping and filter keywords (python/filters.c), then profile's own */
    PyObject *keep = PyList_New(0), *rest = NULL;
    pcd_filter_opts fo;
    PyObject *res = NULL;
    if (keep && pcdpy_filters_take(kw, &rest, &fo, keep) == 0) res = profile_with((Reader *)self, args, rest, &fo);
    Py_XDECREF(rest);
    Py_XDECREF(keep);
    return res;
}

/* ---- the type ------------------------------------------------------------------------------------ */

static PyObject *reader_close(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Reader *R = (Reader *)self;
    if (R->busy) {
        PyErr_SetString(PyExc_RuntimeError, "this Reader is being read by another thread");
        return NULL;
    }
    pcdpy_src_close(R->src);
    R->src = NULL;
    R->stopped = true;
    R->n_ents = R->pos = 0;
    Py_CLEAR(R->pending);
    Py_CLEAR(R->ahead);
    Py_RETURN_NONE;
}

static void reader_dealloc(PyObject *self)
{
    Reader *R = (Reader *)self;
    PyTypeObject *tp = Py_TYPE(self);
    pcdpy_src_close(R->src);
    Py_XDECREF(R->what);
    Py_XDECREF(R->pending);
    Py_XDECREF(R->header);
    Py_XDECREF(R->ahead);
    Py_XDECREF(R->meta_pairs);
    Py_XDECREF(R->damage);
    free(R->ents);
    while (R->chunks) {
        chunk *c = R->chunks;
        R->chunks = c->next;
        free(c);
    }
    PyObject_Free(self);
    Py_DECREF(tp);
}

static PyObject *reader_iter(PyObject *self)
{
    Py_INCREF(self);
    return self;
}

static PyObject *reader_enter(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    Py_INCREF(self);
    return self;
}

static PyObject *reader_exit(PyObject *self, PyObject *args)
{
    (void)args;
    PyObject *r = reader_close(self, NULL);
    if (!r) return NULL;
    Py_DECREF(r);
    Py_RETURN_FALSE;
}

static const pcd_format *reader_format_of(Reader *R)
{
    if (R->src) return pcdpy_src_format(R->src);
    return NULL;
}

static PyObject *get_format(PyObject *self, void *c)
{
    (void)c;
    const pcd_format *f = reader_format_of((Reader *)self);
    if (!f) return pcdpy_fail(PyExc_ValueError, "this Reader is closed");
    return PyUnicode_FromString(f->name);
}

static PyObject *get_version(PyObject *self, void *c)
{
    (void)c;
    const pcd_format *f = reader_format_of((Reader *)self);
    if (!f) return pcdpy_fail(PyExc_ValueError, "this Reader is closed");
    return PyUnicode_FromString(f->version);
}

static PyObject *get_title(PyObject *self, void *c)
{
    (void)c;
    const pcd_format *f = reader_format_of((Reader *)self);
    if (!f) return pcdpy_fail(PyExc_ValueError, "this Reader is closed");
    return PyUnicode_FromString(f->title);
}

static PyObject *get_schema(PyObject *self, void *c)
{
    (void)c;
    const pcd_format *f = reader_format_of((Reader *)self);
    if (!f) return pcdpy_fail(PyExc_ValueError, "this Reader is closed");
    pcdpy_fmt *F = pcdpy_fmt_of(f);
    Py_INCREF(F->module);
    return F->module;
}

static PyObject *get_header(PyObject *self, void *c)
{
    (void)c;
    PyObject *r = root_record((Reader *)self);
    Py_XINCREF(r);
    return r;
}

/* Reads ahead, for .metadata, the metadata records that follow the root: made now, handed out
 * by iteration later. Stops at the first other record, at damage or at the end (iteration then
 * meets the damage as it would have). 0, or -1 with an exception. */
static int read_metadata_ahead(Reader *R)
{
    while (!R->meta_done) {
        if (R->pos < R->n_ents) {
            const entry *e = &R->ents[R->pos];
            if (e->cls->root || e->cls->gen->meta_key < 0 || e->cls->gen->meta_value < 0) {
                R->meta_done = true;
                break;
            }
            if (!R->ahead && !(R->ahead = PyList_New(0))) return -1;
            PyObject *o = make(R, e);
            if (!o) return -1;
            R->pos++;
            R->records--; /* counted when iteration hands it out */
            int rc = PyList_Append(R->ahead, o);
            Py_DECREF(o);
            if (rc < 0) return -1;
            continue;
        }
        if (R->stopped || R->failed || R->ended) break;
        if (reader_busy(R) || next_batch(R, 64) < 0) return -1;
    }
    return 0;
}

static PyObject *get_metadata(PyObject *self, void *c)
{
    (void)c;
    Reader *R = (Reader *)self;
    PyObject *r = root_record(R);
    if (!r) return NULL;
    PyObject *d = PyObject_CallMethod(r, "to_dict", NULL);
    if (!d) return NULL;
    /* the header's fields: what dump's first line says beyond format and version */
    static const char *const drop[] = { "_kind", "_format", "_version", "_byte_order", "_offset" };
    for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
        if (PyDict_GetItemString(d, drop[i]) && PyDict_DelItemString(d, drop[i]) < 0) return Py_DECREF(d), NULL;
    /* then the metadata records that follow it (a later pair of one key wins) */
    if (R->src && read_metadata_ahead(R) < 0) return Py_DECREF(d), NULL;
    for (Py_ssize_t i = 0; R->meta_pairs && i < PyList_Size(R->meta_pairs); i++) {
        PyObject *kv = PyList_GetItem(R->meta_pairs, i);
        if (PyDict_SetItem(d, PyTuple_GetItem(kv, 0), PyTuple_GetItem(kv, 1)) < 0) return Py_DECREF(d), NULL;
    }
    return d;
}

static PyObject *get_records(PyObject *self, void *c)
{
    (void)c;
    return PyLong_FromUnsignedLongLong(((Reader *)self)->records);
}

static PyObject *get_damage(PyObject *self, void *c)
{
    (void)c;
    Reader *R = (Reader *)self;
    if (!R->damage) return PyList_New(0);
    return PyList_GetSlice(R->damage, 0, PyList_Size(R->damage));
}

static PyObject *get_name(PyObject *self, void *c)
{
    (void)c;
    Reader *R = (Reader *)self;
    Py_INCREF(R->what);
    return R->what;
}

static PyMethodDef reader_methods[] = {
    { "close", reader_close, METH_NOARGS, "close()\n--\n\nCloses the input." },
    { "__enter__", reader_enter, METH_NOARGS, NULL },
    { "__exit__", reader_exit, METH_VARARGS, NULL },
    { "validate", (PyCFunction)(void (*)(void))reader_validate, METH_VARARGS | METH_KEYWORDS,
      "validate(all=False, strict=False)\n--\n\n"
      "Checks the whole input as `profcodec validate` does (the schema's checks and the format's "
      "checks above the bytes). Returns a namespace (valid, records, errors, warnings, format, "
      "version). Invalid input raises the first error as DamagedInput (with .errors: all of them) "
      "unless all=True, which goes past damage it can skip and returns the errors instead." },
    { "profile", (PyCFunction)(void (*)(void))reader_profile, METH_VARARGS | METH_KEYWORDS,
      "profile(times=False, *, metric=None, granularity=None, focus=None, ignore=None, hide=None, show=None, "
      "prune_from=None, show_from=None, tag=None, thread=None, from_=None, until=None, trim_path=None)\n--\n\n"
      "The input imported into the profile model: a Profile with strings, frames, stacks, threads, "
      "sample types, metadata, and the samples as columns (memoryviews NumPy takes without a copy). "
      "times=True: one row per sample with its own time (else a run of identical samples may be one "
      "row with a count)." },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef reader_getset[] = {
    { "format", get_format, NULL, "The format's name (\"mojo\").", NULL },
    { "version", get_version, NULL, "The format version (\"3\").", NULL },
    { "title", get_title, NULL, "The format's title (\"Austin MOJO\").", NULL },
    { "schema", get_schema, NULL, "The module of the format version's classes (profcodec.mojo_v3).", NULL },
    { "header", get_header, NULL, "The root record (the file's header), the first record iteration gives.", NULL },
    { "metadata", get_metadata, NULL,
      "The header's fields, as to_dict() gives them, then the key-value pairs of the metadata records "
      "that follow the header (MOJO's austin, interval, mode...).", NULL },
    { "records", get_records, NULL, "How many records were handed out so far (the root too).", NULL },
    { "damage", get_damage, NULL, "The DamagedInput of each damaged place skipped (all=True).", NULL },
    { "source", get_name, NULL, "What was opened.", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot reader_slots[] = {
    { Py_tp_doc, (void *)"A profile or trace being read (profcodec.open): iterate it for its records." },
    { Py_tp_dealloc, reader_dealloc },
    { Py_tp_iter, reader_iter },
    { Py_tp_iternext, reader_next },
    { Py_tp_methods, reader_methods },
    { Py_tp_getset, reader_getset },
    { 0, NULL },
};

int pcdpy_reader_init_type(PyObject *module)
{
    static char name[128];
    snprintf(name, sizeof name, "%s.Reader", pcdpy.reg->package);
    static PyType_Spec spec = { NULL, (int)sizeof(Reader), 0, Py_TPFLAGS_DEFAULT, reader_slots };
    spec.name = name;
    pcdpy.reader_type = (PyTypeObject *)PyType_FromSpec(&spec);
    if (!pcdpy.reader_type) return -1;
    Py_INCREF(pcdpy.reader_type);
    if (PyModule_AddObject(module, "Reader", (PyObject *)pcdpy.reader_type) < 0) {
        Py_DECREF(pcdpy.reader_type);
        return -1;
    }
    return 0;
}
