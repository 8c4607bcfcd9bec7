/* clip — the API for writing a process.
 *
 * A process is declared once, as data: a clip_process_desc with its name, a one-line summary,
 * its inputs and outputs, a table of parameters, and its init/launch/release functions. The same
 * table validates parameters in the C API, parses `clip run NAME --param value`, and prints
 * `clip help NAME`. Built-in processes live in processes/, one file each, and are listed once in
 * processes/registry.c; a user program may register its own with clip_process_register().
 *
 * A process, built-in or a user's (registered by a program, or loaded from a plugin: see
 * clip/plugin.h and docs/writing-a-process.md), reaches OpenCL objects through the functions
 * below: it gets its kernels from clip_proc_kernel_source / clip_proc_kernel_file (a user's
 * OpenCL C, as a string or a file) or clip_proc_kernel (the built-ins' embedded files), all built
 * the same way, once per app, device, type and options, and cached; device buffers of its data
 * from clip_proc_read_buffer / clip_proc_write_buffer, temporaries from clip_proc_temp, and it
 * enqueues through clip_proc_enqueue so that launches are timed. Everything a process gets this
 * way is owned by the process object and released by the core (at re-init,
 * clip_process_set_output, unbind and destroy). Raw OpenCL (clip_proc_cl_context below) is only
 * for driving an OpenCL library such as clFFT.
 */
#ifndef CLIP_PROCESS_AUTHOR_H
#define CLIP_PROCESS_AUTHOR_H

#include "export.h"

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

#include "process.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One parameter of the table (clip_param_kind and the flags are in process.h). Registration
 * refuses a table with a name missing or used twice, a kind out of the enum, a CHOICE without
 * names, a range whose min exceeds max, a default outside the range (or past a CHOICE's names),
 * or no doc. */
typedef struct clip_param_desc {
    const char *name; /* e.g. "shape"; the CLI option is --shape */
    clip_param_kind kind;
    double def;                 /* default value; for CHOICE the index of the default name */
    int has_range;              /* if non-zero, REAL/INT values must lie between min and max */
    double min, max;            /* included unless min_open / max_open; may be +-INFINITY */
    const char *const *choices; /* CHOICE: NULL-terminated list of allowed names. REAL: NULL,
                                   or names accepted in place of a number (norm's p = fro):
                                   set by clip_process_set_choice or the CLI, read back by
                                   clip_proc_named; the value then reads NaN */
    const char *doc;            /* one line for help */
    unsigned flags;             /* CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO (process.h) */
    int min_open, max_open;     /* non-zero: min / max excluded from the range, as in (0, 10] */
} clip_param_desc;

/* The descriptor layout this header declares; a descriptor carries it in `abi` and
 * registration refuses any other value (a plugin built against another clip). */
#define CLIP_PROCESS_ABI 3

typedef struct clip_plan clip_plan;

struct clip_process_desc {
    unsigned abi;                   /* CLIP_PROCESS_ABI: first, so any layout can read it */
    const char *name;               /* registry name, e.g. "conv2": letters, digits, '_' */
    const char *summary;            /* one line: what it computes, in MATLAB terms */
    int n_inputs;                   /* 0 to CLIP_PROC_MAX_IO; outputs 1 to CLIP_PROC_MAX_IO */
    const char *const *input_names; /* n_inputs short identifiers, "A", "K", "u" */
    const char *const *input_docs;  /* n_inputs lines, "left matrix (M x K)" */
    int n_outputs;
    const char *const *output_names;
    const char *const *output_docs;
    const clip_param_desc *params;
    int n_params;
    size_t state_size; /* bytes of private state, zeroed at create */
    /* Validates and prepares: inputs are set (checked by the core), parameters are in range.
     * Must create every output with clip_proc_output. Returns a status via clip_proc_fail. */
    clip_status (*init)(clip_process *p);
    /* Enqueues the work; inputs and outputs are exactly those init saw. */
    clip_status (*launch)(clip_process *p);
    /* Optional: frees what init put in the state besides core-owned objects. Called before a
     * re-init and at destroy; must tolerate a state left half-built by a failed init. */
    void (*release)(clip_process *p);
    /* Optional: how the work divides into pieces (see "Splitting work" below). Called by init in
     * place of `init` when the app has several devices, or when an input or output is larger
     * than the device can hold. Must create every output (clip_proc_output) as init would, and
     * describe the pieces with clip_plan_add; adding no piece means "run whole, as init". */
    clip_status (*plan)(clip_process *p, clip_plan *plan);
    /* Non-zero where an output may be one of the inputs: element-wise work that reads each
     * element before it writes the same one. Otherwise clip_proc_output refuses such an output
     * (CLIP_ERR_INVALID_ARG): a product, transpose or filter reads its inputs in another order
     * than it writes, and would read what it has already overwritten. */
    int in_place;
    /* Non-zero lets clip_process_rebind keep init's work for new inputs and outputs of the same
     * types and dims. The author promises that (1) launch reaches every input and output afresh
     * (clip_proc_input, clip_proc_input_buffer, clip_process_output, ...) and init keeps no cl_mem
     * or clip_data of them; (2) init depends on the inputs only through their types and dims and
     * through values it reads with clip_data_host or clip_data_read (the core sees those reads,
     * keeps a copy of what was read and inits again when a rebound input's values differ: conv2's
     * K); (3) init writes nothing into an output. 0 (the safe default): every rebind inits again.
     */
    int rebind;
    /* Non-zero where transposing the inputs transposes the outputs: for 2-D inputs, f(A.', B.',
     * ...) = f(A, B, ...).' with the same parameters, each output within the process's accuracy
     * contract (the last bits may differ, as sums may run in another order). A binding whose
     * arrays lie row-major (NumPy's C order, where an r x c array's memory is the c x r matrix
     * A.' in column-major order) then passes them as they lie and reads each output back
     * transposed, with no copy (clip_process_desc_transposes). Declared by conv2 (its shapes,
     * pads and normalize are alike along both dimensions), matpow, transpose and scale
     * (element-wise work has it); not by matmul (A*B's transpose is B.'*A.', its inputs
     * swapped) nor norm (the 1- and Inf-norms swap). */
    int transposes;
};

/* Adds a process to the registry (the descriptor must outlive every use, e.g. be static). The
 * built-ins are registered first, so their names cannot be taken. Errors: CLIP_ERR_INVALID_ARG,
 * with a message naming the process and the field: NULL d, an abi other than CLIP_PROCESS_ABI,
 * a missing or malformed name, no summary, init or launch, counts out of range, a missing
 * names or docs table (or entry) for inputs or outputs, a name used twice among them, a
 * parameter table refused as clip_param_desc says, a name already registered;
 * CLIP_ERR_OUT_OF_MEMORY (registry full). */
CLIP_API clip_status clip_process_register(const clip_process_desc *d);

/* ---- for init and launch ---------------------------------------------------------------- */

CLIP_API void *clip_proc_state(clip_process *p);
CLIP_API clip_app *clip_proc_app(clip_process *p);
CLIP_API const clip_device_info *clip_proc_device(clip_process *p);
/* The OpenCL device (owned by the core), for clGetKernelWorkGroupInfo and similar queries. */
CLIP_API cl_device_id clip_proc_cl_device(clip_process *p);
/* Input i (borrowed; never NULL inside init/launch). */
CLIP_API clip_data *clip_proc_input(clip_process *p, int i);
/* Current values of parameters by name. A name not in the table reads 0 and marks the process:
 * the init or launch that read it then fails with CLIP_ERR_UNKNOWN_PARAM naming the parameter
 * (a misspelt name never computes silently). */
CLIP_API double clip_proc_real(const clip_process *p, const char *name);
CLIP_API long clip_proc_int(const clip_process *p, const char *name);
CLIP_API int clip_proc_bool(const clip_process *p, const char *name);
CLIP_API int clip_proc_choice(const clip_process *p, const char *name); /* index into choices */
/* A REAL parameter with names: the index of the name it holds, or -1 when it holds a number. */
CLIP_API int clip_proc_named(const clip_process *p, const char *name);

/* Sets the app's last error to "PROCESS: <formatted message>" and returns s. */
CLIP_API clip_status clip_proc_fail(clip_process *p, clip_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Creates output i with the given type and dims, or, if the user supplied one, checks that it
 * has exactly that type (CLIP_ERR_TYPE) and numel and dims (CLIP_ERR_SHAPE). *out is borrowed,
 * and set only on success. Errors: those two, CLIP_ERR_INVALID_ARG (no output i; a supplied
 * output that is one of the inputs, unless the descriptor is in_place), and clip_data_create's
 * errors (CLIP_ERR_DIMS, CLIP_ERR_OVERFLOW, CLIP_ERR_OUT_OF_MEMORY, ...). */
CLIP_API clip_status clip_proc_output(clip_process *p, int i, clip_type type, int ndims,
                                      const size_t *dims, clip_data **out);

/* Records the variant name init chose (copied; shown by clip_process_variant and --time). */
CLIP_API void clip_proc_set_variant(clip_process *p, const char *variant);

/* ---- kernels ------------------------------------------------------------------------------
 * Every program, built-in or a user's, is built the same way: once per app and device for each
 * element type and option string (cached by its source, type and options, released with the
 * app), with kernels/common.cl before the source and -DCLIP_DOUBLE=0/1 -DCLIP_COMPLEX=0/1 for
 * `type`, then the extra `options`. common.cl is the kernel API (stable; prefixed clip_/CLIP_):
 *   clip_real_t     float or double (CLIP_REAL names the same scalar type for token pasting)
 *   clip_complex_t  float2 or double2, (re, im), as complex data is stored
 *   clip_elem_t     the element type: clip_complex_t when CLIP_COMPLEX, else clip_real_t
 *   clip_real4_t    a vector of four reals; CLIP_CAT(a, b) pastes tokens through macros
 *   complex arithmetic on clip_complex_t: clip_cmul(a, b), clip_cconjmul(a, b) = conj(a)*b,
 *     clip_cdiv(a, b), clip_cabs(a), clip_carg(a), clip_cexp(a), clip_clog(a),
 *     clip_cpowr(a, x) = a^x for a real x (principal branch, as MATLAB's power); + and - are the
 *     vector operators
 *   compensated sums: CLIP_TWOSUM(T, s, c, x) adds x to s keeping the rounding error in c,
 *     CLIP_FOLD(s, c) the sum; clip_addc(&s, &c, v) the same for a line's running sum
 * A user's source is also built with -DCLIP_USER_KERNEL=1 (the complex helpers that call the
 * math library are compiled only then, or with -DCLIP_COMPLEX_MATH, so that programs which do
 * not use them stay small). For f64/c64 the fp64 extension is enabled by common.cl; a device
 * without it is refused before anything is built (CLIP_ERR_NO_FP64). A kernel gets the process's
 * buffers through clip_proc_read_buffer / clip_proc_write_buffer and runs through
 * clip_proc_enqueue. The kernel object belongs to the process and is released by the core (see the
 * top of this file). Errors of the three calls below: CLIP_ERR_NO_FP64 (double type on a device
 * without fp64), CLIP_ERR_BUILD (the message names the process and has the build log),
 * CLIP_ERR_OPENCL (no kernel of that name in the program: clCreateKernel's code),
 * CLIP_ERR_INVALID_ARG (options that with clip's own pass 1 KiB), CLIP_ERR_OUT_OF_MEMORY. */

/* A kernel from OpenCL C source text `source` (a NUL-terminated string the caller keeps; the
 * cache keys it by a hash of its contents). Also CLIP_ERR_INVALID_ARG: a NULL argument. */
CLIP_API clip_status clip_proc_kernel_source(clip_process *p, const char *source, clip_type type,
                                             const char *options, const char *kernel_name,
                                             cl_kernel *k);
/* The same from the file at `path`, read at each call (a changed file is a new program). Also
 * CLIP_ERR_IO: the file cannot be read (the message names it). */
CLIP_API clip_status clip_proc_kernel_file(clip_process *p, const char *path, clip_type type,
                                           const char *options, const char *kernel_name,
                                           cl_kernel *k);
/* The built-in processes' call: the source is one of the files embedded in the library,
 * kernels/SOURCE.cl, built as above. SOURCE "LIB+NAME" builds kernels/LIB.cl between common.cl
 * and NAME.cl (shared building blocks that only some devices compile, such as tensor_core.cl); up
 * to four names in all, joined in order, as in "tensor_core+tf32+conv2+conv2_tensor". Built-in
 * kernels also see common.cl's short aliases (real_t, complex_t, elem_t, real4_t;
 * -DCLIP_SHORT_NAMES=1),
 * which user sources do not, so that those names stay free for a user's kernel. Also
 * CLIP_ERR_INVALID_ARG: no embedded source of that name, more than four names, a name of 64
 * characters or more. */
CLIP_API clip_status clip_proc_kernel(clip_process *p, const char *source, clip_type type,
                                      const char *options, const char *kernel_name, cl_kernel *k);

/* Appends " VALUE" to the build options in buf (cap bytes, NUL-terminated) when the environment
 * variable `var` is set and not empty, and leaves buf alone when it is not or the value does not
 * fit: a process's experiment hook (CLIP_GEMM_DEFS, CLIP_CONV2_DEFS), so that more -D options
 * reach its kernels without a rebuild of clip. Appended last, they win: the compiler keeps a
 * macro's last definition, and clip_proc_kernel the last -DCLIP_SM90A_MAXNREG=N. */
CLIP_API void clip_proc_options_from_env(char *buf, size_t cap, const char *var);

/* Device buffer of d for reading at launch: uploads the host copy if the device copy is stale.
 * *mem is NULL for empty data. Errors: CLIP_ERR_OPENCL, CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_proc_read_buffer(clip_process *p, clip_data *d, cl_mem *mem);
/* Device buffer of d that the launch will write: marks the host copy stale. If `keep` is
 * non-zero the current contents must be valid on the device (uploaded if needed), for kernels
 * that read-modify-write. Errors: CLIP_ERR_OUT_OF_MEMORY, and CLIP_ERR_OPENCL (with keep). */
CLIP_API clip_status clip_proc_write_buffer(clip_process *p, clip_data *d, int keep, cl_mem *mem);

/* A device temporary of `bytes` (> 0), owned by the process and released as above.
 * Errors: CLIP_ERR_INVALID_ARG (0 bytes), CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_proc_temp(clip_process *p, size_t bytes, cl_mem *mem);

/* Enqueues an NDRange of `k` (local may be NULL) and keeps its event for clip_process_time_ms.
 * Errors: CLIP_ERR_OPENCL (message names the kernel and the OpenCL code). */
CLIP_API clip_status clip_proc_enqueue(clip_process *p, cl_kernel k, cl_uint work_dim,
                                       const size_t *global, const size_t *local);
/* Enqueues a device copy (timed). Errors: CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_proc_copy(clip_process *p, cl_mem src, size_t src_off, cl_mem dst,
                                    size_t dst_off, size_t bytes);
/* Enqueues a fill of `bytes` at `offset` with the `pattern_size`-byte pattern (timed).
 * Errors: CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_proc_fill(clip_process *p, cl_mem mem, const void *pattern,
                                    size_t pattern_size, size_t offset, size_t bytes);

/* Mixed-type inputs. In init, clip_proc_input_as(p, i, t) declares that the kernels want input i
 * as type t (e.g. clip_type_promote of both inputs); if it already is t nothing is done, else a
 * device temporary and a conversion kernel are prepared. At launch, clip_proc_input_buffer(p, i,
 * &mem) gives the buffer holding input i as that type (uploading and converting on the device as
 * needed; never through the host). Without a clip_proc_input_as call it is the input's own
 * buffer. Errors: CLIP_ERR_INVALID_ARG (no input i), CLIP_ERR_TYPE (complex to real),
 * CLIP_ERR_NO_FP64, CLIP_ERR_BUILD, CLIP_ERR_OVERFLOW, CLIP_ERR_OUT_OF_MEMORY, CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_proc_input_as(clip_process *p, int i, clip_type t);
CLIP_API clip_status clip_proc_input_buffer(clip_process *p, int i, cl_mem *mem);
/* Input i for kernels that read it from an element offset, so that caller memory goes in with no
 * copy where alignment alone would cost one. Where input i is memory a program wrapped
 * (clip_data_wrap) on a device that works on host memory, and it is not aligned as that device's
 * buffers must be (NumPy's large arrays lie 16 bytes past a page; PoCL's kernels assume 128), the
 * data would be staged: one copy at every upload. Here *mem is instead a read-only buffer over
 * that memory from the aligned address below it, and *offset the number of elements before input
 * i's first one: the kernels must read input i from there on and never write *mem. Everywhere
 * else (aligned or clip's own memory, a device with memory of its own, an input whose newest copy
 * is on the device, an input converted by clip_proc_input_as, a piece of a split launch) it is
 * clip_proc_input_buffer's buffer and *offset is 0. The buffer is owned by the core.
 * Errors: as clip_proc_input_buffer. */
CLIP_API clip_status clip_proc_input_view(clip_process *p, int i, cl_mem *mem, size_t *offset);

/* ---- the tuning cache (lib/tuning.c documents the file) ------------------------------------
 * A plain-text file keyed by device name and driver version: $CLIP_TUNING_CACHE, else
 * $XDG_CACHE_HOME/clip/tuning.txt, else ~/.cache/clip/tuning.txt. */

/* Finds the value stored for (app's device, driver, process, key); copies it into value and
 * returns 1, or returns 0 when there is none or the file is malformed (then the whole file is
 * ignored and clip_tuning_warning() says why). Processes call it in init and must validate what
 * they get. */
CLIP_API int clip_tuning_lookup(const clip_app *app, const char *process, const char *key,
                                char *value, size_t cap);
/* Adds an entry (a later entry overrides an earlier one) by rewriting the file through a
 * temporary, fsync and rename, under an flock on "<cache>.lock": a failed store leaves the cache
 * as it was, and concurrent stores keep each other's entries. Errors: CLIP_ERR_INVALID_ARG (NULL,
 * a field with TAB/newline, an entry longer than a line may be), CLIP_ERR_IO (with the path and
 * the system's reason), CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_tuning_store(clip_app *app, const char *process, const char *key,
                                       const char *value);
/* The warning of the last lookup in this thread ("" if none). */
CLIP_API const char *clip_tuning_warning(void);
/* The cache file's path. Errors: CLIP_ERR_IO (neither XDG_CACHE_HOME nor HOME set, or a path
 * that does not fit cap). */
CLIP_API clip_status clip_tuning_path(char *buf, size_t cap);

/* For a process that drives an OpenCL library (conv2's FFT path through clFFT) on the app's
 * context and in-order queue; both are borrowed (owned by the app). */
CLIP_API cl_context clip_proc_cl_context(clip_process *p);
CLIP_API cl_command_queue clip_proc_cl_queue(clip_process *p);
/* Takes ownership of `ev`, the event of work the process enqueued itself on that queue during
 * launch, so that clip_process_time_ms includes it. */
CLIP_API void clip_proc_keep_event(clip_process *p, cl_event ev);

/* Sets kernel argument `index` and turns an OpenCL failure into a clip status with a message. */
CLIP_API clip_status clip_proc_arg(clip_process *p, cl_kernel k, cl_uint index, size_t size,
                                   const void *value);

/* ---- Splitting work: several devices, and data larger than a device -----------------------
 * A process with a `plan` describes its work as pieces; the runtime (lib/plan.c) decides where
 * and when each runs. A piece is the same process, with the same parameters, run on boxes of the
 * inputs; from each of its outputs the runtime keeps one box and writes it into the full output
 * at a given place (or, for an output declared with clip_plan_combine, hands every piece's whole
 * output to a combine function, in piece order, so results never depend on timing). The runtime
 * runs pieces round-robin over the app's devices, two queues per device so that one piece's
 * transfers overlap the previous one's kernels, and asks for more pieces while a piece's input
 * would not fit a device. A split launch returns when its outputs are complete on the host.
 * A queue's next piece reuses the previous piece's init when its inputs keep their shapes (only
 * their values change): so init may depend on the shapes, types and parameters, and on the
 * values of inputs every piece reads whole (conv2's K), never on the values of a cut input.
 * CLIP_TEST_REINIT=1 in the environment (read at each launch; tests/CMakeLists.txt runs test_plan
 * so) makes every piece init afresh: a process that breaks this rule then gives another result.
 * A piece's inputs are whole data objects of the box's shape, current on its device; what the
 * piece writes on its device (clip_proc_write_buffer) or leaves on the host is copied into the
 * full output's host storage, which the runtime, not the process, marks current. */

/* Most inputs/outputs of a process. */
#define CLIP_PROC_MAX_IO 8

typedef struct clip_piece {
    clip_box in[CLIP_PROC_MAX_IO];              /* what the piece reads of each input */
    clip_box keep[CLIP_PROC_MAX_IO];            /* what is kept of the piece's own output i */
    size_t at[CLIP_PROC_MAX_IO][CLIP_MAX_DIMS]; /* where that box lands in the full output i */
} clip_piece;

/* Combines the n pieces' outputs (each the full output's shape and type, stored one after the
 * other in `partials`, piece order) into `result` (the full output's host storage). */
typedef clip_status (*clip_combine_fn)(clip_process *p, int output, const void *partials, size_t n,
                                       void *result);

/* How many pieces the runtime asks for: the number of devices (2 at least), doubled while a
 * piece does not fit. A plan may return fewer (small problems) or more (whole slices). */
CLIP_API size_t clip_plan_target(const clip_plan *plan);
/* The number of devices the pieces will run on. */
CLIP_API int clip_plan_devices(const clip_plan *plan);
/* The largest allocation any piece may make on every device (bytes). */
CLIP_API uint64_t clip_plan_max_alloc(const clip_plan *plan);
/* The bytes one piece may hold on its device, its input boxes and the output boxes it keeps
 * together: half a device's memory (two pieces in flight), or 1 GiB while the work is streamed
 * (data larger than a device, or one device). A hook whose pieces would all read one whole input
 * checks that input against it, since doubling the target cannot make such pieces fit. */
CLIP_API uint64_t clip_plan_max_mem(const clip_plan *plan);
/* The whole of data d as a box (every dimension from 0, full count). */
CLIP_API void clip_box_all(const clip_data *d, clip_box *box);
/* Adds a piece (copied). Boxes of inputs and kept outputs must lie inside their arrays, and a
 * kept box with its `at` inside the full output. Errors: CLIP_ERR_INVALID_ARG (a box outside,
 * named in the message), CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_plan_add(clip_plan *plan, const clip_piece *piece);
/* Declares output i combined from whole partial outputs by fn instead of placed by boxes. */
CLIP_API void clip_plan_combine(clip_plan *plan, int output, clip_combine_fn fn);
/* Band b of `parts` near-equal bands of n items (the first n % parts bands one longer). */
CLIP_API void clip_plan_band(size_t n, size_t parts, size_t b, size_t *start, size_t *count);
/* For element-wise processes (every input and output of one shape): clip_plan_target bands of
 * the largest dimension, each read and written at the same place. Adds nothing when that
 * dimension has fewer than 2 items. Errors: as clip_plan_add. */
CLIP_API clip_status clip_plan_bands(clip_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
