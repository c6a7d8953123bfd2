/* Phase 1 of every SDK operator: the generic checks, the snapshot, the op's check and the executor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta_internal.h"
#include "sdk_internal.h"

/* The argument kind each role takes. */
static const aclStubArgKind ROLE_KIND[ACLSTUB_ROLE_END] = {
    [ACLSTUB_INPUT] = ACLSTUB_KIND_TENSOR,   [ACLSTUB_OPTIONAL_INPUT] = ACLSTUB_KIND_TENSOR,
    [ACLSTUB_OUTPUT] = ACLSTUB_KIND_TENSOR,  [ACLSTUB_OPTIONAL_OUTPUT] = ACLSTUB_KIND_TENSOR,
    [ACLSTUB_INT] = ACLSTUB_KIND_INT,        [ACLSTUB_BOOL] = ACLSTUB_KIND_BOOL,
    [ACLSTUB_FLOAT] = ACLSTUB_KIND_FLOAT,    [ACLSTUB_STRING] = ACLSTUB_KIND_STRING,
    [ACLSTUB_DTYPE] = ACLSTUB_KIND_DTYPE,    [ACLSTUB_INT_ARRAY] = ACLSTUB_KIND_INT_ARRAY,
    [ACLSTUB_BOOL_ARRAY] = ACLSTUB_KIND_BOOL_ARRAY, [ACLSTUB_FLOAT_ARRAY] = ACLSTUB_KIND_FLOAT_ARRAY,
    [ACLSTUB_SCALAR] = ACLSTUB_KIND_SCALAR,  [ACLSTUB_TENSOR_LIST] = ACLSTUB_KIND_TENSOR_LIST,
    [ACLSTUB_SCALAR_LIST] = ACLSTUB_KIND_SCALAR_LIST, [ACLSTUB_INPLACE] = ACLSTUB_KIND_TENSOR,
    [ACLSTUB_OUTPUT_LIST] = ACLSTUB_KIND_TENSOR_LIST,
};

static const char *const KIND_NAME[] = {
    [ACLSTUB_KIND_TENSOR] = "an aclTensor",          [ACLSTUB_KIND_INT_ARRAY] = "an aclIntArray",
    [ACLSTUB_KIND_BOOL_ARRAY] = "an aclBoolArray",   [ACLSTUB_KIND_FLOAT_ARRAY] = "an aclFloatArray",
    [ACLSTUB_KIND_SCALAR] = "an aclScalar",          [ACLSTUB_KIND_TENSOR_LIST] = "an aclTensorList",
    [ACLSTUB_KIND_SCALAR_LIST] = "an aclScalarList", [ACLSTUB_KIND_INT] = "an int64_t",
    [ACLSTUB_KIND_BOOL] = "a bool",                  [ACLSTUB_KIND_FLOAT] = "a double",
    [ACLSTUB_KIND_STRING] = "a string",              [ACLSTUB_KIND_DTYPE] = "an aclDataType",
};

static const char *kind_name(aclStubArgKind k) {
    return k >= ACLSTUB_KIND_TENSOR && k <= ACLSTUB_KIND_DTYPE ? KIND_NAME[k] : "an unknown kind";
}

/* An argument of kind `got` fits a role expecting `want` (C boxes an aclDataType, an int, as an integer). */
static bool kind_fits(aclStubArgKind want, aclStubArgKind got) {
    return want == got || (want == ACLSTUB_KIND_DTYPE && got == ACLSTUB_KIND_INT);
}

static bool is_tensor(aclStubRole r) { return sdk_role_is_tensor(r); }
static bool is_list(aclStubRole r) {
    return r == ACLSTUB_TENSOR_LIST || r == ACLSTUB_OUTPUT_LIST || r == ACLSTUB_SCALAR_LIST ||
           r == ACLSTUB_BOOL_ARRAY || r == ACLSTUB_FLOAT_ARRAY || r == ACLSTUB_INT_ARRAY;
}
static bool is_handle(aclStubRole r) { return is_tensor(r) || is_list(r) || r == ACLSTUB_SCALAR; }
static bool is_required(const aclStubParam *p) {
    return p->role == ACLSTUB_INPUT || p->role == ACLSTUB_OUTPUT || p->role == ACLSTUB_INPLACE ||
           ((is_list(p->role) || p->role == ACLSTUB_SCALAR) && !(p->flags & ACLSTUB_NULLABLE));
}

const char *sdk_table_problem(const aclStubOpDef *op, char *why, size_t cap) {
    if (op == NULL) return "the operator table is NULL";
    if (op->name == NULL) return "the operator's table has no name";
    if (!op->params || !op->check || !op->kernel || op->num_params > SDK_MAX_PARAMS) {
        snprintf(why, cap, "the operator's table is incomplete (params, check, kernel, at most %d parameters)",
                 SDK_MAX_PARAMS);
        return why;
    }
    for (size_t i = 0; i < op->num_params; i++) {
        const aclStubParam *p = &op->params[i];
        if (!p->name || p->role < ACLSTUB_INPUT || p->role >= ACLSTUB_ROLE_END) {
            snprintf(why, cap, "parameter %zu of the operator's table has no name or an unknown role", i);
            return why;
        }
    }
    for (size_t i = 0; i < op->num_params; i++) { /* every name is known to be set from here on */
        const aclStubParam *p = &op->params[i];
        if (ROLE_KIND[p->role] == 0) {
            snprintf(why, cap, "parameter '%s' has a role (%d) this version of the operator SDK declares but does "
                     "not support yet", p->name, (int)p->role);
            return why;
        }
        if (p->same_dtype_as) {
            size_t r = 0;
            while (r < op->num_params &&
                   (strcmp(op->params[r].name, p->same_dtype_as) != 0 || !is_tensor(op->params[r].role)))
                r++;
            if (r == op->num_params || !is_tensor(p->role)) {
                snprintf(why, cap, "parameter '%s' must have the dtype of '%s', which is not a tensor parameter of "
                         "the operator", p->name, p->same_dtype_as);
                return why;
            }
        }
    }
    return NULL;
}

/* The operator's table and the boxed arguments of its entry point must agree: a mismatch is the author's bug. */
static aclnnStatus check_table(const aclStubOpDef *op, const aclStubArg *args, size_t n) {
    const aclnnStatus INNER = ACLNN_ERR_INNER;
    char why[256];
    const char *problem = sdk_table_problem(op, why, sizeof why);
    if (problem != NULL)
        return sdk_fail(INNER, "%sGetWorkspaceSize: %s", op != NULL && op->name != NULL ? op->name : "aclnn?",
                        problem);
    if (n != op->num_params)
        return sdk_fail(INNER, "%sGetWorkspaceSize: the entry point passes %zu arguments but the operator's table "
                        "declares %zu parameters", op->name, n, op->num_params);
    for (size_t i = 0; i < n; i++) {
        const aclStubParam *p = &op->params[i];
        if (!kind_fits(ROLE_KIND[p->role], args[i].kind))
            return sdk_fail(INNER, "%sGetWorkspaceSize: parameter %zu '%s' is %s in the operator's table but the "
                            "entry point passes %s", op->name, i, p->name, kind_name(ROLE_KIND[p->role]),
                            kind_name(args[i].kind));
    }
    return OK;
}

/* Attributes as values (what precheck sees, and the start of the executor's values). */
static void attribute_values(const aclStubOpDef *op, const aclStubArg *args, aclStubValue *v) {
    for (size_t i = 0; i < op->num_params; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].i = args[i].i;
        v[i].f = args[i].f;
        v[i].b = args[i].i != 0;
        v[i].dtype = (aclDataType)args[i].i;
        v[i].s = op->params[i].role == ACLSTUB_STRING ? args[i].handle : NULL;
        v[i].present = args[i].handle != NULL;
    }
}


static aclOpExecutor *executor_of(aclStubOpCall *call) {
    return (aclOpExecutor *)(void *)((char *)call - offsetof(aclOpExecutor, call));
}

aclnnStatus aclStubOpNothingToDo(aclStubOpCall *call) {
    executor_of(call)->nothing_to_do = true;
    return OK;
}

aclnnStatus aclStubOpWaitsForPeers(aclStubOpCall *call) {
    executor_of(call)->waits_for_peers = true;
    return OK;
}

void aclStubOpRequestWorkspace(aclStubOpCall *call, uint64_t bytes) {
    if (bytes > call->workspace_size) call->workspace_size = bytes;
}

void aclStubOpIgnore(aclStubOpCall *call, int i) {
    aclStubValue *v = &executor_of(call)->values[i];
    v->tensor = NULL;
    v->ints = NULL;
    v->size = 0;
    v->present = false;
}

aclnnStatus aclStubOpSetStorage(aclStubOpCall *call, int i, aclFormat format, const int64_t *dims, uint32_t n) {
    aclOpExecutor *ex = executor_of(call);
    aclStubTensorDesc *t = (aclStubTensorDesc *)ex->values[i].tensor; /* the executor's own snapshot */
    if (t == NULL || ex->handles[i] == NULL || n > ACLSTUB_MAX_STORAGE_DIMS)
        return aclStubOpFail(call, ACLNN_ERR_INNER, "argument '%s' cannot take a storage shape of %u dimensions",
                             aclStubOpName(call, i), n);
    if (!aclStubTensorSetStorage(ex->handles[i], format, dims, n))
        return aclStubOpFail(call, ACLNN_ERR_INNER, "argument '%s' is not a live aclTensor", aclStubOpName(call, i));
    t->format = format;
    t->storage_ndim = n;
    if (n) memcpy(t->storage_dims, dims, n * sizeof *dims);
    return OK;
}

aclnnStatus aclStubOpPlan(const aclStubOpDef *op, const aclStubArg *args, size_t n, uint64_t *workspaceSize,
                          aclOpExecutor **executor) {
    ACLSTUB_TRY(check_table(op, args, n));
    const aclStubParam *params = op->params;

    aclStubValue pre[SDK_MAX_PARAMS];
    attribute_values(op, args, pre);
    if (op->precheck) {
        aclStubOpCall call = {op, pre, NULL, NULL, 0};
        ACLSTUB_TRY(op->precheck(&call));
    }

    /* NULL arguments (161001), then liveness (161002), as nnopbase checks them. */
    aclStubOpCall msg = {op, pre, NULL, NULL, 0};
    for (size_t i = 0; i < n; i++)
        if (is_required(&params[i]) && args[i].handle == NULL)
            return aclStubOpFail(&msg, ACLNN_ERR_PARAM_NULLPTR, "argument '%s' is NULL", params[i].name);
    if (workspaceSize == NULL) return aclStubOpFail(&msg, ACLNN_ERR_PARAM_NULLPTR, "argument 'workspaceSize' is NULL");
    if (executor == NULL) return aclStubOpFail(&msg, ACLNN_ERR_PARAM_NULLPTR, "argument 'executor' is NULL");

    /* Sizes first (liveness and the bytes each snapshot needs), then one allocation, then the copies. */
    aclStubTensorDesc descs[SDK_MAX_PARAMS];
    size_t num_tensors = 0, extra = 0;
    for (size_t i = 0; i < n; i++) {
        const void *h = args[i].handle;
        aclStubRole role = params[i].role;
        if (h == NULL || !is_handle(role)) {
            if (role == ACLSTUB_STRING && h) extra += align_up(strlen(h) + 1);
            continue;
        }
        if (is_tensor(role)) {
            int r = aclStubTensorDescribe(h, &descs[i]);
            if (r == 0)
                return aclStubOpFail(&msg, ACLNN_ERR_PARAM_INVALID, "argument '%s' (%p) is not a live aclTensor",
                                     params[i].name, h);
            if (r < 0)
                return aclStubOpFail(&msg, ACLNN_ERR_PARAM_INVALID, "argument '%s' has more than %d dimensions",
                                     params[i].name, STUB_MAX_VIEW_DIMS);
            num_tensors++;
        } else if (role == ACLSTUB_SCALAR) {
            if (!meta_scalar_copy(h, &pre[i].dtype, pre[i].scalar))
                return aclStubOpFail(&msg, ACLNN_ERR_PARAM_INVALID, "argument '%s' (%p) is not a live aclScalar",
                                     params[i].name, h);
        } else {
            size_t each = 0;
            ACLSTUB_TRY(sdk_list_size(&msg, i, h, &pre[i].size, &each));
            if (pre[i].size > ((uint64_t)1 << 40) / (each + sizeof(void *)))
                return aclStubOpFail(&msg, ACLNN_ERR_INNER, "argument '%s' holds too many values (%llu)",
                                     params[i].name, (unsigned long long)pre[i].size);
            extra += align_up((size_t)pre[i].size * each);
            /* tensor lists also keep their element handles, which phase 2 checks again */
            if (role == ACLSTUB_TENSOR_LIST || role == ACLSTUB_OUTPUT_LIST)
                extra += align_up((size_t)pre[i].size * sizeof(void *));
        }
    }

    /* One allocation: header, handles, list element handles, values, descriptions, array values and strings,
     * plan. */
    size_t at_handles = align_up(sizeof(aclOpExecutor));
    size_t at_elems = at_handles + align_up(n * sizeof(void *));
    size_t at_values = at_elems + align_up(n * sizeof(void *));
    size_t at_descs = at_values + align_up(n * sizeof(aclStubValue));
    size_t at_extra = at_descs + num_tensors * sizeof(aclStubTensorDesc);
    size_t at_plan = at_extra + extra;
    size_t bytes = at_plan + align_up(op->plan_size);
    aclOpExecutor *ex = sdk_executor_alloc(bytes);
    if (!ex) return aclStubOpFail(&msg, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of host memory for the executor");
    char *base = (char *)ex;
    ex->op = op;
    ex->bytes = bytes;
    ex->handles = (const void **)(void *)(base + at_handles);
    ex->elems = (const void *const **)(void *)(base + at_elems);
    ex->values = (aclStubValue *)(void *)(base + at_values);
    memcpy(ex->values, pre, n * sizeof *pre);
    ex->call = (aclStubOpCall){op, ex->values, base + at_plan, NULL, 0};
    aclStubTensorDesc *desc = (aclStubTensorDesc *)(void *)(base + at_descs);
    char *cursor = base + at_extra;
    aclnnStatus status = OK;
    for (size_t i = 0; i < n && status == OK; i++) {
        const void *h = args[i].handle;
        aclStubValue *v = &ex->values[i];
        aclStubRole role = params[i].role;
        if (h && is_tensor(role)) {
            *desc = descs[i];
            v->tensor = desc++;
        } else if (h && is_list(role)) {
            status = sdk_list_copy(&msg, i, h, v, &cursor, &ex->elems[i]);
        } else if (h && role == ACLSTUB_STRING) {
            size_t len = strlen(h) + 1;
            memcpy(cursor, h, len);
            v->s = cursor;
            cursor += align_up(len);
        }
    }

    /* Generic tensor rules in nnopbase's order: dtypes (each with its same-dtype rule), layouts, ranks. */
    const aclStubOpCall *call = &ex->call;
    for (size_t i = 0; i < n && status == OK; i++)
        if (is_tensor(params[i].role) && !(params[i].flags & ACLSTUB_CHECK_LATER)) status = sdk_check_dtypes(call, (int)i);
    for (size_t i = 0; i < n && status == OK; i++)
        if (is_tensor(params[i].role) && !(params[i].flags & ACLSTUB_CHECK_LATER)) status = sdk_check_layout(call, (int)i);
    for (size_t i = 0; i < n && status == OK; i++) status = sdk_check_rank(call, (int)i);
    /* check may change a tensor's storage (aclStubOpSetStorage): it finds the caller's handles here. */
    for (size_t i = 0; i < n; i++) ex->handles[i] = is_tensor(params[i].role) ? args[i].handle : NULL;
    if (status == OK) status = op->check(&ex->call);
    if (status != OK) {
        sdk_executor_free(ex);
        return status;
    }
    memset(ex->handles, 0, n * sizeof *ex->handles);

    /* Record what phase 2 checks again: every handle the kernel reads (nothing when there is nothing to do). */
    for (size_t i = 0; i < n && !ex->nothing_to_do; i++)
        if (ex->values[i].tensor || ((is_list(params[i].role) || params[i].role == ACLSTUB_SCALAR) &&
                                     ex->values[i].present))
            ex->handles[i] = args[i].handle;
    uint64_t workspace = ex->workspace_size = ex->nothing_to_do ? 0 : ex->call.workspace_size;
    aclOpExecutor *token = handle_insert(&sdk_executors, ex); /* published only once complete */
    if (!token) {
        sdk_executor_free(ex);
        return aclStubOpFail(&msg, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of host memory for the executor");
    }
    *workspaceSize = workspace;
    *executor = token;
    return OK;
}
