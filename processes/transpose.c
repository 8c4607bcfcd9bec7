/* transpose: MATLAB's A.' (transpose), or A' (ctranspose) with --conjugate, of a 2-D A, and of
 * every 2-D slice of an N-D A (C(:, :, k) = A(:, :, k).', as pagetranspose / pagectranspose);
 * C is n x m (x the rest of A's dimensions), of A's type. Conjugating real data changes
 * nothing, as MATLAB's. Empty inputs give empty outputs of the transposed size. Rows and
 * columns must stay below 2^32 (CLIP_ERR_SHAPE).
 *
 * A tiled kernel (kernels/transpose.cl): 32 x 32 blocks through local memory, so that reads
 * and writes both move contiguous runs (memory speed, not the strided half of a naive copy);
 * 32 x 8 work-items per block where the device allows 256, else 16 x 4 blocks of 16. */
#include <stdio.h>
#include <string.h>

#include "clip/process_author.h"

typedef struct transpose_state {
    cl_kernel k;
    size_t global[3], local[3];
    cl_uint m, n;
} transpose_state;

static const clip_param_desc transpose_params[] = {
    {"conjugate", CLIP_PARAM_BOOL, 0, 0, 0, 0, NULL,
     "conjugate too: A' (ctranspose) instead of A.' (no change for real data)", 0, 0, 0},
};
static const char *const transpose_input_names[] = {"A"};
static const char *const transpose_inputs[] = {"m x n (x ...), any type"};
static const char *const transpose_output_names[] = {"C"};
static const char *const transpose_outputs[] = {"n x m (x ...): A.' or A' per 2-D slice"};

/* Checks A's size and creates C, n x m (x the rest). */
static clip_status transpose_output(clip_process *p) {
    clip_data *a = clip_proc_input(p, 0), *c = NULL;
    const int nd = clip_data_ndims(a) < 2 ? 2 : clip_data_ndims(a);
    size_t dims[CLIP_MAX_DIMS];
    for (int i = 0; i < nd; i++)
        dims[i] = clip_data_dim(a, i);
    if (dims[0] > 0xFFFFFFFFu || dims[1] > 0xFFFFFFFFu)
        return clip_proc_fail(p, CLIP_ERR_SHAPE,
                              "A is %zux%zu: rows and columns must be below 2^32", dims[0],
                              dims[1]);
    const size_t m = dims[0];
    dims[0] = dims[1], dims[1] = m;
    return clip_proc_output(p, 0, clip_data_type(a), nd, dims, &c);
}

static clip_status transpose_init(clip_process *p) {
    transpose_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0);
    const int nd = clip_data_ndims(a) < 2 ? 2 : clip_data_ndims(a);
    size_t dims[CLIP_MAX_DIMS], slices = 1;
    for (int i = 0; i < nd; i++)
        dims[i] = clip_data_dim(a, i);
    for (int i = 2; i < nd; i++)
        slices *= dims[i];
    const size_t m = dims[0], n = dims[1];
    const clip_type t = clip_data_type(a);
    clip_status s = transpose_output(p);
    if (s != CLIP_OK) return s;
    const size_t big = clip_proc_device(p)->max_work_group >= 256;
    const size_t tile = big ? 32 : 16, rows = big ? 8 : 4;
    const int conj = clip_proc_bool(p, "conjugate") && clip_type_is_complex(t);
    char opts[64];
    snprintf(opts, sizeof opts, "-DTILE=%zu -DROWS=%zu -DCONJ=%d", tile, rows, conj);
    s = clip_proc_kernel(p, "transpose", t, opts, "transpose", &st->k);
    if (s != CLIP_OK) return s;
    st->m = (cl_uint)m, st->n = (cl_uint)n;
    st->local[0] = tile, st->local[1] = rows, st->local[2] = 1;
    st->global[0] = (m + tile - 1) / tile * tile;
    st->global[1] = (n + tile - 1) / tile * rows;
    st->global[2] = slices;
    char variant[48];
    snprintf(variant, sizeof variant, "tiled %zux%zu%s", tile, rows, conj ? " conj" : "");
    clip_proc_set_variant(p, variant);
    return CLIP_OK;
}

static clip_status transpose_launch(clip_process *p) {
    transpose_state *st = clip_proc_state(p);
    clip_data *a = clip_proc_input(p, 0), *c = NULL;
    clip_process_output(p, 0, &c);
    if (clip_data_numel(a) == 0) return CLIP_OK;
    cl_mem am = NULL, cm = NULL;
    clip_status s = clip_proc_read_buffer(p, a, &am);
    if (s == CLIP_OK) s = clip_proc_write_buffer(p, c, 0, &cm);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->k, 0, sizeof am, &am);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->k, 1, sizeof cm, &cm);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->k, 2, sizeof st->m, &st->m);
    if (s == CLIP_OK) s = clip_proc_arg(p, st->k, 3, sizeof st->n, &st->n);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, st->k, 3, st->global, st->local);
    return s;
}

/* Bands of A's largest dimension: of slices they stay slices; of rows (columns) of A they
 * become columns (rows) of C. */
static clip_status transpose_plan(clip_process *p, clip_plan *pl) {
    clip_status s = transpose_output(p);
    clip_data *a = clip_proc_input(p, 0);
    int e = 0;
    for (int i = 1; i < CLIP_MAX_DIMS; i++)
        if (clip_data_dim(a, i) > clip_data_dim(a, e)) e = i;
    const size_t n = clip_data_dim(a, e), target = clip_plan_target(pl);
    const size_t parts = target < n ? target : n;
    for (size_t b = 0; b < parts && parts > 1 && s == CLIP_OK; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        clip_box_all(a, &pc.in[0]);
        clip_plan_band(n, parts, b, &pc.in[0].start[e], &pc.in[0].count[e]);
        pc.keep[0] = pc.in[0];
        pc.keep[0].count[0] = pc.in[0].count[1];
        pc.keep[0].count[1] = pc.in[0].count[0];
        pc.keep[0].start[e] = 0;
        pc.at[0][e < 2 ? 1 - e : e] = pc.in[0].start[e];
        s = clip_plan_add(pl, &pc);
    }
    return s;
}

const clip_process_desc clip_process_transpose = {
    .abi = CLIP_PROCESS_ABI,
    .rebind = 1,
    .transposes = 1,
    .name = "transpose",
    .summary = "A.' (MATLAB transpose), or A' with --conjugate, of every 2-D slice",
    .n_inputs = 1,
    .input_names = transpose_input_names,
    .input_docs = transpose_inputs,
    .n_outputs = 1,
    .output_names = transpose_output_names,
    .output_docs = transpose_outputs,
    .params = transpose_params,
    .n_params = sizeof transpose_params / sizeof transpose_params[0],
    .state_size = sizeof(transpose_state),
    .init = transpose_init,
    .launch = transpose_launch,
    .plan = transpose_plan,
};
