/* norm internals shared by processes/norm.c (descriptor, vector norms, dispatch),
 * norm_lines.c (norms along a dimension; matrix 1- and Inf-norms) and norm_svd.c (the matrix
 * 2-norm). */
#ifndef CLIP_PROCESSES_NORM_H
#define CLIP_PROCESSES_NORM_H

#include "clip/process_author.h"

/* Norms of the lines of x along one dimension: x viewed as pre x n x post (n = the dimension's
 * length), one norm per (i, k) written at out[i + pre*k]; with a max, their NaN-propagating
 * maximum at out[0] instead. */
typedef struct norm_lines {
    cl_kernel k, kmax; /* kmax: NULL without the max */
    cl_mem tmp;        /* the line norms before the max */
    cl_ulong pre, n, post;
    size_t local, global;
    double p;
} norm_lines;

/* Prepares the norms of order pv (> 0, Inf or -Inf) along dimension `dim` (0-based; past the
 * last dimension every element is its own line) of x, and with `with_max` their maximum. */
clip_status norm_lines_init(clip_process *p, norm_lines *l, clip_data *x, int dim, double pv,
                            int with_max);
/* Enqueues them from x's buffer into out (pre*post values, or 1 with the max). */
clip_status norm_lines_launch(clip_process *p, const norm_lines *l, cl_mem x, cl_mem out);

/* The 2-norm of a matrix, its largest singular value (norm_svd.c). */
typedef struct norm_svd {
    norm_lines maxabs;        /* max |a_ij|, which sets the scaling */
    clip_data *probe, *ab;    /* read back during launch: max |a_ij|; alpha, beta */
    cl_kernel gemv_n, gemv_h, nrm, start;
    cl_mem u, v, c, pre;      /* Lanczos bases U (m x kmax), V (n x kmax+1); coefficients */
    size_t m, n, kmax, local;
    clip_type t;
} norm_svd;

clip_status norm_svd_init(clip_process *p, norm_svd *s, clip_data *x);
/* Runs to convergence; blocks (reads back a few values per block of steps) and writes the
 * result into out, a 1x1 real of x's precision. */
clip_status norm_svd_launch(clip_process *p, norm_svd *s, cl_mem x, cl_mem out);
void norm_svd_release(norm_svd *s);

#endif
