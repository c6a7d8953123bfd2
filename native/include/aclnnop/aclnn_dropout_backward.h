/* aclnnDropoutBackward (ops-math random/drop_out_do_mask). */
#ifndef ACLNNOP_ACLNN_DROPOUT_BACKWARD_H_
#define ACLNNOP_ACLNN_DROPOUT_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDropoutBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *mask,
                                                           double scale, aclTensor *out, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDropoutBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DROPOUT_BACKWARD_H_ */
