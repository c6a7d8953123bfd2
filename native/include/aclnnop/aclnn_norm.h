/* aclnnNorm (ops-nn norm/lp_norm_v2). */
#ifndef ACLNNOP_ACLNN_NORM_H_
#define ACLNNOP_ACLNN_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNormGetWorkspaceSize(const aclTensor *self, const aclScalar *pScalar,
                                                const aclIntArray *dim, bool keepdim, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NORM_H_ */
