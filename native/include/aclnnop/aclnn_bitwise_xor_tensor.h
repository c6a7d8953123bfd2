/* aclnnBitwiseXorTensor, aclnnInplaceBitwiseXorTensor (ops-math math/bitwise_xor). */
#ifndef ACLNNOP_ACLNN_BITWISE_XOR_TENSOR_H_
#define ACLNNOP_ACLNN_BITWISE_XOR_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBitwiseXorTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBitwiseXorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceBitwiseXorTensorGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *other, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceBitwiseXorTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BITWISE_XOR_TENSOR_H_ */
