/* The process registry: descriptors by name. Built-ins are added once, on first use. */
#include <pthread.h>
#include <string.h>

#include "internal.h"

#define REGISTRY_CAP 128

static const clip_process_desc *registry[REGISTRY_CAP];
static size_t registry_count;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t builtins_once = PTHREAD_ONCE_INIT;

void clip_registry_ensure(void);
void clip_registry_ensure(void) { pthread_once(&builtins_once, clip_register_builtin_processes); }

clip_status clip_process_register(const clip_process_desc *d) {
    if (!d || !d->name || !*d->name || !d->init || !d->launch)
        return clip_set_error(NULL, CLIP_ERR_INVALID_ARG,
                              "process_register: descriptor lacks a name, init or launch");
    clip_status s = CLIP_OK;
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count; i++)
        if (!strcmp(registry[i]->name, d->name))
            s = clip_set_error(NULL, CLIP_ERR_INVALID_ARG,
                               "process_register: '%s' is already registered", d->name);
    if (s == CLIP_OK && registry_count == REGISTRY_CAP)
        s = clip_set_error(NULL, CLIP_ERR_OUT_OF_MEMORY, "process_register: registry is full");
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

const char *clip_process_desc_name(const clip_process_desc *d) { return d ? d->name : ""; }
const char *clip_process_desc_summary(const clip_process_desc *d) { return d ? d->summary : ""; }
