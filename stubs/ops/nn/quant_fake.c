/*
 * Fake quantisation of ops-nn quant/fake_quant_affine_cachemask: aclnnFakeQuantPerTensorAffineCachemask and
 * aclnnFakeQuantPerChannelAffineCachemask (torch's fake_quantize_per_{tensor,channel}_affine_cachemask).
 *
 * self and scale are cast to their promoted type P (FLOAT16 or FLOAT) as the op_api does; then, as the kernel does,
 * in float32: t = rint(x * (1 / scale)) + zeroPoint (the reciprocal rounded to float32 first), mask = quantMin <= t
 * <= quantMax, out = (clamp(t, quantMin, quantMax) - zeroPoint) * scale rounded once to P, then cast to out's dtype.
 * A NaN x gives a NaN out and a false mask. Per tensor, fakeQuantEnabled < 1: out = self (cast), mask all true.
 * The op_api answers a NULL tensor with ACLNN_ERR_INNER_NULLPTR (561103), not 161001.
 */
#include <math.h>
#include <string.h>

#include "aclnnop/aclnn_fake_quant_per_channel_affine_cachemask.h"
#include "aclnnop/aclnn_fake_quant_per_tensor_affine_cachemask.h"
#include "aclstub/op_sdk.h"

enum { FQ_SELF, FQ_SCALE, FQ_ZP };
typedef struct {
    int enabled, axis, qmin, qmax, out, mask; /* parameter indices; axis -1 for the per-tensor form */
} FqRow;

typedef struct {
    float qmin, qmax, enabled;
    float scale, zp; /* per tensor */
    aclDataType promote;
} FqPlan;

#define FQ_FLOATS (ACLSTUB_DT(ACL_FLOAT16) | ACLSTUB_DT(ACL_FLOAT))

static aclnnStatus fq_dtype(aclStubOpCall *call, int i, uint64_t set) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    char buf[160];
    ACLSTUB_RETURN_ERROR_IF(!(ACLSTUB_DT(t->dtype) & set), call, ACLNN_ERR_PARAM_INVALID,
                            "%s's dtype %s should be in dtype support list [%s].", aclStubOpName(call, i),
                            aclStubDtypeName(t->dtype), aclStubDtypeSetName(set, buf, sizeof buf));
    return OK;
}
static aclnnStatus fq_same_shape(aclStubOpCall *call, int i, int j) {
    const aclStubTensorDesc *a = aclStubOpTensor(call, i), *b = aclStubOpTensor(call, j);
    char x[128], y[128];
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(a->dims, a->ndim, b->dims, b->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "Shape of %s and %s should be equal, but %s is %s, %s is %s.", aclStubOpName(call, i),
                            aclStubOpName(call, j), aclStubOpName(call, i), aclStubShapeText(a->dims, a->ndim, x, sizeof x),
                            aclStubOpName(call, j), aclStubShapeText(b->dims, b->ndim, y, sizeof y));
    return OK;
}

static aclnnStatus fq_check(aclStubOpCall *call) {
    const FqRow *r = aclStubFamilyRow(call);
    static const char *const names[] = {"self", "scale", "zeroPoint"};
    for (int i = 0; i < 3; i++)
        ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(call, i) == NULL, call, ACLNN_ERR_INNER_NULLPTR, "%s is nullptr.",
                                names[i]);
    ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(call, r->out) == NULL, call, ACLNN_ERR_INNER_NULLPTR, "out is nullptr.");
    ACLSTUB_RETURN_ERROR_IF(aclStubOpTensor(call, r->mask) == NULL, call, ACLNN_ERR_INNER_NULLPTR, "mask is nullptr.");
    const aclStubTensorDesc *self = aclStubOpTensor(call, FQ_SELF), *scale = aclStubOpTensor(call, FQ_SCALE),
                            *zp = aclStubOpTensor(call, FQ_ZP), *out = aclStubOpTensor(call, r->out),
                            *mask = aclStubOpTensor(call, r->mask);
    bool per_channel = r->axis >= 0;
    ACLSTUB_TRY(fq_dtype(call, FQ_SELF, FQ_FLOATS));
    ACLSTUB_TRY(fq_dtype(call, FQ_SCALE, FQ_FLOATS));
    ACLSTUB_TRY(fq_dtype(call, FQ_ZP, per_channel ? FQ_FLOATS | ACLSTUB_DT(ACL_INT32) : ACLSTUB_DT(ACL_INT32)));
    aclDataType p = aclStubPromoteType(self->dtype, scale->dtype);
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(p, out->dtype), call, ACLNN_ERR_PARAM_INVALID,
                            "Promote dtype %s can't be cast to the desired output type %s.", aclStubDtypeName(p),
                            aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(mask->dtype != ACL_BOOL, call, ACLNN_ERR_PARAM_INVALID,
                            "mask's dtype %s should be BOOL.", aclStubDtypeName(mask->dtype));
    if (!per_channel) {
        int64_t ns = 1, nz = 1;
        for (uint32_t d = 0; d < scale->ndim; d++) ns *= scale->dims[d];
        ACLSTUB_RETURN_ERROR_IF(ns != 1, call, ACLNN_ERR_PARAM_INVALID,
                                "scale: a Tensor with %lld elements cannot be converted to Scalar", (long long)ns);
        for (uint32_t d = 0; d < zp->ndim; d++) nz *= zp->dims[d];
        ACLSTUB_RETURN_ERROR_IF(nz != 1, call, ACLNN_ERR_PARAM_INVALID,
                                "zeroPoint: a Tensor with %lld elements cannot be converted to Scalar", (long long)nz);
    } else {
        ACLSTUB_RETURN_ERROR_IF(scale->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "scale should be a 1-D tensor");
        ACLSTUB_RETURN_ERROR_IF(zp->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "zero point should be a 1-D tensor");
        ACLSTUB_RETURN_ERROR_IF(scale->dims[0] != zp->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                                "scale and zeroPoint need to have the same dimensions");
        int64_t axis = aclStubOpInt(call, r->axis), nd = self->ndim;
        ACLSTUB_RETURN_ERROR_IF(nd == 0 && axis != 0 && axis != -1, call, ACLNN_ERR_PARAM_INVALID,
                                "Dimension out of range (expected to be in range of [-1, 0], but got %lld)",
                                (long long)axis);
        ACLSTUB_RETURN_ERROR_IF(nd > 0 && (axis < -nd || axis >= nd), call, ACLNN_ERR_PARAM_INVALID,
                                "Dimension out of range (expected to be in range of [-%lld, %lld],but got %lld)",
                                (long long)nd, (long long)(nd - 1), (long long)axis);
        int64_t a = axis < 0 ? axis + (nd > 0 ? nd : 1) : axis, size = nd ? self->dims[a] : 1;
        ACLSTUB_RETURN_ERROR_IF(size != scale->dims[0] || size != zp->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                                "dimensions of scale and zero-point are not consistant with input tensor");
    }
    ACLSTUB_TRY(fq_same_shape(call, FQ_SELF, r->out));
    ACLSTUB_TRY(fq_same_shape(call, FQ_SELF, r->mask));
    ACLSTUB_RETURN_ERROR_IF(aclStubOpInt(call, r->qmin) > aclStubOpInt(call, r->qmax), call, ACLNN_ERR_PARAM_INVALID,
                            "`quantMin` should be less than or equal to `quantMax`.");
    if (aclStubNumel(self) == 0 || aclStubNumel(out) == 0 || aclStubNumel(mask) == 0) return aclStubOpNothingToDo(call);
    FqPlan *plan = call->plan;
    plan->qmin = (float)aclStubOpInt(call, r->qmin);
    plan->qmax = (float)aclStubOpInt(call, r->qmax);
    plan->enabled = r->enabled >= 0 ? (float)aclStubOpFloat(call, r->enabled) : 1.0f;
    plan->promote = p;
    return OK;
}

/* d: out, mask, self, scale, zeroPoint (float, bool, float, float, float) */
static void fq_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    const FqPlan *p = ctx;
    for (int64_t i = 0; i < n; i++) {
        float x = *(const float *)(const void *)(d[2] + i * s[2]);
        float sc = *(const float *)(const void *)(d[3] + i * s[3]), zp = *(const float *)(const void *)(d[4] + i * s[4]);
        float inv = 1.0f / sc, t = rintf(x * inv) + zp;
        bool in = t >= p->qmin && t <= p->qmax;
        float c = t < p->qmin ? p->qmin : t > p->qmax ? p->qmax : t;
        *(float *)(void *)(d[0] + i * s[0]) = x != x ? x : (c - zp) * sc;
        *(bool *)(void *)(d[1] + i * s[1]) = in;
    }
}
static void fq_copy_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    (void)ctx;
    for (int64_t i = 0; i < n; i++) {
        *(float *)(void *)(d[0] + i * s[0]) = *(const float *)(const void *)(d[2] + i * s[2]);
        *(bool *)(void *)(d[1] + i * s[1]) = true;
    }
}

static aclnnStatus fq_kernel(const aclStubOpCall *call) {
    const FqRow *r = aclStubFamilyRow(call);
    const FqPlan *p = call->plan;
    const aclStubTensorDesc *self = aclStubOpTensor(call, FQ_SELF), *scale = aclStubOpTensor(call, FQ_SCALE),
                            *zp = aclStubOpTensor(call, FQ_ZP);
    /* scale and zeroPoint as views broadcast along self's axis (per channel) or over everything (per tensor) */
    aclStubTensorDesc sv, zv;
    memset(&sv, 0, sizeof sv);
    memset(&zv, 0, sizeof zv);
    sv.dtype = scale->dtype, sv.data = scale->data, sv.offset = scale->offset, sv.format = ACL_FORMAT_ND;
    zv.dtype = zp->dtype, zv.data = zp->data, zv.offset = zp->offset, zv.format = ACL_FORMAT_ND;
    if (r->axis >= 0 && self->ndim > 0) {
        int64_t axis = aclStubOpInt(call, r->axis);
        if (axis < 0) axis += self->ndim;
        sv.ndim = zv.ndim = self->ndim;
        for (uint32_t k = 0; k < self->ndim; k++) sv.dims[k] = zv.dims[k] = 1;
        sv.dims[axis] = zv.dims[axis] = self->dims[axis];
        sv.strides[axis] = scale->strides[0];
        zv.strides[axis] = zp->strides[0];
    }
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 2;
    it.num_inputs = 3;
    const aclStubTensorDesc *ops[5] = {aclStubOpTensor(call, r->out), aclStubOpTensor(call, r->mask), self, &sv, &zv};
    for (int k = 0; k < 5; k++) {
        it.tensor[k] = ops[k];
        it.loop_dtype[k] = k == 1 ? ACL_BOOL : ACL_FLOAT;
    }
    /* self, scale and out through the promoted type (the op_api's Casts; the kernel's result rounded to it) */
    it.has_via[0] = it.has_via[2] = it.has_via[3] = true;
    it.via[0] = it.via[2] = it.via[3] = p->promote;
    return aclStubIterRun(call, &it, p->enabled < 1.0f ? fq_copy_loop : fq_loop, p);
}

static const aclStubParam kFqtParams[] = {
    {.name = "self", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "scale", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "zeroPoint", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "fakeQuantEnabled", .role = ACLSTUB_FLOAT},
    {.name = "quantMin", .role = ACLSTUB_INT},
    {.name = "quantMax", .role = ACLSTUB_INT},
    {.name = "out", .role = ACLSTUB_OPTIONAL_OUTPUT},
    {.name = "mask", .role = ACLSTUB_OPTIONAL_OUTPUT},
};
static const aclStubParam kFqcParams[] = {
    {.name = "self", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "scale", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "zeroPoint", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "axis", .role = ACLSTUB_INT},
    {.name = "quantMin", .role = ACLSTUB_INT},
    {.name = "quantMax", .role = ACLSTUB_INT},
    {.name = "out", .role = ACLSTUB_OPTIONAL_OUTPUT},
    {.name = "mask", .role = ACLSTUB_OPTIONAL_OUTPUT},
};
static const FqRow kFqtRow = {3, -1, 4, 5, 6, 7}, kFqcRow = {-1, 3, 4, 5, 6, 7};
static const aclStubFamilyOp kFqt = {{"aclnnFakeQuantPerTensorAffineCachemask", kFqtParams, ACLSTUB_LEN(kFqtParams),
                                      NULL, fq_check, fq_kernel, sizeof(FqPlan)}, &kFqtRow};
static const aclStubFamilyOp kFqc = {{"aclnnFakeQuantPerChannelAffineCachemask", kFqcParams,
                                      ACLSTUB_LEN(kFqcParams), NULL, fq_check, fq_kernel, sizeof(FqPlan)}, &kFqcRow};
ACLSTUB_DEFINE_OP(aclnnFakeQuantPerTensorAffineCachemask, kFqt.def, (const aclTensor *, self), (const aclTensor *, scale),
                  (const aclTensor *, zeroPoint), (float, fakeQuantEnabled), (int64_t, quantMin), (int64_t, quantMax),
                  (aclTensor *, out), (aclTensor *, mask))
ACLSTUB_DEFINE_OP(aclnnFakeQuantPerChannelAffineCachemask, kFqc.def, (const aclTensor *, self),
                  (const aclTensor *, scale), (const aclTensor *, zeroPoint), (int64_t, axis), (int64_t, quantMin),
                  (int64_t, quantMax), (aclTensor *, out), (aclTensor *, mask))
