/* Shared by the conv2 tests (test_conv2.c: direct kernels, test_conv2_sep.c: separable path,
 * test_conv2_fft.c: FFT path): test data kept as complex doubles on the host, a plain
 * double-precision loop that implements MATLAB's conv2 and imfilter's padding from their
 * definitions, and a runner that checks values and the variant a forced run reports. */
#ifndef CLIP_CONV2_TESTUTIL_H
#define CLIP_CONV2_TESTUTIL_H

#include <complex.h>
#include <float.h>
#include <math.h>

#include "testutil.h"

enum { FULL, SAME, VALID };
enum { ZERO, REPLICATE, SYMMETRIC, CIRCULAR };
static const char *const shape_name[] = {"full", "same", "valid"};
static const char *const pad_name[] = {"zero", "replicate", "symmetric", "circular"};
static const clip_type all_types[] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};

/* A host copy of test data as complex doubles (the values the device sees, after rounding). */
typedef struct host_arr {
    size_t dims[3];
    double complex *v;
} host_arr;

/* re + i*im without the multiplication by I, which turns an infinite part into NaNs (CMPLX is
 * missing from some compilers' complex.h). C11 lays a complex out as two reals. */
static inline double complex mkc(double re, double im) {
    double complex z = re;
    ((double *)&z)[1] = im;
    return z;
}

static inline size_t numel3(const size_t *d) {
    return d[0] * d[1] * d[2];
}

/* Data of type t with dims (r, c, s) from h's values, which are rounded to what t stores. */
static inline clip_data *c2_upload(clip_app *app, clip_type t, host_arr *h) {
    size_t n = numel3(h->dims);
    int cx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    double *buf = malloc((n ? n : 1) * 2 * sizeof(double));
    float *fbuf = malloc((n ? n : 1) * 2 * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        double re = creal(h->v[i]), im = cx ? cimag(h->v[i]) : 0.0;
        if (!dbl) re = (float)re, im = (float)im;
        h->v[i] = mkc(re, im);
        if (cx) {
            buf[2 * i] = re, buf[2 * i + 1] = im;
            fbuf[2 * i] = (float)re, fbuf[2 * i + 1] = (float)im;
        } else {
            buf[i] = re;
            fbuf[i] = (float)re;
        }
    }
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create_from(app, t, h->dims[2] == 1 ? 2 : 3, h->dims,
                                        dbl ? (void *)buf : (void *)fbuf, &d));
    free(buf);
    free(fbuf);
    return d;
}

/* Random data of type t with dims (r, c, s) in [-1, 1); fills h with the exact stored values. */
static inline clip_data *make_data(clip_app *app, clip_type t, size_t r, size_t c, size_t s,
                                   unsigned long long seed, host_arr *h) {
    size_t n = r * c * s;
    int cx = clip_type_is_complex(t);
    h->dims[0] = r, h->dims[1] = c, h->dims[2] = s;
    h->v = malloc((n ? n : 1) * sizeof(double complex));
    for (size_t i = 0; i < n; i++) {
        double re = tu_rand(&seed), im = cx ? tu_rand(&seed) : 0.0;
        h->v[i] = mkc(re, im);
    }
    return c2_upload(app, t, h);
}

/* Index x of the padded line of length n, by the definitions of padarray: -1 for a zero. */
static inline long ref_map(long x, long n, int pad) {
    if (x >= 0 && x < n) return x;
    if (pad == ZERO || n == 0) return -1;
    if (pad == REPLICATE) return x < 0 ? 0 : n - 1;
    if (pad == CIRCULAR) return ((x % n) + n) % n;
    while (x < 0 || x >= n)
        x = x < 0 ? -1 - x : 2 * n - 1 - x; /* mirror, edge repeated */
    return x;
}

/* MATLAB's documented sizes per dimension: full max([m+k-1, m, k]), same m, valid
 * max(m - max(0, k-1), 0), written as the documentation states them. */
static inline size_t ref_size(int shape, size_t m, size_t k, long *off) {
    const long lm = (long)m, lk = (long)k;
    long n;
    if (shape == SAME) {
        *off = lk / 2, n = lm;
    } else if (shape == VALID) {
        *off = lk > 1 ? lk - 1 : 0;
        n = lm - (lk - 1 > 0 ? lk - 1 : 0);
        n = n > 0 ? n : 0;
    } else {
        *off = 0, n = lm + lk - 1;
        n = n > lm ? n : lm;
        n = n > lk ? n : lk;
    }
    return (size_t)n;
}

/* C(i,j) = sum_{k,l} Aext(i+oi-k, j+oj-l) * K(k,l), K rotated by 180 degrees when correlating:
 * MATLAB's conv2 definition with the offset of the shape in the full result. Zero padding is
 * skipped, never multiplied (MATLAB sums over the overlap only). */
static inline host_arr ref_conv2(const host_arr *a, const host_arr *k, int shape, int pad, int corr,
                                 int normalize) {
    host_arr c;
    long oi, oj;
    size_t mk = k->dims[0], nk = k->dims[1];
    c.dims[0] = ref_size(shape, a->dims[0], mk, &oi);
    c.dims[1] = ref_size(shape, a->dims[1], nk, &oj);
    c.dims[2] = a->dims[2];
    size_t n = numel3(c.dims);
    c.v = malloc((n ? n : 1) * sizeof(double complex));
    double complex sum = 0;
    for (size_t e = 0; e < mk * nk; e++)
        sum += k->v[e];
    long ma = (long)a->dims[0], na = (long)a->dims[1];
    for (size_t s = 0; s < c.dims[2]; s++)
        for (size_t j = 0; j < c.dims[1]; j++)
            for (size_t i = 0; i < c.dims[0]; i++) {
                double complex acc = 0;
                for (size_t l = 0; l < nk; l++)
                    for (size_t q = 0; q < mk; q++) {
                        long x = ref_map((long)i + oi - (long)q, ma, pad);
                        long y = ref_map((long)j + oj - (long)l, na, pad);
                        if (x < 0 || y < 0) continue;
                        size_t kq = corr ? mk - 1 - q : q, kl = corr ? nk - 1 - l : l;
                        acc += a->v[(size_t)x + (size_t)ma * ((size_t)y + (size_t)na * s)] *
                               k->v[kq + mk * kl];
                    }
                if (normalize) {
                    if (cimag(sum) == 0)
                        acc = mkc(creal(acc) / creal(sum), cimag(acc) / creal(sum));
                    else
                        acc /= sum;
                }
                c.v[i + c.dims[0] * (j + c.dims[1] * s)] = acc;
            }
    return c;
}

static inline double fro(const host_arr *h) {
    double s = 0;
    for (size_t i = 0; i < numel3(h->dims); i++)
        s += creal(h->v[i] * conj(h->v[i]));
    return sqrt(s);
}

/* Compares the device result with the reference: class, size, then the error of the whole array
 * relative to norm(ref) (scale 0) or to `scale` (the FFT path: norm(A) * norm(K)), at most 1e-5
 * single or 1e-12 double as the Octave checks; non-finite values must match. */
static inline int compare_scaled(clip_app *app, clip_data *out, clip_type want, const host_arr *ref,
                                 const char *what, double scale) {
    int bad = 0;
    if (clip_data_type(out) != want) {
        fprintf(stderr, "%s: type %s, want %s\n", what, clip_type_name(clip_data_type(out)),
                clip_type_name(want));
        return 1;
    }
    for (int i = 0; i < 3; i++)
        if (clip_data_dim(out, i) != ref->dims[i]) {
            fprintf(stderr, "%s: dim %d is %zu, want %zu\n", what, i, clip_data_dim(out, i),
                    ref->dims[i]);
            return 1;
        }
    const void *h = NULL;
    if (clip_data_host(out, &h) != CLIP_OK) {
        fprintf(stderr, "%s: read failed: %s\n", what, clip_app_last_error(app));
        return 1;
    }
    int cx = clip_type_is_complex(want), dbl = clip_type_is_double(want);
    double num = 0, den = 0;
    size_t n = numel3(ref->dims);
    for (size_t i = 0; i < n; i++) {
        size_t re = cx ? 2 * i : i;
        double xr = dbl ? ((const double *)h)[re] : ((const float *)h)[re];
        double xi = cx ? (dbl ? ((const double *)h)[re + 1] : ((const float *)h)[re + 1]) : 0.0;
        double rr = creal(ref->v[i]), ri = cimag(ref->v[i]);
        if (!isfinite(rr) || !isfinite(ri) || !isfinite(xr) || !isfinite(xi)) {
            int same = (isnan(rr) == isnan(xr)) && (isnan(ri) == isnan(xi) || !cx) &&
                       (!isinf(rr) || xr == rr) && (!cx || !isinf(ri) || xi == ri);
            if (!same && !bad++)
                fprintf(stderr, "%s: element %zu is %g%+gi, want %g%+gi\n", what, i, xr, xi, rr,
                        ri);
            continue;
        }
        num += (xr - rr) * (xr - rr) + (xi - ri) * (xi - ri);
        den += rr * rr + ri * ri;
    }
    if (scale > 0) den = scale * scale;
    double tol = dbl ? 1e-12 : 1e-5, err = den > 0 ? sqrt(num / den) : sqrt(num);
    if (!(err <= tol)) {
        fprintf(stderr, "%s: relative error %g > %g\n", what, err, tol);
        bad++;
    }
    return bad != 0;
}

static inline int compare(clip_app *app, clip_data *out, clip_type want, const host_arr *ref,
                          const char *what) {
    return compare_scaled(app, out, want, ref, what, 0);
}

/* |h| elementwise (complex modulus): |A| and |K| for the direct-summation error bound. */
static inline host_arr c2_abs(const host_arr *h) {
    host_arr r = *h;
    const size_t n = numel3(h->dims);
    r.v = malloc((n ? n : 1) * sizeof(double complex));
    for (size_t i = 0; i < n; i++)
        r.v[i] = cabs(h->v[i]);
    return r;
}

/* The per-output accuracy contract of the direct paths (processes/conv2.c, "accuracy"): every
 * finite output within tol * eps * B(i) of the double reference, where B = |A| conv |K| with
 * the case's shape, pad and orientation (normalized: B / |sum(K)| + |ref(i)|, the quotient's own
 * rounding). A sum of n products in any order errs by at most about n * eps * B; its rounding
 * errors add like a random walk, so tol grows as sqrt(n): tol = 16 + 2 sqrt(n) with n the
 * filter's taps (complex products round twice). Non-finite outputs are compare()'s business.
 * Returns 1 on a miss (message names the first), with the largest error in eps * B at *worst. */
static inline int compare_elementwise(clip_app *app, clip_data *out, const host_arr *ref,
                                      const host_arr *ha, const host_arr *hk, int shape, int pad,
                                      int corr, int normalize, const char *what, double *worst) {
    const clip_type t = clip_data_type(out);
    const int cx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    const void *h = NULL;
    *worst = 0;
    if (clip_data_host(out, &h) != CLIP_OK) {
        fprintf(stderr, "%s: read failed: %s\n", what, clip_app_last_error(app));
        return 1;
    }
    host_arr aa = c2_abs(ha), ak = c2_abs(hk);
    host_arr b = ref_conv2(&aa, &ak, shape, pad, corr, 0);
    double complex ksum = 0;
    for (size_t e = 0; e < numel3(hk->dims); e++)
        ksum += hk->v[e];
    const double taps = (double)(hk->dims[0] * hk->dims[1]);
    const double eps = dbl ? DBL_EPSILON : FLT_EPSILON, tol = 16 + 2 * sqrt(taps);
    int bad = 0;
    for (size_t i = 0; i < numel3(ref->dims); i++) {
        const size_t re = cx ? 2 * i : i;
        const double xr = dbl ? ((const double *)h)[re] : ((const float *)h)[re];
        const double xi = cx ? (dbl ? ((const double *)h)[re + 1] : ((const float *)h)[re + 1]) : 0;
        const double complex r = ref->v[i];
        double bound = creal(b.v[i]);
        if (normalize) bound = bound / cabs(ksum) + cabs(r);
        const double err = cabs(mkc(xr - creal(r), xi - cimag(r)));
        if (!isfinite(creal(r)) || !isfinite(cimag(r)) || !isfinite(bound)) continue;
        const double units = bound > 0 ? err / (eps * bound) : (err > 0 ? INFINITY : 0);
        if (!(units <= *worst)) *worst = units;
        if (!(units <= tol) && !bad++)
            fprintf(stderr, "%s: output %zu is %.9g%+.9gi, want %.9g%+.9gi: error %.3g eps * "
                            "(|A| conv |K|), allowed %.3g\n",
                    what, i, xr, xi, creal(r), cimag(r), units, tol);
    }
    free(aa.v), free(ak.v), free(b.v);
    return bad != 0;
}

/* Issue 14's high-dynamic-range images (h->dims set by the caller), where an error relative to
 * the image's largest values would swamp the small outputs: a block of 1e6 on a 1e-3
 * background, impulses of +-1e6 on it, a checkerboard of 1e6 and 1e-6, and a star field
 * (background about 5, stars of 60000). */
enum { HDR_BLOCK, HDR_IMPULSES, HDR_CHECKER, HDR_STARS, HDR_KINDS };

static inline void c2_hdr_image(int kind, host_arr *h, unsigned long long seed) {
    const size_t m = h->dims[0], n = h->dims[1];
    h->v = malloc(m * n * sizeof *h->v);
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++) {
            const double r = tu_rand(&seed); /* [-1, 1) */
            double x = 1e-3 * (1.5 + r);
            if (kind == HDR_BLOCK && i >= m / 3 && i < m / 3 + m / 4 && j >= n / 3 &&
                j < n / 3 + n / 4)
                x = 1e6;
            if (kind == HDR_IMPULSES && (i * 7 + j * 13) % 53 == 0) x = r < 0 ? -1e6 : 1e6;
            if (kind == HDR_CHECKER) x = (i + j) % 2 ? 1e6 : 1e-6;
            if (kind == HDR_STARS) x = (i * 31 + j * 17) % 97 == 0 ? 60000 : 5 + r;
            h->v[i + j * m] = x;
        }
}

/* The star field's filter: a Gaussian of sigma 2 centred on hk (dims and values set). */
static inline void c2_gaussian(host_arr *hk) {
    const size_t mk = hk->dims[0], nk = hk->dims[1];
    for (size_t j = 0; j < nk; j++)
        for (size_t i = 0; i < mk; i++) {
            const double di = (double)i - (double)(mk / 2), dj = (double)j - (double)(nk / 2);
            hk->v[i + j * mk] = exp(-(di * di + dj * dj) / 8);
        }
}

/* Frees a case's host copies and destroys its data. */
static inline void c2_release(host_arr *ha, host_arr *hk, clip_data *a, clip_data *k) {
    free(ha->v), free(hk->v);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

/* High-dynamic-range image `kind` of type t (ha->dims set by the caller) and a random mk x nk
 * filter (the Gaussian for the star field), uploaded as *a and *k; the seed advances. */
static inline void c2_hdr_data(clip_app *app, clip_type t, int kind, size_t mk, size_t nk,
                               unsigned long long *seed, host_arr *ha, host_arr *hk, clip_data **a,
                               clip_data **k) {
    c2_hdr_image(kind, ha, (*seed)++);
    *a = c2_upload(app, t, ha);
    *k = make_data(app, t, mk, nk, 1, (*seed)++, hk);
    if (kind == HDR_STARS) {
        c2_gaussian(hk);
        clip_data_destroy(*k);
        *k = c2_upload(app, t, hk);
    }
}

typedef struct conv_case {
    clip_type ta, tk;
    size_t a[3], k[2];
    int shape, pad, corr, normalize;
} conv_case;

/* Whether `variant` names the kind that `reported` (e.g. "block 32x4 2x16 k31x31") describes. */
static inline int variant_is(const char *reported, const char *variant) {
    size_t n = strlen(variant);
    return !strncmp(reported, variant, n) && (reported[n] == ' ' || reported[n] == '\0');
}

/* Creates process `name` (conv2 or conv2sep) with the case's shape, pad, correlate, normalize
 * and `variant`. */
static inline clip_process *c2_process(clip_app *app, const char *name, const conv_case *cc,
                                       const char *variant) {
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, name, &p));
    CHECK_OK(app, clip_process_set_choice(p, "shape", shape_name[cc->shape]));
    CHECK_OK(app, clip_process_set_choice(p, "pad", pad_name[cc->pad]));
    CHECK_OK(app, clip_process_set_bool(p, "correlate", cc->corr));
    CHECK_OK(app, clip_process_set_bool(p, "normalize", cc->normalize));
    CHECK_OK(app, clip_process_set_choice(p, "variant", variant));
    return p;
}

/* Runs conv2 of a and k (host copies ha, hk) with the case's options, `variant` and `sep`
 * ("auto", "on", "off") and checks the result against the reference (relative to norm(A) *
 * norm(K) when `fft_scale`, which also lets auto weigh fft: accuracy normwise). When a variant
 * or separable on is forced, checks that it is the one reported. Returns the process (the
 * caller destroys it) for further checks. */
static inline clip_process *c2_run(clip_app *app, clip_data *a, const host_arr *ha, clip_data *k,
                                   const host_arr *hk, const conv_case *cc, const char *variant,
                                   const char *sep, int fft_scale) {
    clip_process *p = c2_process(app, "conv2", cc, variant);
    CHECK_OK(app, clip_process_set_choice(p, "separable", sep));
    if (fft_scale) CHECK_OK(app, clip_process_set_choice(p, "accuracy", "normwise"));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    clip_data *out = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &out));
    host_arr ref = ref_conv2(ha, hk, cc->shape, cc->pad, cc->corr, cc->normalize);
    char what[320];
    snprintf(what, sizeof what,
             "conv2 %s(%zux%zux%zu)*%s(%zux%zu) %s pad=%s corr=%d norm=%d variant=%s sep=%s [%s]",
             clip_type_name(clip_data_type(a)), ha->dims[0], ha->dims[1], ha->dims[2],
             clip_type_name(clip_data_type(k)), hk->dims[0], hk->dims[1], shape_name[cc->shape],
             pad_name[cc->pad], cc->corr, cc->normalize, variant, sep, clip_process_variant(p));
    tu_checks++;
    double scale = fft_scale ? fro(ha) * fro(hk) : 0;
    if (out)
        tu_failures += compare_scaled(
            app, out, clip_type_promote(clip_data_type(a), clip_data_type(k)), &ref, what, scale);
    /* The direct kernels keep each output's error within the contract's bound (the separable
     * path adds its factors' error and fft is normwise: compare() covers those). */
    const char *got = clip_process_variant(p);
    if (out && strncmp(got, "fft", 3) && strncmp(got, "separable", 9) && numel3(ref.dims) &&
        clip_data_type(out) == clip_type_promote(clip_data_type(a), clip_data_type(k))) {
        double worst = 0;
        tu_checks++;
        tu_failures += compare_elementwise(app, out, &ref, ha, hk, cc->shape, cc->pad, cc->corr,
                                           cc->normalize, what, &worst);
    }
    int empty_in = !numel3(ha->dims) || !hk->dims[0] || !hk->dims[1];
    const char *want = !strcmp(sep, "on") ? "separable" : variant;
    if (strcmp(want, "auto") && numel3(ref.dims) && !empty_in) {
        tu_checks++;
        if (!variant_is(clip_process_variant(p), want)) {
            tu_failures++;
            fprintf(stderr, "%s: variant reported '%s'\n", what, clip_process_variant(p));
        }
    }
    free(ref.v);
    return p;
}

/* c2_run on random data of the case's types and sizes. */
static inline void run_case(clip_app *app, const conv_case *cc, const char *variant,
                            unsigned long long seed) {
    host_arr ha, hk;
    clip_data *a = make_data(app, cc->ta, cc->a[0], cc->a[1], cc->a[2], seed, &ha);
    clip_data *k = make_data(app, cc->tk, cc->k[0], cc->k[1], 1, seed * 7 + 1, &hk);
    clip_process_destroy(c2_run(app, a, &ha, k, &hk, cc, variant, "off", !strcmp(variant, "fft")));
    free(ha.v);
    free(hk.v);
    clip_data_destroy(a);
    clip_data_destroy(k);
}

/* K = u(:)*v(:).' on the host: conv2(u, v, A) is conv2(A, K). */
static inline host_arr ref_outer(const host_arr *u, const host_arr *v) {
    host_arr k;
    const size_t mu = numel3(u->dims), nv = numel3(v->dims);
    k.dims[0] = mu, k.dims[1] = nv, k.dims[2] = 1;
    k.v = malloc((mu * nv > 0 ? mu * nv : 1) * sizeof(double complex));
    for (size_t j = 0; j < nv; j++)
        for (size_t i = 0; i < mu; i++)
            k.v[i + j * mu] = u->v[i] * v->v[j];
    return k;
}

/* Runs conv2sep(u, v, A) (host copies hu, hv, ha) with the case's options (cc->k unused) and
 * `variant`, and checks it against the reference conv2 of A with K = u(:)*v(:).'; a forced
 * variant must be the kernel of both passes ("separable local ... + local ..."). */
static inline void c2sep_run(clip_app *app, clip_data *u, const host_arr *hu, clip_data *v,
                             const host_arr *hv, clip_data *a, const host_arr *ha,
                             const conv_case *cc, const char *variant) {
    clip_process *p = c2_process(app, "conv2sep", cc, variant);
    CHECK_OK(app, clip_process_set_input(p, 0, u));
    CHECK_OK(app, clip_process_set_input(p, 1, v));
    CHECK_OK(app, clip_process_set_input(p, 2, a));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    clip_data *out = NULL;
    CHECK_OK(app, clip_process_output(p, 0, &out));
    host_arr k = ref_outer(hu, hv);
    host_arr ref = ref_conv2(ha, &k, cc->shape, cc->pad, cc->corr, cc->normalize);
    const clip_type t = clip_type_promote(
        clip_type_promote(clip_data_type(u), clip_data_type(v)), clip_data_type(a));
    char what[320];
    snprintf(what, sizeof what,
             "conv2sep %s(%zux%zu) %s(%zux%zu) %s(%zux%zux%zu) %s pad=%s corr=%d norm=%d "
             "variant=%s [%s]",
             clip_type_name(clip_data_type(u)), hu->dims[0], hu->dims[1],
             clip_type_name(clip_data_type(v)), hv->dims[0], hv->dims[1],
             clip_type_name(clip_data_type(a)), ha->dims[0], ha->dims[1], ha->dims[2],
             shape_name[cc->shape], pad_name[cc->pad], cc->corr, cc->normalize, variant,
             clip_process_variant(p));
    tu_checks++;
    if (out) tu_failures += compare(app, out, t, &ref, what);
    const int empty = !numel3(ha->dims) || !k.dims[0] || !k.dims[1] || !numel3(ref.dims);
    if (strcmp(variant, "auto") && !empty) {
        char first[64], second[64];
        snprintf(first, sizeof first, "separable %s ", variant);
        snprintf(second, sizeof second, " + %s ", variant);
        const char *got = clip_process_variant(p);
        tu_checks++;
        if (strncmp(got, first, strlen(first)) || !strstr(got, second)) {
            tu_failures++;
            fprintf(stderr, "%s: variant reported '%s'\n", what, got);
        }
    }
    free(k.v), free(ref.v);
    clip_process_destroy(p);
}

/* conv2 of a and k with the choices in `choices` (name, value, ..., NULL), initialized, for a
 * chain on the device; *out: its output. A check for each call. */
static inline clip_process *c2_chain_conv2(clip_app *app, clip_data *a, clip_data *k,
                                           const char *const *choices, clip_data **out) {
    clip_process *p = NULL;
    CHECK_OK(app, clip_process_create(app, "conv2", &p));
    for (; *choices; choices += 2)
        CHECK_OK(app, clip_process_set_choice(p, choices[0], choices[1]));
    CHECK_OK(app, clip_process_set_input(p, 0, a));
    CHECK_OK(app, clip_process_set_input(p, 1, k));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_output(p, 0, out));
    return p;
}

/* The CLI's result in the CFL file at path (complex single) against ref: a check for the load and
 * one for the values (compare). */
static inline void c2_check_file(clip_app *app, const char *path, const host_arr *ref,
                                 const char *what) {
    clip_data *c = NULL;
    CHECK_OK(app, clip_load(app, path, &c));
    tu_checks++;
    if (c) tu_failures += compare(app, c, CLIP_C32, ref, what);
    clip_data_destroy(c);
}

/* `clip run PROCESS ARGS`, stdout and stderr left in PREFIX_out.txt and PREFIX_err.txt; the exit
 * status (tu_run_tool). */
static inline int c2_run_tool(const char *prefix, const char *process, const char *args) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "run %s %s", process, args);
    return tu_run_tool(prefix, cmd);
}

#endif
