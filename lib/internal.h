/* Internal to lib/: the structures behind the opaque handles and helpers the core shares.
 * Processes must not include this; they use clip/process_author.h. */
#ifndef CLIP_INTERNAL_H
#define CLIP_INTERNAL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdarg.h>
#include <stdint.h>

#include "clip/clip.h"
#include "clip/process_author.h"

#define CLIP_ERRMSG_MAX 4096

/* A program built for the app, keyed by source name and full options. */
typedef struct clip_program_entry {
    char *key;
    cl_program program;
    struct clip_program_entry *next;
} clip_program_entry;

/* Streams per device in a split launch: while one piece's kernels run, the next piece's uploads
 * proceed on the other queue (double buffering). */
#define CLIP_LANES 2

/* What lib/data.c and lib/host_pinned.c need of a device's memory at every wrap of caller memory,
 * buffer and host storage: read once when the app opens its devices (lib/app.c), so that those
 * paths read a field instead of querying the device. */
typedef struct clip_device_memory {
    size_t in_place_align; /* where the device works on host memory (CL_DEVICE_HOST_UNIFIED_MEMORY),
                              so that a buffer made over host memory is used in place: the
                              alignment in bytes its kernels may assume of a buffer (they may use
                              aligned vector loads: PoCL's do, and fault on less), from
                              CL_DEVICE_MEM_BASE_ADDR_ALIGN and at least a pointer's; 0 where it
                              has memory of its own or does not answer */
    int own_memory;        /* the device answered that it does not share host memory: page-locked
                              host storage speeds its transfers (lib/host_pinned.c) */
} clip_device_memory;

/* One device that selection chose (lib/device.c). */
typedef struct clip_chosen_device {
    cl_platform_id platform;
    cl_device_id device;
    clip_device_info info;
} clip_chosen_device;

/* The devices criteria name, the primary first; *count of them. Errors as clip_app_create's. */
clip_status clip_choose_devices(const clip_criteria *crit, clip_chosen_device *out, int *count);

/* How many device buffers an app keeps for reuse (struct clip_app's pool). */
#define CLIP_BUFFER_POOL 4
#define CLIP_PINNED_POOL 4

struct clip_app {
    int refs;       /* user handle + every data and process alive */
    int user_alive; /* the user has not called clip_app_destroy yet */
    clip_device_info info;
    clip_device_memory memory; /* the primary device's, as info */
    int fp64;                  /* usable fp64 (device has it and not disabled) */
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    clip_program_entry *programs;
    clip_transfer_stats stats;
    char error[CLIP_ERRMSG_MAX];
    /* Every device of the app (index 0 is the primary device above). Devices of one platform
     * share one context; contexts[i] is retained once per entry. */
    int n_devices;
    clip_device_info infos[CLIP_MAX_APP_DEVICES];
    clip_device_memory memories[CLIP_MAX_APP_DEVICES];
    cl_device_id devices[CLIP_MAX_APP_DEVICES];
    cl_context contexts[CLIP_MAX_APP_DEVICES];
    /* The queues a split launch runs pieces on (lib/plan.c): single-device apps of their own
     * (lanes), made at the first split launch and freed with the app. */
    struct clip_app *lanes[CLIP_MAX_APP_DEVICES][CLIP_LANES];
    struct clip_app *parent;       /* set in a lane: the app it serves (lanes never split) */
    struct clip_app *program_home; /* set in a lane: the app whose program cache it shares */
    /* Device buffers of destroyed data, kept for the next data of the same size (lib/data.c,
     * clip_data_destroy and clip_data_ensure_buffer); released with the app. */
    cl_mem pool_mem[CLIP_BUFFER_POOL];
    size_t pool_bytes[CLIP_BUFFER_POOL];
    int n_pool;
    /* Page-locked host storage of destroyed data, kept mapped for the next data of the same size
     * (lib/host_pinned.c); released with the app. */
    struct clip_pinned_block {
        void *p; /* the mapped pointer, the data's host storage */
        cl_mem mem;
        size_t bytes;
    } pinned[CLIP_PINNED_POOL];
    int n_pinned;
};

/* Releases the app's pooled device buffers (lib/data.c); called when the app is freed. */
void clip_buffer_pool_release(clip_app *app);

struct clip_data {
    int refs;
    clip_app *app;
    clip_type type;
    int ndims;
    size_t dims[CLIP_MAX_DIMS];
    size_t numel;
    size_t bytes;
    void *host; /* NULL when bytes == 0, or until first used where it is to be
                   page-locked (clip_data_host_storage) */
    cl_mem mem; /* created on first device use; NULL when bytes == 0 */
    int host_valid;
    int device_valid;
    int borrowed; /* host is the caller's memory (clip_data_wrap): never freed here */
    int in_place; /* borrowed and mem is made over host (CL_MEM_USE_HOST_PTR) */
    void *stage;  /* on a device sharing host memory, not in_place: the device
                     copy's memory, clip's own (mem is made over it; freed with mem
                     by a destructor callback) */
    struct clip_host_block *stage_block; /* stage's block (lib/host_pool.h), kept for reuse */
    cl_mem view;      /* borrowed, not in_place, on a device sharing host memory: a read-only
                         buffer over host from the aligned address below it, made at the first
                         clip_data_view; released with d */
    size_t view_off;  /* elements of view before host's first one */
    cl_mem pinned;    /* host is page-locked memory mapped from this buffer
                         (lib/host_pinned.h); NULL when host is ordinary memory */
    int zero_pending; /* host storage not made yet, and must be zeros when it is */
    unsigned long host_reads; /* clip_data_host / clip_data_read calls: a process's init that
                                 reads an input's values is seen by it (clip_process_rebind) */
};

/* Sets app's last error (or the thread's no-app message when app is NULL) and returns s. */
clip_status clip_set_error(const clip_app *app, clip_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
clip_status clip_set_errorv(const clip_app *app, clip_status s, const char *fmt, va_list ap);
/* Clears the last error (called at the start of public calls that can fail). */
void clip_clear_error(const clip_app *app);

/* Name of an OpenCL error code, e.g. "CL_OUT_OF_RESOURCES". */
const char *clip_cl_error_name(cl_int code);

/* The build log of prog on app's device, truncated to cap ("" when there is none). */
void clip_build_log(clip_app *app, cl_program prog, char *buf, size_t cap);
/* The PTX text ptx made for sm_90a (lib/program_ptx.c): every "//clip-sm90a " marker removed
 * and ".target sm_90" made ".target sm_90a" (left as it is when it already names sm_90a). A new
 * string the caller frees, or NULL when ptx names no sm_90 target or memory runs out. */
char *clip_ptx_retarget_text(const char *ptx);
/* The binary of device dev in prog (on NVIDIA the PTX text), NUL-terminated, a new string the
 * caller frees; NULL with *err set (CL_INVALID_PROGRAM_EXECUTABLE when prog has none for dev)
 * otherwise. A program of a context of several devices has a binary slot per device, empty for
 * those it was not built for. */
char *clip_program_device_binary(cl_program prog, cl_device_id dev, cl_int *err);
/* PTX text ptx with `directives` (performance-tuning directives such as ".maxnreg 168", lines
 * joined by newlines) declared for every kernel entry, before its body. A new string the caller
 * frees, or NULL when memory runs out. */
char *clip_ptx_declare(const char *ptx, const char *directives);
/* The program of kernel source `source` for data of `type` with the extra build `options`
 * (clip_proc_kernel's SOURCE: "NAME", or up to four names joined by '+', built in that order
 * after kernels/common.cl), built once per app (its program home) and cached there by source,
 * type and options; *out stays owned by the cache. Errors: CLIP_ERR_NO_FP64, CLIP_ERR_BUILD
 * (with the build log), CLIP_ERR_INVALID_ARG (a name with no embedded source, more than four
 * names, or a name of 64 characters or more), CLIP_ERR_OPENCL, CLIP_ERR_OUT_OF_MEMORY. */
clip_status clip_program_get(clip_app *app, const char *source, clip_type type, const char *options,
                             cl_program *out);
/* The program of a user's kernel `text` (clip_proc_kernel_source), cached by a hash of the text,
 * the type and the options; `label` names it in messages. Errors: as clip_program_get's. */
clip_status clip_program_user(clip_app *app, const char *label, const char *text, clip_type type,
                              const char *options, cl_program *out);
/* What both take: common.cl then n_parts texts, built with -DCLIP_DOUBLE/-DCLIP_COMPLEX for the
 * type, clip_options (the library's own) and options, cached under source_key and the options. */
clip_status clip_program_build(clip_app *app, const char *label, const char *source_key,
                               const char *const *parts, cl_uint n_parts, clip_type type,
                               const char *clip_options, const char *options, cl_program *out);
/* Replaces *prog, built from source with -DCLIP_SM90A, by the same program built for NVIDIA's
 * sm_90a target (lib/program_ptx.c says how), with `directives` declared for its kernels when
 * not NULL or empty (clip_ptx_declare: ptxas's register limit, from the option
 * -DCLIP_SM90A_MAXNREG=N, since NVIDIA's OpenCL ignores its own register limit option in a
 * build from PTX; the work-groups a compute unit must hold, -DCLIP_SM90A_MINCTAS=N); on failure
 * *prog is kept (the caller releases it) and the error names the cause, with the build log in
 * log. Errors: CLIP_ERR_BUILD, CLIP_ERR_OUT_OF_MEMORY. */
clip_status clip_program_retarget(clip_app *app, const char *source, const char *directives,
                                  char *log, size_t cap, cl_program *prog);

void clip_app_retain(clip_app *app);
void clip_app_release(clip_app *app);
/* Makes the lanes of every device of app (once). Errors: CLIP_ERR_OPENCL, CLIP_ERR_OUT_OF_MEMORY.
 */
clip_status clip_app_make_lanes(clip_app *app);

/* ---- which copy of a data object is current ----
 * Only lib/data.c changes host_valid and device_valid: everything else reads them through the
 * two tests below and changes them through the functions after them, so the rule has one home.
 * Both copies may be current; at least one always is (empty data: both). */
int clip_data_host_current(const clip_data *d);
int clip_data_device_current(const clip_data *d);
/* The device copy has been (or is being, on d's queue) written in full: the host copy is stale. */
void clip_data_mark_device_written(clip_data *d);
/* The host storage has been (or is being, by a split launch's pieces) written in full: the device
 * copy is stale. The host storage must exist (clip_data_host_storage). */
void clip_data_mark_host_written(clip_data *d);
/* Makes d readable by a split launch's pieces before any piece runs (lib/plan.c): *from_device
 * is set when the pieces are to copy their boxes from d's device buffer (host copy stale, device
 * copy current, and `shared_context`: every piece's queue is in d's context); otherwise the host
 * copy is made current here (downloaded once, blocking) and the pieces upload from it. The choice
 * holds for the whole launch, whatever the launch then marks: an in-place output (the same
 * object) is marked host-written before its pieces read it. Waits for d's queue.
 * Errors: CLIP_ERR_OUT_OF_MEMORY, CLIP_ERR_OPENCL. */
clip_status clip_data_split_source(clip_data *d, int shared_context, int *from_device);

/* Makes the device copy current (creating the buffer if needed). */
clip_status clip_data_to_device(clip_data *d);
/* Makes the host storage if it is not made yet (page-locked data is made at first use).
 * Errors: CLIP_ERR_OUT_OF_MEMORY. */
clip_status clip_data_host_storage(clip_data *d);
/* Creates the device buffer if missing, without uploading. */
clip_status clip_data_ensure_buffer(clip_data *d);
/* clip_proc_input_view's buffer for d: the view over the caller's memory (d->view, d->view_off)
 * where d is wrapped memory the device could not use in place for its alignment alone and the
 * host copy is current; else d's device buffer, made current, and offset 0. */
clip_status clip_data_view(clip_data *d, cl_mem *mem, size_t *offset);

/* Writes "3x4" style dims into buf: d's, or ndims of dims. Returns buf. */
char *clip_dims_str(const clip_data *d, char *buf, size_t cap);
char *clip_shape_str(int ndims, const size_t *dims, char *buf, size_t cap);

/* Multiplies with overflow check: returns 0 and sets *out, or -1 on overflow. */
int clip_mul_size(size_t a, size_t b, size_t *out);

/* Embedded kernel sources (generated at build time from kernels/ *.cl). NULL if unknown. */
const char *clip_kernel_source(const char *name);

/* Registers the built-in processes (processes/registry.c). */
void clip_register_builtin_processes(void);
/* Registers the built-ins once, before anything else (lib/registry.c). */
void clip_registry_ensure(void);
/* 0 when descriptor d is consistent; else non-zero with the reason, naming the process and the
 * field, in why (lib/desc_check.c). Never dereferences what a count says is absent. */
int clip_desc_check(const clip_process_desc *d, char *why, size_t cap);
/* Whether v lies in pd's range, its open ends excluded (NaN never does). */
int clip_param_in_range(const clip_param_desc *pd, double v);

#endif
