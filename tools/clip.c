/* The `clip` command-line tool: list devices, run any registered process on files, show help.
 * Every error is one line on stderr and a non-zero exit status (1 runtime, 2 usage). */
#define _POSIX_C_SOURCE 200809L /* SIGXFSZ */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "clip/clip.h"
#include "clip/process_author.h"
#include "plugins.h"
#include "run_args.h"
#include "timing.h"
#include "tune.h"

/* The full usage goes to stdout (clip help); an error gets one line on stderr. */
static int usage(FILE *f) {
    if (f == stderr) {
        fprintf(stderr, "clip: usage: clip devices | list | help [NAME] | run NAME IN... [-o OUT] "
                        "[--PARAM V]... | bench NAME SHAPE... | tune (clip help for more)\n");
        return 2;
    }
    fprintf(
        f,
        "usage: clip devices\n"
        "       clip run NAME IN... [-o OUT] [--PARAM VALUE]... [--device SPEC] [--time] "
        "[--repeat R]\n"
        "       " CLIP_BENCH_SYNOPSIS "\n"
        "       clip tune [--device SPEC] [--budget SECONDS] [--process matmul|matpow] "
        "[--types T,...] [--shapes MxNxK,...]\n"
        "       clip tune --process conv2 [--device SPEC] [--budget SECONDS] [--types T,...] "
        "[--filters 3x3,7x7,...] [--image RxC]\n"
        "       clip help [NAME]\n"
        "       clip list\n"
        "       clip --plugin FILE COMMAND ...  (processes from a plugin; also CLIP_PLUGIN_PATH)\n"
        "Without -o (or --output), run prints the output's values. Options of run also take "
        "--opt=VALUE.\n"
        "SPEC: gpu | cpu | index | name substring, or several devices: all | gpu:all | 1,2.\n"
        "Formats by extension: .mat .tif/.tiff .png .cfl\n");
    return 0;
}

/* devices and list take no arguments: --help says what they print, anything else is usage. */
static int no_args(const char *cmd, int argc, char **argv, const char *what) {
    if (argc == 0) return 0;
    if (argc == 1 && run_args_is_help(argv[0])) {
        printf("usage: clip %s\n%s\n", cmd, what);
        return -1;
    }
    fprintf(stderr, "clip: %s takes no arguments, got '%s' (clip %s --help)\n", cmd, argv[0], cmd);
    return 2;
}

static int fail(const char *what, clip_app *app) {
    fprintf(stderr, "clip: %s%s%s\n", what ? what : "", what && *what ? ": " : "",
            clip_app_last_error(app));
    return 1;
}

static const char *kind_str(clip_device_kind k) {
    return k == CLIP_DEVICE_GPU           ? "gpu"
           : k == CLIP_DEVICE_CPU         ? "cpu"
           : k == CLIP_DEVICE_ACCELERATOR ? "accel"
                                          : "other";
}

static int cmd_devices(int argc, char **argv) {
    char what[512];
    snprintf(what, sizeof what,
             "One line per OpenCL device; '*' marks the default (CLIP_DEVICE or --device choose "
             "another).\nThe default: %s.",
             clip_device_score_doc);
    const int rc = no_args("devices", argc, argv, what);
    if (rc) return rc < 0 ? 0 : rc;
    clip_device_info devs[64];
    size_t n = 0;
    if (clip_devices_list(devs, 64, &n) != CLIP_OK) return fail("devices", NULL);
    int def = 0;
    if (clip_device_select(NULL, &def) != CLIP_OK) def = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        const clip_device_info *d = &devs[i];
        printf("%c %d  %-5s %s | %s | %s | %u CUs %u MHz | %.1f GiB | fp64 %s",
               d->index == def ? '*' : ' ', d->index, kind_str(d->type), d->name, d->platform,
               d->version, d->compute_units, d->clock_mhz, (double)d->global_mem / (1 << 30),
               d->fp64 ? "yes" : "no");
        /* The NVIDIA architecture decides the tensor-core kernels (sm_80 on, wgmma at 9.0). */
        if (d->nv_arch) printf(" | compute capability %d.%d", d->nv_arch / 10, d->nv_arch % 10);
        printf("\n");
    }
    return 0;
}

static int cmd_list(void) {
    for (size_t i = 0; i < clip_process_count(); i++) {
        const clip_process_desc *d = clip_process_nth(i);
        printf("%-8s %s\n", clip_process_desc_name(d), clip_process_desc_summary(d));
    }
    return 0;
}

static int cmd_list_args(int argc, char **argv) {
    const int rc =
        no_args("list", argc, argv, "The registered processes, one a line with its summary.");
    return rc ? (rc < 0 ? 0 : rc) : cmd_list();
}

static int cmd_help(int argc, char **argv) {
    if (argc < 1 || run_args_is_help(argv[0])) {
        usage(stdout);
        printf("\nprocesses:\n");
        return cmd_list();
    }
    const clip_process_desc *d = clip_process_find(argv[0]);
    if (!d) {
        fprintf(stderr, "clip: help: no process named '%s' (clip list shows them)\n", argv[0]);
        return 2;
    }
    clip_process_help(d, stdout);
    return 0;
}

/* Prints data as MATLAB would list it, column-major, one element a line. */
static int print_data(clip_data *d, clip_app *app) {
    const void *h = NULL;
    if (clip_data_host(d, &h) != CLIP_OK) return fail("reading the result", app);
    clip_type t = clip_data_type(d);
    int cx = clip_type_is_complex(t), dbl = clip_type_is_double(t);
    for (size_t i = 0; i < clip_data_numel(d); i++) {
        double re =
            dbl ? ((const double *)h)[i * (cx ? 2 : 1)] : ((const float *)h)[i * (cx ? 2 : 1)];
        if (cx) {
            double im = dbl ? ((const double *)h)[2 * i + 1] : ((const float *)h)[2 * i + 1];
            printf("%.*g%+.*gi\n", dbl ? 17 : 9, re, dbl ? 17 : 9, im);
        } else {
            printf("%.*g\n", dbl ? 17 : 9, re);
        }
    }
    return 0;
}

/* Runs process d as the parsed arguments say: device, parameters, inputs, launches, outputs. */
static int run_parsed(const clip_process_desc *d, const run_args *a) {
    clip_criteria crit = {0};
    if (a->device) {
        /* A spec that does not parse is the command line's fault, as in bench and tune; one
         * that parses but matches no device is not (clip_app_create). */
        if (clip_criteria_from_spec(a->device, &crit) != CLIP_OK) {
            fail("--device", NULL);
            return 2;
        }
        crit.ignore_env = 1;
    }
    clip_app *app = NULL;
    if (clip_app_create(&app, &crit) != CLIP_OK) return fail("opening a device", NULL);
    clip_process *p = NULL;
    clip_data *in[RUN_ARGS_MAX] = {0};
    double *times = NULL;
    int rc = 1;
    if (clip_process_create(app, d->name, &p) != CLIP_OK) {
        fail(NULL, app);
        goto done;
    }
    for (int i = 0; i < a->n_params; i++) {
        clip_status s = clip_process_set_text(p, a->params[i][0], a->params[i][1]);
        if (s != CLIP_OK) {
            fail(NULL, app);
            rc = run_args_exit_status(s);
            goto done;
        }
    }
    for (int i = 0; i < a->n_inputs; i++) {
        if (clip_load(app, a->inputs[i], &in[i]) != CLIP_OK ||
            clip_process_set_input(p, i, in[i]) != CLIP_OK) {
            fail(NULL, app);
            goto done;
        }
    }
    /* Device times only when asked for (--time): each one costs the host an event. A value
     * the process refuses only at init (matpow's --power 2.5) is as much a usage error as one
     * its parameter table refuses (--power abc). */
    clip_status s = clip_process_init(p);
    if (s == CLIP_OK) s = clip_process_set_timing(p, a->time);
    if (s != CLIP_OK) {
        fail(NULL, app);
        rc = run_args_exit_status(s);
        goto done;
    }
    times = calloc((size_t)a->repeat, sizeof *times);
    if (!times) {
        fprintf(stderr, "clip: out of memory\n");
        goto done;
    }
    for (long r = 0; r < a->repeat; r++) {
        if (clip_process_launch(p) != CLIP_OK ||
            (a->time && clip_process_time_ms(p, &times[r]) != CLIP_OK)) {
            fail(NULL, app);
            goto done;
        }
    }
    if (a->time) {
        const double med = clip_tool_median(times, (size_t)a->repeat);
        fprintf(stderr, "time %s %.6f\n", d->name, med);
        fprintf(stderr, "variant %s %s\n", d->name, clip_process_variant(p));
    }
    for (int i = 0; i < d->n_outputs; i++) {
        clip_data *out = NULL;
        if (clip_process_output(p, i, &out) != CLIP_OK) {
            fail(NULL, app);
            goto done;
        }
        if (i < a->n_outputs) {
            if (clip_save(app, a->outputs[i], out) != CLIP_OK) {
                fail(NULL, app);
                goto done;
            }
        } else if (a->n_outputs == 0 && print_data(out, app)) {
            goto done;
        }
    }
    rc = 0;
done:
    free(times);
    clip_process_destroy(p);
    for (int i = 0; i < RUN_ARGS_MAX; i++)
        clip_data_destroy(in[i]);
    clip_app_destroy(app);
    return rc;
}

static int cmd_run(int argc, char **argv) {
    if (argc < 1) return usage(stderr);
    if (run_args_is_help(argv[0])) return usage(stdout);
    const clip_process_desc *d = clip_process_find(argv[0]);
    for (int i = 1; d && i < argc; i++)
        if (run_args_is_help(argv[i])) return cmd_help(1, argv);
    if (!d) {
        fprintf(stderr, "clip: no process named '%s' (clip list shows them)\n", argv[0]);
        return 2;
    }
    run_args a;
    run_args_init(&a);
    int rc = run_args_parse(&a, argc - 1, argv + 1, d);
    if (rc)
        fprintf(stderr, "clip: %s\n", a.error);
    else
        rc = run_parsed(d, &a);
    run_args_release(&a);
    return rc;
}

static int dispatch(int argc, char **argv) {
    if (argc < 2) return usage(stderr);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "devices")) return cmd_devices(argc - 2, argv + 2);
    if (!strcmp(cmd, "list")) return cmd_list_args(argc - 2, argv + 2);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return cmd_help(argc - 2, argv + 2);
    if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "bench")) return clip_bench_main(argc - 2, argv + 2);
    if (!strcmp(cmd, "tune")) return clip_tune_main(argc - 2, argv + 2);
    fprintf(stderr, "clip: unknown command '%s' (clip help lists the commands)\n", cmd);
    return 2;
}

int main(int argc, char **argv) {
    /* Past a file-size limit (ulimit -f) the kernel kills a writer with SIGXFSZ, mid-save and
     * without a word; ignored, the write fails with EFBIG and the save says "File too large".
     * Signal dispositions are the program's to choose, so this lives here, not in the library. */
    signal(SIGXFSZ, SIG_IGN);
    int rc = clip_tool_plugins(&argc, argv);
    if (rc == 0) rc = dispatch(argc, argv);
    /* printf's failures (a full disk, /dev/full, a closed stdout) only show in the stream's error
     * flag, and the last buffer is written at exit, too late for the status: a script reading
     * the values would otherwise take a truncated list for the result. After an error already
     * reported, its line stays the only one. */
    errno = 0;
    const int flushed = fflush(stdout) == 0;
    const int err = errno;
    if (rc == 0 && (!flushed || ferror(stdout))) {
        fprintf(stderr, "clip: writing the output: %s\n",
                !flushed && err ? strerror(err) : "a write failed");
        return 1;
    }
    return rc;
}
