/* formats/tachyon/names.c: the string table as CPython sees it: each string decoded with
 * errors="replace" (written back as UTF-8), equal texts told apart from equal indexes. */
#include <string.h>

#include "common/hmap.h"
#include "common/hash.h"
#include "common/text.h"
#include "formats/tachyon/tachyon.h"

pcd_status pcd_tachyon_names_build(pcd_tachyon_names *nm, const pcd_tachyon_tables *t, pcd_alloc *al)
{
    memset(nm, 0, sizeof nm[0]);
    nm->al = al;
    nm->n = t->n_strings;
    size_t total = 0;
    for (uint32_t i = 0; i < t->n_strings; i++) total += PCD_UTF8_REPLACED_MAX(t->strings[i].len);
    size_t n = t->n_strings ? t->n_strings : 1;
    nm->text_cap = total ? total : 1;
    nm->text = pcd_alloc_get(al, nm->text_cap);
    nm->off = pcd_alloc_get(al, n * sizeof(uint64_t));
    nm->len = pcd_alloc_get(al, n * sizeof(uint32_t));
    nm->canon = pcd_alloc_get(al, n * sizeof(uint32_t));
    if (!nm->text || !nm->off || !nm->len || !nm->canon) return PCD_E_NOMEM;
    pcd_hmap seen;
    pcd_hmap_init(&seen, al);
    for (uint32_t i = 0; i < t->n_strings; i++) {
        size_t o = nm->text_len;
        size_t k = pcd_utf8_replace(t->strings[i].ptr, t->strings[i].len, nm->text + o);
        nm->off[i] = o;
        nm->len[i] = (uint32_t)k;
        nm->text_len += k;
        /* canonical id: the first string with the same text (hash, length, then the
         * texts; a colliding different text takes the next probe number) */
        uint64_t h = PCD_FNV_SEED;
        for (size_t j = 0; j < k; j++) h = pcd_fnv_step(h, nm->text[o + j]);
        for (uint64_t probe = 0;; probe++) {
            bool fresh;
            pcd_hslot *sl = pcd_hmap_put(&seen, (pcd_hkey){ h, k, probe }, &fresh);
            if (!sl) {
                pcd_hmap_free(&seen);
                return PCD_E_NOMEM;
            }
            if (fresh) {
                sl->v0 = i;
                nm->canon[i] = i;
                break;
            }
            uint32_t j = (uint32_t)sl->v0;
            if (memcmp(nm->text + nm->off[j], nm->text + o, k) == 0) {
                nm->canon[i] = nm->canon[j];
                break;
            }
        }
    }
    pcd_hmap_free(&seen);
    return PCD_OK;
}

void pcd_tachyon_names_free(pcd_tachyon_names *nm)
{
    if (!nm->al) return;
    size_t n = nm->n ? nm->n : 1;
    pcd_alloc_free(nm->al, nm->text, nm->text_cap);
    pcd_alloc_free(nm->al, nm->off, n * sizeof(uint64_t));
    pcd_alloc_free(nm->al, nm->len, n * sizeof(uint32_t));
    pcd_alloc_free(nm->al, nm->canon, n * sizeof(uint32_t));
    memset(nm, 0, sizeof *nm);
}

static const char k_internal[] = "_sync_coordinator.py";

bool pcd_tachyon_internal_file(const uint8_t *p, size_t n)
{
    size_t k = sizeof k_internal - 1;
    return n >= k && memcmp(p + n - k, k_internal, k) == 0;
}
