/* norm: MATLAB's norm(v, p) of a vector, as a two-stage reduction (see processes/norm.c).
 *
 * Build options (set by init):
 *   MODE   1 sum |x| (p = 1)            2 sum of squares, Blue's three accumulators (p = 2)
 *          3 max |x| (p = Inf, and the first pass of mode 5)    4 min |x| (p = -Inf)
 *          5 sum (|x|/m)^p with m = max |x| from the first pass, in aux[0]
 *   PINT   mode 5: the integer p (powers by multiplication), or 0 for exp2(p*log2(y))
 *   VEC    scalars per vector load (1, 2, 4, 8, 16; even for complex)
 *   AW     accumulator lanes: VEC, or VEC/2 for complex moduli (all modes but 2)
 *   LOCAL  work-group size of both stages, a power of two
 * Every mode propagates NaN, as MATLAB's norm does: sums naturally, max/min explicitly, and
 * mode 2 routes NaN into its middle accumulator. */

#if CLIP_DOUBLE
#define RNAME double
#else
#define RNAME float
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

/* Loads from global memory go through a vec_t pointer, so that GPUs issue one wide load (the
 * buffers start aligned, and every load is at a multiple of its size); the padded tail is
 * read from private memory with vloadN. */
#if VEC == 1
typedef real_t vec_t;
#define PLOAD(ptr) ((ptr)[0])
#else
typedef CAT(RNAME, VEC) vec_t;
#define PLOAD(ptr) CAT(vload, VEC)(0, ptr)
#endif
#if AW == 1
typedef real_t acc_t;
#else
typedef CAT(RNAME, AW) acc_t;
#endif

#if MODE == 2 || !CLIP_COMPLEX
#define MAG(v) fabs(v)
#else
#define MAG(v) hypot((v).even, (v).odd)
#endif

#if MODE == 2
#define NACC 3
#else
#define NACC 1
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

#if MODE == 3
#define INIT ((real_t)0)
#define PAD ((real_t)0)
inline real_t comb(real_t a, real_t b) { return NMAX(a, b); }
#elif MODE == 4
#define INIT ((real_t)INFINITY)
#define PAD ((real_t)INFINITY)
inline real_t comb(real_t a, real_t b) { return NMIN(a, b); }
#else
#define INIT ((real_t)0)
#define PAD ((real_t)0)
inline real_t comb(real_t a, real_t b) { return a + b; }
#endif

/* The lanes of an accumulator combined pairwise into one value. */
#if AW == 1
#define HRED(v) (v)
#elif AW == 2
#define HRED(v) comb((v).s0, (v).s1)
#elif AW == 4
#define HRED(v) comb(comb((v).s0, (v).s1), comb((v).s2, (v).s3))
#elif AW == 8
#define HRED(v) comb(comb(comb((v).s0, (v).s1), comb((v).s2, (v).s3)), \
                     comb(comb((v).s4, (v).s5), comb((v).s6, (v).s7)))
#elif AW == 16
#define HRED(v) comb(comb(comb(comb((v).s0, (v).s1), comb((v).s2, (v).s3)),             \
                          comb(comb((v).s4, (v).s5), comb((v).s6, (v).s7))),            \
                     comb(comb(comb((v).s8, (v).s9), comb((v).sa, (v).sb)),             \
                          comb(comb((v).sc, (v).sd), comb((v).se, (v).sf))))
#endif

#if MODE == 5 && PINT
/* y^PINT by squaring; PINT is a constant, so the loop unrolls into multiplications. */
inline acc_t ipow(acc_t y) {
    acc_t r = (acc_t)1;
    for (int e = PINT; e > 0; e >>= 1) {
        if (e & 1) r *= y;
        y *= y;
    }
    return r;
}
#endif

/* Adds one vector load to the work-item's accumulators. In mode 5, scale = (s1, r) maps |x| to
 * (|x|*s1)*r = |x|/m, in [0, 1] up to rounding, so no power overflows. */
inline void accum(acc_t *acc, vec_t v, real_t s1, real_t r, real_t p) {
#if MODE == 2
    acc_t ax = fabs(v), ys = ax * SSML, yb = ax * SBIG;
    acc[0] += (ax < TSML) ? ys * ys : (acc_t)0;
    acc[1] += ((ax < TSML) | (ax > TBIG)) ? (acc_t)0 : ax * ax; /* NaN lands here */
    acc[2] += (ax > TBIG) ? yb * yb : (acc_t)0;
#else
    acc_t ax = MAG(v);
#if MODE == 1
    acc[0] += ax;
#elif MODE == 3
    acc[0] = NMAX(ax, acc[0]);
#elif MODE == 4
    acc[0] = NMIN(ax, acc[0]);
#elif PINT
    acc[0] += ipow((ax * s1) * r);
#else
    /* y^p as exp2(p*log2(y)): several times faster than pow() on PoCL. Its relative error grows
     * with |p*log2(y)|, i.e. only for terms far below the largest (which is 1), so the sum keeps
     * a relative error of a few ulps times log(n). y = 0 gives exp2(-inf) = 0. */
    acc[0] += exp2(p * log2((ax * s1) * r));
#endif
#endif
    (void)s1;
    (void)r;
    (void)p;
}

/* Tree over the work-group: sh holds NACC rows of LOCAL values; row k ends in sh[k*LOCAL]. */
inline void tree(__local real_t *sh, const uint lid) {
    for (uint s = LOCAL / 2; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < s)
            for (int k = 0; k < NACC; k++)
                sh[k * LOCAL + lid] = comb(sh[k * LOCAL + lid], sh[k * LOCAL + lid + s]);
    }
}

/* Stage 1: one partial per work-group, row k of part at part[k*groups + group]. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void norm_stage1(__global const real_t *x, const ulong nvec, const ulong chunk, const uint tail,
                 __global const real_t *aux, const real_t p, __global real_t *part) {
    __local real_t sh[NACC * LOCAL];
    const uint lid = get_local_id(0), g = get_group_id(0), ng = get_num_groups(0);
    acc_t acc[NACC];
    for (int k = 0; k < NACC; k++) acc[k] = (acc_t)INIT;
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
    for (ulong v = start + lid; v < end; v += LOCAL) accum(acc, xv[v], s1, r, p);
    if (live && tail && g == ng - 1 && lid == 0) {
        real_t buf[VEC];
        for (uint k = 0; k < VEC; k++) buf[k] = k < tail ? x[nvec * VEC + k] : PAD;
        accum(acc, PLOAD(buf), s1, r, p);
    }
    for (int k = 0; k < NACC; k++) sh[k * LOCAL + lid] = HRED(acc[k]);
    tree(sh, lid);
    if (lid == 0)
        for (int k = 0; k < NACC; k++) part[k * ng + g] = sh[k * LOCAL];
}

#if MODE == 2
/* LAPACK's combination of the three accumulators (dnrm2.f90), with this file's constants. */
inline real_t finish(real_t asml, real_t amed, real_t abig) {
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
#endif

/* Stage 2: one work-group reduces the `ng` partials and writes the result to out[0]. */
__kernel __attribute__((reqd_work_group_size(LOCAL, 1, 1)))
void norm_stage2(__global const real_t *part, const uint ng, __global const real_t *aux,
                 const real_t p, __global real_t *out) {
    __local real_t sh[NACC * LOCAL];
    const uint lid = get_local_id(0);
    for (int k = 0; k < NACC; k++) {
        real_t a = INIT;
        for (uint i = lid; i < ng; i += LOCAL) a = comb(a, part[k * ng + i]);
        sh[k * LOCAL + lid] = a;
    }
    tree(sh, lid);
    if (lid != 0) return;
#if MODE == 2
    out[0] = finish(sh[0], sh[LOCAL], sh[2 * LOCAL]);
    (void)aux;
#elif MODE == 5
    /* norm = m * (sum (|x|/m)^p)^(1/p); m alone when it is NaN, Inf or 0. */
    const real_t m = aux[0], s = sh[0];
#if PINT
    out[0] = m > 0 && m < INFINITY ? m * rootn(s, PINT) : m;
#else
    out[0] = m > 0 && m < INFINITY ? m * pow(s, 1 / p) : m;
#endif
#else
    out[0] = sh[0];
    (void)aux;
#endif
    (void)p;
}
