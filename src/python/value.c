/* python/value.c: what every file of the module uses: memory sinks, text, warnings, the
 * exceptions, and sizes (max_memory). It calls no other file of the module. */
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

/* ---- sizes ---------------------------------------------------------------------------------- */

int pcdpy_parse_size(PyObject *o, size_t *out)
{
    if (!o || o == Py_None) return 0;
    if (PyLong_Check(o)) {
        unsigned long long v = PyLong_AsUnsignedLongLong(o);
        if (PyErr_Occurred()) return -1;
        *out = (size_t)v;
        return 0;
    }
    PyObject *b = PyUnicode_Check(o) ? PyUnicode_AsUTF8String(o) : NULL;
    if (!b) {
        if (!PyErr_Occurred()) pcdpy_fail(pcdpy.UsageError, "max_memory is a number of bytes or a text like '512M'");
        return -1;
    }
    const char *s = PyBytes_AsString(b);
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned long long mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    case 't': case 'T': mul = 1ull << 40; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') end++;
    bool ok = end != s && !*end && !(mul > 1 && v > ~0ull / mul);
    Py_DECREF(b);
    if (!ok) {
        PyErr_Format(pcdpy.UsageError, "max_memory: not a size: %S", o);
        return -1;
    }
    *out = (size_t)(v * mul);
    return 0;
}
