/* `clip run` argument splitting (see run_args.h). */
#include "run_args.h"

#include <stdarg.h>
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

int run_args_parse(run_args *a, int argc, char **argv, const clip_process_desc *d) {
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "-o") || !strcmp(arg, "--output")) {
            if (i + 1 >= argc) goto missing;
            if (a->n_outputs == RUN_ARGS_MAX) return too_many(a, d, "outputs");
            a->outputs[a->n_outputs++] = argv[++i];
        } else if (!strcmp(arg, "--time")) {
            a->time = 1;
        } else if (!strcmp(arg, "--device")) {
            if (i + 1 >= argc) goto missing;
            a->device = argv[++i];
        } else if (!strcmp(arg, "--repeat")) {
            char *end = NULL;
            if (i + 1 >= argc) goto missing;
            a->repeat = strtol(argv[++i], &end, 10);
            if (*end || a->repeat < 1)
                return usage_error(a, 2, "--repeat expects a positive integer, got '%s'", argv[i]);
        } else if (!strncmp(arg, "--", 2) && arg[2]) {
            if (a->n_params == RUN_ARGS_MAX) return too_many(a, d, "parameters");
            const char *pname = arg + 2, *eq = strchr(pname, '=');
            if (eq) {
                int rc = add_split_param(a, pname, eq);
                if (rc) return rc;
                continue;
            }
            const clip_param_desc *pd = find_param(d, pname);
            if (!pd)
                return usage_error(a, 2, "%s has no option --%s (clip help %s lists them)", d->name,
                                   pname, d->name);
            const char *value = NULL;
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
