/* norm: MATLAB's norm(v, p) of a vector, as a two-stage reduction (see processes/norm.c).
 *
 * Build options (set by init):
 *   MODE   1 sum |x| (p = 1)            2 sum of squares, Blue's three accumulators (p = 2)
 *          3 max |x| (p = Inf, and the first pass of mode 5)    4 min |x| (p = -Inf)
 *          5 sum (|x|/m)^p with m = max |x| from a first pass, in aux[0] (two passes)
 *          6 one pass: a running scale M (max |x|, or its power of two) and the sum
 *            (|x|/M)^p, rescaled when M grows
 *   SCALE2 mode 6: M is a power of two (p <= 64), see scale_of
 *   PINT   modes 5, 6: y^p by multiplication when p is an integer (PINT = p) or half of an odd
 *          one (PINT = p - 1/2, PHALF = 1: times sqrt(y)); PINT = 0 is exp2(p*log2(y))
 *   VEC    scalars per vector load (1, 2, 4, 8, 16; even for complex)
 *   AW     accumulator lanes: VEC, or VEC/2 for complex moduli (all modes but 2)
 *   UNROLL vector loads a work-item issues before using them
 *   COMP   1: each work-item's running sum is compensated (see ADDC)
 *   LOCAL  work-group size of both stages, a power of two
 * Every mode propagates NaN, as MATLAB's norm does: sums naturally, max/min explicitly, mode 2
 * routes NaN into its middle accumulator, and modes 5 and 6 let a NaN or Inf maximum decide. */

#ifndef PHALF
#define PHALF 0
#endif
#ifndef COMP
#define COMP 0
#endif
#ifndef SCALE2
#define SCALE2 0
#endif

/* Loads from global memory go through a vec_t pointer, so that GPUs issue one wide load (the
 * buffers start aligned, and every load is at a multiple of its size); the padded tail is
 * read from private memory with vloadN. */
#if VEC == 1
typedef real_t vec_t;
#define PLOAD(ptr) ((ptr)[0])
#else
typedef CLIP_CAT(CLIP_REAL, VEC) vec_t;
#define PLOAD(ptr) CLIP_CAT(vload, VEC)(0, ptr)
#endif
/* Accumulators; LANES(v, arr) spills one into a private array. any() of a scalar comparison
 * (1, not -1) would read false: ANY hides the difference. */
#if AW == 1
typedef real_t acc_t;
#define LANES(v, arr) ((arr)[0] = (v))
#define ANY(c) (c)
#else
typedef CLIP_CAT(CLIP_REAL, AW) acc_t;
#define LANES(v, arr) CLIP_CAT(vstore, AW)(v, 0, arr)
#define ANY(c) any(c)
#endif

#if MODE == 2 || !CLIP_COMPLEX
#define MAG(v) fabs(v)
#else
#define MAG(v) hypot((v).even, (v).odd)
#endif

/* NST accumulators per work-item; NROW values per partial (one row each in `part`). Row SI is
 * a sum, which accumulator CI compensates when COMP is set. */
#if MODE == 2
#define NROW 3
#define NBASE 3
#define SI 1 /* the medium accumulator; the others see only extreme magnitudes */
#elif MODE == 6
#define NROW 2 /* m, s */
#define NBASE 4 /* m, s, r = 1/(m*c), c = prescale of m (see step6) */
#define SI 1
#else
#define NROW 1
#define NBASE 1
#define SI 0
#endif
#if COMP && (MODE != 3 && MODE != 4)
#define NST (NBASE + 1)
#define CI NBASE
#else
#undef COMP
#define COMP 0
#define NST NBASE
#endif

/* s += x, or with COMP compensated (common.cl's CLIP_TWOSUM: a handful of adds per element,
 * free where memory bounds the speed). */
#if COMP
#define ADDC(s, c, x) CLIP_TWOSUM(acc_t, s, c, x)
#else
#define ADDC(s, c, x) ((s) += (x))
#endif

/* Blue's scaled sum of squares, as LAPACK's nrm2 since 3.10 but with wider margins: values
 * below TSML are scaled up by SSML, above TBIG down by SBIG, the rest squared as they are. The
 * margins keep every accumulator finite for up to 2^36 elements and every square of a value
 * in range normal; all factors are powers of two, so scaling is exact. */
#if CLIP_DOUBLE
#define TSML 0x1p-511
#define TBIG 0x1p480
#define SSML 0x1p600
#define SBIG 0x1p-540
#define PRESCALE 0x1p128
#define REAL_MIN DBL_MIN
#else
#define TSML 0x1p-63f
#define TBIG 0x1p45f
#define SSML 0x1p100f
#define SBIG 0x1p-83f
#define PRESCALE 0x1p64f
#define REAL_MIN FLT_MIN
#endif

/* NaN-propagating max/min, for scalars and vectors alike. */
#define NMAX(a, b) ((((a) > (b)) | isnan(a)) ? (a) : (b))
#define NMIN(a, b) ((((a) < (b)) | isnan(a)) ? (a) : (b))

#if MODE == 4
#define INIT ((real_t)INFINITY)
#define PAD ((real_t)INFINITY)
#else
#define INIT ((real_t)0)
#define PAD ((real_t)0)
#endif

#if MODE >= 5
/* y^p for y in [0, 2): the terms of the scaled sum and the rescaling factors. */
#if PINT
#define DEF_IPOW(name, T)                                                                      \
    inline T name(T y) {                                                                       \
        T r = (T)1;                                                                            \
        for (int e = PINT; e > 0; e >>= 1) {                                                   \
            if (e & 1) r *= y;                                                                 \
            y *= y;                                                                            \
        }                                                                                      \
        return r;                                                                              \
    }
/* PINT is a constant, so the loop unrolls into multiplications. */
DEF_IPOW(ipow_v, acc_t)
DEF_IPOW(ipow_s, real_t)
#if PHALF && CLIP_DOUBLE
/* y^(k+1) / sqrt(y): a correctly rounded double sqrt costs GPUs about twice rsqrt's few
 * ulps, and it bound p = 2.5 at 2.3 TB/s on the H100. y = 0 is 0 (the sum needs no NaN from
 * it: NaN in the data sets M, which decides). */
#define POWV(y) ((y) > (acc_t)0 ? ipow_v(y) * (y) * rsqrt(y) : (acc_t)0)
#define POWS(y) ((y) > (real_t)0 ? ipow_s(y) * (y) * rsqrt(y) : (real_t)0)
#elif PHALF
#define POWV(y) (ipow_v(y) * sqrt(y))
#define POWS(y) (ipow_s(y) * sqrt(y))
#else
#define POWV(y) ipow_v(y)
#define POWS(y) ipow_s(y)
#endif
#else
/* exp2(p*log2(y)): several times faster than pow() on PoCL. Its relative error grows with
 * |p*log2(y)|, i.e. only for terms far below the largest (which is 1), so the sum keeps a
 * relative error of a few ulps times log(n). y = 0 gives exp2(-inf) = 0. */
#define POWV(y) exp2(p * log2(y))
#define POWS(y) exp2(p * log2(y))
#endif
#endif

/* Combines partial b into partial a, NROW values each. */
inline void comb(real_t *a, const real_t *b, const real_t p) {
#if MODE == 3
    a[0] = NMAX(a[0], b[0]);
#elif MODE == 4
    a[0] = NMIN(a[0], b[0]);
#elif MODE == 6
    /* (m, s) pairs at a common scale: the larger m. Where that is NaN, Inf or 0 it decides the
     * result alone (finish), and the sums need not be valid. */
    real_t m = NMAX(a[0], b[0]);
    if (m > 0 && m < INFINITY) a[1] = a[1] * POWS(a[0] / m) + b[1] * POWS(b[0] / m);
    a[0] = m;
#else
    for (int k = 0; k < NROW; k++) a[k] += b[k];
#endif
    (void)p;
}

#if MODE == 6
#if CLIP_DOUBLE
#define TRUE_MIN 0x1p-1074
#define UNAME ulong
#define EXPBITS 0x7FF0000000000000UL
#else
#define TRUE_MIN 0x1p-149f
#define UNAME uint
#define EXPBITS 0x7F800000U
#endif
#if AW == 1
#define AS_U(v) CLIP_CAT(as_, UNAME)(v)
#define AS_R(v) CLIP_CAT(as_, CLIP_REAL)(v)
#else
#define AS_U(v) CLIP_CAT(CLIP_CAT(as_, UNAME), AW)(v)
#define AS_R(v) CLIP_CAT(CLIP_CAT(as_, CLIP_REAL), AW)(v)
#endif

/* The scale M that a running maximum mx > 0 calls for. SCALE2: the power of two M <= mx (its
 * exponent bits; subnormals pre-scaled), so that every |x|/M is exact, every rescaling factor
 * (M0/M1)^p and every ratio of partials' scales is a power of two (exact powers for integer p),
 * and M grows only when the maximum doubles. Terms are below 2^p, so SCALE2 needs p <= 64
 * (sums stay below 2^100). Otherwise M = mx: terms <= 1 for any p. */
#if SCALE2
inline acc_t scale_of(const acc_t mx) {
    const acc_t big = mx < (acc_t)REAL_MIN ? mx * (acc_t)PRESCALE : mx;
    const acc_t e = AS_R(AS_U(big) & EXPBITS);
    return mx < (acc_t)REAL_MIN ? e * (acc_t)(1 / PRESCALE) : e;
}
#define GROWS(mx, m) ((mx) >= 2 * (m))
#else
#define scale_of(mx) (mx)
#define GROWS(mx, m) ((mx) > (m))
#endif

/* One batch of n moduli ax into the running (M, s, r, c), lane by lane: s = sum (|x|/M)^p with
 * each term computed as (|x|*c)*r, c being 1, or PRESCALE for a subnormal M whose reciprocal
 * would overflow, and r = 1/(M*c). The batch maximum mx grows M rarely (about log(n) times per
 * lane for any ordering of random data); s is then rescaled to the new M. M starts at the
 * smallest subnormal, so zeros never count as growth. */
inline void step6(acc_t *st, const acc_t *ax, const int n, const real_t p) {
    acc_t mx = ax[0];
    for (int u = 1; u < n; u++) mx = NMAX(ax[u], mx);
    if (ANY(GROWS(mx, st[0]))) {
        /* Neither mx nor M is NaN where a lane grows. mx = Inf gives M = Inf, r = 0 and s
         * invalid, which finish ignores. */
        const acc_t m0 = st[0], m1 = scale_of(mx);
        const acc_t cn = m1 < (acc_t)REAL_MIN ? (acc_t)PRESCALE : (acc_t)1;
        const acc_t rn = (acc_t)1 / (m1 * cn);
        const acc_t f = POWV((m0 * cn) * rn);
        st[1] = GROWS(mx, m0) ? st[1] * f : st[1];
#if COMP
        st[CI] = GROWS(mx, m0) ? st[CI] * f : st[CI];
#endif
        st[2] = GROWS(mx, m0) ? rn : st[2];
        st[3] = GROWS(mx, m0) ? cn : st[3];
        st[0] = GROWS(mx, m0) ? m1 : m0;
    }
    st[0] = isnan(mx) ? mx : st[0]; /* NaN sticks: NaN never grows */
    for (int u = 0; u < n; u++) ADDC(st[1], st[CI], POWV((ax[u] * st[3]) * st[2]));
}
#endif

#if MODE == 5
/* Mode 5's scale (s1, r) maps |x| to (|x|*s1)*r = |x|/m, in [0, 1] up to rounding. */
#define POW5(ax) POWV((ax * s1) * r)
#endif

/* Adds n vector loads to the work-item's accumulators. */
inline void step(acc_t *acc, const vec_t *v, const int n, const real_t s1, const real_t r,
                 const real_t p) {
#if MODE == 6
    acc_t ax[UNROLL];
    for (int u = 0; u < n; u++) ax[u] = MAG(v[u]);
    step6(acc, ax, n, p);
#else
    for (int u = 0; u < n; u++) {
#if MODE == 2
        /* Values outside [TSML, TBIG] (but 0, whose square adds nothing anywhere) are rare in
         * practice: the common path squares into the medium accumulator alone. NaN lands there
         * too, Inf with the big values. */
        acc_t ax = fabs(v[u]);
        if (ANY(((ax < TSML) & (ax > 0)) | (ax > TBIG))) {
            acc_t ys = ax * SSML, yb = ax * SBIG;
            acc[0] += (ax < TSML) ? ys * ys : (acc_t)0;
            ADDC(acc[1], acc[CI], ((ax < TSML) | (ax > TBIG)) ? (acc_t)0 : ax * ax);
            acc[2] += (ax > TBIG) ? yb * yb : (acc_t)0;
        } else {
            ADDC(acc[1], acc[CI], ax * ax);
        }
#else
        acc_t ax = MAG(v[u]);
#if MODE == 1
        ADDC(acc[0], acc[CI], ax);
#elif MODE == 3
        acc[0] = NMAX(ax, acc[0]);
#elif MODE == 4
        acc[0] = NMIN(ax, acc[0]);
#else
        ADDC(acc[0], acc[CI], POW5(ax));
#endif
#endif
    }
#endif
    (void)s1;
    (void)r;
    (void)p;
}

/* The accumulators' lanes, combined pairwise, into one partial. */
inline void lanes(const acc_t *acc, real_t *out, const real_t p) {
    real_t l[NROW][AW];
    for (int k = 0; k < NROW; k++) LANES(acc[k], l[k]);
#if COMP
    LANES(CLIP_FOLD(acc[SI], acc[CI]), l[SI]);
#endif
    for (int w = AW / 2; w > 0; w /= 2)
        for (int i = 0; i < w; i++) {
            real_t a[NROW], b[NROW];
            for (int k = 0; k < NROW; k++) a[k] = l[k][i], b[k] = l[k][i + w];
            comb(a, b, p);
            for (int k = 0; k < NROW; k++) l[k][i] = a[k];
        }
    for (int k = 0; k < NROW; k++) out[k] = l[k][0];
}

/* Tree over the work-group from each work-item's partial `mine`: sh holds NROW rows of LOCAL
 * values; row k ends in sh[k*LOCAL]. */
inline void tree(__local real_t *sh, const uint lid, real_t *mine, const real_t p) {
    for (int k = 0; k < NROW; k++) sh[k * LOCAL + lid] = mine[k];
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < s) {
            real_t b[NROW];
            for (int k = 0; k < NROW; k++) b[k] = sh[k * LOCAL + lid + s];
            comb(mine, b, p);
            for (int k = 0; k < NROW; k++) sh[k * LOCAL + lid] = mine[k];
        }
    }
}

/* Stage 1: one partial per work-group, row k of part at part[k*groups + group]. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void norm_stage1(__global const real_t *x, const ulong nvec, const ulong chunk, const uint tail,
                 __global const real_t *aux, const real_t p, __global real_t *part) {
    __local real_t sh[NROW * LOCAL];
    const uint lid = get_local_id(0), g = get_group_id(0), ng = get_num_groups(0);
    acc_t acc[NST];
    for (int k = 0; k < NST; k++) acc[k] = (acc_t)INIT;
#if MODE == 6
    acc[0] = (acc_t)TRUE_MIN;
    acc[2] = (acc_t)(1 / (TRUE_MIN * PRESCALE));
    acc[3] = (acc_t)PRESCALE;
#endif
    real_t s1 = 1, r = 1;
    ulong start = g * chunk, end = min(start + chunk, nvec);
    int live = 1;
#if MODE == 5
    /* m NaN, Inf or 0 decides the result alone (stage 2); skip the data. A denormal m is
     * pre-scaled so that its reciprocal stays finite. */
    const real_t m = aux[0];
    live = m > 0 && m < INFINITY;
    s1 = m < REAL_MIN ? PRESCALE : 1;
    r = live ? 1 / (m * s1) : 0;
    if (!live) end = start;
#else
    (void)aux;
#endif
    __global const vec_t *xv = (__global const vec_t *)x;
    ulong v = start + lid;
#if UNROLL > 1
    /* All loads of a step are issued before any is used: bytes in flight hide latency. */
    for (; v + (UNROLL - 1) * LOCAL < end; v += UNROLL * LOCAL) {
        vec_t xs[UNROLL];
        for (int u = 0; u < UNROLL; u++) xs[u] = xv[v + u * LOCAL];
        step(acc, xs, UNROLL, s1, r, p);
    }
#endif
    for (; v < end; v += LOCAL) {
        vec_t xs[1] = {xv[v]};
        step(acc, xs, 1, s1, r, p);
    }
    if (live && tail && g == ng - 1 && lid == 0) {
        real_t buf[VEC];
        for (uint k = 0; k < VEC; k++) buf[k] = k < tail ? x[nvec * VEC + k] : PAD;
        vec_t xs[1] = {PLOAD(buf)};
        step(acc, xs, 1, s1, r, p);
    }
    real_t mine[NROW];
    lanes(acc, mine, p);
    tree(sh, lid, mine, p);
    if (lid == 0)
        for (int k = 0; k < NROW; k++) part[k * ng + g] = sh[k * LOCAL];
}

#if MODE == 2
/* LAPACK's combination of the three accumulators (dnrm2.f90), with this file's constants. */
inline real_t finish(const real_t *a, const real_t m, const real_t p) {
    real_t asml = a[0], amed = a[1], abig = a[2];
    (void)m;
    (void)p;
    if (abig > 0) {
        if (amed > 0 || isnan(amed)) abig += (amed * SBIG) * SBIG;
        return sqrt(abig) * (1 / SBIG);
    }
    if (asml > 0) {
        if (amed > 0 || isnan(amed)) {
            real_t ymed = sqrt(amed), ysml = sqrt(asml) * (1 / SSML);
            real_t ymax = ysml > ymed ? ysml : ymed, ymin = ysml > ymed ? ymed : ysml;
            real_t q = ymin / ymax;
            return ymax * sqrt(1 + q * q);
        }
        return sqrt(asml) * (1 / SSML);
    }
    return sqrt(amed);
}
#elif MODE >= 5
/* norm = m * (sum (|x|/m)^p)^(1/p); m alone when it is NaN, Inf or 0. The largest |x| adds at
 * least 1 to the sum (exactly 1 = |x|/m for m = max |x|, at least 1 for SCALE2's power of two
 * below it), but computed as (|x|*c)*r it can come out 1 - ulp, whose p-th power underflows to 0
 * for a large p (41 with p = 1e10 gave 0): hence the floor of 1. Mode 6's M starts at TRUE_MIN,
 * where only zeros leave it, with a sum of 0 (a value of TRUE_MIN itself adds exactly 1). */
inline real_t finish(const real_t *a, const real_t m, const real_t p) {
#if MODE == 6
    const real_t s = m > (real_t)TRUE_MIN ? fmax(a[NROW - 1], (real_t)1) : a[NROW - 1];
#else
    const real_t s = fmax(a[NROW - 1], (real_t)1);
#endif
    if (!(m > 0 && m < INFINITY)) return m;
#if PINT && !PHALF
    return m * rootn(s, PINT);
#else
    return m * pow(s, 1 / p);
#endif
}
#else
inline real_t finish(const real_t *a, const real_t m, const real_t p) {
    (void)m;
    (void)p;
    return a[0];
}
#endif

/* Stage 2: one work-group reduces the `ng` partials and writes the result to out[0]. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void norm_stage2(__global const real_t *part, const uint ng, __global const real_t *aux,
                 const real_t p, __global real_t *out) {
    __local real_t sh[NROW * LOCAL];
    const uint lid = get_local_id(0);
    real_t mine[NROW];
    for (int k = 0; k < NROW; k++) mine[k] = INIT;
    for (uint i = lid; i < ng; i += LOCAL) {
        real_t b[NROW];
        for (int k = 0; k < NROW; k++) b[k] = part[k * ng + i];
        comb(mine, b, p);
    }
    tree(sh, lid, mine, p);
    if (lid != 0) return;
    real_t a[NROW];
    for (int k = 0; k < NROW; k++) a[k] = sh[k * LOCAL];
#if MODE == 5
    out[0] = finish(a, aux[0], p);
#else
    out[0] = finish(a, a[0], p);
    (void)aux;
#endif
}
