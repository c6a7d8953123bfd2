/* aclnnHardsigmoid, aclnnInplaceHardsigmoid (ops-nn activation/hard_sigmoid). */
#ifndef ACLNNOP_ACLNN_HARDSIGMOID_H_
#define ACLNNOP_ACLNN_HARDSIGMOID_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnHardsigmoidGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnHardsigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       const aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceHardsigmoidGetWorkspaceSize(
    const aclTensor *self, uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceHardsigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                              const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_HARDSIGMOID_H_ */
