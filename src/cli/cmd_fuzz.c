/* cli/cmd_fuzz.c: `profcodec fuzz`: a campaign against a reader that is a program. Inputs are
 * made from the seeds by the schemas' mutators (or byte-level edits), the command runs on each,
 * and what it does wrong is kept: crashes, sanitizer reports, hangs, memory blow-ups and, with
 * --diff, disagreements with profcodec's own reading. The campaign lives in its folder (-o) and
 * is resumed from it. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/fuzz.h"

static const char fuzz_help[] =
    "usage: profcodec fuzz --seeds DIR [-o OUT] [options] -- COMMAND [ARG...]\n\n"
    "Runs COMMAND on files made from the seeds and keeps what it does wrong. \"{}\" in an\n"
    "argument is the file's path; without one the file is COMMAND's standard input.\n"
    "Each seed is mutated through its format's schema (integers to their edges, union\n"
    "cases, strings, records inserted, deleted, duplicated, references made stale or\n"
    "missing; sizes, counts, offsets and compression recomputed), now and then with one\n"
    "layer broken on purpose.\n\n"
    "Findings: a signal, a sanitizer report (ASan, UBSan, MSan, LSan), a Go panic, a\n"
    "\"Fatal Python error\", a hang (--timeout), a memory blow-up (--rss-limit), and what\n"
    "--crash-exit and --crash-regex name. Each is run again to confirm it, minimized\n"
    "(records dropped and values shrunk, then bytes), told apart from the others by its\n"
    "stack or signal, and written to OUT/findings/ID/: input (minimized), original,\n"
    "mutation.txt (how it was made, one line), report.txt, repro.sh.\n\n"
    "  --seeds DIR            the seed files (every file in DIR)\n"
    "  -o, --out DIR          the campaign's folder (default fuzz-out); a campaign of the\n"
    "                         same command already there is resumed\n"
    "  --format NAME[:V]      the seeds' format (default: detected, per seed)\n"
    "  --mutate KIND          structure (default), bytes, or both\n"
    "  --no-evil              only mutations that keep the file valid for profcodec\n"
    "  --layer-break P        share of inputs with a layer broken on purpose (default 0.03)\n"
    "  --generate P           share of inputs written from nothing (default 0.02)\n"
    "  --runs N               stop after N runs of the campaign (all its sessions)\n"
    "  --max-time SECONDS     stop after the campaign has run this long (all its sessions)\n"
    "  --max-findings N       stop after N distinct findings\n"
    "  --timeout SECONDS      a run longer than this is a hang (default 5)\n"
    "  --rss-limit MB         resident memory a run may use (default 2048)\n"
    "  --seed N               random seed of a new campaign (default: from the clock)\n"
    "  --crash-exit LIST      exit statuses that are crashes (e.g. 3,4)\n"
    "  --crash-regex RE       output matching RE (extended regex) is a crash\n"
    "  --python-tracebacks    an uncaught Python exception is a crash\n"
    "  --ignore-leaks         LeakSanitizer's reports are not findings\n"
    "  --gdb                  tell crashes without a report apart by a gdb backtrace\n"
    "  --minimize-runs N      runs spent minimizing each finding (default 1000; 0: none)\n"
    "  --minimize-time SECONDS  time spent minimizing each finding (default 300; 0: no limit)\n"
    "  --replay DIR           no mutation: run every file of DIR once, then triage as above\n"
    "                         (other fuzzers' crashes)\n\n"
    "differential runs (--diff): the target's verdict against profcodec's own reading\n"
    "(what `profcodec validate` accepts), and its totals against the profile's:\n"
    "  --diff[=all|totals]    all (default): verdicts and totals; totals: only the totals, for\n"
    "                         readers that accept what they cannot read whole\n"
    "  --accept-exit LIST     exit statuses meaning the target accepted the file (default 0)\n"
    "  --reject-regex RE      output matching RE means it rejected the file\n"
    "  --total NAME=RE        the target's total NAME (a sample type of the profile, or\n"
    "                         @samples: how many samples) is RE's first group; NAME *:\n"
    "                         every sample type, with {name} in RE standing for its name;\n"
    "                         compared when both accept\n\n"
    "Progress shows on a terminal (a line a minute otherwise); Ctrl-C stops cleanly and the\n"
    "same command resumes. ASAN_OPTIONS, UBSAN_OPTIONS and MSAN_OPTIONS get defaults\n"
    "(abort_on_error=1, print_stacktrace=1) when unset.\n"
    "exit status: 0 no findings, 1 findings (in OUT/findings), 2 usage or I/O error.\n";

enum { OPT_SEEDS = 1100, OPT_MUTATE, OPT_NOEVIL, OPT_LAYER, OPT_GENERATE, OPT_RUNS, OPT_MAXTIME, OPT_MAXFIND,
       OPT_TIMEOUT, OPT_RSS, OPT_SEED, OPT_CRASHEXIT, OPT_CRASHRE, OPT_PYTB, OPT_LEAKS, OPT_GDB, OPT_MINRUNS,
       OPT_REPLAY, OPT_MINTIME, OPT_DIFF, OPT_ACCEPT, OPT_REJECTRE, OPT_TOTAL };

volatile sig_atomic_t pcd_fz_stop;

static void on_signal(int sig)
{
    if (pcd_fz_stop && sig == SIGINT) { /* a second Ctrl-C: now */
        signal(SIGINT, SIG_DFL);
        raise(SIGINT);
    }
    pcd_fz_stop = 1;
}

static bool parse_codes(const char *s, int *codes, int *n)
{
    *n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 255 || *n == FZ_MAX_CODES) return false;
        codes[(*n)++] = (int)v;
        s = end;
        if (*s == ',') s++;
        else if (*s) return false;
    }
    return *n > 0;
}

static bool parse_num(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static bool compile_re(regex_t *re, const char *s, const char *opt)
{
    int rc = regcomp(re, s, REG_EXTENDED | REG_NEWLINE);
    if (rc == 0) return true;
    char msg[256];
    regerror(rc, re, msg, sizeof msg);
    fprintf(stderr, "profcodec fuzz: %s '%s': %s\n", opt, s, msg);
    return false;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Every regular file of dir, sorted, as inputs; returns how many, or -1 (printed). */
static long load_dir(fz *z, const char *dir, bool as_seeds)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "profcodec fuzz: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = pcd_alloc_sized_resize(z->al, names, cap * sizeof *nn);
            if (!nn) break;
            names = nn;
        }
        names[n] = pcd_fz_strdup(z->al, e->d_name);
        if (names[n]) n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, cmp_name);
    long got = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > z->buf_cap) {
            if (S_ISREG(st.st_mode) && !z->c->quiet)
                fprintf(stderr, "profcodec fuzz: %s: left out (larger than %zu bytes)\n", path, z->buf_cap);
            pcd_alloc_sized_free(z->al, names[i]);
            continue;
        }
        FILE *f = fopen(path, "rb");
        uint8_t *data = pcd_alloc_sized(z->al, (size_t)st.st_size + 1);
        size_t len = f && data ? fread(data, 1, (size_t)st.st_size, f) : 0;
        if (f) fclose(f);
        char ext[16];
        pcd_fz_suffix(names[i], ext, sizeof ext);
        if (data && pcd_fz_add_input(z, as_seeds ? names[i] : path, data, len, ext, NULL) == 0) got++;
        else pcd_alloc_sized_free(z->al, data);
        pcd_alloc_sized_free(z->al, names[i]);
    }
    pcd_alloc_sized_free(z->al, names);
    return got;
}

static void show(fz *z, bool final)
{
    double t = pcd_fz_now();
    if (z->c->quiet && !final) return;
    if (!final && t - z->last_show < (z->c->tty ? 0.5 : 60.0)) return;
    z->last_show = t;
    double el = pcd_fz_elapsed(z), session = t - z->t_start;
    uint64_t total = z->accepted + z->rejected;
    int h = (int)(el / 3600), m = (int)(el / 60) % 60, s = (int)el % 60;
    char line[400];
    int o = snprintf(line, sizeof line, "profcodec fuzz: %d:%02d:%02d  %" PRIu64 " runs (%.0f/s)  accepted %.0f%%  findings %zu",
                     h, m, s, z->runs, session > 0 ? (double)z->session_runs / session : 0.0,
                     total ? 100.0 * (double)z->accepted / (double)total : 0.0, z->n_fd);
    if (z->hits > z->n_fd) o += snprintf(line + o, sizeof line - (size_t)o, " (%" PRIu64 " hits)", z->hits);
    if (z->diff) o += snprintf(line + o, sizeof line - (size_t)o, "  disagreements %" PRIu64, z->disagreements);
    snprintf(line + o, sizeof line - (size_t)o, "  queue %zu", z->n_in - z->n_seeds);
    if (z->c->tty && !final) fprintf(stderr, "\r%s   ", line);
    else fprintf(stderr, "%s%s\n", z->c->tty ? "\r" : "", line);
}

/* The next input: buf[0..*len) and z->desc, from a seed or a queue input. */
static int make_input(fz *z, const pcd_fz_input **from, size_t *len)
{
    size_t pick = z->n_in > z->n_seeds && pcd_fz_below(&z->rng, 10) < 3
                      ? z->n_seeds + (size_t)pcd_fz_below(&z->rng, z->n_in - z->n_seeds)
                      : z->good[pcd_fz_below(&z->rng, z->n_good)];
    const pcd_fz_input *in = &z->in[pick];
    *from = in;
    z->desc[0] = 0;
    z->made_from = in->name;
    bool structure = in->mu && z->mutate != FZ_MUT_BYTES &&
                     !(z->mutate == FZ_MUT_BOTH && pcd_fz_below(&z->rng, 2));
    if (structure) {
        pcd_mut *m = pcd_fz_session(z, in->mu);
        if (m) {
            pcd_mut_reseed(m, pcd_fz_rand(&z->rng));
            pcd_status st;
            uint32_t applied = 0;
            bool generate = z->generate > 0 && (double)pcd_fz_below(&z->rng, 1000000) < z->generate * 1e6;
            if (generate) {
                st = pcd_mut_generate(m);
                /* half of them mutated too (PCD_END: nothing applied, the file as generated) */
                if (st == PCD_OK && pcd_fz_below(&z->rng, 2)) {
                    pcd_status ms = pcd_mut_mutate(m, &applied);
                    if (ms != PCD_END) st = ms;
                }
            } else {
                st = pcd_mut_load(m, in->data, in->len);
                /* now and then records of another seed of the same format spliced in */
                if (st == PCD_OK && pcd_fz_below(&z->rng, 10) == 0) {
                    const pcd_fz_input *o = &z->in[z->good[pcd_fz_below(&z->rng, z->n_good)]];
                    if (o != in && o->mu == in->mu) pcd_mut_crossover(m, o->data, o->len);
                }
                if (st == PCD_OK) st = pcd_mut_mutate(m, &applied);
            }
            if (st == PCD_OK) st = pcd_mut_encode(m, z->buf, z->buf_cap, len);
            if (st == PCD_OK) {
                if (generate) {
                    z->generated++;
                    z->made_from = "nothing (the schema's generator)";
                }
                snprintf(z->desc, sizeof z->desc, "%s%s%s%s", generate ? "generated from nothing; " : "",
                         in->desc && !generate ? in->desc : "", in->desc && in->desc[0] && !generate ? " | then " : "",
                         pcd_mut_describe(m));
                if (!generate && !strstr(z->desc, in->name)) {
                    size_t o = strlen(z->desc);
                    snprintf(z->desc + o, sizeof z->desc - o, " (from %s)", in->name);
                }
                return 0;
            }
            z->unmutable++;
        }
    }
    /* byte-level */
    size_t n = in->len < z->buf_cap ? in->len : z->buf_cap;
    memcpy(z->buf, in->data, n);
    const pcd_fz_input *other = &z->in[pcd_fz_below(&z->rng, z->n_in)];
    char bytes[FZ_DESC / 2] = "";
    pcd_fz_mutate_bytes(&z->rng, z->buf, &n, z->buf_cap, other->data, other->len, bytes, sizeof bytes);
    snprintf(z->desc, sizeof z->desc, "%s%s%s (from %s)", in->desc ? in->desc : "",
             in->desc && in->desc[0] ? " | then " : "", bytes, in->name);
    *len = n;
    return 0;
}

/* Every seed run once as it is: one that is already a finding is triaged as one (once: a
 * resumed campaign knows it) and left out of the mutations; the others are what mutations
 * start from. Returns 0, or -1 when the target cannot be run, or no seed is left. */
static int check_seeds(fz *z)
{
    z->good = pcd_fz_zalloc(z->al, z->n_seeds ? z->n_seeds : 1, sizeof *z->good);
    if (!z->good) return -1;
    size_t accepted = 0;
    for (size_t i = 0; i < z->n_seeds && !pcd_fz_stop; i++) {
        pcd_fz_input *in = &z->in[i];
        pcd_fz_verdict v;
        pcd_fz_run run;
        snprintf(z->desc, sizeof z->desc, "the seed %s as it is", in->name);
        z->made_from = in->name;
        if (pcd_fz_evaluate(z, in->data, in->len, in->ext, &v, &run) != 0) return -1;
        z->triage_runs++;
        accepted += v.accepted;
        if (v.finding && !v.disagreement) {
            in->fails = true;
            if (!pcd_fz_find_sig(z, v.sig)) pcd_fz_triage(z, in->data, in->len, in, &v);
            if (!z->c->quiet) fprintf(stderr, "profcodec fuzz: the seed %s fails as it is (%s): not mutated\n", in->name, v.title);
            continue;
        }
        z->good[z->n_good++] = i;
    }
    if (!z->c->quiet)
        fprintf(stderr, "profcodec fuzz: %zu of %zu seeds accepted by the target as they are\n", accepted, z->n_seeds);
    if (!z->n_good && !pcd_fz_stop) {
        fprintf(stderr, "profcodec fuzz: every seed fails as it is: nothing to mutate\n");
        return -1;
    }
    return 0;
}

/* Everything the campaign holds, at its end. */
static void pcd_fz_free(fz *z)
{
    pcd_fz_runner_free(&z->runner);
    if (z->sess)
        for (size_t i = 0; i < pcd_n_mutators; i++)
            if (z->sess[i]) pcd_mut_free(z->sess[i]);
    pcd_alloc_sized_free(z->al, z->sess);
    for (size_t i = 0; i < z->n_in; i++) {
        pcd_alloc_sized_free(z->al, z->in[i].name);
        pcd_alloc_sized_free(z->al, z->in[i].data);
        pcd_alloc_sized_free(z->al, z->in[i].desc);
    }
    pcd_alloc_sized_free(z->al, z->in);
    pcd_alloc_sized_free(z->al, z->good);
    pcd_alloc_sized_free(z->al, z->fd);
    pcd_alloc_sized_free(z->al, z->beh);
    pcd_alloc_sized_free(z->al, z->buf);
    if (z->has_crash_re) regfree(&z->crash_re);
    if (z->has_reject_re) regfree(&z->reject_re);
    for (int i = 0; i < z->n_totals; i++)
        if (strcmp(z->totals[i].name, "*") != 0) regfree(&z->totals[i].re);
    for (int i = 0; i < z->n_type_re; i++)
        if (z->type_re[i].ok) regfree(&z->type_re[i].re);
    memset(z, 0, sizeof *z);
}

static void set_env_default(const char *name, const char *value)
{
    if (!getenv(name)) setenv(name, value, 0);
}

static int parse_options(fz *z, cli *c, int argc, char **argv)
{
    static const struct option lo[] = {
        { "seeds", required_argument, 0, OPT_SEEDS }, { "out", required_argument, 0, 'o' },
        { "format", required_argument, 0, OPT_FORMAT }, { "mutate", required_argument, 0, OPT_MUTATE },
        { "no-evil", no_argument, 0, OPT_NOEVIL }, { "layer-break", required_argument, 0, OPT_LAYER },
        { "generate", required_argument, 0, OPT_GENERATE }, { "runs", required_argument, 0, OPT_RUNS },
        { "max-time", required_argument, 0, OPT_MAXTIME }, { "max-findings", required_argument, 0, OPT_MAXFIND },
        { "timeout", required_argument, 0, OPT_TIMEOUT }, { "rss-limit", required_argument, 0, OPT_RSS },
        { "seed", required_argument, 0, OPT_SEED }, { "crash-exit", required_argument, 0, OPT_CRASHEXIT },
        { "crash-regex", required_argument, 0, OPT_CRASHRE }, { "python-tracebacks", no_argument, 0, OPT_PYTB },
        { "ignore-leaks", no_argument, 0, OPT_LEAKS }, { "gdb", no_argument, 0, OPT_GDB },
        { "minimize-runs", required_argument, 0, OPT_MINRUNS }, { "minimize-time", required_argument, 0, OPT_MINTIME }, { "replay", required_argument, 0, OPT_REPLAY },
        { "diff", optional_argument, 0, OPT_DIFF }, { "accept-exit", required_argument, 0, OPT_ACCEPT },
        { "reject-regex", required_argument, 0, OPT_REJECTRE }, { "total", required_argument, 0, OPT_TOTAL },
        { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    double d;
    /* "+": options stop at the first word that is not one (the command) */
    while ((o = getopt_long(argc, argv, "+ho:", lo, NULL)) != -1) {
        const char *bad = NULL;
        switch (o) {
        case OPT_SEEDS: z->seeds_dir = optarg; break;
        case 'o': z->out_dir = optarg; break;
        case OPT_FORMAT: c->format = optarg; break;
        case OPT_MUTATE:
            if (strcmp(optarg, "structure") == 0) z->mutate = FZ_MUT_STRUCTURE;
            else if (strcmp(optarg, "bytes") == 0) z->mutate = FZ_MUT_BYTES;
            else if (strcmp(optarg, "both") == 0) z->mutate = FZ_MUT_BOTH;
            else bad = "--mutate (structure, bytes or both)";
            break;
        case OPT_NOEVIL: z->evil = false; break;
        case OPT_LAYER: if (!parse_num(optarg, 0, 1, &z->layer_break)) bad = "--layer-break (0 to 1)"; break;
        case OPT_GENERATE: if (!parse_num(optarg, 0, 1, &z->generate)) bad = "--generate (0 to 1)"; break;
        case OPT_RUNS: if (!parse_num(optarg, 1, 1e18, &d)) bad = "--runs"; else z->max_runs = (uint64_t)d; break;
        case OPT_MAXTIME: if (!parse_num(optarg, 0.001, 1e9, &z->max_time)) bad = "--max-time (seconds)"; break;
        case OPT_MAXFIND: if (!parse_num(optarg, 1, 1e9, &d)) bad = "--max-findings"; else z->max_findings = (uint64_t)d; break;
        case OPT_TIMEOUT: if (!parse_num(optarg, 0.001, 1e6, &z->lim.timeout_s)) bad = "--timeout (seconds)"; break;
        case OPT_RSS:
            if (!parse_num(optarg, 1, 1e9, &d)) bad = "--rss-limit (MB)";
            else z->lim.rss_limit = (uint64_t)d << 20;
            break;
        case OPT_SEED: z->seed = strtoull(optarg, NULL, 0), z->seed_given = true; break;
        case OPT_CRASHEXIT: if (!parse_codes(optarg, z->crash_exit, &z->n_crash_exit)) bad = "--crash-exit (e.g. 3,4)"; break;
        case OPT_CRASHRE:
            if (!compile_re(&z->crash_re, optarg, "--crash-regex")) return EXIT_USAGE;
            z->has_crash_re = true;
            break;
        case OPT_PYTB: z->py_tracebacks = true; break;
        case OPT_LEAKS: z->ignore_leaks = true; break;
        case OPT_GDB: z->gdb = true; break;
        case OPT_MINRUNS: if (!parse_num(optarg, 0, 1e12, &d)) bad = "--minimize-runs"; else z->minimize_runs = (uint64_t)d; break;
        case OPT_MINTIME: if (!parse_num(optarg, 0, 1e9, &z->minimize_time)) bad = "--minimize-time (seconds)"; break;
        case OPT_REPLAY: z->replay_dir = optarg; break;
        case OPT_DIFF:
            z->diff = true;
            if (optarg && strcmp(optarg, "totals") == 0) z->diff_totals_only = true;
            else if (optarg && strcmp(optarg, "all") != 0) bad = "--diff (all or totals)";
            break;
        case OPT_ACCEPT: if (!parse_codes(optarg, z->accept_exit, &z->n_accept_exit)) bad = "--accept-exit (e.g. 0)"; break;
        case OPT_REJECTRE:
            if (!compile_re(&z->reject_re, optarg, "--reject-regex")) return EXIT_USAGE;
            z->has_reject_re = true;
            break;
        case OPT_TOTAL: {
            const char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || (size_t)(eq - optarg) >= sizeof z->totals[0].name || z->n_totals == FZ_MAX_TOTALS) {
                bad = "--total (NAME=REGEX)";
                break;
            }
            snprintf(z->totals[z->n_totals].name, sizeof z->totals[0].name, "%.*s", (int)(eq - optarg), optarg);
            if (strcmp(z->totals[z->n_totals].name, "*") == 0) {
                /* every sample type: the regex is made per type, "{name}" its name */
                if (strlen(eq + 1) >= sizeof z->totals[0].tmpl || !strstr(eq + 1, "{name}")) {
                    bad = "--total (*=REGEX with {name} in it)";
                    break;
                }
                snprintf(z->totals[z->n_totals].tmpl, sizeof z->totals[0].tmpl, "%s", eq + 1);
            } else if (!compile_re(&z->totals[z->n_totals].re, eq + 1, "--total")) {
                return EXIT_USAGE;
            }
            z->n_totals++;
            break;
        }
        case 'h': fputs(fuzz_help, stdout); return -1;
        default: fputs(fuzz_help, stderr); return EXIT_USAGE;
        }
        if (bad) {
            fprintf(stderr, "profcodec fuzz: bad %s: '%s'\n", bad, optarg);
            return EXIT_USAGE;
        }
    }
    if (optind < argc && strcmp(argv[optind], "--") == 0) optind++;
    z->cmd_argc = argc - optind;
    z->cmd_argv = argv + optind;
    if (z->cmd_argc < 1 || (!z->seeds_dir && !z->replay_dir)) {
        fprintf(stderr, "profcodec fuzz: %s\n%s", z->cmd_argc < 1 ? "no command (after --)" : "no --seeds DIR",
                fuzz_help);
        return EXIT_USAGE;
    }
    pcd_fz_cmd_init(&z->cmd, z->cmd_argc, z->cmd_argv);
    return 0;
}

int cmd_fuzz(cli *c, int argc, char **argv)
{
    static fz z0;
    fz *z = &z0;
    memset(z, 0, sizeof *z);
    z->c = c;
    z->out_dir = "fuzz-out";
    z->evil = true;
    z->layer_break = 0.03;
    z->generate = 0.02;
    z->minimize_runs = 1000;
    z->minimize_time = 300;
    z->lim.timeout_s = 5;
    z->lim.rss_limit = (uint64_t)2048 << 20;
    z->lim.hang_signal = SIGQUIT;
    z->lim.hang_grace_s = 1;
    z->accept_exit[0] = 0;
    z->n_accept_exit = 1;
    z->buf_cap = (size_t)16 << 20;
    int rc = parse_options(z, c, argc, argv);
    if (rc) return rc < 0 ? 0 : rc;
    if (c->format) {
        z->format = cli_find_format(c->format);
        z->format_mu = pcd_mutator_find(c->format, NULL);
        if (!z->format) {
            fprintf(stderr, "profcodec fuzz: unknown format '%s' (see profcodec formats)\n", c->format);
            return EXIT_USAGE;
        }
    }
    set_env_default("ASAN_OPTIONS", "abort_on_error=1:symbolize=1");
    set_env_default("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1");
    set_env_default("MSAN_OPTIONS", "abort_on_error=1:print_stacktrace=1");
    z->al = &c->al;
    z->buf = pcd_alloc_sized(z->al, z->buf_cap);
    z->lim.capture = (size_t)1 << 20;
    if (!z->buf || pcd_fz_runner_init(&z->runner, z->lim.capture, z->al) != 0) {
        fprintf(stderr, "profcodec fuzz: out of memory (raise --max-memory)\n");
        return EXIT_USAGE;
    }
    /* the seeds first in z->in, then the queue of a campaign taken up */
    long got = load_dir(z, z->replay_dir ? z->replay_dir : z->seeds_dir, !z->replay_dir);
    if (got < 0) return EXIT_USAGE;
    if (got == 0) {
        fprintf(stderr, "profcodec fuzz: %s: no files\n", z->replay_dir ? z->replay_dir : z->seeds_dir);
        return EXIT_USAGE;
    }
    z->n_seeds = z->n_in;
    bool resumed = false;
    rc = pcd_fz_store_open(z, &resumed);
    if (rc) return rc;
    if (!resumed) z->rng.s = z->seed_given ? z->seed : (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid();
    else if (z->seed_given && !c->quiet) fprintf(stderr, "profcodec fuzz: --seed ignored: the campaign goes on with its own\n");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    z->t_start = pcd_fz_now();
    z->last_save = z->last_show = z->t_start;
    if (!c->quiet) {
        size_t structured = 0;
        for (size_t i = 0; i < z->n_seeds; i++) structured += z->in[i].mu != NULL;
        fprintf(stderr, "profcodec fuzz: %s %zu %s (%zu read by a schema), %s %s%s",
                resumed ? "resuming the campaign in" : "campaign in", z->n_seeds, z->replay_dir ? "inputs to replay" : "seeds",
                structured, z->out_dir, z->cmd.on_stdin ? "(input on stdin) " : "", "");
        if (resumed) fprintf(stderr, " after %" PRIu64 " runs, %zu findings", z->runs, z->n_fd);
        fprintf(stderr, "\n");
    }
    if (z->replay_dir) {
        for (size_t i = 0; i < z->n_seeds && !pcd_fz_stop; i++) {
            pcd_fz_verdict v;
            pcd_fz_run run;
            snprintf(z->desc, sizeof z->desc, "replayed as it is from %s", z->in[i].name);
            z->made_from = z->in[i].name;
            if (pcd_fz_evaluate(z, z->in[i].data, z->in[i].len, z->in[i].ext, &v, &run) != 0) return EXIT_USAGE;
            z->runs++;
            z->session_runs++;
            if (v.accepted) z->accepted++;
            else z->rejected++;
            if (v.finding && !pcd_fz_stop) pcd_fz_triage(z, z->in[i].data, z->in[i].len, &z->in[i], &v);
        }
    } else {
        if (check_seeds(z) != 0) {
            rc = EXIT_USAGE;
            goto out;
        }
        for (;;) {
            if (pcd_fz_stop || (z->max_runs && z->runs >= z->max_runs) || (z->max_time && pcd_fz_elapsed(z) >= z->max_time) ||
                (z->max_findings && z->n_fd >= z->max_findings))
                break;
            const pcd_fz_input *from;
            size_t len = 0;
            if (make_input(z, &from, &len) != 0) break;
            pcd_fz_verdict v;
            pcd_fz_run run;
            if (pcd_fz_evaluate(z, z->buf, len, from->ext, &v, &run) != 0) {
                rc = EXIT_USAGE;
                break;
            }
            if (pcd_fz_stop && run.end == FZ_SIGNALED) break; /* killed by us: not a result */
            z->runs++;
            z->session_runs++;
            if (v.accepted) z->accepted++;
            else z->rejected++;
            if (v.finding) {
                pcd_fz_triage(z, z->buf, len, from, &v);
            } else if (pcd_fz_behaviour_new(z, v.behaviour) && z->n_in - z->n_seeds < 4096) {
                pcd_fz_store_queue(z, z->buf, len, from, z->desc);
            }
            show(z, false);
            if (pcd_fz_now() - z->last_save > 30) pcd_fz_store_save(z);
        }
    }
out:
    pcd_fz_store_findings_index(z);
    if (pcd_fz_store_save(z) != 0) fprintf(stderr, "\nprofcodec fuzz: cannot save the state in %s: %s\n", z->out_dir, strerror(errno));
    show(z, true);
    if (!c->quiet) {
        fprintf(stderr, "profcodec fuzz: %s; %" PRIu64 " more runs confirmed and minimized findings", pcd_fz_stop ? "stopped" : "done",
                z->triage_runs);
        if (z->flaky) fprintf(stderr, "; %" PRIu64 " not found again (flaky)", z->flaky);
        fprintf(stderr, "\n");
        for (size_t i = 0; i < z->n_fd; i++)
            fprintf(stderr, "  %s  %" PRIu64 " hit%s  %s\n", z->fd[i].id, z->fd[i].hits, z->fd[i].hits == 1 ? "" : "s",
                    z->fd[i].title);
        if (pcd_fz_stop) fprintf(stderr, "profcodec fuzz: the same command resumes the campaign\n");
    }
    size_t n_fd = z->n_fd;
    pcd_fz_free(z);
    if (rc) return rc;
    return n_fd ? EXIT_INVALID : 0;
}
