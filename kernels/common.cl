/* Prepended to every clip program. CLIP_DOUBLE and CLIP_COMPLEX come from the build options and
 * select the element type; complex values are interleaved (re, im) as a 2-vector. */
#if CLIP_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
typedef double2 complex_t;
typedef double4 real4_t;
#else
typedef float real_t;
typedef float2 complex_t;
typedef float4 real4_t;
#endif

#if CLIP_COMPLEX
typedef complex_t elem_t;
#else
typedef real_t elem_t;
#endif

/* a * b */
inline complex_t clip_cmul(complex_t a, complex_t b) {
    return (complex_t)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
/* conj(a) * b: MATLAB's dot conjugates its first argument. */
inline complex_t clip_cconjmul(complex_t a, complex_t b) {
    return (complex_t)(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}
