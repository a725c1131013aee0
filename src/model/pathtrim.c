/* model/pathtrim.c: the automatic common-prefix trim of two profiles compared (pathtrim.h). */
#include "model/pathtrim.h"

#include <stdlib.h>
#include <string.h>

#include "common/vec.h"

/* A function of one side: its name and file, as bytes of that side's string table. */
typedef struct fn_file {
    pcd_bytes name, file;
} fn_file;

/* A prefix pair one (name, fa, fb) votes for. */
typedef struct cand {
    pcd_bytes a, b;
} cand;

/* Pairs of files looked at per function name, at most: a name that is in very many files on
 * both sides (Python's <module>) is left out past it, so the search stays linear in practice. */
#define PAIRS_PER_NAME 4096u

static int bytes_cmp(pcd_bytes x, pcd_bytes y)
{
    size_t n = x.len < y.len ? x.len : y.len;
    int c = n ? memcmp(x.ptr, y.ptr, n) : 0;
    if (c) return c;
    return x.len < y.len ? -1 : x.len > y.len;
}

static int fn_cmp(const void *x, const void *y)
{
    const fn_file *a = x, *b = y;
    int c = bytes_cmp(a->name, b->name);
    return c ? c : bytes_cmp(a->file, b->file);
}

static int cand_cmp(const void *x, const void *y)
{
    const cand *a = x, *b = y;
    int c = bytes_cmp(a->a, b->a);
    return c ? c : bytes_cmp(a->b, b->b);
}

/* The distinct (name, file) of p's frames that have both, sorted. */
static pcd_status functions(pcd_alloc *al, const pcd_profile *p, fn_file **out, size_t *cap, size_t *n)
{
    *n = 0;
    for (size_t i = 0; i < p->n_frames; i++) {
        const pcd_frame *f = &p->frames[i];
        if (!f->function || !f->file) continue;
        PCD_TRY(PCD_VEC_RESERVE(al, *out, *cap, *n + 1));
        (*out)[(*n)++] = (fn_file){ pcd_profile_text(p, f->function), pcd_profile_text(p, f->file) };
    }
    if (*n) qsort(*out, *n, sizeof **out, fn_cmp);
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (!m || fn_cmp(&(*out)[m - 1], &(*out)[i]) != 0) (*out)[m++] = (*out)[i];
    *n = m;
    return PCD_OK;
}

/* Is file f (of name group g[0..n), sorted by file) in the group? */
static bool in_group(const fn_file *g, size_t n, pcd_bytes f)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = bytes_cmp(g[mid].file, f);
        if (!c) return true;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return false;
}

/* The common tail of fa and fb in whole path components: its length, 0 none. */
static size_t common_tail(pcd_bytes fa, pcd_bytes fb)
{
    size_t k = 0;
    while (k < fa.len && k < fb.len && fa.ptr[fa.len - 1 - k] == fb.ptr[fb.len - 1 - k]) k++;
    /* back to where both start a component: the string's start or after a '/' */
    for (; k > 0; k--) {
        bool sa = k == fa.len || fa.ptr[fa.len - k - 1] == '/';
        bool sb = k == fb.len || fb.ptr[fb.len - k - 1] == '/';
        if (sa && sb && fa.ptr[fa.len - k] != '/') return k;
    }
    return 0;
}

/* Takes prefix (len bytes) off every file of p that starts with it and is longer; *files: how many
 * distinct paths changed. */
static pcd_status apply(pcd_alloc *al, pcd_profile *p, const char *prefix, size_t len, uint32_t *files)
{
    *files = 0;
    if (!len) return PCD_OK;
    size_t n_str = p->strings.n, memo_cap = 0, text_cap = 0;
    pcd_str *memo = NULL;          /* per string id at the start: 1 + its trimmed id, 0 not yet */
    char *text = NULL;
    pcd_status st = PCD_VEC_RESERVE(al, memo, memo_cap, n_str ? n_str : 1);
    if (st == PCD_OK) memset(memo, 0, memo_cap * sizeof *memo);
    bool changed = false;
    for (size_t i = 0; i < p->n_frames && st == PCD_OK; i++) {
        pcd_frame *f = &p->frames[i];
        if (!f->function || !f->file || f->file >= n_str) continue;
        if (!memo[f->file]) {
            pcd_bytes b = pcd_profile_text(p, f->file);
            pcd_str r = f->file;
            if (b.len > len && memcmp(b.ptr, prefix, len) == 0) {
                /* (interning may move the pool b points into: copied first) */
                if ((st = PCD_VEC_RESERVE(al, text, text_cap, b.len - len)) != PCD_OK) break;
                memcpy(text, b.ptr + len, b.len - len);
                r = pcd_profile_str(p, text, b.len - len);
                if ((st = p->oom) != PCD_OK) break;
                (*files)++;
            }
            memo[f->file] = r + 1;
        }
        if (memo[f->file] - 1 != f->file) {
            f->file = memo[f->file] - 1;
            changed = true;
        }
    }
    if (changed) pcd_profile_reindex_frames(p);
    PCD_VEC_FREE(al, memo, memo_cap);
    PCD_VEC_FREE(al, text, text_cap);
    return st;
}

static void shown(char *dst, pcd_bytes b)
{
    size_t n = b.len < PCD_PATH_TRIM_SHOWN - 1 ? b.len : PCD_PATH_TRIM_SHOWN - 1;
    if (n) memcpy(dst, b.ptr, n);
    dst[n] = 0;
}

pcd_status pcd_path_trim_auto(pcd_alloc *al, pcd_profile *a, pcd_profile *b, pcd_path_trim *out)
{
    memset(out, 0, sizeof *out);
    fn_file *fa = NULL, *fb = NULL;
    size_t ca = 0, cb = 0, na = 0, nb = 0, cc = 0, nc = 0, pa_cap = 0, pb_cap = 0;
    cand *c = NULL;
    char *pa = NULL, *pb = NULL;
    pcd_status st = functions(al, a, &fa, &ca, &na);
    if (st == PCD_OK) st = functions(al, b, &fb, &cb, &nb);
    /* the names both sides have, group by group */
    for (size_t i = 0, j = 0; st == PCD_OK && i < na && j < nb;) {
        int o = bytes_cmp(fa[i].name, fb[j].name);
        if (o < 0) {
            i++;
            continue;
        }
        if (o > 0) {
            j++;
            continue;
        }
        size_t i1 = i, j1 = j;
        while (i1 < na && !bytes_cmp(fa[i1].name, fa[i].name)) i1++;
        while (j1 < nb && !bytes_cmp(fb[j1].name, fb[j].name)) j1++;
        if ((uint64_t)(i1 - i) * (j1 - j) <= PAIRS_PER_NAME) {
            for (size_t x = i; x < i1 && st == PCD_OK; x++) {
                if (in_group(fb + j, j1 - j, fa[x].file)) continue; /* it meets already */
                for (size_t y = j; y < j1; y++) {
                    if (in_group(fa + i, i1 - i, fb[y].file)) continue;
                    size_t k = common_tail(fa[x].file, fb[y].file);
                    if (!k) continue;
                    if ((st = PCD_VEC_RESERVE(al, c, cc, nc + 1)) != PCD_OK) break;
                    c[nc++] = (cand){ { fa[x].file.ptr, fa[x].file.len - k }, { fb[y].file.ptr, fb[y].file.len - k } };
                }
            }
        }
        i = i1;
        j = j1;
    }
    /* the pair with the most votes; ties: the shorter prefixes, then the bytes (sorted) */
    size_t best = 0, best_votes = 0;
    if (st == PCD_OK && nc) {
        qsort(c, nc, sizeof *c, cand_cmp);
        for (size_t r = 0; r < nc;) {
            size_t e = r;
            while (e < nc && !cand_cmp(&c[r], &c[e])) e++;
            size_t v = e - r;
            if (v > best_votes || (v == best_votes && c[r].a.len + c[r].b.len < c[best].a.len + c[best].b.len)) {
                best = r;
                best_votes = v;
            }
            r = e;
        }
    }
    if (st == PCD_OK && best_votes) {
        /* the prefixes copied: their bytes are in the tables that apply() adds to */
        cand w = c[best];
        st = PCD_VEC_RESERVE(al, pa, pa_cap, w.a.len + 1);
        if (st == PCD_OK) st = PCD_VEC_RESERVE(al, pb, pb_cap, w.b.len + 1);
        if (st == PCD_OK) {
            if (w.a.len) memcpy(pa, w.a.ptr, w.a.len);
            if (w.b.len) memcpy(pb, w.b.ptr, w.b.len);
            out->votes = best_votes > UINT32_MAX ? UINT32_MAX : (uint32_t)best_votes;
            out->len_a = w.a.len;
            out->len_b = w.b.len;
            shown(out->a, w.a);
            shown(out->b, w.b);
            st = apply(al, a, pa, w.a.len, &out->files_a);
        }
        if (st == PCD_OK) st = apply(al, b, pb, w.b.len, &out->files_b);
    }
    PCD_VEC_FREE(al, fa, ca);
    PCD_VEC_FREE(al, fb, cb);
    PCD_VEC_FREE(al, c, cc);
    PCD_VEC_FREE(al, pa, pa_cap);
    PCD_VEC_FREE(al, pb, pb_cap);
    return st;
}
