/* python/copy.c: a decoded struct copied with what it points to (the strings it views in the
 * input, the arrays in the reader's arena), so that a record outlives the next one. The
 * walk is the JSON writer's: the descriptor tables say where the pointers are. */
#include "internal.h"

#include "pcd_kind.h"

#define A8(n) (((n) + (size_t)7) & ~(size_t)7)
#define BAD ((size_t)-1)

static bool known_kind(uint8_t k)
{
    return (k >= PCD_K_U8 && k <= PCD_K_MOJO) || k == PCD_K_REGION || k == PCD_K_PB_OTHER || k == PCD_K_PB_FIELD;
}

/* A protobuf message's layout (the runs of its fields as written): where it is in a struct. */
static const pcd_pb_layout *layout_of(const pcd_type *t, const void *base)
{
    return t->layout_at ? (const pcd_pb_layout *)((const uint8_t *)base + t->layout_at - 1) : NULL;
}

static size_t add(size_t a, size_t b) { return a == BAD || b == BAD || a + b < a ? BAD : a + b; }

static size_t ext_type(const pcd_type *t, const void *base);

/* Bytes outside the struct that a value of kind k at p points to. */
static size_t ext_kind(uint8_t k, const pcd_type *t, const void *p)
{
    switch (k) {
    case PCD_K_BYTES:
    case PCD_K_STRING: return A8(((const pcd_bytes *)p)->len);
    case PCD_K_PB_FIELD: return A8(((const pcd_pb_field *)p)->bytes.len);
    case PCD_K_STRUCT:
    case PCD_K_UNION: return t ? ext_type(t, p) : BAD;
    }
    return known_kind(k) && k != PCD_K_ARRAY ? 0 : BAD;
}

static bool holds_pointers(uint8_t k)
{
    return k == PCD_K_BYTES || k == PCD_K_STRING || k == PCD_K_STRUCT || k == PCD_K_UNION || k == PCD_K_PB_FIELD;
}

static size_t ext_field(const pcd_field *fd, const uint8_t *base)
{
    if ((fd->flags & PCD_F_OPTIONAL) && !*(const bool *)(base + fd->present)) return 0;
    if (fd->kind != PCD_K_ARRAY && fd->kind != PCD_K_PB_OTHER) return ext_kind(fd->kind, fd->type, base + fd->offset);
    /* an array; a message's unknown fields are an array of pcd_pb_field */
    uint8_t ek = fd->kind == PCD_K_PB_OTHER ? PCD_K_PB_FIELD : fd->elem_kind;
    const pcd_type *et = fd->kind == PCD_K_PB_OTHER ? NULL : fd->type;
    const uint8_t *items = *(const uint8_t *const *)(base + fd->offset);
    size_t n = *(const size_t *)(base + fd->aux);
    size_t es = et ? et->size : pcd_kind_size(ek);
    if (!es || (!et && !known_kind(ek))) return BAD;
    if (n > SIZE_MAX / es) return BAD;
    size_t total = A8(n * es);
    if (holds_pointers(ek))
        for (size_t i = 0; i < n && total != BAD; i++) total = add(total, ext_kind(ek, et, items + i * es));
    return total;
}

static size_t ext_type(const pcd_type *t, const void *base)
{
    const pcd_pb_layout *l = layout_of(t, base);
    size_t total = l && l->n ? (l->n > SIZE_MAX / sizeof(pcd_pb_run) ? BAD : A8(l->n * sizeof(pcd_pb_run))) : 0;
    if (t->is_union) {
        uint32_t which = *(const uint32_t *)base;
        if (which >= t->n_fields) return total;
        return add(total, ext_field(&t->fields[which], base));
    }
    for (uint32_t i = 0; i < t->n_fields && total != BAD; i++) total = add(total, ext_field(&t->fields[i], base));
    return total;
}

size_t pcdpy_copy_size(const pcd_type *t, const void *src, size_t rsize)
{
    return add(A8(rsize), ext_type(t, src));
}

/* ---- the copy: the struct is already in place; its pointers move to the copies --------------- */

static void fix_type(const pcd_type *t, uint8_t *base, uint8_t **cur);

static void fix_kind(uint8_t k, const pcd_type *t, uint8_t *p, uint8_t **cur)
{
    if (k == PCD_K_BYTES || k == PCD_K_STRING || k == PCD_K_PB_FIELD) {
        pcd_bytes *b = k == PCD_K_PB_FIELD ? &((pcd_pb_field *)p)->bytes : (pcd_bytes *)p;
        if (b->len) memcpy(*cur, b->ptr, b->len);
        b->ptr = *cur;
        *cur += A8(b->len);
    } else if (k == PCD_K_STRUCT || k == PCD_K_UNION) {
        fix_type(t, p, cur);
    }
}

static void fix_field(const pcd_field *fd, uint8_t *base, uint8_t **cur)
{
    if ((fd->flags & PCD_F_OPTIONAL) && !*(const bool *)(base + fd->present)) return;
    if (fd->kind != PCD_K_ARRAY && fd->kind != PCD_K_PB_OTHER) {
        fix_kind(fd->kind, fd->type, base + fd->offset, cur);
        return;
    }
    uint8_t ek = fd->kind == PCD_K_PB_OTHER ? PCD_K_PB_FIELD : fd->elem_kind;
    const pcd_type *et = fd->kind == PCD_K_PB_OTHER ? NULL : fd->type;
    uint8_t **items = (uint8_t **)(base + fd->offset);
    size_t n = *(const size_t *)(base + fd->aux);
    size_t es = et ? et->size : pcd_kind_size(ek);
    uint8_t *to = *cur;
    if (n) memcpy(to, *items, n * es);
    *items = to;
    *cur += A8(n * es);
    if (holds_pointers(ek))
        for (size_t i = 0; i < n; i++) fix_kind(ek, et, to + i * es, cur);
}

static void fix_type(const pcd_type *t, uint8_t *base, uint8_t **cur)
{
    if (t->layout_at) {
        pcd_pb_layout *l = (pcd_pb_layout *)(base + t->layout_at - 1);
        if (l->n) memcpy(*cur, l->runs, l->n * sizeof(pcd_pb_run));
        l->runs = l->n ? (pcd_pb_run *)(void *)*cur : NULL;
        *cur += A8(l->n * sizeof(pcd_pb_run));
    }
    if (t->is_union) {
        uint32_t which = *(const uint32_t *)base;
        if (which < t->n_fields) fix_field(&t->fields[which], base, cur);
        return;
    }
    for (uint32_t i = 0; i < t->n_fields; i++) fix_field(&t->fields[i], base, cur);
}

void pcdpy_copy(const pcd_type *t, const void *src, size_t rsize, uint8_t *dst)
{
    memcpy(dst, src, rsize);
    uint8_t *cur = dst + A8(rsize);
    fix_type(t, dst, &cur);
}

size_t pcdpy_record_size(const pcd_type *t, int32_t which)
{
    if (!t->is_union || which < 0 || (uint32_t)which >= t->n_fields) return t->size;
    /* a union's case: `which`, the tag, and the case's value */
    const pcd_field *cf = &t->fields[which];
    size_t end = 16;
    if (cf->kind == PCD_K_ARRAY) {
        size_t a = (size_t)cf->offset + sizeof(void *), b = (size_t)cf->aux + sizeof(size_t);
        end = a > b ? a : b;
    } else if (cf->kind == PCD_K_STRUCT || cf->kind == PCD_K_UNION) {
        end = (size_t)cf->offset + (cf->type ? cf->type->size : 0);
    } else {
        end = (size_t)cf->offset + pcd_kind_size(cf->kind);
    }
    if (end < 16) end = 16;
    /* a protobuf field record's layout sits after its cases */
    if (t->layout_at && end < (size_t)t->layout_at - 1 + sizeof(pcd_pb_layout))
        end = (size_t)t->layout_at - 1 + sizeof(pcd_pb_layout);
    end = A8(end);
    return end < t->size ? end : t->size;
}
