/* measure.c: `hostile_measure OUT LIMIT CMD...` runs CMD (killed after LIMIT seconds) and writes
 * its exit status, peak RSS (kB) and CPU time (s) to OUT, for test_hostile. A process forked from
 * the test itself would count the test's own pages in its peak (Linux carries the pre-exec
 * high-water mark over), which grows with what the test has done; forked from this small fresh
 * process it counts only what CMD uses. Not instrumented: it is test plumbing, and an ASan
 * process per command (start-up, LeakSanitizer's scan at exit) is what it would cost. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
        alarm((unsigned)atoi(argv[2]));
        execv(argv[3], argv + 3);
        _exit(127);
    }
    int st = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {}
    FILE *o = fopen(argv[1], "w");
    if (!o) return 2;
    fprintf(o, "%d %ld %.6f\n", WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st), ru.ru_maxrss,
            (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
    return fclose(o) == 0 ? 0 : 2;
}
