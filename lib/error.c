/* Last-error messages: per app, and per thread for calls that have no app. */
#include <stdio.h>
#include <string.h>

#include "internal.h"

static _Thread_local char thread_error[CLIP_ERRMSG_MAX];

clip_status clip_set_errorv(const clip_app *app, clip_status s, const char *fmt, va_list ap) {
    /* The message lives in the app, which is logically const for the caller. */
    char *buf = app ? ((clip_app *)app)->error : thread_error;
    vsnprintf(buf, CLIP_ERRMSG_MAX, fmt, ap);
    return s;
}

clip_status clip_set_error(const clip_app *app, clip_status s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    clip_set_errorv(app, s, fmt, ap);
    va_end(ap);
    return s;
}

void clip_clear_error(const clip_app *app) {
    char *buf = app ? ((clip_app *)app)->error : thread_error;
    buf[0] = '\0';
}

const char *clip_app_last_error(const clip_app *app) { return app ? app->error : thread_error; }

int clip_mul_size(size_t a, size_t b, size_t *out) {
    if (a != 0 && b > SIZE_MAX / a) return -1;
    *out = a * b;
    return 0;
}
