/* The GEMM engine shared by matmul and matpow (see gemm.h). */
#include "gemm.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

const char *const clip_gemm_variant_names[] = {"auto", "tiled", "direct", "small", NULL};

/* Below this many multiply-adds a product is launch-bound: the one-output-per-item kernel is as
 * fast as any and wastes no work on a tile that is mostly outside the matrix. */
#define CLIP_GEMM_SMALL_WORK (16.0 * 16.0 * 16.0)

static size_t local_bytes(const clip_gemm_params *p, clip_type t) {
    size_t e = clip_type_size(t), bytes = 0;
    if (p->sa) bytes += (size_t)p->kwg * (size_t)(p->mwg + p->pada) * e;
    if (p->sb) bytes += (size_t)p->kwg * (size_t)(p->nwg + p->padb) * e;
    return bytes;
}

static void set_tiles(clip_gemm_params *o, clip_gemm_variant v, int mwg, int nwg, int kwg,
                      int mdimc, int ndimc, int vw) {
    o->variant = v;
    o->mwg = mwg;
    o->nwg = nwg;
    o->kwg = kwg;
    o->mdimc = mdimc;
    o->ndimc = ndimc;
    o->vw = vw;
    o->sa = o->sb = v == CLIP_GEMM_TILED;
    o->pada = 0;
    /* An odd row pitch spreads the transposing B stores over all banks. */
    o->padb = v == CLIP_GEMM_TILED ? 1 : 0;
}

void clip_gemm_default(const clip_device_info *dev, clip_type t, clip_gemm_variant v, size_t m,
                       size_t n, size_t k, clip_gemm_params *out) {
    const int cpu = dev->type == CLIP_DEVICE_CPU;
    const size_t esize = clip_type_size(t);
    if (v == CLIP_GEMM_AUTO) {
        if ((double)m * (double)n * (double)k <= CLIP_GEMM_SMALL_WORK)
            v = CLIP_GEMM_SMALL;
        else
            v = cpu ? CLIP_GEMM_DIRECT : CLIP_GEMM_TILED;
    }
    if (v == CLIP_GEMM_SMALL) {
        int d = dev->max_work_group >= 64 ? 8 : dev->max_work_group >= 16 ? 4 : 1;
        set_tiles(out, v, d, d, 8, d, d, 1);
        return;
    }
    if (v == CLIP_GEMM_DIRECT) {
        /* One work-item per work-group owning a register tile of a few 64-byte vectors by a
         * dozen columns: the A vectors stream from cache, B values broadcast. */
        const int vw = (int)(64 / esize);
        const int nwg = clip_type_is_complex(t) ? 6 : 12;
        set_tiles(out, v, 2 * vw, nwg, 16, 1, 1, vw);
        return;
    }
    /* Tiled: 16x16 work-items where the device allows, with 8x8 (4-byte types) or 4x4 register
     * tiles; smaller work-groups on small devices. */
    int d = dev->max_work_group >= 256 ? 16 : dev->max_work_group >= 64 ? 8 : dev->max_work_group >= 16 ? 4 : 1;
    int wi = esize == 4 && dev->local_mem >= 32768 ? 8 : 4;
    int vw = esize == 4 ? 4 : esize == 8 ? 2 : 1;
    if (vw > wi) vw = wi;
    int kwg = esize == 16 ? 8 : 16;
    set_tiles(out, v, d * wi, d * wi, kwg, d, d, vw);
    while (out->kwg > 1 && local_bytes(out, t) > dev->local_mem) out->kwg /= 2;
}

int clip_gemm_check(const clip_gemm_params *p, const clip_device_info *dev, clip_type t, char *why,
                    size_t cap) {
    const int cpx = clip_type_is_complex(t) ? 2 : 1;
    if (p->mwg < 1 || p->nwg < 1 || p->kwg < 1 || p->mdimc < 1 || p->ndimc < 1 || p->vw < 1 ||
        p->pada < 0 || p->padb < 0) {
        snprintf(why, cap, "every tile size must be positive");
        return -1;
    }
    if (p->vw & (p->vw - 1) || p->vw * cpx > 16) {
        snprintf(why, cap, "vw %d: must be 1, 2, 4, 8 or 16 reals wide (%s counts %d per element)",
                 p->vw, clip_type_name(t), cpx);
        return -1;
    }
    if (p->mwg % (p->mdimc * p->vw)) {
        snprintf(why, cap, "mwg %d must be a multiple of mdimc*vw = %d", p->mwg, p->mdimc * p->vw);
        return -1;
    }
    if (p->nwg % p->ndimc) {
        snprintf(why, cap, "nwg %d must be a multiple of ndimc %d", p->nwg, p->ndimc);
        return -1;
    }
    size_t wgs = (size_t)p->mdimc * (size_t)p->ndimc;
    if (wgs > dev->max_work_group) {
        snprintf(why, cap, "work-group %dx%d exceeds the device's %zu work-items", p->mdimc,
                 p->ndimc, dev->max_work_group);
        return -1;
    }
    /* A register tile past this only spills and takes minutes to compile. */
    int regs = p->mwg / p->mdimc * (p->nwg / p->ndimc) * cpx;
    if (regs > 1024) {
        snprintf(why, cap, "register tile %dx%d is too large", p->mwg / p->mdimc, p->nwg / p->ndimc);
        return -1;
    }
    if (p->kwg > 1024) {
        snprintf(why, cap, "kwg %d is too large", p->kwg);
        return -1;
    }
    size_t local = local_bytes(p, t);
    if (local > dev->local_mem) {
        snprintf(why, cap, "the tiles need %zu bytes of local memory, the device has %llu", local,
                 (unsigned long long)dev->local_mem);
        return -1;
    }
    return 0;
}

void clip_gemm_shape_str(const clip_data *d, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < clip_data_ndims(d) && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%zu", i ? "x" : "", clip_data_dim(d, i));
}

int clip_gemm_is_2d(const clip_data *d) {
    for (int i = 2; i < clip_data_ndims(d); i++)
        if (clip_data_dim(d, i) != 1) return 0;
    return 1;
}

void clip_gemm_describe(const clip_gemm_params *p, char *buf, size_t cap) {
    snprintf(buf, cap, "%s %dx%dx%d wg %dx%d vw %d", clip_gemm_variant_names[p->variant], p->mwg,
             p->nwg, p->kwg, p->mdimc, p->ndimc, p->vw);
}

clip_status clip_gemm_params_from_process(clip_process *p, clip_type t, size_t m, size_t n,
                                          size_t k, clip_gemm_params *out) {
    const clip_device_info *dev = clip_proc_device(p);
    clip_gemm_variant v = (clip_gemm_variant)clip_proc_choice(p, "variant");
    clip_gemm_default(dev, t, v, m, n, k, out);
    /* GPUs split a vector load that is not aligned to its width into scalar ones: where the
     * columns of A and C (m elements apart) are not, narrow the default width. CPUs load
     * unaligned vectors at full speed. */
    if (dev->type != CLIP_DEVICE_CPU)
        while (out->vw > 1 && m % (size_t)out->vw) out->vw /= 2;
    static const char *const names[] = {"mwg", "nwg", "kwg", "mdimc", "ndimc", "vw"};
    int *fields[] = {&out->mwg, &out->nwg, &out->kwg, &out->mdimc, &out->ndimc, &out->vw};
    for (int i = 0; i < 6; i++) {
        long x = clip_proc_int(p, names[i]);
        if (x > 0) *fields[i] = (int)x;
    }
    char why[160], desc[96];
    if (clip_gemm_check(out, dev, t, why, sizeof why)) {
        clip_gemm_describe(out, desc, sizeof desc);
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE, "tile parameters %s do not fit %s on '%s': %s",
                              desc, clip_type_name(t), dev->name, why);
    }
    return CLIP_OK;
}

clip_status clip_gemm_build(clip_process *p, clip_type t, const clip_gemm_params *prm,
                            clip_gemm *g) {
    char opts[256];
    snprintf(opts, sizeof opts,
             "-DMWG=%d -DNWG=%d -DKWG=%d -DMDIMC=%d -DNDIMC=%d -DVW=%d -DSA=%d -DSB=%d -DPADA=%d "
             "-DPADB=%d",
             prm->mwg, prm->nwg, prm->kwg, prm->mdimc, prm->ndimc, prm->vw, prm->sa, prm->sb,
             prm->pada, prm->padb);
    memset(g, 0, sizeof *g);
    clip_status s = clip_proc_kernel(p, "matmul", t, opts, "gemm", &g->kernel);
    if (s != CLIP_OK) return s;
    /* Registers or local memory can cap a kernel's work-group below the device's maximum. */
    size_t max_wg = 0;
    cl_int e = clGetKernelWorkGroupInfo(g->kernel, clip_proc_cl_device(p), CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof max_wg, &max_wg, NULL);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clGetKernelWorkGroupInfo: error %d", (int)e);
    if ((size_t)prm->mdimc * (size_t)prm->ndimc > max_wg) {
        char desc[96];
        clip_gemm_describe(prm, desc, sizeof desc);
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE,
                              "tile parameters %s: the built kernel runs at most %zu work-items",
                              desc, max_wg);
    }
    g->prm = *prm;
    g->type = t;
    return CLIP_OK;
}

/* Sets a scalar kernel argument of the product's element type. */
static clip_status scalar_arg(clip_process *p, cl_kernel k, cl_uint i, clip_type t,
                              clip_gemm_scalar v) {
    switch (t) {
    case CLIP_F32: {
        cl_float x = (cl_float)v.re;
        return clip_proc_arg(p, k, i, sizeof x, &x);
    }
    case CLIP_F64: {
        cl_double x = v.re;
        return clip_proc_arg(p, k, i, sizeof x, &x);
    }
    case CLIP_C32: {
        cl_float2 x = {{(cl_float)v.re, (cl_float)v.im}};
        return clip_proc_arg(p, k, i, sizeof x, &x);
    }
    default: {
        cl_double2 x = {{v.re, v.im}};
        return clip_proc_arg(p, k, i, sizeof x, &x);
    }
    }
}

static clip_status fill_zero(clip_process *p, clip_type t, size_t m, size_t n, clip_gemm_operand c) {
    const double zero[2] = {0, 0};
    size_t e = clip_type_size(t);
    if (c.ld == m) return clip_proc_fill(p, c.mem, zero, e, c.off * e, m * n * e);
    clip_status s = CLIP_OK;
    for (size_t j = 0; j < n && s == CLIP_OK; j++)
        s = clip_proc_fill(p, c.mem, zero, e, (c.off + j * c.ld) * e, m * e);
    return s;
}

clip_status clip_gemm_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                              clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                              clip_gemm_scalar beta, clip_gemm_operand c) {
    if (m == 0 || n == 0) return CLIP_OK;
    if (m > INT_MAX || n > INT_MAX || k > INT_MAX || a.ld > INT_MAX || b.ld > INT_MAX ||
        c.ld > INT_MAX)
        return clip_proc_fail(p, CLIP_ERR_OVERFLOW,
                              "a %zux%zu by %zux%zu product exceeds the kernel's 32-bit indices", m,
                              k, k, n);
    if (k == 0 && beta.re == 0 && beta.im == 0) return fill_zero(p, g->type, m, n, c);
    const clip_gemm_params *q = &g->prm;
    cl_kernel kr = g->kernel;
    cl_int M = (cl_int)m, N = (cl_int)n, K = (cl_int)k;
    cl_int lda = (cl_int)(a.ld ? a.ld : 1), ldb = (cl_int)(b.ld ? b.ld : 1), ldc = (cl_int)c.ld;
    cl_ulong oa = a.off, ob = b.off, oc = c.off;
    clip_status s = clip_proc_arg(p, kr, 0, sizeof M, &M);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 1, sizeof N, &N);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 2, sizeof K, &K);
    if (s == CLIP_OK) s = scalar_arg(p, kr, 3, g->type, alpha);
    if (s == CLIP_OK) s = scalar_arg(p, kr, 4, g->type, beta);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 5, sizeof a.mem, &a.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 6, sizeof oa, &oa);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 7, sizeof lda, &lda);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 8, sizeof b.mem, &b.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 9, sizeof ob, &ob);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 10, sizeof ldb, &ldb);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 11, sizeof c.mem, &c.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 12, sizeof oc, &oc);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 13, sizeof ldc, &ldc);
    if (s != CLIP_OK) return s;
    size_t global[2] = {(m + (size_t)q->mwg - 1) / (size_t)q->mwg * (size_t)q->mdimc,
                        (n + (size_t)q->nwg - 1) / (size_t)q->nwg * (size_t)q->ndimc};
    size_t local[2] = {(size_t)q->mdimc, (size_t)q->ndimc};
    return clip_proc_enqueue(p, kr, 2, global, local);
}
