/* clip — process objects: create, set parameters and data, init, launch.
 *
 * Life of a process:
 *   clip_process_create(app, "conv2", &p);          by registered name
 *   clip_process_set_choice(p, "shape", "same");    parameters, validated against the table
 *   clip_process_set_input(p, 0, image);            inputs (and optionally outputs)
 *   clip_process_init(p);                           ALL validation happens here; picks the
 *                                                   kernel variant, allocates outputs/temporaries
 *   clip_process_launch(p);                         enqueues and returns at once
 *   clip_process_output(p, 0, &out);                borrowed output, data on the device
 *                                                   (a split launch: on the host; see launch)
 *   clip_process_rebind(p, inputs, outputs, NULL);  other data of the same types and sizes:
 *                                                   init's work kept where that is safe
 * Launching A then B with A's output as B's input never copies through the host.
 * When init fails nothing is enqueued, the message is in clip_app_last_error(app), and the app
 * and the process stay usable (fix the parameter and call init again).
 *
 * Every process is described by a table (see process_author.h); clip_process_help() prints it,
 * and the `clip` tool parses `--NAME VALUE` options through it.
 */
#ifndef CLIP_PROCESS_H
#define CLIP_PROCESS_H

#include "export.h"

#include <stddef.h>
#include <stdio.h>

#include "app.h"
#include "data.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clip_process clip_process;
typedef struct clip_process_desc clip_process_desc;

/* The kind of a parameter. */
typedef enum clip_param_kind {
    CLIP_PARAM_REAL,  /* double; the CLI accepts inf, -inf, nan */
    CLIP_PARAM_INT,   /* long */
    CLIP_PARAM_BOOL,  /* 0/1; on the CLI a bare --NAME means true */
    CLIP_PARAM_CHOICE /* one of a list of names; stored as its index */
} clip_param_kind;

/* Flags of a parameter. */
#define CLIP_PARAM_EXPERT                                                                          \
    1u                     /* a tuning knob (tile sizes, work-group sizes, ...): bindings keep     \
                              it out of the generated signature (keyword-only / hidden) */
#define CLIP_PARAM_AUTO 2u /* its default (0) means "let the process choose" */

/* A parameter as the descriptor declares it (clip_process_desc_param). All pointers are
 * borrowed from the static descriptor. */
typedef struct clip_param_info {
    const char *name; /* e.g. "shape"; the CLI option is --shape */
    clip_param_kind kind;
    double def;                 /* default value; CHOICE: index of the default name */
    int has_range;              /* non-zero: REAL/INT values must lie between min and max */
    double min, max;            /* may be +-INFINITY */
    int min_open, max_open;     /* non-zero: that end of the range is excluded, (0, 10] */
    const char *const *choices; /* CHOICE: NULL-terminated names; REAL: NULL or names accepted
                                   in place of a number (norm's p = fro) */
    const char *doc;            /* one line */
    unsigned flags;             /* CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO */
} clip_param_info;

/* Creates a process by registered name, with every parameter at its default. The process holds
 * a reference to the app. Errors: CLIP_ERR_INVALID_ARG, CLIP_ERR_UNKNOWN_PROCESS (the message
 * lists the registered names), CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_process_create(clip_app *app, const char *name, clip_process **out);

/* Releases the process, its kernels, temporaries, and its references to inputs and outputs.
 * Waits for its enqueued work first. NULL is a no-op. */
CLIP_API void clip_process_destroy(clip_process *p);

/* Parameter setters. Setting a parameter invalidates a previous init (as set_input does).
 * set_int also sets a real parameter. Errors: CLIP_ERR_INVALID_ARG (NULL p),
 * CLIP_ERR_UNKNOWN_PARAM (no such name; the message lists the parameters), CLIP_ERR_PARAM_TYPE
 * (the parameter is of another kind), CLIP_ERR_PARAM_RANGE (outside the table's range; for
 * set_text also text that does not parse), CLIP_ERR_BAD_CHOICE (not one of the allowed names).
 * Process-specific checks (e.g. a natural power for matpow) may be left to init. */
CLIP_API clip_status clip_process_set_real(clip_process *p, const char *name, double value);
CLIP_API clip_status clip_process_set_int(clip_process *p, const char *name, long value);
CLIP_API clip_status clip_process_set_bool(clip_process *p, const char *name, int value);
/* set_choice also sets a real parameter that accepts names to one of them (norm's p = "fro"). */
CLIP_API clip_status clip_process_set_choice(clip_process *p, const char *name, const char *value);
/* Sets any parameter from text, as the command line does: reals accept "inf"/"-inf"/"nan"
 * (and the names their table lists, e.g. norm's "fro"), bools accept
 * "1/0/true/false/yes/no/on/off" (and NULL for "true", a bare flag). */
CLIP_API clip_status clip_process_set_text(clip_process *p, const char *name, const char *text);

/* Reads a parameter's current value (value may be NULL: the name and kind are still checked).
 * Errors: CLIP_ERR_INVALID_ARG (NULL p), CLIP_ERR_UNKNOWN_PARAM, CLIP_ERR_PARAM_TYPE. */
CLIP_API clip_status clip_process_get_real(const clip_process *p, const char *name, double *value);
CLIP_API clip_status clip_process_get_int(const clip_process *p, const char *name, long *value);
CLIP_API clip_status clip_process_get_bool(const clip_process *p, const char *name, int *value);
/* *value is the chosen name, a static string (also for a real parameter holding a name). */
CLIP_API clip_status clip_process_get_choice(const clip_process *p, const char *name,
                                             const char **value);

/* Sets input `index` (0-based, < the process's input count). The process takes a reference.
 * Setting an input invalidates a previous init. Errors: CLIP_ERR_INVALID_ARG (NULL, index out
 * of range, or data from another app). */
CLIP_API clip_status clip_process_set_input(clip_process *p, int index, clip_data *d);

/* Optionally supplies the output object (else init creates one); the process takes a reference.
 * Undoes a previous init: the outputs init made are released (see clip_process_output). Init
 * checks that its type and shape are what the process produces (CLIP_ERR_TYPE / CLIP_ERR_SHAPE
 * otherwise), and that it is none of the process's inputs unless the process works in place
 * (scale; CLIP_ERR_INVALID_ARG otherwise). The same data may be a process's input and another's
 * output: that is how chains are built. Errors: CLIP_ERR_INVALID_ARG (NULL, index out of range,
 * or data from another app). */
CLIP_API clip_status clip_process_set_output(clip_process *p, int index, clip_data *d);

/* Validates parameters and inputs, chooses the kernel variant, builds what must be built, and
 * creates outputs and temporaries. A process that can split its work (clip/process_author.h)
 * plans pieces here instead when the app has several devices, or when its data is larger than
 * the device holds (the variant then reads "split: N pieces on D devices; ..."). Errors: whatever
 * the process rejects (the comment at the top of its processes/ file lists them),
 * CLIP_ERR_INVALID_ARG (NULL p; an output set by the caller that is one of the inputs),
 * CLIP_ERR_TYPE / CLIP_ERR_SHAPE (an output set by the caller), CLIP_ERR_MISSING_INPUT,
 * CLIP_ERR_NO_FP64, CLIP_ERR_BUILD, CLIP_ERR_OPENCL (creating a program or kernel),
 * CLIP_ERR_OVERFLOW (an output's size), CLIP_ERR_OUT_OF_MEMORY (data too large and no split that
 * fits). */
CLIP_API clip_status clip_process_init(clip_process *p);

/* Enqueues the process on the app's queue and returns without waiting. Inputs stale on the
 * device are uploaded first; the outputs are then current on the primary device only (host
 * copies stale until clip_data_host or clip_data_read, which wait for the launch). A split launch
 * (see init) runs its pieces over the app's devices and returns when its outputs are complete in
 * their host storage (their device copies stale: the next process uploads what it needs).
 * Before any piece runs, each input's source is fixed: its host copy when that is current, else
 * the primary device's buffer where every device's queue shares its context, else the host copy
 * made current then (one download). So an in-place output (scale with its input as output) reads
 * every element's old value whichever copy was current: the host storage it is written into is
 * never read as an input unless it was current before the launch. Errors: CLIP_ERR_INVALID_ARG
 * (NULL p), CLIP_ERR_NOT_INITIALIZED, CLIP_ERR_OUT_OF_MEMORY (an input's or output's device buffer
 * or host storage is made at its first launch, and may fail there), CLIP_ERR_OPENCL, and what the
 * process documents for its launch (norm's 2-norm: CLIP_ERR_UNSUPPORTED when it does not converge).
 * A split launch inits each device's piece process there, so it may also return init's errors
 * (CLIP_ERR_BUILD on a device that builds its first piece); a failed piece's message names the
 * piece and its device.
 */
CLIP_API clip_status clip_process_launch(clip_process *p);

/* Output `index` after a successful init (borrowed: valid until the process is destroyed,
 * initialised again, unbound, or given another output by clip_process_set_output, whichever comes
 * first; clip_data_retain() it to keep it longer). One the caller set by clip_process_set_output
 * lives while the caller or the process holds a reference to it. A planned process
 * (clip_process_plan, clip/plan.h) gives its outputs too, deferred (shapes, no storage).
 * Errors: CLIP_ERR_NOT_INITIALIZED (neither initialised nor planned),
 * CLIP_ERR_INVALID_ARG (NULL p or out, no output `index`). */
CLIP_API clip_status clip_process_output(clip_process *p, int index, clip_data **out);

/* Whether p's launches keep their commands' device times (on, the default, or 0 for off),
 * from the next launch on. Timing asks the OpenCL driver for a profiling event per kernel and
 * copy, which NVIDIA's driver makes cost the host several microseconds each (H100: a trivial
 * kernel enqueued back to back took 10.7-13.4 us with one, 3.7-5.2 without; bench/GEMM.md,
 * "Small products"): a chain of small processes whose times nobody reads runs faster without.
 * After a launch with timing off, clip_process_time_ms and clip_process_command_times fail.
 * Errors: CLIP_ERR_INVALID_ARG (NULL p). */
CLIP_API clip_status clip_process_set_timing(clip_process *p, int on);

/* Device time, in milliseconds, of the kernels and copies the last launch enqueued: waits for
 * them, then sums their profiling intervals. For a split launch: its wall time on the host
 * (pieces run concurrently on several queues; clip_process_command_times gives each piece's
 * device time). Errors: CLIP_ERR_NOT_INITIALIZED (never launched),
 * CLIP_ERR_INVALID_ARG (NULL p or ms; the launch had timing off: clip_process_set_timing),
 * CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_process_time_ms(clip_process *p, double *ms);

/* The same commands one by one: waits for them, writes the device time of the first `cap` in
 * enqueue order to ms[] (ms may be NULL when cap is 0), their number to *count (which may exceed
 * cap) and, when span_ms is not NULL, the time from the first one's start to the last one's end
 * (what the launch held the device, gaps between commands included). Errors: as
 * clip_process_time_ms; CLIP_ERR_INVALID_ARG for a NULL p or count. */
CLIP_API clip_status clip_process_command_times(clip_process *p, double *ms, size_t cap,
                                                size_t *count, double *span_ms);

/* Drops the process's references to its inputs and outputs, and what init made (kernels,
 * temporaries, outputs it created), keeping its parameters: set inputs and init again before the
 * next launch. Does not wait for the last launch (OpenCL keeps the buffers and kernels that
 * enqueued work uses until it finishes; its time stays readable until the next launch). For
 * programs that keep processes to reuse them (the MEX gateway's cache) without keeping data
 * alive through them, e.g. data wrapped over memory the program is about to free. NULL is a
 * no-op. */
CLIP_API void clip_process_unbind(clip_process *p);

/* Runs an initialised process on other data of the same kinds, without a new init where that is
 * safe: a repeated call or a chain then costs its launch only. inputs holds the process's
 * n_inputs data (none NULL); outputs is NULL or holds n_outputs entries, each the data to write
 * output i into (as clip_process_set_output) or NULL for a new output the process creates, of
 * the same type and dims as before (the previous one is released by the process: a caller who
 * retained it keeps it, unchanged by later launches). The process takes references as set_input
 * and set_output do and drops those to the data it held.
 *
 * p must be initialised (clip_process_init succeeded and nothing was set since) or detached
 * (clip_process_detach after such an init). Every input, and every output given, must have the
 * type and dims (and number of dims) of the one the last init saw: else CLIP_ERR_TYPE or
 * CLIP_ERR_SHAPE, naming it, and nothing changes (for other shapes: set_input and init).
 * Init's kernels, temporaries and choices are then kept when the descriptor declares `rebind`
 * (clip/process_author.h; every built-in does), the work was not split over devices or pieces,
 * and every input whose values init read (conv2's K, for its separable test) holds the same bytes
 * as then (compared with a copy the core kept, up to 1 MiB an input; reading a device-resident
 * input's values waits for it and downloads it). Otherwise the process inits again with the new
 * data, as clip_process_init would, and *reinit (when not NULL) is set to 1; 0 when init's work
 * was kept. A rebind that changes nothing of a parameter, type or shape therefore never gives
 * another result than set_input/set_output/init would (one exception by design: a tuning-cache
 * entry written after the init, clip/process_author.h, is read from the next init on).
 *
 * Errors: CLIP_ERR_INVALID_ARG (NULL p or inputs, a NULL input, data of another app, an output
 * that is one of the inputs where the process does not work in place), CLIP_ERR_NOT_INITIALIZED,
 * CLIP_ERR_TYPE, CLIP_ERR_SHAPE, CLIP_ERR_OUT_OF_MEMORY (a new output, the values' copy), what
 * reading an input's values returns (CLIP_ERR_OPENCL), and init's errors when it inits again
 * (then, as after a failed init, the process holds the new data and is not initialised). */
CLIP_API clip_status clip_process_rebind(clip_process *p, clip_data *const *inputs,
                                         clip_data *const *outputs, int *reinit);

/* Drops the process's references to its inputs and outputs, keeping what init made and the
 * types and dims it saw, so that clip_process_rebind can run it on new data without another init
 * (and the data is not kept alive meanwhile: the Python binding's cache). Does not wait for the
 * last launch (OpenCL keeps what enqueued work uses); its times stay readable. launch and output
 * are CLIP_ERR_NOT_INITIALIZED until a rebind. A split process drops its plan too (its rebind
 * inits again). On a process that is not initialised: as clip_process_unbind. NULL is a no-op. */
CLIP_API void clip_process_detach(clip_process *p);

/* A short name of the kernel variant init chose (e.g. "small 8x8x8 wg 8x8 vw 1"), or "" before
 * init. */
CLIP_API const char *clip_process_variant(const clip_process *p);

/* The process's descriptor (borrowed, static). */
CLIP_API const clip_process_desc *clip_process_descriptor(const clip_process *p);

/* Registry. Built-in processes are registered when the first app is created or the first
 * registry function is called (clip_process_register included, so a built-in name cannot be
 * taken by another process); plugins add theirs (clip/plugin.h). Returns the number of registered
 * processes; clip_process_nth returns the i-th descriptor (NULL past the end), clip_process_find
 * one by name (or NULL). */
CLIP_API size_t clip_process_count(void);
CLIP_API const clip_process_desc *clip_process_nth(size_t i);
CLIP_API const clip_process_desc *clip_process_find(const char *name);
/* Name and one-line description of a descriptor. */
CLIP_API const char *clip_process_desc_name(const clip_process_desc *d);
CLIP_API const char *clip_process_desc_summary(const clip_process_desc *d);

/* Introspection, for bindings that generate their calls from the tables (no OpenCL header
 * needed). The counts are -1 for a NULL d. */
CLIP_API int clip_process_desc_n_inputs(const clip_process_desc *d);
CLIP_API int clip_process_desc_n_outputs(const clip_process_desc *d);
CLIP_API int clip_process_desc_n_params(const clip_process_desc *d);
/* 1 where the process declares that transposing its 2-D inputs transposes its outputs
 * (clip_process_desc.transposes in clip/process_author.h: a binding may then hand it row-major
 * arrays without a copy), 0 where not, -1 for a NULL d. */
CLIP_API int clip_process_desc_transposes(const clip_process_desc *d);
/* Input / output i: *name a short identifier ("A", "K", "u"), *doc its one-line description;
 * both borrowed, static (either pointer may be NULL to skip it). Errors: CLIP_ERR_INVALID_ARG
 * (NULL d, i out of range). */
CLIP_API clip_status clip_process_desc_input(const clip_process_desc *d, int i, const char **name,
                                             const char **doc);
CLIP_API clip_status clip_process_desc_output(const clip_process_desc *d, int i, const char **name,
                                              const char **doc);
/* Parameter i, copied into *info (its pointers borrowed, static). Errors: CLIP_ERR_INVALID_ARG
 * (NULL d or info, i out of range). */
CLIP_API clip_status clip_process_desc_param(const clip_process_desc *d, int i,
                                             clip_param_info *info);

/* Writes the help text of a process (usage, inputs, outputs, parameters with kind, default,
 * range or choices, and doc) to `f`. Errors: CLIP_ERR_INVALID_ARG (NULL d or f; a descriptor
 * that registration would refuse, with the same message). */
CLIP_API clip_status clip_process_help(const clip_process_desc *d, FILE *f);

#ifdef __cplusplus
}
#endif
#endif
