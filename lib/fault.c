/* Failure injection counters and the list of call sites (see fault.h). Compiled to nothing
 * without CLIP_FAULT_INJECTION. */
#include "fault.h"

#ifdef CLIP_FAULT_INJECTION
/* Thread-local so that a test walking failures in one thread is not disturbed by another. */
static _Thread_local int armed_kinds;
static _Thread_local long armed_nth, calls;
static _Thread_local const clip_fault_site **trace;
static _Thread_local long trace_cap;

/* Bounds of the section, provided by the linker; weak so that a program with no site links. */
extern clip_fault_site *const __start_clip_fault_sites[] __attribute__((weak));
extern clip_fault_site *const __stop_clip_fault_sites[] __attribute__((weak));

int clip_fault_hit(clip_fault_site *site) {
    atomic_fetch_add_explicit(&site->calls, 1, memory_order_relaxed);
    if (!(site->kind & armed_kinds)) return 0;
    calls++;
    if (trace && calls <= trace_cap) trace[calls - 1] = site;
    return armed_nth > 0 && calls == armed_nth;
}

void clip_fault_arm(int kinds, long nth) {
    armed_kinds = kinds;
    armed_nth = nth;
    calls = 0;
}

long clip_fault_calls(void) {
    return calls;
}

void clip_fault_record(const clip_fault_site **buf, long cap) {
    trace = buf;
    trace_cap = buf ? cap : 0;
}

size_t clip_fault_sites(clip_fault_site *const **sites) {
    *sites = __start_clip_fault_sites;
    if (!__start_clip_fault_sites || !__stop_clip_fault_sites) return 0;
    return (size_t)(__stop_clip_fault_sites - __start_clip_fault_sites);
}

void clip_fault_sites_reset(void) {
    clip_fault_site *const *s = NULL;
    size_t n = clip_fault_sites(&s);
    for (size_t i = 0; i < n; i++)
        atomic_store_explicit(&s[i]->calls, 0, memory_order_relaxed);
}
#else
typedef int clip_fault_unused; /* ISO C forbids an empty translation unit */
#endif
