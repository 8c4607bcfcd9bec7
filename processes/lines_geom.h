/* The launch shape shared by the processes that reduce along one dimension (dot_lines.c,
 * norm_lines.c): the array seen as pre x n x post with n along the dimension, and one
 * work-group per contiguous line (pre == 1) or one work-item per line otherwise. */
#ifndef CLIP_LINES_GEOM_H
#define CLIP_LINES_GEOM_H

#include "clip/process_author.h"

/* Fills pre, n, post (dim 0-based; past the last dimension every element is a line of one) and
 * the work sizes for x's lines on p's device. Returns non-zero when the lines are contiguous. */
static inline int lines_geom(clip_process *p, const clip_data *x, int dim, cl_ulong *pre,
                             cl_ulong *n, cl_ulong *post, size_t *local, size_t *global) {
    *pre = 1, *n = 1, *post = 1;
    for (int i = 0; i < clip_data_ndims(x); i++) {
        const cl_ulong d = clip_data_dim(x, i);
        if (i < dim) *pre *= d;
        else if (i == dim) *n = d;
        else *post *= d;
    }
    const clip_device_info *dev = clip_proc_device(p);
    const int contig = *pre == 1, gpu = dev->type != CLIP_DEVICE_CPU;
    /* CPUs: a group of one per contiguous line (PoCL runs a group's items one after another);
     * 16 neighbouring lines per group otherwise, which PoCL vectorises across. */
    size_t l = contig ? (gpu ? 256 : 1) : (gpu ? 64 : 16);
    while (l > 1 && l > dev->max_work_group)
        l /= 2;
    const size_t lines = (size_t)(*pre * *post);
    *local = l;
    *global = contig ? lines * l : (lines + l - 1) / l * l;
    return contig;
}

#endif
