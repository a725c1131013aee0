/* libfuzzer.c: CPython 3.15's binary profile reader under libFuzzer, in a CPython built from
 * Debian's python3.15 source with AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's
 * coverage (fuzz/others/cpython.sh builds both). Each input goes to replay.py's check() (the
 * reader as `profiling.sampling replay` uses it) through a memory file; the inputs are made by
 * profcodec's structure-aware mutators (libpcdmut_libfuzzer.a, PCD_MUT_FORMAT=tachyon). An
 * exception check() does not expect (anything but the reader's ValueError and OSError) aborts:
 * a finding, like the sanitizers' reports. Run with one file as its argument it reads that file
 * once (libFuzzer's own way), which is how `profcodec fuzz --replay` triages what it found. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static PyObject *check;
static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    Py_InitializeEx(0); /* PYTHONPATH names the folder of replay.py */
    PyObject *m = PyImport_ImportModule("replay");
    check = m ? PyObject_GetAttrString(m, "check") : NULL;
    if (!check) {
        PyErr_Print();
        fprintf(stderr, "libfuzzer.c: cannot import replay.check (PYTHONPATH?)\n");
        exit(2);
    }
    fd = memfd_create("tachyon-input", 0);
    if (fd < 0) {
        perror("memfd_create");
        exit(2);
    }
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) {
        perror("memfd");
        abort();
    }
    PyObject *r = PyObject_CallFunction(check, "sO", path, Py_True);
    if (!r) {
        PyErr_Print();
        fprintf(stderr, "libfuzzer.c: replay.check raised what the reader should not\n");
        abort();
    }
    Py_DECREF(r);
    return 0;
}
