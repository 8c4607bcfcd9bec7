/* The GEMM engine behind matmul and matpow: C = alpha*A*B + beta*C on device buffers,
 * column-major, through the parameterised kernels of kernels/matmul.cl.
 *
 * A parameter set (clip_gemm_params) fixes a kernel's compile-time tiling and its split of K.
 * Defaults come from the device and the product's shape (clip_gemm_default), then from the tuning
 * cache that `clip tune` fills (clip_gemm_params_from_process looks it up by device, driver and
 * size class), and the processes' tile parameters override single fields (so a tuner can try sets
 * through the ordinary process API or the CLI); clip_gemm_check says whether a set fits the
 * device. clip_gemm_build compiles it once; clip_gemm_enqueue launches one product on any
 * buffers, so a process can chain several without touching the host.
 *
 * Transposed operands (matmul's transa/transb): C = alpha*op(A)*op(B) + beta*C with op(X) = X,
 * X.' or X', op(A) m x k and op(B) k x n. The set records the operation (transa, transb) and the
 * kernels are built for it: they read the stored matrix in place with the index order swapped
 * and conjugate as they load (kernels/matmul.cl, TRANSA/TRANSB), so no transposed copy exists.
 * A transposed product takes the tuned set of the plain product of the same op shapes (the same
 * tuning key): the tiles are the same work, only the loads change direction. */
#ifndef CLIP_PROCESSES_GEMM_H
#define CLIP_PROCESSES_GEMM_H

#include <limits.h>

#include "clip/process_author.h"

/* The four functions marked CLIP_API below are exported from libclip.so for `clip tune`
 * (tools/tune.c), which links the shared library; they are not part of the public API. */

/* The largest M, N and K the FFMA kernels take: they index in int, and a tile or slice (up to
 * 1024) past the last row, column or k must still fit (m0 + MWG > M, row + VW <= M, the last
 * K slice's end). */
#define CLIP_GEMM_MAX_DIM (INT_MAX - 1024)

/* The kernel strategies, as named by the processes' `variant` parameter. */
typedef enum clip_gemm_variant {
    CLIP_GEMM_AUTO = 0, /* chosen from the device and the problem size */
    CLIP_GEMM_TILED,    /* A and B tiles staged in local memory, register tiles (GPUs) */
    CLIP_GEMM_DIRECT,   /* register tiles read straight from global memory (CPU caches) */
    CLIP_GEMM_SMALL,    /* one output per work-item, for tiny products */
    CLIP_GEMM_TENSOR /* tensor cores, 3xTF32 (f32, NVIDIA sm_80+ only; wgmma on sm_90: gemm_tc.h) */
} clip_gemm_variant;

/* What an operand enters the product as. */
typedef enum clip_gemm_trans {
    CLIP_GEMM_NOTRANS = 0, /* X */
    CLIP_GEMM_TRANS,       /* X.' */
    CLIP_GEMM_CTRANS       /* X' (complex types; of a real type it is X.') */
} clip_gemm_trans;

/* Names in clip_gemm_variant order, NULL-terminated (the `variant` choice list). */
extern const char *const clip_gemm_variant_names[];

/* What an f32 product's inputs are rounded to (the `precision` parameter; a c32 product's too
 * where the wgmma kernels run, compute capability 9.0): fp32 keeps them (the tensor family's
 * 3xTF32 included); tf32 rounds them to TF32 (10-bit mantissa) for one tensor-core product each;
 * bf16 (7-bit mantissa, fp32's range) and fp16 (10-bit mantissa, largest finite 65504) round
 * them to those 16-bit types, on the wgmma kernels only. Products accumulate in fp32. Where the
 * kernels a precision needs do not run (tf32: compute capability below 8.0; bf16 and fp16: other
 * than 9.0), the product is computed in fp32 instead, as accurately as precision fp32.
 * Rounding is to nearest, so an input of magnitude above (2 - 2^-11) * 2^127 (TF32), (2 - 2^-8)
 * * 2^127 (BF16) or 65520 (FP16) becomes Inf, and the products it enters Inf or NaN (NaN
 * outputs are recomputed in fp32), where fp32 stays finite. Errors on a stated test: bench/GEMM.md
 * ("precision"). */
typedef enum clip_gemm_precision {
    CLIP_GEMM_FP32 = 0,
    CLIP_GEMM_TF32,
    CLIP_GEMM_BF16,
    CLIP_GEMM_FP16
} clip_gemm_precision;
extern const char *const clip_gemm_precision_names[];

typedef struct clip_gemm_params {
    clip_gemm_variant variant; /* resolved: never AUTO */
    int mwg, nwg;              /* work-group tile of C: rows x columns */
    int kwg;                   /* K slice (local staging) or unroll depth */
    int mdimc, ndimc;          /* work-group size; work-item tile = mwg/mdimc x nwg/ndimc */
    int vw;                    /* vector width along M (A and C) */
    int vwn;                   /* tiled: vector width of the local B reads along N */
    int wm;                    /* tiled: work-items along M per 32 (a warp); mdimc = plain */
    int ksplit;                /* tiled: chunks of K run as separate work-groups, then summed */
    int stages;                /* tiled: 1 one local buffer; 2 two, the next slice prefetched;
                                * 3 as 2, each k's operands read one k ahead (across barriers) */
    int precision;             /* tensor: clip_gemm_precision (other variants compute fp32) */
    int wgmma;                 /* tensor: 1 the warpgroup kernels of sm_90 (gemm_tc.h) */
    int pipe;                  /* wgmma: 1 stages moved by bulk copies and transaction barriers,
                                * 0 by cp.async and work-group barriers (matmul_wg.cl, WG_PIPE) */
    int kg;                    /* tiled, without stream-K: 0 or 1 one group of work-items a
                                * tile; n > 1 n groups, each summing its run of K's slices,
                                * their tiles added in the work-group (matmul.cl, KG) */
    int sk;                    /* tiled, unsplit: 0 off; n > 0 a grid that fills whole waves of
                                * compute_units*n work-groups and part of one more runs that
                                * last part stream-K over that many more work-groups */
    /* The operation, set by the caller before clip_gemm_fit (clip_gemm_set_trans): */
    int transa, transb; /* clip_gemm_trans: op(A), op(B) */
    int reala, realb;   /* complex types: 1 where op(A) / op(B) was real before its promotion
                         * (matmul's mixed types): it multiplies each part of the other alone,
                         * as MATLAB's real*complex (matmul.cl REAL_A / REAL_B) */
    /* Derived from the operands (clip_gemm_fit), not tuned: */
    int vwb;        /* tiled: vector width of the global loads along K (of a plain
                     * B and of a transposed A, the matrices stored along K) */
    int aligned;    /* tiled: C columns and M (and a plain A's columns) are
                     * multiples of vw */
    int alignb;     /* tiled, transposed B: its columns are multiples of vwn */
    int pada, padb; /* tiled: local padding in elements */
    int tuned;      /* set when the tuning cache supplied the set */
} clip_gemm_params;

/* The groups of work-items that sum K in a set's work-group: kg, 0 counting as 1. */
static inline int clip_gemm_groups(const clip_gemm_params *p) {
    return p->kg > 1 ? p->kg : 1;
}

/* The work-items of an FFMA set's work-group: mdimc x ndimc in each group of K. */
static inline size_t clip_gemm_work_items(const clip_gemm_params *p) {
    return (size_t)p->mdimc * (size_t)p->ndimc * (size_t)clip_gemm_groups(p);
}

/* Device defaults for type t and an m x k times k x n product with packed operands (leading
 * dimensions m, k, m; no offsets). AUTO resolves from the device type and the size. */
void clip_gemm_default(const clip_device_info *dev, clip_type t, clip_gemm_variant v, size_t m,
                       size_t n, size_t k, clip_gemm_params *out);

/* Sets the operation: op(A) and op(B), a conjugate transpose of a real type made a transpose
 * (the same values, and one kernel build fewer). */
void clip_gemm_set_trans(clip_gemm_params *prm, clip_type t, clip_gemm_trans transa,
                         clip_gemm_trans transb);

/* Derives the operand-dependent fields (vwb, aligned, alignb, pads) for an m-row product whose
 * stored A, B, C have the given leading dimensions and offsets (elements), for the operation in
 * prm (transa, transb). On a GPU with narrow_vw set, vw is first narrowed to the columns'
 * alignment (GPUs split unaligned vector accesses into scalar ones; CPUs do not care). */
void clip_gemm_fit(clip_gemm_params *prm, const clip_device_info *dev, clip_type t, int narrow_vw,
                   size_t m, size_t lda, size_t ldb, size_t ldc, size_t offa, size_t offb,
                   size_t offc);
/* clip_gemm_fit for packed operands of an m x k by k x n product: the stored A is m x k (k x m
 * when transposed), B k x n (n x k), C m x n, no offsets. */
void clip_gemm_fit_packed(clip_gemm_params *prm, const clip_device_info *dev, clip_type t,
                          int narrow_vw, size_t m, size_t n, size_t k);

/* 0 if the set is valid on the device for type t; otherwise -1 and a reason in `why`. */
int clip_gemm_check(const clip_gemm_params *prm, const clip_device_info *dev, clip_type t,
                    char *why, size_t cap);

/* "tiled 128x128x16 wg 16x16 vw 4 vwn 4 wm 8 ks 1 st 2" (direct and small stop after vw; " sk N"
 * follows when stream-K is on): the process variant string, the bench output and the tuning
 * cache's value. */
CLIP_API void clip_gemm_describe(const clip_gemm_params *prm, char *buf, size_t cap);
/* Reads clip_gemm_describe's text (the tuned fields only; the rest zero). 0 on success, -1 when
 * the text is not such a description. */
int clip_gemm_parse(const char *text, clip_gemm_params *prm);

/* The tuning-cache key of a product: the type and each dimension rounded to the nearest power of
 * two, e.g. "f32-m1024-n1024-k1024". Products of one key share the tuned set. On a device that
 * has the tensor family (compute capability `arch`, clip_gemm_tc_arch, 80 or more; 0 elsewhere)
 * the key ends in "-tc": its entries were tuned with the family's sets among the candidates, so
 * they may decide before the family's default; entries from before (no suffix) are not read
 * there, since they would put an FFMA set in place of a faster tensor default. */
CLIP_API void clip_gemm_tuning_key(int arch, clip_type t, size_t m, size_t n, size_t k, char *buf,
                                   size_t cap);

/* Parameter sets worth timing for the product on the device (the default first), pruned by
 * work-group size, local memory and registers; on an NVIDIA device of compute capability `arch`
 * (clip_gemm_tc_arch: 80 or more; 0 elsewhere) the tensor family's sets too, right after the
 * default (wgmma sets at 90, for f32 and c32; mma.sync sets below, f32). Returns how many were
 * written (at most cap). */
CLIP_API int clip_gemm_candidates(const clip_device_info *dev, int arch, clip_type t, size_t m,
                                  size_t n, size_t k, clip_gemm_params *out, int cap);

/* The kernel build's -D options for a set (for tools that build it themselves, e.g. to read the
 * compiler's register report). */
void clip_gemm_options(const clip_gemm_params *prm, char *buf, size_t cap);

/* Non-zero when a and b are the same FFMA or tensor tiling: variant, tiles, work-group, vectors,
 * warp rows, stages, split of K and K groups (not stream-K, padding or alignment). */
int clip_gemm_same_tiles(const clip_gemm_params *a, const clip_gemm_params *b);

/* The work-group tiles of an m x n product: ceil(m/mwg) * ceil(n/nwg). */
size_t clip_gemm_tiles(const clip_gemm_params *prm, size_t m, size_t n);

/* Sets process p's variant and tile parameters (CLIP_GEMM_PARAM_ROWS) to the set prm, so that
 * init builds exactly that set (a tuner trying candidates). Errors: as clip_process_set_int. */
CLIP_API clip_status clip_gemm_params_set(clip_process *p, const clip_gemm_params *prm);

/* "3x4" (all dims) for error messages. */
void clip_gemm_shape_str(const clip_data *d, char *buf, size_t cap);
/* Non-zero when every dim past the second is 1 (a MATLAB matrix). */
int clip_gemm_is_2d(const clip_data *d);

/* The process parameters that steer the engine: variant plus tile overrides (0 = default, from
 * the tuning cache or the device). Spliced into a process's parameter table. */
#define CLIP_GEMM_PARAM_ROWS                                                                       \
    {"variant",                                                                                    \
     CLIP_PARAM_CHOICE,                                                                            \
     0,                                                                                            \
     0,                                                                                            \
     0,                                                                                            \
     0,                                                                                            \
     clip_gemm_variant_names,                                                                      \
     "kernel: auto (tuned set, else by device and size), tiled (local memory), direct (CPU "       \
     "caches), small, tensor (f32 on NVIDIA tensor cores, sm_80+, fp32-accurate by 3xTF32 for "    \
     "values 0 or 2^-112 <= |x| < 2^126; wgmma on sm_90: a row of op(A) or column of op(B) "       \
     "holding other values (subnormals, tiny or huge values) is scaled into that range by a "      \
     "power of two and its outputs scaled back, its Inf and NaN (up to 8) packed as 0 and their "  \
     "terms added after, so every output is as accurate as fp32 FMA's and non-finite where fp32 "  \
     "FMA makes it so (H200 4096^3: a few NaN/Inf 1.1x, every row subnormal 1.2x); a row that no " \
     "shift holds (2^-140 beside 2^120) or with more Inf/NaN is computed by fp32 FMA (one such "   \
     "row 1.02-1.04x); the "                                                                       \
     "mma.sync kernel (below sm_90) computes a tile holding such a value by fp32 FMA)",            \
     0,                                                                                            \
     0,                                                                                            \
     0},                                                                                           \
        {"mwg",                                                                                    \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         1024,                                                                                     \
         NULL,                                                                                     \
         "tile rows per work-group (0 = default)",                                                 \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"nwg",                                                                                    \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         1024,                                                                                     \
         NULL,                                                                                     \
         "tile columns per work-group (0 = default)",                                              \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"kwg",                                                                                    \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         1024,                                                                                     \
         NULL,                                                                                     \
         "K slice per step (0 = default)",                                                         \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"mdimc",                                                                                  \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         1024,                                                                                     \
         NULL,                                                                                     \
         "work-group size along M (0 = default)",                                                  \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"ndimc",                                                                                  \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         1024,                                                                                     \
         NULL,                                                                                     \
         "work-group size along N (0 = default)",                                                  \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"vw",                                                                                     \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         16,                                                                                       \
         NULL,                                                                                     \
         "vector width along M (0 = default)",                                                     \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"vwn",                                                                                    \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         16,                                                                                       \
         NULL,                                                                                     \
         "tiled: vector width along N (0 = default)",                                              \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"wm",                                                                                     \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         32,                                                                                       \
         NULL,                                                                                     \
         "tiled: work-items along M in each warp of 32 (0 = default)",                             \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"ksplit",                                                                                 \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         256,                                                                                      \
         NULL,                                                                                     \
         "tiled: split K into this many chunks summed at the end (0 = default)",                   \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"stages",                                                                                 \
         CLIP_PARAM_INT,                                                                           \
         0,                                                                                        \
         1,                                                                                        \
         0,                                                                                        \
         6,                                                                                        \
         NULL,                                                                                     \
         "tiled: 1 local buffer, 2 prefetch the next K slice, 3 also the next k's operands; "      \
         "tensor: local buffers filled ahead, 2 to 4 (6 with wgmma) (0 = default)",                \
         CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO,                                                      \
         0,                                                                                        \
         0},                                                                                       \
        {"streamk",                                                                                \
         CLIP_PARAM_INT,                                                                           \
         -1,                                                                                       \
         1,                                                                                        \
         -1,                                                                                       \
         16,                                                                                       \
         NULL,                                                                                     \
         "tiled: work-groups per compute unit that share the tiles of the last partial wave "      \
         "(stream-K; 0 = off, -1 = default)",                                                      \
         CLIP_PARAM_EXPERT,                                                                        \
         0,                                                                                        \
         0},                                                                                       \
        {"kgroups",                                                                                \
         CLIP_PARAM_INT,                                                                           \
         -1,                                                                                       \
         1,                                                                                        \
         -1,                                                                                       \
         8,                                                                                        \
         NULL,                                                                                     \
         "tiled, without stream-K: groups of work-items in a work-group that each sum a run of "   \
         "K's slices, their tiles added in local memory (1, 2, 4 or 8; -1 = default)",             \
         CLIP_PARAM_EXPERT,                                                                        \
         0,                                                                                        \
         0},                                                                                       \
        {"pipe",                                                                                   \
         CLIP_PARAM_INT,                                                                           \
         -1,                                                                                       \
         1,                                                                                        \
         -1,                                                                                       \
         1,                                                                                        \
         NULL,                                                                                     \
         "tensor, wgmma (sm_90): 1 stages moved by bulk copies and transaction barriers, "         \
         "0 by cp.async and work-group barriers (-1 = default)",                                   \
         CLIP_PARAM_EXPERT,                                                                        \
         0,                                                                                        \
         0},                                                                                       \
    {                                                                                              \
        "precision", CLIP_PARAM_CHOICE, 0, 0, 0, 0, clip_gemm_precision_names,                     \
            "f32 inputs (c32 on sm_90), rounded for one tensor-core product, fp32 sums: fp32 "     \
            "(none: accurate, default); tf32 (10-bit mantissas, NVIDIA sm_80+: error at most "     \
            "2^-10 of sum|a||b|); bf16 (7-bit, sm_90: 2^-7) or fp16 (10-bit, sm_90: 2^-10; "       \
            "inputs "                                                                              \
            "past 65504 become Inf); elsewhere fp32 is computed",                                  \
            0, 0, 0                                                                                \
    }

/* Resolves the engine parameters of process p (which has CLIP_GEMM_PARAM_ROWS) for type t and
 * a packed op(A) (m x k) times op(B) (k x n) product; a set that does not fit fails with
 * CLIP_ERR_PARAM_RANGE. A tuning-cache entry that does not fit is ignored. reala / realb: for a
 * complex t, op(A) / op(B) was real before its promotion (matmul's mixed types); the set then
 * multiplies each part of the other operand alone (MATLAB's real*complex: no Inf*0 = NaN from
 * the promoted zeros), auto keeps to the FFMA family, and variant tensor, whose kernels multiply
 * the promoted zeros, fails with CLIP_ERR_UNSUPPORTED. */
clip_status clip_gemm_params_from_process(clip_process *p, clip_type t, size_t m, size_t n,
                                          size_t k, clip_gemm_trans transa, clip_gemm_trans transb,
                                          int reala, int realb, clip_gemm_params *out);

/* Whether process p sets any tile parameter, stream-K or K groups (then auto keeps the FFMA
 * family, and matmul's skinny=auto the GEMM). */
int clip_gemm_tile_overrides(clip_process *p);

/* A built GEMM: the kernels (owned by the process), its parameters and the workspace. */
typedef struct clip_gemm {
    cl_kernel kernel, reduce;
    cl_kernel fixup; /* sums the stream-K tail, when prm.sk > 0 and the grid has a tail */
    cl_kernel pack;  /* a wgmma tensor set: splits and lays out the operands (gemm_tc.h) */
    /* a wgmma set of precision fp32: the kernel that scales the rows and columns that hold a
     * value outside the 3xTF32 range into it, and the fp32 FMA kernel of those it cannot
     * (gemm_tc.h) */
    cl_kernel rescale, fix_range;
    size_t pack_m, pack_n, pack_k; /* the largest product its packed operands hold */
    size_t sk_groups;              /* the stream-K work-groups: compute units x prm.sk */
    cl_mem work;       /* ksplit partial products, or the stream-K work-groups' partial tiles */
    size_t work_elems; /* its size in elements */
    clip_gemm_params prm;
    clip_type type;
} clip_gemm;

/* Builds (or finds cached) the kernels for prm and type t, with a split-K or stream-K workspace
 * for products of up to m x n (a wgmma tensor set: its packed operands for up to m x k by k x n),
 * and names process p's variant by the set (clip_gemm_describe): prm's before the build, so that
 * a failure names it, and g->prm's after (clip_gemm_tc_build may fall back to another set).
 * Errors: as clip_proc_kernel, CLIP_ERR_OUT_OF_MEMORY, and CLIP_ERR_PARAM_RANGE when the device
 * cannot run the work-group size. */
clip_status clip_gemm_build(clip_process *p, clip_type t, const clip_gemm_params *prm, size_t m,
                            size_t n, size_t k, clip_gemm *g);

/* How many tiles of an m x n x k product clip_gemm_enqueue would compute stream-K: the tiles
 * past the last whole wave of g->sk_groups work-groups, when g was built with stream-K (prm.sk
 * > 0, a product past one wave), K has a slice for each of those work-groups and the workspace
 * holds their partial tiles; otherwise 0 (the product runs as one grid). */
size_t clip_gemm_stream_k_tiles(const clip_gemm *g, size_t m, size_t n, size_t k);

/* A scalar of the product's type, as re + i*im (im ignored for real types). */
typedef struct clip_gemm_scalar {
    double re, im;
} clip_gemm_scalar;

/* One matrix operand: a buffer, the offset of element (0,0) and the leading dimension, both in
 * elements. */
typedef struct clip_gemm_operand {
    cl_mem mem;
    size_t off, ld;
} clip_gemm_operand;

/* Enqueues C = alpha*op(A)*op(B) + beta*C with op(A) m x k, op(B) k x n, C m x n, op as g was
 * built for (a transposed operand's leading dimension is that of the stored k x m or n x k
 * matrix). Nothing is enqueued when m or n
 * is 0; k = 0 with beta = 0 fills C with zeros. C must not overlap A or B. A product larger than
 * the workspace built for runs unsplit. Errors: CLIP_ERR_OVERFLOW (a size past the kernel's int
 * indices), CLIP_ERR_INVALID_ARG (operands misaligned for the built set: see clip_gemm_fit),
 * CLIP_ERR_OPENCL. */
clip_status clip_gemm_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                              clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                              clip_gemm_scalar beta, clip_gemm_operand c);

/* Sets the arguments every GEMM kernel family takes first (0..13: M, N, K, alpha, beta, then
 * buffer, offset and leading dimension of A, B and C), alpha and beta in type t. Errors:
 * CLIP_ERR_OPENCL. */
clip_status clip_gemm_common_args(clip_process *p, cl_kernel kr, clip_type t, size_t m, size_t n,
                                  size_t k, clip_gemm_scalar alpha, clip_gemm_operand a,
                                  clip_gemm_operand b, clip_gemm_scalar beta, clip_gemm_operand c);

#endif
