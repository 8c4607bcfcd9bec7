/* Split launches (lib/plan.c): every process with a plan, run over 2 and 3 devices and streamed
 * through one device in pieces (CLIP_TEST_MAX_ALLOC), against the same process on one device.
 * PoCL presents several CPU devices through POCL_DEVICES, set here before OpenCL loads. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>

#include "clip/plan.h"
#include "clip/process_author.h"
#include "testutil.h"

/* Quick mode (valgrind): f32 and c64 only, one conv2 filter; every path is still taken. */
#define TYPE_STEP (tu_quick() ? 3u : 1u)

/* The apps under test: one device, two, three, and one device with a small allocation limit. */
enum { ONE, TWO, THREE, SMALL, N_APPS };
static const char *const app_names[N_APPS] = {"1 device", "2 devices", "3 devices", "streamed"};
static clip_app *apps[N_APPS];
/* The streamed app's largest allocation: small enough that the test data needs pieces. */
#define SMALL_ALLOC "40000"

static clip_app *open_app(int n, const char *max_alloc) {
    if (max_alloc) setenv("CLIP_TEST_MAX_ALLOC", max_alloc, 1);
    clip_app *app = tu_app_devices(n);
    unsetenv("CLIP_TEST_MAX_ALLOC");
    return app;
}

static clip_data *random_data(clip_app *app, clip_type t, int ndims, const size_t *dims,
                              unsigned long long seed) {
    clip_data *d = NULL;
    if (clip_data_create(app, t, ndims, dims, &d) != CLIP_OK) return NULL;
    void *h = NULL;
    clip_data_host_write(d, &h);
    size_t n = clip_data_numel(d) * (clip_type_is_complex(t) ? 2 : 1);
    for (size_t i = 0; i < n; i++) {
        double v = tu_rand(&seed);
        if (clip_type_is_double(t))
            ((double *)h)[i] = v;
        else
            ((float *)h)[i] = (float)v;
    }
    return d;
}

/* The same data in another app (a copy of its host values). */
static clip_data *copy_to(clip_app *app, clip_data *src) {
    const void *h = NULL;
    clip_data *d = NULL;
    if (clip_data_host(src, &h) != CLIP_OK) return NULL;
    clip_data_create_from(app, clip_data_type(src), clip_data_ndims(src), clip_data_dims(src), h,
                          &d);
    return d;
}

typedef struct param {
    const char *name, *value;
} param;

/* Runs process `name` on inputs in `app` with text parameters; returns its output 0 (owned by
 * the caller) or NULL, with the variant in `variant`. */
static clip_data *run(clip_app *app, const char *name, clip_data **in, int n_in, const param *prm,
                      char *variant, size_t cap) {
    clip_process *p = NULL;
    clip_data *out = NULL;
    if (clip_process_create(app, name, &p) != CLIP_OK) return NULL;
    clip_status s = CLIP_OK;
    for (int i = 0; prm && prm[i].name && s == CLIP_OK; i++)
        s = clip_process_set_text(p, prm[i].name, prm[i].value);
    for (int i = 0; i < n_in && s == CLIP_OK; i++)
        s = clip_process_set_input(p, i, in[i]);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, &out);
    if (s == CLIP_OK) {
        const void *h = NULL;
        s = clip_data_host(out, &h);
    }
    if (s == CLIP_OK) {
        clip_data_retain(out);
        snprintf(variant, cap, "%s", clip_process_variant(p));
    } else {
        fprintf(stderr, "%s: %s\n", name, clip_app_last_error(app));
        out = NULL;
    }
    clip_process_destroy(p);
    return out;
}

/* Largest |a - b| / (|b| + tiny) over the elements; 0 for bitwise-equal data. Infinity when
 * shapes or types differ. */
static double max_rel_diff(clip_data *a, clip_data *b) {
    if (!a || !b || clip_data_type(a) != clip_data_type(b) ||
        clip_data_numel(a) != clip_data_numel(b))
        return INFINITY;
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        if (clip_data_dim(a, i) != clip_data_dim(b, i)) return INFINITY;
    const void *ha = NULL, *hb = NULL;
    clip_data_host(a, &ha);
    clip_data_host(b, &hb);
    clip_type t = clip_data_type(a);
    size_t n = clip_data_numel(a) * (clip_type_is_complex(t) ? 2 : 1);
    double worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        double x = clip_type_is_double(t) ? ((const double *)ha)[i] : ((const float *)ha)[i];
        double y = clip_type_is_double(t) ? ((const double *)hb)[i] : ((const float *)hb)[i];
        if (x == y || (isnan(x) && isnan(y))) continue;
        double r = fabs(x - y) / (fabs(y) + 1e-30);
        if (!(r <= worst)) worst = isnan(r) ? INFINITY : r;
    }
    return worst;
}

/* Whether every device of app is the same model and driver (on one platform) as the first:
 * then a piece runs the kernels the whole would, bit for bit. Mixed apps (a GPU beside PoCL on
 * the GPU machine) are compared normwise within rounding instead. */
static int uniform(const clip_app *app) {
    const clip_device_info *a = clip_app_device_at(app, 0);
    for (int i = 1; i < clip_app_device_count(app); i++) {
        const clip_device_info *b = clip_app_device_at(app, i);
        if (strcmp(a->name, b->name) || strcmp(a->driver, b->driver) ||
            strcmp(a->platform, b->platform))
            return 0;
    }
    return 1;
}

/* Largest |a - b| / max |b|. */
static double normwise_diff(clip_data *a, clip_data *b) {
    if (max_rel_diff(a, b) == INFINITY) return INFINITY;
    const void *ha = NULL, *hb = NULL;
    clip_data_host(a, &ha);
    clip_data_host(b, &hb);
    clip_type t = clip_data_type(a);
    size_t n = clip_data_numel(a) * (clip_type_is_complex(t) ? 2 : 1);
    double big = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        double x = clip_type_is_double(t) ? ((const double *)ha)[i] : ((const float *)ha)[i];
        double y = clip_type_is_double(t) ? ((const double *)hb)[i] : ((const float *)hb)[i];
        if (isfinite(y) && fabs(y) > big) big = fabs(y);
        if (x == y || (isnan(x) && isnan(y))) continue;
        double e = fabs(x - y);
        if (!(e <= worst)) worst = isnan(e) ? INFINITY : e;
    }
    return big > 0 ? worst / big : worst;
}

/* Whether any of the data is larger than the streamed app's allocation limit. */
static int too_big(clip_data **in, int n_in, clip_data *out) {
    size_t limit = (size_t)atol(SMALL_ALLOC);
    for (int i = 0; i < n_in; i++)
        if (clip_data_bytes(in[i]) > limit) return 1;
    return out && clip_data_bytes(out) > limit;
}

/* Runs the case on every app and compares with the single device: within `tol` relative (0:
 * bit for bit). Inputs are made in the single-device app and copied to the others. With `split`
 * set, the multi-device runs must report a split, and so must the streamed one when the data
 * exceeds its limit (and must not otherwise). */
static void check_case(const char *what, const char *name, clip_data **in, int n_in,
                       const param *prm, double tol, int split) {
    char v1[160] = "", v[160] = "";
    clip_data *want = run(apps[ONE], name, in, n_in, prm, v1, sizeof v1);
    CHECK(want != NULL);
    for (int a = TWO; a < N_APPS && want; a++) {
        if (!apps[a]) continue;
        clip_data *copies[8] = {0};
        for (int i = 0; i < n_in; i++)
            copies[i] = copy_to(apps[a], in[i]);
        clip_data *got = run(apps[a], name, copies, n_in, prm, v, sizeof v);
        double diff = max_rel_diff(got, want);
        if (!uniform(apps[a]) && got) { /* other kernels on other devices: rounding differs */
            diff = normwise_diff(got, want);
            double r = clip_type_is_double(clip_data_type(want)) ? 1e-12 : 1e-4;
            if (diff <= r) diff = 0;
        }
        int is_split = strncmp(v, "split", 5) == 0;
        printf("%-10s %-28s %-10s diff %.3g  [%s]\n", name, what, app_names[a], diff, v);
        CHECK(got != NULL);
        CHECK(diff <= tol);
        if (split) CHECK(is_split == (a != SMALL || too_big(in, n_in, want)));
        for (int i = 0; i < n_in; i++)
            clip_data_destroy(copies[i]);
        clip_data_destroy(got);
    }
    clip_data_destroy(want);
}

static void test_scale(void) {
    const size_t dims[][3] = {{300, 70, 1}, {1, 9000, 1}, {33, 17, 9}, {7, 1, 1}};
    const clip_type types[] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    const param prm[] = {{"a", "-2.5"}, {"b", "0.25"}, {NULL, NULL}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (size_t t = 0; t < 4; t += TYPE_STEP) {
            clip_data *x = random_data(apps[ONE], types[t], 3, dims[d], 11 + d);
            char what[64];
            snprintf(what, sizeof what, "%zux%zux%zu %s", dims[d][0], dims[d][1], dims[d][2],
                     clip_type_name(types[t]));
            check_case(what, "scale", &x, 1, prm, 0.0, 1);
            clip_data_destroy(x);
        }
}

/* a.' * b chunked, partial products summed in piece order; dot along a dimension in bands. */
static void test_dot(void) {
    const clip_type types[] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    for (size_t t = 0; t < 4; t += TYPE_STEP) {
        const size_t da[2] = {20000, 1}, db[2] = {1, 20000};
        clip_data *in[2] = {random_data(apps[ONE], types[t], 2, da, 3),
                            random_data(apps[ONE], types[(t + 1) % 4], 2, db, 4)};
        char what[64];
        snprintf(what, sizeof what, "col.row 20000 %s.%s", clip_type_name(types[t]),
                 clip_type_name(types[(t + 1) % 4]));
        /* summed in another order: a few roundings of the sum of |a||b| */
        double tol =
            clip_type_is_double(types[t]) && clip_type_is_double(types[(t + 1) % 4]) ? 1e-10 : 1e-4;
        check_case(what, "dot", in, 2, NULL, tol, 1);
        clip_data_destroy(in[0]);
        clip_data_destroy(in[1]);
        const size_t dm[3] = {61, 150, 3};
        in[0] = random_data(apps[ONE], types[t], 3, dm, 5);
        in[1] = random_data(apps[ONE], types[t], 3, dm, 6);
        snprintf(what, sizeof what, "61x150x3 columns %s", clip_type_name(types[t]));
        check_case(what, "dot", in, 2, NULL, 0.0, 1);
        const param along2[] = {{"dim", "2"}, {NULL, NULL}};
        snprintf(what, sizeof what, "61x150x3 dim 2 %s", clip_type_name(types[t]));
        check_case(what, "dot", in, 2, along2, 0.0, 1);
        clip_data_destroy(in[0]);
        clip_data_destroy(in[1]);
    }
}

/* Vector norms of every order in chunks, fro of an N-D array, the matrix 1- and Inf-norms in
 * bands, vecnorm in bands of lines; NaN and Inf in one piece reach the result. */
static void test_norm(void) {
    const clip_type types[] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    const char *const orders[] = {"1", "2", "3", "2.5", "inf", "-inf", "fro"};
    for (size_t t = 0; t < 4; t += TYPE_STEP) {
        const int dbl = clip_type_is_double(types[t]);
        const double tol = dbl ? 1e-12 : 1e-5;
        const size_t dv[2] = {1, 30001}, dm[2] = {301, 70}, dn[3] = {40, 30, 20};
        clip_data *v = random_data(apps[ONE], types[t], 2, dv, 21);
        clip_data *m = random_data(apps[ONE], types[t], 2, dm, 22);
        clip_data *n3 = random_data(apps[ONE], types[t], 3, dn, 23);
        char what[64];
        for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
            const param prm[] = {{"p", orders[o]}, {NULL, NULL}};
            snprintf(what, sizeof what, "1x30001 p=%s %s", orders[o], clip_type_name(types[t]));
            check_case(what, "norm", &v, 1, prm, tol, 1);
        }
        const char *const mat[] = {"1", "inf", "fro"};
        for (size_t o = 0; o < 3; o++) {
            const param prm[] = {{"p", mat[o]}, {NULL, NULL}};
            snprintf(what, sizeof what, "301x70 p=%s %s", mat[o], clip_type_name(types[t]));
            check_case(what, "norm", &m, 1, prm, mat[o][0] == 'f' ? tol : 0.0, 1);
        }
        const param fro[] = {{"p", "fro"}, {NULL, NULL}};
        snprintf(what, sizeof what, "40x30x20 fro %s", clip_type_name(types[t]));
        check_case(what, "norm", &n3, 1, fro, tol, 1);
        const param vec[] = {{"p", "3"}, {"dim", "2"}, {NULL, NULL}};
        snprintf(what, sizeof what, "40x30x20 p=3 dim 2 %s", clip_type_name(types[t]));
        check_case(what, "norm", &n3, 1, vec, 0.0, 1);
        const param two[] = {{"p", "2"}, {NULL, NULL}};
        const size_t ds[2] = {61, 30}; /* fits the streamed app: the 2-norm runs whole */
        clip_data *small = random_data(apps[ONE], types[t], 2, ds, 25);
        snprintf(what, sizeof what, "61x30 p=2 (whole) %s", clip_type_name(types[t]));
        check_case(what, "norm", &small, 1, two, 0.0, 0);
        clip_data_destroy(small);
        clip_data_destroy(v);
        clip_data_destroy(m);
        clip_data_destroy(n3);
    }
    /* NaN and Inf in the last piece */
    const size_t dv[2] = {5000, 1};
    const double specials[] = {NAN, INFINITY};
    for (int k = 0; k < 2; k++) {
        clip_data *v = random_data(apps[ONE], CLIP_F64, 2, dv, 24);
        double *h = NULL;
        clip_data_host_write(v, (void **)&h);
        h[4990] = specials[k];
        for (int o = 0; o < 3; o++) {
            const char *ord[] = {"2", "inf", "-inf"};
            const param prm[] = {{"p", ord[o]}, {NULL, NULL}};
            char what[64];
            snprintf(what, sizeof what, "5000 with %s p=%s", k ? "Inf" : "NaN", ord[o]);
            check_case(what, "norm", &v, 1, prm, 0.0, 1);
        }
        clip_data_destroy(v);
    }
}

/* Bands of rows, columns or slices, each landing transposed. */
static void test_transpose(void) {
    const size_t shapes[][3] = {{300, 41, 1}, {23, 500, 1}, {17, 9, 40}};
    const clip_type types[] = {CLIP_F32, CLIP_C64};
    for (size_t d = 0; d < 3; d++)
        for (size_t t = 0; t < 2; t++) {
            clip_data *a = random_data(apps[ONE], types[t], 3, shapes[d], 31 + d);
            const param conj[] = {{"conjugate", "true"}, {NULL, NULL}};
            char what[64];
            snprintf(what, sizeof what, "%zux%zux%zu %s'", shapes[d][0], shapes[d][1], shapes[d][2],
                     clip_type_name(types[t]));
            check_case(what, "transpose", &a, 1, conj, 0.0, 1);
            clip_data_destroy(a);
        }
}

/* Blocks of C (column bands while A is small, grids when streaming needs them), every
 * transposition, mixed types, and the scalar product in bands. Each block of C is the same
 * product of the same rows and columns: bit for bit where the kernel's tiling does not depend on
 * the block's size, within rounding otherwise (a K split or another tile changes the order). */
static void test_matmul(void) {
    const clip_type types[] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    const char *const ops[] = {"n", "t", "c"};
    for (size_t t = 0; t < 4; t += TYPE_STEP)
        for (int oa = 0; oa < 3; oa++)
            for (int ob = 0; ob < 3; ob += 2) {
                const size_t m = 67, k = 45, n = 93;
                const size_t da[2] = {oa ? k : m, oa ? m : k}, db[2] = {ob ? n : k, ob ? k : n};
                clip_data *in[2] = {random_data(apps[ONE], types[t], 2, da, 41),
                                    random_data(apps[ONE], types[(t + oa) % 4], 2, db, 42)};
                const param prm[] = {{"transa", ops[oa]}, {"transb", ops[ob]}, {NULL, NULL}};
                char what[64];
                snprintf(what, sizeof what, "%s(A)%s(B) %s.%s", ops[oa], ops[ob],
                         clip_type_name(types[t]), clip_type_name(types[(t + oa) % 4]));
                const int dbl =
                    clip_type_is_double(types[t]) && clip_type_is_double(types[(t + oa) % 4]);
                check_case(what, "matmul", in, 2, prm, dbl ? 1e-12 : 1e-4, 1);
                clip_data_destroy(in[0]);
                clip_data_destroy(in[1]);
            }
    /* A stream-K product (its last tiles split along K): column bands aligned to whole waves
     * of tiles keep those tiles in the last band, run the same way, so the split is bit for
     * bit the whole product (processes/matmul.c, stream_k_bands) */
    {
        const size_t dsa[2] = {5 * 16, 64}, dsb[2] = {64, 25 * 16};
        clip_data *sa[2] = {random_data(apps[ONE], CLIP_F32, 2, dsa, 46),
                            random_data(apps[ONE], CLIP_F32, 2, dsb, 47)};
        const param sk[] = {{"variant", "tiled"}, {"mwg", "16"},    {"nwg", "16"},
                            {"mdimc", "8"},       {"ndimc", "8"},   {"vw", "1"},
                            {"vwn", "1"},         {"streamk", "1"}, {NULL, NULL}};
        char v1[160] = "", v[160] = "";
        clip_data *want = run(apps[ONE], "matmul", sa, 2, sk, v1, sizeof v1);
        CHECK(want && strstr(v1, "sk 1"));
        if (!want || !strstr(v1, "sk 1"))
            fprintf(stderr, "stream-K case: %s: %s\n", v1, clip_app_last_error(apps[ONE]));
        for (int a = TWO; a <= THREE && want; a++) {
            if (!apps[a] || !uniform(apps[a])) continue;
            clip_data *copies[2] = {copy_to(apps[a], sa[0]), copy_to(apps[a], sa[1])};
            clip_data *got = run(apps[a], "matmul", copies, 2, sk, v, sizeof v);
            double diff = got ? max_rel_diff(got, want) : 1.0;
            printf("%-10s %-28s %-10s diff %.3g  [%s]\n", "matmul", "80x64*64x400 stream-K",
                   app_names[a], diff, v);
            CHECK(diff == 0.0 && !strncmp(v, "split", 5));
            clip_data_destroy(copies[0]);
            clip_data_destroy(copies[1]);
            clip_data_destroy(got);
        }
        clip_data_destroy(want);
        clip_data_destroy(sa[0]);
        clip_data_destroy(sa[1]);
    }
    /* A larger than the streamed app's quarter allocation: a grid of blocks */
    const size_t da[2] = {150, 40}, db[2] = {40, 130};
    clip_data *in[2] = {random_data(apps[ONE], CLIP_F64, 2, da, 43),
                        random_data(apps[ONE], CLIP_F64, 2, db, 44)};
    check_case("150x40*40x130 f64 grid", "matmul", in, 2, NULL, 1e-12, 1);
    clip_data_destroy(in[1]);
    const size_t ds[2] = {1, 1};
    in[1] = random_data(apps[ONE], CLIP_C32, 2, ds, 45);
    const param tr[] = {{"transa", "t"}, {NULL, NULL}};
    check_case("150x40.' * scalar c32", "matmul", in, 2, tr, 0.0, 1);
    clip_data *sw[2] = {in[1], in[0]};
    check_case("scalar * 150x40 c32", "matmul", sw, 2, NULL, 0.0, 1);
    clip_data_destroy(in[0]);
    clip_data_destroy(in[1]);
}

/* The plan of a product whose A a piece cannot hold beside its share of B (one rank's SGEMM
 * 16384^3 from files, streamed in pieces of at most 1 GiB): blocks of C, not the column bands
 * that only narrowed as the target doubled (32768 products of one column each, found on the
 * GPU, where the run did not end in ten minutes). Deferred inputs: the hook reads shapes only. */
static void test_streamed_product_plan(void) {
    const size_t nn = 16384, dims[2] = {nn, nn};
    for (int parts = 1; parts <= 2; parts++) {
        clip_process *p = NULL;
        clip_data *a = NULL, *b = NULL;
        clip_plan_info info;
        memset(&info, 0, sizeof info);
        CHECK_OK(apps[ONE], clip_data_create_deferred(apps[ONE], CLIP_F32, 2, dims, &a));
        CHECK_OK(apps[ONE], clip_data_create_deferred(apps[ONE], CLIP_F32, 2, dims, &b));
        CHECK_OK(apps[ONE], clip_process_create(apps[ONE], "matmul", &p));
        CHECK_OK(apps[ONE], clip_process_set_input(p, 0, a));
        CHECK_OK(apps[ONE], clip_process_set_input(p, 1, b));
        CHECK_OK(apps[ONE], clip_process_plan(p, parts, &info));
        size_t area = 0, narrow = nn;
        uint64_t most = 0;
        for (size_t i = 0; i < info.n; i++) {
            const clip_piece *pc = &info.pieces[i];
            const size_t rows = pc->keep[0].count[0], cols = pc->keep[0].count[1];
            area += rows * cols;
            if (rows < narrow) narrow = rows;
            if (cols < narrow) narrow = cols;
            const uint64_t bytes =
                4 * ((uint64_t)pc->in[0].count[0] * pc->in[0].count[1] +
                     (uint64_t)pc->in[1].count[0] * pc->in[1].count[1] + (uint64_t)rows * cols);
            if (bytes > most) most = bytes;
        }
        printf("matmul 16384^3 f32 planned over %d part%s: %zu pieces, narrowest side %zu, "
               "largest piece %llu bytes\n",
               parts, parts > 1 ? "s" : "", info.n, narrow, (unsigned long long)most);
        CHECK(info.n >= 2 && info.n <= 64);
        CHECK(area == nn * nn);
        CHECK(narrow >= nn / 8);
        CHECK(parts > 1 || most <= ((uint64_t)1 << 30)); /* streamed: pieces of 1 GiB */
        clip_plan_info_free(&info);
        clip_process_destroy(p);
        clip_data_destroy(a);
        clip_data_destroy(b);
    }
}

/* Bands of output columns with their halos (every shape and pad, odd and even filters,
 * convolution and correlation) and slices of N-D stacks (circular padding too). The variant is
 * fixed, so every piece sums in the whole's order: bit for bit. */
static void test_conv2(void) {
    const char *const shapes[] = {"full", "same", "valid"};
    const char *const pads[] = {"zero", "replicate", "symmetric", "circular"};
    const size_t ks[][2] = {{5, 7}, {4, 6}, {1, 9}};
    const size_t da[3] = {37, 211, 1}, dn[3] = {23, 19, 6};
    clip_data *a = random_data(apps[ONE], CLIP_F32, 2, da, 51);
    clip_data *stack = random_data(apps[ONE], CLIP_F64, 3, dn, 52);
    for (size_t kk = 0; kk < (tu_quick() ? 1u : 3u); kk++) {
        clip_data *k = random_data(apps[ONE], CLIP_F32, 2, ks[kk], 53 + kk);
        for (int sh = 0; sh < 3; sh++)
            for (int pd = 0; pd < 4; pd++) {
                const param prm[] = {{"shape", shapes[sh]},
                                     {"pad", pads[pd]},
                                     {"correlate", kk == 1 ? "true" : "false"},
                                     {"variant", "global"},
                                     {"separable", "off"},
                                     {NULL, NULL}};
                clip_data *in[2] = {a, k};
                char what[64];
                snprintf(what, sizeof what, "37x211 * %zux%zu %s %s%s", ks[kk][0], ks[kk][1],
                         shapes[sh], pads[pd], kk == 1 ? " corr" : "");
                check_case(what, "conv2", in, 2, prm, 0.0, pd != 3); /* circular: whole */
                if (sh == 1) {
                    in[0] = stack;
                    snprintf(what, sizeof what, "23x19x6 * %zux%zu same %s", ks[kk][0], ks[kk][1],
                             pads[pd]);
                    check_case(what, "conv2", in, 2, prm, 0.0, 1);
                }
            }
        clip_data_destroy(k);
    }
    clip_data_destroy(a);
    clip_data_destroy(stack);
}

/* Specs naming several devices, as CLIP_DEVICE and --device take them. */
static void test_specs(void) {
    clip_criteria c;
    memset(&c, 0, sizeof c);
    CHECK_OK(NULL, clip_criteria_from_spec("all", &c));
    CHECK(c.all == 1 && c.type == CLIP_DEVICE_ANY);
    memset(&c, 0, sizeof c);
    CHECK_OK(NULL, clip_criteria_from_spec("cpu:all", &c));
    CHECK(c.all == 1 && c.type == CLIP_DEVICE_CPU);
    memset(&c, 0, sizeof c);
    CHECK_OK(NULL, clip_criteria_from_spec("2,1", &c));
    CHECK(c.n_indices == 2 && c.indices[0] == 2 && c.indices[1] == 1);
    const char *const bad[] = {"1,1", "0,1", "1,,2", "1,x", ","};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&c, 0, sizeof c);
        CHECK_STATUS(NULL, clip_criteria_from_spec(bad[i], &c), CLIP_ERR_INVALID_ARG);
    }
    CHECK_MSG(NULL, "device spec ','");
    clip_app *app = NULL;
    memset(&c, 0, sizeof c);
    c.ignore_env = 1;
    c.n_indices = 1;
    c.indices[0] = 999;
    CHECK_STATUS(NULL, clip_app_create(&app, &c), CLIP_ERR_NO_DEVICE);
    CHECK_MSG(NULL, "device 999 is listed");
    if (!apps[TWO]) return;
    /* CLIP_DEVICE=2,1: the second device is the primary one */
    setenv("CLIP_DEVICE", "2,1", 1);
    CHECK_OK(NULL, clip_app_create(&app, NULL));
    unsetenv("CLIP_DEVICE");
    if (!app) return;
    CHECK(clip_app_device_count(app) == 2);
    CHECK(clip_app_device(app)->index == 2 && clip_app_device_at(app, 1)->index == 1);
    CHECK(clip_app_device_at(app, 2) == NULL);
    clip_app_destroy(app);
    memset(&c, 0, sizeof c);
    c.ignore_env = 1;
    c.all = 1;
    CHECK_OK(NULL, clip_app_create(&app, &c));
    if (app) CHECK(clip_app_device_count(app) >= 3);
    clip_app_destroy(app);
}

/* What moves: one upload and one download per piece (one per lane of each device) for host data; a
 * piece reading the primary device's copy (the output of a process that runs whole, matpow) copies
 * between devices instead of uploading; a lane keeps a box it already holds (matmul's A in column
 * bands). */
static void test_transfers(void) {
    if (!apps[TWO]) return;
    const size_t dims[2] = {300, 70};
    clip_data *x = random_data(apps[TWO], CLIP_F32, 2, dims, 61), *y = NULL;
    clip_transfer_stats s0, s1;
    clip_app_transfer_stats(apps[TWO], &s0);
    const param prm[] = {{"a", "2"}, {NULL, NULL}};
    char v[160];
    y = run(apps[TWO], "scale", &x, 1, prm, v, sizeof v);
    clip_app_transfer_stats(apps[TWO], &s1);
    /* a piece per lane: 2 devices x 2 lanes */
    CHECK(s1.to_device - s0.to_device == 4 && s1.bytes_to_device - s0.bytes_to_device == 84000);
    CHECK(s1.to_host - s0.to_host == 4 && s1.bytes_to_host - s0.bytes_to_host == 84000);
    CHECK(s1.between_devices == s0.between_devices);
    clip_data_destroy(y);
    clip_data_destroy(x);

    const size_t sq[2] = {40, 40};
    clip_data *a1 = random_data(apps[ONE], CLIP_F64, 2, sq, 62);
    clip_data *a2 = copy_to(apps[TWO], a1);
    const param pw[] = {{"power", "3"}, {NULL, NULL}};
    clip_data *p1 = run(apps[ONE], "matpow", &a1, 1, pw, v, sizeof v);
    clip_process *mp = NULL;
    clip_data *p2 = NULL;
    clip_process_create(apps[TWO], "matpow", &mp);
    clip_process_set_text(mp, "power", "3");
    clip_process_set_input(mp, 0, a2);
    CHECK_OK(apps[TWO], clip_process_init(mp));
    CHECK(strncmp(clip_process_variant(mp), "split", 5) != 0); /* matpow runs whole */
    CHECK_OK(apps[TWO], clip_process_launch(mp));
    clip_process_output(mp, 0, &p2);
    clip_app_transfer_stats(apps[TWO], &s0);
    clip_data *q1 = run(apps[ONE], "scale", &p1, 1, prm, v, sizeof v);
    clip_data *q2 = run(apps[TWO], "scale", &p2, 1, prm, v, sizeof v);
    clip_app_transfer_stats(apps[TWO], &s1);
    CHECK(uniform(apps[TWO]) ? max_rel_diff(q2, q1) == 0.0 : normwise_diff(q2, q1) < 1e-12);
    if (!strcmp(clip_app_device_at(apps[TWO], 0)->platform,
                clip_app_device_at(apps[TWO], 1)->platform)) {
        CHECK(s1.between_devices - s0.between_devices == 2); /* the device-2 pieces */
        CHECK(s1.bytes_to_device == s0.bytes_to_device);     /* nothing from the host */
    } else { /* another platform's context: through the host, once */
        CHECK(s1.to_host - s0.to_host >= 1 && s1.bytes_to_device > s0.bytes_to_device);
    }
    clip_process_destroy(mp);
    clip_data_destroy(a1);
    clip_data_destroy(a2);
    clip_data_destroy(p1);
    clip_data_destroy(q1);
    clip_data_destroy(q2);

    /* streamed matmul in column bands: A moves once per lane, not once per piece */
    const size_t da[2] = {20, 60}, db[2] = {60, 400};
    clip_data *in[2] = {random_data(apps[SMALL], CLIP_F32, 2, da, 63),
                        random_data(apps[SMALL], CLIP_F32, 2, db, 64)};
    clip_app_transfer_stats(apps[SMALL], &s0);
    clip_data *c = run(apps[SMALL], "matmul", in, 2, NULL, v, sizeof v);
    clip_app_transfer_stats(apps[SMALL], &s1);
    size_t pieces = 0;
    sscanf(v, "split: %zu", &pieces);
    CHECK(pieces > 2);
    printf("streamed matmul 20x60*60x400 f32 [%s]: %llu bytes uploaded\n", v,
           (unsigned long long)(s1.bytes_to_device - s0.bytes_to_device));
    CHECK(s1.bytes_to_device - s0.bytes_to_device == 2 * 4800 + 96000);
    clip_data_destroy(c);
    clip_data_destroy(in[0]);
    clip_data_destroy(in[1]);
}

/* A split launch's times stay readable after an unbind or a re-init frees its plan, as a whole
 * launch's do, until the next launch. */
static void test_times_after_unbind(void) {
    const size_t dims[2] = {300, 70};
    clip_data *x = random_data(apps[SMALL], CLIP_F32, 2, dims, 71);
    clip_process *p = NULL;
    CHECK_OK(apps[SMALL], clip_process_create(apps[SMALL], "scale", &p));
    CHECK_OK(apps[SMALL], clip_process_set_input(p, 0, x));
    CHECK_OK(apps[SMALL], clip_process_init(p));
    CHECK(strncmp(clip_process_variant(p), "split", 5) == 0);
    CHECK_OK(apps[SMALL], clip_process_launch(p));
    double ms = -1, again = -1, piece[64];
    size_t n = 0, n2 = 0;
    CHECK_OK(apps[SMALL], clip_process_time_ms(p, &ms));
    CHECK_OK(apps[SMALL], clip_process_command_times(p, piece, 64, &n, NULL));
    CHECK(ms > 0 && n > 1);
    CHECK_OK(apps[SMALL], clip_process_init(p));
    CHECK_OK(apps[SMALL], clip_process_time_ms(p, &again));
    CHECK(again == ms);
    clip_process_unbind(p);
    CHECK_OK(apps[SMALL], clip_process_time_ms(p, &again));
    CHECK_OK(apps[SMALL], clip_process_command_times(p, NULL, 0, &n2, NULL));
    CHECK(again == ms && n2 == n);
    clip_process_destroy(p);
    clip_data_destroy(x);
}

/* A split process reading a device-only result that the app's queue is still computing: the
 * lanes' queues must wait for it (a slow matpow, then a split scale and matmul at once). */
static void test_pending_input(void) {
    const size_t sq[2] = {300, 300};
    clip_data *a1 = random_data(apps[ONE], CLIP_F64, 2, sq, 71);
    const param pw[] = {{"power", "9"}, {NULL, NULL}}, half[] = {{"a", "0.5"}, {NULL, NULL}};
    char v[160];
    clip_data *p1 = run(apps[ONE], "matpow", &a1, 1, pw, v, sizeof v);
    clip_data *s1 = run(apps[ONE], "scale", &p1, 1, half, v, sizeof v);
    clip_data *in1[2] = {p1, a1};
    clip_data *m1 = run(apps[ONE], "matmul", in1, 2, NULL, v, sizeof v);
    for (int a = TWO; a <= THREE; a++) { /* matpow runs whole: too large for SMALL */
        if (!apps[a]) continue;
        for (int round = 0; round < 3; round++) {
            clip_data *a2 = copy_to(apps[a], a1), *p2 = NULL;
            clip_process *mp = NULL;
            clip_process_create(apps[a], "matpow", &mp);
            clip_process_set_text(mp, "power", "9");
            clip_process_set_input(mp, 0, a2);
            CHECK_OK(apps[a], clip_process_init(mp));
            CHECK_OK(apps[a], clip_process_launch(mp)); /* not waited for */
            clip_process_output(mp, 0, &p2);
            clip_data *s2 = run(apps[a], "scale", &p2, 1, half, v, sizeof v);
            clip_data *in2[2] = {p2, a2};
            clip_data *m2 = run(apps[a], "matmul", in2, 2, NULL, v, sizeof v);
            double ds = uniform(apps[a]) ? max_rel_diff(s2, s1) : normwise_diff(s2, s1);
            double dm = uniform(apps[a]) ? max_rel_diff(m2, m1) : normwise_diff(m2, m1);
            if (!(ds <= 1e-12 && dm <= 1e-12))
                fprintf(stderr,
                        "%s, round %d: scale and matmul of a pending matpow differ by %g "
                        "and %g\n",
                        app_names[a], round, ds, dm);
            CHECK(ds <= 1e-12 && dm <= 1e-12);
            clip_process_destroy(mp);
            clip_data_destroy(a2);
            clip_data_destroy(s2);
            clip_data_destroy(m2);
        }
    }
    clip_data_destroy(a1);
    clip_data_destroy(p1);
    clip_data_destroy(s1);
    clip_data_destroy(m1);
}

/* ---- residency: where an input's current copy is when a split process reads it ----
 * Issue 46: a split launch marked its outputs' host copies current before the pieces read their
 * inputs, so an in-place output (scale) was read from its stale host copy. Every splitting
 * process runs here, in place and not, on inputs whose current copy is each of: */
enum { R_HOST, R_BOTH, R_WRITTEN, R_DEVICE, R_WHOLE, R_SPLIT, N_RES };
static const char *const res_names[N_RES] = {"host only",       "both current",
                                             "clip_data_write", "device only, no host storage",
                                             "whole output",    "split output"};

/* Values in `app` with the current copy `r` (a reference the caller owns); *owner, when set, is
 * the process whose output it is (the caller destroys it too). The stale copy, where there is one,
 * holds other values (NaN), so that reading it shows. NULL when that residency cannot exist here (a
 * device copy larger than the device's largest allocation). */
static clip_data *resident(clip_app *app, clip_data *values, int r, clip_process **owner) {
    clip_type t = clip_data_type(values);
    const int nd = clip_data_ndims(values);
    const size_t *dims = clip_data_dims(values);
    const void *h = NULL;
    clip_data *d = NULL;
    *owner = NULL;
    if (clip_data_host(values, &h) != CLIP_OK) return NULL;
    const int fits = clip_data_bytes(values) <= clip_app_device(app)->max_alloc;
    if (r != R_HOST && r != R_SPLIT && !fits) return NULL;
    if (r == R_HOST || r == R_BOTH) {
        d = copy_to(app, values);
        if (d && r == R_BOTH) CHECK_OK(app, clip_data_upload(d));
        return d;
    }
    if (r == R_WRITTEN || r == R_DEVICE) {
        if (r == R_DEVICE) setenv("CLIP_PINNED", "1", 1); /* host storage made at first use */
        clip_status s = clip_data_create(app, t, nd, dims, &d);
        unsetenv("CLIP_PINNED");
        if (s != CLIP_OK) return NULL;
        if (r == R_WRITTEN) { /* a host copy with other values, then stale */
            void *w = NULL;
            CHECK_OK(app, clip_data_host_write(d, &w));
            if (w) memset(w, 0xff, clip_data_bytes(d)); /* NaN in every type */
        }
        CHECK_OK(app, clip_data_write(d, h));
        return d;
    }
    /* the output of another process: conv2 by a 1x1 filter of 1 with circular padding runs
     * whole (on the primary device; its host copy never made current), scale by 1 splits */
    clip_process *p = NULL;
    clip_data *in = copy_to(app, values), *k = NULL;
    const size_t one[2] = {1, 1};
    const double kv = 1.0;
    const float kf = 1.0f;
    const size_t flat[2] = {dims[0], clip_data_numel(values) / (dims[0] ? dims[0] : 1)};
    clip_status s = clip_process_create(app, r == R_WHOLE ? "conv2" : "scale", &p);
    /* a stack would split by slices: conv2 sees it as one matrix */
    if (s == CLIP_OK && r == R_WHOLE && in) s = clip_data_reshape(in, 2, flat);
    if (s == CLIP_OK) s = clip_process_set_input(p, 0, in);
    if (s == CLIP_OK && r == R_WHOLE) {
        clip_type kt = clip_type_is_double(t) ? CLIP_F64 : CLIP_F32;
        s = clip_data_create_from(app, kt, 2, one, kt == CLIP_F64 ? (const void *)&kv : &kf, &k);
        if (s == CLIP_OK) s = clip_process_set_input(p, 1, k);
        if (s == CLIP_OK) s = clip_process_set_text(p, "pad", "circular");
        if (s == CLIP_OK) s = clip_process_set_text(p, "variant", "global");
        if (s == CLIP_OK) s = clip_process_set_text(p, "separable", "off");
    }
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, &d);
    if (s == CLIP_OK && r == R_WHOLE) s = clip_data_reshape(d, nd, dims);
    CHECK_OK(app, s);
    if (s == CLIP_OK) {
        const int split = strncmp(clip_process_variant(p), "split", 5) == 0;
        CHECK(r == R_WHOLE ? !split : split || clip_app_device_count(app) == 1);
    }
    clip_data_destroy(in);
    clip_data_destroy(k);
    if (s != CLIP_OK) {
        clip_process_destroy(p);
        return NULL;
    }
    *owner = p;
    return clip_data_retain(d);
}

typedef struct res_case {
    const char *what, *name;
    int n_in;
    clip_type types[2];
    size_t dims[2][3];
    param prm[4];
    double tol; /* against the single device (0: bit for bit); other residencies: bit for bit */
    int in_place;
} res_case;

/* Runs the case in `app` with every input in residency r: the output (the caller's), or NULL. */
static clip_data *run_resident(clip_app *app, const res_case *c, clip_data **values, int r,
                               int *ran, char *variant, size_t cap) {
    clip_data *in[2] = {0};
    clip_process *owner[2] = {0}, *p = NULL;
    clip_data *out = NULL;
    *ran = 1;
    for (int i = 0; i < c->n_in; i++) {
        in[i] = resident(app, values[i], r, &owner[i]);
        /* too large for this device to hold: it stays on the host, as the only copy it has */
        if (!in[i] && r != R_HOST) in[i] = resident(app, values[i], R_HOST, &owner[i]);
    }
    int any = 0;
    for (int i = 0; i < c->n_in; i++)
        any |= in[i] && clip_data_bytes(in[i]) <= clip_app_device(app)->max_alloc;
    if (r != R_HOST && r != R_SPLIT && !any) *ran = 0; /* nothing could take residency r */
    clip_status s = *ran ? clip_process_create(app, c->name, &p) : CLIP_ERR_INVALID_ARG;
    for (int i = 0; c->prm[i].name && s == CLIP_OK; i++)
        s = clip_process_set_text(p, c->prm[i].name, c->prm[i].value);
    for (int i = 0; i < c->n_in && s == CLIP_OK; i++)
        s = clip_process_set_input(p, i, in[i]);
    if (s == CLIP_OK && c->in_place) s = clip_process_set_output(p, 0, in[0]);
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    if (s == CLIP_OK) s = clip_process_output(p, 0, &out);
    if (s == CLIP_OK) snprintf(variant, cap, "%s", clip_process_variant(p));
    if (s == CLIP_OK)
        out = copy_to(apps[ONE], out); /* compared in one app, host values */
    else if (*ran)
        fprintf(stderr, "%s (%s): %s\n", c->what, res_names[r], clip_app_last_error(app));
    if (s != CLIP_OK) out = NULL;
    clip_process_destroy(p);
    for (int i = 0; i < c->n_in; i++) {
        clip_data_destroy(in[i]);
        clip_process_destroy(owner[i]);
    }
    return out;
}

static void test_residency(void) {
    /* Each input's first form fits every app's device; larger ones (84000 bytes) exceed the
     * streamed app's allocation, so that app splits (and the inputs it cannot hold stay host
     * data). */
    const res_case cases[] = {
        {"150x140 f32", "scale", 1, {CLIP_F32}, {{150, 140, 1}}, {{"a", "3"}, {"b", "0.5"}}, 0, 0},
        {"150x140 f32 in place",
         "scale",
         1,
         {CLIP_F32},
         {{150, 140, 1}},
         {{"a", "3"}, {"b", "0.5"}},
         0,
         1},
        {"60x70x5 c64 in place", "scale", 1, {CLIP_C64}, {{60, 70, 5}}, {{"a", "-2"}}, 0, 1},
        {"150x140 f32'", "transpose", 1, {CLIP_F32}, {{150, 140, 1}}, {{NULL, NULL}}, 0, 0},
        {"21000 f32 p=2", "norm", 1, {CLIP_F32}, {{21000, 1, 1}}, {{"p", "2"}}, 1e-5, 0},
        {"150x140 f64 p=1", "norm", 1, {CLIP_F64}, {{150, 140, 1}}, {{"p", "1"}}, 0, 0},
        {"9000 f32.c64",
         "dot",
         2,
         {CLIP_F32, CLIP_C64},
         {{9000, 1, 1}, {9000, 1, 1}},
         {{NULL, NULL}},
         1e-4,
         0},
        {"60x150*150x140 f32",
         "matmul",
         2,
         {CLIP_F32, CLIP_F32},
         {{60, 150, 1}, {150, 140, 1}},
         {{NULL, NULL}},
         1e-4,
         0},
        {"150x140 * 5x7 f32",
         "conv2",
         2,
         {CLIP_F32, CLIP_F32},
         {{150, 140, 1}, {5, 7, 1}},
         {{"variant", "global"}, {"separable", "off"}, {"shape", "same"}},
         0,
         0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const res_case *c = &cases[k];
        if (tu_quick() && (k == 2 || k == 5)) continue; /* a second in-place type, norm p=1 */
        clip_data *values[2] = {0};
        for (int i = 0; i < c->n_in; i++)
            values[i] = random_data(apps[ONE], c->types[i], 3, c->dims[i], 81 + k * 2 + (size_t)i);
        char v1[160] = "", v[160] = "";
        int ran = 0;
        clip_data *want = run_resident(apps[ONE], c, values, R_HOST, &ran, v1, sizeof v1);
        CHECK(want != NULL);
        for (int a = TWO; a < N_APPS && want; a++) {
            if (!apps[a]) continue;
            clip_data *base = NULL;
            for (int r = 0; r < N_RES; r++) {
                /* Quick mode (memcheck): the in-place cases take every residency, the others
                 * one of each path (from the host, from the device buffer) */
                if (tu_quick() && !c->in_place && r != R_HOST && r != R_WRITTEN) continue;
                clip_data *got = run_resident(apps[a], c, values, r, &ran, v, sizeof v);
                if (!ran) continue;
                CHECK(got != NULL);
                if (!got) continue;
                /* the host residency against the single device (as test_scale and the others
                 * do); every other residency against the host one: the same pieces */
                double diff = r == R_HOST ? max_rel_diff(got, want) : max_rel_diff(got, base);
                if (r == R_HOST && !uniform(apps[a]))
                    diff = normwise_diff(got, want) <= (c->tol ? c->tol : 1e-12) ? 0 : diff;
                const double tol = r == R_HOST ? c->tol : 0.0;
                const int split = strncmp(v, "split", 5) == 0;
                printf("%-9s %-22s %-10s %-29s diff %.3g  [%s]\n", c->name, c->what, app_names[a],
                       res_names[r], diff, v);
                if (!(diff <= tol))
                    fprintf(stderr, "residency: %s %s on %s, input %s: differs by %g\n", c->name,
                            c->what, app_names[a], res_names[r], diff);
                CHECK(diff <= tol);
                CHECK(split); /* every run here is a split one */
                if (r == R_HOST)
                    base = got;
                else
                    clip_data_destroy(got);
            }
            clip_data_destroy(base);
        }
        clip_data_destroy(want);
        for (int i = 0; i < c->n_in; i++)
            clip_data_destroy(values[i]);
    }
}

/* Issue 46's two reproductions, over 2 and 3 devices: in-place scale of a device-only result
 * (matpow of diag(2) to the power 2, which runs whole, then a = 3: 12 on the diagonal) and of
 * data written by clip_data_write (2, then b = 10: 12). Both read 0 and 10 before the fix. */
static void test_issue46(void) {
    enum { N = 64 };
    for (int a = TWO; a <= THREE; a++) {
        clip_app *app = apps[a];
        if (!app) continue;
        const size_t dims[2] = {N, N};
        double *h = calloc(N * N, sizeof *h), *r = malloc(N * N * sizeof *r);
        for (int i = 0; i < N; i++)
            h[i * N + i] = 2.0;
        for (int rep = 0; rep < 2 && h && r; rep++) {
            clip_data *x = NULL, *y = NULL;
            clip_process *mp = NULL, *sp = NULL;
            if (rep == 0) {
                CHECK_OK(app, clip_data_create_from(app, CLIP_F64, 2, dims, h, &x));
                CHECK_OK(app, clip_process_create(app, "matpow", &mp));
                CHECK_OK(app, clip_process_set_text(mp, "power", "2"));
                CHECK_OK(app, clip_process_set_input(mp, 0, x));
                CHECK_OK(app, clip_process_init(mp));
                CHECK_OK(app, clip_process_launch(mp));
                CHECK_OK(app, clip_process_output(mp, 0, &y));
                CHECK(strncmp(clip_process_variant(mp), "split", 5) != 0);
            } else {
                for (int i = 0; i < N * N; i++)
                    r[i] = 2.0;
                CHECK_OK(app, clip_data_create(app, CLIP_F64, 2, dims, &x));
                CHECK_OK(app, clip_data_write(x, r));
                y = x;
            }
            CHECK_OK(app, clip_process_create(app, "scale", &sp));
            CHECK_OK(app, clip_process_set_text(sp, rep ? "b" : "a", rep ? "10" : "3"));
            CHECK_OK(app, clip_process_set_input(sp, 0, y));
            CHECK_OK(app, clip_process_set_output(sp, 0, y));
            CHECK_OK(app, clip_process_init(sp));
            CHECK(strncmp(clip_process_variant(sp), "split", 5) == 0);
            CHECK_OK(app, clip_process_launch(sp));
            CHECK_OK(app, clip_data_read(y, r));
            int bad = 0;
            for (int i = 0; i < N * N; i++)
                bad += r[i] != (rep || i % (N + 1) == 0 ? 12.0 : 0.0);
            printf("issue 46 %-26s %-10s y(1,1) = %g, %d wrong  [%s]\n",
                   rep ? "clip_data_write, b = 10" : "matpow(diag(2),2), a = 3", app_names[a], r[0],
                   bad, clip_process_variant(sp));
            CHECK(bad == 0);
            clip_process_destroy(sp);
            clip_process_destroy(mp);
            clip_data_destroy(x);
        }
        free(h);
        free(r);
    }
}

/* ---- CLIP_TEST_REINIT: a process whose init depends on a cut input's values ----
 * "first" fills its output with the first element of its input, read at init: wrong for a
 * piece that reuses the previous piece's init (see plan in clip/process_author.h), right when
 * every piece re-inits. So the mode is seen to work: its result is right, the reusing one not. */
typedef struct first_state {
    double first;
} first_state;

static clip_status first_init(clip_process *p) {
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    const void *h = NULL;
    if (clip_data_type(x) != CLIP_F64) return clip_proc_fail(p, CLIP_ERR_TYPE, "input must be f64");
    clip_status s = clip_data_host(x, &h);
    if (s == CLIP_OK && clip_data_numel(x))
        ((first_state *)clip_proc_state(p))->first = ((const double *)h)[0];
    if (s == CLIP_OK) s = clip_proc_output(p, 0, CLIP_F64, 2, clip_data_dims(x), &y);
    return s;
}

static clip_status first_launch(clip_process *p) {
    clip_data *y = NULL;
    cl_mem m = NULL;
    clip_process_output(p, 0, &y);
    clip_status s = clip_proc_write_buffer(p, y, 0, &m);
    const double v = ((first_state *)clip_proc_state(p))->first;
    return s == CLIP_OK ? clip_proc_fill(p, m, &v, sizeof v, 0, clip_data_bytes(y)) : s;
}

/* 16 bands of rows, so that every lane runs several pieces. */
static clip_status first_plan(clip_process *p, clip_plan *pl) {
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    clip_status s = first_init(p);
    (void)y;
    for (size_t b = 0; b < 16 && s == CLIP_OK; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        clip_box_all(x, &pc.in[0]);
        clip_plan_band(clip_data_dim(x, 0), 16, b, &pc.in[0].start[0], &pc.in[0].count[0]);
        pc.keep[0] = pc.in[0];
        pc.keep[0].start[0] = 0;
        pc.at[0][0] = pc.in[0].start[0];
        s = clip_plan_add(pl, &pc);
    }
    return s;
}

static const char *const first_names[] = {"X"};
static const char *const first_docs[] = {"f64 column"};
static const clip_process_desc first_desc = {
    .abi = CLIP_PROCESS_ABI,
    .name = "test_first",
    .summary = "X(1) everywhere (a test of CLIP_TEST_REINIT)",
    .n_inputs = 1,
    .input_names = first_names,
    .input_docs = first_docs,
    .n_outputs = 1,
    .output_names = first_names,
    .output_docs = first_docs,
    .state_size = sizeof(first_state),
    .init = first_init,
    .launch = first_launch,
    .plan = first_plan,
};

static void test_reinit(void) {
    if (!apps[TWO]) return;
    CHECK_OK(NULL, clip_process_register(&first_desc));
    const size_t dims[2] = {160, 1};
    double h[160];
    for (int i = 0; i < 160; i++)
        h[i] = i;
    const char *was = getenv("CLIP_TEST_REINIT");
    char saved[16] = "";
    if (was) snprintf(saved, sizeof saved, "%s", was);
    for (int mode = 0; mode < 2; mode++) {
        setenv("CLIP_TEST_REINIT", mode ? "1" : "0", 1);
        clip_data *x = NULL, *y = NULL;
        clip_process *p = NULL;
        CHECK_OK(apps[TWO], clip_data_create_from(apps[TWO], CLIP_F64, 2, dims, h, &x));
        CHECK_OK(apps[TWO], clip_process_create(apps[TWO], "test_first", &p));
        CHECK_OK(apps[TWO], clip_process_set_input(p, 0, x));
        CHECK_OK(apps[TWO], clip_process_init(p));
        CHECK_OK(apps[TWO], clip_process_launch(p));
        CHECK_OK(apps[TWO], clip_process_output(p, 0, &y));
        const void *r = NULL;
        CHECK_OK(apps[TWO], clip_data_host(y, &r));
        int wrong = 0;
        for (int i = 0; r && i < 160; i++)
            wrong += ((const double *)r)[i] != (double)(i / 10 * 10);
        printf("CLIP_TEST_REINIT=%d: %d of 160 elements from another piece's init\n", mode, wrong);
        CHECK(mode ? wrong == 0 : wrong > 0);
        clip_process_destroy(p);
        clip_data_destroy(x);
    }
    if (was)
        setenv("CLIP_TEST_REINIT", saved, 1);
    else
        unsetenv("CLIP_TEST_REINIT");
}

int main(void) {
    /* PoCL reads this when the ICD loader first loads it: three CPU devices. */
    setenv("POCL_DEVICES", "pthread pthread pthread", 0);
    apps[ONE] = open_app(1, NULL);
    apps[TWO] = open_app(2, NULL);
    /* Quick mode (valgrind): three devices run the code paths two do, a third slower. */
    apps[THREE] = tu_quick() ? NULL : open_app(3, NULL);
    apps[SMALL] = open_app(1, SMALL_ALLOC);
    if (!apps[ONE] || !apps[SMALL]) return 2;
    if (!apps[TWO] || (!apps[THREE] && !tu_quick()))
        printf("test_plan: fewer than 3 devices here; only the streamed runs are checked\n");
    CHECK(clip_app_device_count(apps[ONE]) == 1);
    if (apps[THREE]) CHECK(clip_app_device_count(apps[THREE]) == 3);
    test_specs();
    test_issue46();
    test_residency();
    test_reinit();
    test_transfers();
    test_times_after_unbind();
    test_pending_input();
    test_scale();
    test_dot();
    test_norm();
    test_transpose();
    test_matmul();
    test_streamed_product_plan();
    test_conv2();
    for (int a = 0; a < N_APPS; a++)
        clip_app_destroy(apps[a]);
    return tu_finish("test_plan");
}
