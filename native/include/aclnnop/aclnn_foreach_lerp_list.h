/* aclnnForeachLerpList (ops-nn foreach/foreach_lerp_list). */
#ifndef ACLNNOP_ACLNN_FOREACH_LERP_LIST_H_
#define ACLNNOP_ACLNN_FOREACH_LERP_LIST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachLerpListGetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                           const aclTensorList *weight, aclTensorList *out,
                                                           uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachLerpList(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_LERP_LIST_H_ */
