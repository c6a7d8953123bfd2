/* The operators loaded in the process (ours and users'), for introspection: the table cross-check test and
 * tools read the parameter tables through aclStubRegisteredOp / aclStubDescribeOp.
 *
 * The same operator may be registered by several libraries: a toolkit exports an operator of ops-math from
 * libopapi_math.so and from libopapi.so, and a program may link or open both (or a user library may define
 * an operator we ship). Every registration is kept, in order; the listing holds each name once, described by
 * its earliest registration still loaded, and a name stays listed until its last library is unloaded. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdk_internal.h"

/* One listed operator: the definition that describes it (the earliest registration still loaded) and how
 * many loaded registrations carry its name. */
typedef struct {
    const aclStubOpDef *def;
    size_t refs;
} Listed;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static const aclStubOpDef **regs; /* every registration, in order */
static size_t num_regs, cap_regs;
static Listed *listed; /* each name once, in order of first registration */
static size_t num_listed, cap_listed;
static uint32_t *slots; /* open addressing over listed[]: index + 1, 0 when empty */
static size_t num_slots;  /* a power of two, at least twice num_listed, or 0 */

static void reset_after_fork(void) { pthread_mutex_init(&registry_lock, NULL); }
__attribute__((constructor)) static void install_fork_handler(void) { pthread_atfork(NULL, NULL, reset_after_fork); }

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot holding name, or the empty slot where it would go. */
static size_t find_slot(const char *name) {
    size_t mask = num_slots - 1, i = (size_t)name_hash(name) & mask;
    while (slots[i] != 0 && strcmp(listed[slots[i] - 1].def->name, name) != 0) i = (i + 1) & mask;
    return i;
}

/* Rebuild the index with room for `want` names; false when out of memory (the index is left unchanged). */
static bool rebuild_slots(size_t want) {
    size_t n = 16;
    while (n < 2 * want) n *= 2;
    uint32_t *fresh = calloc(n, sizeof *fresh);
    if (fresh == NULL) return false;
    free(slots);
    slots = fresh;
    num_slots = n;
    for (size_t k = 0; k < num_listed; k++) slots[find_slot(listed[k].def->name)] = (uint32_t)(k + 1);
    return true;
}

/* Room for one more registration and one more listed name; false when out of memory. */
static bool reserve_one(void) {
    if (num_regs == cap_regs) {
        size_t n = cap_regs ? 2 * cap_regs : 64;
        const aclStubOpDef **fresh = realloc(regs, n * sizeof *fresh);
        if (fresh == NULL) return false;
        regs = fresh;
        cap_regs = n;
    }
    if (num_listed == cap_listed) {
        size_t n = cap_listed ? 2 * cap_listed : 64;
        Listed *fresh = realloc(listed, n * sizeof *fresh);
        if (fresh == NULL) return false;
        listed = fresh;
        cap_listed = n;
    }
    return 2 * (num_listed + 1) <= num_slots || rebuild_slots(num_listed + 1);
}

/* Registration runs in library constructors, where nothing can report a failure: out of memory, the
 * operator still works but is not listed. Only complete tables are listed: introspection never reads a
 * missing name (phase 1 of an operator with a broken table reports the problem, 561000). */
void aclStubOpRegister(const aclStubOpDef *op) {
    char why[256];
    if (sdk_table_problem(op, why, sizeof why) != NULL) return;
    pthread_mutex_lock(&registry_lock);
    if (num_listed >= UINT32_MAX - 1 || !reserve_one()) {
        pthread_mutex_unlock(&registry_lock);
        return;
    }
    regs[num_regs++] = op;
    size_t s = find_slot(op->name);
    if (slots[s] != 0) {
        listed[slots[s] - 1].refs++;
    } else {
        listed[num_listed] = (Listed){op, 1};
        slots[s] = (uint32_t)++num_listed;
    }
    pthread_mutex_unlock(&registry_lock);
}

void aclStubOpUnregister(const aclStubOpDef *op) {
    pthread_mutex_lock(&registry_lock);
    size_t r = 0;
    while (r < num_regs && regs[r] != op) r++;
    if (r == num_regs) { /* never registered (out of memory then) */
        pthread_mutex_unlock(&registry_lock);
        return;
    }
    memmove(&regs[r], &regs[r + 1], (num_regs - r - 1) * sizeof regs[0]);
    num_regs--;
    size_t k = slots[find_slot(op->name)] - 1;
    if (--listed[k].refs > 0) {
        if (listed[k].def == op) { /* described by the earliest registration still loaded */
            for (size_t j = 0; j < num_regs; j++) {
                if (strcmp(regs[j]->name, op->name) == 0) {
                    listed[k].def = regs[j];
                    break;
                }
            }
        }
    } else {
        memmove(&listed[k], &listed[k + 1], (num_listed - k - 1) * sizeof listed[0]);
        num_listed--;
        memset(slots, 0, num_slots * sizeof slots[0]); /* unloading is rare: reindex in place */
        for (size_t j = 0; j < num_listed; j++) slots[find_slot(listed[j].def->name)] = (uint32_t)(j + 1);
    }
    pthread_mutex_unlock(&registry_lock);
}

const char *aclStubRegisteredOp(size_t index) {
    pthread_mutex_lock(&registry_lock);
    const char *name = index < num_listed ? listed[index].def->name : NULL;
    pthread_mutex_unlock(&registry_lock);
    return name;
}

static const char *const ROLE_NAME[ACLSTUB_ROLE_END] = {
    [ACLSTUB_INPUT] = "input",           [ACLSTUB_OPTIONAL_INPUT] = "optional_input",
    [ACLSTUB_OUTPUT] = "output",         [ACLSTUB_OPTIONAL_OUTPUT] = "optional_output",
    [ACLSTUB_INT] = "int",               [ACLSTUB_BOOL] = "bool",
    [ACLSTUB_FLOAT] = "float",           [ACLSTUB_STRING] = "string",
    [ACLSTUB_DTYPE] = "dtype",           [ACLSTUB_INT_ARRAY] = "int_array",
    [ACLSTUB_BOOL_ARRAY] = "bool_array", [ACLSTUB_FLOAT_ARRAY] = "float_array",
    [ACLSTUB_SCALAR] = "scalar",         [ACLSTUB_TENSOR_LIST] = "tensor_list",
    [ACLSTUB_SCALAR_LIST] = "scalar_list", [ACLSTUB_INPLACE] = "inplace",
    [ACLSTUB_OUTPUT_LIST] = "output_list",
};

/* Append to buf without overflowing it; *len keeps counting what a large enough buffer would need. */
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...) STUB_PRINTF(4, 5);
static void append(char *buf, size_t cap, size_t *len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*len < cap ? buf + *len : NULL, *len < cap ? cap - *len : 0, fmt, ap);
    va_end(ap);
    if (n > 0) *len += (size_t)n;
}

size_t aclStubDescribeOp(const char *name, char *buf, size_t cap) {
    if (name == NULL) return 0;
    if (buf && cap) buf[0] = '\0';
    else cap = 0;
    size_t len = 0;
    pthread_mutex_lock(&registry_lock);
    size_t s = num_slots ? find_slot(name) : 0;
    if (num_slots && slots[s] != 0) {
        const aclStubOpDef *op = listed[slots[s] - 1].def;
        for (size_t i = 0; i < op->num_params; i++) {
            const aclStubParam *p = &op->params[i];
            bool known = p->role >= ACLSTUB_INPUT && p->role < ACLSTUB_ROLE_END;
            append(buf, cap, &len, "%s\t%s\t", p->name, known ? ROLE_NAME[p->role] : "unknown");
            bool first = true;
            for (int d = 0; d < 64; d++) {
                if (!(p->dtypes & ACLSTUB_DT(d))) continue;
                append(buf, cap, &len, "%s%s", first ? "" : ",", aclStubDtypeName((aclDataType)d));
                first = false;
            }
            append(buf, cap, &len, "\t%s\n", p->same_dtype_as ? p->same_dtype_as : "");
        }
    }
    pthread_mutex_unlock(&registry_lock);
    return len + 1;
}
