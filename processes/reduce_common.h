/* Host-side helpers shared by the reduction processes (norm, dot): which shapes count as a
 * vector, and the geometry of the two-stage reduction their kernels use.
 *
 * Stage 1 runs `groups` work-groups of `local` work-items; group g streams the contiguous
 * vector loads [g*chunk, min((g+1)*chunk, nvec)) with a stride of `local` (coalesced on GPUs,
 * one core's cache-friendly stream on CPUs), `unroll` loads at a time per work-item, and leaves
 * one partial. The scalars after the last full vector load (`tail`, fewer than one load) go to
 * the last group. Stage 2 is one work-group that reduces the `groups` partials: a few hundred
 * values, never the data again.
 *
 * Every work-item sums its own strided share (a few hundred loads per lane at 2^28 floats on a
 * GPU), and shares, lanes and groups meet in trees: the summation is pairwise above blocks of
 * that length, so single-precision rounding grows with the block, not with n. */
#ifndef CLIP_REDUCE_COMMON_H
#define CLIP_REDUCE_COMMON_H

#include <stdio.h>

#include "clip/process_author.h"

typedef struct reduce_geom {
    size_t local;    /* work-group size of both stages: a power of two */
    unsigned unroll; /* loads in flight per work-item in stage 1 (UNROLL in the kernels) */
    size_t groups;   /* stage-1 work-groups, and so partials; >= 1 */
    cl_ulong nvec;   /* full vector loads of `vec` scalars */
    cl_ulong chunk;  /* vector loads per work-group, a multiple of local */
    cl_uint tail;    /* scalars after the last full load (< vec) */
} reduce_geom;

/* Work-groups per compute unit in stage 1. On GPUs 4 of 256 items (1024 threads of an H100
 * SM's 2048), all resident at once even for the heavier kernels (Blue's sum of squares, the
 * one-pass p-norm, doubles), each with UNROLL loads in flight; more groups measured no faster
 * and fell into a second partial wave where registers ran short (H100 sweep in
 * bench/REDUCTIONS.md). On CPUs a few per core balance the cores. Either way stage 2 reads at
 * most ~1000 partials. */
static inline size_t reduce_groups_per_cu(const clip_device_info *dev) {
    (void)dev;
    return 4;
}

/* Loads per work-item issued before any is used. GPUs need many bytes in flight per
 * multiprocessor to reach peak bandwidth: 4 lifted the compute-heavier kernels (p = 3, 2.5,
 * doubles) from 2.2-2.5 to 2.75-3.0 TB/s on the H100. CPUs already stream one wide load per
 * step. */
static inline unsigned reduce_unroll(const clip_device_info *dev) {
    return dev->type == CLIP_DEVICE_GPU ? 4 : 1;
}

/* The stage work-group size. GPUs: 256 where the device allows it (else its largest power of
 * two), strided so that a warp's loads coalesce. CPUs: 1. PoCL runs a group's work-items one
 * after another on one core, so a strided share would jump LOCAL loads between reads and defeat
 * the prefetcher; a group of one reads its chunk front to back (3-4x faster on PoCL). */
static inline size_t reduce_local(const clip_device_info *dev) {
    if (dev->type == CLIP_DEVICE_CPU) return 1;
    size_t local = 256;
    while (local > 1 && local > dev->max_work_group)
        local /= 2;
    return local;
}

/* Fills *g for `nscalars` scalars (numel, or 2*numel for complex) read `vec` at a time, with
 * the process's tuning parameters (REDUCE_TUNING_PARAMS; 0 picks the defaults above, or
 * `gpu_unroll` for the unroll on GPUs where that is not 0). Fails with CLIP_ERR_PARAM_RANGE
 * for a work-group size that is no power of two or too large. */
static inline clip_status reduce_geometry(clip_process *p, size_t nscalars, unsigned vec,
                                          unsigned gpu_unroll, reduce_geom *g) {
    const clip_device_info *dev = clip_proc_device(p);
    long lo = clip_proc_int(p, "local"), gpcu = clip_proc_int(p, "groups");
    long un = clip_proc_int(p, "unroll");
    if (lo > 0 && ((lo & (lo - 1)) || (size_t)lo > dev->max_work_group))
        return clip_proc_fail(p, CLIP_ERR_PARAM_RANGE,
                              "local must be a power of two no larger than the device's %zu, "
                              "got %ld",
                              dev->max_work_group, lo);
    g->local = lo > 0 ? (size_t)lo : reduce_local(dev);
    g->unroll = un > 0                                       ? (unsigned)un
                : gpu_unroll && dev->type == CLIP_DEVICE_GPU ? gpu_unroll
                                                             : reduce_unroll(dev);
    g->nvec = nscalars / vec;
    g->tail = (cl_uint)(nscalars % vec);
    size_t cus = dev->compute_units ? dev->compute_units : 1;
    size_t cap = cus * (gpcu > 0 ? (size_t)gpcu : reduce_groups_per_cu(dev));
    size_t need = (size_t)((g->nvec + g->local - 1) / g->local);
    size_t groups = need < cap ? need : cap;
    if (groups == 0) groups = 1;
    /* Whole unrolled steps per group: only the last group runs the remainder loop. */
    cl_ulong step = (cl_ulong)g->local * g->unroll;
    cl_ulong chunk = (g->nvec + groups - 1) / groups;
    chunk = (chunk + step - 1) / step * step;
    if (chunk == 0) chunk = step;
    /* Rounding the chunk up may leave trailing groups without work: drop them. */
    groups = (size_t)((g->nvec + chunk - 1) / chunk);
    g->groups = groups ? groups : 1;
    g->chunk = chunk;
    return CLIP_OK;
}

/* MATLAB's notion of a vector, extended to N-D as these processes accept it: at most one
 * dimension differs from 1; or the 0x0 empty matrix []. */
static inline int reduce_is_vector(const clip_data *d) {
    int nd = clip_data_ndims(d), big = 0, empty2d = 1;
    for (int i = 0; i < nd; i++) {
        size_t n = clip_data_dim(d, i);
        if (n != 1) big++;
        if (i < 2 ? n != 0 : n != 1) empty2d = 0;
    }
    return big <= 1 || empty2d;
}

/* "3x4x2" into buf. */
static inline const char *reduce_dims_str(const clip_data *d, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < clip_data_ndims(d) && off < cap; i++) {
        int n = snprintf(buf + off, cap - off, "%s%zu", i ? "x" : "", clip_data_dim(d, i));
        if (n < 0) break;
        off += (size_t)n;
    }
    return buf;
}

/* Build options: the work-group size (fixed at compile time so that the local arrays and the
 * tree unroll), the unroll, and the process's own. */
static inline void reduce_options(char *buf, size_t cap, const reduce_geom *g, const char *extra) {
    snprintf(buf, cap, "-DLOCAL=%zu -DUNROLL=%u %s", g->local, g->unroll, extra ? extra : "");
}

static const char *const reduce_sum_choices[] = {"auto", "plain", "compensated", NULL};

/* Whether single-precision sums are compensated (COMP in the kernels): the "sum" parameter,
 * auto = on. Each work-item sums a long share on CPUs (1e7 elements over 8 work-items of 16
 * lanes: 78000 terms per lane), where plain float sums would lose ~sqrt(78000) ulps; on GPUs
 * the extra adds cost nothing against memory. Double sums stay plain. */
static inline int reduce_compensated(const clip_process *p, int dbl) {
    return !dbl && clip_proc_choice(p, "sum") != 1;
}

/* The tuning parameters both processes share (entries of their parameter tables). */
/* clang-format off */
#define REDUCE_TUNING_PARAMS                                                                   \
    {"sum", CLIP_PARAM_CHOICE, 0, 0, 0, 0, reduce_sum_choices,                                 \
     "single-precision sums: compensated (auto) or plain; double sums are plain", 0, 0, 0},             \
    {"groups", CLIP_PARAM_INT, 0, 1, 0, 64, NULL,                                              \
     "stage-1 work-groups per compute unit; 0: auto (4)", CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO, 0, 0},                                     \
    {"unroll", CLIP_PARAM_INT, 0, 1, 0, 8, NULL,                                               \
     "vector loads in flight per work-item; 0: auto (4 on GPUs, 2 for register-heavy "         \
     "kernels; 1 on CPUs)", CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO, 0, 0},                                                                   \
    {"local", CLIP_PARAM_INT, 0, 1, 0, 1024, NULL,                                             \
     "work-group size, a power of two; 0: auto (256 on GPUs, 1 on CPUs)", CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO, 0, 0}
/* clang-format on */

/* Sets stage-1 kernel arguments first..first+2 (nvec, chunk, tail) and gives its global size. */
static inline clip_status reduce_geom_args(clip_process *p, cl_kernel k, cl_uint first,
                                           const reduce_geom *g, size_t *global) {
    clip_status s = clip_proc_arg(p, k, first, sizeof g->nvec, &g->nvec);
    if (s == CLIP_OK) s = clip_proc_arg(p, k, first + 1, sizeof g->chunk, &g->chunk);
    if (s == CLIP_OK) s = clip_proc_arg(p, k, first + 2, sizeof g->tail, &g->tail);
    *global = g->groups * g->local;
    return s;
}

#endif
