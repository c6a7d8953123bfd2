/* aclnnLogSumExp (ops-math math/reduce_log_sum_exp). */
#ifndef ACLNNOP_ACLNN_LOGSUMEXP_H_
#define ACLNNOP_ACLNN_LOGSUMEXP_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogSumExpGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                                                     aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLogSumExp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOGSUMEXP_H_ */
