/* aclnnHardtanh, aclnnInplaceHardtanh (ops-math conversion/clip_by_value_v2). */
#ifndef ACLNNOP_ACLNN_HARDTANH_H_
#define ACLNNOP_ACLNN_HARDTANH_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnHardtanhGetWorkspaceSize(const aclTensor *self, const aclScalar *clipValueMin,
                                                    const aclScalar *clipValueMax, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnHardtanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceHardtanhGetWorkspaceSize(aclTensor *selfRef, const aclScalar *clipValueMin,
                                                           const aclScalar *clipValueMax, uint64_t *workspaceSize,
                                                           aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceHardtanh(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                           aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_HARDTANH_H_ */
