/* cli/cmd_validate.c: `profcodec validate`: the bytes and the checks above them, every file. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

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
    /* the call only for a record whose type declares warnings (a Tachyon sample's does not) */
    if (cf->warn && rec->type && rec->type->warn) pcd_record_warnings(rec, cf->warn, cf->ud);
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
            /* and the arrays the checks only count are not stored */
            if (ext && ext->check) pcd_reader_set_count_only(&src.r, ext->check->count_only);
        }
        if (ext && ext->check) {
            cctx = cli_zalloc(c, 1, ext->check->ctx_size ? ext->check->ctx_size : 1);
            if (!cctx) {
                fprintf(stderr, "%s: out of memory (raise --max-memory)\n", path);
                if (EXIT_USAGE > worst) worst = EXIT_USAGE;
                cli_close(&src);
                continue;
            }
            ext->check->init(cctx, &c->al);
        }
        uint64_t records = 0, errors = 0;
        bool reached_end = false;
        pcd_record rec;
        check_feed cf = { ext ? ext->check : NULL, cctx, on_report, &cr, warns ? on_warn : NULL };
        /* the records of the decoding runs straight to the format's checks when that is all
         * there is to do with them: no warnings declared by the format, or none by the run's
         * record type (Tachyon's declares them on its header only, not on the samples) */
        bool direct = cctx && ext->check->run;
        if (direct) ext->check->bind(cctx, on_report, &cr);
        for (;;) {
            /* the fast paths take runs of plain records; next() does the rest */
            uint64_t k = 0;
            pcd_status st;
            if (src.r.validate_only) {
                st = pcd_reader_validate_run(&src.r, 1u << 16, &k);
            } else {
                const pcd_type *rt = warns ? pcd_reader_run_type(&src.r) : NULL;
                if (direct && (!warns || (rt && !rt->warn)))
                    st = pcd_reader_decode_run(&src.r, 1u << 16, &k, ext->check->run, cctx);
                else
                    st = pcd_reader_decode_run(&src.r, 1u << 16, &k, check_one, &cf);
            }
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
                cli_report(c, path, pcd_reader_error(&src.r));
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
            cli_free(c, cctx);
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
