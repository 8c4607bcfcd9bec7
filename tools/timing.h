/* The clocks of the clip tool and the benchmark programs: the monotonic clock, the median of a
 * run of times, and the time one launch of a process takes in a chain of its launches, as a
 * program that chains them pays it (what `clip tune` ranks sets by and `clip bench` prints as
 * chain_ms). */
#ifndef CLIP_TOOLS_TIMING_H
#define CLIP_TOOLS_TIMING_H

#include "clip/clip.h"

/* Writes to *ms the median over batches of launches of p enqueued back to back with p's timing
 * off (clip_process_set_timing; it stays off) and finished once, of each batch's wall time over
 * its launches: batches of about a millisecond (1 to 64 launches), about 30 ms of them, 3 to
 * max_reps (at most 32), none but the first started past `deadline` (CLOCK_MONOTONIC seconds,
 * clip_tool_now_s). The sum of a launch's profiling events (clip_process_time_ms) is not that
 * time for small launches: on an H100 with NVIDIA's OpenCL each event reads about 4 us longer
 * than its kernel, and the device stands idle about 2 us between two dependent kernels, which
 * events leave out (bench/GEMM.md, "Small products at the GPU's own pace"); this counts the
 * gaps, not the events' excess, and the host's enqueue cost where it is the larger. p must be
 * initialized. Errors: those of clip_process_launch and clip_app_finish (the message in
 * clip_app_last_error). */
clip_status clip_tool_chain_ms(clip_app *app, clip_process *p, double deadline, int max_reps,
                               double *ms);

/* CLOCK_MONOTONIC in seconds. */
double clip_tool_now_s(void);

/* Sorts v[0..n) (n >= 1) ascending and returns its median: the middle value, or the mean of the
 * two middle ones when n is even. */
double clip_tool_median(double *v, size_t n);

/* Launches p `per` (>= 1) times back to back and finishes the app's queue; writes the wall time
 * per launch in ms to *ms. p's timing is as set (clip_process_set_timing). Errors: those of
 * clip_process_launch and clip_app_finish. */
clip_status clip_tool_batch_ms(clip_app *app, clip_process *p, int per, double *ms);

#endif
