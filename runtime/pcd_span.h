/* pcd_span.h: where each field of a record lies in the input (profcodec explain).
 *
 * The generated explain functions (generated/<format>_v<N>_explain.c: the decoders again, with
 * a call before and after each field) record a tree of spans into the context's span list
 * while they decode: a field's name (or an array element's index), its first and last byte.
 * Nothing else calls them, so decoding, validating and the fast paths pay nothing for it. A
 * decode that fails leaves the spans it opened open: the innermost one is the failing field,
 * and the spans closed before it the last good ones. Memory comes from the list's allocator;
 * when it refuses, spans are dropped and `oom` says so (decoding goes on). */
#ifndef PCD_SPAN_H
#define PCD_SPAN_H

#include "pcd_cursor.h"

typedef struct pcd_span {
    const char *name;         /* the field (a union's case; "_tag": the bytes that choose the case;
                               * NULL: an array element, see index) */
    int64_t index;            /* an array element's index, else -1 */
    uint64_t start, end;      /* offsets in the decoded stream, [start, end); end is meaningful
                               * once the span is closed */
    uint32_t parent;          /* 1 + the enclosing span; 0: the record itself */
    bool closed;
} pcd_span;

typedef struct pcd_spans {
    pcd_alloc *al;
    pcd_span *v;              /* in the order they were opened (a parent before its children) */
    size_t n, cap;
    uint32_t cur;             /* 1 + the innermost open span; 0: none */
    bool oom;                 /* spans were dropped: the allocator refused */
} pcd_spans;

void pcd_spans_init(pcd_spans *s, pcd_alloc *al);
/* Forgets the spans (before the next record). */
void pcd_spans_reset(pcd_spans *s);
void pcd_spans_free(pcd_spans *s);

/* For generated explain functions: no-ops unless the context has a span list. */
/* Opens a span at the cursor (a field, or an array element when name is NULL). */
void pcd_span_open(const pcd_cursor *c, const char *name, int64_t index);
/* Closes the innermost open span at the cursor. */
void pcd_span_close(const pcd_cursor *c);
/* A field of n bytes at `at`, with nothing inside (fields read after one bounds check). */
void pcd_span_at(const pcd_cursor *c, const char *name, const uint8_t *at, size_t n);
/* The same at an offset of the stream (an optional magic found where a header or footer says). */
void pcd_span_offset(const pcd_cursor *c, const char *name, uint64_t offset, uint64_t n);

#endif
