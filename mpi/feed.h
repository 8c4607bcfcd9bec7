/* How one rank of clip-mpi gets its pieces' input boxes and hands over its output boxes: boxes
 * read from the files on the rank's I/O thread (read ahead while a piece computes), shared boxes
 * broadcast from their reader to their group (schedule.h), boxes held while later pieces read
 * them, and output boxes written behind on the I/O thread. */
#ifndef CLIP_MPI_FEED_H
#define CLIP_MPI_FEED_H

#include <mpi.h>
#include <stdint.h>

#include "clip/plan.h"
#include "inputs.h"
#include "io_thread.h"
#include "schedule.h"

/* At most this many inputs (the launcher's RUN_ARGS_MAX). */
#define FEED_MAX_INPUTS 16

/* What this rank's pieces read, and how: the boxes it holds, the broadcasts of its groups. */
typedef struct feed {
    clip_app *app;
    const schedule *sc;
    const clip_plan_info *info;
    MPI_Comm *comm;                   /* one per group of sc, MPI_COMM_NULL outside it */
    char base[FEED_MAX_INPUTS][4200]; /* what the inputs' readers take, as this rank reads them */
    const input *in;                  /* the inputs */
    io_thread *io;                    /* reads ahead, writes behind */
    clip_data **held;                 /* sc->n_boxes: the boxes this rank holds */
    void **mem;              /* sc->n_boxes: the memory a held box wraps (this rank's read) */
    io_job **ahead;          /* sc->n_boxes: reads of boxes in flight on the I/O thread */
    size_t *last;            /* sc->n_boxes: the last round this rank reads a box in, + 1 */
    uint64_t *sum;           /* sc->n_boxes: the checksum of a box this rank read from its file */
    unsigned char *was_read; /* sc->n_boxes: non-zero for the boxes this rank read from files */
    int stopped;             /* this rank runs no more pieces (it failed, or a box it needs did) */
    uint64_t from_files, received; /* bytes */
    uint64_t boxes;    /* bytes of its pieces' boxes, each piece counted (what reading every
                          piece's boxes from the files would read) */
    double io_read_ms; /* the I/O thread's time reading this rank's boxes */
} feed;

/* n bytes at p from `root` to every rank of c, in chunks an int can count. A rank with p NULL
 * receives them into a scratch chunk and drops them (a rank that stopped, still in the call). */
void bcast_on(void *p, size_t n, int root, MPI_Comm c);
/* Box b's read queued on the I/O thread, unless it is held or queued already (or no memory). */
void feed_read_ahead(feed *f, size_t b);
/* Box b read and held (f->held[b]): 1, or 0 (said; the rank stops). */
int feed_load(feed *f, size_t b);
/* Box b no longer held. */
void feed_release(feed *f, size_t b);
/* Shared box b through its group's broadcast (nothing outside the group): 1, or 0 when this
 * rank failed (said); a reader's failure stops its group without blaming them. */
int feed_fetch(feed *f, size_t b);
/* A write of piece pc's kept box of output j from out's host contents h, for the I/O thread
 * (h must stay out's until the job is done); NULL: out of memory. */
io_job *write_behind(out_writer w, clip_data *out, const void *h, const clip_piece *pc, int j);
/* Waits for a write behind, adds its time to *io_write_ms and frees it: 1, or 0 when it failed
 * (said). */
int write_done(feed *f, io_job **job, double *io_write_ms);

/* Every box this rank read from a file read again and its checksum compared with the first
 * read's (after every rank has read all it reads, so that a file changed between two ranks'
 * reads differs here from one of them). The I/O thread must be stopped (HDF5 is used by one
 * thread). Adds the time and bytes to *ms and *bytes. 1, or 0 when a box differs or cannot be
 * read again (said, naming the input). */
int feed_verify(feed *f, double *ms, uint64_t *bytes);

#endif
