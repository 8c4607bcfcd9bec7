/* Prepended to every clip program, built-in or a user's: the kernel API, whose names are stable
 * and prefixed (include/clip/process_author.h lists them). CLIP_DOUBLE and CLIP_COMPLEX come from
 * the build options and select the element type; complex values are interleaved (re, im) as a
 * 2-vector. */
#if CLIP_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define CLIP_REAL double
typedef double clip_real_t;
typedef double2 clip_complex_t;
typedef double4 clip_real4_t;
#else
#define CLIP_REAL float
typedef float clip_real_t;
typedef float2 clip_complex_t;
typedef float4 clip_real4_t;
#endif

/* Token pasting through macro arguments, for vector types of clip_real_t (CLIP_CAT(CLIP_REAL, 4) is
 * float4 or double4, CLIP_REAL naming clip_real_t's scalar type) and for names picked by a width. */
#define CLIP_CAT_(a, b) a##b
#define CLIP_CAT(a, b) CLIP_CAT_(a, b)

#if CLIP_COMPLEX
typedef clip_complex_t clip_elem_t;
#else
typedef clip_real_t clip_elem_t;
#endif

/* The short names the built-in kernels use (clip_proc_kernel defines CLIP_SHORT_NAMES); a user's
 * source does not get them, so they stay free for its own. */
#ifdef CLIP_SHORT_NAMES
typedef clip_real_t real_t;
typedef clip_complex_t complex_t;
typedef clip_real4_t real4_t;
typedef clip_elem_t elem_t;
#endif

/* a * b */
inline clip_complex_t clip_cmul(clip_complex_t a, clip_complex_t b) {
    return (clip_complex_t)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
/* conj(a) * b: MATLAB's dot conjugates its first argument. */
inline clip_complex_t clip_cconjmul(clip_complex_t a, clip_complex_t b) {
    return (clip_complex_t)(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}
/* The helpers below call the math library. They are compiled for user kernels (whose builds
 * define CLIP_USER_KERNEL) and for built-ins that ask (-DCLIP_COMPLEX_MATH): present in every
 * program, even unused, they made PoCL's compiler output for the scale kernel pass 1 MB (it builds
 * with -Dinline=), which test_save's 1 MB file-size limit caught. */
#if defined(CLIP_USER_KERNEL) || defined(CLIP_COMPLEX_MATH)
/* |a|, without overflow for large parts */
static inline clip_real_t clip_cabs(clip_complex_t a) { return hypot(a.x, a.y); }
/* the argument of a, in (-pi, pi] */
static inline clip_real_t clip_carg(clip_complex_t a) { return atan2(a.y, a.x); }
/* a / b (Smith's scaling, so that |b| near the overflow threshold does not overflow) */
static inline clip_complex_t clip_cdiv(clip_complex_t a, clip_complex_t b) {
    if (fabs(b.x) >= fabs(b.y)) {
        const clip_real_t r = b.y / b.x, d = b.x + b.y * r;
        return (clip_complex_t)((a.x + a.y * r) / d, (a.y - a.x * r) / d);
    }
    const clip_real_t r = b.x / b.y, d = b.x * r + b.y;
    return (clip_complex_t)((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
/* e^a */
static inline clip_complex_t clip_cexp(clip_complex_t a) {
    const clip_real_t m = exp(a.x);
    return (clip_complex_t)(m * cos(a.y), m * sin(a.y));
}
/* the principal logarithm of a: log|a| + i arg(a) */
static inline clip_complex_t clip_clog(clip_complex_t a) {
    return (clip_complex_t)(log(clip_cabs(a)), clip_carg(a));
}
/* a^x for a real x, principal branch (MATLAB's power): |a|^x (cos x arg a, sin x arg a); 0^x is
 * 0 for x > 0 */
static inline clip_complex_t clip_cpowr(clip_complex_t a, clip_real_t x) {
    if (a.x == 0 && a.y == 0) return (clip_complex_t)(x == 0 ? 1 : (x > 0 ? 0 : INFINITY), 0);
    const clip_real_t m = pow(clip_cabs(a), x), t = x * clip_carg(a);
    return (clip_complex_t)(m * cos(t), m * sin(t));
}
#endif

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
inline void clip_addc(clip_real_t *s, clip_real_t *c, const clip_real_t v) {
#if CLIP_DOUBLE
    *s += v;
    (void)c;
#else
    const clip_real_t t = *s + v;
    *c += fabs(*s) >= fabs(v) ? (*s - t) + v : (v - t) + *s;
    *s = t;
#endif
}
