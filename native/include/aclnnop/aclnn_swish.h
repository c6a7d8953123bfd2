/* aclnnSwish (ops-nn activation/swish). */
#ifndef ACLNNOP_ACLNN_SWISH_H_
#define ACLNNOP_ACLNN_SWISH_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSwishGetWorkspaceSize(const aclTensor *self, const aclScalar *betaOptional,
                                                 aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnSwish(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SWISH_H_ */
