/* Programs are built once per app and device: keyed by their source (an embedded file's name, or a
 * hash of a user's text) and the full option string. A lane (lib/plan.c) shares the cache of the
 * app that first built for its device. Built-in and user kernels take the same path
 * (clip_program_build): common.cl first, the same -DCLIP_DOUBLE / -DCLIP_COMPLEX for the type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "internal.h"

/* Kernel files a program may join after common.cl: the longest chain is the tensor conv2's
 * second pass (tensor_core, tf32, tf32_range, conv2, conv2_tensor). */
#define PROGRAM_MAX_PARTS 5

void clip_programs_release(clip_app *app);
void clip_programs_release(clip_app *app) {
    clip_program_entry *e = app->programs;
    while (e) {
        clip_program_entry *next = e->next;
        clReleaseProgram(e->program);
        free(e->key);
        free(e);
        e = next;
    }
    app->programs = NULL;
}

void clip_build_log(clip_app *app, cl_program prog, char *buf, size_t cap) {
    size_t len = 0;
    buf[0] = '\0';
    if (clGetProgramBuildInfo(prog, app->device, CL_PROGRAM_BUILD_LOG, 0, NULL, &len) != CL_SUCCESS)
        return;
    char *log = malloc(len + 1);
    if (!log) return;
    if (clGetProgramBuildInfo(prog, app->device, CL_PROGRAM_BUILD_LOG, len, log, NULL) ==
        CL_SUCCESS) {
        log[len] = '\0';
        snprintf(buf, cap, "%s", log);
    }
    free(log);
}

/* The value of the last -DNAME=value in opts (name given with its "="), as a macro's last
 * definition wins; 0 when there is none. */
static int last_define(const char *opts, const char *name) {
    const char *last = NULL;
    for (const char *q = strstr(opts, name); q; q = strstr(q + 1, name))
        last = q;
    return last ? atoi(last + strlen(name)) : 0;
}

/* FNV-1a over the texts: a user's source is cached by its contents, not by where it came from
 * (its length is in the key too). */
static unsigned long long fnv1a(const char *const *srcs, cl_uint n, size_t *len) {
    unsigned long long h = 1469598103934665603ull;
    *len = 0;
    for (cl_uint i = 0; i < n; i++)
        for (const unsigned char *c = (const unsigned char *)srcs[i]; *c; c++, (*len)++)
            h = (h ^ *c) * 1099511628211ull;
    return h;
}

clip_status clip_program_get(clip_app *app, const char *source, clip_type type, const char *options,
                             cl_program *out) {
    /* "a+b+body": kernels/a.cl, b.cl, ... are built in order between common.cl and body.cl
     * (shared building blocks that only some programs compile, e.g. tensor_core.cl, or another
     * kernel file's helpers). */
    const char *srcs[PROGRAM_MAX_PARTS];
    cl_uint nsrc = 0;
    for (const char *part = source;;) {
        const char *plus = strchr(part, '+');
        const size_t len = plus ? (size_t)(plus - part) : strlen(part);
        char name[64];
        if (nsrc >= PROGRAM_MAX_PARTS || len >= sizeof name)
            return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                                  "kernel source '%s': at most %d parts of under %zu characters",
                                  source, PROGRAM_MAX_PARTS, sizeof name);
        memcpy(name, part, len), name[len] = '\0';
        srcs[nsrc] = clip_kernel_source(name);
        if (!srcs[nsrc++])
            return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                                  "no embedded kernel source '%s' (in '%s')", name, source);
        if (!plus) break;
        part = plus + 1;
    }
    /* The embedded texts are fixed for the library's life: their names key them. The built-in
     * kernels also see common.cl's short aliases (real_t, elem_t, ...). */
    char key[128];
    snprintf(key, sizeof key, "embedded:%s", source);
    return clip_program_build(app, source, key, srcs, nsrc, type, "-DCLIP_SHORT_NAMES=1", options,
                              out);
}

clip_status clip_program_user(clip_app *app, const char *label, const char *text, clip_type type,
                              const char *options, cl_program *out) {
    size_t len = 0;
    const unsigned long long h = fnv1a(&text, 1, &len);
    char key[64];
    snprintf(key, sizeof key, "source:%016llx:%zu", h, len);
    return clip_program_build(app, label, key, &text, 1, type, "-DCLIP_USER_KERNEL=1", options,
                              out);
}

clip_status clip_program_build(clip_app *app, const char *label, const char *source_key,
                               const char *const *parts, cl_uint n_parts, clip_type type,
                               const char *clip_options, const char *options, cl_program *out) {
    const char *source = label;
    if (clip_type_is_double(type) && !app->fp64)
        return clip_set_error(app, CLIP_ERR_NO_FP64,
                              "%s: %s data needs double precision, which device '%s' lacks "
                              "(no cl_khr_fp64)",
                              source, clip_type_name(type), app->info.name);
    const char *srcs[1 + PROGRAM_MAX_PARTS] = {clip_kernel_source("common")};
    if (!srcs[0])
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "no embedded kernel source 'common'");
    if (n_parts > PROGRAM_MAX_PARTS)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "%s: more than %d source parts", source,
                              PROGRAM_MAX_PARTS);
    for (cl_uint i = 0; i < n_parts; i++)
        srcs[1 + i] = parts[i];
    const cl_uint nsrc = 1 + n_parts;
    char opts[1024];
    int n = snprintf(opts, sizeof opts, "-DCLIP_DOUBLE=%d -DCLIP_COMPLEX=%d %s %s",
                     clip_type_is_double(type), clip_type_is_complex(type), clip_options,
                     options ? options : "");
    if (n < 0 || (size_t)n >= sizeof opts)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "%s: build options too long", source);
    size_t klen = strlen(source_key) + strlen(opts) + 2;
    char *key = malloc(klen);
    if (!key) return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "%s: out of memory", source);
    snprintf(key, klen, "%s|%s", source_key, opts);
    clip_app *home = app->program_home ? app->program_home : app;
    for (clip_program_entry *e = home->programs; e; e = e->next) {
        if (!strcmp(e->key, key)) {
            free(key);
            *out = e->program;
            return CLIP_OK;
        }
    }
    cl_int err = CL_SUCCESS;
    cl_program prog = CLIP_FAULT(CLIP_FAULT_BUILD)
                          ? (err = CL_OUT_OF_HOST_MEMORY, NULL)
                          : clCreateProgramWithSource(app->context, nsrc, srcs, NULL, &err);
    if (err != CL_SUCCESS) {
        free(key);
        return clip_set_error(app, CLIP_ERR_OPENCL, "%s: clCreateProgramWithSource: %s", source,
                              clip_cl_error_name(err));
    }
    err = CLIP_FAULT(CLIP_FAULT_BUILD) ? CL_BUILD_PROGRAM_FAILURE
                                       : clBuildProgram(prog, 1, &app->device, opts, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[3000];
        clip_build_log(app, prog, log, sizeof log);
        clReleaseProgram(prog);
        free(key);
        return clip_set_error(app, CLIP_ERR_BUILD, "%s: build failed (%s) with options '%s': %s",
                              source, clip_cl_error_name(err), opts, log);
    }
    if (strstr(opts, "-DCLIP_SM90A")) {
        char log[3000];
        const int maxnreg = last_define(opts, "-DCLIP_SM90A_MAXNREG=");
        const int minctas = last_define(opts, "-DCLIP_SM90A_MINCTAS=");
        char directives[64] = "";
        if (maxnreg > 0) snprintf(directives, sizeof directives, ".maxnreg %d\n", maxnreg);
        if (minctas > 0)
            snprintf(directives + strlen(directives), sizeof directives - strlen(directives),
                     ".minnctapersm %d\n", minctas);
        if (*directives) directives[strlen(directives) - 1] = '\0';
        clip_status st = clip_program_retarget(app, source, directives, log, sizeof log, &prog);
        if (st != CLIP_OK) {
            clReleaseProgram(prog);
            free(key);
            return st;
        }
    }
    clip_program_entry *e = malloc(sizeof *e);
    if (!e) {
        clReleaseProgram(prog);
        free(key);
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "%s: out of memory", source);
    }
    e->key = key;
    e->program = prog;
    e->next = home->programs;
    home->programs = e;
    *out = prog;
    return CLIP_OK;
}
