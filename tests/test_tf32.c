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
 *   - conv2's rule (conv2_tensor.cl, tf32_range.cl): tf32_range_join's ranges of an image and a
 *     filter against the host's, only where asked, found by 8 work-groups together in chunks of
 *     64 values (each group's view of them after the join, the chunks counted, the other turn's
 *     words zeroed); tf32_conv_shifts on a grid of ranges, every shift
 *     pair it returns inside the constraints and the nearest to 0 (else of the largest sum), and
 *     where it finds none, none by a search of every pair; a model of the kernel's sums (3xTF32
 * over the taps of each output, operands scaled by those shifts, the output scaled back; one FMA
 * chain where no shift holds them) on subnormal and ~1e-36 images and filters, a subnormal block,
 * and an image no shift holds: every output within the taps-term bound of fp32, and without the
 *     rule past it;
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
    "}\n"
    "/* tf32_conv_shifts of case i (anlo, ahi, knlo, khi, taps) into ok, sa, sk */\n"
    "__kernel void shifts(__global const uint *in, __global int *out) {\n"
    "    const size_t i = get_global_id(0);\n"
    "    __global const uint *c = in + 5 * i;\n"
    "    int sa, sk;\n"
    "    out[3 * i] = tf32_conv_shifts(c[0], c[1], c[2], c[3], (int)c[4], &sa, &sk);\n"
    "    out[3 * i + 1] = sa, out[3 * i + 2] = sk;\n"
    "}\n"
    "/* tf32_range_join as conv2's second pass calls it: every group of the launch (group 0\n"
    " * also zeroing the other turn's words); what each group has after it, in seen. */\n"
    "__kernel void range_join(__global const float *A, const long na, __global const float *K,\n"
    "                         const int nk, __global uint *r, const uint gen,\n"
    "                         __global uint *seen) {\n"
    "    __local uint sh[5];\n"
    "    const int lid = (int)get_local_id(0), grp = (int)get_group_id(0);\n"
    "    if (grp == 0) tf32_range_reset(r, gen, lid);\n"
    "    if (r[0] == gen) {\n"
    "        tf32_range_join(A, na, K, nk, r, gen, lid, (int)get_local_size(0), sh);\n"
    "        if (lid < 4) seen[4 * grp + lid] = sh[1 + lid];\n"
    "    }\n"
    "}\n"
    "/* Output i of x correlated with f (taps) as conv2_tensor.cl sums it (3xTF32, products\n"
    " * of TF32 parts exact); rule 1: operands scaled by the shifts of tf32_range_join's ranges\n"
    " * (launch 3's, r[5..8]), the sum scaled back by one multiply, or one FMA chain where a\n"
    " * value is under the range still. */\n"
    "__kernel void conv_model(__global const float *x, __global const float *f, const int taps,\n"
    "                         __global const uint *r, __global float *y, const int rule) {\n"
    "    const int i = (int)get_global_id(0);\n"
    "    int sa = 0, sk = 0, tiny = 0;\n"
    "    if (rule) tf32_conv_shifts(r[5], r[6], r[7], r[8], taps, &sa, &sk);\n"
    "    const float xs = tf32_pow2(sa), ks = tf32_pow2(sk);\n"
    "    float acc = 0.0f;\n"
    "    for (int q = 0; q < taps; q++) {\n"
    "        const float a = x[i + q] * xs, b = f[q] * ks;\n"
    "        uint ab, as, bb, bs;\n"
    "        tiny |= tf32_tiny(a) | tf32_tiny(b);\n"
    "        tf32_split(a, &ab, &as);\n"
    "        tf32_split(b, &bb, &bs);\n"
    "        acc = fma(as_float(as), as_float(bb), acc);\n"
    "        acc = fma(as_float(ab), as_float(bs), acc);\n"
    "        acc = fma(as_float(ab), as_float(bb), acc);\n"
    "    }\n"
    "    acc *= tf32_pow2(-(sa + sk));\n"
    "    if (rule && tiny)\n"
    "        for (int q = 0 * (acc = 0.0f); q < taps; q++)\n"
    "            acc = fma(x[i + q], f[q], acc);\n"
    "    y[i] = acc;\n"
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
    const char *srcs[3] = {clip_kernel_source("tf32"), clip_kernel_source("tf32_range"),
                           kernels_src};
    if (!srcs[0] || !srcs[1]) return -1;
    e->prog = clCreateProgramWithSource(e->ctx, 3, srcs, NULL, &err);
    if (err != CL_SUCCESS) return -1;
    err = clBuildProgram(e->prog, 1, &e->dev, "-DTF32_RANGE_CHUNK=64", NULL, NULL);
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

/* ---- conv2's rule ---- */

/* The constraints of tf32_conv_shifts (tf32.cl) on shifts (sa, sk) for exponent ranges
 * el..eh (image) and kl..kh (filter) and lt = ceil(log2 taps). */
static int shifts_fit(int el, int eh, int kl, int kh, int lt, int sa, int sk) {
    return el + sa >= -112 && eh + sa <= 125 && kl + sk >= -112 && kh + sk <= 125 &&
           eh + kh + 2 + lt + sa + sk <= 124 && sa >= -126 && sa <= 126 && sk >= -126 &&
           sk <= 126 && sa + sk >= -126 && sa + sk <= 126;
}

/* floor(log2) of the magnitude whose bits are m (subnormals included). */
static int ilogb_bits(uint32_t m) {
    int e = m >= 0x00800000u ? (int)(m >> 23) - 127 : -150;
    for (uint32_t t = m; m < 0x00800000u && t; t >>= 1)
        e++;
    return e;
}

/* tf32_conv_shifts on ranges whose ends run over the exponents (subnormal to near FLT_MAX): where
 * it returns shifts, they fit, and they are each the nearest to 0 where that pair fits, else of
 * the largest sum of any pair that fits; where it returns none, no pair fits (a search of all). */
static void test_shifts(env *e, unsigned long long *seed) {
    enum { N = 600 };
    static cl_uint in[5 * N];
    static cl_int out[3 * N];
    static const int taps[] = {1, 49, 225, 961, 3969};
    for (size_t i = 0; i < N; i++) {
        uint32_t m[4];
        for (int q = 0; q < 4; q++)
            m[q] = (uint32_t)((tu_rand(seed) + 1) / 2 * 0x7f7fffff) + 1u;
        if (m[0] > m[1]) {
            const uint32_t t = m[0];
            m[0] = m[1], m[1] = t;
        }
        if (m[2] > m[3]) {
            const uint32_t t = m[2];
            m[2] = m[3], m[3] = t;
        }
        if (i % 3 == 0) m[1] = m[0] + (m[1] - m[0]) / 64; /* narrow ranges, where shifts exist */
        if (i % 3 == 0) m[3] = m[2] + (m[3] - m[2]) / 64;
        in[5 * i] = ~m[0], in[5 * i + 1] = m[1], in[5 * i + 2] = ~m[2], in[5 * i + 3] = m[3];
        in[5 * i + 4] = (cl_uint)taps[i % 5];
    }
    cl_int err = CL_SUCCESS;
    cl_mem bi =
        clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem bo = clCreateBuffer(e->ctx, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    cl_kernel k = clCreateKernel(e->prog, "shifts", &err);
    clSetKernelArg(k, 0, sizeof bi, &bi), clSetKernelArg(k, 1, sizeof bo, &bo);
    size_t g = N;
    CHECK(clEnqueueNDRangeKernel(e->q, k, 1, NULL, &g, NULL, 0, NULL, NULL) == CL_SUCCESS);
    CHECK(clEnqueueReadBuffer(e->q, bo, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) == CL_SUCCESS);
    int wrong = 0, found = 0, nearest = 0;
    for (size_t i = 0; i < N; i++) {
        const int el = ilogb_bits(~in[5 * i]), eh = ilogb_bits(in[5 * i + 1]);
        const int kl = ilogb_bits(~in[5 * i + 2]), kh = ilogb_bits(in[5 * i + 3]);
        int lt = 0;
        while ((1 << lt) < (int)in[5 * i + 4])
            lt++;
        int best = INT32_MIN;
        for (int sa = -126; sa <= 126; sa++)
            for (int sk = -126; sk <= 126; sk++)
                if (shifts_fit(el, eh, kl, kh, lt, sa, sk) && sa + sk > best) best = sa + sk;
        const int ok = out[3 * i], sa = out[3 * i + 1], sk = out[3 * i + 2];
        /* each shift nearest 0 where that pair fits, else the largest sum */
        const int pa = el < -112 ? -112 - el : eh > 125 ? 125 - eh : 0;
        const int pk = kl < -112 ? -112 - kl : kh > 125 ? 125 - kh : 0;
        const int near = shifts_fit(el, eh, kl, kh, lt, pa, pk);
        found += ok, nearest += ok && near;
        if ((ok ? !shifts_fit(el, eh, kl, kh, lt, sa, sk) ||
                      (near ? sa != pa || sk != pk : sa + sk != best)
                : best != INT32_MIN) &&
            wrong++ < 3)
            fprintf(stderr,
                    "tf32_conv_shifts(2^%d..2^%d, 2^%d..2^%d, 2^%d taps): %d %d %d, best "
                    "sum %d\n",
                    el, eh, kl, kh, lt, ok, sa, sk, best);
    }
    printf("tf32_conv_shifts: %d ranges, %d with shifts (%d the nearest to 0), %d wrong\n", N,
           found, nearest, wrong);
    CHECK(wrong == 0);
    CHECK(found > N / 4 && found < N && nearest < found); /* every outcome met */
    clReleaseKernel(k), clReleaseMemObject(bi), clReleaseMemObject(bo);
}

/* tf32_range_join on x (n values) and f (taps) as launch 3 (odd: r[5..8], chunks r[12..13]) of 8
 * groups, asked (r[0] = 3) or not: the ranges as the host finds them in r and in every group, or
 * none, each chunk taken once and done, and the even words zeroed for launch 4; then the model
 * correlation with and without the rule, each output against the fp32 bound (taps + 4) * 2^-23 *
 * sum|x||f|. Returns the outputs past it with the rule and stores those without it in *without. */
static int conv_case(env *e, const char *what, const float *x, size_t n, const float *f,
                     size_t taps, int *without) {
    const size_t nx = n + taps - 1;
    cl_int err = CL_SUCCESS;
    float *y = malloc(sizeof(float) * n);
    cl_mem bx = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(float) * nx,
                               (void *)x, &err);
    cl_mem bf = clCreateBuffer(e->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                               sizeof(float) * taps, (void *)f, &err);
    cl_mem br = clCreateBuffer(e->ctx, CL_MEM_READ_WRITE, 16 * sizeof(cl_uint), NULL, &err);
    cl_mem by = clCreateBuffer(e->ctx, CL_MEM_WRITE_ONLY, sizeof(float) * n, NULL, &err);
    cl_mem bs = clCreateBuffer(e->ctx, CL_MEM_READ_WRITE, 32 * sizeof(cl_uint), NULL, &err);
    cl_kernel kr = clCreateKernel(e->prog, "range_join", &err);
    cl_kernel km = clCreateKernel(e->prog, "conv_model", &err);
    uint32_t want[5] = {3, 0, 0, 0, 0};
    for (size_t i = 0; i < nx + taps; i++) {
        const uint32_t m = bits(i < nx ? x[i] : f[i - nx]) & 0x7fffffffu;
        const int q = i < nx ? 1 : 3;
        if (m && m < 0x7f800000u) {
            if (~m > want[q]) want[q] = ~m;
            if (m > want[q + 1]) want[q + 1] = m;
        }
    }
    const cl_long nl = (cl_long)nx;
    const cl_int nk = (cl_int)taps, T = (cl_int)taps;
    const cl_uint gen = 3;
    clSetKernelArg(kr, 0, sizeof bx, &bx), clSetKernelArg(kr, 1, sizeof nl, &nl);
    clSetKernelArg(kr, 2, sizeof bf, &bf), clSetKernelArg(kr, 3, sizeof nk, &nk);
    clSetKernelArg(kr, 4, sizeof br, &br), clSetKernelArg(kr, 5, sizeof gen, &gen);
    clSetKernelArg(kr, 6, sizeof bs, &bs);
    const cl_uint chunks = (cl_uint)((nx + 63) / 64) + 1u, groups = 8;
    for (int asked = 0; asked < 2; asked++) {
        cl_uint r[16] = {asked ? gen : 2u, 7, 7, 7, 7, 0, 0, 0, 0, 7, 7, 7}, seen[32];
        memset(seen, 0xff, sizeof seen);
        CHECK(clEnqueueWriteBuffer(e->q, br, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL) == CL_SUCCESS);
        CHECK(clEnqueueWriteBuffer(e->q, bs, CL_TRUE, 0, sizeof seen, seen, 0, NULL, NULL) ==
              CL_SUCCESS);
        const size_t g = 64 * groups, wg = 64;
        CHECK(clEnqueueNDRangeKernel(e->q, kr, 1, NULL, &g, &wg, 0, NULL, NULL) == CL_SUCCESS);
        CHECK(clEnqueueReadBuffer(e->q, br, CL_TRUE, 0, sizeof r, r, 0, NULL, NULL) == CL_SUCCESS);
        CHECK(clEnqueueReadBuffer(e->q, bs, CL_TRUE, 0, sizeof seen, seen, 0, NULL, NULL) ==
              CL_SUCCESS);
        for (int q = 1; q < 5; q++) {
            CHECK(r[q] == 0u && r[4 + q] == (asked ? want[q] : 0u));
            for (cl_uint w = 0; w < groups; w++)
                CHECK(seen[4 * w + q - 1] == (asked ? want[q] : 0xffffffffu));
        }
        CHECK(r[10] == 0u && r[11] == 0u);
        CHECK(r[12] == (asked ? chunks + groups : 0u) && r[13] == (asked ? chunks : 0u));
    }
    int past[2] = {0, 0};
    double worst[2] = {0, 0};
    for (int rule = 1; rule >= 0; rule--) {
        const cl_int R = rule;
        clSetKernelArg(km, 0, sizeof bx, &bx), clSetKernelArg(km, 1, sizeof bf, &bf);
        clSetKernelArg(km, 2, sizeof T, &T), clSetKernelArg(km, 3, sizeof br, &br);
        clSetKernelArg(km, 4, sizeof by, &by), clSetKernelArg(km, 5, sizeof R, &R);
        size_t g = n;
        CHECK(clEnqueueNDRangeKernel(e->q, km, 1, NULL, &g, NULL, 0, NULL, NULL) == CL_SUCCESS);
        CHECK(clEnqueueReadBuffer(e->q, by, CL_TRUE, 0, sizeof(float) * n, y, 0, NULL, NULL) ==
              CL_SUCCESS);
        for (size_t i = 0; i < n; i++) {
            double s = 0, sb = 0;
            for (size_t q = 0; q < taps; q++)
                s += (double)x[i + q] * f[q], sb += fabs((double)x[i + q] * f[q]);
            const double er = sb > 0 ? fabs(y[i] - s) / sb : fabs(y[i] - s);
            if (!(er <= (double)(taps + 4) * 0x1p-23)) past[rule]++;
            if (!(er <= worst[rule])) worst[rule] = er;
        }
    }
    printf("tf32 conv model %-26s %zu x %zu taps: largest error %.3g eps with the rule (%d past "
           "the bound), %.3g eps without (%d past)\n",
           what, n, taps, worst[1] * 0x1p24, past[1], worst[0] * 0x1p24, past[0]);
    clReleaseKernel(kr), clReleaseKernel(km);
    clReleaseMemObject(bx), clReleaseMemObject(bf), clReleaseMemObject(br), clReleaseMemObject(by);
    clReleaseMemObject(bs);
    free(y);
    *without = past[0];
    return past[1];
}

/* The conv2 classes (a subnormal image against a filter ~1e10, an image ~1e10 against a
 * subnormal filter, ~1e-36 against ~1e9), a subnormal block in an image in range against a
 * filter ~1e12, and an image no shift holds (2^-140 beside 2^120: the FMA chain). */
static void test_conv(env *e, unsigned long long *seed) {
    const size_t n = 3000, taps = 225, nx = n + taps - 1;
    float *x = malloc(sizeof(float) * nx), f[225];
    static const struct {
        const char *what;
        int ex, ef, block, fails_without;
    } cases[] = {{"image subnormal, filter ~1e10", -130, 33, 0, 1},
                 {"image ~1e10, filter subnormal", 33, -130, 0, 1},
                 {"image ~1e-36, filter ~1e9", -120, 30, 0, 0},
                 {"subnormal block, filter ~1e12", 0, 40, 1, 1},
                 {"no shift holds the image", 0, 0, 2, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        for (size_t i = 0; i < nx; i++) {
            const int in_block = i >= 1000 && i < 1400;
            const int ex = cases[c].block == 1 ? (in_block ? -135 : 0) : cases[c].ex;
            x[i] = (float)ldexp(tu_rand(seed) - 0.3, ex);
        }
        if (cases[c].block == 2) x[500] = 0x1p-140f, x[2000] = 0x1p120f;
        for (size_t q = 0; q < taps; q++)
            f[q] = (float)ldexp(tu_rand(seed) - 0.3, cases[c].ef);
        int without = 0;
        CHECK(conv_case(e, cases[c].what, x, n, f, taps, &without) == 0);
        if (cases[c].fails_without) CHECK(without > 0);
    }
    free(x);
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
        test_shifts(&e, &seed);
        test_conv(&e, &seed);
    }
    if (e.prog) clReleaseProgram(e.prog);
    if (e.q) clReleaseCommandQueue(e.q);
    clip_app_destroy(app);
    return tu_finish("test_tf32");
}
