/* common/json_mem.c: jansson's allocation functions, on the calling thread's pcd_alloc. */
#include "common/json_mem.h"

#include <jansson.h>
#include <pthread.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* What a scope sets, per thread: the installed pair reads it. */
typedef struct cur_state {
    pcd_alloc *al;
    bool refused;
} cur_state;
static _Thread_local cur_state cur;

/* Two modules of one process may each carry a copy of this file (the Python module and the test
 * fixtures' extension, pcdfx, both link the library statically, and Python loads them with
 * RTLD_LOCAL, so they share no symbol), while libjansson and its one pair are shared. The copy
 * whose pair jansson has is the one whose state counts: a later copy finds it through that pair
 * (a call of its malloc function with PROBE, a size jansson never asks for, gives its `ops`) and
 * sets that state from then on. (Each copy on its own state, the Python module's scopes did
 * nothing once pcdfx had installed its pair: test_encode's LimitError test failed.) */
#define PROBE SIZE_MAX
#define OPS_MAGIC UINT64_C(0x7063646a736f6e31) /* "pcdjson1" */
typedef struct ops {
    uint64_t magic;
    cur_state *(*state)(void);   /* the calling thread's state of the copy that installed */
} ops;
static cur_state *own_state(void) { return &cur; }
static const ops own_ops = { OPS_MAGIC, own_state };
static const ops *use = &own_ops;   /* whose state this copy's scopes set */

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
    if (n == PROBE) return (void *)&own_ops;
    if (n > SIZE_MAX - HEAD) return NULL;
    size_t total = n + HEAD;
    pcd_alloc *al = cur.refused ? NULL : cur.al;
    head *h = al ? pcd_alloc_get(al, total) : NULL;
    if (!h && al) cur.refused = true;
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

/* Another copy's pair: adopt its state. A pair a host process set (an embedding program, another
 * extension that uses jansson) is left alone: its objects would reach our free, ours its; our
 * scopes then change nothing (jansson's memory uncapped). jansson's defaults are not probed (a
 * malloc of SIZE_MAX is an error under ASan). */
static void install(void)
{
    json_malloc_t m = NULL;
    json_free_t f = NULL;
    json_get_alloc_funcs(&m, &f);
    if (m && m != json_get && m != malloc) {
        const ops *o = m(PROBE);
        if (o && o->magic == OPS_MAGIC) use = o;
        return;
    }
    json_set_alloc_funcs(json_get, json_put);
}

void pcd_json_mem_install(void) { pthread_once(&installed, install); }

void pcd_json_mem_enter(pcd_json_mem_scope *s, pcd_alloc *al)
{
    cur_state *c = use->state();
    s->prev = c->al;
    s->prev_refused = c->refused;
    c->al = al;
    c->refused = false;
}

bool pcd_json_mem_leave(pcd_json_mem_scope *s)
{
    cur_state *c = use->state();
    bool r = c->refused;
    c->al = s->prev;
    c->refused = s->prev_refused;
    return r;
}

bool pcd_json_mem_refused(void)
{
    cur_state *c = use->state();
    bool r = c->refused;
    c->refused = false;
    return r;
}
