/* Files written by boxes by several writers, in one process (what clip-mpi's ranks do across
 * hosts; tests/test_mpi.c runs them under mpirun): clip_cfl_writer and clip_mat73_writer, a
 * creator and a joined writer each putting some of an array's boxes (one run as it is, another
 * converted from real data), then the joiner flushed and the creator committed. The file must
 * load as the array, bit for bit, and equal clip's single-process save of it; the temporary must
 * be gone after the commit, and after a finish without commit nothing may be left. Also the
 * refusals: a complex box into a real variable, a join whose shape or type is not the file's, an
 * invalid name, an empty variable. Then clip_save_remove_temporaries: it removes the creator's
 * temporary (whose commit then fails, leaving nothing) and forgets committed ones, a forked child
 * removes none of its parent's, and a SIGTERM handler that calls it leaves nothing; a temporary
 * of another process is removed only while watched (clip_save_watch_temporary). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char dir[] = "/tmp/clip_test_io_writers_XXXXXX";

/* Files in dir whose name starts with prefix. */
static int files_named(const char *prefix) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (d) closedir(d);
    return n;
}

/* A box of an array of dims: start and count in the first three dimensions, the rest whole. */
static clip_box box3(size_t s0, size_t c0, size_t s1, size_t c1, size_t s2, size_t c2) {
    clip_box b;
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        b.start[d] = 0, b.count[d] = 1;
    b.start[0] = s0, b.count[0] = c0, b.start[1] = s1, b.count[1] = c1;
    b.start[2] = s2, b.count[2] = c2;
    return b;
}

/* Random data of type t and dims (the caller's). */
static clip_data *random_data(clip_app *app, clip_type t, const size_t *dims,
                              unsigned long long s) {
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create(app, t, 3, dims, &d));
    void *h = NULL;
    if (d) CHECK_OK(app, clip_data_host_write(d, &h));
    const size_t n = d ? clip_data_numel(d) * (clip_type_is_complex(t) ? 2 : 1) : 0;
    for (size_t i = 0; h && i < n; i++) {
        if (clip_type_is_double(t))
            ((double *)h)[i] = tu_rand(&s);
        else
            ((float *)h)[i] = (float)tu_rand(&s);
    }
    return d;
}

/* Puts d (37 x 23 x 3) into the file through two writers: the creator the first 20 rows of every
 * slice (runs of 20 elements), the joiner the rest (the other rows), each box taken from the same
 * place of d. `put` is clip_cfl_writer_put or clip_mat73_writer_put through the wrappers below. */
typedef clip_status (*put_fn)(void *w, clip_data *d, const clip_box *keep, const size_t *at);

static void put_halves(clip_app *app, void *creator, void *joiner, put_fn put, clip_data *d) {
    const clip_box top = box3(0, 20, 0, 23, 0, 3);
    CHECK_OK(app, put(creator, d, &top, top.start));
    /* the joiner's part in two boxes (slice 0, slices 1-2) */
    const clip_box r1 = box3(20, 17, 0, 23, 0, 1), r2 = box3(20, 17, 0, 23, 1, 2);
    CHECK_OK(app, put(joiner, d, &r1, r1.start));
    CHECK_OK(app, put(joiner, d, &r2, r2.start));
}

static clip_status cfl_put(void *w, clip_data *d, const clip_box *keep, const size_t *at) {
    return clip_cfl_writer_put(w, d, keep, at);
}

static clip_status mat_put(void *w, clip_data *d, const clip_box *keep, const size_t *at) {
    return clip_mat73_writer_put(w, d, keep, at);
}

/* Bit for bit equal contents of two objects of one type and shape. */
static int same(clip_data *a, clip_data *b) {
    if (!a || !b || clip_data_type(a) != clip_data_type(b) ||
        clip_data_numel(a) != clip_data_numel(b))
        return 0;
    const void *ha = NULL, *hb = NULL;
    clip_data_host(a, &ha);
    clip_data_host(b, &hb);
    return ha && hb && memcmp(ha, hb, clip_data_bytes(a)) == 0;
}

static void test_cfl(clip_app *app) {
    const size_t dims[3] = {37, 23, 3};
    clip_data *d = random_data(app, CLIP_C32, dims, 1);
    char base[256];
    snprintf(base, sizeof base, "%s/c", dir);
    clip_cfl_writer *w = NULL, *j = NULL;
    CHECK_OK(app, clip_cfl_writer_create(app, base, 3, dims, &w));
    CHECK(w && files_named("c.cfl.tmp-") == 1);
    CHECK_OK(app, clip_cfl_writer_join(app, base, clip_cfl_writer_temp(w), 3, dims, &j));
    put_halves(app, w, j, cfl_put, d);
    CHECK_OK(app, clip_cfl_writer_finish(j, 1));
    CHECK_OK(app, clip_cfl_writer_finish(w, 1));
    clip_data *back = NULL;
    CHECK_OK(app, clip_load_cfl(app, base, &back));
    CHECK(same(back, d));
    CHECK(files_named("c.cfl.tmp-") == 0 && files_named("c.") == 2);
    clip_data_destroy(back);
    clip_data_destroy(d);
}

static void test_mat73(clip_app *app) {
    const size_t dims[3] = {37, 23, 3};
    char path[256], ref[256];
    snprintf(path, sizeof path, "%s/m.mat", dir);
    snprintf(ref, sizeof ref, "%s/ref.mat", dir);
    /* complex single, put as it is */
    clip_data *d = random_data(app, CLIP_C32, dims, 2);
    clip_mat73_writer *w = NULL, *j = NULL;
    CHECK_OK(app, clip_mat73_writer_create(app, path, "Z", CLIP_C32, 3, dims, &w));
    CHECK(w && files_named("m.mat.tmp-") == 1 && files_named("m.mat") == 1);
    if (!w) return;
    CHECK_OK(app, clip_mat73_writer_join(app, path, clip_mat73_writer_temp(w), "Z", CLIP_C32, 3,
                                         dims, &j));
    put_halves(app, w, j, mat_put, d);
    CHECK_OK(app, clip_mat73_writer_finish(j, 1));
    CHECK_OK(app, clip_mat73_writer_finish(w, 1));
    CHECK(files_named("m.mat.tmp-") == 0 && files_named("m.mat") == 1);
    clip_data *back = NULL, *saved = NULL;
    CHECK_OK(app, clip_load_mat(app, path, "Z", &back));
    CHECK(same(back, d));
    CHECK_OK(app, clip_save_mat(app, ref, "Z", d, 1));
    CHECK_OK(app, clip_load_mat(app, ref, "Z", &saved));
    CHECK(same(back, saved));
    /* a box of it read back by hyperslab */
    clip_box b = box3(5, 30, 7, 11, 1, 2);
    clip_data *part = NULL;
    CHECK_OK(app, clip_load_mat73_box(app, path, "Z", &b, &part));
    const float *hp = NULL, *hd = NULL;
    int ok = part != NULL;
    if (part) clip_data_host(part, (const void **)&hp), clip_data_host(d, (const void **)&hd);
    for (size_t k = 0; ok && k < 2; k++)
        for (size_t c = 0; c < 11; c++)
            for (size_t r = 0; r < 30; r++)
                for (int q = 0; q < 2; q++)
                    ok &= hp[2 * (r + 30 * (c + 11 * k)) + q] ==
                          hd[2 * ((5 + r) + 37 * ((7 + c) + 23 * (1 + k))) + q];
    CHECK(ok);
    clip_data_destroy(part);
    clip_data_destroy(back);
    clip_data_destroy(saved);

    /* double, put from single data: each value converted */
    clip_data *f = random_data(app, CLIP_F32, dims, 3);
    CHECK_OK(app, clip_mat73_writer_create(app, path, NULL, CLIP_F64, 3, dims, &w));
    CHECK_OK(app, clip_mat73_writer_join(app, path, clip_mat73_writer_temp(w), NULL, CLIP_F64, 3,
                                         dims, &j));
    if (w && j) put_halves(app, w, j, mat_put, f);
    /* refusals on an open writer: complex data into a real variable, a box outside it */
    const clip_box all = box3(0, 37, 0, 23, 0, 3), wide = box3(0, 38, 0, 23, 0, 3);
    CHECK_STATUS(app, clip_mat73_writer_put(w, d, &all, all.start), CLIP_ERR_INVALID_ARG);
    CHECK_MSG(app, "complex data for a real variable");
    CHECK_STATUS(app, clip_mat73_writer_put(w, f, &wide, wide.start), CLIP_ERR_INVALID_ARG);
    CHECK_OK(app, clip_mat73_writer_finish(j, 1));
    CHECK_OK(app, clip_mat73_writer_finish(w, 1));
    CHECK_OK(app, clip_load_mat(app, path, "result", &back));
    const double *hb = NULL;
    const float *hf = NULL;
    ok = back && clip_data_type(back) == CLIP_F64 && clip_data_numel(back) == 37 * 23 * 3;
    if (ok) clip_data_host(back, (const void **)&hb), clip_data_host(f, (const void **)&hf);
    for (size_t i = 0; ok && i < 37 * 23 * 3; i++)
        ok = hb[i] == (double)hf[i];
    CHECK(ok);
    clip_data_destroy(back);

    /* a join whose type or shape is not the file's; a finish without commit leaves nothing */
    CHECK_OK(app, clip_mat73_writer_create(app, path, "Y", CLIP_F32, 3, dims, &w));
    const size_t other[3] = {37, 23, 4};
    CHECK_STATUS(
        app,
        clip_mat73_writer_join(app, path, clip_mat73_writer_temp(w), "Y", CLIP_F32, 3, other, &j),
        CLIP_ERR_FORMAT);
    CHECK(j == NULL);
    CHECK_STATUS(
        app,
        clip_mat73_writer_join(app, path, clip_mat73_writer_temp(w), "Y", CLIP_C32, 3, dims, &j),
        CLIP_ERR_FORMAT);
    CHECK_OK(app, clip_mat73_writer_finish(w, 0));
    CHECK(files_named("m.mat.tmp-") == 0);
    CHECK_OK(app, clip_load_mat(app, path, "result", &back)); /* the previous file, untouched */
    clip_data_destroy(back);
    /* an invalid name, an empty variable */
    const size_t empty[3] = {37, 0, 3};
    CHECK_STATUS(app, clip_mat73_writer_create(app, path, "1x", CLIP_F32, 3, dims, &w),
                 CLIP_ERR_INVALID_ARG);
    CHECK_STATUS(app, clip_mat73_writer_create(app, path, "Y", CLIP_F32, 3, empty, &w),
                 CLIP_ERR_INVALID_ARG);
    CHECK(files_named("m.mat.tmp-") == 0);
    clip_data_destroy(f);
    clip_data_destroy(d);
}

static void on_term(int sig) {
    clip_save_remove_temporaries();
    _exit(128 + sig);
}

static void test_remove_temporaries(clip_app *app) {
    const size_t dims[3] = {37, 23, 3}; /* put_halves' */
    char base[256];
    snprintf(base, sizeof base, "%s/r", dir);
    clip_data *d = random_data(app, CLIP_C32, dims, 9);
    clip_cfl_writer *w = NULL, *j = NULL;
    /* the creator's temporary goes, the joined writer's finish does not notice, the commit fails
     * and leaves nothing */
    CHECK_OK(app, clip_cfl_writer_create(app, base, 3, dims, &w));
    CHECK_OK(app, clip_cfl_writer_join(app, base, clip_cfl_writer_temp(w), 3, dims, &j));
    put_halves(app, w, j, cfl_put, d);
    CHECK(files_named("r.cfl.tmp-") == 1);
    clip_save_remove_temporaries();
    CHECK(files_named("r.cfl.tmp-") == 0);
    CHECK_OK(app, clip_cfl_writer_finish(j, 1));
    CHECK_STATUS(app, clip_cfl_writer_finish(w, 1), CLIP_ERR_IO);
    printf("commit after clip_save_remove_temporaries: %s\n", clip_app_last_error(app));
    CHECK(files_named("r.") == 0);
    /* a committed pair is out of the table: a later call leaves it */
    CHECK_OK(app, clip_cfl_writer_create(app, base, 3, dims, &w));
    CHECK_OK(app, clip_cfl_writer_join(app, base, clip_cfl_writer_temp(w), 3, dims, &j));
    put_halves(app, w, j, cfl_put, d);
    CHECK_OK(app, clip_cfl_writer_finish(j, 1));
    CHECK_OK(app, clip_cfl_writer_finish(w, 1));
    clip_save_remove_temporaries();
    clip_data *back = NULL;
    CHECK_OK(app, clip_load_cfl(app, base, &back));
    CHECK(same(back, d) && files_named("r.") == 2);
    clip_data_destroy(back);
    clip_data_destroy(d);
    /* a child after fork removes none of its parent's */
    CHECK_OK(app, clip_cfl_writer_create(app, base, 3, dims, &w));
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        clip_save_remove_temporaries();
        _exit(0);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st));
    CHECK(files_named("r.cfl.tmp-") == 1);
    CHECK_OK(app, clip_cfl_writer_finish(w, 0));
    CHECK(files_named("r.cfl.tmp-") == 0);
    /* a process ended by SIGTERM in the middle of its writes, whose handler calls it */
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid = fork();
    if (pid == 0) {
        signal(SIGTERM, on_term);
        clip_cfl_writer *c = NULL;
        char one = clip_cfl_writer_create(app, base, 3, dims, &c) == CLIP_OK;
        if (write(ready[1], &one, 1) != 1) _exit(2);
        for (;;)
            pause();
    }
    char one = 0;
    CHECK(pid > 0 && read(ready[0], &one, 1) == 1 && one == 1);
    CHECK(files_named("r.cfl.tmp-") == 1);
    kill(pid, SIGTERM);
    CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 128 + SIGTERM);
    printf("SIGTERM to a writer whose handler calls clip_save_remove_temporaries: exit %d, %d "
           "temporaries left\n",
           WIFEXITED(st) ? WEXITSTATUS(st) : -1, files_named("r.cfl.tmp-"));
    CHECK(files_named("r.cfl.tmp-") == 0);
    close(ready[0]);
    close(ready[1]);
}

/* A temporary another process made (a child that then pauses, as a rank killed before its
 * handler runs): clip_save_remove_temporaries leaves it, removes it once watched, and leaves it
 * again once unwatched. */
static void test_watch(clip_app *app) {
    const size_t dims[2] = {5, 4};
    char base[256];
    snprintf(base, sizeof base, "%s/w", dir);
    int pipefd[2];
    for (int round = 0; round < 2; round++) {
        CHECK(pipe(pipefd) == 0);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            clip_cfl_writer *c = NULL;
            char name[4096] = "";
            if (clip_cfl_writer_create(app, base, 2, dims, &c) == CLIP_OK)
                snprintf(name, sizeof name, "%s", clip_cfl_writer_temp(c));
            if (write(pipefd[1], name, sizeof name) != (ssize_t)sizeof name) _exit(2);
            for (;;)
                pause();
        }
        char name[4096] = "";
        CHECK(pid > 0 && read(pipefd[0], name, sizeof name) == (ssize_t)sizeof name && *name);
        kill(pid, SIGKILL); /* its temporary stays, as a killed creator's does */
        int st = 0;
        CHECK(waitpid(pid, &st, 0) == pid);
        CHECK(files_named("w.cfl.tmp-") == 1);
        clip_save_remove_temporaries();
        CHECK(files_named("w.cfl.tmp-") == 1); /* not this process's */
        clip_save_watch *w = NULL;
        CHECK_OK(app, clip_save_watch_temporary(app, name, &w));
        if (round == 1) clip_save_unwatch(w);
        clip_save_remove_temporaries();
        CHECK(files_named("w.cfl.tmp-") == round); /* watched: removed; unwatched: left */
        if (round == 0) clip_save_unwatch(w);
        unlink(name);
        close(pipefd[0]);
        close(pipefd[1]);
    }
    clip_save_watch *w = (clip_save_watch *)&w;
    CHECK_STATUS(app, clip_save_watch_temporary(app, "", &w), CLIP_ERR_INVALID_ARG);
    CHECK(w == NULL);
    clip_save_unwatch(NULL);
    printf("a watched temporary of another process: removed; unwatched: left\n");
}

int main(void) {
    setenv("POCL_DEVICES", "pthread", 0);
    if (!mkdtemp(dir)) return 2;
    clip_app *app = tu_app();
    if (!app) return 1;
    test_cfl(app);
    test_remove_temporaries(app);
    test_watch(app);
    int nd = 0;
    size_t md[CLIP_MAX_DIMS];
    clip_type mt;
    if (clip_mat73_shape(app, dir, NULL, &nd, md, &mt) == CLIP_ERR_UNSUPPORTED ||
        !clip_io_has("mat73"))
        printf("MAT 7.3 writer: skipped (%s)\n", "clip built without HDF5 or matio's v7.3");
    else
        test_mat73(app);
    clip_app_destroy(app);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tu_finish("test_io_writers");
}
