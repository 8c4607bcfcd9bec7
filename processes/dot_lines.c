/* dot along a dimension: MATLAB's dot(A, B, dim) = sum(conj(A) .* B, dim) of two arrays of the
 * same size, and dot(A, B) of non-vectors (along the first dimension whose size is not 1); the
 * kernel is kernels/dot_lines.cl. Layout as norm_lines.c: a work-group per line along a
 * contiguous dimension, a work-item per line (neighbours on neighbouring lines) otherwise. */
#include <stdio.h>

#include "dot_lines.h"
#include "lines_geom.h"

clip_status dot_lines_init(clip_process *p, dot_lines *l, clip_data *a, int dim, clip_type t,
                           int acx, int bcx) {
    const int contig = lines_geom(p, a, dim, &l->pre, &l->n, &l->post, &l->local, &l->global);
    char opts[96];
    snprintf(opts, sizeof opts, "-DA_COMPLEX=%d -DB_COMPLEX=%d -DCONTIG=%d -DLOCAL=%zu", acx, bcx,
             contig, l->local);
    return clip_proc_kernel(p, "dot_lines", t, opts, "dot_lines", &l->k);
}

clip_status dot_lines_launch(clip_process *p, const dot_lines *l, cl_mem a, cl_mem b, cl_mem out) {
    if (!l->global) return CLIP_OK;
    clip_status s = clip_proc_arg(p, l->k, 0, sizeof a, &a);
    if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 1, sizeof b, &b);
    if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 2, sizeof l->pre, &l->pre);
    if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 3, sizeof l->n, &l->n);
    if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 4, sizeof l->post, &l->post);
    if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 5, sizeof out, &out);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, l->k, 1, &l->global, &l->local);
    return s;
}
