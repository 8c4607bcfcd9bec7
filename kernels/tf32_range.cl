/* Built after tf32.cl ("tf32+tf32_range"): the ranges of conv2's operands for its tensor
 * kernel's second pass (tf32.cl, tf32_conv_shifts; processes/conv2_direct.c). */

/* r[0]: non-zero where the tensor kernel's first pass found a value under the split's range;
 * only then the launch finds the non-zero finite magnitudes of A (na values: every slice) and K
 * (nk values) and merges them into r[1], r[2] (A's, as tf32_note keeps them) and r[3], r[4]
 * (K's), zeroed before the first pass. Any size of launch; uniform decisions, no return before
 * a barrier (PoCL). */
__kernel void tf32_range(__global const float *restrict A, const long na,
                         __global const float *restrict K, const int nk,
                         __global uint *restrict r) {
    __local uint part[4];
    const int on = r[0] != 0u, lid = (int)get_local_id(0);
    if (lid == 0) part[0] = part[1] = part[2] = part[3] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (on) {
        uint v[4] = {0u, 0u, 0u, 0u};
        const long step = (long)get_global_size(0);
        for (long e = (long)get_global_id(0); e < na; e += step)
            tf32_note(&v[0], &v[1], A[e]);
        for (long e = (long)get_global_id(0); e < nk; e += step)
            tf32_note(&v[2], &v[3], K[e]);
        for (int q = 0; q < 4; q++)
            if (v[q]) atomic_max(&part[q], v[q]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (on && lid < 4 && part[lid]) atomic_max(&r[1 + lid], part[lid]);
}
