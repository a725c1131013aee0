/* pcd.h: the profcodec runtime, everything a generated codec or a caller needs. */
#ifndef PCD_H
#define PCD_H

#include "pcd_port.h"
#include "pcd_status.h"
#include "pcd_alloc.h"
#include "pcd_endian.h"
#include "pcd_cursor.h"
#include "pcd_span.h"
#include "pcd_varint.h"
#include "pcd_sink.h"
#include "pcd_desc.h"
#include "pcd_gen.h"
#include "pcd_reader.h"
#include "pcd_writer.h"
#include "pcd_json.h"
#include "pcd_explain.h"
#include "pcd_zstd.h"

#include <stddef.h>
#include <string.h>

#endif
