/* clip-mpi's schedule (mpi/schedule.c, no MPI in it) on plans made here: blocks of a product (a
 * grid of row bands of one input by column bands of the other) and bands of a stack with one
 * kernel box in every piece, over 1 to 7 ranks. Checked against what the schedule promises
 * (mpi/schedule.h): every piece on one rank, the rank grid's pieces dealt by (u mod pr, v mod pc),
 * each box read once in all, by a rank that needs it, and broadcast to exactly the other ranks
 * that need it, fetched no later than the first piece of any of them that reads it, and the
 * broadcasts in one order of rounds. */
#include "testutil.h"

#include "../mpi/schedule.h"

/* Pieces of a product: r row bands of A (m x k) by c column bands of B (k x n), in row order. */
static clip_plan_info grid_plan(size_t m, size_t k, size_t n, size_t r, size_t c) {
    clip_plan_info info;
    memset(&info, 0, sizeof info);
    info.n = r * c;
    info.n_inputs = 2;
    info.n_outputs = 1;
    info.pieces = calloc(info.n, sizeof *info.pieces);
    for (size_t i = 0; info.pieces && i < r; i++)
        for (size_t j = 0; j < c; j++) {
            clip_piece *pc = &info.pieces[i * c + j];
            for (int d = 0; d < CLIP_MAX_DIMS; d++)
                pc->in[0].count[d] = pc->in[1].count[d] = 1;
            size_t i0, ni, j0, nj;
            clip_plan_band(m, r, i, &i0, &ni);
            clip_plan_band(n, c, j, &j0, &nj);
            pc->in[0].start[0] = i0, pc->in[0].count[0] = ni, pc->in[0].count[1] = k;
            pc->in[1].count[0] = k, pc->in[1].start[1] = j0, pc->in[1].count[1] = nj;
        }
    return info;
}

/* Pieces of a stack: b bands of the third dimension of S (h x w x d), K (5 x 7) whole in each. */
static clip_plan_info stack_plan(size_t h, size_t w, size_t d, size_t b) {
    clip_plan_info info;
    memset(&info, 0, sizeof info);
    info.n = b;
    info.n_inputs = 2;
    info.n_outputs = 1;
    info.pieces = calloc(info.n, sizeof *info.pieces);
    for (size_t i = 0; info.pieces && i < b; i++) {
        clip_piece *pc = &info.pieces[i];
        for (int e = 0; e < CLIP_MAX_DIMS; e++)
            pc->in[0].count[e] = pc->in[1].count[e] = 1;
        pc->in[0].count[0] = h, pc->in[0].count[1] = w;
        clip_plan_band(d, b, i, &pc->in[0].start[2], &pc->in[0].count[2]);
        pc->in[1].count[0] = 5, pc->in[1].count[1] = 7;
    }
    return info;
}

/* The promises of schedule.h; bytes in all read from files in *read. */
static void check_schedule(const char *what, const clip_plan_info *info, const schedule *s,
                           uint64_t *read) {
    const int R = s->ranks, n_in = info->n_inputs;
    *read = 0;
    size_t *count = calloc((size_t)R, sizeof *count);
    unsigned char *need = calloc((size_t)R, 1);
    int ok = count && need;
    for (size_t i = 0; ok && i < info->n; i++) {
        ok &= s->owner[i] >= 0 && s->owner[i] < R && s->local[i] == count[s->owner[i]]++;
        for (int j = 0; j < n_in; j++) { /* each piece's box is a box of that input, equal */
            const sched_box *b = &s->boxes[s->box_of[i * (size_t)n_in + (size_t)j]];
            ok &= b->input == j &&
                  !memcmp(&info->pieces[b->piece].in[j], &info->pieces[i].in[j], sizeof(clip_box));
        }
    }
    for (size_t b = 0; ok && b < s->n_boxes; b++) {
        const sched_box *x = &s->boxes[b];
        size_t first_round = SIZE_MAX;
        memset(need, 0, (size_t)R);
        for (size_t i = 0; i < info->n; i++)
            if (s->box_of[i * (size_t)n_in + (size_t)x->input] == b) {
                need[s->owner[i]] = 1;
                first_round = s->local[i] < first_round ? s->local[i] : first_round;
            }
        int members = 0;
        for (int r = 0; r < R; r++)
            members += need[r];
        ok &= x->reader >= 0 && x->reader < R && need[x->reader]; /* read by a rank that needs it */
        if (members > 1) {
            ok &= x->group >= 0 && (size_t)x->group < s->n_groups &&
                  !memcmp(s->groups + (size_t)x->group * (size_t)R, need, (size_t)R) &&
                  x->round == first_round;
            *read += x->bytes; /* once, by its reader */
        } else {
            ok &= x->group < 0;
            *read += x->bytes;
        }
    }
    for (size_t k = 0; ok && k < s->n_shared; k++) {
        ok &= s->boxes[s->shared[k]].group >= 0;
        if (k) ok &= s->boxes[s->shared[k - 1]].round <= s->boxes[s->shared[k]].round;
    }
    if (!ok) printf("%s: the schedule breaks its promises\n", what);
    CHECK(ok);
    free(count);
    free(need);
}

int main(void) {
    /* a product: 6 row bands of A (300 x 200) by 8 column bands of B (200 x 150) */
    const size_t m = 300, k = 200, n = 150;
    const uint64_t a_bytes = 8ULL * m * k, b_bytes = 8ULL * k * n;
    const int want_rows[8] = {0, 1, 2, 3, 2, 1, 3, 1}; /* the grid's rows for 1..7 ranks */
    for (int R = 1; R <= 7; R++) {
        clip_plan_info info = grid_plan(m, k, n, 6, 8);
        const size_t elem[2] = {8, 8};
        schedule s;
        CHECK(info.pieces != NULL && schedule_make(&info, R, elem, &s) == 0);
        char what[64];
        snprintf(what, sizeof what, "6 x 8 blocks over %d ranks", R);
        uint64_t read = 0;
        check_schedule(what, &info, &s, &read);
        /* A and B read once in all, whatever the rank count */
        CHECK(read == a_bytes + b_bytes);
        CHECK(s.n_boxes == 14);
        CHECK(s.grid_rows == want_rows[R] && s.grid_rows * s.grid_cols == R);
        int dealt = 1;
        for (size_t i = 0; i < info.n; i++) /* piece (u, v) on rank (u mod pr) pc + (v mod pc) */
            dealt &= s.owner[i] == (int)((i / 8) % (size_t)s.grid_rows) * s.grid_cols +
                                       (int)((i % 8) % (size_t)s.grid_cols);
        CHECK(dealt);
        size_t busiest = 0, *cnt = calloc((size_t)R, sizeof *cnt);
        for (size_t i = 0; cnt && i < info.n; i++)
            busiest = ++cnt[s.owner[i]] > busiest ? cnt[s.owner[i]] : busiest;
        free(cnt);
        printf("%-26s grid %d x %d, %zu groups, %zu shared boxes, busiest rank %zu pieces\n", what,
               s.grid_rows, s.grid_cols, s.n_groups, s.n_shared, busiest);
        if (R == 4) CHECK(busiest == 12 && s.n_groups == 4 && s.n_shared == 14);
        schedule_free(&s);
        free(info.pieces);
    }
    /* a stack in 10 bands, the kernel in every piece: round robin, the kernel shared by all */
    for (int R = 1; R <= 4; R++) {
        clip_plan_info info = stack_plan(40, 30, 24, 10);
        const size_t elem[2] = {8, 4};
        schedule s;
        CHECK(info.pieces != NULL && schedule_make(&info, R, elem, &s) == 0);
        char what[64];
        snprintf(what, sizeof what, "10 bands over %d ranks", R);
        uint64_t read = 0;
        check_schedule(what, &info, &s, &read);
        CHECK(read == 8ULL * 40 * 30 * 24 + 4ULL * 5 * 7);
        CHECK(s.grid_rows == 0 && s.n_boxes == 11);
        int rr = 1;
        for (size_t i = 0; i < info.n; i++)
            rr &= s.owner[i] == (int)(i % (size_t)R);
        CHECK(rr);
        CHECK(s.n_shared == (R > 1 ? 1u : 0u)); /* the kernel, once, at round 0 */
        if (R > 1) CHECK(s.boxes[s.shared[0]].input == 1 && s.boxes[s.shared[0]].round == 0);
        schedule_free(&s);
        free(info.pieces);
    }
    return tu_finish("test_mpi_schedule");
}
