/*
 * ops-math numerical health checks: aclnnPrecisionCompare (math/precision_compare) and aclnnAmpUpdateScale
 * (math/amp_update_scale, the dynamic loss scaling of mixed-precision training).
 *
 * aclnnPrecisionCompare: out (0-d UINT32) = 0 when golden and realdata hold the same bits element for element,
 * 501 otherwise (the non-zero code the vendor's test of two different tensors is named after; the documentation
 * says only "non-zero"). Bits, not values: the comparison is of a result with its reference, so -0 differs from
 * +0 and a NaN equals the same NaN.
 *
 * aclnnAmpUpdateScale (a generated API: the operator definition's dtype combinations, its tiling's rules): every
 * tensor holds one element ([1] or 0-d); in float32 (16-bit scales converted, the result rounded back):
 *   foundInf != 0 (NaN included): scale * backoffFactor, tracker 0;
 *   else tracker + 1 == growthInterval: scale * growthFactor when that is finite (else scale), tracker 0;
 *   else scale, tracker + 1.
 * growthInterval outside [1, INT32_MAX] is the tiling's ACLNN_ERR_INNER_TILING_ERROR.
 */
#include <math.h>

#include "aclstub/op_index.h"
#include "aclnnop/aclnn_amp_update_scale.h"
#include "aclnnop/aclnn_precision_compare.h"

#define DT ACLSTUB_DT
#define INVALID ACLNN_ERR_PARAM_INVALID

/* ---- aclnnPrecisionCompare ------------------------------------------------------------------------------------ */

enum { PC_GOLDEN, PC_REAL, PC_OUT };

#define PRECISION_COMPARE_MISMATCH 501u

static aclnnStatus precision_compare_check(aclStubOpCall *call) {
    const aclStubTensorDesc *g = call->v[PC_GOLDEN].tensor, *r = call->v[PC_REAL].tensor, *out = call->v[PC_OUT].tensor;
    ACLSTUB_TRY(aclStubCheckDtypeSame(call, "realdata", r, "golden", g));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "golden", g, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(aclStubCheckDtypeIn(call, "out", out, DT(ACL_UINT32)));
    ACLSTUB_TRY(aclStubCheckShapeIs(call, "realdata", r, g->dims, g->ndim));
    ACLSTUB_TRY(aclStubCheckMaxRank(call, "golden", g, 8));
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 0, call, INVALID, "Out must be scalar, but rank is %u", out->ndim);
    if (aclStubNumel(g) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus precision_compare_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *out = call->v[PC_OUT].tensor;
    aclStubTensorDesc g, r;
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[PC_GOLDEN].tensor, ACL_DT_UNDEFINED, &g));
    ACLSTUB_TRY(aclStubContiguousIn(call, call->v[PC_REAL].tensor, ACL_DT_UNDEFINED, &r));
    size_t bytes = (size_t)aclStubNumel(&g) * aclDataTypeSize(g.dtype);
    uint32_t code = memcmp(aclStubViewBase(&g), aclStubViewBase(&r), bytes) == 0 ? 0u : PRECISION_COMPARE_MISMATCH;
    memcpy(aclStubViewBase(out), &code, sizeof code);
    return OK;
}

static const aclStubParam kPrecisionCompareParams[] = {
    [PC_GOLDEN] = {"golden", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [PC_REAL] = {"realdata", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [PC_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef kPrecisionCompare = {"aclnnPrecisionCompare", kPrecisionCompareParams,
                                               ACLSTUB_LEN(kPrecisionCompareParams), NULL, precision_compare_check,
                                               precision_compare_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnPrecisionCompare, kPrecisionCompare, (const aclTensor *, golden), (const aclTensor *, realdata),
                  (aclTensor *, out))

/* ---- aclnnAmpUpdateScale ---------------------------------------------------------------------------------------- */

enum { AU_SCALE, AU_TRACKER, AU_FOUND, AU_GROWTH, AU_BACKOFF, AU_INTERVAL, AU_OUT_SCALE, AU_OUT_TRACKER };

static aclnnStatus amp_update_scale_check(aclStubOpCall *call) {
    static const int tensors[] = {AU_SCALE, AU_TRACKER, AU_FOUND, AU_OUT_SCALE, AU_OUT_TRACKER};
    int64_t interval = call->v[AU_INTERVAL].i;
    ACLSTUB_RETURN_ERROR_IF(interval < 1 || interval > INT32_MAX, call, ACLNN_ERR_INNER_TILING_ERROR,
                            "growthInterval must be in [1, %d], got %lld", INT32_MAX, (long long)interval);
    for (size_t k = 0; k < ACLSTUB_LEN(tensors); k++) {
        const aclStubTensorDesc *t = call->v[tensors[k]].tensor;
        ACLSTUB_RETURN_ERROR_IF(t->ndim > 1 || aclStubNumel(t) != 1, call,
                                k < 3 ? ACLNN_ERR_INNER_TILING_ERROR : INVALID,
                                "%s must hold one element (shape [1]), got %u dimensions",
                                aclStubOpName(call, tensors[k]), t->ndim);
    }
    return OK;
}

static aclnnStatus amp_update_scale_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *s = call->v[AU_SCALE].tensor, *f = call->v[AU_FOUND].tensor;
    float scale = aclStubLoadPtrF32(s->dtype, aclStubElemAt(s, 0));
    float found = aclStubLoadPtrF32(f->dtype, aclStubElemAt(f, 0));
    int32_t tracker = *(const int32_t *)aclStubElemAt(call->v[AU_TRACKER].tensor, 0);
    int32_t interval = (int32_t)call->v[AU_INTERVAL].i;
    if (found != 0.0f || isnan(found)) {
        scale *= (float)call->v[AU_BACKOFF].f;
        tracker = 0;
    } else if ((int32_t)((uint32_t)tracker + 1u) == interval) {
        float grown = scale * (float)call->v[AU_GROWTH].f;
        if (isfinite(grown)) scale = grown;
        tracker = 0;
    } else {
        tracker = (int32_t)((uint32_t)tracker + 1u);
    }
    const aclStubTensorDesc *os = call->v[AU_OUT_SCALE].tensor, *ot = call->v[AU_OUT_TRACKER].tensor;
    aclStubStorePtrF32(os->dtype, aclStubElemAt(os, 0), scale);
    *(int32_t *)aclStubElemAt(ot, 0) = tracker;
    return OK;
}

static const aclStubParam kAmpUpdateScaleParams[] = {
    [AU_SCALE] = {"currentScale", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, 0, 0, 0},
    [AU_TRACKER] = {"growthTracker", ACLSTUB_INPUT, DT(ACL_INT32), NULL, 0, 0, 0},
    [AU_FOUND] = {"foundInf", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, "currentScale", 0, 0, 0},
    [AU_GROWTH] = {"growthFactor", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [AU_BACKOFF] = {"backoffFactor", ACLSTUB_FLOAT, 0, NULL, 0, 0, 0},
    [AU_INTERVAL] = {"growthInterval", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [AU_OUT_SCALE] = {"updatedScale", ACLSTUB_OUTPUT, ACLSTUB_DT_FLOATS, "currentScale", ACLSTUB_ANY_LAYOUT, 0, 0},
    [AU_OUT_TRACKER] = {"updatedGrowthTracker", ACLSTUB_OUTPUT, DT(ACL_INT32), NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubOpDef kAmpUpdateScale = {"aclnnAmpUpdateScale", kAmpUpdateScaleParams,
                                             ACLSTUB_LEN(kAmpUpdateScaleParams), NULL, amp_update_scale_check,
                                             amp_update_scale_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnAmpUpdateScale, kAmpUpdateScale, (const aclTensor *, currentScale),
                  (const aclTensor *, growthTracker), (const aclTensor *, foundInf), (double, growthFactor),
                  (double, backoffFactor), (int64_t, growthInterval), (const aclTensor *, updatedScale),
                  (const aclTensor *, updatedGrowthTracker))
