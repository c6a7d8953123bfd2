/* A test operator declared again, differently, by an experimental copy (op_headers_experimental). */
#ifndef PYTEST_ACLNN_DUP_H_
#define PYTEST_ACLNN_DUP_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnPytestDupGetWorkspaceSize(const aclTensor *self, int64_t times, aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);
/* Declared twice on purpose: identical redeclarations are valid C. */
ACLNN_API aclnnStatus aclnnPytestDupGetWorkspaceSize(const aclTensor *self, int64_t times, aclTensor *out,
                                                     uint64_t *workspaceSize, aclOpExecutor **executor);
/* C++ that a C parser refuses, as operator implementation headers have: the aclnn declarations still resolve. */
void PytestDupHelper(const aclTensor *&placeHolder);
ACLNN_API aclnnStatus aclnnPytestDup(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif
#endif
