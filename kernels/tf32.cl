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
 * values of 2^126 and more, Inf, NaN): the wgmma GEMM scales such rows into the range (below),
 * conv2 its whole image and filter (tf32_conv_shifts, below) where a work-group met a value
 * under it, and the mma.sync GEMM, and conv2 where no shift holds its operands, compute those
 * outputs in plain fp32 FMA instead. Data in range
 * whose products or sums overflow give Inf as fp32 does, where the order of the sum allows (any
 * two fp32 orders may differ there); NaN outputs are recomputed in fp32. */
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

/* ---- Rows outside the range, brought into it -------------------------------------------------
 * A row of op(A) or column of op(B) (GEMM) that holds values outside the range is scaled by an
 * exact power of two 2^s so that every non-zero finite value of it is inside, and its outputs are
 * scaled back by 2^-(s_row + s_col) (one rounding, where the output is subnormal); its Inf and
 * NaN entries (at most a few a row) are packed as zero and their terms added to the outputs
 * after, in fp32 (tf32_add_term). That is possible when the row's largest and smallest non-zero
 * finite magnitudes lie within 2^238 of each other (tf32_scale); rows where they do not, or with
 * more non-finite entries than the kernel lists, go to fp32 FMA whole. */

/* The magnitude's bits of x (the sign cleared), ordered as the magnitudes: subnormals under
 * FLT_MIN, Inf at 0x7f800000 and NaN above. */
inline uint tf32_mag(float x) {
    return as_uint(x) & 0x7fffffffu;
}

/* floor(log2 |x|) of a finite non-zero magnitude m (tf32_mag), subnormals included (-149 for
 * the least). */
inline int tf32_ilogb(uint m) {
    return m >= 0x00800000u ? (int)(m >> 23) - 127 : -118 - (int)clz(m);
}

/* Whether a row whose non-zero finite magnitudes run from lo to hi (tf32_mag; hi 0 when it holds
 * none) can be brought into the range, and the least shift *s that does it (0 where it is in
 * range already): then 2^-112 <= lo 2^s and hi 2^s < 2^126. */
inline int tf32_scale(uint lo, uint hi, int *s) {
    *s = 0;
    if (hi == 0u) return 1;
    const int el = tf32_ilogb(lo), eh = tf32_ilogb(hi);
    if (el < -112)
        *s = -112 - el;
    else if (eh > 125)
        *s = 125 - eh;
    return el + *s >= -112 && eh + *s <= 125;
}

/* x scaled by 2^s as its row's packing takes it: exact for the non-zero finite values
 * tf32_scale brought into the range; Inf and NaN become 0 (their terms are added apart). */
inline float tf32_scaled(float x, int s) {
    return tf32_mag(x) >= 0x7f800000u ? 0.0f : ldexp(x, s);
}

/* An output v of scaled rows (the finite part, scaled back) plus one term a*b whose a or b is
 * Inf or NaN: the product and the sum in fp32, so the output's class is the one fp32 FMA gives
 * in any order of the terms (NaN from any NaN, from Inf * 0 or from Infs of both signs; Inf
 * from Infs of one sign with finite rest). */
inline float tf32_add_term(float v, float a, float b) {
    return v + a * b;
}

/* ---- An operand brought into the range whole (conv2) -----------------------------------------
 * conv2's tensor kernel scales its whole image (every slice) by 2^sa and its filter by 2^sk,
 * exactly, where a value under the range was found, and its outputs by 2^-(sa + sk) (one
 * rounding, where the output is subnormal): processes/conv2_direct.c runs the kernel, then
 * the kernel again, which finds the operands' ranges (tf32_range.cl) and takes the shifts
 * (tf32_conv_shifts). Where no shifts hold both operands, the groups that see such a value
 * compute their outputs in plain fp32 FMA. */

/* Notes x's non-zero finite magnitude in a range kept as (~lo, hi): both grow from 0, so a
 * zeroed buffer starts one and atomic_max merges two. */
inline void tf32_note(uint *nlo, uint *hi, float x) {
    const uint m = tf32_mag(x);
    if (m - 1u < 0x7f7fffffu) *nlo = max(*nlo, ~m), *hi = max(*hi, m);
}

/* The shifts of an image whose non-zero finite magnitudes run from ~anlo to ahi (tf32_note) and
 * a filter of `taps` values (~knlo to khi): each operand scaled into the range (2^-112 <= |x|
 * 2^s < 2^126 for its least and largest), the largest output they can give, taps * 2^(ilogb(ahi)
 * + ilogb(khi) + 2), under 2^124 once scaled (no scaled sum overflows where the true one would
 * not), each shift and sa + sk within -126..126 (2^-(sa + sk) is then one fp32 multiply: a single
 * rounding). Of those, each shift the nearest to 0 (an operand in range is not moved, one under
 * it is raised to 2^-112, as the wgmma GEMM's tf32_scale does), where that keeps the outputs
 * under the top; else the sum at the top, the image lowered first. (Raised as far as the top
 * allows instead, subB of bench/range_bench.c ran its second pass at 11x the first on the H200:
 * bench/CONV2.md, "Operands scaled into the range".) Returns 0 where no such shifts exist (*sa
 * and *sk 0). An operand with no non-zero finite value leaves both unshifted (its outputs are 0,
 * Inf or NaN). */
inline int tf32_conv_shifts(uint anlo, uint ahi, uint knlo, uint khi, int taps, int *sa, int *sk) {
    *sa = *sk = 0;
    if (ahi == 0u || khi == 0u) return 1;
    int lt = 0;
    while (lt < 31 && (1 << lt) < taps)
        lt++;
    const int ea = tf32_ilogb(ahi), ek = tf32_ilogb(khi);
    const int loa = max(-112 - tf32_ilogb(~anlo), -126), hia = min(125 - ea, 126);
    const int lok = max(-112 - tf32_ilogb(~knlo), -126), hik = min(125 - ek, 126);
    const int top = min(124 - (ea + ek + 2 + lt), 126);
    if (loa > hia || lok > hik || loa + lok > top || top < -126) return 0;
    const int pa = clamp(0, loa, hia), pk = clamp(0, lok, hik);
    if (pa + pk <= top) {
        *sa = pa, *sk = pk;
    } else {
        *sa = max(loa, top - pk);
        *sk = top - *sa;
    }
    return 1;
}

/* 2^s as an fp32 value, for -126 <= s <= 127. */
inline float tf32_pow2(int s) {
    return as_float((uint)(127 + s) << 23);
}
