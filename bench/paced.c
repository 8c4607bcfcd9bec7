/* paced: see paced.h. */
#include "paced.h"

#include <stdio.h>

/* A dependent chain of n multiply-adds that the compiler cannot shorten (n is a run-time value). */
static const char *spin_src = "__kernel void spin(__global float *x, uint n) {\n"
                              "    float v = x[0];\n"
                              "    for (uint i = 0; i < n; i++) v = fma(v, 0.999f, 0.001f);\n"
                              "    x[0] = v;\n"
                              "}\n";

static int check(cl_int e, const char *what) {
    if (e == CL_SUCCESS) return 0;
    fprintf(stderr, "paced: %s: OpenCL error %d\n", what, (int)e);
    return -1;
}

/* One run of the spin of n steps, its event returned (NULL on failure). */
static cl_event spin_once(cl_command_queue q, cl_kernel k, cl_uint n) {
    size_t one = 1;
    cl_event ev = NULL;
    if (check(clSetKernelArg(k, 1, sizeof n, &n), "clSetKernelArg") ||
        check(clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, 0, NULL, &ev), "spin"))
        return NULL;
    return ev;
}

static int stamp(cl_event ev, cl_profiling_info what, cl_ulong *ns) {
    return check(clGetEventProfilingInfo(ev, what, sizeof *ns, ns, NULL),
                 "clGetEventProfilingInfo");
}

int paced_ms(cl_command_queue q, paced_launch_fn launch, void *ctx, int r, double host_ms_each,
             double *ms, int *ahead) {
    cl_context cx = NULL;
    cl_device_id dev = NULL;
    cl_int e = CL_SUCCESS;
    cl_program prog = NULL;
    cl_kernel k = NULL;
    cl_mem x = NULL;
    cl_event cal = NULL, gate = NULL, tail = NULL;
    float zero = 0;
    int rc = -1;
    *ms = 0;
    *ahead = 0;
    if (check(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof cx, &cx, NULL), "queue context") ||
        check(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL), "queue device"))
        return -1;
    prog = clCreateProgramWithSource(cx, 1, &spin_src, NULL, &e);
    if (check(e, "clCreateProgramWithSource") ||
        check(clBuildProgram(prog, 1, &dev, "", NULL, NULL), "build spin"))
        goto done;
    k = clCreateKernel(prog, "spin", &e);
    if (check(e, "clCreateKernel")) goto done;
    x = clCreateBuffer(cx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, &zero, &e);
    if (check(e, "clCreateBuffer") || check(clSetKernelArg(k, 0, sizeof x, &x), "clSetKernelArg"))
        goto done;
    /* The spin's rate, from one run of 2^20 steps. */
    cl_ulong t0, t1, t2;
    const cl_uint n_cal = 1u << 20;
    if (!(cal = spin_once(q, k, n_cal)) || check(clWaitForEvents(1, &cal), "calibrate") ||
        stamp(cal, CL_PROFILING_COMMAND_START, &t0) || stamp(cal, CL_PROFILING_COMMAND_END, &t1))
        goto done;
    const double ns_per_step = (double)(t1 - t0) / n_cal;
    double want = (1.5 * r * host_ms_each + 1.0) * 1e6 / ns_per_step;
    cl_uint n = want > 4e9 ? 4000000000u : (cl_uint)want;
    if (!(gate = spin_once(q, k, n)) || check(clFlush(q), "clFlush")) goto done;
    for (int i = 0; i < r; i++)
        if (launch(ctx)) goto done;
    if (check(clFlush(q), "clFlush")) goto done;
    cl_int st = CL_COMPLETE;
    if (check(clGetEventInfo(gate, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL),
              "event status"))
        goto done;
    *ahead = st != CL_COMPLETE;
    if (!(tail = spin_once(q, k, 1)) || check(clWaitForEvents(1, &tail), "clWaitForEvents") ||
        stamp(gate, CL_PROFILING_COMMAND_END, &t1) || stamp(tail, CL_PROFILING_COMMAND_START, &t2))
        goto done;
    *ms = (double)(t2 - t1) * 1e-6 / r;
    rc = 0;
done:
    if (cal) clReleaseEvent(cal);
    if (gate) clReleaseEvent(gate);
    if (tail) clReleaseEvent(tail);
    if (x) clReleaseMemObject(x);
    if (k) clReleaseKernel(k);
    if (prog) clReleaseProgram(prog);
    return rc;
}
