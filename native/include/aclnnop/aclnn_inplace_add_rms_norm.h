/* aclnnInplaceAddRmsNorm (ops-nn norm/inplace_add_rms_norm). */
#ifndef ACLNNOP_ACLNN_INPLACE_ADD_RMS_NORM_H_
#define ACLNNOP_ACLNN_INPLACE_ADD_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceAddRmsNormGetWorkspaceSize(
    aclTensor *x1Ref, aclTensor *x2Ref, const aclTensor *gamma, double epsilon, const aclTensor *rstdOut, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceAddRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INPLACE_ADD_RMS_NORM_H_ */
