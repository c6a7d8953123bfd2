/* aclnnMoeTokenUnpermute: combine the expert rows of each token (the inverse of aclnnMoeTokenPermute). */
#ifndef ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_H_
#define ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMoeTokenUnpermuteGetWorkspaceSize(const aclTensor *permutedTokens,
                                                              const aclTensor *sortedIndices,
                                                              const aclTensor *probsOptional, bool paddedMode,
                                                              const aclIntArray *restoreShapeOptional, aclTensor *out,
                                                              uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMoeTokenUnpermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MOE_TOKEN_UNPERMUTE_H_ */
