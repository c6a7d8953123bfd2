/* aclnnForeachMinimumScalar (ops-nn foreach/foreach_minimum_scalar). */
#ifndef ACLNNOP_ACLNN_FOREACH_MINIMUM_SCALAR_H_
#define ACLNNOP_ACLNN_FOREACH_MINIMUM_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachMinimumScalarGetWorkspaceSize(
    const aclTensorList *x, const aclTensor *scalar, const aclTensorList *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachMinimumScalar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_MINIMUM_SCALAR_H_ */
