/* SGEMM on tensor cores, fp32-accurate by 3xTF32: C = alpha*A*B + beta*C, column-major, real
 * single precision, built after tensor_core.cl and tf32.cl, and only for NVIDIA sm_80+
 * (processes/gemm_tc.c).
 *
 * Each work-group computes a TC_MWG x TC_NWG tile of C with (TC_MWG/TC_WM) x (TC_NWG/TC_WN) warps,
 * each warp a TC_WM x TC_WN tile of m16n8k8 mma tiles. K runs in slices of TC_KWG through
 * TC_STAGES local buffers filled by cp.async: while a slice is multiplied, the next TC_STAGES-1
 * are in flight. Every operand value is split into a TF32 pair in registers (tc_split) and each
 * mma tile takes three products, small*big, big*small, then big*big, summed from zero and added
 * to the fp32 accumulator outside the tensor cores (see the loop for why).
 *
 * Local layouts, chosen so that the fragment reads meet no bank conflicts without a swizzle:
 *   A slice: TC_KWG rows (k) of TC_MWG floats (m contiguous, as A is stored) with a pitch of
 *            TC_MWG+8 floats: lane (g, t) reads word t*(MWG+8) + g, i.e. bank 8t + g.
 *   B slice: TC_NWG rows (n) of TC_KWG floats (k contiguous, as B is stored) with a pitch of
 *            TC_KWG+4 floats: ldmatrix's 8 rows of 16 bytes start on distinct 4-bank groups.
 * Both pitches are multiples of 16 bytes, as cp.async and ldmatrix need.
 *
 * The operands' leading dimensions and offsets must be multiples of 4 floats (16-byte copies);
 * M, N and K are free: copies past an edge are zero-filled, stores past it skipped. beta == 0
 * does not read C (BLAS semantics). Outputs that come out NaN are recomputed in plain fp32 (see
 * tc_split): Inf and NaN propagate as in an fp32 GEMM, at the cost of a K-long loop for each
 * such output (a product full of NaN runs at the speed of a naive kernel). With 3xTF32 a
 * work-group whose fragments hold a value outside the split's range (tf32.cl: subnormals,
 * normals under 2^-112, 2^126 and more, Inf, NaN) recomputes its whole tile so, each output by
 * one work-item's K-long fp32 FMA loop: correct, and as slow as that for such data (the wgmma
 * kernels, which auto takes, scale such rows instead: matmul_wg.cl). */
#define TC_PA (TC_MWG + 8)
#define TC_PB (TC_KWG + 4)
#define TC_THREADS (32 * (TC_MWG / TC_WM) * (TC_NWG / TC_WN))
#define TC_MI (TC_WM / 16) /* mma tiles along M per warp */
#define TC_NI (TC_WN / 8)  /* mma tiles along N per warp */
/* Tiles are numbered in groups of this many tile rows, so that a wave of work-groups shares
 * its A rows and B columns in L2. */
#define TC_GROUP 8
/* k8 steps summed on the tensor cores before each fp32 addition into the accumulator. H100,
 * 4096^3: 1 ran at 45.3 TFLOP/s, 2 at 37.6 (more fragments live, 254 registers); the error of
 * either was within 1.3x of the other's on the cases of tests/test_matmul_tc.c. */
#ifndef TC_PROMOTE
#define TC_PROMOTE 1
#endif
/* 3: fp32-accurate (3xTF32); 1: the inputs rounded to TF32, one product each, accumulated on
 * the tensor cores (precision tf32: its error is the inputs' rounding, 2^-11 each). */
#ifndef TC_PASSES
#define TC_PASSES 3
#endif
#if TC_KWG % (8 * TC_PROMOTE)
#error "TC_KWG must hold whole groups of TC_PROMOTE k8 steps"
#endif

/* Issues the copies of one column-major panel into local memory: cols columns of rows floats
 * (rows a multiple of 4), element (row0 + r, col0 + c) of src (leading dimension ld) to
 * dst[c * pitch + r]. Consecutive work-items take consecutive 16-byte chunks of a column
 * (coalesced); chunks at or past row_end are zero-filled in part or whole, columns at or past
 * col_end whole. */
inline void tc_load_panel(__local float *dst, const int pitch, __global const float *src,
                          const int ld, const int rows, const int cols, const int row0,
                          const int col0, const int row_end, const int col_end, const int tid) {
    for (int c = tid; c < cols * (rows / 4); c += TC_THREADS) {
        const int cc = c / (rows / 4), r = (c % (rows / 4)) * 4;
        const int row = row0 + r, col = col0 + cc;
        const int left = row_end - row;
        const uint bytes = col < col_end && left > 0 ? (uint)(left < 4 ? left : 4) * 4u : 0u;
        __global const float *from = bytes ? src + (size_t)col * (size_t)ld + row : src;
        tc_cp_async16(dst + cc * pitch + r, from, bytes);
    }
}

/* Issues the copies of slice k0 into stage buffers as, bs: A's TC_MWG x TC_KWG panel (m
 * contiguous) and B's TC_KWG x TC_NWG panel (k contiguous). */
inline void tc_load_slice(__local float *as, __local float *bs, __global const float *A,
                          const int lda, __global const float *B, const int ldb, const int M,
                          const int N, const int K, const int m0, const int n0, const int k0,
                          const int tid) {
    tc_load_panel(as, TC_PA, A, lda, TC_MWG, TC_KWG, m0, k0, M, K, tid);
    tc_load_panel(bs, TC_PB, B, ldb, TC_KWG, TC_NWG, k0, n0, K, N, tid);
}

__kernel __attribute__((reqd_work_group_size(TC_THREADS, 1, 1))) void
gemm_tc(const int M, const int N, const int K, const float alpha, const float beta,
        __global const float *restrict A, const ulong offa, const int lda,
        __global const float *restrict B, const ulong offb, const int ldb, __global float *C,
        const ulong offc, const int ldc, const int mtiles, const int ntiles) {
    __local float as_all[TC_STAGES * TC_KWG * TC_PA] __attribute__((aligned(16)));
    __local float bs_all[TC_STAGES * TC_NWG * TC_PB] __attribute__((aligned(16)));
    A += offa;
    B += offb;
    C += offc;

    /* Tile (tm, tn) of work-group b: groups of TC_GROUP tile rows, column by column inside. */
    const int b = (int)get_group_id(0), per_group = TC_GROUP * ntiles;
    const int first = b / per_group * TC_GROUP;
    const int rows = mtiles - first < TC_GROUP ? mtiles - first : TC_GROUP;
    const int tm = first + (b % per_group) % rows, tn = (b % per_group) / rows;
    const int m0 = tm * TC_MWG, n0 = tn * TC_NWG;

    const int tid = (int)get_local_id(0), lane = tid % 32, warp = tid / 32;
    const int wm0 = (warp % (TC_MWG / TC_WM)) * TC_WM, wn0 = (warp / (TC_MWG / TC_WM)) * TC_WN;
    const int g = lane / 4, t = lane % 4;

    float acc[TC_MI][TC_NI][4];
#pragma unroll
    for (int i = 0; i < TC_MI; i++)
#pragma unroll
        for (int j = 0; j < TC_NI; j++)
#pragma unroll
            for (int e = 0; e < 4; e++)
                acc[i][j][e] = 0.0f;

    /* The 3xTF32 range rule (tf32.cl): a value outside it in any fragment the work-group
     * multiplies makes it compute its whole tile by fp32 FMA at the end (the wgmma kernels scale
     * rows and columns instead: matmul_wg.cl). */
    __local int any_outside;
    int outside = 0;
    if (tid == 0) any_outside = 0; /* (read after the loop's barriers) */
    const int slices = (K + TC_KWG - 1) / TC_KWG;
    for (int s = 0; s < TC_STAGES - 1; s++) {
        if (s < slices)
            tc_load_slice(as_all + s * TC_KWG * TC_PA, bs_all + s * TC_NWG * TC_PB, A, lda, B, ldb,
                          M, N, K, m0, n0, s * TC_KWG, tid);
        tc_cp_commit(); /* empty groups too: the wait below counts groups */
    }
    /* ldmatrix row of this lane: lanes 8i..8i+7 address tile i = (n tile j + i/2, k half i%2). */
    const int lrow = wn0 + (lane / 16) * 8 + lane % 8, lcol = ((lane / 8) % 2) * 4;

    for (int i = 0; i < slices; i++) {
        TC_CP_WAIT(TC_STAGES - 2);    /* slice i has landed (this work-item's copies) */
        barrier(CLK_LOCAL_MEM_FENCE); /* ... everyone's; and slice i-1's buffer is free */
        const int next = i + TC_STAGES - 1;
        if (next < slices)
            tc_load_slice(as_all + (next % TC_STAGES) * TC_KWG * TC_PA,
                          bs_all + (next % TC_STAGES) * TC_NWG * TC_PB, A, lda, B, ldb, M, N, K, m0,
                          n0, next * TC_KWG, tid);
        tc_cp_commit();

        __local const float *as = as_all + (i % TC_STAGES) * TC_KWG * TC_PA;
        __local const float *bs = bs_all + (i % TC_STAGES) * TC_NWG * TC_PB;
        /* TC_PROMOTE k8 steps at a time: their products are summed on the tensor cores from
         * zero and then added to the accumulator outside them (see below). */
#pragma unroll
        for (int k0 = 0; k0 < TC_KWG; k0 += 8 * TC_PROMOTE) {
            uint abig[TC_PROMOTE][TC_MI][4], asmall[TC_PROMOTE][TC_MI][4];
#pragma unroll
            for (int q = 0; q < TC_PROMOTE; q++)
#pragma unroll
                for (int mi = 0; mi < TC_MI; mi++) {
                    __local const float *p = as + (k0 + 8 * q + t) * TC_PA + wm0 + mi * 16 + g;
#if TC_PASSES == 3
                    outside |= tf32_outside(p[0]) | tf32_outside(p[8]) |
                               tf32_outside(p[4 * TC_PA]) | tf32_outside(p[4 * TC_PA + 8]);
#endif
                    tc_split(p[0], &abig[q][mi][0], &asmall[q][mi][0]);
                    tc_split(p[8], &abig[q][mi][1], &asmall[q][mi][1]);
                    tc_split(p[4 * TC_PA], &abig[q][mi][2], &asmall[q][mi][2]);
                    tc_split(p[4 * TC_PA + 8], &abig[q][mi][3], &asmall[q][mi][3]);
                }
#pragma unroll
            for (int nj = 0; nj < TC_NI; nj += 2) {
                uint raw[TC_PROMOTE][4];
#pragma unroll
                for (int q = 0; q < TC_PROMOTE; q++)
                    tc_ldmatrix_x4(raw[q], bs + (lrow + nj * 8) * TC_PB + k0 + 8 * q + lcol);
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    uint bbig[TC_PROMOTE][2], bsmall[TC_PROMOTE][2];
#pragma unroll
                    for (int q = 0; q < TC_PROMOTE; q++) {
#if TC_PASSES == 3
                        outside |= tf32_outside(as_float(raw[q][2 * h])) |
                                   tf32_outside(as_float(raw[q][2 * h + 1]));
#endif
                        tc_split(as_float(raw[q][2 * h]), &bbig[q][0], &bsmall[q][0]);
                        tc_split(as_float(raw[q][2 * h + 1]), &bbig[q][1], &bsmall[q][1]);
                    }
#if TC_PASSES == 1
#pragma unroll
                    for (int mi = 0; mi < TC_MI; mi++)
#pragma unroll
                        for (int q = 0; q < TC_PROMOTE; q++)
                            tc_mma_tf32(acc[mi][nj + h], abig[q][mi], bbig[q]);
#else
#pragma unroll
                    for (int mi = 0; mi < TC_MI; mi++) {
                        /* The tensor cores add into their fp32 accumulator truncating, with an
                         * error of about an ulp of the accumulator per mma: summed over K that
                         * was 10 to 1000 times the FFMA kernel's error (H100, 1024 to 131072
                         * deep). So the products of TC_PROMOTE k8 steps are summed from zero,
                         * where that error is relative to a few products, and added to the
                         * accumulator by an ordinary (round-to-nearest) fp32 addition. */
                        float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
                        for (int q = 0; q < TC_PROMOTE; q++) {
                            tc_mma_tf32(part, asmall[q][mi], bbig[q]);
                            tc_mma_tf32(part, abig[q][mi], bsmall[q]);
                            tc_mma_tf32(part, abig[q][mi], bbig[q]);
                        }
#pragma unroll
                        for (int e = 0; e < 4; e++)
                            acc[mi][nj + h][e] += part[e];
                    }
#endif
                }
            }
        }
    }
    TC_CP_WAIT(0); /* no copy may outlive the work-group (the trailing groups are empty) */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (outside) any_outside = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    const int redo = any_outside;

    /* C fragment (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1) of each mma tile. */
#pragma unroll
    for (int mi = 0; mi < TC_MI; mi++)
#pragma unroll
        for (int nj = 0; nj < TC_NI; nj++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int row = m0 + wm0 + mi * 16 + g + (e / 2) * 8;
                const int col = n0 + wn0 + nj * 8 + 2 * t + e % 2;
                if (row < M && col < N) {
                    float r = acc[mi][nj][e];
                    /* NaN: a NaN or infinite operand (tc_split), or a TF32 rounding past
                     * FLT_MAX; redo: a value outside the split's range in the tile. The plain
                     * fp32 dot product gives what an fp32 GEMM gives. */
                    if (redo || isnan(r)) {
                        r = 0.0f;
                        for (int q = 0; q < K; q++)
                            r = fma(A[(size_t)q * (size_t)lda + row],
                                    B[(size_t)col * (size_t)ldb + q], r);
                    }
                    __global float *c = C + (size_t)col * (size_t)ldc + row;
                    *c = beta != 0.0f ? alpha * r + beta * *c : alpha * r;
                }
            }
}
