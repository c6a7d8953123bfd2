/* aclnnUpsampleNearest1d (ops-cv image/resize_nearest_neighbor_v2). */
#ifndef ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_
#define ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnUpsampleNearest1dGetWorkspaceSize(
    const aclTensor *self, const aclIntArray *outputSize, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor
    **executor);

ACLNN_API aclnnStatus aclnnUpsampleNearest1d(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                             aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_UPSAMPLE_NEAREST_1D_H_ */
