/* Element type conversion for mixed-type inputs: SRC_T/SRC_COMPLEX describe the source; the
 * destination is elem_t (from CLIP_DOUBLE/CLIP_COMPLEX). Real to complex gets a zero imaginary
 * part, as MATLAB's promotion does. */
#if SRC_DOUBLE || CLIP_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if SRC_DOUBLE
typedef double src_real_t;
typedef double2 src_complex_t;
#else
typedef float src_real_t;
typedef float2 src_complex_t;
#endif
#if SRC_COMPLEX
typedef src_complex_t src_t;
#else
typedef src_real_t src_t;
#endif

__kernel void convert(__global const src_t *x, __global elem_t *y, const ulong n) {
    size_t i = get_global_id(0);
    if (i < n) {
        src_t v = x[i];
#if CLIP_COMPLEX && SRC_COMPLEX
        y[i] = (elem_t)((real_t)v.x, (real_t)v.y);
#elif CLIP_COMPLEX
        y[i] = (elem_t)((real_t)v, (real_t)0);
#else
        y[i] = (elem_t)v;
#endif
    }
}
