/* aclnnScatterAdd (ops-nn index/scatter_elements_v2). */
#ifndef ACLNNOP_ACLNN_SCATTER_ADD_H_
#define ACLNNOP_ACLNN_SCATTER_ADD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnScatterAddGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                      const aclTensor *src, aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnScatterAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                      const aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_SCATTER_ADD_H_ */
