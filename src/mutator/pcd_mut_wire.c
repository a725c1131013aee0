/* pcd_mut_wire.c: pb_wire, one protobuf message of an encoded file written in another form
 * the wire format allows (protobuf's encoding guide: "Message Structure", "Packed Repeated
 * Fields", "Last One Wins").
 *
 * The encoder writes protobuf in its canonical form: fields in number order, each once, varints
 * in their fewest bytes, repeated numbers packed. A reader must take every other form too, and
 * the code that does is what a canonical file never reaches: the coverage diff of the fourth
 * round (bench/RESULTS.md) found byte-level fuzzing's lead on gzip pprof there, in the
 * generated decoder's duplicate-occurrence, unknown-field and varint-length branches. The
 * forms, one a call, in one message chosen at some depth (a length-delimited field whose
 * payload reads whole as a message is descended into). At each depth the field is drawn by
 * its number first (each number present as likely as another), then one of its occurrences:
 * a profile's one mapping is as likely a target as its thousands of samples taken together
 * (drawn by occurrence, as before, the mapping's forms were almost never written: the fourth
 * round's coverage diff, bench/RESULTS.md):
 *   overlong    a key, a varint value or a length written in more bytes (up to ten),
 *   dup         a field written twice (a scalar: the last one wins; repeated: one more),
 *   unknown     a field of a number the message does not use, of any wire type,
 *   swap        two neighbouring fields of different numbers in the other order,
 *   unpack      a packed run of varints written as one field a value,
 *   pack        neighbouring varint fields of one number written as one packed run.
 * Lengths of the messages around it are written again. The engine keeps the result of dup,
 * unknown, unpack and pack only if our own decoder reads the whole file (a form this schema
 * does not allow there, such as a string unpacked, is tried again differently); overlong and
 * swap are forms every reader takes. So the kind keeps the file decodable. */
#include "pcd_mut_int.h"

#include <stdio.h>
#include <string.h>

#define WIRE_MAX_FIELDS 8192   /* a message with more is left as it is */
#define WIRE_MAX_DEPTH 4

typedef struct wfield {
    uint32_t number;
    uint8_t wt;                  /* wire type: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32 */
    const uint8_t *at;           /* the key's first byte */
    const uint8_t *val;          /* the value (for wt 2: the payload, after the length) */
    size_t klen, vlen;           /* the key's bytes; the value's (wt 2: the payload's) */
    size_t len;                  /* the whole field */
} wfield;

static size_t get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t k = 0; k < 10 && p + k < end; k++) {
        x |= (uint64_t)(p[k] & 0x7F) << (7 * k);
        if (!(p[k] & 0x80)) {
            *v = x;
            return k + 1;
        }
    }
    return 0;
}

/* v in exactly width bytes (width >= its fewest, <= 10): the groups after its last are zero */
static size_t put_varint(uint8_t *p, uint64_t v, size_t width)
{
    for (size_t k = 0; k < width; k++) {
        uint8_t b = (uint8_t)(v & 0x7F);
        v >>= 7;
        p[k] = k + 1 < width ? (uint8_t)(b | 0x80) : b;
    }
    return width;
}

/* One field at p; 0: not a field (a bad key, a wire type of groups, or past end) */
static size_t read_field(const uint8_t *p, const uint8_t *end, wfield *f)
{
    uint64_t key = 0, v = 0;
    size_t kl = get_varint(p, end, &key);
    if (!kl || key >> 3 == 0 || key >> 3 > 0x1FFFFFFF) return 0;
    f->number = (uint32_t)(key >> 3);
    f->wt = (uint8_t)(key & 7);
    f->at = p;
    f->klen = kl;
    const uint8_t *q = p + kl;
    switch (f->wt) {
    case 0: {
        size_t vl = get_varint(q, end, &v);
        if (!vl) return 0;
        f->val = q;
        f->vlen = vl;
        break;
    }
    case 1: case 5: {
        size_t w = f->wt == 1 ? 8 : 4;
        if ((size_t)(end - q) < w) return 0;
        f->val = q;
        f->vlen = w;
        break;
    }
    case 2: {
        size_t ll = get_varint(q, end, &v);
        if (!ll || v > (uint64_t)(end - q - (ptrdiff_t)ll)) return 0;
        f->val = q + ll;
        f->vlen = (size_t)v;
        break;
    }
    default:
        return 0;
    }
    f->len = (size_t)(f->val + f->vlen - p);
    return f->len;
}

/* The fields of a message; false: not a message whole (or too many fields) */
static bool read_message(const uint8_t *p, size_t n, wfield *fs, size_t *nf)
{
    const uint8_t *end = p + n;
    size_t k = 0;
    while (p < end) {
        if (k == WIRE_MAX_FIELDS) return false;
        size_t l = read_field(p, end, &fs[k]);
        if (!l) return false;
        p += l;
        k++;
    }
    *nf = k;
    return true;
}

typedef struct wout {
    uint8_t *p;
    size_t n, cap;
    bool full;
} wout;

static void put(wout *o, const void *b, size_t n)
{
    if (o->full || n > o->cap - o->n) {
        o->full = true;
        return;
    }
    if (n) memcpy(o->p + o->n, b, n);
    o->n += n;
}

static void put_v(wout *o, uint64_t v, size_t width)
{
    uint8_t b[10];
    put(o, b, put_varint(b, v, width ? width : pcd_size_uleb128(v)));
}

static void put_field(wout *o, const wfield *f) { put(o, f->at, f->len); }

/* an integer of the kinds a reader meets: small, a varint length edge, the largest */
static uint64_t any_value(pcd_mut *m)
{
    switch (pcd_mut_below(m, 4)) {
    case 0: return pcd_mut_below(m, 128);
    case 1: return ((uint64_t)1 << (7 * (1 + pcd_mut_below(m, 9)))) - pcd_mut_below(m, 2);
    case 2: return pcd_mut_rand(m);
    default: return UINT64_MAX;
    }
}

#define WIRE_MAX_NUMBERS 64    /* distinct numbers drawn among (more: the later ones as the last) */

/* A field of fs[0..nf) drawn by number, then occurrence (msgs: length-delimited ones with a
 * payload only; skip: a number not to draw, 0: none); SIZE_MAX: none there. */
static size_t pick_field(pcd_mut *m, const wfield *fs, size_t nf, bool msgs, uint32_t skip)
{
    uint32_t num[WIRE_MAX_NUMBERS];
    size_t cnt[WIRE_MAX_NUMBERS], nn = 0;
    for (size_t k = 0; k < nf; k++) {
        if ((msgs && (fs[k].wt != 2 || !fs[k].vlen)) || fs[k].number == skip) continue;
        size_t j = 0;
        while (j < nn && num[j] != fs[k].number) j++;
        if (j == nn) {
            if (nn == WIRE_MAX_NUMBERS) j = nn - 1;
            else {
                num[nn] = fs[k].number;
                cnt[nn++] = 0;
            }
        }
        cnt[j]++;
    }
    if (!nn) return SIZE_MAX;
    size_t w = (size_t)pcd_mut_below(m, nn), occ = (size_t)pcd_mut_below(m, cnt[w]);
    for (size_t k = 0; k < nf; k++) {
        if ((msgs && (fs[k].wt != 2 || !fs[k].vlen)) || fs[k].number == skip) continue;
        bool in_w = fs[k].number == num[w];
        if (!in_w && w == WIRE_MAX_NUMBERS - 1) {   /* (the bucket of the numbers beyond) */
            in_w = true;
            for (size_t j = 0; j + 1 < nn && in_w; j++) in_w = fs[k].number != num[j];
        }
        if (in_w && occ-- == 0) return k;
    }
    return SIZE_MAX;
}

static const char *const form_names[] = { "overlong", "dup", "unknown", "swap", "unpack", "pack" };

/* one form on the message of fields fs, written to o; the form's index, -1: none applies */
static int rewrite_here(pcd_mut *m, const wfield *fs, size_t nf, wout *o, char *what, size_t wcap)
{
    int form = (int)pcd_mut_below(m, 6);
    size_t i = nf ? pick_field(m, fs, nf, false, 0) : 0;
    if (!nf && form != 2) return -1;
    switch (form) {
    case 0: {   /* overlong: the key, the varint value or the length */
        const wfield *f = &fs[i];
        int part = (int)pcd_mut_below(m, f->wt == 0 || f->wt == 2 ? 2 : 1);
        uint64_t v = 0;
        for (size_t k = 0; k < i; k++) put_field(o, &fs[k]);
        if (part == 0) {
            if (f->klen >= 10) return -1;
            size_t w = f->klen + 1 + (size_t)pcd_mut_below(m, 10 - f->klen);
            put_v(o, (uint64_t)f->number << 3 | f->wt, w);
            put(o, f->at + f->klen, f->len - f->klen);
            snprintf(what, wcap, "overlong key of field %u (%zu -> %zu bytes)", f->number, f->klen, w);
        } else if (f->wt == 0) {
            if (f->vlen >= 10) return -1;
            get_varint(f->val, f->val + f->vlen, &v);
            size_t w = f->vlen + 1 + (size_t)pcd_mut_below(m, 10 - f->vlen);
            put(o, f->at, f->klen);
            put_v(o, v, w);
            snprintf(what, wcap, "overlong value of field %u (%zu -> %zu bytes)", f->number, f->vlen, w);
        } else {
            size_t ll = (size_t)(f->val - f->at) - f->klen;
            if (ll >= 10) return -1;
            size_t w = ll + 1 + (size_t)pcd_mut_below(m, 10 - ll);
            put(o, f->at, f->klen);
            put_v(o, f->vlen, w);
            put(o, f->val, f->vlen);
            snprintf(what, wcap, "overlong length of field %u (%zu -> %zu bytes)", f->number, ll, w);
        }
        for (size_t k = i + 1; k < nf; k++) put_field(o, &fs[k]);
        return form;
    }
    case 1:     /* dup */
        for (size_t k = 0; k <= i; k++) put_field(o, &fs[k]);
        for (size_t k = i; k < nf; k++) put_field(o, &fs[k]);
        snprintf(what, wcap, "dup field %u (wire type %u)", fs[i].number, fs[i].wt);
        return form;
    case 2: {   /* unknown: a number this message instance does not use */
        uint32_t num = 0;
        for (int t = 0; t < 8 && !num; t++) {
            uint32_t c;
            switch (pcd_mut_below(m, 3)) {
            case 0: c = 1 + (uint32_t)pcd_mut_below(m, 31); break;          /* a one-byte key */
            case 1: c = 16 + (uint32_t)pcd_mut_below(m, 2032); break;       /* a two-byte key */
            default: c = 0x1FFFFFFF - (uint32_t)pcd_mut_below(m, 4); break; /* the largest */
            }
            bool used = false;
            for (size_t k = 0; k < nf && !used; k++) used = fs[k].number == c;
            if (!used) num = c;
        }
        if (!num) return -1;
        static const uint8_t wts[4] = { 0, 1, 2, 5 };
        uint8_t wt = wts[pcd_mut_below(m, 4)];
        for (size_t k = 0; k < i; k++) put_field(o, &fs[k]);
        put_v(o, (uint64_t)num << 3 | wt, 0);
        uint64_t v = any_value(m);
        uint8_t b[8];
        for (int k = 0; k < 8; k++) b[k] = (uint8_t)(v >> (8 * k));
        if (wt == 0) put_v(o, v, 0);
        else if (wt == 1) put(o, b, 8);
        else if (wt == 5) put(o, b, 4);
        else {
            size_t l = (size_t)pcd_mut_below(m, 9);
            put_v(o, l, 0);
            put(o, b, l > 8 ? 8 : l);
            for (size_t k = 8; k < l; k++) put(o, "", 1);
        }
        for (size_t k = i; k < nf; k++) put_field(o, &fs[k]);
        snprintf(what, wcap, "unknown field %u (wire type %u) before field %zu of %zu", num, wt, i, nf);
        return form;
    }
    case 3: {   /* swap two neighbours of different numbers */
        for (size_t t = 0; t < nf && nf > 1; t++) {
            size_t j = (i + t) % (nf - 1);
            if (fs[j].number == fs[j + 1].number) continue;
            for (size_t k = 0; k < j; k++) put_field(o, &fs[k]);
            put_field(o, &fs[j + 1]);
            put_field(o, &fs[j]);
            for (size_t k = j + 2; k < nf; k++) put_field(o, &fs[k]);
            snprintf(what, wcap, "swap fields %u and %u", fs[j].number, fs[j + 1].number);
            return form;
        }
        return -1;
    }
    case 4: {   /* unpack: a length-delimited field that reads as varints, one field a value */
        for (size_t t = 0; t < nf; t++) {
            const wfield *f = &fs[(i + t) % nf];
            if (f->wt != 2 || !f->vlen) continue;
            const uint8_t *p = f->val, *end = f->val + f->vlen;
            size_t cnt = 0;
            uint64_t v = 0;
            size_t l;
            while (p < end && (l = get_varint(p, end, &v)) > 0) {
                p += l;
                cnt++;
            }
            if (p != end) continue;
            size_t at = (size_t)(f - fs);
            for (size_t k = 0; k < at; k++) put_field(o, &fs[k]);
            for (p = f->val; p < end; p += l) {
                l = get_varint(p, end, &v);
                put_v(o, (uint64_t)f->number << 3, 0);
                put(o, p, l);
            }
            for (size_t k = at + 1; k < nf; k++) put_field(o, &fs[k]);
            snprintf(what, wcap, "unpack field %u (%zu values)", f->number, cnt);
            return form;
        }
        return -1;
    }
    default: {  /* pack: a run of varint fields of one number */
        for (size_t t = 0; t < nf; t++) {
            size_t j = (i + t) % nf, e = j + 1, sum = 0;
            if (fs[j].wt != 0) continue;
            while (e < nf && fs[e].wt == 0 && fs[e].number == fs[j].number) e++;
            for (size_t k = j; k < e; k++) sum += fs[k].vlen;
            for (size_t k = 0; k < j; k++) put_field(o, &fs[k]);
            put_v(o, (uint64_t)fs[j].number << 3 | 2, 0);
            put_v(o, sum, 0);
            for (size_t k = j; k < e; k++) put(o, fs[k].val, fs[k].vlen);
            for (size_t k = e; k < nf; k++) put_field(o, &fs[k]);
            snprintf(what, wcap, "pack field %u (%zu values)", fs[j].number, e - j);
            return form;
        }
        return -1;
    }
    }
}

/* The message p[0..n) to o with one form somewhere inside; the form, -1: none written */
static int rewrite(pcd_mut *m, wfield *stack, const uint8_t *p, size_t n, int depth, wout *o, char *path,
                   size_t pcap, char *what, size_t wcap)
{
    wfield *fs = stack + (size_t)depth * WIRE_MAX_FIELDS;
    size_t nf;
    if (!read_message(p, n, fs, &nf)) return -1;
    if (depth < WIRE_MAX_DEPTH && nf && pcd_mut_chance(m, 0.75)) {
        /* into a length-delimited field that reads as a message: its number drawn, then an
         * occurrence (a number none of whose tried occurrences reads as one is left out next) */
        uint32_t skip = 0;
        for (size_t t = 0; t < 16; t++) {
            size_t i = pick_field(m, fs, nf, true, skip);
            if (i == SIZE_MAX) break;
            const wfield *f = &fs[i];
            size_t sub;
            if (!read_message(f->val, f->vlen, fs + WIRE_MAX_FIELDS, &sub)) {
                if (t % 4 == 3) skip = f->number;
                continue;
            }
            size_t pl = strlen(path);
            snprintf(path + pl, pcap - pl, "%s%u[%zu]", pl ? "." : "", f->number, i);
            for (size_t k = 0; k < i; k++) put_field(o, &fs[k]);
            put(o, f->at, f->klen);
            /* the payload after room for the longest length, then moved to its length */
            size_t at = o->n;
            if (o->full || o->cap - o->n < 10) {
                o->full = true;
                return -1;
            }
            wout s = { o->p + at + 10, 0, o->cap - at - 10, false };
            int form = rewrite(m, stack, f->val, f->vlen, depth + 1, &s, path, pcap, what, wcap);
            if (form < 0 || s.full) {
                if (s.full) o->full = true;
                return -1;
            }
            uint8_t b[10];
            size_t ll = put_varint(b, s.n, pcd_size_uleb128(s.n));
            memcpy(o->p + at, b, ll);
            memmove(o->p + at + ll, o->p + at + 10, s.n);
            o->n = at + ll + s.n;
            for (size_t k = i + 1; k < nf; k++) put_field(o, &fs[k]);
            return form;
        }
    }
    return rewrite_here(m, fs, nf, o, what, wcap);
}

/* pb_wire on the protobuf in buf[0..*n) (room for cap), tried a few times until our decoder
 * reads the result whole; false: nothing written (buf unchanged). */
bool pcd_mut_pb_wire(pcd_mut *m, uint8_t *buf, size_t *n, size_t cap)
{
    size_t need = *n + *n / 2 + 256;
    if (need > cap) need = cap;
    size_t fields_bytes = (size_t)WIRE_MAX_FIELDS * (WIRE_MAX_DEPTH + 1) * sizeof(wfield);
    if (m->wbuf_cap < need + fields_bytes) {
        size_t c = need + fields_bytes;
        uint8_t *q = pcd_alloc_resize(m->al, m->wbuf, m->wbuf_cap, c);
        if (!q) return false;
        m->wbuf = q;
        m->wbuf_cap = c;
    }
    wfield *stack = (wfield *)(void *)m->wbuf;
    uint8_t *tmp = m->wbuf + fields_bytes;
    for (int t = 0; t < 6; t++) {
        char path[128] = "", what[160] = "";
        wout o = { tmp, 0, need, false };
        int form = rewrite(m, stack, buf, *n, 0, &o, path, sizeof path, what, sizeof what);
        if (form < 0 || o.full || o.n > cap) continue;
        /* a longer varint, or two fields of different numbers in the other order, is a form
         * every protobuf reader takes, ours included (test_pb_wire reads each output whole);
         * the others can meet what the schema does not allow there (a string unpacked, a
         * key defined twice) and are checked */
        if (form != 0 && form != 3 && !pcd_mut_decodes(m, tmp, o.n)) continue;
        memcpy(buf, tmp, o.n);
        pcd_mut_note(m, "pb_wire %s in message %s: %zu -> %zu bytes", what, path[0] ? path : "(root)", *n, o.n);
        *n = o.n;
        m->wire_forms |= 1u << form;
        return true;
    }
    pcd_mut_note(m, "pb_wire: no other form found that decodes");
    return false;
}

const char *pcd_mut_wire_form_name(int form)
{
    return form >= 0 && form < (int)(sizeof form_names / sizeof *form_names) ? form_names[form] : "?";
}
