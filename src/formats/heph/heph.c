/* formats/heph/heph.c: Heph traces above the bytes: the info summary and Chrome Trace Event output. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "heph_v0_1.h"
#include "formats/registry.h"
#include "common/hmap.h"

typedef unsigned __int128 u128;
typedef __int128 i128;

/* ---- shared --------------------------------------------------------------- */

static const pcd_heph_v0_1_packet *as_packet(const pcd_record *rec)
{
    if (rec->depth != 1 || rec->type != &pcd_heph_v0_1_packet_type || !rec->data) return NULL;
    return rec->data;
}

static bool is_epoch(const pcd_heph_v0_1_metadata_packet *m)
{
    return m->value.which == PCD_HEPH_V0_1_METADATA_PACKET_VALUE_EPOCH;
}

/* 2026-11-22T06:43:50.430572552Z */
static void fmt_utc(char *buf, size_t cap, uint64_t ns)
{
    time_t s = (time_t)(ns / 1000000000u);
    struct tm tm;
    gmtime_r(&s, &tm);
    char d[32];
    strftime(d, sizeof d, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%09" PRIu64 "Z", d, ns % 1000000000u);
}

/* ---- info ------------------------------------------------------------------- */

typedef struct heph_info {
    uint64_t events, metadata, attributes, array_attributes, other_options;
    uint64_t epoch, n_epochs;
    bool have_span;
    uint64_t min_start, max_end;
    uint64_t backwards;          /* events whose end is before their start */
    pcd_hmap streams;            /* stream id -> events */
    pcd_hmap substreams;         /* (stream, substream) -> events */
    uint64_t worker_threads;
    bool have_workers;
} heph_info;

static void info_init(void *ctx, pcd_alloc *al)
{
    heph_info *h = ctx;
    memset(h, 0, sizeof *h);
    pcd_hmap_init(&h->streams, al);
    pcd_hmap_init(&h->substreams, al);
}

static void info_record(void *ctx, const pcd_record *rec)
{
    heph_info *h = ctx;
    const pcd_heph_v0_1_packet *p = as_packet(rec);
    if (!p) return;
    if (p->which == PCD_HEPH_V0_1_PACKET_METADATA) {
        h->metadata++;
        if (is_epoch(&p->u.metadata)) {
            if (h->n_epochs++ == 0) h->epoch = p->u.metadata.value.u.epoch;
        } else {
            h->other_options++;
        }
        return;
    }
    const pcd_heph_v0_1_event_packet *e = &p->u.event;
    h->events++;
    h->attributes += e->n_attributes;
    for (size_t i = 0; i < e->n_attributes; i++) {
        if (e->attributes[i].type & 0x80) h->array_attributes++;
        if (e->description.len == 16 && memcmp(e->description.ptr, "Building runtime", 16) == 0 &&
            e->attributes[i].name.len == 14 && memcmp(e->attributes[i].name.ptr, "worker_threads", 14) == 0 &&
            e->attributes[i].type == 1) {
            h->worker_threads = e->attributes[i].value.u.u64;
            h->have_workers = true;
        }
    }
    if (!h->have_span || e->start_ns < h->min_start) h->min_start = e->start_ns;
    if (!h->have_span || e->end_ns > h->max_end) h->max_end = e->end_ns;
    h->have_span = true;
    if (e->end_ns < e->start_ns) h->backwards++;
    bool fresh;
    pcd_hslot *s = pcd_hmap_put(&h->streams, (pcd_hkey){ e->stream_id, 0, 0 }, &fresh);
    if (s) s->v0++;
    s = pcd_hmap_put(&h->substreams, (pcd_hkey){ e->stream_id, e->substream_id, 0 }, &fresh);
    if (s) s->v0++;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Stream ids in increasing order (caller frees). */
static uint64_t *sorted_streams(const heph_info *h, size_t *n)
{
    uint64_t *ids = malloc((h->streams.len + 1) * sizeof *ids);
    *n = 0;
    if (!ids) return NULL;
    for (size_t i = 0; i < h->streams.cap; i++)
        if (h->streams.slots[i].used) ids[(*n)++] = h->streams.slots[i].k.a;
    qsort(ids, *n, sizeof *ids, cmp_u64);
    return ids;
}

static void info_text(void *ctx, FILE *out)
{
    heph_info *h = ctx;
    char utc[64];
    if (h->n_epochs) {
        fmt_utc(utc, sizeof utc, h->epoch);
        fprintf(out, "epoch:       %s (%" PRIu64 " ns since the Unix epoch)%s\n", utc, h->epoch,
                h->n_epochs > 1 ? " (later epoch packets change it)" : "");
    } else {
        fprintf(out, "epoch:       none (times are relative to an unknown zero)\n");
    }
    fprintf(out, "packets:     %" PRIu64 " (%" PRIu64 " metadata, %" PRIu64 " events)\n",
            h->metadata + h->events, h->metadata, h->events);
    if (h->have_span) {
        fprintf(out, "time span:   %" PRIu64 " ns .. %" PRIu64 " ns after the epoch (%.6f s)\n", h->min_start,
                h->max_end, (double)(h->max_end - h->min_start) / 1e9);
        if (h->n_epochs) {
            fmt_utc(utc, sizeof utc, h->epoch + h->min_start);
            fprintf(out, "first start: %s\n", utc);
        }
    }
    size_t n;
    uint64_t *ids = sorted_streams(h, &n);
    fprintf(out, "streams:     %zu (", n);
    for (size_t i = 0; ids && i < n; i++) {
        bool fresh;
        pcd_hslot *s = pcd_hmap_put(&h->streams, (pcd_hkey){ ids[i], 0, 0 }, &fresh);
        fprintf(out, "%s%" PRIu64 ": %" PRIu64 " events", i ? ", " : "", ids[i], s ? s->v0 : 0);
        if (i == 15 && n > 16) {
            fprintf(out, ", ...");
            break;
        }
    }
    fprintf(out, ")\n");
    free(ids);
    fprintf(out, "substreams:  %zu (stream, substream) pairs\n", h->substreams.len);
    if (h->have_workers) fprintf(out, "workers:     %" PRIu64 " (from \"Building runtime\")\n", h->worker_threads);
    fprintf(out, "attributes:  %" PRIu64 " (%" PRIu64 " arrays)\n", h->attributes, h->array_attributes);
    if (h->other_options) fprintf(out, "options:     %" PRIu64 " metadata packets with options other than epoch\n", h->other_options);
    if (h->backwards) fprintf(out, "warning:     %" PRIu64 " events end before they start\n", h->backwards);
}

static pcd_status info_json(void *ctx, pcd_sink *s)
{
    heph_info *h = ctx;
    char buf[256];
    int n = snprintf(buf, sizeof buf,
                     "\"metadata_packets\":%" PRIu64 ",\"events\":%" PRIu64 ",\"attributes\":%" PRIu64
                     ",\"array_attributes\":%" PRIu64 ",",
                     h->metadata, h->events, h->attributes, h->array_attributes);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (h->n_epochs) {
        char utc[64];
        fmt_utc(utc, sizeof utc, h->epoch);
        n = snprintf(buf, sizeof buf, "\"epoch_ns\":\"%" PRIu64 "\",\"epoch_utc\":\"%s\",", h->epoch, utc);
    } else {
        n = snprintf(buf, sizeof buf, "\"epoch_ns\":null,");
    }
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (h->have_span)
        n = snprintf(buf, sizeof buf, "\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 ",\"duration_ns\":%" PRIu64 ",",
                     h->min_start, h->max_end, h->max_end - h->min_start);
    else
        n = snprintf(buf, sizeof buf, "\"start_ns\":null,\"end_ns\":null,\"duration_ns\":0,");
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    size_t k;
    uint64_t *ids = sorted_streams(h, &k);
    PCD_TRY(pcd_json_raw(s, "\"streams\":{"));
    for (size_t i = 0; ids && i < k; i++) {
        bool fresh;
        pcd_hslot *sl = pcd_hmap_put(&h->streams, (pcd_hkey){ ids[i], 0, 0 }, &fresh);
        n = snprintf(buf, sizeof buf, "%s\"%" PRIu64 "\":%" PRIu64, i ? "," : "", ids[i], sl ? sl->v0 : 0);
        PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    }
    free(ids);
    n = snprintf(buf, sizeof buf, "},\"substreams\":%zu,\"events_ending_before_start\":%" PRIu64,
                 h->substreams.len, h->backwards);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    if (h->have_workers) {
        n = snprintf(buf, sizeof buf, ",\"worker_threads\":%" PRIu64, h->worker_threads);
        PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    }
    return PCD_OK;
}

static void info_fini(void *ctx)
{
    heph_info *h = ctx;
    pcd_hmap_free(&h->streams);
    pcd_hmap_free(&h->substreams);
}

static const pcd_info_ops heph_info_ops = {
    sizeof(heph_info), info_init, info_record, info_text, info_json, info_fini,
};

/* ---- Chrome Trace Event JSON --------------------------------------------------- */

/* A JSON string that is always valid: bytes that are not UTF-8 become U+FFFD. */
static pcd_status json_str_lossy(pcd_sink *s, const uint8_t *p, size_t n)
{
    if (pcd_utf8_valid(p, n)) return pcd_json_string(s, p, n);
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    size_t i = 0;
    while (i < n) {
        /* the longest valid prefix, then one replacement for one bad byte */
        size_t j = i;
        while (j < n) {
            size_t len = p[j] < 0x80 ? 1 : (p[j] >= 0xC2 && p[j] <= 0xDF) ? 2 : (p[j] >= 0xE0 && p[j] <= 0xEF) ? 3
                       : (p[j] >= 0xF0 && p[j] <= 0xF4) ? 4 : 0;
            if (!len || j + len > n || !pcd_utf8_valid(p + j, len)) break;
            j += len;
        }
        if (j > i) {
            /* escape the valid run through the strict writer, minus its quotes */
            for (size_t k = i; k < j;) {
                size_t run = k;
                while (run < j && p[run] >= 0x20 && p[run] != '"' && p[run] != '\\') run++;
                PCD_TRY(pcd_sink_put(s, p + k, run - k));
                if (run < j) {
                    char esc[8];
                    int m;
                    switch (p[run]) {
                    case '"': m = snprintf(esc, sizeof esc, "\\\""); break;
                    case '\\': m = snprintf(esc, sizeof esc, "\\\\"); break;
                    case '\n': m = snprintf(esc, sizeof esc, "\\n"); break;
                    case '\t': m = snprintf(esc, sizeof esc, "\\t"); break;
                    case '\r': m = snprintf(esc, sizeof esc, "\\r"); break;
                    default: m = snprintf(esc, sizeof esc, "\\u%04x", p[run]);
                    }
                    PCD_TRY(pcd_sink_put(s, esc, (size_t)m));
                    run++;
                }
                k = run;
            }
        }
        if (j < n) {
            PCD_TRY(pcd_json_raw(s, "\\ufffd"));
            j++;
        }
        i = j;
    }
    return pcd_sink_put(s, "\"", 1);
}

/* ns as microseconds with three decimals: -12.345 */
static pcd_status put_us3(pcd_sink *s, i128 ns)
{
    char buf[64];
    bool neg = ns < 0;
    u128 a = neg ? (u128)(-ns) : (u128)ns;
    uint64_t whole = (uint64_t)(a / 1000), frac = (uint64_t)(a % 1000);
    int n = snprintf(buf, sizeof buf, "%s%" PRIu64 ".%03" PRIu64, neg ? "-" : "", whole, frac);
    return pcd_sink_put(s, buf, (size_t)n);
}

static pcd_status put_u128(pcd_sink *s, u128 v)
{
    char t[48];
    int k = 0;
    do {
        t[k++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v);
    char b[48];
    for (int i = 0; i < k; i++) b[i] = t[k - 1 - i];
    return pcd_sink_put(s, b, (size_t)k);
}

static pcd_status put_i128(pcd_sink *s, i128 v)
{
    if (v < 0) {
        PCD_TRY(pcd_sink_put(s, "-", 1));
        return put_u128(s, (u128)(-v));
    }
    return put_u128(s, (u128)v);
}

/* One attribute value; compat = Heph's raw style. */
static pcd_status put_value(pcd_sink *s, const pcd_heph_v0_1_attribute *at, bool compat)
{
    const pcd_heph_v0_1_attribute_value *v = &at->value;
    char b[400];
    size_t n;
    switch (v->which) {
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_U64: return pcd_json_u64_plain(s, v->u.u64);
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_I64: return put_i128(s, v->u.i64);
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_F64:
        if (compat) {
            n = pcd_fmt_rust_f64(b, sizeof b, v->u.f64);
            return pcd_sink_put(s, b, n);
        }
        return pcd_json_f64(s, v->u.f64);
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_STRING:
        if (compat) {
            PCD_TRY(pcd_sink_put(s, "\"", 1));
            PCD_TRY(pcd_sink_put(s, v->u.string.ptr, v->u.string.len));
            return pcd_sink_put(s, "\"", 1);
        }
        return json_str_lossy(s, v->u.string.ptr, v->u.string.len);
    default: break;
    }
    /* arrays (Heph's converter has none; same style as its scalars) */
    const char *sep = compat ? ", " : ",";
    PCD_TRY(pcd_sink_put(s, "[", 1));
    switch (v->which) {
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_U64_ARRAY:
        for (size_t i = 0; i < v->u.u64_array.n_items; i++) {
            if (i) PCD_TRY(pcd_json_raw(s, sep));
            PCD_TRY(pcd_json_u64_plain(s, v->u.u64_array.items[i]));
        }
        break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_I64_ARRAY:
        for (size_t i = 0; i < v->u.i64_array.n_items; i++) {
            if (i) PCD_TRY(pcd_json_raw(s, sep));
            PCD_TRY(put_i128(s, v->u.i64_array.items[i]));
        }
        break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_F64_ARRAY:
        for (size_t i = 0; i < v->u.f64_array.n_items; i++) {
            if (i) PCD_TRY(pcd_json_raw(s, sep));
            if (compat) {
                n = pcd_fmt_rust_f64(b, sizeof b, v->u.f64_array.items[i]);
                PCD_TRY(pcd_sink_put(s, b, n));
            } else {
                PCD_TRY(pcd_json_f64(s, v->u.f64_array.items[i]));
            }
        }
        break;
    case PCD_HEPH_V0_1_ATTRIBUTE_VALUE_STRING_ARRAY:
        for (size_t i = 0; i < v->u.string_array.n_items; i++) {
            const pcd_bytes *t = &v->u.string_array.items[i];
            if (i) PCD_TRY(pcd_json_raw(s, sep));
            if (compat) {
                PCD_TRY(pcd_sink_put(s, "\"", 1));
                PCD_TRY(pcd_sink_put(s, t->ptr, t->len));
                PCD_TRY(pcd_sink_put(s, "\"", 1));
            } else {
                PCD_TRY(json_str_lossy(s, t->ptr, t->len));
            }
        }
        break;
    }
    return pcd_sink_put(s, "]", 1);
}

static pcd_status put_args(pcd_sink *s, const pcd_heph_v0_1_event_packet *e, bool compat)
{
    if (e->n_attributes == 0) return PCD_OK;
    PCD_TRY(pcd_json_raw(s, compat ? ", \"args\": {" : ",\"args\":{"));
    for (size_t i = 0; i < e->n_attributes; i++) {
        const pcd_heph_v0_1_attribute *at = &e->attributes[i];
        if (i) PCD_TRY(pcd_json_raw(s, compat ? ", " : ","));
        if (compat) {
            PCD_TRY(pcd_sink_put(s, "\"", 1));
            PCD_TRY(pcd_sink_put(s, at->name.ptr, at->name.len));
            PCD_TRY(pcd_json_raw(s, "\": "));
        } else {
            PCD_TRY(json_str_lossy(s, at->name.ptr, at->name.len));
            PCD_TRY(pcd_sink_put(s, ":", 1));
        }
        PCD_TRY(put_value(s, at, compat));
    }
    return pcd_sink_put(s, "}", 1);
}

typedef struct chrome {
    const pcd_conv_args *a;
    bool compat;
    bool have_epoch;
    uint64_t first_epoch, epoch;
    u128 compat_epoch;
    uint64_t events;
    pcd_hmap overlap;        /* compat: (pid, tid, ts) -> dur */
    pcd_hmap threads;        /* (pid, tid) seen */
    pcd_hmap procs;          /* pid seen */
    uint64_t worker_threads;
    bool have_workers;
    bool warned_cycle;
} chrome;

static pcd_status compat_event(chrome *c, const pcd_heph_v0_1_event_packet *e)
{
    pcd_sink *s = c->a->out;
    u128 ts = (c->compat_epoch + e->start_ns) / 1000;
    /* Heph computes end - start unsigned; an earlier end panics there */
    u128 dur = (u128)(e->end_ns - e->start_ns) / 1000;
    /* Heph's overlap fix: move the event until its ts is free in its (pid, tid). Heph's
     * loop can cycle forever (ts+1 then back to ts); we stop after a bounded walk. */
    for (unsigned steps = 0;; steps++) {
        pcd_hslot *sl = pcd_hmap_get(&c->overlap, (pcd_hkey){ e->stream_id, e->substream_id, (uint64_t)ts });
        if (!sl) break;
        if (steps == 4096) {
            if (!c->warned_cycle)
                fprintf(c->a->err, "%s: warning: Heph's overlap fix does not settle for an event at %" PRIu64
                                   " ns (Heph's converter would loop forever); it is written where the walk stopped\n",
                        c->a->input_name, e->start_ns);
            c->warned_cycle = true;
            break;
        }
        u128 earlier = (u128)sl->v0 | ((u128)sl->v1 << 64);
        if (earlier > dur) {
            ts += 1;
            dur -= 1;
        } else {
            ts -= 1;
            dur += 1;
        }
    }
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&c->overlap, (pcd_hkey){ e->stream_id, e->substream_id, (uint64_t)ts }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    sl->v0 = (uint64_t)dur;
    sl->v1 = (uint64_t)(dur >> 64);
    PCD_TRY(pcd_json_raw(s, c->events ? ",\n\t\t{\"pid\": " : "\t\t{\"pid\": "));
    PCD_TRY(pcd_json_u64_plain(s, e->stream_id));
    PCD_TRY(pcd_json_raw(s, ", \"tid\": "));
    PCD_TRY(pcd_json_u64_plain(s, e->substream_id));
    PCD_TRY(pcd_json_raw(s, ", \"ts\": "));
    PCD_TRY(put_u128(s, ts));
    PCD_TRY(pcd_json_raw(s, ", \"dur\": "));
    PCD_TRY(put_u128(s, dur));
    PCD_TRY(pcd_json_raw(s, ", \"name\": \""));
    PCD_TRY(pcd_sink_put(s, e->description.ptr, e->description.len));
    PCD_TRY(pcd_sink_put(s, "\"", 1));
    PCD_TRY(put_args(s, e, true));
    return pcd_json_raw(s, ", \"ph\": \"X\", \"cat\": \"\"}");
}

static pcd_status exact_event(chrome *c, const pcd_heph_v0_1_event_packet *e)
{
    pcd_sink *s = c->a->out;
    /* relative to the trace's first epoch, exact to the nanosecond */
    i128 rel = (i128)e->start_ns;
    if (c->have_epoch) rel += (i128)c->epoch - (i128)c->first_epoch;
    i128 dur = (i128)e->end_ns - (i128)e->start_ns;
    PCD_TRY(pcd_json_raw(s, c->events ? ",\n{\"ph\":\"X\",\"pid\":" : "{\"ph\":\"X\",\"pid\":"));
    PCD_TRY(pcd_json_u64_plain(s, e->stream_id));
    PCD_TRY(pcd_json_raw(s, ",\"tid\":"));
    PCD_TRY(pcd_json_u64_plain(s, e->substream_id));
    PCD_TRY(pcd_json_raw(s, ",\"ts\":"));
    PCD_TRY(put_us3(s, rel));
    PCD_TRY(pcd_json_raw(s, ",\"dur\":"));
    PCD_TRY(put_us3(s, dur < 0 ? 0 : dur));
    PCD_TRY(pcd_json_raw(s, ",\"name\":"));
    PCD_TRY(json_str_lossy(s, e->description.ptr, e->description.len));
    PCD_TRY(pcd_json_raw(s, ",\"cat\":\"heph\""));
    PCD_TRY(put_args(s, e, false));
    PCD_TRY(pcd_sink_put(s, "}", 1));
    bool fresh;
    pcd_hslot *sl = pcd_hmap_put(&c->threads, (pcd_hkey){ e->stream_id, e->substream_id, 0 }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    sl = pcd_hmap_put(&c->procs, (pcd_hkey){ e->stream_id, 0, 0 }, &fresh);
    if (!sl) return PCD_E_NOMEM;
    for (size_t i = 0; i < e->n_attributes; i++) {
        const pcd_heph_v0_1_attribute *at = &e->attributes[i];
        if (e->description.len == 16 && memcmp(e->description.ptr, "Building runtime", 16) == 0 &&
            at->name.len == 14 && memcmp(at->name.ptr, "worker_threads", 14) == 0 && at->type == 1) {
            c->worker_threads = at->value.u.u64;
            c->have_workers = true;
        }
    }
    return PCD_OK;
}

static int cmp_key(const void *a, const void *b)
{
    const pcd_hkey *x = a, *y = b;
    if (x->a != y->a) return x->a < y->a ? -1 : 1;
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    return 0;
}

static pcd_hkey *sorted_keys(const pcd_hmap *m)
{
    pcd_hkey *k = malloc((m->len + 1) * sizeof *k);
    if (!k) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].used) k[n++] = m->slots[i].k;
    qsort(k, n, sizeof *k, cmp_key);
    return k;
}

/* Process and thread names, so viewers label the rows. */
static pcd_status metadata_events(chrome *c)
{
    pcd_sink *s = c->a->out;
    char name[96], buf[256];
    pcd_hkey *procs = sorted_keys(&c->procs), *threads = sorted_keys(&c->threads);
    if (!procs || !threads) {
        free(procs);
        free(threads);
        return PCD_E_NOMEM;
    }
    pcd_status st = PCD_OK;
    for (size_t i = 0; i < c->procs.len && st == PCD_OK; i++) {
        uint64_t pid = procs[i].a;
        if (pid == 0) snprintf(name, sizeof name, "stream 0 (coordinator)");
        else if (c->have_workers && pid <= c->worker_threads) snprintf(name, sizeof name, "stream %" PRIu64 " (worker %" PRIu64 ")", pid, pid);
        else if (c->have_workers) snprintf(name, sizeof name, "stream %" PRIu64 " (sync actor)", pid);
        else snprintf(name, sizeof name, "stream %" PRIu64, pid);
        int n = snprintf(buf, sizeof buf,
                         ",\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":0,\"name\":\"process_name\",\"args\":{\"name\":\"%s\"}}"
                         ",\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":0,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":%" PRIu64 "}}",
                         pid, name, pid, pid);
        st = pcd_sink_put(s, buf, (size_t)n);
    }
    for (size_t i = 0; i < c->threads.len && st == PCD_OK; i++) {
        int n = snprintf(buf, sizeof buf,
                         ",\n{\"ph\":\"M\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu64 ",\"name\":\"thread_name\",\"args\":{\"name\":\"substream %" PRIu64 "\"}}",
                         threads[i].a, threads[i].b, threads[i].b);
        st = pcd_sink_put(s, buf, (size_t)n);
    }
    free(procs);
    free(threads);
    return st;
}

static int chrome_run(const pcd_conv_args *a)
{
    chrome c;
    memset(&c, 0, sizeof c);
    c.a = a;
    c.compat = a->compat;
    pcd_hmap_init(&c.overlap, a->al);
    pcd_hmap_init(&c.threads, a->al);
    pcd_hmap_init(&c.procs, a->al);
    pcd_sink *s = a->out;
    int rc = 0;
    pcd_status st = PCD_OK;
    bool header = false;

    /* the default header needs the first epoch: read up to the first event first */
    pcd_record rec;
    for (;;) {
        pcd_status rs = pcd_reader_next(a->r, &rec);
        if (rs == PCD_END) break;
        if (rs != PCD_OK) {
            pcd_report(a->err, a->input_name, pcd_reader_error(a->r));
            if (a->all && pcd_reader_recover(a->r, NULL) == PCD_OK) {
                rc = 1;
                continue;
            }
            rc = 1;
            break;
        }
        if (a->progress) a->progress(a->progress_ud, rec.offset);
        const pcd_heph_v0_1_packet *p = as_packet(&rec);
        if (!p) continue;
        if (p->which == PCD_HEPH_V0_1_PACKET_METADATA) {
            if (!is_epoch(&p->u.metadata)) continue;
            uint64_t ep = p->u.metadata.value.u.epoch;
            if (!c.have_epoch) {
                c.have_epoch = true;
                c.first_epoch = ep;
            }
            c.epoch = ep;
            c.compat_epoch = ep;
            continue;
        }
        if (!header) {
            header = true;
            if (c.compat) {
                if (!c.have_epoch) c.compat_epoch = (u128)time(NULL) * 1000000000u; /* Heph: now */
                st = pcd_json_raw(s, "{\n\t\"displayTimeUnit\": \"ns\",\n\t\"traceEvents\": [\n");
            } else {
                st = pcd_json_raw(s, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"converter\":\"profcodec\",\"source_format\":\"heph 0.1\"");
                if (st == PCD_OK && c.have_epoch) {
                    char buf[160], utc[64];
                    fmt_utc(utc, sizeof utc, c.first_epoch);
                    int n = snprintf(buf, sizeof buf, ",\"epoch_ns\":\"%" PRIu64 "\",\"epoch_utc\":\"%s\",\"ts_origin\":\"epoch\"",
                                     c.first_epoch, utc);
                    st = pcd_sink_put(s, buf, (size_t)n);
                }
                if (st == PCD_OK) st = pcd_json_raw(s, "},\"traceEvents\":[\n");
            }
        }
        if (st == PCD_OK) st = c.compat ? compat_event(&c, &p->u.event) : exact_event(&c, &p->u.event);
        if (st != PCD_OK) break;
        c.events++;
    }
    if (st == PCD_OK && !header) {
        if (c.compat) st = pcd_json_raw(s, "{\n\t\"displayTimeUnit\": \"ns\",\n\t\"traceEvents\": [\n");
        else {
            st = pcd_json_raw(s, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"converter\":\"profcodec\",\"source_format\":\"heph 0.1\"");
            if (st == PCD_OK && c.have_epoch) {
                char buf[160], utc[64];
                fmt_utc(utc, sizeof utc, c.first_epoch);
                int n = snprintf(buf, sizeof buf, ",\"epoch_ns\":\"%" PRIu64 "\",\"epoch_utc\":\"%s\",\"ts_origin\":\"epoch\"",
                                 c.first_epoch, utc);
                st = pcd_sink_put(s, buf, (size_t)n);
            }
            if (st == PCD_OK) st = pcd_json_raw(s, "},\"traceEvents\":[\n");
        }
    }
    if (st == PCD_OK) {
        if (c.compat) {
            st = pcd_json_raw(s, "\n\t]\n}");
        } else {
            if (c.events == 0) {
                /* metadata events follow a comma; start with a harmless one */
                st = pcd_json_raw(s, "{\"ph\":\"M\",\"pid\":0,\"tid\":0,\"name\":\"trace_config\",\"args\":{}}");
            }
            if (st == PCD_OK) st = metadata_events(&c);
            if (st == PCD_OK) st = pcd_json_raw(s, "\n]}\n");
        }
    }
    if (st != PCD_OK) {
        fprintf(a->err, "%s: cannot write the output: %s\n", a->input_name, pcd_status_name(st));
        rc = 2;
    }
    pcd_hmap_free(&c.overlap);
    pcd_hmap_free(&c.threads);
    pcd_hmap_free(&c.procs);
    return rc;
}

static const pcd_converter heph_conv[] = {
    { "chrome", "Chrome Trace Event JSON for Perfetto UI and chrome://tracing "
                "(--heph-compat: byte-identical to Heph's convert_trace)", chrome_run },
};

const pcd_ext pcd_heph_ext = { "heph", &heph_info_ops, heph_conv, 1, NULL, NULL, 0 };
