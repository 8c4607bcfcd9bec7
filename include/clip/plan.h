/* clip — a process's plan as a value, for a runner other than the one that splits a launch over
 * the devices of one app (lib/plan.c): clip's MPI layer (mpi/), or a user's own program.
 *
 *   clip_process_create(app, "conv2", &p);  ... parameters, inputs (clip_data_create_deferred
 *                                            inputs stand for their shapes: nothing is read) ...
 *   clip_plan_info plan;
 *   clip_process_plan(p, parts, &plan);     the pieces, as plain data (copy it, send it)
 *   for each piece i this runner runs:
 *       read box plan.pieces[i].in[j] of every input j (clip_load_cfl_box, or from memory)
 *       clip_process_run_piece(q, &plan, i, boxes, outs);   q: a process of the same name and
 *                                                           parameters, on the runner's app
 *       placed output j: keep box pieces[i].keep[j] of outs[j], at pieces[i].at[j] of the whole
 *       combined output j: outs[j] is piece i's partial, the whole output's shape
 *   clip_process_combine(p, j, partials, plan.n, result);  partials in piece order
 *   clip_plan_info_free(&plan);
 *
 * The pieces depend on the shapes, types and parameters, on `parts`, and on the planning app's
 * device (its largest allocation and memory, and for some processes its compute units or tuning
 * cache: matmul's blocks). Runners on several hosts therefore plan once and send the pieces
 * (plain data: clip_piece holds only sizes) rather than plan on every host. Given the same
 * pieces, each piece's result is the same wherever it runs on devices of one model and driver,
 * and a combine in piece order makes combined outputs independent of where and when pieces ran.
 */
#ifndef CLIP_PLAN_H
#define CLIP_PLAN_H

#include "process_author.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A plan as plain data. n == 0: the process runs whole (it has no plan hook, or the hook found
 * nothing to split); then only n_inputs and n_outputs are set. */
typedef struct clip_plan_info {
    size_t n;           /* pieces */
    clip_piece *pieces; /* n pieces (malloc'd: clip_plan_info_free) */
    int n_inputs, n_outputs;
    int combined[CLIP_PROC_MAX_IO];       /* output i: partials combined (clip_process_combine),
                                             else boxes placed */
    clip_type out_type[CLIP_PROC_MAX_IO]; /* the whole outputs' types and shapes */
    int out_ndims[CLIP_PROC_MAX_IO];
    size_t out_dims[CLIP_PROC_MAX_IO][CLIP_MAX_DIMS];
} clip_plan_info;

/* Plans p's work in pieces as its launch would over `parts` devices like p's app's device: the
 * process's plan hook, with the runtime's limits (pieces that fit the device's largest
 * allocation and half its memory, streamed in pieces of at most 1 GiB when the data exceeds the
 * allocation or parts is 1). p's inputs and parameters must be set; inputs may be deferred data
 * (clip_data_create_deferred), as the hook reads shapes only. p is left planned, not initialised:
 * clip_process_output gives its outputs (deferred: no storage) and clip_process_combine may be
 * called, until p's next init, plan, input or parameter change. *out is the caller's (free it
 * with clip_plan_info_free, also after a failure). Errors: CLIP_ERR_INVALID_ARG (NULL, parts < 1),
 * CLIP_ERR_MISSING_INPUT, the hook's own (shape and type checks), CLIP_ERR_OUT_OF_MEMORY (no
 * split into pieces that fit, with the sizes). */
CLIP_API clip_status clip_process_plan(clip_process *p, int parts, clip_plan_info *out);

/* Frees what clip_process_plan put in info (not info itself). NULL is a no-op. */
CLIP_API void clip_plan_info_free(clip_plan_info *info);

/* Runs piece i of `info` on q's app, synchronously: inputs[j] holds box info->pieces[i].in[j] of
 * input j (data of exactly that box's counts and the input's type, in q's app; the values are
 * copied, the caller keeps the objects). q is a process of the planned process's name and
 * parameters, the runner's own (not the planning one). q keeps its init from its previous piece
 * while every input keeps its shape, as the runtime's lanes do (see plan in
 * clip/process_author.h; CLIP_TEST_REINIT=1 re-inits every piece). On return outputs[j] is q's
 * output j (borrowed from q until its next piece), current on the host: for a placed output the
 * runner keeps box info->pieces[i].keep[j] of it, to go at pieces[i].at[j] of the whole; for a
 * combined output it is the piece's partial, the whole output's shape. Errors: CLIP_ERR_INVALID_ARG
 * (NULL, i out of range, info of another process, a kept box outside the output), CLIP_ERR_SHAPE
 * (an input that is not its box's shape), and q's init and launch errors. */
CLIP_API clip_status clip_process_run_piece(clip_process *q, const clip_plan_info *info, size_t i,
                                            clip_data *const *inputs, clip_data **outputs);

/* Combines n partials of output `output` (each the whole output's size, one after the other in
 * piece order) into `result` (the whole output's storage) with the process's own combine
 * function, as a split launch does. p is the planned process (clip_process_plan).
 * Errors: CLIP_ERR_INVALID_ARG (NULL, an output that the last plan does not combine), and the
 * combine function's. */
CLIP_API clip_status clip_process_combine(clip_process *p, int output, const void *partials,
                                          size_t n, void *result);

#ifdef __cplusplus
}
#endif
#endif
