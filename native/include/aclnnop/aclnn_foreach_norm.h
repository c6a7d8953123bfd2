/* aclnnForeachNorm (ops-nn foreach/foreach_norm). */
#ifndef ACLNNOP_ACLNN_FOREACH_NORM_H_
#define ACLNNOP_ACLNN_FOREACH_NORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachNormGetWorkspaceSize(const aclTensorList *x, const aclScalar *scalar,
                                                       const aclTensorList *out, uint64_t *workspaceSize,
                                                       aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachNorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_NORM_H_ */
