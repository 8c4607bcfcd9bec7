/* Failure injection counters (see fault.h). Compiled to nothing without CLIP_FAULT_INJECTION. */
#include "fault.h"

#ifdef CLIP_FAULT_INJECTION
static _Thread_local int armed_kinds;
static _Thread_local long armed_nth, calls;

int clip_fault_hit(int kind) {
    if (!(kind & armed_kinds)) return 0;
    calls++;
    return armed_nth > 0 && calls == armed_nth;
}

void clip_fault_arm(int kinds, long nth) {
    armed_kinds = kinds;
    armed_nth = nth;
    calls = 0;
}

long clip_fault_calls(void) { return calls; }
#else
typedef int clip_fault_unused; /* ISO C forbids an empty translation unit */
#endif
