/* The process registry: descriptors by name. The built-ins are added first, on the first use of
 * any registry function (clip_process_register included), so no other process can take their
 * names; every descriptor is checked before it is added (lib/desc_check.c). */
#include <pthread.h>
#include <string.h>

#include "internal.h"

#define REGISTRY_CAP 256

static const clip_process_desc *registry[REGISTRY_CAP];
static size_t registry_count;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;
/* Set in the thread that registers the built-ins, inside the pthread_once: its own
 * clip_process_register calls must not wait for the once they are part of. */
static _Thread_local int registering_builtins;

static void register_builtins(void) {
    registering_builtins = 1;
    clip_register_builtin_processes();
    registering_builtins = 0;
}

void clip_registry_ensure(void) {
    if (!registering_builtins) pthread_once(&builtins_once, register_builtins);
}

clip_status clip_process_register(const clip_process_desc *d) {
    clip_registry_ensure();
    char why[256];
    if (clip_desc_check(d, why, sizeof why))
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG, "process_register: %s", why);
    clip_status s = CLIP_OK;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count && s == CLIP_OK; i++)
        if (!strcmp(registry[i]->name, d->name))
            s = clip_set_error(NULL, CLIP_ERR_INVALID_ARG,
                               "process_register: '%s' is already registered%s", d->name,
                               registry[i] == d ? " (the same descriptor)" : "");
    if (s == CLIP_OK && registry_count == REGISTRY_CAP)
        s = clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY,
                           "process_register: '%s': the registry is full (%d processes)", d->name,
                           REGISTRY_CAP);
    if (s == CLIP_OK) registry[registry_count++] = d;
    pthread_mutex_unlock(&registry_lock);
    return s;
}

size_t clip_process_count(void) {
    clip_registry_ensure();
    pthread_mutex_lock(&registry_lock);
    size_t n = registry_count;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

const clip_process_desc *clip_process_nth(size_t i) {
    clip_registry_ensure();
    pthread_mutex_lock(&registry_lock);
    const clip_process_desc *d = i < registry_count ? registry[i] : NULL;
    pthread_mutex_unlock(&registry_lock);
    return d;
}

const clip_process_desc *clip_process_find(const char *name) {
    if (!name) return NULL;
    clip_registry_ensure();
    const clip_process_desc *d = NULL;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count && !d; i++)
        if (!strcmp(registry[i]->name, name)) d = registry[i];
    pthread_mutex_unlock(&registry_lock);
    return d;
}
