/* The 3xTF32 split and its range rule (kernels/tf32.cl), built alone in plain OpenCL C and run on
 * any device (PoCL in CI): the functions the tensor-core kernels build (there with the cvt
 * instruction for the rounding, which tf32_rna computes bit for bit). Against an independent
 * reference in double on the host:
 *   - tf32_rna: nearest with ties away from zero, at every exponent from the subnormals to
 *     FLT_MAX, and Inf and NaN;
 *   - tf32_split: big and small as the reference rounds them; x - (big + small) within 2^-22 |x|
 *     for every value in the range (0, or 2^-112 <= |x| < 2^126);
 *   - tf32_outside and tf32_tiny: exactly the values outside it, and every value whose split
 *     loses accuracy among them (subnormals, ~1e-36);
 *   - a model of the wgmma GEMM's rule (matmul_wg.cl: 3xTF32 sums, products of TF32 parts being
 *     exact in fp32; rows and columns outside the range scaled into it by tf32_scale and
 *     tf32_scaled, the sums scaled back, their Inf and NaN terms added by tf32_add_term; one
 *     fp32 FMA chain for rows no shift holds or with more than 8 Inf/NaN) on subnormal and
 *     ~1e-36 operands mixed with rows in range, and on Inf, NaN, Inf * 0, near-FLT_MAX and mixed
 *     rows: every finite output within the K-term bound of fp32, every non-finite one as an fp32
 *     FMA chain gives it, and without the rule the same model past them (so the check can
 *     fail). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"
#include "testutil.h"

static const char *const kernels_src =
    "__kernel void split(__global const float *x, __global uint *out) {\n"
    "    const size_t i = get_global_id(0);\n"
    "    uint b, s;\n"
    "    tf32_split(x[i], &b, &s);\n"
    "    out[4 * i] = tf32_rna(x[i]);\n"
    "    out[4 * i + 1] = b;\n"
    "    out[4 * i + 2] = s;\n"
    "    out[4 * i + 3] = (uint)tf32_outside(x[i]) | (uint)tf32_tiny(x[i]) << 1;\n"
    "}\n"
    "/* The mode of a row (stride 1) or column of X, length k, as matmul_wg.cl's wg_rescale finds\n"
    " * it: *s its shift, *listed its Inf and NaN entries; returns 1 where it goes to FMA. */\n"
    "int row_mode(__global const float *X, const int at, const int step, const int k, int *s,\n"
    "             int *listed) {\n"
    "    uint lo = 0xffffffffu, hi = 0u;\n"
    "    int flag = 0, c = 0;\n"
    "    for (int q = 0; q < k; q++) {\n"
    "        const float x = X[at + q * step];\n"
    "        const uint mg = tf32_mag(x);\n"
    "        flag |= tf32_outside(x);\n"
    "        if (mg >= 0x7f800000u) c++;\n"
    "        else if (mg) lo = min(lo, mg), hi = max(hi, mg);\n"
    "    }\n"
    "    *s = 0, *listed = 0;\n"
    "    if (!flag) return 0;\n"
    "    *listed = c;\n"
    "    return !tf32_scale(lo, hi, s) || c > 8;\n"
    "}\n"
    "/* C(i, j) of A (m x k) and B (k x n), column-major, as the wgmma kernels compute it (the\n"
    " * tensor cores' products of TF32 parts being exact in fp32); rule 0: every value split as "
    "it\n"
    " * is; rule 1: rows and columns outside the range scaled, their Inf and NaN terms added "
    "after,\n"
    " * or by one FMA chain where no shift holds them or they hold more than 8 non-finite. */\n"
    "__kernel void model(const int m, const int n, const int k, __global const float *A,\n"
    "                    __global const float *B, __global float *C, const int rule) {\n"
    "    const int i = (int)get_global_id(0), j = (int)get_global_id(1);\n"
    "    int sa = 0, sb = 0, la = 0, lb = 0, ffma = 0;\n"
    "    if (rule) ffma = row_mode(A, i, m, k, &sa, &la) | row_mode(B, j * k, 1, k, &sb, &lb);\n"
    "    float acc = 0.0f;\n"
    "    for (int q = 0; q < k; q++) {\n"
    "        const float a = A[i + q * m], b = B[q + j * k];\n"
    "        if (ffma) {\n"
    "            acc = fma(a, b, acc);\n"
    "            continue;\n"
    "        }\n"
    "        uint ab, as, bb, bs;\n"
    "        tf32_split(rule ? tf32_scaled(a, sa) : a, &ab, &as);\n"
    "        tf32_split(rule ? tf32_scaled(b, sb) : b, &bb, &bs);\n"
    "        acc = fma(as_float(as), as_float(bb), acc);\n"
    "        acc = fma(as_float(ab), as_float(bs), acc);\n"
    "        acc = fma(as_float(ab), as_float(bb), acc);\n"
    "    }\n"
    "    if (rule && !ffma) {\n"
    "        const int t = sa + sb;\n"
    "        if (isnan(acc) || (t > 0 && isinf(acc))) {\n"
    "            acc = 0.0f;\n"
    "            for (int q = 0; q < k; q++)\n"
    "                acc = fma(A[i + q * m], B[q + j * k], acc);\n"
    "        } else {\n"
    "            acc = ldexp(acc, -t);\n"
    "            for (int q = 0; la && q < k; q++)\n"
    "                if (tf32_mag(A[i + q * m]) >= 0x7f800000u)\n"
    "                    acc = tf32_add_term(acc, A[i + q * m], B[q + j * k]);\n"
    "            for (int q = 0; lb && q < k; q++)\n"
    "                if (tf32_mag(B[q + j * k]) >= 0x7f800000u)\n"
    "                    acc = tf32_add_term(acc, A[i + q * m], B[q + j * k]);\n"
    "        }\n"
    "    }\n"
    "    C[i + j * m] = acc;\n"
    "}\n";

static uint32_t bits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}
static float from_bits(uint32_t u) {
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* x rounded to 10 fraction bits (nearest, ties away), in double: the step is 2^(e - 10) for a
 * normal x of exponent e, 2^-136 under FLT_MIN (TF32 keeps fp32's exponent field); past FLT_MAX
 * it is Inf. */
static double ref_rna(double x) {
    if (x == 0 || !isfinite(x)) return x;
    int e;
    frexp(fabs(x), &e); /* |x| in [2^(e-1), 2^e) */
    const int step = e - 1 < -126 ? -136 : e - 1 - 10;
    const double q = ldexp(1.0, step);
    const double r = floor(fabs(x) / q + 0.5) * q; /* exact: x / q has at most 24 bits */
    const double v = copysign(r, x);
    return fabs(v) > FLT_MAX ? copysign(INFINITY, x) : v;
}

/* The range rule in double: 0, or 2^-112 <= |x| < 2^126. */
static int ref_outside(double x) {
    return !(x == 0 || (fabs(x) >= 0x1p-112 && fabs(x) < 0x1p126));
}

typedef struct {
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue q;
    cl_program prog;
} env;

static int env_open(clip_app *app, env *e) {
    cl_int err = CL_SUCCESS;
    e->ctx = app->context, e->dev = app->device;
    e->q = clCreateCommandQueue(e->ctx, e->dev, 0, &err);
    if (err != CL_SUCCESS) return -1;
    const char *srcs[2] = {clip_kernel_source("tf32"), kernels_src};
    if (!srcs[0]) return -1;
    e->prog = clCreateProgramWithSource(e->ctx, 2, srcs, NULL, &err);
    if (err != CL_SUCCESS) return -1;
    err = clBuildProgram(e->prog, 1, &e->dev, "", NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(e->prog, e->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "tf32.cl build: %s\n", log);
        return -1;
    }
    return 0;
}

/* The values: every exponent from the deepest subnormal to FLT_MAX, with fraction patterns that
 * sit on, below and above a tie of the TF32 rounding, both signs; the range's edges; specials. */
static size_t make_values(float *x, size_t cap, unsigned long long *seed) {
    size_t n = 0;
    static const uint32_t fracs[] = {0x000000, 0x001000, 0x000fff, 0x001001, 0x7fffff,
                                     0x3ff000, 0x2ab555, 0x000001, 0x7fefff, 0x400000};
    for (uint32_t ex = 0; ex < 255; ex++)
        for (size_t f = 0; f < sizeof fracs / sizeof *fracs; f++)
            for (uint32_t sg = 0; sg < 2 && n < cap; sg++)
                x[n++] = from_bits(sg << 31 | ex << 23 | fracs[f]);
    const float edges[] = {0x1p-112f, nextafterf(0x1p-112f, 0),
                           0x1p126f,  nextafterf(0x1p126f, 0),
                           FLT_MAX,   FLT_MIN,
                           1e-36f,    1e-39f,
                           INFINITY,  -INFINITY,
                           NAN,       -0.0f};
    for (size_t i = 0; i < sizeof edges / sizeof *edges && n < cap; i++)
        x[n++] = edges[i];
    while (n < cap) /* random fractions at random exponents */
        x[n++] = (float)ldexp(tu_rand(seed), (int)lround(140 * tu_rand(seed)) - 10);
    return n;
}

static void test_split(env *e, unsigned long long *seed) {
    enum { N = 8192 };
    static float x[N];
    static cl_uint out[4 * N];
    const size_t n = make_values(x, N, seed);
    cl_int err = CL_SUCCESS;
    cl_mem bx = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
    cl_mem bo = clCreateBuffer(e->ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    cl_kernel k = clCreateKernel(e->prog, "split", &err);
    clSetKernelArg(k, 0, sizeof bx, &bx);
    clSetKernelArg(k, 1, sizeof bo, &bo);
    size_t g = n;
    CHECK(clEnqueueNDRangeKernel(e->q, k, 1, NULL, &g, NULL, 0, NULL, NULL) == CL_SUCCESS);
    CHECK(clEnqueueReadBuffer(e->q, bo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) == CL_SUCCESS);
    int bad_rna = 0, bad_split = 0, bad_class = 0, lossy_in_range = 0, lossy_flagged = 0;
    for (size_t i = 0; i < n; i++) {
        const float v = x[i];
        const float big = from_bits(out[4 * i + 1]), small = from_bits(out[4 * i + 2]);
        const int outside = (int)(out[4 * i + 3] & 1), tiny = (int)(out[4 * i + 3] >> 1);
        /* The rounding, bit for bit (NaN: any NaN). */
        const double want = ref_rna(v);
        const float got = from_bits(out[4 * i]);
        if (isnan(v) ? !isnan(got) : (double)got != want || bits(big) != out[4 * i]) {
            if (bad_rna++ < 3) fprintf(stderr, "tf32_rna(%a) = %a, want %a\n", v, got, want);
        }
        if (!isfinite(v) || fabsf(v) > FLT_MAX * (1 - 0x1p-12f)) continue;
        /* The split: small is x - big rounded. */
        if ((double)small != ref_rna((double)v - (double)big) && bad_split++ < 3)
            fprintf(stderr, "tf32_split(%a): small %a, want %a\n", v, small,
                    ref_rna((double)v - (double)big));
        const int want_out = ref_outside(v), want_tiny = v != 0 && fabs(v) < 0x1p-112;
        if ((outside != want_out || tiny != want_tiny) && bad_class++ < 3)
            fprintf(stderr, "range of %a: outside %d tiny %d, want %d %d\n", v, outside, tiny,
                    want_out, want_tiny);
        const double err = fabs((double)v - ((double)big + (double)small));
        const int lossy = err > 0x1p-22 * fabs((double)v);
        if (lossy && !outside && lossy_in_range++ < 3)
            fprintf(stderr, "split of %a in range loses %g of it\n", v, err / fabs((double)v));
        lossy_flagged += lossy && outside;
    }
    printf("tf32: %zu values: rounding %d wrong, split %d wrong, range %d wrong; %d lose accuracy "
           "in the split, all outside the range (%d inside)\n",
           n, bad_rna, bad_split, bad_class, lossy_flagged, lossy_in_range);
    CHECK(bad_rna == 0);
    CHECK(bad_split == 0);
    CHECK(bad_class == 0);
    CHECK(lossy_in_range == 0);
    CHECK(lossy_flagged > 0); /* the subnormals and ~1e-36 values are lossy, and flagged */
    clReleaseKernel(k), clReleaseMemObject(bx), clReleaseMemObject(bo);
}

/* The model product of A (m x k) and B (k x n) with and without the rule, each output against
 * the fp32 K-term bound (as gt_check: (k + 4) * 2^-23 * sum|a||b|); returns the outputs past it
 * with the rule and stores those without it in *without. */
static int model_case(env *e, const char *what, size_t m, size_t k, size_t n, const float *A,
                      const float *B, int *without) {
    cl_int err = CL_SUCCESS;
    float *C = malloc(sizeof(float) * m * n);
    cl_mem ba = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof(float) * m * k, (void *)A, &err);
    cl_mem bb = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof(float) * k * n, (void *)B, &err);
    cl_mem bc = clCreateBuffer(e->ctx, CL_MEM_WRITE_ONLY, sizeof(float) * m * n, NULL, &err);
    cl_kernel kr = clCreateKernel(e->prog, "model", &err);
    int past[2] = {0, 0};
    double worst[2] = {0, 0};
    for (int rule = 1; rule >= 0; rule--) {
        cl_int M = (cl_int)m, N = (cl_int)n, K = (cl_int)k, R = rule;
        clSetKernelArg(kr, 0, sizeof M, &M), clSetKernelArg(kr, 1, sizeof N, &N);
        clSetKernelArg(kr, 2, sizeof K, &K), clSetKernelArg(kr, 3, sizeof ba, &ba);
        clSetKernelArg(kr, 4, sizeof bb, &bb), clSetKernelArg(kr, 5, sizeof bc, &bc);
        clSetKernelArg(kr, 6, sizeof R, &R);
        size_t g[2] = {m, n};
        CHECK(clEnqueueNDRangeKernel(e->q, kr, 2, NULL, g, NULL, 0, NULL, NULL) == CL_SUCCESS);
        CHECK(clEnqueueReadBuffer(e->q, bc, CL_TRUE, 0, sizeof(float) * m * n, C, 0, NULL, NULL) ==
              CL_SUCCESS);
        for (size_t j = 0; j < n; j++)
            for (size_t i = 0; i < m; i++) {
                double s = 0, sb = 0;
                for (size_t q = 0; q < k; q++) {
                    s += (double)A[i + q * m] * B[q + j * k];
                    sb += fabs((double)A[i + q * m] * B[q + j * k]);
                }
                /* non-finite: the class of an fp32 FMA chain over the same terms */
                float f = 0.0f;
                for (size_t q = 0; q < k && !isfinite(s); q++)
                    f = fmaf(A[i + q * m], B[q + j * k], f);
                const float got = C[i + j * m];
                if (!isfinite(s)) {
                    if (!(isnan(f) ? isnan(got) : got == f)) past[rule]++;
                    continue;
                }
                const double er = fabs(got - s) / sb;
                if (!(er <= (double)(k + 4) * 0x1p-23)) past[rule]++;
                if (!(er <= worst[rule])) worst[rule] = er;
            }
    }
    printf("tf32 model %-28s %zux%zux%zu: largest error %.3g eps with the rule (%d past the "
           "bound), %.3g eps without (%d past)\n",
           what, m, n, k, worst[1] * 0x1p24, past[1], worst[0] * 0x1p24, past[0]);
    clReleaseKernel(kr), clReleaseMemObject(ba), clReleaseMemObject(bb), clReleaseMemObject(bc);
    free(C);
    *without = past[0];
    return past[1];
}

/* Operands of the classes (A or B subnormal against ~1e10, ~1e-36), and mixed: every
 * third row of A subnormal beside rows in range; then Inf and NaN, few or many a row, in
 * subnormal, huge and ordinary rows, and a row no shift brings into the range (2^-140 and
 * 2^120): every non-finite output the same as an fp32 FMA chain's. */
static void test_model(env *e, unsigned long long *seed) {
    const size_t m = 48, k = 300, n = 40;
    float *A = malloc(sizeof(float) * m * k), *B = malloc(sizeof(float) * k * n);
    static const struct {
        const char *what;
        int ea, every_a, eb, fails_without;
    } cases[] = {{"A subnormal, B ~1e10", -130, 1, 33, 1},
                 {"A ~1e-36, B ~1e9", -120, 1, 30, 0},
                 {"A rows 3k subnormal", -131, 3, 35, 1},
                 {"B subnormal, A ~1e10", 33, 1, -130, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        for (size_t i = 0; i < m; i++)
            for (size_t q = 0; q < k; q++)
                A[i + q * m] =
                    (float)ldexp(tu_rand(seed), i % (size_t)cases[c].every_a ? 0 : cases[c].ea);
        for (size_t q = 0; q < k * n; q++)
            B[q] = (float)ldexp(tu_rand(seed), cases[c].eb);
        int without = 0;
        CHECK(model_case(e, cases[c].what, m, k, n, A, B, &without) == 0);
        /* (~1e-36 loses less: up to 1.9x FFMA's error in issue 45, inside this bound) */
        if (cases[c].fails_without) CHECK(without > 0);
    }
    for (size_t q = 0; q < m * k; q++)
        A[q] = (float)tu_rand(seed);
    for (size_t q = 0; q < k * n; q++)
        B[q] = (float)tu_rand(seed);
    for (size_t q = 0; q < k; q++) {
        A[4 + q * m] = (float)ldexp(A[4 + q * m], -131);
        A[6 + q * m] = (float)ldexp(A[6 + q * m], 115);
        B[q + 9 * k] = (float)ldexp(B[q + 9 * k], -128);
    }
    A[1 + 5 * m] = NAN, A[2 + 3 * m] = INFINITY, A[2 + 250 * m] = -INFINITY;
    A[3 + 11 * m] = INFINITY, B[11 + 17 * k] = 0.0f;
    A[4 + 99 * m] = -INFINITY, A[6 + 7 * m] = 0.9f * FLT_MAX, B[200 + 9 * k] = NAN;
    for (size_t q = 0; q < 12; q++)
        A[8 + (3 * q + 1) * m] = NAN;
    A[10] = 0x1p-140f, A[10 + m] = 0x1p120f;
    int without = 0;
    CHECK(model_case(e, "Inf, NaN, mixed rows", m, k, n, A, B, &without) == 0);
    free(A), free(B);
}

int main(void) {
    clip_app *app = tu_app();
    unsigned long long seed = 0x9e3779b97f4a7c15ULL;
    env e = {0};
    if (env_open(app, &e)) {
        CHECK(!"tf32.cl builds and runs");
    } else {
        test_split(&e, &seed);
        test_model(&e, &seed);
    }
    if (e.prog) clReleaseProgram(e.prog);
    if (e.q) clReleaseCommandQueue(e.q);
    clip_app_destroy(app);
    return tu_finish("test_tf32");
}
