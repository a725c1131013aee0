/* pcd_mut_kinds.c: the mutation kinds (pcd_mut.h lists them): each changes the working
 * copy of the loaded records, and notes what it did. A kind that keeps the file valid
 * checks the record it changed (encoded and decoded alone) and undoes a change that
 * fails; the layer-breaking kinds change encoded bytes. */
#include "pcd_mut_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* What a change overwrote, to undo it. */
typedef struct undo {
    void *at[2];
    size_t n[2];
    uint8_t b[2][1024];
    int k;
} undo;

static void save(undo *u, void *p, size_t n)
{
    if (u->k >= 2 || n > sizeof u->b[0]) return;
    u->at[u->k] = p;
    u->n[u->k] = n;
    memcpy(u->b[u->k], p, n);
    u->k++;
}

static void undo_all(undo *u)
{
    while (u->k > 0) {
        u->k--;
        memcpy(u->at[u->k], u->b[u->k], u->n[u->k]);
    }
}

static size_t value_size(uint8_t kind)
{
    switch (kind) {
    case PCD_K_U8: case PCD_K_S8: return 1;
    case PCD_K_U16: case PCD_K_S16: return 2;
    case PCD_K_U32: case PCD_K_S32: case PCD_K_F32: return 4;
    case PCD_K_MOJO: return sizeof(pcd_mojo_int);
    case PCD_K_BYTES: case PCD_K_STRING: return sizeof(pcd_bytes);
    default: return 8;
    }
}

static const char *rec_name(const pcd_mut *m, size_t k)
{
    return m->w[k].rd ? m->w[k].rd->name : m->f->root->name;
}

typedef bool (*site_filter)(const msite *s);

static bool is_num(const msite *s) { return mut_is_int(s->kind) || s->kind == PCD_K_MOJO; }
static bool is_numf(const msite *s) { return is_num(s) || s->kind == PCD_K_F32 || s->kind == PCD_K_F64; }
static bool is_str(const msite *s) { return s->kind == PCD_K_BYTES || s->kind == PCD_K_STRING; }
static bool is_arr(const msite *s) { return s->kind == PCD_K_ARRAY && mut_elem_size(s->f); }
static bool is_union(const msite *s) { return s->kind == PCD_K_UNION; }
static bool is_ref(const msite *s) { return is_num(s) && s->f->ref; }
static bool is_key(const msite *s) { return is_num(s) && s->f->key && !(s->f->flags & PCD_F_INDEX_KEY); }

/* A site that passes filter in a random record (made the working copy's own); NULL when
 * none is found in a few tries. */
static msite *pick_site(pcd_mut *m, site_filter filter, size_t *rec)
{
    bool root_ok = m->o.evil && m->wn == 1;
    for (int t = 0; t < 12; t++) {
        size_t k;
        if (m->wn > 1) k = 1 + (size_t)mut_below(m, m->wn - 1);
        else if (root_ok) k = 0;
        else return NULL;
        /* look first, then copy the record that has one */
        mut_sites(m, m->w[k].type, m->w[k].data, false, rec_name(m, k), k ? (int32_t)k : -1);
        size_t hits = 0;
        for (size_t i = 0; i < m->nsites; i++) hits += filter(&m->sites[i]);
        if (!hits) continue;
        void *d = mut_own(m, k);
        if (!d) return NULL;
        mut_sites(m, m->w[k].type, d, true, rec_name(m, k), k ? (int32_t)k : -1);
        size_t cand[MUT_MAX_SITES], n = 0;
        for (size_t i = 0; i < m->nsites; i++)
            if (filter(&m->sites[i])) cand[n++] = i;
        if (!n) continue;
        *rec = k;
        return &m->sites[cand[mut_below(m, n)]];
    }
    return NULL;
}

/* A present flag of an optional (protobuf) field set with its value. */
static void set_present(undo *u, msite *s)
{
    if (!(s->f->flags & PCD_F_OPTIONAL) || !s->f->present || s->f->kind == PCD_K_ARRAY) return;
    bool *p = (bool *)((uint8_t *)s->owner + s->f->present);
    save(u, p, sizeof *p);
    *p = true;
}

static pcd_status finish(pcd_mut *m, pcd_mut_kind kind, size_t k, undo *u)
{
    if (!mut_check_record_as(m, k, !pcd_mut_kind_keeps(kind))) {
        undo_all(u);
        return PCD_E_RANGE;
    }
    return PCD_OK;
}

static unsigned width_bits(uint8_t kind)
{
    switch (kind) {
    case PCD_K_U8: case PCD_K_S8: return 8;
    case PCD_K_U16: case PCD_K_S16: return 16;
    case PCD_K_U32: case PCD_K_S32: return 32;
    default: return 64;
    }
}

static bool is_signed(uint8_t kind) { return kind >= PCD_K_S8 && kind <= PCD_K_S64; }

/* Boundary values of an integer kind: the width's edges and the varint length edges. */
static uint64_t boundary(pcd_mut *m, uint8_t kind, bool evil)
{
    unsigned w = width_bits(kind);
    uint64_t max = w == 64 ? UINT64_MAX : ((uint64_t)1 << w) - 1;
    if (evil) {
        uint64_t smax = max >> 1;
        const uint64_t v[] = { max, smax, smax + 1, (uint64_t)-1, UINT64_C(1) << 63, (UINT64_C(1) << 63) - 1,
                               max - 1, UINT64_C(0xffffffff), UINT64_C(0x100000000), UINT64_C(0x7fffffff),
                               UINT64_C(0x80000000), (uint64_t)-2 };
        return v[mut_below(m, sizeof v / sizeof v[0])];
    }
    static const uint64_t edges[] = { 0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x3fff, 0x4000, 0x7fff, 0x8000, 0xffff,
                                      0x10000, 0x1fffff, 0x200000, 0xfffffff, 0x10000000, 0x7fffffff };
    for (int t = 0; t < 8; t++) {
        uint64_t v = edges[mut_below(m, sizeof edges / sizeof edges[0])];
        if (is_signed(kind) && mut_chance(m, 0.3)) v = (uint64_t)0 - v;
        if (v <= max || is_signed(kind)) return v;
    }
    return 0;
}

static pcd_status k_int(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    msite *s = pick_site(m, kind == PCD_MUT_INT_NEAR ? is_num : is_numf, &k);
    if (!s) return PCD_END;
    undo u = { .k = 0 };
    save(&u, s->p, value_size(s->kind));
    set_present(&u, s);
    char path[160], val[48];
    mut_site_path(s, path, sizeof path);
    if (s->kind == PCD_K_F32 || s->kind == PCD_K_F64) {
        /* (a float's own range: a double beyond it does not convert) */
        static const double dv[] = { 0.0, -0.0, 1.0, -1.0, 1e308, -1e308, 5e-324, 3.4e38 };
        static const double fv[] = { 0.0, -0.0, 1.0, -1.0, 3.4e38, -3.4e38, 1.4e-45, 1.17549435e-38 };
        double d = s->kind == PCD_K_F32 ? fv[mut_below(m, 8)] : dv[mut_below(m, 8)];
        if (kind == PCD_MUT_INT_EVIL) {
            const double ev[] = { __builtin_nan(""), __builtin_inf(), -__builtin_inf() };
            d = ev[mut_below(m, 3)];
        }
        if (s->kind == PCD_K_F32) *(float *)s->p = (float)d;
        else *(double *)s->p = d;
        snprintf(val, sizeof val, "%g", d);
    } else if (kind == PCD_MUT_INT_NEAR) {
        uint64_t d = 1 + mut_below(m, 16);
        uint64_t v = mut_get_int(s->kind, s->p);
        v = mut_chance(m, 0.5) ? v + d : v - d;
        mut_set_int(s->kind, s->p, v);
        snprintf(val, sizeof val, "%" PRId64, (int64_t)mut_get_int(s->kind, s->p));
    } else if (s->kind == PCD_K_MOJO && kind == PCD_MUT_INT_EVIL && mut_chance(m, 0.4)) {
        pcd_mojo_int *v = s->p;
        static const uint64_t mags[] = { 0, UINT64_MAX, UINT64_C(1) << 63, UINT64_MAX >> 1 };
        v->mag = mags[mut_below(m, 4)];
        v->neg = true;   /* minus zero, and magnitudes no int64 holds */
        snprintf(val, sizeof val, "-%" PRIu64, v->mag);
    } else {
        mut_set_int(s->kind, s->p, boundary(m, s->kind, kind == PCD_MUT_INT_EVIL));
        snprintf(val, sizeof val, "%" PRId64, (int64_t)mut_get_int(s->kind, s->p));
    }
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) mut_note(m, "%s %s=%s", pcd_mut_kind_name(kind), path, val);
    return st;
}

static pcd_status k_tag(pcd_mut *m)
{
    size_t k;
    msite *s = pick_site(m, is_union, &k);
    if (!s) return PCD_END;
    const pcd_type *ut = s->union_t;
    uint32_t cur = *(uint32_t *)s->p;
    uint32_t c = (uint32_t)mut_below(m, ut->n_fields - 1);
    if (c >= cur) c++;
    if (c >= ut->n_fields || ut->fields[c].kind == PCD_K_PB_FIELD) return PCD_END;
    undo u = { .k = 0 };
    save(&u, s->p, ut->size);
    /* a payload from a record that has that case, else the case's starting values */
    const void *donor = NULL;
    for (int t = 0; t < 32 && !donor; t++) {
        size_t j = (size_t)mut_below(m, m->wn);
        if (m->w[j].type == ut && *(const uint32_t *)m->w[j].data == c) donor = m->w[j].data;
    }
    if (donor) {
        memcpy(s->p, donor, ut->size);
    } else {
        const pcd_mut_init *in = mut_init_of(m->mu, ut);
        if (!in || !in->set_case) {
            undo_all(&u);
            return PCD_END;
        }
        memset(s->p, 0, ut->size);
        *(uint32_t *)s->p = c;
        mut_init_type(m->mu, ut, s->p);
    }
    pcd_status st = finish(m, PCD_MUT_TAG, k, &u);
    if (st == PCD_OK) {
        char path[160];
        mut_site_path(s, path, sizeof path);
        mut_note(m, "tag %s: %s -> %s%s", path, ut->fields[cur < ut->n_fields ? cur : 0].name, ut->fields[c].name,
                 donor ? " (payload of another)" : "");
    }
    return st;
}

static uint8_t *new_bytes(pcd_mut *m, size_t n) { return pcd_arena_alloc(&m->ma, n ? n : 1); }

static pcd_status k_str(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    pcd_bytes from = { NULL, 0 };
    if (kind == PCD_MUT_STR_COPY) {
        /* the value of another string first (the sites are found again below) */
        size_t j = (size_t)mut_below(m, m->wn);
        mut_sites(m, m->w[j].type, m->w[j].data, false, "x", -1);
        size_t cand[MUT_MAX_SITES], n = 0;
        for (size_t i = 0; i < m->nsites; i++)
            if (is_str(&m->sites[i])) cand[n++] = i;
        if (!n) return PCD_END;
        from = *(pcd_bytes *)m->sites[cand[mut_below(m, n)]].p;
    }
    msite *s = pick_site(m, is_str, &k);
    if (!s) return PCD_END;
    undo u = { .k = 0 };
    save(&u, s->p, sizeof(pcd_bytes));
    set_present(&u, s);
    pcd_bytes *b = s->p;
    char path[160], what[64];
    mut_site_path(s, path, sizeof path);
    if (kind == PCD_MUT_STR_COPY) {
        *b = from;
        snprintf(what, sizeof what, "copied (%zu bytes)", b->len);
    } else if (kind == PCD_MUT_STR_LENGTH) {
        size_t n;
        switch (mut_below(m, 5)) {
        case 0: n = 0; break;
        case 1: n = b->len / 2; break;
        case 2: n = b->len + 1 + (size_t)mut_below(m, 16); break;
        case 3: n = b->len * 2 + 1; break;
        default: { static const size_t big[] = { 127, 128, 255, 256, 1023, 4096 }; n = big[mut_below(m, 6)]; }
        }
        if (n > 4096) n = 4096;
        uint8_t *q = new_bytes(m, n);
        if (!q) return PCD_E_NOMEM;
        for (size_t i = 0; i < n; i++)
            q[i] = b->len ? b->ptr[i % b->len] : (uint8_t)('a' + mut_below(m, 26));
        if (n > b->len && b->len) /* a few letters of its own at the end */
            for (size_t i = b->len; i < n && i < b->len + 4; i++) q[i] = (uint8_t)('a' + mut_below(m, 26));
        b->ptr = q;
        b->len = n;
        snprintf(what, sizeof what, "%zu bytes", n);
    } else {
        static const uint8_t bad[][5] = { { 0xff }, { 0xc0, 0x80 }, { 0xed, 0xa0, 0x80 }, { 0xe2, 0x82 },
                                          { 0xf8, 0x88, 0x80, 0x80, 0x80 }, { 0x80 }, { 0xf4, 0x90, 0x80, 0x80 } };
        static const uint8_t badlen[] = { 1, 2, 3, 2, 5, 1, 4 };
        size_t pick = kind == PCD_MUT_STR_NUL ? 0 : (size_t)mut_below(m, 7);
        const uint8_t *ins = kind == PCD_MUT_STR_NUL ? (const uint8_t *)"\0" : bad[pick];
        size_t il = kind == PCD_MUT_STR_NUL ? 1 : badlen[pick];
        size_t at = (size_t)mut_below(m, b->len + 1);
        uint8_t *q = new_bytes(m, b->len + il);
        if (!q) return PCD_E_NOMEM;
        if (at) memcpy(q, b->ptr, at);
        memcpy(q + at, ins, il);
        if (b->len > at) memcpy(q + at + il, b->ptr + at, b->len - at);
        b->ptr = q;
        b->len += il;
        snprintf(what, sizeof what, "%zu bytes inserted at %zu", il, at);
    }
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) mut_note(m, "%s %s: %s", pcd_mut_kind_name(kind), path, what);
    return st;
}

static pcd_status k_array(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    msite *s = pick_site(m, is_arr, &k);
    if (!s) return PCD_END;
    uint8_t *owner = s->owner;
    void **pp = (void **)(owner + s->f->offset);
    size_t *pn = (size_t *)(owner + s->f->aux), n = *pn, es = mut_elem_size(s->f);
    if (kind != PCD_MUT_ARRAY_INSERT && !n) return PCD_END;
    if (n > (1u << 20)) return PCD_END;
    undo u = { .k = 0 };
    save(&u, pp, sizeof *pp);
    save(&u, pn, sizeof *pn);
    size_t nn = kind == PCD_MUT_ARRAY_DELETE ? n - 1 : n + 1;
    uint8_t *q = pcd_arena_alloc(&m->ma, (nn ? nn : 1) * es);
    if (!q) return PCD_E_NOMEM;
    const uint8_t *old = *pp;
    size_t i = (size_t)mut_below(m, n + (kind == PCD_MUT_ARRAY_INSERT));
    if (kind == PCD_MUT_ARRAY_DELETE) {
        memcpy(q, old, i * es);
        memcpy(q + i * es, old + (i + 1) * es, (n - i - 1) * es);
    } else {
        if (i) memcpy(q, old, i * es);
        if (n > i) memcpy(q + (i + 1) * es, old + i * es, (n - i) * es);
        if (n) {
            size_t from = kind == PCD_MUT_ARRAY_DUP ? (i < n ? i : n - 1) : (size_t)mut_below(m, n);
            memcpy(q + i * es, old + from * es, es);
        } else {
            memset(q + i * es, 0, es);
            if ((s->f->elem_kind == PCD_K_STRUCT || s->f->elem_kind == PCD_K_UNION) && s->f->type)
                mut_init_type(m->mu, s->f->type, q + i * es);
        }
    }
    *pp = q;
    *pn = nn;
    if (s->owner_t->layout_at) {
        /* the layout told how the fields stood: they are written canonically now */
        size_t *ln = &((pcd_pb_layout *)(owner + s->owner_t->layout_at - 1))->n;
        if (u.k < 2) save(&u, ln, sizeof *ln);
        *ln = 0;
    }
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) {
        char path[160];
        mut_site_path(s, path, sizeof path);
        mut_note(m, "%s %s[%zu] (now %zu)", pcd_mut_kind_name(kind), path, i, nn);
    }
    return st;
}

/* ---- records ---- */

static bool insert_recs(pcd_mut *m, size_t at, const mrec *r, size_t cnt)
{
    if (!mut_reserve(m, m->wn + cnt)) return false;
    memmove(m->w + at + cnt, m->w + at, (m->wn - at) * sizeof *m->w);
    memcpy(m->w + at, r, cnt * sizeof *r);
    m->wn += cnt;
    return true;
}

static pcd_status k_rec_insert(pcd_mut *m)
{
    const pcd_region_desc *rd = NULL;
    size_t at = 1;
    uint32_t depth = 1;
    if (m->wn > 1) {
        size_t k = 1 + (size_t)mut_below(m, m->wn - 1);
        rd = m->w[k].rd;
        depth = m->w[k].depth;
        at = mut_subtree_end(m->w, m->wn, k);
    } else {
        const pcd_type *t = m->f->root;
        for (uint32_t i = 0; i < t->n_fields && !rd; i++)
            if (t->fields[i].kind == PCD_K_REGION) rd = t->fields[i].region;
    }
    if (!rd) return PCD_END;
    void *q = mut_new_record(m, rd);
    if (!q) return PCD_E_NOMEM;
    mrec r = { rd, rd->record, q, depth, true, UINT64_MAX, UINT32_MAX };
    if (!insert_recs(m, at, &r, 1)) return PCD_E_NOMEM;
    if (!mut_check_record(m, at)) {
        memmove(m->w + at, m->w + at + 1, (m->wn - at - 1) * sizeof *m->w);
        m->wn--;
        return PCD_E_RANGE;
    }
    const pcd_type *t = rd->record;
    uint32_t w = t->is_union ? *(uint32_t *)q : 0;
    mut_note(m, "rec_insert %s[%zu] (new%s%s)", rd->name, at, t->is_union ? " " : "",
             t->is_union && w < t->n_fields ? t->fields[w].name : "");
    return PCD_OK;
}

static pcd_status k_rec(pcd_mut *m, pcd_mut_kind kind)
{
    if (m->wn < 2) return PCD_END;
    size_t k = 1 + (size_t)mut_below(m, m->wn - 1);
    size_t e = mut_subtree_end(m->w, m->wn, k), cnt = e - k;
    if (kind == PCD_MUT_REC_DELETE) {
        mut_note(m, "rec_delete %s[%zu] (%zu records)", m->w[k].rd->name, k, cnt);
        memmove(m->w + k, m->w + e, (m->wn - e) * sizeof *m->w);
        m->wn -= cnt;
        return PCD_OK;
    }
    if (cnt > 4096) return PCD_END;
    mrec *tmp = pcd_arena_alloc(&m->ma, cnt * sizeof *tmp);
    if (!tmp) return PCD_E_NOMEM;
    memcpy(tmp, m->w + k, cnt * sizeof *tmp);
    for (size_t i = 0; i < cnt; i++) {
        /* shared with the original from now on: copied before a change; a changed one is
         * no longer what was loaded */
        if (m->w[k + i].owned) tmp[i].pidx = m->w[k + i].pidx = UINT32_MAX;
        tmp[i].owned = m->w[k + i].owned = false;
        if (kind != PCD_MUT_REC_SWAP) tmp[i].pidx = UINT32_MAX;
    }
    if (kind == PCD_MUT_REC_DUP) {
        for (size_t i = 0; i < cnt; i++) tmp[i].origin = UINT64_MAX;
        if (!insert_recs(m, e, tmp, cnt)) return PCD_E_NOMEM;
        mut_note(m, "rec_dup %s[%zu] (%zu records)", m->w[k].rd->name, k, cnt);
        return PCD_OK;
    }
    if (kind == PCD_MUT_REC_SWAP) {
        /* with the next record of the same region */
        if (e >= m->wn || m->w[e].depth != m->w[k].depth || m->w[e].rd != m->w[k].rd) return PCD_END;
        size_t e2 = mut_subtree_end(m->w, m->wn, e), cnt2 = e2 - e;
        memmove(m->w + k, m->w + e, cnt2 * sizeof *m->w);
        memcpy(m->w + k + cnt2, tmp, cnt * sizeof *tmp);
        mut_note(m, "rec_swap %s[%zu] with the next", m->w[k].rd->name, k);
        return PCD_OK;
    }
    /* splice: a copy after another record of the same region, elsewhere */
    for (int t = 0; t < 16; t++) {
        size_t j = 1 + (size_t)mut_below(m, m->wn - 1);
        if (m->w[j].rd != m->w[k].rd || m->w[j].depth != m->w[k].depth || j == k) continue;
        size_t at = mut_subtree_end(m->w, m->wn, j);
        for (size_t i = 0; i < cnt; i++) tmp[i].origin = UINT64_MAX;
        if (!insert_recs(m, at, tmp, cnt)) return PCD_E_NOMEM;
        mut_note(m, "rec_splice %s[%zu] copied after [%zu]", m->w[k].rd->name, k, j);
        return PCD_OK;
    }
    return PCD_END;
}

/* ---- references ---- */

static pcd_status k_ref(pcd_mut *m, pcd_mut_kind kind)
{
    size_t k;
    msite *s = pick_site(m, kind == PCD_MUT_KEY_REDEFINE ? is_key : is_ref, &k);
    if (!s) return PCD_END;
    const char *space = kind == PCD_MUT_KEY_REDEFINE ? s->f->key : s->f->ref;
    int sp = mut_space(m, space);
    if (sp < 0) return PCD_END;
    bool index = sp < 16 && m->index_count[sp] > 0;
    size_t nd = 0, cand[256];
    uint64_t maxv = 0;
    for (size_t i = 0; i < m->ndefs; i++)
        if (m->defs[i].space == (uint32_t)sp) {
            if (nd < 256) cand[nd] = i;
            nd++;
            if (m->defs[i].value > maxv) maxv = m->defs[i].value;
        }
    if (nd > 256) nd = 256;
    undo u = { .k = 0 };
    save(&u, s->p, value_size(s->kind));
    set_present(&u, s);
    uint64_t v;
    const char *why;
    if (kind == PCD_MUT_REF_REAL) {
        if (index) v = mut_below(m, m->index_count[sp]);
        else if (nd) v = m->defs[cand[mut_below(m, nd)]].value;
        else return PCD_END;
        why = "a target that exists";
    } else if (kind == PCD_MUT_REF_STALE) {
        if (index) {
            v = m->index_count[sp];
            why = "one past the last target";
        } else {
            /* a target defined only after the reference */
            size_t later[256], nl = 0;
            for (size_t i = 0; i < nd; i++)
                if (m->defs[cand[i]].rec > k) later[nl++] = cand[i];
            if (!nl) return PCD_END;
            v = m->defs[later[mut_below(m, nl)]].value;
            why = "a target defined only later";
        }
    } else if (kind == PCD_MUT_REF_MISSING) {
        static const uint64_t far[] = { UINT64_C(0x7fffffff), UINT64_C(0x80000000), UINT64_C(0xffffffff),
                                        UINT64_MAX, UINT64_C(1) << 63 };
        uint64_t top = index ? m->index_count[sp] : maxv + 1;
        v = mut_chance(m, 0.6) ? top + mut_below(m, 1000) : far[mut_below(m, 5)];
        why = "no target";
    } else {
        if (nd < 2) return PCD_END;
        v = m->defs[cand[mut_below(m, nd)]].value;
        why = "the key of another definition";
    }
    mut_set_int(s->kind, s->p, v);
    pcd_status st = finish(m, kind, k, &u);
    if (st == PCD_OK) {
        char path[160];
        mut_site_path(s, path, sizeof path);
        mut_note(m, "%s %s=%" PRIu64 " (%s %s)", pcd_mut_kind_name(kind), path, v, space, why);
    }
    return st;
}

pcd_status mut_apply(pcd_mut *m, pcd_mut_kind k)
{
    switch (k) {
    case PCD_MUT_INT_NEAR: case PCD_MUT_INT_BOUNDARY: case PCD_MUT_INT_EVIL: return k_int(m, k);
    case PCD_MUT_TAG: return k_tag(m);
    case PCD_MUT_STR_LENGTH: case PCD_MUT_STR_COPY: case PCD_MUT_STR_NUL: case PCD_MUT_STR_UTF8: return k_str(m, k);
    case PCD_MUT_ARRAY_INSERT: case PCD_MUT_ARRAY_DELETE: case PCD_MUT_ARRAY_DUP: return k_array(m, k);
    case PCD_MUT_REC_INSERT: return k_rec_insert(m);
    case PCD_MUT_REC_DELETE: case PCD_MUT_REC_DUP: case PCD_MUT_REC_SWAP: case PCD_MUT_REC_SPLICE: return k_rec(m, k);
    case PCD_MUT_REF_REAL: case PCD_MUT_REF_STALE: case PCD_MUT_REF_MISSING: case PCD_MUT_KEY_REDEFINE:
        return k_ref(m, k);
    default: return PCD_E_ARG;
    }
}

/* ---- layers ---- */

static size_t find_zstd(const uint8_t *p, size_t n, size_t from)
{
    for (size_t i = from; i + 4 <= n; i++)
        if (p[i] == 0x28 && p[i + 1] == 0xb5 && p[i + 2] == 0x2f && p[i + 3] == 0xfd) return i;
    return SIZE_MAX;
}

void mut_layer(pcd_mut *m, int kind, uint8_t *out, size_t cap, size_t *len, uint64_t size_at, size_t size_rec)
{
    size_t n = *len;
    if (kind == PCD_MUT_LAYER_SIZE && size_at != UINT64_MAX && size_rec < m->wn) {
        const pcd_region_desc *rd = m->w[size_rec].rd;
        size_t at = (size_t)size_at + (size_t)rd->size_off, w = rd->size_width;
        if (at + w <= n) {
            bool big = rd->size_native ? m->pristine.big : rd->size_big;
            uint64_t v = 0;
            for (size_t i = 0; i < w; i++) v |= (uint64_t)out[at + (big ? i : w - 1 - i)] << (8 * (w - 1 - i));
            static const int64_t d[] = { 1, -1, 2, -2, 8, -8, 4096, -4096 };
            uint64_t nv = mut_chance(m, 0.8) ? v + (uint64_t)d[mut_below(m, 8)] : (uint64_t)-1;
            for (size_t i = 0; i < w; i++) out[at + (big ? i : w - 1 - i)] = (uint8_t)(nv >> (8 * (w - 1 - i)));
            mut_note(m, "layer_size %s[%zu] size %" PRIu64 " -> %" PRIu64 " (byte %zu)", rd->name, size_rec, v,
                     nv & (w == 8 ? UINT64_MAX : ((uint64_t)1 << (8 * w)) - 1), at);
            return;
        }
        kind = PCD_MUT_LAYER_TRUNCATE;
    }
    if (kind == PCD_MUT_LAYER_SIZE) kind = PCD_MUT_LAYER_TRUNCATE;
    if (kind == PCD_MUT_LAYER_ZSTD) {
        size_t z = find_zstd(out, n, 0), nz = 0;
        for (size_t i = z; i != SIZE_MAX; i = find_zstd(out, n, i + 1)) nz++;
        if (nz) {
            size_t pick = (size_t)mut_below(m, nz);
            for (size_t i = 0; i < pick; i++) z = find_zstd(out, n, z + 1);
            /* the frame header, a block header, or a byte further in (data, checksum) */
            size_t span = n - z, at;
            switch (mut_below(m, 3)) {
            case 0: at = z + 4 + (size_t)mut_below(m, span > 6 ? 2 : 1); break;
            case 1: at = z + 4 + (size_t)mut_below(m, span > 16 ? 12 : span - 4 > 0 ? span - 4 : 1); break;
            default: at = z + (size_t)mut_below(m, span);
            }
            if (at >= n) at = n - 1;
            uint8_t was = out[at];
            out[at] ^= (uint8_t)(1u << mut_below(m, 8));
            mut_note(m, "layer_zstd byte %zu of a zstd frame at %zu: 0x%02x -> 0x%02x", at - z, z, was, out[at]);
            return;
        }
        kind = PCD_MUT_LAYER_TRUNCATE;
    }
    if (kind == PCD_MUT_LAYER_GZIP && n >= 18) {
        size_t at;
        const char *what;
        switch (mut_below(m, 3)) {
        case 0: at = n - 8 + (size_t)mut_below(m, 4); what = "CRC"; break;
        case 1: at = n - 4 + (size_t)mut_below(m, 4); what = "size"; break;
        default: at = 10 + (size_t)mut_below(m, n - 18); what = "deflate data";
        }
        out[at] ^= (uint8_t)(1u << mut_below(m, 8));
        mut_note(m, "layer_gzip %s byte %zu flipped", what, at);
        return;
    }
    if (kind == PCD_MUT_LAYER_TRAILING) {
        size_t add = 1 + (size_t)mut_below(m, 64);
        if (n + add <= cap) {
            for (size_t i = 0; i < add; i++) out[n + i] = (uint8_t)mut_rand(m);
            *len = n + add;
            mut_note(m, "layer_trailing %zu bytes after the end", add);
            return;
        }
    }
    /* truncate */
    if (n) {
        *len = (size_t)mut_below(m, n);
        mut_note(m, "layer_truncate to %zu of %zu bytes", *len, n);
    }
}

/* ---- inner_bytes ---- */

/* The engine's own byte-level mutation, for sessions given none (AFL++, profcodec fuzz): one to
 * four changes of a bit, a byte, an interesting value, or bytes inserted, erased or copied. */
size_t mut_bytes(pcd_mut *m, uint8_t *buf, size_t n, size_t cap)
{
    if (m->bytes_fn && n) return m->bytes_fn(m->bytes_ud, buf, n, cap);
    static const uint8_t interesting[] = { 0x00, 0x01, 0x7f, 0x80, 0xff, 0x10, 0x40, 0xfe };
    uint32_t steps = 1 + (uint32_t)mut_below(m, 4);
    for (uint32_t i = 0; i < steps; i++) {
        switch (n ? mut_below(m, 6) : 3) {
        case 0: buf[mut_below(m, n)] ^= (uint8_t)(1u << mut_below(m, 8)); break;
        case 1: buf[mut_below(m, n)] = (uint8_t)mut_rand(m); break;
        case 2: buf[mut_below(m, n)] = interesting[mut_below(m, sizeof interesting)]; break;
        case 3: {   /* insert 1..8 bytes */
            size_t k = 1 + (size_t)mut_below(m, 8), at = (size_t)mut_below(m, n + 1);
            if (n + k > cap) break;
            memmove(buf + at + k, buf + at, n - at);
            for (size_t j = 0; j < k; j++) buf[at + j] = (uint8_t)mut_rand(m);
            n += k;
            break;
        }
        case 4: {   /* erase 1..16 bytes */
            size_t at = (size_t)mut_below(m, n), k = 1 + (size_t)mut_below(m, 16);
            if (k > n - at) k = n - at;
            memmove(buf + at, buf + at + k, n - at - k);
            n -= k;
            break;
        }
        default: {   /* copy 1..32 bytes over other bytes */
            size_t k = 1 + (size_t)mut_below(m, 32);
            if (k > n) k = n;
            size_t from = (size_t)mut_below(m, n - k + 1), to = (size_t)mut_below(m, n - k + 1);
            memmove(buf + to, buf + from, k);
        }
        }
    }
    return n;
}
