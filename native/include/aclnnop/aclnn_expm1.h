/* aclnnExpm1, aclnnInplaceExpm1 (ops-math math/expm1). */
#ifndef ACLNNOP_ACLNN_EXPM1_H_
#define ACLNNOP_ACLNN_EXPM1_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnExpm1GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnExpm1(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                 const aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceExpm1GetWorkspaceSize(aclTensor *selfRef, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceExpm1(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EXPM1_H_ */
