/* aclnnAngleV2 (ops-math math/angle_v2). */
#ifndef ACLNNOP_ACLNN_ANGLE_V2_H_
#define ACLNNOP_ACLNN_ANGLE_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAngleV2GetWorkspaceSize(const aclTensor *x, const aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAngleV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ANGLE_V2_H_ */
