/* Runs one clip process for the +clip functions: inputs from MATLAB arrays (used in place) or
 * clip.Array ids, parameters from name/value pairs (set as text, exactly as `clip run NAME --name
 * value`), and outputs written straight into the MATLAB arrays returned, or kept on the device as
 * new clip.Array data. The process comes from the cache (cache.c) and goes back to it unbound. A
 * call with MATLAB results waits for them; a call on clip.Array inputs returns once its work is
 * enqueued, unless it reads MATLAB memory in place (then it waits for that work). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "clip/process_author.h"
#include "gateway.h"

enum { GW_MAX_PARAMS = 32, GW_KEY_MAX = 4096 };

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

/* Parameters as `clip run` text, parsed once per call: they set a new process and make up the
 * cache key. */
typedef struct params {
    size_t n;
    char name[GW_MAX_PARAMS][64];
    char text[GW_MAX_PARAMS][256];
} params;

static int read_params(const mxArray *cell, params *ps, gw_error *e) {
    size_t n = mxGetNumberOfElements(cell);
    if (!mxIsCell(cell) || n % 2)
        return gw_fail(e, "clip:usage", "clip: parameters must be name/value pairs");
    if (n / 2 > GW_MAX_PARAMS)
        return gw_fail(e, "clip:usage", "clip: at most %d parameters", GW_MAX_PARAMS);
    ps->n = n / 2;
    for (size_t i = 0; i < ps->n; i++) {
        const mxArray *k = mxGetCell(cell, 2 * i), *v = mxGetCell(cell, 2 * i + 1);
        if (!k || !mxIsChar(k) || mxGetString(k, ps->name[i], sizeof ps->name[i]) != 0)
            return gw_fail(e, "clip:usage", "clip: parameter names must be short char vectors");
        if (!v) return gw_fail(e, "clip:usage", "clip: parameter '%s' has no value", ps->name[i]);
        if (param_text(v, ps->name[i], ps->text[i], sizeof ps->text[i], e)) return 1;
    }
    return 0;
}

/* One call's data: what it borrows, what it made, what it hands back. */
typedef struct call {
    clip_app *app;
    size_t nin;
    clip_data *in[GW_MAX_IO];   /* borrowed: a clip.Array's data, or tmp[i] */
    clip_data *tmp[GW_MAX_IO];  /* views of MATLAB inputs (gw_wrap_input), destroyed at the end */
    mxArray *mx[GW_MAX_IO];     /* MATLAB results being written, until handed to plhs */
    clip_data *out[GW_MAX_IO];  /* wrapped over mx[i] */
    uint64_t ids[GW_MAX_IO];    /* clip.Array results: freed again if the call fails */
} call;

/* Input i: a clip.Array (a struct with a uint64 field `id`) or a MATLAB array. The same MATLAB
 * array twice (clip.matmul(A, A)) is one view: OpenCL leaves two buffers over one host region
 * undefined. */
static int resolve_input(call *c, size_t i, const mxArray *in, const mxArray *const *all,
                         gw_error *e) {
    if (!in) return gw_fail(e, "clip:usage", "clip: input %d is empty", (int)i + 1);
    if (mxIsStruct(in)) {
        /* mxGetField past the end of a struct array crashes Octave: struct('id', {}) has none. */
        if (mxGetNumberOfElements(in) != 1)
            return gw_fail(e, "clip:usage",
                           "clip: input %d is a struct array of %zu elements; a clip.Array is one",
                           (int)i + 1, (size_t)mxGetNumberOfElements(in));
        const mxArray *f = mxGetField(in, 0, "id");
        uint64_t id = 0;
        if (!f) return gw_fail(e, "clip:usage", "clip: bad input");
        if (gw_id_arg(f, &id, e)) return 1;
        c->in[i] = gw_handle_get(id);
        if (!c->in[i])
            return gw_fail(e, "clip:staleArray",
                           "clip: input %d is a clip.Array whose device data is gone (clear mex?)",
                           (int)i + 1);
        return 0;
    }
    for (size_t j = 0; j < i; j++)
        if (c->tmp[j] && mxGetData(all[j]) == mxGetData(in) && mxGetData(in) &&
            mxGetClassID(all[j]) == mxGetClassID(in) &&
            mxIsComplex(all[j]) == mxIsComplex(in) &&
            mxGetNumberOfElements(all[j]) == mxGetNumberOfElements(in) &&
            mxGetNumberOfDimensions(all[j]) == mxGetNumberOfDimensions(in) &&
            !memcmp(mxGetDimensions(all[j]), mxGetDimensions(in),
                    mxGetNumberOfDimensions(in) * sizeof(mwSize))) {
            c->in[i] = c->tmp[j];
            return 0;
        }
    if (gw_wrap_input(c->app, in, &c->tmp[i], e)) return 1;
    c->in[i] = c->tmp[i];
    return 0;
}

/* The cache key: process, parameters, input types and sizes. Returns 0 or fills *e. */
static int make_key(const char *name, const params *ps, const call *c, char *key, gw_error *e) {
    size_t off = 0;
    int n = snprintf(key, GW_KEY_MAX, "%s|", name);
    for (size_t i = 0; i < ps->n && n >= 0 && (off += (size_t)n) < GW_KEY_MAX; i++)
        n = snprintf(key + off, GW_KEY_MAX - off, "%s=%s|", ps->name[i], ps->text[i]);
    for (size_t i = 0; i < c->nin && n >= 0 && (off += (size_t)n) < GW_KEY_MAX; i++) {
        n = snprintf(key + off, GW_KEY_MAX - off, "%s", clip_type_name(clip_data_type(c->in[i])));
        for (int d = 0; d < clip_data_ndims(c->in[i]) && n >= 0 && (off += (size_t)n) < GW_KEY_MAX;
             d++)
            n = snprintf(key + off, GW_KEY_MAX - off, ":%zu", clip_data_dim(c->in[i], d));
        if (n >= 0 && (off += (size_t)n) < GW_KEY_MAX) n = snprintf(key + off, GW_KEY_MAX - off, "|");
    }
    if (n < 0 || off + (size_t)n >= GW_KEY_MAX)
        return gw_fail(e, "clip:usage", "clip: parameters too long");
    return 0;
}

/* The process for this key: kept, or new with its parameters set (then kept). */
static clip_process *process_for(const char *name, const params *ps, const char *key, call *c,
                                 gw_cached **entry, gw_error *e) {
    *entry = gw_cache_find(key);
    if (*entry) return (*entry)->p;
    clip_process *p = NULL;
    clip_status s = clip_process_create(c->app, name, &p);
    for (size_t i = 0; s == CLIP_OK && i < ps->n; i++)
        s = clip_process_set_text(p, ps->name[i], ps->text[i]);
    if (s != CLIP_OK) {
        gw_fail_clip(e, c->app, s); /* before destroy, which may clear the message */
        clip_process_destroy(p);
        return NULL;
    }
    *entry = gw_cache_add(key, p);
    if (!*entry) gw_fail(e, "clip:outOfMemory", "clip: out of memory for the process cache");
    return *entry ? p : NULL;
}

/* Notes the output types and sizes init made, for the next call with this key. */
static void remember_outputs(gw_cached *entry, clip_process *p) {
    const clip_process_desc *d = clip_process_descriptor(p);
    entry->n_out = d->n_outputs < GW_MAX_IO ? d->n_outputs : GW_MAX_IO;
    for (int i = 0; i < entry->n_out; i++) {
        clip_data *o = NULL;
        clip_process_output(p, i, &o);
        entry->out_type[i] = clip_data_type(o);
        entry->out_nd[i] = clip_data_ndims(o);
        memcpy(entry->out_dims[i], clip_data_dims(o), (size_t)entry->out_nd[i] * sizeof(size_t));
    }
    entry->known = 1;
}

/* MATLAB arrays for the first `want` outputs, wrapped (c->out) for clip_process_rebind, so that
 * the process writes its results where MATLAB gets them (split complex results are copied
 * instead: no wrap). */
static int supply_outputs(call *c, const gw_cached *entry, int want, gw_error *e) {
    for (int i = 0; i < want && i < entry->n_out; i++)
        if (gw_new_output(c->app, entry->out_type[i], entry->out_nd[i], entry->out_dims[i],
                          &c->mx[i], &c->out[i], e))
            return 1;
    return 0;
}

/* Returns the outputs (and, past them, the device time) into plhs. */
static int take_outputs(call *c, clip_process *p, int keep, int nlhs, mxArray *plhs[],
                        gw_error *e) {
    const int want = nlhs < 1 ? 1 : nlhs, n_out = clip_process_descriptor(p)->n_outputs;
    int i = 0;
    for (; i < want && i < n_out && i < GW_MAX_IO; i++) {
        clip_data *d = NULL;
        clip_status s = clip_process_output(p, i, &d);
        if (s != CLIP_OK) return gw_fail_clip(e, c->app, s);
        if (keep) {
            uint64_t id = c->ids[i] = gw_handle_add(clip_data_retain(d));
            if (!id) {
                clip_data_destroy(d);
                return gw_fail(e, "clip:outOfMemory", "clip: out of memory for a clip.Array");
            }
            plhs[i] = mxCreateNumericMatrix(1, 1, mxUINT64_CLASS, mxREAL);
            *(uint64_t *)mxGetData(plhs[i]) = id;
        } else if (c->mx[i]) {
            const void *h = NULL;
            s = clip_data_host(d, &h); /* waits; copies nothing where the device works in place */
            if (s != CLIP_OK) return gw_fail_clip(e, c->app, s);
            plhs[i] = c->mx[i];
            c->mx[i] = NULL;
        } else if (gw_to_matlab(d, &plhs[i], e)) {
            return 1;
        }
    }
    if (i < nlhs) {
        double ms = 0;
        clip_status s = clip_process_time_ms(p, &ms);
        if (s != CLIP_OK) return gw_fail_clip(e, c->app, s);
        plhs[i++] = mxCreateDoubleScalar(ms);
    }
    if (i < nlhs) return gw_fail(e, "clip:usage", "clip: too many outputs requested");
    /* MATLAB may free its arrays once this returns: work reading them in place (made over them
     * at the wrap, or read by the launch through a view) must be done. */
    int in_place = 0;
    for (size_t j = 0; j < c->nin; j++)
        in_place |= c->tmp[j] && clip_data_in_place(c->tmp[j]);
    if (keep && in_place) {
        size_t n = 0;
        clip_status s = clip_process_command_times(p, NULL, 0, &n, NULL);
        if (s != CLIP_OK) return gw_fail_clip(e, c->app, s);
    }
    return 0;
}

static int run_process(const char *name, const params *ps, call *c, int keep, int nlhs,
                       mxArray *plhs[], clip_process **used, gw_error *e) {
    char key[GW_KEY_MAX];
    gw_cached *entry = NULL;
    if (make_key(name, ps, c, key, e)) return 1;
    clip_process *p = *used = process_for(name, ps, key, c, &entry, e);
    if (!p) return 1;
    const int want = nlhs < 1 ? 1 : nlhs, first = !entry->known;
    clip_status s = CLIP_OK;
    if (first) { /* init learns the outputs' types and sizes for this key */
        for (size_t i = 0; i < c->nin && s == CLIP_OK; i++)
            s = clip_process_set_input(p, (int)i, c->in[i]);
        if (s == CLIP_OK) s = clip_process_init(p);
        if (s != CLIP_OK) return gw_fail_clip(e, c->app, s);
        remember_outputs(entry, p);
    }
    if (!keep && supply_outputs(c, entry, want, e)) return 1;
    if (!first || !keep) {
        /* The kept init on this call's data (it inits again only where init read an input's
         * values and they changed: conv2's K); NULL outputs are made by the process. */
        clip_data *outs[GW_MAX_IO] = {0}; /* n_outputs <= CLIP_PROC_MAX_IO = GW_MAX_IO */
        for (int i = 0; i < entry->n_out; i++)
            outs[i] = c->out[i];
        entry->known = 0; /* until the rebind succeeds: a failed one leaves no init */
        s = clip_process_rebind(p, c->in, outs, NULL);
        if (s != CLIP_OK) return gw_fail_clip(e, c->app, s);
        entry->known = 1;
    }
    if ((s = clip_process_launch(p)) != CLIP_OK) return gw_fail_clip(e, c->app, s);
    return take_outputs(c, p, keep, nlhs, plhs, e);
}

int gw_run(const char *name, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[],
           gw_error *e) {
    if (nrhs != 3 || !mxIsCell(prhs[0]))
        return gw_fail(e, "clip:usage", "clip: run takes NAME, {inputs}, {params}, keep");
    call c;
    memset(&c, 0, sizeof c);
    c.nin = mxGetNumberOfElements(prhs[0]);
    if (c.nin > GW_MAX_IO) return gw_fail(e, "clip:usage", "clip: at most %d inputs", GW_MAX_IO);
    params ps;
    if (read_params(prhs[1], &ps, e)) return 1;
    c.app = gw_app(e);
    if (!c.app) return 1;
    const int keep = mxIsLogicalScalarTrue(prhs[2]) || (mxIsNumeric(prhs[2]) && mxGetScalar(prhs[2]));
    const mxArray *ins[GW_MAX_IO] = {0};
    int failed = 0;
    for (size_t i = 0; !failed && i < c.nin; i++) {
        ins[i] = mxGetCell(prhs[0], i);
        failed = resolve_input(&c, i, ins[i], ins, e);
    }
    clip_process *p = NULL;
    if (!failed) failed = run_process(name, &ps, &c, keep, nlhs, plhs, &p, e);
    /* A failure may leave enqueued work that reads or writes MATLAB memory freed below. */
    if (failed) clip_app_finish(c.app);
    clip_process_detach(p); /* keeps the init for the next call with this key */
    for (int i = 0; i < GW_MAX_IO; i++) {
        if (failed) gw_handle_free(c.ids[i]);
        clip_data_destroy(c.out[i]); /* before the MATLAB array it is wrapped over */
        if (c.mx[i]) mxDestroyArray(c.mx[i]);
        clip_data_destroy(c.tmp[i]);
    }
    return failed;
}
