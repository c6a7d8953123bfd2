/* aclnnRoll (ops-math conversion/roll). */
#ifndef ACLNNOP_ACLNN_ROLL_H_
#define ACLNNOP_ACLNN_ROLL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnRollGetWorkspaceSize(const aclTensor *x, const aclIntArray *shifts,
                                                const aclIntArray *dims, aclTensor *out, uint64_t *workspaceSize,
                                                aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnRoll(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ROLL_H_ */
