/* enqueue_cost: what an OpenCL driver charges the host per kernel enqueue, with and without a
 * profiling event (bench/GEMM.md, "Small products"; why clip_process_set_timing exists).
 *
 *   enqueue_cost [N]
 *
 * On the first device of the first platform (CLIP_DEVICE is not read: this measures the driver,
 * not clip), a one-work-group kernel is enqueued N times back to back (default 2000) on an
 * in-order queue with and without CL_QUEUE_PROFILING_ENABLE, each with and without an event
 * per enqueue (released at once), and the queue finished once. Prints, per case, the host time
 * per enqueue and the time per kernel until all were done, then the mean START..END of the
 * kernel's profiling events over 50 single runs. Then what setting a 20-argument kernel's
 * arguments before each enqueue adds (all of them, or its 4 buffers), against setting them once.
 * Last, the device's own cost per kernel: a one-work-group kernel busy for tens of microseconds,
 * 500 launches of it against 1000 launches of its halves (the host keeps ahead, so the
 * difference is the GPU's time between two dependent kernels), on an in-order queue without and
 * with profiling, and on an out-of-order queue where each launch waits on the event of the one
 * before. Then the round trip a synchronous call cannot go below: a one-work-item kernel and a
 * blocking read map of its buffer (how clip makes an output current on a device that works on
 * host memory), then the unmap, N times, median (python/README.md: the 1x1 call from Python). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

static int check(cl_int e, const char *what) {
    if (e == CL_SUCCESS) return 0;
    fprintf(stderr, "enqueue_cost: %s: OpenCL error %d\n", what, (int)e);
    return 1;
}

/* N back-to-back enqueues of k on q, with an event each or not. */
static int run_batch(cl_command_queue q, cl_kernel k, int n, int with_event, double *per_enqueue,
                     double *per_kernel) {
    size_t g = 64, l = 64;
    if (check(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL), "warm-up") ||
        check(clFinish(q), "clFinish"))
        return 1;
    double t0 = now_us();
    for (int r = 0; r < n; r++) {
        cl_event ev = NULL;
        cl_int e = clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, with_event ? &ev : NULL);
        if (check(e, "clEnqueueNDRangeKernel")) return 1;
        if (ev) clReleaseEvent(ev);
    }
    double t1 = now_us();
    if (check(clFinish(q), "clFinish")) return 1;
    *per_enqueue = (t1 - t0) / n;
    *per_kernel = (now_us() - t0) / n;
    return 0;
}

/* The queues device_gap compares: in order without and with profiling (clip's queues have it),
 * and out of order with each launch waiting on the one before by its event (a dependent chain
 * either way; does the driver bridge it faster than in-order serialization?). */
static const char *const gap_queues[3] = {"in order", "in order, profiling",
                                          "out of order, events"};

/* 500 launches of `busy` over n steps against 1000 over n/2, for a few n (see the top), on
 * queue kind `kind` (gap_queues). */
static int device_gap(cl_context ctx, cl_device_id dev, cl_program prog, cl_mem m, int kind) {
    cl_int e;
    const cl_command_queue_properties props[3] = {0, CL_QUEUE_PROFILING_ENABLE,
                                                  CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE};
    cl_command_queue q = clCreateCommandQueue(ctx, dev, props[kind], &e);
    if (e == CL_INVALID_VALUE || e == CL_INVALID_QUEUE_PROPERTIES) {
        printf("%s: not offered by this device\n", gap_queues[kind]);
        return 0;
    }
    if (check(e, "clCreateCommandQueue")) return 1;
    cl_kernel k = clCreateKernel(prog, "busy", &e);
    if (check(e, "clCreateKernel busy") || check(clSetKernelArg(k, 0, sizeof m, &m), "arg")) {
        clReleaseCommandQueue(q);
        return 1;
    }
    static const int steps[3] = {8000, 16000, 32000};
    const int runs = 500;
    size_t g = 256, l = 256;
    int rc = 0;
    for (int i = 0; i < 3 && !rc; i++) {
        double per[2] = {0, 0};
        for (int halves = 0; halves < 2 && !rc; halves++) {
            const int n = halves ? steps[i] / 2 : steps[i], launches = halves ? 2 * runs : runs;
            rc = check(clSetKernelArg(k, 1, sizeof n, &n), "arg") ||
                 check(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL), "warm-up") ||
                 check(clFinish(q), "clFinish");
            cl_event prev = NULL;
            const double t0 = now_us();
            for (int r = 0; r < launches && !rc; r++) {
                cl_event next = NULL;
                rc = check(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, prev ? 1 : 0,
                                                  prev ? &prev : NULL, kind == 2 ? &next : NULL),
                           "busy");
                if (prev) clReleaseEvent(prev);
                prev = next;
            }
            if (!rc) rc = check(clFinish(q), "clFinish");
            if (prev) clReleaseEvent(prev);
            per[halves] = (now_us() - t0) / runs;
        }
        if (!rc)
            printf("%s, busy kernel of %d steps: %.2f us a launch; as two halves %.2f us: %.2f us "
                   "more a kernel\n",
                   gap_queues[kind], steps[i], per[0], per[1], per[1] - per[0]);
    }
    clReleaseKernel(k);
    clReleaseCommandQueue(q);
    return rc;
}

/* wide's arguments in order: i int, f float, u ulong, b a buffer, n the NULL buffer. */
static const char wide_args[] = "iiiffbuibuibuiiuiiin";

/* Sets wide's arguments: every one (what = 2), the four buffers only (1), or none (0). */
static int set_wide(cl_kernel k, cl_mem m, int what) {
    const cl_int i = 64;
    const cl_float f = 1.0f;
    const cl_ulong u = 0;
    const cl_mem none = NULL;
    int rc = 0;
    for (cl_uint a = 0; what && wide_args[a] && !rc; a++) {
        const char c = wide_args[a];
        if (what < 2 && c != 'b' && c != 'n') continue;
        rc = check(c == 'i'   ? clSetKernelArg(k, a, sizeof i, &i)
                   : c == 'f' ? clSetKernelArg(k, a, sizeof f, &f)
                   : c == 'u' ? clSetKernelArg(k, a, sizeof u, &u)
                              : clSetKernelArg(k, a, sizeof m, c == 'b' ? &m : &none),
                   "clSetKernelArg wide");
    }
    return rc;
}

/* What setting a kernel's arguments adds to its enqueue: a 20-argument kernel enqueued n times
 * back to back without events, its arguments set before each enqueue (all, the buffers only) or
 * once. */
static int arg_cost(cl_context ctx, cl_device_id dev, cl_program prog, cl_mem m, int n) {
    cl_int e;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    if (check(e, "clCreateCommandQueue")) return 1;
    cl_kernel k = clCreateKernel(prog, "wide", &e);
    int rc = check(e, "clCreateKernel wide") || set_wide(k, m, 2);
    static const char *const what[3] = {"set once", "4 buffers set each time",
                                        "20 arguments set each time"};
    size_t g = 64, l = 64;
    for (int w = 0; w < 3 && !rc; w++) {
        rc = check(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL), "warm-up") ||
             check(clFinish(q), "clFinish");
        const double t0 = now_us();
        for (int r = 0; r < n && !rc; r++)
            rc = set_wide(k, m, w) ||
                 check(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL), "wide");
        const double t1 = now_us();
        if (!rc) rc = check(clFinish(q), "clFinish");
        if (!rc)
            printf("20-argument kernel, arguments %s: enqueue %.2f us each\n", what[w],
                   (t1 - t0) / n);
    }
    if (k) clReleaseKernel(k);
    clReleaseCommandQueue(q);
    return rc;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median time of kernel k and a blocking map and unmap of m, back to back, n times. */
static int round_trip(cl_context ctx, cl_device_id dev, cl_kernel k, cl_mem m, int n) {
    cl_int e;
    cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &e);
    if (check(e, "clCreateCommandQueue")) return 1;
    double *t = malloc((size_t)n * sizeof *t);
    int rc = !t;
    size_t one = 1;
    for (int i = -n / 4; i < n && !rc; i++) { /* a quarter more first, not counted: warm-up */
        const double t0 = now_us();
        void *h = NULL;
        rc = check(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, NULL),
                   "clEnqueueNDRangeKernel");
        if (!rc) h = clEnqueueMapBuffer(q, m, CL_TRUE, CL_MAP_READ, 0, 4, 0, NULL, NULL, &e);
        if (!rc) rc = check(e, "clEnqueueMapBuffer");
        if (!rc) rc = check(clEnqueueUnmapMemObject(q, m, h, 0, NULL, NULL), "clEnqueueUnmap");
        if (i >= 0) t[i] = now_us() - t0;
    }
    if (!rc) {
        qsort(t, (size_t)n, sizeof *t, cmp_double);
        printf("round trip, a kernel then a blocking map: %.1f us (median of %d)\n", t[n / 2], n);
    }
    free(t);
    clFinish(q);
    clReleaseCommandQueue(q);
    return rc;
}

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 2000;
    if (n < 1) {
        fprintf(stderr, "usage: enqueue_cost [N >= 1]\n");
        return 2;
    }
    cl_platform_id pl;
    cl_device_id dev;
    cl_int e = clGetPlatformIDs(1, &pl, NULL);
    if (check(e, "clGetPlatformIDs") ||
        check(clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL), "clGetDeviceIDs"))
        return 1;
    char name[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    if (check(e, "clCreateContext")) return 1;
    const char *src =
        "__kernel void k(__global float *x) { if (get_global_id(0) == 0) x[0] += 1.0f; }\n"
        "__kernel void busy(__global float *x, const int n) {\n"
        "  float a = x[get_local_id(0)];\n"
        "  for (int i = 0; i < n; i++) a = a * 0.999f + 0.5f;\n"
        "  x[get_local_id(0)] = a; }\n"
        /* the tiled GEMM kernel's argument list: 20 arguments, 4 of them buffers */
        "__kernel void wide(int m, int n, int k, float al, float be, __global float *a, ulong oa,\n"
        "  int lda, __global const float *b, ulong ob, int ldb, __global float *c, ulong oc,\n"
        "  int ldc, int kc, ulong cs, int mt, int wh, int ct, __global float *w) {\n"
        "  if (get_global_id(0) == 0) c[oc] += al * a[oa] * b[ob] + be + (float)(m + n + k +\n"
        "  lda + ldb + ldc + kc + (int)cs + mt + wh + ct) + (w ? 1.0f : 0.0f); }\n";
    cl_program prog = clCreateProgramWithSource(ctx, 1, &src, NULL, &e);
    if (check(e, "clCreateProgramWithSource") ||
        check(clBuildProgram(prog, 1, &dev, "", NULL, NULL), "clBuildProgram"))
        return 1;
    cl_kernel k = clCreateKernel(prog, "k", &e);
    cl_mem m = e == CL_SUCCESS
                   ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, 256 * sizeof(float), NULL, &e)
                   : NULL;
    if (check(e, "kernel or buffer") || check(clSetKernelArg(k, 0, sizeof m, &m), "clSetKernelArg"))
        return 1;
    printf("device: %s, %d enqueues a case\n", name, n);
    int rc = 0;
    for (int prof = 0; prof < 2 && !rc; prof++) {
        cl_command_queue q =
            clCreateCommandQueue(ctx, dev, prof ? CL_QUEUE_PROFILING_ENABLE : 0, &e);
        if (check(e, "clCreateCommandQueue")) return 1;
        for (int ev = 0; ev < 2 && !rc; ev++) {
            double pe = 0, pk = 0;
            rc = run_batch(q, k, n, ev, &pe, &pk);
            if (!rc)
                printf(
                    "profiling queue %d, event %d: enqueue %.2f us each, all done %.2f us each\n",
                    prof, ev, pe, pk);
        }
        if (prof && !rc) {
            double sum = 0;
            const int runs = 50;
            size_t g = 64, l = 64;
            for (int r = 0; r < runs && !rc; r++) {
                cl_event ev = NULL;
                cl_ulong a = 0, b = 0;
                rc =
                    check(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, &ev),
                          "clEnqueueNDRangeKernel") ||
                    check(clWaitForEvents(1, &ev), "clWaitForEvents") ||
                    check(
                        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL),
                        "profiling start") ||
                    check(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL),
                          "profiling end");
                if (ev) clReleaseEvent(ev);
                sum += (double)(b - a) * 1e-3;
            }
            if (!rc) printf("event time of the kernel: %.2f us (mean of %d)\n", sum / runs, runs);
        }
        clReleaseCommandQueue(q);
    }
    if (!rc) rc = arg_cost(ctx, dev, prog, m, n);
    for (int kind = 0; kind < 3 && !rc; kind++)
        rc = device_gap(ctx, dev, prog, m, kind);
    if (!rc) rc = round_trip(ctx, dev, k, m, n);
    clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseContext(ctx);
    return rc;
}
