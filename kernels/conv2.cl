/* conv2: MATLAB conv2(A, K, shape), filter2/imfilter correlation and imfilter's padding, on every
 * 2-D slice of A (column-major: dims[0] = rows, the fastest dimension).
 *
 * The direct kernels compute, for output (i, j) of a slice,
 *     C(i, j) = sum_{k, l} Aext(i + oi - (KR-1) + k, j + oj - (KC-1) + l) * F(k, l)
 * where F is K in correlation orientation (K itself when correlating, rot90(K, 2) when
 * convolving), (oi, oj) the offset of the shape inside the full result (full: 0, same:
 * floor(size(K)/2), valid: size(K)-1) and Aext A extended by the padding rule, so one loop serves
 * every shape, pad mode and orientation. The separable path (processes/conv2_sep.c) runs two of
 * them with a column and a row filter; the FFT path (processes/conv2_fft.c) uses the gather,
 * spectrum product and crop kernels at the end of this file.
 *
 * Compile-time options (chosen by processes/conv2*.c; each program holds one kernel, so a build
 * compiles only what it launches):
 *   KERNEL         1 conv2_local, 2 conv2_global, 3 conv2_block, 4 conv2_cols, 5 conv2_kinfo
 *                  and conv2_kinfo_uv, 6 the FFT helpers, 7 conv2_rblock; 8 the tensor kernel,
 *                  which is kernels/conv2_tensor.cl built after this file (its helpers above)
 *   PAD            0 zero, 1 replicate, 2 symmetric, 3 circular (imfilter's boundary options)
 *   WX, WY         work-group: WX work-items down the rows (coalesced) by WY across
 *   RI, RJ         outputs per work-item: RI rows by RJ columns (meaning per kernel below)
 *   VW             conv2_global, conv2_rblock: rows as one vector (VW > 1 only for real types)
 *   CORR           conv2_rblock: correlation orientation compiled in (filter offsets fold into
 *                  the loads)
 *   KR, KC         filter size when compiled in (loops unroll, branches on l fold away, the
 *                  filter sits in registers); without them the sizes are the arguments kr, kc
 *
 * Zero padding and non-finite filters. MATLAB's conv2 sums only where K overlaps A, so an Inf in
 * K never meets the zero padding; multiplying a staged zero by it would give NaN. Where `skipz`
 * says that zero padding can be read and K holds an Inf or NaN, the work-groups (or work-items)
 * whose window reaches into the padding compute their outputs by conv_skip, which loops over the
 * overlap only. Inner tiles, and every tile of a finite K, take the fast path: the check is one
 * uniform branch per group. The local and block kernels scan their staged filter (edge groups
 * only); the global and cols kernels read conv2_kinfo's flag (kinfo[1]).
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

/* aoff: the elements of A's buffer before A's first one (clip_proc_input_view: caller memory
 * read in place though it is not aligned as the device's buffers; 0 elsewhere). kinfo: sum(K(:))
 * then the non-finite flag (conv2_kinfo), or NULL when neither normalize nor skipz needs it. gate: when not NULL, the launch does nothing unless gate[0] is non-zero (the
 * FFT path's exact fallback for non-finite data, decided on the device). Kernels with barriers
 * take these uniform decisions without returning before a barrier (PoCL's work-group compiler
 * corrupts memory on such early returns). */
#define CONV2_ARGS                                                                              \
    __global const elem_t *restrict A, __global const elem_t *restrict K,                      \
        __global elem_t *restrict C, __global const elem_t *restrict kinfo,                    \
        __global const int *restrict gate, const int ma, const int na, const int mo,           \
        const int no, const int oi, const int oj, const int kr, const int kc, const int corr,  \
        const int normalize, const int skipz, const int ngx, const int ngy, const int aoff

#define GATE_OFF (gate && gate[0] == 0)

/* F(k, l) read from K in global memory: rot90(K, 2) of a column-major array is the array
 * reversed. */
#define FGLOBAL(k, l) K[corr ? (k) + (l) * KR_ : KR_ * KC_ - 1 - ((k) + (l) * KR_)]

/* Whether the filter is non-finite and zero padding can be read (global and cols kernels): then
 * windows that reach into the padding go through conv_skip. */
#define SKIP_ACTIVE (PAD == 0 && skipz && kinfo && kinfo_flag(kinfo))

/* Whether the n staged filter values hold an Inf or NaN (local and block kernels: each
 * work-item of a group whose window reaches the zero padding scans them after the barrier; inner
 * groups never do, so a finite K costs them nothing). */
inline int staged_nonfinite(__local const elem_t *f, int n) {
    int bad = 0;
    for (int e = 0; e < n; e++) {
#if CLIP_COMPLEX
        bad |= !isfinite(f[e].x) || !isfinite(f[e].y);
#else
        bad |= !isfinite(f[e]);
#endif
    }
    return bad;
}

inline int kinfo_flag(__global const elem_t *kinfo) {
#if CLIP_COMPLEX
    return kinfo[1].x != 0;
#else
    return kinfo[1] != 0;
#endif
}

/* One output by MATLAB's definition: the sum over the taps where K overlaps A, never touching
 * the zero padding (PAD == 0 only; other pads have no zeros to skip). */
inline elem_t conv_skip(__global const elem_t *A, __global const elem_t *K, int i, int j, int ma,
                        int na, int oi, int oj, int kr, int kc, int corr) {
    const int r = i + oi - (KR_ - 1), c = j + oj - (KC_ - 1);
    const int k0 = max(0, -r), k1 = min(KR_, ma - r), l0 = max(0, -c), l1 = min(KC_, na - c);
    elem_t acc = ZERO;
    for (int l = l0; l < l1; l++)
        for (int k = k0; k < k1; k++) MAC(acc, A[(c + l) * (long)ma + r + k], FGLOBAL(k, l));
    return acc;
}

inline void store_out(__global elem_t *C, int i, int j, int mo, elem_t v, int normalize,
                      __global const elem_t *kinfo) {
    C[j * (long)mo + i] = normalize ? div_sum(v, kinfo[0]) : v;
}

/* Outputs rows i0 + lx + r*rs (r < nr) by columns jb + q (q < nq) through conv_skip. */
#define SKIP_OUTPUTS(IB, RS, NR, JB, NQ)                                                      \
    for (int r_ = 0; r_ < (NR); r_++)                                                         \
        for (int q_ = 0; q_ < (NQ); q_++) {                                                   \
            const int i_ = (IB) + r_ * (RS), j_ = (JB) + q_;                                  \
            if (i_ < mo && j_ < no)                                                           \
                store_out(C, i_, j_, mo, conv_skip(A, K, i_, j_, ma, na, oi, oj, kr, kc, corr), \
                          normalize, kinfo);                                                  \
        }

/* Stages the (th x tw) image window from (r0, c0) of the padded A into `tile` (column-major,
 * leading dimension th), zeros past column `cols`. Consecutive work-items read consecutive rows. */
inline void stage_tile(__local elem_t *tile, __global const elem_t *A, int r0, int c0, int th,
                       int tw, int cols, int ma, int na, int lid, int nthreads) {
    for (int e = lid; e < th * tw; e += nthreads) {
        const int rr = e % th, cc = e / th;
        const int gr = pad_map(r0 + rr, ma), gc = pad_map(c0 + cc, na);
        tile[e] = (gr < 0 || gc < 0 || cc >= cols) ? ZERO : A[gc * (long)ma + gr];
    }
}

#if KERNEL == 1
/* conv2_local: the group's image tile plus halo and the filter are staged in local memory once,
 * then each work-item slides along its row computing RJ outputs: every tile value it loads feeds
 * up to RJ accumulators held in registers. */
__kernel __attribute__((reqd_work_group_size(WX, WY, 1))) void conv2_local(
    CONV2_ARGS, __local elem_t *tile) {
    A += aoff;
    GROUP_COORDS(WX, WY * RJ);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), lid = ly * WX + lx;
    const int th = WX + KR_ - 1, halo = WY * RJ + KC_ - 1, nk = KR_ * KC_;
#ifdef KR
    const int tw = halo;
#else
    /* The chunked loop below reads whole chunks of RJ columns past the halo (never using them). */
    const int tw = WY * RJ + (KC_ + RJ - 1) / RJ * RJ;
#endif
    const int r0 = i0 + oi - (KR_ - 1), c0 = j0 + oj - (KC_ - 1);
    const int off = GATE_OFF;
    __local elem_t *fl = tile + th * tw;
    if (!off) {
        stage_tile(tile, A, r0, c0, th, tw, halo, ma, na, lid, WX * WY);
        for (int e = lid; e < nk; e += WX * WY) fl[e] = K[corr ? e : nk - 1 - e];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (off) return;
    if (PAD == 0 && skipz && (r0 < 0 || r0 + th > ma || c0 < 0 || c0 + halo > na) &&
        staged_nonfinite(fl, nk)) {
        SKIP_OUTPUTS(i0 + lx, 1, 1, j0 + ly * RJ, RJ);
        return;
    }

    elem_t acc[RJ];
    _Pragma("unroll") for (int r = 0; r < RJ; r++) acc[r] = ZERO;
    __local const elem_t *t = tile + ly * RJ * th + lx;
#ifdef KR
    UNROLL for (int k = 0; k < KR_; k++) {
        UNROLL for (int c = 0; c < RJ + KC_ - 1; c++) {
            const elem_t v = t[c * th + k];
            _Pragma("unroll") for (int r = 0; r < RJ; r++) {
                const int l = c - r;
                if (l >= 0 && l < KC_) MAC(acc[r], v, fl[k + l * KR_]);
            }
        }
    }
#else
    /* Run-time sizes: filter columns in chunks of RJ over a window of 2*RJ tile values in
     * registers, so RJ tile and RJ filter loads feed RJ*RJ multiply-adds. Columns past the
     * filter are skipped, never multiplied by zero (that would turn an Inf into a NaN). */
    for (int k = 0; k < kr; k++) {
        __local const elem_t *row = t + k;
        elem_t w[2 * RJ];
        _Pragma("unroll") for (int q = 0; q < RJ; q++) w[q] = row[q * th];
        for (int l0 = 0; l0 < kc; l0 += RJ) {
            _Pragma("unroll") for (int q = 0; q < RJ; q++) w[RJ + q] = row[(l0 + RJ + q) * th];
            _Pragma("unroll") for (int dl = 0; dl < RJ; dl++) {
                if (l0 + dl >= kc) break;
                const elem_t f = fl[k + (l0 + dl) * kr];
                _Pragma("unroll") for (int r = 0; r < RJ; r++) MAC(acc[r], w[dl + r], f);
            }
            _Pragma("unroll") for (int q = 0; q < RJ; q++) w[q] = w[RJ + q];
        }
    }
#endif
    const int i = i0 + lx, jb = j0 + ly * RJ;
    if (i >= mo) return;
    /* Loops over acc[] unroll fully so that it stays in registers. */
    _Pragma("unroll") for (int r = 0; r < RJ; r++)
        if (jb + r < no) store_out(C, i, jb + r, mo, acc[r], normalize, kinfo);
}
#endif

#if KERNEL == 2 || KERNEL == 7
/* vec_t: VW consecutive rows of one column. */
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
typedef CLIP_CAT(CLIP_REAL, VW) vec_t;
#define VZERO ((vec_t)0)
#define VLOAD(p) CLIP_CAT(vload, VW)(0, p)
#define VSTORE(v, p) CLIP_CAT(vstore, VW)(v, 0, p)
#define VMAC(acc, v, f) ((acc) += (v) * (f))
#define VDIV(v, s) ((v) / (s))
#endif

#endif

#if KERNEL == 2
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

/* conv2_global: no staging. Each work-item reads its window of A through the caches with the pad
 * mapping, VW rows at a time as one vector where those rows lie inside A, and the filter from
 * global memory (uniform across the group), computing VW rows by RJ columns. Used for filters
 * whose tile does not fit local memory, and on CPUs, where local memory is ordinary memory and
 * explicit vectors give the SIMD that PoCL does not get from work-item loops wrapped around
 * inner loops. */
__kernel void conv2_global(CONV2_ARGS) {
    A += aoff;
    if (GATE_OFF) return;
    GROUP_COORDS(WX * VW, WY * RJ);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1);
    const int i = i0 + lx * VW, jb = j0 + ly * RJ;
    if (i >= mo || jb >= no) return;
    const int rb = i + oi - (KR_ - 1), cb = jb + oj - (KC_ - 1);
    if (SKIP_ACTIVE && (rb < 0 || rb + VW + KR_ - 1 > ma || cb < 0 || cb + RJ + KC_ - 1 > na)) {
        SKIP_OUTPUTS(i, 1, VW, jb, RJ);
        return;
    }
#ifdef KR
    /* The filter in correlation orientation, indexed by constants once the loops unroll. */
    elem_t f[KR * KC];
    UNROLL for (int e = 0; e < KR * KC; e++) f[e] = K[corr ? e : KR * KC - 1 - e];
#define FILT(k, l) f[(k) + (l) * KR]
#else
#define FILT(k, l) FGLOBAL(k, l)
#endif
    const int inside = rb >= 0 && rb + VW + KR_ - 2 < ma;
    vec_t acc[RJ];
    _Pragma("unroll") for (int r = 0; r < RJ; r++) acc[r] = VZERO;
#ifdef KR
    UNROLL for (int c = 0; c < RJ + KC - 1; c++) {
        const int gc = pad_map(cb + c, na);
        if (gc < 0) continue; /* a zero column adds nothing */
        UNROLL for (int k = 0; k < KR; k++) {
            const vec_t v = load_rows(A, gc, rb + k, ma, inside);
            _Pragma("unroll") for (int r = 0; r < RJ; r++) {
                const int l = c - r;
                if (l >= 0 && l < KC) VMAC(acc[r], v, FILT(k, l));
            }
        }
    }
#else
    /* Run-time sizes: as the local kernel, filter columns in chunks of RJ over a window of 2*RJ
     * vectors in registers. */
    for (int k = 0; k < kr; k++) {
        vec_t w[2 * RJ];
        _Pragma("unroll") for (int q = 0; q < RJ; q++)
            w[q] = load_rows(A, pad_map(cb + q, na), rb + k, ma, inside);
        for (int l0 = 0; l0 < kc; l0 += RJ) {
            _Pragma("unroll") for (int q = 0; q < RJ; q++) {
                const int c = l0 + RJ + q;
                w[RJ + q] = c < RJ + kc - 1 ? load_rows(A, pad_map(cb + c, na), rb + k, ma, inside) : VZERO;
            }
            _Pragma("unroll") for (int dl = 0; dl < RJ; dl++) {
                if (l0 + dl >= kc) break;
                const elem_t f = FILT(k, l0 + dl);
                _Pragma("unroll") for (int r = 0; r < RJ; r++) VMAC(acc[r], w[dl + r], f);
            }
            _Pragma("unroll") for (int q = 0; q < RJ; q++) w[q] = w[RJ + q];
        }
    }
#endif
    const elem_t s = normalize ? kinfo[0] : ZERO;
    _Pragma("unroll") for (int r = 0; r < RJ; r++) {
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
#endif

#if KERNEL == 3
/* conv2_block (GPUs; filter size compiled in): register blocking for large filters. A group
 * computes (WX*RI) x (WY*RJ) outputs from a staged tile; work-item (lx, ly) computes rows
 * lx + r*WX (r < RI) by the RJ consecutive columns from ly*RJ. For each filter row k it holds that
 * row of the filter in registers (KC broadcast loads from local memory), and for each of its RI
 * rows slides along the RJ + KC - 1 tile values of image row (its row + k): each value feeds up
 * to RJ accumulators. Per filter row: RI*RJ*KC multiply-adds for RI*(RJ+KC-1) + KC local loads,
 * e.g. 992 for 123 with RI = 2, RJ = 16, K 31x31. Work-items of a warp read consecutive rows
 * (no bank conflicts) and write consecutive rows (coalesced). */
__kernel __attribute__((reqd_work_group_size(WX, WY, 1))) void conv2_block(
    CONV2_ARGS, __local elem_t *tile) {
    A += aoff;
    GROUP_COORDS(WX * RI, WY * RJ);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), lid = ly * WX + lx;
    const int th = WX * RI + KR - 1, tw = WY * RJ + KC - 1;
    const int r0 = i0 + oi - (KR - 1), c0 = j0 + oj - (KC - 1);
    const int off = GATE_OFF;
    __local elem_t *ft = tile + th * tw; /* the filter row-major: row k is contiguous */
    if (!off) {
        stage_tile(tile, A, r0, c0, th, tw, tw, ma, na, lid, WX * WY);
        for (int e = lid; e < KR * KC; e += WX * WY) {
            const int k = e / KC, l = e % KC;
            ft[e] = FGLOBAL(k, l);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (off) return;
    if (PAD == 0 && skipz && (r0 < 0 || r0 + th > ma || c0 < 0 || c0 + tw > na) &&
        staged_nonfinite(ft, KR * KC)) {
        SKIP_OUTPUTS(i0 + lx, WX, RI, j0 + ly * RJ, RJ);
        return;
    }

    elem_t acc[RI][RJ];
    _Pragma("unroll") for (int r = 0; r < RI; r++)
        _Pragma("unroll") for (int q = 0; q < RJ; q++) acc[r][q] = ZERO;
    __local const elem_t *t = tile + lx + ly * RJ * th;
    /* The filter-row loop stays rolled: its body is already RI*RJ*KC multiply-adds. */
    _Pragma("unroll 1") for (int k = 0; k < KR; k++) {
        elem_t f[KC];
        _Pragma("unroll") for (int l = 0; l < KC; l++) f[l] = ft[k * KC + l];
        _Pragma("unroll") for (int r = 0; r < RI; r++) {
            __local const elem_t *row = t + r * WX + k;
            _Pragma("unroll") for (int m = 0; m < RJ + KC - 1; m++) {
                const elem_t v = row[m * th];
                _Pragma("unroll") for (int q = 0; q < RJ; q++) {
                    const int l = m - q;
                    if (l >= 0 && l < KC) MAC(acc[r][q], v, f[l]);
                }
            }
        }
    }
    const int jb = j0 + ly * RJ;
    _Pragma("unroll") for (int r = 0; r < RI; r++) {
        const int i = i0 + lx + r * WX;
        _Pragma("unroll") for (int q = 0; q < RJ; q++)
            if (i < mo && jb + q < no) store_out(C, i, jb + q, mo, acc[r][q], normalize, kinfo);
    }
}
#endif

#if KERNEL == 4
/* conv2_cols (GPUs; KR compiled in, KC = 1): the column pass of the separable path, a filter
 * along dims[0]. Work-item lx of column ly computes the RI consecutive rows from lx*RI, sliding
 * over RI + KR - 1 staged values: RI*KR multiply-adds for RI + KR - 1 local loads. RI is odd, so
 * the stride-RI reads of a warp hit 32 different banks. The results go back through local memory
 * so that the stores coalesce. */
__kernel __attribute__((reqd_work_group_size(WX, WY, 1))) void conv2_cols(
    CONV2_ARGS, __local elem_t *tile) {
    A += aoff;
    GROUP_COORDS(WX * RI, WY);
    const int lx = (int)get_local_id(0), ly = (int)get_local_id(1), lid = ly * WX + lx;
    const int th = WX * RI + KR - 1;
    const int r0 = i0 + oi - (KR - 1), c0 = j0 + oj;
    const int off = GATE_OFF;
    const int slow = !off && SKIP_ACTIVE && (r0 < 0 || r0 + th > ma); /* never: finite factors */
    const int fast = !off && !slow;
    if (fast) stage_tile(tile, A, r0, c0, th, WY, WY, ma, na, lid, WX * WY);
    barrier(CLK_LOCAL_MEM_FENCE);
    elem_t acc[RI];
    __local elem_t *t = tile + ly * th + lx * RI;
    if (fast) {
        elem_t f[KR];
        _Pragma("unroll") for (int k = 0; k < KR; k++) f[k] = FGLOBAL(k, 0);
        _Pragma("unroll") for (int r = 0; r < RI; r++) acc[r] = ZERO;
        _Pragma("unroll") for (int m = 0; m < RI + KR - 1; m++) {
            const elem_t v = t[m];
            _Pragma("unroll") for (int r = 0; r < RI; r++) {
                const int k = m - r;
                if (k >= 0 && k < KR) MAC(acc[r], v, f[k]);
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (fast) _Pragma("unroll") for (int r = 0; r < RI; r++) t[r] = acc[r];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (off) return;
    if (slow) {
        SKIP_OUTPUTS(i0 + lx * RI, 1, RI, j0 + ly, 1);
        return;
    }
    const int j = j0 + ly;
    if (j >= no) return;
    for (int r = lx; r < WX * RI; r += WX)
        if (i0 + r < mo) store_out(C, i0 + r, j, mo, tile[ly * th + r], normalize, kinfo);
}
#endif

#if KERNEL == 7
/* conv2_rblock (CPUs; filter size and orientation compiled in): register blocks for medium and
 * large filters. One work-item per group (PoCL runs a group on one thread; explicit vectors give
 * the SIMD) computes RI vectors of VW consecutive rows by RJ consecutive columns, RI*RJ vector
 * accumulators that stay in registers (AVX-512: 32 of them). For each filter row k (a rolled loop)
 * it streams the RJ + KC - 1 input columns of its window once: each column's RI vectors (rows
 * r + k ...) are loaded once and feed every accumulator whose filter tap l = c - q lies in
 * [0, KC), the filter value broadcast from K (its offset is a constant once the loops unroll).
 * Per filter row: RI*RJ*KC vector multiply-adds for RI*(RJ+KC-1) vector loads and RJ*KC
 * broadcasts, e.g. 744 for 84 and 372 with RI = 2, RJ = 12, K 31x31. Each output is one direct
 * sum in a fixed order, as the other direct kernels (the elementwise accuracy contract).
 * Groups whose window lies inside A read it in place; the others (borders, partial blocks)
 * first copy their padded window into local memory (one work-item, no barrier) and run the same
 * loop on it, so the padding costs nothing inside the image. */
#ifdef CORR
#define FROW(k) (K + (k))
#define FSTEP KR
#else
#define FROW(k) (K + (KR * KC - 1 - (k)))
#define FSTEP (-KR)
#endif

/* acc[v][q] += the window of SRC (leading dimension LD, row and column 0 at the window's origin)
 * times the filter. */
#define RB_SUM(SRC, LD)                                                                          \
    _Pragma("unroll 1") for (int k = 0; k < KR; k++) {                                          \
        __global const elem_t *fk = FROW(k);                                                     \
        _Pragma("unroll") for (int c = 0; c < RJ + KC - 1; c++) {                               \
            vec_t a_[RI];                                                                        \
            _Pragma("unroll") for (int v = 0; v < RI; v++) a_[v] =                              \
                VLOAD((SRC) + k + c * (LD) + v * VW);                                            \
            _Pragma("unroll") for (int q = 0; q < RJ; q++) {                                    \
                const int l = c - q;                                                             \
                if (l >= 0 && l < KC) {                                                          \
                    const elem_t f_ = fk[l * FSTEP];                                             \
                    _Pragma("unroll") for (int v = 0; v < RI; v++) VMAC(acc[v][q], a_[v], f_);  \
                }                                                                                \
            }                                                                                    \
        }                                                                                        \
    }

__kernel __attribute__((reqd_work_group_size(1, 1, 1))) void conv2_rblock(
    CONV2_ARGS, __local elem_t *tile) {
    A += aoff;
    if (GATE_OFF) return;
    GROUP_COORDS(RI * VW, RJ);
    const int th = RI * VW + KR - 1, tw = RJ + KC - 1;
    const int rb = i0 + oi - (KR - 1), cb = j0 + oj - (KC - 1);
    /* Every output past mo or no reads past A too, so inner groups store without checks. */
    const int edge = rb < 0 || rb + th > ma || cb < 0 || cb + tw > na;
    if (edge && SKIP_ACTIVE) {
        SKIP_OUTPUTS(i0, 1, RI * VW, j0, RJ);
        return;
    }
    vec_t acc[RI][RJ];
    _Pragma("unroll") for (int v = 0; v < RI; v++)
        _Pragma("unroll") for (int q = 0; q < RJ; q++) acc[v][q] = VZERO;
    if (edge) {
        /* The padded window, column by column. Rows [lo, hi) lie inside A and are copied as
         * they lie (a loop the compiler vectorizes); only the rows past A's edges are mapped,
         * one pad_map each: the top and bottom groups of a 'same' 2048^2 7x7 spent 11% of its
         * time here when every row was mapped. */
        const int lo = min(max(-rb, 0), th), hi = max(min(ma - rb, th), lo);
        for (int cc = 0; cc < tw; cc++) {
            const int gc = pad_map(cb + cc, na);
            __local elem_t *dst = tile + cc * th;
            if (gc < 0) {
                for (int rr = 0; rr < th; rr++) dst[rr] = ZERO;
                continue;
            }
            __global const elem_t *col = A + gc * (long)ma;
            for (int rr = 0; rr < lo; rr++) {
                const int gr = pad_map(rb + rr, ma);
                dst[rr] = gr < 0 ? ZERO : col[gr];
            }
            __global const elem_t *in = col + rb;
            for (int rr = lo; rr < hi; rr++) dst[rr] = in[rr];
            for (int rr = hi; rr < th; rr++) {
                const int gr = pad_map(rb + rr, ma);
                dst[rr] = gr < 0 ? ZERO : col[gr];
            }
        }
        RB_SUM(tile, th);
    } else {
        __global const elem_t *src = A + cb * (long)ma + rb;
        RB_SUM(src, ma);
    }
    const elem_t s = normalize ? kinfo[0] : ZERO;
    _Pragma("unroll") for (int q = 0; q < RJ; q++) {
        if (j0 + q >= no) break;
        _Pragma("unroll") for (int v = 0; v < RI; v++) {
            const int i = i0 + v * VW;
            if (i >= mo) break;
            const vec_t o = normalize ? VDIV(acc[v][q], s) : acc[v][q];
            __global elem_t *dst = C + (j0 + q) * (long)mo + i;
            if (i + VW <= mo) {
                VSTORE(o, dst);
            } else {
                elem_t t[VW];
                VSTORE(o, t);
                for (int e = 0; i + e < mo; e++) dst[e] = t[e];
            }
        }
    }
}
#endif

#if KERNEL == 5
/* conv2_kinfo: out[0] = sum(K(:)) for `normalize`, out[1] = 1 where K holds an Inf or NaN, by one
 * work-group: its input is the filter, which every group of the convolution reads in full
 * anyway, so this is never the expensive part. */
#define KSUM_WG 64

/* The work-group's sum of the n values of K and whether one is Inf or NaN (every work-item gets
 * both). */
inline elem_t ksum(__global const elem_t *restrict K, const int n, __local elem_t *part,
                   __local int *bad, int *nonfinite) {
    const int lid = (int)get_local_id(0);
    elem_t s = ZERO;
    int nf = 0;
    for (int e = lid; e < n; e += KSUM_WG) {
        const elem_t v = K[e];
        s += v;
#if CLIP_COMPLEX
        nf |= !isfinite(v.x) || !isfinite(v.y);
#else
        nf |= !isfinite(v);
#endif
    }
    part[lid] = s;
    bad[lid] = nf;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = KSUM_WG / 2; h > 0; h /= 2) {
        if (lid < h) part[lid] += part[lid + h], bad[lid] |= bad[lid + h];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    s = part[0];
    *nonfinite = bad[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* part and bad may be reused */
    return s;
}

inline void kinfo_store(__global elem_t *out, const elem_t sum, const int nonfinite) {
    out[0] = sum;
#if CLIP_COMPLEX
    out[1] = (elem_t)(nonfinite ? 1 : 0, 0);
#else
    out[1] = nonfinite ? 1 : 0;
#endif
}

__kernel __attribute__((reqd_work_group_size(KSUM_WG, 1, 1))) void conv2_kinfo(
    __global const elem_t *restrict K, __global elem_t *restrict out, const int n) {
    __local elem_t part[KSUM_WG];
    __local int bad[KSUM_WG];
    int nf = 0;
    const elem_t s = ksum(K, n, part, bad, &nf);
    if (get_local_id(0) == 0) kinfo_store(out, s, nf);
}

/* conv2(u, v, A)'s two passes: out1 = u's (sum, flag) for the column pass, out2 = (sum(u) *
 * sum(v), v's flag) for the row pass, which normalizes by sum(K(:)) of K = u(:)*v(:).'. */
__kernel __attribute__((reqd_work_group_size(KSUM_WG, 1, 1))) void conv2_kinfo_uv(
    __global const elem_t *restrict U, const int nu, __global const elem_t *restrict V,
    const int nv, __global elem_t *restrict out1, __global elem_t *restrict out2) {
    __local elem_t part[KSUM_WG];
    __local int bad[KSUM_WG];
    int fu = 0, fv = 0;
    const elem_t su = ksum(U, nu, part, bad, &fu), sv = ksum(V, nv, part, bad, &fv);
    if (get_local_id(0) != 0) return;
    kinfo_store(out1, su, fu);
#if CLIP_COMPLEX
    kinfo_store(out2, clip_cmul(su, sv), fv);
#else
    kinfo_store(out2, su * sv, fv);
#endif
}
#endif

#if KERNEL == 6
/* The FFT path. With P >= mo + KR - 1 and Q >= no + KC - 1 rows and columns, E is the window of
 * the padded A that the outputs read (E(x, y) = Aext(x + oi - (KR-1), y + oj - (KC-1))), zero
 * past it, and G the filter in convolution orientation (K itself for conv2, rot90(K, 2) when
 * correlating) at the top-left, zero elsewhere. Then C(i, j) = (E circularly convolved with G)
 * (i + KR - 1, j + KC - 1): every index that sum reads lies in [0, P) x [0, Q), so nothing wraps.
 * Real types use real-to-Hermitian transforms (planes of P x Q reals, spectra of (P/2+1) x Q);
 * complex types complex ones (P x Q). Sizes are run-time arguments here. */

/* E for every slice, then G as one more plane after them (one batched transform takes both).
 * gate[0] = 1 when a gathered value (A's window or K) is Inf or NaN: a transform spreads one over
 * the whole result, so the direct kernel that follows recomputes such a result exactly (MATLAB's
 * local NaN/Inf). The gate is zeroed before; every work-item that sees one writes the same 1. */
__kernel void conv2_fft_gather(__global const elem_t *restrict A, __global const elem_t *restrict K,
                               __global elem_t *restrict E, const int ma, const int na,
                               const int mo, const int no, const int oi, const int oj,
                               const int kr, const int kc, const int corr, const int P,
                               const int Q, const int slices, __global int *restrict gate) {
    const int x = (int)get_global_id(0), y = (int)get_global_id(1), s = (int)get_global_id(2);
    if (x >= P || y >= Q) return;
    elem_t v = ZERO;
    if (s < slices) {
        /* Past the window nothing is read, but a value there would still round into every
         * output, and an Inf or NaN spread: zeros. */
        const int gr = pad_map(x + oi - (kr - 1), ma), gc = pad_map(y + oj - (kc - 1), na);
        if (x < mo + kr - 1 && y < no + kc - 1 && gr >= 0 && gc >= 0)
            v = A[((long)s * na + gc) * ma + gr];
    } else if (x < kr && y < kc) {
        const int e = x + y * kr;
        v = K[corr ? kr * kc - 1 - e : e];
    }
#if CLIP_COMPLEX
    if (!isfinite(v.x) || !isfinite(v.y)) gate[0] = 1;
#else
    if (!isfinite(v)) gate[0] = 1;
#endif
    E[((long)s * Q + y) * P + x] = v;
}

/* X_s *= X_G for every slice s, on spectra of n complex values per plane. */
__kernel void conv2_fft_mul(__global complex_t *restrict X, const long n, const int slices) {
    const long e = (long)get_global_id(0);
    if (e >= n) return;
    const complex_t g = X[(long)slices * n + e];
    for (int s = 0; s < slices; s++) X[(long)s * n + e] = clip_cmul(X[(long)s * n + e], g);
}

/* C(i, j, s) from the inverse transform R: the shift by (KR-1, KC-1) and `normalize`. */
__kernel void conv2_fft_crop(__global const elem_t *restrict R, __global elem_t *restrict C,
                             __global const elem_t *restrict kinfo, const int mo, const int no,
                             const int kr, const int kc, const int P, const int Q,
                             const int normalize) {
    const int i = (int)get_global_id(0), j = (int)get_global_id(1), s = (int)get_global_id(2);
    if (i >= mo || j >= no) return;
    const elem_t v = R[((long)s * Q + j + kc - 1) * P + i + kr - 1];
    C[((long)s * no + j) * mo + i] = normalize ? div_sum(v, kinfo[0]) : v;
}

#endif
