/* formats/mono/mono.c: the Mono log profiler format above the bytes (mono.h says where each
 * part is): the info summary, and the importer into the profile model, whose outputs
 * (collapsed stacks, speedscope, Austin text) are written in src/outputs. */
#include "formats/mono/mono.h"

const pcd_ext pcd_mono_ext = { "mono", &pcd_mono_info_ops, NULL, NULL, 0, &pcd_mono_model, NULL, 0 };
