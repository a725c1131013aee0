/* outputs/viewer_assets.h: the HTML viewer (src/outputs/html: viewer.html, viewer.css and the
 * script's parts), embedded at build time by cmake/embed_viewer.lua: the page in three parts,
 * split where the title and the data go, its style and script inline. Each part is its lines,
 * in order. */
#ifndef PCD_OUTPUTS_VIEWER_ASSETS_H
#define PCD_OUTPUTS_VIEWER_ASSETS_H

#include <stddef.h>

typedef struct pcd_viewer_part {
    const char *const *lines;
    size_t n;
} pcd_viewer_part;

/* [0] up to the title, [1] from the title to the data, [2] after the data */
extern const pcd_viewer_part pcd_viewer_parts[3];

#endif
