/* python/source.c: inputs for the Python module, opened as `profcodec` opens them: a path
 * (a regular file read front to back or mapped whole, a FIFO, a device), or a binary file
 * object (read through its readinto1/readinto/read: a file, a pipe's end, a socket, BytesIO);
 * gzip undone on the way; the format detected from the first bytes (formats/detect.h). The
 * first bytes of a stream are peeked at, kept, and handed to the reader first. Reading may run
 * without the GIL: a read from a Python object takes it back for the call. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/gzin.h"
#include "formats/detect.h"
#include "pipeline/pipeline.h"

struct pcdpy_src {
    char *name;                    /* as messages name the input */
    const pcd_format *f;
    const pcd_text_format *text;   /* a text input (pcdpy_open_opts.text_ok), f NULL */
    pcd_alloc al;
    pcd_reader r;
    bool reader_open;
    size_t max_memory;
    /* a path */
    int fd;
    bool is_regular;
    uint64_t size;
    uint8_t *map;                  /* a whole-file format's bytes (mapped, or read) */
    size_t map_len;
    bool mapped;
    /* a Python file object */
    PyObject *file;
    PyObject *readinto;            /* its readinto1 or readinto; NULL: read */
    PyObject *read;
    /* bytes read to tell the format, handed out first */
    uint8_t head[4096];
    size_t head_len, head_pos;
    bool serve_head;
    bool eof;
    pcd_gzin *gz;
    PyObject *exc_type, *exc_value, *exc_tb;   /* what the file object raised */
    uint64_t bytes_read;
    /* a stream that may have nothing yet (a pipe, a socket, a terminal): its descriptor, polled
     * so that the records read already are handed out before a read waits (-1: cannot tell) */
    int poll_fd;
    bool nonblock;                 /* records are waiting to be handed out: do not wait */
};

pcd_reader *pcdpy_src_reader(pcdpy_src *s) { return &s->r; }
const pcd_format *pcdpy_src_format(const pcdpy_src *s) { return s->f; }
const pcd_text_format *pcdpy_src_text(const pcdpy_src *s) { return s->text; }
const char *pcdpy_src_name(const pcdpy_src *s) { return s->name; }
pcd_alloc *pcdpy_src_alloc(pcdpy_src *s) { return &s->al; }
uint64_t pcdpy_src_size(const pcdpy_src *s) { return s->is_regular ? s->size : s->bytes_read; }
const char *pcdpy_src_gzip_error(const pcdpy_src *s) { return s->gz ? s->gz->error : NULL; }
void pcdpy_src_nonblock(pcdpy_src *s, bool on) { s->nonblock = on; }

/* This thread's state while it runs without the GIL (one for every source it reads: a
 * conversion reads its input and its base). */
static _Thread_local PyThreadState *released;

void pcdpy_src_release(pcdpy_src *s)
{
    (void)s;
    if (!released) released = PyEval_SaveThread();
}

void pcdpy_src_acquire(pcdpy_src *s)
{
    (void)s;
    if (released) {
        PyThreadState *ts = released;
        released = NULL;
        PyEval_RestoreThread(ts);
    }
}

bool pcdpy_src_reraise(pcdpy_src *s)
{
    if (!s->exc_type) return false;
    PyErr_Restore(s->exc_type, s->exc_value, s->exc_tb);
    s->exc_type = s->exc_value = s->exc_tb = NULL;
    return true;
}

/* ---- reading ------------------------------------------------------------------------------------ */

/* One read of the Python file object (the GIL held). */
static pcd_status py_read(pcdpy_src *s, uint8_t *dst, size_t cap, size_t *got)
{
    *got = 0;
    if (cap > ((size_t)1 << 30)) cap = (size_t)1 << 30;
    PyObject *res;
    if (s->readinto) {
        PyObject *mv = PyMemoryView_FromMemory((char *)dst, (Py_ssize_t)cap, PyBUF_WRITE);
        if (!mv) goto failed;
        res = PyObject_CallFunctionObjArgs(s->readinto, mv, NULL);
        Py_DECREF(mv);
        if (!res) goto failed;
        if (res == Py_None) {
            /* a non-blocking stream with nothing yet: wait by asking again */
            Py_DECREF(res);
            return PCD_OK;
        }
        Py_ssize_t n = PyLong_AsSsize_t(res);
        Py_DECREF(res);
        if (n < 0 || (size_t)n > cap) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_OSError, "readinto() returned a bad count");
            goto failed;
        }
        *got = (size_t)n;
        return PCD_OK;
    }
    res = PyObject_CallFunction(s->read, "n", (Py_ssize_t)cap);
    if (!res) goto failed;
    if (res == Py_None) {
        Py_DECREF(res);
        return PCD_OK;
    }
    if (!PyBytes_Check(res) || (size_t)PyBytes_Size(res) > cap) {
        Py_DECREF(res);
        PyErr_SetString(PyExc_TypeError, "the file object's read() must return bytes (open it in binary mode)");
        goto failed;
    }
    *got = (size_t)PyBytes_Size(res);
    memcpy(dst, PyBytes_AsString(res), *got);
    Py_DECREF(res);
    return PCD_OK;
failed:
    if (!s->exc_type) PyErr_Fetch(&s->exc_type, &s->exc_value, &s->exc_tb);
    else PyErr_Clear();
    return PCD_E_IO;
}

static pcd_status fd_read(pcdpy_src *s, uint8_t *dst, size_t cap, size_t *got)
{
    *got = 0;
    for (;;) {
        ssize_t r = read(s->fd, dst, cap);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return PCD_E_IO;
        *got = (size_t)r;
        /* a pipe written in small pieces: take what is already there too */
        while (!s->is_regular && r > 0 && *got < cap) {
            struct pollfd pf = { s->fd, POLLIN, 0 };
            if (poll(&pf, 1, 0) != 1 || !(pf.revents & POLLIN)) break;
            r = read(s->fd, dst + *got, cap - *got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            *got += (size_t)r;
        }
        return PCD_OK;
    }
}

/* The input's bytes: the peeked head first (for streams), then the source. */
static pcd_status raw_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    pcdpy_src *s = ud;
    *got = 0;
    if (s->serve_head && s->head_pos < s->head_len) {
        size_t k = s->head_len - s->head_pos < cap ? s->head_len - s->head_pos : cap;
        memcpy(dst, s->head + s->head_pos, k);
        s->head_pos += k;
        *got = k;
        return PCD_OK;
    }
    if (s->eof || cap == 0) return PCD_OK;
    if (s->nonblock && s->r.suspendable && !s->gz && s->poll_fd >= 0) {
        /* records are staged and the reader can stop here: hand them out before waiting */
        struct pollfd pf = { s->poll_fd, POLLIN, 0 };
        int n;
        do n = poll(&pf, 1, 0);
        while (n < 0 && errno == EINTR);
        if (n == 0) return PCD_WOULD_BLOCK;
    }
    pcd_status st;
    if (s->file) {
        if (released) {
            PyThreadState *ts = released;
            released = NULL;
            PyEval_RestoreThread(ts);
            st = py_read(s, dst, cap, got);
            released = PyEval_SaveThread();
        } else {
            st = py_read(s, dst, cap, got);
        }
    } else {
        st = fd_read(s, dst, cap, got);
    }
    if (st == PCD_OK && *got == 0) s->eof = true;
    s->bytes_read += *got;
    return st;
}

/* Reads to the head buffer until it holds n bytes or the input ends. */
static size_t head_fill(pcdpy_src *s, size_t n)
{
    if (n > sizeof s->head) n = sizeof s->head;
    while (s->head_len < n && !s->eof) {
        size_t got = 0;
        s->serve_head = false;
        pcd_status st = raw_read(s, s->head + s->head_len, n - s->head_len, &got);
        s->serve_head = true;
        if (st != PCD_OK || got == 0) break;
        s->head_len += got;
    }
    return s->head_len;
}

/* Everything (after the head) into one malloc'ed buffer, at most limit bytes. */
static int read_all(pcdpy_src *s, pcd_read_fn fn, void *ud, size_t limit, uint8_t **out, size_t *len)
{
    size_t cap = (size_t)1 << 20, n = 0;
    if (limit && cap > limit) cap = limit;
    uint8_t *buf = malloc(cap ? cap : 1);
    if (!buf) return -1;
    for (;;) {
        if (n == cap) {
            if (limit && cap >= limit) {
                free(buf);
                errno = EFBIG;
                return -1;
            }
            size_t nc = limit && cap * 2 > limit ? limit : cap * 2;
            uint8_t *nb = realloc(buf, nc);
            if (!nb) {
                free(buf);
                return -1;
            }
            buf = nb;
            cap = nc;
        }
        size_t got = 0;
        if (fn(ud, buf + n, cap - n, &got) != PCD_OK) {
            free(buf);
            errno = EIO;
            return -1;
        }
        if (got == 0) break;
        n += got;
    }
    (void)s;
    *out = buf;
    *len = n;
    return 0;
}

/* ---- opening ------------------------------------------------------------------------------------ */

void pcdpy_src_close(pcdpy_src *s)
{
    if (!s) return;
    if (s->reader_open) pcd_reader_close(&s->r);
    if (s->gz) {
        pcd_gzin_close(s->gz);
        free(s->gz);
    }
    if (s->map) {
        if (s->mapped) munmap(s->map, s->map_len);
        else free(s->map);
    }
    if (s->fd >= 0) close(s->fd);
    Py_XDECREF(s->file);
    Py_XDECREF(s->readinto);
    Py_XDECREF(s->read);
    Py_XDECREF(s->exc_type);
    Py_XDECREF(s->exc_value);
    Py_XDECREF(s->exc_tb);
    free(s->name);
    free(s);
}

static pcdpy_src *fail_open(pcdpy_src *s)
{
    pcdpy_src_close(s);
    return NULL;
}

/* The name of a file object for messages: its .name, else its repr. */
static char *object_name(PyObject *o)
{
    PyObject *n = PyObject_GetAttrString(o, "name");
    if (!n || !PyUnicode_Check(n)) {
        PyErr_Clear();
        Py_XDECREF(n);
        n = PyObject_Repr(o);
        if (!n) {
            PyErr_Clear();
            return strdup("(file object)");
        }
    }
    PyObject *b = PyUnicode_EncodeFSDefault(n);
    Py_DECREF(n);
    if (!b) {
        PyErr_Clear();
        return strdup("(file object)");
    }
    char *r = strdup(PyBytes_AsString(b));
    Py_DECREF(b);
    return r;
}

pcdpy_src *pcdpy_src_open(PyObject *what, const pcdpy_open_opts *o)
{
    pcdpy_src *s = calloc(1, sizeof *s);
    if (!s) return (pcdpy_src *)PyErr_NoMemory();
    s->fd = -1;
    s->poll_fd = -1;
    s->max_memory = o->max_memory ? o->max_memory : (size_t)2 << 30;
    bool is_path = PyUnicode_Check(what) || PyBytes_Check(what) || PyObject_HasAttrString(what, "__fspath__");
    if (is_path) {
        PyObject *fs = NULL;
        if (!PyUnicode_FSConverter(what, &fs)) return fail_open(s);
        s->name = strdup(PyBytes_AsString(fs));
        Py_DECREF(fs);
        if (!s->name) return (pcdpy_src *)PyErr_NoMemory();
        Py_BEGIN_ALLOW_THREADS
        s->fd = open(s->name, O_RDONLY | O_CLOEXEC);
        Py_END_ALLOW_THREADS
        if (s->fd < 0) {
            PyErr_SetFromErrnoWithFilename(PyExc_OSError, s->name);
            return fail_open(s);
        }
        struct stat st;
        if (fstat(s->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            PyErr_SetFromErrnoWithFilename(PyExc_OSError, s->name);
            return fail_open(s);
        }
        if (fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode)) {
            s->is_regular = true;
            s->size = (uint64_t)st.st_size;
        } else {
            s->poll_fd = s->fd;
        }
    } else {
        s->name = object_name(what);
        s->file = what;
        Py_INCREF(what);
        s->readinto = PyObject_GetAttrString(what, "readinto1");
        if (!s->readinto) {
            PyErr_Clear();
            s->readinto = PyObject_GetAttrString(what, "readinto");
        }
        /* a pipe's or a socket's file object: its descriptor can say whether data is there */
        PyObject *fno = PyObject_CallMethod(what, "fileno", NULL);
        if (fno && PyLong_Check(fno)) {
            int fd = (int)PyLong_AsLong(fno);
            struct stat st;
            if (!PyErr_Occurred() && fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
                s->poll_fd = fd;
        }
        Py_XDECREF(fno);
        PyErr_Clear();
        if (!s->readinto) {
            PyErr_Clear();
            s->read = PyObject_GetAttrString(what, "read");
            if (!s->read) {
                PyErr_Clear();
                pcdpy_fail(PyExc_TypeError, "open() takes a path or a binary file object (with read or readinto)");
                return fail_open(s);
            }
        }
    }
    /* the first bytes: enough to tell the format (a pipe: until its start names one) */
    uint8_t head[512];
    size_t n, want = sizeof head;
    if (s->is_regular) {
        ssize_t r;
        Py_BEGIN_ALLOW_THREADS
        r = pread(s->fd, head, sizeof head, 0);
        Py_END_ALLOW_THREADS
        n = r < 0 ? 0 : (size_t)r;
    } else {
        s->serve_head = true;
        for (want = 16;; want *= 2) {
            pcdpy_src_release(s);
            n = head_fill(s, want);
            pcdpy_src_acquire(s);
            if (s->exc_type) {
                pcdpy_src_reraise(s);
                return fail_open(s);
            }
            if (n < want || want == sizeof head ||
                (o->format ? n >= 2 : pcd_detect_known_start(pcdpy.formats, pcdpy.n_fmts, s->head, n)))
                break;
        }
        memcpy(head, s->head, n);
    }
    bool whole = s->is_regular ? s->size <= n : n < want;
    /* the source's allocator: gzip's state and buffer, then the reader */
    pcd_alloc_init(&s->al, pcd_alloc_libc, NULL, s->max_memory);
    if (pcd_gzin_is_gzip(head, n)) {
        /* gzip (Mono's zip option, pprof): everything below reads the decompressed stream */
        s->gz = malloc(sizeof *s->gz);
        if (!s->gz || pcd_gzin_open(s->gz, raw_read, s, 0, &s->al) != 0) {
            free(s->gz);
            s->gz = NULL;
            pcdpy_fail(pcdpy.UsageError, "%s: cannot start decompressing", s->name);
            return fail_open(s);
        }
        pcdpy_src_release(s);
        n = pcd_gzin_peek(s->gz, head, sizeof head);
        pcdpy_src_acquire(s);
        if (s->exc_type) {
            pcdpy_src_reraise(s);
            return fail_open(s);
        }
        whole = n < sizeof head;
        if (s->gz->error && n < sizeof head) {
            pcdpy_fail(pcdpy.DamagedInput, "%s: gzip: %s", s->name, s->gz->error);
            return fail_open(s);
        }
    }
    if (o->format) {
        /* a text format named (format="collapsed"): read as it is, no reader */
        if (o->text_ok && (s->text = pcd_text_find(o->format))) return s;
        s->f = pcdpy_find_format(o->format);
        if (!s->f) return fail_open(s);
    } else {
        pcd_detect_why why;
        s->f = pcd_detect(pcdpy.formats, pcdpy.n_fmts, head, n, whole, &why);
        /* no format of schemas: text that one of the text formats' rules tells */
        if (!s->f && why.unknown && o->text_ok && (s->text = pcd_text_detect(head, n, whole))) return s;
        if (!s->f) {
            const pcd_text_format *t = why.unknown ? pcd_text_detect(head, n, whole) : NULL;
            if (t) {
                pcdpy_fail(pcdpy.UsageError, "%s: %s: convert(), merge() and top() read it (it has no records to "
                           "open)", s->name, t->title);
            } else if (why.unknown) {
                pcdpy_fail(pcdpy.UsageError, "%s: %s; name it with format= (see profcodec.formats())", s->name, why.msg);
            } else {
                pcdpy_err err;
                pcdpy_err_capture(&err, &why.err);
                PyObject *exc = pcdpy_damage_exc(&err, s->name, 0);
                if (exc) {
                    PyObject *text = PyUnicode_FromFormat("%s: %s", s->name, why.msg);
                    PyObject *args = text ? PyTuple_Pack(1, text) : NULL;
                    if (args) PyObject_SetAttrString(exc, "args", args);
                    Py_XDECREF(args);
                    Py_XDECREF(text);
                    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
                    Py_DECREF(exc);
                }
            }
            return fail_open(s);
        }
    }
    size_t window = (size_t)1 << 20;
    while (window > 4096 && window > s->max_memory / 8) window /= 2;
    pcd_reader_opts ro = { &s->al, NULL, window, o->validate_only, o->threads };
    pcd_status st;
    if (s->gz && (s->f->flags & PCD_FMT_STREAMABLE)) {
        st = pcd_reader_open(&s->r, s->f, pcd_gzin_read, s->gz, &ro);
    } else if (s->gz) {
        size_t len = 0;
        const uint8_t *gzbuf = NULL;
        s->gz->limit = s->max_memory;
        int rc;
        pcdpy_src_release(s);
        rc = pcd_gzin_load(s->gz, &gzbuf, &len);
        pcdpy_src_acquire(s);
        if (rc != 0) {
            if (!pcdpy_src_reraise(s))
                pcdpy_fail(pcdpy.DamagedInput, "%s: gzip: %s", s->name, s->gz->error ? s->gz->error : "out of memory");
            return fail_open(s);
        }
        st = pcd_reader_open_buffer(&s->r, s->f, gzbuf, len, &ro);
    } else if (s->f->flags & PCD_FMT_STREAMABLE) {
        st = pcd_reader_open(&s->r, s->f, raw_read, s, &ro);
    } else {
        /* read whole: a regular file mapped, anything else read to its end */
        if (s->is_regular && s->size > 0 && s->size <= SIZE_MAX) {
            void *p = mmap(NULL, (size_t)s->size, PROT_READ, MAP_PRIVATE, s->fd, 0);
            if (p == MAP_FAILED) {
                PyErr_SetFromErrnoWithFilename(PyExc_OSError, s->name);
                return fail_open(s);
            }
            madvise(p, (size_t)s->size, MADV_SEQUENTIAL | MADV_WILLNEED);
            s->map = p;
            s->map_len = (size_t)s->size;
            s->mapped = true;
        } else {
            pcdpy_src_release(s);
            int rc = read_all(s, raw_read, s, s->max_memory, &s->map, &s->map_len);
            pcdpy_src_acquire(s);
            if (rc != 0) {
                if (pcdpy_src_reraise(s)) return fail_open(s);
                if (errno == EFBIG)
                    pcdpy_fail(pcdpy.LimitError, "%s: a %s file is read whole, and this input is larger than "
                                                 "max_memory", s->name, s->f->name);
                else
                    PyErr_SetFromErrnoWithFilename(PyExc_OSError, s->name);
                return fail_open(s);
            }
        }
        st = pcd_reader_open_buffer(&s->r, s->f, s->map ? s->map : (const uint8_t *)"", s->map_len, &ro);
    }
    if (st != PCD_OK) {
        pcdpy_fail(st == PCD_E_NOMEM ? pcdpy.LimitError : pcdpy.UsageError, "%s: cannot start reading: %s", s->name,
                   pcd_status_name(st));
        return fail_open(s);
    }
    s->reader_open = true;
    return s;
}

void pcdpy_src_text_stream(pcdpy_src *s, pcd_read_fn *fn, void **ud)
{
    if (s->gz) {
        *fn = pcd_gzin_read;
        *ud = s->gz;
    } else {
        *fn = raw_read;
        *ud = s;
    }
}
