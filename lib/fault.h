/* Failure injection for tests: with CLIP_FAULT_INJECTION defined (the CMake option of the same
 * name, never in release builds) the Nth OpenCL allocation, enqueue or program build fails as if
 * the driver had refused it, so tests can walk a failure over every call site. */
#ifndef CLIP_FAULT_H
#define CLIP_FAULT_H

enum { CLIP_FAULT_ALLOC = 1, CLIP_FAULT_ENQUEUE = 2, CLIP_FAULT_BUILD = 4 };

#ifdef CLIP_FAULT_INJECTION
/* Counts a call of `kind`; returns non-zero if this one must fail. */
int clip_fault_hit(int kind);
/* From now on, the nth (1-based) call of any kind in `kinds` fails, once; nth 0 disarms.
 * Resets the call counter. */
void clip_fault_arm(int kinds, long nth);
/* Calls of the armed kinds counted since the last clip_fault_arm. */
long clip_fault_calls(void);
#define CLIP_FAULT(kind) clip_fault_hit(kind)
#else
#define CLIP_FAULT(kind) 0
#endif

#endif
