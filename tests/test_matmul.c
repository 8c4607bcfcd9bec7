/* matmul: values of every type and awkward shape against a double-precision loop, mixed types,
 * scalars, empty operands, every variant and several tile sets (edge tiles included), alpha/beta
 * and sub-matrix operands of the GEMM engine, and every error through the C API and the CLI. */
#include "gemm_testutil.h"
#include "../processes/gemm.h"

/* Tile overrides in gemm.h's order (0 = default). */
#define N_TILES 12
typedef struct tiles {
    const char *variant;
    long t[N_TILES];
} tiles;

static const char *const tile_names[N_TILES] = {"mwg",    "nwg", "kwg",     "mdimc",
                                                "ndimc",  "vw",  "vwn",     "ksplit",
                                                "stages", "wm",  "streamk", "kgroups"};

/* transa/transb values by operation (0 none, 1 transpose, 2 ctranspose); the long names are
 * checked through the CLI. */
static const char *const op_names[3] = {"n", "t", "c"};

/* A matmul process on a and b with op(A), op(B) = ops (NULL: none) and the given tiles (NULL:
 * default), initialised; *p is set even on failure (the caller destroys it). */
static clip_status mm_process(clip_app *app, clip_data *a, clip_data *b, const tiles *tl,
                              const int *ops, clip_process **p) {
    clip_status s = clip_process_create(app, "matmul", p);
    if (s == CLIP_OK && ops) s = clip_process_set_choice(*p, "transa", op_names[ops[0]]);
    if (s == CLIP_OK && ops) s = clip_process_set_choice(*p, "transb", op_names[ops[1]]);
    if (s == CLIP_OK && tl) {
        s = clip_process_set_choice(*p, "variant", tl->variant);
        for (int i = 0; i < N_TILES && s == CLIP_OK; i++)
            if (tl->t[i]) s = clip_process_set_int(*p, tile_names[i], tl->t[i]);
    }
    if (s == CLIP_OK) s = clip_process_set_input(*p, 0, a);
    if (s == CLIP_OK) s = clip_process_set_input(*p, 1, b);
    if (s == CLIP_OK) s = clip_process_init(*p);
    return s;
}

/* Runs matmul on a and b with op(A), op(B) = ops (NULL: none); returns the output (the caller
 * destroys it) or NULL with *st set. */
static clip_data *run_mm_op(clip_app *app, clip_data *a, clip_data *b, const tiles *tl,
                            const int *ops, clip_status *st) {
    clip_process *p = NULL;
    clip_data *out = NULL;
    clip_status s = mm_process(app, a, b, tl, ops, &p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, &out);
    if (s == CLIP_OK) clip_data_retain(out);
    if (st) *st = s;
    if (s != CLIP_OK && !st) fprintf(stderr, "matmul: %s\n", clip_app_last_error(app));
    clip_process_destroy(p);
    return s == CLIP_OK ? out : NULL;
}

static clip_data *run_mm(clip_app *app, clip_data *a, clip_data *b, const tiles *tl,
                         clip_status *st) {
    return run_mm_op(app, a, b, tl, NULL, st);
}

/* op(A) (type ta, m x k) * op(B) (type tb, k x n) with the given tiles, the stored A and B
 * transposed where op says, checked against the reference computed from op of the inputs (in
 * their own types: ' conjugates only a complex operand) rounded to the promoted type's
 * precision, a real operand staying real (it multiplies each part of the other alone). */
static void check_product_op(clip_app *app, clip_type ta, clip_type tb, size_t m, size_t k,
                             size_t n, const int ops[2], const tiles *tl, unsigned long long *seed) {
    gt_mat A = gt_random(ta, ops[0] ? k : m, ops[0] ? m : k, 1.0, seed);
    gt_mat B = gt_random(tb, ops[1] ? n : k, ops[1] ? k : n, 1.0, seed);
    gt_mat opA = gt_op(&A, ops[0]), opB = gt_op(&B, ops[1]);
    clip_type t = clip_type_promote(ta, tb);
    gt_mat Ap = gt_as(&opA, t), Bp = gt_as(&opB, t), bound;
    if (!clip_type_is_complex(ta)) Ap.type = gt_real_type(t);
    if (!clip_type_is_complex(tb)) Bp.type = gt_real_type(t);
    gt_mat R = gt_product(&Ap, &Bp, t, &bound);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    clip_data *c = run_mm_op(app, a, b, tl, ops, NULL);
    char what[160];
    snprintf(what, sizeof what, "op%s(%s %zux%zu) * op%s(%s %zux%zu) [%s]", op_names[ops[0]],
             clip_type_name(ta), A.rows, A.cols, op_names[ops[1]], clip_type_name(tb), B.rows,
             B.cols, tl ? tl->variant : "default");
    gt_check(c, t, &R, &bound, (double)k, what);
    clip_data_destroy(c);
    clip_data_destroy(a);
    clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&opA), gt_free(&opB);
    gt_free(&Ap), gt_free(&Bp), gt_free(&R), gt_free(&bound);
}

/* A (type ta, m x k) * B (type tb, k x n) with the given tiles. */
static void check_product(clip_app *app, clip_type ta, clip_type tb, size_t m, size_t k, size_t n,
                          const tiles *tl, unsigned long long *seed) {
    static const int plain[2] = {0, 0};
    check_product_op(app, ta, tb, m, k, n, plain, tl, seed);
}

static const size_t shapes[][3] = {
    {1, 1, 1},      {1, 37, 1},     {37, 1, 29},   {17, 31, 13},  {257, 3, 257},
    {100, 1000, 3}, {67, 45, 70},   {130, 70, 100}, {3, 200, 1},  {1, 50, 40},
};

static void test_types_and_shapes(clip_app *app, unsigned long long *seed) {
    for (int ti = 0; ti < 4; ti++)
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            check_product(app, gt_types[ti], gt_types[ti], shapes[s][0], shapes[s][1], shapes[s][2],
                          NULL, seed);
}

static void test_mixed(clip_app *app, unsigned long long *seed) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            if (i != j) check_product(app, gt_types[i], gt_types[j], 19, 23, 21, NULL, seed);
}

/* Every variant on its defaults, and tile sets with edges in M, N and K (K below, at and past
 * kwg), multi-item direct work-groups, odd padding and vector widths. Sets from index 3 on run in
 * one type each: f32 at even indices, c64 at odd ones. */
static void test_variants_and_tiles(clip_app *app, unsigned long long *seed) {
    static const tiles sets[] = {
        {"tiled", {0}},
        {"direct", {0}},
        {"small", {0}},
        {"tiled", {16, 8, 4, 4, 2, 2}},
        {"tiled", {32, 32, 8, 8, 8, 4}},
        {"tiled", {6, 9, 5, 2, 3, 1}},
        /* K split in 3 chunks (the last one short), two stages; one stage, N vectors of 4. */
        {"tiled", {32, 16, 8, 4, 4, 4, 2, 3, 2}},
        {"tiled", {16, 32, 4, 4, 4, 2, 4, 2, 1}},
        {"tiled", {64, 64, 16, 16, 16, 4, 4, 1, 2}},
        /* Warps of 8x4 work-items (wm 8) on a 16x8 work-group, plain and split. */
        {"tiled", {64, 32, 8, 16, 8, 2, 2, 1, 2, 8}},
        {"tiled", {32, 32, 8, 8, 8, 4, 2, 2, 2, 4}},
        /* A K split in three with one stage (c64); the GPU default for large f32 (8x16). */
        {"tiled", {32, 64, 16, 8, 8, 2, 4, 3, 1, 8}},
        {"tiled", {128, 256, 8, 16, 16, 4, 4, 1, 2, 8}},
        {"direct", {8, 3, 5, 1, 1, 4}},
        {"direct", {16, 6, 3, 2, 3, 2}},
        {"small", {4, 4, 2, 4, 4, 1}},
        /* K summed by 2, 4 and 8 groups of work-items in a work-group (kgroups): with a split of
         * K, three stages, the warp layout, one stage. */
        {"tiled", {32, 32, 8, 8, 8, 4, 0, 0, 0, 0, 0, 2}},
        {"tiled", {16, 16, 8, 4, 4, 2, 2, 3, 2, 0, 0, 4}},
        {"tiled", {64, 32, 8, 16, 8, 2, 2, 1, 3, 8, 0, 2}},
        {"tiled", {16, 16, 4, 4, 4, 1, 1, 1, 1, 0, 0, 8}},
    };
    /* Rows unaligned and aligned to the vectors, K unaligned and aligned (B vector loads). */
    static const size_t sizes[][3] = {{67, 45, 70}, {13, 3, 9}, {40, 64, 33}};
    /* The variants' defaults in both types; each explicit set in one, alternating (every GPU
     * build costs about a second). */
    static const clip_type types[] = {CLIP_F32, CLIP_C64};
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
        for (int ti = 0; ti < 2; ti++) {
            if (s >= 3 && ti != (int)(s % 2)) continue;
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                check_product(app, types[ti], types[ti], sizes[z][0], sizes[z][1], sizes[z][2],
                              &sets[s], seed);
        }
    /* The variants agree with one another bit for bit where they sum in the same order: here,
     * one slice of length K (kwg > K) on every variant. */
    gt_mat A = gt_random(CLIP_F64, 29, 7, 1.0, seed), B = gt_random(CLIP_F64, 7, 31, 1.0, seed);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    const tiles one[3] = {{"tiled", {0, 0, 8}}, {"direct", {0, 0, 8}}, {"small", {0, 0, 8}}};
    clip_data *c[3];
    for (int v = 0; v < 3; v++) c[v] = run_mm(app, a, b, &one[v], NULL);
    const void *h[3] = {NULL, NULL, NULL};
    for (int v = 0; v < 3; v++) CHECK(c[v] && clip_data_host(c[v], &h[v]) == CLIP_OK);
    if (h[0] && h[1] && h[2]) {
        CHECK(memcmp(h[0], h[1], 29 * 31 * sizeof(double)) == 0);
        CHECK(memcmp(h[0], h[2], 29 * 31 * sizeof(double)) == 0);
    }
    for (int v = 0; v < 3; v++) clip_data_destroy(c[v]);
    clip_data_destroy(a);
    clip_data_destroy(b);
    gt_free(&A), gt_free(&B);
}

/* Explicit tiles with kgroups and stages left to default: the stages and padding are fitted to
 * the groups' local memory, so a slice too long for two buffers in eight groups gets one (as it
 * does without groups) rather than a refusal. The slice is sized from the device's local memory:
 * eight groups of 16x16 tiles need 1024 bytes a k of slice for A's two unpadded buffers and as
 * many for B's, under 1100 for both with one padded buffer, and the groups' sum (7168 bytes)
 * passes through A's buffers. */
static size_t kgroups_bytes(long kwg, size_t per_k) {
    const size_t a = (size_t)kwg * per_k / 2;
    return (a > 7168 ? a : 7168) + (size_t)kwg * per_k / 2;
}

static void test_kgroups_fit(clip_app *app, unsigned long long *seed) {
    const clip_device_info *dev = clip_app_device(app);
    if (dev->max_work_group < 256) return;
    long kwg = 16;
    while (kgroups_bytes(kwg, 2048) <= dev->local_mem)
        kwg += 16;
    if (kwg > 1024 || kgroups_bytes(kwg, 1100) > dev->local_mem) return;
    /* 8x4 work-items a group, 256 in all (NVIDIA's compiler ran 8x8 groups' kernel with at most
     * 256), each a 2x4 tile: 8 multiply-adds a k, within the unrolling limit at PoCL's K slice. */
    const tiles tl = {"tiled", {16, 16, kwg, 8, 4, 2, 2, 0, 0, 0, 0, 8}};
    gt_mat A = gt_random(CLIP_F32, 40, 70, 1.0, seed), B = gt_random(CLIP_F32, 70, 33, 1.0, seed);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    clip_process *p = NULL;
    clip_status s = mm_process(app, a, b, &tl, NULL, &p);
    if (s != CLIP_OK) fprintf(stderr, "kgroups 8, kwg %ld: %s\n", kwg, clip_app_last_error(app));
    CHECK(s == CLIP_OK);
    if (s == CLIP_OK) {
        const char *v = clip_process_variant(p);
        CHECK(strstr(v, " st 1") != NULL && strstr(v, " kg 8") != NULL);
    }
    clip_process_destroy(p);
    clip_data_destroy(a);
    clip_data_destroy(b);
    gt_free(&A), gt_free(&B);
    check_product(app, CLIP_F32, CLIP_F32, 40, 70, 33, &tl, seed);
}

/* Transposed operands (transa/transb), read in place: every type and pairing of operations on
 * odd shapes (M, N or K of 1 included), and mixed types, where ' conjugates only an operand that
 * is complex itself (a real A' stays real when B is complex). */
static const int trans_ops[][2] = {{1, 0}, {2, 0}, {0, 1}, {0, 2}, {1, 1}, {2, 2}, {1, 2}};
#define N_TRANS_OPS (sizeof trans_ops / sizeof trans_ops[0])

static void test_transposed(clip_app *app, unsigned long long *seed) {
    static const size_t sh[][3] = {{1, 1, 1}, {3, 17, 1}, {17, 33, 65}, {65, 3, 33}, {1, 65, 17}};
    for (int ti = 0; ti < 4; ti++)
        for (size_t o = 0; o < N_TRANS_OPS; o++)
            for (size_t z = 0; z < sizeof sh / sizeof sh[0]; z++)
                check_product_op(app, gt_types[ti], gt_types[ti], sh[z][0], sh[z][1], sh[z][2],
                                 trans_ops[o], NULL, seed);
    static const int mixed_ops[][2] = {{2, 2}, {1, 2}};
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (int o = 0; o < 2; o++)
                if (i != j)
                    check_product_op(app, gt_types[i], gt_types[j], 19, 23, 21, mixed_ops[o], NULL,
                                     seed);
}

/* Transposed operands on every variant and on tile sets with edges in M, N and K, vectors along
 * K and N (aligned and not), a split K, the warp layout and stream-K's schedule; then the read
 * in place sums exactly as the plain product of the transposed copies does (the same tiles, the
 * same order of the K sum): bit for bit. */
static void test_transposed_variants(clip_app *app, unsigned long long *seed) {
    static const tiles sets[] = {
        {"tiled", {0}},
        {"direct", {0}},
        {"small", {0}},
        {"tiled", {32, 32, 8, 8, 8, 4}},
        {"tiled", {32, 16, 8, 4, 4, 4, 2, 3, 2}},
        {"tiled", {64, 32, 8, 16, 8, 2, 2, 1, 2, 8}},
        {"tiled", {16, 16, 8, 4, 4, 2, 2, 1, 3, 4, 2}},
        {"direct", {8, 3, 5, 1, 1, 4}},
        {"tiled", {32, 16, 8, 4, 4, 4, 2, 1, 3, 0, 0, 2}},
    };
    static const size_t sizes[][3] = {{67, 45, 70}, {13, 3, 9}, {40, 64, 32}};
    static const int ops[][2] = {{1, 1}, {2, 0}, {0, 2}};
    static const clip_type types[] = {CLIP_F32, CLIP_C64};
    for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
        for (int ti = 0; ti < 2; ti++) {
            if (s >= 3 && ti != (int)(s % 2)) continue;
            for (int o = 0; o < 3; o++)
                for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++)
                    check_product_op(app, types[ti], types[ti], sizes[z][0], sizes[z][1],
                                     sizes[z][2], ops[o], &sets[s], seed);
        }
    for (int v = 0; v < 3; v++)
        for (size_t o = 0; o < N_TRANS_OPS; o++) {
            const clip_type t = o % 2 ? CLIP_C64 : CLIP_F64;
            const int *op = trans_ops[o], plain[2] = {0, 0};
            gt_mat A = gt_random(t, op[0] ? 21 : 29, op[0] ? 29 : 21, 1.0, seed);
            gt_mat B = gt_random(t, op[1] ? 31 : 21, op[1] ? 21 : 31, 1.0, seed);
            gt_mat opA = gt_op(&A, op[0]), opB = gt_op(&B, op[1]);
            clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
            clip_data *ac = gt_data(app, &opA), *bc = gt_data(app, &opB);
            clip_data *c = run_mm_op(app, a, b, &sets[v], op, NULL);
            clip_data *r = run_mm_op(app, ac, bc, &sets[v], plain, NULL);
            const void *hc = NULL, *hr = NULL;
            CHECK(c && r && clip_data_host(c, &hc) == CLIP_OK && clip_data_host(r, &hr) == CLIP_OK);
            if (hc && hr) CHECK(memcmp(hc, hr, 29 * 31 * clip_type_size(t)) == 0);
            clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(ac);
            clip_data_destroy(bc), clip_data_destroy(c), clip_data_destroy(r);
            gt_free(&A), gt_free(&B), gt_free(&opA), gt_free(&opB);
        }
}

/* Transposed empties: op(A) 3x0 times op(B) 0x4 (K = 0) is zeros(3, 4); an empty M or N stays
 * empty; a 1x1 operand with a transposed other is s*X.' (shape swapped), a conjugated complex
 * scalar conj(s)*X; transposing an N-D operand is MATLAB's error. */
static void test_transposed_empty_scalar(clip_app *app, unsigned long long *seed) {
    static const int tt[2] = {1, 1}, ct[2] = {2, 2};
    for (int ti = 0; ti < 4; ti++) {
        size_t da[2] = {0, 3}, db[2] = {4, 0};
        clip_data *a = NULL, *b = NULL;
        CHECK_OK(app, clip_data_create(app, gt_types[ti], 2, da, &a));
        CHECK_OK(app, clip_data_create(app, gt_types[ti], 2, db, &b));
        clip_data *c = run_mm_op(app, a, b, NULL, ti % 2 ? ct : tt, NULL);
        const void *h = NULL;
        CHECK(c && clip_data_dim(c, 0) == 3 && clip_data_dim(c, 1) == 4 &&
              clip_data_host(c, &h) == CLIP_OK);
        for (size_t i = 0; h && i < 12; i++) {
            double re, im;
            gt_get(h, gt_types[ti], i, &re, &im);
            CHECK(re == 0 && im == 0);
        }
        clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
    }
    size_t d50[2] = {5, 0}, d53[2] = {5, 3};
    clip_data *a = NULL, *b = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, d50, &a));
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_C64, 2, d53, &b));
    static const int ta[2] = {1, 0};
    clip_data *c = run_mm_op(app, a, b, NULL, ta, NULL); /* op(A) 0x5 * 5x3 */
    CHECK(c && clip_data_dim(c, 0) == 0 && clip_data_dim(c, 1) == 3 &&
          clip_data_type(c) == CLIP_C32); /* single wins, as MATLAB */
    clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);

    for (int side = 0; side < 2; side++)
        for (int op = 1; op <= 2; op++) {
            gt_mat S = gt_random(CLIP_C64, 1, 1, 2.0, seed), X = gt_random(CLIP_C32, 3, 4, 1.0, seed);
            gt_mat opS = gt_op(&S, op), opX = gt_op(&X, op);
            gt_mat Sp = gt_as(&opS, CLIP_C32), Xp = gt_as(&opX, CLIP_C32);
            /* The reference: op(s)*op(X) element by element (a scalar product has no inner
             * dimension for gt_product). */
            gt_mat Ref = gt_alloc(CLIP_C32, Xp.rows, Xp.cols), Bnd = gt_alloc(CLIP_F64, Xp.rows, Xp.cols);
            for (size_t e = 0; e < Xp.numel; e++) {
                Ref.re[e] = Sp.re[0] * Xp.re[e] - Sp.im[0] * Xp.im[e];
                Ref.im[e] = Sp.re[0] * Xp.im[e] + Sp.im[0] * Xp.re[e];
                Bnd.re[e] = (fabs(Sp.re[0]) + fabs(Sp.im[0])) * (fabs(Xp.re[e]) + fabs(Xp.im[e]));
            }
            clip_data *s = gt_data(app, &S), *x = gt_data(app, &X);
            const int ops[2] = {op, op};
            clip_data *y = side ? run_mm_op(app, x, s, NULL, ops, NULL) : run_mm_op(app, s, x, NULL, ops, NULL);
            gt_check(y, CLIP_C32, &Ref, &Bnd, 1, side ? "op(X)*op(s)" : "op(s)*op(X)");
            clip_data_destroy(s), clip_data_destroy(x), clip_data_destroy(y);
            gt_free(&S), gt_free(&X), gt_free(&opS), gt_free(&opX), gt_free(&Sp), gt_free(&Xp);
            gt_free(&Ref), gt_free(&Bnd);
        }
}

/* NaN and Inf propagate as in a plain loop, and only where they belong: a NaN in the last row
 * of A and an Inf in the last column of B sit in edge tiles, whose clamped loads must not carry
 * them into other rows or columns. Every variant, K past one slice. */
static void test_nonfinite(clip_app *app, unsigned long long *seed) {
    static const tiles vars[] = {{"tiled", {0}}, {"direct", {0}}, {"small", {0}}};
    static const clip_type types[] = {CLIP_F32, CLIP_C64};
    const size_t m = 37, k = 21, n = 29;
    for (int ti = 0; ti < 2; ti++)
        for (int v = 0; v < 3; v++) {
            clip_type t = types[ti];
            gt_mat A = gt_random(t, m, k, 1.0, seed), B = gt_random(t, k, n, 1.0, seed);
            A.re[m - 1 + 5 * m] = NAN;
            B.re[3 + (n - 1) * k] = INFINITY;
            B.re[7 + (n - 2) * k] = -INFINITY;
            gt_mat bound, R = gt_product(&A, &B, t, &bound);
            clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
            clip_data *c = run_mm(app, a, b, &vars[v], NULL);
            char what[64];
            snprintf(what, sizeof what, "non-finite %s %s", clip_type_name(t), vars[v].variant);
            gt_check(c, t, &R, &bound, (double)k, what);
            size_t finite = 0;
            for (size_t i = 0; i < R.numel; i++) finite += isfinite(R.re[i]) && isfinite(R.im[i]);
            CHECK(finite == (m - 1) * (n - 2)); /* the test puts non-finite values where meant */
            clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
            gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
        }
}

/* K = 0 gives zeros(M, N); an empty M or N gives an empty result. */
static void test_empty(clip_app *app) {
    for (int ti = 0; ti < 4; ti++) {
        clip_type t = gt_types[ti];
        size_t da[2] = {3, 0}, db[2] = {0, 4};
        clip_data *a = NULL, *b = NULL, *c = NULL;
        CHECK_OK(app, clip_data_create(app, t, 2, da, &a));
        CHECK_OK(app, clip_data_create(app, t, 2, db, &b));
        c = run_mm(app, a, b, NULL, NULL);
        CHECK(c && clip_data_dim(c, 0) == 3 && clip_data_dim(c, 1) == 4 && clip_data_type(c) == t);
        const void *h = NULL;
        if (c && clip_data_host(c, &h) == CLIP_OK) {
            int zero = 1;
            for (size_t i = 0; i < 12; i++) {
                double re, im;
                gt_get(h, t, i, &re, &im);
                if (re != 0 || im != 0 || signbit(re)) zero = 0;
            }
            CHECK(zero);
        }
        clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
    }
    static const size_t cases[][4] = {{0, 5, 5, 3}, {4, 5, 5, 0}, {0, 0, 0, 7}, {0, 3, 3, 0}};
    for (size_t i = 0; i < 4; i++) {
        clip_data *a = NULL, *b = NULL;
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, cases[i], &a));
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_C32, 2, cases[i] + 2, &b));
        clip_data *c = run_mm(app, a, b, NULL, NULL);
        CHECK(c && clip_data_dim(c, 0) == cases[i][0] && clip_data_dim(c, 1) == cases[i][3] &&
              clip_data_numel(c) == 0 && clip_data_type(c) == CLIP_C32);
        clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
    }
}

/* A 1x1 operand multiplies element-wise, on either side, with any shape (N-D included). */
static void test_scalar(clip_app *app, unsigned long long *seed) {
    static const clip_type pairs[][2] = {
        {CLIP_F32, CLIP_F32}, {CLIP_F64, CLIP_C64}, {CLIP_C32, CLIP_F64}, {CLIP_C64, CLIP_C64}};
    size_t nd[3] = {3, 4, 2};
    for (int i = 0; i < 4; i++)
        for (int side = 0; side < 2; side++)
            for (int ndim = 2; ndim <= 3; ndim++) {
                clip_type ts = pairs[i][side], tx = pairs[i][1 - side];
                clip_type t = clip_type_promote(ts, tx);
                gt_mat S = gt_random(ts, 1, 1, 2.0, seed), X = gt_random(tx, 12, ndim == 3 ? 2 : 1, 1.0, seed);
                size_t one[2] = {1, 1};
                clip_data *s = gt_data_nd(app, &S, 2, one), *x = gt_data_nd(app, &X, ndim, nd);
                clip_data *c = side == 0 ? run_mm(app, s, x, NULL, NULL) : run_mm(app, x, s, NULL, NULL);
                int ok = c && clip_data_type(c) == t && clip_data_ndims(c) == ndim &&
                         clip_data_numel(c) == X.numel && clip_data_dim(c, 0) == 3 &&
                         clip_data_dim(c, 1) == 4;
                CHECK(ok);
                const void *h = NULL;
                if (ok && clip_data_host(c, &h) == CLIP_OK) {
                    double sr = gt_round(t, S.re[0]), si = gt_round(t, S.im[0]);
                    double eps = clip_type_is_double(t) ? 0x1p-53 : 0x1p-24;
                    int bad = 0;
                    for (size_t e = 0; e < X.numel; e++) {
                        double xr = gt_round(t, X.re[e]), xi = gt_round(t, X.im[e]), re, im;
                        gt_get(h, t, e, &re, &im);
                        double tol = 8 * eps * (fabs(sr) + fabs(si)) * (fabs(xr) + fabs(xi));
                        if (!(fabs(re - (sr * xr - si * xi)) <= tol) ||
                            !(fabs(im - (sr * xi + si * xr)) <= tol))
                            bad++;
                    }
                    CHECK(bad == 0);
                }
                clip_data_destroy(s), clip_data_destroy(x), clip_data_destroy(c);
                gt_free(&S), gt_free(&X);
            }
    /* A scalar times an empty matrix is empty, of the other's shape. */
    size_t one[2] = {1, 1}, e[2] = {0, 3};
    clip_data *s = NULL, *x = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, one, &s));
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, e, &x));
    clip_data *c = run_mm(app, s, x, NULL, NULL);
    CHECK(c && clip_data_dim(c, 0) == 0 && clip_data_dim(c, 1) == 3);
    clip_data_destroy(s), clip_data_destroy(x), clip_data_destroy(c);

    /* A real operand times a complex one multiplies each part alone, as MATLAB's real*complex:
     * 2*complex(Inf, 1) is Inf + 2i and complex(Inf, 0)*2 is Inf + 0i, where the promoted
     * operand's zero imaginary part would make Inf*0 = NaN. On either side of the product. */
    const double real2[1] = {2.0}, cinf1[2] = {INFINITY, 1.0}, cinf0[2] = {INFINITY, 0.0};
    const double want[2][2] = {{INFINITY, 2.0}, {INFINITY, 0.0}};
    for (int k = 0; k < 2; k++)
        for (int side = 0; side < 2; side++) {
            clip_data *r = NULL, *z = NULL;
            CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 2, one, real2, &r));
            CHECK_OK(app, clip_data_create_from(app, CLIP_C64, 2, one, k ? cinf0 : cinf1, &z));
            c = side ? run_mm(app, z, r, NULL, NULL) : run_mm(app, r, z, NULL, NULL);
            const double *h = NULL;
            CHECK(c && clip_data_type(c) == CLIP_C64 &&
                  clip_data_host(c, (const void **)&h) == CLIP_OK);
            CHECK(h && h[0] == want[k][0] && h[1] == want[k][1]);
            clip_data_destroy(r), clip_data_destroy(z), clip_data_destroy(c);
        }
}

/* A real matrix times a complex one multiplies each part alone, as MATLAB's real*complex and
 * as for a scalar above: complex(Inf, 0) in A times a real B gives Inf + 0i, not Inf + NaN*i.
 * Both sides; every variant and vector width along M (the tiled kernel pairs the lanes of A's
 * vectors for each width), K groups, and on the default set every transposed and conjugated
 * operand read in place. Small integers and Inf: every element exact. */
static void test_real_times_complex(clip_app *app, unsigned long long *seed) {
    static const tiles sets[] = {{NULL, {0}},
                                 {"tiled", {0}},
                                 {"direct", {0}},
                                 {"small", {0}},
                                 {"tiled", {16, 8, 4, 4, 2, 2}},
                                 {"tiled", {32, 32, 8, 8, 8, 4}},
                                 {"tiled", {32, 16, 8, 4, 4, 8}},
                                 {"tiled", {32, 32, 8, 8, 8, 4, 0, 0, 0, 0, 0, 2}}};
    static const int ops[][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {0, 2}, {2, 2}};
    const size_t m = 7, k = 5, n = 6;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int side = 0; side < 2; side++) /* 0: A complex, B real; 1: the other way */
            for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++)
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
                    if (s > 0 && o > 0) continue;
                    const clip_type ct = dbl ? CLIP_C64 : CLIP_C32, rt = gt_real_type(ct);
                    const clip_type ta = side ? rt : ct, tb = side ? ct : rt;
                    const int *op = ops[o];
                    gt_mat A, B, R;
                    gt_mixed_case(ta, tb, ct, m, k, n, op, 9, seed, &A, &B, &R);
                    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
                    clip_data *c =
                        run_mm_op(app, a, b, sets[s].variant ? &sets[s] : NULL, op, NULL);
                    char what[96];
                    snprintf(what, sizeof what, "op%s(%s) * op%s(%s) [%s %zu]", op_names[op[0]],
                             clip_type_name(ta), op_names[op[1]], clip_type_name(tb),
                             sets[s].variant ? sets[s].variant : "auto", s);
                    gt_check_exact(c, ct, &R, what);
                    clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
                    gt_free(&A), gt_free(&B), gt_free(&R);
                }
}

/* Runs C = alpha*op(A)*op(B) + beta*C through the engine with set prm (fitted here to the
 * operands) on sub-matrices (leading dimensions past the sizes, offsets; a transposed operand's
 * leading dimension is that of the stored k x m or n x k matrix) and checks every element of C's
 * buffer: the product inside, untouched outside. Returns how many tiles ran stream-K. */
static size_t engine_case_op(clip_app *app, clip_type t, clip_gemm_params prm, const int ops[2],
                             size_t m, size_t n, size_t k, size_t lda, size_t ldb, size_t ldc,
                             size_t oa, size_t ob, size_t oc, unsigned long long *seed) {
    int cx = clip_type_is_complex(t);
    gt_mat A = gt_random(t, lda, (m > k ? m : k) + 1, 1.0, seed);
    gt_mat B = gt_random(t, ldb, (n > k ? n : k) + 1, 1.0, seed);
    const double ca = ops[0] == 2 ? -1 : 1, cb = ops[1] == 2 ? -1 : 1; /* conjugation */
    gt_mat C = gt_random(t, ldc, n + 1, 1.0, seed);
    clip_gemm_scalar alpha = {0.75, cx ? -0.5 : 0}, beta = {-1.25, cx ? 0.25 : 0};
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B), *c = gt_data(app, &C);
    clip_process *p = NULL;
    size_t sk_tiles = 0;
    CHECK_OK(app, clip_process_create(app, "matmul", &p));
    clip_gemm_set_trans(&prm, t, (clip_gemm_trans)ops[0], (clip_gemm_trans)ops[1]);
    clip_gemm_fit(&prm, clip_app_device(app), t, 1, m, lda, ldb, ldc, oa, ob, oc);
    clip_gemm g;
    cl_mem am = NULL, bm = NULL, cm = NULL;
    CHECK_OK(app, clip_gemm_build(p, t, &prm, m, n, k, &g));
    sk_tiles = clip_gemm_stream_k_tiles(&g, m, n, k);
    CHECK_OK(app, clip_proc_read_buffer(p, a, &am));
    CHECK_OK(app, clip_proc_read_buffer(p, b, &bm));
    CHECK_OK(app, clip_proc_write_buffer(p, c, 1, &cm));
    clip_gemm_operand Ao = {am, oa, lda}, Bo = {bm, ob, ldb}, Co = {cm, oc, ldc};
    CHECK_OK(app, clip_gemm_enqueue(p, &g, m, n, k, alpha, Ao, Bo, beta, Co));
    const void *h = NULL;
    CHECK_OK(app, clip_data_host(c, &h));
    double eps = clip_type_is_double(t) ? 0x1p-53 : 0x1p-24;
    int bad = 0;
    for (size_t j = 0; h && j < n + 1; j++)
        for (size_t i = 0; i < ldc; i++) {
            size_t e = i + j * ldc;
            double want_r = C.re[e], want_i = C.im[e], bnd = 0;
            int inside = e >= oc && (e - oc) % ldc < m && (e - oc) / ldc < n;
            if (inside) {
                size_t ci = (e - oc) % ldc, cj = (e - oc) / ldc;
                double sr = 0, si = 0;
                for (size_t q = 0; q < k; q++) {
                    size_t ea = oa + (ops[0] ? q + ci * lda : ci + q * lda);
                    size_t eb = ob + (ops[1] ? cj + q * ldb : q + cj * ldb);
                    const double ai = ca * A.im[ea], bi = cb * B.im[eb];
                    sr += A.re[ea] * B.re[eb] - ai * bi;
                    si += A.re[ea] * bi + ai * B.re[eb];
                    bnd += (fabs(A.re[ea]) + fabs(A.im[ea])) * (fabs(B.re[eb]) + fabs(B.im[eb]));
                }
                want_r = alpha.re * sr - alpha.im * si + beta.re * C.re[e] - beta.im * C.im[e];
                want_i = alpha.re * si + alpha.im * sr + beta.re * C.im[e] + beta.im * C.re[e];
                bnd = 2 * bnd + 3 * (fabs(C.re[e]) + fabs(C.im[e]));
            }
            double re, im, tol = (k + 8) * 2 * eps * bnd;
            gt_get(h, t, e, &re, &im);
            if (!(fabs(re - want_r) <= tol) || !(fabs(im - want_i) <= tol)) bad++;
        }
    CHECK(bad == 0);
    if (bad) {
        char desc[128];
        clip_gemm_describe(&prm, desc, sizeof desc);
        fprintf(stderr, "engine %s %zux%zux%zu [%s]: %d bad elements\n", clip_type_name(t), m, n, k,
                desc, bad);
    }
    clip_process_destroy(p);
    clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(c);
    gt_free(&A), gt_free(&B), gt_free(&C);
    return sk_tiles;
}

static size_t engine_case(clip_app *app, clip_type t, clip_gemm_params prm, size_t m, size_t n,
                          size_t k, size_t lda, size_t ldb, size_t ldc, size_t oa, size_t ob,
                          size_t oc, unsigned long long *seed) {
    static const int plain[2] = {0, 0};
    return engine_case_op(app, t, prm, plain, m, n, k, lda, ldb, ldc, oa, ob, oc, seed);
}

/* The engine directly: C = alpha*A*B + beta*C on sub-matrices (offsets and leading dimensions
 * larger than the rows), for every type, tiled (K split in two) and direct. */
static void test_engine_alpha_beta(clip_app *app, unsigned long long *seed) {
    const size_t m = 21, k = 19, n = 17;
    for (int ti = 0; ti < 4; ti++)
        for (int v = CLIP_GEMM_TILED; v <= CLIP_GEMM_DIRECT; v++) {
            clip_type t = gt_types[ti];
            clip_gemm_params prm;
            clip_gemm_default(clip_app_device(app), t, (clip_gemm_variant)v, m, n, k, &prm);
            if (v == CLIP_GEMM_TILED) { /* two K chunks summed into C by the reduction */
                prm.kwg = 8;
                prm.ksplit = 2;
                prm.sk = 0;
            }
            engine_case(app, t, prm, m, n, k, 25, 22, 24, 3, 2, 5, seed);
            /* Transposed operands in place: A stored k x m, B n x k (leading dimensions 25 >= k
             * and 22 >= n), conjugated or not; then aligned leading dimensions and offsets, so
             * that the tiled kernel's vectors along K (transposed A) and N (transposed B) load
             * whole. */
            static const int ops[2][2] = {{1, 2}, {2, 1}};
            for (int o = 0; o < 2; o++) {
                engine_case_op(app, t, prm, ops[o], m, n, k, 25, 22, 24, 3, 2, 5, seed);
                engine_case_op(app, t, prm, ops[o], m, n, k, 24, 20, 24, 4, 8, 4, seed);
            }
        }
}

/* Stream-K: a grid with a tail past whole waves of compute_units*sk work-groups, the tail's K
 * runs crossing tile boundaries where the counts allow, edge tiles in M, N and K, sub-matrices
 * and alpha/beta; each type, two and three stages, the plain and the warp work-item layouts. The
 * sizes follow the device's compute units, so the tail runs stream-K on any device (the test
 * fails if it does not). */
static void test_stream_k(clip_app *app, unsigned long long *seed) {
    const size_t cus = clip_app_device(app)->compute_units ? clip_app_device(app)->compute_units : 1;
    for (int sk = 2; sk <= 3; sk++)
        for (int ti = 0; ti < 4; ti++) {
            clip_type t = gt_types[ti];
            const size_t P = cus * (size_t)sk, mt = 3, first = P / mt + 1;
            /* A tail R with P % R != 0 makes some work-group's run cross into a second tile;
             * failing that, any tail. */
            size_t nt = first;
            while (nt < first + 4 * P && !((mt * nt) % P && P % ((mt * nt) % P))) nt++;
            if (nt == first + 4 * P)
                for (nt = first; (mt * nt) % P == 0; nt++) {}
            /* K slices: one per stream-K work-group at least. */
            const size_t R = (mt * nt) % P, S = (P + R - 1) / R + 2;
            clip_gemm_params prm;
            clip_gemm_default(clip_app_device(app), t, CLIP_GEMM_TILED, 64, 64, 64, &prm);
            prm.mwg = 16, prm.nwg = 16, prm.kwg = 8, prm.vw = 2, prm.vwn = 2;
            prm.mdimc = sk == 2 ? 4 : 8, prm.ndimc = sk == 2 ? 4 : 8, prm.wm = 4;
            prm.ksplit = 1, prm.stages = ti % 2 ? 2 : 3, prm.sk = sk, prm.kg = 0;
            const size_t m = mt * 16 - 5, n = nt * 16 - 3, k = S * 8 - 3;
            size_t got = engine_case(app, t, prm, m, n, k, m + 3, k + 2, m + 1, 1, 2, 3, seed);
            CHECK(got == R);
            if (got != R)
                fprintf(stderr, "stream-K %s %zux%zux%zu sk %d: %zu tail tiles, want %zu\n",
                        clip_type_name(t), m, n, k, sk, got, R);
        }
    /* Through the process: streamk is a parameter, and the product matches the reference. */
    size_t P = cus * 2, nt = P + 1;
    const tiles set = {"tiled", {16, 16, 8, 4, 4, 2, 2, 1, 2, 4, 2}};
    check_product(app, CLIP_F32, CLIP_F32, 13, 8 * (P + 2) - 1, nt * 16 - 7, &set, seed);
}

/* Split K (seven chunks, the last one short) through one process launched three times: every
 * result within the bound and bit-identical to the first (the slabs are added in split order, so
 * a repeated product repeats its rounding); in each type, with edges in M, N and K. */
static void test_split_sum(clip_app *app, unsigned long long *seed) {
    const size_t m = 45, k = 331, n = 61;
    const tiles set = {"tiled", {16, 16, 8, 4, 4, 2, 2, 7, 2}};
    for (int ti = 0; ti < 4; ti++) {
        clip_type t = gt_types[ti];
        gt_mat A = gt_random(t, m, k, 1.0, seed), B = gt_random(t, k, n, 1.0, seed), bound;
        gt_mat R = gt_product(&A, &B, t, &bound);
        clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
        const size_t bytes = m * n * clip_type_size(t);
        unsigned char *first = malloc(bytes);
        clip_process *p = NULL;
        clip_status s = mm_process(app, a, b, &set, NULL, &p);
        for (int run = 0; run < 3 && s == CLIP_OK; run++) {
            clip_data *c = NULL;
            s = clip_process_launch(p);
            if (s == CLIP_OK) s = clip_process_output(p, 0, &c);
            char what[96];
            snprintf(what, sizeof what, "split sum %s %zux%zux%zu, launch %d", clip_type_name(t), m,
                     k, n, run + 1);
            if (s == CLIP_OK) gt_check(c, t, &R, &bound, (double)k, what);
            const void *h = NULL;
            if (s == CLIP_OK) s = clip_data_host(c, &h);
            if (s == CLIP_OK && first && run == 0) memcpy(first, h, bytes);
            if (s == CLIP_OK && run > 0) CHECK(first && !memcmp(h, first, bytes));
        }
        CHECK(s == CLIP_OK);
        if (s != CLIP_OK) fprintf(stderr, "split sum: %s\n", clip_app_last_error(app));
        clip_process_destroy(p);
        free(first);
        clip_data_destroy(a), clip_data_destroy(b);
        gt_free(&A), gt_free(&B), gt_free(&R), gt_free(&bound);
    }
}

static clip_data *filled(clip_app *app, clip_type t, int nd, const size_t *dims) {
    clip_data *d = NULL;
    if (clip_data_create_zeros(app, t, nd, dims, &d) != CLIP_OK) exit(3);
    return d;
}

/* Expects init to fail with `want` and a message containing `msg`; nothing to launch after. */
static void expect_init_error(clip_app *app, clip_process *p, clip_status want, const char *msg) {
    CHECK_STATUS(app, clip_process_init(p), want);
    CHECK_MSG(app, msg);
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
}

static void test_errors(clip_app *app) {
    size_t d34[2] = {3, 4}, d52[2] = {5, 2}, d42[2] = {4, 2}, d222[3] = {2, 2, 2}, d22[2] = {2, 2};
    clip_data *a = filled(app, CLIP_F32, 2, d34), *b = filled(app, CLIP_F64, 2, d52);
    clip_data *good = filled(app, CLIP_F32, 2, d42), *cube = filled(app, CLIP_F32, 3, d222);
    clip_data *sq = filled(app, CLIP_F32, 2, d22);
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "matmul", &p));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_MISSING_INPUT);
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, b));
    expect_init_error(app, p, CLIP_ERR_INNER_DIM, "matmul: inner dimensions differ: A is 3x4, B is 5x2");

    /* Transposed: the message names op(A) and op(B); A.' of a 3x4 A is 4x3. */
    CHECK_OK(app, clip_process_set_choice(p, "transa", "t"));
    expect_init_error(app, p, CLIP_ERR_INNER_DIM,
                      "matmul: inner dimensions differ: A.' is 4x3 (A is 3x4), B is 5x2");
    CHECK_OK(app, clip_process_set_choice(p, "transb", "ctranspose"));
    expect_init_error(app, p, CLIP_ERR_INNER_DIM, "A.' is 4x3 (A is 3x4), B.' is 2x5 (B is 5x2)");
    CHECK_STATUS(app, clip_process_set_choice(p, "transa", "h"), CLIP_ERR_BAD_CHOICE);
    size_t one[2] = {1, 1};
    clip_data *s11 = filled(app, CLIP_F32, 2, one);
    CHECK_OK(app, clip_process_set_input(p, 0, s11));
    CHECK_OK(app, clip_process_set_input(p, 1, cube));
    expect_init_error(app, p, CLIP_ERR_SHAPE, "B is 2x2x2: transpose is defined for 2-D");
    clip_data_destroy(s11);
    CHECK_OK(app, clip_process_set_choice(p, "transa", "none"));
    CHECK_OK(app, clip_process_set_choice(p, "transb", "n"));

    CHECK_OK(app, clip_process_set_input(p, 0, cube));
    CHECK_OK(app, clip_process_set_input(p, 1, sq));
    expect_init_error(app, p, CLIP_ERR_SHAPE, "A is 2x2x2, B is 2x2");

    CHECK_STATUS(app, clip_process_set_choice(p, "variant", "fastest"), CLIP_ERR_BAD_CHOICE);
    CHECK_STATUS(app, clip_process_set_int(p, "vw", 32), CLIP_ERR_PARAM_RANGE);
    CHECK_STATUS(app, clip_process_set_int(p, "mwg", -1), CLIP_ERR_PARAM_RANGE);

    /* Tile sets that do not fit. */
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, good));
    CHECK_OK(app, clip_process_set_choice(p, "variant", "tiled"));
    CHECK_OK(app, clip_process_set_int(p, "vw", 3));
    expect_init_error(app, p, CLIP_ERR_PARAM_RANGE, "vw 3");
    CHECK_OK(app, clip_process_set_int(p, "vw", 4));
    CHECK_OK(app, clip_process_set_int(p, "mwg", 30));
    expect_init_error(app, p, CLIP_ERR_PARAM_RANGE, "mwg 30 must be a multiple");
    CHECK_OK(app, clip_process_set_int(p, "mwg", 64));
    CHECK_OK(app, clip_process_set_int(p, "nwg", 20));
    CHECK_OK(app, clip_process_set_int(p, "ndimc", 8));
    expect_init_error(app, p, CLIP_ERR_PARAM_RANGE, "nwg 20 must be a multiple of ndimc*vwn");
    CHECK_OK(app, clip_process_set_int(p, "nwg", 1024));
    CHECK_OK(app, clip_process_set_int(p, "mdimc", 64));
    CHECK_OK(app, clip_process_set_int(p, "ndimc", 128));
    CHECK_OK(app, clip_process_set_int(p, "mwg", 256));
    expect_init_error(app, p, CLIP_ERR_PARAM_RANGE, "work-group 64x128");

    /* The output may not be an input; a user output must have the product's type and shape. */
    clip_process *q = NULL;
    CHECK_OK(app, clip_process_create(app, "matmul", &q));
    CHECK_OK(app, clip_process_set_input(q, 0, sq));
    CHECK_OK(app, clip_process_set_input(q, 1, sq));
    CHECK_OK(app, clip_process_set_output(q, 0, sq));
    expect_init_error(app, q, CLIP_ERR_INVALID_ARG, "must not be one of the inputs");
    CHECK_OK(app, clip_process_set_output(q, 0, a));
    expect_init_error(app, q, CLIP_ERR_SHAPE, "");
    clip_data *wrong = filled(app, CLIP_F64, 2, d22);
    CHECK_OK(app, clip_process_set_output(q, 0, wrong));
    expect_init_error(app, q, CLIP_ERR_TYPE, "");

    /* The app and the failed process stay usable: fix the parameters and run. */
    CHECK_OK(app, clip_process_set_choice(p, "variant", "auto"));
    for (int i = 0; i < N_TILES; i++) CHECK_OK(app, clip_process_set_int(p, tile_names[i], 0));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    clip_data *out = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &out));
    CHECK(out && clip_data_dim(out, 0) == 3 && clip_data_dim(out, 1) == 2);
    CHECK_OK(app, clip_app_finish(app));

    clip_process_destroy(p);
    clip_process_destroy(q);
    clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(good), clip_data_destroy(cube);
    clip_data_destroy(sq), clip_data_destroy(wrong);

    /* Double precision on a device without it. */
    clip_criteria crit = {0};
    crit.disable_fp64 = 1;
    clip_app *nf = NULL;
    CHECK_OK(NULL, clip_app_create(&nf, &crit));
    if (nf) {
        clip_data *x = filled(nf, CLIP_F64, 2, d22), *y = filled(nf, CLIP_C64, 2, d22);
        clip_process *r = NULL;
        CHECK_OK(nf, clip_process_create(nf, "matmul", &r));
        CHECK_OK(nf, clip_process_set_input(r, 0, x));
        CHECK_OK(nf, clip_process_set_input(r, 1, y));
        CHECK_STATUS(nf, clip_process_init(r), CLIP_ERR_NO_FP64);
        CHECK_MSG(nf, "fp64");
        clip_process_destroy(r);
        clip_data_destroy(x), clip_data_destroy(y);
        clip_app_destroy(nf);
    }
}

/* The command line: a product saved and compared, and each error's exit status and message.
 * MAT files carry every type (a mixed real/complex product); where MAT support is not built in,
 * BART's .cfl (complex single only) stands in. */
static void test_cli(clip_app *app, unsigned long long *seed) {
    const int mat = clip_io_has("mat");
    const char *ext = mat ? "mat" : "cfl";
    const clip_type ta = mat ? CLIP_F64 : CLIP_C32, tz = mat ? CLIP_F32 : CLIP_C32;
    char cmd[512], a_path[32], b_path[32], c_path[32], x_path[32], y_path[32];
    snprintf(a_path, sizeof a_path, "mm_a.%s", ext);
    snprintf(b_path, sizeof b_path, "mm_b.%s", ext);
    snprintf(c_path, sizeof c_path, "mm_c.%s", ext);
    snprintf(x_path, sizeof x_path, "mm_x.%s", ext);
    snprintf(y_path, sizeof y_path, "mm_y.%s", ext);
    gt_mat A = gt_random(ta, 7, 5, 1.0, seed), B = gt_random(CLIP_C32, 5, 6, 1.0, seed);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    CHECK_OK(app, clip_save(app, a_path, a));
    CHECK_OK(app, clip_save(app, b_path, b));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s -o %s --variant tiled", a_path, b_path, c_path);
    CHECK(gt_system(cmd) == 0);
    clip_data *c = NULL;
    CHECK_OK(app, clip_load(app, c_path, &c));
    gt_mat Ap = gt_as(&A, CLIP_C32), bound;
    gt_mat R = gt_product(&Ap, &B, CLIP_C32, &bound);
    gt_check(c, CLIP_C32, &R, &bound, 5, "cli c32");
    clip_data_destroy(c);
    /* A' * X' through the CLI: A is 7x5, X (6x7, complex) is stored as given; with a real A
     * (MAT files) ' only transposes it. */
    gt_mat X = gt_random(CLIP_C32, 6, 7, 1.0, seed), opX = gt_op(&X, 2), opA = gt_op(&A, 2);
    gt_mat opAp = gt_as(&opA, CLIP_C32), bound2;
    gt_mat R2 = gt_product(&opAp, &opX, CLIP_C32, &bound2);
    clip_data *xd = gt_data(app, &X);
    char xt_path[32];
    snprintf(xt_path, sizeof xt_path, "mm_xt.%s", ext);
    CHECK_OK(app, clip_save(app, xt_path, xd));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s -o %s --transa c --transb ctranspose",
             a_path, xt_path, c_path);
    CHECK(gt_system(cmd) == 0);
    CHECK_OK(app, clip_load(app, c_path, &c));
    gt_check(c, CLIP_C32, &R2, &bound2, 7, "cli A'*X'");
    clip_data_destroy(c), clip_data_destroy(xd);
    gt_free(&X), gt_free(&opX), gt_free(&opA), gt_free(&opAp), gt_free(&bound2), gt_free(&R2);

    size_t d34[2] = {3, 4}, d52[2] = {5, 2};
    clip_data *x = filled(app, tz, 2, d34), *y = filled(app, tz, 2, d52);
    CHECK_OK(app, clip_save(app, x_path, x));
    CHECK_OK(app, clip_save(app, y_path, y));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s -o mm_z.%s 2>mm_err.txt", x_path, y_path, ext);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "matmul: inner dimensions differ: A is 3x4, B is 5x2"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s -o mm_z.%s --transa t 2>mm_err.txt", x_path, y_path, ext);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "matmul: inner dimensions differ: A.' is 4x3 (A is 3x4), B is 5x2"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s --transb x 2>mm_err.txt", a_path, b_path);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "n|t|c|none|transpose|ctranspose"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s --variant bogus 2>mm_err.txt", a_path, b_path);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "bogus"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s --vw 3 --variant direct 2>mm_err.txt", a_path, b_path);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "vw 3"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s 2>mm_err.txt", a_path);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "takes 2 inputs"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s --ksplit 2 --variant direct 2>mm_err.txt", a_path, b_path);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "apply to the tiled variant only"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matmul %s %s --variant tiled --mdimc 8 --wm 3 2>mm_err.txt", a_path, b_path);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mm_err.txt", "wm 3: must divide mdimc 8 and 32"));
    clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(x), clip_data_destroy(y);
    gt_free(&A), gt_free(&B), gt_free(&Ap), gt_free(&R), gt_free(&bound);
}

int main(void) {
    /* No tuning cache: the defaults are under test (test_tune covers the cache). */
    setenv("CLIP_TUNING_CACHE", "no_such_dir/tuning.txt", 1);
    clip_app *app = tu_app();
    unsigned long long seed = 0x9e3779b97f4a7c15ULL;
    test_types_and_shapes(app, &seed);
    test_mixed(app, &seed);
    test_variants_and_tiles(app, &seed);
    test_kgroups_fit(app, &seed);
    test_transposed(app, &seed);
    test_transposed_variants(app, &seed);
    test_transposed_empty_scalar(app, &seed);
    test_nonfinite(app, &seed);
    test_empty(app);
    test_scalar(app, &seed);
    test_real_times_complex(app, &seed);
    test_engine_alpha_beta(app, &seed);
    test_stream_k(app, &seed);
    test_split_sum(app, &seed);
    test_errors(app);
    test_cli(app, &seed);
    clip_app_destroy(app);
    return tu_finish("test_matmul");
}
