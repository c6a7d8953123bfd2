/*
 * Quantisation operators of ops-nn quant/ (Atlas A2/A3 modes):
 *   aclnnTransQuantParamV2, V3: float32 scales (and offsets) packed into the UINT64/INT64 parameters of the
 *     quantised matmuls: the scale's top 19 bits (V3 roundMode 1: rounded to nearest even first, subnormals to
 *     zero), bit 46 set, the offset rounded half to even, clamped to [-256, 255], in bits 37..45; the host function
 *     aclnnTransQuantParam as its op_api packs them (all 32 bits of the scale, padded to 16 entries: see below);
 *   aclnnAscendQuant, aclnnAscendQuantV3: y = round((x * scale [* scale]) + offset) in float32 with the roundMode
 *     (round = half to even, floor, ceil, trunc), saturated to INT8 or INT4 (eight INT4 to an INT32 output);
 *   aclnnAscendAntiQuant: y = (x + offset) * scale [* scale] in float32, rounded once to FLOAT16/BF16 (INT8, INT4, or
 *     eight INT4 in an INT32 input);
 *   aclnnDynamicQuant, aclnnDynamicQuantV2: per-row dynamic quantisation as the kernel computes it: symmetric
 *     s = dtypeMax / max|x * smooth|, y = round-half-even(x * smooth * s), scaleOut = 1 / s; asymmetric (V2 with
 *     offsetOut) scale = max((max - min) / (2^bits - 1), 1e-12), offset = dtypeMax - max / scale,
 *     y = round-half-even(x * (1 / scale) + offset); per-expert smooth scales selected by groupIndex (the cumulative
 *     row counts); INT8, INT4 or packed INT32 outputs;
 *   aclnnQuantize: out = round-half-even(x / scales + zeroPoints), per tensor or along axis, saturated to INT8, UINT8
 *     or INT32;
 *   aclnnSwiGluQuant, V2: act = silu(A) * B in float32 (A the half activateLeft names), per row of the MoE groups
 *     (groupIndex cumulative, or V2 counts): dynamic y = round-half-even(act * smooth * s), s = dstMax / max|act *
 *     smooth| written to scaleOut as the kernel writes it (not its reciprocal); static y = round-half-even(act *
 *     smooth + offset); INT8 or (V2) INT4 outputs;
 *   aclnnGroupQuant: y = round-half-even(x * scale[group] + offset) per row group (groupIndex: cumulative ends in
 *     [0, rows], non-decreasing: the kernel traps otherwise, the stub fails the kernel with 161002), saturated to
 *     INT8, INT4 or INT4 packed eight to an INT32; rows past the last end are not written.
 * Results are stored through the outputs' strides; INT4 elements are two to a byte, the even one in the low half.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aclnnop/aclnn_ascend_anti_quant.h"
#include "aclnnop/aclnn_ascend_quant.h"
#include "aclnnop/aclnn_ascend_quant_v3.h"
#include "aclnnop/aclnn_dynamic_quant.h"
#include "aclnnop/aclnn_dynamic_quant_v2.h"
#include "aclnnop/aclnn_group_quant.h"
#include "aclnnop/aclnn_quantize.h"
#include "aclnnop/aclnn_swi_glu_quant.h"
#include "aclnnop/aclnn_swi_glu_quant_v2.h"
#include "aclnnop/aclnn_trans_quant_param.h"
#include "aclnnop/aclnn_trans_quant_param_v2.h"
#include "aclnnop/aclnn_trans_quant_param_v3.h"
#include "aclstub/op_sdk.h"

#define DT ACLSTUB_DT

static char shape_buf[2][160];
static const char *shp(int k, const aclStubTensorDesc *t) {
    return aclStubShapeText(t->dims, t->ndim, shape_buf[k & 1], sizeof shape_buf[0]);
}

/* ---- shared helpers -------------------------------------------------------------------------------------------- */

/* Element offset of (row r, column c) of a view read as rows of its last dimension (a 0-d view is one row of 1). */
static int64_t row_elem(const aclStubTensorDesc *t, int64_t r, int64_t c) {
    int64_t off = t->offset;
    if (t->ndim == 0) return off;
    for (int d = (int)t->ndim - 2; d >= 0; d--) {
        off += (r % t->dims[d]) * t->strides[d];
        r /= t->dims[d];
    }
    return off + c * t->strides[t->ndim - 1];
}
static int64_t last_dim(const aclStubTensorDesc *t) { return t->ndim ? t->dims[t->ndim - 1] : 1; }

static float load_f(const aclStubTensorDesc *t, int64_t e) {
    return aclStubLoadPtrF32(t->dtype, (const char *)t->data + e * (int64_t)aclDataTypeSize(t->dtype));
}

/* Integer elements of INT8, INT4 (and INT32 holding eight INT4) views: `e` counts the view's own elements; for a
 * packed INT32 view, nibble n of element e is int4 element 8 e + n. */
static int load_int4(const void *data, int64_t e) {
    uint8_t byte = ((const uint8_t *)data)[e >> 1];
    int v = (e & 1) ? byte >> 4 : byte & 15;
    return v >= 8 ? v - 16 : v;
}
static void store_int4(void *data, int64_t e, int v) {
    uint8_t *p = (uint8_t *)data + (e >> 1);
    *p = (e & 1) ? (uint8_t)((*p & 0x0f) | ((v & 15) << 4)) : (uint8_t)((*p & 0xf0) | (v & 15));
}

typedef enum { R_RINT, R_FLOOR, R_CEIL, R_TRUNC } RoundMode;

/* v rounded by the mode and saturated to [lo, hi]; NaN gives 0 (the device's float -> int32 conversion). */
static inline int64_t quantize_value(float v, RoundMode mode, int64_t lo, int64_t hi) {
    if (v != v) return 0;
    float r = mode == R_RINT ? rintf(v) : mode == R_FLOOR ? floorf(v) : mode == R_CEIL ? ceilf(v) : truncf(v);
    if (r < (float)lo) return lo;
    if (r > (float)hi) return hi;
    return (int64_t)r;
}

/* Writes quantised element j of row r of y: INT8, UINT8, plain INT32, INT4, or (packed) INT4 values eight to an INT32,
 * j counting the int4 values. */
static void store_q(const aclStubTensorDesc *y, bool packed, int64_t r, int64_t j, int64_t q) {
    switch (y->dtype) {
    case ACL_INT8: *((int8_t *)y->data + row_elem(y, r, j)) = (int8_t)q; break;
    case ACL_UINT8: *((uint8_t *)y->data + row_elem(y, r, j)) = (uint8_t)q; break;
    case ACL_INT4: store_int4(y->data, row_elem(y, r, j), (int)q); break;
    case ACL_INT32:
        if (packed)
            store_int4(y->data, row_elem(y, r, j / 8) * 8 + j % 8, (int)q);
        else
            *((int32_t *)y->data + row_elem(y, r, j)) = (int32_t)q;
        break;
    default: break;
    }
}

/* An integer input element j of row r (INT8, INT4, or INT4 packed eight to an INT32). */
static int load_q(const aclStubTensorDesc *x, int64_t r, int64_t j) {
    switch (x->dtype) {
    case ACL_INT8: return *((const int8_t *)x->data + row_elem(x, r, j));
    case ACL_INT4: return load_int4(x->data, row_elem(x, r, j));
    case ACL_INT32: return load_int4(x->data, row_elem(x, r, j / 8) * 8 + j % 8);
    default: return 0;
    }
}

static bool parse_round_mode(const char *s, RoundMode *mode) {
    static const char *const names[] = {"round", "floor", "ceil", "trunc"};
    for (int i = 0; s != NULL && i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *mode = (RoundMode)i;
            return true;
        }
    return false;
}

/* The formats op::IsPrivateFormat calls private (the 5-D and fractal layouts). */
static bool private_format(const aclStubTensorDesc *t) {
    switch (t->format) {
    case ACL_FORMAT_NC1HWC0:
    case ACL_FORMAT_FRACTAL_Z:
    case ACL_FORMAT_NC1HWC0_C04:
    case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0:
    case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32:
    case ACL_FORMAT_FRACTAL_NZ_C0_2:
    case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8: return true;
    default: return false;
    }
}

static int64_t rows_of(const aclStubTensorDesc *t) {
    int64_t n = aclStubNumel(t), l = last_dim(t);
    return l > 0 ? n / l : 0;
}

/* ---- aclnnTransQuantParam, V2, V3 ------------------------------------------------------------------------------- */

static uint64_t pack_param(float scale, bool has_offset, float offset, bool round) {
    uint32_t u;
    memcpy(&u, &scale, 4);
    uint64_t q;
    if (!round) {
        q = (u & 0xFFFFE000u) | (UINT64_C(1) << 46);
    } else {
        uint32_t sign = u >> 31, exp = (u >> 23) & 0xff, man = u & 0x7fffff, m19 = man >> 13;
        uint32_t rb = (man >> 12) & 1, sticky = man & 0xfff;
        uint32_t f19;
        if (exp == 0) {
            f19 = sign << 18;
        } else if (exp == 0xff) {
            f19 = (sign << 18) | (exp << 10) | m19;
        } else {
            if (rb && (sticky || (m19 & 1))) {
                if (++m19 >= (1u << 10)) {
                    m19 = 0;
                    exp++;
                }
            }
            f19 = (sign << 18) | ((exp > 0xff ? 0xff : exp) << 10) | (exp > 0xff ? 0 : m19);
        }
        q = ((uint64_t)f19 << 13) | (UINT64_C(1) << 46);
    }
    if (has_offset) {
        float r = offset == offset ? rintf(offset) : 0.0f;
        int o = r > 255.0f ? 255 : r < -256.0f ? -256 : (int)r;
        q = (q & UINT64_C(0x4000FFFFFFFF)) | (((uint64_t)(uint32_t)o & 0x1ff) << 37);
    }
    return q;
}

/* The host function, as its op_api writes it: max(scaleSize, offsetSize) parameters, rounded up to a multiple of 16
 * unless it is 1, zero-filled, in a malloc'ed array the caller frees; entry i < scaleSize holds scale i's 32 bits
 * with bit 46 set, entry i < offsetSize offset i (rounded half away from zero, NaN as 0) in bits 37..45; no
 * broadcasting. A missing or empty scale, an empty offset array or a size without its array is
 * ACLNN_ERR_PARAM_INVALID; then NULL outputs are ACLNN_ERR_PARAM_NULLPTR. */
ACLSTUB_EXTERN_C ACLSTUB_API aclnnStatus aclnnTransQuantParam(const float *scaleArray, uint64_t scaleSize,
                                                              const float *offsetArray, uint64_t offsetSize,
                                                              uint64_t **quantParam, uint64_t *quantParamSize) {
    if (scaleArray == NULL || scaleSize == 0 || (offsetArray != NULL ? offsetSize == 0 : offsetSize != 0))
        return ACLNN_ERR_PARAM_INVALID;
    if (quantParam == NULL || quantParamSize == NULL) return ACLNN_ERR_PARAM_NULLPTR;
    uint64_t n = offsetSize > scaleSize ? offsetSize : scaleSize;
    if (n > (uint64_t)1 << 40) return ACLNN_ERR_PARAM_INVALID;
    if (n != 1) n = (n + 15) / 16 * 16;
    uint64_t *out = calloc(n, sizeof(uint64_t));
    if (out == NULL) return ACLNN_ERR_INNER_NULLPTR;
    for (uint64_t i = 0; i < scaleSize; i++) {
        uint32_t u;
        memcpy(&u, &scaleArray[i], 4);
        out[i] = (uint64_t)u | (UINT64_C(1) << 46);
    }
    for (uint64_t i = 0; i < offsetSize; i++) {
        float r = offsetArray[i] == offsetArray[i] ? roundf(offsetArray[i]) : 0.0f;
        int o = r > 255.0f ? 255 : r < -256.0f ? -256 : (int)r;
        out[i] = (out[i] & UINT64_C(0x4000FFFFFFFF)) | (((uint64_t)(uint32_t)o & 0x1ff) << 37);
    }
    *quantParam = out;
    *quantParamSize = n;
    return OK;
}

enum { TQ_SCALE, TQ_OFFSET, TQ_OUT };
static const aclStubParam kTq2Params[] = {
    [TQ_SCALE] = {"scale", ACLSTUB_INPUT, DT(ACL_FLOAT)},
    [TQ_OFFSET] = {"offset", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT)},
    [TQ_OUT] = {"out", ACLSTUB_OUTPUT, DT(ACL_INT64) | DT(ACL_UINT64)},
};
enum { TQ3_SCALE, TQ3_OFFSET, TQ3_ROUND, TQ3_OUT };
static const aclStubParam kTq3Params[] = {
    [TQ3_SCALE] = {"scale", ACLSTUB_INPUT, DT(ACL_FLOAT)},
    [TQ3_OFFSET] = {"offset", ACLSTUB_OPTIONAL_INPUT, DT(ACL_FLOAT)},
    [TQ3_ROUND] = {"roundMode", ACLSTUB_INT},
    [TQ3_OUT] = {"out", ACLSTUB_OUTPUT, DT(ACL_INT64) | DT(ACL_UINT64)},
};

static aclnnStatus tq_check(aclStubOpCall *call) {
    bool v3 = call->op->params == kTq3Params;
    const aclStubTensorDesc *scale = aclStubOpTensor(call, 0), *offset = aclStubOpTensor(call, 1),
                            *out = aclStubOpTensor(call, v3 ? TQ3_OUT : TQ_OUT);
    if (v3) {
        int64_t rm = aclStubOpInt(call, TQ3_ROUND);
        ACLSTUB_RETURN_ERROR_IF(rm != 0 && rm != 1, call, ACLNN_ERR_PARAM_INVALID, "roundMode must be 0 or 1, got %lld",
                                (long long)rm);
    }
    ACLSTUB_RETURN_ERROR_IF(scale->ndim < 1 || scale->ndim > 2 || (offset && (offset->ndim < 1 || offset->ndim > 2)),
                            call, ACLNN_ERR_PARAM_INVALID, "scale %s and offset must be 1-D or 2-D", shp(0, scale));
    int64_t n = aclStubNumel(scale), no = offset ? aclStubNumel(offset) : 1;
    ACLSTUB_RETURN_ERROR_IF(offset && no != n && no != 1 && n != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "offset %s must have scale's size %lld or 1", shp(0, offset), (long long)n);
    int64_t want = n > no ? n : no;
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(out) != want, call, ACLNN_ERR_PARAM_INVALID,
                            "out %s must have %lld elements", shp(0, out), (long long)want);
    if (want == 0) return aclStubOpNothingToDo(call);
    return OK;
}

static aclnnStatus tq_kernel(const aclStubOpCall *call) {
    bool v3 = call->op->params == kTq3Params;
    const aclStubTensorDesc *scale = aclStubOpTensor(call, 0), *offset = aclStubOpTensor(call, 1),
                            *out = aclStubOpTensor(call, v3 ? TQ3_OUT : TQ_OUT);
    bool round = v3 && aclStubOpInt(call, TQ3_ROUND) == 1;
    int64_t n = aclStubNumel(out), ns = aclStubNumel(scale), no = offset ? aclStubNumel(offset) : 0;
    for (int64_t i = 0; i < n; i++) {
        float sc = *(const float *)aclStubElemAt(scale, ns == 1 ? 0 : i);
        float of = offset ? *(const float *)aclStubElemAt(offset, no == 1 ? 0 : i) : 0.0f;
        uint64_t q = pack_param(sc, offset != NULL, of, round);
        memcpy(aclStubElemAt(out, i), &q, 8);
    }
    return OK;
}

static const aclStubOpDef kTq2 = {"aclnnTransQuantParamV2", kTq2Params, 3, NULL, tq_check, tq_kernel, 0};
static const aclStubOpDef kTq3 = {"aclnnTransQuantParamV3", kTq3Params, 4, NULL, tq_check, tq_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnTransQuantParamV2, kTq2, (const aclTensor *, scale), (const aclTensor *, offset),
                  (const aclTensor *, out))
ACLSTUB_DEFINE_OP(aclnnTransQuantParamV3, kTq3, (const aclTensor *, scale), (const aclTensor *, offset),
                  (int64_t, roundMode), (const aclTensor *, out))

/* ---- aclnnAscendQuant, aclnnAscendQuantV3 --------------------------------------------------------------------------- */

#define AQ_X_DT (DT(ACL_FLOAT) | DT(ACL_FLOAT16) | DT(ACL_BF16))
#define AQ_Y_DT (DT(ACL_INT8) | DT(ACL_INT32) | DT(ACL_INT4))
enum { AQ_X, AQ_SCALE, AQ_OFFSET, AQ_SQRT, AQ_ROUND, AQ_DST, AQ_AXIS, AQ_Y };
static const aclStubParam kAqParams[] = {
    {.name = "x", .role = ACLSTUB_INPUT},
    {.name = "scale", .role = ACLSTUB_INPUT},
    {.name = "offset", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "sqrtMode", .role = ACLSTUB_BOOL},
    {.name = "roundMode", .role = ACLSTUB_STRING},
    {.name = "dstType", .role = ACLSTUB_INT},
    {.name = "y", .role = ACLSTUB_OUTPUT, .flags = ACLSTUB_ANY_LAYOUT},
};
static const aclStubParam kAq3Params[] = {
    {.name = "x", .role = ACLSTUB_INPUT},
    {.name = "scale", .role = ACLSTUB_INPUT},
    {.name = "offset", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "sqrtMode", .role = ACLSTUB_BOOL},
    {.name = "roundMode", .role = ACLSTUB_STRING},
    {.name = "dstType", .role = ACLSTUB_INT},
    {.name = "axis", .role = ACLSTUB_INT},
    {.name = "y", .role = ACLSTUB_OUTPUT, .flags = ACLSTUB_ANY_LAYOUT},
};

typedef struct {
    int y, axis; /* parameter indices (axis -1: V1, the last dim) */
} AqRow;
static const AqRow kAqRow = {6, -1}, kAq3Row = {7, 6};

static char dt_buf[256];
static aclnnStatus dtype_in(aclStubOpCall *call, int i, uint64_t set) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    if (t == NULL || ((unsigned)t->dtype < 64 && (set & DT(t->dtype)))) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                         aclStubOpName(call, i), aclStubDtypeName(t->dtype),
                         aclStubDtypeSetName(set, dt_buf, sizeof dt_buf));
}

static aclnnStatus aq_check(aclStubOpCall *call) {
    const AqRow *row = aclStubFamilyRow(call);
    const aclStubTensorDesc *x = aclStubOpTensor(call, AQ_X), *scale = aclStubOpTensor(call, AQ_SCALE),
                            *offset = aclStubOpTensor(call, AQ_OFFSET), *y = aclStubOpTensor(call, row->y);
    int64_t dst = aclStubOpInt(call, AQ_DST);
    int64_t axis = row->axis >= 0 ? (int64_t)(int32_t)aclStubOpInt(call, row->axis) : -1;
    ACLSTUB_RETURN_ERROR_IF(x->ndim == 0, call, ACLNN_ERR_PARAM_INVALID, "input x not support scalar.");
    ACLSTUB_TRY(dtype_in(call, AQ_X, AQ_X_DT));
    ACLSTUB_TRY(dtype_in(call, row->y, AQ_Y_DT));
    ACLSTUB_TRY(dtype_in(call, AQ_SCALE, AQ_X_DT));
    ACLSTUB_TRY(dtype_in(call, AQ_OFFSET, AQ_X_DT));
    ACLSTUB_RETURN_ERROR_IF(offset && offset->dtype != scale->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "offset's dtype %s must be scale's %s", aclStubDtypeName(offset->dtype),
                            aclStubDtypeName(scale->dtype));
    ACLSTUB_RETURN_ERROR_IF(x->dtype != ACL_FLOAT && scale->dtype != x->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "dtype of input x:%s is not compatible with scale:%s.", aclStubDtypeName(x->dtype),
                            aclStubDtypeName(scale->dtype));
    ACLSTUB_RETURN_ERROR_IF((int64_t)y->dtype != dst, call, ACLNN_ERR_PARAM_INVALID,
                            "dstType:%lld must be able to represent the y dtype[%s].", (long long)dst,
                            aclStubDtypeName(y->dtype));
    int64_t nd = x->ndim;
    if (row->axis >= 0) {
        ACLSTUB_RETURN_ERROR_IF(axis >= nd || axis < -nd, call, ACLNN_ERR_PARAM_INVALID,
                                "invalid axis: %lld, axis can't exceed the dimension of x: %lld", (long long)axis,
                                (long long)nd);
        ACLSTUB_RETURN_ERROR_IF(nd > 2 && (axis < -2 || (axis >= 0 && axis < nd - 2)), call, ACLNN_ERR_PARAM_INVALID,
                                "invalid axis: %lld, axis must be one of last two dimensions of x", (long long)axis);
    }
    if (y->dtype != ACL_INT32) {
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim), call, ACLNN_ERR_PARAM_INVALID,
                                "y's shape %s must be x's %s", shp(0, y), shp(1, x));
    } else {
        bool ok = y->ndim == x->ndim && x->dims[nd - 1] == y->dims[nd - 1] * 8;
        for (int64_t d = 0; ok && d < nd - 1; d++) ok = x->dims[d] == y->dims[d];
        ACLSTUB_RETURN_ERROR_IF(!ok, call, ACLNN_ERR_PARAM_INVALID,
                                "if y dtype is int32, y %s must be x %s with the last dim 1/8", shp(0, y), shp(1, x));
        ACLSTUB_RETURN_ERROR_IF(y->strides[nd - 1] != 1 && y->dims[nd - 1] > 1, call, ACLNN_ERR_PARAM_INVALID,
                                "a packed INT32 y must have a unit last stride");
    }
    ACLSTUB_RETURN_ERROR_IF(y->dtype == ACL_INT4 && x->dims[nd - 1] % 2 != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "if y dtype is int4, x last dim must be divisible by 2, last dim is (%lld).",
                            (long long)x->dims[nd - 1]);
    ACLSTUB_RETURN_ERROR_IF(nd > 8, call, ACLNN_ERR_PARAM_INVALID, "x must have at most 8 dimensions");
    if (offset)
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(scale->dims, scale->ndim, offset->dims, offset->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "offset %s must have scale's shape %s", shp(0, offset),
                                shp(1, scale));
    ACLSTUB_RETURN_ERROR_IF(scale->ndim == 0, call, ACLNN_ERR_PARAM_INVALID, "scale and offset not support scalar.");
    ACLSTUB_RETURN_ERROR_IF(scale->ndim != 1 && (int64_t)scale->ndim != nd, call, ACLNN_ERR_PARAM_INVALID,
                            "scale dimNum must be same as x dimNum or 1.");
    int64_t xa = axis >= 0 ? axis : nd + axis, sa = scale->ndim == 1 ? 0 : xa;
    ACLSTUB_RETURN_ERROR_IF(scale->dims[sa] != x->dims[xa] && scale->dims[sa] != 1, call, ACLNN_ERR_PARAM_INVALID,
                            "scale dim(%lld)'s value(%lld) is invalid, should be same as x dim(%lld)'s value(%lld) or 1",
                            (long long)sa, (long long)scale->dims[sa], (long long)xa, (long long)x->dims[xa]);
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(scale) != scale->dims[sa], call, ACLNN_ERR_PARAM_INVALID,
                            "If scale is not 1-dimensional tensor, all dimensions except the dimension specified by "
                            "axis should be 1");
    RoundMode mode;
    ACLSTUB_RETURN_ERROR_IF(!parse_round_mode(call->v[AQ_ROUND].s, &mode), call, ACLNN_ERR_PARAM_INVALID,
                            "check roundMode failed, roundMode[%s] not in ['round','floor','ceil','trunc'] for "
                            "int8/int4/int32.",
                            call->v[AQ_ROUND].s ? call->v[AQ_ROUND].s : "(null)");
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const aclStubTensorDesc *x, *scale, *offset, *y;
    int64_t xa; /* the axis the scale follows */
    bool sqrt, packed;
    RoundMode mode;
    int64_t lo, hi;
} AqJob;

/* v as a value of the 16-bit (or float32) dtype t. */
static float round_to(aclDataType t, float v) {
    if (t == ACL_FLOAT16) return aclStubF16ToF32(aclStubF32ToF16(v));
    if (t == ACL_BF16) return aclStubBf16ToF32(aclStubF32ToBf16(v));
    return v;
}

/* The parameter (scale or offset) for x's element (row r, column c): along the axis, or one value. */
static float param_for(const aclStubTensorDesc *x, int64_t xa, const aclStubTensorDesc *p, int64_t r, int64_t c) {
    int64_t idx = 0;
    if (aclStubNumel(p) != 1) idx = xa == (int64_t)x->ndim - 1 ? c : r % x->dims[xa];
    return aclStubLoadPtrF32(p->dtype, aclStubElemAt(p, idx));
}

static void aq_rows(void *ctx, int64_t begin, int64_t end) {
    const AqJob *j = ctx;
    int64_t n = last_dim(j->x);
    for (int64_t r = begin; r < end; r++) {
        for (int64_t c = 0; c < n; c++) {
            float x = load_f(j->x, row_elem(j->x, r, c));
            /* scale and offset cast to x's dtype first, as the op_api does; the kernel computes in float32 */
            float s = round_to(j->x->dtype, param_for(j->x, j->xa, j->scale, r, c));
            float v = x * s;
            if (j->sqrt) v = v * s;
            if (j->offset) v = v + round_to(j->x->dtype, param_for(j->x, j->xa, j->offset, r, c));
            store_q(j->y, j->packed, r, c, quantize_value(v, j->mode, j->lo, j->hi));
        }
    }
}

static aclnnStatus aq_kernel(const aclStubOpCall *call) {
    const AqRow *row = aclStubFamilyRow(call);
    AqJob j;
    j.x = aclStubOpTensor(call, AQ_X);
    j.scale = aclStubOpTensor(call, AQ_SCALE);
    j.offset = aclStubOpTensor(call, AQ_OFFSET);
    j.y = aclStubOpTensor(call, row->y);
    int64_t axis = row->axis >= 0 ? (int64_t)(int32_t)aclStubOpInt(call, row->axis) : -1;
    j.xa = axis >= 0 ? axis : (int64_t)j.x->ndim + axis;
    j.sqrt = aclStubOpBool(call, AQ_SQRT);
    j.packed = true;
    parse_round_mode(call->v[AQ_ROUND].s, &j.mode);
    bool int4 = j.y->dtype != ACL_INT8;
    j.lo = int4 ? -8 : -128, j.hi = int4 ? 7 : 127;
    aclStubParallelFor(rows_of(j.x), 16, aq_rows, &j);
    return OK;
}

static const aclStubFamilyOp kAq = {{"aclnnAscendQuant", kAqParams, ACLSTUB_LEN(kAqParams), NULL, aq_check, aq_kernel, 0},
                                    &kAqRow};
static const aclStubFamilyOp kAq3 = {
    {"aclnnAscendQuantV3", kAq3Params, ACLSTUB_LEN(kAq3Params), NULL, aq_check, aq_kernel, 0}, &kAq3Row};
ACLSTUB_DEFINE_OP(aclnnAscendQuant, kAq.def, (const aclTensor *, x), (const aclTensor *, scale),
                  (const aclTensor *, offset), (bool, sqrtMode), (const char *, roundMode), (int32_t, dstType),
                  (const aclTensor *, y))
ACLSTUB_DEFINE_OP(aclnnAscendQuantV3, kAq3.def, (const aclTensor *, x), (const aclTensor *, scale),
                  (const aclTensor *, offset), (bool, sqrtMode), (const char *, roundMode), (int32_t, dstType),
                  (int32_t, axis), (const aclTensor *, y))

/* ---- aclnnAscendAntiQuant ------------------------------------------------------------------------------------------ */

enum { AA_X, AA_SCALE, AA_OFFSET, AA_DST, AA_SQRT, AA_Y };
static const aclStubParam kAaParams[] = {
    [AA_X] = {"x", ACLSTUB_INPUT, DT(ACL_INT4) | DT(ACL_INT8) | DT(ACL_INT32)},
    [AA_SCALE] = {"scale", ACLSTUB_INPUT, 0},
    [AA_OFFSET] = {"offset", ACLSTUB_OPTIONAL_INPUT, 0},
    [AA_DST] = {"dstType", ACLSTUB_INT},
    [AA_SQRT] = {"sqrtMode", ACLSTUB_BOOL},
    [AA_Y] = {"y", ACLSTUB_OUTPUT, DT(ACL_FLOAT16) | DT(ACL_BF16), NULL, ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus aa_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, AA_X), *scale = aclStubOpTensor(call, AA_SCALE),
                            *offset = aclStubOpTensor(call, AA_OFFSET), *y = aclStubOpTensor(call, AA_Y);
    ACLSTUB_TRY(dtype_in(call, AA_SCALE, DT(ACL_FLOAT) | DT(ACL_BF16)));
    ACLSTUB_TRY(dtype_in(call, AA_OFFSET, DT(ACL_FLOAT) | DT(ACL_BF16)));
    ACLSTUB_RETURN_ERROR_IF(offset && offset->dtype != scale->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "offset's dtype %s must be scale's %s", aclStubDtypeName(offset->dtype),
                            aclStubDtypeName(scale->dtype));
    ACLSTUB_RETURN_ERROR_IF((int64_t)y->dtype != aclStubOpInt(call, AA_DST), call, ACLNN_ERR_PARAM_INVALID,
                            "out(y) data type must be the same as dstType.");
    ACLSTUB_RETURN_ERROR_IF(aclStubNumel(scale) == 0, call, ACLNN_ERR_PARAM_INVALID, "scale cannot be an empty tensor.");
    int64_t nd = x->ndim;
    if (x->dtype == ACL_INT32) {
        bool ok = nd == 0 ? (y->ndim == 1 && y->dims[0] == 8)
                          : (y->ndim == x->ndim && y->dims[nd - 1] == x->dims[nd - 1] * 8);
        for (int64_t d = 0; ok && d < nd - 1; d++) ok = x->dims[d] == y->dims[d];
        ACLSTUB_RETURN_ERROR_IF(!ok, call, ACLNN_ERR_PARAM_INVALID,
                                "x dtype is int32: y %s must be x %s with a last dim 8 times as large", shp(0, y),
                                shp(1, x));
        ACLSTUB_RETURN_ERROR_IF(nd > 0 && x->strides[nd - 1] != 1 && x->dims[nd - 1] > 1, call,
                                ACLNN_ERR_PARAM_INVALID, "a packed INT32 x must have a unit last stride");
    } else {
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims, x->ndim, y->dims, y->ndim), call, ACLNN_ERR_PARAM_INVALID,
                                "y's shape %s must be x's %s", shp(0, y), shp(1, x));
        ACLSTUB_RETURN_ERROR_IF(x->dtype == ACL_INT4 && (nd == 0 || x->dims[nd - 1] % 2 != 0), call,
                                ACLNN_ERR_PARAM_INVALID, "x dtype is int4, the size of last dim must be an even number.");
    }
    ACLSTUB_RETURN_ERROR_IF(nd > 8, call, ACLNN_ERR_PARAM_INVALID, "x must have at most 8 dimensions");
    ACLSTUB_RETURN_ERROR_IF(scale->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "scale dim num must be 1. scale:%u",
                            scale->ndim);
    if (offset)
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(scale->dims, scale->ndim, offset->dims, offset->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "offset %s must have scale's shape", shp(0, offset));
    int64_t last = y->ndim ? y->dims[y->ndim - 1] : 1;
    ACLSTUB_RETURN_ERROR_IF(scale->dims[0] != 1 && scale->dims[0] != last, call, ACLNN_ERR_PARAM_INVALID,
                            "the last dim size(%lld) of out(y) must be same as scale and offset(%lld).",
                            (long long)last, (long long)scale->dims[0]);
    if (aclStubNumel(y) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const aclStubTensorDesc *x, *scale, *offset, *y;
    bool sqrt;
} AaJob;

static void aa_rows(void *ctx, int64_t begin, int64_t end) {
    const AaJob *j = ctx;
    int64_t n = last_dim(j->y);
    size_t ey = aclDataTypeSize(j->y->dtype);
    for (int64_t r = begin; r < end; r++) {
        for (int64_t c = 0; c < n; c++) {
            int64_t si = aclStubNumel(j->scale) == 1 ? 0 : c;
            float v = (float)load_q(j->x, r, c);
            if (j->offset) v = v + aclStubLoadPtrF32(j->offset->dtype, aclStubElemAt(j->offset, si));
            float s = aclStubLoadPtrF32(j->scale->dtype, aclStubElemAt(j->scale, si));
            v = v * s;
            if (j->sqrt) v = v * s;
            aclStubStorePtrF32(j->y->dtype, (char *)j->y->data + row_elem(j->y, r, c) * (int64_t)ey, v);
        }
    }
}

static aclnnStatus aa_kernel(const aclStubOpCall *call) {
    AaJob j = {aclStubOpTensor(call, AA_X), aclStubOpTensor(call, AA_SCALE), aclStubOpTensor(call, AA_OFFSET),
               aclStubOpTensor(call, AA_Y), aclStubOpBool(call, AA_SQRT)};
    aclStubParallelFor(rows_of(j.y), 16, aa_rows, &j);
    return OK;
}

static const aclStubOpDef kAa = {"aclnnAscendAntiQuant", kAaParams, ACLSTUB_LEN(kAaParams), NULL, aa_check, aa_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnAscendAntiQuant, kAa, (const aclTensor *, x), (const aclTensor *, scale),
                  (const aclTensor *, offset), (int64_t, dstType), (bool, sqrtMode), (const aclTensor *, y))

/* ---- aclnnDynamicQuant, aclnnDynamicQuantV2 ---------------------------------------------------------------------- */

enum { DQ_X, DQ_SMOOTH, DQ_Y, DQ_SCALE };
static const aclStubParam kDqParams[] = {
    [DQ_X] = {"x", ACLSTUB_INPUT},
    [DQ_SMOOTH] = {"smoothScalesOptional", ACLSTUB_OPTIONAL_INPUT},
    [DQ_Y] = {"yOut", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
    [DQ_SCALE] = {"scaleOut", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
};
enum { DQ2_X, DQ2_SMOOTH, DQ2_GROUP, DQ2_DST, DQ2_Y, DQ2_SCALE, DQ2_OFFSET };
static const aclStubParam kDq2Params[] = {
    [DQ2_X] = {"x", ACLSTUB_INPUT},
    [DQ2_SMOOTH] = {"smoothScalesOptional", ACLSTUB_OPTIONAL_INPUT},
    [DQ2_GROUP] = {"groupIndexOptional", ACLSTUB_OPTIONAL_INPUT},
    [DQ2_DST] = {"dstType", ACLSTUB_INT},
    [DQ2_Y] = {"yOut", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
    [DQ2_SCALE] = {"scaleOut", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
    [DQ2_OFFSET] = {"offsetOut", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
};

typedef struct {
    const aclStubTensorDesc *x, *smooth, *group, *y, *scale, *offset;
    int64_t dst; /* -1: from y's dtype */
} DqArgs;

static DqArgs dq_args(const aclStubOpCall *call) {
    bool v2 = call->op->params == kDq2Params;
    DqArgs a;
    a.x = aclStubOpTensor(call, 0);
    a.smooth = aclStubOpTensor(call, 1);
    a.group = v2 ? aclStubOpTensor(call, DQ2_GROUP) : NULL;
    a.y = aclStubOpTensor(call, v2 ? DQ2_Y : DQ_Y);
    a.scale = aclStubOpTensor(call, v2 ? DQ2_SCALE : DQ_SCALE);
    a.offset = v2 ? aclStubOpTensor(call, DQ2_OFFSET) : NULL;
    a.dst = v2 ? aclStubOpInt(call, DQ2_DST) : -1;
    return a;
}

static aclnnStatus dq_check(aclStubOpCall *call) {
    DqArgs a = dq_args(call);
    ACLSTUB_RETURN_ERROR_IF(a.scale == NULL, call, ACLNN_ERR_PARAM_NULLPTR, "scaleOut must not be nullptr");
    ACLSTUB_TRY(dtype_in(call, 0, DT(ACL_FLOAT16) | DT(ACL_BF16)));
    if (a.smooth) {
        ACLSTUB_TRY(dtype_in(call, 1, DT(ACL_FLOAT16) | DT(ACL_BF16)));
        ACLSTUB_RETURN_ERROR_IF(a.smooth->dtype != a.x->dtype, call, ACLNN_ERR_PARAM_INVALID,
                                "The dtypes of x and smooth_scales are not equal.");
        if (a.group) ACLSTUB_TRY(dtype_in(call, DQ2_GROUP, DT(ACL_INT32) | DT(ACL_INT64)));
    }
    ACLSTUB_RETURN_ERROR_IF(a.group && !a.smooth, call, ACLNN_ERR_PARAM_INVALID,
                            "groupIndexOptional needs smoothScalesOptional");
    int yi = call->op->params == kDq2Params ? DQ2_Y : DQ_Y;
    ACLSTUB_TRY(dtype_in(call, yi, DT(ACL_INT8) | DT(ACL_INT4) | DT(ACL_INT32)));
    ACLSTUB_RETURN_ERROR_IF(a.dst >= 0 && a.dst != (int64_t)a.y->dtype, call, ACLNN_ERR_PARAM_INVALID,
                            "dstType %lld must be yOut's dtype %s", (long long)a.dst, aclStubDtypeName(a.y->dtype));
    ACLSTUB_RETURN_ERROR_IF(a.scale->dtype != ACL_FLOAT || (a.offset && a.offset->dtype != ACL_FLOAT), call,
                            ACLNN_ERR_PARAM_INVALID, "scaleOut and offsetOut must be FLOAT");
    int64_t nd = a.x->ndim;
    ACLSTUB_RETURN_ERROR_IF(nd < 2 || nd > 8, call, ACLNN_ERR_PARAM_INVALID,
                            "The dimNum[%lld] of x should be greater than 1 and less than 9", (long long)nd);
    int64_t h = a.x->dims[nd - 1];
    if (a.y->dtype == ACL_INT32) {
        bool ok = a.y->ndim == a.x->ndim && a.y->dims[nd - 1] * 8 == h;
        for (int64_t d = 0; ok && d < nd - 1; d++) ok = a.y->dims[d] == a.x->dims[d];
        ACLSTUB_RETURN_ERROR_IF(!ok || h % 8 != 0, call, ACLNN_ERR_PARAM_INVALID,
                                "an INT32 yOut %s must be x %s with the last dim 1/8", shp(0, a.y), shp(1, a.x));
    } else {
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(a.y->dims, a.y->ndim, a.x->dims, a.x->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "yOut %s must have x's shape %s", shp(0, a.y), shp(1, a.x));
        ACLSTUB_RETURN_ERROR_IF(a.y->dtype == ACL_INT4 && h % 2 != 0, call, ACLNN_ERR_PARAM_INVALID,
                                "an INT4 yOut needs an even last dim, got %lld", (long long)h);
    }
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(a.scale->dims, a.scale->ndim, a.x->dims, a.x->ndim - 1), call,
                            ACLNN_ERR_PARAM_INVALID,
                            "The shapes of x and scale should be consistent except for the last dimension of x.");
    if (a.offset)
        ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(a.offset->dims, a.offset->ndim, a.scale->dims, a.scale->ndim), call,
                                ACLNN_ERR_PARAM_INVALID, "offsetOut %s must have scaleOut's shape", shp(0, a.offset));
    if (a.smooth && !a.group)
        ACLSTUB_RETURN_ERROR_IF(a.smooth->ndim != 1 || a.smooth->dims[0] != h, call, ACLNN_ERR_PARAM_INVALID,
                                "smoothScalesOptional %s must be [%lld]", shp(0, a.smooth), (long long)h);
    if (a.group)
        ACLSTUB_RETURN_ERROR_IF(a.smooth->ndim != 2 || a.smooth->dims[1] != h || a.group->ndim != 1 ||
                                    a.group->dims[0] != a.smooth->dims[0] || a.smooth->dims[0] > 1024,
                                call, ACLNN_ERR_PARAM_INVALID,
                                "with groupIndexOptional %s, smoothScalesOptional %s must be [experts <= 1024, %lld]",
                                shp(0, a.group), shp(1, a.smooth), (long long)h);
    if (aclStubNumel(a.x) == 0 || aclStubNumel(a.y) == 0 || aclStubNumel(a.scale) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    DqArgs a;
    float *tmp; /* per slot: h floats */
    int64_t h, slots;
} DqJob;

static void dq_rows(void *ctx, int64_t begin, int64_t end) {
    const DqJob *j = ctx;
    const DqArgs *a = &j->a;
    int64_t h = j->h;
    bool int4 = a->y->dtype != ACL_INT8, sym = a->offset == NULL;
    float dmax = int4 ? 7.0f : 127.0f;
    int64_t lo = int4 ? -8 : -128, hi = int4 ? 7 : 127;
    for (int64_t s = begin; s < end; s++) {
        float *v = j->tmp + s * h;
        int64_t rows = rows_of(a->x), r0 = s * rows / j->slots, r1 = (s + 1) * rows / j->slots;
        int64_t expert = 0;
        for (int64_t r = r0; r < r1; r++) {
            for (int64_t c = 0; c < h; c++) v[c] = load_f(a->x, row_elem(a->x, r, c));
            if (a->smooth) {
                int64_t srow = 0;
                if (a->group) { /* the first expert whose cumulative row count passes this row */
                    int64_t ne = a->group->dims[0];
                    while (expert < ne - 1 && aclStubIndex1(a->group, expert) < r + 1) expert++;
                    srow = expert;
                }
                for (int64_t c = 0; c < h; c++)
                    v[c] = v[c] * aclStubLoadPtrF32(a->smooth->dtype,
                                                    a->group ? aclStubElem2(a->smooth, srow, c) : aclStubElem1(a->smooth, c));
            }
            float scale, mul, off = 0.0f;
            if (sym) {
                float m = 0.0f;
                for (int64_t c = 0; c < h; c++) {
                    float x = fabsf(v[c]);
                    if (x > m || x != x) m = x;
                }
                mul = dmax / m;
                scale = 1.0f / mul;
            } else {
                float mx = v[0], mn = v[0];
                for (int64_t c = 1; c < h; c++) {
                    mx = v[c] > mx ? v[c] : mx;
                    mn = v[c] < mn ? v[c] : mn;
                }
                scale = (mx - mn) / (int4 ? 15.0f : 255.0f);
                scale = scale > 1e-12f ? scale : 1e-12f;
                off = dmax - mx / scale;
                mul = 1.0f / scale;
            }
            for (int64_t c = 0; c < h; c++) {
                float y = v[c] * mul;
                if (!sym) y = y + off;
                store_q(a->y, true, r, c, quantize_value(y, R_RINT, lo, hi));
            }
            *(float *)aclStubElemAt(a->scale, r) = scale;
            if (a->offset) *(float *)aclStubElemAt(a->offset, r) = off;
        }
    }
}

static aclnnStatus dq_kernel(const aclStubOpCall *call) {
    DqJob j;
    j.a = dq_args(call);
    j.h = last_dim(j.a.x);
    int64_t rows = rows_of(j.a.x);
    int threads = aclStubNumThreads();
    j.slots = rows < threads ? rows : threads;
    if (j.slots < 1) j.slots = 1;
    j.tmp = aclStubKernelScratch(call, sizeof(float) * (size_t)(j.h * j.slots));
    if (j.tmp == NULL) return aclStubKernelOutOfMemory(call);
    aclStubParallelFor(j.slots, 1, dq_rows, &j);
    return OK;
}

static const aclStubOpDef kDq = {"aclnnDynamicQuant", kDqParams, ACLSTUB_LEN(kDqParams), NULL, dq_check, dq_kernel, 0};
static const aclStubOpDef kDq2 = {"aclnnDynamicQuantV2", kDq2Params, ACLSTUB_LEN(kDq2Params), NULL, dq_check,
                                  dq_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnDynamicQuant, kDq, (const aclTensor *, x), (const aclTensor *, smoothScalesOptional),
                  (const aclTensor *, yOut), (const aclTensor *, scaleOut))
ACLSTUB_DEFINE_OP(aclnnDynamicQuantV2, kDq2, (const aclTensor *, x), (const aclTensor *, smoothScalesOptional),
                  (const aclTensor *, groupIndexOptional), (int64_t, dstType), (const aclTensor *, yOut),
                  (const aclTensor *, scaleOut), (const aclTensor *, offsetOut))

/* ---- aclnnQuantize ---------------------------------------------------------------------------------------------- */

enum { QZ_X, QZ_SCALES, QZ_ZP, QZ_DTYPE, QZ_AXIS, QZ_OUT };
static const aclStubParam kQzParams[] = {
    [QZ_X] = {"x", ACLSTUB_INPUT},
    [QZ_SCALES] = {"scales", ACLSTUB_INPUT},
    [QZ_ZP] = {"zeroPoints", ACLSTUB_OPTIONAL_INPUT},
    [QZ_DTYPE] = {"dtype", ACLSTUB_DTYPE},
    [QZ_AXIS] = {"axis", ACLSTUB_INT},
    [QZ_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT},
};
#define QZ_OUT_DT (DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT32))

static aclnnStatus qz_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, QZ_X), *sc = aclStubOpTensor(call, QZ_SCALES),
                            *zp = aclStubOpTensor(call, QZ_ZP), *out = aclStubOpTensor(call, QZ_OUT);
    int64_t axis = (int32_t)aclStubOpInt(call, QZ_AXIS), nd = x->ndim;
    ACLSTUB_RETURN_ERROR_IF(nd > 8, call, ACLNN_ERR_PARAM_INVALID, "x must have at most 8 dimensions");
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(out->dims, out->ndim, x->dims, x->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "out's shape %s must be x's %s", shp(0, out), shp(1, x));
    ACLSTUB_RETURN_ERROR_IF(sc->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "Input scales shape only support 1 dimension.");
    if (zp) {
        ACLSTUB_RETURN_ERROR_IF(zp->ndim != 1, call, ACLNN_ERR_PARAM_INVALID,
                                "Input zeroPoints shape only support 1 dimension.");
        ACLSTUB_RETURN_ERROR_IF(zp->dims[0] != sc->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                                "Scales size should be equal to zeroPoints size.");
    }
    if (sc->dims[0] != 1) {
        ACLSTUB_RETURN_ERROR_IF(axis < -nd || axis >= nd, call, ACLNN_ERR_PARAM_INVALID,
                                "Axis out of range (expected to be in range of [-%lld, %lld], but got %lld)",
                                (long long)nd, (long long)nd - 1, (long long)axis);
        int64_t a = axis < 0 ? axis + nd : axis;
        ACLSTUB_RETURN_ERROR_IF(sc->dims[0] != x->dims[a], call, ACLNN_ERR_PARAM_INVALID,
                                "The size of scales must equal to 1 or the specified dimension of x, which is %lld.",
                                (long long)x->dims[a]);
    }
    ACLSTUB_TRY(dtype_in(call, QZ_X, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(dtype_in(call, QZ_SCALES, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(dtype_in(call, QZ_ZP, QZ_OUT_DT | DT(ACL_BF16)));
    aclDataType dt = (aclDataType)aclStubOpInt(call, QZ_DTYPE);
    ACLSTUB_RETURN_ERROR_IF((unsigned)dt >= 64 || !(QZ_OUT_DT & DT(dt)), call, ACLNN_ERR_PARAM_INVALID,
                            "Param dtype %s should be in dtype support list [INT8, UINT8, INT32].", aclStubDtypeName(dt));
    ACLSTUB_TRY(dtype_in(call, QZ_OUT, QZ_OUT_DT));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != dt, call, ACLNN_ERR_PARAM_INVALID, "out's dtype %s must be dtype %s",
                            aclStubDtypeName(out->dtype), aclStubDtypeName(dt));
    bool bf = sc->dtype == ACL_BF16 || (zp && zp->dtype == ACL_BF16);
    ACLSTUB_RETURN_ERROR_IF(bf && (x->dtype != ACL_BF16 || sc->dtype != ACL_BF16 || (zp && zp->dtype != ACL_BF16)),
                            call, ACLNN_ERR_PARAM_INVALID,
                            "when scales or zeroPoints are BF16, x, scales and zeroPoints must all be BF16");
    ACLSTUB_RETURN_ERROR_IF(private_format(x) || private_format(sc) || private_format(out), call,
                            ACLNN_ERR_PARAM_INVALID, "Format of x, scales or out only support ND.");
    ACLSTUB_RETURN_ERROR_IF(zp && private_format(zp), call, ACLNN_ERR_PARAM_INVALID,
                            "Format of zeroPoints only support ND.");
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const aclStubTensorDesc *x, *sc, *zp, *out;
    int64_t axis;
    int64_t lo, hi;
} QzJob;

static void qz_elems(void *ctx, int64_t begin, int64_t end) {
    const QzJob *j = ctx;
    for (int64_t e = begin; e < end; e++) {
        int64_t idx = 0;
        if (aclStubNumel(j->sc) != 1) {
            int64_t inner = 1;
            for (int64_t d = j->axis + 1; d < (int64_t)j->x->ndim; d++) inner *= j->x->dims[d];
            idx = (e / inner) % j->x->dims[j->axis];
        }
        float x = aclStubLoadPtrF32(j->x->dtype, aclStubElemAt(j->x, e));
        float s = aclStubLoadPtrF32(j->sc->dtype, aclStubElemAt(j->sc, idx));
        float v = x / s;
        if (j->zp) {
            float z;
            aclStubCastStrided(&z, 0, ACL_FLOAT, aclStubElemAt(j->zp, idx), 0, j->zp->dtype, 1);
            v = v + z;
        }
        int64_t q = quantize_value(v, R_RINT, j->lo, j->hi);
        aclStubCastStrided(aclStubElemAt(j->out, e), 0, j->out->dtype, &q, 0, ACL_INT64, 1);
    }
}

static aclnnStatus qz_kernel(const aclStubOpCall *call) {
    QzJob j = {aclStubOpTensor(call, QZ_X), aclStubOpTensor(call, QZ_SCALES), aclStubOpTensor(call, QZ_ZP),
               aclStubOpTensor(call, QZ_OUT), (int32_t)aclStubOpInt(call, QZ_AXIS), 0, 0};
    if (j.axis < 0) j.axis += j.x->ndim;
    switch (j.out->dtype) {
    case ACL_INT8: j.lo = -128, j.hi = 127; break;
    case ACL_UINT8: j.lo = 0, j.hi = 255; break;
    default: j.lo = INT32_MIN, j.hi = INT32_MAX; break;
    }
    aclStubParallelFor(aclStubNumel(j.x), 4096, qz_elems, &j);
    return OK;
}

static const aclStubOpDef kQz = {"aclnnQuantize", kQzParams, ACLSTUB_LEN(kQzParams), NULL, qz_check, qz_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnQuantize, kQz, (const aclTensor *, x), (const aclTensor *, scales),
                  (const aclTensor *, zeroPoints), (aclDataType, dtype), (int32_t, axis), (aclTensor *, out))

/* ---- aclnnSwiGluQuant, V2 ---------------------------------------------------------------------------------------------
 * No op_api: the toolkit generates phase 1 from the definition (dtypes) and the tiling checks the rest (its verdict
 * is not even read by the tiling function, so a device runs whatever it is given); the stub applies the tiling's
 * rules in phase 1 with 161002, where a wrong shape would otherwise reach memory the call does not own. */

enum { SG_X, SG_SMOOTH, SG_OFFSETS, SG_GROUP, SG_LEFT, SG_MODE };
typedef struct {
    int list_type, dst, y, scale; /* parameter indices; -1: V1 has none */
} SgRow;
static const aclStubParam kSgParams[] = {
    {.name = "x", .role = ACLSTUB_INPUT},
    {.name = "smoothScalesOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "offsetsOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "groupIndexOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "activateLeft", .role = ACLSTUB_BOOL},
    {.name = "quantModeOptional", .role = ACLSTUB_STRING},
    {.name = "yOut", .role = ACLSTUB_OUTPUT, .flags = ACLSTUB_ANY_LAYOUT},
    {.name = "scaleOut", .role = ACLSTUB_OPTIONAL_OUTPUT, .flags = ACLSTUB_ANY_LAYOUT},
};
static const aclStubParam kSg2Params[] = {
    {.name = "x", .role = ACLSTUB_INPUT},
    {.name = "smoothScalesOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "offsetsOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "groupIndexOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    {.name = "activateLeft", .role = ACLSTUB_BOOL},
    {.name = "quantModeOptional", .role = ACLSTUB_STRING},
    {.name = "groupListType", .role = ACLSTUB_INT},
    {.name = "dstType", .role = ACLSTUB_INT},
    {.name = "yOut", .role = ACLSTUB_OUTPUT, .flags = ACLSTUB_ANY_LAYOUT},
    {.name = "scaleOut", .role = ACLSTUB_OPTIONAL_OUTPUT, .flags = ACLSTUB_ANY_LAYOUT},
};
static const SgRow kSgRow = {-1, -1, 6, 7}, kSg2Row = {6, 7, 8, 9};
#define SG_MAX_GROUPS 1024

static aclnnStatus sg_dtype(aclStubOpCall *call, int i, uint64_t set) {
    const aclStubTensorDesc *t = aclStubOpTensor(call, i);
    if (t == NULL || (DT(t->dtype) & set)) return OK;
    return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "%s's dtype %s is not supported", aclStubOpName(call, i),
                         aclStubDtypeName(t->dtype));
}

static bool sg_static(const aclStubOpCall *call) {
    const char *m = call->v[SG_MODE].s;
    return m != NULL && strcmp(m, "static") == 0;
}

static aclnnStatus sg_check(aclStubOpCall *call) {
    const SgRow *r = aclStubFamilyRow(call);
    const aclStubTensorDesc *x = aclStubOpTensor(call, SG_X), *sm = aclStubOpTensor(call, SG_SMOOTH),
                            *of = aclStubOpTensor(call, SG_OFFSETS), *gi = aclStubOpTensor(call, SG_GROUP),
                            *y = aclStubOpTensor(call, r->y), *sc = aclStubOpTensor(call, r->scale);
    ACLSTUB_TRY(sg_dtype(call, SG_X, ACLSTUB_DT_FLOATS));
    ACLSTUB_TRY(sg_dtype(call, SG_SMOOTH, DT(ACL_FLOAT)));
    ACLSTUB_TRY(sg_dtype(call, SG_OFFSETS, DT(ACL_FLOAT)));
    ACLSTUB_TRY(sg_dtype(call, SG_GROUP, DT(ACL_INT32)));
    int64_t dst = r->dst >= 0 ? aclStubOpInt(call, r->dst) : ACL_INT8;
    ACLSTUB_RETURN_ERROR_IF(dst != ACL_INT8 && dst != ACL_INT4, call, ACLNN_ERR_PARAM_INVALID,
                            "dstType can only be 2 or 29, but is %lld.", (long long)dst);
    ACLSTUB_RETURN_ERROR_IF(y->dtype != (aclDataType)dst, call, ACLNN_ERR_PARAM_INVALID,
                            "yOut's dtype %s must be %s", aclStubDtypeName(y->dtype), aclStubDtypeName((aclDataType)dst));
    ACLSTUB_TRY(sg_dtype(call, r->scale, DT(ACL_FLOAT)));
    const char *mode = call->v[SG_MODE].s;
    ACLSTUB_RETURN_ERROR_IF(mode != NULL && strcmp(mode, "static") != 0 && strcmp(mode, "dynamic") != 0 &&
                                strcmp(mode, "dynamic_msd") != 0,
                            call, ACLNN_ERR_PARAM_INVALID, "quantMode must be equal to static; dynamic; dynamic_msd.");
    ACLSTUB_RETURN_ERROR_IF(mode != NULL && strcmp(mode, "dynamic_msd") == 0, call, ACLNN_ERR_PARAM_INVALID,
                            "quantMode dynamic_msd is not supported: only dynamic and static");
    if (r->list_type >= 0) {
        int64_t glt = aclStubOpInt(call, r->list_type);
        ACLSTUB_RETURN_ERROR_IF(glt != 0 && glt != 1, call, ACLNN_ERR_PARAM_INVALID, "groupListType can only be 0 or 1.");
    }
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 2, call, ACLNN_ERR_PARAM_INVALID, "Input x shape dimension is less than 2.");
    int64_t d = x->dims[x->ndim - 1];
    ACLSTUB_RETURN_ERROR_IF(d % 2 != 0 || d > 8192, call, ACLNN_ERR_PARAM_INVALID,
                            "the last dim of x (%lld) must be even and at most 8192", (long long)d);
    ACLSTUB_RETURN_ERROR_IF(dst == ACL_INT4 && d % 4 != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "if y datatype is int4, the last dim(%lld) of x should be divisible by 4.", (long long)d);
    int64_t groups = 1;
    if (gi) {
        ACLSTUB_RETURN_ERROR_IF(gi->ndim != 1 || gi->dims[0] == 0 || gi->dims[0] > SG_MAX_GROUPS, call,
                                ACLNN_ERR_PARAM_INVALID,
                                "group length must be more than 0 and less than the maximum value.");
        groups = gi->dims[0];
    }
    bool stat = sg_static(call);
    ACLSTUB_RETURN_ERROR_IF(stat && (sm == NULL || of == NULL), call, ACLNN_ERR_PARAM_NULLPTR,
                            "static quantisation needs smoothScalesOptional and offsetsOptional");
    ACLSTUB_RETURN_ERROR_IF(!stat && sc == NULL, call, ACLNN_ERR_PARAM_NULLPTR,
                            "dynamic quantisation needs scaleOut");
    for (int k = 0; k < 2; k++) {
        const aclStubTensorDesc *t = k ? of : sm;
        if (t == NULL) continue;
        bool ok = (t->ndim == 1 && t->dims[0] == groups) || (t->ndim == 2 && t->dims[0] == groups && t->dims[1] == d / 2);
        ACLSTUB_RETURN_ERROR_IF(!ok, call, ACLNN_ERR_PARAM_INVALID, "%s %s must be [%lld] or [%lld, %lld]",
                                aclStubOpName(call, k ? SG_OFFSETS : SG_SMOOTH), shp(0, t), (long long)groups,
                                (long long)groups, (long long)(d / 2));
    }
    ACLSTUB_RETURN_ERROR_IF(sm && of && sm->ndim != of->ndim, call, ACLNN_ERR_PARAM_INVALID,
                            "offsetsOptional %s must have smoothScalesOptional's shape %s", shp(0, of), shp(1, sm));
    bool yok = y->ndim == x->ndim && y->dims[y->ndim - 1] == d / 2;
    for (uint32_t k = 0; yok && k + 1 < x->ndim; k++) yok = y->dims[k] == x->dims[k];
    ACLSTUB_RETURN_ERROR_IF(!yok, call, ACLNN_ERR_PARAM_INVALID, "yOut %s must be x's shape %s with its last dim halved",
                            shp(0, y), shp(1, x));
    if (sc) {
        bool sok = sc->ndim == x->ndim - 1;
        for (uint32_t k = 0; sok && k < sc->ndim; k++) sok = sc->dims[k] == x->dims[k];
        ACLSTUB_RETURN_ERROR_IF(!sok, call, ACLNN_ERR_PARAM_INVALID,
                                "output_scale shape is wrong, must be same as before x exclude the last dim.");
    }
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const aclStubTensorDesc *x, *sm, *of, *y, *sc;
    int64_t rows, d2, groups, ends[SG_MAX_GROUPS];
    bool left, stat, has_group;
    int64_t lo, hi;
    float dmax;
    float *tmp; /* per slot: d2 floats */
    int64_t slots;
} SgJob;

static float sg_param(const aclStubTensorDesc *t, int64_t g, int64_t c) {
    return t->ndim == 1 ? load_f(t, t->offset + g * t->strides[0]) : load_f(t, t->offset + g * t->strides[0] + c * t->strides[1]);
}

static void sg_rows(void *ctx, int64_t begin, int64_t end) {
    const SgJob *j = ctx;
    int64_t d2 = j->d2;
    for (int64_t s = begin; s < end; s++) {
        float *v = j->tmp + s * d2;
        int64_t r0 = s * j->rows / j->slots, r1 = (s + 1) * j->rows / j->slots, g = 0;
        for (int64_t r = r0; r < r1; r++) {
            while (g < j->groups && j->ends[g] <= r) g++;
            bool has_param = !j->has_group || g < j->groups; /* rows past the last group: no smooth scale */
            int64_t pg = j->has_group ? g : 0;
            for (int64_t c = 0; c < d2; c++) {
                float a = load_f(j->x, row_elem(j->x, r, c)), b = load_f(j->x, row_elem(j->x, r, c + d2));
                float act = j->left ? a / (1.0f + expf(-a)) * b : b / (1.0f + expf(-b)) * a;
                if (j->sm && has_param) act = act * sg_param(j->sm, pg, c);
                if (j->stat && has_param) act = act + sg_param(j->of, pg, c);
                v[c] = act;
            }
            float mul = 1.0f;
            if (!j->stat) {
                float m = 0.0f;
                for (int64_t c = 0; c < d2; c++) {
                    float a = fabsf(v[c]);
                    if (a > m || a != a) m = a;
                }
                mul = j->dmax / m;
                *(float *)aclStubElemAt(j->sc, r) = mul;
            }
            for (int64_t c = 0; c < d2; c++)
                store_q(j->y, false, r, c, quantize_value(j->stat ? v[c] : v[c] * mul, R_RINT, j->lo, j->hi));
        }
    }
}

static aclnnStatus sg_kernel(const aclStubOpCall *call) {
    const SgRow *r = aclStubFamilyRow(call);
    SgJob *j = aclStubKernelScratch(call, sizeof *j);
    if (j == NULL) return aclStubKernelOutOfMemory(call);
    j->x = aclStubOpTensor(call, SG_X);
    j->sm = aclStubOpTensor(call, SG_SMOOTH);
    j->of = aclStubOpTensor(call, SG_OFFSETS);
    j->y = aclStubOpTensor(call, r->y);
    j->sc = aclStubOpTensor(call, r->scale);
    j->rows = rows_of(j->x);
    j->d2 = last_dim(j->x) / 2;
    j->left = aclStubOpBool(call, SG_LEFT);
    j->stat = sg_static(call);
    bool int4 = j->y->dtype == ACL_INT4;
    j->lo = int4 ? -8 : -128, j->hi = int4 ? 7 : 127, j->dmax = int4 ? 7.0f : 127.0f;
    const aclStubTensorDesc *gi = aclStubOpTensor(call, SG_GROUP);
    j->has_group = gi != NULL;
    j->groups = gi ? gi->dims[0] : 1;
    bool counts = r->list_type >= 0 && aclStubOpInt(call, r->list_type) == 1;
    int64_t acc = 0;
    for (int64_t g = 0; gi && g < j->groups; g++) {
        /* any values: a row goes to the first group whose end passes it, as the kernel searches (the docs ask for
           non-decreasing ends within x's rows; the kernel does not check) */
        int64_t v = aclStubIndex1(gi, g);
        acc = counts ? acc + v : v;
        j->ends[g] = acc;
    }
    int threads = aclStubNumThreads();
    j->slots = j->rows < threads ? j->rows : threads;
    if (j->slots < 1) j->slots = 1;
    j->tmp = aclStubKernelScratch(call, sizeof(float) * (size_t)(j->d2 * j->slots));
    if (j->tmp == NULL) return aclStubKernelOutOfMemory(call);
    aclStubParallelFor(j->slots, 1, sg_rows, j);
    return OK;
}

static const aclStubFamilyOp kSg = {{"aclnnSwiGluQuant", kSgParams, ACLSTUB_LEN(kSgParams), NULL, sg_check, sg_kernel, 0},
                                    &kSgRow};
static const aclStubFamilyOp kSg2 = {{"aclnnSwiGluQuantV2", kSg2Params, ACLSTUB_LEN(kSg2Params), NULL, sg_check,
                                      sg_kernel, 0}, &kSg2Row};
ACLSTUB_DEFINE_OP(aclnnSwiGluQuant, kSg.def, (const aclTensor *, x), (const aclTensor *, smoothScalesOptional),
                  (const aclTensor *, offsetsOptional), (const aclTensor *, groupIndexOptional), (bool, activateLeft),
                  (char *, quantModeOptional), (const aclTensor *, yOut), (const aclTensor *, scaleOut))
ACLSTUB_DEFINE_OP(aclnnSwiGluQuantV2, kSg2.def, (const aclTensor *, x), (const aclTensor *, smoothScalesOptional),
                  (const aclTensor *, offsetsOptional), (const aclTensor *, groupIndexOptional), (bool, activateLeft),
                  (char *, quantModeOptional), (int64_t, groupListType), (int64_t, dstType), (const aclTensor *, yOut),
                  (const aclTensor *, scaleOut))

/* ---- aclnnGroupQuant ----------------------------------------------------------------------------------------------- */

enum { GQ_X, GQ_SCALE, GQ_GROUP, GQ_OFFSET, GQ_DST, GQ_Y };
static const aclStubParam kGqParams[] = {
    [GQ_X] = {.name = "x", .role = ACLSTUB_INPUT},
    [GQ_SCALE] = {.name = "scale", .role = ACLSTUB_INPUT},
    [GQ_GROUP] = {.name = "groupIndex", .role = ACLSTUB_INPUT},
    [GQ_OFFSET] = {.name = "offsetOptional", .role = ACLSTUB_OPTIONAL_INPUT},
    [GQ_DST] = {.name = "dstType", .role = ACLSTUB_INT},
    [GQ_Y] = {.name = "y", .role = ACLSTUB_OUTPUT, .flags = ACLSTUB_ANY_LAYOUT},
};

static aclnnStatus gq_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, GQ_X), *sc = aclStubOpTensor(call, GQ_SCALE),
                            *gi = aclStubOpTensor(call, GQ_GROUP), *of = aclStubOpTensor(call, GQ_OFFSET),
                            *y = aclStubOpTensor(call, GQ_Y);
    uint64_t floats = ACLSTUB_DT_FLOATS;
    ACLSTUB_TRY(dtype_in(call, GQ_X, floats));
    ACLSTUB_TRY(dtype_in(call, GQ_SCALE, floats));
    ACLSTUB_TRY(dtype_in(call, GQ_GROUP, ACLSTUB_DT_INDEX));
    ACLSTUB_TRY(dtype_in(call, GQ_Y, DT(ACL_INT8) | DT(ACL_INT32) | DT(ACL_INT4)));
    if (of) {
        ACLSTUB_TRY(dtype_in(call, GQ_OFFSET, floats));
        ACLSTUB_RETURN_ERROR_IF(of->dtype != sc->dtype, call, ACLNN_ERR_PARAM_INVALID,
                                "offsetOptional's dtype %s should be the same as scale's %s", aclStubDtypeName(of->dtype),
                                aclStubDtypeName(sc->dtype));
    }
    ACLSTUB_RETURN_ERROR_IF((int64_t)y->dtype != aclStubOpInt(call, GQ_DST), call, ACLNN_ERR_PARAM_INVALID,
                            "y dtype must be the same as dstType.");
    if (of) {
        int64_t n = 1;
        for (uint32_t d = 0; d < of->ndim; d++) n *= of->dims[d];
        ACLSTUB_RETURN_ERROR_IF(n > 1, call, ACLNN_ERR_PARAM_INVALID,
                                "offsetOptional tensor should be scalar or tensor with shape is [1, ].");
    }
    ACLSTUB_RETURN_ERROR_IF(x->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "x tensor should be 2D.");
    ACLSTUB_RETURN_ERROR_IF(sc->ndim != 2, call, ACLNN_ERR_PARAM_INVALID, "scale tensor should be 2D.");
    ACLSTUB_RETURN_ERROR_IF(gi->ndim != 1, call, ACLNN_ERR_PARAM_INVALID, "groupIndex tensor should be 1D.");
    ACLSTUB_RETURN_ERROR_IF(x->dims[1] != sc->dims[1], call, ACLNN_ERR_PARAM_INVALID,
                            "x dim1 should be same with scale dim1.");
    ACLSTUB_RETURN_ERROR_IF(sc->dims[0] != gi->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                            "scale dim0 should be same with groupIndex dim0.");
    ACLSTUB_RETURN_ERROR_IF(y->ndim != 2 || y->dims[0] != x->dims[0], call, ACLNN_ERR_PARAM_INVALID,
                            "y %s must have x's rows %s", shp(0, y), shp(1, x));
    if (y->dtype == ACL_INT32)
        ACLSTUB_RETURN_ERROR_IF(x->dims[1] != y->dims[1] * 8, call, ACLNN_ERR_PARAM_INVALID,
                                "if dstType is int32, the y last dim must be 1/8 of x last dim, x last dim is (%lld), y "
                                "last dim is (%lld)", (long long)x->dims[1], (long long)y->dims[1]);
    else {
        ACLSTUB_RETURN_ERROR_IF(y->dtype == ACL_INT4 && x->dims[1] % 2 != 0, call, ACLNN_ERR_PARAM_INVALID,
                                "if dstType is int4, x last dim must be divisible by 2, last dim is (%lld).",
                                (long long)x->dims[1]);
        ACLSTUB_RETURN_ERROR_IF(x->dims[1] != y->dims[1], call, ACLNN_ERR_PARAM_INVALID,
                                "x last dim must be equal with y last dim. x last dim is (%lld), y last dim is (%lld)",
                                (long long)x->dims[1], (long long)y->dims[1]);
    }
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

typedef struct {
    const aclStubTensorDesc *x, *sc, *y;
    const int64_t *grp; /* per row: its group, -1 past the last */
    float offset;
    int64_t h;
} GqJob;
static void gq_rows(void *ctx, int64_t begin, int64_t end) {
    const GqJob *j = ctx;
    int64_t lo = j->y->dtype == ACL_INT8 ? -128 : -8, hi = j->y->dtype == ACL_INT8 ? 127 : 7;
    for (int64_t r = begin; r < end; r++) {
        int64_t g = j->grp[r];
        if (g < 0) continue;
        for (int64_t c = 0; c < j->h; c++) {
            float v = load_f(j->x, row_elem(j->x, r, c)) * load_f(j->sc, row_elem(j->sc, g, c)) + j->offset;
            store_q(j->y, true, r, c, quantize_value(v, R_RINT, lo, hi));
        }
    }
}

static aclnnStatus gq_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, GQ_X), *gi = aclStubOpTensor(call, GQ_GROUP),
                            *of = aclStubOpTensor(call, GQ_OFFSET);
    int64_t rows = x->dims[0], ng = gi->dims[0], prev = 0;
    int64_t *grp = aclStubKernelScratch(call, sizeof(int64_t) * (size_t)rows);
    if (grp == NULL) return aclStubKernelOutOfMemory(call);
    for (int64_t r = 0; r < rows; r++) grp[r] = -1;
    for (int64_t g = 0; g < ng; g++) {
        int64_t e = aclStubIndex1(gi, g);
        if (e < prev || e > rows)
            return aclStubKernelFail(call, ACLNN_ERR_PARAM_INVALID,
                                     "groupIndex[%lld] = %lld: the group ends must be non-decreasing within [0, %lld]",
                                     (long long)g, (long long)e, (long long)rows);
        for (int64_t r = prev; r < e; r++) grp[r] = g;
        prev = e;
    }
    GqJob j = {x, aclStubOpTensor(call, GQ_SCALE), aclStubOpTensor(call, GQ_Y), grp, 0.0f, x->dims[1]};
    if (of && aclStubNumel(of) == 1) j.offset = load_f(of, of->offset);
    aclStubParallelFor(rows, 16, gq_rows, &j);
    return OK;
}

static const aclStubOpDef kGq = {"aclnnGroupQuant", kGqParams, ACLSTUB_LEN(kGqParams), NULL, gq_check, gq_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnGroupQuant, kGq, (const aclTensor *, x), (const aclTensor *, scale),
                  (const aclTensor *, groupIndex), (const aclTensor *, offsetOptional), (int32_t, dstType),
                  (aclTensor *, y))
