/* A deprecated test operator, marked both ways operator headers do. */
#ifndef PYTEST_ACLNN_DEPRECATED_H_
#define PYTEST_ACLNN_DEPRECATED_H_

#include <string>
#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_DEPRECATED_MESSAGE("aclnnPytestOldGetWorkspaceSize is deprecated, use aclnnPytestEveryTypeGetWorkspaceSize")
ACLNN_API aclnnStatus aclnnPytestOldGetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

__attribute__((deprecated("aclnnPytestOld is deprecated, use aclnnPytestEveryType")))
ACLNN_API aclnnStatus aclnnPytestOld(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
