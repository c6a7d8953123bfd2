/* aclnnUpsampleNearest2dBackward (ops-cv image/upsample_nearest2d_grad). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearest2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, double scalesH, double
    scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUpsampleNearest2dBackward(void *workspace, uint64_t workspaceSize,
                                                     aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_BACKWARD_H_ */
