/* aclnnForeachSubList (ops-nn foreach/foreach_sub_list). */
#ifndef ACLNNOP_ACLNN_FOREACH_SUB_LIST_H_
#define ACLNNOP_ACLNN_FOREACH_SUB_LIST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachSubListGetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                          const aclTensor *alpha, const aclTensorList *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachSubList(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_SUB_LIST_H_ */
