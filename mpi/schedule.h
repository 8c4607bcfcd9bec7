/* Which rank runs which piece of a plan, and who reads which input box: clip-mpi's schedule,
 * computed from the plan alone (clip/plan.h), the same on every rank, without MPI.
 *
 * Pieces often read the same box of an input (a conv2 kernel in every piece; a band of op(A) in
 * every block of C's row). A box that several ranks need is read from the file once, by one of
 * them (its reader: the one with the fewest bytes to read so far), and broadcast to the others
 * (its group); a box one rank needs is read by
 * that rank once, and kept while its later pieces use it.
 *
 * Pieces go to ranks so that groups stay small: when the pieces are every pair of the distinct
 * boxes of two inputs (u, v) (a grid of blocks: U boxes of one input by V of the other, each pair
 * once), the ranks form a grid of pr x pc = R and piece (u, v) runs on rank
 * (u mod pr) * pc + (v mod pc); box u is then needed by the pc ranks of one grid row and box v by
 * the pr ranks of one grid column (the SUMMA pattern), with pr chosen to make a rank's share of
 * both inputs, bytes(U)/pr + bytes(V)/pc, least. Otherwise piece i runs on rank i mod R.
 *
 * Ranks fetch shared boxes in one global order (by round, then box): round k is every rank's
 * k-th piece, and a box is fetched at the earliest round any rank of its group uses it. Every
 * rank takes part in the broadcasts of its groups in that order, so the collectives never wait
 * on each other in a cycle. */
#ifndef CLIP_MPI_SCHEDULE_H
#define CLIP_MPI_SCHEDULE_H

#include <stdint.h>

#include "clip/plan.h"

/* At most this many groups (an MPI communicator each). */
#define SCHED_MAX_GROUPS 256

typedef struct sched_box {
    int input;      /* the input it is a box of */
    size_t piece;   /* the first piece that reads it: pieces[piece].in[input] is the box */
    uint64_t bytes; /* its size in memory (the input's element size times its elements) */
    int reader;     /* the rank that reads it from the file */
    int group;      /* the ranks that need it (index into groups); -1: each rank that needs it reads
                       it itself (one rank, or the groups were more than SCHED_MAX_GROUPS) */
    size_t round;   /* shared: the round at which its group fetches it */
} sched_box;

typedef struct schedule {
    int ranks;
    size_t n; /* pieces */
    int n_inputs;
    int grid_rows; /* the rank grid (pr x pc); 0 when pieces go round robin */
    int grid_cols;
    int *owner;     /* n: the rank that runs piece i */
    size_t *local;  /* n: piece i's place among its owner's pieces (its round) */
    size_t *box_of; /* n * n_inputs: the box piece i reads of input j, [i * n_inputs + j] */
    size_t n_boxes;
    sched_box *boxes;
    size_t n_groups;
    unsigned char *groups; /* n_groups * ranks: groups[g * ranks + r] non-zero if r belongs */
    size_t n_shared;
    size_t *shared; /* n_shared boxes with a group, in the order every rank fetches them */
} schedule;

/* Fills s from the plan for `ranks` ranks; elem[j]: input j's bytes an element. 0, or -1 when out
 * of memory (s is then freed). */
int schedule_make(const clip_plan_info *info, int ranks, const size_t *elem, schedule *s);
void schedule_free(schedule *s);

#endif
