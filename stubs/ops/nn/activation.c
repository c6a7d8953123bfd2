/* Activations of ops-nn activation/: aclnnRelu and its in-place variant. */
#include "aclstub/op_elementwise.h"
#include "aclnnop/aclnn_relu.h"

#define RELU_DT (ACLSTUB_DT_FLOATS | ACLSTUB_DT(ACL_INT8) | ACLSTUB_DT(ACL_INT32) | ACLSTUB_DT(ACL_UINT8) | \
                 ACLSTUB_DT(ACL_INT64))
ACLSTUB_EW_UNARY(relu_loops, ACLSTUB_EW_REAL, x > 0 ? x : (x != x ? x : 0))
static const aclStubElementwise RELU = {1, RELU_DT, ACLSTUB_EW_OUT_SAME, &relu_loops, NULL, NULL};
ACLSTUB_EW_OP(aclnnRelu, RELU, (const aclTensor *, self), (const aclTensor *, out))
ACLSTUB_EW_INPLACE_OP(aclnnInplaceRelu, RELU, (aclTensor *, selfRef))
