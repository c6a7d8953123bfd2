/* aclnnRenorm, aclnnInplaceRenorm (ops-nn norm/renorm). */
#ifndef ACLNNOP_ACLNN_RENORM_H_
#define ACLNNOP_ACLNN_RENORM_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRenormGetWorkspaceSize(const aclTensor *self, const aclScalar *p, int64_t dim,
                                                  const aclScalar *maxNorm, aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRenorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceRenormGetWorkspaceSize(aclTensor *selfRef, const aclScalar *p, int64_t dim,
                                                         const aclScalar *maxNorm, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceRenorm(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_RENORM_H_ */
