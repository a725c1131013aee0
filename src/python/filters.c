/* python/filters.c: the grouping and filter keywords of convert(), top() and Reader.profile()
 * (issue 25; model/transform.h): granularity, focus, ignore, hide, show, prune_from, tag,
 * thread, from_, until, trim_path, show_from, taken out of the keywords before the function's own parsing. */
#include "internal.h"

#include "model/transform.h"

static const char *const filter_keys[] = { "granularity", "focus", "ignore", "hide", "show", "prune_from",
                                           "tag", "thread", "from_", "until", "trim_path", "show_from", NULL };

/* The UTF-8 of a str (or the text of an int, for thread ids), kept alive in keep. */
static const char *text_of(PyObject *v, PyObject *keep, const char *key)
{
    PyObject *s = PyLong_Check(v) ? PyObject_Str(v) : (Py_INCREF(v), v);
    if (!s) return NULL;
    if (!PyUnicode_Check(s)) {
        Py_DECREF(s);
        pcdpy_fail(pcdpy.UsageError, "%s= takes a str", key);
        return NULL;
    }
    /* the limited API: the UTF-8 bytes as an object of their own, kept */
    PyObject *b = PyUnicode_AsUTF8String(s);
    Py_DECREF(s);
    if (!b) return NULL;
    if (PyList_Append(keep, b) < 0) {
        Py_DECREF(b);
        return NULL;
    }
    Py_DECREF(b);
    return PyBytes_AsString(b);
}

/* One value or a sequence of them (str, or int for thread) into list[*n]. */
static int texts_of(PyObject *v, PyObject *keep, const char *key, const char **list, size_t *n)
{
    if (PyUnicode_Check(v) || PyLong_Check(v)) {
        const char *t = text_of(v, keep, key);
        if (!t) return -1;
        list[(*n)++] = t;
        return 0;
    }
    PyObject *seq = PySequence_List(v);
    if (!seq) return -1;
    Py_ssize_t k = PyList_Size(seq);
    if (k > PCD_FILTER_MAX) {
        Py_DECREF(seq);
        pcdpy_fail(pcdpy.UsageError, "%s= takes at most %d values", key, PCD_FILTER_MAX);
        return -1;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        const char *t = text_of(PyList_GetItem(seq, i), keep, key);
        if (!t) {
            Py_DECREF(seq);
            return -1;
        }
        list[(*n)++] = t;
    }
    Py_DECREF(seq);
    return 0;
}

static int seconds_of(PyObject *v, const char *key, double *out, bool *has)
{
    double d = PyFloat_AsDouble(v);
    if (d == -1.0 && PyErr_Occurred()) return -1;
    *out = d;
    *has = true;
    (void)key;
    return 0;
}

int pcdpy_filters_take(PyObject *kw, PyObject **rest, pcd_filter_opts *fo, PyObject *keep)
{
    memset(fo, 0, sizeof *fo);
    *rest = NULL;
    if (!kw) return 0;
    *rest = PyDict_Copy(kw);
    if (!*rest) return -1;
    for (size_t i = 0; filter_keys[i]; i++) {
        const char *key = filter_keys[i];
        PyObject *v = PyDict_GetItemString(*rest, key); /* borrowed; kept alive by keep below */
        if (!v) continue;
        if (PyList_Append(keep, v) < 0) return -1;
        if (PyDict_DelItemString(*rest, key) < 0) return -1;
        if (v == Py_None) continue;
        const char *t = NULL;
        int rc = 0;
        switch (i) {
        case 0:
            if (!(t = text_of(v, keep, key))) return -1;
            rc = pcd_granularity_parse(t);
            if (rc < 0) {
                pcdpy_fail(pcdpy.UsageError, "granularity='%s': expected function, line or address", t);
                return -1;
            }
            fo->granularity = (pcd_granularity)rc;
            rc = 0;
            break;
        case 1: case 2: case 3: case 4: case 5:
            if (!(t = text_of(v, keep, key))) return -1;
            if (i == 1) fo->focus = t;
            else if (i == 2) fo->ignore = t;
            else if (i == 3) fo->hide = t;
            else if (i == 4) fo->show = t;
            else fo->prune_from = t;
            break;
        case 6: rc = texts_of(v, keep, key, fo->tags, &fo->n_tags); break;
        case 7: rc = texts_of(v, keep, key, fo->threads, &fo->n_threads); break;
        case 8: rc = seconds_of(v, key, &fo->from, &fo->has_from); break;
        case 9: rc = seconds_of(v, key, &fo->until, &fo->has_until); break;
        case 11:
            if (!(t = text_of(v, keep, key))) return -1;
            fo->show_from = t;
            break;
        default: rc = texts_of(v, keep, key, fo->trim_paths, &fo->n_trim_paths); break;
        }
        if (rc < 0) return -1;
    }
    char msg[512];
    if (pcd_filter_opts_check(fo, msg, sizeof msg) != PCD_OK) {
        pcdpy_fail(pcdpy.UsageError, "%s", msg);
        return -1;
    }
    return 0;
}
