/* aclnnUnique2 (ops-nn index/unique_consecutive). */
#ifndef ACLNNOP_ACLNN_UNIQUE2_H_
#define ACLNNOP_ACLNN_UNIQUE2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUnique2GetWorkspaceSize(const aclTensor *self, bool sorted, bool returnInverse,
                                                   bool returnCounts, aclTensor *valueOut, aclTensor *inverseOut,
                                                   aclTensor *countsOut, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUnique2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UNIQUE2_H_ */
