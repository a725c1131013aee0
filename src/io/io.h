/* io/io.h: files for the CLI and the Python module: input sources (files, pipes; gzip in
 * io/gzin.h) and atomic output files. No global state: an output's cancellation (the temporary
 * files a signal handler removes) is a pcd_output_pending the caller passes in. */
#ifndef PCD_IO_H
#define PCD_IO_H

#include <stdio.h>

#include "pcd.h"

/* An input: a regular file (mapped or read), stdin, or a pipe. */
typedef struct pcd_input {
    const char *name;       /* as given ("-" is stdin) */
    int fd;
    bool is_regular;
    uint64_t size;          /* regular files */
    uint8_t *map;           /* whole-file mapping or buffer, when asked for */
    size_t map_len;
    bool mapped;            /* map came from mmap (else from al, map_cap bytes) */
    size_t map_cap;
    pcd_alloc *al;          /* what a pipe is read into (pcd_input_load) */
    uint64_t released;      /* the mapped pages before it were dropped (pcd_input_release) */
    uint64_t bytes_read;
    /* bytes peeked from a pipe, handed out again by the first reads */
    size_t peek_len, peek_pos;
    uint8_t peek_buf[4096];
} pcd_input;

/* Opens name ("-" = stdin); a pipe read whole goes into memory from al (which must outlive
 * in). On failure returns -1 with errno set. */
int pcd_input_open(pcd_input *in, const char *name, pcd_alloc *al);
/* Reads the whole input into memory (mmap for regular files); a pipe of more than
 * `limit` bytes (0: no limit) fails with errno EFBIG, and with ENOMEM when the allocator
 * refuses (its memory cap). */
int pcd_input_load(pcd_input *in, size_t limit);
void pcd_input_close(pcd_input *in);
/* A reader's release hook (pcd_reader_opts.release) over a mapped input: drops the pages
 * before upto from the process's memory (not from the page cache), so that reading a large
 * file whole takes memory that does not grow with it. Nothing for inputs read into memory. */
void pcd_input_release(void *ud, uint64_t upto);
/* A pcd_read_fn over the input's file descriptor. */
pcd_status pcd_input_read(void *ud, uint8_t *dst, size_t cap, size_t *got);
/* Peeks at the first bytes without consuming them for later reads (buffers for pipes). */
size_t pcd_input_peek(pcd_input *in, uint8_t *dst, size_t n);

/* The temporary files of outputs not yet committed, which the owner of the process (the CLI's
 * signal handler) removes when it is interrupted (Ctrl-C, kill, a closed pipe), so that no
 * half-written file is left behind. Zeroed: none. */
#define PCD_OUTPUT_PENDING_MAX 16
typedef struct pcd_output_pending {
    char *volatile tmp[PCD_OUTPUT_PENDING_MAX];
    char *volatile dir;     /* the temporary directory of a pcd_outdir (its files are in tmp) */
} pcd_output_pending;

/* Removes every pending temporary file, then the temporary directory (async-signal-safe:
 * unlink and rmdir only). */
void pcd_output_pending_unlink(pcd_output_pending *p);

/* An output file written to a temporary name and renamed into place on commit; a device or a
 * pipe that exists (/dev/null, a FIFO) is written in place. */
typedef struct pcd_output {
    const char *name;       /* final name, or "-" for stdout */
    char *tmp;              /* temporary name beside it (tmp_cap bytes from al) */
    size_t tmp_cap;
    pcd_alloc *al;
    int fd;
    FILE *fp;
    bool to_stdout;
    bool in_place;          /* a device or a pipe: no temporary file */
    uint64_t written;
    pcd_output_pending *pending;  /* where its temporary file is listed until commit, or NULL */
} pcd_output;

/* Opens name ("-" or NULL: standard output); pending (NULL: none) lists the temporary file
 * until the output is committed or aborted. The temporary name comes from al (which must
 * outlive out). On failure returns -1 with errno set. */
int pcd_output_open(pcd_output *out, const char *name, pcd_output_pending *pending, pcd_alloc *al);
/* Flushes, fsyncs and renames; on failure the temporary file is removed. */
int pcd_output_commit(pcd_output *out);
/* Removes the temporary file (nothing is left half-written). */
void pcd_output_abort(pcd_output *out);
/* pcd_write_fn / pcd_patch_fn over the output. */
pcd_status pcd_output_write(void *ud, const uint8_t *p, size_t n);
pcd_status pcd_output_patch(void *ud, uint64_t off, const uint8_t *p, size_t n);

/* An output directory (a table per file: --to table): its files are written into a temporary
 * directory beside it, which is renamed into place on commit, so that a reader sees the whole
 * directory or none of it. The name must not exist, or be an empty directory (which is
 * replaced); a directory with files in it is never overwritten. */
#define PCD_OUTDIR_MAX_PARTS 12
typedef struct pcd_outdir {
    char *name;             /* final name, without trailing slashes (from al) */
    char *tmp;              /* the temporary directory beside it (from al) */
    size_t name_cap, tmp_cap;
    pcd_alloc *al;
    pcd_output_pending *pending;
    pcd_output parts[PCD_OUTDIR_MAX_PARTS];
    size_t n_parts;
    bool device;            /* name is a device (/dev/null): every part is written to it, in place */
} pcd_outdir;

/* Opens the directory name. On failure returns -1 with errno set (EEXIST: name exists and is
 * not an empty directory). A character device (/dev/null) takes every part's bytes in place:
 * a run that only checks that an input converts writes nothing anywhere. */
int pcd_outdir_open(pcd_outdir *d, const char *name, pcd_output_pending *pending, pcd_alloc *al);
/* A new file `part` (a plain name) in the directory, written through pcd_output_write; -1 with
 * errno set on failure (EEXIST: a part of that name was opened before). */
int pcd_outdir_part(pcd_outdir *d, const char *part, pcd_output **out);
/* Flushes, fsyncs and closes every part, then renames the directory into place; on failure
 * everything is removed. */
int pcd_outdir_commit(pcd_outdir *d);
/* Removes the temporary directory and its files. */
void pcd_outdir_abort(pcd_outdir *d);

#endif
