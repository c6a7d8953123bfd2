/* The operators loaded in the process (ours and users'), for introspection: the table cross-check test and
 * tools read the parameter tables through aclStubRegisteredOp / aclStubDescribeOp. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sdk_internal.h"

#define MAX_OPS 4096

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static const aclStubOpDef *registry[MAX_OPS];
static size_t registry_count;

static void reset_after_fork(void) { pthread_mutex_init(&registry_lock, NULL); }
__attribute__((constructor)) static void install_fork_handler(void) { pthread_atfork(NULL, NULL, reset_after_fork); }

/* Only complete tables are listed: introspection never reads a missing name (phase 1 of an operator with a
 * broken table reports the problem, 561000). */
void aclStubOpRegister(const aclStubOpDef *op) {
    char why[256];
    if (sdk_table_problem(op, why, sizeof why) != NULL) return;
    pthread_mutex_lock(&registry_lock);
    if (registry_count < MAX_OPS) registry[registry_count++] = op;
    pthread_mutex_unlock(&registry_lock);
}

void aclStubOpUnregister(const aclStubOpDef *op) {
    pthread_mutex_lock(&registry_lock);
    for (size_t i = 0; i < registry_count; i++) {
        if (registry[i] == op) {
            memmove(&registry[i], &registry[i + 1], (registry_count - i - 1) * sizeof registry[0]);
            registry_count--;
            break;
        }
    }
    pthread_mutex_unlock(&registry_lock);
}

const char *aclStubRegisteredOp(size_t index) {
    pthread_mutex_lock(&registry_lock);
    const char *name = index < registry_count ? registry[index]->name : NULL;
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
    [ACLSTUB_SCALAR_LIST] = "scalar_list",
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
    for (size_t k = 0; k < registry_count; k++) {
        const aclStubOpDef *op = registry[k];
        if (strcmp(op->name, name) != 0) continue;
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
        break;
    }
    pthread_mutex_unlock(&registry_lock);
    return len + 1;
}
