/* conv2: C = conv2(A, K, shape) as MATLAB, on every 2-D slice of an N-D A with the same 2-D K.
 *
 * Semantics.
 *   shape     full: size(A)+size(K)-1; same: size(A), the central part starting at row
 *             floor(size(K,1)/2)+1 and column floor(size(K,2)/2)+1 of the full result (so even
 *             sizes match MATLAB); valid: max(size(A)-size(K)+1, 0). Per dimension, MATLAB's
 *             documented rules: full max([ma+mk-1, ma, mk]), valid max(ma-max(0, mk-1), 0);
 *             they differ from the short forms only where A or K is empty.
 *   correlate filter2 / imfilter 'corr': K is not rotated. Off: convolution as conv2.
 *   pad       zero is conv2's behaviour; replicate, symmetric, circular give imfilter(A, K, pad,
 *             shape, 'conv'/'corr') for full and same. 'valid' never reads the padding, so it
 *             equals the zero case for every pad mode.
 *   normalize divides the result by sum(K(:)) (OpenCLIPER's convolution did). A zero sum is
 *             divided by all the same: IEEE gives Inf/-Inf, and NaN where the result is 0 too,
 *             as MATLAB's conv2(A,K)/sum(K(:)). A complex sum with a zero imaginary part divides
 *             like a real one (MATLAB narrows such a value to real).
 *   types     the output type is clip_type_promote(A, K); both are converted on the device.
 *   empty     sizes follow MATLAB's rules above (conv2(zeros(0,3), ones(2)) is 2x4 zeros,
 *             conv2(ones(4,5), zeros(0,2)) is 4x6, and 'valid' with a 0x0 K is size(A);
 *             Octave returns 0x0 for any empty input). With an empty K the sum is empty:
 *             zeros, or NaN when normalizing (0/0). Padding an empty A pads with zeros.
 *   Inf, NaN  as MATLAB's sums: only taps where K overlaps A are summed, so an Inf in K next to
 *             the zero padding gives +-Inf, not NaN (kernels/conv2.cl, conv_skip). The separable
 *             path is taken only for a finite K; the FFT path checks A and K on the device and
 *             recomputes by the direct kernel when either holds a non-finite value.
 *   accuracy  the contract auto keeps (MATLAB's conv2 sums directly, and users compare with it):
 *             elementwise (default): every path auto may take (the direct kernels, and the
 *             separable passes for a rank-one K) sums each output directly, so its error stays
 *             within a small multiple of eps * (|A| conv |K|) at that output, however large A is
 *             elsewhere; the separable passes add the error of K's rank-one factors, within a
 *             few eps of max|K| times the window's |A| sum. auto never takes fft, and a tuning
 *             cache entry "fft" is ignored.
 *             normwise: errors may be relative to the largest values of A and K (fft's model:
 *             about eps * log2(P*Q) * max|A| * sum|K| at every output, so outputs far smaller
 *             than the image's largest values lose their relative accuracy, e.g. a 1e-3
 *             background beside a 1e6 block); auto then weighs fft by the cost model and takes
 *             a cached "fft". variant fft forces the FFT path under either setting.
 *   K must be 2-D (trailing singleton dims are fine): CLIP_ERR_SHAPE otherwise. Every dimension
 *   must stay below 2^30, and K below 2^31 elements (32-bit index arithmetic in the kernels):
 *   CLIP_ERR_SHAPE otherwise.
 *
 *   imfilter centres K at floor((size(K)+1)/2); for convolution and correlation alike that
 *   selects the same window as conv2's 'same' offset, so one offset serves both.
 *
 * Paths and variants (kernels/conv2*.cl document each kernel; processes/conv2_direct.c their
 * default tiles).
 *   direct     local (tile staged in local memory, 8 outputs per work-item along a row),
 *              global (no staging; explicit SIMD rows on CPUs), block (GPUs: register blocks of
 *              2x16 outputs from a staged tile, filter size compiled in), rblock (CPUs: one
 *              work-item of 4 SIMD vectors of rows by 6 columns in registers, each input column
 *              loaded once per filter row; filter size and orientation compiled in), tensor
 *              (NVIDIA sm_90, f32, filters up to 64 rows: the direct sums as wgmma products of each
 *              input column's Toeplitz block by the filter's columns, 3xTF32, so each output errs
 *              like a direct fp32 sum where A's and K's values are 0 or at least 2^-112
 *              (kernels/tf32.cl). Where a work-group meets a smaller non-zero value (subnormals,
 *              normals under 2^-112) in A or K, a second pass runs on A and K each scaled by one
 *              power of two into that range (exact; the outputs scaled back, rounding only where an
 *              output is subnormal), after a read of both for their exponent ranges by all its
 *              work-groups together; where no such shifts exist (A's or K's non-zero finite
 *              magnitudes more than 2^237 apart, or outputs that could overflow once scaled), the
 *              work-groups that meet one recompute their outputs by a direct sum (~45x the time
 *              where all do). NaN outputs are recomputed by a direct sum: by the second launch,
 *              which finds them in one read of the output, where work-groups walk spans (31x31,
 *              63x63), else by the work-group that wrote them, which reads all its outputs back at
 *              its end where it saw one. H200: 4096^2 31x31 subnormal image 2.2x ordinary (0.681
 *              against 0.316 ms; 14.3 before), 3 NaN + 2 Inf at 8192^2 31x31 1.13x, 63x63 1.10x,
 *              15x15 1.13-1.16x (bench/CONV2.md, "Values outside the 3xTF32 range", "NaN outputs in
 *              a box", "Operands scaled into the range", "Ordinary data, both run orders", "The
 *              ranges inside the second launch").
 *   separable  when K is rank one (processes/conv2_sep.c: MATLAB's rank test on its singular
 *              values), a column pass into a temporary then a row pass, each a direct kernel
 *              with a 1-D filter; padding handled at each pass's loads.
 *   fft        through clFFT (when clip was built with it): both operands gathered (padding
 *              applied) into planes of 2,3,5,7-smooth sizes, one batched forward transform, a
 *              product, one inverse, a crop.
 *
 * How auto chooses, within the accuracy setting (every step visible: `clip run conv2 ... --time`
 * prints `variant conv2 NAME`, and clip_process_variant() returns NAME, e.g. "block 32x4 2x16
 * k31x31").
 *   1. Empty A or K: global (nothing to stage or transform).
 *   2. The tuning cache (clip_tuning_lookup, process "conv2"), key "TYPE-kMKxNK" then
 *      "TYPE-kN" with N = max(MK, NK) (e.g. "f32-k31x31", "f32-k31"); the value names a variant
 *      with optional tile sizes (local:wx,wy,rj; global:wx,wy,rj,vw; block:wx,wy,ri,rj;
 *      tensor:rj[,rows], output columns a group, a multiple of 32, and rows a group, 64, or
 *      128 with rows interleaved in pairs), or "fft",
 *      or "separable" (taken when K is rank one). A value that does not parse or cannot run on
 *      the device is ignored (a block tile too large for local memory is shrunk to fit).
 *   3. Otherwise the cheapest by the cost model below among: the direct kernel for the device
 *      (CPU: global or rblock, the cheaper by the model; GPU: local up to 16 taps, for images
 *      too small to fill the device with block's tiles up to 49, and for k x 1 up to 31 in
 *      8-byte and larger types; block above while its tile fits local memory,
 *      else global with run-time sizes; filters up to 81 taps are compiled into local and global,
 *      always into block; row filters 1 x k from 7 taps block on images that fill the device; on
 *      sm_90 for f32 the tensor kernel where the model puts it below that choice), the
 *      separable path (only when
 *      K is rank one; the SVD runs only when the model says the path would win), and, with
 *      accuracy normwise, fft.
 *   Cost model and its fits: processes/conv2_choose.c.
 *   Forced variants: variant local/global/block/rblock/tensor forces that direct kernel (with
 *   separable on, both passes use it), fft forces the FFT path; separable on forces the two
 *   passes (an error unless K is rank one), off never takes them. A forced variant the device
 *   cannot run is CLIP_ERR_UNSUPPORTED.
 *
 * K's values are read on the host in init only for the separable decision (auto, when the
 * model favours it, or on). A K written after init (by a process launched later, or through
 * clip_data_host_write) needs another init, as for any change of an input.
 *
 * conv2sep: C = conv2(u, v, A, shape), MATLAB's separable form (a process of its own, since a
 * process has a fixed number of inputs: u, v, A in MATLAB's order). The columns of A are
 * convolved with the vector u, then the rows of the result with the vector v; u and v may each
 * be a row or a column. Every rule above holds for the implied K = u(:)*v(:).' (mu x nv):
 * shapes and their sizes and offsets ('same' centred at floor(mu/2), floor(nv/2) as Octave's
 * conv2(u, v, A, 'same')), pad, correlate (u and v not reversed), normalize (by sum(K(:)) =
 * sum(u)*sum(v), on the device), types (promoted from u, v and A), N-D A. It runs the separable
 * path's two 1-D passes with u and v as given (no rank test, no SVD), with each pass's kernel
 * chosen as the separable path does (variant local/global/block forces it for both). Inf or NaN
 * in u or v: each pass sums only the taps that overlap its input (MATLAB's sums over the
 * overlap), so an Inf next to the zero padding gives +-Inf as Octave's conv2(u, v, A). An empty
 * u, v or A gives the sizes of the formulas with zeros (NaN when normalizing an empty K), as
 * conv2(A, u(:)*v(:).'), by that very path: K is formed on the host in init (then u and v are
 * read there).
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2.h"

#define DIM_LIMIT ((size_t)1 << 30)

enum { CONV2_SHAPE_FULL, CONV2_SHAPE_SAME, CONV2_SHAPE_VALID };
enum {
    VARIANT_AUTO,
    VARIANT_LOCAL,
    VARIANT_GLOBAL,
    VARIANT_BLOCK,
    VARIANT_FFT,
    VARIANT_RBLOCK,
    VARIANT_TENSOR
};
enum { SEP_AUTO, SEP_ON, SEP_OFF };
enum { ACCURACY_ELEMENTWISE, ACCURACY_NORMWISE };

typedef struct conv2_state {
    conv2_pass pass[2];
    int npass;
    cl_kernel kinfo_k;
    cl_mem kinfo, tmp, gate;
    cl_mem kinfo1; /* conv2sep: the column pass's kinfo (u's), beside the row pass's in kinfo */
    cl_int nk, nu, nv;
    int ia;           /* A's input: 0 (conv2: A, K) or 2 (conv2sep: u, v, A) */
    clip_data *u, *v; /* the separable path's column and row factors (conv2's rank-one K) */
    clip_data *k;     /* conv2sep with an empty operand: K = u(:)*v(:).', formed in init */
    conv2_fft *fft;
} conv2_state;

static const char *const shape_names[] = {"full", "same", "valid", NULL};
static const char *const pad_names[] = {"zero", "replicate", "symmetric", "circular", NULL};
static const char *const variant_names[] = {"auto", "local",  "global", "block",
                                            "fft",  "rblock", "tensor", NULL};
/* The direct kernel of each variant (0: none). */
static const int variant_kinds[] = {0, CONV2_LOCAL,  CONV2_GLOBAL, CONV2_BLOCK,
                                    0, CONV2_RBLOCK, CONV2_TENSOR};
static const char *const sep_names[] = {"auto", "on", "off", NULL};
static const char *const accuracy_names[] = {"elementwise", "normwise", NULL};

/* The parameters conv2 and conv2sep share (conv2sep's K is u(:)*v(:).'). */
#define CONV2_COMMON_PARAMS                                                                        \
    {"shape",                                                                                      \
     CLIP_PARAM_CHOICE,                                                                            \
     CONV2_SHAPE_FULL,                                                                             \
     0,                                                                                            \
     0,                                                                                            \
     0,                                                                                            \
     shape_names,                                                                                  \
     "full (size(A)+size(K)-1), same (size(A), central part) or valid (no padding used)",          \
     0,                                                                                            \
     0,                                                                                            \
     0},                                                                                           \
        {"correlate",                                                                              \
         CLIP_PARAM_BOOL,                                                                          \
         0,                                                                                        \
         0,                                                                                        \
         0,                                                                                        \
         0,                                                                                        \
         NULL,                                                                                     \
         "correlation as filter2/imfilter (K not rotated) instead of convolution",                 \
         0,                                                                                        \
         0,                                                                                        \
         0},                                                                                       \
        {"pad",     CLIP_PARAM_CHOICE,                                                             \
         0,         0,                                                                             \
         0,         0,                                                                             \
         pad_names, "values outside A: zero (conv2) or imfilter's replicate, symmetric, circular", \
         0,         0,                                                                             \
         0},                                                                                       \
    {                                                                                              \
        "normalize", CLIP_PARAM_BOOL, 0, 0, 0, 0, NULL,                                            \
            "divide the result by sum(K(:)) (a zero sum gives Inf/NaN, as MATLAB)", 0, 0, 0        \
    }

static const clip_param_desc conv2_params[] = {
    CONV2_COMMON_PARAMS,
    {"variant", CLIP_PARAM_CHOICE, VARIANT_AUTO, 0, 0, 0, variant_names,
     "auto (cost model, tuning cache; see accuracy), local, global, block (GPU register "
     "blocks), fft (errors relative to the largest values, not per output), rblock (CPU "
     "register blocks) or tensor (NVIDIA sm_90 tensor cores, f32: fp32-accurate direct sums "
     "by 3xTF32 for values 0 or |x| >= 2^-112; where A or K holds a smaller non-zero value "
     "(subnormals), a second pass runs on A and K each scaled by a power of two into that "
     "range (exact; outputs scaled back, rounded only where subnormal), ~2x the time (H200, "
     "4096^2 31x31 subnormal image); where no shift holds them (magnitudes more than 2^237 "
     "apart, or outputs that could overflow scaled), those work-groups recompute their outputs "
     "by the plain direct sum, ~45x where all do; NaN outputs are recomputed by it too, a few "
     "NaN or Inf values 1.13x (31x31) to 1.16x (15x15) at 8192^2; values near FLT_MAX are in "
     "range and cost nothing)",
     0, 0, 0},
    {"separable", CLIP_PARAM_CHOICE, SEP_AUTO, 0, 0, 0, sep_names,
     "two 1-D passes for a rank-one K: auto (when cheaper), on (error unless rank one), off", 0, 0,
     0},
    {"accuracy", CLIP_PARAM_CHOICE, ACCURACY_ELEMENTWISE, 0, 0, 0, accuracy_names,
     "what auto may trade: elementwise (each output within a small multiple of "
     "eps*(|A| conv |K|) there, as MATLAB's direct sums: auto never takes fft) or normwise "
     "(errors relative to the largest values of A and K: auto may take fft when faster)",
     0, 0, 0},
};
static const char *const conv2_input_names[] = {"A", "K"};
static const char *const conv2_inputs[] = {"image: rows x cols (x channels x ...), any type",
                                           "2-D filter, any type"};
static const char *const conv2_output_names[] = {"C"};
static const char *const conv2_outputs[] = {
    "conv2(A, K, shape) per 2-D slice of A; type promoted from A and K"};

static void dims_str(clip_data *d, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < clip_data_ndims(d) && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%zu", i ? "x" : "", clip_data_dim(d, i));
}

/* Output rows for input rows m and filter rows k, and the offset of the shape in the full
 * result. An empty A or K gives MATLAB's documented sizes: full max(m+k-1, m, k), valid
 * max(m - max(0, k-1), 0). */
static size_t out_size(int shape, size_t m, size_t k, size_t *off) {
    if (shape == CONV2_SHAPE_SAME) {
        *off = k / 2;
        return m;
    }
    if (shape == CONV2_SHAPE_VALID) {
        *off = k ? k - 1 : 0;
        return m >= *off ? m - *off : 0;
    }
    *off = 0;
    return m && k ? m + k - 1 : (m > k ? m : k);
}

/* Rows and columns of d (named `name`) below the kernels' 32-bit index limit. */
static clip_status check_limits(clip_process *p, clip_data *d, const char *name) {
    char buf[128];
    for (int i = 0; i < 2; i++)
        if (clip_data_dim(d, i) >= DIM_LIMIT) {
            dims_str(d, buf, sizeof buf);
            return clip_proc_fail(p, CLIP_ERR_SHAPE,
                                  "%s is %s: rows and columns must be below 2^30", name, buf);
        }
    return CLIP_OK;
}

static clip_status check_inputs(clip_process *p, clip_data *a, clip_data *k) {
    char buf[128];
    for (int i = 2; i < clip_data_ndims(k); i++)
        if (clip_data_dim(k, i) != 1) {
            dims_str(k, buf, sizeof buf);
            return clip_proc_fail(p, CLIP_ERR_SHAPE, "K must be 2-D, got %s", buf);
        }
    clip_status s = check_limits(p, a, "A");
    if (s == CLIP_OK) s = check_limits(p, k, "K");
    /* The kernels count and index K's elements in int (conv2_kinfo's n, the reversed index
     * KR*KC - 1 - e): two dimensions below 2^30 are not enough. */
    if (s == CLIP_OK && clip_data_numel(k) > INT_MAX) {
        dims_str(k, buf, sizeof buf);
        s = clip_proc_fail(p, CLIP_ERR_SHAPE, "K is %s: it must have fewer than 2^31 elements",
                           buf);
    }
    return s;
}

/* Element e of host data of type t as (re, im). */
static void host_get(const void *h, clip_type t, size_t e, double *re, double *im) {
    const int cx = clip_type_is_complex(t), db = clip_type_is_double(t);
    const size_t i = cx ? 2 * e : e;
    *re = db ? ((const double *)h)[i] : ((const float *)h)[i];
    *im = cx ? (db ? ((const double *)h)[i + 1] : ((const float *)h)[i + 1]) : 0;
}

/* Stores re + i*im as element e of host data of type t (rounding to single where t is). */
static void host_set(void *h, clip_type t, size_t e, double re, double im) {
    const int cx = clip_type_is_complex(t);
    const double val[2] = {re, im};
    for (int c = 0; c <= cx; c++) {
        const size_t i = e * (size_t)(cx + 1) + (size_t)c;
        if (clip_type_is_double(t))
            ((double *)h)[i] = val[c];
        else
            ((float *)h)[i] = (float)val[c];
    }
}

/* New data of type t and dims rows x cols whose element e is f(e) (re, im); f reads `ctx`. */
static clip_status host_data(clip_process *p, clip_type t, size_t rows, size_t cols,
                             void (*f)(const void *ctx, size_t e, double *re, double *im),
                             const void *ctx, clip_data **out) {
    size_t dims[2] = {rows, cols};
    void *dst = NULL;
    clip_status s = clip_data_create(clip_proc_app(p), t, 2, dims, out);
    if (s == CLIP_OK && rows * cols > 0) s = clip_data_host_write(*out, &dst);
    for (size_t e = 0; e < rows * cols && s == CLIP_OK; e++) {
        double re, im;
        f(ctx, e, &re, &im);
        host_set(dst, t, e, re, im);
    }
    return s;
}

/* One of factor_k's factors: len values at re, im. */
typedef struct factor_src {
    const double *re, *im;
} factor_src;

static void factor_value(const void *ctx, size_t e, double *re, double *im) {
    const factor_src *f = ctx;
    *re = f->re[e], *im = f->im[e];
}

/* Reads K on the host and runs the rank-one test; on success creates the factor data u (mk x 1)
 * and v (1 x nk) of type t. Returns 1 for rank one, 0 otherwise (message filled), -1 on error
 * (status in *s). */
static int factor_k(clip_process *p, clip_data *k, clip_type t, char *why, size_t cap,
                    clip_status *s) {
    conv2_state *st = clip_proc_state(p);
    const size_t mk = clip_data_dim(k, 0), nk = clip_data_dim(k, 1), n = mk * nk;
    const void *h = NULL;
    *s = clip_data_host(k, &h);
    if (*s != CLIP_OK) return -1;
    const clip_type kt = clip_data_type(k);
    const int kcx = clip_type_is_complex(kt);
    double *buf = malloc((2 * n + 4 * (mk + nk)) * sizeof *buf);
    if (!buf) {
        *s = clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "out of memory");
        return -1;
    }
    double *re = buf, *im = buf + n, *cr = im + n, *ci = cr + mk, *rr = ci + mk, *ri = rr + nk;
    int finite = 1;
    for (size_t e = 0; e < n; e++) {
        host_get(h, kt, e, &re[e], &im[e]);
        finite &= isfinite(re[e]) && isfinite(im[e]);
    }
    double s1, s2, tol;
    const double eps = clip_type_is_double(t) ? DBL_EPSILON : FLT_EPSILON;
    int r1 =
        finite && conv2_rank_one(re, kcx ? im : NULL, mk, nk, eps, cr, ci, rr, ri, &s1, &s2, &tol);
    if (!r1) {
        if (!finite)
            snprintf(why, cap, "K holds Inf or NaN");
        else
            snprintf(why, cap, "second singular value %.3g exceeds max(size(K))*eps*s1 = %.3g", s2,
                     tol);
        free(buf);
        return 0;
    }
    /* The factors as data of type t (interleaved when complex), uploaded at the first launch. */
    const factor_src col = {cr, ci}, row = {rr, ri};
    *s = host_data(p, t, mk, 1, factor_value, &col, &st->u);
    if (*s == CLIP_OK) *s = host_data(p, t, 1, nk, factor_value, &row, &st->v);
    free(buf);
    if (*s != CLIP_OK) {
        *s = clip_proc_fail(p, *s, "cannot store the separable factors: %s",
                            clip_app_last_error(clip_proc_app(p)));
        return -1;
    }
    return 1;
}

/* sum(K) for normalize and the non-finite flag for skipz, by conv2_kinfo at each launch. */
static clip_status init_kinfo(clip_process *p, const conv2_geom *g, int need) {
    conv2_state *st = clip_proc_state(p);
    if (!need || st->kinfo) return CLIP_OK;
    clip_status s =
        clip_proc_kernel(p, "conv2", g->t, "-DKERNEL=5 -DPAD=0", "conv2_kinfo", &st->kinfo_k);
    if (s == CLIP_OK) s = clip_proc_temp(p, 2 * clip_type_size(g->t), &st->kinfo);
    return s;
}

/* Sets up the two passes of the separable path with kernel `kind` (0: by device); skipz as for
 * the direct kernels (conv2sep's factors may hold Inf or NaN; a rank-one K's never do). */
static clip_status init_separable(clip_process *p, const conv2_geom *g, int kind, int normalize,
                                  int skipz) {
    conv2_state *st = clip_proc_state(p);
    conv2_geom g1, g2;
    conv2_cfg c1, c2;
    conv2_sep_geoms(g, &g1, &g2);
    conv2_sep_cfgs(p, &g1, &g2, kind, &c1, &c2);
    const int forced = kind != 0;
    clip_status s = conv2_direct_build(p, &g1, &c1, forced, 0, skipz, &st->pass[0]);
    if (s == CLIP_ERR_UNSUPPORTED && !forced) {
        c1 = conv2_default_cfg(p, &g1, CONV2_GLOBAL);
        s = conv2_direct_build(p, &g1, &c1, 1, 0, skipz, &st->pass[0]);
    }
    if (s == CLIP_OK) s = conv2_direct_build(p, &g2, &c2, forced, normalize, skipz, &st->pass[1]);
    if (s == CLIP_ERR_UNSUPPORTED && !forced) {
        c2 = conv2_default_cfg(p, &g2, CONV2_GLOBAL);
        s = conv2_direct_build(p, &g2, &c2, 1, normalize, skipz, &st->pass[1]);
    }
    if (s == CLIP_OK)
        s = clip_proc_temp(p, g->mo * g->na * g->slices * clip_type_size(g->t), &st->tmp);
    if (s != CLIP_OK) return s;
    st->pass[0].src = CONV2_BUF_A, st->pass[0].filt = CONV2_BUF_U, st->pass[0].dst = CONV2_BUF_T;
    st->pass[1].src = CONV2_BUF_T, st->pass[1].filt = CONV2_BUF_V, st->pass[1].dst = CONV2_BUF_C;
    st->npass = 2;
    char d1[64], d2[64], name[160];
    conv2_cfg_str(&c1, &g1, d1, sizeof d1);
    conv2_cfg_str(&c2, &g2, d2, sizeof d2);
    snprintf(name, sizeof name, "separable %s + %s", d1, d2);
    clip_proc_set_variant(p, name);
    return CLIP_OK;
}

/* Builds the direct pass of cfg. Not forced: CLIP_ERR_UNSUPPORTED (no message) when it cannot
 * run here, or with `fallback` the global kernel instead. */
static clip_status init_direct(clip_process *p, const conv2_geom *g, conv2_cfg c, int forced,
                               int fallback, int normalize, int skipz, int gated) {
    conv2_state *st = clip_proc_state(p);
    clip_status s = conv2_direct_build(p, g, &c, forced, normalize, skipz, &st->pass[0]);
    if (s == CLIP_ERR_UNSUPPORTED && !forced && fallback && c.kind == CONV2_TENSOR) {
        c = conv2_auto_direct(p, g, 0);
        s = conv2_direct_build(p, g, &c, 0, normalize, skipz, &st->pass[0]);
    }
    if (s == CLIP_ERR_UNSUPPORTED && !forced && fallback) {
        c = conv2_default_cfg(p, g, CONV2_GLOBAL);
        s = conv2_direct_build(p, g, &c, 1, normalize, skipz, &st->pass[0]);
    }
    /* The local and block kernels find a non-finite K themselves; the others read kinfo. */
    if (s == CLIP_OK)
        s = init_kinfo(
            p, g,
            skipz && (c.kind == CONV2_GLOBAL || c.kind == CONV2_COLS || c.kind == CONV2_RBLOCK));
    if (s != CLIP_OK) return s;
    st->pass[0].src = CONV2_BUF_A, st->pass[0].filt = CONV2_BUF_K, st->pass[0].dst = CONV2_BUF_C;
    st->pass[0].gated = gated;
    st->npass = 1;
    if (!gated) {
        char name[64];
        conv2_cfg_str(&c, g, name, sizeof name);
        clip_proc_set_variant(p, name);
    }
    return CLIP_OK;
}

/* An empty A or K: the global kernel with run-time sizes sums nothing (zeros, or NaN when
 * normalizing by an empty K's zero sum), and pads an empty A with zeros. */
static clip_status init_empty(clip_process *p, const conv2_geom *g, int normalize) {
    conv2_cfg ce = conv2_default_cfg(p, g, CONV2_GLOBAL);
    ce.fixed = 0;
    return init_direct(p, g, ce, 1, 0, normalize, 0, 0);
}

static clip_status init_fft(clip_process *p, const conv2_geom *g, conv2_cfg direct, int normalize,
                            int skipz) {
    conv2_state *st = clip_proc_state(p);
    if (!conv2_fft_available()) return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED, CONV2_NO_FFT);
    clip_status s = conv2_fft_init(p, g, normalize, &st->fft);
    /* The exact fallback for non-finite data: the direct kernel, gated on the device. */
    if (s == CLIP_OK) s = init_direct(p, g, direct, 0, 1, normalize, skipz, 1);
    if (s == CLIP_OK) s = clip_proc_temp(p, sizeof(cl_int), &st->gate);
    if (s != CLIP_OK) return s;
    size_t P = 0, Q = 0;
    char name[64];
    conv2_fft_sizes(g, &P, &Q);
    snprintf(name, sizeof name, "fft %zux%zu", P, Q);
    clip_proc_set_variant(p, name);
    return CLIP_OK;
}

/* The tuning cache's entry for this type and filter size, if any. */
static int tuned(clip_process *p, const conv2_geom *g, char *value, size_t cap) {
    char key[64];
    const char *tn = clip_type_name(g->t);
    snprintf(key, sizeof key, "%s-k%zux%zu", tn, g->mk, g->nk);
    if (clip_tuning_lookup(clip_proc_app(p), "conv2", key, value, cap)) return 1;
    snprintf(key, sizeof key, "%s-k%zu", tn, g->mk > g->nk ? g->mk : g->nk);
    return clip_tuning_lookup(clip_proc_app(p), "conv2", key, value, cap);
}

/* The geometry of A (every 2-D slice) with an mk x nk filter under the shared parameters, and
 * the output's dims; returns their count. g->t is left to the caller. */
static int geom_of(clip_process *p, clip_data *a, size_t mk, size_t nk, conv2_geom *g,
                   size_t dims[CLIP_MAX_DIMS]) {
    const int shape = clip_proc_choice(p, "shape");
    memset(g, 0, sizeof *g);
    g->ma = clip_data_dim(a, 0), g->na = clip_data_dim(a, 1);
    g->mk = mk, g->nk = nk;
    g->mo = out_size(shape, g->ma, g->mk, &g->oi), g->no = out_size(shape, g->na, g->nk, &g->oj);
    g->pad = clip_proc_choice(p, "pad"), g->corr = clip_proc_bool(p, "correlate");
    int nd = clip_data_ndims(a) < 2 ? 2 : clip_data_ndims(a);
    g->slices = 1;
    for (int i = 0; i < nd; i++)
        dims[i] = clip_data_dim(a, i);
    for (int i = 2; i < nd; i++)
        g->slices *= dims[i];
    dims[0] = g->mo, dims[1] = g->no;
    return nd;
}

/* Converts inputs [0, n) to g->t and creates the output; 1 when it is empty (nothing to run),
 * 0 when there is work, -1 on error (status in *s). */
static int prepare_io(clip_process *p, const conv2_geom *g, int n, int nd, const size_t *dims,
                      clip_status *s) {
    clip_data *c = NULL;
    *s = CLIP_OK;
    for (int i = 0; i < n && *s == CLIP_OK; i++)
        *s = clip_proc_input_as(p, i, g->t);
    if (*s == CLIP_OK) *s = clip_proc_output(p, 0, g->t, nd, dims, &c);
    if (*s != CLIP_OK) return -1;
    if (clip_data_numel(c)) return 0;
    clip_proc_set_variant(p, "empty");
    return 1;
}

static clip_status conv2_init(clip_process *p) {
    conv2_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *k = clip_proc_input(p, 1);
    clip_status s = check_inputs(p, a, k);
    if (s != CLIP_OK) return s;

    const int shape = clip_proc_choice(p, "shape"), variant = clip_proc_choice(p, "variant");
    const int sepmode = clip_proc_choice(p, "separable");
    const int normwise = clip_proc_choice(p, "accuracy") == ACCURACY_NORMWISE;
    const int normalize = clip_proc_bool(p, "normalize");
    conv2_geom g;
    size_t dims[CLIP_MAX_DIMS];
    const int nd = geom_of(p, a, clip_data_dim(k, 0), clip_data_dim(k, 1), &g, dims);
    g.t = clip_type_promote(clip_data_type(a), clip_data_type(k));
    const int io = prepare_io(p, &g, 2, nd, dims, &s);
    if (io) return s;
    if (variant == VARIANT_FFT && sepmode == SEP_ON)
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE,
                              "separable on runs direct 1-D passes: it excludes variant fft");

    /* Zero padding is read by full and same: an Inf in K must then skip it (kernels/conv2.cl).
     * The separable path never sees a non-finite K. */
    const int empty = clip_data_numel(a) == 0 || g.mk == 0 || g.nk == 0;
    const int skipz = g.pad == 0 && shape != CONV2_SHAPE_VALID && !empty;
    st->nk = (cl_int)(g.mk * g.nk);
    s = init_kinfo(p, &g, normalize);
    if (s != CLIP_OK) return s;
    if (empty) return init_empty(p, &g, normalize);

    char why[160];
    int r1 = 0;
    if (sepmode == SEP_ON) {
        r1 = factor_k(p, k, g.t, why, sizeof why, &s);
        if (r1 < 0) return s;
        if (!r1)
            return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE, "separable on: K is not rank one (%s)",
                                  why);
        return init_separable(p, &g, variant_kinds[variant], normalize, 0);
    }
    if (variant_kinds[variant])
        return init_direct(p, &g, conv2_default_cfg(p, &g, variant_kinds[variant]), 1, 0, normalize,
                           skipz, 0);
    conv2_cfg direct = conv2_auto_direct(p, &g, 1);
    if (variant == VARIANT_FFT) return init_fft(p, &g, direct, normalize, skipz);

    /* auto: the tuning cache, then the cost model. */
    char value[128];
    if (tuned(p, &g, value, sizeof value)) {
        conv2_cfg tc;
        int other = 0;
        if (!conv2_parse_tuning(p, &g, value, &tc, &other)) {
            if (other == 1 && normwise && conv2_fft_available())
                return init_fft(p, &g, direct, normalize, skipz);
            if (other == 2 && sepmode == SEP_AUTO) {
                r1 = factor_k(p, k, g.t, why, sizeof why, &s);
                if (r1 < 0) return s;
                if (r1) return init_separable(p, &g, 0, normalize, 0);
            }
            if (other == 0) { /* a cached "fft" under elementwise accuracy falls through */
                s = init_direct(p, &g, tc, 0, 0, normalize, skipz, 0);
                if (s != CLIP_ERR_UNSUPPORTED) return s;
            }
        }
    }
    const double t_direct = conv2_pass_ms(p, &direct, &g);
    double best = t_direct;
    if (sepmode == SEP_AUTO && g.mk > 1 && g.nk > 1) {
        conv2_geom g1, g2;
        conv2_cfg c1, c2;
        conv2_sep_geoms(&g, &g1, &g2);
        conv2_sep_cfgs(p, &g1, &g2, 0, &c1, &c2);
        const double t_sep = conv2_pass_ms(p, &c1, &g1) + conv2_pass_ms(p, &c2, &g2);
        if (t_sep < best) {
            r1 = factor_k(p, k, g.t, why, sizeof why, &s);
            if (r1 < 0) return s;
            if (r1) return init_separable(p, &g, 0, normalize, 0);
        }
    }
    if (normwise && conv2_fft_available() && conv2_fft_ms(p, &g) < best) {
        s = init_fft(p, &g, direct, normalize, skipz);
        if (s == CLIP_OK) return s;
        /* A plan the device cannot take (memory): the direct path serves. */
        conv2_fft_release(st->fft);
        st->fft = NULL;
    }
    return init_direct(p, &g, direct, 0, 1, normalize, skipz, 0);
}

/* The buffers of the launch (indexed by CONV2_BUF_*): A, the filter (conv2's K, its rank-one
 * factors, or conv2sep's u and v or formed K), C and the temporary; *aoff, A's offset in its
 * buffer. The direct kernels read A from an offset, so caller memory goes in place however it
 * is aligned (clip_proc_input_view); clFFT and the tensor passes take A whole. */
static clip_status launch_buffers(clip_process *p, conv2_state *st, clip_data *c, cl_mem *bufs,
                                  cl_int *aoff) {
    int whole = st->fft != NULL;
    for (int i = 0; i < st->npass; i++)
        whole |= st->pass[i].scaled != NULL;
    size_t off = 0;
    clip_status s = whole ? clip_proc_input_buffer(p, st->ia, &bufs[CONV2_BUF_A])
                          : clip_proc_input_view(p, st->ia, &bufs[CONV2_BUF_A], &off);
    *aoff = (cl_int)off;
    if (st->ia == 0) {
        const int need_k = !st->u || st->kinfo;
        if (s == CLIP_OK && need_k) s = clip_proc_input_buffer(p, 1, &bufs[CONV2_BUF_K]);
        if (s == CLIP_OK && st->u) s = clip_proc_read_buffer(p, st->u, &bufs[CONV2_BUF_U]);
        if (s == CLIP_OK && st->v) s = clip_proc_read_buffer(p, st->v, &bufs[CONV2_BUF_V]);
    } else if (st->k) {
        if (s == CLIP_OK) s = clip_proc_read_buffer(p, st->k, &bufs[CONV2_BUF_K]);
    } else {
        if (s == CLIP_OK) s = clip_proc_input_buffer(p, 0, &bufs[CONV2_BUF_U]);
        if (s == CLIP_OK) s = clip_proc_input_buffer(p, 1, &bufs[CONV2_BUF_V]);
    }
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, c, 0, &bufs[CONV2_BUF_C]);
    bufs[CONV2_BUF_T] = st->tmp;
    return s;
}

/* conv2_kinfo on K, or conv2_kinfo_uv on conv2sep's u and v (one kinfo per pass). */
static clip_status launch_kinfo(clip_process *p, conv2_state *st, const cl_mem *bufs) {
    size_t g = 64;
    cl_kernel k = st->kinfo_k;
    clip_status s;
    if (st->kinfo1) {
        s = clip_proc_arg(p, k, 0, sizeof(cl_mem), &bufs[CONV2_BUF_U]);
        if (s == CLIP_OK) s = clip_proc_arg(p, k, 1, sizeof st->nu, &st->nu);
        if (s == CLIP_OK) s = clip_proc_arg(p, k, 2, sizeof(cl_mem), &bufs[CONV2_BUF_V]);
        if (s == CLIP_OK) s = clip_proc_arg(p, k, 3, sizeof st->nv, &st->nv);
        if (s == CLIP_OK) s = clip_proc_arg(p, k, 4, sizeof(cl_mem), &st->kinfo1);
        if (s == CLIP_OK) s = clip_proc_arg(p, k, 5, sizeof(cl_mem), &st->kinfo);
    } else {
        s = clip_proc_arg(p, k, 0, sizeof(cl_mem), &bufs[CONV2_BUF_K]);
        if (s == CLIP_OK) s = clip_proc_arg(p, k, 1, sizeof(cl_mem), &st->kinfo);
        if (s == CLIP_OK) s = clip_proc_arg(p, k, 2, sizeof st->nk, &st->nk);
    }
    return s == CLIP_OK ? clip_proc_enqueue(p, k, 1, &g, &g) : s;
}

static clip_status conv2_launch(clip_process *p) {
    conv2_state *st = clip_proc_state(p);
    clip_data *c = NULL;
    clip_process_output(p, 0, &c);
    if (clip_data_numel(c) == 0) return CLIP_OK;
    cl_mem bufs[CONV2_NBUF] = {0};
    cl_int aoff = 0;
    clip_status s = launch_buffers(p, st, c, bufs, &aoff);
    if (s == CLIP_OK && st->kinfo) s = launch_kinfo(p, st, bufs);
    if (s != CLIP_OK) return s;
    if (st->fft) {
        const cl_int zero = 0;
        s = clip_proc_fill(p, st->gate, &zero, sizeof zero, 0, sizeof zero);
        if (s == CLIP_OK) s = conv2_fft_launch(p, st->fft, bufs, st->kinfo, st->gate);
        if (s != CLIP_OK) return s;
    }
    /* conv2sep's column pass reads u's kinfo; every other pass the one kinfo. */
    for (int i = 0; i < st->npass && s == CLIP_OK; i++)
        s = conv2_direct_launch(p, &st->pass[i], bufs, aoff,
                                i == 0 && st->kinfo1 ? st->kinfo1 : st->kinfo, st->gate);
    return s;
}

static void conv2_release(clip_process *p) {
    conv2_state *st = clip_proc_state(p);
    clip_data_destroy(st->u);
    clip_data_destroy(st->v);
    clip_data_destroy(st->k);
    st->u = st->v = st->k = NULL;
    conv2_fft_release(st->fft);
    st->fft = NULL;
}

/* Slices of an N-D A when there are enough of them; else bands of output columns, each from the
 * input columns its filter window reads (clipped to A), run with the same shape and pad and
 * cropped to the band: an interior band's edge outputs read only real columns, and at A's edges
 * the piece pads as the whole would (symmetric padding reflects up to nk - 1 columns, so an edge
 * band reaches that far). Circular padding reads the far edge: slices only. */
static clip_status conv2_plan(clip_process *p, clip_plan *pl) {
    clip_data *a = clip_proc_input(p, 0), *k = clip_proc_input(p, 1), *c = NULL;
    clip_status s = check_inputs(p, a, k);
    conv2_geom g;
    size_t dims[CLIP_MAX_DIMS];
    const int nd = geom_of(p, a, clip_data_dim(k, 0), clip_data_dim(k, 1), &g, dims);
    g.t = clip_type_promote(clip_data_type(a), clip_data_type(k));
    if (s == CLIP_OK) s = clip_proc_output(p, 0, g.t, nd, dims, &c);
    if (s != CLIP_OK || clip_data_numel(c) == 0 || g.mk == 0 || g.nk == 0) return s;
    const size_t target = clip_plan_target(pl);
    int e = 2; /* the largest slice dimension */
    for (int i = 3; i < CLIP_MAX_DIMS; i++)
        if (clip_data_dim(a, i) > clip_data_dim(a, e)) e = i;
    const int by_slices = clip_data_dim(a, e) >= target || g.pad == 3;
    const size_t n = by_slices ? clip_data_dim(a, e) : g.no;
    const size_t parts = target < n ? target : n;
    for (size_t b = 0; b < parts && parts > 1 && s == CLIP_OK; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        clip_box_all(a, &pc.in[0]);
        clip_box_all(k, &pc.in[1]);
        clip_box_all(c, &pc.keep[0]);
        size_t j0, nj;
        clip_plan_band(n, parts, b, &j0, &nj);
        if (by_slices) {
            pc.in[0].start[e] = j0, pc.in[0].count[e] = nj;
            pc.keep[0].count[e] = nj;
            pc.at[0][e] = j0;
        } else {
            /* output column j reads full-result column j + oj, i.e. input columns
             * j + oj - (nk - 1) .. j + oj */
            size_t lo = j0 + g.oj >= g.nk - 1 ? j0 + g.oj - (g.nk - 1) : 0;
            size_t hi = j0 + nj + g.oj < g.na ? j0 + nj + g.oj : g.na;
            if (g.pad == 2 && lo == 0 && hi < g.nk) hi = g.nk < g.na ? g.nk : g.na;
            if (g.pad == 2 && hi == g.na && lo + g.nk > g.na) lo = g.na > g.nk ? g.na - g.nk : 0;
            pc.in[0].start[1] = lo, pc.in[0].count[1] = hi - lo;
            pc.keep[0].start[1] = j0 - lo, pc.keep[0].count[1] = nj;
            pc.at[0][1] = j0;
        }
        s = clip_plan_add(pl, &pc);
    }
    return s;
}

const clip_process_desc clip_process_conv2 = {
    .abi = CLIP_PROCESS_ABI,
    .rebind = 1,
    .transposes = 1,
    .name = "conv2",
    .summary = "2-D convolution per slice (MATLAB conv2(A, K, shape); filter2/imfilter options; "
               "conv2(u, v, A) is conv2sep)",
    .n_inputs = 2,
    .input_names = conv2_input_names,
    .input_docs = conv2_inputs,
    .n_outputs = 1,
    .output_names = conv2_output_names,
    .output_docs = conv2_outputs,
    .params = conv2_params,
    .n_params = sizeof conv2_params / sizeof conv2_params[0],
    .state_size = sizeof(conv2_state),
    .init = conv2_init,
    .launch = conv2_launch,
    .release = conv2_release,
    .plan = conv2_plan,
};

/* ---- conv2sep: conv2(u, v, A) ------------------------------------------------------------ */

static const char *const sep_variant_names[] = {"auto", "local", "global", "block", NULL};
static const clip_param_desc conv2sep_params[] = {
    CONV2_COMMON_PARAMS,
    {"variant", CLIP_PARAM_CHOICE, VARIANT_AUTO, 0, 0, 0, sep_variant_names,
     "the 1-D passes' kernel: auto (by device, as conv2's separable path), local, global, block", 0,
     0, 0},
};
static const char *const conv2sep_input_names[] = {"u", "v", "A"};
static const char *const conv2sep_inputs[] = {
    "vector (row or column) convolved with the columns of A, any type",
    "vector (row or column) convolved with the rows, any type",
    "image: rows x cols (x channels x ...), any type"};
static const char *const conv2sep_output_names[] = {"C"};
static const char *const conv2sep_outputs[] = {
    "conv2(u, v, A, shape) per 2-D slice of A, = conv2(A, u(:)*v(:).', shape); type promoted "
    "from u, v and A"};

/* u and v must be vectors (MATLAB: one dimension at most differs from 1; 0x1 and 1x0 are). */
static clip_status check_vector(clip_process *p, clip_data *d, const char *name) {
    size_t long_dims = 0;
    for (int i = 0; i < clip_data_ndims(d); i++)
        long_dims += clip_data_dim(d, i) != 1;
    if (long_dims <= 1) return CLIP_OK;
    char buf[128];
    dims_str(d, buf, sizeof buf);
    return clip_proc_fail(p, CLIP_ERR_SHAPE, "%s must be a vector, got %s", name, buf);
}

/* The outer product's sources: u and v on the host. */
typedef struct outer_src {
    const void *u, *v;
    clip_type tu, tv;
    size_t mu;
} outer_src;

static void outer_value(const void *ctx, size_t e, double *re, double *im) {
    const outer_src *o = ctx;
    double ur, ui, vr, vi;
    host_get(o->u, o->tu, e % o->mu, &ur, &ui);
    host_get(o->v, o->tv, e / o->mu, &vr, &vi);
    *re = ur * vr - ui * vi;
    *im = ur * vi + ui * vr;
}

/* An empty u, v or A: K = u(:)*v(:).' formed on the host, then conv2's own empty path. */
static clip_status init_sep_empty(clip_process *p, conv2_geom *g, int normalize) {
    conv2_state *st = clip_proc_state(p);
    clip_data *u = clip_proc_input(p, 0), *v = clip_proc_input(p, 1);
    outer_src o = {NULL, NULL, clip_data_type(u), clip_data_type(v), g->mk};
    clip_status s = CLIP_OK;
    if (g->mk * g->nk > 0) s = clip_data_host(u, &o.u);
    if (s == CLIP_OK && g->mk * g->nk > 0) s = clip_data_host(v, &o.v);
    if (s == CLIP_OK) s = host_data(p, g->t, g->mk, g->nk, outer_value, &o, &st->k);
    if (s != CLIP_OK)
        return clip_proc_fail(p, s, "cannot form u(:)*v(:).': %s",
                              clip_app_last_error(clip_proc_app(p)));
    st->nk = (cl_int)(g->mk * g->nk);
    s = init_kinfo(p, g, normalize);
    return s == CLIP_OK ? init_empty(p, g, normalize) : s;
}

/* conv2_kinfo_uv for normalize and the zero padding's skip: one kinfo per pass. */
static clip_status init_kinfo_uv(clip_process *p, const conv2_geom *g) {
    conv2_state *st = clip_proc_state(p);
    const size_t bytes = 2 * clip_type_size(g->t);
    st->nu = (cl_int)g->mk, st->nv = (cl_int)g->nk;
    clip_status s =
        clip_proc_kernel(p, "conv2", g->t, "-DKERNEL=5 -DPAD=0", "conv2_kinfo_uv", &st->kinfo_k);
    if (s == CLIP_OK) s = clip_proc_temp(p, bytes, &st->kinfo);
    if (s == CLIP_OK) s = clip_proc_temp(p, bytes, &st->kinfo1);
    return s;
}

static clip_status conv2sep_init(clip_process *p) {
    conv2_state *st = clip_proc_state(p);
    clip_data *u = clip_proc_input(p, 0), *v = clip_proc_input(p, 1), *a = clip_proc_input(p, 2);
    st->ia = 2;
    clip_status s = check_vector(p, u, "u");
    if (s == CLIP_OK) s = check_vector(p, v, "v");
    if (s == CLIP_OK) s = check_limits(p, a, "A");
    if (s == CLIP_OK && clip_data_numel(u) >= DIM_LIMIT) s = check_limits(p, u, "u");
    if (s == CLIP_OK && clip_data_numel(v) >= DIM_LIMIT) s = check_limits(p, v, "v");
    if (s != CLIP_OK) return s;
    const int shape = clip_proc_choice(p, "shape"), variant = clip_proc_choice(p, "variant");
    const int normalize = clip_proc_bool(p, "normalize");
    conv2_geom g;
    size_t dims[CLIP_MAX_DIMS];
    const int nd = geom_of(p, a, clip_data_numel(u), clip_data_numel(v), &g, dims);
    g.t = clip_type_promote(clip_type_promote(clip_data_type(u), clip_data_type(v)),
                            clip_data_type(a));
    const int io = prepare_io(p, &g, 3, nd, dims, &s);
    if (io) return s;
    if (clip_data_numel(a) == 0 || g.mk == 0 || g.nk == 0) return init_sep_empty(p, &g, normalize);
    /* Each pass reads the zero padding under full and same: an Inf in u or v must skip it. */
    const int skipz = g.pad == 0 && shape != CONV2_SHAPE_VALID;
    if (normalize || skipz) s = init_kinfo_uv(p, &g);
    static const int kinds[] = {0, CONV2_LOCAL, CONV2_GLOBAL, CONV2_BLOCK};
    return s == CLIP_OK ? init_separable(p, &g, kinds[variant], normalize, skipz) : s;
}

const clip_process_desc clip_process_conv2sep = {
    .abi = CLIP_PROCESS_ABI,
    .rebind = 1,
    .name = "conv2sep",
    .summary = "separable 2-D convolution per slice (MATLAB conv2(u, v, A, shape): columns by u, "
               "rows by v; K below is u(:)*v(:).')",
    .n_inputs = 3,
    .input_names = conv2sep_input_names,
    .input_docs = conv2sep_inputs,
    .n_outputs = 1,
    .output_names = conv2sep_output_names,
    .output_docs = conv2sep_outputs,
    .params = conv2sep_params,
    .n_params = sizeof conv2sep_params / sizeof conv2sep_params[0],
    .state_size = sizeof(conv2_state),
    .init = conv2sep_init,
    .launch = conv2_launch,
    .release = conv2_release,
};
