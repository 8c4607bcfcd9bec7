/* clip-mpi's inputs: the words that name them (CFL pairs, MAT 7.3 variables) and the files'
 * identities, compared between ranks before the run and on each rank after it. */
#ifndef CLIP_MPI_INPUTS_H
#define CLIP_MPI_INPUTS_H

#include <sys/stat.h>

#include "clip/clip.h"

/* An input word: x.cfl (a CFL pair), or x.mat or x.mat:NAME (a MAT 7.3 variable). */
typedef struct input {
    char *file;      /* the file (x.cfl, x.mat) */
    char *base;      /* what its reader takes: the CFL base x, or the MAT file */
    const char *var; /* MAT: the variable (into the word), or NULL */
    int mat;
    clip_type type;
    int nd;
    size_t dims[CLIP_MAX_DIMS];
} input;

/* IN's base name: "x.cfl" -> "x" (malloc'd); NULL for another extension or out of memory. */
char *cfl_base(const char *path);
/* Fills *in from the word, split as `clip run` splits it (tools/io_spec.h: FILE.mat:NAME; output:
 * the word follows -o) (file, base and var malloc'd or into the word; shape and type are the
 * caller's to set): 1, or 0 when the word is neither a .cfl nor a .mat (the caller says so), or
 * names one as clip run would refuse: then why holds clip run's sentence ("x.mat:" names no
 * variable), else why is "". */
int input_parse(const char *word, int output, input *in, char *why, size_t cap);

/* An input's identity on this rank, to see it change during the run. */
typedef struct identity {
    struct stat st;
    int have;
} identity;

void identity_of(const char *path, identity *id);
/* Non-zero when the file's device, inode, size, modification or change time differ from *was,
 * or it appeared or went away. */
int identity_changed(const char *path, const identity *was);
/* The test hook CLIP_TEST_MPI_CHANGE_RANK: the file's fourth byte flipped in place. */
void change_input(const char *path);
/* The input's shape, type, size and modification time as this rank sees them, hashed: equal on
 * every rank when they read the same file. */
unsigned long long fingerprint(const char *path, int nd, const size_t *dims, clip_type t);

#endif
