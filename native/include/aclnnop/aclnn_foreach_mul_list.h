/* aclnnForeachMulList (ops-nn foreach/foreach_mul_list). */
#ifndef ACLNNOP_ACLNN_FOREACH_MUL_LIST_H_
#define ACLNNOP_ACLNN_FOREACH_MUL_LIST_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachMulListGetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                          aclTensorList *out, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachMulList(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_MUL_LIST_H_ */
