/* Skinny products (processes/gemm_skinny.c chooses them): C' = X*Y where C' is the product or
 * its transpose, for shapes the tiled GEMM serves badly because one side of C is a handful of
 * rows or columns: a matrix times a vector, a vector times a matrix, and small outputs with a
 * long K. They are memory-bound, so each kernel reads the large operand once, with neighbouring
 * work-items on neighbouring addresses, and splits K over the device when C alone cannot fill
 * it; the chunks' partial products go to a workspace and skinny_sum_* add them in chunk order,
 * so the result never depends on timing.
 *
 * Operands are addressed by element strides, so one kernel serves every operation and the
 * transposed form: X(i, k) is X[offx + i*xsi + k*xsk], Y(k, j) is Y[offy + k*ysk + j*ysj],
 * conjugated as loaded where CONJX / CONJY. A kernel writes its partial product P(i, j) of
 * chunk c at P[offp + c*pstride + i*psi + j*psj]: C itself (with its strides) when K is one chunk,
 * else the workspace.
 *
 *   skinny_rows  (GEMV, X times a few columns): one work-item per row i of C', NB columns of Y
 *                (all of C''s columns, NB <= 8) in registers; X's rows are its contiguous
 *                direction, so a warp reads consecutive elements of each column of X; Y's
 *                entries are the same for the whole work-group (broadcast loads).
 *   skinny_dots  (dot products along K, a few rows of C'): work-items along k; the work-group
 *                owns all MB rows of C' and a block of NB columns, for one chunk of K; Y's
 *                columns are contiguous along K. X is read straight, each lane its k's MB
 *                values (one run of memory when X's columns are contiguous: L1 serves a warp's
 *                MB loads of its neighbouring runs). The lanes' sums then meet in a fixed tree
 *                in local memory.
 *
 * Build options: WG (work-group size, a power of two), NB, MB (skinny_dots), CONJX, CONJY, REAL_X,
 * REAL_Y. Sums accumulate in the element type with fma, as the tiled GEMM does: one lane's terms
 * in k order, then the tree over lanes, then the chunks in order. */
#ifndef WG
#define WG 256
#endif
#ifndef NB
#define NB 1
#endif
#ifndef MB
#define MB 1
#endif
#ifndef CONJX
#define CONJX 0
#endif
#ifndef CONJY
#define CONJY 0
#endif
#ifndef REAL_X
#define REAL_X 0
#endif
#ifndef REAL_Y
#define REAL_Y 0
#endif

#if CLIP_COMPLEX
#define CPX 2
#define LD(p, e) vload2((e), (p))
#define ST(v, p, e) vstore2((v), (e), (p))
/* acc + x*y, with the same two fmas per real lane as the tiled GEMM (x*y = re(y)*x + im(y)*ix).
 * REAL_X or REAL_Y 1: that operand was real before its promotion to complex, and multiplies
 * each part of the other alone, as MATLAB's real*complex (no Inf*0 = NaN from its zero
 * imaginary part). */
inline elem_t sk_madd(elem_t acc, elem_t x, elem_t y) {
#if REAL_Y
    acc.x = fma(x.x, y.x, acc.x);
    acc.y = fma(x.y, y.x, acc.y);
#elif REAL_X
    acc.x = fma(x.x, y.x, acc.x);
    acc.y = fma(x.x, y.y, acc.y);
#else
    acc.x = fma(-x.y, y.y, fma(x.x, y.x, acc.x));
    acc.y = fma(x.x, y.y, fma(x.y, y.x, acc.y));
#endif
    return acc;
}
/* Multiplying by -1 keeps MATLAB's signed zeros (conj(x + 0i) = x - 0i). */
#define SK_CONJ(v) ((elem_t)((v).x, -(v).y))
#else
#define CPX 1
#define LD(p, e) ((p)[e])
#define ST(v, p, e) ((p)[e] = (v))
#define sk_madd(acc, x, y) fma((x), (y), (acc))
#define SK_CONJ(v) (v)
#endif
#if CONJX
#define LDX(p, e) SK_CONJ(LD(p, e))
#else
#define LDX(p, e) LD(p, e)
#endif
#if CONJY
#define LDY(p, e) SK_CONJ(LD(p, e))
#else
#define LDY(p, e) LD(p, e)
#endif

#if CLIP_DOUBLE
#define SK_VEC4 double4
#else
#define SK_VEC4 float4
#endif

/* The arguments every product kernel takes. */
#define SK_OPERANDS                                                                                \
    __global const real_t *restrict X, const long offx, const long xsi, const long xsk,            \
        __global const real_t *restrict Y, const long offy, const long ysk, const long ysj,        \
        __global real_t *restrict P, const long offp, const long psi, const long psj,              \
        const long pstride

/* C'(i, j) for the M rows of C', its NB columns and the chunk of K given by group 1 (kchunk
 * long, the last one shorter). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void skinny_rows(
    const int M, const int K, const int kchunk, SK_OPERANDS) {
    const int i = get_global_id(0), c = get_group_id(1);
    if (i >= M) return;
    /* The last chunk is rounded up and may end past INT_MAX: its end in 64 bits. */
    const int k0 = c * kchunk, k1 = (int)min((long)K, (long)k0 + kchunk);
    elem_t acc[NB];
#pragma unroll
    for (int j = 0; j < NB; j++) acc[j] = 0;
    long xe = offx + (long)i * xsi + (long)k0 * xsk, ye = offy + (long)k0 * ysk;
    int k = k0;
    /* Four loads of X issued before their first use keep four in flight per work-item; the
     * terms still add in k order. */
    for (; k + 4 <= k1; k += 4, xe += 4 * xsk, ye += 4 * ysk) {
        elem_t x[4];
#pragma unroll
        for (int u = 0; u < 4; u++) x[u] = LDX(X, xe + u * xsk);
#pragma unroll
        for (int u = 0; u < 4; u++)
#pragma unroll
            for (int j = 0; j < NB; j++)
                acc[j] = sk_madd(acc[j], x[u], LDY(Y, ye + u * ysk + j * ysj));
    }
    for (; k < k1; k++, xe += xsk, ye += ysk) {
        const elem_t x = LDX(X, xe);
#pragma unroll
        for (int j = 0; j < NB; j++) acc[j] = sk_madd(acc[j], x, LDY(Y, ye + j * ysj));
    }
    const long pe = offp + (long)c * pstride + (long)i * psi;
#pragma unroll
    for (int j = 0; j < NB; j++) ST(acc[j], P, pe + j * psj);
}

/* Local memory of skinny_dots: every lane's sums (MB * NB outputs x WG). Every output at once,
 * so that the accumulators are indexed by compile-time constants only (a run-time index may put
 * a private array off-chip). X is not staged through local memory (it was, when its rows ran
 * across K: two barriers per WG values of k): H100, 16x1e6x16 0.52 -> 0.33 ms with the tree
 * below spread over all lanes (bench/GEMM.md, "Skinny products"). */
#define SK_OUT (MB * NB)
#define SK_LOCAL (SK_OUT * WG)

/* C'(0..MB-1, j0..j0+NB-1) over the chunk of K given by group 1, j0 = NB * group 0. Columns past
 * N are computed on a clamped column and not stored. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void skinny_dots(
    const int N, const int K, const int kchunk, SK_OPERANDS) {
    __local elem_t lm[SK_LOCAL];
    const int t = get_local_id(0), c = get_group_id(1), j0 = get_group_id(0) * NB;
    const int k0 = c * kchunk, k1 = (int)min((long)K, (long)k0 + kchunk); /* as skinny_rows */
    elem_t acc[MB][NB];
    long ycol[NB];
#pragma unroll
    for (int j = 0; j < NB; j++) {
        ycol[j] = offy + (long)min(j0 + j, N - 1) * ysj;
#pragma unroll
        for (int i = 0; i < MB; i++) acc[i][j] = 0;
    }
#if !CLIP_COMPLEX && MB % 4 == 0
    /* X's columns contiguous and 4-aligned: a lane's MB values in MB/4 vector loads (scalar
     * loads of a column put a warp's 32 lanes 4*MB bytes apart MB times over). Uniform. */
    const int xv = xsi == 1 && ((offx | xsk) & 3) == 0;
#endif
    for (int kt = k0; kt < k1; kt += WG) {
        const int k = kt + t;
        elem_t x[MB];
        if (k < k1) {
#if !CLIP_COMPLEX && MB % 4 == 0
            if (xv) {
                __global const SK_VEC4 *xp = (__global const SK_VEC4 *)(X + offx + (long)k * xsk);
#pragma unroll
                for (int i = 0; i < MB / 4; i++) {
                    const SK_VEC4 v = xp[i];
                    x[4 * i] = v.s0, x[4 * i + 1] = v.s1, x[4 * i + 2] = v.s2, x[4 * i + 3] = v.s3;
                }
            } else
#endif
#pragma unroll
            for (int i = 0; i < MB; i++) x[i] = LDX(X, offx + (long)i * xsi + (long)k * xsk);
#pragma unroll
            for (int j = 0; j < NB; j++) {
                const elem_t y = LDY(Y, ycol[j] + (long)k * ysk);
#pragma unroll
                for (int i = 0; i < MB; i++) acc[i][j] = sk_madd(acc[i][j], x[i], y);
            }
        }
    }
    /* The lanes' sums in a fixed tree: at level s (WG/2, ..., 1) lane u's sum of output o takes
     * lane u + s's, u < s. The s * SK_OUT additions of a level are spread over all work-items
     * (consecutive ones on consecutive u while s >= 32: distinct banks), not looped over o by
     * the first s lanes alone (SK_OUT serial additions per level and lane). */
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int j = 0; j < NB; j++)
#pragma unroll
        for (int i = 0; i < MB; i++) lm[(i + j * MB) * WG + t] = acc[i][j];
#pragma unroll
    for (int s = WG / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int q = t; q < s * SK_OUT; q += WG) {
            const int e = q / s * WG + q % s;
            lm[e] += lm[e + s];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int o = t; o < SK_OUT; o += WG) {
        const int i = o % MB, j = o / MB;
        if (j0 + j < N)
            ST(lm[o * WG], P, offp + (long)c * pstride + (long)i * psi + (long)(j0 + j) * psj);
    }
}

/* C'(i, j) = the sum over chunks of the workspace W (C''s M x N, column-major, pstride apart) in
 * chunk order, written at C[offc + i*csi + j*csj]. skinny_sum_items: one output per work-item
 * (many outputs); skinny_sum_tree: one output per work-group, the lanes taking chunks t, t + WG,
 * ... in order and meeting in a fixed tree (few outputs, many chunks). */
__kernel void skinny_sum_items(const int M, const int N, const int chunks, __global const real_t *W,
                               const long pstride, __global real_t *C, const long offc,
                               const long csi, const long csj) {
    const int i = get_global_id(0), j = get_global_id(1);
    if (i >= M || j >= N) return;
    const long w = (long)j * M + i;
    elem_t s = LD(W, w);
    for (int c = 1; c < chunks; c++) s += LD(W, w + (long)c * pstride);
    ST(s, C, offc + (long)i * csi + (long)j * csj);
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1))) void skinny_sum_tree(
    const int M, const int chunks, __global const real_t *W, const long pstride,
    __global real_t *C, const long offc, const long csi, const long csj) {
    __local elem_t lm[WG];
    const int t = get_local_id(0), o = get_group_id(0), i = o % M, j = o / M;
    elem_t s = 0;
    for (int c = t; c < chunks; c += WG) s += LD(W, o + (long)c * pstride);
    lm[t] = s;
    for (int h = WG / 2; h > 0; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (t < h) lm[t] += lm[t + h];
    }
    if (t == 0) ST(lm[0], C, offc + (long)i * csi + (long)j * csj);
}
