/* aclnnInstanceNorm (ops-nn norm/instance_norm_v3). */
#ifndef ACLNNOP_ACLNN_INSTANCE_NORM_H_
#define ACLNNOP_ACLNN_INSTANCE_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInstanceNormGetWorkspaceSize(const aclTensor *x, const aclTensor *gamma,
                                                        const aclTensor *beta, const char *dataFormat, double eps,
                                                        aclTensor *y, aclTensor *mean, aclTensor *variance,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInstanceNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INSTANCE_NORM_H_ */
