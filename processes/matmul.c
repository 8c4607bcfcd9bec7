/* matmul: C = A*B as MATLAB's mtimes. Any M, K, N; real or complex; mixed types promote on the
 * device; a 1x1 operand is scalar multiplication (and may then meet an N-D array, as in MATLAB);
 * otherwise both operands are matrices with matching inner dimensions. */
#include <limits.h>

#include "clip/process_author.h"
#include "gemm.h"

typedef struct matmul_state {
    clip_gemm gemm;
    cl_kernel scalar;   /* set when one operand is 1x1 */
    int scalar_input;   /* which input is the scalar */
    size_t m, n, k;
} matmul_state;

static const clip_param_desc matmul_params[] = {CLIP_GEMM_PARAM_ROWS};
static const char *const matmul_inputs[] = {"A  left matrix (M x K), or a 1x1 scalar",
                                             "B  right matrix (K x N), or a 1x1 scalar"};
static const char *const matmul_outputs[] = {"C  A*B (M x N) of the promoted type"};

/* The product of a 1x1 operand with anything: the other operand's shape. */
static clip_status init_scalar(clip_process *p, matmul_state *st, clip_type t, int si) {
    clip_data *x = clip_proc_input(p, 1 - si), *c = NULL;
    st->scalar_input = si;
    clip_status s = clip_proc_output(p, 0, t, clip_data_ndims(x), clip_data_dims(x), &c);
    if (s != CLIP_OK || clip_data_numel(x) == 0) return s;
    clip_proc_set_variant(p, "scalar");
    return clip_proc_kernel(p, "matmul", t, "-DGEMM_SCALAR_ONLY=1", "gemm_scalar", &st->scalar);
}

static clip_status matmul_init(clip_process *p) {
    matmul_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *b = clip_proc_input(p, 1), *c = NULL;
    clip_type t = clip_type_promote(clip_data_type(a), clip_data_type(b));
    clip_status s = clip_proc_input_as(p, 0, t);
    if (s == CLIP_OK) s = clip_proc_input_as(p, 1, t);
    if (s != CLIP_OK) return s;
    if (clip_data_numel(a) == 1) return init_scalar(p, st, t, 0);
    if (clip_data_numel(b) == 1) return init_scalar(p, st, t, 1);

    char sa[96], sb[96];
    clip_gemm_shape_str(a, sa, sizeof sa);
    clip_gemm_shape_str(b, sb, sizeof sb);
    if (!clip_gemm_is_2d(a) || !clip_gemm_is_2d(b))
        return clip_proc_fail(p, CLIP_ERR_SHAPE,
                              "operands must be 2-D unless one is a scalar: A is %s, B is %s", sa, sb);
    st->m = clip_data_dim(a, 0);
    st->k = clip_data_dim(a, 1);
    st->n = clip_data_dim(b, 1);
    if (clip_data_dim(b, 0) != st->k)
        return clip_proc_fail(p, CLIP_ERR_INNER_DIM, "inner dimensions differ: A is %s, B is %s", sa,
                              sb);
    if (st->m > INT_MAX || st->n > INT_MAX || st->k > INT_MAX)
        return clip_proc_fail(p, CLIP_ERR_SHAPE, "A is %s and B is %s: a dimension exceeds %d", sa,
                              sb, INT_MAX);
    size_t dims[2] = {st->m, st->n};
    s = clip_proc_output(p, 0, t, 2, dims, &c);
    if (s != CLIP_OK) return s;
    if (c == a || c == b)
        return clip_proc_fail(p, CLIP_ERR_INVALID_ARG, "the output must not be one of the inputs");

    clip_gemm_params prm;
    s = clip_gemm_params_from_process(p, t, st->m, st->n, st->k, &prm);
    if (s != CLIP_OK) return s;
    if (st->m == 0 || st->n == 0) {
        clip_proc_set_variant(p, "empty");
        return CLIP_OK;
    }
    if (st->k == 0) {
        clip_proc_set_variant(p, "zeros");
        return CLIP_OK;
    }
    char desc[128];
    clip_gemm_describe(&prm, desc, sizeof desc);
    clip_proc_set_variant(p, desc);
    return clip_gemm_build(p, t, &prm, st->m, st->n, &st->gemm);
}

static clip_status launch_scalar(clip_process *p, matmul_state *st) {
    clip_data *c = NULL;
    clip_process_output(p, 0, &c);
    cl_ulong n = clip_data_numel(c);
    if (n == 0) return CLIP_OK;
    cl_mem sm, xm, cm;
    clip_status s = clip_proc_input_buffer(p, st->scalar_input, &sm);
    if (s == CLIP_OK) s = clip_proc_input_buffer(p, 1 - st->scalar_input, &xm);
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, c, 0, &cm);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->scalar, 0, sizeof sm, &sm);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->scalar, 1, sizeof xm, &xm);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->scalar, 2, sizeof cm, &cm);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->scalar, 3, sizeof n, &n);
    size_t local = 64, global = ((size_t)n + local - 1) / local * local;
    if (s == CLIP_OK) s = clip_proc_enqueue(p, st->scalar, 1, &global, &local);
    return s;
}

static clip_status matmul_launch(clip_process *p) {
    matmul_state *st = clip_proc_state(p);
    if (st->scalar) return launch_scalar(p, st);
    clip_data *c = NULL;
    clip_process_output(p, 0, &c);
    if (clip_data_numel(c) == 0) return CLIP_OK;
    cl_mem am, bm, cm;
    clip_status s = clip_proc_input_buffer(p, 0, &am);
    if (s == CLIP_OK) s = clip_proc_input_buffer(p, 1, &bm);
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, c, 0, &cm);
    if (s != CLIP_OK) return s;
    clip_gemm g = st->gemm;
    if (st->k == 0) g.type = clip_data_type(c); /* no kernel was built: C is only zero-filled */
    const clip_gemm_scalar one = {1, 0}, zero = {0, 0};
    const clip_gemm_operand A = {am, 0, st->m}, B = {bm, 0, st->k}, C = {cm, 0, st->m};
    return clip_gemm_enqueue(p, &g, st->m, st->n, st->k, one, A, B, zero, C);
}

const clip_process_desc clip_process_matmul = {
    .name = "matmul",
    .summary = "matrix product A*B (MATLAB: A*B, mtimes)",
    .n_inputs = 2,
    .input_docs = matmul_inputs,
    .n_outputs = 1,
    .output_docs = matmul_outputs,
    .params = matmul_params,
    .n_params = CLIP_GEMM_PARAM_COUNT,
    .state_size = sizeof(matmul_state),
    .init = matmul_init,
    .launch = matmul_launch,
};
