/* aclnnGtTensor, aclnnInplaceGtTensor (ops-math math/greater). */
#ifndef ACLNNOP_ACLNN_GT_TENSOR_H_
#define ACLNNOP_ACLNN_GT_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGtTensorGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGtTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceGtTensorGetWorkspaceSize(const aclTensor *selfRef, const aclTensor *other,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceGtTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GT_TENSOR_H_ */
