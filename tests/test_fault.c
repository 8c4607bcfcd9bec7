/* Failure injection (built only with -DCLIP_FAULT_INJECTION=ON).
 *
 * Chains that together reach every OpenCL call site compiled into the library (each site is
 * counted; the test fails if one is never reached): load, create, every process and its kernel
 * variants (scale; conv2 local/block/global/separable/fft with each padding; norm one- and
 * two-pass; dot with type promotion; matmul with edge tiles, split K, complex and K = 0; matpow
 * with p = 0, 1, 13; split launches streamed in pieces), read, time, finish, save. For each chain a
 * failing OpenCL allocation, enqueue or program build is walked over the first call of each site in
 * each step (every call with CLIP_FAULT_FULL=1; the first of each site in each chain with
 * CLIP_TEST_QUICK=1), and each time the chain must return that failure's code, the same app must
 * then run the chain again to the bit-identical result, and the saved file must be complete or
 * absent. Leaks are caught by the sanitizer and valgrind builds that run this test. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fault.h"
#include "testutil.h"

#define MAX_STEPS 8
#define MAX_SLOTS 16
#define MAX_CALLS 4096

/* Inputs every chain can use, by slot number; step outputs are appended after them. */
enum {
    IN_IMG,
    IN_K3,
    IN_K7,
    IN_KSEP,
    IN_COL,
    IN_COLC,
    IN_A,
    IN_B,
    IN_TA,
    IN_TB,
    IN_C,
    IN_S,
    IN_E1,
    IN_E2,
    N_IN
};

typedef struct step {
    const char *proc;
    const char *params; /* "name=value name=value" */
    int in[2];          /* slots; -1 = none */
    int optional;       /* skipped where the reference run finds it unsupported (clFFT missing) */
} step;

typedef struct chain {
    const char *name;
    step steps[MAX_STEPS];
    const char *max_alloc; /* CLIP_TEST_MAX_ALLOC for the chain's apps (split launches), or NULL */
} chain;

static const chain chains[] = {
    {"conv2",
     {{"scale", "a=10 b=-1", {IN_IMG, -1}, 0},
      {"conv2", "shape=same pad=symmetric variant=local", {MAX_SLOTS + 0, IN_K3}, 0},
      {"conv2", "shape=valid variant=block correlate=true", {MAX_SLOTS + 1, IN_K7}, 0},
      {"conv2", "shape=same pad=circular variant=global normalize=true", {MAX_SLOTS + 2, IN_K3}, 0},
      {"conv2", "shape=same pad=replicate separable=on", {MAX_SLOTS + 3, IN_KSEP}, 0},
      {"conv2", "shape=full variant=fft", {MAX_SLOTS + 4, IN_K7}, 1}},
     NULL},
    {"reduce",
     {{"scale", "a=0.5", {IN_COL, -1}, 0},
      {"norm", "p=2", {MAX_SLOTS + 0, -1}, 0},
      {"norm", "p=3 method=twopass", {MAX_SLOTS + 0, -1}, 0},
      {"norm", "p=2.5 method=onepass", {IN_COLC, -1}, 0},
      {"norm", "p=Inf", {IN_COL, -1}, 0},
      {"dot", "", {IN_COLC, MAX_SLOTS + 0}, 0}},
     NULL},
    {"gemm",
     {{"matmul", "", {IN_A, IN_B}, 0},
      {"matmul",
       "variant=tiled mwg=16 nwg=16 kwg=8 mdimc=8 ndimc=8 vw=2 vwn=2 ksplit=3",
       {IN_TA, IN_TB},
       0},
      /* Stream-K (a tail past whole waves of 2 work-groups per compute unit, on the CPU's
       * few compute units): the fixup kernel after the grid. */
      {"matmul",
       "variant=tiled mwg=16 nwg=16 kwg=8 mdimc=4 ndimc=4 vw=2 vwn=2 streamk=2",
       {IN_A, IN_B},
       0},
      {"matmul", "", {IN_C, IN_A}, 0},
      {"matmul", "", {IN_E1, IN_E2}, 0},
      {"matpow", "power=13", {IN_S, -1}, 0},
      {"matpow", "power=0", {IN_S, -1}, 0},
      {"matpow", "power=1", {IN_S, -1}, 0}},
     NULL},
    /* Split launches streamed through a device that holds 4 KiB (lib/plan.c): matpow runs whole
     * (16x16 f32 fits) and its device-only result is copied into matmul's pieces; the other
     * pieces upload from the host; norm combines partials; conv2 reads halos. */
    {"split",
     {{"matpow", "power=3", {IN_S, -1}, 0},
      {"matmul", "", {MAX_SLOTS + 0, IN_TA}, 0},
      {"norm", "p=fro", {IN_TA, -1}, 0},
      {"scale", "a=2", {IN_IMG, -1}, 0},
      {"conv2", "shape=same variant=global", {IN_IMG, IN_K3}, 0}},
     "4096"},
};
#define N_CHAINS (int)(sizeof chains / sizeof chains[0])

static int skip_step[N_CHAINS][MAX_STEPS];       /* set by the reference runs */
static long step_start[N_CHAINS][MAX_STEPS + 1]; /* calls counted before each step, in them */

/* The chain's result: every step's output, read back and concatenated. */
typedef struct result {
    clip_status status;
    unsigned char *bytes;
    size_t n;
} result;

static double f_pow(size_t i, size_t j);

static clip_data *make(clip_app *app, clip_type t, size_t m, size_t n,
                       double (*f)(size_t, size_t)) {
    size_t dims[2] = {m, n}, cx = clip_type_is_complex(t) ? 2 : 1;
    float *h = malloc((m * n * cx + 1) * sizeof *h);
    if (!h) return NULL;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < m; i++)
            for (size_t c = 0; c < cx; c++)
                h[(j * m + i) * cx + c] = (float)f(i + c, j);
    clip_data *d = NULL;
    /* The matpow input (16x16, which fits even the split chain's device) goes through
     * clip_data_write, straight to the device copy; the others through the host copy. */
    clip_status s = f == f_pow ? clip_data_create(app, t, 2, dims, &d)
                               : clip_data_create_from(app, t, 2, dims, h, &d);
    if (s == CLIP_OK && f == f_pow) s = clip_data_write(d, h);
    free(h);
    if (s != CLIP_OK) clip_data_destroy(d);
    return s == CLIP_OK ? d : NULL;
}

static double f_img(size_t i, size_t j) {
    return (double)((i * 7 + j * 3) % 17) / 16.0;
}
static double f_small(size_t i, size_t j) {
    return (double)((i * 5 + j * 11) % 13) / 13.0 - 0.4;
}
static double f_ksep(size_t i, size_t j) {
    return (1.0 + (double)i) * (3.0 - (double)(j % 3));
}
static double f_mat(size_t i, size_t j) {
    return (double)((i * 3 + j * 7) % 9) / 8.0 - 0.5;
}
static double f_pow(size_t i, size_t j) {
    return i == j ? 0.5 : ((i + j) % 3) / 48.0;
}

/* Makes the inputs; the image comes through the loader, from a PNG written beforehand. */
static clip_status make_inputs(clip_app *app, const char *png, clip_data **in) {
    clip_status s = clip_load(app, png, &in[IN_IMG]);
    if (s != CLIP_OK) return s;
    in[IN_K3] = make(app, CLIP_F32, 3, 3, f_small);
    in[IN_K7] = make(app, CLIP_F32, 7, 6, f_small);
    in[IN_KSEP] = make(app, CLIP_F32, 5, 5, f_ksep);
    in[IN_COL] = make(app, CLIP_F32, 300, 1, f_small);
    in[IN_COLC] = make(app, CLIP_C32, 300, 1, f_mat);
    in[IN_A] = make(app, CLIP_F32, 33, 47, f_mat);
    in[IN_B] = make(app, CLIP_F32, 47, 29, f_small);
    in[IN_TA] = make(app, CLIP_F32, 16, 200, f_mat);
    in[IN_TB] = make(app, CLIP_F32, 200, 16, f_small);
    in[IN_C] = make(app, CLIP_C32, 12, 33, f_mat);
    in[IN_S] = make(app, CLIP_F32, 16, 16, f_pow);
    in[IN_E1] = make(app, CLIP_F32, 3, 0, f_mat);
    in[IN_E2] = make(app, CLIP_F32, 0, 4, f_mat);
    for (int i = 0; i < N_IN; i++)
        if (!in[i]) return CLIP_ERR_OUT_OF_MEMORY;
    /* K3 goes to the device, then its host copy is marked changed (nothing written), so the
     * first step that reads it uploads it again through the queue: on a unified-memory device
     * (PoCL) the only way to that enqueue, since a first upload there makes the buffer over the
     * host copy and enqueues nothing (lib/data.c). Small, so split chains' limit holds it. */
    void *h = NULL;
    s = clip_data_upload(in[IN_K3]);
    if (s == CLIP_OK) s = clip_data_host_write(in[IN_K3], &h);
    return s;
}

static clip_status set_params(clip_process *p, const char *params) {
    char buf[256];
    snprintf(buf, sizeof buf, "%s", params);
    clip_status s = CLIP_OK;
    for (char *save = NULL, *tok = strtok_r(buf, " ", &save); tok && s == CLIP_OK;
         tok = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) return CLIP_ERR_INVALID_ARG;
        *eq = '\0';
        s = clip_process_set_text(p, tok, eq + 1);
    }
    return s;
}

/* Reads d into the result through clip_data_read (straight from the device copy). */
static clip_status append(result *r, clip_data *d) {
    size_t bytes = clip_data_bytes(d);
    unsigned char *grown = realloc(r->bytes, r->n + bytes + 1);
    if (!grown) return CLIP_ERR_OUT_OF_MEMORY;
    r->bytes = grown;
    clip_status s = clip_data_read(d, r->bytes + r->n);
    if (s == CLIP_OK) r->n += bytes;
    return s;
}

/* Runs chain c on app: the steps, then reads, times, finishes and saves the last output. */
static result run_chain(clip_app *app, int c, const char *png, const char *out, int reference) {
    result r = {CLIP_OK, NULL, 0};
    clip_data *slot[MAX_SLOTS + MAX_STEPS] = {0};
    clip_process *procs[MAX_STEPS] = {0};
    clip_data *last = NULL;
    clip_status s = make_inputs(app, png, slot);
    for (int i = 0; i < MAX_STEPS && chains[c].steps[i].proc && s == CLIP_OK; i++) {
        const step *st = &chains[c].steps[i];
        if (reference) step_start[c][i] = clip_fault_calls();
        if (skip_step[c][i]) continue;
        clip_process *p = NULL;
        s = clip_process_create(app, st->proc, &p);
        procs[i] = p;
        if (s == CLIP_OK) s = set_params(p, st->params);
        for (int k = 0; k < 2 && s == CLIP_OK; k++)
            if (st->in[k] >= 0) s = clip_process_set_input(p, k, slot[st->in[k]]);
        if (s == CLIP_OK) s = clip_process_init(p);
        if (s == CLIP_ERR_UNSUPPORTED && st->optional && reference) {
            printf("fault: chain %s step %d (%s %s) unsupported here, skipped: %s\n",
                   chains[c].name, i, st->proc, st->params, clip_app_last_error(app));
            skip_step[c][i] = 1;
            s = CLIP_OK;
            continue;
        }
        if (s == CLIP_OK) s = clip_process_launch(p);
        if (s == CLIP_OK) s = clip_process_output(p, 0, &slot[MAX_SLOTS + i]);
        if (s == CLIP_OK) last = slot[MAX_SLOTS + i];
    }
    if (reference)
        for (int i = 0; i <= MAX_STEPS; i++)
            if (i == MAX_STEPS || !chains[c].steps[i].proc) {
                step_start[c][i] = clip_fault_calls();
                break;
            }
    for (int i = 0; i < MAX_STEPS && s == CLIP_OK; i++)
        if (procs[i] && slot[MAX_SLOTS + i]) s = append(&r, slot[MAX_SLOTS + i]);
    for (int i = 0; i < MAX_STEPS && s == CLIP_OK; i++) {
        double ms = 0.0;
        if (procs[i] && slot[MAX_SLOTS + i]) s = clip_process_time_ms(procs[i], &ms);
    }
    if (s == CLIP_OK) s = clip_app_finish(app);
    if (s == CLIP_OK && last) s = clip_save(app, out, last);
    for (int i = 0; i < MAX_STEPS; i++)
        clip_process_destroy(procs[i]);
    for (int i = 0; i < N_IN; i++)
        clip_data_destroy(slot[i]);
    r.status = s;
    return r;
}

/* The file is either absent or holds exactly the reference's last output (loaded through `app`,
 * or a new app when NULL). */
static int complete_or_absent(const char *path, const result *ref, clip_app *app) {
    if (access(path, F_OK) != 0) return 1;
    clip_app *own = app ? NULL : tu_app();
    if (own) app = own;
    clip_data *d = NULL;
    int ok = clip_load(app, path, &d) == CLIP_OK;
    const void *h = NULL;
    size_t bytes = ok ? clip_data_bytes(d) : 0;
    /* A PNG (built without matio) holds quantised values: loading it whole is the check. */
    int exact = strstr(path, ".mat") != NULL;
    if (ok && exact)
        ok = clip_data_host(d, &h) == CLIP_OK && bytes <= ref->n &&
             (bytes == 0 || memcmp(h, ref->bytes + ref->n - bytes, bytes) == 0);
    clip_data_destroy(d);
    clip_app_destroy(own);
    return ok;
}

static int expected_failure(clip_status s) {
    return s == CLIP_ERR_OPENCL || s == CLIP_ERR_OUT_OF_MEMORY || s == CLIP_ERR_BUILD;
}

static int same(const result *a, const result *b) {
    return a->status == CLIP_OK && b->status == CLIP_OK && a->n == b->n &&
           (a->n == 0 || memcmp(a->bytes, b->bytes, a->n) == 0);
}

/* Whether the site of call k (0-based in chain c) was called before: within its step (the
 * default: each step's first call at each site fails once), or anywhere in the chain (quick). */
static int seen_before(int c, const clip_fault_site *const *trace, long k, int quick) {
    long from = 0;
    for (int i = 0; !quick && i < MAX_STEPS && chains[c].steps[i].proc; i++)
        if (step_start[c][i] <= k) from = step_start[c][i];
    for (long j = from; j < k; j++)
        if (trace[j] == trace[k]) return 1;
    return 0;
}

/* Writes the PNG the chains load (no failure armed). */
static void write_png(const char *png) {
    clip_app *app = tu_app();
    clip_data *d = make(app, CLIP_F32, 40, 36, f_img);
    CHECK(d != NULL);
    /* f_img's fractions round to 0 and 1 in 8-bit samples, as asked. */
    const clip_save_opts clamp = {.sample = CLIP_SAMPLE_U8, .fit = CLIP_FIT_CLAMP};
    CHECK_OK(app, clip_save_with(app, png, d, &clamp, NULL));
    clip_data_destroy(d);
    clip_app_destroy(app);
}

int main(void) {
    const char *png = "fault_in.png";
    const char *out = clip_io_has("mat") ? "fault_out.mat" : "fault_out.png";
    const int all = CLIP_FAULT_ALLOC | CLIP_FAULT_ENQUEUE | CLIP_FAULT_BUILD;
    const int quick = tu_quick();
    const int full = getenv("CLIP_FAULT_FULL") && atoi(getenv("CLIP_FAULT_FULL"));
    if (!clip_io_has("png")) {
        printf("test_fault: built without PNG support, nothing to load; skipped\n");
        return 0;
    }
    write_png(png);
    clip_fault_sites_reset();
    long injected = 0, by_kind[8] = {0};
    for (int c = 0; c < N_CHAINS; c++) {
        if (chains[c].max_alloc) setenv("CLIP_TEST_MAX_ALLOC", chains[c].max_alloc, 1);
        /* Reference: no failure; records which site each call is. */
        static const clip_fault_site *trace[MAX_CALLS];
        clip_app *app = tu_app();
        remove(out);
        clip_fault_record(trace, MAX_CALLS);
        clip_fault_arm(all, 0);
        result ref = run_chain(app, c, png, out, 1);
        long calls = clip_fault_calls();
        clip_fault_record(NULL, 0);
        clip_app_destroy(app);
        if (ref.status != CLIP_OK || calls > MAX_CALLS)
            fprintf(stderr, "fault: chain %s: reference run %s after %ld calls\n", chains[c].name,
                    clip_status_str(ref.status), calls);
        CHECK(ref.status == CLIP_OK);
        CHECK(calls > 10 && calls <= MAX_CALLS);
        CHECK(complete_or_absent(out, &ref, NULL) && access(out, F_OK) == 0);
        if (ref.status != CLIP_OK || calls > MAX_CALLS) continue;
        /* The app's creation is part of every walk: count its calls too. */
        clip_fault_arm(all, 0);
        clip_app *probe = tu_app();
        long app_calls = clip_fault_calls();
        clip_app_destroy(probe);
        long failures = 0;
        for (long nth = 1; nth <= app_calls + calls; nth++) {
            const clip_fault_site *site = nth > app_calls ? trace[nth - app_calls - 1] : NULL;
            if (!full && site && seen_before(c, trace, nth - app_calls - 1, quick)) continue;
            remove(out);
            clip_fault_arm(all, nth);
            app = NULL;
            clip_status s = clip_app_create(&app, NULL);
            result r = {s, NULL, 0};
            if (s == CLIP_OK) r = run_chain(app, c, png, out, 0);
            clip_fault_arm(all, 0);
            if (!expected_failure(r.status))
                fprintf(stderr, "chain %s, call %ld (%s:%d): status %s\n", chains[c].name, nth,
                        site ? site->file : "app", site ? site->line : 0,
                        clip_status_str(r.status));
            CHECK(expected_failure(r.status));
            CHECK(app || s != CLIP_OK);
            /* The output is checked and the chain rerun on the same app (a new one where its
             * creation was what failed): nothing may be left broken, the bits must be the
             * same. */
            if (!app) app = tu_app();
            CHECK(complete_or_absent(out, &ref, app));
            result again = run_chain(app, c, png, out, 0);
            if (!same(&again, &ref))
                fprintf(stderr,
                        "chain %s, call %ld (%s:%d): the rerun differs from the reference "
                        "(status %s)\n",
                        chains[c].name, nth, site ? site->file : "app", site ? site->line : 0,
                        clip_status_str(again.status));
            CHECK(same(&again, &ref));
            clip_app_destroy(app);
            free(r.bytes);
            free(again.bytes);
            failures++;
            if (site) by_kind[site->kind]++;
        }
        printf("fault: chain %s: %ld OpenCL calls (+%ld creating the app), %ld failures injected\n",
               chains[c].name, calls, app_calls, failures);
        injected += failures;
        free(ref.bytes);
        unsetenv("CLIP_TEST_MAX_ALLOC");
    }
    /* Coverage: every site compiled into the library was reached by the chains above. */
    clip_fault_site *const *sites = NULL;
    size_t all_sites = clip_fault_sites(&sites), n_sites = 0, reached = 0;
    for (size_t i = 0; i < all_sites; i++) {
        if (sites[i]->kind == CLIP_FAULT_FALLBACK) continue; /* no error: tests/test_pinned.c */
        n_sites++;
        long n = atomic_load(&sites[i]->calls);
        reached += n > 0;
        if (n == 0)
            fprintf(stderr, "fault: site %s:%d never reached\n", sites[i]->file, sites[i]->line);
    }
    CHECK(n_sites >= 15);
    CHECK(reached == n_sites);
    printf("fault injection: %zu of %zu OpenCL call sites reached; %ld failures injected (%s) "
           "(in chains: %ld allocation, %ld enqueue, %ld build), each returned its code, left "
           "the app usable and the output complete or absent\n",
           reached, n_sites, injected,
           full    ? "every call"
           : quick ? "first call of each site per chain"
                   : "first call of each site per step",
           by_kind[CLIP_FAULT_ALLOC], by_kind[CLIP_FAULT_ENQUEUE], by_kind[CLIP_FAULT_BUILD]);
    remove(png);
    remove(out);
    return tu_finish("test_fault");
}
