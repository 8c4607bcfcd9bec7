/* Internal to lib/io*.c: helpers every file format shares. */
#ifndef CLIP_IO_INTERNAL_H
#define CLIP_IO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "internal.h"

/* Checks that `path` names a readable regular file before a format library opens it, so a
 * missing or unreadable file is CLIP_ERR_IO with the system's reason rather than a library's
 * vague "cannot open". Sets *size to the file's size in bytes (may be NULL). `op` names the
 * operation for the message ("load_png"). */
clip_status clip_io_check_readable(clip_app *app, const char *op, const char *path, uint64_t *size);

/* The same check, keeping the file open: on CLIP_OK *fd is open read-only on the regular file
 * that *st describes (the caller closes it), so what is read next is the file that was checked,
 * whatever is renamed over `path` meanwhile. On failure *fd is -1, with the error as above, and
 * errno the system's reason (ENOENT: nothing at `path`; 0: not a regular file). */
clip_status clip_io_open_regular(clip_app *app, const char *op, const char *path, int *fd,
                                 struct stat *st);

/* Reads exactly n bytes from fd, retrying short reads and EINTR. Returns 0, or -1 with errno set
 * (0 when the file ended first). */
int clip_io_read_full(int fd, void *buf, size_t n);

/* Reads element i of real data (f32 or f64) as a double. */
static inline double clip_io_real_at(const void *host, clip_type t, size_t i) {
    return t == CLIP_F64 ? ((const double *)host)[i] : (double)((const float *)host)[i];
}

/* Clamps v to [0, max] and rounds half up (as MATLAB's uint8()/uint16() do for non-negative
 * values); NaN becomes 0. */
static inline uint32_t clip_io_to_uint(double v, double max) {
    if (!(v > 0.0)) return 0; /* also catches NaN */
    if (v >= max) return (uint32_t)max;
    return (uint32_t)(v + 0.5);
}

/* Checks the structure of a MAT v4 or v5 file of `size` bytes before matio reads it, because
 * matio trusts the lengths and counts a file declares (lib/io_mat_check.c says what is checked).
 * CLIP_ERR_FORMAT with the offending element's offset; v7.3 (HDF5) files pass unchecked. */
clip_status clip_io_mat_check(clip_app *app, const char *path, uint64_t size);

/* Non-zero when matio can write v7.3 (HDF5) files; probed once, then cached. */
int clip_io_mat73_available(void);

/* Parses a CFL header's text (lib/io_cfl.c) as BART does: the sizes after "# Dimensions", those
 * past the last that is not 1 dropped. Errors: CLIP_ERR_FORMAT, CLIP_ERR_DIMS (naming path). */
clip_status clip_cfl_parse_header(clip_app *app, const char *path, const char *text, int *ndims,
                                  size_t dims[CLIP_MAX_DIMS]);

#endif
