/* Programs for NVIDIA's sm_90a target (Hopper's wgmma), which NVIDIA's OpenCL compiler does not
 * emit: it writes PTX for sm_90, where ptxas refuses wgmma. Such a program is built in two steps.
 * Its source is compiled with -DCLIP_SM90A, under which every sm_90a-only instruction is written
 * behind the marker below (a PTX comment: see kernels/tensor_core.cl), so that build succeeds;
 * the program's binary on NVIDIA is that PTX text. The markers are then removed, the target
 * renamed sm_90a, and the text built again as a program binary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define SM90A_MARK "//clip-sm90a "

char *clip_ptx_retarget_text(const char *ptx) {
    const char *target = strstr(ptx, ".target sm_90");
    if (!target) return NULL;
    const char after = target[13];
    const int has_a = after == 'a';
    if (!has_a && after != ',' && after != '\n' && after != ' ') return NULL; /* e.g. sm_900 */
    char *out = malloc(strlen(ptx) + 2);
    if (!out) return NULL;
    char *o = out;
    for (const char *p = ptx; *p;) {
        if (p == target + 13 && !has_a) *o++ = 'a';
        if (!strncmp(p, SM90A_MARK, sizeof SM90A_MARK - 1)) {
            p += sizeof SM90A_MARK - 1;
            continue;
        }
        *o++ = *p++;
    }
    *o = '\0';
    return out;
}

char *clip_ptx_declare(const char *ptx, const char *directives) {
    size_t entries = 0;
    for (const char *e = strstr(ptx, ".entry "); e; e = strstr(e + 1, ".entry "))
        entries++;
    const size_t dl = strlen(directives);
    char *out = malloc(strlen(ptx) + entries * (dl + 1) + 1);
    if (!out) return NULL;
    char *o = out;
    const char *q = ptx, *e;
    while ((e = strstr(q, ".entry "))) {
        const char *body = strstr(e, "\n{");
        if (!body) break; /* a declaration without a body: nothing to declare */
        memcpy(o, q, (size_t)(body - q));
        o += body - q;
        *o++ = '\n';
        memcpy(o, directives, dl);
        o += dl;
        q = body;
    }
    strcpy(o, q);
    return out;
}

char *clip_program_device_binary(cl_program prog, cl_device_id dev, cl_int *err) {
    cl_uint n = 0;
    *err = clGetProgramInfo(prog, CL_PROGRAM_NUM_DEVICES, sizeof n, &n, NULL);
    if (*err != CL_SUCCESS || n == 0) return NULL;
    cl_device_id *devs = calloc(n, sizeof *devs);
    size_t *sizes = calloc(n, sizeof *sizes);
    unsigned char **bins = calloc(n, sizeof *bins);
    char *ptx = NULL;
    if (!devs || !sizes || !bins) {
        *err = CL_OUT_OF_HOST_MEMORY;
        goto done;
    }
    *err = clGetProgramInfo(prog, CL_PROGRAM_DEVICES, n * sizeof *devs, devs, NULL);
    if (*err == CL_SUCCESS)
        *err = clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, n * sizeof *sizes, sizes, NULL);
    cl_uint i = 0;
    while (*err == CL_SUCCESS && i < n && devs[i] != dev)
        i++;
    if (*err != CL_SUCCESS || i == n || sizes[i] == 0) {
        if (*err == CL_SUCCESS) *err = CL_INVALID_PROGRAM_EXECUTABLE;
        goto done;
    }
    /* Every slot gets room: the standard lets NULL entries be skipped, but PoCL copies into
     * them. */
    for (cl_uint j = 0; j < n; j++)
        if (!(bins[j] = malloc(sizes[j] + 1))) {
            *err = CL_OUT_OF_HOST_MEMORY;
            goto done;
        }
    *err = clGetProgramInfo(prog, CL_PROGRAM_BINARIES, n * sizeof *bins, bins, NULL);
    if (*err == CL_SUCCESS) {
        ptx = (char *)bins[i];
        ptx[sizes[i]] = '\0';
        bins[i] = NULL;
    }
done:
    for (cl_uint j = 0; bins && j < n; j++)
        free(bins[j]);
    free(devs);
    free(sizes);
    free(bins);
    return ptx;
}

clip_status clip_program_retarget(clip_app *app, const char *source, const char *directives,
                                  char *log, size_t cap, cl_program *prog) {
    cl_int err = CL_SUCCESS;
    char *ptx = clip_program_device_binary(*prog, app->device, &err);
    if (!ptx)
        return clip_set_error(
            app, err == CL_OUT_OF_HOST_MEMORY ? CLIP_ERR_OUT_OF_MEMORY : CLIP_ERR_BUILD,
            "%s: no program binary to retarget for sm_90a (%s)", source, clip_cl_error_name(err));
    char *text = clip_ptx_retarget_text(ptx);
    free(ptx);
    if (!text)
        return clip_set_error(app, CLIP_ERR_BUILD,
                              "%s: the device's program binary is not PTX for sm_90 (%s), so its "
                              "sm_90a instructions cannot be enabled",
                              source, clip_cl_error_name(err));
    /* Experiment hook: the sm_90a PTX appended to this file (to read, or to feed ptxas -v). */
    const char *dump = getenv("CLIP_SM90A_PTX");
    FILE *df = dump && *dump ? fopen(dump, "a") : NULL;
    if (df) {
        fputs(text, df);
        fclose(df);
    }
    if (directives && *directives) {
        char *limited = clip_ptx_declare(text, directives);
        free(text);
        if (!limited)
            return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "%s: out of memory", source);
        text = limited;
    }
    const unsigned char *bins[1] = {(const unsigned char *)text};
    size_t len = strlen(text);
    cl_int status = CL_SUCCESS;
    cl_program again =
        clCreateProgramWithBinary(app->context, 1, &app->device, &len, bins, &status, &err);
    free(text);
    if (err != CL_SUCCESS)
        return clip_set_error(app, CLIP_ERR_BUILD, "%s: clCreateProgramWithBinary (sm_90a): %s",
                              source, clip_cl_error_name(err));
    /* Experiment hook: options of this build (e.g. -cl-nv-verbose), its log on stderr. */
    const char *extra = getenv("CLIP_SM90A_OPTIONS");
    err = clBuildProgram(again, 1, &app->device, extra ? extra : "", NULL, NULL);
    if (extra && err == CL_SUCCESS) {
        clip_build_log(app, again, log, cap);
        fprintf(stderr, "%s (sm_90a, %s): %s\n", source, extra, log);
    }
    if (err != CL_SUCCESS) {
        clip_build_log(app, again, log, cap);
        clReleaseProgram(again);
        return clip_set_error(app, CLIP_ERR_BUILD, "%s: build for sm_90a failed (%s): %s", source,
                              clip_cl_error_name(err), log);
    }
    clReleaseProgram(*prog);
    *prog = again;
    return CLIP_OK;
}
