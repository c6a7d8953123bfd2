/* aclnnUpsampleTrilinear3d (ops-cv image/resize_upsample_trilinear). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, bool alignCorners, double scalesD, double scalesH,
    double scalesW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUpsampleTrilinear3d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_TRILINEAR_3D_H_ */
