/* The identity of order n (MATLAB's A^0 = eye(size(A)), whatever A holds); one element per
 * work-item. */
__kernel void matpow_eye(__global real_t *C, const ulong n) {
    const size_t i = get_global_id(0);
    if (i >= n * n) return;
    const real_t v = i % (n + 1) == 0 ? (real_t)1 : (real_t)0;
#if CLIP_COMPLEX
    vstore2((complex_t)(v, 0), i, C);
#else
    C[i] = v;
#endif
}
