/* fuzz/minimize.c: the byte-level minimizer; see minimize.h. */
#include "fuzz/minimize.h"

#include <string.h>

/* One oracle call, counted and budgeted: 1 kept, 0 not, -1 stop. */
static int ask(pcd_fz_oracle fn, void *ud, const uint8_t *p, size_t n, uint64_t max_tries, pcd_fz_min_stats *st)
{
    if (max_tries && st->tries >= max_tries) {
        st->stopped = true;
        return -1;
    }
    st->tries++;
    int r = fn(ud, p, n);
    if (r < 0) st->stopped = true;
    if (r > 0) st->kept++;
    return r;
}

pcd_status pcd_fz_minimize_bytes(pcd_alloc *al, uint8_t *buf, size_t *len, uint64_t max_tries, pcd_fz_oracle fn,
                                 void *ud, pcd_fz_min_stats *st)
{
    memset(st, 0, sizeof *st);
    size_t n = *len, cap = n ? n : 1;
    uint8_t *cand = pcd_alloc_get(al, cap);
    if (!cand) return PCD_E_NOMEM;
    /* 1. chunks away: the largest first; at each size, from the end towards the start (a
     * file's tail is most often what can go) */
    for (size_t chunk = n / 2 ? n / 2 : 1; chunk >= 1 && n > 0 && !st->stopped; chunk /= 2) {
        size_t pos = n > chunk ? n - chunk : 0;
        for (;;) {
            size_t take = pos + chunk <= n ? chunk : n - pos;
            if (take == 0 || take == n) {
                if (pos == 0) break;
                pos = pos > chunk ? pos - chunk : 0;
                continue;
            }
            memcpy(cand, buf, pos);
            memcpy(cand + pos, buf + pos + take, n - pos - take);
            int r = ask(fn, ud, cand, n - take, max_tries, st);
            if (r < 0) break;
            if (r > 0) {
                memcpy(buf, cand, n - take);
                n -= take;
                if (pos > n) pos = n;
            }
            if (pos == 0) break;
            pos = pos > chunk ? pos - chunk : 0;
        }
        if (chunk == 1) break;
    }
    /* 2. bytes to 0, one at a time, where that keeps the failure (fewer values to read) */
    for (size_t i = 0; i < n && !st->stopped; i++) {
        if (buf[i] == 0) continue;
        memcpy(cand, buf, n);
        cand[i] = 0;
        int r = ask(fn, ud, cand, n, max_tries, st);
        if (r < 0) break;
        if (r > 0) buf[i] = 0;
    }
    pcd_alloc_free(al, cand, cap);
    *len = n;
    return PCD_OK;
}
