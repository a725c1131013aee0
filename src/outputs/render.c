/* outputs/render.c: frame and thread texts per dialect. */
#include "outputs/render.h"

#include <inttypes.h>

pcd_status pcd_out_dialect(pcd_job *j, const pcd_profile *p, pcd_dialect *out)
{
    *out = p->dialect;
    if (j->compat) *out = PCD_DIALECT_HEPH;
    if (!j->dialect) return PCD_OK;
    for (int d = 0; d < PCD_DIALECT_N; d++)
        if (strcmp(j->dialect, pcd_dialect_names[d]) == 0) {
            *out = (pcd_dialect)d;
            return PCD_OK;
        }
    return pcd_job_fail(j, PCD_E_ARG, "--dialect takes default, austin, austin2, cpython or heph, not '%s'", j->dialect);
}

pcd_bytes pcd_basename(pcd_bytes path)
{
    size_t i = path.len;
    while (i > 0 && path.ptr[i - 1] != '/') i--;
    pcd_bytes b = { path.ptr + i, path.len - i };
    return b;
}

bool pcd_frame_nameless(const pcd_frame *f)
{
    return !f->function && !f->file &&
           (f->kind == PCD_FRAME_CODE || f->kind == PCD_FRAME_NATIVE || f->kind == PCD_FRAME_KERNEL);
}

/* What Go's filepath.Base gives for a path: its last element, trailing slashes removed ("/" for
 * nothing but slashes). */
static pcd_bytes go_base(pcd_bytes path)
{
    size_t n = path.len;
    while (n > 1 && path.ptr[n - 1] == '/') n--;
    if (n == 1 && path.ptr[0] == '/') return path.len ? (pcd_bytes){ path.ptr, 1 } : path;
    pcd_bytes b = { path.ptr, n };
    return pcd_basename(b);
}

pcd_status pcd_render_function(pcd_sink *s, const pcd_profile *p, pcd_frame_id id, pcd_collapsed_escape esc)
{
    const pcd_frame *f = pcd_profile_frame_at(p, id);
    if (!pcd_frame_nameless(f)) {
        pcd_bytes fn = pcd_profile_text(p, f->function);
        return pcd_text_collapsed(s, fn.ptr, fn.len, esc);
    }
    if (f->address) PCD_TRY(pcd_text_printf(s, "%016" PRIx64 " ", f->address));
    if (!f->module) return pcd_text_z(s, "<unknown>");
    pcd_bytes m = go_base(pcd_profile_text(p, f->module));
    PCD_TRY(pcd_sink_put(s, "[", 1));
    PCD_TRY(pcd_text_collapsed(s, m.ptr, m.len, esc));
    return pcd_sink_put(s, "]", 1);
}

static pcd_status put_pos(pcd_sink *s, int64_t v) { return pcd_text_i64(s, v == PCD_POS_NONE ? 0 : v); }

pcd_status pcd_render_frame(pcd_sink *s, const pcd_profile *p, pcd_frame_id id, pcd_dialect d,
                            pcd_collapsed_escape esc)
{
    const pcd_frame *f = pcd_profile_frame_at(p, id);
    pcd_bytes fn = pcd_profile_text(p, f->function), file = pcd_profile_text(p, f->file);
    if (d == PCD_DIALECT_AUSTIN2) d = PCD_DIALECT_AUSTIN; /* austin-python 2.2.0 writes frames as 1.7.1 */
    switch (d) {
    case PCD_DIALECT_AUSTIN:
        switch (f->kind) {
        case PCD_FRAME_GC: return pcd_text_z(s, ":GC:");
        case PCD_FRAME_INVALID: return pcd_text_z(s, ":INVALID:");
        case PCD_FRAME_KERNEL:
            PCD_TRY(pcd_text_z(s, "kernel:"));
            PCD_TRY(pcd_text_collapsed(s, fn.ptr, fn.len, esc));
            return pcd_text_z(s, ":0");
        case PCD_FRAME_LABEL: case PCD_FRAME_IDLE:
            return pcd_text_collapsed(s, fn.ptr, fn.len, esc);
        default: /* code, native, and heap types and roots as frames without a file */
            PCD_TRY(pcd_text_collapsed(s, file.ptr, file.len, esc));
            PCD_TRY(pcd_sink_put(s, ":", 1));
            PCD_TRY(pcd_render_function(s, p, id, esc));
            PCD_TRY(pcd_sink_put(s, ":", 1));
            return put_pos(s, f->line);
        }
    case PCD_DIALECT_CPYTHON:
        if (file.len == 1 && file.ptr[0] == '~' && (f->line == 0 || f->line == PCD_POS_NONE))
            return pcd_text_collapsed(s, fn.ptr, fn.len, esc);
        if (f->kind != PCD_FRAME_CODE && f->kind != PCD_FRAME_NATIVE && !file.len)
            return pcd_text_collapsed(s, fn.ptr, fn.len, esc);
        file = pcd_basename(file);
        PCD_TRY(pcd_text_collapsed(s, file.ptr, file.len, esc));
        PCD_TRY(pcd_sink_put(s, ":", 1));
        PCD_TRY(pcd_render_function(s, p, id, esc));
        PCD_TRY(pcd_sink_put(s, ":", 1));
        return put_pos(s, f->line);
    default:
        switch (f->kind) {
        case PCD_FRAME_GC: if (!fn.len) return pcd_text_z(s, "[GC]"); break;
        case PCD_FRAME_INVALID: if (!fn.len) return pcd_text_z(s, "[invalid]"); break;
        case PCD_FRAME_IDLE: if (!fn.len) return pcd_text_z(s, "[idle]"); break;
        default: break;
        }
        PCD_TRY(pcd_render_function(s, p, id, esc));
        if (!file.len || (f->kind != PCD_FRAME_CODE && f->kind != PCD_FRAME_NATIVE && f->kind != PCD_FRAME_KERNEL))
            return PCD_OK;
        file = pcd_basename(file);
        PCD_TRY(pcd_sink_put(s, " (", 2));
        PCD_TRY(pcd_text_collapsed(s, file.ptr, file.len, esc));
        if (f->line != PCD_POS_NONE) {
            PCD_TRY(pcd_sink_put(s, ":", 1));
            PCD_TRY(pcd_text_i64(s, f->line));
        }
        return pcd_sink_put(s, ")", 1);
    }
}

bool pcd_thread_is_blank(const pcd_profile *p, pcd_thread_id t)
{
    const pcd_thread *th = &p->threads[t];
    return th->pid == PCD_ID_NONE && th->iid == PCD_ID_NONE && !th->has_tid && !th->tid_text && !th->name &&
           !th->process_name;
}

static pcd_status put_tid(pcd_sink *s, const pcd_profile *p, const pcd_thread *th, pcd_collapsed_escape esc)
{
    pcd_str text = pcd_thread_id_text(th);
    if (text) {
        pcd_bytes b = pcd_profile_text(p, text);
        return pcd_text_collapsed(s, b.ptr, b.len, esc);
    }
    return pcd_text_u64(s, th->tid);
}

pcd_status pcd_render_thread_prefix(pcd_sink *s, const pcd_profile *p, pcd_thread_id t, pcd_dialect d,
                                    pcd_collapsed_escape esc)
{
    const pcd_thread *th = &p->threads[t];
    if (d == PCD_DIALECT_CPYTHON) {
        PCD_TRY(pcd_text_z(s, "tid:"));
        return put_tid(s, p, th, esc);
    }
    bool austin = d == PCD_DIALECT_AUSTIN || d == PCD_DIALECT_AUSTIN2;
    if (austin || th->pid != PCD_ID_NONE || th->has_tid || th->tid_text) {
        bool any = false;
        if (th->pid != PCD_ID_NONE || austin) {
            PCD_TRY(pcd_sink_put(s, "P", 1));
            PCD_TRY(pcd_text_i64(s, th->pid == PCD_ID_NONE ? 0 : th->pid));
            any = true;
        }
        if (th->has_tid || th->tid_text || austin) {
            PCD_TRY(pcd_sink_put(s, any ? ";T" : "T", any ? 2 : 1));
            /* austin-python 1.7.1 leaves a negative interpreter id out, 2.2.0 writes it */
            if (th->iid != PCD_ID_NONE && (th->iid >= 0 || d == PCD_DIALECT_AUSTIN2)) {
                PCD_TRY(pcd_text_i64(s, th->iid));
                PCD_TRY(pcd_sink_put(s, ":", 1));
            }
            PCD_TRY(put_tid(s, p, th, esc));
        }
        return PCD_OK;
    }
    pcd_bytes n = pcd_profile_text(p, th->name ? th->name : th->process_name);
    return pcd_text_collapsed(s, n.ptr, n.len, esc);
}

pcd_status pcd_render_thread_title(pcd_sink *s, const pcd_profile *p, pcd_thread_id t, pcd_dialect d)
{
    const pcd_thread *th = &p->threads[t];
    if (d == PCD_DIALECT_AUSTIN || d == PCD_DIALECT_AUSTIN2) {
        PCD_TRY(pcd_text_i64(s, th->pid == PCD_ID_NONE ? 0 : th->pid));
        PCD_TRY(pcd_sink_put(s, ":", 1));
        if (th->iid != PCD_ID_NONE && th->iid >= 0) {
            PCD_TRY(pcd_text_i64(s, th->iid));
            PCD_TRY(pcd_sink_put(s, ":", 1));
        }
        return put_tid(s, p, th, PCD_COLLAPSED_RAW);
    }
    if (th->lane_of) {
        PCD_TRY(pcd_text_z(s, "Task "));
        PCD_TRY(put_tid(s, p, th, PCD_COLLAPSED_RAW));
        PCD_TRY(pcd_text_z(s, " of "));
        return pcd_render_thread_title(s, p, th->lane_of - 1, d);
    }
    if (th->name) {
        if (th->process_name) {
            PCD_TRY(pcd_text_bytes(s, pcd_profile_text(p, th->process_name)));
            PCD_TRY(pcd_text_z(s, ", "));
        }
        return pcd_text_bytes(s, pcd_profile_text(p, th->name));
    }
    PCD_TRY(pcd_text_z(s, "Thread "));
    PCD_TRY(put_tid(s, p, th, PCD_COLLAPSED_RAW));
    if (th->pid != PCD_ID_NONE) PCD_TRY(pcd_text_printf(s, " (process %lld)", (long long)th->pid));
    if (th->iid != PCD_ID_NONE) PCD_TRY(pcd_text_printf(s, " (interpreter %lld)", (long long)th->iid));
    return PCD_OK;
}
