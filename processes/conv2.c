/* conv2: C = conv2(A, K, shape) as MATLAB, on every 2-D slice of an N-D A with the same 2-D K.
 *
 * Semantics.
 *   shape     full: size(A)+size(K)-1; same: size(A), the central part starting at row
 *             floor(size(K,1)/2)+1 and column floor(size(K,2)/2)+1 of the full result (so even
 *             sizes match MATLAB); valid: max(size(A)-size(K)+1, 0).
 *   correlate filter2 / imfilter 'corr': K is not rotated. Off: convolution as conv2.
 *   pad       zero is conv2's behaviour; replicate, symmetric, circular give imfilter(A, K, pad,
 *             shape, 'conv'/'corr') for full and same. 'valid' never reads the padding, so it
 *             equals the zero case for every pad mode.
 *   normalize divides the result by sum(K(:)) (OpenCLIPER's convolution did). A zero sum is
 *             divided by all the same: IEEE gives Inf/-Inf, and NaN where the result is 0 too,
 *             as MATLAB's conv2(A,K)/sum(K(:)). A complex sum with a zero imaginary part divides
 *             like a real one (MATLAB narrows such a value to real).
 *   types     the output type is clip_type_promote(A, K); both are converted on the device.
 *   empty     sizes follow the formulas above (so conv2(zeros(0,3), ones(2)) is 1x4 zeros, as
 *             MATLAB; Octave returns 0x0 for any empty input). With an empty K the sum is empty:
 *             zeros, or NaN when normalizing (0/0). Padding an empty A pads with zeros.
 *   K must be 2-D (trailing singleton dims are fine): CLIP_ERR_SHAPE otherwise. Every dimension
 *   must stay below 2^30 (32-bit index arithmetic in the kernels): CLIP_ERR_SHAPE otherwise.
 *
 *   imfilter centres K at floor((size(K)+1)/2); for convolution and correlation alike that
 *   selects the same window as conv2's 'same' offset, so one offset serves both.
 *
 * Variants (kernels/conv2.cl): both have each work-item compute several outputs along a row,
 * with work-items adjacent along dims[0] so loads and stores coalesce, and read the padding
 * through an index map chosen at compile time (no padded copy of A).
 *   local   the group's image tile plus halo and the filter are staged in local memory
 *           (32 x 8 work-items, 8 outputs each).
 *   global  A is read through the caches, the filter from global memory; on CPUs each
 *           work-item takes a native SIMD vector of rows (explicit vector loads) by 8 columns.
 * auto: on CPUs global (local memory there is ordinary memory: measured on 2048^2 by 7x7 'same'
 * under PoCL, global 3.6 ms f32 / 6.1 ms f64 against ~200 ms for local). Elsewhere local when
 * tile plus halo plus filter fit CL_DEVICE_LOCAL_MEM_SIZE beside the built kernel's own
 * CL_KERNEL_LOCAL_MEM_SIZE and CL_KERNEL_WORK_GROUP_SIZE admits the work-group; else global.
 * Empty A or K always runs global (there is nothing to stage). Forcing a variant the device
 * cannot run is CLIP_ERR_UNSUPPORTED. The filter size is a compile-time constant (loops unroll,
 * and the filter sits in registers) when it is at most SMALL_K_MAX per side and SMALL_K_NUMEL
 * in all; larger filters use one program per type and pad mode with run-time sizes (PoCL takes
 * seconds to build the unrolled code of larger filters).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "clip/process_author.h"

#define SMALL_K_MAX 32
#define SMALL_K_NUMEL 81
#define DIM_LIMIT ((size_t)1 << 30)

enum { SHAPE_FULL, SHAPE_SAME, SHAPE_VALID };
enum { VARIANT_AUTO, VARIANT_LOCAL, VARIANT_GLOBAL };

/* Work-group shape and outputs per work-item of one kernel: groups of wx x wy work-items, each
 * computing r outputs along a row, vw rows at a time (global kernel only). */
typedef struct conv2_tile {
    int wx, wy, r, vw;
} conv2_tile;

typedef struct conv2_state {
    cl_kernel kernel, ksum;
    cl_mem ksum_mem;
    int local;                      /* the chosen variant is conv2_local */
    size_t global[2], wg[2];
    size_t local_bytes;
    cl_int ma, na, mo, no, oi, oj, kr, kc, ngx, ngy;
    cl_int corr, normalize, nk;
} conv2_state;

static const char *const shape_names[] = {"full", "same", "valid", NULL};
static const char *const pad_names[] = {"zero", "replicate", "symmetric", "circular", NULL};
static const char *const variant_names[] = {"auto", "local", "global", NULL};

static const clip_param_desc conv2_params[] = {
    {"shape", CLIP_PARAM_CHOICE, SHAPE_FULL, 0, 0, 0, shape_names,
     "full (size(A)+size(K)-1), same (size(A), central part) or valid (no padding used)"},
    {"correlate", CLIP_PARAM_BOOL, 0, 0, 0, 0, NULL,
     "correlation as filter2/imfilter (K not rotated) instead of convolution"},
    {"pad", CLIP_PARAM_CHOICE, 0, 0, 0, 0, pad_names,
     "values outside A: zero (conv2) or imfilter's replicate, symmetric, circular"},
    {"normalize", CLIP_PARAM_BOOL, 0, 0, 0, 0, NULL,
     "divide the result by sum(K(:)) (a zero sum gives Inf/NaN, as MATLAB)"},
    {"variant", CLIP_PARAM_CHOICE, VARIANT_AUTO, 0, 0, 0, variant_names,
     "kernel: auto, local (tile staged in local memory) or global (no staging: CPUs, large K)"},
};
static const char *const conv2_inputs[] = {"A  image: rows x cols (x channels x ...), any type",
                                           "K  2-D filter, any type"};
static const char *const conv2_outputs[] = {
    "C  conv2(A, K, shape) per 2-D slice of A; type promoted from A and K"};

/* The local kernel's tile, on every device: 32 rows so a warp reads and writes 128 contiguous
 * bytes, 8 outputs each so a staged value feeds 8 accumulators from registers. The global
 * kernel's: the same on GPUs; on CPUs one work-item per group (PoCL's work-item loops add nothing
 * to explicit vectors) taking one native SIMD vector of rows (measured on 2048^2 by 7x7 'same',
 * PoCL on 2 AVX-512 cores: f32 3.6 ms, f64 6.1 ms; the local kernel there takes ~200 ms). */
static void pick_tiles(clip_process *p, clip_type t, conv2_tile *lt, conv2_tile *gt) {
    const clip_device_info *dev = clip_proc_device(p);
    *lt = (conv2_tile){32, 8, 8, 1};
    *gt = *lt;
    if (dev->type == CLIP_DEVICE_CPU) {
        *gt = (conv2_tile){1, 1, 8, 1};
        cl_uint w = 0;
        cl_device_info q = clip_type_is_double(t) ? CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE
                                                  : CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT;
        if (!clip_type_is_complex(t) &&
            clGetDeviceInfo(clip_proc_cl_device(p), q, sizeof w, &w, NULL) == CL_SUCCESS)
            gt->vw = w >= 16 ? 16 : w >= 8 ? 8 : w >= 4 ? 4 : w >= 2 ? 2 : 1;
    }
    for (conv2_tile *x = lt; x; x = x == lt ? gt : NULL) {
        while ((size_t)(x->wx * x->wy) > dev->max_work_group && x->wy > 1) x->wy /= 2;
        while ((size_t)(x->wx * x->wy) > dev->max_work_group && x->wx > 1) x->wx /= 2;
    }
}

static void dims_str(clip_data *d, char *buf, size_t cap) {
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < clip_data_ndims(d) && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%zu", i ? "x" : "", clip_data_dim(d, i));
}

/* Output rows for input rows m and filter rows k, and the offset of the shape in the full
 * result. */
static size_t out_size(int shape, size_t m, size_t k, size_t *off) {
    if (shape == SHAPE_SAME) {
        *off = k / 2;
        return m;
    }
    if (shape == SHAPE_VALID) {
        *off = k ? k - 1 : 0;
        return m + 1 > k ? m + 1 - k : 0;
    }
    *off = 0;
    return m + k > 0 ? m + k - 1 : 0;
}

static clip_status check_inputs(clip_process *p, clip_data *a, clip_data *k) {
    char buf[128];
    for (int i = 2; i < clip_data_ndims(k); i++)
        if (clip_data_dim(k, i) != 1) {
            dims_str(k, buf, sizeof buf);
            return clip_proc_fail(p, CLIP_ERR_SHAPE, "K must be 2-D, got %s", buf);
        }
    for (int i = 0; i < 2; i++)
        if (clip_data_dim(a, i) >= DIM_LIMIT || clip_data_dim(k, i) >= DIM_LIMIT) {
            dims_str(clip_data_dim(a, i) >= DIM_LIMIT ? a : k, buf, sizeof buf);
            return clip_proc_fail(p, CLIP_ERR_SHAPE, "%s is %s: rows and columns must be below 2^30",
                                  clip_data_dim(a, i) >= DIM_LIMIT ? "A" : "K", buf);
        }
    return CLIP_OK;
}

/* Builds the kernel of the variant and checks that the device takes its work-group (and, for
 * local, its local memory). When local does not fit: with `forced`, CLIP_ERR_UNSUPPORTED and a
 * message; else CLIP_ERR_UNSUPPORTED without one, and init falls back to global. */
static clip_status build_main(clip_process *p, conv2_state *st, clip_type t, const char *opts,
                              int local, int forced, const conv2_tile *tile) {
    const clip_device_info *dev = clip_proc_device(p);
    size_t need = local ? st->local_bytes : 0;
    if (need > dev->local_mem) {
        if (!forced) return CLIP_ERR_UNSUPPORTED;
        return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED,
                              "variant local: tile and filter need %zu bytes of local memory, the "
                              "device has %llu (use variant global or auto)",
                              need, (unsigned long long)dev->local_mem);
    }
    const char *name = local ? "conv2_local" : "conv2_global";
    clip_status s = clip_proc_kernel(p, "conv2", t, opts, name, &st->kernel);
    if (s != CLIP_OK) return s;
    size_t kwg = 0;
    cl_ulong kmem = 0;
    cl_device_id d = clip_proc_cl_device(p);
    if (clGetKernelWorkGroupInfo(st->kernel, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof kwg, &kwg, NULL) !=
            CL_SUCCESS ||
        clGetKernelWorkGroupInfo(st->kernel, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof kmem, &kmem, NULL) !=
            CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clGetKernelWorkGroupInfo(%s) failed", name);
    /* No __local argument is set yet, so kmem is the kernel's own use. */
    size_t wg = (size_t)(tile->wx * tile->wy);
    if (wg <= kwg && need + kmem <= dev->local_mem) return CLIP_OK;
    if (local && !forced) return CLIP_ERR_UNSUPPORTED;
    return clip_proc_fail(p, CLIP_ERR_UNSUPPORTED,
                          "variant %s: needs a %dx%d work-group and %zu bytes of local memory; the "
                          "kernel allows %zu work-items and the device has %llu bytes",
                          local ? "local" : "global", tile->wx, tile->wy, need + (size_t)kmem, kwg,
                          (unsigned long long)dev->local_mem);
}

static clip_status conv2_init(clip_process *p) {
    conv2_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *k = clip_proc_input(p, 1), *c = NULL;
    clip_status s = check_inputs(p, a, k);
    if (s != CLIP_OK) return s;

    const int shape = clip_proc_choice(p, "shape"), pad = clip_proc_choice(p, "pad");
    const int variant = clip_proc_choice(p, "variant");
    size_t ma = clip_data_dim(a, 0), na = clip_data_dim(a, 1);
    size_t mk = clip_data_dim(k, 0), nk = clip_data_dim(k, 1), oi = 0, oj = 0;
    size_t mo = out_size(shape, ma, mk, &oi), no = out_size(shape, na, nk, &oj);

    int nd = clip_data_ndims(a) < 2 ? 2 : clip_data_ndims(a);
    size_t dims[CLIP_MAX_DIMS], slices = 1;
    for (int i = 0; i < nd; i++) dims[i] = clip_data_dim(a, i);
    for (int i = 2; i < nd; i++) slices *= dims[i];
    dims[0] = mo;
    dims[1] = no;
    clip_type t = clip_type_promote(clip_data_type(a), clip_data_type(k));
    s = clip_proc_input_as(p, 0, t);
    if (s == CLIP_OK) s = clip_proc_input_as(p, 1, t);
    if (s == CLIP_OK) s = clip_proc_output(p, 0, t, nd, dims, &c);
    if (s != CLIP_OK) return s;
    if (clip_data_numel(c) == 0) {
        clip_proc_set_variant(p, "empty");
        return CLIP_OK;
    }

    conv2_tile lt, gt;
    pick_tiles(p, t, &lt, &gt);
    const int empty = clip_data_numel(a) == 0 || mk == 0 || nk == 0;
    const int small = !empty && mk <= SMALL_K_MAX && nk <= SMALL_K_MAX && mk * nk <= SMALL_K_NUMEL;
    char opts[200];
    int n = snprintf(opts, sizeof opts, "-DPAD=%d -DLWX=%d -DLWY=%d -DLR=%d -DGWX=%d -DGWY=%d -DGR=%d -DVW=%d",
                     pad, lt.wx, lt.wy, lt.r, gt.wx, gt.wy, gt.r, gt.vw);
    if (small) snprintf(opts + (size_t)n, sizeof opts - (size_t)n, " -DKR=%zu -DKC=%zu", mk, nk);

    /* auto: local on GPUs and other devices with real local memory, where it fits; global on
     * CPUs (see pick_tiles) and for empty inputs (nothing to stage). */
    size_t esz = clip_type_size(t);
    /* The run-time-size loop reads whole chunks of lt.r columns (kernels/conv2.cl). */
    size_t tw = (size_t)(lt.wy * lt.r) + (small ? nk - 1 : (nk + (size_t)lt.r - 1) / (size_t)lt.r * (size_t)lt.r);
    st->local_bytes = ((size_t)lt.wx + mk - 1) * tw * esz + mk * nk * esz;
    int local = !empty && (variant == VARIANT_LOCAL ||
                           (variant == VARIANT_AUTO && clip_proc_device(p)->type != CLIP_DEVICE_CPU));
    s = build_main(p, st, t, opts, local, variant == VARIANT_LOCAL, local ? &lt : &gt);
    if (s == CLIP_ERR_UNSUPPORTED && local && variant == VARIANT_AUTO) {
        local = 0;
        s = build_main(p, st, t, opts, 0, 0, &gt);
    }
    if (s != CLIP_OK) return s;
    st->local = local;

    st->normalize = clip_proc_bool(p, "normalize");
    if (st->normalize) {
        s = clip_proc_kernel(p, "conv2", t, opts, "conv2_ksum", &st->ksum);
        if (s == CLIP_OK) s = clip_proc_temp(p, esz, &st->ksum_mem);
        if (s != CLIP_OK) return s;
    }
    const conv2_tile *ct = local ? &lt : &gt;
    size_t rows = (size_t)(ct->wx * ct->vw), cols = (size_t)(ct->wy * ct->r);
    size_t ngx = (mo + rows - 1) / rows, ngy = (no + cols - 1) / cols;
    if (ngx * ngy > (size_t)0x7fffffff / slices)
        return clip_proc_fail(p, CLIP_ERR_SHAPE, "A has too many slices (%zu) for one launch", slices);
    st->ma = (cl_int)ma, st->na = (cl_int)na, st->mo = (cl_int)mo, st->no = (cl_int)no;
    st->oi = (cl_int)oi, st->oj = (cl_int)oj, st->kr = (cl_int)mk, st->kc = (cl_int)nk;
    st->nk = (cl_int)(mk * nk);
    st->ngx = (cl_int)ngx, st->ngy = (cl_int)ngy;
    st->corr = clip_proc_bool(p, "correlate");
    st->wg[0] = (size_t)ct->wx, st->wg[1] = (size_t)ct->wy;
    st->global[0] = ngx * ngy * slices * (size_t)ct->wx;
    st->global[1] = (size_t)ct->wy;
    clip_proc_set_variant(p, local ? "local" : "global");
    return CLIP_OK;
}

static clip_status conv2_launch(clip_process *p) {
    conv2_state *st = clip_proc_state(p);
    clip_data *c = NULL;
    clip_process_output(p, 0, &c);
    if (clip_data_numel(c) == 0) return CLIP_OK;
    cl_mem am = NULL, km = NULL, cm = NULL;
    clip_status s = clip_proc_input_buffer(p, 0, &am);
    if (s == CLIP_OK) s = clip_proc_input_buffer(p, 1, &km);
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, c, 0, &cm);
    if (s != CLIP_OK) return s;
    cl_mem sm = st->normalize ? st->ksum_mem : NULL;
    if (st->normalize) {
        size_t g = 64;
        s = clip_proc_arg(p, st->ksum, 0, sizeof km, &km);
        if (s == CLIP_OK) s = clip_proc_arg(p, st->ksum, 1, sizeof sm, &sm);
        if (s == CLIP_OK) s = clip_proc_arg(p, st->ksum, 2, sizeof st->nk, &st->nk);
        if (s == CLIP_OK) s = clip_proc_enqueue(p, st->ksum, 1, &g, &g);
        if (s != CLIP_OK) return s;
    }
    cl_kernel kk = st->kernel;
    const cl_mem bufs[4] = {am, km, cm, sm};
    const cl_int ints[] = {st->ma, st->na, st->mo, st->no, st->oi, st->oj, st->kr,
                           st->kc, st->corr, st->normalize, st->ngx, st->ngy};
    cl_uint idx = 0;
    for (int i = 0; i < 4 && s == CLIP_OK; i++) s = clip_proc_arg(p, kk, idx++, sizeof(cl_mem), &bufs[i]);
    for (size_t i = 0; i < sizeof ints / sizeof ints[0] && s == CLIP_OK; i++)
        s = clip_proc_arg(p, kk, idx++, sizeof(cl_int), &ints[i]);
    if (s == CLIP_OK && st->local) s = clip_proc_arg(p, kk, idx++, st->local_bytes, NULL);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, kk, 2, st->global, st->wg);
    return s;
}

const clip_process_desc clip_process_conv2 = {
    .name = "conv2",
    .summary = "2-D convolution per slice (MATLAB conv2(A, K, shape); filter2/imfilter options)",
    .n_inputs = 2,
    .input_docs = conv2_inputs,
    .n_outputs = 1,
    .output_docs = conv2_outputs,
    .params = conv2_params,
    .n_params = 5,
    .state_size = sizeof(conv2_state),
    .init = conv2_init,
    .launch = conv2_launch,
};
