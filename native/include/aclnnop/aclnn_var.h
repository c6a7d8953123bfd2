/* aclnnVar, aclnnVarCorrection (ops-math math/reduce_var). */
#ifndef ACLNNOP_ACLNN_VAR_H_
#define ACLNNOP_ACLNN_VAR_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnVarGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim, bool unbiased,
                                               bool keepdim, aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnVar(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

ACLNN_API aclnnStatus aclnnVarCorrectionGetWorkspaceSize(const aclTensor *self, const aclIntArray *dim,
                                                         int64_t correction, bool keepdim, aclTensor *out,
                                                         uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnVarCorrection(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_VAR_H_ */
