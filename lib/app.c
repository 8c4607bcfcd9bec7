/* The app context: context, queue, program cache, reference counting. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "internal.h"

clip_status clip_choose_device(const clip_criteria *crit, cl_platform_id *plat, cl_device_id *dev,
                               clip_device_info *info);
void clip_programs_release(clip_app *app);
void clip_registry_ensure(void);

clip_status clip_app_create(clip_app **out, const clip_criteria *crit) {
    clip_clear_error(NULL);
    if (!out) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "app_create: out is NULL");
    *out = NULL;
    clip_registry_ensure();
    clip_app *app = calloc(1, sizeof *app);
    if (!app) return clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "app_create: out of memory");
    clip_status s = clip_choose_device(crit, &app->platform, &app->device, &app->info);
    if (s != CLIP_OK) {
        free(app);
        return s;
    }
    app->fp64 = app->info.fp64 && !(crit && crit->disable_fp64);
    app->info.fp64 = app->fp64;
    cl_int e = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)app->platform, 0};
    app->context = CLIP_FAULT(CLIP_FAULT_ALLOC)
                       ? (e = CL_OUT_OF_HOST_MEMORY, NULL)
                       : clCreateContext(props, 1, &app->device, NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        clip_set_error(NULL, CLIP_ERR_OPENCL, "app_create: clCreateContext on '%s': %s",
                       app->info.name, clip_cl_error_name(e));
        free(app);
        return CLIP_ERR_OPENCL;
    }
    /* clCreateCommandQueue is deprecated in 2.0 but is the 1.2 baseline's only choice. */
    app->queue = CLIP_FAULT(CLIP_FAULT_ALLOC) ? (e = CL_OUT_OF_RESOURCES, NULL)
                                              : clCreateCommandQueue(app->context, app->device,
                                                                     CL_QUEUE_PROFILING_ENABLE, &e);
    if (e != CL_SUCCESS) {
        clReleaseContext(app->context);
        free(app);
        return clip_set_error(NULL, CLIP_ERR_OPENCL, "app_create: clCreateCommandQueue: %s",
                              clip_cl_error_name(e));
    }
    app->refs = 1;
    app->user_alive = 1;
    *out = app;
    return CLIP_OK;
}

void clip_app_retain(clip_app *app) { app->refs++; }

void clip_app_release(clip_app *app) {
    if (!app || --app->refs > 0) return;
    clFinish(app->queue);
    clip_programs_release(app);
    clReleaseCommandQueue(app->queue);
    clReleaseContext(app->context);
    free(app);
}

void clip_app_destroy(clip_app *app) {
    if (!app || !app->user_alive) return;
    app->user_alive = 0;
    clip_app_release(app);
}

const clip_device_info *clip_app_device(const clip_app *app) { return app ? &app->info : NULL; }

clip_status clip_app_finish(clip_app *app) {
    if (!app) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "app_finish: app is NULL");
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE) ? CL_OUT_OF_RESOURCES : clFinish(app->queue);
    if (e != CL_SUCCESS)
        return clip_set_error(app, CLIP_ERR_OPENCL, "app_finish: clFinish: %s", clip_cl_error_name(e));
    return CLIP_OK;
}

clip_status clip_app_transfer_stats(const clip_app *app, clip_transfer_stats *stats) {
    if (!app || !stats)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "app_transfer_stats: NULL argument");
    *stats = app->stats;
    return CLIP_OK;
}
