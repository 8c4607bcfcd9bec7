/* clip-mpi's outputs: the words that name them (x.cfl, or a MAT 7.3 variable x.mat, x.mat:NAME)
 * and the files written by boxes (a CFL pair through clip_cfl_writer, a MAT 7.3 variable through
 * clip_mat73_writer: rank 0 creates the temporary, the others join it, and rank 0 commits after
 * every rank flushed). */
#ifndef CLIP_MPI_OUTPUTS_H
#define CLIP_MPI_OUTPUTS_H

#include "clip/plan.h"
#include "inputs.h"
#include "io_thread.h"

/* Output j of the plan in a new temporary for the word parsed into *o (rank 0). */
clip_status out_create(clip_app *app, const input *o, const clip_plan_info *info, int j,
                       out_writer *w);
/* The temporary's name, for the other ranks. */
const char *out_temp(const out_writer *w);
/* The temporary `temp` rank 0 made for output j, opened by another rank. */
clip_status out_join(clip_app *app, const input *o, const char *temp, const clip_plan_info *info,
                     int j, out_writer *w);
/* Ends *w (see clip_cfl_writer_finish, clip_mat73_writer_finish); *w is empty after. NULL writers:
 * CLIP_OK. */
clip_status out_finish(out_writer *w, int commit);
/* A whole output (run whole on rank 0, or combined there) saved as clip run saves it; a .mat
 * output as MAT 7.3 too, the format of the outputs written by boxes. */
clip_status out_save_whole(clip_app *app, const input *o, clip_data *d);

#endif
