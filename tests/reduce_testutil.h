/* Helpers shared by the reduction tests (test_norm.c, test_dot.c): data from double arrays,
 * random fills, an app without fp64, and reading the clip tool's output. */
#ifndef CLIP_REDUCE_TESTUTIL_H
#define CLIP_REDUCE_TESTUTIL_H

#include "testutil.h"

/* Data of type t, rows x cols, holding re[i] + i*im[i] (im may be NULL) rounded to t. */
static clip_data *rt_make(clip_app *app, clip_type t, size_t rows, size_t cols, const double *re,
                          const double *im) {
    size_t n = rows * cols, dims[2] = {rows, cols};
    double *h = malloc((n ? n : 1) * 2 * sizeof *h);
    for (size_t i = 0; i < n; i++) {
        double r = re[i], m = im ? im[i] : 0;
        switch (t) {
        case CLIP_F32:
            ((float *)h)[i] = (float)r;
            break;
        case CLIP_F64:
            h[i] = r;
            break;
        case CLIP_C32:
            ((float *)h)[2 * i] = (float)r, ((float *)h)[2 * i + 1] = (float)m;
            break;
        case CLIP_C64:
            h[2 * i] = r, h[2 * i + 1] = m;
            break;
        }
    }
    clip_data *d = NULL;
    if (clip_data_create_from(app, t, 2, dims, h, &d) != CLIP_OK) {
        fprintf(stderr, "rt_make: %s\n", clip_app_last_error(app));
        exit(2);
    }
    free(h);
    return d;
}

/* An app whose device counts as lacking fp64 (clip_criteria.disable_fp64); NULL, counted as a
 * failure, when none opens. */
static inline clip_app *rt_app_no_fp64(void) {
    clip_criteria c = {.disable_fp64 = 1};
    clip_app *app = NULL;
    if (clip_app_create(&app, &c) != CLIP_OK) {
        fprintf(stderr, "cannot open an app without fp64: %s\n", clip_app_last_error(NULL));
        tu_failures++;
        return NULL;
    }
    return app;
}

/* |re + i*im| in long double, with hypot's Inf and NaN rules but without hypotl. Under valgrind,
 * x87 code runs in double precision and range, hypotl returns about LDBL_MAX for 3e300 and 4e300,
 * and a long double Inf stored to memory reads back as the largest finite value (isinf() false,
 * (double) Inf): hence double arguments, classified before any long double exists, and a
 * scaling that stays within double's range. */
static inline long double rt_hypotl(double re, double im) {
    if (isinf(re) || isinf(im)) return INFINITY;
    if (isnan(re) || isnan(im)) return NAN;
    long double a = fabs(re), b = fabs(im), big = a > b ? a : b, small = a > b ? b : a;
    if (big == 0) return 0;
    small /= big;
    return big * sqrtl(1 + small * small);
}

static void rt_fill_random(double *v, size_t n, unsigned long long *seed) {
    for (size_t i = 0; i < n; i++)
        v[i] = tu_rand(seed);
}

/* The contents of a (small) text file, or "" when it cannot be read. */
static void rt_read_file(const char *path, char *buf, size_t cap) {
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

#endif
