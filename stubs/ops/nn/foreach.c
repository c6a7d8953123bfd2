/*
 * The foreach operators of ops-nn foreach/ on the foreach engine (aclstub/op_foreach.h): one loop table per
 * computation, one row per dtype list and scalar form, one line per official entry point. Rows of the V2 (and other
 * op_api) entry points check as their op_api does; ACLSTUB_FE_GENERATED rows as the toolkit's generated entry
 * points. Float32 and 16-bit elements are computed in double and rounded once (the device's approximations of
 * transcendental functions are not documented).
 */
#include <math.h>
#include <string.h>

#include "act_math.h"
#include "aclstub/op_foreach.h"
#include "aclnnop/aclnn_foreach_abs.h"
#include "aclnnop/aclnn_foreach_acos.h"
#include "aclnnop/aclnn_foreach_add_list.h"
#include "aclnnop/aclnn_foreach_add_list_v2.h"
#include "aclnnop/aclnn_foreach_add_scalar.h"
#include "aclnnop/aclnn_foreach_add_scalar_list.h"
#include "aclnnop/aclnn_foreach_add_scalar_v2.h"
#include "aclnnop/aclnn_foreach_addcdiv_list.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar_list.h"
#include "aclnnop/aclnn_foreach_addcdiv_scalar_v2.h"
#include "aclnnop/aclnn_foreach_addcmul_list.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar_list.h"
#include "aclnnop/aclnn_foreach_addcmul_scalar_v2.h"
#include "aclnnop/aclnn_foreach_asin.h"
#include "aclnnop/aclnn_foreach_atan.h"
#include "aclnnop/aclnn_foreach_copy.h"
#include "aclnnop/aclnn_foreach_cos.h"
#include "aclnnop/aclnn_foreach_cosh.h"
#include "aclnnop/aclnn_foreach_div_list.h"
#include "aclnnop/aclnn_foreach_div_scalar.h"
#include "aclnnop/aclnn_foreach_div_scalar_list.h"
#include "aclnnop/aclnn_foreach_div_scalar_v2.h"
#include "aclnnop/aclnn_foreach_erf.h"
#include "aclnnop/aclnn_foreach_erfc.h"
#include "aclnnop/aclnn_foreach_exp.h"
#include "aclnnop/aclnn_foreach_expm1.h"
#include "aclnnop/aclnn_foreach_lerp_list.h"
#include "aclnnop/aclnn_foreach_lerp_scalar.h"
#include "aclnnop/aclnn_foreach_log.h"
#include "aclnnop/aclnn_foreach_log10.h"
#include "aclnnop/aclnn_foreach_log1p.h"
#include "aclnnop/aclnn_foreach_log2.h"
#include "aclnnop/aclnn_foreach_maximum_list.h"
#include "aclnnop/aclnn_foreach_maximum_scalar.h"
#include "aclnnop/aclnn_foreach_maximum_scalar_list.h"
#include "aclnnop/aclnn_foreach_maximum_scalar_v2.h"
#include "aclnnop/aclnn_foreach_minimum_list.h"
#include "aclnnop/aclnn_foreach_minimum_scalar.h"
#include "aclnnop/aclnn_foreach_minimum_scalar_list.h"
#include "aclnnop/aclnn_foreach_minimum_scalar_v2.h"
#include "aclnnop/aclnn_foreach_mul_list.h"
#include "aclnnop/aclnn_foreach_mul_scalar.h"
#include "aclnnop/aclnn_foreach_mul_scalar_list.h"
#include "aclnnop/aclnn_foreach_mul_scalar_v2.h"
#include "aclnnop/aclnn_foreach_neg.h"
#include "aclnnop/aclnn_foreach_pow_list.h"
#include "aclnnop/aclnn_foreach_pow_scalar.h"
#include "aclnnop/aclnn_foreach_pow_scalar_and_tensor.h"
#include "aclnnop/aclnn_foreach_pow_scalar_list.h"
#include "aclnnop/aclnn_foreach_pow_scalar_v2.h"
#include "aclnnop/aclnn_foreach_reciprocal.h"
#include "aclnnop/aclnn_foreach_round_off_number.h"
#include "aclnnop/aclnn_foreach_round_off_number_v2.h"
#include "aclnnop/aclnn_foreach_sigmoid.h"
#include "aclnnop/aclnn_foreach_sign.h"
#include "aclnnop/aclnn_foreach_sin.h"
#include "aclnnop/aclnn_foreach_sinh.h"
#include "aclnnop/aclnn_foreach_sqrt.h"
#include "aclnnop/aclnn_foreach_sub_list.h"
#include "aclnnop/aclnn_foreach_sub_list_v2.h"
#include "aclnnop/aclnn_foreach_sub_scalar.h"
#include "aclnnop/aclnn_foreach_sub_scalar_list.h"
#include "aclnnop/aclnn_foreach_sub_scalar_v2.h"
#include "aclnnop/aclnn_foreach_tan.h"
#include "aclnnop/aclnn_foreach_tanh.h"
#include "aclnnop/aclnn_foreach_zero_inplace.h"

#define DT ACLSTUB_DT
#define F3 ACLSTUB_DT_FLOATS
#define F3_I32 (F3 | DT(ACL_INT32))
#define F3_INTS (F3 | DT(ACL_INT32) | DT(ACL_INT16) | DT(ACL_INT8) | DT(ACL_UINT8))
#define GEN ACLSTUB_FE_GENERATED
#define PER_ENTRY ACLSTUB_FE_PER_ENTRY
#define TYPED ACLSTUB_FE_SCALAR_RULE_TYPED
#define TENSOR_RULE ACLSTUB_FE_SCALAR_RULE_TENSOR

/* A double result stored to an integer type saturates (and NaN gives 0) instead of being undefined. */
static inline int64_t fe_sat(double v, double lo, double hi) {
    return v != v ? 0 : v <= lo ? (int64_t)lo : v >= hi ? (int64_t)hi : (int64_t)v;
}
#define FE_TO(x, v)                                                                                          \
    _Generic((x), int8_t: fe_sat((v), -128.0, 127.0), uint8_t: fe_sat((v), 0.0, 255.0),                      \
             int16_t: fe_sat((v), -32768.0, 32767.0), int32_t: fe_sat((v), -2147483648.0, 2147483647.0),     \
             int64_t: fe_sat((v), -9223372036854775808.0, 9223372036854774784.0), default: (v))

/* x ** y for integers: repeated squaring with wrapping products; a negative exponent gives 0 but for 1 and -1. */
static inline int64_t fe_ipow(int64_t x, int64_t y) {
    if (y < 0) return x == 1 ? 1 : x == -1 ? ((y & 1) ? -1 : 1) : 0;
    uint64_t r = 1, b = (uint64_t)x;
    for (; y; y >>= 1, b *= b)
        if (y & 1) r *= b;
    return (int64_t)r;
}
#define FE_POW(a, b)                                                                                         \
    _Generic((a), float: pow((double)(a), (double)(b)), double: pow((double)(a), (double)(b)),               \
             default: fe_ipow((int64_t)(a), (int64_t)(b)))

/* maximum and minimum propagate NaN */
#define FE_MAX(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) > (b) ? (a) : (b))
#define FE_MIN(a, b) ((a) != (a) ? (a) : (b) != (b) ? (b) : (a) < (b) ? (a) : (b))

/* Rounding to an integral value by the mode of foreach_round_off_number (1 rint, 2 floor, 3 ceil, 4 half away
 * from zero, 5 toward zero, 6 half to odd, 7 the fraction x - trunc(x), else the value itself). */
static inline double fe_round_mode(double x, int64_t mode) {
    switch (mode) {
    case 1: return nearbyint(x);
    case 2: return floor(x);
    case 3: return ceil(x);
    case 4: return round(x);
    case 5: return trunc(x);
    case 6: {
        double f = floor(x), d = x - f;
        if (d != 0.5) return nearbyint(x);
        return fmod(f, 2.0) != 0 ? f : f + 1.0;
    }
    case 7: return x - trunc(x);
    default: return x;
    }
}

/* ---- loops (x or a, b, c: the list entries; s0: the scalar) ------------------------------------------------ */

#define FE_UNARY_FLOAT(NAME, EXPR) ACLSTUB_EW_UNARY(NAME, ACLSTUB_FE_FLOATS, EXPR)
FE_UNARY_FLOAT(fe_abs, fabs((double)x))
FE_UNARY_FLOAT(fe_acos, acos((double)x))
FE_UNARY_FLOAT(fe_asin, asin((double)x))
FE_UNARY_FLOAT(fe_atan, atan((double)x))
FE_UNARY_FLOAT(fe_cos, cos((double)x))
FE_UNARY_FLOAT(fe_cosh, cosh((double)x))
FE_UNARY_FLOAT(fe_erf, act_erf((double)x))
FE_UNARY_FLOAT(fe_erfc, act_erfc((double)x))
FE_UNARY_FLOAT(fe_log, log((double)x))
FE_UNARY_FLOAT(fe_log10, log10((double)x))
FE_UNARY_FLOAT(fe_log1p, log1p((double)x))
FE_UNARY_FLOAT(fe_log2, log2((double)x))
FE_UNARY_FLOAT(fe_reciprocal, 1.0 / (double)x)
FE_UNARY_FLOAT(fe_sigmoid, act_sigmoid((double)x))
FE_UNARY_FLOAT(fe_sin, sin((double)x))
FE_UNARY_FLOAT(fe_sinh, sinh((double)x))
FE_UNARY_FLOAT(fe_sqrt, sqrt((double)x))
FE_UNARY_FLOAT(fe_tan, tan((double)x))
FE_UNARY_FLOAT(fe_tanh, act_tanh((double)x))
ACLSTUB_EW_UNARY(fe_exp, ACLSTUB_FE_NUMBERS, FE_TO(x, act_exp((double)x)))
ACLSTUB_EW_UNARY(fe_expm1, ACLSTUB_FE_NUMBERS, FE_TO(x, act_expm1((double)x)))
ACLSTUB_EW_UNARY(fe_neg, ACLSTUB_FE_NUMBERS, -x)
ACLSTUB_EW_UNARY(fe_sign, ACLSTUB_FE_NUMBERS, x != x ? x : (x > 0) - (x < 0))
ACLSTUB_EW_UNARY(fe_zero, ACLSTUB_FE_NUMBERS, ((void)x, 0))
#define FE_ROUND(x) _Generic((x), float: (float)fe_round_mode((double)(x), i0), default: (i0 == 7 ? 0 : (x)))
ACLSTUB_EW_UNARY(fe_round, ACLSTUB_FE_NUMBERS, FE_ROUND(x))
/* scalar forms */
ACLSTUB_EW_UNARY(fe_adds, ACLSTUB_FE_NUMBERS, (double)x + (double)s0)
ACLSTUB_EW_UNARY(fe_subs, ACLSTUB_FE_NUMBERS, (double)x - (double)s0)
ACLSTUB_EW_UNARY(fe_muls, ACLSTUB_FE_NUMBERS, (double)x * (double)s0)
ACLSTUB_EW_UNARY(fe_divs, ACLSTUB_FE_FLOATS, (double)x / (double)s0)
ACLSTUB_EW_UNARY(fe_maxs, ACLSTUB_FE_NUMBERS, FE_MAX(x, s0))
ACLSTUB_EW_UNARY(fe_mins, ACLSTUB_FE_NUMBERS, FE_MIN(x, s0))
ACLSTUB_EW_UNARY(fe_pows, ACLSTUB_FE_NUMBERS, FE_POW(x, s0))
ACLSTUB_EW_UNARY(fe_rpows, ACLSTUB_FE_NUMBERS, FE_POW(s0, x))
/* list forms (alpha is s0) */
ACLSTUB_EW_BINARY(fe_add, ACLSTUB_FE_NUMBERS, (double)a + (double)s0 * (double)b)
ACLSTUB_EW_BINARY(fe_sub, ACLSTUB_FE_NUMBERS, (double)a - (double)s0 * (double)b)
ACLSTUB_EW_BINARY(fe_mul, ACLSTUB_FE_NUMBERS, (double)a * (double)b)
ACLSTUB_EW_BINARY(fe_div, ACLSTUB_FE_FLOATS, (double)a / (double)b)
ACLSTUB_EW_BINARY(fe_max, ACLSTUB_FE_NUMBERS, FE_MAX(a, b))
ACLSTUB_EW_BINARY(fe_min, ACLSTUB_FE_NUMBERS, FE_MIN(a, b))
ACLSTUB_EW_BINARY(fe_pow, ACLSTUB_FE_NUMBERS, FE_POW(a, b))
ACLSTUB_EW_BINARY(fe_lerps, ACLSTUB_FE_FLOATS, (double)a + (double)s0 * ((double)b - (double)a))
ACLSTUB_EW_TERNARY(fe_lerp, ACLSTUB_FE_FLOATS, (double)a + (double)c * ((double)b - (double)a))
ACLSTUB_EW_TERNARY(fe_addcmul, ACLSTUB_FE_NUMBERS, (double)a + (double)s0 * (double)b * (double)c)
ACLSTUB_EW_TERNARY(fe_addcdiv, ACLSTUB_FE_FLOATS, (double)a + (double)s0 * (double)b / (double)c)

/* ---- rows and entry points ---------------------------------------------------------------------------------- */

#define FE_UNARY_OP(NAME, DTYPES, LOOPS)                                                                     \
    static const aclStubForeach NAME##_row_ = {1, DTYPES, GEN, &LOOPS, ACLSTUB_FE_SCALAR_ANY, NULL};          \
    ACLSTUB_FOREACH_OP(NAME, NAME##_row_, (const aclTensorList *, x), (const aclTensorList *, out))

FE_UNARY_OP(aclnnForeachAbs, F3, fe_abs)
FE_UNARY_OP(aclnnForeachAcos, F3, fe_acos)
FE_UNARY_OP(aclnnForeachAsin, F3, fe_asin)
FE_UNARY_OP(aclnnForeachAtan, F3, fe_atan)
FE_UNARY_OP(aclnnForeachCos, F3, fe_cos)
FE_UNARY_OP(aclnnForeachCosh, F3, fe_cosh)
FE_UNARY_OP(aclnnForeachErf, F3, fe_erf)
FE_UNARY_OP(aclnnForeachErfc, F3, fe_erfc)
FE_UNARY_OP(aclnnForeachExp, F3 | DT(ACL_INT16) | DT(ACL_INT8) | DT(ACL_UINT8), fe_exp)
FE_UNARY_OP(aclnnForeachExpm1, F3 | DT(ACL_INT16) | DT(ACL_INT8) | DT(ACL_UINT8), fe_expm1)
FE_UNARY_OP(aclnnForeachLog, F3, fe_log)
FE_UNARY_OP(aclnnForeachLog10, F3, fe_log10)
FE_UNARY_OP(aclnnForeachLog1p, F3, fe_log1p)
FE_UNARY_OP(aclnnForeachLog2, F3, fe_log2)
FE_UNARY_OP(aclnnForeachNeg, F3_INTS, fe_neg)
FE_UNARY_OP(aclnnForeachReciprocal, F3, fe_reciprocal)
FE_UNARY_OP(aclnnForeachSigmoid, F3, fe_sigmoid)
FE_UNARY_OP(aclnnForeachSign, F3 | DT(ACL_INT8) | DT(ACL_INT32) | DT(ACL_INT64), fe_sign)
FE_UNARY_OP(aclnnForeachSin, F3, fe_sin)
FE_UNARY_OP(aclnnForeachSinh, F3, fe_sinh)
FE_UNARY_OP(aclnnForeachTan, F3, fe_tan)
FE_UNARY_OP(aclnnForeachTanh, F3, fe_tanh)

/* sqrt has an op_api of its own (no scalar) */
static const aclStubForeach SQRT = {1, F3, 0, &fe_sqrt, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachSqrt, SQRT, (const aclTensorList *, x), (aclTensorList *, out))

static const aclStubForeach ZERO = {1, F3 | DT(ACL_INT32) | DT(ACL_INT16), GEN, &fe_zero, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_INPLACE_OP(aclnnForeachZeroInplace, ZERO, (const aclTensorList *, x))

/* x op scalar: V1 takes the scalar as a device tensor (generated), V2 as an aclScalar (op_api), ScalarList one
 * aclScalar per entry (generated) */
#define FE_SCALAR_OPS(BASE, DTYPES_V1, DTYPES_V2, DTYPES_LIST, LOOPS)                                        \
    static const aclStubForeach BASE##Scalar_row_ = {1, DTYPES_V1, GEN, &LOOPS, TENSOR_RULE, NULL};           \
    ACLSTUB_FOREACH_OP(BASE##Scalar, BASE##Scalar_row_, (const aclTensorList *, x), (const aclTensor *, scalar), \
                       (const aclTensorList *, out))                                                         \
    static const aclStubForeach BASE##ScalarV2_row_ = {1, DTYPES_V2, 0, &LOOPS, TYPED, NULL};                 \
    ACLSTUB_FOREACH_OP(BASE##ScalarV2, BASE##ScalarV2_row_, (const aclTensorList *, x),                       \
                       (const aclScalar *, scalar), (aclTensorList *, out))                                  \
    static const aclStubForeach BASE##ScalarList_row_ = {1, DTYPES_LIST, GEN, &LOOPS, ACLSTUB_FE_SCALAR_ANY, NULL}; \
    ACLSTUB_FOREACH_OP(BASE##ScalarList, BASE##ScalarList_row_, (const aclTensorList *, x),                   \
                       (const aclScalarList *, scalars), (const aclTensorList *, out))

FE_SCALAR_OPS(aclnnForeachAdd, F3_INTS, F3_INTS, F3_I32, fe_adds)
FE_SCALAR_OPS(aclnnForeachSub, F3_I32, F3_I32, F3_I32, fe_subs)
FE_SCALAR_OPS(aclnnForeachMul, F3_I32, F3_I32, F3_I32, fe_muls)
FE_SCALAR_OPS(aclnnForeachMaximum, F3_I32, F3_I32, F3_I32, fe_maxs)
FE_SCALAR_OPS(aclnnForeachMinimum, F3_I32, F3_I32, F3_I32, fe_mins)
FE_SCALAR_OPS(aclnnForeachPow, F3_I32, F3_I32, F3_I32, fe_pows)

/* div: the V1 entry point has an op_api too (the aclScalar rules on its tensor's dtype) */
static const aclStubForeach DIV_SCALAR = {1, F3, 0, &fe_divs, TYPED, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachDivScalar, DIV_SCALAR, (const aclTensorList *, x), (const aclTensor *, scalar),
                   (aclTensorList *, out))
ACLSTUB_FOREACH_OP(aclnnForeachDivScalarV2, DIV_SCALAR, (const aclTensorList *, x), (const aclScalar *, scalar),
                   (aclTensorList *, out))
static const aclStubForeach DIV_SCALAR_LIST = {1, F3, GEN, &fe_divs, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachDivScalarList, DIV_SCALAR_LIST, (const aclTensorList *, x),
                   (const aclScalarList *, scalars), (const aclTensorList *, out))

/* scalar ** x */
static const aclStubForeach POW_SCALAR_AND_TENSOR = {1, F3_I32, GEN, &fe_rpows, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachPowScalarAndTensor, POW_SCALAR_AND_TENSOR, (const aclScalar *, scalar),
                   (const aclTensorList *, x), (const aclTensorList *, out))

/* x1 op x2 (add and sub with alpha: a device tensor in V1, an aclScalar in V2; both have op_apis) */
static const aclStubForeach ADD_LIST = {2, F3_I32, 0, &fe_add, TYPED, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachAddList, ADD_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclTensor *, alpha), (aclTensorList *, out))
static const aclStubForeach ADD_LIST_V2 = {2, F3_INTS, 0, &fe_add, TYPED, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachAddListV2, ADD_LIST_V2, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclScalar *, alpha), (aclTensorList *, out))
static const aclStubForeach SUB_LIST = {2, F3_INTS, GEN, &fe_sub, TENSOR_RULE, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachSubList, SUB_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclTensor *, alpha), (const aclTensorList *, out))
static const aclStubForeach SUB_LIST_V2 = {2, F3_INTS, 0, &fe_sub, TYPED, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachSubListV2, SUB_LIST_V2, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclScalar *, alpha), (aclTensorList *, out))
static const aclStubForeach MUL_LIST = {2, F3_INTS, 0, &fe_mul, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachMulList, MUL_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (aclTensorList *, out))
static const aclStubForeach DIV_LIST = {2, F3, 0, &fe_div, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachDivList, DIV_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (aclTensorList *, out))
static const aclStubForeach MAX_LIST = {2, F3_I32, GEN, &fe_max, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachMaximumList, MAX_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclTensorList *, out))
static const aclStubForeach MIN_LIST = {2, F3_I32, GEN, &fe_min, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachMinimumList, MIN_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclTensorList *, out))
static const aclStubForeach POW_LIST = {2, F3_I32, GEN, &fe_pow, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachPowList, POW_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclTensorList *, out))

/* lerp: x1 + weight (x2 - x1) */
static const aclStubForeach LERP_LIST = {3, F3, 0, &fe_lerp, ACLSTUB_FE_SCALAR_ANY, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachLerpList, LERP_LIST, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclTensorList *, weight), (aclTensorList *, out))
static const aclStubForeach LERP_SCALAR = {2, F3, 0, &fe_lerps, ACLSTUB_FE_SCALAR_RULE_FLOAT, NULL};
ACLSTUB_FOREACH_OP(aclnnForeachLerpScalar, LERP_SCALAR, (const aclTensorList *, x1), (const aclTensorList *, x2),
                   (const aclScalar *, weight), (aclTensorList *, out))

/* addcmul and addcdiv: x1 + scalar x2 * x3 (or / x3); List and ScalarList take one scalar per entry in a tensor */
#define FE_ADDC_OPS(BASE, DTYPES, LOOPS, V1_FLAGS, V1_RULE, LIST_FLAGS, OUT_T)                               \
    static const aclStubForeach BASE##Scalar_row_ = {3, DTYPES, V1_FLAGS, &LOOPS, V1_RULE, NULL};             \
    ACLSTUB_FOREACH_OP(BASE##Scalar, BASE##Scalar_row_, (const aclTensorList *, x1), (const aclTensorList *, x2), \
                       (const aclTensorList *, x3), (const aclTensor *, scalar), (OUT_T, out))              \
    static const aclStubForeach BASE##ScalarV2_row_ = {3, DTYPES, 0, &LOOPS, TYPED, NULL};                    \
    ACLSTUB_FOREACH_OP(BASE##ScalarV2, BASE##ScalarV2_row_, (const aclTensorList *, x1),                     \
                       (const aclTensorList *, x2), (const aclTensorList *, x3), (const aclScalar *, scalar), \
                       (aclTensorList *, out))                                                               \
    static const aclStubForeach BASE##ScalarList_row_ = {3, DTYPES, LIST_FLAGS, &LOOPS,                       \
                                                         ACLSTUB_FE_SCALAR_RULE_SAME, NULL};                  \
    ACLSTUB_FOREACH_OP(BASE##ScalarList, BASE##ScalarList_row_, (const aclTensorList *, x1),                 \
                       (const aclTensorList *, x2), (const aclTensorList *, x3), (const aclTensor *, scalars), \
                       (OUT_T, out))                                                                         \
    static const aclStubForeach BASE##List_row_ = {3, DTYPES, GEN | PER_ENTRY, &LOOPS,                        \
                                                   ACLSTUB_FE_SCALAR_RULE_SAME, NULL};                        \
    ACLSTUB_FOREACH_OP(BASE##List, BASE##List_row_, (const aclTensorList *, x1), (const aclTensorList *, x2), \
                       (const aclTensorList *, x3), (const aclTensor *, scalars), (const aclTensorList *, out))

FE_ADDC_OPS(aclnnForeachAddcmul, F3_I32, fe_addcmul, GEN, TENSOR_RULE, GEN | PER_ENTRY, const aclTensorList *)
FE_ADDC_OPS(aclnnForeachAddcdiv, F3, fe_addcdiv, 0, TYPED, PER_ENTRY, aclTensorList *)

/* round off number: the mode is an INT8 device tensor (V1) or an INT8/INT64 aclScalar (V2) */
static aclnnStatus round_mode_check(aclStubOpCall *call) {
    const aclStubValue *s = &call->v[1];
    aclDataType t = call->op->params[1].role == ACLSTUB_SCALAR ? s->dtype : s->tensor->dtype;
    uint64_t ok = call->op->params[1].role == ACLSTUB_SCALAR ? DT(ACL_INT8) | DT(ACL_INT64) : DT(ACL_INT8);
    ACLSTUB_RETURN_ERROR_IF((unsigned)t >= 64 || !(ok & DT(t)), call, ACLNN_ERR_PARAM_INVALID,
                            "roundMode has data type %s; it must be ACL_INT8%s", aclStubDtypeName(t),
                            call->op->params[1].role == ACLSTUB_SCALAR ? " or ACL_INT64" : "");
    return OK;
}
static const aclStubForeach ROUND_OFF = {1, F3 | DT(ACL_INT16), GEN, &fe_round, ACLSTUB_FE_SCALAR_ANY,
                                         round_mode_check};
ACLSTUB_FOREACH_OP(aclnnForeachRoundOffNumber, ROUND_OFF, (const aclTensorList *, x), (const aclTensor *, roundMode),
                   (const aclTensorList *, out))
static const aclStubForeach ROUND_OFF_V2 = {1, F3_I32 | DT(ACL_INT16), 0, &fe_round, ACLSTUB_FE_SCALAR_ANY,
                                            round_mode_check};
ACLSTUB_FOREACH_OP(aclnnForeachRoundOffNumberV2, ROUND_OFF_V2, (const aclTensorList *, x),
                   (const aclScalar *, roundMode), (aclTensorList *, out))

/* copy: x into out, between the same dtype, or FLOAT to FLOAT16/BF16 and back */
#define FE_COPY_TYPES(X, ...) ACLSTUB_EW_NUMBERS(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)
ACLSTUB_EW_UNARY(fe_copy, FE_COPY_TYPES, x)
static aclnnStatus copy_check(aclStubOpCall *call) {
    const aclStubValue *x = &call->v[0], *y = &call->v[1];
    for (uint64_t i = 0; i < x->size; i++) {
        aclDataType a = x->tensors[i].dtype, b = y->tensors[i].dtype;
        bool ok = a == b || (a == ACL_FLOAT && (b == ACL_FLOAT16 || b == ACL_BF16)) ||
                  ((a == ACL_FLOAT16 || a == ACL_BF16) && b == ACL_FLOAT);
        ACLSTUB_RETURN_ERROR_IF(!ok, call, ACLNN_ERR_PARAM_INVALID, "dtype mapping from x(%d) to out(%d) is not "
                                "supported", (int)a, (int)b);
    }
    return OK;
}
#define COPY_DT (F3 | ACLSTUB_DT_INTS | DT(ACL_INT16) | DT(ACL_UINT16) | DT(ACL_UINT32) | DT(ACL_DOUBLE) | DT(ACL_BOOL))
static const aclStubForeach COPY = {1, COPY_DT, ACLSTUB_FE_OUT_DTYPE, &fe_copy, ACLSTUB_FE_SCALAR_ANY, copy_check};
ACLSTUB_FOREACH_OP(aclnnForeachCopy, COPY, (const aclTensorList *, x), (aclTensorList *, out))

/* ---- norm and non-finite check: their own kernels, list rules shared with the engine ----------------------- */

#include "aclnnop/aclnn_foreach_non_finite_check_and_unscale.h"
#include "aclnnop/aclnn_foreach_norm.h"

/* Element i (row-major) of a non-empty FLOAT/FLOAT16/BF16 view as double. */
static double fe_load(const aclStubTensorDesc *t, int64_t i) {
    return aclStubLoadPtrF32(t->dtype, aclStubElemAt(t, i));
}

static aclnnStatus fe_generated_lists(aclStubOpCall *call, int list, uint64_t dtypes, int out) {
    const aclStubValue *x = &call->v[list];
    char buf[256];
    for (int k = 0; k < 2; k++) {
        int p = k == 0 ? list : out;
        if (p < 0) continue;
        for (uint64_t i = 0; i < call->v[p].size; i++) {
            const aclStubTensorDesc *t = &call->v[p].tensors[i];
            ACLSTUB_RETURN_ERROR_IF(t->dtype == ACL_DT_UNDEFINED, call, ACLNN_ERR_PARAM_NULLPTR,
                                    "entry %llu of '%s' is NULL", (unsigned long long)i, aclStubOpName(call, p));
            aclDataType want = x->size ? x->tensors[0].dtype : t->dtype;
            ACLSTUB_RETURN_ERROR_IF((unsigned)t->dtype >= 64 || !(dtypes & DT(t->dtype)) || t->dtype != want, call,
                                    ACLNN_ERR_PARAM_INVALID, "entry %llu of '%s' has data type %s; every entry must "
                                    "have one dtype of %s", (unsigned long long)i, aclStubOpName(call, p),
                                    aclStubDtypeName(t->dtype), aclStubDtypeSetName(dtypes, buf, sizeof buf));
        }
    }
    return OK;
}

/* norm: out[i] (one element) = the p-norm of x[i]: max |x| for p = inf, the count of non-zeros for p = 0, else
 * (sum |x|^p)^(1/p), summed in double and rounded once */
enum { NORM_X, NORM_P, NORM_OUT };
static aclnnStatus norm_check(aclStubOpCall *call) {
    ACLSTUB_TRY(fe_generated_lists(call, NORM_X, F3, NORM_OUT));
    /* the generated entry point converts the scalar to its FLOAT or INT64 input: any real number type */
    aclDataType pt = call->v[NORM_P].dtype;
    ACLSTUB_RETURN_ERROR_IF(aclStubIsComplex(pt) || !aclStubCanConvert(pt), call, ACLNN_ERR_PARAM_INVALID,
                            "scalar has data type %s; it must be a real number type", aclStubDtypeName(pt));
    const aclStubValue *x = &call->v[NORM_X], *y = &call->v[NORM_OUT];
    bool all_empty = true;
    for (uint64_t i = 0; i < y->size; i++) all_empty &= aclStubNumel(&y->tensors[i]) == 0;
    if (all_empty) return aclStubOpNothingToDo(call);
    ACLSTUB_RETURN_ERROR_IF(x->size != y->size, call, ACLNN_ERR_INNER_TILING_ERROR,
                            "x holds %llu tensors but out %llu", (unsigned long long)x->size,
                            (unsigned long long)y->size);
    for (uint64_t i = 0; i < x->size; i++) {
        ACLSTUB_RETURN_ERROR_IF(x->tensors[i].ndim > 8, call, ACLNN_ERR_INNER_TILING_ERROR,
                                "entry %llu of x has more than 8 dimensions", (unsigned long long)i);
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(&y->tensors[i]) < 1, call, ACLNN_ERR_INNER_TILING_ERROR,
                                "entry %llu of out holds no element for the norm", (unsigned long long)i);
    }
    return OK;
}
static aclnnStatus norm_kernel(const aclStubOpCall *call) {
    const aclStubValue *x = &call->v[NORM_X], *y = &call->v[NORM_OUT];
    double p = aclStubScalarToDouble(call->v[NORM_P].dtype, call->v[NORM_P].scalar);
    for (uint64_t i = 0; i < x->size; i++) {
        const aclStubTensorDesc *t = &x->tensors[i];
        int64_t n = aclStubNumel(t);
        double acc = 0;
        for (int64_t e = 0; e < n; e++) {
            double a = fabs(fe_load(t, e));
            if (isinf(p) && p > 0)
                acc = a != a || acc != acc ? NAN : (a > acc ? a : acc);
            else if (p == 0)
                acc += a != 0;
            else if (p == 1)
                acc += a;
            else if (p == 2)
                acc += a * a;
            else
                acc += pow(a, p);
        }
        double r = (isinf(p) || p == 0 || p == 1) ? acc : p == 2 ? sqrt(acc) : pow(acc, 1.0 / p);
        aclStubStorePtrF32(y->tensors[i].dtype, aclStubElemAt(&y->tensors[i], 0), (float)r);
    }
    return OK;
}
static const aclStubParam NORM_PARAMS[] = {
    [NORM_X] = {"x", ACLSTUB_TENSOR_LIST, 0, NULL, 0, 0, 0},
    [NORM_P] = {"scalar", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [NORM_OUT] = {"out", ACLSTUB_OUTPUT_LIST, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef NORM_OP = {"aclnnForeachNorm", NORM_PARAMS, 3, NULL, norm_check, norm_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnForeachNorm, NORM_OP, (const aclTensorList *, x), (const aclScalar *, scalar),
                  (const aclTensorList *, out))

/* non-finite check and unscale: every gradient times invScale (in float32, rounded to its dtype); foundInf set to
 * 1.0 when any gradient holds an Inf or NaN, left alone otherwise */
enum { NFC_GRADS, NFC_FOUND, NFC_INV };
typedef struct {
    float inv;
    int found;
} UnscaleCtx;
static void unscale_loop(char **d, const int64_t *s, int64_t n, const void *ctx) {
    UnscaleCtx *c = (UnscaleCtx *)(uintptr_t)ctx; /* found is the loop's only shared write (atomic) */
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        float v = *(const float *)(const void *)(d[1] + i * s[1]);
        bad |= !isfinite(v);
        *(float *)(void *)(d[0] + i * s[0]) = v * c->inv;
    }
    if (bad) __atomic_store_n(&c->found, 1, __ATOMIC_RELAXED);
}
static aclnnStatus nfc_check(aclStubOpCall *call) {
    ACLSTUB_TRY(fe_generated_lists(call, NFC_GRADS, F3, -1));
    for (int k = NFC_FOUND; k <= NFC_INV; k++) {
        const aclStubTensorDesc *t = call->v[k].tensor;
        ACLSTUB_RETURN_ERROR_IF(t->dtype != ACL_FLOAT, call, ACLNN_ERR_PARAM_INVALID,
                                "'%s' has data type %s; it must be ACL_FLOAT", aclStubOpName(call, k),
                                aclStubDtypeName(t->dtype));
    }
    const aclStubValue *g = &call->v[NFC_GRADS];
    bool all_empty = true;
    for (uint64_t i = 0; i < g->size; i++) all_empty &= aclStubNumel(&g->tensors[i]) == 0;
    if (all_empty) return aclStubOpNothingToDo(call);
    for (int k = NFC_FOUND; k <= NFC_INV; k++)
        ACLSTUB_RETURN_ERROR_IF(aclStubNumel(call->v[k].tensor) != 1, call, ACLNN_ERR_INNER_TILING_ERROR,
                                "'%s' must hold one value", aclStubOpName(call, k));
    return OK;
}
static aclnnStatus nfc_kernel(const aclStubOpCall *call) {
    const aclStubValue *g = &call->v[NFC_GRADS];
    UnscaleCtx ctx = {*(const float *)aclStubElemAt(call->v[NFC_INV].tensor, 0), 0};
    for (uint64_t i = 0; i < g->size; i++) {
        const aclStubTensorDesc *t = &g->tensors[i];
        if (aclStubNumel(t) == 0) continue;
        aclStubIter it;
        memset(&it, 0, sizeof it);
        it.num_outputs = it.num_inputs = 1;
        it.tensor[0] = it.tensor[1] = t;
        it.loop_dtype[0] = it.loop_dtype[1] = ACL_FLOAT;
        ACLSTUB_TRY(aclStubIterRun(call, &it, unscale_loop, &ctx));
    }
    if (ctx.found) *(float *)aclStubElemAt(call->v[NFC_FOUND].tensor, 0) = 1.0f;
    return OK;
}
static const aclStubParam NFC_PARAMS[] = {
    [NFC_GRADS] = {"scaledGrads", ACLSTUB_TENSOR_LIST, 0, NULL, 0, 0, 0},
    [NFC_FOUND] = {"foundInf", ACLSTUB_INPLACE, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
    [NFC_INV] = {"invScale", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
};
static const aclStubOpDef NFC_OP = {"aclnnForeachNonFiniteCheckAndUnscale", NFC_PARAMS, 3, NULL, nfc_check,
                                    nfc_kernel, 0};
ACLSTUB_DEFINE_OP(aclnnForeachNonFiniteCheckAndUnscale, NFC_OP, (const aclTensorList *, scaledGrads),
                  (const aclTensor *, foundInf), (const aclTensor *, invScale))
