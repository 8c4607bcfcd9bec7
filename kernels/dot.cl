/* dot: MATLAB's dot(a, b) = sum(conj(a) .* b) of two vectors of equal length, as a two-stage
 * reduction (see processes/dot.c). Both inputs arrive as elem_t (promoted on the device).
 *
 * Build options (set by init):
 *   VEC    scalars per vector load (1, 2, 4, 8, 16; even for complex)
 *   AW     accumulator lanes: VEC, or VEC/2 complex elements
 *   LOCAL  work-group size of both stages, a power of two */

/* No silent fusing: the imaginary part ar*bi - ai*br must round both products alike, so that
 * dot(a, a) has an imaginary part of exactly 0 as in MATLAB. Explicit fma() stays fused. */
#pragma OPENCL FP_CONTRACT OFF

#if CLIP_DOUBLE
#define RNAME double
#else
#define RNAME float
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

#if VEC == 1
typedef real_t vec_t;
#define VLOAD(i, ptr) ((ptr)[i])
#else
typedef CAT(RNAME, VEC) vec_t;
#define VLOAD(i, ptr) CAT(vload, VEC)(i, ptr)
#endif
#if AW == 1
typedef real_t acc_t;
#else
typedef CAT(RNAME, AW) acc_t;
#endif

/* Real and imaginary accumulators. */
#if CLIP_COMPLEX
#define NACC 2
#else
#define NACC 1
#endif

/* The lanes of an accumulator summed pairwise. */
#if AW == 1
#define HSUM(v) (v)
#elif AW == 2
#define HSUM(v) ((v).s0 + (v).s1)
#elif AW == 4
#define HSUM(v) (((v).s0 + (v).s1) + ((v).s2 + (v).s3))
#elif AW == 8
#define HSUM(v) ((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7)))
#elif AW == 16
#define HSUM(v)                                                                          \
    (((((v).s0 + (v).s1) + ((v).s2 + (v).s3)) + (((v).s4 + (v).s5) + ((v).s6 + (v).s7))) + \
     ((((v).s8 + (v).s9) + ((v).sa + (v).sb)) + (((v).sc + (v).sd) + ((v).se + (v).sf))))
#endif

/* acc += conj(a) .* b for one load of each. */
inline void accum(acc_t *acc, vec_t a, vec_t b) {
#if CLIP_COMPLEX
    acc_t ar = a.even, ai = a.odd, br = b.even, bi = b.odd;
    acc[0] = fma(ar, br, fma(ai, bi, acc[0]));
    acc[1] += ar * bi - ai * br;
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

/* Stage 1: one partial per work-group, row k of part at part[k*groups + group]. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void dot_stage1(__global const real_t *a, __global const real_t *b, const ulong nvec,
                const ulong chunk, const uint tail, __global real_t *part) {
    __local real_t sh[NACC * LOCAL];
    const uint lid = get_local_id(0), g = get_group_id(0), ng = get_num_groups(0);
    acc_t acc[NACC];
    for (int k = 0; k < NACC; k++) acc[k] = (acc_t)0;
    ulong start = g * chunk, end = min(start + chunk, nvec);
    for (ulong v = start + lid; v < end; v += LOCAL) accum(acc, VLOAD(v, a), VLOAD(v, b));
    if (tail && g == ng - 1 && lid == 0) {
        real_t ta[VEC], tb[VEC];
        for (uint k = 0; k < VEC; k++) {
            ta[k] = k < tail ? a[nvec * VEC + k] : 0;
            tb[k] = k < tail ? b[nvec * VEC + k] : 0;
        }
        accum(acc, VLOAD(0, ta), VLOAD(0, tb));
    }
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
