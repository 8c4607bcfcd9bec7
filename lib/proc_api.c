/* The functions process implementations use to reach the core (clip/process_author.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "process_internal.h"

void *clip_proc_state(clip_process *p) {
    return p->state;
}
clip_app *clip_proc_app(clip_process *p) {
    return p->app;
}
const clip_device_info *clip_proc_device(clip_process *p) {
    return &p->app->info;
}
cl_device_id clip_proc_cl_device(clip_process *p) {
    return p->app->device;
}
clip_data *clip_proc_input(clip_process *p, int i) {
    return i >= 0 && i < p->desc->n_inputs ? p->inputs[i] : NULL;
}

clip_status clip_proc_fail(clip_process *p, clip_status s, const char *fmt, ...) {
    char msg[CLIP_ERRMSG_MAX - 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return clip_set_error(p->app, s, "%s: %s", p->desc->name, msg);
}

void clip_proc_set_variant(clip_process *p, const char *variant) {
    snprintf(p->variant, sizeof p->variant, "%s", variant ? variant : "");
}

/* Grows a dynamic array of `elem`-byte items to hold one more. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem) {
    if (n < *cap) return 0;
    size_t nc = *cap ? *cap * 2 : 8;
    void *a = realloc(*arr, nc * elem);
    if (!a) return -1;
    *arr = a;
    *cap = nc;
    return 0;
}

clip_status clip_proc_output(clip_process *p, int i, clip_type type, int ndims, const size_t *dims,
                             clip_data **out) {
    if (i < 0 || i >= p->desc->n_outputs)
        return clip_proc_fail(p, CLIP_ERR_INVALID_ARG, "output %d does not exist", i);
    clip_data *d = p->outputs[i];
    if (d && p->user_output[i]) {
        if (d->type != type)
            return clip_proc_fail(p, CLIP_ERR_TYPE, "output %d is %s but the result is %s", i,
                                  clip_type_name(d->type), clip_type_name(type));
        int same = 1;
        for (int k = 0; k < CLIP_MAX_DIMS; k++)
            if ((k < ndims ? dims[k] : 1) != d->dims[k]) same = 0;
        if (!same) {
            char have[128];
            return clip_proc_fail(p, CLIP_ERR_SHAPE, "output %d is %s but the result is %zux%zu%s",
                                  i, clip_dims_str(d, have, sizeof have), dims[0],
                                  ndims > 1 ? dims[1] : 1, ndims > 2 ? "x..." : "");
        }
        for (int k = 0; k < p->desc->n_inputs && !p->desc->in_place; k++)
            if (p->inputs[k] == d)
                return clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                                      "the output must not be one of the inputs (output %d is "
                                      "input %d): this process reads its inputs in another "
                                      "order than it writes",
                                      i, k);
        *out = d;
        return CLIP_OK;
    }
    if (d) {
        clip_data_destroy(d);
        p->outputs[i] = NULL;
    }
    clip_status s = p->deferred_outputs
                        ? clip_data_create_deferred(p->app, type, ndims, dims, &p->outputs[i])
                        : clip_data_create(p->app, type, ndims, dims, &p->outputs[i]);
    if (s != CLIP_OK) return s;
    *out = p->outputs[i];
    return CLIP_OK;
}

/* Creates kernel `kernel_name` of prog, owned by the process. */
static clip_status make_kernel(clip_process *p, cl_program prog, const char *where,
                               const char *kernel_name, cl_kernel *k) {
    if (grow((void **)&p->kernels, &p->cap_kernels, p->n_kernels, sizeof *p->kernels))
        return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "out of memory");
    cl_int e = CL_SUCCESS;
    cl_kernel kern = CLIP_FAULT(CLIP_FAULT_ALLOC) ? (e = CL_OUT_OF_RESOURCES, NULL)
                                                  : clCreateKernel(prog, kernel_name, &e);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clCreateKernel(%s) in %s: %s", kernel_name,
                              where, clip_cl_error_name(e));
    p->kernels[p->n_kernels++] = kern;
    *k = kern;
    return CLIP_OK;
}

clip_status clip_proc_kernel(clip_process *p, const char *source, clip_type type,
                             const char *options, const char *kernel_name, cl_kernel *k) {
    *k = NULL;
    cl_program prog = NULL;
    clip_status s = clip_program_get(p->app, source, type, options, &prog);
    if (s != CLIP_OK) return s;
    char where[96];
    snprintf(where, sizeof where, "%s.cl", source);
    return make_kernel(p, prog, where, kernel_name, k);
}

/* A user's text through the built-ins' path (clip_program_user); `what` says where it came from
 * in messages, after the process's name. */
static clip_status user_kernel(clip_process *p, const char *what, const char *text, clip_type type,
                               const char *options, const char *kernel_name, cl_kernel *k) {
    char label[320];
    snprintf(label, sizeof label, "%s (%s)", p->desc->name, what);
    cl_program prog = NULL;
    clip_status s = clip_program_user(p->app, label, text, type, options, &prog);
    if (s != CLIP_OK) return s;
    return make_kernel(p, prog, what, kernel_name, k);
}

clip_status clip_proc_kernel_source(clip_process *p, const char *source, clip_type type,
                                    const char *options, const char *kernel_name, cl_kernel *k) {
    if (k) *k = NULL;
    if (!p || !k || !kernel_name || !source)
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "proc_kernel_source: NULL argument");
    return user_kernel(p, "kernel source", source, type, options, kernel_name, k);
}
/* A kernel file's size limit: a source larger than this is not a kernel file. */
#define KERNEL_FILE_MAX (16u << 20)

clip_status clip_proc_kernel_file(clip_process *p, const char *path, clip_type type,
                                  const char *options, const char *kernel_name, cl_kernel *k) {
    if (k) *k = NULL;
    if (!p || !k || !kernel_name || !path)
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "proc_kernel_file: NULL argument");
    FILE *f = fopen(path, "rb");
    if (!f) return clip_proc_fail(p, CLIP_ERR_IO, "kernel file '%s': %s", path, strerror(errno));
    char *text = malloc(KERNEL_FILE_MAX + 1);
    size_t n = text ? fread(text, 1, KERNEL_FILE_MAX + 1, f) : 0;
    const int bad = ferror(f);
    fclose(f);
    if (!text)
        return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "kernel file '%s': out of memory", path);
    clip_status s = CLIP_OK;
    if (bad)
        s = clip_proc_fail(p, CLIP_ERR_IO, "kernel file '%s': read error", path);
    else if (n > KERNEL_FILE_MAX)
        s = clip_proc_fail(p, CLIP_ERR_IO, "kernel file '%s' is larger than %u bytes", path,
                           KERNEL_FILE_MAX);
    if (s == CLIP_OK) {
        text[n] = '\0';
        char what[300];
        snprintf(what, sizeof what, "kernel file '%s'", path);
        s = user_kernel(p, what, text, type, options, kernel_name, k);
    }
    free(text);
    return s;
}

void clip_proc_options_from_env(char *buf, size_t cap, const char *var) {
    const char *extra = getenv(var);
    const size_t used = strlen(buf);
    if (extra && *extra && used + 1 + strlen(extra) < cap)
        snprintf(buf + used, cap - used, " %s", extra);
}

clip_status clip_proc_read_buffer(clip_process *p, clip_data *d, cl_mem *mem) {
    (void)p;
    *mem = NULL;
    clip_status s = clip_data_to_device(d);
    if (s != CLIP_OK) return s;
    *mem = d->mem;
    return CLIP_OK;
}

clip_status clip_proc_write_buffer(clip_process *p, clip_data *d, int keep, cl_mem *mem) {
    (void)p;
    *mem = NULL;
    clip_status s = keep ? clip_data_to_device(d) : clip_data_ensure_buffer(d);
    if (s != CLIP_OK) return s;
    clip_data_mark_device_written(d);
    *mem = d->mem;
    return CLIP_OK;
}

clip_status clip_proc_temp(clip_process *p, size_t bytes, cl_mem *mem) {
    *mem = NULL;
    if (bytes == 0) return clip_proc_fail(p, CLIP_ERR_INVALID_ARG, "temporary of 0 bytes");
    if (bytes > p->app->info.max_alloc) {
        p->over_limit = 1;
        return clip_proc_fail(
            p, CLIP_ERR_OUT_OF_MEMORY,
            "temporary of %zu bytes exceeds the device's largest allocation (%llu)", bytes,
            (unsigned long long)p->app->info.max_alloc);
    }
    if (grow((void **)&p->temps, &p->cap_temps, p->n_temps, sizeof *p->temps))
        return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "out of memory");
    cl_int e = CLIP_FAULT(CLIP_FAULT_ALLOC) ? CL_MEM_OBJECT_ALLOCATION_FAILURE : CL_SUCCESS;
    cl_mem m = e ? NULL : clCreateBuffer(p->app->context, CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "cannot allocate a %zu-byte temporary: %s",
                              bytes, clip_cl_error_name(e));
    p->temps[p->n_temps++] = m;
    *mem = m;
    return CLIP_OK;
}

/* Keeps ev for timing; on allocation failure the event is simply not timed. An untimed process
 * asked for none (NULL). */
static void keep_event(clip_process *p, cl_event ev) {
    if (!ev) return;
    if (grow((void **)&p->events, &p->cap_events, p->n_events, sizeof *p->events)) {
        clReleaseEvent(ev);
        return;
    }
    p->events[p->n_events++] = ev;
}

cl_context clip_proc_cl_context(clip_process *p) {
    return p->app->context;
}
cl_command_queue clip_proc_cl_queue(clip_process *p) {
    return p->app->queue;
}
void clip_proc_keep_event(clip_process *p, cl_event ev) {
    if (ev) keep_event(p, ev);
}

clip_status clip_proc_enqueue(clip_process *p, cl_kernel k, cl_uint work_dim, const size_t *global,
                              const size_t *local) {
    for (cl_uint i = 0; i < work_dim; i++)
        if (global[i] == 0) return CLIP_OK; /* nothing to do: OpenCL 1.2 rejects empty ranges */
    cl_event ev = NULL;
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE)
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueNDRangeKernel(p->app->queue, k, work_dim, NULL, global, local, 0,
                                            NULL, p->untimed ? NULL : &ev);
    if (e != CL_SUCCESS) {
        char name[64] = "?";
        clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        name[sizeof name - 1] = '\0';
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "enqueue of kernel %s: %s", name,
                              clip_cl_error_name(e));
    }
    keep_event(p, ev);
    return CLIP_OK;
}

clip_status clip_proc_copy(clip_process *p, cl_mem src, size_t src_off, cl_mem dst, size_t dst_off,
                           size_t bytes) {
    if (bytes == 0) return CLIP_OK;
    cl_event ev = NULL;
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE)
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueCopyBuffer(p->app->queue, src, dst, src_off, dst_off, bytes, 0, NULL,
                                         p->untimed ? NULL : &ev);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clEnqueueCopyBuffer of %zu bytes: %s", bytes,
                              clip_cl_error_name(e));
    keep_event(p, ev);
    return CLIP_OK;
}

clip_status clip_proc_fill(clip_process *p, cl_mem mem, const void *pattern, size_t pattern_size,
                           size_t offset, size_t bytes) {
    if (bytes == 0) return CLIP_OK;
    cl_event ev = NULL;
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE)
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueFillBuffer(p->app->queue, mem, pattern, pattern_size, offset, bytes,
                                         0, NULL, p->untimed ? NULL : &ev);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clEnqueueFillBuffer of %zu bytes: %s", bytes,
                              clip_cl_error_name(e));
    keep_event(p, ev);
    return CLIP_OK;
}

clip_status clip_proc_arg(clip_process *p, cl_kernel k, cl_uint index, size_t size,
                          const void *value) {
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE) ? CL_OUT_OF_RESOURCES
                                              : clSetKernelArg(k, index, size, value);
    if (e != CL_SUCCESS) {
        char name[64] = "?";
        clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
        name[sizeof name - 1] = '\0';
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "clSetKernelArg(%s, %u): %s", name, index,
                              clip_cl_error_name(e));
    }
    return CLIP_OK;
}

clip_status clip_proc_input_as(clip_process *p, int i, clip_type t) {
    clip_data *d = clip_proc_input(p, i);
    if (!d) return clip_proc_fail(p, CLIP_ERR_INVALID_ARG, "input %d does not exist", i);
    p->convert_kernel[i] = NULL;
    p->convert_mem[i] = NULL;
    if (d->type == t) return CLIP_OK;
    if (clip_type_is_complex(d->type) && !clip_type_is_complex(t))
        return clip_proc_fail(p, CLIP_ERR_TYPE, "input %d is %s and cannot become %s", i,
                              clip_type_name(d->type), clip_type_name(t));
    if (d->bytes == 0) return CLIP_OK;
    char opts[64];
    snprintf(opts, sizeof opts, "-DSRC_DOUBLE=%d -DSRC_COMPLEX=%d", clip_type_is_double(d->type),
             clip_type_is_complex(d->type));
    if (clip_type_is_double(d->type) && !p->app->fp64)
        return clip_proc_fail(p, CLIP_ERR_NO_FP64, "input %d is %s but device '%s' lacks fp64", i,
                              clip_type_name(d->type), p->app->info.name);
    clip_status s = clip_proc_kernel(p, "convert", t, opts, "convert", &p->convert_kernel[i]);
    if (s != CLIP_OK) return s;
    size_t bytes = 0;
    if (clip_mul_size(d->numel, clip_type_size(t), &bytes))
        return clip_proc_fail(p, CLIP_ERR_OVERFLOW, "input %d: byte count overflows", i);
    return clip_proc_temp(p, bytes, &p->convert_mem[i]);
}

clip_status clip_proc_input_view(clip_process *p, int i, cl_mem *mem, size_t *offset) {
    clip_data *d = clip_proc_input(p, i);
    *mem = NULL;
    *offset = 0;
    if (!d) return clip_proc_fail(p, CLIP_ERR_INVALID_ARG, "input %d does not exist", i);
    if (p->convert_kernel[i]) return clip_proc_input_buffer(p, i, mem);
    return clip_data_view(d, mem, offset);
}

clip_status clip_proc_input_buffer(clip_process *p, int i, cl_mem *mem) {
    clip_data *d = clip_proc_input(p, i);
    *mem = NULL;
    if (!d) return clip_proc_fail(p, CLIP_ERR_INVALID_ARG, "input %d does not exist", i);
    cl_mem src = NULL;
    clip_status s = clip_proc_read_buffer(p, d, &src);
    if (s != CLIP_OK || !p->convert_kernel[i]) {
        *mem = src;
        return s;
    }
    cl_kernel k = p->convert_kernel[i];
    cl_ulong n = d->numel;
    s = clip_proc_arg(p, k, 0, sizeof src, &src);
    if (s == CLIP_OK) s = clip_proc_arg(p, k, 1, sizeof p->convert_mem[i], &p->convert_mem[i]);
    if (s == CLIP_OK) s = clip_proc_arg(p, k, 2, sizeof n, &n);
    size_t local = 64, global = (d->numel + local - 1) / local * local;
    if (s == CLIP_OK) s = clip_proc_enqueue(p, k, 1, &global, &local);
    if (s == CLIP_OK) *mem = p->convert_mem[i];
    return s;
}
