/* Built after tf32.cl ("tf32+tf32_range"): the ranges of conv2's operands for its tensor
 * kernel's second pass (tf32.cl, tf32_conv_shifts; kernels/conv2_tensor.cl, TC_SCALED), found by
 * that launch itself where its first pass asked for them: no launch of their own, which data in
 * the range paid for as ~5 us of profiling events (1% of 8192^2 15x15; bench/CONV2.md, "The
 * ranges inside the second launch").
 *
 * r: 16 words, zero before a pass's first launch; launch number gen (never 0; odd and even take
 * turns) uses r[0] (== gen where the first pass found a value under the split's range), four
 * words from TF32_RANGE_AT(gen) (A's ~lo and hi, then K's: tf32_note) and two from
 * TF32_RANGE_CNT(gen) (chunks taken and chunks done). Each launch zeroes the other turn's six for
 * the next (tf32_range_reset): no fill between launches. */
#define TF32_RANGE_AT(gen) (1 + 4 * (int)((gen) % 2u))
#define TF32_RANGE_CNT(gen) (10 + 2 * (int)((gen) % 2u))
/* Values of A a chunk (the filter is one chunk of its own). */
#ifndef TF32_RANGE_CHUNK
#define TF32_RANGE_CHUNK 16384
#endif

/* Orders this work-item's global atomics before its later ones, for the other work-groups. */
#ifdef CLIP_SM90A
#define TF32_FENCE asm volatile("membar.gl;" ::: "memory")
#else
#define TF32_FENCE mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

/* Zeroes launch gen + 1's words (launch gen - 1's): work-items lid 0..5 of one work-group, in
 * every launch, asked or not. */
inline void tf32_range_reset(__global uint *r, uint gen, int lid) {
    const uint next = gen + 1u; /* 2^32 - 1 is followed by 2: the same turn as 0 */
    if (lid < 4)
        r[TF32_RANGE_AT(next) + lid] = 0u;
    else if (lid < 6)
        r[TF32_RANGE_CNT(next) + lid - 4] = 0u;
}

/* The non-zero finite magnitudes of A (na values) and K (nk values) into r's four words of launch
 * gen, found by every work-group of the launch together, each calling this with all its lsz
 * work-items (lid its own; sh: 5 words of its local memory): the groups take chunks in turn
 * (TF32_RANGE_CHUNK values of A, or K) until none is left, merge what they saw into r, count the
 * chunks they did, and return once every chunk is done, the four words then in sh[1..4] for the
 * whole group. A group waits only for chunks that running groups have taken (those that start
 * later find every chunk taken and done), so the launch may hold more groups than the device
 * runs at a time. Uniform decisions, barriers reached by every work-item (PoCL). */
inline void tf32_range_join(__global const float *A, long na, __global const float *K, int nk,
                            __global uint *r, uint gen, int lid, int lsz, __local uint *sh) {
    __global uint *at = r + TF32_RANGE_AT(gen), *cnt = r + TF32_RANGE_CNT(gen);
    const long nca = (na + TF32_RANGE_CHUNK - 1) / TF32_RANGE_CHUNK;
    const uint chunks = (uint)nca + 1u; /* the last one K */
    uint v[4] = {0u, 0u, 0u, 0u}, done = 0u;
    if (lid < 4) sh[1 + lid] = 0u;
    if (lid == 0) sh[0] = atomic_inc(&cnt[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint c = sh[0];
    while (c < chunks) {
        if (c < (uint)nca) {
            const long e0 = (long)c * TF32_RANGE_CHUNK, e1 = min(e0 + TF32_RANGE_CHUNK, na);
            _Pragma("unroll 8") for (long e = e0 + lid; e < e1; e += lsz)
                tf32_note(&v[0], &v[1], A[e]);
        } else {
            for (int e = lid; e < nk; e += lsz)
                tf32_note(&v[2], &v[3], K[e]);
        }
        done++;
        barrier(CLK_LOCAL_MEM_FENCE); /* every work-item has read sh[0] */
        if (lid == 0) sh[0] = atomic_inc(&cnt[0]);
        barrier(CLK_LOCAL_MEM_FENCE);
        c = sh[0];
    }
    for (int q = 0; q < 4; q++)
        if (v[q]) atomic_max(&sh[1 + q], v[q]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < 4 && sh[1 + lid]) atomic_max(&at[lid], sh[1 + lid]);
    TF32_FENCE;
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) {
        if (done) atomic_add(&cnt[1], done);
        while (atomic_add(&cnt[1], 0u) < chunks)
            ;
        TF32_FENCE;
        for (int q = 0; q < 4; q++)
            sh[1 + q] = atomic_max(&at[q], 0u);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
