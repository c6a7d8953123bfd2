/* aclnnForeachMinimumScalarList (ops-nn foreach/foreach_minimum_scalar_list). */
#ifndef ACLNNOP_ACLNN_FOREACH_MINIMUM_SCALAR_LIST_H_
#define ACLNNOP_ACLNN_FOREACH_MINIMUM_SCALAR_LIST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachMinimumScalarListGetWorkspaceSize(
    const aclTensorList *x, const aclScalarList *scalars, const aclTensorList *out, uint64_t *workspaceSize,
    aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachMinimumScalarList(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_MINIMUM_SCALAR_LIST_H_ */
