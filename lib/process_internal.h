/* The process object behind the opaque handle; shared by lib/process*.c only. */
#ifndef CLIP_PROCESS_INTERNAL_H
#define CLIP_PROCESS_INTERNAL_H

#include "internal.h"

#define CLIP_PROCESS_MAX_IO 8

struct clip_process {
    clip_app *app;
    const clip_process_desc *desc;
    void *state;
    double *values;                             /* one per parameter; choices store the index */
    int *named;                                 /* per parameter: index of the name a REAL with
                                                   names holds (its value is then NaN), or -1 */
    clip_data *inputs[CLIP_PROCESS_MAX_IO];
    clip_data *outputs[CLIP_PROCESS_MAX_IO];
    int user_output[CLIP_PROCESS_MAX_IO];       /* output given by the user, not created by init */
    int initialized;
    cl_kernel *kernels;
    size_t n_kernels, cap_kernels;
    cl_mem *temps;
    size_t n_temps, cap_temps;
    cl_event *events;                           /* of the last launch */
    size_t n_events, cap_events;
    int launched;
    cl_kernel convert_kernel[CLIP_PROCESS_MAX_IO]; /* set when input i is converted */
    cl_mem convert_mem[CLIP_PROCESS_MAX_IO];       /* the converted copy (one of temps) */
    char variant[64];
};

/* Index of parameter `name` in the descriptor, or -1. */
int clip_param_index(const clip_process_desc *d, const char *name);

#endif
