/* Seed files written with libpng, libtiff and matio directly (fuzz/seeds_direct.c). */
#ifndef CLIP_FUZZ_SEEDS_DIRECT_H
#define CLIP_FUZZ_SEEDS_DIRECT_H
int seeds_mat(const char *dir);
int seeds_png(const char *dir);
int seeds_tiff(const char *dir);
#endif
