/* cli/cmd_top.c: `profcodec top FILE`: pprof's -top table (outputs/top.c), with the grouping and
 * filters of every output (cli/filters.h). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/filters.h"
#include "cli/job.h"
#include "outputs/top.h"

/* top's own option ids (beside commands.h's and filters.h's) */
enum { OPT_TOP_CUM = 1200, OPT_TOP_JSON };

static void top_help(FILE *out)
{
    fputs("usage: profcodec top FILE [-n N] [--cum] [--json] [--metric M] [-o OUT] [--all]\n"
          "                    [--granularity G] [--focus R] [--ignore R] [--hide R] [--show R]\n"
          "                    [--prune-from R] [--show-from R] [--tag K=V] [--thread T]\n"
          "                    [--from S] [--until S] [--trim-path P]\n\n"
          "Prints go tool pprof -top's table for a profile of any format (and the text inputs:\n"
          "collapsed stacks, Austin text, speedscope JSON): per function, flat (the\n"
          "samples it is the leaf of), flat %, sum % (the running sum of flat), cum (the samples\n"
          "whose stack holds it, once per stack however deep it recurses) and cum %, sorted by\n"
          "flat (--cum: by cum), the N first (-n; default all). Percentages are of the whole\n"
          "input's total before filters, as pprof's. Values print in pprof's units (ms, s, kB,\n"
          "MB...); --json gives exact integers (README: the schema). --metric picks the sample type.\n\n", out);
    cli_filter_help(out);
}

int cmd_top(cli *c, int argc, char **argv)
{
    const char *outname = NULL, *metric = NULL;
    bool all = false;
    pcd_top_opts to;
    memset(&to, 0, sizeof to);
    pcd_filter_opts fo;
    memset(&fo, 0, sizeof fo);
    static const struct option lo[] = {
        { "format", required_argument, 0, OPT_FORMAT }, { "output", required_argument, 0, 'o' },
        { "all", no_argument, 0, OPT_ALL }, { "metric", required_argument, 0, OPT_METRIC },
        { "cum", no_argument, 0, OPT_TOP_CUM }, { "json", no_argument, 0, OPT_TOP_JSON },
        { "nodecount", required_argument, 0, 'n' },
        CLI_FILTER_LONG_OPTIONS,
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:n:", lo, NULL)) != -1) {
        if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == OPT_ALL) all = true;
        else if (o == OPT_METRIC) metric = optarg;
        else if (o == OPT_TOP_CUM) to.cum = true;
        else if (o == OPT_TOP_JSON) to.json = true;
        else if (o == 'n') {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(optarg, &end, 10);
            if (end == optarg || *end || errno || optarg[0] == '-') {
                fprintf(stderr, "profcodec top: -n '%s': expected a count (0: all)\n", optarg);
                return EXIT_USAGE;
            }
            to.n = (size_t)n;
        } else if (o == 'h') {
            top_help(stdout);
            return 0;
        } else {
            int k = cli_filter_option(&fo, "top", o, optarg);
            if (k < 0) return EXIT_USAGE;
            if (k == 0) {
                top_help(stderr);
                return EXIT_USAGE;
            }
        }
    }
    if (optind != argc - 1) {
        if (optind < argc - 1) fprintf(stderr, "profcodec top: one input file (%d given)\n", argc - optind);
        else fprintf(stderr, "profcodec top: which file? (profcodec top FILE)\n");
        top_help(stderr);
        return EXIT_USAGE;
    }
    if (cli_filter_check(&fo, "top")) return EXIT_USAGE;
    const char *path = argv[optind];
    c->text_ok = true; /* collapsed, Austin and speedscope text are inputs too */
    cli_src src;
    int rc = cli_open(c, &src, path, false);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    outbuf ob;
    rc = outbuf_open(c, &ob, out_to_stdout_ok(outname) ? "-" : outname);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    pcd_status st;
    {
        pcd_job j;
        cli_job_init(&j, src.f, src.f ? &src.r : NULL, path, &c->al, stderr);
        cli_job_tool(&j, c);
        cli_job_text(&j, &src);
        j.all = all;
        j.metric = metric;
        j.progress = cli_progress;
        j.progress_ud = c;
        j.filters = &fo;
        j.output_opts = &to;
        const pcd_ext *ext = src.text ? NULL : pcd_ext_find(src.f->name);
        if (!src.text && (!ext || !ext->model))
            st = pcd_job_fail(&j, PCD_E_ARG, "a %s file holds no profile to make a table of", src.f->name);
        else st = pcd_convert_output(&j, &pcd_out_top, &ob.sink);
        cli_progress_done(c);
        rc = cli_job_exit(&j, st, stderr);
        cli_text_stream_note(&src, path);
    }
    if (rc == EXIT_USAGE || st == PCD_E_EMPTY) {
        outbuf_abort(&ob);
        if (st == PCD_E_EMPTY && outname && strcmp(outname, "-") != 0) fprintf(stderr, "%s: %s not written\n", path, outname);
    } else if (rc != 0 && pcd_sink_tell(&ob.sink) == 0 && outname && strcmp(outname, "-") != 0) {
        outbuf_abort(&ob);
        fprintf(stderr, "%s: nothing before the damage; %s not written\n", path, outname);
    } else if (outbuf_commit(&ob)) {
        rc = EXIT_USAGE;
    }
    cli_close(&src);
    return rc;
}
