/* y = a*x + b element-wise; for complex x, a and b are real (b adds to the real part), as
 * MATLAB's a*x + b with real scalars. One element per work-item; the range is rounded up.
 * MATLAB rounds the product before adding b: a fused a*x + b differs in the last bit (0.1*3 - 0.3
 * is 5.55e-17 in MATLAB, 2.78e-17 fused) and overflows elsewhere (1e308*-2 + 1e308 is -Inf). */
#pragma OPENCL FP_CONTRACT OFF
__kernel void scale(__global const elem_t *x, __global elem_t *y, const real_t a, const real_t b,
                    const ulong n) {
    size_t i = get_global_id(0);
    if (i < n) {
#if CLIP_COMPLEX
        elem_t v = x[i];
        y[i] = (elem_t)(a * v.x + b, a * v.y);
#else
        y[i] = a * x[i] + b;
#endif
    }
}
