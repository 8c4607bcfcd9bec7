/* clip_process_rebind and clip_process_detach: a kept init gives the values a fresh init gives;
 * an init that read an input's values (conv2's K under separable on) inits again when they change;
 * a descriptor without `rebind` always inits again; other types and shapes are refused and leave
 * the process as it was; outputs are new objects (or the caller's) at every rebind. */
#include "clip/process_author.h"
#include "testutil.h"

#define M 37
#define N 29
#define KM 5
#define KN 3

static clip_data *make(clip_app *app, clip_type t, size_t m, size_t n, unsigned long long seed) {
    clip_data *d = NULL;
    size_t dims[2] = {m, n};
    if (clip_data_create(app, t, 2, dims, &d) != CLIP_OK) return NULL;
    void *h = NULL;
    if (clip_data_host_write(d, &h) != CLIP_OK) return NULL;
    for (size_t i = 0; i < m * n; i++) {
        double v = tu_rand(&seed) - 0.5;
        if (t == CLIP_F32)
            ((float *)h)[i] = (float)v;
        else
            ((double *)h)[i] = v;
    }
    return d;
}

/* A rank-one K: u(:) * v(:).' with u, v from seed. */
static clip_data *rank_one(clip_app *app, unsigned long long seed) {
    clip_data *d = make(app, CLIP_F32, KM, KN, seed);
    void *h = NULL;
    if (!d || clip_data_host_write(d, &h) != CLIP_OK) return NULL;
    double u[KM], v[KN];
    for (int i = 0; i < KM; i++)
        u[i] = tu_rand(&seed) + 0.25;
    for (int j = 0; j < KN; j++)
        v[j] = tu_rand(&seed) - 0.5;
    for (int j = 0; j < KN; j++)
        for (int i = 0; i < KM; i++)
            ((float *)h)[i + j * KM] = (float)(u[i] * v[j]);
    return d;
}

/* conv2(A, K, 'same') in double, compared with c within a few eps of |A| conv |K|. */
static double conv2_err(clip_data *a, clip_data *k, clip_data *c) {
    const float *ha = NULL, *hk = NULL, *hc = NULL;
    if (clip_data_host(a, (const void **)&ha) || clip_data_host(k, (const void **)&hk) ||
        clip_data_host(c, (const void **)&hc))
        return INFINITY;
    const size_t km = clip_data_dim(k, 0), kn = clip_data_dim(k, 1);
    double worst = 0;
    for (long j = 0; j < N; j++)
        for (long i = 0; i < M; i++) {
            double s = 0, bound = 0;
            for (long q = 0; q < (long)kn; q++)
                for (long r = 0; r < (long)km; r++) {
                    long ai = i + (long)km / 2 - r, aj = j + (long)kn / 2 - q;
                    if (ai < 0 || ai >= M || aj < 0 || aj >= N) continue;
                    double t = (double)ha[ai + aj * M] * hk[r + q * km];
                    s += t, bound += fabs(t);
                }
            double e = fabs(hc[i + j * M] - s) / (bound * 1.2e-7 + 1e-30);
            if (e > worst) worst = e;
        }
    return worst;
}

static void check_conv2(clip_app *app) {
    clip_process *p = NULL;
    clip_data *a = make(app, CLIP_F32, M, N, 1), *a2 = make(app, CLIP_F32, M, N, 2);
    clip_data *k = make(app, CLIP_F32, KM, KN, 3), *c = NULL, *c2 = NULL;
    clip_data *in[2] = {a2, k};
    int reinit = -1;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_choice(p, "shape", "same"));
    /* Before any init there is nothing to keep. */
    CHECK_STATUS(app, clip_process_rebind(p, in, NULL, NULL), CLIP_ERR_NOT_INITIALIZED);
    CHECK_MSG(app, "successful init");
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c));
    clip_data_retain(c);
    CHECK(conv2_err(a, k, c) < 8);

    /* Same kinds, other A: init kept, a new output, the old one untouched. */
    CHECK_OK(app, clip_process_rebind(p, in, NULL, &reinit));
    CHECK(reinit == 0);
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c2));
    CHECK(c2 != c);
    CHECK(conv2_err(a2, k, c2) < 8);
    CHECK(conv2_err(a, k, c) < 8);

    /* Other shapes and types are refused; the process keeps its data and init. */
    clip_data *small = make(app, CLIP_F32, M - 1, N, 4), *dbl = make(app, CLIP_F64, M, N, 5);
    clip_data *bad[2] = {small, k};
    CHECK_STATUS(app, clip_process_rebind(p, bad, NULL, &reinit), CLIP_ERR_SHAPE);
    CHECK_MSG(app, "36x29");
    CHECK_MSG(app, "37x29");
    bad[0] = dbl;
    CHECK_STATUS(app, clip_process_rebind(p, bad, NULL, &reinit), CLIP_ERR_TYPE);
    CHECK_MSG(app, "input 0 (A)");
    bad[0] = NULL;
    CHECK_STATUS(app, clip_process_rebind(p, bad, NULL, &reinit), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_process_rebind(p, NULL, NULL, &reinit), CLIP_ERR_INVALID_ARG);
    clip_data *alias[1] = {a2};
    clip_data *c2dims = make(app, CLIP_F32, M, N, 6);
    CHECK_STATUS(app, clip_process_rebind(p, in, alias, &reinit), CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "output 0 is input 0");
    clip_data *c2b = NULL;
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c2b));
    CHECK(c2b == c2);
    CHECK(conv2_err(a2, k, c2) < 8);

    /* The caller's output, then detached: launch and output refused until the next rebind. */
    clip_data *outs[1] = {c2dims};
    in[0] = a;
    CHECK_OK(app, clip_process_rebind(p, in, outs, &reinit));
    CHECK(reinit == 0);
    CHECK_OK(app, clip_process_launch(p));
    CHECK(conv2_err(a, k, c2dims) < 8);
    clip_process_detach(p);
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    CHECK_STATUS(app, clip_process_output(p, 0, &c2b), CLIP_ERR_NOT_INITIALIZED);
    in[0] = a2;
    CHECK_OK(app, clip_process_rebind(p, in, NULL, &reinit));
    CHECK(reinit == 0);
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c2b));
    CHECK(c2b != c2dims);
    CHECK(conv2_err(a2, k, c2b) < 8);

    /* A parameter set since the init: nothing to keep. */
    CHECK_OK(app, clip_process_set_bool(p, "correlate", 0));
    CHECK_STATUS(app, clip_process_rebind(p, in, NULL, &reinit), CLIP_ERR_NOT_INITIALIZED);
    clip_process_destroy(p);
    clip_data_destroy(c);
    clip_data_destroy(small);
    clip_data_destroy(dbl);
    clip_data_destroy(c2dims);
    clip_data_destroy(a);
    clip_data_destroy(a2);
    clip_data_destroy(k);
}

/* separable on reads K's values in init (its rank-one factors live in the process): a K of other
 * values inits again, a K of the same values in another object does not, a K that is not rank
 * one fails as init does. */
static void check_values(clip_app *app) {
    clip_process *p = NULL;
    clip_data *a = make(app, CLIP_F32, M, N, 7), *k1 = rank_one(app, 8), *k2 = rank_one(app, 9);
    clip_data *k1b = NULL, *full = make(app, CLIP_F32, KM, KN, 10), *c = NULL;
    const void *h = NULL;
    size_t kd[2] = {KM, KN};
    CHECK_OK(app, clip_data_host(k1, &h));
    CHECK_OK(app, clip_data_create_from(app, CLIP_F32, 2, kd, h, &k1b));
    int reinit = -1;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    CHECK_OK(app, clip_process_set_choice(p, "shape", "same"));
    CHECK_OK(app, clip_process_set_choice(p, "separable", "on"));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k1));
    CHECK_OK(app, clip_process_init(p));
    CHECK(strstr(clip_process_variant(p), "sep") != NULL);
    clip_data *in[2] = {a, k2};
    CHECK_OK(app, clip_process_rebind(p, in, NULL, &reinit));
    CHECK(reinit == 1);
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c));
    CHECK(conv2_err(a, k2, c) < 64);
    in[1] = k1;
    CHECK_OK(app, clip_process_rebind(p, in, NULL, &reinit));
    CHECK(reinit == 1);
    in[1] = k1b;
    CHECK_OK(app, clip_process_rebind(p, in, NULL, &reinit));
    CHECK(reinit == 0);
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c));
    CHECK(conv2_err(a, k1, c) < 64);
    in[1] = full;
    CHECK_STATUS(app, clip_process_rebind(p, in, NULL, &reinit), CLIP_ERR_PARAM_RANGE);
    CHECK_MSG(app, "not rank one");
    CHECK_STATUS(app, clip_process_launch(p), CLIP_ERR_NOT_INITIALIZED);
    clip_process_destroy(p);
    clip_data_destroy(a);
    clip_data_destroy(k1);
    clip_data_destroy(k1b);
    clip_data_destroy(k2);
    clip_data_destroy(full);
}

/* A chain on the device, rebound: matmul then norm, on a second A. */
static void check_chain(clip_app *app) {
    clip_process *mm = NULL, *nm = NULL;
    clip_data *a = make(app, CLIP_F64, 24, 16, 11), *a2 = make(app, CLIP_F64, 24, 16, 12);
    clip_data *b = make(app, CLIP_F64, 16, 8, 13), *c = NULL, *y = NULL;
    int reinit = -1;
    CHECK_OK(app, clip_process_create(app, "matmul", &mm));
    CHECK_OK(app, clip_process_create(app, "norm", &nm));
    CHECK_OK(app, clip_process_set_choice(nm, "p", "fro"));
    CHECK_OK(app, clip_process_set_input(mm, 0, a));
    CHECK_OK(app, clip_process_set_input(mm, 1, b));
    CHECK_OK(app, clip_process_init(mm));
    CHECK_OK(app, clip_process_output(mm, 0, &c));
    CHECK_OK(app, clip_process_set_input(nm, 0, c));
    CHECK_OK(app, clip_process_init(nm));
    clip_process_detach(mm);
    clip_process_detach(nm);
    for (int round = 0; round < 2; round++) {
        clip_data *x = round ? a2 : a;
        clip_data *in[2] = {x, b};
        CHECK_OK(app, clip_process_rebind(mm, in, NULL, &reinit));
        CHECK(reinit == 0);
        CHECK_OK(app, clip_process_output(mm, 0, &c));
        CHECK_OK(app, clip_process_rebind(nm, &c, NULL, &reinit));
        CHECK(reinit == 0);
        CHECK_OK(app, clip_process_launch(mm));
        CHECK_OK(app, clip_process_launch(nm));
        CHECK_OK(app, clip_process_output(nm, 0, &y));
        const double *hx = NULL, *hb = NULL, *hy = NULL;
        CHECK_OK(app, clip_data_host(x, (const void **)&hx));
        CHECK_OK(app, clip_data_host(b, (const void **)&hb));
        CHECK_OK(app, clip_data_host(y, (const void **)&hy));
        double ss = 0;
        for (int j = 0; j < 8; j++)
            for (int i = 0; i < 24; i++) {
                double s = 0;
                for (int q = 0; q < 16; q++)
                    s += hx[i + q * 24] * hb[q + j * 16];
                ss += s * s;
            }
        CHECK_NEAR(hy[0], sqrt(ss), 1e-12 * sqrt(ss));
        clip_process_detach(nm);
        clip_process_detach(mm);
    }
    clip_process_destroy(mm);
    clip_process_destroy(nm);
    clip_data_destroy(a);
    clip_data_destroy(a2);
    clip_data_destroy(b);
}

/* A process whose descriptor does not declare rebind: a copy whose init counts its calls. */
static int copy_inits;
static clip_status copy_init(clip_process *p) {
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    copy_inits++;
    return clip_proc_output(p, 0, clip_data_type(x), clip_data_ndims(x), clip_data_dims(x), &y);
}
static clip_status copy_launch(clip_process *p) {
    clip_data *y = NULL;
    clip_process_output(p, 0, &y);
    cl_mem xm = NULL, ym = NULL;
    clip_status s = clip_proc_read_buffer(p, clip_proc_input(p, 0), &xm);
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, y, 0, &ym);
    return s == CLIP_OK ? clip_proc_copy(p, xm, 0, ym, 0, clip_data_bytes(y)) : s;
}
static const char *const x_name[] = {"x"}, *const x_doc[] = {"data"};
static const char *const y_name[] = {"y"}, *const y_doc[] = {"a copy of x"};
static const clip_process_desc copy_desc = {
    .abi = CLIP_PROCESS_ABI,
    .name = "rebindtest_copy",
    .summary = "copies x (its descriptor does not declare rebind)",
    .n_inputs = 1,
    .input_names = x_name,
    .input_docs = x_doc,
    .n_outputs = 1,
    .output_names = y_name,
    .output_docs = y_doc,
    .init = copy_init,
    .launch = copy_launch,
};

static void check_undeclared(clip_app *app) {
    CHECK_OK(NULL, clip_process_register(&copy_desc));
    clip_process *p = NULL;
    clip_data *x = make(app, CLIP_F32, 5, 4, 14), *x2 = make(app, CLIP_F32, 5, 4, 15), *y = NULL;
    int reinit = -1;
    CHECK_OK(app, clip_process_create(app, "rebindtest_copy", &p));
    CHECK_OK(app, clip_process_set_input(p, 0, x));
    CHECK_OK(app, clip_process_init(p));
    CHECK(copy_inits == 1);
    CHECK_OK(app, clip_process_rebind(p, &x2, NULL, &reinit));
    CHECK(reinit == 1 && copy_inits == 2);
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &y));
    const float *hx = NULL, *hy = NULL;
    CHECK_OK(app, clip_data_host(x2, (const void **)&hx));
    CHECK_OK(app, clip_data_host(y, (const void **)&hy));
    CHECK(!memcmp(hx, hy, 20 * sizeof *hx));
    clip_process_destroy(p);
    clip_data_destroy(x);
    clip_data_destroy(x2);
}

int main(void) {
    clip_app *app = tu_app();
    check_conv2(app);
    check_values(app);
    check_chain(app);
    check_undeclared(app);
    clip_app_destroy(app);
    return tu_finish("test_rebind");
}
