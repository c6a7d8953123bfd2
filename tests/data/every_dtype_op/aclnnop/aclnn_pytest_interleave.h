/* A test operator of aclnn_py's tests (every_dtype.c): out[i] = self[i] for even i, the scalar for odd i. */
#ifndef PYTEST_ACLNN_INTERLEAVE_H_
#define PYTEST_ACLNN_INTERLEAVE_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPytestInterleaveGetWorkspaceSize(const aclTensor *self, const aclScalar *value,
                                                            aclTensor *out, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnPytestInterleave(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
