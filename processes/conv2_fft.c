/* conv2's FFT path through clFFT (built only where CMake found clFFT: CLIP_HAVE_CLFFT).
 *
 * Per launch (kernels/conv2.cl, KERNEL 6, documents the index algebra):
 *   gather   A's window, padding applied, into S planes of P x Q, and the filter into plane S+1;
 *            gate[0] = 1 if any of those values is Inf or NaN (conv2.c then reruns the direct
 *            kernel, gated on the device, so MATLAB's local NaN/Inf survive)
 *   forward  one batched transform of the S+1 planes (real-to-Hermitian for real types,
 *            out of place; complex in place)
 *   product  every slice's spectrum times the filter's
 *   inverse  one batched transform of the S planes (clFFT scales by 1/(PQ))
 *   crop     C from the shifted window, divided by sum(K) for `normalize`
 * Accuracy: the error is relative to norm(A) * norm(K) (a few eps * log2(PQ)), not to each
 * output: outputs much smaller than their neighbours lose digits that the direct path keeps.
 * clFFT is set up once per process lifetime (pthread_once) and torn down at exit (atexit): a
 * teardown any earlier would destroy the plans of every other app. */
#include <stdlib.h>

#include "conv2.h"
#include "fault.h"

/* Smallest 2,3,5,7-smooth integer >= n (clFFT's fast radices). */
static size_t smooth(size_t n) {
    for (size_t m = n < 1 ? 1 : n;; m++) {
        size_t r = m;
        for (size_t f = 2; f <= 7; f++)
            while (r % f == 0)
                r /= f;
        if (r == 1) return m;
    }
}

void conv2_fft_sizes(const conv2_geom *g, size_t *P, size_t *Q) {
    *P = smooth(g->mo + g->mk - 1);
    *Q = smooth(g->no + g->nk - 1);
}

#ifndef CLIP_HAVE_CLFFT

int conv2_fft_available(void) {
    return 0;
}

clip_status conv2_fft_init(clip_process *p, const conv2_geom *g, int normalize, conv2_fft **out) {
    (void)g, (void)normalize;
    *out = NULL;
    return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED, CONV2_NO_FFT);
}

clip_status conv2_fft_launch(clip_process *p, conv2_fft *f, const cl_mem *bufs, cl_mem kinfo,
                             cl_mem gate) {
    (void)f, (void)bufs, (void)kinfo, (void)gate;
    return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED, CONV2_NO_FFT);
}

void conv2_fft_release(conv2_fft *f) {
    (void)f;
}

#else

#include <clFFT.h>
#include <pthread.h>

struct conv2_fft {
    clfftPlanHandle fwd, inv;
    int have_fwd, have_inv;
    int cx;
    size_t P, Q, S, mo, no, mk, nk, nspec;
    cl_mem E, X, tmp;
    cl_kernel gather, mul, crop;
    cl_int normalize;
    conv2_geom g;
};

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static clfftStatus setup_status = CLFFT_SUCCESS;

/* clfftInitSetupData is a C `__inline` without an external definition (no symbol to link at
 * -O0), so the fields are set here as it sets them. */
static void teardown(void) {
    clfftTeardown();
}

static void setup(void) {
    clfftSetupData d = {clfftVersionMajor, clfftVersionMinor, clfftVersionPatch, 0};
    setup_status = clfftSetup(&d);
    /* Without a teardown clFFT prints a warning from its static destructor at exit. */
    if (setup_status == CLFFT_SUCCESS) atexit(teardown);
}

int conv2_fft_available(void) {
    return 1;
}

static clip_status fft_fail(clip_process *p, const char *what, clfftStatus e) {
    return clip_proc_fail(p,
                          e == CLFFT_OUT_OF_HOST_MEMORY || e == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                                  e == CL_OUT_OF_RESOURCES
                              ? CLIP_ERR_OUT_OF_MEMORY
                              : CLIP_ERR_OPENCL,
                          "variant fft: clFFT %s failed (status %d)", what, (int)e);
}

/* One batched 2-D plan over planes of P x Q (column-major: P is the fastest length). */
static clfftStatus make_plan(clip_process *p, conv2_fft *f, int forward, clfftPlanHandle *h) {
    size_t len[2] = {f->P, f->Q};
    const size_t hp = f->P / 2 + 1;
    size_t rs[2] = {1, f->P}, hs[2] = {1, hp};
    clfftStatus e = CLIP_FAULT(CLIP_FAULT_ALLOC)
                        ? CLFFT_OUT_OF_HOST_MEMORY
                        : clfftCreateDefaultPlan(h, clip_proc_cl_context(p), CLFFT_2D, len);
    if (e != CLFFT_SUCCESS) return e;
    e = clfftSetPlanPrecision(*h, clip_type_is_double(f->g.t) ? CLFFT_DOUBLE : CLFFT_SINGLE);
    if (e == CLFFT_SUCCESS) e = clfftSetPlanBatchSize(*h, forward ? f->S + 1 : f->S);
    if (f->cx) {
        if (e == CLFFT_SUCCESS)
            e = clfftSetLayout(*h, CLFFT_COMPLEX_INTERLEAVED, CLFFT_COMPLEX_INTERLEAVED);
        if (e == CLFFT_SUCCESS) e = clfftSetResultLocation(*h, CLFFT_INPLACE);
        if (e == CLFFT_SUCCESS) e = clfftSetPlanInStride(*h, CLFFT_2D, rs);
        if (e == CLFFT_SUCCESS) e = clfftSetPlanOutStride(*h, CLFFT_2D, rs);
        if (e == CLFFT_SUCCESS) e = clfftSetPlanDistance(*h, f->P * f->Q, f->P * f->Q);
    } else {
        if (e == CLFFT_SUCCESS)
            e = forward ? clfftSetLayout(*h, CLFFT_REAL, CLFFT_HERMITIAN_INTERLEAVED)
                        : clfftSetLayout(*h, CLFFT_HERMITIAN_INTERLEAVED, CLFFT_REAL);
        if (e == CLFFT_SUCCESS) e = clfftSetResultLocation(*h, CLFFT_OUTOFPLACE);
        if (e == CLFFT_SUCCESS) e = clfftSetPlanInStride(*h, CLFFT_2D, forward ? rs : hs);
        if (e == CLFFT_SUCCESS) e = clfftSetPlanOutStride(*h, CLFFT_2D, forward ? hs : rs);
        if (e == CLFFT_SUCCESS)
            e = forward ? clfftSetPlanDistance(*h, f->P * f->Q, hp * f->Q)
                        : clfftSetPlanDistance(*h, hp * f->Q, f->P * f->Q);
    }
    cl_command_queue q = clip_proc_cl_queue(p);
    if (e == CLFFT_SUCCESS)
        e = CLIP_FAULT(CLIP_FAULT_BUILD) ? CLFFT_BUILD_PROGRAM_FAILURE
                                         : clfftBakePlan(*h, 1, &q, NULL, NULL);
    /* The caller owns the plan only when this succeeds. */
    if (e != CLFFT_SUCCESS) clfftDestroyPlan(h);
    return e;
}

clip_status conv2_fft_init(clip_process *p, const conv2_geom *g, int normalize, conv2_fft **out) {
    *out = NULL;
    pthread_once(&setup_once, setup);
    if (setup_status != CLFFT_SUCCESS) return fft_fail(p, "setup", setup_status);
    conv2_fft *f = calloc(1, sizeof *f);
    if (!f) return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "out of memory");
    *out = f;
    f->g = *g;
    f->cx = clip_type_is_complex(g->t);
    conv2_fft_sizes(g, &f->P, &f->Q);
    f->S = g->slices, f->mo = g->mo, f->no = g->no, f->mk = g->mk, f->nk = g->nk;
    f->normalize = normalize;
    if (f->P >= ((size_t)1 << 30) || f->Q >= ((size_t)1 << 30))
        return clip_proc_fail(p, CLIP_ERR_SHAPE, "variant fft: transform of %zux%zu is too large",
                              f->P, f->Q);
    const size_t esz = clip_type_size(g->t), csz = 2 * esz / (f->cx ? 2 : 1);
    f->nspec = f->cx ? f->P * f->Q : (f->P / 2 + 1) * f->Q;
    clip_status s = clip_proc_temp(p, (f->S + 1) * f->P * f->Q * esz, &f->E);
    if (s == CLIP_OK && !f->cx) s = clip_proc_temp(p, (f->S + 1) * f->nspec * csz, &f->X);
    if (s != CLIP_OK) return s;
    clfftStatus e = make_plan(p, f, 1, &f->fwd);
    f->have_fwd = e == CLFFT_SUCCESS;
    if (e == CLFFT_SUCCESS) {
        e = make_plan(p, f, 0, &f->inv);
        f->have_inv = e == CLFFT_SUCCESS;
    }
    if (e != CLFFT_SUCCESS) return fft_fail(p, "plan", e);
    size_t t1 = 0, t2 = 0;
    e = clfftGetTmpBufSize(f->fwd, &t1);
    if (e == CLFFT_SUCCESS) e = clfftGetTmpBufSize(f->inv, &t2);
    if (e != CLFFT_SUCCESS) return fft_fail(p, "temporary size", e);
    if (t1 < t2) t1 = t2;
    if (t1) s = clip_proc_temp(p, t1, &f->tmp);
    char opts[64];
    snprintf(opts, sizeof opts, "-DKERNEL=6 -DPAD=%d", g->pad);
    if (s == CLIP_OK) s = clip_proc_kernel(p, "conv2", g->t, opts, "conv2_fft_gather", &f->gather);
    if (s == CLIP_OK) s = clip_proc_kernel(p, "conv2", g->t, opts, "conv2_fft_mul", &f->mul);
    if (s == CLIP_OK) s = clip_proc_kernel(p, "conv2", g->t, opts, "conv2_fft_crop", &f->crop);
    return s;
}

/* Sets the arguments of k from a list of (size, pointer) pairs. */
static clip_status args(clip_process *p, cl_kernel k, int n, const size_t *sizes,
                        const void *const *vals) {
    clip_status s = CLIP_OK;
    for (int i = 0; i < n && s == CLIP_OK; i++)
        s = clip_proc_arg(p, k, (cl_uint)i, sizes[i], vals[i]);
    return s;
}

static size_t round_up(size_t n, size_t m) {
    return (n + m - 1) / m * m;
}

static clip_status transform(clip_process *p, clfftPlanHandle h, clfftDirection dir, cl_mem in,
                             cl_mem out, cl_mem tmp) {
    cl_command_queue q = clip_proc_cl_queue(p);
    cl_event ev = NULL;
    clfftStatus e =
        CLIP_FAULT(CLIP_FAULT_ENQUEUE)
            ? CLFFT_OUT_OF_RESOURCES
            : clfftEnqueueTransform(h, dir, 1, &q, 0, NULL, &ev, &in, out ? &out : NULL, tmp);
    if (e != CLFFT_SUCCESS) return fft_fail(p, "transform", e);
    clip_proc_keep_event(p, ev);
    return CLIP_OK;
}

clip_status conv2_fft_launch(clip_process *p, conv2_fft *f, const cl_mem *bufs, cl_mem kinfo,
                             cl_mem gate) {
    const conv2_geom *g = &f->g;
    const cl_int ma = (cl_int)g->ma, na = (cl_int)g->na, mo = (cl_int)g->mo, no = (cl_int)g->no;
    const cl_int oi = (cl_int)g->oi, oj = (cl_int)g->oj, kr = (cl_int)g->mk, kc = (cl_int)g->nk;
    const cl_int corr = g->corr, P = (cl_int)f->P, Q = (cl_int)f->Q, S = (cl_int)f->S;
    const size_t I = sizeof(cl_int), M = sizeof(cl_mem);

    const size_t gs[16] = {M, M, M, I, I, I, I, I, I, I, I, I, I, I, I, M};
    const void *const gv[16] = {&bufs[CONV2_BUF_A],
                                &bufs[CONV2_BUF_K],
                                &f->E,
                                &ma,
                                &na,
                                &mo,
                                &no,
                                &oi,
                                &oj,
                                &kr,
                                &kc,
                                &corr,
                                &P,
                                &Q,
                                &S,
                                &gate};
    clip_status s = args(p, f->gather, 16, gs, gv);
    size_t wg[3] = {64, 4, 1};
    size_t gl[3] = {round_up(f->P, 64), round_up(f->Q, 4), f->S + 1};
    if (clip_proc_device(p)->max_work_group < 256) wg[0] = 1, wg[1] = 1;
    if (s == CLIP_OK) s = clip_proc_enqueue(p, f->gather, 3, gl, wg);

    cl_mem spec = f->cx ? f->E : f->X;
    if (s == CLIP_OK) s = transform(p, f->fwd, CLFFT_FORWARD, f->E, f->cx ? NULL : f->X, f->tmp);

    const cl_long nspec = (cl_long)f->nspec;
    const size_t g2 = round_up(f->nspec, 256);
    const size_t ms[3] = {M, sizeof(cl_long), I};
    const void *const mv[3] = {&spec, &nspec, &S};
    if (s == CLIP_OK) s = args(p, f->mul, 3, ms, mv);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, f->mul, 1, &g2, NULL);

    if (s == CLIP_OK) s = transform(p, f->inv, CLFFT_BACKWARD, spec, f->cx ? NULL : f->E, f->tmp);

    const size_t cs[10] = {M, M, M, I, I, I, I, I, I, I};
    const void *const cv[10] = {&f->E, &bufs[CONV2_BUF_C], &kinfo, &mo, &no, &kr, &kc, &P,
                                &Q,    &f->normalize};
    size_t gl3[3] = {round_up(f->mo, 64), round_up(f->no, 4), f->S};
    if (s == CLIP_OK) s = args(p, f->crop, 10, cs, cv);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, f->crop, 3, gl3, wg);
    return s;
}

void conv2_fft_release(conv2_fft *f) {
    if (!f) return;
    if (f->have_fwd) clfftDestroyPlan(&f->fwd);
    if (f->have_inv) clfftDestroyPlan(&f->inv);
    free(f);
}

#endif
