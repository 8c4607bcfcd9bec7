/* Skinny products (see gemm_skinny.h): which form a shape takes, its launch shape, the build and
 * the launch of kernels/skinny.cl. */
#include "gemm_skinny.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The strides of one form of op(A)*op(B) (packed operands): X(i, k) at xsi*i + xsk*k, Y(k, j)
 * at ysk*k + ysj*j, C'(i, j) at psi*i + psj*j of C. */
typedef struct form {
    int swap, conjx, conjy;
    size_t mp, np;
    long xsi, xsk, ysk, ysj, psi, psj;
} form;

/* Form `swap` of an m x k by k x n product: C' = C = op(A)*op(B), or C' = C^T = op(B)^T *
 * op(A)^T (then X(i, k) = op(B)(k, i) and Y(k, j) = op(A)(j, k)). */
static form form_of(int swap, size_t m, size_t n, size_t k, clip_gemm_trans ta,
                    clip_gemm_trans tb) {
    const long lda = (long)(ta ? k : m), ldb = (long)(tb ? n : k);
    form f;
    memset(&f, 0, sizeof f);
    f.swap = swap;
    if (!swap) {
        f.mp = m, f.np = n;
        f.xsi = ta ? lda : 1, f.xsk = ta ? 1 : lda;
        f.ysk = tb ? ldb : 1, f.ysj = tb ? 1 : ldb;
        f.conjx = ta == CLIP_GEMM_CTRANS, f.conjy = tb == CLIP_GEMM_CTRANS;
        f.psi = 1, f.psj = (long)m;
    } else {
        f.mp = n, f.np = m;
        f.xsi = tb ? 1 : ldb, f.xsk = tb ? ldb : 1;
        f.ysk = ta ? 1 : lda, f.ysj = ta ? lda : 1;
        f.conjx = tb == CLIP_GEMM_CTRANS, f.conjy = ta == CLIP_GEMM_CTRANS;
        f.psi = (long)m, f.psj = 1;
    }
    return f;
}

/* A form's kind when it fits the registers: rows for at most MAX_COLS columns of C', dots for
 * at most MAX_ROWS rows; `contig` asks that the large operand be read along its contiguous
 * direction (X's rows for skinny_rows, Y's columns for skinny_dots). Rows come first when C'
 * has enough rows to give the work-items (a matrix times a vector); dots otherwise. */
static clip_skinny_kind kind_of(const form *f, int contig) {
    const int rows = f->np <= CLIP_SKINNY_MAX_COLS && (!contig || f->xsi == 1);
    const int dots = f->mp <= CLIP_SKINNY_MAX_ROWS && (!contig || f->ysk == 1);
    if (rows && (f->mp >= 1024 || !dots)) return CLIP_SKINNY_ROWS;
    return dots ? CLIP_SKINNY_DOTS : CLIP_SKINNY_NONE;
}

/* The largest power of two <= x (x >= 1). */
static int pow2_floor(size_t x) {
    int p = 1;
    while ((size_t)p * 2 <= x && p < (1 << 20)) p *= 2;
    return p;
}

/* Chunks of K that bring `per` (work-items or work-groups) per chunk up to about `want`, each
 * chunk at least `min_len` long and a multiple of `align`; sets kchunk and chunks. Rounded down:
 * a grid that nearly fills the device already gains less from a second chunk than the summing
 * kernel's launch costs (H100, 1x8192x8192: 1024 work-groups took 2 chunks and 8.7 us more). */
static void split_k(clip_skinny_plan *pl, size_t per, size_t want, size_t min_len, size_t align) {
    size_t s = want / per, most = (pl->k + min_len - 1) / min_len;
    if (s > most) s = most;
    if (s > 4096) s = 4096;
    if (s < 1) s = 1;
    size_t chunk = (pl->k + s - 1) / s;
    chunk = (chunk + align - 1) / align * align;
    pl->kchunk = chunk;
    pl->chunks = (pl->k + chunk - 1) / chunk;
}

/* Launch shape. A GPU keeps about 2048 work-items in flight per compute unit: skinny_rows
 * splits K until C''s rows times the chunks reach that; skinny_dots until there are 8
 * work-groups per compute unit. Chunks keep 64 k per work-item of skinny_rows and 4 per lane of
 * skinny_dots, so that the partial products stay small beside the operands. */
static void shape_launch(const clip_device_info *dev, clip_type t, clip_skinny_plan *pl) {
    const size_t cus = dev->compute_units ? dev->compute_units : 1, esz = clip_type_size(t);
    const size_t budget = dev->local_mem < 32768 ? (size_t)dev->local_mem : 32768;
    pl->wg = pow2_floor(dev->max_work_group < 256 ? dev->max_work_group : 256);
    if (pl->kind == CLIP_SKINNY_ROWS) {
        pl->nb = (int)pl->np;
        size_t lanes = (pl->mp + (size_t)pl->wg - 1) / (size_t)pl->wg * (size_t)pl->wg;
        split_k(pl, lanes, cus * 2048, 64, 8);
    } else {
        /* Accumulators per lane: MB x NB elements, at most 64 reals (f32) or 32 doubles. */
        const size_t reals = (size_t)(clip_type_is_complex(t) ? 2 : 1) *
                             (clip_type_is_double(t) ? 2 : 1) * pl->mp;
        size_t nb = 64 / reals;
        if (nb > CLIP_SKINNY_MAX_COLS) nb = CLIP_SKINNY_MAX_COLS;
        if (nb > pl->np) nb = pl->np;
        pl->nb = nb < 1 ? 1 : (int)nb;
        for (;;) {
            const size_t local = pl->mp * (size_t)pl->nb * (size_t)pl->wg;
            if (local * esz <= budget || pl->wg <= 32) break;
            pl->wg /= 2;
        }
        size_t groups = (pl->np + (size_t)pl->nb - 1) / (size_t)pl->nb;
        split_k(pl, groups, cus * 8, 4 * (size_t)pl->wg, (size_t)pl->wg);
    }
    /* Many outputs sum their chunks one per work-item (coalesced across outputs); a few outputs
     * with many chunks take a work-group each. */
    pl->tree = pl->chunks > 32 && pl->mp * pl->np <= 4096;
}

int clip_skinny_plan_for(const clip_device_info *dev, clip_type t, size_t m, size_t n, size_t k,
                         clip_gemm_trans transa, clip_gemm_trans transb, int force,
                         clip_skinny_plan *out) {
    memset(out, 0, sizeof *out);
    if (m == 0 || n == 0 || k == 0 || k > INT_MAX - 4096 || m > INT_MAX || n > INT_MAX) return 0;
    const int cx = clip_type_is_complex(t);
    if (!cx && transa == CLIP_GEMM_CTRANS) transa = CLIP_GEMM_TRANS;
    if (!cx && transb == CLIP_GEMM_CTRANS) transb = CLIP_GEMM_TRANS;
    /* Left to itself the choice stays off CPUs (their direct kernel reads through caches) and
     * off the tiny products the small kernel launches at once. */
    if (!force && (dev->type == CLIP_DEVICE_CPU || (double)m * (double)n * (double)k <= 4096.0))
        return 0;
    form f[2] = {form_of(0, m, n, k, transa, transb), form_of(1, m, n, k, transa, transb)};
    clip_skinny_kind kd[2] = {kind_of(&f[0], 1), kind_of(&f[1], 1)};
    if (force && !kd[0] && !kd[1]) kd[0] = kind_of(&f[0], 0), kd[1] = kind_of(&f[1], 0);
    int pick = -1;
    for (int s = 0; s < 2; s++) {
        if (!kd[s]) continue;
        /* Rows over dots; between two of a kind, fewer rows of C' per lane (dots) or more rows
         * to spread over work-items (rows). */
        if (pick < 0 || (kd[s] == CLIP_SKINNY_ROWS && kd[pick] == CLIP_SKINNY_DOTS) ||
            (kd[s] == kd[pick] &&
             (kd[s] == CLIP_SKINNY_DOTS ? f[s].mp < f[pick].mp : f[s].mp > f[pick].mp)))
            pick = s;
    }
    if (pick < 0) return 0;
    const form *g = &f[pick];
    out->kind = kd[pick];
    out->swap = g->swap;
    out->conjx = g->conjx, out->conjy = g->conjy;
    out->mp = g->mp, out->np = g->np, out->k = k;
    out->xsi = g->xsi, out->xsk = g->xsk, out->ysk = g->ysk, out->ysj = g->ysj;
    out->psi = g->psi, out->psj = g->psj;
    shape_launch(dev, t, out);
    return 1;
}

void clip_skinny_describe(const clip_skinny_plan *pl, char *buf, size_t cap) {
    snprintf(buf, cap, "skinny %s %zux%zu nb %d wg %d chunks %zu%s%s",
             pl->kind == CLIP_SKINNY_ROWS ? "rows" : "dots", pl->mp, pl->np, pl->nb, pl->wg,
             pl->chunks, pl->tree ? " tree" : "", pl->swap ? " swap" : "");
}

clip_status clip_skinny_build(clip_process *p, clip_type t, const clip_skinny_plan *pl,
                              clip_skinny *s) {
    memset(s, 0, sizeof *s);
    char opts[160];
    snprintf(opts, sizeof opts,
             "-DWG=%d -DNB=%d -DMB=%zu -DCONJX=%d -DCONJY=%d -DREAL_X=%d -DREAL_Y=%d", pl->wg,
             pl->nb, pl->kind == CLIP_SKINNY_DOTS ? pl->mp : (size_t)1, pl->conjx, pl->conjy,
             pl->realx, pl->realy);
    clip_status st = clip_proc_kernel(p, "skinny", t, opts,
                                      pl->kind == CLIP_SKINNY_ROWS ? "skinny_rows" : "skinny_dots",
                                      &s->kernel);
    if (st == CLIP_OK && pl->chunks > 1) {
        st = clip_proc_kernel(p, "skinny", t, opts, pl->tree ? "skinny_sum_tree" : "skinny_sum_items",
                              &s->sum);
        if (st == CLIP_OK)
            st = clip_proc_temp(p, pl->chunks * pl->mp * pl->np * clip_type_size(t), &s->work);
    }
    if (st == CLIP_OK) s->plan = *pl;
    return st;
}

const char *const clip_skinny_choice_names[] = {"auto", "on", "off", NULL};

/* Whether process p left the GEMM to its defaults: variant auto and no tile parameter set. */
static int gemm_defaults(clip_process *p) {
    return clip_proc_choice(p, "variant") == CLIP_GEMM_AUTO && !clip_gemm_tile_overrides(p);
}

clip_status clip_skinny_init(clip_process *p, clip_type t, size_t m, size_t n, size_t k,
                             clip_gemm_trans transa, clip_gemm_trans transb, int reala, int realb,
                             clip_skinny *s) {
    memset(s, 0, sizeof *s);
    const int choice = clip_proc_choice(p, "skinny");
    if (choice == 2 || (choice == 0 && !gemm_defaults(p)) || m == 0 || n == 0 || k == 0)
        return CLIP_OK;
    clip_skinny_plan pl;
    if (!clip_skinny_plan_for(clip_proc_device(p), t, m, n, k, transa, transb, choice == 1, &pl)) {
        if (choice == 0) return CLIP_OK;
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE,
                              "skinny on: a %zux%zu product has more than %d rows and %d columns",
                              m, n, CLIP_SKINNY_MAX_ROWS, CLIP_SKINNY_MAX_COLS);
    }
    /* Swapped, X is op(B)^T and Y op(A)^T. */
    const int cx = clip_type_is_complex(t);
    pl.realx = cx && (pl.swap ? realb : reala);
    pl.realy = cx && (pl.swap ? reala : realb);
    char desc[128];
    clip_skinny_describe(&pl, desc, sizeof desc);
    clip_proc_set_variant(p, desc);
    return clip_skinny_build(p, t, &pl, s);
}

/* Arguments from index i on: a buffer and three longs (offset and two strides). */
static clip_status operand_args(clip_process *p, cl_kernel kr, cl_uint i, cl_mem m, cl_long off,
                                cl_long s1, cl_long s2) {
    clip_status st = clip_proc_arg(p, kr, i, sizeof m, &m);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, i + 1, sizeof off, &off);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, i + 2, sizeof s1, &s1);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, i + 3, sizeof s2, &s2);
    return st;
}

clip_status clip_skinny_enqueue(clip_process *p, const clip_skinny *s, cl_mem a, cl_mem b,
                                cl_mem c) {
    const clip_skinny_plan *pl = &s->plan;
    if (pl->chunks > INT_MAX || pl->kchunk > INT_MAX)
        return clip_proc_fail(p, CLIP_ERR_OVERFLOW, "skinny product: %zu chunks of %zu", pl->chunks,
                              pl->kchunk);
    const int split = pl->chunks > 1;
    const cl_int first = (cl_int)(pl->kind == CLIP_SKINNY_ROWS ? pl->mp : pl->np);
    const cl_int K = (cl_int)pl->k, kchunk = (cl_int)pl->kchunk;
    /* One chunk writes C' straight into C; several write their partial products to the
     * workspace, packed mp x np, one slab per chunk. */
    const cl_long psi = split ? 1 : pl->psi, psj = split ? (cl_long)pl->mp : pl->psj;
    const cl_long pstride = split ? (cl_long)(pl->mp * pl->np) : 0;
    cl_kernel kr = s->kernel;
    clip_status st = clip_proc_arg(p, kr, 0, sizeof first, &first);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, 1, sizeof K, &K);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, 2, sizeof kchunk, &kchunk);
    if (st == CLIP_OK) st = operand_args(p, kr, 3, pl->swap ? b : a, 0, pl->xsi, pl->xsk);
    if (st == CLIP_OK) st = operand_args(p, kr, 7, pl->swap ? a : b, 0, pl->ysk, pl->ysj);
    if (st == CLIP_OK) st = operand_args(p, kr, 11, split ? s->work : c, 0, psi, psj);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, 15, sizeof pstride, &pstride);
    const size_t wg = (size_t)pl->wg;
    size_t groups0 = pl->kind == CLIP_SKINNY_ROWS ? (pl->mp + wg - 1) / wg
                                                  : (pl->np + (size_t)pl->nb - 1) / (size_t)pl->nb;
    size_t global[2] = {groups0 * wg, pl->chunks}, local[2] = {wg, 1};
    if (st == CLIP_OK) st = clip_proc_enqueue(p, kr, 2, global, local);
    if (st != CLIP_OK || !split) return st;

    /* The chunks summed in order into C. */
    const cl_int M = (cl_int)pl->mp, N = (cl_int)pl->np, chunks = (cl_int)pl->chunks;
    kr = s->sum;
    cl_uint i = 0;
    st = clip_proc_arg(p, kr, i++, sizeof M, &M);
    if (st == CLIP_OK && !pl->tree) st = clip_proc_arg(p, kr, i++, sizeof N, &N);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, i++, sizeof chunks, &chunks);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, i++, sizeof s->work, &s->work);
    if (st == CLIP_OK) st = clip_proc_arg(p, kr, i++, sizeof pstride, &pstride);
    if (st == CLIP_OK) st = operand_args(p, kr, i, c, 0, pl->psi, pl->psj);
    if (st != CLIP_OK) return st;
    if (pl->tree) {
        size_t g1[1] = {pl->mp * pl->np * wg}, l1[1] = {wg};
        return clip_proc_enqueue(p, kr, 1, g1, l1);
    }
    size_t g2[2] = {(pl->mp + 63) / 64 * 64, pl->np}, l2[2] = {64, 1};
    return clip_proc_enqueue(p, kr, 2, g2, l2);
}
