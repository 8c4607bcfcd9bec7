/* Sanitizer defaults for programs that run clFFT (conv2's FFT variant). Include in exactly one
 * source file of the program: it defines the hooks AddressSanitizer and LeakSanitizer read at
 * start-up (ASAN_OPTIONS and LSAN_OPTIONS from the environment still apply on top).
 *
 * clFFT 2.12 deletes its plans' actions through a base-class pointer without a virtual destructor
 * (FFTRepo::deletePlan), so AddressSanitizer reports a new-delete-type-mismatch inside clFFT at
 * every clfftDestroyPlan; and it keeps the kernel sources it generates (FFTRepo::setProgramCode,
 * new[]) past its teardown. Both are clFFT's own: clip's code is C, never calls delete, and the
 * leak suppression matches clFFT's frames only. */
#ifndef CLIP_TESTS_CLFFT_SANITIZER_HOOKS_H
#define CLIP_TESTS_CLFFT_SANITIZER_HOOKS_H

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "new_delete_type_mismatch=0"; }

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libclFFT\n"; }

#endif
