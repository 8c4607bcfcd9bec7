/* matmul's tensor-core family (variant "tensor": 3xTF32 on NVIDIA sm_80+, processes/gemm_tc.h).
 * On sm_90 the family's wgmma kernels run the suite, then (CLIP_GEMM_WGMMA=0) the mma.sync ones;
 * the wgmma kernels also take transposed and unaligned operands, checked here.
 * Off such a device: asking for it fails at init with CLIP_ERR_UNSUPPORTED, precisions tf32,
 * bf16 and fp16 give an fp32 product, and the rest is skipped. On one: edge shapes against the
 * K-term rounding bound, NaN/Inf and values near the fp32 range, alpha/beta on sub-matrices through
 * the engine, precisions tf32, bf16 and fp16 (bf16 and fp16 on the wgmma kernels only), and the
 * error against a double reference beside the FFMA kernel's (variant tiled) on the same inputs:
 * random, ill-scaled rows and columns, long K, large magnitudes; on the wgmma kernels operands
 * outside the 3xTF32 range (subnormal, ~1e-36 and huge rows or columns, all or mixed with rows in
 * range, transposed, complex: each output within the bound and the largest error within twice
 * the FFMA kernel's, test_range_wg). The tensor family must be no less
 * accurate than an FFMA run over the same K (where the FFMA kernel splits K the figures are printed
 * only). */
#include <float.h>

#include "../processes/gemm_tc.h"
#include "gemm_testutil.h"
#ifdef CLIP_FAULT_INJECTION
#include "../lib/fault.h"
#endif

/* Non-zero while the suite runs the wgmma kernels (sm_90). */
static int wgmma_on;
/* When positive, run_ops sets the nwg and kwg parameters to them (a wgmma set's 256 columns)
 * and runs variant tensor in place of auto (which keeps the FFMA family when tiles are set). */
static int force_nwg, force_kwg;
/* When 0 or more, run_ops sets the streamk parameter (the wgmma kernels' split tail). */
static int force_sk = -1;
/* When 0 or more, run_ops sets the pipe parameter (the wgmma kernels' bulk copies); when
 * positive, force_mdimc warpgroups of 64 rows (mdimc and mwg) and force_stages stages. */
static int force_pipe = -1, force_mdimc, force_stages;

/* matmul of op(a) and op(b) (transa/transb names, NULL for none) with the given variant and
 * precision; NULL with *st set on failure. */
static clip_data *run_ops(clip_app *app, clip_data *a, clip_data *b, const char *transa,
                          const char *transb, const char *variant, const char *precision,
                          clip_status *st, char *chosen, size_t cap) {
    clip_process *p = NULL;
    clip_data *out = NULL;
    clip_status s = clip_process_create(app, "matmul", &p);
    if (s == CLIP_OK && transa) s = clip_process_set_choice(p, "transa", transa);
    if (s == CLIP_OK && transb) s = clip_process_set_choice(p, "transb", transb);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "variant", force_nwg > 0 ? "tensor" : variant);
    if (s == CLIP_OK && force_kwg > 0) s = clip_process_set_int(p, "kwg", force_kwg);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "precision", precision);
    if (s == CLIP_OK && force_nwg > 0) s = clip_process_set_int(p, "nwg", force_nwg);
    if (s == CLIP_OK && force_sk >= 0) s = clip_process_set_int(p, "streamk", force_sk);
    if (s == CLIP_OK && force_pipe >= 0) s = clip_process_set_int(p, "pipe", force_pipe);
    if (s == CLIP_OK && force_stages > 0) s = clip_process_set_int(p, "stages", force_stages);
    if (s == CLIP_OK && force_mdimc > 0) s = clip_process_set_int(p, "mdimc", force_mdimc);
    if (s == CLIP_OK && force_mdimc > 0) s = clip_process_set_int(p, "mwg", 64 * force_mdimc);
    if (s == CLIP_OK) s = clip_process_set_input(p, 0, a);
    if (s == CLIP_OK) s = clip_process_set_input(p, 1, b);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK && chosen) snprintf(chosen, cap, "%s", clip_process_variant(p));
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, &out);
    if (s == CLIP_OK) clip_data_retain(out);
    *st = s;
    clip_process_destroy(p);
    return s == CLIP_OK ? out : NULL;
}

static clip_data *run_prec(clip_app *app, clip_data *a, clip_data *b, const char *variant,
                           const char *precision, clip_status *st, char *chosen, size_t cap) {
    return run_ops(app, a, b, NULL, NULL, variant, precision, st, chosen, cap);
}

static clip_data *run_variant(clip_app *app, clip_data *a, clip_data *b, const char *variant,
                              clip_status *st, char *chosen, size_t cap) {
    return run_prec(app, a, b, variant, "fp32", st, chosen, cap);
}

/* The reference A*B in double with bound(i,j) = sum |A(i,k)| |B(k,j)|, through a row-major copy
 * of A so the inner loop runs contiguously (the large cases). */
static gt_mat ref_product(const gt_mat *a, const gt_mat *b, gt_mat *bound) {
    const size_t m = a->rows, k = a->cols, n = b->cols;
    gt_mat c = gt_alloc(CLIP_F32, m, n), at = gt_alloc(CLIP_F64, k, m);
    *bound = gt_alloc(CLIP_F64, m, n);
    for (size_t i = 0; i < m; i++)
        for (size_t q = 0; q < k; q++)
            at.re[q + i * k] = a->re[i + q * m];
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            const double *x = at.re + i * k, *y = b->re + j * k;
            double s = 0, sb = 0;
            for (size_t q = 0; q < k; q++) {
                s += x[q] * y[q];
                sb += fabs(x[q] * y[q]);
            }
            c.re[i + j * m] = s;
            bound->re[i + j * m] = sb;
        }
    gt_free(&at);
    return c;
}

/* Error of c (type r->type, f32 or c32) against the reference, each element relative to its
 * bound (the larger of the real and imaginary parts' errors): the largest and the root mean
 * square over the elements with a finite, non-zero bound. */
static void rel_errors(clip_data *c, const gt_mat *r, const gt_mat *bound, double *mx,
                       double *rms) {
    const void *h = NULL;
    *mx = *rms = INFINITY;
    if (!c || clip_data_host(c, &h) != CLIP_OK) return;
    double m = 0, s = 0;
    size_t cnt = 0;
    for (size_t i = 0; i < r->numel; i++) {
        if (!(bound->re[i] > 0) || !isfinite(bound->re[i])) continue;
        double re, im;
        gt_get(h, r->type, i, &re, &im);
        double e = fabs(re - r->re[i]) / bound->re[i];
        if (clip_type_is_complex(r->type)) e = fmax(e, fabs(im - r->im[i]) / bound->re[i]);
        if (!(e <= m)) m = e; /* NaN wins */
        s += e * e;
        cnt++;
    }
    *mx = m;
    *rms = cnt ? sqrt(s / (double)cnt) : 0;
}

/* Random m x k and k x n operands, rows of A and columns of B scaled by 2^e with e uniform in
 * [-spread, spread] (0: plain), magnitudes times 2^shift. */
static void operands(size_t m, size_t k, size_t n, int spread, int shift, gt_mat *A, gt_mat *B,
                     unsigned long long *seed) {
    *A = gt_random(CLIP_F32, m, k, 1.0, seed);
    *B = gt_random(CLIP_F32, k, n, 1.0, seed);
    for (size_t i = 0; i < m; i++) {
        double f = ldexp(1.0, shift + (int)lround(spread * tu_rand(seed)));
        for (size_t q = 0; q < k; q++)
            A->re[i + q * m] = (float)(A->re[i + q * m] * f);
    }
    for (size_t j = 0; j < n; j++) {
        double f = ldexp(1.0, shift + (int)lround(spread * tu_rand(seed)));
        for (size_t q = 0; q < k; q++)
            B->re[q + j * k] = (float)(B->re[q + j * k] * f);
    }
}

/* The product of A and B through variant tensor (err[0], rms[0]) and the FFMA kernel (variant
 * tiled: err[1], rms[1], its variant in ffma), each error / bound against the reference R. */
static void tensor_and_ffma(clip_app *app, const gt_mat *A, const gt_mat *B, const gt_mat *R,
                            const gt_mat *bound, double err[2], double rms[2], char *ffma,
                            size_t cap) {
    clip_data *a = gt_data(app, A), *b = gt_data(app, B);
    clip_status s1, s2;
    char v1[128] = "";
    clip_data *ct = run_variant(app, a, b, "tensor", &s1, v1, sizeof v1);
    clip_data *cf = run_variant(app, a, b, "tiled", &s2, ffma, cap);
    CHECK(s1 == CLIP_OK && s2 == CLIP_OK);
    rel_errors(ct, R, bound, &err[0], &rms[0]);
    rel_errors(cf, R, bound, &err[1], &rms[1]);
    clip_data_destroy(ct), clip_data_destroy(cf), clip_data_destroy(a), clip_data_destroy(b);
}

/* The tensor family against the FFMA kernel on the same operands. */
static void compare_ffma(clip_app *app, const char *what, size_t m, size_t k, size_t n, int spread,
                         int shift, unsigned long long *seed) {
    gt_mat A, B, bound;
    operands(m, k, n, spread, shift, &A, &B, seed);
    gt_mat R = ref_product(&A, &B, &bound);
    char v2[128] = "";
    double err[2], rms[2];
    tensor_and_ffma(app, &A, &B, &R, &bound, err, rms, v2, sizeof v2);
    const double tmax = err[0], trms = rms[0], fmax = err[1], frms = rms[1];
    /* Where the FFMA kernel splits K (ks > 1) its partial sums are shorter than the tensor
     * kernel's single run over K, so only an unsplit FFMA run is a like-for-like comparison
     * (the split ones are printed, and every tensor result is within the rounding bound). */
    const int split = !strstr(v2, " ks 1 ");
    printf("accuracy %-22s %5zux%5zux%6zu  tensor max %.3g rms %.3g | ffma max %.3g rms %.3g "
           "(error / sum|a||b|; ffma '%s'%s)\n",
           what, m, n, k, tmax, trms, fmax, frms, v2, split ? ", K split: not compared" : "");
    const double tol = (double)(k + 4) * 2 * 0x1p-24;
    CHECK(tmax <= tol);
    if (!split) {
        CHECK(trms <= frms);
        CHECK(tmax <= fmax);
        if (!(trms <= frms) || !(tmax <= fmax))
            fprintf(stderr, "%s: tensor error above the FFMA kernel's\n", what);
    }
    gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
}

/* A product through variant tensor checked element-wise against the K-term rounding bound
 * (non-finite references exactly). */
static void check_tensor(clip_app *app, gt_mat *A, gt_mat *B, const char *what) {
    gt_mat bound, R = gt_product(A, B, CLIP_F32, &bound);
    clip_data *a = gt_data(app, A), *b = gt_data(app, B);
    clip_status s;
    char v[128] = "";
    clip_data *c = run_variant(app, a, b, "tensor", &s, v, sizeof v);
    CHECK(s == CLIP_OK && !strncmp(v, "tensor", 6));
    CHECK(!strstr(v, "wgmma") == !wgmma_on);
    if (s != CLIP_OK) fprintf(stderr, "%s: %s\n", what, clip_app_last_error(app));
    gt_check(c, CLIP_F32, &R, &bound, (double)A->cols, what);
    clip_data_destroy(c), clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&R), gt_free(&bound);
}

static void test_shapes(clip_app *app, unsigned long long *seed) {
    /* M and K multiples of 4 (packed A and B: lda = M, ldb = K); N free. Partial tiles in every
     * direction, K shorter than a slice, one slice, and many. */
    static const size_t shapes[][3] = {{4, 4, 1},         {4, 8, 3},       {12, 20, 8},
                                       {132, 36, 260},    {128, 128, 128}, {200, 1000, 136},
                                       {1028, 1028, 517}, {64, 68, 1040}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        gt_mat A = gt_random(CLIP_F32, shapes[i][0], shapes[i][1], 1.0, seed);
        gt_mat B = gt_random(CLIP_F32, shapes[i][1], shapes[i][2], 1.0, seed);
        char what[96];
        snprintf(what, sizeof what, "tensor %zux%zu * %zux%zu", A.rows, A.cols, B.rows, B.cols);
        check_tensor(app, &A, &B, what);
        gt_free(&A), gt_free(&B);
    }
}

/* NaN and infinities propagate as in an fp32 product; FLT_MAX (whose TF32 rounding overflows)
 * and values near the range limits keep their accuracy. */
static void test_nonfinite(clip_app *app, unsigned long long *seed) {
    gt_mat A = gt_random(CLIP_F32, 132, 36, 1.0, seed), B = gt_random(CLIP_F32, 36, 70, 1.0, seed);
    A.re[5 + 7 * 132] = NAN;
    A.re[9 + 3 * 132] = INFINITY;
    B.re[11 + 20 * 36] = -INFINITY;
    A.re[100 + 30 * 132] = FLT_MAX;
    A.re[101 + 30 * 132] = -FLT_MAX;
    for (size_t j = 0; j < 70; j++)
        B.re[30 + j * 36] = ldexp(B.re[30 + j * 36], -8);
    check_tensor(app, &A, &B, "tensor NaN/Inf/FLT_MAX");
    gt_free(&A), gt_free(&B);
    /* Large and small magnitudes: products near 2^120 and near 2^-120 (still normal). */
    for (int e = -60; e <= 60; e += 120) {
        gt_mat X = gt_random(CLIP_F32, 64, 256, 1.0, seed),
               Y = gt_random(CLIP_F32, 256, 40, 1.0, seed);
        for (size_t i = 0; i < X.numel; i++)
            X.re[i] = ldexp(X.re[i], e);
        for (size_t i = 0; i < Y.numel; i++)
            Y.re[i] = ldexp(Y.re[i], e);
        check_tensor(app, &X, &Y, e > 0 ? "tensor magnitudes 2^60" : "tensor magnitudes 2^-60");
        gt_free(&X), gt_free(&Y);
    }
}

/* The engine directly: C = alpha*A*B + beta*C on sub-matrices (leading dimensions and offsets
 * multiples of 4, C's free), every element of C's buffer checked, outside untouched; beta = 0
 * ignores a NaN-filled C. */
static void test_engine(clip_app *app, unsigned long long *seed) {
    const size_t m = 133, n = 70, k = 45, lda = 140, ldb = 52, ldc = 137, oa = 8, ob = 4, oc = 3;
    for (int zero_beta = 0; zero_beta < 2; zero_beta++) {
        gt_mat A = gt_random(CLIP_F32, lda, k + 3, 1.0, seed);
        gt_mat B = gt_random(CLIP_F32, ldb, n + 1, 1.0, seed);
        gt_mat C = gt_random(CLIP_F32, ldc, n + 1, 1.0, seed);
        if (zero_beta)
            for (size_t i = 0; i < C.numel; i++)
                C.re[i] = NAN;
        const clip_gemm_scalar alpha = {0.75, 0}, beta = {zero_beta ? 0 : -1.25, 0};
        clip_data *a = gt_data(app, &A), *b = gt_data(app, &B), *c = gt_data(app, &C);
        clip_process *p = NULL;
        CHECK_OK(app, clip_process_create(app, "matmul", &p));
        clip_gemm_params prm;
        clip_gemm_default(clip_app_device(app), CLIP_F32, CLIP_GEMM_TENSOR, m, n, k, &prm);
        if (wgmma_on) clip_gemm_tc_default_wg(&prm);
        clip_gemm_fit(&prm, clip_app_device(app), CLIP_F32, 0, m, lda, ldb, ldc, oa, ob, oc);
        char why[160] = "";
        CHECK(clip_gemm_check(&prm, clip_app_device(app), CLIP_F32, why, sizeof why) == 0);
        clip_gemm g;
        cl_mem am = NULL, bm = NULL, cm = NULL;
        CHECK_OK(app, clip_gemm_build(p, CLIP_F32, &prm, m, n, k, &g));
        CHECK_OK(app, clip_proc_read_buffer(p, a, &am));
        CHECK_OK(app, clip_proc_read_buffer(p, b, &bm));
        CHECK_OK(app, clip_proc_write_buffer(p, c, 1, &cm));
        const clip_gemm_operand Ao = {am, oa, lda}, Bo = {bm, ob, ldb}, Co = {cm, oc, ldc};
        CHECK_OK(app, clip_gemm_enqueue(p, &g, m, n, k, alpha, Ao, Bo, beta, Co));
        /* A misaligned operand is refused, not misread (the wgmma kernels read packed copies;
         * a product larger than their workspace is refused instead). */
        const clip_gemm_operand Bbad = {bm, ob + 1, ldb};
        if (!wgmma_on)
            CHECK_STATUS(app, clip_gemm_enqueue(p, &g, m, n, k, alpha, Ao, Bbad, beta, Co),
                         CLIP_ERR_INVALID_ARG);
        else
            CHECK_STATUS(app, clip_gemm_enqueue(p, &g, m + 200, n, k, alpha, Ao, Bo, beta, Co),
                         CLIP_ERR_INVALID_ARG);
        const void *h = NULL;
        CHECK_OK(app, clip_data_host(c, &h));
        int bad = 0;
        for (size_t e = 0; h && e < C.numel; e++) {
            double want = C.re[e], tol = 0;
            if (e >= oc && (e - oc) % ldc < m && (e - oc) / ldc < n) {
                size_t i = (e - oc) % ldc, j = (e - oc) / ldc;
                double s = 0, bnd = 0;
                for (size_t q = 0; q < k; q++) {
                    double x = A.re[oa + i + q * lda], y = B.re[ob + q + j * ldb];
                    s += x * y;
                    bnd += fabs(x * y);
                }
                want = alpha.re * s + (zero_beta ? 0 : beta.re * C.re[e]);
                tol = (k + 8) * 2 * 0x1p-24 * (bnd + (zero_beta ? 0 : 2 * fabs(C.re[e])));
            }
            double re, im;
            gt_get(h, CLIP_F32, e, &re, &im);
            if (!gt_close(re, want, tol)) bad++;
        }
        CHECK(bad == 0);
        if (bad)
            fprintf(stderr, "engine tensor beta %s: %d bad elements\n", zero_beta ? "0" : "-1.25",
                    bad);
        clip_process_destroy(p);
        clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
        gt_free(&A), gt_free(&B), gt_free(&C);
    }
}

/* What the family refuses: types other than f32; the mma.sync kernel also unaligned operands
 * (the wgmma kernels take them: checked against the bound). */
static void test_refusals(clip_app *app, unsigned long long *seed) {
    gt_mat A = gt_random(CLIP_F32, 6, 8, 1.0, seed), B = gt_random(CLIP_F32, 8, 5, 1.0, seed);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    clip_status s;
    clip_data *c = NULL;
    if (wgmma_on) {
        check_tensor(app, &A, &B, "tensor unaligned 6x8 * 8x5");
    } else {
        c = run_variant(app, a, b, "tensor", &s, NULL, 0);
        CHECK(s == CLIP_ERR_PARAM_RANGE);
        CHECK_MSG(app, "multiples of 4");
    }
    clip_data_destroy(c), clip_data_destroy(a), clip_data_destroy(b);
    gt_mat D = gt_random(CLIP_F64, 8, 8, 1.0, seed);
    clip_data *d = gt_data(app, &D);
    c = run_variant(app, d, d, "tensor", &s, NULL, 0);
    CHECK(s == CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, wgmma_on ? "f32 and c32 only" : "f32 only");
    clip_data_destroy(c), clip_data_destroy(d);
    gt_free(&A), gt_free(&B), gt_free(&D);
}

/* A rounded precision (tf32, bf16, fp16) where its kernels run (tf32: the tensor family; bf16
 * and fp16: the wgmma kernels): the inputs rounded to p mantissa bits (error 2^-(p+1) each), so
 * every element within 2^-p (+ the fp32 sum's bound) of sum|a||b| and, on random data, well
 * above the fp32 kernel's error; elsewhere an fp32 product. */
static void test_rounded(clip_app *app, int runs, const char *precision, int bits,
                         unsigned long long *seed) {
    const size_t m = 132, k = 388, n = 70;
    gt_mat A, B, bound;
    operands(m, k, n, 0, 0, &A, &B, seed);
    gt_mat R = ref_product(&A, &B, &bound);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    clip_status s;
    char v[128] = "", tag[8];
    snprintf(tag, sizeof tag, " %s", precision);
    clip_data *c = run_prec(app, a, b, "auto", precision, &s, v, sizeof v);
    CHECK(s == CLIP_OK);
    double mx, rms;
    rel_errors(c, &R, &bound, &mx, &rms);
    const double fp32_tol = (double)(k + 4) * 2 * 0x1p-24;
    if (runs) {
        CHECK(strstr(v, "tensor") && strstr(v, tag));
        CHECK(force_pipe < 0 || !strstr(v, " pipe") == !force_pipe);
        CHECK(mx <= ldexp(1.0, -bits) + fp32_tol);
        CHECK(mx > fp32_tol / 8); /* the inputs were rounded: not an fp32 product */
        printf("precision %s %zux%zux%zu: max %.3g rms %.3g of sum|a||b| [%s]\n", precision, m, n,
               k, mx, rms, v);
    } else {
        CHECK(!strstr(v, "tensor"));
        CHECK(mx <= fp32_tol);
    }
    clip_data_destroy(c), clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
}

/* A rounded precision on the wgmma kernels' c32 path, A' * B.' with a ragged K: each part within
 * 2^-bits of its bound (sum |re a re b| + |im a im b| and the like). */
static void test_rounded_c32(clip_app *app, const char *precision, int bits,
                             unsigned long long *seed) {
    const size_t m = 70, k = 37, n = 45;
    gt_mat A = gt_random(CLIP_C32, m, k, 1.0, seed), B = gt_random(CLIP_C32, k, n, 1.0, seed);
    gt_mat SA = gt_op(&A, 2), SB = gt_op(&B, 1);
    gt_mat bound, R = gt_product(&A, &B, CLIP_C32, &bound);
    clip_data *a = gt_data(app, &SA), *b = gt_data(app, &SB);
    clip_status s;
    char v[128] = "";
    clip_data *c =
        run_ops(app, a, b, "ctranspose", "transpose", "auto", precision, &s, v, sizeof v);
    CHECK(s == CLIP_OK && strstr(v, "wgmma") && strstr(v, precision));
    double mx = 1, rms = 1;
    if (s == CLIP_OK) rel_errors(c, &R, &bound, &mx, &rms);
    CHECK(mx <= ldexp(1.0, -bits) + (double)(2 * k + 4) * 2 * 0x1p-24);
    printf("precision %s c32 A'*B.' %zux%zux%zu: max %.3g rms %.3g\n", precision, m, n, k, mx, rms);
    clip_data_destroy(c), clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&SA), gt_free(&SB), gt_free(&R), gt_free(&bound);
}

/* Each rounded precision, run where its kernels are (tc: the tensor family runs); bf16 and fp16
 * asked of the mma.sync kernel by name fail with the reason. */
static void test_precisions(clip_app *app, int tc, unsigned long long *seed) {
    test_rounded(app, tc, "tf32", 10, seed);
    test_rounded(app, tc && wgmma_on, "bf16", 7, seed);
    test_rounded(app, tc && wgmma_on, "fp16", 10, seed);
    if (wgmma_on) {
        test_rounded_c32(app, "bf16", 7, seed);
        test_rounded_c32(app, "fp16", 10, seed);
        /* Both widths of the one-part kernels, whichever is the default. */
        for (int w = 128; w <= 256; w *= 2) {
            force_nwg = w;
            force_kwg = 16; /* with the default six stages: up to 144 KB at 256 columns */
            test_rounded(app, 1, "tf32", 10, seed);
            force_kwg = 32;
            test_rounded(app, 1, "bf16", 7, seed);
            test_rounded_c32(app, "fp16", 10, seed);
            force_nwg = force_kwg = 0;
        }
        /* Two warpgroups of 128 x 256 with four stages (past 48 KB of local memory: 192 KB at
         * K 32 in TF32 and K 64 in 16-bit values), stages moved each way, and the default sets
         * with cp.async. */
        for (int pipe = 0; pipe <= 1; pipe++) {
            force_pipe = pipe;
            force_mdimc = 2;
            force_nwg = 256;
            force_stages = 4;
            force_kwg = 32;
            test_rounded(app, 1, "tf32", 10, seed);
            force_kwg = 64;
            test_rounded(app, 1, "bf16", 7, seed);
            test_rounded_c32(app, "fp16", 10, seed);
            force_nwg = force_kwg = force_mdimc = force_stages = 0;
            if (!pipe) {
                test_rounded(app, 1, "tf32", 10, seed);
                test_rounded(app, 1, "bf16", 7, seed);
            }
        }
        force_pipe = -1;
    }
    if (tc && !wgmma_on) {
        gt_mat A = gt_random(CLIP_F32, 16, 16, 1.0, seed);
        clip_data *a = gt_data(app, &A);
        clip_status s;
        clip_data *c = run_prec(app, a, a, "tensor", "bf16", &s, NULL, 0);
        CHECK(s == CLIP_ERR_PARAM_RANGE && !c);
        CHECK_MSG(app, "need the wgmma kernels");
        clip_data_destroy(a);
        gt_free(&A);
    }
}

/* transa/transb values by operation (0 none, 1 transpose, 2 ctranspose). */
static const char *const op_names[3] = {NULL, "transpose", "ctranspose"};

/* One product of type t through the wgmma kernels, op(A) m x k and op(B) k x n stored as ops ta
 * and tb ask, against the bound; with `special` a NaN in A and an infinity in B. */
static void wg_ops_case(clip_app *app, clip_type t, size_t m, size_t k, size_t n, int ta, int tb,
                        int special, unsigned long long *seed) {
    gt_mat A = gt_random(t, m, k, 1.0, seed), B = gt_random(t, k, n, 1.0, seed);
    if (special) {
        if (clip_type_is_complex(t))
            A.im[3 + 5 * m] = NAN;
        else
            A.re[3 + 5 * m] = NAN;
        B.re[7 + 2 * k] = INFINITY;
    }
    /* Stored as op(X) reads it back: gt_op(X, 2) conjugates too. */
    gt_mat SA = gt_op(&A, ta), SB = gt_op(&B, tb);
    gt_mat bound, R = gt_product(&A, &B, t, &bound);
    clip_data *a = gt_data(app, &SA), *b = gt_data(app, &SB);
    clip_status st;
    char v[128] = "", what[96];
    clip_data *c =
        run_ops(app, a, b, op_names[ta], op_names[tb], "tensor", "fp32", &st, v, sizeof v);
    snprintf(what, sizeof what, "wgmma %s %s*%s %zux%zux%zu", clip_type_name(t),
             ta ? op_names[ta] : "none", tb ? op_names[tb] : "none", m, n, k);
    CHECK(st == CLIP_OK && strstr(v, "wgmma"));
    if (st != CLIP_OK) fprintf(stderr, "%s: %s\n", what, clip_app_last_error(app));
    gt_check(c, t, &R, &bound, (clip_type_is_complex(t) ? 2.0 : 1.0) * (double)k, what);
    clip_data_destroy(c), clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&SA), gt_free(&SB), gt_free(&R), gt_free(&bound);
}

/* The wgmma kernels' schedule: a grid of whole waves, a part column and a tail of tiles split
 * along K (1280 x 2688 is 420 tiles of 64 x 128 past the H100's wave of 132 x 3), with the split
 * tail off (streamk 0), the default, and every tile split (streamk 16: a wave past the grid),
 * f32 and c32, each against the bound. */
static void test_split_wg(clip_app *app, unsigned long long *seed) {
    static const int sks[] = {0, -1, 16};
    for (int ti = 0; ti < 2; ti++) {
        const clip_type t = ti ? CLIP_C32 : CLIP_F32;
        const size_t m = 1280, k = 72, n = ti ? 1344 : 2688;
        gt_mat A = gt_random(t, m, k, 1.0, seed), B = gt_random(t, k, n, 1.0, seed);
        gt_mat bound, R = gt_product(&A, &B, t, &bound);
        clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
        for (int i = 0; i < 3; i++) {
            clip_status st;
            char v[128] = "", what[256];
            force_sk = sks[i];
            clip_data *c = run_variant(app, a, b, "tensor", &st, v, sizeof v);
            force_sk = -1;
            snprintf(what, sizeof what, "wgmma split tail %s %zux%zux%zu [%s]", clip_type_name(t),
                     m, n, k, v);
            CHECK(st == CLIP_OK && strstr(v, "wgmma"));
            CHECK((strstr(v, " sk ") != NULL) == (sks[i] != 0));
            if (st == CLIP_OK) gt_check(c, t, &R, &bound, (ti ? 2.0 : 1.0) * (double)k, what);
            printf("%s: checked\n", what);
            clip_data_destroy(c);
        }
        clip_data_destroy(a), clip_data_destroy(b);
        gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
    }
}

/* The wgmma kernels read op(A) and op(B) through the packing: every pairing of none, transpose
 * and ctranspose (the same for real data) on odd shapes, against the bound. */
static void test_trans_wg(clip_app *app, unsigned long long *seed) {
    static const size_t shapes[][3] = {{67, 45, 130}, {129, 200, 3}, {1, 17, 257}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int ta = 0; ta < 3; ta++)
            for (int tb = 0; tb < 3; tb++)
                wg_ops_case(app, CLIP_F32, shapes[i][0], shapes[i][1], shapes[i][2], ta, tb, 0,
                            seed);
}

/* c32 through the wgmma kernels (a real product of twice the depth): every pairing of none,
 * transpose and ctranspose on odd shapes, one with a NaN and an infinity, against the bound; then
 * the error beside the FFMA kernel's on a 512^3 product. */
static void test_complex_wg(clip_app *app, unsigned long long *seed) {
    static const size_t shapes[][3] = {{67, 45, 61}, {1, 33, 130}};
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (int ta = 0; ta < 3; ta++)
            for (int tb = 0; tb < 3; tb++)
                wg_ops_case(app, CLIP_C32, shapes[i][0], shapes[i][1], shapes[i][2], ta, tb,
                            i == 0 && ta == 2 && tb == 1, seed);
    /* Error of each part against a double reference over sum |re a re b| + |im a im b| and the
     * like: the wgmma kernels no worse than the FFMA kernel run over the same K. */
    const size_t n = 512;
    gt_mat A = gt_random(CLIP_C32, n, n, 1.0, seed), B = gt_random(CLIP_C32, n, n, 1.0, seed);
    gt_mat bound, R = gt_product(&A, &B, CLIP_C32, &bound);
    char v2[128] = "";
    double err[2], rms[2];
    tensor_and_ffma(app, &A, &B, &R, &bound, err, rms, v2, sizeof v2);
    printf("accuracy c32 random %zux%zux%zu  tensor max %.3g | ffma max %.3g ('%s')\n", n, n, n,
           err[0], err[1], v2);
    if (strstr(v2, " ks 1 ")) CHECK(err[0] <= err[1]);
    CHECK(err[0] <= (double)(2 * n + 4) * 2 * 0x1p-24);
    gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
}

/* Every `every`-th row (by_col 0) or column (1) of X scaled by 2^e. */
static void scale_lines(gt_mat *X, int by_col, int e, int every) {
    for (size_t i = 0; i < X->rows; i++)
        for (size_t j = 0; j < X->cols; j++) {
            const size_t line = by_col ? j : i;
            if (line % (size_t)every) continue;
            X->re[i + j * X->rows] = (float)ldexp(X->re[i + j * X->rows], e);
            X->im[i + j * X->rows] = (float)ldexp(X->im[i + j * X->rows], e);
        }
}

/* Operands outside the 3xTF32 split's range (kernels/tf32.cl): subnormals and normals under
 * 2^-112 (whose TF32 parts lose bits), values of 2^126 and more. Their rows and columns must come
 * out as fp32 FMA computes them: every output within the K-term bound, and the largest error /
 * sum|a||b| within twice the FFMA kernel's on the same inputs (issue 45: SGEMM with A ~1e-39
 * against B ~1e10 erred 7,520 eps on the tensor path, 6.67 on FFMA). ea and eb scale every
 * `every`-th row of op(A) and column of op(B) (1: all of them); f32 and c32, stored as ta and tb
 * ask. */
static void wg_range_case(clip_app *app, const char *what, clip_type t, size_t m, size_t k,
                          size_t n, int ea, int every_a, int eb, int every_b, int ta, int tb,
                          unsigned long long *seed) {
    gt_mat A = gt_random(t, m, k, 1.0, seed), B = gt_random(t, k, n, 1.0, seed);
    scale_lines(&A, 0, ea, every_a);
    scale_lines(&B, 1, eb, every_b);
    gt_mat SA = gt_op(&A, ta), SB = gt_op(&B, tb);
    gt_mat bound, R = gt_product(&A, &B, t, &bound);
    clip_data *a = gt_data(app, &SA), *b = gt_data(app, &SB);
    clip_status s1, s2;
    char v[128] = "", vf[128] = "", name[192];
    clip_data *c =
        run_ops(app, a, b, op_names[ta], op_names[tb], "tensor", "fp32", &s1, v, sizeof v);
    clip_data *cf =
        run_ops(app, a, b, op_names[ta], op_names[tb], "tiled", "fp32", &s2, vf, sizeof vf);
    snprintf(name, sizeof name, "range %s %s %s*%s %zux%zux%zu", what, clip_type_name(t),
             ta ? op_names[ta] : "none", tb ? op_names[tb] : "none", m, n, k);
    CHECK(s1 == CLIP_OK && s2 == CLIP_OK && !strstr(v, "wgmma") == !wgmma_on);
    if (s1 != CLIP_OK || s2 != CLIP_OK) fprintf(stderr, "%s: %s\n", name, clip_app_last_error(app));
    const double terms = (clip_type_is_complex(t) ? 2.0 : 1.0) * (double)k;
    gt_check(c, t, &R, &bound, terms, name);
    double err[2], rms[2];
    rel_errors(c, &R, &bound, &err[0], &rms[0]);
    rel_errors(cf, &R, &bound, &err[1], &rms[1]);
    printf("accuracy %-44s tensor max %.3g eps rms %.3g | ffma max %.3g rms %.3g (eps 2^-24)\n",
           name, err[0] * 0x1p24, rms[0] * 0x1p24, err[1] * 0x1p24, rms[1] * 0x1p24);
    /* (the mma.sync kernel recomputes such a tile by one serial FMA chain an output: within
     * the bound, not always within twice the tiled kernel's error) */
    if (wgmma_on) CHECK(err[0] <= 2 * err[1] + 0x1p-24);
    if (!(err[0] <= 2 * err[1] + 0x1p-24)) fprintf(stderr, "%s: past twice FFMA's error\n", name);
    clip_data_destroy(c), clip_data_destroy(cf), clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&SA), gt_free(&SB), gt_free(&R), gt_free(&bound);
}

/* Inf and NaN entries, few a row (each row's listed terms added to its scaled outputs, gemm_tc.h)
 * or many (the row by fp32 FMA; columns of B alike), with subnormal, huge and mixed rows beside
 * them: every output's class (NaN, +-Inf, finite) the same as the FFMA kernel's on the same
 * inputs, finite outputs within the K-term bound. ta and tb as wg_range_case's. */
static void wg_special_case(clip_app *app, int ta, int tb, unsigned long long *seed) {
    const size_t m = 260, k = 300, n = 190;
    gt_mat A = gt_random(CLIP_F32, m, k, 1.0, seed), B = gt_random(CLIP_F32, k, n, 1.0, seed);
#define AT(i, q) A.re[(i) + (q)*m]
#define BT(q, j) B.re[(q) + (j)*k]
    AT(5, 7) = NAN, AT(9, 3) = INFINITY, AT(9, 250) = -INFINITY; /* row 9: NaN where both meet */
    AT(40, 11) = INFINITY, BT(11, 17) = 0.0f;                    /* Inf * 0 at (40, 17) */
    BT(20, 30) = -INFINITY, AT(41, 20) = 0.0f;                   /* and at (41, 30) */
    BT(60, 31) = INFINITY, BT(61, 31) = INFINITY, AT(42, 60) = -1, AT(42, 61) = 1;
    for (size_t q = 0; q < k; q++) { /* row 70 subnormal with an Inf; row 71 up to 0.9 FLT_MAX */
        AT(70, q) = (float)ldexp(AT(70, q), -130);
        AT(71, q) = (float)ldexp(AT(71, q), 115);
    }
    AT(70, 99) = -INFINITY, AT(71, 5) = 0.9f * FLT_MAX;
    for (size_t q = 0; q < 20; q++) /* row 100: more NaN than the list holds */
        AT(100, 3 * q + 1) = NAN;
    AT(130, 0) = 0x1p-140f, AT(130, 1) = 0x1p120f; /* row 130: no shift holds both */
    for (size_t q = 0; q < k; q++)                 /* column 150 subnormal with a NaN */
        BT(q, 150) = (float)ldexp(BT(q, 150), -128);
    BT(200, 150) = NAN;
    for (size_t q = 0; q < 12; q++) /* column 160: more NaN than the list, across row 100 */
        BT(5 * q + 2, 160) = NAN;
    /* column 170: no shift holds both (row 71 is 0 where it holds 2^100: no overflow) */
    BT(0, 170) = 0x1p-140f, BT(2, 170) = 0x1p100f, AT(71, 2) = 0.0f;
#undef AT
#undef BT
    gt_mat SA = gt_op(&A, ta), SB = gt_op(&B, tb);
    gt_mat bound, R = gt_product(&A, &B, CLIP_F32, &bound);
    clip_data *a = gt_data(app, &SA), *b = gt_data(app, &SB);
    clip_status s1, s2;
    char v[128] = "", vf[128] = "", name[128];
    clip_data *c =
        run_ops(app, a, b, op_names[ta], op_names[tb], "tensor", "fp32", &s1, v, sizeof v);
    clip_data *cf =
        run_ops(app, a, b, op_names[ta], op_names[tb], "tiled", "fp32", &s2, vf, sizeof vf);
    snprintf(name, sizeof name, "special values %s*%s", ta ? op_names[ta] : "none",
             tb ? op_names[tb] : "none");
    CHECK(s1 == CLIP_OK && s2 == CLIP_OK && !strstr(v, "wgmma") == !wgmma_on);
    gt_check(c, CLIP_F32, &R, &bound, (double)k, name);
    const float *h = NULL, *hf = NULL;
    size_t differ = 0, nonfinite = 0;
    if (c && cf && clip_data_host(c, (const void **)&h) == CLIP_OK &&
        clip_data_host(cf, (const void **)&hf) == CLIP_OK)
        for (size_t i = 0; i < m * n; i++) {
            const int k1 = isnan(h[i]) ? 3 : isinf(h[i]) ? (h[i] > 0 ? 1 : 2) : 0;
            const int k2 = isnan(hf[i]) ? 3 : isinf(hf[i]) ? (hf[i] > 0 ? 1 : 2) : 0;
            differ += k1 != k2, nonfinite += k1 != 0;
        }
    printf("%s %zux%zux%zu: %zu non-finite outputs, %zu classes differing from FFMA's\n", name, m,
           n, k, nonfinite, differ);
    CHECK(h && differ == 0 && nonfinite > 0);
    clip_data_destroy(c), clip_data_destroy(cf), clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&SA), gt_free(&SB), gt_free(&R), gt_free(&bound);
}

static void test_range_wg(clip_app *app, unsigned long long *seed) {
    /* Subnormal A (~1e-39) against B ~1e10, and the other way round: products ~1e-29. */
    wg_range_case(app, "A subnormal", CLIP_F32, 300, 520, 260, -130, 1, 33, 1, 0, 0, seed);
    wg_range_case(app, "B subnormal", CLIP_F32, 300, 520, 260, 33, 1, -130, 1, 0, 0, seed);
    /* ~1e-36: normal, but the small TF32 parts are subnormal. */
    wg_range_case(app, "A 2^-120", CLIP_F32, 300, 520, 260, -120, 1, 30, 1, 0, 0, seed);
    wg_range_case(app, "B 2^-118", CLIP_F32, 300, 520, 260, 28, 1, -118, 1, 0, 0, seed);
    wg_special_case(app, 0, 0, seed);
    if (!wgmma_on) return; /* (the mma.sync kernel: real, untransposed only) */
    /* Mixed with rows and columns in range, transposed, and huge values (up to 2^127). */
    wg_range_case(app, "A rows 3k subnormal", CLIP_F32, 257, 300, 190, -131, 3, 35, 1, 1, 0, seed);
    wg_range_case(app, "B cols 5k subnormal", CLIP_F32, 190, 300, 257, 35, 1, -131, 5, 0, 1, seed);
    wg_range_case(app, "A rows 7k 2^127", CLIP_F32, 200, 256, 300, 127, 7, -20, 1, 1, 1, seed);
    /* Complex (a real product of twice the depth), conjugated. */
    wg_range_case(app, "A subnormal", CLIP_C32, 130, 260, 70, -130, 1, 33, 1, 2, 0, seed);
    wg_range_case(app, "B cols 4k subnormal", CLIP_C32, 70, 260, 130, 33, 1, -130, 4, 0, 2, seed);
    /* Inf and NaN few or many a row, and a row no one shift brings into the range. */
    wg_special_case(app, 1, 1, seed);
}

/* Every check of the family's current kernels. */
#ifdef CLIP_FAULT_INJECTION
/* A driver that holds sm_90a kernels to the 48 KB OpenCL reports (a fault build makes the first
 * program build fail, as such a driver would fail the defaults past 48 KB): the product runs on
 * the 48 KB set of its precision instead (clip_gemm_tc_build), named by the process, and right.
 * A fresh app, so that no program of the default set is cached. */
static void test_wg_fallback(unsigned long long *seed) {
    clip_app *app = tu_app();
    const size_t m = 300, k = 200, n = 260;
    gt_mat A = gt_random(CLIP_F32, m, k, 1.0, seed), B = gt_random(CLIP_F32, k, n, 1.0, seed);
    gt_mat bound, R = gt_product(&A, &B, CLIP_F32, &bound);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    static const char *const precisions[2] = {"fp32", "tf32"};
    for (int i = 0; i < 2; i++) {
        clip_status s;
        char v[128] = "";
        clip_fault_arm(CLIP_FAULT_BUILD, 1);
        clip_data *c = run_prec(app, a, b, "tensor", precisions[i], &s, v, sizeof v);
        clip_fault_arm(0, 0);
        CHECK(s == CLIP_OK);
        if (s != CLIP_OK) fprintf(stderr, "48 KB fallback: %s\n", clip_app_last_error(app));
        /* The 48 KB sets: one warpgroup over 64 x 128, two stages by cp.async. */
        CHECK(strstr(v, "tensor 64x128x") && strstr(v, " st 2 wgmma") && !strstr(v, "pipe"));
        if (!strstr(v, " st 2 wgmma")) fprintf(stderr, "48 KB fallback ran '%s'\n", v);
        double mx = 0, rms = 0;
        if (s == CLIP_OK) rel_errors(c, &R, &bound, &mx, &rms);
        /* fp32 within the K-term bound; tf32 within its documented 2^-10 of sum|a||b|. */
        CHECK(s == CLIP_OK && mx <= (i == 0 ? (k + 4) * 2 * 0x1p-24 : 0x1p-10));
        printf("48 KB fallback, %s: '%s', largest error %.3g of sum|a||b|\n", precisions[i], v, mx);
        clip_data_destroy(c);
    }
    clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
    clip_app_destroy(app);
}
#endif

static void suite(clip_app *app, unsigned long long *seed) {
    printf("-- %s kernels\n", wgmma_on ? "wgmma (sm_90)" : "mma.sync");
    TU_PART(test_shapes(app, seed));
    TU_PART(test_nonfinite(app, seed));
    TU_PART(test_engine(app, seed));
    TU_PART(test_refusals(app, seed));
    TU_PART(test_precisions(app, 1, seed));
    if (wgmma_on) TU_PART(test_trans_wg(app, seed));
    if (wgmma_on) TU_PART(test_split_wg(app, seed));
    if (wgmma_on) TU_PART(test_complex_wg(app, seed));
    /* The range rule: the wgmma kernels scale rows and columns into it, the mma.sync kernel
     * computes a tile that holds a value outside it by fp32 FMA (gemm_tc.h) */
    TU_PART(test_range_wg(app, seed));
    const int quick = tu_quick();
    TU_PART(compare_ffma(app, "random", 1024, 1024, 1024, 0, 0, seed));
    TU_PART(compare_ffma(app, "ill-scaled rows/cols", 512, 2048, 512, 20, 0, seed));
    TU_PART(compare_ffma(app, "long K", 64, quick ? 16384 : 131072, 64, 0, 0, seed));
    TU_PART(compare_ffma(app, "magnitudes 2^60", 256, 256, 256, 0, 60, seed));
    TU_PART(compare_ffma(app, "magnitudes 2^-60", 256, 256, 256, 0, -60, seed));
}

int main(void) {
    setenv("CLIP_TUNING_CACHE", "no_such_dir/tuning.txt", 1);
    clip_app *app = tu_app();
    unsigned long long seed = 0x2545f4914f6cdd1dULL;
    /* Probe: the family on this device, or the error that says why not. */
    gt_mat A = gt_random(CLIP_F32, 8, 8, 1.0, &seed);
    clip_data *a = gt_data(app, &A);
    clip_status s;
    char v[128] = "";
    clip_data *c = run_variant(app, a, a, "tensor", &s, v, sizeof v);
    clip_data_destroy(c), clip_data_destroy(a), gt_free(&A);
    wgmma_on = strstr(v, "wgmma") != NULL;
    if (s != CLIP_OK) {
        CHECK(s == CLIP_ERR_UNSUPPORTED);
        CHECK_MSG(app, "compute capability 8.0");
        test_precisions(app, 0, &seed);
        int failed = tu_failures;
        clip_app_destroy(app);
        if (failed) return tu_finish("test_matmul_tc");
        return tu_skip("test_matmul_tc", "the tensor family needs an NVIDIA device of compute "
                                         "capability 8.0 or later (the refusal was checked)");
    }
    suite(app, &seed);
#ifdef CLIP_FAULT_INJECTION
    if (wgmma_on) test_wg_fallback(&seed);
#endif
    if (wgmma_on) {
        setenv("CLIP_GEMM_WGMMA", "0", 1);
        wgmma_on = 0;
        suite(app, &seed);
    }
    clip_app_destroy(app);
    return tu_finish("test_matmul_tc");
}
