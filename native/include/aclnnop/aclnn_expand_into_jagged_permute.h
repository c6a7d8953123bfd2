/* aclnnExpandIntoJaggedPermute (ops-nn index/expand_into_jagged_permute). */
#ifndef ACLNNOP_ACLNN_EXPAND_INTO_JAGGED_PERMUTE_H_
#define ACLNNOP_ACLNN_EXPAND_INTO_JAGGED_PERMUTE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnExpandIntoJaggedPermuteGetWorkspaceSize(
    const aclTensor *permute, const aclTensor *inputOffset, const aclTensor *outputOffset, int64_t outputSize,
    const aclTensor *outputPermuteOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnExpandIntoJaggedPermute(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EXPAND_INTO_JAGGED_PERMUTE_H_ */
