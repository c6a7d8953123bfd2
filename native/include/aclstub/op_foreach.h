/*
 * Foreach operator families on the operator SDK (ops-nn foreach/): an operator applies one elementwise loop table
 * (op_elementwise.h) to every entry of its tensor lists, out[i] = f(x1[i], x2[i], ..., scalar), with the op_api's
 * list rules in its order. An operator is a row and one line per official entry point:
 *
 *   #include "aclstub/op_foreach.h"
 *   ACLSTUB_EW_UNARY(adds_loops, FOREACH_TYPES, x + s0)            // s0: the scalar, as the loop's type
 *   static const aclStubForeach ADD_SCALAR_V2 = {1, DTYPES, 0, &adds_loops, ACLSTUB_FE_SCALAR_RULE_TORCH, NULL};
 *   ACLSTUB_FOREACH_OP(aclnnForeachAddScalarV2, ADD_SCALAR_V2, (const aclTensorList *, x),
 *                      (const aclScalar *, scalar), (aclTensorList *, out))
 *
 * Parameters: the input tensor lists (the loop's operands, in order), at most one scalar parameter anywhere among
 * them (an aclScalar, an aclScalarList, or an aclTensor holding one value, or one value per list entry, read when
 * the kernel runs), and the output list last; an in-place variant writes its first list. The scalar of entry i is
 * the loop's attribute 0 (s0, d0, i0): float32 for FLOAT and BF16 lists, rounded to FLOAT16 for FLOAT16 lists
 * (the op_api converts it to the list's type), an integer for integer lists.
 *
 * Rules, in the op_api's order: NULL lists, scalars and list entries (161001); the first list's first entry in the
 * row's dtype list, every entry of every list (and the output) of that dtype, the scalar's dtype by the row's rule
 * (161002); equal list lengths, ranks up to 8, every entry of the shape of the first list's entry; ND-like
 * formats; an empty first list is a call with nothing to do. ACLSTUB_FE_GENERATED rows follow the toolkit's
 * generated entry points instead: dtype and format rules (161002), then nothing to do when every output entry is
 * empty, then the tiling's list, rank and shape rules (ACLNN_ERR_INNER_TILING_ERROR).
 */
#ifndef ACLSTUB_OP_FOREACH_H_
#define ACLSTUB_OP_FOREACH_H_

#include "aclstub/op_elementwise.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the scalar's dtype is checked (aclStubForeach.scalar_rule). */
typedef enum {
    ACLSTUB_FE_SCALAR_ANY = 0,  /* not checked (any real number type) */
    /* aclScalar of the V2 op_apis: FLOAT or DOUBLE for FLOAT/BF16 lists, FLOAT16 or DOUBLE for FLOAT16 lists,
     * INT32 or INT64 for integer lists */
    ACLSTUB_FE_SCALAR_RULE_TYPED,
    ACLSTUB_FE_SCALAR_RULE_FLOAT, /* FLOAT or DOUBLE whatever the lists */
    /* a device tensor of the generated entry points: FLOAT16 for FLOAT16 lists, FLOAT for FLOAT and BF16 lists,
     * INT32 for integer lists */
    ACLSTUB_FE_SCALAR_RULE_TENSOR,
    ACLSTUB_FE_SCALAR_RULE_SAME, /* a device tensor of the lists' own dtype */
} aclStubForeachScalarRule;

/* aclStubForeach.flags */
#define ACLSTUB_FE_GENERATED 1u   /* checks of a generated entry point (see above) */
#define ACLSTUB_FE_PER_ENTRY 2u   /* the scalar tensor holds one value per list entry (scalars), not one value */
#define ACLSTUB_FE_OUT_DTYPE 4u   /* the loop runs in the output's dtype (a copy between types; the check decides
                                     which pairs) instead of requiring the lists' dtype */
#define ACLSTUB_FE_NO_SCALAR_SHAPE 8u /* the scalar tensor's element count is not checked */

typedef struct {
    int num_lists;                   /* input tensor lists: the loop's operands after the output, in order */
    uint64_t dtypes;                 /* accepted dtypes of the list entries (Atlas A2/A3) */
    unsigned flags;                  /* ACLSTUB_FE_* */
    const aclStubEwLoops *loops;     /* the loop per computation type (16-bit floats run the float32 loop) */
    aclStubForeachScalarRule scalar_rule;
    aclStubCheckFn check;            /* optional: the operator's own rules, after the generic ones */
} aclStubForeach;

/* The engine: check and kernel of every foreach operator (its aclStubFamilyOp's row is its aclStubForeach). */
ACLSTUB_API aclnnStatus aclStubForeachCheck(aclStubOpCall *call);
ACLSTUB_API aclnnStatus aclStubForeachKernel(const aclStubOpCall *call);

/* What check leaves for the kernel. */
typedef struct {
    aclDataType compute;       /* the lists' dtype (the output's with ACLSTUB_FE_OUT_DTYPE) */
    int lists[ACLSTUB_ITER_MAX_OPERANDS]; /* parameter index of each input list */
    int out;                   /* parameter index of the written list */
    int scalar;                /* parameter index of the scalar, or -1 */
    uint64_t size;             /* entries per list */
    aclStubEwCtx ctx;          /* attributes: s0 is filled per entry from the scalar */
} aclStubForeachPlan;

#ifdef __cplusplus
} /* extern "C" */
#else

/* A parameter table entry for foreach operators: tensor lists by type, the last one the output (writable). */
#define ACLSTUB_FOREACH_OP(NAME, ROW, ...)                                                                   \
    _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Woverride-init\"")                    \
    static const aclStubParam NAME##_params_[] = {ACLSTUB_MAP_(ACLSTUB_PARAM_OF_, __VA_ARGS__),             \
                                                  [ACLSTUB_NARGS_(__VA_ARGS__) - 1].role = ACLSTUB_OUTPUT_LIST}; \
    _Pragma("GCC diagnostic pop")                                                                            \
    static const aclStubFamilyOp NAME##_op_ = {{#NAME, NAME##_params_, ACLSTUB_LEN(NAME##_params_), NULL,     \
                                                aclStubForeachCheck, aclStubForeachKernel,                   \
                                                sizeof(aclStubForeachPlan)}, &(ROW)};                         \
    ACLSTUB_DEFINE_OP(NAME, NAME##_op_.def, __VA_ARGS__)

/* The same for an in-place variant: the first list is read and written. */
#define ACLSTUB_FOREACH_INPLACE_OP(NAME, ROW, ...)                                                           \
    static const aclStubParam NAME##_params_[] = {ACLSTUB_MAP_(ACLSTUB_PARAM_OF_, __VA_ARGS__)};             \
    static const aclStubFamilyOp NAME##_op_ = {{#NAME, NAME##_params_, ACLSTUB_LEN(NAME##_params_), NULL,     \
                                                aclStubForeachCheck, aclStubForeachKernel,                   \
                                                sizeof(aclStubForeachPlan)}, &(ROW)};                         \
    ACLSTUB_DEFINE_OP(NAME, NAME##_op_.def, __VA_ARGS__)

/* The types foreach loops are written for: floats (16-bit ones run as float32) and the integers of the lists. */
#define ACLSTUB_FE_FLOATS(X, ...) X(f32, float, float, ACLSTUB_CT_F32, __VA_ARGS__)
#define ACLSTUB_FE_NUMBERS(X, ...)                                                                           \
    ACLSTUB_FE_FLOATS(X, __VA_ARGS__) X(i8, int8_t, int8_t, ACLSTUB_CT_I8, __VA_ARGS__)                      \
    X(i16, int16_t, int16_t, ACLSTUB_CT_I16, __VA_ARGS__) X(i32, int32_t, int32_t, ACLSTUB_CT_I32, __VA_ARGS__) \
    X(i64, int64_t, int64_t, ACLSTUB_CT_I64, __VA_ARGS__) X(u8, uint8_t, uint8_t, ACLSTUB_CT_U8, __VA_ARGS__)

#endif /* __cplusplus */

#endif /* ACLSTUB_OP_FOREACH_H_ */
