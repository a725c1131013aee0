/* python/record.c: profcodec.Record, the base of every generated class: attribute values,
 * to_dict() (the dump's JSON object), equality and hashing (by that object, offsets left
 * out), repr, and constructors that take fields by keyword (as encode reads a dump's line):
 * Python values to JSON (jansson), which then fill structs with the JSON Lines reader
 * `profcodec encode` uses (pcdpy_to_json, pcdpy_fill). */
#include "internal.h"

#include <math.h>

#include "common/json_mem.h"
#include "io/jsonl_read.h"

/* ---- making objects --------------------------------------------------------------------------- */

static pcdpy_rec *rec_alloc(PyTypeObject *tp, size_t payload)
{
    if (payload > UINT32_MAX) {
        pcdpy_fail(pcdpy.LimitError, "a record of %zu bytes is too large to hold", payload);
        return NULL;
    }
    pcdpy_rec *r = PyObject_Malloc(PCDPY_PAYLOAD_OFF + payload);
    if (!r) {
        PyErr_NoMemory();
        return NULL;
    }
    PyObject_Init((PyObject *)r, tp);
    r->cls = NULL;
    r->base = r->data = NULL;
    r->dtype = NULL;
    r->rd = NULL;
    r->owner = NULL;
    r->offset = 0;
    r->flags = 0;
    r->payload = (uint32_t)payload;
    return r;
}

/* Where the class's fields are: a case's inside its union. */
static const void *fields_base(const pcdpy_cls *cls, const pcd_type *dt, const void *data)
{
    if (cls->gen->what == PCDPY_VALUE || !dt->is_union || !dt->tag_key) return data;
    uint32_t which = *(const uint32_t *)data;
    if (which >= dt->n_fields) return data;
    return (const uint8_t *)data + dt->fields[which].offset;
}

PyObject *pcdpy_rec_from_copy(const pcdpy_cls *cls, const pcd_type *dt, const uint8_t *copy, size_t bytes,
                              size_t rsize, const pcd_region_desc *rd, uint64_t offset, uint32_t flags)
{
    pcdpy_rec *r = rec_alloc(cls->py, bytes);
    if (!r) return NULL;
    uint8_t *p = PCDPY_PAYLOAD(r);
    if (bytes == ((rsize + 7) & ~(size_t)7)) memcpy(p, copy, rsize); /* nothing outside the struct */
    else pcdpy_copy(dt, copy, rsize, p); /* its strings and arrays come along, its pointers to them */
    r->cls = cls;
    r->data = p;
    r->dtype = dt;
    r->base = fields_base(cls, dt, p);
    r->rd = rd;
    r->offset = offset;
    r->flags = flags;
    return (PyObject *)r;
}

PyObject *pcdpy_rec_new(const pcdpy_cls *cls, const pcd_type *dt, const void *src, size_t rsize,
                        const pcd_region_desc *rd, uint64_t offset, uint32_t flags)
{
    size_t bytes = pcdpy_copy_size(dt, src, rsize);
    if (bytes == (size_t)-1)
        return pcdpy_fail(pcdpy.UsageError, "%s: a field of a kind this binding cannot hold (rebuild profcodec)",
                          cls->gen->name);
    pcdpy_rec *r = rec_alloc(cls->py, bytes);
    if (!r) return NULL;
    uint8_t *p = PCDPY_PAYLOAD(r);
    pcdpy_copy(dt, src, rsize, p);
    r->cls = cls;
    r->data = p;
    r->dtype = dt;
    r->base = fields_base(cls, dt, p);
    r->rd = rd;
    r->offset = offset;
    r->flags = flags;
    return (PyObject *)r;
}

PyObject *pcdpy_rec_view(const pcdpy_cls *cls, PyObject *owner, const void *p, const pcd_type *dt)
{
    pcdpy_rec *r = rec_alloc(cls->py, 0);
    if (!r) return NULL;
    r->cls = cls;
    r->data = p;
    r->dtype = dt;
    r->base = fields_base(cls, dt, p);
    Py_INCREF(owner);
    r->owner = owner;
    return (PyObject *)r;
}

static void rec_dealloc(PyObject *o)
{
    pcdpy_rec *r = (pcdpy_rec *)o;
    PyTypeObject *tp = Py_TYPE(o);
    Py_XDECREF(r->owner);
    PyObject_Free(o);
    Py_DECREF(tp);
}

/* ---- attribute values --------------------------------------------------------------------------- */

static PyObject *json_of_field(const pcd_field *fd, const void *base);

static PyObject *int_value(const pcd_field *fd, uint8_t k, const void *p)
{
    int64_t v;
    bool sg = false;
    switch (k) {
    case PCD_K_U8: v = *(const uint8_t *)p; break;
    case PCD_K_U16: v = *(const uint16_t *)p; break;
    case PCD_K_U32: v = *(const uint32_t *)p; break;
    case PCD_K_U64: v = (int64_t)*(const uint64_t *)p; break;
    case PCD_K_S8: v = *(const int8_t *)p; sg = true; break;
    case PCD_K_S16: v = *(const int16_t *)p; sg = true; break;
    case PCD_K_S32: v = *(const int32_t *)p; sg = true; break;
    default: v = *(const int64_t *)p; sg = true; break;
    }
    if (fd && (fd->flags & PCD_F_SENTINEL) && v == fd->sentinel) Py_RETURN_NONE;
    if (fd && fd->enumt)
        for (uint32_t i = 0; i < fd->enumt->n_items; i++)
            if (fd->enumt->items[i].value == v) return PyUnicode_FromString(fd->enumt->items[i].name);
    return sg ? PyLong_FromLongLong(v) : PyLong_FromUnsignedLongLong((uint64_t)v);
}

static PyObject *kind_value(PyObject *owner, uint8_t k, const pcd_field *fd, const pcd_type *t, const uint8_t *p)
{
    switch (k) {
    case PCD_K_BOOL: return PyBool_FromLong(*(const bool *)p);
    case PCD_K_U8: case PCD_K_U16: case PCD_K_U32: case PCD_K_U64:
    case PCD_K_S8: case PCD_K_S16: case PCD_K_S32: case PCD_K_S64:
        return int_value(fd, k, p);
    case PCD_K_F32: return PyFloat_FromDouble((double)*(const float *)p);
    case PCD_K_F64: return PyFloat_FromDouble(*(const double *)p);
    case PCD_K_STRING: {
        const pcd_bytes *b = (const pcd_bytes *)p;
        return pcdpy_text(b->ptr, b->len);
    }
    case PCD_K_BYTES: {
        const pcd_bytes *b = (const pcd_bytes *)p;
        return PyBytes_FromStringAndSize((const char *)b->ptr, (Py_ssize_t)b->len);
    }
    case PCD_K_MOJO: {
        const pcd_mojo_int *m = (const pcd_mojo_int *)p;
        PyObject *v = PyLong_FromUnsignedLongLong(m->mag);
        if (!v || !m->neg) return v;
        PyObject *n = PyNumber_Negative(v);
        Py_DECREF(v);
        return n;
    }
    case PCD_K_STRUCT: {
        const pcdpy_cls *c = t ? pcdpy_class_of(t, -1) : NULL;
        if (c) return pcdpy_rec_view(c, owner, p, t);
        break;
    }
    case PCD_K_UNION: {
        if (!t) break;
        uint32_t which = *(const uint32_t *)p;
        if (which >= t->n_fields) Py_RETURN_NONE;
        if (!t->tag_key) return pcdpy_get_value(owner, &t->fields[which], p); /* chosen by other fields: bare */
        const pcdpy_cls *c = pcdpy_class_of(t, (int32_t)which);
        if (c) return pcdpy_rec_view(c, owner, p, t); /* a case's class over its union */
        break;
    }
    case PCD_K_REGION: Py_RETURN_NONE;
    case PCD_K_PB_FIELD: {
        /* a protobuf field the schema does not name: as the dump writes it */
        const pcd_pb_field *f = (const pcd_pb_field *)p;
        static const char *const wire[] = { "varint", "i64", "len", NULL, NULL, "i32" };
        const char *w = f->wire < 6 && wire[f->wire] ? wire[f->wire] : "len";
        PyObject *v = f->wire == PCD_PB_LEN ? PyBytes_FromStringAndSize((const char *)f->bytes.ptr, (Py_ssize_t)f->bytes.len)
                                            : PyLong_FromUnsignedLongLong(f->value);
        if (!v) return NULL;
        PyObject *d = Py_BuildValue("{s:I,s:N}", "field", (unsigned)f->number, w, v);
        return d;
    }
    }
    /* a kind this runtime does not know: what dump writes for it */
    pcd_field tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.name = "";
    tmp.kind = k;
    tmp.type = t;
    if (fd) tmp = *fd, tmp.offset = 0;
    return json_of_field(&tmp, p);
}

PyObject *pcdpy_get_value(PyObject *owner, const pcd_field *fd, const void *base)
{
    const uint8_t *b = base;
    if ((fd->flags & PCD_F_OPTIONAL) && !*(const bool *)(b + fd->present)) Py_RETURN_NONE;
    if (fd->kind != PCD_K_ARRAY) return kind_value(owner, fd->kind, fd, fd->type, b + fd->offset);
    const uint8_t *items = *(const uint8_t *const *)(b + fd->offset);
    size_t n = *(const size_t *)(b + fd->aux);
    size_t es;
    switch (fd->elem_kind) {
    case PCD_K_U8: case PCD_K_S8: case PCD_K_BOOL: es = 1; break;
    case PCD_K_U16: case PCD_K_S16: es = 2; break;
    case PCD_K_U32: case PCD_K_S32: case PCD_K_F32: es = 4; break;
    case PCD_K_U64: case PCD_K_S64: case PCD_K_F64: es = 8; break;
    case PCD_K_BYTES: case PCD_K_STRING: es = sizeof(pcd_bytes); break;
    case PCD_K_MOJO: es = sizeof(pcd_mojo_int); break;
    default: es = fd->type ? fd->type->size : 0;
    }
    if (!es || (Py_ssize_t)n < 0) return json_of_field(fd, base);
    PyObject *tup = PyTuple_New((Py_ssize_t)n);
    if (!tup) return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *v = kind_value(owner, fd->elem_kind, NULL, fd->type, items + i * es);
        if (!v) {
            Py_DECREF(tup);
            return NULL;
        }
        PyTuple_SetItem(tup, (Py_ssize_t)i, v);
    }
    return tup;
}

PyObject *pcdpy_get(PyObject *self, void *closure)
{
    pcdpy_rec *r = (pcdpy_rec *)self;
    uintptr_t k = (uintptr_t)closure;
    if (!r->cls || k >= r->cls->n_attrs) return pcdpy_fail(PyExc_AttributeError, "no such attribute");
    return pcdpy_get_value(r->owner ? r->owner : self, r->cls->attrs[k], r->base);
}

/* ---- JSON: to_dict(), equality ------------------------------------------------------------------ */

static PyObject *sink_bytes(pcd_sink *s, pcdpy_membuf *mb, pcd_status st)
{
    if (st == PCD_OK) st = pcd_sink_flush(s);
    if (st != PCD_OK) {
        free(mb->p);
        if (st == PCD_E_NOMEM) return PyErr_NoMemory();
        return pcdpy_fail(pcdpy.UsageError, "this record cannot be written as JSON: %s", pcd_status_name(st));
    }
    PyObject *b = PyBytes_FromStringAndSize((const char *)mb->p, (Py_ssize_t)mb->len);
    free(mb->p);
    return b;
}

void pcdpy_rec_as_record(const pcdpy_rec *r, pcd_record *out)
{
    memset(out, 0, sizeof *out);
    out->type = r->dtype;
    out->data = r->data;
    out->region = r->rd;
    out->offset = r->offset;
    out->depth = r->cls->root ? 0 : 1;
    out->big = (r->flags & PCDPY_BIG) != 0;
}

PyObject *pcdpy_rec_json(pcdpy_rec *r, bool with_offset)
{
    uint8_t buf[4096];
    pcdpy_membuf mb = { NULL, 0, 0 };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, pcdpy_membuf_write, NULL, &mb, &x);
    pcd_status st;
    bool record = r->cls->kind && !r->owner && (r->cls->root || r->rd || r->cls->rtype);
    if (record) {
        pcd_record rec;
        pcdpy_rec_as_record(r, &rec);
        if (!with_offset) rec.offset = 0;
        st = pcd_json_record(&s, r->cls->fmt->gen->format, &rec);
        /* (without the newline) */
        if (st == PCD_OK && s.len) s.len--;
    } else {
        pcd_field fd;
        memset(&fd, 0, sizeof fd);
        fd.name = "";
        fd.kind = r->dtype->is_union ? PCD_K_UNION : PCD_K_STRUCT;
        fd.type = r->dtype;
        st = pcd_json_value(&s, &fd, r->data);
    }
    return sink_bytes(&s, &mb, st);
}

static PyObject *json_of_field(const pcd_field *fd, const void *base)
{
    uint8_t buf[1024];
    pcdpy_membuf mb = { NULL, 0, 0 };
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink s;
    pcd_sink_init(&s, buf, sizeof buf, pcdpy_membuf_write, NULL, &mb, &x);
    PyObject *b = sink_bytes(&s, &mb, pcd_json_value(&s, fd, base));
    if (!b) return NULL;
    PyObject *v = PyObject_CallFunctionObjArgs(pcdpy.json_loads, b, NULL);
    Py_DECREF(b);
    return v;
}

static PyObject *rec_to_dict(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    pcdpy_rec *r = (pcdpy_rec *)self;
    if (!r->cls) return pcdpy_fail(pcdpy.UsageError, "a Record of no class");
    bool offset = (r->flags & PCDPY_HAS_OFFSET) != 0;
    PyObject *b = pcdpy_rec_json(r, offset);
    if (!b) return NULL;
    PyObject *d = PyObject_CallFunctionObjArgs(pcdpy.json_loads, b, NULL);
    Py_DECREF(b);
    if (d && !offset && !r->cls->root && PyDict_Check(d) && PyDict_GetItemString(d, "_offset") &&
        r->cls->kind && !r->owner) {
        /* made here, not read: it stood nowhere */
        if (PyDict_DelItemString(d, "_offset") < 0) Py_CLEAR(d);
    }
    return d;
}

static PyObject *rec_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !pcdpy_is_rec(b) || Py_TYPE(a) != Py_TYPE(b)) Py_RETURN_NOTIMPLEMENTED;
    pcdpy_rec *x = (pcdpy_rec *)a, *y = (pcdpy_rec *)b;
    if (!x->cls || !y->cls) Py_RETURN_NOTIMPLEMENTED;
    PyObject *jx = pcdpy_rec_json(x, false);
    if (!jx) return NULL;
    PyObject *jy = pcdpy_rec_json(y, false);
    if (!jy) {
        Py_DECREF(jx);
        return NULL;
    }
    PyObject *res = PyObject_RichCompare(jx, jy, op);
    Py_DECREF(jx);
    Py_DECREF(jy);
    return res;
}

static Py_hash_t rec_hash(PyObject *self)
{
    pcdpy_rec *r = (pcdpy_rec *)self;
    if (!r->cls) return (Py_hash_t)((uintptr_t)self >> 4);
    PyObject *j = pcdpy_rec_json(r, false);
    if (!j) return -1;
    Py_hash_t h = PyObject_Hash(j);
    Py_DECREF(j);
    return h;
}

static PyObject *rec_repr(PyObject *self)
{
    pcdpy_rec *r = (pcdpy_rec *)self;
    if (!r->cls) return PyUnicode_FromString("Record()");
    PyObject *parts = PyList_New(0);
    if (!parts) return NULL;
    for (uint32_t i = 0; i < r->cls->n_attrs; i++) {
        PyObject *v = pcdpy_get(self, (void *)(uintptr_t)i);
        PyObject *s = v ? PyUnicode_FromFormat("%s=%R", r->cls->names[i], v) : NULL;
        Py_XDECREF(v);
        if (!s || PyList_Append(parts, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(parts);
            return NULL;
        }
        Py_DECREF(s);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
    Py_XDECREF(sep);
    Py_DECREF(parts);
    if (!joined) return NULL;
    PyObject *res = PyUnicode_FromFormat("%s(%U)", r->cls->gen->name, joined);
    Py_DECREF(joined);
    return res;
}

static PyObject *rec_sizeof(PyObject *self, PyObject *noargs)
{
    (void)noargs;
    return PyLong_FromSize_t(PCDPY_PAYLOAD_OFF + ((pcdpy_rec *)self)->payload);
}

/* The kind dump names a record or a union's case by. */
static PyObject *get_kind(PyObject *self, void *closure)
{
    (void)closure;
    pcdpy_rec *r = (pcdpy_rec *)self;
    if (!r->cls) Py_RETURN_NONE;
    const pcd_type *t = r->dtype;
    if (t->is_union && t->tag_key) {
        uint32_t which = *(const uint32_t *)r->data;
        if (which < t->n_fields) return PyUnicode_FromString(t->fields[which].name);
    }
    if (r->cls->kind && !r->owner) return PyUnicode_FromString(r->cls->root ? t->name : t->name);
    Py_RETURN_NONE;
}

/* The tag a value of a case with several tags was read with (None: a case of one tag). */
static PyObject *get_tag(PyObject *self, void *closure)
{
    (void)closure;
    pcdpy_rec *r = (pcdpy_rec *)self;
    const pcd_type *t = r->dtype;
    if (!r->cls || !t || !t->is_union || !t->tag_key) Py_RETURN_NONE;
    uint32_t which = *(const uint32_t *)r->data;
    if (which >= t->n_fields || !(t->fields[which].flags & PCD_F_TAG_MULTI)) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(*(const uint64_t *)((const uint8_t *)r->data + 8));
}

static PyObject *get_offset(PyObject *self, void *closure)
{
    (void)closure;
    pcdpy_rec *r = (pcdpy_rec *)self;
    if (!(r->flags & PCDPY_HAS_OFFSET)) Py_RETURN_NONE;
    return PyLong_FromUnsignedLongLong(r->offset);
}

/* ---- constructors ------------------------------------------------------------------------------------ */

static PyObject *pcdpy_zero(void)
{
    static PyObject *zero;
    if (!zero) zero = PyLong_FromLong(0);
    return zero;
}

static const pcdpy_cls *class_of_pytype(PyTypeObject *tp)
{
    for (size_t i = 0; i < pcdpy.n_fmts; i++)
        for (uint32_t k = 0; k < pcdpy.fmts[i].n_classes; k++)
            if (pcdpy.fmts[i].classes[k].py == tp) return &pcdpy.fmts[i].classes[k];
    return NULL;
}

/* Must a constructor be given this field? */
static bool required(const pcd_field *fd)
{
    if (fd->flags & (PCD_F_DERIVED | PCD_F_OPTIONAL | PCD_F_OMIT_EMPTY)) return false;
    /* a union chosen by other fields whose case has no fields needs no value */
    if (fd->kind == PCD_K_UNION && fd->type && !fd->type->tag_key) return false;
    return true;
}

/* Derived fields (sizes, counts, offsets: the encoder computes them) given as numbers are kept
 * as given, as a record read holds what its file says. */
static int set_derived(const pcdpy_cls *c, PyObject *kw, uint8_t *rec, const pcd_jkind *k)
{
    if (!kw || c->gen->what == PCDPY_VALUE) return 0;
    uint8_t *base = rec;
    if (k->type->is_union && k->which >= 0) base += k->type->fields[k->which].offset;
    for (uint32_t i = 0; i < c->n_attrs; i++) {
        const pcd_field *fd = c->attrs[i];
        if (!(fd->flags & PCD_F_DERIVED)) continue;
        PyObject *v = PyDict_GetItemString(kw, c->names[i]);
        if (!v || !PyLong_Check(v)) continue;
        uint8_t *p = base + fd->offset;
        if (fd->flags & PCD_F_OPTIONAL) *(bool *)(base + fd->present) = true;
        if (fd->kind == PCD_K_MOJO) {
            pcd_mojo_int *m = (pcd_mojo_int *)p;
            int neg = PyObject_RichCompareBool(v, pcdpy_zero(), Py_LT);
            PyObject *a = neg ? PyNumber_Negative(v) : (Py_INCREF(v), v);
            if (!a) return -1;
            m->mag = PyLong_AsUnsignedLongLong(a);
            m->neg = neg > 0;
            Py_DECREF(a);
            if (PyErr_Occurred()) return -1;
            continue;
        }
        bool sg = fd->kind >= PCD_K_S8 && fd->kind <= PCD_K_S64;
        unsigned long long u = 0;
        long long si = 0;
        if (sg) si = PyLong_AsLongLong(v);
        else u = PyLong_AsUnsignedLongLong(v);
        if (PyErr_Occurred()) return -1;
        switch (fd->kind) {
        case PCD_K_U8: *(uint8_t *)p = (uint8_t)u; break;
        case PCD_K_U16: *(uint16_t *)p = (uint16_t)u; break;
        case PCD_K_U32: *(uint32_t *)p = (uint32_t)u; break;
        case PCD_K_U64: *(uint64_t *)p = (uint64_t)u; break;
        case PCD_K_S8: *(int8_t *)p = (int8_t)si; break;
        case PCD_K_S16: *(int16_t *)p = (int16_t)si; break;
        case PCD_K_S32: *(int32_t *)p = (int32_t)si; break;
        case PCD_K_S64: *(int64_t *)p = (int64_t)si; break;
        default: break;
        }
    }
    return 0;
}

/* The union a class is a case of, when its values say their case (a record kind of a union, an
 * inline struct case, a value case), and which case; NULL otherwise. */
static const pcd_type *case_of(const pcdpy_cls *c, int32_t *which)
{
    *which = -1;
    if (c->kind) {
        *which = c->rwhich;
        return c->rwhich >= 0 ? c->rtype : NULL;
    }
    if (c->gen->what == PCDPY_VALUE) {
        *which = c->gen->which;
        return c->gen->type;
    }
    if (c->gen->base < 0 || c->fmt->classes[c->gen->base].gen->what != PCDPY_UNION) return NULL;
    const pcd_type *u = c->fmt->classes[c->gen->base].gen->type;
    for (uint32_t k = 0; k < u->n_fields; k++)
        if (u->fields[k].kind == PCD_K_STRUCT && u->fields[k].type == c->type) {
            *which = (int32_t)k;
            return u;
        }
    return NULL;
}

static PyObject *rec_new(PyTypeObject *tp, PyObject *args, PyObject *kw)
{
    const pcdpy_cls *c = class_of_pytype(tp);
    if (!c || c->gen->what == PCDPY_UNION)
        return pcdpy_fail(PyExc_TypeError, "%s cannot be made: make one of its cases",
                          c ? c->gen->name : "Record");
    if (args && PyTuple_Size(args) > 0)
        return pcdpy_fail(PyExc_TypeError, "%s() takes its fields by keyword only", c->gen->name);
    int32_t cwhich;
    const pcd_type *cunion = case_of(c, &cwhich);
    /* a case with several tags (or a default case): which tag, _tag= (what to_dict() says) */
    bool multi = cunion && (cunion->fields[cwhich].flags & PCD_F_TAG_MULTI);
    PyObject *tag = kw ? PyDict_GetItemString(kw, "_tag") : NULL;
    if (multi && !tag)
        return pcdpy_fail(PyExc_TypeError, "%s() missing the keyword argument '_tag' (the case has several tags)",
                          c->gen->name);
    if (tag && !multi)
        return pcdpy_fail(PyExc_TypeError, "%s() got an unexpected keyword argument '_tag' (its case has one tag)",
                          c->gen->name);
    PyObject *obj = PyDict_New();
    if (!obj) return NULL;
    if (tag && PyDict_SetItemString(obj, "_tag", tag) < 0) {
        Py_DECREF(obj);
        return NULL;
    }
    Py_ssize_t given = kw ? PyDict_Size(kw) : 0, used = tag ? 1 : 0;
    /* a protobuf message's layout and unknown fields, as to_dict() gives them */
    static const char *const pb_keys[] = { "_layout", "_unknown" };
    bool pb = c->type->layout_at || (cunion && cunion->layout_at);
    for (size_t i = 0; kw && pb && i < 2; i++) {
        PyObject *v = PyDict_GetItemString(kw, pb_keys[i]);
        if (!v) continue;
        used++;
        if (PyDict_SetItemString(obj, pb_keys[i], v) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    for (uint32_t i = 0; i < c->n_attrs; i++) {
        const pcd_field *fd = c->attrs[i];
        PyObject *v = kw ? PyDict_GetItemString(kw, c->names[i]) : NULL;
        if (v) used++;
        if (!v || (v == Py_None && (fd->flags & (PCD_F_OPTIONAL | PCD_F_DERIVED)))) {
            if (c->gen->what != PCDPY_VALUE && required(fd)) {
                Py_DECREF(obj);
                return pcdpy_fail(PyExc_TypeError, "%s() missing the keyword argument '%s'", c->gen->name,
                                  c->names[i]);
            }
            if (!v) continue;
            if (fd->flags & PCD_F_OPTIONAL) continue;
        }
        const char *key = c->gen->what == PCDPY_VALUE ? "_value" : fd->name;
        if (PyDict_SetItemString(obj, key, v) < 0) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    if (kw && PyDict_GetItemString(kw, "_kind")) used++;
    if (used != given) {
        /* name the keyword that is not a field */
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(kw, &pos, &k, &v)) {
            PyObject *keep = NULL;
            const char *name = pcdpy_utf8(k, &keep);
            bool known = name && (strcmp(name, "_kind") == 0 || strcmp(name, "_tag") == 0 ||
                                  (pb && (strcmp(name, "_layout") == 0 || strcmp(name, "_unknown") == 0)));
            for (uint32_t i = 0; name && i < c->n_attrs && !known; i++) known = strcmp(name, c->names[i]) == 0;
            Py_XDECREF(keep);
            if (!known) {
                Py_DECREF(obj);
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument %R", c->gen->name, k);
                return NULL;
            }
        }
    }
    pcd_jkind k;
    PyObject *kind = kw ? PyDict_GetItemString(kw, "_kind") : NULL;
    if (kind) {
        /* a struct that is the case of several kinds (MoarVM's filemeta, snapmeta): which one */
        PyObject *keep = NULL;
        const char *kn = PyUnicode_Check(kind) ? pcdpy_utf8(kind, &keep) : NULL;
        bool ok = kn && c->kind && pcd_jsonr_kind(c->fmt->gen->format, kn, &k) &&
                  (c->gen->what == PCDPY_VALUE ? k.type == c->gen->type && k.which == c->gen->which
                   : k.which >= 0              ? k.type->fields[k.which].type == c->type
                                               : k.type == c->type);
        Py_XDECREF(keep);
        if (!ok) {
            Py_DECREF(obj);
            PyErr_Clear();
            PyErr_Format(pcdpy.UsageError, "%s: _kind=%R is not a kind of record it makes", c->gen->name, kind);
            return NULL;
        }
    } else if (c->kind) {
        k.rd = c->rd;
        k.type = c->rtype;
        k.which = c->rwhich;
    } else if (cunion) {
        /* a case of a union whose values say their case: a value of the union, as it is in a record */
        k.rd = NULL;
        k.type = cunion;
        k.which = cwhich;
    } else {
        k.rd = NULL;
        k.type = c->gen->type;
        k.which = -1;
    }
    size_t sz = k.type->size;
    uint8_t *tmp = PyMem_Malloc(sz ? sz : 1);
    if (!tmp) {
        Py_DECREF(obj);
        return PyErr_NoMemory();
    }
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, 0);
    pcd_arena arena;
    pcd_arena_init(&arena, NULL, 0, &al, 0);
    PyObject *res = NULL;
    if (pcdpy_fill(&k, obj, tmp, &arena) && set_derived(c, kw, tmp, &k) == 0) {
        if (c->kind) {
            res = pcdpy_rec_new(c, k.type, tmp, pcdpy_record_size(k.type, k.which), k.rd, 0, 0);
        } else {
            /* a value: its own copy, as a record of no region */
            const pcdpy_cls *vc = c;
            size_t bytes = pcdpy_copy_size(k.type, tmp, sz);
            pcdpy_rec *r = bytes == (size_t)-1 ? NULL : rec_alloc(tp, bytes);
            if (r) {
                pcdpy_copy(k.type, tmp, sz, PCDPY_PAYLOAD(r));
                r->cls = vc;
                r->data = PCDPY_PAYLOAD(r);
                r->dtype = k.type;
                r->base = fields_base(vc, k.type, r->data);
                res = (PyObject *)r;
            } else if (bytes == (size_t)-1) {
                pcdpy_fail(pcdpy.UsageError, "%s: a field of a kind this binding cannot hold", c->gen->name);
            }
        }
    }
    pcd_arena_free(&arena);
    PyMem_Free(tmp);
    Py_DECREF(obj);
    return res;
}

/* ---- the type ----------------------------------------------------------------------------------- */

static PyMethodDef rec_methods[] = {
    { "to_dict", rec_to_dict, METH_NOARGS,
      "to_dict()\n--\n\nThe record as `profcodec dump` writes it: the same keys (_kind, _offset, the "
      "fields) and values (integers above 2**63-1 as strings, bytes and text that is not UTF-8 as "
      "{'hex': ...}, NaN and infinities as strings, enum names, null for absent values)." },
    { "__sizeof__", rec_sizeof, METH_NOARGS, NULL },
    { NULL, NULL, 0, NULL },
};

static PyGetSetDef rec_getset[] = {
    { "_offset", get_offset, NULL, "Where the record starts in its input (None: not read from one).", NULL },
    { "_tag", get_tag, NULL, "The tag of a value of a union case that has several (None: its case has one).", NULL },
    { "_kind", get_kind, NULL, "The kind dump names it by: a record's kind, a union case's name (None: a nested "
                               "struct).", NULL },
    { NULL, NULL, NULL, NULL, NULL },
};

static PyType_Slot rec_slots[] = {
    { Py_tp_doc, (void *)"The base of every record class (profcodec.<format>_<version>.<Class>): immutable, "
                         "its fields as attributes, to_dict() as `profcodec dump` writes it; equal when "
                         "their dumps are (offsets aside)." },
    { Py_tp_new, rec_new },
    { Py_tp_dealloc, rec_dealloc },
    { Py_tp_repr, rec_repr },
    { Py_tp_richcompare, rec_richcompare },
    { Py_tp_hash, rec_hash },
    { Py_tp_methods, rec_methods },
    { Py_tp_getset, rec_getset },
    { 0, NULL },
};

int pcdpy_record_init_type(PyObject *module)
{
    char name[128];
    snprintf(name, sizeof name, "%s.Record", pcdpy.reg->package);
    static char name_store[128];
    memcpy(name_store, name, sizeof name);
    static PyType_Spec spec = { NULL, PCDPY_BASICSIZE, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, rec_slots };
    spec.name = name_store;
    pcdpy.record_type = (PyTypeObject *)PyType_FromSpec(&spec);
    if (!pcdpy.record_type) return -1;
    Py_INCREF(pcdpy.record_type);
    if (PyModule_AddObject(module, "Record", (PyObject *)pcdpy.record_type) < 0) {
        Py_DECREF(pcdpy.record_type);
        return -1;
    }
    return 0;
}

/* ---- Python values as JSON ------------------------------------------------------------------------- */

static const char hexd[] = "0123456789abcdef";

static json_t *hex_object(const uint8_t *p, size_t n)
{
    char *h = PyMem_Malloc(2 * n + 1);
    if (!h) return (json_t *)PyErr_NoMemory();
    for (size_t i = 0; i < n; i++) {
        h[2 * i] = hexd[p[i] >> 4];
        h[2 * i + 1] = hexd[p[i] & 15];
    }
    json_t *o = json_pack("{s:s%}", "hex", h, 2 * n);
    PyMem_Free(h);
    if (!o) PyErr_NoMemory();
    return o;
}

static json_t *float_json(double d)
{
    if (isnan(d)) {
        uint64_t bits = pcd_f64_bits(d);
        if (bits == UINT64_C(0x7ff8000000000000)) return json_string("NaN");
        char b[40];
        snprintf(b, sizeof b, "NaN:0x%016llx", (unsigned long long)bits);
        return json_string(b);
    }
    if (isinf(d)) return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static json_t *to_json(PyObject *o, int depth)
{
    if (depth > 64) return pcdpy_fail(pcdpy.UsageError, "values nested more than 64 deep"), NULL;
    if (o == Py_None) return json_null();
    if (o == Py_True) return json_true();
    if (o == Py_False) return json_false();
    if (PyLong_Check(o)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (!overflow) return json_integer((json_int_t)v);
        /* beyond 64 bits signed: the decimal string dump writes */
        PyObject *s = PyObject_Str(o), *keep = NULL;
        const char *t = s ? pcdpy_utf8(s, &keep) : NULL;
        json_t *j = t ? json_string(t) : NULL;
        Py_XDECREF(s);
        Py_XDECREF(keep);
        return j;
    }
    if (PyFloat_Check(o)) return float_json(PyFloat_AsDouble(o));
    if (PyUnicode_Check(o)) {
        PyObject *b = PyUnicode_AsUTF8String(o);
        if (!b) return NULL;
        json_t *j = json_stringn(PyBytes_AsString(b), (size_t)PyBytes_Size(b));
        Py_DECREF(b);
        if (!j) PyErr_NoMemory();
        return j;
    }
    if (PyBytes_Check(o)) return hex_object((const uint8_t *)PyBytes_AsString(o), (size_t)PyBytes_Size(o));
    if (PyByteArray_Check(o)) return hex_object((const uint8_t *)PyByteArray_AsString(o), (size_t)PyByteArray_Size(o));
    if (pcdpy_is_rec(o)) {
        pcdpy_rec *r = (pcdpy_rec *)o;
        PyObject *b = pcdpy_rec_json(r, (r->flags & PCDPY_HAS_OFFSET) != 0);
        if (!b) return NULL;
        json_error_t je;
        json_t *j = json_loadb(PyBytes_AsString(b), (size_t)PyBytes_Size(b), JSON_ALLOW_NUL, &je);
        Py_DECREF(b);
        if (!j) return pcdpy_fail(pcdpy.UsageError, "a record's JSON did not read back: %s", je.text), NULL;
        return j;
    }
    if (PyDict_Check(o)) {
        json_t *obj = json_object();
        if (!obj) return (json_t *)PyErr_NoMemory();
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(o, &pos, &k, &v)) {
            PyObject *keep = NULL;
            const char *key = PyUnicode_Check(k) ? pcdpy_utf8(k, &keep) : NULL;
            if (!key) {
                json_decref(obj);
                if (!PyErr_Occurred()) pcdpy_fail(pcdpy.UsageError, "a record's keys are strings");
                return NULL;
            }
            json_t *jv = to_json(v, depth + 1);
            if (!jv || json_object_set_new(obj, key, jv) < 0) {
                Py_DECREF(keep);
                json_decref(obj);
                if (!PyErr_Occurred()) PyErr_NoMemory();
                return NULL;
            }
            Py_DECREF(keep);
        }
        return obj;
    }
    if (PyList_Check(o) || PyTuple_Check(o)) {
        json_t *arr = json_array();
        if (!arr) return (json_t *)PyErr_NoMemory();
        Py_ssize_t n = PyList_Check(o) ? PyList_Size(o) : PyTuple_Size(o);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = PyList_Check(o) ? PyList_GetItem(o, i) : PyTuple_GetItem(o, i);
            json_t *jv = v ? to_json(v, depth + 1) : NULL;
            if (!jv || json_array_append_new(arr, jv) < 0) {
                json_decref(arr);
                if (!PyErr_Occurred()) PyErr_NoMemory();
                return NULL;
            }
        }
        return arr;
    }
    /* other sequences (array.array, memoryview of numbers) and mappings, through their lists */
    if (PyObject_HasAttrString(o, "keys")) {
        PyObject *d = PyObject_CallFunctionObjArgs((PyObject *)&PyDict_Type, o, NULL);
        if (!d) return NULL;
        json_t *j = to_json(d, depth + 1);
        Py_DECREF(d);
        return j;
    }
    PyObject *it = PyObject_GetIter(o);
    if (it) {
        Py_DECREF(it);
        PyObject *l = PySequence_List(o);
        if (!l) return NULL;
        json_t *j = to_json(l, depth + 1);
        Py_DECREF(l);
        return j;
    }
    PyErr_Clear();
    PyObject *tn = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__name__");
    if (tn) PyErr_Format(pcdpy.UsageError, "a value of type %S cannot be a field's", tn);
    Py_XDECREF(tn);
    return NULL;
}

json_t *pcdpy_to_json(PyObject *o) { return to_json(o, 0); }

/* The dict's JSON is made, read and freed on the arena's allocator (common/json_mem.h), so that
 * encode's max_memory covers it: when the allocator refuses jansson, LimitError. */
bool pcdpy_fill(const pcd_jkind *k, PyObject *dict, void *dst, pcd_arena *arena)
{
    pcd_json_mem_scope js;
    pcd_json_mem_enter(&js, arena->al);
    json_t *j = pcdpy_to_json(dict);
    bool refused = pcd_json_mem_refused();   /* past a refusal, j is dropped (common/json_mem.h) */
    char err[512];
    bool ok = j && !refused && pcd_jsonr_record(k, j, dst, arena, err, sizeof err);
    json_decref(j);
    pcd_json_mem_leave(&js);
    const char *what = k->which >= 0 ? k->type->fields[k->which].name : k->type->name;
    if (refused) {
        PyErr_Clear();   /* a NULL of jansson's read as PyErr_NoMemory: it was the cap */
        pcdpy_fail(pcdpy.LimitError, "%s: out of memory for the record's JSON (raise max_memory)", what);
        ok = false;
    } else if (j && !ok) {
        pcdpy_fail(pcdpy.UsageError, "%s: %s", what, err);
    }
    return ok;
}
