/* The tensor-core family of the GEMM engine (variant "tensor"): real single products on NVIDIA
 * tensor cores (compute capability 8.0 and later), fp32-accurate by 3xTF32 error compensation,
 * through kernels/tensor_core.cl and kernels/matmul_tc.cl. gemm.c and gemm_params.c dispatch here
 * when a set's variant is CLIP_GEMM_TENSOR; nothing of the family is built on other devices.
 *
 * A tensor set uses the fields of clip_gemm_params as: mwg x nwg the work-group tile of C, kwg
 * the K slice (8, 16 or 32), mdimc x ndimc the warps of a work-group along M and N (each warp a
 * mwg/mdimc x nwg/ndimc tile of m16n8k8 mma tiles), stages the local buffers filled by cp.async
 * (2 to 4), aligned whether A's and B's leading dimensions and offsets are multiples of 4 floats
 * (the kernel's 16-byte copies need it), precision fp32 (3xTF32) or tf32 (one TF32 product per
 * pair, accumulated on the tensor cores). The others are fixed: vw 4, vwn 1, wm mdimc, ksplit 1,
 * sk 0. Only op(A) = A and op(B) = B are built. */
#ifndef CLIP_PROCESSES_GEMM_TC_H
#define CLIP_PROCESSES_GEMM_TC_H

#include "gemm.h"

/* Non-zero when process p's device runs the family: its extensions name
 * cl_nv_device_attribute_query and CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV is 8 or more. Queries
 * the device (no error: a failed query means no). */
int clip_gemm_tc_device(clip_process *p);

/* Non-zero when variant auto takes the family for the real single products it can run, on a
 * device where clip_gemm_tc_device holds. By measurement (bench/GEMM.md) it wins no shape yet, so
 * only when the environment variable CLIP_GEMM_FAMILY is "tensor" (tests and experiments run the
 * family through the ordinary processes that way). */
int clip_gemm_tc_auto(void);

/* The default tensor set (before clip_gemm_fit). */
void clip_gemm_tc_default(clip_gemm_params *out);

/* clip_gemm_fit for a tensor set: sets `aligned` from the stored operands' leading dimensions
 * and offsets (elements); the other derived fields are zero. */
void clip_gemm_tc_fit(clip_gemm_params *prm, size_t lda, size_t ldb, size_t offa, size_t offb);

/* 0 if the tensor set fits the device for type t; otherwise -1 and a reason in `why`. Does not
 * look at the architecture (clip_gemm_tc_device does). */
int clip_gemm_tc_check(const clip_gemm_params *prm, const clip_device_info *dev, clip_type t,
                       char *why, size_t cap);

/* Bytes of local memory a tensor set's kernel declares. */
size_t clip_gemm_tc_local_bytes(const clip_gemm_params *prm);

/* The kernel build's -D options of a tensor set. */
void clip_gemm_tc_options(const clip_gemm_params *prm, char *buf, size_t cap);

/* Builds (or finds cached) the kernel of a checked tensor set into g (the kernel is owned by the
 * process). Errors: as clip_proc_kernel; CLIP_ERR_PARAM_RANGE when the built kernel cannot run the
 * set's work-group. */
clip_status clip_gemm_tc_build(clip_process *p, const clip_gemm_params *prm, clip_gemm *g);

/* clip_gemm_enqueue's work for a tensor set (sizes already checked against the kernel's int
 * indices, m, n, k > 0). Errors: CLIP_ERR_INVALID_ARG (A or B not aligned to 4 floats),
 * CLIP_ERR_OVERFLOW (more tiles than a grid holds), CLIP_ERR_OPENCL. */
clip_status clip_gemm_tc_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                                 clip_gemm_scalar alpha, clip_gemm_operand a,
                                 clip_gemm_operand b, clip_gemm_scalar beta, clip_gemm_operand c);

#endif
