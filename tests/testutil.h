/* Tiny test harness: CHECK macros that report file:line and count failures; each test program
 * returns non-zero when any check failed. */
#ifndef CLIP_TESTUTIL_H
#define CLIP_TESTUTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "clip/clip.h"

static int tu_failures = 0;
static int tu_checks = 0;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        tu_checks++;                                                                               \
        if (!(cond)) {                                                                             \
            tu_failures++;                                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);               \
        }                                                                                          \
    } while (0)

/* Checks a clip call returns `want`; prints the app's message when it does not. */
#define CHECK_STATUS(app, call, want)                                                              \
    do {                                                                                           \
        tu_checks++;                                                                               \
        clip_status s_ = (call);                                                                   \
        if (s_ != (want)) {                                                                        \
            tu_failures++;                                                                         \
            fprintf(stderr, "%s:%d: %s returned %s, want %s (%s)\n", __FILE__, __LINE__, #call,    \
                    clip_status_str(s_), clip_status_str(want), clip_app_last_error(app));         \
        }                                                                                          \
    } while (0)

#define CHECK_OK(app, call) CHECK_STATUS(app, call, CLIP_OK)

#define CHECK_NEAR(a, b, tol)                                                                      \
    do {                                                                                           \
        tu_checks++;                                                                               \
        double a_ = (double)(a), b_ = (double)(b);                                                 \
        if (!(fabs(a_ - b_) <= (tol))) {                                                           \
            tu_failures++;                                                                         \
            fprintf(stderr, "%s:%d: %s = %.17g, want %.17g (tol %g)\n", __FILE__, __LINE__, #a,    \
                    a_, b_, (double)(tol));                                                        \
        }                                                                                          \
    } while (0)

/* Checks that the app's last error contains `needle`. */
#define CHECK_MSG(app, needle)                                                                     \
    do {                                                                                           \
        tu_checks++;                                                                               \
        if (!strstr(clip_app_last_error(app), (needle))) {                                         \
            tu_failures++;                                                                         \
            fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,            \
                    clip_app_last_error(app), (needle));                                           \
        }                                                                                          \
    } while (0)

/* Runs one part of a long test and says when it ends (checks so far, failures, the part's
 * seconds), so that a run cut short by a time limit shows how far it got. */
/* CLIP_TEST_PARTS=word,word...: TU_PART runs only the parts whose call names one of the words
 * (a GPU session's look at what it changed); unset or empty, every part. */
static inline int tu_part_wanted(const char *what) {
    const char *w = getenv("CLIP_TEST_PARTS");
    if (!w || !*w) return 1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", w);
    for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","))
        if (strstr(what, t)) return 1;
    return 0;
}

#define TU_PART(call)                                                                              \
    do {                                                                                           \
        if (!tu_part_wanted(#call)) break;                                                         \
        struct timespec tu_t0_;                                                                    \
        clock_gettime(CLOCK_MONOTONIC, &tu_t0_);                                                   \
        call;                                                                                      \
        tu_part_done(#call, &tu_t0_);                                                              \
    } while (0)

static inline void tu_part_done(const char *what, const struct timespec *t0) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    printf("  %s: %d checks, %d failed, %.1f s\n", what, tu_checks, tu_failures,
           (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec));
    fflush(stdout);
}

static inline int tu_finish(const char *name) {
    printf("%s: %d checks, %d failed\n", name, tu_checks, tu_failures);
    return tu_failures ? 1 : 0;
}

/* The exit status ctest reads as "skipped" (SKIP_RETURN_CODE in tests/CMakeLists.txt). */
#define TU_SKIPPED 77

/* Ends a test whose subject is not in this build: says why and reports it skipped, so a missing
 * dependency never shows up as a pass. */
static inline int tu_skip(const char *name, const char *reason) {
    printf("%s: skipped: %s\n", name, reason);
    return TU_SKIPPED;
}

/* Opens the test app: the default device, ignoring nothing (CLIP_DEVICE may steer it). */
static inline clip_app *tu_app(void) {
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) {
        fprintf(stderr, "cannot open an OpenCL device: %s\n", clip_app_last_error(NULL));
        exit(2);
    }
    return app;
}

/* Opens an app over devices 1..n of `clip devices`, whatever CLIP_DEVICE says (several PoCL
 * devices come from POCL_DEVICES); NULL, with the reason on stderr, when it cannot. */
static inline clip_app *tu_app_devices(int n) {
    clip_criteria c = {0};
    c.ignore_env = 1;
    for (int i = 0; i < n; i++)
        c.indices[i] = i + 1;
    c.n_indices = n;
    clip_app *app = NULL;
    if (clip_app_create(&app, &c) != CLIP_OK)
        fprintf(stderr, "app over %d devices: %s\n", n, clip_app_last_error(NULL));
    return app;
}

/* Quick mode, CLIP_TEST_QUICK=1 (scripts/valgrind.sh sets it): the kernel-heavy tests keep every
 * code path (each kernel variant, type, pad mode, edge tile, K split, error case) but run fewer
 * and smaller cases, since kernels run some 50x slower under valgrind, and still check values
 * against their references. The plain and sanitizer suites run the full sizes. */
static inline int tu_quick(void) {
    const char *q = getenv("CLIP_TEST_QUICK");
    return q && *q && strcmp(q, "0") != 0;
}

/* Deterministic pseudo-random doubles in [-1, 1) (xorshift64*), so failures reproduce. */
static inline double tu_rand(unsigned long long *state) {
    unsigned long long x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 2685821657736338717ULL) >> 11) / 4503599627370496.0 - 1.0;
}

/* Runs the clip tool with `args`; returns its exit status (-1 if it did not exit normally),
 * stdout and stderr left in PREFIX_out.txt and PREFIX_err.txt. */
static inline int tu_run_tool(const char *prefix, const char *args) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s >%s_out.txt 2>%s_err.txt", CLIP_TOOL, args, prefix, prefix);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether the first 4 KiB of the text file at path hold needle (0 when it cannot be read). */
static inline int tu_file_has(const char *path, const char *needle) {
    char buf[4096] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return strstr(buf, needle) != NULL;
}

/* Appends one tuning-cache line (lib/tuning.c's format) for app's device to the file at path. */
static inline void tu_tuning_line(clip_app *app, const char *path, const char *process,
                                  const char *key, const char *value) {
    FILE *f = fopen(path, "a");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "clip-tuning-1\t%s\t%s\t%s\t%s\t%s\n", clip_app_device(app)->name,
            clip_app_device(app)->driver, process, key, value);
    fclose(f);
}

/* Checks that `clip ARGS` fails and says `needle` on stderr (PREFIX_err.txt; prefix a string
 * literal). Two checks, each reported at the caller's line. */
#define CHECK_TOOL_FAILS(prefix, args, needle)                                                     \
    do {                                                                                           \
        CHECK(tu_run_tool(prefix, args) != 0);                                                     \
        CHECK(tu_file_has(prefix "_err.txt", needle));                                             \
    } while (0)

/* Creates process `name` with the choice `param` = `value` (param NULL: none), inputs a and b (b
 * NULL: one), inits and launches it (a check each); returns it, its first output in *out
 * (borrowed from the process). */
static inline clip_process *tu_run2(clip_app *app, const char *name, const char *param,
                                    const char *value, clip_data *a, clip_data *b,
                                    clip_data **out) {
    clip_process *p = NULL;
    *out = NULL;
    CHECK_OK(app, clip_process_create(app, name, &p));
    if (param) CHECK_OK(app, clip_process_set_choice(p, param, value));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    if (b) CHECK_OK(app, clip_process_set_input(p, 1, b));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, out));
    return p;
}

/* Launches the n processes in turn and waits for them (a check each, and one for the wait);
 * *before and *after: the app's transfer counters just before and after. */
static inline void tu_launch_all(clip_app *app, clip_process *const *procs, int n,
                                 clip_transfer_stats *before, clip_transfer_stats *after) {
    CHECK_OK(app, clip_app_transfer_stats(app, before));
    for (int i = 0; i < n; i++)
        CHECK_OK(app, clip_process_launch(procs[i]));
    CHECK_OK(app, clip_app_finish(app));
    CHECK_OK(app, clip_app_transfer_stats(app, after));
}

#endif
