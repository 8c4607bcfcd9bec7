/* norm: MATLAB's norm(v, p) of a vector, norm(A, p) of a matrix and vecnorm(A, p, dim).
 *
 * Semantics (complex elements by their modulus; results real, of the input's precision):
 *   vector    (at most one dimension other than 1, or 0x0): norm(v, p) for any p > 0 (MATLAB's
 *             "positive real scalar", 0 < p < 1 included), Inf and -Inf (min |x|); p = fro is
 *             p = 2. The paths below.
 *   matrix    (2-D, both dimensions other than 1; trailing singleton dims are fine): p = 1 the
 *             largest column sum of |a_ij|, p = Inf the largest row sum (processes/norm_lines.c),
 *             p = 2 (the default) the largest singular value (processes/norm_svd.c: Lanczos
 *             bidiagonalisation on the device), p = fro sqrt(sum |a_ij|^2) (the vector path over
 *             every element). Any other p is CLIP_ERR_BAD_NORM_ORDER, as MATLAB refuses it.
 *   N-D       (more than 2 non-singleton dimensions): p = fro over every element (MATLAB's
 *             norm(X, 'fro') of an array); otherwise CLIP_ERR_SHAPE, as MATLAB's norm.
 *   dim = d   (>= 1) vecnorm(A, p, d): the norm of every line along dimension d, output of A's
 *             size with size d set to 1 (a d past A's dimensions gives |A|); p > 0, Inf, or -Inf
 *             (min |x|, beyond vecnorm); fro is refused (vecnorm has no such order).
 *   empty     an empty input gives 0 for every order, as MATLAB's norm (vecnorm: zeros of the
 *             output size, which may itself be empty).
 *   NaN, Inf  NaN anywhere gives NaN (per line with dim); otherwise Inf gives Inf, but for
 *             min |x| (as its definition) and the matrix 2-norm, which is NaN as MATLAB's and
 *             Octave's (an svd of a matrix holding Inf).
 *
 * The vector paths:
 *
 * Each path is a two-stage reduction (processes/reduce_common.h, kernels/norm.cl), one pass over
 * the data:
 *   p = 1     sum |x|
 *   p = 2     Blue's scaled sum of squares, no overflow or underflow (as MATLAB's)
 *   p = Inf   max |x|, p = -Inf min |x|
 *   other p   M * (sum (|x|/M)^p)^(1/p) with M = max |x| or, for p <= 64, the power of two
 *             at or below it (exact scaling): every work-item keeps a running scale and its
 *             scaled sum, rescaled when the scale grows; partials combine by the same rule. No
 *             power overflows or underflows to matter. Integer p up to 64 multiplies,
 *             half-integers add a sqrt (an rsqrt in double), others use exp2(p*log2(|x|/M)).
 * Single-precision sums are compensated unless sum=plain (reduce_common.h).
 * method=twopass reads the data twice instead (max, then the sum scaled by it): the former
 * path, kept to check the one-pass one against.
 * Results are of the input's precision; NaN anywhere gives NaN; an empty input gives 0. */
#include <math.h>
#include <string.h>

#include "norm.h"
#include "reduce_common.h"
#include "reduce_plan.h"

enum { MODE_SUM = 1, MODE_SUMSQ = 2, MODE_MAX = 3, MODE_MIN = 4, MODE_POW2 = 5, MODE_POW1 = 6 };
enum { NORM_MAX_INT_P = 64 };

enum { NORM_VECTOR, NORM_LINES, NORM_MATRIX2 };

typedef struct norm_state {
    int kind;         /* NORM_*: which of the following runs */
    double pv;        /* the order (2 for fro) */
    norm_lines lines; /* dim, and the matrix 1- and Inf-norms */
    norm_svd svd;     /* the matrix 2-norm */
    cl_kernel s1, s2; /* the pass that gives the result */
    cl_kernel m1, m2; /* the max pass before MODE_POW2, else NULL */
    cl_mem part, aux; /* partials; aux[0] = max |x| for MODE_POW2 */
    reduce_geom geom;
    int mode;
    size_t out_bytes;
} norm_state;

static const char *const norm_variants[] = {"auto", "scalar", "vector", "vector16", NULL};
static const char *const norm_methods[] = {"auto", "onepass", "twopass", NULL};
static const char *const norm_named[] = {"fro", NULL};
static const clip_param_desc norm_params[] = {
    {"p", CLIP_PARAM_REAL, 2.0, 0, 0, 0, norm_named,
     "order: a real > 0, inf or -inf (min |x|) of a vector; 1, 2, inf or fro of a matrix", 0, 0, 0},
    {"dim", CLIP_PARAM_INT, 0, 1, 0, CLIP_MAX_DIMS, NULL,
     "0: the norm of the whole input; d >= 1: vecnorm(A, p, d), the norms along dimension d",
     CLIP_PARAM_AUTO, 0, 0},
    {"variant", CLIP_PARAM_CHOICE, 0, 0, 0, 0, norm_variants,
     "loads per work-item: scalar (one element), vector (4 reals), vector16 (16 reals); "
     "auto: vector on GPUs, vector16 on CPUs",
     0, 0, 0},
    {"method", CLIP_PARAM_CHOICE, 0, 0, 0, 0, norm_methods,
     "orders other than 1, 2, +-Inf: onepass (auto; running max and rescaled sum) or twopass "
     "(max, then the scaled sum)",
     0, 0, 0},
    REDUCE_TUNING_PARAMS,
};
static const char *const norm_input_names[] = {"A"};
static const char *const norm_inputs[] = {
    "vector (1xN, Nx1, or N-D with one non-singleton dim), matrix, or any array with dim"};
static const char *const norm_output_names[] = {"N"};
static const char *const norm_outputs[] = {
    "1x1 real (with dim: A's size, 1 along dim); single for single input, double for double"};

/* Scalars per load for the variant; complex loads whole elements. */
static unsigned norm_vec(int variant, const clip_device_info *dev, int complex) {
    switch (variant) {
    case 1:
        return complex ? 2 : 1;
    case 2:
        return 4;
    case 3:
        return 16;
    default:
        /* CPUs (PoCL) vectorise a work-item's own vector types, not a loop over scalars: one
         * AVX-512 register per load. GPUs want 16-byte loads per work-item. */
        return dev->type == CLIP_DEVICE_GPU ? 4 : 16;
    }
}

static const char *norm_mode_name(int mode) {
    switch (mode) {
    case MODE_SUM:
        return "sum-abs";
    case MODE_SUMSQ:
        return "sumsq-blue";
    case MODE_MAX:
        return "max-abs";
    case MODE_MIN:
        return "min-abs";
    case MODE_POW2:
        return "pow-2pass";
    default:
        return "pow-1pass";
    }
}

/* Builds stage 1 and 2 of one mode. */
static clip_status norm_kernels(clip_process *p, clip_type t, unsigned vec, int mode, int pint,
                                int phalf, cl_kernel *k1, cl_kernel *k2) {
    norm_state *st = clip_proc_state(p);
    unsigned lanes = (mode != MODE_SUMSQ && clip_type_is_complex(t)) ? vec / 2 : vec;
    char extra[128], opts[224];
    int comp = reduce_compensated(p, clip_type_is_double(t));
    /* Power-of-two scales where the terms (below 2^p) leave the sums finite (see norm.cl). */
    int scale2 = mode == MODE_POW1 && st->pv <= NORM_MAX_INT_P;
    snprintf(extra, sizeof extra,
             "-DMODE=%d -DPINT=%d -DPHALF=%d -DVEC=%u -DAW=%u -DCOMP=%d -DSCALE2=%d", mode, pint,
             phalf, vec, lanes, comp, scale2);
    reduce_options(opts, sizeof opts, &st->geom, extra);
    clip_status s = clip_proc_kernel(p, "norm", t, opts, "norm_stage1", k1);
    if (s == CLIP_OK) s = clip_proc_kernel(p, "norm", t, opts, "norm_stage2", k2);
    return s;
}

/* Whether every dimension past the second is 1. */
static int is_2d(const clip_data *x) {
    for (int i = 2; i < clip_data_ndims(x); i++)
        if (clip_data_dim(x, i) != 1) return 0;
    return 1;
}

/* vecnorm(A, p, dim): the norms along dimension dim (1-based) into A's size, 1 along it (the
 * output is made by norm_output). */
static clip_status norm_init_dim(clip_process *p, clip_data *x, int dim) {
    norm_state *st = clip_proc_state(p);
    st->kind = NORM_LINES;
    clip_status s = norm_lines_init(p, &st->lines, x, dim - 1, st->pv, 0);
    if (s != CLIP_OK) return s;
    char variant[64];
    snprintf(variant, sizeof variant, "lines dim %d %s l%zu", dim,
             st->lines.pre == 1 ? "contiguous" : "strided", st->lines.local);
    clip_proc_set_variant(p, variant);
    return CLIP_OK;
}

/* norm(A, p) of a matrix for p = 1, Inf (lines, then their max) or 2 (Lanczos). */
static clip_status norm_init_matrix(clip_process *p, clip_data *x, double pv) {
    norm_state *st = clip_proc_state(p);
    if (pv == 2) {
        st->kind = NORM_MATRIX2;
        return norm_svd_init(p, &st->svd, x);
    }
    st->kind = NORM_LINES;
    clip_status s = norm_lines_init(p, &st->lines, x, pv == 1 ? 0 : 1, 1, 1);
    if (s == CLIP_OK)
        clip_proc_set_variant(p, pv == 1 ? "matrix-1 column sums" : "matrix-inf row sums");
    return s;
}

enum { SHAPE_VECTOR, SHAPE_LINES, SHAPE_MATRIX };

/* Checks the order and shape as MATLAB's norm and vecnorm do and creates the output (real, of
 * the input's precision). *shape says which computation it is; *pv is the order (2 for fro). */
static clip_status norm_output(clip_process *p, int *shape, double *pv) {
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    const int fro = clip_proc_named(p, "p") == 0;
    const int dim = (int)clip_proc_int(p, "dim");
    *pv = fro ? 2 : clip_proc_real(p, "p");
    char dims[96];
    if (fro && dim)
        return clip_proc_fail(p, CLIP_ERR_BAD_NORM_ORDER,
                              "p = fro takes no dim: vecnorm's orders are p > 0 and Inf; "
                              "norm(A, 'fro') is the 2-norm of every element");
    /* MATLAB's norm and vecnorm take any positive p; 0 and negative orders are not norms there
     * (Octave's norm(v, 0) counts the non-zeros instead). */
    if (isnan(*pv) || (*pv <= 0 && *pv != -INFINITY))
        return clip_proc_fail(p, CLIP_ERR_BAD_NORM_ORDER, "p must be > 0, Inf or -Inf, got %g",
                              *pv);
    clip_type rt = clip_type_is_double(clip_data_type(x)) ? CLIP_F64 : CLIP_F32;
    if (dim) {
        int nd = clip_data_ndims(x);
        size_t od[CLIP_MAX_DIMS];
        for (int i = 0; i < CLIP_MAX_DIMS; i++)
            od[i] = i < nd ? clip_data_dim(x, i) : 1;
        if (dim > nd) nd = dim;
        od[dim - 1] = 1;
        *shape = SHAPE_LINES;
        return clip_proc_output(p, 0, rt, nd < 2 ? 2 : nd, od, &y);
    }
    const size_t one[2] = {1, 1};
    *shape = SHAPE_VECTOR;
    if (clip_data_numel(x) != 0 && !fro && !reduce_is_vector(x)) {
        if (!is_2d(x))
            return clip_proc_fail(p, CLIP_ERR_SHAPE,
                                  "input is %s: MATLAB's norm takes vectors and matrices (and "
                                  "any array with p = fro); use dim for norms along a dimension",
                                  reduce_dims_str(x, dims, sizeof dims));
        if (*pv != 1 && *pv != 2 && *pv != INFINITY)
            return clip_proc_fail(p, CLIP_ERR_BAD_NORM_ORDER,
                                  "p = %g is not a matrix norm: MATLAB's norm(A, p) of a matrix "
                                  "(here %s) takes 1, 2, Inf or 'fro'",
                                  *pv, reduce_dims_str(x, dims, sizeof dims));
        *shape = SHAPE_MATRIX;
    }
    return clip_proc_output(p, 0, rt, 2, one, &y);
}

static clip_status norm_init(clip_process *p) {
    norm_state *st = clip_proc_state(p);
    clip_data *x = clip_proc_input(p, 0);
    int shape = SHAPE_VECTOR;
    double pv = 2;
    clip_status s = norm_output(p, &shape, &pv);
    if (s != CLIP_OK) return s;
    st->pv = pv;
    st->kind = NORM_VECTOR;
    clip_type t = clip_data_type(x);
    clip_type rt = clip_type_is_double(t) ? CLIP_F64 : CLIP_F32;
    st->out_bytes = clip_type_size(rt);
    if (shape == SHAPE_LINES) return norm_init_dim(p, x, (int)clip_proc_int(p, "dim"));
    if (shape == SHAPE_MATRIX) return norm_init_matrix(p, x, pv);

    int pint = 0, phalf = 0;
    if (pv == 1)
        st->mode = MODE_SUM;
    else if (pv == 2)
        st->mode = MODE_SUMSQ;
    else if (pv == INFINITY)
        st->mode = MODE_MAX;
    else if (pv == -INFINITY)
        st->mode = MODE_MIN;
    else {
        st->mode = clip_proc_choice(p, "method") == 2 ? MODE_POW2 : MODE_POW1;
        if (pv <= NORM_MAX_INT_P && pv == floor(pv)) {
            pint = (int)pv;
        } else if (pv <= NORM_MAX_INT_P && 2 * pv == floor(2 * pv)) {
            pint = (int)floor(pv); /* y^(k + 1/2) = y^k * sqrt(y), exact but for roundings */
            phalf = 1;
        }
    }
    const clip_device_info *dev = clip_proc_device(p);
    int cx = clip_type_is_complex(t);
    unsigned vec = norm_vec(clip_proc_choice(p, "variant"), dev, cx);
    /* Double half-integer powers (rsqrt and its Newton steps) need registers enough that 4
     * loads in flight cost H100 occupancy: 2.44 TB/s at p = 2.5, 2.74 with 2. */
    unsigned gpu_unroll = phalf && clip_type_is_double(t) && st->mode == MODE_POW1 ? 2 : 0;
    s = reduce_geometry(p, clip_data_numel(x) * (cx ? 2 : 1), vec, gpu_unroll, &st->geom);
    if (s != CLIP_OK) return s;
    s = norm_kernels(p, t, vec, st->mode, pint, phalf, &st->s1, &st->s2);
    if (s == CLIP_OK && st->mode == MODE_POW2)
        s = norm_kernels(p, t, vec, MODE_MAX, 0, 0, &st->m1, &st->m2);
    size_t rsz = clip_type_size(rt);
    size_t rows = st->mode == MODE_SUMSQ ? 3 : st->mode == MODE_POW1 ? 2 : 1;
    if (s == CLIP_OK) s = clip_proc_temp(p, st->geom.groups * rows * rsz, &st->part);
    if (s == CLIP_OK) s = clip_proc_temp(p, rsz, &st->aux);
    if (s != CLIP_OK) return s;

    char variant[64];
    const char *pw = st->mode < MODE_POW2 ? "" : phalf ? "-half" : pint ? "-int" : "-exp";
    int comp = st->mode != MODE_MAX && st->mode != MODE_MIN &&
               reduce_compensated(p, clip_type_is_double(t));
    snprintf(variant, sizeof variant, "%s%s%s vec%u u%u g%zu l%zu", norm_mode_name(st->mode), pw,
             comp ? "-comp" : "", vec, st->geom.unroll, st->geom.groups, st->geom.local);
    clip_proc_set_variant(p, variant);
    return CLIP_OK;
}

/* Enqueues stage 1 (x -> partials) and stage 2 (partials -> out) of one pass. */
static clip_status norm_pass(clip_process *p, cl_kernel k1, cl_kernel k2, cl_mem x, cl_mem out,
                             double pv, int dbl) {
    norm_state *st = clip_proc_state(p);
    float pf = (float)pv;
    size_t psz = dbl ? sizeof pv : sizeof pf;
    const void *pp = dbl ? (const void *)&pv : (const void *)&pf;
    cl_uint ng = (cl_uint)st->geom.groups;
    size_t global = 0, local = st->geom.local;
    clip_status s = clip_proc_arg(p, k1, 0, sizeof x, &x);
    if (s == CLIP_OK) s = reduce_geom_args(p, k1, 1, &st->geom, &global);
    if (s == CLIP_OK) s = clip_proc_arg(p, k1, 4, sizeof st->aux, &st->aux);
    if (s == CLIP_OK) s = clip_proc_arg(p, k1, 5, psz, pp);
    if (s == CLIP_OK) s = clip_proc_arg(p, k1, 6, sizeof st->part, &st->part);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, k1, 1, &global, &local);
    if (s == CLIP_OK) s = clip_proc_arg(p, k2, 0, sizeof st->part, &st->part);
    if (s == CLIP_OK) s = clip_proc_arg(p, k2, 1, sizeof ng, &ng);
    if (s == CLIP_OK) s = clip_proc_arg(p, k2, 2, sizeof st->aux, &st->aux);
    if (s == CLIP_OK) s = clip_proc_arg(p, k2, 3, psz, pp);
    if (s == CLIP_OK) s = clip_proc_arg(p, k2, 4, sizeof out, &out);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, k2, 1, &local, &local);
    return s;
}

static clip_status norm_launch(clip_process *p) {
    norm_state *st = clip_proc_state(p);
    clip_data *x = clip_proc_input(p, 0), *y = NULL;
    clip_process_output(p, 0, &y);
    cl_mem xm = NULL, ym = NULL;
    if (clip_data_numel(y) == 0) return CLIP_OK;
    clip_status s = clip_proc_write_buffer(p, y, 0, &ym);
    if (s != CLIP_OK) return s;
    if (clip_data_numel(x) == 0) {
        const double zero[1] = {0}; /* all-zero bytes are 0.0 of either precision */
        return clip_proc_fill(p, ym, zero, st->out_bytes, 0, clip_data_bytes(y));
    }
    s = clip_proc_read_buffer(p, x, &xm);
    if (s != CLIP_OK) return s;
    if (st->kind == NORM_LINES) return norm_lines_launch(p, &st->lines, xm, ym);
    if (st->kind == NORM_MATRIX2) return norm_svd_launch(p, &st->svd, xm, ym);
    double pv = st->pv;
    int dbl = clip_type_is_double(clip_data_type(x));
    if (st->mode == MODE_POW2) {
        s = norm_pass(p, st->m1, st->m2, xm, st->aux, pv, dbl);
        if (s != CLIP_OK) return s;
    }
    return norm_pass(p, st->s1, st->s2, xm, ym, pv, dbl);
}

/* The pieces' norms combined in piece order, in double: p = 1 and 2 and any other order by
 * M * (sum (n_i / M)^p)^(1/p) with M the largest piece norm (no overflow), Inf and the matrix
 * 1- and Inf-norms by the largest, -Inf by the smallest; a NaN piece gives NaN. Within the
 * single-device result's rounding, not bit for bit (another summation order). */
static clip_status norm_combine(clip_process *p, int output, const void *partials, size_t n,
                                void *result) {
    clip_data *y = NULL;
    clip_process_output(p, output, &y);
    const int dbl = clip_type_is_double(clip_data_type(y));
    const int fro = clip_proc_named(p, "p") == 0;
    const double pv = fro ? 2 : clip_proc_real(p, "p");
    const int by_max = pv == INFINITY || (!fro && !reduce_is_vector(clip_proc_input(p, 0)));
#define PIECE(i) (dbl ? ((const double *)partials)[i] : (double)((const float *)partials)[i])
    double m = 0.0, r = 0.0;
    for (size_t i = 0; i < n; i++) {
        const double v = PIECE(i);
        if (isnan(v))
            m = NAN;
        else if (!isnan(m) && (i == 0 || (pv == -INFINITY ? v < m : v > m)))
            m = v;
    }
    if (isnan(m) || by_max || pv == -INFINITY || m == 0.0 || isinf(m)) {
        r = m;
    } else {
        for (size_t i = 0; i < n; i++)
            r += pv == 1 ? PIECE(i) / m : pow(PIECE(i) / m, pv);
        r = m * (pv == 1 ? r : pv == 2 ? sqrt(r) : pow(r, 1.0 / pv));
    }
#undef PIECE
    if (dbl)
        *(double *)result = r;
    else
        *(float *)result = (float)r;
    return CLIP_OK;
}

/* Vectors and fro: chunks, combined; the matrix 1-norm: bands of columns, Inf-norm: bands of
 * rows (at least two rows each: a single row would read as a vector), combined by the largest;
 * vecnorm: bands of lines; the matrix 2-norm and empties run whole. */
static clip_status norm_plan(clip_process *p, clip_plan *pl) {
    int shape = SHAPE_VECTOR;
    double pv = 2;
    clip_status s = norm_output(p, &shape, &pv);
    clip_data *x = clip_proc_input(p, 0);
    if (s != CLIP_OK || clip_data_numel(x) == 0) return s;
    if (shape == SHAPE_LINES) return reduce_plan_lines(p, pl, 1, (int)clip_proc_int(p, "dim") - 1);
    if (shape == SHAPE_VECTOR) return reduce_plan_chunks(p, pl, 1, 0, norm_combine);
    if (pv == 2) return CLIP_OK;
    /* the box runs along columns (dim 1) for p = 1, rows (dim 0) for Inf */
    const int along = pv == 1 ? 1 : 0;
    const size_t n = clip_data_dim(x, along);
    size_t parts = clip_plan_target(pl);
    if (parts > n / 2) parts = n / 2;
    if (parts < 2) return CLIP_OK;
    clip_plan_combine(pl, 0, norm_combine);
    for (size_t b = 0; b < parts && s == CLIP_OK; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        clip_box_all(x, &pc.in[0]);
        clip_plan_band(n, parts, b, &pc.in[0].start[along], &pc.in[0].count[along]);
        s = clip_plan_add(pl, &pc);
    }
    return s;
}

static void norm_release(clip_process *p) {
    norm_state *st = clip_proc_state(p);
    norm_svd_release(&st->svd);
}

const clip_process_desc clip_process_norm = {
    .abi = CLIP_PROCESS_ABI,
    .rebind = 1,
    .name = "norm",
    .summary = "MATLAB's norm(v, p) of a vector, norm(A, p) of a matrix (p = 1, 2, Inf, fro) "
               "and vecnorm(A, p, dim)",
    .n_inputs = 1,
    .input_names = norm_input_names,
    .input_docs = norm_inputs,
    .n_outputs = 1,
    .output_names = norm_output_names,
    .output_docs = norm_outputs,
    .params = norm_params,
    .n_params = sizeof norm_params / sizeof norm_params[0],
    .state_size = sizeof(norm_state),
    .init = norm_init,
    .launch = norm_launch,
    .plan = norm_plan,
    .release = norm_release,
};
