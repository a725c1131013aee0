/* cli/explain_assets.h: explain's HTML page (src/cli/explain: explain.html, explain.css and
 * explain.js), embedded at build time by cmake/embed_viewer.lua, as the viewer is: the page in
 * three parts, split where the title and the data go. */
#ifndef PCD_CLI_EXPLAIN_ASSETS_H
#define PCD_CLI_EXPLAIN_ASSETS_H

#include "outputs/viewer_assets.h"

/* [0] up to the title, [1] from the title to the data, [2] after the data */
extern const pcd_viewer_part pcd_explain_parts[3];

#endif
