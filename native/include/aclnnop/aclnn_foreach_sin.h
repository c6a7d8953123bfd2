/* aclnnForeachSin (ops-nn foreach/foreach_sin). */
#ifndef ACLNNOP_ACLNN_FOREACH_SIN_H_
#define ACLNNOP_ACLNN_FOREACH_SIN_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachSinGetWorkspaceSize(const aclTensorList *x, const aclTensorList *out,
                                                      uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachSin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_SIN_H_ */
