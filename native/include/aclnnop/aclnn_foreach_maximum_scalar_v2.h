/* aclnnForeachMaximumScalarV2 (ops-nn foreach/foreach_maximum_scalar). */
#ifndef ACLNNOP_ACLNN_FOREACH_MAXIMUM_SCALAR_V2_H_
#define ACLNNOP_ACLNN_FOREACH_MAXIMUM_SCALAR_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachMaximumScalarV2GetWorkspaceSize(
    const aclTensorList *x, const aclScalar *scalar, aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnForeachMaximumScalarV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_MAXIMUM_SCALAR_V2_H_ */
