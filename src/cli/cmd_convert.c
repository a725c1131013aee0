/* cli/cmd_convert.c: `profcodec convert`: a conversion job through the registry (pcd_convert). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/filters.h"
#include "cli/job.h"

/* ---- convert ---------------------------------------------------------------------- */

static void convert_help(FILE *out)
{
    fputs("usage: profcodec convert --to FORMAT FILE [-o OUT] [--all] [--heph-compat] [--metric M]\n"
          "                        [--compression zstd|gzip|none] [--version V] [--base OTHER [--force] [--raw]\n"
          "                        [--no-auto-trim]]\n"
          "                        [--granularity G] [--focus R] [--ignore R] [--hide R] [--show R]\n"
          "                        [--prune-from R] [--show-from R] [--tag K=V] [--thread T]\n"
          "                        [--from S] [--until S] [--trim-path P]\n\n"
          "Converts a profile or trace for other tools and viewers. OUT is written\n"
          "atomically (default: standard output). On damage the output still holds\n"
          "everything before it, closed properly; the error is reported and the exit\n"
          "status is 1 (--all skips damaged records instead); when nothing could be\n"
          "converted before the damage, no OUT file is written.\n"
          "--metric picks the sample type (as listed by 'profcodec info'); --dialect\n"
          "picks whose conventions an output follows (default, austin, austin2, cpython,\n"
          "heph; the input format's own tool by default). --version picks the version of\n"
          "the output's format (--to mojo: 3, the default, or 4).\n"
          "--base OTHER compares FILE with the profile OTHER (any format, html and\n"
          "collapsed): values per total (--raw: as they are); metrics of different kinds\n"
          "or units are refused unless --force. Files whose paths differ only by a\n"
          "directory prefix between the two (/corpus/x.py and x.py, two checkouts) meet:\n"
          "the prefix pair that makes the most functions meet is taken off (said on\n"
          "stderr); --no-auto-trim keeps the paths as they are.\n\n", out);
    cli_filter_help(out);
    fputs("\noutputs (--to):\n", out);
    /* each output once, its text wrapped under it (one line each per input format made this
     * 44 lines of the same few texts); then the matrix says which inputs give which */
    const char *outs[32], *helps[32];
    size_t n_outs = 0;
    for (size_t i = 0; pcd_exts[i]; i++) {
        const char *h, *to;
        for (size_t k = 0; (to = pcd_convert_target(pcd_exts[i], k, &h)); k++) {
            size_t m = 0;
            while (m < n_outs && strcmp(outs[m], to) != 0) m++;
            if (m == n_outs && n_outs < 32) {
                outs[n_outs] = to;
                helps[n_outs++] = h;
            }
        }
    }
    for (size_t m = 0; m < n_outs; m++) {
        fprintf(out, "  %-12s", outs[m]);
        int col = 14;
        for (const char *w = helps[m]; *w;) {
            size_t n = strcspn(w, " ");
            if (col > 14 && col + 1 + (int)n > 79) {
                fputs("\n              ", out);
                col = 14;
            }
            fprintf(out, "%s%.*s", col > 14 ? " " : "", (int)n, w);
            col += (col > 14 ? 1 : 0) + (int)n;
            w += n;
            while (*w == ' ') w++;
        }
        fputs("\n", out);
    }
    fputs("\ninputs (rows) and the outputs they give:\n         ", out);
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
    const char *version = NULL;
    bool compat = false, all = false, force = false, raw = false, no_auto_trim = false;
    static const struct option lo[] = {
        { "to", required_argument, 0, OPT_TO }, { "format", required_argument, 0, OPT_FORMAT },
        { "dialect", required_argument, 0, OPT_DIALECT },
        { "output", required_argument, 0, 'o' }, { "heph-compat", no_argument, 0, OPT_COMPAT },
        { "compat", no_argument, 0, OPT_COMPAT }, { "all", no_argument, 0, OPT_ALL },
        { "metric", required_argument, 0, OPT_METRIC }, { "compression", required_argument, 0, OPT_COMPRESSION },
        { "base", required_argument, 0, OPT_BASE }, { "force", no_argument, 0, OPT_FORCE },
        { "raw", no_argument, 0, OPT_RAW }, { "no-auto-trim", no_argument, 0, OPT_NO_AUTO_TRIM }, { "version", required_argument, 0, OPT_VERSION },
        CLI_FILTER_LONG_OPTIONS,
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    pcd_filter_opts fo;
    memset(&fo, 0, sizeof fo);
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
        else if (o == OPT_NO_AUTO_TRIM) no_auto_trim = true;
        else if (o == OPT_VERSION) version = optarg;
        else if (o == 'h') { convert_help(stdout); return 0; }
        else {
            int k = cli_filter_option(&fo, "convert", o, optarg);
            if (k < 0) return EXIT_USAGE;
            if (k == 0) { convert_help(stderr); return EXIT_USAGE; }
        }
    }
    if (to && argc - optind > 1) {
        fprintf(stderr, "profcodec convert: %d inputs: convert reads one; profcodec merge FILE... --to %s -o OUT "
                "merges several into one profile\n", argc - optind, to);
        return EXIT_USAGE;
    }
    if (!to || optind != argc - 1) {
        if (!to && optind <= argc - 1) fprintf(stderr, "profcodec convert: --to FORMAT is needed (what to convert to)\n\n");
        convert_help(stderr);
        return EXIT_USAGE;
    }
    if (cli_filter_check(&fo, "convert")) return EXIT_USAGE;
    c->text_ok = true; /* collapsed, Austin and speedscope text are inputs too */
    if ((force || raw || no_auto_trim) && !base) {
        fprintf(stderr, "profcodec convert: --force, --raw and --no-auto-trim go with --base OTHER\n");
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
        const pcd_ext *bext = bsrc.text ? NULL : pcd_ext_find(bsrc.f->name);
        if (bsrc.text ? !pcd_text_can_convert(bsrc.text, to) : !bext || !pcd_can_convert(bext, to)) {
            fprintf(stderr, "%s: a %s file cannot be converted to '%s', so it cannot be the base of one\n", base,
                    bsrc.text ? bsrc.text->name : bsrc.f->name, to);
            cli_close(&bsrc);
            return EXIT_USAGE;
        }
    }
    rc = cli_open(c, &src, path, false);
    if (rc) {
        cli_close(&src);
        cli_close(&bsrc);
        return rc;
    }
    const pcd_ext *ext = src.text ? NULL : pcd_ext_find(src.f->name);
    if (src.text && !pcd_text_can_convert(src.text, to)) {
        fprintf(stderr, "%s: a %s file cannot be converted to '%s'\n", path, src.text->name, to);
        cli_close(&src);
        cli_close(&bsrc);
        return EXIT_USAGE;
    }
    if (!src.text && (!ext || !pcd_can_convert(ext, to))) {
        fprintf(stderr, "%s: a %s file cannot be converted to '%s'", path, src.f->name, to);
        const char *h, *t;
        for (size_t k = 0; ext && (t = pcd_convert_target(ext, k, &h)); k++)
            fprintf(stderr, "%s %s", k ? "" : " (it can be converted to:", t);
        fprintf(stderr, "%s\n", ext && pcd_convert_target(ext, 0, &(const char *){ NULL }) ? ")" : "");
        cli_close(&src);
        cli_close(&bsrc);
        return EXIT_USAGE;
    }
    if (cli_not_for_terminal("convert", to, compression, outname)) {
        cli_close(&src);
        cli_close(&bsrc);
        return EXIT_USAGE;
    }
    outbuf ob;
    bool dir = (pcd_output_wants(to) & PCD_WANTS_PARTS) != 0;
    rc = dir ? outbuf_open_dir(c, &ob, outname) : outbuf_open(c, &ob, out_to_stdout_ok(outname) ? "-" : outname);
    if (rc) {
        cli_close(&src);
        cli_close(&bsrc);
        return rc;
    }
    pcd_status st;
    {
        pcd_job j, bj;
        cli_job_init(&j, src.f, src.f ? &src.r : NULL, path, &c->al, stderr);
        cli_job_tool(&j, c);
        cli_job_text(&j, &src);
        j.all = all;
        j.metric = metric;
        j.dialect = dialect;
        j.compat = compat;
        j.compression = compression;
        j.version = version;
        j.progress = cli_progress;
        j.progress_ud = c;
        j.force = force;
        j.raw = raw;
        j.no_auto_trim = no_auto_trim;
        j.filters = &fo;
        if (dir) {
            j.open_part = outbuf_part;
            j.part_ud = &ob;
        }
        if (base) {
            cli_job_init_base(&j, &bj, bsrc.f, bsrc.f ? &bsrc.r : NULL, base);
            cli_job_text(&bj, &bsrc);
        }
        st = pcd_convert(&j, to, dir ? NULL : &ob.sink);
        cli_progress_done(c);
        rc = cli_job_exit(&j, st, stderr);
        cli_text_stream_note(&src, path);
    }
    cli_progress_done(c);
    if (rc == EXIT_USAGE) {
        outbuf_abort(&ob);
    } else if (st == PCD_E_EMPTY) {
        /* nothing to show (the message said what is missing): no file, nothing on stdout */
        outbuf_abort(&ob);
        if (outname && strcmp(outname, "-") != 0) fprintf(stderr, "%s: %s not written\n", path, outname);
    } else if (rc != 0 && outbuf_tell(&ob) == 0 && outname && strcmp(outname, "-") != 0) {
        /* damage before anything could be converted: no empty (and, for JSON, invalid) file */
        outbuf_abort(&ob);
        fprintf(stderr, "%s: nothing to convert before the damage; %s not written\n", path, outname);
    } else if (outbuf_commit(&ob)) {
        rc = EXIT_USAGE;
    }
    cli_close(&src);
    cli_close(&bsrc);
    return rc;
}
