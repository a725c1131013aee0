/* cli/cmd_encode.c: `profcodec encode`: JSON Lines (or another form, --from) to the binary format. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "common/json_mem.h"
#include "common/lines.h"
#include "io/jsonl_read.h"

/* ---- encode ----------------------------------------------------------------------- */

static void encode_usage(FILE *out)
{
    fputs("usage: profcodec encode [IN.jsonl|-] -o OUT [--format NAME[:VERSION]] [--endian big|little]\n"
          "                        [--partial]\n"
          "       profcodec encode --from FORM [IN|-] -o OUT\n\n"
          "Turns JSON Lines (as written by 'profcodec dump') back into the binary\n"
          "format named on its first line (or by --format). Sizes, counts and offsets\n"
          "are computed, not read. OUT is written atomically: on any error nothing is\n"
          "left behind. Errors name the input line. --endian picks the byte order of\n"
          "formats written in the writer's own order.\n"
          "A dump that stopped at damage (a \"stopped\" line) or skipped damage (\"damage\"\n"
          "lines, from dump --all) lacks part of its file, and a dump that ends before the\n"
          "records its format closes with was cut short: encode refuses them, naming the\n"
          "line. --partial writes the records that are there anyway (a shorter file).\n", out);
    bool any = false;
    for (size_t i = 0; pcd_exts[i]; i++)
        for (size_t k = 0; k < pcd_exts[i]->n_import; k++) {
            if (!any) fputs("\n--from:\n", out);
            any = true;
            fprintf(out, "  %-10s %s\n", pcd_exts[i]->import[k].from, pcd_exts[i]->import[k].help);
        }
}

/* The input of an importer: read as a stream, or loaded whole (mapped; a pipe within the
 * memory cap). */
typedef struct import_input {
    pcd_input *in;
    size_t limit;
} import_input;

static pcd_status import_read(void *ud, uint8_t *dst, size_t cap, size_t *got)
{
    return pcd_input_read(((import_input *)ud)->in, dst, cap, got);
}

static pcd_status load_input(void *ud, const uint8_t **p, size_t *n)
{
    import_input *ii = ud;
    if (pcd_input_load(ii->in, ii->limit) != 0) return errno == EFBIG || errno == ENOMEM ? PCD_E_NOMEM : PCD_E_IO;
    *p = ii->in->map;
    *n = ii->in->map_len;
    return PCD_OK;
}

static int run_importer(cli *c, const char *from, const char *inname, const char *outname, const char *endian)
{
    const pcd_importer *im = NULL;
    for (size_t i = 0; pcd_exts[i] && !im; i++)
        for (size_t k = 0; k < pcd_exts[i]->n_import; k++)
            if (strcmp(pcd_exts[i]->import[k].from, from) == 0) im = &pcd_exts[i]->import[k];
    if (!im) {
        fprintf(stderr, "profcodec encode: no importer for '%s' (see profcodec encode --help)\n", from);
        return EXIT_USAGE;
    }
    pcd_input in;
    if (pcd_input_open(&in, inname, &c->al) != 0) {
        fprintf(stderr, "%s: cannot open: %s\n", inname, strerror(errno));
        return EXIT_USAGE;
    }
    outbuf ob;
    int rc = outbuf_open(c, &ob, outname);
    if (rc == 0) {
        import_input ii = { &in, c->max_memory };
        pcd_import_args a;
        memset(&a, 0, sizeof a);
        a.read = import_read;
        a.read_ud = &ii;
        a.load = load_input;
        a.input_name = inname;
        a.out = &ob.sink;
        a.al = &c->al;
        a.endian = endian;
        pcd_status st = pcd_import(im, &a);
        if (a.msg[0]) fprintf(stderr, "%s\n", a.msg);
        rc = st == PCD_OK ? 0 : st == PCD_E_INVALID ? EXIT_INVALID : EXIT_USAGE;
        if (rc == 0) rc = outbuf_commit(&ob);
        else outbuf_abort(&ob);
    }
    pcd_input_close(&in);
    return rc;
}

int cmd_encode(cli *c, int argc, char **argv)
{
    const char *outname = NULL, *endian = NULL, *from = NULL;
    bool partial = false;
    static const struct option lo[] = {
        { "format", required_argument, 0, OPT_FORMAT }, { "output", required_argument, 0, 'o' },
        { "endian", required_argument, 0, OPT_ENDIAN }, { "from", required_argument, 0, OPT_FROM },
        { "partial", no_argument, 0, OPT_PARTIAL }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
    optind = 1;
    int o;
    while ((o = getopt_long(argc, argv, "ho:", lo, NULL)) != -1) {
        if (o == OPT_FORMAT) c->format = optarg;
        else if (o == 'o') outname = optarg;
        else if (o == OPT_ENDIAN) endian = optarg;
        else if (o == OPT_FROM) from = optarg;
        else if (o == OPT_PARTIAL) partial = true;
        else if (o == 'h') { encode_usage(stdout); return 0; }
        else { encode_usage(stderr); return EXIT_USAGE; }
    }
    if (optind < argc - 1 || !outname) {
        encode_usage(stderr);
        return EXIT_USAGE;
    }
    if (endian && strcmp(endian, "big") != 0 && strcmp(endian, "little") != 0) {
        fprintf(stderr, "profcodec encode: --endian takes big or little\n");
        return EXIT_USAGE;
    }
    const char *inname = optind < argc ? argv[optind] : "-";
    if (from) return run_importer(c, from, inname, outname, endian);
    pcd_input in;
    if (pcd_input_open(&in, inname, &c->al) != 0) {
        fprintf(stderr, "%s: cannot open: %s\n", inname, strerror(errno));
        return EXIT_USAGE;
    }
    const pcd_format *f = c->format ? cli_find_format(c->format) : NULL;
    if (c->format && !f) {
        fprintf(stderr, "profcodec encode: unknown format '%s'\n", c->format);
        pcd_input_close(&in);
        return EXIT_USAGE;
    }
    outbuf ob;
    int rc = outbuf_open(c, &ob, outname);
    if (rc) {
        pcd_input_close(&in);
        return rc;
    }
    pcd_arena arena, root_arena; /* the root's strings live until its last fields are written */
    pcd_arena_init(&arena, NULL, 0, &c->al, 0);
    pcd_arena_init(&root_arena, NULL, 0, &c->al, 0);
    pcd_writer w;
    bool started = false;
    uint8_t *rec = NULL;
    size_t rec_cap = 0;
    /* the dump, line by line, through the tool's allocator */
    pcd_lines lines;
    pcd_lines_stream(&lines, &c->al, pcd_input_read, &in);
    uint8_t *uline;
    size_t len;
    pcd_status lst;
    uint64_t lineno = 0;
    char err[512];
    rc = 0;
    /* each line's JSON through the tool's allocator, parsed and freed inside the loop */
    pcd_json_mem_scope jscope;
    pcd_json_mem_enter(&jscope, &c->al);
    while ((lst = pcd_lines_next(&lines, &uline, &len, NULL)) == PCD_OK) {
        const char *line = (const char *)uline;
        lineno++;
        if (len == 0 || (len == 1 && line[0] == '\n')) continue;
        json_error_t je;
        size_t fixed_len;
        char *fixed = pcd_jsonr_negzero(&c->al, line, len, &fixed_len);
        json_t *obj = fixed ? json_loadb(fixed, fixed_len, JSON_ALLOW_NUL, &je)
                            : json_loadb(line, len, JSON_ALLOW_NUL, &je);
        pcd_alloc_sized_free(&c->al, fixed);
        if (pcd_json_mem_refused()) {
            json_decref(obj); /* made past the cap's refusal (common/json_mem.h) */
            fprintf(stderr, "%s:%" PRIu64 ": out of memory for the line's JSON (raise --max-memory)\n", inname, lineno);
            rc = EXIT_USAGE;
            break;
        }
        if (!obj || !json_is_object(obj)) {
            fprintf(stderr, "%s:%" PRIu64 ": not a JSON object: %s\n", inname, lineno, obj ? "" : je.text);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        json_t *kind = json_object_get(obj, "_kind");
        if (!kind || !json_is_string(kind)) {
            fprintf(stderr, "%s:%" PRIu64 ": missing \"_kind\"\n", inname, lineno);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        const char *k = json_string_value(kind);
        bool stopped = strcmp(k, "stopped") == 0;
        if (stopped || strcmp(k, "damage") == 0) {
            if (partial) {
                json_decref(obj);
                continue;
            }
            json_t *why = json_object_get(obj, stopped ? "error" : "message");
            json_t *lost = json_object_get(obj, "bytes_not_read");
            fprintf(stderr, "%s:%" PRIu64 ": %s (%s)", inname, lineno,
                    stopped ? "the dump stopped at damage: everything after it is missing"
                            : "the dump skipped damaged bytes here: they were not kept",
                    why && json_is_string(why) ? json_string_value(why) : "no reason given");
            if (lost && json_is_integer(lost))
                fprintf(stderr, "; %" JSON_INTEGER_FORMAT " bytes of the file were not read", json_integer_value(lost));
            fprintf(stderr, ".\n%s: encoding it would silently write a shorter file; give --partial to write the "
                            "records that are there anyway\n", inname);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        if (!started) {
            json_t *jf = json_object_get(obj, "_format"), *jv = json_object_get(obj, "_version");
            if (!f && jf && json_is_string(jf)) {
                f = pcd_format_find(json_string_value(jf), jv && json_is_string(jv) ? json_string_value(jv) : NULL);
                if (!f) {
                    fprintf(stderr, "%s:%" PRIu64 ": this build has no format %s %s\n", inname, lineno,
                            json_string_value(jf), jv && json_is_string(jv) ? json_string_value(jv) : "");
                    json_decref(obj);
                    rc = EXIT_INVALID;
                    break;
                }
            }
            if (!f) {
                fprintf(stderr, "%s:%" PRIu64 ": the first line does not name a format; use --format\n", inname, lineno);
                json_decref(obj);
                rc = EXIT_INVALID;
                break;
            }
            pcd_writer_open(&w, f, &ob.sink, &c->al);
            json_t *bo = json_object_get(obj, "_byte_order");
            if (endian) pcd_writer_set_big(&w, strcmp(endian, "big") == 0);
            else if (bo && json_is_string(bo)) pcd_writer_set_big(&w, strcmp(json_string_value(bo), "big") == 0);
            size_t need = f->root_size;
            for (uint32_t r = 0; r < f->n_regions; r++)
                if (f->regions[r]->record_size > need) need = f->regions[r]->record_size;
            rec = pcd_alloc_sized(&c->al, need + f->root_size);
            rec_cap = need;
            if (!rec) {
                fprintf(stderr, "profcodec: out of memory (raise --max-memory)\n");
                json_decref(obj);
                rc = EXIT_USAGE;
                break;
            }
            started = true;
            uint8_t *root = rec + rec_cap;
            pcd_jkind rk = { NULL, f->root, -1 };
            bool is_root = strcmp(k, f->root->name) == 0;
            if (is_root) {
                if (!pcd_jsonr_record(&rk, obj, root, &root_arena, err, sizeof err)) {
                    fprintf(stderr, "%s:%" PRIu64 ": %s\n", inname, lineno, err);
                    json_decref(obj);
                    rc = EXIT_INVALID;
                    break;
                }
            } else {
                memset(root, 0, f->root_size);
            }
            pcd_status st = pcd_writer_root(&w, root);
            if (st != PCD_OK) {
                char msg[1024];
                pcd_error_format(pcd_writer_error(&w), msg, sizeof msg);
                fprintf(stderr, "%s:%" PRIu64 ": cannot encode: %s\n", inname, lineno, msg);
                json_decref(obj);
                rc = st == PCD_E_IO || st == PCD_E_NOMEM ? EXIT_USAGE : EXIT_INVALID;
                break;
            }
            if (is_root) {
                json_decref(obj);
                continue;
            }
        }
        pcd_jkind jk;
        if (!pcd_jsonr_kind(f, k, &jk) || !jk.rd) {
            fprintf(stderr, "%s:%" PRIu64 ": \"%s\" is not a record kind of %s %s\n", inname, lineno, k, f->name,
                    f->version);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        pcd_arena_reset(&arena);
        if (!pcd_jsonr_record(&jk, obj, rec, &arena, err, sizeof err)) {
            fprintf(stderr, "%s:%" PRIu64 ": %s: %s\n", inname, lineno, k, err);
            json_decref(obj);
            rc = EXIT_INVALID;
            break;
        }
        /* where the record stood in the dumped file: offsets that point at it move with it */
        json_t *jo = json_object_get(obj, "_offset");
        if (jo && json_is_integer(jo) && json_integer_value(jo) >= 0)
            pcd_writer_set_origin(&w, (uint64_t)json_integer_value(jo));
        pcd_status st = pcd_writer_record(&w, jk.rd, rec);
        if (st != PCD_OK) {
            char msg[1024];
            pcd_error_format(pcd_writer_error(&w), msg, sizeof msg);
            /* (k lives in obj) */
            fprintf(stderr, "%s:%" PRIu64 ": cannot encode this %s: %s\n", inname, lineno, k, msg);
            json_decref(obj);
            /* (memory and I/O are not the input's fault: exit 2, as everywhere else) */
            rc = PCD_IS_ERROR(st) && st != PCD_E_IO && st != PCD_E_NOMEM ? EXIT_INVALID : EXIT_USAGE;
            break;
        }
        json_decref(obj);
    }
    pcd_json_mem_leave(&jscope);
    if (rc == 0 && lst == PCD_E_NOMEM) {
        fprintf(stderr, "%s:%" PRIu64 ": out of memory (raise --max-memory)\n", inname, lineno + 1);
        rc = EXIT_USAGE;
    } else if (rc == 0 && lst != PCD_END) {
        fprintf(stderr, "%s: cannot read: %s\n", inname, strerror(errno));
        rc = EXIT_USAGE;
    }
    if (rc == 0 && !started) {
        fprintf(stderr, "%s: no records to encode\n", inname);
        rc = EXIT_INVALID;
    }
    if (rc == 0) {
        pcd_status st = pcd_writer_finish(&w);
        if (st != PCD_OK) {
            char msg[1024];
            pcd_error_format(pcd_writer_error(&w), msg, sizeof msg);
            if (st == PCD_E_IO || st == PCD_E_NOMEM) {
                fprintf(stderr, "%s:%" PRIu64 ": cannot finish the output: %s\n", inname, lineno, msg);
                rc = EXIT_USAGE;
            } else {
                fprintf(stderr, "%s:%" PRIu64 ": the dump ends at this line without the records that close a %s %s "
                                "file (was it cut short?): cannot finish the output: %s\n",
                        inname, lineno, f->name, f->version, msg);
                rc = EXIT_INVALID;
            }
        }
    }
    if (started) pcd_writer_close(&w);
    if (rc == 0) rc = outbuf_commit(&ob);
    else outbuf_abort(&ob);
    pcd_arena_free(&arena);
    pcd_arena_free(&root_arena);
    pcd_alloc_sized_free(&c->al, rec);
    pcd_lines_free(&lines);
    pcd_input_close(&in);
    return rc;
}
