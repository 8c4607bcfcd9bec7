/* dot: MATLAB's dot(a, b) = sum(conj(a) .* b) of two vectors of equal length, as a two-stage
 * reduction (see processes/dot.c). Both inputs arrive in the result's precision; each keeps its
 * own complexity, so a real operand is read as real (half the bytes) and multiplies as MATLAB's
 * real-times-complex does (no 0 * Inf = NaN from a made-up imaginary part).
 *
 * Build options (set by init):
 *   A_COMPLEX, B_COMPLEX  whether each operand is complex; the result is if either is
 *   EPL    elements per load (1, 2, 4, 8, 16; at most 8 when an operand is complex)
 *   UNROLL loads of each operand a work-item issues before using them
 *   COMP   1: each work-item's running sums are compensated (see ADDC)
 *   LOCAL  work-group size of both stages, a power of two */

/* No silent fusing: the imaginary part ar*bi - ai*br must round both products alike, so that
 * dot(a, a) has an imaginary part of exactly 0 as in MATLAB. Explicit fma() stays fused. */
#pragma OPENCL FP_CONTRACT OFF

/* acc_t: one lane per element of a load. A complex load is 2*EPL reals, split by .even/.odd.
 * Global loads go through typed pointers (one wide load on GPUs; buffers start aligned and
 * every load is at a multiple of its size); RLOAD/CLOAD read the padded tail from private
 * memory. */
#if EPL == 1
typedef real_t acc_t;
#define RLOAD(i, ptr) ((ptr)[i])
typedef CLIP_CAT(CLIP_REAL, 2) cvec_t;
#define CLOAD(i, ptr) vload2(i, ptr)
#elif EPL == 2
typedef CLIP_CAT(CLIP_REAL, 2) acc_t;
#define RLOAD(i, ptr) vload2(i, ptr)
typedef CLIP_CAT(CLIP_REAL, 4) cvec_t;
#define CLOAD(i, ptr) vload4(i, ptr)
#elif EPL == 4
typedef CLIP_CAT(CLIP_REAL, 4) acc_t;
#define RLOAD(i, ptr) vload4(i, ptr)
typedef CLIP_CAT(CLIP_REAL, 8) cvec_t;
#define CLOAD(i, ptr) vload8(i, ptr)
#elif EPL == 8
typedef CLIP_CAT(CLIP_REAL, 8) acc_t;
#define RLOAD(i, ptr) vload8(i, ptr)
typedef CLIP_CAT(CLIP_REAL, 16) cvec_t;
#define CLOAD(i, ptr) vload16(i, ptr)
#else
#if A_COMPLEX || B_COMPLEX
#error "dot.cl: a complex operand needs EPL <= 8 (its load is 2*EPL reals)"
#endif
typedef CLIP_CAT(CLIP_REAL, 16) acc_t;
#define RLOAD(i, ptr) vload16(i, ptr)
#endif

#if A_COMPLEX
typedef cvec_t a_t;
#define ALOAD CLOAD
#else
typedef acc_t a_t;
#define ALOAD RLOAD
#endif
#if B_COMPLEX
typedef cvec_t b_t;
#define BLOAD CLOAD
#else
typedef acc_t b_t;
#define BLOAD RLOAD
#endif

/* Real and imaginary accumulators. */
#if A_COMPLEX || B_COMPLEX
#define NACC 2
#else
#define NACC 1
#endif
#ifndef COMP
#define COMP 0
#endif

/* With COMP, s += x compensated (common.cl's CLIP_TWOSUM); products still round once each (to
 * eps * sum |a||b| in all). */
#if COMP
#define ADDC(s, c, x) CLIP_TWOSUM(acc_t, s, c, x)
#endif

/* The lanes of an accumulator summed pairwise. */
#if EPL == 1
#define HSUM(v) (v)
#elif EPL == 2
#define HSUM(v) ((v).s0 + (v).s1)
#elif EPL == 4
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#elif EPL == 8
#define HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#else
#define HSUM(v)                                                                          \
    (((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7))) + \
     ((((v).s8 + (v).s9) + ((v).sa + (v).sb)) + (((v).sc + (v).sd) + ((v).se + (v).sf))))
#endif

/* acc += conj(a) .* b for one load of each; acc[NACC + k] compensates acc[k] with COMP. */
inline void accum(acc_t *acc, a_t a, b_t b) {
#if COMP && A_COMPLEX && B_COMPLEX
    acc_t ar = a.even, ai = a.odd, br = b.even, bi = b.odd;
    ADDC(acc[0], acc[2], ar * br);
    ADDC(acc[0], acc[2], ai * bi);
    ADDC(acc[1], acc[3], ar * bi - ai * br);
#elif COMP && A_COMPLEX
    ADDC(acc[0], acc[2], a.even * b);
    ADDC(acc[1], acc[3], -a.odd * b);
#elif COMP && B_COMPLEX
    ADDC(acc[0], acc[2], a * b.even);
    ADDC(acc[1], acc[3], a * b.odd);
#elif COMP
    ADDC(acc[0], acc[1], a * b);
#elif A_COMPLEX && B_COMPLEX
    acc_t ar = a.even, ai = a.odd, br = b.even, bi = b.odd;
    acc[0] = fma(ar, br, fma(ai, bi, acc[0]));
    acc[1] += ar * bi - ai * br;
#elif A_COMPLEX
    acc[0] = fma(a.even, b, acc[0]);
    acc[1] = fma(-a.odd, b, acc[1]);
#elif B_COMPLEX
    acc[0] = fma(a, b.even, acc[0]);
    acc[1] = fma(a, b.odd, acc[1]);
#else
    acc[0] = fma(a, b, acc[0]);
#endif
}

/* Tree over the work-group: sh holds NACC rows of LOCAL values; row k ends in sh[k*LOCAL]. */
inline void tree(__local real_t *sh, const uint lid) {
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < s)
            for (int k = 0; k < NACC; k++) sh[k * LOCAL + lid] += sh[k * LOCAL + lid + s];
    }
}

/* The last `tail` (< EPL) elements of x from element `first` into a zero-padded private load. */
inline void tail_copy(real_t *dst, __global const real_t *x, ulong first, uint tail, int cx) {
    uint w = cx ? 2 : 1;
    for (uint k = 0; k < w * EPL; k++) dst[k] = k < w * tail ? x[first * w + k] : 0;
}

/* Stage 1: one partial per work-group, row k of part at part[k*groups + group]. nvec counts
 * loads of EPL elements. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void dot_stage1(__global const real_t *a, __global const real_t *b, const ulong nvec,
                const ulong chunk, const uint tail, __global real_t *part) {
    __local real_t sh[NACC * LOCAL];
    const uint lid = get_local_id(0), g = get_group_id(0), ng = get_num_groups(0);
    acc_t acc[2 * NACC]; /* sums, then their compensations */
    for (int k = 0; k < 2 * NACC; k++) acc[k] = (acc_t)0;
    ulong start = g * chunk, end = min(start + chunk, nvec);
    __global const a_t *av = (__global const a_t *)a;
    __global const b_t *bv = (__global const b_t *)b;
    ulong v = start + lid;
#if UNROLL > 1
    /* All loads of a step are issued before any is used: bytes in flight hide latency. */
    for (; v + (UNROLL - 1) * LOCAL < end; v += UNROLL * LOCAL) {
        a_t xa[UNROLL];
        b_t xb[UNROLL];
        for (int u = 0; u < UNROLL; u++) xa[u] = av[v + u * LOCAL], xb[u] = bv[v + u * LOCAL];
        for (int u = 0; u < UNROLL; u++) accum(acc, xa[u], xb[u]);
    }
#endif
    for (; v < end; v += LOCAL) accum(acc, av[v], bv[v]);
    if (tail && g == ng - 1 && lid == 0) {
        real_t ta[2 * EPL], tb[2 * EPL];
        tail_copy(ta, a, nvec * EPL, tail, A_COMPLEX);
        tail_copy(tb, b, nvec * EPL, tail, B_COMPLEX);
        accum(acc, ALOAD(0, ta), BLOAD(0, tb));
    }
#if COMP
    for (int k = 0; k < NACC; k++) acc[k] = CLIP_FOLD(acc[k], acc[NACC + k]);
#endif
    for (int k = 0; k < NACC; k++) sh[k * LOCAL + lid] = HSUM(acc[k]);
    tree(sh, lid);
    if (lid == 0)
        for (int k = 0; k < NACC; k++) part[k * ng + g] = sh[k * LOCAL];
}

/* Stage 2: one work-group sums the `ng` partials into out[0] (re, im for complex). */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void dot_stage2(__global const real_t *part, const uint ng, __global real_t *out) {
    __local real_t sh[NACC * LOCAL];
    const uint lid = get_local_id(0);
    for (int k = 0; k < NACC; k++) {
        real_t s = 0;
        for (uint i = lid; i < ng; i += LOCAL) s += part[k * ng + i];
        sh[k * LOCAL + lid] = s;
    }
    tree(sh, lid);
    if (lid == 0)
        for (int k = 0; k < NACC; k++) out[k] = sh[k * LOCAL];
}
