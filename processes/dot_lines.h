/* dot along a dimension (processes/dot_lines.c), used by processes/dot.c. */
#ifndef CLIP_PROCESSES_DOT_LINES_H
#define CLIP_PROCESSES_DOT_LINES_H

#include "clip/process_author.h"

typedef struct dot_lines {
    cl_kernel k;
    cl_ulong pre, n, post; /* the arrays as pre x n x post; n along the dimension */
    size_t local, global;
} dot_lines;

/* Prepares sum(conj(A) .* B) along dimension dim (0-based; past the last, every element is a
 * line of one) of arrays of a's size, computed in the precision of t, with each operand
 * complex or not (acx, bcx) as it arrives (clip_proc_input_as). */
clip_status dot_lines_init(clip_process *p, dot_lines *l, clip_data *a, int dim, clip_type t,
                           int acx, int bcx);
/* Enqueues it: out gets pre*post values of t (interleaved when complex). */
clip_status dot_lines_launch(clip_process *p, const dot_lines *l, cl_mem a, cl_mem b, cl_mem out);

#endif
