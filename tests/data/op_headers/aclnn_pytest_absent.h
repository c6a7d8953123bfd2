/* A test operator that no library implements. */
#ifndef PYTEST_ACLNN_ABSENT_H_
#define PYTEST_ACLNN_ABSENT_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPytestAbsentGetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                        uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPytestAbsent(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                        aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
