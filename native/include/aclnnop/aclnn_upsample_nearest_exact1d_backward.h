/* aclnnUpsampleNearestExact1dBackward (ops-cv image/upsample_nearest_exact2d_grad). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearestExact1dBackwardGetWorkspaceSize(
    const aclTensor *gradOutput, const aclIntArray *outputSize, const aclIntArray *inputSize, double scales,
    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUpsampleNearestExact1dBackward(void *workspace, uint64_t workspaceSize,
                                                          aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT1D_BACKWARD_H_ */
