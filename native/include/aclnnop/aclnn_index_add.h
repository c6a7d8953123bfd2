/* aclnnIndexAdd (ops-nn index/inplace_scatter_add). */
#ifndef ACLNNOP_ACLNN_INDEX_ADD_H_
#define ACLNNOP_ACLNN_INDEX_ADD_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexAddGetWorkspaceSize(const aclTensor *self, const int64_t dim, const aclTensor *index,
                                                    const aclTensor *source, const aclScalar *alpha, aclTensor *out,
                                                    uint64_t *workspaceSize, aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnIndexAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                    aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_ADD_H_ */
