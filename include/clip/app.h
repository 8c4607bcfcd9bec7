/* clip — the app context: one OpenCL device (or several), its context, an in-order profiling
 * queue, and the programs built for it.
 *
 * Several devices: criteria (or CLIP_DEVICE, or --device) may name several devices ("all",
 * "gpu:all", "1,2"). The app then has one context per platform, a queue on its first device
 * and, from its first split launch on, two more per device; the first device is the app's
 * primary device (clip_app_device), where data objects keep their device copies and processes
 * without a split run. A process that can split its work (see clip/process_author.h, `plan`)
 * runs its pieces on every device of the app; the same mechanism streams data larger than a
 * device through it in pieces. A single-device app behaves exactly as an app always did.
 *
 * Ownership: the app owns its OpenCL objects and nothing the user created. Data and process
 * objects keep the app's internals alive by reference, so objects may be destroyed in any order.
 *
 * Thread safety: separate apps may be used from separate threads concurrently. One app, and the
 * data and process objects made from it, must not be used from two threads at the same time
 * (the user serialises such use); the last-error message is per app.
 */
#ifndef CLIP_APP_H
#define CLIP_APP_H

#include "export.h"

#include <stddef.h>
#include <stdint.h>

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct clip_app clip_app;

/* Device type filter for clip_criteria.type. */
typedef enum clip_device_kind {
    CLIP_DEVICE_ANY = 0,
    CLIP_DEVICE_GPU,
    CLIP_DEVICE_CPU,
    CLIP_DEVICE_ACCELERATOR
} clip_device_kind;

/* Most devices one app can drive. */
#define CLIP_MAX_APP_DEVICES 16

/* What the user wants of a device. Zero-initialise and set what matters; every field that is
 * zero/NULL does not filter. Among the devices that pass every filter, the one with the highest
 * score (clip_device_info.score) is chosen; ties go to the lower index. With `all` set, every
 * device that passes is taken, best first; with `n_indices` > 0, exactly the listed devices, in
 * that order (the other filters must still pass for each). */
typedef struct clip_criteria {
    clip_device_kind type; /* GPU, CPU, accelerator, or any */
    const char *vendor;    /* case-insensitive substring of the vendor name */
    const char *name;      /* case-insensitive substring of the device name */
    int min_version_major; /* minimum OpenCL version of the device, e.g. 1 and 2 */
    int min_version_minor;
    const char *extensions;            /* space-separated extensions the device must all have */
    int index;                         /* if > 0: pick the device with this 1-based global index */
    int ignore_env;                    /* if non-zero, CLIP_DEVICE in the environment is not read */
    int disable_fp64;                  /* treat the device as lacking cl_khr_fp64 (for testing) */
    int all;                           /* if non-zero: every device that passes, best first */
    int n_indices;                     /* if > 0: exactly the devices indices[0..n_indices-1] */
    int indices[CLIP_MAX_APP_DEVICES]; /* 1-based global indices, no repeats */
} clip_criteria;

/* One OpenCL device as clip sees it. */
typedef struct clip_device_info {
    int index; /* 1-based, over all platforms in enumeration order */
    char name[128];
    char vendor[128];
    char platform[128];
    char version[128]; /* CL_DEVICE_VERSION, e.g. "OpenCL 3.0 CUDA" */
    char driver[128];  /* CL_DRIVER_VERSION */
    clip_device_kind type;
    int version_major, version_minor;
    unsigned compute_units;
    unsigned clock_mhz;
    uint64_t global_mem; /* bytes */
    uint64_t local_mem;  /* bytes */
    uint64_t max_alloc;  /* bytes */
    size_t max_work_group;
    int fp64;              /* non-zero if cl_khr_fp64 (or OpenCL 3.0 fp64 caps) is present */
    double score;          /* the default-choice score, see clip_device_score_doc */
    int nv_arch;           /* NVIDIA compute capability x 10 (90 for 9.0) through
                            * cl_nv_device_attribute_query; 0 on devices without it */
    uint64_t global_cache; /* bytes of the global memory cache (CL_DEVICE_GLOBAL_MEM_CACHE_SIZE;
                            * PoCL gives the CPU's last-level cache); 0 when not reported */
} clip_device_info;

/* How the default device is scored, as a sentence for docs and `clip devices --help`:
 * score = type weight (GPU 1e6, accelerator 1e5, CPU 1e3, other 1) + compute units x clock
 * in MHz / 1000 (a proxy for throughput). So a GPU beats a CPU; among GPUs, the bigger wins. */
extern CLIP_API const char *const clip_device_score_doc;

/* Lists every OpenCL device of every platform. Writes up to `cap` entries to `out` (may be NULL
 * when cap is 0) and the total count to *count, which is 0 after any failure but a NULL count.
 * Errors: CLIP_ERR_INVALID_ARG (count NULL, or out NULL with cap > 0), CLIP_ERR_NO_DEVICE (no
 * platform at all), CLIP_ERR_OUT_OF_MEMORY. The message of a failure is available from
 * clip_app_last_error(NULL). */
CLIP_API clip_status clip_devices_list(clip_device_info *out, size_t cap, size_t *count);

/* Parses a CLIP_DEVICE-style spec into criteria: "gpu", "cpu", "accelerator", a 1-based index
 * ("2"), a list of indices ("1,2": an app over exactly those devices), "all" (every device),
 * "gpu:all", "cpu:all", "accelerator:all" (every device of that type), or otherwise a name
 * substring. `spec` must outlive `crit` when it is a name.
 * Errors: CLIP_ERR_INVALID_ARG (NULL or empty spec, an index below 1, a list with a repeat, an
 * empty item or more than CLIP_MAX_APP_DEVICES items). */
CLIP_API clip_status clip_criteria_from_spec(const char *spec, clip_criteria *crit);

/* Index (1-based) of the device clip_app_create(crit) would open, without opening it (for
 * criteria naming several devices: the first, the app's primary device).
 * Errors: as clip_app_create's selection errors. */
CLIP_API clip_status clip_device_select(const clip_criteria *crit, int *index);

/* Opens an app on the best device that meets `crit` (NULL = no criteria), or on every device it
 * names (all, n_indices). If the environment variable CLIP_DEVICE is set (and crit->ignore_env is
 * 0) its spec replaces the type, name, index, all and indices criteria. On success *app is a new
 * app the caller destroys with clip_app_destroy. On failure *app is NULL and
 * clip_app_last_error(NULL) tells why.
 * Testing: CLIP_TEST_MAX_ALLOC=BYTES in the environment lowers every device's largest allocation
 * (clip_device_info.max_alloc of the app, never raised) so that tests can force the streamed
 * paths on small data.
 * Errors: CLIP_ERR_INVALID_ARG (app NULL, CLIP_DEVICE not a spec, n_indices past
 * CLIP_MAX_APP_DEVICES or a device listed twice), CLIP_ERR_NO_DEVICE (nothing matches: the
 * message lists the criteria; a listed index that names no device), CLIP_ERR_OPENCL (context or
 * queue creation failed), CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_app_create(clip_app **app, const clip_criteria *crit);

/* Releases the caller's reference. OpenCL objects are freed when the last data or process object
 * made from the app is destroyed too. NULL is a no-op. */
CLIP_API void clip_app_destroy(clip_app *app);

/* Information about the app's (primary) device. Returns a pointer valid while the app lives. */
CLIP_API const clip_device_info *clip_app_device(const clip_app *app);

/* How many devices the app drives (1 for a single-device app; 0 for NULL). */
CLIP_API int clip_app_device_count(const clip_app *app);

/* Information about device i (0 = the primary device) of the app, or NULL when i is out of
 * range. Valid while the app lives. */
CLIP_API const clip_device_info *clip_app_device_at(const clip_app *app, int i);

/* The message of the last failed call on `app` (empty string if none). With app NULL: the last
 * failure of a call that had no app (clip_app_create, clip_devices_list) in this thread.
 * The pointer is valid until the next clip call on the same app (or thread). Never NULL. */
CLIP_API const char *clip_app_last_error(const clip_app *app);

/* Waits until every command enqueued on the app's queue has finished.
 * Errors: CLIP_ERR_INVALID_ARG (NULL app), CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_app_finish(clip_app *app);

/* Counters of host<->device traffic since the app was created, for tests and tuning. A split
 * launch (several devices, or data streamed in pieces) counts each piece's upload and download:
 * one copy per rectangular region moved. */
typedef struct clip_transfer_stats {
    uint64_t to_device; /* number of host->device copies */
    uint64_t to_host;   /* number of device->host copies */
    uint64_t bytes_to_device;
    uint64_t bytes_to_host;
    uint64_t between_devices; /* copies from the primary device's buffer to another device's */
    uint64_t bytes_between_devices;
} clip_transfer_stats;

/* Copies the app's transfer counters into *stats. Errors: CLIP_ERR_INVALID_ARG. */
CLIP_API clip_status clip_app_transfer_stats(const clip_app *app, clip_transfer_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
