/*
 * Gathers of ops-nn index/: GatherV2, GatherV3, IndexSelect, Take, Embedding (rows along one dimension),
 * Gather (torch.gather, element-wise along a dimension), GatherNd, and Flip (reverse_v2). The gathers run on the
 * block gather of aclstub/op_index.h over contiguous (outer, dim, inner) buffers; indices are validated first: one
 * out of range fails the kernel with ACLNN_ERR_PARAM_INVALID (what a device does with it is undefined), nothing
 * is read out of bounds.
 */
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_embedding.h"
#include "aclnnop/aclnn_flip.h"
#include "aclnnop/aclnn_gather.h"
#include "aclnnop/aclnn_gather_nd.h"
#include "aclnnop/aclnn_gather_v2.h"
#include "aclnnop/aclnn_gather_v3.h"
#include "aclnnop/aclnn_index_select.h"
#include "aclnnop/aclnn_take.h"

#define MAX_DIM 8
#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define INDEX_DT (DT(ACL_INT32) | DT(ACL_INT64))

#define GATHER_V2_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define INDEX_SELECT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)
#define TAKE_DT INDEX_SELECT_DT
#define EMBEDDING_DT GATHER_V2_DT
#define GATHER_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | ACLSTUB_DT_REALS | DT(ACL_BOOL))
#define GATHER_ND_DT (DT(ACL_FLOAT) | DT(ACL_INT32) | DT(ACL_INT64) | DT(ACL_FLOAT16) | DT(ACL_INT8) | DT(ACL_UINT8) | \
                      DT(ACL_BOOL) | DT(ACL_BF16))
#define FLIP_DT GATHER_V2_DT

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OUT(name) {name, ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

typedef struct {
    int64_t dim; /* the gathered dimension of self (0 for a 0-D self) */
} GatherPlan;

/* out = self gathered along dim by every entry of index (out: self[:dim] + index's shape + self[dim+1:]). */
static aclnnStatus gather_along(const aclStubOpCall *call, const aclStubTensorDesc *self, int64_t dim,
                                const aclStubTensorDesc *index, const aclStubTensorDesc *out, const char *what,
                                bool wrap_negative) {
    int64_t size = self->ndim ? self->dims[dim] : 1;
    const int64_t *idx;
    ACLSTUB_TRY(aclStubIndexLoad(call, index, size, wrap_negative, what, &idx));
    aclStubTensorDesc src, buf;
    ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    int64_t outer = self->ndim ? aclStubDimProduct(self->dims, 0, dim) : 1;
    int64_t inner = self->ndim ? aclStubDimProduct(self->dims, dim + 1, self->ndim) : 1;
    aclStubGatherBlocks(aclStubViewBase(&buf), aclStubViewBase(&src), idx, aclStubNumel(index), outer, size, inner,
                        aclDataTypeSize(self->dtype));
    return aclStubOutputEnd(call, out, &buf);
}

/* self[:dim] + index's shape (a 0-D index counts as [1] when `scalar_as_one`) + self[dim+1:]; a 0-D self gives
 * a 0-D result. */
static uint32_t gathered_shape(const aclStubTensorDesc *self, int64_t dim, const aclStubTensorDesc *index,
                               bool scalar_as_one, int64_t *shape) {
    if (self->ndim == 0) return 0;
    uint32_t n = 0;
    for (int64_t i = 0; i < dim; i++) shape[n++] = self->dims[i];
    if (index->ndim == 0 && scalar_as_one) shape[n++] = 1;
    for (uint32_t i = 0; i < index->ndim; i++) shape[n++] = index->dims[i];
    for (uint32_t i = (uint32_t)dim + 1; i < self->ndim; i++) shape[n++] = self->dims[i];
    return n;
}

/* dim in [-rank, rank) with a 0-D self counting as rank 1. */
static aclnnStatus wrap_gather_dim(aclStubOpCall *call, const aclStubTensorDesc *self, int64_t *dim) {
    int64_t rank = self->ndim ? self->ndim : 1, d = *dim;
    if (!aclStubWrapDim(dim, rank))
        return aclStubOpFail(call, INVALID, "dim %lld not in valid range: [%lld, %lld)", (long long)d, (long long)-rank,
                             (long long)rank);
    return OK;
}

static aclnnStatus gather_kernel(const aclStubOpCall *call) {
    /* parameters: self, dim, index, [more attributes], out (last) */
    /* GatherV2 runs the gather that takes negative indices (counted from the end); the others do not */
    const GatherPlan *plan = call->plan;
    return gather_along(call, T(0), plan->dim, T(2), T(call->op->num_params - 1), "index",
                        strcmp(call->op->name, "aclnnGatherV2") == 0);
}

/* ---- aclnnGatherV2, aclnnGatherV3 ---------------------------------------------------------------------------------- */

static aclnnStatus gather_v2_common(aclStubOpCall *call, uint64_t dtypes) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *out = T(call->op->num_params - 1);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, dtypes));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "index", index, MAX_DIM));
    int64_t dim = call->v[1].i, shape[2 * ACLSTUB_MAX_DIMS];
    ACLSTUB_TRY(wrap_gather_dim(call, self, &dim));
    uint32_t n = gathered_shape(self, dim, index, true, shape);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, n));
    ((GatherPlan *)call->plan)->dim = dim;
    return OK;
}

static aclnnStatus gather_v2_check(aclStubOpCall *call) {
    ACLSTUB_TRY(gather_v2_common(call, GATHER_V2_DT));
    if (aclStubNumel(T(0)) == 0 || aclStubNumel(T(2)) == 0) return nothing(call);
    return OK;
}

static const aclStubParam kGatherV2Params[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), OUT("out")};
static const aclStubOpDef kGatherV2 = {"aclnnGatherV2", kGatherV2Params, 4, NULL, gather_v2_check, gather_kernel,
                                       sizeof(GatherPlan)};
ACLSTUB_DEFINE_OP(aclnnGatherV2, kGatherV2, (const aclTensor *, self), (int64_t, dim), (const aclTensor *, index),
                  (aclTensor *, out))

static aclnnStatus gather_v3_check(aclStubOpCall *call) {
    ACLSTUB_TRY(gather_v2_common(call, GATHER_V2_DT));
    /* Atlas A2/A3: the only configuration the op_api accepts */
    if (call->v[1].i != 0 || call->v[3].i != 0 || call->v[4].i != 1)
        return aclStubOpFail(call, INVALID, "only dim=0, batchDims=0 and mode=1 are supported, got %lld, %lld and %lld",
                             (long long)call->v[1].i, (long long)call->v[3].i, (long long)call->v[4].i);
    if (aclStubNumel(T(0)) == 0 || aclStubNumel(T(2)) == 0) return nothing(call);
    return OK;
}

static const aclStubParam kGatherV3Params[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"),
                                               ATTR("batchDims", ACLSTUB_INT), ATTR("mode", ACLSTUB_INT), OUT("out")};
static const aclStubOpDef kGatherV3 = {"aclnnGatherV3", kGatherV3Params, 6, NULL, gather_v3_check, gather_kernel,
                                       sizeof(GatherPlan)};
ACLSTUB_DEFINE_OP(aclnnGatherV3, kGatherV3, (const aclTensor *, self), (int64_t, dim), (const aclTensor *, index),
                  (int64_t, batchDims), (int64_t, mode), (aclTensor *, out))

/* ---- aclnnIndexSelect ------------------------------------------------------------------------------------------------ */

static aclnnStatus index_select_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *out = T(3);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, INDEX_SELECT_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    if (aclStubIsPrivateFormat(self->format) || aclStubIsPrivateFormat(index->format) || aclStubIsPrivateFormat(out->format))
        return aclStubOpFail(call, INVALID, "format only supports ND, NCHW, NHWC, HWCN, NDHWC and NCDHW");
    if (self->ndim == 0 && out->ndim != 0) return aclStubOpFail(call, INVALID, "self is a scalar, so out must be one too");
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t dim = call->v[1].i;
    ACLSTUB_TRY(wrap_gather_dim(call, self, &dim));
    if (index->ndim > 1) return aclStubOpFail(call, INVALID, "index has %u dimensions; at most 1 is supported", index->ndim);
    if (aclStubNumel(self) > 0 && aclStubNumel(index) > 0 && self->ndim > 0) {
        int64_t shape[ACLSTUB_MAX_DIMS];
        memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
        shape[dim] = index->ndim ? index->dims[0] : 1;
        ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, self->ndim));
    }
    if (aclStubNumel(self) == 0 || aclStubNumel(index) == 0) return nothing(call);
    ((GatherPlan *)call->plan)->dim = dim;
    return OK;
}

static const aclStubParam kIndexSelectParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), OUT("out")};
static const aclStubOpDef kIndexSelect = {"aclnnIndexSelect", kIndexSelectParams, 4, NULL, index_select_check,
                                          gather_kernel, sizeof(GatherPlan)};
ACLSTUB_DEFINE_OP(aclnnIndexSelect, kIndexSelect, (const aclTensor *, self), (int64_t, dim), (const aclTensor *, index),
                  (aclTensor *, out))

/* ---- aclnnTake -------------------------------------------------------------------------------------------------------- */

static aclnnStatus take_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(1), *out = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, TAKE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "index", index, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, index->dims, index->ndim));
    if (aclStubNumel(self) == 0 && aclStubNumel(index) != 0)
        return aclStubOpFail(call, INVALID, "an empty self can not be indexed");
    if (aclStubIsPrivateFormat(self->format) || aclStubIsPrivateFormat(index->format) || aclStubIsPrivateFormat(out->format))
        return aclStubOpFail(call, INVALID, "private formats are not supported");
    if (aclStubNumel(self) == 0 || aclStubNumel(index) == 0) return nothing(call);
    return OK;
}

static aclnnStatus take_kernel(const aclStubOpCall *call) {
    aclStubTensorDesc flat;
    ACLSTUB_TRY(aclStubInputApart(call, T(0), ACL_DT_UNDEFINED, T(2), &flat));
    int64_t n = aclStubNumel(T(0));
    aclStubViewReshape(&flat, &n, 1);
    return gather_along(call, &flat, 0, T(1), T(2), "index", false);
}

static const aclStubParam kTakeParams[] = {IN("self"), IN("index"), OUT("out")};
static const aclStubOpDef kTake = {"aclnnTake", kTakeParams, 3, NULL, take_check, take_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnTake, kTake, (const aclTensor *, self), (const aclTensor *, index), (aclTensor *, out))

/* ---- aclnnEmbedding ---------------------------------------------------------------------------------------------------- */

static aclnnStatus embedding_check(aclStubOpCall *call) {
    const aclStubTensorDesc *weight = T(0), *indices = T(1), *out = T(2);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "weight", weight, EMBEDDING_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "weight", weight));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "weight", weight, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "indices", indices, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    if (out->ndim != indices->ndim + 1)
        return aclStubOpFail(call, INVALID, "out must have %u dimensions (indices' plus one), got %u", indices->ndim + 1,
                             out->ndim);
    for (uint32_t i = 0; i < indices->ndim; i++)
        if (out->dims[i] != indices->dims[i])
            return aclStubOpFail(call, INVALID, "the leading dimensions of out must be indices' shape");
    if (aclStubNumel(weight) == 0 || aclStubNumel(indices) == 0) return nothing(call);
    int64_t shape[2 * ACLSTUB_MAX_DIMS];
    uint32_t n = gathered_shape(weight, 0, indices, false, shape);
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, n));
    return OK;
}

static aclnnStatus embedding_kernel(const aclStubOpCall *call) {
    return gather_along(call, T(0), 0, T(1), T(2), "indices", false);
}

static const aclStubParam kEmbeddingParams[] = {IN("weight"), IN("indices"), OUT("out")};
static const aclStubOpDef kEmbedding = {"aclnnEmbedding", kEmbeddingParams, 3, NULL, embedding_check, embedding_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnEmbedding, kEmbedding, (const aclTensor *, weight), (const aclTensor *, indices),
                  (const aclTensor *, out))

/* ---- aclnnGather (torch.gather) ------------------------------------------------------------------------------------------ */

static aclnnStatus gather_elements_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *index = T(2), *out = T(3);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, GATHER_DT));
    if (aclStubNumel(index) > 0) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "index", index, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    int64_t rank = self->ndim ? self->ndim : 1, irank = index->ndim ? index->ndim : 1;
    if (rank != irank)
        return aclStubOpFail(call, INVALID, "index must have the rank of self (%lld), got %lld", (long long)rank,
                             (long long)irank);
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "index", index, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "out", out, MAX_DIM));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, index->dims, index->ndim));
    int64_t dim = call->v[1].i;
    if (!aclStubWrapDim(&dim, rank))
        return aclStubOpFail(call, INVALID, "dim %lld is out of range [%lld, %lld]", (long long)call->v[1].i,
                             (long long)-rank, (long long)rank - 1);
    if (aclStubNumel(index) == 0) return nothing(call);
    for (uint32_t i = 0; i < self->ndim; i++) {
        if ((int64_t)i != dim && index->dims[i] > self->dims[i])
            return aclStubOpFail(call, INVALID, "size does not match at dimension %u: index %lld is larger than self %lld",
                                 i, (long long)index->dims[i], (long long)self->dims[i]);
        if ((int64_t)i == dim && self->dims[i] == 0)
            return aclStubOpFail(call, INVALID, "dimension %u of self is 0 while index is not empty", i);
    }
    ((GatherPlan *)call->plan)->dim = dim;
    return OK;
}

static aclnnStatus gather_elements_kernel(const aclStubOpCall *call) {
    const GatherPlan *plan = call->plan;
    const aclStubTensorDesc *self = T(0), *index = T(2), *out = T(3);
    int64_t one = 1;
    const int64_t *sshape = self->ndim ? self->dims : &one, *ishape = index->ndim ? index->dims : &one;
    uint32_t r = self->ndim ? self->ndim : 1;
    const int64_t *idx;
    ACLSTUB_TRY(aclStubIndexLoad(call, index, sshape[plan->dim], false, "index", &idx));
    aclStubTensorDesc src, buf;
    ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    ACLSTUB_TRY(aclStubGatherElements(call, aclStubViewBase(&buf), aclStubViewBase(&src), idx, ishape, sshape, r,
                                      (uint32_t)plan->dim, aclDataTypeSize(self->dtype)));
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kGatherParams[] = {IN("self"), ATTR("dim", ACLSTUB_INT), IN("index"), OUT("out")};
static const aclStubOpDef kGather = {"aclnnGather", kGatherParams, 4, NULL, gather_elements_check,
                                     gather_elements_kernel, sizeof(GatherPlan)};
ACLSTUB_DEFINE_OP(aclnnGather, kGather, (const aclTensor *, self), (int64_t, dim), (const aclTensor *, index),
                  (aclTensor *, out))

/* ---- aclnnGatherNd -------------------------------------------------------------------------------------------------------- */

static aclnnStatus gather_nd_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *indices = T(1), *out = T(3);
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, GATHER_ND_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    if (self->ndim < 1 || self->ndim > MAX_DIM || indices->ndim < 1 || indices->ndim > MAX_DIM)
        return aclStubOpFail(call, INVALID, "self and indices must have 1 to 8 dimensions");
    int64_t k = indices->dims[indices->ndim - 1];
    if (k < 1 || k > (int64_t)self->ndim)
        return aclStubOpFail(call, INVALID, "the last dimension of indices (%lld) must be in [1, %u]", (long long)k,
                             self->ndim);
    int64_t shape[2 * ACLSTUB_MAX_DIMS];
    uint32_t n = 0;
    for (uint32_t i = 0; i + 1 < indices->ndim; i++) shape[n++] = indices->dims[i];
    for (uint32_t i = (uint32_t)k; i < self->ndim; i++) shape[n++] = self->dims[i];
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, shape, n));
    if (aclStubNumel(self) == 0 || aclStubNumel(indices) == 0) return nothing(call);
    return OK;
}

static aclnnStatus gather_nd_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *indices = T(1), *out = T(3);
    bool negative = call->v[2].b;
    int64_t k = indices->dims[indices->ndim - 1], rows = aclStubNumel(indices) / k;
    /* each index tuple becomes one row number of self viewed as (prod(dims[:k]), prod(dims[k:])) */
    aclStubTensorDesc raw = *indices;
    raw.dtype = ACL_INT64;
    raw.offset = 0;
    aclStubContiguousStrides(&raw);
    raw.data = aclStubKernelScratch(call, (size_t)aclStubNumel(indices) * sizeof(int64_t));
    int64_t *flat = aclStubKernelScratch(call, (size_t)rows * sizeof(int64_t));
    if (raw.data == NULL || flat == NULL) return aclStubKernelOutOfMemory(call);
    ACLSTUB_TRY(aclStubCopyView(call, &raw, indices, ACL_DT_UNDEFINED));
    const int64_t *v = raw.data;
    for (int64_t r = 0; r < rows; r++) {
        int64_t row = 0;
        for (int64_t j = 0; j < k; j++) {
            int64_t size = self->dims[j], x = v[r * k + j];
            if (negative && x < 0 && x >= -size) x += size;
            if (x < 0 || x >= size)
                return aclStubIndexOutOfRange(call, "indices", v[r * k + j], r * k + j, negative ? -size : 0, size);
            row = row * size + x;
        }
        flat[r] = row;
    }
    aclStubTensorDesc src, buf;
    ACLSTUB_TRY(aclStubInputApart(call, self, ACL_DT_UNDEFINED, out, &src));
    ACLSTUB_TRY(aclStubOutputBegin(call, out, ACL_DT_UNDEFINED, false, &buf));
    aclStubGatherBlocks(aclStubViewBase(&buf), aclStubViewBase(&src), flat, rows, 1,
                        aclStubDimProduct(self->dims, 0, k), aclStubDimProduct(self->dims, k, self->ndim),
                        aclDataTypeSize(self->dtype));
    return aclStubOutputEnd(call, out, &buf);
}

static const aclStubParam kGatherNdParams[] = {IN("self"), IN("indices"), ATTR("negativeIndexSupport", ACLSTUB_BOOL),
                                               OUT("out")};
static const aclStubOpDef kGatherNd = {"aclnnGatherNd", kGatherNdParams, 4, NULL, gather_nd_check, gather_nd_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnGatherNd, kGatherNd, (const aclTensor *, self), (const aclTensor *, indices),
                  (bool, negativeIndexSupport), (aclTensor *, out))

/* ---- aclnnFlip ------------------------------------------------------------------------------------------------------------ */

static aclnnStatus flip_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(0), *out = T(2);
    const aclStubValue *dims = &call->v[1];
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "out", out, "self", self));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "self", self, FLIP_DT));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "out", out, self->dims, self->ndim));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "self", self, MAX_DIM));
    int64_t rank = self->ndim ? self->ndim : 1;
    bool seen[MAX_DIM] = {false};
    for (uint64_t k = 0; k < dims->size; k++) {
        int64_t d = dims->ints[k];
        if (!aclStubWrapDim(&d, rank))
            return aclStubOpFail(call, INVALID, "dimension out of range (expected to be in range of [%lld, %lld], but "
                                 "got %lld)", (long long)-rank, (long long)rank - 1, (long long)dims->ints[k]);
        if (seen[d]) return aclStubOpFail(call, INVALID, "dim %lld appears multiple times in the list of dims", (long long)d);
        seen[d] = true;
    }
    if (aclStubNumel(self) == 0) return nothing(call);
    return OK;
}

static aclnnStatus flip_kernel(const aclStubOpCall *call) {
    const aclStubValue *dims = &call->v[1];
    aclStubTensorDesc view, src;
    ACLSTUB_TRY(aclStubInputApart(call, T(0), ACL_DT_UNDEFINED, T(2), &src));
    view = src;
    for (uint64_t k = 0; k < dims->size && view.ndim > 0; k++) {
        int64_t d = dims->ints[k];
        aclStubWrapDim(&d, view.ndim);
        aclStubViewFlip(&view, (uint32_t)d);
    }
    return aclStubCopyView(call, T(2), &view, ACL_DT_UNDEFINED);
}

static const aclStubParam kFlipParams[] = {IN("self"), ATTR("dims", ACLSTUB_INT_ARRAY), OUT("out")};
static const aclStubOpDef kFlip = {"aclnnFlip", kFlipParams, 3, NULL, flip_check, flip_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnFlip, kFlip, (const aclTensor *, self), (const aclIntArray *, dims), (aclTensor *, out))
