/* fuzz/minimize.h: making a finding's input small while it still fails the same way. The
 * caller's oracle runs the reader on a candidate and says whether it still fails the same way
 * (the CLI runs the program and compares signatures); nothing here runs anything itself. */
#ifndef PCD_FUZZ_MINIMIZE_H
#define PCD_FUZZ_MINIMIZE_H

#include "pcd.h"

/* 1: the candidate still fails the same way; 0: it does not; -1: stop now (Ctrl-C, a time
 * budget): the best input so far stays. */
typedef int (*pcd_fz_oracle)(void *ud, const uint8_t *p, size_t n);

typedef struct pcd_fz_min_stats {
    uint64_t tries;           /* oracle calls */
    uint64_t kept;            /* candidates that still failed */
    bool stopped;             /* the oracle said stop, or the budget ran out */
} pcd_fz_min_stats;

/* By bytes: removes chunks (halves, quarters, ... single bytes, from the end backwards), then
 * sets bytes to 0 one at a time, each change kept when the oracle still sees the failure.
 * buf[0..*len) is changed in place and *len shrinks; at most max_tries oracle calls (0: no
 * limit). Returns PCD_OK, or PCD_E_NOMEM (buf unchanged). */
pcd_status pcd_fz_minimize_bytes(pcd_alloc *al, uint8_t *buf, size_t *len, uint64_t max_tries, pcd_fz_oracle fn,
                                 void *ud, pcd_fz_min_stats *st);

#endif
