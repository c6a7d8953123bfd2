/*
 * leakcheck of handles: every tensor, scalar, array, list, executor, stream, event and context created
 * while check mode is on is remembered with its creation site until it is destroyed. What is left at
 * aclFinalize or process exit is reported (then forgotten, so a later aclInit starts afresh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "handle_table.h"

typedef struct {
    uint64_t token; /* 0: empty; 1: deleted */
    int kind;
    const CheckSite *site;
} LiveHandle;

static LiveHandle *slots;
static size_t capacity, used, live;

static const struct {
    const char *what;
    const char *call;
    const char *noun;
} KIND_LEAK[HANDLE_KIND_COUNT] = {
    [HANDLE_TENSOR] = {"leaked-tensor", "aclCreateTensor", "tensor"},
    [HANDLE_SCALAR] = {"leaked-scalar", "aclCreateScalar", "scalar"},
    [HANDLE_INT_ARRAY] = {"leaked-int-array", "aclCreateIntArray", "int array"},
    [HANDLE_FLOAT_ARRAY] = {"leaked-float-array", "aclCreateFloatArray", "float array"},
    [HANDLE_BOOL_ARRAY] = {"leaked-bool-array", "aclCreateBoolArray", "bool array"},
    [HANDLE_TENSOR_LIST] = {"leaked-tensor-list", "aclCreateTensorList", "tensor list"},
    [HANDLE_SCALAR_LIST] = {"leaked-scalar-list", "aclCreateScalarList", "scalar list"},
    [HANDLE_EXECUTOR] = {"executor-never-run", "aclnn*GetWorkspaceSize", "executor (neither run nor destroyed)"},
    [HANDLE_STREAM] = {"leaked-stream", "aclrtCreateStream", "stream"},
    [HANDLE_EVENT] = {"leaked-event", "aclrtCreateEvent", "event"},
    [HANDLE_CONTEXT] = {"leaked-context", "aclrtSetDevice/aclrtCreateContext", "context"},
    [HANDLE_COMM] = {"leaked-communicator", "HcclCommInit*", "communicator"},
};

static size_t slot_of(uint64_t token, size_t mask) { return (size_t)((token * UINT64_C(0x9e3779b97f4a7c15)) >> 17) & mask; }

static bool grow_locked(void) {
    size_t cap = capacity ? capacity * 2 : 1024;
    if (live * 4 < capacity) cap = capacity;
    LiveHandle *fresh = calloc(cap, sizeof *fresh);
    if (fresh == NULL) return false;
    for (size_t i = 0; i < capacity; i++) {
        if (slots[i].token <= 1) continue;
        size_t j = slot_of(slots[i].token, cap - 1);
        while (fresh[j].token != 0) j = (j + 1) & (cap - 1);
        fresh[j] = slots[i];
    }
    free(slots);
    slots = fresh;
    capacity = cap;
    used = live;
    return true;
}

void aclStubCheckHandleNew(int kind, const void *token) {
    if (kind <= 0 || kind >= HANDLE_KIND_COUNT || token == NULL) return;
    /* Streams, events and contexts are created with rt_lock held. */
    bool runtime_object = kind == HANDLE_STREAM || kind == HANDLE_EVENT || kind == HANDLE_CONTEXT;
    const CheckSite *site = runtime_object ? check_site_locked() : check_site_here();
    check_lock();
    if ((used + 1) * 2 <= capacity || grow_locked()) {
        size_t j = slot_of((uint64_t)(uintptr_t)token, capacity - 1);
        while (slots[j].token > 1) j = (j + 1) & (capacity - 1);
        if (slots[j].token == 0) used++;
        slots[j] = (LiveHandle){(uint64_t)(uintptr_t)token, kind, site};
        live++;
    }
    check_unlock();
}

void aclStubCheckHandleGone(const void *token) {
    uint64_t t = (uint64_t)(uintptr_t)token;
    check_lock();
    if (capacity > 0) {
        for (size_t j = slot_of(t, capacity - 1); slots[j].token != 0; j = (j + 1) & (capacity - 1)) {
            if (slots[j].token == t) {
                slots[j].token = 1;
                live--;
                break;
            }
        }
    }
    check_unlock();
}

/* A handle the runtime is about to release implicitly (a stream at aclrtResetDevice): a leak if tracked. */
void check_leak_handle(const void *token, const char *when) {
    uint64_t t = (uint64_t)(uintptr_t)token;
    check_lock();
    if (capacity > 0) {
        for (size_t j = slot_of(t, capacity - 1); slots[j].token != 0; j = (j + 1) & (capacity - 1)) {
            if (slots[j].token != t) continue;
            char message[256];
            snprintf(message, sizeof message, "%s %p created here is still live at %s", KIND_LEAK[slots[j].kind].noun,
                     token, when);
            check_add_finding(CHECK_LEAK, KIND_LEAK[slots[j].kind].what, KIND_LEAK[slots[j].kind].call,
                              slots[j].site, NULL, NULL, message);
            slots[j].token = 1;
            live--;
            break;
        }
    }
    check_unlock();
}

/* A forked child leaks only what it creates itself. */
void check_handles_atfork_child(void) {
    if (slots != NULL) memset(slots, 0, capacity * sizeof *slots);
    used = live = 0;
}

void check_memory_leaks_locked(const char *when);

void check_leaks(const char *when) {
    check_lock();
    for (size_t i = 0; i < capacity; i++) {
        if (slots[i].token <= 1) continue;
        char message[256];
        snprintf(message, sizeof message, "%s %p created here is still live at %s", KIND_LEAK[slots[i].kind].noun,
                 (void *)(uintptr_t)slots[i].token, when);
        check_add_finding(CHECK_LEAK, KIND_LEAK[slots[i].kind].what, KIND_LEAK[slots[i].kind].call, slots[i].site,
                          NULL, NULL, message);
    }
    if (slots != NULL) memset(slots, 0, capacity * sizeof *slots);
    used = live = 0;
    check_memory_leaks_locked(when);
    check_unlock();
}
