/* aclnnGridSampler2D (ops-cv image/grid_sample). */
#ifndef ACLNNOP_ACLNN_GRID_SAMPLER2D_H_
#define ACLNNOP_ACLNN_GRID_SAMPLER2D_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnGridSampler2DGetWorkspaceSize(const aclTensor *input, const aclTensor *grid,
                                                         int64_t interpolationMode, int64_t paddingMode,
                                                         bool alignCorners, aclTensor *out, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnGridSampler2D(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_GRID_SAMPLER2D_H_ */
