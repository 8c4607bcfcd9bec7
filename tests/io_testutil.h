/* File helpers the I/O tests share (test_io, test_save): a scratch directory, whole-file reads,
 * and the check that no save left a temporary behind. Include after testutil.h, in a file that
 * defines _XOPEN_SOURCE 700 (mkdtemp, nftw). */
#ifndef CLIP_IO_TESTUTIL_H
#define CLIP_IO_TESTUTIL_H

#include <dirent.h>
#include <ftw.h>
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

#endif
