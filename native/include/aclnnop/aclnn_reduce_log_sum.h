/* aclnnReduceLogSum (ops-math math/reduce_log_sum). */
#ifndef ACLNNOP_ACLNN_REDUCE_LOG_SUM_H_
#define ACLNNOP_ACLNN_REDUCE_LOG_SUM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnReduceLogSumGetWorkspaceSize(const aclTensor *data, const aclIntArray *axes,
                                                        bool keepDims, bool noopWithEmptyAxes, aclTensor *reduce,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnReduceLogSum(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_REDUCE_LOG_SUM_H_ */
