/* cli/cmd_info.c: `profcodec info`: what a file holds (records by kind, the format's summary). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

/* ---- info ----------------------------------------------------------------------- */

static const char info_help[] =
    "usage: profcodec info FILE [--json] [--all] [--format NAME[:VERSION]]\n\n"
    "Detects the format by its magic (or takes --format) and prints the format,\n"
    "version, record counts by kind, and what the format's records say: time\n"
    "span, streams, metadata. Damage stops the count and is reported (exit 1);\n"
    "--all skips damaged records as validate --all does and counts the rest.\n";

/* What info keeps while counting: records by kind (in order of first appearance) and the
 * format's own summary. */
typedef struct info_count {
    cli *c;
    bool progress;            /* on a terminal, not --quiet: a progress line */
    void *ictx;
    void (*record)(void *ictx, const pcd_record *rec); /* the summary's, NULL without one */
    const char *kinds[64];
    uint64_t counts[64];
    size_t nk;
    uint64_t records;
    /* the count index of each case of the last union type seen (0: not yet known) */
    const pcd_type *case_type;
    uint8_t case_slot[64];
} info_count;

/* A record whose kind has no count slot yet (or is no union case): found by name. */
static PCD_COLD void info_count_slow(info_count *ic, const pcd_record *rec)
{
    const pcd_type *t = rec->type;
    uint32_t w = t->is_union && rec->data ? *(const uint32_t *)rec->data : UINT32_MAX;
    const char *k = pcd_record_kind(rec);
    size_t j = 0, nk = ic->nk;
    /* names come from the descriptor tables: the same pointer, mostly */
    while (j < nk && ic->kinds[j] != k) j++;
    if (j == nk)
        for (j = 0; j < nk && strcmp(ic->kinds[j], k) != 0; j++) {}
    if (j == nk && nk < 64) {
        ic->kinds[nk] = k;
        ic->counts[nk] = 0;
        ic->nk = ++nk;
    }
    if (j < nk) {
        ic->counts[j]++;
        if (w < 64 && w < t->n_fields) {
            if (t != ic->case_type) {
                ic->case_type = t;
                memset(ic->case_slot, 0, sizeof ic->case_slot);
            }
            ic->case_slot[w] = (uint8_t)(j + 1);
        }
    }
}

static pcd_status info_one(void *ud, const pcd_record *rec)
{
    info_count *ic = ud;
    if (PCD_UNLIKELY(ic->progress)) cli_progress(ic->c, rec->offset);
    if (PCD_UNLIKELY(rec->depth == 0)) {
        if (ic->record) ic->record(ic->ictx, rec); /* the root: header fields */
        return PCD_OK;
    }
    ic->records++;
    /* the common case: a case of the union type counted before (its slot is known) */
    uint32_t w;
    if (PCD_LIKELY(rec->type == ic->case_type && rec->data && (w = *(const uint32_t *)rec->data) < 64 &&
                   ic->case_slot[w]))
        ic->counts[ic->case_slot[w] - 1]++;
    else
        info_count_slow(ic, rec);
    if (ic->record) ic->record(ic->ictx, rec);
    return PCD_OK;
}

int cmd_info(cli *c, int argc, char **argv)
{
    bool json = false;
    static const struct option lo[] = {
        { "json", no_argument, 0, OPT_JSON }, { "format", required_argument, 0, OPT_FORMAT },
        { "all", no_argument, 0, OPT_ALL }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    bool all = false;
    uint64_t damaged_places = 0;
    while ((o = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
        if (o == OPT_ALL) all = true;
        else if (o == OPT_JSON) json = true;
        else if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'h') { fputs(info_help, stdout); return 0; }
        else { fputs(info_help, stderr); return EXIT_USAGE; }
    }
    if (optind != argc - 1) {
        fputs(info_help, stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    cli_src src;
    int rc = cli_open(c, &src, path, false);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    const pcd_ext *ext = pcd_ext_find(src.f->name);
    void *ictx = NULL;
    if (ext && ext->info) {
        ictx = cli_zalloc(c, 1, ext->info->ctx_size);
        if (ictx) ext->info->init(ictx, &c->al);
        pcd_reader_set_count_only(&src.r, ext->info->count_only); /* arrays it only counts */
    }
    info_count *ic = cli_zalloc(c, 1, sizeof *ic);
    if (!ic || (ext && ext->info && !ictx)) {
        cli_free(c, ic);
        cli_free(c, ictx);
        cli_close(&src);
        fprintf(stderr, "profcodec: out of memory (raise --max-memory)\n");
        return EXIT_USAGE;
    }
    ic->c = c;
    ic->progress = c->tty && !c->quiet;
    ic->ictx = ictx;
    ic->record = ictx ? ext->info->record : NULL;
    pcd_error damage;
    bool damaged = false;
    pcd_record rec;
    for (;;) {
        /* the fast path takes runs of plain records; next() does the rest */
        uint64_t k = 0;
        pcd_status st = pcd_reader_decode_run(&src.r, 1u << 16, &k, info_one, ic);
        if (st == PCD_OK) st = pcd_reader_next(&src.r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            if (!damaged) damage = *pcd_reader_error(&src.r);
            damaged = true;
            damaged_places++;
            if (all) {
                cli_report(c, path, pcd_reader_error(&src.r));
                if (pcd_reader_recover(&src.r, NULL) == PCD_OK) continue;
            }
            break;
        }
        info_one(ic, &rec);
    }
    const char *const *kinds = ic->kinds;
    const uint64_t *counts = ic->counts;
    size_t nk = ic->nk;
    uint64_t records = ic->records;
    cli_progress_done(c);
    /* damage only what sits above the bytes sees (a unit of records cut short) */
    if (!damaged && ictx && ext->info->damaged && ext->info->damaged(ictx, &damage)) damaged = true;
    uint64_t size = src.in.is_regular ? src.in.size : src.in.bytes_read;
    if (json) {
        outbuf ob;
        if (outbuf_open(c, &ob, "-") == 0) {
            pcd_sink *s = &ob.sink;
            char buf[256];
            pcd_json_raw(s, "{\"file\":");
            pcd_json_text(s, (const uint8_t *)path, strlen(path));
            int n = snprintf(buf, sizeof buf, ",\"size\":%" PRIu64 ",\"format\":\"%s\",\"version\":\"%s\",\"title\":",
                             size, src.f->name, src.f->version);
            pcd_sink_put(s, buf, (size_t)n);
            pcd_json_text(s, (const uint8_t *)src.f->title, strlen(src.f->title));
            n = snprintf(buf, sizeof buf, ",\"valid\":%s,\"records\":{\"total\":%" PRIu64 ",\"by_kind\":{",
                         damaged ? "false" : "true", records);
            pcd_sink_put(s, buf, (size_t)n);
            for (size_t j = 0; j < nk; j++) {
                n = snprintf(buf, sizeof buf, "%s\"%s\":%" PRIu64, j ? "," : "", kinds[j], counts[j]);
                pcd_sink_put(s, buf, (size_t)n);
            }
            pcd_json_raw(s, "}}");
            if (damaged) {
                char msg[1024];
                pcd_error_format(&damage, msg, sizeof msg);
                n = snprintf(buf, sizeof buf, ",\"damaged_places\":%" PRIu64 ",\"damage\":{\"offset\":%" PRIu64 ",\"message\":",
                             damaged_places, damage.offset);
                pcd_sink_put(s, buf, (size_t)n);
                pcd_json_text(s, (const uint8_t *)msg, strlen(msg));
                pcd_json_raw(s, "}");
            }
            if (ictx && ext->info->json) {
                pcd_json_raw(s, ",\"summary\":{");
                ext->info->json(ictx, s);
                pcd_json_raw(s, "}");
            }
            pcd_json_raw(s, "}\n");
            if (outbuf_commit(&ob)) rc = EXIT_USAGE;
        }
    } else {
        printf("file:        %s (%" PRIu64 " bytes)\n", path, size);
        printf("format:      %s %s (%s)\n", src.f->name, src.f->version, src.f->title);
        printf("records:     %" PRIu64, records);
        for (size_t j = 0; j < nk; j++) printf("%s%s %" PRIu64, j ? ", " : " (", kinds[j], counts[j]);
        printf("%s\n", nk ? ")" : "");
        if (ictx) ext->info->text(ictx, stdout);
        if (damaged) {
            char msg[1024];
            pcd_error_format(&damage, msg, sizeof msg);
            printf("damage:      %s", msg);
            if (damaged_places > 1) printf(" (and %" PRIu64 " more damaged places)", damaged_places - 1);
            printf("\n");
        }
    }
    if (damaged) {
        if (!all) cli_report(c, path, &damage);
        rc = EXIT_INVALID;
    }
    if (ictx) {
        if (ext->info->fini) ext->info->fini(ictx);
        cli_free(c, ictx);
    }
    cli_free(c, ic);
    cli_close(&src);
    return rc;
}
