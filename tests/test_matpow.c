/* matpow: A^p for every type against repeated multiplication in double, the number of device
 * commands a launch makes (log2 p squarings + popcount(p)-1 products, never p-1), identity and
 * copy cases, empty A, errors through the C API and the CLI, and a matmul -> matpow chain that
 * never copies to the host. */
#include "gemm_testutil.h"
#include "process_internal.h" /* the launch's event count */

/* Products binary exponentiation makes, counted independently of the implementation. */
static int expected_products(unsigned long long p) {
    if (p < 2) return 0;
    int log2 = 0, ones = 0;
    for (unsigned long long q = p; q > 1; q >>= 1) log2++;
    for (unsigned long long q = p; q; q >>= 1) ones += (int)(q & 1);
    return log2 + ones - 1;
}

/* A^p by p-1 plain products in double; bound = |A|^p likewise (moduli over-estimated). */
static gt_mat naive_power(const gt_mat *a, int p, gt_mat *bound) {
    size_t n = a->rows;
    gt_mat r = gt_alloc(a->type, n, n), abs_a = gt_alloc(CLIP_F64, n, n);
    *bound = gt_alloc(CLIP_F64, n, n);
    for (size_t i = 0; i < n; i++) {
        r.re[i * n + i] = 1;
        bound->re[i * n + i] = 1;
    }
    for (size_t i = 0; i < n * n; i++) abs_a.re[i] = fabs(a->re[i]) + fabs(a->im[i]);
    for (int s = 0; s < p; s++) {
        gt_mat u1, u2, next = gt_product(&r, a, a->type, &u1), nb = gt_product(bound, &abs_a, CLIP_F64, &u2);
        gt_free(&u1);
        gt_free(&u2);
        gt_free(&r);
        gt_free(bound);
        r = next;
        *bound = nb;
    }
    gt_free(&abs_a);
    return r;
}

static clip_process *new_matpow(clip_app *app, clip_data *a, double power, const char *variant) {
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "matpow", &p));
    CHECK_OK(app, clip_process_set_real(p, "power", power));
    if (variant) CHECK_OK(app, clip_process_set_choice(p, "variant", variant));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    return p;
}

static void test_values(clip_app *app, unsigned long long *seed) {
    static const int powers[] = {0, 1, 2, 3, 5, 13};
    static const size_t sizes[] = {1, 7, 33};
    for (int ti = 0; ti < 4; ti++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
            clip_type t = gt_types[ti];
            size_t n = sizes[z];
            /* Entries of size 1/sqrt(n): the powers neither blow up nor vanish. */
            gt_mat A = gt_random(t, n, n, 1.1 / sqrt((double)n), seed);
            clip_data *a = gt_data(app, &A);
            for (size_t pi = 0; pi < sizeof powers / sizeof powers[0]; pi++) {
                int pw = powers[pi];
                clip_process *p = new_matpow(app, a, pw, NULL);
                CHECK_OK(app, clip_process_init(p));
                size_t temps = p->n_temps;
                CHECK_OK(app, clip_process_launch(p));
                CHECK_OK(app, clip_process_launch(p)); /* twice: temporaries are reused */
                /* The wgmma kernels (sm_90, the tensor family forced) pack both operands first:
                 * their workspace beside matpow's temporary. */
                const int wg = strstr(clip_process_variant(p), "wgmma") != NULL;
                CHECK(p->n_temps == temps && temps <= (size_t)(1 + wg));
                double ms = -1;
                CHECK_OK(app, clip_process_time_ms(p, &ms));
                CHECK(ms > 0);
                /* Command by command: as many as enqueued, summing to the device time, within
                 * the span from the first start to the last end. */
                double each[64], span = -1, sum = 0, most = 0;
                size_t cmds = 0;
                CHECK_OK(app, clip_process_command_times(p, each, 64, &cmds, &span));
                CHECK(cmds == p->n_events);
                for (size_t c = 0; c < cmds && c < 64; c++) {
                    CHECK(each[c] >= 0);
                    sum += each[c];
                    most = each[c] > most ? each[c] : most;
                }
                CHECK(cmds > 64 || fabs(sum - ms) <= 1e-9 * (1 + ms));
                CHECK(span >= most && span > 0);
                /* One device command per product; p = 0 and p = 1 are one command each. The
                 * wgmma kernels: the packing, the product, and where the grid's tail is split
                 * along K the sum of its parts (the same for every product of a launch). */
                const int prods = expected_products((unsigned long long)pw);
                int want = pw < 2 ? 1 : prods * (wg ? 2 : 1);
                if (wg && pw >= 2 && p->n_events == (size_t)(prods * 3)) want = prods * 3;
                CHECK(p->n_events == (size_t)want);
                if (p->n_events != (size_t)want)
                    fprintf(stderr, "p=%d: %zu commands, want %d\n", pw, p->n_events, want);
                clip_data *c = NULL;
                CHECK_OK(app, clip_process_output(p, 0, &c));
                gt_mat bound, R = naive_power(&A, pw, &bound);
                char what[96];
                snprintf(what, sizeof what, "%s %zux%zu ^ %d", clip_type_name(t), n, n, pw);
                gt_check(c, t, &R, &bound, (double)pw * (double)(n + 4), what);
                clip_process_destroy(p);
                gt_free(&R), gt_free(&bound);
            }
            clip_data_destroy(a);
            gt_free(&A);
        }
}

/* A^0 is the identity even for a matrix of NaN; A^1 is A bit for bit; each variant agrees. */
static void test_special(clip_app *app, unsigned long long *seed) {
    for (int ti = 0; ti < 4; ti++) {
        clip_type t = gt_types[ti];
        gt_mat A = gt_random(t, 5, 5, 1.0, seed);
        for (size_t i = 0; i < A.numel; i++) A.re[i] = NAN;
        clip_data *a = gt_data(app, &A);
        clip_process *p = new_matpow(app, a, 0, NULL);
        CHECK_OK(app, clip_process_init(p));
        CHECK_OK(app, clip_process_launch(p));
        clip_data *c = NULL;
        const void *h = NULL;
        CHECK_OK(app, clip_process_output(p, 0, &c));
        CHECK(c && clip_data_type(c) == t);
        if (c && clip_data_host(c, &h) == CLIP_OK) {
            int eye = 1;
            for (size_t i = 0; i < 25; i++) {
                double re, im;
                gt_get(h, t, i, &re, &im);
                if (re != (i % 6 == 0 ? 1.0 : 0.0) || im != 0) eye = 0;
            }
            CHECK(eye);
        }
        clip_process_destroy(p);
        clip_data_destroy(a);
        gt_free(&A);

        A = gt_random(t, 9, 9, 1.0, seed);
        a = gt_data(app, &A);
        p = new_matpow(app, a, 1, NULL);
        CHECK_OK(app, clip_process_init(p));
        CHECK_OK(app, clip_process_launch(p));
        CHECK_OK(app, clip_process_output(p, 0, &c));
        const void *ha = NULL;
        CHECK_OK(app, clip_data_host(a, &ha));
        CHECK(c && clip_data_host(c, &h) == CLIP_OK && memcmp(h, ha, clip_data_bytes(a)) == 0);
        clip_process_destroy(p);

        /* Every variant, p = 5, on a size that leaves edge tiles. */
        gt_mat bound, R = naive_power(&A, 5, &bound);
        static const char *const variants[] = {"tiled", "direct", "small"};
        for (int v = 0; v < 3; v++) {
            p = new_matpow(app, a, 5, variants[v]);
            CHECK_OK(app, clip_process_init(p));
            CHECK_OK(app, clip_process_launch(p));
            CHECK_OK(app, clip_process_output(p, 0, &c));
            gt_check(c, t, &R, &bound, 5.0 * 13, variants[v]);
            clip_process_destroy(p);
        }
        clip_data_destroy(a);
        gt_free(&A), gt_free(&R), gt_free(&bound);
    }
    /* A huge power on 1x1 matrices: 2^40 + 1 squarings and one product, exactly. */
    for (int sign = -1; sign <= 1; sign += 2) {
        size_t one[2] = {1, 1};
        double v = sign;
        clip_data *a = NULL, *c = NULL;
        CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 2, one, &v, &a));
        unsigned long long pw = (1ULL << 40) + 1;
        clip_process *p = new_matpow(app, a, (double)pw, NULL);
        CHECK_OK(app, clip_process_init(p));
        CHECK_OK(app, clip_process_launch(p));
        CHECK(p->n_events == 41);
        CHECK_OK(app, clip_process_output(p, 0, &c));
        const void *h = NULL;
        CHECK(c && clip_data_host(c, &h) == CLIP_OK && *(const double *)h == v);
        clip_process_destroy(p);
        clip_data_destroy(a);
    }
    /* 0x0 gives 0x0. */
    size_t zero[2] = {0, 0};
    clip_data *e = NULL, *c = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_C32, 2, zero, &e));
    for (int pw = 0; pw <= 3; pw += 3) {
        clip_process *p = new_matpow(app, e, pw, NULL);
        CHECK_OK(app, clip_process_init(p));
        CHECK_OK(app, clip_process_launch(p));
        CHECK_OK(app, clip_process_output(p, 0, &c));
        CHECK(c && clip_data_dim(c, 0) == 0 && clip_data_dim(c, 1) == 0 && clip_data_type(c) == CLIP_C32);
        clip_process_destroy(p);
    }
    clip_data_destroy(e);
}

/* matmul's output feeds matpow on the device: no copy to the host until the result is read. */
static void test_chain(clip_app *app, unsigned long long *seed) {
    gt_mat A = gt_random(CLIP_F32, 24, 30, 0.2, seed), B = gt_random(CLIP_F64, 30, 24, 0.2, seed);
    clip_data *a = gt_data(app, &A), *b = gt_data(app, &B);
    clip_process *mm = NULL;
    CHECK_OK(app, clip_process_create(app, "matmul", &mm));
    CHECK_OK(app, clip_process_set_input(mm, 0, a));
    CHECK_OK(app, clip_process_set_input(mm, 1, b));
    CHECK_OK(app, clip_process_init(mm));
    clip_data *ab = NULL;
    CHECK_OK(app, clip_process_output(mm, 0, &ab));
    clip_process *mp = new_matpow(app, ab, 3, NULL);
    CHECK_OK(app, clip_process_init(mp));
    clip_transfer_stats before, after;
    CHECK_OK(app, clip_app_transfer_stats(app, &before));
    CHECK_OK(app, clip_process_launch(mm));
    CHECK_OK(app, clip_process_launch(mp));
    CHECK_OK(app, clip_app_finish(app));
    CHECK_OK(app, clip_app_transfer_stats(app, &after));
    CHECK(after.to_host == before.to_host);
    CHECK(after.to_device - before.to_device == 2); /* A and B, once */
    clip_data *c = NULL;
    CHECK_OK(app, clip_process_output(mp, 0, &c));
    gt_mat Bs = gt_as(&B, CLIP_F32), b1, b2;
    gt_mat AB = gt_product(&A, &Bs, CLIP_F32, &b1);
    gt_mat R = naive_power(&AB, 3, &b2);
    /* AB carries its own rounding (30 terms) into the power: widen the bound by |A||B| powers. */
    gt_mat absab = gt_alloc(CLIP_F64, 24, 24);
    for (size_t i = 0; i < absab.numel; i++) absab.re[i] = b1.re[i];
    gt_mat u, bound = naive_power(&absab, 3, &u);
    gt_check(c, CLIP_F32, &R, &bound, 3.0 * (24 + 4) + 3.0 * (30 + 4), "chain");
    clip_process_destroy(mm);
    clip_process_destroy(mp);
    clip_data_destroy(a), clip_data_destroy(b);
    gt_free(&A), gt_free(&B), gt_free(&Bs), gt_free(&b1), gt_free(&b2), gt_free(&AB), gt_free(&R);
    gt_free(&absab), gt_free(&u), gt_free(&bound);
}

static void test_errors(clip_app *app) {
    size_t d34[2] = {3, 4}, d22[2] = {2, 2}, d222[3] = {2, 2, 2};
    clip_data *rect = NULL, *sq = NULL, *cube = NULL;
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 2, d34, &rect));
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F64, 2, d22, &sq));
    CHECK_OK(app, clip_data_create_zeros(app, CLIP_F32, 3, d222, &cube));
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "matpow", &p));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_MISSING_INPUT);
    CHECK_OK(app, clip_process_set_input(p, 0, sq));
    static const double bad[] = {-1, 2.5, NAN, INFINITY, -INFINITY, 1e30};
    for (int i = 0; i < 6; i++) {
        CHECK_OK(app, clip_process_set_real(p, "power", bad[i]));
        CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_BAD_POWER);
        CHECK_MSG(app, "matpow: power must be a natural number");
        CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    }
    CHECK_OK(app, clip_process_set_real(p, "power", 2));
    CHECK_OK(app, clip_process_set_input(p, 0, rect));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_NOT_SQUARE);
    CHECK_MSG(app, "matpow: A must be square, it is 3x4");
    CHECK_OK(app, clip_process_set_input(p, 0, cube));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "2x2x2");
    CHECK_OK(app, clip_process_set_choice(p, "variant", "tiled"));
    CHECK_OK(app, clip_process_set_int(p, "vw", 3));
    CHECK_OK(app, clip_process_set_input(p, 0, sq));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "vw 3");
    CHECK_OK(app, clip_process_set_output(p, 0, sq));
    CHECK_OK(app, clip_process_set_int(p, "vw", 0));
    CHECK_STATUS(app, clip_process_init(p), CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "must not be one of the inputs");

    /* Still usable: a fresh output and a valid power. */
    clip_data *out = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_F64, 2, d22, &out));
    CHECK_OK(app, clip_process_set_output(p, 0, out));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    const void *h = NULL;
    CHECK_OK(app, clip_data_host(out, &h));
    CHECK(h && ((const double *)h)[0] == 0 && ((const double *)h)[3] == 0);
    clip_process_destroy(p);

    /* No fp64. */
    clip_criteria crit = {0};
    crit.disable_fp64 = 1;
    clip_app *nf = NULL;
    CHECK_OK(NULL, clip_app_create(&nf, &crit));
    if (nf) {
        clip_data *x = NULL;
        CHECK_OK(nf, clip_data_create_zeros(nf, CLIP_C64, 2, d22, &x));
        clip_process *q = new_matpow(nf, x, 3, NULL);
        CHECK_STATUS(nf, clip_process_init(q), CLIP_ERR_NO_FP64);
        CHECK_MSG(nf, "fp64");
        clip_process_destroy(q);
        clip_data_destroy(x);
        clip_app_destroy(nf);
    }

    /* CLI: MAT files where built in, else BART's .cfl (complex single only). */
    const int mat = clip_io_has("mat");
    const char *ext = mat ? "mat" : "cfl";
    char cmd[512];
    clip_data *rect_f = rect, *sq_f = sq, *rect_c = NULL, *sq_c = NULL;
    if (!mat) {
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_C32, 2, d34, &rect_c));
        CHECK_OK(app, clip_data_create_zeros(app, CLIP_C32, 2, d22, &sq_c));
        rect_f = rect_c, sq_f = sq_c;
    }
    snprintf(cmd, sizeof cmd, "mp_rect.%s", ext);
    CHECK_OK(app, clip_save(app, cmd, rect_f));
    snprintf(cmd, sizeof cmd, "mp_sq.%s", ext);
    CHECK_OK(app, clip_save(app, cmd, sq_f));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matpow mp_rect.%s --power 2 -o mp_out.%s 2>mp_err.txt", ext, ext);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mp_err.txt", "matpow: A must be square, it is 3x4"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matpow mp_sq.%s --power -1 -o mp_out.%s 2>mp_err.txt", ext, ext);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mp_err.txt", "power must be a natural number"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matpow mp_sq.%s --power 1.5 2>mp_err.txt", ext);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mp_err.txt", "1.5"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matpow mp_sq.%s --power inf 2>mp_err.txt", ext);
    CHECK(gt_system(cmd) != 0);
    CHECK(gt_file_has("mp_err.txt", "inf"));
    snprintf(cmd, sizeof cmd, CLIP_TOOL " run matpow mp_sq.%s --power 3 -o mp_out.%s", ext, ext);
    CHECK(gt_system(cmd) == 0);
    clip_data *res = NULL;
    snprintf(cmd, sizeof cmd, "mp_out.%s", ext);
    CHECK_OK(app, clip_load(app, cmd, &res));
    CHECK(res && clip_data_type(res) == (mat ? CLIP_F64 : CLIP_C32) && clip_data_dim(res, 0) == 2 &&
          clip_data_dim(res, 1) == 2);
    clip_data_destroy(res);
    clip_data_destroy(rect_c), clip_data_destroy(sq_c);
    clip_data_destroy(rect), clip_data_destroy(sq), clip_data_destroy(cube), clip_data_destroy(out);
}

int main(void) {
    /* No tuning cache: the defaults are under test (test_tune covers the cache). */
    setenv("CLIP_TUNING_CACHE", "no_such_dir/tuning.txt", 1);
    clip_app *app = tu_app();
    unsigned long long seed = 0x2545f4914f6cdd1dULL;
    test_values(app, &seed);
    test_special(app, &seed);
    test_chain(app, &seed);
    test_errors(app);
    clip_app_destroy(app);
    return tu_finish("test_matpow");
}
