/* The process object behind the opaque handle; shared by lib/process*.c only. */
#ifndef CLIP_PROCESS_INTERNAL_H
#define CLIP_PROCESS_INTERNAL_H

#include "internal.h"

#define CLIP_PROCESS_MAX_IO CLIP_PROC_MAX_IO

struct clip_process {
    clip_app *app;
    const clip_process_desc *desc;
    void *state;
    double *values; /* one per parameter; choices store the index */
    int *named;     /* per parameter: index of the name a REAL with
                       names holds (its value is then NaN), or -1 */
    clip_data *inputs[CLIP_PROCESS_MAX_IO];
    clip_data *outputs[CLIP_PROCESS_MAX_IO];
    int user_output[CLIP_PROCESS_MAX_IO]; /* output given by the user, not created by init */
    int initialized;
    cl_kernel *kernels;
    size_t n_kernels, cap_kernels;
    cl_mem *temps;
    size_t n_temps, cap_temps;
    int untimed;      /* clip_process_set_timing(p, 0) */
    int last_untimed; /* the last launch was (it kept no events) */
    cl_event *events; /* of the last launch, when timed */
    size_t n_events, cap_events;
    int launched;
    cl_kernel convert_kernel[CLIP_PROCESS_MAX_IO]; /* set when input i is converted */
    cl_mem convert_mem[CLIP_PROCESS_MAX_IO];       /* the converted copy (one of temps) */
    char variant[64];
    struct clip_plan *plan; /* set when init split the work (lib/plan.c) */
    /* The last launch's times when it was split: kept here, not read from the plan, since a
     * re-init or unbind frees the plan and the times stay readable until the next launch. */
    int last_split;
    double split_wall_ms;
    double *split_ms;
    size_t n_split;
    char unknown_param[64];                       /* a name clip_proc_real & co. were asked for
                                                     that the table lacks (init/launch fail) */
    int over_limit;                               /* init met data or a temporary larger than the
                                                     device holds (not a failed allocation) */
    int planned;                                  /* clip_process_plan ran: outputs stand for
                                                     their shapes, combines may be called */
    int deferred_outputs;                         /* clip_process_plan: outputs the plan hook makes
                                                     stand for their shapes (no host storage) */
    clip_combine_fn combine[CLIP_PROCESS_MAX_IO]; /* the last clip_process_plan's combines */
    /* clip_process_rebind: what the last successful init saw. */
    int detached; /* clip_process_detach: no data bound, the record kept */
    int reusable; /* init's work may serve other data of the recorded kinds
                     (descriptor's rebind, not split, values within reach) */
    clip_type io_type[2][CLIP_PROCESS_MAX_IO]; /* [0] inputs, [1] outputs */
    int io_ndims[2][CLIP_PROCESS_MAX_IO];
    size_t io_dims[2][CLIP_PROCESS_MAX_IO][CLIP_MAX_DIMS];
    void *seen[CLIP_PROCESS_MAX_IO]; /* the values init read of input i (NULL: none read) */
    size_t seen_bytes[CLIP_PROCESS_MAX_IO];
};

/* ---- lib/plan.c: split launches ---- */
/* Asks the process's plan hook for pieces that fit every device. *whole is set (and no plan
 * kept) when the hook added none. Errors: the hook's, CLIP_ERR_OUT_OF_MEMORY (no split into
 * pieces that fit, with the sizes), CLIP_ERR_INVALID_ARG (a bad box). */
clip_status clip_plan_make(clip_process *p, int *whole);
/* Runs every piece and assembles the outputs on the host; returns when they are complete. */
clip_status clip_plan_launch(clip_process *p);
/* Frees the plan and what its launches made (waits for its queues). NULL is a no-op. */
void clip_plan_free(struct clip_plan *plan);
/* The last launch's wall time, and each piece's device time (ms) into ms[0..cap). */
double clip_plan_wall_ms(const struct clip_plan *plan);
size_t clip_plan_piece_times(const struct clip_plan *plan, double *ms, size_t cap);

/* Frees everything init made (and a plan): state, kernels, temporaries, outputs it made. */
void clip_process_release_init(clip_process *p);

/* Index of parameter `name` in the descriptor, or -1. */
int clip_param_index(const clip_process_desc *d, const char *name);

#endif
