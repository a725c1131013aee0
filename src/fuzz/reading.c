/* fuzz/reading.c: profcodec's own reading of an input for differential runs; see reading.h. */
#include "fuzz/reading.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "formats/detect.h"
#include "pipeline/pipeline.h"

/* ---- gzip around the input ------------------------------------------------------------------ */

static void *z_alloc(void *ud, unsigned items, unsigned size)
{
    size_t n = (size_t)items * size;
    return pcd_alloc_sized(ud, n ? n : 1);
}

static void z_free(void *ud, void *p) { pcd_alloc_sized_free(ud, p); }

/* The decompressed bytes of a gzip input in *out (sized block from al), or a reason. */
static pcd_status gunzip(const uint8_t *data, size_t n, pcd_alloc *al, uint8_t **out, size_t *out_n, char *why,
                         size_t why_cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    z.zalloc = z_alloc;
    z.zfree = z_free;
    z.opaque = al;
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return PCD_E_NOMEM;
    size_t cap = n * 4 + 4096, len = 0;
    uint8_t *buf = pcd_alloc_sized(al, cap);
    pcd_status st = PCD_OK;
    if (!buf) st = PCD_E_NOMEM;
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
    while (st == PCD_OK) {
        if (len == cap) {
            size_t ncap = cap * 2;
            uint8_t *nb = pcd_alloc_sized_resize(al, buf, ncap);
            if (!nb) {
                st = PCD_E_NOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t room = cap - len > UINT32_MAX ? UINT32_MAX : cap - len;
        z.next_out = buf + len;
        z.avail_out = (uInt)room;
        int zr = inflate(&z, Z_NO_FLUSH);
        len += room - z.avail_out;
        if (zr == Z_STREAM_END) break;
        if (zr == Z_OK) continue;
        if (zr == Z_BUF_ERROR && z.avail_out != 0) {
            snprintf(why, why_cap, "gzip: the compressed data ends early (byte %llu)", (unsigned long long)z.total_in);
        } else {
            snprintf(why, why_cap, "gzip: %s (byte %llu of the compressed file)", z.msg ? z.msg : "bad data",
                     (unsigned long long)z.total_in);
        }
        st = PCD_E_GZIP;
    }
    inflateEnd(&z);
    if (st != PCD_OK) {
        pcd_alloc_sized_free(al, buf);
        return st;
    }
    *out = buf;
    *out_n = len;
    return PCD_OK;
}

/* ---- accepted: every record and the checks ----------------------------------------------- */

typedef struct check_feed {
    const pcd_check_ops *ops;
    void *cctx;
    pcd_fz_reading *out;
    uint64_t errors;
} check_feed;

static void on_check(void *ud, bool is_error, const pcd_error *e)
{
    check_feed *cf = ud;
    if (!is_error) return; /* warnings do not reject (validate without --strict) */
    if (!cf->errors) pcd_error_format(e, cf->out->why, sizeof cf->out->why);
    cf->errors++;
}

static pcd_status check_one(void *ud, const pcd_record *rec)
{
    check_feed *cf = ud;
    if (cf->cctx) cf->ops->record(cf->cctx, rec, on_check, cf);
    return PCD_OK;
}

static pcd_status validate(const pcd_format *f, const uint8_t *data, size_t n, pcd_alloc *al, pcd_fz_reading *out)
{
    pcd_reader r;
    pcd_reader_opts o = { al, NULL, 0, false, false };
    pcd_status st = pcd_reader_open_buffer(&r, f, data, n, &o);
    if (st != PCD_OK) return st;
    const pcd_ext *ext = pcd_ext_find(f->name);
    check_feed cf = { ext ? ext->check : NULL, NULL, out, 0 };
    if (cf.ops) {
        cf.cctx = pcd_alloc_get(al, cf.ops->ctx_size ? cf.ops->ctx_size : 1);
        if (!cf.cctx) {
            pcd_reader_close(&r);
            return PCD_E_NOMEM;
        }
        memset(cf.cctx, 0, cf.ops->ctx_size ? cf.ops->ctx_size : 1);
        cf.ops->init(cf.cctx, al);
    }
    bool end = false;
    for (;;) {
        uint64_t k = 0;
        pcd_record rec;
        st = pcd_reader_decode_run(&r, 1u << 16, &k, check_one, &cf);
        out->records += k;
        if (st == PCD_OK) st = pcd_reader_next(&r, &rec);
        if (st == PCD_END) {
            end = true;
            break;
        }
        if (st != PCD_OK) {
            const pcd_error *e = pcd_reader_error(&r);
            if (e && e->status != PCD_OK) {
                char msg[sizeof out->why - 32];
                pcd_error_format(e, msg, sizeof msg);
                snprintf(out->why, sizeof out->why, "%s", msg);
            } else {
                snprintf(out->why, sizeof out->why, "%s", pcd_status_name(st));
            }
            break;
        }
        out->records++;
        check_one(&cf, &rec);
    }
    if (cf.cctx) {
        if (end && cf.ops->finish) cf.ops->finish(cf.cctx, on_check, &cf);
        if (cf.ops->fini) cf.ops->fini(cf.cctx);
        pcd_alloc_free(al, cf.cctx, cf.ops->ctx_size ? cf.ops->ctx_size : 1);
    }
    pcd_reader_close(&r);
    out->accepted = end && cf.errors == 0;
    return st == PCD_E_NOMEM ? PCD_E_NOMEM : PCD_OK;
}

/* ---- totals: the profile the format imports -------------------------------------------------- */

typedef struct totals {
    pcd_fz_reading *out;
} totals;

static uint64_t sat_add(uint64_t a, uint64_t b) { return a + b < a ? UINT64_MAX : a + b; }

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a) return UINT64_MAX;
    return a * b;
}

static pcd_status t_begin(void *ud, pcd_profile *p)
{
    totals *t = ud;
    t->out->n_types = p->n_types;
    for (size_t i = 0; i < p->n_types; i++) {
        pcd_bytes b = pcd_profile_text(p, p->types[i].name);
        size_t k = b.len < sizeof t->out->type_name[i] - 1 ? b.len : sizeof t->out->type_name[i] - 1;
        t->out->type_name_cut[i] = k < b.len;
        memcpy(t->out->type_name[i], b.ptr, k);
        t->out->type_name[i][k] = 0;
        for (size_t c = 0; c < k; c++) /* a NUL in a name (bytes, any content) as '?' */
            if (!t->out->type_name[i][c]) t->out->type_name[i][c] = '?';
    }
    return PCD_OK;
}

static pcd_status t_sample(void *ud, pcd_profile *p, const pcd_sample *s)
{
    totals *t = ud;
    uint64_t count = s->count ? s->count : 1;
    t->out->samples = sat_add(t->out->samples, count);
    for (size_t i = 0; i < p->n_types && i < PCD_MAX_SAMPLE_TYPES; i++)
        t->out->total[i] = sat_add(t->out->total[i], sat_mul(s->values[i], count));
    return PCD_OK;
}

static void quiet_report(void *ud, bool is_error, const pcd_error *e) { (void)ud, (void)is_error, (void)e; }
static void quiet_note(void *ud, const char *text) { (void)ud, (void)text; }

static pcd_status import(const pcd_format *f, const uint8_t *data, size_t n, pcd_alloc *al, pcd_fz_reading *out)
{
    const pcd_ext *ext = pcd_ext_find(f->name);
    if (!ext || !ext->model) return PCD_OK;
    pcd_reader r;
    pcd_reader_opts o = { al, NULL, 0, false, false };
    pcd_status st = pcd_reader_open_buffer(&r, f, data, n, &o);
    if (st != PCD_OK) return st;
    pcd_job j;
    memset(&j, 0, sizeof j);
    j.f = f;
    j.r = &r;
    j.input_name = "input";
    j.al = al;
    j.report = quiet_report;
    j.note = quiet_note;
    totals t = { out };
    pcd_consumer c;
    memset(&c, 0, sizeof c);
    c.ud = &t;
    c.begin = t_begin;
    c.sample = t_sample;
    pcd_profile p;
    pcd_profile_init(&p, al, &c);
    p.input_name = j.input_name;
    p.format = f->name;
    p.version = f->version;
    p.has = ext->model->has;
    st = pcd_model_import(&j, ext->model, &p);
    if (st == PCD_OK) st = pcd_profile_end(&p);
    out->has_totals = st == PCD_OK && !j.damaged;
    pcd_profile_free(&p);
    pcd_reader_close(&r);
    return st == PCD_E_NOMEM ? PCD_E_NOMEM : PCD_OK;
}

pcd_status pcd_fz_read(const pcd_format *f, const uint8_t *data, size_t n, pcd_alloc *al, pcd_fz_reading *out)
{
    memset(out, 0, sizeof *out);
    uint8_t *plain = NULL;
    size_t plain_n = 0;
    if (n >= 2 && data[0] == 0x1f && data[1] == 0x8b) {
        pcd_status st = gunzip(data, n, al, &plain, &plain_n, out->why, sizeof out->why);
        if (st == PCD_E_NOMEM) return st;
        if (st != PCD_OK) return PCD_OK; /* not accepted: out->why says why */
        data = plain;
        n = plain_n;
    }
    pcd_status st = PCD_OK;
    if (!f) {
        pcd_detect_why why;
        f = pcd_detect(pcd_formats, pcd_n_formats, data, n, true, &why);
        if (!f) snprintf(out->why, sizeof out->why, "%s", why.msg);
    }
    out->f = f;
    if (f) st = validate(f, data, n, al, out);
    if (st == PCD_OK && f && out->accepted) st = import(f, data, n, al, out);
    if (plain) pcd_alloc_sized_free(al, plain);
    return st;
}

int pcd_fz_total_index(const pcd_fz_reading *r, const char *name)
{
    if (strcmp(name, "@samples") == 0) return -1;
    for (size_t i = 0; i < r->n_types; i++)
        if (strcmp(r->type_name[i], name) == 0) return (int)i;
    return -2;
}
