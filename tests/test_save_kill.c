/* A killed save leaves nothing behind (issue 15 item 6). For each writer (CFL, PNG, TIFF, MAT 5,
 * MAT 7.3, and CFL forced onto the named-temporary path with CLIP_TEST_SAVE_NAMED=1) a child
 * saves a large output and is killed with SIGKILL at 10 moments spread over the save's measured
 * duration. After each kill the directory must hold nothing new, or the whole destination
 * (loaded and compared with what was saved); an unnamed-temporary writer of one file into an
 * empty place must never leave a temporary (it is linked straight to the target's name), and any
 * other writer's leftover (named temporaries; CFL's pair, named for its renames at the commit)
 * must be removed by the next save into the directory; a kill between the pair's two renames
 * may leave the new samples without a header (no reader loads them), never a header alone. Then the
 * cleaning itself: a live writer's temporary (a child stopped mid-save) and those of this process
 * or of another host survive the next save; a dead writer's and one whose pid now belongs to a
 * process that started at another time (pid reuse) do not. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, fork, kill */

#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io_testutil.h"
#include "testutil.h"

typedef struct writer {
    const char *label;
    const char *has; /* clip_io_has() name */
    const char *ext;
    int v73;         /* MAT 7.3 through clip_save_mat */
    int named;       /* may leave a named temporary: MAT 7.3, and the forced named path */
    int force_named; /* CLIP_TEST_SAVE_NAMED=1 in the child */
    clip_type type;
    int nd;
    size_t dims[3];
} writer;

/* About 16 MB each (PNG: 3 MB of 8-bit samples, whose compression takes as long). */
static const writer writers[] = {
    {"cfl", "cfl", "cfl", 0, 0, 0, CLIP_C32, 2, {2048, 1024, 1}},
    {"png", "png", "png", 0, 0, 0, CLIP_F32, 3, {1024, 1024, 3}},
    {"tiff", "tiff", "tif", 0, 0, 0, CLIP_F32, 2, {2048, 2048, 1}},
    {"mat", "mat", "mat", 0, 0, 0, CLIP_F64, 2, {2048, 1024, 1}},
    {"mat73", "mat73", "mat", 1, 1, 0, CLIP_F64, 2, {2048, 1024, 1}},
    {"cfl-named", "cfl", "cfl", 0, 1, 1, CLIP_C32, 2, {2048, 1024, 1}},
};

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sleep_ms(double ms) {
    struct timespec t = {(time_t)(ms / 1e3), (long)((ms - (double)(time_t)(ms / 1e3) * 1e3) * 1e6)};
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

/* Integers 0..255: they survive every format. */
static clip_data *make(clip_app *app, const writer *w) {
    clip_data *d = NULL;
    void *p = NULL;
    if (clip_data_create(app, w->type, w->nd, w->dims, &d) != CLIP_OK ||
        clip_data_host_write(d, &p) != CLIP_OK) {
        fprintf(stderr, "create: %s\n", clip_app_last_error(app));
        exit(2);
    }
    unsigned long long seed = 7;
    size_t n = clip_data_numel(d) * (clip_type_is_complex(w->type) ? 2 : 1);
    for (size_t i = 0; i < n; i++) {
        double v = floor((tu_rand(&seed) + 1.0) * 127.99);
        if (clip_type_is_double(w->type))
            ((double *)p)[i] = v;
        else
            ((float *)p)[i] = (float)v;
    }
    return d;
}

static clip_status save(clip_app *app, const writer *w, const char *path, clip_data *d) {
    return w->v73 ? clip_save_mat(app, path, NULL, d, 1) : clip_save(app, path, d);
}

/* Saves in a child, which SIGKILL ends after delay_ms (< 0: never); returns when it is gone,
 * with how long it lived. Saving in a child also keeps HDF5's exit handlers out of this
 * process. */
static double save_in_child(clip_app *app, const writer *w, const char *path, clip_data *d,
                            double delay_ms, int *exited_ok) {
    fflush(stdout);
    double t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        if (w->force_named) setenv("CLIP_TEST_SAVE_NAMED", "1", 1);
        _exit(save(app, w, path, d) == CLIP_OK ? 0 : 1);
    }
    if (pid < 0) {
        perror("fork");
        exit(2);
    }
    if (delay_ms >= 0) {
        sleep_ms(delay_ms);
        kill(pid, SIGKILL);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    *exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return now_ms() - t0;
}

static int same_data(clip_data *a, clip_data *b) {
    if (!a || !b || clip_data_type(a) != clip_data_type(b) ||
        clip_data_numel(a) != clip_data_numel(b))
        return 0;
    const void *pa = NULL, *pb = NULL;
    clip_data_host(a, &pa);
    clip_data_host(b, &pb);
    return memcmp(pa, pb, clip_data_numel(a) * clip_type_size(clip_data_type(a))) == 0;
}

/* What a directory holds after a kill. */
typedef struct outcome {
    int temporaries; /* names with ".tmp-" */
    int targets;     /* out.EXT (and out.hdr for CFL) */
    int header;      /* out.hdr among them */
    int others;      /* anything else */
} outcome;

/* quiet: do not name the temporaries on stderr. */
static outcome look(const char *dir, int quiet) {
    outcome o = {0, 0, 0, 0};
    DIR *dd = opendir(dir);
    if (!dd) return o;
    struct dirent *e;
    while ((e = readdir(dd)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (strstr(e->d_name, ".tmp-")) {
            o.temporaries++;
            if (!quiet) fprintf(stderr, "  left: %s/%s\n", dir, e->d_name);
        } else if (strncmp(e->d_name, "out.", 4) == 0) {
            o.targets++;
            o.header += strcmp(e->d_name, "out.hdr") == 0;
        } else {
            o.others++;
            fprintf(stderr, "  unexpected: %s/%s\n", dir, e->d_name);
        }
    }
    closedir(dd);
    return o;
}

/* A tiny save into dir: the "next save" that cleans up after dead writers. */
static void next_save(clip_app *app, const char *dir) {
    const size_t dims[2] = {2, 2};
    clip_data *d = NULL;
    void *p = NULL;
    char path[600];
    snprintf(path, sizeof path, "%s/next.cfl", dir);
    CHECK_OK(app, clip_data_create(app, CLIP_C32, 2, dims, &d));
    CHECK_OK(app, clip_data_host_write(d, &p));
    memset(p, 0, 2 * 4 * sizeof(float));
    CHECK_OK(app, clip_save(app, path, d));
    clip_data_destroy(d);
    remove(path);
    snprintf(path, sizeof path, "%s/next.hdr", dir);
    remove(path);
}

static void remove_targets(const writer *w, const char *path, const char *dir) {
    remove(path);
    if (strcmp(w->ext, "cfl") == 0) {
        char hdr[600];
        snprintf(hdr, sizeof hdr, "%s/out.hdr", dir);
        remove(hdr);
    }
}

/* Checks that a complete destination loads as d. */
static int reads_back(clip_app *app, const char *path, clip_data *d) {
    clip_data *back = NULL;
    int ok = clip_load(app, path, &back) == CLIP_OK && same_data(d, back);
    if (!ok)
        fprintf(stderr, "  %s does not read back as saved: %s\n", path, clip_app_last_error(app));
    clip_data_destroy(back);
    return ok;
}

static void test_kills(clip_app *app, const writer *w) {
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/%s", g_dir, w->label);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/out.%s", dir, w->ext);
    int pair = strcmp(w->ext, "cfl") == 0;
    clip_data *d = make(app, w);

    int ok = 0;
    double t = save_in_child(app, w, path, d, -1, &ok);
    CHECK(ok && reads_back(app, path, d));
    remove_targets(w, path, dir);

    enum { KILLS = 10 };
    int nothing = 0, whole = 0, temporary = 0, between = 0;
    for (int i = 0; i < KILLS; i++) {
        double delay = t * i / (KILLS - 2); /* 0 .. 1.125 t: the last two may find it done */
        save_in_child(app, w, path, d, delay, &ok);
        outcome o = look(dir, w->named || pair); /* a leftover may be expected here */
        /* CFL's pair killed between its two renames (lib/save_file.c, clip_save_commit_all: the
         * samples go first): the new samples without a header, which no reader loads, and the
         * header still a temporary for the next save to remove. Under valgrind the window is
         * wide enough to be hit. */
        const int halfway = pair && o.targets == 1 && !o.header && o.temporaries;
        tu_checks++;
        if (o.others || o.targets > (pair ? 2 : 1) || (o.temporaries && !w->named && !pair) ||
            (o.targets && o.targets != (pair ? 2 : 1) && !halfway)) {
            tu_failures++;
            fprintf(stderr,
                    "%s: killed at %.0f ms: %d temporaries, %d of %d target files, %d "
                    "others\n",
                    w->label, delay, o.temporaries, o.targets, pair ? 2 : 1, o.others);
        }
        if (o.targets == (pair ? 2 : 1)) {
            CHECK(reads_back(app, path, d));
            whole++;
        }
        if (halfway) {
            clip_data *back = NULL;
            CHECK(clip_load(app, path, &back) != CLIP_OK);
            clip_data_destroy(back);
            between++;
        }
        if (o.temporaries) {
            temporary++;
            next_save(app, dir);
            outcome after = look(dir, 0);
            if (after.temporaries)
                fprintf(stderr,
                        "%s: the next save left a dead writer's "
                        "temporary\n",
                        w->label);
            CHECK(after.temporaries == 0);
        }
        if (!o.targets && !o.temporaries) nothing++;
        remove_targets(w, path, dir);
    }
    size_t bytes = clip_data_numel(d) * clip_type_size(w->type);
    printf("test_save_kill: %s (%s temporary): %.1f MB in %.0f ms; %d kills from 0 to %.0f ms: "
           "%d left nothing, %d the whole file, %d a temporary that the next save removed, %d "
           "the samples without their header\n",
           w->label, w->named ? "named" : "unnamed", bytes / 1e6, t, KILLS,
           t * (KILLS - 1) / (KILLS - 2), nothing, whole, temporary, between);
    clip_data_destroy(d);
}

/* ---------------------------------------------------------------- the cleaning rule */

/* The host name as temporaries carry it (lib/save_file.h): anything but letters, digits, '.'
 * and '_' becomes '_'. */
static void host_name(char out[72]) {
    if (gethostname(out, 64) != 0) snprintf(out, 64, "unknown");
    out[64] = '\0';
    for (char *c = out; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_'))
            *c = '_';
}

/* Field 22 of /proc/PID/stat: the process's start time. */
static unsigned long long start_of(long pid) {
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    return p ? strtoull(p + 1, NULL, 10) : 0;
}

static void touch(const char *dir, const char *name) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    CHECK(f != NULL);
}

static int present(const char *dir, const char *name) {
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return tu_file_exists(path);
}

/* Temporaries named by the documented pattern, one for each case of the rule. */
static void test_rule(clip_app *app) {
    char dir[512], host[72], dead[256], reused[256], mine[256], other_host[256], not_ours[256];
    snprintf(dir, sizeof dir, "%s/rule", g_dir);
    mkdir(dir, 0777);
    host_name(host);
    long me = (long)getpid();
    unsigned long long my_start = start_of(me);
    CHECK(my_start != 0);

    /* A dead writer: a child that was alive (its start time read then) and is gone. */
    int fds[2];
    CHECK(pipe(fds) == 0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        char c;
        close(fds[1]);
        _exit(read(fds[0], &c, 1) < 0);
    }
    close(fds[0]);
    unsigned long long child_start = start_of((long)child);
    close(fds[1]);
    waitpid(child, NULL, 0);

    snprintf(dead, sizeof dead, "x.mat.tmp-%s-%ld-%llu-3", host, (long)child, child_start);
    snprintf(reused, sizeof reused, "x.mat.tmp-%s-%ld-%llu-4", host, me, my_start + 1);
    snprintf(mine, sizeof mine, "x.mat.tmp-%s-%ld-%llu-5", host, me, my_start);
    snprintf(other_host, sizeof other_host, "x.mat.tmp-%sX-%ld-%llu-6", host, (long)child,
             child_start);
    snprintf(not_ours, sizeof not_ours, "x.mat.tmp-notes");
    const char *names[] = {dead, reused, mine, other_host, not_ours};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        touch(dir, names[i]);
    next_save(app, dir);
    CHECK(!present(dir, dead));
    CHECK(!present(dir, reused));
    CHECK(present(dir, mine));
    CHECK(present(dir, other_host));
    CHECK(present(dir, not_ours));
    printf("test_save_kill: the next save removed the temporaries of a dead writer (pid %ld) and "
           "of a reused pid (%ld, other start time); kept this live process's, another host's "
           "and a name outside the pattern\n",
           (long)child, me);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        remove(path);
    }
}

/* A live writer's temporary survives the next save: a child on the named path, stopped while
 * its temporaries exist, then let go to finish. */
static void test_live_writer(clip_app *app) {
    const writer *w = &writers[5];
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/live", g_dir);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/out.cfl", dir);
    clip_data *d = make(app, w);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CLIP_TEST_SAVE_NAMED", "1", 1);
        _exit(save(app, w, path, d) == CLIP_OK ? 0 : 1);
    }
    outcome o = {0, 0, 0, 0};
    double t0 = now_ms();
    while ((o = look(dir, 1)).temporaries == 0 && now_ms() - t0 < 5000)
        sleep_ms(0.2);
    kill(pid, SIGSTOP);
    o = look(dir, 1);
    CHECK(o.temporaries > 0 && o.targets == 0);
    next_save(app, dir);
    outcome kept = look(dir, 1);
    if (kept.temporaries != o.temporaries)
        fprintf(stderr, "the next save removed a live writer's temporaries (%d of %d left)\n",
                kept.temporaries, o.temporaries);
    CHECK(kept.temporaries == o.temporaries);
    kill(pid, SIGCONT);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(reads_back(app, path, d));
    CHECK(look(dir, 0).temporaries == 0);
    printf("test_save_kill: a live writer stopped with %d temporaries kept them through the next "
           "save, then finished its save\n",
           o.temporaries);
    clip_data_destroy(d);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "test_save_kill_XXXXXX");
    tu_scratch_dir(g_dir);
    clip_app *app = tu_app();
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
        if (!clip_io_has(writers[i].has)) {
            printf("test_save_kill: %s: skipped: not built in (clip_io_has(\"%s\") is 0)\n",
                   writers[i].label, writers[i].has);
            continue;
        }
        test_kills(app, &writers[i]);
    }
    test_rule(app);
    test_live_writer(app);
    clip_app_destroy(app);
    int rc = tu_finish("test_save_kill");
    if (rc == 0 && !getenv("KEEP")) tu_remove_tree(g_dir);
    return rc;
}
