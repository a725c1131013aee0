/* cli/cmd_explain.c: `profcodec explain`: the file as a tree of records and fields, each with
 * where it lies, its bytes, its value (as dump writes it) and the schema's doc string, from the
 * generated explain functions and descriptors (runtime/pcd_explain.h): an annotated hex dump in
 * the terminal, JSON Lines (--to json), or one HTML page (--to html, explain_page.c).
 * Where decoding fails it shows the fields read before the failure, the failing one, what the
 * schema expected and the bytes found; with --all, where reading resumed. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/explain.h"
#include "common/vec.h"

static const char explain_help[] =
    "usage: profcodec explain FILE [--from OFFSET] [--records N] [--all] [--to text|json|html]\n"
    "                        [-o OUT] [--color auto|always|never] [--format NAME[:VERSION]]\n\n"
    "Shows the file as records and fields: for each field where it lies (offset and\n"
    "length), its bytes, its value as 'profcodec dump' writes it, and the schema's doc\n"
    "string. --to text (the default): an annotated hex dump, in colour when standard\n"
    "output is a terminal; --to json: one JSON object per line (the records with their\n"
    "fields nested); --to html: one offline page, the hex beside the tree (click a field\n"
    "to see its bytes, a byte to see its field; search by offset or field name).\n"
    "--from OFFSET starts at the first record that ends after OFFSET (decimal or 0x...;\n"
    "records in compressed data go by where their region is); --records N shows N of\n"
    "them (the page: 2000 by default, all for text and json).\n"
    "Where decoding fails: the fields read before it, the failing one, what the schema\n"
    "expected and the bytes found; exit status 1. --all goes on where reading resumes.\n"
    "OUT is written atomically (default: standard output).\n";

enum { TO_TEXT, TO_JSON, TO_HTML };

typedef struct run {
    explainer *x;
    int to;
    bool color;
    uint64_t from, max;        /* max 0: every record */
    bool all;
    pcd_sink *out;             /* text, json: the output; html: the page's records */
    uint64_t index, shown;
    /* the regions the records at each depth opened: their streams, by region */
    struct { const pcd_region_desc *rd; uint32_t stream; const char *name; uint64_t start; bool compressed; }
        open[PCD_READER_MAX_DEPTH + 1][8];
    uint32_t n_open[PCD_READER_MAX_DEPTH + 1];
    uint32_t n_ended[PCD_READER_MAX_DEPTH + 1]; /* of those, how many have ended (they end in order) */
    uint64_t owner[PCD_READER_MAX_DEPTH + 1];   /* the record (index) they belong to */
    uint32_t *kid, *next;      /* the fields' first child and next sibling (+ 1) */
    size_t kid_cap, next_cap;
    uint8_t color_of[256];
} run;

/* ---- streams ---------------------------------------------------------------------------- */

static uint32_t new_stream(explainer *x, const char *region, uint32_t parent, uint64_t start, uint64_t end)
{
    if (PCD_VEC_RESERVE(&x->c->al, x->st, x->st_cap, x->n_st + 1) != PCD_OK) return 0;
    xstream *s = &x->st[x->n_st];
    memset(s, 0, sizeof *s);
    s->region = region;
    s->parent = parent;
    s->start = start;
    s->end = end;
    return (uint32_t)x->n_st++;
}

/* Where a stream's bytes lie in the file: for compressed data, its outermost region's end. */
static uint64_t file_pos(const explainer *x, uint32_t stream, uint64_t off)
{
    while (stream) {
        off = x->st[stream].end > x->st[stream].start ? x->st[stream].end : x->st[stream].start;
        stream = x->st[stream].parent;
    }
    return off;
}

/* The html page keeps the bytes it shows: those of [lo, hi) of a stream, from the reader's. */
static void keep_bytes(explainer *x, uint32_t stream, uint64_t lo, uint64_t hi, const uint8_t *p, uint64_t base, size_t n)
{
    xstream *s = &x->st[stream];
    if (lo < base) lo = base;
    if (hi > base + n) hi = base + n;
    if (hi <= lo) return;
    if (!s->len) s->lo = lo;
    if (lo < s->lo || lo > s->lo + s->len) return; /* (records come in order; a gap is not kept) */
    if (hi <= s->lo + s->len) return;
    size_t need = (size_t)(hi - s->lo);
    if (PCD_VEC_RESERVE(&x->c->al, s->bytes, s->cap, need) != PCD_OK) return;
    memcpy(s->bytes + s->len, p + (s->lo + s->len - base), (size_t)(hi - (s->lo + s->len)));
    s->len = need;
}

/* ---- the fields as a tree ------------------------------------------------------------------ */

static pcd_status tree(run *r)
{
    const pcd_xrecord *xr = &r->x->xr;
    pcd_alloc *al = &r->x->c->al;
    PCD_TRY(PCD_VEC_RESERVE(al, r->kid, r->kid_cap, xr->n + 1));
    PCD_TRY(PCD_VEC_RESERVE(al, r->next, r->next_cap, xr->n + 1));
    memset(r->kid, 0, (xr->n + 1) * sizeof *r->kid);
    memset(r->next, 0, (xr->n + 1) * sizeof *r->next);
    /* children in order: walk backwards, each put in front of its parent's list */
    for (size_t i = xr->n; i-- > 0;) {
        uint32_t p = xr->f[i].parent; /* 0: the record (slot 0), else field p - 1 (slot p) */
        r->next[i + 1] = r->kid[p];
        r->kid[p] = (uint32_t)i + 1;
    }
    return PCD_OK;
}

/* ---- text: the annotated hex dump ------------------------------------------------------------ */

static const char *const colors[] = { "\033[36m", "\033[33m", "\033[35m", "\033[32m", "\033[34m", "\033[31m" };
#define DIM "\033[2m"
#define BOLD "\033[1m"
#define RESET "\033[0m"

static pcd_status put(pcd_sink *s, const char *z) { return pcd_sink_put(s, z, strlen(z)); }

static pcd_status hexbytes(pcd_sink *o, const uint8_t *p, size_t n, size_t max)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < n && i < max; i++) {
        char b[3] = { hx[p[i] >> 4], hx[p[i] & 15], ' ' };
        PCD_TRY(pcd_sink_put(o, b, 3));
    }
    if (n > max) PCD_TRY(put(o, "… "));
    return PCD_OK;
}

/* A value as text, shortened. */
static pcd_status value_text(run *r, const pcd_xfield *f, pcd_sink *o, const uint8_t *raw)
{
    pcd_memsink m;
    pcd_memsink_init(&m, &r->x->c->al);
    bool has = false;
    pcd_status st = pcd_explain_value(&m.sink, f, &has);
    if (st == PCD_OK) st = pcd_memsink_flush(&m);
    if (st == PCD_OK && !has && raw && f->leaf && f->kind == PCD_X_FIELD && !f->fd && f->closed) {
        /* (a magic: its bytes as they are) */
        st = pcd_json_text(&m.sink, raw, (size_t)(f->end - f->start));
        if (st == PCD_OK) st = pcd_memsink_flush(&m);
        has = true;
    }
    if (st == PCD_OK && has) {
        size_t n = m.len > 72 ? 72 : m.len;
        st = pcd_sink_put(o, m.data, n);
        if (st == PCD_OK && n < m.len) st = put(o, "…");
    }
    pcd_memsink_free(&m);
    return st;
}

/* The bytes of [start, end) of the record's stream, or NULL. */
static const uint8_t *bytes_of(const uint8_t *p, uint64_t base, size_t n, uint64_t start, uint64_t end)
{
    if (!p || start < base || end > base + n || end < start) return NULL;
    return p + (start - base);
}

static pcd_status text_field(run *r, uint32_t i, const uint8_t *p, uint64_t base, size_t n, unsigned depth)
{
    pcd_sink *o = r->out;
    const pcd_xfield *f = &r->x->xr.f[i];
    char buf[96];
    const char *col = r->color && f->leaf ? colors[r->color_of[i & 255] % 6] : "";
    int k = snprintf(buf, sizeof buf, "  %s%08" PRIx64 "%s  ", r->color ? DIM : "", f->start, r->color ? RESET : "");
    PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    const uint8_t *raw = bytes_of(p, base, n, f->start, f->closed ? f->end : f->start);
    size_t len = (size_t)(f->end - f->start);
    /* the bytes: 8 at most (24 columns) */
    size_t shown = len > 8 ? 8 : len;
    PCD_TRY(put(o, col));
    if (raw && f->leaf) PCD_TRY(hexbytes(o, raw, len, 8));
    else shown = 0;
    if (r->color) PCD_TRY(put(o, RESET));
    for (size_t c = shown * 3 + (len > 8 && raw && f->leaf ? 4 : 0); c < 28; c++) PCD_TRY(pcd_sink_put(o, " ", 1));
    for (unsigned d = 1; d < depth; d++) PCD_TRY(put(o, "  "));
    if (f->name) PCD_TRY(put(o, f->name));
    else {
        k = snprintf(buf, sizeof buf, "[%" PRId64 "]", f->index);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    if (f->name && f->index >= 0) {
        k = snprintf(buf, sizeof buf, "[%" PRId64 "]", f->index);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    if (f->kind == PCD_X_REGION) {
        if (f->sized)
            k = snprintf(buf, sizeof buf, "  (%s records%s, %" PRIu64 " bytes)", f->compressed ? "compressed" : "its",
                         f->compressed ? ", decompressed below" : " follow", f->end - f->start);
        else
            k = snprintf(buf, sizeof buf, "  (%s)", f->compressed ? "compressed records, decompressed below" : "its records follow");
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    } else if (!f->closed) {
        PCD_TRY(put(o, f->leaf ? (r->color ? "  " BOLD "\033[31m← decoding failed here" RESET : "  <- decoding failed here")
                               : (r->color ? "  " BOLD "\033[31m← decoding failed in it" RESET : "  <- decoding failed in it")));
    } else if (!f->leaf) {
        k = snprintf(buf, sizeof buf, "  (%" PRIu64 " bytes)", f->end - f->start);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    } else {
        PCD_TRY(put(o, " = "));
        PCD_TRY(value_text(r, f, o, raw));
        if (len > 8) {
            k = snprintf(buf, sizeof buf, " (%" PRIu64 " bytes)", (uint64_t)len);
            PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
        }
    }
    if (f->doc) {
        PCD_TRY(put(o, r->color ? "  " DIM "# " : "  # "));
        size_t dl = strlen(f->doc);
        PCD_TRY(pcd_sink_put(o, f->doc, dl > 100 ? 100 : dl));
        if (dl > 100) PCD_TRY(put(o, "…"));
        if (r->color) PCD_TRY(put(o, RESET));
    }
    PCD_TRY(put(o, "\n"));
    for (uint32_t c = r->kid[i + 1]; c; c = r->next[c]) PCD_TRY(text_field(r, c - 1, p, base, n, depth + 1));
    return PCD_OK;
}

/* The record's bytes, 16 a row, each leaf's bytes in its colour. */
static pcd_status text_hex(run *r, const pcd_record *rec, const uint8_t *p, uint64_t base, size_t n)
{
    pcd_sink *o = r->out;
    const pcd_xrecord *xr = &r->x->xr;
    uint64_t lo = rec->offset, hi = rec->offset + rec->size;
    const uint8_t *raw = bytes_of(p, base, n, lo, hi);
    if (!raw || hi == lo) return PCD_OK;
    uint64_t end = hi - lo > 256 ? lo + 256 : hi;
    size_t li = 0;
    for (uint64_t row = lo; row < end; row += 16) {
        char buf[32];
        int k = snprintf(buf, sizeof buf, "  %s%08" PRIx64 "%s  ", r->color ? DIM : "", row, r->color ? RESET : "");
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
        const char *cur = "";
        for (uint64_t b = row; b < row + 16; b++) {
            if (b >= end) {
                PCD_TRY(put(o, "   "));
                continue;
            }
            if (r->color) {
                /* the leaf this byte is in (leaves come in order of their bytes, mostly) */
                const char *want = "";
                for (size_t t = 0; t < xr->n; t++) {
                    size_t i = (li + t) % xr->n;
                    const pcd_xfield *f = &xr->f[i];
                    if (f->leaf && f->kind != PCD_X_REGION && b >= f->start && b < f->end) {
                        want = colors[r->color_of[i & 255] % 6];
                        li = i;
                        break;
                    }
                }
                if (strcmp(want, cur) != 0) {
                    PCD_TRY(put(o, RESET));
                    PCD_TRY(put(o, want));
                    cur = want;
                }
            }
            PCD_TRY(hexbytes(o, raw + (b - lo), 1, 1));
        }
        if (r->color) PCD_TRY(put(o, RESET));
        PCD_TRY(put(o, " "));
        for (uint64_t b = row; b < row + 16 && b < end; b++) {
            uint8_t ch = raw[b - lo];
            char c = ch >= 32 && ch < 127 ? (char)ch : '.';
            PCD_TRY(pcd_sink_put(o, &c, 1));
        }
        PCD_TRY(put(o, "\n"));
    }
    if (end < hi) {
        char buf[64];
        int k = snprintf(buf, sizeof buf, "  …         (%" PRIu64 " bytes more)\n", hi - end);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    return PCD_OK;
}

static pcd_status text_record(run *r, const pcd_record *rec, uint32_t stream, const uint8_t *p, uint64_t base, size_t n,
                              bool failed)
{
    pcd_sink *o = r->out;
    char buf[256];
    const char *kind = pcd_explain_kind(rec);
    int k = snprintf(buf, sizeof buf, "%srecord %" PRIu64 " · %s%s%s · offset %" PRIu64 " (0x%" PRIx64 ")", r->color ? BOLD : "",
                     r->index, rec->type->name, strcmp(kind, rec->type->name) ? " " : "",
                     strcmp(kind, rec->type->name) ? kind : "", rec->offset, rec->offset);
    PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    if (stream) {
        const xstream *s = &r->x->st[stream];
        k = snprintf(buf, sizeof buf, " in the decompressed %s at 0x%" PRIx64, s->region, s->start);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    if (failed) PCD_TRY(put(o, " · decoding failed"));
    else {
        k = snprintf(buf, sizeof buf, " · %" PRIu64 " bytes", rec->size);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    if (r->color) PCD_TRY(put(o, RESET));
    if (rec->type->doc) {
        PCD_TRY(put(o, r->color ? "  " DIM "# " : "  # "));
        size_t dl = strlen(rec->type->doc);
        PCD_TRY(pcd_sink_put(o, rec->type->doc, dl > 100 ? 100 : dl));
        if (dl > 100) PCD_TRY(put(o, "…"));
        if (r->color) PCD_TRY(put(o, RESET));
    }
    PCD_TRY(put(o, "\n"));
    /* colours: each leaf its own, in turn */
    unsigned c = 0;
    for (size_t i = 0; i < r->x->xr.n; i++)
        if (r->x->xr.f[i].leaf) r->color_of[i & 255] = (uint8_t)(c++ % 6);
    if (!failed) PCD_TRY(text_hex(r, rec, p, base, n));
    for (uint32_t f = r->kid[0]; f; f = r->next[f]) PCD_TRY(text_field(r, f - 1, p, base, n, 1));
    if (r->x->xr.lost) PCD_TRY(put(o, "  (out of memory: fields are missing)\n"));
    return PCD_OK;
}

/* ---- json: one object per line --------------------------------------------------------------- */

static pcd_status json_str(pcd_sink *o, const char *z) { return pcd_json_string(o, (const uint8_t *)z, strlen(z)); }

static const char *const xkind_names[] = { "field", "element", "tag", "count", "region", "key" };

static pcd_status json_field(run *r, uint32_t i, const uint8_t *p, uint64_t base, size_t n)
{
    pcd_sink *o = r->out;
    const pcd_xfield *f = &r->x->xr.f[i];
    char buf[160];
    PCD_TRY(put(o, "{\"name\":"));
    PCD_TRY(f->name ? json_str(o, f->name) : put(o, "null"));
    int k = snprintf(buf, sizeof buf, ",\"kind\":\"%s\",\"offset\":%" PRIu64 ",\"size\":%" PRIu64, xkind_names[f->kind],
                     f->start, f->end - f->start);
    PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    if (f->index >= 0) {
        k = snprintf(buf, sizeof buf, ",\"index\":%" PRId64, f->index);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    if (f->kind == PCD_X_REGION) {
        k = snprintf(buf, sizeof buf, ",\"compressed\":%s,\"sized\":%s", f->compressed ? "true" : "false",
                     f->sized ? "true" : "false");
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    if (!f->closed) PCD_TRY(put(o, ",\"failed\":true"));
    if (f->is_case) PCD_TRY(put(o, ",\"case\":true"));
    if (f->leaf) {
        PCD_TRY(put(o, ",\"leaf\":true"));
        pcd_memsink m;
        pcd_memsink_init(&m, &r->x->c->al);
        bool has = false;
        pcd_status st = pcd_explain_value(&m.sink, f, &has);
        if (st == PCD_OK) st = pcd_memsink_flush(&m);
        if (st == PCD_OK && has) {
            st = put(o, ",\"value\":");
            if (st == PCD_OK) st = pcd_sink_put(o, m.data, m.len);
        }
        pcd_memsink_free(&m);
        PCD_TRY(st);
        const uint8_t *raw = f->closed ? bytes_of(p, base, n, f->start, f->end) : NULL;
        if (raw && f->end - f->start <= 4096 && f->kind != PCD_X_REGION) {
            static const char hx[] = "0123456789abcdef";
            PCD_TRY(put(o, ",\"hex\":\""));
            for (uint64_t b = 0; b < f->end - f->start; b++) {
                char h[2] = { hx[raw[b] >> 4], hx[raw[b] & 15] };
                PCD_TRY(pcd_sink_put(o, h, 2));
            }
            PCD_TRY(put(o, "\""));
            if (!has && f->kind == PCD_X_FIELD && !f->fd) {
                /* (a magic: no descriptor, its bytes) */
                PCD_TRY(put(o, ",\"text\":"));
                PCD_TRY(pcd_json_text(o, raw, (size_t)(f->end - f->start)));
            }
        }
    }
    if (f->doc) {
        PCD_TRY(put(o, ",\"doc\":"));
        PCD_TRY(json_str(o, f->doc));
    }
    if (r->kid[i + 1]) {
        PCD_TRY(put(o, ",\"fields\":["));
        for (uint32_t c = r->kid[i + 1]; c; c = r->next[c]) {
            PCD_TRY(json_field(r, c - 1, p, base, n));
            if (r->next[c]) PCD_TRY(put(o, ","));
        }
        PCD_TRY(put(o, "]"));
    }
    return put(o, "}");
}

static pcd_status json_record(run *r, const pcd_record *rec, uint32_t stream, const uint8_t *p, uint64_t base, size_t n,
                              bool failed)
{
    pcd_sink *o = r->out;
    char buf[256];
    PCD_TRY(put(o, "{\"t\":\"record\",\"type\":"));
    PCD_TRY(json_str(o, rec->type->name));
    PCD_TRY(put(o, ",\"kind\":"));
    PCD_TRY(json_str(o, pcd_explain_kind(rec)));
    int k = snprintf(buf, sizeof buf, ",\"record\":%" PRIu64 ",\"depth\":%" PRIu32 ",\"stream\":%" PRIu32
                     ",\"offset\":%" PRIu64 ",\"size\":%" PRIu64 "%s",
                     r->index, rec->depth, stream, rec->offset, failed ? 0 : rec->size, failed ? ",\"failed\":true" : "");
    PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    if (rec->type->doc) {
        PCD_TRY(put(o, ",\"doc\":"));
        PCD_TRY(json_str(o, rec->type->doc));
    }
    if (r->x->xr.lost) PCD_TRY(put(o, ",\"lost\":true"));
    PCD_TRY(put(o, ",\"fields\":["));
    for (uint32_t f = r->kid[0]; f; f = r->next[f]) {
        PCD_TRY(json_field(r, f - 1, p, base, n));
        if (r->next[f]) PCD_TRY(put(o, ","));
    }
    return put(o, "]}\n");
}

static pcd_status json_stream(run *r, uint32_t id)
{
    const xstream *s = &r->x->st[id];
    char buf[200];
    PCD_TRY(put(r->out, "{\"t\":\"stream\",\"region\":"));
    PCD_TRY(json_str(r->out, s->region));
    int k = snprintf(buf, sizeof buf, ",\"stream\":%" PRIu32 ",\"parent\":%" PRIu32 ",\"offset\":%" PRIu64 ",\"size\":%" PRIu64 "}\n",
                     id, s->parent, s->start, s->end - s->start);
    return pcd_sink_put(r->out, buf, (size_t)k);
}

/* ---- damage --------------------------------------------------------------------------------- */

static pcd_status damage(run *r, const pcd_error *e, bool resumed, uint64_t resume)
{
    pcd_sink *o = r->out;
    char msg[1024], buf[200];
    pcd_error_format(e, msg, sizeof msg);
    explainer *x = r->x;
    /* the bytes found where it failed */
    const uint8_t *p;
    uint64_t base;
    size_t n;
    const uint8_t *at = NULL;
    size_t left = 0;
    uint32_t d = x->src.r.fail_depth;
    if (pcd_reader_stream(&x->src.r, d, &p, &base, &n) && e->offset >= base && e->offset <= base + n) {
        at = p + (e->offset - base);
        left = (size_t)(base + n - e->offset);
    }
    if (r->to == TO_JSON || r->to == TO_HTML) {
        int k = snprintf(buf, sizeof buf, "{\"t\":\"damage\",\"offset\":%" PRIu64 ",\"message\":", e->offset);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
        PCD_TRY(pcd_json_text(o, (const uint8_t *)msg, strlen(msg)));
        if (e->expected) {
            PCD_TRY(put(o, ",\"expected\":"));
            PCD_TRY(json_str(o, e->expected));
        }
        char path[256];
        pcd_error_path(e, path, sizeof path);
        PCD_TRY(put(o, ",\"path\":"));
        PCD_TRY(json_str(o, path));
        if (at) {
            static const char hx[] = "0123456789abcdef";
            PCD_TRY(put(o, ",\"found\":\""));
            for (size_t b = 0; b < left && b < 32; b++) {
                char h[2] = { hx[at[b] >> 4], hx[at[b] & 15] };
                PCD_TRY(pcd_sink_put(o, h, 2));
            }
            PCD_TRY(put(o, "\""));
        }
        if (resumed) {
            k = snprintf(buf, sizeof buf, ",\"resumed\":%" PRIu64, resume);
            PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
        }
        return put(o, "}\n");
    }
    PCD_TRY(put(o, r->color ? BOLD "\033[31mdamage" RESET " at " : "damage at "));
    PCD_TRY(put(o, msg));
    PCD_TRY(put(o, "\n  the bytes found there: "));
    if (at && left) PCD_TRY(hexbytes(o, at, left, 16));
    else PCD_TRY(put(o, "none (the end of the data) "));
    if (at && left <= 16) PCD_TRY(put(o, "| end of data"));
    PCD_TRY(put(o, "\n"));
    if (resumed) {
        int k = snprintf(buf, sizeof buf, "  --all: skipped to offset %" PRIu64 " (0x%" PRIx64 "), reading on\n\n", resume, resume);
        PCD_TRY(pcd_sink_put(o, buf, (size_t)k));
    }
    return PCD_OK;
}

/* The record whose decoding failed: the spans it had recorded (the last good fields and the
 * failing one), its bytes up to the failure. */
static pcd_status failed_record(run *r)
{
    explainer *x = r->x;
    pcd_record rec;
    if (!pcd_reader_failed_record(&x->src.r, &rec) || !x->spans.n) return PCD_OK;
    PCD_TRY(pcd_explain_record(&x->xr, &rec, &x->spans, NULL));
    PCD_TRY(tree(r));
    uint32_t stream = 0;
    if (rec.depth)
        for (uint32_t k = 0; k < r->n_open[rec.depth - 1]; k++)
            if (r->open[rec.depth - 1][k].rd == rec.region) stream = r->open[rec.depth - 1][k].stream;
    const uint8_t *p = NULL;
    uint64_t base = 0;
    size_t n = 0;
    pcd_reader_stream(&x->src.r, rec.depth, &p, &base, &n);
    pcd_status st;
    if (r->to == TO_TEXT) {
        st = text_record(r, &rec, stream, p, base, n, true);
    } else {
        if (r->to == TO_HTML) keep_bytes(x, stream, rec.offset, base + n, p, base, n);
        st = json_record(r, &rec, stream, p, base, n, true);
    }
    r->index++;
    return st;
}

/* ---- the records ------------------------------------------------------------------------------ */

/* The regions that ended while the reader read on: where each ended in its parent's stream (a
 * zstd frame's compressed size is known only then). */
static pcd_status ended(run *r)
{
    uint32_t depths[PCD_READER_MAX_DEPTH];
    uint64_t ends[PCD_READER_MAX_DEPTH];
    size_t n = pcd_reader_closed(&r->x->src.r, depths, ends, PCD_READER_MAX_DEPTH);
    for (size_t i = 0; i < n; i++) {
        uint32_t d = depths[i] - 1; /* the depth of the record it belongs to */
        if (depths[i] == 0 || r->n_ended[d] >= r->n_open[d]) continue;
        uint32_t k = r->n_ended[d]++;
        const char *name = r->open[d][k].name;
        uint64_t start = r->open[d][k].start, end = ends[i] > start ? ends[i] : start;
        uint32_t s = r->open[d][k].stream;
        if (r->open[d][k].compressed) r->x->st[s].end = end;
        if (r->to == TO_TEXT) continue;
        char buf[200];
        PCD_TRY(put(r->out, "{\"t\":\"region\",\"name\":"));
        PCD_TRY(json_str(r->out, name));
        int m = snprintf(buf, sizeof buf, ",\"record\":%" PRIu64 ",\"stream\":%" PRIu32 ",\"compressed\":%s,\"offset\":%" PRIu64
                         ",\"size\":%" PRIu64 "}\n", r->owner[d], s, r->open[d][k].compressed ? "true" : "false", start, end - start);
        PCD_TRY(pcd_sink_put(r->out, buf, (size_t)m));
    }
    return PCD_OK;
}

static pcd_status one(run *r, const pcd_record *rec)
{
    explainer *x = r->x;
    const uint8_t *p = NULL;
    uint64_t base = 0;
    size_t n = 0;
    pcd_reader_stream(&x->src.r, rec->depth, &p, &base, &n);
    const uint8_t *own = bytes_of(p, base, n, rec->offset, rec->offset + rec->size);
    PCD_TRY(pcd_explain_record(&x->xr, rec, &x->spans, own));
    PCD_TRY(tree(r));
    /* its stream: the region of the record above it it came from */
    uint32_t stream = 0;
    if (rec->depth)
        for (uint32_t k = 0; k < r->n_open[rec->depth - 1]; k++)
            if (r->open[rec->depth - 1][k].rd == rec->region) stream = r->open[rec->depth - 1][k].stream;
    /* the regions it opens: their streams (compressed data is a stream of its own) */
    r->n_open[rec->depth] = 0;
    r->n_ended[rec->depth] = 0;
    r->owner[rec->depth] = r->index;
    for (size_t i = 0; i < x->xr.n; i++) {
        const pcd_xfield *f = &x->xr.f[i];
        if (f->kind != PCD_X_REGION || r->n_open[rec->depth] == 8) continue;
        uint32_t s = f->compressed ? new_stream(x, f->name, stream, f->start, f->end) : stream;
        uint32_t k = r->n_open[rec->depth]++;
        r->open[rec->depth][k].rd = f->fd->region;
        r->open[rec->depth][k].stream = s;
        r->open[rec->depth][k].name = f->name;
        r->open[rec->depth][k].start = f->start;
        r->open[rec->depth][k].compressed = f->compressed;
        if (f->compressed && (r->to == TO_JSON || r->to == TO_HTML)) PCD_TRY(json_stream(r, s));
    }
    bool show = file_pos(x, stream, rec->offset + rec->size) > r->from && (!r->max || r->shown < r->max);
    if (show || rec->depth == 0) {
        if (show) r->shown++;
        if (r->to == TO_TEXT) PCD_TRY(text_record(r, rec, stream, p, base, n, false));
        else PCD_TRY(json_record(r, rec, stream, p, base, n, false));
        if (r->to == TO_HTML) {
            /* the bytes the page shows: the record's, and the fields' it locates elsewhere */
            keep_bytes(x, stream, rec->offset, rec->offset + rec->size, p, base, n);
            for (size_t i = 0; i < x->xr.n; i++) {
                const pcd_xfield *f = &x->xr.f[i];
                if (f->leaf && f->kind != PCD_X_REGION && (f->start < rec->offset || f->end > rec->offset + rec->size))
                    keep_bytes(x, stream, f->start, f->end, p, base, n);
                if (f->kind == PCD_X_REGION && f->compressed) keep_bytes(x, stream, f->start, f->end, p, base, n);
            }
        }
    }
    r->index++;
    return PCD_OK;
}

int cmd_explain(cli *c, int argc, char **argv)
{
    const char *outname = NULL, *to = "text", *color = "auto";
    run r;
    memset(&r, 0, sizeof r);
    bool records_given = false;
    static const struct option lo[] = {
        { "from", required_argument, 0, OPT_FROM_OFFSET }, { "records", required_argument, 0, OPT_RECORDS },
        { "all", no_argument, 0, OPT_ALL }, { "to", required_argument, 0, OPT_TO },
        { "color", required_argument, 0, OPT_COLOR }, { "colour", required_argument, 0, OPT_COLOR },
        { "format", required_argument, 0, OPT_FORMAT }, { "output", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        char *end = NULL;
        if (o == OPT_FROM_OFFSET || o == OPT_RECORDS) {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 0);
            if (!*optarg || *end || errno || optarg[0] == '-') {
                fprintf(stderr, "profcodec explain: --%s takes a number, not '%s'\n", o == OPT_RECORDS ? "records" : "from",
                        optarg);
                return EXIT_USAGE;
            }
            if (o == OPT_RECORDS) {
                r.max = v;
                records_given = true;
            } else {
                r.from = v;
            }
        } else if (o == OPT_ALL) r.all = true;
        else if (o == OPT_TO) to = optarg;
        else if (o == OPT_COLOR) color = optarg;
        else if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == 'h') { fputs(explain_help, stdout); return 0; }
        else { fputs(explain_help, stderr); return EXIT_USAGE; }
    }
    if (optind != argc - 1) {
        fputs(explain_help, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(to, "text") == 0) r.to = TO_TEXT;
    else if (strcmp(to, "json") == 0) r.to = TO_JSON;
    else if (strcmp(to, "html") == 0) r.to = TO_HTML;
    else {
        fprintf(stderr, "profcodec explain: --to takes text, json or html, not '%s'\n", to);
        return EXIT_USAGE;
    }
    if (strcmp(color, "always") == 0) r.color = true;
    else if (strcmp(color, "auto") == 0) r.color = r.to == TO_TEXT && out_to_stdout_ok(outname) && isatty(1);
    else if (strcmp(color, "never") != 0) {
        fprintf(stderr, "profcodec explain: --color takes auto, always or never, not '%s'\n", color);
        return EXIT_USAGE;
    }
    if (r.to != TO_TEXT) r.color = false;
    if (r.to == TO_HTML && !records_given) r.max = 2000;
    const char *path = argv[optind];
    explainer x;
    memset(&x, 0, sizeof x);
    x.c = c;
    x.path = path;
    r.x = &x;
    int rc = cli_open_explain(c, &x.src, path, &x.spans);
    if (rc) {
        cli_close(&x.src);
        return rc;
    }
    pcd_xrecord_init(&x.xr, &c->al);
    x.file_size = x.src.in.is_regular ? x.src.in.size : 0;
    const uint8_t *whole;
    size_t whole_size;
    if (pcd_reader_input(&x.src.r, &whole, &whole_size)) x.stream_size = whole_size;
    x.gzip = x.src.gz != NULL;
    if (!x.file_size) x.file_size = x.gzip ? 0 : x.stream_size;
    new_stream(&x, NULL, 0, 0, x.stream_size);
    outbuf ob;
    rc = outbuf_open(c, &ob, out_to_stdout_ok(outname) ? "-" : outname);
    if (rc) {
        cli_close(&x.src);
        pcd_spans_free(&x.spans);
        return rc;
    }
    pcd_memsink page;
    pcd_memsink_init(&page, &c->al);
    r.out = r.to == TO_HTML ? &page.sink : &ob.sink;
    /* the head: the file, its format */
    pcd_status wst = PCD_OK;
    const pcd_format *f = x.src.f;
    char buf[512];
    if (r.to == TO_TEXT) {
        int k = snprintf(buf, sizeof buf, "%s: %s %s (%s), %" PRIu64 " bytes", path, f->name, f->version, f->title,
                         x.gzip ? x.file_size : x.stream_size);
        wst = pcd_sink_put(&ob.sink, buf, (size_t)k);
        if (wst == PCD_OK && x.gzip) {
            k = snprintf(buf, sizeof buf, ", gzip: %" PRIu64 " bytes decompressed (offsets are in those)", x.stream_size);
            wst = pcd_sink_put(&ob.sink, buf, (size_t)k);
        }
        if (wst == PCD_OK) wst = put(&ob.sink, "\n\n");
    } else {
        wst = put(r.out, "{\"t\":\"file\",\"file\":");
        if (wst == PCD_OK) wst = pcd_json_text(r.out, (const uint8_t *)path, strlen(path));
        int k = snprintf(buf, sizeof buf, ",\"format\":\"%s\",\"version\":\"%s\",\"size\":%" PRIu64 ",\"stream_size\":%" PRIu64
                         ",\"gzip\":%s,\"title\":", f->name, f->version, x.gzip ? x.file_size : x.stream_size,
                         x.stream_size, x.gzip ? "true" : "false");
        if (wst == PCD_OK) wst = pcd_sink_put(r.out, buf, (size_t)k);
        if (wst == PCD_OK) wst = json_str(r.out, f->title);
        if (wst == PCD_OK) wst = put(r.out, "}\n");
    }
    bool damaged = false;
    pcd_record rec;
    while (wst == PCD_OK) {
        pcd_status st = pcd_reader_next(&x.src.r, &rec);
        wst = ended(&r);
        if (wst != PCD_OK || st == PCD_END) break;
        if (st != PCD_OK) {
            const pcd_error *e = pcd_reader_error(&x.src.r);
            damaged = true;
            pcd_error err = *e;
            wst = failed_record(&r);
            uint64_t resume = 0;
            bool resumed = r.all && pcd_reader_recover(&x.src.r, &resume) == PCD_OK;
            if (wst == PCD_OK) wst = damage(&r, &err, resumed, resume);
            if (!resumed) {
                cli_report(c, path, &err);
                break;
            }
            continue;
        }
        wst = one(&r, &rec);
    }
    if (wst == PCD_OK && r.to == TO_HTML) {
        wst = pcd_memsink_flush(&page);
        if (wst == PCD_OK) wst = cli_explain_page(&ob.sink, &x, page.data, page.len);
    }
    if (wst == PCD_OK && r.to == TO_TEXT && !r.shown && !damaged)
        wst = put(&ob.sink, "(no record ends after --from)\n");
    if (wst != PCD_OK) {
        fprintf(stderr, "%s: cannot explain: %s\n", path, wst == PCD_E_NOMEM ? "out of memory (raise --max-memory)" : pcd_status_name(wst));
        outbuf_abort(&ob);
        rc = EXIT_USAGE;
    } else {
        rc = outbuf_commit(&ob);
    }
    pcd_memsink_free(&page);
    for (size_t i = 0; i < x.n_st; i++) PCD_VEC_FREE(&c->al, x.st[i].bytes, x.st[i].cap);
    PCD_VEC_FREE(&c->al, x.st, x.st_cap);
    PCD_VEC_FREE(&c->al, r.kid, r.kid_cap);
    PCD_VEC_FREE(&c->al, r.next, r.next_cap);
    pcd_xrecord_free(&x.xr);
    cli_close(&x.src);
    pcd_spans_free(&x.spans);
    if (rc) return rc;
    return damaged ? EXIT_INVALID : 0;
}
