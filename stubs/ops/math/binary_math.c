/*
 * Binary math of ops-math math/: pow (tensor^tensor, tensor^scalar, scalar^tensor, in-place), atan2, logaddexp,
 * logaddexp2, xlogy (tensor, scalar self, scalar other, in-place), maximum, minimum, gcd.
 *
 * The device documents no approximation for these transcendentals, so the rule is the correctly rounded result:
 * FLOAT (and FLOAT16/BF16, computed in FLOAT) in double, rounded once. Integer powers wrap; an integer raised to a
 * negative power gives the truncated real result (1 for a base of 1, +-1 for -1, else 0; 0 for a base of 0).
 * maximum/minimum propagate NaN; gcd is non-negative (gcd(0, 0) = 0, |MIN| wraps).
 */
#include "ew_math.h"

#include "aclnnop/aclnn_atan2.h"
#include "aclnnop/aclnn_gcd.h"
#include "aclnnop/aclnn_logaddexp.h"
#include "aclnnop/aclnn_logaddexp2.h"
#include "aclnnop/aclnn_maximum.h"
#include "aclnnop/aclnn_minimum.h"
#include "aclnnop/aclnn_pow.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "aclnnop/aclnn_x_log_y_scalar_other.h"
#include "aclnnop/aclnn_x_log_y_scalar_self.h"
#include "aclnnop/aclnn_x_log_y_tensor.h"

#define ANY_DT (EW_DT_ALL | ACLSTUB_DT_UINTS)

/* ---- element functions ------------------------------------------------------------------------------------- */

#define EW_IPOW_FN(n, T, SIGNED)                                                                              \
    static inline T ew_pow_##n(T a, T b, aclDataType c_) {                                                    \
        (void)c_;                                                                                             \
        if (SIGNED && b < 0) return a == 1 ? (T)1 : (SIGNED && a == (T)-1) ? (T)((b & 1) ? -1 : 1) : (T)0;     \
        uint64_t base = (uint64_t)a, r = 1, e = (uint64_t)b;                                                  \
        while (e) {                                                                                           \
            if (e & 1) r *= base;                                                                             \
            base *= base;                                                                                     \
            e >>= 1;                                                                                          \
        }                                                                                                     \
        return (T)r;                                                                                          \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
EW_INT_TYPES(EW_IPOW_FN)
#pragma GCC diagnostic pop
static inline float ew_pow_f32(float a, float b, aclDataType c) { (void)c; return (float)pow((double)a, (double)b); }
static inline double ew_pow_f64(double a, double b, aclDataType c) { (void)c; return pow(a, b); }
static inline float _Complex ew_pow_c64(float _Complex a, float _Complex b, aclDataType c) {
    (void)c;
    return (float _Complex)cpow((double _Complex)a, (double _Complex)b);
}
static inline double _Complex ew_pow_c128(double _Complex a, double _Complex b, aclDataType c) {
    (void)c;
    return cpow(a, b);
}
#define EW_POW(a, b)                                                                                          \
    _Generic((a), float: ew_pow_f32, double: ew_pow_f64, int8_t: ew_pow_i8, int16_t: ew_pow_i16,              \
             int32_t: ew_pow_i32, int64_t: ew_pow_i64, uint8_t: ew_pow_u8, uint16_t: ew_pow_u16,              \
             uint32_t: ew_pow_u32, uint64_t: ew_pow_u64, float _Complex: ew_pow_c64,                          \
             double _Complex: ew_pow_c128)(a, b, ew_ctx_->compute)

/* a float function of two doubles, applied to FLOAT in double and rounded once */
#define EW_F2(fn, a, b) _Generic((a), float: (float)fn((double)(a), (double)(b)), default: fn((double)(a), (double)(b)))

static inline double logaddexp_d(double a, double b) {
    if (a != a || b != b) return a + b;
    if (a == b) return a + M_LN2; /* both infinite of one sign included */
    double m = a > b ? a : b, d = fabs(a - b);
    return m + log1p(exp(-d));
}
static inline double logaddexp2_d(double a, double b) {
    if (a != a || b != b) return a + b;
    if (a == b) return a + 1.0;
    double m = a > b ? a : b, d = fabs(a - b);
    return m + log1p(exp2(-d)) / M_LN2;
}
static inline double xlogy_d(double x, double y) {
    if (y != y) return y;
    if (x == 0) return 0;
    return x * log(y);
}

/* ---- pow ---------------------------------------------------------------------------------------------------- */

#define POW_DT EW_DT_ALL
ACLSTUB_EW_BINARY(pow_loops, EW_SET_NUM, EW_POW(a, b))

static bool is_float(aclDataType t) {
    return t == ACL_DOUBLE || t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16;
}
/* InferTensorScalarDtype / InferScalarTensorDtype: t the tensor, s the scalar */
static aclDataType pow_scalar_rule(aclDataType t, aclDataType s, aclDataType out, bool tensor_is_base) {
    if (s == ACL_DOUBLE && out == ACL_FLOAT && tensor_is_base) return ACL_FLOAT;
    if (t == ACL_DOUBLE && out == ACL_FLOAT && !tensor_is_base) return ACL_FLOAT;
    if (aclStubIsComplex(s)) return aclStubPromoteType(t, s);
    if (is_float(t)) return t;
    return (is_float(s) || t == ACL_BOOL) ? aclStubPromoteType(t, s) : t;
}
static aclDataType pow_dtype(const aclStubOpCall *call, aclDataType promoted) {
    aclDataType a = ew_dtype(call, 0), b = ew_dtype(call, 1), out = ew_out_dtype(call);
    if (ew_is_scalar(call, 1)) return pow_scalar_rule(a, b, out, true);
    if (ew_is_scalar(call, 0)) return pow_scalar_rule(b, a, out, false);
    return promoted;
}
static aclnnStatus pow_check(aclStubOpCall *call) {
    aclDataType a = ew_dtype(call, 0), b = ew_dtype(call, 1);
    ACLSTUB_RETURN_ERROR_IF(a == ACL_BOOL && b == ACL_BOOL, call, ACLNN_ERR_PARAM_INVALID,
                            "self and exponent can not both be ACL_BOOL");
    ACLSTUB_RETURN_ERROR_IF((int)aclStubPromoteType(a, b) < 0, call, ACLNN_ERR_PARAM_INVALID,
                            "self dtype %s and exponent dtype %s can not promote dtype", aclStubDtypeName(a),
                            aclStubDtypeName(b));
    return OK;
}
static const aclStubElementwise POW = {2, POW_DT, ACLSTUB_EW_SCALAR_IN_LIST, &pow_loops, pow_check, pow_dtype};
ACLSTUB_EW_OP(aclnnPowTensorTensor, POW, (const aclTensor *, self), (const aclTensor *, exponent), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplacePowTensorTensor, POW, (const aclTensor *, self), (const aclTensor *, exponent))
ACLSTUB_EW_OP(aclnnPowTensorScalar, POW, (const aclTensor *, self), (const aclScalar *, exponent),
              (const aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplacePowTensorScalar, POW, (const aclTensor *, self), (const aclScalar *, exponent))
ACLSTUB_EW_OP(aclnnPowScalarTensor, POW, (const aclScalar *, self), (const aclTensor *, exponent),
              (const aclTensor *, out))

/* ---- atan2: a promoted dtype other than the floats computes in FLOAT; out any dtype ---------------------------- */

#define ATAN2_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | EW_DT(BOOL))
ACLSTUB_EW_BINARY(atan2_loops, ACLSTUB_EW_FLOATS, EW_F2(atan2, a, b))
static aclDataType float_or_float32(const aclStubOpCall *call, aclDataType promoted) {
    (void)call;
    return is_float(promoted) ? promoted : ACL_FLOAT;
}
static const aclStubElementwise ATAN2 = {2, ATAN2_DT, ACLSTUB_EW_OUT_ANY, &atan2_loops, NULL, float_or_float32};
ACLSTUB_EW_OP(aclnnAtan2, ATAN2, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAtan2, ATAN2, (aclTensor *, selfRef), (aclTensor *, other))

/* ---- logaddexp, logaddexp2: both operands cast to out's dtype (FLOAT16, FLOAT, BF16), each castable to it ------ */

#define LOGADDEXP_IN_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS | EW_DT(BOOL))
#define LOGADDEXP_OUT_DT ACLSTUB_DT_FLOATS
ACLSTUB_EW_BINARY(logaddexp_loops, ACLSTUB_EW_FLOATS, EW_F2(logaddexp_d, a, b))
ACLSTUB_EW_BINARY(logaddexp2_loops, ACLSTUB_EW_FLOATS, EW_F2(logaddexp2_d, a, b))
static aclDataType out_dtype_rule(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    aclDataType out = ew_out_dtype(call);
    return ew_in(LOGADDEXP_OUT_DT, out) ? out : ACL_FLOAT;
}
static aclnnStatus logaddexp_check(aclStubOpCall *call) {
    char buf[128];
    aclDataType out = ew_out_dtype(call);
    ACLSTUB_RETURN_ERROR_IF(!ew_in(LOGADDEXP_OUT_DT, out), call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be "
                            "in dtype support list [%s]", aclStubDtypeName(out),
                            aclStubDtypeSetName(LOGADDEXP_OUT_DT, buf, sizeof buf));
    for (int k = 0; k < 2; k++)
        ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(ew_dtype(call, k), out), call, ACLNN_ERR_PARAM_INVALID,
                                "%s dtype %s can't be cast to the out dtype %s", aclStubOpName(call, k),
                                aclStubDtypeName(ew_dtype(call, k)), aclStubDtypeName(out));
    return OK;
}
static const aclStubElementwise LOGADDEXP = {2, LOGADDEXP_IN_DT, ACLSTUB_EW_OUT_ANY, &logaddexp_loops, logaddexp_check,
                                             out_dtype_rule};
static const aclStubElementwise LOGADDEXP2 = {2, LOGADDEXP_IN_DT, ACLSTUB_EW_OUT_ANY, &logaddexp2_loops,
                                              logaddexp_check, out_dtype_rule};
ACLSTUB_EW_OP(aclnnLogAddExp, LOGADDEXP, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnLogAddExp2, LOGADDEXP2, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))

/* ---- xlogy: x * log(y), 0 where x is 0 (unless y is NaN); integral and BOOL promoted dtypes compute in FLOAT,
 * DOUBLE beside a scalar too ---------------------------------------------------------------------------------- */

#define XLOGY_DT (EW_DT(FLOAT) | EW_DT(INT32) | EW_DT(INT64) | EW_DT(FLOAT16) | EW_DT(INT8) | EW_DT(UINT8) | \
                  EW_DT(BOOL) | EW_DT(INT16) | EW_DT(BF16))
#define XLOGY_SCALAR_DT (XLOGY_DT | EW_DT(DOUBLE))
ACLSTUB_EW_BINARY(xlogy_loops, ACLSTUB_EW_FLOATS, EW_F2(xlogy_d, a, b))
static aclDataType xlogy_dtype(const aclStubOpCall *call, aclDataType promoted) {
    if (ew_is_scalar(call, 0) || ew_is_scalar(call, 1)) {
        aclDataType p = aclStubPromoteType(ew_dtype(call, 0), ew_dtype(call, 1));
        return !is_float(p) || p == ACL_DOUBLE ? ACL_FLOAT : p;
    }
    return is_float(promoted) ? promoted : ACL_FLOAT;
}
static aclnnStatus xlogy_scalar_check(aclStubOpCall *call) {
    char buf[160];
    for (int k = 0; k < 2; k++) {
        if (!ew_is_scalar(call, k)) continue;
        ACLSTUB_RETURN_ERROR_IF(!ew_in(XLOGY_SCALAR_DT, ew_dtype(call, k)), call, ACLNN_ERR_PARAM_INVALID,
                                "%s dtype %s should be in dtype support list [%s]", aclStubOpName(call, k),
                                aclStubDtypeName(ew_dtype(call, k)),
                                aclStubDtypeSetName(XLOGY_SCALAR_DT, buf, sizeof buf));
    }
    return OK;
}
/* the tensor variant checks no out dtype; the scalar variants want out castable from the promoted dtype */
static const aclStubElementwise XLOGY = {2, XLOGY_DT, ACLSTUB_EW_OUT_ANY, &xlogy_loops, NULL, xlogy_dtype};
static const aclStubElementwise XLOGY_SCALAR = {2, XLOGY_DT, 0, &xlogy_loops, xlogy_scalar_check, xlogy_dtype};
ACLSTUB_EW_OP(aclnnXLogYTensor, XLOGY, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceXLogYTensor, XLOGY, (aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_OP(aclnnXLogYScalarSelf, XLOGY_SCALAR, (const aclScalar *, self), (const aclTensor *, other),
              (aclTensor *, out))
ACLSTUB_EW_OP(aclnnXLogYScalarOther, XLOGY_SCALAR, (const aclTensor *, self), (const aclScalar *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceXLogYScalarOther, XLOGY_SCALAR, (aclTensor *, selfRef), (const aclScalar *, other))

/* ---- maximum, minimum: NaN propagates; BOOL runs LogicalOr / LogicalAnd ------------------------------------------ */

#define MAXMIN_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | EW_DT(BOOL))
#define EW_MAX(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))
#define EW_MIN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))
ACLSTUB_EW_BINARY(maximum_loops, ACLSTUB_EW_NUMBERS, EW_MAX(a, b))
ACLSTUB_EW_BINARY(minimum_loops, ACLSTUB_EW_NUMBERS, EW_MIN(a, b))
static const aclStubElementwise MAXIMUM = {2, MAXMIN_DT, ACLSTUB_EW_OUT_IN_LIST, &maximum_loops, NULL, NULL};
static const aclStubElementwise MINIMUM = {2, MAXMIN_DT, ACLSTUB_EW_OUT_IN_LIST, &minimum_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnMaximum, MAXIMUM, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnMinimum, MINIMUM, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))

/* ---- gcd: the promoted dtype INT16, INT32 or INT64, out integral; not both BOOL -------------------------------- */

#define GCD_DT (EW_DT(INT16) | EW_DT(INT32) | EW_DT(INT64))
#define EW_GCD_FN(n, T, SIGNED)                                                                               \
    static inline T ew_gcd_##n(T a, T b) {                                                                    \
        uint64_t x = SIGNED && a < 0 ? 0 - (uint64_t)a : (uint64_t)a;                                         \
        uint64_t y = SIGNED && b < 0 ? 0 - (uint64_t)b : (uint64_t)b;                                         \
        while (y) {                                                                                           \
            uint64_t t = x % y;                                                                               \
            x = y;                                                                                            \
            y = t;                                                                                            \
        }                                                                                                     \
        return (T)x;                                                                                          \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
EW_INT_TYPES(EW_GCD_FN)
#pragma GCC diagnostic pop
#define EW_GCD(a, b) _Generic((a), int16_t: ew_gcd_i16, int32_t: ew_gcd_i32, int64_t: ew_gcd_i64)(a, b)
#define SET_GCD(X, ...)                                                                                       \
    X(i16, int16_t, int16_t, ACLSTUB_CT_I16, __VA_ARGS__) X(i32, int32_t, int32_t, ACLSTUB_CT_I32, __VA_ARGS__) \
    X(i64, int64_t, int64_t, ACLSTUB_CT_I64, __VA_ARGS__)
ACLSTUB_EW_BINARY(gcd_loops, SET_GCD, EW_GCD(a, b))
static aclnnStatus gcd_check(aclStubOpCall *call) {
    char buf[96];
    aclDataType out = ew_out_dtype(call), p = ((aclStubEwPlan *)call->plan)->compute;
    ACLSTUB_RETURN_ERROR_IF(ew_dtype(call, 0) == ACL_BOOL && ew_dtype(call, 1) == ACL_BOOL, call,
                            ACLNN_ERR_PARAM_INVALID, "self and other can not both be ACL_BOOL");
    ACLSTUB_RETURN_ERROR_IF(!aclStubIsIntegral(out, false), call, ACLNN_ERR_PARAM_INVALID,
                            "Out type should be integral but got %s", aclStubDtypeName(out));
    ACLSTUB_RETURN_ERROR_IF(!ew_in(GCD_DT, p), call, ACLNN_ERR_PARAM_INVALID, "promote dtype %s should be in dtype "
                            "support list [%s]", aclStubDtypeName(p), aclStubDtypeSetName(GCD_DT, buf, sizeof buf));
    return OK;
}
static const aclStubElementwise GCD = {2, ANY_DT, 0, &gcd_loops, gcd_check, NULL};
ACLSTUB_EW_OP(aclnnGcd, GCD, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
