/* clip-mpi's outputs (outputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "outputs.h"

clip_status out_create(clip_app *app, const input *o, const clip_plan_info *info, int j,
                       out_writer *w) {
    w->cfl = NULL, w->mat = NULL;
    return o->mat ? clip_mat73_writer_create(app, o->file, o->var, info->out_type[j],
                                             info->out_ndims[j], info->out_dims[j], &w->mat)
                  : clip_cfl_writer_create(app, o->base, info->out_ndims[j], info->out_dims[j],
                                           &w->cfl);
}

const char *out_temp(const out_writer *w) {
    return w->mat ? clip_mat73_writer_temp(w->mat) : clip_cfl_writer_temp(w->cfl);
}

clip_status out_join(clip_app *app, const input *o, const char *temp, const clip_plan_info *info,
                     int j, out_writer *w) {
    w->cfl = NULL, w->mat = NULL;
    return o->mat ? clip_mat73_writer_join(app, o->file, temp, o->var, info->out_type[j],
                                           info->out_ndims[j], info->out_dims[j], &w->mat)
                  : clip_cfl_writer_join(app, o->base, temp, info->out_ndims[j], info->out_dims[j],
                                         &w->cfl);
}

clip_status out_finish(out_writer *w, int commit) {
    const clip_status s = w->mat   ? clip_mat73_writer_finish(w->mat, commit)
                          : w->cfl ? clip_cfl_writer_finish(w->cfl, commit)
                                   : CLIP_OK;
    w->cfl = NULL, w->mat = NULL;
    return s;
}

clip_status out_save_whole(clip_app *app, const input *o, clip_data *d) {
    if (!o->mat) return clip_save(app, o->file, d);
    const clip_save_opts opts = {.var = o->var, .v73 = 1};
    return clip_save_with(app, o->file, d, &opts, NULL);
}
