/* aclnnGlobalMaxPool (ops-math math/reduce_max). */
#ifndef ACLNNOP_ACLNN_GLOBAL_MAX_POOL_H_
#define ACLNNOP_ACLNN_GLOBAL_MAX_POOL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGlobalMaxPoolGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGlobalMaxPool(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GLOBAL_MAX_POOL_H_ */
