/* moarvm_v3_columns_fuzz.c: MoarVM heap snapshots, the column decoder. The input chooses up
 * to three snapshots' columns (any values: kinds, sizes, type and frame indexes, reference
 * ranges, descriptions, targets; now and then 20000 collectables, so batches of 16384 entries are
 * crossed) and table rows; they are written as MoarVM lays a file out (zstd level 9, one
 * frame per column) and read back: what the reader finds must be exactly what was written,
 * and every check and converter must cope with whatever the values say. */
#include <stdlib.h>
#include <string.h>

#include "fuzzlib.h"
#include "moarvm_fuzzlib.h"
#include "moarvm_v3.h"
#include "formats/moarvm/write.h"

typedef struct src {
    const uint8_t *p;
    size_t n, pos;
    uint64_t rng;
} src;

/* The input's bytes while they last, then a generator seeded by them. */
static uint64_t next(src *s, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        uint8_t b;
        if (s->pos < s->n) b = s->p[s->pos++];
        else {
            s->rng = s->rng * 6364136223846793005u + 1442695040888963407u;
            b = (uint8_t)(s->rng >> 56);
        }
        v = v << 8 | b;
    }
    return v;
}

static uint8_t *out;
static size_t out_len, out_cap;

static pcd_status grow(void *ud, const uint8_t *p, size_t n)
{
    (void)ud;
    if (out_len + n > out_cap) {
        size_t cap = out_cap ? out_cap : 1 << 16;
        while (cap < out_len + n) cap *= 2;
        uint8_t *q = realloc(out, cap);
        if (!q) return PCD_E_NOMEM;
        out = q;
        out_cap = cap;
    }
    memcpy(out + out_len, p, n);
    out_len += n;
    return PCD_OK;
}

static const char *const names[] = { "root", "A", "B", "C", "file.nqp", "frame", "", "<null>", "x;y" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    src s = { data, size, 0, 0x9e3779b97f4a7c15u };
    for (size_t i = 0; i < size; i++) s.rng = (s.rng ^ data[i]) * 0x100000001b3u;
    uint8_t flags = (uint8_t)next(&s, 1);
    unsigned nsnap = 1 + flags % 3;
    bool sane = flags & 8;          /* values within bounds: the deep checks run */
    bool ended = !(flags & 16);
    out_len = 0;
    static uint8_t sbuf[1 << 16];
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    pcd_sink sk;
    pcd_sink_init(&sk, sbuf, sizeof sbuf, grow, NULL, NULL, &x);
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)512 << 20);
    pcd_moarvm_writer mw;
    if (pcd_moarvm_write_open(&mw, &sk, &al, next(&s, 4), (int64_t)next(&s, 2)) != PCD_OK) abort();
    moarvm_fuzz_expect ex;
    memset(&ex, 0, sizeof ex);
    uint64_t types = 0, frames = 0, strings = 0;
    for (unsigned k = 0; k < nsnap; k++) {
        /* now and then one large snapshot, past a batch of 16384 entries */
        bool large = k == 0 && (flags & 0x24) == 0x24;
        uint64_t n = next(&s, 2) % (large ? 20000 : 300);
        uint64_t nrefs = next(&s, 2) % (large ? 30000 : 600);
        uint16_t *kind = malloc((n + 1) * 2), *csize = malloc((n + 1) * 2);
        uint32_t *tofi = malloc((n + 1) * 4), *rfcnt = malloc((n + 1) * 4);
        uint64_t *rfstr = malloc((n + 1) * 8), *usize = malloc((n + 1) * 8);
        uint64_t *descr = malloc((nrefs + 1) * 8), *target = malloc((nrefs + 1) * 8);
        if (!kind || !csize || !tofi || !rfcnt || !rfstr || !usize || !descr || !target) abort();
        /* table rows this snapshot adds */
        size_t nstr = next(&s, 1) % 5, nty = next(&s, 1) % 4, nfr = next(&s, 1) % 3;
        if (k == 0 && sane) {
            nstr += 6;
            nty += 2;
            nfr += 1;
        }
        const char *strs[10];
        uint32_t repr[8], tname[8], fn[8], fc[8], fl[8], ff[8];
        for (size_t i = 0; i < nstr; i++) strs[i] = names[next(&s, 1) % (sizeof names / sizeof *names)];
        strings += nstr;
        for (size_t i = 0; i < nty; i++) {
            repr[i] = (uint32_t)(sane ? next(&s, 1) % (strings ? strings : 1) : next(&s, 4));
            tname[i] = (uint32_t)(sane ? next(&s, 1) % (strings ? strings : 1) : next(&s, 4));
        }
        for (size_t i = 0; i < nfr; i++) {
            fn[i] = (uint32_t)(sane ? next(&s, 1) % (strings ? strings : 1) : next(&s, 4));
            fc[i] = fn[i];
            fl[i] = (uint32_t)next(&s, 2);
            ff[i] = (uint32_t)(sane ? next(&s, 1) % (strings ? strings : 1) : next(&s, 4));
        }
        types += nty;
        frames += nfr;
        uint64_t refs_left = nrefs;
        for (uint64_t i = 0; i < n; i++) {
            if (sane) {
                kind[i] = i == 0 ? 9 : (uint16_t)(1 + next(&s, 1) % 11);
                tofi[i] = kind[i] <= 3 ? (uint32_t)(next(&s, 1) % (types ? types : 1))
                        : kind[i] == 4 ? (uint32_t)(next(&s, 1) % (frames ? frames : 1)) : 0;
                csize[i] = kind[i] >= 5 ? 0 : (uint16_t)next(&s, 1);
                usize[i] = kind[i] >= 5 ? 0 : next(&s, 1) % 4 == 0 ? next(&s, 2) : 0;
                rfcnt[i] = (uint32_t)(refs_left && i + 1 < n ? next(&s, 1) % 4 : refs_left);
                if (rfcnt[i] > refs_left) rfcnt[i] = (uint32_t)refs_left;
                refs_left -= rfcnt[i];
                rfstr[i] = refs_left;      /* ranges in LIFO order, as MoarVM's worklist */
            } else {
                kind[i] = (uint16_t)next(&s, 2);
                tofi[i] = (uint32_t)next(&s, 4);
                csize[i] = (uint16_t)next(&s, 2);
                usize[i] = next(&s, 8);
                rfcnt[i] = (uint32_t)next(&s, 4);
                rfstr[i] = next(&s, 8);
            }
            if (k < 4) {
                ex.kinds[k][kind[i] >= 1 && kind[i] <= 11 ? kind[i] : 0]++;
                uint64_t a = ex.heap_size[k], b = (uint64_t)csize[i] + usize[i];
                if (b < usize[i] || a > UINT64_MAX - b) ex.heap_size[k] = UINT64_MAX;
                else ex.heap_size[k] = a + b;
            }
        }
        for (uint64_t i = 0; i < nrefs; i++) {
            if (sane) {
                uint64_t t = next(&s, 1) % 3;
                descr[i] = t == 0 ? 0 : t == 1 ? next(&s, 1) << 2 | 1 : (next(&s, 1) % (strings ? strings : 1)) << 2 | 2;
                target[i] = n ? next(&s, 2) % n : 0;
            } else {
                descr[i] = next(&s, 8);
                target[i] = next(&s, 8);
            }
            ex.refkinds[k][descr[i] & 3]++;
        }
        ex.collectables[k] = n;
        ex.references[k] = nrefs;
        pcd_moarvm_snapdata d = { next(&s, 4), k + 1, n, kind, csize, tofi, rfcnt, rfstr, usize, nrefs, descr, target,
                           nstr, strs, nty, repr, tname, nfr, fn, fc, fl, ff, NULL, NULL, NULL };
        if (pcd_moarvm_write_snapshot(&mw, &d) != PCD_OK) abort();
        free(kind);
        free(csize);
        free(tofi);
        free(rfcnt);
        free(rfstr);
        free(usize);
        free(descr);
        free(target);
    }
    ex.snapshots = nsnap;
    if (pcd_moarvm_write_finish(&mw, ended) != PCD_OK) abort();
    pcd_moarvm_write_close(&mw);
    if (al.in_use != 0) abort();
    moarvm_fuzz_above(out, out_len, &ex);
    if (out_len <= 1 << 16) pcd_fuzz_one(&pcd_moarvm_v3_format, out, out_len);
    return 0;
}
