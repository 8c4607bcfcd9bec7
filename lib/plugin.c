/* Plugins (clip/plugin.h): shared objects that register processes when loaded. A loaded plugin
 * is never closed: the registry, the program caches and the bindings' caches hold pointers into
 * it until the process exits. */
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

#define PLUGINS_CAP 64

static struct {
    dev_t dev;
    ino_t ino;
} loaded[PLUGINS_CAP];
static size_t n_loaded;
static pthread_mutex_t plugin_lock = PTHREAD_MUTEX_INITIALIZER;

static int already_loaded(const struct stat *st) {
    for (size_t i = 0; i < n_loaded; i++)
        if (loaded[i].dev == st->st_dev && loaded[i].ino == st->st_ino) return 1;
    return 0;
}

/* Opens, checks and initialises one plugin; the caller holds plugin_lock. */
static clip_status load_locked(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return clip_set_error(NULL, CLIP_ERR_IO, "plugin '%s': no such file", path);
    if (already_loaded(&st)) return CLIP_OK;
    if (n_loaded == PLUGINS_CAP)
        return clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "plugin '%s': more than %d plugins",
                              path, PLUGINS_CAP);
    /* A path without '/' would make dlopen search the library path instead of this file. */
    char local[PATH_MAX];
    if (!strchr(path, '/') && (size_t)snprintf(local, sizeof local, "./%s", path) < sizeof local)
        path = local;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return clip_set_error(NULL, CLIP_ERR_IO, "plugin '%s': cannot load: %s", path, dlerror());
    unsigned (*abi)(void) = NULL;
    clip_status (*init)(void) = NULL;
    *(void **)&abi = dlsym(h, "clip_plugin_abi");
    *(void **)&init = dlsym(h, "clip_plugin_init");
    if (!abi || !init) {
        dlclose(h);
        return clip_set_error(NULL, CLIP_ERR_UNSUPPORTED,
                              "plugin '%s': no entry point %s (define it with CLIP_PLUGIN from "
                              "clip/plugin.h)",
                              path, abi ? "clip_plugin_init" : "clip_plugin_abi");
    }
    const unsigned got = abi();
    if (got != CLIP_PLUGIN_ABI) {
        dlclose(h);
        return clip_set_error(
            NULL, CLIP_ERR_UNSUPPORTED,
            "plugin '%s': built for plugin ABI %u, this clip loads %d (rebuild it "
            "against this clip)",
            path, got, CLIP_PLUGIN_ABI);
    }
    /* From here the plugin stays loaded, even when its init fails: it may have registered some of
     * its processes before the failure. */
    loaded[n_loaded].dev = st.st_dev;
    loaded[n_loaded].ino = st.st_ino;
    n_loaded++;
    clip_clear_error(NULL);
    clip_status s = init();
    if (s != CLIP_OK) {
        char why[CLIP_ERRMSG_MAX - 256];
        snprintf(why, sizeof why, "%s", clip_app_last_error(NULL));
        return clip_set_error(NULL, s, "plugin '%s': its init failed (%s): %s", path,
                              clip_status_str(s), *why ? why : "no message");
    }
    return CLIP_OK;
}

clip_status clip_plugin_load(const char *path) {
    if (!path || !*path) return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "plugin_load: no path");
    clip_registry_ensure(); /* the built-ins' names are taken before any plugin's */
    pthread_mutex_lock(&plugin_lock);
    clip_status s = load_locked(path);
    pthread_mutex_unlock(&plugin_lock);
    return s;
}

static int ends_with_so(const char *name) {
    size_t n = strlen(name);
    return n > 3 && !strcmp(name + n - 3, ".so");
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.so of folder `dir`, in name order. */
static clip_status load_folder(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return clip_set_error(NULL, CLIP_ERR_IO, "CLIP_PLUGIN_PATH: cannot read folder '%s'", dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    clip_status s = CLIP_OK;
    for (struct dirent *e; s == CLIP_OK && (e = readdir(d));) {
        if (!ends_with_so(e->d_name)) continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown)
                s = CLIP_ERR_OUT_OF_MEMORY;
            else
                names = grown;
        }
        if (s == CLIP_OK && !(names[n] = strdup(e->d_name))) s = CLIP_ERR_OUT_OF_MEMORY;
        if (s == CLIP_OK) n++;
    }
    closedir(d);
    if (s != CLIP_OK)
        s = clip_set_error(NULL, s, "CLIP_PLUGIN_PATH: out of memory reading '%s'", dir);
    if (n) qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        clip_status t = CLIP_ERR_INVALID_ARG;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]) < sizeof path)
            t = clip_plugin_load(path);
        else
            clip_set_error(NULL, t, "CLIP_PLUGIN_PATH: path too long in '%s'", dir);
        if (s == CLIP_OK) s = t;
        free(names[i]);
    }
    free(names);
    return s;
}

clip_status clip_plugins_load_env(void) {
    const char *env = getenv("CLIP_PLUGIN_PATH");
    if (!env || !*env) return CLIP_OK;
    char *list = strdup(env);
    if (!list)
        return clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "CLIP_PLUGIN_PATH: out of memory");
    clip_status first = CLIP_OK;
    char first_msg[CLIP_ERRMSG_MAX];
    first_msg[0] = '\0';
    for (char *save = NULL, *item = strtok_r(list, ":", &save); item;
         item = strtok_r(NULL, ":", &save)) {
        struct stat st;
        clip_status s = stat(item, &st) == 0 && S_ISDIR(st.st_mode) ? load_folder(item)
                                                                    : clip_plugin_load(item);
        if (s != CLIP_OK && first == CLIP_OK) {
            first = s;
            snprintf(first_msg, sizeof first_msg, "%s", clip_app_last_error(NULL));
        }
    }
    free(list);
    if (first != CLIP_OK) clip_set_error(NULL, first, "%s", first_msg);
    return first;
}
