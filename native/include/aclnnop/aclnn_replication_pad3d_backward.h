/* aclnnReplicationPad3dBackward (ops-math conversion/pad_v3_grad_replication). */
#ifndef ACLNNOP_ACLNN_REPLICATION_PAD3D_BACKWARD_H_
#define ACLNNOP_ACLNN_REPLICATION_PAD3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReplicationPad3dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *padding, aclTensor *gradInput, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnReplicationPad3dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REPLICATION_PAD3D_BACKWARD_H_ */
