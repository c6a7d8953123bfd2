/*
 * Selections of ops-nn index/ on the lanes engine (aclstub/op_reduce.h): aclnnTopk, aclnnKthvalue, aclnnMedian,
 * aclnnMedianDim, aclnnNanMedian, aclnnNanMedianDim.
 *
 * The order is the stable sort's (aclStubArgsortLane): NaN above every number, ties in index order. topk returns
 * its k values sorted (also when sorted is false: a valid order), kthvalue the k-th smallest. The median of n
 * values is the ((n - 1) / 2)-th smallest, NaN (with the index of the first NaN) when the lane holds one;
 * nanmedian ignores NaN (NaN only when every value is).
 */
#include <stdlib.h>

#include "aclstub/op_reduce.h"
#include "aclnnop/aclnn_kthvalue.h"
#include "aclnnop/aclnn_median.h"
#include "aclnnop/aclnn_topk.h"

#define DT ACLSTUB_DT
#define MAX_DIMS 8

typedef enum { K_TOPK, K_KTH, K_MEDIAN, K_NANMEDIAN } Kind;

typedef struct {
    Kind kind;
    int64_t k, dim;
    bool largest, keepdim, all; /* all: the whole tensor flattened (aclnnMedian, aclnnNanMedian) */
    bool with_indices;
    aclDataType type, via;
    int self, values, indices;
    int failed;
} Plan;

static aclDataType lane_type(aclDataType t) {
    return t == ACL_DOUBLE ? ACL_DOUBLE : aclStubIsFloating(t) ? ACL_FLOAT : ACL_INT64;
}

static bool is_nan(aclDataType type, const void *v, int64_t i) {
    if (type == ACL_FLOAT) return ((const float *)v)[i] != ((const float *)v)[i];
    if (type == ACL_DOUBLE) return ((const double *)v)[i] != ((const double *)v)[i];
    return false;
}

static void copy_value(aclDataType type, void *dst, int64_t j, const void *src, int64_t i) {
    size_t size = type == ACL_FLOAT ? 4 : 8;
    memcpy((char *)dst + j * (int64_t)size, (const char *)src + i * (int64_t)size, size);
}

static void lane(const void *ctx, void *const *b, const int64_t *n, int64_t index) {
    (void)index;
    Plan *p = (Plan *)(uintptr_t)ctx;
    int64_t len = n[0];
    const void *x = b[0];
    void *vals = b[1];
    int64_t *idx = p->with_indices ? b[2] : NULL;
    if (p->kind == K_TOPK) {
        int64_t k = n[1];
        int64_t stack[64], *order = idx ? idx : k <= 64 ? stack : malloc((size_t)k * sizeof *order);
        if (order == NULL || !aclStubTopkLane(x, p->type, len, k, p->largest, order)) {
            __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
            if (order != idx && order != stack) free(order);
            return;
        }
        for (int64_t j = 0; j < k; j++) copy_value(p->type, vals, j, x, order[j]);
        if (order != idx && order != stack) free(order);
        return;
    }
    int64_t rank; /* 0-based rank of the value wanted */
    int64_t first_nan = -1, count = len;
    if (p->kind == K_KTH) {
        rank = p->k - 1;
    } else {
        for (int64_t i = 0; i < len; i++)
            if (is_nan(p->type, x, i)) {
                if (first_nan < 0) first_nan = i;
                count--;
            }
        if (p->kind == K_MEDIAN && first_nan >= 0) { /* NaN, at its first index */
            copy_value(p->type, vals, 0, x, first_nan);
            if (idx) idx[0] = first_nan;
            return;
        }
        if (count == 0) { /* nanmedian of NaN only */
            copy_value(p->type, vals, 0, x, first_nan >= 0 ? first_nan : 0);
            if (idx) idx[0] = first_nan >= 0 ? first_nan : 0;
            return;
        }
        rank = (count - 1) / 2; /* NaN sorts last: the first count values are the numbers */
    }
    int64_t stack[64], *order = rank + 1 <= 64 ? stack : malloc((size_t)(rank + 1) * sizeof *order);
    if (order == NULL || !aclStubTopkLane(x, p->type, len, rank + 1, false, order)) {
        __atomic_store_n(&p->failed, 1, __ATOMIC_RELAXED);
        if (order != stack) free(order);
        return;
    }
    copy_value(p->type, vals, 0, x, order[rank]);
    if (idx) idx[0] = order[rank];
    if (order != stack) free(order);
}

static aclnnStatus kernel(const aclStubOpCall *call) {
    Plan local = *(const Plan *)call->plan;
    local.failed = 0;
    const aclStubTensorDesc *self = call->v[local.self].tensor;
    aclStubTensorDesc in = *self, out[2];
    aclStubLanes l;
    memset(&l, 0, sizeof l);
    l.num_inputs = 1;
    l.num_outputs = local.with_indices ? 2 : 1;
    if (local.all) { /* the flattened tensor as one lane (a copy when its layout is not row-major) */
        int64_t n = aclStubNumel(self);
        int64_t expect = 1;
        bool flat = true;
        for (uint32_t d = self->ndim; d-- > 0;) {
            if (self->dims[d] != 1 && self->strides[d] != expect) flat = false;
            expect *= self->dims[d];
        }
        if (!flat) {
            aclStubTensorDesc copy = *self;
            copy.offset = 0;
            copy.data = aclStubKernelScratch(call, (size_t)n * aclDataTypeSize(self->dtype));
            if (copy.data == NULL) return aclStubKernelOutOfMemory(call);
            int64_t s = 1;
            for (uint32_t d = self->ndim; d-- > 0;) {
                copy.strides[d] = s;
                s *= self->dims[d];
            }
            ACLSTUB_TRY(aclStubCopy(call, &copy, self));
            in = copy;
        }
        in.ndim = 1;
        in.dims[0] = n;
        in.strides[0] = 1;
        for (int k = 0; k < l.num_outputs; k++) {
            out[k] = *call->v[k ? local.indices : local.values].tensor;
            out[k].ndim = 1;
            out[k].dims[0] = aclStubNumel(call->v[k ? local.indices : local.values].tensor);
            out[k].strides[0] = 1;
        }
        local.dim = 0;
    } else {
        for (int k = 0; k < l.num_outputs; k++) {
            const aclStubTensorDesc *t = call->v[k ? local.indices : local.values].tensor;
            out[k] = (local.kind != K_TOPK && !local.keepdim && self->ndim > 0)
                         ? aclStubUnsqueezed(t, (uint32_t)local.dim)
                         : *t;
        }
    }
    l.tensor[0] = &in;
    l.type[0] = local.type;
    l.via[0] = local.via;
    for (int k = 0; k < l.num_outputs; k++) {
        l.tensor[1 + k] = &out[k];
        l.type[1 + k] = k ? ACL_INT64 : local.type;
        l.via[1 + k] = k ? ACL_DT_UNDEFINED : local.via;
    }
    l.dim = local.dim;
    l.fn = lane;
    l.ctx = &local;
    l.work_per_element = 8;
    ACLSTUB_TRY(aclStubLanesRun(call, &l));
    return local.failed ? aclStubKernelOutOfMemory(call) : OK;
}

static int64_t wrap(int64_t dim, uint32_t n) { return dim < 0 ? dim + (n ? (int64_t)n : 1) : dim; }

static aclnnStatus dim_in_range(aclStubOpCall *call, int64_t dim, uint32_t n) {
    int64_t rank = n ? (int64_t)n : 1;
    ACLSTUB_RETURN_ERROR_IF(dim < -rank || dim >= rank, call, ACLNN_ERR_PARAM_INVALID,
                            "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                            (long long)-rank, (long long)(rank - 1), (long long)dim);
    return OK;
}

static Plan *plan_of(aclStubOpCall *call, Kind kind, int64_t dim) {
    Plan *p = call->plan;
    const aclStubTensorDesc *self = call->v[0].tensor;
    p->kind = kind;
    p->self = 0;
    p->dim = self->ndim ? wrap(dim, self->ndim) : 0;
    p->type = lane_type(self->dtype);
    p->via = ACL_DT_UNDEFINED;
    return p;
}

/* the reduced output shape: dim removed, or kept as 1 */
static aclnnStatus reduced_shape(aclStubOpCall *call, int out, int64_t dim, bool keep) {
    const aclStubTensorDesc *self = call->v[0].tensor;
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    aclStubReduceShape(self, self->ndim ? UINT64_C(1) << wrap(dim, self->ndim) : 0, keep, shape, &nd);
    return aclStubCheckShape(call, out, shape, nd);
}

/* ---- aclnnTopk ------------------------------------------------------------------------------------------------- */

/* aclnn_topk.cpp (DAV_2201) */
#define TOPK_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS)
enum { TK_SELF, TK_K, TK_DIM, TK_LARGEST, TK_SORTED, TK_VALUES, TK_INDICES };
static aclnnStatus topk_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[TK_SELF].tensor;
    int64_t k = call->v[TK_K].i, dim = call->v[TK_DIM].i;
    ACLSTUB_TRY(dim_in_range(call, dim, self->ndim));
    int64_t len = self->ndim ? self->dims[wrap(dim, self->ndim)] : 1;
    ACLSTUB_RETURN_ERROR_IF(k < 0 || k > len, call, ACLNN_ERR_PARAM_INVALID, "Selected index k out of range (max "
                            "num of self.size(%u) is %lld, but k is %lld)", self->ndim, (long long)len, (long long)k);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, TK_SELF, TOPK_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, TK_VALUES, self->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, TK_INDICES, ACL_INT64));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, TK_SELF, MAX_DIMS));
    if (aclStubNumel(self) == 0 || aclStubNumel(call->v[TK_VALUES].tensor) == 0 ||
        aclStubNumel(call->v[TK_INDICES].tensor) == 0)
        return aclStubOpNothingToDo(call);
    int64_t shape[ACLSTUB_MAX_DIMS];
    memcpy(shape, self->dims, self->ndim * sizeof shape[0]);
    if (self->ndim) shape[wrap(dim, self->ndim)] = k;
    for (int i = TK_VALUES; i <= TK_INDICES; i++) {
        const aclStubTensorDesc *t = call->v[i].tensor;
        bool scalar_ok = self->ndim == 0 && aclStubNumel(t) == 1;
        if (!scalar_ok) ACLSTUB_TRY(aclStubCheckShape(call, i, shape, self->ndim));
    }
    Plan *p = plan_of(call, K_TOPK, dim);
    p->k = k;
    p->largest = call->v[TK_LARGEST].b;
    p->with_indices = true;
    p->values = TK_VALUES;
    p->indices = TK_INDICES;
    p->keepdim = true;
    if (self->ndim == 0) p->all = true;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnTopk, topk_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, k),
                      (int64_t, dim), (bool, largest), (bool, sorted), (aclTensor *, valuesOut),
                      (aclTensor *, indicesOut))

/* ---- aclnnKthvalue --------------------------------------------------------------------------------------------- */

/* aclnn_kthvalue.cpp (DAV_2201) */
#define KTH_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16) | ACLSTUB_DT_INTS)
enum { KV_SELF, KV_K, KV_DIM, KV_KEEP, KV_VALUES, KV_INDICES };
static aclnnStatus kthvalue_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = call->v[KV_SELF].tensor;
    int64_t k = call->v[KV_K].i, dim = call->v[KV_DIM].i;
    ACLSTUB_TRY(dim_in_range(call, dim, self->ndim));
    int64_t len = self->ndim ? self->dims[wrap(dim, self->ndim)] : 1;
    ACLSTUB_RETURN_ERROR_IF(k <= 0 || k > len, call, ACLNN_ERR_PARAM_INVALID, "Selected index k out or range (max "
                            "num of self.size(%u) is %lld, but k is %lld)", self->ndim, (long long)len, (long long)k);
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, KV_SELF, KTH_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, KV_VALUES, self->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, KV_INDICES, ACL_INT64));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, KV_SELF, MAX_DIMS));
    bool keep = call->v[KV_KEEP].b;
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call); /* before any shape rule */
    ACLSTUB_TRY(reduced_shape(call, KV_VALUES, dim, keep));
    ACLSTUB_TRY(reduced_shape(call, KV_INDICES, dim, keep));
    Plan *p = plan_of(call, K_KTH, dim);
    p->k = k;
    p->keepdim = keep;
    p->with_indices = true;
    p->values = KV_VALUES;
    p->indices = KV_INDICES;
    return OK;
}
ACLSTUB_OP_FROM_PROTO(aclnnKthvalue, kthvalue_check, kernel, sizeof(Plan), (const aclTensor *, self), (int64_t, k),
                      (int64_t, dim), (bool, keepdim), (aclTensor *, valuesOut), (aclTensor *, indicesOut))

/* ---- aclnnMedian, aclnnMedianDim, aclnnNanMedian, aclnnNanMedianDim ------------------------------------------- */

/* aclnn_median.cpp (DAV_2201) */
#define MEDIAN_DT (ACLSTUB_DT_FLOATS | ACLSTUB_DT_INTS)
static aclnnStatus median_all_check(aclStubOpCall *call, Kind kind) {
    enum { SELF, OUT };
    const aclStubTensorDesc *self = call->v[SELF].tensor;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, SELF, MEDIAN_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, OUT, MEDIAN_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, OUT, self->dtype));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, SELF, MAX_DIMS));
    ACLSTUB_TRY(aclStubCheckMaxDim(call, OUT, MAX_DIMS));
    ACLSTUB_RETURN_ERROR_IF(self->ndim && self->dtype == ACL_BF16 && self->dims[self->ndim - 1] == 1, call,
                            ACLNN_ERR_PARAM_INVALID, "a BF16 self whose last dimension is 1 is not supported");
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(call->v[OUT].tensor) != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "out must hold one element");
    Plan *p = plan_of(call, kind, 0);
    p->all = true;
    p->values = OUT;
    return OK;
}
static aclnnStatus median_check(aclStubOpCall *call) { return median_all_check(call, K_MEDIAN); }
static aclnnStatus nanmedian_check(aclStubOpCall *call) { return median_all_check(call, K_NANMEDIAN); }
ACLSTUB_OP_FROM_PROTO(aclnnMedian, median_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (aclTensor *, valuesOut))
ACLSTUB_OP_FROM_PROTO(aclnnNanMedian, nanmedian_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (aclTensor *, out))

enum { MD_SELF, MD_DIM, MD_KEEP, MD_VALUES, MD_INDICES };
static aclnnStatus median_dim_check(aclStubOpCall *call, Kind kind) {
    const aclStubTensorDesc *self = call->v[MD_SELF].tensor;
    int64_t dim = call->v[MD_DIM].i;
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MD_SELF, MEDIAN_DT));
    ACLSTUB_TRY(aclStubCheckParamDtypeIn(call, MD_VALUES, MEDIAN_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, MD_VALUES, self->dtype));
    ACLSTUB_TRY(aclStubCheckDtypeIs(call, MD_INDICES, ACL_INT64));
    int64_t rank = self->ndim;
    int64_t lo = -rank < rank - 1 ? -rank : rank - 1, hi = -rank < rank - 1 ? rank - 1 : -rank;
    ACLSTUB_RETURN_ERROR_IF(dim < lo || dim > hi, call, ACLNN_ERR_PARAM_INVALID,
                            "dim %lld must be in the range of [%lld, %lld]", (long long)dim, (long long)lo,
                            (long long)hi);
    for (int i = MD_SELF; i <= MD_INDICES; i++)
        if (i != MD_DIM && i != MD_KEEP) ACLSTUB_TRY(aclStubCheckMaxDim(call, i, MAX_DIMS));
    bool keep = call->v[MD_KEEP].b;
    uint32_t want = self->ndim == 0 ? 0 : keep ? self->ndim : self->ndim - 1;
    for (int i = MD_VALUES; i <= MD_INDICES; i++)
        ACLSTUB_RETURN_ERROR_IF(call->v[i].tensor->ndim != want, call, ACLNN_ERR_PARAM_INVALID,
                                "Expected %u dimension input, but got %s with %u", want, call->op->params[i].name,
                                call->v[i].tensor->ndim);
    ACLSTUB_RETURN_ERROR_IF(self->ndim && self->dtype == ACL_BF16 && self->dims[(dim + rank) % rank] == 1, call,
                            ACLNN_ERR_PARAM_INVALID, "a BF16 self reduced along a dimension of 1 is not supported");
    if (aclStubNumel(self) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_TRY(reduced_shape(call, MD_VALUES, dim, keep));
    ACLSTUB_TRY(reduced_shape(call, MD_INDICES, dim, keep));
    Plan *p = plan_of(call, kind, dim);
    p->keepdim = keep;
    p->with_indices = true;
    p->values = MD_VALUES;
    p->indices = MD_INDICES;
    return OK;
}
static aclnnStatus median_dim_check_(aclStubOpCall *call) { return median_dim_check(call, K_MEDIAN); }
static aclnnStatus nanmedian_dim_check(aclStubOpCall *call) { return median_dim_check(call, K_NANMEDIAN); }
ACLSTUB_OP_FROM_PROTO(aclnnMedianDim, median_dim_check_, kernel, sizeof(Plan), (const aclTensor *, self),
                      (int64_t, dim), (bool, keepDim), (aclTensor *, valuesOut), (aclTensor *, indicesOut))
ACLSTUB_OP_FROM_PROTO(aclnnNanMedianDim, nanmedian_dim_check, kernel, sizeof(Plan), (const aclTensor *, self),
                      (int64_t, dim), (bool, keepDim), (aclTensor *, valuesOut), (aclTensor *, indicesOut))
