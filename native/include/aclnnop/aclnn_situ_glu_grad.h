/* aclnnSituGluGrad (ops-nn activation/situ_glu_grad). */
#ifndef ACLNNOP_ACLNN_SITU_GLU_GRAD_H_
#define ACLNNOP_ACLNN_SITU_GLU_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSituGluGradGetWorkspaceSize(const aclTensor *gradY, const aclTensor *x, int64_t dim,
                                                       double beta, double linearBeta, bool activateLeft,
                                                       const aclTensor *out, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSituGluGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SITU_GLU_GRAD_H_ */
