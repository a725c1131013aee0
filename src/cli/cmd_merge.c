/* cli/cmd_merge.c: `profcodec merge`: several inputs of any formats into one profile and one
 * output (pcd_merge, pipeline/merge.c). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/filters.h"
#include "cli/job.h"

static void merge_help(FILE *out)
{
    fputs("usage: profcodec merge FILE... --to FORMAT [-o OUT] [--metric M] [--dialect D] [--force] [--all]\n"
          "                       [grouping and filters, as convert's]\n\n"
          "Merges any number of profiles, of any formats (the binary ones, gzip- or zstd-compressed, and\n"
          "collapsed stacks, Austin text, speedscope JSON), into one profile written as --to FORMAT\n"
          "(any output of convert: pprof, collapsed, html, speedscope, ...). The inputs are read one\n"
          "after the other, streaming where their formats stream; each sample gets the label\n"
          "source=FILE (pprof shows it: go tool pprof -tagfocus source=FILE); each input's threads\n"
          "stay its own. The sample types are the first input's: an input with other types (name\n"
          "or unit) is refused unless --force, which counts its types as the first input's of the\n"
          "same name, else at the same position, and leaves the others out. Damage in an input is\n"
          "reported and what came before it is kept; the merge goes on with the next input\n"
          "(exit status 1). OUT is written atomically (default: standard output). The grouping and\n"
          "filters apply to the merged profile (--tag source=FILE keeps one input's samples).\n\n", out);
    cli_filter_help(out);
}

int cmd_merge(cli *c, int argc, char **argv)
{
    const char *to = NULL, *outname = NULL, *metric = NULL, *dialect = NULL;
    bool force = false, all = false;
    static const struct option lo[] = {
        { "to", required_argument, 0, OPT_TO }, { "output", required_argument, 0, 'o' },
        { "metric", required_argument, 0, OPT_METRIC }, { "dialect", required_argument, 0, OPT_DIALECT },
        { "force", no_argument, 0, OPT_FORCE }, { "all", no_argument, 0, OPT_ALL },
        CLI_FILTER_LONG_OPTIONS,
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    pcd_filter_opts fo;
    memset(&fo, 0, sizeof fo);
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        if (o == OPT_TO) to = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == OPT_METRIC) metric = optarg;
        else if (o == OPT_DIALECT) dialect = optarg;
        else if (o == OPT_FORCE) force = true;
        else if (o == OPT_ALL) all = true;
        else if (o == 'h') { merge_help(stdout); return 0; }
        else {
            int k = cli_filter_option(&fo, "merge", o, optarg);
            if (k < 0) return EXIT_USAGE;
            if (k == 0) { merge_help(stderr); return EXIT_USAGE; }
        }
    }
    if (cli_filter_check(&fo, "merge")) return EXIT_USAGE;
    size_t n = (size_t)(argc - optind);
    if (!to || n == 0) {
        fprintf(stderr, "profcodec merge: %s\n\n", !to ? "--to FORMAT is needed" : "no input named");
        merge_help(stderr);
        return EXIT_USAGE;
    }
    if (c->format) {
        fprintf(stderr, "profcodec merge: --format does not go with merge (each input's format is detected)\n");
        return EXIT_USAGE;
    }
    if (cli_not_for_terminal("merge", to, NULL, outname)) return EXIT_USAGE;
    c->text_ok = true;
    cli_src *src = cli_zalloc(c, n, sizeof *src);
    pcd_job *jobs = cli_zalloc(c, n, sizeof *jobs);
    cli_job_out *outs = cli_zalloc(c, n, sizeof *outs);
    int rc = 0;
    size_t opened = 0;
    if (!src || !jobs || !outs) {
        fprintf(stderr, "profcodec: out of memory (raise --max-memory)\n");
        rc = EXIT_USAGE;
    }
    /* every input opened first (a pipe is peeked at, nothing more), so that a file that cannot be
     * read or told is said before anything is written */
    for (size_t i = 0; !rc && i < n; i++) {
        const char *path = argv[optind + (int)i];
        if (strcmp(path, "-") == 0)
            for (size_t k = 0; k < i; k++)
                if (strcmp(argv[optind + (int)k], "-") == 0) {
                    fprintf(stderr, "profcodec merge: standard input (-) named twice\n");
                    rc = EXIT_USAGE;
                }
        if (rc) break;
        rc = cli_open(c, &src[i], path, false);
        opened = i + 1;
        if (rc) break;
        cli_job_init_at(&jobs[i], &outs[i], src[i].f, src[i].f ? &src[i].r : NULL, path, c, stderr);
        cli_job_text(&jobs[i], &src[i]);
        jobs[i].all = all;
        jobs[i].metric = metric;
        jobs[i].dialect = dialect;
        jobs[i].force = force;
        jobs[i].filters = &fo;
        jobs[i].progress = cli_progress;
        jobs[i].progress_ud = c;
    }
    outbuf ob;
    bool dir = (pcd_output_wants(to) & PCD_WANTS_PARTS) != 0;
    if (!rc) rc = dir ? outbuf_open_dir(c, &ob, outname) : outbuf_open(c, &ob, out_to_stdout_ok(outname) ? "-" : outname);
    if (!rc && dir) {
        jobs[0].open_part = outbuf_part;
        jobs[0].part_ud = &ob;
    }
    if (!rc) {
        c->report_src = NULL; /* (each report names its own input; compressed-stream notes follow below) */
        pcd_status st = pcd_merge(jobs, n, to, dir ? NULL : &ob.sink);
        cli_progress_done(c);
        if (st != PCD_OK && jobs[0].msg[0]) fprintf(stderr, "profcodec merge: %s\n", jobs[0].msg);
        rc = cli_job_outcome(&jobs[0], st);
        for (size_t i = 1; i < n; i++)
            if (jobs[i].damaged && rc == 0) rc = EXIT_INVALID;
        for (size_t i = 0; i < n; i++) cli_text_stream_note(&src[i], argv[optind + (int)i]);
        if (rc == EXIT_USAGE) {
            outbuf_abort(&ob);
        } else if (st == PCD_E_EMPTY) {
            outbuf_abort(&ob);
            if (outname && strcmp(outname, "-") != 0) fprintf(stderr, "profcodec merge: %s not written\n", outname);
        } else if (outbuf_commit(&ob)) {
            rc = EXIT_USAGE;
        }
    }
    for (size_t i = 0; i < opened; i++) cli_close(&src[i]);
    if (src) cli_free(c, src);
    if (jobs) cli_free(c, jobs);
    if (outs) cli_free(c, outs);
    return rc;
}
