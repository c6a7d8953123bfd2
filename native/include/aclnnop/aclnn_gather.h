/* aclnnGather (ops-nn index/gather_elements_v2). */
#ifndef ACLNNOP_ACLNN_GATHER_H_
#define ACLNNOP_ACLNN_GATHER_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGatherGetWorkspaceSize(const aclTensor *self, const int64_t dim, const aclTensor *index,
                                                  aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGather(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GATHER_H_ */
