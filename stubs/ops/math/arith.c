/*
 * Arithmetic of ops-math math/: add, sub, rsub, mul, div (with its rounding modes), floor_divide, remainder and fmod,
 * with their scalar and in-place variants, as the op_api runs them on Atlas A2/A3: its dtype lists, its promotion
 * of tensors and of scalars (each operator has its own rule for a scalar operand), its out rule, and the dtype each
 * step of its kernel chain computes in (a BF16 alpha * other rounded before the add, integer true division in
 * FLOAT, DOUBLE division modes in FLOAT, ...). Integer quotients and remainders by 0 follow ew_math.h's rule.
 */
#include "ew_math.h"

#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_add_v3.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_floor_divide.h"
#include "aclnnop/aclnn_fmod_scalar.h"
#include "aclnnop/aclnn_fmod_tensor.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_remainder.h"
#include "aclnnop/aclnn_rsub.h"
#include "aclnnop/aclnn_sub.h"

/* ASCEND910B_DTYPE_SUPPORT_LIST of aclnn_add.cpp, aclnn_sub.cpp, aclnn_mul.cpp, aclnn_div.cpp */
#define ARITH_DT EW_DT_ALL
#define RSUB_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT_COMPLEX)
#define ADD_V3_DT (EW_DT(FLOAT) | EW_DT(INT32) | EW_DT(FLOAT16) | EW_DT(BF16) | EW_DT(INT8))
#define FLOOR_DIV_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | EW_DT(BOOL))
#define REMAINDER_DT (EW_DT(INT32) | EW_DT(INT64) | ACLSTUB_DT_REALS)
#define FMOD_DT (EW_DT(FLOAT) | EW_DT(INT32) | EW_DT(INT8) | EW_DT(FLOAT16) | EW_DT(UINT8) | EW_DT(DOUBLE) | \
                 EW_DT(INT64) | EW_DT(BF16))
/* every dtype: the operators whose op_api checks only the promoted dtype */
#define ANY_DT (EW_DT_ALL | ACLSTUB_DT_UINTS)

/* ---- add: self + alpha * other ------------------------------------------------------------------------------ */

/* Where alpha is not 1 the op_api runs Axpy (FLOAT, INT32, FLOAT16: one rounding) or Mul then Add (the product of
 * other and alpha, both in the computation dtype, rounded to it first: BF16 among the floats). */
ACLSTUB_EW_BINARY(add_loops, ACLSTUB_EW_ALL, a + ACLSTUB_EW_ROUND(ACLSTUB_EW_ROUND(s0) * b))

static aclDataType adds_dtype(const aclStubOpCall *call, aclDataType promoted) {
    if (!ew_is_scalar(call, 1)) return promoted;
    return ew_promote_tensor_scalar(ew_dtype(call, 0), ew_dtype(call, 1), ew_out_dtype(call));
}
static aclnnStatus axpy_check(aclStubOpCall *call) {
    aclStubEwPlan *p = call->plan;
    /* Axpy has no FLOAT16 product; alpha 1 has no product at all (Add): nothing to round */
    if (p->compute == ACL_FLOAT16 || ew_scalar_is_one(call, 2)) p->ctx.compute = ACL_FLOAT;
    return OK;
}
static const aclStubElementwise ADD = {2, ARITH_DT, ACLSTUB_EW_ATTR0_CASTS, &add_loops, axpy_check, adds_dtype};
ACLSTUB_EW_OP(aclnnAdd, ADD, (const aclTensor *, self), (const aclTensor *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_OP(aclnnAdds, ADD, (const aclTensor *, self), (const aclScalar *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAdd, ADD, (const aclTensor *, selfRef), (const aclTensor *, other),
                      (const aclScalar *, alpha))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAdds, ADD, (const aclTensor *, selfRef), (const aclScalar *, other),
                      (const aclScalar *, alpha))

/* aclnnAddV3: a scalar self plus alpha times a tensor; a floating tensor computes in FLOAT. */
static aclDataType add_v3_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    aclDataType self = ew_dtype(call, 0), other = ew_dtype(call, 1);
    if (aclStubIsComplex(other) || aclStubIsComplex(self)) return aclStubPromoteType(other, self);
    if (aclStubIsFloating(other)) return ACL_FLOAT;
    if (self == ACL_DOUBLE && ew_out_dtype(call) == ACL_FLOAT) return ACL_FLOAT;
    if (aclStubIsFloating(self) || other == ACL_BOOL) return aclStubPromoteType(other, self);
    return other;
}
static const aclStubElementwise ADD_V3 = {2, ADD_V3_DT, ACLSTUB_EW_ATTR0_CASTS, &add_loops, axpy_check, add_v3_dtype};
ACLSTUB_EW_OP(aclnnAddV3, ADD_V3, (const aclScalar *, self), (const aclTensor *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_AT_OP(aclnnInplaceAddV3, ADD_V3, 1, (const aclScalar *, selfRef), (const aclTensor *, other),
                         (const aclScalar *, alpha))

/* ---- sub: self - alpha * other (one rounding: a floating alpha other than 1 computes in FLOAT or Axpy) ------ */

ACLSTUB_EW_BINARY(sub_loops, ACLSTUB_EW_ALL, a - s0 * b)

static aclDataType sub_dtype(const aclStubOpCall *call, aclDataType promoted) {
    if (!ew_scalar_is_one(call, 2) && ew_is_half(promoted)) return ACL_FLOAT;
    return promoted;
}
static const aclStubElementwise SUB = {2, ARITH_DT, ACLSTUB_EW_ATTR0_CASTS | ACLSTUB_EW_CHECK_PROMOTED, &sub_loops,
                                       NULL, sub_dtype};
ACLSTUB_EW_OP(aclnnSub, SUB, (const aclTensor *, self), (const aclTensor *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceSub, SUB, (aclTensor *, selfRef), (const aclTensor *, other),
                      (const aclScalar *, alpha))
static const aclStubElementwise SUBS = {2, ARITH_DT, ACLSTUB_EW_ATTR0_CASTS, &sub_loops, axpy_check, adds_dtype};
ACLSTUB_EW_OP(aclnnSubs, SUBS, (const aclTensor *, self), (const aclScalar *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceSubs, SUBS, (aclTensor *, selfRef), (const aclScalar *, other),
                      (const aclScalar *, alpha))

/* ---- rsub: other - alpha * self (Mul then Sub: the product rounded to a 16-bit computation dtype) ------------ */

ACLSTUB_EW_BINARY(rsub_loops, ACLSTUB_EW_ALL, b - ACLSTUB_EW_ROUND(ACLSTUB_EW_ROUND(s0) * a))
static aclDataType rsubs_dtype(const aclStubOpCall *call, aclDataType promoted) {
    if (!ew_is_scalar(call, 1)) return promoted;
    aclDataType self = ew_dtype(call, 0), other = ew_dtype(call, 1);
    if (aclStubIsFloating(self)) return self;
    return aclStubIsFloating(other) ? aclStubPromoteType(self, other) : self;
}
static const aclStubElementwise RSUB = {2, RSUB_DT, ACLSTUB_EW_ATTR0_CASTS | ACLSTUB_EW_SCALAR_IN_LIST, &rsub_loops,
                                        NULL, rsubs_dtype};
ACLSTUB_EW_OP(aclnnRsub, RSUB, (const aclTensor *, self), (const aclTensor *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_OP(aclnnRsubs, RSUB, (const aclTensor *, self), (const aclScalar *, other), (const aclScalar *, alpha),
              (aclTensor *, out))

/* ---- mul ----------------------------------------------------------------------------------------------------- */

ACLSTUB_EW_BINARY(mul_loops, ACLSTUB_EW_ALL, a * b)
static const aclStubElementwise MUL = {2, ARITH_DT, ACLSTUB_EW_OUT_IN_LIST, &mul_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnMul, MUL, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceMul, MUL, (aclTensor *, selfRef), (const aclTensor *, other))

/* aclnnMuls: InferTensorScalarDtype (a BF16 tensor computes in FLOAT; with a DOUBLE scalar it runs Muls, whose
 * result is BF16); self and out in the list, out any of it. */
static aclDataType muls_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    aclDataType self = ew_dtype(call, 0), other = ew_dtype(call, 1), out = ew_out_dtype(call);
    if (aclStubIsComplex(self) || aclStubIsComplex(other)) return aclStubPromoteType(self, other);
    if (aclStubIsFloating(self)) return self == ACL_BF16 ? ACL_FLOAT : self;
    if ((self == ACL_BOOL && other == ACL_DOUBLE) || (other == ACL_DOUBLE && out == ACL_FLOAT)) return ACL_FLOAT;
    if (aclStubIsFloating(other) || self == ACL_BOOL) return aclStubPromoteType(self, other);
    return self;
}
static aclnnStatus muls_check(aclStubOpCall *call) {
    if (ew_dtype(call, 0) == ACL_BF16 && ew_dtype(call, 1) == ACL_DOUBLE) ew_compute(call, ACL_FLOAT, ACL_BF16);
    return OK;
}
static const aclStubElementwise MULS = {2, ARITH_DT, ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_OUT_ANY, &mul_loops,
                                        muls_check, muls_dtype};
ACLSTUB_EW_OP(aclnnMuls, MULS, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceMuls, MULS, (aclTensor *, selfRef), (const aclScalar *, other))

/* ---- div: true division and the rounding modes of DivMod -------------------------------------------------------- */

enum { MODE_REAL = 0, MODE_TRUNC = 1, MODE_FLOOR = 2 };

static bool in_mix_list(aclDataType a, aclDataType b) {
    const uint64_t f = ACLSTUB_DT_FLOATS;
    return ew_in(f, a) && ew_in(f, b);
}

/* The computation of RealDiv on operands promoted to c: BOOL and INT32 give FLOAT (INT32 correctly rounded: the
 * quotient in DOUBLE, rounded once). */
static void real_div(aclStubOpCall *call, aclDataType c) {
    if (c == ACL_BOOL) ew_compute(call, ACL_FLOAT, ACL_FLOAT);
    else if (c == ACL_INT32) ew_compute(call, ACL_DOUBLE, ACL_FLOAT);
    else ew_compute(call, c, c);
}

/* aclnnDiv: out must cast from the promoted dtype; mixed floating pairs divide in FLOAT; integers other than two
 * INT32 tensors divide in FLOAT. */
static aclnnStatus div_check(aclStubOpCall *call) {
    aclDataType s = ew_dtype(call, 0), o = ew_dtype(call, 1), p = aclStubPromoteType(s, o);
    if (in_mix_list(s, o)) {
        ew_compute(call, s == o ? s : ACL_FLOAT, s == o ? s : ACL_FLOAT);
        return OK;
    }
    bool keep = aclStubIsFloating(p) || aclStubIsComplex(p) || p == ACL_BOOL || (s == ACL_INT32 && o == ACL_INT32);
    real_div(call, keep ? p : ACL_FLOAT);
    return OK;
}

/* aclnnDivs: out must cast from self's dtype; the scalar joins as the op_api's CompatibleInferDivsDtype says. */
static aclDataType self_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    return ew_dtype(call, 0);
}
static bool divs_mix(aclDataType s, aclDataType o) {
    return (s == ACL_FLOAT16 && o == ACL_FLOAT) || (s == ACL_FLOAT && o == ACL_FLOAT16) ||
           (s == ACL_BF16 && o == ACL_FLOAT) || (s == ACL_FLOAT && o == ACL_BF16) || (s == ACL_BF16 && o == ACL_DOUBLE) ||
           (s == ACL_FLOAT16 && o == ACL_BF16) || (s == ACL_BF16 && o == ACL_FLOAT16);
}
static aclnnStatus divs_check(aclStubOpCall *call) {
    aclDataType s = ew_dtype(call, 0), o = ew_dtype(call, 1);
    if (divs_mix(s, o)) { /* RealDiv of self and the scalar in its own dtype (DOUBLE as FLOAT): self's dtype */
        ew_compute(call, ACL_FLOAT, s);
        return OK;
    }
    aclDataType c = (aclStubIsFloating(s) || aclStubIsComplex(s) || (s == ACL_INT32 && o == ACL_INT32)) ? s : ACL_FLOAT;
    if (s == ACL_BOOL && o == ACL_BOOL) c = ACL_BOOL;
    if (aclStubIsComplex(o)) c = aclStubPromoteType(c, o);
    real_div(call, c);
    return OK;
}

ACLSTUB_EW_BINARY(div_loops, EW_SET_NUM, EW_DIV(a, b))
#define DIV_FLAGS ACLSTUB_EW_NO_PRIVATE_FORMAT
static const aclStubElementwise DIV = {2, ARITH_DT, DIV_FLAGS | ACLSTUB_EW_CHECK_PROMOTED, &div_loops, div_check,
                                      NULL};
ACLSTUB_EW_OP(aclnnDiv, DIV, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceDiv, DIV, (aclTensor *, selfRef), (const aclTensor *, other))
static const aclStubElementwise DIVS = {2, ARITH_DT, DIV_FLAGS | ACLSTUB_EW_SCALAR_IN_LIST, &div_loops, divs_check,
                                        self_dtype};
ACLSTUB_EW_OP(aclnnDivs, DIVS, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceDivs, DIVS, (aclTensor *, selfRef), (const aclScalar *, other))

/* The mode attribute (after the two operands), its range, and complex operands with a rounding mode. */
static aclnnStatus check_mode(aclStubOpCall *call, aclDataType promoted) {
    int64_t mode = aclStubOpInt(call, 2);
    ACLSTUB_RETURN_ERROR_IF(mode < MODE_REAL || mode > MODE_FLOOR, call, ACLNN_ERR_PARAM_INVALID,
                            "mode should be between 0 and 2, but current is %lld", (long long)mode);
    ACLSTUB_RETURN_ERROR_IF(mode != MODE_REAL && aclStubIsComplex(promoted), call, ACLNN_ERR_PARAM_INVALID,
                            "promoteType do not support DT_COMPLEX128 or DT_COMPLEX64");
    return OK;
}

/* The computation of a rounding mode on operands promoted to c (RealDiv + Trunc, or FloorDiv). */
static void mode_div(aclStubOpCall *call, int64_t mode, aclDataType c) {
    if (mode == MODE_REAL) real_div(call, c);
    else if (c == ACL_BOOL) ew_compute(call, ACL_FLOAT, ACL_FLOAT);
    else ew_compute(call, c, c);
}

/* aclnnDivMod: CompatibleInferDivModeDtype (floor division keeps integers; the other modes keep the floating
 * dtypes but DOUBLE, and two INT32 tensors; anything else runs in FLOAT). */
static aclnnStatus divmod_check(aclStubOpCall *call) {
    aclDataType s = ew_dtype(call, 0), o = ew_dtype(call, 1), p = aclStubPromoteType(s, o);
    int64_t mode = aclStubOpInt(call, 2);
    ACLSTUB_TRY(check_mode(call, p));
    if (in_mix_list(s, o)) {
        aclDataType r = s == o ? s : ACL_FLOAT;
        ew_compute(call, r, r);
        return OK;
    }
    aclDataType c = p;
    if (mode == MODE_FLOOR) {
        if (p == ACL_BOOL) c = ACL_FLOAT;
    } else if (!(p == ACL_FLOAT || p == ACL_FLOAT16 || p == ACL_BF16 || p == ACL_BOOL || aclStubIsComplex(p) ||
                 (s == ACL_INT32 && o == ACL_INT32))) {
        c = ACL_FLOAT;
    }
    mode_div(call, mode, c);
    return OK;
}

/* aclnnDivMods: CompatibleInferDivsModeDtype; a scalar of the mixed-pair list stays in its dtype. */
static aclnnStatus divmods_check(aclStubOpCall *call) {
    aclDataType s = ew_dtype(call, 0), o = ew_dtype(call, 1), p = aclStubPromoteType(s, o);
    int64_t mode = aclStubOpInt(call, 2);
    ACLSTUB_TRY(check_mode(call, p));
    if (in_mix_list(s, o)) {
        aclDataType r = (mode == MODE_TRUNC && s != o) ? ACL_FLOAT : s;
        ew_compute(call, s == o ? s : ACL_FLOAT, r);
        return OK;
    }
    aclDataType c;
    if (mode == MODE_FLOOR) {
        c = p == ACL_BOOL ? ACL_FLOAT : p;
    } else {
        bool keep = s == ACL_FLOAT || s == ACL_FLOAT16 || s == ACL_BF16 || p == ACL_BOOL ||
                    (s == ACL_INT32 && o == ACL_INT32);
        c = keep ? s : ACL_FLOAT;
        if (aclStubIsComplex(s) || aclStubIsComplex(o)) c = p;
    }
    mode_div(call, mode, c);
    return OK;
}

/* mode i0: 0 true division, 1 toward zero, 2 toward minus infinity */
ACLSTUB_EW_BINARY(div_mode_loops, EW_SET_NUM, i0 == MODE_REAL ? EW_DIV(a, b) : i0 == MODE_TRUNC ? EW_TDIV(a, b)
                                                                                            : EW_FDIV(a, b))
static const aclStubElementwise DIV_MOD = {2, ARITH_DT, DIV_FLAGS | ACLSTUB_EW_CHECK_PROMOTED, &div_mode_loops, divmod_check,
                                           NULL};
ACLSTUB_EW_OP(aclnnDivMod, DIV_MOD, (const aclTensor *, self), (const aclTensor *, other), (int, mode),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceDivMod, DIV_MOD, (aclTensor *, selfRef), (const aclTensor *, other), (int, mode))
static const aclStubElementwise DIV_MODS = {2, ARITH_DT, DIV_FLAGS | ACLSTUB_EW_SCALAR_IN_LIST, &div_mode_loops,
                                            divmods_check, self_dtype};
ACLSTUB_EW_OP(aclnnDivMods, DIV_MODS, (const aclTensor *, self), (const aclScalar *, other), (int, mode),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceDivMods, DIV_MODS, (aclTensor *, selfRef), (const aclScalar *, other), (int, mode))

/* ---- floor_divide: FloorDiv of the promoted operands (BOOL in FLOAT); the op_api checks no out dtype -------- */

ACLSTUB_EW_BINARY(floor_div_loops, ACLSTUB_EW_REAL, EW_FDIV(a, b))
static aclDataType floor_div_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)call;
    return promoted == ACL_BOOL ? ACL_FLOAT : promoted;
}
static const aclStubElementwise FLOOR_DIV = {2, FLOOR_DIV_DT, ACLSTUB_EW_OUT_ANY, &floor_div_loops, NULL,
                                             floor_div_dtype};
ACLSTUB_EW_OP(aclnnFloorDivide, FLOOR_DIV, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceFloorDivide, FLOOR_DIV, (aclTensor *, selfRef), (const aclTensor *, other))
static const aclStubElementwise FLOOR_DIVS = {2, FLOOR_DIV_DT, ACLSTUB_EW_OUT_ANY | ACLSTUB_EW_SCALAR_AS_TENSOR,
                                              &floor_div_loops, NULL, floor_div_dtype};
ACLSTUB_EW_OP(aclnnFloorDivides, FLOOR_DIVS, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceFloorDivides, FLOOR_DIVS, (aclTensor *, selfRef), (const aclScalar *, other))

/* ---- remainder: floor modulo (the divisor's sign) --------------------------------------------------------------- */

ACLSTUB_EW_BINARY(remainder_loops, ACLSTUB_EW_REAL, EW_FMOD(a, b))

static aclnnStatus in_remainder_list(aclStubOpCall *call, const char *what, aclDataType t) {
    char buf[160];
    ACLSTUB_RETURN_ERROR_IF(!ew_in(REMAINDER_DT, t), call, ACLNN_ERR_PARAM_INVALID,
                            "%s dtype %s should be in dtype support list [%s]", what, aclStubDtypeName(t),
                            aclStubDtypeSetName(REMAINDER_DT, buf, sizeof buf));
    return OK;
}
static aclnnStatus no_complex(aclStubOpCall *call) {
    ACLSTUB_RETURN_ERROR_IF(aclStubIsComplex(ew_dtype(call, 0)) || aclStubIsComplex(ew_dtype(call, 1)), call,
                            ACLNN_ERR_PARAM_INVALID, "remainder not implemented for dtype complex");
    return OK;
}
/* tensor % tensor: the promoted dtype in the list */
static aclnnStatus remainder_tt_check(aclStubOpCall *call) {
    return in_remainder_list(call, "promote", ((aclStubEwPlan *)call->plan)->compute);
}
static const aclStubElementwise REMAINDER_TT = {2, ANY_DT, 0, &remainder_loops, remainder_tt_check, NULL};
ACLSTUB_EW_OP(aclnnRemainderTensorTensor, REMAINDER_TT, (const aclTensor *, self), (const aclTensor *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceRemainderTensorTensor, REMAINDER_TT, (aclTensor *, selfRef),
                      (const aclTensor *, other))

/* tensor % scalar: PromoteTypeScalar (a floating tensor keeps its dtype), self castable to it, in the list */
static aclDataType remainder_ts_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    aclDataType s = ew_dtype(call, 0), o = ew_dtype(call, 1);
    if (aclStubIsFloating(s)) return s;
    return (aclStubIsFloating(o) || s == ACL_BOOL) ? aclStubPromoteType(s, o) : s;
}
static aclnnStatus remainder_ts_check(aclStubOpCall *call) {
    ACLSTUB_TRY(no_complex(call));
    aclDataType c = ((aclStubEwPlan *)call->plan)->compute;
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(ew_dtype(call, 0), c), call, ACLNN_ERR_PARAM_INVALID,
                            "self dtype %s can't be cast to %s", aclStubDtypeName(ew_dtype(call, 0)),
                            aclStubDtypeName(c));
    return in_remainder_list(call, "expected", c);
}
static const aclStubElementwise REMAINDER_TS = {2, ANY_DT, 0, &remainder_loops, remainder_ts_check,
                                                remainder_ts_dtype};
ACLSTUB_EW_OP(aclnnRemainderTensorScalar, REMAINDER_TS, (const aclTensor *, self), (const aclScalar *, other),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceRemainderTensorScalar, REMAINDER_TS, (aclTensor *, selfRef),
                      (const aclScalar *, other))

/* scalar % tensor: out castable from other's dtype and in the list; both operands are cast to out's dtype */
static aclDataType other_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    return ew_dtype(call, 1);
}
static aclnnStatus remainder_st_check(aclStubOpCall *call) {
    ACLSTUB_TRY(no_complex(call));
    aclDataType out = ew_out_dtype(call);
    ACLSTUB_TRY(in_remainder_list(call, "out", out));
    ew_compute(call, out, out);
    return OK;
}
/* its op_api answers a NULL argument with ACLNN_ERR_INNER_NULLPTR */
static aclnnStatus remainder_st_precheck(aclStubOpCall *call) {
    for (int k = 0; k < 3; k++)
        ACLSTUB_RETURN_ERROR_IF(!call->v[k].present, call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL",
                                aclStubOpName(call, k));
    return OK;
}
static const aclStubElementwise REMAINDER_ST = {2, ANY_DT, 0, &remainder_loops, remainder_st_check, other_dtype};
ACLSTUB_EW_OP_PRECHECK(aclnnRemainderScalarTensor, REMAINDER_ST, remainder_st_precheck, (const aclScalar *, self), (const aclTensor *, other),
              (aclTensor *, out))

/* ---- fmod: truncated modulo (the dividend's sign); self, other, out and the promoted dtype in the list ---------- */

ACLSTUB_EW_BINARY(fmod_loops, ACLSTUB_EW_REAL, EW_TMOD(a, b))
#define FMOD_FLAGS (ACLSTUB_EW_OUT_IN_LIST | ACLSTUB_EW_RESULT_IN_LIST | ACLSTUB_EW_OUT_ANY)
static const aclStubElementwise FMOD_TENSOR = {2, FMOD_DT, FMOD_FLAGS, &fmod_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnFmodTensor, FMOD_TENSOR, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceFmodTensor, FMOD_TENSOR, (aclTensor *, selfRef), (const aclTensor *, other))
static const aclStubElementwise FMOD_SCALAR = {2, FMOD_DT, FMOD_FLAGS | ACLSTUB_EW_SCALAR_AS_TENSOR, &fmod_loops,
                                               NULL, NULL};
ACLSTUB_EW_OP(aclnnFmodScalar, FMOD_SCALAR, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceFmodScalar, FMOD_SCALAR, (aclTensor *, selfRef), (const aclScalar *, other))
