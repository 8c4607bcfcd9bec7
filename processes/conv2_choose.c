/* conv2's choice of path: the cost model auto weighs the direct kernels, the separable passes
 * and fft by, and the direct kernel it takes on each kind of device (processes/conv2.c says
 * how auto uses them, in order: tuning cache, then this model).
 *
 * Cost model (ms; rates of the device class, GPU or CPU, scaled by compute units x clock
 * against the machine they were fitted on; device_rates() lists the fits, bench/CONV2.md the
 * measurements):
 *    a kernel pass   max(multiply-adds / rate, bytes moved / bandwidth) + launch overhead,
 *                    rate by kernel: compiled-in local/global, block, run-time, rblock (whose
 *                    vector loads per filter row, ri*(rj+nk-1), count as multiply-adds);
 *                    complex multiply-adds count 4, double ones 2
 *    separable       two passes (the column pass writes and the row pass reads mo x na)
 *    tensor          its steps (an input column of a group's walk), each a fixed cost plus
 *                    its wgmma (3 * KRP / 8) by their width, at fitted rates, slowed where
 *                    fewer groups than the registers allow a compute unit are resident
 *                    (the second form, TC_WS: 0.8 of a step, one work-group a unit,
 *                    spans of band-columns: conv2_tensor_spans, as the first
 *                    form's where its operand is in local memory);
 *                    against it, block's tiles shrunk to fit local memory count slower, and
 *                    block's rate falls with fewer taps than it was fitted to
 *    fft             (2 S + 1) transforms of P x Q points (S slices and the filter forward,
 *                    S back) at a fitted cost per point and log2(PQ), the gather, product and
 *                    crop passes over memory, and a fixed cost per launch
 * On the H100 (8192^2 f32 'same', bench/CONV2.md call 3) this gives local for 3x3 (0.26 ms),
 * block for 7x7 (0.35 ms) and 15x15 (0.80 ms), block for 31x31 (2.72 ms; fft, 1.74 ms, only
 * with accuracy normwise), and for a rank-one K separable from 15x15 (31x31: 0.63 ms; at 7x7
 * block stays, 0.35 against 0.48). Since the tensor kernel (bench/CONV2.md, "tensor cores",
 * third to fifth rounds; H100): 15x15 tensor 0.58 ms (block 0.81), 21x21 tensor 0.99
 * (block 1.37), 31x31 tensor 1.11-1.13 (block 2.70), 47x47 tensor 4.88 (block 6.72), 63x63
 * tensor 6.24 (block 28.7); at 4096^2 21x21 and 31x31 tensor (0.27, 0.31 ms; block 0.37,
 * 0.72), and at 2048^2 (31x31 0.096 ms, block 0.194; 21x21 0.085, block 0.112); at 1024^2
 * block (31x31 0.060, tensor 0.096: 32 spans for 132 compute units).
 */
#include <math.h>

#include "conv2.h"

/* ---- the cost model -------------------------------------------------------------------- */

/* Rates of a device class: multiply-adds per ms by kernel (local/global with the filter
 * compiled in, block, run-time sizes), bytes per ms, FFT ms per point and log2 of the plane
 * size plus a fixed ms per launch of the path, launch overhead in ms. Fitted to f32 'same'
 * measurements (bench/CONV2.md): GPU on an H100 (132 CUs, 1980 MHz; 7x7 local 0.41 ms, 31x31
 * block 2.59 ms, 3x3 local 537 MB in 0.27 ms, FFT 2160^2 0.29 ms and 8232^2 2.09 ms), CPU under
 * PoCL on 2 AVX-512 cores, per core (2048^2: 7x7 global 5.5 ms, 31x31 run-time 131 ms, 3x3
 * 2.2 ms, FFT 2100^2 82 ms). tensor: the tensor kernel's wgmma of 32 columns per ms
 * (tensor_ms; GPUs with it only); units: the device's compute units. A GPU's launch overhead
 * is the time the device stands idle between two dependent kernels, 1.9-2.1 us on the H100
 * (bench/enqueue_cost); it was 4 us, which events suggested (each reads about 4 us longer than
 * its kernel there), and which kept a 1024^2 rank-one 15x15 on block at 0.0197 ms against the
 * separable passes' 0.0160 in a chain of launches (bench/CONV2.md, "The grid on the chain
 * clock"). */
typedef struct rates {
    double small, block, runtime, bw, fft, fft_fixed, launch, rblock, loads, tensor, units;
} rates;

static rates device_rates(clip_process *p, clip_type t) {
    const clip_device_info *d = clip_proc_device(p);
    rates r;
    double scale;
    if (d->type == CLIP_DEVICE_CPU) {
        r = (rates){1.9e7, 1e7, 1.5e7, 7.5e6, 4.6e-7, 1.0, 0.02, 2.6e7, 1, 0, 1};
        scale = d->compute_units;
    } else {
        r = (rates){8e9, 2.4e10, 1.8e9, 2.2e9, 2e-10, 0.17, 0.002, 1.8e9, 0, 1.02e7, 1};
        scale = (double)d->compute_units * d->clock_mhz / (132.0 * 1980.0);
    }
    if (!(scale > 0)) scale = 1;
    r.units = d->compute_units ? d->compute_units : 1;
    double per = clip_type_is_double(t) ? 2 : 1;
    if (clip_type_is_complex(t)) per *= 4;
    r.small *= scale / per, r.block *= scale / per, r.runtime *= scale / per, r.bw *= scale;
    r.rblock *= scale / per, r.tensor *= scale;
    r.fft *= (double)clip_type_size(t) / 4 / scale;
    return r;
}

/* The tensor kernel (kernels/conv2_tensor.cl): a group walks its rj output columns plus
 * a ring of filter columns for each block of them, and a step issues 3 * KRP / 8 wgmma of
 * ring * rows / 64 columns. A step costs a fixed part (its loads, ring and barriers: about 4.5
 * wgmma of 32 columns) plus its products counted in wgmma of 32 columns (r->tensor of those per
 * ms), fitted to H100 8192^2 'same' (bench/CONV2.md, third round: rows in pairs, 15x15 0.578 ms,
 * 21x21 1.29, 31x31 1.64; 47x47 4.86, 63x63 6.21 from local memory), and 1.1 times that for 33
 * to 56 rows. Groups share a compute unit as their registers allow (conv2_tensor_maxnreg; ptxas
 * takes about 230 unlimited); fewer groups than that leave the tensor cores idle while each
 * waits for its products (H100, 1024^2 31x31: 64 groups, 0.139 ms against 0.61 at 4096^2 with
 * 16 times the work), and a second wave that fills few of them costs nearly a whole one (H100
 * 4096^2 21x21: 512 groups in 396 places, 0.453 ms against 1.29 at 8192^2 with 4 times the
 * work; past two waves the groups no longer start together, and the last wave's gap shrinks).
 * The second form (a producer warpgroup beside two consumers, one work-group a compute unit,
 * walking spans of band-columns: conv2_tensor_spans) costs 0.8 of a step (H100, fifth round:
 * 8192^2 31x31 1.12 ms, 21x21 0.99, 2048^2 31x31 0.096, 1024^2 0.096), its groups counted as
 * work-groups. */
static double tensor_ms(const rates *r, const conv2_cfg *c, const conv2_geom *g, double bytes) {
    const double ring = (double)conv2_tensor_ring(g), krp = (double)conv2_tensor_krp(g, c->ri);
    const double blocks = ceil((double)g->nk / ring);
    const int ws = conv2_cfg_consumers(c);
    double steps, groups;
    if (conv2_cfg_spans(g, c)) {
        /* spans of band-columns, a ring of steps for each band a span enters */
        size_t span = 0;
        const int k = ws ? ws : 1;
        const double bands = ceil((double)g->mo / (double)conv2_cfg_band_rows(c)),
                     n = (double)conv2_tensor_spans(
                         g, c, conv2_tensor_places(g, c, (size_t)r->units), &span);
        const double segments = conv2_span_crosses(span, g->no) ? n + bands - 1 : n;
        steps = k * (bands * g->no + segments * ring) * blocks * (double)g->slices;
        groups = n * g->slices;
    } else {
        const double walked = ceil((double)g->no / c->rj) * (c->rj + ring);
        steps = ceil((double)g->mo / c->ri) * walked * blocks * (double)g->slices;
        groups = ceil((double)g->mo / c->ri) * ceil((double)g->no / c->rj) * g->slices;
    }
    const double work = (4.5 + 3 * krp / 8 * ring * (c->ri / 64) / 32) * (ws ? 0.8 : 1);
    const double tall = krp > 32 && krp <= 56 ? 1.1 : 1;
    const int regs = conv2_tensor_maxnreg(g, c->ri);
    const double resident = ws ? 1 : floor(65536.0 / (128.0 * (regs ? regs : 232)));
    const double places = resident * r->units, waves = ceil(groups / places);
    const double busy = waves <= 2 ? groups / (waves * places) : 1;
    return fmax(steps * work * tall / (r->tensor * busy), bytes / r->bw) + r->launch;
}

/* Bytes a direct pass reads and writes: A once and C once. */
static double pass_bytes(const conv2_geom *g) {
    return (double)(g->ma * g->na + g->mo * g->no) * g->slices * clip_type_size(g->t);
}

static double pass_ms(const rates *r, const conv2_cfg *c, const conv2_geom *g) {
    double macs = (double)g->mo * g->no * g->slices * g->mk * g->nk;
    const double bytes = pass_bytes(g);
    if (c->kind == CONV2_TENSOR) return tensor_ms(r, c, g, bytes);
    double rate = c->kind == CONV2_BLOCK || c->kind == CONV2_COLS ? r->block
                  : c->fixed                                      ? r->small
                                                                  : r->runtime;
    if (c->kind == CONV2_GLOBAL || c->kind == CONV2_RBLOCK) {
        /* CPUs: per filter row a work-item issues rj*nk vector multiply-adds per vector of rows
         * and rj+nk-1 vector loads, which cost about as much each (r->loads) */
        macs *= 1 + r->loads * (c->rj + (double)g->nk - 1) / ((double)c->rj * (double)g->nk);
    }
    if (c->kind == CONV2_RBLOCK) {
        /* Border groups first copy their padded window, th x tw values at about a vector
         * multiply-add's lanes (vw) each: a pad_map and a scalar copy against vw lanes of a
         * vector FMA (16 for f32 was fitted on the 512^2 grid points of bench/CONV2.md). A value's
         * copy costs the same time in any real type, and vw lanes of f64 weigh as 16 of f32 at
         * the rate (a constant 16 made f64's copies cost twice: 512^2 f64 1x63 went to global,
         * 1.14-1.44x rblock's time in three grids). */
        const double rows = (double)c->ri * c->vw, th = rows + (double)g->mk - 1;
        const double tw = (double)c->rj + (double)g->nk - 1;
        const double ngx = ceil((double)g->mo / rows), ngy = ceil((double)g->no / c->rj);
        /* A filter one row (column) tall has no halo that way: only a partial last group of
         * rows (columns) is an edge there. */
        const double er = g->mk > 1 ? fmin(ngx, 2 + floor(((double)g->mk - 1) / rows))
                                    : (double)(fmod((double)g->mo, rows) != 0);
        const double ec = g->nk > 1 ? fmin(ngy, 2 + floor(((double)g->nk - 1) / c->rj))
                                    : (double)(g->no % (size_t)c->rj != 0);
        macs += (er * ngy + ec * ngx - er * ec) * (double)g->slices * th * tw * c->vw;
        rate = r->rblock;
    }
    return fmax(macs / rate, bytes / r->bw) + r->launch;
}

static double fft_ms(const rates *r, const conv2_geom *g) {
    size_t P = 0, Q = 0;
    conv2_fft_sizes(g, &P, &Q);
    const double pq = (double)P * Q, s = (double)g->slices;
    const double bytes =
        ((s + 1) * pq * 3 + (double)(g->ma * g->na + g->mo * g->no) * s) * clip_type_size(g->t);
    return (2 * s + 1) * pq * log2(pq) * r->fft + bytes / r->bw + r->fft_fixed;
}

/* ---- choosing the path ----------------------------------------------------------------- */

/* The separable geometry: pass 1 filters the columns of A (mk x 1) into T (mo x na), pass 2 the
 * rows of T (1 x nk) into C. */
void conv2_sep_geoms(const conv2_geom *g, conv2_geom *g1, conv2_geom *g2) {
    *g1 = *g, *g2 = *g;
    g1->no = g->na, g1->oj = 0, g1->nk = 1;
    g2->ma = g->mo, g2->oi = 0, g2->mk = 1;
}

/* The CPU's direct kernel for g: global or rblock, the cheaper by the cost model, rblock where
 * they tie: small filters, where both are bound by memory in the model, ran as fast or faster as
 * rblock at 19 of the 23 such points of the PoCL grid and within 10% at 22 (bench/CONV2.md,
 * medians of 3 rounds: 2048^2 f32 3x3 global 1.81x rblock's time, 7x1 2.00x; 2048^2 f64 3x3
 * the exception, rblock 1.19x). Row filters (1 x k) of up to CONV2_ROW_STREAM_TAPS taps break
 * the tie the other way once the image and the result no longer fit the device's cache:
 * global's work-items walk down the columns, where rblock's read a few hundred bytes of each of
 * rj + k - 1 columns a stride apart, which streams worse from memory; with more taps rblock's
 * reuse of each load wins back (bench/CONV2.md, "Row filters past the cache"). Past twice the
 * cache every row filter goes to global, whatever the model says: rblock / global, compared
 * within one of this VM's two speed modes, 2896^2 f32 1x11 1.38, 1x15 1.38, 1x21 1.60, 1x31
 * 1.00, 1x63 1.27; 2048^2 f64 1x15 1.06, 1x31 1.00, 1x63 1.25; 4096^2 f32 1x31 1.14-1.19, 1x47
 * 1.19-1.35, 1x63 1.36-1.46 (bench/CONV2.md, "Row filters past twice the cache"). */
#define CONV2_ROW_STREAM_TAPS 7
static conv2_cfg cpu_direct(clip_process *p, const conv2_geom *g) {
    const conv2_cfg gl = conv2_default_cfg(p, g, CONV2_GLOBAL);
    const double cache = (double)clip_proc_device(p)->global_cache;
    const double bytes = pass_bytes(g);
    const int row = g->mk == 1 && g->nk > 1 && cache > 0;
    if (row && bytes >= 2 * cache) return gl;
    const rates r = device_rates(p, g->t);
    const conv2_cfg rb = conv2_default_cfg(p, g, CONV2_RBLOCK);
    const double trb = pass_ms(&r, &rb, g), tgl = pass_ms(&r, &gl, g);
    if (trb != tgl) return trb < tgl ? rb : gl;
    return row && g->nk <= CONV2_ROW_STREAM_TAPS && bytes >= cache ? gl : rb;
}

/* The direct kernel auto takes on this device: on CPUs global or rblock (cpu_direct); on GPUs
 * local for up to 16 taps (H100: 3x3 local 0.265 ms, block 0.278 ms), block above (7x7: block
 * 0.342 ms, local 0.41 ms; bench/CONV2.md), while its tile fits local memory (init falls back to
 * global otherwise). Local also takes images too small to give block's register tiles
 * BLOCK_MIN_ITEMS work-items per compute unit, up to LOCAL_FEW_TAPS taps, and column filters
 * (k x 1) up to LOCAL_COL_TAPS where block's tiles are one row tall (8-byte and larger types:
 * no input row shared along the filter). H100 grid, bench/CONV2.md: 512^2 f32 7x7 local
 * 0.0097 ms, block 0.0120, 11x11 block ahead; f64 31x1 local 0.0554 ms against block 0.0753
 * (2048^2) and 0.673 against 0.883 (8192^2), while f32 31x1 (block rows 2 tall) at 8192^2 is
 * block's, 0.374 against 0.413. Row filters (1 x k) from LOCAL_ROW_MIN taps on images that
 * fill the device go to block (H100, 1 x 7: 4096^2 block 0.0637 ms, local 0.0696; 8192^2
 * 0.2268 against 0.2546), and so do column filters (k x 1) where block's tiles are two rows
 * tall (H200, 7 x 1: 8192^2 block 0.224 ms, local 0.252). On sm_90 the tensor kernel for f32
 * where the cost model puts it below the pick (tensor_ms; H100 8192^2: 15x15 0.59 ms against
 * block 0.81, 21x21 1.28 against 1.37, 31x31 1.64 against 2.71, 47x47 4.84 against 6.72, 63x63
 * 6.27 against 28.7; at 4096^2 21x21 and 47x47 stay block's). */
#define LOCAL_MAX_TAPS 16
#define LOCAL_FEW_TAPS 49
#define LOCAL_COL_TAPS 31
#define BLOCK_MIN_ITEMS 256
/* For square (not line) filters local keeps images up to twice that: block's 8-byte tiles are
 * one row tall, so a 1024^2 f64 image gives it 496 work-items a compute unit, and there local
 * ran 5x5 in 0.0079 ms against block's 0.0088, 7x7 in 0.0106 against 0.0114 (H100, chain clock,
 * bench/CONV2.md, "The grid on the chain clock"); at 4096^2 block's 0.1133 beat local's 0.1184. */
#define BLOCK_MIN_ITEMS_SQUARE 512
#define LOCAL_ROW_MIN 7
conv2_cfg conv2_auto_direct(clip_process *p, const conv2_geom *g, int tensor) {
    const clip_device_info *d = clip_proc_device(p);
    if (d->type == CLIP_DEVICE_CPU) return cpu_direct(p, g);
    const conv2_cfg b = conv2_default_cfg(p, g, CONV2_BLOCK);
    const double items =
        ceil((double)g->mo / b.ri) * ceil((double)g->no / b.rj) * (double)g->slices;
    const double cus = d->compute_units ? d->compute_units : 1;
    const size_t taps = g->mk * g->nk;
    const int line = g->mk == 1 || (g->nk == 1 && b.ri > 1);
    const int few = items < (line || g->nk == 1 ? BLOCK_MIN_ITEMS : BLOCK_MIN_ITEMS_SQUARE) * cus;
    const int line_filter = line && taps >= LOCAL_ROW_MIN && !few;
    const conv2_cfg pick = (taps <= LOCAL_MAX_TAPS && !line_filter) ||
                                   (few && taps <= LOCAL_FEW_TAPS) ||
                                   (g->nk == 1 && g->mk <= LOCAL_COL_TAPS && b.ri == 1)
                               ? conv2_default_cfg(p, g, CONV2_LOCAL)
                               : b;
    if (tensor && !conv2_tensor_unavailable(p, g)) {
        const rates r = device_rates(p, g->t);
        const conv2_cfg tc = conv2_default_cfg(p, g, CONV2_TENSOR);
        double t_pick = pass_ms(&r, &pick, g);
        /* A block tile shrunk to fit local memory runs slower than the model's rate (H100,
         * 8192^2: 47x47 at 32x2 work-items 0.89 of it, 63x63 at 32x1 by 2x4 0.38): by the
         * outputs a group keeps, to the power 0.35, fitted to those two. */
        if (pick.kind == CONV2_BLOCK) {
            const double shrink = conv2_block_shrink(p, g, &pick);
            t_pick = shrink > 0 ? t_pick / pow(shrink, 0.35) : INFINITY;
            /* and below the 31x31 it was fitted to, block's rate falls with the taps (H200
             * 8192^2: 15x15 0.82 ms, 0.77 of it; 21x21 0.89), about as 1 - 50 / taps down to
             * 13x13 (H100 8192^2, bench/CONV2.md seventh round: 0.66 ms against 0.67 so
             * corrected, where the plain rate's 0.47 left it block's at 1.20x the tensor kernel);
             * 11x11 runs faster than that (0.527 against 0.575), and smaller filters are the
             * local kernel's or bound by memory */
            if (taps >= 144) t_pick /= 1 - 50.0 / (double)taps;
        }
        if (pass_ms(&r, &tc, g) < t_pick) return tc;
    }
    return pick;
}

/* The kernels of the separable passes: forced kind for both, or by device. */
void conv2_sep_cfgs(clip_process *p, const conv2_geom *g1, const conv2_geom *g2, int kind,
                    conv2_cfg *c1, conv2_cfg *c2) {
    if (kind) {
        *c1 = conv2_default_cfg(p, g1, kind);
        *c2 = conv2_default_cfg(p, g2, kind);
    } else if (clip_proc_device(p)->type == CLIP_DEVICE_CPU) {
        *c1 = cpu_direct(p, g1);
        *c2 = cpu_direct(p, g2);
    } else {
        *c1 = conv2_default_cfg(p, g1, CONV2_COLS);
        *c2 = conv2_default_cfg(p, g2, CONV2_BLOCK);
    }
}

double conv2_pass_ms(clip_process *p, const conv2_cfg *c, const conv2_geom *g) {
    const rates r = device_rates(p, g->t);
    return pass_ms(&r, c, g);
}

double conv2_fft_ms(clip_process *p, const conv2_geom *g) {
    const rates r = device_rates(p, g->t);
    return fft_ms(&r, g);
}
