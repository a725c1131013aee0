/* formats/tachyon/tachyon.c: Tachyon (CPython sampling profiles) above the bytes, registered:
 * the info summary (info.c), the checks CPython's reader makes beyond the bytes (check.c),
 * the profile model importer (import.c), the format's own per-sample text (samples.c), and
 * `encode --from samples` (samples_import.c: an importer on the model, written by outputs/tachyon.c). */
#include <stdio.h>

#include "formats/tachyon/tachyon.h"

size_t pcd_tachyon_config_text(char *buf, size_t cap, uint32_t config)
{
    int mode = pcd_tachyon_config_mode(config), feat = pcd_tachyon_config_features(config);
    size_t n = (size_t)snprintf(buf, cap, "%s", mode < 0 ? "unknown" : pcd_tachyon_mode_names[mode]);
    if (feat < 0) {
        n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", capture features not recorded");
    } else {
        n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, ", features:");
        bool any = false;
        for (int i = 0; i < 5; i++) {
            if (!(feat & (1 << i))) continue;
            n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, " %s", pcd_tachyon_feature_names[i]);
            any = true;
        }
        if (!any) n += (size_t)snprintf(buf + (n < cap ? n : cap), n < cap ? cap - n : 0, " none");
    }
    return n;
}

/* ---- registration --------------------------------------------------------------------- */

static const pcd_importer tach_import[] = {
    { "samples", "Tachyon from 'convert --to samples' text, written as CPython writes (encodings, REPEAT groups)",
      NULL, pcd_tachyon_import_samples, "tachyon", false },
};

const pcd_ext pcd_tachyon_ext = {
    "tachyon", &pcd_tachyon_info_ops, &pcd_tachyon_check_ops, tach_import, 1,
    &pcd_tachyon_model, pcd_tachyon_own, 1,
};
