/* aclnnForeachAddList (ops-nn foreach/foreach_add_list). */
#ifndef ACLNNOP_ACLNN_FOREACH_ADD_LIST_H_
#define ACLNNOP_ACLNN_FOREACH_ADD_LIST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachAddListGetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                          const aclTensor *alpha, aclTensorList *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachAddList(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_ADD_LIST_H_ */
