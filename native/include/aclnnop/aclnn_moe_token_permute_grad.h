/* aclnnMoeTokenPermuteGrad: backward of aclnnMoeTokenPermute. */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_GRAD_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenPermuteGradGetWorkspaceSize(const aclTensor *permutedOutputGrad,
                                                                const aclTensor *sortedIndices, int64_t numTopk,
                                                                bool paddedMode, aclTensor *out,
                                                                uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenPermuteGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_PERMUTE_GRAD_H_ */
