/* Registration's check of a descriptor: every field the core, the CLI, help and the bindings
 * read is verified here once, so that none of them meets a NULL table or a count that lies. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define NAME_MAX_LEN 63

static int fail(char *why, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(char *why, size_t cap, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, cap, fmt, ap);
    va_end(ap);
    return 1;
}

/* Letters, digits and '_', not starting with a digit, under 64 characters. */
static int is_identifier(const char *s) {
    if (!s || !*s || strlen(s) > NAME_MAX_LEN || (*s >= '0' && *s <= '9')) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return 0;
    return 1;
}

/* Inputs or outputs: names (identifiers, distinct) and docs for each of n. */
static int check_io(const clip_process_desc *d, const char *what, int n, int min,
                    const char *const *names, const char *const *docs, char *why, size_t cap) {
    if (n < min || n > CLIP_PROC_MAX_IO)
        return fail(why, cap, "'%s': n_%ss = %d is outside %d..%d", d->name, what, n, min,
                    CLIP_PROC_MAX_IO);
    if (n && !names)
        return fail(why, cap, "'%s': %s_names is NULL (n_%ss = %d)", d->name, what, what, n);
    if (n && !docs)
        return fail(why, cap, "'%s': %s_docs is NULL (n_%ss = %d)", d->name, what, what, n);
    for (int i = 0; i < n; i++) {
        if (!is_identifier(names[i]))
            return fail(why, cap, "'%s': %s_names[%d] is %s", d->name, what, i,
                        names[i] ? "not an identifier" : "NULL");
        if (!docs[i] || !*docs[i])
            return fail(why, cap, "'%s': %s_docs[%d] (%s) is missing", d->name, what, i, names[i]);
        for (int j = 0; j < i; j++)
            if (!strcmp(names[i], names[j]))
                return fail(why, cap, "'%s': %s name '%s' is used twice", d->name, what, names[i]);
    }
    return 0;
}

int clip_param_in_range(const clip_param_desc *pd, double v) {
    if (isnan(v)) return 0;
    if (pd->min_open ? !(v > pd->min) : !(v >= pd->min)) return 0;
    return pd->max_open ? v < pd->max : v <= pd->max;
}

static int check_param(const clip_process_desc *d, int i, char *why, size_t cap) {
    const clip_param_desc *pd = &d->params[i];
    if (!is_identifier(pd->name))
        return fail(why, cap, "'%s': params[%d].name is %s", d->name, i,
                    pd->name ? "not an identifier" : "NULL");
    for (int j = 0; j < i; j++)
        if (!strcmp(d->params[j].name, pd->name))
            return fail(why, cap, "'%s': parameter '%s' is declared twice", d->name, pd->name);
    if ((unsigned)pd->kind > CLIP_PARAM_CHOICE)
        return fail(why, cap, "'%s': parameter '%s' has kind %d, not a clip_param_kind", d->name,
                    pd->name, (int)pd->kind);
    if (!pd->doc || !*pd->doc)
        return fail(why, cap, "'%s': parameter '%s' has no doc", d->name, pd->name);
    if (pd->flags & ~(CLIP_PARAM_EXPERT | CLIP_PARAM_AUTO))
        return fail(why, cap, "'%s': parameter '%s' has unknown flags 0x%x", d->name, pd->name,
                    pd->flags);
    if (pd->kind == CLIP_PARAM_CHOICE) {
        if (!pd->choices || !pd->choices[0])
            return fail(why, cap, "'%s': CHOICE parameter '%s' has no choices", d->name, pd->name);
        int n = 0;
        while (pd->choices[n])
            n++;
        if (!(pd->def >= 0 && pd->def < n) || pd->def != (int)pd->def)
            return fail(why, cap,
                        "'%s': parameter '%s': default %g is not an index of its %d choices",
                        d->name, pd->name, pd->def, n);
        return 0;
    }
    if (pd->kind == CLIP_PARAM_BOOL && pd->def != 0.0 && pd->def != 1.0)
        return fail(why, cap, "'%s': bool parameter '%s' has default %g (0 or 1)", d->name,
                    pd->name, pd->def);
    if (pd->kind == CLIP_PARAM_INT && pd->def != floor(pd->def))
        return fail(why, cap, "'%s': int parameter '%s' has default %g", d->name, pd->name,
                    pd->def);
    if (pd->choices && pd->kind != CLIP_PARAM_REAL)
        return fail(why, cap, "'%s': parameter '%s' has names but is not REAL or CHOICE", d->name,
                    pd->name);
    if (!pd->has_range || pd->kind == CLIP_PARAM_BOOL) return 0;
    if (isnan(pd->min) || isnan(pd->max) || pd->min > pd->max ||
        (pd->min == pd->max && (pd->min_open || pd->max_open)))
        return fail(why, cap, "'%s': parameter '%s' has an empty range %c%g, %g%c", d->name,
                    pd->name, pd->min_open ? '(' : '[', pd->min, pd->max, pd->max_open ? ')' : ']');
    if (!clip_param_in_range(pd, pd->def))
        return fail(why, cap, "'%s': parameter '%s': default %g is outside %c%g, %g%c", d->name,
                    pd->name, pd->def, pd->min_open ? '(' : '[', pd->min, pd->max,
                    pd->max_open ? ')' : ']');
    return 0;
}

int clip_desc_check(const clip_process_desc *d, char *why, size_t cap) {
    if (!d) return fail(why, cap, "descriptor is NULL");
    if (d->abi != CLIP_PROCESS_ABI)
        return fail(why, cap,
                    "descriptor has abi %u, this clip reads %d (set .abi = "
                    "CLIP_PROCESS_ABI and rebuild against this clip's headers)",
                    d->abi, CLIP_PROCESS_ABI);
    if (!is_identifier(d->name))
        return fail(why, cap, "descriptor name is %s",
                    d->name ? "not an identifier (letters, "
                              "digits and '_', under 64 characters)"
                            : "NULL");
    if (!d->summary || !*d->summary) return fail(why, cap, "'%s': summary is missing", d->name);
    if (!d->init) return fail(why, cap, "'%s': init is NULL", d->name);
    if (!d->launch) return fail(why, cap, "'%s': launch is NULL", d->name);
    if (check_io(d, "input", d->n_inputs, 0, d->input_names, d->input_docs, why, cap)) return 1;
    if (check_io(d, "output", d->n_outputs, 1, d->output_names, d->output_docs, why, cap)) return 1;
    if (d->n_params < 0)
        return fail(why, cap, "'%s': n_params = %d is negative", d->name, d->n_params);
    if (d->n_params && !d->params)
        return fail(why, cap, "'%s': params is NULL (n_params = %d)", d->name, d->n_params);
    for (int i = 0; i < d->n_params; i++)
        if (check_param(d, i, why, cap)) return 1;
    return 0;
}
