/* GEMM: C = alpha*A*B + beta*C, column-major (MATLAB's layout), any M, N, K, real or complex.
 *
 * One source, specialised at build time by -D parameters (processes/gemm.c chooses them):
 *   MWG x NWG      the tile of C one work-group computes
 *   MDIMC x NDIMC  the work-group size; each work-item owns an MWI x NWI register tile
 *                  (MWI = MWG/MDIMC, NWI = NWG/NDIMC)
 *   KWG            the K slice (gemm_tiled: staged in local memory per step; gemm: unroll depth)
 *   VW             vector width along M, the contiguous direction of A and C
 * gemm_tiled only:
 *   VWN            vector width of the local B reads along N
 *   VWB            vector width of the global loads along K: a plain B's (its contiguous
 *                  direction), and a transposed A's (stored K x M, contiguous along K)
 *   PADA, PADB     local padding in elements (multiples of VW and VWN): spreads the element
 *                  stores that transpose vectors along K into the k-major local tiles
 *   DB             1: two local buffers, the next slice fetched into registers while the current
 *                  one is multiplied (one barrier per slice); 0: one buffer, two barriers;
 *                  2: as 1, and each k's A and B operands read from local memory while the
 *                  previous k is multiplied, the first k of a slice before the last k of the
 *                  slice before (the barrier between them then no longer exposes the latency)
 *   SK             1: gemm_tiled also runs stream-K work-groups (see "Stream-K" below)
 *   WM             work-items along M in each group of 32 consecutive ones (a warp on NVIDIA);
 *                  WM = MDIMC keeps the plain layout
 *   ALIGNED        1: M, the leading dimensions of A and C and their offsets are multiples of
 *                  VW, so A and C move as whole aligned vectors (NVIDIA splits an access it cannot
 *                  prove aligned into scalar ones); 0: unaligned vloads and element-wise edges
 *                  (with TRANSA only C's leading dimension and offset count)
 *   ALIGNB         TRANSB: B's leading dimension and offset are multiples of VWN, so its rows
 *                  move as whole aligned VWN vectors
 * Both kernels:
 *   TRANSA, TRANSB 0: the operand as stored; 1: its transpose (MATLAB .'); 2: its conjugate
 *                  transpose (MATLAB '; complex types only, a real one is built as 1). op(A) is
 *                  M x K and op(B) K x N; the stored matrices are read in place with the index
 *                  order swapped, and conjugated as they are loaded: no transposed copy is made.
 *                  gemm_tiled moves a transposed A as it moves a plain B (vectors along K,
 *                  scattered into the k-major local tile) and a transposed B as it moves a plain
 *                  A (vectors along N, stored whole), so every global load stays coalesced.
 * A work-item's rows are VW-wide vectors strided by MDIMC*VW and its columns VWN-wide strips
 * strided by NDIMC*VWN, so neighbouring work-items touch neighbouring addresses (coalesced global
 * stores, conflict-free local reads).
 *
 * Edges: a work-group whose tile sticks out of C clamps its row/column indices into the matrix.
 * A clamped row of A (column of B) only feeds a row (column) of C that is never stored, so M and
 * N need no zero fill. K is never clamped, since it mixes: gemm_tiled zero-fills the part of the
 * last slice past K in both A and B (0*0 adds nothing, not even a NaN), gemm runs the last slice
 * at its exact length.
 * Split K (gemm_tiled): work-group dimension 2 indexes a chunk of K; each chunk writes its partial
 * product to its own slab of a workspace (C, offC + split*cstride) and gemm_reduce adds the slabs.
 * beta == 0 does not read C (BLAS semantics: NaN in an uninitialised C must not leak).
 * GEMM_KERNEL = 1 builds only gemm_tiled and gemm_reduce, 2 only gemm (a GPU compiler spends
 * seconds on each unrolled kernel); GEMM_SCALAR_ONLY leaves the GEMM out when only the scalar
 * product below is needed. */
#ifndef GEMM_KERNEL
#define GEMM_KERNEL 0
#endif
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
#ifndef VWN
#define VWN 1
#endif
#ifndef VWB
#define VWB 1
#endif
#ifndef PADA
#define PADA 0
#endif
#ifndef PADB
#define PADB 0
#endif
#ifndef DB
#define DB 1
#endif
#ifndef ALIGNED
#define ALIGNED 0
#endif
#ifndef WM
#define WM MDIMC
#endif
#ifndef SK
#define SK 0
#endif
#ifndef TRANSA
#define TRANSA 0
#endif
#ifndef TRANSB
#define TRANSB 0
#endif
#ifndef ALIGNB
#define ALIGNB 0
#endif

#define WGS (MDIMC * NDIMC)
#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define MVI (MWI / VW)
#define NVI (NWI / VWN)

#if CLIP_COMPLEX
#define CPX 2 /* reals per element */
#else
#define CPX 1
#endif
#define RCAT_(a, b) a##b
#define RCAT(a, b) RCAT_(a, b) /* for use inside CLIP_CAT's expansion, where it is not expanded */
/* Literal reals per vector, so that they can be pasted into type and vload names. */
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
#if VWN * CPX == 1
#define VNR 1
#elif VWN * CPX == 2
#define VNR 2
#elif VWN * CPX == 4
#define VNR 4
#elif VWN * CPX == 8
#define VNR 8
#elif VWN * CPX == 16
#define VNR 16
#else
#error "VWN must be 1, 2, 4, 8 or 16 reals wide"
#endif
#if VWB * CPX == 1
#define VBR 1
#elif VWB * CPX == 2
#define VBR 2
#elif VWB * CPX == 4
#define VBR 4
#elif VWB * CPX == 8
#define VBR 8
#elif VWB * CPX == 16
#define VBR 16
#else
#error "VWB must be 1, 2, 4, 8 or 16 reals wide"
#endif

/* RVEC(n): the vector of n reals; RLOAD/RSTORE(n, p): unaligned access to one. */
#define RVEC_1 CLIP_REAL
#define RVEC_2 RCAT(CLIP_REAL, 2)
#define RVEC_4 RCAT(CLIP_REAL, 4)
#define RVEC_8 RCAT(CLIP_REAL, 8)
#define RVEC_16 RCAT(CLIP_REAL, 16)
#define RVEC(n) CLIP_CAT(RVEC_, n)
#define RLOAD_1(p) (*(p))
#define RLOAD_2(p) vload2(0, (p))
#define RLOAD_4(p) vload4(0, (p))
#define RLOAD_8(p) vload8(0, (p))
#define RLOAD_16(p) vload16(0, (p))
#define RLOAD(n, p) CLIP_CAT(RLOAD_, n)(p)
#define RSTORE_1(v, p) (*(p) = (v))
#define RSTORE_2(v, p) vstore2((v), 0, (p))
#define RSTORE_4(v, p) vstore4((v), 0, (p))
#define RSTORE_8(v, p) vstore8((v), 0, (p))
#define RSTORE_16(v, p) vstore16((v), 0, (p))
#define RSTORE(n, v, p) CLIP_CAT(RSTORE_, n)((v), (p))

typedef RVEC(VWR) vec_t;  /* VW elements along M */
typedef RVEC(VNR) bvec_t; /* VWN elements along N (local B) */
typedef RVEC(VBR) gvec_t; /* VWB elements along K (global B) */
typedef union {
    bvec_t v;
    elem_t e[VWN];
} bvec_u;
typedef union {
    gvec_t v;
    elem_t e[VWB];
} gvec_u;

/* Conjugation as an operand is loaded (TRANSA/TRANSB 2): CONJ_R(n, v) negates the imaginary
 * lanes of n interleaved reals, CONJ_E one element. Multiplying by -1 rather than subtracting
 * from 0 keeps MATLAB's signed zeros (conj(x + 0i) = x - 0i). */
#if CLIP_COMPLEX
#define CSIGN_2 ((RVEC_2)(1, -1))
#define CSIGN_4 ((RVEC_4)(1, -1, 1, -1))
#define CSIGN_8 ((RVEC_8)(1, -1, 1, -1, 1, -1, 1, -1))
#define CSIGN_16 ((RVEC_16)(1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1, 1, -1))
#define CONJ_R(n, v) ((v) * CLIP_CAT(CSIGN_, n))
#define CONJ_E(v) ((elem_t)((v).x, -(v).y))
#define CONJ_A (TRANSA == 2)
#define CONJ_B (TRANSB == 2)
#else
#define CONJ_R(n, v) (v)
#define CONJ_E(v) (v)
#define CONJ_A 0
#define CONJ_B 0
#endif
#define VLOAD(p) RLOAD(VWR, p)
#define VSTORE(v, p) RSTORE(VWR, v, p)
#if ALIGNED
#define VLOAD_C(p) (*(__global const vec_t *)(p))
#define VSTORE_C(v, p) (*(__global vec_t *)(p) = (v))
#else
#define VLOAD_C(p) VLOAD(p)
#define VSTORE_C(v, p) VSTORE(v, p)
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
#ifndef REAL_A
#define REAL_A 0
#endif
#ifndef REAL_B
#define REAL_B 0
#endif
/* MADD(acc, a, ai, b): acc += a*b for VW elements a of A and one element b of B, with ai =
 * A_AUX(a) formed once per k. REAL_A or REAL_B 1: that operand was real before its promotion
 * to complex, and multiplies each part of the other alone, as MATLAB's real*complex (complex(Inf,
 * 0)*[1 0] is [Inf 0], where complex products give Inf*0 = NaN in the imaginary parts). */
#if REAL_B
#define A_AUX(v) (v)
#define MADD(acc, a, ai, b) (acc) = fma((a), (vec_t)((b).x), (acc))
#elif REAL_A
/* re(a) in both lanes of each pair, times (re(b), im(b)) in each pair. */
#if VWR == 2
#define A_AUX(v) ((v).s00)
#define B_PAIRS(b) (b)
#elif VWR == 4
#define A_AUX(v) ((v).s0022)
#define B_PAIRS(b) ((vec_t)((b), (b)))
#elif VWR == 8
#define A_AUX(v) ((v).s00224466)
#define B_PAIRS(b) ((vec_t)((b), (b), (b), (b)))
#else
#define A_AUX(v) ((v).s0022446688aaccee)
#define B_PAIRS(b) ((vec_t)((b), (b), (b), (b), (b), (b), (b), (b)))
#endif
#define MADD(acc, a, ai, b) (acc) = fma((ai), B_PAIRS(b), (acc))
#else
#define A_AUX(v) MULI(v)
#define MADD(acc, a, ai, b) (acc) = fma((ai), (vec_t)((b).y), fma((a), (vec_t)((b).x), (acc)))
#endif
#define SCALE(v, s) ((v) * (vec_t)((s).x) + MULI(v) * (vec_t)((s).y))
#define IS_ZERO(s) ((s).x == 0 && (s).y == 0)
#define IS_ONE(s) ((s).x == 1 && (s).y == 0)
#else
#define MADD(acc, a, ai, b) (acc) = fma((a), (vec_t)(b), (acc))
#define SCALE(v, s) ((v) * (vec_t)(s))
#define IS_ZERO(s) ((s) == 0)
#define IS_ONE(s) ((s) == 1)
#endif

/* C(row.., col) = alpha*acc + beta*C for one vector; on an edge vector (crossing M, possible
 * only when not ALIGNED) only rows < M are kept. */
inline void gemm_store(vec_t v, const elem_t alpha, const elem_t beta, __global real_t *p,
                       const int row, const int M) {
    /* alpha = 1 leaves v alone: a complex scaling would turn an Inf into Inf + NaN*i. */
    if (!IS_ONE(alpha)) v = SCALE(v, alpha);
    if (ALIGNED || row + VW <= M) {
        if (!IS_ZERO(beta)) v += SCALE(VLOAD_C(p), beta);
        VSTORE_C(v, p);
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

/* VW elements of column k of A from row `row` on; a vector that crosses M is gathered with its
 * rows clamped. */
inline vec_t load_a(__global const real_t *A, const int lda, const int row, const int k, const int M,
                    const int edge) {
#if TRANSA
    /* op(A)(r, k) = A(k, r): the VW rows are VW columns of the stored A, gathered (the direct and
     * small kernels serve CPUs and tiny products, where the gather is cache-resident). */
    (void)edge;
    real_t t[VWR];
    for (int e = 0; e < VW; e++) {
        const int r = min(row + e, M - 1);
        __global const real_t *x = A + ((size_t)r * (size_t)lda + (size_t)k) * CPX;
        t[e * CPX] = x[0];
#if CLIP_COMPLEX
        t[e * CPX + 1] = CONJ_A ? -x[1] : x[1];
#endif
    }
    return VLOAD(t);
#else
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
#endif
}

/* Element k of column j of op(B), from `col`, which points at B(0, j) (plain) or B(j, 0)
 * (transposed: then consecutive k are ldb apart). */
inline elem_t load_b(__global const real_t *col, const int k, const int ldb) {
#if TRANSB
    const size_t at = (size_t)k * (size_t)ldb;
#else
    const size_t at = (size_t)k;
    (void)ldb;
#endif
#if CLIP_COMPLEX
    const elem_t b = vload2(at, col);
    return CONJ_B ? CONJ_E(b) : b;
#else
    return col[at];
#endif
}

#if GEMM_KERNEL != 2
/* ---- gemm_tiled: local-memory tiles for GPUs ------------------------------------------------
 * Local A is k-major as in global memory (row r of slice k at k*LDAL + r); local B is
 * transposed to k-major (column n of slice k at k*LDBL + n), so that a work-item reads its A
 * rows and its B columns for one k as whole vectors. */
#define LDAL (MWG + PADA)
#define LDBL (NWG + PADB)
#define ABUF (KWG * LDAL / VW)    /* vec_t per A buffer */
#define BBUF (KWG * LDBL / VWN)   /* bvec_t per B buffer */
/* Global vectors per slice: along M (plain A: vec_t) or K (transposed A: gvec_t); along K (plain
 * B: gvec_t) or N (transposed B: bvec_t). */
#if TRANSA
#define A_VECS (KWG / VWB * MWG)
typedef gvec_t avec_t;
#else
#define A_VECS (MWG / VW * KWG)
typedef vec_t avec_t;
#endif
#if TRANSB
#define B_VECS (NWG / VWN * KWG)
typedef bvec_t bgvec_t;
#else
#define B_VECS (KWG / VWB * NWG)
typedef gvec_t bgvec_t;
#endif
#define LA ((A_VECS + WGS - 1) / WGS)
#define LB ((B_VECS + WGS - 1) / WGS)
#if DB
#define NBUF 2
#else
#define NBUF 1
#endif

/* The work-item's share of one slice's global loads: where they come from, where they go. */
typedef struct {
    __global const real_t *pa[LA]; /* A vector at (row, kbeg + ak) of the current slice */
    __global const real_t *pb[LB]; /* B vector at (kbeg + bk, col) of the current slice */
    int ak[LA], bk[LB];            /* k offset within the slice */
    int arow[LA];                  /* plain A: the vector's first row (for the edge gather) */
    int bcol[LB];                  /* transposed B: the vector's first column (likewise) */
    int adst[LA], bdst[LB];        /* local offsets: a whole vector's index (vectors along M
                                    * or N), or its first element's (vectors along K) */
} tl_fetch_plan;

/* out = the W elements (R reals) from p of a vector along M or N that starts at index `at` and
 * crosses the matrix's edge `lim`: each index is clamped into the matrix. */
#define TL_GATHER(R, W, p, at, lim, out)                                                       \
    do {                                                                                        \
        real_t t_[R];                                                                           \
        for (int e = 0; e < (W); e++) {                                                         \
            const int d = min((at) + e, (lim)-1) - (at);                                        \
            for (int c = 0; c < CPX; c++) t_[e * CPX + c] = (p)[d * CPX + c];                   \
        }                                                                                       \
        out = RLOAD(R, t_);                                                                     \
    } while (0)

inline vec_t tl_load_a(__global const real_t *p, const int row, const int M) {
#if ALIGNED
    return *(__global const vec_t *)p;
#else
    if (row + VW <= M) return VLOAD(p);
    vec_t v;
    TL_GATHER(VWR, VW, p, row, M, v);
    return v;
#endif
}

/* A transposed B's VWN elements along N from column `col` on (op(B)(k, col) = B(col, k)). The
 * column check is at run time: ALIGNB says nothing of N. */
inline bvec_t tl_load_bt(__global const real_t *p, const int col, const int N) {
    bvec_t v;
    if (col + VWN <= N)
        v = ALIGNB ? *(__global const bvec_t *)p : RLOAD(VNR, p);
    else
        TL_GATHER(VNR, VWN, p, col, N, v);
    return CONJ_B ? CONJ_R(VNR, v) : v;
}

/* VWB elements along K of an operand stored contiguously along K (a plain B, a transposed A),
 * from p, the first at k offset kq of a slice with klen valid k: zeros past klen. */
inline gvec_t tl_load_k(__global const real_t *p, const int kq, const int klen, const int conj) {
    gvec_t v;
    if (klen >= kq + VWB) {
#if VWB == 1
        v = RLOAD(VBR, p);
#else
        v = *(__global const gvec_t *)p;
#endif
    } else {
        gvec_u u;
#pragma unroll
        for (int e = 0; e < VWB; e++) {
#if CLIP_COMPLEX
            u.e[e] = kq + e < klen ? vload2(e, p) : (elem_t)0;
#else
            u.e[e] = kq + e < klen ? p[e] : (elem_t)0;
#endif
        }
        v = u.v;
    }
    return conj ? CONJ_R(VBR, v) : v;
}

/* Stores a vector along K into a k-major local tile of row pitch ld, from element `at` on. */
inline void tl_scatter_k(__local elem_t *dst, const int at, const int ld, const gvec_t v) {
    gvec_u u;
    u.v = v;
#pragma unroll
    for (int e = 0; e < VWB; e++) dst[at + e * ld] = u.e[e];
}

/* Loads one slice (klen valid k, KWG in all but the last) into registers, zeros past klen. */
inline void tl_fetch(const tl_fetch_plan *pl, const int klen, avec_t ra[LA], bgvec_t rb[LB],
                     const int M, const int N) {
#pragma unroll
    for (int i = 0; i < LA; i++) {
        if (A_VECS % WGS != 0 && pl->adst[i] < 0) continue;
#if TRANSA
        ra[i] = tl_load_k(pl->pa[i], pl->ak[i], klen, CONJ_A);
#else
        ra[i] = klen >= KWG || pl->ak[i] < klen ? tl_load_a(pl->pa[i], pl->arow[i], M) : (vec_t)0;
#endif
    }
#pragma unroll
    for (int i = 0; i < LB; i++) {
        if (B_VECS % WGS != 0 && pl->bdst[i] < 0) continue;
#if TRANSB
        rb[i] = klen >= KWG || pl->bk[i] < klen ? tl_load_bt(pl->pb[i], pl->bcol[i], N) : (bvec_t)0;
#else
        rb[i] = tl_load_k(pl->pb[i], pl->bk[i], klen, 0);
#endif
    }
}

/* Moves the plan one slice on: astep and bstep are KWG columns (KWG*ld) along a matrix's
 * non-contiguous direction, or KWG elements along its contiguous one. */
inline void tl_advance(tl_fetch_plan *pl, const size_t astep, const size_t bstep) {
#pragma unroll
    for (int i = 0; i < LA; i++) pl->pa[i] += astep;
#pragma unroll
    for (int i = 0; i < LB; i++) pl->pb[i] += bstep;
}

inline void tl_stage(const tl_fetch_plan *pl, const avec_t ra[LA], const bgvec_t rb[LB],
                     __local vec_t *Al, __local bvec_t *Bl) {
#pragma unroll
    for (int i = 0; i < LA; i++) {
        if (A_VECS % WGS != 0 && pl->adst[i] < 0) continue;
#if TRANSA
        tl_scatter_k((__local elem_t *)Al, pl->adst[i], LDAL, ra[i]);
#else
        Al[pl->adst[i]] = ra[i];
#endif
    }
#pragma unroll
    for (int i = 0; i < LB; i++) {
        if (B_VECS % WGS != 0 && pl->bdst[i] < 0) continue;
#if TRANSB
        Bl[pl->bdst[i]] = rb[i];
#else
        tl_scatter_k((__local elem_t *)Bl, pl->bdst[i], LDBL, rb[i]);
#endif
    }
}

inline void tl_multiply(vec_t acc[NWI][MVI], __local const vec_t *Al, __local const bvec_t *Bl,
                        const int lid0, const int lid1) {
#pragma unroll
    for (int kk = 0; kk < KWG; kk++) {
        vec_t a[MVI];
#if CLIP_COMPLEX
        vec_t ai[MVI];
#endif
#pragma unroll
        for (int iv = 0; iv < MVI; iv++) {
            a[iv] = Al[kk * (LDAL / VW) + iv * MDIMC + lid0];
#if CLIP_COMPLEX
            ai[iv] = A_AUX(a[iv]);
#endif
        }
#pragma unroll
        for (int jv = 0; jv < NVI; jv++) {
            bvec_u b;
            b.v = Bl[kk * (LDBL / VWN) + jv * NDIMC + lid1];
#pragma unroll
            for (int jj = 0; jj < VWN; jj++)
#pragma unroll
                for (int iv = 0; iv < MVI; iv++) MADD(acc[jv * VWN + jj][iv], a[iv], ai[iv], b.e[jj]);
        }
    }
}

/* One k of the work-item's operands: its A rows and its B columns, as read from local memory. */
typedef struct {
    vec_t a[MVI];
    bvec_u b[NVI];
} tl_frag;

inline tl_frag tl_read(__local const vec_t *Al, __local const bvec_t *Bl, const int kk,
                       const int lid0, const int lid1) {
    tl_frag f;
#pragma unroll
    for (int iv = 0; iv < MVI; iv++) f.a[iv] = Al[kk * (LDAL / VW) + iv * MDIMC + lid0];
#pragma unroll
    for (int jv = 0; jv < NVI; jv++) f.b[jv].v = Bl[kk * (LDBL / VWN) + jv * NDIMC + lid1];
    return f;
}

inline void tl_fma(vec_t acc[NWI][MVI], const tl_frag *f) {
#if CLIP_COMPLEX
    vec_t ai[MVI];
#pragma unroll
    for (int iv = 0; iv < MVI; iv++)
        ai[iv] = A_AUX(f->a[iv]);
#endif
#pragma unroll
    for (int jv = 0; jv < NVI; jv++)
#pragma unroll
        for (int jj = 0; jj < VWN; jj++)
#pragma unroll
            for (int iv = 0; iv < MVI; iv++)
                MADD(acc[jv * VWN + jj][iv], f->a[iv], ai[iv], f->b[jv].e[jj]);
}

/* The work-item's place in the work-group's grid of register tiles. */
typedef struct {
    int lid, lid0, lid1;
} tl_place;

/* Work-item lid's place (lid = local id 1 * MDIMC + local id 0). */
inline tl_place tl_place_of(const int lid) {
    tl_place w;
    w.lid = lid;
#if WM < MDIMC
    /* Each group of 32 work-items (a warp) covers WM rows x 32/WM columns of the work-item
     * grid, rather than MDIMC x 32/MDIMC: fewer distinct A vectors per local read. */
    const int lane = lid % 32, warp = lid / 32;
    w.lid0 = (warp % (MDIMC / WM)) * WM + lane % WM;
    w.lid1 = (warp / (MDIMC / WM)) * (32 / WM) + lane / WM;
#else
    w.lid0 = lid % MDIMC;
    w.lid1 = lid / MDIMC;
#endif
    return w;
}

/* The same for the work-item running; the plain layout straight from the local ids (deriving
 * them from lid cost the 256x128 H100 set 5%: 3.02 against 2.87 ms at n = 4096). */
inline tl_place tl_where(void) {
#if WM < MDIMC
    return tl_place_of((int)get_local_id(1) * MDIMC + (int)get_local_id(0));
#else
    tl_place w;
    w.lid0 = (int)get_local_id(0);
    w.lid1 = (int)get_local_id(1);
    w.lid = w.lid1 * MDIMC + w.lid0;
    return w;
#endif
}

/* The work-item lid's A loads of the first slice (k from kbeg) of the tile at row m0: vectors
 * along M of the k-major A, or, transposed, vectors along K of each row of op(A). A vector that
 * starts past M is read from the last row (plain: gathered; see tl_load_a). */
inline void tl_plan_a(tl_fetch_plan *pl, const int lid, const int M, const int m0, const int kbeg,
                      __global const real_t *restrict A, const int lda) {
#pragma unroll
    for (int i = 0; i < LA; i++) {
        const int v = lid + i * WGS;
#if TRANSA
        const int kq = v % (KWG / VWB), mm = v / (KWG / VWB), row = min(m0 + mm, M - 1);
        pl->ak[i] = kq * VWB;
        pl->adst[i] = v < A_VECS ? kq * VWB * LDAL + mm : -1;
        pl->pa[i] = A + ((size_t)row * (size_t)lda + (size_t)(kbeg + kq * VWB)) * CPX;
#else
        const int mv = v % (MWG / VW), kk = v / (MWG / VW);
        int row = m0 + mv * VW;
        pl->arow[i] = row;
#if ALIGNED
        row = min(row, M - VW);
#else
        row = min(row, M - 1); /* a vector that starts past M is gathered from row M-1 */
        pl->arow[i] = row;
#endif
        pl->ak[i] = kk;
        pl->adst[i] = v < A_VECS ? kk * (LDAL / VW) + mv : -1;
        pl->pa[i] = A + ((size_t)(kbeg + kk) * (size_t)lda + (size_t)row) * CPX;
#endif
    }
}

/* The same for B at column n0: vectors along K of each column of B, or, transposed, vectors
 * along N of each row of op(B) (= column of the stored B), stored whole. */
inline void tl_plan_b(tl_fetch_plan *pl, const int lid, const int N, const int n0, const int kbeg,
                      __global const real_t *restrict B, const int ldb) {
#pragma unroll
    for (int i = 0; i < LB; i++) {
        const int v = lid + i * WGS;
#if TRANSB
        const int nv = v % (NWG / VWN), kk = v / (NWG / VWN);
        const int col = min(n0 + nv * VWN, N - 1);
        pl->bcol[i] = col;
        pl->bk[i] = kk;
        pl->bdst[i] = v < B_VECS ? kk * (LDBL / VWN) + nv : -1;
        pl->pb[i] = B + ((size_t)(kbeg + kk) * (size_t)ldb + (size_t)col) * CPX;
#else
        const int kq = v % (KWG / VWB), nn = v / (KWG / VWB);
        const int col = min(n0 + nn, N - 1);
        pl->bk[i] = kq * VWB;
        pl->bdst[i] = v < B_VECS ? kq * VWB * LDBL + nn : -1;
        pl->pb[i] = B + ((size_t)col * (size_t)ldb + (size_t)(kbeg + kq * VWB)) * CPX;
#endif
    }
}

/* acc = the work-group tile at (m0, n0) of A(:, kbeg:kend) * B(kbeg:kend, :), each work-item its
 * register tile. A and B point at element (0,0) of the operands. */
inline void tl_tile_n(vec_t acc[NWI][MVI], const int M, const int N, const int m0, const int n0,
                      const int kbeg, const int kend, const int slices,
                      __global const real_t *restrict A, const int lda,
                      __global const real_t *restrict B, const int ldb, const tl_place w,
                      __local vec_t *Alm, __local bvec_t *Blm) {
    const int lid0 = w.lid0, lid1 = w.lid1;
    tl_fetch_plan pl;
    tl_plan_a(&pl, w.lid, M, m0, kbeg, A, lda);
    tl_plan_b(&pl, w.lid, N, n0, kbeg, B, ldb);
    /* One slice on: KWG columns of a matrix read along its columns, KWG elements of one read
     * along K (a transposed A, a plain B). */
    const size_t astep = (size_t)KWG * (TRANSA ? 1 : (size_t)lda) * CPX;
    const size_t bstep = (size_t)KWG * (TRANSB ? (size_t)ldb : 1) * CPX;

#pragma unroll
    for (int j = 0; j < NWI; j++)
#pragma unroll
        for (int iv = 0; iv < MVI; iv++) acc[j][iv] = (vec_t)0;

    avec_t ra[LA];
    bgvec_t rb[LB];
#if DB
    if (slices > 0) {
        tl_fetch(&pl, kend - kbeg, ra, rb, M, N);
        tl_advance(&pl, astep, bstep);
        tl_stage(&pl, ra, rb, Alm, Blm);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#if DB > 1
    tl_frag f = tl_read(Alm, Blm, 0, lid0, lid1); /* the first k, one ahead */
#endif
    for (int s = 0; s < slices; s++) {
        const int cur = s & 1, more = s + 1 < slices;
        if (more) {
            tl_fetch(&pl, kend - kbeg - (s + 1) * KWG, ra, rb, M, N);
            tl_advance(&pl, astep, bstep);
        }
#if DB > 1
        /* Each k's operands are read while the previous k is multiplied; the next slice's first
         * k is read after the barrier and before this slice's last k is multiplied. */
        __local const vec_t *Ac = Alm + cur * ABUF, *An = Alm + (cur ^ 1) * ABUF;
        __local const bvec_t *Bc = Blm + cur * BBUF, *Bn = Blm + (cur ^ 1) * BBUF;
#pragma unroll
        for (int kk = 0; kk + 1 < KWG; kk++) {
            const tl_frag g = tl_read(Ac, Bc, kk + 1, lid0, lid1);
            tl_fma(acc, &f);
            f = g;
        }
        if (more) tl_stage(&pl, ra, rb, Alm + (cur ^ 1) * ABUF, Blm + (cur ^ 1) * BBUF);
        barrier(CLK_LOCAL_MEM_FENCE);
        {
            /* Past the last slice g is stale and unused. */
            const tl_frag g = tl_read(An, Bn, 0, lid0, lid1);
            tl_fma(acc, &f);
            f = g;
        }
#else
        tl_multiply(acc, Alm + cur * ABUF, Blm + cur * BBUF, lid0, lid1);
        if (more) tl_stage(&pl, ra, rb, Alm + (cur ^ 1) * ABUF, Blm + (cur ^ 1) * BBUF);
        barrier(CLK_LOCAL_MEM_FENCE);
#endif
    }
#else
    for (int s = 0; s < slices; s++) {
        tl_fetch(&pl, kend - kbeg - s * KWG, ra, rb, M, N);
        tl_advance(&pl, astep, bstep);
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous slice has been consumed */
        tl_stage(&pl, ra, rb, Alm, Blm);
        barrier(CLK_LOCAL_MEM_FENCE);
        tl_multiply(acc, Alm, Blm, lid0, lid1);
    }
#endif
}

/* The same over the slices of [kbeg, kend). */
inline void tl_tile(vec_t acc[NWI][MVI], const int M, const int N, const int m0, const int n0,
                    const int kbeg, const int kend, __global const real_t *restrict A,
                    const int lda, __global const real_t *restrict B, const int ldb,
                    const tl_place w, __local vec_t *Alm, __local bvec_t *Blm) {
    tl_tile_n(acc, M, N, m0, n0, kbeg, kend, kend > kbeg ? (kend - kbeg + KWG - 1) / KWG : 0, A,
              lda, B, ldb, w, Alm, Blm);
}

/* C = alpha*acc + beta*C for the work-item's register tile of the work-group tile at (m0, n0). */
inline void tl_store(vec_t acc[NWI][MVI], const int M, const int N, const int m0, const int n0,
                     const elem_t alpha, const elem_t beta, __global real_t *C, const int ldc,
                     const tl_place w) {
#pragma unroll
    for (int jv = 0; jv < NVI; jv++)
#pragma unroll
        for (int jj = 0; jj < VWN; jj++) {
            const int col = n0 + (jv * NDIMC + w.lid1) * VWN + jj;
            if (col >= N) continue;
#pragma unroll
            for (int iv = 0; iv < MVI; iv++) {
                const int row = m0 + (iv * MDIMC + w.lid0) * VW;
                if (row >= M) continue;
                gemm_store(acc[jv * VWN + jj][iv], alpha, beta,
                           C + ((size_t)col * (size_t)ldc + (size_t)row) * CPX, row, M);
            }
        }
}

/* ---- Stream-K: the last partial wave of tiles, spread evenly over resident work-groups -----
 * A grid whose tiles fill whole waves of the device and a fraction of one more would leave most
 * compute units idle in that last wave. Instead the first `tiles` tiles (whole waves) run one
 * work-group each as usual, and P more work-groups, launched with them, share the `tail` tiles
 * after them: the tail's K slices, S = ceil(K/KWG) per tile, are numbered tile by tile (slice g
 * of tail tile g/S) and stream-K work-group w takes the contiguous run [w*tail*S/P,
 * (w+1)*tail*S/P). With tail < P a run is shorter than a tile, so it touches at most two: w's
 * partial tile products go to slots 2w and 2w+1 of the workspace W (its first tile, then its
 * second), each slot in the register layout (vector (j, iv) of work-item lid at
 * (j*MVI + iv)*WGS + lid), so that stores and loads are whole coalesced vectors. gemm_sk_fixup
 * then sums each tail tile's slots in work-group order (deterministic) into C. Being one launch,
 * the stream-K work-groups start as soon as the whole waves free compute units. */
inline ulong sk_begin(const int w, const int P, const ulong total) {
    /* 32-bit division where the product fits: 64-bit division is a long software routine. */
    if ((ulong)P * total <= 0xffffffffUL) return (ulong)((uint)w * (uint)total / (uint)P);
    return (ulong)w * total / (ulong)P;
}

#if SK
/* The run of stream-K work-group wg of P over `tail` tiles from tile0 on (see above). */
inline void sk_run(const int wg, const int P, const int M, const int N, const int K,
                   __global const real_t *restrict A, const int lda,
                   __global const real_t *restrict B, const int ldb, __global real_t *restrict W,
                   const int tile0, const int tail, const int mtiles, const tl_place w,
                   __local vec_t *Alm, __local bvec_t *Blm) {
    const int S = (K + KWG - 1) / KWG;
    const ulong total = (ulong)tail * (ulong)S;
    ulong g = sk_begin(wg, P, total);
    const ulong g1 = sk_begin(wg + 1, P, total);
    for (int slot = 0; slot < 2 && g < g1; slot++) {
        const int t = (int)(g / (ulong)S), first = (int)(g - (ulong)t * (ulong)S);
        const int last = (int)min((ulong)S, g1 - (ulong)t * (ulong)S);
        const int tile = tile0 + t, m0 = (tile % mtiles) * MWG, n0 = (tile / mtiles) * NWG;
        vec_t acc[NWI][MVI];
        if (slot) barrier(CLK_LOCAL_MEM_FENCE); /* the first tile's last local reads are done */
        tl_tile(acc, M, N, m0, n0, first * KWG, min(K, last * KWG), A, lda, B, ldb, w, Alm, Blm);
        __global vec_t *dst = (__global vec_t *)(W + (size_t)(2 * wg + slot) * MWG * NWG * CPX);
#pragma unroll
        for (int j = 0; j < NWI; j++)
#pragma unroll
            for (int iv = 0; iv < MVI; iv++) dst[(j * MVI + iv) * WGS + w.lid] = acc[j][iv];
        g = (ulong)(t + 1) * (ulong)S;
    }
}
#endif

/* Offsets (in elements) let a caller multiply sub-matrices of larger buffers. Built with SK 1,
 * work-group g of dimension 0 computes tile g (tile g % mtiles along M, g / mtiles along N) while
 * g < tiles, and is stream-K work-group g - tiles of the rest (all of them share the `tail` tiles
 * after `tiles`; see above); with SK 0 work-group (x, y) computes tile (x, y) and the last four
 * arguments are unused. Each split of K (dimension 2) is kchunk long (a multiple of KWG) and
 * writes C + split*cstride. */
/* KG > 1: the work-group is KG groups of MDIMC x NDIMC work-items (local id 2), each walking its
 * own run of the chunk's slices through its own local buffers; their register tiles are then
 * summed in group order through local memory and group 0 stores the tile. One kernel and KG
 * times the warps a tile where a short grid would leave compute units waiting on latency. */
#ifndef KG
#define KG 1
#endif
#if KG > 1 && SK
#error "KG > 1 runs without stream-K"
#endif
__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, KG))) void
gemm_tiled(const int M, const int N, const int K, const elem_t alpha, const elem_t beta,
           __global const real_t *restrict A, const ulong offA, const int lda,
           __global const real_t *restrict B, const ulong offB, const int ldb,
           __global real_t *restrict C, const ulong offC, const int ldc, const int kchunk,
           const ulong cstride, const int mtiles, const int tiles, const int tail,
           __global real_t *restrict W) {
    /* With KG > 1 the groups' register tiles are summed through the A buffers once the walk is
     * over (Red below), so they hold the larger of the two. */
#if KG > 1 && (KG - 1) * MWG * NWG / VW > KG * NBUF * ABUF
    __local vec_t Alm[(KG - 1) * MWG * NWG / VW];
#else
    __local vec_t Alm[KG * NBUF * ABUF];
#endif
    __local bvec_t Blm[KG * NBUF * BBUF];
    const tl_place w = tl_where();
#if SK
    const int id = (int)get_group_id(0);
    if (id >= tiles) {
        sk_run(id - tiles, (int)get_num_groups(0) - tiles, M, N, K, A + offA * CPX, lda,
               B + offB * CPX, ldb, W, tiles, tail, mtiles, w, Alm, Blm);
        return;
    }
    const int m0 = (id % mtiles) * MWG, n0 = (id / mtiles) * NWG;
#else
    /* Built without stream-K (SK 0): a plain grid of tiles, and a kernel without that path (its
     * registers cost the 128x64 H100 set a third of its speed at n = 2048). */
    (void)mtiles, (void)tiles, (void)tail, (void)W;
    const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
#endif
    const int split = (int)get_group_id(2);
    /* Chunks are rounded up to KWG, so the last may end up to ksplit * KWG past K: past INT_MAX
     * for K near the limit (processes/gemm.h, CLIP_GEMM_MAX_DIM). Its end in 64 bits. */
    const int kbeg = split * kchunk, kend = (int)min((long)K, (long)kbeg + kchunk);
    vec_t acc[NWI][MVI];
#if KG > 1
    __local vec_t *Red = Alm; /* (KG - 1) * NWI * MVI * WGS vectors */
    const int kgi = (int)get_local_id(2);
    const int all = kend > kbeg ? (kend - kbeg + KWG - 1) / KWG : 0, per = (all + KG - 1) / KG;
    /* Every group walks `per` slices (the barriers are the work-group's); past kend they are
     * zeros. */
    const int gb = (int)min((long)kend, (long)kbeg + (long)kgi * per * KWG);
    const int ge = (int)min((long)kend, (long)gb + (long)per * KWG);
    tl_tile_n(acc, M, N, m0, n0, gb, ge, per, A + offA * CPX, lda, B + offB * CPX, ldb, w,
              Alm + kgi * NBUF * ABUF, Blm + kgi * NBUF * BBUF);
    barrier(CLK_LOCAL_MEM_FENCE); /* every group's last local reads are done before Red's writes */
    if (kgi > 0)
#pragma unroll
        for (int j = 0; j < NWI; j++)
#pragma unroll
            for (int iv = 0; iv < MVI; iv++)
                Red[(((kgi - 1) * NWI + j) * MVI + iv) * WGS + w.lid] = acc[j][iv];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (kgi > 0) return;
    for (int q = 0; q < KG - 1; q++)
#pragma unroll
        for (int j = 0; j < NWI; j++)
#pragma unroll
            for (int iv = 0; iv < MVI; iv++)
                acc[j][iv] += Red[((q * NWI + j) * MVI + iv) * WGS + w.lid];
#else
    tl_tile(acc, M, N, m0, n0, kbeg, kend, A + offA * CPX, lda, B + offB * CPX, ldb, w, Alm, Blm);
#endif
    tl_store(acc, M, N, m0, n0, alpha, beta, C + (offC + (size_t)split * cstride) * CPX, ldc, w);
}

/* C = alpha * (a tail tile's slots summed) + beta*C after gemm_tiled's P stream-K work-groups. Work-
 * group (x, t) sums a run of tail tile t's slot vectors, one work-item per vector, so that the
 * reads and C writes are coalesced and the kernel light enough to keep every compute unit's
 * memory busy. The tile's stream-K work-groups are found once per work-group (64-bit divisions
 * are slow): wlo, the one whose run holds the tile's first slice, to whi; each of them has the
 * tile in its slot 0 (its first tile), except wlo when its run began in the tile before. */
__kernel void gemm_sk_fixup(
    const int M, const int N, const int K, const elem_t alpha, const elem_t beta,
    __global const real_t *restrict W, __global real_t *restrict C, const ulong offC,
    const int ldc, const int tile0, const int tiles, const int mtiles, const int P) {
    __local int range[3];
    const int t = (int)get_group_id(1);
    if (get_local_id(0) == 0) {
        const ulong S = (ulong)((K + KWG - 1) / KWG), total = (ulong)tiles * S;
        const ulong g0 = (ulong)t * S, g1 = g0 + S; /* this tile's slices */
        int lo = (int)(g0 * (ulong)P / total);
        while (lo + 1 < P && sk_begin(lo + 1, P, total) <= g0) lo++;
        while (lo > 0 && sk_begin(lo, P, total) > g0) lo--;
        int hi = lo + 1;
        while (hi < P && sk_begin(hi, P, total) < g1) hi++;
        range[0] = lo;
        range[1] = hi;
        range[2] = sk_begin(lo, P, total) < g0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int per = NWI * MVI * WGS; /* vectors per slot */
    const int v = (int)get_global_id(0);
    if (v >= per) return;
    const tl_place w = tl_place_of(v % WGS);
    const int j = v / WGS / MVI, iv = v / WGS % MVI;
    const int tile = tile0 + t, m0 = (tile % mtiles) * MWG, n0 = (tile / mtiles) * NWG;
    const int row = m0 + (iv * MDIMC + w.lid0) * VW;
    const int col = n0 + ((j / VWN) * NDIMC + w.lid1) * VWN + j % VWN;
    if (row >= M || col >= N) return;
    const int lo = range[0], hi = range[1];
    vec_t sum = (vec_t)0;
    for (int wg = lo; wg < hi; wg++) {
        const int slot = 2 * wg + (wg == lo ? range[2] : 0);
        sum += ((__global const vec_t *)(W + (size_t)slot * MWG * NWG * CPX))[v];
    }
    gemm_store(sum, alpha, beta, C + (offC + (size_t)col * (size_t)ldc + (size_t)row) * CPX, row, M);
}

/* C = alpha * (sum of the `splits` slabs of W, cstride elements apart) + beta*C. One element per
 * work-item, consecutive rows on neighbouring work-items. */
__kernel void gemm_reduce(const int M, const int N, const int splits, __global const real_t *W,
                          const ulong cstride, const elem_t alpha, const elem_t beta,
                          __global real_t *C, const ulong offC, const int ldc) {
    const int i = get_global_id(0), j = get_global_id(1);
    if (i >= M || j >= N) return;
    __global const real_t *w = W + ((size_t)j * (size_t)M + (size_t)i) * CPX;
    __global real_t *c = C + (offC + (size_t)j * (size_t)ldc + (size_t)i) * CPX;
#if CLIP_COMPLEX
    elem_t s = vload2(0, w);
    for (int p = 1; p < splits; p++) s += vload2(0, w + (size_t)p * cstride * CPX);
    if (!IS_ONE(alpha)) s = clip_cmul(alpha, s);
    if (!IS_ZERO(beta)) s += clip_cmul(beta, vload2(0, c));
    vstore2(s, 0, c);
#else
    elem_t s = w[0];
    for (int p = 1; p < splits; p++) s += w[(size_t)p * cstride];
    if (!IS_ONE(alpha)) s *= alpha;
    if (!IS_ZERO(beta)) s += beta * c[0];
    c[0] = s;
#endif
}

#endif /* GEMM_KERNEL != 2 */

#if GEMM_KERNEL != 1
/* ---- gemm: register tiles straight from global memory (CPU caches; tiny products) ----------- */

/* Accumulates `len` steps of k (from k0) into the work-item's register tile. With len a
 * compile-time KWG after inlining, the loops unroll into straight FMA code. Only rows need an
 * edge case (edge_m: gather A vectors that cross M); B comes through column pointers clamped
 * once per tile (bcol), so a thin N (a matrix-vector product) still loads A as vectors. */
inline void gemm_slice(vec_t acc[NWI][MVI], const int len, const int edge_m, const int k0,
                       const int m0, const int M, __global const real_t *A, const int lda,
                       __global const real_t *bcol[NWI], const int ldb) {
    const int lid0 = get_local_id(0);
    for (int kk = 0; kk < len; kk++) {
        vec_t a[MVI];
#if CLIP_COMPLEX
        vec_t ai[MVI];
#endif
#pragma unroll
        for (int iv = 0; iv < MVI; iv++) {
            const int r = (iv * MDIMC + lid0) * VW;
            a[iv] = load_a(A, lda, m0 + r, k0 + kk, M, edge_m);
#if CLIP_COMPLEX
            ai[iv] = A_AUX(a[iv]);
#endif
        }
#pragma unroll
        for (int j = 0; j < NWI; j++) {
            const elem_t b = load_b(bcol[j], k0 + kk, ldb);
#pragma unroll
            for (int iv = 0; iv < MVI; iv++) MADD(acc[j][iv], a[iv], ai[iv], b);
        }
    }
}

__kernel __attribute__((reqd_work_group_size(MDIMC, NDIMC, 1))) void gemm(
    const int M, const int N, const int K, const elem_t alpha, const elem_t beta,
    __global const real_t *restrict A, const ulong offA, const int lda,
    __global const real_t *restrict B, const ulong offB, const int ldb,
    __global real_t *restrict C, const ulong offC, const int ldc) {
    A += offA * CPX;
    B += offB * CPX;
    C += offC * CPX;
    const int lid0 = get_local_id(0), lid1 = get_local_id(1);
    const int m0 = (int)get_group_id(0) * MWG, n0 = (int)get_group_id(1) * NWG;
    const int edge_m = m0 + MWG > M;

    /* The work-item's columns of op(B), clamped into the matrix once for the whole K loop: columns
     * of B, or, transposed, its rows (load_b then steps by ldb). */
    __global const real_t *bcol[NWI];
#pragma unroll
    for (int j = 0; j < NWI; j++)
        bcol[j] = B + (size_t)min(n0 + j * NDIMC + lid1, N - 1) * (TRANSB ? 1 : (size_t)ldb) * CPX;

    vec_t acc[NWI][MVI];
#pragma unroll
    for (int j = 0; j < NWI; j++)
#pragma unroll
        for (int iv = 0; iv < MVI; iv++) acc[j][iv] = (vec_t)0;

    for (int k0 = 0; k0 < K; k0 += KWG) {
        if (k0 + KWG <= K) {
            if (edge_m)
                gemm_slice(acc, KWG, 1, k0, m0, M, A, lda, bcol, ldb);
            else
                gemm_slice(acc, KWG, 0, k0, m0, M, A, lda, bcol, ldb);
        } else if (edge_m) {
            gemm_slice(acc, K - k0, 1, k0, m0, M, A, lda, bcol, ldb);
        } else {
            gemm_slice(acc, K - k0, 0, k0, m0, M, A, lda, bcol, ldb);
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
            gemm_store(acc[j][iv], alpha, beta, C + ((size_t)col * (size_t)ldc + (size_t)row) * CPX,
                       row, M);
        }
    }
}

#endif /* GEMM_KERNEL != 1 */
#endif /* GEMM_SCALAR_ONLY */

/* s*op(X) element-wise, s a 1x1 matrix on the device: MATLAB's A*B when A or B is a scalar. One
 * element per work-item (PoCL vectorises across work-items, not along a loop inside one).
 * SCALAR_CONJ 1 conjugates s (s' of a complex s); X_TRANS 1 or 2 reads a 2-D X transposed or
 * conjugate-transposed in place (Y is yrows x n/yrows, X the other way round). S_REAL or X_REAL
 * 1: that operand was real before its promotion to complex, and multiplies each part alone, as
 * MATLAB's real*complex: complex(Inf, 0)*2 is Inf, where a complex product gives Inf*0 = NaN. */
#ifndef S_REAL
#define S_REAL 0
#endif
#ifndef X_REAL
#define X_REAL 0
#endif
#ifndef SCALAR_CONJ
#define SCALAR_CONJ 0
#endif
#ifndef X_TRANS
#define X_TRANS 0
#endif
__kernel void gemm_scalar(__global const real_t *S, __global const real_t *X, __global real_t *Y,
                          const ulong n, const ulong yrows) {
    const size_t i = get_global_id(0);
    if (i >= n) return;
#if X_TRANS
    const size_t xi = i / yrows + (i % yrows) * (n / yrows);
#else
    const size_t xi = i;
    (void)yrows;
#endif
#if CLIP_COMPLEX
    elem_t s = vload2(0, S), x = vload2(xi, X);
    if (SCALAR_CONJ) s.y = -s.y;
    if (X_TRANS == 2) x.y = -x.y;
#if S_REAL
    vstore2((elem_t)(s.x * x.x, s.x * x.y), i, Y);
#elif X_REAL
    vstore2((elem_t)(s.x * x.x, s.y * x.x), i, Y);
#else
    vstore2(clip_cmul(s, x), i, Y);
#endif
#else
    Y[i] = S[0] * X[xi];
#endif
}
