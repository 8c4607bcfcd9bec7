/* The GEMM engine behind matmul and matpow: C = alpha*A*B + beta*C on device buffers,
 * column-major, through the one parameterised kernel of kernels/matmul.cl.
 *
 * A parameter set (clip_gemm_params) fixes the kernel's compile-time tiling. Defaults come from
 * the device (clip_gemm_default); the processes' tile parameters override single fields (so a
 * tuner can try sets through the ordinary process API or the CLI), and clip_gemm_check says
 * whether a set fits the device. clip_gemm_build compiles it once; clip_gemm_enqueue launches one
 * product on any buffers, so a process can chain several without touching the host. */
#ifndef CLIP_PROCESSES_GEMM_H
#define CLIP_PROCESSES_GEMM_H

#include "clip/process_author.h"

/* The kernel strategies, as named by the processes' `variant` parameter. */
typedef enum clip_gemm_variant {
    CLIP_GEMM_AUTO = 0, /* chosen from the device and the problem size */
    CLIP_GEMM_TILED,    /* A and B tiles staged in local memory, register tiles (GPUs) */
    CLIP_GEMM_DIRECT,   /* register tiles read straight from global memory (CPU caches) */
    CLIP_GEMM_SMALL     /* one output per work-item, for tiny products */
} clip_gemm_variant;

/* Names in clip_gemm_variant order, NULL-terminated (the `variant` choice list). */
extern const char *const clip_gemm_variant_names[];

typedef struct clip_gemm_params {
    clip_gemm_variant variant; /* resolved: never AUTO */
    int mwg, nwg;              /* work-group tile of C: rows x columns */
    int kwg;                   /* K slice (local staging) or unroll depth */
    int mdimc, ndimc;          /* work-group size; work-item tile = mwg/mdimc x nwg/ndimc */
    int vw;                    /* vector width along M */
    int sa, sb;                /* stage A / B in local memory */
    int pada, padb;            /* local padding in elements */
} clip_gemm_params;

/* Device defaults for type t. AUTO resolves from the device type and the product's size
 * (m x k times k x n). */
void clip_gemm_default(const clip_device_info *dev, clip_type t, clip_gemm_variant v, size_t m,
                       size_t n, size_t k, clip_gemm_params *out);

/* 0 if the set is valid on the device for type t; otherwise -1 and a reason in `why`. */
int clip_gemm_check(const clip_gemm_params *prm, const clip_device_info *dev, clip_type t,
                    char *why, size_t cap);

/* "direct 32x12x64 wg 1x1 vw 16": for the process variant string and bench output. */
void clip_gemm_describe(const clip_gemm_params *prm, char *buf, size_t cap);

/* "3x4" (all dims) for error messages. */
void clip_gemm_shape_str(const clip_data *d, char *buf, size_t cap);
/* Non-zero when every dim past the second is 1 (a MATLAB matrix). */
int clip_gemm_is_2d(const clip_data *d);

/* The process parameters that steer the engine: variant plus tile overrides (0 = device
 * default). Spliced into a process's parameter table. */
#define CLIP_GEMM_PARAM_COUNT 7
#define CLIP_GEMM_PARAM_ROWS                                                                      \
    {"variant", CLIP_PARAM_CHOICE, 0, 0, 0, 0, clip_gemm_variant_names,                            \
     "kernel: auto (by device and size), tiled (local memory), direct (CPU caches), small"},       \
        {"mwg", CLIP_PARAM_INT, 0, 1, 0, 1024, NULL, "tile rows per work-group (0 = default)"},     \
        {"nwg", CLIP_PARAM_INT, 0, 1, 0, 1024, NULL, "tile columns per work-group (0 = default)"},  \
        {"kwg", CLIP_PARAM_INT, 0, 1, 0, 1024, NULL, "K slice per step (0 = default)"},             \
        {"mdimc", CLIP_PARAM_INT, 0, 1, 0, 1024, NULL, "work-group size along M (0 = default)"},    \
        {"ndimc", CLIP_PARAM_INT, 0, 1, 0, 1024, NULL, "work-group size along N (0 = default)"},    \
        {"vw", CLIP_PARAM_INT, 0, 1, 0, 16, NULL, "vector width along M (0 = default)"}

/* Resolves the engine parameters of process p (which has CLIP_GEMM_PARAM_ROWS) for type t and
 * an m x k times k x n product; a set that does not fit fails with CLIP_ERR_PARAM_RANGE. */
clip_status clip_gemm_params_from_process(clip_process *p, clip_type t, size_t m, size_t n,
                                          size_t k, clip_gemm_params *out);

/* A built GEMM: the kernel (owned by the process) and its parameters. */
typedef struct clip_gemm {
    cl_kernel kernel;
    clip_gemm_params prm;
    clip_type type;
} clip_gemm;

/* Builds (or finds cached) the kernel for prm and type t. Errors: as clip_proc_kernel, and
 * CLIP_ERR_PARAM_RANGE when the device cannot run the work-group size. */
clip_status clip_gemm_build(clip_process *p, clip_type t, const clip_gemm_params *prm,
                            clip_gemm *g);

/* A scalar of the product's type, as re + i*im (im ignored for real types). */
typedef struct clip_gemm_scalar {
    double re, im;
} clip_gemm_scalar;

/* One matrix operand: a buffer, the offset of element (0,0) and the leading dimension, both in
 * elements. */
typedef struct clip_gemm_operand {
    cl_mem mem;
    size_t off, ld;
} clip_gemm_operand;

/* Enqueues C = alpha*A*B + beta*C with A m x k, B k x n, C m x n. Nothing is enqueued when m or n
 * is 0; k = 0 with beta = 0 fills C with zeros. C must not overlap A or B. Errors:
 * CLIP_ERR_OVERFLOW (a size past the kernel's int indices), CLIP_ERR_OPENCL. */
clip_status clip_gemm_enqueue(clip_process *p, const clip_gemm *g, size_t m, size_t n, size_t k,
                              clip_gemm_scalar alpha, clip_gemm_operand a, clip_gemm_operand b,
                              clip_gemm_scalar beta, clip_gemm_operand c);

#endif
