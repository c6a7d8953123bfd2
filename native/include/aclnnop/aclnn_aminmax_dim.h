/* aclnnAminmaxDim (ops-math math/reduce_min). */
#ifndef ACLNNOP_ACLNN_AMINMAX_DIM_H_
#define ACLNNOP_ACLNN_AMINMAX_DIM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnAminmaxDimGetWorkspaceSize(const aclTensor *self, const int64_t dim, bool keepDim,
                                                      aclTensor *minOut, aclTensor *maxOut, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnAminmaxDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_AMINMAX_DIM_H_ */
