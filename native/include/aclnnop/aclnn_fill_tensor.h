/* aclnnInplaceFillTensor (ops-math conversion/fill). */
#ifndef ACLNNOP_ACLNN_FILL_TENSOR_H_
#define ACLNNOP_ACLNN_FILL_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceFillTensorGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *value, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceFillTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FILL_TENSOR_H_ */
