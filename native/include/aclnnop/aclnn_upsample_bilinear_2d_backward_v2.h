/* aclnnUpsampleBilinear2dBackwardV2 (ops-cv image/upsample_bilinear2d_grad). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardV2(void *workspace, uint64_t workspaceSize,
                                                        aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dBackwardV2GetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_BACKWARD_V2_H_ */
