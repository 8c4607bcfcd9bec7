/* norm along one dimension, MATLAB's vecnorm(A, p, dim), and the lines behind the matrix norms
 * norm(A, 1) (column sums, then their max) and norm(A, Inf) (row sums, then their max); the
 * kernels are kernels/norm_lines.cl.
 *
 * Layout: a dimension of stride 1 (pre = 1, the columns of a matrix) gets a work-group per line
 * whose items stride along it (coalesced on GPUs; on CPUs a group of one reading its line front
 * to back); any other gets a work-item per line, neighbouring items on neighbouring lines, so
 * that their loads coalesce (and PoCL vectorises across the items). Accuracy is that of the
 * vector norm's: scaled by the line's max |x|, compensated in single precision. */
#include <math.h>
#include <stdio.h>

#include "norm.h"
#include "lines_geom.h"

static int lines_mode(double pv) {
    if (pv == 1) return 1;
    if (pv == 2) return 2;
    if (pv == INFINITY) return 3;
    if (pv == -INFINITY) return 4;
    return 5;
}

clip_status norm_lines_init(clip_process *p, norm_lines *l, clip_data *x, int dim, double pv,
                            int with_max) {
    l->p = pv;
    const int contig = lines_geom(p, x, dim, &l->pre, &l->n, &l->post, &l->local, &l->global);
    const size_t lines = (size_t)(l->pre * l->post);
    char opts[96];
    snprintf(opts, sizeof opts, "-DMODE=%d -DCONTIG=%d -DLOCAL=%zu", lines_mode(pv), contig,
             l->local);
    clip_type t = clip_data_type(x);
    clip_status s = clip_proc_kernel(p, "norm_lines", t, opts, "norm_lines", &l->k);
    l->kmax = NULL, l->tmp = NULL;
    if (s == CLIP_OK && with_max) {
        s = clip_proc_kernel(p, "norm_lines", t, opts, "norm_lines_max", &l->kmax);
        if (s == CLIP_OK)
            s = clip_proc_temp(p, (lines ? lines : 1) * clip_type_size(clip_type_is_double(t)
                                                                           ? CLIP_F64
                                                                           : CLIP_F32),
                               &l->tmp);
    }
    return s;
}

clip_status norm_lines_launch(clip_process *p, const norm_lines *l, cl_mem x, cl_mem out) {
    const int dbl = clip_type_is_double(clip_data_type(clip_proc_input(p, 0)));
    const float pf = (float)l->p;
    const size_t psz = dbl ? sizeof l->p : sizeof pf;
    const void *pp = dbl ? (const void *)&l->p : (const void *)&pf;
    const cl_mem dst = l->kmax ? l->tmp : out;
    clip_status s = CLIP_OK;
    if (l->global) {
        s = clip_proc_arg(p, l->k, 0, sizeof x, &x);
        if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 1, sizeof l->pre, &l->pre);
        if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 2, sizeof l->n, &l->n);
        if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 3, sizeof l->post, &l->post);
        if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 4, psz, pp);
        if (s == CLIP_OK) s = clip_proc_arg(p, l->k, 5, sizeof dst, &dst);
        if (s == CLIP_OK) s = clip_proc_enqueue(p, l->k, 1, &l->global, &l->local);
    }
    if (s != CLIP_OK || !l->kmax) return s;
    const cl_ulong len = l->pre * l->post;
    s = clip_proc_arg(p, l->kmax, 0, sizeof l->tmp, &l->tmp);
    if (s == CLIP_OK) s = clip_proc_arg(p, l->kmax, 1, sizeof len, &len);
    if (s == CLIP_OK) s = clip_proc_arg(p, l->kmax, 2, sizeof out, &out);
    if (s == CLIP_OK) s = clip_proc_enqueue(p, l->kmax, 1, &l->local, &l->local);
    return s;
}
