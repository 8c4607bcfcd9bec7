/* norm along a dimension (vecnorm) and the matrix 1- and Inf-norms (see processes/norm_lines.c).
 * x is viewed as pre x n x post; line (i, k) holds x[i + pre*(j + n*k)], j < n.
 *
 * Build options:
 *   MODE   1 sum |x| (p = 1)   2 scaled sum of squares (p = 2)   3 max |x| (Inf)
 *          4 min |x| (-Inf)    5 scaled sum of |x|^p (other p)
 *   CONTIG 1: pre = 1, one work-group of LOCAL per line, its items striding along it;
 *          0: one work-item per line, neighbours reading neighbouring lines (coalesced)
 *   LOCAL  work-group size, a power of two
 * Modes 2 and 5 read a line twice: m = max |x|, then m * (sum (|x|/m)^p)^(1/p), so that no
 * power overflows or underflows; m NaN, Inf or 0 is the answer itself. Single-precision sums
 * are compensated per work-item (common.cl, clip_addc). NaN propagates through every mode, as
 * MATLAB's. */

#if CLIP_COMPLEX
#define MAG(i) hypot(x[2 * (i)], x[2 * (i) + 1])
#else
#define MAG(i) fabs(x[i])
#endif
#define NMAX(a, b) ((((a) > (b)) || isnan(a)) ? (a) : (b))
#define NMIN(a, b) ((((a) < (b)) || isnan(a)) ? (a) : (b))

#if MODE == 4
#define INIT ((real_t)INFINITY)
#else
#define INIT ((real_t)0)
#endif

inline real_t comb(const real_t a, const real_t b, const int op) {
    return op == 3 ? NMAX(a, b) : op == 4 ? NMIN(a, b) : a + b;
}

/* Combines each work-item's v over the work-group (op as MODE); the result in every item. */
inline real_t group_comb(__local real_t *sh, real_t v, const int op) {
#if CONTIG && LOCAL > 1
    const uint lid = get_local_id(0);
    sh[lid] = v;
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < s) sh[lid] = comb(sh[lid], sh[lid + s], op);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    v = sh[0];
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    (void)sh, (void)op;
    return v;
}

/* The norm of the line starting at `base` with `stride`, this item taking j = first,
 * first + step, ... */
inline real_t line_norm(__global const real_t *x, const ulong base, const ulong stride,
                        const ulong n, const ulong first, const ulong step, const real_t p,
                        __local real_t *sh) {
    real_t acc = INIT, c = 0;
    for (ulong j = first; j < n; j += step) {
        const real_t a = MAG(base + j * stride);
#if MODE == 1
        clip_addc(&acc, &c, a);
#elif MODE == 4
        acc = NMIN(a, acc);
#else
        acc = NMAX(a, acc);
#endif
    }
#if MODE == 1
    return group_comb(sh, CLIP_FOLD(acc, c), 1);
#elif MODE == 3 || MODE == 4
    return group_comb(sh, acc, MODE);
#else
    const real_t m = group_comb(sh, acc, 3);
    if (!(m > 0 && m < INFINITY)) return m; /* uniform over the group: m is shared */
    real_t s = 0;
    c = 0;
    for (ulong j = first; j < n; j += step) {
        const real_t y = MAG(base + j * stride) / m;
#if MODE == 2
        clip_addc(&s, &c, y * y);
#else
        clip_addc(&s, &c, pow(y, p));
#endif
    }
    s = group_comb(sh, CLIP_FOLD(s, c), 1);
#if MODE == 2
    return m * sqrt(s);
#else
    return m * pow(s, 1 / p);
#endif
#endif
}

__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void norm_lines(__global const real_t *x, const ulong pre, const ulong n, const ulong post,
                const real_t p, __global real_t *out) {
    __local real_t sh[LOCAL];
#if CONTIG
    const ulong k = get_group_id(0);
    const real_t r = line_norm(x, k * n, 1, n, get_local_id(0), LOCAL, p, sh);
    if (get_local_id(0) == 0) out[k] = r;
    (void)pre, (void)post;
#else
    const ulong o = get_global_id(0);
    if (o >= pre * post) return;
    const ulong i = o % pre, k = o / pre;
    out[o] = line_norm(x, i + pre * n * k, pre, n, 0, 1, p, sh);
#endif
}

/* out[0] = max of v[0..len) (NaN if any is NaN), by one work-group. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void norm_lines_max(__global const real_t *v, const ulong len, __global real_t *out) {
    __local real_t sh[LOCAL];
    const uint lid = get_local_id(0);
    real_t m = 0;
    for (ulong i = lid; i < len; i += LOCAL) m = NMAX(v[i], m);
    sh[lid] = m;
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < s) sh[lid] = NMAX(sh[lid], sh[lid + s]);
    }
    if (lid == 0) out[0] = sh[0];
}
