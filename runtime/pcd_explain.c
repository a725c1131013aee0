/* pcd_explain.c: a record's fields, where they lie and what they hold (see pcd_explain.h). */
#include "pcd_explain.h"

#include <string.h>

#include "pcd_json.h"
#include "pcd_pb.h"

void pcd_xrecord_init(pcd_xrecord *x, pcd_alloc *al)
{
    memset(x, 0, sizeof *x);
    x->al = al;
}

void pcd_xrecord_free(pcd_xrecord *x)
{
    pcd_alloc_free(x->al, x->f, x->cap * sizeof *x->f);
    memset(x, 0, sizeof *x);
}

static pcd_xfield *add(pcd_xrecord *x)
{
    if (x->n == x->cap) {
        size_t ncap = x->cap ? x->cap * 2 : 64;
        pcd_xfield *q = pcd_alloc_resize(x->al, x->f, x->cap * sizeof *q, ncap * sizeof *q);
        if (!q) return NULL;
        x->f = q;
        x->cap = ncap;
    }
    pcd_xfield *f = &x->f[x->n++];
    memset(f, 0, sizeof *f);
    f->index = -1;
    f->closed = true;
    return f;
}

const char *pcd_explain_kind(const pcd_record *rec)
{
    const pcd_type *t = rec->type;
    if (rec->data && t->is_union && t->tag_key) {
        uint32_t which = *(const uint32_t *)rec->data;
        if (which < t->n_fields) return t->fields[which].name;
    }
    return t->name;
}

static const pcd_field *find(const pcd_type *t, const char *name)
{
    if (!t || !name) return NULL;
    for (uint32_t i = 0; i < t->n_fields; i++)
        if (strcmp(t->fields[i].name, name) == 0) return &t->fields[i];
    return NULL;
}

/* The struct or union a field of kind STRUCT/UNION holds. */
static void inner(pcd_xfield *f)
{
    if (f->fd && f->base && (f->fd->kind == PCD_K_STRUCT || f->fd->kind == PCD_K_UNION) && f->fd->type) {
        f->type = f->fd->type;
        f->data = (const uint8_t *)f->base + f->fd->offset;
    }
    if (!f->doc && f->fd) f->doc = f->fd->doc ? f->fd->doc : (f->fd->type ? f->fd->type->doc : NULL);
}

/* An array field's items and count. */
static bool items_of(const pcd_xfield *a, const uint8_t **items, size_t *n)
{
    if (!a->fd || a->fd->kind != PCD_K_ARRAY || !a->base) return false;
    *items = *(const uint8_t *const *)((const uint8_t *)a->base + a->fd->offset);
    *n = *(const size_t *)((const uint8_t *)a->base + a->fd->aux);
    return true;
}

/* ---- spans (the generated explain functions) --------------------------------------------- */

static pcd_status from_spans(pcd_xrecord *x, const pcd_record *rec, const pcd_spans *sp)
{
    for (size_t i = 0; i < sp->n; i++) {
        const pcd_span *s = &sp->v[i];
        pcd_xfield *f = add(x);
        if (!f) return PCD_E_NOMEM;
        f->name = s->name;
        f->index = s->index;
        f->start = s->start;
        f->end = s->closed ? s->end : s->start;
        f->closed = s->closed;
        f->parent = s->parent;
        const pcd_xfield *p = s->parent ? &x->f[s->parent - 1] : NULL;
        f->depth = p ? p->depth + 1 : 1;
        const pcd_type *t = p ? p->type : rec->type;
        const void *data = p ? p->data : rec->data;
        if (!s->name) {
            /* an element of the array p */
            f->kind = PCD_X_ELEMENT;
            const uint8_t *items;
            size_t n;
            if (p && items_of(p, &items, &n) && p->fd->type && s->index >= 0 && (uint64_t)s->index < n && items) {
                f->type = p->fd->type;
                f->data = items + (size_t)s->index * p->fd->type->size;
                f->doc = f->type->doc;
            }
        } else if (strcmp(s->name, "_tag") == 0) {
            f->kind = PCD_X_TAG;
            if (t && t->is_union && data) {
                uint32_t which = *(const uint32_t *)data;
                if (which < t->n_fields) f->case_name = t->fields[which].name;
            }
            f->doc = "The bytes that choose the case.";
        } else if (strcmp(s->name, "_count") == 0) {
            f->kind = PCD_X_COUNT;
            const uint8_t *items;
            size_t n;
            if (p && items_of(p, &items, &n)) f->count = n;
            f->doc = "The number of elements that follow.";
        } else {
            f->kind = PCD_X_FIELD;
            f->fd = data ? find(t, s->name) : NULL;
            f->base = data;
            f->is_case = t && t->is_union;
            inner(f);
        }
    }
    x->lost = sp->oom;
    return PCD_OK;
}

/* ---- protobuf records: the fields by their keys ------------------------------------------- */

static bool uleb(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned sh = 0; *p < end && sh < 64; sh += 7) {
        uint8_t b = *(*p)++;
        r |= (uint64_t)(b & 0x7f) << sh;
        if (!(b & 0x80)) {
            *v = r;
            return true;
        }
    }
    return false;
}

static bool scalar_kind(uint8_t k) { return k != PCD_K_STRUCT && k != PCD_K_UNION && k != PCD_K_ARRAY; }

#define PB_MAX_FIELDS 256

static pcd_status pb_walk(pcd_xrecord *x, const pcd_type *t, const void *data, const uint8_t *p, const uint8_t *end,
                          uint64_t off, uint32_t parent, uint32_t depth)
{
    uint64_t seen[PB_MAX_FIELDS] = { 0 }; /* elements (occurrences) so far, by field */
    const uint8_t *start = p;
    while (p < end) {
        const uint8_t *ks = p;
        uint64_t key, len = 0;
        if (!uleb(&p, end, &key)) break;
        uint32_t number = (uint32_t)(key >> 3), wire = (uint32_t)(key & 7);
        const uint8_t *vs = p, *ps = p;
        if (wire == PCD_PB_VARINT) {
            uint64_t v;
            if (!uleb(&p, end, &v)) break;
        } else if (wire == PCD_PB_I64 || wire == PCD_PB_I32) {
            size_t w = wire == PCD_PB_I64 ? 8 : 4;
            if ((size_t)(end - p) < w) break;
            p += w;
        } else if (wire == PCD_PB_LEN) {
            if (!uleb(&p, end, &len) || len > (uint64_t)(end - p)) break;
            ps = p;
            p += len;
        } else {
            break;
        }
        const pcd_field *fd = NULL;
        uint32_t fi = 0;
        for (uint32_t i = 0; t && i < t->n_fields; i++)
            if (t->fields[i].number == number) {
                fd = &t->fields[i];
                fi = i;
                break;
            }
        uint32_t me = (uint32_t)x->n + 1;
        pcd_xfield *f = add(x);
        if (!f) return PCD_E_NOMEM;
        f->kind = PCD_X_FIELD;
        f->name = fd ? fd->name : "_unknown";
        f->start = off + (uint64_t)(ks - start);
        f->end = off + (uint64_t)(p - start);
        f->parent = parent;
        f->depth = depth;
        f->fd = fd;
        f->base = data;
        f->leaf = true;
        f->is_case = t && t->is_union;
        if (!fd) continue;
        inner(f);
        uint64_t k = fi < PB_MAX_FIELDS ? seen[fi] : 0;
        bool message = fd->type && (fd->kind == PCD_K_STRUCT || (fd->kind == PCD_K_ARRAY && fd->elem_kind == PCD_K_STRUCT));
        if (fd->kind == PCD_K_ARRAY) {
            f->index = (int64_t)k;
            f->first = k;
            f->count = 1;
            if (wire == PCD_PB_LEN && !message && scalar_kind(fd->elem_kind) && fd->elem_kind != PCD_K_STRING &&
                fd->elem_kind != PCD_K_BYTES) {
                /* a packed run: its elements */
                const uint8_t *q = ps;
                f->count = 0;
                while (q < ps + len) {
                    uint64_t v;
                    if (fd->elem_kind == PCD_K_U64 || fd->elem_kind == PCD_K_S64 || fd->elem_kind == PCD_K_U32 ||
                        fd->elem_kind == PCD_K_S32 || fd->elem_kind == PCD_K_BOOL) {
                        if (!uleb(&q, ps + len, &v)) break;
                    } else {
                        q += fd->elem_kind == PCD_K_F64 ? 8 : 4;
                    }
                    f->count++;
                }
            }
        }
        if (fi < PB_MAX_FIELDS) seen[fi] = k + f->count + (fd->kind == PCD_K_ARRAY ? 0 : 1);
        if (message && wire == PCD_PB_LEN) {
            /* a message: its key and length, then its fields */
            const void *inner_data = NULL;
            if (fd->kind == PCD_K_STRUCT) {
                inner_data = f->data;
            } else {
                const uint8_t *items;
                size_t n;
                if (items_of(f, &items, &n) && items && k < n) inner_data = items + (size_t)k * fd->type->size;
            }
            f->type = fd->type;
            f->data = inner_data;
            f->leaf = false;
            pcd_xfield *kf = add(x);
            if (!kf) return PCD_E_NOMEM;
            kf->kind = PCD_X_KEY;
            kf->name = "_key";
            kf->start = off + (uint64_t)(ks - start);
            kf->end = off + (uint64_t)(ps - start);
            kf->parent = me;
            kf->depth = depth + 1;
            kf->leaf = true;
            kf->doc = "The field's key (number << 3 | wire type) and its length.";
            PCD_TRY(pb_walk(x, fd->type, inner_data, ps, ps + len, off + (uint64_t)(ps - start), me, depth + 1));
        }
        (void)vs;
    }
    return PCD_OK;
}

/* ---- regions ---------------------------------------------------------------------------- */

static pcd_status regions(pcd_xrecord *x, const pcd_type *t, const void *data)
{
    if (!data || !t) return PCD_OK;
    if (t->is_union) {
        uint32_t which = *(const uint32_t *)data;
        if (which >= t->n_fields) return PCD_OK;
        const pcd_field *cf = &t->fields[which];
        if (cf->kind != PCD_K_STRUCT || !cf->type || cf->type->is_union) return PCD_OK;
        return regions(x, cf->type, (const uint8_t *)data + cf->offset);
    }
    for (uint32_t i = 0; i < t->n_fields; i++) {
        const pcd_field *fd = &t->fields[i];
        if (fd->kind != PCD_K_REGION) continue;
        const pcd_region *reg = (const pcd_region *)((const uint8_t *)data + fd->offset);
        if (reg->absent) continue;
        pcd_xfield *f = add(x);
        if (!f) return PCD_E_NOMEM;
        f->kind = PCD_X_REGION;
        f->name = fd->name;
        f->fd = fd;
        f->base = data;
        f->start = reg->offset;
        f->end = reg->sized ? reg->offset + reg->size : reg->offset;
        f->sized = reg->sized;
        f->compressed = reg->compression != 0;
        f->depth = 1;
        f->doc = fd->doc ? fd->doc : (fd->region && fd->region->record ? fd->region->record->doc : NULL);
    }
    return PCD_OK;
}

pcd_status pcd_explain_record(pcd_xrecord *x, const pcd_record *rec, const pcd_spans *sp, const uint8_t *bytes)
{
    x->n = 0;
    x->lost = false;
    if (sp && sp->n) {
        PCD_TRY(from_spans(x, rec, sp));
    } else if (rec->type && rec->type->layout_at && bytes) {
        /* protobuf: a message, or a field record (a union of the fields, by number) */
        PCD_TRY(pb_walk(x, rec->type, rec->data, bytes, bytes + rec->size, rec->offset, 0, 1));
    }
    /* leaves: fields nothing lies inside */
    for (size_t i = 0; i < x->n; i++)
        if (x->f[i].kind != PCD_X_KEY) x->f[i].leaf = true;
    for (size_t i = 0; i < x->n; i++)
        if (x->f[i].parent) x->f[x->f[i].parent - 1].leaf = false;
    return regions(x, rec->type, rec->data);
}

pcd_status pcd_explain_value(pcd_sink *s, const pcd_xfield *f, bool *written)
{
    *written = false;
    switch (f->kind) {
    case PCD_X_TAG:
        if (!f->case_name) return PCD_OK;
        *written = true;
        return pcd_json_string(s, (const uint8_t *)f->case_name, strlen(f->case_name));
    case PCD_X_COUNT:
        *written = true;
        return pcd_json_u64(s, f->count);
    case PCD_X_FIELD:
        if (!f->fd || !f->base || !f->closed) return PCD_OK;
        if (f->fd->kind == PCD_K_REGION || f->fd->kind == PCD_K_PB_OTHER || f->fd->kind == PCD_K_PB_FIELD) return PCD_OK;
        if (!f->leaf) return PCD_OK;
        /* a case with no fields (a marker): dump writes the union's kind alone */
        if (f->is_case && (f->fd->kind == PCD_K_STRUCT || f->fd->kind == PCD_K_UNION)) return PCD_OK;
        if ((f->fd->flags & PCD_F_OPTIONAL) && !*(const bool *)((const uint8_t *)f->base + f->fd->present)) return PCD_OK;
        *written = true;
        if (f->fd->kind == PCD_K_ARRAY && f->count) return pcd_json_elements(s, f->fd, f->base, f->first, f->count);
        return pcd_json_value(s, f->fd, f->base);
    default:
        return PCD_OK;
    }
}
