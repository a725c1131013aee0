/* pcd_status.c: status names and error formatting (into caller buffers). */
#include "pcd_status.h"

#include <stdio.h>
#include <string.h>

#ifndef PCD_VERSION
#error "PCD_VERSION is defined by CMakeLists.txt from project(profcodec VERSION ...)"
#endif

const char *pcd_version(void) { return PCD_VERSION; }

const char *pcd_status_name(pcd_status s)
{
    switch (s) {
    case PCD_OK: return "ok";
    case PCD_END: return "end";
    case PCD_SHORT_READ: return "short read";
    case PCD_SHORT_WRITE: return "short write";
    case PCD_WOULD_BLOCK: return "would block";
    case PCD_E_TRUNCATED: return "truncated";
    case PCD_E_BAD_MAGIC: return "bad magic";
    case PCD_E_BAD_TAG: return "bad tag";
    case PCD_E_OVERFLOW: return "overflow";
    case PCD_E_RANGE: return "out of range";
    case PCD_E_LIMIT: return "limit exceeded";
    case PCD_E_NOMEM: return "out of memory";
    case PCD_E_ZSTD: return "zstd error";
    case PCD_E_SIZE: return "size mismatch";
    case PCD_E_VERSION: return "unsupported version";
    case PCD_E_IO: return "i/o error";
    case PCD_E_INVALID: return "invalid";
    case PCD_E_ARG: return "bad argument";
    case PCD_E_GZIP: return "gzip error";
    case PCD_E_EMPTY: return "nothing to show";
    case PCD_E_INTERNAL: return "internal error";
    }
    return "unknown status";
}

void pcd_error_push(pcd_error *e, const char *name, int64_t index)
{
    if (e->n_seg < PCD_PATH_MAX_SEGMENTS) {
        e->seg[e->n_seg].name = name;
        e->seg[e->n_seg].index = index;
        e->n_seg++;
    } else {
        /* keep the innermost segments; drop the outermost and say so */
        e->path_truncated = true;
    }
}

/* Appends to buf without overflowing; returns the new would-be length. */
static size_t put(char *buf, size_t cap, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static size_t put(char *buf, size_t cap, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, fmt, ap);
    va_end(ap);
    return n < 0 ? len : len + (size_t)n;
}

size_t pcd_error_path(const pcd_error *e, char *buf, size_t cap)
{
    size_t len = 0;
    if (cap) buf[0] = 0;
    if (e->path_truncated) len = put(buf, cap, len, "...");
    for (int i = (int)e->n_seg - 1; i >= 0; i--) {
        const pcd_path_seg *s = &e->seg[i];
        if (s->name && s->name[0]) {
            if (len > 0) len = put(buf, cap, len, ".");
            len = put(buf, cap, len, "%s", s->name);
        }
        if (s->index >= 0) len = put(buf, cap, len, "[%lld]", (long long)s->index);
    }
    if (len == 0) len = put(buf, cap, len, "(file)");
    return len;
}

size_t pcd_error_format(const pcd_error *e, char *buf, size_t cap)
{
    char path[512];
    pcd_error_path(e, path, sizeof path);
    size_t len = 0;
    if (cap) buf[0] = 0;
    len = put(buf, cap, len, "offset %llu", (unsigned long long)e->offset);
    if (e->region)
        len = put(buf, cap, len, " of %s at offset %llu", e->region,
                  (unsigned long long)e->region_offset);
    len = put(buf, cap, len, ": %s: ", path);
    if (e->expected)
        len = put(buf, cap, len, "expected %s", e->expected);
    else
        len = put(buf, cap, len, "%s", pcd_status_name(e->status));
    switch (e->found_kind) {
    case PCD_FOUND_NONE: break;
    case PCD_FOUND_UINT:
        len = put(buf, cap, len, ", found %llu", (unsigned long long)e->found);
        break;
    case PCD_FOUND_INT:
        len = put(buf, cap, len, ", found %lld", (long long)(int64_t)e->found);
        break;
    case PCD_FOUND_HEX:
        len = put(buf, cap, len, ", found 0x%02llx", (unsigned long long)e->found);
        break;
    case PCD_FOUND_END:
        len = put(buf, cap, len, ", found end of data (%llu byte%s left)",
                  (unsigned long long)e->found, e->found == 1 ? "" : "s");
        break;
    case PCD_FOUND_TEXT:
        len = put(buf, cap, len, ", found %s", e->found_text ? e->found_text : "?");
        break;
    case PCD_FOUND_NEG:
        len = put(buf, cap, len, ", found -%llu", (unsigned long long)e->found);
        break;
    }
    return len;
}
