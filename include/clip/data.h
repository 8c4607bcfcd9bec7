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
 *
 * Ownership: data objects are reference counted. clip_data_destroy() releases the caller's
 * reference; a process that uses data as an input or output holds its own reference, so
 * destroying data a process still uses is safe.
 */
#ifndef CLIP_DATA_H
#define CLIP_DATA_H

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
size_t clip_type_size(clip_type t);
/* "f32", "f64", "c32", "c64"; "?" for an invalid type. */
const char *clip_type_name(clip_type t);
/* Non-zero for CLIP_C32 and CLIP_C64. */
int clip_type_is_complex(clip_type t);
/* Non-zero for CLIP_F64 and CLIP_C64. */
int clip_type_is_double(clip_type t);

/* The type MATLAB gives a binary operation on a and b: single wins over double (single*double
 * is single), and the result is complex if either is. */
clip_type clip_type_promote(clip_type a, clip_type b);

/* Creates data of `type` with `ndims` (1..8) dimensions `dims` (each may be 0). Contents are
 * undefined until written. Trailing singleton dims are kept as given, except that ndims is at
 * least 2 as in MATLAB (a 1-D request of n becomes n x 1).
 * Errors: CLIP_ERR_INVALID_ARG (NULL app/out/dims, bad type), CLIP_ERR_DIMS (ndims outside
 * 1..8), CLIP_ERR_OVERFLOW (byte count overflows size_t), CLIP_ERR_OUT_OF_MEMORY. */
clip_status clip_data_create(clip_app *app, clip_type type, int ndims, const size_t *dims,
                             clip_data **out);

/* As clip_data_create, with every element zero. */
clip_status clip_data_create_zeros(clip_app *app, clip_type type, int ndims, const size_t *dims,
                                   clip_data **out);

/* As clip_data_create, then copies numel elements from `host` (which the caller keeps). */
clip_status clip_data_create_from(clip_app *app, clip_type type, int ndims, const size_t *dims,
                                  const void *host, clip_data **out);

/* Releases the caller's reference. NULL is a no-op. */
void clip_data_destroy(clip_data *d);

/* Adds a reference (the caller later calls clip_data_destroy once more). Returns d. */
clip_data *clip_data_retain(clip_data *d);

clip_type clip_data_type(const clip_data *d);
int clip_data_ndims(const clip_data *d);
/* Size of dimension i; 1 for i >= ndims (MATLAB's size(A, i)); 0 for i < 0. */
size_t clip_data_dim(const clip_data *d, int i);
/* Pointer to the ndims sizes, valid while d lives. */
const size_t *clip_data_dims(const clip_data *d);
/* Number of elements (product of dims; 0 if any dim is 0). */
size_t clip_data_numel(const clip_data *d);
/* Bytes of the contents: numel x element size. */
size_t clip_data_bytes(const clip_data *d);
/* The app the data was created on (borrowed). */
clip_app *clip_data_app(const clip_data *d);

/* Read access on the host: waits for pending device work that writes d, copies device->host if
 * the host copy is stale, and sets *ptr to the contents (NULL when numel is 0). The pointer stays
 * valid while d lives; its contents are current until the next launch that writes d.
 * Do not write through it: use clip_data_host_write for that.
 * Errors: CLIP_ERR_INVALID_ARG, CLIP_ERR_OPENCL. */
clip_status clip_data_host(clip_data *d, const void **ptr);

/* Makes the device copy current now: uploads the host contents when the device copy is stale
 * (a no-op otherwise). Processes do this on their own when they need an input; call it to pay
 * the transfer up front, as gpuArray-style wrappers do. Waits for the copy.
 * Errors: CLIP_ERR_INVALID_ARG (NULL), CLIP_ERR_OUT_OF_MEMORY, CLIP_ERR_OPENCL. */
clip_status clip_data_upload(clip_data *d);

/* Write access on the host: like clip_data_host, then marks the device copy stale so the next
 * process that reads d uploads it. */
clip_status clip_data_host_write(clip_data *d, void **ptr);

/* Copies the contents into a new data object of another type: real->complex gives zero
 * imaginary parts, f32<->f64 converts; complex->real is CLIP_ERR_TYPE. Runs on the host.
 * Errors: CLIP_ERR_INVALID_ARG, CLIP_ERR_TYPE, CLIP_ERR_OUT_OF_MEMORY, CLIP_ERR_OPENCL. */
clip_status clip_data_convert(clip_data *d, clip_type to, clip_data **out);

/* Changes the dims without moving data (numel must stay the same).
 * Errors: CLIP_ERR_INVALID_ARG, CLIP_ERR_DIMS. */
clip_status clip_data_reshape(clip_data *d, int ndims, const size_t *dims);

#ifdef __cplusplus
}
#endif
#endif
