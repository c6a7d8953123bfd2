/* aclnnGroupedBiasAddGrad, aclnnGroupedBiasAddGradV2 (ops-math math/grouped_bias_add_grad). */
#ifndef ACLNNOP_ACLNN_GROUPED_BIAS_ADD_GRAD_H_
#define ACLNNOP_ACLNN_GROUPED_BIAS_ADD_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGroupedBiasAddGradGetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *groupIdxOptional, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedBiasAddGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

ACLNN_API aclnnStatus aclnnGroupedBiasAddGradV2GetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *groupIdxOptional, int64_t groupIdxType, aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGroupedBiasAddGradV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GROUPED_BIAS_ADD_GRAD_H_ */
