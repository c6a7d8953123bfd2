/* aclnnMean, aclnnMeanV2 (ops-math math/reduce_mean). */
#ifndef ACLNNOP_ACLNN_MEAN_H_
#define ACLNNOP_ACLNN_MEAN_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMean(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnMeanV2GetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                  bool noopWithEmptyAxes, aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnMeanV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_MEAN_H_ */
