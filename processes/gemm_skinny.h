/* Skinny products for matmul: C = op(A)*op(B) where C has a handful of rows or columns (a
 * matrix times a vector, a vector times a matrix, a small C with a long K), through the kernels
 * of kernels/skinny.cl. The tiled GEMM computes at least a 32x32 tile per work-group and walks
 * all of K in one, so such products leave most of a GPU idle or compute mostly padding; these
 * read the large operand once along its contiguous direction and split K over the device, the
 * chunks' partial products summed by a second kernel in chunk order (deterministic).
 *
 * A product has up to four forms: C itself or its transpose (C' = op(B)^T * op(A)^T, so that a
 * transposed operand still meets a kernel along its contiguous direction), each computed by
 * skinny_rows (C' has at most CLIP_SKINNY_MAX_COLS columns: one work-item per row of C') or
 * skinny_dots (C' has at most CLIP_SKINNY_MAX_ROWS rows: work-items along K). clip_skinny_plan
 * picks the form whose large operand is read contiguously.
 *
 * Accuracy: each output sums its K terms in the element type with fma, as the tiled kernel does,
 * but in pieces (one work-item's share of its chunk in k order, then a fixed tree or the chunks in
 * order), so its rounding error grows with the pieces' lengths rather than with K. */
#ifndef CLIP_PROCESSES_GEMM_SKINNY_H
#define CLIP_PROCESSES_GEMM_SKINNY_H

#include "gemm.h"

#define CLIP_SKINNY_MAX_COLS 8  /* skinny_rows: columns of C' held in registers */
#define CLIP_SKINNY_MAX_ROWS 16 /* skinny_dots: rows of C' held in registers */

typedef enum clip_skinny_kind {
    CLIP_SKINNY_NONE = 0,
    CLIP_SKINNY_ROWS,
    CLIP_SKINNY_DOTS
} clip_skinny_kind;

/* A chosen form and its launch shape. */
typedef struct clip_skinny_plan {
    clip_skinny_kind kind;
    int swap;         /* 1: computes C^T = op(B)^T * op(A)^T */
    int conjx, conjy; /* conjugate X / Y (the left / right operand of the form) as loaded */
    int realx, realy; /* complex: X / Y was real before its promotion and multiplies each part
                       * of the other alone (MATLAB's real*complex; skinny.cl REAL_X, REAL_Y) */
    size_t mp, np, k; /* C' is mp x np */
    int wg;           /* work-group size of the product (and of skinny_sum_tree) */
    int nb;           /* columns of C' per work-group */
    size_t kchunk;    /* K per chunk; chunks = ceil(k / kchunk) */
    size_t chunks;
    int tree; /* chunks > 1: 1 skinny_sum_tree, 0 skinny_sum_items */
    /* Element strides in the packed operands: X(i, k) at xsi*i + xsk*k (X is A, or B when
     * swapped), Y(k, j) at ysk*k + ysj*j, C'(i, j) at psi*i + psj*j of C. */
    long xsi, xsk, ysk, ysj, psi, psj;
} clip_skinny_plan;

/* Plans op(A) (m x k) * op(B) (k x n) of type t on the device, for packed operands (stored A
 * m x k, or k x m when transposed; B likewise). `force` 0: only where a form reads its large
 * operand contiguously and the product is past the tiny ones the small GEMM kernel serves (what
 * matmul's skinny=auto takes); 1: any form that fits the registers (skinny=on). Returns 1 with
 * *out filled, or 0 when no form applies (then *out is zeroed). k must be > 0. */
int clip_skinny_plan_for(const clip_device_info *dev, clip_type t, size_t m, size_t n, size_t k,
                         clip_gemm_trans transa, clip_gemm_trans transb, int force,
                         clip_skinny_plan *out);

/* "skinny dots 16x16 nb 4 wg 256 chunks 261" (plus " tree", " swap"): the process variant. */
void clip_skinny_describe(const clip_skinny_plan *pl, char *buf, size_t cap);

/* A built skinny product: kernels and workspace owned by the process. */
typedef struct clip_skinny {
    cl_kernel kernel, sum; /* sum: set when the plan has several chunks */
    cl_mem work;           /* chunks x mp x np partial products */
    clip_skinny_plan plan;
} clip_skinny;

/* Builds the kernels of plan `pl` for type t and allocates its workspace. Errors: as
 * clip_proc_kernel and clip_proc_temp. */
clip_status clip_skinny_build(clip_process *p, clip_type t, const clip_skinny_plan *pl,
                              clip_skinny *s);

/* matmul's `skinny` parameter: auto, on, off (NULL-terminated). */
extern const char *const clip_skinny_choice_names[];
#define CLIP_SKINNY_PARAM_ROW                                                                      \
    {                                                                                              \
        "skinny", CLIP_PARAM_CHOICE, 0, 0, 0, 0, clip_skinny_choice_names,                         \
            "matrix-vector and small-output kernels with K split over the device: auto (GPUs, "    \
            "when "                                                                                \
            "variant is auto and no tile is set), on (whenever C has few enough rows or "          \
            "columns), off",                                                                       \
            0, 0, 0                                                                                \
    }

/* For a process with CLIP_SKINNY_PARAM_ROW and the GEMM rows: takes the skinny path for an
 * op(A) (m x k) * op(B) (k x n) product when its parameter says so (auto: the plan's own
 * choice on the engine's defaults; on: any form), building it into *s and naming the variant.
 * reala / realb: for a complex t, op(A) / op(B) was real before its promotion (as in
 * clip_gemm_params_from_process). s->kernel stays NULL when the product takes the GEMM.
 * Errors: CLIP_ERR_PARAM_RANGE (on, with no form for the shape), and those of
 * clip_skinny_build. */
clip_status clip_skinny_init(clip_process *p, clip_type t, size_t m, size_t n, size_t k,
                             clip_gemm_trans transa, clip_gemm_trans transb, int reala, int realb,
                             clip_skinny *s);

/* Enqueues C = op(A)*op(B) for the planned shape on packed operands (a, b, c device buffers of
 * the promoted type; C is not read, so NaN in it does not leak). Errors: CLIP_ERR_OVERFLOW (a
 * chunk count past int), CLIP_ERR_OPENCL. */
clip_status clip_skinny_enqueue(clip_process *p, const clip_skinny *s, cl_mem a, cl_mem b,
                                cl_mem c);

#endif
