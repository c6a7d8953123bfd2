/* aclnnForeachLog1p (ops-nn foreach/foreach_log1p). */
#ifndef ACLNNOP_ACLNN_FOREACH_LOG1P_H_
#define ACLNNOP_ACLNN_FOREACH_LOG1P_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachLog1pGetWorkspaceSize(const aclTensorList *x, const aclTensorList *out,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachLog1p(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_LOG1P_H_ */
