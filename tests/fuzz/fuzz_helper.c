/* fuzz_helper.c: a program the process runner of `profcodec fuzz` is tested on (test_fuzz_parts):
 * it does what its first argument says. usage: fuzz_helper exit N | segv | abort | sleep S |
 * alloc MB | spam KB | cat FILE | child-sleep S */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) return 100;
    const char *m = argv[1];
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    if (strcmp(m, "exit") == 0) {
        fprintf(stderr, "exiting with %ld\n", n);
        return (int)n;
    }
    if (strcmp(m, "segv") == 0) {
        fflush(NULL);
        raise(SIGSEGV);
        return 101;
    }
    if (strcmp(m, "abort") == 0) abort();
    if (strcmp(m, "sleep") == 0) {
        sleep((unsigned)n);
        return 0;
    }
    if (strcmp(m, "child-sleep") == 0) { /* a child that keeps the pipes open */
        if (fork() == 0) sleep((unsigned)n);
        return 0;
    }
    if (strcmp(m, "alloc") == 0) { /* touches n MB, a MB at a time, slowly enough to be seen */
        for (long i = 0; i < n; i++) {
            char *p = malloc(1 << 20);
            if (!p) return 102;
            memset(p, 1, 1 << 20);
            if (i % 16 == 0) usleep(2000);
        }
        return 0;
    }
    if (strcmp(m, "spam") == 0) { /* n kB on stderr, then a last line */
        char line[1024];
        memset(line, 'x', sizeof line - 1);
        line[sizeof line - 1] = '\n';
        for (long i = 0; i < n; i++) fwrite(line, 1, sizeof line, stderr);
        fprintf(stderr, "the last line\n");
        return 0;
    }
    if (strcmp(m, "cat") == 0) { /* the input (from {} or standard input) to standard output */
        FILE *f = argc > 2 ? fopen(argv[2], "rb") : stdin;
        if (!f) return 103;
        char buf[4096];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, k, stdout);
        return 0;
    }
    return 100;
}
