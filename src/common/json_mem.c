/* common/json_mem.c: jansson's allocation functions, on the calling thread's pcd_alloc. */
#include "common/json_mem.h"

#include <jansson.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

/* What a scope sets, per thread: the process-wide pair below reads it. */
static _Thread_local pcd_alloc *cur_al;
static _Thread_local bool cur_refused;

/* In front of every block jansson gets: where it came from, and how much was taken. */
typedef struct head {
    pcd_alloc *al;   /* NULL: the C library */
    size_t n;        /* bytes taken, the head included */
} head;
#define HEAD ((sizeof(head) + alignof(max_align_t) - 1) / alignof(max_align_t) * alignof(max_align_t))

/* A block the allocator refuses is not refused to jansson: jansson is not safe against a NULL in
 * its lexer (a failed append to the token's buffer is ignored, and lex_scan_string then asserts,
 * load.c:442, or reads a wrong string: seen in 2.14 with a 150 kB string under --max-memory 1M).
 * So from the refusal to the end of the scope (or pcd_json_mem_refused) jansson's blocks come
 * from the C library, and the caller, told by the refused flag, drops what jansson made and
 * says out of memory. The overshoot is at most what one JSON text's parse takes. */
static void *json_get(size_t n)
{
    if (n > SIZE_MAX - HEAD) return NULL;
    size_t total = n + HEAD;
    pcd_alloc *al = cur_refused ? NULL : cur_al;
    head *h = al ? pcd_alloc_get(al, total) : NULL;
    if (!h && al) cur_refused = true;
    if (!h) {
        al = NULL;
        h = pcd_alloc_libc(NULL, NULL, 0, total);
        if (!h) return NULL;
    }
    h->al = al;
    h->n = total;
    return (char *)h + HEAD;
}

static void json_put(void *p)
{
    if (!p) return;
    head *h = (head *)(void *)((char *)p - HEAD);
    if (h->al) pcd_alloc_free(h->al, h, h->n);
    else pcd_alloc_libc(NULL, h, h->n, 0);
}

static pthread_once_t installed = PTHREAD_ONCE_INIT;

/* Over whatever pair jansson had: whether a host process set its own cannot be told (comparing
 * with malloc and free fails where a sanitizer interposes them), see docs/design.md, Memory. */
static void install(void) { json_set_alloc_funcs(json_get, json_put); }

void pcd_json_mem_install(void) { pthread_once(&installed, install); }

void pcd_json_mem_enter(pcd_json_mem_scope *s, pcd_alloc *al)
{
    s->prev = cur_al;
    s->prev_refused = cur_refused;
    cur_al = al;
    cur_refused = false;
}

bool pcd_json_mem_leave(pcd_json_mem_scope *s)
{
    bool r = cur_refused;
    cur_al = s->prev;
    cur_refused = s->prev_refused;
    return r;
}

bool pcd_json_mem_refused(void)
{
    bool r = cur_refused;
    cur_refused = false;
    return r;
}
