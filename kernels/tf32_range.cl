/* Built after tf32.cl ("tf32+tf32_range"): the ranges of conv2's operands for its tensor
 * kernel's second pass (tf32.cl, tf32_conv_shifts; processes/conv2_direct.c). */

/* Launch number gen of a pass (never 0): r[0] == gen where the tensor kernel's first pass found
 * a value under the split's range; only then the launch finds the non-zero finite magnitudes of
 * A (na values: every slice) and K (nk values) and merges them into the four words of r from
 * 1 + 4 * (gen % 2) on: A's ~lo and hi (tf32_note), then K's. Those words are zero when it
 * starts: the launch before (gen - 1) zeroed them, as this one zeroes the other four for the
 * next (no fill between launches). Any size of launch; uniform decisions, no return before a
 * barrier (PoCL). */
__kernel void tf32_range(__global const float *restrict A, const long na,
                         __global const float *restrict K, const int nk, __global uint *restrict r,
                         const uint gen) {
    __local uint part[4];
    const int on = r[0] == gen, lid = (int)get_local_id(0), at = 1 + 4 * (int)(gen % 2u);
    if (lid < 4) part[lid] = 0u;
    if (get_group_id(0) == 0 && lid < 4) r[5 - 4 * (int)(gen % 2u) + lid] = 0u;
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
    if (on && lid < 4 && part[lid]) atomic_max(&r[at + lid], part[lid]);
}
