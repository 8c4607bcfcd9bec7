/* clip-mpi's input boxes and output boxes of one rank (feed.h). */
#define _POSIX_C_SOURCE 200809L
#include "feed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xxhash.h>
#include "ranks.h"

/* n bytes at p from `root` to every rank of c, in chunks an int can count. A rank with p NULL
 * receives them into a scratch chunk and drops them (a rank that stopped, still in the call). */
void bcast_on(void *p, size_t n, int root, MPI_Comm c) {
    const size_t chunk = (size_t)64 << 20;
    char *scratch = NULL;
    if (!p && n && !(scratch = malloc(n < chunk ? n : chunk))) {
        fprintf(stderr, "clip-mpi: rank %d of %d (%s): out of memory for a broadcast\n", rank,
                ranks, host);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (size_t off = 0; off < n; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        MPI_Bcast(p ? (char *)p + off : scratch, (int)k, MPI_BYTE, root, c);
    }
    free(scratch);
}

static void *box_memory(uint64_t bytes) {
    void *m = NULL;
    return posix_memalign(&m, 4096, bytes ? (size_t)bytes : 1) == 0 ? m : NULL;
}

/* Box b's read queued on the I/O thread, unless it is held or queued already. */
void feed_read_ahead(feed *f, size_t b) {
    if (f->held[b] || f->ahead[b]) return;
    const sched_box *x = &f->sc->boxes[b];
    io_job *j = calloc(1, sizeof *j);
    void *m = j ? box_memory(x->bytes) : NULL;
    if (!m) {
        free(j);
        return; /* feed_load says so */
    }
    j->base = f->base[x->input];
    j->mat = f->in[x->input].mat;
    j->var = f->in[x->input].var;
    j->box = f->info->pieces[x->piece].in[x->input];
    j->bytes = (size_t)x->bytes;
    j->buf = m;
    io_submit(f->io, j);
    f->ahead[b] = j;
}

/* Box b read from its input's file and held: its read ahead waited for, or read now, on the I/O
 * thread either way (HDF5 is not thread-safe: one thread reads). 1, or 0 (said, and the rank
 * stops). */
int feed_load(feed *f, size_t b) {
    const sched_box *x = &f->sc->boxes[b];
    const clip_box *box = &f->info->pieces[x->piece].in[x->input];
    if (!f->ahead[b]) feed_read_ahead(f, b);
    io_job *j = f->ahead[b];
    if (!j) {
        say("piece %zu of %zu: out of memory for a %llu-byte box", x->piece + 1, f->info->n,
            (unsigned long long)x->bytes);
        f->stopped = 1;
        return 0;
    }
    io_wait(f->io, j);
    void *m = j->buf;
    f->io_read_ms += j->ms;
    f->ahead[b] = NULL;
    clip_status s = j->status;
    f->sum[b] = j->sum;
    f->was_read[b] = s == CLIP_OK;
    if (s != CLIP_OK) say("piece %zu of %zu: %s", x->piece + 1, f->info->n, j->error);
    free(j);
    int ndb = 2;
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        if (box->count[d] != 1) ndb = d + 1 > ndb ? d + 1 : ndb;
    if (s == CLIP_OK && (s = clip_data_wrap(f->app, f->in[x->input].type, ndb, box->count, m,
                                            &f->held[b])) != CLIP_OK)
        say("piece %zu of %zu: %s", x->piece + 1, f->info->n, clip_app_last_error(f->app));
    if (s != CLIP_OK) {
        free(m);
        f->stopped = 1;
        return 0;
    }
    f->mem[b] = m;
    f->from_files += x->bytes;
    return 1;
}

void feed_release(feed *f, size_t b) {
    clip_data_destroy(f->held[b]);
    free(f->mem[b]);
    f->held[b] = NULL;
    f->mem[b] = NULL;
}

/* Shared box b: its reader reads it and broadcasts it to its group, the others keep it. A rank
 * outside the group does nothing. 1, or 0 when this rank failed (said); a box its reader could
 * not read stops the group's ranks without blaming them (the reader says why). */
int feed_fetch(feed *f, size_t b) {
    const sched_box *x = &f->sc->boxes[b];
    const unsigned char *g = f->sc->groups + (size_t)x->group * (size_t)ranks;
    if (!g[rank]) return 1;
    int root = 0, ok = 1;
    for (int r = 0; r < x->reader; r++)
        root += g[r] != 0;
    long long head[3 + CLIP_MAX_DIMS] = {0};
    clip_data *d = NULL;
    if (rank == x->reader) {
        if (!f->stopped && (ok = feed_load(f, b)) != 0) d = f->held[b];
        head[0] = d != NULL;
        if (d) {
            head[1] = (long long)clip_data_type(d);
            head[2] = clip_data_ndims(d);
            for (int k = 0; k < CLIP_MAX_DIMS; k++)
                head[3 + k] = (long long)clip_data_dim(d, k);
        }
    }
    MPI_Bcast(head, 3 + CLIP_MAX_DIMS, MPI_LONG_LONG, root, f->comm[x->group]);
    if (!head[0]) {
        f->stopped = 1;
        return ok;
    }
    size_t dims[CLIP_MAX_DIMS], bytes = clip_type_size((clip_type)head[1]);
    for (int k = 0; k < CLIP_MAX_DIMS; k++)
        dims[k] = (size_t)head[3 + k], bytes *= dims[k];
    void *buf = NULL;
    if (rank == x->reader) {
        const void *h = NULL;
        if (clip_data_host(d, &h) == CLIP_OK)
            buf = (void *)h;
        else
            ok = 0, say("%s", clip_app_last_error(f->app)); /* the others still get bytes */
    } else if (!f->stopped) {
        if (clip_data_create(f->app, (clip_type)head[1], (int)head[2], dims, &d) != CLIP_OK ||
            clip_data_host_write(d, &buf) != CLIP_OK) {
            say("%s", clip_app_last_error(f->app));
            ok = 0;
            f->stopped = 1;
        }
        f->received += bytes;
    }
    bcast_on(buf, bytes, root, f->comm[x->group]);
    if (rank == x->reader) {
        if (!ok) feed_release(f, b), f->stopped = 1;
    } else if (f->stopped || !ok) {
        clip_data_destroy(d);
        f->stopped = 1;
    } else {
        f->held[b] = d;
    }
    return ok;
}

/* A write of piece pc's kept box of output j from out's host contents h, for the I/O thread
 * (h stays out's until the process that made it runs its next piece); NULL: out of memory. */
io_job *write_behind(out_writer w, clip_data *out, const void *h, const clip_piece *pc, int j) {
    io_job *job = calloc(1, sizeof *job);
    if (!job) return NULL;
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        job->dims[d] = clip_data_dim(out, d);
    job->buf = (void *)h; /* read only: the thread converts it as it writes */
    job->write = 1;
    job->w = w;
    job->type = clip_data_type(out);
    job->keep = pc->keep[j];
    memcpy(job->at, pc->at[j], sizeof job->at);
    return job;
}

/* Waits for a write behind and frees it: 1, or 0 when it failed (said). */
int write_done(feed *f, io_job **job, double *io_write_ms) {
    io_wait(f->io, *job);
    const int ok = (*job)->status == CLIP_OK;
    if (!ok) say("%s", (*job)->error);
    *io_write_ms += (*job)->ms;
    free(*job);
    *job = NULL;
    return ok;
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

int feed_verify(feed *f, double *ms, uint64_t *bytes) {
    const double t0 = now_ms();
    uint64_t most = 0;
    for (size_t b = 0; b < f->sc->n_boxes; b++)
        if (f->was_read[b] && f->sc->boxes[b].bytes > most) most = f->sc->boxes[b].bytes;
    void *buf = most ? box_memory(most) : NULL;
    if (most && !buf) {
        say("out of memory for a %llu-byte box, to check the inputs", (unsigned long long)most);
        return 0;
    }
    int ok = 1;
    for (size_t b = 0; ok && b < f->sc->n_boxes; b++) {
        if (!f->was_read[b]) continue;
        const sched_box *x = &f->sc->boxes[b];
        const input *in = &f->in[x->input];
        const clip_box *box = &f->info->pieces[x->piece].in[x->input];
        const clip_status s = in->mat
                                  ? clip_mat73_read_box(NULL, f->base[x->input], in->var, box, buf)
                                  : clip_cfl_read_box(NULL, f->base[x->input], box, buf);
        *bytes += x->bytes;
        if (s != CLIP_OK) {
            say("%s could not be read again to check it: %s; nothing is saved", in->file,
                clip_app_last_error(NULL));
            ok = 0;
        } else if (XXH3_64bits(buf, (size_t)x->bytes) != f->sum[b]) {
            char where[256] = ""; /* MATLAB's indices: (1:13, 1:200) */
            size_t used = 0;
            for (int d = 0; d < in->nd && used < sizeof where; d++)
                used +=
                    (size_t)snprintf(where + used, sizeof where - used, "%s%zu:%zu", d ? ", " : "",
                                     box->start[d] + 1, box->start[d] + box->count[d]);
            say("%s changed during the run: its box (%s), which piece %zu read, differs now from "
                "what was read (checksum); the output would mix two versions of it; nothing is "
                "saved",
                in->file, where, x->piece + 1);
            ok = 0;
        }
    }
    free(buf);
    *ms += now_ms() - t0;
    return ok;
}
