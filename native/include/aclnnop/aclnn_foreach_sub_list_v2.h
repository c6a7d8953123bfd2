/* aclnnForeachSubListV2 (ops-nn foreach/foreach_sub_list). */
#ifndef ACLNNOP_ACLNN_FOREACH_SUB_LIST_V2_H_
#define ACLNNOP_ACLNN_FOREACH_SUB_LIST_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachSubListV2GetWorkspaceSize(const aclTensorList *x1, const aclTensorList *x2,
                                                            const aclScalar *alpha, aclTensorList *out,
                                                            uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachSubListV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_SUB_LIST_V2_H_ */
