/* union_coverage.c: which union cases of each schema the real files in tests/data exercise.
 *
 * The cases come from the generated descriptors (every union type reachable from each
 * format's root and record types, nested ones included); the files from
 * tests/data/PROVENANCE (only those marked real count). Each real file is decoded whole,
 * going on past damaged records as `validate --all` does, and every decoded value is walked
 * through its descriptor, marking the case each union holds.
 *
 * Prints, for every format version, the cases no real file exercises. Fails when:
 *   - a format named with --require has an uncovered case that its allowlist
 *     (tests/data/<format>/uncovered-<version>.tsv: CASE, a tab, the reason) does not name,
 *     or the allowlist names a case that is covered after all, or one that does not exist;
 *   - PROVENANCE names a file that is missing, or a real file in a format this build lacks;
 *   - a file under tests/data that some format recognises is not in PROVENANCE.
 *
 * usage: union_coverage TESTDATA_DIR [--require NAME:VERSION]... */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "pcd.h"

/* ---- the cases ------------------------------------------------------------------------ */

typedef struct ucase {
    const pcd_format *f;
    const pcd_type *u;
    uint32_t index;
    uint64_t hits;
    const char *reason;       /* from the allowlist */
} ucase;

static ucase *cases;
static size_t n_cases, cap_cases;
static const pcd_type **seen;
static size_t n_seen, cap_seen;

static void *grow(void *p, size_t *cap, size_t elem)
{
    *cap = *cap ? *cap * 2 : 64;
    void *q = realloc(p, *cap * elem);
    if (!q) {
        fprintf(stderr, "union_coverage: out of memory\n");
        exit(2);
    }
    return q;
}

/* Every union type reachable from t (once per format). */
static void collect(const pcd_format *f, const pcd_type *t)
{
    if (!t) return;
    for (size_t i = 0; i < n_seen; i++)
        if (seen[i] == t) return;
    if (n_seen == cap_seen) seen = grow(seen, &cap_seen, sizeof *seen);
    seen[n_seen++] = t;
    if (t->is_union)
        for (uint32_t i = 0; i < t->n_fields; i++) {
            if (n_cases == cap_cases) cases = grow(cases, &cap_cases, sizeof *cases);
            cases[n_cases++] = (ucase){ f, t, i, 0, NULL };
        }
    for (uint32_t i = 0; i < t->n_fields; i++) collect(f, t->fields[i].type);
}

static ucase *find_case(const pcd_format *f, const pcd_type *u, uint32_t index)
{
    for (size_t i = 0; i < n_cases; i++)
        if (cases[i].f == f && cases[i].u == u && cases[i].index == index) return &cases[i];
    return NULL;
}

/* ---- walking decoded values ------------------------------------------------------------ */

static const pcd_format *cur_format;

static void walk(const pcd_type *t, const uint8_t *data);

static void walk_value(const pcd_field *fd, const uint8_t *base)
{
    if ((fd->flags & PCD_F_OPTIONAL) && !*(const bool *)(base + fd->present)) return;
    const uint8_t *at = base + fd->offset;
    switch (fd->kind) {
    case PCD_K_STRUCT:
    case PCD_K_UNION: walk(fd->type, at); break;
    case PCD_K_ARRAY:
        if (fd->elem_kind == PCD_K_STRUCT || fd->elem_kind == PCD_K_UNION) {
            const uint8_t *elems;
            size_t n;
            memcpy(&elems, at, sizeof elems);
            memcpy(&n, base + fd->aux, sizeof n);
            for (size_t i = 0; i < n; i++) walk(fd->type, elems + i * fd->type->size);
        }
        break;
    default: break;   /* scalars, strings, regions (their records come one by one) */
    }
}

static void walk(const pcd_type *t, const uint8_t *data)
{
    if (!t || !data) return;
    if (t->is_union) {
        uint32_t which;
        memcpy(&which, data, sizeof which);
        if (which >= t->n_fields) return;
        ucase *c = find_case(cur_format, t, which);
        if (c) c->hits++;
        walk_value(&t->fields[which], data);
        return;
    }
    for (uint32_t i = 0; i < t->n_fields; i++) walk_value(&t->fields[i], data);
}

/* ---- files ------------------------------------------------------------------------------ */

/* The whole file, gunzipped when it is gzip (zlib passes other files through). */
static uint8_t *slurp(const char *path, size_t *len)
{
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    size_t cap = 1 << 16, n = 0;
    uint8_t *b = malloc(cap);
    int got;
    while (b && (got = gzread(g, b + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap) b = grow(b, &cap, 1);
    }
    gzclose(g);
    *len = n;
    return b;
}

/* Decodes a whole file, marking cases; returns the records read, or -1 if it cannot start. */
static long read_file(const pcd_format *f, const char *path, int *damaged)
{
    size_t n;
    uint8_t *data = slurp(path, &n);
    if (!data) return -1;
    pcd_alloc al;
    pcd_alloc_init(&al, pcd_alloc_libc, NULL, (size_t)1 << 31);
    pcd_reader_opts o = { &al, NULL, 0, false, false };
    pcd_reader r;
    if (pcd_reader_open_buffer(&r, f, data, n, &o) != PCD_OK) {
        free(data);
        return -1;
    }
    cur_format = f;
    long records = 0;
    *damaged = 0;
    for (;;) {
        pcd_record rec;
        pcd_status st = pcd_reader_next(&r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            ++*damaged;
            uint64_t resume;
            if (pcd_reader_recover(&r, &resume) != PCD_OK) break;
            continue;
        }
        records++;
        walk(rec.type, rec.data);
    }
    pcd_reader_close(&r);
    free(data);
    return records;
}

/* Some format's magic names these first bytes. */
static const pcd_format *recognised(const char *path)
{
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    uint8_t head[512];
    int n = gzread(g, head, sizeof head);
    gzclose(g);
    if (n <= 0) return NULL;
    for (size_t i = 0; i < pcd_n_formats; i++)
        if (pcd_formats[i]->detect(head, (size_t)n) == 2) return pcd_formats[i];
    return NULL;
}

typedef struct entry {
    char path[512];
    bool real;
    char format[64];
} entry;

static entry *entries;
static size_t n_entries, cap_entries;
static int failures;

static void fail(const char *fmt, const char *a, const char *b)
{
    printf("FAIL: ");
    printf(fmt, a, b);
    printf("\n");
    failures++;
}

static bool listed(const char *rel)
{
    for (size_t i = 0; i < n_entries; i++)
        if (strcmp(entries[i].path, rel) == 0) return true;
    return false;
}

/* Every file under dir/rel that a format recognises must be listed. */
static void check_listed(const char *root, const char *rel)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char sub[1024], full[2048];
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        snprintf(full, sizeof full, "%s/%s", root, sub);
        struct stat st;
        if (stat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            check_listed(root, sub);
            continue;
        }
        const pcd_format *f = recognised(full);
        if (f && !listed(sub)) fail("%s: a %s file, not in tests/data/PROVENANCE", sub, f->name);
    }
    closedir(d);
}

static void read_provenance(const char *root)
{
    char path[1024], line[2048];
    snprintf(path, sizeof path, "%s/PROVENANCE", root);
    FILE *p = fopen(path, "r");
    if (!p) {
        fail("%s: cannot open%s", path, "");
        return;
    }
    while (fgets(line, sizeof line, p)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        entry e;
        char kind[32];
        memset(&e, 0, sizeof e);
        if (sscanf(line, "%511s %31s %63s", e.path, kind, e.format) != 3 ||
            (strcmp(kind, "real") != 0 && strcmp(kind, "crafted") != 0)) {
            fail("PROVENANCE: cannot read the line: %s%s", line, "");
            continue;
        }
        e.real = strcmp(kind, "real") == 0;
        if (n_entries == cap_entries) entries = grow(entries, &cap_entries, sizeof *entries);
        entries[n_entries++] = e;
    }
    fclose(p);
}

static const pcd_format *format_of(const char *spec)
{
    char name[64];
    snprintf(name, sizeof name, "%s", spec);
    char *colon = strchr(name, ':');
    if (!colon) return NULL;
    *colon = 0;
    return pcd_format_find(name, colon + 1);
}

/* The allowlist of a required format: marks reasons; bad lines fail. */
static void read_allowlist(const char *root, const pcd_format *f)
{
    char path[1024], line[2048];
    snprintf(path, sizeof path, "%s/%s/uncovered-%s.tsv", root, f->name, f->version);
    FILE *p = fopen(path, "r");
    if (!p) return;
    while (fgets(line, sizeof line, p)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        line[strcspn(line, "\n")] = 0;
        char *tab = strchr(line, '\t');
        if (!tab || !tab[1]) {
            fail("%s: a line without a reason: %s", path, line);
            continue;
        }
        *tab = 0;
        char *dot = strrchr(line, '.');
        ucase *c = NULL;
        for (size_t i = 0; dot && i < n_cases; i++)
            if (cases[i].f == f && strlen(cases[i].u->name) == (size_t)(dot - line) &&
                strncmp(cases[i].u->name, line, (size_t)(dot - line)) == 0 &&
                strcmp(cases[i].u->fields[cases[i].index].name, dot + 1) == 0)
                c = &cases[i];
        if (!c) {
            fail("%s: no such union case: %s", path, line);
            continue;
        }
        c->reason = strdup(tab + 1);
    }
    fclose(p);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: union_coverage TESTDATA_DIR [--require NAME:VERSION]...\n");
        return 2;
    }
    const char *root = argv[1];
    for (size_t i = 0; i < pcd_n_formats; i++) {
        n_seen = 0;
        const pcd_format *f = pcd_formats[i];
        collect(f, f->root);
        for (uint32_t k = 0; k < f->n_regions; k++) collect(f, f->regions[k]->record);
    }
    read_provenance(root);
    for (size_t i = 0; i < n_entries; i++) {
        char full[2048];
        snprintf(full, sizeof full, "%s/%s", root, entries[i].path);
        struct stat st;
        if (stat(full, &st) != 0) {
            fail("PROVENANCE: %s: %s", entries[i].path, strerror(errno));
            continue;
        }
        if (!entries[i].real) continue;
        const pcd_format *f = format_of(entries[i].format);
        if (!f) {
            fail("PROVENANCE: %s: a real file of %s, a format version this build lacks", entries[i].path,
                 entries[i].format);
            continue;
        }
        int damaged;
        long n = read_file(f, full, &damaged);
        if (n < 0) fail("%s: cannot read it as %s", entries[i].path, entries[i].format);
        else printf("read %s: %ld records%s\n", entries[i].path, n, damaged ? " (with damaged places)" : "");
    }
    check_listed(root, "");
    /* the required formats' allowlists */
    for (int a = 2; a + 1 < argc; a += 2) {
        if (strcmp(argv[a], "--require") != 0) {
            fprintf(stderr, "union_coverage: unknown argument %s\n", argv[a]);
            return 2;
        }
        const pcd_format *f = format_of(argv[a + 1]);
        if (!f) {
            fail("--require %s: no such format version%s", argv[a + 1], "");
            continue;
        }
        read_allowlist(root, f);
    }
    /* the report */
    for (size_t i = 0; i < pcd_n_formats; i++) {
        const pcd_format *f = pcd_formats[i];
        bool required = false;
        for (int a = 2; a + 1 < argc; a += 2)
            if (format_of(argv[a + 1]) == f) required = true;
        size_t total = 0, covered = 0;
        for (size_t k = 0; k < n_cases; k++)
            if (cases[k].f == f) total++, covered += cases[k].hits > 0;
        printf("%s %s: %zu of %zu union cases in real files%s\n", f->name, f->version, covered, total,
               required ? " (all required)" : "");
        for (size_t k = 0; k < n_cases; k++) {
            const ucase *c = &cases[k];
            if (c->f != f) continue;
            char nm[256];
            snprintf(nm, sizeof nm, "%s.%s", c->u->name, c->u->fields[c->index].name);
            if (c->hits && c->reason) {
                fail("%s: covered, but its allowlist says it cannot be: %s", nm, c->reason);
            } else if (!c->hits) {
                printf("  not covered: %s%s%s\n", nm, c->reason ? " -- " : "", c->reason ? c->reason : "");
                if (required && !c->reason) fail("%s %s", nm, "is in no real file, and the allowlist gives no reason");
            }
        }
    }
    printf("%s\n", failures ? "union_coverage: FAILED" : "union_coverage: ok");
    return failures ? 1 : 0;
}
