/*
 * The elementwise engine (aclstub/op_elementwise.h): the op_api's rules for elementwise operators in their
 * order, and the kernel that runs an operator's loops over the element iterator.
 */
#include <stdio.h>
#include <string.h>

#include "aclstub/op_elementwise.h"
#include "sdk_internal.h"

#define MAX_DIM 8 /* the op_api's limit for elementwise operands */

static bool is_tensor_role(aclStubRole r) {
    return r == ACLSTUB_INPUT || r == ACLSTUB_OPTIONAL_INPUT || r == ACLSTUB_OUTPUT || r == ACLSTUB_OPTIONAL_OUTPUT ||
           r == ACLSTUB_INPLACE;
}

/* The parameter written: the in-place variant's operand (the first ACLSTUB_INPLACE one), else the first output
 * (else the last optional output). */
static int output_index(const aclStubOpDef *op) {
    for (size_t i = 0; i < op->num_params; i++)
        if (op->params[i].role == ACLSTUB_INPLACE) return (int)i;
    for (size_t i = 0; i < op->num_params; i++)
        if (op->params[i].role == ACLSTUB_OUTPUT) return (int)i;
    for (size_t i = op->num_params; i-- > 0;)
        if (op->params[i].role == ACLSTUB_OPTIONAL_OUTPUT) return (int)i;
    return -1;
}

/* The parameter of operand k: k itself, or with ACLSTUB_EW_TENSOR_OPERANDS the k-th tensor parameter (-1 when the
 * table has too few tensors). */
static int operand_param_(const aclStubOpDef *op, const aclStubElementwise *fam, int k) {
    if (!(fam->flags & ACLSTUB_EW_TENSOR_OPERANDS)) return k;
    for (size_t i = 0; i < op->num_params; i++)
        if (is_tensor_role(op->params[i].role) && k-- == 0) return (int)i;
    return -1;
}
#define operand_param(fam, k) operand_param_(op, (fam), (k))

static bool is_operand_(const aclStubOpDef *op, const aclStubElementwise *fam, int i) {
    for (int k = 0; k < fam->num_operands; k++)
        if (operand_param(fam, k) == i) return true;
    return false;
}
#define is_operand(fam, i) is_operand_(op, (fam), (i))

/* bool 0, integer 1, floating 2, complex 3: the categories scalars promote by. */
static int category(aclDataType t) {
    return aclStubIsComplex(t) ? 3 : aclStubIsFloating(t) ? 2 : t == ACL_BOOL ? 0 : 1;
}

/* A scalar operand joins the tensors' dtype only when its category is higher (torch's wrapped-number rule,
 * which the op_api's scalar variants follow): then the default dtype of its category. */
static aclDataType with_scalar(aclDataType tensors, aclDataType scalar) {
    if ((int)tensors < 0) return scalar == ACL_DOUBLE ? ACL_FLOAT : scalar;
    if (category(scalar) <= category(tensors)) return tensors;
    switch (category(scalar)) {
    case 3: return tensors == ACL_DOUBLE ? ACL_COMPLEX128 : ACL_COMPLEX64;
    case 2: return ACL_FLOAT;
    default: return ACL_INT64;
    }
}

static void attribute(aclStubEwCtx *ctx, int k, const aclStubParam *p, const aclStubValue *v) {
    if (k >= ACLSTUB_EW_MAX_ATTRS) return;
    switch (p->role) {
    case ACLSTUB_SCALAR:
        if (!v->present) return;
        ctx->f[k] = aclStubScalarToDouble(v->dtype, v->scalar);
        ctx->fi[k] = aclStubScalarImag(v->dtype, v->scalar);
        ctx->i[k] = aclStubScalarToInt64(v->dtype, v->scalar);
        break;
    case ACLSTUB_FLOAT:
        ctx->f[k] = v->f;
        ctx->i[k] = (int64_t)v->f;
        break;
    case ACLSTUB_INT:
    case ACLSTUB_DTYPE:
        ctx->i[k] = v->i;
        ctx->f[k] = (double)v->i;
        break;
    case ACLSTUB_BOOL:
        ctx->i[k] = v->b;
        ctx->f[k] = v->b;
        break;
    default:
        break;
    }
}

/* Row-major contiguous (dimensions of size 1 have any stride). */
static bool contiguous(const aclStubTensorDesc *t) {
    int64_t step = 1;
    for (uint32_t d = t->ndim; d-- > 0;) {
        if (t->dims[d] != 1 && t->strides[d] != step) return false;
        step *= t->dims[d];
    }
    return true;
}

/* op::IsPrivateFormat: the device's internal layouts, which elementwise kernels do not take. */
static bool private_format(aclFormat f) {
    switch ((int)f) {
    case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04: case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0: case ACL_FRACTAL_Z_3D: case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32: case ACL_FORMAT_FRACTAL_NZ_C0_2: case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
        return true;
    default:
        return false;
    }
}

aclnnStatus aclStubEwCheck(aclStubOpCall *call) {
    const aclStubOpDef *op = call->op;
    const aclStubElementwise *fam = aclStubFamilyRow(call);
    const aclStubParam *params = op->params;
    char buf[256], buf2[256];
    int out = output_index(op);
    bool valid = fam != NULL && fam->loops != NULL && out >= 0 && fam->num_operands >= 1 &&
                 (size_t)fam->num_operands <= op->num_params && fam->num_operands <= ACLSTUB_ITER_MAX_OPERANDS - 1;
    for (int k = 0; valid && k < fam->num_operands; k++)
        valid = operand_param(fam, k) >= 0 && (size_t)operand_param(fam, k) < op->num_params;
    if (!valid)
        return aclStubOpFail(call, ACLNN_ERR_INNER, "the elementwise row is incomplete (operands, loops, output)");
    const aclStubTensorDesc *y = call->v[out].tensor;
    if (fam->flags & ACLSTUB_EW_EMPTY_FIRST)
        for (int k = 0; k < fam->num_operands; k++) {
            int p = operand_param(fam, k);
            if (is_tensor_role(params[p].role) && call->v[p].tensor != NULL && aclStubNumel(call->v[p].tensor) == 0)
                return aclStubOpNothingToDo(call);
        }
    if (fam->flags & ACLSTUB_EW_NO_PRIVATE_FORMAT)
        for (size_t k = 0; k < op->num_params; k++)
            if (is_tensor_role(params[k].role) && call->v[k].tensor != NULL && private_format(call->v[k].tensor->format))
                return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has the private format %d; only ND, "
                                     "NCHW, NHWC, HWCN, NDHWC, NCDHW are supported", params[k].name,
                                     (int)call->v[k].tensor->format);

    /* 1. every tensor operand's dtype in the support list, in parameter order (scalars too when they count as
     * tensors) */
    bool scalar_tensors = (fam->flags & ACLSTUB_EW_SCALAR_AS_TENSOR) != 0;
    bool scalar_listed = (fam->flags & (ACLSTUB_EW_SCALAR_AS_TENSOR | ACLSTUB_EW_SCALAR_IN_LIST)) != 0;
    for (int k = 0; k < fam->num_operands; k++) {
        int p = operand_param(fam, k);
        aclDataType dt;
        if (is_tensor_role(params[p].role) && call->v[p].tensor != NULL)
            dt = call->v[p].tensor->dtype;
        else if (scalar_listed && params[p].role == ACLSTUB_SCALAR && call->v[p].present)
            dt = call->v[p].dtype;
        else
            continue;
        if ((unsigned)dt >= 64 || !(fam->dtypes & ACLSTUB_DT(dt)))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                                 params[p].name, aclStubDtypeName(dt),
                                 aclStubDtypeSetName(fam->dtypes, buf, sizeof buf));
    }
    if ((fam->flags & ACLSTUB_EW_OUT_IN_LIST) && ((unsigned)y->dtype >= 64 || !(fam->dtypes & ACLSTUB_DT(y->dtype))))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                             params[out].name, aclStubDtypeName(y->dtype),
                             aclStubDtypeSetName(fam->dtypes, buf, sizeof buf));

    /* 2. the result dtype: tensors promoted together, then scalar operands by category */
    aclDataType result = ACL_DT_UNDEFINED;
    int first = -1;
    for (int k = 0; k < fam->num_operands; k++) {
        int p = operand_param(fam, k);
        aclDataType dt;
        if (is_tensor_role(params[p].role) && call->v[p].tensor != NULL)
            dt = call->v[p].tensor->dtype;
        else if (scalar_tensors && params[p].role == ACLSTUB_SCALAR && call->v[p].present)
            dt = call->v[p].dtype;
        else
            continue;
        if (k == 0 && (fam->flags & ACLSTUB_EW_FIRST_APART)) continue;
        if (first < 0) {
            first = p;
            result = dt;
            continue;
        }
        aclDataType next = (fam->flags & ACLSTUB_EW_NO_PROMOTE) ? (dt == result ? result : ACL_DT_UNDEFINED)
                                                                : aclStubPromoteType(result, dt);
        if ((int)next < 0)
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s dtype %s and %s dtype %s can not promote dtype",
                                 params[first].name, aclStubDtypeName(result), params[p].name, aclStubDtypeName(dt));
        result = next;
    }
    if (!scalar_tensors)
        for (int k = 0; k < fam->num_operands; k++) {
            int p = operand_param(fam, k);
            if (params[p].role == ACLSTUB_SCALAR && call->v[p].present) result = with_scalar(result, call->v[p].dtype);
        }
    aclDataType promoted = result;
    if ((fam->flags & ACLSTUB_EW_INT_TO_FLOAT) && aclStubIsIntegral(result, true)) result = ACL_FLOAT;
    if (fam->result_dtype) result = fam->result_dtype(call, result);
    if ((int)result < 0)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "the operands' dtypes can not promote dtype");
    /* the dtype the alpha, support-list and out rules read */
    aclDataType checked = (fam->flags & ACLSTUB_EW_CHECK_PROMOTED) ? promoted : result;
    if ((fam->flags & ACLSTUB_EW_RESULT_IN_LIST) && ((unsigned)checked >= 64 || !(fam->dtypes & ACLSTUB_DT(checked))))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "promoted dtype %s is not supported; supported: %s",
                             aclStubDtypeName(checked), aclStubDtypeSetName(fam->dtypes, buf, sizeof buf));

    /* 3. attributes: alpha must cast to the result dtype; every scalar attribute to FLOAT where the op_api says */
    for (int i = 0; (fam->flags & ACLSTUB_EW_ATTRS_TO_FLOAT) && i < (int)op->num_params; i++)
        if (params[i].role == ACLSTUB_SCALAR && !is_operand(fam, i) && call->v[i].present &&
            !aclStubCanCast(call->v[i].dtype, ACL_FLOAT))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s dtype %s can not cast to float32.",
                                 params[i].name, aclStubDtypeName(call->v[i].dtype));
    int attr0 = fam->num_operands;
    if ((fam->flags & ACLSTUB_EW_ATTR0_CASTS) && attr0 < (int)op->num_params && params[attr0].role == ACLSTUB_SCALAR &&
        call->v[attr0].present) {
        aclDataType a = call->v[attr0].dtype;
        bool ok = checked == ACL_BOOL ? aclStubIsIntegral(a, true) : aclStubCanCast(a, checked);
        if (!ok)
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s dtype %s can't be cast to the promote dtype %s",
                                 params[attr0].name, aclStubDtypeName(a), aclStubDtypeName(checked));
    }

    /* 4. the output's dtype */
    aclDataType produced = (fam->flags & ACLSTUB_EW_PREDICATE) ? ACL_BOOL : checked;
    if (!(fam->flags & ACLSTUB_EW_OUT_ANY) &&
        ((fam->flags & ACLSTUB_EW_OUT_SAME) ? y->dtype != produced : !aclStubCanCast(produced, y->dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s dtype %s can't be cast to the desired output type %s",
                             (fam->flags & ACLSTUB_EW_PREDICATE) ? "result" : "promote", aclStubDtypeName(produced),
                             aclStubDtypeName(y->dtype));

    /* 5. formats (private ones are refused before the dtype rules) */
    const aclStubTensorDesc *x0 = call->v[0].tensor;
    bool same_format = x0 == NULL || !is_tensor_role(params[0].role) || x0->format == y->format;
    if ((fam->flags & ACLSTUB_EW_SAME_FORMAT) && !same_format)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "format of '%s' (%d) and '%s' (%d) should be equal",
                             params[0].name, (int)x0->format, params[out].name, (int)y->format);

    /* 6. shapes: ranks, broadcasting (or one shape), the output's shape */
    if (fam->flags & ACLSTUB_EW_EMPTY_BEFORE_SHAPES)
        for (int k = 0; k < fam->num_operands; k++) {
            const aclStubTensorDesc *t = call->v[operand_param(fam, k)].tensor;
            if (t != NULL && aclStubNumel(t) == 0) return aclStubOpNothingToDo(call);
        }
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd = 0;
    int shape_of = -1;
    uint32_t max_dim = (fam->flags & ACLSTUB_EW_ANY_RANK) ? ACLSTUB_MAX_DIMS : MAX_DIM;
    if (fam->flags & ACLSTUB_EW_RANK_ANY_CONTIGUOUS) {
        bool all = true;
        for (size_t k = 0; k < op->num_params && all; k++)
            if (is_tensor_role(params[k].role) && call->v[k].tensor != NULL) all = contiguous(call->v[k].tensor);
        if (all) max_dim = ACLSTUB_MAX_DIMS;
    }
    for (int k = 0; k < fam->num_operands; k++) {
        int p = operand_param(fam, k);
        const aclStubTensorDesc *t = call->v[p].tensor;
        if (!is_tensor_role(params[p].role) || t == NULL) continue;
        ACLSTUB_RETURN_ERROR_IF(t->ndim > max_dim, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has %u dimensions; "
                                "at most %u are supported", params[p].name, t->ndim, max_dim);
        if ((fam->flags & ACLSTUB_EW_SAME_SHAPE) && shape_of >= 0) {
            if (!aclStubShapeEqual(shape, nd, t->dims, t->ndim))
                return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "shape of %s should be %s (the shape of %s), but "
                                     "current is %s", params[p].name, aclStubShapeText(shape, nd, buf, sizeof buf),
                                     params[shape_of].name, aclStubShapeText(t->dims, t->ndim, buf2, sizeof buf2));
            continue;
        }
        int64_t next[ACLSTUB_MAX_DIMS];
        uint32_t nn;
        if (!aclStubBroadcastShape(shape, nd, t->dims, t->ndim, next, &nn))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "the shape of '%s' %s can not broadcast to %s",
                                 params[p].name, aclStubShapeText(t->dims, t->ndim, buf, sizeof buf),
                                 aclStubShapeText(shape, nd, buf2, sizeof buf2));
        memcpy(shape, next, nn * sizeof shape[0]);
        nd = nn;
        shape_of = p;
    }
    ACLSTUB_RETURN_ERROR_IF(y->ndim > max_dim, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has %u dimensions; at "
                            "most %u are supported", params[out].name, y->ndim, max_dim);
    if (!aclStubShapeEqual(shape, nd, y->dims, y->ndim))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "shape of %s should be %s, but current is %s",
                             params[out].name, aclStubShapeText(shape, nd, buf, sizeof buf),
                             aclStubShapeText(y->dims, y->ndim, buf2, sizeof buf2));

    aclStubEwPlan *plan = call->plan;
    plan->compute = result;
    plan->out_via = result;
    plan->ctx.compute = result;
    plan->out = out;
    int attrs = 0;
    for (int k = (fam->flags & ACLSTUB_EW_TENSOR_OPERANDS) ? 0 : fam->num_operands; k < (int)op->num_params; k++)
        if (k != out && !is_tensor_role(params[k].role) && !is_operand(fam, k))
            attribute(&plan->ctx, attrs++, &params[k], &call->v[k]);

    if (fam->check) ACLSTUB_TRY(fam->check(call));
    if (aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

int aclStubEwComputeIndex(aclDataType t, aclDataType *loop) {
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
    case ACL_COMPLEX32:
        *loop = ACL_COMPLEX64;
        return ACLSTUB_CT_C64;
    case ACL_COMPLEX64: return ACLSTUB_CT_C64;
    case ACL_COMPLEX128: return ACLSTUB_CT_C128;
    default: return -1;
    }
}

aclnnStatus aclStubEwKernel(const aclStubOpCall *call) {
    const aclStubOpDef *op = call->op;
    const aclStubElementwise *fam = aclStubFamilyRow(call);
    const aclStubEwPlan *plan = call->plan;
    aclDataType loop;
    int ct = aclStubEwComputeIndex(plan->compute, &loop);
    if ((fam->flags & ACLSTUB_EW_INTS_VIA_FLOAT) && aclStubIsIntegral(plan->compute, true)) {
        ct = ACLSTUB_CT_F32; /* integral and BOOL results: the float32 loop, truncated to their dtype */
        loop = ACL_FLOAT;
    }
    /* a FLOAT16/BF16 computation whose result is rounded to its own dtype runs the table's 16-bit loop when it has
     * one (the same results, without the conversions to and from FLOAT) */
    int half = plan->compute == ACL_FLOAT16 ? ACLSTUB_CT_F16 : plan->compute == ACL_BF16 ? ACLSTUB_CT_BF16 : -1;
    if (half >= 0 && fam->loops->fn[half] != NULL && plan->out_via == plan->compute &&
        !(fam->flags & ACLSTUB_EW_PREDICATE)) {
        ct = half;
        loop = plan->compute;
    }
    aclStubLoopFn fn = ct >= 0 ? fam->loops->fn[ct] : NULL;
    if (fn == NULL)
        return aclStubKernelFail(call, ACLNN_ERR_INNER, "no kernel for data type %s", aclStubDtypeName(plan->compute));
    bool via = loop != plan->compute;
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = fam->num_operands;
    it.tensor[0] = call->v[plan->out].tensor;
    if (fam->flags & ACLSTUB_EW_PREDICATE) {
        it.loop_dtype[0] = ACL_BOOL;
    } else {
        aclDataType out_via = (int)plan->out_via < 0 ? plan->compute : plan->out_via;
        it.loop_dtype[0] = loop;
        it.has_via[0] = out_via != loop;
        it.via[0] = out_via;
    }
    for (int k = 0; k < fam->num_operands; k++) {
        const aclStubValue *v = &call->v[operand_param(fam, k)];
        it.tensor[k + 1] = v->tensor;
        if (v->tensor == NULL) {
            it.scalar[k + 1].dtype = v->dtype;
            memcpy(it.scalar[k + 1].value, v->scalar, sizeof v->scalar);
        }
        it.loop_dtype[k + 1] = loop;
        it.has_via[k + 1] = via;
        it.via[k + 1] = plan->compute;
    }
    return aclStubIterRun(call, &it, fn, &plan->ctx);
}
