/* The gateway's app: one, opened at first use and kept across calls, since opening a device
 * (context, queue, program cache) costs far more than any small call. */
#include "gateway.h"

static clip_app *current;

clip_app *gw_app(gw_error *e) {
    if (!current) {
        clip_status s = clip_app_create(&current, NULL);
        if (s != CLIP_OK) {
            current = NULL;
            gw_fail_clip(e, NULL, s);
        }
    }
    return current;
}

int gw_set_device(const char *spec, gw_error *e) {
    clip_criteria crit = {0}; /* every field defined, whatever the spec sets */
    clip_status s = clip_criteria_from_spec(spec, &crit);
    clip_app *app = NULL;
    if (s == CLIP_OK) {
        crit.ignore_env = 1; /* an explicit choice wins over CLIP_DEVICE */
        s = clip_app_create(&app, &crit);
    }
    if (s != CLIP_OK) return gw_fail_clip(e, NULL, s);
    /* Data created on the old app keeps working: clip objects may be destroyed in any order.
     * Kept processes belong to the old app: they go with it. */
    gw_cache_clear();
    clip_app_destroy(current);
    current = app;
    return 0;
}

void gw_app_release(void) {
    gw_cache_clear();
    clip_app_destroy(current);
    current = NULL;
}
