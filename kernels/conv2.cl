/* conv2: MATLAB conv2(A, K, shape), filter2/imfilter correlation and imfilter's padding, on every
 * 2-D slice of A (column-major: dims[0] = rows, the fastest dimension).
 *
 * Both kernels compute, for output (i, j) of a slice,
 *     C(i, j) = sum_{k, l} Aext(i + oi - (KR-1) + k, j + oj - (KC-1) + l) * F(k, l)
 * where F is K in correlation orientation (K itself when correlating, rot90(K, 2) when
 * convolving), (oi, oj) the offset of the shape inside the full result (full: 0, same:
 * floor(size(K)/2), valid: size(K)-1) and Aext A extended by the padding rule, so one loop serves
 * every shape, pad mode and orientation.
 *
 * Compile-time options (chosen by processes/conv2.c):
 *   PAD      0 zero, 1 replicate, 2 symmetric, 3 circular (imfilter's boundary options)
 *   WX, WY   work-group size: WX work-items down the rows (coalesced), WY across the columns
 *   R        outputs per work-item, along a row: each loaded value feeds up to R accumulators
 *   KR, KC   filter size when small (loops unroll; the branches on l below fold away); without
 *            them the sizes are the run-time arguments kr, kc
 */

#if CLIP_COMPLEX
#define ZERO ((elem_t)(0, 0))
#define MAC(acc, a, b) ((acc) += clip_cmul((a), (b)))
#else
#define ZERO ((elem_t)0)
#define MAC(acc, a, b) ((acc) += (a) * (b))
#endif

#ifdef KR
#define KR_ KR
#define KC_ KC
#else
#define KR_ kr
#define KC_ kc
#endif

/* Where index x of the padded line of length n reads from A, or -1 where the padding is zero
 * (always so for an empty A: there is nothing to replicate or wrap). Init keeps n below 2^30. */
inline int pad_map(int x, int n) {
    if ((uint)x < (uint)n) return x;
#if PAD == 0
    return -1;
#else
    if (n <= 0) return -1;
#if PAD == 1
    return x < 0 ? 0 : n - 1;
#elif PAD == 2
    /* padarray 'symmetric': A mirrored with its edge repeated, period 2n. */
    int y = x % (2 * n);
    if (y < 0) y += 2 * n;
    return y < n ? y : 2 * n - 1 - y;
#else
    int y = x % n;
    return y < 0 ? y + n : y;
#endif
#endif
}

/* v / s with IEEE results for s = 0 (Inf, NaN), as MATLAB's division. A complex s with a zero
 * imaginary part divides both parts by the real s, as MATLAB's division by a real; otherwise
 * Smith's algorithm keeps intermediate values from overflowing. */
inline elem_t div_sum(elem_t v, elem_t s) {
#if CLIP_COMPLEX
    if (s.y == 0) return v / s.x;
    if (fabs(s.x) >= fabs(s.y)) {
        real_t r = s.y / s.x, d = s.x + s.y * r;
        return (elem_t)((v.x + v.y * r) / d, (v.y - v.x * r) / d);
    }
    real_t r = s.x / s.y, d = s.y + s.x * r;
    return (elem_t)((v.x * r + v.y) / d, (v.y * r - v.x) / d);
#else
    return v / s;
#endif
}

/* The group's (row block, column block, slice): work-groups are enumerated along dimension 0
 * only, because some devices cap the number of groups in dimensions 1 and 2 (65535). */
#define GROUP_COORDS                                \
    int g_ = (int)get_group_id(0);                  \
    const int gx = g_ % ngx;                        \
    g_ /= ngx;                                      \
    const int gy = g_ % ngy;                        \
    const long slice = g_ / ngy;                    \
    const int i0 = gx * WX, j0 = gy * (WY * R);     \
    A += slice * (long)ma * na;                     \
    C += slice * (long)mo * no

#define CONV2_ARGS                                                                              \
    __global const elem_t *restrict A, __global const elem_t *restrict K,                      \
        __global elem_t *restrict C, __global const elem_t *restrict ksum, const int ma,        \
        const int na, const int mo, const int no, const int oi, const int oj, const int kr,     \
        const int kc, const int corr, const int normalize, const int ngx, const int ngy

/* Writes a work-item's R results of row i from column jb on. */
#define STORE_RESULTS                                                                  \
    if (i < mo) {                                                                      \
        const elem_t s_ = normalize ? ksum[0] : ZERO;                                  \
        for (int r = 0; r < R; r++) {                                                  \
            const int j = jb + r;                                                      \
            if (j < no) C[j * (long)mo + i] = normalize ? div_sum(acc[r], s_) : acc[r]; \
        }                                                                              \
    }

/* The image tile the group needs (its outputs plus the filter's halo) and the filter are staged
 * in local memory once, then each work-item slides along its row: every tile value it loads
 * feeds up to R accumulators held in registers. */
__kernel __attribute__((reqd_work_group_size(WX, WY, 1))) void conv2_local(
    CONV2_ARGS, __local elem_t *tile) {
    GROUP_COORDS;
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), lid = ly * WX + lx;
    const int th = WX + KR_ - 1, tw = WY * R + KC_ - 1, nk = KR_ * KC_;
    __local elem_t *fl = tile + th * tw;
    const int r0 = i0 + oi - (KR_ - 1), c0 = j0 + oj - (KC_ - 1);
    for (int e = lid; e < th * tw; e += WX * WY) {
        const int rr = e % th, cc = e / th;
        const int gr = pad_map(r0 + rr, ma), gc = pad_map(c0 + cc, na);
        tile[e] = (gr < 0 || gc < 0) ? ZERO : A[gc * (long)ma + gr];
    }
    /* rot90(K, 2) of a column-major KR x KC array is the array reversed. */
    for (int e = lid; e < nk; e += WX * WY) fl[e] = K[corr ? e : nk - 1 - e];
    barrier(CLK_LOCAL_MEM_FENCE);

    elem_t acc[R];
    for (int r = 0; r < R; r++) acc[r] = ZERO;
    __local const elem_t *t = tile + ly * R * th + lx;
    for (int k = 0; k < KR_; k++) {
        for (int c = 0; c < R + KC_ - 1; c++) {
            const elem_t v = t[c * th + k];
            for (int r = 0; r < R; r++) {
                const int l = c - r;
                if (l >= 0 && l < KC_) MAC(acc[r], v, fl[k + l * KR_]);
            }
        }
    }
    const int i = i0 + lx, jb = j0 + ly * R;
    STORE_RESULTS;
}

/* For filters whose tile does not fit local memory: the same sliding row, reading A through the
 * caches with the pad mapping and the filter from global memory (uniform across the group). */
__kernel void conv2_global(CONV2_ARGS) {
    GROUP_COORDS;
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int i = i0 + lx, jb = j0 + ly * R;
    if (i >= mo || jb >= no) return;
    const int nk = KR_ * KC_, fb = corr ? 0 : nk - 1, fs = corr ? 1 : -1;
    const int rb = i + oi - (KR_ - 1), cb = jb + oj - (KC_ - 1);
    elem_t acc[R];
    for (int r = 0; r < R; r++) acc[r] = ZERO;
    for (int k = 0; k < KR_; k++) {
        const int gr = pad_map(rb + k, ma);
        if (gr < 0) continue; /* a zero row adds nothing */
        for (int c = 0; c < R + KC_ - 1; c++) {
            const int gc = pad_map(cb + c, na);
            if (gc < 0) continue;
            const elem_t v = A[gc * (long)ma + gr];
            for (int r = 0; r < R; r++) {
                const int l = c - r;
                if (l >= 0 && l < KC_) MAC(acc[r], v, K[fb + fs * (k + l * KR_)]);
            }
        }
    }
    STORE_RESULTS;
}

/* sum(K(:)) for `normalize`, by one work-group: its input is the filter, which every group of the
 * convolution reads in full anyway, so this is never the expensive part. */
#define KSUM_WG 64
__kernel __attribute__((reqd_work_group_size(KSUM_WG, 1, 1))) void conv2_ksum(
    __global const elem_t *restrict K, __global elem_t *restrict out, const int n) {
    __local elem_t part[KSUM_WG];
    const int lid = (int)get_local_id(0);
    elem_t s = ZERO;
    for (int e = lid; e < n; e += KSUM_WG) s += K[e];
    part[lid] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = KSUM_WG / 2; h > 0; h /= 2) {
        if (lid < h) part[lid] += part[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) out[0] = part[0];
}
