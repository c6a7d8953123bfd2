/* aclnnIndexFill, aclnnInplaceIndexFill (ops-nn index/index_fill_d). */
#ifndef ACLNNOP_ACLNN_INDEX_FILL_H_
#define ACLNNOP_ACLNN_INDEX_FILL_H_

#include "aclnn/aclnn_base.h"
#include "aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnIndexFillGetWorkspaceSize(const aclTensor *self, int64_t dim, const aclTensor *index,
                                                     const aclScalar *value, aclTensor *out, uint64_t *workspaceSize,
                                                     aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnIndexFill(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                     aclrtStream stream);

ACLNN_API aclnnStatus aclnnInplaceIndexFillGetWorkspaceSize(aclTensor *selfRef, int64_t dim, const aclTensor *index,
                                                            const aclScalar *value, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor);

ACLNN_API aclnnStatus aclnnInplaceIndexFill(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                                            aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_INDEX_FILL_H_ */
