/* aclnnErfinv, aclnnInplaceErfinv (ops-nn activation/erfinv). */
#ifndef ACLNNOP_ACLNN_ERFINV_H_
#define ACLNNOP_ACLNN_ERFINV_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnErfinvGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnErfinv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  const aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceErfinvGetWorkspaceSize(const aclTensor *selfRef, uint64_t *workspaceSize,
                                                         aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceErfinv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                         aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ERFINV_H_ */
