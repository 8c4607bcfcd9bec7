/* dot: MATLAB's dot(a, b) = sum(conj(a) .* b), conjugating the first argument.
 *   vectors   two vectors of the same number of elements, in any orientation (a row and a
 *             column, or N-D arrays with one non-singleton dimension, which MATLAB would accept
 *             only against an array of the same size), dim 0: the 1x1 dot product; two empty
 *             vectors give 0.
 *   arrays    otherwise A and B must have the same size (CLIP_ERR_SHAPE), and dot(A, B) works
 *             along the first dimension whose size is not 1 (column-wise for matrices); dim = d
 *             (>= 1) along dimension d (for vectors too; d past A's dimensions gives
 *             conj(A) .* B). The result has A's size with 1 along that dimension; an empty
 *             dimension gives zeros (dot(zeros(0, 3), zeros(0, 3)) is 1x3 zeros, as MATLAB).
 *             processes/dot_lines.c, kernels/dot_lines.cl.
 * Mixed types promote as MATLAB (single wins; complex if either) on the device; the result is of
 * that type.
 *
 * The vector path:
 * A two-stage reduction (processes/reduce_common.h, kernels/dot.cl): stage 1 streams both
 * vectors once with vector loads, one partial per work-group; stage 2 sums the partials.
 * A real operand of a complex product stays real (as MATLAB's real .* complex: no 0 * Inf NaN
 * from a zero imaginary part, and half the bytes to read). */
#include <string.h>

#include "dot_lines.h"
#include "reduce_common.h"
#include "reduce_plan.h"

typedef struct dot_state {
    int along; /* 1: dot along a dimension (lines) */
    dot_lines lines;
    cl_kernel s1, s2;
    cl_mem part;
    reduce_geom geom;
    size_t out_bytes;
} dot_state;

static const char *const dot_variants[] = {"auto", "scalar", "vector", "vector16", NULL};
static const clip_param_desc dot_params[] = {
    {"variant", CLIP_PARAM_CHOICE, 0, 0, 0, 0, dot_variants,
     "loads per work-item: scalar (one element), vector (4 reals), vector16 (16 reals); "
     "auto: vector on GPUs, vector16 on CPUs",
     0, 0, 0},
    REDUCE_TUNING_PARAMS,
    {"dim", CLIP_PARAM_INT, 0, 1, 0, CLIP_MAX_DIMS, NULL,
     "0: vectors' dot product, or along the first non-singleton dimension; d >= 1: along d",
     CLIP_PARAM_AUTO, 0, 0},
};
static const char *const dot_input_names[] = {"A", "B"};
static const char *const dot_inputs[] = {"vector, or array (conjugated, as MATLAB)",
                                         "vector with as many elements as A, or array of A's size"};
static const char *const dot_output_names[] = {"D"};
static const char *const dot_outputs[] = {
    "1x1 for vectors, else A's size with 1 along the dimension; the promoted type"};

/* Elements per load for the variant: 1, or 4 or 16 reals' worth (halved when the result is
 * complex, where a complex operand's load is twice as wide). See norm.c for why CPUs get 16. */
static unsigned dot_epl(int variant, const clip_device_info *dev, int complex) {
    unsigned reals = variant == 1                   ? 1
                     : variant == 2                 ? 4
                     : variant == 3                 ? 16
                     : dev->type == CLIP_DEVICE_GPU ? 4
                                                    : 16;
    return complex && reals > 1 ? reals / 2 : reals;
}

/* Checks the operands for MATLAB's dot and creates the output. *line_dim is the 1-based
 * dimension dot works along (dot(A, B, dim) of arrays, and vectors with dim given), or 0 for
 * the 1x1 product of two vectors. */
static clip_status dot_output(clip_process *p, int *line_dim) {
    clip_data *a = clip_proc_input(p, 0), *b = clip_proc_input(p, 1), *y = NULL;
    clip_type t = clip_type_promote(clip_data_type(a), clip_data_type(b));
    int dim = (int)clip_proc_int(p, "dim");
    *line_dim = 0;
    if (!dim && reduce_is_vector(a) && reduce_is_vector(b)) {
        if (clip_data_numel(a) != clip_data_numel(b))
            return clip_proc_fail(p, CLIP_ERR_LENGTH_MISMATCH,
                                  "vectors differ in length: a has %zu elements, b has %zu",
                                  clip_data_numel(a), clip_data_numel(b));
        const size_t one[2] = {1, 1};
        return clip_proc_output(p, 0, t, 2, one, &y);
    }
    char da[96], db[96];
    const int na = clip_data_ndims(a), nb = clip_data_ndims(b), nd = na > nb ? na : nb;
    for (int i = 0; i < nd; i++)
        if (clip_data_dim(a, i) != clip_data_dim(b, i))
            return clip_proc_fail(p, CLIP_ERR_SHAPE,
                                  "A is %s and B is %s: MATLAB's dot of arrays needs equal sizes "
                                  "(vectors of equal length may differ in orientation)",
                                  reduce_dims_str(a, da, sizeof da),
                                  reduce_dims_str(b, db, sizeof db));
    if (dim == 0) {
        dim = 1;
        while (dim < na && clip_data_dim(a, dim - 1) == 1)
            dim++;
    }
    size_t dims[CLIP_MAX_DIMS];
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        dims[i] = i < na ? clip_data_dim(a, i) : 1;
    dims[dim - 1] = 1;
    const int ond = dim > na ? dim : na;
    *line_dim = dim;
    return clip_proc_output(p, 0, t, ond < 2 ? 2 : ond, dims, &y);
}

/* dot(A, B, dim) along dimension dim (1-based) of two arrays of the same size. */
static clip_status dot_init_along(clip_process *p, clip_data *a, clip_data *b, int dim) {
    dot_state *st = clip_proc_state(p);
    clip_type ta = clip_data_type(a), tb = clip_data_type(b), t = clip_type_promote(ta, tb);
    const int dbl = clip_type_is_double(t);
    const int acx = clip_type_is_complex(ta), bcx = clip_type_is_complex(tb);
    clip_type rtype = dbl ? CLIP_F64 : CLIP_F32, ctype = dbl ? CLIP_C64 : CLIP_C32;
    clip_status s = clip_proc_input_as(p, 0, acx ? ctype : rtype);
    if (s == CLIP_OK) s = clip_proc_input_as(p, 1, bcx ? ctype : rtype);
    if (s == CLIP_OK) s = dot_lines_init(p, &st->lines, a, dim - 1, t, acx, bcx);
    if (s != CLIP_OK) return s;
    st->along = 1;
    st->out_bytes = clip_type_size(t);
    char variant[64];
    snprintf(variant, sizeof variant, "lines dim %d %s l%zu", dim,
             st->lines.pre == 1 ? "contiguous" : "strided", st->lines.local);
    clip_proc_set_variant(p, variant);
    return CLIP_OK;
}

static clip_status dot_init(clip_process *p) {
    dot_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *b = clip_proc_input(p, 1);
    int dim = 0;
    st->along = 0;
    clip_status s = dot_output(p, &dim);
    if (s != CLIP_OK) return s;
    if (dim) return dot_init_along(p, a, b, dim);
    size_t n = clip_data_numel(a);
    /* The result's precision for both; each operand keeps its complexity (see dot.cl). */
    clip_type ta = clip_data_type(a), tb = clip_data_type(b), t = clip_type_promote(ta, tb);
    int dbl = clip_type_is_double(t), cx = clip_type_is_complex(t);
    int acx = clip_type_is_complex(ta), bcx = clip_type_is_complex(tb);
    clip_type rtype = dbl ? CLIP_F64 : CLIP_F32, ctype = dbl ? CLIP_C64 : CLIP_C32;
    s = clip_proc_input_as(p, 0, acx ? ctype : rtype);
    if (s == CLIP_OK) s = clip_proc_input_as(p, 1, bcx ? ctype : rtype);
    if (s != CLIP_OK) return s;
    st->out_bytes = clip_type_size(t);

    const clip_device_info *dev = clip_proc_device(p);
    unsigned epl = dot_epl(clip_proc_choice(p, "variant"), dev, cx);
    s = reduce_geometry(p, n, epl, 0, &st->geom);
    if (s != CLIP_OK) return s;
    char extra[96], opts[192];
    int comp = reduce_compensated(p, dbl);
    snprintf(extra, sizeof extra, "-DEPL=%u -DA_COMPLEX=%d -DB_COMPLEX=%d -DCOMP=%d", epl, acx, bcx,
             comp);
    reduce_options(opts, sizeof opts, &st->geom, extra);
    s = clip_proc_kernel(p, "dot", t, opts, "dot_stage1", &st->s1);
    if (s == CLIP_OK) s = clip_proc_kernel(p, "dot", t, opts, "dot_stage2", &st->s2);
    if (s == CLIP_OK)
        s = clip_proc_temp(p, st->geom.groups * st->out_bytes, &st->part); /* (re, im) each */
    if (s != CLIP_OK) return s;
    char variant[64];
    snprintf(variant, sizeof variant, "epl%u%s u%u g%zu l%zu", epl, comp ? " comp" : "",
             st->geom.unroll, st->geom.groups, st->geom.local);
    clip_proc_set_variant(p, variant);
    return CLIP_OK;
}

/* The pieces' dot products summed in piece order, in double (then rounded to the output's
 * precision), so the result is the same at every run: within the single-device result's
 * rounding, not bit for bit, since the single device sums in another order. */
static clip_status dot_combine(clip_process *p, int output, const void *partials, size_t n,
                               void *result) {
    clip_data *y = NULL;
    clip_process_output(p, output, &y);
    clip_type t = clip_data_type(y);
    const int comps = clip_type_is_complex(t) ? 2 : 1, dbl = clip_type_is_double(t);
    for (int c = 0; c < comps; c++) {
        double sum = 0.0;
        for (size_t i = 0; i < n; i++)
            sum += dbl ? ((const double *)partials)[i * comps + c]
                       : (double)((const float *)partials)[i * comps + c];
        if (dbl)
            ((double *)result)[c] = sum;
        else
            ((float *)result)[c] = (float)sum;
    }
    return CLIP_OK;
}

/* Vectors: chunks of both, partial products summed; along a dimension: bands of lines. */
static clip_status dot_plan(clip_process *p, clip_plan *pl) {
    int dim = 0;
    clip_status s = dot_output(p, &dim);
    if (s != CLIP_OK) return s;
    return dim ? reduce_plan_lines(p, pl, 2, dim - 1)
               : reduce_plan_chunks(p, pl, 2, 0, dot_combine);
}

static clip_status dot_launch(clip_process *p) {
    dot_state *st = clip_proc_state(p);
    clip_data *y = NULL;
    clip_process_output(p, 0, &y);
    cl_mem am = NULL, bm = NULL, ym = NULL;
    if (clip_data_numel(y) == 0) return CLIP_OK;
    clip_status s = clip_proc_write_buffer(p, y, 0, &ym);
    if (s != CLIP_OK) return s;
    if (clip_data_numel(clip_proc_input(p, 0)) == 0) {
        const double zero[2] = {0, 0}; /* all-zero bytes are 0 of every type */
        return clip_proc_fill(p, ym, zero, st->out_bytes, 0, clip_data_bytes(y));
    }
    s = clip_proc_input_buffer(p, 0, &am);
    if (s == CLIP_OK) s = clip_proc_input_buffer(p, 1, &bm);
    if (s != CLIP_OK) return s;
    if (st->along) return dot_lines_launch(p, &st->lines, am, bm, ym);
    cl_uint ng = (cl_uint)st->geom.groups;
    size_t global = 0, local = st->geom.local;
    s = clip_proc_arg(p, st->s1, 0, sizeof am, &am);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->s1, 1, sizeof bm, &bm);
    if (s == CLIP_OK) s = reduce_geom_args(p, st->s1, 2, &st->geom, &global);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->s1, 5, sizeof st->part, &st->part);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, st->s1, 1, &global, &local);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->s2, 0, sizeof st->part, &st->part);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->s2, 1, sizeof ng, &ng);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->s2, 2, sizeof ym, &ym);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, st->s2, 1, &local, &local);
    return s;
}

const clip_process_desc clip_process_dot = {
    .abi = CLIP_PROCESS_ABI,
    .rebind = 1,
    .name = "dot",
    .summary = "MATLAB's dot(a, b) = sum(conj(a).*b) of vectors, and dot(A, B, dim) of arrays",
    .n_inputs = 2,
    .input_names = dot_input_names,
    .input_docs = dot_inputs,
    .n_outputs = 1,
    .output_names = dot_output_names,
    .output_docs = dot_outputs,
    .params = dot_params,
    .n_params = sizeof dot_params / sizeof dot_params[0],
    .state_size = sizeof(dot_state),
    .init = dot_init,
    .launch = dot_launch,
    .plan = dot_plan,
};
