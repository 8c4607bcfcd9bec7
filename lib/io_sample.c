/* The sample type of an image save, and the check that every value fits it: a save keeps the
 * values it was given, changes them only where a clamp or a scale was asked for (and says how),
 * or refuses before anything is written. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io_internal.h"

/* One pass over the values: what an integer sample type would lose. */
typedef struct value_census {
    size_t n, nan, neg, frac, above8, above16, bad8, bad16;
    size_t frac8, frac16; /* fractional values inside 0..255, 0..65535: those a clamp rounds */
    size_t pos_inf, neg_inf;
    double min, max; /* over finite values; min > max when there is none */
    double frac_example, below_example;
} value_census;

static void take_census(const void *host, clip_type t, size_t n, value_census *c) {
    memset(c, 0, sizeof *c);
    c->n = n;
    c->min = INFINITY;
    c->max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const double v = clip_io_real_at(host, t, i);
        if (v != v) {
            c->nan++;
            c->bad8++;
            c->bad16++;
            continue;
        }
        if (isinf(v)) {
            if (v > 0) {
                c->pos_inf++;
                c->above8++;
                c->above16++;
            } else {
                if (!c->neg) c->below_example = v;
                c->neg_inf++;
                c->neg++;
            }
            c->bad8++;
            c->bad16++;
            continue;
        }
        if (v < c->min) c->min = v;
        if (v > c->max) c->max = v;
        const int frac = v != floor(v), neg = v<0, a8 = v> 255.0, a16 = v > 65535.0;
        if (frac && !c->frac) c->frac_example = v;
        if (neg && !c->neg) c->below_example = v;
        c->frac += (size_t)frac;
        c->frac8 += (size_t)(frac && !neg && !a8);
        c->frac16 += (size_t)(frac && !neg && !a16);
        c->neg += (size_t)neg;
        c->above8 += (size_t)a8;
        c->above16 += (size_t)a16;
        c->bad8 += (size_t)(frac || neg || a8);
        c->bad16 += (size_t)(frac || neg || a16);
    }
}

static const char *sample_name(clip_sample s) {
    switch (s) {
    case CLIP_SAMPLE_U8:
        return "8-bit unsigned";
    case CLIP_SAMPLE_U16:
        return "16-bit unsigned";
    case CLIP_SAMPLE_F32:
        return "32-bit float";
    case CLIP_SAMPLE_F64:
        return "64-bit float";
    default:
        return "automatic";
    }
}

static const char *plural(size_t n) {
    return n == 1 ? "" : "s";
}

/* Appends to buf (of cap bytes) what printf would make, keeping it terminated. */
static void add(char *buf, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void add(char *buf, size_t cap, const char *fmt, ...) {
    size_t len = strlen(buf);
    if (len + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, cap - len, fmt, ap);
    va_end(ap);
}

/* "1 above 65535 (largest 70000), 1 fractional (e.g. 0.5), 1 NaN" */
static void list_misfits(const value_census *c, double max, char *buf, size_t cap) {
    const size_t above = max > 255.0 ? c->above16 : c->above8;
    const char *sep = "";
    buf[0] = '\0';
    if (above) {
        add(buf, cap, "%zu above %.0f", above, max);
        if (c->pos_inf)
            add(buf, cap, " (%zu of them Inf)", c->pos_inf);
        else
            add(buf, cap, " (largest %.17g)", c->max);
        sep = ", ";
    }
    if (c->neg) {
        add(buf, cap, "%s%zu below 0 (e.g. %.17g)", sep, c->neg, c->below_example);
        sep = ", ";
    }
    if (c->frac) {
        add(buf, cap, "%s%zu fractional (e.g. %.17g)", sep, c->frac, c->frac_example);
        sep = ", ";
    }
    if (c->nan) add(buf, cap, "%s%zu NaN", sep, c->nan);
}

static clip_status refuse(clip_app *app, const char *op, const char *path, const value_census *c,
                          clip_sample s, int float_ok) {
    const double max = s == CLIP_SAMPLE_U8 ? 255.0 : 65535.0;
    char what[256];
    list_misfits(c, max, what, sizeof what);
    return clip_set_error(
        app, CLIP_ERR_TYPE,
        "%s: %s: %zu of %zu values do not fit %s samples (whole numbers 0..%.0f): "
        "%s; nothing was written (ask for a clamp or a scale to change them%s)",
        op, path, s == CLIP_SAMPLE_U8 ? c->bad8 : c->bad16, c->n, sample_name(s), max, what,
        float_ok ? ", or a float sample type to keep them"
                 : ", or save as TIFF, whose float samples keep them");
}

/* The report of a clamp: what changed, in words. */
static size_t report_clamp(const value_census *c, clip_sample s, char *buf, size_t cap) {
    const double max = s == CLIP_SAMPLE_U8 ? 255.0 : 65535.0;
    const size_t above = s == CLIP_SAMPLE_U8 ? c->above8 : c->above16;
    const char *sep = "";
    buf[0] = '\0';
    if (above) {
        add(buf, cap, "clamped %zu value%s above %.0f to %.0f", above, plural(above), max, max);
        sep = ", ";
    }
    if (c->neg) {
        add(buf, cap, "%sclamped %zu value%s below 0 to 0", sep, c->neg, plural(c->neg));
        sep = ", ";
    }
    /* A fraction clamped away was counted above already; those in range are rounded. */
    const size_t frac = s == CLIP_SAMPLE_U8 ? c->frac8 : c->frac16;
    if (frac) {
        add(buf, cap, "%srounded %zu fractional value%s to nearest", sep, frac, plural(frac));
        sep = ", ";
    }
    if (c->nan) add(buf, cap, "%sstored %zu NaN as 0", sep, c->nan);
    if (buf[0]) add(buf, cap, " (%s samples)", sample_name(s));
    return s == CLIP_SAMPLE_U8 ? c->bad8 : c->bad16;
}

static size_t report_scale(const void *host, clip_type t, const value_census *c,
                           const clip_io_fit *f, char *buf, size_t cap) {
    size_t changed = 0;
    for (size_t i = 0; i < c->n; i++) {
        const double v = clip_io_real_at(host, t, i);
        changed += (double)clip_io_fit_value(f, v) != v;
    }
    buf[0] = '\0';
    if (!changed) return 0;
    if (c->min <= c->max)
        add(buf, cap,
            "scaled the values' range [%.17g, %.17g] linearly onto 0..%.0f and rounded "
            "(stored = round((value - %.17g) * %.17g)), changing %zu of %zu values",
            c->min, c->max, f->max, f->lo, f->scale, changed, c->n);
    else
        add(buf, cap, "no finite value to scale: stored every value as 0 or %.0f", f->max);
    if (c->nan) add(buf, cap, "; stored %zu NaN as 0", c->nan);
    if (c->pos_inf || c->neg_inf) add(buf, cap, "; Inf as %.0f, -Inf as 0", f->max);
    add(buf, cap, " (%s samples)", sample_name(f->sample));
    return changed;
}

clip_status clip_io_choose_sample(clip_app *app, const char *op, const char *path, const void *host,
                                  clip_type t, size_t n, clip_sample want, clip_fit fit,
                                  int float_ok, clip_io_fit *f, clip_save_report *report) {
    memset(f, 0, sizeof *f);
    if (fit != CLIP_FIT_EXACT && fit != CLIP_FIT_CLAMP && fit != CLIP_FIT_SCALE)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "%s: %s: unknown fit %d", op, path,
                              (int)fit);
    if (want != CLIP_SAMPLE_AUTO && want != CLIP_SAMPLE_U8 && want != CLIP_SAMPLE_U16 &&
        !(float_ok && (want == CLIP_SAMPLE_F32 || want == CLIP_SAMPLE_F64)))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "%s: %s: %s: sample type %d is not one this format stores (%s)", op,
                              path, float_ok ? "TIFF" : "PNG", (int)want,
                              float_ok ? "8/16-bit unsigned, 32/64-bit float"
                                       : "8/16-bit unsigned only");
    value_census c;
    take_census(host, t, n, &c);
    clip_sample s = want;
    if (s == CLIP_SAMPLE_AUTO) {
        if (fit != CLIP_FIT_SCALE && !c.bad8)
            s = CLIP_SAMPLE_U8;
        else if (fit != CLIP_FIT_SCALE && !c.bad16)
            s = CLIP_SAMPLE_U16;
        else if (float_ok && fit == CLIP_FIT_EXACT)
            s = t == CLIP_F64 ? CLIP_SAMPLE_F64 : CLIP_SAMPLE_F32;
        else
            s = CLIP_SAMPLE_U16; /* PNG's widest; where a fit was asked for, TIFF's too */
    }
    f->sample = s;
    f->fit = fit;
    if (report) {
        report->sample = s;
        report->changed = 0;
        report->text[0] = '\0';
    }
    if (s == CLIP_SAMPLE_F32 || s == CLIP_SAMPLE_F64) return CLIP_OK; /* float keeps them */
    f->max = s == CLIP_SAMPLE_U8 ? 255.0 : 65535.0;
    const size_t bad = s == CLIP_SAMPLE_U8 ? c.bad8 : c.bad16;
    if (fit == CLIP_FIT_EXACT) return bad ? refuse(app, op, path, &c, s, float_ok) : CLIP_OK;
    char text[sizeof report->text];
    size_t changed;
    if (fit == CLIP_FIT_CLAMP) {
        changed = report_clamp(&c, s, text, sizeof text);
    } else {
        f->lo = c.min <= c.max ? c.min : 0.0;
        f->scale = c.min < c.max ? f->max / (c.max - c.min) : 0.0;
        changed = report_scale(host, t, &c, f, text, sizeof text);
    }
    if (report) {
        report->changed = changed;
        snprintf(report->text, sizeof report->text, "%s", text);
    }
    return CLIP_OK;
}
