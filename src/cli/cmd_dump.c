/* cli/cmd_dump.c: `profcodec dump`: every record as JSON Lines, lossless. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

/* ---- dump ------------------------------------------------------------------------- */

static const char dump_help[] =
    "usage: profcodec dump FILE [-o OUT] [--all] [--format NAME[:VERSION]]\n\n"
    "Writes one JSON object per record (JSON Lines), losslessly: the first line\n"
    "names the format and version (_format, _version), every other has \"_kind\" and\n"
    "\"_offset\" and the record's fields by name (keys starting with _ are never\n"
    "field names). 'profcodec encode' turns it back into identical bytes.\n"
    "On damage it writes every record before it, then a last line that says where and\n"
    "why it stopped ({\"_kind\":\"stopped\",\"_offset\":N,\"error\":...,\"bytes_not_read\":M}),\n"
    "reports the error and exits 1; 'encode' refuses such a dump unless given --partial.\n"
    "--all skips damaged records and writes {\"_kind\":\"damage\",...} lines for them.\n"
    "OUT is written atomically (default: standard output).\n";

/* The dump's last line when reading stopped at damage: where, why, how many records came
 * before it, and how many bytes of the input (from the damaged record, or the compressed
 * region it lies in, to the end) were not read; null when the input's size is not known
 * (a pipe, a gzip stream). `encode` refuses a dump that ends this way unless --partial. */
static pcd_status dump_stopped(pcd_sink *s, cli_src *src, const pcd_error *e, uint64_t records)
{
    char msg[1024], buf[160];
    pcd_error_format(e, msg, sizeof msg);
    int n = snprintf(buf, sizeof buf, "{\"_kind\":\"stopped\",\"_offset\":%" PRIu64 ",\"error\":", e->offset);
    PCD_TRY(pcd_sink_put(s, buf, (size_t)n));
    PCD_TRY(pcd_json_text(s, (const uint8_t *)msg, strlen(msg)));
    uint64_t size = 0;
    bool known = false;
    const uint8_t *whole;
    size_t whole_size;
    if (pcd_reader_input(&src->r, &whole, &whole_size)) {
        known = true; /* read whole: the (decompressed) stream the offsets count in */
        size = whole_size;
    } else if (!src->gz && src->in.is_regular) {
        known = true;
        size = src->in.size;
    }
    uint64_t at = e->region ? e->region_offset : e->offset;
    if (known && at <= size)
        n = snprintf(buf, sizeof buf, ",\"records\":%" PRIu64 ",\"bytes_not_read\":%" PRIu64 "}\n", records, size - at);
    else
        n = snprintf(buf, sizeof buf, ",\"records\":%" PRIu64 ",\"bytes_not_read\":null}\n", records);
    return pcd_sink_put(s, buf, (size_t)n);
}

int cmd_dump(cli *c, int argc, char **argv)
{
    bool all = false;
    const char *outname = NULL;
    static const struct option lo[] = {
        { "all", no_argument, 0, OPT_ALL }, { "format", required_argument, 0, OPT_FORMAT },
        { "output", required_argument, 0, 'o' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        if (o == OPT_ALL) all = true;
        else if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == 'h') { fputs(dump_help, stdout); return 0; }
        else { fputs(dump_help, stderr); return EXIT_USAGE; }
    }
    if (optind != argc - 1) {
        fputs(dump_help, stderr);
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    cli_src src;
    int rc = cli_open(c, &src, path, false);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    outbuf ob;
    rc = outbuf_open(c, &ob, out_to_stdout_ok(outname) ? "-" : outname);
    if (rc) {
        cli_close(&src);
        return rc;
    }
    pcd_record rec;
    uint64_t n_records = 0;
    bool damaged = false;
    bool live = !src.in.is_regular;
    pcd_status wst = PCD_OK;
    for (;;) {
        pcd_status st = pcd_reader_next(&src.r, &rec);
        if (st == PCD_END) break;
        if (st != PCD_OK) {
            const pcd_error *e = pcd_reader_error(&src.r);
            cli_progress_done(c);
            cli_report(c, path, e);
            damaged = true;
            if (all) {
                char msg[1024], buf[96];
                pcd_error_format(e, msg, sizeof msg);
                int n = snprintf(buf, sizeof buf, "{\"_kind\":\"damage\",\"_offset\":%" PRIu64 ",\"message\":", e->offset);
                wst = pcd_sink_put(&ob.sink, buf, (size_t)n);
                if (wst == PCD_OK) wst = pcd_json_text(&ob.sink, (const uint8_t *)msg, strlen(msg));
                if (wst == PCD_OK) wst = pcd_json_raw(&ob.sink, "}\n");
                if (wst == PCD_OK && pcd_reader_recover(&src.r, NULL) == PCD_OK) continue;
                if (wst == PCD_OK) wst = dump_stopped(&ob.sink, &src, e, n_records);
            } else {
                wst = dump_stopped(&ob.sink, &src, e, n_records);
            }
            break;
        }
        cli_progress(c, rec.offset);
        wst = pcd_json_record(&ob.sink, src.f, &rec);
        if (wst != PCD_OK) break;
        n_records++;
        if (live) {
            /* reading a pipe: hand each record on as soon as it is complete */
            wst = pcd_sink_flush(&ob.sink);
            if (wst != PCD_OK || fflush(ob.out.fp) != 0) break;
        }
    }
    cli_progress_done(c);
    if (wst != PCD_OK) {
        fprintf(stderr, "%s: cannot write the dump: %s\n", outname ? outname : "(stdout)", pcd_status_name(wst));
        outbuf_abort(&ob);
        cli_close(&src);
        return EXIT_USAGE;
    }
    rc = outbuf_commit(&ob);
    cli_close(&src);
    if (rc) return rc;
    return damaged ? EXIT_INVALID : 0;
}
