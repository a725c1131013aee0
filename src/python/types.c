/* python/types.c: the module's state, the map from C types to the classes made for them, and
 * the formats the module knows (module.c fills them). */
#include "internal.h"

pcdpy_state pcdpy;

/* ---- C types to classes ------------------------------------------------------------------ */

static pcdpy_type_ent *types;
static size_t types_cap;

bool pcdpy_types_alloc(size_t n_types)
{
    /* twice the types there are, a power of two */
    for (types_cap = 16; types_cap < 2 * n_types + 2; types_cap *= 2) {}
    types = PyMem_Calloc(types_cap, sizeof *types);
    return types != NULL;
}

static size_t type_slot(const pcd_type *t)
{
    size_t h = ((uintptr_t)t >> 3) * UINT64_C(0x9E3779B97F4A7C15) >> 7;
    size_t i = h & (types_cap - 1);
    while (types[i].t && types[i].t != t) i = (i + 1) & (types_cap - 1);
    return i;
}

pcdpy_type_ent *pcdpy_type_get(const pcd_type *t)
{
    if (!types_cap) return NULL;
    size_t i = type_slot(t);
    return types[i].t ? &types[i] : NULL;
}

pcdpy_type_ent *pcdpy_type_put(const pcd_type *t)
{
    size_t i = type_slot(t);
    types[i].t = t;
    return &types[i];
}

const pcdpy_cls *pcdpy_class_of(const pcd_type *t, int32_t which)
{
    pcdpy_type_ent *e = pcdpy_type_get(t);
    if (!e) return NULL;
    if (which >= 0 && e->cases) return (uint32_t)which < t->n_fields ? e->cases[which] : NULL;
    return e->cls;
}

const pcdpy_cls *pcdpy_record_class(const pcd_record *rec)
{
    const pcd_type *t = rec->type;
    if (t->is_union && t->tag_key && rec->data) return pcdpy_class_of(t, (int32_t) * (const uint32_t *)rec->data);
    return pcdpy_class_of(t, -1);
}

pcdpy_fmt *pcdpy_fmt_of(const pcd_format *f)
{
    for (size_t i = 0; i < pcdpy.n_fmts; i++)
        if (pcdpy.fmts[i].gen->format == f) return &pcdpy.fmts[i];
    return NULL;
}

const pcd_format *pcdpy_find_format(const char *spec)
{
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    const pcd_format *best = NULL;
    for (size_t i = 0; i < pcdpy.n_fmts; i++) {
        const pcd_format *f = pcdpy.formats[i];
        if (strlen(f->name) != n || memcmp(f->name, spec, n) != 0) continue;
        if (colon && strcmp(f->version, colon + 1) != 0) continue;
        best = f; /* the newest version when none is named */
    }
    if (!best) pcdpy_fail(pcdpy.UsageError, "unknown format '%s' (see profcodec.formats())", spec);
    return best;
}
