/* Saves never lie (issue 12). Every writer (MAT 5, MAT 7.3, TIFF, PNG, the CFL pair, the tuning
 * cache) is made to fail at chosen byte offsets by a file-size limit (RLIMIT_FSIZE, with SIGXFSZ
 * ignored so the write fails with EFBIG instead of killing the test): at 0, inside the format's
 * header, inside the data, and at the last byte. Each failure must be CLIP_ERR_IO naming the
 * operating system's reason ("File too large"), leave no file and no temporary, leave an existing
 * target byte-identical, and leave the app usable: the next save, limit lifted, succeeds and
 * reads back. Also: concurrent tuning stores keep every entry, a load beside another process's
 * repeated saves of the same file gets one whole save each time (every format; CFL's pair is
 * the case that needs the reader's care), and the clip tool under a file-size limit exits 1 with
 * the reason rather than dying of SIGXFSZ. */
#define _XOPEN_SOURCE 700 /* mkdtemp, nftw, fork, setrlimit */

#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clip/process_author.h"
#include "io_testutil.h"
#include "testutil.h"


/* Writes past `bytes` fail with EFBIG from here on (RLIM_INFINITY lifts it again). Only the soft
 * limit moves, so an unprivileged test can lift it. */
static void limit_file_size(rlim_t bytes) {
    struct rlimit r;
    getrlimit(RLIMIT_FSIZE, &r);
    r.rlim_cur = bytes;
    if (setrlimit(RLIMIT_FSIZE, &r) != 0) {
        fprintf(stderr, "setrlimit(RLIMIT_FSIZE, %llu): %s\n", (unsigned long long)bytes,
                strerror(errno));
        exit(2);
    }
}

/* ---------------------------------------------------------------- writers */

typedef enum kind { MAT5, MAT73, TIFF, PNG, CFL, TUNING } kind;

typedef struct writer {
    kind k;
    const char *name;    /* clip_io_has() name; NULL: always built */
    const char *ext;     /* file name extension; the tuning cache is a .txt */
    size_t in_header;    /* an offset inside the format's header */
    clip_type type;      /* what the test saves */
} writer;

static const writer writers[] = {
    {MAT5, "mat", "mat", 64, CLIP_C64},      /* 128-byte header, then the variable's tags */
    {MAT73, "mat73", "mat", 200, CLIP_F32},  /* 512-byte user block before the HDF5 data */
    {TIFF, "tiff", "tif", 4, CLIP_F32},      /* 8-byte header */
    {PNG, "png", "png", 20, CLIP_F32},       /* signature and IHDR: 33 bytes */
    {CFL, "cfl", "cfl", 6, CLIP_C32},        /* the .hdr's "# Dimensions" line */
    {TUNING, NULL, "txt", 10, CLIP_F32},     /* the cache's comment line */
};

/* The files a save of `base` (name without extension) makes: two for the CFL pair. */
static int files_of(const writer *w, const char *base, char files[2][512]) {
    if (w->k == CFL) {
        snprintf(files[0], sizeof files[0], "%s.cfl", tp(base));
        snprintf(files[1], sizeof files[1], "%s.hdr", tp(base));
        return 2;
    }
    snprintf(files[0], sizeof files[0], "%s.%s", tp(base), w->ext);
    return 1;
}

/* One save (for the tuning cache: one store of entry `seed` into the cache at the path). */
static clip_status save(clip_app *app, const writer *w, const char *base, clip_data *d,
                        unsigned seed) {
    char path[512];
    snprintf(path, sizeof path, "%s.%s", tp(base), w->ext);
    switch (w->k) {
    case MAT5:
        return clip_save_mat(app, path, NULL, d, 0);
    case MAT73:
        return clip_save_mat(app, path, NULL, d, 1);
    case TIFF:
        return clip_save_tiff(app, path, d, CLIP_SAMPLE_AUTO);
    case PNG:
        return clip_save_png(app, path, d, CLIP_SAMPLE_U8);
    case CFL:
        return clip_save(app, path, d);
    default: {
        char key[32], value[32];
        snprintf(key, sizeof key, "key-%u", seed);
        snprintf(value, sizeof value, "value-%u", seed);
        setenv("CLIP_TUNING_CACHE", path, 1);
        return clip_tuning_store(app, "test_save", key, value);
    }
    }
}

/* Checks that what `base` holds is what the save of d (entry `seed`) wrote. */
static void check_reads_back(clip_app *app, const writer *w, const char *base, clip_data *d,
                             unsigned seed) {
    char path[512];
    snprintf(path, sizeof path, "%s.%s", tp(base), w->ext);
    if (w->k == TUNING) {
        char key[32], want[32], got[64] = "";
        snprintf(key, sizeof key, "key-%u", seed);
        snprintf(want, sizeof want, "value-%u", seed);
        setenv("CLIP_TUNING_CACHE", path, 1);
        CHECK(clip_tuning_lookup(app, "test_save", key, got, sizeof got) == 1);
        CHECK(strcmp(got, want) == 0);
        return;
    }
    clip_data *back = NULL;
    CHECK_OK(app, clip_load(app, path, &back));
    if (!tu_same_data(d, back)) {
        fprintf(stderr, "%s: %s does not read back as saved\n", w->ext, path);
        CHECK(0);
    }
    clip_data_destroy(back);
}

/* Runs the save of d into `base` under a limit of `offset` bytes; it must fail and leave the
 * files of `base` as `before` had them (NULL: absent). */
static void check_failure(clip_app *app, const writer *w, const char *base, clip_data *d,
                          unsigned seed, size_t offset, unsigned char *before[2],
                          const size_t before_n[2]) {
    char files[2][512];
    int nf = files_of(w, base, files);
    limit_file_size((rlim_t)offset);
    clip_status s = save(app, w, base, d, seed);
    limit_file_size(RLIM_INFINITY);
    tu_checks++;
    if (s != CLIP_ERR_IO || !strstr(clip_app_last_error(app), strerror(EFBIG))) {
        tu_failures++;
        fprintf(stderr, "%s, limit %zu bytes, %s: %s (%s), want CLIP_ERR_IO with \"%s\"\n",
                w->ext, offset, before[0] ? "over a file" : "new file", clip_status_str(s),
                clip_app_last_error(app), strerror(EFBIG));
    }
    for (int i = 0; i < nf; i++) {
        size_t n = 0;
        unsigned char *now = tu_read_file(files[i], &n);
        tu_checks++;
        if (before[i] ? !now || n != before_n[i] || memcmp(now, before[i], n) != 0 : now != NULL) {
            tu_failures++;
            fprintf(stderr, "%s, limit %zu bytes: %s %s\n", w->ext, offset, files[i],
                    before[i] ? "changed" : "exists after a failed save");
        }
        free(now);
    }
    CHECK(tu_count_temporaries(g_dir) == 0);
}

/* The whole matrix for one writer. */
static void test_writer(clip_app *app, const writer *w) {
    const size_t dims[3] = {24, 20, 3};
    int nd = w->k == TIFF || w->k == PNG || w->k == MAT5 ? 3 : 2;
    clip_data *d1 = tu_io_data(app, w->type, nd, dims, 1, 0, 1),
              *d2 = tu_io_data(app, w->type, nd, dims, 2, 0, 1);
    char files[2][512];
    int nf = files_of(w, w->ext, files);

    /* The size the save makes, learned from a save that fits (and reads back). */
    char probe[32];
    snprintf(probe, sizeof probe, "probe_%s", w->ext);
    if (w->k == TUNING) {
        CHECK_OK(app, save(app, w, probe, d1, 100));
        CHECK_OK(app, save(app, w, probe, d1, 101));
    }
    CHECK_OK(app, save(app, w, probe, d2, 2));
    check_reads_back(app, w, probe, d2, 2);
    char probe_files[2][512];
    files_of(w, probe, probe_files);
    size_t size = 0, fresh_size = 0;
    free(tu_read_file(probe_files[0], &size));
    CHECK(size > w->in_header + 1);
    const size_t offsets[] = {0, w->in_header, w->in_header + (size - w->in_header) / 2, size - 1};
    /* A new tuning cache holds one entry, not three: its own offsets. */
    fresh_size = size;
    if (w->k == TUNING) {
        CHECK_OK(app, save(app, w, "probe_fresh", d2, 2));
        char fresh_file[2][512];
        files_of(w, "probe_fresh", fresh_file);
        free(tu_read_file(fresh_file[0], &fresh_size));
        CHECK(fresh_size > w->in_header + 1);
    }
    const size_t fresh_offsets[] = {0, w->in_header,
                                    w->in_header + (fresh_size - w->in_header) / 2,
                                    fresh_size - 1};

    /* The target as it is before each failure: the tuning cache holds two entries already. */
    if (w->k == TUNING) {
        CHECK_OK(app, save(app, w, w->ext, d1, 100));
        CHECK_OK(app, save(app, w, w->ext, d1, 101));
    } else {
        CHECK_OK(app, save(app, w, w->ext, d1, 1));
    }
    unsigned char *before[2] = {NULL, NULL}, *none[2] = {NULL, NULL};
    size_t before_n[2] = {0, 0};
    for (int i = 0; i < nf; i++)
        before[i] = tu_read_file(files[i], &before_n[i]);
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        check_failure(app, w, "fresh", d2, 2, fresh_offsets[i], none, before_n);
        check_failure(app, w, w->ext, d2, 2, offsets[i], before, before_n);
    }
    if (w->k == CFL) {
        /* Samples (32 bytes) that fit and a header (45 bytes) that does not: the verified
         * samples must not replace the old ones alone. */
        const size_t small_dims[2] = {2, 2};
        clip_data *small = tu_io_data(app, w->type, 2, small_dims, 3, 0, 1);
        check_failure(app, w, w->ext, small, 3, 40, before, before_n);
        clip_data_destroy(small);
    }
    /* The app is still usable: the same save, limit lifted, works and reads back. */
    CHECK_OK(app, save(app, w, w->ext, d2, 2));
    check_reads_back(app, w, w->ext, d2, 2);
    if (w->k == TUNING) check_reads_back(app, w, w->ext, d1, 100);
    CHECK(tu_count_temporaries(g_dir) == 0);
    printf("test_save: %s: failed at offsets 0, %zu (header), %zu (data), %zu (last byte) of %zu "
           "over an old file, and of %zu as a new file%s\n", w->name ? w->name : "tuning",
           offsets[1], offsets[2], offsets[3], size, fresh_size,
           w->k == CFL ? "; header alone at 40" : "");
    for (int i = 0; i < nf; i++)
        free(before[i]);
    clip_data_destroy(d1);
    clip_data_destroy(d2);
}

/* MAT 7.3 runs in a child that ends with _exit: after a failed H5Fclose, HDF5 1.10's exit
 * handler (H5_term_library -> H5F__close_cb) crashes on the file it could not close, whatever
 * the caller does; the save itself fails cleanly, which is what is checked here. */
static void test_writer_in_child(clip_app *app, const writer *w) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        test_writer(app, w);
        fflush(stdout);
        _exit(tu_failures ? 1 : 0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---------------------------------------------------------------- tuning cache, concurrently */

static void test_concurrent_stores(clip_app *app) {
    enum { WRITERS = 4, EACH = 20 };
    const writer *w = &writers[5];
    fflush(stdout);
    pid_t pids[WRITERS];
    for (int i = 0; i < WRITERS; i++) {
        pids[i] = fork();
        if (pids[i] == 0) {
            int bad = 0;
            for (unsigned j = 0; j < EACH; j++)
                bad |= save(app, w, "concurrent", NULL, 1000u * (unsigned)i + j) != CLIP_OK;
            _exit(bad);
        }
    }
    for (int i = 0; i < WRITERS; i++) {
        int status = 0;
        CHECK(pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i]);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    int missing = 0;
    char path[512], key[32], got[64];
    snprintf(path, sizeof path, "%s.txt", tp("concurrent"));
    setenv("CLIP_TUNING_CACHE", path, 1);
    for (int i = 0; i < WRITERS; i++)
        for (unsigned j = 0; j < EACH; j++) {
            snprintf(key, sizeof key, "key-%u", 1000u * (unsigned)i + j);
            missing += clip_tuning_lookup(app, "test_save", key, got, sizeof got) != 1;
        }
    if (missing) fprintf(stderr, "concurrent stores lost %d of %d entries\n", missing,
                         WRITERS * EACH);
    CHECK(missing == 0);
    CHECK(tu_count_temporaries(g_dir) == 0);
}

/* ---------------------------------------------------------------- loads beside saves */

/* Whether d is one of the two arrays the writer below alternates: rows x cols all `v` for
 * (rows, cols, v) = (RACE_ROWS, RACE_COLS, 1) or (RACE_COLS, RACE_ROWS, 2). The same element
 * count, so samples read under the other save's header (CFL's pair) or a size taken from one
 * file and data from the other would pass a count check: only the values and shape tell. */
enum { RACE_ROWS = 192, RACE_COLS = 64 };
static int race_whole(clip_data *d) {
    if (clip_data_ndims(d) != 2) return 0;
    const size_t r = clip_data_dim(d, 0), c = clip_data_dim(d, 1);
    const double v = r == RACE_ROWS && c == RACE_COLS   ? 1.0
                     : r == RACE_COLS && c == RACE_ROWS ? 2.0
                                                        : 0.0;
    const void *p = NULL;
    if (v == 0.0 || clip_data_host(d, &p) != CLIP_OK) return 0;
    const clip_type t = clip_data_type(d);
    const size_t stride = clip_type_is_complex(t) ? 2 : 1;
    for (size_t i = 0; i < r * c * stride; i++) {
        const double x = clip_type_is_double(t) ? ((const double *)p)[i] : ((const float *)p)[i];
        if (x != (i % stride ? 0.0 : v)) return 0;
    }
    return 1;
}

/* A load running while another process saves the same file (or CFL pair) over and over gets
 * one whole save every time: never a size or header of one save with the data of another, and
 * never, for CFL, the moment in a commit when the old header is gone and the new one not yet
 * there. */
static void test_load_during_saves(clip_app *app, const char *ext) {
    const size_t da[2] = {RACE_ROWS, RACE_COLS}, db[2] = {RACE_COLS, RACE_ROWS};
    clip_data *a = NULL, *b = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, da, &a));
    CHECK_OK(app, clip_data_create(app, CLIP_F32, 2, db, &b));
    if (!a || !b) return;
    void *pa = NULL, *pb = NULL;
    clip_data_host_write(a, &pa);
    clip_data_host_write(b, &pb);
    for (size_t i = 0; i < (size_t)RACE_ROWS * RACE_COLS; i++) {
        ((float *)pa)[i] = 1.0f;
        ((float *)pb)[i] = 2.0f;
    }
    char path[512], name[32];
    snprintf(name, sizeof name, "race.%s", ext);
    snprintf(path, sizeof path, "%s", tp(name));
    CHECK_OK(app, clip_save(app, path, a));
    fflush(stdout);
    /* The child only writes files from data already on the host (as test_concurrent_stores). */
    pid_t pid = fork();
    if (pid == 0) {
        int bad = 0;
        for (int i = 0; i < 60 && !bad; i++)
            bad = clip_save(app, path, i % 2 ? a : b) != CLIP_OK;
        _exit(bad);
    }
    int loads = 0, torn = 0, failed = 0, status = 0;
    char first_error[512] = "";
    while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
        clip_data *d = NULL;
        if (clip_load(app, path, &d) != CLIP_OK) {
            if (!failed++)
                snprintf(first_error, sizeof first_error, "%s", clip_app_last_error(app));
        } else if (!race_whole(d)) {
            torn++;
        }
        clip_data_destroy(d);
        loads++;
    }
    CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    printf("test_save: %s loaded during 60 saves: %d loads, %d torn, %d failed%s%s\n", ext, loads,
           torn, failed, failed ? "; the first: " : "", first_error);
    CHECK(loads > 0 && torn == 0 && failed == 0);
    CHECK(tu_count_temporaries(g_dir) == 0);
    clip_data_destroy(a);
    clip_data_destroy(b);
}

/* ---------------------------------------------------------------- CFL pairs, concurrently */

/* Which of the savers below d is, whole: shape SHAPES[k] and every sample k + 1 (imaginary parts
 * 0); -1 for anything else. The shapes share one element count, so a header of one saver over
 * the samples of another passes the size check: only the shape and values tell. */
enum { SAVERS = 4 };
static const size_t SHAPES[SAVERS][2] = {{96, 32}, {32, 96}, {48, 64}, {64, 48}};
static int pair_saver(clip_data *d) {
    const void *p = NULL;
    if (clip_data_ndims(d) != 2 || clip_data_type(d) != CLIP_C32 || clip_data_host(d, &p))
        return -1;
    for (int k = 0; k < SAVERS; k++) {
        if (clip_data_dim(d, 0) != SHAPES[k][0] || clip_data_dim(d, 1) != SHAPES[k][1]) continue;
        for (size_t i = 0; i < 2 * SHAPES[k][0] * SHAPES[k][1]; i++)
            if (((const float *)p)[i] != (i % 2 ? 0.0f : (float)(k + 1))) return -1;
        return k;
    }
    return -1;
}

/* Several processes save one CFL pair at once, each its own shape, while this one loads it: a
 * commit (remove the old header, rename the samples, rename the header) run beside another
 * would leave one saver's header over another's samples, so every load, and the pair left once
 * all have finished, must be one saver's whole. Rounds, since the last two commits of a round
 * must overlap for a mix to stay behind. */
static void test_concurrent_pair_saves(clip_app *app) {
    enum { ROUNDS = 8, EACH = 15 };
    clip_data *d[SAVERS] = {NULL};
    for (int k = 0; k < SAVERS; k++) {
        CHECK_OK(app, clip_data_create(app, CLIP_C32, 2, SHAPES[k], &d[k]));
        void *p = NULL;
        if (!d[k] || clip_data_host_write(d[k], &p) != CLIP_OK) return;
        for (size_t i = 0; i < 2 * SHAPES[k][0] * SHAPES[k][1]; i++)
            ((float *)p)[i] = i % 2 ? 0.0f : (float)(k + 1);
    }
    char path[512];
    snprintf(path, sizeof path, "%s", tp("pair.cfl"));
    int loads = 0, torn = 0, failed = 0, mixed_after = 0;
    char first_error[512] = "";
    CHECK_OK(app, clip_save(app, path, d[0]));
    for (int round = 0; round < ROUNDS; round++) {
        fflush(stdout);
        pid_t pids[SAVERS];
        for (int k = 0; k < SAVERS; k++) {
            pids[k] = fork();
            if (pids[k] == 0) {
                int bad = 0;
                for (int j = 0; j < EACH && !bad; j++)
                    bad = clip_save(app, path, d[k]) != CLIP_OK;
                _exit(bad);
            }
        }
        int status[SAVERS] = {0}, reaped[SAVERS] = {0}, running = SAVERS;
        for (;;) {
            for (int k = 0; k < SAVERS; k++)
                if (!reaped[k] && (pids[k] <= 0 || waitpid(pids[k], &status[k], WNOHANG) != 0)) {
                    reaped[k] = 1;
                    running--;
                    CHECK(pids[k] > 0 && WIFEXITED(status[k]) && WEXITSTATUS(status[k]) == 0);
                }
            if (!running) break;
            clip_data *got = NULL;
            if (clip_load(app, path, &got) != CLIP_OK) {
                if (!failed++)
                    snprintf(first_error, sizeof first_error, "%s", clip_app_last_error(app));
            } else if (pair_saver(got) < 0) {
                torn++;
            }
            clip_data_destroy(got);
            loads++;
        }
        clip_data *got = NULL;
        CHECK_OK(app, clip_load(app, path, &got));
        mixed_after += pair_saver(got) < 0;
        clip_data_destroy(got);
    }
    printf("test_save: cfl pair saved by %d processes at once, %d rounds: %d loads, %d torn, %d "
           "failed%s%s; %d rounds left a mixed pair\n",
           SAVERS, ROUNDS, loads, torn, failed, failed ? "; the first: " : "", first_error,
           mixed_after);
    CHECK(torn == 0 && failed == 0 && mixed_after == 0);
    CHECK(tu_count_temporaries(g_dir) == 0);
    for (int k = 0; k < SAVERS; k++)
        clip_data_destroy(d[k]);
}

/* ---------------------------------------------------------------- permissions */

static unsigned mode_of(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0u;
}

/* A save gives a new file the permissions fopen would (0666 less the umask) and keeps an
 * existing file's own, as rewriting it in place would: a file made private stays private. Each
 * file of a CFL pair keeps its own. Both ways a temporary is made (unnamed and named). */
static void test_permissions(clip_app *app) {
    const mode_t old_mask = umask(027);
    const size_t dims[2] = {4, 3};
    clip_data *d = tu_io_data(app, CLIP_F32, 2, dims, 9, 0, 1);
    static const char *const exts[][2] = {
        {"cfl", "cfl"}, {"mat", "mat"}, {"tiff", "tif"}, {"png", "png"}};
    for (int named = 0; named < 2; named++) {
        setenv("CLIP_TEST_SAVE_NAMED", named ? "1" : "0", 1);
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
            if (!clip_io_has(exts[i][0])) continue;
            char name[64], path[512], hdr[512];
            snprintf(name, sizeof name, "perm%d.%s", named, exts[i][1]);
            snprintf(path, sizeof path, "%s", tp(name));
            snprintf(name, sizeof name, "perm%d.hdr", named);
            snprintf(hdr, sizeof hdr, "%s", tp(name));
            const int cfl = i == 0;
            CHECK_OK(app, clip_save(app, path, d));
            CHECK(mode_of(path) == 0640);
            CHECK(!cfl || mode_of(hdr) == 0640);
            CHECK(chmod(path, 0600) == 0);
            CHECK(!cfl || chmod(hdr, 0604) == 0);
            CHECK_OK(app, clip_save(app, path, d));
            if (mode_of(path) != 0600 || (cfl && mode_of(hdr) != 0604))
                fprintf(stderr, "%s saved over: mode %o (was 0600)%s\n", path, mode_of(path),
                        cfl ? ", header's likewise (was 0604)" : "");
            CHECK(mode_of(path) == 0600);
            CHECK(!cfl || mode_of(hdr) == 0604);
            clip_data *back = NULL;
            CHECK_OK(app, clip_load(app, path, &back));
            clip_data_destroy(back);
        }
    }
    unsetenv("CLIP_TEST_SAVE_NAMED");
    umask(old_mask);
    clip_data_destroy(d);
    CHECK(tu_count_temporaries(g_dir) == 0);
}

/* ---------------------------------------------------------------- the clip tool */

/* `clip run scale in.mat -o out.mat` with a 2 MB file-size limit and SIGXFSZ at its default, as
 * a shell gives it: the tool must exit 1 with the reason, not die of the signal. The limit stays
 * above what the OpenCL driver writes on its own (PoCL preprocesses every program into a file at
 * each build, a little over 1 MB for scale's) and below the 4 MB output. */
static void test_tool_file_limit(clip_app *app) {
    const size_t dims[2] = {1000, 1000}; /* 4 MB of single */
    clip_data *d = tu_io_data(app, CLIP_F32, 2, dims, 4, 0, 1);
    CHECK_OK(app, clip_save(app, tp("tool_in.mat"), d));
    clip_data_destroy(d);
    char out[512], err[512];
    snprintf(out, sizeof out, "%s", tp("tool_out.mat"));
    snprintf(err, sizeof err, "%s", tp("tool_stderr.txt"));
    /* Warms the kernel cache first: the driver writes compiled kernels to files too. */
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s run scale %s -o %s", CLIP_TOOL, tp("tool_in.mat"), out);
    CHECK(system(cmd) == 0);
    remove(out);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGXFSZ, SIG_DFL);
        struct rlimit r;
        getrlimit(RLIMIT_FSIZE, &r);
        r.rlim_cur = 2 << 20;
        setrlimit(RLIMIT_FSIZE, &r);
        if (!freopen(err, "w", stderr)) _exit(120);
        execl(CLIP_TOOL, CLIP_TOOL, "run", "scale", tp("tool_in.mat"), "-o", out, (char *)NULL);
        _exit(121);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    size_t n = 0;
    unsigned char *text = tu_read_file(err, &n);
    char msg[512] = "";
    if (text) snprintf(msg, sizeof msg, "%.*s", (int)n, (const char *)text);
    free(text);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1)
        fprintf(stderr, "clip under a file-size limit: %s %d, stderr: %s\n",
                WIFSIGNALED(status) ? "killed by signal" : "exit status",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status), msg);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    CHECK(strstr(msg, "save_mat") && strstr(msg, out) && strstr(msg, strerror(EFBIG)));
    CHECK(!tu_file_exists(out));
    CHECK(tu_count_temporaries(g_dir) == 0);
    printf("test_save: clip tool under a 2 MB file-size limit: %s", msg);
}

int main(void) {
    snprintf(g_dir, sizeof g_dir, "test_save_tmp_XXXXXX");
    tu_scratch_dir(g_dir);
    /* Ignored, a write past the file-size limit fails with EFBIG instead of killing the test. */
    signal(SIGXFSZ, SIG_IGN);
    clip_app *app = tu_app();
    for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++) {
        const writer *w = &writers[i];
        if (w->name && !clip_io_has(w->name)) {
            printf("test_save: %s: skipped: not built in (clip_io_has(\"%s\") is 0)\n", w->name,
                   w->name);
            continue;
        }
        if (w->k == MAT73)
            test_writer_in_child(app, w);
        else
            test_writer(app, w);
    }
    test_concurrent_stores(app);
    {
        static const char *const exts[][2] = {
            {"cfl", "cfl"}, {"mat", "mat"}, {"tiff", "tif"}, {"png", "png"}};
        for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++)
            if (clip_io_has(exts[i][0])) test_load_during_saves(app, exts[i][1]);
    }
    test_concurrent_pair_saves(app);
    test_permissions(app);
    if (clip_io_has("mat"))
        test_tool_file_limit(app);
    else
        printf("test_save: clip tool test: skipped: built without MAT\n");
    clip_app_destroy(app);
    int rc = tu_finish("test_save");
    if (rc == 0 && !getenv("KEEP")) tu_remove_tree(g_dir);
    return rc;
}
