/* reader_fuzz.c: CPython 3.15's binary profile reader (Modules/_remote_debugging/
 * binary_io_reader.c) under libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 * Only the reader is built from source, instrumented (-fsanitize=address,undefined,
 * fuzzer-no-link); the interpreter around it is Debian's libpython3.15 (3.15.2), not
 * instrumented, embedded once (Py_Initialize). fuzz/others/cpython.sh builds it all and says
 * where the reader's source comes from. Python's allocator is set to malloc, so that the
 * reader's PyMem_Malloc'd buffers are ASan's to watch.
 *
 * Each input is written to a memory file and opened through its /proc/self/fd path, as the
 * reader wants a path; then what `python3.15 -m profiling.sampling replay` does with a file:
 * binary_reader_open, binary_reader_get_info, binary_reader_replay into a minimal collector
 * (which touches every frame's fields, as a real one would), binary_reader_get_stats,
 * binary_reader_close. The reader may reject a file with ValueError or OSError: that is its
 * way; any other exception (SystemError, MemoryError on a small input, ...) aborts and is a
 * finding, like the sanitizers' reports.
 *
 * One filter, before the reader: an input whose footer counts more strings or frames than it has
 * bytes is not given to it. The reader built here (the code index's, older than 3.15.2)
 * allocates the footer's counts before it reads the tables: a few hundred bytes make it ask for
 * tens of GB (libFuzzer's out-of-memory, or ASan's allocator failing, or half a minute of
 * page faults). 3.15.2 checks the counts against the bytes first ("Invalid string count N
 * exceeds maximum possible M", M below the file's size: each string or frame takes at least one
 * byte), so it rejects every input this skips; without the filter these stop the campaign every
 * few seconds (docs/fuzzing.md has the first runs' figures). The structure-aware mutators come
 * from profcodec's
 * libFuzzer plugin (libpcdmut_libfuzzer.a, PCD_MUT_FORMAT=tachyon). With a file as its
 * argument it reads that file once (libFuzzer's own way): how `profcodec fuzz --replay`
 * triages (PCD_READER_VERBOSE=1: what became of each input, on standard error). */
#ifndef Py_BUILD_CORE_MODULE
#define Py_BUILD_CORE_MODULE
#endif
#define PY_SSIZE_T_CLEAN
#include "binary_io.h"
#include "_remote_debugging.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static RemoteDebuggingState state;
static PyObject *collector, *path;
static int fd = -1, verbose;

RemoteDebuggingState *RemoteDebugging_GetState(PyObject *module)
{
    (void)module;
    return &state;
}

static PyStructSequence_Field frame_fields[] = {
    {"filename", NULL}, {"location", NULL}, {"funcname", NULL}, {"opcode", NULL}, {NULL, NULL}};
static PyStructSequence_Field thread_fields[] = {
    {"thread_id", NULL}, {"status", NULL}, {"frame_info", NULL}, {NULL, NULL}};
static PyStructSequence_Field interp_fields[] = {{"interpreter_id", NULL}, {"threads", NULL}, {NULL, NULL}};
static PyStructSequence_Desc frame_desc = {"_remote_debugging.FrameInfo", NULL, frame_fields, 4};
static PyStructSequence_Desc thread_desc = {"_remote_debugging.ThreadInfo", NULL, thread_fields, 3};
static PyStructSequence_Desc interp_desc = {"_remote_debugging.InterpreterInfo", NULL, interp_fields, 2};

static struct PyModuleDef shim_def = {PyModuleDef_HEAD_INIT, "_remote_debugging", NULL, -1, NULL, NULL, NULL, NULL, NULL};

static PyObject *shim_init(void)
{
    return PyModule_Create(&shim_def);
}

static const char collector_py[] =
    "class Collector:\n"
    "    samples = 0\n"
    "    def collect(self, stack_frames, timestamps_us=None):\n"
    "        n = len(timestamps_us) if timestamps_us else 1\n"
    "        for interp in stack_frames:\n"
    "            for th in interp.threads:\n"
    "                for f in th.frame_info:\n"
    "                    (f.filename, f.funcname, f.location, f.opcode)\n"
    "                self.samples += n\n"
    "collector = Collector()\n";

static void die(const char *what)
{
    if (PyErr_Occurred())
        PyErr_Print();
    fprintf(stderr, "reader_fuzz: %s\n", what);
    exit(2);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    PyPreConfig pre;
    PyPreConfig_InitPythonConfig(&pre);
    pre.allocator = PYMEM_ALLOCATOR_MALLOC;
    if (PyStatus_Exception(Py_PreInitialize(&pre)))
        die("Py_PreInitialize failed");
    if (PyImport_AppendInittab("_remote_debugging", shim_init) < 0)
        die("PyImport_AppendInittab failed");
    Py_InitializeEx(0); /* PYTHONHOME: the root holding Debian's python3.15 standard library */
    state.FrameInfo_Type = PyStructSequence_NewType(&frame_desc);
    state.ThreadInfo_Type = PyStructSequence_NewType(&thread_desc);
    state.InterpreterInfo_Type = PyStructSequence_NewType(&interp_desc);
    if (!state.FrameInfo_Type || !state.ThreadInfo_Type || !state.InterpreterInfo_Type)
        die("cannot make the struct sequence types");
    PyObject *globals = PyDict_New();
    if (!globals || PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) < 0)
        die("no globals");
    PyObject *r = PyRun_String(collector_py, Py_file_input, globals, globals);
    if (!r)
        die("cannot define the collector");
    Py_DECREF(r);
    collector = PyDict_GetItemString(globals, "collector");
    Py_XINCREF(collector);
    fd = memfd_create("tachyon-input", 0);
    if (!collector || fd < 0)
        die("no collector or no memory file");
    char buf[64];
    snprintf(buf, sizeof buf, "/proc/self/fd/%d", fd);
    path = PyUnicode_FromString(buf);
    const char *v = getenv("PCD_READER_VERBOSE"); /* 1: say what became of each input */
    verbose = v && *v == '1';
    if (!path)
        die("no path");
    return 0;
}

/* The reader's own way to refuse a file: ValueError or OSError. Anything else is a finding. */
static void expected(const char *where)
{
    if (PyErr_ExceptionMatches(PyExc_ValueError) || PyErr_ExceptionMatches(PyExc_OSError)) {
        if (verbose) {
            fprintf(stderr, "reader_fuzz: %s rejected the file: ", where);
            PyErr_Print();
        }
        PyErr_Clear();
        return;
    }
    PyErr_Print();
    fprintf(stderr, "reader_fuzz: %s raised what the reader should not (or returned NULL with no error)\n", where);
    abort();
}

/* 1 when the footer counts more strings or frames than the input has bytes (see above). */
static int counts_beyond_bytes(const uint8_t *data, size_t size)
{
    if (size < FILE_HEADER_PLACEHOLDER_SIZE || size < FILE_FOOTER_SIZE)
        return 0;
    uint32_t magic, strings, frames;
    memcpy(&magic, data + HDR_OFF_MAGIC, 4);
    memcpy(&strings, data + size - FILE_FOOTER_SIZE + FTR_OFF_STRINGS, 4);
    memcpy(&frames, data + size - FILE_FOOTER_SIZE + FTR_OFF_FRAMES, 4);
    if (magic == BINARY_FORMAT_MAGIC_SWAPPED) {
        strings = __builtin_bswap32(strings);
        frames = __builtin_bswap32(frames);
    }
    return strings > size || frames > size;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (counts_beyond_bytes(data, size)) {
        if (verbose)
            fprintf(stderr, "reader_fuzz: skipped: the footer counts more strings or frames than there are bytes\n");
        return 0;
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size)) {
        perror("memfd");
        abort();
    }
    BinaryReader *reader = binary_reader_open(path);
    if (!reader) {
        expected("binary_reader_open");
        return 0;
    }
    PyObject *info = binary_reader_get_info(reader);
    if (info)
        Py_DECREF(info);
    else
        expected("binary_reader_get_info");
    Py_ssize_t n = binary_reader_replay(reader, collector, Py_None);
    if (n < 0)
        expected("binary_reader_replay");
    else if (verbose)
        fprintf(stderr, "reader_fuzz: accepted, samples %zd\n", n);
    PyObject *stats = binary_reader_get_stats(reader);
    if (stats)
        Py_DECREF(stats);
    else
        expected("binary_reader_get_stats");
    binary_reader_close(reader);
    return 0;
}
