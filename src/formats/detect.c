/* formats/detect.c: which format an input is, from its first bytes. */
#include "formats/detect.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Does the format's root record decode from these first bytes? 2: it does, completely;
 * 1: as far as they go (more bytes needed); 0: no (*err says why). */
static int root_fits(const pcd_format *f, const uint8_t *p, size_t n, bool whole, pcd_error *err)
{
    /* the root struct on the stack: the largest root of the formats is a few hundred bytes */
    union {
        max_align_t align;
        uint8_t bytes[4096];
    } tmp;
    if (f->root_size > sizeof tmp.bytes) {
        if (err) {
            memset(err, 0, sizeof *err);
            err->status = PCD_E_LIMIT;
            err->expected = "a root record of at most 4096 bytes in memory (detection decodes it on the stack)";
        }
        return 0;
    }
    pcd_arena a;
    uint8_t block[4096];
    pcd_arena_init(&a, block, sizeof block, NULL, 0);
    pcd_ctx x;
    pcd_ctx_init(&x, &a);
    x.version = f->version_num;
    pcd_cursor cur = pcd_cursor_make(&x, p, n, 0, whole);
    pcd_status st = f->root_decode(&cur, tmp.bytes);
    if (st == PCD_OK) return 2;
    if (st == PCD_SHORT_READ) return 1;
    if (err) *err = x.err;
    return 0;
}

/* The formats in the order detection tries them: those with a magic first, then those told by
 * the structure of their first bytes (PCD_FMT_NO_MAGIC: protobuf), which a magic must not lose to. */
static const pcd_format *candidate(const pcd_format *const *fmts, size_t n_fmts, size_t i)
{
    for (int pass = 0; pass < 2; pass++)
        for (size_t k = 0; k < n_fmts; k++)
            if (((fmts[k]->flags & PCD_FMT_NO_MAGIC) != 0) == (pass == 1) && i-- == 0) return fmts[k];
    return NULL;
}

bool pcd_detect_known_start(const pcd_format *const *fmts, size_t n_fmts, const uint8_t *head, size_t n)
{
    for (size_t i = 0; i < n_fmts; i++) {
        pcd_error e;
        memset(&e, 0, sizeof e);
        if (fmts[i]->detect(head, n) == 2 && root_fits(fmts[i], head, n, false, &e) == 2) return true;
    }
    return false;
}

const pcd_format *pcd_detect(const pcd_format *const *fmts, size_t n_fmts, const uint8_t *head, size_t n,
                             bool whole, pcd_detect_why *why)
{
    memset(why, 0, sizeof *why);
    const pcd_format *magic_match = NULL;
    pcd_error first;
    memset(&first, 0, sizeof first);
    /* every candidate that rejected the root at its version field, by the same value */
    bool version_only = true;
    char versions[256] = "";
    size_t vlen = 0;
    for (size_t i = 0; i < n_fmts; i++) {
        const pcd_format *g = candidate(fmts, n_fmts, i);
        int d = g->detect(head, n);
        if (!(d == 2 || (d == 1 && whole && n > 0))) continue;
        if (!magic_match) magic_match = g;
        pcd_error e;
        memset(&e, 0, sizeof e);
        if (root_fits(g, head, n, whole, &e)) return g;
        if (!first.status) first = e;
        char p[64];
        pcd_error_path(&e, p, sizeof p);
        if (e.status != PCD_E_RANGE || strcmp(p, "version") != 0 || strcmp(g->name, magic_match->name) != 0 ||
            e.found_kind != first.found_kind || e.found != first.found)
            version_only = false;
        int k = snprintf(versions + vlen, sizeof versions - vlen, "%s%s", vlen ? ", " : "", g->version);
        if (k > 0 && (size_t)k < sizeof versions - vlen) vlen += (size_t)k;
    }
    if (!magic_match) {
        why->unknown = true;
        snprintf(why->msg, sizeof why->msg, "cannot tell the format%s",
                 n == 0 ? " of an empty input" : " from its first bytes");
        return NULL;
    }
    why->has_error = true;
    why->err = first;
    char msg[512];
    pcd_error_format(&first, msg, sizeof msg);
    if (version_only) {
        const char *found = strstr(msg, ", found ");
        snprintf(why->msg, sizeof why->msg, "unsupported %s version %s (this build reads %s)", magic_match->title,
                 found ? found + 8 : "?", versions);
    } else if (first.status == PCD_E_TRUNCATED) {
        /* the start says which format; the input ends inside its header */
        snprintf(why->msg, sizeof why->msg, "%s", msg);
    } else {
        snprintf(why->msg, sizeof why->msg, "a %s file, but no version this build reads accepts it: %s",
                 magic_match->name, msg);
    }
    return NULL;
}

const pcd_format *pcd_detect_find(const pcd_format *const *fmts, size_t n_fmts, const char *spec)
{
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    const pcd_format *best = NULL;
    for (size_t i = 0; i < n_fmts; i++) {
        const pcd_format *f = fmts[i];
        if (strlen(f->name) != n || memcmp(f->name, spec, n) != 0) continue;
        if (colon && strcmp(f->version, colon + 1) != 0) continue;
        best = f; /* the newest version when none is named (the list is in version order) */
    }
    return best;
}
