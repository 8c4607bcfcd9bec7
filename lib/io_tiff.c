/* TIFF load/save through libtiff: integer and float samples, any channel count, pages stacked
 * along the last dimension, transposed between scanlines and clip's column-major planes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_internal.h"
#include "save_file.h"

/* The per-format calls: the options' entries with default options (io.h). */
clip_status clip_load_tiff(clip_app *app, const char *path, clip_data **out) {
    return clip_io_load_tiff(app, path, 0, out);
}

clip_status clip_save_tiff(clip_app *app, const char *path, clip_data *d, clip_sample sample) {
    const clip_save_opts opts = {.sample = sample};
    return clip_io_save_tiff(app, path, d, &opts, NULL);
}

#ifndef CLIP_HAVE_TIFF

clip_status clip_io_load_tiff(clip_app *app, const char *path, size_t page, clip_data **out) {
    (void)page;
    (void)out;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "load_tiff: %s: built without TIFF support",
                          path ? path : "(null)");
}

clip_status clip_io_save_tiff(clip_app *app, const char *path, clip_data *d,
                              const clip_save_opts *opts, clip_save_report *report) {
    (void)d;
    (void)opts;
    (void)report;
    return clip_set_error(app, CLIP_ERR_UNSUPPORTED, "save_tiff: %s: built without TIFF support",
                          path ? path : "(null)");
}

#else

#include <stdarg.h>
#include <tiffio.h>

/* libtiff reports through handlers that print to stderr by default; clip keeps the first error
 * for its own message instead. */
typedef struct tiff_msg {
    char text[256];
} tiff_msg;

#if TIFFLIB_VERSION >= 20221213
/* Per-handle handlers (libtiff >= 4.5) leave the process-global ones alone, so an application
 * that uses libtiff itself keeps its own. */
static int on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    (void)module;
    tiff_msg *m = user;
    if (m && !m->text[0]) vsnprintf(m->text, sizeof m->text, fmt, ap);
    return 1; /* handled: libtiff must not print it too */
}

static int on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tif;
    (void)user;
    (void)module;
    (void)fmt;
    (void)ap;
    return 1;
}

static TIFF *tiff_open(const char *path, const char *mode, tiff_msg *msg) {
    msg->text[0] = '\0';
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, msg);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, NULL);
    TIFF *tif = TIFFOpenExt(path, mode, opts); /* copies the handlers: opts may go */
    TIFFOpenOptionsFree(opts);
    return tif;
}
#else
/* Older libtiff has only process-global handlers: silence them (messages stay generic). */
static TIFF *tiff_open(const char *path, const char *mode, tiff_msg *msg) {
    msg->text[0] = '\0';
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    return TIFFOpen(path, mode);
}
#endif

/* Saves go through client procedures over clip's save file, so a failed write keeps the
 * system's errno (in sf->err) for the message instead of libtiff's bare "Write error at
 * scanline N"; the save file owns the descriptor, so closing the TIFF leaves it open. */
static tmsize_t client_read(thandle_t h, void *buf, tmsize_t n) {
    return (tmsize_t)clip_save_read(h, buf, (size_t)n);
}

static tmsize_t client_write(thandle_t h, void *buf, tmsize_t n) {
    return clip_save_write(h, buf, (size_t)n) == 0 ? n : (tmsize_t)-1;
}

static toff_t client_seek(thandle_t h, toff_t off, int whence) {
    clip_save_file *sf = h;
    if (whence == SEEK_CUR)
        off += sf->pos;
    else if (whence == SEEK_END)
        off += sf->end;
    sf->pos = off;
    return off;
}

static int client_close(thandle_t h) {
    (void)h;
    return 0;
}

static toff_t client_size(thandle_t h) {
    return ((clip_save_file *)h)->end;
}

static int client_map(thandle_t h, void **base, toff_t *size) {
    (void)h;
    (void)base;
    (void)size;
    return 0; /* no mapping: libtiff reads through client_read */
}

static void client_unmap(thandle_t h, void *base, toff_t size) {
    (void)h;
    (void)base;
    (void)size;
}

#if TIFFLIB_VERSION >= 20221213
static TIFF *tiff_create(const char *name, const char *mode, clip_save_file *sf, tiff_msg *msg) {
    msg->text[0] = '\0';
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts) return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_error, msg);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_warning, NULL);
    TIFF *tif = TIFFClientOpenExt(name, mode, sf, client_read, client_write, client_seek,
                                  client_close, client_size, client_map, client_unmap, opts);
    TIFFOpenOptionsFree(opts);
    return tif;
}
#else
static TIFF *tiff_create(const char *name, const char *mode, clip_save_file *sf, tiff_msg *msg) {
    msg->text[0] = '\0';
    TIFFSetErrorHandler(NULL);
    TIFFSetWarningHandler(NULL);
    return TIFFClientOpen(name, mode, sf, client_read, client_write, client_seek, client_close,
                          client_size, client_map, client_unmap);
}
#endif

static const char *why(const tiff_msg *m, const char *fallback) {
    return m->text[0] ? m->text : fallback;
}

/* ---------------------------------------------------------------- load */

/* What one directory (page) holds; every page of a file must agree. */
typedef struct tiff_layout {
    uint32_t width, height;
    uint16_t spp, bps, format, planar, compression;
    int tiled;
    uint32_t tile_w, tile_h;
} tiff_layout;

static clip_status read_layout(clip_app *app, const char *path, TIFF *tif, tiff_layout *L) {
    memset(L, 0, sizeof *L);
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &L->width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &L->height))
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: image size missing", path);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &L->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &L->bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &L->format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &L->planar);
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &L->compression);
    if (L->format == SAMPLEFORMAT_VOID) L->format = SAMPLEFORMAT_UINT;
    L->tiled = TIFFIsTiled(tif);
    if (L->tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &L->tile_w);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &L->tile_h);
        if (!L->tile_w || !L->tile_h)
            return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: bad tile size", path);
    }
    if (!L->width || !L->height || !L->spp)
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_tiff: %s: empty image (%ux%u, %u samples)", path,
                              (unsigned)L->height, (unsigned)L->width, (unsigned)L->spp);
    int ints = (L->format == SAMPLEFORMAT_UINT || L->format == SAMPLEFORMAT_INT) &&
               (L->bps == 8 || L->bps == 16 || L->bps == 32);
    int floats = L->format == SAMPLEFORMAT_IEEEFP && (L->bps == 32 || L->bps == 64);
    if (!ints && !floats)
        return clip_set_error(
            app, CLIP_ERR_FORMAT,
            "load_tiff: %s: unsupported samples: %u-bit %s (clip reads 8/16/32-bit "
            "integers and 32/64-bit floats)",
            path, (unsigned)L->bps,
            L->format == SAMPLEFORMAT_UINT     ? "unsigned"
            : L->format == SAMPLEFORMAT_INT    ? "signed"
            : L->format == SAMPLEFORMAT_IEEEFP ? "float"
                                               : "of unknown format");
    if (L->planar != PLANARCONFIG_CONTIG && L->planar != PLANARCONFIG_SEPARATE)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: bad planar configuration %u",
                              path, (unsigned)L->planar);
    /* JPEG-in-TIFF stores YCbCr with subsampled chroma: let libtiff hand back RGB. */
    uint16_t photometric = 0;
    if (L->compression == COMPRESSION_JPEG &&
        TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &photometric) && photometric == PHOTOMETRIC_YCBCR)
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    return CLIP_OK;
}

static int same_layout(const tiff_layout *a, const tiff_layout *b) {
    return a->width == b->width && a->height == b->height && a->spp == b->spp && a->bps == b->bps &&
           a->format == b->format;
}

/* The most a codec can expand its input, to reject sizes no file of this length can hold
 * before allocating for them. Codecs with no tight bound (JPEG, ZSTD, LZMA, ...) get LZW's
 * 4096: a few bytes claiming more would otherwise make clip allocate gigabytes (found by
 * fuzzing), and real images compress far less. */
static uint64_t max_expansion(uint16_t compression) {
    switch (compression) {
    case COMPRESSION_NONE:
        return 1;
    case COMPRESSION_PACKBITS:
        return 64;
    default:
        return 4096;
    }
}

/* Where one image is written: out[r + H*(c + W*(ch + C*page))]. */
typedef struct tiff_dest {
    void *out;
    clip_type type;
    size_t H, W, C;
    size_t page;
} tiff_dest;

#define PUT_RUN(SRC_T)                                                                             \
    do {                                                                                           \
        const SRC_T *s_ = (const SRC_T *)(const void *)src;                                        \
        if (dst->type == CLIP_F64) {                                                               \
            double *o_ = (double *)dst->out + at;                                                  \
            for (size_t k = 0; k < n; k++)                                                         \
                o_[k * dst->H] = (double)s_[k * stride];                                           \
        } else {                                                                                   \
            float *o_ = (float *)dst->out + at;                                                    \
            for (size_t k = 0; k < n; k++)                                                         \
                o_[k * dst->H] = (float)s_[k * stride];                                            \
        }                                                                                          \
    } while (0)

/* Stores n samples of channel ch, taken every `stride` samples from src (one scanline piece),
 * at row r from column c0 on. Scanline samples are contiguous along columns, clip's are H
 * apart: this is the transpose. */
static void put_run(const tiff_layout *L, const tiff_dest *dst, const unsigned char *src, size_t n,
                    size_t stride, size_t r, size_t c0, size_t ch) {
    size_t at = r + dst->H * (c0 + dst->W * (ch + dst->C * dst->page));
    if (L->format == SAMPLEFORMAT_IEEEFP) {
        if (L->bps == 64)
            PUT_RUN(double);
        else
            PUT_RUN(float);
    } else if (L->format == SAMPLEFORMAT_INT) {
        if (L->bps == 8)
            PUT_RUN(int8_t);
        else if (L->bps == 16)
            PUT_RUN(int16_t);
        else
            PUT_RUN(int32_t);
    } else {
        if (L->bps == 8)
            PUT_RUN(uint8_t);
        else if (L->bps == 16)
            PUT_RUN(uint16_t);
        else
            PUT_RUN(uint32_t);
    }
}

static clip_status read_strips(clip_app *app, const char *path, TIFF *tif, const tiff_layout *L,
                               const tiff_dest *dst, const tiff_msg *msg) {
    size_t bytes = L->bps / 8;
    int separate = L->planar == PLANARCONFIG_SEPARATE && L->spp > 1;
    size_t per_pixel = separate ? 1 : L->spp;
    /* The size the layout promises; anything else (e.g. subsampled data) would overrun. */
    uint64_t want = (uint64_t)L->width * per_pixel * bytes;
    if ((uint64_t)TIFFScanlineSize64(tif) != want)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: unexpected scanline size",
                              path);
    unsigned char *buf = malloc((size_t)want);
    if (!buf)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_tiff: %s: out of memory", path);
    size_t planes = separate ? L->spp : 1;
    for (size_t s = 0; s < planes; s++) {
        for (uint32_t r = 0; r < L->height; r++) {
            if (TIFFReadScanline(tif, buf, r, (uint16_t)s) < 0) {
                free(buf);
                return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: page %zu row %u: %s",
                                      path, dst->page + 1, (unsigned)r,
                                      why(msg, "cannot read the image data"));
            }
            for (size_t ch = 0; ch < per_pixel; ch++)
                put_run(L, dst, buf + ch * bytes, L->width, per_pixel, r, 0, separate ? s : ch);
        }
    }
    free(buf);
    return CLIP_OK;
}

/* The largest tile buffer allowed for tiles that reach past the image (read_tiles). */
#define TILE_PAST_IMAGE_MAX ((uint64_t)64 << 20)

static clip_status read_tiles(clip_app *app, const char *path, TIFF *tif, const tiff_layout *L,
                              const tiff_dest *dst, const tiff_msg *msg) {
    size_t bytes = L->bps / 8;
    int separate = L->planar == PLANARCONFIG_SEPARATE && L->spp > 1;
    size_t per_pixel = separate ? 1 : L->spp;
    uint64_t row_bytes = (uint64_t)L->tile_w * per_pixel * bytes;
    uint64_t want = row_bytes * L->tile_h;
    if (want / L->tile_h != row_bytes || want > SIZE_MAX || (uint64_t)TIFFTileSize64(tif) != want)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: unexpected tile size", path);
    /* A tile inside the image is no larger than the page clip already holds; one past it may
     * legitimately be (a 256x256 tile over a 10x10 image), but not by gigabytes: only the header
     * says so, and the buffer would be allocated before any data is read. */
    if (want > TILE_PAST_IMAGE_MAX && (L->tile_w > L->width || L->tile_h > L->height))
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_tiff: %s: tiles of %ux%u (%llu bytes) over a %ux%u image", path,
                              (unsigned)L->tile_h, (unsigned)L->tile_w, (unsigned long long)want,
                              (unsigned)L->height, (unsigned)L->width);
    unsigned char *buf = malloc((size_t)want);
    if (!buf)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "load_tiff: %s: out of memory", path);
    size_t planes = separate ? L->spp : 1;
    for (size_t s = 0; s < planes; s++) {
        for (uint32_t y = 0; y < L->height; y += L->tile_h) {
            for (uint32_t x = 0; x < L->width; x += L->tile_w) {
                if (TIFFReadTile(tif, buf, x, y, 0, (uint16_t)s) < 0) {
                    free(buf);
                    return clip_set_error(app, CLIP_ERR_FORMAT,
                                          "load_tiff: %s: page %zu tile at row %u col %u: %s", path,
                                          dst->page + 1, (unsigned)y, (unsigned)x,
                                          why(msg, "cannot read the image data"));
                }
                size_t rows = L->height - y < L->tile_h ? L->height - y : L->tile_h;
                size_t cols = L->width - x < L->tile_w ? L->width - x : L->tile_w;
                for (size_t rr = 0; rr < rows; rr++)
                    for (size_t ch = 0; ch < per_pixel; ch++)
                        put_run(L, dst, buf + rr * row_bytes + ch * bytes, cols, per_pixel, y + rr,
                                x, separate ? s : ch);
            }
        }
    }
    free(buf);
    return CLIP_OK;
}

/* Walks every directory, checks they agree, and counts them. */
static clip_status scan_pages(clip_app *app, const char *path, TIFF *tif, uint64_t file_size,
                              tiff_layout *first, size_t *pages, const tiff_msg *msg) {
    size_t n = 0;
    uint64_t least = 0; /* the fewest bytes the pages so far can be stored in */
    do {
        tiff_layout L;
        clip_status s = read_layout(app, path, tif, n ? &L : first);
        if (s != CLIP_OK) return s;
        /* Sub-images (SubIFDs: a pyramid's reduced resolutions) are not pages clip stacks;
         * loading the pages alone would read less than the file holds without a word. */
        uint16_t subs = 0;
        void *offsets = NULL;
        if (TIFFGetField(tif, TIFFTAG_SUBIFD, &subs, &offsets) && subs)
            return clip_set_error(app, CLIP_ERR_FORMAT,
                                  "load_tiff: %s: page %zu holds %u sub-images (SubIFDs, e.g. "
                                  "reduced resolutions) that clip does not read: load a page alone "
                                  "(clip_load_opts.page; on the command line %s:N)",
                                  path, n + 1, (unsigned)subs, path);
        if (n && !same_layout(first, &L))
            return clip_set_error(
                app, CLIP_ERR_FORMAT,
                "load_tiff: %s: page %zu (%ux%u, %u x %u-bit samples) differs from page 1 (%ux%u, "
                "%u x %u-bit samples), so the %u pages cannot be stacked: load one page alone "
                "(clip_load_opts.page; on the command line %s:N)",
                path, n + 1, (unsigned)L.height, (unsigned)L.width, (unsigned)L.spp,
                (unsigned)L.bps, (unsigned)first->height, (unsigned)first->width,
                (unsigned)first->spp, (unsigned)first->bps, (unsigned)TIFFNumberOfDirectories(tif),
                path);
        const tiff_layout *cur = n ? &L : first;
        /* Reject sizes no file this long can hold, before anything is allocated for them. */
        size_t page_bytes;
        if (clip_mul_size(cur->width, cur->height, &page_bytes) ||
            clip_mul_size(page_bytes, cur->spp, &page_bytes) ||
            clip_mul_size(page_bytes, cur->bps / 8u, &page_bytes))
            return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: image size overflows",
                                  path);
        if (!TIFFIsCODECConfigured(cur->compression))
            return clip_set_error(app, CLIP_ERR_FORMAT,
                                  "load_tiff: %s: page %zu: compression scheme %u is not "
                                  "supported by this libtiff",
                                  path, n + 1, (unsigned)cur->compression);
        least += (uint64_t)page_bytes / max_expansion(cur->compression);
        if (least > file_size)
            return clip_set_error(app, CLIP_ERR_FORMAT,
                                  "load_tiff: %s: page %zu claims %ux%u x %u samples, more than a "
                                  "%llu-byte file can hold%s",
                                  path, n + 1, (unsigned)cur->height, (unsigned)cur->width,
                                  (unsigned)cur->spp, (unsigned long long)file_size,
                                  n ? " with the pages before it" : "");
        n++;
    } while (TIFFReadDirectory(tif));
    if (msg->text[0])
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: after page %zu: %s", path, n,
                              msg->text);
    *pages = n;
    return CLIP_OK;
}

/* Goes to page `page` (from 1) alone and checks it as scan_pages checks each page. */
static clip_status one_page(clip_app *app, const char *path, TIFF *tif, uint64_t file_size,
                            size_t page, tiff_layout *L) {
    const size_t n = TIFFNumberOfDirectories(tif);
    if (page > n || !TIFFSetDirectory(tif, (tdir_t)(page - 1)))
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: no page %zu: the file has %zu",
                              path, page, n);
    clip_status s = read_layout(app, path, tif, L);
    if (s != CLIP_OK) return s;
    size_t bytes;
    if (clip_mul_size(L->width, L->height, &bytes) || clip_mul_size(bytes, L->spp, &bytes) ||
        clip_mul_size(bytes, L->bps / 8u, &bytes))
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: image size overflows", path);
    if (!TIFFIsCODECConfigured(L->compression))
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_tiff: %s: page %zu: compression scheme %u is not supported by "
                              "this libtiff",
                              path, page, (unsigned)L->compression);
    if ((uint64_t)bytes / max_expansion(L->compression) > file_size)
        return clip_set_error(app, CLIP_ERR_FORMAT,
                              "load_tiff: %s: page %zu claims %ux%u x %u samples, more than a "
                              "%llu-byte file can hold",
                              path, page, (unsigned)L->height, (unsigned)L->width, (unsigned)L->spp,
                              (unsigned long long)file_size);
    return CLIP_OK;
}

static clip_status load_open(clip_app *app, const char *path, TIFF *tif, uint64_t file_size,
                             size_t page, const tiff_msg *msg, clip_data **out) {
    tiff_layout L;
    size_t pages = 1;
    clip_status s = page ? one_page(app, path, tif, file_size, page, &L)
                         : scan_pages(app, path, tif, file_size, &L, &pages, msg);
    if (s != CLIP_OK) return s;
    /* f32 holds integers exactly only up to 2^24: 32-bit ones need f64, as MAT's int32 do. */
    clip_type type = L.bps == (L.format == SAMPLEFORMAT_IEEEFP ? 64 : 32) ? CLIP_F64 : CLIP_F32;
    size_t total;
    if (clip_mul_size(L.width, L.height, &total) || clip_mul_size(total, L.spp, &total) ||
        clip_mul_size(total, pages, &total) || clip_mul_size(total, clip_type_size(type), &total))
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: image size overflows", path);

    /* rows x cols, then channels and pages only where there is more than one. */
    size_t dims[4] = {L.height, L.width, 1, 1};
    int nd = 2;
    if (L.spp > 1 && pages > 1) {
        dims[2] = L.spp;
        dims[3] = pages;
        nd = 4;
    } else if (L.spp > 1 || pages > 1) {
        dims[2] = L.spp > 1 ? L.spp : pages;
        nd = 3;
    }
    clip_data *d = NULL;
    s = clip_data_create(app, type, nd, dims, &d);
    if (s != CLIP_OK) return s;
    void *host = NULL;
    s = clip_data_host_write(d, &host);
    tiff_dest dst = {host, type, L.height, L.width, L.spp, 0};
    for (size_t p = 0; s == CLIP_OK && p < pages; p++) {
        if (!TIFFSetDirectory(tif, (tdir_t)(page ? page - 1 : p))) {
            s = clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: cannot reread page %zu: %s",
                               path, p + 1, why(msg, "bad directory"));
            break;
        }
        /* Rereading a directory resets per-directory settings such as JPEGCOLORMODE. */
        tiff_layout again;
        s = read_layout(app, path, tif, &again);
        if (s != CLIP_OK) break;
        dst.page = p;
        s = again.tiled ? read_tiles(app, path, tif, &again, &dst, msg)
                        : read_strips(app, path, tif, &again, &dst, msg);
    }
    if (s != CLIP_OK) {
        clip_data_destroy(d);
        return s;
    }
    *out = d;
    return CLIP_OK;
}

clip_status clip_io_load_tiff(clip_app *app, const char *path, size_t page, clip_data **out) {
    if (!app || !path || !out)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "load_tiff: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                                      : "out");
    clip_clear_error(app);
    *out = NULL;
    uint64_t size = 0;
    clip_status s = clip_io_check_readable(app, "load_tiff", path, &size);
    if (s != CLIP_OK) return s;
    tiff_msg msg;
    TIFF *tif = tiff_open(path, "r", &msg);
    if (!tif)
        return clip_set_error(app, CLIP_ERR_FORMAT, "load_tiff: %s: not a readable TIFF file: %s",
                              path, why(&msg, "libtiff cannot open it"));
    s = load_open(app, path, tif, size, page, &msg, out);
    TIFFClose(tif);
    return s;
}

/* ---------------------------------------------------------------- save */

typedef struct tiff_out {
    uint16_t bps, format;
    clip_io_fit fit;
} tiff_out;

static void fill_scanline(const tiff_out *o, const void *host, clip_type t, size_t H, size_t W,
                          size_t C, size_t page, size_t r, unsigned char *buf) {
    for (size_t c = 0; c < W; c++) {
        for (size_t ch = 0; ch < C; ch++) {
            double v = clip_io_real_at(host, t, r + H * (c + W * (ch + C * page)));
            size_t k = c * C + ch;
            switch (o->fit.sample) {
            case CLIP_SAMPLE_U8:
                buf[k] = (uint8_t)clip_io_fit_value(&o->fit, v);
                break;
            case CLIP_SAMPLE_I8:
                ((int8_t *)(void *)buf)[k] = (int8_t)clip_io_fit_value(&o->fit, v);
                break;
            case CLIP_SAMPLE_U16:
                ((uint16_t *)(void *)buf)[k] = (uint16_t)clip_io_fit_value(&o->fit, v);
                break;
            case CLIP_SAMPLE_I16:
                ((int16_t *)(void *)buf)[k] = (int16_t)clip_io_fit_value(&o->fit, v);
                break;
            case CLIP_SAMPLE_U32:
                ((uint32_t *)(void *)buf)[k] = (uint32_t)clip_io_fit_value(&o->fit, v);
                break;
            case CLIP_SAMPLE_I32:
                ((int32_t *)(void *)buf)[k] = (int32_t)clip_io_fit_value(&o->fit, v);
                break;
            case CLIP_SAMPLE_F32:
                ((float *)(void *)buf)[k] = (float)v;
                break;
            default:
                ((double *)(void *)buf)[k] = v;
                break;
            }
        }
    }
}

static clip_status write_page(clip_app *app, const char *path, TIFF *tif, clip_save_file *sf,
                              const tiff_out *o, const void *host, clip_type t, size_t H, size_t W,
                              size_t C, size_t page, size_t pages, unsigned char *line,
                              const tiff_msg *msg) {
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)W);
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)H);
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)C);
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, o->bps);
    TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, o->format);
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
    TIFFSetField(tif, TIFFTAG_ORIENTATION, ORIENTATION_TOPLEFT);
    /* 3 or 4 channels read as RGB(A) elsewhere; others are gray plus extra samples, with a
     * second channel taken as alpha as PNG does. */
    int rgb = C == 3 || C == 4;
    TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, rgb ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
    size_t extra = C - (rgb ? 3 : 1);
    if (extra) {
        uint16_t *kinds = calloc(extra, sizeof *kinds);
        if (!kinds)
            return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "save_tiff: %s: out of memory",
                                  path);
        for (size_t i = 0; i < extra; i++)
            kinds[i] = EXTRASAMPLE_UNSPECIFIED;
        if (C == 2 || C == 4) kinds[0] = EXTRASAMPLE_UNASSALPHA;
        TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)extra, kinds);
        free(kinds);
    }
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    if (pages > 1) {
        TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
        TIFFSetField(tif, TIFFTAG_PAGENUMBER, (uint16_t)page, (uint16_t)pages);
    }
    for (size_t r = 0; r < H; r++) {
        fill_scanline(o, host, t, H, W, C, page, r, line);
        if (TIFFWriteScanline(tif, line, (uint32_t)r, 0) < 0)
            return clip_save_error(app, "save_tiff", sf, path,
                                   why(msg, "cannot write the image data"));
    }
    if (!TIFFWriteDirectory(tif))
        return clip_save_error(app, "save_tiff", sf, path, why(msg, "cannot write the directory"));
    return CLIP_OK;
}

static void sample_tags(tiff_out *o) {
    switch (o->fit.sample) {
    case CLIP_SAMPLE_U8:
    case CLIP_SAMPLE_I8:
        o->bps = 8;
        break;
    case CLIP_SAMPLE_U16:
    case CLIP_SAMPLE_I16:
        o->bps = 16;
        break;
    case CLIP_SAMPLE_F64:
        o->bps = 64;
        break;
    default: /* U32, I32, F32 */
        o->bps = 32;
        break;
    }
    const clip_sample s = o->fit.sample;
    o->format = s == CLIP_SAMPLE_F32 || s == CLIP_SAMPLE_F64 ? SAMPLEFORMAT_IEEEFP
                : s == CLIP_SAMPLE_I8 || s == CLIP_SAMPLE_I16 || s == CLIP_SAMPLE_I32
                    ? SAMPLEFORMAT_INT
                    : SAMPLEFORMAT_UINT;
}

/* Channels and pages of d (io.h, "Stacks"): rows x cols x N is N pages unless N is 3 or 4 or
 * `third` says channels; a fourth dimension is always pages. */
static clip_status stack_layout(clip_app *app, const char *path, clip_data *d, clip_third third,
                                size_t *C, size_t *P) {
    if (third != CLIP_THIRD_AUTO && third != CLIP_THIRD_CHANNELS && third != CLIP_THIRD_PAGES)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "save_tiff: %s: unknown third %d", path,
                              (int)third);
    const size_t n3 = clip_data_dim(d, 2), n4 = clip_data_dim(d, 3);
    int channels = n4 > 1 || third == CLIP_THIRD_CHANNELS ||
                   (third == CLIP_THIRD_AUTO && (n3 == 3 || n3 == 4));
    if (n4 > 1 && third == CLIP_THIRD_PAGES && n3 > 1)
        return clip_set_error(app, CLIP_ERR_DIMS,
                              "save_tiff: %s: pages asked for the third dimension, but a fourth "
                              "(%zu) is there: rows x cols x C x P is P pages of C channels",
                              path, n4);
    *C = channels ? n3 : 1;
    *P = channels ? n4 : n3;
    return CLIP_OK;
}

clip_status clip_io_save_tiff(clip_app *app, const char *path, clip_data *d,
                              const clip_save_opts *opts, clip_save_report *report) {
    if (!app || !path || !d || !opts)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "save_tiff: NULL %s",
                              !app    ? "app"
                              : !path ? "path"
                              : !d    ? "data"
                                      : "options");
    clip_clear_error(app);
    clip_type t = clip_data_type(d);
    if (clip_type_is_complex(t))
        return clip_set_error(app, CLIP_ERR_TYPE,
                              "save_tiff: %s: complex data (%s) cannot be saved as an image", path,
                              clip_type_name(t));
    char dstr[128];
    size_t H = clip_data_dim(d, 0), W = clip_data_dim(d, 1), C = 1, P = 1;
    clip_status s = stack_layout(app, path, d, opts->third, &C, &P);
    if (s != CLIP_OK) return s;
    int extra_dims = 0;
    for (int i = 4; i < clip_data_ndims(d); i++)
        extra_dims |= clip_data_dim(d, i) != 1;
    if (!H || !W || !C || !P || extra_dims || H > UINT32_MAX || W > UINT32_MAX || C > 65535 ||
        P > 65535)
        return clip_set_error(app, CLIP_ERR_DIMS,
                              "save_tiff: %s: cannot save %s data as rows x cols [x channels [x "
                              "pages]] (each 1 or more)",
                              path, clip_dims_str(d, dstr, sizeof dstr));
    const void *host = NULL;
    s = clip_data_host(d, &host);
    if (s != CLIP_OK) return s;
    tiff_out o;
    memset(&o, 0, sizeof o);
    s = clip_io_choose_sample(app, "save_tiff", path, host, t, clip_data_numel(d), opts->sample,
                              opts->fit, 1, &o.fit, report);
    if (s != CLIP_OK) return s;
    sample_tags(&o);
    if (report) {
        report->pages = P;
        report->channels = C;
    }

    size_t line_bytes, total;
    if (clip_mul_size(W, C, &line_bytes) || clip_mul_size(line_bytes, o.bps / 8u, &line_bytes) ||
        clip_mul_size(line_bytes, H, &total) || clip_mul_size(total, P, &total))
        return clip_set_error(app, CLIP_ERR_OVERFLOW, "save_tiff: %s: image too large", path);
    unsigned char *line = malloc(line_bytes);
    if (!line)
        return clip_set_error(app, CLIP_ERR_OUT_OF_MEMORY, "save_tiff: %s: out of memory", path);
    clip_save_file sf;
    s = clip_save_begin(app, "save_tiff", path, &sf);
    if (s != CLIP_OK) {
        free(line);
        return s;
    }
    /* Classic TIFF addresses 4 GiB; leave room for directories before switching to BigTIFF. */
    const char *mode = (uint64_t)total > 0xF0000000u ? "w8" : "w";
    tiff_msg msg;
    TIFF *tif = tiff_create(path, mode, &sf, &msg);
    unsigned char magic[4] = {0};
    if (!tif) {
        s = clip_save_error(app, "save_tiff", &sf, path,
                            why(&msg, "libtiff cannot create the file"));
    } else {
        /* The header libtiff writes: byte order, then 42 (classic) or 43 (BigTIFF). */
        int big_endian = TIFFIsBigEndian(tif), version = TIFFIsBigTIFF(tif) ? 43 : 42;
        magic[0] = magic[1] = big_endian ? 'M' : 'I';
        magic[big_endian ? 3 : 2] = (unsigned char)version;
    }
    for (size_t p = 0; s == CLIP_OK && p < P; p++)
        s = write_page(app, path, tif, &sf, &o, host, t, H, W, C, p, P, line, &msg);
    if (tif) TIFFClose(tif); /* flushes what is buffered: may fail a write too */
    free(line);
    if (s == CLIP_OK && (sf.err || msg.text[0]))
        s = clip_save_error(app, "save_tiff", &sf, path, msg.text);
    const clip_save_expect expect = {CLIP_SAVE_SIZE_WRITTEN, magic, sizeof magic};
    if (s == CLIP_OK) return clip_save_commit(app, "save_tiff", &sf, path, &expect);
    clip_save_discard(&sf);
    return s;
}

#endif /* CLIP_HAVE_TIFF */
