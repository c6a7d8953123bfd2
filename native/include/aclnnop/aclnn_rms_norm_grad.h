/* aclnnRmsNormGrad (ops-nn norm/rms_norm_grad). */
#ifndef ACLNNOP_ACLNN_RMS_NORM_GRAD_H_
#define ACLNNOP_ACLNN_RMS_NORM_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRmsNormGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *x,
                                                       const aclTensor *rstd, const aclTensor *gamma,
                                                       const aclTensor *dxOut, const aclTensor *dgammaOut,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRmsNormGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_RMS_NORM_GRAD_H_ */
