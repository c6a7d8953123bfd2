/* aclnnAddV3, aclnnInplaceAddV3 (ops-math math/add). */
#ifndef ACLNNOP_ACLNN_ADD_V3_H_
#define ACLNNOP_ACLNN_ADD_V3_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAddV3GetWorkspaceSize(const aclScalar *self, const aclTensor *other,
                                                 const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAddV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceAddV3GetWorkspaceSize(const aclScalar *selfRef, const aclTensor *other,
                                                        const aclScalar *alpha, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceAddV3(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ADD_V3_H_ */
