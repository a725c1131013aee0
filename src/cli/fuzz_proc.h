/* cli/fuzz_proc.h: running a reader under test (`profcodec fuzz`): a command template whose
 * "{}" is the input's path, in a process group of its own, with a time limit, a cap on its
 * resident memory, and what it printed kept for the report. Process running is the CLI's:
 * nothing below src/cli forks. */
#ifndef PCD_CLI_FUZZ_PROC_H
#define PCD_CLI_FUZZ_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pcd.h"

/* The fuzz command's memory, through the tool's allocator (pcd_alloc_sized blocks). */
static inline void *pcd_fz_zalloc(pcd_alloc *al, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = pcd_alloc_sized(al, n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

static inline char *pcd_fz_strdup(pcd_alloc *al, const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = pcd_alloc_sized(al, n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The command: argv[0] is looked up in PATH; "{}" anywhere in an argument becomes the input's
 * path. Without any "{}" the input is the target's standard input. */
typedef struct pcd_fz_cmd {
    char **argv;
    int argc;
    bool on_stdin;
} pcd_fz_cmd;

typedef struct pcd_fz_limits {
    double timeout_s;         /* a run longer than this is a hang (0: none); one that had less
                               * than a quarter of it in CPU time (a loaded machine) gets more
                               * wall time, up to 4 x */
    uint64_t rss_limit;       /* bytes of resident memory of the target's processes (0: none) */
    int hang_signal;          /* sent to the group at the time limit before SIGKILL, for a
                               * stack dump (Go and Mono print one on SIGQUIT); 0: none */
    double hang_grace_s;      /* how long to wait for that dump */
    size_t capture;           /* bytes of standard output and of standard error kept (each) */
} pcd_fz_limits;

typedef enum pcd_fz_end {
    FZ_EXITED,                /* code: its exit status */
    FZ_SIGNALED,              /* code: the signal (not ours) */
    FZ_TIMEOUT,               /* killed at the time limit */
    FZ_MEMORY,                /* killed at the memory cap, or its peak went over it */
    FZ_NOEXEC                 /* could not be started: code is errno */
} pcd_fz_end;

/* What one run kept: the end, the times, the peak memory and the captured text (a head and a
 * tail when the target wrote more than the capture). */
typedef struct pcd_fz_run {
    pcd_fz_end end;
    int code;
    double wall_s;
    uint64_t max_rss;         /* bytes, the largest process of the group that was waited for */
    char *out, *err;          /* NUL-terminated; owned by the runner */
    size_t out_len, err_len;
    uint64_t out_total, err_total;  /* bytes the target wrote (more than kept when truncated) */
} pcd_fz_run;

/* A capture buffer: the first half of the capture, then the latest bytes in a ring. */
typedef struct pcd_fz_capture {
    char *buf;
    size_t cap, len;          /* head: buf[0..min(len, cap/2)) */
    size_t ring_at;           /* next write position in the tail ring buf[cap/2..cap) */
    uint64_t total;
    char *lin;                /* linearised text for pcd_fz_run (head, a marker, tail) */
    size_t lin_cap;
} pcd_fz_capture;

typedef struct pcd_fz_runner {
    pcd_fz_capture out, err;
    char **argv;              /* the template with {} replaced */
    char *argbuf;
    size_t argbuf_cap;
    bool pidfd_ok;            /* pidfd_open works here (else the loop polls waitpid) */
    pid_t child;              /* the running target (0: none): pcd_fz_runner_kill stops it */
    pcd_alloc *al;            /* the buffers above */
} pcd_fz_runner;

/* The buffers come from al (which must outlive r). */
int pcd_fz_runner_init(pcd_fz_runner *r, size_t capture, pcd_alloc *al);
void pcd_fz_runner_free(pcd_fz_runner *r);

/* Runs cmd on the input at `path` (which must exist while it runs). *stop becoming non-zero
 * (Ctrl-C) kills the target at once: the run then ends FZ_SIGNALED with SIGKILL and *stop still
 * set, so the caller can tell. Returns 0, or -1 when the runner itself failed (errno). */
int pcd_fz_runner_run(pcd_fz_runner *r, const pcd_fz_cmd *cmd, const char *path, const pcd_fz_limits *lim, pcd_fz_run *res,
                  volatile sig_atomic_t *stop);

/* Does the command template name the input ("{}")? */
bool pcd_fz_cmd_init(pcd_fz_cmd *c, int argc, char **argv);

/* "SIGSEGV" and the like (or "signal N"). */
const char *pcd_fz_signal_name(int sig);

#endif
