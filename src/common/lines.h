/* common/lines.h: text read line by line for the text importers (encode --from), through the
 * caller's allocator (so --max-memory covers it): from a stream (a pcd_read_fn: a pipe stays
 * live, memory is the longest line) or from bytes in memory, where a line can be read again
 * by its offset. Each line is handed out as a writable copy, NUL-terminated, with its '\n'
 * when it has one (as getline(3) gives it; NUL bytes inside are kept and counted). */
#ifndef PCD_COMMON_LINES_H
#define PCD_COMMON_LINES_H

#include "pcd.h"

typedef struct pcd_lines {
    pcd_alloc *al;
    pcd_read_fn read;           /* a stream, or NULL: the bytes mem[0..mem_len) */
    void *ud;
    const uint8_t *mem;
    size_t mem_len;
    uint8_t *buf;               /* stream: bytes read and not yet handed out, buf[start..end) */
    size_t cap, start, end;
    bool eof;
    uint8_t *line;              /* the copy handed out */
    size_t line_cap;
    uint64_t pos;               /* offset of the next line */
} pcd_lines;

void pcd_lines_stream(pcd_lines *l, pcd_alloc *al, pcd_read_fn read, void *ud);
void pcd_lines_memory(pcd_lines *l, pcd_alloc *al, const uint8_t *p, size_t n);
/* The next line into *line (*n bytes, the '\n' included, a NUL after it) and its offset into
 * *offset (may be NULL). PCD_END after the last; PCD_E_NOMEM; the read function's status. */
pcd_status pcd_lines_next(pcd_lines *l, uint8_t **line, size_t *n, uint64_t *offset);
/* Bytes in memory only: the next line is the one at offset. */
pcd_status pcd_lines_seek(pcd_lines *l, uint64_t offset);
void pcd_lines_free(pcd_lines *l);

/* Bytes in memory as an importer's input (pcd_import_args.read and .load): for tests, fuzzing
 * and callers that hold the text already. */
typedef struct pcd_memread {
    const uint8_t *p;
    size_t n, pos;
} pcd_memread;

pcd_status pcd_memread_read(void *ud, uint8_t *dst, size_t cap, size_t *got);
pcd_status pcd_memread_load(void *ud, const uint8_t **p, size_t *n);

#endif
