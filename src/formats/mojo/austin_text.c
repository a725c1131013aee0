/* formats/mojo/austin_text.c: Austin's text format as an input of every output: its detection rule
 * and its entry in the text formats (beside its parser, austin_import.c: the one
 * `encode --from austin` runs; one parser for the grammar). */
#include <string.h>

#include "formats/mojo/asm.h"
#include "pipeline/job.h"

/* "P<digits>;T" */
static bool sample_start(const uint8_t *q, size_t n)
{
    size_t i = 1;
    if (n < 4 || q[0] != 'P') return false;
    while (i < n && q[i] >= '0' && q[i] <= '9') i++;
    return i > 1 && i + 1 < n && q[i] == ';' && q[i + 1] == 'T';
}

/* The first line that is not empty is Austin's metadata ("# key: value", as "# austin: 3.6.0"
 * starts every file Austin writes) or a sample ("P<pid>;T..."), and every complete line of the
 * head after it starts with "# " or "P<digits>;T" (or is empty). */
static bool detect(const uint8_t *head, size_t n, bool whole)
{
    size_t lines = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && head[j] != '\n') j++;
        if (j == n && !whole && lines) break;
        size_t e = j;
        if (e > i && head[e - 1] == '\r') e--;
        const uint8_t *q = head + i;
        size_t len = e - i;
        if (len) {
            bool meta = len >= 2 && q[0] == '#' && q[1] == ' ';
            if (meta && !lines) {
                /* "# key: value" (or "# key:" with nothing after) */
                size_t k = 2;
                while (k < len && q[k] != ':' && q[k] != ' ') k++;
                if (k == 2 || k == len || q[k] != ':' || (k + 1 < len && q[k + 1] != ' ')) return false;
            }
            if (!meta && !sample_start(q, len)) return false;
            lines++;
        }
        i = j + 1;
    }
    return lines > 0;
}

const pcd_text_format pcd_text_austin_format = {
    "austin", "Austin's text format",
    "the first line that is not empty is \"# key: value\" (Austin's header) or a sample \"P<pid>;T...\", and "
    "every line after it in the first 4 KiB starts with \"# \" or \"P<pid>;T\"",
    PCD_HAS_SAMPLES | PCD_HAS_CODE | PCD_HAS_ORDER, detect, pcd_mojo_import_austin,
};
