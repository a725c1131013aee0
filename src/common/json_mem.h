/* common/json_mem.h: jansson's memory through the pcd_alloc of the code that uses it.
 *
 * jansson takes one pair of allocation functions per process (json_set_alloc_funcs). This
 * module installs its pair once (pcd_json_mem_install, which the owner of the process calls
 * before any JSON: the CLI's cli_start, the Python module's init) and routes each
 * block to the allocator the calling thread set with pcd_json_mem_enter, so that --max-memory (the
 * CLI) and max_memory (Python) cover JSON too, with several threads each on its own
 * allocator. Outside any scope jansson's blocks come from the C library (pcd_alloc_libc,
 * uncapped). Each block keeps, in a 16-byte header, the allocator it came from and its size,
 * so a block goes back where it came from whatever the scope at its free. The rule: parse and
 * decref in the same scope, so that no block outlives its allocator. */
#ifndef PCD_COMMON_JSON_MEM_H
#define PCD_COMMON_JSON_MEM_H

#include <stdbool.h>

#include "pcd_alloc.h"

typedef struct pcd_json_mem_scope {
    pcd_alloc *prev;      /* the thread's allocator before the scope (scopes nest) */
    bool prev_refused;
} pcd_json_mem_scope;

/* Installs jansson's pair (once; later calls do nothing). Only for the owner of the process,
 * before any jansson object is made: a block made before with jansson's defaults would reach our
 * free without its head, and after it, a block of ours must not go to free() (jansson's
 * documentation tells callers to free json_dumps's string with free(), as test_hostile does:
 * "munmap_chunk(): invalid pointer" when the library installed the pair at load). Without it,
 * scopes change nothing and jansson's memory is uncapped. */
void pcd_json_mem_install(void);

/* From here to pcd_json_mem_leave, jansson allocates on this thread from al (NULL: the C
 * library). */
void pcd_json_mem_enter(pcd_json_mem_scope *s, pcd_alloc *al);
/* Ends the scope. Returns true when the allocator refused jansson a block in it: whatever
 * jansson returned (it may be a whole object: past a refusal its blocks come from the C library,
 * since jansson is not safe against a NULL) is to be dropped, and the answer is out of memory. */
bool pcd_json_mem_leave(pcd_json_mem_scope *s);
/* Whether the allocator refused jansson a block since the scope began or since the last call
 * (the same meaning); clears it. For a scope around many parses (JSON Lines, line by line). */
bool pcd_json_mem_refused(void);

#endif
