/* cli/cmd_formats.c: `profcodec formats`: the formats and versions this build knows, and the
 * matrix of conversions (from the registry). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"

/* ---- formats ------------------------------------------------------------------- */

int cmd_formats(cli *c, int argc, char **argv)
{
    (void)c;
    bool json = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0) json = true;
        else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            printf("usage: profcodec formats [--json]\n\nLists every format and version this build reads and writes,\n"
                   "with what it can be converted to, then the text inputs (collapsed stacks, Austin\n"
                   "text, speedscope JSON). --json lists the formats of schemas.\n");
            return 0;
        } else {
            fprintf(stderr, "profcodec formats: unexpected '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    /* column widths from what is listed, so that no long title pushes its row out of line */
    int wname = 0, wver = 0, wtitle = 0;
    for (size_t i = 0; i < pcd_n_formats; i++) {
        const pcd_format *f = pcd_formats[i];
        int n = (int)strlen(f->name), v = (int)strlen(f->version), t = (int)strlen(f->title);
        if (n > wname) wname = n;
        if (v > wver) wver = v;
        if (t > wtitle) wtitle = t;
    }
    if (json) printf("[");
    for (size_t i = 0; i < pcd_n_formats; i++) {
        const pcd_format *f = pcd_formats[i];
        const pcd_ext *e = pcd_ext_find(f->name);
        if (json) {
            printf("%s{\"name\":\"%s\",\"version\":\"%s\",\"title\":\"%s\",\"schema\":\"%s\",\"streamable\":%s,\"convert_to\":[",
                   i ? "," : "", f->name, f->version, f->title, f->schema,
                   (f->flags & PCD_FMT_STREAMABLE) ? "true" : "false");
            const char *h, *to;
            for (size_t k = 0; e && (to = pcd_convert_target(e, k, &h)); k++) printf("%s\"%s\"", k ? "," : "", to);
            printf("]}");
        } else {
            printf("%-*s  %-*s  %-*s  %-10s ", wname, f->name, wver, f->version, wtitle, f->title,
                   (f->flags & PCD_FMT_STREAMABLE) ? "streaming" : "whole-file");
            const char *h, *to;
            for (size_t k = 0; e && (to = pcd_convert_target(e, k, &h)); k++) printf("%s %s", k ? "" : " convert to:", to);
            printf("\n");
        }
    }
    if (json) {
        printf("]\n");
        return 0;
    }
    /* the text inputs (issue 25): no schema, no version; told by their content */
    printf("\ntext inputs (convert, merge and top read them; told by their content):\n");
    int wt = 0;
    for (size_t i = 0; pcd_text_formats[i]; i++)
        if ((int)strlen(pcd_text_formats[i]->name) > wt) wt = (int)strlen(pcd_text_formats[i]->name);
    for (size_t i = 0; pcd_text_formats[i]; i++) {
        const pcd_text_format *t = pcd_text_formats[i];
        printf("%-*s  %s\n%-*s  convert to:", wt, t->name, t->title, wt, "");
        for (size_t k = 0; pcd_exporters[k]; k++)
            if (pcd_text_can_convert(t, pcd_exporters[k]->to)) printf(" %s", pcd_exporters[k]->to);
        printf("\n");
    }
    return 0;
}
