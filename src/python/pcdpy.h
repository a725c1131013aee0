/* python/pcdpy.h: what the generated Python binding (generated/python/) and the runtime of the
 * extension (src/python/) share. The extension is on CPython's limited API (abi3, 3.9 and up).
 *
 * The generator writes, per format version, a table of classes: one per C struct of the
 * schema (record types, union cases, nested structs), one per union whose values say their
 * case (the abstract base of its inline cases), one per case of such a union whose body is not
 * a struct. A class is its attributes (a PyGetSetDef table: the fields dump writes, with their
 * docs) over the descriptor of its C type. Everything else (values, to_dict, equality,
 * constructors, reading, writing) is the runtime's, driven by the same descriptor tables the
 * JSON writer walks. */
#ifndef PCDPY_H
#define PCDPY_H

#ifndef Py_LIMITED_API
#define Py_LIMITED_API 0x03090000
#endif
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "pcd.h"

/* What a generated class is. */
enum {
    PCDPY_STRUCT = 1,   /* the fields of a C struct */
    PCDPY_UNION,        /* a union whose records say their case: the base class of its inline cases */
    PCDPY_VALUE         /* a case of such a union whose body is not a struct: one attribute, `value` */
};

typedef struct pcdpy_class {
    const char *name;          /* "EventFrame" */
    const pcd_type *type;      /* its C type (a value case: the union) */
    uint8_t what;              /* PCDPY_* */
    int32_t which;             /* a value case: its index in the union; else -1 */
    int32_t base;              /* its base class in the same table (a union), -1: profcodec.Record */
    PyType_Spec *spec;         /* Py_tp_doc and Py_tp_getset; the rest is inherited from Record */
    /* a record of the file's metadata (the schema's metadata = { key, value }): the attributes
     * (getset indices) of its key and value; -1: not one */
    int16_t meta_key, meta_value;
} pcdpy_class;

typedef struct pcdpy_format {
    const pcd_format *format;
    const char *module;        /* "mojo_v3": the submodule of the package that holds the classes */
    const char *doc;
    const pcdpy_class *classes;
    uint32_t n_classes;
} pcdpy_format;

typedef struct pcdpy_registry {
    const char *package;       /* "profcodec" */
    const char *module;        /* "_profcodec": the extension, package._profcodec */
    const pcdpy_format *const *formats;
    size_t n_formats;
} pcdpy_registry;

struct pcdpy_cls;

/* A record, or a value inside one: every generated class's instances. Its C struct is in
 * the object itself (a copy, with the strings and arrays it points to), or, for a value
 * inside another record, in that record's (owner). Immutable. */
typedef struct pcdpy_rec {
    PyObject_HEAD
    const struct pcdpy_cls *cls;
    const void *base;              /* the struct of the class's C type (a case: inside data) */
    const void *data;              /* what to_dict() writes: a record's struct (a case's: its union's) */
    const pcd_type *dtype;         /* the type of data */
    const pcd_region_desc *rd;     /* a record read from a region: the region (NULL: the root, a value) */
    PyObject *owner;               /* the object whose memory base and data are in; NULL: this one's */
    uint64_t offset;               /* where it was read (with PCDPY_HAS_OFFSET) */
    uint32_t flags;                /* PCDPY_* below */
    uint32_t payload;              /* bytes of the struct and its strings and arrays after this header */
} pcdpy_rec;

enum {
    PCDPY_HAS_OFFSET = 1u << 0,    /* read from an input: offset is where */
    PCDPY_BIG = 1u << 1,           /* the input's native fields were big-endian */
    PCDPY_DECOMPRESSED = 1u << 2   /* offset is in decompressed data */
};

#define PCDPY_BASICSIZE ((int)sizeof(pcdpy_rec))

/* The getter of every attribute: closure is the attribute's index in its class's table. */
PyObject *pcdpy_get(PyObject *self, void *closure);

/* The extension's init function (the generated registry calls it). */
PyObject *pcdpy_module_init(const pcdpy_registry *reg);

#endif
