/*
 * Reductions of ops-math math/ on the reduction engine (aclstub/op_reduce.h): aclnnReduceSum, aclnnMean(V2),
 * aclnnAmax/Amin, aclnnMax/Min (whole tensor), aclnnMaxV2, aclnnAll/Any, aclnnProd(Dim), aclnnReduceNansum,
 * aclnnReduceLogSum, aclnnLogSumExp, aclnnVar(Correction), aclnnVarMean, aclnnStd, aclnnStdMeanCorrection,
 * aclnnArgMax/ArgMin, aclnnMaxDim/MinDim, aclnnAminmax(All, Dim), aclnnGlobalMaxPool, aclnnGlobalAveragePool,
 * aclnnBatchNormStats. Each check follows its op_api's order; the kernel is shared.
 */
#include <math.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_all.h"
#include "aclnnop/aclnn_amax.h"
#include "aclnnop/aclnn_amin.h"
#include "aclnnop/aclnn_any.h"
#include "aclnnop/aclnn_max.h"
#include "aclnnop/aclnn_max_v2.h"
#include "aclnnop/aclnn_mean.h"
#include "aclnnop/aclnn_min.h"
#include "aclnnop/aclnn_prod.h"
#include "aclnnop/aclnn_reduce_sum.h"
#include "aclnnop/aclnn_aminmax.h"
#include "aclnnop/aclnn_aminmax_all.h"
#include "aclnnop/aclnn_aminmax_dim.h"
#include "aclnnop/aclnn_batch_norm_stats.h"
#include "aclnnop/aclnn_global_average_pool.h"
#include "aclnnop/aclnn_global_max_pool.h"
#include "aclnnop/aclnn_argmax.h"
#include "aclnnop/aclnn_argmin.h"
#include "aclnnop/aclnn_logsumexp.h"
#include "aclnnop/aclnn_max_dim.h"
#include "aclnnop/aclnn_min_dim.h"
#include "aclnnop/aclnn_reduce_log_sum.h"
#include "aclnnop/aclnn_reduce_nansum.h"
#include "aclnnop/aclnn_std.h"
#include "aclnnop/aclnn_std_mean_correction.h"
#include "aclnnop/aclnn_var.h"
#include "aclnnop/aclnn_var_mean.h"
#include "aclnnop/aclnn_trace.h"

#define DT ACLSTUB_DT
#define MAX_DIMS 8
/* ASCEND910B_DTYPE_SUPPORT_LIST of aclnn_reduce_sum.cpp (and aclnn_prod.cpp) */
#define SUM_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
/* EMPTY_INPUT_DTYPE_SUPPORT_LIST: the dtypes Fill writes when the input is empty */
#define EMPTY_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
/* aclnn_mean.cpp: no BOOL */
#define MEAN_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT_COMPLEX)
/* aclnn_amax.cpp, aclnn_max.cpp, aclnn_max_v2.cpp and their min twins */
#define MAX_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
/* aclnn_all.cpp / aclnn_any.cpp */
#define ALL_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
#define ALL_OUT_DT (DT(ACL_UINT8) | DT(ACL_BOOL))

typedef struct {
    aclStubReduce r; /* tensors filled in by the kernel */
    int self, out, out2;
    bool fill;       /* an empty input: out (and out2 when fill2) filled with fill_value */
    bool fill2;
    double fill_value, fill_value2;
    bool second;     /* aclnnAminmax*: a second reduction (op2) into out2 */
    aclStubReduceOp op2;
} Plan;

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    if (p->fill) {
        ACLSTUB_TRY(aclStubFill(call, call->v[p->out].tensor, p->fill_value));
        return p->fill2 ? aclStubFill(call, call->v[p->out2].tensor, p->fill_value2) : OK;
    }
    aclStubReduce r = p->r;
    r.self = call->v[p->self].tensor;
    r.out = p->out >= 0 ? call->v[p->out].tensor : NULL;
    r.out2 = p->out2 >= 0 && !p->second ? call->v[p->out2].tensor : NULL;
    ACLSTUB_TRY(aclStubReduceRun(call, &r));
    if (!p->second) return OK;
    r.op = p->op2;
    r.out = call->v[p->out2].tensor;
    return aclStubReduceRun(call, &r);
}

static Plan *plan_of(aclStubOpCall *call, aclStubReduceOp op, int self, int out) {
    Plan *p = call->plan;
    p->r.op = op;
    p->self = self;
    p->out = out;
    p->out2 = -1;
    p->r.compute = call->v[self].tensor->dtype;
    return p;
}

static aclnnStatus fill(aclStubOpCall *call, Plan *p, int out, double value) {
    p->fill = true;
    p->out = out;
    p->fill_value = value;
    return aclStubNumel(call->v[out].tensor) == 0 ? aclStubOpNothingToDo(call) : OK;
}

/* CheckShapeAndScalarSame: out has the inferred shape, or both hold one element. */
static aclnnStatus shape_or_scalar(aclStubOpCall *call, int out, const int64_t *dims, uint32_t n) {
    const aclStubTensorDesc *t = call->v[out].tensor;
    int64_t size = 1;
    for (uint32_t d = 0; d < n; d++) size *= dims[d];
    if (size == 1 && aclStubNumel(t) == 1) return OK;
    return aclStubCheckShape(call, out, dims, n);
}

/* The reduced dimensions of dims (empty: every dimension) and the inferred output shape. */
static void reduced(const aclStubTensorDesc *self, uint64_t mask, bool keep, int64_t *shape, uint32_t *nd,
                    uint64_t *all) {
    *all = mask ? mask : aclStubAllDims(self->ndim);
    aclStubReduceShape(self, *all, keep, shape, nd);
}

static bool any_reduced_dim_empty(const aclStubTensorDesc *self, uint64_t mask) {
    for (uint32_t d = 0; d < self->ndim; d++)
        if (((mask >> d) & 1u) && self->dims[d] == 0) return true;
    return false;
}

/* ---- aclnnReduceSum ------------------------------------------------------------------------------------ */

enum { RS_SELF, RS_DIMS, RS_KEEP, RS_DTYPE, RS_OUT };
static aclnnStatus reduce_sum_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[RS_SELF].tensor;
    aclDataType dtype = (aclDataType)call->v[RS_DTYPE].i;
    char buf[256];
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, RS_SELF, SUM_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, RS_OUT, SUM_DT));
    if ((unsigned)dtype >= 64 || !(SUM_DT & DT(dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "type %s should be in dtype support list [%s]",
                             aclStubDtypeName(dtype), aclStubDtypeSetName(SUM_DT, buf, sizeof buf));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, RS_OUT, dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, RS_SELF, MAX_DIMS));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, RS_DIMS, self->ndim, true, &mask));
    Plan *p = plan_of(call, dtype == ACL_BOOL ? ACLSTUB_RED_ANY : ACLSTUB_RED_SUM, RS_SELF, RS_OUT);
    if (aclStubNumel(self) == 0) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, RS_OUT, EMPTY_DT));
        return fill(call, p, RS_OUT, 0.0);
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    reduced(self, mask, call->v[RS_KEEP].b, shape, &nd, &p->r.dims);
    if (self->ndim == 0) nd = 0;
    ACLSTUB_TRY(shape_or_scalar(call, RS_OUT, shape, nd));
    p->r.compute = dtype;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnReduceSum, reduce_sum_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dims), (bool, keepDims), (aclDataType, dtype), (aclTensor *, out))

/* ---- aclnnMean, aclnnMeanV2 ----------------------------------------------------------------------------- */

enum { MN_SELF, MN_DIM, MN_KEEP, MN_DTYPE, MN_OUT };
static aclnnStatus mean_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[MN_SELF].tensor, *out = call->v[MN_OUT].tensor;
    aclDataType dtype = (aclDataType)call->v[MN_DTYPE].i;
    char buf[256];
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MN_SELF, MEAN_DT));
    if ((unsigned)dtype >= 64 || !(MEAN_DT & DT(dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "type %s should be in dtype support list [%s]",
                             aclStubDtypeName(dtype), aclStubDtypeSetName(MEAN_DT, buf, sizeof buf));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MN_OUT, MEAN_DT));
    if (!aclStubCanCast(self->dtype, dtype) || !aclStubCanCast(dtype, out->dtype))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID,
                             "Result type %s can't be cast to the desired output type %s",
                             aclStubDtypeName(aclStubCanCast(self->dtype, dtype) ? dtype : self->dtype),
                             aclStubDtypeName(aclStubCanCast(self->dtype, dtype) ? out->dtype : dtype));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, MN_DIM, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MN_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MN_OUT, MAX_DIMS));
    Plan *p = plan_of(call, ACLSTUB_RED_MEAN, MN_SELF, MN_OUT);
    if (aclStubNumel(self) == 0) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MN_OUT, EMPTY_DT));
        return fill(call, p, MN_OUT, NAN);
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    reduced(self, mask, call->v[MN_KEEP].b, shape, &nd, &p->r.dims);
    ACLSTUB_TRY(shape_or_scalar(call, MN_OUT, shape, nd));
    p->r.compute = dtype;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnMean, mean_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepDim), (aclDataType, dtype), (aclTensor *, out))

enum { M2_SELF, M2_DIM, M2_KEEP, M2_NOOP, M2_OUT };
static aclnnStatus mean_v2_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[M2_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, M2_SELF, MEAN_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, M2_OUT, MEAN_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, M2_OUT, self->dtype));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, M2_DIM, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, M2_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, M2_OUT, MAX_DIMS));
    Plan *p = plan_of(call, ACLSTUB_RED_MEAN, M2_SELF, M2_OUT);
    if (aclStubNumel(self) == 0) {
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, M2_OUT, EMPTY_DT));
        return fill(call, p, M2_OUT, NAN);
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    if (call->v[M2_DIM].size == 0 && call->v[M2_NOOP].b) { /* the identity */
        p->r.dims = 0;
        aclStubReduceShape(self, 0, false, shape, &nd);
    } else {
        reduced(self, mask, call->v[M2_KEEP].b, shape, &nd, &p->r.dims);
    }
    return shape_or_scalar(call, M2_OUT, shape, nd);
}
ACLSTUB_OP_FROM_PROTO(aclnnMeanV2, mean_v2_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepDim), (bool, noopWithEmptyAxes), (aclTensor *, out))

/* ---- aclnnAmax, aclnnAmin, aclnnMaxV2 -------------------------------------------------------------------- */

enum { AM_SELF, AM_DIM, AM_KEEP, AM_OUT };
/* dims valid, none of them empty (the op_api's "Expected reduction dim to have non-zero size") */
static aclnnStatus extreme_dims(aclStubOpCall *call, int dims, uint64_t *mask) {
    const aclStubTensorDesc *self = call->v[0].tensor;
    ACLSTUB_TRY(aclStubReduceDims(call, dims, self->ndim, true, mask));
    if (self->ndim > 0 && any_reduced_dim_empty(self, *mask))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Expected reduction dim to have non-zero size");
    return OK;
}

static aclnnStatus extreme_finish(aclStubOpCall *call, Plan *p, uint64_t mask, bool keep, int out, bool noop) {
    const aclStubTensorDesc *self = call->v[0].tensor;
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    ACLSTUB_TRY(aclStubCheckMaxDim(call, 0, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, out, MAX_DIMS));
    if (noop) { /* MaxV2 with no dims and noopWithEmptyDims: the identity */
        p->r.dims = 0;
        aclStubReduceShape(self, 0, false, shape, &nd);
    } else {
        reduced(self, mask, keep, shape, &nd, &p->r.dims);
    }
    ACLSTUB_TRY(aclStubCheckShape(call, out, shape, nd));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    if (self->dtype == ACL_BOOL) p->r.compute = ACL_FLOAT;
    return OK;
}

static aclnnStatus amax_like_check(aclStubOpCall *call, aclStubReduceOp op) {
    const aclStubTensorDesc *self = call->v[AM_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, AM_OUT, self->dtype));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AM_SELF, MAX_DT));
    uint64_t mask;
    ACLSTUB_TRY(extreme_dims(call, AM_DIM, &mask));
    return extreme_finish(call, plan_of(call, op, AM_SELF, AM_OUT), mask, call->v[AM_KEEP].b, AM_OUT, false);
}
static aclnnStatus amax_check(aclStubOpCall *call) { return amax_like_check(call, ACLSTUB_RED_MAX); }
static aclnnStatus amin_check(aclStubOpCall *call) { return amax_like_check(call, ACLSTUB_RED_MIN); }
ACLSTUB_OP_FROM_PROTO(aclnnAmax, amax_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepDim), (aclTensor *, out))
ACLSTUB_OP_FROM_PROTO(aclnnAmin, amin_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepDim), (aclTensor *, out))

enum { MV_SELF, MV_DIMS, MV_KEEP, MV_NOOP, MV_OUT };
static aclnnStatus max_v2_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[MV_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, MV_OUT, self->dtype));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MV_SELF, MAX_DT));
    uint64_t mask;
    ACLSTUB_TRY(extreme_dims(call, MV_DIMS, &mask));
    bool noop = call->v[MV_DIMS].size == 0 && call->v[MV_NOOP].b;
    return extreme_finish(call, plan_of(call, ACLSTUB_RED_MAX, MV_SELF, MV_OUT), mask, call->v[MV_KEEP].b, MV_OUT,
                          noop);
}
ACLSTUB_OP_FROM_PROTO(aclnnMaxV2, max_v2_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dims), (bool, keepDims), (bool, noopWithEmptyDims), (aclTensor *, out))

/* ---- aclnnMax, aclnnMin: the whole tensor ----------------------------------------------------------------- */

enum { MX_SELF, MX_OUT };
static aclnnStatus max_like_check(aclStubOpCall *call, aclStubReduceOp op) {
    const aclStubTensorDesc *self = call->v[MX_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MX_SELF, MAX_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MX_OUT, MAX_DT));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MX_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MX_OUT, MAX_DIMS));
    if (aclStubNumel(self) == 0 || aclStubNumel(call->v[MX_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
    Plan *p = plan_of(call, op, MX_SELF, MX_OUT);
    p->r.dims = aclStubAllDims(self->ndim);
    if (self->dtype == ACL_BOOL) p->r.compute = ACL_FLOAT;
    return shape_or_scalar(call, MX_OUT, NULL, 0);
}
static aclnnStatus max_check(aclStubOpCall *call) { return max_like_check(call, ACLSTUB_RED_MAX); }
static aclnnStatus min_check(aclStubOpCall *call) { return max_like_check(call, ACLSTUB_RED_MIN); }
ACLSTUB_OP_FROM_PROTO(aclnnMax, max_check, kernel, sizeof(Plan), (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_OP_FROM_PROTO(aclnnMin, min_check, kernel, sizeof(Plan), (const aclTensor *, self), (aclTensor *, out))

/* ---- aclnnAll, aclnnAny ------------------------------------------------------------------------------------ */

enum { AA_SELF, AA_DIM, AA_KEEP, AA_OUT };
static aclnnStatus all_like_check(aclStubOpCall *call, aclStubReduceOp op) {
    const aclStubTensorDesc *self = call->v[AA_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AA_SELF, ALL_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AA_OUT, ALL_OUT_DT));
    ACLSTUB_TRY(aclStubCheckFormat(call, AA_SELF));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, AA_DIM, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, AA_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, AA_OUT, MAX_DIMS));
    Plan *p = plan_of(call, op, AA_SELF, AA_OUT);
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    reduced(self, mask, call->v[AA_KEEP].b, shape, &nd, &p->r.dims);
    ACLSTUB_TRY(aclStubCheckShape(call, AA_OUT, shape, nd));
    if (aclStubNumel(self) == 0) return fill(call, p, AA_OUT, op == ACLSTUB_RED_ALL ? 1.0 : 0.0);
    return OK;
}
static aclnnStatus all_check(aclStubOpCall *call) { return all_like_check(call, ACLSTUB_RED_ALL); }
/* aclnn_any.cpp: repeated dims pass, the shape is checked after the empty case and allows one-element shapes */
static aclnnStatus any_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[AA_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AA_SELF, ALL_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AA_OUT, ALL_OUT_DT));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, AA_DIM, self->ndim, false, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, AA_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, AA_OUT, MAX_DIMS));
    Plan *p = plan_of(call, ACLSTUB_RED_ANY, AA_SELF, AA_OUT);
    if (aclStubNumel(self) == 0) return fill(call, p, AA_OUT, 0.0);
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    reduced(self, mask, call->v[AA_KEEP].b, shape, &nd, &p->r.dims);
    return shape_or_scalar(call, AA_OUT, shape, nd);
}
ACLSTUB_OP_FROM_PROTO(aclnnAll, all_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepdim), (aclTensor *, out))
ACLSTUB_OP_FROM_PROTO(aclnnAny, any_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepdim), (aclTensor *, out))

/* ---- aclnnProd, aclnnProdDim ------------------------------------------------------------------------------- */

static aclnnStatus prod_common(aclStubOpCall *call, int out, aclDataType dtype, bool has_dim, int64_t dim,
                               bool keep) {
    const aclStubTensorDesc *self = call->v[0].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, 0, SUM_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, out, dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, 0, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, out, MAX_DIMS));
    uint64_t mask = 0;
    if (has_dim) ACLSTUB_TRY(aclStubReduceDim(call, "dim", dim, self->ndim, false, &mask));
    Plan *p = plan_of(call, ACLSTUB_RED_PROD, 0, out);
    if (aclStubNumel(self) == 0) {
        if ((unsigned)dtype >= 64 || !(EMPTY_DT & DT(dtype)))
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "when input is empty tensor, out cann not be %s",
                                 aclStubDtypeName(dtype));
        return fill(call, p, out, 1.0);
    }
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    reduced(self, has_dim ? mask : 0, has_dim && keep, shape, &nd, &p->r.dims);
    ACLSTUB_TRY(shape_or_scalar(call, out, shape, nd));
    /* the product runs in out's dtype; BOOL runs in FLOAT (non-zero products are true) */
    p->r.compute = dtype == ACL_BOOL ? ACL_FLOAT : dtype;
    return OK;
}

enum { PR_SELF, PR_DTYPE, PR_OUT };
static aclnnStatus prod_check(aclStubOpCall *call) {
    return prod_common(call, PR_OUT, (aclDataType)call->v[PR_DTYPE].i, false, 0, false);
}
ACLSTUB_OP_FROM_PROTO(aclnnProd, prod_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclDataType, dtype), (aclTensor *, out))

enum { PD_SELF, PD_DIM, PD_KEEP, PD_DTYPE, PD_OUT };
static aclnnStatus prod_dim_check(aclStubOpCall *call) {
    return prod_common(call, PD_OUT, (aclDataType)call->v[PD_DTYPE].i, true, call->v[PD_DIM].i, call->v[PD_KEEP].b);
}
ACLSTUB_OP_FROM_PROTO(aclnnProdDim, prod_dim_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (int64_t, dim), (bool, keepDim), (const aclDataType, dtype), (aclTensor *, out))

/* ---- aclnnReduceNansum, aclnnReduceLogSum, aclnnLogSumExp ------------------------------------------------- */

/* aclnn_reduce_nansum.cpp (Atlas A2/A3) */
#define NANSUM_DT (ACLSTUB_DT_FLOATS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
enum { NS_SELF, NS_DIM, NS_KEEP, NS_DTYPE, NS_OUT };
static aclnnStatus nansum_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[NS_SELF].tensor, *out = call->v[NS_OUT].tensor;
    aclDataType dtype = (aclDataType)call->v[NS_DTYPE].i;
    char buf[256];
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, NS_SELF, NANSUM_DT));
    if ((unsigned)dtype >= 64 || !(NANSUM_DT & DT(dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "type %s should be in dtype support list [%s]",
                             aclStubDtypeName(dtype), aclStubDtypeSetName(NANSUM_DT, buf, sizeof buf));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, NS_OUT, NANSUM_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, NS_OUT, dtype));
    if (!aclStubCanCast(self->dtype, out->dtype))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID,
                             "Result type %s can't be cast to the desired output type %s",
                             aclStubDtypeName(self->dtype), aclStubDtypeName(out->dtype));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, NS_DIM, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, NS_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, NS_OUT, MAX_DIMS));
    /* BOOL: any (NaN casts to true); integers: the plain sum; floats: NaN terms count as zero */
    Plan *p = plan_of(call, dtype == ACL_BOOL ? ACLSTUB_RED_ANY
                            : aclStubIsIntegral(self->dtype, true) ? ACLSTUB_RED_SUM : ACLSTUB_RED_NANSUM,
                      NS_SELF, NS_OUT);
    if (aclStubNumel(self) == 0) return fill(call, p, NS_OUT, 0.0);
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    reduced(self, mask, call->v[NS_KEEP].b, shape, &nd, &p->r.dims);
    ACLSTUB_TRY(shape_or_scalar(call, NS_OUT, shape, nd));
    p->r.compute = dtype;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnReduceNansum, nansum_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepDim), (aclDataType, dtype), (aclTensor *, out))

/* aclnn_reduce_log_sum.cpp: Atlas A2/A3 take FLOAT16 and FLOAT */
#define LOGSUM_DT (DT(ACL_FLOAT16) | DT(ACL_FLOAT))
enum { LS_DATA, LS_AXES, LS_KEEP, LS_NOOP, LS_REDUCE };
static aclnnStatus log_sum_check(aclStubOpCall *call) {
    const aclStubTensorDesc *data = call->v[LS_DATA].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, LS_DATA, LOGSUM_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, LS_REDUCE, LOGSUM_DT));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, LS_DATA, MAX_DIMS));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, LS_AXES, data->ndim, true, &mask));
    Plan *p = plan_of(call, ACLSTUB_RED_LOGSUM, LS_DATA, LS_REDUCE);
    if (aclStubNumel(data) == 0) return fill(call, p, LS_REDUCE, 0.0);
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    if (call->v[LS_AXES].size == 0 && call->v[LS_NOOP].b) { /* a copy */
        p->r.op = ACLSTUB_RED_SUM;
        p->r.dims = 0;
        aclStubReduceShape(data, 0, false, shape, &nd);
    } else {
        reduced(data, mask, call->v[LS_KEEP].b, shape, &nd, &p->r.dims);
    }
    return shape_or_scalar(call, LS_REDUCE, shape, nd);
}
ACLSTUB_OP_FROM_PROTO(aclnnReduceLogSum, log_sum_check, kernel, sizeof(Plan), (const aclTensor *, data),
                      (const aclIntArray *, axes), (bool, keepDims), (bool, noopWithEmptyAxes), (aclTensor *, reduce))

/* aclnn_logsumexp.cpp (Atlas A2/A3): integers and 16-bit floats compute in FLOAT */
#define LSE_IN_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16) | ACLSTUB_DT_INTS | DT(ACL_BOOL))
#define LSE_OUT_DT ACLSTUB_DT_FLOATS
enum { LE_SELF, LE_DIM, LE_KEEP, LE_OUT };
static aclnnStatus logsumexp_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[LE_SELF].tensor, *out = call->v[LE_OUT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, LE_SELF, LSE_IN_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, LE_OUT, LSE_OUT_DT));
    if (!aclStubCanCast(self->dtype, out->dtype))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID,
                             "Result type %s can't be cast to the desired output type %s",
                             aclStubDtypeName(self->dtype), aclStubDtypeName(out->dtype));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, LE_DIM, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, LE_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, LE_OUT, MAX_DIMS));
    Plan *p = plan_of(call, ACLSTUB_RED_LOGSUMEXP, LE_SELF, LE_OUT);
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    reduced(self, mask, call->v[LE_KEEP].b, shape, &nd, &p->r.dims);
    ACLSTUB_TRY(aclStubCheckShape(call, LE_OUT, shape, nd));
    if (aclStubNumel(self) == 0) return fill(call, p, LE_OUT, -INFINITY);
    p->r.compute = self->dtype == ACL_FLOAT ? ACL_FLOAT : ACL_FLOAT;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnLogSumExp, logsumexp_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepDim), (aclTensor *, out))

/* ---- aclnnVar, aclnnVarCorrection, aclnnVarMean, aclnnStd, aclnnStdMeanCorrection ---------------------- */

#define VAR_DT ACLSTUB_DT_FLOATS
typedef enum { SHAPE_EXACT, SHAPE_UNLESS_ALL } ShapeRule;

/* The shared rules of the variance family: out (and out2) dtypes, dims (NULL or empty: every dimension), the
 * output shapes, the empty and the too-few-terms cases (NaN when one term is left to a correction, +inf when
 * the correction exceeds the terms). */
static aclnnStatus var_common(aclStubOpCall *call, aclStubReduceOp op, int dim, bool keep, double correction,
                              int out, int out2, ShapeRule rule, bool out_max_dim) {
    const aclStubTensorDesc *self = call->v[0].tensor;
    uint64_t mask = 0;
    if (call->v[dim].present) ACLSTUB_TRY(aclStubReduceDims(call, dim, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, 0, MAX_DIMS));
    if (out_max_dim) {
        ACLSTUB_TRY(aclStubCheckMaxDim(call, out, MAX_DIMS));
        if (out2 >= 0) ACLSTUB_TRY(aclStubCheckMaxDim(call, out2, MAX_DIMS));
    }
    Plan *p = plan_of(call, op, 0, out);
    p->out2 = out2;
    p->r.correction = correction;
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    bool all = !call->v[dim].present || call->v[dim].size == 0;
    reduced(self, all ? 0 : mask, keep, shape, &nd, &p->r.dims);
    if (all && !keep) nd = 0;
    if (!(rule == SHAPE_UNLESS_ALL && all)) {
        ACLSTUB_TRY(aclStubCheckShape(call, out, shape, nd));
        if (out2 >= 0) ACLSTUB_TRY(aclStubCheckShape(call, out2, shape, nd));
    } else {
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(call->v[out].tensor) != 1 ||
                                (out2 >= 0 && aclStubNumel(call->v[out2].tensor) != 1), call, ACLNN_ERR_PARAM_INVALID,
                                "a reduction over every dimension writes one element");
    }
    if (aclStubNumel(self) == 0) {
        ACLSTUB_TRY(fill(call, p, out, NAN));
        p->fill2 = out2 >= 0;
        p->fill_value2 = NAN;
        return OK;
    }
    return OK;
}

enum { VR_SELF, VR_DIM, VR_UNBIASED, VR_KEEP, VR_OUT };
static aclnnStatus var_check(aclStubOpCall *call) {
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, VR_SELF, VAR_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, VR_OUT, VAR_DT));
    return var_common(call, ACLSTUB_RED_VAR, VR_DIM, call->v[VR_KEEP].b, call->v[VR_UNBIASED].b ? 1 : 0, VR_OUT, -1,
                      SHAPE_EXACT, false);
}
ACLSTUB_OP_FROM_PROTO_NULLABLE(aclnnVar, var_check, kernel, sizeof(Plan), VR_DIM, (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, unbiased), (bool, keepdim), (aclTensor *, out))

enum { VC_SELF, VC_DIM, VC_CORR, VC_KEEP, VC_OUT };
static aclnnStatus var_correction_check(aclStubOpCall *call) {
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, VC_SELF, VAR_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, VC_OUT, VAR_DT));
    return var_common(call, ACLSTUB_RED_VAR, VC_DIM, call->v[VC_KEEP].b, (double)call->v[VC_CORR].i, VC_OUT, -1,
                      SHAPE_EXACT, false);
}
ACLSTUB_OP_FROM_PROTO_NULLABLE(aclnnVarCorrection, var_correction_check, kernel, sizeof(Plan), VC_DIM,
                               (const aclTensor *, self), (const aclIntArray *, dim), (int64_t, correction),
                               (bool, keepdim), (aclTensor *, out))

enum { VM_SELF, VM_DIM, VM_CORR, VM_KEEP, VM_VAR, VM_MEAN };
/* aclnn_var_mean.cpp: Atlas A2/A3 take FLOAT and FLOAT16 */
#define VAR_MEAN_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16))
static aclnnStatus var_mean_check(aclStubOpCall *call) {
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, VM_SELF, VAR_MEAN_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, VM_MEAN, VAR_MEAN_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, VM_VAR, VAR_MEAN_DT));
    return var_common(call, ACLSTUB_RED_VAR, VM_DIM, call->v[VM_KEEP].b, (double)call->v[VM_CORR].i, VM_VAR, VM_MEAN,
                      SHAPE_EXACT, false);
}
ACLSTUB_OP_FROM_PROTO_NULLABLE(aclnnVarMean, var_mean_check, kernel, sizeof(Plan), VM_DIM, (const aclTensor *, self),
                      (const aclIntArray *, dim), (int64_t, correction), (bool, keepdim), (aclTensor *, varOut),
                      (aclTensor *, meanOut))

enum { SD_SELF, SD_DIM, SD_CORR, SD_KEEP, SD_OUT };
static aclnnStatus std_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[SD_SELF].tensor, *out = call->v[SD_OUT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SD_SELF, VAR_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SD_OUT, VAR_DT));
    if (!aclStubCanCast(self->dtype, out->dtype))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID,
                             "Result type %s can't be cast to the desired output type %s",
                             aclStubDtypeName(self->dtype), aclStubDtypeName(out->dtype));
    return var_common(call, ACLSTUB_RED_STD, SD_DIM, call->v[SD_KEEP].b, (double)call->v[SD_CORR].i, SD_OUT, -1,
                      SHAPE_UNLESS_ALL, true);
}
ACLSTUB_OP_FROM_PROTO_NULLABLE(aclnnStd, std_check, kernel, sizeof(Plan), SD_DIM, (const aclTensor *, self),
                      (const aclIntArray *, dim), (const int64_t, correction), (bool, keepdim), (aclTensor *, out))

enum { SM_SELF, SM_DIM, SM_CORR, SM_KEEP, SM_STD, SM_MEAN };
static aclnnStatus std_mean_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[SM_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SM_SELF, VAR_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SM_STD, VAR_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SM_MEAN, VAR_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, SM_STD, self->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, SM_MEAN, self->dtype));
    return var_common(call, ACLSTUB_RED_STD, SM_DIM, call->v[SM_KEEP].b, (double)call->v[SM_CORR].i, SM_STD, SM_MEAN,
                      SHAPE_UNLESS_ALL, true);
}
ACLSTUB_OP_FROM_PROTO_NULLABLE(aclnnStdMeanCorrection, std_mean_check, kernel, sizeof(Plan), SM_DIM,
                               (const aclTensor *, self), (const aclIntArray *, dim), (int64_t, correction),
                               (bool, keepdim), (aclTensor *, stdOut), (aclTensor *, meanOut))

/* ---- aclnnArgMax, aclnnArgMin, aclnnMaxDim, aclnnMinDim ---------------------------------------------------- */

/* aclnn_argmax.cpp / aclnn_argmin.cpp (Atlas A2/A3) */
#define ARG_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS)
enum { AR_SELF, AR_DIM, AR_KEEP, AR_OUT };
static aclnnStatus arg_check(aclStubOpCall *call, aclStubReduceOp op) {
    const aclStubTensorDesc *self = call->v[AR_SELF].tensor;
    uint64_t mask = 0;
    if (op == ACLSTUB_RED_ARGMAX) { /* aclnn_argmax.cpp: dtype, ranks, dim */
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AR_SELF, ARG_DT));
        ACLSTUB_TRY(aclStubCheckMaxDim(call, AR_SELF, MAX_DIMS));
        ACLSTUB_TRY(aclStubCheckMaxDim(call, AR_OUT, MAX_DIMS));
        ACLSTUB_TRY(aclStubReduceDim(call, "dim", call->v[AR_DIM].i, self->ndim, false, &mask));
        if (aclStubNumel(self) == 0 || aclStubNumel(call->v[AR_OUT].tensor) == 0) return aclStubOpNothingToDo(call);
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AR_OUT, ACLSTUB_DT_INDEX));
    } else { /* aclnn_argmin.cpp: dim, dtypes (out INT32/INT64), ranks, a non-empty reduced dim */
        ACLSTUB_TRY(aclStubReduceDim(call, "dim", call->v[AR_DIM].i, self->ndim, false, &mask));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AR_SELF, ARG_DT));
        ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AR_OUT, ACLSTUB_DT_INDEX));
        ACLSTUB_TRY(aclStubCheckFormat(call, AR_SELF));
        ACLSTUB_TRY(aclStubCheckFormat(call, AR_OUT));
        ACLSTUB_TRY(aclStubCheckMaxDim(call, AR_SELF, MAX_DIMS));
        ACLSTUB_TRY(aclStubCheckMaxDim(call, AR_OUT, MAX_DIMS));
        ACLSTUB_RETURN_ERROR_IF(self->ndim > 0 && any_reduced_dim_empty(self, mask), call, ACLNN_ERR_PARAM_INVALID,
                                "Excepted reduction dim %lld to have non-zero size", (long long)call->v[AR_DIM].i);
        if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    }
    Plan *p = plan_of(call, op, AR_SELF, -1);
    p->out2 = AR_OUT;
    p->r.dims = mask;
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    aclStubReduceShape(self, mask, call->v[AR_KEEP].b, shape, &nd);
    return shape_or_scalar(call, AR_OUT, shape, nd);
}
static aclnnStatus argmax_check(aclStubOpCall *call) { return arg_check(call, ACLSTUB_RED_ARGMAX); }
static aclnnStatus argmin_check(aclStubOpCall *call) { return arg_check(call, ACLSTUB_RED_ARGMIN); }
ACLSTUB_OP_FROM_PROTO(aclnnArgMax, argmax_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (bool, keepdim), (aclTensor *, out))
ACLSTUB_OP_FROM_PROTO(aclnnArgMin, argmin_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (bool, keepdim), (aclTensor *, out))

/* aclnn_max_dim.cpp / aclnn_min_dim.cpp (Atlas A2/A3); BOOL computes in FLOAT */
#define DIM_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_INT64) | DT(ACL_BOOL) | DT(ACL_BF16))
enum { MD_SELF, MD_DIM, MD_KEEP, MD_OUT, MD_INDICES };
static aclnnStatus max_dim_like_check(aclStubOpCall *call, aclStubReduceOp op) {
    const aclStubTensorDesc *self = call->v[MD_SELF].tensor, *out = call->v[MD_OUT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MD_SELF, DIM_DT));
    if (out->dtype != self->dtype)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have same dtype, but found self "
                             "%s and out %s", aclStubDtypeName(self->dtype), aclStubDtypeName(out->dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MD_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MD_OUT, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MD_INDICES, MAX_DIMS));
    uint64_t mask = 0;
    ACLSTUB_TRY(aclStubReduceDim(call, "dim", call->v[MD_DIM].i, self->ndim, false, &mask));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MD_INDICES, ACLSTUB_DT_INDEX));
    Plan *p = plan_of(call, op, MD_SELF, MD_OUT);
    p->out2 = MD_INDICES;
    p->r.dims = mask;
    if (self->dtype == ACL_BOOL) p->r.compute = ACL_FLOAT;
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    aclStubReduceShape(self, mask, call->v[MD_KEEP].b, shape, &nd);
    ACLSTUB_TRY(shape_or_scalar(call, MD_INDICES, shape, nd));
    return shape_or_scalar(call, MD_OUT, shape, nd);
}
static aclnnStatus max_dim_check(aclStubOpCall *call) { return max_dim_like_check(call, ACLSTUB_RED_ARGMAX); }
static aclnnStatus min_dim_check(aclStubOpCall *call) { return max_dim_like_check(call, ACLSTUB_RED_ARGMIN); }
ACLSTUB_OP_FROM_PROTO(aclnnMaxDim, max_dim_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (bool, keepdim), (aclTensor *, out), (aclTensor *, indices))
ACLSTUB_OP_FROM_PROTO(aclnnMinDim, min_dim_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (bool, keepdim), (aclTensor *, out), (aclTensor *, indices))

/* ---- aclnnAminmax, aclnnAminmaxAll, aclnnAminmaxDim --------------------------------------------------------- */

/* aclnn_aminmax*.cpp (Atlas A2/A3); BOOL computes in UINT8 */
#define MINMAX_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
static aclnnStatus minmax_common(aclStubOpCall *call, int min_out, int max_out) {
    const aclStubTensorDesc *self = call->v[0].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, 0, MINMAX_DT));
    for (int o = 0; o < 2; o++) {
        int i = o ? max_out : min_out;
        if (call->v[i].tensor->dtype != self->dtype)
            return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have same dtype, but found "
                                 "self %s and %s %s", aclStubDtypeName(self->dtype), call->op->params[i].name,
                                 aclStubDtypeName(call->v[i].tensor->dtype));
    }
    ACLSTUB_TRY(aclStubCheckMaxDim(call, 0, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, min_out, MAX_DIMS));
    return aclStubCheckMaxDim(call, max_out, MAX_DIMS);
}

static aclnnStatus minmax_finish(aclStubOpCall *call, uint64_t mask, bool keep, int min_out, int max_out) {
    const aclStubTensorDesc *self = call->v[0].tensor;
    Plan *p = plan_of(call, ACLSTUB_RED_MIN, 0, min_out);
    p->out2 = max_out;
    p->second = true;
    p->op2 = ACLSTUB_RED_MAX;
    p->r.dims = mask;
    if (self->dtype == ACL_BOOL) p->r.compute = ACL_UINT8;
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    aclStubReduceShape(self, mask, keep, shape, &nd);
    ACLSTUB_TRY(shape_or_scalar(call, min_out, shape, nd));
    return shape_or_scalar(call, max_out, shape, nd);
}

enum { MM_SELF, MM_DIM, MM_KEEP, MM_MIN, MM_MAX };
static aclnnStatus aminmax_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[MM_SELF].tensor;
    ACLSTUB_TRY(minmax_common(call, MM_MIN, MM_MAX));
    const aclStubValue *dim = &call->v[MM_DIM];
    ACLSTUB_RETURN_ERROR_IF(dim->size != 1 && aclStubNumel(self) == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "Expected self to be not empty tensor");
    uint64_t mask = 0;
    if (dim->size == 1) {
        ACLSTUB_TRY(aclStubReduceDim(call, "dim", dim->ints[0], self->ndim, false, &mask));
        ACLSTUB_RETURN_ERROR_IF(self->ndim > 0 && any_reduced_dim_empty(self, mask), call, ACLNN_ERR_PARAM_INVALID,
                                "Expected reduction dim %lld to have non-zero size", (long long)dim->ints[0]);
    } else {
        ACLSTUB_TRY(aclStubReduceDims(call, MM_DIM, self->ndim, true, &mask));
        if (mask == 0) mask = aclStubAllDims(self->ndim);
    }
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    return minmax_finish(call, mask, call->v[MM_KEEP].b, MM_MIN, MM_MAX);
}
ACLSTUB_OP_FROM_PROTO(aclnnAminmax, aminmax_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const aclIntArray *, dim), (bool, keepDim), (aclTensor *, minOut), (aclTensor *, maxOut))

enum { MA_SELF, MA_MIN, MA_MAX };
static aclnnStatus aminmax_all_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[MA_SELF].tensor;
    ACLSTUB_TRY(minmax_common(call, MA_MIN, MA_MAX));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    return minmax_finish(call, aclStubAllDims(self->ndim), false, MA_MIN, MA_MAX);
}
ACLSTUB_OP_FROM_PROTO(aclnnAminmaxAll, aminmax_all_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (aclTensor *, minOut), (aclTensor *, maxOut))

enum { MI_SELF, MI_DIM, MI_KEEP, MI_MIN, MI_MAX };
static aclnnStatus aminmax_dim_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[MI_SELF].tensor;
    ACLSTUB_TRY(minmax_common(call, MI_MIN, MI_MAX));
    uint64_t mask = 0;
    int64_t dim = call->v[MI_DIM].i;
    ACLSTUB_TRY(aclStubReduceDim(call, "dim", dim, self->ndim, false, &mask));
    ACLSTUB_RETURN_ERROR_IF(self->ndim > 0 && any_reduced_dim_empty(self, mask), call, ACLNN_ERR_PARAM_INVALID,
                            "Expected reduction dim %lld to have non-zero size", (long long)dim);
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    return minmax_finish(call, mask, call->v[MI_KEEP].b, MI_MIN, MI_MAX);
}
ACLSTUB_OP_FROM_PROTO(aclnnAminmaxDim, aminmax_dim_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (const int64_t, dim), (bool, keepDim), (aclTensor *, minOut), (aclTensor *, maxOut))

/* ---- aclnnGlobalMaxPool, aclnnGlobalAveragePool: every dimension after the first two --------------------- */

static aclnnStatus global_pool_check(aclStubOpCall *call, aclStubReduceOp op, uint64_t dtypes, bool exact_shape) {
    enum { SELF, OUT };
    const aclStubTensorDesc *self = call->v[SELF].tensor, *out = call->v[OUT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SELF, dtypes));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, OUT, dtypes));
    if (out->dtype != self->dtype)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have same dtype, but found self "
                             "%s and out %s", aclStubDtypeName(self->dtype), aclStubDtypeName(out->dtype));
    aclFormat f = self->format;
    bool fmt_ok = f == out->format && (f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NCDHW);
    ACLSTUB_RETURN_ERROR_IF(!fmt_ok, call, ACLNN_ERR_PARAM_INVALID, "self and out must share a format of ND, NCHW or "
                            "NCDHW; got %d and %d", (int)self->format, (int)out->format);
    ACLSTUB_RETURN_ERROR_IF(self->ndim < 4 || self->ndim > 8, call, ACLNN_ERR_PARAM_INVALID,
                            "self must have 4 to 8 dimensions, got %u", self->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != self->ndim, call, ACLNN_ERR_PARAM_INVALID,
                            "Expected %u dimension input, but got out with %u", self->ndim, out->ndim);
    uint64_t mask = aclStubAllDims(self->ndim) & ~UINT64_C(3);
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    aclStubReduceShape(self, mask, true, shape, &nd);
    ACLSTUB_TRY(exact_shape ? aclStubCheckShape(call, OUT, shape, nd) : shape_or_scalar(call, OUT, shape, nd));
    Plan *p = plan_of(call, op, SELF, OUT);
    p->r.dims = mask;
    if (aclStubNumel(out) == 0) return aclStubOpNothingToDo(call);
    return OK;
}
static aclnnStatus global_max_pool_check(aclStubOpCall *call) {
    return global_pool_check(call, ACLSTUB_RED_MAX, DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_DOUBLE), true);
}
static aclnnStatus global_average_pool_check(aclStubOpCall *call) {
    return global_pool_check(call, ACLSTUB_RED_MEAN, ACLSTUB_DT_REALS, false);
}
ACLSTUB_OP_FROM_PROTO(aclnnGlobalMaxPool, global_max_pool_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (aclTensor *, out))
ACLSTUB_OP_FROM_PROTO(aclnnGlobalAveragePool, global_average_pool_check, kernel, sizeof(Plan),
                      (const aclTensor *, self), (aclTensor *, out))

/* ---- aclnnBatchNormStats: per channel (dimension 1) mean and 1 / sqrt(biased variance + eps) --------------- */

enum { BS_INPUT, BS_EPS, BS_MEAN, BS_INVSTD };
static aclnnStatus batch_norm_stats_check(aclStubOpCall *call) {
    const aclStubTensorDesc *input = call->v[BS_INPUT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, BS_INPUT, DT(ACL_FLOAT) | DT(ACL_FLOAT16)));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, BS_MEAN, DT(ACL_FLOAT)));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, BS_INVSTD, DT(ACL_FLOAT)));
    for (int i = BS_INPUT; i <= BS_INVSTD; i++) ACLSTUB_TRY(aclStubCheckFormat(call, i));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, BS_INPUT, MAX_DIMS));
    ACLSTUB_RETURN_ERROR_IF(input->ndim < 2, call, ACLNN_ERR_PARAM_INVALID,
                            "The input tensor must have at least 2 dimensions");
    for (int i = BS_MEAN; i <= BS_INVSTD; i++)
        ACLSTUB_RETURN_ERROR_IF(call->v[i].tensor->ndim != 1, call, ACLNN_ERR_PARAM_INVALID,
                                "Expected 1 dimension input, but got %s with %u", call->op->params[i].name,
                                call->v[i].tensor->ndim);
    ACLSTUB_RETURN_ERROR_IF(input->dims[1] == 0, call, ACLNN_ERR_PARAM_INVALID, "input has no channel");
    ACLSTUB_TRY(aclStubCheckShape(call, BS_MEAN, &input->dims[1], 1));
    ACLSTUB_TRY(aclStubCheckShape(call, BS_INVSTD, &input->dims[1], 1));
    Plan *p = plan_of(call, ACLSTUB_RED_INVSTD, BS_INPUT, BS_INVSTD);
    p->out2 = BS_MEAN;
    p->r.dims = aclStubAllDims(input->ndim) & ~UINT64_C(2);
    p->r.compute = ACL_FLOAT;
    p->r.eps = call->v[BS_EPS].f;
    if (aclStubNumel(input) == 0) { /* the op_api fills mean with 0 and invstd with NaN */
        ACLSTUB_TRY(fill(call, p, BS_INVSTD, NAN));
        p->fill2 = true;
        p->fill_value2 = 0.0;
    }
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnBatchNormStats, batch_norm_stats_check, kernel, sizeof(Plan), (const aclTensor *, input),
                      (double, eps), (aclTensor *, mean), (aclTensor *, invstd))

/* ---- aclnnTrace: the sum of the diagonal of a 2-D tensor ------------------------------------------------------- */

/* ASCEND910B_DTYPE_SUPPORT_LIST of aclnn_trace.cpp; integers sum into INT64, 16-bit floats in FLOAT */
#define TRACE_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_COMPLEX | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_INT16) | \
                  DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_BOOL))
enum { TR_SELF, TR_OUT };
static aclnnStatus trace_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[TR_SELF].tensor, *out = call->v[TR_OUT].tensor;
    aclStubTensorDesc diag = *self; /* the diagonal as a 1-D view */
    diag.ndim = 1;
    diag.dims[0] = self->dims[0] < self->dims[1] ? self->dims[0] : self->dims[1];
    diag.strides[0] = self->strides[0] + self->strides[1];
    aclStubReduce r = {ACLSTUB_RED_SUM, &diag, 1, out->dtype, out, NULL, 0, 0, 0};
    if (aclStubIsFloating(self->dtype) && self->dtype != ACL_DOUBLE) r.compute = ACL_FLOAT;
    return aclStubReduceRun(call, &r);
}
static aclnnStatus trace_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[TR_SELF].tensor;
    ACLSTUB_RETURN_ERROR_IF(self->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "self must be 2-D, got %u-D", self->ndim);
    ACLSTUB_RETURN_ERROR_IF(call->v[TR_OUT].tensor->ndim != 0, call, ACLNN_ERR_PARAM_INVALID, "out must be 0-D");
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, TR_SELF, TRACE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, TR_OUT, aclStubIsIntegral(self->dtype, true) ? ACL_INT64 : self->dtype));
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnTrace, trace_check, trace_kernel, sizeof(Plan), (const aclTensor *, self),
                      (aclTensor *, out))
