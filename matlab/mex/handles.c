/* The table behind clip.Array: ids of device-resident data. Ids are never reused, so a stale id
 * (an object that outlived `clear mex`) finds nothing instead of someone else's data. */
#include <stdlib.h>

#include "gateway.h"

typedef struct entry {
    uint64_t id;
    clip_data *d;
    int adopted; /* held by a clip.Array object (gateway.h) */
} entry;

static entry *table;
static size_t count, cap;
static uint64_t next_id = 1;

uint64_t gw_handle_add(clip_data *d) {
    if (count == cap) {
        size_t ncap = cap ? 2 * cap : 64;
        entry *t = realloc(table, ncap * sizeof *t);
        if (!t) return 0;
        table = t;
        cap = ncap;
    }
    table[count].id = next_id;
    table[count].d = d;
    table[count].adopted = 0;
    count++;
    return next_id++;
}

static size_t find(uint64_t id) {
    for (size_t i = count; i-- > 0;) /* the newest arrays are the likeliest */
        if (table[i].id == id) return i;
    return (size_t)-1;
}

clip_data *gw_handle_get(uint64_t id) {
    size_t i = find(id);
    return i == (size_t)-1 ? NULL : table[i].d;
}

void gw_handle_free(uint64_t id) {
    size_t i = find(id);
    if (i == (size_t)-1) return;
    clip_data_destroy(table[i].d);
    table[i] = table[--count];
}

int gw_handle_adopt(uint64_t id) {
    size_t i = find(id);
    if (i == (size_t)-1) return 0;
    table[i].adopted = 1;
    return 1;
}

void gw_handle_sweep(void) {
    for (size_t i = count; i-- > 0;)
        if (!table[i].adopted) {
            clip_data_destroy(table[i].d);
            table[i] = table[--count];
        }
}

size_t gw_handle_count(void) {
    return count;
}

void gw_handle_free_all(void) {
    while (count) clip_data_destroy(table[--count].d);
    free(table);
    table = NULL;
    cap = 0;
}
