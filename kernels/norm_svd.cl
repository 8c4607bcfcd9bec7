/* The matrix 2-norm by Golub-Kahan-Lanczos bidiagonalisation (see processes/norm_svd.c): the
 * products with A and A^H, the Gram-Schmidt steps against the bases, and the normalisations.
 * Matrices are column-major with leading dimension ld; elem_t is real or complex (re, im).
 * A is read as 2^e * A (ldexp, exact), e chosen on the host so that max |a_ij| lies in
 * [1/2, 1): no product or sum in here overflows or underflows to matter.
 *
 * Build options: LOCAL, the work-group size of the reductions (a power of two). */

#if CLIP_COMPLEX
#define MUL(a, b) clip_cmul(a, b)
#define CMUL(a, b) clip_cconjmul(a, b)
#define MAGE(a) hypot((a).x, (a).y)
#else
#define MUL(a, b) ((a) * (b))
#define CMUL(a, b) ((a) * (b))
#define MAGE(a) fabs(a)
#endif
#define SCALE(a, e) ((e) ? ldexp((a), (e)) : (a))

/* Vectors and matrices are passed as a buffer and an offset in elements (columns of the bases
 * U and V). */

/* y = 2^e * M[:, 0:cols] x, or with sub y -= M[:, 0:cols] x; a work-item per row. */
__kernel void svd_gemv_n(__global const elem_t *M, const ulong moff, const ulong ld,
                         const uint rows, const uint cols, __global const elem_t *x,
                         const ulong xoff, __global elem_t *y, const ulong yoff, const int e,
                         const int sub) {
    M += moff, x += xoff, y += yoff;
    const uint i = get_global_id(0);
    if (i >= rows) return;
    elem_t s = 0;
    for (uint j = 0; j < cols; j++) s += MUL(SCALE(M[i + ld * j], e), x[j]);
    y[i] = sub ? y[i] - s : s;
}

/* y[j] = 2^e * M[:, j]^H x for j < cols; a work-group per column. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void svd_gemv_h(__global const elem_t *M, const ulong moff, const ulong ld, const uint rows,
                __global const elem_t *x, const ulong xoff, __global elem_t *y, const ulong yoff,
                const int e) {
    __local elem_t sh[LOCAL];
    M += moff, x += xoff, y += yoff;
    const uint lid = get_local_id(0);
    const ulong j = get_group_id(0);
    elem_t s = 0;
    for (uint i = lid; i < rows; i += LOCAL) s += CMUL(SCALE(M[i + ld * j], e), x[i]);
    sh[lid] = s;
    for (uint h = LOCAL / 2; h > 0; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < h) sh[lid] += sh[lid + h];
    }
    if (lid == 0) y[j] = sh[0];
}

/* ||w|| by one work-group: max |w_i|, then m * sqrt(sum (|w_i|/m)^2). */
inline real_t group_norm(__global const elem_t *w, const uint len, __local real_t *sh) {
    const uint lid = get_local_id(0);
    real_t m = 0;
    for (uint i = lid; i < len; i += LOCAL) m = fmax(m, MAGE(w[i]));
    sh[lid] = m;
    for (uint h = LOCAL / 2; h > 0; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < h) sh[lid] = fmax(sh[lid], sh[lid + h]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    m = sh[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (m == 0) return 0;
    real_t s = 0;
    for (uint i = lid; i < len; i += LOCAL) {
        const real_t y = MAGE(w[i]) / m;
        s += y * y;
    }
    sh[lid] = s;
    for (uint h = LOCAL / 2; h > 0; h >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < h) sh[lid] += sh[lid + h];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return m * sqrt(sh[0]);
}

/* out[idx] = ||w||. With normalize, w /= ||w|| unless ||w|| <= floor_rel * pre[0] (the norm
 * before Gram-Schmidt): then w holds only rounding errors, and is set to 0 with out[idx] = 0
 * (the Krylov space is exhausted; see norm_svd.c). */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void svd_norm(__global elem_t *w, const ulong woff, const uint len, __global real_t *out,
              const uint idx, const int normalize, __global const real_t *pre,
              const real_t floor_rel) {
    __local real_t sh[LOCAL];
    w += woff;
    real_t nrm = group_norm(w, len, sh);
    if (!normalize) {
        if (get_local_id(0) == 0) out[idx] = nrm;
        return;
    }
    if (floor_rel > 0 && nrm <= floor_rel * pre[0]) nrm = 0; /* the start vector has no pre */
    for (uint i = get_local_id(0); i < len; i += LOCAL) w[i] = nrm > 0 ? w[i] / nrm : 0;
    if (get_local_id(0) == 0) out[idx] = nrm;
}

/* A deterministic start vector with entries in (-1, 1) (a hash of the index), the same on
 * every run and device. */
__kernel void svd_start(__global real_t *w, const uint nreal) { /* w: V's first column */
    const uint i = get_global_id(0);
    if (i >= nreal) return;
    uint h = i * 2654435761u + 0x9E3779B9u;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    w[i] = (real_t)((int)h) * (real_t)0x1p-31f;
}
