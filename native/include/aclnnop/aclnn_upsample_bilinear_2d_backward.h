/* aclnnUpsampleBilinear2dBackward (ops-cv image/resize_bilinear_v2_grad). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackward(void *workspace, uint64_t workspace_size,
                                                      aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_H_ */
