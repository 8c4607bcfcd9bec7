/* clip-mpi's inputs (inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "inputs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ranks.h"

/* IN's base name: "x.cfl" -> "x"; NULL for another extension. */
char *cfl_base(const char *path) {
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 4, ".cfl") != 0) return NULL;
    char *b = malloc(n - 3);
    if (b) memcpy(b, path, n - 4), b[n - 4] = '\0';
    return b;
}

static int ends_mat(const char *s, size_t n) {
    return n >= 4 && !strncmp(s + n - 4, ".mat", 4);
}

/* 1, or 0 when the word is neither (the caller says so). */
int input_parse(const char *word, input *in) {
    memset(in, 0, sizeof *in);
    const size_t n = strlen(word);
    const char *colon = strrchr(word, ':');
    if ((in->base = cfl_base(word))) {
        in->file = malloc(n + 1);
        if (in->file) memcpy(in->file, word, n + 1);
        in->type = CLIP_C32;
        return 1;
    }
    size_t m = ends_mat(word, n)                                 ? n
               : colon && ends_mat(word, (size_t)(colon - word)) ? (size_t)(colon - word)
                                                                 : 0;
    if (!m) return 0;
    in->mat = 1;
    in->var = m < n && word[m + 1] ? word + m + 1 : NULL;
    in->file = malloc(m + 1);
    in->base = malloc(m + 1);
    if (in->file) memcpy(in->file, word, m), in->file[m] = '\0';
    if (in->base) memcpy(in->base, word, m), in->base[m] = '\0';
    return 1;
}

void identity_of(const char *path, identity *id) {
    id->have = stat(path, &id->st) == 0;
}

int identity_changed(const char *path, const identity *was) {
    identity now;
    identity_of(path, &now);
    const struct stat *a = &was->st, *b = &now.st;
    return was->have != now.have ||
           (now.have &&
            (a->st_dev != b->st_dev || a->st_ino != b->st_ino || a->st_size != b->st_size ||
             a->st_mtim.tv_sec != b->st_mtim.tv_sec || a->st_mtim.tv_nsec != b->st_mtim.tv_nsec ||
             a->st_ctim.tv_sec != b->st_ctim.tv_sec || a->st_ctim.tv_nsec != b->st_ctim.tv_nsec));
}

/* CLIP_TEST_MPI_CHANGE_RANK: the file's fourth byte (a CFL's first sample's sign) flipped in
 * place, as a writer elsewhere would change the file underneath the run. */
void change_input(const char *path) {
    int fd = open(path, O_RDWR);
    unsigned char v[4];
    if (fd >= 0 && pread(fd, v, 4, 0) == 4) {
        v[3] ^= 0x80;
        if (pwrite(fd, v, 4, 0) != 4) say("test hook: cannot change %s", path);
    }
    if (fd >= 0) close(fd);
}

/* Input i's identity as this rank sees it: shape, size and modification time, hashed. */
unsigned long long fingerprint(const char *path, int nd, const size_t *dims, clip_type t) {
    unsigned long long h = 1469598103934665603ULL;
#define MIX(v) (h = (h ^ (unsigned long long)(v)) * 1099511628211ULL)
    MIX(nd);
    MIX(t);
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        MIX(dims[d]);
    struct stat st;
    if (stat(path, &st) == 0) {
        MIX(st.st_size);
        MIX(st.st_mtim.tv_sec);
        MIX(st.st_mtim.tv_nsec);
    }
#undef MIX
    return h;
}
