/* aclnnUnique (ops-nn index/unique_consecutive). */
#ifndef ACLNNOP_ACLNN_UNIQUE_H_
#define ACLNNOP_ACLNN_UNIQUE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUniqueGetWorkspaceSize(const aclTensor *self, bool sorted, bool returnInverse,
                                                  aclTensor *valueOut, aclTensor *inverseOut,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUnique(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UNIQUE_H_ */
