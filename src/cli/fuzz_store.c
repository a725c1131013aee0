/* cli/fuzz_store.c: the folder of a `profcodec fuzz` campaign:
 *   state          counters and the random state, "key value" lines (what --resume reads)
 *   command        the command template, one argument a line (a resumed campaign must match)
 *   findings.tsv   one line per distinct finding: id, hits, first run, size, signature, title
 *   findings/ID/   a finding's reproducer (input, original, mutation.txt, report.txt, repro.sh)
 *   queue/         inputs that made the target behave in a new way (mutated further)
 *   behaviours     the hashes of the behaviours seen, one a line
 *   cur/           the file the target reads */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/fuzz.h"

/* The clock of a campaign (the store and triage keep its times; cmd_fuzz.c runs it). */
double pcd_fz_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double pcd_fz_elapsed(const fz *z) { return z->seconds_before + (pcd_fz_now() - z->t_start); }

int pcd_fz_fmt(char *buf, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, cap, fmt, ap);
    va_end(ap);
    return n >= 0 && (size_t)n < cap ? 0 : -1;
}

int pcd_fz_write_file(const char *path, const void *data, size_t n)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    const uint8_t *p = data;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            errno = e;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static int mkdir_p(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

static char *read_all(pcd_alloc *al, const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        errno = EISDIR;
        return NULL;
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = pcd_alloc_sized(al, cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *nb = pcd_alloc_sized_resize(al, buf, cap * 2);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        n += (size_t)r;
    }
    close(fd);
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

void pcd_fz_suffix(const char *name, char *ext, size_t cap)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strchr(base + (base[0] == '.'), '.');
    ext[0] = 0;
    if (!dot || strlen(dot) >= cap) return;
    for (const char *s = dot; *s; s++)
        if (!(*s == '.' || *s == '_' || *s == '-' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return;
    snprintf(ext, cap, "%s", dot);
}

int pcd_fz_add_input(fz *z, const char *name, uint8_t *data, size_t len, const char *ext, char *desc)
{
    if (z->n_in == z->cap_in) {
        size_t nc = z->cap_in ? z->cap_in * 2 : 64;
        pcd_fz_input *ni = pcd_alloc_sized_resize(z->al, z->in, nc * sizeof *ni);
        if (!ni) return -1;
        z->in = ni;
        z->cap_in = nc;
    }
    pcd_fz_input *in = &z->in[z->n_in++];
    memset(in, 0, sizeof *in);
    in->name = pcd_fz_strdup(z->al, name);
    in->data = data;
    in->len = len;
    in->desc = desc;
    snprintf(in->ext, sizeof in->ext, "%s", ext ? ext : "");
    if (z->format_mu) in->mu = z->format_mu;
    else if (len) in->mu = pcd_mutator_detect(data, len);
    return in->name ? 0 : -1;
}

/* ---- behaviours -------------------------------------------------------------------------- */

/* Into the set; true when it was not there. */
static bool beh_insert(fz *z, uint64_t h)
{
    if ((z->n_beh + 1) * 2 > z->beh_cap) {
        size_t nc = z->beh_cap ? z->beh_cap * 2 : 1024;
        uint64_t *nb = pcd_fz_zalloc(z->al, nc, sizeof *nb);
        if (!nb) return false;
        for (size_t i = 0; i < z->beh_cap; i++) {
            uint64_t v = z->beh[i];
            if (!v) continue;
            size_t k = (size_t)(v % nc);
            while (nb[k]) k = (k + 1) % nc;
            nb[k] = v;
        }
        pcd_alloc_sized_free(z->al, z->beh);
        z->beh = nb;
        z->beh_cap = nc;
    }
    size_t k = (size_t)(h % z->beh_cap);
    while (z->beh[k]) {
        if (z->beh[k] == h) return false;
        k = (k + 1) % z->beh_cap;
    }
    z->beh[k] = h;
    z->n_beh++;
    return true;
}

bool pcd_fz_behaviour_new(fz *z, uint64_t h)
{
    if (!h) h = 1;
    if (!beh_insert(z, h)) return false;
    char path[4200];
    snprintf(path, sizeof path, "%s/behaviours", z->out_dir);
    FILE *f = fopen(path, "a");
    if (f) {
        fprintf(f, "%016" PRIx64 "\n", h);
        fclose(f);
    }
    return true;
}

/* ---- findings ---------------------------------------------------------------------------- */

pcd_fz_finding *pcd_fz_find_sig(fz *z, const char *sig)
{
    for (size_t i = 0; i < z->n_fd; i++)
        if (strcmp(z->fd[i].sig, sig) == 0) return &z->fd[i];
    return NULL;
}

pcd_fz_finding *pcd_fz_add_finding(fz *z)
{
    if (z->n_fd == z->cap_fd) {
        size_t nc = z->cap_fd ? z->cap_fd * 2 : 16;
        pcd_fz_finding *nf = pcd_alloc_sized_resize(z->al, z->fd, nc * sizeof *nf);
        if (!nf) return NULL;
        z->fd = nf;
        z->cap_fd = nc;
    }
    pcd_fz_finding *f = &z->fd[z->n_fd++];
    memset(f, 0, sizeof *f);
    return f;
}

/* Tabs and newlines out of a field of findings.tsv. */
static void tsv_field(pcd_fz_text *f, const char *s)
{
    for (; *s; s++) pcd_fz_tputc(f, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* ---- text built in memory ------------------------------------------------------------------ */

void pcd_fz_text_init(pcd_fz_text *t, pcd_alloc *al)
{
    memset(t, 0, sizeof *t);
    t->al = al;
}

static bool text_room(pcd_fz_text *t, size_t n)
{
    if (t->failed) return false;
    if (t->len + n + 1 > t->cap) {
        size_t nc = t->cap ? t->cap : 256;
        while (nc < t->len + n + 1) nc *= 2;
        char *np = pcd_alloc_sized_resize(t->al, t->p, nc);
        if (!np) {
            t->failed = true;
            return false;
        }
        t->p = np;
        t->cap = nc;
    }
    return true;
}

void pcd_fz_tputc(pcd_fz_text *t, int ch)
{
    if (!text_room(t, 1)) return;
    t->p[t->len++] = (char)ch;
    t->p[t->len] = 0;
}

void pcd_fz_tprintf(pcd_fz_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = true;
        return;
    }
    if (!text_room(t, (size_t)n)) return;
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

void pcd_fz_text_free(pcd_fz_text *t)
{
    pcd_alloc_sized_free(t->al, t->p);
    memset(t, 0, sizeof *t);
}

int pcd_fz_store_findings_index(fz *z)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/findings.tsv", z->out_dir);
    pcd_fz_text t, *f = &t;
    pcd_fz_text_init(f, z->al);
    pcd_fz_tprintf(f, "# id\thits\tfirst_run\tbytes\tsignature\ttitle\n");
    for (size_t i = 0; i < z->n_fd; i++) {
        const pcd_fz_finding *d = &z->fd[i];
        pcd_fz_tprintf(f, "%s\t%" PRIu64 "\t%" PRIu64 "\t%zu\t", d->id, d->hits, d->first_run, d->size);
        tsv_field(f, d->sig);
        pcd_fz_tputc(f, '\t');
        tsv_field(f, d->title);
        pcd_fz_tputc(f, '\n');
    }
    int rc = t.failed ? -1 : pcd_fz_write_file(path, t.p, t.len);
    pcd_fz_text_free(f);
    return rc;
}

static void load_findings(fz *z)
{
    char path[4200];
    size_t len;
    snprintf(path, sizeof path, "%s/findings.tsv", z->out_dir);
    char *text = read_all(z->al, path, &len);
    if (!text) return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#') continue;
        char *fld[6] = { 0 };
        int k = 0;
        for (char *s = line; k < 6;) {
            fld[k++] = s;
            char *t = strchr(s, '\t');
            if (!t) break;
            *t = 0;
            s = t + 1;
        }
        if (k < 5) continue;
        pcd_fz_finding *d = pcd_fz_add_finding(z);
        if (!d) break;
        snprintf(d->id, sizeof d->id, "%s", fld[0]);
        d->hits = strtoull(fld[1], NULL, 10);
        d->first_run = strtoull(fld[2], NULL, 10);
        d->size = (size_t)strtoull(fld[3], NULL, 10);
        snprintf(d->sig, sizeof d->sig, "%s", fld[4]);
        if (fld[5]) snprintf(d->title, sizeof d->title, "%s", fld[5]);
    }
    pcd_alloc_sized_free(z->al, text);
}

/* ---- the queue ----------------------------------------------------------------------------- */

int pcd_fz_store_queue(fz *z, const uint8_t *data, size_t n, const pcd_fz_input *from, const char *desc)
{
    char name[64], path[4200];
    snprintf(name, sizeof name, "queue/%06" PRIu64, z->next_queue++);
    uint8_t *copy = pcd_alloc_sized(z->al, n ? n : 1);
    char *d = pcd_fz_strdup(z->al, desc);
    if (!copy || !d) {
        pcd_alloc_sized_free(z->al, copy);
        pcd_alloc_sized_free(z->al, d);
        return -1;
    }
    memcpy(copy, data, n);
    snprintf(path, sizeof path, "%s/%s", z->out_dir, name);
    if (pcd_fz_write_file(path, data, n) != 0) {
        pcd_alloc_sized_free(z->al, copy);
        pcd_alloc_sized_free(z->al, d);
        return -1;
    }
    /* the mutations that made it, and the suffix of its seed */
    char side[4200], meta[FZ_DESC + 64];
    pcd_fz_fmt(side, sizeof side, "%s.txt", path);
    int m = snprintf(meta, sizeof meta, "%s\n%s\n", from->ext, desc);
    pcd_fz_write_file(side, meta, (size_t)(m < (int)sizeof meta ? m : (int)sizeof meta - 1));
    /* from may point into z->in, which adding an input may move */
    char ext[sizeof from->ext];
    memcpy(ext, from->ext, sizeof ext);
    const pcd_mutator *mu = from->mu;
    if (pcd_fz_add_input(z, name, copy, n, ext, d) != 0) return -1;
    z->in[z->n_in - 1].mu = mu;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void load_queue(fz *z)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/queue", z->out_dir);
    DIR *d = opendir(path);
    if (!d) return;
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.' || strchr(e->d_name, '.')) continue;
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
    if (n) qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char file[4400], side[4400];
        size_t len = 0, slen = 0;
        snprintf(file, sizeof file, "%s/%s", path, names[i]);
        pcd_fz_fmt(side, sizeof side, "%s.txt", file);
        char *data = read_all(z->al, file, &len);
        char *meta = read_all(z->al, side, &slen);
        char ext[16] = "", *desc = NULL;
        if (meta) {
            char *nl = strchr(meta, '\n');
            if (nl) {
                *nl = 0;
                snprintf(ext, sizeof ext, "%s", meta);
                char *d2 = nl + 1, *nl2 = strchr(d2, '\n');
                if (nl2) *nl2 = 0;
                desc = pcd_fz_strdup(z->al, d2);
            }
            pcd_alloc_sized_free(z->al, meta);
        }
        char qname[80];
        snprintf(qname, sizeof qname, "queue/%s", names[i]);
        if (data) pcd_fz_add_input(z, qname, (uint8_t *)data, len, ext, desc ? desc : pcd_fz_strdup(z->al, ""));
        uint64_t id = strtoull(names[i], NULL, 10);
        if (id + 1 > z->next_queue) z->next_queue = id + 1;
        pcd_alloc_sized_free(z->al, names[i]);
    }
    pcd_alloc_sized_free(z->al, names);
}

static void load_behaviours(fz *z)
{
    char path[4200];
    size_t len;
    snprintf(path, sizeof path, "%s/behaviours", z->out_dir);
    char *text = read_all(z->al, path, &len);
    if (!text) return;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        uint64_t h = strtoull(line, NULL, 16);
        if (h) beh_insert(z, h);
    }
    pcd_alloc_sized_free(z->al, text);
}

/* ---- state --------------------------------------------------------------------------------- */

int pcd_fz_store_save(fz *z)
{
    char path[4200], text[2048];
    snprintf(path, sizeof path, "%s/state", z->out_dir);
    int n = snprintf(text, sizeof text,
                     "profcodec-fuzz 1\n"
                     "rng %" PRIu64 "\n"
                     "runs %" PRIu64 "\n"
                     "triage_runs %" PRIu64 "\n"
                     "seconds %.3f\n"
                     "hits %" PRIu64 "\n"
                     "accepted %" PRIu64 "\n"
                     "rejected %" PRIu64 "\n"
                     "disagreements %" PRIu64 "\n"
                     "flaky %" PRIu64 "\n"
                     "generated %" PRIu64 "\n"
                     "unmutable %" PRIu64 "\n"
                     "next_queue %" PRIu64 "\n",
                     z->rng.s, z->runs, z->triage_runs, pcd_fz_elapsed(z), z->hits, z->accepted, z->rejected,
                     z->disagreements, z->flaky, z->generated, z->unmutable, z->next_queue);
    z->last_save = pcd_fz_now();
    return pcd_fz_write_file(path, text, (size_t)n);
}

static void load_state(fz *z, const char *text)
{
    char key[64];
    unsigned long long v;
    double d;
    for (const char *s = text; *s;) {
        if (sscanf(s, "%63s %lf", key, &d) == 2) {
            v = strtoull(strchr(s, ' ') + 1, NULL, 10);
            if (strcmp(key, "rng") == 0) z->rng.s = v;
            else if (strcmp(key, "runs") == 0) z->runs = v;
            else if (strcmp(key, "triage_runs") == 0) z->triage_runs = v;
            else if (strcmp(key, "seconds") == 0) z->seconds_before = d;
            else if (strcmp(key, "hits") == 0) z->hits = v;
            else if (strcmp(key, "accepted") == 0) z->accepted = v;
            else if (strcmp(key, "rejected") == 0) z->rejected = v;
            else if (strcmp(key, "disagreements") == 0) z->disagreements = v;
            else if (strcmp(key, "flaky") == 0) z->flaky = v;
            else if (strcmp(key, "generated") == 0) z->generated = v;
            else if (strcmp(key, "unmutable") == 0) z->unmutable = v;
            else if (strcmp(key, "next_queue") == 0) z->next_queue = v;
        }
        const char *nl = strchr(s, '\n');
        if (!nl) break;
        s = nl + 1;
    }
}

/* The command template as it is saved: one argument a line. */
static char *command_text(const fz *z, size_t *len)
{
    pcd_fz_text t;
    pcd_fz_text_init(&t, z->al);
    for (int i = 0; i < z->cmd_argc; i++) pcd_fz_tprintf(&t, "%s\n", z->cmd_argv[i]);
    if (t.failed || !t.p) {
        pcd_fz_text_free(&t);
        return NULL;
    }
    *len = t.len;
    return t.p;
}

int pcd_fz_store_open(fz *z, bool *resumed)
{
    char path[4200];
    *resumed = false;
    if (mkdir_p(z->out_dir) != 0) {
        fprintf(stderr, "profcodec fuzz: cannot create %s: %s\n", z->out_dir, strerror(errno));
        return EXIT_USAGE;
    }
    static const char *const subs[] = { "findings", "queue", "cur" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", z->out_dir, subs[i]);
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "profcodec fuzz: cannot create %s: %s\n", path, strerror(errno));
            return EXIT_USAGE;
        }
    }
    size_t clen = 0, slen = 0, olen = 0;
    char *cmd = command_text(z, &clen);
    snprintf(path, sizeof path, "%s/state", z->out_dir);
    char *state = read_all(z->al, path, &slen);
    snprintf(path, sizeof path, "%s/command", z->out_dir);
    char *old = read_all(z->al, path, &olen);
    int rc = 0;
    if (state) {
        if (strncmp(state, "profcodec-fuzz 1\n", 17) != 0) {
            fprintf(stderr, "profcodec fuzz: %s/state is not a profcodec fuzz state; choose another -o\n", z->out_dir);
            rc = EXIT_USAGE;
        } else if (z->replay_dir) {
            load_state(z, state);
            load_findings(z);
        } else if (!old || olen != clen || memcmp(old, cmd, clen) != 0) {
            fprintf(stderr,
                    "profcodec fuzz: %s holds a campaign of another command (%s/command); resume it with that "
                    "command, or choose another -o\n",
                    z->out_dir, z->out_dir);
            rc = EXIT_USAGE;
        } else {
            *resumed = true;
            load_state(z, state);
            load_findings(z);
            load_queue(z);
            load_behaviours(z);
        }
    } else if (cmd && !z->replay_dir) {
        if (pcd_fz_write_file(path, cmd, clen) != 0) {
            fprintf(stderr, "profcodec fuzz: cannot write %s: %s\n", path, strerror(errno));
            rc = EXIT_USAGE;
        }
    }
    pcd_alloc_sized_free(z->al, cmd);
    pcd_alloc_sized_free(z->al, state);
    pcd_alloc_sized_free(z->al, old);
    snprintf(z->cur_dir, sizeof z->cur_dir, "%s/cur", z->out_dir);
    return rc;
}
