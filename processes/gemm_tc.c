/* The tensor-core GEMM family (see gemm_tc.h): device detection, the set's defaults and checks,
 * the build and the launch of kernels/matmul_tc.cl. */
#include "gemm_tc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cl_nv_device_attribute_query (cl_ext.h names it; not every header set has it). */
#define CLIP_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000

int clip_gemm_tc_device(clip_process *p) {
    cl_device_id d = clip_proc_cl_device(p);
    size_t len = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || len == 0) return 0;
    char *ext = malloc(len + 1);
    if (!ext) return 0;
    int nv = clGetDeviceInfo(d, CL_DEVICE_EXTENSIONS, len, ext, NULL) == CL_SUCCESS;
    ext[len] = '\0';
    nv = nv && strstr(ext, "cl_nv_device_attribute_query") != NULL;
    free(ext);
    /* Ask only a device that names the extension: other drivers need not answer 0x4000. */
    cl_uint major = 0;
    if (!nv || clGetDeviceInfo(d, CLIP_CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major,
                               NULL) != CL_SUCCESS)
        return 0;
    return major >= 8; /* mma.sync tf32, cp.async and ldmatrix all need sm_80 */
}

int clip_gemm_tc_auto(void) {
    const char *f = getenv("CLIP_GEMM_FAMILY");
    /* Measured on the H100 (bench/GEMM.md, 2026-11-25), the fp32-accurate kernel ran at 0.99x
     * the FFMA family at 2048^3, 0.92x at 4096^3 and 0.94x at 8192^3, and slower at 1024^3: no
     * shape is known where it wins, so auto keeps the FFMA family until one is measured. */
    return f && !strcmp(f, "tensor");
}

void clip_gemm_tc_default(clip_gemm_params *o) {
    memset(o, 0, sizeof *o);
    o->variant = CLIP_GEMM_TENSOR;
    o->mwg = o->nwg = 128;
    o->kwg = 16;
    o->mdimc = o->ndimc = 2; /* four warps of 64x64 */
    o->stages = 2;
    o->vw = 4;
    o->vwn = o->vwb = o->ksplit = 1;
    o->wm = o->mdimc;
}

void clip_gemm_tc_fit(clip_gemm_params *p, size_t lda, size_t ldb, size_t offa, size_t offb) {
    p->vwb = 1;
    p->alignb = p->pada = p->padb = 0;
    p->aligned = !(lda % 4 || ldb % 4 || offa % 4 || offb % 4);
}

/* Local memory pitches (floats) of the kernel: A slices m-major, B slices n-major. */
size_t clip_gemm_tc_local_bytes(const clip_gemm_params *p) {
    size_t a = (size_t)p->kwg * (size_t)(p->mwg + 8), b = (size_t)p->nwg * (size_t)(p->kwg + 4);
    return (a + b) * (size_t)p->stages * sizeof(float);
}

int clip_gemm_tc_check(const clip_gemm_params *p, const clip_device_info *dev, clip_type t,
                       char *why, size_t cap) {
    if (t != CLIP_F32) {
        snprintf(why, cap, "the tensor family multiplies f32 only, not %s", clip_type_name(t));
        return -1;
    }
    if (p->transa || p->transb) {
        snprintf(why, cap, "the tensor family reads A and B untransposed only");
        return -1;
    }
    if (p->mdimc < 1 || p->ndimc < 1 || p->mwg < 1 || p->nwg < 1 || p->mwg % p->mdimc ||
        p->nwg % p->ndimc) {
        snprintf(why, cap, "mwg and nwg must be positive multiples of the warps mdimc and ndimc");
        return -1;
    }
    const int wm = p->mwg / p->mdimc, wn = p->nwg / p->ndimc;
    /* Warp tiles of whole m16 tiles and of pairs of n8 tiles (one ldmatrix.x4 reads two). */
    if (wm % 16 || wn % 16 || wm * wn / 32 > 128) {
        snprintf(why, cap, "warp tile %dx%d: sides must be multiples of 16, at most 4096 outputs",
                 wm, wn);
        return -1;
    }
    if (p->kwg != 8 && p->kwg != 16 && p->kwg != 32) {
        snprintf(why, cap, "kwg %d: the tensor family takes 8, 16 or 32", p->kwg);
        return -1;
    }
    if (p->precision != CLIP_GEMM_FP32 && p->precision != CLIP_GEMM_TF32) {
        snprintf(why, cap, "precision %d: fp32 or tf32", p->precision);
        return -1;
    }
    if (p->stages < 2 || p->stages > 4) {
        snprintf(why, cap, "stages %d: the tensor family takes 2 to 4", p->stages);
        return -1;
    }
    if (p->vw != 4 || p->vwn != 1 || p->ksplit != 1 || p->sk != 0 || p->wm != p->mdimc) {
        snprintf(why, cap, "vw 4, vwn 1, ksplit 1 and streamk 0 are fixed in the tensor family");
        return -1;
    }
    if (!p->aligned) {
        snprintf(why, cap, "A's and B's leading dimensions and offsets must be multiples of 4");
        return -1;
    }
    size_t threads = 32 * (size_t)p->mdimc * (size_t)p->ndimc;
    if (threads > dev->max_work_group) {
        snprintf(why, cap, "%zu work-items exceed the device's %zu", threads, dev->max_work_group);
        return -1;
    }
    size_t local = clip_gemm_tc_local_bytes(p);
    if (local > dev->local_mem) {
        snprintf(why, cap, "the stages need %zu bytes of local memory, the device has %llu", local,
                 (unsigned long long)dev->local_mem);
        return -1;
    }
    return 0;
}

void clip_gemm_tc_options(const clip_gemm_params *p, char *buf, size_t cap) {
    int n = snprintf(buf, cap,
                     "-DTC_MWG=%d -DTC_NWG=%d -DTC_KWG=%d -DTC_WM=%d -DTC_WN=%d -DTC_STAGES=%d "
                     "-DTC_PASSES=%d",
                     p->mwg, p->nwg, p->kwg, p->mwg / p->mdimc, p->nwg / p->ndimc, p->stages,
                     p->precision == CLIP_GEMM_TF32 ? 1 : 3);
    /* The experiment hook of clip_gemm_options (CLIP_GEMM_DEFS) applies here too. */
    const char *extra = getenv("CLIP_GEMM_DEFS");
    if (extra && *extra && n > 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, " %s", extra);
}

clip_status clip_gemm_tc_build(clip_process *p, const clip_gemm_params *prm, clip_gemm *g) {
    char opts[160];
    clip_gemm_tc_options(prm, opts, sizeof opts);
    memset(g, 0, sizeof *g);
    clip_status s = clip_proc_kernel(p, "tensor_core+matmul_tc", CLIP_F32, opts, "gemm_tc", &g->kernel);
    if (s != CLIP_OK) return s;
    size_t max_wg = 0, want = 32 * (size_t)prm->mdimc * (size_t)prm->ndimc;
    cl_int e = clGetKernelWorkGroupInfo(g->kernel, clip_proc_cl_device(p), CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof max_wg, &max_wg, NULL);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clGetKernelWorkGroupInfo: error %d", (int)e);
    if (want > max_wg) {
        char desc[128];
        clip_gemm_describe(prm, desc, sizeof desc);
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE,
                              "tile parameters %s: the built kernel runs at most %zu work-items",
                              desc, max_wg);
    }
    g->prm = *prm;
    g->type = CLIP_F32;
    return CLIP_OK;
}

clip_status clip_gemm_tc_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                                 clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                                 clip_gemm_scalar beta, clip_gemm_operand c) {
    const clip_gemm_params *q = &g->prm;
    if (a.ld % 4 || a.off % 4 || b.ld % 4 || b.off % 4)
        return clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                              "the tensor GEMM kernel needs A and B aligned to 4 floats (lda %zu, "
                              "offa %zu, ldb %zu, offb %zu)", a.ld, a.off, b.ld, b.off);
    size_t mt = (m + (size_t)q->mwg - 1) / (size_t)q->mwg, nt = (n + (size_t)q->nwg - 1) / (size_t)q->nwg;
    size_t threads = 32 * (size_t)q->mdimc * (size_t)q->ndimc;
    if (mt * nt > INT_MAX / threads)
        return clip_proc_fail(p, CLIP_ERR_OVERFLOW, "a %zux%zu product has too many %dx%d tiles", m,
                              n, q->mwg, q->nwg);
    cl_int MT = (cl_int)mt, NT = (cl_int)nt;
    cl_kernel kr = g->kernel;
    clip_status s = clip_gemm_common_args(p, kr, CLIP_F32, m, n, k, alpha, a, b, beta, c);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 14, sizeof MT, &MT);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 15, sizeof NT, &NT);
    size_t global = mt * nt * threads;
    if (s == CLIP_OK) s = clip_proc_enqueue(p, kr, 1, &global, &threads);
    return s;
}
