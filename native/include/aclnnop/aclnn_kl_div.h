/* aclnnKlDiv (ops-math math/kl_div_v2). */
#ifndef ACLNNOP_ACLNN_KL_DIV_H_
#define ACLNNOP_ACLNN_KL_DIV_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnKlDivGetWorkspaceSize(const aclTensor *self, const aclTensor *target, int64_t reduction,
                                                 bool logTarget, aclTensor *out, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnKlDiv(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                 aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_KL_DIV_H_ */
