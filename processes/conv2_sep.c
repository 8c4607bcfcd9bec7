/* conv2's rank-one test: is the filter the outer product of a column and a row, within the
 * precision of the computation? Then conv2 runs as two 1-D passes (processes/conv2.c).
 *
 * The test is MATLAB's rank(K) == 1 with its default tolerance: the second singular value at
 * most max(size(K)) * eps * s1, eps that of the output type (2^-23 single, 2^-52 double), so a
 * filter rounded from a rank-one one (fspecial('gaussian') in single) passes, and dropping s2 and
 * the rest changes the result by no more than that rounding did. The singular values come from a
 * one-sided Jacobi SVD (Hestenes) in double precision, accurate to ~1e-16 * s1 whatever the
 * condition. Before it, a cheap screen: with K(p, q) the entry of largest modulus, the residual
 * R = K - K(:, q) * K(p, :) / K(p, q) satisfies max|R| <= 2 * s2 (1x1 maximum-volume cross
 * approximation, Goreinov and Tyrtyshnikov), so max|R| > 4 * tol (2 for the bound, 2 for
 * rounding) proves K is not rank one without the O(n^3) SVD. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2.h"

#define JACOBI_SWEEPS 60

/* One-sided Jacobi on the r x c column-major w (c <= r): rotates pairs of columns until all
 * are orthogonal, applying the same rotations to v (c x c, starts as the identity), so that
 * w = G * v throughout for the input G. Returns nothing: after it, the column norms of w are the
 * singular values and w(:, j) / s_j, v(:, j) the singular vectors. */
static void jacobi(double complex *w, double complex *v, size_t r, size_t c) {
    for (int sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
        int rotated = 0;
        for (size_t a = 0; a + 1 < c; a++)
            for (size_t b = a + 1; b < c; b++) {
                double complex *x = w + a * r, *y = w + b * r;
                double al = 0, be = 0;
                double complex ga = 0;
                for (size_t i = 0; i < r; i++) {
                    al += creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
                    be += creal(y[i]) * creal(y[i]) + cimag(y[i]) * cimag(y[i]);
                    ga += conj(x[i]) * y[i];
                }
                const double g = cabs(ga);
                if (!(g > 1e-15 * sqrt(al * be)) || g == 0) continue;
                rotated = 1;
                /* Rephase column b (times conj(ga) / g) so that x^H y = g is real, then a real
                 * rotation:
                 * t = sign(z) / (|z| + sqrt(1 + z^2)), z = (be - al) / (2 g). */
                const double complex ph = ga / g;
                const double z = (be - al) / (2 * g);
                const double t = (z >= 0 ? 1.0 : -1.0) / (fabs(z) + sqrt(1 + z * z));
                const double cs = 1 / sqrt(1 + t * t), sn = cs * t;
                for (size_t i = 0; i < r; i++) {
                    const double complex yb = y[i] * conj(ph);
                    const double complex xa = x[i];
                    x[i] = cs * xa - sn * yb;
                    y[i] = sn * xa + cs * yb;
                }
                double complex *va = v + a * c, *vb = v + b * c;
                for (size_t i = 0; i < c; i++) {
                    const double complex yb = vb[i] * conj(ph);
                    const double complex xa = va[i];
                    va[i] = cs * xa - sn * yb;
                    vb[i] = sn * xa + cs * yb;
                }
            }
        if (!rotated) break;
    }
}

/* Frobenius norm of a vector of n complex values, scaled against overflow. */
static double norm2(const double complex *x, size_t n) {
    double m = 0, s = 0;
    for (size_t i = 0; i < n; i++)
        m = fmax(m, cabs(x[i]));
    if (m == 0) return 0;
    for (size_t i = 0; i < n; i++) {
        const double a = cabs(x[i]) / m;
        s += a * a;
    }
    return m * sqrt(s);
}

int conv2_rank_one(const double *k_re, const double *k_im, size_t mk, size_t nk, double eps,
                   double *col_re, double *col_im, double *row_re, double *row_im, double *s1,
                   double *s2, double *tol) {
    *s1 = *s2 = *tol = 0;
    const size_t n = mk * nk;
    size_t piv = 0;
    double big = 0;
    for (size_t e = 0; e < n; e++) {
        const double a = hypot(k_re[e], k_im ? k_im[e] : 0);
        if (!isfinite(a)) return 0;
        if (a > big) big = a, piv = e;
    }
    if (big == 0) { /* rank zero: zero factors give the zeros (and NaN where A is Inf) */
        for (size_t i = 0; i < mk; i++)
            col_re[i] = col_im[i] = 0;
        for (size_t j = 0; j < nk; j++)
            row_re[j] = row_im[j] = 0;
        return 1;
    }
    const int tr = nk > mk; /* work on K.' when it is wide, so columns are the short side */
    const size_t r = tr ? nk : mk, c = tr ? mk : nk;
    double complex *w = malloc(n * sizeof *w), *v = malloc(c * c * sizeof *v);
    if (!w || !v) {
        free(w), free(v);
        return 0;
    }
#define KV(i, j) (k_re[(i) + (j)*mk] + (k_im ? k_im[(i) + (j)*mk] : 0) * I)
    /* The screen: the cross through the largest entry. */
    const size_t pi = piv % mk, pj = piv / mk;
    const double complex kp = KV(pi, pj);
    double res = 0;
    for (size_t j = 0; j < nk; j++)
        for (size_t i = 0; i < mk; i++)
            res = fmax(res, cabs(KV(i, j) - KV(i, pj) * KV(pi, j) / kp));
    /* Rank one means s2 <= ltol * s1 <= ltol * ||K||_F, and then max|R| <= 2 * s2: so a larger
     * residual (with a factor 2 for rounding) proves K is not rank one. */
    for (size_t j = 0; j < nk; j++)
        for (size_t i = 0; i < mk; i++)
            w[i + j * mk] = KV(i, j);
    const double fro = norm2(w, n), ltol = (double)(mk > nk ? mk : nk) * eps;
    int rank1 = 0;
    if (res > 4 * ltol * fro) {
        *s1 = fro;
        *s2 = res / 2; /* a lower bound of s2 */
        *tol = ltol * fro;
        goto done;
    }
    for (size_t j = 0; j < c; j++)
        for (size_t i = 0; i < r; i++)
            w[i + j * r] = tr ? KV(j, i) : KV(i, j);
#undef KV
    for (size_t e = 0; e < c * c; e++)
        v[e] = 0;
    for (size_t j = 0; j < c; j++)
        v[j + j * c] = 1;
    jacobi(w, v, r, c);
    size_t j1 = 0;
    double a1 = -1, a2 = 0;
    for (size_t j = 0; j < c; j++) {
        const double s = norm2(w + j * r, r);
        if (s > a1) {
            a2 = a1 > a2 ? a1 : a2;
            a1 = s, j1 = j;
        } else if (s > a2) {
            a2 = s;
        }
    }
    *s1 = a1, *s2 = a2, *tol = ltol * a1;
    rank1 = a2 <= *tol;
    if (rank1) {
        /* G = W V^H ~ w1 v1^H with G = K or K.'; each factor gets norm sqrt(s1) so that neither
         * overflows or underflows in single precision where K itself does not. */
        const double sc = sqrt(a1);
        const double complex *w1 = w + j1 * r, *v1 = v + j1 * c;
        for (size_t i = 0; i < r; i++) {
            const double complex x = w1[i] / sc; /* the factor along G's rows */
            if (tr)
                row_re[i] = creal(x), row_im[i] = cimag(x);
            else
                col_re[i] = creal(x), col_im[i] = cimag(x);
        }
        for (size_t j = 0; j < c; j++) {
            const double complex y = conj(v1[j]) * sc; /* along G's columns */
            if (tr)
                col_re[j] = creal(y), col_im[j] = cimag(y);
            else
                row_re[j] = creal(y), row_im[j] = cimag(y);
        }
    }
done:
    free(w);
    free(v);
    return rank1;
}
