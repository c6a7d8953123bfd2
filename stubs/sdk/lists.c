/* Snapshots of list and array parameters (int, bool and float arrays, tensor and scalar lists) for both phases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta_internal.h"
#include "sdk_internal.h"

static const char *role_noun(aclStubRole r) {
    switch (r) {
    case ACLSTUB_INT_ARRAY: return "aclIntArray";
    case ACLSTUB_BOOL_ARRAY: return "aclBoolArray";
    case ACLSTUB_FLOAT_ARRAY: return "aclFloatArray";
    case ACLSTUB_SCALAR_LIST: return "aclScalarList";
    default: return "aclTensorList";
    }
}

/* The same in phase-2 messages ("int array 'dim' was destroyed ..."). */
static const char *role_words(aclStubRole r) {
    switch (r) {
    case ACLSTUB_INT_ARRAY: return "int array";
    case ACLSTUB_BOOL_ARRAY: return "bool array";
    case ACLSTUB_FLOAT_ARRAY: return "float array";
    case ACLSTUB_SCALAR_LIST: return "scalar list";
    default: return "tensor list";
    }
}

static bool list_count(aclStubRole role, const void *h, uint64_t *size) {
    switch (role) {
    case ACLSTUB_INT_ARRAY: return meta_int_array_size(h, size);
    case ACLSTUB_BOOL_ARRAY: return aclStubBoolArrayValues(h, NULL, 0, size);
    case ACLSTUB_FLOAT_ARRAY: return aclStubFloatArrayValues(h, NULL, 0, size);
    case ACLSTUB_SCALAR_LIST: return aclStubScalarListElements(h, NULL, 0, size);
    default: return aclStubTensorListElements(h, NULL, 0, size);
    }
}

aclnnStatus sdk_list_size(const aclStubOpCall *msg, size_t i, const void *h, uint64_t *size, size_t *each) {
    aclStubRole role = msg->op->params[i].role;
    if (!list_count(role, h, size))
        return aclStubOpFail(msg, ACLNN_ERR_PARAM_INVALID, "argument '%s' (%p) is not a live %s",
                             msg->op->params[i].name, h, role_noun(role));
    switch (role) {
    case ACLSTUB_INT_ARRAY: *each = sizeof(int64_t); break;
    case ACLSTUB_BOOL_ARRAY: *each = sizeof(bool); break;
    case ACLSTUB_FLOAT_ARRAY: *each = sizeof(float); break;
    case ACLSTUB_SCALAR_LIST: *each = sizeof(aclStubScalarDesc); break;
    default: *each = sizeof(aclStubTensorDesc); break;
    }
    return OK;
}

aclnnStatus sdk_list_copy(const aclStubOpCall *msg, size_t i, const void *h, aclStubValue *v, char **cursor,
                          const void *const **elems) {
    const aclStubParam *p = &msg->op->params[i];
    uint64_t n = v->size, got = 0;
    char *at = *cursor;
    size_t each = 0;
    sdk_list_size(msg, i, h, &got, &each); /* the entry size (liveness is checked below) */
    *cursor += align_up((size_t)n * each);
    bool live = true;
    switch (p->role) {
    case ACLSTUB_INT_ARRAY:
        live = meta_int_array_copy(h, (int64_t *)(void *)at, n);
        v->ints = (const int64_t *)(void *)at;
        break;
    case ACLSTUB_BOOL_ARRAY:
        live = aclStubBoolArrayValues(h, (bool *)(void *)at, n, &got) && got == n;
        v->bools = (const bool *)(void *)at;
        break;
    case ACLSTUB_FLOAT_ARRAY:
        live = aclStubFloatArrayValues(h, (float *)(void *)at, n, &got) && got == n;
        v->floats = (const float *)(void *)at;
        break;
    case ACLSTUB_SCALAR_LIST: {
        aclStubScalarDesc *out = (aclStubScalarDesc *)(void *)at;
        const aclScalar **items = n ? malloc((size_t)n * sizeof *items) : NULL;
        if (n && !items) return aclStubOpFail(msg, ACLNN_ERR_INNER, "out of host memory for '%s'", p->name);
        live = aclStubScalarListElements(h, items, n, &got) && got == n;
        for (uint64_t k = 0; live && k < n; k++) {
            out[k].dtype = ACL_DT_UNDEFINED;
            if (items[k] && !meta_scalar_copy(items[k], &out[k].dtype, out[k].value)) {
                const void *bad = items[k];
                free(items);
                return aclStubOpFail(msg, ACLNN_ERR_PARAM_INVALID, "element %llu of '%s' (%p) is not a live aclScalar",
                                     (unsigned long long)k, p->name, bad);
            }
        }
        free(items);
        v->scalars = out;
        break;
    }
    default: { /* tensor lists: descriptions, then the element tokens */
        aclStubTensorDesc *out = (aclStubTensorDesc *)(void *)at;
        const aclTensor **tokens = (const aclTensor **)(void *)*cursor;
        *cursor += align_up((size_t)n * sizeof(void *));
        live = aclStubTensorListElements(h, tokens, n, &got) && got == n;
        for (uint64_t k = 0; live && k < n; k++) {
            memset(&out[k], 0, sizeof out[k]);
            out[k].dtype = ACL_DT_UNDEFINED;
            if (tokens[k] == NULL) continue;
            int r = aclStubTensorDescribe(tokens[k], &out[k]);
            if (r == 0)
                return aclStubOpFail(msg, ACLNN_ERR_PARAM_INVALID, "element %llu of '%s' (%p) is not a live aclTensor",
                                     (unsigned long long)k, p->name, (const void *)tokens[k]);
            if (r < 0)
                return aclStubOpFail(msg, ACLNN_ERR_PARAM_INVALID, "element %llu of '%s' has more than %d dimensions",
                                     (unsigned long long)k, p->name, STUB_MAX_VIEW_DIMS);
        }
        v->tensors = out;
        *elems = (const void *const *)tokens;
        break;
    }
    }
    if (!live)
        return aclStubOpFail(msg, ACLNN_ERR_PARAM_INVALID, "argument '%s' (%p) was destroyed or changed during the call",
                             p->name, h);
    return OK;
}

aclnnStatus sdk_list_recheck(aclOpExecutor *w, size_t i) {
    const aclStubOpDef *op = w->op;
    const aclStubParam *p = &op->params[i];
    aclStubValue *v = &w->values[i];
    uint64_t size = 0;
    /* Lists and arrays are immutable, so a live handle of the same size holds what phase 1 copied. */
    if (!list_count(p->role, w->handles[i], &size))
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s '%s' (%p) was destroyed after %sGetWorkspaceSize", op->name,
                        role_words(p->role), p->name, w->handles[i], op->name);
    if (size != v->size)
        return sdk_fail(ACLNN_ERR_PARAM_INVALID, "%s: %s '%s' was changed after %sGetWorkspaceSize", op->name,
                        role_words(p->role), p->name, op->name);
    if (p->role != ACLSTUB_TENSOR_LIST && p->role != ACLSTUB_OUTPUT_LIST) return OK;
    /* Its tensors may have been destroyed or given new addresses since: each is checked like a tensor. */
    for (uint64_t k = 0; k < v->size; k++) {
        if (w->elems[i][k] == NULL) continue;
        char name[160];
        snprintf(name, sizeof name, "%s[%llu]", p->name, (unsigned long long)k);
        ACLSTUB_TRY(sdk_recheck_tensor(op->name, name, w->elems[i][k], (aclStubTensorDesc *)(uintptr_t)&v->tensors[k]));
    }
    return OK;
}
