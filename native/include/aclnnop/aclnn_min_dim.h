/* aclnnMinDim (ops-math math/arg_min_with_value). */
#ifndef ACLNNOP_ACLNN_MIN_DIM_H_
#define ACLNNOP_ACLNN_MIN_DIM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMinDimGetWorkspaceSize(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                                                  aclTensor *indices, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMinDim(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MIN_DIM_H_ */
