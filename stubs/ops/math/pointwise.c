/*
 * Pointwise operators of ops-math math/ with three operands or special dtypes: addcdiv, addcmul, lerp (tensor and
 * scalar weight), nan_to_num, scale, complex, polar, real and s_where (select), with their in-place variants.
 *
 * addcdiv computes self + value * (tensor1 / tensor2) (integers: the quotient truncated, by ew_math.h's rule for a
 * divisor of 0), addcmul self + value * tensor1 * tensor2, lerp torch's two-sided formula (self + w * (end - self)
 * for |w| < 0.5, else end - (end - self) * (1 - w)); each in the promoted dtype (FLOAT16/BF16 in FLOAT, one rounding).
 */
#include "ew_math.h"

#include "aclnnop/aclnn_addcdiv.h"
#include "aclnnop/aclnn_addcmul.h"
#include "aclnnop/aclnn_angle_v2.h"
#include "aclnnop/aclnn_complex.h"
#include "aclnnop/aclnn_lerp_scalar.h"
#include "aclnnop/aclnn_lerp_tensor.h"
#include "aclnnop/aclnn_nan_to_num.h"
#include "aclnnop/aclnn_polar.h"
#include "aclnnop/aclnn_real.h"
#include "aclnnop/aclnn_s_where.h"
#include "aclnnop/aclnn_scale.h"

#define ANY_DT (EW_DT_ALL | ACLSTUB_DT_UINTS)

/* ---- addcdiv, addcmul ------------------------------------------------------------------------------------------- */

#define ADDCDIV_DT (EW_DT(FLOAT) | EW_DT(INT64) | EW_DT(FLOAT16) | EW_DT(DOUBLE) | EW_DT(BF16))
#define ADDCMUL_DT (EW_DT(FLOAT) | EW_DT(INT32) | EW_DT(INT64) | EW_DT(FLOAT16) | EW_DT(INT8) | EW_DT(UINT8) | \
                    EW_DT(DOUBLE) | EW_DT(BF16))
ACLSTUB_EW_TERNARY(addcdiv_loops, ACLSTUB_EW_REAL, a + s0 * EW_DIV(b, c))
ACLSTUB_EW_TERNARY(addcmul_loops, ACLSTUB_EW_REAL, a + s0 * b * c)

/* the promoted dtype: PromoteType(self, PromoteType(tensor1, tensor2)) (the engine's order gives the same) */
static aclnnStatus addcmul_check(aclStubOpCall *call) {
    aclDataType p = ((aclStubEwPlan *)call->plan)->compute;
    ACLSTUB_RETURN_ERROR_IF(p == ACL_INT16 || p == ACL_BOOL || aclStubIsComplex(p), call, ACLNN_ERR_PARAM_INVALID,
                            "promote dtype %s is not supported", aclStubDtypeName(p));
    return OK;
}
static const aclStubElementwise ADDCDIV = {3, ADDCDIV_DT, 0, &addcdiv_loops, NULL, NULL};
static const aclStubElementwise ADDCMUL = {3, ADDCMUL_DT, ACLSTUB_EW_NO_PRIVATE_FORMAT, &addcmul_loops, addcmul_check,
                                           NULL};
ACLSTUB_EW_OP(aclnnAddcdiv, ADDCDIV, (const aclTensor *, self), (const aclTensor *, tensor1),
              (const aclTensor *, tensor2), (const aclScalar *, value), (const aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAddcdiv, ADDCDIV, (const aclTensor *, selfRef), (const aclTensor *, tensor1),
                      (const aclTensor *, tensor2), (const aclScalar *, value))
ACLSTUB_EW_OP(aclnnAddcmul, ADDCMUL, (const aclTensor *, self), (const aclTensor *, tensor1),
              (const aclTensor *, tensor2), (const aclScalar *, value), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAddcmul, ADDCMUL, (const aclTensor *, selfRef), (const aclTensor *, tensor1),
                      (const aclTensor *, tensor2), (const aclScalar *, value))

/* ---- lerp ---------------------------------------------------------------------------------------------------- */

#define LERP_DT ACLSTUB_DT_FLOATS
#define LERPS_OUT_DT (ACLSTUB_DT_FLOATS | EW_DT(DOUBLE))
/* both sides computed and one selected by a bit mask: the compiler vectorises it (a branch on random weights
 * would mispredict, and under -ftrapping-math a plain select of two computations stays a branch) */
static inline float lerp_f32(float a, float b, float w) {
    float d = b - a, lo = a + w * d, hi = b - d * (1.0f - w), r;
    uint32_t ul, uh, m = 0u - (uint32_t)(fabsf(w) < 0.5f);
    memcpy(&ul, &lo, 4);
    memcpy(&uh, &hi, 4);
    ul = (ul & m) | (uh & ~m);
    memcpy(&r, &ul, 4);
    return r;
}
static inline double lerp_f64(double a, double b, double w) {
    double d = b - a, lo = a + w * d, hi = b - d * (1.0 - w);
    return fabs(w) < 0.5 ? lo : hi;
}
#define EW_LERP(a, b, w) _Generic((a), float: lerp_f32, double: lerp_f64)(a, b, w)
ACLSTUB_EW_TERNARY(lerp_loops, ACLSTUB_EW_FLOATS, EW_LERP(a, b, c))
/* the scalar weight converted to self's dtype (rounded for FLOAT16/BF16) */
ACLSTUB_EW_BINARY(lerps_loops, ACLSTUB_EW_FLOATS, EW_LERP(a, b, ACLSTUB_EW_ROUND(s0)))
/* end, weight and out of self's dtype; more than 8 dimensions pass when every tensor is contiguous */
static const aclStubElementwise LERP = {3, LERP_DT,
                                        ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_SAME | ACLSTUB_EW_RANK_ANY_CONTIGUOUS,
                                        &lerp_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnLerp, LERP, (const aclTensor *, self), (const aclTensor *, end), (const aclTensor *, weight),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLerp, LERP, (aclTensor *, selfRef), (const aclTensor *, end),
                      (const aclTensor *, weight))
static aclnnStatus lerps_check(aclStubOpCall *call) {
    char buf[96];
    aclDataType out = ew_out_dtype(call);
    ACLSTUB_RETURN_ERROR_IF(!ew_in(LERPS_OUT_DT, out), call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be in dtype "
                            "support list [%s]", aclStubDtypeName(out),
                            aclStubDtypeSetName(LERPS_OUT_DT, buf, sizeof buf));
    return OK;
}
static const aclStubElementwise LERPS = {2, LERP_DT,
                                         ACLSTUB_EW_NO_PROMOTE | ACLSTUB_EW_OUT_ANY | ACLSTUB_EW_RANK_ANY_CONTIGUOUS,
                                         &lerps_loops, lerps_check, NULL};
ACLSTUB_EW_OP(aclnnLerps, LERPS, (const aclTensor *, self), (const aclTensor *, end), (const aclScalar *, weight),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLerps, LERPS, (aclTensor *, selfRef), (const aclTensor *, end),
                      (const aclScalar *, weight))

/* ---- nan_to_num: NaN, +inf and -inf replaced by the attributes converted to self's dtype; integers copied ------ */

#define NAN_TO_NUM_DT (ACLSTUB_DT_FLOATS | EW_DT(INT8) | EW_DT(INT16) | EW_DT(INT32) | EW_DT(INT64) | EW_DT(UINT8) | \
                       EW_DT(BOOL))
static inline float nan_to_num_f32(float x, float nan, float pos, float neg) {
    return x != x ? nan : x == INFINITY ? pos : x == -INFINITY ? neg : x;
}
#define EW_NAN_TO_NUM(x)                                                                                      \
    _Generic((x), float: nan_to_num_f32((float)(x), ACLSTUB_EW_ROUND(s0), ACLSTUB_EW_ROUND(s1),               \
                                        ACLSTUB_EW_ROUND(s2)), default: (x))
ACLSTUB_EW_UNARY(nan_to_num_loops, ACLSTUB_EW_NUMBERS, EW_NAN_TO_NUM(x))
static const aclStubElementwise NAN_TO_NUM = {1, NAN_TO_NUM_DT, ACLSTUB_EW_OUT_SAME, &nan_to_num_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnNanToNum, NAN_TO_NUM, (const aclTensor *, self), (float, nan), (float, posinf), (float, neginf),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceNanToNum, NAN_TO_NUM, (aclTensor *, selfRef), (float, nan), (float, posinf),
                      (float, neginf))

/* ---- real: the real part (FLOAT16 and FLOAT pass through) ---------------------------------------------------------- */

#define REAL_DT (EW_DT(FLOAT) | EW_DT(FLOAT16) | EW_DT(COMPLEX32) | EW_DT(COMPLEX64) | EW_DT(COMPLEX128))
ACLSTUB_EW_UNARY(copy_loops, ACLSTUB_EW_FLOATS, x)
static aclDataType real_part_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)call;
    switch (promoted) {
    case ACL_COMPLEX32: return ACL_FLOAT16;
    case ACL_COMPLEX64: return ACL_FLOAT;
    case ACL_COMPLEX128: return ACL_DOUBLE;
    default: return promoted;
    }
}
static aclnnStatus real_check(aclStubOpCall *call) {
    aclDataType in = ew_dtype(call, 0), out = ew_out_dtype(call);
    ACLSTUB_RETURN_ERROR_IF(out != real_part_dtype(call, in), call, ACLNN_ERR_PARAM_INVALID,
                            "when dtype of input is %s output is %s, the param is invalid", aclStubDtypeName(in),
                            aclStubDtypeName(out));
    return OK;
}
static const aclStubElementwise REAL = {1, REAL_DT, ACLSTUB_EW_OUT_ANY, &copy_loops, real_check, real_part_dtype};
ACLSTUB_EW_OP(aclnnReal, REAL, (const aclTensor *, self), (aclTensor *, out))

/* ---- s_where: condition (BOOL or UINT8, not zero selects self) ? self : other, in PromoteType(self, other) ------ */

#define WHERE_DT (EW_DT_ALL | ACLSTUB_DT_UINTS)
#define SET_WHERE(X, ...) ACLSTUB_EW_ALL(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)
ACLSTUB_EW_TERNARY(where_loops, SET_WHERE, a ? b : c)
static aclDataType where_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    return aclStubPromoteType(ew_dtype(call, 1), ew_dtype(call, 2));
}
static aclnnStatus where_check(aclStubOpCall *call) {
    aclDataType c = ew_dtype(call, 0);
    ACLSTUB_RETURN_ERROR_IF(c != ACL_BOOL && c != ACL_UINT8, call, ACLNN_ERR_PARAM_INVALID, "condition dtype %s should "
                            "be ACL_BOOL or ACL_UINT8", aclStubDtypeName(c));
    return OK;
}
/* out in the list; the op_api checks no cast to it */
static const aclStubElementwise SWHERE = {3, WHERE_DT, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY | ACLSTUB_EW_FIRST_APART,
                                          &where_loops, where_check, where_dtype};
ACLSTUB_EW_OP(aclnnSWhere, SWHERE, (const aclTensor *, condition), (const aclTensor *, self),
              (const aclTensor *, other), (aclTensor *, out))

/* ---- custom element loops over the iterator (complex, polar, scale) -------------------------------------------- */

/* One pass of the iterator with the given loop dtypes (output first). */
static aclnnStatus iter_pass(const aclStubOpCall *call, int nin, const aclStubTensorDesc *const *t,
                             const aclDataType *loop, aclStubLoopFn fn, const void *ctx) {
    aclStubIter it;
    memset(&it, 0, sizeof it);
    it.num_outputs = 1;
    it.num_inputs = nin;
    for (int k = 0; k <= nin; k++) {
        it.tensor[k] = t[k];
        it.loop_dtype[k] = loop[k];
    }
    return aclStubIterRun(call, &it, fn, ctx);
}

#define EW_LOOP2(NAME, OT, IT, EXPR)                                                                          \
    ACLSTUB_EW_CLONES_ static void NAME(char **d, const int64_t *s, int64_t n, const void *ctx) {             \
        (void)ctx;                                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                                     \
            const IT a = *(const IT *)(const void *)(d[1] + i * s[1]);                                        \
            const IT b = *(const IT *)(const void *)(d[2] + i * s[2]);                                        \
            *(OT *)(void *)(d[0] + i * s[0]) = (EXPR);                                                        \
        }                                                                                                     \
    }
EW_LOOP2(complex_c64, float _Complex, float, __builtin_complex(a, b))
EW_LOOP2(complex_c128, double _Complex, double, __builtin_complex(a, b))
/* polar: Cos and Sin of the angle (correctly rounded to FLOAT), each multiplied by abs (the op_api's Mul) */
EW_LOOP2(polar_c64, float _Complex, float, __builtin_complex((float)cos((double)b) * a, (float)sin((double)b) * a))

/* ---- complex(real, imag) ---------------------------------------------------------------------------------- */

enum { C_REAL, C_IMAG, C_OUT };
static const aclStubParam kComplexParams[] = {
    [C_REAL] = {"real", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [C_IMAG] = {"imag", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [C_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
static const aclStubParam kPolarParams[] = {
    [C_REAL] = {"input", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [C_IMAG] = {"angle", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [C_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};

/* shapes: ranks up to 8, the broadcast of the two inputs equal to out's */
static aclnnStatus pair_shapes(aclStubOpCall *call, bool out_rank) {
    char buf[128], buf2[128];
    int64_t shape[ACLSTUB_MAX_DIMS];
    uint32_t nd;
    const aclStubTensorDesc *a = aclStubOpTensor(call, 0), *b = aclStubOpTensor(call, 1), *out = aclStubOpTensor(call, 2);
    for (int k = 0; k < (out_rank ? 3 : 2); k++)
        ACLSTUB_RETURN_ERROR_IF(call->v[k].tensor->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has %u "
                                "dimensions; at most 8 are supported", aclStubOpName(call, k), call->v[k].tensor->ndim);
    ACLSTUB_RETURN_ERROR_IF(!aclStubBroadcastShape(a->dims, a->ndim, b->dims, b->ndim, shape, &nd), call,
                            ACLNN_ERR_PARAM_INVALID, "the shapes %s and %s can not broadcast",
                            aclStubShapeText(a->dims, a->ndim, buf, sizeof buf),
                            aclStubShapeText(b->dims, b->ndim, buf2, sizeof buf2));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(shape, nd, out->dims, out->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "shape of out should be %s, but current is %s", aclStubShapeText(shape, nd, buf, sizeof buf),
                            aclStubShapeText(out->dims, out->ndim, buf2, sizeof buf2));
    return OK;
}

static aclnnStatus complex_check(aclStubOpCall *call) {
    const aclStubTensorDesc *re = aclStubOpTensor(call, C_REAL), *im = aclStubOpTensor(call, C_IMAG);
    const aclStubTensorDesc *out = aclStubOpTensor(call, C_OUT);
    if (aclStubNumel(re) == 0 || aclStubNumel(im) == 0) return aclStubOpNothingToDo(call); /* before any rule */
    const uint64_t in = EW_DT(FLOAT16) | EW_DT(FLOAT) | EW_DT(DOUBLE);
    const uint64_t outs = EW_DT(COMPLEX32) | EW_DT(COMPLEX64) | EW_DT(COMPLEX128);
    for (int k = 0; k < 3; k++) {
        aclDataType t = call->v[k].tensor->dtype;
        ACLSTUB_RETURN_ERROR_IF(!ew_in(k == C_OUT ? outs : in, t), call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has "
                                "data type %s, which is not supported", aclStubOpName(call, k), aclStubDtypeName(t));
    }
    ACLSTUB_RETURN_ERROR_IF(re->dtype != im->dtype, call, ACLNN_ERR_PARAM_INVALID, "real and imag should have one "
                            "dtype, got %s and %s", aclStubDtypeName(re->dtype), aclStubDtypeName(im->dtype));
    aclDataType pair = re->dtype == ACL_FLOAT16 ? ACL_COMPLEX32 : re->dtype == ACL_FLOAT ? ACL_COMPLEX64 : ACL_COMPLEX128;
    ACLSTUB_RETURN_ERROR_IF(out->dtype != pair, call, ACLNN_ERR_PARAM_INVALID, "input dtype and out dtype must be "
                            "paired; current dtype is %s and %s", aclStubDtypeName(re->dtype),
                            aclStubDtypeName(out->dtype));
    return pair_shapes(call, false);
}
static aclnnStatus complex_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *t[3] = {aclStubOpTensor(call, C_OUT), aclStubOpTensor(call, C_REAL),
                                     aclStubOpTensor(call, C_IMAG)};
    bool dbl = t[1]->dtype == ACL_DOUBLE;
    aclDataType loop[3] = {dbl ? ACL_COMPLEX128 : ACL_COMPLEX64, dbl ? ACL_DOUBLE : ACL_FLOAT,
                           dbl ? ACL_DOUBLE : ACL_FLOAT};
    return iter_pass(call, 2, t, loop, dbl ? complex_c128 : complex_c64, NULL);
}
static const aclStubOpDef kComplex = {"aclnnComplex", kComplexParams, 3, NULL, complex_check, complex_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnComplex, kComplex, (const aclTensor *, real), (const aclTensor *, imag), (aclTensor *, out))

/* ---- polar(abs, angle) = abs * (cos(angle) + i sin(angle)): FLOAT in, COMPLEX64 out ------------------------------- */

static aclnnStatus polar_check(aclStubOpCall *call) {
    const aclStubTensorDesc *a = aclStubOpTensor(call, C_REAL), *b = aclStubOpTensor(call, C_IMAG);
    const aclStubTensorDesc *out = aclStubOpTensor(call, C_OUT);
    ACLSTUB_RETURN_ERROR_IF(a->dtype != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID, "input dtype %s should be ACL_FLOAT",
                            aclStubDtypeName(a->dtype));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != ACL_COMPLEX64, call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be "
                            "ACL_COMPLEX64", aclStubDtypeName(out->dtype));
    ACLSTUB_RETURN_ERROR_IF(b->dtype != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID, "angle dtype %s should be ACL_FLOAT",
                            aclStubDtypeName(b->dtype));
    ACLSTUB_TRY(pair_shapes(call, true));
    if (aclStubNumel(a) == 0 || aclStubNumel(b) == 0) return aclStubOpNothingToDo(call);
    return OK;
}
static aclnnStatus polar_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *t[3] = {aclStubOpTensor(call, C_OUT), aclStubOpTensor(call, C_REAL),
                                     aclStubOpTensor(call, C_IMAG)};
    aclDataType loop[3] = {ACL_COMPLEX64, ACL_FLOAT, ACL_FLOAT};
    return iter_pass(call, 2, t, loop, polar_c64, NULL);
}
static const aclStubOpDef kPolar = {"aclnnPolar", kPolarParams, 3, NULL, polar_check, polar_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnPolar, kPolar, (const aclTensor *, input), (const aclTensor *, angle), (aclTensor *, out))

/* ---- scale: y = x * scale (+ bias), scale (and bias) laid along x's dimensions [axis, axis + len) -------------- */

enum { S_X, S_SCALE, S_BIAS, S_AXIS, S_NUM_AXES, S_FROM_BLOB, S_Y };
static const aclStubParam kScaleParams[] = {
    [S_X] = {"x", ACLSTUB_INPUT, ACLSTUB_DT_FLOATS, NULL, 0, 0, 0},
    [S_SCALE] = {"scale", ACLSTUB_INPUT, 0, NULL, ACLSTUB_CHECK_LATER, 0, 0},
    [S_BIAS] = {"bias", ACLSTUB_OPTIONAL_INPUT, 0, NULL, ACLSTUB_CHECK_LATER, 0, 0},
    [S_AXIS] = {"axis", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [S_NUM_AXES] = {"numAxes", ACLSTUB_INT, 0, NULL, 0, 0, 0},
    [S_FROM_BLOB] = {"scaleFromBlob", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [S_Y] = {"y", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};
typedef struct {
    int64_t axis; /* normalised */
} ScalePlan;

static aclnnStatus scale_check(aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, S_X), *s = aclStubOpTensor(call, S_SCALE);
    const aclStubTensorDesc *b = aclStubOpTensor(call, S_BIAS), *y = aclStubOpTensor(call, S_Y);
    char buf[128], buf2[128];
    ACLSTUB_RETURN_ERROR_IF(b && b->dtype != s->dtype, call, ACLNN_ERR_PARAM_INVALID, "bias dtype %s should be the "
                            "scale dtype %s", aclStubDtypeName(b->dtype), aclStubDtypeName(s->dtype));
    ACLSTUB_RETURN_ERROR_IF(s->dtype != x->dtype || y->dtype != x->dtype, call, ACLNN_ERR_PARAM_INVALID, "scale and y "
                            "should have x's dtype %s", aclStubDtypeName(x->dtype));
    ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(y->dims, y->ndim, x->dims, x->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "y shape %s should be x shape %s", aclStubShapeText(y->dims, y->ndim, buf, sizeof buf),
                            aclStubShapeText(x->dims, x->ndim, buf2, sizeof buf2));
    ACLSTUB_RETURN_ERROR_IF(b && !aclStubShapeEqual(b->dims, b->ndim, s->dims, s->ndim), call, ACLNN_ERR_PARAM_INVALID,
                            "bias shape should be the scale shape");
    ACLSTUB_RETURN_ERROR_IF(x->ndim > 8 || s->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "x and scale may have 8 "
                            "dimensions at most");
    int64_t rank = x->ndim, axis = aclStubOpInt(call, S_AXIS), num = aclStubOpInt(call, S_NUM_AXES);
    ACLSTUB_RETURN_ERROR_IF(axis < -rank || axis >= rank, call, ACLNN_ERR_PARAM_INVALID, "axis must be within the "
                            "range of [%lld, %lld), but it is %lld", (long long)-rank, (long long)rank, (long long)axis);
    ACLSTUB_RETURN_ERROR_IF(num < -1, call, ACLNN_ERR_PARAM_INVALID, "numAxes must be >= -1, but it is %lld",
                            (long long)num);
    int64_t ax = axis >= 0 ? axis : rank + axis, count = 1;
    for (uint32_t d = 0; d < s->ndim; d++) count *= s->dims[d];
    if (aclStubOpBool(call, S_FROM_BLOB)) {
        ACLSTUB_RETURN_ERROR_IF(num == 0 && count != 1, call, ACLNN_ERR_PARAM_INVALID, "when numAxes is 0, scale must "
                                "have one element");
        if (num != 0) {
            int64_t len = num == -1 ? rank - ax : num;
            ACLSTUB_RETURN_ERROR_IF(len + ax > rank || len <= 0, call, ACLNN_ERR_PARAM_INVALID, "the sum of scale axis "
                                    "(%lld) and numAxes (%lld) must be <= the rank of x (%lld)", (long long)ax,
                                    (long long)num, (long long)rank);
            ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims + ax, (uint32_t)len, s->dims, s->ndim), call,
                                    ACLNN_ERR_PARAM_INVALID, "scale shape %s should be x's dimensions from axis %lld",
                                    aclStubShapeText(s->dims, s->ndim, buf, sizeof buf), (long long)ax);
        }
    } else {
        int64_t len = s->ndim;
        ACLSTUB_RETURN_ERROR_IF(len + ax > rank, call, ACLNN_ERR_PARAM_INVALID, "the sum of scale axis (%lld) and its "
                                "rank (%lld) must be <= the rank of x (%lld)", (long long)ax, (long long)len,
                                (long long)rank);
        if (!(count == 1 && len <= 1))
            ACLSTUB_RETURN_ERROR_IF(!aclStubShapeEqual(x->dims + ax, (uint32_t)len, s->dims, s->ndim), call,
                                    ACLNN_ERR_PARAM_INVALID, "scale shape %s must match x's shape from axis %lld",
                                    aclStubShapeText(s->dims, s->ndim, buf, sizeof buf), (long long)ax);
    }
    ((ScalePlan *)call->plan)->axis = ax;
    if (aclStubNumel(x) == 0) return aclStubOpNothingToDo(call);
    return OK;
}

/* scale or bias as a view of x's rank: its dimensions at [axis, axis + rank), 1 elsewhere (one element: all 1) */
static void along_axis(aclStubTensorDesc *view, const aclStubTensorDesc *t, const aclStubTensorDesc *x, int64_t ax) {
    *view = *t;
    view->ndim = x->ndim;
    int64_t count = aclStubNumel(t);
    for (uint32_t d = 0; d < x->ndim; d++) {
        int64_t k = (int64_t)d - ax;
        bool own = count != 1 && k >= 0 && k < (int64_t)t->ndim;
        view->dims[d] = own ? t->dims[k] : 1;
        view->strides[d] = own ? t->strides[k] : 0;
    }
}

ACLSTUB_EW_BINARY(scale_mul_loops, ACLSTUB_EW_FLOATS, a * b)
ACLSTUB_EW_TERNARY(scale_fma_loops, ACLSTUB_EW_FLOATS, a * b + c)

static aclnnStatus scale_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *x = aclStubOpTensor(call, S_X), *s = aclStubOpTensor(call, S_SCALE);
    const aclStubTensorDesc *b = aclStubOpTensor(call, S_BIAS), *y = aclStubOpTensor(call, S_Y);
    int64_t ax = ((const ScalePlan *)call->plan)->axis;
    aclStubTensorDesc sv, bv;
    along_axis(&sv, s, x, ax);
    if (b) along_axis(&bv, b, x, ax);
    aclStubEwCtx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.compute = x->dtype;
    const aclStubTensorDesc *t[4] = {y, x, &sv, b ? &bv : NULL};
    aclDataType l = x->dtype == ACL_DOUBLE ? ACL_DOUBLE : ACL_FLOAT;
    aclDataType loop[4] = {l, l, l, l};
    int ct = l == ACL_DOUBLE ? ACLSTUB_CT_F64 : ACLSTUB_CT_F32;
    return iter_pass(call, b ? 3 : 2, t, loop, b ? scale_fma_loops.fn[ct] : scale_mul_loops.fn[ct], &ctx);
}
static const aclStubOpDef kScale = {"aclnnScale", kScaleParams, ACLSTUB_LEN(kScaleParams), NULL, scale_check,
                                    scale_kernel, sizeof(ScalePlan)};
ACLSTUB_DEFINE_OP(aclnnScale, kScale, (const aclTensor *, x), (const aclTensor *, scale), (const aclTensor *, bias),
                  (int64_t, axis), (int64_t, numAxes), (bool, scaleFromBlob), (aclTensor *, y))

/* ---- angle_v2: the angle of each element (radians): atan2(imag, real) for COMPLEX64, pi for negative reals, 0
 * for the others, NaN kept; FLOAT16 and BF16 give their own dtype, every other input FLOAT ------------------------ */

#define ANGLE_DT (EW_DT(FLOAT16) | EW_DT(FLOAT) | EW_DT(COMPLEX64) | EW_DT(BOOL) | EW_DT(UINT8) | EW_DT(INT8) | \
                  EW_DT(INT16) | EW_DT(INT32) | EW_DT(INT64) | EW_DT(BF16))
static inline float angle_f32(float x) { return x < 0 ? (float)M_PI : x != x ? x : 0.0f; }
static inline float _Complex angle_c64(float _Complex x) {
    return (float)atan2((double)cimagf(x), (double)crealf(x));
}
#define EW_ANGLE(x) _Generic((x), float: angle_f32, float _Complex: angle_c64)(x)
#define SET_ANGLE(X, ...)                                                                                     \
    X(f32, float, float, ACLSTUB_CT_F32, __VA_ARGS__) X(c64, float _Complex, float _Complex, ACLSTUB_CT_C64, __VA_ARGS__)
ACLSTUB_EW_UNARY(angle_loops, SET_ANGLE, EW_ANGLE(x))
static aclDataType angle_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)call;
    return promoted == ACL_FLOAT16 || promoted == ACL_BF16 || promoted == ACL_COMPLEX64 ? promoted : ACL_FLOAT;
}
/* out of the dtype paired with x's (FLOAT16, BF16, else FLOAT); a COMPLEX64 angle is the real part of the loop's */
static aclnnStatus angle_check(aclStubOpCall *call) {
    aclDataType x = ew_dtype(call, 0), out = ew_out_dtype(call);
    aclDataType want = x == ACL_FLOAT16 || x == ACL_BF16 ? x : ACL_FLOAT;
    ACLSTUB_RETURN_ERROR_IF(out != want, call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be %s for x of %s",
                            aclStubDtypeName(out), aclStubDtypeName(want), aclStubDtypeName(x));
    return OK;
}
static const aclStubElementwise ANGLE = {1, ANGLE_DT, ACLSTUB_EW_OUT_ANY, &angle_loops, angle_check, angle_dtype};
ACLSTUB_EW_OP(aclnnAngleV2, ANGLE, (const aclTensor *, x), (const aclTensor *, out))
