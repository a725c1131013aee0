/* python/internal.h: the runtime of the Python extension, between its files.
 *
 *   module.c   the module: classes made from the generated tables, formats(), schema()
 *   record.c   profcodec.Record: attributes, to_dict(), equality, repr, constructors
 *   copy.c     a decoded record's struct copied with what it points to (the deep copy)
 *   value.c    Python objects to JSON (jansson) for constructors and encode; exceptions
 *   source.c   inputs: paths, binary file objects, pipes, gzip; detection
 *   reader.c   profcodec.open(): the Reader, iteration in batches without the GIL, validate
 *   encode.c   profcodec.encode()
 *   convert.c  profcodec.convert(), formats(), and Reader.profile(): the profile model as columns
 */
#ifndef PCDPY_INTERNAL_H
#define PCDPY_INTERNAL_H

#include <jansson.h>
#include <stdlib.h>

#include "pcdpy.h"

/* (the memoryview flags are not in the limited API before 3.11; their values are fixed) */
#ifndef PyBUF_READ
#define PyBUF_READ 0x100
#define PyBUF_WRITE 0x200
#endif

/* ---- classes (module.c) --------------------------------------------------------------- */

typedef struct pcdpy_fmt pcdpy_fmt;

typedef struct pcdpy_cls {
    const pcdpy_class *gen;
    pcdpy_fmt *fmt;
    PyTypeObject *py;
    const pcd_type *type;          /* the type its attributes are fields of (a value case: the union) */
    const pcd_field **attrs;       /* the field of each attribute */
    uint32_t n_attrs;
    const char **names;            /* each attribute's name (keyword), as the class shows it */
    /* as a record (encode, constructors): */
    const char *kind;              /* dump's _kind; NULL: not a record of its format */
    bool root;                     /* the format's root record */
    const pcd_region_desc *rd;     /* the region its records belong to */
    const pcd_type *rtype;         /* the record's type (a case: the union) */
    int32_t rwhich;                /* a case: its index in rtype; -1 */
    size_t rsize;                  /* bytes of rtype's struct a record of this class needs */
} pcdpy_cls;

struct pcdpy_fmt {
    const pcdpy_format *gen;
    PyObject *module;
    pcdpy_cls *classes;
    uint32_t n_classes;
};

typedef struct pcdpy_state {
    const pcdpy_registry *reg;
    pcdpy_fmt *fmts;
    size_t n_fmts;
    const pcd_format **formats;    /* every format's pcd_format, in the registry's order */
    PyTypeObject *record_type;     /* profcodec.Record */
    PyTypeObject *reader_type;
    PyObject *Error, *DamagedInput, *LimitError, *UsageError, *NothingToShow, *InputWarning;
    PyObject *json_loads;          /* json.loads */
    PyObject *empty_tuple;
} pcdpy_state;

extern pcdpy_state pcdpy;

/* ---- C types to classes, formats (types.c) ---------------------------------------------- */

/* An entry of the map from C types to classes (module.c fills it as it makes the classes). */
typedef struct pcdpy_type_ent {
    const pcd_type *t;
    const pcdpy_cls *cls;          /* a struct's class, a union's (abstract) class */
    const pcdpy_cls **cases;       /* a union whose records say their case: each case's class */
} pcdpy_type_ent;

/* Room for n_types entries; false when out of memory. */
bool pcdpy_types_alloc(size_t n_types);
/* The entry of t, or NULL. */
pcdpy_type_ent *pcdpy_type_get(const pcd_type *t);
/* The entry of t, made if new. */
pcdpy_type_ent *pcdpy_type_put(const pcd_type *t);

/* The class of a C struct type (and, for a union whose records say their case, of case
 * `which`); NULL when there is none. */
const pcdpy_cls *pcdpy_class_of(const pcd_type *t, int32_t which);
/* The class of a record as it was read. */
const pcdpy_cls *pcdpy_record_class(const pcd_record *rec);
/* The binding of a pcd_format; NULL when this extension does not have it. */
pcdpy_fmt *pcdpy_fmt_of(const pcd_format *f);
/* A format by "name" or "name:version"; NULL with UsageError set. */
const pcd_format *pcdpy_find_format(const char *spec);

/* ---- records (record.c, copy.c) ------------------------------------------------------- */

/* Where an object's own struct starts. */
#define PCDPY_PAYLOAD_OFF (((size_t)sizeof(pcdpy_rec) + 15) & ~(size_t)15)
#define PCDPY_PAYLOAD(o) ((uint8_t *)(o) + PCDPY_PAYLOAD_OFF)

int pcdpy_record_init_type(PyObject *module);
PyObject *pcdpy_get_value(PyObject *owner, const pcd_field *fd, const void *base);

/* Bytes the deep copy of a struct of type t (with which: a union record's case) needs;
 * (size_t)-1 when something in it cannot be copied. rsize: bytes of the struct itself. */
size_t pcdpy_copy_size(const pcd_type *t, const void *src, size_t rsize);
/* Copies it to dst (pcdpy_copy_size bytes, 16-aligned): the struct first, then what it
 * points to, its pointers pointing there. */
void pcdpy_copy(const pcd_type *t, const void *src, size_t rsize, uint8_t *dst);
/* Bytes of a record's struct a class's records need (a union's case: up to the case's end). */
size_t pcdpy_record_size(const pcd_type *t, int32_t which);

/* A new record object of class cls, copying a struct of type dt (the record's: a case's
 * union) from src, rsize bytes of it. NULL with an exception set. */
PyObject *pcdpy_rec_new(const pcdpy_cls *cls, const pcd_type *dt, const void *src, size_t rsize,
                        const pcd_region_desc *rd, uint64_t offset, uint32_t flags);
/* The same from a copy made elsewhere (pcdpy_copy into a staging buffer, `bytes` long). */
PyObject *pcdpy_rec_from_copy(const pcdpy_cls *cls, const pcd_type *dt, const uint8_t *copy, size_t bytes,
                              size_t rsize, const pcd_region_desc *rd, uint64_t offset, uint32_t flags);
/* A view of a value inside owner's memory: class cls over the struct of type dt at p (a
 * union's case: the union). */
PyObject *pcdpy_rec_view(const pcdpy_cls *cls, PyObject *owner, const void *p, const pcd_type *dt);
/* The record's JSON (the dump's line without the newline) into a new bytes object. */
PyObject *pcdpy_rec_json(pcdpy_rec *r, bool with_offset);
/* The record as a pcd_record (for the JSON writer and encode). */
void pcdpy_rec_as_record(const pcdpy_rec *r, pcd_record *out);

static inline bool pcdpy_is_rec(PyObject *o)
{
    return PyObject_TypeCheck(o, pcdpy.record_type);
}

/* ---- JSON, values and errors (value.c) ----------------------------------------------------- */

/* A growable memory output for a pcd_sink (write and patch callbacks); malloc'ed, p freed by
 * the owner. */
typedef struct pcdpy_membuf {
    uint8_t *p;
    size_t len, cap;
} pcdpy_membuf;
pcd_status pcdpy_membuf_write(void *ud, const uint8_t *p, size_t n);
pcd_status pcdpy_membuf_patch(void *ud, uint64_t off, const uint8_t *p, size_t n);

/* A Python object as JSON for the JSON Lines reader: dicts, lists, tuples, str, int (beyond
 * 64 bits: decimal strings), float (NaN and infinities as dump writes them), bool, None,
 * bytes ({"hex": ...}) and records (their dump). NULL with an exception set. */
json_t *pcdpy_to_json(PyObject *o);
/* Fills a struct of the record kind k from a dict (keys: field names) as encode does.
 * Returns false with a UsageError set. */
struct pcd_jkind;
bool pcdpy_fill(const struct pcd_jkind *k, PyObject *dict, void *dst, pcd_arena *arena);

/* An error as the library reported it, copied at once: its texts may live in a buffer of the
 * code that reported it (a check's expected value), gone by the time Python sees them. */
typedef struct pcdpy_err {
    pcd_status status;
    uint64_t offset;
    bool has_region, has_found;
    uint64_t region_offset;
    char region[96];
    char message[1024];            /* pcd_error_format: "offset N: path: expected X, found Y" */
    char path[512];
    char expected[512];
    char found[160];
} pcdpy_err;

void pcdpy_err_capture(pcdpy_err *c, const pcd_error *e);
/* DamagedInput (or LimitError for limits and memory) for e, read from `file`; records: how
 * many records came before it. New reference, NULL with an exception. */
PyObject *pcdpy_damage_exc(const pcdpy_err *e, const char *file, uint64_t records);
/* The same, raised. Returns NULL. */
PyObject *pcdpy_raise_damage(const pcdpy_err *e, const char *file, uint64_t records);
/* A DamagedInput without a place (an importer's own check): offset and path None. */
PyObject *pcdpy_damage_text(const char *msg, const char *file, uint64_t records);
/* Raises exc with printf text. Returns NULL. */
PyObject *pcdpy_fail(PyObject *exc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A warning (profcodec.InputWarning) with the text; -1 when warnings are errors. */
int pcdpy_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The UTF-8 of a str (the limited API of 3.9 has no borrowed form): valid while *keep lives
 * (a bytes object the caller releases). NULL with an exception. */
const char *pcdpy_utf8(PyObject *s, PyObject **keep);
/* A warning (InputWarning) with the text of an object (str() of it). */
int pcdpy_warn_obj(PyObject *o);
/* bytes as str when UTF-8, else bytes */
PyObject *pcdpy_text(const uint8_t *p, size_t n);

/* ---- inputs (source.c) ----------------------------------------------------------------- */

#include "pipeline/job.h"

typedef struct pcdpy_src pcdpy_src;

typedef struct pcdpy_open_opts {
    const char *format;            /* "name[:version]" or NULL: detect */
    size_t max_memory;             /* 0: 2 GiB */
    bool threads;                  /* a helper thread for large zstd regions */
    bool validate_only;
    bool text_ok;                  /* the text inputs too (collapsed, Austin, speedscope): no reader,
                                    * a stream for their importer (convert, merge, top) */
} pcdpy_open_opts;

/* Opens a path (str, bytes, os.PathLike) or a binary file object, detects its format and
 * starts a reader. NULL with an exception set. */
pcdpy_src *pcdpy_src_open(PyObject *what, const pcdpy_open_opts *o);
void pcdpy_src_close(pcdpy_src *s);
pcd_reader *pcdpy_src_reader(pcdpy_src *s);
const pcd_format *pcdpy_src_format(const pcdpy_src *s);
/* A text input (text_ok): its format (then pcdpy_src_format is NULL and there is no reader) and
 * the stream of its bytes (gzip undone); NULL: a format of schemas. */
const pcd_text_format *pcdpy_src_text(const pcdpy_src *s);
void pcdpy_src_text_stream(pcdpy_src *s, pcd_read_fn *fn, void **ud);
const char *pcdpy_src_name(const pcdpy_src *s);
pcd_alloc *pcdpy_src_alloc(pcdpy_src *s);
/* Around code that runs without the GIL: a read from a Python file object takes it again. */
void pcdpy_src_release(pcdpy_src *s);
void pcdpy_src_acquire(pcdpy_src *s);
/* After a read failed: the exception a Python file object raised (restored; true), or false. */
bool pcdpy_src_reraise(pcdpy_src *s);
/* A gzip input that stopped: why (NULL: it did not, or it is not gzip). */
const char *pcdpy_src_gzip_error(const pcdpy_src *s);
/* While records of a batch wait to be handed out, a stream with nothing more yet stops the
 * batch (the reader returns PCD_WOULD_BLOCK) rather than waiting. */
void pcdpy_src_nonblock(pcdpy_src *s, bool on);
/* Reads of the input so far (bytes of the file, for progress). */
uint64_t pcdpy_src_size(const pcdpy_src *s);

/* ---- outputs (encode.c) --------------------------------------------------------------------------- */

#include "io/io.h"

/* Where encode and convert write: a path (atomically), a binary file object (its bytes written
 * at the end), or bytes returned (output None). */
typedef struct pcdpy_out {
    PyObject *target;              /* NULL: bytes */
    bool is_path;
    pcd_output file;
    pcd_alloc al;                  /* the output's temporary name */
    bool file_open;
    pcdpy_membuf mem;
    pcd_sink sink;
    pcd_ctx x;
    uint8_t *buf;
    /* or an output of several files (to="table": pcd_job.open_part = pcdpy_out_part, part_ud =
     * the pcdpy_out): a directory at a path (written whole, pcd_outdir), or for None a dict of
     * each file's name and bytes */
    bool parts;
    pcd_outdir dir;
    bool dir_open;
    struct pcdpy_part {
        char name[64];
        pcdpy_membuf mem;
        pcd_sink sink;
        pcd_ctx x;
        uint8_t *buf;
    } part[PCD_OUTDIR_MAX_PARTS];
    size_t n_parts;
} pcdpy_out;

int pcdpy_out_open(pcdpy_out *o, PyObject *target);
/* The same for an output of several files (pcd_exporter.wants PCD_WANTS_PARTS). */
int pcdpy_out_open_parts(pcdpy_out *o, PyObject *target);
pcd_status pcdpy_out_part(void *ud, const char *name, pcd_sink **out);
/* Flushes and finishes: None for a path or a file object, the bytes for None; NULL with an
 * exception. */
PyObject *pcdpy_out_commit(pcdpy_out *o);
void pcdpy_out_abort(pcdpy_out *o);
/* Bytes written so far. */
static inline uint64_t pcdpy_out_tell(const pcdpy_out *o)
{
    if (!o->parts) return pcd_sink_tell(&o->sink);
    uint64_t n = 0;
    for (size_t i = 0; i < o->n_parts; i++) n += pcd_sink_tell(&o->part[i].sink);
    return n;
}

/* ---- the reader, encode, convert, profile ---------------------------------------------------- */

int pcdpy_reader_init_type(PyObject *module);
PyObject *pcdpy_open(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pcdpy_validate(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pcdpy_encode(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pcdpy_convert(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pcdpy_merge(PyObject *self, PyObject *args, PyObject *kw);
PyObject *pcdpy_formats(PyObject *self, PyObject *noargs);
/* The profile of an opened source (Reader.profile). */
struct pcd_filter_opts;
PyObject *pcdpy_profile_of(pcdpy_src *src, PyObject *kw_times, bool all, const char *metric,
                           const struct pcd_filter_opts *fo);

/* issue 25 (filters.c): the grouping and filter keywords taken out of kw into fo (their texts
 * kept alive in the list keep); *rest: a new dict of the other keywords (NULL when kw is). 0, or
 * -1 with an exception (UsageError for a bad value, an invalid regex). */
struct pcd_filter_opts;
int pcdpy_filters_take(PyObject *kw, PyObject **rest, struct pcd_filter_opts *fo, PyObject *keep);

/* Options shared by open, convert and validate: max_memory="2G" or a number of bytes. */
int pcdpy_parse_size(PyObject *o, size_t *out);

#endif
