/* aclnnForeachSqrt (ops-nn foreach/foreach_sqrt). */
#ifndef ACLNNOP_ACLNN_FOREACH_SQRT_H_
#define ACLNNOP_ACLNN_FOREACH_SQRT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachSqrtGetWorkspaceSize(const aclTensorList *x, aclTensorList *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachSqrt(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_SQRT_H_ */
