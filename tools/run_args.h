/* The argument splitter of `clip run NAME ARG...`: sorts ARG... into input files, -o outputs,
 * the common options (--device, --time, --repeat), the save options (--sample, --clamp,
 * --scale, --stack; tools/help.c documents them) and the process's --PARAM values, checked
 * against the process's table. It opens nothing and prints nothing, so the tool and the fuzz
 * target (fuzz/fuzz_cli.c) run the same code.
 *
 *   run_args a;
 *   run_args_init(&a);
 *   if (run_args_parse(&a, argc, argv, desc)) { fprintf(stderr, "clip: %s\n", a.error); ... }
 *   ... a.inputs, a.params (set them with clip_process_set_text) ...
 *   run_args_release(&a);
 *
 * The strings in inputs, outputs, device and params[i][1] point into argv, which must outlive
 * the run_args; a parameter name given as --NAME=VALUE is copied (the run_args owns it). */
#ifndef CLIP_TOOLS_RUN_ARGS_H
#define CLIP_TOOLS_RUN_ARGS_H

#include "clip/io.h"
#include "clip/process_author.h"

/* At most this many inputs, outputs and parameters each (more is a usage error). */
#define RUN_ARGS_MAX 16

/* The largest --repeat of clip run and clip bench: each launch keeps a double for the median,
 * and a count past this is a typo, not a measurement. */
#define RUN_ARGS_REPEAT_MAX 1000000L

typedef struct run_args {
    const char *inputs[RUN_ARGS_MAX];
    int n_inputs;
    const char *outputs[RUN_ARGS_MAX];
    int n_outputs;
    /* name, value; value is NULL for a bare boolean flag (--correlate) */
    const char *params[RUN_ARGS_MAX][2];
    int n_params;
    const char *device;        /* --device SPEC, or NULL */
    int time;                  /* --time given */
    long repeat;               /* --repeat R, 1 if not given */
    clip_save_opts save;       /* --sample, --clamp/--scale, --stack: how images are saved */
    char *owned[RUN_ARGS_MAX]; /* copies of --NAME=VALUE names, freed by run_args_release */
    char error[512];           /* why run_args_parse failed, one line without "clip: " */
} run_args;

/* Empties a (repeat 1, nothing owned). */
void run_args_init(run_args *a);

/* Parses argv[0..argc) (the words after NAME) for process d into a, which must be freshly
 * initialised. Returns 0, or the tool's exit status with a.error set: 2 for a usage error
 * (unknown option, missing value, too many arguments, wrong count of inputs or outputs, bad
 * --repeat, an unknown --sample or --stack, --clamp with --scale), 1 when out of memory. The common
 * options take --opt VALUE and --opt=VALUE alike. Values are not checked here beyond --repeat: the
 * process checks its parameters (clip_process_set_text) and --device is the app's business. */
int run_args_parse(run_args *a, int argc, char **argv, const clip_process_desc *d);

/* Frees what a owns and empties it. */
void run_args_release(run_args *a);

/* s as a whole decimal integer in [lo, hi] into *v: 0, or -1 when s is empty, holds anything
 * but an optional '-' and digits (no space, no '+'), overflows a long or lies outside [lo, hi].
 * clip bench uses it too, so a count means the same to every command. */
int run_args_integer(const char *s, long lo, long hi, long *v);

/* The decimal size at the start of s into *v and where it ends into *end: 0, or -1 when s does
 * not start with a digit (strtoull would wrap "-5" to a huge size) or the value overflows. */
int run_args_size(const char *s, const char **end, size_t *v);

/* The tool's exit status for a failed call's status: 2 (usage) where it says a parameter's value
 * is wrong, whether the parameter table (clip_process_set_text) or the process's init found it
 * (range, choice, kind, matpow's power, norm's order); 1 for the rest (files, data, devices). */
int run_args_exit_status(clip_status s);

/* Whether arg asks for a command's usage (--help or -h), as every command of the tool takes it. */
int run_args_is_help(const char *arg);

#endif
