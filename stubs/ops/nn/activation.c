/*
 * Activations of ops-nn activation/ on the elementwise engine: forward operators (each with its in-place variant
 * where the toolkit has one). Each row carries its op_api's dtype support list for Atlas A2/A3, its rules (flags
 * and, where the op_api has attribute or format rules of its own, a check) and one expression per loop type.
 * Float32 and 16-bit elements are computed in double through act_math.h and rounded once.
 */
#include "act_math.h"
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_add_relu.h"
#include "aclnnop/aclnn_celu.h"
#include "aclnnop/aclnn_elu.h"
#include "aclnnop/aclnn_erfinv.h"
#include "aclnnop/aclnn_fast_gelu.h"
#include "aclnnop/aclnn_gelu.h"
#include "aclnnop/aclnn_gelu_v2.h"
#include "aclnnop/aclnn_hardshrink.h"
#include "aclnnop/aclnn_hardsigmoid.h"
#include "aclnnop/aclnn_hardswish.h"
#include "aclnnop/aclnn_heaviside.h"
#include "aclnnop/aclnn_leaky_relu.h"
#include "aclnnop/aclnn_logsigmoid.h"
#include "aclnnop/aclnn_mish.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_selu.h"
#include "aclnnop/aclnn_shrink.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_softplus.h"
#include "aclnnop/aclnn_softshrink.h"
#include "aclnnop/aclnn_squared_relu.h"
#include "aclnnop/aclnn_swish.h"
#include "aclnnop/aclnn_threshold.h"

#define DT ACLSTUB_DT
#define F32_F16_BF16 ACLSTUB_DT_FLOATS
#define F32_F16 (DT(ACL_FLOAT) | DT(ACL_FLOAT16))

/* Formats the op_api calls private (FRACTAL_NZ, NC1HWC0, ...): everything but the ND-like ones. */
static bool private_format(aclFormat f) {
    return !(f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_HWCN ||
             f == ACL_FORMAT_NDHWC || f == ACL_FORMAT_NCDHW || f == ACL_FORMAT_NCL);
}

/* The formats of tensor parameters a and b must be equal (op_api format rules). */
static aclnnStatus same_format(const aclStubOpCall *call, int a, int b) {
    const aclStubTensorDesc *x = call->v[a].tensor, *y = call->v[b].tensor;
    if (x && y && x->format != y->format)
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "Format of %s and %s can't be different, %s [%d], %s [%d].",
                             aclStubOpName(call, a), aclStubOpName(call, b), aclStubOpName(call, a), (int)x->format,
                             aclStubOpName(call, b), (int)y->format);
    return OK;
}

static float scalar_f32(const aclStubOpCall *call, int i) { return (float)aclStubOpScalarF64(call, i); }

static aclStubEwPlan *plan_of(const aclStubOpCall *call) { return (aclStubEwPlan *)call->plan; }

/* ---- relu --------------------------------------------------------------------------------------------------- */

#define RELU_DT (F32_F16_BF16 | DT(ACL_INT8) | DT(ACL_INT32) | DT(ACL_UINT8) | DT(ACL_INT64))
ACLSTUB_EW_UNARY(relu_loops, ACLSTUB_EW_REAL, x > 0 ? x : (x != x ? x : 0))
static const aclStubElementwise RELU = {1, RELU_DT, ACLSTUB_EW_OUT_SAME, &relu_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnRelu, RELU, (const aclTensor *, self), (const aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceRelu, RELU, (aclTensor *, selfRef))

/* add relu: relu(self + alpha other), floating inputs computed in float32 (an UINT8 sum is not clamped: it is
 * never negative) */
#define ADD_RELU_DT (F32_F16_BF16 | ACLSTUB_DT_INTS | DT(ACL_INT16))
#define ACT_RELU(v) ((v) > 0 ? (v) : ((v) != (v) ? (v) : 0))
ACLSTUB_EW_BINARY(add_relu_loops, ACLSTUB_EW_REAL, ACT_RELU((__typeof__(a))(a + s0 * b)))
static const aclStubElementwise ADD_RELU = {2, ADD_RELU_DT, ACLSTUB_EW_ATTR0_CASTS, &add_relu_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnAddRelu, ADD_RELU, (const aclTensor *, self), (const aclTensor *, other), (aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAddRelu, ADD_RELU, (aclTensor *, selfRef), (const aclTensor *, other),
                      (aclScalar *, alpha))

/* squared relu (a generated entry point): ranks 1 to 8 are the tiling's rule (561002) */
ACLSTUB_EW_UNARY(squared_relu_loops, ACLSTUB_EW_FLOATS, x > 0 ? (double)x * x : (x != x ? (double)x : 0.0))
static aclnnStatus squared_relu_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[0].tensor;
    if (aclStubNumel(call->v[1].tensor) == 0) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(x->ndim < 1 || x->ndim > 8, call, ACLNN_ERR_INNER_TILING_ERROR,
                            "input must have 1 to 8 dimensions, got %u", x->ndim);
    return OK;
}
static const aclStubElementwise SQUARED_RELU = {1, F32_F16_BF16,
                                                ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_ANY_RANK,
                                                &squared_relu_loops, squared_relu_check, NULL};
ACLSTUB_EW_OP(aclnnSquaredRelu, SQUARED_RELU, (const aclTensor *, input), (const aclTensor *, out))

/* ---- elu, celu, selu ---------------------------------------------------------------------------------------- */

/* elu: s0 alpha, s1 scale, s2 inputScale (float32, as ToFloat reads them). With an infinite or NaN alpha or
 * inputScale the op_api computes scale * threshold(x, 0, -alpha) instead (i1 set by the check). */
ACLSTUB_EW_UNARY(elu_loops, ACLSTUB_EW_FLOATS,
                 i0 ? (double)s1 * (x > 0 ? (double)x : -(double)s0)
                    : (x > 0 ? (double)s1 * x : (double)s0 * s1 * act_expm1((double)x * s2)))
static aclnnStatus elu_check(aclStubOpCall *call) {
    float alpha = scalar_f32(call, 1), input_scale = scalar_f32(call, 3);
    aclStubEwPlan *plan = plan_of(call);
    for (int k = 0; k < 3; k++) plan->ctx.f[k] = (float)plan->ctx.f[k];
    plan->ctx.i[0] = !isfinite(alpha) || !isfinite(input_scale);
    return OK;
}
static const aclStubElementwise ELU = {1, ACLSTUB_DT_REALS, ACLSTUB_EW_ATTRS_TO_FLOAT, &elu_loops, elu_check, NULL};
ACLSTUB_EW_OP(aclnnElu, ELU, (const aclTensor *, self), (const aclScalar *, alpha), (const aclScalar *, scale),
              (const aclScalar *, inputScale), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceElu, ELU, (aclTensor *, selfRef), (const aclScalar *, alpha),
                      (const aclScalar *, scale), (const aclScalar *, inputScale))

/* celu: max(0, x) + min(0, alpha (exp(x / alpha) - 1)) */
ACLSTUB_EW_UNARY(celu_loops, ACLSTUB_EW_FLOATS,
                 x > 0 ? (double)x : (double)s0 * act_expm1((double)x / (double)s0))
static aclnnStatus celu_check(aclStubOpCall *call) {
    float alpha = scalar_f32(call, 1);
    ACLSTUB_RETURN_ERROR_IF(!(alpha > 0 || alpha < 0), call, ACLNN_ERR_PARAM_INVALID, "alpha cannot be 0 for CELU.");
    plan_of(call)->ctx.f[0] = alpha;
    return OK;
}
static const aclStubElementwise CELU = {1, F32_F16_BF16, ACLSTUB_EW_ATTRS_TO_FLOAT, &celu_loops, celu_check, NULL};
ACLSTUB_EW_OP(aclnnCelu, CELU, (const aclTensor *, self), (const aclScalar *, alpha), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceCelu, CELU, (aclTensor *, selfRef), (const aclScalar *, alpha))

/* selu: integer inputs are computed in float32 and truncated to their dtype, then cast to out's (the op_api checks
 * only that both dtypes are in its list) */
ACLSTUB_EW_UNARY(selu_loops, ACLSTUB_EW_FLOATS,
                 ACT_SELU_SCALE * (x > 0 ? (double)x : ACT_SELU_ALPHA * act_expm1((double)x)))
static const aclStubElementwise SELU = {1, F32_F16_BF16 | DT(ACL_INT32) | DT(ACL_INT8),
                                        ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY | ACLSTUB_EW_ANY_RANK |
                                            ACLSTUB_EW_INTS_VIA_FLOAT,
                                        &selu_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnSelu, SELU, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceSelu, SELU, (aclTensor *, selfRef))

/* ---- leaky relu, threshold ---------------------------------------------------------------------------------- */

ACLSTUB_EW_UNARY(leaky_relu_loops, ACLSTUB_EW_FLOATS, x > 0 ? x : x * s0)
static aclnnStatus float_attrs(aclStubOpCall *call) { /* attributes read with ToFloat */
    aclStubEwPlan *plan = plan_of(call);
    for (int k = 0; k < ACLSTUB_EW_MAX_ATTRS; k++) plan->ctx.f[k] = (float)plan->ctx.f[k];
    return OK;
}
static const aclStubElementwise LEAKY_RELU = {1, ACLSTUB_DT_REALS, 0, &leaky_relu_loops, float_attrs, NULL};
ACLSTUB_EW_OP(aclnnLeakyRelu, LEAKY_RELU, (const aclTensor *, self), (const aclScalar *, negativeSlope),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLeakyRelu, LEAKY_RELU, (aclTensor *, selfRef), (const aclScalar *, negativeSlope))

/* threshold: x > threshold ? x : value, compared in double; integers keep their type, value truncated to it */
#define THRESHOLD_DT (F32_F16_BF16 | DT(ACL_INT32) | DT(ACL_INT8) | DT(ACL_UINT8) | DT(ACL_INT16) | DT(ACL_INT64))
ACLSTUB_EW_UNARY(threshold_loops, ACLSTUB_EW_REAL, (double)x > d0 ? x : s1)
static const aclStubElementwise THRESHOLD = {1, THRESHOLD_DT, 0, &threshold_loops, float_attrs, NULL};
ACLSTUB_EW_OP(aclnnThreshold, THRESHOLD, (const aclTensor *, self), (const aclScalar *, threshold),
              (const aclScalar *, value), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceThreshold, THRESHOLD, (aclTensor *, selfRef), (const aclScalar *, threshold),
                      (const aclScalar *, value))

/* v clamped to [lo, hi] (NaN stays NaN): selects, which vectorise where fmin and fmax do not */
#define ACT_CLAMP(v, lo, hi) ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))

/* ---- hard sigmoid, hard swish, shrinks ---------------------------------------------------------------------- */

/* hardsigmoid: max(0, min(1, x / 6 + 1 / 2)); INT32 computed in float32 and truncated */
ACLSTUB_EW_UNARY(hardsigmoid_loops, ACLSTUB_EW_FLOATS,
                 ACT_CLAMP((double)x / 6.0 + 0.5, 0.0, 1.0))
static aclnnStatus hardsigmoid_check(aclStubOpCall *call) { return same_format(call, 0, 1); }
static const aclStubElementwise HARDSIGMOID = {1, F32_F16_BF16 | DT(ACL_INT32),
                                               ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_INTS_VIA_FLOAT, &hardsigmoid_loops,
                                               hardsigmoid_check, NULL};
ACLSTUB_EW_OP(aclnnHardsigmoid, HARDSIGMOID, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceHardsigmoid, HARDSIGMOID, (const aclTensor *, self))

/* hardswish: x min(max(x + 3, 0), 6) / 6 */
ACLSTUB_EW_UNARY(hardswish_loops, ACLSTUB_EW_FLOATS,
                 (double)x * ACT_CLAMP((double)x + 3.0, 0.0, 6.0) / 6.0)
static const aclStubElementwise HARDSWISH = {1, F32_F16_BF16, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_ANY_RANK,
                                             &hardswish_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnHardswish, HARDSWISH, (const aclTensor *, self), (const aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceHardswish, HARDSWISH, (const aclTensor *, self))

/* hardshrink: x where x > lambd or x < -lambd, else 0 (a negative lambd counts as 0; NaN gives 0, as the formula) */
ACLSTUB_EW_UNARY(hardshrink_loops, ACLSTUB_EW_FLOATS, (x > s0 || x < -s0) ? x : 0)
static aclnnStatus hardshrink_check(aclStubOpCall *call) {
    float lambd = scalar_f32(call, 1);
    plan_of(call)->ctx.f[0] = lambd < 0.0f ? 0.0f : lambd;
    return OK;
}
static const aclStubElementwise HARDSHRINK = {1, F32_F16_BF16, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY,
                                              &hardshrink_loops, hardshrink_check, NULL};
ACLSTUB_EW_OP(aclnnHardshrink, HARDSHRINK, (const aclTensor *, self), (const aclScalar *, lambd), (aclTensor *, out))

/* softshrink: x - lambd above lambd, x + lambd below -lambd, else 0 */
ACLSTUB_EW_UNARY(softshrink_loops, ACLSTUB_EW_FLOATS,
                 x > s0 ? (double)x - s0 : (x < -s0 ? (double)x + s0 : (x != x ? (double)x : 0.0)))
static aclnnStatus lambd_check(aclStubOpCall *call) {
    float lambd = scalar_f32(call, 1);
    ACLSTUB_RETURN_ERROR_IF(lambd < 0.0f, call, ACLNN_ERR_PARAM_INVALID,
                            "lambd should be greater or equal to 0, but found to be [%f].", (double)lambd);
    return float_attrs(call);
}
static const aclStubElementwise SOFTSHRINK = {1, F32_F16_BF16, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY,
                                              &softshrink_loops, lambd_check, NULL};
ACLSTUB_EW_OP(aclnnSoftshrink, SOFTSHRINK, (const aclTensor *, self), (const aclScalar *, lambd), (aclTensor *, out))

/* shrink: x + bias below -lambd, x - bias above lambd, else 0 */
ACLSTUB_EW_UNARY(shrink_loops, ACLSTUB_EW_FLOATS,
                 x < -s0 ? (double)x + s1 : (x > s0 ? (double)x - s1 : (x != x ? (double)x : 0.0)))
static aclnnStatus shrink_check(aclStubOpCall *call) {
    ACLSTUB_TRY(lambd_check(call));
    const aclStubTensorDesc *x = call->v[0].tensor, *y = call->v[3].tensor;
    ACLSTUB_RETURN_ERROR_IF(x->format != y->format, call, ACLNN_ERR_PARAM_INVALID,
                            "Format of input and output should be equal, self [%d], output [%d].", (int)x->format,
                            (int)y->format);
    return OK;
}
static const aclStubElementwise SHRINK = {1, F32_F16, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY | ACLSTUB_EW_ANY_RANK,
                                          &shrink_loops, shrink_check, NULL};
ACLSTUB_EW_OP(aclnnShrink, SHRINK, (const aclTensor *, self), (const aclScalar *, lambd), (const aclScalar *, bias),
              (aclTensor *, out))

/* ---- sigmoid family ----------------------------------------------------------------------------------------- */

#define ACT_FLOATS_COMPLEX(X, ...) ACLSTUB_EW_FLOATS(X, __VA_ARGS__) ACLSTUB_EW_COMPLEX(X, __VA_ARGS__)
#define SIGMOID_OUT_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_COMPLEX)
/* sigmoid: inputs outside the output list (integers, BOOL) are cast to out's dtype first; no cast rule */
ACLSTUB_EW_UNARY(sigmoid_loops, ACT_FLOATS_COMPLEX, ACT_SIGMOID(x))
static aclDataType sigmoid_dtype_hook(const aclStubOpCall *call, aclDataType self);
static aclnnStatus sigmoid_check(aclStubOpCall *call) { /* out in the output list */
    const aclStubTensorDesc *y = call->v[1].tensor;
    char buf[256];
    ACLSTUB_RETURN_ERROR_IF((unsigned)y->dtype >= 64 || !(SIGMOID_OUT_DT & DT(y->dtype)), call,
                            ACLNN_ERR_PARAM_INVALID, "argument 'out' has data type %s; supported: %s",
                            aclStubDtypeName(y->dtype), aclStubDtypeSetName(SIGMOID_OUT_DT, buf, sizeof buf));
    return OK;
}
static const aclStubElementwise SIGMOID = {1, SIGMOID_OUT_DT | ACLSTUB_DT_INTS | DT(ACL_INT16) | DT(ACL_BOOL),
                                           ACLSTUB_EW_OUT_ANY, &sigmoid_loops, sigmoid_check, sigmoid_dtype_hook};
static const aclStubElementwise SIGMOID_OUT_ONLY = {1, SIGMOID_OUT_DT, ACLSTUB_EW_OUT_ANY, &sigmoid_loops, NULL, NULL};
/* the plan's output index is not set yet when result_dtype runs: out is the last parameter of aclnnSigmoid */
static aclDataType sigmoid_dtype_hook(const aclStubOpCall *call, aclDataType self) {
    return (SIGMOID_OUT_DT & DT(self)) ? self : call->v[call->op->num_params - 1].tensor->dtype;
}
ACLSTUB_EW_OP(aclnnSigmoid, SIGMOID, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceSigmoid, SIGMOID_OUT_ONLY, (aclTensor *, selfRef))

/* silu and swish: x sigmoid(beta x) */
ACLSTUB_EW_UNARY(swish_loops, ACLSTUB_EW_FLOATS, act_swish((double)x, (double)s0))
static aclnnStatus silu_check(aclStubOpCall *call) {
    plan_of(call)->ctx.f[0] = 1.0;
    return OK;
}
static const aclStubElementwise SILU = {1, F32_F16_BF16,
                                        ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_ANY_RANK,
                                        &swish_loops, silu_check, NULL};
ACLSTUB_EW_OP(aclnnSilu, SILU, (const aclTensor *, self), (aclTensor *, out))
static aclnnStatus swish_check(aclStubOpCall *call) {
    plan_of(call)->ctx.f[0] = call->v[1].present ? scalar_f32(call, 1) : 1.0f;
    return OK;
}
static const aclStubElementwise SWISH = {1, F32_F16_BF16,
                                         ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_ATTRS_TO_FLOAT,
                                         &swish_loops, swish_check, NULL};
ACLSTUB_EW_OP_NULLABLE(aclnnSwish, SWISH, 1, (const aclTensor *, self), (const aclScalar *, betaOptional),
                       (aclTensor *, out))

/* fast gelu: x / (1 + exp(-1.702 x)) */
static aclnnStatus fast_gelu_check(aclStubOpCall *call) {
    plan_of(call)->ctx.f[0] = 1.702;
    return same_format(call, 0, 1);
}
static const aclStubElementwise FAST_GELU = {1, F32_F16_BF16, ACLSTUB_EW_OUT_SAME, &swish_loops, fast_gelu_check, NULL};
ACLSTUB_EW_OP(aclnnFastGelu, FAST_GELU, (const aclTensor *, self), (aclTensor *, out))

/* log sigmoid: -softplus(-x); aclnnLogSigmoidForward ignores its buffer, as the op_api does */
ACLSTUB_EW_UNARY(log_sigmoid_loops, ACLSTUB_EW_FLOATS, act_log_sigmoid((double)x))
static aclnnStatus log_sigmoid_forward_check(aclStubOpCall *call) {
    aclStubOpIgnore(call, 2);
    return OK;
}
static const aclStubElementwise LOG_SIGMOID = {1, F32_F16_BF16,
                                               ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_ANY_RANK,
                                               &log_sigmoid_loops, NULL, NULL};
static const aclStubElementwise LOG_SIGMOID_FORWARD = {1, F32_F16_BF16,
                                                       ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_OUT_IN_LIST |
                                                           ACLSTUB_EW_ANY_RANK,
                                                       &log_sigmoid_loops, log_sigmoid_forward_check, NULL};
ACLSTUB_EW_OP(aclnnLogSigmoid, LOG_SIGMOID, (const aclTensor *, self), (aclTensor *, out))
_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")
static const aclStubParam aclnnLogSigmoidForward_params_[] = {
    {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    {"buffer", ACLSTUB_OPTIONAL_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
_Pragma("GCC diagnostic pop")
static const aclStubFamilyOp aclnnLogSigmoidForward_op_ = {
    {"aclnnLogSigmoidForward", aclnnLogSigmoidForward_params_, 3, NULL, aclStubEwCheck, aclStubEwKernel,
     sizeof(aclStubEwPlan)},
    &LOG_SIGMOID_FORWARD};
ACLSTUB_DEFINE_OP(aclnnLogSigmoidForward, aclnnLogSigmoidForward_op_.def, (const aclTensor *, self),
                  (aclTensor *, out), (aclTensor *, buffer))

/* mish: x tanh(softplus(x)) */
ACLSTUB_EW_UNARY(mish_loops, ACLSTUB_EW_FLOATS, act_mish((double)x))
static const aclStubElementwise MISH = {1, F32_F16_BF16, ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_OUT_IN_LIST, &mish_loops,
                                        NULL, NULL};
ACLSTUB_EW_OP(aclnnMish, MISH, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceMish, MISH, (aclTensor *, selfRef))

/* softplus: x where beta x > threshold, else log(1 + exp(beta x)) / beta */
ACLSTUB_EW_UNARY(softplus_loops, ACLSTUB_EW_FLOATS,
                 (double)x * s0 > s1 ? (double)x : act_softplus((double)x * s0) / s0)
static const aclStubElementwise SOFTPLUS = {1, F32_F16_BF16, ACLSTUB_EW_ATTRS_TO_FLOAT, &softplus_loops, float_attrs,
                                            NULL};
ACLSTUB_EW_OP(aclnnSoftplus, SOFTPLUS, (const aclTensor *, self), (const aclScalar *, beta),
              (const aclScalar *, threshold), (aclTensor *, out))

/* ---- gelu --------------------------------------------------------------------------------------------------- */

/* aclnnGelu: the tanh approximation (its documented formula) */
ACLSTUB_EW_UNARY(gelu_tanh_loops, ACLSTUB_EW_FLOATS, act_gelu_tanh((double)x))
static aclnnStatus gelu_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = call->v[0].tensor, *y = call->v[1].tensor;
    ACLSTUB_RETURN_ERROR_IF(private_format(x->format) || private_format(y->format), call, ACLNN_ERR_PARAM_INVALID,
                            "Format only support ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, self [%d], out [%d]",
                            (int)x->format, (int)y->format);
    return OK;
}
static const aclStubElementwise GELU = {1, F32_F16_BF16, ACLSTUB_EW_OUT_SAME, &gelu_tanh_loops, gelu_check, NULL};
ACLSTUB_EW_OP(aclnnGelu, GELU, (const aclTensor *, self), (aclTensor *, out))

/* aclnnGeluV2: approximate 1 is tanh, anything else erf ("none") */
ACLSTUB_EW_UNARY(gelu_v2_loops, ACLSTUB_EW_FLOATS, i0 == 1 ? act_gelu_tanh((double)x) : act_gelu_erf((double)x))
static const aclStubElementwise GELU_V2 = {1, F32_F16_BF16, ACLSTUB_EW_OUT_SAME, &gelu_v2_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnGeluV2, GELU_V2, (const aclTensor *, x), (int64_t, approximate), (aclTensor *, y))

/* ---- erfinv, heaviside -------------------------------------------------------------------------------------- */

#define ERFINV_DT (F32_F16_BF16 | DT(ACL_BOOL) | ACLSTUB_DT_INTS | DT(ACL_INT16))
ACLSTUB_EW_UNARY(erfinv_loops, ACLSTUB_EW_FLOATS, act_erfinv((double)x))
static const aclStubElementwise ERFINV = {1, ERFINV_DT, ACLSTUB_EW_INT_TO_FLOAT, &erfinv_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnErfinv, ERFINV, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceErfinv, ERFINV, (const aclTensor *, selfRef))

/* heaviside: values where input is 0, else 1 above 0 and 0 below (NaN gives 0) */
ACLSTUB_EW_BINARY(heaviside_loops, ACLSTUB_EW_FLOATS, a == 0 ? b : (a > 0 ? 1 : 0))
static const aclStubElementwise HEAVISIDE = {2, F32_F16_BF16, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY,
                                             &heaviside_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnHeaviside, HEAVISIDE, (const aclTensor *, input), (const aclTensor *, values), (aclTensor *, out))

