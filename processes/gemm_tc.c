/* The tensor-core GEMM family (see gemm_tc.h): device detection, the set's defaults and checks,
 * the build and the launch of kernels/matmul_tc.cl. */
#include "gemm_tc.h"

#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int clip_gemm_tc_arch(clip_process *p) {
    return clip_proc_device(p)->nv_arch;
}

int clip_gemm_tc_auto(int arch, size_t m, size_t n, size_t k, int cx) {
    const char *f = getenv("CLIP_GEMM_FAMILY");
    if (f && *f) return !strcmp(f, "tensor");
    /* The mma.sync kernel ran at 0.92-0.99x the FFMA family on the H100 (bench/GEMM.md), so
     * only the wgmma kernels of sm_90 are taken, and only for products big enough that the
     * packing and the 64x128 tiles pay (measured: bench/GEMM.md, "wgmma"); the band below
     * CLIP_GEMM_WG_MIN_WORK judges the real product the kernels run (gemm_tc.h). */
    const double c = cx ? 2 : 1, mn = (double)m * (double)n, work = mn * (double)k;
    return arch == 90 && m >= CLIP_GEMM_WG_MIN && n >= CLIP_GEMM_WG_MIN && k >= CLIP_GEMM_WG_MIN &&
           (work >= CLIP_GEMM_WG_MIN_WORK ||
            (c * c * work >= CLIP_GEMM_WG_MID_WORK && c * mn >= CLIP_GEMM_WG_MID_MN &&
             c * (double)k >= CLIP_GEMM_WG_MID_K));
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

void clip_gemm_tc_default_wg(clip_gemm_params *o) {
    memset(o, 0, sizeof *o);
    o->variant = CLIP_GEMM_TENSOR;
    o->wgmma = 1;
    /* Two warpgroups over 128 x 128, four stages of K 16 moved by bulk copies (128 KB of local
     * memory, past OpenCL's 48 KB: CLIP_GEMM_WG_LOCAL): 1.14-1.25x the one-warpgroup 64 x 128
     * set of 48 KB at 1024^3 to 8192^3 on the H100 (bench/GEMM.md, "Past 48 KB"). */
    o->mwg = 128;
    o->nwg = 128;
    o->kwg = 16;
    o->mdimc = 2;
    o->ndimc = 1;
    o->stages = 4;
    o->pipe = 1;
    o->vw = 4;
    o->vwn = o->vwb = o->ksplit = 1;
    o->wm = o->mdimc;
    o->aligned = 1;
    /* One work-group a compute unit (its local memory): the tail past the last whole wave of
     * them is split along K (clip_gemm_tc_schedule). */
    o->sk = 1;
}

/* The wgmma kernels' packed parts of a value (3xTF32 two, one rounding one), the 16-bit type
 * of a precision (matmul_wg.cl's WG_HALF: 0 none, 1 bf16, 2 fp16) and the values of K in a
 * packed slice of 32 bytes a row. */
static size_t wg_parts(const clip_gemm_params *o) {
    return o->precision == CLIP_GEMM_FP32 ? 2 : 1;
}
static int wg_half(const clip_gemm_params *o) {
    return o->precision == CLIP_GEMM_BF16 ? 1 : o->precision == CLIP_GEMM_FP16 ? 2 : 0;
}
static size_t wg_slice_k(const clip_gemm_params *o) {
    return wg_half(o) ? 16 : 8;
}

/* The set of the precision that fits OpenCL's 48 KB (the defaults before "Past 48 KB"): one
 * warpgroup over 64 x 128, two stages moved by cp.async, several work-groups a compute unit. */
static void default_wg_48k(clip_gemm_params *o, int precision) {
    clip_gemm_tc_default_wg(o);
    o->precision = precision;
    o->mwg = 64;
    o->mdimc = o->wm = 1;
    o->stages = 2;
    o->pipe = 0;
    o->sk = 3; /* 152 registers: 3 work-groups a compute unit */
    if (precision != CLIP_GEMM_FP32) {
        o->kwg = 4 * (int)wg_slice_k(o);
        o->sk = 4; /* 126 registers: 4 */
    }
}

/* The packed slices of a depth: whole stages (kwg), the last zero-filled past the depth, so that
 * every stage is one whole copy. */
static size_t wg_slices(const clip_gemm_params *o, size_t depth) {
    const size_t per = (size_t)o->kwg / wg_slice_k(o);
    const size_t sl = (depth + wg_slice_k(o) - 1) / wg_slice_k(o);
    return per ? (sl + per - 1) / per * per : sl;
}

size_t clip_gemm_tc_pack_bytes(const clip_gemm_params *o, clip_type t, size_t m, size_t n,
                               size_t k) {
    const size_t cx = clip_type_is_complex(t) ? 2 : 1; /* see kernels/matmul_wg.cl, wg_value */
    const size_t rows = (m + (size_t)o->mwg - 1) / (size_t)o->mwg * (size_t)o->mwg;
    const size_t cols = (cx * n + (size_t)o->nwg - 1) / (size_t)o->nwg * (size_t)o->nwg;
    return (rows + cols) * wg_slices(o, cx * k) * 32 * wg_parts(o);
}

/* Words of the range flags (matmul_wg.cl, wg_flags) after the packing and the partial tiles: one
 * a packed row of each operand, one a tile. */
static size_t wg_flag_words(const clip_gemm_params *o, clip_type t, size_t m, size_t n) {
    const size_t cx = clip_type_is_complex(t) ? 2 : 1;
    const size_t mt = (m + (size_t)o->mwg - 1) / (size_t)o->mwg;
    const size_t nt = (cx * n + (size_t)o->nwg - 1) / (size_t)o->nwg;
    /* flags, modes and lists of the rows, flags of the tiles twice (matmul_wg.cl, wg_flags) */
    return (mt * (size_t)o->mwg + nt * (size_t)o->nwg) * (2 + CLIP_GEMM_WG_LIST) + 2 * (mt + nt);
}

/* This call's stamp for the range flags: a different non-zero number each call, so that flags
 * need no clearing (wg_flags). */
static cl_uint next_stamp(void) {
    static atomic_uint counter;
    cl_uint s;
    do
        s = (cl_uint)atomic_fetch_add(&counter, 1u) + 1u;
    while (s == 0);
    return s;
}

void clip_gemm_tc_prefer(clip_process *p, int arch, clip_gemm_params *o, clip_type t, size_t m,
                         size_t n, size_t k) {
    const char *env = getenv("CLIP_GEMM_WGMMA");
    if (o->variant != CLIP_GEMM_TENSOR || (env && !strcmp(env, "0")) || arch != 90) return;
    clip_gemm_params w;
    clip_gemm_tc_default_wg(&w);
    w.precision = o->precision;
    /* One part in place of two leaves room for more: six stages of K 32, 192 KB of local
     * memory in TF32, 96 KB in 16-bit values (bench/GEMM.md, "Past 48 KB"). */
    if (w.precision != CLIP_GEMM_FP32) {
        w.kwg = 32;
        w.stages = 6;
    }
    w.transa = o->transa;
    w.transb = o->transb;
    /* The packed operands are a workspace beside the data: take it only where it is a small
     * part of the device (otherwise the mma.sync kernel reads the operands in place). */
    const clip_device_info *dev = clip_proc_device(p);
    if (clip_gemm_tc_pack_bytes(&w, t, m, n, k) <= dev->global_mem / 8) *o = w;
}

void clip_gemm_tc_fit(clip_gemm_params *p, size_t lda, size_t ldb, size_t offa, size_t offb) {
    p->vwb = 1;
    p->alignb = p->pada = p->padb = 0;
    /* The wgmma kernels read the packed copies, which are aligned whatever the operands are. */
    p->aligned = p->wgmma || !(lda % 4 || ldb % 4 || offa % 4 || offb % 4);
}

/* Local memory pitches (floats) of the kernel: A slices m-major, B slices n-major. */
size_t clip_gemm_tc_local_bytes(const clip_gemm_params *p) {
    if (p->wgmma) /* 32 bytes a row of a slice, each part */
        return (size_t)p->stages * (size_t)(p->mwg + p->nwg) * (size_t)p->kwg / wg_slice_k(p) * 32 *
               wg_parts(p);
    size_t a = (size_t)p->kwg * (size_t)(p->mwg + 8), b = (size_t)p->nwg * (size_t)(p->kwg + 4);
    return (a + b) * (size_t)p->stages * sizeof(float);
}

size_t clip_gemm_tc_local_room(const clip_gemm_params *p, const clip_device_info *dev) {
    return p->wgmma ? CLIP_GEMM_WG_LOCAL : (size_t)dev->local_mem;
}

/* The checks both kernels share: stages (2 to max_stages), the fields fixed in the family, the
 * work-group of `threads` and the local memory. */
static int check_shared(const clip_gemm_params *p, const clip_device_info *dev, int max_stages,
                        size_t threads, char *why, size_t cap) {
    if (p->stages < 2 || p->stages > max_stages) {
        snprintf(why, cap, "stages %d: these tensor sets take 2 to %d", p->stages, max_stages);
        return -1;
    }
    if (p->vw != 4 || p->vwn != 1 || p->ksplit != 1 || p->wm != p->mdimc) {
        snprintf(why, cap, "vw 4, vwn 1 and ksplit 1 are fixed in the tensor family");
        return -1;
    }
    if (p->sk < 0 || p->sk > (p->wgmma ? 16 : 0)) {
        snprintf(why, cap, "streamk %d: the wgmma kernels take 0 to 16, the mma.sync kernel 0",
                 p->sk);
        return -1;
    }
    if (threads > dev->max_work_group) {
        snprintf(why, cap, "%zu work-items exceed the device's %zu", threads, dev->max_work_group);
        return -1;
    }
    const size_t local = clip_gemm_tc_local_bytes(p), room = clip_gemm_tc_local_room(p, dev);
    if (local > room) {
        snprintf(why, cap, "the stages need %zu bytes of local memory, %s %zu", local,
                 p->wgmma ? "the sm_90a kernels have" : "the device has", room);
        return -1;
    }
    return 0;
}

/* clip_gemm_tc_check of a wgmma set. */
static int check_wg(const clip_gemm_params *p, const clip_device_info *dev, char *why, size_t cap) {
    if ((p->nwg != 128 && p->nwg != 256) || p->ndimc != 1 || p->mdimc < 1 || p->mdimc > 3 ||
        p->mwg != 64 * p->mdimc) {
        snprintf(why, cap,
                 "wgmma sets: nwg 128 or 256, ndimc 1, mdimc 1 to 3 warpgroups of 64 "
                 "rows (mwg 64 mdimc)");
        return -1;
    }
    if (p->precision < CLIP_GEMM_FP32 || p->precision > CLIP_GEMM_FP16) {
        snprintf(why, cap, "precision %d: fp32, tf32, bf16 or fp16", p->precision);
        return -1;
    }
    if (p->nwg == 256 && wg_parts(p) == 2) {
        snprintf(why, cap,
                 "nwg 256: the fp32 (3xTF32) wgmma kernel takes 128 columns (two "
                 "accumulators of 256 would not fit the registers)");
        return -1;
    }
    const int sk = (int)wg_slice_k(p);
    if (p->kwg < sk || p->kwg > 4 * sk || p->kwg % sk) {
        snprintf(why, cap, "kwg %d: wgmma sets of precision %s take 1 to 4 slices of %d", p->kwg,
                 clip_gemm_precision_names[p->precision], sk);
        return -1;
    }
    return check_shared(p, dev, 6, 128 * (size_t)p->mdimc, why, cap);
}

int clip_gemm_tc_check(const clip_gemm_params *p, const clip_device_info *dev, clip_type t,
                       char *why, size_t cap) {
    if (p->wgmma && t != CLIP_F32 && t != CLIP_C32) {
        snprintf(why, cap, "the wgmma kernels multiply f32 and c32 only, not %s",
                 clip_type_name(t));
        return -1;
    }
    if (!p->wgmma && t != CLIP_F32) {
        snprintf(why, cap, "the tensor family multiplies f32 only, not %s", clip_type_name(t));
        return -1;
    }
    if (p->wgmma) return check_wg(p, dev, why, cap);
    if (p->precision != CLIP_GEMM_FP32 && p->precision != CLIP_GEMM_TF32) {
        snprintf(why, cap,
                 "precision %s: the mma.sync kernel takes fp32 or tf32 (bf16 and fp16 "
                 "need the wgmma kernels, compute capability 9.0)",
                 p->precision > 0 && p->precision <= CLIP_GEMM_FP16
                     ? clip_gemm_precision_names[p->precision]
                     : "?");
        return -1;
    }
    if (p->transa || p->transb) {
        snprintf(why, cap, "the tensor family's mma.sync kernel reads A and B untransposed only");
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
    if (!p->aligned) {
        snprintf(why, cap, "A's and B's leading dimensions and offsets must be multiples of 4");
        return -1;
    }
    return check_shared(p, dev, 4, 32 * (size_t)p->mdimc * (size_t)p->ndimc, why, cap);
}

void clip_gemm_tc_options(const clip_gemm_params *p, char *buf, size_t cap) {
    if (p->wgmma)
        snprintf(buf, cap,
                 "-DCLIP_SM90A -DWG_M=%d -DWG_KS=%d -DWG_STAGES=%d -DWG_PARTS=%d -DWG_HALF=%d "
                 "-DWG_N=%d -DTRANSA=%d -DTRANSB=%d -DWG_PIPE=%d -DWG_LIST=%d",
                 p->mdimc, p->kwg / (int)wg_slice_k(p), p->stages, (int)wg_parts(p), wg_half(p),
                 p->nwg, p->transa, p->transb, p->pipe, CLIP_GEMM_WG_LIST);
    else
        snprintf(buf, cap,
                 "-DTC_MWG=%d -DTC_NWG=%d -DTC_KWG=%d -DTC_WM=%d -DTC_WN=%d -DTC_STAGES=%d "
                 "-DTC_PASSES=%d",
                 p->mwg, p->nwg, p->kwg, p->mwg / p->mdimc, p->nwg / p->ndimc, p->stages,
                 p->precision == CLIP_GEMM_TF32 ? 1 : 3);
    clip_proc_options_from_env(buf, cap, "CLIP_GEMM_DEFS");
}

static clip_status build_set(clip_process *p, clip_type t, const clip_gemm_params *prm, size_t m,
                             size_t n, size_t k, clip_gemm *g) {
    char opts[200];
    clip_gemm_tc_options(prm, opts, sizeof opts);
    memset(g, 0, sizeof *g);
    const char *src = prm->wgmma ? "tensor_core+tf32+matmul_wg" : "tensor_core+tf32+matmul_tc";
    clip_status s =
        clip_proc_kernel(p, src, t, opts, prm->wgmma ? "gemm_wg" : "gemm_tc", &g->kernel);
    if (s == CLIP_OK && prm->wgmma) s = clip_proc_kernel(p, src, t, opts, "wg_pack", &g->pack);
    if (s == CLIP_OK && prm->wgmma && prm->sk > 0)
        s = clip_proc_kernel(p, src, t, opts, "gemm_wg_reduce", &g->fixup);
    if (s == CLIP_OK && prm->wgmma && wg_parts(prm) == 2)
        s = clip_proc_kernel(p, src, t, opts, "wg_rescale", &g->rescale);
    if (s == CLIP_OK && prm->wgmma && wg_parts(prm) == 2)
        s = clip_proc_kernel(p, src, t, opts, "wg_fix", &g->fix_range);
    if (s == CLIP_OK && prm->wgmma && m > 0 && n > 0 && k > 0) {
        /* The packed operands, then room for a wave's partial tiles (clip_gemm_tc_schedule),
         * then the range flags. */
        const size_t cus = clip_proc_device(p)->compute_units;
        g->sk_groups = prm->sk > 0 ? (cus ? cus : 1) * (size_t)prm->sk : 0;
        g->work_elems = clip_gemm_tc_pack_bytes(prm, t, m, n, k) / sizeof(float) +
                        g->sk_groups * (size_t)prm->mwg * (size_t)prm->nwg +
                        wg_flag_words(prm, t, m, n);
        s = clip_proc_temp(p, g->work_elems * sizeof(float), &g->work);
        g->pack_m = m;
        g->pack_n = n;
        g->pack_k = k;
    }
    if (s != CLIP_OK) return s;
    size_t max_wg = 0, want = (prm->wgmma ? 128 : 32) * (size_t)prm->mdimc * (size_t)prm->ndimc;
    cl_int e = clGetKernelWorkGroupInfo(g->kernel, clip_proc_cl_device(p),
                                        CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
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
    g->type = t;
    return CLIP_OK;
}

clip_status clip_gemm_tc_build(clip_process *p, clip_type t, const clip_gemm_params *prm, size_t m,
                               size_t n, size_t k, clip_gemm *g) {
    clip_status s = build_set(p, t, prm, m, n, k, g);
    if (s == CLIP_OK || !prm->wgmma ||
        clip_gemm_tc_local_bytes(prm) <= clip_proc_device(p)->local_mem)
        return s;
    /* A driver that holds the sm_90a kernels to the 48 KB OpenCL reports fails the build of a
     * set past it: the one-warpgroup set of the same precision that fits instead. */
    clip_gemm_params small;
    default_wg_48k(&small, prm->precision);
    small.transa = prm->transa;
    small.transb = prm->transb;
    return build_set(p, t, &small, m, n, k, g) == CLIP_OK ? CLIP_OK : s;
}

/* wg_pack of both operands: op(A) m x k', op(B)'s n' rows (columns of op(B), two a column when
 * complex) of depth k' into the workspace, op(B) from element b_at. */
static clip_status enqueue_pack(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                                clip_gemm_operand a, clip_gemm_operand b, size_t b_at,
                                cl_ulong f_at, cl_uint stamp) {
    const clip_gemm_params *q = &g->prm;
    const int conja = q->transa == CLIP_GEMM_CTRANS, conjb = q->transb == CLIP_GEMM_CTRANS;
    /* op(A) is read along K when A is stored transposed; op(B)'s columns when B is not. */
    cl_int K = (cl_int)k, slices = (cl_int)wg_slices(q, k), ra = (cl_int)m, rb = (cl_int)n;
    cl_int lda = (cl_int)a.ld, ldb = (cl_int)b.ld, aak = q->transa != 0, bak = q->transb == 0;
    cl_int ma = 2 * conja, mb = 1 + 2 * conjb;
    cl_ulong offa = a.off, offb = b.off, to = b_at;
    cl_kernel kr = g->pack;
    const void *vals[18] = {&K,     &slices, &ra,  &a.mem, &offa, &lda,     &aak, &ma,   &rb,
                            &b.mem, &offb,   &ldb, &bak,   &mb,   &g->work, &to,  &f_at, &stamp};
    const size_t sizes[18] = {sizeof K,    sizeof slices, sizeof ra,   sizeof a.mem, sizeof offa,
                              sizeof lda,  sizeof aak,    sizeof ma,   sizeof rb,    sizeof b.mem,
                              sizeof offb, sizeof ldb,    sizeof bak,  sizeof mb,    sizeof g->work,
                              sizeof to,   sizeof f_at,   sizeof stamp};
    clip_status s = CLIP_OK;
    for (cl_uint i = 0; i < 18 && s == CLIP_OK; i++)
        s = clip_proc_arg(p, kr, i, sizes[i], vals[i]);
    const size_t pa = (m + (size_t)q->mwg - 1) / (size_t)q->mwg * (size_t)q->mwg;
    const size_t pb = (n + (size_t)q->nwg - 1) / (size_t)q->nwg * (size_t)q->nwg;
    /* Rows along dimension 0, groups of 4 values of K along dimension 1 (see wg_pack), rounded
     * up to whole work-groups; the kernel skips what lies past each operand's packing. */
    size_t local[3] = {8, 16, 1};
    size_t global[3] = {pa > pb ? pa : pb, ((size_t)slices * 2 + 15) / 16 * 16, 2};
    if (s == CLIP_OK) s = clip_proc_enqueue(p, kr, 3, global, local);
    /* The flagged rows scaled into the 3xTF32 range (matmul_wg.cl, wg_rescale): a work-group of
     * 256 for each 8 packed rows; on data in range each finds no flag in its tile and returns. */
    if (g->rescale) {
        for (cl_uint i = 0; i < 18 && s == CLIP_OK; i++)
            s = clip_proc_arg(p, g->rescale, i, sizes[i], vals[i]);
        size_t rl = 256, rg = (pa + pb) / 8 * rl;
        if (s == CLIP_OK) s = clip_proc_enqueue(p, g->rescale, 1, &rg, &rl);
    }
    return s;
}

void clip_gemm_tc_schedule(const clip_gemm_params *q, size_t wave, size_t tiles, size_t stages,
                           size_t *dp, size_t *tail, size_t *splits) {
    *dp = tiles, *tail = 0, *splits = 1;
    if (q->sk <= 0 || wave == 0 || tiles == 0) return;
    const size_t rest = tiles > wave ? tiles % wave : tiles;
    size_t sp = rest ? wave / rest : 1;
    if (sp > stages) sp = stages;
    if (sp < 2) return; /* the tail fills half a wave or more: whole tiles do as well */
    *dp = tiles - rest, *tail = rest, *splits = sp;
}

/* The wgmma kernels: both operands packed, then the product (and the split tail's sums). */
static clip_status enqueue_wg(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                              clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                              clip_gemm_scalar beta, clip_gemm_operand c) {
    const clip_gemm_params *q = &g->prm;
    /* The packing, then a wave's partial tiles (clip_gemm_tc_build). */
    const size_t partials = g->sk_groups * (size_t)q->mwg * (size_t)q->nwg;
    const size_t flags = wg_flag_words(q, g->type, m, n);
    if (!g->work ||
        clip_gemm_tc_pack_bytes(q, g->type, m, n, k) / sizeof(float) + partials + flags >
            g->work_elems)
        return clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                              "a %zux%zu by %zux%zu product is larger than the wgmma workspace "
                              "built for %zux%zu by %zux%zu",
                              m, k, k, n, g->pack_m, g->pack_k, g->pack_k, g->pack_n);
    /* A complex product is packed as a real one of 2n columns and depth 2k (wg_value). */
    const size_t cx = clip_type_is_complex(g->type) ? 2 : 1;
    const size_t mt = (m + (size_t)q->mwg - 1) / (size_t)q->mwg;
    const size_t nt = (cx * n + (size_t)q->nwg - 1) / (size_t)q->nwg;
    const size_t slices = wg_slices(q, cx * k), parts = wg_parts(q);
    const size_t threads = 128 * (size_t)q->mdimc;
    if (mt * nt > INT_MAX / threads)
        return clip_proc_fail(p, CLIP_ERR_OVERFLOW, "a %zux%zu product has too many %dx%d tiles", m,
                              n, q->mwg, q->nwg);
    const size_t b_at = mt * (size_t)q->mwg * slices * 8 * parts;
    size_t dp, tail, splits;
    clip_gemm_tc_schedule(q, g->sk_groups, mt * nt, slices / ((size_t)q->kwg / wg_slice_k(q)), &dp,
                          &tail, &splits);
    /* Partial tiles after the packed operands (clip_gemm_tc_build made room for a wave), then
     * the range flags. */
    cl_ulong boff = b_at, poff = clip_gemm_tc_pack_bytes(q, g->type, m, n, k) / sizeof(float);
    cl_ulong f_at = poff + partials;
    cl_uint stamp = next_stamp();
    clip_status s = enqueue_pack(p, g, m, cx * n, cx * k, a, b, b_at, f_at, stamp);
    cl_int MT = (cl_int)mt, NT = (cl_int)nt, S = (cl_int)slices, DP = (cl_int)dp;
    cl_int TT = (cl_int)tail, SP = (cl_int)splits;
    const void *vals[9] = {&g->work, &boff, &MT, &NT, &S, &DP, &TT, &SP, &g->work};
    const size_t sizes[9] = {sizeof g->work, sizeof boff, sizeof MT, sizeof NT,     sizeof S,
                             sizeof DP,      sizeof TT,   sizeof SP, sizeof g->work};
    cl_kernel ks[3] = {g->kernel, tail ? g->fixup : NULL, g->fix_range};
    for (int j = 0; j < 3 && s == CLIP_OK; j++) {
        if (!ks[j]) continue;
        s = clip_gemm_common_args(p, ks[j], g->type, m, n, k, alpha, a, b, beta, c);
        for (cl_uint i = 0; i < 9 && s == CLIP_OK; i++)
            s = clip_proc_arg(p, ks[j], 14 + i, sizes[i], vals[i]);
        if (s == CLIP_OK) s = clip_proc_arg(p, ks[j], 23, sizeof poff, &poff);
        if (s == CLIP_OK) s = clip_proc_arg(p, ks[j], 24, sizeof f_at, &f_at);
        if (s == CLIP_OK) s = clip_proc_arg(p, ks[j], 25, sizeof stamp, &stamp);
    }
    size_t global = (dp + tail * splits) * threads;
    if (s == CLIP_OK) s = clip_proc_enqueue(p, g->kernel, 1, &global, &threads);
    /* The sums: a work-item for each pair of a tile's work-item's accumulators (WG_ACC = nwg/2). */
    size_t rglobal[2] = {tail * threads, (size_t)q->nwg / 4}, rlocal[2] = {threads, 1};
    if (s == CLIP_OK && tail) s = clip_proc_enqueue(p, g->fixup, 2, rglobal, rlocal);
    /* The outputs of the rows and columns that no scaling brings into the 3xTF32 range, in
     * fp32 FMA (matmul_wg.cl, wg_fix): two work-groups of 256 a compute unit (about what its
     * registers hold at once) take the units of the flagged tiles in turn; on data in range each
     * finds no flagged tile and returns. */
    if (g->fix_range) {
        const size_t cus = clip_proc_device(p)->compute_units;
        size_t fl = 256, fg = 2 * (cus ? cus : 1) * fl;
        if (s == CLIP_OK) s = clip_proc_enqueue(p, g->fix_range, 1, &fg, &fl);
    }
    return s;
}

clip_status clip_gemm_tc_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                                 clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                                 clip_gemm_scalar beta, clip_gemm_operand c) {
    const clip_gemm_params *q = &g->prm;
    if (q->wgmma) return enqueue_wg(p, g, m, n, k, alpha, a, b, beta, c);
    if (a.ld % 4 || a.off % 4 || b.ld % 4 || b.off % 4)
        return clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                              "the tensor GEMM kernel needs A and B aligned to 4 floats (lda %zu, "
                              "offa %zu, ldb %zu, offb %zu)",
                              a.ld, a.off, b.ld, b.off);
    size_t mt = (m + (size_t)q->mwg - 1) / (size_t)q->mwg,
           nt = (n + (size_t)q->nwg - 1) / (size_t)q->nwg;
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
