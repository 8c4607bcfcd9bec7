/* Seeds written with the format libraries themselves, for layouts clip's own writers never
 * produce, so the fuzzers start from every branch the loaders have: MAT v5 compressed and plain
 * with text, cells and structs before the numbers, MAT v4; palette, 1-bit and interlaced
 * 16-bit PNG; tiled, planar-separate, compressed and signed TIFF. Each function returns the
 * number of files written. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "seeds_direct.h"

#ifdef SEED_MATIO
#include <matio.h>

static void add(mat_t *mat, matvar_t *v, enum matio_compression z) {
    if (v) Mat_VarWrite(mat, v, z);
    Mat_VarFree(v);
}

static int mat_mixed(const char *path, enum matio_compression z) {
    mat_t *mat = Mat_CreateVer(path, NULL, MAT_FT_MAT5);
    if (!mat) return 0;
    size_t d13[2] = {1, 3}, d22[2] = {2, 2}, d11[2] = {1, 1}, d32[2] = {3, 2}, d00[2] = {0, 0};
    add(mat, Mat_VarCreate("title", MAT_C_CHAR, MAT_T_UTF8, 2, d13, "abc", 0), z);
    double m[4] = {1, -2, 3.5, 4}, one = 1;
    int8_t i8[3] = {-1, 0, 1};
    matvar_t *inner[1] = {Mat_VarCreate(NULL, MAT_C_INT8, MAT_T_INT8, 2, d13, i8, 0)};
    matvar_t *cells[3] = {Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d22, m, 0),
                          Mat_VarCreate(NULL, MAT_C_CELL, MAT_T_CELL, 2, d11, inner, 0),
                          Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d00, NULL, 0)};
    add(mat, Mat_VarCreate("c", MAT_C_CELL, MAT_T_CELL, 2, d13, cells, 0), z);
    const char *fields[2] = {"a", "bb"};
    matvar_t *st = Mat_VarCreateStruct("s", 2, d11, fields, 2);
    Mat_VarSetStructFieldByName(st, "a", 0,
                                Mat_VarCreate(NULL, MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d11, &one, 0));
    Mat_VarSetStructFieldByName(st, "bb", 0,
                                Mat_VarCreate(NULL, MAT_C_CHAR, MAT_T_UTF8, 2, d13, "xyz", 0));
    add(mat, st, z);
    float re[6] = {1, 2, 3, 4, 5, 6}, im[6] = {-1, 0, 1, 2, 3, 4};
    mat_complex_split_t zs = {re, im};
    add(mat, Mat_VarCreate("zs", MAT_C_SINGLE, MAT_T_SINGLE, 2, d32, &zs, MAT_F_COMPLEX), z);
    uint16_t u16[6] = {0, 1, 2, 300, 40000, 65535};
    add(mat, Mat_VarCreate("u", MAT_C_UINT16, MAT_T_UINT16, 2, d32, u16, 0), z);
    Mat_Close(mat);
    return 1;
}

static int mat_v4(const char *path) {
    mat_t *mat = Mat_CreateVer(path, NULL, MAT_FT_MAT4);
    if (!mat) return 0;
    size_t d32[2] = {3, 2};
    double re[6] = {1, 2, 3, 4, 5, 6}, im[6] = {6, 5, 4, 3, 2, 1};
    mat_complex_split_t z = {re, im};
    add(mat, Mat_VarCreate("x", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d32, re, 0), MAT_COMPRESSION_NONE);
    add(mat, Mat_VarCreate("z", MAT_C_DOUBLE, MAT_T_DOUBLE, 2, d32, &z, MAT_F_COMPLEX),
        MAT_COMPRESSION_NONE);
    Mat_Close(mat);
    return 1;
}

int seeds_mat(const char *dir) {
    char p[512];
    int n = 0;
    snprintf(p, sizeof p, "%s/mixed_z.mat", dir), n += mat_mixed(p, MAT_COMPRESSION_ZLIB);
    snprintf(p, sizeof p, "%s/mixed.mat", dir), n += mat_mixed(p, MAT_COMPRESSION_NONE);
    snprintf(p, sizeof p, "%s/v4.mat", dir), n += mat_v4(p);
    return n;
}
#else
int seeds_mat(const char *dir) {
    (void)dir;
    return 0;
}
#endif

#ifdef SEED_PNG
#include <png.h>

/* color: PNG_COLOR_TYPE_*, depth: bits per sample; values are a simple pattern. */
static int png_write(const char *path, unsigned w, unsigned h, int color, int depth,
                     int interlace) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    unsigned char row[256];
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        return 0;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, w, h, depth, color, interlace, PNG_COMPRESSION_TYPE_DEFAULT,
                 PNG_FILTER_TYPE_DEFAULT);
    if (color == PNG_COLOR_TYPE_PALETTE) {
        png_color pal[16];
        png_byte alpha[16];
        for (int i = 0; i < 16; i++) {
            pal[i].red = (png_byte)(i * 16), pal[i].green = (png_byte)(255 - i * 16);
            pal[i].blue = (png_byte)(i * 7);
            alpha[i] = (png_byte)(i * 17);
        }
        png_set_PLTE(png, info, pal, 16);
        png_set_tRNS(png, info, alpha, 16, NULL);
    }
    png_write_info(png, info);
    int passes = png_set_interlace_handling(png);
    for (int pass = 0; pass < passes; pass++)
        for (unsigned r = 0; r < h; r++) {
            for (size_t i = 0; i < sizeof row; i++)
                row[i] = (unsigned char)(r * 31 + i * 7);
            png_write_row(png, row);
        }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    fclose(f);
    return 1;
}

int seeds_png(const char *dir) {
    char p[512];
    int n = 0;
    snprintf(p, sizeof p, "%s/palette4.png", dir);
    n += png_write(p, 7, 5, PNG_COLOR_TYPE_PALETTE, 4, PNG_INTERLACE_NONE);
    snprintf(p, sizeof p, "%s/gray1.png", dir);
    n += png_write(p, 9, 3, PNG_COLOR_TYPE_GRAY, 1, PNG_INTERLACE_NONE);
    snprintf(p, sizeof p, "%s/rgba16_adam7.png", dir);
    n += png_write(p, 6, 5, PNG_COLOR_TYPE_RGB_ALPHA, 16, PNG_INTERLACE_ADAM7);
    return n;
}
#else
int seeds_png(const char *dir) {
    (void)dir;
    return 0;
}
#endif

#ifdef SEED_TIFF
#include <tiffio.h>

/* pages of h x w x spp samples of `bps` bits and `format`, in strips of 4 rows or 16x16 tiles. */
static int tiff_write(const char *path, uint32_t w, uint32_t h, uint16_t spp, uint16_t bps,
                      uint16_t format, uint16_t planar, uint16_t compression, int tiled,
                      int pages) {
    TIFF *tif = TIFFOpen(path, "w");
    if (!tif) return 0;
    unsigned char buf[16 * 16 * 4 * 8];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 13 + 5);
    for (int page = 0; page < pages; page++) {
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, w);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, h);
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, spp);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, bps);
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, format);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, planar);
        TIFFSetField(tif, TIFFTAG_COMPRESSION, compression);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
        uint16_t per = planar == PLANARCONFIG_SEPARATE ? 1 : spp;
        if (tiled) {
            TIFFSetField(tif, TIFFTAG_TILEWIDTH, 16);
            TIFFSetField(tif, TIFFTAG_TILELENGTH, 16);
            for (uint32_t t = 0; t < TIFFNumberOfTiles(tif); t++)
                TIFFWriteEncodedTile(tif, t, buf, (tmsize_t)16 * 16 * per * bps / 8);
        } else {
            TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 4);
            for (uint32_t s = 0; s < TIFFNumberOfStrips(tif); s++) {
                uint32_t rows = h - (s % ((h + 3) / 4)) * 4;
                TIFFWriteEncodedStrip(tif, s, buf, (tmsize_t)(rows < 4 ? rows : 4) * w * per * bps / 8);
            }
        }
        TIFFWriteDirectory(tif);
    }
    TIFFClose(tif);
    return 1;
}

int seeds_tiff(const char *dir) {
    char p[512];
    int n = 0;
    snprintf(p, sizeof p, "%s/tiled_lzw_rgb.tif", dir);
    n += tiff_write(p, 20, 18, 3, 8, SAMPLEFORMAT_UINT, PLANARCONFIG_CONTIG, COMPRESSION_LZW, 1, 1);
    snprintf(p, sizeof p, "%s/sep_deflate_u16.tif", dir);
    n += tiff_write(p, 6, 9, 3, 16, SAMPLEFORMAT_UINT, PLANARCONFIG_SEPARATE,
                    COMPRESSION_ADOBE_DEFLATE, 0, 2);
    snprintf(p, sizeof p, "%s/packbits_i16.tif", dir);
    n += tiff_write(p, 5, 7, 1, 16, SAMPLEFORMAT_INT, PLANARCONFIG_CONTIG, COMPRESSION_PACKBITS,
                    0, 1);
    return n;
}
#else
int seeds_tiff(const char *dir) {
    (void)dir;
    return 0;
}
#endif
