/* formats/pprof/import.c: pprof into the profile model.
 *
 * A Profile's fields come in any order: Go's runtime/pprof writes locations and functions
 * between the samples that use them and the string table last. So the importer keeps, as the
 * records go by, what it needs at the end: the strings (interned in the model's table), the
 * functions, mappings and locations by id, and the samples compactly: each as a node of a trie
 * of location ids (shared prefixes stored once), its values and labels. At the end it makes the
 * model's tables and hands the samples on in file order:
 *  - frames from Location/Line/Function: one frame per Line, outermost first; the Lines of one
 *    Location before its last are inlined into the one after (PCD_FRAME_INLINED); function name,
 *    source file, line and column (0: none), the mapping's file as module, the location's
 *    address. A Location without Lines is a native frame of its address and module;
 *  - sample types with their units (at most PCD_MAX_SAMPLE_TYPES; "samples"/"count" beside
 *    others is secondary), the default one (default_sample_type, else the last), the period
 *    and its type (a sample type of that name, else metadata "period_type" = "type/unit"),
 *    time and duration;
 *  - labels: "pid", "iid", "tid" (numbers), "tid_text", "thread", "process" (texts) say which
 *    thread a sample is on (what outputs/pprof.c writes; a label of one of these keys but of the
 *    other kind is an ordinary label); the others are the sample's labels (a label with neither
 *    a text nor a number nor a unit is dropped, as google/pprof does);
 *  - comments, drop_frames, keep_frames and doc_url as metadata, in that order.
 * Values are pprof's int64s: every sample type is signed (a difference of profiles has negative
 * values), and one the file lists. A Sample is a record, not an event (PCD_NOUN_RECORDS).
 * A Location without Lines stays a native frame of nothing but its address and its mapping's
 * file: the outputs name it as go tool pprof does (outputs/render.h).
 * References to ids the profile does not have give frames that say so (validate reports them). */
#include <inttypes.h>
#include <stdlib.h>

#include "common/hash.h"
#include "common/hmap.h"
#include "common/vec.h"
#include "formats/pprof/pprof.h"
#include "model/profile.h"

typedef struct pfunc { int64_t name, system_name, filename; } pfunc;
typedef struct pmap { int64_t filename; } pmap;
typedef struct ploc { uint64_t mapping_id, address; uint32_t first_line, n_lines; } ploc;
typedef struct pline { uint64_t function_id; int64_t line, column; } pline;
typedef struct pnode { uint32_t parent, kid; uint64_t loc; } pnode;   /* kid: the child taken last */

/* A label as read: string indexes. */
typedef struct plabel { int64_t key, str, num, unit; } plabel;

typedef struct pimport {
    pcd_job *j;
    pcd_profile *p;
    pcd_alloc *al;
    pcd_status st;
    pcd_str *strs;
    size_t n_strs, strs_cap;
    pcd_hmap fid, mid, lid;        /* id -> index + 1 into funcs, maps, locs */
    pfunc *funcs;
    size_t n_funcs, funcs_cap;
    pmap *maps;
    size_t n_maps, maps_cap;
    ploc *locs;
    size_t n_locs, locs_cap;
    pline *lines;
    size_t n_lines, lines_cap;
    struct { int64_t type, unit; } *stypes;
    size_t n_stypes, stypes_cap;
    bool has_period_type, has_period, has_time, has_duration, has_default;
    int64_t pt_type, pt_unit, period, time, duration, default_type;
    int64_t *meta;                 /* (key, string index) pairs: comments and the like */
    size_t n_meta, meta_cap;
    pcd_hmap trie;                 /* (parent node, location id) -> node */
    pnode *nodes;
    size_t n_nodes, nodes_cap;
    /* samples, as varints: offset (from the last), node, label set, n values, values (zigzag) */
    uint8_t *buf;
    size_t n_buf, buf_cap;
    uint64_t last_offset;
    /* label sets, found again by hash: each a run of labels */
    pcd_hmap setmap;
    plabel *lab;
    size_t n_lab, lab_cap;
    struct { size_t first, n; } *sets;
    size_t n_sets, sets_cap;
    uint64_t n_samples, missing;
} pimport;

static pcd_status oom(pimport *m) { return pcd_job_fail(m->j, PCD_E_NOMEM, "out of memory for the profile's tables (raise --max-memory)"); }

static pcd_status put_varint(pimport *m, uint64_t v)
{
    if (PCD_VEC_RESERVE(m->al, m->buf, m->buf_cap, m->n_buf + PCD_VARINT_MAX) != PCD_OK) return oom(m);
    m->n_buf += pcd_enc_uleb128(m->buf + m->n_buf, v);
    return PCD_OK;
}

static uint64_t get_varint(const uint8_t **p)
{
    uint64_t v = 0;
    for (unsigned shift = 0;; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80)) return v;
    }
}

/* The label set of a sample's labels (index + 1; 0 for none): samples share a few. */
static pcd_status label_set(pimport *m, const pcd_pprof_v1_sample *s, uint64_t *out)
{
    *out = 0;
    if (!s->n_label) return PCD_OK;
    uint64_t h = PCD_FNV_SEED;
    for (size_t i = 0; i < s->n_label; i++) {
        const pcd_pprof_v1_label *l = &s->label[i];
        uint64_t w[4] = { (uint64_t)l->key, (uint64_t)l->str, (uint64_t)l->num, (uint64_t)l->num_unit };
        for (int k = 0; k < 4; k++) h = pcd_fnv_step(h, w[k]);
    }
    for (uint64_t probe = 0;; probe++) {
        bool fresh;
        pcd_hslot *sl = pcd_hmap_put(&m->setmap, (pcd_hkey){ h, s->n_label, probe }, &fresh);
        if (!sl) return oom(m);
        if (!fresh) {
            const plabel *have = m->lab + m->sets[sl->v0 - 1].first;
            bool same = true;
            for (size_t i = 0; i < s->n_label && same; i++)
                same = have[i].key == s->label[i].key && have[i].str == s->label[i].str &&
                       have[i].num == s->label[i].num && have[i].unit == s->label[i].num_unit;
            if (!same) continue;   /* another set with the same hash */
            *out = sl->v0;
            return PCD_OK;
        }
        if (PCD_VEC_RESERVE(m->al, m->sets, m->sets_cap, m->n_sets + 1) != PCD_OK ||
            PCD_VEC_RESERVE(m->al, m->lab, m->lab_cap, m->n_lab + s->n_label) != PCD_OK)
            return oom(m);
        m->sets[m->n_sets].first = m->n_lab;
        m->sets[m->n_sets].n = s->n_label;
        for (size_t i = 0; i < s->n_label; i++)
            m->lab[m->n_lab++] = (plabel){ s->label[i].key, s->label[i].str, s->label[i].num, s->label[i].num_unit };
        sl->v0 = *out = ++m->n_sets;
        return PCD_OK;
    }
}

/* Registers an entity by id (the first one of an id wins; validate reports the others). */
static bool add_id(pimport *m, pcd_hmap *h, bool has, uint64_t id, size_t index)
{
    if (!has || !id) return false;
    bool fresh;
    pcd_hslot *s = pcd_hmap_put(h, (pcd_hkey){ id, 0, 0 }, &fresh);
    if (!s) {
        m->st = oom(m);
        return false;
    }
    if (fresh) s->v0 = index + 1;
    return fresh;
}

static size_t find(const pcd_hmap *h, uint64_t id)
{
    const pcd_hslot *s = pcd_hmap_get(h, (pcd_hkey){ id, 0, 0 });
    return s ? (size_t)s->v0 : 0;
}

static pcd_status on_sample(pimport *m, const pcd_pprof_v1_sample *s, uint64_t offset)
{
    /* the stack as a node of the trie, outermost location first (node 0, the empty stack, is
     * nodes[0]); a stack that goes on as the last one went needs no look-up: each node
     * remembers the child taken last */
    if (!m->n_nodes) {
        if (PCD_VEC_RESERVE(m->al, m->nodes, m->nodes_cap, 1) != PCD_OK) return oom(m);
        m->nodes[0] = (pnode){ 0, 0, 0 };
        m->n_nodes = 1;
    }
    uint32_t node = 0;
    for (size_t i = s->n_location_id; i-- > 0;) {
        uint64_t loc = s->location_id[i];
        uint32_t kid = m->nodes[node].kid;
        if (kid && m->nodes[kid].loc == loc) {
            node = kid;
            continue;
        }
        bool fresh;
        /* (the pair mixed first: nodes made one after another, ids in a cycle, cluster otherwise) */
        pcd_hslot *sl = pcd_hmap_put(&m->trie, (pcd_hkey){ pcd_hash2(node, loc), node, loc }, &fresh);
        if (!sl) return oom(m);
        if (fresh) {
            if (m->n_nodes >= UINT32_MAX - 1) return pcd_job_fail(m->j, PCD_E_LIMIT, "more than 2^32 distinct stacks");
            if (PCD_VEC_RESERVE(m->al, m->nodes, m->nodes_cap, m->n_nodes + 1) != PCD_OK) return oom(m);
            m->nodes[m->n_nodes] = (pnode){ node, 0, loc };
            sl->v0 = m->n_nodes++;
        }
        m->nodes[node].kid = (uint32_t)sl->v0;
        node = (uint32_t)sl->v0;
    }
    uint64_t set;
    PCD_TRY(label_set(m, s, &set));
    PCD_TRY(put_varint(m, offset - m->last_offset));
    m->last_offset = offset;
    PCD_TRY(put_varint(m, node));
    PCD_TRY(put_varint(m, set));
    PCD_TRY(put_varint(m, s->n_value));
    for (size_t i = 0; i < s->n_value; i++) PCD_TRY(put_varint(m, pcd_zigzag64(s->value[i])));
    m->n_samples++;
    return PCD_OK;
}

static pcd_status add_meta(pimport *m, int64_t key, int64_t value)
{
    if (PCD_VEC_RESERVE(m->al, m->meta, m->meta_cap, m->n_meta + 2) != PCD_OK) return oom(m);
    m->meta[m->n_meta++] = key;
    m->meta[m->n_meta++] = value;
    return PCD_OK;
}

enum { MK_COMMENT = -1, MK_DROP = -2, MK_KEEP = -3, MK_DOC = -4 };

static pcd_status on_record(void *ud, const pcd_record *rec)
{
    pimport *m = ud;
    if (rec->depth == 0) return PCD_OK;
    const pcd_pprof_v1_profile_field *r = rec->data;
    switch (r->which) {
    case PCD_PPROF_V1_PROFILE_FIELD_STRING_TABLE:
        if (PCD_VEC_RESERVE(m->al, m->strs, m->strs_cap, m->n_strs + 1) != PCD_OK) return oom(m);
        m->strs[m->n_strs++] = pcd_profile_str(m->p, r->u.string_table.ptr, r->u.string_table.len);
        if (m->p->oom) return oom(m);
        return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE: return on_sample(m, &r->u.sample, rec->offset);
    case PCD_PPROF_V1_PROFILE_FIELD_SAMPLE_TYPE:
        if (PCD_VEC_RESERVE(m->al, m->stypes, m->stypes_cap, m->n_stypes + 1) != PCD_OK) return oom(m);
        m->stypes[m->n_stypes].type = r->u.sample_type.type;
        m->stypes[m->n_stypes].unit = r->u.sample_type.unit;
        m->n_stypes++;
        return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_FUNCTION: {
        const pcd_pprof_v1_function *f = &r->u.function;
        if (!add_id(m, &m->fid, f->has_id, f->id, m->n_funcs)) return m->st;
        if (PCD_VEC_RESERVE(m->al, m->funcs, m->funcs_cap, m->n_funcs + 1) != PCD_OK) return oom(m);
        m->funcs[m->n_funcs++] = (pfunc){ f->name, f->system_name, f->filename };
        return PCD_OK;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_MAPPING: {
        const pcd_pprof_v1_mapping *mp = &r->u.mapping;
        if (!add_id(m, &m->mid, mp->has_id, mp->id, m->n_maps)) return m->st;
        if (PCD_VEC_RESERVE(m->al, m->maps, m->maps_cap, m->n_maps + 1) != PCD_OK) return oom(m);
        m->maps[m->n_maps++] = (pmap){ mp->filename };
        return PCD_OK;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_LOCATION: {
        const pcd_pprof_v1_location *l = &r->u.location;
        if (!add_id(m, &m->lid, l->has_id, l->id, m->n_locs)) return m->st;
        if (PCD_VEC_RESERVE(m->al, m->locs, m->locs_cap, m->n_locs + 1) != PCD_OK ||
            PCD_VEC_RESERVE(m->al, m->lines, m->lines_cap, m->n_lines + l->n_line) != PCD_OK)
            return oom(m);
        if (m->n_lines + l->n_line > UINT32_MAX) return pcd_job_fail(m->j, PCD_E_LIMIT, "more than 2^32 lines");
        m->locs[m->n_locs++] = (ploc){ l->mapping_id, l->address, (uint32_t)m->n_lines, (uint32_t)l->n_line };
        for (size_t i = 0; i < l->n_line; i++)
            m->lines[m->n_lines++] = (pline){ l->line[i].function_id, l->line[i].line, l->line[i].column };
        return PCD_OK;
    }
    case PCD_PPROF_V1_PROFILE_FIELD_PERIOD_TYPE:
        m->has_period_type = true;
        m->pt_type = r->u.period_type.type;
        m->pt_unit = r->u.period_type.unit;
        return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_PERIOD: m->has_period = true; m->period = r->u.period; return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_TIME_NANOS: m->has_time = true; m->time = r->u.time_nanos; return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_DURATION_NANOS: m->has_duration = true; m->duration = r->u.duration_nanos; return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_DEFAULT_SAMPLE_TYPE:
        m->has_default = true;
        m->default_type = r->u.default_sample_type;
        return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_COMMENT:
        for (size_t i = 0; i < r->u.comment.n_items; i++) PCD_TRY(add_meta(m, MK_COMMENT, r->u.comment.items[i]));
        return PCD_OK;
    case PCD_PPROF_V1_PROFILE_FIELD_DROP_FRAMES: return add_meta(m, MK_DROP, r->u.drop_frames);
    case PCD_PPROF_V1_PROFILE_FIELD_KEEP_FRAMES: return add_meta(m, MK_KEEP, r->u.keep_frames);
    case PCD_PPROF_V1_PROFILE_FIELD_DOC_URL: return add_meta(m, MK_DOC, r->u.doc_url);
    default: return PCD_OK;
    }
}

/* ---- at the end: the model ---------------------------------------------------------------- */

static pcd_str S(const pimport *m, int64_t i) { return i > 0 && (uint64_t)i < m->n_strs ? m->strs[i] : 0; }

static bool text_is(const pimport *m, int64_t i, const char *z)
{
    pcd_bytes b = pcd_profile_text(m->p, S(m, i));
    return b.len == strlen(z) && memcmp(b.ptr, z, b.len) == 0;
}

static pcd_status header(pimport *m)
{
    pcd_profile *p = m->p;
    size_t n = m->n_stypes;
    if (n > PCD_MAX_SAMPLE_TYPES) {
        pcd_job_note(m->j, "warning: %zu sample types; the profile model keeps the first %d", n, PCD_MAX_SAMPLE_TYPES);
        n = PCD_MAX_SAMPLE_TYPES;
    }
    for (size_t i = 0; i < n; i++)
        pcd_profile_type_signed(p, pcd_profile_add_type_str(p, S(m, m->stypes[i].type), S(m, m->stypes[i].unit), 0));
    p->sample_noun = PCD_NOUN_RECORDS;
    for (size_t i = 0; i < n && n > 1; i++)
        if (text_is(m, m->stypes[i].type, "samples") && text_is(m, m->stypes[i].unit, "count")) p->types[i].secondary = true;
    p->default_type = n ? (int)n - 1 : 0;
    if (m->has_default && m->default_type)
        for (size_t i = 0; i < n; i++)
            if (S(m, m->stypes[i].type) == S(m, m->default_type)) p->default_type = (int)i;
    p->period = m->has_period ? m->period : 0;
    p->period_type = -1;
    bool period_meta = false;
    if (m->has_period_type) {
        for (size_t i = 0; i < n && p->period_type < 0; i++)
            if (S(m, m->stypes[i].type) == S(m, m->pt_type) && S(m, m->stypes[i].unit) == S(m, m->pt_unit))
                p->period_type = (int)i;
        period_meta = p->period_type < 0;
    }
    p->time_origin = m->has_time ? m->time : PCD_TIME_NONE;
    p->duration = m->has_duration ? m->duration : PCD_TIME_NONE;
    PCD_TRY(pcd_profile_begin(p));
    if (period_meta) {
        pcd_bytes t = pcd_profile_text(p, S(m, m->pt_type)), u = pcd_profile_text(p, S(m, m->pt_unit));
        char buf[512];
        int k = snprintf(buf, sizeof buf, "%.*s/%.*s", (int)(t.len > 250 ? 250 : t.len), (const char *)t.ptr,
                         (int)(u.len > 250 ? 250 : u.len), (const char *)u.ptr);
        PCD_TRY(pcd_profile_meta(p, pcd_profile_strz(p, "period_type"), pcd_profile_str(p, buf, (size_t)k)));
    }
    static const char *const keys[] = { "", "comment", "drop_frames", "keep_frames", "doc_url" };
    for (size_t i = 0; i < m->n_meta; i += 2)
        PCD_TRY(pcd_profile_meta(p, pcd_profile_strz(p, keys[-m->meta[i]]), S(m, m->meta[i + 1])));
    return p->oom;
}

/* The frames of location id `loc`, outermost first, pushed on stack st. */
static pcd_stack_id push_location(pimport *m, pcd_stack_id st, uint64_t loc)
{
    pcd_profile *p = m->p;
    size_t li = find(&m->lid, loc);
    if (!li) {
        m->missing++;
        pcd_frame f = pcd_frame_blank(PCD_FRAME_INVALID);
        char buf[48];
        int k = snprintf(buf, sizeof buf, "[location %" PRIu64 "]", loc);
        f.function = pcd_profile_str(p, buf, (size_t)k);
        return pcd_profile_push(p, st, pcd_profile_frame(p, &f));
    }
    const ploc *l = &m->locs[li - 1];
    pcd_str module = 0;
    if (l->mapping_id) {
        size_t mi = find(&m->mid, l->mapping_id);
        if (mi) module = S(m, m->maps[mi - 1].filename);
        else m->missing++;
    }
    if (l->n_lines == 0) {
        pcd_frame f = pcd_frame_blank(PCD_FRAME_NATIVE);
        f.module = module;
        f.address = l->address;
        return pcd_profile_push(p, st, pcd_profile_frame(p, &f));
    }
    for (uint32_t k = l->n_lines; k-- > 0;) {
        const pline *ln = &m->lines[l->first_line + k];
        pcd_frame f = pcd_frame_blank(PCD_FRAME_CODE);
        size_t fi = ln->function_id ? find(&m->fid, ln->function_id) : 0;
        if (fi) {
            f.function = S(m, m->funcs[fi - 1].name);
            f.file = S(m, m->funcs[fi - 1].filename);
        } else {
            if (ln->function_id) m->missing++;
            f.kind = PCD_FRAME_NATIVE;
        }
        f.line = ln->line ? ln->line : PCD_POS_NONE;
        f.column = ln->column ? ln->column : PCD_POS_NONE;
        f.module = module;
        f.address = l->address;
        if (k > 0) f.flags = PCD_FRAME_INLINED;   /* the lines before the last are inlined into it */
        st = pcd_profile_push(p, st, pcd_profile_frame(p, &f));
    }
    return st;
}

/* A label that says which thread the sample is on; false for the others. */
static bool thread_label(pimport *m, pcd_thread *th, const plabel *l)
{
    int64_t key = l->key, str = l->str, num = l->num;
    if (!str) {   /* a number (google/pprof: a label without a text) */
        if (!num && !l->unit) return false;
        if (text_is(m, key, "pid")) th->pid = num;
        else if (text_is(m, key, "iid")) th->iid = num;
        else if (text_is(m, key, "tid")) {
            th->tid = (uint64_t)num;
            th->has_tid = true;
        } else return false;
        return true;
    }
    if (text_is(m, key, "tid_text")) th->tid_text = S(m, str);
    else if (text_is(m, key, "thread")) th->name = S(m, str);
    else if (text_is(m, key, "process")) th->process_name = S(m, str);
    else return false;
    return true;
}

static pcd_status samples(pimport *m)
{
    pcd_profile *p = m->p;
    pcd_status st = PCD_OK;
    /* each node's model stack, parents first (a node's parent was made before it) */
    pcd_stack_id *ns = pcd_alloc_get(m->al, (m->n_nodes + 1) * sizeof *ns);
    pcd_label *labels = NULL;
    size_t labels_cap = 0;
    if (!ns) return oom(m);
    ns[0] = PCD_STACK_EMPTY;
    for (size_t i = 1; i < m->n_nodes; i++) ns[i] = push_location(m, ns[m->nodes[i].parent], m->nodes[i].loc);
    if (p->oom) st = oom(m);
    uint64_t v[PCD_MAX_SAMPLE_TYPES];
    uint64_t offset = 0;
    for (const uint8_t *q = m->buf, *qe = m->buf ? m->buf + m->n_buf : NULL; q < qe && st == PCD_OK;) {
        offset += get_varint(&q);
        uint64_t node = get_varint(&q), set = get_varint(&q), nv = get_varint(&q);
        for (uint64_t i = 0; i < nv; i++) {
            int64_t x = pcd_unzigzag64(get_varint(&q));
            if (i < p->n_types) v[i] = (uint64_t)x;   /* signed types: int64_t in the slot */
        }
        for (uint64_t i = nv; i < p->n_types; i++) v[i] = 0;
        const plabel *lw = set ? m->lab + m->sets[set - 1].first : NULL;
        size_t nl = set ? m->sets[set - 1].n : 0;
        pcd_thread th = pcd_thread_blank();
        if (PCD_VEC_RESERVE(m->al, labels, labels_cap, nl ? nl : 1) != PCD_OK) {
            st = oom(m);
            break;
        }
        size_t k = 0;
        for (size_t i = 0; i < nl; i++) {
            if (thread_label(m, &th, &lw[i])) continue;
            if (!lw[i].str && !lw[i].num && !lw[i].unit) continue;   /* neither a text nor a number */
            labels[k++] = (pcd_label){ S(m, lw[i].key), S(m, lw[i].str), lw[i].num, S(m, lw[i].unit), lw[i].str == 0 };
        }
        /* a thread's names tell it apart too: samples labelled "thread" but with no id are not
         * on the thread of the samples without labels */
        th.key = (uint64_t)th.name << 32 | th.process_name;
        pcd_sample s;
        memset(&s, 0, sizeof s);
        s.thread = pcd_profile_thread(p, &th);   /* (blank when no label says) */
        s.stack = ns[node];
        s.time = PCD_TIME_NONE;
        s.count = 1;
        s.values = v;
        s.offset = offset;
        s.labels = labels;
        s.n_labels = k;
        if (p->oom) st = oom(m);
        else st = pcd_profile_sample(p, &s);
    }
    PCD_VEC_FREE(m->al, labels, labels_cap);
    pcd_alloc_free(m->al, ns, (m->n_nodes + 1) * sizeof *ns);
    return st;
}

static pcd_status pprof_begin(void *ctx, pcd_job *j, pcd_profile *p, pcd_reader **from)
{
    (void)from;
    pimport *m = ctx;
    m->j = j;
    m->p = p;
    m->al = j->al;
    pcd_hmap_init(&m->fid, j->al);
    pcd_hmap_init(&m->mid, j->al);
    pcd_hmap_init(&m->lid, j->al);
    pcd_hmap_init(&m->trie, j->al);
    pcd_hmap_init(&m->setmap, j->al);
    return PCD_OK;
}

/* The tables are all read: the header, then the samples (after damage too: what came before
 * it). */
static pcd_status pprof_end(void *ctx, pcd_status st)
{
    pimport *m = ctx;
    pcd_job *j = m->j;
    if (st == PCD_OK) st = header(m);
    if (st == PCD_OK) st = samples(m);
    if (st == PCD_OK && m->missing)
        pcd_job_note(j, "warning: %" PRIu64 " references to locations, functions or mappings the profile does not have "
                        "(profcodec validate shows where)", m->missing);
    pcd_hmap_free(&m->fid);
    pcd_hmap_free(&m->mid);
    pcd_hmap_free(&m->lid);
    pcd_hmap_free(&m->trie);
    pcd_hmap_free(&m->setmap);
    PCD_VEC_FREE(j->al, m->lab, m->lab_cap);
    PCD_VEC_FREE(j->al, m->sets, m->sets_cap);
    PCD_VEC_FREE(j->al, m->strs, m->strs_cap);
    PCD_VEC_FREE(j->al, m->funcs, m->funcs_cap);
    PCD_VEC_FREE(j->al, m->maps, m->maps_cap);
    PCD_VEC_FREE(j->al, m->locs, m->locs_cap);
    PCD_VEC_FREE(j->al, m->lines, m->lines_cap);
    PCD_VEC_FREE(j->al, m->stypes, m->stypes_cap);
    PCD_VEC_FREE(j->al, m->meta, m->meta_cap);
    PCD_VEC_FREE(j->al, m->nodes, m->nodes_cap);
    PCD_VEC_FREE(j->al, m->buf, m->buf_cap);
    return st;
}

const pcd_model_importer pcd_pprof_model = { PCD_HAS_SAMPLES | PCD_HAS_CODE, sizeof(pimport), pprof_begin, on_record,
                                             pprof_end };
