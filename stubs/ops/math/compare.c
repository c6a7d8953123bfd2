/*
 * Comparisons of ops-math math/: eq, ne, gt, ge, lt, le (tensor and scalar operands, in-place variants writing
 * the 0/1 result in selfRef's dtype), aclnnEqual (one BOOL: the tensors have the same shape and elements),
 * aclnnIsClose and the scalar forms of isin (aclnnIsInTensorScalar, aclnnIsInScalarTensor). Each op_api has its own dtype lists (operands, out, the promoted dtype) and its own rule for a
 * scalar operand; a row below carries them, one shared check applies them.
 */
#include <float.h>

#include "ew_math.h"

#include "aclnnop/aclnn_eq_scalar.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_equal.h"
#include "aclnnop/aclnn_ge_scalar.h"
#include "aclnnop/aclnn_ge_tensor.h"
#include "aclnnop/aclnn_gt_scalar.h"
#include "aclnnop/aclnn_gt_tensor.h"
#include "aclnnop/aclnn_isclose.h"
#include "aclnnop/aclnn_isin.h"
#include "aclnnop/aclnn_isin_tensor_scalar.h"
#include "aclnnop/aclnn_le_scalar.h"
#include "aclnnop/aclnn_le_tensor.h"
#include "aclnnop/aclnn_lt_scalar.h"
#include "aclnnop/aclnn_lt_tensor.h"
#include "aclnnop/aclnn_ne_scalar.h"
#include "aclnnop/aclnn_ne_tensor.h"

#define ANY_DT (EW_DT_ALL | ACLSTUB_DT_UINTS)
/* The Atlas A2/A3 lists of the op_api files. */
#define EQ_DT EW_DT_ALL
#define GT_DT (EW_DT_NUMBERS | ACLSTUB_DT_UINTS)
#define GT_OUT_DT (GT_DT | ACLSTUB_DT_COMPLEX)
#define GE_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT_UINTS)
#define GE_OUT_DT (GE_DT | ACLSTUB_DT_COMPLEX | EW_DT(BOOL))
#define LE_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | EW_DT(UINT16) | EW_DT(BOOL))

/* How a scalar operand joins (the variants' PromoteTypeScalar). */
typedef enum {
    SCALAR_PROMOTE,    /* CANN's table with the scalar's dtype */
    SCALAR_EQ,         /* eq/ne: a floating tensor keeps its dtype unless the scalar is complex */
    SCALAR_GT,         /* gt/ge: the table, but a floating tensor keeps its dtype for a DOUBLE it holds exactly */
    SCALAR_LT,         /* lt: the scalar first converted to a floating tensor's dtype, or DOUBLE to FLOAT */
    SCALAR_LE,         /* le: a floating tensor keeps its dtype, a DOUBLE scalar gives FLOAT */
} ScalarRule;

typedef struct {
    aclStubElementwise ew; /* first: the engine's row */
    uint64_t operands;     /* the operands' list (0: the op_api checks none) */
    uint64_t out;          /* out's list (0: none) */
    uint64_t promoted;     /* the promoted dtype's list (0: none); BOOL counts as INT8 for gt/ge */
    bool out_bool;         /* out may be BOOL beside its list */
    bool bool_as_int8;     /* the promoted BOOL is checked as INT8 */
    ScalarRule scalar;
} CmpRow;

static const char *list_text(uint64_t set, char *buf, size_t n) { return aclStubDtypeSetName(set, buf, n); }

/* A DOUBLE scalar converted to a floating tensor's dtype and back, unchanged? */
static bool holds_exactly(aclDataType t, double v) {
    float f = (float)v;
    if (t == ACL_FLOAT16) f = aclStubF16ToF32(aclStubF32ToF16(f));
    else if (t == ACL_BF16) f = aclStubBf16ToF32(aclStubF32ToBf16(f));
    else if (t == ACL_DOUBLE) return true;
    return fabs((double)f - v) <= 2.220446049250313e-16 || (v != v && f != f);
}

static aclDataType cmp_dtype(const aclStubOpCall *call, aclDataType promoted) {
    const CmpRow *row = (const CmpRow *)aclStubFamilyRow(call);
    if (!ew_is_scalar(call, 1)) return promoted;
    aclDataType s = ew_dtype(call, 0), o = ew_dtype(call, 1);
    switch (row->scalar) {
    case SCALAR_EQ:
        if (!aclStubIsComplex(o) && aclStubIsFloating(s)) return s;
        if (s == ACL_BOOL || aclStubIsFloating(o) || aclStubIsComplex(o)) return aclStubPromoteType(s, o);
        return s;
    case SCALAR_GT:
        if (o == ACL_DOUBLE && aclStubIsFloating(s) && holds_exactly(s, aclStubOpScalarF64(call, 1))) return s;
        return aclStubPromoteType(s, o);
    case SCALAR_LT:
        return aclStubPromoteType(s, aclStubIsFloating(s) ? s : o == ACL_DOUBLE ? ACL_FLOAT : o);
    case SCALAR_LE:
        if (aclStubIsFloating(s)) return s;
        return o == ACL_DOUBLE ? ACL_FLOAT : aclStubPromoteType(s, o);
    default:
        return aclStubPromoteType(s, o);
    }
}

static aclnnStatus in_list(aclStubOpCall *call, uint64_t set, aclDataType t, const char *what) {
    char buf[256];
    ACLSTUB_RETURN_ERROR_IF(!ew_in(set, t), call, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support "
                            "list [%s]", what, aclStubDtypeName(t), list_text(set, buf, sizeof buf));
    return OK;
}

static aclnnStatus cmp_check(aclStubOpCall *call) {
    const CmpRow *row = (const CmpRow *)aclStubFamilyRow(call);
    if (row->operands) {
        ACLSTUB_TRY(in_list(call, row->operands, ew_dtype(call, 0), aclStubOpName(call, 0)));
        ACLSTUB_TRY(in_list(call, row->operands, ew_dtype(call, 1), aclStubOpName(call, 1)));
    }
    aclDataType out = ew_out_dtype(call);
    if (row->out && !(row->out_bool && out == ACL_BOOL)) ACLSTUB_TRY(in_list(call, row->out, out, "out"));
    aclDataType p = ((aclStubEwPlan *)call->plan)->compute;
    if (row->promoted) ACLSTUB_TRY(in_list(call, row->promoted, row->bool_as_int8 && p == ACL_BOOL ? ACL_INT8 : p,
                                           "promote"));
    return OK;
}

#define CMP_FLAGS ACLSTUB_EW_PREDICATE
#define CMP(NAME, FLAGS, LOOPS, OPERANDS, OUT, PROMOTED, OUT_BOOL, INT8, RULE)                               \
    static const CmpRow NAME = {{2, ANY_DT, CMP_FLAGS | FLAGS, &LOOPS, cmp_check, cmp_dtype}, OPERANDS, OUT,      \
                                PROMOTED, OUT_BOOL, INT8, RULE}

/* Loop sets: every dtype a comparison may run in. */
#define SET_EQ(X, ...) ACLSTUB_EW_ALL(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)
#define SET_ORDER(X, ...) ACLSTUB_EW_NUMBERS(X, __VA_ARGS__) ACLSTUB_EW_UINTS(X, __VA_ARGS__)
ACLSTUB_EW_BINARY_PRED(eq_loops, SET_EQ, a == b)
ACLSTUB_EW_BINARY_PRED(ne_loops, SET_EQ, a != b)
ACLSTUB_EW_BINARY_PRED(gt_loops, SET_ORDER, a > b)
ACLSTUB_EW_BINARY_PRED(ge_loops, SET_ORDER, a >= b)
ACLSTUB_EW_BINARY_PRED(lt_loops, SET_ORDER, a < b)
ACLSTUB_EW_BINARY_PRED(le_loops, SET_ORDER, a <= b)

/*  row        flags (ne/le tensors: empty first)  loops  operands out  promoted  out BOOL  INT8  scalar rule */
#define EF ACLSTUB_EW_EMPTY_FIRST
CMP(EQ_TENSOR, 0, eq_loops, 0, EQ_DT, EQ_DT, false, false, SCALAR_PROMOTE);
CMP(EQ_SCALAR, 0, eq_loops, EQ_DT, EQ_DT, 0, false, false, SCALAR_EQ);
CMP(NE_TENSOR, EF, ne_loops, EQ_DT, EQ_DT, 0, false, false, SCALAR_PROMOTE);
CMP(NE_SCALAR, 0, ne_loops, EQ_DT, EQ_DT, 0, false, false, SCALAR_EQ);
CMP(GT_TENSOR, 0, gt_loops, 0, GT_OUT_DT, GT_DT, false, true, SCALAR_PROMOTE);
CMP(GT_SCALAR, 0, gt_loops, GT_DT, GT_OUT_DT, 0, false, true, SCALAR_GT);
CMP(GE_TENSOR, 0, ge_loops, 0, GE_OUT_DT, GE_DT, false, true, SCALAR_PROMOTE);
CMP(GE_SCALAR, 0, ge_loops, 0, GE_OUT_DT, GE_DT, false, true, SCALAR_GT);
CMP(LT_TENSOR, 0, lt_loops, GT_DT, GT_OUT_DT, 0, false, false, SCALAR_PROMOTE);
CMP(LT_SCALAR, 0, lt_loops, GT_DT, GT_DT, 0, false, false, SCALAR_LT);
CMP(LE_TENSOR, EF, le_loops, LE_DT, LE_DT, 0, true, false, SCALAR_PROMOTE);
CMP(LE_SCALAR, 0, le_loops, LE_DT, LE_DT, 0, true, false, SCALAR_LE);

/* aclnnLtScalar answers a NULL self or other with ACLNN_ERR_INNER_NULLPTR (out: 161001). */
static aclnnStatus lt_scalar_precheck(aclStubOpCall *call) {
    for (int k = 1; k >= 0; k--)
        ACLSTUB_RETURN_ERROR_IF(!call->v[k].present, call, ACLNN_ERR_INNER_NULLPTR, "argument '%s' is NULL",
                                aclStubOpName(call, k));
    return OK;
}

/* selfRef is const in some official headers and not in others: each line follows its header */
ACLSTUB_EW_OP(aclnnEqTensor, EQ_TENSOR.ew, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceEqTensor, EQ_TENSOR.ew, (const aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceEqScalar, EQ_SCALAR.ew, (const aclTensor *, selfRef), (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnNeTensor, NE_TENSOR.ew, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceNeTensor, NE_TENSOR.ew, (aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceNeScalar, NE_SCALAR.ew, (aclTensor *, selfRef), (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnGtTensor, GT_TENSOR.ew, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceGtTensor, GT_TENSOR.ew, (const aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceGtScalar, GT_SCALAR.ew, (aclTensor *, selfRef), (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnGeTensor, GE_TENSOR.ew, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceGeTensor, GE_TENSOR.ew, (aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceGeScalar, GE_SCALAR.ew, (aclTensor *, selfRef), (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnLtTensor, LT_TENSOR.ew, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLtTensor, LT_TENSOR.ew, (const aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_INPLACE_OP_PRECHECK(aclnnInplaceLtScalar, LT_SCALAR.ew, lt_scalar_precheck, (const aclTensor *, selfRef),
                               (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnLeTensor, LE_TENSOR.ew, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLeTensor, LE_TENSOR.ew, (aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceLeScalar, LE_SCALAR.ew, (aclTensor *, selfRef), (const aclScalar *, other))
ACLSTUB_EW_OP(aclnnEqScalar, EQ_SCALAR.ew, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnNeScalar, NE_SCALAR.ew, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnGtScalar, GT_SCALAR.ew, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnGeScalar, GE_SCALAR.ew, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_OP_PRECHECK(aclnnLtScalar, LT_SCALAR.ew, lt_scalar_precheck, (const aclTensor *, self),
                       (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnLeScalar, LE_SCALAR.ew, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))

/* ---- isclose: |self - other| <= atol + rtol * |other| (FLOAT16/BF16/FLOAT in float32 with rtol and atol as
 * float32), equal values (infinities included), NaN pairs when equalNan; BOOL compares equal ---------------- */

/* every term computed and combined bitwise, so the compiler vectorises it */
static inline bool isclose_f32(float a, float b, float rtol, float atol, bool nan_equal) {
    bool finite = (fabsf(a) <= FLT_MAX) & (fabsf(b) <= FLT_MAX);
    bool close = fabsf(a - b) <= atol + rtol * fabsf(b);
    return (a == b) | (close & finite) | (nan_equal & (a != a) & (b != b));
}
static inline bool isclose_f64(double a, double b, double rtol, double atol, bool nan_equal) {
    bool finite = (fabs(a) <= DBL_MAX) & (fabs(b) <= DBL_MAX);
    bool close = fabs(a - b) <= atol + rtol * fabs(b);
    return (a == b) | (close & finite) | (nan_equal & (a != a) & (b != b));
}
#define ISCLOSE(a, b)                                                                                         \
    _Generic((a), float: isclose_f32((float)(a), (float)(b), (float)d0, (float)d1, i2 != 0), bool: (a) == (b), \
             default: isclose_f64((double)(a), (double)(b), (double)(float)d0, (double)(float)d1, i2 != 0))
ACLSTUB_EW_BINARY_PRED(isclose_loops, ACLSTUB_EW_NUMBERS, ISCLOSE(a, b))
#define ISCLOSE_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | EW_DT(BOOL))
/* self and other of one dtype; out any dtype (the op_api checks none) */
static const aclStubElementwise ISCLOSE_ROW = {2, ISCLOSE_DT, ACLSTUB_EW_PREDICATE | ACLSTUB_EW_NO_PROMOTE, &isclose_loops,
                                               NULL, NULL};
ACLSTUB_EW_OP(aclnnIsClose, ISCLOSE_ROW, (const aclTensor *, self), (const aclTensor *, other), (double, rtol),
              (double, atol), (bool, equalNan), (aclTensor *, out))

/* ---- aclnnEqual: one BOOL element, true when the shapes are equal and so is every element pair (two empty
 * tensors of one shape are equal) -------------------------------------------------------------------------- */

#define EQUAL_DT (EW_DT_NUMBERS | ACLSTUB_DT_UINTS)
enum { EQ_SELF, EQ_OTHER, EQ_OUT };
static const aclStubParam kEqualParams[] = {
    [EQ_SELF] = {"self", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [EQ_OTHER] = {"other", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [EQ_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};

typedef struct {
    aclDataType compute;
} EqualPlan;

static aclnnStatus equal_check(aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, EQ_SELF), *other = aclStubOpTensor(call, EQ_OTHER),
                            *out = aclStubOpTensor(call, EQ_OUT);
    char buf[256];
    aclDataType p = aclStubPromoteType(self->dtype, other->dtype);
    ACLSTUB_RETURN_ERROR_IF((int)p < 0, call, ACLNN_ERR_PARAM_INVALID, "self dtype %s and other dtype %s can not "
                            "promote dtype", aclStubDtypeName(self->dtype), aclStubDtypeName(other->dtype));
    ACLSTUB_RETURN_ERROR_IF(!ew_in(EQUAL_DT, p), call, ACLNN_ERR_PARAM_INVALID, "promote dtype %s should be in dtype "
                            "support list [%s]", aclStubDtypeName(p), list_text(EQUAL_DT, buf, sizeof buf));
    ACLSTUB_RETURN_ERROR_IF(out->dtype != ACL_BOOL, call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be ACL_BOOL",
                            aclStubDtypeName(out->dtype));
    for (int k = 0; k < 3; k++)
        ACLSTUB_RETURN_ERROR_IF(call->v[k].tensor->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "argument '%s' has %u "
                                "dimensions; at most 8 are supported", aclStubOpName(call, k), call->v[k].tensor->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 1 || out->dims[0] != 1, call, ACLNN_ERR_PARAM_INVALID, "out shape %s should "
                            "be [1]", aclStubShapeText(out->dims, out->ndim, buf, sizeof buf));
    ((EqualPlan *)call->plan)->compute = p == ACL_BF16 ? ACL_FLOAT : p;
    return OK;
}

ACLSTUB_EW_BINARY_PRED(equal_loops, SET_EQ, a != b)

/* A comparison table's loop for a loop dtype (NULL: none). */
static aclStubLoopFn loop_fn(const aclStubEwLoops *loops, aclDataType loop) {
    switch (loop) {
    case ACL_FLOAT: return loops->fn[ACLSTUB_CT_F32];
    case ACL_DOUBLE: return loops->fn[ACLSTUB_CT_F64];
    case ACL_INT8: return loops->fn[ACLSTUB_CT_I8];
    case ACL_INT16: return loops->fn[ACLSTUB_CT_I16];
    case ACL_INT32: return loops->fn[ACLSTUB_CT_I32];
    case ACL_INT64: return loops->fn[ACLSTUB_CT_I64];
    case ACL_UINT8: return loops->fn[ACLSTUB_CT_U8];
    case ACL_BOOL: return loops->fn[ACLSTUB_CT_BOOL];
    case ACL_UINT16: return loops->fn[ACLSTUB_CT_U16];
    case ACL_UINT32: return loops->fn[ACLSTUB_CT_U32];
    case ACL_UINT64: return loops->fn[ACLSTUB_CT_U64];
    default: return NULL;
    }
}

static aclnnStatus equal_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *self = aclStubOpTensor(call, EQ_SELF), *other = aclStubOpTensor(call, EQ_OTHER);
    const aclStubTensorDesc *out = aclStubOpTensor(call, EQ_OUT);
    uint8_t equal = aclStubShapeEqual(self->dims, self->ndim, other->dims, other->ndim);
    int64_t n = aclStubNumel(self);
    if (equal && n > 0) {
        /* the differing pairs into a byte map, then a scan */
        uint8_t *diff = aclStubKernelScratch(call, (size_t)n);
        if (diff == NULL) return aclStubKernelOutOfMemory(call);
        aclStubTensorDesc map = *self;
        map.dtype = ACL_BOOL;
        map.offset = 0;
        map.data = diff;
        int64_t step = 1;
        for (uint32_t d = self->ndim; d-- > 0;) {
            map.strides[d] = step;
            step *= self->dims[d];
        }
        aclDataType c = ((const EqualPlan *)call->plan)->compute;
        aclDataType loop = c == ACL_FLOAT16 ? ACL_FLOAT : c;
        aclStubIter it;
        memset(&it, 0, sizeof it);
        it.num_outputs = 1;
        it.num_inputs = 2;
        it.tensor[0] = &map;
        it.tensor[1] = self;
        it.tensor[2] = other;
        it.loop_dtype[0] = ACL_BOOL;
        it.loop_dtype[1] = it.loop_dtype[2] = loop;
        aclStubEwCtx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.compute = c;
        aclStubLoopFn fn = loop_fn(&equal_loops, loop);
        if (fn == NULL) return aclStubKernelFail(call, ACLNN_ERR_INNER, "no kernel for %s", aclStubDtypeName(c));
        ACLSTUB_TRY(aclStubIterRun(call, &it, fn, &ctx));
        equal = memchr(diff, 1, (size_t)n) == NULL;
    } else if (equal) {
        equal = 1; /* two empty tensors of one shape */
    }
    *(uint8_t *)aclStubElem1(out, 0) = equal;
    return OK;
}

static const aclStubOpDef kEqual = {"aclnnEqual", kEqualParams, ACLSTUB_LEN(kEqualParams), NULL, equal_check,
                                    equal_kernel, sizeof(EqualPlan)};
ACLSTUB_DEFINE_OP(aclnnEqual, kEqual, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))

/* ---- isin with one scalar side (Atlas A2/A3 path of the op_api) ------------------------------------------ */

/* element and test element dtypes, and the promoted dtype (aclnn_isin*.cpp ASCEND910B_*_SUPPORT_LIST) */
#define ISIN_DT (ACLSTUB_DT_REALS | EW_DT(INT8) | EW_DT(INT16) | EW_DT(INT32) | EW_DT(INT64) | EW_DT(UINT8))

static aclnnStatus isin_lists(aclStubOpCall *call, int tensor, int scalar, int out) {
    ACLSTUB_TRY(in_list(call, ISIN_DT, call->v[tensor].tensor->dtype, aclStubOpName(call, tensor)));
    ACLSTUB_TRY(in_list(call, ISIN_DT, call->v[scalar].dtype, aclStubOpName(call, scalar)));
    aclDataType o = call->v[out].tensor->dtype;
    ACLSTUB_RETURN_ERROR_IF(o != ACL_BOOL, call, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be ACL_BOOL",
                            aclStubDtypeName(o));
    return OK;
}

/* aclnnIsInTensorScalar: out[i] = (element[i] == testElement) != invert, compared in the element's dtype when it is
 * floating, else in the scalar's promoted with it when the scalar is floating, else in the element's dtype */
static aclDataType isin_ts_dtype(const aclStubOpCall *call, aclDataType promoted) {
    (void)promoted;
    aclDataType t = ew_dtype(call, 0), s = ew_dtype(call, 1);
    if (aclStubIsFloating(t)) return t;
    if (aclStubIsFloating(s)) return aclStubPromoteType(s, t);
    return t;
}

static aclnnStatus isin_ts_check(aclStubOpCall *call) {
    ACLSTUB_TRY(isin_lists(call, 0, 1, 4));
    return in_list(call, ISIN_DT, ((aclStubEwPlan *)call->plan)->compute, "promote");
}

ACLSTUB_EW_BINARY_PRED(isin_loops, SET_EQ, (a == b) != (i1 != 0))
static const aclStubElementwise ISIN_TS_ROW = {2, ANY_DT, ACLSTUB_EW_PREDICATE, &isin_loops, isin_ts_check,
                                               isin_ts_dtype};
ACLSTUB_EW_OP(aclnnIsInTensorScalar, ISIN_TS_ROW, (const aclTensor *, element), (const aclScalar *, testElement),
              (bool, assumeUnique), (bool, invert), (aclTensor *, out))

/* aclnnIsInScalarTensor: one BOOL (rank 0), any(element == testElements) != invert; invert when testElements is
 * empty or element is NaN. With 10 elements or more both promote by the table; with fewer a floating tensor
 * keeps its dtype (the scalar rounded to it) and an integer one keeps its dtype unless the scalar is floating. */
enum { IS_ELEMENT, IS_TEST, IS_UNIQUE, IS_INVERT, IS_OUT };
static const aclStubParam kIsInParams[] = {
    [IS_ELEMENT] = {"element", ACLSTUB_SCALAR, 0, NULL, 0, 0, 0},
    [IS_TEST] = {"testElements", ACLSTUB_INPUT, 0, NULL, 0, 0, 0},
    [IS_UNIQUE] = {"assumeUnique", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [IS_INVERT] = {"invert", ACLSTUB_BOOL, 0, NULL, 0, 0, 0},
    [IS_OUT] = {"out", ACLSTUB_OUTPUT, 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0},
};

static aclnnStatus isin_st_check(aclStubOpCall *call) {
    const aclStubTensorDesc *test = aclStubOpTensor(call, IS_TEST), *out = aclStubOpTensor(call, IS_OUT);
    ACLSTUB_TRY(isin_lists(call, IS_TEST, IS_ELEMENT, IS_OUT));
    aclDataType t = test->dtype, s = call->v[IS_ELEMENT].dtype, p;
    if (aclStubNumel(test) >= 10) p = aclStubPromoteType(t, s);
    else if (aclStubIsFloating(t)) p = t;
    else if (aclStubIsFloating(s)) p = aclStubPromoteType(t, s);
    else p = t;
    ACLSTUB_RETURN_ERROR_IF((int)p < 0, call, ACLNN_ERR_PARAM_INVALID, "Expected element %s and testElements %s can "
                            "promote dtype but check failed.", aclStubDtypeName(s), aclStubDtypeName(t));
    ACLSTUB_RETURN_ERROR_IF(!aclStubCanCast(s, p) || !aclStubCanCast(t, p), call, ACLNN_ERR_PARAM_INVALID, "element "
                            "dtype %s and testElements dtype %s can't be cast to the promote dtype %s",
                            aclStubDtypeName(s), aclStubDtypeName(t), aclStubDtypeName(p));
    ACLSTUB_RETURN_ERROR_IF(test->ndim > 8, call, ACLNN_ERR_PARAM_INVALID, "argument 'testElements' has %u "
                            "dimensions; at most 8 are supported", test->ndim);
    ACLSTUB_RETURN_ERROR_IF(out->ndim != 0, call, ACLNN_ERR_PARAM_INVALID, "out should be 0D, but it is %uD",
                            out->ndim);
    ((EqualPlan *)call->plan)->compute = p;
    return OK;
}

static aclnnStatus isin_st_kernel(const aclStubOpCall *call) {
    const aclStubTensorDesc *test = aclStubOpTensor(call, IS_TEST), *out = aclStubOpTensor(call, IS_OUT);
    bool invert = call->v[IS_INVERT].b;
    const aclStubValue *element = &call->v[IS_ELEMENT];
    int64_t n = aclStubNumel(test);
    double ev = aclStubScalarToDouble(element->dtype, element->scalar);
    bool found = false;
    if (n > 0 && !(aclStubIsFloating(element->dtype) && ev != ev)) {
        uint8_t *hit = aclStubKernelScratch(call, (size_t)n);
        if (hit == NULL) return aclStubKernelOutOfMemory(call);
        aclStubTensorDesc map = *test;
        map.dtype = ACL_BOOL;
        map.offset = 0;
        map.data = hit;
        int64_t step = 1;
        for (uint32_t d = test->ndim; d-- > 0;) {
            map.strides[d] = step;
            step *= test->dims[d];
        }
        aclDataType c = ((const EqualPlan *)call->plan)->compute;
        aclDataType loop = c == ACL_FLOAT16 || c == ACL_BF16 ? ACL_FLOAT : c;
        aclStubLoopFn fn = loop_fn(&eq_loops, loop);
        if (fn == NULL) return aclStubKernelFail(call, ACLNN_ERR_INNER, "no kernel for %s", aclStubDtypeName(c));
        aclStubIter it;
        memset(&it, 0, sizeof it);
        it.num_outputs = 1;
        it.num_inputs = 2;
        it.tensor[0] = &map;
        it.tensor[1] = test;
        it.tensor[2] = NULL;
        it.scalar[2].dtype = element->dtype;
        memcpy(it.scalar[2].value, element->scalar, sizeof it.scalar[2].value);
        it.loop_dtype[0] = ACL_BOOL;
        for (int k = 1; k <= 2; k++) {
            it.loop_dtype[k] = loop;
            it.has_via[k] = loop != c;
            it.via[k] = c;
        }
        aclStubEwCtx ctx;
        memset(&ctx, 0, sizeof ctx);
        ctx.compute = c;
        ACLSTUB_TRY(aclStubIterRun(call, &it, fn, &ctx));
        found = memchr(hit, 1, (size_t)n) != NULL;
    }
    *(uint8_t *)aclStubElem1(out, 0) = found != invert;
    return OK;
}

static const aclStubOpDef kIsIn = {"aclnnIsInScalarTensor", kIsInParams, ACLSTUB_LEN(kIsInParams), NULL,
                                   isin_st_check, isin_st_kernel, sizeof(EqualPlan)};
ACLSTUB_DEFINE_OP(aclnnIsInScalarTensor, kIsIn, (const aclScalar *, element), (const aclTensor *, testElements),
                  (bool, assumeUnique), (bool, invert), (aclTensor *, out))
