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
 * Compile-time options (chosen by processes/conv2.c; one program holds both kernels):
 *   PAD            0 zero, 1 replicate, 2 symmetric, 3 circular (imfilter's boundary options)
 *   LWX, LWY, LR   conv2_local: work-group of LWX work-items down the rows (coalesced) by LWY
 *                  across, each computing LR outputs along its row
 *   GWX, GWY, GR   conv2_global: the same for the global kernel, whose work-items each take
 *   VW             VW consecutive rows as one vector (VW > 1 only for real types)
 *   KR, KC         filter size when small (loops unroll and the branches on l fold away);
 *                  without them the sizes are the run-time arguments kr, kc
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
#define UNROLL _Pragma("unroll")
#else
#define KR_ kr
#define KC_ kc
#define UNROLL
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

/* vec_t: VW consecutive rows of one column. */
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#if VW == 1
typedef elem_t vec_t;
#define VZERO ZERO
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#define VMAC(acc, v, f) MAC(acc, v, f)
#define VDIV(v, s) div_sum(v, s)
#else
#if CLIP_COMPLEX
#error "conv2: vector rows are for real types"
#endif
#if CLIP_DOUBLE
typedef CAT(double, VW) vec_t;
#else
typedef CAT(float, VW) vec_t;
#endif
#define VZERO ((vec_t)0)
#define VLOAD(p) CAT(vload, VW)(0, p)
#define VSTORE(v, p) CAT(vstore, VW)(v, 0, p)
#define VMAC(acc, v, f) ((acc) += (v) * (f))
#define VDIV(v, s) ((v) / (s))
#endif

/* The group's (row block, column block, slice) for blocks of ROWS x COLS outputs: groups are
 * enumerated along dimension 0 only, because some devices cap the number of groups in
 * dimensions 1 and 2 (65535). */
#define GROUP_COORDS(ROWS, COLS)                    \
    int g_ = (int)get_group_id(0);                  \
    const int gx = g_ % ngx;                        \
    g_ /= ngx;                                      \
    const int gy = g_ % ngy;                        \
    const long slice = g_ / ngy;                    \
    const int i0 = gx * (ROWS), j0 = gy * (COLS);   \
    A += slice * (long)ma * na;                     \
    C += slice * (long)mo * no

#define CONV2_ARGS                                                                              \
    __global const elem_t *restrict A, __global const elem_t *restrict K,                      \
        __global elem_t *restrict C, __global const elem_t *restrict ksum, const int ma,        \
        const int na, const int mo, const int no, const int oi, const int oj, const int kr,     \
        const int kc, const int corr, const int normalize, const int ngx, const int ngy

/* The image tile the group needs (its outputs plus the filter's halo) and the filter are staged
 * in local memory once, then each work-item slides along its row: every tile value it loads
 * feeds up to LR accumulators held in registers. Tile loads run down the columns, so
 * consecutive work-items read consecutive addresses. */
__kernel __attribute__((reqd_work_group_size(LWX, LWY, 1))) void conv2_local(
    CONV2_ARGS, __local elem_t *tile) {
    GROUP_COORDS(LWX, LWY * LR);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), lid = ly * LWX + lx;
    const int th = LWX + KR_ - 1, halo = LWY * LR + KC_ - 1, nk = KR_ * KC_;
#ifdef KR
    const int tw = halo;
#else
    /* The chunked loop below reads whole chunks of LR columns past the halo (never using them). */
    const int tw = LWY * LR + (KC_ + LR - 1) / LR * LR;
#endif
    __local elem_t *fl = tile + th * tw;
    const int r0 = i0 + oi - (KR_ - 1), c0 = j0 + oj - (KC_ - 1);
    for (int e = lid; e < th * tw; e += LWX * LWY) {
        const int rr = e % th, cc = e / th;
        const int gr = pad_map(r0 + rr, ma), gc = pad_map(c0 + cc, na);
        tile[e] = (gr < 0 || gc < 0 || cc >= halo) ? ZERO : A[gc * (long)ma + gr];
    }
    /* rot90(K, 2) of a column-major KR x KC array is the array reversed. */
    for (int e = lid; e < nk; e += LWX * LWY) fl[e] = K[corr ? e : nk - 1 - e];
    barrier(CLK_LOCAL_MEM_FENCE);

    elem_t acc[LR];
    _Pragma("unroll") for (int r = 0; r < LR; r++) acc[r] = ZERO;
    __local const elem_t *t = tile + ly * LR * th + lx;
#ifdef KR
    UNROLL for (int k = 0; k < KR_; k++) {
        UNROLL for (int c = 0; c < LR + KC_ - 1; c++) {
            const elem_t v = t[c * th + k];
            _Pragma("unroll") for (int r = 0; r < LR; r++) {
                const int l = c - r;
                if (l >= 0 && l < KC_) MAC(acc[r], v, fl[k + l * KR_]);
            }
        }
    }
#else
    /* Run-time sizes: filter columns in chunks of LR over a window of 2*LR tile values in
     * registers, so LR tile and LR filter loads feed LR*LR multiply-adds. Columns past the
     * filter are skipped, never multiplied by zero (that would turn an Inf into a NaN). */
    for (int k = 0; k < kr; k++) {
        __local const elem_t *row = t + k;
        elem_t w[2 * LR];
        _Pragma("unroll") for (int q = 0; q < LR; q++) w[q] = row[q * th];
        for (int l0 = 0; l0 < kc; l0 += LR) {
            _Pragma("unroll") for (int q = 0; q < LR; q++) w[LR + q] = row[(l0 + LR + q) * th];
            _Pragma("unroll") for (int dl = 0; dl < LR; dl++) {
                if (l0 + dl >= kc) break;
                const elem_t f = fl[k + (l0 + dl) * kr];
                _Pragma("unroll") for (int r = 0; r < LR; r++) MAC(acc[r], w[dl + r], f);
            }
            _Pragma("unroll") for (int q = 0; q < LR; q++) w[q] = w[LR + q];
        }
    }
#endif
    const int i = i0 + lx, jb = j0 + ly * LR;
    if (i >= mo) return;
    const elem_t s = normalize ? ksum[0] : ZERO;
    /* Loops over acc[] unroll fully so that it stays in registers. */
    _Pragma("unroll") for (int r = 0; r < LR; r++)
        if (jb + r < no) C[(jb + r) * (long)mo + i] = normalize ? div_sum(acc[r], s) : acc[r];
}

/* VW rows of column gc of A from row r on (zeros where the column is padding), as one vector
 * load when all of them lie inside A (`inside`), else element by element through the pad map. */
inline vec_t load_rows(__global const elem_t *A, int gc, int r, int ma, int inside) {
    if (gc < 0) return VZERO;
    __global const elem_t *col = A + gc * (long)ma;
    if (inside) return VLOAD(col + r);
    elem_t t[VW];
    for (int q = 0; q < VW; q++) {
        const int gr = pad_map(r + q, ma);
        t[q] = gr < 0 ? ZERO : col[gr];
    }
    return VLOAD(t);
}

/* No staging: each work-item reads its window of A through the caches with the pad mapping, VW
 * rows at a time as one vector where those rows lie inside A, and the filter from global memory
 * (uniform across the group). Used for filters whose tile does not fit local memory, and on
 * CPUs, where local memory is ordinary memory and explicit vectors give the SIMD that PoCL does
 * not get from work-item loops wrapped around inner loops. */
__kernel void conv2_global(CONV2_ARGS) {
    GROUP_COORDS(GWX * VW, GWY * GR);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int i = i0 + lx * VW, jb = j0 + ly * GR;
    if (i >= mo || jb >= no) return;
    const int nk = KR_ * KC_;
#ifdef KR
    /* The filter in correlation orientation, indexed by constants once the loops unroll. */
    elem_t f[KR * KC];
    UNROLL for (int e = 0; e < nk; e++) f[e] = K[corr ? e : nk - 1 - e];
#define FILT(k, l) f[(k) + (l) * KR]
#else
    const int fb = corr ? 0 : nk - 1, fs = corr ? 1 : -1;
#define FILT(k, l) K[fb + fs * ((k) + (l) * kr)]
#endif
    const int rb = i + oi - (KR_ - 1), cb = jb + oj - (KC_ - 1);
    const int inside = rb >= 0 && rb + VW + KR_ - 2 < ma;
    vec_t acc[GR];
    _Pragma("unroll") for (int r = 0; r < GR; r++) acc[r] = VZERO;
#ifdef KR
    UNROLL for (int c = 0; c < GR + KC - 1; c++) {
        const int gc = pad_map(cb + c, na);
        if (gc < 0) continue; /* a zero column adds nothing */
        UNROLL for (int k = 0; k < KR; k++) {
            const vec_t v = load_rows(A, gc, rb + k, ma, inside);
            _Pragma("unroll") for (int r = 0; r < GR; r++) {
                const int l = c - r;
                if (l >= 0 && l < KC) VMAC(acc[r], v, FILT(k, l));
            }
        }
    }
#else
    /* Run-time sizes: as the local kernel, filter columns in chunks of GR over a window of 2*GR
     * vectors in registers. */
    for (int k = 0; k < kr; k++) {
        vec_t w[2 * GR];
        _Pragma("unroll") for (int q = 0; q < GR; q++)
            w[q] = load_rows(A, pad_map(cb + q, na), rb + k, ma, inside);
        for (int l0 = 0; l0 < kc; l0 += GR) {
            _Pragma("unroll") for (int q = 0; q < GR; q++) {
                const int c = l0 + GR + q;
                w[GR + q] = c < GR + kc - 1 ? load_rows(A, pad_map(cb + c, na), rb + k, ma, inside) : VZERO;
            }
            _Pragma("unroll") for (int dl = 0; dl < GR; dl++) {
                if (l0 + dl >= kc) break;
                const elem_t f = FILT(k, l0 + dl);
                _Pragma("unroll") for (int r = 0; r < GR; r++) VMAC(acc[r], w[dl + r], f);
            }
            _Pragma("unroll") for (int q = 0; q < GR; q++) w[q] = w[GR + q];
        }
    }
#endif
    const elem_t s = normalize ? ksum[0] : ZERO;
    _Pragma("unroll") for (int r = 0; r < GR; r++) {
        if (jb + r >= no) break;
        const vec_t o = normalize ? VDIV(acc[r], s) : acc[r];
        __global elem_t *dst = C + (jb + r) * (long)mo + i;
        if (i + VW <= mo) {
            VSTORE(o, dst);
        } else {
            elem_t t[VW];
            VSTORE(o, t);
            for (int q = 0; i + q < mo; q++) dst[q] = t[q];
        }
    }
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
