/* File I/O: round trips of every format and sample type, files written by the format libraries
 * themselves (integer TIFF samples, integer MAT classes, mixed variables), and the error paths:
 * missing, garbage, truncated and hostile files, unknown extensions, wrong types. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw */
#define _DEFAULT_SOURCE   /* MAP_ANONYMOUS, MAP_NORESERVE */

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io_testutil.h"
#include "testutil.h"

/* Files written through libtiff/matio directly, in builds that use them (tests/CMakeLists.txt
 * defines CLIP_HAVE_TIFF and CLIP_HAVE_MATIO and links the libraries as the library does). */
#ifdef CLIP_HAVE_TIFF
#include <tiffio.h>
#define TEST_LIBTIFF 1
#endif
#ifdef CLIP_HAVE_MATIO
#include <matio.h>
#define TEST_MATIO 1
#endif

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
    fclose(f);
}

/* Data of `type` filled from a seed: values in [-scale, scale). */
static clip_data *make(clip_app *app, clip_type t, int nd, const size_t *dims,
                       unsigned long long seed, double scale) {
    return tu_io_data(app, t, nd, dims, seed, scale, 0);
}

static clip_data *make_from(clip_app *app, clip_type t, int nd, const size_t *dims,
                            const double *vals) {
    clip_data *d = make(app, t, nd, dims, 1, 1.0);
    void *p = NULL;
    clip_data_host_write(d, &p);
    size_t n = clip_data_numel(d) * (clip_type_is_complex(t) ? 2 : 1);
    for (size_t i = 0; i < n; i++) {
        if (clip_type_is_double(t))
            ((double *)p)[i] = vals[i];
        else
            ((float *)p)[i] = (float)vals[i];
    }
    return d;
}

/* Scalar i (real part index for complex: component i of the interleaved array) as a double. */
static double comp(clip_data *d, size_t i) {
    const void *p = NULL;
    clip_data_host(d, &p);
    return clip_type_is_double(clip_data_type(d)) ? ((const double *)p)[i]
                                                  : (double)((const float *)p)[i];
}

static int dims_are(clip_data *d, int nd, const size_t *dims) {
    if (!d || clip_data_ndims(d) != nd) return 0;
    for (int i = 0; i < nd; i++)
        if (clip_data_dim(d, i) != dims[i]) return 0;
    return 1;
}

/* Same type, dims and bytes. */
static int identical(clip_data *a, clip_data *b) {
    if (!a || !b || clip_data_type(a) != clip_data_type(b) ||
        !dims_are(b, clip_data_ndims(a), clip_data_dims(a)))
        return 0;
    const void *pa = NULL, *pb = NULL;
    clip_data_host(a, &pa);
    clip_data_host(b, &pb);
    return clip_data_bytes(a) == 0 || memcmp(pa, pb, clip_data_bytes(a)) == 0;
}

/* Saves with clip_save, loads with clip_load, expects the same object back. */
static void round_trip(clip_app *app, const char *name, clip_data *d) {
    clip_data *back = NULL;
    CHECK_OK(app, clip_save(app, tp(name), d));
    CHECK_OK(app, clip_load(app, tp(name), &back));
    if (!identical(d, back)) fprintf(stderr, "round trip through %s changed the data\n", name);
    CHECK(identical(d, back));
    clip_data_destroy(back);
}

/* ---------------------------------------------------------------- TIFF */

static void test_tiff(clip_app *app) {
    size_t d2[2] = {5, 7}, d3[3] = {4, 5, 3}, d4[4] = {4, 5, 3, 2};
    clip_data *a = make(app, CLIP_F32, 2, d2, 11, 100.0);
    round_trip(app, "f32.tif", a);
    round_trip(app, "f32_upper.TIFF", a);
    clip_data_destroy(a);
    a = make(app, CLIP_F64, 2, d2, 12, 1e10);
    round_trip(app, "f64.tiff", a);
    clip_data_destroy(a);
    a = make(app, CLIP_F32, 3, d3, 13, 1.0);
    round_trip(app, "rgb_f32.tif", a);
    clip_data_destroy(a);
    a = make(app, CLIP_F64, 4, d4, 14, 1.0);
    round_trip(app, "rgb_pages_f64.tif", a);
    clip_data_destroy(a);

    /* Integer samples keep the values or refuse, leaving no file; a clamp asked for clamps to
     * the range and rounds to nearest, and says what it changed. */
    size_t dv[2] = {3, 4};
    double v[12] = {-3, 0, 1.5, 2.49, 254.5, 255, 300, NAN, 65535.6, 70000, 1000.5, 7};
    double want8[12] = {0, 0, 2, 2, 255, 255, 255, 0, 255, 255, 255, 7};
    double want16[12] = {0, 0, 2, 2, 255, 255, 300, 0, 65535, 65535, 1001, 7};
    a = make_from(app, CLIP_F64, 2, dv, v);
    clip_data *b = NULL;
    CHECK_STATUS(app, clip_save_tiff(app, tp("u8.tif"), a, CLIP_SAMPLE_U8), CLIP_ERR_TYPE);
    CHECK_MSG(app, "9 of 12 values do not fit 8-bit unsigned samples (whole numbers 0..255)");
    CHECK_MSG(app, "4 above 255 (largest 70000), 1 below 0 (smallest -3), 5 fractional (e.g. 1.5), "
                   "1 NaN");
    CHECK(!tu_file_exists(tp("u8.tif")));
    CHECK_STATUS(app, clip_save_tiff(app, tp("u16.tif"), a, CLIP_SAMPLE_U16), CLIP_ERR_TYPE);
    CHECK_MSG(app, "8 of 12 values do not fit 16-bit unsigned samples (whole numbers 0..65535)");
    CHECK(!tu_file_exists(tp("u16.tif")));
    clip_save_opts clamp8 = {.sample = CLIP_SAMPLE_U8, .fit = CLIP_FIT_CLAMP};
    clip_save_report rep;
    CHECK_OK(app, clip_save_with(app, tp("u8.tif"), a, &clamp8, &rep));
    CHECK(rep.sample == CLIP_SAMPLE_U8 && rep.changed == 9 && rep.pages == 1);
    CHECK(strstr(rep.text, "clamped 4 values above 255 to 255, clamped 1 value below 0 to 0, "
                           "rounded 3 fractional values to nearest, stored 1 NaN as 0") != NULL);
    CHECK_OK(app, clip_load_tiff(app, tp("u8.tif"), &b));
    CHECK(b && clip_data_type(b) == CLIP_F32 && dims_are(b, 2, dv));
    for (size_t i = 0; b && i < 12; i++)
        CHECK_NEAR(comp(b, i), want8[i], 0);
    clip_data_destroy(b);
    b = NULL;
    clip_save_opts clamp16 = {.sample = CLIP_SAMPLE_U16, .fit = CLIP_FIT_CLAMP};
    CHECK_OK(app, clip_save_with(app, tp("u16.tif"), a, &clamp16, &rep));
    CHECK(rep.sample == CLIP_SAMPLE_U16 && rep.changed == 8);
    CHECK_OK(app, clip_load_tiff(app, tp("u16.tif"), &b));
    CHECK(b && clip_data_type(b) == CLIP_F32 && dims_are(b, 2, dv));
    for (size_t i = 0; b && i < 12; i++)
        CHECK_NEAR(comp(b, i), want16[i], 0);
    clip_data_destroy(b);
    b = NULL;
    /* f64 data saved as 32-bit float samples loads as f32. */
    CHECK_OK(app, clip_save_tiff(app, tp("f64_as_f32.tif"), a, CLIP_SAMPLE_F32));
    CHECK_OK(app, clip_load(app, tp("f64_as_f32.tif"), &b));
    CHECK(b && clip_data_type(b) == CLIP_F32);
    for (size_t i = 0; b && i < 12; i++)
        if (!isnan(v[i])) CHECK_NEAR(comp(b, i), (float)v[i], 0);
    clip_data_destroy(b);
    b = NULL;
    clip_data_destroy(a);

    /* 8-bit RGB with integer values comes back exactly, channel planes in MATLAB order. */
    a = make(app, CLIP_F32, 3, d3, 15, 1.0);
    float *p = NULL;
    clip_data_host_write(a, (void **)&p);
    for (size_t i = 0; i < clip_data_numel(a); i++)
        p[i] = (float)((i * 37) % 256);
    CHECK_OK(app, clip_save_tiff(app, tp("rgb_u8.tif"), a, CLIP_SAMPLE_U8));
    CHECK_OK(app, clip_load(app, tp("rgb_u8.tif"), &b));
    CHECK(identical(a, b));
    clip_data_destroy(b);
    b = NULL;
    clip_data_destroy(a);

    /* One channel and several pages: rows x cols x 1 x pages loads as rows x cols x pages. */
    size_t dp[4] = {6, 3, 1, 4}, dp3[3] = {6, 3, 4};
    a = make(app, CLIP_F32, 4, dp, 16, 5.0);
    CHECK_OK(app, clip_save(app, tp("pages.tif"), a));
    CHECK_OK(app, clip_load(app, tp("pages.tif"), &b));
    CHECK(dims_are(b, 3, dp3));
    if (b) {
        CHECK_OK(app, clip_data_reshape(b, 4, dp));
        CHECK(identical(a, b));
    }
    clip_data_destroy(b);
    b = NULL;
    clip_data_destroy(a);

    /* Two and five channels (gray+alpha, extra samples). */
    size_t d5[3] = {3, 2, 5}, dga[3] = {2, 3, 2};
    a = make(app, CLIP_F32, 3, d5, 17, 9.0);
    round_trip(app, "five.tif", a);
    clip_data_destroy(a);
    a = make(app, CLIP_F32, 3, dga, 18, 9.0);
    round_trip(app, "ga.tif", a);
    clip_data_destroy(a);

    /* Shapes and types an image cannot hold. */
    size_t d5d[5] = {2, 2, 1, 1, 2}, dempty[2] = {3, 0};
    a = make(app, CLIP_F32, 5, d5d, 19, 1.0);
    CHECK_STATUS(app, clip_save(app, tp("bad5d.tif"), a), CLIP_ERR_DIMS);
    clip_data_destroy(a);
    a = make(app, CLIP_F32, 2, dempty, 19, 1.0);
    CHECK_STATUS(app, clip_save(app, tp("empty.tif"), a), CLIP_ERR_DIMS);
    CHECK(!tu_file_exists(tp("empty.tif")));
    clip_data_destroy(a);
    a = make(app, CLIP_C32, 2, d2, 20, 1.0);
    CHECK_STATUS(app, clip_save(app, tp("complex.tif"), a), CLIP_ERR_TYPE);
    CHECK_MSG(app, tp("complex.tif"));
    clip_data_destroy(a);
}

/* Exact saves (io.h: "Saves keep the values they were given"), stacks as pages, one page alone. */
static void test_tiff_exact(clip_app *app) {
    size_t d5[3] = {4, 3, 5}, d3[3] = {4, 3, 3}, d2[2] = {2, 2};
    clip_data *a = tu_io_data(app, CLIP_F32, 3, d5, 31, 0, 1), *b = NULL;
    float *p = NULL;
    clip_data_host_write(a, (void **)&p);
    p[7] = 40000.0f; /* past 255: 16-bit samples */
    clip_save_report rep;
    CHECK_OK(app, clip_save_with(app, tp("stack5.tif"), a, NULL, &rep));
    CHECK(rep.sample == CLIP_SAMPLE_U16 && rep.pages == 5 && rep.channels == 1 && !rep.text[0] &&
          !rep.changed);
    CHECK_OK(app, clip_load(app, tp("stack5.tif"), &b));
    CHECK(identical(a, b));
    clip_data_destroy(b);
    b = NULL;
    /* Page 2 alone is the second slice; a page past the last names how many there are. */
    const clip_load_opts page2 = {NULL, 2};
    CHECK_OK(app, clip_load_with(app, tp("stack5.tif"), &page2, &b));
    CHECK(b && clip_data_ndims(b) == 2 && clip_data_dim(b, 0) == 4 && clip_data_dim(b, 1) == 3);
    for (size_t i = 0; b && i < 12; i++)
        CHECK_NEAR(comp(b, i), p[12 + i], 0);
    clip_data_destroy(b);
    b = NULL;
    const clip_load_opts page6 = {NULL, 6};
    CHECK_STATUS(app, clip_load_with(app, tp("stack5.tif"), &page6, &b), CLIP_ERR_FORMAT);
    CHECK_MSG(app, "no page 6: the file has 5");
    const clip_load_opts var = {"x", 0};
    CHECK_STATUS(app, clip_load_with(app, tp("stack5.tif"), &var, &b), CLIP_ERR_INVALID_ARG);
    CHECK(b == NULL);
    clip_data_destroy(a);

    /* x 3 is RGB unless pages are asked for; both load back as they were. */
    a = tu_io_data(app, CLIP_F32, 3, d3, 32, 0, 1);
    CHECK_OK(app, clip_save_with(app, tp("rgb3.tif"), a, NULL, &rep));
    CHECK(rep.sample == CLIP_SAMPLE_U8 && rep.pages == 1 && rep.channels == 3);
    const clip_save_opts pages = {.third = CLIP_THIRD_PAGES};
    CHECK_OK(app, clip_save_with(app, tp("pages3.tif"), a, &pages, &rep));
    CHECK(rep.pages == 3 && rep.channels == 1);
    CHECK_OK(app, clip_load(app, tp("pages3.tif"), &b));
    CHECK(identical(a, b));
    clip_data_destroy(b);
    b = NULL;
    /* PNG has no pages, and no float samples; MAT has no sample types. */
    if (clip_io_has("png"))
        CHECK_STATUS(app, clip_save_with(app, tp("pages3.png"), a, &pages, NULL),
                     CLIP_ERR_INVALID_ARG);
    const clip_save_opts u8 = {.sample = CLIP_SAMPLE_U8};
    CHECK_STATUS(app, clip_save_with(app, tp("u8.mat"), a, &u8, NULL), CLIP_ERR_INVALID_ARG);
    CHECK(!tu_file_exists(tp("pages3.png")) && !tu_file_exists(tp("u8.mat")));
    clip_data_destroy(a);

    /* Fractions keep float samples; a scale maps [min, max] onto 0..65535 and says how. */
    const double v[4] = {0.5, 70000, 1, 3};
    a = make_from(app, CLIP_F64, 2, d2, v);
    CHECK_OK(app, clip_save_with(app, tp("frac.tif"), a, NULL, &rep));
    CHECK(rep.sample == CLIP_SAMPLE_F64 && !rep.changed);
    CHECK_OK(app, clip_load(app, tp("frac.tif"), &b));
    CHECK(identical(a, b));
    clip_data_destroy(b);
    b = NULL;
    const clip_save_opts scale = {.fit = CLIP_FIT_SCALE};
    CHECK_OK(app, clip_save_with(app, tp("scaled.tif"), a, &scale, &rep));
    CHECK(rep.sample == CLIP_SAMPLE_U16 && rep.changed == 4 &&
          strstr(rep.text, "scaled the values' range [0.5, 70000] linearly onto 0..65535"));
    CHECK_OK(app, clip_load(app, tp("scaled.tif"), &b));
    const double k = 65535.0 / (70000.0 - 0.5);
    for (size_t i = 0; b && i < 4; i++)
        CHECK_NEAR(comp(b, i), floor((v[i] - 0.5) * k + 0.5), 0);
    clip_data_destroy(b);
    clip_data_destroy(a);
}

#ifdef TEST_LIBTIFF
/* Writes a rows x cols x spp image of `bps`-bit samples of `format` with libtiff, from
 * doubles in scanline order; `tile` > 0 writes tiles of that size, `separate` uses one plane
 * per sample; `pages` copies (page k adds k to every value). */
static void write_tiff_direct(const char *path, uint32_t rows, uint32_t cols, uint16_t spp,
                              uint16_t bps, uint16_t format, uint16_t compression, uint32_t tile,
                              int separate, int pages, const double *vals) {
    TIFF *tif = TIFFOpen(path, "w");
    if (!tif) {
        fprintf(stderr, "libtiff cannot create %s\n", path);
        exit(2);
    }
    size_t bytes = bps / 8;
    for (int pg = 0; pg < pages; pg++) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, cols);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, rows);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, spp);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bps);
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, format);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, spp == 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG,
                     separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
        size_t per = separate ? 1 : spp;
        /* Every sample of plane s, row r, col c goes to out[...] in native order. */
        uint32_t tw = tile ? tile : cols, th = tile ? tile : 2;
        if (tile) {
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, tw);
            TIFFSetField(tif, TIFFTAG_TILELENGTH, th);
        } else {
            TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, th);
        }
        unsigned char *buf = calloc((size_t)tw * th * per, bytes);
        for (size_t s = 0; s < (separate ? spp : 1u); s++) {
            for (uint32_t y = 0; y < rows; y += th) {
                for (uint32_t x = 0; x < cols; x += tw) {
                    memset(buf, 0, (size_t)tw * th * per * bytes);
                    for (uint32_t r = 0; r < th && y + r < rows; r++)
                        for (uint32_t c = 0; c < tw && x + c < cols; c++)
                            for (size_t k = 0; k < per; k++) {
                                size_t ch = separate ? s : k;
                                double v = vals[((size_t)(y + r) * cols + x + c) * spp + ch] + pg;
                                unsigned char *o = buf + (((size_t)r * tw + c) * per + k) * bytes;
                                if (format == SAMPLEFORMAT_IEEEFP) {
                                    float f = (float)v;
                                    if (bps == 64)
                                        memcpy(o, &v, 8);
                                    else
                                        memcpy(o, &f, 4);
                                } else if (format == SAMPLEFORMAT_INT) {
                                    /* Convert only to the width in use: a value out of a
                                     * narrower type's range is undefined behaviour. */
                                    int32_t i32 = bps == 32 ? (int32_t)v : 0;
                                    int16_t i16 = bps == 16 ? (int16_t)v : 0;
                                    int8_t i8 = bps == 8 ? (int8_t)v : 0;
                                    memcpy(o,
                                           bps == 32   ? (void *)&i32
                                           : bps == 16 ? (void *)&i16
                                                       : (void *)&i8,
                                           bytes);
                                } else {
                                    uint32_t u32 = bps == 32 ? (uint32_t)v : 0;
                                    uint16_t u16 = bps == 16 ? (uint16_t)v : 0;
                                    uint8_t u8 = bps == 8 ? (uint8_t)v : 0;
                                    memcpy(o,
                                           bps == 32   ? (void *)&u32
                                           : bps == 16 ? (void *)&u16
                                                       : (void *)&u8,
                                           bytes);
                                }
                            }
                    if (tile) {
                        TIFFWriteTile(tif, buf, x, y, 0, (uint16_t)s);
                    } else {
                        /* One strip of th rows. */
                        uint32_t strip = TIFFComputeStrip(tif, y, (uint16_t)s);
                        uint32_t nrows = rows - y < th ? rows - y : th;
                        TIFFWriteEncodedStrip(tif, strip, buf,
                                              (tmsize_t)(nrows * tw * per * bytes));
                    }
                }
            }
        }
        free(buf);
        TIFFWriteDirectory(tif);
    }
    TIFFClose(tif);
}

/* Loads path and checks it against vals (scanline order, rows x cols x spp, pages adding k). */
static void check_tiff_direct(clip_app *app, const char *path, uint32_t rows, uint32_t cols,
                              uint16_t spp, int pages, clip_type want_type, const double *vals) {
    clip_data *d = NULL;
    CHECK_OK(app, clip_load(app, path, &d));
    if (!d) return;
    CHECK(clip_data_type(d) == want_type);
    CHECK(clip_data_dim(d, 0) == rows && clip_data_dim(d, 1) == cols);
    CHECK(clip_data_numel(d) == (size_t)rows * cols * spp * (size_t)pages);
    int bad = 0;
    for (int pg = 0; pg < pages; pg++)
        for (uint32_t r = 0; r < rows; r++)
            for (uint32_t c = 0; c < cols; c++)
                for (size_t ch = 0; ch < spp; ch++) {
                    double v = vals[((size_t)r * cols + c) * spp + ch] + pg;
                    double want = want_type == CLIP_F32 ? (double)(float)v : v;
                    size_t at = r + rows * (c + cols * (ch + spp * (size_t)pg));
                    bad += comp(d, at) != want;
                }
    if (bad) fprintf(stderr, "%s: %d values differ\n", path, bad);
    CHECK(bad == 0);
    clip_data_destroy(d);
}

static void test_tiff_direct(clip_app *app) {
    enum { R = 5, C = 7, S = 3 };
    double v[R * C * S];
    unsigned long long seed = 77;
    for (size_t i = 0; i < R * C * S; i++)
        v[i] = floor((tu_rand(&seed) + 1.0) * 100.0);
    double big[R * C], neg[R * C];
    for (size_t i = 0; i < R * C; i++) {
        big[i] = i == 0 ? 4000000000.0 : i == 1 ? 16777217.0 : v[i] * 1000.0;
        neg[i] = i % 2 ? -v[i] : v[i];
    }
    big[2] = 4294967295.0;
    neg[3] = -128;
    write_tiff_direct(tp("u32.tif"), R, C, 1, 32, SAMPLEFORMAT_UINT, COMPRESSION_NONE, 0, 0, 1,
                      big);
    /* 32-bit integers load as f64, exactly: in f32, 16777217 and 4294967295 would round. */
    check_tiff_direct(app, tp("u32.tif"), R, C, 1, 1, CLIP_F64, big);
    double i32[R * C];
    memcpy(i32, neg, sizeof i32);
    i32[4] = -2147483648.0;
    i32[5] = -16777217.0;
    i32[6] = 2147483647.0;
    write_tiff_direct(tp("i32.tif"), R, C, 1, 32, SAMPLEFORMAT_INT, COMPRESSION_NONE, 0, 0, 1, i32);
    check_tiff_direct(app, tp("i32.tif"), R, C, 1, 1, CLIP_F64, i32);
    write_tiff_direct(tp("i16.tif"), R, C, 1, 16, SAMPLEFORMAT_INT, COMPRESSION_NONE, 0, 0, 1, neg);
    check_tiff_direct(app, tp("i16.tif"), R, C, 1, 1, CLIP_F32, neg);
    double small[R * C];
    for (size_t i = 0; i < R * C; i++)
        small[i] = fmod(neg[i], 128.0);
    small[0] = -128;
    small[1] = 127;
    write_tiff_direct(tp("i8.tif"), R, C, 1, 8, SAMPLEFORMAT_INT, COMPRESSION_NONE, 0, 0, 1, small);
    check_tiff_direct(app, tp("i8.tif"), R, C, 1, 1, CLIP_F32, small);
    /* Tiles (partial at the edges), separate planes, compression, several pages. */
    write_tiff_direct(tp("tiled_sep.tif"), R, C, S, 16, SAMPLEFORMAT_UINT, COMPRESSION_NONE, 16, 1,
                      2, v);
    check_tiff_direct(app, tp("tiled_sep.tif"), R, C, S, 2, CLIP_F32, v);
    write_tiff_direct(tp("tiled_rgb.tif"), R, C, S, 8, SAMPLEFORMAT_UINT, COMPRESSION_NONE, 16, 0,
                      1, v);
    check_tiff_direct(app, tp("tiled_rgb.tif"), R, C, S, 1, CLIP_F32, v);
    write_tiff_direct(tp("lzw_sep.tif"), R, C, S, 8, SAMPLEFORMAT_UINT, COMPRESSION_LZW, 0, 1, 3,
                      v);
    check_tiff_direct(app, tp("lzw_sep.tif"), R, C, S, 3, CLIP_F32, v);
    write_tiff_direct(tp("deflate_f64.tif"), R, C, S, 64, SAMPLEFORMAT_IEEEFP,
                      COMPRESSION_ADOBE_DEFLATE, 0, 0, 2, v);
    check_tiff_direct(app, tp("deflate_f64.tif"), R, C, S, 2, CLIP_F64, v);

    /* Pages that differ in size cannot stack. */
    TIFF *tif = TIFFOpen(tp("mixed.tif"), "w");
    for (uint32_t pg = 0; pg < 2; pg++) {
        uint8_t row[8] = {0};
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, 4 + pg);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, 2u);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFWriteScanline(tif, row, 0, 0);
        TIFFWriteScanline(tif, row, 1, 0);
        TIFFWriteDirectory(tif);
    }
    TIFFClose(tif);
    clip_data *d = NULL;
    CHECK_STATUS(app, clip_load(app, tp("mixed.tif"), &d), CLIP_ERR_FORMAT);
    CHECK_MSG(app, "page 2");
    CHECK(d == NULL);
}
#endif

/* ---------------------------------------------------------------- PNG */

static void check_png(clip_app *app, const char *name, int nd, const size_t *dims,
                      clip_sample sample) {
    size_t n = dims[0] * dims[1] * (nd > 2 ? dims[2] : 1);
    double max = sample == CLIP_SAMPLE_U8 ? 255.0 : 65535.0;
    double *v = malloc(n * sizeof *v), *want = malloc(n * sizeof *want);
    for (size_t i = 0; i < n; i++) {
        /* Mostly exact integers, with out-of-range and fractional values mixed in. */
        switch (i % 7) {
        case 0:
            v[i] = -5.0;
            want[i] = 0;
            break;
        case 1:
            v[i] = max + 100.0;
            want[i] = max;
            break;
        case 2:
            v[i] = 10.5;
            want[i] = 11;
            break;
        case 3:
            v[i] = 20.49;
            want[i] = 20;
            break;
        default:
            v[i] = (double)((i * 53) % (size_t)(max + 1));
            want[i] = v[i];
            break;
        }
    }
    clip_data *a = make_from(app, CLIP_F32, nd, dims, v), *b = NULL;
    /* Values out of range or fractional are refused; the clamp asked for changes them. */
    CHECK_STATUS(app, clip_save_png(app, tp(name), a, sample), CLIP_ERR_TYPE);
    CHECK(!tu_file_exists(tp(name)));
    const clip_save_opts clamp = {.sample = sample, .fit = CLIP_FIT_CLAMP};
    clip_save_report rep;
    CHECK_OK(app, clip_save_with(app, tp(name), a, &clamp, &rep));
    CHECK(rep.sample == (sample == CLIP_SAMPLE_AUTO ? CLIP_SAMPLE_U16 : sample) && rep.text[0]);
    CHECK_OK(app, clip_load(app, tp(name), &b));
    CHECK(b && clip_data_type(b) == CLIP_F32 && dims_are(b, nd, dims));
    int bad = 0;
    for (size_t i = 0; b && i < n; i++)
        bad += comp(b, i) != want[i];
    if (bad) fprintf(stderr, "%s: %d values differ\n", name, bad);
    CHECK(bad == 0);
    clip_data_destroy(a);
    clip_data_destroy(b);
    free(v);
    free(want);
}

static void test_png(clip_app *app) {
    size_t g[2] = {7, 5}, ga[3] = {7, 5, 2}, rgb[3] = {6, 9, 3}, rgba[3] = {4, 3, 4};
    check_png(app, "gray8.png", 2, g, CLIP_SAMPLE_U8);
    check_png(app, "gray16.png", 2, g, CLIP_SAMPLE_U16);
    check_png(app, "ga8.png", 3, ga, CLIP_SAMPLE_AUTO);
    check_png(app, "ga16.png", 3, ga, CLIP_SAMPLE_U16);
    check_png(app, "rgb8.png", 3, rgb, CLIP_SAMPLE_U8);
    check_png(app, "rgb16.png", 3, rgb, CLIP_SAMPLE_U16);
    check_png(app, "rgba8.png", 3, rgba, CLIP_SAMPLE_U8);
    check_png(app, "rgba16.png", 3, rgba, CLIP_SAMPLE_U16);

    /* clip_save picks 8 bits; f64 data is fine. */
    clip_data *a = make(app, CLIP_F64, 2, g, 3, 1.0), *b = NULL;
    double *p = NULL;
    clip_data_host_write(a, (void **)&p);
    for (size_t i = 0; i < 35; i++)
        p[i] = (double)(i * 7);
    CHECK_OK(app, clip_save(app, tp("auto.PNG"), a));
    CHECK_OK(app, clip_load(app, tp("auto.PNG"), &b));
    for (size_t i = 0; b && i < 35; i++)
        CHECK_NEAR(comp(b, i), (double)(i * 7), 0);
    clip_data_destroy(b);
    clip_data_destroy(a);

    /* Past libpng's default limit of 1,000,000 columns or rows, which is not PNG's: small in
     * bytes, and both ways round trip. */
    size_t wide[2] = {1, 1000001}, tall[2] = {1000001, 1};
    a = tu_io_data(app, CLIP_F32, 2, wide, 6, 0, 1);
    round_trip(app, "wide.png", a);
    clip_data_destroy(a);
    a = tu_io_data(app, CLIP_F32, 2, tall, 7, 0, 1);
    round_trip(app, "tall.png", a);
    clip_data_destroy(a);

    size_t five[3] = {2, 2, 5};
    a = make(app, CLIP_F32, 3, five, 4, 1.0);
    CHECK_STATUS(app, clip_save(app, tp("five.png"), a), CLIP_ERR_DIMS);
    CHECK_MSG(app, tp("five.png"));
    CHECK_STATUS(app, clip_save_png(app, tp("f32.png"), a, CLIP_SAMPLE_F32), CLIP_ERR_INVALID_ARG);
    clip_data_destroy(a);
    a = make(app, CLIP_C64, 2, g, 5, 1.0);
    CHECK_STATUS(app, clip_save(app, tp("complex.png"), a), CLIP_ERR_TYPE);
    CHECK_MSG(app, tp("complex.png"));
    CHECK(!tu_file_exists(tp("complex.png")));
    clip_data_destroy(a);
}

/* ---------------------------------------------------------------- MAT */

static void test_mat_round_trips(clip_app *app, int v73) {
    static const clip_type types[4] = {CLIP_F32, CLIP_F64, CLIP_C32, CLIP_C64};
    size_t d2[2] = {4, 3}, d3[3] = {2, 3, 4}, dv[2] = {1, 6}, de[2] = {3, 0};
    char name[64];
    for (int t = 0; t < 4; t++) {
        for (int shape = 0; shape < 4; shape++) {
            const size_t *dims = shape == 0 ? d2 : shape == 1 ? d3 : shape == 2 ? dv : de;
            int nd = shape == 1 ? 3 : 2;
            clip_data *a = make(app, types[t], nd, dims, 100 + (unsigned)(t * 4 + shape), 1e3);
            clip_data *b = NULL, *c = NULL;
            snprintf(name, sizeof name, "rt_%s_%d_%s.mat", clip_type_name(types[t]), shape,
                     v73 ? "v73" : "v5");
            CHECK_OK(app, clip_save_mat(app, tp(name), NULL, a, v73));
            CHECK_OK(app, clip_load(app, tp(name), &b));
            CHECK_OK(app, clip_load_mat(app, tp(name), "result", &c));
            if (v73 && shape == 3 && clip_type_is_complex(types[t]) && b &&
                !clip_type_is_complex(clip_data_type(b))) {
                /* matio writes an empty complex v7.3 variable as an empty real one; with no
                 * elements, nothing is lost but the flag. */
                clip_data *ar = NULL;
                CHECK_OK(app,
                         clip_data_create(app, clip_type_is_double(types[t]) ? CLIP_F64 : CLIP_F32,
                                          nd, dims, &ar));
                clip_data_destroy(a);
                a = ar;
            }
            if (!identical(a, b) || !identical(a, c))
                fprintf(stderr, "MAT round trip %s changed the data\n", name);
            CHECK(identical(a, b));
            CHECK(identical(a, c));
            clip_data_destroy(a);
            clip_data_destroy(b);
            clip_data_destroy(c);
        }
    }
    /* A chosen variable name; loading another name fails and says which. */
    clip_data *a = make(app, CLIP_F64, 2, d2, 5, 1.0), *b = NULL;
    snprintf(name, sizeof name, "named_%s.mat", v73 ? "v73" : "v5");
    CHECK_OK(app, clip_save_mat(app, tp(name), "x_1", a, v73));
    CHECK_OK(app, clip_load_mat(app, tp(name), "x_1", &b));
    CHECK(identical(a, b));
    clip_data_destroy(b);
    b = NULL;
    CHECK_STATUS(app, clip_load_mat(app, tp(name), "result", &b), CLIP_ERR_FORMAT);
    CHECK_MSG(app, "result");
    CHECK_MSG(app, tp(name));
    CHECK_STATUS(app, clip_save_mat(app, tp(name), "1bad", a, v73), CLIP_ERR_INVALID_ARG);
    clip_data_destroy(a);
}

#ifdef TEST_MATIO
static void put_var(mat_t *mat, const char *name, enum matio_classes c, enum matio_types t,
                    int rank, size_t *dims, void *data, int opt) {
    matvar_t *v = Mat_VarCreate(name, c, t, rank, dims, data, opt);
    if (!v || Mat_VarWrite(mat, v, MAT_COMPRESSION_ZLIB) != 0) {
        fprintf(stderr, "matio cannot write %s\n", name);
        exit(2);
    }
    Mat_VarFree(v);
}

/* A file holding char and struct variables first, then every integer class. The names sort in
 * the order they are written, because matio lists v7.3 (HDF5) variables by name. */
static void write_mixed_mat(const char *path, int v73) {
    mat_t *mat = Mat_CreateVer(path, NULL, v73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    if (!mat) {
        fprintf(stderr, "matio cannot create %s\n", path);
        exit(2);
    }
    size_t cd[2] = {1, 5};
    put_var(mat, "aa_title", MAT_C_CHAR, MAT_T_UTF8, 2, cd, "hello", 0);
    size_t sd[2] = {1, 1};
    const char *fields[] = {"k", NULL};
    matvar_t *st = Mat_VarCreateStruct2("ab_s", 2, sd, fields);
    double one = 1.0;
    Mat_VarSetStructFieldByName(st, "k", 0,
                                Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, sd, &one, 0));
    Mat_VarWrite(mat, st, MAT_COMPRESSION_NONE);
    Mat_VarFree(st);

    size_t d[2] = {2, 3};
    int16_t i16[6] = {-32768, -1, 0, 1, 1234, 32767};
    put_var(mat, "ac_int16", MAT_C_INT16, MAT_T_INT16, 2, d, i16, 0);
    int8_t i8[6] = {-128, -1, 0, 1, 100, 127};
    put_var(mat, "b_int8", MAT_C_INT8, MAT_T_INT8, 2, d, i8, 0);
    uint8_t u8[6] = {0, 1, 2, 128, 254, 255};
    put_var(mat, "b_uint8", MAT_C_UINT8, MAT_T_UINT8, 2, d, u8, 0);
    uint16_t u16[6] = {0, 1, 2, 40000, 65534, 65535};
    put_var(mat, "b_uint16", MAT_C_UINT16, MAT_T_UINT16, 2, d, u16, 0);
    uint8_t lg[6] = {1, 0, 0, 1, 1, 0};
    put_var(mat, "b_logical", MAT_C_UINT8, MAT_T_UINT8, 2, d, lg, MAT_F_LOGICAL);
    int32_t i32[6] = {INT32_MIN, -1, 0, 1, 123456789, INT32_MAX};
    put_var(mat, "b_int32", MAT_C_INT32, MAT_T_INT32, 2, d, i32, 0);
    uint32_t u32[6] = {0, 1, 2, 3000000000u, 4294967294u, UINT32_MAX};
    put_var(mat, "b_uint32", MAT_C_UINT32, MAT_T_UINT32, 2, d, u32, 0);
    int64_t i64[6] = {-(INT64_C(1) << 53), -1, 0, 1, INT64_C(1) << 40, INT64_C(1) << 53};
    put_var(mat, "b_int64", MAT_C_INT64, MAT_T_INT64, 2, d, i64, 0);
    uint64_t u64[6] = {0, 1, 2, UINT64_C(1) << 60, UINT64_C(1) << 53, UINT64_C(1) << 63};
    put_var(mat, "b_uint64", MAT_C_UINT64, MAT_T_UINT64, 2, d, u64, 0);
    int16_t re[6] = {1, 2, 3, 4, 5, 6}, im[6] = {-1, -2, -3, -4, -5, -6};
    mat_complex_split_t z = {re, im};
    put_var(mat, "b_cint16", MAT_C_INT16, MAT_T_INT16, 2, d, &z, MAT_F_COMPLEX);
    Mat_Close(mat);
}

/* Loads `var` from the mixed file and checks type and the six values. */
static void check_int_var(clip_app *app, const char *path, const char *var, clip_type want,
                          const double *vals) {
    clip_data *d = NULL;
    size_t dims[2] = {2, 3};
    CHECK_OK(app, clip_load_mat(app, path, var, &d));
    CHECK(d && clip_data_type(d) == want && dims_are(d, 2, dims));
    for (size_t i = 0; d && i < 6; i++) {
        double w = want == CLIP_F32 ? (double)(float)vals[i] : vals[i];
        if (comp(d, i) != w)
            fprintf(stderr, "%s %s[%zu] = %.17g, want %.17g\n", path, var, i, comp(d, i), w);
        CHECK(comp(d, i) == w);
    }
    clip_data_destroy(d);
}

static void test_mat_classes(clip_app *app, int v73) {
    char path[512];
    snprintf(path, sizeof path, "%s", tp(v73 ? "mixed_v73.mat" : "mixed_v5.mat"));
    write_mixed_mat(path, v73);
    /* The first numeric variable is ac_int16, after a char and a struct. */
    double i16[6] = {-32768, -1, 0, 1, 1234, 32767};
    clip_data *d = NULL;
    CHECK_OK(app, clip_load(app, path, &d));
    CHECK(d && clip_data_type(d) == CLIP_F32);
    for (size_t i = 0; d && i < 6; i++)
        CHECK_NEAR(comp(d, i), i16[i], 0);
    clip_data_destroy(d);
    d = NULL;
    check_int_var(app, path, "ac_int16", CLIP_F32, i16);
    double i8[6] = {-128, -1, 0, 1, 100, 127};
    check_int_var(app, path, "b_int8", CLIP_F32, i8);
    double u8[6] = {0, 1, 2, 128, 254, 255};
    check_int_var(app, path, "b_uint8", CLIP_F32, u8);
    double u16[6] = {0, 1, 2, 40000, 65534, 65535};
    check_int_var(app, path, "b_uint16", CLIP_F32, u16);
    double lg[6] = {1, 0, 0, 1, 1, 0};
    check_int_var(app, path, "b_logical", CLIP_F32, lg);
    double i32[6] = {-2147483648.0, -1, 0, 1, 123456789, 2147483647.0};
    check_int_var(app, path, "b_int32", CLIP_F64, i32);
    double u32[6] = {0, 1, 2, 3000000000.0, 4294967294.0, 4294967295.0};
    check_int_var(app, path, "b_uint32", CLIP_F64, u32);
    double i64[6] = {-9007199254740992.0, -1, 0, 1, 1099511627776.0, 9007199254740992.0};
    check_int_var(app, path, "b_int64", CLIP_F64, i64);
    double u64[6] = {0, 1, 2, 1152921504606846976.0, 9007199254740992.0, 9223372036854775808.0};
    check_int_var(app, path, "b_uint64", CLIP_F64, u64);

    CHECK_OK(app, clip_load_mat(app, path, "b_cint16", &d));
    CHECK(d && clip_data_type(d) == CLIP_C32);
    for (size_t i = 0; d && i < 6; i++) {
        CHECK_NEAR(comp(d, 2 * i), (double)(i + 1), 0);
        CHECK_NEAR(comp(d, 2 * i + 1), -(double)(i + 1), 0);
    }
    clip_data_destroy(d);
    d = NULL;
    CHECK_STATUS(app, clip_load_mat(app, path, "aa_title", &d), CLIP_ERR_TYPE);
    CHECK_MSG(app, "aa_title");
    CHECK_STATUS(app, clip_load_mat(app, path, "ab_s", &d), CLIP_ERR_TYPE);
    CHECK(d == NULL);

    /* Only non-numeric variables: nothing to load. */
    snprintf(path, sizeof path, "%s", tp(v73 ? "charonly_v73.mat" : "charonly_v5.mat"));
    mat_t *mat = Mat_CreateVer(path, NULL, v73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    size_t cd[2] = {1, 3};
    put_var(mat, "c", MAT_C_CHAR, MAT_T_UTF8, 2, cd, "abc", 0);
    Mat_Close(mat);
    CHECK_STATUS(app, clip_load(app, path, &d), CLIP_ERR_FORMAT);
    CHECK_MSG(app, "no numeric variable");
}
#endif

#ifdef TEST_MATIO
/* A logical variable before a double one: MATLAB's isnumeric(true) is false, so "the first
 * numeric variable" is the double, though matio stores the logical as uint8; a logical alone
 * still loads. */
static void test_mat_logical_first(clip_app *app, int v73) {
    char path[512];
    snprintf(path, sizeof path, "%s", tp(v73 ? "logical_first_v73.mat" : "logical_first_v5.mat"));
    mat_t *mat = Mat_CreateVer(path, NULL, v73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    if (!mat) {
        fprintf(stderr, "matio cannot create %s\n", path);
        exit(2);
    }
    size_t d[2] = {2, 2};
    uint8_t flags[4] = {1, 0, 1, 1};
    double x[4] = {0.5, -2.0, 3.25, 1e10};
    put_var(mat, "a_flags", MAT_C_UINT8, MAT_T_UINT8, 2, d, flags, MAT_F_LOGICAL);
    put_var(mat, "b_x", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d, x, 0);
    Mat_Close(mat);
    clip_data *got = NULL;
    CHECK_OK(app, clip_load(app, path, &got));
    CHECK(got && clip_data_type(got) == CLIP_F64 && dims_are(got, 2, d));
    for (size_t i = 0; got && i < 4; i++)
        CHECK_NEAR(comp(got, i), x[i], 0);
    clip_data_destroy(got);
    got = NULL;
    /* By name, the logical still loads (as f32 0/1). */
    double want[4] = {1, 0, 1, 1};
    CHECK_OK(app, clip_load_mat(app, path, "a_flags", &got));
    CHECK(got && clip_data_type(got) == CLIP_F32);
    for (size_t i = 0; got && i < 4; i++)
        CHECK_NEAR(comp(got, i), want[i], 0);
    clip_data_destroy(got);
    got = NULL;
    /* A logical alone in its file (a mask saved by itself) is the one loaded. */
    mat = Mat_CreateVer(path, NULL, v73 ? MAT_FT_MAT73 : MAT_FT_MAT5);
    if (!mat) {
        fprintf(stderr, "matio cannot create %s\n", path);
        exit(2);
    }
    put_var(mat, "mask", MAT_C_UINT8, MAT_T_UINT8, 2, d, flags, MAT_F_LOGICAL);
    Mat_Close(mat);
    CHECK_OK(app, clip_load(app, path, &got));
    CHECK(got && clip_data_type(got) == CLIP_F32);
    for (size_t i = 0; got && i < 4; i++)
        CHECK_NEAR(comp(got, i), want[i], 0);
    clip_data_destroy(got);
}
#endif

/* MAT 5 sizes and byte counts are 32-bit (matio writes them as int): a variable past them is
 * refused before anything is written, rather than saved with wrapped counts. */
static void test_mat5_limits(clip_app *app) {
    /* A dimension past INT32_MAX, with no elements: nothing to write but the dimensions. */
    size_t wide[2] = {(size_t)INT32_MAX + 1, 0};
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, wide, &d));
    CHECK_STATUS(app, clip_save(app, tp("wide.mat"), d), CLIP_ERR_DIMS);
    CHECK_MSG(app, "2147483648x0");
    CHECK_MSG(app, "7.3");
    CHECK(!tu_file_exists(tp("wide.mat")));
    clip_data_destroy(d);
    d = NULL;

    /* 2 GiB of samples, one more byte count than MAT 5 holds. The memory is only reserved:
     * the refusal comes before any sample is read. */
    size_t big[2] = {(size_t)1 << 29, 1};
    const size_t bytes = big[0] * sizeof(float);
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        printf("test_io: MAT 5 size limit: 2 GiB case skipped: cannot reserve %zu bytes\n", bytes);
        return;
    }
    CHECK_OK(app, clip_data_wrap(app, CLIP_F32, 2, big, mem, &d));
    CHECK_STATUS(app, clip_save_mat(app, tp("big.mat"), "x", d, 0), CLIP_ERR_DIMS);
    CHECK_MSG(app, "2147483648 bytes");
    CHECK_MSG(app, "7.3");
    CHECK(!tu_file_exists(tp("big.mat")));
    clip_data_destroy(d);
    munmap(mem, bytes);
}

static void test_mat(clip_app *app) {
    test_mat_round_trips(app, 0);
    test_mat5_limits(app);
#ifdef TEST_MATIO
    test_mat_classes(app, 0);
    test_mat_logical_first(app, 0);
#endif
    if (clip_io_has("mat73")) {
        test_mat_round_trips(app, 1);
#ifdef TEST_MATIO
        test_mat_classes(app, 1);
        test_mat_logical_first(app, 1);
#endif
    } else {
        size_t d[2] = {2, 2};
        clip_data *a = make(app, CLIP_F32, 2, d, 1, 1.0);
        CHECK_STATUS(app, clip_save_mat(app, tp("no73.mat"), NULL, a, 1), CLIP_ERR_UNSUPPORTED);
        clip_data_destroy(a);
        printf("test_io: matio has no HDF5: v7.3 round trips skipped\n");
    }
}

/* ---------------------------------------------------------------- CFL */

static void test_cfl(clip_app *app) {
    size_t d3[3] = {3, 4, 5};
    clip_data *a = make(app, CLIP_C32, 3, d3, 31, 10.0), *b = NULL;
    round_trip(app, "c.cfl", a);
    CHECK(tu_file_exists(tp("c.hdr")));
    size_t n = 0;
    unsigned char *hdr = tu_read_file(tp("c.hdr"), &n);
    CHECK(hdr && n > 20 && memcmp(hdr, "# Dimensions\n3 4 5 1 ", 21) == 0);
    free(hdr);
    CHECK_OK(app, clip_load_cfl(app, tp("c"), &b));
    CHECK(identical(a, b));
    clip_data_destroy(b);
    b = NULL;

    /* BART names the pair base.cfl and base.hdr: an upper-case extension is refused, on save
     * and on load, rather than read or written under names other than the path given. */
    CHECK_STATUS(app, clip_save(app, tp("UP.CFL"), a), CLIP_ERR_UNSUPPORTED);
    CHECK_MSG(app, "lower-case");
    CHECK(!tu_file_exists(tp("UP.CFL")) && !tu_file_exists(tp("UP.cfl")) &&
          !tu_file_exists(tp("UP.hdr")) && !tu_file_exists(tp("UP.HDR")));
    CHECK_STATUS(app, clip_load(app, tp("c.CFL"), &b), CLIP_ERR_UNSUPPORTED);
    CHECK_MSG(app, tp("c.CFL"));
    CHECK_STATUS(app, clip_load(app, tp("c.Cfl"), &b), CLIP_ERR_UNSUPPORTED);
    CHECK(b == NULL);
    clip_data_destroy(a);

    /* Real and double data become complex float. */
    size_t d2[2] = {2, 3};
    double v[12] = {1, -2, 3.25, 1e-3, 5, 6, 7, 8, 9, 10, 11, 12};
    a = make_from(app, CLIP_F64, 2, d2, v);
    CHECK_OK(app, clip_save(app, tp("r.cfl"), a));
    CHECK_OK(app, clip_load(app, tp("r.cfl"), &b));
    CHECK(b && clip_data_type(b) == CLIP_C32 && dims_are(b, 2, d2));
    for (size_t i = 0; b && i < 6; i++) {
        CHECK_NEAR(comp(b, 2 * i), (float)v[i], 0);
        CHECK_NEAR(comp(b, 2 * i + 1), 0, 0);
    }
    clip_data_destroy(b);
    b = NULL;
    clip_data_destroy(a);
    a = make_from(app, CLIP_C64, 2, d2, v);
    CHECK_OK(app, clip_save_cfl(app, tp("z"), a));
    CHECK_OK(app, clip_load_cfl(app, tp("z"), &b));
    for (size_t i = 0; b && i < 12; i++)
        CHECK_NEAR(comp(b, i), (float)v[i], 0);
    clip_data_destroy(b);
    b = NULL;
    clip_data_destroy(a);

    /* Headers as newer BART writes them (more sections, 16 sizes), and trailing 1s dropped. */
    float z[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const char *h = "# Command\nbart ones 2 1 4\n# Dimensions\n1 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 \n"
                    "# Files\n>ones\n";
    write_bytes(tp("bart.hdr"), h, strlen(h));
    write_bytes(tp("bart.cfl"), z, sizeof z);
    size_t want[2] = {1, 4};
    CHECK_OK(app, clip_load(app, tp("bart.cfl"), &b));
    CHECK(dims_are(b, 2, want));
    for (size_t i = 0; b && i < 8; i++)
        CHECK_NEAR(comp(b, i), z[i], 0);
    clip_data_destroy(b);
    b = NULL;

    /* Size mismatch, bad sizes, missing pieces. */
    write_bytes(tp("bart.cfl"), z, sizeof z - 1);
    CHECK_STATUS(app, clip_load(app, tp("bart.cfl"), &b), CLIP_ERR_FORMAT);
    CHECK_MSG(app, tp("bart.cfl"));
    h = "# Dimensions\n1000000 1000000 1000000\n";
    write_bytes(tp("huge.hdr"), h, strlen(h));
    write_bytes(tp("huge.cfl"), z, sizeof z);
    CHECK_STATUS(app, clip_load(app, tp("huge.cfl"), &b), CLIP_ERR_FORMAT);
    h = "# Dimensions\n4294967296 4294967296 4294967296\n";
    write_bytes(tp("huge.hdr"), h, strlen(h));
    CHECK_STATUS(app, clip_load(app, tp("huge.cfl"), &b), CLIP_ERR_FORMAT);
    h = "# Dimensions\n2 -4\n";
    write_bytes(tp("huge.hdr"), h, strlen(h));
    CHECK_STATUS(app, clip_load(app, tp("huge.cfl"), &b), CLIP_ERR_FORMAT);
    h = "# Dimensions\n2 2 2 2 2 2 2 2 2\n";
    write_bytes(tp("huge.hdr"), h, strlen(h));
    CHECK_STATUS(app, clip_load(app, tp("huge.cfl"), &b), CLIP_ERR_DIMS);
    h = "no dimensions here\n";
    write_bytes(tp("huge.hdr"), h, strlen(h));
    CHECK_STATUS(app, clip_load(app, tp("huge.cfl"), &b), CLIP_ERR_FORMAT);
    CHECK_MSG(app, tp("huge.hdr"));
    write_bytes(tp("nohdr.cfl"), z, sizeof z);
    CHECK_STATUS(app, clip_load(app, tp("nohdr.cfl"), &b), CLIP_ERR_IO);
    CHECK_MSG(app, tp("nohdr.hdr"));
    write_bytes(tp("nocfl.hdr"), "# Dimensions\n2 2\n", 17);
    CHECK_STATUS(app, clip_load(app, tp("nocfl.cfl"), &b), CLIP_ERR_IO);
    CHECK_MSG(app, tp("nocfl.cfl"));
    CHECK(b == NULL);
}

/* ---------------------------------------------------------------- errors */

static uint32_t crc32_of(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void put_be32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put_le(unsigned char *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

/* Files whose headers claim sizes their length cannot hold: rejected before allocating. */
static void test_hostile_headers(clip_app *app) {
    clip_data *d = NULL;
    /* PNG: a valid IHDR (CRC and all) for 900000 x 900000, then nothing. */
    unsigned char png[33] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    put_be32(png + 8, 13);
    memcpy(png + 12, "IHDR", 4);
    put_be32(png + 16, 900000);
    put_be32(png + 20, 900000);
    png[24] = 8; /* depth; color type 0, compression, filter, interlace all 0 */
    put_be32(png + 29, crc32_of(png + 12, 17));
    write_bytes(tp("huge.png"), png, sizeof png);
    CHECK_STATUS(app, clip_load(app, tp("huge.png"), &d), CLIP_ERR_FORMAT);
    CHECK_MSG(app, tp("huge.png"));

    /* TIFF: 100000 x 100000 uncompressed 8-bit in a file of a few hundred bytes. */
    unsigned char tif[8 + 2 + 9 * 12 + 4 + 8] = {'I', 'I', 42, 0, 8, 0, 0, 0};
    static const uint16_t tags[9] = {256, 257, 258, 259, 262, 273, 277, 278, 279};
    uint32_t vals[9] = {100000, 100000, 8, 1, 1, (uint32_t)sizeof tif - 8, 1, 100000, 8};
    put_le(tif + 8, 9, 2);
    for (int i = 0; i < 9; i++) {
        unsigned char *e = tif + 10 + 12 * i;
        int is_short = tags[i] == 258 || tags[i] == 259 || tags[i] == 262 || tags[i] == 277;
        put_le(e, tags[i], 2);
        put_le(e + 2, is_short ? 3 : 4, 2);
        put_le(e + 4, 1, 4);
        put_le(e + 8, vals[i], is_short ? 2 : 4);
    }
    write_bytes(tp("huge.tif"), tif, sizeof tif);
    CHECK_STATUS(app, clip_load(app, tp("huge.tif"), &d), CLIP_ERR_FORMAT);
    CHECK_MSG(app, tp("huge.tif"));
    /* The same claim with deflate compression. */
    put_le(tif + 10 + 12 * 3 + 8, 8, 2);
    write_bytes(tp("huge_deflate.tif"), tif, sizeof tif);
    CHECK_STATUS(app, clip_load(app, tp("huge_deflate.tif"), &d), CLIP_ERR_FORMAT);

    /* MAT v5: a 100000 x 100000 double with one element of data. */
    unsigned char mat[128 + 8 + 16 + 16 + 16 + 16] = {0};
    memset(mat, ' ', 116);
    memcpy(mat, "MATLAB 5.0 MAT-file, hostile test", 33);
    put_le(mat + 124, 0x0100, 2);
    mat[126] = 'I';
    mat[127] = 'M';
    unsigned char *e = mat + 128;
    put_le(e, 14, 4); /* miMATRIX */
    put_le(e + 4, 64, 4);
    put_le(e + 8, 6, 4); /* array flags: miUINT32, 8 bytes, class double */
    put_le(e + 12, 8, 4);
    put_le(e + 16, 6, 4);
    put_le(e + 24, 5, 4); /* dims: miINT32, 8 bytes */
    put_le(e + 28, 8, 4);
    put_le(e + 32, 100000, 4);
    put_le(e + 36, 100000, 4);
    put_le(e + 40, 1, 4); /* name: miINT8, 1 byte, padded */
    put_le(e + 44, 1, 4);
    e[48] = 'x';
    put_le(e + 56, 9, 4); /* real part: miDOUBLE, 8 bytes */
    put_le(e + 60, 8, 4);
    write_bytes(tp("huge.mat"), mat, sizeof mat);
    CHECK_STATUS(app, clip_load(app, tp("huge.mat"), &d), CLIP_ERR_FORMAT);
    CHECK_MSG(app, tp("huge.mat"));
    CHECK(d == NULL);
}

/* Truncates a good file at several offsets; every one must fail cleanly (FORMAT or IO). */
static void check_truncations(clip_app *app, const char *good, const char *ext) {
    size_t n = 0;
    unsigned char *bytes = tu_read_file(good, &n);
    CHECK(bytes && n > 64);
    if (!bytes) return;
    size_t cuts[] = {0, 1, 4, 8, 16, 40, 100, 128, n / 3, n / 2, n - 16, n - 4, n - 1};
    char name[64];
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        if (cuts[i] >= n) continue;
        snprintf(name, sizeof name, "trunc_%zu%s", cuts[i], ext);
        write_bytes(tp(name), bytes, cuts[i]);
        clip_data *d = NULL;
        clip_status s = clip_load(app, tp(name), &d);
        if (s != CLIP_ERR_FORMAT && s != CLIP_ERR_IO)
            fprintf(stderr, "%s (of %zu bytes): %s\n", name, n, clip_status_str(s));
        CHECK(s == CLIP_ERR_FORMAT || s == CLIP_ERR_IO);
        CHECK(d == NULL);
        CHECK_MSG(app, tp(name));
        clip_data_destroy(d);
    }
    free(bytes);
}

static void test_errors(clip_app *app) {
    static const char *const exts[] = {".tif", ".tiff", ".png", ".mat", ".cfl"};
    char name[64];
    clip_data *d = NULL;
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "missing%s", exts[i]);
        CHECK_STATUS(app, clip_load(app, tp(name), &d), CLIP_ERR_IO);
        CHECK_MSG(app, "missing");
        CHECK_MSG(app, "No such file");
        CHECK(d == NULL);
        if (i == 4) continue; /* CFL: garbage is covered in test_cfl */
        unsigned char junk[300];
        unsigned long long seed = 5 + (unsigned)i;
        for (size_t k = 0; k < sizeof junk; k++)
            junk[k] = (unsigned char)((tu_rand(&seed) + 1.0) * 127.0);
        snprintf(name, sizeof name, "garbage%s", exts[i]);
        write_bytes(tp(name), junk, sizeof junk);
        CHECK_STATUS(app, clip_load(app, tp(name), &d), CLIP_ERR_FORMAT);
        CHECK_MSG(app, tp(name));
        snprintf(name, sizeof name, "empty%s", exts[i]);
        write_bytes(tp(name), junk, 0);
        CHECK_STATUS(app, clip_load(app, tp(name), &d), CLIP_ERR_FORMAT);
        CHECK_MSG(app, tp(name));
        CHECK(d == NULL);
    }
    /* A directory is not a file. */
    CHECK_STATUS(app, clip_load(app, tp("adir.png"), &d), CLIP_ERR_IO);
    CHECK(d == NULL);

    /* Real files cut short. */
    size_t dims[3] = {40, 30, 3};
    clip_data *a = make(app, CLIP_F32, 3, dims, 9, 200.0);
    CHECK_OK(app, clip_save(app, tp("good.tif"), a));
    check_truncations(app, tp("good.tif"), ".tif");
    const clip_save_opts clamp = {.fit = CLIP_FIT_CLAMP};
    CHECK_OK(app, clip_save_with(app, tp("good.png"), a, &clamp, NULL));
    check_truncations(app, tp("good.png"), ".png");
    CHECK_OK(app, clip_save(app, tp("good.mat"), a));
    check_truncations(app, tp("good.mat"), ".mat");
    if (clip_io_has("mat73")) {
        CHECK_OK(app, clip_save_mat(app, tp("good73.mat"), NULL, a, 1));
        check_truncations(app, tp("good73.mat"), ".mat");
    }

    /* Unknown extensions, both ways. */
    CHECK_STATUS(app, clip_load(app, tp("x.jpg"), &d), CLIP_ERR_UNSUPPORTED);
    CHECK_MSG(app, tp("x.jpg"));
    CHECK_STATUS(app, clip_save(app, tp("x.bmp"), a), CLIP_ERR_UNSUPPORTED);
    CHECK_MSG(app, ".bmp");
    CHECK_STATUS(app, clip_save(app, tp("noext"), a), CLIP_ERR_UNSUPPORTED);
    CHECK_STATUS(app, clip_load(app, tp("dir.tif/noext"), &d), CLIP_ERR_UNSUPPORTED);
    CHECK(!tu_file_exists(tp("x.bmp")) && !tu_file_exists(tp("noext")));

    /* A save that cannot be written leaves nothing behind and names the path. */
    const char *nodir = tp("no/such/dir/out.mat");
    CHECK_STATUS(app, clip_save(app, nodir, a), CLIP_ERR_IO);
    CHECK_MSG(app, nodir);
    const clip_save_opts clamp_png = {.fit = CLIP_FIT_CLAMP};
    CHECK_STATUS(app, clip_save_with(app, tp("no/such/dir/out.png"), a, &clamp_png, NULL),
                 CLIP_ERR_IO);
    CHECK_STATUS(app, clip_save(app, tp("no/such/dir/out.tif"), a), CLIP_ERR_IO);
    CHECK_STATUS(app, clip_save(app, tp("no/such/dir/out.cfl"), a), CLIP_ERR_IO);

    /* Saving over an existing file replaces it. */
    clip_data *b = make(app, CLIP_F32, 3, dims, 10, 200.0), *c = NULL;
    CHECK_OK(app, clip_save(app, tp("good.mat"), b));
    CHECK_OK(app, clip_load(app, tp("good.mat"), &c));
    CHECK(identical(b, c));
    clip_data_destroy(c);
    clip_data_destroy(b);

    CHECK_STATUS(app, clip_load(app, NULL, &d), CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_save(app, tp("x.mat"), NULL), CLIP_ERR_INVALID_ARG);
    clip_data_destroy(a);

    CHECK(clip_io_has("tiff") && clip_io_has("png") && clip_io_has("cfl"));
    CHECK(!clip_io_has("jpeg") && !clip_io_has(NULL));
}

/* A format this build left out: load and save say so with CLIP_ERR_UNSUPPORTED, write nothing, and
 * leave the app usable. `ext` is a file extension, `label` the format's name in the message. */
static void test_absent_format(clip_app *app, const char *ext, const char *label) {
    char path[64], msg[64];
    snprintf(path, sizeof path, "absent%s", ext);
    snprintf(msg, sizeof msg, "built without %s support", label);
    size_t dims[2] = {3, 4};
    clip_data *a = make(app, CLIP_F32, 2, dims, 7, 9.0), *d = NULL;
    CHECK_STATUS(app, clip_save(app, tp(path), a), CLIP_ERR_UNSUPPORTED);
    CHECK_MSG(app, msg);
    struct stat st;
    CHECK(stat(tp(path), &st) != 0);
    /* A file of that name exists (CFL bytes will do): load must refuse it the same way. */
    FILE *f = fopen(tp(path), "wb");
    CHECK(f != NULL);
    if (f) {
        fputs("not read", f);
        fclose(f);
    }
    CHECK_STATUS(app, clip_load(app, tp(path), &d), CLIP_ERR_UNSUPPORTED);
    CHECK_MSG(app, msg);
    CHECK(d == NULL);
    remove(tp(path));
    /* Still usable: a CFL round trip, which every build has. */
    CHECK_OK(app, clip_save(app, tp("after_absent.cfl"), a));
    CHECK_OK(app, clip_load(app, tp("after_absent.cfl"), &d));
    clip_data_destroy(d);
    clip_data_destroy(a);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "test_io_tmp_XXXXXX");
    tu_scratch_dir(g_dir);
    mkdir(tp("adir.png"), 0777);
    clip_app *app = tu_app();
    /* A build without a format library leaves that format's tests out (and says so). */
    int all = 1;
    if (clip_io_has("tiff")) {
        test_tiff(app);
        test_tiff_exact(app);
#ifdef TEST_LIBTIFF
        test_tiff_direct(app);
#endif
    } else {
        all = 0;
        printf("test_io: built without TIFF: TIFF tests skipped, its refusals checked\n");
        test_absent_format(app, ".tif", "TIFF");
        test_absent_format(app, ".TIFF", "TIFF");
    }
    if (clip_io_has("png")) {
        test_png(app);
    } else {
        all = 0;
        printf("test_io: built without PNG: PNG tests skipped, its refusals checked\n");
        test_absent_format(app, ".png", "PNG");
    }
    if (clip_io_has("mat")) {
        test_mat(app);
    } else {
        all = 0;
        printf("test_io: built without MAT: MAT tests skipped, its refusals checked\n");
        test_absent_format(app, ".mat", "MAT");
        CHECK(!clip_io_has("mat73"));
    }
    test_cfl(app);
    if (all) {
        test_hostile_headers(app);
        test_errors(app);
    }
    /* No temporary file may outlive a save, successful or not. */
    CHECK(tu_count_temporaries(g_dir) == 0);
    clip_app_destroy(app);
    int rc = tu_finish("test_io");
    /* Keep the files of a failing run for a look; clean up after a passing one. */
    if (rc == 0 && !getenv("KEEP")) tu_remove_tree(g_dir);
    return rc;
}
