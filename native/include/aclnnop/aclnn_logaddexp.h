/* aclnnLogAddExp (ops-math math/log_add_exp). */
#ifndef ACLNNOP_ACLNN_LOGADDEXP_H_
#define ACLNNOP_ACLNN_LOGADDEXP_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnLogAddExpGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnLogAddExp(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_LOGADDEXP_H_ */
