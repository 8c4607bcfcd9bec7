/* The thread-safety contract of app.h: separate apps in separate threads run concurrently and
 * each gets its own, correct results and its own error messages. */
#include <pthread.h>
#include <stdio.h>

#include "testutil.h"

#define THREADS 4
#define ROUNDS 25
#define LEN 4099

typedef struct job {
    int id;
    int bad_values;
    int bad_status;
    int bad_message;
} job;

static void *worker(void *arg) {
    job *j = arg;
    clip_app *app = NULL;
    if (clip_app_create(&app, NULL) != CLIP_OK) {
        j->bad_status++;
        return NULL;
    }
    static float in[THREADS][LEN];
    for (int i = 0; i < LEN; i++) in[j->id][i] = (float)(i % 100);
    size_t n = LEN;
    for (int r = 0; r < ROUNDS; r++) {
        clip_data *x = NULL, *y = NULL;
        clip_process *p = NULL;
        double a = j->id + 1, b = r;
        if (clip_data_create_from(app, CLIP_F32, 1, &n, in[j->id], &x) != CLIP_OK ||
            clip_process_create(app, "scale", &p) != CLIP_OK ||
            clip_process_set_real(p, "a", a) != CLIP_OK || clip_process_set_real(p, "b", b) != CLIP_OK ||
            clip_process_set_input(p, 0, x) != CLIP_OK || clip_process_init(p) != CLIP_OK ||
            clip_process_launch(p) != CLIP_OK || clip_process_output(p, 0, &y) != CLIP_OK) {
            j->bad_status++;
        } else {
            const float *h = NULL;
            if (clip_data_host(y, (const void **)&h) != CLIP_OK) j->bad_status++;
            else
                for (int i = 0; i < LEN; i++)
                    if (h[i] != (float)(a * (i % 100) + b)) j->bad_values++;
        }
        /* Each app keeps its own message. */
        char name[32];
        snprintf(name, sizeof name, "nope_%d", j->id);
        clip_process *q = NULL;
        if (clip_process_create(app, name, &q) != CLIP_ERR_UNKNOWN_PROCESS ||
            !strstr(clip_app_last_error(app), name))
            j->bad_message++;
        clip_process_destroy(p);
        clip_data_destroy(x);
    }
    clip_app_destroy(app);
    return NULL;
}

int main(void) {
    pthread_t t[THREADS];
    job jobs[THREADS] = {{0}};
    for (int i = 0; i < THREADS; i++) {
        jobs[i].id = i;
        CHECK(pthread_create(&t[i], NULL, worker, &jobs[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        CHECK(jobs[i].bad_status == 0);
        CHECK(jobs[i].bad_values == 0);
        CHECK(jobs[i].bad_message == 0);
    }
    return tu_finish("test_threads");
}
