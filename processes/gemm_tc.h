/* The tensor-core family of the GEMM engine (variant "tensor"): single-precision products (f32;
 * c32 too on the wgmma kernels) on NVIDIA tensor cores (compute capability 8.0 and later),
 * fp32-accurate by 3xTF32 error compensation, through kernels/tensor_core.cl and
 * kernels/matmul_tc.cl (mma.sync), or on compute capability 9.0 kernels/matmul_wg.cl (wgmma; a
 * set with `wgmma` set, clip_gemm_tc_default_wg says its fields).
 * gemm.c and gemm_params.c dispatch here when a set's variant is CLIP_GEMM_TENSOR; nothing of the
 * family is built on other devices.
 *
 * An mma.sync set uses the fields of clip_gemm_params as: mwg x nwg the work-group tile of C, kwg
 * the K slice (8, 16 or 32), mdimc x ndimc the warps of a work-group along M and N (each warp a
 * mwg/mdimc x nwg/ndimc tile of m16n8k8 mma tiles), stages the local buffers filled by cp.async
 * (2 to 4), aligned whether A's and B's leading dimensions and offsets are multiples of 4 floats
 * (the kernel's 16-byte copies need it), precision fp32 (3xTF32) or tf32 (one TF32 product per
 * pair, accumulated on the tensor cores; bf16 and fp16 only on the wgmma kernels). The others are
 * fixed: vw 4, vwn 1, wm mdimc, ksplit 1, sk 0. Only op(A) = A and op(B) = B are built.
 *
 * Accuracy (precision fp32). 3xTF32 splits each value x into TF32 parts big + small
 * (kernels/tf32.cl) and is fp32-accurate, each output within the K-term bound of fp32 FMA
 * (error up to a small multiple of K * 2^-24 * sum |a||b|), where every operand is 0 or
 * 2^-112 <= |x| < 2^126: below that TF32's step (2^-136 under FLT_MIN) drops bits of the parts
 * (a subnormal keeps ~2^-7 of itself, a value ~1e-36 ~2^-16), above it the rounding may reach
 * Inf and products and sums sit at the end of the range (in range, an output that overflows is
 * +-Inf where the sum's order makes it so, as between any two fp32 orders; NaN outputs are
 * recomputed in fp32). The wgmma kernels hold the rule for every input: wg_pack flags each row
 * of op(A) and column of op(B) that holds a value outside the range (subnormals, normals under
 * 2^-112, values of 2^126 and more, Inf, NaN), and wg_rescale, for each flagged row or column,
 *   - scales it by the power of two 2^s (the least shift) that brings every non-zero finite
 *     value of it into the range, where one does (its largest and least non-zero finite
 *     magnitudes within 2^238 of each other: tf32_scale), and the product's outputs of it are
 *     scaled back by 2^-(s_row + s_col), exactly but for the rounding of a subnormal output;
 *   - packs its Inf and NaN entries, up to CLIP_GEMM_WG_LIST of them, as zero and lists them:
 *     each output of the row or column adds their terms a*b to its finite part in fp32, so it
 *     is NaN or +-Inf exactly where fp32 FMA makes it so (NaN from a NaN, Inf * 0 or Infs of
 *     both signs; +-Inf from Infs of one sign);
 *   - otherwise (no shift holds the row: 2^-140 beside 2^120; more non-finite entries than the
 *     list; a complex row with any) leaves its outputs to wg_fix, which computes them by fp32 FMA
 *     (each work-group of the device takes 8 columns of the row's outputs in turn, its 256
 *     work-items along K): one such row costs 1.02-1.04x at 4096^3 and 8192^3 on the H200
 *     (bench/GEMM.md, "wg_fix by units"); where most rows are such, wg_fix is a plain FFMA
 *     product (8x8 outputs a work-group at a time, not timed).
 * A scaled output that comes out NaN, or Inf where the scaling raised the values, is recomputed
 * by one work-item's fp32 FMA loop. Cost, measured on an H200 at 4096^3 (bench/GEMM.md, "Scaled
 * rows"): none on data in range (1.430 against 1.442 ms before wg_rescale existed), 1.11x with
 * 3 NaN and 2 Inf in A and 2 -Inf in B, 1.07x with 4 values of +-0.9 FLT_MAX, 1.20x with every
 * row of A or column of B subnormal (1.72 against 1.43 ms; 32x through wg_fix before), 1.25x
 * with every row ~1e-36 (the call before the packing's last change).
 * The mma.sync kernel (auto never takes it: variant tensor below compute capability 9.0 or with
 * CLIP_GEMM_WGMMA=0) holds the rule per tile: a work-group whose fragments hold a value outside
 * the range computes its whole tile by fp32 FMA, each output by one work-item's K-long loop
 * (correct; for a matrix of subnormals as slow as a naive kernel). */
#ifndef CLIP_PROCESSES_GEMM_TC_H
#define CLIP_PROCESSES_GEMM_TC_H

#include "gemm.h"

/* The compute capability of process p's device as major * 10 + minor (80, 86, 90): its
 * clip_device_info's nv_arch, 0 when the device does not name cl_nv_device_attribute_query or
 * the query failed. The family runs from 80 on (mma.sync tf32, cp.async and ldmatrix need sm_80),
 * the wgmma kernels at 90 only. */
int clip_gemm_tc_arch(clip_process *p);

/* The smallest side, and the least m*n*k, of an f32 or c32 product that variant auto gives the
 * wgmma kernels (by measurement, bench/GEMM.md: with the split tail 768^3 runs in 0.036 ms
 * against the FFMA family's 0.057, 512^3 in 0.029 against 0.023; that was the 48 KB set, and the
 * 128 x 128 default that replaced it was timed from 1024^3 up, 1.14x that set there). */
#define CLIP_GEMM_WG_MIN 256
#define CLIP_GEMM_WG_MIN_WORK 4.0e8
/* Below CLIP_GEMM_WG_MIN_WORK, from CLIP_GEMM_WG_MID_WORK on, the wgmma kernels where C has at
 * least CLIP_GEMM_WG_MID_MN entries and K is at least CLIP_GEMM_WG_MID_K. On the GPU's own clock
 * (H100, bench/GEMM.md, "The tensor family below 4e8"), 544^3 to 704^3 ran 1.25-1.46x faster on
 * them, and nine other shapes of 2e8 to 2.7e8 multiply-adds 1.09-1.50x; they lost where C was
 * small (256x256x4096 0.94-0.96x, 320x320x1600 0.89x) or K short (256x4096x256 0.93-0.94x,
 * 4096x256x256 0.90-0.91x; 1024x1024x256 1.03x, level), and 512^3 was level (0.97x). A complex
 * product is run as the real one of m x 2n by depth 2k (wg_value), and this band is judged on
 * that one: c32 384^3, 448^3 and 512^3 ran 1.33-1.48x faster on the wgmma kernels. */
#define CLIP_GEMM_WG_MID_WORK 1.5e8
#define CLIP_GEMM_WG_MID_MN 262144.0
#define CLIP_GEMM_WG_MID_K 384

/* Non-zero when variant auto takes the family for an f32 (on compute capability 9.0 also c32)
 * m x k by k x n product on a device of compute capability `arch` (clip_gemm_tc_arch, 80 or
 * more): the environment variable CLIP_GEMM_FAMILY, when set, decides ("tensor" yes, anything
 * else no: tests and experiments); otherwise yes at 90 (the wgmma kernels) for products of at
 * least CLIP_GEMM_WG_MIN a side and CLIP_GEMM_WG_MIN_WORK, or of CLIP_GEMM_WG_MID_WORK with the
 * C and K above (for a complex product, `cx` non-zero, those of its real form), no elsewhere
 * (the mma.sync kernel wins no measured shape). At precision fp32 a tuned set of the product's
 * size class (`clip tune`, which times the family's sets too) takes precedence over this
 * choice. */
int clip_gemm_tc_auto(int arch, size_t m, size_t n, size_t k, int cx);

/* The default tensor set (before clip_gemm_fit): the mma.sync kernel of sm_80 and later. */
void clip_gemm_tc_default(clip_gemm_params *out);

/* The default wgmma set (sm_90 only): kernels/matmul_wg.cl. Its fields: mwg = 64 * mdimc rows of
 * C (mdimc warpgroups of 64 rows, 1 to 3), nwg 128 columns (256 with one part; ndimc 1), kwg the K
 * of a stage (1 to 4 slices of 8 values, of 16 at precision bf16 and fp16), stages 2 to 6 local
 * buffers (up to CLIP_GEMM_WG_LOCAL bytes in all), pipe how they are filled (1 bulk copies and
 * transaction barriers, 0 cp.async and work-group barriers), sk the work-groups a compute unit
 * holds (the split tail's wave). Both operands are first packed into a workspace (split into
 * TF32 parts, or rounded to the precision's type, and laid out for wgmma; transposed operands
 * are read there, so transa and transb are free), then multiplied from it. The default: 128 x 128
 * (two warpgroups), K 16, four stages, pipe 1, sk 1 (precision fp32; clip_gemm_tc_prefer gives
 * the one-part precisions K 32 and six stages). */
void clip_gemm_tc_default_wg(clip_gemm_params *out);

/* Bytes of the packed operands of an m x k by k x n product of type t for a wgmma set. */
size_t clip_gemm_tc_pack_bytes(const clip_gemm_params *prm, clip_type t, size_t m, size_t n,
                               size_t k);

/* The schedule of a wgmma set's tiles (kernels/matmul_wg.cl, wg_schedule) on a device whose wave
 * is `wave` work-groups (compute units x prm.sk; 0 when sk is 0): *dp tiles run whole and the
 * *tail tiles past the last whole wave are each split along K into *splits runs of whole stages
 * (`stages` of them), when a split of at least 2 fits (the tail is under half a wave);
 * otherwise *dp = tiles, *tail = 0, *splits = 1. A product of fewer tiles than a wave is all
 * tail. */
void clip_gemm_tc_schedule(const clip_gemm_params *prm, size_t wave, size_t tiles, size_t stages,
                           size_t *dp, size_t *tail, size_t *splits);

/* Turns a default tensor set into the wgmma set of its precision when `arch` (clip_gemm_tc_arch
 * of process p's device) is 90, keeping its precision and operation, when the packed operands
 * take at most an eighth of the device's memory and the environment variable CLIP_GEMM_WGMMA is
 * not "0"; otherwise leaves it. */
void clip_gemm_tc_prefer(clip_process *p, int arch, clip_gemm_params *prm, clip_type t, size_t m,
                         size_t n, size_t k);

/* clip_gemm_fit for a tensor set: sets `aligned` from the stored operands' leading dimensions
 * and offsets (elements); the other derived fields are zero. */
void clip_gemm_tc_fit(clip_gemm_params *prm, size_t lda, size_t ldb, size_t offa, size_t offb);

/* Bytes of local memory a wgmma set's stages may take. Those kernels are built from PTX for
 * sm_90a (lib/program_ptx.c), where the stages are a static .shared array that ptxas and the
 * driver take past the 48 KB that OpenCL reports (CL_DEVICE_LOCAL_MEM_SIZE), up to the 227 KB a
 * Hopper thread block may hold; 256 bytes of it stay for the transaction barriers and alignment.
 * Measured on the H100 and H200 (driver 580): bench/GEMM.md, "Past 48 KB". */
#define CLIP_GEMM_WG_LOCAL (227 * 1024 - 256)

/* Inf and NaN entries a row of op(A) or column of op(B) may hold and stay on the tensor cores
 * (matmul_wg.cl, wg_rescale: their terms are added to the outputs apart); a row with more goes
 * to wg_fix (fp32 FMA) whole. */
#define CLIP_GEMM_WG_LIST 8

/* Bytes of local memory the tensor set prm may take on dev: CLIP_GEMM_WG_LOCAL for a wgmma set,
 * the device's local memory for an mma.sync set. */
size_t clip_gemm_tc_local_room(const clip_gemm_params *prm, const clip_device_info *dev);

/* 0 if the tensor set fits the device for type t; otherwise -1 and a reason in `why`. Does not
 * look at the architecture (clip_gemm_tc_arch does). */
int clip_gemm_tc_check(const clip_gemm_params *prm, const clip_device_info *dev, clip_type t,
                       char *why, size_t cap);

/* Bytes of local memory a tensor set's kernel declares. */
size_t clip_gemm_tc_local_bytes(const clip_gemm_params *prm);

/* The kernel build's -D options of a tensor set. */
void clip_gemm_tc_options(const clip_gemm_params *prm, char *buf, size_t cap);

/* Builds (or finds cached) the kernels of a checked tensor set into g (owned by the process),
 * with a wgmma set's workspace for products up to m x k by k x n: their packed operands, then
 * room for a wave's partial tiles when sk > 0 (g->sk_groups work-groups of mwg x nwg floats;
 * g->fixup the kernel that sums them, clip_gemm_tc_schedule), then the range flags (a word a
 * packed row and tile); at precision fp32 also g->fix_range (wg_fix). Errors: as clip_proc_kernel
 * and clip_proc_temp; CLIP_ERR_PARAM_RANGE when the built kernel cannot run the set's
 * work-group. A wgmma set past the device's reported local memory that fails to build (a driver
 * that holds sm_90a kernels to OpenCL's 48 KB) is replaced by the set of its precision that fits
 * 48 KB (g->prm says which ran); the first error is returned if that fails too. */
clip_status clip_gemm_tc_build(clip_process *p, clip_type t, const clip_gemm_params *prm, size_t m,
                               size_t n, size_t k, clip_gemm *g);

/* clip_gemm_enqueue's work for a tensor set (sizes already checked against the kernel's int
 * indices, m, n, k > 0). Errors: CLIP_ERR_INVALID_ARG (A or B not aligned to 4 floats),
 * CLIP_ERR_OVERFLOW (more tiles than a grid holds), CLIP_ERR_OPENCL; a wgmma set also
 * CLIP_ERR_INVALID_ARG for a product larger than its workspace. A wgmma set enqueues the packing,
 * the product, where clip_gemm_tc_schedule splits a tail the sum of its parts, and at precision
 * fp32 wg_fix (the outputs of rows and columns outside the 3xTF32 range). */
clip_status clip_gemm_tc_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                                 clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                                 clip_gemm_scalar beta, clip_gemm_operand c);

#endif
