/* A box of a column-major array stored raw in a file (lib/io_internal.h, "Boxes of arrays in
 * files"): a CFL pair's samples, a MAT 7.3 variable's contiguous dataset. A box is a set of
 * runs: the leading dimensions the box covers whole, times the first one it does not, are
 * contiguous; each run is one read or write. */
#include <string.h>

#include "io_internal.h"
#include "save_file.h"

size_t clip_io_box_run(const size_t *dims, const size_t *start, const size_t *count, size_t *runs) {
    size_t len = 1;
    int d = 0;
    for (; d < CLIP_MAX_DIMS; d++) {
        len *= count[d];
        if (start[d] != 0 || count[d] != dims[d]) break;
    }
    size_t n = 1;
    for (int e = d + 1; e < CLIP_MAX_DIMS; e++)
        n *= count[e];
    *runs = len ? n : 0;
    return len;
}

size_t clip_io_box_offset(const size_t *dims, const size_t *start, const size_t *count, size_t len,
                          size_t r) {
    size_t off = 0, stride = 1, rest = r * len; /* the run's first element, as a box index */
    for (int d = 0; d < CLIP_MAX_DIMS; d++) {
        size_t idx = count[d] ? rest % count[d] : 0;
        rest = count[d] ? rest / count[d] : 0;
        off += (start[d] + idx) * stride;
        stride *= dims[d];
    }
    return off;
}

int clip_io_box_fits(const size_t *dims, const size_t *start, const size_t *count) {
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        if (start[d] > dims[d] || count[d] > dims[d] - start[d]) return 0;
    return 1;
}

/* n elements of `type` at src converted to `to` at dst (real to complex: imaginary part 0). */
static void convert(void *dst, clip_type to, const void *src, clip_type type, size_t n) {
    const int cx = clip_type_is_complex(type), dbl = clip_type_is_double(type);
    const int tcx = clip_type_is_complex(to), tdbl = clip_type_is_double(to);
    for (size_t i = 0; i < n; i++) {
        double re = cx ? (dbl ? ((const double *)src)[2 * i] : ((const float *)src)[2 * i])
                       : (dbl ? ((const double *)src)[i] : ((const float *)src)[i]);
        double im =
            cx ? (dbl ? ((const double *)src)[2 * i + 1] : ((const float *)src)[2 * i + 1]) : 0.0;
        const size_t k = tcx ? 2 * i : i;
        if (tdbl) {
            ((double *)dst)[k] = re;
            if (tcx) ((double *)dst)[k + 1] = im;
        } else {
            ((float *)dst)[k] = (float)re;
            if (tcx) ((float *)dst)[k + 1] = (float)im;
        }
    }
}

clip_status clip_io_box_put(clip_app *app, const char *op, const char *path, clip_save_file *sf,
                            const size_t *file_dims, uint64_t file_offset, clip_type file_type,
                            clip_type type, const size_t *dims, const void *host,
                            const clip_box *keep, const size_t *at) {
    if (!clip_io_box_fits(dims, keep->start, keep->count) ||
        !clip_io_box_fits(file_dims, at, keep->count))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "%s: %s: a box outside the data or the file", op, path);
    if (clip_type_is_complex(type) && !clip_type_is_complex(file_type))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "%s: %s: complex data for a real variable",
                              op, path);
    const size_t esize = clip_type_size(type), fsize = clip_type_size(file_type);
    /* runs of the kept box within the data, each written where the same run of the box lands
     * in the file; the file's run may be shorter (the box whole in the data's leading
     * dimensions, not in the file's), so runs are cut to the shorter of the two */
    size_t runs = 0, fruns = 0;
    const size_t len_d = clip_io_box_run(dims, keep->start, keep->count, &runs);
    const size_t len_f = clip_io_box_run(file_dims, at, keep->count, &fruns);
    const size_t len = len_d < len_f ? len_d : len_f, total = len ? runs * len_d / len : 0;
    enum { CHUNK = 4096 };
    double buf[2 * CHUNK]; /* CHUNK elements of the file's type, up to complex double */
    for (size_t r = 0; r < total; r++) {
        const size_t src = clip_io_box_offset(dims, keep->start, keep->count, len, r);
        const uint64_t dst =
            file_offset + (uint64_t)clip_io_box_offset(file_dims, at, keep->count, len, r) * fsize;
        if (type == file_type) { /* the run as it is */
            sf->pos = dst;
            if (clip_save_write(sf, (const char *)host + src * esize, len * esize) != 0)
                return clip_save_error(app, op, sf, path, "cannot write");
            continue;
        }
        for (size_t k = 0; k < len; k += CHUNK) {
            const size_t n = len - k < CHUNK ? len - k : CHUNK;
            convert(buf, file_type, (const char *)host + (src + k) * esize, type, n);
            sf->pos = dst + (uint64_t)k * fsize;
            if (clip_save_write(sf, buf, n * fsize) != 0)
                return clip_save_error(app, op, sf, path, "cannot write");
        }
    }
    return CLIP_OK;
}
