/* Tensor-core building blocks for NVIDIA sm_80 and later, as inline PTX through NVIDIA's OpenCL
 * compiler. This file is prepended (after common.cl) to the sources that use it, and only on
 * devices that report compute capability 8.0 or more through cl_nv_device_attribute_query: no
 * other compiler understands the PTX below, so nothing here may be built elsewhere.
 *
 * The blocks: the .shared address of a __local pointer, cp.async (global -> local copies that
 * bypass registers, committed in groups and waited for by count), ldmatrix (a warp's 8x8 tiles of
 * 32-bit words from local memory straight into mma fragment order), the TF32 rounding and the
 * 3xTF32 split of an fp32 value, mma.sync m16n8k8 with TF32 inputs and fp32 accumulators, and
 * the warp's shuffle and ballot.
 *
 * Fragment layout of mma.m16n8k8 (PTX ISA, "Matrix Fragments for mma.m16n8k8"), with
 * g = lane / 4 and t = lane % 4:
 *   A (16x8, row-major, 4 words): a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
 *   B (8x8, column-major, 2 words): b0 (k = t, n = g), b1 (k = t+4, n = g)
 *   C (16x8, 4 floats): c0 (g, 2t), c1 (g, 2t+1), c2 (g+8, 2t), c3 (g+8, 2t+1) */

/* The .shared state-space address of a __local pointer. NVIDIA's OpenCL keeps __local pointers
 * in the shared window (LLVM address space 3), so the integer value of the pointer is the address
 * that cp.async and ldmatrix take; no cvta is needed (there is no generic pointer to convert). */
inline uint tc_smem(__local const void *p) {
    return (uint)(size_t)p;
}

/* Copies 16 bytes from global src to local dst (both 16-byte aligned) without passing through
 * registers; only the first `bytes` (0..16) are read, the rest of dst is zero-filled, so edges of
 * a matrix need no separate path. .cg caches in L2 only: each tile element is staged in local
 * memory once per work-group, so L1 would only evict. */
inline void tc_cp_async16(__local void *dst, __global const void *src, uint bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(tc_smem(dst)),
                 "l"((ulong)(size_t)src), "r"(bytes)
                 : "memory");
}

/* Copies the 4-byte word at global src to local dst without passing through registers, or
 * writes zero there when `bytes` is 0 (src is then not read). */
inline void tc_cp_async4(__local void *dst, __global const void *src, uint bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(tc_smem(dst)),
                 "l"((ulong)(size_t)src), "r"(bytes)
                 : "memory");
}

/* Closes the group of cp.async copies issued by this work-item since the last commit. */
inline void tc_cp_commit(void) {
    asm volatile("cp.async.commit_group;" ::: "memory");
}

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

/* The 3xTF32 split (kernels/tf32.cl, built after this file) rounds with the instruction above;
 * tc_split is its name here. */
#define TF32_RNA tc_tf32
#define tc_split tf32_split

/* Four 32-bit words of local memory into a fresh register quad: at shared address `addr`
 * (tc_smem) plus the constant word offsets o0 .. o3. An A fragment that wgmma reads from
 * registers is such a quad; fragments of overlapping windows (a Toeplitz block) built from
 * shared values would otherwise share registers, and ptxas then serializes the wgmma pipeline
 * ("insufficient register resources"). The offsets are immediates, so that unrolled code holds
 * one address register, not one per load. */
#define TC_LDS4(r, addr, o0, o1, o2, o3)                                                           \
    asm volatile("ld.shared.b32 %0, [%4+%5];\nld.shared.b32 %1, [%4+%6];\n"                        \
                 "ld.shared.b32 %2, [%4+%7];\nld.shared.b32 %3, [%4+%8];"                          \
                 : "=r"((r)[0]), "=r"((r)[1]), "=r"((r)[2]), "=r"((r)[3])                          \
                 : "r"(addr), "n"(4 * (o0)), "n"(4 * (o1)), "n"(4 * (o2)), "n"(4 * (o3))           \
                 : "memory")

/* c += a * b for one m16n8k8 tile: a and b hold TF32 bit patterns in fragment order, c the four
 * fp32 accumulators of the lane. */
inline void tc_mma_tf32(float *c, const uint *a, const uint *b) {
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* ---- Hopper (sm_90a) warpgroup MMA -----------------------------------------------------------
 * wgmma exists only for the sm_90a target, and NVIDIA's OpenCL compiler emits PTX for sm_90. A
 * program that uses these blocks is built with -DCLIP_SM90A: every sm_90a-only instruction then
 * sits behind the marker TC_SM90A, a PTX comment, so the first build passes ptxas;
 * lib/program_ptx.c (clip_program_retarget) then takes the PTX, removes the markers, names the
 * target sm_90a and builds that. Operand references inside the marked lines are substituted by
 * the compiler like any others, so the uncommented instruction gets the registers the compiler
 * allocated. */
#ifdef CLIP_SM90A
#define TC_SM90A "//clip-sm90a "
#else
#define TC_SM90A ""
#endif

/* The matrix descriptor of an operand in local memory for wgmma, K-major without swizzle: 8x4
 * "core matrices" of 8 rows (M or N) by 16 bytes (4 TF32 values along K), each 128 contiguous
 * bytes; `lbo` is the byte distance between core matrices adjacent along K, `sbo` along M/N. */
inline ulong tc_wg_desc(__local const void *p, uint lbo, uint sbo) {
    return (ulong)((tc_smem(p) & 0x3FFFFu) >> 4) | ((ulong)(lbo >> 4) << 16) |
           ((ulong)(sbo >> 4) << 32);
}

/* out = descriptor desc advanced by the constant o (in its 16-byte units), added where it is
 * used: unrolled code that steps one descriptor through many constant offsets then holds one
 * register pair, where a compiler would otherwise compute every sum once, ahead of the loop,
 * and keep them all live. */
#define TC_DESC_AT(out, desc, o) asm volatile("add.s64 %0, %1, %2;" : "=l"(out) : "l"(desc), "n"(o))

/* Makes this work-item's writes of local memory (cp.async included) visible to the async proxy
 * that wgmma reads through; a barrier after it makes everyone's. */
inline void tc_fence_async_local(void) {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

/* Orders this warpgroup's register accesses of an accumulator before the wgmma that follows. */
inline void tc_wg_fence(void) {
    asm volatile(TC_SM90A "wgmma.fence.sync.aligned;" ::: "memory");
}
/* Closes the group of wgmma issued since the last commit. */
inline void tc_wg_commit(void) {
    asm volatile(TC_SM90A "wgmma.commit_group.sync.aligned;" ::: "memory");
}
/* Waits until at most N (a constant) committed wgmma groups are in flight. */
#define TC_WG_WAIT(N) asm volatile(TC_SM90A "wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory")

/* setmaxnreg: every warp of a warpgroup sets its register limit to N (a constant multiple of 8,
 * 24 to 256), giving registers back to the work-group's pool (OP dec) or taking them from it
 * (OP inc, which waits until the pool has them). A producer warpgroup that needs few registers
 * lends them so to the warpgroups that multiply; ptxas allocates each side's code to its limit. */
#define TC_STR_(x) #x
#define TC_STR(x) TC_STR_(x)
#define TC_SETMAXNREG(OP, N)                                                                       \
    asm volatile(TC_SM90A "setmaxnreg." #OP ".sync.aligned.u32 " TC_STR(N) ";" ::: "memory")
/* A barrier of the N work-items (a multiple of 32) that reach named barrier ID (1 to 15; 0 is the
 * work-group's barrier()), ordering their memory accesses as barrier() does: for one warpgroup
 * apart from the others. */
#define TC_BAR_SYNC(ID, N) asm volatile("bar.sync %0, %1;" ::"n"(ID), "n"(N) : "memory")

/* Warp exchanges: v of lane (this lane ^ o) (shfl.sync.bfly), and the warp's ballot of p (bit l
 * set where lane l's p is non-zero). Every lane of the warp must call them together. */
inline float tc_shfl_xor(float v, int o) {
    float w;
    asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(w) : "f"(v), "r"(o));
    return w;
}
inline uint tc_ballot(int p) {
    uint r;
    asm volatile(
        "{\n.reg .pred q;\nsetp.ne.s32 q, %1, 0;\nvote.sync.ballot.b32 %0, q, 0xffffffff;\n}"
        : "=r"(r)
        : "r"(p));
    return r;
}

#define TC_ACC8(i)                                                                                 \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),    \
        "+f"(d[i + 6]), "+f"(d[i + 7])
#define TC_ACC64                                                                                   \
    TC_ACC8(0), TC_ACC8(8), TC_ACC8(16), TC_ACC8(24), TC_ACC8(32), TC_ACC8(40), TC_ACC8(48),       \
        TC_ACC8(56)
#define TC_ACC128                                                                                  \
    TC_ACC64, TC_ACC8(64), TC_ACC8(72), TC_ACC8(80), TC_ACC8(88), TC_ACC8(96), TC_ACC8(104),       \
        TC_ACC8(112), TC_ACC8(120)
/* The accumulator operands of a wgmma of 64 and of 128 registers. */
#define TC_D64                                                                                     \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "       \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "        \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "        \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}"
#define TC_D128                                                                                    \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "       \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, "        \
    "%36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, "        \
    "%53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, "        \
    "%70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, "        \
    "%87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, "    \
    "%104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, "         \
    "%118, %119, %120, %121, %122, %123, %124, %125, %126, %127}"

/* NAME(d, da, db, accumulate): d (N/2 floats a work-item) = A * B' (+ d when accumulate is
 * non-zero) for one m64nNkK tile of a warpgroup, A (64 x K) and B (N x K) K-major operands in
 * local memory named by descriptors (tc_wg_desc), TYPE tf32 (K 8) or bf16 / f16 (K 16: their
 * transpose immediates IMM are 0, K-major), accumulating in fp32. Fragment of d: warp w of the
 * warpgroup, g = lane/4, t = lane%4: d[4j + e] is row 16w + g + 8(e/2), column 8j + 2t + e%2.
 * D, DESC and PRED name the operands: the accumulators, then da, db and accumulate. */
#define TC_WGMMA(NAME, SHAPE, TYPE, IMM, D, DESC, PRED, ACC)                                       \
    inline void NAME(float *d, ulong da, ulong db, int accumulate) {                               \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " PRED ", 0;\n" TC_SM90A                    \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f32." TYPE "." TYPE " " D ", " DESC   \
                     ", p, 1, 1" IMM ";\n}\n"                                                      \
                     : ACC                                                                         \
                     : "l"(da), "l"(db), "r"(accumulate));                                         \
    }
TC_WGMMA(tc_wgmma_n128_tf32, "m64n128k8", "tf32", "", TC_D64, "%64, %65", "%66", TC_ACC64)
TC_WGMMA(tc_wgmma_n256_tf32, "m64n256k8", "tf32", "", TC_D128, "%128, %129", "%130", TC_ACC128)
TC_WGMMA(tc_wgmma_n128_bf16, "m64n128k16", "bf16", ", 0, 0", TC_D64, "%64, %65", "%66", TC_ACC64)
TC_WGMMA(tc_wgmma_n256_bf16, "m64n256k16", "bf16", ", 0, 0", TC_D128, "%128, %129", "%130",
         TC_ACC128)
TC_WGMMA(tc_wgmma_n128_f16, "m64n128k16", "f16", ", 0, 0", TC_D64, "%64, %65", "%66", TC_ACC64)
TC_WGMMA(tc_wgmma_n256_f16, "m64n256k16", "f16", ", 0, 0", TC_D128, "%128, %129", "%130", TC_ACC128)

/* NAME(d, a, db, accumulate): d (N/2 floats a work-item) = A * B' (+ d when accumulate is
 * non-zero) for one m64nNk8 TF32 tile of a warpgroup with A (64 x 8) from registers: a holds the
 * work-item's four TF32 words in mma.m16n8k8's A order (warp w takes rows 16w..16w+15: a0 (g, t),
 * a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)), so a caller can build A from values that no matrix in
 * local memory holds (a Toeplitz window, conv2_tensor); B (N x 8, K-major) is in local memory
 * (descriptor db). d's fragment as TC_WGMMA's. */
#define TC_WGMMA_RA(NAME, SHAPE, D, A, DESC, PRED, ACC)                                            \
    inline void NAME(float *d, const uint *a, ulong db, int accumulate) {                          \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " PRED ", 0;\n" TC_SM90A                    \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f32.tf32.tf32 " D ", " A ", " DESC    \
                     ", p, 1, 1;\n}\n"                                                             \
                     : ACC                                                                         \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));      \
    }
/* NAME_set(d, a, db): d = A * B', d written only. A product that starts a sum must say so to
 * the compiler: with d also an input (NAME's "+f"), d's earlier values stay live into it and are
 * copied into its registers, and ptxas then serializes the wgmma pipeline. */
#define TC_WGMMA_RA_SET(NAME, SHAPE, D, A, A0, DESC, OUT)                                          \
    inline void NAME(float *d, const uint *a, ulong db) {                                          \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " A0 ", " A0 ";\n" TC_SM90A                 \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f32.tf32.tf32 " D ", " A ", " DESC    \
                     ", p, 1, 1;\n}\n"                                                             \
                     : OUT                                                                         \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));                       \
    }
#define TC_ACC4 "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
#define TC_ACC16 TC_ACC8(0), TC_ACC8(8)
#define TC_OUT8(i)                                                                                 \
    "=f"(d[i]), "=f"(d[i + 1]), "=f"(d[i + 2]), "=f"(d[i + 3]), "=f"(d[i + 4]), "=f"(d[i + 5]),    \
        "=f"(d[i + 6]), "=f"(d[i + 7])
#define TC_OUT4 "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
#define TC_OUT16 TC_OUT8(0), TC_OUT8(8)
#define TC_ACC32 TC_ACC8(0), TC_ACC8(8), TC_ACC8(16), TC_ACC8(24)
#define TC_OUT32 TC_OUT8(0), TC_OUT8(8), TC_OUT8(16), TC_OUT8(24)
/* The accumulator operands of a wgmma of 16 and of 32 registers. */
#define TC_D16 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define TC_D32                                                                                     \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, "       \
    "%19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
TC_WGMMA_RA(tc_wgmma_ra_n8, "m64n8k8", "{%0, %1, %2, %3}", "{%4, %5, %6, %7}", "%8", "%9", TC_ACC4)
TC_WGMMA_RA(tc_wgmma_ra_n16, "m64n16k8", "{%0, %1, %2, %3, %4, %5, %6, %7}", "{%8, %9, %10, %11}",
            "%12", "%13", TC_ACC8(0))
TC_WGMMA_RA(tc_wgmma_ra_n32, "m64n32k8", TC_D16, "{%16, %17, %18, %19}", "%20", "%21", TC_ACC16)
TC_WGMMA_RA(tc_wgmma_ra_n64, "m64n64k8", TC_D32, "{%32, %33, %34, %35}", "%36", "%37", TC_ACC32)
/* (p = a[0] != a[0], false: the product does not accumulate) */
TC_WGMMA_RA_SET(tc_wgmma_ra_n8_set, "m64n8k8", "{%0, %1, %2, %3}", "{%4, %5, %6, %7}", "%4", "%8",
                TC_OUT4)
TC_WGMMA_RA_SET(tc_wgmma_ra_n16_set, "m64n16k8", "{%0, %1, %2, %3, %4, %5, %6, %7}",
                "{%8, %9, %10, %11}", "%8", "%12", TC_OUT8(0))
TC_WGMMA_RA_SET(tc_wgmma_ra_n32_set, "m64n32k8", TC_D16, "{%16, %17, %18, %19}", "%16", "%20",
                TC_OUT16)
TC_WGMMA_RA_SET(tc_wgmma_ra_n64_set, "m64n64k8", TC_D32, "{%32, %33, %34, %35}", "%32", "%36",
                TC_OUT32)

/* NAME_set(d, da, db): TC_WGMMA's product with d written only (see TC_WGMMA_RA_SET), for TF32
 * operands both in local memory. */
#define TC_WGMMA_SET(NAME, SHAPE, D, DESC, DA, OUT)                                                \
    inline void NAME(float *d, ulong da, ulong db) {                                               \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b64 p, " DA ", " DA ";\n" TC_SM90A                 \
                     "wgmma.mma_async.sync.aligned." SHAPE ".f32.tf32.tf32 " D ", " DESC           \
                     ", p, 1, 1;\n}\n"                                                             \
                     : OUT                                                                         \
                     : "l"(da), "l"(db));                                                          \
    }
TC_WGMMA(tc_wgmma_n8_tf32, "m64n8k8", "tf32", "", "{%0, %1, %2, %3}", "%4, %5", "%6", TC_ACC4)
TC_WGMMA(tc_wgmma_n16_tf32, "m64n16k8", "tf32", "", "{%0, %1, %2, %3, %4, %5, %6, %7}", "%8, %9",
         "%10", TC_ACC8(0))
TC_WGMMA(tc_wgmma_n32_tf32, "m64n32k8", "tf32", "", TC_D16, "%16, %17", "%18", TC_ACC16)
TC_WGMMA(tc_wgmma_n64_tf32, "m64n64k8", "tf32", "", TC_D32, "%32, %33", "%34", TC_ACC32)
TC_WGMMA_SET(tc_wgmma_n8_tf32_set, "m64n8k8", "{%0, %1, %2, %3}", "%4, %5", "%4", TC_OUT4)
TC_WGMMA_SET(tc_wgmma_n16_tf32_set, "m64n16k8", "{%0, %1, %2, %3, %4, %5, %6, %7}", "%8, %9", "%8",
             TC_OUT8(0))
TC_WGMMA_SET(tc_wgmma_n32_tf32_set, "m64n32k8", TC_D16, "%16, %17", "%16", TC_OUT16)
TC_WGMMA_SET(tc_wgmma_n64_tf32_set, "m64n64k8", TC_D32, "%32, %33", "%32", TC_OUT32)

/* ---- Hopper (sm_90) transaction barriers and bulk copies ----------------------------------------
 * An mbarrier in local memory counts arrivals and, with expect_tx, the bytes of bulk copies still
 * to land; a phase completes when both are done, and waiting names the phase by its parity.
 * cp.async.bulk copies a contiguous run of global memory (16-byte multiples) into local memory
 * and reports its bytes to an mbarrier, with no work-item issuing per-element copies. */
inline void tc_mbar_init(__local ulong *bar, uint count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(tc_smem(bar)), "r"(count)
                 : "memory");
}
/* Makes the barriers' initialisation visible to the async proxy (the bulk copies). */
inline void tc_mbar_init_fence(void) {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
inline void tc_mbar_arrive(__local ulong *bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(tc_smem(bar)) : "memory");
}
/* Arrives and expects `bytes` more of bulk copies in this phase. */
inline void tc_mbar_arrive_tx(__local ulong *bar, uint bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(tc_smem(bar)),
                 "r"(bytes)
                 : "memory");
}
/* Non-zero once the phase of the given parity has completed (a bounded wait in hardware). */
inline int tc_mbar_try_wait(__local ulong *bar, uint parity) {
    uint done;
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(tc_smem(bar)), "r"(parity)
                 : "memory");
    return (int)done;
}
/* Waits until the phase of the given parity (its low bit) has completed. */
inline void tc_mbar_wait(__local ulong *bar, uint parity) {
    while (!tc_mbar_try_wait(bar, parity & 1u))
        ;
}
/* Copies `bytes` (a multiple of 16; both addresses 16-byte aligned) from src to dst, reported to
 * bar. */
inline void tc_bulk_copy(__local void *dst, __global const void *src, uint bytes,
                         __local ulong *bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
                 "%2, [%3];" ::"r"(tc_smem(dst)),
                 "l"((ulong)(size_t)src), "r"(bytes), "r"(tc_smem(bar))
                 : "memory");
}

/* Two fp32 values rounded to nearest-even 16-bit floats and packed in one word, lo in the low
 * half (the lower address): bf16 keeps fp32's range (8-bit mantissa), f16 has 11 bits and
 * overflows to Inf past 65504. sm_80 instructions, no marker needed. */
inline uint tc_pack_bf16(float lo, float hi) {
    uint r;
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
inline uint tc_pack_f16(float lo, float hi) {
    uint r;
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
