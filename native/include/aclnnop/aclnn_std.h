/* aclnnStd (ops-math math/reduce_std_v2). */
#ifndef ACLNNOP_ACLNN_STD_H_
#define ACLNNOP_ACLNN_STD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnStdGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim,
                                               const int64_t correction, bool keepdim, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnStd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_STD_H_ */
