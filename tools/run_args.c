/* `clip run` argument splitting (see run_args.h). */
#include "run_args.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_args_init(run_args *a) {
    memset(a, 0, sizeof *a);
    a->repeat = 1;
}

void run_args_release(run_args *a) {
    for (int i = 0; i < RUN_ARGS_MAX; i++)
        free(a->owned[i]);
    run_args_init(a);
}

int run_args_integer(const char *s, long lo, long hi, long *v) {
    const char *digits = s + (*s == '-');
    if (*digits < '0' || *digits > '9') return -1;
    char *end = NULL;
    errno = 0;
    const long x = strtol(s, &end, 10);
    if (*end || errno == ERANGE || x < lo || x > hi) return -1;
    *v = x;
    return 0;
}

int run_args_size(const char *s, const char **end, size_t *v) {
    if (*s < '0' || *s > '9') return -1;
    char *e = NULL;
    errno = 0;
    const unsigned long long x = strtoull(s, &e, 10);
    if (errno == ERANGE) return -1;
#if SIZE_MAX < ULLONG_MAX
    if (x > SIZE_MAX) return -1;
#endif
    *v = (size_t)x;
    *end = e;
    return 0;
}

int run_args_exit_status(clip_status s) {
    switch (s) {
    case CLIP_ERR_UNKNOWN_PARAM:
    case CLIP_ERR_PARAM_TYPE:
    case CLIP_ERR_PARAM_RANGE:
    case CLIP_ERR_BAD_CHOICE:
    case CLIP_ERR_BAD_POWER:
    case CLIP_ERR_BAD_NORM_ORDER:
        return 2;
    default:
        return 1;
    }
}

static int usage_error(run_args *a, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int usage_error(run_args *a, int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->error, sizeof a->error, fmt, ap);
    va_end(ap);
    return status;
}

static int too_many(run_args *a, const clip_process_desc *d, const char *what) {
    return usage_error(a, 2, "%s: more than %d %s", d->name, RUN_ARGS_MAX, what);
}

static const clip_param_desc *find_param(const clip_process_desc *d, const char *name) {
    for (int k = 0; k < d->n_params; k++)
        if (!strcmp(d->params[k].name, name)) return &d->params[k];
    return NULL;
}

/* --NAME=VALUE: the name is copied out of the word, so argv stays as the caller gave it and any
 * length of name reaches the process's own check (which names it in its message). */
static int add_split_param(run_args *a, const char *word, const char *eq) {
    size_t len = (size_t)(eq - word);
    char *name = malloc(len + 1);
    if (!name) return usage_error(a, 1, "out of memory");
    memcpy(name, word, len);
    name[len] = '\0';
    a->owned[a->n_params] = name;
    a->params[a->n_params][0] = name;
    a->params[a->n_params][1] = eq + 1;
    a->n_params++;
    return 0;
}

static int is_option(const char *arg, size_t len, const char *name) {
    return strlen(name) == len && !strncmp(arg, name, len);
}

/* --sample NAME and --stack NAME into a->save. */
static int save_choice(run_args *a, int sample, const char *v) {
    static const char *const samples[] = {"uint8", "uint16", "uint32",  "int8",
                                          "int16", "int32",  "float32", "float64"};
    static const clip_sample sample_of[] = {CLIP_SAMPLE_U8,  CLIP_SAMPLE_U16, CLIP_SAMPLE_U32,
                                            CLIP_SAMPLE_I8,  CLIP_SAMPLE_I16, CLIP_SAMPLE_I32,
                                            CLIP_SAMPLE_F32, CLIP_SAMPLE_F64};
    if (sample) {
        for (size_t k = 0; k < sizeof samples / sizeof samples[0]; k++)
            if (!strcmp(v, samples[k])) {
                a->save.sample = sample_of[k];
                return 0;
            }
        return usage_error(a, 2,
                           "--sample expects uint8, uint16, uint32, int8, int16, int32, float32 or "
                           "float64, got '%s'",
                           v);
    }
    if (!strcmp(v, "pages"))
        a->save.third = CLIP_THIRD_PAGES;
    else if (!strcmp(v, "channels"))
        a->save.third = CLIP_THIRD_CHANNELS;
    else
        return usage_error(a, 2, "--stack expects pages or channels, got '%s'", v);
    return 0;
}

int run_args_parse(run_args *a, int argc, char **argv, const clip_process_desc *d) {
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-o")) {
            if (i + 1 >= argc) goto missing;
            if (a->n_outputs == RUN_ARGS_MAX) return too_many(a, d, "outputs");
            a->outputs[a->n_outputs++] = argv[++i];
        } else if (!strncmp(arg, "--", 2) && arg[2]) {
            const char *pname = arg + 2, *eq = strchr(pname, '=');
            const size_t len = eq ? (size_t)(eq - pname) : strlen(pname);
            /* The common options take --opt=VALUE as the process's parameters do; one of them
             * sent on to the process would be "no parameter 'device'", which misleads. */
            const char *value = eq ? eq + 1 : NULL;
            const int clamp = is_option(pname, len, "clamp"),
                      scale = is_option(pname, len, "scale");
            if (is_option(pname, len, "time") || clamp || scale) {
                if (eq)
                    return usage_error(a, 2, "--%.*s takes no value, got '%s'", (int)len, pname,
                                       arg);
                const clip_fit fit = clamp ? CLIP_FIT_CLAMP : CLIP_FIT_SCALE;
                if ((clamp || scale) && a->save.fit && a->save.fit != fit)
                    return usage_error(a, 2, "--clamp and --scale exclude each other: choose one");
                if (clamp || scale)
                    a->save.fit = fit;
                else
                    a->time = 1;
                continue;
            }
            const int output = is_option(pname, len, "output"),
                      device = is_option(pname, len, "device"),
                      repeat = is_option(pname, len, "repeat"),
                      sample = is_option(pname, len, "sample"),
                      stack = is_option(pname, len, "stack");
            if (output || device || repeat || sample || stack) {
                if (!eq) {
                    if (i + 1 >= argc) goto missing;
                    value = argv[++i];
                }
                if (output) {
                    if (a->n_outputs == RUN_ARGS_MAX) return too_many(a, d, "outputs");
                    a->outputs[a->n_outputs++] = value;
                } else if (device) {
                    a->device = value;
                } else if (sample || stack) {
                    const int rc = save_choice(a, sample, value);
                    if (rc) return rc;
                } else if (run_args_integer(value, 1, RUN_ARGS_REPEAT_MAX, &a->repeat)) {
                    return usage_error(a, 2, "--repeat expects an integer from 1 to %ld, got '%s'",
                                       RUN_ARGS_REPEAT_MAX, value);
                }
                continue;
            }
            if (a->n_params == RUN_ARGS_MAX) return too_many(a, d, "parameters");
            if (eq) {
                int rc = add_split_param(a, pname, eq);
                if (rc) return rc;
                continue;
            }
            const clip_param_desc *pd = find_param(d, pname);
            if (!pd)
                return usage_error(a, 2, "%s has no option --%s (clip help %s lists them)", d->name,
                                   pname, d->name);
            if (pd->kind != CLIP_PARAM_BOOL) {
                if (i + 1 >= argc) goto missing;
                value = argv[++i];
            }
            a->params[a->n_params][0] = pname;
            a->params[a->n_params][1] = value;
            a->n_params++;
        } else {
            if (a->n_inputs == RUN_ARGS_MAX) return too_many(a, d, "inputs");
            a->inputs[a->n_inputs++] = arg;
        }
    }
    if (a->n_inputs != d->n_inputs)
        return usage_error(a, 2, "%s takes %d input%s, got %d (clip help %s)", d->name, d->n_inputs,
                           d->n_inputs == 1 ? "" : "s", a->n_inputs, d->name);
    if (a->n_outputs > d->n_outputs)
        return usage_error(a, 2, "%s has %d output%s, got %d -o", d->name, d->n_outputs,
                           d->n_outputs == 1 ? "" : "s", a->n_outputs);
    return 0;
missing:
    return usage_error(a, 2, "%s: option '%s' needs a value", d->name, argv[argc - 1]);
}

int run_args_is_help(const char *arg) {
    return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}
