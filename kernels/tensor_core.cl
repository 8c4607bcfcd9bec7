/* Tensor-core building blocks for NVIDIA sm_80 and later, as inline PTX through NVIDIA's OpenCL
 * compiler. This file is prepended (after common.cl) to the sources that use it, and only on
 * devices that report compute capability 8.0 or more through cl_nv_device_attribute_query: no
 * other compiler understands the PTX below, so nothing here may be built elsewhere.
 *
 * The blocks: the .shared address of a __local pointer, cp.async (global -> local copies that
 * bypass registers, committed in groups and waited for by count), ldmatrix (a warp's 8x8 tiles of
 * 32-bit words from local memory straight into mma fragment order), the TF32 rounding and the
 * 3xTF32 split of an fp32 value, and mma.sync m16n8k8 with TF32 inputs and fp32 accumulators.
 *
 * Fragment layout of mma.m16n8k8 (PTX ISA, "Matrix Fragments for mma.m16n8k8"), with
 * g = lane / 4 and t = lane % 4:
 *   A (16x8, row-major, 4 words): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
 *   B (8x8, column-major, 2 words): b0 (k = t, n = g), b1 (k = t+4, n = g)
 *   C (16x8, 4 floats): c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1) */

/* The .shared state-space address of a __local pointer. NVIDIA's OpenCL keeps __local pointers
 * in the shared window (LLVM address space 3), so the integer value of the pointer is the address
 * that cp.async and ldmatrix take; no cvta is needed (there is no generic pointer to convert). */
inline uint tc_smem(__local const void *p) { return (uint)(size_t)p; }

/* Copies 16 bytes from global src to local dst (both 16-byte aligned) without passing through
 * registers; only the first `bytes` (0..16) are read, the rest of dst is zero-filled, so edges of
 * a matrix need no separate path. .cg caches in L2 only: each tile element is staged in local
 * memory once per work-group, so L1 would only evict. */
inline void tc_cp_async16(__local void *dst, __global const void *src, uint bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(tc_smem(dst)),
                 "l"((ulong)(size_t)src), "r"(bytes)
                 : "memory");
}

/* Closes the group of cp.async copies issued by this work-item since the last commit. */
inline void tc_cp_commit(void) { asm volatile("cp.async.commit_group;" ::: "memory"); }

/* Waits until at most N (a constant) of this work-item's committed groups are still in flight.
 * Other work-items' copies become visible only after a barrier that follows the wait. */
#define TC_CP_WAIT(N) asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory")

/* Four 8x8 tiles of 32-bit words (16 bytes a row) from local memory: lanes 8i..8i+7 give the row
 * addresses of tile i, and lane l receives word l % 4 of row l / 4 of tile i in r[i], which is
 * the mma B fragment (b0 or b1) of a tile stored n-major (rows n, K contiguous). */
inline void tc_ldmatrix_x4(uint *r, __local const void *row) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(tc_smem(row))
                 : "memory");
}

/* x rounded to TF32 (10 mantissa bits), nearest with ties away from zero, as the bits of an fp32
 * value whose low 13 bits are zero. */
inline uint tc_tf32(float x) {
    uint r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return r;
}

/* The 3xTF32 split: x = big + small with big = x rounded to TF32 and small = x - big (exact in
 * fp32) rounded to TF32, so big*big' + big*small' + small*big' carries x*x' to about 2^-22
 * relative, near fp32's 2^-24. Three instructions, nothing for special values: an infinite x
 * (or a finite one that rounds past FLT_MAX) gets small = x - big = NaN, so every output it
 * touches comes out NaN, and the caller recomputes NaN outputs in plain fp32 (matmul_tc.cl's
 * epilogue) to get IEEE fp32 results for Inf and NaN operands. */
inline void tc_split(float x, uint *big, uint *small) {
    const uint b = tc_tf32(x);
    *big = b;
    *small = tc_tf32(x - as_float(b));
}

/* c += a * b for one m16n8k8 tile: a and b hold TF32 bit patterns in fragment order, c the four
 * fp32 accumulators of the lane. */
inline void tc_mma_tf32(float *c, const uint *a, const uint *b) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
