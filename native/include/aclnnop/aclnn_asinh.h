/* aclnnAsinh, aclnnInplaceAsinh (ops-math math/asinh). */
#ifndef ACLNNOP_ACLNN_ASINH_H_
#define ACLNNOP_ACLNN_ASINH_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAsinhGetWorkspaceSize(const aclTensor *input, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAsinh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceAsinhGetWorkspaceSize(aclTensor *inputRef, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceAsinh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ASINH_H_ */
