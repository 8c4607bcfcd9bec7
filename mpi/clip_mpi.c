/* clip-mpi: `clip run` over MPI ranks, one rank per device.
 *
 *   mpirun -np R clip-mpi run NAME IN... -o OUT [--PARAM VALUE]... [--parts P]
 *                                                [--device SPEC] [--time]
 *   IN, OUT: x.cfl, or a MAT 7.3 variable x.mat / x.mat:NAME
 *
 * A thin layer over the plan (clip/plan.h): it never names a process. Rank 0 plans the process
 * from the inputs' shapes (clip_process_plan over P parts, default R) and broadcasts the pieces
 * as plain data, so every rank runs the same pieces whatever its device or tuning cache says.
 * Every rank derives the same schedule from them (schedule.h: which rank runs which piece, over
 * a 2-D grid of ranks where the pieces are the pairs of two inputs' boxes; each distinct input
 * box read from its file once, by one rank, and broadcast to the ranks that need it). A rank
 * runs its pieces in order while its I/O thread (io_thread.h) reads the next piece's boxes and
 * writes the previous piece's output boxes into one output file at their offsets
 * (clip_cfl_writer, clip_mat73_writer: outputs.h); partials of combined outputs (norm, dot) are
 * gathered to rank 0 and combined in piece order by the process's own combine
 * (clip_process_combine). With the same P the result is the same for every R. The output appears
 * whole under its name after every rank's writes are on disk (rank 0 commits after an agreement),
 * or not at all. A rank that fails says so, naming itself and the cause; every rank then stops (an
 * agreement after each phase), and the temporary is removed. An input whose identity (inode, size,
 * times) changed during the run, or whose boxes read again after every rank's pieces differ from
 * what was read (checksums, feed_verify), stops every rank before the commit. A rank that dies is
 * mpirun's to report: it stops every other rank (SIGTERM, then SIGKILL), and every rank that knows
 * the output temporaries removes them on SIGTERM or SIGINT (the first to exit has; job_watch says
 * why rank 0 alone would not do), on an MPI error (on_mpi_error, then MPI_Abort) and at an exit;
 * no rank returns before rank 0 committed or removed them (the last agreement). Device: --device
 * SPEC, else device (local rank mod devices) + 1 of `clip devices`. Test hooks (environment):
 * CLIP_TEST_MPI_BAD_RANK=r makes rank r read its inputs under a name that does not exist;
 * CLIP_TEST_MPI_KILL_RANK=r makes rank r kill itself (SIGKILL) after its first piece;
 * CLIP_TEST_MPI_ERROR_RANK=r makes rank r call MPI_Bcast with a root no rank has after its first
 * piece (an MPI error: MPI_ERR_ROOT);
 * CLIP_TEST_MPI_CHANGE_RANK=r makes rank r change its first input's file after its first piece;
 * CLIP_TEST_MPI_NO_STAT_CHECK=1 skips the check of the inputs' identities (as on a file system
 * whose times did not move), leaving the checksums to find a change. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clip/clip.h"
#include "clip/plan.h"
#include "feed.h"
#include "inputs.h"
#include "io_thread.h"
#include "outputs.h"
#include "ranks.h"
#include "run_args.h"
#include "schedule.h"

_Static_assert(RUN_ARGS_MAX <= FEED_MAX_INPUTS, "a feed holds every input clip run takes");

int rank, ranks;
char host[64];
/* The placed outputs' temporaries that this rank joined (rank 0 made them; its own saves' table
 * already holds them), watched through the library (clip_save_watch_temporary) so that every
 * rank, not only rank 0, removes them when it ends before the commit: when a rank dies, Open MPI
 * 4.1's mpirun sends the others SIGCONT, SIGTERM a second later, and SIGKILL after one more
 * second of sleep(), which a signal cuts short and nothing resumes; the SIGCHLD of the first rank
 * to exit on its SIGTERM thus brings SIGKILL to the rest at once, and a rank 0 that was not
 * scheduled in that moment (a loaded machine) never ran its handler. The first rank to exit has
 * removed them. */
static clip_save_watch *job_watch[RUN_ARGS_MAX];

/* clip_save_remove_temporaries removes this rank's own saves' temporaries and the watched ones
 * (async-signal-safe). */
static void on_term(int sig) {
    clip_save_remove_temporaries();
    _exit(128 + sig);
}

/* MPI_COMM_WORLD's error handler, inherited by every communicator split from it: an MPI call
 * that fails (a peer that died, a broken link) would otherwise end this rank in Open MPI's
 * MPI_ERRORS_ARE_FATAL with the temporaries left. Open MPI 4.1 has no way to say which peer
 * failed (no ULFM); MPI's own words say what. */
static void on_mpi_error(MPI_Comm *comm, int *code, ...) {
    (void)comm;
    char text[MPI_MAX_ERROR_STRING] = "";
    int n = 0;
    MPI_Error_string(*code, text, &n);
    clip_save_remove_temporaries();
    say("MPI failed: %s; every rank stops, nothing is saved", text);
    MPI_Abort(MPI_COMM_WORLD, 1);
    _exit(1);
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* When each of this rank's phases ended (now_ms), for --time: what the per-piece times leave
 * out (MPI's start, the device's, the plan, the output files' layout, the agreements, the
 * commit) is where a run of few pieces spends its time. */
static struct { double start, mpi, device, plan, ready, pieces, checked, done; } at;

void say(const char *fmt, ...) {
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "clip-mpi: rank %d of %d (%s): %s\n", rank, ranks, host, msg);
    fflush(stderr);
}

static void bcast_bytes(void *p, size_t n) {
    bcast_on(p, n, 0, MPI_COMM_WORLD);
}

/* Every rank's agreement that all went well: 1, or 0 on every rank when any rank failed (rank 0
 * then lists the failed ranks; each said its own cause). */
static int agree(int ok, const char *phase) {
    int *all = rank == 0 ? calloc((size_t)ranks, sizeof *all) : NULL;
    MPI_Gather(&ok, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int every = 0;
    MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    static int told; /* the first failure is told; later phases only follow it */
    if (!every && rank == 0 && all && !told++) {
        char list[1024] = "";
        size_t off = 0;
        for (int r = 0; r < ranks && off < sizeof list; r++)
            if (!all[r])
                off += (size_t)snprintf(list + off, sizeof list - off, "%s%d", off ? ", " : "", r);
        fprintf(stderr, "clip-mpi: every rank stops (%s): rank %s failed\n", phase, list);
    }
    free(all);
    return every;
}

typedef struct times {
    double read, compute, write; /* what this rank's own thread spent waiting or computing */
    double io_write;             /* the I/O thread's time writing this rank's output boxes */
    double check;                /* reading its boxes again to compare their checksums */
    uint64_t check_bytes;
    char pieces[1024];
    size_t n;
} times;

static int set_params(clip_process *p, const run_args *a) {
    for (int i = 0; i < a->n_params; i++)
        if (clip_process_set_text(p, a->params[i][0], a->params[i][1] ? a->params[i][1] : "true") !=
            CLIP_OK)
            return 0;
    return 1;
}

static int usage(void) {
    if (rank == 0)
        fprintf(stderr, "usage: mpirun -np R clip-mpi run NAME IN... -o OUT [--PARAM V]... "
                        "[--parts P] [--device SPEC] [--time]\n"
                        "  IN, OUT: x.cfl, or a MAT 7.3 variable x.mat or x.mat:NAME\n");
    return 2;
}

static clip_app *open_app(const run_args *a) {
    clip_criteria c;
    memset(&c, 0, sizeof c);
    if (a->device) {
        if (clip_criteria_from_spec(a->device, &c) != CLIP_OK) return NULL;
    } else {
        MPI_Comm local;
        int lrank = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
        MPI_Comm_rank(local, &lrank);
        MPI_Comm_free(&local);
        size_t n = 0;
        if (clip_devices_list(NULL, 0, &n) != CLIP_OK || n == 0) return NULL;
        c.ignore_env = 1;
        c.n_indices = 1;
        c.indices[0] = (int)((size_t)lrank % n) + 1;
    }
    clip_app *app = NULL;
    return clip_app_create(&app, &c) == CLIP_OK ? app : NULL;
}

/* Fills *x from an IN or OUT word (input_parse), saying why not: 1, or 0. */
static int parse_word(const char *word, int output, input *x) {
    char why[256];
    if (!input_parse(word, output, x, why, sizeof why)) {
        if (why[0])
            say("%s", why);
        else if (output)
            say("%s: clip-mpi writes .cfl outputs and MAT 7.3 variables (x.mat, x.mat:NAME), "
                "by boxes",
                word);
        else
            say("%s: clip-mpi reads .cfl inputs and MAT 7.3 variables (x.mat, x.mat:NAME), "
                "by boxes; convert it with clip run",
                word);
        return 0;
    }
    if (!x->file || !x->base) {
        say("out of memory");
        return 0;
    }
    return 1;
}

/* Frees what parse_word made for every input and output. */
static void free_words(input *in, input *out) {
    for (int i = 0; i < RUN_ARGS_MAX; i++)
        free(in[i].file), free(in[i].base), free(out[i].file), free(out[i].base);
}

static int run(clip_app *app, const char *name, const run_args *a, int parts) {
    const int n_in = a->n_inputs, n_out = a->n_outputs;
    input in_[RUN_ARGS_MAX], out_[RUN_ARGS_MAX];
    memset(in_, 0, sizeof in_);
    memset(out_, 0, sizeof out_);
    int ok = 1;
    /* 1. inputs: CFL pairs and MAT 7.3 variables (read by boxes), the same on every rank */
    for (int i = 0; i < n_in && ok; i++) {
        ok = parse_word(a->inputs[i], 0, &in_[i]);
        if (ok &&
            (in_[i].mat ? clip_mat73_shape(app, in_[i].file, in_[i].var, &in_[i].nd, in_[i].dims,
                                           &in_[i].type)
                        : clip_cfl_shape(app, in_[i].base, &in_[i].nd, in_[i].dims)) != CLIP_OK) {
            say("%s", clip_app_last_error(app));
            ok = 0;
        }
    }
    for (int i = 0; i < n_out && ok; i++)
        ok = parse_word(a->outputs[i], 1, &out_[i]);
    unsigned long long fp[RUN_ARGS_MAX] = {0}, lo[RUN_ARGS_MAX], hi[RUN_ARGS_MAX];
    identity ident[RUN_ARGS_MAX];
    memset(ident, 0, sizeof ident);
    for (int i = 0; i < n_in && ok; i++) {
        fp[i] = fingerprint(in_[i].file, in_[i].nd, in_[i].dims, in_[i].type);
        identity_of(in_[i].file, &ident[i]);
    }
    if (agree(ok, "reading the inputs' headers")) {
        MPI_Allreduce(fp, lo, n_in, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(fp, hi, n_in, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        for (int i = 0; i < n_in && ok; i++)
            if (lo[i] != hi[i] && fp[i] != lo[i]) {
                say("%s differs from rank 0's view of it (shape, size or modification time): "
                    "every rank must read the same file",
                    a->inputs[i]);
                ok = 0;
            }
        ok = agree(ok, "comparing the inputs between ranks");
    } else {
        ok = 0;
    }
    /* 2. the plan, made on rank 0 and sent as plain data */
    clip_process *p = NULL, *q[2] = {NULL, NULL};
    clip_plan_info info;
    memset(&info, 0, sizeof info);
    const int go = ok;
    if (go && rank == 0) {
        clip_data *shape[RUN_ARGS_MAX] = {0};
        ok = clip_process_create(app, name, &p) == CLIP_OK && set_params(p, a);
        for (int i = 0; i < n_in && ok; i++) {
            ok = clip_data_create_deferred(app, in_[i].type, in_[i].nd, in_[i].dims, &shape[i]) ==
                     CLIP_OK &&
                 clip_process_set_input(p, i, shape[i]) == CLIP_OK;
        }
        if (ok) ok = clip_process_plan(p, parts, &info) == CLIP_OK;
        if (!ok) say("%s", clip_app_last_error(app));
        for (int i = 0; i < n_in; i++)
            clip_data_destroy(shape[i]);
    }
    if (go) ok = agree(ok, "planning");
    size_t head[2] = {info.n, 0};
    if (ok) {
        bcast_bytes(head, sizeof head);
        if (rank) {
            info.n = head[0];
            info.pieces = info.n ? malloc(info.n * sizeof *info.pieces) : NULL;
            if (info.n && !info.pieces) {
                say("out of memory for %zu pieces", info.n);
                ok = 0;
            }
        }
        ok = agree(ok, "receiving the plan");
    }
    if (ok) {
        bcast_bytes(info.pieces, info.n * sizeof *info.pieces);
        bcast_bytes(info.combined, sizeof info.combined);
        bcast_bytes(info.out_type, sizeof info.out_type);
        bcast_bytes(info.out_ndims, sizeof info.out_ndims);
        bcast_bytes(info.out_dims, sizeof info.out_dims);
        info.n_inputs = n_in;
        info.n_outputs = n_out;
    }
    at.plan = now_ms();
    /* 3. a process that does not split runs whole on rank 0 */
    if (ok && info.n == 0) {
        if (rank == 0) {
            clip_data *in[RUN_ARGS_MAX] = {0}, *o = NULL;
            clip_process *w = NULL;
            clip_status s = clip_process_create(app, name, &w);
            if (s == CLIP_OK && !set_params(w, a)) s = CLIP_ERR_INVALID_ARG;
            for (int i = 0; i < n_in && s == CLIP_OK; i++)
                if ((s = clip_load_with(app, in_[i].file, &(clip_load_opts){.var = in_[i].var},
                                        &in[i])) == CLIP_OK)
                    s = clip_process_set_input(w, i, in[i]);
            if (s == CLIP_OK) s = clip_process_init(w);
            if (s == CLIP_OK) s = clip_process_launch(w);
            for (int j = 0; j < n_out && s == CLIP_OK; j++)
                if ((s = clip_process_output(w, j, &o)) == CLIP_OK)
                    s = out_save_whole(app, &out_[j], o);
            if (s != CLIP_OK) say("%s (run whole on rank 0)", clip_app_last_error(app));
            ok = s == CLIP_OK;
            clip_process_destroy(w);
            for (int i = 0; i < n_in; i++)
                clip_data_destroy(in[i]);
        }
        ok = agree(ok, "running whole on rank 0");
        if (rank == 0 && ok && a->time) printf("rank 0: ran whole (the process made no pieces)\n");
        clip_process_destroy(p);
        free_words(in_, out_);
        return ok ? 0 : 1;
    }
    /* 4. output files: rank 0 makes each placed one's temporary, the others join it */
    out_writer wr[RUN_ARGS_MAX];
    memset(wr, 0, sizeof wr);
    for (int j = 0; j < n_out && ok; j++) {
        if (info.combined[j]) continue;
        char temp[4096] = "";
        if (rank == 0) {
            if (out_create(app, &out_[j], &info, j, &wr[j]) != CLIP_OK) {
                say("%s", clip_app_last_error(app));
                ok = 0;
            } else {
                snprintf(temp, sizeof temp, "%s", out_temp(&wr[j]));
            }
        }
        if (!agree(ok, "creating the output file")) {
            ok = 0;
            break;
        }
        bcast_bytes(temp, sizeof temp);
        if (rank && clip_save_watch_temporary(app, temp, &job_watch[j]) != CLIP_OK) {
            say("%s", clip_app_last_error(app));
            ok = 0;
        }
        if (ok && rank && out_join(app, &out_[j], temp, &info, j, &wr[j]) != CLIP_OK) {
            say("%s", clip_app_last_error(app));
            ok = 0;
        }
        ok = agree(ok, "opening the output file");
    }
    /* 5. the schedule: which rank runs which piece, who reads which box (schedule.h) */
    schedule sc;
    memset(&sc, 0, sizeof sc);
    size_t elem[RUN_ARGS_MAX];
    for (int j = 0; j < n_in; j++)
        elem[j] = clip_type_size(in_[j].type);
    if (ok && schedule_make(&info, ranks, elem, &sc) != 0)
        say("out of memory for the schedule"), ok = 0;
    ok = agree(ok, "scheduling the pieces");
    MPI_Comm *comm = ok ? calloc(sc.n_groups + 1, sizeof *comm) : NULL;
    for (size_t g = 0; ok && g < sc.n_groups; g++) /* the same order on every rank */
        MPI_Comm_split(MPI_COMM_WORLD,
                       sc.groups[g * (size_t)ranks + (size_t)rank] ? 0 : MPI_UNDEFINED, rank,
                       &comm[g]);
    size_t mine = 0;
    for (size_t i = 0; ok && i < info.n; i++)
        mine += sc.owner[i] == rank;
    feed f;
    memset(&f, 0, sizeof f);
    f.app = app, f.sc = &sc, f.info = &info, f.comm = comm, f.in = in_;
    const int bad =
        getenv("CLIP_TEST_MPI_BAD_RANK") && atoi(getenv("CLIP_TEST_MPI_BAD_RANK")) == rank;
    for (int j = 0; j < n_in; j++)
        snprintf(f.base[j], sizeof f.base[j], "%s%s", in_[j].base, bad ? ".missing" : "");
    f.held = ok ? calloc(sc.n_boxes + 1, sizeof *f.held) : NULL;
    f.mem = ok ? calloc(sc.n_boxes + 1, sizeof *f.mem) : NULL;
    f.ahead = ok ? calloc(sc.n_boxes + 1, sizeof *f.ahead) : NULL;
    f.last = ok ? calloc(sc.n_boxes + 1, sizeof *f.last) : NULL;
    f.sum = ok ? calloc(sc.n_boxes + 1, sizeof *f.sum) : NULL;
    f.was_read = ok ? calloc(sc.n_boxes + 1, sizeof *f.was_read) : NULL;
    if (ok && (!f.held || !f.mem || !f.ahead || !f.last || !f.sum || !f.was_read || !comm))
        say("out of memory for the schedule"), ok = 0;
    if (ok && io_start(&f.io) != 0) say("cannot start the I/O thread"), ok = 0;
    for (size_t i = 0; ok && i < info.n; i++)
        for (int j = 0; sc.owner[i] == rank && j < n_in; j++)
            f.last[sc.box_of[i * (size_t)n_in + (size_t)j]] = sc.local[i] + 1; /* round + 1 */
    size_t part_bytes[RUN_ARGS_MAX] = {0};
    unsigned char *partials[RUN_ARGS_MAX] = {0};
    for (int j = 0; j < n_out && ok; j++) {
        if (!info.combined[j]) continue;
        part_bytes[j] = clip_type_size(info.out_type[j]);
        for (int d = 0; d < CLIP_MAX_DIMS; d++)
            part_bytes[j] *= info.out_dims[j][d];
        partials[j] = malloc(mine * part_bytes[j] + 1);
        if (!partials[j]) say("out of memory for %zu partials", mine), ok = 0;
    }
    times tm;
    memset(&tm, 0, sizeof tm);
    const char *kill_at = getenv("CLIP_TEST_MPI_KILL_RANK"),
               *change_at = getenv("CLIP_TEST_MPI_CHANGE_RANK"),
               *mpi_error_at = getenv("CLIP_TEST_MPI_ERROR_RANK");
    /* two processes, piece by piece in turn: one's output is written behind while the other
     * computes, with no copy (as the single-host runtime's two lanes a device) */
    for (int l = 0; l < 2 && ok; l++)
        if ((ok = clip_process_create(app, name, &q[l]) == CLIP_OK && set_params(q[l], a)) == 0)
            say("%s", clip_app_last_error(app));
    ok = agree(ok, "preparing the pieces");
    at.ready = now_ms();
    /* Piece k's compute overlaps the I/O thread's reads of piece k + 1's boxes (those this rank
     * reads from the files) and its writes of piece k - 1's output boxes (from the other
     * process's output, kept until that process's next piece). A rank that failed,
     * or lost a box another rank could not read, runs no more pieces but still takes its part
     * in the broadcasts, so that no rank waits on it. */
    f.stopped = !ok;
    size_t next = 0;
    io_job *writing[2][RUN_ARGS_MAX] = {{0}}; /* each process's last piece's output boxes */
    for (size_t i = 0; !f.stopped && i < info.n; i++) {
        if (sc.owner[i] != rank) continue;
        const size_t k = sc.local[i];
        clip_data *in[RUN_ARGS_MAX] = {0}, *out[RUN_ARGS_MAX] = {0};
        double t0 = now_ms();
        while (next < sc.n_shared && sc.boxes[sc.shared[next]].round <= k)
            if (!feed_fetch(&f, sc.shared[next++])) ok = 0;
        for (int j = 0; j < n_in && !f.stopped; j++) {
            const size_t b = sc.box_of[i * (size_t)n_in + (size_t)j];
            if (!f.held[b] && !feed_load(&f, b)) ok = 0;
            f.boxes += sc.boxes[b].bytes;
            in[j] = f.held[b];
        }
        if (f.stopped) break;
        size_t i2 = i + 1; /* this rank's next piece: its file reads go ahead */
        while (i2 < info.n && sc.owner[i2] != rank)
            i2++;
        for (int j = 0; i2 < info.n && j < n_in; j++) {
            const size_t b = sc.box_of[i2 * (size_t)n_in + (size_t)j];
            if (sc.boxes[b].group < 0) feed_read_ahead(&f, b);
        }
        for (size_t s2 = next; i2 < info.n && s2 < sc.n_shared; s2++) {
            const sched_box *x = &sc.boxes[sc.shared[s2]];
            if (x->round > k + 1) break;
            if (x->reader == rank) feed_read_ahead(&f, sc.shared[s2]);
        }
        const int lane = (int)(k % 2);
        double t1 = now_ms();
        for (int j = 0; j < n_out; j++) /* this process's previous output is written */
            if (writing[lane][j] && !write_done(&f, &writing[lane][j], &tm.io_write)) ok = 0;
        double t2 = now_ms();
        if (ok && !(ok = clip_process_run_piece(q[lane], &info, i, in, out) == CLIP_OK))
            say("piece %zu of %zu: %s", i + 1, info.n, clip_app_last_error(app));
        double t3 = now_ms();
        for (int j = 0; j < n_out && ok; j++) {
            const void *h = NULL;
            if (!(ok = clip_data_host(out[j], &h) == CLIP_OK)) {
                say("piece %zu of %zu: %s", i + 1, info.n, clip_app_last_error(app));
            } else if (info.combined[j]) {
                memcpy(partials[j] + k * part_bytes[j], h, part_bytes[j]);
            } else if (!(writing[lane][j] = write_behind(wr[j], out[j], h, &info.pieces[i], j))) {
                say("piece %zu of %zu: out of memory", i + 1, info.n);
                ok = 0;
            } else {
                io_submit(f.io, writing[lane][j]);
            }
        }
        double t4 = now_ms();
        for (size_t b = 0; b < sc.n_boxes; b++) /* boxes no later piece of this rank reads */
            if (f.held[b] && f.last[b] == k + 1) feed_release(&f, b);
        if (!ok) {
            f.stopped = 1;
            break;
        }
        tm.read += t1 - t0, tm.compute += t3 - t2, tm.write += (t2 - t1) + (t4 - t3);
        size_t used = strlen(tm.pieces);
        if (used + 24 < sizeof tm.pieces)
            snprintf(tm.pieces + used, sizeof tm.pieces - used, "%s%zu", tm.n ? "," : "", i + 1);
        else if (used + 4 < sizeof tm.pieces && !strstr(tm.pieces, "..."))
            strcat(tm.pieces, ",...");
        tm.n++;
        if (kill_at && atoi(kill_at) == rank) raise(SIGKILL);
        if (mpi_error_at && atoi(mpi_error_at) == rank) { /* a root no rank has: MPI_ERR_ROOT */
            int x = 0;
            MPI_Bcast(&x, 1, MPI_INT, ranks, MPI_COMM_WORLD);
        }
        if (change_at && atoi(change_at) == rank && tm.n == 1) change_input(in_[0].file);
    }
    while (next < sc.n_shared) /* the broadcasts this rank still belongs to */
        if (!feed_fetch(&f, sc.shared[next++])) ok = 0;
    double tl = now_ms();
    for (int l = 0; l < 2; l++) /* the last pieces' writes */
        for (int j = 0; j < n_out; j++)
            if (writing[l][j] && !write_done(&f, &writing[l][j], &tm.io_write)) ok = 0;
    tm.write += now_ms() - tl;
    for (size_t b = 0; f.ahead && b < sc.n_boxes; b++) /* reads ahead a stop left unused */
        if (f.ahead[b]) {
            io_wait(f.io, f.ahead[b]);
            free(f.ahead[b]->buf);
            free(f.ahead[b]);
        }
    io_stop(f.io);
    for (size_t b = 0; f.held && b < sc.n_boxes; b++)
        if (f.held[b]) feed_release(&f, b);
    ok = agree(ok, "running the pieces");
    at.pieces = now_ms();
    /* an input changed while the pieces read it: the output would mix two versions of it. Every
     * rank has read all it reads (the agreement above), so a file that changed between two
     * ranks' reads differs now from what one of them read: its identity (unless the change kept
     * it), and the checksum of a box read again */
    const int stat_check = !getenv("CLIP_TEST_MPI_NO_STAT_CHECK");
    for (int i = 0; i < n_in && ok && stat_check; i++)
        if (identity_changed(in_[i].file, &ident[i])) {
            say("%s changed during the run (its size, modification time or inode): the output "
                "would mix two versions of it; nothing is saved",
                a->inputs[i]);
            ok = 0;
        }
    if (ok) ok = feed_verify(&f, &tm.check, &tm.check_bytes);
    ok = agree(ok, "checking the inputs");
    at.checked = now_ms();
    /* 6. placed outputs: every rank's writes on disk, then rank 0 commits */
    for (int j = 0; j < n_out; j++)
        if ((wr[j].cfl || wr[j].mat) && rank && out_finish(&wr[j], ok) != CLIP_OK && ok) {
            say("%s", clip_app_last_error(app));
            ok = 0;
        }
    ok = agree(ok, "flushing the output boxes to disk");
    double tw = now_ms();
    for (int j = 0; j < n_out; j++)
        if (wr[j].cfl || wr[j].mat) { /* rank 0 */
            if (out_finish(&wr[j], ok) != CLIP_OK && ok) {
                say("%s", clip_app_last_error(app));
                ok = 0;
            }
        }
    /* No rank ends (a failed rank's exit makes mpirun stop the others) while rank 0 still holds a
     * temporary; after this, none is left for any rank to remove. */
    ok = agree(ok, "committing the output");
    for (int j = 0; j < RUN_ARGS_MAX; j++) {
        clip_save_unwatch(job_watch[j]);
        job_watch[j] = NULL;
    }
    /* 7. combined outputs: partials to rank 0, in piece order, combined there */
    for (int j = 0; j < n_out && ok; j++) {
        if (!info.combined[j]) continue;
        int *counts = NULL, *displs = NULL;
        unsigned char *all = NULL, *ordered = NULL;
        if (rank == 0) {
            counts = calloc((size_t)ranks, sizeof *counts);
            displs = calloc((size_t)ranks, sizeof *displs);
            all = malloc(info.n * part_bytes[j] + 1);
            ordered = malloc(info.n * part_bytes[j] + 1);
            for (size_t i = 0; counts && i < info.n; i++)
                counts[sc.owner[i]] += (int)part_bytes[j];
            for (int r = 1; counts && displs && r < ranks; r++)
                displs[r] = displs[r - 1] + counts[r - 1];
        }
        MPI_Gatherv(partials[j], (int)(mine * part_bytes[j]), MPI_BYTE, all, counts, displs,
                    MPI_BYTE, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            clip_data *y = NULL;
            void *res = NULL;
            ok = counts && displs && all && ordered;
            for (size_t i = 0; ok && i < info.n; i++)
                memcpy(ordered + i * part_bytes[j],
                       all + displs[sc.owner[i]] + sc.local[i] * part_bytes[j], part_bytes[j]);
            ok = ok && clip_process_output(p, j, &y) == CLIP_OK &&
                 clip_data_host_write(y, &res) == CLIP_OK &&
                 clip_process_combine(p, j, ordered, info.n, res) == CLIP_OK &&
                 out_save_whole(app, &out_[j], y) == CLIP_OK;
            if (!ok) say("%s", clip_app_last_error(app));
        }
        free(counts), free(displs), free(all), free(ordered);
        ok = agree(ok, "combining");
    }
    tm.write += now_ms() - tw;
    at.done = now_ms();
    /* 8. --time: each rank's line, printed by rank 0 in rank order */
    if (a->time) {
        char line[1800];
        const clip_device_info *dev = clip_app_device(app);
        snprintf(line, sizeof line,
                 "rank %d of %d (%s, %s): %zu piece%s [%s]; read %.1f ms (%llu bytes from files, "
                 "%llu received; its pieces' boxes %llu bytes), compute %.1f ms, write %.1f ms; "
                 "I/O thread beside them: reads %.1f ms, writes %.1f ms; check %.1f ms (%llu "
                 "bytes read again); phases: MPI start %.0f ms, device %.0f, plan %.0f, output "
                 "files and processes %.0f, pieces %.0f, check %.0f, commit %.0f; %.0f ms in all",
                 rank, ranks, host, dev ? dev->name : "?", tm.n, tm.n == 1 ? "" : "s", tm.pieces,
                 tm.read, (unsigned long long)f.from_files, (unsigned long long)f.received,
                 (unsigned long long)f.boxes, tm.compute, tm.write, f.io_read_ms, tm.io_write,
                 tm.check, (unsigned long long)tm.check_bytes, at.mpi - at.start,
                 at.device - at.mpi, at.plan - at.device, at.ready - at.plan, at.pieces - at.ready,
                 at.checked - at.pieces, at.done - at.checked, at.done - at.start);
        char *lines = rank == 0 ? malloc((size_t)ranks * sizeof line) : NULL;
        MPI_Gather(line, sizeof line, MPI_CHAR, lines, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD);
        if (rank == 0 && lines) {
            printf("plan: %zu pieces over %d rank%s (--parts %d), ", info.n, ranks,
                   ranks == 1 ? "" : "s", parts);
            if (sc.grid_rows)
                printf("dealt over a %d x %d grid of ranks", sc.grid_rows, sc.grid_cols);
            else
                printf("dealt round robin");
            printf("; %zu input boxes, %zu of them read once and broadcast to the ranks that "
                   "share them\n",
                   sc.n_boxes, sc.n_shared);
            for (int r = 0; r < ranks; r++)
                printf("%s\n", lines + (size_t)r * sizeof line);
        }
        free(lines);
    }
    for (int j = 0; j < RUN_ARGS_MAX; j++)
        free(partials[j]);
    free_words(in_, out_);
    for (size_t g = 0; comm && g < sc.n_groups; g++)
        if (comm[g] != MPI_COMM_NULL) MPI_Comm_free(&comm[g]);
    free(comm);
    free(f.held);
    free(f.mem);
    free(f.ahead);
    free(f.last);
    free(f.sum);
    free(f.was_read);
    schedule_free(&sc);
    clip_process_destroy(q[0]);
    clip_process_destroy(q[1]);
    clip_process_destroy(p);
    clip_plan_info_free(&info);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    at.start = now_ms();
    MPI_Init(&argc, &argv);
    at.mpi = now_ms();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    gethostname(host, sizeof host - 1);
    MPI_Errhandler on_error;
    MPI_Comm_create_errhandler(on_mpi_error, &on_error);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, on_error);
    MPI_Errhandler_free(&on_error); /* the communicator keeps it */
    struct sigaction term;
    memset(&term, 0, sizeof term);
    term.sa_handler = on_term;
    sigfillset(&term.sa_mask); /* one handler at a time: SIGTERM and SIGINT both end the rank */
    sigaction(SIGTERM, &term, NULL);
    sigaction(SIGINT, &term, NULL);
    atexit(clip_save_remove_temporaries); /* an exit() outside main's return (a library's) */
    signal(SIGXFSZ, SIG_IGN);
    int rc = 2;
    /* --parts P is this launcher's; the rest is clip run's */
    long parts = ranks;
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int n_rest = 0;
    for (int i = 3; rest && i < argc; i++) {
        if (!strcmp(argv[i], "--parts") && i + 1 < argc) {
            if (run_args_integer(argv[++i], 1, 1 << 20, &parts) != 0) parts = -1;
        } else if (!strncmp(argv[i], "--parts=", 8)) {
            if (run_args_integer(argv[i] + 8, 1, 1 << 20, &parts) != 0) parts = -1;
        } else {
            rest[n_rest++] = argv[i];
        }
    }
    const clip_process_desc *d = argc > 2 ? clip_process_find(argv[2]) : NULL;
    run_args a;
    run_args_init(&a);
    if (!rest || argc < 3 || strcmp(argv[1], "run") != 0) {
        rc = usage();
    } else if (!d) {
        if (rank == 0) fprintf(stderr, "clip-mpi: no process named '%s' (clip list)\n", argv[2]);
    } else if (parts < 1) {
        if (rank == 0) fprintf(stderr, "clip-mpi: --parts takes a count from 1 to 1048576\n");
    } else if ((rc = run_args_parse(&a, n_rest, rest, d)) != 0) {
        if (rank == 0) fprintf(stderr, "clip-mpi: %s\n", a.error);
    } else if (a.n_outputs != d->n_outputs) {
        if (rank == 0)
            fprintf(stderr, "clip-mpi: %s has %d output%s: give each with -o\n", d->name,
                    d->n_outputs, d->n_outputs == 1 ? "" : "s");
        rc = 2;
    } else {
        clip_app *app = open_app(&a);
        rc = agree(app != NULL, "opening the device") ? 0 : 1;
        at.device = now_ms();
        if (!app) say("%s", clip_app_last_error(NULL));
        if (rc == 0) rc = run(app, d->name, &a, (int)parts);
        clip_app_destroy(app);
    }
    run_args_release(&a);
    free(rest);
    MPI_Finalize();
    return rc;
}
