/* The app context: devices, contexts, queues, program cache, reference counting. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "host_pinned.h"
#include "host_pool.h"
#include "internal.h"

void clip_programs_release(clip_app *app);

/* clCreateCommandQueue is deprecated in 2.0 but is the 1.2 baseline's only choice. */
static cl_command_queue new_queue(cl_context ctx, cl_device_id dev, cl_int *e) {
    return CLIP_FAULT(CLIP_FAULT_ALLOC)
               ? (*e = CL_OUT_OF_RESOURCES, NULL)
               : clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, e);
}

/* CLIP_TEST_MAX_ALLOC lowers the largest allocation, so tests reach the streamed paths with
 * small data; it never raises it. */
static void apply_test_limit(clip_device_info *info) {
    const char *env = getenv("CLIP_TEST_MAX_ALLOC");
    if (!env || !*env) return;
    char *end = NULL;
    unsigned long long v = strtoull(env, &end, 10);
    if (end && *end == '\0' && v > 0 && v < info->max_alloc) info->max_alloc = v;
}

/* Read once per device when the app opens it (see clip_device_memory). */
static clip_device_memory read_memory(cl_device_id dev) {
    clip_device_memory m = {0, 0};
    cl_bool unified = CL_FALSE;
    cl_uint bits = 0;
    if (clGetDeviceInfo(dev, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified, NULL) !=
        CL_SUCCESS)
        return m;
    m.own_memory = !unified;
    if (unified == CL_TRUE &&
        clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL) == CL_SUCCESS)
        m.in_place_align = bits / 8 > sizeof(void *) ? bits / 8 : sizeof(void *);
    return m;
}

/* One context per platform: devices[i] shares the context of the first device of its platform. */
static clip_status make_contexts(clip_app *app, const clip_chosen_device *ch) {
    for (int i = 0; i < app->n_devices; i++) {
        int first = i;
        for (int j = 0; j < i; j++)
            if (ch[j].platform == ch[i].platform) {
                first = j;
                break;
            }
        if (first < i) {
            app->contexts[i] = app->contexts[first];
            clRetainContext(app->contexts[i]);
            continue;
        }
        cl_device_id same[CLIP_MAX_APP_DEVICES];
        cl_uint n = 0;
        for (int j = i; j < app->n_devices; j++)
            if (ch[j].platform == ch[i].platform) same[n++] = ch[j].device;
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)ch[i].platform,
                                         0};
        cl_int e = CL_SUCCESS;
        app->contexts[i] = CLIP_FAULT(CLIP_FAULT_ALLOC)
                               ? (e = CL_OUT_OF_HOST_MEMORY, NULL)
                               : clCreateContext(props, n, same, NULL, NULL, &e);
        if (e != CL_SUCCESS) {
            app->contexts[i] = NULL;
            return clip_set_error(NULL, CLIP_ERR_OPENCL, "app_create: clCreateContext on '%s': %s",
                                  ch[i].info.name, clip_cl_error_name(e));
        }
    }
    return CLIP_OK;
}

static void free_app(clip_app *app) {
    const int root = !app->parent;
    for (int d = 0; d < CLIP_MAX_APP_DEVICES; d++)
        for (int l = CLIP_LANES - 1; l >= 0; l--)
            clip_app_release(app->lanes[d][l]);
    if (app->queue) {
        clFinish(app->queue);
        clip_buffer_pool_release(app);
        clip_pinned_pool_release(app);
        clip_programs_release(app);
        clReleaseCommandQueue(app->queue);
    }
    for (int i = 0; i < app->n_devices; i++)
        if (app->contexts[i]) clReleaseContext(app->contexts[i]);
    free(app);
    if (root) clip_host_pool_app_closed();
}

clip_status clip_app_create(clip_app **out, const clip_criteria *crit) {
    clip_clear_error(NULL);
    if (!out) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "app_create: out is NULL");
    *out = NULL;
    clip_registry_ensure();
    clip_chosen_device *ch = calloc(CLIP_MAX_APP_DEVICES, sizeof *ch);
    clip_app *app = calloc(1, sizeof *app);
    if (!app || !ch) {
        free(app);
        free(ch);
        return clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "app_create: out of memory");
    }
    clip_host_pool_app_opened(); /* closed by free_app, on every path from here */
    clip_status s = clip_choose_devices(crit, ch, &app->n_devices);
    for (int i = 0; s == CLIP_OK && i < app->n_devices; i++) {
        app->devices[i] = ch[i].device;
        app->infos[i] = ch[i].info;
        app->memories[i] = read_memory(ch[i].device);
        if (crit && crit->disable_fp64) app->infos[i].fp64 = 0;
        apply_test_limit(&app->infos[i]);
    }
    if (s == CLIP_OK) s = make_contexts(app, ch);
    cl_platform_id platform = app->n_devices ? ch[0].platform : NULL;
    free(ch);
    if (s != CLIP_OK) {
        free_app(app);
        return s;
    }
    app->platform = platform;
    app->device = app->devices[0];
    app->info = app->infos[0];
    app->memory = app->memories[0];
    app->fp64 = app->info.fp64;
    app->context = app->contexts[0];
    cl_int e = CL_SUCCESS;
    app->queue = new_queue(app->context, app->device, &e);
    if (e != CL_SUCCESS) {
        app->queue = NULL;
        free_app(app);
        return clip_set_error(NULL, CLIP_ERR_OPENCL, "app_create: clCreateCommandQueue: %s",
                              clip_cl_error_name(e));
    }
    app->refs = 1;
    app->user_alive = 1;
    *out = app;
    return CLIP_OK;
}

/* A lane: a single-device app on device d of `app`, with its own queue, sharing the context and
 * (through program_home) the programs built for that device. */
static clip_status make_lane(clip_app *app, int d, int l) {
    clip_app *lane = calloc(1, sizeof *lane);
    if (!lane) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "out of memory for a queue");
    lane->n_devices = 1;
    lane->info = lane->infos[0] = app->infos[d];
    lane->memory = lane->memories[0] = app->memories[d];
    lane->fp64 = lane->info.fp64;
    lane->device = lane->devices[0] = app->devices[d];
    lane->context = lane->contexts[0] = app->contexts[d];
    clRetainContext(lane->context);
    lane->parent = app;
    lane->program_home = l > 0 ? app->lanes[d][0] : d == 0 ? app : NULL;
    cl_int e = CL_SUCCESS;
    lane->queue = new_queue(lane->context, lane->device, &e);
    if (e != CL_SUCCESS) {
        lane->queue = NULL;
        free_app(lane);
        return clip_set_error(app, CLIP_ERR_OPENCL, "clCreateCommandQueue on device '%s': %s",
                              app->infos[d].name, clip_cl_error_name(e));
    }
    lane->refs = 1;
    app->lanes[d][l] = lane;
    return CLIP_OK;
}

clip_status clip_app_make_lanes(clip_app *app) {
    for (int d = 0; d < app->n_devices; d++)
        for (int l = 0; l < CLIP_LANES; l++) {
            if (app->lanes[d][l]) continue;
            clip_status s = make_lane(app, d, l);
            if (s != CLIP_OK) return s;
        }
    return CLIP_OK;
}

void clip_app_retain(clip_app *app) {
    app->refs++;
}

void clip_app_release(clip_app *app) {
    if (!app || --app->refs > 0) return;
    free_app(app);
}

void clip_app_destroy(clip_app *app) {
    if (!app || !app->user_alive) return;
    app->user_alive = 0;
    clip_app_release(app);
}

const clip_device_info *clip_app_device(const clip_app *app) {
    return app ? &app->info : NULL;
}

int clip_app_device_count(const clip_app *app) {
    return app ? app->n_devices : 0;
}

const clip_device_info *clip_app_device_at(const clip_app *app, int i) {
    return app && i >= 0 && i < app->n_devices ? &app->infos[i] : NULL;
}

clip_status clip_app_finish(clip_app *app) {
    if (!app) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "app_finish: app is NULL");
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE) ? CL_OUT_OF_RESOURCES : clFinish(app->queue);
    if (e != CL_SUCCESS)
        return clip_set_error(app, CLIP_ERR_OPENCL, "app_finish: clFinish: %s",
                              clip_cl_error_name(e));
    return CLIP_OK;
}

clip_status clip_app_transfer_stats(const clip_app *app, clip_transfer_stats *stats) {
    if (!app || !stats)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "app_transfer_stats: NULL argument");
    *stats = app->stats;
    return CLIP_OK;
}
