/* aclnnClippedSwigluGrad (ops-nn activation/clipped_swiglu_grad). */
#ifndef ACLNNOP_ACLNN_CLIPPED_SWIGLU_GRAD_H_
#define ACLNNOP_ACLNN_CLIPPED_SWIGLU_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnClippedSwigluGradGetWorkspaceSize(
    const aclTensor *gradY, const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim, double alpha,
    double limit, double bias, bool interleaved, const aclTensor *gradXOut, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnClippedSwigluGrad(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_CLIPPED_SWIGLU_GRAD_H_ */
