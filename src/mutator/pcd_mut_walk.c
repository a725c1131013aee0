/* pcd_mut_walk.c: records through their descriptors: deep copies, the mutable sites of a
 * record, integers by kind, the key definitions of a file. */
#include "pcd_mut_int.h"

#include <stdio.h>
#include <string.h>

size_t pcd_mut_elem_size(const pcd_field *f)
{
    switch (f->elem_kind) {
    case PCD_K_U8: case PCD_K_S8: return 1;
    case PCD_K_U16: case PCD_K_S16: return 2;
    case PCD_K_U32: case PCD_K_S32: case PCD_K_F32: return 4;
    case PCD_K_U64: case PCD_K_S64: case PCD_K_F64: return 8;
    case PCD_K_BOOL: return sizeof(bool);
    case PCD_K_BYTES: case PCD_K_STRING: return sizeof(pcd_bytes);
    case PCD_K_MOJO: return sizeof(pcd_mojo_int);
    case PCD_K_STRUCT: case PCD_K_UNION: return f->type ? f->type->size : 0;
    case PCD_K_PB_FIELD: return sizeof(pcd_pb_field);
    default: return 0;
    }
}

bool pcd_mut_is_int(uint8_t kind) { return kind >= PCD_K_U8 && kind <= PCD_K_S64; }

uint64_t pcd_mut_get_int(uint8_t kind, const void *p)
{
    switch (kind) {
    case PCD_K_U8: return *(const uint8_t *)p;
    case PCD_K_U16: return *(const uint16_t *)p;
    case PCD_K_U32: return *(const uint32_t *)p;
    case PCD_K_U64: return *(const uint64_t *)p;
    case PCD_K_S8: return (uint64_t)(int64_t)*(const int8_t *)p;
    case PCD_K_S16: return (uint64_t)(int64_t)*(const int16_t *)p;
    case PCD_K_S32: return (uint64_t)(int64_t)*(const int32_t *)p;
    case PCD_K_S64: return (uint64_t)*(const int64_t *)p;
    case PCD_K_MOJO: {
        const pcd_mojo_int *v = p;
        return v->neg ? (uint64_t)0 - v->mag : v->mag;
    }
    default: return 0;
    }
}

void pcd_mut_set_int(uint8_t kind, void *p, uint64_t v)
{
    switch (kind) {
    case PCD_K_U8: case PCD_K_S8: *(uint8_t *)p = (uint8_t)v; break;
    case PCD_K_U16: case PCD_K_S16: *(uint16_t *)p = (uint16_t)v; break;
    case PCD_K_U32: case PCD_K_S32: *(uint32_t *)p = (uint32_t)v; break;
    case PCD_K_U64: case PCD_K_S64: *(uint64_t *)p = v; break;
    case PCD_K_MOJO: {
        pcd_mojo_int *m = p;
        m->neg = (int64_t)v < 0;
        m->mag = m->neg ? (uint64_t)0 - v : v;
        break;
    }
    default: break;
    }
}

static bool copy_bytes(pcd_arena *a, pcd_bytes *b)
{
    if (!b->len) return true;
    uint8_t *q = pcd_arena_alloc(a, b->len);
    if (!q) return false;
    memcpy(q, b->ptr, b->len);
    b->ptr = q;
    return true;
}

static bool copy_value(pcd_arena *a, const pcd_field *f, uint8_t kind, void *dst);

/* Everything a field's value points to, copied into a (dst already holds the pointers). */
static bool copy_array(pcd_arena *a, const pcd_field *f, void *owner)
{
    void **pp = (void **)((uint8_t *)owner + f->offset);
    size_t n = *(size_t *)((uint8_t *)owner + f->aux), es = pcd_mut_elem_size(f);
    if (!n || !*pp) return true;
    if (!es || n > SIZE_MAX / es) return false;
    uint8_t *q = pcd_arena_alloc(a, n * es);
    if (!q) return false;
    memcpy(q, *pp, n * es);
    *pp = q;
    for (size_t i = 0; i < n; i++)
        if (!copy_value(a, f, f->elem_kind, q + i * es)) return false;
    return true;
}

static bool copy_value(pcd_arena *a, const pcd_field *f, uint8_t kind, void *dst)
{
    switch (kind) {
    case PCD_K_BYTES: case PCD_K_STRING: return copy_bytes(a, dst);
    case PCD_K_STRUCT: case PCD_K_UNION: return f->type ? pcd_mut_copy(a, f->type, dst, dst) : true;
    case PCD_K_PB_FIELD: return copy_bytes(a, &((pcd_pb_field *)dst)->bytes);
    default: return true;
    }
}

bool pcd_mut_copy(pcd_arena *a, const pcd_type *t, void *dst, const void *src)
{
    if (dst != src) memcpy(dst, src, t->size);
    uint8_t *d = dst;
    if (t->is_union) {
        uint32_t w = *(const uint32_t *)d;
        if (w >= t->n_fields) return true;
        const pcd_field *f = &t->fields[w];
        if (f->kind == PCD_K_ARRAY) return copy_array(a, f, d);
        return copy_value(a, f, f->kind, d + f->offset);
    }
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *f = &t->fields[i];
        if (f->kind == PCD_K_ARRAY) {
            if (!copy_array(a, f, d)) return false;
        } else if (f->kind == PCD_K_PB_OTHER) {
            pcd_field pf = *f;
            pf.elem_kind = PCD_K_PB_FIELD;
            if (!copy_array(a, &pf, d)) return false;
        } else if (!copy_value(a, f, f->kind, d + f->offset)) {
            return false;
        }
    }
    if (t->layout_at) {
        pcd_pb_layout *l = (pcd_pb_layout *)(d + t->layout_at - 1);
        if (l->n) {
            pcd_pb_run *q = pcd_arena_alloc(a, l->n * sizeof *q);
            if (!q) return false;
            memcpy(q, l->runs, l->n * sizeof *q);
            l->runs = q;
        }
    }
    return true;
}

void pcd_mut_edit(pcd_mut *m, size_t a, size_t b, size_t c)
{
    bool in = m->dlo != SIZE_MAX && a >= m->dlo && (m->dhi == SIZE_MAX || b <= m->dhi);
    if (in && c == b - a) return;   /* inside the window, the count kept */
    if (!in && b == a + 1 && c == 1) {
        /* one record changed in place, outside the window: a point */
        for (uint32_t i = 0; i < m->npts; i++)
            if (m->pts[i] == a) return;
        if (m->npts < MUT_MAX_POINTS) {
            m->pts[m->npts++] = a;
            return;
        }
    }
    /* the points after the change move with it; those in what it replaced are the window's now */
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->npts; i++) {
        size_t p = m->pts[i];
        if (p >= b) p = p - b + a + c;
        else if (p >= a) continue;
        m->pts[k++] = p;
    }
    m->npts = k;
    if (m->dlo == SIZE_MAX) {
        /* w was pristine's records (but for points): the window is what came in */
        m->dlo = a;
        m->dhi = a + c;
    } else {
        if (a < m->dlo) m->dlo = a;
        /* what followed the window still follows it (moved by the change); a change after the
         * window takes in what lies between */
        if (m->dhi != SIZE_MAX) m->dhi = m->dhi > b ? m->dhi - b + a + c : a + c;
    }
    k = 0;
    for (uint32_t i = 0; i < m->npts; i++)
        if (m->pts[i] < m->dlo || (m->dhi != SIZE_MAX && m->pts[i] >= m->dhi)) m->pts[k++] = m->pts[i];
    m->npts = k;
}

void *pcd_mut_own(pcd_mut *m, size_t k)
{
    mrec *r = &m->w[k];
    if (r->owned) return r->data;
    void *q = pcd_arena_alloc(&m->ma, r->type->size);
    if (!q) return NULL;
    memcpy(q, r->data, r->type->size);
    r->data = q;
    r->owned = true;
    pcd_mut_edit(m, k, k + 1, 1);
    return q;
}

/* ---- sites ---- */

typedef struct wpath {
    const char *name[MUT_MAX_PATH];
    int32_t idx[MUT_MAX_PATH];
    uint8_t n;
} wpath;

static void add_site(pcd_mut *m, const wpath *wp, const pcd_field *f, uint8_t kind, void *p, void *owner,
                     const pcd_type *ot, const pcd_type *ut)
{
    if (m->nsites >= MUT_MAX_SITES && m->det) return;
    if (m->nsites >= MUT_MAX_SITES) {
        /* reservoir: every site as likely to stay */
        size_t j = (size_t)pcd_mut_below(m, m->nsites + 1);
        if (j >= MUT_MAX_SITES) return;
        m->nsites--;
        m->sites[j] = m->sites[m->nsites];
    }
    msite *s = &m->sites[m->nsites++];
    s->f = f;
    s->kind = kind;
    s->p = p;
    s->owner = owner;
    s->owner_t = ot;
    s->union_t = ut;
    s->np = wp->n;
    for (uint8_t i = 0; i < wp->n; i++) {
        s->path[i] = wp->name[i];
        s->idx[i] = wp->idx[i];
    }
}

static void walk(pcd_mut *m, const pcd_type *t, void *data, bool owned, wpath *wp);

static bool sited(uint8_t kind)
{
    return pcd_mut_is_int(kind) || kind == PCD_K_MOJO || kind == PCD_K_BYTES || kind == PCD_K_STRING ||
           kind == PCD_K_F32 || kind == PCD_K_F64;
}

static void walk_field(pcd_mut *m, const pcd_type *t, void *data, const pcd_field *f, void *at, bool owned, wpath *wp)
{
    if (f->flags & (PCD_F_DERIVED | PCD_F_HIDDEN)) return;
    if (wp->n >= MUT_MAX_PATH) return;
    wp->name[wp->n] = f->name;
    wp->idx[wp->n] = -1;
    wp->n++;
    if (f->kind == PCD_K_ARRAY) {
        add_site(m, wp, f, PCD_K_ARRAY, data, data, t, NULL);
        void **pp = (void **)((uint8_t *)data + f->offset);
        size_t n = *(size_t *)((uint8_t *)data + f->aux), es = pcd_mut_elem_size(f);
        if (n && *pp && es) {
            if (owned) {
                /* copied, so that its elements may change */
                void *q = pcd_arena_alloc(&m->ma, n * es);
                if (q) {
                    memcpy(q, *pp, n * es);
                    *pp = q;
                } else {
                    owned = false;
                }
            }
            /* a few elements, not all of them */
            size_t picks = n < 4 ? n : 4;
            for (size_t j = 0; j < picks; j++) {
                size_t i = n <= 4 || m->det ? j : (size_t)pcd_mut_below(m, n);
                uint8_t *e = (uint8_t *)*pp + i * es;
                wp->idx[wp->n - 1] = (int32_t)i;
                if (sited(f->elem_kind)) add_site(m, wp, f, f->elem_kind, e, data, t, NULL);
                else if ((f->elem_kind == PCD_K_STRUCT || f->elem_kind == PCD_K_UNION) && f->type)
                    walk(m, f->type, e, owned, wp);
            }
        }
    } else if (sited(f->kind)) {
        add_site(m, wp, f, f->kind, at, data, t, NULL);
    } else if ((f->kind == PCD_K_STRUCT || f->kind == PCD_K_UNION) && f->type) {
        walk(m, f->type, at, owned, wp);
    }
    wp->n--;
}

static void walk(pcd_mut *m, const pcd_type *t, void *data, bool owned, wpath *wp)
{
    uint8_t *d = data;
    if (t->is_union) {
        uint32_t w = *(const uint32_t *)d;
        if (t->n_fields > 1 && !t->select) add_site(m, wp, NULL, PCD_K_UNION, d, d, t, t);
        if (w >= t->n_fields) return;
        const pcd_field *f = &t->fields[w];
        if (f->kind == PCD_K_PB_FIELD) return;
        /* a case's fields are named after the case */
        walk_field(m, t, d, f, d + f->offset, owned, wp);
        return;
    }
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *f = &t->fields[i];
        if (f->kind == PCD_K_REGION || f->kind == PCD_K_PB_OTHER || f->kind == PCD_K_BOOL) continue;
        walk_field(m, t, d, f, d + f->offset, owned, wp);
    }
}

void pcd_mut_sites(pcd_mut *m, const pcd_type *t, void *data, bool owned, const char *name, int32_t index)
{
    wpath wp = { { name }, { index }, 1 };
    m->nsites = 0;
    walk(m, t, data, owned, &wp);
}

void pcd_mut_site_path(const msite *s, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (uint8_t i = 0; i < s->np && n < cap; i++) {
        int k = s->idx[i] >= 0 ? snprintf(buf + n, cap - n, "%s%s[%d]", i ? "." : "", s->path[i], (int)s->idx[i])
                               : snprintf(buf + n, cap - n, "%s%s", i ? "." : "", s->path[i]);
        if (k < 0) break;
        n += (size_t)k;
    }
}

/* ---- new records ---- */

const pcd_mut_init *pcd_mut_init_of(const pcd_mutator *mu, const pcd_type *t)
{
    for (const pcd_mut_init *i = mu->inits; i->type; i++)
        if (i->type == t) return i;
    return NULL;
}

void pcd_mut_init_type(const pcd_mutator *mu, const pcd_type *t, void *data)
{
    uint8_t *d = data;
    const pcd_mut_init *in = pcd_mut_init_of(mu, t);
    if (t->is_union) {
        uint32_t w = *(const uint32_t *)d;
        if (in && in->set_case) in->set_case(d, w);
        if (w < t->n_fields) {
            const pcd_field *f = &t->fields[w];
            if ((f->kind == PCD_K_STRUCT || f->kind == PCD_K_UNION) && f->type) pcd_mut_init_type(mu, f->type, d + f->offset);
        }
        return;
    }
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *f = &t->fields[i];
        if (f->kind == PCD_K_STRUCT && f->type) pcd_mut_init_type(mu, f->type, d + f->offset);
        if (f->kind == PCD_K_UNION && f->type) pcd_mut_init_type(mu, f->type, d + f->offset);
    }
    if (in && in->init) in->init(d);
}

/* ---- keys ---- */

int pcd_mut_space(const pcd_mut *m, const char *name)
{
    for (uint32_t i = 0; m->mu->spaces[i]; i++)
        if (strcmp(m->mu->spaces[i], name) == 0) return (int)i;
    return -1;
}

static void add_def(pcd_mut *m, int sp, uint64_t v, size_t rec)
{
    if (sp < 0) return;
    if (m->ndefs == m->cdefs) {
        size_t nc = m->cdefs ? m->cdefs * 2 : 256;
        keydef *q = pcd_alloc_resize(m->al, m->defs, m->cdefs * sizeof *q, nc * sizeof *q);
        if (!q) return;
        m->defs = q;
        m->cdefs = nc;
    }
    m->defs[m->ndefs++] = (keydef){ (uint32_t)sp, v, rec };
}

static void scan(pcd_mut *m, const pcd_type *t, const uint8_t *d, size_t rec);

static void scan_value(pcd_mut *m, const pcd_field *f, uint8_t kind, const uint8_t *p, size_t rec)
{
    if (f->key) {
        int sp = pcd_mut_space(m, f->key);
        if (f->flags & PCD_F_INDEX_KEY) {
            if (sp >= 0 && sp < 16) m->index_count[sp]++;
        } else if (pcd_mut_is_int(kind) || kind == PCD_K_MOJO) {
            add_def(m, sp, pcd_mut_get_int(kind, p), rec);
        }
    }
    if ((kind == PCD_K_STRUCT || kind == PCD_K_UNION) && f->type) scan(m, f->type, p, rec);
}

static void scan_field(pcd_mut *m, const pcd_field *f, const uint8_t *d, size_t rec)
{
    if (f->kind == PCD_K_ARRAY) {
        const uint8_t *a = *(const uint8_t *const *)(d + f->offset);
        size_t n = *(const size_t *)(d + f->aux), es = pcd_mut_elem_size(f);
        if (!f->key && f->elem_kind != PCD_K_STRUCT && f->elem_kind != PCD_K_UNION) return;
        for (size_t i = 0; a && i < n; i++) scan_value(m, f, f->elem_kind, a + i * es, rec);
    } else if (f->kind != PCD_K_REGION && f->kind != PCD_K_PB_OTHER && f->kind != PCD_K_PB_FIELD) {
        scan_value(m, f, f->kind, d + f->offset, rec);
    }
}

static void scan(pcd_mut *m, const pcd_type *t, const uint8_t *d, size_t rec)
{
    if (t->is_union) {
        uint32_t w = *(const uint32_t *)d;
        if (w < t->n_fields) scan_field(m, &t->fields[w], d, rec);
        return;
    }
    for (uint32_t i = 0; i < t->n_fields; i++) scan_field(m, &t->fields[i], d, rec);
}

void pcd_mut_scan_keys(pcd_mut *m, const mset *s)
{
    m->ndefs = 0;
    memset(m->index_count, 0, sizeof m->index_count);
    if (!m->mu->spaces[0]) return;
    for (size_t k = 0; k < s->n; k++) scan(m, s->r[k].type, s->r[k].data, k);
}
