/* Variant auto's GEMM choices for an H100 as its OpenCL driver reports it (132 compute units,
 * 48 KB of local memory, work-groups of 1024, compute capability 9.0), on the host: the rules that
 * the GPU measurements set (bench/GEMM.md, "Small products at the GPU's own pace" and "The tensor
 * family below 4e8"), held here so that a change to the ladder or the thresholds that moves one
 * of these products shows up without the GPU. Needs no device. */
#define _POSIX_C_SOURCE 200809L /* unsetenv */
#include <stdio.h>
#include <stdlib.h>

#include "../processes/gemm.h"
#include "../processes/gemm_tc.h"
#include "testutil.h"

static clip_device_info h100(void) {
    clip_device_info d = {0};
    d.type = CLIP_DEVICE_GPU;
    d.compute_units = 132;
    d.clock_mhz = 1980;
    d.local_mem = 49152;
    d.max_work_group = 1024;
    d.global_mem = 85ull << 30;
    d.max_alloc = 20ull << 30;
    d.nv_arch = 90;
    return d;
}

/* The FFMA family's default for an f32 m x n x k product: its tile, K slice, split and stages. */
static void expect_tiled(const clip_device_info *d, size_t m, size_t n, size_t k, int mwg, int nwg,
                         int kwg, int ksplit, int stages) {
    clip_gemm_params p;
    clip_gemm_default(d, CLIP_F32, CLIP_GEMM_AUTO, m, n, k, &p);
    const int ok = p.variant == CLIP_GEMM_TILED && p.mwg == mwg && p.nwg == nwg && p.kwg == kwg &&
                   (ksplit ? p.ksplit == ksplit : p.ksplit > 1) && p.stages == stages;
    if (!ok) {
        char desc[128];
        clip_gemm_describe(&p, desc, sizeof desc);
        fprintf(stderr, "%zux%zux%zu: got '%s', want tiled %dx%dx%d ks %s%d st %d\n", m, n, k, desc,
                mwg, nwg, kwg, ksplit ? "" : "> 1, not ", ksplit ? ksplit : 1, stages);
    }
    CHECK(ok);
}

static void expect_family(size_t m, size_t n, size_t k, int cx, int arch, int tensor) {
    const int got = clip_gemm_tc_auto(arch, m, n, k, cx) != 0;
    if (got != tensor)
        fprintf(stderr, "%s %zux%zux%zu on sm_%d: %s family, want %s\n", cx ? "c32" : "f32", m, n,
                k, arch, got ? "tensor" : "FFMA", tensor ? "tensor" : "FFMA");
    CHECK(got == tensor);
}

int main(void) {
    unsetenv("CLIP_GEMM_FAMILY"); /* the experiments' override decides when set */
    const clip_device_info d = h100();

    /* K up to 640 on the smallest tiles runs whole (in four K groups, slices of 16: below):
     * one kernel where the split needs two (512^3 0.0153 ms against 0.0171); past it the 64x64
     * rung splits. */
    expect_tiled(&d, 512, 512, 512, 32, 32, 16, 1, 2);
    expect_tiled(&d, 64, 4096, 512, 32, 32, 16, 1, 2);
    expect_tiled(&d, 1024, 256, 512, 32, 32, 16, 1, 2);
    expect_tiled(&d, 64, 3136, 576, 32, 24, 16, 1, 3); /* wave-balanced, below */
    expect_tiled(&d, 64, 3136, 768, 64, 64, 16, 0, 2);
    expect_tiled(&d, 64, 4096, 1024, 64, 64, 16, 0, 2);
    /* A product no rung fills: the smallest tiles whole where they give half the compute units
     * a tile and K is at most 768 (2048x49x512: 128 tiles), else the 64x32 rung split. */
    expect_tiled(&d, 2048, 49, 512, 32, 32, 16, 1, 2);
    expect_tiled(&d, 1536, 64, 768, 32, 32, 16, 1, 2);
    expect_tiled(&d, 2048, 49, 1024, 64, 32, 32, 0, 2);
    /* Past K 768 up to 1152, 32x24 tiles whole where they make one wave at least 7/8 full
     * (128x784: 132 tiles); a second wave or a K past that keeps the split. */
    expect_tiled(&d, 128, 784, 1152, 32, 24, 16, 1, 3);
    expect_tiled(&d, 128, 784, 2048, 64, 32, 32, 0, 2);
    expect_tiled(&d, 2048, 32, 1024, 64, 32, 32, 0, 2); /* a third of 32x24's columns wasted */
    expect_tiled(&d, 1024, 32, 768, 64, 32, 32, 0, 2); /* 32 tiles */
    expect_tiled(&d, 1024, 196, 256, 32, 32, 16, 1, 2);
    expect_tiled(&d, 128, 784, 64, 32, 24, 16, 1, 3); /* 132 tiles of 32x24, 100 of 32x32 */

    /* Wave balance: a narrower tile where it leaves the busiest compute unit fewer outputs
     * (64x12544x147: 262 tiles of 64x48, two a unit, against 196 of 64x64, one unit in two
     * with a second), the rung's tile where the two tie or the narrower one has more. */
    expect_tiled(&d, 64, 12544, 147, 64, 48, 32, 1, 2);
    expect_tiled(&d, 256, 3136, 64, 64, 48, 32, 1, 2);
    expect_tiled(&d, 128, 12544, 64, 64, 48, 32, 1, 2);
    expect_tiled(&d, 1024, 1024, 128, 64, 64, 16, 1, 2);
    expect_tiled(&d, 512, 784, 128, 64, 32, 16, 1, 2); /* K slices of 16: two K groups fit */
    expect_tiled(&d, 256, 256, 256, 32, 16, 32, 1, 3);
    expect_tiled(&d, 192, 192, 192, 32, 16, 32, 1, 3);
    /* Of the smallest rung's two narrower tiles, 32x24 where it ties 32x16 (64x3136: 262 tiles
     * of 768 outputs, two a unit, against 392 of 512, three a unit), 32x16 where it has fewer. */
    expect_tiled(&d, 64, 3136, 64, 32, 24, 16, 1, 3);
    expect_tiled(&d, 384, 384, 384, 32, 24, 16, 1, 3);
    expect_tiled(&d, 512, 384, 512, 32, 24, 16, 1, 3);
    expect_tiled(&d, 4096, 48, 512, 32, 24, 16, 1, 3);
    expect_tiled(&d, 128, 128, 512, 32, 16, 32, 1, 3);
    expect_tiled(&d, 512, 196, 128, 32, 32, 16, 1, 2);

    /* The two smallest rungs, unsplit, sum K in groups of work-items: four on 32x32 and 32x24
     * tiles, two on 32x16 and 64x32; larger or split tiles keep one. */
    static const size_t kg_cases[][4] = {
        {512, 512, 512, 4}, {256, 256, 256, 2},   {1024, 196, 256, 4}, {64, 3136, 64, 4},
        {64, 3136, 576, 4}, {512, 784, 128, 2},   {2048, 49, 512, 4},  {64, 12544, 147, 0},
        {64, 3136, 768, 0}, {1024, 1024, 128, 0}, {2048, 49, 1024, 0}};
    for (size_t i = 0; i < sizeof kg_cases / sizeof kg_cases[0]; i++) {
        clip_gemm_params p;
        clip_gemm_default(&d, CLIP_F32, CLIP_GEMM_AUTO, kg_cases[i][0], kg_cases[i][1],
                          kg_cases[i][2], &p);
        if (p.kg != (int)kg_cases[i][3])
            fprintf(stderr, "%zux%zux%zu: kg %d, want %zu\n", kg_cases[i][0], kg_cases[i][1],
                    kg_cases[i][2], p.kg, kg_cases[i][3]);
        CHECK(p.kg == (int)kg_cases[i][3]);
    }
    /* Four groups are one warp each: 8x4 work-items (4x8 each on 32x32 tiles, 4x6 on 32x24). */
    {
        clip_gemm_params p;
        clip_gemm_default(&d, CLIP_F32, CLIP_GEMM_AUTO, 512, 512, 512, &p);
        CHECK(p.kg == 4 && p.mdimc == 8 && p.ndimc == 4);
        clip_gemm_default(&d, CLIP_F32, CLIP_GEMM_AUTO, 384, 384, 384, &p);
        CHECK(p.kg == 4 && p.mdimc == 8 && p.ndimc == 4 && p.nwg == 24);
    }
    /* Four groups on 32x32 tiles take 32 KB of local memory (their sum passes through the A
     * buffers), so a 40 KB device keeps them; on a 24 KB device the tiles run as one group, the
     * smallest rung's own slices of 32 in three stages (from K 64; in a product too small to
     * split, from K 32), and 32x24 tiles, which need their four groups, give way to 32x16. */
    clip_device_info small_local = d;
    small_local.local_mem = 40960;
    static const size_t local_cases[][3] = {{512, 512, 512}, {1024, 196, 256}, {2048, 49, 512}};
    for (size_t i = 0; i < sizeof local_cases / sizeof local_cases[0]; i++) {
        clip_gemm_params p;
        small_local.local_mem = 40960;
        clip_gemm_default(&small_local, CLIP_F32, CLIP_GEMM_AUTO, local_cases[i][0],
                          local_cases[i][1], local_cases[i][2], &p);
        CHECK(p.mwg == 32 && p.nwg == 32 && p.kg == 4 && p.kwg == 16 && p.stages == 2);
        small_local.local_mem = 24576;
        clip_gemm_default(&small_local, CLIP_F32, CLIP_GEMM_AUTO, local_cases[i][0],
                          local_cases[i][1], local_cases[i][2], &p);
        CHECK(p.mwg == 32 && p.nwg == 32 && p.kg == 0 && p.kwg == 32 && p.stages == 3);
    }
    {
        clip_gemm_params p;
        clip_gemm_default(&small_local, CLIP_F32, CLIP_GEMM_AUTO, 384, 384, 384, &p);
        CHECK(p.mwg == 32 && p.nwg == 16 && p.kg == 2);
    }

    /* clip tune tries the default (four groups on 512^3's 32x32 tiles) with one and with two
     * groups of work-items. */
    {
        enum { CAP = 512 };
        static clip_gemm_params cand[CAP];
        const int nc = clip_gemm_candidates(&d, 0, CLIP_F32, 512, 512, 512, cand, CAP);
        CHECK(nc > 0 && cand[0].kg == 4);
        int one = 0, two = 0;
        for (int i = 1; i < nc; i++)
            if (cand[i].variant == CLIP_GEMM_TILED && cand[i].mwg == 32 && cand[i].nwg == 32 &&
                cand[i].kwg == cand[0].kwg && cand[i].ksplit == 1 && cand[i].sk == 0) {
                one |= cand[i].kg <= 1;
                two |= cand[i].kg == 2;
            }
        CHECK(one && two);
    }

    /* The wgmma kernels: from 4e8 multiply-adds, or from 1.5e8 where C has 512^2 entries and K
     * is at least 384 (a complex product judged as the real one of m x 2n by 2k). The sm_80
     * mma.sync kernel wins no shape; a side under 256 stays on FFMA. */
    static const struct {
        size_t m, n, k;
        int cx, arch, tensor;
    } family[] = {
        {768, 768, 768, 0, 90, 1},    {576, 576, 576, 0, 90, 1},  {544, 544, 544, 0, 90, 1},
        {768, 768, 384, 0, 90, 1},    {512, 512, 512, 0, 90, 0},  {256, 256, 4096, 0, 90, 0},
        {320, 320, 1600, 0, 90, 0},   {256, 4096, 256, 0, 90, 0}, {1024, 1024, 256, 0, 90, 0},
        {384, 384, 384, 1, 90, 1},    {320, 320, 320, 1, 90, 0},  {2048, 2048, 2048, 0, 90, 1},
        {2048, 2048, 2048, 0, 80, 0}, {4096, 4096, 200, 0, 90, 0}};
    for (size_t i = 0; i < sizeof family / sizeof family[0]; i++)
        expect_family(family[i].m, family[i].n, family[i].k, family[i].cx, family[i].arch,
                      family[i].tensor);
    return tu_finish("test_gemm_rules");
}
