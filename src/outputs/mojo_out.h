/* outputs/mojo_out.h: the MOJO output's state and its parts (mojo.c: the output, MOJO 3 and 4,
 * and at its end what only MOJO 4 writes, stack repeats and tasks; one file, as the two parts
 * call each other). Internal to src/outputs. */
#ifndef PCD_OUTPUTS_MOJO_OUT_H
#define PCD_OUTPUTS_MOJO_OUT_H

#include "common/hmap.h"
#include "mojo_v3.h"
#include "mojo_v4.h"
#include "outputs/outputs.h"

enum { W_META, W_MODE, W_STATUS, W_NUL, W_LANES, W_LINKS, W_N };

/* MOJO 4: a task event waiting for a sample of its lane's thread (a task stack for a lane
 * sample, or a waiter for a link). */
typedef struct task_ev {
    pcd_thread_id lane, waiter;    /* waiter: UINT32_MAX for a task stack */
    pcd_stack_id stack;
    uint64_t us;
} task_ev;

/* MOJO 4: how a reader tells threads apart (pid and thread text): the previous frames of each. */
typedef struct rthread {
    pcd_mojo_int pid;
    uint64_t text_off;             /* its thread text in `texts` */
    size_t text_len;
    uint32_t *fr;                  /* its previous sample's frame references (model frame ids) */
    size_t n_fr, fr_cap;
} rthread;

typedef struct mojo_out {
    pcd_job *j;
    pcd_sink *out;
    pcd_writer w;
    bool w_open;
    int version;                   /* 3 or 4 */
    bool austin;                   /* the profile is Austin's own: its metadata go as they are */
    bool head;                     /* the header (or the input's metadata) is written */
    pcd_out_pace pace;             /* the time metric's type (pace.type, -1 none) and its unit */
    int memory, released;          /* Austin's memory types (-1 none) */
    pcd_hmap defined;              /* (pid, kind << 1 | sign, id): defined in that process, its
                                    * key (v0) */
    bool first_use;                /* keys per process in order of first use (pcd_job.first_use_keys) */
    pcd_hmap next;                 /* first_use: (pid, sign): the next string key (v0), frame key (v1) */
    pcd_hmap pids;                 /* pid -> index + 1 in `fresh` */
    uint32_t *stack_pid;           /* stack id -> the pid index + 1 all of whose frames are defined */
    size_t stack_pid_cap;
    int64_t *prev;                 /* thread id -> the time (µs) of its previous sample */
    uint8_t *seen;                 /* thread id -> 1 after its first sample with a time */
    size_t prev_cap, seen_cap;
    pcd_frame_id *fr;
    size_t fr_cap;
    pcd_frame_id *tfr;             /* a task's frames (MOJO 4), while fr holds a sample's */
    size_t tfr_cap;
    uint8_t *clean;                /* a string without its NUL bytes */
    size_t clean_cap;
    char *tid;                     /* a thread id in hex */
    size_t tid_cap;
    uint64_t warn[W_N];
    /* MOJO 4 */
    rthread *rt;                   /* the threads as readers tell them apart */
    size_t n_rt, rt_cap;
    uint8_t *texts;
    size_t texts_len, texts_cap;
    uint32_t *rt_of;               /* model thread -> rt index + 1 */
    size_t rt_of_cap;
    task_ev *tev;                  /* task events waiting, in order */
    size_t n_tev, tev_cap;
    pcd_hmap tasks;                /* lane -> its point's stack + 1 (v0), the time at it (v1) */
    bool any_stack;                /* a stack event was written */
    struct { pcd_str k, v; } *held; /* metadata after a sample, until the next one is written */
    size_t n_held, held_cap;
} mojo_out;

static inline pcd_mojo_int mint(int64_t v)
{
    return v < 0 ? (pcd_mojo_int){ (uint64_t)0 - (uint64_t)v, true } : (pcd_mojo_int){ (uint64_t)v, false };
}


/* mojo.c */
/* An event of MOJO 4 (version 3's are the same, minus the cases version 4 adds) to the output. */
pcd_status pcd_mojo_put(mojo_out *m, pcd_mojo_v4_event *ev);
pcd_status pcd_mojo_put_time(mojo_out *m, uint64_t us);
/* Defined in the process pid before its first use there. */
pcd_status pcd_mojo_define_string(mojo_out *m, pcd_mojo_int pid, const pcd_profile *p, pcd_str s);
/* The key of string s, and of frame f, defined in the process pid. */
uint64_t pcd_mojo_str_key(const mojo_out *m, pcd_mojo_int pid, pcd_str s);
uint64_t pcd_mojo_frame_key(const mojo_out *m, pcd_mojo_int pid, pcd_frame_id f);
pcd_status pcd_mojo_define_stack(mojo_out *m, pcd_mojo_int pid, pcd_profile *p, pcd_stack_id st,
                             const pcd_frame_id *fr, size_t n);
/* A frame written as a frame reference (not a marker, a kernel frame or a label). */
bool pcd_mojo_is_ref(const pcd_frame *f);

/* what only MOJO 4 writes */
/* Whether the sample being written (m->fr, n frames) repeats its thread's previous one as Austin
 * 4's writer would say it: *from is where its references go on after a stack repeat, 0 when
 * there is none. */
pcd_status pcd_mojo_repeat_of(mojo_out *m, const pcd_profile *p, pcd_thread_id t, const pcd_mojo_v4_event *stack,
                          size_t n, size_t *from);
/* The task events waiting for a sample of thread t (all of them: t UINT32_MAX), in order. */
pcd_status pcd_mojo_flush_tasks(mojo_out *m, pcd_profile *p, pcd_thread_id t);
/* The end: each task's last time on a task stack without frames. */
pcd_status pcd_mojo_close_tasks(mojo_out *m, pcd_profile *p);
pcd_status pcd_mojo_add_task_ev(mojo_out *m, task_ev e);
/* The consumer's link: a task waiter (MOJO 4). */
pcd_status pcd_mojo_link(void *ud, pcd_profile *p, const pcd_link *l);

#endif
