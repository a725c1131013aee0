/* fuzz/report.h: what a reader under test said when it failed, read from its text: a sanitizer
 * report (AddressSanitizer, UndefinedBehaviorSanitizer, MemorySanitizer, LeakSanitizer), a Go
 * panic or fatal error, a Python traceback or fatal error, libFuzzer's own verdict, a gdb
 * backtrace; and the signature findings are told apart by (the kind, what happened, the top
 * frames of the stack that are the reader's own). Text in, text out: no allocation, no I/O. */
#ifndef PCD_FUZZ_REPORT_H
#define PCD_FUZZ_REPORT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum pcd_fz_kind {
    PCD_FZ_NONE = 0,
    PCD_FZ_ASAN,              /* AddressSanitizer */
    PCD_FZ_UBSAN,             /* UndefinedBehaviorSanitizer ("runtime error:") */
    PCD_FZ_MSAN,              /* MemorySanitizer */
    PCD_FZ_LSAN,              /* LeakSanitizer */
    PCD_FZ_LIBFUZZER,         /* libFuzzer's own (deadly signal, timeout, out of memory) */
    PCD_FZ_GO,                /* a Go panic or fatal error */
    PCD_FZ_PYTHON,            /* a Python traceback or "Fatal Python error" */
    PCD_FZ_GDB                /* only frames: a gdb backtrace (no report of its own) */
} pcd_fz_kind;

#define PCD_FZ_FRAMES 3       /* frames in a signature */

typedef struct pcd_fz_report {
    pcd_fz_kind kind;
    char what[160];           /* the class of the problem, without numbers or addresses:
                               * "heap-buffer-overflow READ", "index out of range [N] with length N",
                               * "IndexError" */
    char where[160];          /* UBSan's file:line, or the top frame's location ("" unknown) */
    char frames[PCD_FZ_FRAMES][128];  /* the top frames that are the reader's own: function
                                       * names, or module+offset without symbols */
    int n_frames;
    char title[256];          /* one line for people: the report's own first line, tidied */
} pcd_fz_report;

/* Finds the first report in text[0..len) (stderr of the target, then its stdout: call once
 * per text and keep the first that finds one). False when there is none. */
bool pcd_fz_report_parse(const char *text, size_t len, pcd_fz_report *r);

/* Only the frames of a gdb backtrace ("#0  0x... in f (...) at x.c:1"), into r->frames
 * (r->kind becomes PCD_FZ_GDB if it was PCD_FZ_NONE). Returns the number of frames. */
int pcd_fz_gdb_frames(const char *text, size_t len, pcd_fz_report *r);

/* "asan|heap-buffer-overflow READ|f|g|h": what findings are de-duplicated by. `prefix` goes
 * first ("signal SIGSEGV", "hang", "memory"; NULL none). Returns the length written. */
size_t pcd_fz_signature(const char *prefix, const pcd_fz_report *r, char *buf, size_t cap);

/* A line of text with its numbers and hex addresses replaced by "N" (at most cap-1 bytes, up
 * to the end of the line): two messages that differ only in values read the same. */
size_t pcd_fz_normalize_line(const char *s, size_t len, char *buf, size_t cap);

const char *pcd_fz_kind_name(pcd_fz_kind k);

#endif
