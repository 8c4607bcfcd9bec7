/* clip-mpi's I/O thread (io_thread.h). */
#define _POSIX_C_SOURCE 200809L
#include "io_thread.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <xxhash.h>
#include "clip/clip.h"

struct io_thread {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t queued, finished;
    io_job *head, *tail;
    int ending;
};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static void *run(void *arg) {
    io_thread *t = arg;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->head && !t->ending)
            pthread_cond_wait(&t->queued, &t->lock);
        io_job *j = t->head;
        if (!j) break;
        t->head = j->next;
        if (!t->head) t->tail = NULL;
        pthread_mutex_unlock(&t->lock);
        const double t0 = now_ms();
        clip_status s =
            !j->write ? (j->mat ? clip_mat73_read_box(NULL, j->base, j->var, &j->box, j->buf)
                                : clip_cfl_read_box(NULL, j->base, &j->box, j->buf))
            : j->w.cfl
                ? clip_cfl_writer_put_host(j->w.cfl, j->type, j->dims, j->buf, &j->keep, j->at)
                : clip_mat73_writer_put_host(j->w.mat, j->type, j->dims, j->buf, &j->keep, j->at);
        if (!j->write && s == CLIP_OK) j->sum = XXH3_64bits(j->buf, j->bytes);
        const double ms = now_ms() - t0;
        pthread_mutex_lock(&t->lock);
        j->status = s;
        if (s != CLIP_OK) snprintf(j->error, sizeof j->error, "%s", clip_app_last_error(NULL));
        j->ms = ms;
        j->done = 1;
        pthread_cond_broadcast(&t->finished);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

int io_start(io_thread **out) {
    io_thread *t = calloc(1, sizeof *t);
    *out = NULL;
    if (!t) return -1;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->queued, NULL);
    pthread_cond_init(&t->finished, NULL);
    if (pthread_create(&t->thread, NULL, run, t) != 0) {
        pthread_mutex_destroy(&t->lock);
        pthread_cond_destroy(&t->queued);
        pthread_cond_destroy(&t->finished);
        free(t);
        return -1;
    }
    *out = t;
    return 0;
}

void io_submit(io_thread *t, io_job *j) {
    j->done = 0;
    j->status = CLIP_OK;
    j->error[0] = '\0';
    j->next = NULL;
    pthread_mutex_lock(&t->lock);
    if (t->tail)
        t->tail->next = j;
    else
        t->head = j;
    t->tail = j;
    pthread_cond_signal(&t->queued);
    pthread_mutex_unlock(&t->lock);
}

void io_wait(io_thread *t, io_job *j) {
    pthread_mutex_lock(&t->lock);
    while (!j->done)
        pthread_cond_wait(&t->finished, &t->lock);
    pthread_mutex_unlock(&t->lock);
}

void io_stop(io_thread *t) {
    if (!t) return;
    pthread_mutex_lock(&t->lock);
    t->ending = 1;
    pthread_cond_signal(&t->queued);
    pthread_mutex_unlock(&t->lock);
    pthread_join(t->thread, NULL);
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->queued);
    pthread_cond_destroy(&t->finished);
    free(t);
}
