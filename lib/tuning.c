/* The tuning cache: a plain-text file of tuned kernel parameters per device and driver.
 *
 * Path: $CLIP_TUNING_CACHE if set, else $XDG_CACHE_HOME/clip/tuning.txt, else
 * $HOME/.cache/clip/tuning.txt. Format, one entry per line, fields separated by one TAB:
 *   clip-tuning-1  DEVICE-NAME  DRIVER-VERSION  PROCESS  KEY  VALUE
 * Lines starting with '#' are comments. A later line for the same device, driver, process and
 * key overrides an earlier one. A line that does not have exactly six fields, or whose first
 * field is not clip-tuning-1, makes the whole file untrusted: lookups then find nothing and
 * clip_tuning_warning() says why (a cache is an optimisation, never a source of wrong answers;
 * what it holds is still validated by the process before use). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#define TUNING_MAGIC "clip-tuning-1"
#define LINE_MAX_ 2048

static _Thread_local char warning[512];

const char *clip_tuning_warning(void) { return warning; }

clip_status clip_tuning_path(char *buf, size_t cap) {
    const char *over = getenv("CLIP_TUNING_CACHE"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int n;
    if (over && *over) n = snprintf(buf, cap, "%s", over);
    else if (xdg && *xdg) n = snprintf(buf, cap, "%s/clip/tuning.txt", xdg);
    else if (home && *home) n = snprintf(buf, cap, "%s/.cache/clip/tuning.txt", home);
    else return clip_set_error(NULL, CLIP_ERR_IO, "tuning cache: neither XDG_CACHE_HOME nor HOME is set");
    if (n < 0 || (size_t)n >= cap) return clip_set_error(NULL, CLIP_ERR_IO, "tuning cache: path too long");
    return CLIP_OK;
}

/* Splits a line into 6 TAB-separated fields in place. Returns 0 on success. */
static int split(char *line, char *f[6]) {
    line[strcspn(line, "\r\n")] = '\0';
    for (int i = 0; i < 6; i++) {
        f[i] = line;
        char *tab = strchr(line, '\t');
        if (i < 5) {
            if (!tab) return -1;
            *tab = '\0';
            line = tab + 1;
        } else if (tab) {
            return -1;
        }
    }
    return strcmp(f[0], TUNING_MAGIC) ? -1 : 0;
}

int clip_tuning_lookup(const clip_app *app, const char *process, const char *key, char *value,
                       size_t cap) {
    char path[1024];
    warning[0] = '\0';
    if (!app || !process || !key || !value || cap == 0 || clip_tuning_path(path, sizeof path) != CLIP_OK)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char line[LINE_MAX_];
    int found = 0, lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n') continue;
        char *fl[6];
        if (strlen(line) == sizeof line - 1 || split(line, fl)) {
            snprintf(warning, sizeof warning, "tuning cache %.300s: line %d is malformed; cache ignored",
                     path, lineno);
            found = 0;
            break;
        }
        if (!strcmp(fl[1], app->info.name) && !strcmp(fl[2], app->info.driver) &&
            !strcmp(fl[3], process) && !strcmp(fl[4], key)) {
            snprintf(value, cap, "%s", fl[5]);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

/* mkdir -p of the directory part of path. */
static void make_parents(const char *path) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(dir, 0755);
        *p = '/';
    }
}

clip_status clip_tuning_store(clip_app *app, const char *process, const char *key, const char *value) {
    if (!app || !process || !key || !value)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "tuning_store: NULL argument");
    if (strpbrk(process, "\t\n") || strpbrk(key, "\t\n") || strpbrk(value, "\t\n"))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "tuning_store: fields may not hold TAB or newline");
    char path[1024];
    if (clip_tuning_path(path, sizeof path) != CLIP_OK)
        return clip_set_error(app, CLIP_ERR_IO, "%s", clip_app_last_error(NULL));
    make_parents(path);
    FILE *f = fopen(path, "a");
    if (!f) return clip_set_error(app, CLIP_ERR_IO, "tuning cache %s: %s", path, strerror(errno));
    long pos = ftell(f);
    if (pos == 0)
        fprintf(f, "# clip tuning cache: %s DEVICE DRIVER PROCESS KEY VALUE, TAB-separated\n", TUNING_MAGIC);
    fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\n", TUNING_MAGIC, app->info.name, app->info.driver, process,
            key, value);
    if (fclose(f) != 0) return clip_set_error(app, CLIP_ERR_IO, "tuning cache %s: %s", path, strerror(errno));
    return CLIP_OK;
}
