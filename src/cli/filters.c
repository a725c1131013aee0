/* cli/filters.c: grouping and filter options (cli/filters.h). */
#include "cli/filters.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int add(const char **list, size_t *n, const char *cmd, const char *opt, const char *arg)
{
    if (*n == PCD_FILTER_MAX) {
        fprintf(stderr, "profcodec %s: at most %d %s options\n", cmd, PCD_FILTER_MAX, opt);
        return -1;
    }
    list[(*n)++] = arg;
    return 1;
}

static int seconds(double *v, bool *has, const char *cmd, const char *opt, const char *arg)
{
    char *end;
    errno = 0;
    double d = strtod(arg, &end);
    if (end == arg || *end || errno || !isfinite(d) || d < 0) {
        fprintf(stderr, "profcodec %s: %s '%s': expected seconds from the start (a number, 0 or more)\n", cmd, opt, arg);
        return -1;
    }
    *v = d;
    *has = true;
    return 1;
}

int cli_filter_option(pcd_filter_opts *fo, const char *cmd, int o, const char *arg)
{
    switch (o) {
    case OPT_GRANULARITY: {
        int g = pcd_granularity_parse(arg);
        if (g < 0) {
            fprintf(stderr, "profcodec %s: --granularity '%s': expected function, line or address\n", cmd, arg);
            return -1;
        }
        fo->granularity = (pcd_granularity)g;
        return 1;
    }
    case OPT_FOCUS: fo->focus = arg; return 1;
    case OPT_IGNORE: fo->ignore = arg; return 1;
    case OPT_HIDE: fo->hide = arg; return 1;
    case OPT_SHOW: fo->show = arg; return 1;
    case OPT_PRUNE_FROM: fo->prune_from = arg; return 1;
    case OPT_SHOW_FROM: fo->show_from = arg; return 1;
    case OPT_TAG: return add(fo->tags, &fo->n_tags, cmd, "--tag", arg);
    case OPT_THREAD: return add(fo->threads, &fo->n_threads, cmd, "--thread", arg);
    case OPT_TRIM_PATH: return add(fo->trim_paths, &fo->n_trim_paths, cmd, "--trim-path", arg);
    case OPT_TIME_FROM: return seconds(&fo->from, &fo->has_from, cmd, "--from", arg);
    case OPT_UNTIL: return seconds(&fo->until, &fo->has_until, cmd, "--until", arg);
    default: return 0;
    }
}

int cli_filter_check(const pcd_filter_opts *fo, const char *cmd)
{
    char msg[512];
    if (pcd_filter_opts_check(fo, msg, sizeof msg) != PCD_OK) {
        fprintf(stderr, "profcodec %s: %s\n", cmd, msg);
        return EXIT_USAGE;
    }
    return 0;
}

void cli_filter_help(FILE *out)
{
    fputs("grouping and filters (pprof's meanings; REGEX is POSIX extended, matched anywhere in a\n"
          "frame's function name, its file or its module unless anchored with ^ and $):\n"
          "  --granularity G    what one frame is: function (name and file: pprof's -filefunctions),\n"
          "                     line (and line number) or address (every field, as read). Default:\n"
          "                     function for pictures and tables (collapsed, svg, speedscope, top),\n"
          "                     as read for format writers (pprof, mojo, tachyon, austin), for html\n"
          "                     (its viewer merges by function, and by line on request), for chrome\n"
          "                     (a timeline), for the engines' tables (table, ndjson: queries\n"
          "                     group as they like) and for collapsed in a reference tool's\n"
          "                     dialect (MOJO's austin, Tachyon's cpython: --dialect default\n"
          "                     groups)\n"
          "  --focus REGEX      keep only samples with a frame matching REGEX\n"
          "  --ignore REGEX     drop samples with a frame matching REGEX\n"
          "  --hide REGEX       take the frames matching REGEX out of stacks (a stack left empty: dropped)\n"
          "  --show REGEX       keep only the frames matching REGEX in stacks (the others taken out)\n"
          "  --prune-from REGEX cut each stack after its deepest frame whose function name matches\n"
          "                     REGEX (that frame stays, its callees go)\n"
          "  --show-from REGEX  start each stack at its outermost frame matching REGEX (its callers\n"
          "                     go); samples without such a frame are dropped\n"
          "  --tag KEY=VALUE    keep samples with a label KEY whose text matches VALUE (a regex, the\n"
          "                     whole text) or whose number is VALUE (\"4096\" or \"4096bytes\");\n"
          "                     or, as pprof's -tagfocus, a range of KEY's numbers with units:\n"
          "                     1kb:2kb, :64kb, 1mb: (both ends included), 32kb; repeated: every\n"
          "                     one must match\n"
          "  --thread T         keep samples of thread T (its id, decimal or as the file writes it, or\n"
          "                     its name); repeated: any of them\n"
          "  --from S, --until S  keep samples taken S seconds after the start or later / before;\n"
          "                     refused for inputs whose samples have no times\n"
          "  --trim-path PREFIX take PREFIX off file paths (repeated: the first that fits)\n"
          "A filter that leaves nothing writes no output: it says so, exit status 1.\n", out);
}
