/* clip-mpi's rank, as every part of the launcher knows it. */
#ifndef CLIP_MPI_RANKS_H
#define CLIP_MPI_RANKS_H

extern int rank, ranks; /* this rank, and how many */
extern char host[64];   /* this rank's host name */

/* This rank's failure, said on stderr naming the rank and its host. */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
