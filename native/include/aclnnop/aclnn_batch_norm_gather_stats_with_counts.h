/* aclnnBatchNormGatherStatsWithCounts (ops-nn norm/sync_batch_norm_gather_stats_with_counts). */
#ifndef ACLNNOP_ACLNN_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_
#define ACLNNOP_ACLNN_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnBatchNormGatherStatsWithCountsGetWorkspaceSize(
    const aclTensor *input, const aclTensor *mean, const aclTensor *invstd, aclTensor *runningMean, aclTensor
    *runningVar, double momentum, double eps, const aclTensor *counts, aclTensor *meanAll, aclTensor *invstdAll,
    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnBatchNormGatherStatsWithCounts(void *workspace, uint64_t workspaceSize,
                                                          aclOpExecutor *executor, const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_BATCH_NORM_GATHER_STATS_WITH_COUNTS_H_ */
