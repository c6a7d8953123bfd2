/*
 * Elementwise operator families on the operator SDK: an operator is a row (its input dtypes, how its result
 * dtype follows from the inputs, its loops) and one line per official entry point. The engine applies the
 * op_api's rules in its order (dtype support list, promotion, attribute and output casts, broadcasting, the
 * output's shape, empty tensors), then runs the loops over the element iterator (aclStubIterRun), which
 * broadcasts, follows strides and converts dtypes the way the op_api's Cast steps do.
 *
 *   #include "aclstub/op_elementwise.h"
 *   ACLSTUB_EW_BINARY(add_loops, ACLSTUB_EW_ALL, a + s0 * b)          // s0: attribute 0 (alpha) as the loop's type
 *   static const aclStubElementwise ADD = {2, ADD_DTYPES, ACLSTUB_EW_ATTR0_CASTS, &add_loops};
 *   ACLSTUB_EW_OP(aclnnAdd, ADD, (const aclTensor *, self), (const aclTensor *, other),
 *                 (const aclScalar *, alpha), (aclTensor *, out))
 *   ACLSTUB_EW_INPLACE_OP(aclnnInplaceAdds, ADD, (aclTensor *, selfRef), (const aclScalar *, other),
 *                         (const aclScalar *, alpha))
 *
 * Parameters, in the order of the official prototype: first the row's num_operands operands (tensors, or
 * scalars in the scalar variants), then attributes (scalars, numbers), then the output; an in-place variant
 * has no output and writes its first operand. With ACLSTUB_EW_TENSOR_OPERANDS the operands are the first tensor
 * parameters wherever they sit, and attributes every other non-tensor parameter, in order. The output is the
 * first ACLSTUB_OUTPUT parameter (later optional outputs are the operator's own business). The loop macros are
 * C only (they use C11 _Generic and complex types); the rest of this header is valid C++.
 */
#ifndef ACLSTUB_OP_ELEMENTWISE_H_
#define ACLSTUB_OP_ELEMENTWISE_H_

#include "aclstub/op_sdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The types loops are written for, the index of an operator's loop table. FLOAT16 and BF16 data run the FLOAT
 * loop (values widened exactly, results rounded once to the computation's type), or, when the table has one, a
 * loop of their own that reads and writes them as they are (no conversion buffers: faster for cheap operators). */
typedef enum {
    ACLSTUB_CT_F32,
    ACLSTUB_CT_F64,
    ACLSTUB_CT_I8,
    ACLSTUB_CT_I16,
    ACLSTUB_CT_I32,
    ACLSTUB_CT_I64,
    ACLSTUB_CT_U8,
    ACLSTUB_CT_BOOL,
    ACLSTUB_CT_U16,
    ACLSTUB_CT_U32,
    ACLSTUB_CT_U64,
    ACLSTUB_CT_C64,
    ACLSTUB_CT_C128,
    ACLSTUB_CT_F16,  /* FLOAT16 storage, float math (a table without it runs FLOAT16 in its FLOAT loop) */
    ACLSTUB_CT_BF16, /* BF16 storage, float math */
    ACLSTUB_CT_COUNT
} aclStubComputeType;

typedef struct {
    aclStubLoopFn fn[ACLSTUB_CT_COUNT];
} aclStubEwLoops;

/* The attributes a loop reads (up to four, in prototype order): as doubles (with imaginary parts) and int64. */
#define ACLSTUB_EW_MAX_ATTRS 4
typedef struct {
    double f[ACLSTUB_EW_MAX_ATTRS], fi[ACLSTUB_EW_MAX_ATTRS];
    int64_t i[ACLSTUB_EW_MAX_ATTRS];
    /* The computation dtype (plan.compute): a FLOAT16 or BF16 computation runs the FLOAT loop, which may round
     * intermediate results to it where the op_api computes a chain of operators in that dtype. */
    aclDataType compute;
} aclStubEwCtx;

/* aclStubElementwise.flags */
#define ACLSTUB_EW_INT_TO_FLOAT 1u   /* an integral or BOOL result dtype becomes FLOAT (true division, sqrt) */
#define ACLSTUB_EW_PREDICATE 2u      /* the loops write BOOL (comparisons, isnan): out takes any dtype */
#define ACLSTUB_EW_OUT_SAME 4u       /* out must have the result dtype itself, not one it casts to */
#define ACLSTUB_EW_ATTR0_CASTS 8u    /* attribute 0 (alpha) must cast to the result dtype; BOOL takes integers */
#define ACLSTUB_EW_RESULT_IN_LIST 16u /* the promoted dtype must itself be in the support list */
#define ACLSTUB_EW_NO_PROMOTE 32u    /* tensor operands must share one dtype */
#define ACLSTUB_EW_OUT_IN_LIST 64u   /* out's dtype must be in the support list too */
#define ACLSTUB_EW_CHECK_PROMOTED 128u /* the alpha, result-in-list and out rules read the promoted dtype, before
                                          ACLSTUB_EW_INT_TO_FLOAT and result_dtype (the op_api checks the promoted
                                          dtype and computes in another) */
#define ACLSTUB_EW_OUT_ANY 256u      /* no rule for out's dtype (the op_api checks none; the result is Cast to it,
                                        complex to real keeping the real part) */
#define ACLSTUB_EW_SCALAR_AS_TENSOR 512u /* scalar operands: their dtype in the support list, promoted with the
                                            tensors by CANN's table (the op_api converts them to tensors first) */
#define ACLSTUB_EW_SCALAR_IN_LIST 1024u /* scalar operands: their dtype in the support list (promotion unchanged) */
#define ACLSTUB_EW_NO_PRIVATE_FORMAT 2048u /* tensors in a private format (NC1HWC0, FRACTAL_NZ, ...) are refused */
#define ACLSTUB_EW_RANK_ANY_CONTIGUOUS 8192u /* more than 8 dimensions are accepted when every tensor is contiguous */
#define ACLSTUB_EW_EMPTY_FIRST 4096u /* an empty tensor operand: success before any other rule (the op_api returns
                                       right after its NULL checks) */
#define ACLSTUB_EW_SAME_FORMAT 16384u /* out's format must be the first operand's */
#define ACLSTUB_EW_ANY_RANK 32768u    /* no rank limit (the op_api reshapes shapes above 8 dimensions) */
#define ACLSTUB_EW_SAME_SHAPE 65536u  /* no broadcasting: every tensor operand has operand 0's shape, and so has out */
#define ACLSTUB_EW_INTS_VIA_FLOAT 131072u /* integral and BOOL results run the float32 loop, truncated to their dtype */
#define ACLSTUB_EW_ATTRS_TO_FLOAT 262144u /* every scalar attribute must cast to FLOAT */
#define ACLSTUB_EW_TENSOR_OPERANDS 524288u /* the operands are the first num_operands tensor parameters, wherever they
                                              are (a backward operator with attributes between its tensors) */
#define ACLSTUB_EW_FIRST_APART 2097152u /* operand 0 takes no part in the promotion (where's condition) */
#define ACLSTUB_EW_EMPTY_BEFORE_SHAPES 1048576u /* an empty tensor operand: nothing to do, after the dtype rules and
                                                   before the shape rules */

typedef struct {
    int num_operands;     /* the first parameters: tensors, or scalars in the scalar variants */
    uint64_t dtypes;      /* accepted dtypes of the operands (the op_api's list for Atlas A2/A3) */
    unsigned flags;       /* ACLSTUB_EW_* */
    const aclStubEwLoops *loops;
    aclStubCheckFn check; /* optional: the operator's own rules, after the generic ones */
    /* optional: the computation's dtype from the promoted one (e.g. integral -> FLOAT for some operators only) */
    aclDataType (*result_dtype)(const aclStubOpCall *call, aclDataType promoted);
} aclStubElementwise;

/* What check leaves for the kernel (the op's plan). An operator's own check may change compute (the dtype every
 * operand is cast to; keep ctx.compute, what ACLSTUB_EW_ROUND rounds to, in step), out_via (the dtype the result is
 * rounded to before it is cast to out's dtype: the op_api's kernel output, then its Cast) and ctx. */
typedef struct {
    aclDataType compute; /* the promoted (result) dtype */
    int out;             /* the parameter written */
    aclStubEwCtx ctx;
    aclDataType out_via; /* defaults to compute */
} aclStubEwPlan;

/* The engine: check and kernel of every elementwise operator (its aclStubFamilyOp's row is its aclStubElementwise). */
ACLSTUB_API aclnnStatus aclStubEwCheck(aclStubOpCall *call);
ACLSTUB_API aclnnStatus aclStubEwKernel(const aclStubOpCall *call);
/* The loop table's index (aclStubComputeType) for a computation dtype, and the dtype the loop reads and writes
 * (FLOAT for FLOAT16 and BF16); -1 for a dtype without loops. For operators that run loops on the element
 * iterator (aclStubIterRun) with their own operands. */
ACLSTUB_API int aclStubEwComputeIndex(aclDataType compute, aclDataType *loop);
/* The computation dtype and the parameter written, as check decided (for an operator's own check). */
static inline const aclStubEwPlan *aclStubEwPlanOf(const aclStubOpCall *call) {
    return (const aclStubEwPlan *)call->plan;
}

#ifdef __cplusplus
} /* extern "C" */
#else

/* ---- entry points (C) ------------------------------------------------------------------------------------ */

#define ACLSTUB_ROLE_OF_(type)                                                                               \
    _Generic((type)0, const aclTensor *: ACLSTUB_INPUT, aclTensor *: ACLSTUB_OUTPUT,                         \
             const aclScalar *: ACLSTUB_SCALAR, aclScalar *: ACLSTUB_SCALAR,                                 \
             const aclIntArray *: ACLSTUB_INT_ARRAY, aclIntArray *: ACLSTUB_INT_ARRAY,                       \
             const aclBoolArray *: ACLSTUB_BOOL_ARRAY, aclBoolArray *: ACLSTUB_BOOL_ARRAY,                   \
             const aclFloatArray *: ACLSTUB_FLOAT_ARRAY, aclFloatArray *: ACLSTUB_FLOAT_ARRAY,               \
             const aclTensorList *: ACLSTUB_TENSOR_LIST, aclTensorList *: ACLSTUB_OUTPUT_LIST,               \
             const aclScalarList *: ACLSTUB_SCALAR_LIST, aclScalarList *: ACLSTUB_SCALAR_LIST,               \
             bool: ACLSTUB_BOOL, double: ACLSTUB_FLOAT, float: ACLSTUB_FLOAT, const char *: ACLSTUB_STRING,  \
             char *: ACLSTUB_STRING, default: ACLSTUB_INT)
/* A parameter table entry from a (type, name) pair: role from the type; outputs may be strided. */
#define ACLSTUB_PARAM_OF_(pair) ACLSTUB_PARAM_OF2_ pair
#define ACLSTUB_PARAM_OF2_(type, name) {#name, ACLSTUB_ROLE_OF_(type), 0, NULL, ACLSTUB_ANY_LAYOUT, 0, 0}

/* The table, definition and both entry points of one elementwise operator; the last tensor is the output. */
#define ACLSTUB_EW_OP(NAME, FAMILY, ...)                                                                     \
    ACLSTUB_EW_DEF_(NAME, FAMILY, NULL, ([ACLSTUB_NARGS_(__VA_ARGS__) - 1].role = ACLSTUB_OUTPUT), __VA_ARGS__)
/* The same with a precheck (aclStubOpDef.precheck: it runs before the SDK's generic checks and sees which handles
 * are NULL in call->v[i].present), for an op_api whose NULL checks answer with another status than 161001. */
#define ACLSTUB_EW_OP_PRECHECK(NAME, FAMILY, PRECHECK, ...)                                                  \
    ACLSTUB_EW_DEF_(NAME, FAMILY, PRECHECK, ([ACLSTUB_NARGS_(__VA_ARGS__) - 1].role = ACLSTUB_OUTPUT), __VA_ARGS__)
/* ACLSTUB_EW_OP where parameter K (an optional scalar or array, e.g. betaOptional) may be NULL. */
#define ACLSTUB_EW_OP_NULLABLE(NAME, FAMILY, K, ...)                                                        \
    ACLSTUB_EW_DEF_(NAME, FAMILY, NULL,                                                                      \
                    ([ACLSTUB_NARGS_(__VA_ARGS__) - 1].role = ACLSTUB_OUTPUT, [K].flags = ACLSTUB_NULLABLE), \
                    __VA_ARGS__)
/* The same for an in-place variant: its first parameter (selfRef) is read and written. */
#define ACLSTUB_EW_INPLACE_OP(NAME, FAMILY, ...) ACLSTUB_EW_INPLACE_AT_OP(NAME, FAMILY, 0, __VA_ARGS__)
#define ACLSTUB_EW_INPLACE_OP_PRECHECK(NAME, FAMILY, PRECHECK, ...)                                          \
    ACLSTUB_EW_DEF_(NAME, FAMILY, PRECHECK, ([0].role = ACLSTUB_INPLACE), __VA_ARGS__)
/* ... and for one that writes parameter INDEX (aclnnInplaceAddV3 writes its tensor operand 'other'). */
#define ACLSTUB_EW_INPLACE_AT_OP(NAME, FAMILY, INDEX, ...)                                                  \
    ACLSTUB_EW_DEF_(NAME, FAMILY, NULL, ([INDEX].role = ACLSTUB_INPLACE), __VA_ARGS__)

#define ACLSTUB_EW_UNPAREN_(...) __VA_ARGS__
/* ROLES: designated initialisers of the parameter table, in parentheses */
#define ACLSTUB_EW_DEF_(NAME, FAMILY, PRECHECK, ROLES, ...)                                                 \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")                    \
    static const aclStubParam NAME##_params_[] = {ACLSTUB_MAP_(ACLSTUB_PARAM_OF_, __VA_ARGS__),              \
                                                  ACLSTUB_EW_UNPAREN_ ROLES};                                \
    _Pragma("GCC diagnostic pop")                                                                            \
    static const aclStubFamilyOp NAME##_op_ = {                                                              \
        {#NAME, NAME##_params_, ACLSTUB_LEN(NAME##_params_), PRECHECK, aclStubEwCheck, aclStubEwKernel,      \
         sizeof(aclStubEwPlan)},                                                                             \
        &(FAMILY)};                                                                                          \
    ACLSTUB_DEFINE_OP(NAME, NAME##_op_.def, __VA_ARGS__)

/* ---- loops (C) -------------------------------------------------------------------------------------------- */

/*
 * Type sets: X(suffix, storage type, math type, compute-type index, ...). BOOL is stored as one byte and read
 * as "not zero"; a result stored to BOOL is 0 or 1.
 */
#define ACLSTUB_EW_FLOATS(X, ...)                                                                            \
    X(f32, float, float, ACLSTUB_CT_F32, __VA_ARGS__) X(f64, double, double, ACLSTUB_CT_F64, __VA_ARGS__)      \
    ACLSTUB_EW_HALVES(X, __VA_ARGS__)
/* BF16 elements read as float and rounded once when stored (the FLOAT loop's results, bit for bit, without a
 * conversion pass; the compiler vectorises both). FLOAT16 runs the FLOAT loop over converted blocks: compilers
 * vectorise no _Float16 conversion without AVX512-FP16, and the iterator's block conversions are vectorised. */
#define ACLSTUB_EW_HALVES(X, ...) X(bf16, uint16_t, float, ACLSTUB_CT_BF16, __VA_ARGS__)
#define ACLSTUB_EW_INTS(X, ...)                                                                              \
    X(i8, int8_t, int8_t, ACLSTUB_CT_I8, __VA_ARGS__) X(i16, int16_t, int16_t, ACLSTUB_CT_I16, __VA_ARGS__)  \
    X(i32, int32_t, int32_t, ACLSTUB_CT_I32, __VA_ARGS__) X(i64, int64_t, int64_t, ACLSTUB_CT_I64, __VA_ARGS__) \
    X(u8, uint8_t, uint8_t, ACLSTUB_CT_U8, __VA_ARGS__)
#define ACLSTUB_EW_UINTS(X, ...)                                                                             \
    X(u16, uint16_t, uint16_t, ACLSTUB_CT_U16, __VA_ARGS__) X(u32, uint32_t, uint32_t, ACLSTUB_CT_U32, __VA_ARGS__) \
    X(u64, uint64_t, uint64_t, ACLSTUB_CT_U64, __VA_ARGS__)
#define ACLSTUB_EW_BOOL(X, ...) X(b, uint8_t, bool, ACLSTUB_CT_BOOL, __VA_ARGS__)
#define ACLSTUB_EW_COMPLEX(X, ...)                                                                           \
    X(c64, float _Complex, float _Complex, ACLSTUB_CT_C64, __VA_ARGS__)                                      \
    X(c128, double _Complex, double _Complex, ACLSTUB_CT_C128, __VA_ARGS__)
/* floats and signed integers with UINT8 */
#define ACLSTUB_EW_REAL(X, ...) ACLSTUB_EW_FLOATS(X, __VA_ARGS__) ACLSTUB_EW_INTS(X, __VA_ARGS__)
/* ... and BOOL */
#define ACLSTUB_EW_NUMBERS(X, ...) ACLSTUB_EW_REAL(X, __VA_ARGS__) ACLSTUB_EW_BOOL(X, __VA_ARGS__)
/* ... and complex */
#define ACLSTUB_EW_ALL(X, ...) ACLSTUB_EW_NUMBERS(X, __VA_ARGS__) ACLSTUB_EW_COMPLEX(X, __VA_ARGS__)
/* integers (with UINT8) and BOOL: the bitwise and logical operators */
#define ACLSTUB_EW_INTEGRAL(X, ...) ACLSTUB_EW_INTS(X, __VA_ARGS__) ACLSTUB_EW_BOOL(X, __VA_ARGS__)

/* Reading a stored element as the math type. */
#define ACLSTUB_EW_LD_f16(v) ((float)(v))
#define ACLSTUB_EW_LD_bf16(v) aclStubBf16ToF32(v)
#define ACLSTUB_EW_LD_f32(v) (v)
#define ACLSTUB_EW_LD_f64(v) (v)
#define ACLSTUB_EW_LD_i8(v) (v)
#define ACLSTUB_EW_LD_i16(v) (v)
#define ACLSTUB_EW_LD_i32(v) (v)
#define ACLSTUB_EW_LD_i64(v) (v)
#define ACLSTUB_EW_LD_u8(v) (v)
#define ACLSTUB_EW_LD_u16(v) (v)
#define ACLSTUB_EW_LD_u32(v) (v)
#define ACLSTUB_EW_LD_u64(v) (v)
#define ACLSTUB_EW_LD_b(v) ((v) != 0)
#define ACLSTUB_EW_LD_c64(v) (v)
#define ACLSTUB_EW_LD_c128(v) (v)

/* Attribute k of the context as the loop's math type. */
#define ACLSTUB_EW_ATTR_f16(c, k) ((float)(c)->f[k])
#define ACLSTUB_EW_ATTR_bf16(c, k) ((float)(c)->f[k])
#define ACLSTUB_EW_ATTR_f32(c, k) ((float)(c)->f[k])
#define ACLSTUB_EW_ATTR_f64(c, k) ((c)->f[k])
#define ACLSTUB_EW_ATTR_i8(c, k) ((int8_t)(c)->i[k])
#define ACLSTUB_EW_ATTR_i16(c, k) ((int16_t)(c)->i[k])
#define ACLSTUB_EW_ATTR_i32(c, k) ((int32_t)(c)->i[k])
#define ACLSTUB_EW_ATTR_i64(c, k) ((c)->i[k])
#define ACLSTUB_EW_ATTR_u8(c, k) ((uint8_t)(c)->i[k])
#define ACLSTUB_EW_ATTR_u16(c, k) ((uint16_t)(c)->i[k])
#define ACLSTUB_EW_ATTR_u32(c, k) ((uint32_t)(c)->i[k])
#define ACLSTUB_EW_ATTR_u64(c, k) ((uint64_t)(c)->i[k])
#define ACLSTUB_EW_ATTR_b(c, k) ((c)->i[k] != 0 || (c)->f[k] != 0)
#define ACLSTUB_EW_ATTR_c64(c, k) __builtin_complex((float)(c)->f[k], (float)(c)->fi[k])
#define ACLSTUB_EW_ATTR_c128(c, k) __builtin_complex((c)->f[k], (c)->fi[k])

/* x rounded to the 16-bit computation dtype of the loop (ctx->compute FLOAT16 or BF16), else x: an intermediate
 * result the op_api's kernel chain stores in the 16-bit dtype (e.g. alpha * other before the add). */
static inline float aclStubEwRoundF32(float x, aclDataType compute) {
    if (compute == ACL_BF16) return aclStubBf16ToF32(aclStubF32ToBf16(x));
#if defined(__FLT16_MAX__) /* the compiler's _Float16 (vectorised conversions) */
    if (compute == ACL_FLOAT16) return __extension__(float)(_Float16)x;
#else
    if (compute == ACL_FLOAT16) return aclStubF16ToF32(aclStubF32ToF16(x));
#endif
    return x;
}
/* In a loop expression: ACLSTUB_EW_ROUND(v) (only float values are rounded). */
#define ACLSTUB_EW_ROUND(v) _Generic((v), float: aclStubEwRoundF32((float)(v), ew_ctx_->compute), default: (v))

/* Loops are compiled for x86-64-v4 (AVX-512: twice the lanes and registers) and x86-64-v3 (AVX2, F16C) too, picked
 * at load time; FMA is unused under -ffp-contract=off, so every clone gives the same bits. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define ACLSTUB_EW_CLONES_ __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define ACLSTUB_EW_CLONES_
#endif

/* Inside a loop: s0..s3 the attributes as the math type T, d0..d3 as doubles, i0..i3 as int64. */
#define ACLSTUB_EW_ATTRS_(sfx, T, ctx)                                                                       \
    const aclStubEwCtx *ew_ctx_ = (const aclStubEwCtx *)(ctx);                                              \
    __attribute__((unused)) const T s0 = ACLSTUB_EW_ATTR_##sfx(ew_ctx_, 0);                                 \
    __attribute__((unused)) const T s1 = ACLSTUB_EW_ATTR_##sfx(ew_ctx_, 1);                                 \
    __attribute__((unused)) const T s2 = ACLSTUB_EW_ATTR_##sfx(ew_ctx_, 2);                                 \
    __attribute__((unused)) const T s3 = ACLSTUB_EW_ATTR_##sfx(ew_ctx_, 3);                                 \
    __attribute__((unused)) const double d0 = ew_ctx_->f[0], d1 = ew_ctx_->f[1], d2 = ew_ctx_->f[2],        \
                                         d3 = ew_ctx_->f[3];                                                 \
    __attribute__((unused)) const int64_t i0 = ew_ctx_->i[0], i1 = ew_ctx_->i[1], i2 = ew_ctx_->i[2],       \
                                          i3 = ew_ctx_->i[3];

#define ACLSTUB_EW_ENTRY_(sfx, ST, T, CT, NAME, ...) [CT] = NAME##_##sfx,
#define ACLSTUB_EW_TABLE_(NAME, SET) static const aclStubEwLoops NAME = {{SET(ACLSTUB_EW_ENTRY_, NAME, _)}};

#define ACLSTUB_EW_PUSH_ _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wtype-limits\"")      \
    _Pragma("GCC diagnostic ignored \"-Wbool-operation\"") _Pragma("GCC diagnostic ignored \"-Wint-in-bool-context\"")
#define ACLSTUB_EW_POP_ _Pragma("GCC diagnostic pop")

/*
 * Unary loops: the expression reads x (the element as T) and the attributes; OUT is the stored type of the
 * result (ST for maps, uint8_t for predicates) and CONV converts the expression to it.
 */
#define ACLSTUB_EW_UNARY_FN_(sfx, ST, T, CT, NAME, OUT, CONV, ...)                                          \
    ACLSTUB_EW_CLONES_ static void NAME##_##sfx(char **d_, const int64_t *s_, int64_t n_, const void *c_) {                     \
        ACLSTUB_EW_ATTRS_(sfx, T, c_)                                                                        \
        if (s_[0] == (int64_t)sizeof(OUT) && s_[1] == (int64_t)sizeof(ST)) {                                 \
            OUT *o_ = (OUT *)(void *)d_[0];                                                                  \
            const ST *p_ = (const ST *)(const void *)d_[1];                                                  \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T x = ACLSTUB_EW_LD_##sfx(p_[i_]);                                                     \
                o_[i_] = CONV(sfx, OUT, T, (__VA_ARGS__));                                                        \
            }                                                                                                \
        } else {                                                                                             \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T x = ACLSTUB_EW_LD_##sfx(*(const ST *)(const void *)(d_[1] + i_ * s_[1]));            \
                *(OUT *)(void *)(d_[0] + i_ * s_[0]) = CONV(sfx, OUT, T, (__VA_ARGS__));                          \
            }                                                                                                \
        }                                                                                                    \
    }
/* A result stored as OUT: maps convert to the math type, then to storage (BF16 rounded to nearest even); predicates
 * store 0 or 1. */
#define ACLSTUB_EW_MAP_CONV_(sfx, OUT, T, v) ACLSTUB_EW_ST_##sfx(OUT, T, v)
#define ACLSTUB_EW_PRED_CONV_(sfx, OUT, T, v) ((OUT)((v) ? 1 : 0))
#define ACLSTUB_EW_ST_f16(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_bf16(OUT, T, v) aclStubF32ToBf16((float)(v))
#define ACLSTUB_EW_ST_f32(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_f64(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_i8(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_i16(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_i32(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_i64(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_u8(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_u16(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_u32(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_u64(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_b(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_c64(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_ST_c128(OUT, T, v) ((OUT)(T)(v))
#define ACLSTUB_EW_UMAP_(sfx, ST, T, CT, NAME, ...) ACLSTUB_EW_UNARY_FN_(sfx, ST, T, CT, NAME, ST, ACLSTUB_EW_MAP_CONV_, __VA_ARGS__)
#define ACLSTUB_EW_UPRED_(sfx, ST, T, CT, NAME, ...) ACLSTUB_EW_UNARY_FN_(sfx, ST, T, CT, NAME, uint8_t, ACLSTUB_EW_PRED_CONV_, __VA_ARGS__)

/* Binary loops: the expression reads a and b; the contiguous cases (and a scalar b or a) are separate loops
 * the compiler vectorises. */
#define ACLSTUB_EW_BINARY_FN_(sfx, ST, T, CT, NAME, OUT, CONV, ...)                                         \
    ACLSTUB_EW_CLONES_ static void NAME##_##sfx(char **d_, const int64_t *s_, int64_t n_, const void *c_) {                     \
        ACLSTUB_EW_ATTRS_(sfx, T, c_)                                                                        \
        const int64_t z_ = (int64_t)sizeof(ST);                                                              \
        OUT *o_ = (OUT *)(void *)d_[0];                                                                      \
        const ST *x_ = (const ST *)(const void *)d_[1], *y_ = (const ST *)(const void *)d_[2];               \
        if (s_[0] == (int64_t)sizeof(OUT) && s_[1] == z_ && s_[2] == z_) {                                   \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T a = ACLSTUB_EW_LD_##sfx(x_[i_]), b = ACLSTUB_EW_LD_##sfx(y_[i_]);                    \
                o_[i_] = CONV(sfx, OUT, T, (__VA_ARGS__));                                                        \
            }                                                                                                \
        } else if (s_[0] == (int64_t)sizeof(OUT) && s_[1] == z_ && s_[2] == 0) {                             \
            const T b = ACLSTUB_EW_LD_##sfx(y_[0]);                                                          \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T a = ACLSTUB_EW_LD_##sfx(x_[i_]);                                                     \
                o_[i_] = CONV(sfx, OUT, T, (__VA_ARGS__));                                                        \
            }                                                                                                \
        } else if (s_[0] == (int64_t)sizeof(OUT) && s_[1] == 0 && s_[2] == z_) {                             \
            const T a = ACLSTUB_EW_LD_##sfx(x_[0]);                                                          \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T b = ACLSTUB_EW_LD_##sfx(y_[i_]);                                                     \
                o_[i_] = CONV(sfx, OUT, T, (__VA_ARGS__));                                                        \
            }                                                                                                \
        } else {                                                                                             \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T a = ACLSTUB_EW_LD_##sfx(*(const ST *)(const void *)(d_[1] + i_ * s_[1]));            \
                const T b = ACLSTUB_EW_LD_##sfx(*(const ST *)(const void *)(d_[2] + i_ * s_[2]));            \
                *(OUT *)(void *)(d_[0] + i_ * s_[0]) = CONV(sfx, OUT, T, (__VA_ARGS__));                          \
            }                                                                                                \
        }                                                                                                    \
    }
#define ACLSTUB_EW_BMAP_(sfx, ST, T, CT, NAME, ...) ACLSTUB_EW_BINARY_FN_(sfx, ST, T, CT, NAME, ST, ACLSTUB_EW_MAP_CONV_, __VA_ARGS__)
#define ACLSTUB_EW_BPRED_(sfx, ST, T, CT, NAME, ...) ACLSTUB_EW_BINARY_FN_(sfx, ST, T, CT, NAME, uint8_t, ACLSTUB_EW_PRED_CONV_, __VA_ARGS__)

/* Ternary loops (addcmul, where, lerp): the expression reads a, b and c. */
#define ACLSTUB_EW_TERNARY_FN_(sfx, ST, T, CT, NAME, ...)                                                    \
    ACLSTUB_EW_CLONES_ static void NAME##_##sfx(char **d_, const int64_t *s_, int64_t n_, const void *c_) {                     \
        ACLSTUB_EW_ATTRS_(sfx, T, c_)                                                                        \
        const int64_t z_ = (int64_t)sizeof(ST);                                                              \
        if (s_[0] == z_ && s_[1] == z_ && s_[2] == z_ && s_[3] == z_) {                                      \
            ST *o_ = (ST *)(void *)d_[0];                                                                    \
            const ST *x_ = (const ST *)(const void *)d_[1], *y_ = (const ST *)(const void *)d_[2],           \
                     *w_ = (const ST *)(const void *)d_[3];                                                  \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T a = ACLSTUB_EW_LD_##sfx(x_[i_]), b = ACLSTUB_EW_LD_##sfx(y_[i_]),                    \
                        c = ACLSTUB_EW_LD_##sfx(w_[i_]);                                                     \
                o_[i_] = ACLSTUB_EW_ST_##sfx(ST, T, (__VA_ARGS__));                                                               \
            }                                                                                                \
        } else {                                                                                             \
            for (int64_t i_ = 0; i_ < n_; i_++) {                                                            \
                const T a = ACLSTUB_EW_LD_##sfx(*(const ST *)(const void *)(d_[1] + i_ * s_[1]));            \
                const T b = ACLSTUB_EW_LD_##sfx(*(const ST *)(const void *)(d_[2] + i_ * s_[2]));            \
                const T c = ACLSTUB_EW_LD_##sfx(*(const ST *)(const void *)(d_[3] + i_ * s_[3]));            \
                *(ST *)(void *)(d_[0] + i_ * s_[0]) = ACLSTUB_EW_ST_##sfx(ST, T, (__VA_ARGS__));                                  \
            }                                                                                                \
        }                                                                                                    \
    }

/* The loop tables: NAME becomes an aclStubEwLoops with one loop per type of SET. */
#define ACLSTUB_EW_UNARY(NAME, SET, ...)                                                                     \
    ACLSTUB_EW_PUSH_ SET(ACLSTUB_EW_UMAP_, NAME, __VA_ARGS__) ACLSTUB_EW_POP_ ACLSTUB_EW_TABLE_(NAME, SET)
#define ACLSTUB_EW_UNARY_PRED(NAME, SET, ...)                                                                \
    ACLSTUB_EW_PUSH_ SET(ACLSTUB_EW_UPRED_, NAME, __VA_ARGS__) ACLSTUB_EW_POP_ ACLSTUB_EW_TABLE_(NAME, SET)
#define ACLSTUB_EW_BINARY(NAME, SET, ...)                                                                    \
    ACLSTUB_EW_PUSH_ SET(ACLSTUB_EW_BMAP_, NAME, __VA_ARGS__) ACLSTUB_EW_POP_ ACLSTUB_EW_TABLE_(NAME, SET)
#define ACLSTUB_EW_BINARY_PRED(NAME, SET, ...)                                                               \
    ACLSTUB_EW_PUSH_ SET(ACLSTUB_EW_BPRED_, NAME, __VA_ARGS__) ACLSTUB_EW_POP_ ACLSTUB_EW_TABLE_(NAME, SET)
#define ACLSTUB_EW_TERNARY(NAME, SET, ...)                                                                   \
    ACLSTUB_EW_PUSH_ SET(ACLSTUB_EW_TERNARY_FN_, NAME, __VA_ARGS__) ACLSTUB_EW_POP_ ACLSTUB_EW_TABLE_(NAME, SET)

#endif /* __cplusplus */

#endif /* ACLSTUB_OP_ELEMENTWISE_H_ */
