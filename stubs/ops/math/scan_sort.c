/*
 * Scans and sorts of ops-math math/ on the lanes engine (aclstub/op_reduce.h): aclnnCumsum(V2), aclnnCumprod,
 * aclnnInplaceCumprod, aclnnCummax, aclnnCummin, aclnnSort, aclnnArgsort.
 *
 * Scans run in order along the lane: out[i] = out[i-1] op x[i], in float32 for FLOAT, FLOAT16 and BF16 outputs
 * (each result rounded once to the output's dtype), float64 for DOUBLE, int64 for integers (wrapping, as the
 * narrower type's arithmetic does). cummax/cummin take a value when it is >= (<=) the running one or NaN (the
 * last index of ties, NaN sticks). Sorts are stable (aclStubArgsortLane): NaN last ascending, first descending.
 */
#include <stdlib.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_argsort.h"
#include "aclnnop/aclnn_cummax.h"
#include "aclnnop/aclnn_cummin.h"
#include "aclnnop/aclnn_cumprod.h"
#include "aclnnop/aclnn_cumsum.h"
#include "aclnnop/aclnn_sort.h"

#define DT ACLSTUB_DT
#define MAX_DIMS 8

typedef enum { K_CUMSUM, K_CUMPROD, K_CUMMAX, K_CUMMIN, K_SORT, K_ARGSORT } Kind;

typedef struct {
    Kind kind;
    bool exclusive, reverse, descending;
    int64_t dim;
    aclDataType type;          /* the lane type of values: FLOAT, DOUBLE, INT64 or a complex type */
    aclDataType via;           /* values pass through it (the op_api's Cast), or ACL_DT_UNDEFINED */
    int in, out[2], nout;
    int failed;
} Plan;

/* The type a lane computes in for data of dtype t. */
static aclDataType lane_type(aclDataType t) {
    if (t == ACL_DOUBLE) return ACL_DOUBLE;
    if (t == ACL_COMPLEX64 || t == ACL_COMPLEX128) return t;
    if (aclStubIsFloating(t)) return ACL_FLOAT;
    return ACL_INT64;
}

/* ---- scans ------------------------------------------------------------------------------------------------- */

/* out[i] = x[0] op ... op x[i] (exclusive: up to x[i-1], starting at the identity); reverse: from the end. */
#define DEF_SCAN(SFX, T)                                                                                     \
    static void scan_##SFX(bool prod, bool exclusive, bool reverse, const T *x, T *y, int64_t n) {          \
        T acc = prod ? (T)1 : (T)0;                                                                          \
        for (int64_t j = 0; j < n; j++) {                                                                    \
            int64_t i = reverse ? n - 1 - j : j;                                                             \
            T v = x[i];                                                                                      \
            if (exclusive) y[i] = acc;                                                                       \
            acc = prod ? acc * v : acc + v;                                                                  \
            if (!exclusive) y[i] = acc;                                                                      \
        }                                                                                                    \
    }
DEF_SCAN(f32, float)
DEF_SCAN(f64, double)
DEF_SCAN(i64, int64_t)
DEF_SCAN(c64, float _Complex)
DEF_SCAN(c128, double _Complex)

/* running max (ge) or min (le) with the index of its last occurrence; NaN, once seen, wins */
#define DEF_CUMEXT(SFX, T)                                                                                   \
    static void cumext_##SFX(bool is_max, const T *x, T *y, int64_t *idx, int64_t n) {                      \
        T best = x[0];                                                                                       \
        int64_t at = 0;                                                                                      \
        for (int64_t i = 0; i < n; i++) {                                                                    \
            T v = x[i];                                                                                      \
            bool take = v != v || (best == best && (is_max ? v >= best : v <= best));                        \
            if (take) {                                                                                      \
                best = v;                                                                                    \
                at = i;                                                                                      \
            }                                                                                                \
            y[i] = best;                                                                                     \
            idx[i] = at;                                                                                     \
        }                                                                                                    \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtautological-compare"
DEF_CUMEXT(f32, float)
DEF_CUMEXT(f64, double)
DEF_CUMEXT(i64, int64_t)
#pragma GCC diagnostic pop

/* ---- sorts --------------------------------------------------------------------------------------------------- */

static void gather_values(aclDataType type, const void *x, void *y, const int64_t *order, int64_t n) {
    if (type == ACL_FLOAT)
        for (int64_t i = 0; i < n; i++) ((float *)y)[i] = ((const float *)x)[order[i]];
    else if (type == ACL_DOUBLE)
        for (int64_t i = 0; i < n; i++) ((double *)y)[i] = ((const double *)x)[order[i]];
    else
        for (int64_t i = 0; i < n; i++) ((int64_t *)y)[i] = ((const int64_t *)x)[order[i]];
}

static void lane(const void *ctx, void *const *b, const int64_t *n, int64_t index) {
    (void)index;
    Plan *p = (Plan *)(uintptr_t)ctx;
    int64_t len = n[0];
    switch (p->kind) {
    case K_CUMSUM:
    case K_CUMPROD: {
        bool prod = p->kind == K_CUMPROD;
        switch (p->type) {
        case ACL_FLOAT: scan_f32(prod, p->exclusive, p->reverse, b[0], b[1], len); break;
        case ACL_DOUBLE: scan_f64(prod, p->exclusive, p->reverse, b[0], b[1], len); break;
        case ACL_COMPLEX64: scan_c64(prod, p->exclusive, p->reverse, b[0], b[1], len); break;
        case ACL_COMPLEX128: scan_c128(prod, p->exclusive, p->reverse, b[0], b[1], len); break;
        default: scan_i64(prod, p->exclusive, p->reverse, b[0], b[1], len); break;
        }
        break;
    }
    case K_CUMMAX:
    case K_CUMMIN: {
        bool is_max = p->kind == K_CUMMAX;
        if (len == 0) break;
        if (p->type == ACL_FLOAT)
            cumext_f32(is_max, b[0], b[1], b[2], len);
        else if (p->type == ACL_DOUBLE)
            cumext_f64(is_max, b[0], b[1], b[2], len);
        else
            cumext_i64(is_max, b[0], b[1], b[2], len);
        break;
    }
    case K_SORT:
    case K_ARGSORT: {
        int64_t *order = b[p->kind == K_SORT ? 2 : 1];
        if (!aclStubArgsortLane(b[0], p->type, len, p->descending, order)) {
            __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
            break;
        }
        if (p->kind == K_SORT) gather_values(p->type, b[0], b[1], order, len);
        break;
    }
    }
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    Plan local = *(const Plan *)call->plan, *p = &local; /* its own failure flag per run */
    aclStubLanes l;
    memset(&l, 0, sizeof l);
    l.num_inputs = 1;
    l.num_outputs = p->nout;
    l.tensor[0] = call->v[p->in].tensor;
    l.type[0] = p->type;
    l.via[0] = p->via;
    for (int k = 0; k < p->nout; k++) {
        l.tensor[1 + k] = call->v[p->out[k]].tensor;
        bool idx = (p->kind == K_CUMMAX || p->kind == K_CUMMIN || p->kind == K_SORT) ? k == 1 : p->kind == K_ARGSORT;
        l.type[1 + k] = idx ? ACL_INT64 : p->type;
        l.via[1 + k] = idx ? ACL_DT_UNDEFINED : p->via;
    }
    l.dim = p->dim;
    l.fn = lane;
    l.ctx = p;
    l.work_per_element = p->kind == K_SORT || p->kind == K_ARGSORT ? 16 : 2;
    local.failed = 0;
    ACLSTUB_TRY(aclStubLanesRun(call, &l));
    return p->failed ? aclStubKernelOutOfMemory(call) : OK;
}

static int64_t wrap(int64_t dim, uint32_t n) { return dim < 0 ? dim + (n ? (int64_t)n : 1) : dim; }

static aclnnStatus dim_in_range(aclStubOpCall *call, int64_t dim, uint32_t n) {
    int64_t rank = n ? (int64_t)n : 1;
    ACLSTUB_RETURN_ERROR_IF(dim < -rank || dim >= rank, call, ACLNN_ERR_PARAM_INVALID,
                            "dim must be within the range of [%lld, %lld], but it is %lld", (long long)-rank,
                            (long long)(rank - 1), (long long)dim);
    return OK;
}

static aclnnStatus same_shape(aclStubOpCall *call, int a, int b) {
    const aclStubTensorDesc *x = call->v[a].tensor;
    return aclStubCheckShape(call, b, x->dims, x->ndim);
}

static Plan *plan_of(aclStubOpCall *call, Kind kind, int in, int64_t dim, aclDataType computed_in) {
    Plan *p = call->plan;
    const aclStubTensorDesc *self = call->v[in].tensor;
    p->kind = kind;
    p->in = in;
    p->dim = wrap(dim, self->ndim);
    p->type = lane_type(computed_in);
    p->via = computed_in == p->type ? ACL_DT_UNDEFINED : computed_in;
    return p;
}

/* ---- aclnnCumsum, aclnnCumsumV2 -------------------------------------------------------------------------------- */

/* ASCEND910B_DTYPE_SUPPORT_LIST of aclnn_cumsum.cpp */
#define CUMSUM_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT_COMPLEX)
enum { CS_SELF, CS_DIM, CS_DTYPE, CS_OUT };
static aclnnStatus cumsum_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[CS_SELF].tensor, *out = call->v[CS_OUT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, CS_OUT, CUMSUM_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, CS_OUT, (aclDataType)call->v[CS_DTYPE].i));
    ACLSTUB_TRY(same_shape(call, CS_SELF, CS_OUT));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, CS_SELF, MAX_DIMS));
    ACLSTUB_TRY(dim_in_range(call, call->v[CS_DIM].i, self->ndim));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanConvert(self->dtype), call, ACLNN_ERR_PARAM_INVALID, "self has data type %s",
                            aclStubDtypeName(self->dtype));
    Plan *p = plan_of(call, K_CUMSUM, CS_SELF, call->v[CS_DIM].i, out->dtype); /* self cast to out's dtype */
    p->nout = 1, p->out[0] = CS_OUT;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnCumsum, cumsum_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (aclDataType, dtype), (aclTensor *, out))

enum { C2_SELF, C2_DIM, C2_EXCLUSIVE, C2_REVERSE, C2_OUT };
static aclnnStatus cumsum_v2_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[C2_SELF].tensor, *out = call->v[C2_OUT].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, C2_SELF, CUMSUM_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, C2_OUT, CUMSUM_DT));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != self->dtype, call, ACLNN_ERR_PARAM_INVALID, "Expected both tensors to have "
                            "same dtype, but found self %s and out %s", aclStubDtypeName(self->dtype),
                            aclStubDtypeName(out->dtype));
    ACLSTUB_TRY(same_shape(call, C2_SELF, C2_OUT));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, C2_SELF, MAX_DIMS));
    ACLSTUB_TRY(dim_in_range(call, call->v[C2_DIM].i, self->ndim));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    Plan *p = plan_of(call, K_CUMSUM, C2_SELF, call->v[C2_DIM].i, out->dtype);
    p->exclusive = call->v[C2_EXCLUSIVE].b;
    p->reverse = call->v[C2_REVERSE].b;
    p->nout = 1, p->out[0] = C2_OUT;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnCumsumV2, cumsum_v2_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (int64_t, dim), (bool, exclusive), (bool, reverse), (aclTensor *, out))

/* ---- aclnnCumprod, aclnnInplaceCumprod ------------------------------------------------------------------------- */

/* aclnn_cumprod.cpp */
#define CUMPROD_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS)
static aclnnStatus cumprod_common(aclStubOpCall *call, int in, int dim_param, int out, aclDataType dtype) {
    const aclStubTensorDesc *input = call->v[in].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, in, CUMPROD_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, out, CUMPROD_DT));
    aclDataType dim_type = call->v[dim_param].dtype;
    ACLSTUB_RETURN_ERROR_IF(dim_type != ACL_INT32 && dim_type != ACL_INT64, call, ACLNN_ERR_PARAM_INVALID,
                            "dim has data type %s; supported: ACL_INT32, ACL_INT64", aclStubDtypeName(dim_type));
    int64_t dim = (int32_t)aclStubOpScalarI64(call, dim_param);
    ACLSTUB_TRY(dim_in_range(call, dim, input->ndim));
    ACLSTUB_TRY(same_shape(call, in, out));
    if ((int)dtype == (int)ACL_DT_UNDEFINED) dtype = call->v[out].tensor->dtype;
    /* the op_api's dtype rule returns without an executor when out's dtype differs: refused here */
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, out, dtype));
    if (aclStubNumel(input) == 0 || aclStubNumel(call->v[out].tensor) == 0) return aclStubOpNothingToDo(call);
    Plan *p = plan_of(call, K_CUMPROD, in, dim, dtype);
    p->nout = 1, p->out[0] = out;
    return OK;
}
enum { CP_INPUT, CP_DIM, CP_DTYPE, CP_OUT };
static aclnnStatus cumprod_check(aclStubOpCall *call) {
    return cumprod_common(call, CP_INPUT, CP_DIM, CP_OUT, (aclDataType)call->v[CP_DTYPE].i);
}
ACLSTUB_OP_FROM_PROTO(aclnnCumprod, cumprod_check, kernel, sizeof(Plan), (const aclTensor *, input),
                      (const aclScalar *, dim), (const aclDataType, dtype), (aclTensor *, out))

enum { IC_INPUT, IC_DIM };
static aclnnStatus inplace_cumprod_check(aclStubOpCall *call) {
    return cumprod_common(call, IC_INPUT, IC_DIM, IC_INPUT, call->v[IC_INPUT].tensor->dtype);
}
static const aclStubParam inplace_cumprod_params[] = {
    {"input", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    {"dim", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef inplace_cumprod_def = {"aclnnInplaceCumprod", inplace_cumprod_params, 2, NULL,
                                                 inplace_cumprod_check, kernel, sizeof(Plan)};
ACLSTUB_DEFINE_OP(aclnnInplaceCumprod, inplace_cumprod_def, (aclTensor *, input), (const aclScalar *, dim))

/* ---- aclnnCummax, aclnnCummin ---------------------------------------------------------------------------------- */

#define CUMEXT_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
enum { CM_SELF, CM_DIM, CM_VALUES, CM_INDICES };
static aclnnStatus cumext_check(aclStubOpCall *call, Kind kind) {
    const aclStubTensorDesc *self = call->v[CM_SELF].tensor;
    int64_t dim = call->v[CM_DIM].i;
    if (kind == K_CUMMAX) /* aclnn_cummax.cpp refuses a 0-d self */
        ACLSTUB_RETURN_ERROR_IF(self->ndim == 0, call, ACLNN_ERR_PARAM_INVALID, "self must not be 0-d");
    ACLSTUB_TRY(dim_in_range(call, dim, self->ndim));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, CM_SELF, CUMEXT_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, CM_VALUES, CUMEXT_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, CM_INDICES, ACLSTUB_DT_INDEX));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, CM_SELF, MAX_DIMS));
    ACLSTUB_TRY(same_shape(call, CM_SELF, CM_VALUES));
    ACLSTUB_TRY(same_shape(call, CM_SELF, CM_INDICES));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    Plan *p = plan_of(call, kind, CM_SELF, dim, self->dtype == ACL_BOOL ? ACL_UINT8 : self->dtype);
    p->nout = 2, p->out[0] = CM_VALUES, p->out[1] = CM_INDICES;
    return OK;
}
static aclnnStatus cummax_check(aclStubOpCall *call) { return cumext_check(call, K_CUMMAX); }
static aclnnStatus cummin_check(aclStubOpCall *call) { return cumext_check(call, K_CUMMIN); }
ACLSTUB_OP_FROM_PROTO(aclnnCummax, cummax_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (aclTensor *, valuesOut), (aclTensor *, indicesOut))
ACLSTUB_OP_FROM_PROTO(aclnnCummin, cummin_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (aclTensor *, valuesOut), (aclTensor *, indicesOut))

/* ---- aclnnSort, aclnnArgsort ----------------------------------------------------------------------------------- */

/* aclnn_sort.cpp (Atlas A2/A3): self's list, values may also be DOUBLE, indices INT64 */
#define SORT_DT (ACLSTUB_DT_FLOATS | ACLSTUB_DT_INTS | DT(ACL_BOOL))
#define SORT_VALUES_DT (SORT_DT | DT(ACL_DOUBLE))
enum { SO_SELF, SO_STABLE, SO_DIM, SO_DESC, SO_VALUES, SO_INDICES };
static aclnnStatus sort_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[SO_SELF].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SO_SELF, SORT_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SO_VALUES, SORT_VALUES_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SO_INDICES, DT(ACL_INT64)));
    int64_t dim = call->v[SO_DIM].i, rank = self->ndim;
    int64_t lo = -rank < rank - 1 ? -rank : rank - 1, hi = -rank < rank - 1 ? rank - 1 : -rank;
    ACLSTUB_RETURN_ERROR_IF(dim < lo || dim > hi, call, ACLNN_ERR_PARAM_INVALID,
                            "dim %lld must be in the range of [%lld, %lld]", (long long)dim, (long long)lo,
                            (long long)hi);
    ACLSTUB_TRY(same_shape(call, SO_SELF, SO_VALUES));
    ACLSTUB_TRY(same_shape(call, SO_SELF, SO_INDICES));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    Plan *p = plan_of(call, K_SORT, SO_SELF, self->ndim ? dim : 0, self->dtype);
    p->descending = call->v[SO_DESC].b;
    p->nout = 2, p->out[0] = SO_VALUES, p->out[1] = SO_INDICES;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnSort, sort_check, kernel, sizeof(Plan), (const aclTensor *, self), (bool, stable),
                      (int64_t, dim), (bool, descending), (aclTensor *, valuesOut), (aclTensor *, indicesOut))

/* aclnn_argsort.cpp (Atlas A2/A3) */
#define ARGSORT_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16) | ACLSTUB_DT_INTS)
enum { AS_SELF, AS_DIM, AS_DESC, AS_OUT };
static aclnnStatus argsort_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[AS_SELF].tensor;
    int64_t dim = call->v[AS_DIM].i;
    ACLSTUB_TRY(dim_in_range(call, dim, self->ndim));
    if (self->ndim > 0 && self->dtype == ACL_BF16 && self->dims[wrap(dim, self->ndim)] == 1)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "a BF16 self cannot be sorted along a dimension of 1");
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AS_SELF, ARGSORT_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, AS_OUT, DT(ACL_INT64)));
    ACLSTUB_TRY(aclStubCheckFormat(call, AS_SELF));
    ACLSTUB_TRY(aclStubCheckFormat(call, AS_OUT));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, AS_SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, AS_OUT, MAX_DIMS));
    ACLSTUB_TRY(same_shape(call, AS_SELF, AS_OUT));
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    Plan *p = plan_of(call, K_ARGSORT, AS_SELF, dim, self->dtype);
    p->descending = call->v[AS_DESC].b;
    p->nout = 1, p->out[0] = AS_OUT;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnArgsort, argsort_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, dim),
                      (bool, descending), (aclTensor *, out))
