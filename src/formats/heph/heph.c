/* formats/heph/heph.c: Heph traces above the bytes: the info summary and the registration
 * (the profile model's importer is in import.c; Chrome JSON and speedscope are written from
 * the model by src/outputs). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/hmap.h"
#include "common/text.h"
#include "formats/heph/heph.h"

static bool is_epoch(const pcd_heph_v0_1_metadata_packet *m)
{
    return m->value.which == PCD_HEPH_V0_1_METADATA_PACKET_VALUE_EPOCH;
}

static void fmt_utc(char *buf, size_t cap, uint64_t ns) { pcd_text_utc_ns(buf, cap, ns); }

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
    pcd_alloc *al;
} heph_info;

static void info_init(void *ctx, pcd_alloc *al)
{
    heph_info *h = ctx;
    memset(h, 0, sizeof *h);
    h->al = al;
    pcd_hmap_init(&h->streams, al);
    pcd_hmap_init(&h->substreams, al);
}

static void info_record(void *ctx, const pcd_record *rec)
{
    heph_info *h = ctx;
    const pcd_heph_v0_1_packet *p = pcd_heph_packet(rec);
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
        if (pcd_heph_v0_1_attribute_type_array(e->attributes[i].type)) h->array_attributes++;
        if (e->description.len == 16 && memcmp(e->description.ptr, "Building runtime", 16) == 0 &&
            e->attributes[i].name.len == 14 && memcmp(e->attributes[i].name.ptr, "worker_threads", 14) == 0 &&
            e->attributes[i].type == PCD_HEPH_V0_1_ATTRIBUTE_TYPE_U64) {
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

/* Stream ids in increasing order (caller frees with free_streams); NULL when out of memory. */
static uint64_t *sorted_streams(const heph_info *h, size_t *n)
{
    uint64_t *ids = pcd_alloc_get(h->al, (h->streams.len + 1) * sizeof *ids);
    *n = 0;
    if (!ids) return NULL;
    for (size_t i = 0; i < h->streams.cap; i++)
        if (h->streams.slots[i].used) ids[(*n)++] = h->streams.slots[i].k.a;
    qsort(ids, *n, sizeof *ids, cmp_u64);
    return ids;
}

static void free_streams(const heph_info *h, uint64_t *ids)
{
    if (ids) pcd_alloc_free(h->al, ids, (h->streams.len + 1) * sizeof *ids);
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
    free_streams(h, ids);
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
    free_streams(h, ids);
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

const pcd_ext pcd_heph_ext = { "heph", &heph_info_ops, NULL, NULL, 0, &pcd_heph_model, NULL, 0 };
