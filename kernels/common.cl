/* Prepended to every clip program. CLIP_DOUBLE and CLIP_COMPLEX come from the build options and
 * select the element type; complex values are interleaved (re, im) as a 2-vector. */
#if CLIP_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CLIP_REAL double
typedef double real_t;
typedef double2 complex_t;
typedef double4 real4_t;
#else
#define CLIP_REAL float
typedef float real_t;
typedef float2 complex_t;
typedef float4 real4_t;
#endif

/* Token pasting through macro arguments, for vector types of real_t (CLIP_CAT(CLIP_REAL, 4) is
 * float4 or double4, CLIP_REAL naming real_t's scalar type) and for names picked by a width. */
#define CLIP_CAT_(a, b) a##b
#define CLIP_CAT(a, b) CLIP_CAT_(a, b)

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
 * which is already the answer. dot and norm sum so; their line forms by clip_addc below. */
#define CLIP_TWOSUM(T, s, c, x)                                                                    \
    do {                                                                                           \
        T x_ = (x), t_ = (s) + x_, z_ = t_ - (s);                                                  \
        (c) += ((s) - (t_ - z_)) + (x_ - z_);                                                      \
        (s) = t_;                                                                                  \
    } while (0)
#define CLIP_FOLD(s, c) (isinf(s) ? (s) : (s) + (c))

/* *s += v for a line kernel's running sum: compensated into *c in single precision, the same
 * error term as CLIP_TWOSUM by Neumaier's form (the larger operand first), whose dependent chain
 * is shorter: on PoCL vecnorm along the columns of 4096^2 single ran 17.2 ms so against 20.3 by
 * TwoSum (one thread). Double adds plainly: its own precision is enough for these lines. */
inline void clip_addc(real_t *s, real_t *c, const real_t v) {
#if CLIP_DOUBLE
    *s += v;
    (void)c;
#else
    const real_t t = *s + v;
    *c += fabs(*s) >= fabs(v) ? (*s - t) + v : (v - t) + *s;
    *s = t;
#endif
}
