/* aclnnForeachLerpScalar (ops-nn foreach/foreach_lerp_scalar). */
#ifndef ACLNNOP_ACLNN_FOREACH_LERP_SCALAR_H_
#define ACLNNOP_ACLNN_FOREACH_LERP_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachLerpScalarGetWorkspaceSize(
    const aclTensorList *x1, const aclTensorList *x2, const aclScalar *weight, aclTensorList *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachLerpScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_LERP_SCALAR_H_ */
