/* aclnnForeachAsin (ops-nn foreach/foreach_asin). */
#ifndef ACLNNOP_ACLNN_FOREACH_ASIN_H_
#define ACLNNOP_ACLNN_FOREACH_ASIN_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachAsinGetWorkspaceSize(const aclTensorList *x, const aclTensorList *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachAsin(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_ASIN_H_ */
