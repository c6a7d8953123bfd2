/* aclnnTopk (ops-nn index/gather_elements). */
#ifndef ACLNNOP_ACLNN_TOPK_H_
#define ACLNNOP_ACLNN_TOPK_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnTopkGetWorkspaceSize(const aclTensor *self, int64_t k, int64_t dim, bool largest,
                                                bool sorted, aclTensor *valuesOut, aclTensor *indicesOut,
                                                uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnTopk(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_TOPK_H_ */
