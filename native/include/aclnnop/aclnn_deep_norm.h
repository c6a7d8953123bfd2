/* aclnnDeepNorm (ops-nn norm/deep_norm). */
#ifndef ACLNNOP_ACLNN_DEEP_NORM_H_
#define ACLNNOP_ACLNN_DEEP_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDeepNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gx, const aclTensor *beta,
                                                    const aclTensor *gamma, double alpha, double epsilon,
                                                    const aclTensor *meanOut, const aclTensor *rstdOut,
                                                    const aclTensor *yOut, uint64_t *workspaceSize,
                                                    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDeepNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DEEP_NORM_H_ */
