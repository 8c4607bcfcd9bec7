/* The GEMM engine shared by matmul and matpow (see gemm.h). Parameter sets: defaults, checks,
 * text form and candidates live in gemm_params.c; this file resolves a process's set, builds the
 * kernels and enqueues products. */
#include "gemm.h"
#include "gemm_tc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const clip_gemm_variant_names[] = {"auto", "tiled", "direct", "small", "tensor", NULL};
const char *const clip_gemm_precision_names[] = {"fp32", "tf32", "bf16", "fp16", NULL};

/* The tile parameters of CLIP_GEMM_PARAM_ROWS past the variant, but for streamk (a schedule). */
static const char *const tile_param_names[10] = {"mwg", "nwg", "kwg", "mdimc",  "ndimc",
                                                 "vw",  "vwn", "wm",  "ksplit", "stages"};

clip_status clip_gemm_params_set(clip_process *p, const clip_gemm_params *q) {
    const int vals[10] = {q->mwg, q->nwg, q->kwg, q->mdimc,  q->ndimc,
                          q->vw,  q->vwn, q->wm,  q->ksplit, q->stages};
    clip_status s = clip_process_set_choice(p, "variant", clip_gemm_variant_names[q->variant]);
    for (int i = 0; i < 10 && s == CLIP_OK; i++)
        s = clip_process_set_int(p, tile_param_names[i], vals[i]);
    if (s == CLIP_OK) s = clip_process_set_int(p, "streamk", q->sk);
    if (s == CLIP_OK) s = clip_process_set_int(p, "kgroups", clip_gemm_groups(q));
    if (s == CLIP_OK) s = clip_process_set_int(p, "pipe", q->pipe);
    return s;
}

/* The cached set for this product, or none (0). The set is a whole description; it only stands
 * in for the defaults when the caller left the variant to auto or asked for the cached one. */
static int cached_params(clip_process *p, int arch, clip_type t, clip_gemm_variant v, int prec,
                         size_t m, size_t n, size_t k, clip_gemm_trans ta, clip_gemm_trans tb,
                         clip_gemm_params *out) {
    char key[96], text[256];
    clip_gemm_tuning_key(arch, t, m, n, k, key, sizeof key);
    if (!clip_tuning_lookup(clip_proc_app(p), "matmul", key, text, sizeof text)) return 0;
    clip_gemm_params c;
    if (clip_gemm_parse(text, &c)) return 0;
    if (v != CLIP_GEMM_AUTO && v != c.variant) return 0;
    /* A tensor set computes at its own precision: only for a product that asks for it. */
    if (c.variant == CLIP_GEMM_TENSOR && c.precision != prec) return 0;
    /* A set is only as good as the device it was tuned on: check it before trusting it. */
    clip_gemm_set_trans(&c, t, ta, tb);
    clip_gemm_params fitted = c;
    char why[160];
    clip_gemm_fit_packed(&fitted, clip_proc_device(p), t, 1, m, n, k);
    if (clip_gemm_check(&fitted, clip_proc_device(p), t, why, sizeof why)) return 0;
    c.tuned = 1;
    *out = c;
    return 1;
}

/* The pipe parameter, when set, on a wgmma set: how its stages move, not a tiling, so it keeps
 * the family and the tiles whoever chose them. */
static void apply_pipe(clip_process *p, clip_gemm_params *out) {
    const long pipe = clip_proc_int(p, "pipe");
    if (pipe >= 0 && out->wgmma) out->pipe = (int)pipe;
}

int clip_gemm_tile_overrides(clip_process *p) {
    for (int i = 0; i < 10; i++)
        if (clip_proc_int(p, tile_param_names[i]) > 0) return 1;
    return clip_proc_int(p, "streamk") >= 0 || clip_proc_int(p, "kgroups") >= 0;
}

clip_status clip_gemm_params_from_process(clip_process *p, clip_type t, size_t m, size_t n,
                                          size_t k, clip_gemm_trans transa, clip_gemm_trans transb,
                                          int reala, int realb, clip_gemm_params *out) {
    const clip_device_info *dev = clip_proc_device(p);
    clip_gemm_variant v = (clip_gemm_variant)clip_proc_choice(p, "variant");
    reala = reala && clip_type_is_complex(t);
    realb = realb && clip_type_is_complex(t);
    if (v == CLIP_GEMM_TENSOR && (reala || realb))
        return clip_proc_fail(
            p, CLIP_ERR_UNSUPPORTED,
            "variant tensor multiplies complex by complex, and the %s operand "
            "is real (its promoted zero imaginary parts would turn Inf into NaN); "
            "use variant auto, tiled, direct or small",
            reala ? "left" : "right");
    /* The device's compute capability, asked once (0 off NVIDIA). */
    const int arch = clip_gemm_tc_arch(p);
    if (v == CLIP_GEMM_TENSOR && arch < 80)
        return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED,
                              "variant tensor needs an NVIDIA device of compute capability 8.0 or "
                              "later (cl_nv_device_attribute_query); '%s' is not one",
                              dev->name);
    const int prec = clip_proc_choice(p, "precision");
    /* c32 only where the wgmma kernels run (clip_gemm_tc_prefer gives them the set). */
    const int single = t == CLIP_F32 || (t == CLIP_C32 && arch == 90);
    int want_tc =
        v == CLIP_GEMM_AUTO && single && !clip_gemm_tile_overrides(p) && !reala && !realb &&
        (prec != CLIP_GEMM_FP32 || clip_gemm_tc_auto(arch, m, n, k, clip_type_is_complex(t))) &&
        arch >= 80;
    /* A tuned set of the size class (`clip tune` times the family's sets beside the FFMA ones)
     * decides at precision fp32: below, as for every other product. */
    clip_gemm_params cached;
    if (want_tc && prec == CLIP_GEMM_FP32 &&
        cached_params(p, arch, t, v, prec, m, n, k, transa, transb, &cached))
        want_tc = 0;
    if (want_tc) {
        /* The tensor family where it runs and is wanted (a rounded precision asks for it),
         * unless its operands are not aligned or the precision needs kernels the device lacks
         * (then fp32 below). */
        char why[160];
        clip_gemm_default(dev, t, CLIP_GEMM_TENSOR, m, n, k, out);
        out->precision = prec;
        clip_gemm_set_trans(out, t, transa, transb);
        clip_gemm_tc_prefer(p, arch, out, t, m, n, k);
        apply_pipe(p, out);
        clip_gemm_fit_packed(out, dev, t, 0, m, n, k);
        if (!clip_gemm_check(out, dev, t, why, sizeof why)) return CLIP_OK;
    }
    clip_gemm_default(dev, t, v, m, n, k, out);
    if (v == CLIP_GEMM_TENSOR) out->precision = prec;
    clip_gemm_set_trans(out, t, transa, transb);
    if (v == CLIP_GEMM_TENSOR) clip_gemm_tc_prefer(p, arch, out, t, m, n, k);
    /* Tiny products go to the small kernel whatever a cache says: they are launch-bound. */
    /* Tile parameters with variant auto keep the FFMA family (clip_gemm_tile_overrides), tuned
     * or not; so does a product with a real operand (the tensor kernels would multiply the
     * promoted zeros). */
    if (!(v == CLIP_GEMM_AUTO && out->variant == CLIP_GEMM_SMALL) &&
        cached_params(p, arch, t, v, prec, m, n, k, transa, transb, &cached) &&
        !(cached.variant == CLIP_GEMM_TENSOR &&
          ((v == CLIP_GEMM_AUTO && clip_gemm_tile_overrides(p)) || reala || realb)))
        *out = cached;
    /* Narrow the default or cached vector width to the columns' alignment; an explicit vw below
     * is taken as asked. */
    clip_gemm_fit_packed(out, dev, t, 1, m, n, k);
    const char *const *names = tile_param_names;
    int *fields[] = {&out->mwg, &out->nwg, &out->kwg, &out->mdimc,  &out->ndimc,
                     &out->vw,  &out->vwn, &out->wm,  &out->ksplit, &out->stages};
    int overridden = 0, explicit_vwn = 0, explicit_stages = 0, explicit_wm = 0;
    for (int i = 0; i < 10; i++) {
        long x = clip_proc_int(p, names[i]);
        if (x > 0) {
            *fields[i] = (int)x;
            overridden = 1;
            explicit_vwn |= i == 6;
            explicit_wm |= i == 7;
            explicit_stages |= i == 9;
        }
    }
    /* Stream-K is a schedule, not a tiling: it stays on or off whatever tiles were chosen, and
     * only an explicit value changes it. */
    long sk = clip_proc_int(p, "streamk");
    if (sk >= 0)
        out->sk = (int)sk;
    else if (out->ksplit > 1)
        out->sk = 0; /* a split of K asked for replaces the default's stream-K */
    /* K groups share the work-group's local memory: the default's choice goes with the default's
     * tiles, and explicit tiles (a split of K among them) or stream-K take one group unless
     * asked; a cached set keeps its own, split or not. Resolved before the stages and padding
     * below are fitted: they depend on the groups' local memory. */
    long kg = clip_proc_int(p, "kgroups");
    if (kg >= 0) {
        out->kg = (int)kg;
        if (out->kg > 1 && sk < 0) out->sk = 0; /* K groups asked for replace stream-K */
    } else if (overridden || out->sk > 0) {
        out->kg = 0;
    }
    if (overridden && !explicit_wm) out->wm = out->mdimc; /* the plain layout fits any shape */
    if ((overridden || kg >= 0) && out->variant == CLIP_GEMM_TILED) {
        /* Fields left to default follow the explicit ones: the N vector narrows to the tile and
         * a tile too big for two local buffers gets one. */
        while (!explicit_vwn && out->vwn > 1 && out->nwg % (out->ndimc * out->vwn))
            out->vwn /= 2;
        if (!explicit_stages && out->stages > 1) {
            clip_gemm_params one = *out;
            char why[160];
            one.stages = 1;
            clip_gemm_fit_packed(out, dev, t, 0, m, n, k);
            clip_gemm_fit_packed(&one, dev, t, 0, m, n, k);
            if (clip_gemm_check(out, dev, t, why, sizeof why) &&
                !clip_gemm_check(&one, dev, t, why, sizeof why))
                out->stages = 1;
        }
    }
    if (overridden || kg >= 0) clip_gemm_fit_packed(out, dev, t, 0, m, n, k);
    apply_pipe(p, out);
    out->reala = reala, out->realb = realb;
    char why[160], desc[128];
    if (clip_gemm_check(out, dev, t, why, sizeof why)) {
        clip_gemm_describe(out, desc, sizeof desc);
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE,
                              "tile parameters %s do not fit %s on '%s': %s", desc,
                              clip_type_name(t), dev->name, why);
    }
    return CLIP_OK;
}

void clip_gemm_options(const clip_gemm_params *q, char *buf, size_t cap) {
    if (q->variant == CLIP_GEMM_TENSOR) {
        clip_gemm_tc_options(q, buf, cap);
        return;
    }
    snprintf(buf, cap,
             "-DMWG=%d -DNWG=%d -DKWG=%d -DMDIMC=%d -DNDIMC=%d -DVW=%d -DVWN=%d -DVWB=%d -DPADA=%d "
             "-DPADB=%d -DDB=%d -DALIGNED=%d -DWM=%d -DSK=%d -DGEMM_KERNEL=%d",
             q->mwg, q->nwg, q->kwg, q->mdimc, q->ndimc, q->vw, q->vwn, q->vwb, q->pada, q->padb,
             q->stages - 1, q->aligned, q->wm, q->sk > 0, q->variant == CLIP_GEMM_TILED ? 1 : 2);
    size_t at = strlen(buf);
    if (q->variant == CLIP_GEMM_TILED && q->kg > 1 && at < cap)
        snprintf(buf + at, cap - at, " -DKG=%d", q->kg);
    /* The operation only when there is one, so that a plain product's build (and any compiled
     * program the driver caches by its options) stays as it was. */
    size_t used = strlen(buf);
    if ((q->transa || q->transb) && used < cap)
        snprintf(buf + used, cap - used, " -DTRANSA=%d -DTRANSB=%d -DALIGNB=%d", q->transa,
                 q->transb, q->alignb);
    used = strlen(buf);
    if ((q->reala || q->realb) && used < cap)
        snprintf(buf + used, cap - used, " -DREAL_A=%d -DREAL_B=%d", q->reala, q->realb);
    clip_proc_options_from_env(buf, cap, "CLIP_GEMM_DEFS"); /* bench/gemm_gpu.sh ab */
}

/* clip_gemm_build of an FFMA-family set (tiled, direct, small). */
static clip_status build_ffma(clip_process *p, clip_type t, const clip_gemm_params *prm, size_t m,
                              size_t n, clip_gemm *g) {
    char opts[320];
    clip_gemm_options(prm, opts, sizeof opts);
    memset(g, 0, sizeof *g);
    const int tiled = prm->variant == CLIP_GEMM_TILED;
    clip_status s =
        clip_proc_kernel(p, "matmul", t, opts, tiled ? "gemm_tiled" : "gemm", &g->kernel);
    if (s != CLIP_OK) return s;
    /* Registers or local memory can cap a kernel's work-group below the device's maximum. */
    size_t max_wg = 0;
    cl_int e = clGetKernelWorkGroupInfo(g->kernel, clip_proc_cl_device(p),
                                        CL_KERNEL_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clGetKernelWorkGroupInfo: error %d", (int)e);
    if (clip_gemm_work_items(prm) > max_wg) {
        char desc[128];
        clip_gemm_describe(prm, desc, sizeof desc);
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE,
                              "tile parameters %s: the built kernel runs at most %zu work-items",
                              desc, max_wg);
    }
    if (tiled && prm->ksplit > 1 && m > 0 && n > 0) {
        s = clip_proc_kernel(p, "matmul", t, opts, "gemm_reduce", &g->reduce);
        g->work_elems = (size_t)prm->ksplit * m * n;
        if (s == CLIP_OK) s = clip_proc_temp(p, g->work_elems * clip_type_size(t), &g->work);
        if (s != CLIP_OK) return s;
    } else if (tiled && prm->sk > 0) {
        size_t cus = clip_proc_device(p)->compute_units;
        g->sk_groups = (cus ? cus : 1) * (size_t)prm->sk;
        size_t tiles = clip_gemm_tiles(prm, m, n);
        /* Only a grid past one whole wave has a last partial wave to spread. */
        if (tiles > g->sk_groups && tiles % g->sk_groups) {
            s = clip_proc_kernel(p, "matmul", t, opts, "gemm_sk_fixup", &g->fixup);
            g->work_elems = 2 * g->sk_groups * (size_t)prm->mwg * (size_t)prm->nwg;
            if (s == CLIP_OK) s = clip_proc_temp(p, g->work_elems * clip_type_size(t), &g->work);
            if (s != CLIP_OK) return s;
        }
    }
    g->prm = *prm;
    g->type = t;
    return CLIP_OK;
}

clip_status clip_gemm_build(clip_process *p, clip_type t, const clip_gemm_params *prm, size_t m,
                            size_t n, size_t k, clip_gemm *g) {
    char desc[128];
    clip_gemm_describe(prm, desc, sizeof desc);
    clip_proc_set_variant(p, desc);
    const clip_status s = prm->variant == CLIP_GEMM_TENSOR
                              ? clip_gemm_tc_build(p, t, prm, m, n, k, g)
                              : build_ffma(p, t, prm, m, n, g);
    if (s == CLIP_OK) { /* the set that was built: a wgmma set may fall back (gemm_tc.h) */
        clip_gemm_describe(&g->prm, desc, sizeof desc);
        clip_proc_set_variant(p, desc);
    }
    return s;
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

static clip_status fill_zero(clip_process *p, clip_type t, size_t m, size_t n,
                             clip_gemm_operand c) {
    const double zero[2] = {0, 0};
    size_t e = clip_type_size(t);
    if (c.ld == m) return clip_proc_fill(p, c.mem, zero, e, c.off * e, m * e * n);
    clip_status s = CLIP_OK;
    for (size_t j = 0; j < n && s == CLIP_OK; j++)
        s = clip_proc_fill(p, c.mem, zero, e, (c.off + j * c.ld) * e, m * e);
    return s;
}

clip_status clip_gemm_common_args(clip_process *p, cl_kernel kr, clip_type t, size_t m, size_t n,
                                  size_t k, clip_gemm_scalar alpha, clip_gemm_operand a,
                                  clip_gemm_operand b, clip_gemm_scalar beta, clip_gemm_operand c) {
    cl_int M = (cl_int)m, N = (cl_int)n, K = (cl_int)k;
    cl_int lda = (cl_int)(a.ld ? a.ld : 1), ldb = (cl_int)(b.ld ? b.ld : 1), ldc = (cl_int)c.ld;
    cl_ulong oa = a.off, ob = b.off, oc = c.off;
    clip_status s = clip_proc_arg(p, kr, 0, sizeof M, &M);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 1, sizeof N, &N);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 2, sizeof K, &K);
    if (s == CLIP_OK) s = scalar_arg(p, kr, 3, t, alpha);
    if (s == CLIP_OK) s = scalar_arg(p, kr, 4, t, beta);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 5, sizeof a.mem, &a.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 6, sizeof oa, &oa);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 7, sizeof lda, &lda);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 8, sizeof b.mem, &b.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 9, sizeof ob, &ob);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 10, sizeof ldb, &ldb);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 11, sizeof c.mem, &c.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 12, sizeof oc, &oc);
    if (s == CLIP_OK) s = clip_proc_arg(p, kr, 13, sizeof ldc, &ldc);
    return s;
}

size_t clip_gemm_stream_k_tiles(const clip_gemm *g, size_t m, size_t n, size_t k) {
    const clip_gemm_params *q = &g->prm;
    if (!g->fixup || q->ksplit > 1 || m == 0 || n == 0) return 0;
    size_t P = g->sk_groups, slices = (k + (size_t)q->kwg - 1) / (size_t)q->kwg;
    size_t tiles = clip_gemm_tiles(q, m, n);
    /* The tail must give every stream-K work-group a K slice (each then covers parts of at most
     * two tiles), and the workspace must hold their partial tiles. */
    size_t tail = tiles % P;
    if (tiles <= P || tail == 0 || tail * slices < P ||
        2 * P * (size_t)q->mwg * (size_t)q->nwg > g->work_elems)
        return 0;
    return tail;
}

/* gemm_sk_fixup: C = alpha * (the stream-K partial tiles summed) + beta*C on the tail tiles. */
static clip_status enqueue_fixup(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                                 clip_gemm_scalar alpha, clip_gemm_scalar beta, clip_gemm_operand c,
                                 cl_int tile0, cl_int tiles, cl_int mtiles) {
    const clip_gemm_params *q = &g->prm;
    cl_int M = (cl_int)m, N = (cl_int)n, K = (cl_int)k, P = (cl_int)g->sk_groups;
    cl_int ldc = (cl_int)c.ld;
    cl_ulong oc = c.off;
    cl_kernel r = g->fixup;
    clip_status s = clip_proc_arg(p, r, 0, sizeof M, &M);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 1, sizeof N, &N);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 2, sizeof K, &K);
    if (s == CLIP_OK) s = scalar_arg(p, r, 3, g->type, alpha);
    if (s == CLIP_OK) s = scalar_arg(p, r, 4, g->type, beta);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 5, sizeof g->work, &g->work);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 6, sizeof c.mem, &c.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 7, sizeof oc, &oc);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 8, sizeof ldc, &ldc);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 9, sizeof tile0, &tile0);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 10, sizeof tiles, &tiles);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 11, sizeof mtiles, &mtiles);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 12, sizeof P, &P);
    /* One work-item per vector of a slot, one row of work-groups per tail tile. */
    size_t per = (size_t)q->mwg * (size_t)q->nwg / (size_t)q->vw;
    size_t wg = clip_proc_device(p)->max_work_group >= 256 ? 256 : 64;
    size_t fl[2] = {wg, 1}, fg[2] = {(per + wg - 1) / wg * wg, (size_t)tiles};
    if (s == CLIP_OK) s = clip_proc_enqueue(p, r, 2, fg, fl);
    return s;
}

/* gemm_tiled, split into `splits` chunks of K into the workspace, then gemm_reduce into C; or,
 * unsplit with stream-K built, the whole waves of tiles and the stream-K work-groups in one grid,
 * then gemm_sk_fixup. */
static clip_status enqueue_tiled(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                                 clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                                 clip_gemm_scalar beta, clip_gemm_operand c) {
    const clip_gemm_params *q = &g->prm;
    size_t kwg = (size_t)q->kwg, chunk = (k + (size_t)q->ksplit - 1) / (size_t)q->ksplit;
    chunk = (chunk + kwg - 1) / kwg * kwg;
    size_t splits = (k + chunk - 1) / chunk;
    if (splits > 1 && (!g->work || splits * m * n > g->work_elems)) {
        splits = 1; /* a product larger than the workspace runs unsplit */
        chunk = k;
    }
    const clip_gemm_scalar one = {1, 0}, zero = {0, 0};
    clip_gemm_operand w = {g->work, 0, m};
    cl_int kchunk = (cl_int)(splits > 1 ? chunk : k);
    cl_ulong cstride = (cl_ulong)(m * n);
    clip_status s =
        splits > 1 ? clip_gemm_common_args(p, g->kernel, g->type, m, n, k, one, a, b, zero, w)
                   : clip_gemm_common_args(p, g->kernel, g->type, m, n, k, alpha, a, b, beta, c);
    if (s == CLIP_OK) s = clip_proc_arg(p, g->kernel, 14, sizeof kchunk, &kchunk);
    if (s == CLIP_OK) s = clip_proc_arg(p, g->kernel, 15, sizeof cstride, &cstride);
    size_t mtiles = (m + (size_t)q->mwg - 1) / (size_t)q->mwg, tiles = clip_gemm_tiles(q, m, n);
    if (tiles + g->sk_groups > INT_MAX)
        return clip_proc_fail(p, CLIP_ERR_OVERFLOW,
                              "a %zux%zu product has %zu tiles of %dx%d, past the kernel's 32-bit "
                              "tile numbers",
                              m, n, tiles, q->mwg, q->nwg);
    size_t tail = splits == 1 ? clip_gemm_stream_k_tiles(g, m, n, k) : 0;
    size_t groups = tail ? tiles - tail + g->sk_groups : tiles;
    cl_int mt = (cl_int)mtiles, whole = (cl_int)(tiles - tail), ct = (cl_int)tail;
    cl_mem work = tail ? g->work : NULL;
    if (s == CLIP_OK) s = clip_proc_arg(p, g->kernel, 16, sizeof mt, &mt);
    if (s == CLIP_OK) s = clip_proc_arg(p, g->kernel, 17, sizeof whole, &whole);
    if (s == CLIP_OK) s = clip_proc_arg(p, g->kernel, 18, sizeof ct, &ct);
    if (s == CLIP_OK) s = clip_proc_arg(p, g->kernel, 19, sizeof work, &work);
    /* Built with stream-K the grid is a list of tiles (then stream-K work-groups); otherwise
     * the plain grid of tiles. */
    size_t global[3] = {(q->sk > 0 ? groups : mtiles) * (size_t)q->mdimc,
                        (q->sk > 0 ? 1 : tiles / mtiles) * (size_t)q->ndimc,
                        splits * (size_t)clip_gemm_groups(q)};
    size_t local[3] = {(size_t)q->mdimc, (size_t)q->ndimc, (size_t)clip_gemm_groups(q)};
    if (s == CLIP_OK) s = clip_proc_enqueue(p, g->kernel, 3, global, local);
    if (s == CLIP_OK && tail) return enqueue_fixup(p, g, m, n, k, alpha, beta, c, whole, ct, mt);
    if (s != CLIP_OK || splits == 1) return s;

    cl_kernel r = g->reduce;
    cl_int M = (cl_int)m, N = (cl_int)n, S = (cl_int)splits, ldc = (cl_int)c.ld;
    cl_ulong oc = c.off;
    s = clip_proc_arg(p, r, 0, sizeof M, &M);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 1, sizeof N, &N);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 2, sizeof S, &S);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 3, sizeof g->work, &g->work);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 4, sizeof cstride, &cstride);
    if (s == CLIP_OK) s = scalar_arg(p, r, 5, g->type, alpha);
    if (s == CLIP_OK) s = scalar_arg(p, r, 6, g->type, beta);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 7, sizeof c.mem, &c.mem);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 8, sizeof oc, &oc);
    if (s == CLIP_OK) s = clip_proc_arg(p, r, 9, sizeof ldc, &ldc);
    size_t rg[2] = {(m + 63) / 64 * 64, n}, rl[2] = {64, 1};
    if (s == CLIP_OK) s = clip_proc_enqueue(p, r, 2, rg, rl);
    return s;
}

clip_status clip_gemm_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                              clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                              clip_gemm_scalar beta, clip_gemm_operand c) {
    if (m == 0 || n == 0) return CLIP_OK;
    if (m > CLIP_GEMM_MAX_DIM || n > CLIP_GEMM_MAX_DIM || k > CLIP_GEMM_MAX_DIM || a.ld > INT_MAX ||
        b.ld > INT_MAX || c.ld > INT_MAX)
        return clip_proc_fail(p, CLIP_ERR_OVERFLOW,
                              "a %zux%zu by %zux%zu product exceeds the kernel's 32-bit indices", m,
                              k, k, n);
    if (k == 0 && beta.re == 0 && beta.im == 0) return fill_zero(p, g->type, m, n, c);
    const clip_gemm_params *q = &g->prm;
    if (q->variant == CLIP_GEMM_TENSOR)
        return clip_gemm_tc_enqueue(p, g, m, n, k, alpha, a, b, beta, c);
    if (q->variant == CLIP_GEMM_TILED) {
        /* What clip_gemm_fit assumed of the operands the set was built for. */
        size_t vw = (size_t)q->vw, vwb = (size_t)q->vwb, vwn = (size_t)q->vwn;
        const int a_along_m = !q->transa;
        if ((q->aligned &&
             (m % vw || c.ld % vw || c.off % vw || (a_along_m && (a.ld % vw || a.off % vw)))) ||
            (!q->transb && (b.ld % vwb || b.off % vwb)) ||
            (q->transa && (a.ld % vwb || a.off % vwb)) ||
            (q->alignb && (b.ld % vwn || b.off % vwn)))
            return clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                                  "the GEMM kernel was built for more aligned operands (m %zu, "
                                  "lda %zu, ldb %zu, ldc %zu): see clip_gemm_fit",
                                  m, a.ld, b.ld, c.ld);
        return enqueue_tiled(p, g, m, n, k, alpha, a, b, beta, c);
    }
    clip_status s = clip_gemm_common_args(p, g->kernel, g->type, m, n, k, alpha, a, b, beta, c);
    if (s != CLIP_OK) return s;
    size_t global[2] = {(m + (size_t)q->mwg - 1) / (size_t)q->mwg * (size_t)q->mdimc,
                        (n + (size_t)q->nwg - 1) / (size_t)q->nwg * (size_t)q->ndimc};
    size_t local[2] = {(size_t)q->mdimc, (size_t)q->ndimc};
    return clip_proc_enqueue(p, g->kernel, 2, global, local);
}
