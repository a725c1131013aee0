/* pcd_port.h: compiler portability macros and the runtime ABI number. */
#ifndef PCD_PORT_H
#define PCD_PORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* Bumped whenever generated code and the runtime stop matching; every generated
 * file checks it with #error (see docs/notes/generated-code.md). */
#define PCD_RUNTIME_ABI 4 /* 4: pcd_ctx.count_only */

#if defined(__GNUC__) || defined(__clang__)
#define PCD_LIKELY(x) __builtin_expect(!!(x), 1)
#define PCD_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PCD_COLD __attribute__((cold, noinline))
/* PCD_NO_ALWAYS_INLINE (CMake defines it in Debug builds): no forced inlining at -O0, where it
 * only multiplies the code (and the sanitizers' checks) the compiler has to go through. */
#ifdef PCD_NO_ALWAYS_INLINE
#define PCD_INLINE static inline
#else
#define PCD_INLINE static inline __attribute__((always_inline))
#endif
#define PCD_UNUSED __attribute__((unused))
/* a function kept out of line: each copy of a loop body the compiler optimises on its own */
#define PCD_NOINLINE __attribute__((noinline))
/* a validation run, whose cursor lives in registers: gcc's SLP vectorizer would pack its position
 * and end into one vector register and back at each record (Heph: 10 instructions a packet) */
#if defined(__clang__)
#define PCD_NO_SLP
#else
#define PCD_NO_SLP __attribute__((optimize("no-tree-slp-vectorize")))
#endif
#else
#define PCD_LIKELY(x) (x)
#define PCD_UNLIKELY(x) (x)
#define PCD_COLD
#define PCD_INLINE static inline
#define PCD_UNUSED
#define PCD_NOINLINE
#define PCD_NO_SLP
#endif

#define PCD_STATIC_ASSERT(c, m) _Static_assert(c, m)
#define PCD_COUNTOF(a) (sizeof(a) / sizeof((a)[0]))

#endif
