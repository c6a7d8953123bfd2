/* aclnnLogitGrad (ops-nn loss/logit_grad). */
#ifndef ACLNNOP_ACLNN_LOGIT_GRAD_H_
#define ACLNNOP_ACLNN_LOGIT_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogitGradGetWorkspaceSize(const aclTensor *x, const aclTensor *dy, double eps,
                                                     const aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLogitGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOGIT_GRAD_H_ */
