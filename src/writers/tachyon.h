/* writers/tachyon.h: the Tachyon writer of the tachyon output (which `encode --from samples`
 * goes through too, on the model): writes Tachyon files from samples the way CPython 3.15.2's
 * writer does (Modules/_remote_debugging/binary_io_writer.c, as NOTES-tachyon.md describes it): strings
 * and frames interned in order of first use, the same choice among FULL / SUFFIX / POP_PUSH,
 * identical stacks buffered per thread into REPEAT records of at most 16 KiB that are flushed
 * before that thread's next other record, when full, and at the end in order of the threads'
 * first samples. The bytes go through the generated encoders (pcd_writer). */
#ifndef PCD_WRITERS_TACHYON_H
#define PCD_WRITERS_TACHYON_H

#include "pcd.h"
#include "tachyon_v1.h"

/* Everything the header and the statistics block say that samples do not. */
typedef struct pcd_tachyon_writer_opts {
    uint64_t start_time_us;
    uint64_t sample_interval_us;
    uint8_t python[3];               /* major, minor, micro */
    int mode;                        /* 0 wall .. 4 exception; -1 not recorded */
    int features;                    /* capture feature bits; -1 not recorded */
    uint32_t compression;            /* PCD_TACHYON_V1_FILE_COMPRESSION_NONE or _ZSTD (level 5) */
    bool big;                        /* big-endian fixed-width fields */
    bool have_stats;                 /* write the 56-byte statistics block */
    double duration_sec, sample_rate, error_rate, missed_samples;
    uint32_t stats_present;          /* the statistics block's present bits (pcd_tachyon_v1_stats_present_make) */
} pcd_tachyon_writer_opts;

/* One frame of a sample, by content. A location part of -1 is "none". opcode -1 is none;
 * values above the last real opcode are written as none, as CPython does. */
typedef struct pcd_tachyon_wframe {
    const uint8_t *filename;
    size_t filename_len;
    const uint8_t *funcname;
    size_t funcname_len;
    int32_t lineno, end_lineno, column, end_column;
    int opcode;
} pcd_tachyon_wframe;

typedef struct pcd_tachyon_wthread pcd_tachyon_wthread;

typedef struct pcd_tachyon_writer {
    pcd_writer w;
    pcd_alloc *al;
    pcd_tachyon_v1_file root;
    pcd_tachyon_writer_opts o;
    /* strings: copies, and a table from their bytes to their index */
    uint8_t **str;
    uint32_t *str_len;
    uint32_t n_str, str_cap;
    uint32_t *str_hash;              /* open addressing: index + 1 */
    size_t str_hcap;
    /* frames */
    pcd_tachyon_v1_frame *frames;
    int32_t (*fkey)[4];              /* the location each frame was interned with */
    uint32_t n_frames, frames_cap;
    uint32_t *frame_hash;
    size_t frame_hcap;
    /* threads, in order of their first sample */
    pcd_tachyon_wthread **th;
    uint32_t n_th, th_cap;
    uint64_t total_samples;
    bool failed;
} pcd_tachyon_writer;

/* Writes the header (rewritten with its totals at the end) to s. */
pcd_status pcd_tachyon_writer_open(pcd_tachyon_writer *tw, pcd_sink *s, pcd_alloc *al, const pcd_tachyon_writer_opts *o);
/* One sample of one thread at time ts (microseconds, the clock of start_time_us); frames
 * innermost first (only the first 256 are kept, as CPython does). */
pcd_status pcd_tachyon_writer_sample(pcd_tachyon_writer *tw, uint64_t tid, uint32_t interp, uint8_t status, uint64_t ts,
                              const pcd_tachyon_wframe *frames, size_t depth);
/* The same in two steps, for callers that see the same frames again and again: a frame's
 * index (interned now if new: call it for a sample's new frames innermost first, when the
 * sample comes, to keep CPython's table order), then a sample of frame indexes. */
pcd_status pcd_tachyon_writer_intern(pcd_tachyon_writer *tw, const pcd_tachyon_wframe *frame, uint32_t *index);
pcd_status pcd_tachyon_writer_sample_ids(pcd_tachyon_writer *tw, uint64_t tid, uint32_t interp, uint8_t status, uint64_t ts,
                                  const uint32_t *ids, size_t depth);
/* Flushes the REPEAT buffers, writes the tables, statistics and footer, and the totals. */
pcd_status pcd_tachyon_writer_finish(pcd_tachyon_writer *tw);
void pcd_tachyon_writer_close(pcd_tachyon_writer *tw);
const pcd_error *pcd_tachyon_writer_error(const pcd_tachyon_writer *tw);

/* The deepest stack a sample holds (CPython's MAX_STACK_DEPTH). */
#define PCD_TACHYON_MAX_DEPTH PCD_TACHYON_V1_SAMPLE_STACK_FULL_FRAMES_MAX_COUNT

/* The names of the profiling modes (0 wall .. 4 exception) and of the capture feature bits,
 * as CPython's config word has them. */
extern const char *const pcd_tachyon_mode_names[5];
extern const char *const pcd_tachyon_feature_names[5];

/* The last opcode CPython counts as real (MAX_REAL_OPCODE in 3.15). */
#define PCD_TACHYON_MAX_REAL_OPCODE 254

#endif
