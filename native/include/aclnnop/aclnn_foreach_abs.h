/* aclnnForeachAbs (ops-nn foreach/foreach_abs). */
#ifndef ACLNNOP_ACLNN_FOREACH_ABS_H_
#define ACLNNOP_ACLNN_FOREACH_ABS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachAbsGetWorkspaceSize(const aclTensorList *x, const aclTensorList *out,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachAbs(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_ABS_H_ */
