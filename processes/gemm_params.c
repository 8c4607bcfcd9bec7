/* GEMM parameter sets: device defaults by shape, operand fitting, validity, the text form the
 * tuning cache stores, and the candidates `clip tune` times (see gemm.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gemm.h"
#include "gemm_tc.h"

/* Below this many multiply-adds a product is launch-bound: the one-output-per-item kernel is as
 * fast as any and wastes no work on a tile that is mostly outside the matrix. */
#define CLIP_GEMM_SMALL_WORK (16.0 * 16.0 * 16.0)

/* A K chunk shorter than this spends more on its partial product's store and sum than it saves. */
#define CLIP_GEMM_MIN_CHUNK 64
/* Real single products of at most this many multiply-adds that do not fill a GPU are not split:
 * the summing kernel's launch costs more than the extra work-groups win (H100, 256^3: 32x32x32
 * tiles 12.0 us unsplit against 15.2 us in 4 parts, bench/GEMM.md). Measured for f32 only; the
 * other types keep the split. */
#define CLIP_GEMM_NO_SPLIT_WORK (16777216.0)
/* Past this K, a real single product that the ladder would give its smallest tiles runs on the
 * 64x64 rung with K split instead (H100, bench/GEMM.md call 23 measured from K 512 on, by events,
 * against the smallest rung's two stages of K 16). At K 512 itself the smallest rung as it is
 * now (three stages, K slices of 32) runs in one kernel where the split needs two, and the GPU
 * spends 2 us between them: 0.0151-0.0155 ms a product against 0.0170-0.0175 at five shapes of
 * 256 such tiles, the GPU's own time back to back (bench/GEMM.md, "Small products at the GPU's
 * own pace"). With K summed by two groups of work-items (split_k_in_group), K 576 too: H200,
 * 64x3136x576 0.0153 against the split's 0.0161; at K 768 and past the split won at 196 tiles
 * (64x3136x768 0.0187 against 0.0194) and lost at 256 (bench/GEMM.md, "K split in the
 * work-group"). */
#define CLIP_GEMM_SPLIT_OVER_SHRINK_K 640
/* Up to this K, a real product too small for any rung to fill the GPU runs on the smallest tiles
 * unsplit (K summed by two groups of work-items) where they give half the compute units a tile,
 * rather than the 64x32 rung with K split: H200, the GPU's own time, 2048x49x512 0.0092 against
 * 0.0115 ms, 4096x32x512 0.0092 / 0.0119, 1024x98x512 0.0091 / 0.0113, 1536x64x768 (96 tiles)
 * 0.0121 / 0.0127; 2048x49x1024 level, 128x784x1152 0.0171 / 0.0149. */
#define CLIP_GEMM_WHOLE_K_SMALLEST 768
/* Past that K and up to this one, such a product runs whole on 32x24 tiles in four K groups
 * where they make one wave of the device at least seven-eighths full, so that each compute unit
 * walks one tile's K: measured at one product only (H200, 128x784x1152: 132 tiles, 0.0135 ms
 * against 0.0149 on the 64x32 rung with K split in 11; bench/GEMM.md, "32x24 tiles"), hence the
 * narrow band. */
#define CLIP_GEMM_WHOLE_K_NARROW 1152
/* From this K on, the smallest real tiles, unsplit, take K slices of 32 rather than 16 (H100, the
 * GPU's own time back to back: 64x3136x64 0.0050 -> 0.0040 ms, 128x784x64 0.0048 -> 0.0036,
 * 256x256x128 0.0069 -> 0.0050; bench/GEMM.md, "Wave-balanced tiles"). */
#define CLIP_GEMM_LONG_SLICE_K 64

static size_t local_bytes(const clip_gemm_params *p, clip_type t) {
    if (p->variant != CLIP_GEMM_TILED) return 0;
    size_t e = clip_type_size(t);
    const size_t kg = (size_t)clip_gemm_groups(p), bufs = (size_t)(p->stages > 1 ? 2 : 1) * kg;
    /* KG groups: their own buffers; the other groups' register tiles are summed through the A
     * buffers after the walk (kernels/matmul.cl, gemm_tiled), which hold the larger of the two. */
    size_t a = (size_t)p->kwg * (size_t)(p->mwg + p->pada) * e * bufs;
    const size_t red = (kg - 1) * (size_t)p->mwg * (size_t)p->nwg * e;
    if (red > a) a = red;
    return a + (size_t)p->kwg * (size_t)(p->nwg + p->padb) * e * bufs;
}

static void set_tiles(clip_gemm_params *o, clip_gemm_variant v, int mwg, int nwg, int kwg,
                      int mdimc, int ndimc, int vw) {
    memset(o, 0, sizeof *o);
    o->variant = v;
    o->mwg = mwg;
    o->nwg = nwg;
    o->kwg = kwg;
    o->mdimc = mdimc;
    o->ndimc = ndimc;
    o->vw = vw;
    o->wm = mdimc;
    o->vwn = o->vwb = o->ksplit = o->stages = 1;
}

/* Widest vector of at most 16 bytes (one global transaction per work-item on GPUs) that fits n
 * elements. */
static int vec16(clip_type t, int n) {
    int v = (int)(16 / clip_type_size(t));
    if (v < 1) v = 1;
    while (v > n)
        v /= 2;
    return v;
}

/* Tiled set with a whi x wni work-item tile on a wm x wn work-group, vectors as wide as fit, two
 * stages where local memory allows. */
static void tiled_set(clip_gemm_params *o, clip_type t, const clip_device_info *dev, int wm, int wn,
                      int whi, int wni, int kwg) {
    set_tiles(o, CLIP_GEMM_TILED, wm * whi, wn * wni, kwg, wm, wn, vec16(t, whi));
    o->vwn = vec16(t, wni);
    o->stages = 2;
    o->padb = 0; /* clip_gemm_fit pads where the two stages leave room */
    if (local_bytes(o, t) > dev->local_mem) o->stages = 1;
}

/* The GPU ladder, largest work-group tile first. Measured on an H100 (bench/GEMM.md): 8x16
 * work-item tiles (8 rows of A by 16 columns of B per k: the fewest local bytes per multiply-add
 * that fit the registers) for large real products, with K slices of 16 and the operands read one
 * k ahead (stages 3); 8x8 complex ones, and small tiles with long K slices for the thin products
 * of CNN layers, the smallest read one k ahead too (2-11% faster back to back at 11 of 12
 * products of a few us: bench/GEMM.md, "Small products, the smallest rung"). */
typedef struct rung {
    int mdimc, ndimc, whi, wni, kwg, wm; /* work-group, work-item tile, K slice, warp rows */
    int stages;                          /* where two local buffers fit: 2, or 3 where faster */
} rung;
static const rung ladder4[] = {{32, 8, 8, 16, 16, 32, 3},
                               {16, 8, 8, 8, 8, 16, 2},
                               {16, 16, 4, 4, 16, 16, 2},
                               {8, 8, 8, 4, 32, 8, 2},
                               {8, 8, 4, 4, 16, 8, 3}};
static const rung ladder8[] = {{16, 16, 8, 8, 8, 16, 2},
                               {16, 8, 4, 8, 8, 16, 2},
                               {16, 8, 4, 4, 16, 16, 2},
                               {8, 8, 4, 4, 16, 8, 2}};
static const rung ladder16[] = {{16, 16, 4, 4, 8, 16, 2}, {8, 8, 4, 4, 8, 8, 2}};

/* Stream-K (prm.sk) pays when the idle compute units of a grid's last wave would have waited
 * at least this much K each, summed over the wave and shared out: its costs (a second prologue
 * per stream-K work-group, the partial tiles' stores and the fixup kernel) came to about 10 K
 * slices of 16 on the H100's 256x128 tiles (4096^2: 2.87 -> 2.81 ms of an ideal 2.78), and the
 * smaller sets' short K lost (bench/GEMM.md calls 11-19). */
#define CLIP_GEMM_SK_MIN_K 256

static int stream_k_pays(const clip_device_info *dev, const clip_gemm_params *o, size_t m, size_t n,
                         size_t k) {
    size_t cus = dev->compute_units ? dev->compute_units : 1, tiles = clip_gemm_tiles(o, m, n);
    size_t tail = tiles % cus;
    return tiles > cus && tail && (cus - tail) * k >= CLIP_GEMM_SK_MIN_K * cus;
}

static void rung_set(clip_gemm_params *o, clip_type t, const clip_device_info *dev, const rung *r) {
    tiled_set(o, t, dev, r->mdimc, r->ndimc, r->whi, r->wni, r->kwg);
    o->wm = r->wm;
    if (o->stages == 2) o->stages = r->stages;
}

/* The two smallest rungs, unsplit, hold two warps a work-group: too few on a compute unit to
 * hide the latency of their local reads. Groups of work-items each summing a run of K's slices,
 * their tiles added in the work-group, were faster at every such product measured but a few,
 * level (H200, the GPU's own time back to back; bench/GEMM.md, "K split in the work-group"):
 * - 32x32 and 32x24 tiles, four groups with K slices of 16 in two stages, each group one warp
 *   of 8x4 work-items (32 KB of local memory on 32x32, the sum passing through the A buffers;
 *   where that does not fit, two groups of the tile's own set, which on 32x32 take as much):
 *   512^3 0.0154 (one group) -> 0.0139 (two) -> 0.0132 ms (four of 8x8 work-items) -> 0.0124
 *   (four of 8x4, each a 4x8 tile), 1024x196x256 0.0090 -> 0.0084 -> 0.0080 -> 0.0077,
 *   1024x256x512 0.0139 -> 0.0133 (two -> four of 8x8) -> 0.0123 (8x4), 64x4096x512 0.0131 ->
 *   0.0123 (8x8 -> 8x4); level at 128x784x64 and 512x196x128;
 * - 32x16 tiles, two groups: 256^3 0.0065 -> 0.0050, 128x128x512 0.0102 -> 0.0072; 64x3136x64
 *   level; four lost at 384^3 (0.0110 -> 0.0113);
 * - 64x32 tiles, two groups, which fit local memory with K slices of 16: 512x784x128 0.0078 ->
 *   0.0073, 256x1568x256 0.0126 -> 0.0116, 512x784x256 0.0128 -> 0.0116. */
static int groups_fit(const clip_gemm_params *g, clip_type t, const clip_device_info *dev) {
    return local_bytes(g, t) <= dev->local_mem && clip_gemm_work_items(g) <= dev->max_work_group;
}

static void split_k_in_group(clip_gemm_params *out, clip_type t, const clip_device_info *dev) {
    if (out->variant != CLIP_GEMM_TILED || out->ksplit != 1 || out->sk) return;
    clip_gemm_params g = *out;
    g.kg = 2;
    if (out->mwg == 32 && out->nwg >= 24) {
        clip_gemm_params four = *out;
        /* 32x24 reads one k ahead (H200: 64x3136x576 0.0117 -> 0.0112 ms, 128x784x1152
         * 0.0144 -> 0.0135, 384^3 0.0086 -> 0.0083); on 32x32 it was level (512^3). */
        four.kg = 4, four.kwg = 16, four.stages = out->nwg == 24 ? 3 : 2;
        four.ndimc = 4; /* one warp a group: 32x32 tiles by 4x8 work-items, 32x24 by 4x6 */
        if (groups_fit(&four, t, dev)) g = four;
    } else if (out->mwg == 64 && out->nwg == 32) {
        g.kwg = 16;
    } else if (out->mwg != 32) {
        return;
    }
    if (groups_fit(&g, t, dev)) *out = g;
}

/* The 32x24 set beside the smallest rung: 8x4 work-items of 4x6 in four K groups. Returns 0
 * where the four groups do not fit the device (one warp alone is no faster than 32x32's two). */
static int narrow_set(clip_gemm_params *o, clip_type t, const clip_device_info *dev, int kwg) {
    tiled_set(o, t, dev, 8, 4, 4, 6, kwg);
    o->vwn = 2;
    split_k_in_group(o, t, dev);
    return o->kg == 4;
}

/* The most outputs any compute unit computes: a grid's tiles go out in waves of one a compute
 * unit, so a ragged last wave leaves the busiest units a whole tile more than the average. */
static size_t busiest_cu(const clip_gemm_params *o, const clip_device_info *dev, size_t m,
                         size_t n) {
    size_t cus = dev->compute_units ? dev->compute_units : 1;
    return (clip_gemm_tiles(o, m, n) + cus - 1) / cus * (size_t)o->mwg * (size_t)o->nwg;
}

/* A narrower tile beside the small rungs, for an unsplit f32 grid of a few waves whose last wave
 * is ragged: where the narrower tiles leave the busiest compute unit fewer outputs, they are
 * faster, and where the two tie the rung's larger tile is (H100, the GPU's own time back to back,
 * bench/GEMM.md "Wave-balanced tiles": 64x12544x147 0.0141 -> 0.0104 ms on 64x48 tiles,
 * 256^3 0.0076 -> 0.0065 on 32x16; at every one of 20 products the busiest unit's outputs
 * ordered the two the way their times did, a tie going to the rung). Beside the smallest rung
 * 32x24 comes first, in four K groups of one warp, each work-item a 4x6 tile (H200, the same
 * clock, bench/GEMM.md "32x24 tiles"): against 32x16 in two groups, where the two tie on the
 * busiest unit's outputs, 64x3136x576 (0.0150 -> 0.0116), 384^3 (0.0111 -> 0.0087), 512x384x512
 * (0.0138 -> 0.0108) and 4096x48x512 (0.0138 -> 0.0108); against 32x32 tiles 96x768x512 0.0086 ->
 * 0.0077 and 2048x48x768 0.0119 -> 0.0105; 17 products, none slower, two level. */
static void balance_waves(clip_gemm_params *out, clip_type t, const clip_device_info *dev,
                          size_t m, size_t n, size_t k) {
    const int kwg = k >= 32 ? 32 : 16;
    const size_t cus = dev->compute_units ? dev->compute_units : 1;
    if (out->variant != CLIP_GEMM_TILED || out->ksplit != 1 || out->sk ||
        clip_gemm_tiles(out, m, n) > 4 * cus)
        return;
    clip_gemm_params alt[2];
    int count = 0;
    if (out->mwg == 32 && out->nwg == 32) {
        /* The smallest rung: 32x24 (4x6 a work-item on 8x4; split_k_in_group gives it four
         * groups), then 32x16 (4x2 on 8x8), so that of two narrower tiles that tie the wider
         * one is taken. */
        if (narrow_set(&alt[count], t, dev, kwg)) count++;
        tiled_set(&alt[count], t, dev, 8, 8, 4, 2, kwg);
        if (alt[count].stages == 2) alt[count].stages = 3;
        count++;
    } else if (out->mwg * out->nwg >= 64 * 64 && out->mwg <= 128) { /* 64x64, 128x64: 64x48 */
        tiled_set(&alt[count], t, dev, 16, 8, 4, 6, kwg);
        alt[count++].vwn = 2;
    }
    for (int i = 0; i < count; i++)
        if (local_bytes(&alt[i], t) <= dev->local_mem &&
            busiest_cu(&alt[i], dev, m, n) < busiest_cu(out, dev, m, n))
            *out = alt[i];
}

/* Splits of K that bring a grid of `groups` work-groups up to about four per compute unit (short
 * products are latency-bound: more work-groups in flight hide it), keeping chunks of at least
 * CLIP_GEMM_MIN_CHUNK. */
static int split_for(const clip_device_info *dev, size_t groups, size_t k) {
    size_t cus = dev->compute_units ? dev->compute_units : 1, want = 4 * cus;
    if (groups >= cus) return 1;
    size_t ks = (want + groups - 1) / groups, most = k / CLIP_GEMM_MIN_CHUNK;
    if (ks > most) ks = most;
    if (ks > 64) ks = 64;
    return ks < 1 ? 1 : (int)ks;
}

size_t clip_gemm_tiles(const clip_gemm_params *o, size_t m, size_t n) {
    return ((m + (size_t)o->mwg - 1) / (size_t)o->mwg) *
           ((n + (size_t)o->nwg - 1) / (size_t)o->nwg);
}

/* Whether g tiles of set o cover an m x n product computing at most a third more than C. */
static int wastes_little(const clip_gemm_params *o, size_t g, size_t m, size_t n) {
    return 4 * m * n >= 3 * g * (size_t)o->mwg * (size_t)o->nwg;
}

/* Whether the 32x24 set (narrow_set, built into o) runs an m x n product no rung fills whole:
 * one wave of the device at least seven-eighths full, wasting little (CLIP_GEMM_WHOLE_K_NARROW). */
static int narrow_wave(clip_gemm_params *o, clip_type t, const clip_device_info *dev, size_t m,
                       size_t n) {
    if (!narrow_set(o, t, dev, 16)) return 0;
    const size_t g = clip_gemm_tiles(o, m, n), cus = dev->compute_units;
    return 8 * g >= 7 * cus && g <= cus && wastes_little(o, g, m, n);
}

void clip_gemm_default(const clip_device_info *dev, clip_type t, clip_gemm_variant v, size_t m,
                       size_t n, size_t k, clip_gemm_params *out) {
    const int cpu = dev->type == CLIP_DEVICE_CPU;
    const size_t esize = clip_type_size(t);
    if (v == CLIP_GEMM_TENSOR) {
        clip_gemm_tc_default(out);
        return;
    }
    if (v == CLIP_GEMM_AUTO) {
        if ((double)m * (double)n * (double)k <= CLIP_GEMM_SMALL_WORK)
            v = CLIP_GEMM_SMALL;
        else
            v = cpu ? CLIP_GEMM_DIRECT : CLIP_GEMM_TILED;
    }
    if (v == CLIP_GEMM_SMALL) {
        int d = dev->max_work_group >= 64 ? 8 : dev->max_work_group >= 16 ? 4 : 1;
        set_tiles(out, v, d, d, 8, d, d, 1);
    } else if (v == CLIP_GEMM_DIRECT && cpu) {
        /* One work-item per work-group owning a register tile of a few 64-byte vectors by a
         * dozen columns: the A vectors stream from cache, B values broadcast. */
        const int vw = (int)(64 / esize);
        set_tiles(out, v, 2 * vw, clip_type_is_complex(t) ? 6 : 12, 16, 1, 1, vw);
    } else if (v == CLIP_GEMM_DIRECT) {
        /* Elsewhere many small work-items: 4x4 tiles on 16x16 work-groups, through the caches. */
        set_tiles(out, v, 16 * 4, 16 * 4, 16, 16, 16, vec16(t, 4));
    } else if (cpu || dev->max_work_group < 256 || dev->local_mem < 16384) {
        /* Tiled off the GPU path: as large a square work-group as the device runs. */
        int d = dev->max_work_group >= 256  ? 16
                : dev->max_work_group >= 64 ? 8
                : dev->max_work_group >= 16 ? 4
                                            : 1;
        int wi = esize == 4 && dev->local_mem >= 32768 ? 8 : 4;
        tiled_set(out, t, dev, d, d, wi, wi, esize == 16 ? 8 : 16);
        while (out->kwg > 1 && local_bytes(out, t) > dev->local_mem)
            out->kwg /= 2;
    } else {
        /* GPUs: the largest tile that gives every compute unit a work-group without computing
         * much outside C; failing that the next-to-smallest with K split to fill the device, or,
         * where K is too short to split, the smallest. */
        const rung *r = esize == 4 ? ladder4 : esize == 8 ? ladder8 : ladder16;
        int count = esize == 4 ? 5 : esize == 8 ? 4 : 2, i = 0;
        for (; i < count; i++) {
            rung_set(out, t, dev, &r[i]);
            size_t g = clip_gemm_tiles(out, m, n);
            if (g >= dev->compute_units && wastes_little(out, g, m, n)) break;
        }
        /* The first rung's register tiles leave one work-group per compute unit (246 registers
         * a work-item for f32 on the H100; the 8-byte types' 8x8 tiles likewise), so a wave is
         * compute_units work-groups and its last one can run stream-K. (The 16-byte rung's 4x4
         * tiles leave room for more.) */
        if (i == 0 && esize != 16 && stream_k_pays(dev, out, m, n, k)) out->sk = 1;
        clip_gemm_params smallest, narrow;
        rung_set(&smallest, t, dev, &r[count - 1]);
        /* From what K the smallest real tiles, unsplit, take K slices of 32 (below). */
        size_t slice32_k = CLIP_GEMM_LONG_SLICE_K;
        if (i == count && esize == 4 &&
            (double)m * (double)n * (double)k <= CLIP_GEMM_NO_SPLIT_WORK) {
            *out = smallest;
            slice32_k = 32;
        } else if (i == count - 1 && esize == 4 && k > CLIP_GEMM_SPLIT_OVER_SHRINK_K) {
            /* Smallest tiles with a long K: few multiply-adds per load and a long serial loop
             * per work-group. The 64x64 rung with K split to fill the GPU is faster wherever its
             * tiles waste no more than the ladder allows (H100, bench/GEMM.md call 23). */
            clip_gemm_params big;
            rung_set(&big, t, dev, &r[2]);
            size_t g = clip_gemm_tiles(&big, m, n);
            big.ksplit = split_for(dev, g, k);
            if (big.ksplit > 1 && wastes_little(&big, g, m, n)) *out = big;
        } else if (i == count && esize == 4 && k <= CLIP_GEMM_WHOLE_K_SMALLEST &&
                   2 * clip_gemm_tiles(&smallest, m, n) >= dev->compute_units) {
            i = count - 1;
            *out = smallest;
        } else if (i == count && esize == 4 && k <= CLIP_GEMM_WHOLE_K_NARROW &&
                   narrow_wave(&narrow, t, dev, m, n)) {
            i = count - 1;
            *out = narrow;
        } else if (i == count) {
            i = count > 1 ? count - 2 : 0;
            rung_set(out, t, dev, &r[i]);
            out->ksplit = split_for(dev, clip_gemm_tiles(out, m, n), k);
            if (out->ksplit == 1) {
                i = count - 1;
                rung_set(out, t, dev, &r[i]);
                out->ksplit = split_for(dev, clip_gemm_tiles(out, m, n), k);
            }
        }
        /* The smallest real tiles walking a longer K whole: slices of 32, half the trips of its
         * loop (H100, back to back: 1024x196x256 0.0128 -> 0.0089 ms; bench/GEMM.md, "Small
         * products, the smallest rung"); in products too small to split, from K 32. */
        if (esize == 4 && out->mwg == 32 && out->nwg == 32 && out->ksplit == 1 && k >= slice32_k &&
            out->kwg < 32) {
            out->kwg = 32;
            if (local_bytes(out, t) > dev->local_mem) out->kwg /= 2;
        }
        if (esize == 4 && i > 0) balance_waves(out, t, dev, m, n, k);
        if (esize == 4) split_k_in_group(out, t, dev);
    }
    clip_gemm_fit_packed(out, dev, t, 0, m, n, k);
}

void clip_gemm_set_trans(clip_gemm_params *p, clip_type t, clip_gemm_trans transa,
                         clip_gemm_trans transb) {
    const int cx = clip_type_is_complex(t);
    p->transa = transa == CLIP_GEMM_CTRANS && !cx ? CLIP_GEMM_TRANS : transa;
    p->transb = transb == CLIP_GEMM_CTRANS && !cx ? CLIP_GEMM_TRANS : transb;
}

/* Whether the tiled kernel's vectors along M (A and C, vw wide) are aligned: C's columns, M, and
 * A's columns when A is read along M (plain; a transposed A is read along K). */
static int m_aligned(const clip_gemm_params *p, size_t vw, size_t m, size_t lda, size_t ldc,
                     size_t offa, size_t offc) {
    if (m % vw || ldc % vw || offc % vw) return 0;
    return p->transa || !(lda % vw || offa % vw);
}

/* Whether a vector of w elements along K is aligned in every operand stored along K (a plain B,
 * a transposed A). */
static int k_aligned(const clip_gemm_params *p, size_t w, size_t lda, size_t ldb, size_t offa,
                     size_t offb) {
    if (!p->transb && (ldb % w || offb % w)) return 0;
    return !p->transa || !(lda % w || offa % w);
}

void clip_gemm_fit(clip_gemm_params *p, const clip_device_info *dev, clip_type t, int narrow_vw,
                   size_t m, size_t lda, size_t ldb, size_t ldc, size_t offa, size_t offb,
                   size_t offc) {
    if (p->variant == CLIP_GEMM_TENSOR) {
        clip_gemm_tc_fit(p, lda, ldb, offa, offb);
        return;
    }
    if (narrow_vw && dev->type != CLIP_DEVICE_CPU) {
        size_t vw = (size_t)p->vw;
        if (p->variant == CLIP_GEMM_TILED)
            while (vw > 1 && !m_aligned(p, vw, m, lda, ldc, offa, offc))
                vw /= 2;
        else
            while (vw > 1 && m % vw)
                vw /= 2;
        p->vw = (int)vw;
    }
    p->vwb = 1;
    p->aligned = p->alignb = 0;
    p->pada = p->padb = 0;
    if (p->variant != CLIP_GEMM_TILED || p->vw < 1 || p->vwn < 1 || p->kwg < 1) return;
    p->aligned = m_aligned(p, (size_t)p->vw, m, lda, ldc, offa, offc);
    int vwb = vec16(t, 16);
    while (vwb > 1 && (!k_aligned(p, (size_t)vwb, lda, ldb, offa, offb) || p->kwg % vwb))
        vwb /= 2;
    p->vwb = vwb;
    p->alignb = p->transb && !(ldb % (size_t)p->vwn || offb % (size_t)p->vwn);
    /* A row pitch off a multiple of the bank count spreads the transposing stores into local
     * memory: a plain B's, a transposed A's (a transposed B and a plain A are stored whole). */
    p->padb = p->transb ? 0 : p->vwn;
    p->pada = p->transa ? p->vw : 0;
    if (local_bytes(p, t) > dev->local_mem) p->pada = p->padb = 0;
}

void clip_gemm_fit_packed(clip_gemm_params *p, const clip_device_info *dev, clip_type t,
                          int narrow_vw, size_t m, size_t n, size_t k) {
    clip_gemm_fit(p, dev, t, narrow_vw, m, p->transa ? k : m, p->transb ? n : k, m, 0, 0, 0);
}

static int pow2_ok(int v, int cpx) {
    return v >= 1 && !(v & (v - 1)) && v * cpx <= 16;
}

int clip_gemm_check(const clip_gemm_params *p, const clip_device_info *dev, clip_type t, char *why,
                    size_t cap) {
    if (p->variant == CLIP_GEMM_TENSOR) return clip_gemm_tc_check(p, dev, t, why, cap);
    const int cpx = clip_type_is_complex(t) ? 2 : 1, tiled = p->variant == CLIP_GEMM_TILED;
    if (p->mwg < 1 || p->nwg < 1 || p->kwg < 1 || p->mdimc < 1 || p->ndimc < 1 || p->vw < 1 ||
        p->vwn < 1 || p->vwb < 1 || p->wm < 1 || p->ksplit < 1 || p->stages < 1 || p->pada < 0 ||
        p->padb < 0) {
        snprintf(why, cap, "every tile size must be positive");
        return -1;
    }
    if (!pow2_ok(p->vw, cpx)) {
        snprintf(why, cap, "vw %d: must be 1, 2, 4, 8 or 16 reals wide (%s counts %d per element)",
                 p->vw, clip_type_name(t), cpx);
        return -1;
    }
    if (!tiled && (p->vwn != 1 || p->ksplit != 1 || p->stages != 1 || p->wm != p->mdimc)) {
        snprintf(why, cap, "vwn, wm, ksplit and stages apply to the tiled variant only");
        return -1;
    }
    if (tiled && p->wm != p->mdimc &&
        (p->wm > p->mdimc || p->mdimc % p->wm || 32 % p->wm || p->ndimc % (32 / p->wm) ||
         (p->mdimc * p->ndimc) % 32)) {
        snprintf(why, cap, "wm %d: must divide mdimc %d and 32, with ndimc a multiple of %d", p->wm,
                 p->mdimc, 32 / p->wm);
        return -1;
    }
    if (tiled && (!pow2_ok(p->vwn, cpx) || !pow2_ok(p->vwb, cpx))) {
        snprintf(why, cap, "vwn %d: must be 1, 2, 4, 8 or 16 reals wide (%s counts %d per element)",
                 p->vwn, clip_type_name(t), cpx);
        return -1;
    }
    if (p->stages > 3 || p->ksplit > 256) {
        snprintf(why, cap, "stages must be 1, 2 or 3 and ksplit at most 256");
        return -1;
    }
    if (p->kg < 0 || p->kg > 8 || (p->kg & (p->kg - 1)) || (p->kg > 1 && (!tiled || p->sk))) {
        snprintf(why, cap, "kg %d: 0, 1, 2, 4 or 8, for the tiled variant without stream-K", p->kg);
        return -1;
    }
    if (p->sk < 0 || p->sk > 16 || (p->sk && (!tiled || p->ksplit > 1))) {
        snprintf(why, cap, "streamk %d: 0 to 16, for the tiled variant with ksplit 1 only", p->sk);
        return -1;
    }
    if (p->mwg % (p->mdimc * p->vw)) {
        snprintf(why, cap, "mwg %d must be a multiple of mdimc*vw = %d", p->mwg, p->mdimc * p->vw);
        return -1;
    }
    if (!tiled && p->nwg % p->ndimc) {
        snprintf(why, cap, "nwg %d must be a multiple of ndimc %d", p->nwg, p->ndimc);
        return -1;
    }
    if (tiled &&
        (p->nwg % (p->ndimc * p->vwn) || p->kwg % p->vwb || p->pada % p->vw || p->padb % p->vwn)) {
        snprintf(why, cap, "nwg %d must be a multiple of ndimc*vwn = %d", p->nwg,
                 p->ndimc * p->vwn);
        return -1;
    }
    if (clip_gemm_work_items(p) > dev->max_work_group) {
        snprintf(why, cap, "work-group %dx%dx%d exceeds the device's %zu work-items", p->mdimc,
                 p->ndimc, clip_gemm_groups(p), dev->max_work_group);
        return -1;
    }
    /* A register tile past this only spills and takes minutes to compile. */
    int regs = p->mwg / p->mdimc * (p->nwg / p->ndimc) * cpx;
    if (regs > 1024) {
        snprintf(why, cap, "register tile %dx%d is too large", p->mwg / p->mdimc,
                 p->nwg / p->ndimc);
        return -1;
    }
    if (p->kwg > 1024) {
        snprintf(why, cap, "kwg %d is too large", p->kwg);
        return -1;
    }
    /* The kernels unroll the K slice over the register tile: a 32x32 tile with kwg 1024 took
     * PoCL 26 s to compile (337 s under ASan). 8192 multiply-adds a slice admits every default
     * and tuning candidate (the largest: CPU direct 32x16 with kwg 16). */
    if ((long)regs * p->kwg > 8192) {
        snprintf(why, cap,
                 "register tile %dx%d with kwg %d unrolls %ld multiply-adds (at most 8192)",
                 p->mwg / p->mdimc, p->nwg / p->ndimc, p->kwg, (long)regs * p->kwg);
        return -1;
    }
    /* Even in a short slice PoCL builds some register tiles for minutes (Release build, small
     * kernel, kwg 8, scalars: 10x32 211 s, 12x16 68 s, 6x16 14 s, 32x32 12.8 s; 16x16 2.7 s,
     * 16x4 and 3x3 under 1 s): many accumulator vectors, and fewer still where their rows are
     * not a power of two. Every default and tuning candidate has a power of two and at most 32
     * vectors. */
    const int rows = p->mwg / p->mdimc / p->vw, vectors = rows * (p->nwg / p->ndimc);
    const int most = rows & (rows - 1) ? 32 : 256;
    if (vectors > most) {
        snprintf(why, cap,
                 "register tile %dx%d in vectors of %d holds %d accumulator vectors (at most "
                 "%d%s)",
                 p->mwg / p->mdimc, p->nwg / p->ndimc, p->vw, vectors, most,
                 most == 32 ? " where its rows of vectors are not a power of two" : "");
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

void clip_gemm_describe(const clip_gemm_params *p, char *buf, size_t cap) {
    int n = snprintf(buf, cap, "%s %dx%dx%d wg %dx%d vw %d", clip_gemm_variant_names[p->variant],
                     p->mwg, p->nwg, p->kwg, p->mdimc, p->ndimc, p->vw);
    if (n < 0 || (size_t)n >= cap) return;
    if (p->variant == CLIP_GEMM_TILED)
        n += snprintf(buf + n, cap - (size_t)n, " vwn %d wm %d ks %d st %d", p->vwn, p->wm,
                      p->ksplit, p->stages);
    if (p->variant == CLIP_GEMM_TENSOR) /* wg: warps along M and N */
        n += snprintf(buf + n, cap - (size_t)n, " st %d%s%s%s%s", p->stages,
                      p->wgmma ? " wgmma" : "", p->precision != CLIP_GEMM_FP32 ? " " : "",
                      p->precision != CLIP_GEMM_FP32 ? clip_gemm_precision_names[p->precision] : "",
                      p->pipe ? " pipe" : "");
    if ((p->variant == CLIP_GEMM_TILED || p->wgmma) && p->sk > 0 && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " sk %d", p->sk);
    if (p->variant == CLIP_GEMM_TILED && p->kg > 1 && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " kg %d", p->kg);
    if (p->tuned && n >= 0 && (size_t)n < cap) snprintf(buf + n, cap - (size_t)n, " tuned");
}

int clip_gemm_parse(const char *text, clip_gemm_params *p) {
    char name[16];
    int used = 0;
    memset(p, 0, sizeof *p);
    if (sscanf(text, "%15s %dx%dx%d wg %dx%d vw %d%n", name, &p->mwg, &p->nwg, &p->kwg, &p->mdimc,
               &p->ndimc, &p->vw, &used) != 7)
        return -1;
    int v = 1;
    while (clip_gemm_variant_names[v] && strcmp(clip_gemm_variant_names[v], name))
        v++;
    if (!clip_gemm_variant_names[v]) return -1;
    p->variant = (clip_gemm_variant)v;
    p->vwn = p->vwb = p->ksplit = p->stages = 1;
    p->wm = p->mdimc;
    const char *rest = text + used;
    if (p->variant == CLIP_GEMM_TILED) {
        used = 0;
        if (sscanf(rest, " vwn %d wm %d ks %d st %d%n", &p->vwn, &p->wm, &p->ksplit, &p->stages,
                   &used) != 4)
            return -1;
        rest += used;
        used = 0;
        if (sscanf(rest, " sk %d%n", &p->sk, &used) == 1) rest += used;
        used = 0;
        if (sscanf(rest, " kg %d%n", &p->kg, &used) == 1) rest += used;
    }
    if (p->variant == CLIP_GEMM_TENSOR) {
        used = 0;
        if (sscanf(rest, " st %d%n", &p->stages, &used) != 1) return -1;
        rest += used;
        if (!strncmp(rest, " wgmma", 6)) {
            p->wgmma = 1;
            rest += 6;
        }
        for (int q = CLIP_GEMM_TF32; clip_gemm_precision_names[q]; q++)
            if (rest[0] == ' ' && !strncmp(rest + 1, clip_gemm_precision_names[q], 4)) {
                p->precision = q;
                rest += 5;
                break;
            }
        if (p->wgmma && !strncmp(rest, " pipe", 5)) {
            p->pipe = 1;
            rest += 5;
        }
        used = 0;
        if (p->wgmma && sscanf(rest, " sk %d%n", &p->sk, &used) == 1) rest += used;
    }
    while (*rest == ' ')
        rest++;
    if (!strncmp(rest, "tuned", 5)) rest += 5;
    return *rest ? -1 : 0;
}

/* x rounded to the nearest power of two in log scale (0 stays 0). */
static size_t pow2_near(size_t x) {
    if (x == 0) return 0;
    return (size_t)1 << (int)lround(log2((double)x));
}

void clip_gemm_tuning_key(int arch, clip_type t, size_t m, size_t n, size_t k, char *buf,
                          size_t cap) {
    snprintf(buf, cap, "%s-m%zu-n%zu-k%zu%s", clip_type_name(t), pow2_near(m), pow2_near(n),
             pow2_near(k), arch >= 80 ? "-tc" : "");
}

/* Prior worth of a candidate, from what makes SIMT GEMM fast on GPUs: register tiles of about
 * 64 accumulators (enough multiply-adds per local load without spilling), 256-item work-groups,
 * K slices of 16 with two stages, and a grid that fills whole waves of the device without
 * computing much outside C. Only the order of the tuner's trials depends on it. */
static double prior(const clip_gemm_params *c, const clip_device_info *dev, clip_type t, size_t m,
                    size_t n) {
    int wi = c->mwg / c->mdimc, wj = c->nwg / c->ndimc, wgs = c->mdimc * c->ndimc;
    int acc = wi * wj * (clip_type_is_complex(t) ? 2 : 1) * (clip_type_is_double(t) ? 2 : 1);
    double f = acc >= 128 ? 1.05 : acc >= 64 ? 1.0 : acc >= 32 ? 0.85 : 0.6;
    f *= wgs >= 256 ? 1.0 : wgs >= 128 ? 0.97 : 0.85;
    /* Big tiles like short slices (fewer registers for the prefetch), small ones long slices
     * (fewer barriers per multiply-add). */
    if (acc >= 64)
        f *= c->kwg == 8 ? 1.0 : c->kwg == 16 ? 0.97 : 0.9;
    else
        f *= c->kwg == 32 ? 1.0 : c->kwg == 16 ? 0.98 : 0.9;
    if (c->stages < 2) f *= 0.92;
    /* More B columns than A rows per work-item measured faster (A vectors are wider). */
    f *= wi > wj ? 0.93 : 1.0 - 0.02 * log2((double)wj / wi);
    /* Work-groups resident per compute unit, bounded by work-items, registers and local memory. */
    double cus = dev->compute_units ? dev->compute_units : 1;
    double per = fmin(2048.0 / wgs, floor(65536.0 / (wgs * (acc + 40.0))));
    size_t lb = local_bytes(c, t);
    if (lb) per = fmin(per, floor(4.0 * (double)dev->local_mem / (double)lb));
    double slots = cus * fmax(per, 1.0), total = (double)clip_gemm_tiles(c, m, n) * c->ksplit;
    f *= total / (ceil(total / slots) * slots);
    f /= 1.0 + 0.03 * (c->ksplit - 1);
    return f * (double)m * (double)n / ((double)clip_gemm_tiles(c, m, n) * c->mwg * c->nwg);
}

typedef struct scored {
    clip_gemm_params p;
    double score;
    int order; /* ties keep the order of generation */
} scored;

static int by_score(const void *a, const void *b) {
    const scored *x = a, *y = b;
    if (x->score != y->score) return (x->score < y->score) - (x->score > y->score);
    return (x->order > y->order) - (x->order < y->order);
}

int clip_gemm_same_tiles(const clip_gemm_params *a, const clip_gemm_params *b) {
    return a->variant == b->variant && a->mwg == b->mwg && a->nwg == b->nwg && a->kwg == b->kwg &&
           a->mdimc == b->mdimc && a->ndimc == b->ndimc && a->vw == b->vw && a->vwn == b->vwn &&
           a->wm == b->wm && a->ksplit == b->ksplit && a->stages == b->stages &&
           clip_gemm_groups(a) == clip_gemm_groups(b);
}

static int same_set(const clip_gemm_params *a, const clip_gemm_params *b) {
    return clip_gemm_same_tiles(a, b) && a->sk == b->sk;
}

/* Adds c (fitted to the packed product) when it is valid and new. */
static int add_candidate(scored *all, int n, int cap, clip_gemm_params c,
                         const clip_device_info *dev, clip_type t, size_t m, size_t nn, size_t k) {
    char why[160];
    clip_gemm_fit_packed(&c, dev, t, 1, m, nn, k);
    if (n >= cap || clip_gemm_check(&c, dev, t, why, sizeof why)) return n;
    for (int i = 0; i < n; i++)
        if (same_set(&all[i].p, &c)) return n;
    all[n].p = c;
    all[n].score = prior(&c, dev, t, m, nn);
    all[n].order = n;
    return n + 1;
}

/* The tensor family's sets for a device of compute capability arch (see clip_gemm_candidates),
 * scored to be tried right after the default: the family is several times the FFMA rate where
 * it runs, so its sets are the likeliest winners. */
static int add_tensor(scored *all, int n, int cap, const clip_device_info *dev, int arch,
                      clip_type t, size_t m, size_t nn, size_t k) {
    if (arch < 80 || !(t == CLIP_F32 || (t == CLIP_C32 && arch == 90))) return n;
    const int first = n;
    clip_gemm_params q;
    if (arch == 90) {
        /* Warpgroups, K of a stage and stages that fit 48 KB, with and without the split tail
         * (bench/GEMM.md: the defaults' neighbours), and four stages past 48 KB moved by bulk
         * copies (the one-part defaults' way). */
        static const int shapes[][4] = {{1, 16, 2, 0}, {1, 8, 4, 0},  {1, 8, 3, 0}, {1, 8, 2, 0},
                                        {2, 8, 2, 0},  {1, 16, 4, 1}, {2, 16, 4, 1}};
        static const int sks[] = {3, 0, 2, 4};
        for (int i = 0; i < 7; i++)
            for (int j = 0; j < 4; j++) {
                clip_gemm_tc_default_wg(&q);
                q.mdimc = shapes[i][0], q.mwg = 64 * q.mdimc, q.wm = q.mdimc;
                q.kwg = shapes[i][1], q.stages = shapes[i][2], q.pipe = shapes[i][3];
                q.sk = sks[j];
                n = add_candidate(all, n, cap, q, dev, t, m, nn, k);
            }
    } else {
        static const int tiles[][4] = {
            {128, 128, 2, 2}, {64, 128, 1, 2}, {128, 64, 2, 1}, {64, 64, 1, 1}};
        static const int kst[][2] = {{16, 2}, {8, 3}, {8, 4}, {32, 2}};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                clip_gemm_tc_default(&q);
                q.mwg = tiles[i][0], q.nwg = tiles[i][1], q.mdimc = tiles[i][2];
                q.ndimc = tiles[i][3], q.wm = q.mdimc, q.kwg = kst[j][0], q.stages = kst[j][1];
                n = add_candidate(all, n, cap, q, dev, t, m, nn, k);
            }
    }
    for (int i = first; i < n; i++)
        all[i].score = 1e30 - i; /* in generation order, before every FFMA set */
    return n;
}

int clip_gemm_candidates(const clip_device_info *dev, int arch, clip_type t, size_t m, size_t n,
                         size_t k, clip_gemm_params *out, int cap) {
    enum { MAXC = 1024 };
    scored *all = malloc(MAXC * sizeof *all);
    if (!all || cap < 1) {
        free(all);
        return 0;
    }
    int count = 0, cpx = clip_type_is_complex(t) ? 2 : 1, dbl = clip_type_is_double(t) ? 2 : 1;
    clip_gemm_params d;
    clip_gemm_default(dev, t, CLIP_GEMM_AUTO, m, n, k, &d);
    count = add_candidate(all, count, MAXC, d, dev, t, m, n, k);
    if (d.variant == CLIP_GEMM_TILED && d.ksplit == 1) {
        /* The default with stream-K toggled (stream-K runs one group of work-items), and
         * without stream-K, with K summed by one and by two groups of work-items. */
        clip_gemm_params e = d;
        e.sk = !d.sk;
        if (e.sk) e.kg = 0;
        count = add_candidate(all, count, MAXC, e, dev, t, m, n, k);
        e = d;
        e.sk = 0;
        for (e.kg = 0; e.kg <= 2; e.kg += 2) /* the default's own count drops out as a repeat */
            count = add_candidate(all, count, MAXC, e, dev, t, m, n, k);
    }
    count = add_tensor(all, count, MAXC, dev, arch, t, m, n, k);
    if (dev->type == CLIP_DEVICE_CPU) {
        /* Direct sets: a few vector widths (64 bytes down) by a few column counts. */
        static const int cols[] = {12, 8, 6, 4, 16};
        for (int vb = 64; vb >= 16; vb /= 2)
            for (int mul = 2; mul >= 1; mul--)
                for (int c = 0; c < 5; c++) {
                    clip_gemm_params q;
                    int vw = vb / (int)clip_type_size(t);
                    if (vw < 1) continue;
                    set_tiles(&q, CLIP_GEMM_DIRECT, mul * vw, cols[c], 16, 1, 1, vw);
                    count = add_candidate(all, count, MAXC, q, dev, t, m, n, k);
                }
    } else {
        static const int wgs[][2] = {{16, 16}, {8, 16}, {16, 8}, {8, 8}, {32, 8}, {8, 32}};
        static const int tiles[] = {2, 4, 8, 16};
        static const int kwgs[] = {16, 8, 32};
        for (int kw = 0; kw < 3; kw++)
            for (int w = 0; w < 6; w++)
                for (int a = 0; a < 4; a++)
                    for (int b = 0; b < 4; b++) {
                        int acc = tiles[a] * tiles[b] * cpx * dbl; /* 32-bit registers */
                        int mwg = wgs[w][0] * tiles[a], nwg = wgs[w][1] * tiles[b];
                        if (acc < 16 || acc > 128 || mwg > 256 || nwg > 256) continue;
                        clip_gemm_params q;
                        tiled_set(&q, t, dev, wgs[w][0], wgs[w][1], tiles[a], tiles[b], kwgs[kw]);
                        q.ksplit = split_for(dev, clip_gemm_tiles(&q, m, n), k);
                        /* The plain warp layout, then 8 work-items along M per warp. */
                        for (int wm = q.mdimc; wm >= 8; wm = wm > 8 ? 8 : wm / 2) {
                            q.wm = wm;
                            q.stages = q.stages > 1 ? 2 : 1;
                            count = add_candidate(all, count, MAXC, q, dev, t, m, n, k);
                            /* Big register tiles also with the operands read one k ahead. */
                            if (acc >= 128 && q.stages == 2) {
                                q.stages = 3;
                                count = add_candidate(all, count, MAXC, q, dev, t, m, n, k);
                            }
                        }
                    }
    }
    if (count > 1) qsort(all + 1, (size_t)count - 1, sizeof *all, by_score);
    int w = count < cap ? count : cap;
    for (int i = 0; i < w; i++)
        out[i] = all[i].p;
    free(all);
    return w;
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
