/* paced: the device's own time per launch of a repeated command chain, with the host kept ahead.
 *
 * Back to back on one queue, a launch costs the larger of what the host spends enqueueing it and
 * what the device spends running it. A CUDA graph's replay shows only the second, so beside
 * cuBLAS timed that way (bench/shape_anchor.py, cublas-graph) a back-to-back batch that the host
 * limits would compare unlike with like. Here a one-work-item spin kernel holds the queue while the
 * host enqueues all the launches, so the device finds them waiting and runs them at its own pace.
 * The span from the spin's end to the start of a tiny kernel enqueued after them, over their
 * number, is that pace (it includes the device's gaps between kernels, as the graph's time does).
 */
#ifndef CLIP_BENCH_PACED_H
#define CLIP_BENCH_PACED_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

/* Enqueues one launch of the chain on q; returns 0 on success. */
typedef int (*paced_launch_fn)(void *ctx);

/* Runs `launch` r times behind a spin on q (a profiling queue) and writes the device's time per
 * launch in ms to *ms. host_ms_each is what one launch costs the host (a back-to-back batch's
 * time per launch will do); the spin is sized to outlast r of them by half again. *ahead is 1
 * when the spin was still running after the last enqueue (the measurement is the device's
 * pace), 0 when it was not (the host fell behind, and *ms is not the device's time). Returns 0,
 * or -1 after printing the OpenCL call that failed to stderr. Everything it creates is released. */
int paced_ms(cl_command_queue q, paced_launch_fn launch, void *ctx, int r, double host_ms_each,
             double *ms, int *ahead);

#endif
