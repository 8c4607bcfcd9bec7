/* Process parameters: validated against the descriptor's table; parsed from text for the CLI;
 * printed as help. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "process_internal.h"

static const char *kind_name(clip_param_kind k) {
    switch (k) {
    case CLIP_PARAM_REAL:
        return "real";
    case CLIP_PARAM_INT:
        return "int";
    case CLIP_PARAM_BOOL:
        return "bool";
    case CLIP_PARAM_CHOICE:
        return "choice";
    }
    return "?";
}

int clip_param_index(const clip_process_desc *d, const char *name) {
    if (!name) return -1;
    for (int i = 0; i < d->n_params; i++)
        if (!strcmp(d->params[i].name, name)) return i;
    return -1;
}

/* Finds the parameter or sets CLIP_ERR_UNKNOWN_PARAM listing the known ones. */
static clip_status lookup(const clip_process *p, const char *name, int *idx) {
    *idx = clip_param_index(p->desc, name);
    if (*idx >= 0) return CLIP_OK;
    char list[512] = "";
    size_t off = 0;
    for (int i = 0; i < p->desc->n_params && off < sizeof list; i++)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", i ? ", " : "",
                                p->desc->params[i].name);
    return clip_set_error(p->app, CLIP_ERR_UNKNOWN_PARAM, "%s: no parameter '%s' (parameters: %s)",
                          p->desc->name, name ? name : "(null)", off ? list : "none");
}

static clip_status wrong_kind(const clip_process *p, int i, const char *given) {
    return clip_set_error(p->app, CLIP_ERR_PARAM_TYPE, "%s: parameter '%s' is %s, not %s",
                          p->desc->name, p->desc->params[i].name,
                          kind_name(p->desc->params[i].kind), given);
}

static clip_status check_range(const clip_process *p, int i, double v) {
    const clip_param_desc *pd = &p->desc->params[i];
    if (pd->has_range && !clip_param_in_range(pd, v))
        return clip_set_error(p->app, CLIP_ERR_PARAM_RANGE, "%s: %s = %g is outside %c%g, %g%c",
                              p->desc->name, pd->name, v, pd->min_open ? '(' : '[', pd->min,
                              pd->max, pd->max_open ? ')' : ']');
    return CLIP_OK;
}

clip_status clip_process_set_real(clip_process *p, const char *name, double value) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_real: process is NULL");
    int i = -1;
    clip_status s = lookup(p, name, &i);
    if (s != CLIP_OK) return s;
    if (p->desc->params[i].kind != CLIP_PARAM_REAL) return wrong_kind(p, i, "real");
    if ((s = check_range(p, i, value)) != CLIP_OK) return s;
    p->values[i] = value;
    p->named[i] = -1;
    p->initialized = p->detached = 0;
    return CLIP_OK;
}

clip_status clip_process_set_int(clip_process *p, const char *name, long value) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_int: process is NULL");
    int i = -1;
    clip_status s = lookup(p, name, &i);
    if (s != CLIP_OK) return s;
    clip_param_kind k = p->desc->params[i].kind;
    if (k != CLIP_PARAM_INT && k != CLIP_PARAM_REAL) return wrong_kind(p, i, "int");
    if ((s = check_range(p, i, (double)value)) != CLIP_OK) return s;
    p->values[i] = (double)value;
    p->named[i] = -1;
    p->initialized = p->detached = 0;
    return CLIP_OK;
}

clip_status clip_process_set_bool(clip_process *p, const char *name, int value) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_bool: process is NULL");
    int i = -1;
    clip_status s = lookup(p, name, &i);
    if (s != CLIP_OK) return s;
    if (p->desc->params[i].kind != CLIP_PARAM_BOOL) return wrong_kind(p, i, "bool");
    p->values[i] = value ? 1.0 : 0.0;
    p->initialized = p->detached = 0;
    return CLIP_OK;
}

clip_status clip_process_set_choice(clip_process *p, const char *name, const char *value) {
    if (!p)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_choice: process is NULL");
    int i = -1;
    clip_status s = lookup(p, name, &i);
    if (s != CLIP_OK) return s;
    const clip_param_desc *pd = &p->desc->params[i];
    /* A REAL with names takes one of them in place of a number: NaN, with the name's index. */
    const int real_named = pd->kind == CLIP_PARAM_REAL && pd->choices;
    if (pd->kind != CLIP_PARAM_CHOICE && !real_named) return wrong_kind(p, i, "choice");
    for (int c = 0; value && pd->choices[c]; c++) {
        if (!strcmp(pd->choices[c], value)) {
            p->values[i] = real_named ? NAN : c;
            p->named[i] = real_named ? c : -1;
            p->initialized = p->detached = 0;
            return CLIP_OK;
        }
    }
    char list[256] = "";
    size_t off = 0;
    for (int c = 0; pd->choices[c] && off < sizeof list; c++)
        off +=
            (size_t)snprintf(list + off, sizeof list - off, "%s%s", c ? "|" : "", pd->choices[c]);
    if (real_named)
        return clip_set_error(p->app, CLIP_ERR_BAD_CHOICE, "%s: %s '%s' is neither a number nor %s",
                              p->desc->name, pd->name, value ? value : "(null)", list);
    return clip_set_error(p->app, CLIP_ERR_BAD_CHOICE, "%s: %s '%s' is not one of %s",
                          p->desc->name, pd->name, value ? value : "(null)", list);
}

static int parse_bool(const char *t, int *out) {
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    if (!t) {
        *out = 1;
        return 0;
    }
    for (int i = 0; i < 4; i++) {
        if (!strcasecmp(t, yes[i])) return *out = 1, 0;
        if (!strcasecmp(t, no[i])) return *out = 0, 0;
    }
    return -1;
}

clip_status clip_process_set_text(clip_process *p, const char *name, const char *text) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_set_text: process is NULL");
    int i = -1;
    clip_status s = lookup(p, name, &i);
    if (s != CLIP_OK) return s;
    const clip_param_desc *pd = &p->desc->params[i];
    if (pd->kind == CLIP_PARAM_BOOL) {
        int b = 0;
        if (parse_bool(text, &b))
            return clip_set_error(p->app, CLIP_ERR_PARAM_RANGE,
                                  "%s: %s expects true/false, got '%s'", p->desc->name, pd->name,
                                  text);
        return clip_process_set_bool(p, name, b);
    }
    if (!text)
        return clip_set_error(p->app, CLIP_ERR_PARAM_RANGE, "%s: %s needs a value", p->desc->name,
                              pd->name);
    if (pd->kind == CLIP_PARAM_CHOICE) return clip_process_set_choice(p, name, text);
    char *end = NULL;
    errno = 0;
    if (pd->kind == CLIP_PARAM_INT) {
        long v = strtol(text, &end, 10);
        if (end == text || *end || errno)
            return clip_set_error(p->app, CLIP_ERR_PARAM_RANGE,
                                  "%s: %s expects an integer, got '%s'", p->desc->name, pd->name,
                                  text);
        return clip_process_set_int(p, name, v);
    }
    double v = strtod(text, &end); /* strtod accepts inf, -inf, nan */
    if ((end == text || *end) && pd->choices) return clip_process_set_choice(p, name, text);
    if (end == text || *end || (errno && !isinf(v) && v != 0.0))
        return clip_set_error(p->app, CLIP_ERR_PARAM_RANGE, "%s: %s expects a number, got '%s'",
                              p->desc->name, pd->name, text);
    return clip_process_set_real(p, name, v);
}

static clip_status get_checked(const clip_process *p, const char *name, clip_param_kind k, int *i) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_get: process is NULL");
    clip_status s = lookup(p, name, i);
    if (s != CLIP_OK) return s;
    if (p->desc->params[*i].kind != k) return wrong_kind(p, *i, kind_name(k));
    return CLIP_OK;
}

clip_status clip_process_get_real(const clip_process *p, const char *name, double *value) {
    int i = -1;
    clip_status s = get_checked(p, name, CLIP_PARAM_REAL, &i);
    if (s == CLIP_OK && value) *value = p->values[i];
    return s;
}
clip_status clip_process_get_int(const clip_process *p, const char *name, long *value) {
    int i = -1;
    clip_status s = get_checked(p, name, CLIP_PARAM_INT, &i);
    if (s == CLIP_OK && value) *value = (long)p->values[i];
    return s;
}
clip_status clip_process_get_bool(const clip_process *p, const char *name, int *value) {
    int i = -1;
    clip_status s = get_checked(p, name, CLIP_PARAM_BOOL, &i);
    if (s == CLIP_OK && value) *value = p->values[i] != 0.0;
    return s;
}
clip_status clip_process_get_choice(const clip_process *p, const char *name, const char **value) {
    if (!p) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_get: process is NULL");
    int i = -1;
    clip_status s = lookup(p, name, &i);
    if (s == CLIP_OK && p->desc->params[i].kind == CLIP_PARAM_REAL && p->named[i] >= 0) {
        if (value) *value = p->desc->params[i].choices[p->named[i]];
        return CLIP_OK;
    }
    if (s == CLIP_OK) s = get_checked(p, name, CLIP_PARAM_CHOICE, &i);
    if (s == CLIP_OK && value) *value = p->desc->params[i].choices[(int)p->values[i]];
    return s;
}

/* For process implementations. A name the table lacks is the process's own bug (a misspelling):
 * it reads 0 and is remembered, and the init or launch that read it fails (lib/process.c). */
static void note_unknown(const clip_process *p, const char *name) {
    clip_process *q = (clip_process *)p; /* the note is the process's, not its parameters' */
    if (!q->unknown_param[0])
        snprintf(q->unknown_param, sizeof q->unknown_param, "%s", name ? name : "(null)");
}

double clip_proc_real(const clip_process *p, const char *name) {
    int i = clip_param_index(p->desc, name);
    if (i < 0) note_unknown(p, name);
    return i < 0 ? 0.0 : p->values[i];
}
long clip_proc_int(const clip_process *p, const char *name) {
    return (long)clip_proc_real(p, name);
}
int clip_proc_bool(const clip_process *p, const char *name) {
    return clip_proc_real(p, name) != 0.0;
}
int clip_proc_choice(const clip_process *p, const char *name) {
    return (int)clip_proc_real(p, name);
}
int clip_proc_named(const clip_process *p, const char *name) {
    int i = clip_param_index(p->desc, name);
    if (i < 0) note_unknown(p, name);
    return i < 0 ? -1 : p->named[i];
}

static void print_default(const clip_param_desc *pd, FILE *f) {
    switch (pd->kind) {
    case CLIP_PARAM_REAL:
        fprintf(f, "%g", pd->def);
        break;
    case CLIP_PARAM_INT:
        fprintf(f, "%ld", (long)pd->def);
        break;
    case CLIP_PARAM_BOOL:
        fprintf(f, "%s", pd->def != 0.0 ? "true" : "false");
        break;
    case CLIP_PARAM_CHOICE:
        fprintf(f, "%s", pd->choices[(int)pd->def]);
        break;
    }
}

clip_status clip_process_help(const clip_process_desc *d, FILE *f) {
    if (!d || !f) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_help: NULL argument");
    char why[256];
    if (clip_desc_check(d, why, sizeof why))
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_help: %s", why);
    fprintf(f, "%s: %s\n\nusage: clip run %s", d->name, d->summary, d->name);
    for (int i = 0; i < d->n_inputs; i++)
        fprintf(f, " IN%d", i + 1);
    fprintf(f, " -o OUT");
    for (int i = 0; i < d->n_params; i++) {
        const clip_param_desc *pd = &d->params[i];
        fprintf(f, pd->kind == CLIP_PARAM_BOOL ? " [--%s]" : " [--%s %s]", pd->name,
                pd->kind == CLIP_PARAM_CHOICE ? "NAME"
                : pd->kind == CLIP_PARAM_INT  ? "N"
                                              : "X");
    }
    fprintf(f, "\n\ninputs:\n");
    for (int i = 0; i < d->n_inputs; i++)
        fprintf(f, "  IN%d  %s  %s\n", i + 1, d->input_names[i], d->input_docs[i]);
    fprintf(f, "outputs:\n");
    for (int i = 0; i < d->n_outputs; i++)
        fprintf(f, "  OUT%s  %s  %s\n", d->n_outputs > 1 ? "n" : "", d->output_names[i],
                d->output_docs[i]);
    if (d->transposes)
        fprintf(f, "transposes: for 2-D inputs, transposed inputs give the outputs transposed\n"
                   "  (row-major arrays, such as NumPy's C order, go in without a copy)\n");
    if (d->n_params) fprintf(f, "parameters:\n");
    for (int i = 0; i < d->n_params; i++) {
        const clip_param_desc *pd = &d->params[i];
        fprintf(f, "  --%-12s %-6s default ", pd->name, kind_name(pd->kind));
        print_default(pd, f);
        if (pd->kind == CLIP_PARAM_CHOICE) {
            fprintf(f, ", one of ");
            for (int c = 0; pd->choices[c]; c++)
                fprintf(f, "%s%s", c ? "|" : "", pd->choices[c]);
        } else if (pd->has_range) {
            fprintf(f, ", in %c%g, %g%c", pd->min_open ? '(' : '[', pd->min, pd->max,
                    pd->max_open ? ')' : ']');
        }
        if (pd->kind == CLIP_PARAM_REAL && pd->choices) {
            fprintf(f, ", or ");
            for (int c = 0; pd->choices[c]; c++)
                fprintf(f, "%s%s", c ? "|" : "", pd->choices[c]);
        }
        fprintf(f, "\n      %s\n", pd->doc);
    }
    return CLIP_OK;
}
