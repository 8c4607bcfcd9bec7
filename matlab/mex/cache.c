/* The gateway's process cache. Creating a process and setting its parameters from MATLAB values
 * is cheap, but destroying one waits for the device (clip_process_destroy finishes the queue),
 * which made every call wait for its own work; and a result written straight into the MATLAB
 * array needs its size before init. A kept process gives both: it is never destroyed per call,
 * and it remembers the output types and sizes its first init made for this key. Later calls
 * rebind it to their data (clip_process_rebind), which keeps the init unless init read an
 * input's values and they changed (conv2's K and the separable path). */
#include <stdlib.h>
#include <string.h>

#include "gateway.h"

/* Enough for the distinct calls of a script's inner loop; each entry holds a process with its
 * parameters and its init, but no data between calls (clip_process_detach). */
enum { CAP = 32 };

typedef struct slot {
    char *key;
    uint64_t used; /* the call counter when last found: the smallest goes first */
    gw_cached c;
} slot;

static slot slots[CAP];
static size_t count;
static uint64_t clock_;

gw_cached *gw_cache_find(const char *key) {
    for (size_t i = 0; i < count; i++)
        if (!strcmp(slots[i].key, key)) {
            slots[i].used = ++clock_;
            return &slots[i].c;
        }
    return NULL;
}

static void drop(size_t i) {
    clip_process_destroy(slots[i].c.p);
    free(slots[i].key);
    slots[i] = slots[--count];
}

gw_cached *gw_cache_add(const char *key, clip_process *p) {
    char *k = malloc(strlen(key) + 1);
    if (!k) {
        clip_process_destroy(p);
        return NULL;
    }
    strcpy(k, key);
    if (count == CAP) {
        size_t lru = 0;
        for (size_t i = 1; i < count; i++)
            if (slots[i].used < slots[lru].used) lru = i;
        drop(lru);
    }
    slot *s = &slots[count++];
    memset(s, 0, sizeof *s);
    s->key = k;
    s->used = ++clock_;
    s->c.p = p;
    return &s->c;
}

size_t gw_cache_count(void) {
    return count;
}

void gw_cache_clear(void) {
    while (count) drop(count - 1);
}
