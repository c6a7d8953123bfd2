/*
 * aclnnAddCustom (out = self + other, broadcasting, the classic custom-operator tutorial) on the CPU stub, as an
 * elementwise row of the operator SDK: the row names its operand count, accepted dtypes and loops; the SDK's
 * elementwise engine does the rest (NULL and liveness checks, dtype list, promotion and casts, broadcasting,
 * the output's shape, empty tensors, executors, both phases, strides, 16-bit rounding, threads).
 *
 *   cc -std=gnu11 -O2 -shared -fPIC -Iinclude add_custom.c $(python -m aclnn_py config --sdk) -o libuser_add.so
 */
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_add_custom.h"

ACLSTUB_EW_BINARY(add_loops, ACLSTUB_EW_REAL, a + b) /* the formula, once, for every real dtype */

static const aclStubElementwise ADD_CUSTOM = {2, ACLSTUB_DT_REALS | ACLSTUB_DT(ACL_INT32), 0, &add_loops, NULL, NULL};

ACLSTUB_EW_OP(aclnnAddCustom, ADD_CUSTOM, (const aclTensor *, self), (const aclTensor *, other), (aclTensor *, out))
