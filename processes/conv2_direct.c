/* conv2's direct kernels (kernels/conv2*.cl): default configurations per device, tuning values,
 * building and launching one pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2.h"
#include "gemm_tc.h"

/* Filters up to this size are compiled into the local and global kernels (unrolled, the global
 * kernel keeps the filter in registers). The block kernel always compiles its size in; the cols
 * kernel too. PoCL takes seconds to build the unrolled code of larger filters, and on GPUs the
 * block kernel takes over above it. */
#define SMALL_K_NUMEL 81

static const char *const kind_names[] = {"?",     "local", "global", "block", "cols",
                                         "kinfo", "fftk",  "rblock", "tensor"};

/* The tensor kernel's output columns a group (conv2_default_cfg), and its filter rows at most. */
#define TENSOR_TJ 256
#define TENSOR_SPAN 128 /* the second form's shortest span */
#define TENSOR_MAX_ROWS 64
/* Its local arrays at most. NVIDIA's OpenCL reports 48 KB, but the sm_90a build reaches ptxas as
 * PTX, which takes static local arrays past that (the GEMM's finding, bench/GEMM.md "Past 48
 * KB"): the kernel that reads its operand from local memory needs it (conv2_tensor_ss: 47x47
 * 65 KB, 63x63 81 KB). The one that builds it in registers stages as many columns as fit 48 KB
 * (as measured before that was known: bench/CONV2.md). */
#define TENSOR_LOCAL (100 * 1024)
#define TENSOR_LOCAL_PICK (48 * 1024)

/* rblock's default register block (conv2_default_cfg). */
#define RBLOCK_RI 4
#define RBLOCK_RJ 6
#define RBLOCK_RJ_16 4

static int is_cpu(clip_process *p) {
    return clip_proc_device(p)->type == CLIP_DEVICE_CPU;
}

/* Native SIMD width of the device for real type t (1 for complex). The test hook
 * CLIP_TEST_SIMD_WIDTH (a float width; doubles take half) replaces the device's answer: PoCL
 * reports the width of the CPU it runs on, which under valgrind is not the host's, and
 * scripts/valgrind.sh fixes one width so that the native run compiles the kernels memcheck uses. */
static int simd_rows(clip_process *p, clip_type t) {
    cl_uint w = 0;
    cl_device_info q = clip_type_is_double(t) ? CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE
                                              : CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT;
    const char *hook = getenv("CLIP_TEST_SIMD_WIDTH");
    if (clip_type_is_complex(t)) return 1;
    if (hook && atoi(hook) > 0)
        w = (cl_uint)(clip_type_is_double(t) ? atoi(hook) / 2 : atoi(hook));
    else if (clGetDeviceInfo(clip_proc_cl_device(p), q, sizeof w, &w, NULL) != CL_SUCCESS)
        return 1;
    return w >= 16 ? 16 : w >= 8 ? 8 : w >= 4 ? 4 : w >= 2 ? 2 : 1;
}

/* Parses n comma-separated integers of 1 to 1024, the whole string, into v (-1: not that). */
static int parse_ints(const char *s, int *v, int n) {
    for (int i = 0; i < n; i++) {
        char *end = NULL;
        long x = strtol(s, &end, 10);
        if (end == s || x < 1 || x > 1024) return -1;
        v[i] = (int)x;
        s = end;
        if (i + 1 < n) {
            if (*s != ',') return -1;
            s++;
        }
    }
    return *s ? -1 : 0;
}

/* Defaults:
 *   local   32 x 4 work-items, 8 outputs each along the row: 32 rows so a warp reads and writes
 *           128 contiguous bytes, 8 outputs so a staged value feeds 8 accumulators (H100, 8192^2
 *           f32 3x3: 32 x 4 0.265 ms, 32 x 8 0.288 ms; 7x7: 0.410 and 0.437 ms).
 *   global  the same on GPUs; on CPUs one work-item per group (PoCL's work-item loops add
 *           nothing to explicit vectors) taking one native SIMD vector of rows by 8 columns
 *           (2048^2 by 7x7 'same', PoCL on 2 AVX-512 cores: f32 3.6 ms, f64 6.1 ms; the local
 *           kernel there takes ~200 ms).
 *   block   GPUs: 32 x 4 work-items of 2 rows by 16 columns (64 x 64 outputs per group; a 31x31
 *           f32 tile is 94 x 94 values, 35 KB) for 4-byte types, 1 x 16 for 8-byte ones and 1 x 8
 *           for c64, so the accumulators stay at 32 registers (H100, 8192^2 f32 31x31: 2.59 ms,
 *           49.9 TFLOP/s; the best of 8 tiles tried). CPUs (only when forced): 16 x 2
 *           work-items of 1 x 4, small unrolled code.
 *   cols    32 x 8 work-items of 15 consecutive rows (odd: conflict-free strided reads).
 *   rblock  one work-item per group of RBLOCK_RI native SIMD vectors of rows by RBLOCK_RJ
 *           columns: 24 vector accumulators of AVX-512's 32 registers, leaving room for the RI
 *           loaded vectors and a broadcast filter value (complex types: scalars, 4 x 6). With
 *           narrower vectors (AVX2: 16 registers) RBLOCK_RJ_16 columns, 16 accumulators: 2048^2
 *           31x31 f32 96-98 ms against 139-153 at 4 x 6 (AMD EPYC, 2 cores, AVX2; 2 x 8 111, 4 x
 *           3 113, 2 x 6 115), f64 220 against 326, 63x63 455 against 813, 512^2 31x31 10.5
 *           against 17.6 (bench/CONV2.md, "CPU without AVX-512").
 * The measurements behind these are in bench/CONV2.md. */
conv2_cfg conv2_default_cfg(clip_process *p, const conv2_geom *g, int kind) {
    const int cpu = is_cpu(p);
    const size_t esz = clip_type_size(g->t);
    const int small = g->mk * g->nk <= SMALL_K_NUMEL;
    conv2_cfg c = {kind, 32, kind == CONV2_LOCAL ? 4 : 8, 1, 8, 1, small};
    if (kind == CONV2_GLOBAL && cpu) c = (conv2_cfg){kind, 1, 1, 1, 8, simd_rows(p, g->t), small};
    if (kind == CONV2_BLOCK) {
        c = (conv2_cfg){kind, 32, 4, esz == 4 ? 2 : 1, esz <= 8 ? 16 : 8, 1, 1};
        if (cpu) c = (conv2_cfg){kind, 16, 2, 1, 4, 1, 1};
    }
    if (kind == CONV2_COLS) c = (conv2_cfg){kind, 32, 8, 15, 1, 1, 1};
    if (kind == CONV2_TENSOR) {
        /* Rows interleaved in pairs where the second row's tap fits the rounding to 8 already
         * padded in (bench/CONV2.md: 8192^2 31x31 1.75 ms against 2.04 in groups of 64 rows),
         * and always with the operand in local memory, which holds no fragments in registers
         * (products 64 columns wide, with room for two accumulator sets, TC_PIPE: H200 63x63
         * 6.42 ms against 6.90 in groups of 64 rows) */
        const int pairs =
            (conv2_tensor_ss(g) || (g->mk <= 31 && g->mk % 8)) && conv2_tensor_cw(g, 128);
        c = (conv2_cfg){kind, 128, 1, pairs ? 128 : 64, TENSOR_TJ, 1, 1};
        /* A producer warpgroup beside ws consumers (conv2_tensor.cl, TC_WS) */
        const int ws = conv2_tensor_ws(g, c.ri);
        /* rj: the shortest span a work-group walks (conv2_tensor_spans; 128 lets 2048^2 fill the
         * device: H100 31x31 0.096 ms against 0.30 at 512) */
        if (ws) c.wx = 128 * (ws + 1), c.rj = TENSOR_SPAN;
    }
    if (kind == CONV2_RBLOCK) {
        const int vw = simd_rows(p, g->t);
        /* Vectors narrower than AVX-512's 64 bytes: x86's 16 vector registers (AVX2) */
        const int cols = vw * (int)esz >= 64 ? RBLOCK_RJ : RBLOCK_RJ_16;
        c = vw > 1 ? (conv2_cfg){kind, 1, 1, RBLOCK_RI, cols, vw, 1}
                   : (conv2_cfg){kind, 1, 1, RBLOCK_RI, RBLOCK_RJ, 1, 1};
        /* Experiment hook: CLIP_CONV2_RBLOCK=RI,RJ */
        const char *e = getenv("CLIP_CONV2_RBLOCK");
        int v[2];
        if (e && !parse_ints(e, v, 2) && v[0] * v[1] <= 32) c.ri = v[0], c.rj = v[1];
    }
    return c;
}

int conv2_parse_tuning(clip_process *p, const conv2_geom *g, const char *value, conv2_cfg *cfg,
                       int *other) {
    *other = 0;
    if (!strcmp(value, "fft")) return *other = 1, 0;
    if (!strcmp(value, "separable")) return *other = 2, 0;
    const char *colon = strchr(value, ':');
    size_t n = colon ? (size_t)(colon - value) : strlen(value);
    int kind = 0;
    for (int k = CONV2_LOCAL; k <= CONV2_TENSOR; k++)
        if ((k <= CONV2_BLOCK || k >= CONV2_RBLOCK) && strlen(kind_names[k]) == n &&
            !strncmp(value, kind_names[k], n))
            kind = k;
    if (!kind) return -1;
    *cfg = conv2_default_cfg(p, g, kind);
    if (!colon) return 0;
    int v[4];
    if (kind == CONV2_TENSOR) {
        /* rj: output columns a group, a multiple of the ring (32 covers every filter); then
         * optionally the group's rows (64, or 128 with rows in pairs) */
        const int two = !parse_ints(colon + 1, v, 2);
        if ((!two && parse_ints(colon + 1, v, 1)) || v[0] % 32) return -1;
        cfg->rj = v[0];
        if (two) cfg->ri = v[1];
        cfg->wx = 128 * (conv2_tensor_ws(g, cfg->ri) + 1);
        return conv2_tensor_cw(g, cfg->ri) ? 0 : -1;
    }
    if (kind == CONV2_RBLOCK) {
        /* ri,rj with the native vector width, or ri,rj,vw; the accumulators are vectors, so
         * their count is bounded by the register file (AVX-512: 32). */
        const int three = !parse_ints(colon + 1, v, 3);
        if (!three && parse_ints(colon + 1, v, 2)) return -1;
        cfg->ri = v[0], cfg->rj = v[1];
        if (three) cfg->vw = v[2];
        if ((cfg->vw & (cfg->vw - 1)) || cfg->vw > 16 ||
            (cfg->vw > 1 && clip_type_is_complex(g->t)) || cfg->ri * cfg->rj > 32)
            return -1;
        return 0;
    }
    if (kind == CONV2_LOCAL) {
        if (parse_ints(colon + 1, v, 3)) return -1;
        cfg->wx = v[0], cfg->wy = v[1], cfg->rj = v[2];
    } else if (kind == CONV2_GLOBAL) {
        if (parse_ints(colon + 1, v, 4)) return -1;
        cfg->wx = v[0], cfg->wy = v[1], cfg->rj = v[2], cfg->vw = v[3];
        if ((v[3] & (v[3] - 1)) || v[3] > 16 || (v[3] > 1 && clip_type_is_complex(g->t))) return -1;
    } else {
        if (parse_ints(colon + 1, v, 4)) return -1;
        cfg->wx = v[0], cfg->wy = v[1], cfg->ri = v[2], cfg->rj = v[3];
    }
    /* Unrolled register blocks beyond 64 accumulators would spill. */
    if ((size_t)cfg->wx * (size_t)cfg->wy > clip_proc_device(p)->max_work_group ||
        cfg->ri * cfg->rj > 64)
        return -1;
    return 0;
}

void conv2_cfg_str(const conv2_cfg *c, const conv2_geom *g, char *buf, size_t cap) {
    char k[32];
    if (c->fixed)
        snprintf(k, sizeof k, "k%zux%zu", g->mk, g->nk);
    else
        snprintf(k, sizeof k, "k-runtime");
    if (c->kind == CONV2_GLOBAL)
        snprintf(buf, cap, "global %dx%d %dx%d %s", c->wx, c->wy, c->vw, c->rj, k);
    else if (c->kind == CONV2_LOCAL)
        snprintf(buf, cap, "local %dx%d 1x%d %s", c->wx, c->wy, c->rj, k);
    else if (c->kind == CONV2_COLS)
        snprintf(buf, cap, "cols %dx%d %dx1 %s", c->wx, c->wy, c->ri, k);
    else if (c->kind == CONV2_RBLOCK)
        snprintf(buf, cap, "rblock %dx%dx%d %s", c->ri, c->vw, c->rj, k);
    else if (conv2_cfg_consumers(c))
        snprintf(buf, cap, "tensor %dx%d %s ws%d", c->ri, c->rj, k, conv2_cfg_consumers(c));
    else if (c->kind == CONV2_TENSOR)
        snprintf(buf, cap, "tensor %dx%d %s", c->ri, c->rj, k);
    else
        snprintf(buf, cap, "block %dx%d %dx%d %s", c->wx, c->wy, c->ri, c->rj, k);
}

/* Local memory of a configuration in bytes (0 for global). */
static size_t local_need(const conv2_cfg *c, const conv2_geom *g) {
    const size_t esz = clip_type_size(g->t), mk = g->mk, nk = g->nk;
    const size_t wx = (size_t)c->wx, wy = (size_t)c->wy, ri = (size_t)c->ri, rj = (size_t)c->rj;
    switch (c->kind) {
    case CONV2_LOCAL: {
        /* The run-time-size loop reads whole chunks of rj columns. */
        size_t tw = wy * rj + (c->fixed ? nk - 1 : (nk + rj - 1) / rj * rj);
        return ((wx + mk - 1) * tw + mk * nk) * esz;
    }
    case CONV2_BLOCK:
        return ((wx * ri + mk - 1) * (wy * rj + nk - 1) + mk * nk) * esz;
    case CONV2_COLS:
        return (wx * ri + mk - 1) * wy * esz;
    case CONV2_RBLOCK: /* the padded window of a border group */
        return (ri * (size_t)c->vw + mk - 1) * (rj + nk - 1) * esz;
    default:
        return 0;
    }
}

/* Shrinks a block configuration until its tile fits `avail` bytes: columns per group first, then
 * the register block, keeping 32 work-items down the rows as long as possible. */
static int fit_block(conv2_cfg *c, const conv2_geom *g, size_t avail) {
    while (local_need(c, g) > avail) {
        if (c->wy > 1)
            c->wy /= 2;
        else if (c->rj > 4)
            c->rj /= 2;
        else if (c->ri > 1)
            c->ri--;
        else if (c->wx > 8)
            c->wx /= 2;
        else
            return -1;
    }
    return 0;
}

size_t conv2_tensor_ring(const conv2_geom *g) {
    return g->nk <= 8 ? 8 : g->nk <= 16 ? 16 : 32;
}

size_t conv2_tensor_krp(const conv2_geom *g, int rows) {
    return (g->mk + (size_t)rows / 64 - 1 + 7) / 8 * 8;
}

int conv2_tensor_ss(const conv2_geom *g) {
    /* Experiment hook: CLIP_CONV2_TC_SS=0 or 1 chooses. */
    const char *e = getenv("CLIP_CONV2_TC_SS");
    if (e && (*e == '0' || *e == '1')) return *e == '1';
    /* H200 8192^2 (bench/CONV2.md, "third round"): 47x47 4.92 ms against 6.13 from registers,
     * 63x63 6.42 against 6.79; 31x31 1.80 against 1.73, 15x15 1.07 against 0.66. */
    return conv2_tensor_ring(g) == 32 && g->mk > 32;
}

/* Bytes of the tensor kernel's local arrays (conv2_tensor.cl): gs, the filter's two parts of
 * krp x 2 * ring * s words; xs, cw staged columns of rows + krp values, two parts (with the
 * operand read from local memory, 64 + (krp - 4) / s rows of 4 taps a column); ys, cw output
 * columns of `rows` values; with that operand raw, the fetch of the next cw columns (in rounds
 * of 128 values); a flag. */
static size_t tensor_local(const conv2_geom *g, int rows, size_t cw) {
    const size_t ring = conv2_tensor_ring(g), s = (size_t)rows / 64,
                 krp = conv2_tensor_krp(g, rows), h = (size_t)rows + krp;
    const int ss = conv2_tensor_ss(g);
    const size_t col = ss ? 4 * (64 + (krp - 4) / s) : h, raw = ss ? (h * cw + 127) / 128 * 128 : 0;
    return 4 * (2 * krp * 2 * ring * s + 2 * cw * col + cw * (size_t)rows + raw + 1);
}

int conv2_cfg_consumers(const conv2_cfg *c) {
    return c->kind == CONV2_TENSOR && c->wx > 128 ? c->wx / 128 - 1 : 0;
}

/* The same for configuration c, whose second form (TC_WS: conv2_cfg_consumers of c->ri rows
 * each) holds two stages of xs, its columns shared by the consumers, and of ys for each; and the
 * transaction barriers. */
static size_t tensor_cfg_local(const conv2_geom *g, const conv2_cfg *c) {
    const size_t cw = conv2_tensor_cw(g, c->ri), rows = (size_t)c->ri;
    const size_t ws = (size_t)conv2_cfg_consumers(c), ring = conv2_tensor_ring(g), s = rows / 64;
    if (!ws) return tensor_local(g, c->ri, cw);
    const size_t krp = conv2_tensor_krp(g, c->ri);
    return 4 * (2 * krp * 2 * ring * s + 2 * 2 * cw * (ws * rows + krp) + ws * 2 * cw * rows + 1) +
           8 * 8;
}

size_t conv2_tensor_cw(const conv2_geom *g, int rows) {
    const int ss = conv2_tensor_ss(g);
    if ((rows != 64 && rows != 128) || conv2_tensor_krp(g, rows) > TENSOR_MAX_ROWS) return 0;
    const size_t ring = conv2_tensor_ring(g);
    size_t cw = ring < 1024 / (size_t)rows ? ring : 1024 / (size_t)rows;
    /* A ring of 16 staged whole in rows in pairs, one staging a turn: H100 8192^2 15x15 0.546 ms
     * against 0.580 in two parts of 8 (bench/CONV2.md, seventh round) */
    if (ring == 16 && rows == 128) cw = 16;
    if (ss && cw > 4) cw = 4;
    while (cw > 4 && tensor_local(g, rows, cw) > TENSOR_LOCAL_PICK)
        cw /= 2;
    /* Experiment hook: CLIP_CONV2_TC_CW=4, 8 or 16 chooses where the ring takes it. */
    const char *e = getenv("CLIP_CONV2_TC_CW");
    if (e && (atoi(e) == 4 || atoi(e) == 8 || atoi(e) == 16) && (size_t)atoi(e) <= ring &&
        (size_t)atoi(e) * 8 >= ring)
        cw = (size_t)atoi(e);
    return ring * (size_t)rows / 64 <= 64 && tensor_local(g, rows, cw) <= TENSOR_LOCAL ? cw : 0;
}

int conv2_tensor_ws(const conv2_geom *g, int rows) {
    /* The second form takes A from registers, whole steps, one column block and an even number
     * of staged parts a ring turn. */
    const size_t ring = conv2_tensor_ring(g), cw = conv2_tensor_cw(g, rows);
    if (conv2_tensor_ss(g) || conv2_tensor_krp(g, rows) > 32 || g->nk > ring || !cw ||
        ring / cw % 2)
        return 0;
    /* Experiment hook: CLIP_CONV2_TC_WS=2 or 3 consumers (0: none). */
    const char *e = getenv("CLIP_CONV2_TC_WS");
    if (e && (*e >= '0' && *e <= '3' && *e != '1')) return *e - '0';
    /* H100 8192^2 (bench/CONV2.md, fourth round): 31x31 1.336 ms against 1.668, 21x21 1.148
     * against 1.280; 4096^2 31x31 0.355 against 0.529. With a ring of 16 the second form is the
     * slower (15x15 0.779 against 0.583: ptxas serializes its wgmma, C7512; in pairs,
     * conv2_tensor_pairs, it does not, and it still takes 0.716: seventh round), and three
     * consumers would need 128 registers. */
    return ring == 32 && rows == 128 ? 2 : 0;
}

int conv2_cfg_spans(const conv2_geom *g, const conv2_cfg *c) {
    if (c->kind != CONV2_TENSOR) return 0;
    if (conv2_cfg_consumers(c)) return 1;
    /* Experiment hook: CLIP_CONV2_TC_SPANS=0 or 1 chooses for the first form. */
    const char *e = getenv("CLIP_CONV2_TC_SPANS");
    if (e && (*e == '0' || *e == '1')) return *e == '1';
    /* H100 8192^2 (bench/CONV2.md, sixth round): 63x63 5.49 ms against 6.31 in groups of 256
     * columns, 47x47 4.45 against 4.97; 15x15 0.638 against 0.590 (ring of 16: the walk's
     * halo is a sixteenth of it, and the spanned loop spills more) */
    return conv2_tensor_ss(g);
}

size_t conv2_tensor_places(const conv2_geom *g, const conv2_cfg *c, size_t units) {
    if (conv2_cfg_consumers(c)) return units;
    /* As many work-groups a compute unit as registers and local memory allow (228 KB a
     * Hopper compute unit, 1 KB of it reserved for each work-group) */
    const int regs = conv2_tensor_maxnreg(g, c->ri);
    size_t by_regs = 65536 / (128 * (size_t)(regs ? regs : 232));
    const size_t by_local = 233472 / (tensor_cfg_local(g, c) + 1024);
    if (by_regs > by_local) by_regs = by_local;
    return (by_regs ? by_regs : 1) * units;
}

size_t conv2_tensor_spans(const conv2_geom *g, const conv2_cfg *c, size_t units, size_t *span) {
    const size_t rows = conv2_cfg_band_rows(c);
    const size_t bands = (g->mo + rows - 1) / rows, cols = bands * g->no;
    const size_t slices = g->slices ? g->slices : 1, rj = (size_t)c->rj;
    const double ring = (double)conv2_tensor_ring(g);
    /* One span a compute unit (one work-group each) over all slices, each at least rj long; a
     * span that crosses a band's end walks a second ring, and the work-group that does so
     * sets the launch's time */
    size_t n = units / slices;
    if (n > cols / rj) n = cols / rj;
    if (n < 1) n = 1;
    const size_t free_span = (cols + n - 1) / n;
    const int crosses = conv2_span_crosses(free_span, g->no);
    const double free_walk = (double)free_span + (crosses ? 2.5 : 1) * ring;
    /* Or whole bands split evenly into k pieces each, fewer work-groups but no crossing. H100
     * (bench/CONV2.md, fifth round): 4096^2 31x31 0.306 ms in 128 pieces of 512 columns
     * against 0.333 in 132 spans of 497; 8192^2 1.137 in 128 pieces of 2048 against 1.120 in
     * 132 spans of 1986. */
    size_t k = units / (slices * bands);
    if (k > g->no / rj) k = g->no / rj;
    if (k >= 1 && g->no % k == 0 && (double)(g->no / k) + ring <= free_walk) {
        *span = g->no / k;
        return bands * k;
    }
    *span = free_span;
    return (cols + free_span - 1) / free_span;
}

int conv2_tensor_ws_regs(int ws, int split[2]) {
    /* Every warp starts with the work-group's share of the register file (64K registers), in
     * multiples of 8 as setmaxnreg takes them */
    const int launch = 65536 / (128 * (ws + 1)) / 8 * 8;
    /* No split by default. ptxas honours one (the consumers' code then reaches register 229 at
     * a split of 40 and 232), but the producer's fetch needs about 136 without spills, which
     * leaves the consumers 184, and a consumer that overlaps two steps' products (TC_PIPE) is
     * still serialized (C7512) at 232. H200 8192^2 (bench/CONV2.md, fifth round, before the
     * spans): 31x31 1.251 ms at 136/184 against 1.271 without, 21x21 1.105 against 1.089; 2.07
     * and 2.32 at 40/232.
     * Experiment hook: CLIP_CONV2_TC_WSREGS=P, the producer's registers (0: no split). */
    const char *e = getenv("CLIP_CONV2_TC_WSREGS");
    int producer = e ? atoi(e) / 8 * 8 : 0;
    if (producer < 24 || producer >= launch) producer = 0;
    const int consumer = producer ? ((ws + 1) * launch - producer) / ws / 8 * 8 : 0;
    split[0] = producer, split[1] = consumer > 256 ? 256 : consumer;
    return launch;
}

int conv2_tensor_maxnreg(const conv2_geom *g, int rows) {
    /* ptxas's register count decides how many groups share a compute unit, and more groups
     * overlap their waits better, up to where spills cost more (H200 8192^2, bench/CONV2.md):
     * rows in pairs, 15x15 0.67 ms at 128 registers against 0.73 unlimited (146), 31x31 1.75
     * at 168 against 1.79 (199), 21x21 1.48 at 168, 1.72 at 128. Filters past 32 rows take a
     * step's taps in two halves (tensor_options; H100: 47x47 6.15 ms at 168, 7.36 at 255, 8.26
     * at 128; 63x63 6.92 at 255, 7.05 at 168, 7.35 at 128; whole steps: 47x47 7.54 at 255,
     * 63x63 7.12 at 96). The kernel with its operand in local memory (conv2_tensor_ss, H200):
     * 47x47 4.92 at 168, 5.25 unlimited (ptxas 255), 5.93 at 200; 63x63 6.42 unlimited, 6.64 at
     * 232, 6.84 at 168. */
    const size_t krp = conv2_tensor_krp(g, rows);
    if (conv2_tensor_ss(g)) return krp <= 48 ? 168 : 0;
    return rows == 128 ? (krp <= 16 ? 128 : 168) : krp > 56 ? 255 : krp > 32 ? 168 : 0;
}

const char *conv2_tensor_unavailable(clip_process *p, const conv2_geom *g) {
    if (g->t != CLIP_F32) return "it takes f32 data (other types: variant block)";
    if (g->mk > TENSOR_MAX_ROWS) return "it takes filters of at most 64 rows (use variant block)";
    if (clip_gemm_tc_arch(p) != 90)
        return "it needs wgmma, on an NVIDIA GPU of compute capability 9.0 (use variant block)";
    return NULL;
}

int conv2_tensor_pairs(const conv2_geom *g, const conv2_cfg *c) {
    if (c->kind != CONV2_TENSOR || conv2_tensor_ss(g) || conv2_tensor_krp(g, c->ri) > 32 ||
        g->nk >= conv2_tensor_ring(g))
        return 0;
    /* Experiment hook: CLIP_CONV2_TC_PAIRS=0 or 1 chooses. */
    const char *e = getenv("CLIP_CONV2_TC_PAIRS");
    if (e && (*e == '0' || *e == '1')) return *e == '1';
    /* H100 8192^2 (bench/CONV2.md, seventh round): second form 31x31 1.090 ms against 1.122,
     * 21x21 0.958 against 0.989; first form 7x7 0.331 against 0.396; but 15x15 (first form,
     * ring of 16) 0.661 against 0.583, the pair's fragments spilled at 128 registers */
    return conv2_cfg_consumers(c) || conv2_tensor_ring(g) == 8;
}

/* The tensor kernel's options: its ring and rows (conv2_tensor_ring, conv2_tensor_krp) and a
 * group's columns. */
static void tensor_options(const conv2_geom *g, const conv2_cfg *c, char *opts, size_t cap) {
    const size_t ring = conv2_tensor_ring(g), krp = conv2_tensor_krp(g, c->ri);
    const int ws = conv2_cfg_consumers(c);
    int maxnreg = conv2_tensor_maxnreg(g, c->ri), wsregs[2] = {0, 0};
    char extra[192] = "";
    if (ws) maxnreg = conv2_tensor_ws_regs(ws, wsregs);
    /* With the registers moved, ptxas takes the launch's count from the work-group's size and
     * one work-group a compute unit: a .maxnreg would hold the consumers to it as well */
    if (wsregs[0])
        snprintf(extra, sizeof extra, " -DCLIP_SM90A_MINCTAS=1");
    else if (maxnreg)
        snprintf(extra, sizeof extra, " -DCLIP_SM90A_MAXNREG=%d", maxnreg);
    /* The second form: a producer warpgroup beside its consumers (conv2_tensor_ws), the
     * registers moved from the one to the others */
    if (ws)
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " -DTC_WS=1 -DTC_WSC=%d", ws);
    if (wsregs[0])
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra),
                 " -DTC_WSREGS_P=%d -DTC_WSREGS_C=%d", wsregs[0], wsregs[1]);
    /* A group's columns (TJ) where the kernel walks groups; spans are its arguments */
    if (!conv2_cfg_spans(g, c))
        snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " -DTJ=%d", c->rj);
    else if (!ws)
        strcat(extra, " -DTC_SPANS=1");
    /* Two steps a wait where the filter leaves a ring column free (conv2_tensor_pairs) */
    if (conv2_tensor_pairs(g, c)) strcat(extra, " -DTC_PAIRS=1");
    /* The operand in local memory (conv2_tensor_ss) holds no fragments in registers; with them,
     * past 32 taps a step multiplies its taps in two halves, each loaded after the one before is
     * done: half the fragments live (conv2_tensor.cl, TC_HALVES). */
    if (conv2_tensor_ss(g))
        strcat(extra, " -DTC_SS=1");
    else if (krp > 32)
        strcat(extra, " -DTC_HALVES=1");
    snprintf(opts, cap,
             "-DKERNEL=%d -DPAD=%d -DKR=%zu -DKC=%zu -DTC_N=%zu -DTC_S=%d -DTC_KRP=%zu -DTC_CW=%zu "
             "-DCLIP_SM90A%s",
             c->kind, g->pad, g->mk, g->nk, ring, c->ri / 64, krp, conv2_tensor_cw(g, c->ri),
             extra);
    /* Experiment hook: more -D options (a -DCLIP_SM90A_MAXNREG=N there replaces the limit). */
    clip_proc_options_from_env(opts, cap, "CLIP_CONV2_DEFS");
}

double conv2_block_shrink(clip_process *p, const conv2_geom *g, const conv2_cfg *c) {
    conv2_cfg f = *c;
    if (fit_block(&f, g, (size_t)clip_proc_device(p)->local_mem)) return 0;
    return (double)(f.wx * f.wy * f.ri * f.rj) / (double)(c->wx * c->wy * c->ri * c->rj);
}

clip_status conv2_direct_build(clip_process *p, const conv2_geom *g, conv2_cfg *cfg, int forced,
                               int normalize, int skipz, conv2_pass *ps) {
    const clip_device_info *dev = clip_proc_device(p);
    conv2_cfg c = *cfg;
    const char *name = c.kind == CONV2_LOCAL    ? "conv2_local"
                       : c.kind == CONV2_GLOBAL ? "conv2_global"
                       : c.kind == CONV2_BLOCK  ? "conv2_block"
                       : c.kind == CONV2_RBLOCK ? "conv2_rblock"
                       : c.kind == CONV2_TENSOR ? "conv2_tensor"
                                                : "conv2_cols";
    const char *no_tensor = c.kind == CONV2_TENSOR ? conv2_tensor_unavailable(p, g) : NULL;
    if (no_tensor) {
        if (!forced) return CLIP_ERR_UNSUPPORTED;
        return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED, "variant tensor on device '%s': %s",
                              dev->name, no_tensor);
    }
    while ((size_t)(c.wx * c.wy) > dev->max_work_group && c.wy > 1)
        c.wy /= 2;
    while ((size_t)(c.wx * c.wy) > dev->max_work_group && c.wx > 1)
        c.wx /= 2;
    if (c.kind == CONV2_BLOCK && fit_block(&c, g, (size_t)dev->local_mem)) {
        if (!forced) return CLIP_ERR_UNSUPPORTED;
        return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED,
                              "variant block: a %zux%zu filter's tile does not fit %llu bytes of "
                              "local memory (use variant global, fft or auto)",
                              g->mk, g->nk, (unsigned long long)dev->local_mem);
    }
    size_t need = local_need(&c, g);
    if (need > dev->local_mem) {
        if (!forced) return CLIP_ERR_UNSUPPORTED;
        return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED,
                              "variant %s: tile and filter need %zu bytes of local memory, the "
                              "device has %llu (use variant global or auto)",
                              kind_names[c.kind], need, (unsigned long long)dev->local_mem);
    }
    char opts[256];
    int n =
        snprintf(opts, sizeof opts, "-DKERNEL=%d -DPAD=%d -DWX=%d -DWY=%d -DRI=%d -DRJ=%d -DVW=%d",
                 c.kind, g->pad, c.wx, c.wy, c.ri, c.rj, c.vw);
    if (c.fixed)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -DKR=%zu -DKC=%zu", g->mk, g->nk);
    if (c.kind == CONV2_RBLOCK && g->corr) snprintf(opts + n, sizeof opts - (size_t)n, " -DCORR");
    if (c.kind == CONV2_TENSOR) tensor_options(g, &c, opts, sizeof opts);
    clip_status s = clip_proc_kernel(
        p, c.kind == CONV2_TENSOR ? "tensor_core+tf32+conv2+conv2_tensor" : "conv2", g->t, opts,
        name, &ps->kernel);
    /* A driver that held the sm_90a kernels to the 48 KB OpenCL reports would refuse the tensor
     * kernel's larger arrays: auto then takes another variant (as the GEMM falls back). */
    if (s != CLIP_OK && c.kind == CONV2_TENSOR && !forced &&
        tensor_cfg_local(g, &c) > dev->local_mem)
        return CLIP_ERR_UNSUPPORTED;
    if (s != CLIP_OK) return s;
    size_t kwg = 0;
    cl_ulong kmem = 0;
    cl_device_id d = clip_proc_cl_device(p);
    if (clGetKernelWorkGroupInfo(ps->kernel, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg,
                                 NULL) != CL_SUCCESS ||
        clGetKernelWorkGroupInfo(ps->kernel, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof kmem, &kmem,
                                 NULL) != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clGetKernelWorkGroupInfo(%s) failed", name);
    /* No __local argument is set yet, so kmem is the kernel's own use. */
    const size_t wg = (size_t)(c.wx * c.wy);
    const size_t most = c.kind == CONV2_TENSOR ? TENSOR_LOCAL : (size_t)dev->local_mem;
    /* (NVIDIA's driver reports 256 work-items for a kernel of 168 registers that ptxas built
     * for 384: the tensor kernel's second form is held to its local memory only) */
    const int ws = conv2_cfg_consumers(&c);
    if ((wg > kwg && !ws) || need + kmem > most) {
        if (!forced) return CLIP_ERR_UNSUPPORTED;
        return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED,
                              "variant %s: needs a %dx%d work-group and %zu bytes of local memory; "
                              "the kernel allows %zu work-items and %llu bytes",
                              kind_names[c.kind], c.wx, c.wy, need + (size_t)kmem, kwg,
                              (unsigned long long)most);
    }

    size_t rows = (size_t)c.wx, cols = (size_t)(c.wy * c.rj);
    if (c.kind == CONV2_GLOBAL || c.kind == CONV2_RBLOCK) rows *= (size_t)c.vw;
    if (c.kind == CONV2_BLOCK || c.kind == CONV2_COLS || c.kind == CONV2_RBLOCK)
        rows *= (size_t)c.ri;
    if (c.kind == CONV2_COLS) cols = (size_t)c.wy;
    /* a group of the second form: its consumers' rows */
    if (c.kind == CONV2_TENSOR) rows = conv2_cfg_band_rows(&c);
    size_t ngx = (g->mo + rows - 1) / rows, ngy = (g->no + cols - 1) / cols, spans = 0;
    /* A spanned configuration (conv2_cfg_spans) walks spans of band-columns (conv2_tensor.cl,
     * TC_SPAN): ngy is a span's length, and a slice has `spans` of them */
    const int spanned = conv2_cfg_spans(g, &c);
    if (spanned)
        spans = conv2_tensor_spans(g, &c, conv2_tensor_places(g, &c, dev->compute_units), &ngy);
    if (spanned && (ngx * g->no > 0x7fffffff || spans * (size_t)c.wx > 0x7fffffff))
        return clip_proc_fail(
            p, CLIP_ERR_SHAPE,
            "the output (%zu x %zu) is too large for one launch of variant tensor", g->mo, g->no);
    if (!spanned && ngx * ngy > (size_t)0x7fffffff / (g->slices ? g->slices : 1) / (size_t)c.wx)
        return clip_proc_fail(p, CLIP_ERR_SHAPE, "A has too many slices (%zu) for one launch",
                              g->slices);
    const size_t v[13] = {g->ma,         g->na, g->mo, g->no,           g->oi,
                          g->oj,         g->mk, g->nk, (size_t)g->corr, (size_t)normalize,
                          (size_t)skipz, ngx,   ngy};
    for (int i = 0; i < 13; i++)
        ps->ints[i] = (cl_int)v[i];
    ps->scaled = NULL, ps->tcr = NULL, ps->gen = 0;
    if (c.kind == CONV2_TENSOR) {
        const cl_uint zero[16] = {0};
        char opts2[sizeof opts + 16];
        snprintf(opts2, sizeof opts2, "%s -DTC_SCALED=1", opts);
        clip_status s2 = clip_proc_kernel(p, "tensor_core+tf32+tf32_range+conv2+conv2_tensor", g->t,
                                          opts2, name, &ps->scaled);
        if (s2 == CLIP_OK) s2 = clip_proc_temp(p, sizeof zero, &ps->tcr);
        if (s2 == CLIP_OK) s2 = clip_proc_fill(p, ps->tcr, zero, sizeof zero, 0, sizeof zero);
        if (s2 != CLIP_OK) return s2;
    }
    ps->local_bytes = need;
    ps->wg[0] = (size_t)c.wx, ps->wg[1] = (size_t)c.wy;
    ps->global[0] = ngx * ngy * g->slices * (size_t)c.wx;
    ps->global[1] = (size_t)c.wy;
    if (spanned) ps->global[0] = spans * (size_t)c.wx, ps->global[1] = g->slices;
    *cfg = c;
    return CLIP_OK;
}

/* The arguments of direct kernel k of pass ps. */
static clip_status direct_args(clip_process *p, const conv2_pass *ps, cl_kernel k,
                               const cl_mem *bufs, cl_int aoff, cl_mem kinfo, cl_mem gate) {
    const cl_mem gm = ps->gated ? gate : NULL;
    const cl_mem mems[5] = {bufs[ps->src], bufs[ps->filt], bufs[ps->dst], kinfo, gm};
    clip_status s = CLIP_OK;
    cl_uint idx = 0;
    for (int i = 0; i < 5 && s == CLIP_OK; i++)
        s = clip_proc_arg(p, k, idx++, sizeof(cl_mem), &mems[i]);
    for (int i = 0; i < 13 && s == CLIP_OK; i++)
        s = clip_proc_arg(p, k, idx++, sizeof(cl_int), &ps->ints[i]);
    const cl_int off = ps->src == CONV2_BUF_A ? aoff : 0;
    if (s == CLIP_OK) s = clip_proc_arg(p, k, idx++, sizeof off, &off);
    if (s == CLIP_OK && ps->local_bytes) s = clip_proc_arg(p, k, idx++, ps->local_bytes, NULL);
    /* the tensor kernel's passes: tcr and the launch's number */
    if (s == CLIP_OK && ps->scaled) s = clip_proc_arg(p, k, idx++, sizeof(cl_mem), &ps->tcr);
    if (s == CLIP_OK && ps->scaled) s = clip_proc_arg(p, k, idx++, sizeof ps->gen, &ps->gen);
    return s;
}

clip_status conv2_direct_launch(clip_process *p, conv2_pass *ps, const cl_mem *bufs, cl_int aoff,
                                cl_mem kinfo, cl_mem gate) {
    /* The tensor kernel's launches are numbered 1, 2, ... and from 2^32 - 1 on 2 (tf32_range.cl:
     * odd and even take turns): its first pass, then its second (conv2.h). */
    if (ps->scaled) ps->gen = ps->gen == 0xffffffffu ? 2u : ps->gen + 1u;
    clip_status s = direct_args(p, ps, ps->kernel, bufs, aoff, kinfo, gate);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, ps->kernel, 2, ps->global, ps->wg);
    if (!ps->scaled || s != CLIP_OK) return s;
    s = direct_args(p, ps, ps->scaled, bufs, aoff, kinfo, gate);
    return s == CLIP_OK ? clip_proc_enqueue(p, ps->scaled, 2, ps->global, ps->wg) : s;
}
