/* aclnnSituGlu (ops-nn activation/situ_glu). */
#ifndef ACLNNOP_ACLNN_SITU_GLU_H_
#define ACLNNOP_ACLNN_SITU_GLU_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSituGluGetWorkspaceSize(const aclTensor *x, int64_t dim, double beta, double linearBeta,
                                                   bool activateLeft, const aclTensor *out, uint64_t *workspaceSize,
                                                   aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSituGlu(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                   aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SITU_GLU_H_ */
