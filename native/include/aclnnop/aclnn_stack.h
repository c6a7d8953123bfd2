/* aclnnStack (ops-math conversion/pack). */
#ifndef ACLNNOP_ACLNN_STACK_H_
#define ACLNNOP_ACLNN_STACK_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnStackGetWorkspaceSize(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnStack(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_STACK_H_ */
