/* clip statuses as MATLAB error identifiers, so scripts can catch them by kind
 * (try ... catch err, if strcmp(err.identifier, 'clip:innerDimensions') ...). */
#include <stdarg.h>
#include <stdio.h>

#include "gateway.h"

/* Indexed by clip_status; the static assert below keeps it in step with status.h. */
static const char *const ids[] = {
    [CLIP_OK] = "clip:ok",
    [CLIP_ERR_INVALID_ARG] = "clip:invalidArgument",
    [CLIP_ERR_OUT_OF_MEMORY] = "clip:outOfMemory",
    [CLIP_ERR_OVERFLOW] = "clip:overflow",
    [CLIP_ERR_NO_DEVICE] = "clip:noDevice",
    [CLIP_ERR_OPENCL] = "clip:openCL",
    [CLIP_ERR_BUILD] = "clip:build",
    [CLIP_ERR_NO_FP64] = "clip:noFP64",
    [CLIP_ERR_UNKNOWN_PROCESS] = "clip:unknownProcess",
    [CLIP_ERR_UNKNOWN_PARAM] = "clip:unknownParameter",
    [CLIP_ERR_PARAM_TYPE] = "clip:parameterType",
    [CLIP_ERR_PARAM_RANGE] = "clip:parameterRange",
    [CLIP_ERR_BAD_CHOICE] = "clip:badChoice",
    [CLIP_ERR_MISSING_INPUT] = "clip:missingInput",
    [CLIP_ERR_TYPE] = "clip:type",
    [CLIP_ERR_SHAPE] = "clip:shape",
    [CLIP_ERR_INNER_DIM] = "clip:innerDimensions",
    [CLIP_ERR_NOT_SQUARE] = "clip:notSquare",
    [CLIP_ERR_BAD_POWER] = "clip:badPower",
    [CLIP_ERR_BAD_NORM_ORDER] = "clip:badNormOrder",
    [CLIP_ERR_LENGTH_MISMATCH] = "clip:lengthMismatch",
    [CLIP_ERR_NOT_INITIALIZED] = "clip:notInitialized",
    [CLIP_ERR_IO] = "clip:io",
    [CLIP_ERR_FORMAT] = "clip:format",
    [CLIP_ERR_UNSUPPORTED] = "clip:unsupported",
    [CLIP_ERR_DIMS] = "clip:dims",
};
_Static_assert(sizeof ids / sizeof ids[0] == CLIP_STATUS_COUNT_,
               "matlab/mex/errors.c: one identifier per clip_status");

int gw_fail(gw_error *e, const char *id, const char *fmt, ...) {
    snprintf(e->id, sizeof e->id, "%s", id);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return 1;
}

int gw_fail_clip(gw_error *e, clip_app *app, clip_status s) {
    const char *id = s > CLIP_OK && s < CLIP_STATUS_COUNT_ ? ids[s] : "clip:error";
    const char *msg = clip_app_last_error(app);
    return gw_fail(e, id, "%s", *msg ? msg : clip_status_str(s));
}
