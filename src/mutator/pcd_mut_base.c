/* pcd_mut_base.c: what every mutation kind of a session uses: the one-line description of
 * what it did, and whether bytes decode whole (the random numbers are inline, pcd_mut_int.h).
 * Apart from pcd_mut.c so that the kinds in files of their own (pcd_mut_wire.c) call down to
 * it, not back into pcd_mut.c. */
#include "pcd_mut_int.h"

#include <stdarg.h>
#include <stdio.h>

void pcd_mut_note(pcd_mut *m, const char *fmt, ...)
{
    if (m->dlen + 8 >= sizeof m->desc) return;
    if (m->dlen == 0) {
        m->dlen = (size_t)snprintf(m->desc, sizeof m->desc, "%s: ", m->mu->name);
    } else {
        m->desc[m->dlen++] = ';';
        m->desc[m->dlen++] = ' ';
    }
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(m->desc + m->dlen, sizeof m->desc - m->dlen, fmt, ap);
    va_end(ap);
    if (k > 0) m->dlen += (size_t)k;
    if (m->dlen >= sizeof m->desc) m->dlen = sizeof m->desc - 1;
}

/* the bytes read whole by the format's own reader (validate, record by record) */
bool pcd_mut_decodes(pcd_mut *m, const uint8_t *p, size_t n)
{
    pcd_reader r;
    pcd_reader_opts ro = { m->al, NULL, 0, true, false };
    if (pcd_reader_open_buffer(&r, m->f, p, n, &ro) != PCD_OK) return false;
    pcd_record rec;
    pcd_status st;
    uint64_t k;
    do {
        st = pcd_reader_validate_run(&r, 1u << 20, &k);
        if (st == PCD_OK) st = pcd_reader_next(&r, &rec);
    } while (st == PCD_OK);
    pcd_reader_close(&r);
    return st == PCD_END;
}

