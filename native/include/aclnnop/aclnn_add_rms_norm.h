/* aclnnAddRmsNorm (ops-nn norm/add_rms_norm). */
#ifndef ACLNNOP_ACLNN_ADD_RMS_NORM_H_
#define ACLNNOP_ACLNN_ADD_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddRmsNormGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2,
                                                      const aclTensor *gamma, double epsilon, aclTensor *yOut,
                                                      aclTensor *rstdOut, aclTensor *xOut, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAddRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_RMS_NORM_H_ */
