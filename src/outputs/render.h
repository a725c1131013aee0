/* outputs/render.h: how frames and threads are written as text, per dialect (one place, so
 * that every output names a frame the same way). */
#ifndef PCD_OUTPUTS_RENDER_H
#define PCD_OUTPUTS_RENDER_H

#include "common/text.h"
#include "pipeline/job.h"
#include "model/profile.h"

/* The dialect an output follows: --dialect, else the input format's own. PCD_E_ARG (with
 * job->msg) for a name that is not one. */
pcd_status pcd_out_dialect(pcd_job *j, const pcd_profile *p, pcd_dialect *out);

/* A frame of code (code, native or kernel) that has neither a function nor a file: named by
 * where it is, as go tool pprof names it (internal/graph's NodeInfo.NameComponents): its address
 * as 16 hex digits when it has one, then its module's file name in brackets ("[libc.so.6]", the
 * last part of the path as Go's filepath.Base has it), or "<unknown>" without a module.
 * Unsymbolized native code (pprof's Locations without Lines) is such a frame. */
bool pcd_frame_nameless(const pcd_frame *f);
/* A frame's function as outputs show it: its function, or the name of a nameless frame. */
pcd_status pcd_render_function(pcd_sink *s, const pcd_profile *p, pcd_frame_id f, pcd_collapsed_escape esc);

/* A frame as one element of a stack line (collapsed stacks, Austin text):
 *   austin   file:function:line (a heap type or root as a frame without a file: ":NAME:0",
 *            which Austin's readers can split); GC ":GC:", invalid ":INVALID:", kernel
 *            "kernel:NAME:0", a label its text;
 *   cpython  basename(file):function:line (line 0 when unknown), the function alone for the
 *            file "~" at line 0 (CPython's synthetic frames);
 *   default  function (basename(file):line), or the function alone without a file; markers
 *            in brackets ("[GC]", "[invalid]").
 * The function of a nameless frame is its name (pcd_render_function). */
pcd_status pcd_render_frame(pcd_sink *s, const pcd_profile *p, pcd_frame_id f, pcd_dialect d,
                            pcd_collapsed_escape esc);

/* Does the thread say anything (an id or a name)? Profiles of one blank thread (heap
 * snapshots, merged threads) get no thread part. */
bool pcd_thread_is_blank(const pcd_profile *p, pcd_thread_id t);

/* A thread as the first element of a stack line:
 *   austin   P<pid>;T[<iid>:]<tid> (iid when it is not negative; austin2: whenever there is one);
 *   cpython  tid:<tid>;
 *   default  P<pid>;T<tid> from what is known, else the thread's name.
 * A lane's <tid> is its name (importers name every lane: MOJO's "task 0x<id>" until its own). */
pcd_status pcd_render_thread_prefix(pcd_sink *s, const pcd_profile *p, pcd_thread_id t, pcd_dialect d,
                                    pcd_collapsed_escape esc);

/* A thread's title for viewers: its name (after its process's name and ", " when it has both:
 * "stream 1 (worker 1), substream 0"), or "Thread <tid>" with the process and interpreter
 * ("pid:iid:tid" in the Austin dialect, as austin2speedscope titles it); a lane "Task <name>
 * of <its thread's title>". */
pcd_status pcd_render_thread_title(pcd_sink *s, const pcd_profile *p, pcd_thread_id t, pcd_dialect d);

/* The text that stands for a thread's id where one is written: a lane's name, else the id's
 * own text; 0: none (write the number, tid). */
PCD_INLINE pcd_str pcd_thread_id_text(const pcd_thread *th)
{
    return th->lane_of && th->name ? th->name : th->tid_text;
}

/* What follows the last '/' of a path. */
pcd_bytes pcd_basename(pcd_bytes path);

#endif
