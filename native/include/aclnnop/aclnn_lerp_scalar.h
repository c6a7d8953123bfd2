/* aclnnLerps, aclnnInplaceLerps (ops-math math/lerp). */
#ifndef ACLNNOP_ACLNN_LERP_SCALAR_H_
#define ACLNNOP_ACLNN_LERP_SCALAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLerpsGetWorkspaceSize(const aclTensor *self, const aclTensor *end,
                                                 const aclScalar *weight, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLerps(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 const aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceLerpsGetWorkspaceSize(aclTensor *selfRef, const aclTensor *end,
                                                        const aclScalar *weight, uint64_t *workspaceSize,
                                                        aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceLerps(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LERP_SCALAR_H_ */
