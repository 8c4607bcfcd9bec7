/* Shared by the matmul and matpow tests: random matrices of every type with their values kept in
 * double on the host, a plain double-precision product as reference, and an element-wise check
 * against the rounding-error bound of a K-term dot product. */
#ifndef CLIP_GEMM_TESTUTIL_H
#define CLIP_GEMM_TESTUTIL_H

#include "testutil.h"

typedef struct gt_mat {
    clip_type type;
    size_t rows, cols, numel;
    double *re, *im; /* numel each; im is all zero for real types */
} gt_mat;

static const clip_type gt_types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};

/* x as the type stores it (single precision rounds). */
static inline double gt_round(clip_type t, double x) {
    return clip_type_is_double(t) ? x : (double)(float)x;
}

static inline gt_mat gt_alloc(clip_type t, size_t rows, size_t cols) {
    gt_mat m = {t, rows, cols, rows * cols, NULL, NULL};
    m.re = calloc(m.numel + 1, sizeof(double));
    m.im = calloc(m.numel + 1, sizeof(double));
    if (!m.re || !m.im) exit(3);
    return m;
}

static inline void gt_free(gt_mat *m) {
    free(m->re);
    free(m->im);
    m->re = m->im = NULL;
}

/* Random values in [-scale, scale), exactly representable in the type. */
static inline gt_mat gt_random(clip_type t, size_t rows, size_t cols, double scale,
                               unsigned long long *seed) {
    gt_mat m = gt_alloc(t, rows, cols);
    for (size_t i = 0; i < m.numel; i++) {
        m.re[i] = gt_round(t, scale * tu_rand(seed));
        if (clip_type_is_complex(t)) m.im[i] = gt_round(t, scale * tu_rand(seed));
    }
    return m;
}

/* The matrix as clip data of its type, with the given dims (numel must match). */
static inline clip_data *gt_data_nd(clip_app *app, const gt_mat *m, int ndims, const size_t *dims) {
    size_t es = clip_type_size(m->type);
    unsigned char *buf = malloc(m->numel * es + 1);
    if (!buf) exit(3);
    for (size_t i = 0; i < m->numel; i++) {
        double v[2] = {m->re[i], m->im[i]};
        int n = clip_type_is_complex(m->type) ? 2 : 1;
        for (int c = 0; c < n; c++) {
            if (clip_type_is_double(m->type))
                memcpy(buf + i * es + (size_t)c * 8, &v[c], 8);
            else {
                float f = (float)v[c];
                memcpy(buf + i * es + (size_t)c * 4, &f, 4);
            }
        }
    }
    clip_data *d = NULL;
    if (clip_data_create_from(app, m->type, ndims, dims, buf, &d) != CLIP_OK) {
        fprintf(stderr, "data create: %s\n", clip_app_last_error(app));
        exit(3);
    }
    free(buf);
    return d;
}

static inline clip_data *gt_data(clip_app *app, const gt_mat *m) {
    size_t dims[2] = {m->rows, m->cols};
    return gt_data_nd(app, m, 2, dims);
}

/* Element i of data d as (re, im). */
static inline void gt_get(const void *host, clip_type t, size_t i, double *re, double *im) {
    int cx = clip_type_is_complex(t);
    size_t k = i * (cx ? 2 : 1);
    if (clip_type_is_double(t)) {
        *re = ((const double *)host)[k];
        *im = cx ? ((const double *)host)[k + 1] : 0;
    } else {
        *re = ((const float *)host)[k];
        *im = cx ? ((const float *)host)[k + 1] : 0;
    }
}

/* The matrix converted to type t as the device would (rounding to single where t is single). */
static inline gt_mat gt_as(const gt_mat *m, clip_type t) {
    gt_mat r = gt_alloc(t, m->rows, m->cols);
    for (size_t i = 0; i < m->numel; i++) {
        r.re[i] = gt_round(t, m->re[i]);
        r.im[i] = gt_round(t, m->im[i]);
    }
    return r;
}

/* op(M) on the host: M itself (op 0), M.' (1) or M' (2: the imaginary parts negated where M's
 * own type is complex, as MATLAB: ' of a real matrix is its transpose). */
static inline gt_mat gt_op(const gt_mat *m, int op) {
    gt_mat r = gt_alloc(m->type, op ? m->cols : m->rows, op ? m->rows : m->cols);
    const double sign = op == 2 && clip_type_is_complex(m->type) ? -1 : 1;
    for (size_t j = 0; j < m->cols; j++)
        for (size_t i = 0; i < m->rows; i++) {
            size_t from = i + j * m->rows, to = op ? j + i * r.rows : from;
            r.re[to] = m->re[from];
            r.im[to] = sign * m->im[from];
        }
    return r;
}

/* The real type of t's precision. */
static inline clip_type gt_real_type(clip_type t) {
    return clip_type_is_double(t) ? CLIP_F64 : CLIP_F32;
}

/* C = A*B in double, with bound(i,j) = sum_k |A(i,k)| |B(k,j)| (moduli over-estimated by
 * |re| + |im|) for the error check. An operand of a real type multiplies each part of the other
 * alone, as MATLAB's real*complex (no Inf*0 = NaN from a zero imaginary part). */
static inline gt_mat gt_product(const gt_mat *a, const gt_mat *b, clip_type t, gt_mat *bound) {
    gt_mat c = gt_alloc(t, a->rows, b->cols);
    *bound = gt_alloc(CLIP_F64, a->rows, b->cols);
    const int ra = !clip_type_is_complex(a->type), rb = !clip_type_is_complex(b->type);
    for (size_t j = 0; j < b->cols; j++)
        for (size_t i = 0; i < a->rows; i++) {
            double sr = 0, si = 0, sb = 0;
            for (size_t k = 0; k < a->cols; k++) {
                double ar = a->re[i + k * a->rows], ai = a->im[i + k * a->rows];
                double br = b->re[k + j * b->rows], bi = b->im[k + j * b->rows];
                if (rb) {
                    sr += ar * br;
                    si += ai * br;
                } else if (ra) {
                    sr += ar * br;
                    si += ar * bi;
                } else {
                    sr += ar * br - ai * bi;
                    si += ar * bi + ai * br;
                }
                sb += (fabs(ar) + fabs(ai)) * (fabs(br) + fabs(bi));
            }
            c.re[i + j * c.rows] = sr;
            c.im[i + j * c.rows] = clip_type_is_complex(t) ? si : 0; /* NaN*0 is not real data */
            bound->re[i + j * c.rows] = sb;
        }
    return c;
}

/* x matches the reference: NaN for NaN, the same infinity, else within tol. */
static inline int gt_close(double x, double ref, double tol) {
    if (x == ref) return 1; /* also where tol is NaN (a bound over non-finite terms) */
    if (isnan(ref)) return isnan(x);
    if (isinf(ref)) return x == ref;
    return fabs(x - ref) <= tol;
}

/* Checks that d has type `type`, dims rows x cols, and every element within
 * (terms + 4) * 2 * eps * bound of the reference (non-finite ones exactly as gt_close says), where `terms` is the depth of the sums. Returns
 * the number of bad elements (each reported up to a few). */
static inline int gt_check(clip_data *d, clip_type type, const gt_mat *ref, const gt_mat *bound,
                           double terms, const char *what) {
    tu_checks++;
    if (!d || clip_data_type(d) != type || clip_data_dim(d, 0) != ref->rows ||
        clip_data_dim(d, 1) != ref->cols || clip_data_numel(d) != ref->numel) {
        tu_failures++;
        fprintf(stderr, "%s: result missing or of the wrong type/shape\n", what);
        return 1;
    }
    if (ref->numel == 0) return 0;
    const void *h = NULL;
    if (clip_data_host(d, &h) != CLIP_OK) {
        tu_failures++;
        fprintf(stderr, "%s: cannot read the result\n", what);
        return 1;
    }
    double eps = clip_type_is_double(type) ? 0x1p-53 : 0x1p-24;
    int bad = 0;
    for (size_t i = 0; i < ref->numel; i++) {
        double re, im;
        gt_get(h, type, i, &re, &im);
        double tol = (terms + 4) * 2 * eps * bound->re[i] + 1e-300;
        if (!gt_close(re, ref->re[i], tol) || !gt_close(im, ref->im[i], tol)) {
            if (bad++ < 3)
                fprintf(stderr, "%s: element %zu = %.17g%+.17gi, want %.17g%+.17gi (tol %g)\n", what,
                        i, re, im, ref->re[i], ref->im[i], tol);
        }
    }
    if (bad) tu_failures++;
    return bad;
}

/* Checks that d has the reference's type and shape and every element exactly (NaN where the
 * reference is NaN): for products of small integers and infinities, exact in any order of
 * summation. Returns the number of bad elements (each reported up to a few). */
static inline int gt_check_exact(clip_data *d, clip_type type, const gt_mat *ref,
                                 const char *what) {
    tu_checks++;
    const void *h = NULL;
    if (!d || clip_data_type(d) != type || clip_data_dim(d, 0) != ref->rows ||
        clip_data_dim(d, 1) != ref->cols || clip_data_host(d, &h) != CLIP_OK) {
        tu_failures++;
        fprintf(stderr, "%s: result missing or of the wrong type/shape\n", what);
        return 1;
    }
    int bad = 0;
    for (size_t i = 0; i < ref->numel; i++) {
        double re, im;
        gt_get(h, type, i, &re, &im);
        const int ok_re = isnan(ref->re[i]) ? isnan(re) : re == ref->re[i];
        const int ok_im = isnan(ref->im[i]) ? isnan(im) : im == ref->im[i];
        if (!(ok_re && ok_im) && bad++ < 3)
            fprintf(stderr, "%s: element %zu = %g%+gi, want %g%+gi\n", what, i, re, im, ref->re[i],
                    ref->im[i]);
    }
    if (bad) tu_failures++;
    return bad;
}

/* An operand for the real*complex products: small integers (-3 to 3, zeros among them), and
 * for a complex type complex(Inf, 0) first and complex(1, Inf) at element `at`: exact sums in
 * any order, and Inf where a promoted zero imaginary part would make Inf*0 = NaN. */
static inline gt_mat gt_small_ints(clip_type t, size_t rows, size_t cols, size_t at,
                                   unsigned long long *seed) {
    gt_mat m = gt_random(t, rows, cols, 1.0, seed);
    for (size_t i = 0; i < m.numel; i++) {
        m.re[i] = (double)(long)(3.5 * m.re[i]);
        m.im[i] = (double)(long)(3.5 * m.im[i]);
    }
    if (clip_type_is_complex(t) && m.numel > at) {
        m.re[0] = INFINITY, m.im[0] = 0;
        m.re[at] = 1, m.im[at] = INFINITY;
    }
    return m;
}

/* A real*complex case: A (type ta; stored k x m where op[0] transposes, else m x k) and B
 * (type tb, likewise k x n) of gt_small_ints, Inf at element `at` as well as first, and the exact
 * reference R = op(A)*op(B) of type t. The caller frees A, B and R. */
static inline void gt_mixed_case(clip_type ta, clip_type tb, clip_type t, size_t m, size_t k,
                                 size_t n, const int op[2], size_t at, unsigned long long *seed,
                                 gt_mat *A, gt_mat *B, gt_mat *R) {
    *A = gt_small_ints(ta, op[0] ? k : m, op[0] ? m : k, at, seed);
    *B = gt_small_ints(tb, op[1] ? n : k, op[1] ? k : n, at, seed);
    gt_mat opA = gt_op(A, op[0]), opB = gt_op(B, op[1]), bound;
    *R = gt_product(&opA, &opB, t, &bound);
    gt_free(&opA), gt_free(&opB), gt_free(&bound);
}

/* Runs a shell command and returns its exit status (-1 if it did not exit normally). */
static inline int gt_system(const char *cmd) {
    int rc = system(cmd);
    if (rc == -1) return -1;
    return (rc & 0x7f) == 0 ? (rc >> 8) & 0xff : -1;
}

/* Whether the text file at path contains needle. */
static inline int gt_file_has(const char *path, const char *needle) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1) break;
        char *more = realloc(buf, cap * 2);
        if (!more) break;
        buf = more, cap *= 2;
    }
    fclose(f);
    if (!buf) return 0;
    buf[n] = '\0';
    int found = strstr(buf, needle) != NULL;
    free(buf);
    return found;
}

#endif
