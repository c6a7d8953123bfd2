/* aclnnEye (ops-math math/eye). */
#ifndef ACLNNOP_ACLNN_EYE_H_
#define ACLNNOP_ACLNN_EYE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnEyeGetWorkspaceSize(int64_t n, int64_t m, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnEye(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EYE_H_ */
