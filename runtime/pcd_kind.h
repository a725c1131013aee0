/* pcd_kind.h: what the descriptor tables' kinds take in memory, for the code that walks
 * generated structs by their descriptors (the JSON writer, the Python module's copies). */
#ifndef PCD_KIND_H
#define PCD_KIND_H

#include "pcd_desc.h"
#include "pcd_port.h"

/* The bytes a value of a scalar kind takes in a generated struct (an element of an array of
 * it); 0 for kinds that are not stored that way. */
PCD_INLINE size_t pcd_kind_size(uint8_t k)
{
    switch (k) {
    case PCD_K_U8: case PCD_K_S8: case PCD_K_BOOL: return 1;
    case PCD_K_U16: case PCD_K_S16: return 2;
    case PCD_K_U32: case PCD_K_S32: case PCD_K_F32: return 4;
    case PCD_K_U64: case PCD_K_S64: case PCD_K_F64: return 8;
    case PCD_K_BYTES: case PCD_K_STRING: return sizeof(pcd_bytes);
    case PCD_K_MOJO: return sizeof(pcd_mojo_int);
    case PCD_K_REGION: return sizeof(pcd_region);
    case PCD_K_PB_FIELD: return sizeof(pcd_pb_field);
    }
    return 0;
}

#endif
