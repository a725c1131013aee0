/* python/value.c: Python values to JSON (jansson) for constructors and encode, which then fill
 * structs with the JSON Lines reader `profcodec encode` uses; the exceptions; memory sinks. */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/jsonl_read.h"

/* ---- memory sinks ------------------------------------------------------------------------------ */

pcd_status pcdpy_membuf_write(void *ud, const uint8_t *p, size_t n)
{
    pcdpy_membuf *m = ud;
    if (n > SIZE_MAX - m->len) return PCD_E_NOMEM;
    if (m->len + n > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + n) {
            if (cap > SIZE_MAX / 2) return PCD_E_NOMEM;
            cap *= 2;
        }
        uint8_t *q = realloc(m->p, cap);
        if (!q) return PCD_E_NOMEM;
        m->p = q;
        m->cap = cap;
    }
    if (n) memcpy(m->p + m->len, p, n);
    m->len += n;
    return PCD_OK;
}

pcd_status pcdpy_membuf_patch(void *ud, uint64_t off, const uint8_t *p, size_t n)
{
    pcdpy_membuf *m = ud;
    if (off > m->len || n > m->len - off) return PCD_E_IO;
    memcpy(m->p + off, p, n);
    return PCD_OK;
}

/* ---- text ----------------------------------------------------------------------------------------- */

const char *pcdpy_utf8(PyObject *s, PyObject **keep)
{
    *keep = PyUnicode_AsUTF8String(s);
    return *keep ? PyBytes_AsString(*keep) : NULL;
}

int pcdpy_warn_obj(PyObject *o)
{
    PyObject *s = PyObject_Str(o);
    if (!s) return -1;
    PyObject *keep;
    const char *t = pcdpy_utf8(s, &keep);
    Py_DECREF(s);
    int rc = t ? PyErr_WarnEx(pcdpy.InputWarning, t, 1) : -1;
    Py_XDECREF(keep);
    return rc;
}

PyObject *pcdpy_text(const uint8_t *p, size_t n)
{
    if (pcd_utf8_valid(p, n)) return PyUnicode_FromStringAndSize((const char *)p, (Py_ssize_t)n);
    return PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n);
}

/* ---- exceptions ------------------------------------------------------------------------------------- */

PyObject *pcdpy_fail(PyObject *exc, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    PyErr_SetString(exc, msg);
    return NULL;
}

int pcdpy_warn(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return PyErr_WarnEx(pcdpy.InputWarning, msg, 1);
}

void pcdpy_err_capture(pcdpy_err *c, const pcd_error *e)
{
    memset(c, 0, sizeof *c);
    c->status = e->status;
    c->offset = e->offset;
    pcd_error_format(e, c->message, sizeof c->message);
    pcd_error_path(e, c->path, sizeof c->path);
    snprintf(c->expected, sizeof c->expected, "%s", e->expected ? e->expected : pcd_status_name(e->status));
    if (e->region) {
        c->has_region = true;
        c->region_offset = e->region_offset;
        snprintf(c->region, sizeof c->region, "%s", e->region);
    }
    /* what it found, as pcd_error_format writes it */
    c->has_found = true;
    char *b = c->found;
    size_t n = sizeof c->found;
    switch (e->found_kind) {
    case PCD_FOUND_UINT: snprintf(b, n, "%llu", (unsigned long long)e->found); break;
    case PCD_FOUND_INT: snprintf(b, n, "%lld", (long long)(int64_t)e->found); break;
    case PCD_FOUND_HEX: snprintf(b, n, "0x%02llx", (unsigned long long)e->found); break;
    case PCD_FOUND_END:
        snprintf(b, n, "end of data (%llu byte%s left)", (unsigned long long)e->found, e->found == 1 ? "" : "s");
        break;
    case PCD_FOUND_TEXT: snprintf(b, n, "%s", e->found_text ? e->found_text : "?"); break;
    case PCD_FOUND_NEG: snprintf(b, n, "-%llu", (unsigned long long)e->found); break;
    default: c->has_found = false;
    }
}

static int set_attr(PyObject *o, const char *name, PyObject *v)
{
    if (!v) return -1;
    int rc = PyObject_SetAttrString(o, name, v);
    Py_DECREF(v);
    return rc;
}

PyObject *pcdpy_damage_exc(const pcdpy_err *e, const char *file, uint64_t records)
{
    char line[1700];
    snprintf(line, sizeof line, "%s: %s", file ? file : "(input)", e->message);
    PyObject *cls = (e->status == PCD_E_LIMIT || e->status == PCD_E_NOMEM) ? pcdpy.LimitError : pcdpy.DamagedInput;
    PyObject *exc = PyObject_CallFunction(cls, "s", line);
    if (!exc) return NULL;
    if (set_attr(exc, "message", PyUnicode_FromString(e->message)) < 0 ||
        set_attr(exc, "file", file ? PyUnicode_DecodeFSDefault(file) : (Py_INCREF(Py_None), Py_None)) < 0 ||
        set_attr(exc, "offset", PyLong_FromUnsignedLongLong(e->offset)) < 0 ||
        set_attr(exc, "path", PyUnicode_FromString(e->path)) < 0 ||
        set_attr(exc, "expected", PyUnicode_FromString(e->expected)) < 0 ||
        set_attr(exc, "found", e->has_found ? PyUnicode_FromString(e->found) : (Py_INCREF(Py_None), Py_None)) < 0 ||
        set_attr(exc, "status", PyUnicode_FromString(pcd_status_name(e->status))) < 0 ||
        set_attr(exc, "region", e->has_region ? PyUnicode_FromString(e->region) : (Py_INCREF(Py_None), Py_None)) < 0 ||
        set_attr(exc, "region_offset", e->has_region ? PyLong_FromUnsignedLongLong(e->region_offset)
                                                     : (Py_INCREF(Py_None), Py_None)) < 0 ||
        set_attr(exc, "records", PyLong_FromUnsignedLongLong(records)) < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    return exc;
}

PyObject *pcdpy_damage_text(const char *msg, const char *file, uint64_t records)
{
    char line[1400];
    if (file) snprintf(line, sizeof line, "%s: %s", file, msg);
    else snprintf(line, sizeof line, "%s", msg);
    PyObject *exc = PyObject_CallFunction(pcdpy.DamagedInput, "s", line);
    if (!exc) return NULL;
    static const char *const none[] = { "offset", "path", "expected", "found", "status", "region", "region_offset" };
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        if (PyObject_SetAttrString(exc, none[i], Py_None) < 0) return Py_DECREF(exc), NULL;
    if (set_attr(exc, "message", PyUnicode_FromString(msg)) < 0 ||
        set_attr(exc, "file", file ? PyUnicode_DecodeFSDefault(file) : (Py_INCREF(Py_None), Py_None)) < 0 ||
        set_attr(exc, "records", PyLong_FromUnsignedLongLong(records)) < 0) {
        Py_DECREF(exc);
        return NULL;
    }
    return exc;
}

PyObject *pcdpy_raise_damage(const pcdpy_err *e, const char *file, uint64_t records)
{
    PyObject *exc = pcdpy_damage_exc(e, file, records);
    if (!exc) return NULL;
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return NULL;
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

bool pcdpy_fill(const pcd_jkind *k, PyObject *dict, void *dst, pcd_arena *arena)
{
    json_t *j = pcdpy_to_json(dict);
    if (!j) return false;
    char err[512];
    bool ok = pcd_jsonr_record(k, j, dst, arena, err, sizeof err);
    json_decref(j);
    if (!ok) pcdpy_fail(pcdpy.UsageError, "%s: %s", k->which >= 0 ? k->type->fields[k->which].name : k->type->name, err);
    return ok;
}
