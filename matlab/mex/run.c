/* Runs one clip process for the +clip functions: inputs from MATLAB arrays or clip.Array ids,
 * parameters from name/value pairs (set as text, exactly as `clip run NAME --name value`), and
 * outputs back as MATLAB arrays or as new device-resident arrays. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gateway.h"

enum { GW_MAX_IO = 8 };

/* The text `clip run` would get for a parameter value: a char vector as is, a logical or real
 * numeric scalar as its shortest exact decimal ("inf", "nan" included). */
static int param_text(const mxArray *v, const char *name, char *buf, size_t cap, gw_error *e) {
    if (mxIsChar(v)) {
        if (mxGetString(v, buf, cap) != 0)
            return gw_fail(e, "clip:usage", "clip: value of '%s' is too long", name);
        return 0;
    }
    if (mxGetNumberOfElements(v) != 1 || mxIsComplex(v) || !(mxIsNumeric(v) || mxIsLogical(v)))
        return gw_fail(e, "clip:usage",
                       "clip: value of '%s' must be a real scalar, a logical or a character "
                       "vector",
                       name);
    if (mxIsLogical(v)) {
        snprintf(buf, cap, "%s", *mxGetLogicals(v) ? "true" : "false");
        return 0;
    }
    double x = mxGetScalar(v);
    if (isnan(x)) snprintf(buf, cap, "nan");
    else if (isinf(x)) snprintf(buf, cap, "%sinf", x < 0 ? "-" : "");
    else snprintf(buf, cap, "%.17g", x);
    return 0;
}

static int set_params(clip_process *p, clip_app *app, const mxArray *params, gw_error *e) {
    size_t n = mxGetNumberOfElements(params);
    if (!mxIsCell(params) || n % 2)
        return gw_fail(e, "clip:usage", "clip: parameters must be name/value pairs");
    for (size_t i = 0; i < n; i += 2) {
        char name[64], text[256];
        const mxArray *k = mxGetCell(params, i), *v = mxGetCell(params, i + 1);
        if (!k || !mxIsChar(k) || mxGetString(k, name, sizeof name) != 0)
            return gw_fail(e, "clip:usage", "clip: parameter names must be short char vectors");
        if (!v) return gw_fail(e, "clip:usage", "clip: parameter '%s' has no value", name);
        if (param_text(v, name, text, sizeof text, e)) return 1;
        clip_status s = clip_process_set_text(p, name, text);
        if (s != CLIP_OK) return gw_fail_clip(e, app, s);
    }
    return 0;
}

/* Input i: a clip.Array (a struct with a uint64 field `id`) or a MATLAB array, uploaded into
 * *tmp, which the caller destroys after the launch. */
static int set_input(clip_process *p, clip_app *app, int i, const mxArray *in, clip_data **tmp,
                     gw_error *e) {
    clip_data *d = NULL;
    if (mxIsStruct(in)) {
        const mxArray *f = mxGetField(in, 0, "id");
        uint64_t id = 0;
        if (!f || gw_id_arg(f, &id, e)) return f ? 1 : gw_fail(e, "clip:usage", "clip: bad input");
        d = gw_handle_get(id);
        if (!d)
            return gw_fail(e, "clip:staleArray",
                           "clip: input %d is a clip.Array whose device data is gone (clear mex?)",
                           i + 1);
    } else {
        if (gw_from_matlab(app, in, tmp, e)) return 1;
        d = *tmp;
    }
    clip_status s = clip_process_set_input(p, i, d);
    return s == CLIP_OK ? 0 : gw_fail_clip(e, app, s);
}

/* Returns the outputs (and, past them, the device time) into plhs. */
static int take_outputs(clip_process *p, clip_app *app, int keep, int nlhs, mxArray *plhs[],
                        uint64_t *ids, gw_error *e) {
    int want = nlhs < 1 ? 1 : nlhs, i = 0;
    for (; i < want && i < GW_MAX_IO; i++) {
        clip_data *d = NULL;
        if (clip_process_output(p, i, &d) != CLIP_OK) break; /* no output i: the time, if asked */
        if (keep) {
            uint64_t id = ids[i] = gw_handle_add(clip_data_retain(d));
            if (!id) {
                clip_data_destroy(d);
                return gw_fail(e, "clip:outOfMemory", "clip: out of memory for a clip.Array");
            }
            plhs[i] = mxCreateNumericMatrix(1, 1, mxUINT64_CLASS, mxREAL);
            *(uint64_t *)mxGetData(plhs[i]) = id;
        } else if (gw_to_matlab(d, &plhs[i], e)) {
            return 1;
        }
    }
    if (i < nlhs) {
        double ms = 0;
        clip_status s = clip_process_time_ms(p, &ms);
        if (s != CLIP_OK) return gw_fail_clip(e, app, s);
        plhs[i++] = mxCreateDoubleScalar(ms);
    }
    if (i < nlhs) return gw_fail(e, "clip:usage", "clip: too many outputs requested");
    return 0;
}

int gw_run(const char *name, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[],
           gw_error *e) {
    if (nrhs != 3 || !mxIsCell(prhs[0]))
        return gw_fail(e, "clip:usage", "clip: run takes NAME, {inputs}, {params}, keep");
    size_t nin = mxGetNumberOfElements(prhs[0]);
    if (nin > GW_MAX_IO) return gw_fail(e, "clip:usage", "clip: at most %d inputs", GW_MAX_IO);
    clip_app *app = gw_app(e);
    if (!app) return 1;
    int keep = mxIsLogicalScalarTrue(prhs[2]) || (mxIsNumeric(prhs[2]) && mxGetScalar(prhs[2]));
    clip_process *p = NULL;
    clip_data *tmp[GW_MAX_IO] = {0};
    uint64_t ids[GW_MAX_IO] = {0}; /* arrays this call made: freed again if it fails later */
    clip_status s = clip_process_create(app, name, &p);
    int failed = s != CLIP_OK ? gw_fail_clip(e, app, s) : set_params(p, app, prhs[1], e);
    for (size_t i = 0; !failed && i < nin; i++) {
        const mxArray *in = mxGetCell(prhs[0], i);
        failed = in ? set_input(p, app, (int)i, in, &tmp[i], e)
                    : gw_fail(e, "clip:usage", "clip: input %d is empty", (int)i + 1);
    }
    if (!failed && (s = clip_process_init(p)) != CLIP_OK) failed = gw_fail_clip(e, app, s);
    if (!failed && (s = clip_process_launch(p)) != CLIP_OK) failed = gw_fail_clip(e, app, s);
    if (!failed) failed = take_outputs(p, app, keep, nlhs, plhs, ids, e);
    for (int i = 0; failed && i < GW_MAX_IO; i++) gw_handle_free(ids[i]);
    clip_process_destroy(p);
    for (size_t i = 0; i < nin; i++) clip_data_destroy(tmp[i]);
    return failed;
}
