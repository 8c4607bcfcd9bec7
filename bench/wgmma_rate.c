/* wgmma_rate: the tensor cores' TF32 rate on Hopper as clip's kernels reach it, by operand source
 * (A from registers as conv2_tensor builds it, or both operands in local memory as the GEMM),
 * wgmma width N, accumulator chains in flight and work-groups per compute unit: a warpgroup
 * issues CHAIN wgmma into its accumulators, commits, waits for them and starts again, nothing
 * else (bench/CONV2.md, "tensor cores"). Needs an NVIDIA device of compute capability 9.0
 * (the sm_90a build of lib/program_ptx.c); elsewhere it says so and exits 77.
 *   wgmma_rate [CHAIN]       (default 12, conv2_tensor's products a step for 31 to 32 rows)
 * Prints one line per case: multiply-adds per clock cycle of a compute unit (peak TF32 on an
 * H100 SXM: 1024). RING=1 cases start each chain from zero and add it into a second set of
 * registers after the wait, as conv2_tensor's steps do; the FRESH cases load their A quads from
 * local memory each chain, as conv2_tensor's 15x15 step does (bench/CONV2.md, eighth round):
 * fresh 1 both parts, split beforehand (the kernel's way); fresh 2 the values only, split in
 * registers (half the loads, more instructions); fresh 3 as 1, the next chain's quads loaded
 * while this one runs (16 more registers, which the kernel does not have at 128). Fresh 4 to 6 ask
 * whether fewer, wider products lift that: a tap block's three products as two, A big against
 * the filter's big and small parts side by side (n64) and A small against the big part (n32,
 * into the first half), with A's quads loaded as in 1 (fresh 4) or both operands read from local
 * memory (5); 6 is the three n32 products with both operands in local memory. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip/clip.h"
#include "internal.h"

static const char *const kernel_src =
    "#if N == 32\n#define D TC_D16\n#define ACCN TC_ACC16\n"
    "#define DS \"%16, %17\"\n#define DP \"%18\"\n#define RA \"{%16, %17, %18, %19}\"\n#define RD "
    "\"%20\"\n#define RP \"%21\"\n"
    "#elif N == 64\n#define D TC_D32\n#define ACCN TC_ACC32\n"
    "#define DS \"%32, %33\"\n#define DP \"%34\"\n#define RA \"{%32, %33, %34, %35}\"\n#define RD "
    "\"%36\"\n#define RP \"%37\"\n"
    "#else\n#define D TC_D64\n#define ACCN TC_ACC64\n"
    "#define DS \"%64, %65\"\n#define DP \"%66\"\n#define RA \"{%64, %65, %66, %67}\"\n#define RD "
    "\"%68\"\n#define RP \"%69\"\n"
    "#endif\n"
    "#define S_(x) #x\n#define S(x) S_(x)\n"
    "#define SHAPE \"m64n\" S(N) \"k8\"\n"
    "#if SS\n"
    "TC_WGMMA(mma, SHAPE, \"tf32\", \"\", D, DS, DP, ACCN)\n"
    "#define MMA(d, a) mma(d, da, db, 1)\n"
    "#else\n"
    "TC_WGMMA_RA(mma, SHAPE, D, RA, RD, RP, ACCN)\n"
    "#define MMA(d, a) mma(d, a, db, 1)\n"
    "#if N == 32\n#define MMA_SET(d, a) tc_wgmma_ra_n32_set(d, a, db)\n"
    "#else\n#define MMA_SET(d, a) tc_wgmma_ra_n64_set(d, a, db)\n#endif\n"
    "#endif\n"
    "__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void rate(__global float *out,\n"
    "                                                               const int iters) {\n"
    "    __local uint sm[(N + 128) * 8] __attribute__((aligned(128)));\n"
    "    const int tid = (int)get_local_id(0);\n"
    "    for (int e = tid; e < (N + 128) * 8; e += 128) sm[e] = 0x3f800000u + (uint)(e % 7);\n"
    "    tc_fence_async_local();\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    const ulong db = tc_wg_desc(sm, N * 16, 128), da = tc_wg_desc(sm + N * 8, 64 * 16, 128);\n"
    "    (void)da;\n"
    "    const uint a[4] = {0x3f800000u + tid, 0x3f800001u + tid, 0x3f800002u + tid, 0x3f800003u + "
    "tid};\n"
    "    float d[ACC][N / 2], ring[N / 2];\n"
    "    for (int c = 0; c < ACC; c++)\n"
    "        for (int r = 0; r < N / 2; r++) d[c][r] = 0.0f;\n"
    "    for (int r = 0; r < N / 2; r++) ring[r] = 0.0f;\n"
    "#define RINGADD _Pragma(\"unroll\") for (int r = 0; r < N / 2; r++) { "
    "asm volatile(\"\" : \"+f\"(d[0][r])); ring[r] += d[0][r]; }\n"
    "#if FRESH\n"
    "    const uint xaddr = tc_smem(sm + tid % 32);\n"
    "#define LOADQ(b, s) TC_LDS4(b[0], xaddr, 0, 2, 4, 6); TC_LDS4(s[0], xaddr, 1, 3, 5, 7); "
    "TC_LDS4(b[1], xaddr, 8, 10, 12, 14); TC_LDS4(s[1], xaddr, 9, 11, 13, 15)\n"
    "#define CHAIN6(b, s) MMA_SET(d[0], s[0]); MMA(d[0], b[0]); MMA(d[0], b[0]); "
    "MMA(d[0], s[1]); MMA(d[0], b[1]); MMA(d[0], b[1])\n"
    "#endif\n"
    "#if FRESH >= 4\n"
    "    const ulong da2 = tc_wg_desc(sm + N * 8 + 64 * 8, 64 * 16, 128);\n"
    "#define RINGADD2 _Pragma(\"unroll\") for (int r = 0; r < 16; r++) { "
    "asm volatile(\"\" : \"+f\"(d[0][r]), \"+f\"(d[0][r + 16])); "
    "ring[r] += d[0][r] + d[0][r + 16]; }\n"
    "    for (int it = 0; it < iters; it++) {\n"
    "#if FRESH == 4\n"
    "        uint fb[2][4], fs[2][4];\n"
    "        LOADQ(fb, fs);\n"
    "        tc_wg_fence();\n"
    "        tc_wgmma_ra_n64_set(d[0], fb[0], db); tc_wgmma_ra_n32(d[0], fs[0], db, 1);\n"
    "        tc_wgmma_ra_n64(d[0], fb[1], db, 1); tc_wgmma_ra_n32(d[0], fs[1], db, 1);\n"
    "#elif FRESH == 5\n"
    "        tc_wg_fence();\n"
    "        tc_wgmma_n64_tf32_set(d[0], da, db); tc_wgmma_n32_tf32(d[0], da2, db, 1);\n"
    "        tc_wgmma_n64_tf32(d[0], da, db, 1); tc_wgmma_n32_tf32(d[0], da2, db, 1);\n"
    "#else\n"
    "        tc_wg_fence();\n"
    "        tc_wgmma_n32_tf32_set(d[0], da2, db); tc_wgmma_n32_tf32(d[0], da, db + 32, 1);\n"
    "        tc_wgmma_n32_tf32(d[0], da, db, 1); tc_wgmma_n32_tf32(d[0], da2, db, 1);\n"
    "        tc_wgmma_n32_tf32(d[0], da, db + 32, 1); tc_wgmma_n32_tf32(d[0], da, db, 1);\n"
    "#endif\n"
    "        tc_wg_commit();\n"
    "        TC_WG_WAIT(0);\n"
    "#if FRESH == 6\n"
    "        RINGADD;\n"
    "#else\n"
    "        RINGADD2;\n"
    "#endif\n"
    "    }\n"
    "#elif FRESH == 3\n"
    "    uint b0[2][4], s0[2][4], b1[2][4], s1[2][4];\n"
    "    LOADQ(b0, s0);\n"
    "    for (int it = 0; it < iters; it += 2) {\n"
    "        tc_wg_fence(); CHAIN6(b0, s0); tc_wg_commit(); LOADQ(b1, s1); TC_WG_WAIT(0); "
    "RINGADD;\n"
    "        tc_wg_fence(); CHAIN6(b1, s1); tc_wg_commit(); LOADQ(b0, s0); TC_WG_WAIT(0); "
    "RINGADD;\n"
    "    }\n"
    "#else\n"
    "    for (int it = 0; it < iters; it++) {\n"
    "#if FRESH\n"
    "        uint fb[2][4], fs[2][4];\n"
    "#if FRESH == 2\n"
    "        uint xv[2][4];\n"
    "        TC_LDS4(xv[0], xaddr, 0, 2, 4, 6);\n"
    "        TC_LDS4(xv[1], xaddr, 8, 10, 12, 14);\n"
    "        _Pragma(\"unroll\") for (int q = 0; q < 2; q++)\n"
    "            _Pragma(\"unroll\") for (int e = 0; e < 4; e++)\n"
    "                tc_split(as_float(xv[q][e]), &fb[q][e], &fs[q][e]);\n"
    "#else\n"
    "        LOADQ(fb, fs);\n"
    "#endif\n"
    "        tc_wg_fence();\n"
    "        CHAIN6(fb, fs);\n"
    "#else\n"
    "        tc_wg_fence();\n"
    "#if RING\n"
    "        MMA_SET(d[0], a);\n"
    "        _Pragma(\"unroll\") for (int c = 1; c < CHAIN; c++) MMA(d[0], a);\n"
    "#else\n"
    "        _Pragma(\"unroll\") for (int c = 0; c < CHAIN; c++) MMA(d[c % ACC], a);\n"
    "#endif\n"
    "#endif\n"
    "        tc_wg_commit();\n"
    "        TC_WG_WAIT(0);\n"
    "#if RING\n"
    "        RINGADD;\n"
    "#endif\n"
    "    }\n"
    "#endif\n"
    "    float s = 0.0f;\n"
    "    for (int c = 0; c < ACC; c++)\n"
    "        for (int r = 0; r < N / 2; r++) s += d[c][r] + ring[r];\n"
    "    out[get_global_id(0)] = s;\n"
    "}\n";

static void die(const char *what, cl_int err) {
    fprintf(stderr, "wgmma_rate: %s failed (%d)\n", what, (int)err);
    exit(1);
}

int main(int argc, char **argv) {
    const int chain = argc > 1 ? atoi(argv[1]) : 12;
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) {
        fprintf(stderr, "wgmma_rate: %s\n", clip_app_last_error(NULL));
        return 1;
    }
    cl_uint cc = 0, units = 0, mhz = 0;
    if (clGetDeviceInfo(app->device, 0x4000 /* CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV */, sizeof cc,
                        &cc, NULL) != CL_SUCCESS ||
        cc != 9) {
        printf("wgmma_rate: needs an NVIDIA device of compute capability 9.0; skipped\n");
        clip_app_destroy(app);
        return 77;
    }
    clGetDeviceInfo(app->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    clGetDeviceInfo(app->device, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
    const char *tc = clip_kernel_source("tensor_core"), *tf = clip_kernel_source("tf32");
    size_t len = strlen(tc) + strlen(tf) + strlen(kernel_src) + 3;
    char *src = malloc(len);
    snprintf(src, len, "%s\n%s\n%s", tc, tf, kernel_src);
    cl_int err = CL_SUCCESS;
    cl_command_queue q =
        clCreateCommandQueue(app->context, app->device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (err != CL_SUCCESS) die("clCreateCommandQueue", err);
    cl_mem out = clCreateBuffer(app->context, CL_MEM_READ_WRITE, sizeof(float) * 128 * 8 * units,
                                NULL, &err);
    if (err != CL_SUCCESS) die("clCreateBuffer", err);
    printf("device %s, %u compute units at %u MHz, chain %d\n", app->info.name, units, mhz, chain);
    /* fresh: conv2_tensor's 15x15 step, its A quads loaded from local memory each chain
     * (TC_LDS4), six wgmma of two taps blocks in 3xTF32's order (the chain is 6 whatever CHAIN) */
    static const int cases[][5] = {
        /* ss, n, acc, ring, fresh */
        {0, 32, 1, 1, 1},  {0, 64, 1, 1, 4}, {1, 64, 1, 1, 5}, {1, 32, 1, 1, 6}, {0, 32, 1, 1, 2},
        {0, 32, 1, 1, 3},  {0, 32, 1, 1, 0}, {0, 64, 1, 1, 0}, {0, 32, 1, 0, 0}, {0, 64, 1, 0, 0},
        {0, 128, 1, 0, 0}, {0, 32, 2, 0, 0}, {0, 64, 2, 0, 0}, {1, 32, 1, 0, 0}, {1, 64, 1, 0, 0},
        {1, 128, 1, 0, 0}, {1, 64, 2, 0, 0}};
    for (size_t ci = 0; ci < sizeof cases / sizeof *cases; ci++) {
        const int ss = cases[ci][0], n = cases[ci][1], acc = cases[ci][2], ring = cases[ci][3];
        /* fresh 4 and 5 give a tap block's three products as two, n64 and n32: 3 links of n64 */
        const int fresh = cases[ci][4], links = fresh == 4 || fresh == 5 ? 3 : fresh ? 6 : chain;
        char opts[192];
        snprintf(opts, sizeof opts,
                 "-DCLIP_SM90A -DSS=%d -DN=%d -DACC=%d -DCHAIN=%d -DRING=%d -DFRESH=%d", ss, n, acc,
                 links, ring, fresh);
        cl_program prog =
            clCreateProgramWithSource(app->context, 1, (const char **)&src, NULL, &err);
        if (err != CL_SUCCESS) die("clCreateProgramWithSource", err);
        err = clBuildProgram(prog, 1, &app->device, opts, NULL, NULL);
        char log[4000];
        if (err != CL_SUCCESS) {
            clip_build_log(app, prog, log, sizeof log);
            fprintf(stderr, "wgmma_rate: build (%s): %s\n", opts, log);
            return 1;
        }
        if (clip_program_retarget(app, "wgmma_rate", 0, log, sizeof log, &prog) != CLIP_OK) {
            fprintf(stderr, "wgmma_rate: %s\n%s\n", clip_app_last_error(app), log);
            return 1;
        }
        cl_kernel k = clCreateKernel(prog, "rate", &err);
        if (err != CL_SUCCESS) die("clCreateKernel", err);
        /* about 1e9 multiply-adds a group */
        const int iters = (int)(1e9 / ((double)links * 64 * n * 8)) & ~1; /* fresh 3: pairs */
        for (int g = 1; g <= 4; g++) {
            const size_t global = 128 * (size_t)g * units, local = 128;
            double best = 1e30;
            for (int rep = 0; rep < 3; rep++) {
                cl_event ev;
                clSetKernelArg(k, 0, sizeof out, &out);
                clSetKernelArg(k, 1, sizeof iters, &iters);
                err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, &ev);
                if (err != CL_SUCCESS) die("clEnqueueNDRangeKernel", err);
                clWaitForEvents(1, &ev);
                cl_ulong t0 = 0, t1 = 0;
                clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL);
                clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL);
                clReleaseEvent(ev);
                if ((double)(t1 - t0) < best) best = (double)(t1 - t0);
            }
            const double macs = (double)iters * links * 64 * n * 8 * (double)g * units;
            printf("wgmma %s n%-3d acc %d ring %d fresh %d chain %d groups/cu %d ms %.3f "
                   "mac/clk/cu %.0f\n",
                   ss ? "SS" : "RA", n, acc, ring, fresh, links, g, best * 1e-6,
                   macs / (best * 1e-9) / ((double)mhz * 1e6) / units);
        }
        clReleaseKernel(k);
        clReleaseProgram(prog);
    }
    clReleaseMemObject(out);
    clReleaseCommandQueue(q);
    free(src);
    clip_app_destroy(app);
    return 0;
}
