/* clip-mpi's schedule (schedule.h says what and why). */
#include "schedule.h"

#include <stdlib.h>
#include <string.h>

static const clip_plan_info *sort_info;
static int sort_input;

static int box_cmp(const void *a, const void *b) {
    const size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = memcmp(&sort_info->pieces[i].in[sort_input], &sort_info->pieces[j].in[sort_input],
                   sizeof(clip_box));
    return c ? c : (i > j) - (i < j);
}

static uint64_t box_bytes(const clip_box *b, size_t elem) {
    uint64_t n = elem;
    for (int d = 0; d < CLIP_MAX_DIMS; d++)
        n *= b->count[d];
    return n;
}

/* The distinct boxes of every input, numbered in order of first use within each input. */
static int number_boxes(const clip_plan_info *info, const size_t *elem, schedule *s) {
    size_t *idx = malloc(info->n * sizeof *idx), *first = malloc(info->n * sizeof *first);
    s->boxes = malloc(info->n * (size_t)(info->n_inputs ? info->n_inputs : 1) * sizeof *s->boxes);
    if (!idx || !first || !s->boxes) {
        free(idx), free(first);
        return -1;
    }
    sort_info = info;
    for (int j = 0; j < info->n_inputs; j++) {
        for (size_t i = 0; i < info->n; i++)
            idx[i] = i;
        sort_input = j;
        qsort(idx, info->n, sizeof *idx, box_cmp); /* equal boxes together, by first piece */
        for (size_t k = 0; k < info->n; k++) {
            const size_t i = idx[k];
            if (k == 0 ||
                memcmp(&info->pieces[i].in[j], &info->pieces[idx[k - 1]].in[j], sizeof(clip_box)))
                first[i] = i;
            else
                first[i] = first[idx[k - 1]];
        }
        /* number in piece order, so that box numbers follow the pieces */
        const size_t base = s->n_boxes;
        for (size_t i = 0; i < info->n; i++) {
            if (first[i] == i) {
                sched_box *b = &s->boxes[s->n_boxes++];
                memset(b, 0, sizeof *b);
                b->input = j;
                b->piece = i;
                b->bytes = box_bytes(&info->pieces[i].in[j], elem[j]);
                b->group = -1;
            }
        }
        for (size_t i = 0, next = base; i < info->n; i++) {
            if (first[i] == i)
                s->box_of[i * (size_t)info->n_inputs + (size_t)j] = next++;
            else
                s->box_of[i * (size_t)info->n_inputs + (size_t)j] =
                    s->box_of[first[i] * (size_t)info->n_inputs + (size_t)j];
        }
    }
    free(idx), free(first);
    return 0;
}

/* The grid of ranks, when the pieces are every pair of two inputs' boxes (schedule.h). */
static void pick_grid(const clip_plan_info *info, schedule *s) {
    const int n_in = info->n_inputs;
    size_t count[CLIP_PROC_MAX_IO] = {0}, base[CLIP_PROC_MAX_IO] = {0};
    uint64_t bytes[CLIP_PROC_MAX_IO] = {0};
    for (size_t b = s->n_boxes; b-- > 0;) {
        count[s->boxes[b].input]++;
        base[s->boxes[b].input] = b;
        bytes[s->boxes[b].input] += s->boxes[b].bytes;
    }
    int ja = -1, jb = -1;
    for (int j = 0; j < n_in; j++) {
        if (count[j] < 2) continue;
        if (ja < 0)
            ja = j;
        else if (jb < 0)
            jb = j;
        else
            return; /* three inputs vary: not a grid */
    }
    if (jb < 0 || count[ja] * count[jb] != info->n) return;
    const size_t U = count[ja], V = count[jb];
    unsigned char *seen = calloc(info->n, 1);
    if (!seen) return;
    int pairs = 1;
    for (size_t i = 0; i < info->n && pairs; i++) {
        size_t u = s->box_of[i * (size_t)n_in + (size_t)ja] - base[ja],
               v = s->box_of[i * (size_t)n_in + (size_t)jb] - base[jb];
        pairs = !seen[u * V + v]++;
    }
    free(seen);
    if (!pairs) return;
    /* the factorisation R = pr x pc with the fewest pieces on the busiest rank, then the least
     * of both inputs a rank needs */
    int best = 0;
    size_t best_load = SIZE_MAX;
    double best_bytes = 0;
    for (int pr = 1; pr <= s->ranks; pr++) {
        if (s->ranks % pr) continue;
        const int pc = s->ranks / pr;
        if ((size_t)pr > U || (size_t)pc > V) continue;
        const size_t load =
            ((U + (size_t)pr - 1) / (size_t)pr) * ((V + (size_t)pc - 1) / (size_t)pc);
        const double share = (double)bytes[ja] / pr + (double)bytes[jb] / pc;
        if (load < best_load || (load == best_load && share < best_bytes))
            best = pr, best_load = load, best_bytes = share;
    }
    if (!best) return;
    s->grid_rows = best;
    s->grid_cols = s->ranks / best;
    for (size_t i = 0; i < info->n; i++) {
        size_t u = s->box_of[i * (size_t)n_in + (size_t)ja] - base[ja],
               v = s->box_of[i * (size_t)n_in + (size_t)jb] - base[jb];
        s->owner[i] =
            (int)(u % (size_t)s->grid_rows) * s->grid_cols + (int)(v % (size_t)s->grid_cols);
    }
}

static const schedule *order_sched;

static int shared_cmp(const void *a, const void *b) {
    const size_t x = *(const size_t *)a, y = *(const size_t *)b;
    const size_t rx = order_sched->boxes[x].round, ry = order_sched->boxes[y].round;
    if (rx != ry) return (rx > ry) - (rx < ry);
    return (x > y) - (x < y);
}

int schedule_make(const clip_plan_info *info, int ranks, const size_t *elem, schedule *s) {
    memset(s, 0, sizeof *s);
    s->ranks = ranks;
    s->n = info->n;
    s->n_inputs = info->n_inputs;
    const size_t n = info->n ? info->n : 1, n_in = info->n_inputs ? (size_t)info->n_inputs : 1;
    s->owner = malloc(n * sizeof *s->owner);
    s->local = malloc(n * sizeof *s->local);
    s->box_of = malloc(n * n_in * sizeof *s->box_of);
    if (!s->owner || !s->local || !s->box_of || number_boxes(info, elem, s) != 0) goto oom;
    for (size_t i = 0; i < info->n; i++)
        s->owner[i] = (int)(i % (size_t)ranks);
    pick_grid(info, s);
    size_t *count = calloc((size_t)ranks, sizeof *count);
    if (!count) goto oom;
    for (size_t i = 0; i < info->n; i++)
        s->local[i] = count[s->owner[i]]++;
    free(count);
    /* who needs each box; a box two or more ranks need gets a group and a reader */
    unsigned char *need = calloc((size_t)ranks, 1);
    uint64_t *load = calloc((size_t)ranks, sizeof *load);
    s->groups = malloc(s->n_boxes * (size_t)ranks + 1);
    s->shared = malloc(s->n_boxes * sizeof *s->shared + 1);
    if (!need || !load || !s->groups || !s->shared) {
        free(need), free(load);
        goto oom;
    }
    for (size_t b = 0; b < s->n_boxes; b++) {
        sched_box *x = &s->boxes[b];
        memset(need, 0, (size_t)ranks);
        int members = 0;
        x->round = SIZE_MAX;
        for (size_t i = x->piece; i < info->n; i++) {
            if (s->box_of[i * n_in + (size_t)x->input] != b) continue;
            if (!need[s->owner[i]]) need[s->owner[i]] = 1, members++;
            if (s->local[i] < x->round) x->round = s->local[i];
        }
        /* the reader: the member with the fewest bytes to read so far, to spread the reads */
        x->reader = -1;
        for (int r = 0; r < ranks; r++)
            if (need[r] && (x->reader < 0 || load[r] < load[x->reader])) x->reader = r;
        load[x->reader] += x->bytes;
        if (members < 2) continue;
        size_t g = 0;
        while (g < s->n_groups && memcmp(s->groups + g * (size_t)ranks, need, (size_t)ranks))
            g++;
        if (g == s->n_groups && g == SCHED_MAX_GROUPS) continue; /* each reads it itself */
        if (g == s->n_groups)
            memcpy(s->groups + s->n_groups++ * (size_t)ranks, need, (size_t)ranks);
        x->group = (int)g;
        s->shared[s->n_shared++] = b;
    }
    free(need), free(load);
    order_sched = s;
    qsort(s->shared, s->n_shared, sizeof *s->shared, shared_cmp);
    return 0;
oom:
    schedule_free(s);
    return -1;
}

void schedule_free(schedule *s) {
    free(s->owner);
    free(s->local);
    free(s->box_of);
    free(s->boxes);
    free(s->groups);
    free(s->shared);
    memset(s, 0, sizeof *s);
}
