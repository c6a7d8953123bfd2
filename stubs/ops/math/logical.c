/*
 * Logical and bitwise operators of ops-math math/: logical_and/or/xor/not (an operand is true when it is not zero;
 * a complex one when either part is not zero), bitwise_and/or/xor (BOOL operands: the logical operator) with
 * tensor and scalar operands, bitwise_not, left_shift and right_shift.
 *
 * Shifts by a count outside [0, bits of the computation dtype): a left shift gives 0, a right shift gives the sign
 * fill (-1 for a negative signed value, else 0), torch's rule (the device documents none). Signed right shifts
 * are arithmetic; left shifts wrap.
 */
#include "ew_math.h"

#include "aclnnop/aclnn_bitwise_and_scalar.h"
#include "aclnnop/aclnn_bitwise_and_tensor.h"
#include "aclnnop/aclnn_bitwise_not.h"
#include "aclnnop/aclnn_bitwise_or_scalar.h"
#include "aclnnop/aclnn_bitwise_or_tensor.h"
#include "aclnnop/aclnn_bitwise_xor_scalar.h"
#include "aclnnop/aclnn_bitwise_xor_tensor.h"
#include "aclnnop/aclnn_bitwiseand.h"
#include "aclnnop/aclnn_left_shift.h"
#include "aclnnop/aclnn_logical_and.h"
#include "aclnnop/aclnn_logical_not.h"
#include "aclnnop/aclnn_logical_or.h"
#include "aclnnop/aclnn_logical_xor.h"
#include "aclnnop/aclnn_right_shift.h"

/* ---- logical ------------------------------------------------------------------------------------------------ */

#define LOGICAL_DT EW_DT_ALL
#define LOGICAL_NOT_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | EW_DT(BOOL))

ACLSTUB_EW_BINARY_PRED(and_loops, ACLSTUB_EW_ALL, a && b)
ACLSTUB_EW_BINARY_PRED(or_loops, ACLSTUB_EW_ALL, a || b)
ACLSTUB_EW_BINARY_PRED(xor_loops, ACLSTUB_EW_ALL, (a != 0) != (b != 0))
ACLSTUB_EW_UNARY_PRED(not_loops, ACLSTUB_EW_NUMBERS, !x)

/* aclnnLogicalAnd checks no out dtype; aclnnLogicalOr and aclnnLogicalXor want it in the list. */
static const aclStubElementwise LOGICAL_AND = {2, LOGICAL_DT, ACLSTUB_EW_PREDICATE, &and_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnLogicalAnd, LOGICAL_AND, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLogicalAnd, LOGICAL_AND, (aclTensor *, selfRef), (const aclTensor *, other))
static const aclStubElementwise LOGICAL_OR = {2, LOGICAL_DT, ACLSTUB_EW_PREDICATE | ACLSTUB_EW_OUT_IN_LIST, &or_loops,
                                              NULL, NULL};
ACLSTUB_EW_OP(aclnnLogicalOr, LOGICAL_OR, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLogicalOr, LOGICAL_OR, (aclTensor *, selfRef), (const aclTensor *, other))

/* a complex operand may have 7 dimensions at most (the op_api views it as its real parts) */
static aclnnStatus xor_check(aclStubOpCall *call) {
    for (int k = 0; k < 2; k++) {
        const aclStubTensorDesc *t = aclStubOpTensor(call, k);
        ACLSTUB_RETURN_ERROR_IF(aclStubIsComplex(t->dtype) && t->ndim > 7, call, ACLNN_ERR_PARAM_INVALID,
                                "argument '%s' is complex with %u dimensions; at most 7 are supported",
                                aclStubOpName(call, k), t->ndim);
    }
    return OK;
}
static const aclStubElementwise LOGICAL_XOR = {2, LOGICAL_DT, ACLSTUB_EW_PREDICATE | ACLSTUB_EW_OUT_IN_LIST,
                                               &xor_loops, xor_check, NULL};
ACLSTUB_EW_OP(aclnnLogicalXor, LOGICAL_XOR, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))

/* more than 8 dimensions pass when self and out are contiguous */
#define NOT_FLAGS (ACLSTUB_EW_PREDICATE | ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_RANK_ANY_CONTIGUOUS)
static const aclStubElementwise LOGICAL_NOT = {1, LOGICAL_NOT_DT, NOT_FLAGS, &not_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnLogicalNot, LOGICAL_NOT, (const aclTensor *, self), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLogicalNot, LOGICAL_NOT, (aclTensor *, selfRef))

/* ---- bitwise ------------------------------------------------------------------------------------------------ */

#define BITS_DT (ACLSTUB_DT_INTS | EW_DT(BOOL) | EW_DT(UINT16))
#define OR_TENSOR_DT (ACLSTUB_DT_INTS | EW_DT(BOOL) | ACLSTUB_DT_UINTS)
#define XOR_DT (ACLSTUB_DT_INTS | EW_DT(BOOL))
#define SET_BITS(X, ...) ACLSTUB_EW_INTEGRAL(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)

ACLSTUB_EW_BINARY(bit_and_loops, SET_BITS, a & b)
ACLSTUB_EW_BINARY(bit_or_loops, SET_BITS, a | b)
ACLSTUB_EW_BINARY(bit_xor_loops, SET_BITS, a ^ b)

/* aclnnBitwiseOrScalar, aclnnBitwiseXorScalar: an INT64 scalar within the INT32 range promotes as INT32 */
static aclDataType int32_scalar_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    aclDataType s = ew_dtype(call, 0), o = ew_dtype(call, 1);
    if (o == ACL_INT64) {
        int64_t v = aclStubOpScalarI64(call, 1);
        return aclStubPromoteType(s, v >= INT32_MIN && v <= INT32_MAX ? ACL_INT32 : ACL_INT64);
    }
    return aclStubPromoteType(s, o);
}

/* aclnnBitwiseAndTensorOut: every tensor in one storage format */
static aclnnStatus same_format_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, 0), *other = aclStubOpTensor(call, 1);
    const aclStubTensorDesc *out = call->v[((aclStubEwPlan *)call->plan)->out].tensor;
    ACLSTUB_RETURN_ERROR_IF(self->format != other->format || self->format != out->format, call,
                            ACLNN_ERR_PARAM_INVALID, "self, other and out should have one format, got %d, %d, %d",
                            (int)self->format, (int)other->format, (int)out->format);
    return OK;
}

#define PRIVATE ACLSTUB_EW_NO_PRIVATE_FORMAT
static const aclStubElementwise AND_TENSOR = {2, BITS_DT, PRIVATE, &bit_and_loops, NULL, NULL};
static const aclStubElementwise AND_TENSOR_OUT = {2, BITS_DT, PRIVATE, &bit_and_loops, same_format_check, NULL};
static const aclStubElementwise AND_SCALAR = {2, BITS_DT, PRIVATE | ACLSTUB_EW_SCALAR_AS_TENSOR, &bit_and_loops, NULL,
                                              NULL};
static const aclStubElementwise OR_TENSOR = {2, OR_TENSOR_DT, 0, &bit_or_loops, NULL, NULL};
static const aclStubElementwise OR_SCALAR = {2, BITS_DT, ACLSTUB_EW_SCALAR_IN_LIST, &bit_or_loops, NULL,
                                             int32_scalar_dtype};
static const aclStubElementwise XOR_TENSOR = {2, XOR_DT, 0, &bit_xor_loops, NULL, NULL};
static const aclStubElementwise XOR_SCALAR = {2, XOR_DT, ACLSTUB_EW_SCALAR_IN_LIST, &bit_xor_loops, NULL,
                                              int32_scalar_dtype};

ACLSTUB_EW_OP(aclnnBitwiseAndTensor, AND_TENSOR, (const aclTensor *, self), (const aclTensor *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceBitwiseAndTensor, AND_TENSOR, (const aclTensor *, selfRef),
                      (const aclTensor *, other))
ACLSTUB_EW_OP(aclnnBitwiseAndTensorOut, AND_TENSOR_OUT, (const aclTensor *, self), (const aclTensor *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceBitwiseAndTensorOut, AND_TENSOR_OUT, (const aclTensor *, selfRef),
                      (const aclTensor *, other))
ACLSTUB_EW_OP(aclnnBitwiseAndScalar, AND_SCALAR, (const aclTensor *, self), (const aclScalar *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceBitwiseAndScalar, AND_SCALAR, (const aclTensor *, selfRef),
                      (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnBitwiseOrTensor, OR_TENSOR, (const aclTensor *, self), (const aclTensor *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceBitwiseOrTensor, OR_TENSOR, (aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_OP(aclnnBitwiseOrScalar, OR_SCALAR, (const aclTensor *, self), (const aclScalar *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceBitwiseOrScalar, OR_SCALAR, (aclTensor *, selfRef), (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnBitwiseXorTensor, XOR_TENSOR, (const aclTensor *, self), (const aclTensor *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceBitwiseXorTensor, XOR_TENSOR, (aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_OP(aclnnBitwiseXorScalar, XOR_SCALAR, (const aclTensor *, self), (const aclScalar *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceBitwiseXorScalar, XOR_SCALAR, (aclTensor *, selfRef), (const aclScalar *, other))

/* bitwise_not: out of self's dtype; its op_api answers a NULL argument with ACLNN_ERR_INNER_NULLPTR */
#define NOT_DT (ACLSTUB_DT_INTS | EW_DT(BOOL))
ACLSTUB_EW_UNARY(bit_not_loops, ACLSTUB_EW_INTEGRAL, _Generic((x), bool: !(x), default: ~(x)))
static aclnnStatus null_inner_precheck(aclStubOpCall *call) {
    for (size_t k = 0; k < call->op->num_params; k++)
        ACLSTUB_RETURN_ERROR_IF(!call->v[k].present, call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL",
                                aclStubOpName(call, (int)k));
    return OK;
}
static const aclStubElementwise BIT_NOT = {1, NOT_DT, ACLSTUB_EW_OUT_SAME | PRIVATE, &bit_not_loops, NULL, NULL};
ACLSTUB_EW_OP_PRECHECK(aclnnBitwiseNot, BIT_NOT, null_inner_precheck, (const aclTensor *, self), (aclTensor *, out))

/* ---- shifts -------------------------------------------------------------------------------------------------- */

#define SHIFT_DT (ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS)
#define EW_SHIFT_FNS(n, T, SIGNED)                                                                            \
    static inline T shl_##n(T a, T b) {                                                                       \
        return (b < 0 || (uint64_t)b >= 8 * sizeof(T)) ? (T)0 : (T)((uint64_t)a << (uint64_t)b);              \
    }                                                                                                         \
    static inline T shr_##n(T a, T b) {                                                                       \
        if (b < 0 || (uint64_t)b >= 8 * sizeof(T)) return (T)(SIGNED && a < 0 ? -1 : 0);                     \
        return (T)(a >> b);                                                                                   \
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wsign-compare"
EW_INT_TYPES(EW_SHIFT_FNS)
#pragma GCC diagnostic pop
#define SHIFT(fn, a, b)                                                                                       \
    _Generic((a), int8_t: fn##_i8, int16_t: fn##_i16, int32_t: fn##_i32, int64_t: fn##_i64, uint8_t: fn##_u8, \
             uint16_t: fn##_u16, uint32_t: fn##_u32, uint64_t: fn##_u64)(a, b)
#define SET_SHIFT(X, ...) ACLSTUB_EW_INTS(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)
ACLSTUB_EW_BINARY(shl_loops, SET_SHIFT, SHIFT(shl, a, b))
ACLSTUB_EW_BINARY(shr_loops, SET_SHIFT, SHIFT(shr, a, b))

#define SHIFT_FLAGS (ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_CHECK_PROMOTED)
static const aclStubElementwise LEFT_SHIFT = {2, SHIFT_DT, SHIFT_FLAGS | PRIVATE, &shl_loops, NULL, NULL};
static const aclStubElementwise LEFT_SHIFTS = {2, SHIFT_DT, SHIFT_FLAGS | PRIVATE | ACLSTUB_EW_SCALAR_AS_TENSOR,
                                               &shl_loops, NULL, NULL};
static const aclStubElementwise RIGHT_SHIFT = {2, SHIFT_DT, SHIFT_FLAGS, &shr_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnLeftShift, LEFT_SHIFT, (const aclTensor *, self), (const aclTensor *, shiftBits), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnLeftShifts, LEFT_SHIFTS, (const aclTensor *, self), (const aclScalar *, shiftBits),
              (aclTensor *, out))
ACLSTUB_EW_OP(aclnnRightShift, RIGHT_SHIFT, (const aclTensor *, input), (const aclTensor *, shiftBits),
              (aclTensor *, out))
