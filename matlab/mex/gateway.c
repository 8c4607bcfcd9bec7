/* clip_mex: the one MEX function behind the +clip package (matlab/+clip). Its first argument
 * names a command:
 *   clip_mex('devices')               struct array: index, name, vendor, type, version,
 *                                     isdefault, iscurrent
 *   clip_mex('device', SPEC)          opens SPEC (gpu, cpu, an index, a name substring) and makes
 *                                     it current; returns its struct
 *   clip_mex('upload', A)             a new device-resident array: its uint64 id, pending
 *   clip_mex('adopt', ID)             marks a pending id held by a clip.Array; returns ID
 *   clip_mex('gather', ID)            the array's contents as a MATLAB array
 *   clip_mex('info', ID)              [size row vector, class name, isreal]
 *   clip_mex('free', ID)              releases it (clip.Array's guard)
 *   clip_mex('run', NAME, {IN}, {PARAMS}, KEEP)   runs a process (run.c)
 *   clip_mex('stats')                 transfer counters of the current app, live arrays and
 *                                     kept processes
 *   clip_mex('wait')                  waits for the device work of earlier calls
 * Users call the +clip functions, which validate arguments and wrap ids in clip.Array. */
#include <string.h>

#include "gateway.h"

static int registered;

static void at_exit(void) {
    gw_cache_clear();
    gw_handle_free_all();
    gw_app_release();
}

static const char *kind_name(clip_device_kind k) {
    switch (k) {
    case CLIP_DEVICE_GPU:
        return "gpu";
    case CLIP_DEVICE_CPU:
        return "cpu";
    case CLIP_DEVICE_ACCELERATOR:
        return "accelerator";
    default:
        return "other";
    }
}

static mxArray *device_struct(const clip_device_info *d, size_t n, int def, int cur) {
    static const char *fields[] = {"index",   "name",      "vendor",   "type",
                                   "version", "isdefault", "iscurrent"};
    mxArray *s = mxCreateStructMatrix(n, 1, 7, fields);
    for (size_t i = 0; i < n; i++) {
        mxSetField(s, i, "index", mxCreateDoubleScalar(d[i].index));
        mxSetField(s, i, "name", mxCreateString(d[i].name));
        mxSetField(s, i, "vendor", mxCreateString(d[i].vendor));
        mxSetField(s, i, "type", mxCreateString(kind_name(d[i].type)));
        mxSetField(s, i, "version", mxCreateString(d[i].version));
        mxSetField(s, i, "isdefault", mxCreateLogicalScalar(d[i].index == def));
        mxSetField(s, i, "iscurrent", mxCreateLogicalScalar(d[i].index == cur));
    }
    return s;
}

static int cmd_devices(mxArray **out, gw_error *e) {
    enum { CAP = 64 };
    clip_device_info *list = mxCalloc(CAP, sizeof *list);
    size_t n = 0;
    int def = 0, cur = 0;
    clip_status s = clip_devices_list(list, CAP, &n);
    if (s != CLIP_OK) return gw_fail_clip(e, NULL, s);
    if (n > CAP) n = CAP;
    clip_device_select(NULL, &def); /* no default (no device) leaves def 0 */
    clip_app *app = gw_app(e);
    if (app) cur = clip_app_device(app)->index;
    *out = device_struct(list, n, def, cur);
    mxFree(list);
    return 0;
}

static int cmd_device(const mxArray *spec, mxArray **out, gw_error *e) {
    char *text = gw_string_arg(spec, "the device spec", e);
    if (!text) return 1;
    int failed = gw_set_device(text, e);
    mxFree(text);
    if (failed) return 1;
    const clip_device_info *d = clip_app_device(gw_app(e));
    int def = 0;
    clip_device_select(NULL, &def);
    *out = device_struct(d, 1, def, d->index);
    return 0;
}

static int cmd_upload(const mxArray *a, mxArray **out, gw_error *e) {
    clip_app *app = gw_app(e);
    clip_data *d = NULL;
    /* Uploaded now, so the chain that follows moves nothing. */
    if (!app || gw_upload(app, a, &d, e)) return 1;
    uint64_t id = gw_handle_add(d); /* pending until the constructor adopts it */
    if (!id) {
        clip_data_destroy(d);
        return gw_fail(e, "clip:outOfMemory", "clip: out of memory for a clip.Array");
    }
    *out = mxCreateNumericMatrix(1, 1, mxUINT64_CLASS, mxREAL);
    *(uint64_t *)mxGetData(*out) = id;
    return 0;
}

static clip_data *live(const mxArray *a, gw_error *e) {
    uint64_t id = 0;
    if (gw_id_arg(a, &id, e)) return NULL;
    clip_data *d = gw_handle_get(id);
    if (!d)
        gw_fail(e, "clip:staleArray", "clip: this clip.Array's device data is gone (clear mex?)");
    return d;
}

static int cmd_info(const mxArray *a, int nlhs, mxArray *plhs[], gw_error *e) {
    clip_data *d = live(a, e);
    if (!d) return 1;
    int nd = clip_data_ndims(d);
    plhs[0] = mxCreateDoubleMatrix(1, nd, mxREAL);
    for (int i = 0; i < nd; i++)
        mxGetPr(plhs[0])[i] = (double)clip_data_dim(d, i);
    clip_type t = clip_data_type(d);
    if (nlhs > 1) plhs[1] = mxCreateString(clip_type_is_double(t) ? "double" : "single");
    if (nlhs > 2) plhs[2] = mxCreateLogicalScalar(!clip_type_is_complex(t));
    return 0;
}

static int cmd_stats(mxArray **out, gw_error *e) {
    static const char *fields[] = {"to_device",     "to_host",     "bytes_to_device",
                                   "bytes_to_host", "live_arrays", "cached_processes"};
    clip_app *app = gw_app(e);
    clip_transfer_stats st;
    if (!app) return 1;
    clip_status s = clip_app_transfer_stats(app, &st);
    if (s != CLIP_OK) return gw_fail_clip(e, app, s);
    mxArray *r = mxCreateStructMatrix(1, 1, 6, fields);
    mxSetField(r, 0, "to_device", mxCreateDoubleScalar((double)st.to_device));
    mxSetField(r, 0, "to_host", mxCreateDoubleScalar((double)st.to_host));
    mxSetField(r, 0, "bytes_to_device", mxCreateDoubleScalar((double)st.bytes_to_device));
    mxSetField(r, 0, "bytes_to_host", mxCreateDoubleScalar((double)st.bytes_to_host));
    mxSetField(r, 0, "live_arrays", mxCreateDoubleScalar((double)gw_handle_count()));
    mxSetField(r, 0, "cached_processes", mxCreateDoubleScalar((double)gw_cache_count()));
    *out = r;
    return 0;
}

static int dispatch(const char *cmd, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[],
                    gw_error *e) {
    if (!strcmp(cmd, "devices") && nrhs == 0) return cmd_devices(&plhs[0], e);
    if (!strcmp(cmd, "device") && nrhs == 1) return cmd_device(prhs[0], &plhs[0], e);
    if (!strcmp(cmd, "upload") && nrhs == 1) {
        gw_handle_sweep();
        return cmd_upload(prhs[0], &plhs[0], e);
    }
    if (!strcmp(cmd, "adopt") && nrhs == 1) {
        uint64_t id = 0;
        if (gw_id_arg(prhs[0], &id, e)) return 1;
        if (!gw_handle_adopt(id))
            return gw_fail(e, "clip:staleArray", "clip: no device array with id %llu",
                           (unsigned long long)id);
        plhs[0] = mxDuplicateArray(prhs[0]);
        return 0;
    }
    if (!strcmp(cmd, "gather") && nrhs == 1) {
        clip_data *d = live(prhs[0], e);
        return d ? gw_to_matlab(d, &plhs[0], e) : 1;
    }
    if (!strcmp(cmd, "info") && nrhs == 1) return cmd_info(prhs[0], nlhs, plhs, e);
    if (!strcmp(cmd, "free") && nrhs == 1) {
        uint64_t id = 0;
        if (gw_id_arg(prhs[0], &id, e)) return 1;
        gw_handle_free(id);
        return 0;
    }
    if (!strcmp(cmd, "stats") && nrhs == 0) return cmd_stats(&plhs[0], e);
    if (!strcmp(cmd, "wait") && nrhs == 0) {
        clip_app *app = gw_app(e);
        clip_status s = app ? clip_app_finish(app) : CLIP_OK;
        return !app || (s != CLIP_OK && gw_fail_clip(e, app, s));
    }
    if (!strcmp(cmd, "plugin") && nrhs == 1) {
        char *path = gw_string_arg(prhs[0], "the plugin's file", e);
        if (!path) return 1;
        clip_status s = clip_plugin_load(path);
        mxFree(path);
        return s != CLIP_OK && gw_fail_clip(e, NULL, s);
    }
    if (!strcmp(cmd, "run") && nrhs == 4) {
        gw_handle_sweep();
        /* CLIP_PLUGIN_PATH's plugins, as the CLI loads them: idempotent, so each run asks (a
         * plugin added to the path later is found; a broken one is this call's error). */
        clip_status ps = clip_plugins_load_env();
        if (ps != CLIP_OK) return gw_fail_clip(e, NULL, ps);
        char *name = gw_string_arg(prhs[0], "the process name", e);
        if (!name) return 1;
        int failed = gw_run(name, nlhs, plhs, nrhs - 1, prhs + 1, e);
        mxFree(name);
        return failed;
    }
    return gw_fail(e, "clip:usage", "clip_mex: unknown command '%s' or wrong argument count (%d)",
                   cmd, nrhs);
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    if (!registered) {
        mexAtExit(at_exit);
        registered = 1;
    }
    gw_error e = {{0}, {0}};
    char cmd[32];
    if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], cmd, sizeof cmd) != 0)
        gw_fail(&e, "clip:usage", "clip_mex: the first argument must name a command");
    else if (!dispatch(cmd, nlhs, plhs, nrhs - 1, prhs + 1, &e))
        return;
    mexErrMsgIdAndTxt(e.id, "%s", e.msg);
}
