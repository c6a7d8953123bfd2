/* aclnnVarMean (ops-math math/reduce_var). */
#ifndef ACLNNOP_ACLNN_VAR_MEAN_H_
#define ACLNNOP_ACLNN_VAR_MEAN_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnVarMeanGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, int64_t correction,
                                                   bool keepdim, aclTensor *varOut, aclTensor *meanOut,
                                                   uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnVarMean(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_VAR_MEAN_H_ */
