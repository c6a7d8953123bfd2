/* aclnnUpsampleLinear1dBackward (ops-cv image/upsample_bilinear2d_grad). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_BACKWARD_H_
#define ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_BACKWARD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleLinear1dBackward(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                    aclrtStream stream);

ACLNN_API aclnnStatus aclnnUpsampleLinear1dBackwardGetWorkspaceSize(
    const aclTensor *gradOut, const aclIntArray *outputSize, const aclIntArray *inputSize, bool alignCorners,
    double scales, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_LINEAR_1D_BACKWARD_H_ */
