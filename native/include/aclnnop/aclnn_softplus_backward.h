/* aclnnSoftplusBackward (ops-nn activation/softplus_v2_grad). */
#ifndef ACLNNOP_ACLNN_SOFTPLUS_BACKWARD_H_
#define ACLNNOP_ACLNN_SOFTPLUS_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSoftplusBackwardGetWorkspaceSize(const aclTensor *gradOutput, const aclTensor *self,
                                                            const aclScalar *beta, const aclScalar *threshold,
                                                            aclTensor *gradInput, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSoftplusBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SOFTPLUS_BACKWARD_H_ */
