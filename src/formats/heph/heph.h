/* formats/heph/heph.h: what the Heph files share (heph.c: the summary and the registration;
 * import.c: the importer into the profile model). */
#ifndef PCD_FORMATS_HEPH_H
#define PCD_FORMATS_HEPH_H

#include "heph_v0_1.h"
#include "pipeline/job.h"

/* The packet a record holds, or NULL (the file's root record). */
PCD_INLINE const pcd_heph_v0_1_packet *pcd_heph_packet(const pcd_record *rec)
{
    if (rec->depth != 1 || rec->type != &pcd_heph_v0_1_packet_type || !rec->data) return NULL;
    return rec->data;
}

extern const pcd_model_importer pcd_heph_model;

#endif
