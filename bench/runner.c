/* runner.c: runs a command N times and prints the median and best wall time, the median CPU
 * time (user + system, from wait4: steadier than wall time on a shared machine) and the largest
 * peak resident memory, as one line of key=value pairs.
 * usage: pcd_bench_runner N command args...     (the command's stdout goes to /dev/null) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: pcd_bench_runner N command [args...]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    if (n < 1 || n > 1000) n = 5;
    double *t = calloc((size_t)n, sizeof *t), *cpu = calloc((size_t)n, sizeof *cpu);
    long max_rss = 0;
    int status_all = 0;
    for (int i = 0; i < n; i++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        pid_t pid = fork();
        if (pid == 0) {
            int fd = open("/dev/null", O_WRONLY);
            dup2(fd, 1);
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int status;
        struct rusage ru;
        wait4(pid, &status, 0, &ru);
        clock_gettime(CLOCK_MONOTONIC, &b);
        t[i] = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
        cpu[i] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
        if (ru.ru_maxrss > max_rss) max_rss = ru.ru_maxrss;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) status_all = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    }
    qsort(t, (size_t)n, sizeof *t, cmp);
    qsort(cpu, (size_t)n, sizeof *cpu, cmp);
    printf("median=%.4f best=%.4f runs=%d max_rss_kb=%ld exit=%d cpu=%.4f\n", t[n / 2], t[0], n, max_rss, status_all,
           cpu[n / 2]);
    free(t);
    free(cpu);
    return 0;
}
