/* python/encode.c: profcodec.encode(): records (objects, or dicts as to_dict() gives them) to a
 * file of their format, through the stream writer as `profcodec encode` does: sizes, counts
 * and offsets computed, offsets stored as data moved with the records they point into. */
#include "internal.h"

#include "io/io.h"
#include "io/jsonl_read.h"

static bool is_pathlike(PyObject *o)
{
    return PyUnicode_Check(o) || PyBytes_Check(o) || PyObject_HasAttrString(o, "__fspath__");
}

int pcdpy_out_open(pcdpy_out *o, PyObject *target)
{
    memset(o, 0, sizeof *o);
    o->target = target == Py_None ? NULL : target;
    pcd_alloc_init(&o->al, pcd_alloc_libc, NULL, 0);
    o->buf = malloc((size_t)1 << 20);
    if (!o->buf) return PyErr_NoMemory(), -1;
    pcd_ctx_init(&o->x, NULL);
    if (o->target && is_pathlike(o->target)) {
        PyObject *fs = NULL;
        if (!PyUnicode_FSConverter(o->target, &fs)) goto fail;
        char *name = strdup(PyBytes_AsString(fs));
        Py_DECREF(fs);
        if (!name) {
            PyErr_NoMemory();
            goto fail;
        }
        o->is_path = true;
        int rc = strcmp(name, "-") == 0 ? -1 : pcd_output_open(&o->file, name, NULL, &o->al);
        if (rc != 0) {
            if (strcmp(name, "-") == 0) pcdpy_fail(pcdpy.UsageError, "output '-': give sys.stdout.buffer instead");
            else PyErr_SetFromErrnoWithFilename(PyExc_OSError, name);
            free(name);
            goto fail;
        }
        /* (pcd_output keeps the name) */
        o->file_open = true;
        pcd_sink_init(&o->sink, o->buf, (size_t)1 << 20, pcd_output_write, pcd_output_patch, &o->file, &o->x);
        return 0;
    }
    if (o->target && !PyObject_HasAttrString(o->target, "write")) {
        pcdpy_fail(PyExc_TypeError, "output is a path, a binary file object or None");
        goto fail;
    }
    pcd_sink_init(&o->sink, o->buf, (size_t)1 << 20, pcdpy_membuf_write, pcdpy_membuf_patch, &o->mem, &o->x);
    return 0;
fail:
    free(o->buf);
    o->buf = NULL;
    return -1;
}

int pcdpy_out_open_parts(pcdpy_out *o, PyObject *target)
{
    memset(o, 0, sizeof *o);
    o->parts = true;
    o->target = target == Py_None ? NULL : target;
    pcd_alloc_init(&o->al, pcd_alloc_libc, NULL, 0);
    if (!o->target) return 0;
    if (!is_pathlike(o->target)) {
        pcdpy_fail(PyExc_TypeError, "this output is a directory of files: output is its path, or None for a dict of "
                                    "each file's bytes");
        return -1;
    }
    PyObject *fs = NULL;
    if (!PyUnicode_FSConverter(o->target, &fs)) return -1;
    int rc = pcd_outdir_open(&o->dir, PyBytes_AsString(fs), NULL, &o->al);
    if (rc != 0) {
        if (errno == EEXIST)
            pcdpy_fail(PyExc_FileExistsError, "%s: exists and is not an empty directory: not writing into it",
                       PyBytes_AsString(fs));
        else PyErr_SetFromErrnoWithFilename(PyExc_OSError, PyBytes_AsString(fs));
        Py_DECREF(fs);
        return -1;
    }
    Py_DECREF(fs);
    o->dir_open = true;
    return 0;
}

pcd_status pcdpy_out_part(void *ud, const char *name, pcd_sink **out)
{
    pcdpy_out *o = ud;
    if (!o->parts || o->n_parts == PCD_OUTDIR_MAX_PARTS) return PCD_E_INTERNAL;
    struct pcdpy_part *b = &o->part[o->n_parts];
    memset(b, 0, sizeof *b);
    b->buf = malloc((size_t)1 << 18);
    if (!b->buf) return PCD_E_NOMEM;
    if (strlen(name) >= sizeof b->name) {
        free(b->buf);
        b->buf = NULL;
        return PCD_E_INTERNAL;
    }
    strcpy(b->name, name); /* (the output's buffer may not outlive the call) */
    pcd_ctx_init(&b->x, NULL);
    if (o->dir_open) {
        pcd_output *f;
        if (pcd_outdir_part(&o->dir, name, &f) != 0) {
            free(b->buf);
            b->buf = NULL;
            return errno == ENOMEM ? PCD_E_NOMEM : PCD_E_IO;
        }
        pcd_sink_init(&b->sink, b->buf, (size_t)1 << 18, pcd_output_write, NULL, f, &b->x);
    } else {
        pcd_sink_init(&b->sink, b->buf, (size_t)1 << 18, pcdpy_membuf_write, pcdpy_membuf_patch, &b->mem, &b->x);
    }
    o->n_parts++;
    *out = &b->sink;
    return PCD_OK;
}

static void parts_free(pcdpy_out *o)
{
    for (size_t i = 0; i < o->n_parts; i++) {
        free(o->part[i].buf);
        free(o->part[i].mem.p);
        o->part[i].buf = NULL;
        o->part[i].mem.p = NULL;
    }
    o->n_parts = 0;
}

/* The parts' end: the directory renamed into place (None), or the dict of bytes. */
static PyObject *parts_commit(pcdpy_out *o)
{
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < o->n_parts && st == PCD_OK; i++) st = pcd_sink_flush(&o->part[i].sink);
    PyObject *res = NULL;
    if (o->dir_open) {
        PyObject *name = PyUnicode_DecodeFSDefault(o->dir.name);
        if (st != PCD_OK) {
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, name);
            pcd_outdir_abort(&o->dir);
        } else if (pcd_outdir_commit(&o->dir) != 0) {
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, name);
        } else {
            res = Py_None;
            Py_INCREF(res);
        }
        Py_XDECREF(name);
        o->dir_open = false;
    } else if (st != PCD_OK) {
        PyErr_NoMemory();
    } else if ((res = PyDict_New())) {
        for (size_t i = 0; i < o->n_parts; i++) {
            PyObject *b = PyBytes_FromStringAndSize(o->part[i].mem.p ? (const char *)o->part[i].mem.p : "",
                                                    (Py_ssize_t)o->part[i].mem.len);
            if (!b || PyDict_SetItemString(res, o->part[i].name, b) < 0) {
                Py_XDECREF(b);
                Py_CLEAR(res);
                break;
            }
            Py_DECREF(b);
        }
    }
    parts_free(o);
    return res;
}

void pcdpy_out_abort(pcdpy_out *o)
{
    if (o->parts) {
        if (o->dir_open) pcd_outdir_abort(&o->dir);
        o->dir_open = false;
        parts_free(o);
        return;
    }
    if (o->file_open) {
        char *name = (char *)o->file.name;
        pcd_output_abort(&o->file);
        free(name);
    }
    o->file_open = false;
    free(o->mem.p);
    o->mem.p = NULL;
    free(o->buf);
    o->buf = NULL;
}

/* Flushes and finishes: None for a path or a file object, the bytes for None. */
PyObject *pcdpy_out_commit(pcdpy_out *o)
{
    if (o->parts) return parts_commit(o);
    pcd_status st = pcd_sink_flush(&o->sink);
    PyObject *res = NULL;
    if (o->file_open) {
        char *name = (char *)o->file.name;
        if (st != PCD_OK || pcd_output_commit(&o->file) != 0) {
            PyErr_SetFromErrnoWithFilename(PyExc_OSError, name);
            pcd_output_abort(&o->file);
        } else {
            res = Py_None;
            Py_INCREF(res);
        }
        o->file_open = false;
        free(name);
    } else if (st != PCD_OK) {
        PyErr_NoMemory();
    } else if (!o->target) {
        res = PyBytes_FromStringAndSize(o->mem.p ? (const char *)o->mem.p : "", (Py_ssize_t)o->mem.len);
    } else {
        PyObject *mv = PyMemoryView_FromMemory(o->mem.p ? (char *)o->mem.p : (char *)"", (Py_ssize_t)o->mem.len,
                                               PyBUF_READ);
        PyObject *r = mv ? PyObject_CallMethod(o->target, "write", "O", mv) : NULL;
        Py_XDECREF(mv);
        if (r) {
            Py_DECREF(r);
            res = Py_None;
            Py_INCREF(res);
        }
    }
    free(o->mem.p);
    o->mem.p = NULL;
    free(o->buf);
    o->buf = NULL;
    return res;
}

/* ---- encode ------------------------------------------------------------------------------------ */

typedef struct enc {
    const pcd_format *f;
    pcd_writer w;
    bool started;
    pcd_alloc al;
    pcd_arena arena, root_arena;
    uint8_t *rec;                  /* a record's struct (the largest region record) */
    uint8_t *root;                 /* the root's, kept to the end (the writer reads it) */
    PyObject *root_obj;            /* or the root record object, kept */
    const char *byte_order;
    bool partial;
    uint64_t n;
} enc;

static int writer_fail(enc *e, const char *what)
{
    char msg[1024];
    pcd_error_format(pcd_writer_error(&e->w), msg, sizeof msg);
    pcdpy_fail(pcdpy.UsageError, "record %llu: cannot encode %s: %s", (unsigned long long)e->n, what, msg);
    return -1;
}

static int start(enc *e, const pcd_format *f, pcdpy_out *out, bool big)
{
    e->f = f;
    pcd_writer_open(&e->w, f, &out->sink, &e->al);
    if (e->byte_order) pcd_writer_set_big(&e->w, strcmp(e->byte_order, "big") == 0);
    else pcd_writer_set_big(&e->w, big);
    size_t need = f->root_size;
    for (uint32_t r = 0; r < f->n_regions; r++)
        if (f->regions[r]->record_size > need) need = f->regions[r]->record_size;
    e->rec = PyMem_Calloc(1, need ? need : 1);
    e->root = PyMem_Calloc(1, f->root_size ? f->root_size : 1);
    if (!e->rec || !e->root) return PyErr_NoMemory(), -1;
    e->started = true;
    return 0;
}

static PyObject *dict_str(PyObject *d, const char *key)
{
    PyObject *v = PyDict_GetItemString(d, key);
    return v && PyUnicode_Check(v) ? v : NULL;
}

static int encode_kind(enc *e, PyObject *d, pcdpy_out *out, const char *k);

static int encode_dict(enc *e, PyObject *d, pcdpy_out *out)
{
    PyObject *kind = dict_str(d, "_kind");
    if (!kind) return pcdpy_fail(pcdpy.UsageError, "record %llu: a dict without \"_kind\"", (unsigned long long)e->n), -1;
    PyObject *kkeep;
    const char *k = pcdpy_utf8(kind, &kkeep);
    if (!k) return -1;
    int rc = encode_kind(e, d, out, k);
    Py_DECREF(kkeep);
    return rc;
}

static int encode_kind(enc *e, PyObject *d, pcdpy_out *out, const char *k)
{
    if (strcmp(k, "stopped") == 0 || strcmp(k, "damage") == 0) {
        if (e->partial) return 0;
        return pcdpy_fail(pcdpy.UsageError,
                          "record %llu: the records stopped at damage (a \"%s\" record): they lack part of their "
                          "file; give partial=True to write the records that are there anyway",
                          (unsigned long long)e->n, k), -1;
    }
    if (!e->started) {
        const pcd_format *f = e->f;
        PyObject *jf = dict_str(d, "_format"), *jv = dict_str(d, "_version");
        if (!f && jf) {
            PyObject *spec = jv ? PyUnicode_FromFormat("%U:%U", jf, jv) : PyUnicode_FromFormat("%U", jf), *keep = NULL;
            const char *t = spec ? pcdpy_utf8(spec, &keep) : NULL;
            f = t ? pcdpy_find_format(t) : NULL;
            Py_XDECREF(spec);
            Py_XDECREF(keep);
            if (!f) return -1;
        }
        if (!f) return pcdpy_fail(pcdpy.UsageError, "the first record does not name a format; give format="), -1;
        PyObject *bo = dict_str(d, "_byte_order");
        bool big = bo && PyUnicode_CompareWithASCIIString(bo, "big") == 0;
        if (start(e, f, out, big) < 0) return -1;
        bool is_root = strcmp(k, f->root->name) == 0;
        if (is_root) {
            pcd_jkind rk = { NULL, f->root, -1 };
            if (!pcdpy_fill(&rk, d, e->root, &e->root_arena)) return -1;
        }
        if (pcd_writer_root(&e->w, e->root) != PCD_OK) return writer_fail(e, "the root");
        if (is_root) return 0;
    }
    pcd_jkind jk;
    if (!pcd_jsonr_kind(e->f, k, &jk) || !jk.rd)
        return pcdpy_fail(pcdpy.UsageError, "record %llu: \"%s\" is not a record kind of %s %s", (unsigned long long)e->n,
                          k, e->f->name, e->f->version), -1;
    pcd_arena_reset(&e->arena);
    if (!pcdpy_fill(&jk, d, e->rec, &e->arena)) return -1;
    PyObject *off = PyDict_GetItemString(d, "_offset");
    if (off && PyLong_Check(off)) {
        long long o = PyLong_AsLongLong(off);
        if (o >= 0) pcd_writer_set_origin(&e->w, (uint64_t)o);
        else PyErr_Clear();
    }
    if (pcd_writer_record(&e->w, jk.rd, e->rec) != PCD_OK) return writer_fail(e, k);
    return 0;
}

static int encode_rec(enc *e, pcdpy_rec *r, pcdpy_out *out)
{
    const pcdpy_cls *c = r->cls;
    if (!c || !c->kind || r->owner)
        return pcdpy_fail(pcdpy.UsageError, "record %llu: a %s is a value inside a record, not a record",
                          (unsigned long long)e->n, c ? c->gen->name : "Record"), -1;
    const pcd_format *f = c->fmt->gen->format;
    if (!e->started) {
        if (e->f && e->f != f)
            return pcdpy_fail(pcdpy.UsageError, "record %llu: a %s %s record, to be encoded as %s %s",
                              (unsigned long long)e->n, f->name, f->version, e->f->name, e->f->version), -1;
        if (start(e, f, out, (r->flags & PCDPY_BIG) != 0) < 0) return -1;
        if (c->root) {
            e->root_obj = (PyObject *)r;
            Py_INCREF(r);
            if (pcd_writer_root(&e->w, r->data) != PCD_OK) return writer_fail(e, "the root");
            return 0;
        }
        if (pcd_writer_root(&e->w, e->root) != PCD_OK) return writer_fail(e, "the root");
    }
    if (f != e->f)
        return pcdpy_fail(pcdpy.UsageError, "record %llu: a %s %s record in a %s %s file", (unsigned long long)e->n,
                          f->name, f->version, e->f->name, e->f->version), -1;
    if (c->root) return pcdpy_fail(pcdpy.UsageError, "record %llu: a second root record", (unsigned long long)e->n), -1;
    const pcd_region_desc *rd = r->rd ? r->rd : c->rd;
    if (r->flags & PCDPY_HAS_OFFSET) pcd_writer_set_origin(&e->w, r->offset);
    if (pcd_writer_record(&e->w, rd, r->data) != PCD_OK) return writer_fail(e, c->kind);
    return 0;
}

PyObject *pcdpy_encode(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = { "records", "output", "format", "byte_order", "partial", "max_memory", NULL };
    PyObject *records, *target = Py_None, *mm = NULL;
    const char *format = NULL, *byte_order = NULL;
    int partial = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|Oz$zpO:encode", kwlist, &records, &target, &format, &byte_order,
                                     &partial, &mm))
        return NULL;
    if (byte_order && strcmp(byte_order, "big") != 0 && strcmp(byte_order, "little") != 0)
        return pcdpy_fail(pcdpy.UsageError, "byte_order is 'big' or 'little'");
    size_t max_memory = (size_t)2 << 30;
    if (pcdpy_parse_size(mm, &max_memory) < 0) return NULL;
    enc e;
    memset(&e, 0, sizeof e);
    e.byte_order = byte_order;
    e.partial = partial != 0;
    if (format && !(e.f = pcdpy_find_format(format))) return NULL;
    PyObject *it = PyObject_GetIter(records);
    if (!it) return NULL;
    pcdpy_out out;
    if (pcdpy_out_open(&out, target) < 0) {
        Py_DECREF(it);
        return NULL;
    }
    pcd_alloc_init(&e.al, pcd_alloc_libc, NULL, max_memory);
    pcd_arena_init(&e.arena, NULL, 0, &e.al, 0);
    pcd_arena_init(&e.root_arena, NULL, 0, &e.al, 0);
    int rc = 0;
    PyObject *item;
    while (rc == 0 && (item = PyIter_Next(it))) {
        e.n++;
        if (pcdpy_is_rec(item)) rc = encode_rec(&e, (pcdpy_rec *)item, &out);
        else if (PyDict_Check(item)) rc = encode_dict(&e, item, &out);
        else rc = (pcdpy_fail(PyExc_TypeError, "record %llu: records are record objects or dicts",
                              (unsigned long long)e.n), -1);
        Py_DECREF(item);
    }
    if (rc == 0 && PyErr_Occurred()) rc = -1;
    if (rc == 0 && !e.started) rc = (pcdpy_fail(pcdpy.UsageError, "no records to encode"), -1);
    if (rc == 0 && pcd_writer_finish(&e.w) != PCD_OK) {
        char msg[1024];
        pcd_error_format(pcd_writer_error(&e.w), msg, sizeof msg);
        pcdpy_fail(pcdpy.UsageError, "the records end without those that close a %s %s file (were they cut short?): "
                                     "cannot finish the output: %s", e.f->name, e.f->version, msg);
        rc = -1;
    }
    if (e.started) pcd_writer_close(&e.w);
    PyObject *res = NULL;
    if (rc == 0) res = pcdpy_out_commit(&out);
    else pcdpy_out_abort(&out);
    pcd_arena_free(&e.arena);
    pcd_arena_free(&e.root_arena);
    PyMem_Free(e.rec);
    PyMem_Free(e.root);
    Py_XDECREF(e.root_obj);
    Py_DECREF(it);
    return res;
}
