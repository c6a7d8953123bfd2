/*
 * Backward operators of ops-nn activation/ on the elementwise engine: gradOutput (a) times the derivative at the
 * forward input or result (b), one row per operator with its op_api's dtype list and rules.
 */
#include "act_math.h"
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_elu_backward.h"
#include "aclnnop/aclnn_fast_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward.h"
#include "aclnnop/aclnn_gelu_backward_v2.h"
#include "aclnnop/aclnn_hardshrink_backward.h"
#include "aclnnop/aclnn_hardsigmoid_backward.h"
#include "aclnnop/aclnn_hardswish_backward.h"
#include "aclnnop/aclnn_hardswish_backward_v2.h"
#include "aclnnop/aclnn_hardtanh_backward.h"
#include "aclnnop/aclnn_leaky_relu_backward.h"
#include "aclnnop/aclnn_logsigmoid_backward.h"
#include "aclnnop/aclnn_mish_backward.h"
#include "aclnnop/aclnn_selu_backward.h"
#include "aclnnop/aclnn_sigmoid_backward.h"
#include "aclnnop/aclnn_silu_backward.h"
#include "aclnnop/aclnn_softplus_backward.h"
#include "aclnnop/aclnn_softshrink_backward.h"
#include "aclnnop/aclnn_swish_backward.h"
#include "aclnnop/aclnn_threshold_backward.h"

#define DT ACLSTUB_DT
#define FLOATS ACLSTUB_DT_FLOATS
#define EVERY_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX | ACLSTUB_DT_UINTS)

static aclStubEwPlan *plan_of(const aclStubOpCall *call) { return (aclStubEwPlan *)call->plan; }

/* Scalar attributes are read with ToFloat. */
static aclnnStatus float_attrs(aclStubOpCall *call) {
    aclStubEwPlan *plan = plan_of(call);
    for (int k = 0; k < ACLSTUB_EW_MAX_ATTRS; k++) plan->ctx.f[k] = (float)plan->ctx.f[k];
    return OK;
}

static aclnnStatus in_list(const aclStubOpCall *call, int i, uint64_t dtypes) {
    const aclStubTensorDesc *t = call->v[i].tensor;
    char buf[256];
    if ((unsigned)t->dtype >= 64 || !(dtypes & DT(t->dtype)))
        return aclStubOpFail(call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has data type %s; supported: %s",
                             aclStubOpName(call, i), aclStubDtypeName(t->dtype),
                             aclStubDtypeSetName(dtypes, buf, sizeof buf));
    return OK;
}

/* ---- elu, selu ------------------------------------------------------------------------------------------------ */

/* elu backward: s0 alpha, s1 scale, s2 inputScale, i3 isResult; b is the forward input, or its result */
ACLSTUB_EW_BINARY(elu_bw_loops, ACLSTUB_EW_FLOATS,
                  b > 0 ? (double)a * s1
                        : (i3 ? (double)a * s2 * ((double)b + (double)s0 * s1)
                              : (double)a * s2 * s0 * s1 * act_exp((double)b * s2)))
static aclnnStatus elu_bw_check(aclStubOpCall *call) {
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(call, 4) && (float)aclStubOpScalarF64(call, 1) < 0, call,
                            ACLNN_ERR_PARAM_INVALID, "In-place elu backward calculation is triggered with a negative "
                            "slope which is not supported. This is caused by calling in-place forward function with a "
                            "negative slope, please call out-of-place version instead.");
    return float_attrs(call);
}
static const aclStubElementwise ELU_BW = {2, FLOATS,
                                          ACLSTUB_EW_TENSOR_OPERANDS | ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_SAME_SHAPE |
                                              ACLSTUB_EW_ATTRS_TO_FLOAT,
                                          &elu_bw_loops, elu_bw_check, NULL};
ACLSTUB_EW_OP(aclnnEluBackward, ELU_BW, (const aclTensor *, gradOutput), (const aclScalar *, alpha),
              (const aclScalar *, scale), (const aclScalar *, inputScale), (bool, isResult),
              (const aclTensor *, selfOrResult), (aclTensor *, gradInput))

/* selu backward from the forward result; integers computed in float32 and truncated */
ACLSTUB_EW_BINARY(selu_bw_loops, ACLSTUB_EW_FLOATS,
                  b > 0 ? (double)a * ACT_SELU_SCALE : (double)a * ((double)b + ACT_SELU_ALPHA * ACT_SELU_SCALE))
static const aclStubElementwise SELU_BW = {2, FLOATS | DT(ACL_INT32) | DT(ACL_INT8),
                                           ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_SHAPE |
                                               ACLSTUB_EW_ANY_RANK | ACLSTUB_EW_INTS_VIA_FLOAT,
                                           &selu_bw_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnSeluBackward, SELU_BW, (const aclTensor *, gradOutput), (const aclTensor *, result),
              (aclTensor *, gradInput))

/* ---- relu family ---------------------------------------------------------------------------------------------- */

ACLSTUB_EW_BINARY(leaky_relu_bw_loops, ACLSTUB_EW_FLOATS, b > 0 ? a : a * s0)
static aclnnStatus leaky_relu_bw_check(aclStubOpCall *call) {
    aclDataType s = call->v[2].dtype;
    ACLSTUB_RETURN_ERROR_IF(aclStubIsComplex(s) || (unsigned)s >= 64 ||
                                !((ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_INT16) | DT(ACL_BOOL)) & DT(s)),
                            call, ACLNN_ERR_PARAM_INVALID, "negativeSlope has data type %s, which is not supported",
                            aclStubDtypeName(s));
    ACLSTUB_RETURN_ERROR_IF(aclStubOpBool(call, 3) && aclStubOpScalarF64(call, 2) < 0.0, call,
                            ACLNN_ERR_PARAM_INVALID, "In-place leakyRelu backward calculation is triggered with a "
                            "negativeSlope which is not supported, while negativeSlope: [%e], selfIsResult: [1].",
                            aclStubOpScalarF64(call, 2));
    return float_attrs(call);
}
static const aclStubElementwise LEAKY_RELU_BW = {2, ACLSTUB_DT_REALS, 0, &leaky_relu_bw_loops, leaky_relu_bw_check,
                                                 NULL};
ACLSTUB_EW_OP(aclnnLeakyReluBackward, LEAKY_RELU_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclScalar *, negativeSlope), (bool, selfIsResult), (aclTensor *, out))

/* threshold backward: 0 where self <= threshold; integers keep their type */
#define THRESHOLD_BW_DT (FLOATS | DT(ACL_INT32) | DT(ACL_INT8) | DT(ACL_UINT8))
ACLSTUB_EW_BINARY(threshold_bw_loops, ACLSTUB_EW_REAL, (double)b <= d0 ? 0 : a)
static const aclStubElementwise THRESHOLD_BW = {2, THRESHOLD_BW_DT, ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME,
                                                &threshold_bw_loops, float_attrs, NULL};
ACLSTUB_EW_OP(aclnnThresholdBackward, THRESHOLD_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclScalar *, threshold), (aclTensor *, out))

/* hardtanh backward: 0 outside (min, max) */
ACLSTUB_EW_BINARY(hardtanh_bw_loops, ACLSTUB_EW_FLOATS, (b <= s0 || b >= s1) ? 0 : a)
static const aclStubElementwise HARDTANH_BW = {2, FLOATS,
                                               ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY |
                                                   ACLSTUB_EW_SAME_SHAPE,
                                               &hardtanh_bw_loops, float_attrs, NULL};
ACLSTUB_EW_OP(aclnnHardtanhBackward, HARDTANH_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclScalar *, min), (const aclScalar *, max), (aclTensor *, out))

/* ---- hard sigmoid, hard swish, shrinks ------------------------------------------------------------------------ */

ACLSTUB_EW_BINARY(hardsigmoid_bw_loops, ACLSTUB_EW_FLOATS, (b > -3 && b < 3) ? (double)a / 6.0 : 0.0)
static const aclStubElementwise HARDSIGMOID_BW = {2, FLOATS, ACLSTUB_EW_SAME_SHAPE, &hardsigmoid_bw_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnHardsigmoidBackward, HARDSIGMOID_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (aclTensor *, out))

ACLSTUB_EW_BINARY(hardswish_bw_loops, ACLSTUB_EW_FLOATS,
                  b < -3 ? 0.0 : (b <= 3 ? (double)a * ((double)b / 3.0 + 0.5) : (double)a))
static const aclStubElementwise HARDSWISH_BW = {2, FLOATS,
                                                ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_SHAPE,
                                                &hardswish_bw_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnHardswishBackward, HARDSWISH_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (aclTensor *, out))

ACLSTUB_EW_BINARY(hardswish_bw_v2_loops, ACLSTUB_EW_FLOATS,
                  b <= -3 ? 0.0 : (b < 3 ? (double)a * ((double)b / 3.0 + 0.5) : (double)a))
static const aclStubElementwise HARDSWISH_BW_V2 = {2, FLOATS,
                                                   ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_SHAPE,
                                                   &hardswish_bw_v2_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnHardswishBackwardV2, HARDSWISH_BW_V2, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (aclTensor *, out))

/* shrink backward: 0 inside [-lambd, lambd] */
ACLSTUB_EW_BINARY(shrink_bw_loops, ACLSTUB_EW_FLOATS, (b >= -s0 && b <= s0) ? 0 : a)
static aclnnStatus hardshrink_bw_check(aclStubOpCall *call) {
    float lambd = (float)aclStubOpScalarF64(call, 2);
    plan_of(call)->ctx.f[0] = lambd < 0 ? 0.0f : lambd;
    return OK;
}
static const aclStubElementwise HARDSHRINK_BW = {2, FLOATS,
                                                 ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_RESULT_IN_LIST |
                                                     ACLSTUB_EW_EMPTY_BEFORE_SHAPES,
                                                 &shrink_bw_loops, hardshrink_bw_check, NULL};
ACLSTUB_EW_OP(aclnnHardshrinkBackward, HARDSHRINK_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclScalar *, lambd), (aclTensor *, gradInput))

static aclnnStatus softshrink_bw_check(aclStubOpCall *call) {
    float lambd = (float)aclStubOpScalarF64(call, 2);
    ACLSTUB_RETURN_ERROR_IF(lambd < 0.0f, call, ACLNN_ERR_PARAM_INVALID,
                            "lambd should be greater or equal to 0, but found to be [%f].", (double)lambd);
    return float_attrs(call);
}
static const aclStubElementwise SOFTSHRINK_BW = {2, FLOATS, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY,
                                                 &shrink_bw_loops, softshrink_bw_check, NULL};
ACLSTUB_EW_OP(aclnnSoftshrinkBackward, SOFTSHRINK_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclScalar *, lambd), (aclTensor *, gradInput))

/* ---- sigmoid family ------------------------------------------------------------------------------------------- */

#define ACT_FLOATS_COMPLEX(X, ...) ACLSTUB_EW_FLOATS(X, __VA_ARGS__) ACLSTUB_EW_COMPLEX(X, __VA_ARGS__)
/* sigmoid backward from the forward result y: g y (1 - y) (conjugated for complex values) */
ACLSTUB_EW_BINARY(sigmoid_bw_loops, ACT_FLOATS_COMPLEX, a * ACT_SIGMOID_DERIV(b))
static const aclStubElementwise SIGMOID_BW = {2, ACLSTUB_DT_REALS | ACLSTUB_DT_COMPLEX,
                                              ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_RESULT_IN_LIST, &sigmoid_bw_loops,
                                              NULL, NULL};
ACLSTUB_EW_OP(aclnnSigmoidBackward, SIGMOID_BW, (const aclTensor *, gradOutput), (const aclTensor *, output),
              (aclTensor *, gradInput))

/* silu, swish and fast gelu backward: g d/dx (x sigmoid(beta x)) */
ACLSTUB_EW_BINARY(swish_bw_loops, ACLSTUB_EW_FLOATS, (double)a * act_swish_grad((double)b, (double)s0))
static aclnnStatus silu_bw_check(aclStubOpCall *call) {
    plan_of(call)->ctx.f[0] = 1.0;
    return OK;
}
static const aclStubElementwise SILU_BW = {2, FLOATS,
                                           ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY |
                                               ACLSTUB_EW_SAME_SHAPE,
                                           &swish_bw_loops, silu_bw_check, NULL};
ACLSTUB_EW_OP(aclnnSiluBackward, SILU_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (aclTensor *, gradInput))

static aclnnStatus swish_bw_check(aclStubOpCall *call) {
    plan_of(call)->ctx.f[0] = call->v[2].present ? (float)aclStubOpScalarF64(call, 2) : 1.0f;
    return OK;
}
static const aclStubElementwise SWISH_BW = {2, FLOATS,
                                            ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_SHAPE |
                                                ACLSTUB_EW_ATTRS_TO_FLOAT,
                                            &swish_bw_loops, swish_bw_check, NULL};
_Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")
static const aclStubParam aclnnSwishBackward_params_[] = {
    {"gradOutput", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    {"betaOptional", ACLSTUB_SCALAR, 0, NULL, ACLSTUB_NULLABLE, 0, 0},
    {"gradInput", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
_Pragma("GCC diagnostic pop")
static const aclStubFamilyOp aclnnSwishBackward_op_ = {
    {"aclnnSwishBackward", aclnnSwishBackward_params_, 4, NULL, aclStubEwCheck, aclStubEwKernel,
     sizeof(aclStubEwPlan)},
    &SWISH_BW};
ACLSTUB_DEFINE_OP(aclnnSwishBackward, aclnnSwishBackward_op_.def, (const aclTensor *, gradOutput),
                  (const aclTensor *, self), (const aclScalar *, betaOptional), (aclTensor *, gradInput))

static aclnnStatus fast_gelu_bw_check(aclStubOpCall *call) {
    const aclStubTensorDesc *g = call->v[0].tensor, *x = call->v[1].tensor, *y = call->v[2].tensor;
    ACLSTUB_RETURN_ERROR_IF(x->format != y->format || x->format != g->format, call, ACLNN_ERR_PARAM_INVALID,
                            "Format of self, gradOutput and gradInput can't be different: [%d], [%d], [%d].",
                            (int)x->format, (int)g->format, (int)y->format);
    plan_of(call)->ctx.f[0] = 1.702;
    return OK;
}
static const aclStubElementwise FAST_GELU_BW = {2, FLOATS,
                                                ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_SHAPE,
                                                &swish_bw_loops, fast_gelu_bw_check, NULL};
ACLSTUB_EW_OP(aclnnFastGeluBackward, FAST_GELU_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (aclTensor *, gradInput))

/* log sigmoid backward: g sigmoid(-x); the buffer is not read */
ACLSTUB_EW_BINARY(log_sigmoid_bw_loops, ACLSTUB_EW_FLOATS, (double)a * act_sigmoid(-(double)b))
static aclnnStatus log_sigmoid_bw_check(aclStubOpCall *call) {
    aclStubOpIgnore(call, 2);
    return OK;
}
static const aclStubElementwise LOG_SIGMOID_BW = {2, FLOATS,
                                                  ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_SAME_SHAPE |
                                                      ACLSTUB_EW_ANY_RANK,
                                                  &log_sigmoid_bw_loops, log_sigmoid_bw_check, NULL};
ACLSTUB_EW_OP(aclnnLogSigmoidBackward, LOG_SIGMOID_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclTensor *, buffer), (aclTensor *, gradInput))

/* mish backward */
ACLSTUB_EW_BINARY(mish_bw_loops, ACLSTUB_EW_FLOATS, (double)a * act_mish_grad((double)b))
static const aclStubElementwise MISH_BW = {2, FLOATS, ACLSTUB_EW_OUT_IN_LIST, &mish_bw_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnMishBackward, MISH_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (aclTensor *, gradInput))

/* softplus backward: g where beta x > threshold, else g sigmoid(beta x); gradOutput and gradInput take the real
 * floating types, self any number type (computed in float32 unless both inputs share a 32/16-bit float type) */
ACLSTUB_EW_BINARY(softplus_bw_loops, ACLSTUB_EW_FLOATS,
                  (double)b * s0 > s1 ? (double)a : (double)a * act_sigmoid((double)b * s0))
static aclnnStatus softplus_bw_check(aclStubOpCall *call) {
    ACLSTUB_TRY(in_list(call, 0, ACLSTUB_DT_REALS));
    ACLSTUB_TRY(in_list(call, 4, ACLSTUB_DT_REALS));
    return float_attrs(call);
}
static aclDataType softplus_bw_dtype(const aclStubOpCall *call, aclDataType promoted) {
    aclDataType g = call->v[0].tensor->dtype, x = call->v[1].tensor->dtype;
    (void)promoted;
    return g == x && (FLOATS & DT(g)) ? g : ACL_FLOAT;
}
static const aclStubElementwise SOFTPLUS_BW = {
    2, ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | DT(ACL_INT16) | DT(ACL_BOOL),
    ACLSTUB_EW_OUT_ANY | ACLSTUB_EW_SAME_SHAPE, &softplus_bw_loops, softplus_bw_check, softplus_bw_dtype};
ACLSTUB_EW_OP(aclnnSoftplusBackward, SOFTPLUS_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclScalar *, beta), (const aclScalar *, threshold), (aclTensor *, gradInput))

/* ---- gelu ----------------------------------------------------------------------------------------------------- */

/* The promoted dtype of the two inputs must be a floating one of the list; the inputs themselves may be anything. */
static aclDataType gelu_bw_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)call;
    return (FLOATS & DT(promoted)) ? promoted : ACL_DT_UNDEFINED;
}
ACLSTUB_EW_BINARY(gelu_bw_loops, ACLSTUB_EW_FLOATS, (double)a * act_gelu_tanh_grad((double)b))
static const aclStubElementwise GELU_BW = {2, EVERY_DT, ACLSTUB_EW_OUT_ANY | ACLSTUB_EW_RESULT_IN_LIST,
                                           &gelu_bw_loops, NULL, gelu_bw_dtype};
ACLSTUB_EW_OP(aclnnGeluBackward, GELU_BW, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (const aclTensor *, gradInput))

/* i0: 1 for "tanh", 0 for "none" */
ACLSTUB_EW_BINARY(gelu_bw_v2_loops, ACLSTUB_EW_FLOATS,
                  (double)a * (i0 ? act_gelu_tanh_grad((double)b) : act_gelu_erf_grad((double)b)))
static aclnnStatus gelu_bw_v2_check(aclStubOpCall *call) {
    const char *mode = call->v[2].s;
    ACLSTUB_RETURN_ERROR_IF(mode == NULL, call, ACLNN_ERR_PARAM_NULLPTR,
                            "approximate only supports to set none or tanh, but got null.");
    ACLSTUB_RETURN_ERROR_IF(strcmp(mode, "tanh") != 0 && strcmp(mode, "none") != 0, call, ACLNN_ERR_PARAM_INVALID,
                            "approximate only supports to set none or tanh, but got %s.", mode);
    plan_of(call)->ctx.i[0] = strcmp(mode, "tanh") == 0;
    return OK;
}
static const aclStubElementwise GELU_BW_V2 = {2, EVERY_DT,
                                              ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_RESULT_IN_LIST | ACLSTUB_EW_ANY_RANK,
                                              &gelu_bw_v2_loops, gelu_bw_v2_check, gelu_bw_dtype};
ACLSTUB_EW_OP(aclnnGeluBackwardV2, GELU_BW_V2, (const aclTensor *, gradOutput), (const aclTensor *, self),
              (char *, approximate), (aclTensor *, gradInput))
