/* aclnnChannelShuffle (ops-math conversion/transpose). */
#ifndef ACLNNOP_ACLNN_CHANNEL_SHUFFLE_H_
#define ACLNNOP_ACLNN_CHANNEL_SHUFFLE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnChannelShuffleGetWorkspaceSize(const aclTensor *self, int64_t groups, aclTensor *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnChannelShuffle(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CHANNEL_SHUFFLE_H_ */
