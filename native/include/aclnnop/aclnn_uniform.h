/* aclnnInplaceUniform, aclnnInplaceUniformTensor (ops-math random/dsa_random_uniform). */
#ifndef ACLNNOP_ACLNN_UNIFORM_H_
#define ACLNNOP_ACLNN_UNIFORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceUniformGetWorkspaceSize(const aclTensor *selfRef, double from, double to,
                                                          uint64_t seed, uint64_t offset, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceUniform(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          const aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceUniformTensorGetWorkspaceSize(
    const aclTensor *selfRef, double from, double to, const aclTensor *seedTensor, const aclTensor *offsetTensor,
    uint64_t offset, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceUniformTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UNIFORM_H_ */
