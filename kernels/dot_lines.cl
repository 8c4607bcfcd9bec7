/* dot along a dimension, MATLAB's dot(A, B, dim) = sum(conj(A) .* B, dim) (see
 * processes/dot_lines.c). A and B are viewed as pre x n x post; line (i, k) holds the elements
 * i + pre*(j + n*k), j < n. Each operand keeps its own complexity (as dot.cl: a real operand
 * multiplies as MATLAB's real times complex, with no 0 * Inf NaN from a made-up imaginary part).
 *
 * Build options: A_COMPLEX, B_COMPLEX; CONTIG (1: pre = 1, a work-group per line; 0: a
 * work-item per line, neighbours on neighbouring lines); LOCAL, the work-group size. Single
 * precision sums are compensated per work-item (common.cl, clip_addc). */

/* dot(a, a) must have an imaginary part of exactly 0: both products rounded alike. */
#pragma OPENCL FP_CONTRACT OFF

#define CX (A_COMPLEX || B_COMPLEX)

/* acc (re, im; compensations in cmp) += conj(a[e]) * b[e]. */
inline void accum(__global const real_t *a, __global const real_t *b, const ulong e, real_t *acc,
                  real_t *cmp) {
#if A_COMPLEX && B_COMPLEX
    const real_t ar = a[2 * e], ai = a[2 * e + 1], br = b[2 * e], bi = b[2 * e + 1];
    clip_addc(&acc[0], &cmp[0], ar * br);
    clip_addc(&acc[0], &cmp[0], ai * bi);
    clip_addc(&acc[1], &cmp[1], ar * bi - ai * br);
#elif A_COMPLEX
    clip_addc(&acc[0], &cmp[0], a[2 * e] * b[e]);
    clip_addc(&acc[1], &cmp[1], -a[2 * e + 1] * b[e]);
#elif B_COMPLEX
    clip_addc(&acc[0], &cmp[0], a[e] * b[2 * e]);
    clip_addc(&acc[1], &cmp[1], a[e] * b[2 * e + 1]);
#else
    clip_addc(&acc[0], &cmp[0], a[e] * b[e]);
#endif
}

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void dot_lines(__global const real_t *a, __global const real_t *b, const ulong pre,
               const ulong n, const ulong post, __global real_t *out) {
    __local real_t sh[2 * LOCAL];
    real_t acc[2] = {0, 0}, cmp[2] = {0, 0};
#if CONTIG
    const ulong k = get_group_id(0);
    const uint lid = get_local_id(0);
    for (ulong j = lid; j < n; j += LOCAL) accum(a, b, k * n + j, acc, cmp);
    sh[lid] = CLIP_FOLD(acc[0], cmp[0]);
    sh[LOCAL + lid] = CLIP_FOLD(acc[1], cmp[1]);
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < s) sh[lid] += sh[lid + s], sh[LOCAL + lid] += sh[LOCAL + lid + s];
    }
    if (lid == 0) {
        out[CX ? 2 * k : k] = sh[0];
        if (CX) out[2 * k + 1] = sh[LOCAL];
    }
    (void)pre, (void)post;
#else
    const ulong o = get_global_id(0);
    if (o >= pre * post) return;
    const ulong i = o % pre, k = o / pre;
    for (ulong j = 0; j < n; j++) accum(a, b, i + pre * (j + n * k), acc, cmp);
    out[CX ? 2 * o : o] = CLIP_FOLD(acc[0], cmp[0]);
    if (CX) out[2 * o + 1] = CLIP_FOLD(acc[1], cmp[1]);
    (void)sh;
#endif
}
