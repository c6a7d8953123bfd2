/*
 * ops-nn index/scatter and index/quant_update_scatter: slab updates along one axis (key/value caches):
 *
 *   aclnnInplaceScatterUpdate   data[t, .., off + k, ..] = updates[b, .., k, ..]   for k < updates.shape[axis]
 *   aclnnInplaceQuantScatter    the same with int8(rint(updates / quantScales + quantZeroPoints)) (quantised along
 *                               the last axis, in float32, saturated to int8)
 *
 * with, per batch b of updates: indices 1-D (B): t = b, off = indices[b]; 2-D (B, 2): t = indices[b][0],
 * off = indices[b][1]; 0-D (updates' batch is 1): t = 0, off = indices. The shapes the tiling requires (axis in
 * (-rank, rank) and not 0, updates' dimensions equal to data's but on axes 0 and `axis`, indices' batch equal to
 * updates') are ACLNN_ERR_INNER_TILING_ERROR in phase 1; a target outside data fails the kernel and is a check-mode
 * finding. Batches apply in increasing b, so overlapping targets end with the last (a device does not promise
 * an order). aclnnInplaceQuantScatterV2 is for Ascend 950 only: refused on Atlas A2/A3 as its op_api does.
 */
#include <math.h>
#include <stdio.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_quant_scatter.h"
#include "aclnnop/aclnn_quant_scatter_v2.h"
#include "aclnnop/aclnn_scatter_update.h"

#define DT ACLSTUB_DT
#define T(i) (call->v[i].tensor)
#define INVALID ACLNN_ERR_PARAM_INVALID
#define TILING ACLNN_ERR_INNER_TILING_ERROR
#define INDEX_DT (DT(ACL_INT32) | DT(ACL_INT64))
#define SCATTER_UPDATE_DT (DT(ACL_INT8) | DT(ACL_FLOAT16) | DT(ACL_FLOAT) | DT(ACL_BF16) | DT(ACL_INT32))

#define IN(name) {name, ACLSTUB_INPUT, 0, NULL, 0, 0, 0}
#define OPT_IN(name) {name, ACLSTUB_OPTIONAL_INPUT, 0, NULL, 0, 0, 0}
#define INPLACE(name) {name, ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}
#define ATTR(name, role) {name, role, 0, NULL, 0, 0, 0}

typedef struct {
    int64_t axis; /* wrapped */
} SlabPlan;

static aclnnStatus nothing(aclStubOpCall *call) { return aclStubOpNothingToDo(call); }

/* The tiling's shape rules shared by both operators. */
static aclnnStatus slab_shapes(aclStubOpCall *call, const aclStubTensorDesc *data, const aclStubTensorDesc *indices,
                               const aclStubTensorDesc *updates, int64_t axis, const char *upd_name) {
    int64_t rank = data->ndim;
    if (axis <= -rank || axis >= rank || axis == 0 || axis == -rank)
        return aclStubOpFail(call, TILING, "axis %lld must be in (-%lld, %lld) and not 0", (long long)axis,
                             (long long)rank, (long long)rank);
    int64_t ax = axis < 0 ? axis + rank : axis;
    for (int64_t d = 1; d < rank; d++)
        if (d != ax && updates->dims[d] != data->dims[d])
            return aclStubOpFail(call, TILING, "%s dimension %lld is %lld but data's is %lld", upd_name, (long long)d,
                                 (long long)updates->dims[d], (long long)data->dims[d]);
    if (updates->dims[ax] > data->dims[ax])
        return aclStubOpFail(call, TILING, "%s is longer on axis %lld (%lld) than data (%lld)", upd_name,
                             (long long)ax, (long long)updates->dims[ax], (long long)data->dims[ax]);
    if (updates->dims[0] > data->dims[0])
        return aclStubOpFail(call, TILING, "%s has more batches (%lld) than data (%lld)", upd_name,
                             (long long)updates->dims[0], (long long)data->dims[0]);
    if (indices->ndim >= 1 && indices->dims[0] != updates->dims[0])
        return aclStubOpFail(call, TILING, "indices has %lld rows but %s has %lld batches",
                             (long long)indices->dims[0], upd_name, (long long)updates->dims[0]);
    if (indices->ndim == 2 && indices->dims[1] != 2)
        return aclStubOpFail(call, TILING, "a 2-D indices must have 2 columns, not %lld", (long long)indices->dims[1]);
    ((SlabPlan *)call->plan)->axis = ax;
    return OK;
}

/* updates (any dtype, converted to data's by the copy) written into data batch by batch. */
static aclnnStatus slab_scatter(const aclStubOpCall *call, const aclStubTensorDesc *data,
                                const aclStubTensorDesc *indices, const aclStubTensorDesc *updates, int64_t ax) {
    const int64_t *idx; /* the values as int64, range checked below per batch */
    ACLSTUB_TRY(aclStubIndexLoad(call, indices, INT64_MAX, false, "indices", &idx));
    int64_t batches = updates->dims[0], len = updates->dims[ax];
    for (int64_t b = 0; b < batches; b++) {
        int64_t t, off, tpos = -1, opos;
        if (indices->ndim == 2) {
            t = idx[2 * b], off = idx[2 * b + 1], tpos = 2 * b, opos = 2 * b + 1;
        } else {
            t = indices->ndim == 1 ? b : 0;
            off = idx[indices->ndim == 1 ? b : 0];
            opos = indices->ndim == 1 ? b : 0;
        }
        if (tpos >= 0 && (t < 0 || t >= data->dims[0]))
            return aclStubIndexOutOfRange(call, "indices", t, tpos, 0, data->dims[0]);
        if (off < 0 || off > data->dims[ax] - len)
            return aclStubIndexOutOfRange(call, "indices", off, opos, 0, data->dims[ax] - len + 1);
        aclStubTensorDesc dst = *data, src = *updates;
        aclStubViewNarrow(&dst, 0, t, 1);
        aclStubViewNarrow(&dst, (uint32_t)ax, off, len);
        aclStubViewNarrow(&src, 0, b, 1);
        ACLSTUB_TRY(aclStubCopyView(call, &dst, &src, ACL_DT_UNDEFINED));
    }
    return OK;
}

/* ---- aclnnInplaceScatterUpdate ------------------------------------------------------------------------------ */

enum { SU_DATA, SU_INDICES, SU_UPDATES, SU_AXIS };

static aclnnStatus scatter_update_check(aclStubOpCall *call) {
    const aclStubTensorDesc *data = T(SU_DATA), *indices = T(SU_INDICES), *updates = T(SU_UPDATES);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "data", data, SCATTER_UPDATE_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "updates", updates, "data", data));
    if (aclStubNumel(data) == 0 || aclStubNumel(updates) == 0 || aclStubNumel(indices) == 0)
        return aclStubOpFail(call, INVALID, "input tensors can not be empty tensor");
    if (data->ndim != updates->ndim) return aclStubOpFail(call, INVALID, "dimension of data and updates should equal");
    if (indices->ndim == 0 && updates->dims[0] != 1)
        return aclStubOpFail(call, INVALID, "when the dimension of indices are 0, batch axis of updates should be 1");
    if (indices->ndim > 2) return aclStubOpFail(call, INVALID, "dimension of indices should be 0, 1 or 2");
    return slab_shapes(call, data, indices, updates, call->v[SU_AXIS].i, "updates");
}

static aclnnStatus scatter_update_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *data = T(SU_DATA);
    aclStubTensorDesc upd;
    ACLSTUB_TRY(aclStubInputApart(call, T(SU_UPDATES), ACL_DT_UNDEFINED, data, &upd));
    return slab_scatter(call, data, T(SU_INDICES), &upd, ((const SlabPlan *)call->plan)->axis);
}

static const aclStubParam kScatterUpdateParams[] = {INPLACE("data"), IN("indices"), IN("updates"),
                                                    ATTR("axis", ACLSTUB_INT)};
static const aclStubOpDef kScatterUpdate = {"aclnnInplaceScatterUpdate", kScatterUpdateParams, 4, NULL,
                                            scatter_update_check, scatter_update_kernel, sizeof(SlabPlan)};
ACLSTUB_DEFINE_OP(aclnnInplaceScatterUpdate, kScatterUpdate, (aclTensor *, data), (const aclTensor *, indices),
                  (const aclTensor *, updates), (int64_t, axis))

/* ---- aclnnInplaceQuantScatter ------------------------------------------------------------------------------- */

enum { QS_SELF, QS_INDICES, QS_UPDATES, QS_SCALES, QS_ZERO, QS_AXIS, QS_QUANT_AXIS, QS_REDUCTION };

static aclnnStatus quant_scatter_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(QS_SELF), *indices = T(QS_INDICES), *updates = T(QS_UPDATES),
                            *scales = T(QS_SCALES), *zero = T(QS_ZERO);
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "selfRef", self, DT(ACL_INT8)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indices", indices, INDEX_DT));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "updates", updates, DT(ACL_BF16) | DT(ACL_FLOAT16)));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "quantScales", scales, DT(ACL_BF16) | DT(ACL_FLOAT)));
    if (zero != NULL) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "quantZeroPoints", zero, DT(ACL_BF16) | DT(ACL_INT32)));
    bool f16 = updates->dtype == ACL_FLOAT16;
    if ((f16 && (scales->dtype != ACL_FLOAT || (zero != NULL && zero->dtype != ACL_INT32))) ||
        (!f16 && (scales->dtype != ACL_BF16 || (zero != NULL && zero->dtype != ACL_BF16))))
        return aclStubOpFail(call, INVALID, "(updates,quantScales%s) Dtype should be (float16, float%s) or (bfloat16, "
                             "bfloat16%s), but is (%s, %s%s%s).", zero ? ",quantZeroPoints" : "", zero ? ", int32" : "",
                             zero ? ", bfloat16" : "", aclStubDtypeName(updates->dtype), aclStubDtypeName(scales->dtype),
                             zero ? ", " : "", zero ? aclStubDtypeName(zero->dtype) : "");
    if (self->ndim != updates->ndim) return aclStubOpFail(call, INVALID, "dimension of selfRef and updates should equal");
    if (aclStubNumel(self) == 0 || aclStubNumel(indices) == 0 || aclStubNumel(updates) == 0 || aclStubNumel(scales) == 0)
        return nothing(call);
    /* the tiling's rules */
    if (indices->ndim != 1 && indices->ndim != 2)
        return aclStubOpFail(call, TILING, "indices must be 1-D or 2-D, not %u-D", indices->ndim);
    if (call->v[QS_REDUCTION].i != 1)
        return aclStubOpFail(call, TILING, "reduction %lld is not supported (1: update)", (long long)call->v[QS_REDUCTION].i);
    int64_t qa = call->v[QS_QUANT_AXIS].i;
    if (qa != -1 && qa != (int64_t)updates->ndim - 1)
        return aclStubOpFail(call, TILING, "quantAxis %lld must be -1 or %u", (long long)qa, updates->ndim - 1);
    int64_t q = updates->dims[updates->ndim - 1];
    if (aclStubNumel(scales) != q || (zero != NULL && aclStubNumel(zero) != q))
        return aclStubOpFail(call, TILING, "quantScales and quantZeroPoints must hold updates.shape[quantAxis] = %lld "
                             "elements", (long long)q);
    return slab_shapes(call, self, indices, updates, call->v[QS_AXIS].i, "updates");
}

typedef struct {
    const float *x, *scale, *zero; /* x: (rows, q) */
    int8_t *y;
    int64_t q;
} QuantCtx;

static void quant_rows(void *arg, int64_t begin, int64_t end) {
    const QuantCtx *c = arg;
    for (int64_t r = begin; r < end; r++)
        for (int64_t j = 0; j < c->q; j++) {
            float v = c->x[r * c->q + j] / c->scale[j];
            if (c->zero) v += c->zero[j];
            v = rintf(v);
            c->y[r * c->q + j] = (int8_t)(isnan(v) ? 0 : v > 127.0f ? 127 : v < -128.0f ? -128 : v);
        }
}

/* A contiguous float32 copy of t (any layout). */
static aclnnStatus as_f32(const aclStubOpCall *call, const aclStubTensorDesc *t, aclStubTensorDesc *out) {
    *out = *t;
    out->dtype = ACL_FLOAT;
    out->offset = 0;
    out->data = aclStubKernelScratch(call, (size_t)aclStubNumel(t) * sizeof(float));
    if (out->data == NULL) return aclStubKernelOutOfMemory(call);
    aclStubContiguousStrides(out);
    return aclStubCopyView(call, out, t, ACL_DT_UNDEFINED);
}

static aclnnStatus quant_scatter_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = T(QS_SELF), *updates = T(QS_UPDATES), *zero = T(QS_ZERO);
    aclStubTensorDesc x, s, z, y;
    ACLSTUB_TRY(as_f32(call, updates, &x));
    ACLSTUB_TRY(as_f32(call, T(QS_SCALES), &s));
    if (zero != NULL) ACLSTUB_TRY(as_f32(call, zero, &z));
    y = *updates;
    y.dtype = ACL_INT8;
    y.offset = 0;
    y.data = aclStubKernelScratch(call, (size_t)aclStubNumel(updates));
    if (y.data == NULL) return aclStubKernelOutOfMemory(call);
    aclStubContiguousStrides(&y);
    int64_t q = updates->dims[updates->ndim - 1];
    QuantCtx c = {x.data, s.data, zero != NULL ? z.data : NULL, y.data, q};
    aclStubParallelFor(aclStubNumel(updates) / q, 1 + 16384 / q, quant_rows, &c);
    return slab_scatter(call, self, T(QS_INDICES), &y, ((const SlabPlan *)call->plan)->axis);
}

static const aclStubParam kQuantScatterParams[] = {INPLACE("selfRef"), IN("indices"), IN("updates"),
                                                   IN("quantScales"), OPT_IN("quantZeroPoints"),
                                                   ATTR("axis", ACLSTUB_INT), ATTR("quantAxis", ACLSTUB_INT),
                                                   ATTR("reduction", ACLSTUB_INT)};
static const aclStubOpDef kQuantScatter = {"aclnnInplaceQuantScatter", kQuantScatterParams, 8, NULL,
                                           quant_scatter_check, quant_scatter_kernel, sizeof(SlabPlan)};
ACLSTUB_DEFINE_OP(aclnnInplaceQuantScatter, kQuantScatter, (aclTensor *, selfRef), (const aclTensor *, indices),
                  (const aclTensor *, updates), (const aclTensor *, quantScales),
                  (const aclTensor *, quantZeroPoints), (int64_t, axis), (int64_t, quantAxis), (int64_t, reduction))

/* ---- aclnnInplaceQuantScatterV2: Ascend 950 only ----------------------------------------------------------------- */

static aclnnStatus quant_scatter_v2_precheck(aclStubOpCall *call) {
    return aclStubOpFail(call, INVALID, "Support for nprArch 2201 is not implemented.");
}

static const aclStubParam kQuantScatterV2Params[] = {INPLACE("selfRef"), IN("indices"), IN("updates"),
                                                     IN("quantScales"), OPT_IN("quantZeroPoints"),
                                                     ATTR("axis", ACLSTUB_INT), ATTR("quantAxis", ACLSTUB_INT),
                                                     ATTR("reduction", ACLSTUB_INT), ATTR("roundMode", ACLSTUB_STRING)};
static const aclStubOpDef kQuantScatterV2 = {"aclnnInplaceQuantScatterV2", kQuantScatterV2Params, 9,
                                             quant_scatter_v2_precheck, quant_scatter_check, quant_scatter_kernel,
                                             sizeof(SlabPlan)};
ACLSTUB_DEFINE_OP(aclnnInplaceQuantScatterV2, kQuantScatterV2, (aclTensor *, selfRef), (const aclTensor *, indices),
                  (const aclTensor *, updates), (const aclTensor *, quantScales),
                  (const aclTensor *, quantZeroPoints), (int64_t, axis), (int64_t, quantAxis), (int64_t, reduction),
                  (const char *, roundMode))

/* ---- aclnnScatterList (index/scatter_list) -------------------------------------------------------------------------
 * updates (B, ..., S, ...) into the B tensors of varRef (each of updates' shape without its first dimension, but
 * for `axis`): per b (skipped where maskOptional[b] == 0), indice 1-D: var[b][.., off:off+S, ..] = updates[b];
 * indice (B, 2) = (off, len): only the first len rows along the axis. axis is counted on updates (default -2).
 * The tiling's shape rules are ACLNN_ERR_INNER_TILING_ERROR; a window past the axis fails the kernel. */
#include "aclnnop/aclnn_scatter_list.h"

#define SCATTER_LIST_DT                                                                                      \
    (DT(ACL_INT8) | DT(ACL_INT16) | DT(ACL_INT32) | DT(ACL_UINT8) | DT(ACL_UINT16) | DT(ACL_UINT32) |         \
     DT(ACL_FLOAT16) | DT(ACL_BF16) | DT(ACL_FLOAT))

enum { SL_VAR, SL_INDICE, SL_UPDATES, SL_MASK, SL_REDUCE, SL_AXIS };

static aclnnStatus scatter_list_check(aclStubOpCall *call) {
    const aclStubValue *list = &call->v[SL_VAR];
    const aclStubTensorDesc *indice = T(SL_INDICE), *updates = T(SL_UPDATES), *mask = T(SL_MASK);
    const char *reduce = call->v[SL_REDUCE].s;
    char name[48];
    for (uint64_t k = 0; k < list->size; k++) {
        const aclStubTensorDesc *v = &list->tensors[k];
        if ((int)v->dtype < 0 && v->ndim == 0 && v->data == NULL)
            return aclStubOpFail(call, ACLNN_ERR_PARAM_NULLPTR, "argument 'varRef[%llu]' is NULL", (unsigned long long)k);
        snprintf(name, sizeof name, "varRef[%llu]", (unsigned long long)k);
        ACLSTUB_TRY(aclStubCheckDtypeIn(call, name, v, SCATTER_LIST_DT));
    }
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "indice", indice, INDEX_DT));
    if (reduce != NULL && strcmp(reduce, "update") != 0)
        return aclStubOpFail(call, INVALID, "reduceOptional '%s' is not supported (only \"update\")", reduce);
    for (uint64_t k = 0; k < list->size; k++)
        if (list->tensors[k].dtype != updates->dtype)
            return aclStubOpFail(call, INVALID, "varRef[%llu] dtype %s differs from updates dtype %s",
                                 (unsigned long long)k, aclStubDtypeName(list->tensors[k].dtype),
                                 aclStubDtypeName(updates->dtype));
    if (mask != NULL) ACLSTUB_TRY(aclStubCheckDtypeIn(call, "maskOptional", mask, DT(ACL_UINT8)));
    /* the tiling's rules */
    int64_t rank = updates->ndim, axis = call->v[SL_AXIS].i;
    if (rank < 2) return aclStubOpFail(call, TILING, "updates must have at least 2 dimensions");
    if (axis < 0) axis += rank;
    if (axis < 1 || axis >= rank)
        return aclStubOpFail(call, TILING, "axis %lld is out of range for updates of %lld dimensions",
                             (long long)call->v[SL_AXIS].i, (long long)rank);
    int64_t B = updates->dims[0];
    if ((int64_t)list->size != B)
        return aclStubOpFail(call, TILING, "varRef has %llu tensors but updates has %lld batches",
                             (unsigned long long)list->size, (long long)B);
    for (uint64_t k = 0; k < list->size; k++) {
        const aclStubTensorDesc *v = &list->tensors[k];
        if ((int64_t)v->ndim != rank - 1)
            return aclStubOpFail(call, TILING, "varRef[%llu] must have %lld dimensions", (unsigned long long)k,
                                 (long long)rank - 1);
        for (int64_t d = 1; d < rank; d++)
            if (d == axis ? updates->dims[d] > v->dims[d - 1] : updates->dims[d] != v->dims[d - 1])
                return aclStubOpFail(call, TILING, "varRef[%llu] dimension %lld (%lld) does not fit updates' (%lld)",
                                     (unsigned long long)k, (long long)d - 1, (long long)v->dims[d - 1],
                                     (long long)updates->dims[d]);
    }
    if (indice->ndim < 1 || indice->ndim > 2 || indice->dims[0] != B || (indice->ndim == 2 && indice->dims[1] != 2))
        return aclStubOpFail(call, TILING, "indice must be (%lld,) or (%lld, 2)", (long long)B, (long long)B);
    if (mask != NULL && (mask->ndim != 1 || mask->dims[0] != B))
        return aclStubOpFail(call, TILING, "maskOptional must be (%lld,)", (long long)B);
    ((SlabPlan *)call->plan)->axis = axis;
    if (aclStubNumel(updates) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus scatter_list_kernel(const aclStubOpCall *call) {
    const aclStubValue *list = &call->v[SL_VAR];
    const aclStubTensorDesc *indice = T(SL_INDICE), *updates = T(SL_UPDATES), *mask = T(SL_MASK);
    int64_t ax = ((const SlabPlan *)call->plan)->axis, B = updates->dims[0], S = updates->dims[ax];
    const int64_t *idx;
    ACLSTUB_TRY(aclStubIndexLoad(call, indice, INT64_MAX, false, "indice", &idx));
    aclStubTensorDesc mk;
    if (mask != NULL) ACLSTUB_TRY(aclStubContiguousIn(call, mask, ACL_UINT8, &mk));
    for (int64_t b = 0; b < B; b++) {
        if (mask != NULL && ((const uint8_t *)aclStubViewBase(&mk))[b] == 0) continue;
        const aclStubTensorDesc *var = &list->tensors[b];
        int64_t off = indice->ndim == 2 ? idx[2 * b] : idx[b], len = indice->ndim == 2 ? idx[2 * b + 1] : S;
        int64_t room = var->dims[ax - 1];
        if (indice->ndim == 2 && len > S) return aclStubIndexOutOfRange(call, "indice", len, 2 * b + 1, 0, S + 1);
        if (off + len > room)
            return aclStubIndexOutOfRange(call, "indice", off, indice->ndim == 2 ? 2 * b : b, 0, room - len + 1);
        if (len == 0) continue;
        aclStubTensorDesc dst = *var, src = *updates;
        aclStubViewNarrow(&dst, (uint32_t)ax - 1, off, len);
        aclStubViewNarrow(&src, 0, b, 1);
        aclStubViewRemoveDim(&src, 0);
        aclStubViewNarrow(&src, (uint32_t)ax - 1, 0, len);
        aclStubTensorDesc from;
        ACLSTUB_TRY(aclStubInputApart(call, &src, ACL_DT_UNDEFINED, &dst, &from));
        ACLSTUB_TRY(aclStubCopyView(call, &dst, &from, ACL_DT_UNDEFINED));
    }
    return OK;
}

static const aclStubParam kScatterListParams[] = {
    {"varRef", ACLSTUB_OUTPUT_LIST, 0, NULL, 0, 0, 0}, IN("indice"), IN("updates"), OPT_IN("maskOptional"),
    ATTR("reduceOptional", ACLSTUB_STRING), ATTR("axis", ACLSTUB_INT)};
static const aclStubOpDef kScatterList = {"aclnnScatterList", kScatterListParams, 6, NULL, scatter_list_check,
                                          scatter_list_kernel, sizeof(SlabPlan)};
ACLSTUB_DEFINE_OP(aclnnScatterList, kScatterList, (aclTensorList *, varRef), (const aclTensor *, indice),
                  (const aclTensor *, updates), (const aclTensor *, maskOptional), (char *, reduceOptional),
                  (int64_t, axis))
