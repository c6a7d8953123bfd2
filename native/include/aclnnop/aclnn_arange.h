/* aclnnArange (ops-math math/range). */
#ifndef ACLNNOP_ACLNN_ARANGE_H_
#define ACLNNOP_ACLNN_ARANGE_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnArangeGetWorkspaceSize(const aclScalar *start, const aclScalar *end,
                                                  const aclScalar *step, aclTensor *out, uint64_t *workspaceSize,
                                                  aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnArange(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                  const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ARANGE_H_ */
