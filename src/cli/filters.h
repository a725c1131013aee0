/* cli/filters.h: the options of grouping and filters (issue 25), shared by the commands that
 * write an output of the model (convert, top): their getopt entries, their parsing into a
 * pcd_filter_opts (model/transform.h) and their help text. */
#ifndef PCD_CLI_FILTERS_H
#define PCD_CLI_FILTERS_H

#include <getopt.h>
#include <stdio.h>

#include "model/transform.h"

/* Option ids (above every command's own, commands.h). */
enum { OPT_GRANULARITY = 1100, OPT_FOCUS, OPT_IGNORE, OPT_HIDE, OPT_SHOW, OPT_PRUNE_FROM, OPT_TAG, OPT_THREAD,
       OPT_TIME_FROM, OPT_UNTIL, OPT_TRIM_PATH, OPT_SHOW_FROM };

#define CLI_FILTER_LONG_OPTIONS                                                                                    \
    { "granularity", required_argument, 0, OPT_GRANULARITY }, { "focus", required_argument, 0, OPT_FOCUS },         \
    { "ignore", required_argument, 0, OPT_IGNORE }, { "hide", required_argument, 0, OPT_HIDE },                   \
    { "show", required_argument, 0, OPT_SHOW }, { "prune-from", required_argument, 0, OPT_PRUNE_FROM },           \
    { "tag", required_argument, 0, OPT_TAG }, { "thread", required_argument, 0, OPT_THREAD },                     \
    { "from", required_argument, 0, OPT_TIME_FROM }, { "until", required_argument, 0, OPT_UNTIL },               \
    { "trim-path", required_argument, 0, OPT_TRIM_PATH }, { "show-from", required_argument, 0, OPT_SHOW_FROM }

/* Option o with its argument: 1 taken into fo, 0 not one of these, -1 a bad value (said on stderr
 * as "profcodec CMD: ..."). */
int cli_filter_option(pcd_filter_opts *fo, const char *cmd, int o, const char *arg);
/* After the options: checks them (regexes compile...); 0, or EXIT_USAGE with the reason said. */
int cli_filter_check(const pcd_filter_opts *fo, const char *cmd);
/* The options' help, pprof's meanings. */
void cli_filter_help(FILE *out);

#endif
