/* Split plans shared by the reductions (dot, norm): chunks of whole vectors combined on the host,
 * and bands of lines along a dimension placed side by side (clip/process_author.h, plan). */
#ifndef CLIP_REDUCE_PLAN_H
#define CLIP_REDUCE_PLAN_H

#include <string.h>

#include "clip/process_author.h"

/* The largest dimension (0-based) of d: for a vector, the one it runs along. */
static inline int reduce_long_dim(const clip_data *d) {
    int e = 0;
    for (int i = 1; i < CLIP_MAX_DIMS; i++)
        if (clip_data_dim(d, i) > clip_data_dim(d, e)) e = i;
    return e;
}

/* Inputs whose longest dimensions have one length (vectors in any orientation, or one array):
 * chunks along each input's longest dimension, output 0 (of the full output's shape per piece)
 * combined by fn in piece order. At most `max_parts` pieces (0: no limit). */
static inline clip_status reduce_plan_chunks(clip_process *p, clip_plan *pl, int n_inputs,
                                             size_t max_parts, clip_combine_fn fn) {
    const clip_data *x = clip_proc_input(p, 0);
    size_t n = clip_data_dim(x, reduce_long_dim(x)), parts = clip_plan_target(pl);
    if (parts > n) parts = n;
    if (max_parts && parts > max_parts) parts = max_parts;
    if (parts < 2) return CLIP_OK;
    clip_plan_combine(pl, 0, fn);
    for (size_t b = 0; b < parts; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        size_t start, count;
        clip_plan_band(n, parts, b, &start, &count);
        for (int i = 0; i < n_inputs; i++) {
            const clip_data *in = clip_proc_input(p, i);
            int dv = reduce_long_dim(in);
            clip_box_all(in, &pc.in[i]);
            pc.in[i].start[dv] = start;
            pc.in[i].count[dv] = count;
        }
        clip_status s = clip_plan_add(pl, &pc);
        if (s != CLIP_OK) return s;
    }
    return CLIP_OK;
}

/* Lines along dimension dim (0-based) of inputs of one shape: bands of the largest other
 * dimension, each piece's lines whole, its output placed where its lines are. */
static inline clip_status reduce_plan_lines(clip_process *p, clip_plan *pl, int n_inputs, int dim) {
    const clip_data *x = clip_proc_input(p, 0);
    int e = -1;
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        if (i != dim && (e < 0 || clip_data_dim(x, i) > clip_data_dim(x, e))) e = i;
    size_t n = clip_data_dim(x, e), target = clip_plan_target(pl);
    size_t parts = target < n ? target : n;
    if (n < 2) return CLIP_OK;
    for (size_t b = 0; b < parts; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        size_t start, count;
        clip_plan_band(n, parts, b, &start, &count);
        for (int i = 0; i < n_inputs; i++) {
            clip_box_all(clip_proc_input(p, i), &pc.in[i]);
            pc.in[i].start[e] = start;
            pc.in[i].count[e] = count;
        }
        pc.keep[0] = pc.in[0];
        pc.keep[0].start[e] = 0;
        if (dim < CLIP_MAX_DIMS) pc.keep[0].count[dim] = 1;
        pc.at[0][e] = start;
        clip_status s = clip_plan_add(pl, &pc);
        if (s != CLIP_OK) return s;
    }
    return CLIP_OK;
}

#endif
