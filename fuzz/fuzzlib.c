/* fuzzlib.c: the invariants behind every fuzz harness.
 *
 *  1. No path ever returns PCD_E_INTERNAL, and closed input never asks for more.
 *  2. Whole-buffer decoding, streaming with input-chosen chunk sizes, validate-only
 *     reading and the decoding fast path (decode runs) see the same records and stop
 *     at the same error.
 *  3. Every decoded record re-encodes to its input bytes, or, when the input was not in
 *     canonical form (longer-than-needed varints), to no more bytes that decode to the
 *     same record and re-encode to themselves; and what the encoder writes decodes again
 *     (the encoder never writes what we reject).
 *  4. Recovery after damage always moves forward.
 *  5. Memory stays under a cap no matter what sizes the input claims. */
#include "fuzzlib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "fuzz invariant broken at %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fputc('\n', stderr);                                                            \
            abort();                                                                        \
        }                                                                                   \
    } while (0)

#define MAX_TRACK 4096
#define MEM_CAP ((size_t)256 << 20)

typedef struct trace {
    uint64_t off[MAX_TRACK], size[MAX_TRACK];
    uint32_t depth[MAX_TRACK];
    size_t n;            /* records seen (all of them, tracked or not) */
    pcd_status end;      /* PCD_END or the error */
    uint64_t err_off;
} trace;

typedef struct feed {
    const uint8_t *p;
    size_t n, pos, chunk;
} feed;

static pcd_status feed_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    feed *f = ud;
    size_t k = f->n - f->pos;
    if (k > f->chunk) k = f->chunk;
    if (k > cap) k = cap;
    memcpy(dst, f->p + f->pos, k);
    f->pos += k;
    *got = k;
    return PCD_OK;
}

static uint64_t hash(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * UINT64_C(1099511628211);
    return h;
}

static void note(trace *t, const pcd_record *rec)
{
    if (t->n < MAX_TRACK) {
        t->off[t->n] = rec->offset;
        t->size[t->n] = rec->size;
        t->depth[t->n] = rec->depth;
    }
    t->n++;
}

static uint8_t enc_buf[1 << 20];

/* Does the record (or the case of a union record) open a region whose sizes and counts
 * are patched in after it? */
static bool patched_regions(const pcd_type *t, const void *data)
{
    if (t->is_union) {
        uint32_t w = *(const uint32_t *)data;
        if (w >= t->n_fields || t->fields[w].kind != PCD_K_STRUCT || !t->fields[w].type) return false;
        return patched_regions(t->fields[w].type, (const uint8_t *)data + t->fields[w].offset);
    }
    for (uint32_t i = 0; i < t->n_fields; i++)
        if (t->fields[i].kind == PCD_K_REGION && t->fields[i].region->finish) return true;
    return false;
}

/* Re-encodes a decoded record and compares it with its input bytes. */
static void check_reencode(const pcd_format *f, pcd_reader *r, const pcd_record *rec, const uint8_t *data,
                           size_t size)
{
    if (rec->depth == 0 || !rec->region || !rec->data || rec->decompressed) return;
    /* (a record in compressed data has no input bytes of its own to compare with) */
    if (rec->offset + rec->size > size || rec->size > sizeof enc_buf) return;
    if (rec->region->state_size) return; /* the encoder's state would need the whole stream */
    /* sizes and counts of a record's own regions are patched in after them */
    if (patched_regions(rec->type, rec->data)) return;
    pcd_ctx x;
    pcd_ctx_init(&x, NULL);
    x.big = r->x.big;
    x.root = r->x.root;
    x.version = r->x.version;
    pcd_sink s;
    pcd_sink_init(&s, enc_buf, sizeof enc_buf, NULL, NULL, NULL, &x);
    pcd_status st = rec->region->encode(&s, rec->data);
    CHECK(st == PCD_OK, "re-encoding a decoded %s at offset %llu failed: %s", rec->type->name,
          (unsigned long long)rec->offset, pcd_status_name(st));
    /* the same bytes, or for input not in canonical form (longer varints, bytes after a
     * padded name's NUL) no more bytes that are checked below to be the same record */
    bool same_bytes = s.len == rec->size && memcmp(enc_buf, data + rec->offset, s.len) == 0;
    CHECK(same_bytes || s.len <= rec->size,
          "re-encoding the %s at offset %llu gave %zu bytes, more than the %llu it came from",
          rec->type->name, (unsigned long long)rec->offset, s.len, (unsigned long long)rec->size);
    /* what was written decodes again, to the same record */
    uint8_t arena_block[4096];
    pcd_arena a;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
    pcd_arena_init(&a, arena_block, sizeof arena_block, &al, 0);
    pcd_ctx y;
    pcd_ctx_init(&y, &a);
    y.big = x.big;
    y.root = x.root;
    y.version = x.version;
    void *again = malloc(rec->region->record_size);
    CHECK(again != NULL, "out of memory");
    /* with the bytes that followed it (a list can end where the next record's name begins) */
    size_t follow = size - (size_t)(rec->offset + rec->size);
    if (follow > sizeof enc_buf - s.len) follow = sizeof enc_buf - s.len;
    if (follow > 4096) follow = 4096;
    memcpy(enc_buf + s.len, data + rec->offset + rec->size, follow);
    pcd_cursor c = pcd_cursor_make(&y, enc_buf, s.len + follow, rec->offset, true);
    st = rec->region->decode(&c, again);
    CHECK(st == PCD_OK && c.p == enc_buf + s.len, "the encoder wrote a %s that does not decode: %s",
          rec->type->name, pcd_status_name(st));
    if (!same_bytes) {
        /* a non-canonical input may re-encode differently, but never to a different
         * record (compared as JSON), and the result is a fixed point */
        static uint8_t j1[1 << 18], j2[1 << 18], enc2[1 << 20];
        pcd_sink s1, s2, s3;
        pcd_ctx jx;
        pcd_ctx_init(&jx, NULL);
        pcd_sink_init(&s1, j1, sizeof j1, NULL, NULL, NULL, &jx);
        pcd_sink_init(&s2, j2, sizeof j2, NULL, NULL, NULL, &jx);
        pcd_record r2 = *rec;
        r2.data = again;
        bool fits = pcd_json_record(&s1, f, rec) == PCD_OK && pcd_json_record(&s2, f, &r2) == PCD_OK;
        CHECK(!fits || (s1.len == s2.len && memcmp(j1, j2, s1.len) == 0),
              "the %s at offset %llu re-encodes to a different record", rec->type->name,
              (unsigned long long)rec->offset);
        pcd_sink_init(&s3, enc2, sizeof enc2, NULL, NULL, NULL, &x);
        st = rec->region->encode(&s3, again);
        CHECK(st == PCD_OK && s3.len == s.len && memcmp(enc2, enc_buf, s.len) == 0,
              "the %s at offset %llu does not re-encode to a fixed point", rec->type->name,
              (unsigned long long)rec->offset);
    }
    free(again);
    pcd_arena_free(&a);
}

static pcd_status note_run(void *ud, const pcd_record *rec)
{
    note(ud, rec);
    return PCD_OK;
}

/* mode 0: whole buffer; 1: streaming; 2: validate-only (fast path); 3: streaming with the
 * decoding fast path (pcd_reader_decode_run). */
static void run(const pcd_format *f, const uint8_t *data, size_t size, int mode, size_t chunk, trace *t,
                bool reencode, bool recover)
{
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, MEM_CAP);
    pcd_reader r;
    pcd_reader_opts o = { &al, NULL, 64, mode == 2 };
    feed fd = { data, size, 0, chunk };
    pcd_status st;
    bool streaming = (mode == 1 || mode == 3) && (f->flags & PCD_FMT_STREAMABLE);
    if (streaming) st = pcd_reader_open(&r, f, feed_read, &fd, &o);
    else st = pcd_reader_open_buffer(&r, f, data, size, &o);
    CHECK(st == PCD_OK, "open failed: %s", pcd_status_name(st));
    memset(t, 0, sizeof *t);
    pcd_record rec;
    unsigned recoveries = 0;
    uint64_t last_resume = 0;
    for (;;) {
        if (mode == 2) {
            uint64_t k = 0;
            st = pcd_reader_validate_run(&r, 1 + (chunk % 7), &k);
            t->n += k;
            if (st != PCD_OK) goto failed;
        } else if (mode == 3) {
            uint64_t k = 0, before = t->n;
            st = pcd_reader_decode_run(&r, 1 + (chunk % 7), &k, note_run, t);
            CHECK(t->n - before == k, "the decode run counted %llu records, handed over %llu",
                  (unsigned long long)k, (unsigned long long)(t->n - before));
            if (st != PCD_OK) goto failed;
        }
        st = pcd_reader_next(&r, &rec);
        if (st == PCD_END) break;
    failed:
        CHECK(st != PCD_E_INTERNAL && st != PCD_SHORT_READ, "mode %d: %s at offset %llu", mode,
              pcd_status_name(st), (unsigned long long)r.x.err.offset);
        if (st != PCD_OK) {
            if (!recover) break;
            uint64_t resume = 0;
            uint64_t before = r.fail_offset;
            if (pcd_reader_recover(&r, &resume) != PCD_OK) break;
            /* forward, or at the end of the input (where each recovery closes a region) */
            CHECK(resume > before || resume > last_resume || resume == size, "recovery did not move forward (%llu)",
                  (unsigned long long)resume);
            last_resume = resume;
            CHECK(++recoveries < 100000, "too many recoveries");
            continue;
        }
        CHECK(rec.offset <= size + 0 || rec.depth > 0, "record offset beyond the input");
        if (mode == 2 && rec.data == NULL) {
            t->n++;
            continue;
        }
        note(t, &rec);
        if (reencode) check_reencode(f, &r, &rec, data, size);
    }
    t->end = st == PCD_END ? PCD_END : st;
    t->err_off = st == PCD_END ? 0 : r.x.err.offset;
    pcd_reader_close(&r);
    CHECK(al.in_use == 0, "the reader leaked %zu bytes", al.in_use);
}

int pcd_fuzz_one(const pcd_format *f, const uint8_t *data, size_t size)
{
    static trace whole, stream, val, drun;
    uint64_t h = hash(data, size);
    size_t chunk = 1 + (size_t)(h % 97);
    if ((h >> 8) % 4 == 0) chunk = 4096 + (size_t)(h % 1024);
    run(f, data, size, 0, chunk, &whole, true, false);
    run(f, data, size, 1, chunk, &stream, false, false);
    run(f, data, size, 2, chunk, &val, false, false);
    run(f, data, size, 3, chunk, &drun, false, false);
    CHECK(whole.end == drun.end && whole.err_off == drun.err_off && whole.n == drun.n,
          "decoding one by one and by decode runs disagree: %s@%llu (%zu records) vs %s@%llu (%zu)",
          pcd_status_name(whole.end), (unsigned long long)whole.err_off, whole.n, pcd_status_name(drun.end),
          (unsigned long long)drun.err_off, drun.n);
    for (size_t i = 0; i < whole.n && i < MAX_TRACK; i++)
        CHECK(whole.off[i] == drun.off[i] && whole.size[i] == drun.size[i] && whole.depth[i] == drun.depth[i],
              "record %zu differs between one-by-one and decode-run reads", i);
    CHECK(whole.end == stream.end && whole.err_off == stream.err_off,
          "whole-buffer and streaming reads disagree: %s@%llu vs %s@%llu", pcd_status_name(whole.end),
          (unsigned long long)whole.err_off, pcd_status_name(stream.end), (unsigned long long)stream.err_off);
    CHECK(whole.n == stream.n, "whole-buffer read %zu records, streaming %zu", whole.n, stream.n);
    for (size_t i = 0; i < whole.n && i < MAX_TRACK; i++)
        CHECK(whole.off[i] == stream.off[i] && whole.size[i] == stream.size[i],
              "record %zu differs between whole-buffer and streaming reads", i);
    CHECK(whole.end == val.end && whole.err_off == val.err_off,
          "decoding and validating disagree: %s@%llu vs %s@%llu", pcd_status_name(whole.end),
          (unsigned long long)whole.err_off, pcd_status_name(val.end), (unsigned long long)val.err_off);
    CHECK(whole.n == val.n, "decoding saw %zu records, validating %zu", whole.n, val.n);
    /* recovery: must terminate and move forward */
    trace rec;
    run(f, data, size, (int)(h >> 16) % 2, chunk, &rec, false, true);
    return 0;
}
