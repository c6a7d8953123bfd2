#include "handle_table.h"

#include "check.h"

#include <stdlib.h>

/*
 * Token layout: TOKEN_BASE | kind << 40 | serial. TOKEN_BASE puts tokens above the 48-bit user address
 * space of x86-64 and aarch64, so a token that some code dereferenced by mistake faults at once instead of
 * reading memory. The 40-bit serial (10^12 objects) is shared by all kinds and never wraps in practice.
 */
_Static_assert(sizeof(void *) == 8, "handle tokens need 64-bit pointers");

#define TOKEN_BASE UINT64_C(0x00a1000000000000)
#define TOKEN_BASE_MASK UINT64_C(0xffff000000000000)
#define KIND_SHIFT 40
#define KIND_MASK UINT64_C(0xff)
#define SERIAL_MASK ((UINT64_C(1) << KIND_SHIFT) - 1)
#define HANDLE_DELETED UINT64_MAX

static uint64_t next_serial = 1;

static uint64_t serial_of(const HandleTable *table, const void *token) {
    uint64_t t = (uint64_t)(uintptr_t)token;
    if ((t & TOKEN_BASE_MASK) != TOKEN_BASE || ((t >> KIND_SHIFT) & KIND_MASK) != (uint64_t)table->kind) return 0;
    return t & SERIAL_MASK;
}

static size_t slot_of(uint64_t serial, size_t mask) {
    uint64_t h = serial * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(h >> 20) & mask;
}

/* Index of serial, or of the slot where it would go; capacity must be non-zero. */
static size_t find(const HandleTable *table, uint64_t serial, bool *found) {
    size_t mask = table->capacity - 1, i = slot_of(serial, mask), free_slot = (size_t)-1;
    for (;;) {
        uint64_t s = table->slots[i].serial;
        if (s == serial) {
            *found = true;
            return i;
        }
        if (s == 0) {
            *found = false;
            return free_slot != (size_t)-1 ? free_slot : i;
        }
        if (s == HANDLE_DELETED && free_slot == (size_t)-1) free_slot = i;
        i = (i + 1) & mask;
    }
}

static bool grow(HandleTable *table) {
    size_t cap = table->capacity ? table->capacity * 2 : 64;
    if (table->count * 4 < table->capacity) cap = table->capacity; /* mostly deleted slots: rehash in place */
    if (cap > SIZE_MAX / sizeof(HandleSlot)) return false;
    HandleSlot *old = table->slots;
    size_t old_cap = table->capacity;
    HandleSlot *slots = calloc(cap, sizeof *slots);
    if (!slots) return false;
    table->slots = slots;
    table->capacity = cap;
    table->used = table->count;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].serial != 0 && old[i].serial != HANDLE_DELETED) {
            bool found;
            table->slots[find(table, old[i].serial, &found)] = old[i];
        }
    }
    free(old);
    return true;
}

void *handle_insert(HandleTable *table, void *obj) {
    uint64_t serial = __atomic_fetch_add(&next_serial, 1, __ATOMIC_RELAXED) & SERIAL_MASK;
    if (serial == 0) return NULL; /* only after 2^40 handles */
    pthread_rwlock_wrlock(&table->lock);
    bool ok = (table->used + 1) * 2 <= table->capacity || grow(table);
    if (ok) {
        bool found;
        size_t i = find(table, serial, &found);
        if (table->slots[i].serial == 0) table->used++;
        table->slots[i] = (HandleSlot){serial, obj};
        table->count++;
    }
    pthread_rwlock_unlock(&table->lock);
    if (!ok) return NULL;
    void *token = (void *)(uintptr_t)(TOKEN_BASE | (uint64_t)table->kind << KIND_SHIFT | serial);
    if (CHECK_ON(CHECK_LEAK)) aclStubCheckHandleNew((int)table->kind, token);
    return token;
}

void *handle_acquire(HandleTable *table, const void *token) {
    uint64_t serial = serial_of(table, token);
    if (serial == 0) return NULL;
    pthread_rwlock_rdlock(&table->lock);
    bool found = false;
    size_t i = table->capacity ? find(table, serial, &found) : 0;
    if (found) return table->slots[i].object;
    pthread_rwlock_unlock(&table->lock);
    return NULL;
}

void handle_release(HandleTable *table) { pthread_rwlock_unlock(&table->lock); }

bool handle_is_live(HandleTable *table, const void *token) {
    if (handle_acquire(table, token) == NULL) return false;
    handle_release(table);
    return true;
}

void *handle_remove(HandleTable *table, const void *token) {
    uint64_t serial = serial_of(table, token);
    if (serial == 0) return NULL;
    void *obj = NULL;
    pthread_rwlock_wrlock(&table->lock);
    bool found = false;
    size_t i = table->capacity ? find(table, serial, &found) : 0;
    if (found) {
        obj = table->slots[i].object;
        table->slots[i] = (HandleSlot){HANDLE_DELETED, NULL};
        table->count--;
    }
    pthread_rwlock_unlock(&table->lock);
    if (obj != NULL && CHECK_ON(CHECK_LEAK)) aclStubCheckHandleGone(token);
    return obj;
}

size_t handle_count(HandleTable *table) {
    pthread_rwlock_rdlock(&table->lock);
    size_t n = table->count;
    pthread_rwlock_unlock(&table->lock);
    return n;
}

void handle_for_each(HandleTable *table, void (*fn)(const void *token, void *object, void *ctx), void *ctx) {
    pthread_rwlock_rdlock(&table->lock);
    for (size_t i = 0; i < table->capacity; i++) {
        uint64_t s = table->slots[i].serial;
        if (s != 0 && s != HANDLE_DELETED)
            fn((const void *)(uintptr_t)(TOKEN_BASE | (uint64_t)table->kind << KIND_SHIFT | s), table->slots[i].object,
               ctx);
    }
    pthread_rwlock_unlock(&table->lock);
}

void handle_table_reset_after_fork(HandleTable *table) { pthread_rwlock_init(&table->lock, NULL); }
