/* aclnnBitwiseNot (ops-math math/bitwise_not). */
#ifndef ACLNNOP_ACLNN_BITWISE_NOT_H_
#define ACLNNOP_ACLNN_BITWISE_NOT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBitwiseNotGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBitwiseNot(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BITWISE_NOT_H_ */
