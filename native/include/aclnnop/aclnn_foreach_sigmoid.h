/* aclnnForeachSigmoid (ops-nn foreach/foreach_sigmoid). */
#ifndef ACLNNOP_ACLNN_FOREACH_SIGMOID_H_
#define ACLNNOP_ACLNN_FOREACH_SIGMOID_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnForeachSigmoidGetWorkspaceSize(const aclTensorList *x, const aclTensorList *out,
                                                          uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnForeachSigmoid(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                          aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_FOREACH_SIGMOID_H_ */
