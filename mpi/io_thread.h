/* One helper thread per rank that reads input boxes ahead and writes output boxes behind while
 * the rank's own thread computes (clip-mpi's overlap of read, compute and write). It calls only
 * the clip functions that use no app (clip_cfl_read_box, clip_mat73_read_box,
 * clip_cfl_writer_put_host, clip_mat73_writer_put_host), as one app serves one thread at a time
 * (clip/app.h). Jobs run one at a time, in the order submitted. */
#ifndef CLIP_MPI_IO_THREAD_H
#define CLIP_MPI_IO_THREAD_H

#include <stdint.h>

#include "clip/io.h"

/* An output file written by boxes: a CFL pair or a MAT 7.3 variable (one of the two is set). */
typedef struct out_writer {
    clip_cfl_writer *cfl;
    clip_mat73_writer *mat;
} out_writer;

typedef struct io_job {
    int write; /* 0: read box `box` of the CFL pair `base` (mat: of variable var of the MAT 7.3
                  file base) into buf, and its checksum; 1: write box `keep` of buf (an array of
                  `type` and dims) at `at` of w */
    const char *base;
    int mat;
    const char *var;
    clip_box box;
    size_t bytes; /* a read: the box's bytes */
    out_writer w;
    clip_type type;
    size_t dims[CLIP_MAX_DIMS];
    clip_box keep;
    size_t at[CLIP_MAX_DIMS];
    void *buf; /* the caller's, until the job is done */
    /* set by the thread */
    int done;
    clip_status status;
    char error[1024];
    double ms;    /* how long the job took */
    uint64_t sum; /* a read: XXH3-64 (libxxhash) of the bytes read */
    struct io_job *next;
} io_job;

typedef struct io_thread io_thread;

/* Starts the thread: 0, or -1 (out of memory, or no thread). */
int io_start(io_thread **out);
/* Queues j (the caller's until it is done). */
void io_submit(io_thread *t, io_job *j);
/* Waits until j is done; its status and error are then set. */
void io_wait(io_thread *t, io_job *j);
/* Runs what is queued, ends the thread and frees t. NULL is a no-op. */
void io_stop(io_thread *t);

#endif
