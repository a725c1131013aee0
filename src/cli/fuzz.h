/* cli/fuzz.h: `profcodec fuzz`, a campaign against a reader that is a program: what the
 * command (cmd_fuzz.c), the triage of a run (fuzz_triage.c: classify, confirm, minimize,
 * write the reproducer) and the campaign's folder (fuzz_store.c: state, findings, queue)
 * share. */
#ifndef PCD_CLI_FUZZ_H
#define PCD_CLI_FUZZ_H

#include <regex.h>
#include <signal.h>

#include "cli.h"
#include "cli/fuzz_proc.h"
#include "fuzz/bytemut.h"
#include "fuzz/reading.h"
#include "fuzz/report.h"
#include "pcd_mut.h"

#define FZ_MAX_TOTALS 8
#define FZ_MAX_CODES 16
#define FZ_DESC 2048          /* a mutation's description, one line */
#define FZ_SIG 512            /* a signature */

/* An input mutations start from: a seed of --seeds, or an input of the queue (one that made the
 * target do something it had not done before). */
typedef struct pcd_fz_input {
    char *name;               /* the seed's file name, or "queue/000012" */
    uint8_t *data;
    size_t len;
    const pcd_mutator *mu;    /* its schema's mutator (NULL: byte-level mutations only) */
    char ext[16];             /* the seed's suffix (".mojo", ".pb.gz"), kept for the target */
    char *desc;               /* queue inputs: the mutations that made it from a seed */
    bool fails;               /* a seed that is a finding as it is: not mutated */
} pcd_fz_input;

typedef struct pcd_fz_finding {
    char id[80];              /* "0003-asan-heap-buffer-overflow": its folder in findings/ */
    char sig[FZ_SIG];
    uint64_t hits;            /* inputs that showed it (duplicates included) */
    uint64_t first_run;
    size_t size;              /* the reproducer's size after minimizing */
    char title[256];
} pcd_fz_finding;

/* What one run of the target on an input came to. */
typedef struct pcd_fz_verdict {
    bool finding;             /* a crash, a sanitizer report, a hang, a blow-up, a disagreement */
    bool disagreement;        /* of those: a differential one */
    bool accepted;            /* the target accepted the input (exit status, --reject-regex) */
    char kind[64];            /* "asan-heap-buffer-overflow", "signal-SIGSEGV", "hang", "memory",
                               * "exit-3", "output", "diff-accepts", "diff-rejects", "diff-total" */
    char sig[FZ_SIG];
    char title[256];          /* one line for people */
    char ours[700];           /* --diff: profcodec's own reading, one line */
    char theirs[300];         /* --diff: the target's verdict (and totals), one line */
    uint64_t behaviour;       /* a hash of how it ended, for the queue */
} pcd_fz_verdict;

enum { FZ_MUT_STRUCTURE, FZ_MUT_BYTES, FZ_MUT_BOTH };

typedef struct fz {
    cli *c;
    /* options */
    const char *seeds_dir, *out_dir, *replay_dir;
    pcd_fz_cmd cmd;
    char **cmd_argv;
    int cmd_argc;
    pcd_fz_limits lim;
    int mutate;               /* FZ_MUT_* */
    bool evil;
    double layer_break, generate;
    uint64_t max_runs, max_findings, minimize_runs;
    double max_time, minimize_time;
    uint64_t seed;
    bool seed_given;
    bool diff, diff_totals_only, ignore_leaks, gdb, py_tracebacks;
    regex_t crash_re, reject_re;
    bool has_crash_re, has_reject_re;
    int crash_exit[FZ_MAX_CODES], accept_exit[FZ_MAX_CODES];
    int n_crash_exit, n_accept_exit;
    struct { char name[48]; regex_t re; char tmpl[256]; } totals[FZ_MAX_TOTALS];  /* name "*": tmpl */
    int n_totals;
    struct { char name[64]; regex_t re; bool ok; } type_re[32];  /* "*" made per sample type */
    int n_type_re;
    const pcd_format *format; /* --format */
    const pcd_mutator *format_mu;
    /* state (saved in OUT/state) */
    pcd_fz_rng rng;
    uint64_t runs;            /* target runs on mutated inputs (every session) */
    uint64_t session_runs;    /* of those, this session's */
    uint64_t triage_runs;     /* target runs to confirm and minimize */
    uint64_t hits, accepted, rejected, disagreements, flaky, generated, unmutable;
    double seconds_before;    /* time of the earlier sessions of this campaign */
    uint64_t next_queue;
    /* inputs: seeds first, then the queue */
    pcd_fz_input *in;
    size_t n_in, cap_in, n_seeds;
    size_t *good;             /* the seeds that do not fail as they are */
    size_t n_good;
    pcd_fz_finding *fd;
    size_t n_fd, cap_fd;
    uint64_t *beh;            /* open addressing set of behaviours (0 empty) */
    size_t beh_cap, n_beh;
    /* machinery */
    pcd_fz_runner runner;
    pcd_alloc *al;            /* everything the campaign holds (the tool's allocator, --max-memory) */
    pcd_mut **sess;           /* one session per mutator (pcd_mutators order), made when first needed */
    uint8_t *buf;             /* the input being run */
    size_t buf_cap;
    char desc[FZ_DESC];       /* how buf was made */
    const char *made_from;    /* what buf was made from: an input's name, or the generator's */
    char cur_dir[4096], cur_path[4096];
    double t_start, last_save, last_show;
    uint64_t new_findings;
    bool warned_total;
} fz;

extern volatile sig_atomic_t pcd_fz_stop;

double pcd_fz_now(void);
double pcd_fz_elapsed(const fz *z);

/* ---- fuzz_triage.c ------------------------------------------------------------------------- */

/* Writes data to the target's input file, runs the target and says what it came to. Returns 0,
 * or -1 when the target cannot be run at all (the reason printed). */
int pcd_fz_evaluate(fz *z, const uint8_t *data, size_t n, const char *ext, pcd_fz_verdict *v, pcd_fz_run *run);
/* A finding: confirmed by a second run, minimized (structurally, then by bytes), written to
 * OUT/findings/ with its reproducer, or counted as a hit of the finding it repeats. */
int pcd_fz_triage(fz *z, const uint8_t *data, size_t n, const pcd_fz_input *from, const pcd_fz_verdict *v);
/* The session of a mutator (made with the campaign's options when first asked for). */
pcd_mut *pcd_fz_session(fz *z, const pcd_mutator *mu);

/* ---- fuzz_store.c: the campaign's folder ---------------------------------------------------- */

/* Text built in memory through the campaign's allocator (a report, an index, a script). */
typedef struct pcd_fz_text {
    pcd_alloc *al;
    char *p;                  /* NUL-terminated; NULL while empty */
    size_t len, cap;
    bool failed;              /* the allocator refused: the text is incomplete */
} pcd_fz_text;

void pcd_fz_text_init(pcd_fz_text *t, pcd_alloc *al);
void pcd_fz_tprintf(pcd_fz_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pcd_fz_tputc(pcd_fz_text *t, int ch);
void pcd_fz_text_free(pcd_fz_text *t);

/* Makes OUT (and its folders), or takes up the campaign already in it (state, findings, queue,
 * behaviours). Returns 0, or EXIT_USAGE with the reason printed. */
int pcd_fz_store_open(fz *z, bool *resumed);
int pcd_fz_store_save(fz *z);
/* snprintf that says whether it fitted: 0, or -1 when cut (paths) */
int pcd_fz_fmt(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A file written whole under a temporary name, then renamed. */
int pcd_fz_write_file(const char *path, const void *data, size_t n);
/* Adds an input to the queue (in memory and in OUT/queue). z->in may move: pointers into it,
 * from included, are stale afterwards. */
int pcd_fz_store_queue(fz *z, const uint8_t *data, size_t n, const pcd_fz_input *from, const char *desc);
/* Records a behaviour; true when it is new. */
bool pcd_fz_behaviour_new(fz *z, uint64_t h);
int pcd_fz_store_findings_index(fz *z);
pcd_fz_finding *pcd_fz_find_sig(fz *z, const char *sig);
pcd_fz_finding *pcd_fz_add_finding(fz *z);
int pcd_fz_add_input(fz *z, const char *name, uint8_t *data, size_t len, const char *ext, char *desc);
/* The suffix of a file name worth keeping for a reader (".mojo", ".pb.gz"; "" none). */
void pcd_fz_suffix(const char *name, char *ext, size_t cap);

#endif
