/* y = a*x + b element-wise; for complex x, a and b are real (b adds to the real part), as
 * MATLAB's a*x + b with real scalars. One element per work-item; the range is rounded up. */
__kernel void scale(__global const elem_t *x, __global elem_t *y, const real_t a, const real_t b,
                    const ulong n) {
    size_t i = get_global_id(0);
    if (i < n) {
#if CLIP_COMPLEX
        elem_t v = x[i];
        y[i] = (elem_t)(fma(a, v.x, b), a * v.y);
#else
        y[i] = fma(a, x[i], b);
#endif
    }
}
