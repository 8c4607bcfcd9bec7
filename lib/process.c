/* Process lifecycle: create, inputs/outputs, init, launch, timing, destroy. */
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "process_internal.h"

static void release_events(clip_process *p) {
    for (size_t i = 0; i < p->n_events; i++)
        clReleaseEvent(p->events[i]);
    p->n_events = 0;
}

/* Frees everything init made: the process's own state, kernels, temporaries, auto outputs. */
static void release_init(clip_process *p);
void clip_process_release_init(clip_process *p) {
    release_init(p);
}

static void release_init(clip_process *p) {
    clip_plan_free(p->plan);
    p->plan = NULL;
    if (p->desc->release) p->desc->release(p);
    if (p->state && p->desc->state_size) memset(p->state, 0, p->desc->state_size);
    for (size_t i = 0; i < p->n_kernels; i++)
        clReleaseKernel(p->kernels[i]);
    p->n_kernels = 0;
    for (size_t i = 0; i < p->n_temps; i++)
        clReleaseMemObject(p->temps[i]);
    p->n_temps = 0;
    for (int i = 0; i < CLIP_PROCESS_MAX_IO; i++) {
        p->convert_kernel[i] = NULL; /* released with the kernels above */
        p->convert_mem[i] = NULL;    /* released with the temps above */
        if (p->outputs[i] && !p->user_output[i]) {
            clip_data_destroy(p->outputs[i]);
            p->outputs[i] = NULL;
        }
    }
    for (int i = 0; i < CLIP_PROCESS_MAX_IO; i++) {
        free(p->seen[i]);
        p->seen[i] = NULL;
        p->seen_bytes[i] = 0;
    }
    p->initialized = 0;
    p->planned = 0;
    p->detached = 0;
    p->reusable = 0;
    memset(p->combine, 0, sizeof p->combine);
    p->variant[0] = '\0';
}

clip_status clip_process_create(clip_app *app, const char *name, clip_process **out) {
    if (!out) return clip_set_error(app, CLIP_ERR_INVALID_ARG, "process_create: out is NULL");
    *out = NULL;
    if (!app || !name)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "process_create: app or name is NULL");
    clip_clear_error(app);
    const clip_process_desc *d = clip_process_find(name);
    if (!d) {
        char list[1024] = "";
        size_t n = clip_process_count(), off = 0;
        for (size_t i = 0; i < n && off < sizeof list; i++)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "",
                                    clip_process_nth(i)->name);
        return clip_set_error(app, CLIP_ERR_UNKNOWN_PROCESS, "no process named '%s' (known: %s)",
                              name, list);
    }
    if (d->n_inputs > CLIP_PROCESS_MAX_IO || d->n_outputs > CLIP_PROCESS_MAX_IO)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "process '%s' has too many inputs/outputs",
                              name);
    clip_process *p = calloc(1, sizeof *p);
    if (!p) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "process_create: out of memory");
    p->desc = d;
    p->app = app;
    if (d->state_size) p->state = calloc(1, d->state_size);
    if (d->n_params) p->values = calloc((size_t)d->n_params, sizeof *p->values);
    if (d->n_params) p->named = calloc((size_t)d->n_params, sizeof *p->named);
    if ((d->state_size && !p->state) || (d->n_params && (!p->values || !p->named))) {
        free(p->state);
        free(p->values);
        free(p->named);
        free(p);
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "process_create: out of memory");
    }
    for (int i = 0; i < d->n_params; i++)
        p->values[i] = d->params[i].def, p->named[i] = -1;
    clip_app_retain(app);
    *out = p;
    return CLIP_OK;
}

void clip_process_destroy(clip_process *p) {
    if (!p) return;
    /* Its kernels and temporaries may still be in use by enqueued work. */
    clFinish(p->app->queue);
    release_init(p);
    release_events(p);
    for (int i = 0; i < CLIP_PROCESS_MAX_IO; i++) {
        clip_data_destroy(p->inputs[i]);
        if (p->user_output[i]) clip_data_destroy(p->outputs[i]);
    }
    free(p->kernels);
    free(p->temps);
    free(p->events);
    free(p->split_ms);
    free(p->values);
    free(p->named);
    free(p->state);
    clip_app *app = p->app;
    free(p);
    clip_app_release(app);
}

clip_status clip_process_set_input(clip_process *p, int index, clip_data *d) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_input: process is NULL");
    if (!d || index < 0 || index >= p->desc->n_inputs)
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG,
                              "%s: set_input: %s (the process has %d input%s)", p->desc->name,
                              d ? "index out of range" : "data is NULL", p->desc->n_inputs,
                              p->desc->n_inputs == 1 ? "" : "s");
    if (d->app != p->app)
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG,
                              "%s: set_input: data belongs to another app", p->desc->name);
    clip_data_retain(d);
    clip_data_destroy(p->inputs[index]);
    p->inputs[index] = d;
    p->initialized = p->detached = 0;
    return CLIP_OK;
}

clip_status clip_process_set_output(clip_process *p, int index, clip_data *d) {
    if (!p)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_output: process is NULL");
    if (!d || index < 0 || index >= p->desc->n_outputs)
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG, "%s: set_output: %s", p->desc->name,
                              d ? "index out of range" : "data is NULL");
    if (d->app != p->app)
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG,
                              "%s: set_output: data belongs to another app", p->desc->name);
    /* Retained first: d may be the output init made, which release_init destroys. */
    clip_data_retain(d);
    release_init(p);
    if (p->user_output[index]) clip_data_destroy(p->outputs[index]);
    p->outputs[index] = d;
    p->user_output[index] = 1;
    return CLIP_OK;
}

/* Data the device cannot hold is an error here, in init, not a driver failure at launch. */
static clip_status check_limits(clip_process *p) {
    const clip_device_info *dev = &p->app->info;
    p->over_limit = 1; /* until every size is found to fit */
    uint64_t total = 0;
    for (int i = 0; i < CLIP_PROCESS_MAX_IO; i++) {
        clip_data *d[2] = {i < p->desc->n_inputs ? p->inputs[i] : NULL,
                           i < p->desc->n_outputs ? p->outputs[i] : NULL};
        for (int k = 0; k < 2; k++) {
            if (!d[k]) continue;
            if (d[k]->bytes > dev->max_alloc) {
                char dims[128];
                return clip_set_error(p->app, CLIP_ERR_OUT_OF_MEMORY,
                                      "%s: %s %d is %s %s (%zu bytes), more than the largest "
                                      "allocation of device '%s' (%llu bytes)",
                                      p->desc->name, k ? "output" : "input", i,
                                      clip_dims_str(d[k], dims, sizeof dims),
                                      clip_type_name(d[k]->type), d[k]->bytes, dev->name,
                                      (unsigned long long)dev->max_alloc);
            }
            total += d[k]->bytes;
        }
    }
    p->over_limit = dev->global_mem && total > dev->global_mem;
    if (p->over_limit)
        return clip_set_error(p->app, CLIP_ERR_OUT_OF_MEMORY,
                              "%s: inputs and outputs need %llu bytes, more than device '%s' has "
                              "(%llu bytes)",
                              p->desc->name, (unsigned long long)total, dev->name,
                              (unsigned long long)dev->global_mem);
    return CLIP_OK;
}

/* The process's own init, checked against the device's limits and for its outputs. */
static clip_status init_whole(clip_process *p) {
    clip_status s = p->desc->init(p);
    if (s == CLIP_OK) s = check_limits(p);
    for (int i = 0; i < p->desc->n_outputs && s == CLIP_OK; i++)
        if (!p->outputs[i])
            s = clip_set_error(p->app, CLIP_ERR_INVALID_ARG, "%s: init did not create output %d",
                               p->desc->name, i);
    return s;
}

/* Splits through the process's plan hook: always in an app of several devices, and in one of a
 * single device when the whole work would not fit it, by its sizes (a failed allocation of data
 * that fits stays an error). The first error is kept when the plan cannot help. Lanes never
 * split: their pieces were made to fit. */
static clip_status init_split_or_whole(clip_process *p) {
    int can_split = p->desc->plan && !p->app->parent;
    int whole = 1;
    clip_status s = CLIP_OK;
    if (can_split && p->app->n_devices > 1) s = clip_plan_make(p, &whole);
    if (s != CLIP_OK || !whole) return s;
    p->over_limit = 0;
    s = init_whole(p);
    if (s != CLIP_ERR_OUT_OF_MEMORY || !p->over_limit || !can_split || p->app->n_devices > 1)
        return s;
    char first[CLIP_ERRMSG_MAX];
    snprintf(first, sizeof first, "%s", p->app->error);
    release_init(p);
    clip_status t = clip_plan_make(p, &whole);
    if (t == CLIP_OK && !whole) {
        clip_clear_error(p->app); /* the whole attempt's message is not this init's outcome */
        return CLIP_OK;
    }
    if (t == CLIP_OK) clip_set_error(p->app, s, "%s", first);
    return t == CLIP_OK ? s : t;
}

/* CLIP_ERR_UNKNOWN_PARAM when the process read a parameter its table lacks (a silent 0). */
static clip_status unknown_param_read(clip_process *p, const char *when) {
    if (!p->unknown_param[0]) return CLIP_OK;
    return clip_set_error(p->app, CLIP_ERR_UNKNOWN_PARAM,
                          "%s: its %s read parameter '%s', which its table does not declare",
                          p->desc->name, when, p->unknown_param);
}

/* The largest input whose values a rebind compares; an init that read a larger one's values makes
 * every rebind init again. */
#define REBIND_VALUES_MAX ((size_t)1 << 20)

/* Records the types and dims the init just done saw and, for a process that may be rebound, a copy
 * of the values init read of each input (seen through the input's read count; reads_before holds
 * the counts before init). A copy that cannot be made makes rebinds init again. */
static void record_io(clip_process *p, const unsigned long *reads_before) {
    p->reusable = p->desc->rebind && !p->plan && !p->planned;
    for (int k = 0; k < 2; k++) {
        const int n = k ? p->desc->n_outputs : p->desc->n_inputs;
        for (int i = 0; i < n; i++) {
            const clip_data *d = k ? p->outputs[i] : p->inputs[i];
            p->io_type[k][i] = d->type;
            p->io_ndims[k][i] = d->ndims;
            memcpy(p->io_dims[k][i], d->dims, sizeof d->dims);
        }
    }
    for (int i = 0; i < p->desc->n_inputs && p->reusable; i++) {
        clip_data *d = p->inputs[i];
        if (d->host_reads == reads_before[i] || d->bytes == 0) continue;
        p->seen[i] = d->bytes <= REBIND_VALUES_MAX ? malloc(d->bytes) : NULL;
        if (!p->seen[i] || clip_data_read(d, p->seen[i]) != CLIP_OK) {
            clip_clear_error(p->app); /* not init's failure: rebinds init again */
            p->reusable = 0;
            continue;
        }
        p->seen_bytes[i] = d->bytes;
    }
}

clip_status clip_process_init(clip_process *p) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_init: process is NULL");
    clip_clear_error(p->app);
    release_init(p);
    for (int i = 0; i < p->desc->n_inputs; i++)
        if (!p->inputs[i])
            return clip_set_error(p->app, CLIP_ERR_MISSING_INPUT, "%s: input %d (%s) is not set",
                                  p->desc->name, i, p->desc->input_names[i]);
    p->unknown_param[0] = '\0';
    unsigned long reads[CLIP_PROCESS_MAX_IO];
    for (int i = 0; i < p->desc->n_inputs; i++)
        reads[i] = p->inputs[i]->host_reads;
    clip_status s = init_split_or_whole(p);
    if (p->unknown_param[0]) s = unknown_param_read(p, "init"); /* the cause of any other error */
    if (s != CLIP_OK) {
        release_init(p);
        return s;
    }
    record_io(p, reads);
    p->initialized = 1;
    return CLIP_OK;
}

/* Copies a split launch's times out of its plan (see last_split). */
static clip_status keep_split_times(clip_process *p) {
    size_t n = clip_plan_piece_times(p->plan, NULL, 0);
    if (n > p->n_split) {
        double *ms = realloc(p->split_ms, n * sizeof *ms);
        if (!ms)
            return clip_set_error(p->app, CLIP_ERR_OUT_OF_MEMORY, "%s: launch: out of memory",
                                  p->desc->name);
        p->split_ms = ms;
    }
    p->n_split = clip_plan_piece_times(p->plan, p->split_ms, n);
    p->split_wall_ms = clip_plan_wall_ms(p->plan);
    p->last_split = 1;
    return CLIP_OK;
}

clip_status clip_process_launch(clip_process *p) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_launch: process is NULL");
    clip_clear_error(p->app);
    if (!p->initialized)
        return clip_set_error(p->app, CLIP_ERR_NOT_INITIALIZED,
                              "%s: launch before a successful init", p->desc->name);
    release_events(p);
    p->last_untimed = p->untimed;
    p->last_split = 0;
    clip_status s = p->plan ? clip_plan_launch(p) : p->desc->launch(p);
    if (p->unknown_param[0]) s = unknown_param_read(p, "launch");
    if (s == CLIP_OK && p->plan) s = keep_split_times(p);
    if (s == CLIP_OK) p->launched = 1;
    return s;
}

clip_status clip_process_output(clip_process *p, int index, clip_data **out) {
    if (!p || !out)
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "process_output: NULL argument");
    *out = NULL;
    if (index < 0 || index >= p->desc->n_outputs)
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG, "%s: output %d does not exist",
                              p->desc->name, index);
    if (!p->initialized && !p->planned)
        return clip_set_error(p->app, CLIP_ERR_NOT_INITIALIZED,
                              "%s: output asked for before a successful init", p->desc->name);
    *out = p->outputs[index];
    return CLIP_OK;
}

/* Waits for the last launch's commands (CLIP_ERR_NOT_INITIALIZED before any launch). */
static clip_status wait_launch(clip_process *p, const char *what) {
    if (!p->launched)
        return clip_set_error(p->app, CLIP_ERR_NOT_INITIALIZED, "%s: %s asked for before a launch",
                              p->desc->name, what);
    if (!p->n_events) return CLIP_OK;
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE) ? CL_OUT_OF_RESOURCES
                                              : clWaitForEvents((cl_uint)p->n_events, p->events);
    if (e != CL_SUCCESS)
        return clip_set_error(p->app, CLIP_ERR_OPENCL, "%s: clWaitForEvents: %s", p->desc->name,
                              clip_cl_error_name(e));
    return CLIP_OK;
}

/* CLIP_ERR_INVALID_ARG when p's last launch kept no times (clip_process_set_timing). */
static clip_status timing_on(clip_process *p, const char *what) {
    if (!p->launched || !p->last_untimed) return CLIP_OK;
    return clip_set_error(p->app, CLIP_ERR_INVALID_ARG,
                          "%s: %s asked for of a launch with timing off (clip_process_set_timing)",
                          p->desc->name, what);
}

/* Command i's profiling interval, start and end in ns. */
static clip_status event_interval(clip_process *p, size_t i, cl_ulong *t0, cl_ulong *t1) {
    cl_int e =
        clGetEventProfilingInfo(p->events[i], CL_PROFILING_COMMAND_START, sizeof *t0, t0, NULL);
    if (e == CL_SUCCESS)
        e = clGetEventProfilingInfo(p->events[i], CL_PROFILING_COMMAND_END, sizeof *t1, t1, NULL);
    if (e != CL_SUCCESS)
        return clip_set_error(p->app, CLIP_ERR_OPENCL, "%s: clGetEventProfilingInfo: %s",
                              p->desc->name, clip_cl_error_name(e));
    return CLIP_OK;
}

clip_status clip_process_set_timing(clip_process *p, int on) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_timing: NULL process");
    p->untimed = !on;
    return CLIP_OK;
}

clip_status clip_process_time_ms(clip_process *p, double *ms) {
    if (!p || !ms)
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "process_time_ms: NULL argument");
    *ms = 0.0;
    clip_status s = timing_on(p, "time");
    if (s == CLIP_OK) s = wait_launch(p, "time");
    if (s == CLIP_OK && p->last_split) {
        *ms = p->split_wall_ms; /* its pieces ran concurrently on several queues */
        return CLIP_OK;
    }
    double total = 0.0;
    for (size_t i = 0; i < p->n_events && s == CLIP_OK; i++) {
        cl_ulong t0 = 0, t1 = 0;
        s = event_interval(p, i, &t0, &t1);
        total += (double)(t1 - t0) * 1e-6;
    }
    if (s == CLIP_OK) *ms = total;
    return s;
}

clip_status clip_process_command_times(clip_process *p, double *ms, size_t cap, size_t *count,
                                       double *span_ms) {
    if (!p || !count || (cap && !ms))
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "process_command_times: NULL argument");
    *count = 0;
    if (span_ms) *span_ms = 0.0;
    clip_status s = timing_on(p, "command times");
    if (s == CLIP_OK) s = wait_launch(p, "command times");
    if (s == CLIP_OK && p->last_split) {
        for (size_t i = 0; i < p->n_split && i < cap; i++)
            ms[i] = p->split_ms[i];
        *count = p->n_split;
        if (span_ms) *span_ms = p->split_wall_ms;
        return CLIP_OK;
    }
    cl_ulong first = 0, last = 0;
    for (size_t i = 0; i < p->n_events && s == CLIP_OK; i++) {
        cl_ulong t0 = 0, t1 = 0;
        s = event_interval(p, i, &t0, &t1);
        if (i < cap) ms[i] = (double)(t1 - t0) * 1e-6;
        if (i == 0 || t0 < first) first = t0;
        if (i == 0 || t1 > last) last = t1;
    }
    if (s != CLIP_OK) return s;
    *count = p->n_events;
    if (span_ms) *span_ms = (double)(last - first) * 1e-6;
    return CLIP_OK;
}

void clip_process_unbind(clip_process *p) {
    if (!p) return;
    release_init(p);
    for (int i = 0; i < CLIP_PROCESS_MAX_IO; i++) {
        clip_data_destroy(p->inputs[i]);
        if (p->user_output[i]) clip_data_destroy(p->outputs[i]);
        p->inputs[i] = p->outputs[i] = NULL;
        p->user_output[i] = 0;
    }
}

const char *clip_process_variant(const clip_process *p) {
    return p ? p->variant : "";
}
const clip_process_desc *clip_process_descriptor(const clip_process *p) {
    return p ? p->desc : NULL;
}

/* CLIP_ERR_TYPE / CLIP_ERR_SHAPE unless d has the type and dims the last init saw of input
 * (k = 0) or output (k = 1) i. */
static clip_status check_kind(clip_process *p, int k, int i, const clip_data *d) {
    const char *what = k ? "output" : "input";
    const char *name = k ? p->desc->output_names[i] : p->desc->input_names[i];
    if (d->type != p->io_type[k][i])
        return clip_set_error(p->app, CLIP_ERR_TYPE,
                              "%s: rebind: %s %d (%s) is %s, the init saw %s (set it and init "
                              "again for another type)",
                              p->desc->name, what, i, name, clip_type_name(d->type),
                              clip_type_name(p->io_type[k][i]));
    if (d->ndims == p->io_ndims[k][i] && !memcmp(d->dims, p->io_dims[k][i], sizeof d->dims))
        return CLIP_OK;
    char have[128], had[128];
    return clip_set_error(p->app, CLIP_ERR_SHAPE,
                          "%s: rebind: %s %d (%s) is %s, the init saw %s (set it and init again "
                          "for another shape)",
                          p->desc->name, what, i, name, clip_dims_str(d, have, sizeof have),
                          clip_shape_str(p->io_ndims[k][i], p->io_dims[k][i], had, sizeof had));
}

/* Whether every input whose values init read holds the same bytes now. */
static clip_status same_values(clip_process *p, clip_data *const *inputs, int *same) {
    *same = 1;
    for (int i = 0; i < p->desc->n_inputs && *same; i++) {
        if (!p->seen[i]) continue;
        const void *h = NULL;
        clip_status s = clip_data_host(inputs[i], &h);
        if (s != CLIP_OK) return s;
        *same = !memcmp(h, p->seen[i], p->seen_bytes[i]);
    }
    return CLIP_OK;
}

/* The rebind that cannot keep init's work: the data set as set_input/set_output would, then
 * init. */
static clip_status rebind_init(clip_process *p, clip_data *const *inputs, clip_data *const *outputs,
                               int *reinit) {
    clip_status s = CLIP_OK;
    for (int i = 0; i < p->desc->n_inputs && s == CLIP_OK; i++)
        s = clip_process_set_input(p, i, inputs[i]);
    for (int i = 0; i < p->desc->n_outputs && s == CLIP_OK; i++) {
        if (outputs && outputs[i]) {
            s = clip_process_set_output(p, i, outputs[i]);
        } else if (p->user_output[i]) { /* init makes this one */
            release_init(p);
            clip_data_destroy(p->outputs[i]);
            p->outputs[i] = NULL;
            p->user_output[i] = 0;
        }
    }
    if (s == CLIP_OK) s = clip_process_init(p);
    if (s == CLIP_OK && reinit) *reinit = 1;
    return s;
}

clip_status clip_process_rebind(clip_process *p, clip_data *const *inputs,
                                clip_data *const *outputs, int *reinit) {
    if (reinit) *reinit = 0;
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_rebind: process is NULL");
    clip_clear_error(p->app);
    const clip_process_desc *D = p->desc;
    if (!inputs && D->n_inputs)
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG, "%s: rebind: inputs is NULL", D->name);
    for (int i = 0; i < D->n_inputs; i++)
        if (!inputs[i] || inputs[i]->app != p->app)
            return clip_set_error(p->app, CLIP_ERR_INVALID_ARG, "%s: rebind: input %d (%s) %s",
                                  D->name, i, D->input_names[i],
                                  inputs[i] ? "belongs to another app" : "is NULL");
    for (int i = 0; outputs && i < D->n_outputs; i++)
        if (outputs[i] && outputs[i]->app != p->app)
            return clip_set_error(p->app, CLIP_ERR_INVALID_ARG,
                                  "%s: rebind: output %d (%s) belongs to another app", D->name, i,
                                  D->output_names[i]);
    if (!p->initialized && !p->detached)
        return clip_set_error(p->app, CLIP_ERR_NOT_INITIALIZED,
                              "%s: rebind needs a successful init first (and no parameter, input "
                              "or output set since)",
                              D->name);
    clip_status s = CLIP_OK;
    for (int i = 0; i < D->n_inputs && s == CLIP_OK; i++)
        s = check_kind(p, 0, i, inputs[i]);
    for (int i = 0; outputs && i < D->n_outputs && s == CLIP_OK; i++)
        if (outputs[i]) s = check_kind(p, 1, i, outputs[i]);
    for (int i = 0; outputs && !D->in_place && i < D->n_outputs && s == CLIP_OK; i++)
        for (int j = 0; j < D->n_inputs && s == CLIP_OK; j++)
            if (outputs[i] && outputs[i] == inputs[j])
                s = clip_set_error(p->app, CLIP_ERR_INVALID_ARG,
                                   "%s: rebind: output %d is input %d: this process reads its "
                                   "inputs in another order than it writes",
                                   D->name, i, j);
    int keep = p->reusable;
    if (s == CLIP_OK && keep) s = same_values(p, inputs, &keep);
    if (s != CLIP_OK) return s;
    if (!keep) return rebind_init(p, inputs, outputs, reinit);
    /* New outputs first, so that a failure leaves the process as it was. */
    clip_data *fresh[CLIP_PROCESS_MAX_IO] = {0};
    for (int i = 0; i < D->n_outputs && s == CLIP_OK; i++)
        if (!outputs || !outputs[i])
            s = clip_data_create(p->app, p->io_type[1][i], p->io_ndims[1][i], p->io_dims[1][i],
                                 &fresh[i]);
    if (s != CLIP_OK) {
        for (int i = 0; i < D->n_outputs; i++)
            clip_data_destroy(fresh[i]);
        return s;
    }
    for (int i = 0; i < D->n_inputs; i++) {
        clip_data_retain(inputs[i]); /* first: it may be the input it replaces */
        clip_data_destroy(p->inputs[i]);
        p->inputs[i] = inputs[i];
    }
    for (int i = 0; i < D->n_outputs; i++) {
        const int given = outputs && outputs[i];
        clip_data *d = given ? clip_data_retain(outputs[i]) : fresh[i];
        clip_data_destroy(p->outputs[i]); /* the process's reference, made or given */
        p->outputs[i] = d;
        p->user_output[i] = given;
    }
    p->initialized = 1;
    p->detached = 0;
    return CLIP_OK;
}

void clip_process_detach(clip_process *p) {
    if (!p) return;
    if (!p->initialized && !p->detached) {
        clip_process_unbind(p);
        return;
    }
    const int reusable = p->reusable && !p->plan;
    if (p->plan) release_init(p); /* its pieces read these very data objects */
    for (int i = 0; i < CLIP_PROCESS_MAX_IO; i++) {
        clip_data_destroy(p->inputs[i]);
        clip_data_destroy(p->outputs[i]); /* the process's reference, made or given */
        p->inputs[i] = p->outputs[i] = NULL;
        p->user_output[i] = 0;
    }
    p->initialized = 0;
    p->detached = 1;
    p->reusable = reusable;
}
