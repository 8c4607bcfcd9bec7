/* clip — status codes.
 *
 * Every clip call returns a clip_status; CLIP_OK (0) means success. The full sentence for the
 * last failure on an app ("matmul: inner dimensions differ: A is 3x4, B is 5x2") comes from
 * clip_app_last_error(); clip_status_str() only names the code. */
#ifndef CLIP_STATUS_H
#define CLIP_STATUS_H

#include "export.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum clip_status {
    CLIP_OK = 0,
    CLIP_ERR_INVALID_ARG,     /* NULL where an object is required, or a malformed argument */
    CLIP_ERR_OUT_OF_MEMORY,   /* host or device allocation failed, or data larger than the
                                 device can hold (init); a full process registry */
    CLIP_ERR_OVERFLOW,        /* a size or byte count does not fit in size_t (or in a kernel's
                                 32-bit indices) */
    CLIP_ERR_NO_DEVICE,       /* no OpenCL platform/device matches the criteria */
    CLIP_ERR_OPENCL,          /* an OpenCL call failed; the message names the call and code */
    CLIP_ERR_BUILD,           /* an OpenCL program failed to build; the message has the log */
    CLIP_ERR_NO_FP64,         /* double precision asked of a device without cl_khr_fp64 */
    CLIP_ERR_UNKNOWN_PROCESS, /* no process is registered under that name */
    CLIP_ERR_UNKNOWN_PARAM,   /* the process has no parameter of that name */
    CLIP_ERR_PARAM_TYPE,      /* parameter set with the wrong kind (e.g. a real for a choice) */
    CLIP_ERR_PARAM_RANGE,     /* parameter value outside its documented range, or unparsable */
    CLIP_ERR_BAD_CHOICE,      /* a choice parameter got a name that is not one of its values */
    CLIP_ERR_MISSING_INPUT,   /* init called before every input was set */
    CLIP_ERR_TYPE,            /* an input or output has an element type the process rejects */
    CLIP_ERR_SHAPE,           /* an input or output has a shape the process rejects */
    CLIP_ERR_INNER_DIM,       /* matmul: columns of A differ from rows of B */
    CLIP_ERR_NOT_SQUARE,      /* matpow: A is not square */
    CLIP_ERR_BAD_POWER,       /* matpow: power negative, non-integer or not finite */
    CLIP_ERR_BAD_NORM_ORDER,  /* norm: p < 1 or NaN */
    CLIP_ERR_LENGTH_MISMATCH, /* dot: vectors of different lengths */
    CLIP_ERR_NOT_INITIALIZED, /* launch or output query before a successful init; time query
                                 before a launch */
    CLIP_ERR_IO,              /* a file could not be opened, read or written */
    CLIP_ERR_FORMAT,          /* a file is corrupt, truncated, or holds what clip cannot load */
    CLIP_ERR_UNSUPPORTED,     /* clip was built without support for this (e.g. TIFF), a file
                                 extension it does not know, or work a process documents it
                                 cannot do here (a forced kernel variant the device lacks) */
    CLIP_ERR_DIMS,            /* too many dimensions, or dims inconsistent with the data */
    CLIP_STATUS_COUNT_        /* not a status: the number of codes */
} clip_status;

/* The code's name, e.g. "CLIP_ERR_INNER_DIM". Never NULL; unknown values give "CLIP_ERR_?". */
CLIP_API const char *clip_status_str(clip_status s);

#ifdef __cplusplus
}
#endif
#endif
