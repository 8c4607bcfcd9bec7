/* libFuzzer target for `clip run NAME ARG...` past the shell: the input is the argv, each word
 * ended by a 0 byte (a final word may lack it), so any word a shell can pass is reachable, and
 * only those. The first word names the process (an unregistered name must fail cleanly), the
 * rest go through tools/run_args.c, then, as the tool does, through clip_process_set_text on a
 * real process, whose inputs are small fixed arrays, and clip_process_init, which checks the
 * parameters together. A successful init is launched once and its output read back (the arrays
 * have a few elements: with the programs built, a whole input takes about a millisecond). Nothing
 * may crash, hang or leak; every failure must leave a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clip/clip.h"
#include "run_args.h"

/* conv2 --variant fft runs clFFT: its own sanitizer findings are set aside there. */
#include "../tests/clfft_sanitizer_hooks.h"
/* After a launch (PoCL's worker threads run) clang 14's LeakSanitizer crashed in its exit check
 * ("Tracer caught signal 11", as scripts/test.sh describes); use_tls=0 avoids it, and clip keeps
 * no heap pointers in TLS. */
const char *__lsan_default_options(void);
const char *__lsan_default_options(void) {
    return "use_tls=0";
}

static clip_app *app;
static clip_data *square, *vector, *filter; /* 4x4, 1x8, 3x3 single precision */

static clip_data *make(size_t rows, size_t cols) {
    size_t dims[2] = {rows, cols};
    float v[16];
    for (size_t i = 0; i < rows * cols; i++)
        v[i] = (float)((i * 7) % 5) - 1.5f;
    clip_data *d = NULL;
    if (clip_data_create_from(app, CLIP_F32, 2, dims, v, &d) != CLIP_OK) abort();
    return d;
}

static void setup(void) {
    /* A user's tuning cache would make results depend on the machine: point it at nothing. */
    setenv("CLIP_TUNING_CACHE", "/nonexistent/clip-fuzz-tuning.txt", 1);
    clip_criteria crit = {0};
    crit.type = CLIP_DEVICE_CPU;
    crit.ignore_env = 1;
    if (clip_app_create(&app, &crit) != CLIP_OK) {
        fprintf(stderr, "fuzz_cli: no CPU OpenCL device: %s\n", clip_app_last_error(NULL));
        abort();
    }
    square = make(4, 4);
    vector = make(1, 8);
    filter = make(3, 3);
}

/* Shapes each process can accept, so that init gets past the shape checks to the parameters. */
static clip_data *input_for(const char *process, int i) {
    if (!strcmp(process, "norm") || !strcmp(process, "dot")) return vector;
    if (!strcmp(process, "conv2") && i == 1) return filter;
    return square;
}

/* A failed call must say why: an empty message would leave the tool's user with "clip: ". (A
 * stale message from an earlier failure passes too: the public API cannot clear it.) */
static void expect_message(clip_status s) {
    if (s != CLIP_OK && !clip_app_last_error(app)[0]) abort();
}

static void run_process(const clip_process_desc *d, const run_args *a) {
    clip_process *p = NULL;
    clip_status s = clip_process_create(app, clip_process_desc_name(d), &p);
    if (s != CLIP_OK) {
        expect_message(s);
        return;
    }
    /* Unlike the tool, go on past a rejected parameter: init must cope with whatever the
     * accepted ones left, and later parameters get their turn. */
    for (int i = 0; i < a->n_params; i++)
        expect_message(clip_process_set_text(p, a->params[i][0], a->params[i][1]));
    for (int i = 0; i < a->n_inputs; i++)
        if (clip_process_set_input(p, i, input_for(clip_process_desc_name(d), i)) != CLIP_OK)
            abort();
    s = clip_process_init(p);
    expect_message(s);
    if (s == CLIP_OK) {
        clip_data *out = NULL;
        const void *h = NULL;
        s = clip_process_launch(p);
        if (s == CLIP_OK) s = clip_process_output(p, 0, &out);
        if (s == CLIP_OK) s = clip_data_host(out, &h);
        expect_message(s);
    }
    clip_process_destroy(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!app) setup();
    if (size == 0) return 0;
    /* The words, each 0-terminated in a copy (the extra byte ends an unterminated last word). */
    char *text = malloc(size + 1);
    int argc = 0;
    for (size_t i = 0; i < size; i++)
        argc += data[i] == 0;
    argc += data[size - 1] != 0;
    char **argv = malloc(((size_t)argc + 1) * sizeof *argv);
    if (!text || !argv) abort();
    memcpy(text, data, size);
    text[size] = '\0';
    for (size_t i = 0, w = 0; w < (size_t)argc; w++) {
        argv[w] = text + i;
        i += strlen(text + i) + 1;
    }
    argv[argc] = NULL;

    const clip_process_desc *d = clip_process_find(argv[0]);
    if (!d) {
        /* What the library says to a caller that skips the tool's lookup. */
        clip_process *p = NULL;
        clip_status s = clip_process_create(app, argv[0], &p);
        if (s == CLIP_OK || p) abort();
        expect_message(s);
    } else {
        run_args a;
        run_args_init(&a);
        int rc = run_args_parse(&a, argc - 1, argv + 1, d);
        if (rc != 0 && ((rc != 1 && rc != 2) || !a.error[0])) abort();
        if (rc == 0) {
            clip_criteria crit = {0};
            if (a.device && clip_criteria_from_spec(a.device, &crit) != CLIP_OK &&
                !clip_app_last_error(NULL)[0])
                abort();
            run_process(d, &a);
        }
        run_args_release(&a);
    }
    free(argv);
    free(text);
    return 0;
}
