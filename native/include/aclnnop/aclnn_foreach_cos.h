/* aclnnForeachCos (ops-nn foreach/foreach_cos). */
#ifndef ACLNNOP_ACLNN_FOREACH_COS_H_
#define ACLNNOP_ACLNN_FOREACH_COS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachCosGetWorkspaceSize(const aclTensorList *x, const aclTensorList *out,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachCos(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_COS_H_ */
