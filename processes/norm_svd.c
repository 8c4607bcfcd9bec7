/* norm(A) = norm(A, 2) of a matrix: its largest singular value, as MATLAB's svd-based answer.
 *
 * Method: Golub-Kahan-Lanczos bidiagonalisation on the device (kernels/norm_svd.cl), with full
 * reorthogonalisation (classical Gram-Schmidt, twice, against every earlier basis vector):
 *   v_0 = a fixed pseudo-random unit vector; for j = 0, 1, ...
 *     alpha_j u_j = A v_j   - (its components along u_0..u_j-1)
 *     beta_j v_j+1 = A^H u_j - (its components along v_0..v_j)
 * so that U^H A V = B, upper bidiagonal with diagonal alpha and superdiagonal beta. The
 * largest singular value theta_k of the leading k x k block B_k grows with k towards s_1
 * (interlacing), as the Krylov space of A^H A from v_0 grows; after min(m, n) steps, or at an
 * earlier breakdown (a new vector that is only rounding error: the space is invariant), it IS
 * s_1 up to rounding, because v_0 has a component along s_1's right singular vector. Convergence
 * is fast where s_1 stands apart (Chebyshev-like: a few dozen steps for random matrices);
 * where s_1 and s_2 crowd together theta_k may converge slowly, but then its distance to s_1 is
 * bounded by that to s_2 as well. The full reorthogonalisation keeps U and V orthonormal to
 * working precision, so the singular values of B are those of a matrix within O(eps ||A||) of
 * A: every theta_k is a lower bound of s_1 to rounding and the result's error is a few eps
 * relative (1e-13 or so in double, 1e-6 in single) once converged.
 *
 * theta_k is computed on the host in double from alpha and beta (bisection on the symmetric
 * tridiagonal Golub-Kahan form of B_k, whose eigenvalues are +-the singular values; bisection by
 * Sturm counts is accurate to a few ulps relative for a bidiagonal). Stopping rule: every 8
 * steps alpha and beta are read back, and the run stops when theta grew by at most tol
 * relative over those 8 steps (tol = 1e-14 in double, 1e-7 in single: a growth that slow means
 * the remaining error is below 1e-10 resp. 1e-5 unless convergence were a thousand times slower
 * still, which full reorthogonalisation rules out until the Krylov space is exhausted), at a
 * breakdown, or after min(m, n) steps. The bases hold (m + n) * min(m, n, NORM2_MAX_STEPS)
 * elements; a run that has not converged in NORM2_MAX_STEPS steps fails at launch with
 * CLIP_ERR_UNSUPPORTED and a message rather than answer a guess.
 *
 * Scaling: a first pass finds m = max |a_ij| (norm_lines, NaN-propagating). NaN or Inf give
 * NaN, all zeros 0, as MATLAB's and Octave's norm (their svd makes NaN of an Inf: the singular
 * values of a matrix holding Inf are not defined); otherwise the kernels read 2^e * A with
 * max |2^e a_ij| in [1/2, 1) (exact), and the result is theta * 2^-e, rounded to the input's
 * precision (a single result beyond FLT_MAX is Inf, as MATLAB's).
 *
 * The launch blocks: it reads m and, every 8 steps, alpha and beta back (a few hundred bytes
 * each), which no device-only stopping rule can avoid. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "norm.h"

enum { NORM2_BLOCK = 8, NORM2_MAX_STEPS = 2048 };

clip_status norm_svd_init(clip_process *p, norm_svd *s, clip_data *x) {
    s->m = clip_data_dim(x, 0), s->n = clip_data_dim(x, 1);
    s->t = clip_data_type(x);
    const size_t mn = s->m < s->n ? s->m : s->n;
    s->kmax = mn < NORM2_MAX_STEPS ? mn : NORM2_MAX_STEPS;
    const clip_type rt = clip_type_is_double(s->t) ? CLIP_F64 : CLIP_F32;
    const size_t es = clip_type_size(s->t), rs = clip_type_size(rt);
    const clip_device_info *dev = clip_proc_device(p);
    size_t local = dev->type == CLIP_DEVICE_CPU ? 16 : 256;
    while (local > 1 && local > dev->max_work_group)
        local /= 2;
    s->local = local;
    clip_status st = norm_lines_init(p, &s->maxabs, x, 0, INFINITY, 1);
    char opts[32];
    snprintf(opts, sizeof opts, "-DLOCAL=%zu", local);
    if (st == CLIP_OK) st = clip_proc_kernel(p, "norm_svd", s->t, opts, "svd_gemv_n", &s->gemv_n);
    if (st == CLIP_OK) st = clip_proc_kernel(p, "norm_svd", s->t, opts, "svd_gemv_h", &s->gemv_h);
    if (st == CLIP_OK) st = clip_proc_kernel(p, "norm_svd", s->t, opts, "svd_norm", &s->nrm);
    if (st == CLIP_OK) st = clip_proc_kernel(p, "norm_svd", s->t, opts, "svd_start", &s->start);
    if (st == CLIP_OK) st = clip_proc_temp(p, s->m * s->kmax * es, &s->u);
    if (st == CLIP_OK) st = clip_proc_temp(p, s->n * (s->kmax + 1) * es, &s->v);
    if (st == CLIP_OK) st = clip_proc_temp(p, s->kmax * es, &s->c);
    if (st == CLIP_OK) st = clip_proc_temp(p, 2 * rs, &s->pre);
    const size_t one[2] = {1, 1}, abd[2] = {s->kmax, 2};
    if (st == CLIP_OK) st = clip_data_create(clip_proc_app(p), rt, 2, one, &s->probe);
    if (st == CLIP_OK) st = clip_data_create(clip_proc_app(p), rt, 2, abd, &s->ab);
    if (st != CLIP_OK) return st;
    char variant[64];
    snprintf(variant, sizeof variant, "matrix-2 lanczos<=%zu l%zu", s->kmax, local);
    clip_proc_set_variant(p, variant);
    return CLIP_OK;
}

void norm_svd_release(norm_svd *s) {
    clip_data_destroy(s->probe);
    clip_data_destroy(s->ab);
    s->probe = s->ab = NULL;
}

/* The largest singular value of the k x (k+1) upper bidiagonal [B_k, beta(k-1) e_k] (diagonal
 * a, superdiagonal b): the largest eigenvalue of the (2k+1)-square tridiagonal with zero
 * diagonal and off-diagonal a0, b0, a1, b1, ..., a(k-1), b(k-1), by bisection on Sturm counts.
 * Its singular values are the Ritz values of A A^H on span(U_k): sigma_max = ||U_k^H A||, a
 * lower bound of s_1 that B_k's own would undercut where n > m. */
static double bidiag_smax(const double *a, const double *b, size_t k) {
    const size_t n2 = 2 * k + 1;
    double hi = 0;
    /* e(i), linking rows i and i+1, is a(i/2) for even i and b(i/2) for odd i. */
    for (size_t i = 0; i < n2; i++) { /* Gershgorin: |e(i-1)| + |e(i)| */
        const double l = i ? (i % 2 ? a[i / 2] : b[i / 2 - 1]) : 0;
        const double r = i + 1 < n2 ? (i % 2 ? b[i / 2] : a[i / 2]) : 0;
        hi = fmax(hi, fabs(l) + fabs(r));
    }
    if (hi == 0) return 0;
    hi *= 1 + 4 * DBL_EPSILON;
    double lo = 0;
    for (int it = 0; it < 200 && hi - lo > 2 * DBL_EPSILON * hi; it++) {
        const double x = 0.5 * (lo + hi);
        size_t below = 0; /* eigenvalues < x: negative pivots of T - x I = L D L^T */
        double d = 1;
        for (size_t i = 0; i < n2; i++) {
            const double e = i ? (i % 2 ? a[i / 2] : b[i / 2 - 1]) : 0;
            d = -x - (i ? e * e / d : 0);
            if (d == 0) d = -DBL_MIN;
            below += d < 0;
        }
        if (below == n2)
            hi = x;
        else
            lo = x;
    }
    return 0.5 * (lo + hi);
}

/* Argument setting with one status: each call a no-op after the first failure. */
typedef struct args {
    clip_process *p;
    cl_kernel k;
    cl_uint i;
    clip_status s;
} args;
static void arg(args *a, size_t size, const void *v) {
    if (a->s == CLIP_OK) a->s = clip_proc_arg(a->p, a->k, a->i, size, v);
    a->i++;
}

/* y (at yoff) = 2^e * M[:, 0:cols] x, or y -= M[:, 0:cols] x with sub. */
static clip_status gemv_n(clip_process *p, norm_svd *s, cl_mem M, cl_ulong moff, cl_ulong ld,
                          cl_uint rows, cl_uint cols, cl_mem x, cl_ulong xoff, cl_mem y,
                          cl_ulong yoff, cl_int e, cl_int sub) {
    args a = {p, s->gemv_n, 0, CLIP_OK};
    arg(&a, sizeof M, &M), arg(&a, sizeof moff, &moff), arg(&a, sizeof ld, &ld);
    arg(&a, sizeof rows, &rows), arg(&a, sizeof cols, &cols), arg(&a, sizeof x, &x);
    arg(&a, sizeof xoff, &xoff), arg(&a, sizeof y, &y), arg(&a, sizeof yoff, &yoff);
    arg(&a, sizeof e, &e), arg(&a, sizeof sub, &sub);
    const size_t global = rows;
    return a.s == CLIP_OK ? clip_proc_enqueue(p, s->gemv_n, 1, &global, NULL) : a.s;
}

/* y[j] (at yoff) = 2^e * M[:, j]^H x for j < cols. */
static clip_status gemv_h(clip_process *p, norm_svd *s, cl_mem M, cl_ulong moff, cl_ulong ld,
                          cl_uint rows, cl_uint cols, cl_mem x, cl_ulong xoff, cl_mem y,
                          cl_ulong yoff, cl_int e) {
    args a = {p, s->gemv_h, 0, CLIP_OK};
    arg(&a, sizeof M, &M), arg(&a, sizeof moff, &moff), arg(&a, sizeof ld, &ld);
    arg(&a, sizeof rows, &rows), arg(&a, sizeof x, &x), arg(&a, sizeof xoff, &xoff);
    arg(&a, sizeof y, &y), arg(&a, sizeof yoff, &yoff), arg(&a, sizeof e, &e);
    const size_t global = (size_t)cols * s->local;
    return a.s == CLIP_OK ? clip_proc_enqueue(p, s->gemv_h, 1, &global, &s->local) : a.s;
}

/* out[idx] = ||w||; with normalize, w /= it (or w = 0, out 0, below floor_rel * pre[0]). */
static clip_status vnorm(clip_process *p, norm_svd *s, cl_mem w, cl_ulong woff, cl_uint len,
                         cl_mem out, cl_uint idx, cl_int normalize, double floor_rel) {
    args a = {p, s->nrm, 0, CLIP_OK};
    const float ff = (float)floor_rel;
    const int dbl = clip_type_is_double(s->t);
    arg(&a, sizeof w, &w), arg(&a, sizeof woff, &woff), arg(&a, sizeof len, &len);
    arg(&a, sizeof out, &out), arg(&a, sizeof idx, &idx), arg(&a, sizeof normalize, &normalize);
    arg(&a, sizeof s->pre, &s->pre);
    arg(&a, dbl ? sizeof floor_rel : sizeof ff, dbl ? (const void *)&floor_rel : (const void *)&ff);
    return a.s == CLIP_OK ? clip_proc_enqueue(p, s->nrm, 1, &s->local, &s->local) : a.s;
}

/* One half-step into column j of W (len x ...): w = 2^e * A z (adjoint 0) or 2^e * A^H z,
 * z being column zj of Z; then Gram-Schmidt twice against W's columns 0..j-1 (whose
 * coefficients go to s->c), and the normalisation into ab[idx]. */
static clip_status half_step(clip_process *p, norm_svd *s, cl_mem a, int adjoint, cl_mem Z,
                             size_t zlen, size_t zj, cl_mem W, size_t len, size_t j, cl_mem ab,
                             cl_uint idx, int e, double floor_rel) {
    const cl_ulong wo = (cl_ulong)j * len, zo = (cl_ulong)zj * zlen;
    clip_status st = adjoint ? gemv_h(p, s, a, 0, s->m, (cl_uint)s->m, (cl_uint)s->n, Z, zo, W, wo, e)
                             : gemv_n(p, s, a, 0, s->m, (cl_uint)s->m, (cl_uint)s->n, Z, zo, W, wo,
                                      e, 0);
    if (st == CLIP_OK) st = vnorm(p, s, W, wo, (cl_uint)len, s->pre, 0, 0, 0);
    for (int pass = 0; pass < 2 && j > 0 && st == CLIP_OK; pass++) {
        st = gemv_h(p, s, W, 0, len, (cl_uint)len, (cl_uint)j, W, wo, s->c, 0, 0);
        if (st == CLIP_OK)
            st = gemv_n(p, s, W, 0, len, (cl_uint)len, (cl_uint)j, s->c, 0, W, wo, 0, 1);
    }
    if (st == CLIP_OK) st = vnorm(p, s, W, wo, (cl_uint)len, ab, idx, 1, floor_rel);
    return st;
}

/* Reads the ab data back (blocking) into alpha, beta as doubles. */
static clip_status read_ab(norm_svd *s, double *alpha, double *beta, size_t k) {
    const void *h = NULL;
    clip_status st = clip_data_host(s->ab, &h);
    if (st != CLIP_OK) return st;
    const int dbl = clip_type_is_double(s->t);
    for (size_t i = 0; i < k; i++) {
        alpha[i] = dbl ? ((const double *)h)[i] : ((const float *)h)[i];
        beta[i] = dbl ? ((const double *)h)[s->kmax + i] : ((const float *)h)[s->kmax + i];
    }
    return CLIP_OK;
}

/* Fills the 1x1 output with v in its precision. */
static clip_status put(clip_process *p, norm_svd *s, cl_mem out, double v) {
    if (clip_type_is_double(s->t)) return clip_proc_fill(p, out, &v, sizeof v, 0, sizeof v);
    const float f = (float)v;
    return clip_proc_fill(p, out, &f, sizeof f, 0, sizeof f);
}

clip_status norm_svd_launch(clip_process *p, norm_svd *s, cl_mem a, cl_mem out) {
    cl_mem probe = NULL, ab = NULL;
    clip_status st = clip_proc_write_buffer(p, s->probe, 0, &probe);
    if (st == CLIP_OK) st = norm_lines_launch(p, &s->maxabs, a, probe);
    const void *h = NULL;
    if (st == CLIP_OK) st = clip_data_host(s->probe, &h);
    if (st != CLIP_OK) return st;
    const int dbl = clip_type_is_double(s->t);
    const double mx = dbl ? *(const double *)h : *(const float *)h;
    if (isinf(mx)) return put(p, s, out, NAN); /* as the svd behind MATLAB's and Octave's */
    if (!(mx > 0)) return put(p, s, out, mx);   /* NaN, or all zeros */
    int ex = 0;
    frexp(mx, &ex); /* mx = f * 2^ex, f in [1/2, 1) */
    const int e = -ex;
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    const double tol = dbl ? 1e-14 : 1e-7;
    /* Below this share of its norm before Gram-Schmidt a new vector is rounding error. */
    const double fl_u = 4 * eps * sqrt((double)s->m), fl_v = 4 * eps * sqrt((double)s->n);

    double *alpha = malloc(2 * s->kmax * sizeof *alpha), *beta = alpha ? alpha + s->kmax : NULL;
    if (!alpha) return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "out of memory");
    const size_t nreal = s->n * (clip_type_is_complex(s->t) ? 2 : 1);
    const cl_uint nr = (cl_uint)nreal;
    const size_t global = nreal;
    st = clip_proc_write_buffer(p, s->ab, 0, &ab);
    args ar = {p, s->start, 0, st};
    arg(&ar, sizeof s->v, &s->v), arg(&ar, sizeof nr, &nr);
    st = ar.s;
    if (st == CLIP_OK) st = clip_proc_enqueue(p, s->start, 1, &global, NULL);
    if (st == CLIP_OK) st = vnorm(p, s, s->v, 0, (cl_uint)s->n, s->pre, 1, 1, 0);
    double theta = 0, last = 0;
    size_t k = 0;
    int done = 0;
    while (st == CLIP_OK && !done) {
        const size_t stop = k + NORM2_BLOCK < s->kmax ? k + NORM2_BLOCK : s->kmax;
        for (; k < stop && st == CLIP_OK; k++) {
            st = half_step(p, s, a, 0, s->v, s->n, k, s->u, s->m, k, ab, (cl_uint)k, e, fl_u);
            if (st == CLIP_OK)
                st = half_step(p, s, a, 1, s->u, s->m, k, s->v, s->n, k + 1, ab,
                               (cl_uint)(s->kmax + k), e, fl_v);
        }
        if (st == CLIP_OK) st = read_ab(s, alpha, beta, k);
        if (st == CLIP_OK) st = clip_proc_write_buffer(p, s->ab, 1, &ab);
        if (st != CLIP_OK) break;
        theta = bidiag_smax(alpha, beta, k);
        int broke = 0;
        for (size_t i = 0; i < k; i++)
            broke |= alpha[i] == 0 || beta[i] == 0;
        /* After min(m, n) steps the Krylov space is exhausted; NORM2_MAX_STEPS may stop short. */
        const int exhausted = k == (s->m < s->n ? s->m : s->n);
        done = broke || exhausted || (k > NORM2_BLOCK && theta - last <= tol * theta);
        if (!done && k == s->kmax) break;
        last = theta;
    }
    free(alpha);
    if (st != CLIP_OK) return st;
    if (!done)
        return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED,
                              "the 2-norm did not converge in %zu Lanczos steps", s->kmax);
    return put(p, s, out, ldexp(theta, -e));
}
