#include "ptr_set.h"

#include <stdlib.h>

static const char tombstone_byte;
#define TOMBSTONE ((const void *)&tombstone_byte)

static size_t slot_of(const void *ptr, size_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)ptr;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return (size_t)h & mask;
}

/* Index of ptr, or of the slot where it would go; capacity must be non-zero. */
static size_t find(const PtrSet *set, const void *ptr, bool *found) {
    size_t mask = set->capacity - 1, i = slot_of(ptr, mask), free_slot = (size_t)-1;
    for (;;) {
        const void *s = set->slots[i];
        if (s == ptr) {
            *found = true;
            return i;
        }
        if (s == NULL) {
            *found = false;
            return free_slot != (size_t)-1 ? free_slot : i;
        }
        if (s == TOMBSTONE && free_slot == (size_t)-1) free_slot = i;
        i = (i + 1) & mask;
    }
}

static bool grow(PtrSet *set) {
    size_t cap = set->capacity ? set->capacity * 2 : 64;
    if (set->count * 4 < set->capacity) cap = set->capacity; /* mostly tombstones: rehash in place */
    const void **old = set->slots;
    size_t old_cap = set->capacity;
    set->slots = calloc(cap, sizeof *set->slots);
    if (!set->slots) {
        set->slots = old;
        return false;
    }
    set->capacity = cap;
    set->used = set->count;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i] && old[i] != TOMBSTONE) {
            bool found;
            set->slots[find(set, old[i], &found)] = old[i];
        }
    }
    free(old);
    return true;
}

bool ptr_set_insert(PtrSet *set, const void *ptr) {
    pthread_mutex_lock(&set->lock);
    bool ok = true;
    if ((set->used + 1) * 2 > set->capacity) ok = grow(set);
    if (ok) {
        bool found;
        size_t i = find(set, ptr, &found);
        if (!found) {
            if (set->slots[i] == NULL) set->used++;
            set->slots[i] = ptr;
            set->count++;
        }
    }
    pthread_mutex_unlock(&set->lock);
    return ok;
}

bool ptr_set_remove(PtrSet *set, const void *ptr) {
    bool found = false;
    pthread_mutex_lock(&set->lock);
    if (set->capacity) {
        size_t i = find(set, ptr, &found);
        if (found) {
            set->slots[i] = TOMBSTONE;
            set->count--;
        }
    }
    pthread_mutex_unlock(&set->lock);
    return found;
}

bool ptr_set_contains(PtrSet *set, const void *ptr) {
    bool found = false;
    if (ptr == NULL || ptr == TOMBSTONE) return false;
    pthread_mutex_lock(&set->lock);
    if (set->capacity) find(set, ptr, &found);
    pthread_mutex_unlock(&set->lock);
    return found;
}

size_t ptr_set_count(PtrSet *set) {
    pthread_mutex_lock(&set->lock);
    size_t n = set->count;
    pthread_mutex_unlock(&set->lock);
    return n;
}
