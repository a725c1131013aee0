/* hand_mono.c: the baseline for `make bench`: a plain hand-written validating loop over a
 * Mono log profiler file (log profiler 3.0, data version 17), as a careful C programmer
 * would write it to make the checks `profcodec validate` makes: read() into a 1 MiB buffer
 * (grown for a buffer that does not fit); the header (magic, versions 3.0 and 17, flags 0,
 * the three sized strings ending in their NUL where their sizes say); then every buffer
 * (magic, 48-byte header, len) and every event in it, which must end exactly at the
 * buffer's end: the event byte (an unknown one is an error), every LEB128 bounded (10
 * bytes, 64 bits), every NUL-terminated string found within its 1 MiB limit, the counts of
 * backtraces, instruction pointers and frames at most 65536, metadata types 1..7 with what
 * each carries, heap references and roots, counter descriptions (the section name only for
 * section 32768) and counter values (until index 0, by value type), JIT helpers (a name
 * only for kind 5). Like `profcodec validate` it does not resolve the running deltas (no
 * check depends on them).
 * usage: hand_mono FILE */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CUT (-1)  /* the data ended inside the item */
#define BAD (-2)  /* invalid */

typedef struct rd {
    const uint8_t *p, *end;
} rd;

static inline int uleb(rd *r, uint64_t *out)
{
    const uint8_t *q = r->p;
    if (q < r->end && *q < 0x80) {
        *out = *q;
        r->p = q + 1;
        return 0;
    }
    uint64_t v = 0;
    for (unsigned i = 0;; i++) {
        if (q == r->end) return CUT;
        uint8_t b = *q++;
        if (i == 9) {
            if (b > 1) return BAD;
            v |= (uint64_t)b << 63;
            break;
        }
        v |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) break;
    }
    r->p = q;
    *out = v;
    return 0;
}

static inline int sleb(rd *r)
{
    const uint8_t *q = r->p;
    if (q < r->end && *q < 0x80) {
        r->p = q + 1;
        return 0;
    }
    for (unsigned i = 0;; i++) {
        if (q == r->end) return CUT;
        uint8_t b = *q++;
        if (i == 9) {
            if (b != 0x00 && b != 0x7F) return BAD;
            break;
        }
        if (!(b & 0x80)) break;
    }
    r->p = q;
    return 0;
}

static inline int byte(rd *r, uint8_t *out)
{
    if (r->p == r->end) return CUT;
    *out = *r->p++;
    return 0;
}

static inline int cstr(rd *r, size_t max)
{
    size_t left = (size_t)(r->end - r->p);
    const uint8_t *z = memchr(r->p, 0, left < max + 1 ? left : max + 1);
    if (!z) return left <= max ? CUT : BAD;
    r->p = z + 1;
    return 0;
}

#define T(x)                                                                                   \
    do {                                                                                       \
        int t_ = (x);                                                                          \
        if (t_) return t_;                                                                     \
    } while (0)

static int backtrace(rd *r)
{
    uint64_t n;
    T(uleb(r, &n));
    if (n > 65536) return BAD;
    for (uint64_t i = 0; i < n; i++) T(sleb(r));
    return 0;
}

/* One event at r->p (its byte included). */
static int event(rd *r)
{
    uint8_t id;
    uint64_t v, n;
    T(byte(r, &id));
    T(uleb(r, &v)); /* every event: its time */
    switch (id) {
    case 0x00: case 0x10: /* alloc, alloc_bt */
        T(sleb(r)); T(sleb(r)); T(uleb(r, &v));
        if (id == 0x10) T(backtrace(r));
        return 0;
    case 0x11: { uint8_t b; T(byte(r, &b)); return byte(r, &b); } /* gc_event */
    case 0x21: return uleb(r, &v); /* gc_resize */
    case 0x31: /* gc_move */
        T(uleb(r, &n));
        for (uint64_t i = 0; i < n; i++) T(sleb(r));
        return 0;
    case 0x41: case 0x61: /* gc_handle_created(_bt) */
        T(uleb(r, &v)); T(uleb(r, &v)); T(sleb(r));
        if (id == 0x61) T(backtrace(r));
        return 0;
    case 0x51: case 0x71: /* gc_handle_destroyed(_bt) */
        T(uleb(r, &v)); T(uleb(r, &v));
        if (id == 0x71) T(backtrace(r));
        return 0;
    case 0x81: case 0x91: case 0x06: case 0x16: return 0; /* finalize start/end, heap start/end */
    case 0xA1: case 0xB1: case 0x04: return sleb(r); /* finalize object start/end, throw */
    case 0x84: T(sleb(r)); return backtrace(r); /* throw_bt */
    case 0x02: case 0x22: case 0x42: { /* metadata name/load/unload */
        uint8_t mt;
        T(byte(r, &mt));
        T(sleb(r));
        switch (mt) {
        case 1: case 3: T(sleb(r)); return cstr(r, 1048576); /* class, assembly */
        case 2: T(cstr(r, 1048576)); return cstr(r, 1048576); /* image */
        case 4: case 5: return id == 0x02 ? cstr(r, 1048576) : 0; /* domain, thread */
        case 6: return sleb(r); /* context */
        case 7: T(sleb(r)); return sleb(r); /* vtable */
        default: return BAD;
        }
    }
    case 0x13: case 0x23: case 0x33: return sleb(r); /* method leave/enter/exc_leave */
    case 0x43: T(sleb(r)); T(sleb(r)); T(uleb(r, &v)); return cstr(r, 1048576); /* jit */
    case 0x14: { uint8_t b; T(byte(r, &b)); T(uleb(r, &v)); T(sleb(r)); return sleb(r); } /* clause */
    case 0x05: case 0x85: { /* monitor(_bt) */
        uint8_t b;
        T(byte(r, &b)); T(sleb(r));
        return id == 0x85 ? backtrace(r) : 0;
    }
    case 0x26: { /* heap_object */
        uint8_t g;
        T(sleb(r)); T(sleb(r)); T(uleb(r, &v)); T(byte(r, &g));
        T(uleb(r, &n));
        for (uint64_t i = 0; i < n; i++) {
            T(uleb(r, &v));
            T(sleb(r));
        }
        return 0;
    }
    case 0x36: /* heap_root */
        T(uleb(r, &n));
        for (uint64_t i = 0; i < n; i++) {
            T(sleb(r));
            T(sleb(r));
        }
        return 0;
    case 0x46: { uint8_t b; T(sleb(r)); T(uleb(r, &v)); T(byte(r, &b)); T(sleb(r)); return cstr(r, 1048576); }
    case 0x56: return sleb(r); /* heap_root_unregister */
    case 0x07: /* sample_hit */
        T(sleb(r));
        for (int k = 0; k < 2; k++) T(backtrace(r)); /* ips, frames: counted signed LEB128s */
        return 0;
    case 0x17: T(sleb(r)); T(uleb(r, &v)); return cstr(r, 1048576); /* sample_usym */
    case 0x37: /* sample_counters_desc */
        T(uleb(r, &n));
        for (uint64_t i = 0; i < n; i++) {
            uint64_t section;
            T(uleb(r, &section));
            if (section == 32768) T(cstr(r, 65536));
            T(cstr(r, 1048576));
            for (int k = 0; k < 4; k++) T(uleb(r, &v));
        }
        return 0;
    case 0x47: /* sample_counters */
        for (;;) {
            uint64_t index, type;
            T(uleb(r, &index));
            if (index == 0) return 0;
            T(uleb(r, &type));
            if (type == 1 || type == 4) {
                T(uleb(r, &v));
            } else if (type == 5) {
                if (r->end - r->p < 8) return CUT;
                r->p += 8;
            } else if (type == 6) {
                uint8_t present;
                T(byte(r, &present));
                if (present) T(cstr(r, 1048576));
            } else {
                T(sleb(r));
            }
        }
    case 0x18: { /* jit_helper */
        uint8_t kind;
        T(byte(r, &kind)); T(sleb(r)); T(uleb(r, &v));
        return kind == 5 ? cstr(r, 1048576) : 0;
    }
    case 0x0A: { uint8_t b; return byte(r, &b); } /* sync_point */
    case 0x1A: return cstr(r, 1048576); /* aot_id */
    default: return BAD;
    }
}

static uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hand_mono FILE\n");
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 20, lo = 0, hi = 0;
    uint8_t *buf = malloc(cap);
    uint64_t base = 0, buffers = 0, events = 0;
    bool eof = false, header = false;
    for (;;) {
        /* what is buffered: whole units (the header, or one buffer) are checked; a unit that
         * runs past the buffered bytes is read again after a refill */
        size_t need = 0;
        while (lo < hi) {
            const uint8_t *p = buf + lo;
            size_t left = hi - lo;
            if (!header) {
                if (left < 38) { need = 38; break; }
                if (memcmp(p, "\1ZPM", 4) != 0 || p[4] != 3 || p[5] != 0 || p[6] != 17 || ld32(p + 28) != 0) goto bad;
                size_t at = 38;
                for (int k = 0; k < 3; k++) {
                    if (left < at + 4) { need = at + 4; break; }
                    uint32_t sz = ld32(p + at);
                    if (sz > 1048577 || sz == 0) goto bad;
                    if (left < at + 4 + sz) { need = at + 4 + sz; break; }
                    if (memchr(p + at + 4, 0, sz) != p + at + 4 + sz - 1) goto bad;
                    at += 4 + sz;
                }
                if (need) break;
                header = true;
                lo += at;
                continue;
            }
            if (left < 48) { need = 48; break; }
            if (memcmp(p, "\1LPM", 4) != 0) goto bad;
            uint32_t len = ld32(p + 4);
            if (left < 48 + (size_t)len) { need = 48 + (size_t)len; break; }
            rd r = { p + 48, p + 48 + len };
            while (r.p < r.end) {
                if (event(&r)) goto bad; /* a cut event is damage too: the buffer's end is hard */
                events++;
            }
            buffers++;
            lo += 48 + (size_t)len;
        }
        if (eof) {
            if (lo != hi || !header) goto bad;
            break;
        }
        /* refill, growing the buffer for a unit larger than it */
        memmove(buf, buf + lo, hi - lo);
        base += lo;
        hi -= lo;
        lo = 0;
        if (need > cap) {
            while (cap < need) cap *= 2;
            buf = realloc(buf, cap);
            if (!buf) return 2;
        }
        ssize_t got = read(fd, buf + hi, cap - hi);
        if (got < 0) return 2;
        if (got == 0) eof = true;
        hi += (size_t)got;
    }
    printf("%s: valid, %llu buffers, %llu events\n", argv[1], (unsigned long long)buffers, (unsigned long long)events);
    free(buf);
    return 0;
bad:
    fprintf(stderr, "%s: invalid at offset %llu\n", argv[1], (unsigned long long)(base + lo));
    return 1;
}
