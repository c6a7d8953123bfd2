/* aclnnPolar (ops-math math/polar). */
#ifndef ACLNNOP_ACLNN_POLAR_H_
#define ACLNNOP_ACLNN_POLAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPolarGetWorkspaceSize(const aclTensor *input, const aclTensor *angle, aclTensor *out,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnPolar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_POLAR_H_ */
