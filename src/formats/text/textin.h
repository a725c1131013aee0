/* formats/text/textin.h: what the text importers (collapsed stacks, speedscope JSON; Austin's
 * text in formats/mojo/austin_import.c) share: how they say what they found where they stopped. */
#ifndef PCD_FORMATS_TEXT_TEXTIN_H
#define PCD_FORMATS_TEXT_TEXTIN_H

#include <stdio.h>

#include "pcd.h"
#include "pipeline/job.h"

/* The importers (pcd_text_format.model), also for tests and fuzzing. */
struct pcd_profile;
pcd_status pcd_text_import_collapsed(pcd_import_args *a, struct pcd_profile *p);
pcd_status pcd_text_import_speedscope(pcd_import_args *a, struct pcd_profile *p);

/* p[0..n) quoted for a message: printable ASCII as it is, other bytes as \xNN, cut after 40
 * bytes with "..."; "the end of the line" for nothing. Returns buf. */
static inline const char *pcd_textin_found(char *buf, size_t cap, const uint8_t *p, size_t n)
{
    if (!n) {
        snprintf(buf, cap, "the end of the line");
        return buf;
    }
    size_t o = 0;
    if (o + 1 < cap) buf[o++] = '"';
    for (size_t i = 0; i < n && i < 40 && o + 8 < cap; i++) {
        uint8_t b = p[i];
        if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') buf[o++] = (char)b;
        else o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", b);
    }
    if (n > 40 && o + 4 < cap) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    if (o + 1 < cap) buf[o++] = '"';
    buf[o < cap ? o : cap - 1] = 0;
    return buf;
}

#endif
