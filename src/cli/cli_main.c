/* cli_main.c: profcodec, the command-line tool: formats, info, validate, dump, encode, convert,
 * explain, fuzz. main.c calls it; the sanitize tree's test server (tests/serve) calls it many times
 * in one process, so it leaves nothing of one run behind for the next (cli_end). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* a, a global option "--name VALUE" or "--name=VALUE" */
static bool opt_is(const char *a, const char *name)
{
    size_t n = strlen(name);
    return strncmp(a, name, n) == 0 && (a[n] == 0 || a[n] == '=');
}

static const char usage_text[] =
    "usage: profcodec [--max-memory SIZE] [--decompress-threads N] [-q] COMMAND [ARGS]\n"
    "\n"
    "Reads, checks, writes and converts profiler and tracer files.\n"
    "\n"
    "commands:\n"
    "  formats                     list the formats and versions this build knows\n"
    "  info FILE [--json]          format, version, record counts, time span, metadata\n"
    "  validate FILE... [--all] [--strict]  exit 0 if every file is valid, else print where it is not\n"
    "  dump FILE [-o OUT] [--all]  one JSON object per record (JSON Lines), lossless\n"
    "  encode [IN.jsonl|-] -o OUT  JSON Lines back to the binary format (--from: other forms)\n"
    "  convert --to FORMAT FILE [-o OUT]   to viewers and other formats (convert --help lists them)\n"
    "  merge FILE... --to FORMAT [-o OUT]  several inputs (any formats) into one profile\n"
    "  explain FILE [--to text|json|html]  every field: where it lies, its bytes, value and doc string\n"
    "  top FILE [-n N] [--cum] [--json]  go tool pprof -top's table; grouping and filters (top --help)\n"
    "  fuzz --seeds DIR -- CMD {}  fuzz a reader that is a program with files mutated through\n"
    "                              the schemas: crashes, hangs, disagreements (fuzz --help)\n"
    "\n"
    "global options:\n"
    "  --max-memory SIZE  cap on the memory profcodec uses for one input (default 2G)\n"
    "  --decompress-threads N  1: everything on one thread; 2 (default): a large zstd\n"
    "                     region is decompressed ahead on a second thread (same output)\n"
    "  -q, --quiet        no progress display, no success lines\n"
    "  --format NAME[:VERSION]  (any command) the input's format, instead of detecting it\n"
    "\n"
    "exit status: 0 ok, 1 invalid input, 2 usage or I/O error.\n"
    "Run 'profcodec COMMAND --help' for a command's options.\n";

static int cli_run(cli *c, int argc, char **argv)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("profcodec %s\n", pcd_version());
            return 0;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            c->quiet = true;
        } else if (opt_is(a, "--decompress-threads") || opt_is(a, "--threads")) {
            /* (--threads: its first name, which read like a choice of the profile's threads) */
            const char *eq = strchr(a, '=');
            const char *v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : "";
            char *end = NULL;
            long n = strtol(v, &end, 10);
            if (!*v || *end || n < 1 || n > 1024) {
                fprintf(stderr, "profcodec: bad %.*s '%s' (1 or more)\n", (int)(eq ? (size_t)(eq - a) : strlen(a)), a, v);
                return EXIT_USAGE;
            }
            c->threads = (unsigned)n;
        } else if (strcmp(a, "--format") == 0 && i + 1 < argc) {
            c->format = argv[++i];
        } else if (strncmp(a, "--format=", 9) == 0) {
            c->format = a + 9;
        } else if (strcmp(a, "--max-memory") == 0 && i + 1 < argc) {
            if (!cli_parse_size(argv[++i], &c->max_memory)) {
                fprintf(stderr, "profcodec: bad --max-memory '%s' (e.g. 512M, 4G)\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (strncmp(a, "--max-memory=", 13) == 0) {
            if (!cli_parse_size(a + 13, &c->max_memory)) {
                fprintf(stderr, "profcodec: bad --max-memory '%s' (e.g. 512M, 4G)\n", a + 13);
                return EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "profcodec: unknown option '%s'\n%s", a, usage_text);
            return EXIT_USAGE;
        }
    }
    if (i >= argc) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    cli_start(c);
    const char *cmd = argv[i];
    int sub_argc = argc - i;
    char **sub_argv = argv + i;
    if (strcmp(cmd, "formats") == 0) return cmd_formats(c, sub_argc, sub_argv);
    if (strcmp(cmd, "info") == 0) return cmd_info(c, sub_argc, sub_argv);
    if (strcmp(cmd, "validate") == 0) return cmd_validate(c, sub_argc, sub_argv);
    if (strcmp(cmd, "dump") == 0) return cmd_dump(c, sub_argc, sub_argv);
    if (strcmp(cmd, "encode") == 0) return cmd_encode(c, sub_argc, sub_argv);
    if (strcmp(cmd, "convert") == 0) return cmd_convert(c, sub_argc, sub_argv);
    if (strcmp(cmd, "merge") == 0) return cmd_merge(c, sub_argc, sub_argv);
    if (strcmp(cmd, "explain") == 0) return cmd_explain(c, sub_argc, sub_argv);
    if (strcmp(cmd, "top") == 0) return cmd_top(c, sub_argc, sub_argv);
    if (strcmp(cmd, "fuzz") == 0) return cmd_fuzz(c, sub_argc, sub_argv);
    if (strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    fprintf(stderr, "profcodec: unknown command '%s'\n%s", cmd, usage_text);
    return EXIT_USAGE;
}

int pcd_cli_main(int argc, char **argv)
{
    cli c;
    cli_init(&c);
    cli_cleanup_on_signals(&c);
    int rc = cli_run(&c, argc, argv);
    cli_end(&c);
    return rc;
}
