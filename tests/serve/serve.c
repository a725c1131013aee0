/* serve.c: pcd-serve, the sanitize tree's way to run many `profcodec` command lines in one ASan
 * process (docs/testing.md, "One ASan process per test").
 *
 *   pcd-serve [--plant-leak N] --real PROFCODEC -- COMMAND [ARGS...]
 *
 * runs COMMAND (a test script) with PCD_SERVE_SOCKET and PCD_SERVE_REAL in its environment; the
 * test runs pcd-serve-client (client.c) where it ran profcodec, and the client hands each command
 * line here, with its working directory, environment and standard files. This process runs it
 * with pcd_cli_main, the CLI's whole main, one at a time, and answers the exit status. When
 * COMMAND ends, so does this process, with COMMAND's status; LeakSanitizer then checks, once,
 * what every run left behind (a leak of any run fails the test: the `serve` test
 * plants one with --plant-leak N, in the Nth run, and expects the report).
 *
 * What a run could leave for the next is reset here or in the CLI (cli_end): the standard files
 * and their stdio buffers and error flags, the working directory, the environment, SIGPIPE
 * (ignored during a run: a closed pipe is the CLI's write error, never the end of this process),
 * the signal handlers' tool and jansson's allocator (cli_end), getopt's position (each command
 * sets optind). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "serve_proto.h"

extern char **environ;

static int err_fd = -1;   /* this process's own stderr, for its own messages */

static void say(const char *fmt, const char *a, const char *b)
{
    char msg[1024];
    int n = snprintf(msg, sizeof msg, fmt, a, b);
    if (n > 0 && write(err_fd, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1) < 0) { /* nothing to do */ }
}

static int read_full(int fd, void *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, (char *)p + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        got += (size_t)r;
    }
    return 0;
}

/* A leak planted on purpose in one run (--plant-leak): a block whose only pointer is dropped
 * inside the run, as a leak of the CLI's would be. */
static __attribute__((noinline)) void plant_leak(void)
{
    void *volatile p = malloc(4321);
    if (p) memset(p, 0x5a, 4321);
    p = NULL;
}

static void serve_one(int conn, unsigned long run, unsigned long plant)
{
    int saved[3] = {-1, -1, -1};
    int fds[3] = {-1, -1, -1};
    char *req = NULL;
    char **args = NULL, **envs = NULL;
    int32_t status = 125;

    /* the first bytes, with the three files */
    uint32_t len = 0;
    char ctl[CMSG_SPACE(3 * sizeof(int))];
    struct iovec iov = {&len, sizeof len};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    ssize_t r;
    do r = recvmsg(conn, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL); while (r < 0 && errno == EINTR);
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    if (r != (ssize_t)sizeof len || !cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof fds)) {
        say("pcd-serve: a request without its files%s%s\n", "", "");
        goto done;
    }
    memcpy(fds, CMSG_DATA(cm), sizeof fds);
    if (len < 12 || len > PCD_SERVE_MAX_REQUEST || !(req = malloc((size_t)len + 1)) || read_full(conn, req, len) != 0) {
        say("pcd-serve: a short or oversized request%s%s\n", "", "");
        goto done;
    }
    req[len] = 0;
    char *p = req, *end = req + len;
    const char *cwd = p;
    p += strlen(p) + 1;
    uint32_t argc, envc;
    if (p + 4 > end) goto bad;
    memcpy(&argc, p, 4);
    p += 4;
    if (argc < 1 || argc > len || !(args = calloc((size_t)argc + 1, sizeof *args))) goto bad;
    for (uint32_t i = 0; i < argc; i++) {
        if (p >= end) goto bad;
        args[i] = p;
        p += strlen(p) + 1;
    }
    if (p + 4 > end) goto bad;
    memcpy(&envc, p, 4);
    p += 4;
    if (envc > len || !(envs = calloc((size_t)envc + 1, sizeof *envs))) goto bad;
    for (uint32_t i = 0; i < envc; i++) {
        if (p >= end) goto bad;
        envs[i] = p;
        p += strlen(p) + 1;
    }
    if (p != end) goto bad;

    /* the client's files, directory and environment, for this run only */
    fflush(stdout);
    fflush(stderr);
    for (int i = 0; i < 3; i++) {
        saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
        if (saved[i] < 0 || dup2(fds[i], i) < 0) {
            say("pcd-serve: cannot take the client's files: %s%s\n", strerror(errno), "");
            goto restore;
        }
    }
    __fpurge(stdin);
    clearerr(stdin);
    clearerr(stdout);
    clearerr(stderr);
    int here = open(".", O_PATH | O_CLOEXEC);
    if (here < 0 || chdir(cwd) != 0) {
        say("pcd-serve: cannot enter %s: %s\n", cwd, strerror(errno));
        if (here >= 0) close(here);
        goto restore;
    }
    char **env_before = environ;
    environ = envs;
    signal(SIGPIPE, SIG_IGN);
    if (run == plant) plant_leak();
    status = pcd_cli_main((int)argc, args);
    signal(SIGPIPE, SIG_IGN);
    fflush(stdout);
    fflush(stderr);
    environ = env_before;
    if (fchdir(here) != 0) say("pcd-serve: cannot go back: %s%s\n", strerror(errno), "");
    close(here);
restore:
    __fpurge(stdin);
    clearerr(stdin);
    clearerr(stdout);
    clearerr(stderr);
    for (int i = 0; i < 3; i++)
        if (saved[i] >= 0) {
            dup2(saved[i], i);
            close(saved[i]);
        }
    goto done;
bad:
    say("pcd-serve: a malformed request%s%s\n", "", "");
done:
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0) close(fds[i]);
    /* the client's files are closed here before it hears the status: a reader of its stdout
     * sees the end when the client exits */
    if (send(conn, &status, sizeof status, MSG_NOSIGNAL) != (ssize_t)sizeof status)
        say("pcd-serve: the client went away before its answer%s%s\n", "", "");
    free(envs);
    free(args);
    free(req);
}

int main(int argc, char **argv)
{
    const char *real = NULL;
    unsigned long plant = 0;
    int i = 1;
    for (; i < argc; i++) {
        if (strcmp(argv[i], "--real") == 0 && i + 1 < argc) real = argv[++i];
        else if (strcmp(argv[i], "--plant-leak") == 0 && i + 1 < argc) plant = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else break;
    }
    if (!real || i >= argc) {
        fprintf(stderr, "usage: pcd-serve [--plant-leak N] --real PROFCODEC -- COMMAND [ARGS...]\n");
        return 2;
    }
    err_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);

    char dir[] = "/tmp/pcd-serve.XXXXXX";
    if (!mkdtemp(dir)) {
        perror("pcd-serve: mkdtemp");
        return 2;
    }
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s/s", dir);
    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 64) != 0) {
        perror("pcd-serve: socket");
        rmdir(dir);
        return 2;
    }
    setenv("PCD_SERVE_SOCKET", a.sun_path, 1);
    setenv("PCD_SERVE_REAL", real, 1);

    pid_t child = fork();
    if (child < 0) {
        perror("pcd-serve: fork");
        return 2;
    }
    if (child == 0) {
        execvp(argv[i], argv + i);
        say("pcd-serve: %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    if (pidfd < 0) {
        perror("pcd-serve: pidfd_open");
        kill(child, SIGKILL);
        return 2;
    }
    unsigned long runs = 0;
    int st = 0;
    for (;;) {
        struct pollfd pf[2] = {{ls, POLLIN, 0}, {pidfd, POLLIN, 0}};
        int n = poll(pf, 2, -1);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            perror("pcd-serve: poll");
            break;
        }
        if (pf[0].revents & POLLIN) {
            int conn = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
            if (conn >= 0) {
                serve_one(conn, ++runs, plant);
                close(conn);
            }
            continue;  /* requests first: a finished test has sent all of its own */
        }
        if (pf[1].revents & POLLIN) break;
    }
    while (waitpid(child, &st, 0) < 0 && errno == EINTR) {}
    close(pidfd);
    close(ls);
    unlink(a.sun_path);
    rmdir(dir);
    char line[160];
    snprintf(line, sizeof line, "pcd-serve: %lu command lines ran in this process (LeakSanitizer checks them all at its exit)\n", runs);
    say("%s%s", line, "");
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return 2;
}
