/* The sample type of an image save, and the check that every value fits it: a save keeps the
 * values it was given, changes them only where a clamp or a scale was asked for (and says how),
 * or refuses before anything is written. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io_internal.h"

/* The integer sample types, narrowest first: the order AUTO tries them in. */
static const struct int_sample {
    clip_sample sample;
    double lo, hi;
    const char *name;
} int_samples[] = {
    {CLIP_SAMPLE_U8, 0, 255, "8-bit unsigned"},
    {CLIP_SAMPLE_I8, -128, 127, "8-bit signed"},
    {CLIP_SAMPLE_U16, 0, 65535, "16-bit unsigned"},
    {CLIP_SAMPLE_I16, -32768, 32767, "16-bit signed"},
    {CLIP_SAMPLE_U32, 0, 4294967295.0, "32-bit unsigned"},
    {CLIP_SAMPLE_I32, -2147483648.0, 2147483647.0, "32-bit signed"},
};
#define N_INT (sizeof int_samples / sizeof int_samples[0])

static const struct int_sample *int_sample_of(clip_sample s) {
    for (size_t i = 0; i < N_INT; i++)
        if (int_samples[i].sample == s) return &int_samples[i];
    return NULL;
}

static const char *sample_name(clip_sample s) {
    const struct int_sample *is = int_sample_of(s);
    return is ? is->name : s == CLIP_SAMPLE_F32 ? "32-bit float" : "64-bit float";
}

/* The first pass: whether every value is a whole number, and the finite range. */
typedef struct value_range {
    size_t n, nan, inf, frac;
    double min, max; /* over finite values; min > max when there is none */
} value_range;

static void take_range(const void *host, clip_type t, size_t n, value_range *r) {
    memset(r, 0, sizeof *r);
    r->n = n;
    r->min = INFINITY;
    r->max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        const double v = clip_io_real_at(host, t, i);
        if (v != v) {
            r->nan++;
        } else if (isinf(v)) {
            r->inf++;
        } else {
            if (v < r->min) r->min = v;
            if (v > r->max) r->max = v;
            r->frac += v != floor(v);
        }
    }
}

/* Whether every value is a whole number in [lo, hi]. */
static int fits(const value_range *r, double lo, double hi) {
    return !r->nan && !r->inf && !r->frac && (r->min > r->max || (r->min >= lo && r->max <= hi));
}

/* The second pass, for one integer type [lo, hi]: the values it cannot hold, by kind. */
typedef struct misfits {
    size_t bad, above, below, frac, frac_inside, nan, pos_inf, neg_inf;
    double largest, smallest, frac_example;
} misfits;

static void count_misfits(const void *host, clip_type t, size_t n, double lo, double hi,
                          misfits *m) {
    memset(m, 0, sizeof *m);
    m->largest = -INFINITY;
    m->smallest = INFINITY;
    for (size_t i = 0; i < n; i++) {
        const double v = clip_io_real_at(host, t, i);
        if (v != v) {
            m->nan++;
            m->bad++;
            continue;
        }
        const int above = v > hi, below = v < lo, frac = isfinite(v) && v != floor(v);
        if (above && v > m->largest) m->largest = v;
        if (below && v < m->smallest) m->smallest = v;
        if (frac && !m->frac) m->frac_example = v;
        m->pos_inf += isinf(v) && v > 0;
        m->neg_inf += isinf(v) && v < 0;
        m->above += (size_t)above;
        m->below += (size_t)below;
        m->frac += (size_t)frac;
        m->frac_inside += (size_t)(frac && !above && !below);
        m->bad += (size_t)(above || below || frac);
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
static void list_misfits(const misfits *m, const struct int_sample *is, char *buf, size_t cap) {
    const char *sep = "";
    buf[0] = '\0';
    if (m->above) {
        add(buf, cap, "%zu above %.0f (largest %.17g)", m->above, is->hi, m->largest);
        sep = ", ";
    }
    if (m->below) {
        add(buf, cap, "%s%zu below %.0f (smallest %.17g)", sep, m->below, is->lo, m->smallest);
        sep = ", ";
    }
    if (m->frac) {
        add(buf, cap, "%s%zu fractional (e.g. %.17g)", sep, m->frac, m->frac_example);
        sep = ", ";
    }
    if (m->nan) add(buf, cap, "%s%zu NaN", sep, m->nan);
}

static clip_status refuse(clip_app *app, const char *op, const char *path, const misfits *m,
                          size_t n, const struct int_sample *is, int float_ok) {
    char what[256];
    list_misfits(m, is, what, sizeof what);
    return clip_set_error(app, CLIP_ERR_TYPE,
                          "%s: %s: %zu of %zu values do not fit %s samples (whole numbers "
                          "%.0f..%.0f): %s; nothing was written (ask for a clamp or a scale to "
                          "change them%s)",
                          op, path, m->bad, n, is->name, is->lo, is->hi, what,
                          float_ok ? ", or a float sample type to keep them"
                                   : ", or save as TIFF, whose float samples keep them");
}

/* The report of a clamp: what changed, in words. */
static void report_clamp(const misfits *m, const struct int_sample *is, char *buf, size_t cap) {
    const char *sep = "";
    buf[0] = '\0';
    if (m->above) {
        add(buf, cap, "clamped %zu value%s above %.0f to %.0f", m->above, plural(m->above), is->hi,
            is->hi);
        sep = ", ";
    }
    if (m->below) {
        add(buf, cap, "%sclamped %zu value%s below %.0f to %.0f", sep, m->below, plural(m->below),
            is->lo, is->lo);
        sep = ", ";
    }
    if (m->frac_inside) { /* a fraction clamped away is counted above already */
        add(buf, cap, "%srounded %zu fractional value%s to nearest", sep, m->frac_inside,
            plural(m->frac_inside));
        sep = ", ";
    }
    if (m->nan) add(buf, cap, "%sstored %zu NaN as 0", sep, m->nan);
    if (buf[0]) add(buf, cap, " (%s samples)", is->name);
}

static size_t report_scale(const void *host, clip_type t, const value_range *r, const misfits *m,
                           const clip_io_fit *f, char *buf, size_t cap) {
    size_t changed = 0;
    for (size_t i = 0; i < r->n; i++) {
        const double v = clip_io_real_at(host, t, i);
        changed += (double)clip_io_fit_value(f, v) != v;
    }
    buf[0] = '\0';
    if (!changed) return 0;
    char lo_plus[32] = ""; /* "-32768 + " where the range does not start at 0 */
    if (f->lo) snprintf(lo_plus, sizeof lo_plus, "%.0f + ", f->lo);
    if (r->min <= r->max)
        add(buf, cap,
            "scaled the values' range [%.17g, %.17g] linearly onto %.0f..%.0f and rounded "
            "(stored = round(%s(value %c %.17g) * %.17g)), changing %zu of %zu values",
            r->min, r->max, f->lo, f->hi, lo_plus, f->off < 0 ? '+' : '-', fabs(f->off), f->scale,
            changed, r->n);
    else
        add(buf, cap, "no finite value to scale");
    if (m->nan) add(buf, cap, "; stored %zu NaN as 0", m->nan);
    if (m->pos_inf || m->neg_inf) add(buf, cap, "; Inf as %.0f, -Inf as %.0f", f->hi, f->lo);
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
    const int png_ok =
        want == CLIP_SAMPLE_AUTO || want == CLIP_SAMPLE_U8 || want == CLIP_SAMPLE_U16;
    const int tiff_ok = want == CLIP_SAMPLE_F32 || want == CLIP_SAMPLE_F64 || int_sample_of(want);
    if (!(png_ok || (float_ok && tiff_ok)))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "%s: %s: sample type %d is not one %s stores (%s)", op, path,
                              (int)want, float_ok ? "TIFF" : "PNG",
                              float_ok ? "8/16/32-bit signed or unsigned integers, 32/64-bit float"
                                       : "8/16-bit unsigned integers only");
    value_range r;
    take_range(host, t, n, &r);
    clip_sample s = want;
    if (s == CLIP_SAMPLE_AUTO) {
        /* The narrowest integer type that holds every value (PNG: unsigned 8/16 only); else
         * float in TIFF, or 16 bits changed as fit asks. A scale always fills 16 bits. */
        for (size_t i = 0; fit != CLIP_FIT_SCALE && i < N_INT && s == CLIP_SAMPLE_AUTO; i++) {
            const clip_sample c = int_samples[i].sample;
            const int stored = float_ok || c == CLIP_SAMPLE_U8 || c == CLIP_SAMPLE_U16;
            if (stored && fits(&r, int_samples[i].lo, int_samples[i].hi)) s = c;
        }
        if (s == CLIP_SAMPLE_AUTO)
            s = float_ok && fit == CLIP_FIT_EXACT
                    ? (t == CLIP_F64 ? CLIP_SAMPLE_F64 : CLIP_SAMPLE_F32)
                    : CLIP_SAMPLE_U16;
    }
    f->sample = s;
    f->fit = fit;
    if (report) {
        report->sample = s;
        report->changed = 0;
        report->text[0] = '\0';
    }
    const struct int_sample *is = int_sample_of(s);
    if (!is) return CLIP_OK; /* float keeps every value (F32 rounds f64 to single, as asked) */
    f->lo = is->lo;
    f->hi = is->hi;
    misfits m;
    count_misfits(host, t, n, is->lo, is->hi, &m);
    if (fit == CLIP_FIT_EXACT) return m.bad ? refuse(app, op, path, &m, n, is, float_ok) : CLIP_OK;
    char text[sizeof report->text];
    size_t changed;
    if (fit == CLIP_FIT_CLAMP) {
        report_clamp(&m, is, text, sizeof text);
        changed = m.bad;
    } else {
        f->off = r.min <= r.max ? r.min : 0.0;
        f->scale = r.min < r.max ? (is->hi - is->lo) / (r.max - r.min) : 0.0;
        changed = report_scale(host, t, &r, &m, f, text, sizeof text);
    }
    if (report) {
        report->changed = changed;
        snprintf(report->text, sizeof report->text, "%s", text);
    }
    return CLIP_OK;
}
