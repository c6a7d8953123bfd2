/* aclnnLogit (ops-nn loss/logit). */
#ifndef ACLNNOP_ACLNN_LOGIT_H_
#define ACLNNOP_ACLNN_LOGIT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogitGetWorkspaceSize(const aclTensor *input, double eps, const aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLogit(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOGIT_H_ */
