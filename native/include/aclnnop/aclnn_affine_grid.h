/* aclnnAffineGrid (ops-math math/affine_grid). */
#ifndef ACLNNOP_ACLNN_AFFINE_GRID_H_
#define ACLNNOP_ACLNN_AFFINE_GRID_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAffineGridGetWorkspaceSize(const aclTensor *theta, const aclIntArray *size,
                                                      bool alignCorners, aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAffineGrid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_AFFINE_GRID_H_ */
