/* The 3xTF32 split and its range rule in plain OpenCL C, written once for every tensor-core
 * kernel (matmul_wg.cl, matmul_tc.cl, conv2_tensor.cl build it after tensor_core.cl, which sets
 * TF32_RNA to its cvt instruction) and for tests/test_tf32.c, which builds it alone with the
 * plain rounding below and checks the arithmetic on any device (PoCL in CI).
 *
 * x = big + small, big = x rounded to TF32 (10 fraction bits) and small = x - big (exact in fp32)
 * rounded to TF32: big*big' + big*small' + small*big' carries x*x' to about 2^-22 relative. That
 * holds while both parts are normal numbers. TF32 has fp32's exponent range but only the top 10
 * of the 23 fraction bits, so below FLT_MIN (2^-126) its step is 2^-136: a subnormal x keeps
 * only its bits down to 2^-136 (~2^-7 relative at 1e-39, nothing below 2^-137), and a normal x
 * under 2^-112 has a small part whose step 2^-136 is coarser than 2^-23 |x| (at 1e-36, ~2^-16
 * relative). No third part helps: the step is the format's. Upward, the rounding of x past
 * FLT_MAX gives big = Inf and small = NaN. */

/* The range in which the split is fp32-accurate: 0, or 2^-112 <= |x| < 2^126 (up there the
 * rounding cannot reach Inf, and 2^126 leaves the near-FLT_MAX values, whose products and sums
 * sit at the end of the range, to fp32 FMA). The kernels find the rows and columns (GEMM) or
 * work-groups (conv2: its low end) that hold anything else (subnormals, normals under 2^-112,
 * values of 2^126 and more, Inf, NaN) and compute those outputs in plain fp32 FMA instead. Data
 * in range whose products or sums overflow give Inf as fp32 does, where the order of the sum
 * allows (any two fp32 orders may differ there); NaN outputs are recomputed in fp32. */
#define TF32_TINY 0x1p-112f
#define TF32_HUGE 0x1p126f

/* x rounded to TF32, nearest with ties away from zero (as cvt.rna.tf32.f32), as the bits of an
 * fp32 value whose low 13 bits are zero: adding half of the dropped unit to the magnitude bits
 * carries into the exponent where it should (and past FLT_MAX into Inf). NaN stays NaN. */
inline uint tf32_rna(float x) {
    const uint u = as_uint(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) return u | 0x00400000u; /* NaN: keep it NaN */
    return (u + 0x1000u) & 0xffffe000u;
}

#ifndef TF32_RNA
#define TF32_RNA tf32_rna
#endif

/* The split of x into TF32 bit patterns big and small (see above). */
inline void tf32_split(float x, uint *big, uint *small) {
    const uint b = TF32_RNA(x);
    *big = b;
    *small = TF32_RNA(x - as_float(b));
}

/* Non-zero when x is outside the split's range (TF32_TINY, TF32_HUGE): zero and normal values
 * in range give 0; subnormals, tiny or huge values, Inf and NaN give 1. On the magnitude's bits
 * doubled (the sign shifted out; ordered as the magnitudes, NaN above Inf), so that no flushing
 * of subnormals can hide one, in a few integer instructions. */
inline int tf32_outside(float x) {
    const uint a = as_uint(x) << 1, lo = as_uint(TF32_TINY) << 1, hi = as_uint(TF32_HUGE) << 1;
    return a != 0u && a - lo >= hi - lo;
}

/* Non-zero when x is a non-zero value under TF32_TINY (a subnormal, or a normal value whose
 * small part would be subnormal): the low end of tf32_outside alone, for kernels that meet the
 * high end (Inf, NaN, a rounding past FLT_MAX) by recomputing the outputs that come out NaN. Two
 * instructions where it is or-ed into a flag (zero's doubled magnitude minus 1 wraps to the top,
 * so one unsigned comparison leaves it out). */
inline int tf32_tiny(float x) {
    return (as_uint(x) << 1) - 1u < (as_uint(TF32_TINY) << 1) - 1u;
}
