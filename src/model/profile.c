/* model/profile.c: the profile model's tables (interning) and event hand-off. */
#include "model/profile.h"

#include "common/hash.h"
#include "common/vec.h"
#include <stdio.h>

const char *const pcd_dialect_names[PCD_DIALECT_N] = { "default", "austin", "cpython", "heph", "austin2" };

void pcd_profile_init(pcd_profile *p, pcd_alloc *al, const pcd_consumer *consumer)
{
    memset(p, 0, sizeof *p);
    p->al = al;
    p->time_origin = PCD_TIME_NONE;
    p->duration = PCD_TIME_NONE;
    p->period_type = -1;
    p->default_type = 0;
    if (consumer) p->consumer = *consumer;
    /* string 0 is "", stack 0 the empty stack */
    pcd_profile_str(p, "", 0);
    if (PCD_VEC_RESERVE(al, p->st, p->stacks_cap, 1) == PCD_OK) {
        memset(&p->st[0], 0, sizeof p->st[0]);
        p->st[0].frame = UINT32_MAX;
        p->n_stacks = 1;
    } else {
        p->oom = PCD_E_NOMEM;
    }
}

void pcd_profile_free(pcd_profile *p)
{
    pcd_alloc *al = p->al;
    pcd_strtab *t = &p->strings;
    PCD_VEC_FREE(al, t->pool, t->pool_cap);
    PCD_VEC_FREE(al, t->ent, t->cap);
    PCD_VEC_FREE(al, t->idx, t->idx_cap);
    PCD_VEC_FREE(al, p->frames, p->frames_cap);
    PCD_VEC_FREE(al, p->frame_idx, p->frame_idx_cap);
    PCD_VEC_FREE(al, p->st, p->stacks_cap);
    PCD_VEC_FREE(al, p->st_idx, p->st_idx_cap);
    PCD_VEC_FREE(al, p->threads, p->threads_cap);
    PCD_VEC_FREE(al, p->th_idx, p->th_idx_cap);
    PCD_VEC_FREE(al, p->meta, p->meta_cap);
    memset(p, 0, sizeof *p);
}

/* ---- open addressing over ids (slot = id + 1, 0 empty), load at most 1/2 ---------------- */
/* The strings', frames' and threads' indexes: a 4-byte id a slot into the tables that hold
 * the keys (a string's bytes; a frame's names, positions, module, address and kind; a thread's
 * key, pid, tid and name).
 * Not common/hmap.c (docs/design.md, "One hash, one table"): the key is wider than the
 * hmap's three words, and it is kept once, in the array the ids index; the hmap would
 * copy it into 48-byte slots or hold only its hash. */

typedef uint64_t (*id_hash_fn)(const pcd_profile *p, uint32_t id);

static pcd_status idx_grow(pcd_profile *p, uint32_t **idx, size_t *cap, size_t n, id_hash_fn hash)
{
    if ((n + 1) * 2 <= *cap) return PCD_OK;
    size_t ncap = *cap ? *cap * 2 : 256;
    uint32_t *q = pcd_alloc_get(p->al, ncap * sizeof *q);
    if (!q) return PCD_E_NOMEM;
    memset(q, 0, ncap * sizeof *q);
    for (size_t i = 0; i < *cap; i++) {
        uint32_t v = (*idx)[i];
        if (!v) continue;
        size_t j = hash(p, v - 1) & (ncap - 1);
        while (q[j]) j = (j + 1) & (ncap - 1);
        q[j] = v;
    }
    if (*idx) pcd_alloc_free(p->al, *idx, *cap * sizeof **idx);
    *idx = q;
    *cap = ncap;
    return PCD_OK;
}

/* ---- strings --------------------------------------------------------------------------- */

pcd_bytes pcd_profile_text(const pcd_profile *p, pcd_str s)
{
    /* (a table of "" alone has no pool yet) */
    pcd_bytes b = { p->strings.pool ? p->strings.pool + p->strings.ent[s].off : (const uint8_t *)"", p->strings.ent[s].len };
    return b;
}

static uint64_t str_hash(const pcd_profile *p, uint32_t id)
{
    pcd_bytes b = pcd_profile_text(p, id);
    return pcd_hash_key(b.ptr, b.len);
}

pcd_str pcd_profile_str(pcd_profile *p, const void *bytes, size_t n)
{
    pcd_strtab *t = &p->strings;
    if (n == 0 && t->n) return 0;
    if (n > UINT32_MAX || p->oom) {
        p->oom = PCD_E_NOMEM;
        return 0;
    }
    if (idx_grow(p, &t->idx, &t->idx_cap, t->n, str_hash) != PCD_OK) {
        p->oom = PCD_E_NOMEM;
        return 0;
    }
    uint64_t h = pcd_hash_key(bytes, n);
    size_t mask = t->idx_cap - 1, i = h & mask;
    for (; t->idx[i]; i = (i + 1) & mask) {
        uint32_t id = t->idx[i] - 1;
        if (t->ent[id].len == n && pcd_key_equal(t->pool + t->ent[id].off, bytes, n)) return id;
    }
    if (PCD_VEC_RESERVE(p->al, t->pool, t->pool_cap, t->pool_len + n) != PCD_OK ||
        PCD_VEC_RESERVE(p->al, t->ent, t->cap, t->n + 1) != PCD_OK || t->n >= UINT32_MAX - 1) {
        p->oom = PCD_E_NOMEM;
        return 0;
    }
    if (n) memcpy(t->pool + t->pool_len, bytes, n);
    t->ent[t->n].off = t->pool_len;
    t->ent[t->n].len = (uint32_t)n;
    t->pool_len += n;
    t->idx[i] = (uint32_t)t->n + 1;
    return (pcd_str)t->n++;
}

/* ---- frames ---------------------------------------------------------------------------- */

pcd_frame pcd_frame_blank(pcd_frame_kind kind)
{
    pcd_frame f;
    memset(&f, 0, sizeof f);
    f.line = f.end_line = f.column = f.end_column = PCD_POS_NONE;
    f.kind = (uint16_t)kind;
    return f;
}

static uint64_t frame_hash_of(const pcd_frame *f)
{
    uint64_t h = pcd_hash2(f->function, f->file);
    h = pcd_hash2(h, (uint64_t)f->line);
    h = pcd_hash2(h, (uint64_t)f->end_line ^ ((uint64_t)f->column << 1));
    h = pcd_hash2(h, (uint64_t)f->end_column ^ ((uint64_t)f->module << 32) ^ f->address);
    return pcd_hash2(h, ((uint64_t)f->key << 32 | (uint64_t)f->kind << 16 | f->flags) ^ (uint64_t)f->instr << 24);
}

static uint64_t frame_hash(const pcd_profile *p, uint32_t id) { return frame_hash_of(&p->frames[id]); }

static bool frame_eq(const pcd_frame *a, const pcd_frame *b)
{
    return a->function == b->function && a->file == b->file && a->line == b->line && a->end_line == b->end_line &&
           a->column == b->column && a->end_column == b->end_column && a->module == b->module &&
           a->address == b->address && a->kind == b->kind && a->flags == b->flags && a->key == b->key &&
           a->instr == b->instr;
}

pcd_frame_id pcd_profile_frame(pcd_profile *p, const pcd_frame *f)
{
    if (p->oom) return 0;
    if (idx_grow(p, &p->frame_idx, &p->frame_idx_cap, p->n_frames, frame_hash) != PCD_OK ||
        PCD_VEC_RESERVE(p->al, p->frames, p->frames_cap, p->n_frames + 1) != PCD_OK || p->n_frames >= UINT32_MAX - 1) {
        p->oom = PCD_E_NOMEM;
        return 0;
    }
    size_t mask = p->frame_idx_cap - 1, i = frame_hash_of(f) & mask;
    for (; p->frame_idx[i]; i = (i + 1) & mask) {
        uint32_t id = p->frame_idx[i] - 1;
        if (frame_eq(&p->frames[id], f)) return id;
    }
    p->frames[p->n_frames] = *f;
    p->frame_idx[i] = (uint32_t)p->n_frames + 1;
    return (pcd_frame_id)p->n_frames++;
}

void pcd_profile_reindex_frames(pcd_profile *p)
{
    if (!p->frame_idx) return;
    memset(p->frame_idx, 0, p->frame_idx_cap * sizeof *p->frame_idx);
    size_t mask = p->frame_idx_cap - 1;
    for (size_t id = 0; id < p->n_frames; id++) {
        size_t i = frame_hash(p, (uint32_t)id) & mask;
        bool dup = false;
        for (; p->frame_idx[i]; i = (i + 1) & mask)
            if (frame_eq(&p->frames[p->frame_idx[i] - 1], &p->frames[id])) {
                dup = true;
                break;
            }
        if (!dup) p->frame_idx[i] = (uint32_t)id + 1; /* (an equal frame found first keeps the index) */
    }
}

pcd_frame_id pcd_profile_frame_named(pcd_profile *p, pcd_frame_kind kind, pcd_str function)
{
    pcd_frame f = pcd_frame_blank(kind);
    f.function = function;
    return pcd_profile_frame(p, &f);
}

/* ---- stacks ---------------------------------------------------------------------------- */

static uint64_t stack_hash(const pcd_profile *p, uint32_t id) { return pcd_hash2(p->st[id].parent, p->st[id].frame); }

pcd_stack_id pcd_profile_push_slow(pcd_profile *p, pcd_stack_id parent, pcd_frame_id frame)
{
    if (p->oom) return PCD_STACK_EMPTY;
    uint64_t h = pcd_hash2(parent, frame);
    size_t mask = p->st_idx_cap - 1, i = h & mask;
    uint32_t id;
    /* a node that exists is found before anything grows */
    for (; p->st_idx_cap && p->st_idx[i]; i = (i + 1) & mask) {
        id = p->st_idx[i] - 1;
        if (p->st[id].parent == parent && p->st[id].frame == frame) goto found;
    }
    if ((p->n_stacks + 1) * 2 > p->st_idx_cap) {
        if (idx_grow(p, &p->st_idx, &p->st_idx_cap, p->n_stacks, stack_hash) != PCD_OK) {
            p->oom = PCD_E_NOMEM;
            return PCD_STACK_EMPTY;
        }
        mask = p->st_idx_cap - 1;
        for (i = h & mask; p->st_idx[i]; i = (i + 1) & mask) {}
    }
    if (PCD_VEC_RESERVE(p->al, p->st, p->stacks_cap, p->n_stacks + 1) != PCD_OK || p->n_stacks >= UINT32_MAX - 1) {
        p->oom = PCD_E_NOMEM;
        return PCD_STACK_EMPTY;
    }
    id = (uint32_t)p->n_stacks++;
    p->st[id].parent = parent;
    p->st[id].frame = frame;
    p->st[id].depth = p->st[parent].depth + 1;
    p->st[id].kid = 0;
    p->st_idx[i] = id + 1;
found:
    p->st[parent].kid = id;
    return id;
}

pcd_stack_id pcd_profile_stack(pcd_profile *p, const pcd_frame_id *frames, size_t n)
{
    pcd_stack_id s = PCD_STACK_EMPTY;
    for (size_t i = 0; i < n; i++) s = pcd_profile_push(p, s, frames[i]);
    return s;
}

void pcd_profile_trim(pcd_profile *p)
{
    if (p->stacks_cap <= p->n_stacks || !p->n_stacks) return;
    void *q = pcd_alloc_resize(p->al, p->st, p->stacks_cap * sizeof *p->st, p->n_stacks * sizeof *p->st);
    if (!q) return; /* (keeps the larger table) */
    p->st = q;
    p->stacks_cap = p->n_stacks;
}

size_t pcd_stack_frames(const pcd_profile *p, pcd_stack_id s, pcd_frame_id *out)
{
    size_t n = p->st[s].depth;
    for (size_t i = n; i > 0; i--) {
        out[i - 1] = p->st[s].frame;
        s = p->st[s].parent;
    }
    return n;
}

/* ---- threads --------------------------------------------------------------------------- */

pcd_thread pcd_thread_blank(void)
{
    pcd_thread t;
    memset(&t, 0, sizeof t);
    t.pid = PCD_ID_NONE;
    t.iid = PCD_ID_NONE;
    return t;
}

static uint64_t thread_hash_of(const pcd_thread *t)
{
    uint64_t h = pcd_hash2((uint64_t)t->pid, (uint64_t)t->iid);
    h = pcd_hash2(h, t->tid ^ (uint64_t)t->has_tid << 63);
    return pcd_hash2(h, (uint64_t)t->tid_text << 32 ^ t->key);
}

static uint64_t thread_hash(const pcd_profile *p, uint32_t id) { return thread_hash_of(&p->threads[id]); }

pcd_thread_id pcd_profile_thread(pcd_profile *p, const pcd_thread *t)
{
    if (p->oom) return 0;
    if (idx_grow(p, &p->th_idx, &p->th_idx_cap, p->n_threads, thread_hash) != PCD_OK ||
        PCD_VEC_RESERVE(p->al, p->threads, p->threads_cap, p->n_threads + 1) != PCD_OK) {
        p->oom = PCD_E_NOMEM;
        return 0;
    }
    size_t mask = p->th_idx_cap - 1, i = thread_hash_of(t) & mask;
    for (; p->th_idx[i]; i = (i + 1) & mask) {
        const pcd_thread *o = &p->threads[p->th_idx[i] - 1];
        if (o->pid == t->pid && o->iid == t->iid && o->tid == t->tid && o->has_tid == t->has_tid &&
            o->tid_text == t->tid_text && o->key == t->key)
            return p->th_idx[i] - 1;
    }
    p->threads[p->n_threads] = *t;
    p->th_idx[i] = (uint32_t)p->n_threads + 1;
    return (pcd_thread_id)p->n_threads++;
}

void pcd_profile_thread_name(pcd_profile *p, pcd_thread_id t, pcd_str name, pcd_str process_name)
{
    if (t >= p->n_threads) return;
    if (name) p->threads[t].name = name;
    if (process_name) p->threads[t].process_name = process_name;
}

/* ---- sample types ------------------------------------------------------------------------ */

int pcd_profile_add_type_str(pcd_profile *p, pcd_str name, pcd_str unit, pcd_str title)
{
    if (p->n_types == PCD_MAX_SAMPLE_TYPES) return -1;
    pcd_sample_type *t = &p->types[p->n_types];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->unit = unit;
    t->title = title;
    p->all_types |= 1u << p->n_types;
    return (int)p->n_types++;
}

int pcd_profile_add_type(pcd_profile *p, const char *name, const char *unit, const char *title)
{
    if (p->n_types == PCD_MAX_SAMPLE_TYPES) return -1;
    return pcd_profile_add_type_str(p, pcd_profile_strz(p, name), pcd_profile_strz(p, unit),
                                    title ? pcd_profile_strz(p, title) : 0);
}

void pcd_profile_type_signed(pcd_profile *p, int i)
{
    if (i < 0 || (size_t)i >= p->n_types) return;
    p->types[i].is_signed = true;
    p->types[i].listed = true;
    p->signed_types |= 1u << i;
}

void pcd_profile_alias(pcd_profile *p, const char *alias, int type)
{
    if (p->n_aliases == sizeof p->aliases / sizeof p->aliases[0] || type < 0) return;
    p->aliases[p->n_aliases].alias = pcd_profile_strz(p, alias);
    p->aliases[p->n_aliases].type = type;
    p->n_aliases++;
}

static bool text_is(const pcd_profile *p, pcd_str s, const char *z)
{
    pcd_bytes b = pcd_profile_text(p, s);
    return b.len == strlen(z) && memcmp(b.ptr, z, b.len) == 0;
}

/* A metric's name without a trailing "-time", "_time" or " time" (when something comes before
 * it), as *len bytes from s: "wall-time", "Wall time" and "wall" all give "wall". */
static size_t metric_stem(const uint8_t *s, size_t len)
{
    static const char *const tails[] = { "-time", "_time", " time" };
    for (size_t k = 0; k < sizeof tails / sizeof tails[0]; k++) {
        size_t n = strlen(tails[k]), i = 0;
        if (len <= n) continue;
        while (i < n && (s[len - n + i] | (i ? 0x20 : 0)) == (uint8_t)tails[k][i]) i++;
        if (i == n) return len - n;
    }
    return len;
}

static bool stem_is(pcd_bytes b, const char *z, size_t zn)
{
    size_t n = metric_stem(b.ptr, b.len);
    if (n != zn || !n) return false;
    for (size_t i = 0; i < n; i++)
        if (((uint8_t)b.ptr[i] | 0x20) != ((uint8_t)z[i] | 0x20)) return false;
    return true;
}

int pcd_profile_find_type(const pcd_profile *p, const char *name)
{
    for (size_t i = 0; i < p->n_aliases; i++)
        if (text_is(p, p->aliases[i].alias, name)) return p->aliases[i].type;
    for (size_t i = 0; i < p->n_types; i++)
        if (text_is(p, p->types[i].name, name)) return (int)i;
    return -1;
}

int pcd_profile_find_metric(const pcd_profile *p, const char *name)
{
    int t = pcd_profile_find_type(p, name);
    if (t >= 0) return t;
    /* what users type: "wall" or "cpu" for the types named "time" (titled "Wall time") and
     * "cpu-time"; any case; with or without "-time". Names first, then titles. */
    size_t zn = metric_stem((const uint8_t *)name, strlen(name));
    for (size_t i = 0; i < p->n_types; i++)
        if (stem_is(pcd_profile_text(p, p->types[i].name), name, zn)) return (int)i;
    for (size_t i = 0; i < p->n_types; i++)
        if (p->types[i].title && stem_is(pcd_profile_text(p, p->types[i].title), name, zn)) return (int)i;
    return -1;
}

/* ---- events -------------------------------------------------------------------------------- */

pcd_status pcd_profile_begin(pcd_profile *p)
{
    if (p->begun) return PCD_OK;
    p->begun = true;
    if (p->oom) return p->oom;
    return p->consumer.begin ? p->consumer.begin(p->consumer.ud, p) : PCD_OK;
}

pcd_status pcd_profile_meta(pcd_profile *p, pcd_str key, pcd_str value)
{
    PCD_TRY(pcd_profile_begin(p));
    if (PCD_VEC_RESERVE(p->al, p->meta, p->meta_cap, p->n_meta + 1) != PCD_OK) return p->oom = PCD_E_NOMEM;
    p->meta[p->n_meta].key = key;
    p->meta[p->n_meta].value = value;
    p->n_meta++;
    return p->consumer.meta ? p->consumer.meta(p->consumer.ud, p, key, value) : PCD_OK;
}

pcd_str pcd_profile_meta_get(const pcd_profile *p, const char *key)
{
    for (size_t i = 0; i < p->n_meta; i++)
        if (text_is(p, p->meta[i].key, key)) return p->meta[i].value;
    return 0;
}

void pcd_profile_note_values(pcd_profile *p, const pcd_sample *s)
{
    /* only the types that have had no value yet, and the signed ones no negative one yet */
    for (uint32_t todo = (p->all_types & ~p->valued) | (p->signed_types & ~p->negative); todo; todo &= todo - 1) {
        int t = __builtin_ctz(todo);
        uint64_t v = s->values[t];
        if (v) p->valued |= 1u << t;
        if ((p->signed_types >> t & 1) && pcd_value_i64(v) < 0) p->negative |= 1u << t;
    }
}

pcd_status pcd_profile_sample_slow(pcd_profile *p, const pcd_sample *s)
{
    if (PCD_UNLIKELY(!p->begun)) PCD_TRY(pcd_profile_begin(p));
    if (PCD_UNLIKELY(p->oom)) return p->oom;
    p->n_samples++;
    pcd_profile_note_values(p, s);
    return p->consumer.sample ? p->consumer.sample(p->consumer.ud, p, s) : PCD_OK;
}

pcd_status pcd_profile_slice(pcd_profile *p, const pcd_slice *s)
{
    if (PCD_UNLIKELY(!p->begun)) PCD_TRY(pcd_profile_begin(p));
    if (PCD_UNLIKELY(p->oom)) return p->oom;
    p->n_slices++;
    return p->consumer.slice ? p->consumer.slice(p->consumer.ud, p, s) : PCD_OK;
}

pcd_status pcd_profile_link(pcd_profile *p, const pcd_link *l)
{
    if (PCD_UNLIKELY(!p->begun)) PCD_TRY(pcd_profile_begin(p));
    if (PCD_UNLIKELY(p->oom)) return p->oom;
    return p->consumer.link ? p->consumer.link(p->consumer.ud, p, l) : PCD_OK;
}

pcd_status pcd_profile_end(pcd_profile *p)
{
    if (p->ended) return PCD_OK;
    PCD_TRY(pcd_profile_begin(p));
    p->ended = true;
    p->valued_final = true;
    if (p->before_end) PCD_TRY(p->before_end(p->before_end_ud, p));
    return p->consumer.end ? p->consumer.end(p->consumer.ud, p) : PCD_OK;
}

/* ---- what the profile held ------------------------------------------------------------------- */

void pcd_profile_values_ahead(pcd_profile *p, uint32_t valued)
{
    p->valued = valued & p->all_types;
    p->valued_final = true;
    pcd_profile_settle_default(p);
}

bool pcd_profile_type_valued(const pcd_profile *p, int t)
{
    if (t < 0 || (size_t)t >= p->n_types) return false;
    return !p->valued_final || (p->valued >> t & 1);
}

const char *pcd_profile_type_names(char *buf, size_t cap, const pcd_profile *p, uint32_t mask)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t t = 0; t < p->n_types && n + 1 < cap; t++) {
        if (!(mask >> t & 1)) continue;
        pcd_bytes b = pcd_profile_text(p, p->types[t].name);
        n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", n ? ", " : "", (int)(b.len > 64 ? 64 : b.len),
                              (const char *)b.ptr);
        if (n >= cap) n = cap - 1;
    }
    return buf;
}

void pcd_profile_settle_default(pcd_profile *p)
{
    int d = p->default_type;
    if (d >= 0 && (size_t)d < p->n_types && (p->valued >> d & 1)) return;
    for (size_t t = 0; t < p->n_types; t++)
        if ((p->valued >> t & 1) && !p->types[t].secondary) {
            p->default_type = (int)t;
            return;
        }
    for (size_t t = 0; t < p->n_types; t++)
        if (p->valued >> t & 1) {
            p->default_type = (int)t;
            return;
        }
}
