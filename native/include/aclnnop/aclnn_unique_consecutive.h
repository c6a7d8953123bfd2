/* aclnnUniqueConsecutive (ops-nn index/unique_consecutive). */
#ifndef ACLNNOP_ACLNN_UNIQUE_CONSECUTIVE_H_
#define ACLNNOP_ACLNN_UNIQUE_CONSECUTIVE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUniqueConsecutiveGetWorkspaceSize(
    const aclTensor *self, bool returnInverse, bool returnCounts, int64_t dim, aclTensor *valueOut, aclTensor
    *inverseOut, aclTensor *countsOut, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUniqueConsecutive(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UNIQUE_CONSECUTIVE_H_ */
