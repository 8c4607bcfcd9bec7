/* GEMM: C = alpha*A*B + beta*C, column-major (MATLAB's layout), any M, N, K, real or complex.
 *
 * One source, specialised at build time by -D parameters (processes/gemm.c chooses them):
 *   MWG x NWG      the tile of C one work-group computes
 *   MDIMC x NDIMC  the work-group size; each work-item owns an MWI x NWI register tile
 *                  (MWI = MWG/MDIMC, NWI = NWG/NDIMC)
 *   KWG            the K slice: staged in local memory per step (SA/SB), else the unroll depth
 *   VW             vector width along M, the contiguous direction of A and C
 *   SA, SB         stage the A / B tile in local memory (GPUs), or read global memory directly
 *                  (CPUs, whose caches do the staging and where a copy only costs)
 *   PADA, PADB     local-memory padding in elements, against bank conflicts
 * A work-item's rows are VW-wide vectors strided by MDIMC*VW, and its columns are strided by
 * NDIMC, so neighbouring work-items touch neighbouring addresses (coalescing on GPUs, conflict-
 * free local reads).
 *
 * Edges: a work-group whose tile sticks out of C clamps its row/column indices into the matrix.
 * A clamped row of A (column of B) only feeds a row (column) of C that is never stored, so M and
 * N need no zero fill; K is never clamped, since it mixes: the last slice runs its exact length.
 * Only tiles crossing M take the slower path (element-wise A loads, masked C rows); columns past
 * N cost nothing but the unstored results.
 * beta == 0 does not read C (BLAS semantics: NaN in an uninitialised C must not leak).
 * GEMM_SCALAR_ONLY leaves the GEMM out when only the scalar product below is needed. */
#ifndef GEMM_SCALAR_ONLY
#ifndef MWG
#define MWG 64
#endif
#ifndef NWG
#define NWG 64
#endif
#ifndef KWG
#define KWG 16
#endif
#ifndef MDIMC
#define MDIMC 16
#endif
#ifndef NDIMC
#define NDIMC 16
#endif
#ifndef VW
#define VW 1
#endif
#ifndef SA
#define SA 1
#endif
#ifndef SB
#define SB 1
#endif
#ifndef PADA
#define PADA 0
#endif
#ifndef PADB
#define PADB 1
#endif

#define WGS (MDIMC * NDIMC)
#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define MVI (MWI / VW)
#define LDAL (MWG + PADA) /* elements per k row of the local A tile */
#define LDBL (NWG + PADB) /* elements per k row of the local B tile */

#if CLIP_COMPLEX
#define CPX 2 /* reals per element */
#else
#define CPX 1
#endif
/* Reals per vector, as a literal so that it can be pasted into type and vload names. */
#if VW * CPX == 1
#define VWR 1
#elif VW * CPX == 2
#define VWR 2
#elif VW * CPX == 4
#define VWR 4
#elif VW * CPX == 8
#define VWR 8
#elif VW * CPX == 16
#define VWR 16
#else
#error "VW must be 1, 2, 4, 8 or 16 reals wide"
#endif
#if CLIP_DOUBLE
#define REAL double
#else
#define REAL float
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if VWR == 1
typedef real_t vec_t;
#define VLOAD(p) (*(p))
#define VSTORE(v, p) (*(p) = (v))
#else
typedef CAT(REAL, VWR) vec_t;
#define VLOAD(p) CAT(vload, VWR)(0, (p))
#define VSTORE(v, p) CAT(vstore, VWR)((v), 0, (p))
#endif

#if CLIP_COMPLEX
/* i*v for VW interleaved complex values: (-im, re) per pair. A complex product a*b is then
 * re(b)*a + im(b)*(i*a): two real FMAs per real lane, and i*a is formed once per k and reused
 * across the NWI columns. */
#if VWR == 2
#define MULI(v) ((vec_t)(-(v).s1, (v).s0))
#elif VWR == 4
#define MULI(v) ((vec_t)(-(v).s1, (v).s0, -(v).s3, (v).s2))
#elif VWR == 8
#define MULI(v) ((vec_t)(-(v).s1, (v).s0, -(v).s3, (v).s2, -(v).s5, (v).s4, -(v).s7, (v).s6))
#else
#define MULI(v)                                                                                \
    ((vec_t)(-(v).s1, (v).s0, -(v).s3, (v).s2, -(v).s5, (v).s4, -(v).s7, (v).s6, -(v).s9, (v).s8, \
             -(v).sb, (v).sa, -(v).sd, (v).sc, -(v).sf, (v).se))
#endif
#define MADD(acc, a, ai, b) (acc) = fma((ai), (vec_t)((b).y), fma((a), (vec_t)((b).x), (acc)))
#define SCALE(v, s) ((v) * (vec_t)((s).x) + MULI(v) * (vec_t)((s).y))
#define IS_ZERO(s) ((s).x == 0 && (s).y == 0)
#define IS_ONE(s) ((s).x == 1 && (s).y == 0)
#else
#define MADD(acc, a, ai, b) (acc) = fma((a), (vec_t)(b), (acc))
#define SCALE(v, s) ((v) * (vec_t)(s))
#define IS_ZERO(s) ((s) == 0)
#define IS_ONE(s) ((s) == 1)
#endif

/* VW elements of column k of A from row `row` on; on an edge tile, a vector that crosses M is
 * gathered with its rows clamped. */
inline vec_t load_a(__global const real_t *A, const int lda, const int row, const int k, const int M,
                    const int edge) {
    __global const real_t *col = A + (size_t)k * (size_t)lda * CPX;
    if (!edge || row + VW <= M) return VLOAD(col + (size_t)row * CPX);
    real_t t[VWR];
    for (int e = 0; e < VW; e++) {
        const int r = min(row + e, M - 1);
        t[e * CPX] = col[(size_t)r * CPX];
#if CLIP_COMPLEX
        t[e * CPX + 1] = col[(size_t)r * CPX + 1];
#endif
    }
    return VLOAD(t);
}

/* B(k, col), the column clamped into the matrix. */
inline elem_t load_b(__global const real_t *B, const int ldb, const int k, const int col,
                     const int N) {
    __global const real_t *p = B + ((size_t)min(col, N - 1) * (size_t)ldb + (size_t)k) * CPX;
#if CLIP_COMPLEX
    return vload2(0, p);
#else
    return *p;
#endif
}

/* Accumulates `len` steps of k (from k0) into the work-item's register tile. With len a
 * compile-time KWG after inlining, the loops unroll into straight FMA code. Only rows need an
 * edge case (edge_m: gather A vectors that cross M); B comes through column pointers clamped
 * once per tile (bcol), so a thin N (a matrix-vector product) still loads A as vectors. */
inline void gemm_slice(vec_t acc[NWI][MVI], const int len, const int edge_m, const int k0,
                       const int m0, const int M, __global const real_t *A, const int lda,
                       __global const real_t *bcol[NWI], __local const real_t *Alm,
                       __local const elem_t *Blm) {
    const int lid0 = get_local_id(0), lid1 = get_local_id(1);
    for (int kk = 0; kk < len; kk++) {
        vec_t a[MVI];
#if CLIP_COMPLEX
        vec_t ai[MVI];
#endif
#pragma unroll
        for (int iv = 0; iv < MVI; iv++) {
            const int r = (iv * MDIMC + lid0) * VW;
#if SA
            a[iv] = VLOAD(Alm + (kk * LDAL + r) * CPX);
#else
            a[iv] = load_a(A, lda, m0 + r, k0 + kk, M, edge_m);
#endif
#if CLIP_COMPLEX
            ai[iv] = MULI(a[iv]);
#endif
        }
#pragma unroll
        for (int j = 0; j < NWI; j++) {
#if SB
            const elem_t b = Blm[kk * LDBL + j * NDIMC + lid1];
#elif CLIP_COMPLEX
            const elem_t b = vload2(k0 + kk, bcol[j]);
#else
            const elem_t b = bcol[j][k0 + kk];
#endif
#pragma unroll
            for (int iv = 0; iv < MVI; iv++) MADD(acc[j][iv], a[iv], ai[iv], b);
        }
    }
}

/* Copies the A and B tiles of slice k0 into local memory (rows of k past K are skipped: the
 * compute of the last slice stops at K). */
inline void gemm_stage(const int edge_m, const int k0, const int m0, const int n0, const int M,
                       const int N, const int K, __global const real_t *A, const int lda,
                       __global const real_t *B, const int ldb, __local real_t *Alm,
                       __local elem_t *Blm) {
    const int lid = get_local_id(1) * MDIMC + get_local_id(0);
#if SA
    for (int v = lid; v < MWG / VW * KWG; v += WGS) {
        const int mv = v % (MWG / VW), kk = v / (MWG / VW);
        if (k0 + kk < K)
            VSTORE(load_a(A, lda, m0 + mv * VW, k0 + kk, M, edge_m),
                   Alm + (kk * LDAL + mv * VW) * CPX);
    }
#endif
#if SB
    for (int v = lid; v < KWG * NWG; v += WGS) {
        const int kk = v % KWG, nn = v / KWG;
        if (k0 + kk < K) Blm[kk * LDBL + nn] = load_b(B, ldb, k0 + kk, n0 + nn, N);
    }
#endif
}

/* C(row.., col) = alpha*acc + beta*C for one vector; on an edge tile only rows < M are kept. */
inline void gemm_store(vec_t v, const elem_t alpha, const elem_t beta, __global real_t *p,
                       const int row, const int M, const int edge) {
    /* alpha = 1 leaves v alone: a complex scaling would turn an Inf into Inf + NaN*i. */
    if (!IS_ONE(alpha)) v = SCALE(v, alpha);
    if (!edge) {
        if (!IS_ZERO(beta)) v += SCALE(VLOAD(p), beta);
        VSTORE(v, p);
        return;
    }
    real_t t[VWR], c[VWR];
    VSTORE(v, t);
    for (int e = 0; e < VWR; e++) c[e] = 0;
    for (int e = 0; e < VW; e++)
        if (row + e < M && !IS_ZERO(beta)) {
            c[e * CPX] = p[e * CPX];
#if CLIP_COMPLEX
            c[e * CPX + 1] = p[e * CPX + 1];
#endif
        }
    if (!IS_ZERO(beta)) {
        v += SCALE(VLOAD(c), beta);
        VSTORE(v, t);
    }
    for (int e = 0; e < VW; e++)
        if (row + e < M) {
            p[e * CPX] = t[e * CPX];
#if CLIP_COMPLEX
            p[e * CPX + 1] = t[e * CPX + 1];
#endif
        }
}

/* Offsets (in elements) let a caller multiply sub-matrices of larger buffers. */
__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1))) void gemm(
    const int M, const int N, const int K, const elem_t alpha, const elem_t beta,
    __global const real_t *restrict A, const ulong offA, const int lda,
    __global const real_t *restrict B, const ulong offB, const int ldb,
    __global real_t *restrict C, const ulong offC, const int ldc) {
#if SA
    __local real_t Alm[KWG * LDAL * CPX];
#else
    __local real_t *Alm = 0;
#endif
#if SB
    __local elem_t Blm[KWG * LDBL];
#else
    __local elem_t *Blm = 0;
#endif
    A += offA * CPX;
    B += offB * CPX;
    C += offC * CPX;
    const int lid0 = get_local_id(0), lid1 = get_local_id(1);
    const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
    const int edge_m = m0 + MWG > M;

    /* The work-item's columns of B, clamped into the matrix once for the whole K loop. */
    __global const real_t *bcol[NWI];
#pragma unroll
    for (int j = 0; j < NWI; j++)
        bcol[j] = B + (size_t)min(n0 + j * NDIMC + lid1, N - 1) * (size_t)ldb * CPX;

    vec_t acc[NWI][MVI];
#pragma unroll
    for (int j = 0; j < NWI; j++)
#pragma unroll
        for (int iv = 0; iv < MVI; iv++) acc[j][iv] = (vec_t)0;

    for (int k0 = 0; k0 < K; k0 += KWG) {
#if SA || SB
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous slice has been consumed */
        if (edge_m)
            gemm_stage(1, k0, m0, n0, M, N, K, A, lda, B, ldb, Alm, Blm);
        else
            gemm_stage(0, k0, m0, n0, M, N, K, A, lda, B, ldb, Alm, Blm);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
        if (k0 + KWG <= K) {
            if (edge_m)
                gemm_slice(acc, KWG, 1, k0, m0, M, A, lda, bcol, Alm, Blm);
            else
                gemm_slice(acc, KWG, 0, k0, m0, M, A, lda, bcol, Alm, Blm);
        } else if (edge_m) {
            gemm_slice(acc, K - k0, 1, k0, m0, M, A, lda, bcol, Alm, Blm);
        } else {
            gemm_slice(acc, K - k0, 0, k0, m0, M, A, lda, bcol, Alm, Blm);
        }
    }

#pragma unroll
    for (int j = 0; j < NWI; j++) {
        const int col = n0 + j * NDIMC + lid1;
        if (col >= N) continue;
#pragma unroll
        for (int iv = 0; iv < MVI; iv++) {
            const int row = m0 + (iv * MDIMC + lid0) * VW;
            if (row >= M) continue;
            __global real_t *p = C + ((size_t)col * (size_t)ldc + (size_t)row) * CPX;
            if (edge_m)
                gemm_store(acc[j][iv], alpha, beta, p, row, M, 1);
            else
                gemm_store(acc[j][iv], alpha, beta, p, row, M, 0);
        }
    }
}

#endif /* GEMM_SCALAR_ONLY */

/* s*X element-wise, s a 1x1 matrix on the device: MATLAB's A*B when A or B is a scalar. One
 * element per work-item (PoCL vectorises across work-items, not along a loop inside one). */
__kernel void gemm_scalar(__global const real_t *S, __global const real_t *X, __global real_t *Y,
                          const ulong n) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
#if CLIP_COMPLEX
    vstore2(clip_cmul(vload2(0, S), vload2(i, X)), i, Y);
#else
    Y[i] = S[0] * X[i];
#endif
}
