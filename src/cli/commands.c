/* commands.c: the profcodec commands. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli/job.h"
#include "common/hmap.h"
#include "cli/jsonl_read.h"

/* Common option handling: returns the index of the first operand, or -1 on error / help. */
enum { OPT_FORMAT = 1000, OPT_JSON, OPT_ALL, OPT_TO, OPT_COMPAT, OPT_METRIC, OPT_ENDIAN, OPT_MAXMEM, OPT_STRICT,
       OPT_FROM, OPT_COMPRESSION, OPT_PARTIAL, OPT_DIALECT, OPT_BASE, OPT_FORCE, OPT_RAW };

static int out_to_stdout_ok(const char *name) { return !name || strcmp(name, "-") == 0; }

/* ---- output sinks ------------------------------------------------------------- */

typedef struct outbuf {
    pcd_output out;
    pcd_sink sink;
    pcd_ctx x;
    uint8_t *buf;
} outbuf;

static int outbuf_open(outbuf *o, const char *name)
{
    memset(o, 0, sizeof *o);
    if (pcd_output_open(&o->out, name) != 0) {
        fprintf(stderr, "%s: cannot create: %s\n", name, strerror(errno));
        return EXIT_USAGE;
    }
    o->buf = malloc((size_t)1 << 20);
    if (!o->buf) {
        pcd_output_abort(&o->out);
        fprintf(stderr, "profcodec: out of memory\n");
        return EXIT_USAGE;
    }
    pcd_ctx_init(&o->x, NULL);
    pcd_sink_init(&o->sink, o->buf, (size_t)1 << 20, pcd_output_write, pcd_output_patch, &o->out, &o->x);
    return 0;
}

/* Flushes and commits (rename into place); returns 0 or EXIT_USAGE. */
static int outbuf_commit(outbuf *o)
{
    int rc = 0;
    if (pcd_sink_flush(&o->sink) != PCD_OK || pcd_output_commit(&o->out) != 0) {
        fprintf(stderr, "%s: cannot write: %s\n", o->out.to_stdout ? "(stdout)" : o->out.name, strerror(errno));
        pcd_output_abort(&o->out);
        rc = EXIT_USAGE;
    }
    free(o->buf);
    o->buf = NULL;
    return rc;
}

static void outbuf_abort(outbuf *o)
{
    pcd_output_abort(&o->out);
    free(o->buf);
    o->buf = NULL;
}

/* ---- formats ------------------------------------------------------------------- */

int cmd_formats(cli *c, int argc, char **argv)
{
    (void)c;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = true;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: profcodec formats [--json]\n\nLists every format and version this build reads and writes,\n"
                   "with what it can be converted to.\n");
            return 0;
        } else {
            fprintf(stderr, "profcodec formats: unexpected '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (json) printf("[");
    for (size_t i = 0; i < pcd_n_formats; i++) {
        const pcd_format *f = pcd_formats[i];
        const pcd_ext *e = pcd_ext_find(f->name);
        if (json) {
            printf("%s{\"name\":\"%s\",\"version\":\"%s\",\"title\":\"%s\",\"schema\":\"%s\",\"streamable\":%s,\"convert_to\":[",
                   i ? "," : "", f->name, f->version, f->title, f->schema,
                   (f->flags & PCD_FMT_STREAMABLE) ? "true" : "false");
            const char *h, *to;
            for (size_t k = 0; e && (to = pcd_convert_target(e, k, &h)); k++) printf("%s\"%s\"", k ? "," : "", to);
            printf("]}");
        } else {
            printf("%-8s %-6s %-28s %-10s", f->name, f->version, f->title,
                   (f->flags & PCD_FMT_STREAMABLE) ? "streaming" : "whole-file");
            const char *h, *to;
            for (size_t k = 0; e && (to = pcd_convert_target(e, k, &h)); k++) printf("%s %s", k ? "" : " convert to:", to);
            printf("\n");
        }
    }
    if (json) printf("]\n");
    return 0;
}

/* ---- info ----------------------------------------------------------------------- */

static const char info_help[] =
    "usage: profcodec info FILE [--json] [--all] [--format NAME[:VERSION]]\n\n"
    "Detects the format by its magic (or takes --format) and prints the format,\n"
    "version, record counts by kind, and what the format's records say: time\n"
    "span, streams, metadata. Damage stops the count and is reported (exit 1);\n"
    "--all skips damaged records as validate --all does and counts the rest.\n";

/* The name a record is counted under: its union case or type. */
static const char *record_kind(const pcd_record *rec)
{
    const pcd_type *t = rec->type;
    if (t->is_union && rec->data) {
        uint32_t w = *(const uint32_t *)rec->data;
        if (w < t->n_fields) return t->fields[w].name;
    }
    return t->name;
}

/* What info keeps while counting: records by kind (in order of first appearance), the
 * end of the last record, and the format's own summary. */
typedef struct info_count {
    cli *c;
    const pcd_ext *ext;
    void *ictx;
    const char *kinds[64];
    uint64_t counts[64];
    size_t nk;
    uint64_t records, last_end;
    /* the count index of each case of the last union type seen (0: not yet known) */
    const pcd_type *case_type;
    uint8_t case_slot[64];
} info_count;

static pcd_status info_one(void *ud, const pcd_record *rec)
{
    info_count *ic = ud;
    if (ic->c->tty && !ic->c->quiet) cli_progress(ic->c, rec->offset); /* (a call per record otherwise) */
    if (rec->offset + rec->size > ic->last_end) ic->last_end = rec->offset + rec->size;
    if (rec->depth == 0) {
        if (ic->ictx) ic->ext->info->record(ic->ictx, rec); /* the root: header fields */
        return PCD_OK;
    }
    ic->records++;
    const pcd_type *t = rec->type;
    uint32_t w = t->is_union && rec->data ? *(const uint32_t *)rec->data : UINT32_MAX;
    if (w < 64 && t == ic->case_type && ic->case_slot[w]) {
        ic->counts[ic->case_slot[w] - 1]++; /* a case counted before: its slot is known */
        if (ic->ictx) ic->ext->info->record(ic->ictx, rec);
        return PCD_OK;
    }
    const char *k = record_kind(rec);
    size_t j = 0, nk = ic->nk;
    /* names come from the descriptor tables: the same pointer, mostly */
    while (j < nk && ic->kinds[j] != k) j++;
    if (j == nk)
        for (j = 0; j < nk && strcmp(ic->kinds[j], k) != 0; j++) {}
    if (j == nk && nk < 64) {
        ic->kinds[nk] = k;
        ic->counts[nk] = 0;
        ic->nk = ++nk;
    }
    if (j < nk) {
        ic->counts[j]++;
        if (w < 64 && w < t->n_fields) {
            if (t != ic->case_type) {
                ic->case_type = t;
                memset(ic->case_slot, 0, sizeof ic->case_slot);
            }
            ic->case_slot[w] = (uint8_t)(j + 1);
        }
    }
    if (ic->ictx) ic->ext->info->record(ic->ictx, rec);
    return PCD_OK;
}

int cmd_info(cli *c, int argc, char **argv)
{
    bool json = false;
    static const struct option lo[] = {
        { "json", no_argument, 0, OPT_JSON }, { "format", required_argument, 0, OPT_FORMAT },
        { "all", no_argument, 0, OPT_ALL }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    bool all = false;
    uint64_t damaged_places = 0;
    while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (o == OPT_ALL) all = true;
        else if (o == OPT_JSON) json = true;
        else if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'h') { fputs(info_help, stdout); return 0; }
        else { fputs(info_help, stderr); return EXIT_USAGE; }
    }
    if (optind != argc - 1) {
        fputs(info_help, stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    cli_src src;
    int rc = cli_open(c, &src, path, false);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    const pcd_ext *ext = pcd_ext_find(src.f->name);
    void *ictx = NULL;
    if (ext && ext->info) {
        ictx = calloc(1, ext->info->ctx_size);
        if (ictx) ext->info->init(ictx, &c->al);
    }
    info_count *ic = calloc(1, sizeof *ic);
    if (!ic) {
        free(ictx);
        cli_close(&src);
        fprintf(stderr, "profcodec: out of memory\n");
        return EXIT_USAGE;
    }
    ic->c = c;
    ic->ext = ext;
    ic->ictx = ictx;
    pcd_error damage;
    bool damaged = false;
    pcd_record rec;
    for (;;) {
        /* the fast path takes runs of plain records; next() does the rest */
        uint64_t k = 0;
        pcd_status st = pcd_reader_decode_run(&src.r, 1u << 16, &k, info_one, ic);
        if (st == PCD_OK) st = pcd_reader_next(&src.r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            if (!damaged) damage = *pcd_reader_error(&src.r);
            damaged = true;
            damaged_places++;
            if (all) {
                cli_report(path, pcd_reader_error(&src.r));
                if (pcd_reader_recover(&src.r, NULL) == PCD_OK) continue;
            }
            break;
        }
        info_one(ic, &rec);
    }
    const char *const *kinds = ic->kinds;
    const uint64_t *counts = ic->counts;
    size_t nk = ic->nk;
    uint64_t records = ic->records;
    cli_progress_done(c);
    /* damage only what sits above the bytes sees (a unit of records cut short) */
    if (!damaged && ictx && ext->info->damaged && ext->info->damaged(ictx, &damage)) damaged = true;
    uint64_t size = src.in.is_regular ? src.in.size : src.in.bytes_read;
    if (json) {
        outbuf ob;
        if (outbuf_open(&ob, "-") == 0) {
            pcd_sink *s = &ob.sink;
            char buf[256];
            pcd_json_raw(s, "{\"file\":");
            pcd_json_text(s, (const uint8_t *)path, strlen(path));
            int n = snprintf(buf, sizeof buf, ",\"size\":%" PRIu64 ",\"format\":\"%s\",\"version\":\"%s\",\"title\":",
                             size, src.f->name, src.f->version);
            pcd_sink_put(s, buf, (size_t)n);
            pcd_json_text(s, (const uint8_t *)src.f->title, strlen(src.f->title));
            n = snprintf(buf, sizeof buf, ",\"valid\":%s,\"records\":{\"total\":%" PRIu64 ",\"by_kind\":{",
                         damaged ? "false" : "true", records);
            pcd_sink_put(s, buf, (size_t)n);
            for (size_t j = 0; j < nk; j++) {
                n = snprintf(buf, sizeof buf, "%s\"%s\":%" PRIu64, j ? "," : "", kinds[j], counts[j]);
                pcd_sink_put(s, buf, (size_t)n);
            }
            pcd_json_raw(s, "}}");
            if (damaged) {
                char msg[1024];
                pcd_error_format(&damage, msg, sizeof msg);
                n = snprintf(buf, sizeof buf, ",\"damaged_places\":%" PRIu64 ",\"damage\":{\"offset\":%" PRIu64 ",\"message\":",
                             damaged_places, damage.offset);
                pcd_sink_put(s, buf, (size_t)n);
                pcd_json_text(s, (const uint8_t *)msg, strlen(msg));
                pcd_json_raw(s, "}");
            }
            if (ictx && ext->info->json) {
                pcd_json_raw(s, ",\"summary\":{");
                ext->info->json(ictx, s);
                pcd_json_raw(s, "}");
            }
            pcd_json_raw(s, "}\n");
            if (outbuf_commit(&ob)) rc = EXIT_USAGE;
        }
    } else {
        printf("file:        %s (%" PRIu64 " bytes)\n", path, size);
        printf("format:      %s %s (%s)\n", src.f->name, src.f->version, src.f->title);
        printf("records:     %" PRIu64, records);
        for (size_t j = 0; j < nk; j++) printf("%s%s %" PRIu64, j ? ", " : " (", kinds[j], counts[j]);
        printf("%s\n", nk ? ")" : "");
        if (ictx) ext->info->text(ictx, stdout);
        if (damaged) {
            char msg[1024];
            pcd_error_format(&damage, msg, sizeof msg);
            printf("damage:      %s", msg);
            if (damaged_places > 1) printf(" (and %" PRIu64 " more damaged places)", damaged_places - 1);
            printf("\n");
        }
    }
    if (damaged) {
        if (!all) cli_report(path, &damage);
        rc = EXIT_INVALID;
    }
    if (ictx) {
        if (ext->info->fini) ext->info->fini(ictx);
        free(ictx);
    }
    free(ic);
    cli_close(&src);
    return rc;
}

/* ---- validate --------------------------------------------------------------------- */

static const char validate_help[] =
    "usage: profcodec validate FILE... [--all] [--strict] [--format NAME[:VERSION]]\n\n"
    "Exits 0 if every file is valid. Otherwise prints, for the first error of\n"
    "each file, FILE: offset N: field.path: what was expected, what was found,\n"
    "and exits 1. --all keeps going past damaged records it can skip (by their\n"
    "size field, by resynchronising on a magic, or by dropping the rest of a\n"
    "buffer) and reports each one. '-' reads standard input.\n"
    "Formats with checks above the bytes (references, counts, invariants) report\n"
    "what breaks them as errors, or as warnings that do not fail validation unless\n"
    "--strict is given.\n";

/* Problems found by a format's checks above the bytes. */
typedef struct check_report {
    const char *path;
    uint64_t errors, warnings;
    bool strict;
} check_report;

/* What sees each decoded record: the schema's warnings (warn = ...), then the format's
 * checks above the bytes (either may be absent). */
typedef struct check_feed {
    const pcd_check_ops *ops;
    void *cctx;
    pcd_report_fn report;
    void *ud;
    pcd_warn_fn warn;
} check_feed;

static pcd_status check_one(void *ud, const pcd_record *rec)
{
    check_feed *cf = ud;
    if (cf->warn) pcd_record_warnings(rec, cf->warn, cf->ud);
    if (cf->cctx) cf->ops->record(cf->cctx, rec, cf->report, cf->ud);
    return PCD_OK;
}

static void on_report(void *ud, bool is_error, const pcd_error *e)
{
    check_report *cr = ud;
    char msg[1024];
    pcd_error_format(e, msg, sizeof msg);
    if (is_error || cr->strict) {
        fprintf(stderr, "%s: %s\n", cr->path, msg);
        cr->errors++;
    } else {
        fprintf(stderr, "%s: warning: %s\n", cr->path, msg);
        cr->warnings++;
    }
}

static void on_warn(void *ud, const pcd_error *e) { on_report(ud, false, e); }

int cmd_validate(cli *c, int argc, char **argv)
{
    bool all = false, strict = false;
    static const struct option lo[] = {
        { "all", no_argument, 0, OPT_ALL }, { "format", required_argument, 0, OPT_FORMAT },
        { "strict", no_argument, 0, OPT_STRICT }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (o == OPT_ALL) all = true;
        else if (o == OPT_FORMAT) c->format = optarg;
        else if (o == OPT_STRICT) strict = true;
        else if (o == 'h') { fputs(validate_help, stdout); return 0; }
        else { fputs(validate_help, stderr); return EXIT_USAGE; }
    }
    if (optind >= argc) {
        fputs(validate_help, stderr);
        return EXIT_USAGE;
    }
    int worst = 0;
    for (int i = optind; i < argc; i++) {
        const char *path = argv[i];
        cli_src src;
        /* checks above the bytes need decoded records; otherwise validation is faster */
        const pcd_ext *ext;
        int rc = cli_open(c, &src, path, true);
        if (rc) {
            if (rc > worst) worst = rc;
            cli_close(&src);
            continue;
        }
        ext = pcd_ext_find(src.f->name);
        void *cctx = NULL;
        check_report cr = { path, 0, 0, strict };
        bool warns = (src.f->flags & PCD_FMT_WARNS) != 0;
        if (warns || (ext && ext->check)) {
            /* decode instead (the schema's warnings and the checks read the records' values);
             * nothing was read yet, so the reader just changes mode (reopening would lose
             * standard input) */
            src.r.validate_only = false;
        }
        if (ext && ext->check) {
            cctx = calloc(1, ext->check->ctx_size ? ext->check->ctx_size : 1);
            if (cctx) ext->check->init(cctx, &c->al);
        }
        uint64_t records = 0, errors = 0;
        bool reached_end = false;
        pcd_record rec;
        check_feed cf = { ext ? ext->check : NULL, cctx, on_report, &cr, warns ? on_warn : NULL };
        for (;;) {
            /* the fast paths take runs of plain records; next() does the rest */
            uint64_t k = 0;
            pcd_status st = !src.r.validate_only ? pcd_reader_decode_run(&src.r, 1u << 16, &k, check_one, &cf)
                                                 : pcd_reader_validate_run(&src.r, 1u << 16, &k);
            records += k;
            if (k) {
                c->progress_tick = 1023;
                cli_progress(c, src.in.bytes_read);
            }
            if (st == PCD_OK) st = pcd_reader_next(&src.r, &rec);
            if (st == PCD_END) {
                reached_end = true;
                break;
            }
            if (st != PCD_OK) {
                cli_progress_done(c);
                cli_report(path, pcd_reader_error(&src.r));
                errors++;
                uint64_t resume;
                if (all && pcd_reader_recover(&src.r, &resume) == PCD_OK) {
                    if (!c->quiet) fprintf(stderr, "%s: resuming at offset %" PRIu64 "\n", path, resume);
                    continue;
                }
                break;
            }
            if (rec.depth > 0) records++;
            check_one(&cf, &rec);
            cli_progress(c, rec.offset);
        }
        cli_progress_done(c);
        if (cctx) {
            if (reached_end && ext->check->finish) ext->check->finish(cctx, on_report, &cr);
            if (ext->check->fini) ext->check->fini(cctx);
            free(cctx);
        }
        errors += cr.errors;
        if (errors) {
            if (worst < EXIT_INVALID) worst = EXIT_INVALID;
            if (all && !c->quiet)
                fprintf(stderr, "%s: %" PRIu64 " damaged place%s, %" PRIu64 " records read\n", path, errors,
                        errors == 1 ? "" : "s", records);
        } else if (!c->quiet) {
            printf("%s: valid %s %s, %" PRIu64 " records", path, src.f->name, src.f->version, records);
            if (cr.warnings) printf(", %" PRIu64 " warning%s", cr.warnings, cr.warnings == 1 ? "" : "s");
            printf("\n");
        }
        cli_close(&src);
    }
    return worst;
}

/* ---- dump ------------------------------------------------------------------------- */

static const char dump_help[] =
    "usage: profcodec dump FILE [-o OUT] [--all] [--format NAME[:VERSION]]\n\n"
    "Writes one JSON object per record (JSON Lines), losslessly: the first line\n"
    "names the format and version (_format, _version), every other has \"_kind\" and\n"
    "\"_offset\" and the record's fields by name (keys starting with _ are never\n"
    "field names). 'profcodec encode' turns it back into identical bytes.\n"
    "On damage it writes every record before it, then a last line that says where and\n"
    "why it stopped ({\"_kind\":\"stopped\",\"_offset\":N,\"error\":...,\"bytes_not_read\":M}),\n"
    "reports the error and exits 1; 'encode' refuses such a dump unless given --partial.\n"
    "--all skips damaged records and writes {\"_kind\":\"damage\",...} lines for them.\n"
    "OUT is written atomically (default: standard output).\n";

/* The dump's last line when reading stopped at damage: where, why, how many records came
 * before it, and how many bytes of the input (from the damaged record, or the compressed
 * region it lies in, to the end) were not read; null when the input's size is not known
 * (a pipe, a gzip stream). `encode` refuses a dump that ends this way unless --partial. */
static pcd_status dump_stopped(pcd_sink *s, cli_src *src, const pcd_error *e, uint64_t records)
{
    char msg[1024], buf[160];
    pcd_error_format(e, msg, sizeof msg);
    int n = snprintf(buf, sizeof buf, "{\"_kind\":\"stopped\",\"_offset\":%" PRIu64 ",\"error\":", e->offset);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    PCD_TRY(pcd_json_text(s, (const uint8_t *)msg, strlen(msg)));
    uint64_t size = 0;
    bool known = false;
    const uint8_t *whole;
    size_t whole_size;
    if (pcd_reader_input(&src->r, &whole, &whole_size)) {
        known = true; /* read whole: the (decompressed) stream the offsets count in */
        size = whole_size;
    } else if (!src->gz && src->in.is_regular) {
        known = true;
        size = src->in.size;
    }
    uint64_t at = e->region ? e->region_offset : e->offset;
    if (known && at <= size)
        n = snprintf(buf, sizeof buf, ",\"records\":%" PRIu64 ",\"bytes_not_read\":%" PRIu64 "}\n", records, size - at);
    else
        n = snprintf(buf, sizeof buf, ",\"records\":%" PRIu64 ",\"bytes_not_read\":null}\n", records);
    return pcd_sink_put(s, buf, (size_t)n);
}

int cmd_dump(cli *c, int argc, char **argv)
{
    bool all = false;
    const char *outname = NULL;
    static const struct option lo[] = {
        { "all", no_argument, 0, OPT_ALL }, { "format", required_argument, 0, OPT_FORMAT },
        { "output", required_argument, 0, 'o' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        if (o == OPT_ALL) all = true;
        else if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == 'h') { fputs(dump_help, stdout); return 0; }
        else { fputs(dump_help, stderr); return EXIT_USAGE; }
    }
    if (optind != argc - 1) {
        fputs(dump_help, stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    cli_src src;
    int rc = cli_open(c, &src, path, false);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    outbuf ob;
    rc = outbuf_open(&ob, out_to_stdout_ok(outname) ? "-" : outname);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    pcd_record rec;
    uint64_t n_records = 0;
    bool damaged = false;
    bool live = !src.in.is_regular;
    pcd_status wst = PCD_OK;
    for (;;) {
        pcd_status st = pcd_reader_next(&src.r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            const pcd_error *e = pcd_reader_error(&src.r);
            cli_progress_done(c);
            cli_report(path, e);
            damaged = true;
            if (all) {
                char msg[1024], buf[96];
                pcd_error_format(e, msg, sizeof msg);
                int n = snprintf(buf, sizeof buf, "{\"_kind\":\"damage\",\"_offset\":%" PRIu64 ",\"message\":", e->offset);
                wst = pcd_sink_put(&ob.sink, buf, (size_t)n);
                if (wst == PCD_OK) wst = pcd_json_text(&ob.sink, (const uint8_t *)msg, strlen(msg));
                if (wst == PCD_OK) wst = pcd_json_raw(&ob.sink, "}\n");
                if (wst == PCD_OK && pcd_reader_recover(&src.r, NULL) == PCD_OK) continue;
                if (wst == PCD_OK) wst = dump_stopped(&ob.sink, &src, e, n_records);
            } else {
                wst = dump_stopped(&ob.sink, &src, e, n_records);
            }
            break;
        }
        cli_progress(c, rec.offset);
        wst = pcd_json_record(&ob.sink, src.f, &rec);
        if (wst != PCD_OK) break;
        n_records++;
        if (live) {
            /* reading a pipe: hand each record on as soon as it is complete */
            wst = pcd_sink_flush(&ob.sink);
            if (wst != PCD_OK || fflush(ob.out.fp) != 0) break;
        }
    }
    cli_progress_done(c);
    if (wst != PCD_OK) {
        fprintf(stderr, "%s: cannot write the dump: %s\n", outname ? outname : "(stdout)", pcd_status_name(wst));
        outbuf_abort(&ob);
        cli_close(&src);
        return EXIT_USAGE;
    }
    rc = outbuf_commit(&ob);
    cli_close(&src);
    if (rc) return rc;
    return damaged ? EXIT_INVALID : 0;
}

/* ---- encode ----------------------------------------------------------------------- */

static void encode_usage(FILE *out)
{
    fputs("usage: profcodec encode [IN.jsonl|-] -o OUT [--format NAME[:VERSION]] [--endian big|little]\n"
          "                        [--partial]\n"
          "       profcodec encode --from FORM [IN|-] -o OUT\n\n"
          "Turns JSON Lines (as written by 'profcodec dump') back into the binary\n"
          "format named on its first line (or by --format). Sizes, counts and offsets\n"
          "are computed, not read. OUT is written atomically: on any error nothing is\n"
          "left behind. Errors name the input line. --endian picks the byte order of\n"
          "formats written in the writer's own order.\n"
          "A dump that stopped at damage (a \"stopped\" line) or skipped damage (\"damage\"\n"
          "lines, from dump --all) lacks part of its file, and a dump that ends before the\n"
          "records its format closes with was cut short: encode refuses them, naming the\n"
          "line. --partial writes the records that are there anyway (a shorter file).\n", out);
    bool any = false;
    for (size_t i = 0; pcd_exts[i]; i++)
        for (size_t k = 0; k < pcd_exts[i]->n_import; k++) {
            if (!any) fputs("\n--from:\n", out);
            any = true;
            fprintf(out, "  %-10s %s\n", pcd_exts[i]->import[k].from, pcd_exts[i]->import[k].help);
        }
}

static int run_importer(cli *c, const char *from, const char *inname, const char *outname, const char *endian)
{
    const pcd_importer *im = NULL;
    for (size_t i = 0; pcd_exts[i] && !im; i++)
        for (size_t k = 0; k < pcd_exts[i]->n_import; k++)
            if (strcmp(pcd_exts[i]->import[k].from, from) == 0) im = &pcd_exts[i]->import[k];
    if (!im) {
        fprintf(stderr, "profcodec encode: no importer for '%s' (see profcodec encode --help)\n", from);
        return EXIT_USAGE;
    }
    FILE *in = strcmp(inname, "-") == 0 ? stdin : fopen(inname, "rb");
    if (!in) {
        fprintf(stderr, "%s: cannot open: %s\n", inname, strerror(errno));
        return EXIT_USAGE;
    }
    outbuf ob;
    int rc = outbuf_open(&ob, outname);
    if (rc == 0) {
        pcd_alloc_init(&c->al, pcd_alloc_libc, NULL, c->max_memory);
        pcd_import_args a = { in, inname, &ob.sink, &c->al, stderr, endian };
        rc = im->run(&a);
        if (rc == 0) rc = outbuf_commit(&ob);
        else outbuf_abort(&ob);
    }
    if (in != stdin) fclose(in);
    return rc;
}

int cmd_encode(cli *c, int argc, char **argv)
{
    const char *outname = NULL, *endian = NULL, *from = NULL;
    bool partial = false;
    static const struct option lo[] = {
        { "format", required_argument, 0, OPT_FORMAT }, { "output", required_argument, 0, 'o' },
        { "endian", required_argument, 0, OPT_ENDIAN }, { "from", required_argument, 0, OPT_FROM },
        { "partial", no_argument, 0, OPT_PARTIAL }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == OPT_ENDIAN) endian = optarg;
        else if (o == OPT_FROM) from = optarg;
        else if (o == OPT_PARTIAL) partial = true;
        else if (o == 'h') { encode_usage(stdout); return 0; }
        else { encode_usage(stderr); return EXIT_USAGE; }
    }
    if (optind < argc - 1 || !outname) {
        encode_usage(stderr);
        return EXIT_USAGE;
    }
    if (endian && strcmp(endian, "big") != 0 && strcmp(endian, "little") != 0) {
        fprintf(stderr, "profcodec encode: --endian takes big or little\n");
        return EXIT_USAGE;
    }
    const char *inname = optind < argc ? argv[optind] : "-";
    if (from) return run_importer(c, from, inname, outname, endian);
    FILE *in = strcmp(inname, "-") == 0 ? stdin : fopen(inname, "rb");
    if (!in) {
        fprintf(stderr, "%s: cannot open: %s\n", inname, strerror(errno));
        return EXIT_USAGE;
    }
    const pcd_format *f = c->format ? cli_find_format(c->format) : NULL;
    if (c->format && !f) {
        fprintf(stderr, "profcodec encode: unknown format '%s'\n", c->format);
        if (in != stdin) fclose(in);
        return EXIT_USAGE;
    }
    outbuf ob;
    int rc = outbuf_open(&ob, outname);
    if (rc) {
        if (in != stdin) fclose(in);
        return rc;
    }
    pcd_alloc_init(&c->al, pcd_alloc_libc, NULL, c->max_memory);
    pcd_arena arena, root_arena; /* the root's strings live until its last fields are written */
    pcd_arena_init(&arena, NULL, 0, &c->al, 0);
    pcd_arena_init(&root_arena, NULL, 0, &c->al, 0);
    pcd_writer w;
    bool started = false;
    uint8_t *rec = NULL;
    size_t rec_cap = 0;
    char *line = NULL;
    size_t line_cap = 0;
    ssize_t len;
    uint64_t lineno = 0;
    char err[512];
    rc = 0;
    while ((len = getline(&line, &line_cap, in)) != -1) {
        lineno++;
        if (len == 0 || (len == 1 && line[0] == '\n')) continue;
        json_error_t je;
        size_t fixed_len;
        char *fixed = pcd_jsonr_negzero(line, (size_t)len, &fixed_len);
        json_t *obj = fixed ? json_loadb(fixed, fixed_len, JSON_ALLOW_NUL, &je)
                            : json_loadb(line, (size_t)len, JSON_ALLOW_NUL, &je);
        free(fixed);
        if (!obj || !json_is_object(obj)) {
            fprintf(stderr, "%s:%" PRIu64 ": not a JSON object: %s\n", inname, lineno, obj ? "" : je.text);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        json_t *kind = json_object_get(obj, "_kind");
        if (!kind || !json_is_string(kind)) {
            fprintf(stderr, "%s:%" PRIu64 ": missing \"_kind\"\n", inname, lineno);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        const char *k = json_string_value(kind);
        bool stopped = strcmp(k, "stopped") == 0;
        if (stopped || strcmp(k, "damage") == 0) {
            if (partial) {
                json_decref(obj);
                continue;
            }
            json_t *why = json_object_get(obj, stopped ? "error" : "message");
            json_t *lost = json_object_get(obj, "bytes_not_read");
            fprintf(stderr, "%s:%" PRIu64 ": %s (%s)", inname, lineno,
                    stopped ? "the dump stopped at damage: everything after it is missing"
                            : "the dump skipped damaged bytes here: they were not kept",
                    why && json_is_string(why) ? json_string_value(why) : "no reason given");
            if (lost && json_is_integer(lost))
                fprintf(stderr, "; %" JSON_INTEGER_FORMAT " bytes of the file were not read", json_integer_value(lost));
            fprintf(stderr, ".\n%s: encoding it would silently write a shorter file; give --partial to write the "
                            "records that are there anyway\n", inname);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        if (!started) {
            json_t *jf = json_object_get(obj, "_format"), *jv = json_object_get(obj, "_version");
            if (!f && jf && json_is_string(jf)) {
                f = pcd_format_find(json_string_value(jf), jv && json_is_string(jv) ? json_string_value(jv) : NULL);
                if (!f) {
                    fprintf(stderr, "%s:%" PRIu64 ": this build has no format %s %s\n", inname, lineno,
                            json_string_value(jf), jv && json_is_string(jv) ? json_string_value(jv) : "");
                    json_decref(obj);
                    rc = EXIT_INVALID;
                    break;
                }
            }
            if (!f) {
                fprintf(stderr, "%s:%" PRIu64 ": the first line does not name a format; use --format\n", inname, lineno);
                json_decref(obj);
                rc = EXIT_INVALID;
                break;
            }
            pcd_writer_open(&w, f, &ob.sink, &c->al);
            json_t *bo = json_object_get(obj, "_byte_order");
            if (endian) pcd_writer_set_big(&w, strcmp(endian, "big") == 0);
            else if (bo && json_is_string(bo)) pcd_writer_set_big(&w, strcmp(json_string_value(bo), "big") == 0);
            size_t need = f->root_size;
            for (uint32_t r = 0; r < f->n_regions; r++)
                if (f->regions[r]->record_size > need) need = f->regions[r]->record_size;
            rec = malloc(need + f->root_size);
            rec_cap = need;
            if (!rec) {
                fprintf(stderr, "profcodec: out of memory\n");
                json_decref(obj);
                rc = EXIT_USAGE;
                break;
            }
            started = true;
            uint8_t *root = rec + rec_cap;
            pcd_jkind rk = { NULL, f->root, -1 };
            bool is_root = strcmp(k, f->root->name) == 0;
            if (is_root) {
                if (!pcd_jsonr_record(&rk, obj, root, &root_arena, err, sizeof err)) {
                    fprintf(stderr, "%s:%" PRIu64 ": %s\n", inname, lineno, err);
                    json_decref(obj);
                    rc = EXIT_INVALID;
                    break;
                }
            } else {
                memset(root, 0, f->root_size);
            }
            pcd_status st = pcd_writer_root(&w, root);
            if (st != PCD_OK) {
                char msg[1024];
                pcd_error_format(pcd_writer_error(&w), msg, sizeof msg);
                fprintf(stderr, "%s:%" PRIu64 ": cannot encode: %s\n", inname, lineno, msg);
                json_decref(obj);
                rc = EXIT_INVALID;
                break;
            }
            if (is_root) {
                json_decref(obj);
                continue;
            }
        }
        pcd_jkind jk;
        if (!pcd_jsonr_kind(f, k, &jk) || !jk.rd) {
            fprintf(stderr, "%s:%" PRIu64 ": \"%s\" is not a record kind of %s %s\n", inname, lineno, k, f->name,
                    f->version);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        pcd_arena_reset(&arena);
        if (!pcd_jsonr_record(&jk, obj, rec, &arena, err, sizeof err)) {
            fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", inname, lineno, k, err);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        /* where the record stood in the dumped file: offsets that point at it move with it */
        json_t *jo = json_object_get(obj, "_offset");
        if (jo && json_is_integer(jo) && json_integer_value(jo) >= 0)
            pcd_writer_set_origin(&w, (uint64_t)json_integer_value(jo));
        pcd_status st = pcd_writer_record(&w, jk.rd, rec);
        if (st != PCD_OK) {
            char msg[1024];
            pcd_error_format(pcd_writer_error(&w), msg, sizeof msg);
            /* (k lives in obj) */
            fprintf(stderr, "%s:%" PRIu64 ": cannot encode this %s: %s\n", inname, lineno, k, msg);
            json_decref(obj);
            rc = PCD_IS_ERROR(st) && st != PCD_E_IO ? EXIT_INVALID : EXIT_USAGE;
            break;
        }
        json_decref(obj);
    }
    if (rc == 0 && !started) {
        fprintf(stderr, "%s: no records to encode\n", inname);
        rc = EXIT_INVALID;
    }
    if (rc == 0) {
        pcd_status st = pcd_writer_finish(&w);
        if (st != PCD_OK) {
            char msg[1024];
            pcd_error_format(pcd_writer_error(&w), msg, sizeof msg);
            fprintf(stderr, "%s:%" PRIu64 ": the dump ends at this line without the records that close a %s %s "
                            "file (was it cut short?): cannot finish the output: %s\n",
                    inname, lineno, f->name, f->version, msg);
            rc = EXIT_INVALID;
        }
    }
    if (started) pcd_writer_close(&w);
    if (rc == 0) rc = outbuf_commit(&ob);
    else outbuf_abort(&ob);
    pcd_arena_free(&arena);
    pcd_arena_free(&root_arena);
    free(rec);
    free(line);
    if (in != stdin) fclose(in);
    return rc;
}

/* ---- convert ---------------------------------------------------------------------- */

static void convert_help(FILE *out)
{
    fputs("usage: profcodec convert --to FORMAT FILE [-o OUT] [--all] [--heph-compat] [--metric M]\n"
          "                        [--compression zstd|gzip|none] [--base OTHER [--force] [--raw]]\n\n"
          "Converts a profile or trace for other tools and viewers. OUT is written\n"
          "atomically (default: standard output). On damage the output still holds\n"
          "everything before it, closed properly; the error is reported and the exit\n"
          "status is 1 (--all skips damaged records instead); when nothing could be\n"
          "converted before the damage, no OUT file is written.\n"
          "--metric picks the sample type (as listed by 'profcodec info'); --dialect\n"
          "picks whose conventions an output follows (default, austin, cpython, heph;\n"
          "the input format's own tool by default).\n"
          "--base OTHER compares FILE with the profile OTHER (any format, html and\n"
          "collapsed): values per total (--raw: as they are); metrics of different kinds\n"
          "or units are refused unless --force.\n\nconversions:\n", out);
    for (size_t i = 0; pcd_exts[i]; i++) {
        const char *h, *to;
        for (size_t k = 0; (to = pcd_convert_target(pcd_exts[i], k, &h)); k++)
            fprintf(out, "  %-7s --to %-10s %s\n", pcd_exts[i]->format, to, h);
    }
    /* the same as a matrix: every output, and which inputs give it */
    const char *outs[32];
    size_t n_outs = 0;
    for (size_t i = 0; pcd_exts[i]; i++) {
        const char *h, *to;
        for (size_t k = 0; (to = pcd_convert_target(pcd_exts[i], k, &h)); k++) {
            size_t m = 0;
            while (m < n_outs && strcmp(outs[m], to) != 0) m++;
            if (m == n_outs && n_outs < 32) outs[n_outs++] = to;
        }
    }
    fputs("\n         ", out);
    for (size_t m = 0; m < n_outs; m++) fprintf(out, " %s", outs[m]);
    fputs("\n", out);
    for (size_t i = 0; pcd_exts[i]; i++) {
        fprintf(out, "  %-7s", pcd_exts[i]->format);
        for (size_t m = 0; m < n_outs; m++)
            fprintf(out, " %*s", (int)strlen(outs[m]), pcd_can_convert(pcd_exts[i], outs[m]) ? "x" : ".");
        fputs("\n", out);
    }
}

int cmd_convert(cli *c, int argc, char **argv)
{
    const char *to = NULL, *outname = NULL, *metric = NULL, *compression = NULL, *dialect = NULL, *base = NULL;
    bool compat = false, all = false, force = false, raw = false;
    static const struct option lo[] = {
        { "to", required_argument, 0, OPT_TO }, { "format", required_argument, 0, OPT_FORMAT },
        { "dialect", required_argument, 0, OPT_DIALECT },
        { "output", required_argument, 0, 'o' }, { "heph-compat", no_argument, 0, OPT_COMPAT },
        { "compat", no_argument, 0, OPT_COMPAT }, { "all", no_argument, 0, OPT_ALL },
        { "metric", required_argument, 0, OPT_METRIC }, { "compression", required_argument, 0, OPT_COMPRESSION },
        { "base", required_argument, 0, OPT_BASE }, { "force", no_argument, 0, OPT_FORCE },
        { "raw", no_argument, 0, OPT_RAW }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        if (o == OPT_TO) to = optarg;
        else if (o == OPT_COMPRESSION) compression = optarg;
        else if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == OPT_COMPAT) compat = true;
        else if (o == OPT_ALL) all = true;
        else if (o == OPT_METRIC) metric = optarg;
        else if (o == OPT_DIALECT) dialect = optarg;
        else if (o == OPT_BASE) base = optarg;
        else if (o == OPT_FORCE) force = true;
        else if (o == OPT_RAW) raw = true;
        else if (o == 'h') { convert_help(stdout); return 0; }
        else { convert_help(stderr); return EXIT_USAGE; }
    }
    if (!to || optind != argc - 1) {
        convert_help(stderr);
        return EXIT_USAGE;
    }
    if ((force || raw) && !base) {
        fprintf(stderr, "profcodec convert: --force and --raw go with --base OTHER\n");
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    /* the base first (--base), so that progress and gzip notes are the main input's */
    cli_src bsrc, src;
    memset(&bsrc, 0, sizeof bsrc);
    int rc = 0;
    if (base) {
        if (c->format) {
            fprintf(stderr, "profcodec convert: --format and --base do not go together (each input's format is detected)\n");
            return EXIT_USAGE;
        }
        rc = cli_open(c, &bsrc, base, false);
        if (rc) {
            cli_close(&bsrc);
            return rc;
        }
        const pcd_ext *bext = pcd_ext_find(bsrc.f->name);
        if (!bext || !pcd_can_convert(bext, to)) {
            fprintf(stderr, "%s: a %s file cannot be converted to '%s', so it cannot be the base of one\n", base,
                    bsrc.f->name, to);
            cli_close(&bsrc);
            return EXIT_USAGE;
        }
        c->al_shared = true;
    }
    rc = cli_open(c, &src, path, false);
    if (rc) {
        cli_close(&src);
        cli_close(&bsrc);
        return rc;
    }
    const pcd_ext *ext = pcd_ext_find(src.f->name);
    if (!ext || !pcd_can_convert(ext, to)) {
        fprintf(stderr, "%s: a %s file cannot be converted to '%s'", path, src.f->name, to);
        const char *h, *t;
        for (size_t k = 0; ext && (t = pcd_convert_target(ext, k, &h)); k++)
            fprintf(stderr, "%s %s", k ? "" : " (it can be converted to:", t);
        fprintf(stderr, "%s\n", ext && pcd_convert_target(ext, 0, &(const char *){ NULL }) ? ")" : "");
        cli_close(&src);
        cli_close(&bsrc);
        return EXIT_USAGE;
    }
    outbuf ob;
    rc = outbuf_open(&ob, out_to_stdout_ok(outname) ? "-" : outname);
    if (rc) {
        cli_close(&src);
        cli_close(&bsrc);
        return rc;
    }
    {
        pcd_job j, bj;
        cli_job_init(&j, src.f, &src.r, path, &c->al, stderr);
        j.all = all;
        j.metric = metric;
        j.dialect = dialect;
        j.compat = compat;
        j.compression = compression;
        j.progress = cli_progress;
        j.progress_ud = c;
        j.force = force;
        j.raw = raw;
        if (base) cli_job_init_base(&j, &bj, bsrc.f, &bsrc.r, base);
        pcd_status st = pcd_convert(&j, to, &ob.sink);
        cli_progress_done(c);
        rc = cli_job_exit(&j, st, stderr);
    }
    cli_progress_done(c);
    if (rc == EXIT_USAGE) {
        outbuf_abort(&ob);
    } else if (rc != 0 && pcd_sink_tell(&ob.sink) == 0 && outname && strcmp(outname, "-") != 0) {
        /* damage before anything could be converted: no empty (and, for JSON, invalid) file */
        outbuf_abort(&ob);
        fprintf(stderr, "%s: nothing to convert before the damage; %s not written\n", path, outname);
    } else if (outbuf_commit(&ob)) {
        rc = EXIT_USAGE;
    }
    cli_close(&src);
    cli_close(&bsrc);
    c->al_shared = false;
    return rc;
}
