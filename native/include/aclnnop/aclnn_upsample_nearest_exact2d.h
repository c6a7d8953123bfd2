/* aclnnUpsampleNearestExact2d (ops-cv image/upsample_nearest). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, double scalesH, double scalesW, aclTensor *out, uint64_t
    *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnUpsampleNearestExact2d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_NEAREST_EXACT2D_H_ */
