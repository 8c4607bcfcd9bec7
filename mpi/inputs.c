/* clip-mpi's inputs (inputs.h). */
#define _POSIX_C_SOURCE 200809L
#include "inputs.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_spec.h"
#include "ranks.h"

/* IN's base name: "x.cfl" -> "x"; NULL for another extension. */
char *cfl_base(const char *path) {
    size_t n = strlen(path);
    if (n < 5 || strcmp(path + n - 4, ".cfl") != 0) return NULL;
    char *b = malloc(n - 3);
    if (b) memcpy(b, path, n - 4), b[n - 4] = '\0';
    return b;
}

/* 1, or 0 when the word is neither (the caller says so). The word is split as `clip run` splits
 * it (tools/io_spec.c), so a name clip run takes means the same file and variable here. */
int input_parse(const char *word, int output, input *in, char *why, size_t cap) {
    memset(in, 0, sizeof *in);
    if (cap) why[0] = '\0';
    io_spec sp;
    const int r = io_spec_parse(word, output, &sp, why, cap);
    if (r == 1) {
        if (cap) why[0] = '\0';
        return 1; /* out of memory: no file, which the caller reports */
    }
    if (r) return 0;    /* a usage error ("x.mat:" with no name, "x.tif:0"), said in why */
    in->file = sp.path; /* the caller's to free */
    in->var = sp.var;
    if ((in->base = cfl_base(sp.path))) {
        in->type = CLIP_C32;
        return 1;
    }
    if (io_spec_kind(sp.path) != IO_SPEC_MAT) { /* an image, its page or not */
        io_spec_release(&sp);
        memset(in, 0, sizeof *in);
        return 0;
    }
    in->mat = 1;
    in->base = strdup(sp.path);
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
