/* aclnnNonzeroV2 (ops-nn index/non_zero). */
#ifndef ACLNNOP_ACLNN_NONZERO_V2_H_
#define ACLNNOP_ACLNN_NONZERO_V2_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnNonzeroV2GetWorkspaceSize(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnNonzeroV2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_NONZERO_V2_H_ */
