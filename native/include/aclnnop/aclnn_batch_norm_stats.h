/* aclnnBatchNormStats (ops-math math/reduce_std_with_mean). */
#ifndef ACLNNOP_ACLNN_BATCH_NORM_STATS_H_
#define ACLNNOP_ACLNN_BATCH_NORM_STATS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchNormStatsGetWorkspaceSize(const aclTensor *input, double eps, aclTensor *mean,
                                                          aclTensor *invstd, uint64_t *workspaceSize,
                                                          aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBatchNormStats(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_NORM_STATS_H_ */
