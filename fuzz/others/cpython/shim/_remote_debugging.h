/* _remote_debugging.h (profcodec's, not CPython's): the little of the _remote_debugging module
 * that CPython's binary_io_reader.c needs, so that the reader can be built alone, with the
 * sanitizers and libFuzzer's coverage, and linked with Debian's libpython3.15 (reader_fuzz.c;
 * fuzz/others/cpython.sh puts this folder first on the include path).
 *
 * - RemoteDebuggingState and RemoteDebugging_GetState: the module state the reader takes its
 *   struct sequence types from (FrameInfo, ThreadInfo, InterpreterInfo). reader_fuzz.c makes the
 *   types, with the fields the reader fills, and registers a "_remote_debugging" module of its
 *   own (the reader imports it by that name).
 * - The layout constants that the newest reader of the code index (python/cpython 05b6e216)
 *   uses and that the newest binary_io.h of the index (0890c1a4) does not define yet: the
 *   32-byte footer (string count u32 at 0, frame count u32 at 4) and the 13 fixed bytes of a
 *   sample record (thread id u64, interpreter id u32, encoding byte). Facts of the format, as
 *   CPython 3.15.2 writes it (../shared/specs/NOTES-tachyon.md). */
#ifndef PCD_CPYTHON_REMOTE_DEBUGGING_SHIM_H
#define PCD_CPYTHON_REMOTE_DEBUGGING_SHIM_H

#include "Python.h"

typedef struct {
    PyTypeObject *FrameInfo_Type;
    PyTypeObject *ThreadInfo_Type;
    PyTypeObject *InterpreterInfo_Type;
} RemoteDebuggingState;

RemoteDebuggingState *RemoteDebugging_GetState(PyObject *module);

#ifndef FILE_FOOTER_SIZE
#define FILE_FOOTER_SIZE 32
#endif
#ifndef FTR_OFF_STRINGS
#define FTR_OFF_STRINGS 0
#define FTR_SIZE_STRINGS 4
#define FTR_OFF_FRAMES 4
#define FTR_SIZE_FRAMES 4
#endif
#ifndef SAMPLE_HEADER_FIXED_SIZE
#define SMP_SIZE_THREAD_ID 8
#define SMP_SIZE_INTERPRETER_ID 4
#define SAMPLE_HEADER_FIXED_SIZE (SMP_SIZE_THREAD_ID + SMP_SIZE_INTERPRETER_ID + 1)
#endif

#endif
