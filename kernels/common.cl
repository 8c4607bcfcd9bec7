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

/* s += x with the addition's rounding error added to c (Knuth's TwoSum: exact and branch-free),
 * so that s + c is the running sum to about twice the working precision however long the
 * work-item's share (a CPU work-item streams millions of elements). T is the type of s, c and x,
 * a real or a vector of reals. An Inf or NaN in s leaves c NaN; CLIP_FOLD then gives s alone,
 * which is already the answer. The reductions (dot, norm and their line forms) all sum so. */
#define CLIP_TWOSUM(T, s, c, x)                                                                    \
    do {                                                                                           \
        T x_ = (x), t_ = (s) + x_, z_ = t_ - (s);                                                  \
        (c) += ((s) - (t_ - z_)) + (x_ - z_);                                                      \
        (s) = t_;                                                                                  \
    } while (0)
#define CLIP_FOLD(s, c) (isinf(s) ? (s) : (s) + (c))

/* *s += v for a line kernel's running sum: compensated into *c in single precision; double's
 * own precision is enough there (eps 1.1e-16 against the lines' lengths), so it adds plainly. */
inline void clip_addc(real_t *s, real_t *c, const real_t v) {
#if CLIP_DOUBLE
    *s += v;
    (void)c;
#else
    CLIP_TWOSUM(real_t, *s, *c, v);
#endif
}
