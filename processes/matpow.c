/* matpow: A^p as MATLAB's mpower for a natural power p. Left-to-right binary exponentiation:
 * R = A, then for each bit of p below the leading one R = R*R and, if the bit is set, R = R*A.
 * That is floor(log2 p) squarings plus popcount(p)-1 products. A stays read-only, so one device
 * temporary and the output suffice: the products alternate between them, arranged so that the
 * last lands in the output. p = 1 is one device copy, p = 0 an identity kernel. */
#include <math.h>
#include <stdint.h>

#include "clip/process_author.h"
#include "gemm.h"

typedef struct matpow_state {
    clip_gemm gemm;
    cl_kernel eye;
    cl_mem temp; /* the other half of the ping-pong with the output */
    uint64_t power;
    size_t n;
} matpow_state;

static const clip_param_desc matpow_params[] = {
    {"power", CLIP_PARAM_REAL, 1, 0, 0, 0, NULL, "natural exponent p (0, 1, 2, ...)", 0, 0, 0},
    CLIP_GEMM_PARAM_ROWS};
static const char *const matpow_input_names[] = {"A"};
static const char *const matpow_inputs[] = {"square matrix (n x n)"};
static const char *const matpow_output_names[] = {"C"};
static const char *const matpow_outputs[] = {"A^p (n x n), A's type"};

/* Products the schedule makes: floor(log2 p) squarings and popcount(p)-1 multiplies by A. */
static int product_count(uint64_t p) {
    int bits = 0, ones = 0;
    for (uint64_t q = p; q; q >>= 1) {
        bits++;
        ones += (int)(q & 1);
    }
    return p < 2 ? 0 : bits - 1 + ones - 1;
}

static clip_status matpow_init(clip_process *p) {
    matpow_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *c = NULL;
    clip_type t = clip_data_type(a);
    double pw = clip_proc_real(p, "power");
    /* 2^64: the first double a uint64_t cannot hold. */
    if (!(pw >= 0) || !isfinite(pw) || pw != floor(pw) || pw >= 18446744073709551616.0)
        return clip_proc_fail(p, CLIP_ERR_BAD_POWER,
                              "power must be a natural number (0, 1, 2, ... below 2^64), got %g",
                              pw);
    char sa[96];
    clip_gemm_shape_str(a, sa, sizeof sa);
    if (!clip_gemm_is_2d(a))
        return clip_proc_fail(p, CLIP_ERR_SHAPE, "A must be a 2-D matrix, it is %s", sa);
    if (clip_data_dim(a, 0) != clip_data_dim(a, 1))
        return clip_proc_fail(p, CLIP_ERR_NOT_SQUARE, "A must be square, it is %s", sa);
    st->n = clip_data_dim(a, 0);
    st->power = (uint64_t)pw;
    size_t dims[2] = {st->n, st->n};
    clip_status s = clip_proc_output(p, 0, t, 2, dims, &c);
    if (s != CLIP_OK) return s;
    clip_gemm_params prm;
    s = clip_gemm_params_from_process(p, t, st->n, st->n, st->n, CLIP_GEMM_NOTRANS,
                                      CLIP_GEMM_NOTRANS, 0, 0, &prm);
    if (s != CLIP_OK) return s;
    if (st->n == 0) {
        clip_proc_set_variant(p, "empty");
        return CLIP_OK;
    }
    if (st->power == 0) {
        clip_proc_set_variant(p, "identity");
        return clip_proc_kernel(p, "matpow", t, NULL, "matpow_eye", &st->eye);
    }
    if (st->power == 1) {
        clip_proc_set_variant(p, "copy");
        return CLIP_OK;
    }
    s = clip_gemm_build(p, t, &prm, st->n, st->n, st->n, &st->gemm);
    /* A single product (p = 2) writes the output directly. */
    if (s == CLIP_OK && product_count(st->power) > 1)
        s = clip_proc_temp(p, st->n * st->n * clip_type_size(t), &st->temp);
    return s;
}

static clip_status matpow_launch(clip_process *p) {
    matpow_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *c = NULL;
    clip_process_output(p, 0, &c);
    if (st->n == 0) return CLIP_OK;
    cl_mem am = NULL, cm = NULL;
    clip_status s = clip_proc_write_buffer(p, c, 0, &cm);
    if (s != CLIP_OK) return s;
    const size_t n = st->n;
    if (st->power == 0) {
        cl_ulong nn = n;
        size_t local = 64, global = (n * n + local - 1) / local * local;
        s = clip_proc_arg(p, st->eye, 0, sizeof cm, &cm);
        if (s == CLIP_OK) s = clip_proc_arg(p, st->eye, 1, sizeof nn, &nn);
        return s == CLIP_OK ? clip_proc_enqueue(p, st->eye, 1, &global, &local) : s;
    }
    s = clip_proc_read_buffer(p, a, &am);
    if (s != CLIP_OK) return s;
    if (st->power == 1)
        return clip_proc_copy(p, am, 0, cm, 0, n * n * clip_type_size(clip_data_type(a)));

    const clip_gemm_scalar one = {1, 0}, zero = {0, 0};
    const clip_gemm_operand A = {am, 0, n};
    const int steps = product_count(st->power);
    int top = 63;
    while (!((st->power >> top) & 1))
        top--;
    clip_gemm_operand r = A;
    int step = 0;
    for (int bit = top - 1; bit >= 0 && s == CLIP_OK; bit--) {
        for (int mul = 0; mul < 1 + (int)((st->power >> bit) & 1) && s == CLIP_OK; mul++) {
            /* Counting back from the last product, which must land in the output. */
            clip_gemm_operand out = {(steps - 1 - step) % 2 ? st->temp : cm, 0, n};
            s = clip_gemm_enqueue(p, &st->gemm, n, n, n, one, r, mul ? A : r, zero, out);
            r = out;
            step++;
        }
    }
    return s;
}

const clip_process_desc clip_process_matpow = {
    .abi = CLIP_PROCESS_ABI,
    .rebind = 1,
    .transposes = 1,
    .name = "matpow",
    .summary = "matrix power A^p for a natural p (MATLAB: A^p, mpower)",
    .n_inputs = 1,
    .input_names = matpow_input_names,
    .input_docs = matpow_inputs,
    .n_outputs = 1,
    .output_names = matpow_output_names,
    .output_docs = matpow_outputs,
    .params = matpow_params,
    .n_params = sizeof matpow_params / sizeof matpow_params[0],
    .state_size = sizeof(matpow_state),
    .init = matpow_init,
    .launch = matpow_launch,
};
