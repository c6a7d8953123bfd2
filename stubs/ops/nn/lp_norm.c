/*
 * Vector p-norms of ops-nn norm/lp_norm_v2 on the reduction engine (aclstub/op_reduce.h): aclnnNorm,
 * aclnnLinalgVectorNorm. Computed in float32 (the Atlas A2/A3 kernel's type; other dtypes are cast to FLOAT
 * first): p = inf max|x|, -inf min|x|, 0 the count of non-zeros, 1 sum|x|, 2 sqrt(sum x^2), else
 * (sum |x|^p)^(1/p) with the powers in float64 rounded once. Empty dims reduce every dimension. A complex self is
 * cast to FLOAT as the op_api does: its real parts are normed.
 */
#include <math.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_linalg_vector_norm.h"
#include "aclnnop/aclnn_norm.h"

#define MAX_DIMS 8

typedef struct {
    aclStubReduce r;
    int self, out;
    bool fill;
} Plan;

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    if (p->fill) return aclStubFill(call, call->v[p->out].tensor, 0.0);
    aclStubReduce r = p->r;
    const aclStubTensorDesc *self = call->v[p->self].tensor;
    aclStubTensorDesc real = *self;
    if (aclStubIsComplex(self->dtype)) { /* the real parts: the Cast to FLOAT keeps them */
        real.dtype = self->dtype == ACL_COMPLEX128 ? ACL_DOUBLE : ACL_FLOAT;
        real.offset = self->offset * 2;
        for (uint32_t d = 0; d < self->ndim; d++) real.strides[d] = self->strides[d] * 2;
        self = &real;
    }
    r.self = self;
    r.out = call->v[p->out].tensor;
    return aclStubReduceRun(call, &r);
}

/* the shared rules: promotable dtypes, dims, the output's shape; p from the scalar */
static aclnnStatus norm_common(aclStubOpCall *call, int self_i, int p_i, int dims_i, bool keep, int out_i) {
    const aclStubTensorDesc *self = call->v[self_i].tensor, *out = call->v[out_i].tensor;
    ACLSTUB_RETURN_ERROR_IF((int)aclStubPromoteType(self->dtype, out->dtype) < 0, call, ACLNN_ERR_PARAM_INVALID,
                            "self dtype %s and out dtype %s cannot promote", aclStubDtypeName(self->dtype),
                            aclStubDtypeName(out->dtype));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, dims_i, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, self_i, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, out_i, MAX_DIMS));
    if (mask == 0) mask = aclStubAllDims(self->ndim);
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    aclStubReduceShape(self, mask, keep, shape, &nd);
    ACLSTUB_TRY(aclStubCheckShape(call, out_i, shape, nd));
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanConvert(self->dtype) || self->dtype == ACL_COMPLEX32, call,
                            ACLNN_ERR_PARAM_INVALID, "self has data type %s", aclStubDtypeName(self->dtype));
    Plan *p = call->plan;
    p->self = self_i;
    p->out = out_i;
    p->r.op = ACLSTUB_RED_NORM;
    p->r.dims = mask;
    p->r.compute = ACL_FLOAT;
    p->r.p = aclStubOpScalarF64(call, p_i);
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    if (aclStubNumel(self) == 0) p->fill = true;
    return OK;
}

enum { NO_SELF, NO_P, NO_DIM, NO_KEEP, NO_OUT };
static aclnnStatus norm_check(aclStubOpCall *call) {
    return norm_common(call, NO_SELF, NO_P, NO_DIM, call->v[NO_KEEP].b, NO_OUT);
}
ACLSTUB_OP_FROM_PROTO(aclnnNorm, norm_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclScalar *, pScalar), (const aclIntArray *, dim), (bool, keepdim), (aclTensor *, out))

/* aclnn_linalg_vector_norm.cpp: out's dtype is the dtype argument; complex dtypes are refused */
enum { LV_SELF, LV_ORD, LV_DIMS, LV_KEEP, LV_DTYPE, LV_OUT };
static aclnnStatus linalg_vector_norm_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[LV_SELF].tensor, *out = call->v[LV_OUT].tensor;
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, LV_OUT, (aclDataType)call->v[LV_DTYPE].i));
    ACLSTUB_RETURN_ERROR_IF(aclStubIsComplex(self->dtype) || aclStubIsComplex(out->dtype), call,
                            ACLNN_ERR_PARAM_INVALID, "complex self or out is not supported");
    return norm_common(call, LV_SELF, LV_ORD, LV_DIMS, call->v[LV_KEEP].b, LV_OUT);
}
ACLSTUB_OP_FROM_PROTO(aclnnLinalgVectorNorm, linalg_vector_norm_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclScalar *, ord), (const aclIntArray *, dims), (bool, keepDims),
                      (const aclDataType, dtype), (aclTensor *, out))
