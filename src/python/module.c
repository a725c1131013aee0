/* python/module.c: the extension module: the classes made from the generated tables (one
 * submodule per format version), the exceptions, and the module's functions (the map from
 * C types to classes and the formats: types.c). */
#include "internal.h"

#include "common/json_mem.h"
#include "io/jsonl_read.h"

/* ---- making the classes -------------------------------------------------------------------- */

static const PyGetSetDef *spec_getset(const PyType_Spec *spec)
{
    for (const PyType_Slot *s = spec->slots; s->slot; s++)
        if (s->slot == Py_tp_getset) return s->pfunc;
    return NULL;
}

static const pcd_field *field_named(const pcd_type *t, const char *name)
{
    for (uint32_t i = 0; i < t->n_fields; i++)
        if (strcmp(t->fields[i].name, name) == 0) return &t->fields[i];
    /* a Python keyword's attribute has a trailing underscore (class_) */
    size_t n = strlen(name);
    if (n > 1 && name[n - 1] == '_')
        for (uint32_t i = 0; i < t->n_fields; i++)
            if (strlen(t->fields[i].name) == n - 1 && memcmp(t->fields[i].name, name, n - 1) == 0) return &t->fields[i];
    return NULL;
}

/* Where a class's records come from: the format's root, or a region whose records are its
 * type or a union with a case of it (the first one, as encode's "_kind" look-up). */
static void record_place(pcdpy_cls *c, const pcd_format *f)
{
    c->rwhich = -1;
    const pcd_type *t = c->gen->type;
    if (c->gen->what == PCDPY_UNION) return;
    if (c->gen->what == PCDPY_STRUCT && f->root == t) {
        c->root = true;
        c->kind = t->name;
        c->rtype = t;
        c->rsize = t->size;
        return;
    }
    for (uint32_t i = 0; i < f->n_regions && !c->kind; i++) {
        const pcd_region_desc *rd = f->regions[i];
        const pcd_type *rt = rd->record;
        if (c->gen->what == PCDPY_STRUCT && rt == t) {
            c->kind = t->name;
            c->rd = rd;
            c->rtype = t;
            c->rsize = t->size;
            return;
        }
        if (!rt->is_union || !rt->tag_key) continue;
        for (uint32_t k = 0; k < rt->n_fields; k++) {
            const pcd_field *cf = &rt->fields[k];
            bool match = c->gen->what == PCDPY_VALUE ? (rt == t && (int32_t)k == c->gen->which)
                                                     : (cf->kind == PCD_K_STRUCT && cf->type == t);
            if (!match) continue;
            c->kind = cf->name;
            c->rd = rd;
            c->rtype = rt;
            c->rwhich = (int32_t)k;
            c->rsize = pcdpy_record_size(rt, (int32_t)k);
            return;
        }
    }
}

static int make_format(pcdpy_fmt *F, const pcdpy_format *gen, PyObject *package)
{
    const pcdpy_registry *reg = pcdpy.reg;
    F->gen = gen;
    F->n_classes = gen->n_classes;
    F->classes = PyMem_Calloc(gen->n_classes ? gen->n_classes : 1, sizeof *F->classes);
    if (!F->classes) return PyErr_NoMemory(), -1;
    char name[256];
    snprintf(name, sizeof name, "%s.%s", reg->package, gen->module);
    F->module = PyModule_New(name);
    if (!F->module) return -1;
    PyObject *doc = PyUnicode_FromString(gen->doc ? gen->doc : "");
    if (!doc || PyObject_SetAttrString(F->module, "__doc__", doc) < 0) return Py_XDECREF(doc), -1;
    Py_DECREF(doc);
    if (PyModule_AddStringConstant(F->module, "FORMAT", gen->format->name) < 0 ||
        PyModule_AddStringConstant(F->module, "VERSION", gen->format->version) < 0)
        return -1;
    for (uint32_t i = 0; i < gen->n_classes; i++) {
        pcdpy_cls *c = &F->classes[i];
        const pcdpy_class *g = &gen->classes[i];
        c->gen = g;
        c->fmt = F;
        c->type = g->type;
        PyObject *base = g->base >= 0 ? (PyObject *)F->classes[g->base].py : (PyObject *)pcdpy.record_type;
        PyObject *bases = PyTuple_Pack(1, base);
        if (!bases) return -1;
        c->py = (PyTypeObject *)PyType_FromSpecWithBases(g->spec, bases);
        Py_DECREF(bases);
        if (!c->py) return -1;
        /* the attributes' fields */
        const PyGetSetDef *gs = spec_getset(g->spec);
        uint32_t n = 0;
        while (gs && gs[n].name) n++;
        c->n_attrs = n;
        c->attrs = PyMem_Calloc(n ? n : 1, sizeof *c->attrs);
        c->names = PyMem_Calloc(n ? n : 1, sizeof *c->names);
        if (!c->attrs || !c->names) return PyErr_NoMemory(), -1;
        for (uint32_t k = 0; k < n; k++) {
            c->names[k] = gs[k].name;
            if (g->what == PCDPY_VALUE) {
                c->attrs[k] = &g->type->fields[g->which];
                continue;
            }
            c->attrs[k] = field_named(g->type, gs[k].name);
            if (!c->attrs[k]) {
                PyErr_Format(PyExc_ImportError, "%s: %s.%s has no field '%s' (regenerate the binding)", name, g->name,
                             gs[k].name, gs[k].name);
                return -1;
            }
        }
        record_place(c, gen->format);
        if (PyModule_AddObject(F->module, g->name, (PyObject *)c->py) < 0) return -1;
        Py_INCREF(c->py);
        /* the map */
        if (g->what != PCDPY_VALUE) pcdpy_type_put(g->type)->cls = c;
    }
    /* the classes of the cases of unions whose records say their case */
    for (uint32_t i = 0; i < gen->n_classes; i++) {
        pcdpy_cls *c = &F->classes[i];
        const pcd_type *t = c->gen->type;
        if (c->gen->what != PCDPY_UNION) continue;
        pcdpy_type_ent *e = pcdpy_type_get(t);
        e->cases = PyMem_Calloc(t->n_fields ? t->n_fields : 1, sizeof *e->cases);
        if (!e->cases) return PyErr_NoMemory(), -1;
        for (uint32_t k = 0; k < t->n_fields; k++) {
            const pcd_field *cf = &t->fields[k];
            if (cf->kind == PCD_K_STRUCT && cf->type) {
                pcdpy_type_ent *ce = pcdpy_type_get(cf->type);
                e->cases[k] = ce ? ce->cls : NULL;
            }
            for (uint32_t j = 0; j < gen->n_classes; j++)
                if (F->classes[j].gen->what == PCDPY_VALUE && F->classes[j].gen->type == t &&
                    F->classes[j].gen->which == (int32_t)k)
                    e->cases[k] = &F->classes[j];
        }
    }
    if (PyModule_AddObject(package, gen->module, F->module) < 0) return -1;
    Py_INCREF(F->module);
    /* import package.mojo_v3 finds it */
    PyObject *mods = PyImport_GetModuleDict();
    if (PyDict_SetItemString(mods, name, F->module) < 0) return -1;
    return 0;
}

/* ---- module functions ------------------------------------------------------------------------ */

static PyObject *m_schema(PyObject *self, PyObject *arg)
{
    (void)self;
    PyObject *keep;
    const char *spec = pcdpy_utf8(arg, &keep);
    if (!spec) return NULL;
    const pcd_format *f = pcdpy_find_format(spec);
    Py_DECREF(keep);
    if (!f) return NULL;
    pcdpy_fmt *F = pcdpy_fmt_of(f);
    Py_INCREF(F->module);
    return F->module;
}

static PyMethodDef methods[] = {
    { "open", (PyCFunction)(void (*)(void))pcdpy_open, METH_VARARGS | METH_KEYWORDS,
      "open(source, format=None, *, all=False, max_memory=None, threads=True)\n--\n\n"
      "Opens a profile or trace (a path, or a binary file object: a file, a pipe, a socket) and "
      "returns a Reader: iterate it for the records, as `profcodec dump` writes them, one at a time "
      "in bounded memory." },
    { "validate", (PyCFunction)(void (*)(void))pcdpy_validate, METH_VARARGS | METH_KEYWORDS,
      "validate(source, format=None, *, all=False, strict=False, max_memory=None)\n--\n\n"
      "Checks a file as `profcodec validate` does; see Reader.validate." },
    { "convert", (PyCFunction)(void (*)(void))pcdpy_convert, METH_VARARGS | METH_KEYWORDS,
      "convert(source, to, output=None, **options)\n--\n\n"
      "Converts as `profcodec convert --to TO` does, with its options (all, metric, dialect, "
      "heph_compat, compression, base, force, raw, format, max_memory). Returns the output's bytes "
      "when output is None; else writes it to the path (atomically) or the binary file object." },
    { "merge", (PyCFunction)(void (*)(void))pcdpy_merge, METH_VARARGS | METH_KEYWORDS,
      "merge(sources, to, output=None, *, all=False, metric=None, dialect=None, force=False, max_memory=None)\n--\n\n"
      "Merges several inputs (paths, bytes or binary files of any formats) into one profile, as "
      "`profcodec merge` does: each sample labelled source=NAME, the first input's sample types "
      "(others refused unless force=True). Returns the output's bytes when output is None; else "
      "writes it to the path (atomically) or the binary file object." },
    { "encode", (PyCFunction)(void (*)(void))pcdpy_encode, METH_VARARGS | METH_KEYWORDS,
      "encode(records, output=None, format=None, *, byte_order=None, partial=False)\n--\n\n"
      "Writes records (record objects or dicts as to_dict() gives them, the root first) as a "
      "file of their format: to a path (atomically), a binary file object, or returned as bytes "
      "when output is None. Sizes, counts and offsets are computed, as `profcodec encode` does." },
    { "formats", pcdpy_formats, METH_NOARGS,
      "formats()\n--\n\nEvery format version this build reads and writes, with what it converts to." },
    { "schema", m_schema, METH_O,
      "schema(name)\n--\n\nThe module of a format version's classes: schema('mojo:3') is profcodec.mojo_v3 "
      "(the newest version when none is named)." },
    { NULL, NULL, 0, NULL },
};

static PyObject *new_exc(PyObject *m, const char *name, PyObject *base, const char *doc)
{
    char full[128];
    snprintf(full, sizeof full, "%s.%s", pcdpy.reg->package, name);
    PyObject *e = PyErr_NewExceptionWithDoc(full, doc, base, NULL);
    if (!e) return NULL;
    Py_INCREF(e);
    if (PyModule_AddObject(m, name, e) < 0) {
        Py_DECREF(e);
        Py_DECREF(e);
        return NULL;
    }
    return e;
}

static struct PyModuleDef moddef = {
    PyModuleDef_HEAD_INIT, NULL, "profcodec's C extension: see the profcodec package.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyObject *pcdpy_module_init(const pcdpy_registry *reg)
{
    if (pcdpy.reg) {
        PyErr_SetString(PyExc_ImportError, "profcodec's extension can be loaded once per process");
        return NULL;
    }
    pcdpy.reg = reg;
    static char modname[160];
    snprintf(modname, sizeof modname, "%s.%s", reg->package, reg->module);
    moddef.m_name = modname;
    pcd_json_mem_install(); /* jansson's memory through max_memory's scopes (common/json_mem.h) */
    PyObject *m = PyModule_Create(&moddef);
    if (!m) return NULL;
    PyObject *package = PyImport_ImportModule(reg->package);
    if (!package) PyErr_Clear(); /* loaded on its own (tests): the submodules hang off the extension */
    PyObject *holder = package ? package : m;
    PyObject *json = PyImport_ImportModule("json");
    if (!json) goto fail;
    pcdpy.json_loads = PyObject_GetAttrString(json, "loads");
    Py_DECREF(json);
    if (!pcdpy.json_loads) goto fail;
    pcdpy.empty_tuple = PyTuple_New(0);
    if (!pcdpy.empty_tuple) goto fail;
    if (!(pcdpy.Error = new_exc(m, "Error", PyExc_Exception, "Every error profcodec raises.")))
        goto fail;
    if (!(pcdpy.DamagedInput = new_exc(m, "DamagedInput", pcdpy.Error,
                                       "The input is damaged or invalid: offset, path, expected, found, "
                                       "message, file, records (how many came before the damage).")))
        goto fail;
    if (!(pcdpy.LimitError = new_exc(m, "LimitError", pcdpy.DamagedInput,
                                     "Reading stopped at a limit rather than at a defect: memory (max_memory), "
                                     "zstd's window, a count larger than the format allows. A DamagedInput too: "
                                     "where reading stopped (offset and path, None when not reading).")))
        goto fail;
    {
        PyObject *bases = PyTuple_Pack(2, pcdpy.Error, PyExc_ValueError);
        if (!bases) goto fail;
        pcdpy.UsageError = new_exc(m, "UsageError", bases,
                                   "A call profcodec cannot do: an unknown format, a conversion that does "
                                   "not exist, an option it does not take, a record that does not fit.");
        Py_DECREF(bases);
        if (!pcdpy.UsageError) goto fail;
    }
    if (!(pcdpy.NothingToShow = new_exc(m, "NothingToShow", pcdpy.Error,
                                        "The input holds nothing the output shows: no samples (before the "
                                        "damage), none with a value of the metric, or values it cannot draw "
                                        "(negative ones in a flame graph). Nothing was written.")))
        goto fail;
    if (!(pcdpy.InputWarning = new_exc(m, "InputWarning", PyExc_UserWarning,
                                       "What the real program's reader accepts but looks wrong, and damage "
                                       "skipped with all=True.")))
        goto fail;
    if (PyModule_AddStringConstant(m, "__version__", pcd_version()) < 0) goto fail;
    if (pcdpy_record_init_type(m) < 0 || pcdpy_reader_init_type(m) < 0) goto fail;
    /* the type map: twice the types there are, a power of two */
    size_t n_types = 0;
    for (size_t i = 0; i < reg->n_formats; i++) n_types += reg->formats[i]->n_classes;
    bool types_ok = pcdpy_types_alloc(n_types);
    pcdpy.fmts = PyMem_Calloc(reg->n_formats ? reg->n_formats : 1, sizeof *pcdpy.fmts);
    pcdpy.formats = PyMem_Calloc(reg->n_formats ? reg->n_formats : 1, sizeof *pcdpy.formats);
    if (!types_ok || !pcdpy.fmts || !pcdpy.formats) {
        PyErr_NoMemory();
        goto fail;
    }
    pcdpy.n_fmts = reg->n_formats;
    for (size_t i = 0; i < reg->n_formats; i++) {
        pcdpy.formats[i] = reg->formats[i]->format;
        if (make_format(&pcdpy.fmts[i], reg->formats[i], holder) < 0) goto fail;
    }
    Py_XDECREF(package);
    return m;
fail:
    Py_XDECREF(package);
    Py_DECREF(m);
    return NULL;
}
