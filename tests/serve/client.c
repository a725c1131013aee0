/* client.c: pcd-serve-client, the sanitize tree's `profcodec` for the tests that pcd-serve runs
 * (tests/serve/serve.c): it hands its command line, working directory, environment and standard
 * files to the server, which runs them in its own process with the ASan CLI, and exits with the
 * server's answer. Built without the sanitizers: it is a few system calls, and starting an ASan
 * process (shadow memory, LeakSanitizer's scan at exit) is the cost it saves.
 *
 * It runs the real CLI (PCD_SERVE_REAL, exec) instead when there is no server (PCD_SERVE_SOCKET
 * unset or not answering), for `fuzz` (it forks and waits for children of its own), and when it
 * reads a pipe (stdin a FIFO or socket, and `-` or encode without a file: the writer may be a
 * command waiting for the server, which runs one command at a time). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "serve_proto.h"

extern char **environ;

static void run_real(char **argv)
{
    const char *real = getenv("PCD_SERVE_REAL");
    if (!real) {
        fprintf(stderr, "pcd-serve-client: PCD_SERVE_REAL is not set\n");
        exit(2);
    }
    argv[0] = (char *)real;
    execv(real, argv);
    fprintf(stderr, "pcd-serve-client: %s: %s\n", real, strerror(errno));
    exit(127);
}

static int reads_a_pipe(int argc, char **argv)
{
    struct stat st;
    if (fstat(0, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return 0;
    int encode = 0, files = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-") == 0 || strcmp(argv[i], "/dev/stdin") == 0) return 1;
        if (strcmp(argv[i], "encode") == 0) encode = 1;
        else if (encode && argv[i][0] != '-') files++;
    }
    return encode && files == 0;
}

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *s, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "pcd-serve-client: out of memory\n");
            exit(2);
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void put_u32(buf *b, uint32_t v) { put(b, &v, sizeof v); }
static void put_str(buf *b, const char *s) { put(b, s, strlen(s) + 1); }

int main(int argc, char **argv)
{
    const char *sock = getenv("PCD_SERVE_SOCKET");
    if (!sock || reads_a_pipe(argc, argv)) run_real(argv);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "fuzz") == 0) run_real(argv);  /* the command, or an argument: either way right */

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (fd < 0 || strlen(sock) >= sizeof a.sun_path) run_real(argv);
    strcpy(a.sun_path, sock);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) run_real(argv);

    buf b = {0};
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) run_real(argv);
    put_u32(&b, 0);
    put_str(&b, cwd);
    put_u32(&b, (uint32_t)argc);
    for (int i = 0; i < argc; i++) put_str(&b, argv[i]);
    uint32_t envc = 0;
    for (char **e = environ; *e; e++) envc++;
    put_u32(&b, envc);
    for (char **e = environ; *e; e++) put_str(&b, *e);
    uint32_t len = (uint32_t)(b.n - sizeof(uint32_t));
    if (b.n > PCD_SERVE_MAX_REQUEST) run_real(argv);
    memcpy(b.p, &len, sizeof len);

    /* the three standard files go with the first bytes */
    int fds[3] = {0, 1, 2};
    char ctl[CMSG_SPACE(sizeof fds)];
    memset(ctl, 0, sizeof ctl);
    struct iovec iov = {b.p, b.n};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(cm), fds, sizeof fds);
    ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL);
    if (w < 0) run_real(argv);  /* nothing of it reached the server */
    size_t off = (size_t)w;
    while (off < b.n) {
        w = send(fd, b.p + off, b.n - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            fprintf(stderr, "pcd-serve-client: the server went away: %s\n", strerror(errno));
            return 2;
        }
        off += (size_t)w;
    }
    int32_t status;
    size_t got = 0;
    while (got < sizeof status) {
        ssize_t r = recv(fd, (char *)&status + got, sizeof status - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) {
            fprintf(stderr, "pcd-serve-client: the server ended before answering (%s)\n",
                    r < 0 ? strerror(errno) : "it closed the connection");
            return 125;
        }
        got += (size_t)r;
    }
    return status;
}
