/* formats/tachyon/replay.c: stack reconstruction and CPython's replay checks for Tachyon files. */
#include "formats/tachyon/replay.h"
#include "common/hash.h"
#include "common/problem.h"

#include <stdio.h>
#include <string.h>


int pcd_tachyon_config_mode(uint32_t config)
{
    /* mode + 1; 0 is unknown */
    unsigned m = pcd_tachyon_v1_file_config_mode(config);
    return m == 0 || m > sizeof pcd_tachyon_mode_names / sizeof pcd_tachyon_mode_names[0] ? -1 : (int)m - 1;
}

int pcd_tachyon_config_features(uint32_t config)
{
    return pcd_tachyon_v1_file_config_features_known(config) ? pcd_tachyon_v1_file_config_features(config) : -1;
}

pcd_tachyon_loc pcd_tachyon_frame_loc(const pcd_tachyon_v1_frame *f)
{
    pcd_tachyon_loc l = { f->lineno == -1, -1, -1, -1, -1 };
    if (l.none) return l;
    l.lineno = f->lineno;
    l.end_lineno = pcd_tachyon_v1_frame_end_lineno(f);
    l.column = f->column;
    l.end_column = pcd_tachyon_v1_frame_end_column(f);
    return l;
}

/* ---- small open-addressing tables ------------------------------------------------------ */

static void *grow(pcd_alloc *al, void *p, size_t old_n, size_t new_n, size_t elem)
{
    return pcd_alloc_resize(al, p, old_n * elem, new_n * elem);
}

/* ---- the distinct stacks ----------------------------------------------------------------- */
/* h: 4-byte ids into ids[], whose key is a whole stack (its frames in frames[], any depth),
 * hashed a frame at a time as the replay builds it. Not common/hmap.c (docs/design.md, "One
 * hash, one table"): a key of any length cannot be one of the hmap's three words. */

#define STACK_SEED UINT64_C(0x243F6A8885A308D3)

/* The hash of a stack one frame deeper than one whose hash is h. */
PCD_INLINE uint64_t stack_step(uint64_t h, uint32_t frame)
{
    return (h ^ frame) * UINT64_C(0x9E3779B97F4A7C15) + 0x632BE5AB;
}

PCD_INLINE size_t stack_slot(const pcd_tachyon_stacks *st, uint64_t h)
{
    return (size_t)(((h ^ (h >> 29)) * UINT64_C(0xBF58476D1CE4E5B9)) >> st->hshift);
}

static pcd_status stacks_init(pcd_tachyon_stacks *st, pcd_alloc *al)
{
    memset(st, 0, sizeof *st);
    st->al = al;
    st->cap = 4096;
    st->cap_ids = 1024;
    st->hcap = 2048;
    st->hshift = 64 - 11;
    st->frames = pcd_alloc_get(al, st->cap * sizeof *st->frames);
    st->ids = pcd_alloc_get(al, st->cap_ids * sizeof *st->ids);
    st->h = pcd_alloc_get(al, st->hcap * sizeof *st->h);
    if (!st->frames || !st->ids || !st->h) return PCD_E_NOMEM;
    memset(st->h, 0, st->hcap * sizeof *st->h);
    st->ids[0] = (struct pcd_tachyon_stack){ .hash = STACK_SEED };
    st->n = 1;
    return PCD_OK;
}

static void stacks_free(pcd_tachyon_stacks *st)
{
    if (!st->al) return;
    pcd_alloc_free(st->al, st->frames, st->cap * sizeof *st->frames);
    pcd_alloc_free(st->al, st->ids, st->cap_ids * sizeof *st->ids);
    pcd_alloc_free(st->al, st->h, st->hcap * sizeof *st->h);
    memset(st, 0, sizeof *st);
}

static pcd_status stacks_rehash(pcd_tachyon_stacks *st)
{
    size_t ncap = st->hcap * 2;
    uint32_t *nh = pcd_alloc_get(st->al, ncap * sizeof *nh);
    if (!nh) return PCD_E_NOMEM;
    memset(nh, 0, ncap * sizeof *nh);
    pcd_alloc_free(st->al, st->h, st->hcap * sizeof *st->h);
    st->h = nh;
    st->hcap = ncap;
    st->hshift--;
    for (uint32_t id = 1; id < st->n; id++) {
        size_t j = stack_slot(st, st->ids[id].hash);
        while (nh[j]) j = (j + 1) & (ncap - 1);
        nh[j] = id;
    }
    return PCD_OK;
}

/* The id of the stack frames[0..d) (outermost first) whose hash is h, added if new. */
static pcd_status stacks_find(pcd_tachyon_stacks *st, const uint32_t *frames, uint32_t d, uint64_t h, uint32_t *out)
{
    if (d == 0) {
        *out = 0;
        return PCD_OK;
    }
    size_t i = stack_slot(st, h);
    for (;;) {
        uint32_t id = st->h[i];
        if (!id) break;
        const struct pcd_tachyon_stack *k = &st->ids[id];
        if (k->hash == h && k->depth == d && memcmp(st->frames + k->off, frames, d * sizeof *frames) == 0) {
            *out = id;
            return PCD_OK;
        }
        i = (i + 1) & (st->hcap - 1);
    }
    if (st->n == st->cap_ids) {
        if (st->cap_ids > UINT32_MAX / 2) return PCD_E_LIMIT;
        uint32_t ncap = st->cap_ids * 2;
        struct pcd_tachyon_stack *ni = pcd_alloc_resize(st->al, st->ids, st->cap_ids * sizeof *ni, ncap * sizeof *ni);
        if (!ni) return PCD_E_NOMEM;
        st->ids = ni;
        st->cap_ids = ncap;
    }
    if (st->len + d > UINT32_MAX) return PCD_E_LIMIT;
    if (st->cap - st->len < d) {
        size_t ncap = st->cap * 2;
        while (ncap - st->len < d) ncap *= 2;
        uint32_t *nf = pcd_alloc_resize(st->al, st->frames, st->cap * sizeof *nf, ncap * sizeof *nf);
        if (!nf) return PCD_E_NOMEM;
        st->frames = nf;
        st->cap = ncap;
    }
    uint32_t id = st->n++;
    memcpy(st->frames + st->len, frames, d * sizeof *frames);
    st->ids[id] = (struct pcd_tachyon_stack){ .hash = h, .off = (uint32_t)st->len, .depth = (uint16_t)d };
    st->len += d;
    st->h[i] = id;
    *out = id;
    if ((size_t)st->n * 2 > st->hcap) return stacks_rehash(st);
    return PCD_OK;
}

/* ---- threads ---------------------------------------------------------------------------- */

/* A thread's allocation: without stacks, not the frames and hashes. */
static size_t thread_size(const pcd_tachyon_replay *rp)
{
    return rp->with_tree ? sizeof(pcd_tachyon_thread) : offsetof(pcd_tachyon_thread, hash);
}

/* The thread (tid, interp), or NULL. */
static pcd_tachyon_thread *thread_find(const pcd_tachyon_replay *rp, uint64_t tid, uint32_t interp)
{
    /* a profile has a few threads, switched between often: a scan is cheaper than a hash */
    if (rp->n_threads <= 8) {
        for (uint32_t i = 0; i < rp->n_threads; i++)
            if (rp->threads[i]->tid == tid && rp->threads[i]->interp == interp) return rp->threads[i];
        return NULL;
    }
    const pcd_hslot *sl = pcd_hmap_get(&rp->th_map, (pcd_hkey){ tid, interp, 0 });
    return sl ? rp->threads[sl->v0] : NULL;
}

/* ---- errors ------------------------------------------------------------------------------ */

/* Records the replay's error at the record rec: path samples[i].stack.<kase>.<leaf>. */
static pcd_status fail(pcd_tachyon_replay *rp, const pcd_record *rec, pcd_status st, const char *kase,
                       const char *leaf, pcd_found_kind fk, uint64_t found)
{
    pcd_error *e = pcd_problem(&rp->err, st, rec ? rec->offset : 0, rp->expected, fk, found);
    if (leaf) pcd_error_push(e, leaf, -1);
    if (kase) {
        pcd_error_push(e, kase, -1);
        pcd_error_push(e, "stack", -1);
    }
    if (rec) {
        pcd_error_push(e, rec->region ? rec->region->name : "samples", (int64_t)rec->index);
        if (rec->decompressed) {
            e->region = "decompressed samples";
            e->region_offset = PCD_TACHYON_V1_FILE_SAMPLES_AT;
        }
    }
    rp->failed = true;
    return st;
}

/* ---- replay -------------------------------------------------------------------------------- */

pcd_status pcd_tachyon_replay_init(pcd_tachyon_replay *rp, const pcd_tachyon_v1_file *root, pcd_alloc *al, bool with_tree,
                            bool track_used)
{
    memset(rp, 0, sizeof *rp);
    rp->al = al;
    rp->start_time = root->start_time_us;
    rp->declared_samples = root->sample_count;
    rp->declared_threads = root->thread_count;
    rp->frame_count = root->frame_count;
    rp->with_tree = with_tree;
    rp->track_used = track_used;
    if (track_used && root->frame_count <= (UINT32_C(1) << 17)) {
        /* a byte per frame the footer counts (frame indexes are checked against it; a byte,
         * not a bit, so that marking one is a store and not a read-modify-write) */
        rp->used_bytes = pcd_alloc_get(al, (size_t)root->frame_count + 1);
        if (!rp->used_bytes) return PCD_E_NOMEM;
        memset(rp->used_bytes, 0, (size_t)root->frame_count + 1);
    } else if (track_used && root->frame_count <= (UINT32_C(1) << 20)) {
        /* a bit per frame, at most 128 kB whatever the footer claims; beyond that a set of
         * the ones used, which grows with the samples, not with the claim (used_add: a
         * set of 4-byte frame indexes with no value, not common/hmap.c's 48-byte slots;
         * only files whose footer counts more than 2^20 frames use it) */
        rp->used_words = ((size_t)root->frame_count + 63) / 64;
        rp->used_bits = pcd_alloc_get(al, rp->used_words * sizeof(uint64_t) + 8);
        if (!rp->used_bits) return PCD_E_NOMEM;
        memset(rp->used_bits, 0, rp->used_words * sizeof(uint64_t) + 8);
    }
    pcd_hmap_init(&rp->th_map, al);
    if (with_tree) PCD_TRY(stacks_init(&rp->stacks, al));
    return PCD_OK;
}

void pcd_tachyon_replay_free(pcd_tachyon_replay *rp)
{
    if (!rp->al) return;
    for (uint32_t i = 0; i < rp->n_threads; i++) pcd_alloc_free(rp->al, rp->threads[i], thread_size(rp));
    pcd_alloc_free(rp->al, rp->threads, rp->threads_cap * sizeof(pcd_tachyon_thread *));
    pcd_hmap_free(&rp->th_map);
    pcd_alloc_free(rp->al, rp->used, rp->used_cap * sizeof(uint32_t));
    if (rp->used_bits) pcd_alloc_free(rp->al, rp->used_bits, rp->used_words * sizeof(uint64_t) + 8);
    if (rp->used_bytes) pcd_alloc_free(rp->al, rp->used_bytes, (size_t)rp->frame_count + 1);
    stacks_free(&rp->stacks);
    memset(rp, 0, sizeof *rp);
}

static pcd_status used_add(pcd_tachyon_replay *rp, uint32_t idx)
{
    if (rp->used_bits) {
        /* set once: frames repeat, and a store to the same word each time would chain */
        uint64_t m = UINT64_C(1) << (idx & 63);
        if (PCD_UNLIKELY(!(rp->used_bits[idx >> 6] & m))) rp->used_bits[idx >> 6] |= m;
        return PCD_OK;
    }
    if ((rp->used_len + 1) * 10 > rp->used_cap * 7) {
        size_t ncap = rp->used_cap ? rp->used_cap * 2 : 256;
        uint32_t *nu = pcd_alloc_get(rp->al, ncap * sizeof(uint32_t));
        if (!nu) return PCD_E_NOMEM;
        memset(nu, 0, ncap * sizeof(uint32_t));
        for (size_t i = 0; i < rp->used_cap; i++) {
            if (!rp->used[i]) continue;
            size_t j = pcd_mix64(rp->used[i]) & (ncap - 1);
            while (nu[j]) j = (j + 1) & (ncap - 1);
            nu[j] = rp->used[i];
        }
        pcd_alloc_free(rp->al, rp->used, rp->used_cap * sizeof(uint32_t));
        rp->used = nu;
        rp->used_cap = ncap;
    }
    uint32_t v = idx + 1; /* idx < frame_count <= UINT32_MAX: never wraps to 0 */
    size_t i = pcd_mix64(v) & (rp->used_cap - 1);
    while (rp->used[i]) {
        if (rp->used[i] == v) return PCD_OK;
        i = (i + 1) & (rp->used_cap - 1);
    }
    rp->used[i] = v;
    rp->used_len++;
    return PCD_OK;
}

uint32_t pcd_tachyon_replay_stack_inner(const pcd_tachyon_replay *rp, uint32_t id, uint32_t *out)
{
    uint32_t d;
    const uint32_t *f = pcd_tachyon_replay_stack(rp, id, &d);
    for (uint32_t i = 0; i < d; i++) out[i] = f[d - 1 - i];
    return d;
}

bool pcd_tachyon_replay_used(const pcd_tachyon_replay *rp, uint32_t idx)
{
    if (rp->used_bytes) return idx < rp->frame_count && rp->used_bytes[idx];
    if (rp->used_bits) return idx < rp->frame_count && (rp->used_bits[idx >> 6] >> (idx & 63) & 1);
    if (!rp->used_cap || idx == UINT32_MAX) return false;
    uint32_t v = idx + 1;
    for (size_t i = pcd_mix64(v) & (rp->used_cap - 1); rp->used[i]; i = (i + 1) & (rp->used_cap - 1))
        if (rp->used[i] == v) return true;
    return false;
}

/* Reports the first frame index of nf[0..n) that is not below the footer's frame_count. */
static pcd_status bad_frame(pcd_tachyon_replay *rp, const uint32_t *nf, size_t n, const pcd_record *rec, const char *kase)
{
    size_t i = 0;
    while (i + 1 < n && nf[i] < rp->frame_count) i++;
    snprintf(rp->expected, sizeof rp->expected, "a frame index below %u (the footer's frame_count)", rp->frame_count);
    return fail(rp, rec, PCD_E_INVALID, kase, "frames", PCD_FOUND_UINT, nf[i]);
}

/* Marks frames nf[0..n) (checked against frame_count) as used, with track_used. */
static pcd_status mark_used(pcd_tachyon_replay *rp, const uint32_t *nf, size_t n, const pcd_record *rec, const char *kase)
{
    if (rp->used_bytes) {
        for (size_t i = 0; i < n; i++) rp->used_bytes[nf[i]] = 1;
    } else if (rp->used_bits) {
        for (size_t i = 0; i < n; i++) {
            uint64_t m = UINT64_C(1) << (nf[i] & 63);
            if (PCD_UNLIKELY(!(rp->used_bits[nf[i] >> 6] & m))) rp->used_bits[nf[i] >> 6] |= m;
        }
    } else if (rp->track_used) {
        for (size_t i = 0; i < n; i++) {
            if (used_add(rp, nf[i]) != PCD_OK) {
                snprintf(rp->expected, sizeof rp->expected, "memory (raise --max-memory)");
                return fail(rp, rec, PCD_E_NOMEM, kase, "frames", PCD_FOUND_NONE, 0);
            }
        }
    }
    return PCD_OK;
}

/* Pushes new frames (given innermost first) on top of th's first `keep` frames. */
static pcd_status push_frames(pcd_tachyon_replay *rp, pcd_tachyon_thread *th, uint32_t keep, const uint32_t *nf, size_t n,
                              const pcd_record *rec, const char *kase)
{
    if (!rp->with_tree) {
        /* nothing needs the frames themselves: their indexes checked, the ones used marked */
        if (rp->used_bytes) {
            /* checked and marked in one pass (a compare and a store a frame); after a bad
             * index the record's good ones are marked too, then the record fails */
            uint32_t fc = rp->frame_count;
            uint8_t *u = rp->used_bytes;
            size_t i = 0;
            for (; i < n; i++) {
                uint32_t f = nf[i];
                if (PCD_UNLIKELY(f >= fc)) break;
                u[f] = 1;
            }
            if (PCD_UNLIKELY(i < n)) {
                for (; i < n; i++)
                    if (nf[i] < fc) u[nf[i]] = 1;
                return bad_frame(rp, nf, n, rec, kase);
            }
            th->depth = keep + (uint32_t)n;
            return PCD_OK;
        }
        uint32_t top = 0;
        for (size_t i = 0; i < n; i++) top = nf[i] > top ? nf[i] : top;
        if (PCD_UNLIKELY(n && top >= rp->frame_count)) return bad_frame(rp, nf, n, rec, kase);
        PCD_TRY(mark_used(rp, nf, n, rec, kase));
        th->depth = keep + (uint32_t)n;
        return PCD_OK;
    }
    /* the new frames on the kept ones, each prefix's hash after them, then the stack's id;
     * the largest frame index found in the same pass (a bad one fails the record before the
     * depth or the stack change: the frames written above the kept ones are not read again) */
    uint32_t d = keep, top = 0;
    uint64_t h = th->hash[keep];
    for (size_t i = n; i-- > 0;) {
        uint32_t f = nf[i];
        top = f > top ? f : top;
        th->frames[d] = f;
        h = stack_step(h, f);
        th->hash[++d] = h;
    }
    if (PCD_UNLIKELY(n && top >= rp->frame_count)) return bad_frame(rp, nf, n, rec, kase);
    if (rp->track_used) PCD_TRY(mark_used(rp, nf, n, rec, kase));
    th->depth = d;
    /* the stack a record made last from this one, keeping as many frames: the same one if its
     * new frames are these (its first `keep` are this stack's) */
    pcd_tachyon_stacks *ss = &rp->stacks;
    uint32_t from = th->node;
    const struct pcd_tachyon_stack *fs = &ss->ids[from];
    if (fs->next && fs->next_keep == keep) {
        const struct pcd_tachyon_stack *r = &ss->ids[fs->next];
        if (r->depth == d && r->hash == h &&
            memcmp(ss->frames + r->off + keep, th->frames + keep, (d - keep) * sizeof *th->frames) == 0) {
            th->node = fs->next;
            return PCD_OK;
        }
    }
    pcd_status st = stacks_find(ss, th->frames, d, h, &th->node);
    if (PCD_UNLIKELY(st != PCD_OK)) {
        snprintf(rp->expected, sizeof rp->expected, "%s",
                 st == PCD_E_LIMIT ? "at most 2^31 distinct stacks, of 2^32 frames in all"
                                   : "memory for the distinct stacks (raise --max-memory)");
        return fail(rp, rec, st, kase, "frames", PCD_FOUND_NONE, 0);
    }
    ss->ids[from].next = th->node;
    ss->ids[from].next_keep = (uint16_t)keep;
    return PCD_OK;
}

static void emit(pcd_tachyon_replay *rp, pcd_tachyon_thread *th, uint64_t delta, uint8_t status)
{
    th->ts += delta;
    if (th->samples == 0) th->first_ts = th->ts;
    th->last_ts = th->ts;
    th->samples++;
    rp->total_samples++;
    if (rp->on_sample)
        rp->on_sample(rp->ud, th, th->node, th->ts, status);
}

pcd_status pcd_tachyon_replay_record(pcd_tachyon_replay *rp, const pcd_tachyon_v1_sample *s, const pcd_record *rec)
{
    if (rp->failed) return rp->err.status;
    pcd_tachyon_thread *th = rp->last;
    if (!th || th->tid != s->thread_id || th->interp != s->interpreter_id) {
        th = thread_find(rp, s->thread_id, s->interpreter_id);
        if (!th) {
            if (rp->n_threads >= rp->declared_threads) {
                snprintf(rp->expected, sizeof rp->expected,
                         "at most the %u distinct threads the header's thread_count declares", rp->declared_threads);
                pcd_status st = fail(rp, rec, PCD_E_INVALID, NULL, "thread_id", PCD_FOUND_UINT, s->thread_id);
                return st;
            }
            if (rp->n_threads == rp->threads_cap) {
                uint32_t ncap = rp->threads_cap ? rp->threads_cap * 2 : 16;
                pcd_tachyon_thread **nt = grow(rp->al, rp->threads, rp->threads_cap, ncap, sizeof *nt);
                if (!nt) goto nomem;
                rp->threads = nt;
                rp->threads_cap = ncap;
            }
            th = pcd_alloc_get(rp->al, thread_size(rp));
            if (!th) goto nomem;
            memset(th, 0, offsetof(pcd_tachyon_thread, hash));
            if (rp->with_tree) th->hash[0] = STACK_SEED;
            th->tid = s->thread_id;
            th->interp = s->interpreter_id;
            th->index = rp->n_threads;
            th->ts = rp->start_time;
            bool fresh;
            pcd_hslot *sl = pcd_hmap_put(&rp->th_map, (pcd_hkey){ th->tid, th->interp, 0 }, &fresh);
            if (!sl) {
                pcd_alloc_free(rp->al, th, thread_size(rp));
                goto nomem;
            }
            sl->v0 = rp->n_threads;
            rp->threads[rp->n_threads++] = th;
        }
        rp->last = th;
    }
    const pcd_tachyon_v1_sample_stack *k = &s->stack;
    rp->offset = rec ? rec->offset : 0;
    rp->total_records++;
    switch (k->which) {
    case PCD_TACHYON_V1_SAMPLE_STACK_REPEAT: {
        const pcd_tachyon_v1_sample_stack_repeat *r = &k->u.repeat;
        rp->records[0]++;
        rp->repeat_samples += r->n_samples;
        if (rp->on_repeat || !rp->on_sample) {
            /* one call for the whole run (or none) */
            if (!r->n_samples) return PCD_OK;
            if (!rp->no_times) {
                uint64_t ts = th->ts;
                for (size_t i = 0; i < r->n_samples; i++) ts += r->samples[i].timestamp_delta;
                if (th->samples == 0) th->first_ts = th->ts + r->samples[0].timestamp_delta;
                th->ts = th->last_ts = ts;
            }
            th->samples += r->n_samples;
            rp->total_samples += r->n_samples;
            if (rp->on_repeat)
                rp->on_repeat(rp->ud, th, th->node, r->n_samples);
            return PCD_OK;
        }
        for (size_t i = 0; i < r->n_samples; i++) emit(rp, th, r->samples[i].timestamp_delta, r->samples[i].status);
        return PCD_OK;
    }
    case PCD_TACHYON_V1_SAMPLE_STACK_FULL: {
        const pcd_tachyon_v1_sample_stack_full *f = &k->u.full;
        rp->records[1]++;
        /* depth <= 256 is the schema's (max_count) */
        PCD_TRY(push_frames(rp, th, 0, f->frames, f->n_frames, rec, "full"));
        emit(rp, th, f->timestamp_delta, f->status);
        return PCD_OK;
    }
    case PCD_TACHYON_V1_SAMPLE_STACK_SUFFIX: {
        const pcd_tachyon_v1_sample_stack_suffix *f = &k->u.suffix;
        rp->records[2]++;
        if (f->shared_count > th->depth) {
            snprintf(rp->expected, sizeof rp->expected,
                     "a shared_count of at most the current stack depth (%u)", th->depth);
            return fail(rp, rec, PCD_E_INVALID, "suffix", "shared_count", PCD_FOUND_UINT, f->shared_count);
        }
        if ((uint64_t)f->shared_count + f->n_frames > PCD_TACHYON_MAX_DEPTH) {
            snprintf(rp->expected, sizeof rp->expected, "a final stack depth of at most %d (shared_count %u + frames)",
                     PCD_TACHYON_MAX_DEPTH, f->shared_count);
            return fail(rp, rec, PCD_E_LIMIT, "suffix", "frames", PCD_FOUND_UINT,
                        (uint64_t)f->shared_count + f->n_frames);
        }
        /* the last shared_count entries (innermost first) are the outermost frames */
        PCD_TRY(push_frames(rp, th, f->shared_count, f->frames, f->n_frames, rec, "suffix"));
        emit(rp, th, f->timestamp_delta, f->status);
        return PCD_OK;
    }
    case PCD_TACHYON_V1_SAMPLE_STACK_POP_PUSH: {
        const pcd_tachyon_v1_sample_stack_pop_push *f = &k->u.pop_push;
        rp->records[3]++;
        /* a pop_count above the depth keeps nothing (CPython 3.15.2 clamps it) */
        uint32_t keep = f->pop_count >= th->depth ? 0 : th->depth - f->pop_count;
        if ((uint64_t)keep + f->n_frames > PCD_TACHYON_MAX_DEPTH) {
            snprintf(rp->expected, sizeof rp->expected, "a final stack depth of at most %d (%u kept + frames)",
                     PCD_TACHYON_MAX_DEPTH, keep);
            return fail(rp, rec, PCD_E_LIMIT, "pop_push", "frames", PCD_FOUND_UINT, (uint64_t)keep + f->n_frames);
        }
        PCD_TRY(push_frames(rp, th, keep, f->frames, f->n_frames, rec, "pop_push"));
        emit(rp, th, f->timestamp_delta, f->status);
        return PCD_OK;
    }
    }
    snprintf(rp->expected, sizeof rp->expected, "a stack encoding 0..3");
    return fail(rp, rec, PCD_E_INTERNAL, NULL, "stack", PCD_FOUND_UINT, k->which);
nomem:
    snprintf(rp->expected, sizeof rp->expected, "memory for the threads (raise --max-memory)");
    return fail(rp, rec, PCD_E_NOMEM, NULL, "thread_id", PCD_FOUND_NONE, 0);
}

pcd_status pcd_tachyon_replay_finish(pcd_tachyon_replay *rp)
{
    if (rp->failed) return rp->err.status;
    if (rp->total_samples != rp->declared_samples) {
        snprintf(rp->expected, sizeof rp->expected, "%llu samples (the samples the records hold)",
                 (unsigned long long)rp->total_samples);
        pcd_error *e = pcd_problem(&rp->err, PCD_E_INVALID, PCD_TACHYON_V1_FILE_SAMPLE_COUNT_AT, rp->expected,
                                   PCD_FOUND_UINT, rp->declared_samples);
        pcd_error_push(e, "sample_count", -1);
        rp->failed = true;
        return PCD_E_INVALID;
    }
    return PCD_OK;
}

/* ---- tables ------------------------------------------------------------------------------ */

void pcd_tachyon_tables_init(pcd_tachyon_tables *t, pcd_alloc *al)
{
    memset(t, 0, sizeof *t);
    t->al = al;
}

void pcd_tachyon_tables_free(pcd_tachyon_tables *t)
{
    if (!t->al) return;
    pcd_alloc_free(t->al, t->strings, t->strings_cap * sizeof *t->strings);
    pcd_alloc_free(t->al, t->frames, t->frames_cap * sizeof *t->frames);
    memset(t, 0, sizeof *t);
}

pcd_status pcd_tachyon_tables_add(pcd_tachyon_tables *t, const pcd_record *rec)
{
    if (!rec->data) return PCD_OK;
    if (rec->type == &pcd_tachyon_v1_string_type) {
        if (t->n_strings == t->strings_cap) {
            uint32_t ncap = t->strings_cap ? t->strings_cap * 2 : 256;
            pcd_bytes *n = grow(t->al, t->strings, t->strings_cap, ncap, sizeof *n);
            if (!n) return PCD_E_NOMEM;
            t->strings = n;
            t->strings_cap = ncap;
        }
        t->strings[t->n_strings++] = ((const pcd_tachyon_v1_string *)rec->data)->value;
    } else if (rec->type == &pcd_tachyon_v1_frame_type) {
        if (t->n_frames == t->frames_cap) {
            uint32_t ncap = t->frames_cap ? t->frames_cap * 2 : 256;
            pcd_tachyon_v1_frame *n = grow(t->al, t->frames, t->frames_cap, ncap, sizeof *n);
            if (!n) return PCD_E_NOMEM;
            t->frames = n;
            t->frames_cap = ncap;
        }
        t->frames[t->n_frames++] = *(const pcd_tachyon_v1_frame *)rec->data;
    } else if (rec->type == &pcd_tachyon_v1_stats_type) {
        t->stats = *(const pcd_tachyon_v1_stats *)rec->data;
        t->have_stats = true;
    }
    return PCD_OK;
}
