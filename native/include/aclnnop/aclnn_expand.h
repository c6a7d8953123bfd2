/* aclnnExpand (ops-math math/expand). */
#ifndef ACLNNOP_ACLNN_EXPAND_H_
#define ACLNNOP_ACLNN_EXPAND_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnExpandGetWorkspaceSize(const aclTensor *self, const aclIntArray *size, aclTensor *out,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnExpand(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_EXPAND_H_ */
