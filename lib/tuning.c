/* The tuning cache: a plain-text file of tuned kernel parameters per device and driver.
 *
 * Path: $CLIP_TUNING_CACHE if set, else $XDG_CACHE_HOME/clip/tuning.txt, else
 * $HOME/.cache/clip/tuning.txt. Format, one entry per line, fields separated by one TAB:
 *   clip-tuning-1  DEVICE-NAME  DRIVER-VERSION  PROCESS  KEY  VALUE
 * Lines starting with '#' are comments. A later line for the same device, driver, process and
 * key overrides an earlier one. A line that does not have exactly six fields, or whose first
 * field is not clip-tuning-1, makes the whole file untrusted: lookups then find nothing and
 * clip_tuning_warning() says why (a cache is an optimisation, never a source of wrong answers;
 * what it holds is still validated by the process before use).
 *
 * A store rewrites the whole file through lib/save_file.c (temporary, fsync, rename), so a full
 * disk or a crash leaves the old cache whole rather than a half line that would make it
 * untrusted; a last line without its newline (a torn append by an older clip) is dropped then.
 * Stores hold an exclusive flock on "<cache>.lock" around read, rewrite and rename, so two
 * `clip tune` runs at once keep each other's entries; lookups need no lock, as rename()
 * replaces the file in one step. */
#define _DEFAULT_SOURCE /* flock */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "save_file.h"

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

/* Reads the whole cache into *text (malloc'd, *len bytes); a missing file is empty. Drops a
 * last line that lacks its newline. Returns 0 or an errno. */
static int read_cache(const char *path, char **text, size_t *len) {
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return errno == ENOENT ? 0 : errno;
    size_t cap = 0, n = 0;
    char *buf = NULL;
    int err = 0;
    for (;;) {
        if (n == cap) {
            char *grown = realloc(buf, cap = cap ? 2 * cap : 4096);
            if (!grown) {
                err = ENOMEM;
                break;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) {
            if (ferror(f)) err = EIO;
            break;
        }
    }
    fclose(f);
    if (err) {
        free(buf);
        return err;
    }
    while (n > 0 && buf[n - 1] != '\n')
        n--;
    *text = buf;
    *len = n;
    return 0;
}

/* Under the lock: the old entries, then the new one, into a new file that replaces the old. */
static clip_status rewrite(clip_app *app, const char *path, const char *line, size_t line_len) {
    char *old = NULL;
    size_t old_len = 0;
    int err = read_cache(path, &old, &old_len);
    if (err)
        return clip_set_error(app, CLIP_ERR_IO, "tuning_store: %s: cannot read: %s", path,
                              strerror(err));
    clip_save_file sf;
    clip_status s = clip_save_begin(app, "tuning_store", path, &sf);
    if (s == CLIP_OK) {
        char head[128];
        int head_len = snprintf(head, sizeof head,
                                "# clip tuning cache: %s DEVICE DRIVER PROCESS KEY VALUE, "
                                "TAB-separated\n", TUNING_MAGIC);
        if ((old_len == 0 && clip_save_write(&sf, head, (size_t)head_len) != 0) ||
            clip_save_write(&sf, old ? old : "", old_len) != 0 ||
            clip_save_write(&sf, line, line_len) != 0)
            s = clip_save_error(app, "tuning_store", &sf, path, "cannot write");
    }
    const clip_save_expect expect = {CLIP_SAVE_SIZE_WRITTEN, NULL, 0};
    if (s == CLIP_OK) s = clip_save_commit(app, "tuning_store", &sf, path, &expect);
    clip_save_discard(&sf);
    free(old);
    return s;
}

clip_status clip_tuning_store(clip_app *app, const char *process, const char *key, const char *value) {
    if (!app || !process || !key || !value)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "tuning_store: NULL argument");
    if (strpbrk(process, "\t\n") || strpbrk(key, "\t\n") || strpbrk(value, "\t\n"))
        return clip_set_error(app, CLIP_ERR_INVALID_ARG, "tuning_store: fields may not hold TAB or newline");
    char path[1024], lock_path[1100], line[LINE_MAX_];
    if (clip_tuning_path(path, sizeof path) != CLIP_OK)
        return clip_set_error(app, CLIP_ERR_IO, "%s", clip_app_last_error(NULL));
    int n = snprintf(line, sizeof line, "%s\t%s\t%s\t%s\t%s\t%s\n", TUNING_MAGIC, app->info.name,
                     app->info.driver, process, key, value);
    /* A line that fills the lookup's buffer reads there as cut off (malformed), so the longest
     * entry stored is one byte shorter. */
    if (n < 0 || (size_t)n >= sizeof line - 1)
        return clip_set_error(app, CLIP_ERR_INVALID_ARG,
                              "tuning_store: the entry is longer than a cache line may be (%d)",
                              LINE_MAX_ - 2);
    snprintf(lock_path, sizeof lock_path, "%s.lock", path);
    make_parents(path);
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (lock < 0)
        return clip_set_error(app, CLIP_ERR_IO, "tuning_store: %s: cannot open the lock file: %s",
                              lock_path, strerror(errno));
    int rc;
    while ((rc = flock(lock, LOCK_EX)) != 0 && errno == EINTR)
        ;
    clip_status s = rc == 0 ? rewrite(app, path, line, (size_t)n)
                            : clip_set_error(app, CLIP_ERR_IO, "tuning_store: %s: cannot lock: %s",
                                             lock_path, strerror(errno));
    close(lock); /* releases the flock */
    return s;
}
