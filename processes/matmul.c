/* matmul: C = op(A)*op(B) as MATLAB's mtimes, op(X) one of X, X.' (transpose) and X'
 * (ctranspose) by the transa/transb parameters: MATLAB's A*B, A.'*B, A'*B, A*B', ... Any M, K,
 * N; real or complex; mixed types promote on the device, a real operand still multiplying each
 * part of a complex one alone (MATLAB's real*complex: no Inf*0 = NaN from its promoted zero
 * imaginary part; the kernels' REAL_A/REAL_B); a 1x1 operand is scalar multiplication
 * (and may then meet an N-D array, as in MATLAB, unless that array is to be transposed);
 * otherwise both operands are matrices, op(A) M x K and op(B) K x N.
 *
 * A transposed operand is read in place by the kernels (processes/gemm.h: the GEMM kernels are
 * built for the operation), never copied. ctranspose of a real operand is its transpose; the
 * conjugation applies to the operand's own values, so a real A promoted to complex stays real
 * (MATLAB: A' is real, then A'*B). */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "clip/process_author.h"
#include "gemm.h"
#include "gemm_skinny.h"

typedef struct matmul_state {
    clip_gemm gemm;
    clip_skinny skinny;    /* its kernel set when the product takes a skinny path */
    cl_kernel scalar;      /* set when one operand is 1x1 */
    int scalar_input;      /* which input is the scalar */
    cl_ulong yrows;        /* the scalar product's rows */
    clip_gemm_trans op[2]; /* op(A), op(B) as they apply to the operands' own types */
    int real[2];           /* a complex product's operand that was real before its promotion */
    size_t m, n, k;
} matmul_state;

/* Each operation twice: the CLI's short name and the long one (index % 3 is the operation). */
static const char *const trans_names[] = {"n", "t", "c", "none", "transpose", "ctranspose", NULL};
#define TRANS_DOC(X)                                                                               \
    "op(" X "): n = " X ", t = " X ".' (transpose), c = " X "' (conjugate transpose; t for a "     \
    "real " X "); read in place, never copied"
static const clip_param_desc matmul_params[] = {
    {"transa", CLIP_PARAM_CHOICE, 0, 0, 0, 0, trans_names, TRANS_DOC("A"), 0, 0, 0},
    {"transb", CLIP_PARAM_CHOICE, 0, 0, 0, 0, trans_names, TRANS_DOC("B"), 0, 0, 0},
    CLIP_GEMM_PARAM_ROWS,
    CLIP_SKINNY_PARAM_ROW};
static const char *const matmul_input_names[] = {"A", "B"};
static const char *const matmul_inputs[] = {
    "left matrix, op(A) M x K (A is K x M when transposed), or a 1x1 scalar",
    "right matrix, op(B) K x N (B is N x K when transposed), or a 1x1 scalar"};
static const char *const matmul_output_names[] = {"C"};
static const char *const matmul_outputs[] = {"op(A)*op(B) (M x N) of the promoted type"};

/* Input i's operation: its parameter, with ctranspose of a real operand made transpose. */
static clip_gemm_trans op_of(clip_process *p, int i) {
    int op = clip_proc_choice(p, i ? "transb" : "transa") % 3;
    if (op == CLIP_GEMM_CTRANS && !clip_type_is_complex(clip_data_type(clip_proc_input(p, i))))
        op = CLIP_GEMM_TRANS;
    return (clip_gemm_trans)op;
}

/* "A is 3x4", or for a transposed operand "A.' is 4x3 (A is 3x4)", for error messages. */
static void op_str(const clip_data *d, const char *name, clip_gemm_trans op, char *buf,
                   size_t cap) {
    char sd[96];
    clip_gemm_shape_str(d, sd, sizeof sd);
    if (op == CLIP_GEMM_NOTRANS || !clip_gemm_is_2d(d))
        snprintf(buf, cap, "%s is %s", name, sd);
    else
        snprintf(buf, cap, "%s%s is %zux%zu (%s is %s)", name, op == CLIP_GEMM_TRANS ? ".'" : "'",
                 clip_data_dim(d, 1), clip_data_dim(d, 0), name, sd);
}

/* The product of a 1x1 operand (input si) with anything: the other operand's shape,
 * transposed when it is (a 2-D operand only, as MATLAB). */
static clip_status scalar_output(clip_process *p, const clip_gemm_trans *op, clip_type t, int si) {
    clip_data *x = clip_proc_input(p, 1 - si), *c = NULL;
    const clip_gemm_trans ox = op[1 - si];
    if (ox != CLIP_GEMM_NOTRANS && !clip_gemm_is_2d(x)) {
        char sx[128];
        op_str(x, si ? "A" : "B", CLIP_GEMM_NOTRANS, sx, sizeof sx);
        return clip_proc_fail(p, CLIP_ERR_SHAPE,
                              "%s: transpose is defined for 2-D operands only (MATLAB)", sx);
    }
    size_t dims[2] = {clip_data_dim(x, 1), clip_data_dim(x, 0)};
    return ox != CLIP_GEMM_NOTRANS
               ? clip_proc_output(p, 0, t, 2, dims, &c)
               : clip_proc_output(p, 0, t, clip_data_ndims(x), clip_data_dims(x), &c);
}

/* Checks the operands as MATLAB's mtimes and creates C. *si is the input that is a 1x1 scalar,
 * or -1 for a matrix product op(A) (m x k) * op(B) (k x n), whose sizes go to st. */
static clip_status matmul_output(clip_process *p, matmul_state *st, int *si) {
    clip_data *a = clip_proc_input(p, 0), *b = clip_proc_input(p, 1), *c = NULL;
    clip_type t = clip_type_promote(clip_data_type(a), clip_data_type(b));
    st->op[0] = op_of(p, 0);
    st->op[1] = op_of(p, 1);
    for (int i = 0; i < 2; i++)
        st->real[i] = clip_type_is_complex(t) && !clip_type_is_complex(clip_data_type(i ? b : a));
    *si = clip_data_numel(a) == 1 ? 0 : clip_data_numel(b) == 1 ? 1 : -1;
    if (*si >= 0) return scalar_output(p, st->op, t, *si);
    char sa[128], sb[128];
    op_str(a, "A", st->op[0], sa, sizeof sa);
    op_str(b, "B", st->op[1], sb, sizeof sb);
    if (!clip_gemm_is_2d(a) || !clip_gemm_is_2d(b))
        return clip_proc_fail(p, CLIP_ERR_SHAPE,
                              "operands must be 2-D unless one is a scalar: %s, %s", sa, sb);
    /* op(A) is m x k and op(B) k x n: a transposed operand's dimensions swap. */
    const int ta = st->op[0] != CLIP_GEMM_NOTRANS, tb = st->op[1] != CLIP_GEMM_NOTRANS;
    st->m = clip_data_dim(a, ta);
    st->k = clip_data_dim(a, !ta);
    st->n = clip_data_dim(b, !tb);
    if (clip_data_dim(b, tb) != st->k)
        return clip_proc_fail(p, CLIP_ERR_INNER_DIM, "inner dimensions differ: %s, %s", sa, sb);
    if (st->m > CLIP_GEMM_MAX_DIM || st->n > CLIP_GEMM_MAX_DIM || st->k > CLIP_GEMM_MAX_DIM)
        return clip_proc_fail(p, CLIP_ERR_SHAPE, "%s and %s: a dimension exceeds %d", sa, sb,
                              CLIP_GEMM_MAX_DIM);
    size_t dims[2] = {st->m, st->n};
    return clip_proc_output(p, 0, t, 2, dims, &c);
}

/* The scalar product's kernel; a conjugated complex scalar is conjugated. */
static clip_status init_scalar(clip_process *p, matmul_state *st, clip_type t, int si) {
    clip_data *x = clip_proc_input(p, 1 - si);
    st->scalar_input = si;
    if (clip_data_numel(x) == 0) return CLIP_OK;
    st->yrows = clip_data_dim(x, st->op[1 - si] != CLIP_GEMM_NOTRANS); /* C's rows */
    clip_proc_set_variant(p, "scalar");
    char opts[128];
    const int cx = clip_type_is_complex(t);
    snprintf(opts, sizeof opts,
             "-DGEMM_SCALAR_ONLY=1 -DSCALAR_CONJ=%d -DX_TRANS=%d -DS_REAL=%d -DX_REAL=%d",
             st->op[si] == CLIP_GEMM_CTRANS, (int)st->op[1 - si],
             cx && !clip_type_is_complex(clip_data_type(clip_proc_input(p, si))),
             cx && !clip_type_is_complex(clip_data_type(x)));
    return clip_proc_kernel(p, "matmul", t, opts, "gemm_scalar", &st->scalar);
}

static clip_status matmul_init(clip_process *p) {
    matmul_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *b = clip_proc_input(p, 1);
    clip_type t = clip_type_promote(clip_data_type(a), clip_data_type(b));
    int si = -1;
    clip_status s = matmul_output(p, st, &si);
    if (s == CLIP_OK) s = clip_proc_input_as(p, 0, t);
    if (s == CLIP_OK) s = clip_proc_input_as(p, 1, t);
    if (s != CLIP_OK) return s;
    if (si >= 0) return init_scalar(p, st, t, si);

    clip_gemm_params prm;
    s = clip_gemm_params_from_process(p, t, st->m, st->n, st->k, st->op[0], st->op[1], st->real[0],
                                      st->real[1], &prm);
    if (s != CLIP_OK) return s;
    if (st->m == 0 || st->n == 0) {
        clip_proc_set_variant(p, "empty");
        return CLIP_OK;
    }
    if (st->k == 0) {
        clip_proc_set_variant(p, "zeros");
        return CLIP_OK;
    }
    s = clip_skinny_init(p, t, st->m, st->n, st->k, st->op[0], st->op[1], st->real[0], st->real[1],
                         &st->skinny);
    if (s != CLIP_OK || st->skinny.kernel) return s;
    return clip_gemm_build(p, t, &prm, st->m, st->n, st->k, &st->gemm);
}

/* Bands of the non-scalar operand (of its largest dimension; a transposed one lands
 * transposed), the scalar whole in every piece. */
static clip_status plan_scalar(clip_process *p, clip_plan *pl, const matmul_state *st, int si) {
    clip_data *x = clip_proc_input(p, 1 - si);
    const int tx = st->op[1 - si] != CLIP_GEMM_NOTRANS;
    int e = 0;
    for (int i = 1; i < (tx ? 2 : CLIP_MAX_DIMS); i++)
        if (clip_data_dim(x, i) > clip_data_dim(x, e)) e = i;
    const size_t n = clip_data_dim(x, e), target = clip_plan_target(pl);
    const size_t parts = target < n ? target : n;
    clip_status s = CLIP_OK;
    for (size_t b = 0; b < parts && parts > 1 && s == CLIP_OK; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        clip_box_all(clip_proc_input(p, si), &pc.in[si]);
        clip_box_all(x, &pc.in[1 - si]);
        clip_plan_band(n, parts, b, &pc.in[1 - si].start[e], &pc.in[1 - si].count[e]);
        const int oe = tx ? 1 - e : e;
        clip_box_all(x, &pc.keep[0]);
        if (tx) {
            pc.keep[0].count[0] = clip_data_dim(x, 1);
            pc.keep[0].count[1] = clip_data_dim(x, 0);
        }
        pc.keep[0].count[oe] = pc.in[1 - si].count[e];
        pc.at[0][oe] = pc.in[1 - si].start[e];
        s = clip_plan_add(pl, &pc);
    }
    return s;
}

/* Column bands that give the same bits as the whole product when it runs stream-K (its last
 * `tail` tiles split along K over P = compute units x sk work-groups, summed in another order
 * than a plain tile: the FFMA family's stream-K, the wgmma kernels' split tail): every band but the
 * last holds a multiple of P tiles, so it has no tail and runs plain, as those tiles do in the
 * whole; the last band then has the whole's tail, on the same tiles (the last in column order),
 * split over the same P. Applies when every band picks the whole's tiles (same parameters); bit for
 * bit where every device has the primary's compute units. *widths gets each band's columns. Returns
 * the band count, or 0 where it does not apply (ordinary bands then: results within rounding of the
 * whole). */
static size_t stream_k_bands(clip_process *p, const matmul_state *st, size_t want, size_t *widths) {
    const clip_type t = clip_type_promote(clip_data_type(clip_proc_input(p, 0)),
                                          clip_data_type(clip_proc_input(p, 1)));
    clip_gemm_params whole, band;
    if (clip_gemm_params_from_process(p, t, st->m, st->n, st->k, st->op[0], st->op[1], st->real[0],
                                      st->real[1], &whole) != CLIP_OK ||
        !(whole.variant == CLIP_GEMM_TILED || whole.wgmma) || whole.sk <= 0 || whole.ksplit > 1)
        return 0;
    const size_t cus = clip_proc_device(p)->compute_units ? clip_proc_device(p)->compute_units : 1;
    /* The wgmma kernels' tiles are of the real product: a complex one has two columns a column
     * of C (kernels/matmul_wg.cl). */
    const size_t cx = whole.wgmma && clip_type_is_complex(t) ? 2 : 1;
    const size_t P = cus * (size_t)whole.sk, nwg = (size_t)whole.nwg / cx;
    const size_t mtiles = (st->m + (size_t)whole.mwg - 1) / (size_t)whole.mwg;
    const size_t ntiles = (st->n + nwg - 1) / nwg, tiles = mtiles * ntiles;
    if (tiles <= P || tiles % P == 0) return 0; /* no stream-K tail in the whole */
    size_t g = P, b = mtiles;                   /* tile columns per step: P / gcd(mtiles, P) */
    while (b) {
        size_t r = g % b;
        g = b;
        b = r;
    }
    const size_t step = P / g;
    /* The last band needs more than P tiles, so that it runs stream-K as the whole does. */
    const size_t last_min = P / mtiles + 1;
    if (ntiles <= last_min) return 0;
    size_t n = want, per = 0;
    for (; n > 1; n--) {
        per = (ntiles / n + step / 2) / step * step; /* near an even share, whole steps */
        if (per == 0) per = step;
        if ((n - 1) * per + last_min <= ntiles) break;
    }
    if (n < 2) return 0;
    for (size_t j = 0; j < n; j++) {
        widths[j] = j + 1 < n ? per * nwg : st->n - (n - 1) * per * nwg;
        /* the band must choose the whole's tiles and schedule */
        if (clip_gemm_params_from_process(p, t, st->m, widths[j], st->k, st->op[0], st->op[1],
                                          st->real[0], st->real[1], &band) != CLIP_OK ||
            !clip_gemm_same_tiles(&band, &whole) || (j + 1 == n && band.sk != whole.sk))
            return 0;
    }
    return n;
}

/* Blocks of C: a grid of r bands of op(A)'s rows by c bands of op(B)'s columns, r * c near the
 * target. Over more than 4 devices (or ranks) a grid shaped like a grid of the devices; over
 * fewer, column bands only (every piece reads all of A) while A is small beside a device's
 * largest allocation and beside what a piece may hold, square-ish grids otherwise, so that no
 * piece needs all of A. (Column bands with an A that a piece cannot hold only narrowed as the
 * target doubled, down to products of one column: 32768 pieces for one rank's 16384^3 SGEMM,
 * streamed in pieces of 1 GiB.) */
static clip_status matmul_plan(clip_process *p, clip_plan *pl) {
    matmul_state *st = clip_proc_state(p);
    int si = -1;
    clip_status s = matmul_output(p, st, &si);
    if (s != CLIP_OK) return s;
    if (si >= 0) return plan_scalar(p, pl, st, si);
    if (st->m == 0 || st->n == 0 || st->k == 0) return CLIP_OK;
    const size_t target = clip_plan_target(pl);
    size_t r = 1, c = target;
    const size_t devices = (size_t)clip_plan_devices(pl);
    const uint64_t a_bytes = clip_data_bytes(clip_proc_input(p, 0));
    if (devices > 4) {
        /* a grid that is a multiple of a grid of the devices (pr x pc = devices, pr the divisor
         * nearest the square root), so that the blocks deal evenly over a grid of devices or
         * ranks (clip-mpi broadcasts a band to the devices of one grid row or column): D devices
         * read sqrt(D) (|A| + |B|) in all instead of column bands' D |A| + |B|. Up to 4 devices
         * the column bands stay (measured on 2 GPUs, with stream-K band widths). */
        size_t pr = 1, f = 1;
        for (size_t d = 1; d * d <= devices; d++)
            if (devices % d == 0) pr = d;
        while (f * f * devices < target)
            f++;
        r = pr * f;
        c = devices / pr * f;
    } else if (a_bytes * 4 > clip_plan_max_alloc(pl) || a_bytes * 2 > clip_plan_max_mem(pl)) {
        while (r * r < target)
            r++;
        c = r;
    }
    if (c > st->n) {
        r = (target + st->n - 1) / st->n;
        c = st->n;
    }
    if (r > st->m) r = st->m;
    size_t widths[64], banded = r == 1 && c > 1 && c <= 64 ? stream_k_bands(p, st, c, widths) : 0;
    if (banded) c = banded;
    const int ta = st->op[0] != CLIP_GEMM_NOTRANS, tb = st->op[1] != CLIP_GEMM_NOTRANS;
    for (size_t i = 0, j0 = 0; i < r && s == CLIP_OK; i++)
        for (size_t j = 0; j < c && s == CLIP_OK; j++) {
            clip_piece pc;
            memset(&pc, 0, sizeof pc);
            clip_box_all(clip_proc_input(p, 0), &pc.in[0]);
            clip_box_all(clip_proc_input(p, 1), &pc.in[1]);
            size_t i0, ni, nj;
            clip_plan_band(st->m, r, i, &i0, &ni);
            if (banded) {
                j0 = j ? j0 + widths[j - 1] : 0;
                nj = widths[j];
            } else {
                clip_plan_band(st->n, c, j, &j0, &nj);
            }
            pc.in[0].start[ta] = i0, pc.in[0].count[ta] = ni;   /* op(A)'s rows */
            pc.in[1].start[!tb] = j0, pc.in[1].count[!tb] = nj; /* op(B)'s columns */
            for (int d = 0; d < CLIP_MAX_DIMS; d++)
                pc.keep[0].count[d] = 1;
            pc.keep[0].count[0] = ni, pc.keep[0].count[1] = nj;
            pc.at[0][0] = i0, pc.at[0][1] = j0;
            s = clip_plan_add(pl, &pc);
        }
    return s;
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
    if (s == CLIP_OK) s = clip_proc_arg(p, st->scalar, 4, sizeof st->yrows, &st->yrows);
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
    if (st->skinny.kernel) return clip_skinny_enqueue(p, &st->skinny, am, bm, cm);
    clip_gemm g = st->gemm;
    if (st->k == 0) g.type = clip_data_type(c); /* no kernel was built: C is only zero-filled */
    const clip_gemm_scalar one = {1, 0}, zero = {0, 0};
    /* Leading dimensions are those of the stored matrices: k x m for a transposed A, n x k for a
     * transposed B. */
    const size_t lda = st->op[0] ? st->k : st->m, ldb = st->op[1] ? st->n : st->k;
    const clip_gemm_operand A = {am, 0, lda}, B = {bm, 0, ldb}, C = {cm, 0, st->m};
    return clip_gemm_enqueue(p, &g, st->m, st->n, st->k, one, A, B, zero, C);
}

const clip_process_desc clip_process_matmul = {
    .abi = CLIP_PROCESS_ABI,
    .rebind = 1,
    .name = "matmul",
    .summary = "matrix product op(A)*op(B) (MATLAB: A*B, A.'*B, A'*B, A*B', ..., mtimes)",
    .n_inputs = 2,
    .input_names = matmul_input_names,
    .input_docs = matmul_inputs,
    .n_outputs = 1,
    .output_names = matmul_output_names,
    .output_docs = matmul_outputs,
    .params = matmul_params,
    .n_params = sizeof matmul_params / sizeof matmul_params[0],
    .state_size = sizeof(matmul_state),
    .init = matmul_init,
    .launch = matmul_launch,
    .plan = matmul_plan,
};
