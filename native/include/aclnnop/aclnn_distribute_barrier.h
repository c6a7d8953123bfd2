/* aclnnDistributeBarrier (ops-transformer mc2/distribute_barrier). */
#ifndef ACLNNOP_ACLNN_DISTRIBUTE_BARRIER_H_
#define ACLNNOP_ACLNN_DISTRIBUTE_BARRIER_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnDistributeBarrierGetWorkspaceSize(
    aclTensor *xRef, const char *group, int64_t worldSize, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnDistributeBarrier(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_DISTRIBUTE_BARRIER_H_ */
