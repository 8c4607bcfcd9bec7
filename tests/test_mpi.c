/* clip-mpi (mpi/clip_mpi.c) under mpirun with 1, 2, 3 and 4 ranks (oversubscribed, PoCL): every
 * process that splits against the same process run whole in this program, and the ranks'
 * results against each other. With --parts fixed the pieces are the same for every rank count,
 * so the results must be bit for bit the same across rank counts. Against the whole run: bit for
 * bit where each piece sums in the whole's order (scale, transpose, conv2 with the global
 * variant); within rounding where the pieces' partials are combined (norm, dot: chunk sums added
 * in piece order instead of one running sum) or the blocks of C pick another GEMM tile than the
 * whole product (matmul). Then a stack larger than one rank's allowed memory (CLIP_TEST_MAX_ALLOC)
 * streamed through each rank, a process that does not split (run whole on rank 0), MAT 7.3
 * inputs read by hyperslab boxes (h5py-made), a bad input on one rank, an input changed during
 * the run, and a rank killed mid-run: the last three must stop every rank with a message naming
 * the rank or the file, and leave no output and no temporary. The --time lines give the bytes
 * each rank read from files: matmul's must add up to A and B once (each distinct box read by one
 * rank and broadcast to the ranks that share it), for every rank count. */
#define _GNU_SOURCE /* sched_getaffinity */
#include <dirent.h>
#include <sched.h>
#include <stdint.h>
#include <unistd.h>

#include "testutil.h"

#ifndef CLIP_MPI
int main(void) {
    return tu_skip("test_mpi", "clip-mpi not built (CLIP_WITH_MPI, MPI not found)");
}
#else

static char dir[] = "/tmp/clip_test_mpi_XXXXXX";
static clip_app *app;

static void path_of(char *buf, size_t cap, const char *name) {
    snprintf(buf, cap, "%s/%s", dir, name);
}

/* Random c32 data saved as NAME.cfl; returned (the caller's). */
static clip_data *make_input(const char *name, int nd, const size_t *dims,
                             unsigned long long seed) {
    clip_data *d = NULL;
    CHECK_OK(app, clip_data_create(app, CLIP_C32, nd, dims, &d));
    if (!d) return NULL;
    float *h = NULL;
    clip_data_host_write(d, (void **)&h);
    for (size_t i = 0; h && i < 2 * clip_data_numel(d); i++)
        h[i] = (float)tu_rand(&seed);
    char base[256];
    path_of(base, sizeof base, name);
    CHECK_OK(app, clip_save_cfl(app, base, d));
    return d;
}

/* Runs `cmd` (a shell command line, output to a log in dir); its exit status, and the log's text
 * in `log` when asked. */
static int shell(const char *cmd, char *log, size_t cap) {
    char full[8192], lp[256];
    path_of(lp, sizeof lp, "log.txt");
    snprintf(full, sizeof full, "{ %s\n} >%s 2>&1", cmd, lp);
    int st = system(full);
    if (log) {
        FILE *f = fopen(lp, "r");
        size_t n = f ? fread(log, 1, cap - 1, f) : 0;
        log[n] = '\0';
        if (f) fclose(f);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* mpirun of clip-mpi: `pre` (NULL: none) runs before mpirun in the same shell, `wrap` (NULL:
 * none) before clip-mpi on each rank. */
static int mpirun_with(int ranks, const char *env, const char *pre, const char *wrap,
                       const char *args, char *log, size_t cap) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "cd %s && %s env %s OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
             "OMPI_MCA_rmaps_base_oversubscribe=1 POCL_DEVICES=pthread ASAN_OPTIONS=detect_leaks=0 "
             "mpirun --oversubscribe -np %d %s %s %s",
             dir, pre ? pre : "", env ? env : "", ranks, wrap ? wrap : "", CLIP_MPI, args);
    return shell(cmd, log, cap);
}

static int mpirun(int ranks, const char *env, const char *args, char *log, size_t cap) {
    return mpirun_with(ranks, env, NULL, NULL, args, log, cap);
}

/* Largest |a - b| / max |b| over two loaded CFL pairs (c32); 0 when bitwise equal, INFINITY when
 * either is missing or shapes differ. */
static double diff_cfl(const char *a, const char *b, int *bitwise) {
    char pa[256], pb[256];
    path_of(pa, sizeof pa, a);
    path_of(pb, sizeof pb, b);
    clip_data *x = NULL, *y = NULL;
    double worst = INFINITY;
    *bitwise = 0;
    if (clip_load_cfl(app, pa, &x) == CLIP_OK && clip_load_cfl(app, pb, &y) == CLIP_OK &&
        clip_data_numel(x) == clip_data_numel(y)) {
        const float *hx = NULL, *hy = NULL;
        clip_data_host(x, (const void **)&hx);
        clip_data_host(y, (const void **)&hy);
        size_t n = 2 * clip_data_numel(x);
        *bitwise = memcmp(hx, hy, n * sizeof *hx) == 0;
        double big = 0, e = 0;
        for (size_t i = 0; i < n; i++) {
            big = fabs(hy[i]) > big ? fabs(hy[i]) : big;
            e = fabs((double)hx[i] - hy[i]) > e ? fabs((double)hx[i] - hy[i]) : e;
        }
        worst = big > 0 ? e / big : e;
    }
    clip_data_destroy(x);
    clip_data_destroy(y);
    return worst;
}

typedef struct mcase {
    const char *name, *inputs, *params; /* inputs: file names in dir, space separated */
    int n_in;
    const char *in[2];
    double tol; /* against the whole run; 0: bit for bit */
} mcase;

/* The whole run in this program, saved as NAME-whole.cfl, and as MAT 7.3 variable Y of `mat` when
 * not NULL (clip_save_mat: the single-process MAT 7.3 save). */
static void whole(const mcase *c, clip_data **in, const char *out, const char *mat) {
    clip_process *p = NULL;
    clip_data *o = NULL;
    CHECK_OK(app, clip_process_create(app, c->name, &p));
    char params[256];
    snprintf(params, sizeof params, "%s", c->params);
    char *tok[16];
    int n = 0;
    for (char *t = strtok(params, " "); t && n < 16; t = strtok(NULL, " "))
        tok[n++] = t;
    for (int i = 0; i < n; i++) { /* --NAME VALUE, or a bare --NAME (true) */
        const int bare = i + 1 == n || !strncmp(tok[i + 1], "--", 2);
        CHECK_OK(app, clip_process_set_text(p, tok[i] + 2, bare ? "true" : tok[i + 1]));
        i += !bare;
    }
    for (int i = 0; i < c->n_in; i++)
        CHECK_OK(app, clip_process_set_input(p, i, in[i]));
    CHECK_OK(app, clip_process_init(p));
    CHECK_OK(app, clip_process_launch(p));
    CHECK_OK(app, clip_process_output(p, 0, &o));
    char base[256];
    path_of(base, sizeof base, out);
    if (o) CHECK_OK(app, clip_save_cfl(app, base, o));
    if (o && mat) {
        path_of(base, sizeof base, mat);
        CHECK_OK(app, clip_save_mat(app, base, "Y", o, 1));
    }
    clip_process_destroy(p);
}

/* Sums over the --time lines of every rank: the bytes read from files, received by broadcast,
 * and the bytes of the rank's pieces' boxes (what reading each piece's boxes would read). */
static void bytes_of(const char *log, unsigned long long *files, unsigned long long *received,
                     unsigned long long *boxes, int *lines) {
    *files = *received = *boxes = 0;
    *lines = 0;
    for (const char *l = strstr(log, "; read "); l; l = strstr(l + 1, "; read ")) {
        unsigned long long f = 0, r = 0, b = 0;
        double ms = 0;
        if (sscanf(l, "; read %lf ms (%llu bytes from files, %llu received; its pieces' boxes %llu",
                   &ms, &f, &r, &b) == 4) {
            *files += f, *received += r, *boxes += b;
            ++*lines;
        }
    }
}

/* Every file left in dir whose name starts with `prefix` (an output or its temporaries). */
static int leftovers(const char *prefix) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            fprintf(stderr, "left behind: %s\n", e->d_name);
            n++;
        }
    if (d) closedir(d);
    return n;
}

/* Every temporary left in dir ("*.tmp-*", of any output). */
static int temporaries(void) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".tmp-")) {
            fprintf(stderr, "temporary left: %s\n", e->d_name);
            n++;
        }
    if (d) closedir(d);
    return n;
}

/* MAT 7.3 outputs written by boxes (clip_mat73_writer): matmul's blocks of C on 1 to 4 ranks
 * into mm73-R.mat:C, and scale of a double variable on 2 ranks into s73.mat:Y, against the
 * single-process MAT 7.3 save (clip_save_mat with v7.3) of the same values, read by h5py: the MAT
 * header in the user block, one variable of the same name, HDF5 type, shape and MATLAB_class
 * attribute (its stored string type too), and the same bits; Octave (where installed) loads
 * them equal. Then a bad input on one rank and a rank killed mid-run, writing a MAT output:
 * nothing is left. Needs h5py and a build with HDF5 (the caller's block). */
static void mat_outputs(char *log, size_t cap) {
    char ref[256], cmd[4096];
    clip_data *c1 = NULL;
    path_of(ref, sizeof ref, "matmul-1");
    CHECK_OK(app, clip_load_cfl(app, ref, &c1));
    path_of(ref, sizeof ref, "mm73-ref.mat");
    if (c1) CHECK_OK(app, clip_save_mat(app, ref, "C", c1, 1));
    clip_data_destroy(c1);
    for (int r = 1; r <= 4; r++) {
        char args[256];
        snprintf(args, sizeof args, "run matmul a.cfl b.cfl -o mm73-%d.mat:C --parts 12 --time", r);
        const int rc = mpirun(r, NULL, args, log, cap);
        printf("matmul into MAT 7.3 mm73-%d.mat:C on %d rank%s: exit %d\n", r, r, r > 1 ? "s" : "",
               rc);
        if (rc) fprintf(stderr, "%s", log);
        CHECK(rc == 0);
    }
    int rc =
        mpirun(2, NULL, "run scale a73.mat:y -o s73.mat:Y --a 3 --b -0.5 --parts 12", log, cap);
    printf("scale of a double variable into MAT 7.3 s73.mat:Y on 2 ranks: exit %d\n", rc);
    CHECK(rc == 0);
    snprintf(
        cmd, sizeof cmd,
        "cd %s && /usr/bin/python3 -c \"\n"
        "import h5py, sys\n"
        "def look(fn):\n"
        "    head = open(fn, 'rb').read(128)\n"
        "    f = h5py.File(fn, 'r')\n"
        "    (name, d), = f.items()\n"
        "    t = d.attrs.get_id('MATLAB_class').get_type()\n"
        "    return (f.userblock_size, head[:19], head[124:], name, d.dtype, d.shape,\n"
        "            d.attrs['MATLAB_class'], t.get_size(), t.get_strpad()), d[...].tobytes()\n"
        "bad = 0\n"
        "for got, want in [('mm73-%%d.mat' %% r, 'mm73-ref.mat') for r in (1, 2, 3, 4)] + "
        "[('s73.mat', 's73-whole.mat')]:\n"
        "    (hg, bg), (hw, bw) = look(got), look(want)\n"
        "    same = hg == hw and bg == bw\n"
        "    print(got, hg, 'against', want, 'bit for bit' if same else 'DIFFERS', "
        "'' if hg == hw else hw)\n"
        "    bad += not same\n"
        "sys.exit(bad)\n"
        "\"",
        dir);
    rc = shell(cmd, log, cap);
    printf("%s", log);
    CHECK(rc == 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && command -v octave >/dev/null && octave --no-gui --no-window-system --quiet "
             "--eval \"x = load('mm73-3.mat'); y = load('mm73-ref.mat'); "
             "z = load('s73.mat'); w = load('s73-whole.mat'); "
             "printf('octave: mm73-3.mat C %%dx%%d complex %%d, equal to the single-process save "
             "%%d; s73.mat Y equal %%d\\\\n', size(x.C), iscomplex(x.C), isequal(x.C, y.C), "
             "isequal(z.Y, w.Y)); exit(!(isequal(x.C, y.C) && iscomplex(x.C) && isequal(z.Y, "
             "w.Y)))\" 2>/dev/null",
             dir);
    rc = shell(cmd, log, cap);
    char *said = strstr(log, "octave: ");
    if (said) {
        printf("%.*s\n", (int)strcspn(said, "\n"), said);
        CHECK(rc == 0);
    } else {
        printf("Octave: skipped (not installed, or it could not run: exit %d)\n", rc);
    }
    rc = mpirun(3, "CLIP_TEST_MPI_BAD_RANK=1", "run scale a.cfl -o bad73.mat --parts 12", log, cap);
    printf("bad input on rank 1 of 3, MAT 7.3 output: exit %d\n", rc);
    CHECK(rc != 0 && strstr(log, "rank 1 of 3") && strstr(log, "a.missing.hdr: No such file"));
    CHECK(leftovers("bad73") == 0);
    rc = mpirun(3, "CLIP_TEST_MPI_KILL_RANK=1", "run scale a.cfl -o killed73.mat:Z --parts 12", log,
                cap);
    printf("rank 1 of 3 killed, MAT 7.3 output: exit %d\n", rc);
    CHECK(rc != 0 && strstr(log, "rank 1") && strstr(log, "signal 9"));
    CHECK(leftovers("killed73") == 0 && temporaries() == 0);
    /* A MAT word clip run refuses gets clip run's own sentence. */
    rc = mpirun(2, NULL, "run scale a.cfl -o named73.mat: --parts 12", log, cap);
    printf("output x.mat: with no variable: exit %d\n", rc);
    CHECK(rc != 0 && strstr(log, "name a variable after the ':'") && leftovers("named73") == 0);
}

int main(void) {
    setenv("POCL_DEVICES", "pthread", 0);
    if (!mkdtemp(dir)) return 2;
    app = tu_app();
    const size_t da[2] = {300, 200}, db[2] = {200, 150}, dk[2] = {5, 7}, dv[2] = {60000, 1},
                 ds[3] = {40, 30, 24};
    clip_data *a = make_input("a", 2, da, 1), *b = make_input("b", 2, db, 2),
              *k = make_input("k", 2, dk, 3), *v = make_input("v", 2, dv, 4),
              *w = make_input("w", 2, dv, 5), *s = make_input("s", 3, ds, 6);
    clip_data *sq = NULL;
    {
        const size_t dq[2] = {64, 64};
        sq = make_input("q", 2, dq, 7);
    }
    const mcase cases[] = {
        {"scale", "a.cfl", "--a 3 --b -0.5", 1, {"a"}, 0},
        {"transpose", "a.cfl", "--conjugate", 1, {"a"}, 0},
        {"conv2", "a.cfl k.cfl", "--shape same --variant global --separable off", 2, {"a", "k"}, 0},
        {"norm", "v.cfl", "--p 2", 1, {"v"}, 1e-6},
        {"dot", "v.cfl w.cfl", "", 2, {"v", "w"}, 1e-5},
        {"matmul", "a.cfl b.cfl", "", 2, {"a", "b"}, 1e-5},
    };
    clip_data *data[] = {a, b, k, v, w, s};
    const char *names[] = {"a", "b", "k", "v", "w", "s"};
    char log[16384];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const mcase *m = &cases[c];
        clip_data *in[2] = {0};
        for (int i = 0; i < m->n_in; i++)
            for (size_t j = 0; j < sizeof names / sizeof names[0]; j++)
                if (!strcmp(names[j], m->in[i])) in[i] = data[j];
        char wname[64];
        snprintf(wname, sizeof wname, "%s-whole", m->name);
        whole(m, in, wname, NULL);
        for (int r = 1; r <= 4; r++) {
            char args[512], out[64];
            snprintf(out, sizeof out, "%s-%d", m->name, r);
            snprintf(args, sizeof args, "run %s %s -o %s.cfl %s --parts 12 --time", m->name,
                     m->inputs, out, m->params);
            int rc = mpirun(r, NULL, args, log, sizeof log);
            int same_r1 = 0, same_whole = 0;
            char r1[64];
            snprintf(r1, sizeof r1, "%s-1", m->name);
            double d1 = diff_cfl(out, r1, &same_r1), dw = diff_cfl(out, wname, &same_whole);
            printf("%-9s %d rank%s: exit %d; against 1 rank %s; against whole %s (%.3g)\n", m->name,
                   r, r == 1 ? " " : "s", rc, same_r1 ? "bit for bit" : "DIFFERS",
                   same_whole ? "bit for bit" : "within rounding", dw);
            if (rc) fprintf(stderr, "%s", log);
            CHECK(rc == 0);
            CHECK(same_r1 && d1 == 0);
            CHECK(m->tol == 0 ? same_whole : dw <= m->tol);
            /* every distinct box of the inputs is read from its file once, by one rank, and
             * broadcast to the ranks that share it; with matmul's blocks (op(A)'s row bands by
             * op(B)'s column bands) that is all of A and all of B once, however many ranks */
            unsigned long long files = 0, recv = 0, boxes = 0;
            int lines = 0;
            bytes_of(log, &files, &recv, &boxes, &lines);
            CHECK(lines == r);
            if (!strcmp(m->name, "matmul")) {
                const unsigned long long ab = 8ULL * (da[0] * da[1] + db[0] * db[1]);
                printf("          read from files %llu bytes in all (A and B: %llu), received "
                       "%llu, pieces' boxes %llu\n",
                       files, ab, recv, boxes);
                CHECK(files == ab);
                CHECK(boxes > 4 * ab); /* what each piece reading its own boxes would read */
                CHECK(r < 4 || strstr(log, "dealt over a 2 x 2 grid of ranks") != NULL);
            }
        }
    }
    /* a stack larger than one rank's allowed memory: pieces streamed through each rank */
    {
        const mcase m = {"conv2", "s.cfl k.cfl", "--shape same --variant global --separable off",
                         2,       {"s", "k"},    0};
        clip_data *in[2] = {s, k};
        whole(&m, in, "stack-whole", NULL);
        int same = 0;
        int rc = mpirun(3, "CLIP_TEST_MAX_ALLOC=40000",
                        "run conv2 s.cfl k.cfl -o stack-3.cfl --shape same --variant global "
                        "--separable off --time",
                        log, sizeof log);
        double dw = diff_cfl("stack-3", "stack-whole", &same);
        printf("conv2 of a 40x30x24 c32 stack (115 kB) by ranks allowed 40000 bytes: exit %d, "
               "%s (%.3g)\n%s",
               rc, same ? "bit for bit" : "DIFFERS", dw, log);
        CHECK(rc == 0 && same);
        CHECK(strstr(log, "rank 2 of 3") != NULL && strstr(log, "read ") != NULL);
    }
    /* a process with no plan runs whole on rank 0 */
    {
        const mcase m = {"matpow", "q.cfl", "--power 3", 1, {"q"}, 0};
        clip_data *in[1] = {sq};
        whole(&m, in, "matpow-whole", NULL);
        int same = 0;
        int rc = mpirun(2, NULL, "run matpow q.cfl -o matpow-2.cfl --power 3", log, sizeof log);
        diff_cfl("matpow-2", "matpow-whole", &same);
        printf("matpow (no plan) on 2 ranks: exit %d, %s\n", rc, same ? "bit for bit" : "DIFFERS");
        CHECK(rc == 0 && same);
    }
    /* a bad input on one rank: every rank stops, the message names it, nothing is left */
    {
        int rc = mpirun(3, "CLIP_TEST_MPI_BAD_RANK=1", "run scale a.cfl -o bad.cfl --parts 12", log,
                        sizeof log);
        printf("bad input on rank 1 of 3: exit %d\n%s", rc, log);
        CHECK(rc != 0);
        CHECK(strstr(log, "rank 1 of 3") && strstr(log, "a.missing.hdr: No such file"));
        CHECK(strstr(log, "every rank stops (running the pieces): rank 1 failed") != NULL);
        CHECK(leftovers("bad") == 0);
        /* the reader of boxes that other ranks wait for: it says that it failed, and they stop
         * without being blamed */
        rc = mpirun(4, "CLIP_TEST_MPI_BAD_RANK=1", "run matmul a.cfl b.cfl -o bad.cfl --parts 12",
                    log, sizeof log);
        printf("bad input on rank 1 of 4, a reader of shared boxes (matmul): exit %d\n%s", rc, log);
        CHECK(rc != 0);
        CHECK(strstr(log, "rank 1 of 4") && strstr(log, ".missing.hdr: No such file"));
        CHECK(strstr(log, "every rank stops (running the pieces): rank 1 failed\n") != NULL);
        CHECK(leftovers("bad") == 0);
    }
    /* MAT 7.3 inputs read by hyperslabs: h5py writes A as a MATLAB 7.3 file (a complex single
     * variable, chunked and compressed as MATLAB writes them; the same values as a real double),
     * and the ranks read boxes of it: the same bits as from a.cfl, and as the whole run */
    {
        int nd = 0;
        size_t md[CLIP_MAX_DIMS];
        clip_type mt;
        char cmd[2048];
        snprintf(cmd, sizeof cmd,
                 "cd %s && /usr/bin/python3 -c \"\n"
                 "import numpy as np, h5py\n"
                 "a = np.fromfile('a.cfl', dtype=np.complex64).reshape((300, 200), order='F')\n"
                 "with h5py.File('a73.mat', 'w', userblock_size=512) as f:\n"
                 "    d = np.empty(a.T.shape, dtype=[('real', '<f4'), ('imag', '<f4')])\n"
                 "    d['real'], d['imag'] = a.T.real, a.T.imag\n"
                 "    x = f.create_dataset('x', data=d, chunks=(50, 64), compression='gzip')\n"
                 "    x.attrs['MATLAB_class'] = np.bytes_(b'single')\n"
                 "    y = f.create_dataset('y', data=np.ascontiguousarray(a.T.real.astype('f8')))\n"
                 "    y.attrs['MATLAB_class'] = np.bytes_(b'double')\n"
                 "h = b'MATLAB 7.3 MAT-file, HDF5 schema 1.00 .'.ljust(116) + bytes(8) + "
                 "b'\\x00\\x02IM'\n"
                 "open('a73.mat', 'r+b').write(h.ljust(512, bytes(1)))\n"
                 "\"",
                 dir);
        char probe[256];
        path_of(probe, sizeof probe, "a.cfl");
        if (clip_mat73_shape(app, probe, NULL, &nd, md, &mt) == CLIP_ERR_UNSUPPORTED) {
            printf("MAT 7.3 boxes: skipped (%s)\n", clip_app_last_error(app));
        } else if (shell(cmd, log, sizeof log) != 0) {
            printf("MAT 7.3 boxes: skipped (h5py could not write the file: %s)\n", log);
        } else {
            char m73[256];
            path_of(m73, sizeof m73, "a73.mat");
            CHECK_OK(app, clip_mat73_shape(app, m73, "x", &nd, md, &mt));
            CHECK(nd == 2 && md[0] == 300 && md[1] == 200 && mt == CLIP_C32);
            int same = 0, same2 = 0, same3 = 0;
            int rc = mpirun(3, NULL, "run matmul a73.mat:x b.cfl -o mm73.cfl --parts 12", log,
                            sizeof log);
            diff_cfl("mm73", "matmul-1", &same);
            printf("matmul of MAT 7.3 x (c32, chunked, gzip) by b.cfl on 3 ranks: exit %d, "
                   "against a.cfl's %s\n",
                   rc, same ? "bit for bit" : "DIFFERS");
            if (rc) fprintf(stderr, "%s", log);
            CHECK(rc == 0 && same);
            rc = mpirun(2, NULL, "run scale a73.mat:y -o s73.cfl --a 3 --b -0.5 --parts 12", log,
                        sizeof log);
            clip_data *y = NULL;
            CHECK_OK(app, clip_load_mat(app, m73, "y", &y));
            const mcase m = {"scale", "", "--a 3 --b -0.5", 1, {"y"}, 0};
            clip_data *in[1] = {y};
            whole(&m, in, "s73-whole", "s73-whole.mat");
            diff_cfl("s73", "s73-whole", &same2);
            /* a box loaded alone against the whole variable */
            clip_box bx = {{120, 35}, {70, 90}};
            for (int d = 2; d < CLIP_MAX_DIMS; d++)
                bx.start[d] = 0, bx.count[d] = 1;
            clip_data *box = NULL;
            CHECK_OK(app, clip_load_mat73_box(app, m73, "y", &bx, &box));
            const double *hb = NULL, *hy = NULL;
            if (box && y) {
                clip_data_host(box, (const void **)&hb);
                clip_data_host(y, (const void **)&hy);
                same3 = clip_data_type(box) == CLIP_F64;
                for (size_t j = 0; same3 && j < 90; j++)
                    for (size_t i = 0; i < 70; i++)
                        same3 &= hb[j * 70 + i] == hy[(35 + j) * 300 + 120 + i];
            }
            printf("scale of MAT 7.3 y (f64) on 2 ranks: exit %d, against the whole run %s; a "
                   "70x90 box of y %s\n",
                   rc, same2 ? "bit for bit" : "DIFFERS",
                   same3 ? "equals the variable's" : "DIFFERS");
            CHECK(rc == 0 && same2 && same3);
            clip_data_destroy(box);
            clip_data_destroy(y);
            mat_outputs(log, sizeof log);
        }
    }
    /* an input changed during the run (rank 1 negates its first sample after its first piece):
     * detected before the output is committed, nothing left */
    {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "cp %s/a.cfl %s/m.cfl && cp %s/a.hdr %s/m.hdr", dir, dir, dir,
                 dir);
        CHECK(shell(cmd, NULL, 0) == 0);
        int rc = mpirun(3, "CLIP_TEST_MPI_CHANGE_RANK=1",
                        "run scale m.cfl -o changed.cfl --parts 12", log, sizeof log);
        printf("m.cfl changed during the run by rank 1 of 3: exit %d\n%s", rc, log);
        CHECK(rc != 0);
        CHECK(strstr(log, "rank 1 of 3") && strstr(log, "m.cfl changed during the run"));
        CHECK(leftovers("changed") == 0);
        /* the same change with the files' identities not compared (a file system whose times did
         * not move, or a writer that restored them): the checksums of the boxes read again
         * after every rank's pieces find it */
        CHECK(shell(cmd, NULL, 0) == 0);
        rc = mpirun(3, "CLIP_TEST_MPI_CHANGE_RANK=1 CLIP_TEST_MPI_NO_STAT_CHECK=1",
                    "run scale m.cfl -o changed.cfl --parts 12", log, sizeof log);
        printf("m.cfl changed during the run by rank 1 of 3, identities not compared: exit %d\n%s",
               rc, log);
        CHECK(rc != 0);
        CHECK(strstr(log, "m.cfl changed during the run: its box (1:") &&
              strstr(log, "(checksum)") && strstr(log, "every rank stops (checking the inputs)"));
        CHECK(leftovers("changed") == 0);
        /* unchanged, the check reads again every byte each rank read from the files */
        CHECK(shell(cmd, NULL, 0) == 0);
        rc = mpirun(3, NULL, "run scale m.cfl -o same.cfl --parts 12 --time", log, sizeof log);
        unsigned long long files = 0, recv = 0, boxes = 0, again = 0;
        int lines = 0;
        bytes_of(log, &files, &recv, &boxes, &lines);
        for (const char *l = strstr(log, "; check "); l; l = strstr(l + 1, "; check ")) {
            double ms = 0;
            unsigned long long n = 0;
            if (sscanf(l, "; check %lf ms (%llu bytes read again)", &ms, &n) == 2) again += n;
        }
        printf("unchanged on 3 ranks: exit %d; %llu bytes read from files, %llu read again\n", rc,
               files, again);
        CHECK(rc == 0 && lines == 3 && files == 8ULL * 300 * 200 && again == files);
    }

    /* A rank killed mid-run (SIGKILL after its first piece): mpirun sends the others SIGTERM,
     * and SIGKILL once the first of them has exited, so the rank that exits first must have
     * removed the output's temporary (clip_mpi.c, job_watch). Killed: a joiner (rank 2); the
     * output's creator (rank 0: the others remove the temporary it made); a joiner while rank 0
     * runs at nice 19 on a CPU that a busy loop holds, the others on another CPU, so that rank 1
     * exits before rank 0 runs its handler (as a loaded CI machine did: the temporary was left
     * in 12 of 12 such runs before every rank removed it), twice (7-8 s each: rank 0 runs
     * slowly throughout). */
    {
        cpu_set_t set;
        int cpu[2] = {0, 0}, found = 0;
        if (sched_getaffinity(0, sizeof set, &set) == 0)
            for (int c = 0; c < CPU_SETSIZE && found < 2; c++)
                if (CPU_ISSET(c, &set)) cpu[found++] = c;
        if (found == 1) cpu[1] = cpu[0];
        char pre[256], wrap[512];
        snprintf(pre, sizeof pre,
                 "{ timeout 60 taskset -c %d sh -c 'while :; do :; done' & } && hog=$! &&", cpu[0]);
        snprintf(wrap, sizeof wrap,
                 "--bind-to none sh -c 'if [ \"$OMPI_COMM_WORLD_RANK\" = 0 ]; then exec taskset -c "
                 "%d nice -n 19 \"$0\" \"$@\"; else exec taskset -c %d \"$0\" \"$@\"; fi'",
                 cpu[0], cpu[1]);
        const struct {
            const char *env, *what;
            int slow;
        } kills[] = {
            {"CLIP_TEST_MPI_KILL_RANK=2", "rank 2 of 3 killed", 0},
            {"CLIP_TEST_MPI_KILL_RANK=0", "rank 0 of 3 (the output's creator) killed", 0},
            {"CLIP_TEST_MPI_KILL_RANK=2", "rank 2 of 3 killed, rank 0 slowed", 1},
            {"CLIP_TEST_MPI_KILL_RANK=2", "rank 2 of 3 killed, rank 0 slowed", 1},
        };
        for (size_t i = 0; i < sizeof kills / sizeof kills[0]; i++) {
            char args[256];
            snprintf(args, sizeof args, "run scale a.cfl -o killed.cfl --parts 12%s",
                     kills[i].slow ? "; rc=$?; kill $hog; exit $rc" : "");
            int rc = mpirun_with(3, kills[i].env, kills[i].slow ? pre : NULL,
                                 kills[i].slow ? wrap : NULL, args, log, sizeof log);
            printf("%s: exit %d\n%s", kills[i].what, rc, log);
            CHECK(rc != 0);
            CHECK(strstr(log, "signal 9") != NULL);
            CHECK(leftovers("killed") == 0 && temporaries() == 0);
            char rm[512]; /* what a failure left, so that each run is judged alone */
            snprintf(rm, sizeof rm, "rm -f %s/killed* %s/*.tmp-*", dir, dir);
            CHECK(shell(rm, NULL, 0) == 0);
        }
    }
    /* an MPI call that fails (MPI_ERR_ROOT on rank 1): the error handler removes the
     * temporaries, says what MPI said, and every rank stops */
    {
        int rc = mpirun(3, "CLIP_TEST_MPI_ERROR_RANK=1", "run scale a.cfl -o mpierr.cfl --parts 12",
                        log, sizeof log);
        printf("an MPI error on rank 1 of 3: exit %d\n%s", rc, log);
        CHECK(rc != 0);
        CHECK(strstr(log, "rank 1 of 3") && strstr(log, "MPI failed: MPI_ERR_ROOT"));
        CHECK(leftovers("mpierr") == 0 && temporaries() == 0);
    }
    clip_data_destroy(a), clip_data_destroy(b), clip_data_destroy(k), clip_data_destroy(v);
    clip_data_destroy(w), clip_data_destroy(s), clip_data_destroy(sq);
    clip_app_destroy(app);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf %s", dir);
    if (system(rm) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return tu_finish("test_mpi");
}
#endif
