/* aclnnInplaceMaskedFillTensor (ops-math conversion/masked_fill). */
#ifndef ACLNNOP_ACLNN_MASKED_FILL_TENSOR_H_
#define ACLNNOP_ACLNN_MASKED_FILL_TENSOR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnInplaceMaskedFillTensorGetWorkspaceSize(
    aclTensor *selfRef, const aclTensor *mask, const aclTensor *value, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnInplaceMaskedFillTensor(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MASKED_FILL_TENSOR_H_ */
