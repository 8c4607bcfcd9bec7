/* Split launches: a process's pieces (its `plan` hook) run over the app's devices, two queues
 * (lanes) per device, streamed through each device when the data is larger than it can hold.
 *
 * Schedule: piece i runs on device i mod D, lane (i / D) mod 2. Before a lane takes its next
 * piece it waits for its previous one, so at most two pieces per device are in flight: one
 * uploading while the other computes. Every piece's boxes move by rectangular copies (host <->
 * lane buffer, or primary device buffer -> lane buffer), non-blocking on the lane's queue.
 * Outputs are assembled in the full outputs' host storage; combined outputs are reduced on the
 * host in piece order after every piece is done, so the result never depends on timing. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clip/plan.h"
#include "fault.h"
#include "process_internal.h"

/* Pieces asked for at most, doubling from the device count, before giving up. */
#define MAX_TARGET ((size_t)1 << 16)
/* Streamed pieces hold at most this much on their device, so that several are in flight on each
 * device's two queues: uploads, kernels and downloads then overlap. */
#define STREAM_PIECE ((uint64_t)1 << 30)

typedef struct lane_run {
    clip_app *app;      /* borrowed from the app's lanes */
    clip_process *proc; /* the process, run on this lane's pieces */
    int busy;
    size_t piece;                   /* the piece in flight when busy */
    int host_out[CLIP_PROC_MAX_IO]; /* output left on the host by the piece: copied at finish */
    /* What the process's inputs hold in this launch: a piece reading the same box of the same
     * data keeps it (matmul's column bands all read A) instead of moving it again. */
    const clip_data *held_src[CLIP_PROC_MAX_IO];
    clip_box held_box[CLIP_PROC_MAX_IO];
} lane_run;

struct clip_plan {
    clip_process *p;
    size_t target;
    int n_devices;
    uint64_t max_alloc, max_mem;
    clip_piece *pieces;
    size_t n, cap;
    clip_combine_fn combine[CLIP_PROC_MAX_IO];
    unsigned char *partials[CLIP_PROC_MAX_IO];
    lane_run lanes[CLIP_MAX_APP_DEVICES][CLIP_LANES];
    /* Per input, fixed at the start of each launch (clip_data_split_source): the pieces copy
     * their boxes from its device buffer, else from its host copy, made current then. */
    int from_device[CLIP_PROC_MAX_IO];
    /* CLIP_TEST_REINIT=1 (read at each launch): every piece re-inits its lane's process instead
     * of reusing the previous piece's init, so that a process whose init depends on more than
     * shapes (see plan in clip/process_author.h) shows up as a difference in tests. */
    int reinit;
    double *piece_ms;
    double wall_ms;
};

size_t clip_plan_target(const clip_plan *plan) {
    return plan->target;
}
int clip_plan_devices(const clip_plan *plan) {
    return plan->n_devices;
}
uint64_t clip_plan_max_alloc(const clip_plan *plan) {
    return plan->max_alloc;
}
uint64_t clip_plan_max_mem(const clip_plan *plan) {
    return plan->max_mem;
}

void clip_box_all(const clip_data *d, clip_box *box) {
    for (int i = 0; i < CLIP_MAX_DIMS; i++) {
        box->start[i] = 0;
        box->count[i] = d->dims[i];
    }
}

static int box_inside(const clip_box *b, const size_t *at, const size_t *dims) {
    for (int i = 0; i < CLIP_MAX_DIMS; i++) {
        size_t s = at ? at[i] : b->start[i];
        if (s > dims[i] || b->count[i] > dims[i] - s) return 0;
    }
    return 1;
}

static size_t box_numel(const clip_box *b) {
    size_t n = 1;
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        n *= b->count[i];
    return n;
}

clip_status clip_plan_add(clip_plan *plan, const clip_piece *piece) {
    clip_process *p = plan->p;
    for (int i = 0; i < p->desc->n_inputs; i++)
        if (!box_inside(&piece->in[i], NULL, p->inputs[i]->dims))
            return clip_proc_fail(p, CLIP_ERR_INVALID_ARG, "plan: piece %zu reads outside input %d",
                                  plan->n, i);
    for (int i = 0; i < p->desc->n_outputs; i++)
        if (!plan->combine[i] && !box_inside(&piece->keep[i], piece->at[i], p->outputs[i]->dims))
            return clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                                  "plan: piece %zu writes outside output %d", plan->n, i);
    if (plan->n == plan->cap) {
        size_t cap = plan->cap ? 2 * plan->cap : 16;
        clip_piece *a = realloc(plan->pieces, cap * sizeof *a);
        if (!a) return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "plan: out of memory");
        plan->pieces = a;
        plan->cap = cap;
    }
    plan->pieces[plan->n++] = *piece;
    return CLIP_OK;
}

void clip_plan_combine(clip_plan *plan, int output, clip_combine_fn fn) {
    if (output >= 0 && output < CLIP_PROC_MAX_IO) plan->combine[output] = fn;
}

void clip_plan_band(size_t n, size_t parts, size_t b, size_t *start, size_t *count) {
    size_t q = n / parts, r = n % parts;
    *start = b * q + (b < r ? b : r);
    *count = q + (b < r);
}

clip_status clip_plan_bands(clip_plan *plan) {
    const clip_data *x = plan->p->inputs[0];
    int dim = 0;
    for (int i = 1; i < CLIP_MAX_DIMS; i++)
        if (x->dims[i] > x->dims[dim]) dim = i;
    size_t n = x->dims[dim], parts = plan->target < n ? plan->target : n;
    if (n < 2) return CLIP_OK;
    for (size_t b = 0; b < parts; b++) {
        clip_piece pc;
        memset(&pc, 0, sizeof pc);
        size_t start, count;
        clip_plan_band(n, parts, b, &start, &count);
        for (int k = 0; k < plan->p->desc->n_inputs + plan->p->desc->n_outputs; k++) {
            int in = k < plan->p->desc->n_inputs, i = in ? k : k - plan->p->desc->n_inputs;
            clip_box *box = in ? &pc.in[i] : &pc.keep[i];
            clip_box_all(x, box);
            box->count[dim] = count;
            if (in) {
                box->start[dim] = start;
            } else {
                for (int d = 0; d < CLIP_MAX_DIMS; d++)
                    pc.at[i][d] = 0;
                pc.at[i][dim] = start;
            }
        }
        clip_status s = clip_plan_add(plan, &pc);
        if (s != CLIP_OK) return s;
    }
    return CLIP_OK;
}

/* Bytes a piece holds on its device: its input boxes and the output boxes it keeps. */
static uint64_t piece_bytes(const clip_plan *pl, const clip_piece *pc, uint64_t *largest) {
    const clip_process *p = pl->p;
    uint64_t total = 0;
    *largest = 0;
    for (int k = 0; k < p->desc->n_inputs + p->desc->n_outputs; k++) {
        int in = k < p->desc->n_inputs, i = in ? k : k - p->desc->n_inputs;
        const clip_data *d = in ? p->inputs[i] : p->outputs[i];
        uint64_t b = (uint64_t)(in || !pl->combine[i] ? box_numel(in ? &pc->in[i] : &pc->keep[i])
                                                      : d->numel) *
                     clip_type_size(d->type);
        total += b;
        if (b > *largest) *largest = b;
    }
    return total;
}

/* The first piece that would not fit a device, or -1. */
static long misfit(const clip_plan *pl, uint64_t *need) {
    for (size_t i = 0; i < pl->n; i++) {
        uint64_t largest = 0, total = piece_bytes(pl, &pl->pieces[i], &largest);
        if (largest > pl->max_alloc || total > pl->max_mem) {
            *need = largest > pl->max_alloc ? largest : total;
            return (long)i;
        }
    }
    return -1;
}

/* Streaming (data larger than a device, or one device that cannot hold the work): pieces small
 * enough to pipeline. Several devices with data that fits: one piece per device. */
static int streaming(const clip_plan *pl) {
    const clip_process *p = pl->p;
    uint64_t total = 0;
    for (int i = 0; i < p->desc->n_inputs; i++)
        total += p->inputs[i]->bytes;
    for (int i = 0; i < p->desc->n_outputs; i++)
        total += p->outputs[i] ? p->outputs[i]->bytes : 0;
    return pl->n_devices == 1 || total > pl->max_alloc;
}

static void limits(clip_plan *pl) {
    const clip_app *app = pl->p->app;
    pl->n_devices = app->n_devices;
    pl->max_alloc = UINT64_MAX;
    pl->max_mem = UINT64_MAX;
    for (int d = 0; d < app->n_devices; d++) {
        if (app->infos[d].max_alloc < pl->max_alloc) pl->max_alloc = app->infos[d].max_alloc;
        /* two pieces in flight per device */
        uint64_t mem =
            app->infos[d].global_mem ? app->infos[d].global_mem / CLIP_LANES : UINT64_MAX;
        if (mem < pl->max_mem) pl->max_mem = mem;
    }
}

/* Asks the hook for pieces that fit pl's limits (set by the caller), doubling the target. On
 * success with *whole set the hook added no piece. pl is the caller's either way. */
static clip_status find_pieces(clip_process *p, clip_plan *pl, int *whole) {
    *whole = 0;
    uint64_t need = 0;
    long bad = 0;
    /* One piece could not help a single device: two at least. Several devices: a piece per
     * lane, so that each device's second piece uploads while its first computes and downloads
     * (PCIe copies both ways at once): on two H100s, from page-locked host data, SGEMM 16384^3
     * went from 151.6 to 123.9 ms, conv2 of an 8192x8192x16 stack by 7x7 from 83.8 to 80.1. */
    const size_t first = pl->n_devices > 1 ? (size_t)pl->n_devices * CLIP_LANES : 2;
    for (pl->target = first; pl->target <= MAX_TARGET; pl->target *= 2) {
        pl->n = 0;
        memset(pl->combine, 0, sizeof pl->combine);
        clip_status s = p->desc->plan(p, pl);
        if (s != CLIP_OK || pl->n == 0) {
            *whole = s == CLIP_OK;
            return s;
        }
        if (pl->target == first && streaming(pl) && pl->max_mem > STREAM_PIECE)
            pl->max_mem = STREAM_PIECE; /* the outputs exist now: decide once */
        if ((bad = misfit(pl, &need)) < 0) break;
    }
    if (bad >= 0)
        return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY,
                              "no split into pieces that fit: a piece still needs %llu bytes on a "
                              "device whose largest allocation is %llu bytes (memory %llu per "
                              "piece in flight)",
                              (unsigned long long)need, (unsigned long long)pl->max_alloc,
                              (unsigned long long)pl->max_mem);
    return CLIP_OK;
}

clip_status clip_plan_make(clip_process *p, int *whole) {
    *whole = 0;
    clip_plan *pl = calloc(1, sizeof *pl);
    if (!pl) return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "plan: out of memory");
    pl->p = p;
    limits(pl);
    clip_status s = find_pieces(p, pl, whole);
    if (s != CLIP_OK || *whole) {
        clip_plan_free(pl);
        return s;
    }
    pl->piece_ms = calloc(pl->n, sizeof *pl->piece_ms);
    for (int i = 0; i < p->desc->n_outputs && pl->piece_ms; i++) {
        if (!pl->combine[i] || !p->outputs[i]->bytes) continue;
        pl->partials[i] = malloc(pl->n * p->outputs[i]->bytes);
        if (!pl->partials[i]) break;
    }
    for (int i = 0; i < p->desc->n_outputs; i++)
        if (!pl->piece_ms || (pl->combine[i] && p->outputs[i]->bytes && !pl->partials[i])) {
            const size_t n = pl->n;
            clip_plan_free(pl);
            return clip_proc_fail(p, CLIP_ERR_OUT_OF_MEMORY, "plan: out of memory for %zu pieces",
                                  n);
        }
    char v[64];
    snprintf(v, sizeof v, "split: %zu piece%s on %d device%s", pl->n, pl->n == 1 ? "" : "s",
             pl->n_devices < (int)pl->n ? pl->n_devices : (int)pl->n,
             pl->n_devices > 1 && pl->n > 1 ? "s" : "");
    clip_proc_set_variant(p, v);
    p->plan = pl;
    return CLIP_OK;
}

void clip_plan_free(clip_plan *pl) {
    if (!pl) return;
    for (int d = 0; d < CLIP_MAX_APP_DEVICES; d++)
        for (int l = 0; l < CLIP_LANES; l++)
            clip_process_destroy(pl->lanes[d][l].proc);
    for (int i = 0; i < CLIP_PROC_MAX_IO; i++)
        free(pl->partials[i]);
    free(pl->pieces);
    free(pl->piece_ms);
    free(pl);
}

double clip_plan_wall_ms(const clip_plan *pl) {
    return pl ? pl->wall_ms : 0.0;
}

size_t clip_plan_piece_times(const clip_plan *pl, double *ms, size_t cap) {
    for (size_t i = 0; i < pl->n && i < cap; i++)
        ms[i] = pl->piece_ms[i];
    return pl->n;
}

/* ---- moving boxes ----
 * OpenCL's rectangular copies have three dimensions. Dimensions 0 and 1 are rows and columns;
 * dimension 2 and every higher one fold into "slices": since a box's slices of dims >= 3 are
 * whole runs of dim-2 slices, slab k of the box starts at slice start2 + dims2 * (its index in
 * the higher dims), and each slab is one copy. */
typedef struct rect {
    size_t origin[3], region[3], row_pitch, slice_pitch;
} rect;

/* Slab `slab` (0 .. slabs(box)-1) of box within an array of dims: its rect. */
static void slab_rect(const size_t *dims, const size_t *start, const size_t *count, size_t esize,
                      size_t slab, rect *r) {
    size_t z = 0, stride = dims[2];
    for (int i = 3; i < CLIP_MAX_DIMS; i++) {
        size_t idx = start[i] + slab % count[i];
        slab /= count[i];
        z += idx * stride;
        stride *= dims[i];
    }
    r->origin[0] = start[0] * esize;
    r->origin[1] = start[1];
    r->origin[2] = start[2] + z;
    r->region[0] = count[0] * esize;
    r->region[1] = count[1];
    r->region[2] = count[2];
    r->row_pitch = dims[0] * esize;
    r->slice_pitch = dims[0] * dims[1] * esize;
}

static size_t slabs(const size_t *count) {
    size_t n = 1;
    for (int i = 3; i < CLIP_MAX_DIMS; i++)
        n *= count[i];
    return n;
}

static const size_t zero_start[CLIP_MAX_DIMS];

/* Copies box `b` of input `j` into the whole of `dst` (a piece input of the box's dims) on the
 * lane's queue: from the input's device buffer or its host copy, as the launch chose for it
 * (from_device). Never from what the input's validity says now: an in-place output is the same
 * object, and its host storage is receiving the pieces' results. */
static clip_status upload_box(clip_plan *pl, lane_run *ln, int j, const clip_box *b,
                              clip_data *dst) {
    clip_app *app = pl->p->app;
    clip_data *src = pl->p->inputs[j];
    if (dst->bytes == 0) return CLIP_OK;
    clip_status s = clip_data_ensure_buffer(dst);
    if (s != CLIP_OK) return s;
    const int from_device = pl->from_device[j];
    if (!from_device && (s = clip_data_host_storage(src)) != CLIP_OK) return s;
    size_t es = clip_type_size(src->type), n = slabs(b->count);
    for (size_t k = 0; k < n; k++) {
        rect from, to;
        slab_rect(src->dims, b->start, b->count, es, k, &from);
        slab_rect(dst->dims, zero_start, b->count, es, k, &to);
        cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE) ? CL_OUT_OF_RESOURCES : CL_SUCCESS;
        if (e == CL_SUCCESS && from_device)
            e = clEnqueueCopyBufferRect(ln->app->queue, src->mem, dst->mem, from.origin, to.origin,
                                        from.region, from.row_pitch, from.slice_pitch, to.row_pitch,
                                        to.slice_pitch, 0, NULL, NULL);
        else if (e == CL_SUCCESS)
            e = clEnqueueWriteBufferRect(ln->app->queue, dst->mem, CL_FALSE, to.origin, from.origin,
                                         from.region, to.row_pitch, to.slice_pitch, from.row_pitch,
                                         from.slice_pitch, src->host, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            return clip_proc_fail(pl->p, CLIP_ERR_OPENCL,
                                  "plan: copy of an input box to device "
                                  "'%s': %s",
                                  ln->app->info.name, clip_cl_error_name(e));
        uint64_t bytes = (uint64_t)from.region[0] * from.region[1] * from.region[2];
        if (!from_device) {
            app->stats.to_device++;
            app->stats.bytes_to_device += bytes;
        } else if (ln->app->device != app->device) {
            app->stats.between_devices++;
            app->stats.bytes_between_devices += bytes;
        }
    }
    clip_data_mark_device_written(dst);
    return CLIP_OK;
}

/* Copies box `keep` of the piece output `src` to `at` in the full output `dst`: a read on the
 * lane's queue when src is on the device, else (host) a copy by memcpy. */
static clip_status download_box(clip_plan *pl, lane_run *ln, clip_data *src, const clip_box *keep,
                                const size_t *at, clip_data *dst, int on_host) {
    size_t es = clip_type_size(src->type), n = slabs(keep->count);
    if (box_numel(keep) == 0) return CLIP_OK;
    clip_status s = clip_data_host_storage(dst);
    if (s == CLIP_OK && on_host) s = clip_data_host_storage(src);
    if (s != CLIP_OK) return s;
    for (size_t k = 0; k < n; k++) {
        rect from, to;
        slab_rect(src->dims, keep->start, keep->count, es, k, &from);
        slab_rect(dst->dims, at, keep->count, es, k, &to);
        if (on_host) {
            for (size_t z = 0; z < from.region[2]; z++)
                for (size_t y = 0; y < from.region[1]; y++)
                    memcpy((char *)dst->host + to.origin[0] + (to.origin[1] + y) * to.row_pitch +
                               (to.origin[2] + z) * to.slice_pitch,
                           (const char *)src->host + from.origin[0] +
                               (from.origin[1] + y) * from.row_pitch +
                               (from.origin[2] + z) * from.slice_pitch,
                           from.region[0]);
            continue;
        }
        cl_int e =
            CLIP_FAULT(CLIP_FAULT_ENQUEUE)
                ? CL_OUT_OF_RESOURCES
                : clEnqueueReadBufferRect(ln->app->queue, src->mem, CL_FALSE, from.origin,
                                          to.origin, from.region, from.row_pitch, from.slice_pitch,
                                          to.row_pitch, to.slice_pitch, dst->host, 0, NULL, NULL);
        if (e != CL_SUCCESS)
            return clip_proc_fail(pl->p, CLIP_ERR_OPENCL,
                                  "plan: read of an output box from "
                                  "device '%s': %s",
                                  ln->app->info.name, clip_cl_error_name(e));
        pl->p->app->stats.to_host++;
        pl->p->app->stats.bytes_to_host +=
            (uint64_t)from.region[0] * from.region[1] * from.region[2];
    }
    return CLIP_OK;
}

/* Piece i's whole output j (a partial result) into its place among the partials. */
static clip_status read_partial(clip_plan *pl, lane_run *ln, clip_data *o, size_t i, int j) {
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE)
                   ? CL_OUT_OF_RESOURCES
                   : clEnqueueReadBuffer(ln->app->queue, o->mem, CL_FALSE, 0, o->bytes,
                                         pl->partials[j] + i * o->bytes, 0, NULL, NULL);
    if (e != CL_SUCCESS)
        return clip_proc_fail(pl->p, CLIP_ERR_OPENCL,
                              "plan: read of piece %zu's partial result "
                              "from device '%s': %s",
                              i, ln->app->info.name, clip_cl_error_name(e));
    pl->p->app->stats.to_host++;
    pl->p->app->stats.bytes_to_host += o->bytes;
    return CLIP_OK;
}

/* A failure of piece `piece`, told on the user's app with where it happened: the lane's own
 * message when the process failed there, else the one already set on the user's app. */
static clip_status lane_fail(clip_plan *pl, lane_run *ln, size_t piece, clip_status s) {
    char msg[CLIP_ERRMSG_MAX - 128];
    const char *why = ln->app->error[0] ? ln->app->error : pl->p->app->error;
    size_t len = strnlen(why, sizeof msg - 1);
    memcpy(msg, why, len);
    msg[len] = '\0';
    return clip_set_error(pl->p->app, s, "%s (piece %zu of %zu, on device '%s')",
                          msg[0] ? msg : "failed", piece + 1, pl->n, ln->app->info.name);
}

static clip_status lane_process(clip_plan *pl, lane_run *ln) {
    if (ln->proc) return CLIP_OK;
    clip_process *p = pl->p, *q = NULL;
    clip_status s = clip_process_create(ln->app, p->desc->name, &q);
    if (s != CLIP_OK) return s;
    if (p->desc->n_params) {
        memcpy(q->values, p->values, (size_t)p->desc->n_params * sizeof *q->values);
        memcpy(q->named, p->named, (size_t)p->desc->n_params * sizeof *q->named);
    }
    ln->proc = q;
    return CLIP_OK;
}

/* Whether d has type t and exactly the dims `count`. */
static int same_shape(const clip_data *d, clip_type t, const size_t *count) {
    if (d->type != t) return 0;
    for (int i = 0; i < CLIP_MAX_DIMS; i++)
        if (d->dims[i] != count[i]) return 0;
    return 1;
}

/* Enqueues piece i on the lane: its input boxes, the process, its output boxes. */
static clip_status lane_start(clip_plan *pl, lane_run *ln, size_t i) {
    clip_process *p = pl->p;
    const clip_piece *pc = &pl->pieces[i];
    clip_clear_error(ln->app);
    clip_status s = lane_process(pl, ln);
    for (int j = 0; j < p->desc->n_inputs && s == CLIP_OK; j++) {
        clip_data *src = p->inputs[j], *d = ln->proc->inputs[j];
        if (ln->held_src[j] == src && !memcmp(&ln->held_box[j], &pc->in[j], sizeof pc->in[j]))
            continue;
        ln->held_src[j] = NULL;
        if (d && ln->proc->initialized && same_shape(d, src->type, pc->in[j].count)) {
            s = upload_box(pl, ln, j, &pc->in[j], d); /* into the buffer the kernels know */
        } else {
            d = NULL;
            s = clip_data_create(ln->app, src->type, src->ndims, pc->in[j].count, &d);
            if (s == CLIP_OK) s = upload_box(pl, ln, j, &pc->in[j], d);
            if (s == CLIP_OK) s = clip_process_set_input(ln->proc, j, d); /* drops its init */
            clip_data_destroy(d); /* the process holds it now */
        }
        if (s == CLIP_OK) ln->held_src[j] = src, ln->held_box[j] = pc->in[j];
    }
    /* The previous piece's init holds when every input kept its shape (see plan in
     * clip/process_author.h): kernels, temporaries and outputs are reused. */
    if (s == CLIP_OK && (!ln->proc->initialized || pl->reinit)) s = clip_process_init(ln->proc);
    if (s == CLIP_OK) s = clip_process_launch(ln->proc);
    for (int j = 0; j < p->desc->n_outputs && s == CLIP_OK; j++) {
        clip_data *o = ln->proc->outputs[j];
        ln->host_out[j] = !clip_data_device_current(o);
        if (pl->combine[j]) {
            if (o->bytes != p->outputs[j]->bytes || o->type != p->outputs[j]->type)
                s = clip_proc_fail(p, CLIP_ERR_SHAPE,
                                   "plan: piece %zu's output %d is not the "
                                   "full output's shape",
                                   i, j);
            else if (!ln->host_out[j] && o->bytes)
                s = read_partial(pl, ln, o, i, j);
            continue;
        }
        if (!box_inside(&pc->keep[j], NULL, o->dims))
            s = clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                               "plan: piece %zu keeps a box outside its "
                               "output %d",
                               i, j);
        else if (!ln->host_out[j])
            s = download_box(pl, ln, o, &pc->keep[j], pc->at[j], p->outputs[j], 0);
    }
    if (s != CLIP_OK) return s;
    clFlush(ln->app->queue);
    ln->busy = 1;
    ln->piece = i;
    return CLIP_OK;
}

/* Waits for the lane's piece, takes its device time, and copies what it left on the host. */
static clip_status lane_finish(clip_plan *pl, lane_run *ln) {
    if (!ln->busy) return CLIP_OK;
    ln->busy = 0;
    clip_process *p = pl->p;
    const clip_piece *pc = &pl->pieces[ln->piece];
    clip_clear_error(ln->app);
    /* An injected failure still waits, as a real one leaves nothing running that it knows of:
     * the piece's reads may target memory the caller frees once the launch has failed. */
    cl_int e = CLIP_FAULT(CLIP_FAULT_ENQUEUE) ? (clFinish(ln->app->queue), CL_OUT_OF_RESOURCES)
                                              : clFinish(ln->app->queue);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "plan: clFinish on device '%s': %s",
                              ln->app->info.name, clip_cl_error_name(e));
    double ms = 0.0;
    clip_status s = clip_process_time_ms(ln->proc, &ms);
    pl->piece_ms[ln->piece] = ms;
    for (int j = 0; j < p->desc->n_outputs && s == CLIP_OK; j++) {
        clip_data *o = ln->proc->outputs[j];
        if (!ln->host_out[j] || !o->bytes) continue;
        if (pl->combine[j] && (s = clip_data_host_storage(o)) == CLIP_OK)
            memcpy(pl->partials[j] + ln->piece * o->bytes, o->host, o->bytes);
        else if (!pl->combine[j])
            s = download_box(pl, ln, o, &pc->keep[j], pc->at[j], p->outputs[j], 1);
    }
    return s;
}

static int reinit_each_piece(void);

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

clip_status clip_plan_launch(clip_process *p) {
    clip_plan *pl = p->plan;
    double t0 = now_ms();
    /* Inputs the app's own queue is still computing (a device-only result of the previous
     * process) are read by the lanes' queues, which OpenCL does not order after it. */
    cl_int e = clFinish(p->app->queue);
    if (e != CL_SUCCESS)
        return clip_proc_fail(p, CLIP_ERR_OPENCL, "plan: clFinish on device '%s': %s",
                              p->app->info.name, clip_cl_error_name(e));
    pl->reinit = reinit_each_piece();
    clip_status s = clip_app_make_lanes(p->app);
    for (int d = 0; d < pl->n_devices && s == CLIP_OK; d++)
        for (int l = 0; l < CLIP_LANES; l++) {
            pl->lanes[d][l].app = p->app->lanes[d][l];
            /* the inputs may have changed since the last launch */
            memset(pl->lanes[d][l].held_src, 0, sizeof pl->lanes[d][l].held_src);
        }
    /* Where each input's pieces come from is settled before any output is marked: an output
     * may be an input (in place), and its host copy is stale until the pieces fill it. */
    int shared = 1;
    for (int d = 0; d < pl->n_devices && s == CLIP_OK; d++)
        for (int l = 0; l < CLIP_LANES; l++)
            if (pl->lanes[d][l].app->context != p->app->context) shared = 0;
    for (int j = 0; j < p->desc->n_inputs && s == CLIP_OK; j++)
        s = clip_data_split_source(p->inputs[j], shared, &pl->from_device[j]);
    /* The outputs' host storage receives the pieces: it must not be stale-marked meanwhile. */
    for (int j = 0; j < p->desc->n_outputs && s == CLIP_OK; j++)
        if ((s = clip_data_host_storage(p->outputs[j])) == CLIP_OK)
            clip_data_mark_host_written(p->outputs[j]);
    for (size_t i = 0; i < pl->n && s == CLIP_OK; i++) {
        int d = (int)(i % (size_t)pl->n_devices);
        lane_run *ln = &pl->lanes[d][(i / (size_t)pl->n_devices) % CLIP_LANES];
        size_t prev = ln->piece;
        s = lane_finish(pl, ln);
        if (s != CLIP_OK) {
            s = lane_fail(pl, ln, prev, s);
            break;
        }
        s = lane_start(pl, ln, i);
        if (s != CLIP_OK) s = lane_fail(pl, ln, i, s);
    }
    /* Every lane is waited for, even after a failure: reads may still target the outputs. A
     * lane whose piece failed half-enqueued is not busy but may hold work too. */
    for (int d = 0; d < pl->n_devices; d++)
        for (int l = 0; l < CLIP_LANES; l++) {
            lane_run *ln = &pl->lanes[d][l];
            size_t piece = ln->piece;
            if (!ln->busy && ln->app && s != CLIP_OK) clFinish(ln->app->queue);
            clip_status f = lane_finish(pl, ln);
            if (f != CLIP_OK && s == CLIP_OK) s = lane_fail(pl, ln, piece, f);
        }
    for (int j = 0; j < p->desc->n_outputs && s == CLIP_OK; j++)
        if (pl->combine[j] && p->outputs[j]->bytes &&
            (s = clip_data_host_storage(p->outputs[j])) == CLIP_OK)
            s = pl->combine[j](p, j, pl->partials[j], pl->n, p->outputs[j]->host);
    pl->wall_ms = now_ms() - t0;
    if (s == CLIP_OK && pl->n && pl->lanes[0][0].proc) {
        char v[160];
        snprintf(v, sizeof v, "%s; %s", p->variant, pl->lanes[0][0].proc->variant);
        if (!strstr(p->variant, ";")) clip_proc_set_variant(p, v);
    }
    return s;
}

/* ---- the plan as a value (clip/plan.h): for a runner other than clip_plan_launch ---- */

clip_status clip_process_plan(clip_process *p, int parts, clip_plan_info *out) {
    if (!p || !out)
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "process_plan: NULL argument");
    memset(out, 0, sizeof *out);
    clip_clear_error(p->app);
    if (parts < 1)
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG, "process_plan: %d parts (1 at least)",
                              parts);
    for (int i = 0; i < p->desc->n_inputs; i++)
        if (!p->inputs[i])
            return clip_set_error(p->app, CLIP_ERR_MISSING_INPUT, "%s: input %d is not set",
                                  p->desc->name, i);
    clip_process_release_init(p);
    out->n_inputs = p->desc->n_inputs;
    out->n_outputs = p->desc->n_outputs;
    if (!p->desc->plan) return CLIP_OK; /* runs whole */
    clip_plan pl;
    memset(&pl, 0, sizeof pl);
    pl.p = p;
    limits(&pl);
    pl.n_devices = parts;
    int whole = 0;
    p->deferred_outputs = 1;
    clip_status s = find_pieces(p, &pl, &whole);
    p->deferred_outputs = 0;
    if (s != CLIP_OK || whole) {
        free(pl.pieces);
        clip_process_release_init(p);
        return s;
    }
    out->n = pl.n;
    out->pieces = pl.pieces;
    for (int i = 0; i < p->desc->n_outputs; i++) {
        const clip_data *o = p->outputs[i];
        out->combined[i] = pl.combine[i] != NULL;
        p->combine[i] = pl.combine[i];
        out->out_type[i] = o->type;
        out->out_ndims[i] = o->ndims;
        memcpy(out->out_dims[i], o->dims, sizeof o->dims);
    }
    p->planned = 1;
    return CLIP_OK;
}

void clip_plan_info_free(clip_plan_info *info) {
    if (!info) return;
    free(info->pieces);
    info->pieces = NULL;
    info->n = 0;
}

clip_status clip_process_combine(clip_process *p, int output, const void *partials, size_t n,
                                 void *result) {
    if (!p || output < 0 || output >= p->desc->n_outputs || (!partials && n) || !result)
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "process_combine: bad argument");
    if (!p->planned || !p->combine[output])
        return clip_set_error(p->app, CLIP_ERR_INVALID_ARG,
                              "%s: output %d is not combined in the last clip_process_plan",
                              p->desc->name, output);
    return p->combine[output](p, output, partials, n, result);
}

static int reinit_each_piece(void) {
    const char *e = getenv("CLIP_TEST_REINIT");
    return e && *e && strcmp(e, "0") != 0;
}

clip_status clip_process_run_piece(clip_process *p, const clip_plan_info *info, size_t i,
                                   clip_data *const *inputs, clip_data **outputs) {
    if (!p || !info || !inputs || !outputs || i >= info->n || info->n_inputs != p->desc->n_inputs ||
        info->n_outputs != p->desc->n_outputs)
        return clip_set_error(p ? p->app : NULL, CLIP_ERR_INVALID_ARG,
                              "process_run_piece: bad argument (piece %zu)", i);
    clip_clear_error(p->app);
    const clip_piece *pc = &info->pieces[i];
    int keep = p->initialized && !reinit_each_piece();
    for (int j = 0; j < p->desc->n_inputs; j++) {
        if (!inputs[j] || inputs[j]->app != p->app ||
            !same_shape(inputs[j], inputs[j]->type, pc->in[j].count))
            return clip_proc_fail(p, CLIP_ERR_SHAPE, "piece %zu: input %d is not its box's shape",
                                  i, j);
        if (!p->inputs[j] || !same_shape(p->inputs[j], inputs[j]->type, pc->in[j].count)) keep = 0;
    }
    clip_status s = CLIP_OK;
    /* The piece's inputs are p's own objects: a kept init may hold their buffers. */
    for (int j = 0; j < p->desc->n_inputs && s == CLIP_OK; j++) {
        clip_data *d = keep ? p->inputs[j] : NULL;
        const void *h = NULL;
        if (!d)
            s = clip_data_create(p->app, inputs[j]->type, inputs[j]->ndims, inputs[j]->dims, &d);
        if (s == CLIP_OK) s = clip_data_host(inputs[j], &h);
        if (s == CLIP_OK) s = clip_data_write(d, h);
        if (s == CLIP_OK && !keep) s = clip_process_set_input(p, j, d);
        if (!keep) clip_data_destroy(d);
    }
    if (s == CLIP_OK && !keep) s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_launch(p);
    for (int j = 0; j < p->desc->n_outputs && s == CLIP_OK; j++) {
        const void *h = NULL;
        s = clip_process_output(p, j, &outputs[j]);
        if (s == CLIP_OK) s = clip_data_host(outputs[j], &h);
        if (s == CLIP_OK && !info->combined[j] && !box_inside(&pc->keep[j], NULL, outputs[j]->dims))
            s = clip_proc_fail(p, CLIP_ERR_INVALID_ARG,
                               "piece %zu keeps a box outside its output %d", i, j);
    }
    if (s != CLIP_OK)
        for (int j = 0; j < p->desc->n_outputs; j++)
            outputs[j] = NULL;
    return s;
}
