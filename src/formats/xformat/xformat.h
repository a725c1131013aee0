/* formats/xformat/xformat.h: converters between formats of the same kind of data (xformat_*.c), registered
 * by the extension of their input format. */
#ifndef XFORMAT_H
#define XFORMAT_H

#include "formats/registry.h"

/* convert --to tachyon of an Austin MOJO file (v1, v2, v3; streams). */
int xf_mojo_to_tachyon_run(const pcd_conv_args *a);
/* convert --to mojo of a Tachyon file: MOJO 3. */
int xf_tachyon_to_mojo_run(const pcd_conv_args *a);

#endif
