/* aclnnUpsampleNearest2dV2 (ops-cv image/upsample_nearest3d). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_V2_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearest2dV2GetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, float scalesH, float scalesW, aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUpsampleNearest2dV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_NEAREST_2D_V2_H_ */
