/* aclnnUpsampleTrilinear3dBackward (ops-cv image/upsample_trilinear3d_backward). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesD, double scalesH, double scalesW, aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dBackward(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_BACKWARD_H_ */
