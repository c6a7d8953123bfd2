/*
 * Reductions of ops-math math/ on the reduction engine (aclstub/op_reduce.h): aclnnReduceSum, aclnnMean(V2),
 * aclnnAmax/Amin, aclnnMax/Min (whole tensor), aclnnMaxV2, aclnnAll/Any, aclnnProd(Dim), aclnnReduceNansum,
 * aclnnReduceLogSum, aclnnLogSumExp. Each check follows its op_api's order; the kernel is shared.
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
    bool fill;       /* an empty input: out is filled with fill_value */
    double fill_value;
} Plan;

static aclnnStatus kernel(const aclStubOpCall *call) {
    const Plan *p = call->plan;
    if (p->fill) return aclStubFill(call, call->v[p->out].tensor, p->fill_value);
    aclStubReduce r = p->r;
    r.self = call->v[p->self].tensor;
    r.out = p->out >= 0 ? call->v[p->out].tensor : NULL;
    r.out2 = p->out2 >= 0 ? call->v[p->out2].tensor : NULL;
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, RS_SELF, SUM_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, RS_OUT, SUM_DT));
    if ((unsigned)dtype >= 64 || !(SUM_DT & DT(dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "type %s should be in dtype support list [%s]",
                             aclStubDtypeName(dtype), aclStubDtypeSetName(SUM_DT, buf, sizeof buf));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, RS_OUT, dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, RS_SELF, MAX_DIMS));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, RS_DIMS, self->ndim, true, &mask));
    Plan *p = plan_of(call, dtype == ACL_BOOL ? ACLSTUB_RED_ANY : ACLSTUB_RED_SUM, RS_SELF, RS_OUT);
    if (aclStubNumel(self) == 0) {
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, RS_OUT, EMPTY_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, MN_SELF, MEAN_DT));
    if ((unsigned)dtype >= 64 || !(MEAN_DT & DT(dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "type %s should be in dtype support list [%s]",
                             aclStubDtypeName(dtype), aclStubDtypeSetName(MEAN_DT, buf, sizeof buf));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, MN_OUT, MEAN_DT));
    if (!aclStubCanCast(self->dtype, dtype) || !aclStubCanCast(dtype, out->dtype))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Result type %s can't be cast to the desired output type %s",
                             aclStubDtypeName(aclStubCanCast(self->dtype, dtype) ? dtype : self->dtype),
                             aclStubDtypeName(aclStubCanCast(self->dtype, dtype) ? out->dtype : dtype));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, MN_DIM, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MN_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, MN_OUT, MAX_DIMS));
    Plan *p = plan_of(call, ACLSTUB_RED_MEAN, MN_SELF, MN_OUT);
    if (aclStubNumel(self) == 0) {
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, MN_OUT, EMPTY_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, M2_SELF, MEAN_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, M2_OUT, MEAN_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, M2_OUT, self->dtype));
    uint64_t mask;
    ACLSTUB_TRY(aclStubReduceDims(call, M2_DIM, self->ndim, true, &mask));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, M2_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, M2_OUT, MAX_DIMS));
    Plan *p = plan_of(call, ACLSTUB_RED_MEAN, M2_SELF, M2_OUT);
    if (aclStubNumel(self) == 0) {
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, M2_OUT, EMPTY_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, AM_SELF, MAX_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, MV_SELF, MAX_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, MX_SELF, MAX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, MX_OUT, MAX_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, AA_SELF, ALL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, AA_OUT, ALL_OUT_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, AA_SELF, ALL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, AA_OUT, ALL_OUT_DT));
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
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, 0, SUM_DT));
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
