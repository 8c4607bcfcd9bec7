/* clip — N-dimensional data objects.
 *
 * Layout follows MATLAB: dims[0] is the number of rows and varies fastest (column-major), so a
 * rows x cols x channels image is stored channel plane after channel plane, each plane column
 * after column. Complex types are interleaved (re, im). A dimension may be 0 (empty data, as in
 * MATLAB's zeros(3,0)); such data has no device buffer.
 *
 * Host and device copies are synced lazily: each side is copied to the other only when it is
 * needed there and stale (counted in clip_app_transfer_stats). A process writes its outputs on
 * the device; clip_data_host() brings them back.
 * Where a process's output lives (see clip_process_launch): after a launch that ran whole, on the
 * app's primary device only (host copy stale; the launch may still be running); after a split
 * launch, in the host storage only (device copies stale; complete when the launch returns). Either
 * way the only host copy a program may assume current is the one clip_data_host or clip_data_read
 * gives after the launch: a pointer taken before a launch that writes the data (an in-place
 * output included) is not a view of the new contents until clip_data_host is called again (it
 * costs nothing when the host copy is current). A launch never changes its inputs' values
 * (except an in-place output's); a split launch may make an input's host copy current (one
 * download) when some of its devices cannot read the device copy. On a device that works on host
 * memory (CL_DEVICE_HOST_UNIFIED_MEMORY, e.g. PoCL's CPU device) the device copy is still a copy,
 * in memory clip allocates (aligned for the device, in transparent huge pages when large) rather
 * than the driver. On a device with memory of its own (a discrete GPU), clip's host storage of
 * 4 MiB and more (up to the device's largest allocation, and half the machine's memory in all) is
 * page-locked, made at first use on the host: copies from and into it run at the link's rate
 * (on an H100: ~48 GB/s up against 6-9 from ordinary memory), and several GPUs' copies proceed
 * side by side. Data that never comes to the host (a process output kept on the device) locks
 * nothing. CLIP_PINNED=0 turns this off; CLIP_PINNED=1 forces it on any device (tests).
 *
 * Ownership: data objects are reference counted. clip_data_destroy() releases the caller's
 * reference; a process that uses data as an input or output holds its own reference, so
 * destroying data a process still uses is safe. Where the device has memory of its own, the
 * buffer of destroyed data may be kept by its app (four at most, an eighth of the device's memory
 * together) for the next data of the same size, and is released with the app.
 */
#ifndef CLIP_DATA_H
#define CLIP_DATA_H

#include "export.h"

#include <stddef.h>

#include "app.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CLIP_MAX_DIMS 8

typedef enum clip_type {
    CLIP_F32 = 0, /* float */
    CLIP_F64,     /* double */
    CLIP_C32,     /* complex float: two floats, re then im */
    CLIP_C64      /* complex double: two doubles, re then im */
} clip_type;

typedef struct clip_data clip_data;

/* Bytes of one element: 4, 8, 8, 16. Returns 0 for an invalid type. */
CLIP_API size_t clip_type_size(clip_type t);
/* "f32", "f64", "c32", "c64"; "?" for an invalid type. */
CLIP_API const char *clip_type_name(clip_type t);
/* Non-zero for CLIP_C32 and CLIP_C64. */
CLIP_API int clip_type_is_complex(clip_type t);
/* Non-zero for CLIP_F64 and CLIP_C64. */
CLIP_API int clip_type_is_double(clip_type t);

/* The type MATLAB gives a binary operation on a and b: single wins over double (single*double
 * is single), and the result is complex if either is. */
CLIP_API clip_type clip_type_promote(clip_type a, clip_type b);

/* A box of an N-D array: in each dimension the first index and the count (split launches'
 * pieces, clip/process_author.h; boxes of files, clip/io.h). */
typedef struct clip_box {
    size_t start[CLIP_MAX_DIMS];
    size_t count[CLIP_MAX_DIMS];
} clip_box;

/* As clip_data_create, but the host storage is made only when the contents are first used
 * (filled with zeros then): data standing for its shape, such as the inputs a runner other than
 * lib/plan.c hands clip_process_plan, or outputs written by boxes into a file, costs no memory
 * until something reads or writes it. Errors: as clip_data_create. */
CLIP_API clip_status clip_data_create_deferred(clip_app *app, clip_type type, int ndims,
                                               const size_t *dims, clip_data **out);

/* Creates data of `type` with `ndims` (1..8) dimensions `dims` (each may be 0). Contents are
 * undefined until written. Trailing singleton dims are kept as given, except that ndims is at
 * least 2 as in MATLAB (a 1-D request of n becomes n x 1).
 * Errors: CLIP_ERR_INVALID_ARG (NULL app/out/dims, bad type), CLIP_ERR_DIMS (ndims outside
 * 1..8), CLIP_ERR_OVERFLOW (byte count overflows size_t), CLIP_ERR_OUT_OF_MEMORY. */
CLIP_API clip_status clip_data_create(clip_app *app, clip_type type, int ndims, const size_t *dims,
                                      clip_data **out);

/* As clip_data_create, with every element zero. */
CLIP_API clip_status clip_data_create_zeros(clip_app *app, clip_type type, int ndims,
                                            const size_t *dims, clip_data **out);

/* As clip_data_create, then copies numel elements from `host` (which the caller keeps).
 * Errors: as clip_data_create, and CLIP_ERR_INVALID_ARG (NULL host with elements). */
CLIP_API clip_status clip_data_create_from(clip_app *app, clip_type type, int ndims,
                                           const size_t *dims, const void *host, clip_data **out);

/* Wraps caller memory as data without copying it: `host` (numel elements of `type`, laid out as
 * above) becomes the data's host storage. Use it to hand a process an array the program already
 * has (the MEX gateway wraps MATLAB's arrays), or to have a process write its output straight
 * into the program's memory (pass the wrapped data to clip_process_set_output, then
 * clip_data_host syncs it there).
 * Where the device shares host memory (CL_DEVICE_HOST_UNIFIED_MEMORY, e.g. PoCL's CPU device)
 * and `host` is aligned as the device's buffers are (CL_DEVICE_MEM_BASE_ADDR_ALIGN: kernels may
 * use aligned vector loads), the device buffer is made over `host` itself (CL_MEM_USE_HOST_PTR):
 * kernels read and write it in place, and syncing the two sides copies nothing (not counted in
 * clip_app_transfer_stats; clip_data_in_place says so): the host side is made current after
 * device work by a blocking read map and unmap of the buffer (OpenCL's coherence point for such
 * memory), not by a read into the buffer's own host pointer. Less aligned memory on such a device
 * is treated as clip's own data is there: the buffer is made over aligned memory clip allocates,
 * and each sync is one memcpy (counted); a process whose kernels read an input from an element
 * offset (clip_proc_input_view: conv2's direct kernels) reads it in place all the same, through a
 * read-only buffer from the aligned address below it (no copy, nothing counted). Elsewhere the
 * device has its own buffer, filled from and read back into `host` directly (counted as usual).
 * Ownership: clip never frees `host`. The caller keeps it valid, and touches it only through
 * clip_data_host/clip_data_host_write, until the data's last reference is gone (the caller's
 * clip_data_destroy and every process holding it as an input or output: destroy, unbind or
 * detach those) and the device work that used it has finished (clip_app_finish, or reading an
 * output of that work with clip_data_host). The contents are whatever `host` holds (host copy
 * valid). `host` may be NULL only when numel is 0; any alignment of the element type is accepted.
 * A sync of staged data copies all of it: such data is best written through clip_data_host_write
 * or by processes, not element by element between launches. On Linux, large wrapped memory (and
 * clip_data_read's destination) is advised into transparent huge pages (madvise MADV_HUGEPAGE on
 * the whole 2 MiB pages inside it), since first touches of fresh memory in 4 KiB pages can cost
 * more than the copy itself; it is advice only.
 * Errors: as clip_data_create, and CLIP_ERR_INVALID_ARG (NULL host with elements). */
CLIP_API clip_status clip_data_wrap(clip_app *app, clip_type type, int ndims, const size_t *dims,
                                    void *host, clip_data **out);

/* Non-zero when the device works on d's wrapped memory itself: made over it from clip_data_wrap
 * on (aligned as the device's buffers: see there), or read through a view by a process
 * (clip_proc_input_view) from that launch on. Such memory must outlive the device work that uses
 * it: a caller about to free it after a launch it did not wait for calls clip_app_finish first. */
CLIP_API int clip_data_in_place(const clip_data *d);

/* Non-zero when d's host storage is page-locked (see the top of this file); 0 before the
 * storage is made, for ordinary or wrapped memory, and for NULL. */
CLIP_API int clip_data_page_locked(const clip_data *d);

/* Copies d's contents (clip_data_bytes of them) into the caller's `dst`: straight from the
 * device copy when the host copy is stale (one device->host transfer, counted; d's own host copy
 * stays stale), else from the host copy. Waits for pending device work that writes d. For a
 * program that wants the result in its own memory without clip's host copy in between (the MEX
 * gateway's gather). dst may be NULL when numel is 0.
 * Errors: CLIP_ERR_INVALID_ARG (NULL d, or NULL dst with elements), CLIP_ERR_OUT_OF_MEMORY
 * (host storage made at first use, as page-locked storage is: see the top of this file),
 * CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_data_read(clip_data *d, void *dst);

/* Replaces d's contents with clip_data_bytes(d) bytes from the caller's `src` (which the caller
 * keeps): straight into the device copy (one host->device transfer, counted, after which the
 * host copy is stale), creating the device buffer if needed. Waits for the copy, and for the
 * device work enqueued before it. For uploading a program's array without clip's host copy in
 * between (clip.Array in the MEX gateway); clip's host copy is then never touched.
 * Errors: CLIP_ERR_INVALID_ARG (NULL d, or NULL src with elements), CLIP_ERR_OUT_OF_MEMORY,
 * CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_data_write(clip_data *d, const void *src);

/* Releases the caller's reference. NULL is a no-op. */
CLIP_API void clip_data_destroy(clip_data *d);

/* Adds a reference (the caller later calls clip_data_destroy once more). Returns d. */
CLIP_API clip_data *clip_data_retain(clip_data *d);

CLIP_API clip_type clip_data_type(const clip_data *d);
CLIP_API int clip_data_ndims(const clip_data *d);
/* Size of dimension i; 1 for i >= ndims (MATLAB's size(A, i)); 0 for i < 0. */
CLIP_API size_t clip_data_dim(const clip_data *d, int i);
/* Pointer to the ndims sizes, valid while d lives. */
CLIP_API const size_t *clip_data_dims(const clip_data *d);
/* Number of elements (product of dims; 0 if any dim is 0). */
CLIP_API size_t clip_data_numel(const clip_data *d);
/* Bytes of the contents: numel x element size. */
CLIP_API size_t clip_data_bytes(const clip_data *d);
/* The app the data was created on (borrowed). */
CLIP_API clip_app *clip_data_app(const clip_data *d);

/* Read access on the host: waits for pending device work that writes d, copies device->host if
 * the host copy is stale, and sets *ptr to the contents (NULL when numel is 0). The pointer stays
 * valid while d lives; its contents are current until the next launch that writes d.
 * Do not write through it: use clip_data_host_write for that.
 * Errors: CLIP_ERR_INVALID_ARG, CLIP_ERR_OUT_OF_MEMORY (host storage made at first use, as
 * page-locked storage is: see the top of this file), CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_data_host(clip_data *d, const void **ptr);

/* Makes the device copy current now: uploads the host contents when the device copy is stale
 * (a no-op otherwise). Processes do this on their own when they need an input; call it to pay
 * the transfer up front, as gpuArray-style wrappers do. Waits for the copy.
 * Errors: CLIP_ERR_INVALID_ARG (NULL), CLIP_ERR_OUT_OF_MEMORY, CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_data_upload(clip_data *d);

/* Write access on the host: like clip_data_host, then marks the device copy stale so the next
 * process that reads d uploads it. For wrapped memory the device uses in place
 * (clip_data_in_place) or a process has read in place (clip_proc_input_view), first waits for
 * the work enqueued on the app's queue, which may still read it. Errors: as clip_data_host. */
CLIP_API clip_status clip_data_host_write(clip_data *d, void **ptr);

/* Copies the contents into a new data object of another type: real->complex gives zero
 * imaginary parts, f32<->f64 converts; complex->real is CLIP_ERR_TYPE. Runs on the host.
 * Errors: CLIP_ERR_INVALID_ARG, CLIP_ERR_TYPE, CLIP_ERR_OUT_OF_MEMORY, CLIP_ERR_OPENCL. */
CLIP_API clip_status clip_data_convert(clip_data *d, clip_type to, clip_data **out);

/* Changes the dims without moving data (numel must stay the same).
 * Errors: CLIP_ERR_INVALID_ARG, CLIP_ERR_DIMS. */
CLIP_API clip_status clip_data_reshape(clip_data *d, int ndims, const size_t *dims);

#ifdef __cplusplus
}
#endif
#endif
