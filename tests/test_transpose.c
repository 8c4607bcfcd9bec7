/* transpose: A.' and A' of every type, for odd sizes around the 32-wide tiles, vectors, empties
 * and N-D slices, compared bit for bit with the host's transposition; a chain into norm that
 * stays on the device; the CLI. */
#define _POSIX_C_SOURCE 200809L

#include "reduce_testutil.h"

static const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};

/* Transposes A (dims d, 3-D) as type t with clip and checks every element of C against
 * A(i, j, k) -> C(j, i, k), conjugated for complex with conj. */
static void case_t(clip_app *app, clip_process *p, clip_type t, const size_t *d, int conj) {
    const size_t n = d[0] * d[1] * d[2], es = clip_type_size(t);
    unsigned char *h = malloc(n * es + 1);
    unsigned long long seed = 5 + n;
    for (size_t e = 0; e < n * es / 4; e++) {
        float f = (float)tu_rand(&seed);
        memcpy(h + 4 * e, &f, 4);
    }
    clip_data *a = NULL, *c = NULL;
    CHECK_OK(app, clip_data_create_from(app, t, 3, d, h, &a));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_bool(p, "conjugate", conj));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &c));
    const void *ch = NULL;
    CHECK_OK(app, clip_data_host(c, &ch));
    CHECK(c && clip_data_dim(c, 0) == d[1] && clip_data_dim(c, 1) == d[0] &&
          clip_data_dim(c, 2) == d[2] && clip_data_type(c) == t);
    const int cx = clip_type_is_complex(t);
    size_t bad = 0;
    for (size_t k = 0; ch && k < d[2]; k++)
        for (size_t j = 0; j < d[1]; j++)
            for (size_t i = 0; i < d[0]; i++) {
                const unsigned char *src = h + (i + d[0] * (j + d[1] * k)) * es;
                const unsigned char *dst = (const unsigned char *)ch + (j + d[1] * (i + d[0] * k)) * es;
                unsigned char want[16];
                memcpy(want, src, es);
                if (cx && conj) { /* flip the sign bit of the imaginary part */
                    want[es - 1] ^= 0x80;
                }
                bad += memcmp(want, dst, es) != 0;
            }
    tu_checks++;
    if (bad) {
        tu_failures++;
        fprintf(stderr, "transpose %s %zux%zux%zu conj=%d: %zu elements differ\n",
                clip_type_name(t), d[0], d[1], d[2], conj, bad);
    }
    clip_data_destroy(a);
    free(h);
}

static void test_values(clip_app *app, clip_process *p) {
    static const size_t shapes[][3] = {{1, 1, 1}, {1, 7, 1}, {7, 1, 1},  {33, 65, 1},
                                       {65, 33, 2}, {32, 32, 1}, {100, 3, 3}, {0, 3, 1},
                                       {3, 0, 2}, {0, 0, 1}};
    const size_t ns = sizeof shapes / sizeof shapes[0];
    for (int ti = 0; ti < 4; ti++)
        for (size_t s = 0; s < ns; s++)
            for (int conj = 0; conj < 2; conj++)
                case_t(app, p, types[ti], shapes[s], conj);
    CHECK(strstr(clip_process_variant(p), "tiled") != NULL);
}

/* transpose feeds norm(., 1) on the device: norm(A.', 1) = norm(A, Inf); one read at the end. */
static void test_chain(clip_app *app) {
    enum { M = 45, N = 70 };
    double v[M * N];
    unsigned long long seed = 77;
    rt_fill_random(v, M * N, &seed);
    clip_data *a = rt_make(app, CLIP_F64, M, N, v, NULL), *c = NULL, *y = NULL;
    clip_process *tp = NULL, *nm = NULL;
    CHECK_OK(app, clip_process_create(app, "transpose", &tp));
    CHECK_OK(app, clip_process_create(app, "norm", &nm));
    CHECK_OK(app, clip_process_set_input(tp, 0, a));
    CHECK_OK(app, clip_process_init(tp));
    CHECK_OK(app, clip_process_output(tp, 0, &c));
    CHECK_OK(app, clip_process_set_input(nm, 0, c));
    CHECK_OK(app, clip_process_set_real(nm, "p", 1));
    CHECK_OK(app, clip_process_init(nm));
    clip_transfer_stats s0, s1;
    CHECK_OK(app, clip_app_transfer_stats(app, &s0));
    CHECK_OK(app, clip_process_launch(tp));
    CHECK_OK(app, clip_process_launch(nm));
    CHECK_OK(app, clip_process_output(nm, 0, &y));
    const void *h = NULL;
    CHECK_OK(app, clip_data_host(y, &h));
    CHECK_OK(app, clip_app_transfer_stats(app, &s1));
    CHECK(s1.to_host == s0.to_host + 1);
    long double best = 0;
    for (size_t i = 0; i < M; i++) {
        long double s = 0;
        for (size_t j = 0; j < N; j++)
            s += fabsl((long double)v[i + M * j]);
        best = fmaxl(best, s);
    }
    CHECK(h && fabs(*(const double *)h - (double)best) <= 1e-13 * (double)best);
    clip_process_destroy(tp);
    clip_process_destroy(nm);
    clip_data_destroy(a);
}

static void test_cli(clip_app *app) {
    double re[6] = {1, 2, 3, 4, 5, 6}, im[6] = {6, 5, 4, 3, 2, 1};
    clip_data *a = rt_make(app, CLIP_C32, 2, 3, re, im);
    CHECK_OK(app, clip_save(app, "tr_a.cfl", a));
    CHECK(tu_run_tool("tr", "run transpose tr_a.cfl --conjugate -o tr_c.cfl") == 0);
    clip_data *c = NULL;
    CHECK_OK(app, clip_load(app, "tr_c.cfl", &c));
    const void *h = NULL;
    CHECK_OK(app, clip_data_host(c, &h));
    /* C(1, 2) = conj(A(2, 1)) = 2 - 5i: C is 3x2, element (0, 1) at index 3. */
    CHECK(c && clip_data_dim(c, 0) == 3 && ((const float *)h)[6] == 2 &&
          ((const float *)h)[7] == -5);
    clip_data_destroy(c);
    clip_data_destroy(a);
    char out[4096];
    CHECK(tu_run_tool("tr", "help transpose") == 0);
    rt_read_file("tr_out.txt", out, sizeof out);
    CHECK(strstr(out, "--conjugate") != NULL);
}

int main(void) {
    clip_app *app = tu_app();
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "transpose", &p));
    test_values(app, p);
    clip_process_destroy(p);
    test_chain(app);
    test_cli(app);
    clip_app_destroy(app);
    return tu_finish("test_transpose");
}
