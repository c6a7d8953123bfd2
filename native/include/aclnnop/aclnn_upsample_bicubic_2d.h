/* aclnnUpsampleBicubic2d (ops-cv image/upsample_bicubic2d). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBicubic2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, const double scalesH, const
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUpsampleBicubic2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_BICUBIC_2D_H_ */
