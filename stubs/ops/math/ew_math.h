/*
 * Shared by the binary and ternary elementwise operator files of ops-math: dtype sets, the op_api's dtype rules
 * that several operators share, and the element functions whose result must not depend on the C type's traps.
 *
 * Integer division and remainder never trap: x / 0 = -1 (every bit set, UINTn_MAX for unsigned types) and
 * x % 0 = x, MIN / -1 = MIN (the quotient wraps) and MIN % -1 = 0 (RISC-V's rules; the device documents no result
 * for an integer divisor of 0).
 */
#ifndef ACLNN_STUB_OPS_MATH_EW_MATH_H_
#define ACLNN_STUB_OPS_MATH_EW_MATH_H_

#include <complex.h>
#include <math.h>

#include "aclstub/op_elementwise.h"

#define EW_DT(x) ACLSTUB_DT(ACL_##x)
/* every dtype the elementwise loops run: numbers, BOOL, complex */
#define EW_DT_NUMBERS (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | EW_DT(BOOL))
#define EW_DT_ALL (EW_DT_NUMBERS | ACLSTUB_DT_COMPLEX)

static inline bool ew_in(uint64_t set, aclDataType t) { return (unsigned)t < 64 && (set & ACLSTUB_DT(t)) != 0; }
static inline bool ew_is_half(aclDataType t) { return t == ACL_FLOAT16 || t == ACL_BF16; }

/* The dtype of parameter k: its tensor's, or its scalar's. */
static inline aclDataType ew_dtype(const aclStubOpCall *call, int k) {
    return call->v[k].tensor != NULL ? call->v[k].tensor->dtype : call->v[k].dtype;
}

/* The dtype of the tensor the operator writes (its in-place operand, else its last output). */
static inline aclDataType ew_out_dtype(const aclStubOpCall *call) {
    const aclStubOpDef *op = call->op;
    for (size_t i = 0; i < op->num_params; i++)
        if (op->params[i].role == ACLSTUB_INPLACE && call->v[i].tensor) return call->v[i].tensor->dtype;
    for (size_t i = op->num_params; i-- > 0;)
        if (op->params[i].role == ACLSTUB_OUTPUT && call->v[i].tensor) return call->v[i].tensor->dtype;
    return ACL_DT_UNDEFINED;
}

/* Is parameter k a scalar operand (the scalar variants)? */
static inline bool ew_is_scalar(const aclStubOpCall *call, int k) { return call->op->params[k].role == ACLSTUB_SCALAR; }

/* From an operator's own check: the computation runs in compute (every operand cast to it, 16-bit floats in the
 * FLOAT loops) and its result is rounded to out_via before the Cast to out. */
static inline void ew_compute(aclStubOpCall *call, aclDataType compute, aclDataType out_via) {
    aclStubEwPlan *p = (aclStubEwPlan *)call->plan;
    p->compute = compute;
    p->ctx.compute = compute;
    p->out_via = out_via;
}

/* The pairs of floating dtypes the op_api hands to a kernel with mixed inputs (FLOAT16 or BF16 beside FLOAT). */
static inline bool ew_mix_pair(aclDataType a, aclDataType b) {
    return (a == ACL_FLOAT && ew_is_half(b)) || (b == ACL_FLOAT && ew_is_half(a));
}

/* The tensor-scalar promotion of aclnnAdds, aclnnSubs (PromoteTypeScalar) and aclnnMuls for Atlas A2/A3: a complex
 * operand promotes by CANN's table, a floating tensor keeps its dtype, a DOUBLE scalar with a FLOAT out gives FLOAT,
 * a floating scalar or a BOOL tensor promote by the table, and an integral tensor keeps its dtype. */
static inline aclDataType ew_promote_tensor_scalar(aclDataType self, aclDataType other, aclDataType out) {
    if (aclStubIsComplex(self) || aclStubIsComplex(other)) return aclStubPromoteType(self, other);
    if (aclStubIsFloating(self)) return self;
    if (other == ACL_DOUBLE && out == ACL_FLOAT) return ACL_FLOAT;
    if (aclStubIsFloating(other) || self == ACL_BOOL) return aclStubPromoteType(self, other);
    return self;
}

/* Is the scalar parameter k equal to 1 as the op_api's `!(x > 1 || x < 1)` on its float value reads it? */
static inline bool ew_scalar_is_one(const aclStubOpCall *call, int k) {
    float f = (float)aclStubScalarToDouble(call->v[k].dtype, call->v[k].scalar);
    return !(f > 1 || f < 1);
}

/* ---- element functions, one per loop type, chosen by the operands' C type ------------------------------------ */

#define EW_INT_TYPES(X)                                                                                       \
    X(i8, int8_t, 1) X(i16, int16_t, 1) X(i32, int32_t, 1) X(i64, int64_t, 1) X(u8, uint8_t, 0)               \
    X(u16, uint16_t, 0) X(u32, uint32_t, 0) X(u64, uint64_t, 0)

/* Quotients rounded toward zero (tdiv) and toward minus infinity (fdiv), the remainders that go with them (tmod
 * has the dividend's sign, fmod the divisor's). The last argument is the computation's dtype: a FLOAT16 or BF16
 * quotient is rounded to it before it is truncated or floored, as the device's 16-bit division rounds it. */
#define EW_INT_DIV_FNS(n, T, SIGNED)                                                                          \
    static inline T ew_tdiv_##n(T a, T b, aclDataType c_) {                                                   \
        (void)c_;                                                                                             \
        if (b == 0) return (T)-1;                                                                             \
        if (SIGNED && b == (T)-1) return (T)(0 - a);                                                          \
        return (T)(a / b);                                                                                    \
    }                                                                                                         \
    static inline T ew_tmod_##n(T a, T b, aclDataType c_) {                                                   \
        (void)c_;                                                                                             \
        if (b == 0) return a;                                                                                 \
        if (SIGNED && b == (T)-1) return 0;                                                                   \
        return (T)(a % b);                                                                                    \
    }                                                                                                         \
    static inline T ew_fdiv_##n(T a, T b, aclDataType c_) {                                                   \
        T q = ew_tdiv_##n(a, b, c_), r = ew_tmod_##n(a, b, c_);                                               \
        return (T)(b != 0 && r != 0 && ((r < 0) != (b < 0)) ? q - 1 : q);                                     \
    }                                                                                                         \
    static inline T ew_fmod_##n(T a, T b, aclDataType c_) {                                                   \
        T r = ew_tmod_##n(a, b, c_);                                                                          \
        return (T)(b != 0 && r != 0 && ((r < 0) != (b < 0)) ? r + b : r);                                     \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wsign-compare"
EW_INT_TYPES(EW_INT_DIV_FNS)
#pragma GCC diagnostic pop

static inline float ew_tdiv_f32(float a, float b, aclDataType c) { return truncf(aclStubEwRoundF32(a / b, c)); }
static inline double ew_tdiv_f64(double a, double b, aclDataType c) { (void)c; return trunc(a / b); }
static inline float ew_fdiv_f32(float a, float b, aclDataType c) { return floorf(aclStubEwRoundF32(a / b, c)); }
static inline double ew_fdiv_f64(double a, double b, aclDataType c) { (void)c; return floor(a / b); }
/* fmodf, exactly, without its bit loop where the quotient is below 2^23: a - trunc(a / b) * b in double is exact
 * there (every product and difference fits 53 bits) once the truncated quotient is corrected by one where the
 * double division rounded it across an integer. */
static inline float ew_tmod_f32(float a, float b, aclDataType c) {
    (void)c;
    double q = (double)a / (double)b;
    /* NaN, infinities (an infinite divisor would give 0 * inf below), zero divisors, huge quotients */
    if (!(fabs(q) < 8388608.0) || isinf(a) || isinf(b)) return fmodf(a, b);
    double ab = fabs((double)b), r = (double)a - trunc(q) * (double)b;
    if (a >= 0 ? r < 0 : r > 0) r += a >= 0 ? ab : -ab;
    else if (fabs(r) >= ab) r -= a >= 0 ? ab : -ab;
    return r == 0 ? copysignf(0.0f, a) : (float)r;
}
static inline double ew_tmod_f64(double a, double b, aclDataType c) { (void)c; return fmod(a, b); }
/* floor modulo of floats: the exact fmod, moved to the divisor's sign when it is not zero */
static inline float ew_fmod_f32(float a, float b, aclDataType c) {
    float r = ew_tmod_f32(a, b, c);
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}
static inline double ew_fmod_f64(double a, double b, aclDataType c) {
    (void)c;
    double r = fmod(a, b);
    return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

/* True division: integers by the rule above (no trap), floats and complex as C divides. */
#define EW_DIV_INT_FN(n, T, SIGNED) \
    static inline T ew_div_##n(T a, T b, aclDataType c_) { return ew_tdiv_##n(a, b, c_); }
EW_INT_TYPES(EW_DIV_INT_FN)
static inline float ew_div_f32(float a, float b, aclDataType c) { (void)c; return a / b; }
static inline double ew_div_f64(double a, double b, aclDataType c) { (void)c; return a / b; }
static inline float _Complex ew_div_c64(float _Complex a, float _Complex b, aclDataType c) { (void)c; return a / b; }
static inline double _Complex ew_div_c128(double _Complex a, double _Complex b, aclDataType c) {
    (void)c;
    return a / b;
}

/* In a loop expression (ew_ctx_ is the loop's context): the function of the operands' C type. Complex operands
 * reach only EW_DIV (the op_api refuses them with a rounding mode); their other slots divide. */
#define EW_GENERIC2(fn, a, b)                                                                                 \
    _Generic((a), float: fn##_f32, double: fn##_f64, int8_t: fn##_i8, int16_t: fn##_i16, int32_t: fn##_i32,   \
             int64_t: fn##_i64, uint8_t: fn##_u8, uint16_t: fn##_u16, uint32_t: fn##_u32, uint64_t: fn##_u64, \
             float _Complex: ew_div_c64, double _Complex: ew_div_c128)(a, b, ew_ctx_->compute)
#define EW_DIV(a, b) EW_GENERIC2(ew_div, a, b)
#define EW_TDIV(a, b) EW_GENERIC2(ew_tdiv, a, b)
#define EW_FDIV(a, b) EW_GENERIC2(ew_fdiv, a, b)
#define EW_TMOD(a, b) EW_GENERIC2(ew_tmod, a, b)
#define EW_FMOD(a, b) EW_GENERIC2(ew_fmod, a, b)

/* Loop type sets: real numbers and complex, without BOOL. */
#define EW_SET_NUM(X, ...) ACLSTUB_EW_REAL(X, __VA_ARGS__) ACLSTUB_EW_COMPLEX(X, __VA_ARGS__)

#endif /* ACLNN_STUB_OPS_MATH_EW_MATH_H_ */
