/* cli/fuzz_proc.c: running a reader under test; see fuzz_proc.h. */
#include "cli/fuzz_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- capture: a head, then a ring of the latest bytes ------------------------------------ */

static int cap_init(pcd_fz_capture *c, size_t cap, pcd_alloc *al)
{
    memset(c, 0, sizeof *c);
    if (cap < 64) cap = 64;
    c->cap = cap;
    c->buf = pcd_alloc_sized(al, cap);
    c->lin_cap = cap + 128;
    c->lin = pcd_alloc_sized(al, c->lin_cap);
    return c->buf && c->lin ? 0 : -1;
}

static void cap_reset(pcd_fz_capture *c)
{
    c->len = 0;
    c->ring_at = 0;
    c->total = 0;
}

static void cap_add(pcd_fz_capture *c, const char *p, size_t n)
{
    size_t head = c->cap / 2, ring = c->cap - head;
    c->total += n;
    if (c->len < head) {
        size_t k = head - c->len < n ? head - c->len : n;
        memcpy(c->buf + c->len, p, k);
        c->len += k;
        p += k;
        n -= k;
    }
    /* c->len counts the head plus what the ring holds (at most ring) */
    while (n) {
        size_t k = ring - c->ring_at < n ? ring - c->ring_at : n;
        memcpy(c->buf + head + c->ring_at, p, k);
        c->ring_at = (c->ring_at + k) % ring;
        if (c->len < c->cap) c->len = c->len + k > c->cap ? c->cap : c->len + k;
        p += k;
        n -= k;
    }
}

/* The text kept, NUL-terminated: the head, and the tail after a marker when bytes were lost. */
static size_t cap_text(pcd_fz_capture *c, char **out)
{
    size_t head = c->cap / 2, ring = c->cap - head, n = 0;
    size_t h = c->len < head ? c->len : head;
    memcpy(c->lin, c->buf, h);
    n = h;
    size_t in_ring = c->len - h;
    if (in_ring) {
        uint64_t lost = c->total - c->len;
        if (lost) n += (size_t)snprintf(c->lin + n, 128, "\n[... %llu bytes not kept ...]\n", (unsigned long long)lost);
        if (in_ring == ring) { /* full: oldest at ring_at */
            memcpy(c->lin + n, c->buf + head + c->ring_at, ring - c->ring_at);
            n += ring - c->ring_at;
            memcpy(c->lin + n, c->buf + head, c->ring_at);
            n += c->ring_at;
        } else {
            memcpy(c->lin + n, c->buf + head, in_ring);
            n += in_ring;
        }
    }
    c->lin[n] = 0;
    /* NUL bytes as '?': the text is searched as a C string (reports, regexes) */
    for (size_t i = 0; i < n; i++)
        if (!c->lin[i]) c->lin[i] = '?';
    *out = c->lin;
    return n;
}

/* ---- the runner ---------------------------------------------------------------------------- */

int pcd_fz_runner_init(pcd_fz_runner *r, size_t capture, pcd_alloc *al)
{
    memset(r, 0, sizeof *r);
    r->al = al;
    if (cap_init(&r->out, capture, al) || cap_init(&r->err, capture, al)) return -1;
    /* pidfd_open (Linux 5.3): the target's end is one more descriptor to poll */
    long fd = syscall(SYS_pidfd_open, (pid_t)getpid(), 0);
    r->pidfd_ok = fd >= 0;
    if (fd >= 0) close((int)fd);
    return 0;
}

void pcd_fz_runner_free(pcd_fz_runner *r)
{
    pcd_alloc_sized_free(r->al, r->out.buf);
    pcd_alloc_sized_free(r->al, r->out.lin);
    pcd_alloc_sized_free(r->al, r->err.buf);
    pcd_alloc_sized_free(r->al, r->err.lin);
    pcd_alloc_sized_free(r->al, r->argv);
    pcd_alloc_sized_free(r->al, r->argbuf);
    memset(r, 0, sizeof *r);
}

bool pcd_fz_cmd_init(pcd_fz_cmd *c, int argc, char **argv)
{
    c->argc = argc;
    c->argv = argv;
    c->on_stdin = true;
    for (int i = 0; i < argc; i++)
        if (strstr(argv[i], "{}")) c->on_stdin = false;
    return !c->on_stdin;
}

/* argv with every "{}" replaced by path, in r->argv (pointers into r->argbuf). */
static int expand(pcd_fz_runner *r, const pcd_fz_cmd *cmd, const char *path)
{
    size_t need = 0, pl = strlen(path);
    for (int i = 0; i < cmd->argc; i++) {
        need += strlen(cmd->argv[i]) + 1;
        for (const char *s = cmd->argv[i]; (s = strstr(s, "{}")); s += 2) need += pl;
    }
    if (need > r->argbuf_cap) {
        char *b = pcd_alloc_sized_resize(r->al, r->argbuf, need);
        if (!b) return -1;
        r->argbuf = b;
        r->argbuf_cap = need;
    }
    pcd_alloc_sized_free(r->al, r->argv);
    r->argv = pcd_fz_zalloc(r->al, (size_t)cmd->argc + 1, sizeof *r->argv);
    if (!r->argv) return -1;
    char *o = r->argbuf;
    for (int i = 0; i < cmd->argc; i++) {
        r->argv[i] = o;
        for (const char *s = cmd->argv[i]; *s;) {
            if (s[0] == '{' && s[1] == '}') {
                memcpy(o, path, pl);
                o += pl;
                s += 2;
            } else {
                *o++ = *s++;
            }
        }
        *o++ = 0;
    }
    return 0;
}

/* Resident bytes of pid and its descendants (a few levels: a wrapper script and its reader). */
static uint64_t rss_of(pid_t pid, int depth)
{
    char path[64], buf[4096];
    uint64_t total = 0;
    snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
        buf[n] = 0;
        unsigned long long size = 0, res = 0;
        if (sscanf(buf, "%llu %llu", &size, &res) == 2) total += (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
    }
    if (depth >= 3) return total;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return total;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return total;
    buf[n] = 0;
    for (char *s = buf, *e; *s; s = e) {
        long k = strtol(s, &e, 10);
        if (e == s) break;
        if (k > 0) total += rss_of((pid_t)k, depth + 1);
    }
    return total;
}

/* CPU seconds of pid and its descendants so far (user + system, children waited for included). */
static double cpu_of(pid_t pid, int depth)
{
    char path[64], buf[4096];
    double total = 0;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n > 0) {
        buf[n] = 0;
        /* after the command's name in parentheses: state, then fields 4..; utime is the 14th */
        const char *p = strrchr(buf, ')');
        unsigned long long v[4] = { 0 };
        if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                        &v[3]) == 4)
            total += (double)(v[0] + v[1] + v[2] + v[3]) / (double)sysconf(_SC_CLK_TCK);
    }
    if (depth >= 3) return total;
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return total;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return total;
    buf[n] = 0;
    for (char *s = buf, *e; *s; s = e) {
        long k = strtol(s, &e, 10);
        if (e == s) break;
        if (k > 0) total += cpu_of((pid_t)k, depth + 1);
    }
    return total;
}

static void drain(int *fd, pcd_fz_capture *c)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n > 0) {
            cap_add(c, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) {
            close(*fd);
            *fd = -1;
        }
        return;
    }
}

/* In the child: never returns. */
static void child(pcd_fz_runner *r, const pcd_fz_cmd *cmd, const char *path, int out_w, int err_w, int exec_w)
{
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    struct rlimit no_core = { 0, 0 };
    setrlimit(RLIMIT_CORE, &no_core);
    int in = open(cmd->on_stdin ? path : "/dev/null", O_RDONLY);
    if (in < 0 || dup2(in, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0) {
        int e = errno;
        if (write(exec_w, &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    execvp(r->argv[0], r->argv);
    int e = errno;
    if (write(exec_w, &e, sizeof e) < 0) _exit(127);
    _exit(127);
}

int pcd_fz_runner_run(pcd_fz_runner *r, const pcd_fz_cmd *cmd, const char *path, const pcd_fz_limits *lim, pcd_fz_run *res,
                  volatile sig_atomic_t *stop)
{
    memset(res, 0, sizeof *res);
    cap_reset(&r->out);
    cap_reset(&r->err);
    if (expand(r, cmd, path) != 0) return -1;
    int po[2], pe[2], px[2];
    if (pipe2(po, O_CLOEXEC) != 0) return -1;
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]), close(po[1]);
        return -1;
    }
    if (pipe2(px, O_CLOEXEC) != 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return -1;
    }
    fflush(NULL);
    double t0 = now_s();
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]), close(px[0]), close(px[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) child(r, cmd, path, po[1], pe[1], px[1]);
    setpgid(pid, pid); /* also done in the child: whichever runs first */
    r->child = pid;
    close(po[1]);
    close(pe[1]);
    close(px[1]);
    /* did it start? the exec pipe closes on exec, or carries errno */
    int exec_errno = 0;
    ssize_t xn;
    do xn = read(px[0], &exec_errno, sizeof exec_errno);
    while (xn < 0 && errno == EINTR);
    close(px[0]);
    fcntl(po[0], F_SETFL, O_NONBLOCK);
    fcntl(pe[0], F_SETFL, O_NONBLOCK);
    int pidfd = r->pidfd_ok ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
    double deadline = lim->timeout_s > 0 ? t0 + lim->timeout_s : 0, kill_at = 0, last_rss = t0;
    bool timed_out = false, over_memory = false, reaped = false, killed_by_us = false;
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    double reaped_at = 0;
    while (po[0] >= 0 || pe[0] >= 0 || !reaped) {
        double t = now_s();
        if (!reaped) {
            pid_t w = wait4(pid, &status, WNOHANG, &ru);
            if (w == pid) {
                reaped = true;
                reaped_at = t;
                r->child = 0;
                /* what is left of its group (daemons holding the pipes) goes now */
                kill(-pid, SIGKILL);
            }
        }
        if (reaped && t - reaped_at > 0.5) break; /* pipes held open by someone else */
        if (!reaped && stop && *stop && !killed_by_us) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            killed_by_us = true;
        }
        if (!reaped && !timed_out && deadline && t >= deadline) {
            /* a target that had little of the CPU (a loaded machine, or one blocked on I/O) gets
             * more time, up to 4 time limits, before it counts as hung */
            double cpu = cpu_of(pid, 0);
            if (cpu < 0.25 * lim->timeout_s && t - t0 < 4 * lim->timeout_s) {
                deadline = t + (lim->timeout_s - cpu > 0.05 ? lim->timeout_s - cpu : 0.05);
                if (deadline > t0 + 4 * lim->timeout_s) deadline = t0 + 4 * lim->timeout_s;
                continue;
            }
            timed_out = true;
            if (lim->hang_signal) {
                kill(-pid, lim->hang_signal);
                kill_at = t + (lim->hang_grace_s > 0 ? lim->hang_grace_s : 1.0);
            } else {
                kill_at = t;
            }
        }
        if (!reaped && kill_at && t >= kill_at && !killed_by_us) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            killed_by_us = true;
        }
        if (!reaped && lim->rss_limit && !over_memory && t - last_rss >= 0.02) {
            last_rss = t;
            if (rss_of(pid, 0) > lim->rss_limit) {
                over_memory = true;
                kill(-pid, SIGKILL);
                kill(pid, SIGKILL);
                killed_by_us = true;
            }
        }
        struct pollfd pf[3];
        int np = 0;
        if (po[0] >= 0) pf[np++] = (struct pollfd){ po[0], POLLIN, 0 };
        if (pe[0] >= 0) pf[np++] = (struct pollfd){ pe[0], POLLIN, 0 };
        if (!reaped && pidfd >= 0) pf[np++] = (struct pollfd){ pidfd, POLLIN, 0 };
        int wait_ms = reaped ? 20 : (pidfd >= 0 ? 20 : 2);
        if (!reaped && deadline && !timed_out) {
            double left = (deadline - t) * 1000.0;
            if (left < wait_ms) wait_ms = left < 0 ? 0 : (int)left + 1;
        }
        if (np == 0) {
            if (reaped) break;
            struct timespec ts = { 0, 2000000 };
            nanosleep(&ts, NULL);
            continue;
        }
        int k = poll(pf, (nfds_t)np, wait_ms);
        if (k < 0 && errno != EINTR) break;
        if (po[0] >= 0) drain(&po[0], &r->out);
        if (pe[0] >= 0) drain(&pe[0], &r->err);
    }
    if (po[0] >= 0) close(po[0]);
    if (pe[0] >= 0) close(pe[0]);
    if (pidfd >= 0) close(pidfd);
    if (!reaped) { /* gave up on the pipes before the end: should not happen, but never leave it */
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        wait4(pid, &status, 0, &ru);
        r->child = 0;
    }
    res->wall_s = now_s() - t0;
    res->max_rss = (uint64_t)ru.ru_maxrss * 1024u;
    res->out_len = cap_text(&r->out, &res->out);
    res->err_len = cap_text(&r->err, &res->err);
    res->out_total = r->out.total;
    res->err_total = r->err.total;
    if (xn == (ssize_t)sizeof exec_errno) {
        res->end = FZ_NOEXEC;
        res->code = exec_errno;
    } else if (over_memory || (lim->rss_limit && res->max_rss > lim->rss_limit)) {
        res->end = FZ_MEMORY;
        res->code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
    } else if (timed_out) {
        res->end = FZ_TIMEOUT;
        res->code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        res->end = FZ_SIGNALED;
        res->code = WTERMSIG(status);
    } else {
        res->end = FZ_EXITED;
        res->code = WEXITSTATUS(status);
    }
    return 0;
}

const char *pcd_fz_signal_name(int sig)
{
    static char other[24];
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS: return "SIGSYS";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGHUP: return "SIGHUP";
    case SIGUSR1: return "SIGUSR1";
    case SIGUSR2: return "SIGUSR2";
    default: snprintf(other, sizeof other, "signal %d", sig); return other;
    }
}
