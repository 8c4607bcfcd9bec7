/* PNG load/save through libpng: 8/16-bit gray, gray+alpha, RGB, RGBA, transposed between
 * scanlines and clip's column-major channel planes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "save_file.h"

/* The per-format calls: the options' entries with default options (io.h). */
clip_status clip_load_png(clip_app *app, const char *path, clip_data **out) {
    return clip_io_load_png(app, path, 0, out);
}

clip_status clip_save_png(clip_app *app, const char *path, clip_data *d, clip_sample sample) {
    const clip_save_opts opts = {.sample = sample};
    return clip_io_save_png(app, path, d, &opts, NULL);
}

#ifndef CLIP_HAVE_PNG

clip_status clip_io_load_png(clip_app *app, const char *path, size_t page, clip_data **out) {
    (void)page;
    (void)out;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "load_png: %s: built without PNG support",
                          path ? path : "(null)");
}

clip_status clip_io_save_png(clip_app *app, const char *path, clip_data *d,
                             const clip_save_opts *opts, clip_save_report *report) {
    (void)d;
    (void)opts;
    (void)report;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "save_png: %s: built without PNG support",
                          path ? path : "(null)");
}

#else

#include <png.h>
#include <setjmp.h>

/* libpng reports errors by calling a handler that must not return (it longjmps back to the
 * setjmp in the caller). All state that must survive the jump lives in one of these structs,
 * owned by the function that does not call setjmp, so no local needs to be volatile. */
typedef struct png_job {
    png_structp png;
    png_infop info;
    unsigned char *pixels; /* load: the whole decoded image; save: one row */
    png_bytep *rows;
    char text[200]; /* libpng's error message */
} png_job;

static void on_error(png_structp png, png_const_charp msg) {
    png_job *job = png_get_error_ptr(png);
    snprintf(job->text, sizeof job->text, "%s", msg);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp msg) {
    (void)png;
    (void)msg; /* libpng would print it; clip never prints */
}

/* ---------------------------------------------------------------- load */

/* The decoded image as libpng hands it over. */
typedef struct png_image_info {
    size_t H, W, C, bytes; /* bytes per sample: 1 or 2 */
} png_image_info;

/* libpng's part of the load; calls setjmp, so it touches only *job and its arguments. */
static clip_status png_decode(clip_app *app, const char *path, FILE *f, uint64_t file_size,
                              png_job *job, png_image_info *im) {
    job->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, job, on_error, on_warning);
    if (!job->png || !(job->info = png_create_info_struct(job->png)))
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_png: %s: out of memory", path);
    if (setjmp(png_jmpbuf(job->png)))
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_png: %s: %s", path, job->text);
#ifdef PNG_SET_USER_LIMITS_SUPPORTED
    /* libpng's default limit of 1,000,000 rows and columns is a guard of its own, not PNG's;
     * the check on the file's size below guards the allocation instead. */
    png_set_user_limits(job->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
#endif
    png_init_io(job->png, f);
    png_set_sig_bytes(job->png, 8);
    png_read_info(job->png, job->info);

    /* Reject sizes a file this long cannot hold before allocating for them: zlib expands at
     * most about 1032:1, and the stream holds one filter byte per row on top of the pixels. */
    size_t raw_rows = png_get_image_height(job->png, job->info);
    size_t raw_bytes;
    if (clip_mul_size(png_get_rowbytes(job->png, job->info) + 1, raw_rows, &raw_bytes) ||
        raw_bytes / 2048 > file_size)
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_png: %s: image size %zux%zu is more than a %llu-byte file can "
                              "hold",
                              path, raw_rows, (size_t)png_get_image_width(job->png, job->info),
                              (unsigned long long)file_size);

    int color = png_get_color_type(job->png, job->info);
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_set_palette_to_rgb(job->png);
        if (png_get_valid(job->png, job->info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(job->png);
    } else if (png_get_bit_depth(job->png, job->info) < 8) {
        png_set_packing(job->png); /* one byte per sample, raw values as imread gives them */
    }
    (void)png_set_interlace_handling(job->png);
    png_read_update_info(job->png, job->info);

    im->H = png_get_image_height(job->png, job->info);
    im->W = png_get_image_width(job->png, job->info);
    im->C = png_get_channels(job->png, job->info);
    im->bytes = png_get_bit_depth(job->png, job->info) > 8 ? 2 : 1;
    size_t rowbytes = png_get_rowbytes(job->png, job->info), want, total, ptrs;
    if (clip_mul_size(im->W, im->C * im->bytes, &want) || rowbytes != want ||
        clip_mul_size(rowbytes, im->H, &total) || clip_mul_size(im->H, sizeof(png_bytep), &ptrs))
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_png: %s: unexpected row size", path);
    job->pixels = malloc(total ? total : 1);
    job->rows = malloc(ptrs ? ptrs : 1);
    if (!job->pixels || !job->rows)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_png: %s: out of memory", path);
    for (size_t r = 0; r < im->H; r++)
        job->rows[r] = job->pixels + r * rowbytes;
    png_read_image(job->png, job->rows);
    png_read_end(job->png, NULL);
    return CLIP_OK;
}

static clip_status png_to_data(clip_app *app, const png_job *job, const png_image_info *im,
                               clip_data **out) {
    size_t dims[3] = {im->H, im->W, im->C};
    clip_data *d = NULL;
    clip_status s = clip_data_create(app, CLIP_F32, im->C > 1 ? 3 : 2, dims, &d);
    if (s != CLIP_OK) return s;
    void *host = NULL;
    s = clip_data_host_write(d, &host);
    if (s != CLIP_OK) {
        clip_data_destroy(d);
        return s;
    }
    float *o = host;
    for (size_t r = 0; r < im->H; r++) {
        const unsigned char *row = job->rows[r];
        for (size_t c = 0; c < im->W; c++) {
            for (size_t ch = 0; ch < im->C; ch++) {
                const unsigned char *p = row + (c * im->C + ch) * im->bytes;
                /* PNG stores 16-bit samples big-endian. */
                unsigned v = im->bytes == 2 ? (unsigned)p[0] << 8 | p[1] : p[0];
                o[r + im->H * (c + im->W * ch)] = (float)v;
            }
        }
    }
    *out = d;
    return CLIP_OK;
}

/* Counts the frames an APNG's acTL chunk declares (0 when there is none), walking the chunks
 * before the first IDAT. libpng without the APNG patch (Debian's) passes acTL over in silence,
 * and would hand back the default image alone as if it were the whole file. */
static clip_status count_frames(clip_app *app, const char *path, FILE *f, uint64_t size,
                                unsigned long *frames) {
    *frames = 0;
    unsigned char head[8];
    for (uint64_t at = 8; at + 8 <= size;) {
        if (fseek(f, (long)at, SEEK_SET) != 0 || fread(head, 1, 8, f) != 8) break;
        const uint64_t len =
            (uint64_t)head[0] << 24 | (uint64_t)head[1] << 16 | (uint64_t)head[2] << 8 | head[3];
        if (!memcmp(head + 4, "IDAT", 4) || !memcmp(head + 4, "IEND", 4)) break;
        if (!memcmp(head + 4, "acTL", 4) && len >= 8) {
            unsigned char n[4];
            if (fread(n, 1, 4, f) != 4) break;
            *frames = (unsigned long)n[0] << 24 | (unsigned long)n[1] << 16 |
                      (unsigned long)n[2] << 8 | n[3];
            break;
        }
        at += 12 + len; /* length, type, data, CRC */
    }
    if (fseek(f, 8, SEEK_SET) != 0)
        return clip_set_error(app, CLIP_ERR_IO, "load_png: %s: %s", path, strerror(errno));
    return CLIP_OK;
}

clip_status clip_io_load_png(clip_app *app, const char *path, size_t page, clip_data **out) {
    if (!app || !path || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load_png: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                                      : "out");
    clip_clear_error(app);
    *out = NULL;
    uint64_t size = 0;
    clip_status s = clip_io_check_readable(app, "load_png", path, &size);
    if (s != CLIP_OK) return s;
    FILE *f = fopen(path, "rb");
    if (!f) return clip_set_error(app, CLIP_ERR_IO, "load_png: %s: %s", path, strerror(errno));
    unsigned char sig[8];
    if (fread(sig, 1, sizeof sig, f) != sizeof sig || png_sig_cmp(sig, 0, sizeof sig)) {
        fclose(f);
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_png: %s: not a PNG file", path);
    }
    unsigned long frames = 0;
    s = count_frames(app, path, f, size, &frames);
    if (s == CLIP_OK && page > 1)
        s = clip_set_error(app, CLIP_ERR_UNSUPPORTED,
                           "load_png: %s: frame %zu asked for, but clip reads only a PNG's default "
                           "image (frame 1%s); it does not compose animation frames",
                           path, page, frames ? "" : ", the only one here");
    else if (s == CLIP_OK && frames && page != 1)
        s = clip_set_error(app, CLIP_ERR_FORMAT,
                           "load_png: %s: an animated PNG of %lu frames; clip reads only its "
                           "default image: ask for it as page 1 (on the command line %s:1) to "
                           "load that alone",
                           path, frames, path);
    if (s != CLIP_OK) {
        fclose(f);
        return s;
    }
    png_job job = {0};
    png_image_info im = {0};
    s = png_decode(app, path, f, size, &job, &im);
    if (s == CLIP_OK) s = png_to_data(app, &job, &im, out);
    png_destroy_read_struct(&job.png, &job.info, NULL); /* accepts NULLs */
    free(job.rows);
    free(job.pixels);
    fclose(f);
    return s;
}

/* ---------------------------------------------------------------- save */

/* libpng writes through clip's save file, so a failed write keeps the system's errno (in
 * sf->err) for the message instead of libpng's bare "Write Error". */
static void on_write(png_structp png, png_bytep data, size_t n) {
    if (clip_save_write(png_get_io_ptr(png), data, n) != 0) png_error(png, "write failed");
}

static void on_flush(png_structp png) {
    (void)png; /* clip_save_commit fsyncs the whole file */
}

/* libpng's part of the save; calls setjmp, so it touches only *job and its arguments. */
static clip_status png_encode(clip_app *app, const char *path, clip_save_file *sf, const void *host,
                              clip_type t, size_t H, size_t W, size_t C, const clip_io_fit *fit,
                              png_job *job) {
    const size_t bytes = fit->sample == CLIP_SAMPLE_U16 ? 2 : 1;
    static const int color_of[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
    job->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, job, on_error, on_warning);
    if (!job->png || !(job->info = png_create_info_struct(job->png)))
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "save_png: %s: out of memory", path);
    if (setjmp(png_jmpbuf(job->png))) return clip_save_error(app, "save_png", sf, path, job->text);
#ifdef PNG_SET_USER_LIMITS_SUPPORTED
    /* PNG's own limit (checked by clip_save_png), not libpng's default of 1,000,000. */
    png_set_user_limits(job->png, PNG_UINT_31_MAX, PNG_UINT_31_MAX);
#endif
    png_set_write_fn(job->png, sf, on_write, on_flush);
    png_set_IHDR(job->png, job->info, (png_uint_32)W, (png_uint_32)H, (int)bytes * 8, color_of[C],
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(job->png, job->info);
    for (size_t r = 0; r < H; r++) {
        unsigned char *p = job->pixels;
        for (size_t c = 0; c < W; c++) {
            for (size_t ch = 0; ch < C; ch++) {
                uint32_t v = (uint32_t)clip_io_fit_value(
                    fit, clip_io_real_at(host, t, r + H * (c + W * ch)));
                if (bytes == 2) *p++ = (unsigned char)(v >> 8);
                *p++ = (unsigned char)v;
            }
        }
        png_write_row(job->png, job->pixels);
    }
    png_write_end(job->png, NULL);
    return CLIP_OK;
}

clip_status clip_io_save_png(clip_app *app, const char *path, clip_data *d,
                             const clip_save_opts *opts, clip_save_report *report) {
    if (!app || !path || !d || !opts)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "save_png: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                              : !d    ? "data"
                                      : "options");
    clip_clear_error(app);
    clip_type t = clip_data_type(d);
    if (clip_type_is_complex(t))
        return clip_set_error(app, CLIP_ERR_TYPE,
                              "save_png: %s: complex data (%s) cannot be saved as an image", path,
                              clip_type_name(t));
    if (opts->sample == CLIP_SAMPLE_F32 || opts->sample == CLIP_SAMPLE_F64)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "save_png: %s: PNG holds 8 or 16-bit unsigned samples only (save "
                              "float samples as TIFF)",
                              path);
    if (opts->third == CLIP_THIRD_PAGES)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "save_png: %s: PNG holds one image, not pages (save pages as TIFF)",
                              path);
    size_t H = clip_data_dim(d, 0), W = clip_data_dim(d, 1), C = clip_data_dim(d, 2);
    int extra_dims = 0;
    for (int i = 3; i < clip_data_ndims(d); i++)
        extra_dims |= clip_data_dim(d, i) != 1;
    char dstr[128];
    if (!H || !W || C < 1 || C > 4 || extra_dims || H > PNG_UINT_31_MAX || W > PNG_UINT_31_MAX)
        return clip_set_error(
            app, CLIP_ERR_DIMS,
            "save_png: %s: cannot save %s data as rows x cols [x 1..4 channels]%s", path,
            clip_dims_str(d, dstr, sizeof dstr),
            C > 4 || extra_dims ? " (save pages as TIFF)" : "");
    const void *host = NULL;
    clip_status s = clip_data_host(d, &host);
    if (s != CLIP_OK) return s;
    clip_io_fit fit;
    s = clip_io_choose_sample(app, "save_png", path, host, t, clip_data_numel(d), opts->sample,
                              opts->fit, 0, &fit, report);
    if (s != CLIP_OK) return s;
    if (report) {
        report->pages = 1;
        report->channels = C;
    }
    png_job job = {0};
    size_t row_bytes;
    if (clip_mul_size(W, C * (fit.sample == CLIP_SAMPLE_U16 ? 2 : 1), &row_bytes) ||
        !(job.pixels = malloc(row_bytes)))
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "save_png: %s: out of memory", path);
    clip_save_file sf;
    s = clip_save_begin(app, "save_png", path, &sf);
    if (s == CLIP_OK) s = png_encode(app, path, &sf, host, t, H, W, C, &fit, &job);
    png_destroy_write_struct(&job.png, &job.info);
    free(job.pixels);
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    const clip_save_expect expect = {CLIP_SAVE_SIZE_WRITTEN, signature, sizeof signature};
    if (s == CLIP_OK) return clip_save_commit(app, "save_png", &sf, path, &expect);
    clip_save_discard(&sf);
    return s;
}

#endif /* CLIP_HAVE_PNG */
