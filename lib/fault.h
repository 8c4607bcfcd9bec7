/* Failure injection for tests: with CLIP_FAULT_INJECTION defined (the CMake option of the same
 * name, never in release builds) the Nth OpenCL allocation, enqueue or program build fails as if
 * the driver had refused it, so tests can walk a failure over every call site.
 *
 * Every use of CLIP_FAULT is a call site with its own record (file, line, kind, calls), placed in
 * the linker section `clip_fault_sites`, so a test can list every site compiled into the library
 * and check that its chains reached each one: coverage is counted, not claimed. */
#ifndef CLIP_FAULT_H
#define CLIP_FAULT_H

/* FALLBACK marks a call whose failure clip absorbs by another way (page-locked host memory
 * falls back to ordinary memory): no error comes of it, so test_fault's chains, which expect one
 * from each failure, leave these sites to the tests of that fallback (tests/test_pinned.c). */
enum { CLIP_FAULT_ALLOC = 1, CLIP_FAULT_ENQUEUE = 2, CLIP_FAULT_BUILD = 4, CLIP_FAULT_FALLBACK = 8 };

#ifdef CLIP_FAULT_INJECTION
#include <stdatomic.h>
#include <stddef.h>

typedef struct clip_fault_site {
    const char *file;
    int line;
    int kind;
    atomic_long calls; /* every call since clip_fault_sites_reset, armed or not, any thread */
} clip_fault_site;

/* Counts a call at `site`; returns non-zero if this one must fail. */
int clip_fault_hit(clip_fault_site *site);
/* From now on, in this thread, the nth (1-based) call of any kind in `kinds` fails, once; nth 0
 * disarms. Resets the call counter. */
void clip_fault_arm(int kinds, long nth);
/* Calls of the armed kinds counted in this thread since the last clip_fault_arm. */
long clip_fault_calls(void);
/* From now on, in this thread, the site of the kth counted call (1-based, armed kinds only) is
 * stored in trace[k - 1] for k <= cap; trace NULL stops recording. The buffer stays the caller's.
 */
void clip_fault_record(const clip_fault_site **trace, long cap);
/* Every call site compiled into the program; *sites is set to the list (not owned). */
size_t clip_fault_sites(clip_fault_site *const **sites);
/* Sets every site's call count to 0. */
void clip_fault_sites_reset(void);

/* A GNU statement expression (gcc and clang; fault builds only) so each site gets a static
 * record; the pointer to it goes in the section, where the linker lines such pointers up
 * without padding and brackets them with __start_/__stop_ symbols. */
#define CLIP_FAULT(kind_)                                                                          \
    __extension__({                                                                                \
        static clip_fault_site clip_fault_site_ = {__FILE__, __LINE__, (kind_), 0};                \
        static clip_fault_site *const clip_fault_site_ptr_                                         \
            __attribute__((used, section("clip_fault_sites"))) = &clip_fault_site_;                \
        (void)clip_fault_site_ptr_;                                                                \
        clip_fault_hit(&clip_fault_site_);                                                         \
    })
#else
#define CLIP_FAULT(kind) 0
#endif

#endif
