/* cli/explain_page.c: explain --to html: one offline page (src/cli/explain, embedded at build
 * time), the hex of the file beside the tree of its records and fields. Its data is one JSON
 * object in <script type="application/json" id="pcd-explain">: the lines explain --to json
 * writes, as an array ("records"), and the bytes of each stream the page shows ("streams": the
 * file, or the part of it the records shown lie in; the decompressed data of compressed
 * regions), base64. '<' is written \u003c, so nothing in the data ends the script element. The
 * page's Content-Security-Policy lets it fetch nothing, as the viewer's. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/explain.h"
#include "cli/explain_assets.h"

static pcd_status put(pcd_sink *s, const char *z) { return pcd_sink_put(s, z, strlen(z)); }

static pcd_status part(pcd_sink *s, const pcd_viewer_part *p)
{
    for (size_t i = 0; i < p->n; i++) PCD_TRY(put(s, p->lines[i]));
    return PCD_OK;
}

/* JSON text with every '<' as \u003c ('<' is only ever inside strings). */
static pcd_status safe(pcd_sink *s, const uint8_t *p, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '<') continue;
        PCD_TRY(pcd_sink_put(s, p + run, i - run));
        PCD_TRY(put(s, "\\u003c"));
        run = i + 1;
    }
    return pcd_sink_put(s, p + run, n - run);
}

static pcd_status base64(pcd_sink *s, const uint8_t *p, size_t n)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        q[0] = b64[v >> 18];
        q[1] = b64[v >> 12 & 63];
        q[2] = b64[v >> 6 & 63];
        q[3] = b64[v & 63];
        PCD_TRY(pcd_sink_put(s, q, 4));
    }
    if (i < n) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
        q[0] = b64[v >> 18];
        q[1] = b64[v >> 12 & 63];
        q[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        q[3] = '=';
        PCD_TRY(pcd_sink_put(s, q, 4));
    }
    return PCD_OK;
}

/* The file itself is shown whole up to this size; above it, the part the records shown are in. */
#define WHOLE_FILE_MAX ((size_t)8 << 20)

pcd_status cli_explain_page(pcd_sink *out, const explainer *x, const uint8_t *records_json, size_t records_len)
{
    PCD_TRY(part(out, &pcd_explain_parts[0]));
    /* the title: the file's name, escaped for HTML */
    for (const char *p = x->path; *p; p++) {
        switch (*p) {
        case '<': PCD_TRY(put(out, "&lt;")); break;
        case '>': PCD_TRY(put(out, "&gt;")); break;
        case '&': PCD_TRY(put(out, "&amp;")); break;
        case '"': PCD_TRY(put(out, "&quot;")); break;
        default: PCD_TRY(pcd_sink_put(out, p, 1));
        }
    }
    PCD_TRY(part(out, &pcd_explain_parts[1]));
    PCD_TRY(put(out, "{\"records\":["));
    /* the JSON lines as the elements of an array */
    size_t start = 0;
    bool first = true;
    for (size_t i = 0; i < records_len; i++) {
        if (records_json[i] != '\n') continue;
        if (!first) PCD_TRY(put(out, ","));
        first = false;
        PCD_TRY(safe(out, records_json + start, i - start));
        start = i + 1;
    }
    PCD_TRY(put(out, "],\"streams\":["));
    const uint8_t *whole = NULL;
    size_t whole_size = 0;
    bool have_whole = pcd_reader_input(&x->src.r, &whole, &whole_size) && whole_size <= WHOLE_FILE_MAX;
    for (size_t i = 0; i < x->n_st; i++) {
        const xstream *s = &x->st[i];
        char buf[200];
        const uint8_t *p = s->bytes;
        size_t n = s->len;
        uint64_t lo = s->lo;
        if (i == 0 && have_whole) {
            p = whole;
            n = whole_size;
            lo = 0;
        }
        int k = snprintf(buf, sizeof buf, "%s{\"stream\":%zu,\"parent\":%" PRIu32 ",\"offset\":%" PRIu64 ",\"size\":%" PRIu64
                         ",\"lo\":%" PRIu64 ",\"name\":", i ? "," : "", i, s->parent, s->start, s->end - s->start, lo);
        PCD_TRY(pcd_sink_put(out, buf, (size_t)k));
        if (s->region) {
            PCD_TRY(put(out, "\""));
            PCD_TRY(safe(out, (const uint8_t *)s->region, strlen(s->region)));
            PCD_TRY(put(out, "\""));
        } else {
            PCD_TRY(put(out, x->gzip ? "\"the file (decompressed: gzip)\"" : "\"the file\""));
        }
        PCD_TRY(put(out, ",\"bytes\":\""));
        if (p && n) PCD_TRY(base64(out, p, n));
        PCD_TRY(put(out, "\"}"));
    }
    PCD_TRY(put(out, "]}"));
    return part(out, &pcd_explain_parts[2]);
}
