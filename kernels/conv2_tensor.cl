/* Built after kernels/tensor_core.cl (wgmma, cp.async, barriers), tf32.cl (the split) and
 * kernels/conv2.cl (padding, the direct sum by MATLAB's rules, output stores), with -DKERNEL=8 so
 * that conv2.cl compiles none of its own kernels (processes/conv2_direct.c,
 * "tensor_core+tf32+conv2+conv2_tensor"). */

/* conv2_tensor (NVIDIA sm_90, f32, filter size compiled in, KR <= 64): the direct sums on the
 * tensor cores, each output an fp32-accurate sum (3xTF32, as the GEMM's wgmma kernel).
 *
 * A filter is a GEMM in disguise: for input column c of the window, the products of its sliding
 * windows along the rows (a Toeplitz block: row i, tap k holds X(i + k, c)) with the filter's
 * columns give P_c(i, l) = sum_k X(i + k, c) F(k, l), and output column j sums P_c(i, l) over
 * c - l = j. A group (one warpgroup) owns 64 output rows by TJ columns and walks the input
 * columns once: step s multiplies column c_s's 64 x KRP Toeplitz block, built in registers (each
 * work-item loads KRP / 4 + 2 values of the staged column: A's fragment is X at offsets 4 apart),
 * by the filter's TC_N columns in local memory (m64nNk8 wgmma, A from registers).
 *
 * The ring. Output column j collects P_c(., l) from TC_N consecutive steps. The filter operand
 * of step s is rotated (its column n is filter column (s - n) mod TC_N, a window of a doubled
 * copy in local memory, so the rotation is only the descriptor's start), which makes column n of
 * every step's product belong to the output columns j = n (mod TC_N): a work-item adds each
 * step's product into the same registers E, and after step j + TC_N - 1 column j mod TC_N of E
 * holds output j whole. It is written out and zeroed. Filters wider than TC_N = 32 run in column
 * blocks of 32, the partial sums of a block kept in C and read back by the same work-item.
 *
 * Interleaved rows (TC_S = 2). A step has a cost of its own besides its products (fragment
 * loads, the ring's additions, its share of the staging and barriers), so a group may own 64 *
 * TC_S rows: row m of the Toeplitz block holds X from input row TC_S * m, KRP >= KR + TC_S - 1
 * taps, and the filter operand has TC_S columns per filter column l, column n = TC_S * l + s
 * holding F shifted down by s taps (F(k - s, l)). Column n of a product then belongs to output
 * row TC_S * m + s of ring column l: the same walk and ring with TC_S times the outputs a step,
 * and no more taps where KR + 1 rounds up to the same multiple of 8 as KR (31 or 15 rows).
 *
 * Accuracy: each value x splits into big = tf32(x) and small = tf32(x - big); a step sums
 * small*big' + big*small' + big*big' over the KRP taps of one filter column on the tensor cores
 * (which truncate as they accumulate), and the step sums join E by fp32 additions, so each
 * output errs like a direct fp32 sum (the elementwise contract; test_conv2_tc checks it). Summed
 * straight into E on the tensor cores instead, 15x15 ran 2.6% faster on the H200 and the
 * truncations added up: on positive data the worst error grew from 2.9 to 26 eps * (|A| conv
 * |K|), the mean from -0.8 to -17 (bench/CONV2.md, seventh session). An
 * output that comes out NaN (an Inf or NaN in A or K, zero padding times an infinite tap, a
 * value that rounds past FLT_MAX) is recomputed by a plain direct sum with MATLAB's rules
 * (tc_exact), so non-finite data behave as in the other direct kernels: at the group's end
 * (tc_fix), or where groups walk spans by the kernel's second launch (TC_NANFIX, tc_nan_outputs).
 * The split is fp32-accurate only from 2^-112 up (kernels/tf32.cl: TF32's step under FLT_MIN is
 * 2^-136): a group whose input window or filter holds a non-zero value under that (subnormals,
 * tiny normals) flags it and leaves its outputs (the first pass, TC_SCALED 0); the second pass
 * (TC_SCALED 1, the kernel's second launch) then finds the image's and the filter's ranges, all
 * its work-groups together (tf32_range.cl), and runs on the image scaled by 2^sa and the filter by 2^sk, exactly, each into the range (tf32_conv_shifts),
 * its outputs scaled back by one multiply by 2^-(sa + sk) (a rounding only where an output is
 * subnormal). Where no shifts hold both operands (an image spanning more than 2^237, or outputs
 * that could overflow once scaled), the second pass's groups that meet such a value recompute
 * all their outputs by the plain sum, as the first pass did before (the cost of the plain sum:
 * processes/conv2.c).
 *
 * Speed (bench/CONV2.md, "tensor cores"): a step waits for its products, and the other groups
 * on the compute unit fill the wait with their own steps' other work. From registers that stay
 * the same, chains of 12 m64n32k8 or m64n64k8 reach about 90% of the tensor cores' peak with 2
 * groups a compute unit (bench/wgmma_rate); a step's fragments are loaded fresh from local
 * memory, and that pattern reaches 60% at N = 32 (the ring of 16, where the wgmma are most of a
 * step: TC_PROFILE, eighth round). The cap is local memory's bytes a multiply-add: a tap block's
 * three products as two wider ones (A big against both filter parts side by side) reach 76%
 * with both operands read by the wgmma, but one descriptor cannot hold both parts rotated for
 * every step of the ring (bench/CONV2.md, "Fewer, wider products"). A step's other work is kept
 * small:
 *
 * Staging. The input columns come through local memory TC_CW at a time, already split into
 * their big and small parts (so a step only loads its fragments, TC_LDS4), and the output
 * columns that complete during those TC_CW steps go out through local memory together, a warp
 * writing consecutive rows; descriptors are stepped where they are used (TC_DESC_AT). A step is
 * then about 100 instructions a warp besides its 12 wgmma (31x31, rows in pairs). The staging
 * itself was a quarter of the time (bench/CONV2.md, third round: 31x31 1.27 ms without it
 * against 1.74), mostly for the registers its indices held: hence TC_FMAP and TC_ASYNC.
 *
 * The Toeplitz operand in local memory (TC_SS). Stored as rows of 4 taps, row r of a staged
 * column holding X(TC_S * r + q) for q = 0..3 (each value in 4 / TC_S rows), the Toeplitz block
 * is a wgmma operand after all: its core matrices are 8 consecutive such rows (16 bytes apart,
 * as a descriptor steps), those adjacent along K 4 / TC_S rows apart (LBO 64 / TC_S bytes,
 * overlapping). No fragments then live in registers, so filters past 32 rows take their rows in
 * pairs too (m64n64k8 for a ring of 32), and a step can issue its products into one of two
 * accumulator sets and finish the previous step's while they run (TC_PIPE). The price is local
 * memory (the operand read by every product, the doubled filter: 65 KB at 47x47, 81 KB at 63x63,
 * past the 48 KB OpenCL reports, which the sm_90a build takes) and its bandwidth: for filters of
 * at most 32 rows the registers' kernel stays the faster (31x31 1.80 ms against 1.73).
 *
 * The second form (TC_WS, at the end): the staging taken out of the warps that multiply. A
 * producer warpgroup fetches, splits and stages each part and writes the outputs out, beside
 * TC_WSC consumer warpgroups that share its staged columns and run the steps above; they hand
 * parts over through transaction barriers, so no consumer waits for the others or for the
 * staging (H100 8192^2: 31x31 1.67 -> 1.34 ms, 21x21 1.28 -> 1.16; bench/CONV2.md, fourth
 * round). Every other way tried of moving the staging off the steps' path overran the
 * registers or made ptxas serialize the wgmma (same section). A work-group of the second form
 * walks a span of band-columns (TC_SPAN: one span a compute unit, a band being its consumers'
 * rows) in one walk of ring turns, its halo once a segment instead of once every TJ columns,
 * and no partial last wave (8192^2: 31x31 1.27 -> 1.12 ms, 21x21 1.10 -> 0.99; fifth round).
 * The first form walks spans too where its operand is in local memory (TC_SPANS: 63x63 6.31 ->
 * 5.49 ms, 47x47 4.97 -> 4.45; sixth round), each segment's ring turns a walk of their own.
 *
 * Options: TC_N 8, 16 or 32 (filter columns a block), TC_S 1 or 2 (rows interleaved; TC_N *
 * TC_S at most 64), TC_KRP (KR + TC_S - 1 rounded up to 8, at most 64), TC_CW (input columns
 * staged at a time: 4, 8 or 16, dividing TC_N, at least TC_N / 8), TC_SS, TC_PIPE, TC_ASYNC,
 * TC_FMAP, TC_HALVES, TC_PAIRS, TC_SPANS, TC_WS and TC_WSC (below), TJ (output columns a group of
 * the first form, a multiple of TC_N, where it does not walk spans; spans are the kernel's
 * arguments). */
#ifndef TC_S
#define TC_S 1
#endif
#define TC_M (64 * TC_S)    /* output rows a group */
#define TC_NT (TC_N * TC_S) /* columns of a product (wgmma N) */
/* TC_WS 1: a producer warpgroup stages the input and writes the outputs for TC_WSC consumer
 * warpgroups that only multiply (below, conv2_tensor's second form); they share each staged
 * column, TC_WSC * TC_M rows and the halo. */
#ifndef TC_WS
#define TC_WS 0
#endif
#ifndef TC_WSC
#define TC_WSC 2
#endif
/* TC_SPANS 1 (always with TC_WS; in the first form where the host chooses, conv2_cfg_spans): a
 * work-group walks a span of band-columns instead of one group of TJ columns (TC_SPAN). */
#ifndef TC_SPANS
#define TC_SPANS TC_WS
#endif
#define TC_GM (TC_WS ? TC_WSC * TC_M : TC_M) /* output rows a work-group */
#define TC_H (TC_GM + TC_KRP)                /* staged rows of an input column */
#define TC_NB ((KC + TC_N - 1) / TC_N)       /* column blocks of the filter */
#define TC_PARTS (TC_N / TC_CW)              /* staged parts of a ring turn */
/* TC_FMAP 1 (the default with A from registers): the fetch as TC_FETCH below describes (H100
 * 8192^2: 15x15 0.578 ms against 0.661, 21x21 1.29 against 1.45, 31x31 1.64 against 1.74);
 * with TC_SS (and cp.async) the first mapping is the faster (63x63 6.21 against 6.61). */
#ifndef TC_FMAP
#define TC_FMAP (!TC_SS)
#endif
#if TC_FMAP
#define TC_FR ((TC_H + 31) / 32)  /* rows of a staged column a work-item fetches, 32 apart */
#define TC_PF (TC_FR * TC_CW / 4) /* staged values a work-item fetches */
#else
#define TC_PF ((TC_H * TC_CW + 127) / 128) /* staged values a work-item fetches */
#endif
#ifndef TC_SS
#define TC_SS 0
#endif
#if TC_SS
#define TC_ER (64 + (TC_KRP - 4) / TC_S) /* rows of 4 taps of a staged column (TC_SS) */
#define TC_XS (TC_ER * 4 * TC_CW)        /* words of one part of xs */
#else
#define TC_XS (TC_H * TC_CW) /* words of one part of xs */
#endif
/* Word offsets in xs and ys of the half that staged part H uses (TC_WS: two stages each). */
#define TC_XOFF(H) (TC_WS ? (H) % 2 * 2 * TC_XS : 0)
#define TC_YOFF(H) (TC_WS ? (H) % 2 * TC_CW * TC_M : 0)
#define TC_GROWS (2 * TC_NT)         /* rows (n) of the doubled, reversed filter */
#define TC_LBO (TC_GROWS * 16)       /* bytes between its groups of 4 taps */
#define TC_GPART (TC_KRP * TC_GROWS) /* words of one part (big or small) */
#define TC_ND (TC_NT / 2)            /* accumulators a work-item holds */
#if TC_SS
#define TC_MMA_NAME(N, SET) tc_wgmma_n##N##_tf32##SET
#else
#define TC_MMA_NAME(N, SET) tc_wgmma_ra_n##N##SET
#endif
#if TC_NT == 64
#define TC_MMA TC_MMA_NAME(64, )
#define TC_MMA_SET TC_MMA_NAME(64, _set)
#elif TC_NT == 32
#define TC_MMA TC_MMA_NAME(32, )
#define TC_MMA_SET TC_MMA_NAME(32, _set)
#elif TC_NT == 16
#define TC_MMA TC_MMA_NAME(16, )
#define TC_MMA_SET TC_MMA_NAME(16, _set)
#else
#define TC_MMA TC_MMA_NAME(8, )
#define TC_MMA_SET TC_MMA_NAME(8, _set)
#endif

/* Output (i, j) by a plain direct sum with MATLAB's rules: over the overlap only for zero padding
 * (conv_skip), through the padding rule otherwise. */
inline float tc_exact(__global const float *A, __global const float *K, int i, int j, int ma,
                      int na, int oi, int oj, int kr, int kc, int corr) {
#if PAD == 0
    return conv_skip(A, K, i, j, ma, na, oi, oj, kr, kc, corr);
#else
    const int r = i + oi - (KR - 1), c = j + oj - (KC - 1);
    float acc = 0.0f;
    for (int l = 0; l < KC; l++) {
        const long col = pad_map(c + l, na) * (long)ma;
        for (int k = 0; k < KR; k++)
            acc = fma(A[col + pad_map(r + k, ma)], FGLOBAL(k, l), acc);
    }
    return acc;
#endif
}

/* Output (i, j)'s sum v of column block `blk`: blocks before the last leave their partial sum in
 * C, the last adds the earlier ones and writes the result scaled back by osc (TC_SCALES) and
 * normalized. Returns whether it is NaN: the group recomputes those at its end (tc_fix), out of
 * the unrolled steps. */
inline int tc_out(__global float *C, __global const float *kinfo, float v, int blk, int i, int j,
                  int mo, int no, int normalize, float osc) {
    if (i >= mo || j >= no) return 0;
    __global float *c = C + j * (long)mo + i;
    if (blk > 0) v += *c;
    if (blk < TC_NB - 1) {
        *c = v;
        return 0;
    }
    store_out(C, i, j, mo, v * osc, normalize, kinfo);
    return isnan(v);
}

/* Widens the group's box of NaN outputs (rows box[0]..box[1], columns box[2]..box[3]) to
 * output (i, j): tc_fix then reads back only the outputs inside it, not the whole span. */
inline void tc_note_nan(__local int *box, const int i, const int j) {
    atomic_min(&box[0], i);
    atomic_max(&box[1], i);
    atomic_min(&box[2], j);
    atomic_max(&box[3], j);
}

/* How the first pass deals with NaN outputs. TC_NANFIX 1 (the default where groups walk spans):
 * it only notes that one came out (nan |= ..., as the kernel of one pass did) and leaves the
 * mending to the second launch of the kernel (tc_nan_outputs), so that its flush and end are the
 * one-pass kernel's (H200 8192^2 ordinary data against the one-pass kernel: 31x31 +2.2% and
 * 63x63 +2.6% with the box's atomics at every NaN output, +0.9-1.1% and +1.3-1.5% so; bench/
 * CONV2.md, "Ordinary data, both run orders"). 0 (the default otherwise): it boxes its NaN
 * outputs and mends them itself (tc_fix); 15x15 ran 0.584 ms so and 0.724 with TC_NANFIX 1
 * (ptxas spilled under its 128 registers). 2 (the default of the first form's groups of TJ
 * columns): it mends them itself, without a box, scanning all its outputs at its end as the
 * one-pass kernel did (tc_fix, TC_FIXSCAN): 15x15's first pass as fast as the one-pass kernel
 * (no spills; the box +3%), 3 NaN + 2 Inf 1.15x of ordinary data (the box: 1.03x; bench/CONV2.md,
 * "Variant 2's scan" and "The ranges inside the second launch"). The second pass always boxes:
 * its speed matters only on data it recomputes. */
#ifndef TC_NANFIX
#define TC_NANFIX (TC_SPANS ? 1 : 2)
#endif
#ifndef TC_SCALED /* the pass (TC_SCALES, below) */
#define TC_SCALED 0
#endif
#define TC_BOX (TC_SCALED || TC_NANFIX == 0)
/* Output (i, j) of value o (tc_out's result) into nan, and into the box where TC_BOX. */
#if TC_BOX
#define TC_NOTE(o, i, j)                                                                           \
    if (o) nan = 1, tc_note_nan(nbox, i, j)
#else
#define TC_NOTE(o, i, j) nan |= (o)
#endif
/* The box at the group's start: empty where it is widened. */
#if TC_BOX
#define TC_BOX_INIT nbox[0] = nbox[2] = INT_MAX, nbox[1] = nbox[3] = -1
#else
#define TC_BOX_INIT (void)0
#endif
/* tc_fix's scan of the whole group (TC_NANFIX 2): TC_FIXSCAN values of C a work-item loads before
 * it looks at them (loads in flight), and TC_FIXSKEW, the turn of column jj's rows (by TC_FIXSKEW *
 * jj) so that a NaN value's window falls to more work-items (KR: to KR x KC of them; 0: a row to a
 * work-item, the window's KR rows to KR work-items). H200 8192^2 15x15, 3 NaN + 2 Inf against
 * ordinary data: (1, 0) 1.20x, (2, 0) 1.15x, (16, KR) 1.10x; but the end's code moves the
 * register cliff of the walk: ordinary data +2.4% over the one-pass kernel at (1, 0) and (2, 0),
 * +5-7% at (4, 0), (1..16, KR) (bench/CONV2.md, "Variant 2's scan"). */
#ifndef TC_FIXSCAN
#define TC_FIXSCAN 2
#endif
#ifndef TC_FIXSKEW
#define TC_FIXSKEW 0
#endif

/* TC_ASYNC 1 (the default with TC_SS): the next part's columns come by cp.async into local
 * memory, no registers held through the steps (H200 8192^2: 63x63 6.30 ms against 6.54 through
 * registers, 33x33 4.43 against 4.82; with A from registers it costs more than it saves, 31x31
 * 2.05 against 1.77, as the copies' addresses take registers where there are none to spare). */
#ifndef TC_ASYNC
#define TC_ASYNC TC_SS
#endif
/* Value u of a work-item's fetch (from src where ok, else zero): by cp.async into raw, or into
 * its registers pf; TC_FETCHED(u) after TC_FETCH_WAIT. */
#if TC_ASYNC
#define TC_FETCH_ONE(u, src, ok) tc_cp_async4(raw + tid + 128 * (u), (ok) ? (src) : A, (ok) ? 4 : 0)
#define TC_FETCH_DONE tc_cp_commit()
#define TC_FETCHED(u) raw[tid + 128 * (u)]
#define TC_FETCH_WAIT TC_CP_WAIT(0)
#else
#define TC_FETCH_ONE(u, src, ok) pf[u] = (ok) ? *(src) : 0.0f
#define TC_FETCH_DONE
#define TC_FETCHED(u) pf[u]
#define TC_FETCH_WAIT
#endif
#if TC_FMAP
/* Fetches input columns c0 .. c0 + TC_CW - 1, rows r0 .. r0 + TC_H - 1 of the padded A (zeros past
 * A): value u of a work-item is row lane + 32 (u % TC_FR) of column w + 4 (u / TC_FR), a warp on
 * consecutive rows. A group inside A reads from one pointer at constant offsets; r0 and the lane
 * pass through an empty asm so that the compiler keeps no row index of its own live through the
 * steps (it held one per value, and registers are what limits the groups a compute unit). */
#define TC_FETCH(c0)                                                                               \
    {                                                                                              \
        int r0_ = r0, l_ = tid % 32;                                                               \
        asm volatile("" : "+r"(r0_), "+r"(l_));                                                    \
        const int c0_ = (c0);                                                                      \
        if (r0_ >= 0 && r0_ + TC_H <= ma && c0_ >= 0 && c0_ + TC_CW <= na) {                       \
            __global const float *p_ = A + (long)(c0_ + w) * ma + r0_ + l_;                        \
            _Pragma("unroll") for (int u = 0; u < TC_PF; u++)                                      \
                TC_FETCH_ONE(u, p_ + 4 * (long)ma * (u / TC_FR) + 32 * (u % TC_FR),                \
                             l_ + 32 * (u % TC_FR) < TC_H);                                        \
        } else {                                                                                   \
            _Pragma("unroll") for (int u = 0; u < TC_PF; u++) {                                    \
                const int rr = l_ + 32 * (u % TC_FR), cc = w + 4 * (u / TC_FR);                    \
                const int gr = pad_map(r0_ + rr, ma), gc = pad_map(c0_ + cc, na);                  \
                TC_FETCH_ONE(u, A + gc * (long)ma + gr, rr < TC_H && gr >= 0 && gc >= 0);          \
            }                                                                                      \
        }                                                                                          \
        TC_FETCH_DONE;                                                                             \
    }
#else
/* Fetches input columns c0 .. c0 + TC_CW - 1, rows r0 .. r0 + TC_H - 1 of the padded A (zeros past
 * A): value u of a work-item is value tid + 128 u of the part, consecutive work-items on
 * consecutive rows. */
#define TC_FETCH(c0)                                                                               \
    _Pragma("unroll") for (int u = 0; u < TC_PF; u++) {                                            \
        const int e = tid + 128 * u, rr = e % TC_H, cc = e / TC_H;                                 \
        const int gr = pad_map(r0 + rr, ma), gc = pad_map((c0) + cc, na);                          \
        TC_FETCH_ONE(u, A + gc * (long)ma + gr, e < TC_H * TC_CW && gr >= 0 && gc >= 0);           \
    }                                                                                              \
    TC_FETCH_DONE
#endif /* TC_FMAP */

/* Where value u of a work-item's fetch goes: row rr of staged column cc (ok_: one of its rows). */
#if TC_FMAP
#define TC_PUT_LANE                                                                                \
    int l_ = tid % 32;                                                                             \
    asm volatile("" : "+r"(l_))
#define TC_PUT_AT(u)                                                                               \
    const int rr = l_ + 32 * ((u) % TC_FR), cc = w + 4 * ((u) / TC_FR), ok_ = rr < TC_H
#else
#define TC_PUT_LANE
#define TC_PUT_AT(u)                                                                               \
    const int e_ = tid + 128 * (u), rr = e_ % TC_H, cc = e_ / TC_H, ok_ = e_ < TC_H * TC_CW
#endif
#if TC_SS
/* A value of column cc's row rr into xs (TC_PUT): the column as TC_ER rows of 4 taps, row r
 * holding X(TC_S * r + q), q = 0..3, so the value goes to the 4 / TC_S rows that hold it. */
#define TC_STORE(X, b, s)                                                                          \
    _Pragma("unroll") for (int q_ = 0; q_ < 4; q_++) {                                             \
        const int r_ = (rr - q_) / TC_S, x_ = (X) + (cc * TC_ER + r_) * 4 + q_;                    \
        if (ok_ && rr >= q_ && (rr - q_) % TC_S == 0 && r_ < TC_ER)                                \
            xs[x_] = (b), xs[TC_XS + x_] = (s);                                                    \
    }
#else
#define TC_STORE(X, b, s)                                                                          \
    if (ok_) xs[(X) + cc * TC_H + rr] = (b), xs[(X) + TC_XS + cc * TC_H + rr] = (s)
#endif
/* The fetch into xs from word X on, scaled by xsc (TC_SCALES) and split: big parts first, then
 * small ones; `tiny` set where a value is under the split's range (tf32.cl; TC_END). */
#define TC_PUT(X)                                                                                  \
    {                                                                                              \
        TC_PUT_LANE;                                                                               \
        TC_FETCH_WAIT;                                                                             \
        _Pragma("unroll") for (int u = 0; u < TC_PF; u++) {                                        \
            TC_PUT_AT(u);                                                                          \
            uint b_, s_;                                                                           \
            const float v_ = TC_FETCHED(u) * xsc;                                                  \
            tc_split(v_, &b_, &s_);                                                                \
            tiny |= tf32_tiny(v_);                                                                 \
            TC_STORE(X, b_, s_);                                                                   \
        }                                                                                          \
    }

/* With TC_SS the wgmma read xs through the async proxy: what TC_PUT stored there is made visible
 * to it before the barrier that ends the put. */
#if TC_SS
#define TC_PUT_FENCE tc_fence_async_local()
#else
#define TC_PUT_FENCE
#endif

/* The output columns completed in the steps of staged part H of ring turn ch, from ys to C:
 * consecutive work-items, consecutive rows. */
#define TC_FLUSH(H)                                                                                \
    _Pragma("unroll") for (int k_ = 0; k_ < TC_CW * TC_M / 128; k_++) {                            \
        const int v = tid + 128 * k_, jt = (ch - 1) * TC_N + (H)*TC_CW + v / TC_M + TC_LAG;        \
        if (jt >= 0 && jt < len)                                                                   \
            TC_NOTE(tc_out(C, kinfo, ys[v], blk, i0 + v % TC_M, j0 + jt, mo, no, normalize, osc),  \
                    i0 + v % TC_M, j0 + jt);                                                       \
    }

/* Pins the values of n floats here (an empty volatile asm that reads and writes them): the wait
 * for a wgmma is an asm of its own, and without this the compiler may move the reads of the
 * accumulators above it. */
#define TC_PIN(v, n)                                                                               \
    _Pragma("unroll") for (int r_ = 0; r_ < (n); r_++) asm volatile("" : "+f"((v)[r_]))

/* A fragment of the staged column at word offset O: X at the work-item's rows and taps, offsets
 * 0, 8 * TC_S, 4 and 8 * TC_S + 4 from its first value. */
#define TC_FRAG_AT(f, O) TC_LDS4(f, xaddr, (O), (O) + 8 * TC_S, (O) + 4, (O) + 8 * TC_S + 4)

#if TC_SS
/* (TC_SS: A is read by the wgmma from xs: no fragments) */
#define TC_FRAG_IN(F, SI, KK)
#define TC_FRAGS
#else
#define TC_FRAGS uint fb[8][4], fs[8][4]
/* Step SI's A fragments of taps 8 KK .. 8 KK + 7, both parts, from staged column SI % TC_CW, into
 * fragment slot F (KK, or past the first step's where two steps share a wait, TC_PAIRS). */
#define TC_FRAG_IN(F, SI, KK)                                                                      \
    if (8 * (KK) < TC_KRP) {                                                                       \
        TC_FRAG_AT(fb[F], TC_XOFF((SI) / TC_CW) + (SI) % TC_CW * TC_H + 8 * (KK));                 \
        TC_FRAG_AT(fs[F], TC_XOFF((SI) / TC_CW) + TC_XS + (SI) % TC_CW * TC_H + 8 * (KK));         \
    }
#endif
#define TC_FRAG(SI, KK) TC_FRAG_IN(KK, SI, KK)

/* Step SI's products of taps 8 KK .. 8 KK + 7 (3xTF32, the first of the step starting the
 * sum): the filter operand rotated by the step, (TC_N - SI) % TC_N filter columns of TC_S rows
 * of 16 bytes, each descriptor made next to its product (TC_DESC_AT). */
#if TC_SS
/* (TC_SS: A, the Toeplitz block of taps 8 KK.., is a window of xs's rows: its core matrices are 8
 * consecutive rows, those adjacent along K 4 / TC_S rows apart, the descriptor's LBO) */
#define TC_A_OPERANDS(SI, KK)                                                                      \
    ulong ab_, as_;                                                                                \
    TC_DESC_AT(ab_, dxs, (SI) % TC_CW * TC_ER + 8 * (KK) / TC_S);                                  \
    TC_DESC_AT(as_, dxs, TC_XS / 4 + (SI) % TC_CW * TC_ER + 8 * (KK) / TC_S)
#define TC_A_BIG(KK) ab_
#define TC_A_SMALL(KK) as_
#else
#define TC_A_OPERANDS(SI, KK)
#define TC_A_BIG(F) fb[F]
#define TC_A_SMALL(F) fs[F]
#endif
/* The same into accumulator set D, from fragment slot F; SET: the first product of D's sum. */
#define TC_MMAS_IN(D, F, SI, KK, SET)                                                              \
    if (8 * (KK) < TC_KRP) {                                                                       \
        ulong ob_, os_;                                                                            \
        TC_A_OPERANDS(SI, KK);                                                                     \
        TC_DESC_AT(ob_, dbig, (TC_N - (SI)) % TC_N * TC_S + 2 * (KK)*TC_LBO / 16);                 \
        TC_DESC_AT(os_, dsmall, (TC_N - (SI)) % TC_N * TC_S + 2 * (KK)*TC_LBO / 16);               \
        if (SET)                                                                                   \
            TC_MMA_SET(D, TC_A_SMALL(F), ob_);                                                     \
        else                                                                                       \
            TC_MMA(D, TC_A_SMALL(F), ob_, 1);                                                      \
        TC_MMA(D, TC_A_BIG(F), os_, 1);                                                            \
        TC_MMA(D, TC_A_BIG(F), ob_, 1);                                                            \
    }
#define TC_MMAS(SI, KK) TC_MMAS_IN(TC_D(SI), KK, SI, KK, (KK) == 0)

/* M(SI, KK) for KK = K0 .. K0 + 3, each a constant (the immediates of TC_LDS4 and TC_DESC_AT). */
#define TC_FOUR(M, SI, K0)                                                                         \
    M(SI, (K0));                                                                                   \
    M(SI, (K0) + 1);                                                                               \
    M(SI, (K0) + 2);                                                                               \
    M(SI, (K0) + 3)

/* TC_HALVES 1 (filters past 32 rows): taps 32 to 63 of a step are loaded and multiplied after
 * the first 32 are done, so that half the fragments are live at a time; the registers saved
 * let more groups share a compute unit (bench/CONV2.md: 47x47 7.54 -> 6.15 ms on the H100). */
#ifndef TC_HALVES
#define TC_HALVES 0
#endif
#if TC_HALVES
#define TC_FIRST_HALF(M, SI, K0)
#define TC_SECOND_HALF(SI)                                                                         \
    TC_FOUR(TC_FRAG, SI, 4);                                                                       \
    tc_wg_fence();                                                                                 \
    TC_FOUR(TC_MMAS, SI, 4);                                                                       \
    tc_wg_commit();                                                                                \
    TC_WG_WAIT(0)
#else
#define TC_FIRST_HALF(M, SI, K0) TC_FOUR(M, SI, K0)
#define TC_SECOND_HALF(SI)
#endif

/* TC_PROFILE 1 (an experiment, CLIP_CONV2_DEFS=-DTC_PROFILE=1; the first form): work-item 0 of
 * work-groups 0 and TC_PROFILE_G counts its clock cycles by phase (TC_MARK(i): the cycles since
 * the last mark go to phase i) and prints them at its end: where a step's time goes. With
 * TC_PIPE the wait and the finish have no marks of their own and count as the issue. */
#ifndef TC_PROFILE
#define TC_PROFILE 0
#endif
#if TC_PROFILE && TC_WS
#error "TC_PROFILE counts the first form's phases"
#endif
#if TC_PROFILE
#ifndef TC_PROFILE_G
#define TC_PROFILE_G 100
#endif
#define TC_MARK(i)                                                                                 \
    {                                                                                              \
        uint c_;                                                                                   \
        asm volatile("mov.u32 %0, %%clock;" : "=r"(c_));                                           \
        prof_[i] += c_ - prof_t_;                                                                  \
        prof_t_ = c_;                                                                              \
    }
#else
#define TC_MARK(i)
#endif

/* Step SI of a ring turn (a constant once unrolled) on staged column SI % TC_CW: the step's
 * products (3xTF32: small*big', big*small', big*big' over the taps, the sum starting from zero,
 * TC_MMA_SET, so that no earlier value of d stays live into the wgmma pipeline), then TC_AFTER
 * (this step's or the previous step's finish). Other groups on the compute unit fill the waits. */
#define TC_STEP(SI)                                                                                \
    {                                                                                              \
        TC_FRAGS;                                                                                  \
        TC_FOUR(TC_FRAG, SI, 0);                                                                   \
        TC_FIRST_HALF(TC_FRAG, SI, 4);                                                             \
        tc_wg_fence();                                                                             \
        TC_FOUR(TC_MMAS, SI, 0);                                                                   \
        TC_FIRST_HALF(TC_MMAS, SI, 4);                                                             \
        tc_wg_commit();                                                                            \
        TC_MARK(1);                                                                                \
        TC_AFTER(SI);                                                                              \
    }

/* Step SI's products, done, into the ring. */
#define TC_ADD(SI)                                                                                 \
    TC_PIN(TC_D(SI), TC_ND);                                                                       \
    _Pragma("unroll") for (int r = 0; r < TC_ND; r++) ring[r] += TC_D(SI)[r]

/* The output column complete after step SI, ring column (SI + TC_LAG) % TC_N (output column
 * (ch - 1) * TC_N + SI + TC_LAG of the group's), put in ys at SI's place and zeroed. */
#define TC_OUTCOL(SI)                                                                              \
    _Pragma("unroll") for (int s_ = 0; s_ < TC_S; s_++) {                                          \
        const int n_ = ((SI) + TC_LAG) % TC_N * TC_S + s_, q_ = n_ / 8, e_ = n_ % 2;               \
        if (t == (n_ % 8) / 2) {                                                                   \
            __local float *y = ys + TC_YOFF((SI) / TC_CW) + (SI) % TC_CW * TC_M + mrow + s_;       \
            y[0] = ring[4 * q_ + e_];                                                              \
            y[8 * TC_S] = ring[4 * q_ + 2 + e_];                                                   \
            ring[4 * q_ + e_] = 0.0f;                                                              \
            ring[4 * q_ + 2 + e_] = 0.0f;                                                          \
        }                                                                                          \
    }

#define TC_FINISH(SI)                                                                              \
    {                                                                                              \
        TC_ADD(SI);                                                                                \
        TC_OUTCOL(SI);                                                                             \
    }

/* TC_PIPE 1 (TC_SS): a step's products go to one of two accumulator sets, and the step then
 * waits for the previous step's (wgmma.wait_group 1) and finishes that one while its own run; the
 * last step of a staged part is finished after it (TC_DRAIN), before xs is written again.
 * Otherwise a step waits for its own products and finishes them: with fragments in registers
 * ptxas serialized the wgmma of such a pipeline (bench/CONV2.md, second round, C7514). */
#ifndef TC_PIPE
#define TC_PIPE TC_SS
#endif
#if TC_PIPE && TC_HALVES
#error "TC_PIPE finishes a step without its second half: TC_HALVES needs TC_PIPE 0"
#endif
#if TC_PIPE
#define TC_D(SI) ((SI) % 2 ? d1 : d)
#define TC_AFTER(SI)                                                                               \
    if ((SI) % TC_CW) {                                                                            \
        TC_WG_WAIT(1);                                                                             \
        TC_FINISH((SI) + TC_N - 1);                                                                \
    }
#define TC_DRAIN(SI)                                                                               \
    TC_WG_WAIT(0);                                                                                 \
    TC_FINISH(SI)
#else
#define TC_D(SI) d
#define TC_AFTER(SI)                                                                               \
    TC_WG_WAIT(0);                                                                                 \
    TC_MARK(2);                                                                                    \
    TC_SECOND_HALF(SI);                                                                            \
    TC_FINISH(SI);                                                                                 \
    TC_MARK(3)
#define TC_DRAIN(SI)
#endif

/* TC_PAIRS 1 (A from registers, whole steps waited for, a filter narrower than the ring: KC <
 * TC_N): steps SI and SI + 1 (SI even) are one sum, [T_SI T_SI+1] times the two rotated filter
 * operands stacked, twice the products a wait and a finish. Their sum is ring-aligned as each
 * step's is. Ring column (SI + 1) % TC_N, whose output completes after step SI - 1 (its last
 * tap, filter column TC_N - 1, is zero), takes step SI + 1's first product for output SI + 1;
 * so every output column is put out at the step where it completes, after step j + KC - 1 <=
 * j + TC_N - 2, TC_LAG 2 columns after the step's instead of 1, and the pair puts out two. */
#ifndef TC_PAIRS
#define TC_PAIRS 0
#endif
#if TC_PAIRS
#if TC_SS || TC_HALVES || TC_PIPE || KC >= TC_N || TC_CW % 2
#error "TC_PAIRS takes A from registers, whole steps, KC < TC_N and an even TC_CW"
#endif
#define TC_LAG 2
#define TC_PAIR(SI)                                                                                \
    {                                                                                              \
        TC_FRAGS;                                                                                  \
        TC_FOUR(TC_FRAG, SI, 0);                                                                   \
        TC_FRAG_IN(TC_KRP / 8, (SI) + 1, 0);                                                       \
        TC_FRAG_IN(TC_KRP / 8 + 1, (SI) + 1, 1);                                                   \
        TC_FRAG_IN(TC_KRP / 8 + 2, (SI) + 1, 2);                                                   \
        TC_FRAG_IN(TC_KRP / 8 + 3, (SI) + 1, 3);                                                   \
        tc_wg_fence();                                                                             \
        TC_FOUR(TC_MMAS, SI, 0);                                                                   \
        TC_MMAS_IN(TC_D(SI), TC_KRP / 8, (SI) + 1, 0, 0);                                          \
        TC_MMAS_IN(TC_D(SI), TC_KRP / 8 + 1, (SI) + 1, 1, 0);                                      \
        TC_MMAS_IN(TC_D(SI), TC_KRP / 8 + 2, (SI) + 1, 2, 0);                                      \
        TC_MMAS_IN(TC_D(SI), TC_KRP / 8 + 3, (SI) + 1, 3, 0);                                      \
        tc_wg_commit();                                                                            \
        TC_WG_WAIT(0);                                                                             \
        TC_ADD(SI);                                                                                \
        TC_OUTCOL(SI);                                                                             \
        TC_OUTCOL((SI) + 1);                                                                       \
    }
#else
#define TC_LAG 1
#endif

/* Steps S .. S + TC_CW - 1, written out: a compiler may leave a loop of this size rolled, and
 * the ring's indices must be constants. */
#if TC_PAIRS
#define TC_STEPS4(S) TC_PAIR(S) TC_PAIR((S) + 2)
#else
#define TC_STEPS4(S) TC_STEP(S) TC_STEP((S) + 1) TC_STEP((S) + 2) TC_STEP((S) + 3)
#endif
#define TC_STEPS8(S) TC_STEPS4(S) TC_STEPS4((S) + 4)
#if TC_CW == 16
#define TC_STEPS(S) TC_STEPS8(S) TC_STEPS8((S) + 8)
#elif TC_CW == 8
#define TC_STEPS(S) TC_STEPS8(S)
#else
#define TC_STEPS(S) TC_STEPS4(S)
#endif

/* The TC_CW steps of staged part H of ring turn ch: the next part's columns fetched first, so
 * that their loads overlap the steps, then the part's outputs flushed and the next part staged
 * (written out as a macro: the ring's register indices must be constants, and a loop over H is
 * not always unrolled). */
#define TC_STAGED(H)                                                                               \
    {                                                                                              \
        TC_MARK(0);                                                                                \
        if (ch + 1 < turns || (H) + 1 < TC_PARTS) TC_FETCH(cb + ch * TC_N + ((H) + 1) * TC_CW);    \
        TC_MARK(5);                                                                                \
        TC_STEPS((H)*TC_CW);                                                                       \
        TC_DRAIN((H)*TC_CW + TC_CW - 1);                                                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        TC_MARK(4);                                                                                \
        TC_PUT(0);                                                                                 \
        TC_PUT_FENCE;                                                                              \
        TC_MARK(6);                                                                                \
        TC_FLUSH(H);                                                                               \
        TC_MARK(7);                                                                                \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        TC_MARK(4);                                                                                \
    }

/* The filter operand of column block blk into gs, values first, first + stride, ...: row p is
 * filter column blk*TC_N + (-(p / TC_S) mod TC_N) shifted down by p % TC_S taps, both parts,
 * K-major in groups of 4 taps (16 bytes a row, rows contiguous: any 16-byte start is an
 * operand). */
inline void tc_filter_operand(__local uint *gs, __global const float *K, float ksc, int corr,
                              int blk, int first, int stride) {
    for (int e = first; e < TC_GPART; e += stride) {
        const int c4 = e % 4, p = (e / 4) % TC_GROWS, k = 4 * (e / (4 * TC_GROWS)) + c4;
        const int lp = (TC_N - p / TC_S % TC_N) % TC_N, l = blk * TC_N + lp;
        const int kf = k - p % TC_S;
        uint big, small;
        tc_split(kf >= 0 && kf < KR && l < KC ? FGLOBAL(kf, l) * ksc : 0.0f, &big, &small);
        gs[e] = big;
        gs[TC_GPART + e] = small;
    }
}

/* M(H) for each staged part H of a ring turn (a constant in each). */
#if TC_PARTS > 4
#define TC_TURN(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#elif TC_PARTS > 2
#define TC_TURN(M) M(0) M(1) M(2) M(3)
#elif TC_PARTS > 1
#define TC_TURN(M) M(0) M(1)
#else
#define TC_TURN(M) M(0)
#endif

/* Non-zero when any of the filter's values that work-item tid of `count` reads, scaled by ksc,
 * is under the 3xTF32 split's range (tf32_tiny). */
inline int tc_filter_tiny(__global const float *K, float ksc, int tid, int count) {
    int tiny = 0;
    for (int e = tid; e < KR * KC; e += count)
        tiny |= tf32_tiny(K[e] * ksc);
    return tiny;
}

/* Values of C a work-item of tc_nan_outputs loads before it looks at them: loads in flight, so
 * that the scan of C runs near the memory's bandwidth. */
#define TC_SCAN 16

/* The second pass where the first left NaN outputs and found no value under the range: every
 * NaN output of C (nsl slices), found by the whole launch reading C once (work-item by work-item
 * along the columns, TC_SCAN values in flight each), recomputed by the plain direct sum as
 * tc_fix does. Consecutive outputs go to consecutive work-items, so a NaN value's window of
 * KR x KC outputs is spread over as many. */
inline void tc_nan_outputs(__global float *C, __global const float *A, __global const float *K,
                           __global const float *kinfo, int ma, int na, int mo, int no, int oi,
                           int oj, int kr, int kc, int corr, int normalize, size_t nsl) {
    const long per = (long)mo * no, n = per * (long)nsl;
    const long lsz = (long)get_local_size(0), groups = (long)get_num_groups(0);
    const long nth = lsz * groups * (long)get_num_groups(1);
    const long me =
        ((long)get_group_id(1) * groups + (long)get_group_id(0)) * lsz + (long)get_local_id(0);
    for (long e0 = me; e0 < n; e0 += TC_SCAN * nth) {
        float v[TC_SCAN];
        _Pragma("unroll") for (int u = 0; u < TC_SCAN; u++) {
            const long e = e0 + u * nth;
            v[u] = e < n ? C[e] : 0.0f;
        }
        _Pragma("unroll") for (int u = 0; u < TC_SCAN; u++) {
            if (isnan(v[u])) {
                const long e = e0 + u * nth, sl = e / per;
                const int r = (int)(e - sl * per), i = r % mo, j = r / mo;
                store_out(C + sl * per, i, j, mo,
                          tc_exact(A + sl * (long)ma * na, K, i, j, ma, na, oi, oj, kr, kc, corr),
                          normalize, kinfo);
            }
        }
    }
}

/* TC_SCALED: 0 builds the kernel's first pass, 1 its second (processes/conv2_direct.c runs the
 * one, then the other; both take launch number tcgen). The first takes the data
 * as they are, and its multiplies by the scales below are by the constant 1 (folded away: on
 * ordinary data it is the kernel of one pass, H200 8192^2 ordinary data ran 3-5% slower with the
 * scales held in registers through one program of both passes, bench/CONV2.md, "Operands scaled
 * into the range"). The second runs only where the first found a value under the split's range
 * (tcr[0] == tcgen): its work-groups find the operands' ranges together (tf32_range_join, into
 * tcr), then each scales the image by xsc = 2^sa and the filter by ksc = 2^sk (tf32_conv_shifts)
 * and the outputs back by osc = 2^-(sa + sk),
 * or takes the data as they are where no shifts hold them. Where the first left NaN outputs
 * (TC_NANFIX) and found no value under the range, it mends them (tc_nan_outputs). */
/* tcr's word that the first pass sets to tcgen where a group of it left NaN outputs to the second
 * (TC_NANFIX; words 0 to 8 and 10 to 13 are tf32_range.cl's). */
#define TC_NANWORD 9
#if TC_SCALED
/* The launch's slices of A (TC_SCALES). */
#define TC_SLICES (TC_SPANS ? get_num_groups(1) : get_num_groups(0) / (ngx * ngy))
#define TC_SCALES                                                                                  \
    __local uint tcrange[5];                                                                       \
    float xsc = 1.0f, ksc = 1.0f, osc = 1.0f;                                                      \
    if (get_group_id(0) == 0 && get_group_id(1) == 0)                                              \
        tf32_range_reset(tcr, tcgen, (int)get_local_id(0));                                        \
    if (GATE_OFF) return;                                                                          \
    if (tcr[0] != tcgen) {                                                                         \
        if (TC_NANFIX == 1 && tcr[TC_NANWORD] == tcgen)                                            \
            tc_nan_outputs(C, A, K, kinfo, ma, na, mo, no, oi, oj, kr, kc, corr, normalize,        \
                           TC_SLICES);                                                             \
        return;                                                                                    \
    }                                                                                              \
    tf32_range_join(A, (long)ma * na * (long)TC_SLICES, K, kr * kc, tcr, tcgen,                    \
                    (int)get_local_id(0), (int)get_local_size(0), tcrange);                        \
    tc_scales(tcrange + 1, &xsc, &ksc, &osc)
#else
#define TC_SCALES                                                                                  \
    const float xsc = 1.0f, ksc = 1.0f, osc = 1.0f;                                                \
    if (GATE_OFF) return
#endif
/* The scales of the second pass from the operands' ranges at[0..3] (tf32_range_join). */
inline void tc_scales(__local const uint *at, float *xsc, float *ksc, float *osc) {
    int sa = 0, sk = 0;
    tf32_conv_shifts(at[0], at[1], at[2], at[3], KR * KC, &sa, &sk);
    *xsc = tf32_pow2(sa), *ksc = tf32_pow2(sk), *osc = tf32_pow2(-(sa + sk));
}

/* The group's end (after its flags are in anynan and anytiny): in the first pass a group that saw
 * a value under the range leaves its outputs to the second (tcr[0] = tcgen), and with TC_NANFIX
 * one that saw a NaN output leaves it to the second (tcr[TC_NANWORD] = tcgen); otherwise NaN
 * outputs, or all of them where a value is under the range still (no shifts held it), are
 * recomputed (tc_fix). */
#define TC_END(FIX)                                                                                \
    if (!TC_SCALED && (anytiny || (TC_NANFIX == 1 && anynan))) {                                   \
        if (tid == 0) tcr[anytiny ? 0 : TC_NANWORD] = tcgen;                                       \
    } else if (anynan || anytiny) {                                                                \
        FIX;                                                                                       \
    }

/* The group's outputs that came out NaN (some work-item of the group saw one), or all of them
 * when `all` (a value of the group's input or of the filter is under the split's range, where
 * 3xTF32 is not fp32-accurate, and no shift brought it in: tf32.cl), recomputed by the 128
 * work-items that wrote them with the plain direct sum. NaN outputs only: the box's outputs
 * (rows box[0]..box[1], columns box[2]..box[3]: tc_note_nan) that this segment holds, dealt out
 * one a work-item in turn, so that a NaN's window of KR x KC outputs is spread over all 128
 * (work-items that took a column's rows as they flushed them left the 31x31 window of one NaN
 * to 31 of them, 31 sums each: bench/CONV2.md, "NaN outputs in a box"). */
inline void tc_fix(__global float *C, __global const float *A, __global const float *K,
                   __global const float *kinfo, int tid, int i0, int j0, int tj, int ma, int na,
                   int mo, int no, int oi, int oj, int kr, int kc, int corr, int normalize, int all,
                   __local const int *box) {
    if (all) {
        for (int v = tid; v < tj * TC_GM; v += 128) {
            const int i = i0 + v % TC_GM, j = j0 + v / TC_GM;
            if (i < mo && j < no)
                store_out(C, i, j, mo, tc_exact(A, K, i, j, ma, na, oi, oj, kr, kc, corr),
                          normalize, kinfo);
        }
        return;
    }
#if TC_BOX
    const int ib = max(box[0], i0), nr = min(box[1], i0 + TC_GM - 1) - ib + 1;
    const int jb = j0 + max(box[2] - j0, 0), nc = j0 + min(box[3] - j0, tj - 1) - jb + 1;
    for (int v = tid; nr > 0 && v < nr * nc; v += 128) {
        const int i = ib + v % nr, j = jb + v / nr;
        if (i < mo && j < no && isnan(C[j * (long)mo + i]))
            store_out(C, i, j, mo, tc_exact(A, K, i, j, ma, na, oi, oj, kr, kc, corr), normalize,
                      kinfo);
    }
#else
    /* No box (TC_NANFIX 2): all the group's outputs, a column's rows on consecutive work-items
     * (turned by TC_FIXSKEW * jj), TC_FIXSCAN loads in flight each before any is mended. */
    (void)box;
    const int n = tj * TC_GM;
    _Pragma("unroll 1") for (int b0 = 0; b0 < n; b0 += 128 * TC_FIXSCAN) {
        float x[TC_FIXSCAN];
        _Pragma("unroll") for (int u = 0; u < TC_FIXSCAN; u++) {
            const int v = b0 + 128 * u + tid, jj = v / TC_GM;
            const int i = i0 + (v + TC_FIXSKEW * jj) % TC_GM, j = j0 + jj;
            x[u] = v < n && i < mo && j < no ? C[j * (long)mo + i] : 0.0f;
        }
        _Pragma("unroll") for (int u = 0; u < TC_FIXSCAN; u++) {
            const int v = b0 + 128 * u + tid, jj = v / TC_GM;
            const int i = i0 + (v + TC_FIXSKEW * jj) % TC_GM, j = j0 + jj;
            if (isnan(x[u]))
                store_out(C, i, j, mo, tc_exact(A, K, i, j, ma, na, oi, oj, kr, kc, corr),
                          normalize, kinfo);
        }
    }
#endif
}

/* The work-group's span: band-columns first .. last - 1 of its slice (ngy of them; ngx bands of
 * TC_GM rows, each no columns wide, counted band after band), walked as segments, one for each
 * band it touches; the statements given run for each segment, with its first row i0, first
 * column j0, length len and ring turns. Long spans (one a compute unit, processes/conv2_direct.c
 * conv2_tensor_spans) pay the walk's halo, a turn a segment, once over many columns. */
#define TC_SPAN(...)                                                                               \
    for (int pos_ = first; pos_ < last;) {                                                         \
        const int i0 = pos_ / no * TC_GM, j0 = pos_ % no, len = min(last - pos_, no - j0);         \
        const int turns = (len - 1) / TC_N + 2;                                                    \
        __VA_ARGS__;                                                                               \
        pos_ += len;                                                                               \
    }

/* The work-group's span (TC_SPAN's first and last, a slice a launch row): ngx bands of TC_GM
 * rows, spans of ngy band-columns. */
#define TC_SPAN_START                                                                              \
    const long slice = get_group_id(1);                                                            \
    const int first = (int)get_group_id(0) * ngy, last = min(first + ngy, ngx * no);               \
    A += slice * (long)ma * na;                                                                    \
    C += slice * (long)mo * no

#if !TC_SPANS && !defined(TJ)
#error "the first form's groups need TJ, their columns"
#endif

#if !TC_WS
__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void
conv2_tensor(CONV2_ARGS, __global uint *restrict tcr, const uint tcgen) {
    (void)skipz, (void)aoff; /* 0: conv2 asks for no view of A where it runs this kernel */
    TC_SCALES;
#if TC_SPANS
    TC_SPAN_START;
#else
    GROUP_COORDS(TC_M, TJ);
#endif
    __local uint gs[2 * TC_GPART] __attribute__((aligned(128)));
    __local uint xs[2 * TC_XS] __attribute__((aligned(128)));
    __local float ys[TC_CW * TC_M];
    __local int anynan, anytiny, nbox[4];
    const int tid = (int)get_local_id(0), w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
    const int mrow = TC_S * (16 * w + g);
#if TC_SS
    const ulong dxs = tc_wg_desc(xs, 64 / TC_S, 128);
#else
    const uint xaddr = tc_smem(xs + mrow + t); /* the work-item's first value of a column */
#endif
    const ulong dbig = tc_wg_desc(gs, TC_LBO, 128), dsmall = tc_wg_desc(gs + TC_GPART, TC_LBO, 128);
    float ring[TC_ND], d[TC_ND];
#if TC_ASYNC
    __local float raw[128 * TC_PF];
#else
    float pf[TC_PF];
#endif
#if TC_PIPE
    float d1[TC_ND];
#endif
    int nan = 0, tiny = tc_filter_tiny(K, ksc, tid, 128);
    if (tid == 0) anynan = anytiny = 0;
    if (tid == 0) TC_BOX_INIT;
#if TC_PROFILE
    uint prof_[8] = {0, 0, 0, 0, 0, 0, 0, 0}, prof_t_, prof_0_;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(prof_t_));
    prof_0_ = prof_t_;
#endif
    /* The walk of len output columns from (i0, j0), a block of filter columns at a time. */
#define TC_WALK                                                                                    \
    const int r0 = i0 + oi - (KR - 1);                                                             \
    for (int blk = 0; blk < TC_NB; blk++) {                                                        \
        const int cb = j0 + oj - (KC - 1) + blk * TC_N;                                            \
        /* The previous block's products are done with gs and xs. */                               \
        TC_WG_WAIT(0);                                                                             \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        tc_filter_operand(gs, K, ksc, corr, blk, tid, 128);                                        \
        TC_FETCH(cb);                                                                              \
        TC_PUT(0);                                                                                 \
        tc_fence_async_local();                                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        _Pragma("unroll") for (int r = 0; r < TC_ND; r++) ring[r] = 0.0f;                          \
        for (int ch = 0; ch < turns; ch++) {                                                       \
            TC_TURN(TC_STAGED)                                                                     \
        }                                                                                          \
    }
#if TC_SPANS
    TC_SPAN(TC_WALK)
#else
    {
        const int len = TJ, turns = TJ / TC_N + 1;
        TC_WALK
    }
#endif
    TC_WG_WAIT(0);
#if TC_PROFILE
    {
        uint c_;
        asm volatile("mov.u32 %0, %%clock;" : "=r"(c_));
        const size_t gid = get_group_id(0);
        if (tid == 0 && (gid == 0 || gid == TC_PROFILE_G))
            printf("tc_profile group %d: total %u; other %u, issue %u, wait %u, finish %u, "
                   "barriers %u, fetch %u, put %u, flush %u\n",
                   (int)gid, c_ - prof_0_, prof_[0], prof_[1], prof_[2], prof_[3], prof_[4],
                   prof_[5], prof_[6], prof_[7]);
    }
#endif
    if (nan) anynan = 1;
    if (tiny) anytiny = 1;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
#if TC_SPANS
    TC_END(TC_SPAN(tc_fix(C, A, K, kinfo, tid, i0, j0, len, ma, na, mo, no, oi, oj, kr, kc, corr,
                          normalize, anytiny, nbox)))
#else
    TC_END(tc_fix(C, A, K, kinfo, tid, i0, j0, TJ, ma, na, mo, no, oi, oj, kr, kc, corr, normalize,
                  anytiny, nbox))
#endif
}
#else /* TC_WS */
/* conv2_tensor's second form (TC_WS): the same steps, divided between warpgroups. Warpgroup 0
 * (the producer) fetches each staged part, splits it into xs and writes the outputs the consumers
 * leave in ys; warpgroups 1 .. TC_WSC (the consumers) each own TC_M rows of the group's TC_GM
 * and only load fragments, multiply and add into their rings. xs and ys have two stages, handed
 * over by transaction barriers (tc_mbar_*): full (a part is in xs), empty (every consumer is done
 * reading it), yfull (a part's outputs are in ys), yempty (the producer has written them out).
 * The consumers never wait on a barrier of the whole work-group inside the walk, and the staging
 * runs beside their products instead of between them. One column block (KC <= TC_N), A from
 * registers, whole steps. */
#if TC_SS || TC_HALVES || TC_ASYNC || TC_PARTS % 2 || KC > TC_N
#error "TC_WS takes A from registers, whole steps, one column block and an even TC_PARTS"
#endif
/* TC_WSREGS_P and TC_WSREGS_C (both or neither): the producer gives registers back (setmaxnreg
 * to TC_WSREGS_P) and the consumers take them (to TC_WSREGS_C); the program is built for one
 * work-group a compute unit (CLIP_SM90A_MINCTAS), so that each warp starts with an even share. */
/* Consumer: staged part H of ring turn ch of the work-group's walk (of all its segments: part
 * P = ch * TC_PARTS + H, stage H % 2). */
#define TC_WSTAGED(H)                                                                              \
    {                                                                                              \
        const int P_ = ch * TC_PARTS + (H);                                                        \
        tc_mbar_wait(full + (H) % 2, P_ / 2);                                                      \
        if (P_ >= 2) tc_mbar_wait(yempty + (H) % 2, P_ / 2 - 1);                                   \
        TC_STEPS((H)*TC_CW);                                                                       \
        TC_DRAIN((H)*TC_CW + TC_CW - 1);                                                           \
        tc_mbar_arrive(empty + (H) % 2);                                                           \
        tc_mbar_arrive(yfull + (H) % 2);                                                           \
    }

__kernel __attribute__((reqd_work_group_size(128 * (TC_WSC + 1), 1, 1))) void
conv2_tensor(CONV2_ARGS, __global uint *restrict tcr, const uint tcgen) {
    (void)skipz, (void)aoff; /* 0: conv2 asks for no view of A where it runs this kernel */
    TC_SCALES;
    TC_SPAN_START;
    __local uint gs[2 * TC_GPART] __attribute__((aligned(128)));
    __local uint xs[4 * TC_XS] __attribute__((aligned(128)));
    __local float yall[TC_WSC * 2 * TC_CW * TC_M];
    __local ulong bars[8];
    __local int anynan, anytiny, nbox[4];
    __local ulong *full = bars, *empty = bars + 2, *yfull = bars + 4, *yempty = bars + 6;
    const int lid = (int)get_local_id(0), wg = lid / 128, tid = lid % 128;
    const int w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
    const int blk = 0;
    int nan = 0, tiny = 0;
    if (lid == 0) {
        anynan = anytiny = 0;
        TC_BOX_INIT;
        for (int b = 0; b < 2; b++) {
            tc_mbar_init(full + b, 128);
            tc_mbar_init(empty + b, 128 * TC_WSC);
            tc_mbar_init(yfull + b, 128 * TC_WSC);
            tc_mbar_init(yempty + b, 128);
        }
        tc_mbar_init_fence();
    }
    tc_filter_operand(gs, K, ksc, corr, blk, lid, 128 * (TC_WSC + 1));
    tc_fence_async_local();
    barrier(CLK_LOCAL_MEM_FENCE);
    if (wg == 0) {
#ifdef TC_WSREGS_C
        TC_SETMAXNREG(dec, TC_WSREGS_P);
#endif
        /* Producer: part p of a segment (P0 + p of the walk) fetched (its loads in flight while
         * it waits), the outputs of part p - 2 written out once the consumers are done with them,
         * then part p put into its stage once they are done reading what was there. */
        float pf[TC_PF];
        int P0 = 0;
        tiny = tc_filter_tiny(K, ksc, tid, 128);
        TC_SPAN({
            const int r0 = i0 + oi - (KR - 1), cb = j0 + oj - (KC - 1), parts = turns * TC_PARTS;
            for (int p = 0; p < parts + 2; p++) {
                const int P = P0 + p;
                if (p < parts) TC_FETCH(cb + p * TC_CW);
                if (p >= 2) {
                    const int Q = P - 2;
                    tc_mbar_wait(yfull + Q % 2, Q / 2);
                    _Pragma("unroll") for (int k_ = 0; k_ < TC_WSC * TC_CW * TC_M / 128; k_++) {
                        const int v = tid + 128 * k_, c = v / (TC_CW * TC_M), q = v / TC_M % TC_CW;
                        const int jt = (p - 2) * TC_CW - TC_N + q + TC_LAG,
                                  row = c * TC_M + v % TC_M;
                        const float y = yall[(c * 2 + Q % 2) * TC_CW * TC_M + v % (TC_CW * TC_M)];
                        if (jt >= 0 && jt < len)
                            TC_NOTE(
                                tc_out(C, kinfo, y, 0, i0 + row, j0 + jt, mo, no, normalize, osc),
                                i0 + row, j0 + jt);
                    }
                    tc_mbar_arrive(yempty + Q % 2);
                }
                if (p < parts) {
                    if (P >= 2) tc_mbar_wait(empty + P % 2, P / 2 - 1);
                    TC_PUT(P % 2 * 2 * TC_XS);
                    tc_mbar_arrive(full + P % 2);
                }
            }
            P0 += parts;
        })
        /* Only the producer writes C, so it alone finds and mends NaN outputs, and the
         * warpgroups end apart: code after a join would be held to the producer's registers. */
        if (nan) anynan = 1;
        if (tiny) anytiny = 1;
        TC_BAR_SYNC(1, 128);
        TC_END(TC_SPAN(tc_fix(C, A, K, kinfo, tid, i0, j0, len, ma, na, mo, no, oi, oj, kr, kc,
                              corr, normalize, anytiny, nbox)))
    } else {
#ifdef TC_WSREGS_C
        TC_SETMAXNREG(inc, TC_WSREGS_C);
#endif
        /* Consumer wg - 1: rows (wg - 1) * TC_M .. of the group's, as the first form's steps. */
        __local float *ys = yall + (wg - 1) * 2 * TC_CW * TC_M;
        const int mrow = TC_S * (16 * w + g);
        const uint xaddr = tc_smem(xs + (wg - 1) * TC_M + mrow + t);
        const ulong dbig = tc_wg_desc(gs, TC_LBO, 128),
                    dsmall = tc_wg_desc(gs + TC_GPART, TC_LBO, 128);
        float ring[TC_ND], d[TC_ND];
#if TC_PIPE
        float d1[TC_ND];
#endif
        /* The segments' turns in one walk: a segment's first turn only completes columns
         * before its first (which the producer drops), zeroing each ring column as it does, and
         * its last leaves column 0 zeroed, so no ring is reset between segments. */
        int walk = 0;
        TC_SPAN(walk += turns)
        _Pragma("unroll") for (int r = 0; r < TC_ND; r++) ring[r] = 0.0f;
        for (int ch = 0; ch < walk; ch++) {
            TC_TURN(TC_WSTAGED)
        }
        TC_WG_WAIT(0);
    }
}
#endif /* TC_WS */
