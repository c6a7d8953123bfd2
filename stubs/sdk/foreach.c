/*
 * The foreach engine (aclstub/op_foreach.h): the list rules of the foreach op_apis in their order, and the kernel
 * that runs an elementwise loop table over every list entry with the element iterator.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aclstub/op_foreach.h"
#include "sdk_internal.h"

#define MAX_DIM 8

static bool private_format(aclFormat f) {
    return !(f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_HWCN ||
             f == ACL_FORMAT_NDHWC || f == ACL_FORMAT_NCDHW || f == ACL_FORMAT_NCL);
}

static bool is_integral_list(aclDataType t) { return aclStubIsIntegral(t, false); }

/* The dtypes the scalar may have for lists of dtype t (0: no rule). */
static uint64_t scalar_dtypes(aclStubForeachScalarRule rule, aclDataType t) {
    switch (rule) {
    case ACLSTUB_FE_SCALAR_RULE_TYPED:
        if (t == ACL_FLOAT16) return ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_DOUBLE);
        if (is_integral_list(t)) return ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_INT64);
        return ACLSTUB_DT(ACL_FLOAT) | ACLSTUB_DT(ACL_DOUBLE);
    case ACLSTUB_FE_SCALAR_RULE_FLOAT: return ACLSTUB_DT(ACL_FLOAT) | ACLSTUB_DT(ACL_DOUBLE);
    case ACLSTUB_FE_SCALAR_RULE_TENSOR:
        if (t == ACL_FLOAT16) return ACLSTUB_DT(ACL_FLOAT16);
        if (is_integral_list(t)) return ACLSTUB_DT(ACL_INT32);
        return ACLSTUB_DT(ACL_FLOAT);
    case ACLSTUB_FE_SCALAR_RULE_SAME: return ACLSTUB_DT(t);
    default: return 0;
    }
}


/* The lists, output and scalar of the operator's table, into the plan. */
static aclnnStatus layout(aclStubOpCall *call, const aclStubForeach *row, aclStubForeachPlan *plan) {
    const aclStubOpDef *op = call->op;
    int n = 0;
    plan->out = plan->scalar = -1;
    for (size_t i = 0; i < op->num_params; i++) {
        aclStubRole r = op->params[i].role;
        if (r == ACLSTUB_OUTPUT_LIST)
            plan->out = (int)i;
        else if (r == ACLSTUB_TENSOR_LIST && n < ACLSTUB_ITER_MAX_OPERANDS - 1)
            plan->lists[n++] = (int)i;
        else if ((r == ACLSTUB_SCALAR || r == ACLSTUB_SCALAR_LIST || r == ACLSTUB_INPUT) && plan->scalar < 0)
            plan->scalar = (int)i;
    }
    if (plan->out < 0 && n > 0) plan->out = plan->lists[0]; /* in place */
    if (row == NULL || row->loops == NULL || n != row->num_lists || n < 1)
        return aclStubOpFail(call, ACLNN_ERR_INNER, "the foreach row is incomplete (lists, loops)");
    return OK;
}

static const aclStubTensorDesc *entry(const aclStubOpCall *call, int param, uint64_t i) {
    return &call->v[param].tensors[i];
}

/* Every written or read list of the call, in parameter order (inputs, then the output when it is its own). */
static int all_lists(const aclStubForeachPlan *plan, int num_lists, int *out) {
    int n = 0;
    for (int k = 0; k < num_lists; k++) out[n++] = plan->lists[k];
    if (plan->out != plan->lists[0]) out[n++] = plan->out;
    return n;
}

static aclnnStatus fail(const aclStubOpCall *call, bool tiling, const char *what) {
    return aclStubOpFail(call, tiling ? ACLNN_ERR_INNER_TILING_ERROR : ACLNN_ERR_PARAM_INVALID, "%s", what);
}

aclnnStatus aclStubForeachCheck(aclStubOpCall *call) {
    const aclStubForeach *row = aclStubFamilyRow(call);
    aclStubForeachPlan *plan = call->plan;
    ACLSTUB_TRY(layout(call, row, plan));
    const bool generated = row->flags & ACLSTUB_FE_GENERATED;
    int lists[ACLSTUB_ITER_MAX_OPERANDS + 1];
    int nl = all_lists(plan, row->num_lists, lists);
    const aclStubValue *x = &call->v[plan->lists[0]];
    char buf[256], msg[512];

    /* 1. NULL entries */
    for (int k = 0; k < nl; k++)
        for (uint64_t i = 0; i < call->v[lists[k]].size; i++)
            if (entry(call, lists[k], i)->data == NULL && entry(call, lists[k], i)->dtype == ACL_DT_UNDEFINED)
                return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "entry %llu of '%s' is NULL",
                                     (unsigned long long)i, aclStubOpName(call, lists[k]));

    /* 2. dtypes: the first entry's in the list, every entry of that dtype, the scalar's by the row's rule */
    aclDataType dt = x->size ? x->tensors[0].dtype : ACL_DT_UNDEFINED;
    if (x->size) {
        if ((unsigned)dt >= 64 || !(row->dtypes & ACLSTUB_DT(dt)))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "entry 0 of '%s' has data type %s; supported: %s",
                                 aclStubOpName(call, plan->lists[0]), aclStubDtypeName(dt),
                                 aclStubDtypeSetName(row->dtypes, buf, sizeof buf));
        for (int k = 0; k < nl; k++) {
            if ((row->flags & ACLSTUB_FE_OUT_DTYPE) && lists[k] == plan->out && plan->out != plan->lists[0]) continue;
            for (uint64_t i = 0; i < call->v[lists[k]].size; i++)
                if (entry(call, lists[k], i)->dtype != dt)
                    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "entry %llu of '%s' has data type %s, "
                                         "but every tensor of the lists must have the data type %s of '%s'[0]",
                                         (unsigned long long)i, aclStubOpName(call, lists[k]),
                                         aclStubDtypeName(entry(call, lists[k], i)->dtype), aclStubDtypeName(dt),
                                         aclStubOpName(call, plan->lists[0]));
        }
        uint64_t sdt = scalar_dtypes(row->scalar_rule, dt);
        if (plan->scalar >= 0 && sdt) {
            const aclStubValue *s = &call->v[plan->scalar];
            aclStubRole role = call->op->params[plan->scalar].role;
            aclDataType st = role == ACLSTUB_INPUT ? s->tensor->dtype : s->dtype;
            if (role != ACLSTUB_SCALAR_LIST && ((unsigned)st >= 64 || !(sdt & ACLSTUB_DT(st))))
                return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "'%s' has data type %s; with %s lists it must "
                                     "be one of %s", aclStubOpName(call, plan->scalar), aclStubDtypeName(st),
                                     aclStubDtypeName(dt), aclStubDtypeSetName(sdt, buf, sizeof buf));
        }
    }
    if (generated) {
        for (int k = 0; k < nl; k++)
            for (uint64_t i = 0; i < call->v[lists[k]].size; i++)
                if (private_format(entry(call, lists[k], i)->format))
                    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "entry %llu of '%s' has format %d; only "
                                         "ND-like formats are supported", (unsigned long long)i,
                                         aclStubOpName(call, lists[k]), (int)entry(call, lists[k], i)->format);
        bool all_empty = true;
        for (uint64_t i = 0; i < call->v[plan->out].size && all_empty; i++)
            all_empty = aclStubNumel(entry(call, plan->out, i)) == 0;
        if (all_empty) return aclStubOpNothingToDo(call);
    }

    /* 3. lengths, ranks, shapes */
    for (int k = 1; k < nl; k++)
        if (call->v[lists[k]].size != x->size) {
            snprintf(msg, sizeof msg, "Tensor lists must have the same number of tensors, got %llu ('%s') and %llu "
                     "('%s')", (unsigned long long)x->size, aclStubOpName(call, plan->lists[0]),
                     (unsigned long long)call->v[lists[k]].size, aclStubOpName(call, lists[k]));
            return fail(call, generated, msg);
        }
    for (uint64_t i = 0; i < x->size; i++) {
        const aclStubTensorDesc *t0 = &x->tensors[i];
        if (t0->ndim > MAX_DIM) {
            snprintf(msg, sizeof msg, "entry %llu of '%s' has %u dimensions; at most %d are supported",
                     (unsigned long long)i, aclStubOpName(call, plan->lists[0]), t0->ndim, MAX_DIM);
            return fail(call, generated, msg);
        }
        for (int k = 1; k < nl; k++) {
            const aclStubTensorDesc *t = entry(call, lists[k], i);
            if (!aclStubShapeEqual(t->dims, t->ndim, t0->dims, t0->ndim)) {
                snprintf(msg, sizeof msg, "entry %llu of '%s' has shape %s, but entry %llu of '%s' has %s",
                         (unsigned long long)i, aclStubOpName(call, lists[k]),
                         aclStubShapeText(t->dims, t->ndim, buf, sizeof buf), (unsigned long long)i,
                         aclStubOpName(call, plan->lists[0]), aclStubShapeText(t0->dims, t0->ndim, msg + 400, 100));
                return fail(call, generated, msg);
            }
        }
    }
    if (plan->scalar >= 0 && call->op->params[plan->scalar].role == ACLSTUB_INPUT &&
        !(row->flags & ACLSTUB_FE_NO_SCALAR_SHAPE)) {
        const aclStubTensorDesc *s = call->v[plan->scalar].tensor;
        int64_t want = (row->flags & ACLSTUB_FE_PER_ENTRY) ? (int64_t)x->size : 1;
        if (aclStubNumel(s) != want || s->ndim > MAX_DIM) {
            snprintf(msg, sizeof msg, "'%s' must hold %lld value(s) in at most %d dimensions, got shape %s",
                     aclStubOpName(call, plan->scalar), (long long)want, MAX_DIM,
                     aclStubShapeText(s->dims, s->ndim, buf, sizeof buf));
            return fail(call, generated, msg);
        }
    }
    if (plan->scalar >= 0 && call->op->params[plan->scalar].role == ACLSTUB_SCALAR_LIST &&
        call->v[plan->scalar].size != x->size) {
        snprintf(msg, sizeof msg, "'%s' holds %llu scalars for %llu tensors", aclStubOpName(call, plan->scalar),
                 (unsigned long long)call->v[plan->scalar].size, (unsigned long long)x->size);
        return fail(call, generated, msg);
    }

    /* 4. formats */
    if (!generated)
        for (int k = 0; k < nl; k++)
            for (uint64_t i = 0; i < call->v[lists[k]].size; i++)
                if (private_format(entry(call, lists[k], i)->format))
                    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Format only support ND, NCHW, NHWC, HWCN, "
                                         "NDHWC, NCDHW (entry %llu of '%s' has format %d).", (unsigned long long)i,
                                         aclStubOpName(call, lists[k]), (int)entry(call, lists[k], i)->format);

    plan->size = x->size;
    plan->compute = dt;
    /* attributes other than the scalar: the row's numbers (an aclScalar attribute is read per entry below) */
    if (row->check) ACLSTUB_TRY(row->check(call));
    if (x->size == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* The loop table's index for a list dtype, and the dtype the loop reads and writes. */
static int compute_index(aclDataType t, aclDataType *loop) {
    *loop = t;
    switch (t) {
    case ACL_FLOAT16:
    case ACL_BF16:
        *loop = ACL_FLOAT;
        return ACLSTUB_CT_F32;
    case ACL_FLOAT: return ACLSTUB_CT_F32;
    case ACL_DOUBLE: return ACLSTUB_CT_F64;
    case ACL_INT8: return ACLSTUB_CT_I8;
    case ACL_INT16: return ACLSTUB_CT_I16;
    case ACL_INT32: return ACLSTUB_CT_I32;
    case ACL_INT64: return ACLSTUB_CT_I64;
    case ACL_UINT8: return ACLSTUB_CT_U8;
    case ACL_BOOL: return ACLSTUB_CT_BOOL;
    case ACL_UINT16: return ACLSTUB_CT_U16;
    case ACL_UINT32: return ACLSTUB_CT_U32;
    case ACL_UINT64: return ACLSTUB_CT_U64;
    default: return -1;
    }
}

/* The scalar of entry i as the op_api converts it for lists of dtype t. */
static void scalar_value(const aclStubOpCall *call, const aclStubForeachPlan *plan, unsigned flags, uint64_t i,
                         aclDataType t, aclStubEwCtx *ctx) {
    if (plan->scalar < 0) return;
    const aclStubValue *v = &call->v[plan->scalar];
    aclStubRole role = call->op->params[plan->scalar].role;
    aclDataType sdt;
    const void *p;
    if (role == ACLSTUB_SCALAR) {
        sdt = v->dtype;
        p = v->scalar;
    } else if (role == ACLSTUB_SCALAR_LIST) {
        sdt = v->scalars[i].dtype;
        p = v->scalars[i].value;
    } else {
        sdt = v->tensor->dtype;
        p = aclStubElemAt(v->tensor, (flags & ACLSTUB_FE_PER_ENTRY) ? (int64_t)i : 0);
    }
    double d = aclStubScalarToDouble(sdt, p);
    ctx->f[0] = t == ACL_FLOAT16 ? (double)aclStubF16ToF32(aclStubF32ToF16((float)d)) : (double)(float)d;
    if (t == ACL_DOUBLE) ctx->f[0] = d;
    ctx->fi[0] = 0;
    ctx->i[0] = aclStubScalarToInt64(sdt, p);
    if (aclStubIsFloating(sdt) && is_integral_list(t)) ctx->i[0] = (int64_t)d;
}

aclnnStatus aclStubForeachKernel(const aclStubOpCall *call) {
    const aclStubForeach *row = aclStubFamilyRow(call);
    const aclStubForeachPlan *plan = call->plan;
    for (uint64_t i = 0; i < plan->size; i++) {
        const aclStubTensorDesc *y = entry(call, plan->out, i);
        if (aclStubNumel(y) == 0) continue;
        aclDataType compute = (row->flags & ACLSTUB_FE_OUT_DTYPE) ? y->dtype : plan->compute, loop;
        int ct = compute_index(compute, &loop);
        aclStubLoopFn fn = ct >= 0 ? row->loops->fn[ct] : NULL;
        if (fn == NULL)
            return aclStubKernelFail(call, ACLNN_ERR_INNER, "no kernel for data type %s", aclStubDtypeName(compute));
        aclStubEwCtx ctx = plan->ctx;
        scalar_value(call, plan, row->flags, i, compute, &ctx);
        bool via = loop != compute;
        aclStubIter it;
        memset(&it, 0, sizeof it);
        it.num_outputs = 1;
        it.num_inputs = row->num_lists;
        it.tensor[0] = y;
        it.loop_dtype[0] = loop;
        it.has_via[0] = via;
        it.via[0] = compute;
        for (int k = 0; k < row->num_lists; k++) {
            it.tensor[k + 1] = entry(call, plan->lists[k], i);
            it.loop_dtype[k + 1] = loop;
            it.has_via[k + 1] = via && !(row->flags & ACLSTUB_FE_OUT_DTYPE);
            it.via[k + 1] = compute;
        }
        ACLSTUB_TRY(aclStubIterRun(call, &it, fn, &ctx));
    }
    return OK;
}
