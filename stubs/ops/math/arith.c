/* Arithmetic of ops-math math/: aclnnAdd, aclnnSub, aclnnMul and their scalar and in-place variants. */
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_sub.h"

/* ASCEND910B_DTYPE_SUPPORT_LIST of aclnn_add.cpp, aclnn_sub.cpp */
#define ARITH_DT (ACLSTUB_DT_REALS | ACLSTUB_DT_INTS | ACLSTUB_DT(ACL_BOOL) | ACLSTUB_DT_COMPLEX)

ACLSTUB_EW_BINARY(add_loops, ACLSTUB_EW_ALL, a + s0 * b)
static const aclStubElementwise ADD = {2, ARITH_DT, ACLSTUB_EW_ATTR0_CASTS, &add_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnAdd, ADD, (const aclTensor *, self), (const aclTensor *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_OP(aclnnAdds, ADD, (const aclTensor *, self), (const aclScalar *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAdd, ADD, (const aclTensor *, selfRef), (const aclTensor *, other),
                      (const aclScalar *, alpha))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceAdds, ADD, (const aclTensor *, selfRef), (const aclScalar *, other),
                      (const aclScalar *, alpha))

ACLSTUB_EW_BINARY(sub_loops, ACLSTUB_EW_ALL, a - s0 * b)
static const aclStubElementwise SUB = {2, ARITH_DT, ACLSTUB_EW_ATTR0_CASTS, &sub_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnSub, SUB, (const aclTensor *, self), (const aclTensor *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_OP(aclnnSubs, SUB, (const aclTensor *, self), (const aclScalar *, other), (const aclScalar *, alpha),
              (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceSub, SUB, (aclTensor *, selfRef), (const aclTensor *, other),
                      (const aclScalar *, alpha))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceSubs, SUB, (aclTensor *, selfRef), (const aclScalar *, other),
                      (const aclScalar *, alpha))

ACLSTUB_EW_BINARY(mul_loops, ACLSTUB_EW_ALL, a * b)
static const aclStubElementwise MUL = {2, ARITH_DT, 0, &mul_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnMul, MUL, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
ACLSTUB_EW_OP(aclnnMuls, MUL, (const aclTensor *, self), (const aclScalar *, other), (aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceMul, MUL, (aclTensor *, selfRef), (const aclTensor *, other))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceMuls, MUL, (aclTensor *, selfRef), (const aclScalar *, other))
