/* Experimental copy of aclnn_pytest_dup.h with a different prototype, plus an operator of its own: the
 * copy in op_headers wins for aclnnPytestDup, and this header's other operator still resolves. */
#ifndef PYTEST_ACLNN_DUP_H_
#define PYTEST_ACLNN_DUP_H_

#include <string>
#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPytestDupGetWorkspaceSize(const aclTensor *self, double times, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPytestDupV2GetWorkspaceSize(const aclTensor *self, aclTensor *out,
                                                       uint64_t *workspaceSize, aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPytestDupV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                       aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
