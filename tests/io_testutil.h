/* Helpers the I/O tests share (test_io, test_save, test_save_kill): a scratch directory,
 * whole-file reads, the check that no save left a temporary behind, seeded data and its
 * comparison. Include after testutil.h, in a file that
 * defines _XOPEN_SOURCE 700 (mkdtemp, nftw). */
#ifndef CLIP_IO_TESTUTIL_H
#define CLIP_IO_TESTUTIL_H

#include <dirent.h>
#include <ftw.h>
#include <math.h>
#include <sys/stat.h>

#include "testutil.h"

/* The test's scratch directory (tu_scratch_dir fills it) and a path inside it, in one of a few
 * rotating buffers so calls may nest. */
static char g_dir[64]; /* patterns like "test_io_tmp_XXXXXX" */
static inline const char *tp(const char *name) {
    static char buf[8][512];
    static int k;
    char *b = buf[k++ % 8];
    snprintf(b, sizeof buf[0], "%s/%s", g_dir, name);
    return b;
}

/* Makes a new scratch directory from `pattern` (ending in XXXXXX), rewritten in place; exits
 * with status 2 when it cannot. */
static inline void tu_scratch_dir(char *pattern) {
    if (!mkdtemp(pattern)) {
        fprintf(stderr, "cannot make a scratch directory %s\n", pattern);
        exit(2);
    }
}

static inline int tu_remove_entry(const char *path, const struct stat *st, int flag,
                                  struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes a scratch directory and everything in it; says so when it cannot. */
static inline void tu_remove_tree(const char *dir) {
    if (nftw(dir, tu_remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

/* Reads a whole file; *n its size. NULL when it cannot be opened. Caller frees. */
static inline unsigned char *tu_read_file(const char *path, size_t *n) {
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = malloc(len > 0 ? (size_t)len : 1);
    *n = p ? fread(p, 1, (size_t)len, f) : 0;
    fclose(f);
    return p;
}

static inline int tu_file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* Counts the save temporaries ("<target>.tmp-<host>-<pid>-<start>-<n>", lib/save_file.h) in
 * `dir`, naming
 * each on stderr; -1 when the directory cannot be read. */
static inline int tu_count_temporaries(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp-")) {
            fprintf(stderr, "temporary left behind: %s/%s\n", dir, e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

/* Data of type t (nd dims) filled from `seed`: integers 0..255, which survive every format, when
 * `integers`; else values in [-scale, scale). Exits with status 2 when it cannot be made. */
static inline clip_data *tu_io_data(clip_app *app, clip_type t, int nd, const size_t *dims,
                                    unsigned long long seed, double scale, int integers) {
    clip_data *d = NULL;
    void *p = NULL;
    if (clip_data_create(app, t, nd, dims, &d) != CLIP_OK ||
        clip_data_host_write(d, &p) != CLIP_OK) {
        fprintf(stderr, "create: %s\n", clip_app_last_error(app));
        exit(2);
    }
    size_t n = clip_data_numel(d) * (clip_type_is_complex(t) ? 2 : 1);
    for (size_t i = 0; i < n; i++) {
        const double r = tu_rand(&seed), v = integers ? floor((r + 1.0) * 127.99) : r * scale;
        if (clip_type_is_double(t))
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
    return d;
}

/* Same type, dimensions and values (bit for bit). */
static inline int tu_same_data(clip_data *a, clip_data *b) {
    if (!a || !b || clip_data_type(a) != clip_data_type(b) ||
        clip_data_numel(a) != clip_data_numel(b))
        return 0;
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        if (clip_data_dim(a, i) != clip_data_dim(b, i)) return 0;
    const void *pa = NULL, *pb = NULL;
    if (clip_data_host(a, &pa) != CLIP_OK || clip_data_host(b, &pb) != CLIP_OK) return 0;
    const size_t bytes = clip_data_numel(a) * clip_type_size(clip_data_type(a));
    return bytes == 0 || memcmp(pa, pb, bytes) == 0;
}

#endif
