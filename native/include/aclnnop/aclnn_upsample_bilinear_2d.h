/* aclnnUpsampleBilinear2d (ops-cv image/upsample_bilinear2d). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleBilinear2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              aclrtStream stream);

ACLNN_API aclnnStatus aclnnUpsampleBilinear2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners, const double scalesH, const
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_BILINEAR_2D_H_ */
