/* replay.c: runs a fuzz harness over files and directories without libFuzzer
 * (the regression driver make test uses for corpora and tests/regress inputs).
 * usage: replay_NAME [--share N] [--max-size BYTES] PATH...: --share N (N > 1) replays, in the
 * paths after it, the files whose name hashes to 0 modulo N (a fixed share, the same on every
 * machine; make test's sizing of the large fuzz corpora under the sanitizers); --max-size leaves
 * the files over BYTES in the paths after it (a real file whose every conversion under ASan is
 * most of the replay: Tachyon's 299 KB workload_all_zstd.bin, 10.7 of 20 s of CPU); --share 1
 * and PCD_TEST_LONG=1 (make test-long) replay every file. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzzlib.h"

static unsigned long files, skipped, too_big;
static unsigned long share = 1;
static long long max_size = -1;

/* FNV-1a of a file's name: which share it is in */
static unsigned long name_hash(const char *name)
{
    unsigned long h = 1469598103934665603ul;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 1099511628211ul;
    return h;
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fclose(f);
        free(buf);
        fprintf(stderr, "%s: cannot read\n", path);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    files++;
    return 0;
}

static int run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        perror(path);
        return 1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (max_size >= 0 && (long long)st.st_size > max_size) {
            too_big++;
            return 0;
        }
        return run_file(path);
    }
    DIR *d = opendir(path);
    if (!d) {
        perror(path);
        return 1;
    }
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        size_t len = strlen(e->d_name);
        if (len > 3 && strcmp(e->d_name + len - 3, ".md") == 0) continue; /* notes, not inputs */
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
        if (share > 1 && e->d_type != DT_DIR && name_hash(e->d_name) % share != 0) {
            skipped++;
            continue;
        }
        rc |= run_path(sub);
    }
    closedir(d);
    return rc;
}

int main(int argc, char **argv)
{
    int rc = 0;
    const char *long_env = getenv("PCD_TEST_LONG");
    int full = long_env && strcmp(long_env, "0") != 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--share") == 0 && i + 1 < argc) {
            share = full ? 1 : strtoul(argv[++i], NULL, 10);
            if (share < 1) share = 1;
            continue;
        }
        if (strcmp(argv[i], "--max-size") == 0 && i + 1 < argc) {
            max_size = full ? -1 : strtoll(argv[++i], NULL, 10);
            continue;
        }
        rc |= run_path(argv[i]);
    }
    if (skipped || too_big)
        printf("replayed %lu inputs (sized for CI: %lu more in the fuzz corpora and %lu over --max-size under "
               "PCD_TEST_LONG=1)\n", files, skipped, too_big);
    else
        printf("replayed %lu inputs\n", files);
    return rc;
}
