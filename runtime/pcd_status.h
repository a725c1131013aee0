/* pcd_status.h: status codes, the error record and the TRY macro. */
#ifndef PCD_STATUS_H
#define PCD_STATUS_H

#include "pcd_port.h"

/* The numeric range is the category: 0 ok, 1-15 notes, 16-31 suspensions,
 * 32 and up errors. Values are never renumbered. */
typedef enum pcd_status {
    PCD_OK = 0,
    PCD_END = 1,              /* note: clean end of the stream or region */
    PCD_SHORT_READ = 16,      /* suspension: more input is needed, nothing was consumed */
    PCD_SHORT_WRITE = 17,     /* suspension: the sink is full */
    PCD_WOULD_BLOCK = 18,     /* suspension: the read callback has nothing yet (pcd_reader.h) */
    PCD_E_TRUNCATED = 32,     /* input ends inside a field */
    PCD_E_BAD_MAGIC = 33,     /* a magic constant does not match */
    PCD_E_BAD_TAG = 34,       /* a union tag names no case */
    PCD_E_OVERFLOW = 35,      /* a varint or computation does not fit */
    PCD_E_RANGE = 36,         /* a value is outside its declared range */
    PCD_E_LIMIT = 37,         /* a configured limit (count, length, depth) was exceeded */
    PCD_E_NOMEM = 38,         /* the caller's allocator or memory limit refused */
    PCD_E_ZSTD = 39,          /* zstd reported an error */
    PCD_E_SIZE = 40,          /* a size field disagrees with the content it covers */
    PCD_E_VERSION = 41,       /* a format version this build does not support */
    PCD_E_IO = 42,            /* the caller's input or output callback failed */
    PCD_E_INVALID = 43,       /* a semantic check failed (reference, order, consistency) */
    PCD_E_ARG = 44,           /* the caller passed something unusable */
    PCD_E_GZIP = 45,          /* zlib reported an error */
    PCD_E_EMPTY = 46,         /* the input holds nothing an output can show (no samples, none
                               * with a value of the metric, or values it cannot draw) */
    PCD_E_INTERNAL = 63       /* a bug in profcodec; fuzzers treat it as a crash */
} pcd_status;

#define PCD_IS_NOTE(s) ((s) >= 1 && (s) < 16)
#define PCD_IS_SUSPENSION(s) ((s) >= 16 && (s) < 32)
#define PCD_IS_ERROR(s) ((s) >= 32)

/* What the "found" part of an error holds. */
typedef enum pcd_found_kind {
    PCD_FOUND_NONE = 0,
    PCD_FOUND_UINT,           /* found is an unsigned number, printed in decimal */
    PCD_FOUND_INT,            /* found is a two's complement signed number */
    PCD_FOUND_HEX,            /* found is printed as 0x.. */
    PCD_FOUND_END,            /* the data ended; found = bytes that were left */
    PCD_FOUND_TEXT,           /* found_text is a static string */
    PCD_FOUND_NEG             /* found is the magnitude of a negative number (sign and magnitude) */
} pcd_found_kind;

#define PCD_PATH_MAX_SEGMENTS 12

/* One step of a field path: a name, and an array index or -1. */
typedef struct pcd_path_seg {
    const char *name;
    int64_t index;
} pcd_path_seg;

/* Filled once, by the first failure; the library never prints it. */
typedef struct pcd_error {
    pcd_status status;
    uint64_t offset;          /* absolute byte offset of the failing field */
    const char *expected;     /* static text: what the schema allows */
    pcd_found_kind found_kind;
    uint64_t found;
    const char *found_text;   /* static text when found_kind is PCD_FOUND_TEXT */
    const char *region;       /* static: "decompressed sample data" when offset is not a file offset */
    uint64_t region_offset;   /* file offset of that region's start */
    /* The path is collected innermost first while the error travels outwards. */
    uint8_t n_seg;
    bool path_truncated;
    pcd_path_seg seg[PCD_PATH_MAX_SEGMENTS];
} pcd_error;

const char *pcd_status_name(pcd_status s);

/* The library's version, "MAJOR.MINOR.PATCH" (CMakeLists.txt's project version): what
 * `profcodec --version` prints and Python's profcodec.__version__ is. */
const char *pcd_version(void);

/* Writes the field path ("event.attributes[2].value") into buf; returns its length. */
size_t pcd_error_path(const pcd_error *e, char *buf, size_t cap);

/* Writes "offset N: path: expected X, found Y" into buf (always NUL-terminated);
 * returns the length it wanted. */
size_t pcd_error_format(const pcd_error *e, char *buf, size_t cap);

/* Adds an outer path segment to an error on its way out. */
void pcd_error_push(pcd_error *e, const char *name, int64_t index);

#define PCD_TRY(expr)                                                         \
    do {                                                                      \
        pcd_status pcd_s_ = (expr);                                           \
        if (PCD_UNLIKELY(pcd_s_ != PCD_OK)) return pcd_s_;                    \
    } while (0)

#endif
