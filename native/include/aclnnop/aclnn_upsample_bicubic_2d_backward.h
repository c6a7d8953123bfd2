/* aclnnUpsampleBicubic2dBackward (ops-cv image/upsample_bicubic2d_grad). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dBackward(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, const bool
    alignCorners, double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor
    **executor);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_BACKWARD_H_ */
