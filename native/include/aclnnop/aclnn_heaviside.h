/* aclnnHeaviside (ops-nn activation/heaviside). */
#ifndef ACLNNOP_ACLNN_HEAVISIDE_H_
#define ACLNNOP_ACLNN_HEAVISIDE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnHeavisideGetWorkspaceSize(const aclTensor *input, const aclTensor *values, aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnHeaviside(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_HEAVISIDE_H_ */
