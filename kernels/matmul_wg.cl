/* SGEMM and CGEMM on Hopper's warpgroup MMA (wgmma, sm_90a), fp32-accurate by 3xTF32, or with
 * the inputs rounded to TF32, BF16 or FP16 (one product, fp32 accumulation): C = alpha*op(A)*op(B)
 * + beta*C, column-major, single precision, real or complex (a complex product runs as a real
 * one of twice the depth and columns: see wg_value). Built after tensor_core.cl with -DCLIP_SM90A
 * (see there), only on devices of compute capability 9.0 (processes/gemm_tc.c).
 *
 * wg_pack first writes both operands once (one launch) into a workspace, split and laid out for
 * wgmma:
 *   - each value x becomes big = x rounded to TF32 and (3xTF32) small = x - big rounded to TF32,
 *     exact TF32 patterns that the tensor cores read without a further rounding of their own;
 *     with WG_HALF (1 bf16, 2 fp16) x rounded to that 16-bit type, one part;
 *   - rows of op(A) (m) and columns of op(B) (n) are cut in tiles of WG_RA and WG_RB, K in slices
 *     of 32 bytes a row (WG_SLICE values), and block (tile, slice) holds each part as K-major core
 *     matrices (8 rows by 16 bytes, 128 contiguous bytes; core (row/8, half of the slice) at
 *     (row/8 * 2 + half) * 128 bytes), zero past the edges. A tile's slices follow each other,
 *     so a work-group's K slab is one contiguous copy.
 * gemm_wg then runs a work-group of WG_M warpgroups over a (64 WG_M) x WG_N tile of C (WG_N 128,
 * or 256 with one part: half the local-memory reads of A per product): each stage of local
 * memory holds WG_KS slices of both operands, filled WG_AHEAD stages ahead by cp.async and
 * work-group barriers, or with WG_PIPE (the defaults) by bulk copies and transaction barriers;
 * each warpgroup multiplies its 64 rows by the WG_N columns with m64nN wgmma straight from local
 * memory (k8 a slice half for TF32, k16 for the 16-bit types). The stages are one static
 * __local array, which the sm_90a build takes past OpenCL's 48 KB (processes/gemm_tc.h,
 * CLIP_GEMM_WG_LOCAL): the defaults hold 128 KB (fp32) and 192 KB (tf32). */
#ifndef WG_HALF
#define WG_HALF 0
#endif
#if WG_HALF
#define WG_VALS 8 /* values of K in 16 bytes, a row of a core matrix */
#else
#define WG_VALS 4
#endif
#define WG_SLICE (2 * WG_VALS) /* values of K in a slice */
#define WG_THREADS (128 * WG_M)
#define WG_RA (64 * WG_M) /* rows of op(A) a work-group takes */
#ifndef WG_N
#define WG_N 128
#endif
#define WG_RB WG_N                        /* columns of op(B): 128, or 256 with one part */
#define WG_BLOCK_A (WG_RA * 8 * WG_PARTS) /* words of one slice of an A tile, all parts */
#define WG_BLOCK_B (WG_RB * 8 * WG_PARTS)
#define WG_STAGE (WG_KS * (WG_BLOCK_A + WG_BLOCK_B))
/* WG_LAG groups of wgmma stay in flight across iterations (1: the tensor cores work through
 * the next barrier), so loads run WG_AHEAD = WG_STAGES - 1 - WG_LAG stages ahead. 3xTF32 adds
 * each stage's sum to the accumulator, so there it is 0. */
#if WG_PARTS == 2 || WG_STAGES < 3
#define WG_LAG 0
#else
#define WG_LAG 1
#endif
#define WG_AHEAD (WG_STAGES - 1 - WG_LAG)
#define WG_ACC (WG_N / 2) /* accumulators a work-item */
/* The one-part product: m64nN wgmma of the precision's type. */
#if WG_N == 256 && WG_HALF == 1
#define WG_MMA tc_wgmma_n256_bf16
#elif WG_N == 256 && WG_HALF == 2
#define WG_MMA tc_wgmma_n256_f16
#elif WG_N == 256
#define WG_MMA tc_wgmma_n256_tf32
#elif WG_HALF == 1
#define WG_MMA tc_wgmma_n128_bf16
#elif WG_HALF == 2
#define WG_MMA tc_wgmma_n128_f16
#else
#define WG_MMA tc_wgmma_n128_tf32
#endif

/* Element (r, k) of the real matrix that wg_pack packs. Real data: op(X) itself, X stored with
 * element (r, k) at X[k*ld + r], or X[r*ld + k] when along_k. Complex data (c32) becomes a real
 * product of twice the depth: op(A)'s row r holds (re, im) of each k in turn (side 0), and op(B)
 * gives two rows per column j, 2j for the real part of C(:, j) and 2j + 1 for the imaginary part
 * (side 1): (re, -im) and (im, re) of each k, so that sum_k of the pairs' products is
 * re(a)re(b) - im(a)im(b) and re(a)im(b) + im(a)re(b). conj negates the stored imaginary parts
 * (a ctranspose). */
inline float wg_value(__global const elem_t *X, const int ld, const int along_k, const int side,
                      const int conj, const int r, const int k) {
#if CLIP_COMPLEX
    const int row = side ? r / 2 : r, q = k / 2, e = k % 2;
    const complex_t v = X[along_k ? (size_t)row * (size_t)ld + q : (size_t)q * (size_t)ld + row];
    const float im = conj ? -v.y : v.y;
    if (!side) return e ? im : v.x;
    return r % 2 ? (e ? v.x : im) : (e ? -im : v.x);
#else
    (void)side, (void)conj;
    return X[along_k ? (size_t)r * (size_t)ld + k : (size_t)k * (size_t)ld + r];
#endif
}

/* The words of the 3xTF32 range rule (tf32.cl) in the workspace from word f_at: a flag for each
 * packed row of op(A) (fa) and each packed row of op(B) (fb: column j of a complex op(B) is packed
 * rows 2j and 2j + 1, flagged alike), and one for each tile of them (fat, fbt). wg_pack writes
 * `stamp` (a number of the call, never 0) where a row holds a value outside the range; other
 * words hold other calls' stamps or anything, so only equality with this call's stamp counts,
 * and nothing has to be cleared. A stale word that equals it by chance only sends correct
 * outputs the slower way. For each flagged row wg_rescale then writes its mode (sa, sb: the
 * shift of its scaling and the count of its listed non-finite entries, or WG_FFMA), their
 * indices along K (la, lb: WG_LIST a row), and the stamp in xat / xbt for a tile that holds a
 * row of mode WG_FFMA (wg_fix's). */
#ifndef WG_LIST
#define WG_LIST 8
#endif
#define WG_FFMA 0xffffffffu /* a mode: the row's outputs are wg_fix's (fp32 FMA) */
#define WG_MODE0 512u       /* a mode: no shift, nothing listed (a row not flagged) */
typedef struct {
    __global uint *fa, *fat, *fb, *fbt, *sa, *sb, *xat, *xbt, *la, *lb;
} wg_range;

inline wg_range wg_flags(__global float *W, const ulong f_at, const int mtiles, const int ntiles) {
    wg_range g;
    const size_t ra = (size_t)mtiles * WG_RA, rb = (size_t)ntiles * WG_RB;
    g.fa = (__global uint *)(W + f_at);
    g.fat = g.fa + ra;
    g.fb = g.fat + mtiles;
    g.fbt = g.fb + rb;
    g.sa = g.fbt + ntiles;
    g.sb = g.sa + ra;
    g.xat = g.sb + rb;
    g.xbt = g.xat + mtiles;
    g.la = g.xbt + ntiles;
    g.lb = g.la + ra * WG_LIST;
    return g;
}

/* A mode's shift and count of listed entries (WG_FFMA aside). */
inline int wg_shift(const uint mode) {
    return (int)(mode & 1023u) - 512;
}
inline int wg_listed(const uint mode) {
    return (int)(mode >> 10);
}

/* Stores a group of 4 split values (big, small) of packed row r, K from k, into W (tiles of
 * `tile` rows, `slices` slices): 16 bytes, a row of a core matrix, each part. */
inline void wg_put_parts(__global float *restrict W, const int tile, const int slices, const int r,
                         const int k, const uint *big, const uint *small) {
    const int rt = r / tile, rr = r % tile, s = k / WG_SLICE, kc = (k % WG_SLICE) / WG_VALS;
    __global uint *blk = (__global uint *)W +
                         ((size_t)rt * (size_t)slices + (size_t)s) * (size_t)(tile * 8 * WG_PARTS);
    const int pos = ((rr / 8) * 2 + kc) * 32 + (rr % 8) * 4;
    vstore4((uint4)(big[0], big[1], big[2], big[3]), 0, blk + pos);
#if WG_PARTS == 2
    vstore4((uint4)(small[0], small[1], small[2], small[3]), 0, blk + tile * 8 + pos);
#else
    (void)small;
#endif
}

/* Packs element group (r, k..k+WG_VALS-1) of the rows x K real matrix of wg_value (mode = side +
 * 2 * conj) into W as described above, tiles of `tile` rows, `slices` slices of K: 16 bytes, a
 * row of a core matrix. Nothing past the packed tiles. */
inline void wg_pack_one(const int r, const int k, const int rows, const int K,
                        __global const elem_t *restrict X, const int ld, const int along_k,
                        const int mode, __global float *restrict W, const int tile,
                        const int slices, __global uint *F, __global uint *FT, const uint stamp) {
    const int rtiles = (rows + tile - 1) / tile;
    if (r >= rtiles * tile || k >= slices * WG_SLICE) return;
    float x[WG_VALS];
    for (int j = 0; j < WG_VALS; j++)
        x[j] = 0.0f;
    if (r < rows) {
#if !CLIP_COMPLEX
        if (along_k && k + WG_VALS <= K) {
            for (int j = 0; j < WG_VALS; j += 4) {
                const float4 v = vload4(0, X + (size_t)r * (size_t)ld + k + j);
                x[j] = v.s0, x[j + 1] = v.s1, x[j + 2] = v.s2, x[j + 3] = v.s3;
            }
        } else
#endif
        {
            for (int j = 0; j < WG_VALS; j++)
                if (k + j < K) x[j] = wg_value(X, ld, along_k, mode & 1, mode >> 1, r, k + j);
        }
    }
    uint big[4], small[4];
#if WG_HALF
    for (int j = 0; j < 4; j++)
        big[j] = WG_HALF == 1 ? tc_pack_bf16(x[2 * j], x[2 * j + 1])
                              : tc_pack_f16(x[2 * j], x[2 * j + 1]);
    (void)F, (void)FT, (void)stamp;
#else
    int outside = 0;
    for (int j = 0; j < 4; j++) {
        tc_split(x[j], &big[j], &small[j]);
        outside |= tf32_outside(x[j]);
    }
    /* A value outside the split's range: the row is wg_rescale's. */
    if (outside) {
        /* Every work-item of a row stores there: a load first spares most of those stores to
         * one word where the whole operand is outside (1.7x the packing's time without). */
        if (F[r] != stamp) F[r] = stamp;
        if (FT[r / tile] != stamp) FT[r / tile] = stamp;
    }
#endif
    wg_put_parts(W, tile, slices, r, k, big, small);
}

/* Packs both operands in one launch (dimension 2: 0 op(A), 1 op(B) at W + b_at), K the packed
 * depth of both. One work-item a row and 16 bytes of a slice; work-groups of 128, laid on each
 * side's storage: an operand stored along K takes 8 rows by 16 work-items along K (a warp reads
 * runs of 4 work-items along K and writes whole core matrices), one stored along its rows 32 rows
 * by 4 (a warp reads 128 contiguous bytes of each K and writes 4 whole core matrices). The grid
 * is 8 x 16 work-groups; dimension 0 a multiple of 64 rows, so the 32 x 4 blocks tile it too. */
__kernel __attribute__((reqd_work_group_size(8, 16, 1))) void
wg_pack(const int K, const int slices, const int rows_a, __global const elem_t *restrict A,
        const ulong offa, const int lda, const int a_along_k, const int mode_a, const int rows_b,
        __global const elem_t *restrict B, const ulong offb, const int ldb, const int b_along_k,
        const int mode_b, __global float *restrict W, const ulong b_at, const ulong f_at,
        const uint stamp) {
    const int side = (int)get_global_id(2);
    const wg_range rg =
        wg_flags(W, f_at, (rows_a + WG_RA - 1) / WG_RA, (rows_b + WG_RB - 1) / WG_RB);
    int r = (int)get_global_id(0), q = (int)get_global_id(1);
    if (!(side ? b_along_k : a_along_k)) {
        const int lid = (int)get_local_id(0) + 8 * (int)get_local_id(1);
        const int nb = (int)get_num_groups(0) / 4; /* blocks of 32 rows */
        const int g = (int)get_group_id(0) + (int)get_num_groups(0) * (int)get_group_id(1);
        r = g % nb * 32 + lid % 32;
        q = g / nb * 4 + lid / 32;
    }
    const int k = WG_VALS * q;
    if (side == 0)
        wg_pack_one(r, k, rows_a, K, A + offa, lda, a_along_k, mode_a, W, WG_RA, slices, rg.fa,
                    rg.fat, stamp);
    else
        wg_pack_one(r, k, rows_b, K, B + offb, ldb, b_along_k, mode_b, W + b_at, WG_RB, slices,
                    rg.fb, rg.fbt, stamp);
}

#if WG_PARTS == 2
/* Notes the values of packed row r (of src, as wg_value reads it) from k0 on, WG_VALS at a time
 * every `step`: the least and largest non-zero finite magnitude into *l and *h, the Inf and NaN
 * entries counted in *cnt and listed in L's row (WG_LIST at most). */
inline void wg_rescale_scan(__global const elem_t *restrict src, const int ld, const int along_k,
                            const int mode, const int r, const int K, const int k0, const int step,
                            uint *l, uint *h, volatile __local uint *cnt, __global uint *L) {
#pragma unroll 2
    for (int k = k0; k < K; k += step) {
        float x[WG_VALS];
        for (int e = 0; e < WG_VALS; e++)
            x[e] = k + e < K ? wg_value(src, ld, along_k, mode & 1, mode >> 1, r, k + e) : 0.0f;
        for (int e = 0; e < WG_VALS; e++) {
            const uint m = tf32_mag(x[e]);
            if (m >= 0x7f800000u) {
                const uint c = atomic_inc(cnt);
                if (c < WG_LIST) L[(size_t)r * WG_LIST + c] = (uint)(k + e);
            } else if (m) {
                *l = min(*l, m), *h = max(*h, m);
            }
        }
    }
}

/* Packs packed row r again, scaled by 2^s (its Inf and NaN as zero), from k0 on, WG_VALS at a time
 * every `step` (W and tile as wg_put_parts's). */
inline void wg_rescale_pack(__global const elem_t *restrict src, const int ld, const int along_k,
                            const int mode, const int r, const int K, const int slices,
                            const int k0, const int step, const int s, __global float *restrict W,
                            const int tile) {
    for (int k = k0; k < slices * WG_SLICE; k += step) {
        uint big[4], small[4];
        for (int e = 0; e < 4; e++) {
            const float x =
                k + e < K ? wg_value(src, ld, along_k, mode & 1, mode >> 1, r, k + e) : 0.0f;
            tc_split(tf32_scaled(x, s), &big[e], &small[e]);
        }
        wg_put_parts(W, tile, slices, r, k, big, small);
    }
}

/* The rows that wg_pack flagged, brought into the range where one power of two does it
 * (tf32.cl, tf32_scale): a work-group takes 8 packed rows of op(A) or op(B) (group b: A's rows
 * 8b.., then B's), returns at once where their tile holds no flag (every group on data in
 * range), and otherwise finds each flagged row's least and largest non-zero finite magnitude and
 * lists its Inf and NaN entries (WG_LIST at most; complex rows list none), writes the row's mode
 * (wg_flags), and packs the row again scaled by 2^s, its Inf and NaN as zero. A row that no shift
 * brings into the range, or that holds more non-finite entries than the list (a complex row:
 * any), keeps its packing and has mode WG_FFMA: its outputs are wg_fix's. Where most of the 8
 * rows are flagged (subnormal operands), the 256 work-items take them 32 a row along K; where at
 * most 2 are (a few rows of Inf, NaN or wide magnitudes), all 256
 * take each flagged row in turn, not one warp of 32 (bench/GEMM.md, "wg_fix by units": 0.027 ms
 * for one row at 4096). Arguments as wg_pack's. */
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
wg_rescale(const int K, const int slices, const int rows_a, __global const elem_t *restrict A,
           const ulong offa, const int lda, const int a_along_k, const int mode_a, const int rows_b,
           __global const elem_t *restrict B, const ulong offb, const int ldb, const int b_along_k,
           const int mode_b, __global float *restrict W, const ulong b_at, const ulong f_at,
           const uint stamp) {
    const int mt = (rows_a + WG_RA - 1) / WG_RA, nt = (rows_b + WG_RB - 1) / WG_RB;
    const wg_range g = wg_flags(W, f_at, mt, nt);
    const int blocks_a = mt * WG_RA / 8, side = (int)get_group_id(0) >= blocks_a;
    const int lid = (int)get_local_id(0);
    const int r0 = ((int)get_group_id(0) - (side ? blocks_a : 0)) * 8;
    const int tile = side ? WG_RB : WG_RA;
    __global uint *F = side ? g.fb : g.fa, *S = side ? g.sb : g.sa, *L = side ? g.lb : g.la;
    __global uint *X = side ? g.xbt : g.xat;
    if ((side ? g.fbt : g.fat)[r0 / tile] != stamp) return;
    __global const elem_t *src = side ? B + offb : A + offa;
    __global float *dst = side ? W + b_at : W;
    const int ld = side ? ldb : lda, along_k = side ? b_along_k : a_along_k;
    const int mode = side ? mode_b : mode_a;
    uint flags = 0; /* the flagged rows of the 8, a bit each */
    for (int j = 0; j < 8; j++)
        flags |= (uint)(F[r0 + j] == stamp) << j;
    const int sparse = popcount(flags) <= 2;
    __local uint lo[8], hi[8], cnt[8];
    __local int shift[8];
    if (lid < 8) lo[lid] = 0xffffffffu, hi[lid] = 0u, cnt[lid] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = sparse ? 0 : lid % 8; j < 8; j += sparse ? 1 : 8) {
        if (!((flags >> j) & 1u)) continue;
        uint l = 0xffffffffu, h = 0u;
        wg_rescale_scan(src, ld, along_k, mode, r0 + j, K, WG_VALS * (sparse ? lid : lid / 8),
                        (sparse ? 256 : 32) * WG_VALS, &l, &h, &cnt[j], L);
        atomic_min(&lo[j], l);
        atomic_max(&hi[j], h);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 8 && (flags >> lid) & 1u) {
        int s;
        const int listable = CLIP_COMPLEX ? cnt[lid] == 0u : cnt[lid] <= WG_LIST;
        const int ok = tf32_scale(lo[lid], hi[lid], &s) && listable;
        S[r0 + lid] = ok ? (uint)(s + 512) | cnt[lid] << 10 : WG_FFMA;
        shift[lid] = ok ? s : 1024;
        if (!ok) X[r0 / tile] = stamp;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = sparse ? 0 : lid % 8; j < 8; j += sparse ? 1 : 8)
        if ((flags >> j) & 1u && shift[j] != 1024)
            wg_rescale_pack(src, ld, along_k, mode, r0 + j, K, slices,
                            WG_VALS * (sparse ? lid : lid / 8), (sparse ? 256 : 32) * WG_VALS,
                            shift[j], dst, tile);
}
#endif

/* op(A)'s element (r, k) and op(B)'s (k, c) from the stored matrices, for the NaN fixup (TRANSA
 * and TRANSB: 0 none, 1 transpose, 2 conjugate transpose). */
#if TRANSA
#define A_AT(r, k) A[(size_t)(r) * (size_t)lda + (k)]
#else
#define A_AT(r, k) A[(size_t)(k) * (size_t)lda + (r)]
#endif
#if TRANSB
#define B_AT(k, c) B[(size_t)(k) * (size_t)ldb + (c)]
#else
#define B_AT(k, c) B[(size_t)(c) * (size_t)ldb + (k)]
#endif
#if CLIP_COMPLEX
inline complex_t wg_conj_if(complex_t v, int c) {
    return c ? (complex_t)(v.x, -v.y) : v;
}
#endif

/* Issues the copies of stage (slices s0 .. s0+WG_KS-1) of tile (tm, tn) into dst. */
inline void wg_load_stage(__local float *dst, __global const float *PA, __global const float *PB,
                          const int tm, const int tn, const int slices, const int s0,
                          const int tid) {
    __global const float *a = PA + ((size_t)tm * (size_t)slices + (size_t)s0) * WG_BLOCK_A;
    __global const float *b = PB + ((size_t)tn * (size_t)slices + (size_t)s0) * WG_BLOCK_B;
    const int n = slices - s0 < WG_KS ? slices - s0 : WG_KS; /* whole slices left */
    for (int c = tid; c < WG_KS * WG_BLOCK_A / 4; c += WG_THREADS)
        tc_cp_async16(dst + 4 * c, a + 4 * c, c < n * WG_BLOCK_A / 4 ? 16u : 0u);
    __local float *db = dst + WG_KS * WG_BLOCK_A;
    for (int c = tid; c < WG_KS * WG_BLOCK_B / 4; c += WG_THREADS)
        tc_cp_async16(db + 4 * c, b + 4 * c, c < n * WG_BLOCK_B / 4 ? 16u : 0u);
}

/* *c = alpha * r + beta * *c, *c not read when beta is 0 (C may hold NaN there). */
inline void wg_put(__global elem_t *c, elem_t r, const elem_t alpha, const elem_t beta) {
#if CLIP_COMPLEX
    /* alpha = 1 leaves r alone: a complex scaling turns an Inf into Inf + NaN*i. */
    if (alpha.x != 1.0f || alpha.y != 0.0f) r = clip_cmul(alpha, r);
    *c = beta.x != 0.0f || beta.y != 0.0f ? r + clip_cmul(beta, *c) : r;
#else
    *c = beta != 0.0f ? alpha * r + beta * *c : alpha * r;
#endif
}

/* The output of a flagged tile's row and column whose modes ma and mb (wg_flags) are not WG_FFMA:
 * the sum v (the finite part, of values scaled by 2^(shift ma + shift mb)) scaled back, plus the
 * terms of the rows' listed Inf and NaN entries (tf32_add_term). *full is set where the sum must
 * be computed whole in fp32 instead: it is NaN (products or sums of values in range that
 * overflow), or Inf where the scaling raised the values (an overflow that the unscaled values
 * need not have). */
inline float wg_unscale(float v, const uint ma, const uint mb, const int row, const int col,
                        __global const elem_t *restrict A, const int lda,
                        __global const elem_t *restrict B, const int ldb, const wg_range g,
                        int *full) {
    const int t = wg_shift(ma) + wg_shift(mb);
    *full = isnan(v) || (t > 0 && isinf(v));
    if (*full) return v;
    v = ldexp(v, -t);
#if !CLIP_COMPLEX
    for (int i = 0; i < wg_listed(ma); i++) {
        const int q = (int)g.la[(size_t)row * WG_LIST + i];
        v = tf32_add_term(v, A_AT(row, q), B_AT(q, col));
    }
    for (int i = 0; i < wg_listed(mb); i++) {
        const int q = (int)g.lb[(size_t)col * WG_LIST + i];
        v = tf32_add_term(v, A_AT(row, q), B_AT(q, col));
    }
#endif
    return v;
}

/* Writes accumulators e and e + 1 (e even) of work-item tid of tile (tm, tn), v0 and v1, to C:
 * alpha * v + beta * C, NaN outputs recomputed in fp32 from A and B. When `flagged` (the tile's
 * rows or columns hold a value outside the 3xTF32 range), outputs of rows and columns of mode
 * WG_FFMA are left to wg_fix, and those of scaled rows and columns are wg_unscale's. */
inline void wg_store2(const int e, const float v0, const float v1, const int tm, const int tn,
                      const int tid, const int M, const int N, const int K, const elem_t alpha,
                      const elem_t beta, __global const elem_t *restrict A, const int lda,
                      __global const elem_t *restrict B, const int ldb, __global elem_t *C,
                      const int ldc, const int flagged, const wg_range g, const uint stamp) {
    const int wg = tid / 128, w = (tid % 128) / 32, lane = tid % 32, gr = lane / 4, t = lane % 4;
    const int row = tm * WG_RA + wg * 64 + 16 * w + gr + 8 * ((e % 4) / 2);
    const int col0 = tn * WG_RB + 2 * t + 8 * (e / 4);
#if CLIP_COMPLEX
    /* Columns 2j and 2j + 1 of the real product are C(:, j)'s real and imaginary parts. */
    const int col = col0 / 2;
    if (row >= M || col >= N) return;
    complex_t r = (complex_t)(v0, v1);
    int full = isnan(r.x) || isnan(r.y);
    if (flagged) {
        const uint ma = g.fa[row] == stamp ? g.sa[row] : WG_MODE0;
        const uint mb = g.fb[col0] == stamp ? g.sb[col0] : WG_MODE0;
        if (ma == WG_FFMA || mb == WG_FFMA) return; /* wg_fix's */
        int f0, f1;
        r.x = wg_unscale(v0, ma, mb, row, col0, A, lda, B, ldb, g, &f0);
        r.y = wg_unscale(v1, ma, mb, row, col0 + 1, A, lda, B, ldb, g, &f1);
        full = f0 || f1;
    }
    if (full) {
        r = (complex_t)(0.0f);
        for (int q = 0; q < K; q++) {
            const complex_t x = wg_conj_if(A_AT(row, q), TRANSA == 2);
            const complex_t y = wg_conj_if(B_AT(q, col), TRANSB == 2);
            r.x = fma(x.x, y.x, fma(-x.y, y.y, r.x));
            r.y = fma(x.x, y.y, fma(x.y, y.x, r.y));
        }
    }
    wg_put(C + (size_t)col * (size_t)ldc + row, r, alpha, beta);
#else
    if (row >= M) return;
    const uint ma = flagged && g.fa[row] == stamp ? g.sa[row] : WG_MODE0;
    for (int h = 0; h < 2; h++) {
        const int col = col0 + h;
        if (col >= N) return;
        float r = h ? v1 : v0;
        /* NaN: with 3xTF32 only from products or sums of values in range that overflow; with one
         * part also a NaN or infinite operand, or a rounding past the range (FLT_MAX in TF32 or
         * BF16, 65504 in FP16). Recomputed in fp32. */
        int full = isnan(r);
        if (flagged) {
            const uint mb = g.fb[col] == stamp ? g.sb[col] : WG_MODE0;
            if (ma == WG_FFMA || mb == WG_FFMA) continue; /* wg_fix's */
            if (ma != WG_MODE0 || mb != WG_MODE0)
                r = wg_unscale(r, ma, mb, row, col, A, lda, B, ldb, g, &full);
        }
        if (full) {
            r = 0.0f;
            for (int q = 0; q < K; q++)
                r = fma(A_AT(row, q), B_AT(q, col), r);
        }
        wg_put(C + (size_t)col * (size_t)ldc + row, r, alpha, beta);
    }
#endif
}

/* The schedule of a grid of mtiles x ntiles tiles, `stages` stages of K each (split: the tail).
 * The first dp_tiles tiles in column-major order (tile t at row t % mtiles, column t /
 * mtiles) run whole, one work-group each: those of whole columns in groups of 8 tile rows,
 * column by column inside, for L2 reuse. The tail_tiles that follow (less than a wave) are each
 * split along K into `splits` runs of whole stages, one work-group each, that write their sums
 * to the partial workspace; gemm_wg_reduce adds them in order and writes C. Every element's sum
 * depends only on whether its tile is in the tail, so a band of columns that keeps the tail
 * tiles and splits gets the whole's bits (processes/matmul.c). */
inline void wg_schedule(const int b, const int mtiles, const int dp_tiles, const int tail_tiles,
                        const int splits, const int stages, int *tm, int *tn, int *first, int *last,
                        int *split_at) {
    *first = 0, *last = stages, *split_at = -1;
    int tile = b;
    const int whole_cols = dp_tiles / mtiles;
    if (b < whole_cols * mtiles) {
        const int per_group = 8 * whole_cols, top = b / per_group * 8;
        const int grows = mtiles - top < 8 ? mtiles - top : 8;
        *tm = top + (b % per_group) % grows, *tn = (b % per_group) / grows;
        return;
    }
    if (b >= dp_tiles) {
        const int u = b - dp_tiles, c = u / tail_tiles;
        tile = dp_tiles + u % tail_tiles;
        *first = (int)((long)c * stages / splits), *last = (int)((long)(c + 1) * stages / splits);
        *split_at = (u % tail_tiles) * splits + c;
    }
    *tm = tile % mtiles, *tn = tile / mtiles;
}

/* Work-group b of the schedule above (dp_tiles + tail_tiles * splits of them). PA is the packed
 * workspace (op(B) at boff); split work-groups write WG_THREADS * WG_ACC floats each from
 * PW + poff (the same workspace past the packing; element e of work-item tid at e * WG_THREADS +
 * tid). */
/* Issues and commits the wgmma of the stage at `stage` for warpgroup wg: per slice, 3xTF32's
 * three products into the stage sum `part`, or one product into acc. */
inline void wg_stage_mma(float *acc, float *part, __local const float *stage, const int wg) {
    __local const float *sa = stage + wg * 64 * 8;
    __local const float *sb = stage + WG_KS * WG_BLOCK_A;
    tc_wg_fence();
#pragma unroll
    for (int q = 0; q < WG_KS; q++) {
        /* K-adjacent core matrices 128 bytes apart, row-adjacent 256. */
        const ulong abig = tc_wg_desc(sa + q * WG_BLOCK_A, 128, 256);
        const ulong bbig = tc_wg_desc(sb + q * WG_BLOCK_B, 128, 256);
#if WG_PARTS == 2
        const ulong asmall = tc_wg_desc(sa + q * WG_BLOCK_A + WG_RA * 8, 128, 256);
        const ulong bsmall = tc_wg_desc(sb + q * WG_BLOCK_B + WG_RB * 8, 128, 256);
        /* The small products first, while the sum is small: the tensor cores add into it
         * truncating. The stage's sum starts from zero and joins acc by a rounded fp32
         * addition (wg_add_part), so that truncation stays relative to a few products. */
        tc_wgmma_n128_tf32(part, asmall, bbig, q > 0);
        tc_wgmma_n128_tf32(part, abig, bsmall, 1);
        tc_wgmma_n128_tf32(part, abig, bbig, 1);
#else
        (void)part;
        WG_MMA(acc, abig, bbig, 1);
#endif
    }
    tc_wg_commit();
}

/* 3xTF32: the finished stage's sum joins the accumulators (after its wgmma have completed). */
inline void wg_add_part(float *acc, const float *part) {
#if WG_PARTS == 2
#pragma unroll
    for (int e = 0; e < WG_ACC; e++)
        acc[e] += part[e];
#else
    (void)acc, (void)part;
#endif
}

#ifndef WG_PIPE
#define WG_PIPE 0
#endif
#if WG_PIPE
/* WG_PIPE (a set's `pipe`, on in the one-part defaults: bench/GEMM.md, "Bulk-copy pipeline" and
 * "Past 48 KB"): stages move by bulk copies that work-item 0
 * issues, each reported to the stage's `full` barrier; the warpgroups wait there, multiply, and
 * arrive at the stage's `empty` barrier once their wgmma have read it, which work-item 0 waits
 * for before refilling it: no work-group barrier in the loop. Every stage is whole (the host
 * packs whole stages, zero past the depth). The one-part kernels keep one stage's wgmma in
 * flight (WG_PIPE_LAG 1) and release the stage before it; 3xTF32 adds each stage's sum, so
 * there a stage is released once its own wgmma are done. */
#if WG_PARTS == 2
#define WG_PIPE_LAG 0
#else
#define WG_PIPE_LAG 1
#endif
inline void wg_bulk_stage(__local float *dst, __global const float *PA, __global const float *PB,
                          const int tm, const int tn, const int slices, const int s0,
                          __local ulong *full) {
    __global const float *a = PA + ((size_t)tm * (size_t)slices + (size_t)s0) * WG_BLOCK_A;
    __global const float *b = PB + ((size_t)tn * (size_t)slices + (size_t)s0) * WG_BLOCK_B;
    tc_mbar_arrive_tx(full, WG_STAGE * 4);
    tc_bulk_copy(dst, a, WG_KS * WG_BLOCK_A * 4, full);
    tc_bulk_copy(dst + WG_KS * WG_BLOCK_A, b, WG_KS * WG_BLOCK_B * 4, full);
}

/* Stage j's wgmma are complete in this work-item's warpgroup: arrive at its `empty` barrier;
 * once everyone has, work-item 0 refills its buffer with stage j + WG_STAGES. Everyone waits,
 * not work-item 0 alone: its warp's next wgmma (.sync.aligned) must not find it still spinning
 * here, and the warpgroup's next product waits for the refill's issue anyway. */
inline void wg_pipe_release(const int j, const int nst, __local ulong *bars, __local float *st_all,
                            __global const float *PA, __global const float *PB, const int tm,
                            const int tn, const int slices, const int first, const int tid) {
    __local ulong *empty = &bars[WG_STAGES + j % WG_STAGES];
    tc_mbar_arrive(empty);
    if (j + WG_STAGES >= nst) return;
    tc_mbar_wait(empty, (uint)(j / WG_STAGES));
    if (tid == 0)
        wg_bulk_stage(st_all + (j % WG_STAGES) * WG_STAGE, PA, PB, tm, tn, slices,
                      (first + j + WG_STAGES) * WG_KS, &bars[j % WG_STAGES]);
}
#endif

__kernel __attribute__((reqd_work_group_size(WG_THREADS, 1, 1))) void
gemm_wg(const int M, const int N, const int K, const elem_t alpha, const elem_t beta,
        __global const elem_t *restrict A, const ulong offa, const int lda,
        __global const elem_t *restrict B, const ulong offb, const int ldb, __global elem_t *C,
        const ulong offc, const int ldc, __global const float *restrict PA, const ulong boff,
        const int mtiles, const int ntiles, const int slices, const int dp_tiles,
        const int tail_tiles, const int splits, __global float *restrict PW, const ulong poff,
        const ulong f_at, const uint stamp) {
    __global const float *PB = PA + boff;
    __global float *PART = PW + poff;
    __local float st_all[WG_STAGES * WG_STAGE] __attribute__((aligned(128)));
    (void)ntiles;
    A += offa;
    B += offb;
    C += offc;
    int tm, tn, first, last, split_at;
    wg_schedule((int)get_group_id(0), mtiles, dp_tiles, tail_tiles, splits,
                (slices + WG_KS - 1) / WG_KS, &tm, &tn, &first, &last, &split_at);
    const int tid = (int)get_local_id(0), wg = tid / 128;

    float acc[WG_ACC];
#pragma unroll
    for (int i = 0; i < WG_ACC; i++)
        acc[i] = 0.0f;
#if WG_PARTS == 2
    float part[WG_ACC];
#pragma unroll
    for (int i = 0; i < WG_ACC; i++)
        part[i] = 0.0f;
#else
    float part[1] = {0.0f}; /* no stage sum: the helpers leave it alone */
#endif
#if WG_PIPE
    __local ulong bars[2 * WG_STAGES] __attribute__((aligned(8))); /* full, then empty */
    const int nst = last - first;
    if (tid == 0) {
        for (int s = 0; s < WG_STAGES; s++) {
            tc_mbar_init(&bars[s], 1);
            tc_mbar_init(&bars[WG_STAGES + s], WG_THREADS);
        }
        tc_mbar_init_fence();
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid == 0)
        for (int s = 0; s < WG_STAGES && s < nst; s++)
            wg_bulk_stage(st_all + s * WG_STAGE, PA, PB, tm, tn, slices, (first + s) * WG_KS,
                          &bars[s]);
    for (int i = 0; i < nst; i++) {
        tc_mbar_wait(&bars[i % WG_STAGES], (uint)(i / WG_STAGES));
        wg_stage_mma(acc, part, st_all + (i % WG_STAGES) * WG_STAGE, wg);
        TC_WG_WAIT(WG_PIPE_LAG);
        wg_add_part(acc, part);
        if (i >= WG_PIPE_LAG)
            wg_pipe_release(i - WG_PIPE_LAG, nst, bars, st_all, PA, PB, tm, tn, slices, first, tid);
    }
#else
    for (int s = 0; s < WG_AHEAD; s++) {
        if (first + s < last)
            wg_load_stage(st_all + s * WG_STAGE, PA, PB, tm, tn, slices, (first + s) * WG_KS, tid);
        tc_cp_commit();
    }
    for (int i = 0; i < last - first; i++) {
        TC_CP_WAIT(WG_AHEAD - 1);
        tc_fence_async_local();
        /* Stage i has landed; the buffer of stage i - 1 - WG_LAG is free: every warpgroup has
         * waited for its wgmma before this barrier. */
        barrier(CLK_LOCAL_MEM_FENCE);
        const int next = i + WG_AHEAD;
        if (first + next < last)
            wg_load_stage(st_all + (next % WG_STAGES) * WG_STAGE, PA, PB, tm, tn, slices,
                          (first + next) * WG_KS, tid);
        tc_cp_commit();

        wg_stage_mma(acc, part, st_all + (i % WG_STAGES) * WG_STAGE, wg);
        TC_WG_WAIT(WG_LAG);
        wg_add_part(acc, part);
    }
#endif
    TC_WG_WAIT(0);
    TC_CP_WAIT(0);
    if (split_at >= 0) {
        __global float *dst = PART + (size_t)split_at * (WG_THREADS * WG_ACC) + tid;
#pragma unroll
        for (int e = 0; e < WG_ACC; e++)
            dst[e * WG_THREADS] = acc[e];
        return;
    }
    const wg_range g = wg_flags(PW, f_at, mtiles, ntiles);
    if (WG_PARTS == 1 || (g.fat[tm] != stamp && g.fbt[tn] != stamp)) {
#pragma unroll
        for (int e = 0; e < WG_ACC; e += 2)
            wg_store2(e, acc[e], acc[e + 1], tm, tn, tid, M, N, K, alpha, beta, A, lda, B, ldb, C,
                      ldc, 0, g, stamp);
    } else {
        /* A flagged tile: one copy of the longer path, not unrolled into the kernel 32 times
         * (bench/GEMM.md, "Scaled rows"), the accumulators through an array it indexes. */
        float t[WG_ACC];
#pragma unroll
        for (int e = 0; e < WG_ACC; e++)
            t[e] = acc[e];
#pragma unroll 4
        for (int e = 0; e < WG_ACC; e += 2)
            wg_store2(e, t[e], t[e + 1], tm, tn, tid, M, N, K, alpha, beta, A, lda, B, ldb, C, ldc,
                      1, g, stamp);
    }
}

/* The split tail of gemm_wg: work-group (r, e/2) sums accumulators e and e + 1 of tail tile r's
 * `splits` partial sums in order, for each work-item of gemm_wg's work-group, and writes them to
 * C (a work-item a pair, so that every compute unit has work; arguments as gemm_wg's). */
__kernel __attribute__((reqd_work_group_size(WG_THREADS, 1, 1))) void
gemm_wg_reduce(const int M, const int N, const int K, const elem_t alpha, const elem_t beta,
               __global const elem_t *restrict A, const ulong offa, const int lda,
               __global const elem_t *restrict B, const ulong offb, const int ldb,
               __global elem_t *C, const ulong offc, const int ldc,
               __global const float *restrict PA, const ulong boff, const int mtiles,
               const int ntiles, const int slices, const int dp_tiles, const int tail_tiles,
               const int splits, __global float *restrict PW, const ulong poff, const ulong f_at,
               const uint stamp) {
    (void)PA, (void)boff, (void)slices, (void)tail_tiles;
    const int r = (int)get_group_id(0), tid = (int)get_local_id(0), tile = dp_tiles + r;
    const int e = 2 * (int)get_global_id(1);
    __global const float *src = PW + poff + (size_t)r * (size_t)splits * (WG_THREADS * WG_ACC) +
                                (size_t)e * WG_THREADS + tid;
    float v0 = src[0], v1 = src[WG_THREADS];
    for (int c = 1; c < splits; c++) {
        v0 += src[(size_t)c * (WG_THREADS * WG_ACC)];
        v1 += src[(size_t)c * (WG_THREADS * WG_ACC) + WG_THREADS];
    }
    const wg_range g = wg_flags(PW, f_at, mtiles, ntiles);
    const int tm = tile % mtiles, tn = tile / mtiles;
    const int flagged = WG_PARTS == 2 && (g.fat[tm] == stamp || g.fbt[tn] == stamp);
    wg_store2(e, v0, v1, tm, tn, tid, M, N, K, alpha, beta, A + offa, lda, B + offb, ldb, C + offc,
              ldc, flagged, g, stamp);
}

/* ---- Outputs outside the 3xTF32 range ---------------------------------------------------------
 * Outputs of the rows of op(A) and columns of op(B) of mode WG_FFMA (wg_rescale: no shift holds
 * them, or more Inf/NaN than it lists) are computed here in plain fp32 FMA, so they get fp32
 * FMA's accuracy and IEEE's Inf and NaN, by one launch of wg_fix after gemm_wg. The work is cut
 * in units spread over every work-group: a row unit is a tile of op(A) rows that holds such rows
 * (xat) and a block of WG_FIX_B columns of C, for the outputs of those rows there; a column unit a
 * tile of op(B) that holds such columns (xbt) and a block of WG_FIX_B rows of C, for the outputs
 * of those columns there but in rows that a row unit takes. A unit's outputs are computed
 * WG_FIX_B rows (gathered flagged rows, or the block's) by WG_FIX_B columns at a time, every
 * work-item summing every WG_FIX_T-th term of K and the work-group adding their sums. So one
 * flagged row (16 NaN, or 2^-140 beside 2^100) is N / WG_FIX_B units across the device, each
 * walking K once for its outputs: 0.048 ms at 4096^3 on the H200, 0.145 at 8192^3. Before, a
 * warp walked K for each 8x8 block of a flagged tile (8x the work for one flagged row, on the few
 * work-groups of its tiles: 0.77 and 2.98 ms; bench/GEMM.md, "wg_fix by units"). Work-groups
 * find the flagged tiles by chunks of WG_FIX_T tile flags: data in range costs each a load and a
 * ballot (0.006 ms). */
#if CLIP_COMPLEX
#define WG_FIX_B 4
#define WG_FB(F, col) (F)[2 * (col)]
#define WG_OPA(r, q) wg_conj_if(A_AT(r, q), TRANSA == 2)
#define WG_OPB(q, c) wg_conj_if(B_AT(q, c), TRANSB == 2)
#define WG_FIX_V (2 * WG_FIX_B * WG_FIX_B) /* floats of a work-item's sums */
#else
#define WG_FIX_B 8
#define WG_FB(F, col) (F)[col]
#define WG_OPA(r, q) A_AT(r, q)
#define WG_OPB(q, c) B_AT(q, c)
#define WG_FIX_V (WG_FIX_B * WG_FIX_B)
#endif
#define WG_FIX_T 256 /* work-items of wg_fix */
#define WG_FIX_W (WG_FIX_T / 32)
#if WG_RA > WG_FIX_T || WG_RB > WG_FIX_T
#error "wg_fix gathers a tile's flagged rows with one work-item a row"
#endif

/* One step of wg_warp_sums: of the h pairs (v[i], v[i + h]) a lane keeps one half (the upper
 * where lane & o) and adds the same half of lane ^ o. Both halves are sent, so that the choice is
 * between two sums in registers, never between two elements of v (a select of addresses would
 * put v in memory). */
#define WG_HALVE(v, lane, o, h)                                                                    \
    do {                                                                                           \
        const int up_ = (lane) & (o);                                                              \
        _Pragma("unroll") for (int i_ = 0; i_ < (h); i_++) {                                       \
            const float lo_ = (v)[i_] + tc_shfl_xor((v)[i_], (o));                                 \
            const float hi_ = (v)[i_ + (h)] + tc_shfl_xor((v)[i_ + (h)], (o));                     \
            (v)[i_] = up_ ? hi_ : lo_;                                                             \
        }                                                                                          \
    } while (0)

/* Each of the WG_FIX_V values summed over the warp, in 2 (WG_FIX_V - 2) shuffles (not 5 a
 * value): every step halves the values a lane holds; then lane l holds the sums of values
 * l * V/32 .. l * V/32 + V/32 - 1 (V = WG_FIX_V) in v[0 .. V/32 - 1]. Every sum is the same tree
 * of fp32 additions over the lanes. */
inline void wg_warp_sums(float *v, const int lane) {
    WG_HALVE(v, lane, 16, WG_FIX_V / 2);
    WG_HALVE(v, lane, 8, WG_FIX_V / 4);
    WG_HALVE(v, lane, 4, WG_FIX_V / 8);
    WG_HALVE(v, lane, 2, WG_FIX_V / 16);
    WG_HALVE(v, lane, 1, WG_FIX_V / 32);
}

/* The work-items whose `flag` is set write `value` to list[], in the order of their ids; returns
 * their count, in every work-item. counts holds WG_FIX_W words. Ends after a barrier, so list is
 * whole; its readers must pass a barrier before list is written again. */
inline int wg_compact(const int flag, const int value, __local int *list, __local int *counts) {
    const int lid = (int)get_local_id(0), lane = lid % 32, warp = lid / 32;
    const uint bits = tc_ballot(flag);
    if (lane == 0) counts[warp] = (int)popcount(bits);
    barrier(CLK_LOCAL_MEM_FENCE);
    int before = 0, total = 0;
    for (int w = 0; w < WG_FIX_W; w++) {
        before += w < warp ? counts[w] : 0;
        total += counts[w];
    }
    if (flag) list[before + (int)popcount(bits & ((1u << lane) - 1u))] = value;
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
}

/* Whether row r of op(A) has mode WG_FFMA (its outputs are a row unit's). */
inline int wg_ffma_row(const wg_range g, const int r, const uint stamp) {
    return g.fa[r] == stamp && g.sa[r] == WG_FFMA;
}

/* The rows (side 0) or columns (side 1) of mode WG_FFMA of tile `tile` of op(A) or op(B), into
 * lines (wg_compact); returns their count. */
inline int wg_fix_lines(const int side, const int tile, const int M, const int N, const wg_range g,
                        const uint stamp, __local int *lines, __local int *counts) {
    const int lid = (int)get_local_id(0);
    const int span = side ? WG_RB / (CLIP_COMPLEX ? 2 : 1) : WG_RA, e = tile * span + lid;
    int f = 0;
    if (lid < span)
        f = side ? e < N && WG_FB(g.fb, e) == stamp && WG_FB(g.sb, e) == WG_FFMA
                 : e < M && wg_ffma_row(g, e, stamp);
    return wg_compact(f, e, lines, counts);
}

#ifndef WG_FIX_UNROLL
#define WG_FIX_UNROLL 4 /* steps along K whose loads are issued together */
#endif

/* Unit `sub` of a tile of `side` (0: a row unit, 1: a column unit; see above) whose nl rows
 * (columns) of mode WG_FFMA are in `lines`: their outputs in the unit's WG_FIX_B columns (rows) of
 * C, WG_FIX_B lines at a time. */
inline void wg_fix_unit(const int side, const int nl, const int sub, const int M, const int N,
                        const int K, const elem_t alpha, const elem_t beta,
                        __global const elem_t *restrict A, const int lda,
                        __global const elem_t *restrict B, const int ldb, __global elem_t *C,
                        const int ldc, const wg_range g, const uint stamp, __local const int *lines,
                        __local float *sums) {
    const int lid = (int)get_local_id(0), lane = lid % 32, warp = lid / 32;
    const int o0 = sub * WG_FIX_B;
/* Row (column) i of a group of WG_FIX_B: the unit's own, or the list's from l0; -1 for none (past
 * the edge or the list). */
#define WG_FIX_OWN(i, n) (o0 + (i) < (n) ? o0 + (i) : -1)
#define WG_FIX_LISTED(i) (l0 + (i) < nl ? lines[l0 + (i)] : -1)
    for (int l0 = 0; l0 < nl; l0 += WG_FIX_B) {
        /* Indexed by constants only (unrolled), so that they stay in registers. */
        int rows[WG_FIX_B], cols[WG_FIX_B];
#pragma unroll
        for (int i = 0; i < WG_FIX_B; i++) {
            rows[i] = side ? WG_FIX_OWN(i, M) : WG_FIX_LISTED(i);
            cols[i] = side ? WG_FIX_LISTED(i) : WG_FIX_OWN(i, N);
        }
        float v[WG_FIX_V];
#pragma unroll
        for (int i = 0; i < WG_FIX_V; i++)
            v[i] = 0.0f;
        _Pragma(TC_STR(unroll WG_FIX_UNROLL)) for (int q = lid; q < K; q += WG_FIX_T) {
            elem_t a[WG_FIX_B], b[WG_FIX_B];
#pragma unroll
            for (int i = 0; i < WG_FIX_B; i++)
                a[i] = rows[i] >= 0 ? WG_OPA(rows[i], q) : (elem_t)(0.0f);
#pragma unroll
            for (int j = 0; j < WG_FIX_B; j++)
                b[j] = cols[j] >= 0 ? WG_OPB(q, cols[j]) : (elem_t)(0.0f);
#pragma unroll
            for (int i = 0; i < WG_FIX_B; i++)
#pragma unroll
                for (int j = 0; j < WG_FIX_B; j++) {
#if CLIP_COMPLEX
                    /* the order of the NaN recomputation in wg_store2 */
                    float *s = v + 2 * (i * WG_FIX_B + j);
                    s[0] = fma(a[i].x, b[j].x, fma(-a[i].y, b[j].y, s[0]));
                    s[1] = fma(a[i].x, b[j].y, fma(a[i].y, b[j].x, s[1]));
#else
                    v[i * WG_FIX_B + j] = fma(a[i], b[j], v[i * WG_FIX_B + j]);
#endif
                }
        }
        wg_warp_sums(v, lane);
#pragma unroll
        for (int i = 0; i < WG_FIX_V / 32; i++)
            sums[warp * WG_FIX_V + lane * (WG_FIX_V / 32) + i] = v[i];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < WG_FIX_B * WG_FIX_B) {
            const int i = lid / WG_FIX_B, j = lid % WG_FIX_B;
            const int r = side ? WG_FIX_OWN(i, M) : WG_FIX_LISTED(i);
            const int c = side ? WG_FIX_LISTED(j) : WG_FIX_OWN(j, N);
            elem_t t = (elem_t)(0.0f);
            for (int w = 0; w < WG_FIX_W; w++) {
#if CLIP_COMPLEX
                t += (complex_t)(sums[w * WG_FIX_V + 2 * lid], sums[w * WG_FIX_V + 2 * lid + 1]);
#else
                t += sums[w * WG_FIX_V + lid];
#endif
            }
            if (r >= 0 && c >= 0 && (!side || !wg_ffma_row(g, r, stamp)))
                wg_put(C + (size_t)c * (size_t)ldc + r, t, alpha, beta);
        }
        barrier(CLK_LOCAL_MEM_FENCE); /* sums read */
    }
#undef WG_FIX_OWN
#undef WG_FIX_LISTED
}

__kernel __attribute__((reqd_work_group_size(WG_FIX_T, 1, 1))) void
wg_fix(const int M, const int N, const int K, const elem_t alpha, const elem_t beta,
       __global const elem_t *restrict A, const ulong offa, const int lda,
       __global const elem_t *restrict B, const ulong offb, const int ldb, __global elem_t *C,
       const ulong offc, const int ldc, __global const float *restrict PA, const ulong boff,
       const int mtiles, const int ntiles, const int slices, const int dp_tiles,
       const int tail_tiles, const int splits, __global float *restrict PW, const ulong poff,
       const ulong f_at, const uint stamp) {
    (void)PA, (void)boff, (void)slices, (void)dp_tiles, (void)tail_tiles, (void)splits, (void)poff;
    const wg_range g = wg_flags(PW, f_at, mtiles, ntiles);
    A += offa, B += offb, C += offc;
    const int lid = (int)get_local_id(0), groups = (int)get_num_groups(0);
    const int me = (int)get_group_id(0);
    __local int tiles[WG_FIX_T], lines[WG_FIX_T], counts[WG_FIX_W];
    __local float sums[WG_FIX_W * WG_FIX_V];
    /* Units are numbered in order over both sides and chunks of tiles; unit u is work-group
     * u % groups's. base: the units before this chunk, modulo groups. A work-group's units of one
     * tile share its lines (held: 2 tile + side of those in `lines`, nl their count). */
    int base = 0, held = -1, nl = 0;
    for (int side = 0; side < 2; side++) {
        const int ntile = side ? ntiles : mtiles;
        const int per = ((side ? M : N) + WG_FIX_B - 1) / WG_FIX_B; /* units a tile */
        __global const uint *X = side ? g.xbt : g.xat;
        for (int t0 = 0; t0 < ntile; t0 += WG_FIX_T) {
            const int t = t0 + lid;
            const long units = (long)wg_compact(t < ntile && X[t] == stamp, t, tiles, counts) * per;
            for (long u = (me - base + groups) % groups; u < units; u += groups) {
                const int tile = tiles[u / per];
                if (2 * tile + side != held) {
                    nl = wg_fix_lines(side, tile, M, N, g, stamp, lines, counts);
                    held = 2 * tile + side;
                }
                wg_fix_unit(side, nl, (int)(u % per), M, N, K, alpha, beta, A, lda, B, ldb, C, ldc,
                            g, stamp, lines, sums);
            }
            base = (int)((base + units) % groups);
            barrier(CLK_LOCAL_MEM_FENCE); /* tiles read */
        }
    }
}
