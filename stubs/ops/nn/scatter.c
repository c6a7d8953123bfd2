/*
 * Scatters of ops-nn index/: Scatter (torch's scatter with src or a value, none/add/mul), ScatterAdd,
 * ScatterReduce, their in-place variants; IndexAdd(V2), IndexCopy, IndexFill (tensor or int-array indices) and
 * their in-place variants (a 1-D index along one dimension); ScatterNd, ScatterNdUpdate, InplacePut and
 * TfScatterAdd (index tuples or flat indices selecting rows). All run on the scatter core of aclstub/op_index.h:
 * duplicates apply in increasing index position (the last write wins, sums add in that order), whatever the
 * thread count. 16-bit floats accumulate in float32 and are rounded once; an index out of range fails the kernel
 * with ACLNN_ERR_PARAM_INVALID.
 */
#include <complex.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_index_add.h"
#include "aclnnop/aclnn_index_add_v2.h"
#include "aclnnop/aclnn_index_copy.h"
#include "aclnnop/aclnn_index_fill.h"
#include "aclnnop/aclnn_index_fill_tensor.h"
#include "aclnnop/aclnn_put.h"
#include "aclnnop/aclnn_scatter.h"
#include "aclnnop/aclnn_scatter_add.h"
#include "aclnnop/aclnn_scatter_nd.h"
#include "aclnnop/aclnn_scatter_nd_update.h"
#include "aclnnop/aclnn_scatter_reduce.h"
#include "aclnnop/aclnn_tf_scatter_add.h"

#define MAX_DIM 8
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define INDEX_DT (DT(ACL_INT32) | DT(ACL_INT64))

#define SCATTER_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define INDEX_ADD_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define INDEX_COPY_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define INDEX_FILL_DT (DT(ACL_INT32) | DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_INT64) | DT(ACL_BOOL) | DT(ACL_BF16))
#define SCATTER_ND_DT (DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_BOOL) | DT(ACL_BF16))
#define SCATTER_ND_UPDATE_DT (ACLSTUB_DT_FLOATS | DT(ACL_BOOL) | DT(ACL_INT16) | DT(ACL_INT64) | DT(ACL_INT8) | DT(ACL_INT32))
#define PUT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define PUT_ACC_DT (PUT_DT & ~DT(ACL_BF16))
#define TF_SCATTER_ADD_DT (ACLSTUB_DT_FLOATS | DT(ACL_INT32) | DT(ACL_INT8) | DT(ACL_UINT8))

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define INPLACE(name) {name, ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* The dtype combines run in: 16-bit floats in float32; anything for plain copies. */
static aclDataType compute_dtype(aclDataType dt, aclStubScatterOp op) {
    if (op != ACLSTUB_SCATTER_COPY && (dt == ACL_FLOAT16 || dt == ACL_BF16)) return ACL_FLOAT;
    return dt;
}

/* out = self first (unless it is self), as the op_api's copy of self into its result. */
static aclnnStatus start_from_self(const aclStubOpCall *call, const aclStubTensorDesc *self,
                                   const aclStubTensorDesc *out) {
    if (self == out || (self->data == out->data && self->offset == out->offset &&
                        aclStubShapeEqual(self->dims, self->ndim, out->dims, out->ndim) &&
                        !memcmp(self->strides, out->strides, self->ndim * sizeof self->strides[0])))
        return OK;
    aclStubTensorDesc src;
    ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &src));
    return aclStubCopyView(call, out, &src, ACL_DT_UNDEFINED);
}

/* A scalar's value as `dtype` bytes. */
static void scalar_as(unsigned char *buf, aclDataType dtype, aclDataType sdt, const unsigned char *value) {
    union { /* aligned copies: the conversions load and store whole elements */
        max_align_t align;
        unsigned char bytes[16];
    } in, out;
    memcpy(in.bytes, value, sizeof in.bytes);
    memset(out.bytes, 0, sizeof out.bytes);
    aclStubCastStrided(out.bytes, 0, dtype, in.bytes, 0, sdt, 1);
    memcpy(buf, out.bytes, sizeof out.bytes);
}

/* ---- element-wise scatter (torch's scatter_) ----------------------------------------------------------------------- */

typedef struct {
    int64_t dim;
    aclStubScatterOp op;
    bool index_empty; /* only the copy of self into out */
} ElemPlan;

static aclnnStatus scatter_elements_kernel_common(const aclStubOpCall *call, const aclStubTensorDesc *self,
                                                  const aclStubTensorDesc *index, const aclStubTensorDesc *src,
                                                  const aclStubValue *value, const aclStubTensorDesc *out) {
    const ElemPlan *plan = call->plan;
    ACLSTUB_TRY(start_from_self(call, self, out));
    if (plan->index_empty) return OK;
    aclDataType ct = compute_dtype(out->dtype, plan->op);
    int64_t one = 1;
    uint32_t r = out->ndim ? out->ndim : 1;
    const int64_t *dshape = out->ndim ? out->dims : &one, *ishape = index->ndim ? index->dims : &one;
    const int64_t *idx;
    ACLSTUB_TRY(aclStubIndexLoad(call, index, dshape[plan->dim], false, "index", &idx));
    aclStubTensorDesc buf, s;
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ct, true, &buf));
    unsigned char v[16];
    const void *sdata = NULL, *vptr = NULL;
    const int64_t *sshape = ishape;
    if (src) {
        ACLSTUB_TRY(aclStubInputApart(call, src, ct, out, &s));
        sdata = aclStubViewBase(&s);
        sshape = src->ndim ? src->dims : &one;
    } else {
        scalar_as(v, ct, value->dtype, value->scalar);
        vptr = v;
    }
    ACLSTUB_TRY(aclStubScatterElements(call, aclStubViewBase(&buf), dshape, sdata, sshape, vptr, idx, ishape, r,
                                       (uint32_t)plan->dim, ct, plan->op));
    return aclStubOutputEnd(call, out, &buf);
}

/* Shapes: index no larger than src anywhere and than self outside dim; ranks equal; dim in range. */
static aclnnStatus scatter_elements_shapes(aclStubOpCall *call, const aclStubTensorDesc *self,
                                           const aclStubTensorDesc *index, const aclStubTensorDesc *src,
                                           const aclStubTensorDesc *out, int64_t *dim) {
    if (self->ndim != index->ndim || (src && self->ndim != src->ndim))
        return aclStubOpFail(call, INVALID, "self, index and src must have the same number of dimensions");
    if (out->ndim != 0) ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    int64_t n = self->ndim, d = *dim;
    int64_t fd = d < 0 ? (d + n >= 0 ? d + n : 0) : (d < n ? d : n - 1);
    for (int64_t i = 0; src && i < n; i++)
        if (index->dims[i] > src->dims[i])
            return aclStubOpFail(call, INVALID, "index shape must not be larger than src shape at dimension %lld",
                                 (long long)i);
    for (int64_t i = 0; i < n; i++)
        if (i != fd && index->dims[i] > self->dims[i])
            return aclStubOpFail(call, INVALID, "apart from dimension %lld, index shape must not be larger than self "
                                 "shape (dimension %lld)", (long long)d, (long long)i);
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t hi = n - 1 > -n ? n - 1 : -n, lo = n - 1 < -n ? n - 1 : -n;
    if (d > hi || d < lo) return aclStubOpFail(call, INVALID, "dim must be in [-N, N-1], got %lld", (long long)d);
    if (d < 0) d += n;
    *dim = n ? d : 0;
    return OK;
}

static aclnnStatus reduce_op(aclStubOpCall *call, int64_t reduce, int64_t max, aclStubScatterOp *op) {
    static const aclStubScatterOp ops[] = {ACLSTUB_SCATTER_COPY, ACLSTUB_SCATTER_ADD, ACLSTUB_SCATTER_MUL,
                                           ACLSTUB_SCATTER_MAX, ACLSTUB_SCATTER_MIN};
    if (reduce < 0 || reduce > max)
        return aclStubOpFail(call, INVALID, "reduce must be in [0, %lld], got %lld", (long long)max, (long long)reduce);
    *op = ops[reduce];
    return OK;
}

/* Scatter, InplaceScatter, ScatterAdd, ScatterReduce and InplaceScatterReduce: (self, dim, index, src, ...). */
static aclnnStatus scatter_src_check(aclStubOpCall *call, const aclStubTensorDesc *out, int64_t reduce, int64_t max_reduce) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *src = T(3);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SCATTER_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "src", src, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    if (aclStubNumel(index) > 0) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    ElemPlan *plan = call->plan;
    ACLSTUB_TRY(reduce_op(call, reduce, max_reduce, &plan->op));
    if (aclStubNumel(index) == 0) {
        plan->index_empty = true;
        if (aclStubNumel(out) == 0 || self == out) return nothing(call);
        if (aclStubNumel(self) != aclStubNumel(out))
            return aclStubOpFail(call, INVALID, "out must have the shape of self");
        return OK;
    }
    plan->dim = call->v[1].i;
    ACLSTUB_TRY(scatter_elements_shapes(call, self, index, src, out, &plan->dim));
    if (aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

/* The tensor written: the last output parameter, else the in-place first one. */
static const aclStubTensorDesc *written(const aclStubOpCall *call) {
    const aclStubParam *last = &call->op->params[call->op->num_params - 1];
    return last->role == ACLSTUB_OUTPUT ? T(call->op->num_params - 1) : T(0);
}

static aclnnStatus scatter_src_kernel(const aclStubOpCall *call) {
    return scatter_elements_kernel_common(call, T(0), T(2), T(3), NULL, written(call));
}

static aclnnStatus scatter_check(aclStubOpCall *call) { return scatter_src_check(call, written(call), call->v[4].i, 2); }

static aclnnStatus scatter_add_check(aclStubOpCall *call) {
    ACLSTUB_TRY(scatter_src_check(call, written(call), 1, 1));
    return OK;
}

/* Atlas A2/A3: ScatterReduce takes FLOAT, sum and includeSelf only. */
static aclnnStatus scatter_reduce_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0);
    int64_t reduce = call->v[4].i;
    bool include_self = call->v[5].b;
    if (reduce < 0 || reduce > 5)
        return aclStubOpFail(call, INVALID, "reduce must be one of 0 (none), 1 (add), 2 (mul), 3 (max), 4 (min), "
                             "5 (mean), got %lld", (long long)reduce);
    if (!(self->dtype == ACL_FLOAT && reduce == 1 && include_self))
        return aclStubOpFail(call, INVALID, "scatter_reduce only supports dtype=float32, reduce=sum, include_self=true "
                             "on this SoC; got %s, reduce %lld, include_self %d", aclStubDtypeName(self->dtype),
                             (long long)reduce, (int)include_self);
    return scatter_src_check(call, written(call), reduce, 1);
}

static aclnnStatus scatter_value_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *out = written(call);
    if (!aclStubIsComplex(self->dtype) && aclStubIsComplex(call->v[3].dtype))
        return aclStubOpFail(call, INVALID, "when value is complex, self must be complex");
    ElemPlan *plan = call->plan;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, SCATTER_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(reduce_op(call, call->v[4].i, 2, &plan->op));
    if (aclStubNumel(index) == 0) {
        plan->index_empty = true;
        if (aclStubNumel(out) == 0 || self == out) return nothing(call);
        return OK;
    }
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    plan->dim = call->v[1].i;
    ACLSTUB_TRY(scatter_elements_shapes(call, self, index, NULL, out, &plan->dim));
    if (aclStubNumel(out) == 0) return nothing(call);
    return OK;
}

static aclnnStatus scatter_value_kernel(const aclStubOpCall *call) {
    return scatter_elements_kernel_common(call, T(0), T(2), NULL, &call->v[3], written(call));
}

static const aclStubParam kScatterParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), IN("src"),
                                              ATTR("reduce", ACLSTUB_INT), OUT("out")};
static const aclStubParam kScatterValueParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                   ATTR("value", ACLSTUB_SCALAR), ATTR("reduce", ACLSTUB_INT), OUT("out")};
static const aclStubParam kInplaceScatterParams[] = {INPLACE("selfRef"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                     IN("src"), ATTR("reduce", ACLSTUB_INT)};
static const aclStubParam kInplaceScatterValueParams[] = {INPLACE("selfRef"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                          ATTR("value", ACLSTUB_SCALAR), ATTR("reduce", ACLSTUB_INT)};
static const aclStubParam kScatterAddParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), IN("src"), OUT("out")};
static const aclStubParam kScatterReduceParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), IN("src"),
                                                    ATTR("reduce", ACLSTUB_INT), ATTR("includeSelf", ACLSTUB_BOOL),
                                                    OUT("out")};
static const aclStubParam kInplaceScatterReduceParams[] = {INPLACE("selfRef"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                           IN("src"), ATTR("reduce", ACLSTUB_INT),
                                                           ATTR("includeSelf", ACLSTUB_BOOL)};

#define DEF(NAME, PARAMS, CHECK, KERNEL, PLAN) \
    static const aclStubOpDef NAME##_def_ = {#NAME, PARAMS, ACLSTUB_LEN(PARAMS), NULL, CHECK, KERNEL, PLAN}

DEF(aclnnScatter, kScatterParams, scatter_check, scatter_src_kernel, sizeof(ElemPlan));
DEF(aclnnInplaceScatter, kInplaceScatterParams, scatter_check, scatter_src_kernel, sizeof(ElemPlan));
DEF(aclnnScatterValue, kScatterValueParams, scatter_value_check, scatter_value_kernel, sizeof(ElemPlan));
DEF(aclnnInplaceScatterValue, kInplaceScatterValueParams, scatter_value_check, scatter_value_kernel, sizeof(ElemPlan));
DEF(aclnnScatterAdd, kScatterAddParams, scatter_add_check, scatter_src_kernel, sizeof(ElemPlan));
DEF(aclnnScatterReduce, kScatterReduceParams, scatter_reduce_check, scatter_src_kernel, sizeof(ElemPlan));
DEF(aclnnInplaceScatterReduce, kInplaceScatterReduceParams, scatter_reduce_check, scatter_src_kernel, sizeof(ElemPlan));

ACLSTUB_DEFINE_OP(aclnnScatter, aclnnScatter_def_, (const aclTensor *, self), (int64_t, dim), (const aclTensor *, index),
                  (const aclTensor *, src), (int64_t, reduce), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceScatter, aclnnInplaceScatter_def_, (aclTensor *, selfRef), (int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, src), (int64_t, reduce))
ACLSTUB_DEFINE_OP(aclnnScatterValue, aclnnScatterValue_def_, (const aclTensor *, self), (int64_t, dim),
                  (const aclTensor *, index), (const aclScalar *, value), (int64_t, reduce), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceScatterValue, aclnnInplaceScatterValue_def_, (aclTensor *, selfRef), (int64_t, dim),
                  (const aclTensor *, index), (const aclScalar *, value), (int64_t, reduce))
ACLSTUB_DEFINE_OP(aclnnScatterAdd, aclnnScatterAdd_def_, (const aclTensor *, self), (int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, src), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnScatterReduce, aclnnScatterReduce_def_, (const aclTensor *, self), (int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, src), (int64_t, reduce), (bool, includeSelf),
                  (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceScatterReduce, aclnnInplaceScatterReduce_def_, (aclTensor *, selfRef), (int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, src), (int64_t, reduce), (bool, includeSelf))

/* ---- along one dimension with a 1-D index: index_add, index_copy, index_fill ------------------------------------- */

typedef struct {
    int64_t dim;
    aclStubScatterOp op;
    double alpha;
    bool wrap;
} DimPlan;

/* out = self with out[.., idx[j], ..] (op)= src[.., j, ..] (or the value), self/out/src seen as (outer, d, inner). */
static aclnnStatus scatter_dim_run(const aclStubOpCall *call, const aclStubTensorDesc *self,
                                   const aclStubTensorDesc *out, const aclStubTensorDesc *index, const int64_t *ints,
                                   int64_t nidx, const aclStubTensorDesc *src, const aclStubValue *value) {
    const DimPlan *plan = call->plan;
    ACLSTUB_TRY(start_from_self(call, self, out));
    int64_t d = out->ndim ? out->dims[plan->dim] : 1;
    int64_t outer = out->ndim ? aclStubDimProduct(out->dims, 0, plan->dim) : 1;
    int64_t inner = out->ndim ? aclStubDimProduct(out->dims, plan->dim + 1, out->ndim) : 1;
    const int64_t *idx = NULL;
    if (index) {
        ACLSTUB_TRY(aclStubIndexLoad(call, index, d, plan->wrap, "index", &idx));
        nidx = aclStubNumel(index);
    } else { /* an int array: checked in phase 1, wrapped here */
        int64_t *w = aclStubKernelScratch(call, (size_t)(nidx > 0 ? nidx : 1) * sizeof(int64_t));
        if (w == NULL) return aclStubKernelOutOfMemory(call);
        for (int64_t k = 0; k < nidx; k++) w[k] = ints[k] < 0 ? ints[k] + d : ints[k];
        idx = w;
    }
    aclDataType ct = compute_dtype(out->dtype, plan->op);
    aclStubTensorDesc buf, s;
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ct, true, &buf));
    unsigned char v[16];
    const void *sdata = NULL;
    if (src) {
        ACLSTUB_TRY(aclStubInputApart(call, src, ct, out, &s));
        sdata = aclStubViewBase(&s);
    } else {
        scalar_as(v, ct, value->dtype, value->scalar);
    }
    ACLSTUB_TRY(aclStubScatterBlocks(call, aclStubViewBase(&buf), sdata, v, idx, nidx, outer, d, inner, ct, plan->op,
                                     plan->alpha));
    return aclStubOutputEnd(call, out, &buf);
}

/* aclnnIndexAdd(self, dim, index, source, alpha, out) and V2 (with mode before out). */
static aclnnStatus index_add_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *source = T(3), *out = T(call->op->num_params - 1);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, INDEX_ADD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "source", source, INDEX_ADD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, INDEX_ADD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "source", source, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "source", source, MAX_DIM));
    int64_t rank = self->ndim, dim = call->v[1].i;
    if (rank == 0 ? (dim != -1 && dim != 0) : (dim < -rank || dim >= rank))
        return aclStubOpFail(call, INVALID, "dim %lld is out of range for a %lld-D self", (long long)dim, (long long)rank);
    /* a 0-D index or source counts as 1-D */
    uint32_t sr = source->ndim ? source->ndim : 1;
    int64_t one = 1;
    const int64_t *sd = source->ndim ? source->dims : &one;
    if (rank != 0 && (uint32_t)rank != sr)
        return aclStubOpFail(call, INVALID, "source must have the %lld dimensions of self", (long long)rank);
    int64_t d = dim < 0 ? dim + (rank ? rank : 1) : dim;
    for (int64_t i = 0; i < rank; i++)
        if (i != d && self->dims[i] != sd[i])
            return aclStubOpFail(call, INVALID, "source and self differ at dimension %lld", (long long)i);
    if (index->ndim > 1) return aclStubOpFail(call, INVALID, "index must have at most 1 dimension");
    int64_t n = index->ndim ? index->dims[0] : 1;
    if (n != sd[d < (int64_t)sr ? d : 0])
        return aclStubOpFail(call, INVALID, "index has %lld entries but source has %lld along dim", (long long)n,
                             (long long)sd[d < (int64_t)sr ? d : 0]);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    if (aclStubNumel(self) == 0 || aclStubNumel(source) == 0) return nothing(call);
    DimPlan *plan = call->plan;
    plan->dim = rank ? d : 0;
    plan->op = ACLSTUB_SCATTER_ADD;
    plan->alpha = aclStubOpScalarF64(call, 4);
    if (self->dtype == ACL_BOOL) plan->alpha = aclStubScalarToBool(call->v[4].dtype, call->v[4].scalar);
    return OK;
}

static aclnnStatus index_add_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *source = T(3);
    aclStubTensorDesc s = *source;
    if (s.ndim == 0) { /* a 0-D source is one row */
        s.ndim = 1;
        s.dims[0] = 1;
        s.strides[0] = 1;
    }
    return scatter_dim_run(call, T(0), T(call->op->num_params - 1), T(2), NULL, 0, &s, NULL);
}

static const aclStubParam kIndexAddParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), IN("source"),
                                               ATTR("alpha", ACLSTUB_SCALAR), OUT("out")};
static const aclStubParam kIndexAddV2Params[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), IN("source"),
                                                 ATTR("alpha", ACLSTUB_SCALAR), ATTR("mode", ACLSTUB_INT), OUT("out")};
DEF(aclnnIndexAdd, kIndexAddParams, index_add_check, index_add_kernel, sizeof(DimPlan));
DEF(aclnnIndexAddV2, kIndexAddV2Params, index_add_check, index_add_kernel, sizeof(DimPlan));
ACLSTUB_DEFINE_OP(aclnnIndexAdd, aclnnIndexAdd_def_, (const aclTensor *, self), (const int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, source), (const aclScalar *, alpha), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnIndexAddV2, aclnnIndexAddV2_def_, (const aclTensor *, self), (const int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, source), (const aclScalar *, alpha), (int64_t, mode),
                  (aclTensor *, out))

/* aclnnIndexCopy(selfRef, dim, index, source, outRef) and aclnnInplaceIndexCopy(selfRef, dim, index, source). */
static aclnnStatus index_copy_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *source = T(3), *out = written(call);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, INDEX_COPY_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "source", source, "selfRef", self));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "selfRef", self));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "source", source, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "index", index, 1));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    if (source->ndim == 0 && aclStubNumel(index) != 1)
        return aclStubOpFail(call, INVALID, "a 0-D source needs exactly one index");
    if (self->ndim != source->ndim && self->ndim != 0 && source->ndim != 0)
        return aclStubOpFail(call, INVALID, "source and self must have the same number of dimensions");
    int64_t rank = self->ndim, dim = call->v[1].i;
    if (rank == 0 ? (dim != 0 && dim != -1) : (dim < -rank || dim >= rank))
        return aclStubOpFail(call, INVALID, "dimension out of range: %lld", (long long)dim);
    int64_t d = dim < 0 ? dim + (rank ? rank : 1) : dim;
    for (int64_t i = 0; i < rank && source->ndim; i++)
        if (i != d && self->dims[i] != source->dims[i])
            return aclStubOpFail(call, INVALID, "source and self differ at dimension %lld", (long long)i);
    if (source->ndim && aclStubNumel(index) != source->dims[dim < 0 ? dim + source->ndim : dim])
        return aclStubOpFail(call, INVALID, "the index has %lld entries but source has %lld along dim",
                             (long long)aclStubNumel(index), (long long)source->dims[dim < 0 ? dim + source->ndim : dim]);
    if (self->format != out->format) return aclStubOpFail(call, INVALID, "selfRef and out formats differ");
    if (aclStubNumel(self) == 0 || aclStubNumel(index) == 0) return nothing(call);
    DimPlan *plan = call->plan;
    plan->dim = rank ? d : 0;
    plan->op = ACLSTUB_SCATTER_COPY;
    plan->alpha = 1.0;
    return OK;
}

static aclnnStatus index_copy_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = written(call);
    aclStubTensorDesc s = *T(3);
    if (s.ndim == 0 || self->ndim == 0) { /* one element per index: the source as a 1-D row of the right shape */
        s.ndim = self->ndim ? self->ndim : 1;
        for (uint32_t i = 0; i < s.ndim; i++) {
            s.dims[i] = 1;
            s.strides[i] = 1;
        }
    }
    return scatter_dim_run(call, self, out, T(2), NULL, 0, &s, NULL);
}

static const aclStubParam kIndexCopyParams[] = {INPLACE("selfRef"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                IN("source"), OUT("outRef")};
static const aclStubParam kInplaceIndexCopyParams[] = {INPLACE("selfRef"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                       IN("source")};
DEF(aclnnIndexCopy, kIndexCopyParams, index_copy_check, index_copy_kernel, sizeof(DimPlan));
DEF(aclnnInplaceIndexCopy, kInplaceIndexCopyParams, index_copy_check, index_copy_kernel, sizeof(DimPlan));
ACLSTUB_DEFINE_OP(aclnnIndexCopy, aclnnIndexCopy_def_, (aclTensor *, selfRef), (int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, source), (aclTensor *, outRef))
ACLSTUB_DEFINE_OP(aclnnInplaceIndexCopy, aclnnInplaceIndexCopy_def_, (aclTensor *, selfRef), (int64_t, dim),
                  (const aclTensor *, index), (const aclTensor *, source))

/* aclnnIndexFill (a tensor index) and aclnnIndexFillTensor (an int-array index), and their in-place variants. */
static aclnnStatus index_fill_common(aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubTensorDesc *out) {
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, INDEX_FILL_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    return OK;
}

static aclnnStatus index_fill_shape(aclStubOpCall *call, const aclStubTensorDesc *self, const aclStubTensorDesc *out,
                                    int64_t *dim) {
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t rank = self->ndim, d = *dim;
    if ((d != 0 && d >= rank) || (d < 0 && -d > rank && rank > 0) || (d < 0 && -d > 1 && rank == 0))
        return aclStubOpFail(call, INVALID, "dim %lld is out of range for a %lld-D self", (long long)d, (long long)rank);
    *dim = d >= 0 ? d : rank > 0 ? d + rank : 0;
    return OK;
}

static aclnnStatus index_fill_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *out = written(call);
    ACLSTUB_TRY(index_fill_common(call, self, out));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    DimPlan *plan = call->plan;
    if (aclStubNumel(self) == 0) return nothing(call);
    plan->dim = call->v[1].i;
    ACLSTUB_TRY(index_fill_shape(call, self, out, &plan->dim));
    if (aclStubNumel(index) == 0 && self == out) return nothing(call);
    plan->op = ACLSTUB_SCATTER_COPY;
    plan->alpha = 1.0;
    plan->wrap = true;
    return OK;
}

static aclnnStatus index_fill_kernel(const aclStubOpCall *call) {
    return scatter_dim_run(call, T(0), written(call), T(2), NULL, 0, NULL, &call->v[3]);
}

static aclnnStatus index_fill_tensor_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = written(call);
    const aclStubValue *index = &call->v[2];
    ACLSTUB_TRY(index_fill_common(call, self, out));
    DimPlan *plan = call->plan;
    if (aclStubNumel(self) == 0) return nothing(call);
    plan->dim = call->v[1].i;
    ACLSTUB_TRY(index_fill_shape(call, self, out, &plan->dim));
    int64_t size = self->ndim ? self->dims[plan->dim] : 1;
    for (uint64_t k = 0; k < index->size; k++)
        if (index->ints[k] >= size || index->ints[k] < -size)
            return aclStubOpFail(call, INVALID, "index %lld is out of range for a dimension of size %lld",
                                 (long long)index->ints[k], (long long)size);
    if (aclStubIsComplex(call->v[3].dtype)) return aclStubOpFail(call, INVALID, "value must not be complex");
    plan->op = ACLSTUB_SCATTER_COPY;
    plan->alpha = 1.0;
    return OK;
}

static aclnnStatus index_fill_tensor_kernel(const aclStubOpCall *call) {
    return scatter_dim_run(call, T(0), written(call), NULL, call->v[2].ints, (int64_t)call->v[2].size, NULL,
                           &call->v[3]);
}

static const aclStubParam kIndexFillParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                ATTR("value", ACLSTUB_SCALAR), OUT("out")};
static const aclStubParam kInplaceIndexFillParams[] = {INPLACE("selfRef"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                                       ATTR("value", ACLSTUB_SCALAR)};
static const aclStubParam kIndexFillTensorParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT),
                                                      ATTR("index", ACLSTUB_INT_ARRAY), ATTR("value", ACLSTUB_SCALAR),
                                                      OUT("out")};
static const aclStubParam kInplaceIndexFillTensorParams[] = {INPLACE("selfRef"), ATTR("dim", ACLSTUB_INT),
                                                             ATTR("index", ACLSTUB_INT_ARRAY),
                                                             ATTR("value", ACLSTUB_SCALAR)};
DEF(aclnnIndexFill, kIndexFillParams, index_fill_check, index_fill_kernel, sizeof(DimPlan));
DEF(aclnnInplaceIndexFill, kInplaceIndexFillParams, index_fill_check, index_fill_kernel, sizeof(DimPlan));
DEF(aclnnIndexFillTensor, kIndexFillTensorParams, index_fill_tensor_check, index_fill_tensor_kernel, sizeof(DimPlan));
DEF(aclnnInplaceIndexFillTensor, kInplaceIndexFillTensorParams, index_fill_tensor_check, index_fill_tensor_kernel,
    sizeof(DimPlan));
ACLSTUB_DEFINE_OP(aclnnIndexFill, aclnnIndexFill_def_, (const aclTensor *, self), (int64_t, dim),
                  (const aclTensor *, index), (const aclScalar *, value), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceIndexFill, aclnnInplaceIndexFill_def_, (aclTensor *, selfRef), (int64_t, dim),
                  (const aclTensor *, index), (const aclScalar *, value))
ACLSTUB_DEFINE_OP(aclnnIndexFillTensor, aclnnIndexFillTensor_def_, (const aclTensor *, self), (int64_t, dim),
                  (const aclIntArray *, index), (const aclScalar *, value), (aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnInplaceIndexFillTensor, aclnnInplaceIndexFillTensor_def_, (aclTensor *, selfRef),
                  (int64_t, dim), (const aclIntArray *, index), (const aclScalar *, value))

/* ---- rows selected by index tuples: ScatterNd, ScatterNdUpdate, InplacePut, TfScatterAdd --------------------------- */

typedef struct {
    aclStubScatterOp op;
    int64_t k;     /* entries per index tuple (the row dimensions of the destination) */
    bool flat;     /* InplacePut: flat indices into the whole tensor (negatives wrap) */
} NdPlan;

/* dst rows (op)= updates rows: each index tuple (k entries) selects a row of dst viewed as (rows, inner). */
static aclnnStatus scatter_nd_run(const aclStubOpCall *call, const aclStubTensorDesc *data,
                                  const aclStubTensorDesc *dst, const aclStubTensorDesc *indices,
                                  const aclStubTensorDesc *updates) {
    const NdPlan *plan = call->plan;
    ACLSTUB_TRY(start_from_self(call, data, dst));
    int64_t k = plan->k, tuples = aclStubNumel(indices) / (k > 0 ? k : 1);
    int64_t rows = plan->flat ? aclStubNumel(dst) : aclStubDimProduct(dst->dims, 0, k);
    int64_t inner = plan->flat ? 1 : aclStubDimProduct(dst->dims, k, dst->ndim);
    aclStubTensorDesc raw = *indices;
    raw.dtype = ACL_INT64;
    raw.offset = 0;
    aclStubContiguousStrides(&raw);
    raw.data = aclStubKernelScratch(call, (size_t)aclStubNumel(indices) * sizeof(int64_t));
    int64_t *flat = aclStubKernelScratch(call, (size_t)(tuples > 0 ? tuples : 1) * sizeof(int64_t));
    if (raw.data == NULL || flat == NULL) return aclStubKernelOutOfMemory(call);
    ACLSTUB_TRY(aclStubCopyView(call, &raw, indices, ACL_DT_UNDEFINED));
    const int64_t *v = raw.data;
    for (int64_t t = 0; t < tuples; t++) {
        int64_t row = 0;
        for (int64_t j = 0; j < k; j++) {
            int64_t size = plan->flat ? rows : dst->dims[j], x = v[t * k + j];
            if (plan->flat && x < 0 && x >= -size) x += size;
            if (x < 0 || x >= size)
                return aclStubIndexOutOfRange(call, "indices", v[t * k + j], t * k + j, plan->flat ? -size : 0, size);
            row = row * size + x;
        }
        flat[t] = row;
    }
    aclDataType ct = compute_dtype(dst->dtype, plan->op);
    aclStubTensorDesc buf, u;
    ACLSTUB_TRY(aclStubOutputBegin(call, dst, ct, true, &buf));
    ACLSTUB_TRY(aclStubInputApart(call, updates, ct, dst, &u));
    ACLSTUB_TRY(aclStubScatterBlocks(call, aclStubViewBase(&buf), aclStubViewBase(&u), NULL, flat, tuples, 1, rows,
                                     inner, ct, plan->op, 1.0));
    return aclStubOutputEnd(call, dst, &buf);
}

/* updates = indices.shape[:-1] + data.shape[k:] with k = indices.shape[-1]. */
static aclnnStatus nd_shapes(aclStubOpCall *call, const aclStubTensorDesc *data, const aclStubTensorDesc *indices,
                             const aclStubTensorDesc *updates) {
    int64_t k = indices->dims[indices->ndim - 1];
    if (k > (int64_t)data->ndim)
        return aclStubOpFail(call, INVALID, "the last dimension of indices (%lld) exceeds the rank of data (%u)",
                             (long long)k, data->ndim);
    if ((int64_t)data->ndim + (int64_t)indices->ndim - k - 1 != (int64_t)updates->ndim)
        return aclStubOpFail(call, INVALID, "updates must have %lld dimensions",
                             (long long)((int64_t)data->ndim + (int64_t)indices->ndim - k - 1));
    for (uint32_t i = 0; i + 1 < indices->ndim; i++)
        if (updates->dims[i] != indices->dims[i])
            return aclStubOpFail(call, INVALID, "updates and indices differ at dimension %u", i);
    for (int64_t i = 0; i < (int64_t)data->ndim - k; i++)
        if (data->dims[i + k] != updates->dims[i + indices->ndim - 1])
            return aclStubOpFail(call, INVALID, "updates and data differ at their trailing dimension %lld", (long long)i);
    return OK;
}

static aclnnStatus scatter_nd_check(aclStubOpCall *call) {
    const aclStubTensorDesc *data = T(0), *indices = T(1), *updates = T(2), *out = T(3);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "data", data, SCATTER_ND_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "updates", updates, "data", data));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "data", data));
    const aclStubTensorDesc *all[] = {data, indices, updates};
    static const char *const names[] = {"data", "indices", "updates"};
    for (int i = 0; i < 3; i++)
        if (all[i]->ndim < 1 || all[i]->ndim > MAX_DIM)
            return aclStubOpFail(call, INVALID, "argument '%s' must have 1 to 8 dimensions", names[i]);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, data->dims, data->ndim));
    ACLSTUB_TRY(nd_shapes(call, data, indices, updates));
    /* empty data, indices or updates: nothing runs (out is not written) */
    if (aclStubNumel(data) == 0 || aclStubNumel(indices) == 0 || aclStubNumel(updates) == 0) return nothing(call);
    *(NdPlan *)call->plan = (NdPlan){ACLSTUB_SCATTER_COPY, indices->dims[indices->ndim - 1], false};
    return OK;
}

static aclnnStatus scatter_nd_kernel(const aclStubOpCall *call) {
    return scatter_nd_run(call, T(0), T(3), T(1), T(2));
}

static const aclStubParam kScatterNdParams[] = {IN("data"), IN("indices"), IN("updates"), OUT("out")};
DEF(aclnnScatterNd, kScatterNdParams, scatter_nd_check, scatter_nd_kernel, sizeof(NdPlan));
ACLSTUB_DEFINE_OP(aclnnScatterNd, aclnnScatterNd_def_, (const aclTensor *, data), (const aclTensor *, indices),
                  (const aclTensor *, updates), (aclTensor *, out))

static aclnnStatus scatter_nd_update_check(aclStubOpCall *call) {
    const aclStubTensorDesc *var = T(0), *indices = T(1), *updates = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "varRef", var, SCATTER_ND_UPDATE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "updates", updates, "varRef", var));
    if (aclStubNumel(var) == 0 || aclStubNumel(indices) == 0 || aclStubNumel(updates) == 0) return nothing(call);
    if (indices->ndim < 1 || var->ndim < 1)
        return aclStubOpFail(call, INVALID, "varRef and indices must have at least 1 dimension");
    ACLSTUB_TRY(nd_shapes(call, var, indices, updates));
    *(NdPlan *)call->plan = (NdPlan){ACLSTUB_SCATTER_COPY, indices->dims[indices->ndim - 1], false};
    return OK;
}

static aclnnStatus scatter_nd_inplace_kernel(const aclStubOpCall *call) {
    return scatter_nd_run(call, T(0), T(0), T(1), T(2));
}

static const aclStubParam kScatterNdUpdateParams[] = {INPLACE("varRef"), IN("indices"), IN("updates")};
DEF(aclnnScatterNdUpdate, kScatterNdUpdateParams, scatter_nd_update_check, scatter_nd_inplace_kernel, sizeof(NdPlan));
ACLSTUB_DEFINE_OP(aclnnScatterNdUpdate, aclnnScatterNdUpdate_def_, (aclTensor *, varRef), (const aclTensor *, indices),
                  (const aclTensor *, updates))

/* aclnnTfScatterAdd: tf.scatter_add (updates = indices.shape + var.shape[1:]) or, failing that shape,
 * tf.scatter_nd_add (updates = indices.shape[:-1] + var.shape[k:]). */
static aclnnStatus tf_scatter_add_check(aclStubOpCall *call) {
    const aclStubTensorDesc *var = T(0), *indices = T(1), *updates = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "varRef", var, TF_SCATTER_ADD_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "updates", updates, "varRef", var));
    const aclStubTensorDesc *all[] = {var, indices, updates};
    static const char *const names[] = {"varRef", "indices", "updates"};
    for (int i = 0; i < 3; i++)
        if (all[i]->ndim < 1 || all[i]->ndim > MAX_DIM)
            return aclStubOpFail(call, INVALID, "argument '%s' must have 1 to 8 dimensions", names[i]);
    NdPlan *plan = call->plan;
    plan->op = ACLSTUB_SCATTER_ADD;
    bool add_shape = updates->ndim == indices->ndim + var->ndim - 1;
    for (uint32_t i = 0; add_shape && i < indices->ndim; i++) add_shape = updates->dims[i] == indices->dims[i];
    for (uint32_t i = 1; add_shape && i < var->ndim; i++) add_shape = updates->dims[i + indices->ndim - 1] == var->dims[i];
    if (add_shape) {
        if (var->dims[0] == 0 && aclStubNumel(indices) != 0)
            return aclStubOpFail(call, INVALID, "varRef has no rows to add to");
        plan->k = 1;
        plan->flat = false;
    } else {
        ACLSTUB_TRY(nd_shapes(call, var, indices, updates));
        plan->k = indices->dims[indices->ndim - 1];
    }
    if (aclStubNumel(var) == 0 || aclStubNumel(indices) == 0 || aclStubNumel(updates) == 0) return nothing(call);
    return OK;
}

static aclnnStatus tf_scatter_add_kernel(const aclStubOpCall *call) {
    const NdPlan *plan = call->plan;
    if (plan->k == 1 && T(1)->dims[T(1)->ndim - 1] != 1) { /* scatter_add: every index entry is a row */
        aclStubTensorDesc idx = *T(1);
        idx.ndim++;
        idx.dims[idx.ndim - 1] = 1;
        idx.strides[idx.ndim - 1] = 1;
        return scatter_nd_run(call, T(0), T(0), &idx, T(2));
    }
    return scatter_nd_run(call, T(0), T(0), T(1), T(2));
}

static const aclStubParam kTfScatterAddParams[] = {INPLACE("varRef"), IN("indices"), IN("updates")};
DEF(aclnnTfScatterAdd, kTfScatterAddParams, tf_scatter_add_check, tf_scatter_add_kernel, sizeof(NdPlan));
ACLSTUB_DEFINE_OP(aclnnTfScatterAdd, aclnnTfScatterAdd_def_, (aclTensor *, varRef), (const aclTensor *, indices),
                  (const aclTensor *, updates))

/* aclnnInplacePut(selfRef, index, source, accumulate): torch's put_ (flat indices, negatives wrap). */
static aclnnStatus put_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(1), *source = T(2);
    bool accumulate = call->v[3].b;
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, accumulate ? PUT_ACC_DT : PUT_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "source", source, "selfRef", self));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "selfRef", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "index", index, MAX_DIM));
    if (aclStubNumel(index) != aclStubNumel(source))
        return aclStubOpFail(call, INVALID, "source and index must have the same number of elements, %lld and %lld",
                             (long long)aclStubNumel(source), (long long)aclStubNumel(index));
    if (aclStubNumel(index) == 0) return nothing(call);
    if (aclStubNumel(self) == 0) return aclStubOpFail(call, INVALID, "an empty selfRef can not be indexed");
    *(NdPlan *)call->plan = (NdPlan){accumulate ? ACLSTUB_SCATTER_ADD : ACLSTUB_SCATTER_COPY, 1, true};
    return OK;
}

static aclnnStatus put_kernel(const aclStubOpCall *call) {
    aclStubTensorDesc idx = *T(1), src = *T(2);
    int64_t n = aclStubNumel(&idx);
    ACLSTUB_TRY(aclStubInputApart(call, T(1), ACL_DT_UNDEFINED, T(0), &idx));
    ACLSTUB_TRY(aclStubInputApart(call, T(2), ACL_DT_UNDEFINED, T(0), &src));
    aclStubViewReshape(&idx, &n, 1);
    aclStubViewReshape(&src, &n, 1);
    return scatter_nd_run(call, T(0), T(0), &idx, &src);
}

static const aclStubParam kPutParams[] = {INPLACE("selfRef"), IN("index"), IN("source"), ATTR("accumulate", ACLSTUB_BOOL)};
DEF(aclnnInplacePut, kPutParams, put_check, put_kernel, sizeof(NdPlan));
ACLSTUB_DEFINE_OP(aclnnInplacePut, aclnnInplacePut_def_, (aclTensor *, selfRef), (const aclTensor *, index),
                  (const aclTensor *, source), (bool, accumulate))
