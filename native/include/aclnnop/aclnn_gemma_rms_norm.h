/* aclnnGemmaRmsNorm (ops-nn norm/gemma_rms_norm). */
#ifndef ACLNNOP_ACLNN_GEMMA_RMS_NORM_H_
#define ACLNNOP_ACLNN_GEMMA_RMS_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGemmaRmsNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma, double epsilon,
                                                        const aclTensor *yOut, const aclTensor *rstdOut,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGemmaRmsNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GEMMA_RMS_NORM_H_ */
