/* clip's MEX gateway (clip_mex): what its files share. Only the MEX API that MATLAB and Octave
 * have in common is used.
 *
 * Error discipline: mexErrMsgIdAndTxt never returns (it unwinds out of the MEX file), so no
 * function below raises. Each one fills a gw_error and returns non-zero; the dispatcher in
 * gateway.c releases what the command held and only then raises, so a failed call leaks
 * nothing and leaves every clip.Array usable. */
#ifndef CLIP_MEX_GATEWAY_H
#define CLIP_MEX_GATEWAY_H

#include <stddef.h>
#include <stdint.h>

#include "clip/clip.h"
#include "mex.h"

/* A failure waiting to be raised: MATLAB error identifier ("clip:innerDimensions") and
 * message. */
typedef struct gw_error {
    char id[64];
    char msg[1024];
} gw_error;

/* Records a gateway-level failure (bad class, usage...) with printf-style text. Returns 1. */
int gw_fail(gw_error *e, const char *id, const char *fmt, ...);
/* Records a failed clip call: the identifier from the status (errors.c's table) and the app's
 * message (clip_app_last_error). Returns 1. */
int gw_fail_clip(gw_error *e, clip_app *app, clip_status s);

/* The app every call uses, opened on the default device (CLIP_DEVICE steers it) at first use.
 * NULL with *e filled when no device opens. Owned by the gateway (app.c). */
clip_app *gw_app(gw_error *e);
/* Opens an app on the device `spec` names (as `clip --device`) and makes it current. Arrays on
 * the previous app stay valid: each keeps its own app reference. Returns 0 or fills *e. */
int gw_set_device(const char *spec, gw_error *e);
/* Releases the current app (mexAtExit, clear mex). */
void gw_app_release(void);

/* Device-resident arrays (handles.c): clip.Array objects hold an id into this table.
 * An upload, and each result of a run, goes back as an id that the clip.Array constructor then
 * adopts (gw_handle_adopt) in the statement that stores it. Octave acts on Ctrl-C at its next
 * statement or MEX call, so an interrupt taken between the two would orphan an id that no object
 * will ever free: ids not yet adopted are pending, and the next run or upload frees every pending
 * id (no clip M code runs one between an upload or run and its adoptions). */
/* Stores d (taking the caller's reference) as a pending id and returns the id (never 0); 0 when
 * out of memory. */
uint64_t gw_handle_add(clip_data *d);
/* Marks a pending id adopted; 0 when id is not live. */
int gw_handle_adopt(uint64_t id);
/* Frees every pending id (orphans of an interrupted call). */
void gw_handle_sweep(void);
/* The data of a live id (borrowed), or NULL. */
clip_data *gw_handle_get(uint64_t id);
/* Destroys the data of id; unknown ids are ignored (clear after clear mex). */
void gw_handle_free(uint64_t id);
/* Number of live ids. */
size_t gw_handle_count(void);
/* Destroys every live array (mexAtExit). */
void gw_handle_free_all(void);

/* MATLAB array <-> clip data (convert.c). Arrays are single or double, real or complex, full,
 * of any number of dimensions; others fail with clip:badClass, clip:sparse or clip:dims. */
/* A view of `a` for the duration of one call: its own memory wrapped (clip_data_wrap; read in
 * place where the device shares host memory), or, for complex parts MATLAB keeps split, an
 * interleaved copy. The caller destroys it, and finishes the device work that reads it, before
 * returning to MATLAB. Returns 0 or fills *e. */
int gw_wrap_input(clip_app *app, const mxArray *a, clip_data **out, gw_error *e);
/* A new device-resident copy of `a` (clip.Array), written straight from a's memory to the
 * device. Returns 0 or fills *e. */
int gw_upload(clip_app *app, const mxArray *a, clip_data **out, gw_error *e);
/* A new MATLAB array of type t and dims and, in *out, clip data wrapped over it, for a process
 * to write its result into. Both NULL (and 0 returned) for complex types in split storage, which
 * go through gw_to_matlab instead. On success the caller owns both. */
int gw_new_output(clip_app *app, clip_type t, int nd, const size_t *dims, mxArray **mx,
                  clip_data **out, gw_error *e);
/* A new MATLAB array with d's contents, dims and class (f32/c32 -> single, f64/c64 -> double;
 * complex stays complex), read straight from the device when the host copy is stale. */
int gw_to_matlab(clip_data *d, mxArray **out, gw_error *e);
/* Reads a uint64 id argument (a clip.Array's Id). Returns 0 or fills *e. */
int gw_id_arg(const mxArray *a, uint64_t *id, gw_error *e);
/* A copy of a char argument (mxFree it), or NULL with *e filled naming `what`. */
char *gw_string_arg(const mxArray *a, const char *what, gw_error *e);

/* Processes kept for reuse (cache.c), keyed by process name, parameters and input types and
 * sizes, a bounded number of them, least recently used first out. A kept process holds no data
 * (clip_process_unbind after each call) and no wait: calls on clip.Array inputs return without
 * waiting for their device work. */
enum { GW_MAX_IO = 8 }; /* inputs and outputs of one call */
typedef struct gw_cached {
    clip_process *p;
    int known;                        /* the outputs below are those of an earlier init */
    int n_out;
    clip_type out_type[GW_MAX_IO];
    int out_nd[GW_MAX_IO];
    size_t out_dims[GW_MAX_IO][CLIP_MAX_DIMS];
} gw_cached;
/* The entry of `key`, or NULL (then add one with gw_cache_add). */
gw_cached *gw_cache_find(const char *key);
/* Keeps p (taking it) under `key`, destroying the least recently used entry when full. NULL
 * when out of memory (then p is destroyed). */
gw_cached *gw_cache_add(const char *key, clip_process *p);
/* Number of kept processes. */
size_t gw_cache_count(void);
/* Destroys every kept process (device switch, mexAtExit); waits for their work. */
void gw_cache_clear(void);

/* Runs process `name` (run.c): prhs = {inputs cell, params cell (name, value, ...), keep}.
 * Inputs are numeric arrays or structs with a field `id` (clip.Array). Outputs go to plhs as
 * MATLAB arrays, or with keep as uint64 ids of device-resident results. With nlhs greater than
 * the process's outputs, the next output is the device time in ms of the launch. */
int gw_run(const char *name, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[],
           gw_error *e);

#endif
