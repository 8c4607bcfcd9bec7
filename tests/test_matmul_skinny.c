/* matmul's skinny paths (processes/gemm_skinny.c): matrix-vector, vector-matrix and small-output
 * products with K split over the device. Every form (rows, dots, each also transposed; X's columns
 * contiguous or not; one chunk, chunks summed per output or by a tree) in every type and operation,
 * odd sizes, against a long double reference with the K-term bound; their error beside the GEMM
 * kernel's on the same inputs; NaN and Inf; K = 0 and empties; determinism; `skinny` on, off and
 * auto through the process API. The plans are made for an H100-like device (132 compute units,
 * a GPU) so that the GPU's chunking runs here on the CPU too. */
#include "gemm_testutil.h"
#include "../processes/gemm_skinny.h"

static const char *const op_names[3] = {"n", "t", "c"};

/* Runs matmul with skinny = `skinny` (auto/on/off) on a and b; the output (caller destroys)
 * and the variant in var, or NULL with *st set. */
static clip_data *run_mm(clip_app *app, clip_data *a, clip_data *b, const int ops[2],
                         const char *skinny, char *var, size_t cap, clip_status *st) {
    clip_process *p = NULL;
    clip_data *out = NULL;
    clip_status s = clip_process_create(app, "matmul", &p);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "transa", op_names[ops[0]]);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "transb", op_names[ops[1]]);
    if (s == CLIP_OK) s = clip_process_set_choice(p, "skinny", skinny);
    if (s == CLIP_OK) s = clip_process_set_input(p, 0, a);
    if (s == CLIP_OK) s = clip_process_set_input(p, 1, b);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK && var) snprintf(var, cap, "%s", clip_process_variant(p));
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, &out);
    if (s == CLIP_OK) clip_data_retain(out);
    if (st) *st = s;
    if (s != CLIP_OK && !st) fprintf(stderr, "matmul: %s\n", clip_app_last_error(app));
    clip_process_destroy(p);
    return s == CLIP_OK ? out : NULL;
}

/* op(A) * op(B) in long double (11 bits past double on x86, so that a double product's error is
 * measured against something more accurate than itself), with the bound sum |op(A)||op(B)|. */
static gt_mat ref_product(const gt_mat *A, const gt_mat *B, const int ops[2], size_t m, size_t n,
                          size_t k, gt_mat *bound) {
    gt_mat R = gt_alloc(CLIP_C64, m, n);
    *bound = gt_alloc(CLIP_F64, m, n);
    const double ca = ops[0] == 2 ? -1 : 1, cb = ops[1] == 2 ? -1 : 1;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            long double sr = 0, si = 0, sb = 0;
            for (size_t q = 0; q < k; q++) {
                size_t ea = ops[0] ? q + i * k : i + q * m, eb = ops[1] ? j + q * n : q + j * k;
                long double ar = A->re[ea], ai = ca * A->im[ea], br = B->re[eb], bi = cb * B->im[eb];
                sr += ar * br - ai * bi;
                si += ar * bi + ai * br;
                sb += (fabsl(ar) + fabsl(ai)) * (fabsl(br) + fabsl(bi));
            }
            R.re[i + j * m] = (double)sr;
            R.im[i + j * m] = clip_type_is_complex(A->type) ? (double)si : 0;
            bound->re[i + j * m] = (double)sb;
        }
    return R;
}

/* The largest error of d against R in units of eps * bound (0 where both are exact). */
static double worst(clip_data *d, clip_type t, const gt_mat *R, const gt_mat *bound) {
    const void *h = NULL;
    if (!d || clip_data_host(d, &h) != CLIP_OK) return INFINITY;
    const double eps = clip_type_is_double(t) ? 0x1p-53 : 0x1p-24;
    double w = 0;
    for (size_t i = 0; i < R->numel; i++) {
        double re, im;
        gt_get(h, t, i, &re, &im);
        double e = (fabs(re - R->re[i]) + fabs(im - R->im[i])) / (eps * bound->re[i] + 1e-300);
        if (e > w) w = e;
    }
    return w;
}

/* An H100-like device for the plans: the app's device with 132 compute units, as a GPU. */
static clip_device_info gpu_like(clip_app *app) {
    clip_device_info d = *clip_app_device(app);
    d.compute_units = 132;
    d.type = CLIP_DEVICE_GPU;
    return d;
}

/* Random m x k by k x n operands (stored transposed where ops say), |values| when `positive`. */
static void operands(clip_type t, size_t m, size_t n, size_t k, const int ops[2], int positive,
                     gt_mat *A, gt_mat *B, unsigned long long *seed) {
    *A = gt_random(t, ops[0] ? k : m, ops[0] ? m : k, 1.0, seed);
    *B = gt_random(t, ops[1] ? n : k, ops[1] ? k : n, 1.0, seed);
    for (size_t i = 0; positive && i < A->numel; i++) A->re[i] = fabs(A->re[i]), A->im[i] = fabs(A->im[i]);
    for (size_t i = 0; positive && i < B->numel; i++) B->re[i] = fabs(B->re[i]), B->im[i] = fabs(B->im[i]);
}

/* C = op(A)*op(B) through the skinny engine with plan pl, run here (the caller destroys it). */
static clip_data *engine_run(clip_app *app, clip_type t, const gt_mat *A, const gt_mat *B,
                             const clip_skinny_plan *pl, size_t m, size_t n) {
    clip_data *a = gt_data(app, A), *b = gt_data(app, B), *c = NULL;
    size_t dims[2] = {m, n};
    CHECK_OK(app, clip_data_create(app, t, 2, dims, &c));
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "matmul", &p));
    clip_skinny s;
    cl_mem am = NULL, bm = NULL, cm = NULL;
    CHECK_OK(app, clip_skinny_build(p, t, pl, &s));
    CHECK_OK(app, clip_proc_read_buffer(p, a, &am));
    CHECK_OK(app, clip_proc_read_buffer(p, b, &bm));
    CHECK_OK(app, clip_proc_write_buffer(p, c, 0, &cm));
    CHECK_OK(app, clip_skinny_enqueue(p, &s, am, bm, cm));
    const void *h = NULL;
    CHECK_OK(app, clip_data_host(c, &h)); /* finishes before the process goes */
    clip_process_destroy(p);
    clip_data_destroy(a), clip_data_destroy(b);
    return c;
}

/* The plan an H100 would get for the product; checks it is of the wanted form. */
static int h100_plan(clip_app *app, clip_type t, size_t m, size_t n, size_t k, const int ops[2],
                     clip_skinny_kind want, int want_swap, clip_skinny_plan *pl, char *what,
                     size_t cap) {
    clip_device_info dev = gpu_like(app);
    const int found = clip_skinny_plan_for(&dev, t, m, n, k, (clip_gemm_trans)ops[0],
                                           (clip_gemm_trans)ops[1], 0, pl);
    char desc[128] = "none";
    if (found) clip_skinny_describe(pl, desc, sizeof desc);
    snprintf(what, cap, "%s op%s*op%s %zux%zux%zu [%s]", clip_type_name(t), op_names[ops[0]],
             op_names[ops[1]], m, k, n, desc);
    const int ok = found && pl->kind == want && pl->swap == want_swap;
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "%s: wanted %s%s\n", what, want == CLIP_SKINNY_ROWS ? "rows" : "dots",
                want_swap ? " swap" : "");
    return ok;
}

/* The skinny engine with the plan an H100 would get (its chunks and sum), run here: the form
 * picked, and the result within the K-term bound. */
static void engine_case(clip_app *app, clip_type t, size_t m, size_t n, size_t k,
                        const int ops[2], clip_skinny_kind want, int want_swap,
                        unsigned long long *seed, clip_skinny_plan *pl) {
    gt_mat A, B, bound;
    operands(t, m, n, k, ops, 0, &A, &B, seed);
    gt_mat R = ref_product(&A, &B, ops, m, n, k, &bound);
    char what[160];
    if (h100_plan(app, t, m, n, k, ops, want, want_swap, pl, what, sizeof what)) {
        clip_data *c = engine_run(app, t, &A, &B, pl, m, n);
        gt_check(c, t, &R, &bound, (double)k, what);
        clip_data_destroy(c);
    }
    gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
}

/* Each form in each type: rows (A*x and a few columns), rows of the transpose (x.'*B' -> B
 * read along its rows), dots (x*B, a few rows, X's columns contiguous or not), dots of the transpose
 * (A.'*x), conjugated operands; sizes off every multiple (rows past the work-group, K past the
 * chunks, columns past the blocks), chunk sums per output and by the tree. */
static void test_forms(clip_app *app, unsigned long long *seed) {
    static const struct {
        size_t m, k, n;
        int ops[2];
        clip_skinny_kind kind;
        int swap;
    } cases[] = {
        {1000, 300, 1, {0, 0}, CLIP_SKINNY_ROWS, 0},  {1100, 2001, 3, {0, 0}, CLIP_SKINNY_ROWS, 0},
        {1500, 65, 8, {0, 0}, CLIP_SKINNY_ROWS, 0},   {3, 500, 1100, {0, 1}, CLIP_SKINNY_ROWS, 1},
        {2, 333, 1030, {2, 2}, CLIP_SKINNY_ROWS, 1},  {1, 3000, 300, {0, 0}, CLIP_SKINNY_DOTS, 0},
        {3, 20000, 5, {0, 0}, CLIP_SKINNY_DOTS, 0},   {16, 40009, 17, {0, 0}, CLIP_SKINNY_DOTS, 0},
        {300, 2000, 2, {1, 0}, CLIP_SKINNY_DOTS, 1},  {5, 7001, 3, {2, 0}, CLIP_SKINNY_DOTS, 1},
        {7, 999, 40, {1, 0}, CLIP_SKINNY_DOTS, 0},    {8, 200, 600, {0, 0}, CLIP_SKINNY_DOTS, 0},
    };
    int saw_tree = 0, saw_items = 0, saw_one = 0;
    /* Quick mode (valgrind): f32 and c64 only, every form and path still. */
    for (int ti = 0; ti < 4; ti += tu_quick() ? 3 : 1)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            clip_skinny_plan pl;
            memset(&pl, 0, sizeof pl);
            engine_case(app, gt_types[ti], cases[c].m, cases[c].n, cases[c].k, cases[c].ops,
                        cases[c].kind, cases[c].swap, seed, &pl);
            saw_tree |= pl.chunks > 1 && pl.tree;
            saw_items |= pl.chunks > 1 && !pl.tree;
            saw_one |= pl.chunks == 1;
            if (getenv("SKINNY_VERBOSE")) {
                char d[128];
                clip_skinny_describe(&pl, d, sizeof d);
                printf("%s k %zu: %s\n", clip_type_name(gt_types[ti]), cases[c].k, d);
            }
        }
    CHECK(saw_tree && saw_items && saw_one); /* every code path ran */
    if (!(saw_tree && saw_items && saw_one))
        fprintf(stderr, "forms: tree %d items %d one chunk %d\n", saw_tree, saw_items, saw_one);
}

/* The split sums (the H100's plan) are no less accurate than the GEMM kernel's single running
 * sum over K (matmul with skinny off) on the same inputs: positive values, where the running
 * sum's error grows with K. */
static void test_accuracy(clip_app *app, unsigned long long *seed) {
    static const size_t cases[][3] = {{3, 40000, 5}, {1, 30000, 64}, {2000, 4000, 1}};
    static const clip_skinny_kind kinds[3] = {CLIP_SKINNY_DOTS, CLIP_SKINNY_DOTS, CLIP_SKINNY_ROWS};
    static const int plain[2] = {0, 0};
    for (int ti = 0; ti < 4; ti += tu_quick() ? 3 : 1)
        for (size_t c = 0; c < 3; c++) {
            const clip_type t = gt_types[ti];
            const size_t m = cases[c][0], k = cases[c][1], n = cases[c][2];
            gt_mat A, B, bound;
            operands(t, m, n, k, plain, 1, &A, &B, seed);
            gt_mat R = ref_product(&A, &B, plain, m, n, k, &bound);
            clip_data *a = gt_data(app, &A), *b = gt_data(app, &B), *on = NULL;
            char v_on[160] = "", v_off[128] = "";
            clip_skinny_plan pl;
            if (h100_plan(app, t, m, n, k, plain, kinds[c], 0, &pl, v_on, sizeof v_on))
                on = engine_run(app, t, &A, &B, &pl, m, n);
            clip_data *off = run_mm(app, a, b, plain, "off", v_off, sizeof v_off, NULL);
            const double e_on = worst(on, t, &R, &bound), e_off = worst(off, t, &R, &bound);
            printf("accuracy %s: skinny %.3g eps*bound, gemm %.3g [%s]\n", v_on, e_on, e_off,
                   v_off);
            CHECK(strncmp(v_off, "skinny", 6) != 0);
            CHECK(e_on <= e_off);
            CHECK(e_on <= (double)k); /* far inside the K-term bound */
            clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(on), clip_data_destroy(off);
            gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
        }
}

/* NaN and Inf reach exactly the outputs whose terms hold them, on each form; 0*Inf is NaN. */
static void test_nonfinite(clip_app *app, unsigned long long *seed) {
    static const size_t shapes[][3] = {{3, 2000, 5}, {1200, 300, 2}};
    static const int plain[2] = {0, 0};
    for (int ti = 0; ti < 4; ti += 3)
        for (int s = 0; s < 2; s++) {
            const clip_type t = gt_types[ti];
            const size_t m = shapes[s][0], k = shapes[s][1], n = shapes[s][2];
            gt_mat A, B, bound;
            operands(t, m, n, k, plain, 0, &A, &B, seed);
            A.re[(m - 1) + 100 * m] = NAN;          /* row m-1 of C */
            B.re[(k - 7) + (n - 1) * k] = INFINITY; /* column n-1 */
            B.re[(k - 9) + 0 * k] = -INFINITY;      /* column 0 */
            gt_mat R = ref_product(&A, &B, plain, m, n, k, &bound);
            clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
            char var[128] = "";
            clip_data *c = run_mm(app, a, b, plain, "on", var, sizeof var, NULL);
            char what[160];
            snprintf(what, sizeof what, "non-finite %s %zux%zux%zu [%s]", clip_type_name(t), m, k, n, var);
            gt_check(c, t, &R, &bound, (double)k, what);
            size_t finite = 0;
            for (size_t i = 0; i < R.numel; i++) finite += isfinite(R.re[i]) && isfinite(R.im[i]);
            CHECK(finite == (m - 1) * (n - 2)); /* the test puts non-finite values where meant */
            clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
            gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
        }
}

/* Through the process: K = 0 gives zeros, empties stay empty, mixed types promote (single
 * stays single), a shape with no skinny form fails with skinny on, auto leaves the CPU to its
 * GEMM, and two runs agree bit for bit. */
static void test_process(clip_app *app, unsigned long long *seed) {
    static const int plain[2] = {0, 0};
    for (int ti = 0; ti < 4; ti++) {
        size_t da[2] = {3, 0}, db[2] = {0, 5};
        clip_data *a = NULL, *b = NULL;
        CHECK_OK(app, clip_data_create(app, gt_types[ti], 2, da, &a));
        CHECK_OK(app, clip_data_create(app, gt_types[ti], 2, db, &b));
        char var[128] = "";
        clip_data *c = run_mm(app, a, b, plain, "on", var, sizeof var, NULL);
        const void *h = NULL;
        CHECK(c && clip_data_dim(c, 0) == 3 && clip_data_dim(c, 1) == 5 &&
              clip_data_host(c, &h) == CLIP_OK && strcmp(var, "zeros") == 0);
        for (size_t i = 0; h && i < 15; i++) {
            double re, im;
            gt_get(h, gt_types[ti], i, &re, &im);
            CHECK(re == 0 && im == 0 && !signbit(re));
        }
        clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
        size_t de[2] = {0, 7}, df[2] = {7, 4};
        CHECK_OK(app, clip_data_create(app, gt_types[ti], 2, de, &a));
        CHECK_OK(app, clip_data_create_zeros(app, gt_types[ti], 2, df, &b));
        c = run_mm(app, a, b, plain, "on", NULL, 0, NULL);
        CHECK(c && clip_data_dim(c, 0) == 0 && clip_data_dim(c, 1) == 4);
        clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
    }
    /* Mixed: single real vector times a double complex matrix is single complex. */
    gt_mat X = gt_random(CLIP_F32, 1, 500, 1.0, seed), Y = gt_random(CLIP_C64, 500, 9, 1.0, seed);
    gt_mat Yp = gt_as(&Y, CLIP_C32), Xp = gt_as(&X, CLIP_C32), bound;
    gt_mat R = ref_product(&Xp, &Yp, plain, 1, 9, 500, &bound);
    clip_data *x = gt_data(app, &X), *y = gt_data(app, &Y);
    char var[128] = "";
    clip_data *c = run_mm(app, x, y, plain, "on", var, sizeof var, NULL);
    gt_check(c, CLIP_C32, &R, &bound, 500, "mixed f32 * c64");
    CHECK(strncmp(var, "skinny dots", 11) == 0);
    /* Determinism: the same product again, bit for bit. */
    clip_data *c2 = run_mm(app, x, y, plain, "on", NULL, 0, NULL);
    const void *h1 = NULL, *h2 = NULL;
    CHECK(c && c2 && clip_data_host(c, &h1) == CLIP_OK && clip_data_host(c2, &h2) == CLIP_OK);
    if (h1 && h2) CHECK(memcmp(h1, h2, 9 * clip_type_size(CLIP_C32)) == 0);
    /* auto on this device: the CPU keeps its GEMM; off never takes the skinny path. */
    clip_data *c3 = run_mm(app, x, y, plain, "auto", var, sizeof var, NULL);
    CHECK(c3 && (clip_app_device(app)->type != CLIP_DEVICE_CPU || strncmp(var, "skinny", 6) != 0));
    clip_data_destroy(c), clip_data_destroy(c2), clip_data_destroy(c3);
    clip_data_destroy(x), clip_data_destroy(y);
    gt_free(&X), gt_free(&Y), gt_free(&Yp), gt_free(&Xp), gt_free(&R), gt_free(&bound);

    /* 1x1 by 1x1 is a scalar product; a 20x20 C has no skinny form. */
    gt_mat P = gt_random(CLIP_F32, 20, 30, 1.0, seed), Q = gt_random(CLIP_F32, 30, 20, 1.0, seed);
    clip_data *p = gt_data(app, &P), *q = gt_data(app, &Q);
    clip_status st = CLIP_OK;
    c = run_mm(app, p, q, plain, "on", NULL, 0, &st);
    CHECK(c == NULL && st == CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "skinny on: a 20x20 product");
    /* With skinny on the tile parameters still pass their own checks. */
    c = run_mm(app, p, q, plain, "off", var, sizeof var, NULL);
    CHECK(c && strncmp(var, "skinny", 6) != 0);
    clip_data_destroy(c), clip_data_destroy(p), clip_data_destroy(q);
    gt_free(&P), gt_free(&Q);
}

/* A real operand times a complex one multiplies each part alone (MATLAB's real*complex): both
 * sides of a matrix-vector, a vector-matrix and a small-output product (both forms, swapped or
 * not), transposed and conjugated operands read in place; small integers and Inf, exact. */
static void test_real_times_complex(clip_app *app, unsigned long long *seed) {
    static const size_t shapes[][3] = {{1, 40, 9}, {9, 40, 1}, {3, 300, 5}}; /* m, k, n */
    static const int ops[][2] = {{0, 0}, {1, 1}, {2, 0}, {0, 2}};
    for (int side = 0; side < 2; side++)
        for (size_t z = 0; z < sizeof shapes / sizeof shapes[0]; z++)
            for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                const size_t m = shapes[z][0], k = shapes[z][1], n = shapes[z][2];
                const clip_type ta = side ? CLIP_F32 : CLIP_C32, tb = side ? CLIP_C32 : CLIP_F32;
                const int *op = ops[o];
                gt_mat A, B, R;
                gt_mixed_case(ta, tb, CLIP_C32, m, k, n, op, 7, seed, &A, &B, &R);
                clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
                char var[128] = "", what[192];
                clip_data *c = run_mm(app, a, b, op, "on", var, sizeof var, NULL);
                snprintf(what, sizeof what, "op%s(%s %zux%zu) * op%s(%s %zux%zu) [%s]",
                         op_names[op[0]], clip_type_name(ta), A.rows, A.cols, op_names[op[1]],
                         clip_type_name(tb), B.rows, B.cols, var);
                gt_check_exact(c, CLIP_C32, &R, what);
                CHECK(strncmp(var, "skinny", 6) == 0);
                clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
                gt_free(&A), gt_free(&B), gt_free(&R);
            }
}

int main(void) {
    setenv("CLIP_TUNING_CACHE", "no_such_dir/tuning.txt", 1);
    clip_app *app = tu_app();
    unsigned long long seed = 0x5eed5eed1234ULL;
    test_forms(app, &seed);
    test_accuracy(app, &seed);
    test_nonfinite(app, &seed);
    test_process(app, &seed);
    test_real_times_complex(app, &seed);
    clip_app_destroy(app);
    return tu_finish("test_matmul_skinny");
}
